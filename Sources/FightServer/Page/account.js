// Accounts, over HTTP (PROTOCOL.md, "HTTP routes"): signing up or in gives the token every
// WebSocket message carries; signing out forgets it and everything it showed.

import { $, state } from './state.js';
import { connect, disconnect } from './connection.js';
import { learnCard } from './messages.js';

let redraw = () => {};
export function onSignedInOrOut(render) { redraw = render; }

export async function account(path) {
  const username = $('username').value.trim();
  const password = $('password').value;
  $('signin-error').textContent = '';
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
    // The server's message names the field and what it takes (a username's letters, a password's length).
    $('signin-error').textContent = reasons[answer.code] || answer.message || 'That did not work.';
    return;
  }
  state.token = answer.token;
  localStorage.setItem('hitthat.token', answer.token);
  learnCard(answer.fighter, true);
  $('password').value = '';
  connect();
  redraw();
}

export function signOut(message) {
  state.token = null;
  localStorage.removeItem('hitthat.token');
  state.me = null;
  state.fights.clear();
  state.seen.clear();
  state.log.clear();
  state.current = null;
  state.matchup = null;
  state.inRoom = false;
  disconnect();
  if (message) $('signin-error').textContent = message;
  redraw();
}
