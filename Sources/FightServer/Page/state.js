// What the page knows: the server's word on each fight, the rules it stated, and a few helpers
// that read them. Nothing here talks to the server or draws.

export const $ = (id) => document.getElementById(id);

export const state = {
  token: localStorage.getItem('hitthat.token'),
  me: null,                // the fighter's own card (`welcome`, `profile`)
  names: new Map(),        // fighter id → display name
  asked: new Set(),        // fighter ids whose card was asked for
  fights: new Map(),       // fight id → the fight as the server's `fight` gives it, kept up by events
  seen: new Map(),         // fight id → the last sequence applied (the `after` of a punch)
  presence: new Map(),     // fight id → the other fighter's latest `presence`
  log: new Map(),          // fight id → Map sequence → event: what happened, as the server said it
  current: null,           // the fight on screen
  matchup: null,           // the versus card's `matchup`
  inRoom: false,           // waiting in quick match
  pending: new Map(),      // ref → the message sent, to read its answer by
  punchProfile: null,      // what the server learned of this fighter's punches (`welcome`, `taught`)
  // The server's rules (`welcome.rules`), kept across reloads: a page reloaded while the server
  // is down still shows the numbers it last stated. Null until a server has stated them.
  rules: JSON.parse(localStorage.getItem('hitthat.rules') || 'null'),
};

/// The rules as the server stated them (PROTOCOL.md, "The WebSocket").
export function learnRules(rules) {
  if (!rules) return;
  state.rules = rules;
  localStorage.setItem('hitthat.rules', JSON.stringify(rules));
}

export function nameOf(id) {
  if (state.me && id === state.me.id) return 'You';
  return state.names.get(id) || `Fighter ${id}`;
}

export function otherFighter(fight) {
  if (!state.me) return fight.opponent;
  return fight.challenger === state.me.id ? fight.opponent : fight.challenger;
}

export function myTurn(fight) {
  return fight.phase === 'active' && state.me && fight.turn === state.me.id;
}

/// The fight's events as the server numbered them, newest first.
export function logOf(id) {
  const events = state.log.get(id);
  return events ? [...events.values()].sort((a, b) => b.sequence - a.sequence) : [];
}

export function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text) e.textContent = text;
  return e;
}

export function round(value, digits) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/// Teaching the server this fighter's punches (PROTOCOL.md's "Teaching the detector your
/// punches"): `teach`, then each kind asked for by name, three of each, each a hold.
export const lesson = {
  status: 'idle',    // idle | starting | asking | finishing
  kind: null,        // the kind asked for
  progress: null,    // the server's last `teaching`
};
