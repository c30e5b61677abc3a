// HitThat in a browser: sign in, find an opponent, fight turn by turn. Every message is one of
// docs/PROTOCOL.md's, and every message the page sends goes through send(), so that a test can read
// this file for the types it sends (Tests/FightProtocolTests/PageMessagesTests.swift).
'use strict';

const $ = (id) => document.getElementById(id);

// MARK: - What the page knows

const state = {
  token: localStorage.getItem('hitthat.token'),
  me: null,                // the fighter's own card (`welcome`, `profile`)
  names: new Map(),        // fighter id → display name
  asked: new Set(),        // fighter ids whose card was asked for
  fights: new Map(),       // fight id → the fight as the server's `fight` gives it, kept up by events
  seen: new Map(),         // fight id → the last sequence applied (the `after` of a punch)
  presence: new Map(),     // fight id → the other fighter's latest `presence`
  log: new Map(),          // fight id → lines of what happened, newest first
  current: null,           // the fight on screen
  matchup: null,           // the versus card's `matchup`
  inRoom: false,           // waiting in quick match
  pending: new Map(),      // ref → the message sent, to read its answer by
  punchProfile: null,      // what the server learned of this fighter's punches (`welcome`, `taught`)
};

/// Teaching the server this fighter's punches (PROTOCOL.md's "Teaching the detector your
/// punches"): `teach`, then each kind asked for by name, three of each, each a hold.
const lesson = {
  status: 'idle',    // idle | starting | asking | finishing
  kind: null,        // the kind asked for
  progress: null,    // the server's last `teaching`
};
const LESSON_ORDER = ['jab', 'uppercut', 'hook'];

// MARK: - The connection

let socket = null;
let nextRef = 1;
let backoff = 1000;              // doubles to 30 s while the server cannot be reached
let reconnectAt = 0;
let reconnectTimer = null;
let everConnected = false;

function connect() {
  clearTimeout(reconnectTimer);
  reconnectTimer = null;
  if (!state.token || socket) return;
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
  const ws = new WebSocket(url);
  socket = ws;
  setConnection(everConnected ? 'Reconnecting…' : 'Connecting…', false);
  ws.onopen = () => {
    backoff = 1000;
    everConnected = true;
    setConnection('Connected', false);
    // `hello` first: its `welcome` lists the open fights to catch up on (PROTOCOL.md, "Reconnecting").
    send('hello');
  };
  ws.onmessage = (message) => {
    let parsed;
    try { parsed = JSON.parse(message.data); } catch { return; }
    receive(parsed);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    state.pending.clear();
    endHold();
    if (!state.token) return;
    // Jittered, so that many pages do not all come back at the same moment after a restart.
    const wait = backoff * (0.8 + Math.random() * 0.4);
    backoff = Math.min(backoff * 2, 30000);
    reconnectAt = Date.now() + wait;
    reconnectTimer = setTimeout(connect, wait);
    render();
  };
}

function setConnection(text, down) {
  const element = $('connection');
  element.textContent = text;
  element.classList.toggle('down', down);
  $('retry').hidden = !down;
}

/// Sends one client message; the only place the page sends one. Returns its `ref`, or null when
/// there is no connection (said on screen: a punch is not kept to be sent later, when it would be
/// stale anyway).
function send(type, fields = {}) {
  if (!socket || socket.readyState !== WebSocket.OPEN) {
    notice('Not connected: that was not sent.');
    return null;
  }
  const ref = nextRef++;
  state.pending.set(ref, { type, ...fields });
  socket.send(JSON.stringify({ type, v: 1, token: state.token, ref, ...fields }));
  return ref;
}

// MARK: - Accounts (HTTP)

async function account(path) {
  const username = $('username').value.trim();
  const password = $('password').value;
  $('signin-error').textContent = '';
  if (!/^[A-Za-z0-9_]{3,20}$/.test(username)) {
    $('signin-error').textContent = 'A username is 3 to 20 letters, digits or underscores.';
    return;
  }
  if (password.length < 8) {
    $('signin-error').textContent = 'A password is 8 characters or more.';
    return;
  }
  let response, answer;
  try {
    response = await fetch(path, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }),
    });
    answer = await response.json();
  } catch {
    $('signin-error').textContent = 'The server cannot be reached. Try again in a moment.';
    return;
  }
  if (answer.type !== 'session') {
    const reasons = {
      unauthorized: 'Wrong username or password.',
      conflict: 'That username is taken. Log in, or choose another.',
      rateLimited: 'Too many tries from here: wait a few seconds and try again.',
    };
    $('signin-error').textContent = reasons[answer.code] || answer.message || 'That did not work.';
    return;
  }
  state.token = answer.token;
  localStorage.setItem('hitthat.token', answer.token);
  learnCard(answer.fighter, true);
  $('password').value = '';
  connect();
  render();
}

function signOut(message) {
  state.token = null;
  localStorage.removeItem('hitthat.token');
  state.me = null;
  state.fights.clear();
  state.seen.clear();
  state.log.clear();
  state.current = null;
  state.matchup = null;
  state.inRoom = false;
  if (socket) { const ws = socket; socket = null; ws.close(); }
  clearTimeout(reconnectTimer);
  setConnection('', false);
  if (message) $('signin-error').textContent = message;
  render();
}

// MARK: - Server messages

function receive(message) {
  const request = message.ref != null ? state.pending.get(message.ref) : undefined;
  if (message.ref != null) state.pending.delete(message.ref);
  switch (message.type) {
    case 'welcome': welcome(message); break;
    case 'profile': learnCard(message.fighter, request && request.fighter == null); break;
    case 'opponent':
      state.matchup = message.matchup || null;
      if (!message.matchup) notice('Nobody else within 50 km for now. Try quick match.');
      break;
    case 'fight': learnFight(message.fight); break;
    case 'events': for (const event of message.events) applyEvent(event, true); break;
    case 'event': event(message); break;
    case 'presence': state.presence.set(message.fight, message); break;
    case 'meter': meter.shape = message.meter; break;
    case 'holdEnded': holdEnded(message); break;
    case 'teaching': taught(message); break;
    case 'taught': learned(message.profile); break;
    case 'punchProfile': state.punchProfile = message.profile || null; break;
    case 'loggedOut': signOut('Logged out.'); return;
    case 'error': failed(message, request); break;
  }
  render();
}

function welcome(message) {
  learnCard(message.fighter, true);
  state.punchProfile = message.punchProfile || null;
  // A teaching is the server's on the connection it began on: gone with it.
  if (lesson.status !== 'idle') stopLesson('The connection dropped: teach again.');
  const open = new Set();
  for (const fight of message.openFights || []) {
    open.add(fight.id);
    learnFight(fight);
  }
  // A fight followed before the connection dropped that is no longer open ended meanwhile: its
  // events after the last one seen tell how.
  for (const [id, fight] of state.fights) {
    if (!open.has(id) && fight.phase !== 'finished') send('replay', { fight: id, after: state.seen.get(id) || 0 });
  }
  for (const presence of message.presence || []) state.presence.set(presence.fight, presence);
  // Back in the middle of a fight: straight to it.
  if (state.current == null) {
    const active = (message.openFights || []).filter((f) => f.phase === 'active').sort((a, b) => b.id - a.id)[0];
    if (active) state.current = active.id;
  }
}

function learnCard(card, own) {
  if (!card) return;
  state.names.set(card.id, card.displayName);
  if (own) state.me = card;
}

/// A fight as the server states it. Events it already counts are not applied again; any the page
/// has not seen are replayed for the log (and are then only logged).
function learnFight(fight) {
  state.fights.set(fight.id, fight);
  const seen = state.seen.get(fight.id);
  if (seen == null) {
    state.seen.set(fight.id, fight.lastSequence);
  } else if (fight.lastSequence > seen) {
    send('replay', { fight: fight.id, after: seen });
  }
  askName(otherFighter(fight));
}

function event(message) {
  switch (message.kind) {
    case 'moved':
      if (state.me) { state.me.latitude = message.latitude; state.me.longitude = message.longitude; }
      notice('Location set.');
      return;
    case 'openedRoom': state.inRoom = true; return;
    case 'leftRoom': state.inRoom = false; return;
    case 'profileUpdated': return;
    case 'holdEnded': holdEnded(message); return;
  }
  applyEvent(message, false);
}

/// Applies a fight event once, in order: a duplicate is ignored, and a gap asks for a replay
/// from the last one seen (the missing ones then come, this one with them).
function applyEvent(event, replayed) {
  const id = event.fight;
  if (id == null || event.sequence == null) return;
  const seen = state.seen.get(id) || 0;
  if (event.sequence <= seen) return;
  if (event.sequence > seen + 1 && !(seen === 0 && (event.kind === 'challenged' || event.kind === 'matched'))) {
    if (!replayed) send('replay', { fight: id, after: seen });
    return;
  }
  state.seen.set(id, event.sequence);
  let fight = state.fights.get(id);
  if (event.kind === 'challenged' || event.kind === 'matched') {
    fight = fight || {
      id, challenger: event.challenger, opponent: event.opponent, phase: 'challenged',
      staminaChallenger: 100, staminaOpponent: 100, punchesChallenger: 0, punchesOpponent: 0,
      missedTurnsChallenger: 0, missedTurnsOpponent: 0, lastSequence: 0,
    };
    state.fights.set(id, fight);
    askName(otherFighter(fight));
  }
  if (!fight) { send('fight', { fight: id }); return; }
  // The server's `fight` may already count this event: then it is only told.
  const fresh = event.sequence > fight.lastSequence;
  if (fresh) change(fight, event);
  tell(fight, event, fresh && !replayed);
}

function change(fight, event) {
  fight.lastSequence = event.sequence;
  if ('turn' in event) fight.turn = event.turn; else delete fight.turn;
  if ('deadline' in event) fight.deadline = event.deadline; else delete fight.deadline;
  switch (event.kind) {
    case 'challenged': fight.phase = 'challenged'; fight.expiresAt = event.expiresAt; break;
    case 'matched': case 'accepted': fight.phase = 'active'; break;
    case 'declined': case 'expired': fight.phase = 'finished'; fight.ending = event.kind; break;
    case 'punched': {
      const challengerHit = event.by !== fight.challenger;
      if (challengerHit) fight.staminaChallenger = event.staminaLeft; else fight.staminaOpponent = event.staminaLeft;
      if (event.by === fight.challenger) { fight.punchesChallenger++; fight.missedTurnsChallenger = 0; }
      else { fight.punchesOpponent++; fight.missedTurnsOpponent = 0; }
      break;
    }
    case 'turnPassed':
      // Who let it pass is not in the event: the server's count of missed turns is asked for.
      if (event.missedTurns > 0) send('fight', { fight: fight.id });
      break;
    case 'ended':
      fight.phase = 'finished'; fight.ending = event.decision;
      if (event.winner != null) fight.winner = event.winner; else delete fight.winner;
      // The record changed with it.
      send('profile');
      break;
  }
}

// MARK: - What happened, in words

function nameOf(id) {
  if (state.me && id === state.me.id) return 'You';
  return state.names.get(id) || `Fighter ${id}`;
}

function askName(id) {
  if (id == null || state.names.has(id) || state.asked.has(id)) return;
  state.asked.add(id);
  send('profile', { fighter: id });
}

function otherFighter(fight) {
  if (!state.me) return fight.opponent;
  return fight.challenger === state.me.id ? fight.opponent : fight.challenger;
}

const verbs = { jab: ['jab', 'jabs'], hook: ['hook', 'hooks'], uppercut: ['uppercut', 'uppercuts'] };

/// Keeps the event for the fight's log, and does what a live one does: buzz, sound, notices.
function tell(fight, event, live) {
  const mine = state.me && event.by === state.me.id;
  if (live) {
    switch (event.kind) {
      case 'challenged':
        if (event.challenger !== state.me?.id) { buzz([100, 60, 100]); notice(describe(fight, event).line); }
        break;
      case 'matched': case 'accepted':
        // The versus card was for before this fight: its record and odds are old news after it.
        state.current = fight.id; state.inRoom = false; state.matchup = null; buzz([80]);
        break;
      case 'punched':
        // A short buzz for a punch landed, a long one for being hit.
        buzz(mine ? [40] : [180]);
        thump(mine ? 180 : 90);
        // clipped: the phone's sensor topped out at the stop, so the swing was harder than it measured.
        const toppedOut = event.clipped ? ' Harder than your sensor can measure!' : '';
        swingStatus(mine ? `Landed: ${event.punch} for ${event.damage}.${toppedOut}` : '');
        // The server reads no more of a hold once its punch landed.
        if (mine) endHold();
        break;
      case 'turnPassed': swingStatus(''); break;
      case 'ended': buzz(event.winner === state.me?.id ? [60, 60, 60] : [300]); break;
    }
  }
  const events = state.log.get(fight.id) || [];
  events.unshift(event);
  state.log.set(fight.id, events.slice(0, 50));
}

/// An event of the log in words, made when drawn: a name may come after the event that uses it.
function describe(fight, event) {
  const mine = state.me && event.by === state.me.id;
  switch (event.kind) {
    case 'challenged':
      return { line: event.challenger === state.me?.id
        ? `You challenged ${nameOf(event.opponent)}.` : `${nameOf(event.challenger)} challenges you.` };
    case 'matched': case 'accepted':
      return { line: `The fight is on: ${event.turn === state.me?.id ? 'you throw' : nameOf(event.turn) + ' throws'} first.` };
    case 'declined': return { line: 'The challenge was declined.' };
    case 'expired': return { line: 'The challenge expired.' };
    case 'punched': {
      const target = event.by === fight.challenger ? fight.opponent : fight.challenger;
      const verb = verbs[event.punch] ? verbs[event.punch][mine ? 0 : 1] : 'punches';
      const blunted = event.bluntedBy ? `, blunted by a ${event.bluntedBy} guard` : '';
      const left = mine ? `${nameOf(target)} has ${event.staminaLeft} left.` : `You have ${event.staminaLeft} left.`;
      return {
        line: `${mine ? 'You' : nameOf(event.by)} ${verb} ${mine ? nameOf(target) : 'you'}: ${event.damage}${blunted}. ${left}`,
        tone: mine ? 'mine' : 'theirs',
      };
    }
    case 'turnPassed':
      return { line: event.missedTurns === 0
        ? `The server was down: ${event.turn === state.me?.id ? 'your' : nameOf(event.turn) + "'s"} turn starts afresh.`
        : `${nameOf(event.turn === fight.challenger ? fight.opponent : fight.challenger)} let the turn pass.` };
    case 'ended':
      return { line: ending({ ending: event.decision, winner: event.winner }), tone: event.winner === state.me?.id ? 'mine' : 'theirs' };
  }
  return { line: event.kind };
}

function ending(fight) {
  const how = { knockout: 'by knockout', points: 'on points', forfeit: 'by forfeit' }[fight.ending] || '';
  if (fight.ending === 'declined') return 'Declined.';
  if (fight.ending === 'expired') return 'The challenge expired.';
  if (fight.winner == null) return `A draw ${how}.`;
  return fight.winner === state.me?.id ? `You win ${how}!` : `${nameOf(fight.winner)} wins ${how}.`;
}

// MARK: - Errors

function failed(error, request) {
  const type = request ? request.type : null;
  if (error.code === 'unauthorized') {
    signOut(error.reason === 'sessionExpired' ? 'Your session lapsed: log in again.' : 'Log in again.');
    return;
  }
  if (type === 'teach' || type === 'teachMotion' || type === 'teachDone') { lessonFailed(error, type); return; }
  if (type === 'punch' || type === 'windUp' || type === 'motion') {
    meter.reset();
    endHold();
    if (error.code === 'stale') {
      // The fight moved on (a turn passed): catch up, then try again.
      send('fight', { fight: request.fight });
      notice('The fight moved on: look, then punch again.');
      return;
    }
    if (error.reason === 'waitYourTurn') { notice('Wait your turn.'); return; }
    // A batch refused (too fast, too long, …) ends its hold on the server too: say why, hold again.
    if (type === 'motion') { swingStatus(`That swing was refused (${error.message || error.code}): hold PUNCH again.`); return; }
  }
  if (error.reason === 'noLocation') { notice('Set where you are first (below).'); return; }
  if (error.reason === 'alreadyWaiting') { state.inRoom = true; return; }
  if (error.code === 'rateLimited') { notice('Too fast: wait a moment.'); return; }
  notice(error.message || error.code);
}

// MARK: - Notices, vibration, sound

let noticeTimer = null;
function notice(text) {
  const element = $('notice');
  element.textContent = text;
  element.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { element.hidden = true; }, 5000);
}

function buzz(pattern) {
  if (navigator.vibrate) navigator.vibrate(pattern);
}

let audio = null;
/// A short thump, when the player turned sound on (off by default: a phone in a pocket, a quiet room).
function thump(frequency) {
  if (!$('sound').checked) return;
  try {
    audio = audio || new AudioContext();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.5, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start();
    oscillator.stop(audio.currentTime + 0.25);
  } catch { /* no audio here: silence */ }
}

// MARK: - The power meter (a button: `windUp`, then `punch` without damage)

const meter = {
  shape: null,       // the `meter` reply: sweep, floor, and each kind's spot
  startedAt: null,   // when `windUp` was sent (performance.now()): the server times from its arrival
  fight: null,
  kind: localStorage.getItem('hitthat.kind') || 'jab',
  reset() { this.startedAt = null; this.shape = null; this.fight = null; },
  level(now) {
    const sweep = this.shape.sweepMilliseconds;
    const phase = ((now - this.startedAt) % sweep) / sweep;
    return phase < 0.5 ? phase * 2 : 2 - phase * 2;
  },
  /// What a stop at `level` does, by PROTOCOL.md's rule: the floor plus the kind's share of the way
  /// to its ceiling, falling off in a straight line to the floor at the spot's half-width.
  damage(level) {
    const spot = this.shape[this.kind];
    const share = Math.max(0, 1 - Math.abs(level - spot.level) / spot.halfWidth);
    return Math.round(this.shape.floor + (spot.ceiling - this.shape.floor) * share);
  },
};

function windUpOrThrow() {
  const fight = state.fights.get(state.current);
  if (!fight || !myTurn(fight)) { notice('Wait your turn.'); return; }
  if (meter.startedAt == null || meter.fight !== fight.id) {
    meter.reset();
    if (send('windUp', { fight: fight.id, after: state.seen.get(fight.id) }) == null) return;
    meter.startedAt = performance.now();
    meter.fight = fight.id;
  } else {
    const at = meter.shape ? meter.damage(meter.level(performance.now())) : null;
    send('punch', { fight: fight.id, after: state.seen.get(fight.id), kind: meter.kind });
    meter.reset();
    if (at != null) $('meter-hint').textContent = `Thrown at about ${at}.`;
  }
  render();
}

function drawMeter() {
  const needle = document.querySelector('#meter .needle');
  const spot = document.querySelector('#meter .spot');
  if (meter.startedAt == null || !meter.shape) {
    needle.style.left = '0%';
    spot.style.width = '0%';
    return;
  }
  const level = meter.level(performance.now());
  const sweet = meter.shape[meter.kind];
  const from = Math.max(0, sweet.level - sweet.halfWidth);
  const to = Math.min(1, sweet.level + sweet.halfWidth);
  spot.style.left = `${from * 100}%`;
  spot.style.width = `${(to - from) * 100}%`;
  needle.style.left = `${level * 100}%`;
  $('meter-hint').textContent = `Stop now: ${meter.damage(level)} (up to ${sweet.ceiling} in the green)`;
}

// MARK: - Motion (a phone's sensors: `motion` batches while PUNCH is held)

const motion = {
  // unsupported | insecure | needsPermission | denied | checking | noSensor | ready
  status: 'checking',
  useMeter: localStorage.getItem('hitthat.useMeter') === '1',
  hold: null,        // the hold under way: { number, target, pressed, rows, width, timer }; its
                     // target is a fight's punch ({ fight, after }) or the lesson's ({ kind })
  heard: false,
  lastT: -Infinity,  // the newest sample's time, s
  lead: [],          // the samples of the last MOTION_LEAD_S, while no hold is under way
};

/// Batches are sent every 50 ms, at most 64 rows, at most 200 Hz (a faster device is thinned).
const MOTION_BATCH_MS = 50;
const MOTION_MAX_ROWS = 64;
const MOTION_MIN_STEP_S = 1 / 200;
/// The server reads a hold of at most 5 s: a longer one ends here, with the reason.
const MOTION_MAX_HOLD_S = 4.9;
/// The lead-in sent as PUNCH is pressed: the server takes at most 2 s of it.
const MOTION_LEAD_S = 1.95;

function setUpMotion() {
  if (!('DeviceMotionEvent' in window)) { motion.status = 'unsupported'; return; }
  if (!window.isSecureContext) { motion.status = 'insecure'; return; }
  if (typeof DeviceMotionEvent.requestPermission === 'function') { motion.status = 'needsPermission'; return; }
  listenForMotion();
}

function listenForMotion() {
  motion.status = 'checking';
  window.addEventListener('devicemotion', onMotion);
  // A browser may know the event with no sensor behind it (a desktop): silence means none.
  setTimeout(() => { if (!motion.heard && motion.status === 'checking') { motion.status = 'noSensor'; render(); } }, 1500);
}

/// iOS asks for motion only from a tap.
async function askForMotion() {
  try {
    const answer = await DeviceMotionEvent.requestPermission();
    if (answer === 'granted') listenForMotion(); else motion.status = 'denied';
  } catch {
    motion.status = 'denied';
  }
  render();
}

function onMotion(event) {
  const a = event.accelerationIncludingGravity;
  if (!a || a.x == null || a.y == null || a.z == null) return;
  if (!motion.heard) { motion.heard = true; motion.status = 'ready'; render(); }
  const t = event.timeStamp / 1000;
  if (t <= motion.lastT || t - motion.lastT < MOTION_MIN_STEP_S - 1e-6) return;
  motion.lastT = t;
  const r = event.rotationRate;
  const row = [round(t, 4), round(a.x, 3), round(a.y, 3), round(a.z, 3)];
  // rotationRate's alpha is the rate about the device's x axis, beta about y and gamma about z (the
  // W3C DeviceOrientation spec, Chromium, Safari), unlike deviceorientation's angles: alpha there is
  // about z. The protocol's rows are x, y, z.
  if (r && r.alpha != null && r.beta != null && r.gamma != null) row.push(round(r.alpha, 2), round(r.beta, 2), round(r.gamma, 2));
  const hold = motion.hold;
  if (!hold) { keepForLead(row); return; }
  // One width a hold: a row without the rotation rate in a hold that had it is dropped.
  if (hold.width == null) hold.width = row.length;
  if (row.length !== hold.width) return;
  if (t - hold.pressed > MOTION_MAX_HOLD_S) {
    releaseHold();
    swingStatus('Held too long (5 s at most): hold PUNCH, then swing at once.');
    return;
  }
  hold.rows.push(row);
  if (hold.rows.length >= MOTION_MAX_ROWS) flushHold(false);
}

/// The last moments before PUNCH is pressed, sent as the hold's lead-in: the server's detector
/// then knows which way is up and what the arm was doing, as it does a little way into a recording.
function keepForLead(row) {
  motion.lead.push(row);
  const since = row[0] - MOTION_LEAD_S;
  let old = 0;
  while (old < motion.lead.length && motion.lead[old][0] < since) old++;
  if (old > 0) motion.lead.splice(0, old);
}

function round(value, digits) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/// PUNCH held in the fight on screen: a hold for the punch of this turn.
function startPunchHold() {
  const fight = state.fights.get(state.current);
  if (!fight || !myTurn(fight)) { notice('Wait your turn.'); return false; }
  return startHold({ fight: fight.id, after: state.seen.get(fight.id) });
}

/// Begins a hold for `target`, sent with the lead-in of the moments before.
function startHold(target) {
  endHold();
  const number = (Number(localStorage.getItem('hitthat.hold')) || 0) + 1;
  localStorage.setItem('hitthat.hold', String(number));
  // The lead-in: the newest rows of one width, within MOTION_LEAD_S of the press.
  const pressed = performance.now() / 1000;
  const newest = motion.lead[motion.lead.length - 1];
  const lead = newest ? motion.lead.filter((row) => row.length === newest.length && row[0] >= pressed - MOTION_LEAD_S) : [];
  motion.lead = [];
  motion.hold = {
    number, target, pressed: round(pressed, 4), rows: lead,
    width: newest ? newest.length : null,
    timer: setInterval(() => flushHold(false), MOTION_BATCH_MS),
  };
  swingStatus('Swing!');
  return true;
}

function flushHold(final) {
  const hold = motion.hold;
  if (!hold) return;
  while (hold.rows.length > 0 || final) {
    const samples = hold.rows.splice(0, MOTION_MAX_ROWS);
    const last = final && hold.rows.length === 0;
    if (samples.length === 0 && !last) break;
    const rows = { hold: hold.number, pressed: hold.pressed, samples, final: last };
    if (hold.target.kind) send('teachMotion', { kind: hold.target.kind, ...rows });
    else send('motion', { fight: hold.target.fight, after: hold.target.after, ...rows });
    if (last) break;
  }
}

function releaseHold() {
  if (!motion.hold) return;
  flushHold(true);
  clearInterval(motion.hold.timer);
  motion.hold = null;
  swingStatus('Judging the swing…');
  render();
}

/// Drops a hold without a final batch (the connection went, the fight moved on).
function endHold() {
  if (!motion.hold) return;
  clearInterval(motion.hold.timer);
  motion.hold = null;
}

/// The server found no punch in a hold: said to the player, who swings again.
function holdEnded(message) {
  if (message.fight !== state.current) return;
  swingStatus('No punch found in that swing: hold PUNCH, swing, and stop sharply.');
}

/// What became of the swing, where the player is looking: the lesson's card while it is under way.
function swingStatus(text) { $(lesson.status === 'idle' ? 'swing-status' : 'teach-swing').textContent = text; }

// MARK: - Teaching your punches

function startLesson() {
  if (!usingMotion()) { notice('Teaching needs the motion sensor: ' + motionWords()); return; }
  endHold();
  lesson.status = 'starting';
  lesson.kind = null;
  lesson.progress = null;
  send('teach', { hand: $('teach-left').checked ? 'left' : 'right' });
  swingStatus('');
}

/// The server's counts: the next kind short of its punches is asked for.
function taught(progress) {
  if (lesson.status === 'idle') return;
  endHold();
  lesson.progress = progress;
  lesson.kind = LESSON_ORDER.find((kind) => countOf(progress, kind) < progress.punchesPerKind) || null;
  lesson.status = lesson.kind ? 'asking' : 'finishing';
  if (!lesson.kind) { send('teachDone'); return; }
  if (progress.kind) buzz(60);
  swingStatus(progress.kind ? `Got that ${progress.kind} (${round(progress.peakG, 1)} g).` : 'Hold, then throw it.');
}

function countOf(progress, kind) {
  return kind === 'jab' ? progress.jabs : kind === 'uppercut' ? progress.uppercuts : progress.hooks;
}

function learned(profile) {
  endHold();
  lesson.status = 'idle';
  lesson.kind = null;
  state.punchProfile = profile;
  notice('Learned: your punches are read your way from now on.');
}

function stopLesson(text) {
  endHold();
  lesson.status = 'idle';
  lesson.kind = null;
  if (text) notice(text);
}

/// A refusal of the lesson's: a hold refused (no punch in it, motion refused) asks for the same kind
/// again; too few of a kind to learn asks for more; anything else ends the lesson.
function lessonFailed(error, type) {
  if (type === 'teachMotion' && error.reason !== 'notTeaching') {
    endHold();
    const kind = lesson.kind || 'punch';
    swingStatus(error.reason === 'noPunchFound'
      ? `No punch found in that swing: hold, throw the ${kind}, and stop sharply.`
      : `That swing was refused (${error.message || error.code}): hold and throw the ${kind} again.`);
    return;
  }
  if (error.reason === 'tooFewPunches' && lesson.progress) {
    notice(error.message);
    taught({ ...lesson.progress, kind: undefined });
    return;
  }
  stopLesson(error.message || error.code);
}

function renderLesson() {
  const profile = state.punchProfile;
  const learnedBox = $('teach-learned');
  const signature = JSON.stringify(profile);
  if (learnedBox.dataset.signature !== signature) {
    learnedBox.dataset.signature = signature;
    if (profile) {
      const sure = profile.kinds.reduce((n, k) => n + k.recognised, 0);
      const all = profile.kinds.reduce((n, k) => n + k.punches, 0);
      learnedBox.replaceChildren(
        element('p', '', `Your swings are read your way: ${sure} of your ${all} teaching punches typed back right.`),
        element('ul', 'learned', ''),
        element('p', 'muted', `Your usual punch: ${round(profile.typicalPeakG, 1)} g, ${profile.hand} hand`
          + (profile.gyroscope ? ', with the gyroscope.' : ', without a gyroscope.')));
      learnedBox.querySelector('ul').replaceChildren(...profile.kinds.map((k) =>
        element('li', '', `${k.kind[0].toUpperCase() + k.kind.slice(1)}: ${k.recognised} of ${k.punches} typed back`)));
    } else {
      learnedBox.replaceChildren(element('p', 'muted',
        'Teach the game your jab, uppercut and hook (about 20 seconds, three of each) and your swings are read your way.'));
    }
  }
  const teaching = lesson.status !== 'idle';
  $('teach-area').hidden = !teaching;
  $('teach-hand').hidden = teaching;
  $('teach').textContent = teaching ? 'Start again' : profile ? 'Teach me again' : 'Teach me your punches';
  $('forget-punches').hidden = teaching || !profile;
  const progress = lesson.progress;
  $('teach-ask').textContent = lesson.status === 'asking'
    ? `Throw ${lesson.kind === 'uppercut' ? 'an' : 'a'} ${lesson.kind} (${countOf(progress, lesson.kind) + 1} of ${progress.punchesPerKind})`
    : lesson.status === 'finishing' ? 'Learning…' : 'Starting…';
  $('teach-punch').disabled = lesson.status !== 'asking';
}

function motionWords() {
  switch (motion.status) {
    case 'ready': return 'Motion: ready. In a fight, hold PUNCH, then swing.';
    case 'checking': return 'Motion: looking for a sensor…';
    case 'noSensor': return 'No motion sensor here: punch with the meter (a button).';
    case 'unsupported': return 'This browser gives no motion: punch with the meter.';
    case 'insecure': return 'Motion needs a secure page: open it over https:// (or on localhost). Until then, the meter.';
    case 'needsPermission': return 'Motion needs your permission: tap Enable motion.';
    case 'denied': return 'Motion permission refused: punch with the meter, or allow Motion & Orientation in the browser settings and reload.';
  }
  return '';
}

function usingMotion() {
  return motion.status === 'ready' && !motion.useMeter;
}

// MARK: - Drawing

function myTurn(fight) {
  return fight.phase === 'active' && state.me && fight.turn === state.me.id;
}

function secondsLeft(deadline) {
  if (!deadline) return null;
  return Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
}

function show(screen) {
  if (!$(screen).hidden) return;
  for (const id of ['signin', 'lobby', 'fight']) $(id).hidden = id !== screen;
  // What the last screen said is not about this one.
  $('notice').hidden = true;
  window.scrollTo(0, 0);
}

function render() {
  if (!state.token) { show('signin'); return; }
  if (!socket && reconnectAt > Date.now()) {
    setConnection(`Connection lost: retrying in ${Math.ceil((reconnectAt - Date.now()) / 1000)} s`, true);
  }
  const fight = state.current != null ? state.fights.get(state.current) : null;
  if (fight) { show('fight'); renderFight(fight); } else { show('lobby'); renderLobby(); }
  // A tab in the background says whose turn it is.
  const yours = [...state.fights.values()].some(myTurn);
  document.title = yours ? 'Your turn · HitThat' : 'HitThat';
}

function renderLobby() {
  const me = state.me;
  $('me-name').textContent = me ? me.displayName : '…';
  $('me-record').textContent = me ? `${me.wins} won · ${me.losses} lost · ${me.draws} drawn` : '';
  $('location-text').textContent = me && me.latitude != null
    ? `You are at ${me.latitude.toFixed(4)}, ${me.longitude.toFixed(4)}.`
    : 'Opponents are found within 50 km of you: say where you are. (Quick match needs no location.)';

  const matchup = state.matchup;
  const body = $('versus-body');
  if (matchup) {
    const o = matchup.opponent;
    body.replaceChildren(
      element('div', 'versus-name', o.displayName),
      element('div', 'muted', `@${o.username} · ${o.wins} won · ${o.losses} lost · ${o.draws} drawn`),
      element('div', 'muted', [o.heightCm && `${o.heightCm} cm`, o.weightKg && `${o.weightKg} kg`,
        o.reachCm && `reach ${o.reachCm} cm`].filter(Boolean).join(' · ')),
      o.bio ? element('p', '', o.bio) : element('span', '', ''),
      odds(matchup));
    $('challenge').hidden = false;
    $('next').textContent = 'Next';
  } else {
    if (body.querySelector('.versus-name')) {
      body.replaceChildren(element('p', 'muted', 'The nearest fighter within 50 km, and your odds.'));
    }
    $('challenge').hidden = true;
    $('next').textContent = 'Find an opponent';
  }

  $('quick').textContent = state.inRoom ? 'Leave quick match' : 'Quick match';
  $('quick').classList.toggle('primary', !state.inRoom);
  $('quick-status').hidden = !state.inRoom;
  $('quick-status').textContent = 'Waiting for someone to join… The fight starts here when they do.';

  const list = $('fights');
  const open = [...state.fights.values()].filter((f) => f.phase !== 'finished').sort((a, b) => b.id - a.id);
  $('fights-card').hidden = open.length === 0;
  const signature = JSON.stringify(open.map((f) => [f.id, f.phase, f.turn, nameOf(otherFighter(f))]));
  // Drawn again only when it changed: a button replaced under a finger loses its tap.
  if (list.dataset.signature !== signature) {
    list.dataset.signature = signature;
    list.replaceChildren(...open.map(fightItem));
  }

  $('motion-status').textContent = motionWords();
  $('enable-motion').hidden = motion.status !== 'needsPermission';
  renderLesson();
}

function odds(matchup) {
  const box = element('div', 'odds', '');
  const cell = (value, label) => {
    const c = element('div', '', '');
    c.append(element('b', '', value), element('span', 'muted', label));
    return c;
  };
  box.append(
    cell(`${matchup.distanceKm.toFixed(1)} km`, 'away'),
    cell(`${Math.round(matchup.winChance * 100)} %`, 'your chance'),
    cell(matchup.decimalOdds.toFixed(2), 'odds'));
  return box;
}

function fightItem(fight) {
  const item = document.createElement('li');
  const other = nameOf(otherFighter(fight));
  const what = element('span', 'what', '');
  let status;
  if (fight.phase === 'challenged') {
    status = fight.challenger === state.me?.id ? 'waiting for an answer' : 'challenges you';
  } else {
    status = myTurn(fight) ? 'your turn' : `${other}'s turn`;
    if (myTurn(fight)) item.classList.add('yours');
  }
  what.append(element('strong', '', other), document.createTextNode(` · ${status}`));
  const open = element('button', 'small', 'Open');
  open.type = 'button';
  open.onclick = () => { state.current = fight.id; render(); };
  item.append(what, open);
  return item;
}

function renderFight(fight) {
  const me = state.me ? state.me.id : null;
  const iAmChallenger = fight.challenger === me;
  const other = otherFighter(fight);
  side('me-side', 'You', iAmChallenger ? fight.staminaChallenger : fight.staminaOpponent);
  side('them-side', nameOf(other), iAmChallenger ? fight.staminaOpponent : fight.staminaChallenger);

  const presence = state.presence.get(fight.id);
  const presenceLine = $('presence');
  presenceLine.classList.toggle('gone', presence?.state === 'gone');
  if (!presence || fight.phase === 'finished') presenceLine.textContent = '';
  else if (presence.state === 'connected') presenceLine.textContent = `${nameOf(other)}: connected`;
  else if (presence.state === 'gone') {
    const ago = presence.since ? ` (connection lost ${agoText(presence.since)} ago)` : '';
    presenceLine.textContent = `${nameOf(other)} is gone${ago}`;
  } else presenceLine.textContent = `${nameOf(other)}: ${presence.state}`;

  const turn = $('turn');
  turn.className = 'turn';
  const left = secondsLeft(fight.deadline);
  if (fight.phase === 'active') {
    const mine = iAmChallenger ? fight.staminaChallenger : fight.staminaOpponent;
    if (myTurn(fight)) {
      turn.classList.add('mine');
      // A knockout by the one who threw more is answered: one last punch (PROTOCOL.md, "A fight's rules").
      const what = mine === 0 ? 'knocked down: one last punch to answer' : 'to punch';
      turn.replaceChildren(document.createTextNode('YOUR TURN'), element('small', '', `${left ?? '–'} s ${what}`));
    } else {
      turn.replaceChildren(document.createTextNode(`${nameOf(fight.turn).toUpperCase()}'S TURN`),
        element('small', '', `${left ?? '–'} s left · your guard is up`));
    }
  } else if (fight.phase === 'challenged') {
    turn.replaceChildren(document.createTextNode(fight.challenger === me
      ? `Waiting for ${nameOf(other)} to accept` : `${nameOf(other)} challenges you`));
  } else {
    turn.classList.add(fight.winner === me ? 'won' : fight.winner != null ? 'lost' : 'draw');
    turn.replaceChildren(document.createTextNode(ending(fight)));
  }

  const missed = iAmChallenger ? fight.missedTurnsChallenger : fight.missedTurnsOpponent;
  const warning = $('warning');
  warning.hidden = !(fight.phase === 'active' && missed > 0);
  warning.textContent = missed >= 2
    ? `${missed} of 3 missed turns: one more and you forfeit.`
    : `${missed} of 3 missed turns: three in a row and you forfeit.`;

  $('answer').hidden = !(fight.phase === 'challenged' && fight.challenger !== me);
  const active = fight.phase === 'active';
  $('punching').hidden = !active;
  const viaMotion = usingMotion();
  $('motion-area').hidden = !viaMotion;
  $('meter-area').hidden = viaMotion;
  $('punch').disabled = !myTurn(fight);
  $('throw').disabled = !myTurn(fight);
  $('throw').textContent = meter.startedAt != null && meter.fight === fight.id ? 'THROW' : 'WIND UP';
  for (const button of document.querySelectorAll('.kinds button')) {
    button.setAttribute('aria-checked', String(button.dataset.kind === meter.kind));
  }
  if (meter.startedAt == null) $('meter-hint').textContent ||= 'Pick a punch, WIND UP, then THROW when the needle is in the green.';
  if (!viaMotion && motion.status !== 'ready') swingStatus('');
  const toggle = $('punch-mode');
  toggle.hidden = !(motion.status === 'ready' || motion.status === 'needsPermission');
  toggle.textContent = motion.status === 'needsPermission' ? 'Enable motion to swing the phone'
    : viaMotion ? 'Use the meter instead' : 'Swing the phone instead';

  const guard = fight.ownGuard || 'none';
  $('guard').textContent = guard;
  $('switch-guard').textContent = guard === 'high' ? 'Switch to a low guard' : 'Raise a high guard';
  document.querySelector('.guard').hidden = !active;
  // Only a fight under way can be forfeited; a challenge is answered with Accept or Decline.
  $('forfeit').hidden = !active;
  $('rematch').hidden = fight.phase !== 'finished';

  const lines = (state.log.get(fight.id) || []).map((event) => describe(fight, event));
  const events = $('events');
  const signature = JSON.stringify(lines);
  if (events.dataset.signature !== signature) {
    events.dataset.signature = signature;
    events.replaceChildren(...lines.map(({ line, tone }) => element('li', tone || '', line)));
  }
}

function side(id, name, stamina) {
  const box = $(id);
  box.querySelector('.name').textContent = name;
  box.querySelector('.stamina').textContent = String(stamina);
  const bar = box.querySelector('.stamina-bar');
  bar.setAttribute('aria-valuenow', String(stamina));
  bar.classList.toggle('low', stamina <= 25);
  bar.querySelector('.fill').style.width = `${Math.max(0, Math.min(100, stamina))}%`;
}

function agoText(since) {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(since)) / 1000));
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text) e.textContent = text;
  return e;
}

// MARK: - Controls

/// A button held for a swing: pointer events cover touch and mouse; leaving the button or losing
/// the pointer ends the hold. `start` begins the hold, or says why not and returns false.
function holdButton(button, start) {
  button.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    if (!start()) return;
    button.classList.add('holding');
    try { button.setPointerCapture(e.pointerId); } catch { /* a synthetic pointer has none */ }
  });
  for (const end of ['pointerup', 'pointercancel', 'lostpointercapture']) {
    button.addEventListener(end, () => { button.classList.remove('holding'); releaseHold(); });
  }
  button.addEventListener('contextmenu', (e) => e.preventDefault());
}

function wire() {
  $('signin-form').addEventListener('submit', (e) => { e.preventDefault(); account('/login'); });
  $('register').onclick = () => account('/register');
  $('logout').onclick = () => { if (send('logout') == null) signOut(); };
  $('retry').onclick = () => { backoff = 1000; connect(); };

  $('locate').onclick = () => {
    if (!navigator.geolocation) { notice('This browser gives no location: type it.'); return; }
    navigator.geolocation.getCurrentPosition(
      (position) => send('move', {
        latitude: round(position.coords.latitude, 4), longitude: round(position.coords.longitude, 4),
      }),
      (error) => notice(!window.isSecureContext ? 'The browser gives a location only to a secure page (https://): type it instead.'
        : error.code === 1 ? 'Location refused: type it instead (latitude, longitude).'
        : 'The location could not be found: type it instead.'),
      { timeout: 15000, maximumAge: 600000 });
  };
  $('location-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const parts = $('location-input').value.split(/[,\s]+/).filter(Boolean).map(Number);
    if (parts.length !== 2 || parts.some(Number.isNaN) || Math.abs(parts[0]) > 90 || Math.abs(parts[1]) > 180) {
      notice('Type a latitude and a longitude, e.g. 48.8566, 2.3522.');
      return;
    }
    send('move', { latitude: parts[0], longitude: parts[1] });
  });

  $('next').onclick = () => send(state.matchup ? 'backDown' : 'nextOpponent');
  $('challenge').onclick = () => {
    if (!state.matchup) return;
    send('challenge', { opponent: state.matchup.opponent.id });
    state.matchup = null;
    render();
  };
  $('quick').onclick = () => send(state.inRoom ? 'leaveQuickMatch' : 'quickMatch');

  $('accept').onclick = () => send('accept', { fight: state.current });
  $('decline').onclick = () => send('decline', { fight: state.current });
  $('leave').onclick = () => { endHold(); meter.reset(); state.current = null; render(); };
  $('forfeit').onclick = () => {
    const fight = state.fights.get(state.current);
    if (!fight) return;
    if (confirm('Forfeit this fight? It counts as a loss.')) send('forfeit', { fight: fight.id });
  };
  $('rematch').onclick = () => {
    const fight = state.fights.get(state.current);
    if (fight) send('challenge', { opponent: otherFighter(fight) });
  };
  $('switch-guard').onclick = () => {
    const fight = state.fights.get(state.current);
    if (fight) send('raiseGuard', { fight: fight.id, guard: fight.ownGuard === 'high' ? 'low' : 'high' });
  };

  for (const button of document.querySelectorAll('.kinds button')) {
    button.onclick = () => { meter.kind = button.dataset.kind; localStorage.setItem('hitthat.kind', meter.kind); render(); };
  }
  $('throw').onclick = windUpOrThrow;

  // PUNCH is held in a fight, HOLD in the lesson: the same hold, for the turn's punch or the kind asked for.
  holdButton($('punch'), startPunchHold);
  holdButton($('teach-punch'), () => {
    if (lesson.status !== 'asking' || !startHold({ kind: lesson.kind })) return false;
    swingStatus('Throw it!');
    return true;
  });
  $('teach').onclick = startLesson;
  $('teach-done').onclick = () => { if (lesson.status === 'asking') { lesson.status = 'finishing'; endHold(); send('teachDone'); } };
  $('forget-punches').onclick = () => {
    if (confirm('Forget your punches? Your swings are then read by the game\'s own rule.')) send('forgetPunchProfile');
  };
  $('punch-mode').onclick = () => {
    if (motion.status === 'needsPermission') { askForMotion(); return; }
    motion.useMeter = !motion.useMeter;
    localStorage.setItem('hitthat.useMeter', motion.useMeter ? '1' : '0');
    render();
  };
  $('enable-motion').onclick = askForMotion;

  const sound = $('sound');
  sound.checked = localStorage.getItem('hitthat.sound') === '1';
  sound.onchange = () => { localStorage.setItem('hitthat.sound', sound.checked ? '1' : '0'); if (sound.checked) thump(140); };

  // The countdowns and the meter move between messages.
  setInterval(render, 250);
  const frame = () => { drawMeter(); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
}

wire();
setUpMotion();
connect();
render();
