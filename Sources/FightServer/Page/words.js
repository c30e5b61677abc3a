// What happened, in words: each event of a fight's log, a fight's ending, and the sentences that
// carry one of the server's rules. Pure text, made when drawn: a name may come after the event
// that uses it.

import { state, nameOf } from './state.js';

const verbs = { jab: ['jab', 'jabs'], hook: ['hook', 'hooks'], uppercut: ['uppercut', 'uppercuts'] };

export function describe(fight, event) {
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

export function ending(fight) {
  const how = { knockout: 'by knockout', points: 'on points', forfeit: 'by forfeit' }[fight.ending] || '';
  if (fight.ending === 'declined') return 'Declined.';
  if (fight.ending === 'expired') return 'The challenge expired.';
  if (fight.winner == null) return `A draw ${how}.`;
  return fight.winner === state.me?.id ? `You win ${how}!` : `${nameOf(fight.winner)} wins ${how}.`;
}

/// How far matchmaking looks, as the server stated it: "within 50 km".
export function reach() {
  return state.rules ? `within ${state.rules.matchRadiusKm} km` : 'near you';
}

/// Where opponents are found, said of the player: "within 50 km of you".
export function reachOfYou() {
  return state.rules ? `within ${state.rules.matchRadiusKm} km of you` : 'near you';
}

/// The warning of turns let pass, against the server's limit.
export function missedWarning(missed) {
  const limit = state.rules?.missedTurnsToForfeit;
  if (limit == null) return `${missed} missed turns in a row: punch, or you forfeit.`;
  return limit - missed <= 1
    ? `${missed} of ${limit} missed turns: one more and you forfeit.`
    : `${missed} of ${limit} missed turns: ${limit} in a row and you forfeit.`;
}

/// The player's own guard, as the server holds it (`ownGuard`): none until one is raised.
export function guardWords(fight) {
  return fight.ownGuard ? `your ${fight.ownGuard} guard is up` : 'no guard up';
}

export function agoText(since) {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(since)) / 1000));
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}
