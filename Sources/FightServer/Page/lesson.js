// Teaching the server this fighter's punches (PROTOCOL.md, "Teaching the detector your punches"):
// each kind asked for by name until the server has its count, each a hold.

import { $, state, lesson, element, round } from './state.js';
import { send } from './connection.js';
import { notice, swingStatus, buzz } from './feedback.js';
import { endHold, usingMotion, motionWords } from './motion.js';

const ORDER = ['jab', 'uppercut', 'hook'];

export function startLesson() {
  if (!usingMotion()) { notice('Teaching needs the motion sensor: ' + motionWords()); return; }
  endHold();
  lesson.status = 'starting';
  lesson.kind = null;
  lesson.progress = null;
  send('teach', { hand: $('teach-left').checked ? 'left' : 'right' });
  swingStatus('');
}

/// The server's counts: the next kind short of its punches is asked for.
export function taught(progress) {
  if (lesson.status === 'idle') return;
  endHold();
  lesson.progress = progress;
  lesson.kind = ORDER.find((kind) => countOf(progress, kind) < progress.punchesPerKind) || null;
  lesson.status = lesson.kind ? 'asking' : 'finishing';
  if (!lesson.kind) { send('teachDone'); return; }
  if (progress.kind) buzz(60);
  swingStatus(progress.kind ? `Got that ${progress.kind} (${round(progress.peakG, 1)} g).` : 'Hold, then throw it.');
}

function countOf(progress, kind) {
  return kind === 'jab' ? progress.jabs : kind === 'uppercut' ? progress.uppercuts : progress.hooks;
}

export function learned(profile) {
  endHold();
  lesson.status = 'idle';
  lesson.kind = null;
  state.punchProfile = profile;
  notice('Learned: your punches are read your way from now on.');
}

export function stopLesson(text) {
  endHold();
  lesson.status = 'idle';
  lesson.kind = null;
  if (text) notice(text);
}

/// A refusal of the lesson's: a hold refused (no punch in it, motion refused) asks for the same kind
/// again; too few of a kind to learn asks for more; anything else ends the lesson.
export function lessonFailed(error, type) {
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

export function renderLesson() {
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
