// What the page says and does besides drawing: notices, the swing's status line, vibration, sound.

import { $, lesson } from './state.js';

let noticeTimer = null;
export function notice(text) {
  const element = $('notice');
  element.textContent = text;
  element.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { element.hidden = true; }, 5000);
}

/// What became of the swing, where the player is looking: the lesson's card while it is under way.
export function swingStatus(text) { $(lesson.status === 'idle' ? 'swing-status' : 'teach-swing').textContent = text; }

export function buzz(pattern) {
  if (navigator.vibrate) navigator.vibrate(pattern);
}

let audio = null;
/// A short thump, when the player turned sound on (off by default: a phone in a pocket, a quiet room).
export function thump(frequency) {
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
