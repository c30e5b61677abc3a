// The server's messages, taken in: each fight is what the server last said of it (`fight`,
// `welcome`), asked again after each event it pushes, which are kept in sequence for the log;
// nothing is worked out here that the server states.

import { state, lesson, learnRules, otherFighter } from './state.js';
import { send } from './connection.js';
import { notice, swingStatus, buzz, thump } from './feedback.js';
import { describe, reach } from './words.js';
import { meter } from './meter.js';
import { endHold, holdEnded, noteLanded } from './motion.js';
import { taught, learned, stopLesson, lessonFailed } from './lesson.js';
import { signOut } from './account.js';

export function receive(message) {
  const request = message.ref != null ? state.pending.get(message.ref) : undefined;
  if (message.ref != null) state.pending.delete(message.ref);
  switch (message.type) {
    case 'welcome': welcome(message); break;
    case 'profile': learnCard(message.fighter, request && request.fighter == null); break;
    case 'opponent':
      state.matchup = message.matchup || null;
      if (!message.matchup) notice(`Nobody else ${reach()} for now. Try quick match.`);
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
}

function welcome(message) {
  learnRules(message.rules);
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

export function learnCard(card, own) {
  if (!card) return;
  state.names.set(card.id, card.displayName);
  if (own) state.me = card;
}

/// A fight as the server states it: what is drawn. A view older than the one held (a reply
/// overtaken by a later one) is dropped; events not yet seen are replayed, and a fight first seen
/// here (a reload, a new challenge) has its whole log asked for, so that its past punches are listed.
function learnFight(fight) {
  const held = state.fights.get(fight.id);
  if (held && fight.lastSequence < held.lastSequence) return;
  state.fights.set(fight.id, fight);
  const seen = state.seen.get(fight.id);
  if (seen == null) {
    state.seen.set(fight.id, fight.lastSequence);
    if (!state.log.get(fight.id)?.size && fight.lastSequence > 0) send('replay', { fight: fight.id, after: 0 });
  } else if (fight.lastSequence > seen) {
    send('replay', { fight: fight.id, after: seen });
  } else if (seen > fight.lastSequence) {
    // Events came after the server read this view: its next one counts them.
    askFight(fight.id);
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
  }
  applyEvent(message, false);
}

/// Takes a fight event once, in order: a duplicate is only kept for the log, and a gap asks for a
/// replay from the last one seen (the missing ones then come, this one with them). The fight it
/// moved on is asked of the server, which states it whole (staminas, turn, deadline, missed turns,
/// the ending): the page works none of it out from the event.
function applyEvent(event, replayed) {
  const id = event.fight;
  if (id == null || event.sequence == null) return;
  const seen = state.seen.get(id) || 0;
  if (event.sequence <= seen) { keep(event); return; }
  const starts = event.kind === 'challenged' || event.kind === 'matched';
  if (event.sequence > seen + 1 && !(seen === 0 && starts)) {
    if (!replayed) send('replay', { fight: id, after: seen });
    return;
  }
  state.seen.set(id, event.sequence);
  keep(event);
  if (!replayed) live(id, event);
  if (starts) askName(event.challenger === state.me?.id ? event.opponent : event.challenger);
  // The record changed with the fight's end.
  if (event.kind === 'ended') send('profile');
  askFight(id);
}

/// Asks the server for the fight as it is now, once at a time: the answer to a question already
/// asked counts what came before it, and asks again for what came after (`learnFight`).
function askFight(id) {
  const asked = [...state.pending.values()].some((request) => request.type === 'fight' && request.fight === id);
  if (!asked) send('fight', { fight: id });
}

/// Keeps the event for the fight's log, once by its sequence.
function keep(event) {
  const events = state.log.get(event.fight) || new Map();
  events.set(event.sequence, event);
  state.log.set(event.fight, events);
}

/// What a live event does besides the log: buzz, sound, notices, the screen it calls for.
function live(id, event) {
  const mine = state.me && event.by === state.me.id;
  switch (event.kind) {
    case 'challenged':
      if (event.challenger !== state.me?.id) { buzz([100, 60, 100]); notice(describe(event, event).line); }
      break;
    case 'matched': case 'accepted':
      // The versus card was for before this fight: its record and odds are old news after it.
      state.current = id; state.inRoom = false; state.matchup = null; buzz([80]);
      break;
    case 'punched': {
      // A short buzz for a punch landed, a long one for being hit.
      buzz(mine ? [40] : [180]);
      thump(mine ? 180 : 90);
      // clipped: the phone's sensor topped out at the stop, so the swing was harder than it measured.
      const toppedOut = event.clipped ? ' Harder than your sensor can measure!' : '';
      swingStatus(mine ? `Landed: ${event.punch} for ${event.damage}.${toppedOut}` : '');
      // The server reads no more of a hold once its punch landed.
      if (mine) { endHold(); noteLanded(event.sequence); }
      break;
    }
    case 'turnPassed': swingStatus(''); break;
    case 'ended': buzz(event.winner === state.me?.id ? [60, 60, 60] : [300]); break;
  }
}

function askName(id) {
  if (id == null || state.names.has(id) || state.asked.has(id)) return;
  state.asked.add(id);
  send('profile', { fighter: id });
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
      swingStatus('');
      notice('The fight moved on: look, then punch again.');
      return;
    }
    if (error.reason === 'waitYourTurn') { swingStatus(''); notice('Wait your turn.'); return; }
    // A batch refused (too fast, too long, …) ends its hold on the server too: say why, hold again.
    if (type === 'motion') { swingStatus(`That swing was refused (${error.message || error.code}): hold PUNCH again.`); return; }
  }
  if (error.reason === 'noLocation') { notice('Set where you are first (below).'); return; }
  if (error.reason === 'alreadyWaiting') { state.inRoom = true; return; }
  if (error.code === 'rateLimited') { notice('Too fast: wait a moment.'); return; }
  notice(error.message || error.code);
}
