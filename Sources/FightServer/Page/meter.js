// The power meter, a button's punch (PROTOCOL.md, "Punching"): `windUp`, then `punch` without
// damage, timed by the server. The meter drawn is the one the server stated: its rules' before the
// wind-up (so the green is there to aim at), its `meter` reply after.

import { $, state, myTurn } from './state.js';
import { send } from './connection.js';
import { notice } from './feedback.js';

export const meter = {
  shape: null,       // the `meter` reply: sweep, floor, and each kind's spot
  startedAt: null,   // when `windUp` was sent (performance.now()): the server times from its arrival
  fight: null,
  kind: localStorage.getItem('hitthat.kind') || 'jab',
  reset() { this.startedAt = null; this.shape = null; this.fight = null; },
  /// The meter to draw: the wind-up's answer, else the one the server's rules state.
  drawn() { return this.shape || state.rules?.meter || null; },
  running() { return this.startedAt != null; },
  /// The needle's level, 0…1: up for half a sweep, down for the other half (PROTOCOL.md).
  level(now) {
    const sweep = this.shape.sweepMilliseconds;
    const phase = ((now - this.startedAt) % sweep) / sweep;
    return phase < 0.5 ? phase * 2 : 2 - phase * 2;
  },
};

export function windUpOrThrow() {
  const fight = state.fights.get(state.current);
  if (!fight || !myTurn(fight)) { notice('Wait your turn.'); return; }
  if (meter.startedAt == null || meter.fight !== fight.id) {
    meter.reset();
    if (send('windUp', { fight: fight.id, after: state.seen.get(fight.id) }) == null) return;
    meter.startedAt = performance.now();
    meter.fight = fight.id;
  } else {
    send('punch', { fight: fight.id, after: state.seen.get(fight.id), kind: meter.kind });
    meter.reset();
  }
}

/// The green of the chosen kind, where its punch does more than the floor (0…1 of the sweep).
export function greenZone(shape, kind) {
  const spot = shape[kind];
  return { from: Math.max(0, spot.level - spot.halfWidth), to: Math.min(1, spot.level + spot.halfWidth), spot };
}

export function drawMeter() {
  const needle = document.querySelector('#meter .needle');
  const green = document.querySelector('#meter .spot');
  const shape = meter.drawn();
  if (!shape || !shape[meter.kind]) {
    green.style.width = '0%';
    needle.style.left = '0%';
    return;
  }
  const zone = greenZone(shape, meter.kind);
  green.style.left = `${zone.from * 100}%`;
  green.style.width = `${(zone.to - zone.from) * 100}%`;
  // Brightest at the sweet spot, fading to its edges: the damage falls off the same way.
  const peak = zone.to > zone.from ? ((zone.spot.level - zone.from) / (zone.to - zone.from)) * 100 : 50;
  green.style.setProperty('--peak', `${peak}%`);
  const hint = $('meter-hint');
  if (!meter.running() || !meter.shape) {
    needle.style.left = '0%';
    needle.dataset.level = '0';
    hint.textContent = `Pick a punch, WIND UP, then THROW when the needle is in the green (up to ${zone.spot.ceiling}).`;
    return;
  }
  const level = meter.level(performance.now());
  needle.style.left = `${level * 100}%`;
  needle.dataset.level = String(level);
  const inGreen = level >= zone.from && level <= zone.to;
  hint.textContent = inGreen ? `In the green: THROW now (up to ${zone.spot.ceiling})` : 'Wait for the green…';
}
