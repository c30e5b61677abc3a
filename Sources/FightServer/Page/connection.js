// The WebSocket: connecting, sending (the only place a message leaves), noticing a server gone
// silent, and coming back after the wait the server stated (`welcome.rules.reconnect`).

import { $, state } from './state.js';

let socket = null;
let nextRef = 1;
let failures = 0;             // tries in a row that did not open: the wait doubles with each
let reconnectAt = 0;
let reconnectTimer = null;
let everConnected = false;
let lastHeard = 0;            // performance.now() of the last message, or of the socket opening
let askedAt = 0;              // when the last heartbeat was sent, or 0
let lost = 'Connection lost'; // why the last connection ended, said while waiting to try again
const handlers = { receive: () => {}, lost: () => {}, render: () => {} };

/// After ASK_AFTER_MS without a word the page asks the server something (its own `profile`: a
/// read the protocol already has, so no message of its own); a server that leaves the question
/// unanswered until SILENT_AFTER_MS without a word, or does not open a connection within it, is
/// taken as gone, though its socket may look open (a stalled process, a network gone quiet: TCP
/// says nothing for minutes). These are the page's own patience, not rules of a fight.
const ASK_AFTER_MS = 2000;
const SILENT_AFTER_MS = 5000;
/// The wait before trying again when no server has ever stated its backoff (the page never reached one).
const UNSTATED_WAIT_MS = 1000;

/// `receive(message)` for each server message, `lost()` when a connection ends, `render()` after.
export function setHandlers(given) { Object.assign(handlers, given); }

export function connected() { return !!socket && socket.readyState === WebSocket.OPEN; }

export function connect() {
  clearTimeout(reconnectTimer);
  reconnectTimer = null;
  if (!state.token || socket) return;
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
  const ws = new WebSocket(url);
  socket = ws;
  lastHeard = performance.now();
  askedAt = 0;
  // Why the last connection ended stays said until this one opens: a silent server may keep it
  // from opening for a while.
  if (everConnected) setConnection(`${lost}: reconnecting…`, true); else setConnection('Connecting…', false);
  ws.onopen = () => {
    failures = 0;
    everConnected = true;
    lastHeard = performance.now();
    setConnection('Connected', false);
    // `hello` first: its `welcome` lists the open fights to catch up on (PROTOCOL.md, "Reconnecting").
    send('hello');
  };
  ws.onmessage = (message) => {
    lastHeard = performance.now();
    askedAt = 0;
    if (ws === socket && $('connection').classList.contains('down')) setConnection('Connected', false);
    let parsed;
    try { parsed = JSON.parse(message.data); } catch { return; }
    handlers.receive(parsed);
  };
  ws.onclose = () => dropped(ws, 'Connection lost');
}

/// The connection `ws` is over (closed, or given up on): forget what was asked on it, and try
/// again after the stated wait, jittered so that pages dropped together do not all come back at once.
function dropped(ws, why) {
  if (socket !== ws) return;
  socket = null;
  ws.onopen = ws.onmessage = ws.onclose = null;
  // A silent server may never finish the closing handshake: the socket is let go of at once.
  try { ws.close(); } catch { /* already closed */ }
  state.pending.clear();
  handlers.lost();
  if (!state.token) return;
  lost = why;
  const wait = backoffWait(failures++) * (0.8 + Math.random() * 0.4);
  reconnectAt = Date.now() + wait;
  reconnectTimer = setTimeout(connect, wait);
  handlers.render();
}

/// The wait before try number `failures` (0 first): the server's first wait, doubling up to its longest.
function backoffWait(failures) {
  const backoff = state.rules?.reconnect;
  if (!backoff) return UNSTATED_WAIT_MS;
  return Math.min(backoff.firstMilliseconds * 2 ** Math.min(failures, 30), backoff.longestMilliseconds);
}

/// Called often: asks a quiet server whether it is there, and gives up on a silent one. Only a
/// question left unanswered counts, not the time between calls: a tab in the background has its
/// timers slowed to a minute, and its server is not gone for that.
export function heartbeat() {
  if (!socket) return;
  const now = performance.now();
  const seconds = Math.round((now - lastHeard) / 1000);
  if (!connected()) {
    if (now - lastHeard >= SILENT_AFTER_MS) dropped(socket, `The server does not answer (${seconds} s)`);
    return;
  }
  if (askedAt && now - askedAt >= SILENT_AFTER_MS - ASK_AFTER_MS) {
    dropped(socket, `The server went silent (${seconds} s)`);
  } else if (!askedAt && now - lastHeard >= ASK_AFTER_MS) {
    askedAt = now;
    send('profile');
  }
}

/// What the connection bar says while no connection is open: why, and when the next try is.
export function sayWaiting() {
  if (!socket && reconnectAt > Date.now() && state.token) {
    setConnection(`${lost}: retrying in ${Math.ceil((reconnectAt - Date.now()) / 1000)} s`, true);
  }
}

/// Tries again now (the Retry button), from the first wait.
export function retryNow() {
  failures = 0;
  connect();
}

/// Closes the connection for good (signing out).
export function disconnect() {
  clearTimeout(reconnectTimer);
  if (socket) { const ws = socket; socket = null; ws.onclose = null; ws.close(); }
  setConnection('', false);
}

/// Drops the connection as a network would (tests, a console): the page reconnects as after any drop.
export function drop() {
  if (socket) socket.close();
}

export function setConnection(text, down) {
  const element = $('connection');
  element.textContent = text;
  element.classList.toggle('down', down);
  $('retry').hidden = !down;
}

/// Sends one client message; the only place the page sends one. Returns its `ref`, or null when
/// there is no connection (said on screen: a punch is not kept to be sent later, when it would be
/// stale anyway).
export function send(type, fields = {}) {
  if (!connected()) {
    handlers.notice?.('Not connected: that was not sent.');
    return null;
  }
  const ref = nextRef++;
  state.pending.set(ref, { type, ...fields });
  socket.send(JSON.stringify({ type, v: 1, token: state.token, ref, ...fields }));
  return ref;
}
