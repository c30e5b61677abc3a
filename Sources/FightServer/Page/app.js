// HitThat in a browser: sign in, find an opponent, fight turn by turn. Every message is one of
// docs/PROTOCOL.md's, and every message the page sends goes through connection.js's send(), so
// that a test can read the page's scripts for the types it sends
// (Tests/FightProtocolTests/PageMessagesTests.swift). This module wires the buttons to the rest:
//   state.js       what the page knows (the server's fights, its rules)
//   connection.js  the WebSocket: send, the heartbeat, reconnecting
//   messages.js    the server's messages taken in
//   account.js     signing up, in and out (HTTP)
//   render.js      drawing; words.js the sentences
//   meter.js       the power meter; motion.js a phone's sensors; lesson.js teaching your punches
//   feedback.js    notices, vibration, sound

import { $, state, lesson, round, otherFighter } from './state.js';
import { connect, send, setHandlers, heartbeat, retryNow, drop } from './connection.js';
import { receive } from './messages.js';
import { account, signOut, onSignedInOrOut } from './account.js';
import { render } from './render.js';
import { notice, swingStatus, thump } from './feedback.js';
import { meter, windUpOrThrow, drawMeter } from './meter.js';
import { motion, setUpMotion, askForMotion, startPunchHold, startHold, releaseHold, endHold } from './motion.js';
import { startLesson } from './lesson.js';

setHandlers({
  receive(message) {
    receive(message);
    render();
  },
  // A connection that ended takes its hold, its wind-up and its swing's status with it: the
  // server forgets both, and what the swing did is told by the events replayed after reconnecting.
  lost() {
    endHold();
    meter.reset();
    swingStatus('');
  },
  render,
  notice,
});
onSignedInOrOut(render);
motion.render = render;

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

function currentFight() { return state.fights.get(state.current); }

function wire() {
  $('signin-form').addEventListener('submit', (e) => { e.preventDefault(); account('/login'); });
  $('register').onclick = () => account('/register');
  $('logout').onclick = () => { if (send('logout') == null) signOut(); };
  $('retry').onclick = retryNow;

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
    if (parts.length !== 2 || parts.some(Number.isNaN)) {
      notice('Type a latitude and a longitude, e.g. 48.8566, 2.3522.');
      return;
    }
    // The server says what a latitude and a longitude may be, if these are not.
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
    const fight = currentFight();
    if (!fight) return;
    if (confirm('Forfeit this fight? It counts as a loss.')) send('forfeit', { fight: fight.id });
  };
  $('rematch').onclick = () => {
    const fight = currentFight();
    if (fight) send('challenge', { opponent: otherFighter(fight) });
  };
  $('switch-guard').onclick = () => {
    const fight = currentFight();
    if (fight) send('raiseGuard', { fight: fight.id, guard: fight.ownGuard === 'high' ? 'low' : 'high' });
  };

  for (const button of document.querySelectorAll('.kinds button')) {
    button.onclick = () => { meter.kind = button.dataset.kind; localStorage.setItem('hitthat.kind', meter.kind); render(); };
  }
  $('throw').onclick = () => { windUpOrThrow(); render(); };

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

  // The countdowns move between messages; the heartbeat watches for a silent server.
  setInterval(() => { heartbeat(); render(); }, 250);
  const frame = () => { drawMeter(); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
}

// The page's state, for the browser tests' WebDriver and for a look from the console.
window.hitthat = { state, lesson, motion, meter, drop };

wire();
setUpMotion();
connect();
render();
