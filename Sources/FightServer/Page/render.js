// Drawing: the screen for what the page knows, redrawn after every message and four times a
// second (the countdowns). Only what the server said is shown; the words come from words.js.

import { $, state, nameOf, otherFighter, myTurn, logOf, element } from './state.js';
import { sayWaiting } from './connection.js';
import { swingStatus } from './feedback.js';
import { describe, ending, reach, reachOfYou, missedWarning, guardWords, agoText } from './words.js';
import { meter } from './meter.js';
import { motion, usingMotion, motionWords } from './motion.js';
import { renderLesson } from './lesson.js';

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

export function render() {
  if (!state.token) { show('signin'); return; }
  sayWaiting();
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
    : `Opponents are found ${reachOfYou()}: say where you are. (Quick match needs no location.)`;

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
    const empty = `The nearest fighter ${reach()}, and your odds.`;
    if (body.querySelector('.versus-name') || body.textContent !== empty) body.replaceChildren(element('p', 'muted', empty));
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
        element('small', '', `${left ?? '–'} s left · ${guardWords(fight)}`));
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
  warning.textContent = missedWarning(missed);

  $('answer').hidden = !(fight.phase === 'challenged' && fight.challenger !== me);
  const active = fight.phase === 'active';
  $('punching').hidden = !active;
  const viaMotion = usingMotion();
  $('motion-area').hidden = !viaMotion;
  $('meter-area').hidden = viaMotion;
  $('punch').disabled = !myTurn(fight);
  $('throw').disabled = !myTurn(fight);
  $('throw').textContent = meter.running() && meter.fight === fight.id ? 'THROW' : 'WIND UP';
  for (const button of document.querySelectorAll('.kinds button')) {
    button.setAttribute('aria-checked', String(button.dataset.kind === meter.kind));
  }
  if (!viaMotion && motion.status !== 'ready') swingStatus('');
  const toggle = $('punch-mode');
  toggle.hidden = !(motion.status === 'ready' || motion.status === 'needsPermission');
  toggle.textContent = motion.status === 'needsPermission' ? 'Enable motion to swing the phone'
    : viaMotion ? 'Use the meter instead' : 'Swing the phone instead';

  $('guard').textContent = fight.ownGuard || 'none';
  $('switch-guard').textContent = fight.ownGuard === 'high' ? 'Switch to a low guard' : 'Raise a high guard';
  document.querySelector('.guard').hidden = !active;
  // Only a fight under way can be forfeited; a challenge is answered with Accept or Decline.
  $('forfeit').hidden = !active;
  $('rematch').hidden = fight.phase !== 'finished';

  const lines = logOf(fight.id).map((event) => describe(fight, event));
  const events = $('events');
  const signature = JSON.stringify(lines);
  if (events.dataset.signature !== signature) {
    events.dataset.signature = signature;
    events.replaceChildren(...lines.map(({ line, tone }) => element('li', tone || '', line)));
  }
}

function side(id, name, stamina) {
  const box = $(id);
  // The bar's full length is the stamina a fight starts with, as the server stated it.
  const full = state.rules?.startingStamina || Math.max(stamina, 1);
  box.querySelector('.name').textContent = name;
  box.querySelector('.stamina').textContent = String(stamina);
  const bar = box.querySelector('.stamina-bar');
  bar.setAttribute('aria-valuenow', String(stamina));
  bar.setAttribute('aria-valuemax', String(full));
  bar.classList.toggle('low', stamina <= full / 4);
  bar.querySelector('.fill').style.width = `${Math.max(0, Math.min(100, (stamina / full) * 100))}%`;
}
