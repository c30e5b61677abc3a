// A phone's sensors: `motion` batches while PUNCH (or the lesson's HOLD) is held, with the moments
// before the press as the lead-in, within the bounds the server stated (`welcome.rules.motion`).

import { state, myTurn, round } from './state.js';
import { send } from './connection.js';
import { notice, swingStatus } from './feedback.js';

export const motion = {
  // unsupported | insecure | needsPermission | denied | checking | noSensor | ready
  status: 'checking',
  useMeter: localStorage.getItem('hitthat.useMeter') === '1',
  hold: null,        // the hold under way: { number, target, pressed, rows, width, timer, strongAt }; its
                     // target is a fight's punch ({ fight, after }) or the lesson's ({ kind })
  budget: Infinity,  // the messages holds may send now (full to begin with), and when counted (`BUDGET`)
  budgetAt: 0,
  heard: false,
  lastT: -Infinity,  // the newest sample's time, s
  lead: [],          // the samples of the lead-in the server takes, while no hold is under way
  landed: null,      // this player's newest punch: { sequence, received, drawn } (performance.now(), ms:
                     // its event came, the frame that shows it began), for swing-to-screen timing
  render: () => {},  // redraws the page when the sensor's state changes
};

/// Batches leave every 50 ms, within the protocol's 50–100 ms, and each row at once while a punch
/// may be under way (below): the server decides a punch a blink after its stop, and a row that
/// waits for the timer would add up to 50 ms to it.
const BATCH_MS = 50;
/// A punch may be under way while the reading is this far from gravity (m/s²; a hand at rest or
/// walking stays within it), and for `UNDER_WAY_S` after.
const UNDER_WAY_MS2 = 4;
const UNDER_WAY_S = 0.3;
/// Every batch of a hold spends one message of a budget of 15 a second, in bursts of up to 25, so
/// that holds never run into the server's message limit (20 a second, bursts of 40, of every
/// kind); a row leaves at once only with a message to spare for the hold's last batch, else with
/// the timer's.
const BUDGET = { perSecond: 15, burst: 25 };
/// A little inside the server's bounds, so that a hold or a lead-in at the bound is not refused
/// for a timer's lateness.
const INSIDE = 0.975;

function limits() { return state.rules?.motion || null; }

export function setUpMotion() {
  // The page's origin comes first: over plain http (a LAN address) the browser hides motion
  // altogether, and "this browser gives no motion" would send the player to another browser.
  if (!window.isSecureContext) { motion.status = 'insecure'; return; }
  if (!('DeviceMotionEvent' in window)) { motion.status = 'unsupported'; return; }
  if (typeof DeviceMotionEvent.requestPermission === 'function') { motion.status = 'needsPermission'; return; }
  listenForMotion();
}

function listenForMotion() {
  motion.status = 'checking';
  window.addEventListener('devicemotion', onMotion);
  // A browser may know the event with no sensor behind it (a desktop): silence means none.
  setTimeout(() => { if (!motion.heard && motion.status === 'checking') { motion.status = 'noSensor'; motion.render(); } }, 1500);
}

/// Safari (and Chromium) ask for motion only from a tap.
export async function askForMotion() {
  try {
    const answer = await DeviceMotionEvent.requestPermission();
    if (answer === 'granted') listenForMotion(); else motion.status = 'denied';
  } catch {
    motion.status = 'denied';
  }
  motion.render();
}

function onMotion(event) {
  const a = event.accelerationIncludingGravity;
  if (!a || a.x == null || a.y == null || a.z == null) return;
  if (!motion.heard) { motion.heard = true; motion.status = 'ready'; motion.render(); }
  const bounds = limits();
  if (!bounds) return;
  const t = event.timeStamp / 1000;
  if (t <= motion.lastT || t - motion.lastT < 1 / bounds.maximumRate - 1e-6) return;
  motion.lastT = t;
  const r = event.rotationRate;
  const row = [round(t, 4), round(a.x, 3), round(a.y, 3), round(a.z, 3)];
  // rotationRate's alpha is the rate about the device's x axis, beta about y and gamma about z (the
  // W3C DeviceOrientation spec, Chromium, Safari), unlike deviceorientation's angles: alpha there is
  // about z. The protocol's rows are x, y, z.
  if (r && r.alpha != null && r.beta != null && r.gamma != null) row.push(round(r.alpha, 2), round(r.beta, 2), round(r.gamma, 2));
  const hold = motion.hold;
  if (!hold) { keepForLead(row, bounds); return; }
  // One width a hold: a row without the rotation rate in a hold that had it is dropped.
  if (hold.width == null) hold.width = row.length;
  if (row.length !== hold.width) return;
  if (t - hold.pressed > bounds.holdSeconds * INSIDE) {
    releaseHold();
    swingStatus(`Held too long (${bounds.holdSeconds} s at most): hold PUNCH, then swing at once.`);
    return;
  }
  hold.rows.push(row);
  if (Math.abs(Math.hypot(a.x, a.y, a.z) - 9.81) > UNDER_WAY_MS2) hold.strongAt = t;
  if (hold.rows.length >= bounds.samplesPerBatch || (t - hold.strongAt <= UNDER_WAY_S && budgetLeft() >= 2)) flushHold(false);
}

/// The messages holds may still send now (`BUDGET`).
function budgetLeft() {
  const now = performance.now() / 1000;
  motion.budget = Math.min(BUDGET.burst, motion.budget + (now - motion.budgetAt) * BUDGET.perSecond);
  motion.budgetAt = now;
  return motion.budget;
}

/// The last moments before PUNCH is pressed, sent as the hold's lead-in: the server's detector
/// then knows which way is up and what the arm was doing, as it does a little way into a recording.
function keepForLead(row, bounds) {
  motion.lead.push(row);
  const since = row[0] - bounds.leadSeconds * INSIDE;
  let old = 0;
  while (old < motion.lead.length && motion.lead[old][0] < since) old++;
  if (old > 0) motion.lead.splice(0, old);
}

/// PUNCH held in the fight on screen: a hold for the punch of this turn.
export function startPunchHold() {
  const fight = state.fights.get(state.current);
  if (!fight || !myTurn(fight)) { notice('Wait your turn.'); return false; }
  return startHold({ fight: fight.id, after: state.seen.get(fight.id) });
}

/// Begins a hold for `target`, sent with the lead-in of the moments before.
export function startHold(target) {
  endHold();
  const bounds = limits();
  if (!bounds) return false;
  const number = (Number(localStorage.getItem('hitthat.hold')) || 0) + 1;
  localStorage.setItem('hitthat.hold', String(number));
  // The lead-in: the newest rows of one width, within the server's lead-in of the press.
  const pressed = performance.now() / 1000;
  const newest = motion.lead[motion.lead.length - 1];
  const lead = newest
    ? motion.lead.filter((row) => row.length === newest.length && row[0] >= pressed - bounds.leadSeconds * INSIDE) : [];
  motion.lead = [];
  motion.hold = {
    number, target, pressed: round(pressed, 4), rows: lead,
    width: newest ? newest.length : null,
    strongAt: -Infinity,
    timer: setInterval(() => flushHold(false), BATCH_MS),
  };
  swingStatus('Swing!');
  return true;
}

function flushHold(final) {
  const hold = motion.hold;
  const bounds = limits();
  if (!hold || !bounds) return;
  while (hold.rows.length > 0 || final) {
    if (!final && budgetLeft() < 1) break;
    motion.budget -= 1;
    const samples = hold.rows.splice(0, bounds.samplesPerBatch);
    const last = final && hold.rows.length === 0;
    if (samples.length === 0 && !last) break;
    const rows = { hold: hold.number, pressed: hold.pressed, samples, final: last };
    if (hold.target.kind) send('teachMotion', { kind: hold.target.kind, ...rows });
    else send('motion', { fight: hold.target.fight, after: hold.target.after, ...rows });
    if (last) break;
  }
}

export function releaseHold() {
  if (!motion.hold) return;
  flushHold(true);
  clearInterval(motion.hold.timer);
  motion.hold = null;
  swingStatus('Judging the swing…');
  motion.render();
}

/// Notes when this player's punch's event came and when the frame that shows it began.
export function noteLanded(sequence) {
  const landed = { sequence, received: performance.now(), drawn: null };
  motion.landed = landed;
  requestAnimationFrame(() => { landed.drawn = performance.now(); });
}

/// Drops a hold without a final batch (the connection went, the fight moved on).
export function endHold() {
  if (!motion.hold) return;
  clearInterval(motion.hold.timer);
  motion.hold = null;
}

/// The server found no punch in a hold: said to the player, who swings again.
export function holdEnded(message) {
  if (message.fight !== state.current) return;
  swingStatus('No punch found in that swing: hold PUNCH, swing, and stop sharply.');
}

export function usingMotion() {
  return motion.status === 'ready' && !motion.useMeter;
}

/// Which phone the page is on, for where its settings are: iOS's Safari and Android's Chrome name
/// and place the motion permission differently.
export function platform(userAgent = navigator.userAgent) {
  if (/iPhone|iPad|iPod/.test(userAgent) || (/Macintosh/.test(userAgent) && navigator.maxTouchPoints > 1)) return 'ios';
  if (/Android/.test(userAgent)) return 'android';
  return 'other';
}

export function motionWords() {
  switch (motion.status) {
    case 'ready': return 'Motion: ready. In a fight, hold PUNCH, then swing.';
    case 'checking': return 'Motion: looking for a sensor…';
    case 'noSensor': return 'No motion sensor here: punch with the meter (a button).';
    case 'unsupported': return 'This browser gives no motion: punch with the meter.';
    case 'insecure':
      return 'This page came over plain http://, and browsers give motion only to a secure page: open it over '
        + 'https:// (or on localhost) to swing the phone. Until then, punch with the meter.';
    case 'needsPermission': return 'Motion needs your permission: tap Enable motion.';
    case 'denied':
      switch (platform()) {
        case 'ios': return 'Motion permission refused: punch with the meter, or allow Motion & Orientation Access '
          + '(Settings › Apps › Safari) and reload.';
        case 'android': return 'Motion permission refused: punch with the meter, or allow Motion sensors for this site '
          + '(the icon left of the address › Permissions) and reload.';
        default: return 'Motion permission refused: punch with the meter, or allow motion sensors in the browser\'s '
          + 'site settings and reload.';
      }
  }
  return '';
}
