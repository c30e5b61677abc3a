#!/usr/bin/env python3
"""HitThat's punch rule written the way a data scientist would: pandas read_csv plus NumPy.

The reference that tools/compare.sh times `hitthat detect` against. It ports PunchDetector's rule
(Sources/PunchKit/PunchDetector.swift, GravityTracker.swift, RecentMotion.swift) faithfully, with
the defaults of DetectorConfiguration, for a generic t,x,y,z trace in seconds and g:

- gravity tracked while calm (and, after long motion, from still readings of gravity's length):
  an adaptive filter whose every step depends on the last, so it is the one plain Python loop;
- a stop: a stretch of at least 2 g (gravity removed) that keeps within 60° of its onset, decided
  at its highest peak 25 ms after it, or when it turns, fades or halves; the stretches are found
  with NumPy and only their few samples are walked;
- the stop's direction taken against the mean acceleration of the 0.1 s before the stretch; the
  thrust: at least 0.1 g·s against it in the 0.5 s before, no stronger than the stop allows, coming
  into it squarely; the sums over those windows are vectorised;
- a stop reversing the last punch's within 0.8 s is its retraction; kinds from the first half of
  the thrust (uppercut above 30°, else jab; hooks only with REPORTS_HOOKS, like `--hooks`).

Usage:
  reference_detector.py detect TRACE.csv        one JSON object a punch, as `hitthat detect --json`
  reference_detector.py match A.jsonl B.jsonl   whether two punch lists agree (exit 1 if not)
"""

import json
import math
import sys
from array import array

import numpy as np
import pandas as pd

# DetectorConfiguration's defaults.
TRIGGER = 2.0
MINIMUM_THRUST = 0.1
STOP_ALIGNMENT = 0.5
REFERENCE_WINDOW = 0.1
STOP_SHARPNESS = 0.8
THRUST_WINDOW = 0.5
DIRECTION_WINDOW = 0.35
CONFIRMATION_DELAY = 0.025
RETRACTION_WINDOW = 0.8
UPPERCUT_RISE = math.sin(math.radians(30))
REPORTS_HOOKS = False  # `hitthat detect --hooks` turns it on; pass --hooks here too
HOOK_STRAIGHTNESS = 0.8
MAXIMUM_GAP = 0.25
FALLBACK_UP = np.array([0.0, 1.0, 0.0])
RIGHT_HAND = True
RING_CAPACITY = 1024  # RecentMotion's: the thrust is looked for among the latest 1024 samples

# GravityTracker's defaults.
CALM_TIME_CONSTANT = 0.25
MOVING_TIME_CONSTANT = 0.5
MOTION_PATIENCE = 1.0
CALM_DEVIATION = 0.5
CALM_MAGNITUDE_DEVIATION = 0.15


def load(path):
    """Times (s) and readings (g) of the samples the detector takes, and the first time."""
    frame = pd.read_csv(path, usecols=["t", "x", "y", "z"], dtype="float64")
    time = frame["t"].to_numpy()
    acceleration = frame[["x", "y", "z"]].to_numpy()
    first_time = time[0]
    # The detector passes over readings that repeat the last one exactly (sample-and-hold).
    changed = np.empty(len(time), dtype=bool)
    changed[0] = True
    np.any(acceleration[1:] != acceleration[:-1], axis=1, out=changed[1:])
    return time[changed], acceleration[changed], first_time


def track_gravity(acceleration, interval):
    """The gravity estimate before each sample's update, the last estimate after it, and whether
    the source includes gravity."""
    x, y, z = (acceleration[:, axis].tolist() for axis in range(3))
    steps = interval.tolist()
    estimates = array("d")
    gx, gy, gz = x[0], y[0], z[0]  # seeded by the first reading
    px, py, pz = gx, gy, gz  # the previous reading
    estimates.extend((gx, gy, gz))
    # Whether the source includes gravity: its first reading's, not the estimate's length, which
    # a grip turned over drags through zero.
    includes_gravity = gx * gx + gy * gy + gz * gz > 0.25
    motion = 0.0
    for i in range(1, len(x)):
        estimates.extend((gx, gy, gz))
        rx, ry, rz, dt = x[i], y[i], z[i], steps[i]
        moved = math.sqrt((rx - px) ** 2 + (ry - py) ** 2 + (rz - pz) ** 2)
        px, py, pz = rx, ry, rz
        dx, dy, dz = rx - gx, ry - gy, rz - gz
        magnitude = math.sqrt(rx * rx + ry * ry + rz * rz)
        estimate_length = math.sqrt(gx * gx + gy * gy + gz * gz)
        if (dx * dx + dy * dy + dz * dz < CALM_DEVIATION ** 2
                and abs(magnitude - estimate_length) < CALM_MAGNITUDE_DEVIATION):
            motion = 0.0
            time_constant = CALM_TIME_CONSTANT
        else:
            motion += dt
            # After long motion, readings of gravity's length that hardly move are the new grip's gravity.
            expected = 1.0 if includes_gravity else 0.0
            if not (motion > MOTION_PATIENCE and abs(magnitude - expected) < CALM_MAGNITUDE_DEVIATION
                    and moved < CALM_MAGNITUDE_DEVIATION):
                continue
            time_constant = MOVING_TIME_CONSTANT
        weight = min(1.0, dt / time_constant)
        gx, gy, gz = gx + dx * weight, gy + dy * weight, gz + dz * weight
    return np.frombuffer(estimates, dtype=np.float64).reshape(-1, 3), np.array([gx, gy, gz]), includes_gravity


def normalized(vector):
    length = np.linalg.norm(vector)
    return vector / length if length > 0 else np.zeros(3)


class Detector:
    def __init__(self, time, acceleration):
        self.time = time
        interval = np.diff(time, prepend=time[0])
        self.gap = interval > MAXIMUM_GAP
        interval[self.gap] = 0.0
        self.interval = interval
        self.before, last_estimate, self.includes_gravity = track_gravity(acceleration, interval)
        # The estimate after each sample's update is the one before the next sample's.
        self.after = np.vstack([self.before[1:], last_estimate])
        self.linear = acceleration - self.before
        self.magnitude = np.linalg.norm(self.linear, axis=1)
        # A gap clears the detector's memory: the thrust is looked for since the last one.
        self.segment_start = np.maximum.accumulate(np.where(self.gap, np.arange(len(time)), 0))
        self.last_punch = None
        self.thrust_start = -math.inf

    def punches(self):
        """Walks each stretch of at least the trigger, as PunchDetector.track does sample by sample."""
        time, linear, magnitude, gap = self.time, self.linear, self.magnitude, self.gap
        count = len(time)
        # The first sample only seeds gravity; it is never tracked.
        openings = np.flatnonzero(magnitude >= TRIGGER)
        openings = openings[openings > 0]
        found = []
        position = 0
        while position < len(openings):
            peak_index = start_index = openings[position]
            onset = linear[start_index]
            onset_length = magnitude[start_index]
            peak_magnitude = magnitude[peak_index]
            decided = False
            j = peak_index + 1
            while j < count:
                if gap[j]:
                    break  # the stop is dropped undecided; sample j starts afresh
                sample = linear[j]
                # A turn of more than 60° from the stretch's onset starts a new stretch.
                turned = float(sample @ onset) < 0.5 * magnitude[j] * onset_length
                faded = magnitude[j] < TRIGGER / 2
                if not decided:
                    if not turned and magnitude[j] > peak_magnitude:
                        peak_index, peak_magnitude = j, magnitude[j]
                    elif (turned or faded or magnitude[j] < peak_magnitude / 2
                          or time[j] - time[peak_index] >= CONFIRMATION_DELAY):
                        decided = True
                        self.decide(start_index, peak_index, j, found)
                if turned or faded:
                    break
                j += 1
            else:
                if not decided:  # PunchDetector.finish()
                    self.decide(start_index, peak_index, count - 1, found)
                break
            position = np.searchsorted(openings, j, side="left")
        return found

    def remembered(self, decision_index, after, before, inclusive):
        """The sample indices the detector still remembers at `decision_index` with times in
        (after, before), or [after, before) when `inclusive`."""
        time = self.time
        low = max(np.searchsorted(time, after, side="left" if inclusive else "right"),
                  self.segment_start[decision_index], decision_index - RING_CAPACITY + 1, 1)
        return low, max(low, np.searchsorted(time, before, side="left"))

    def decide(self, start_index, peak_index, decision_index, found):
        time = self.time
        peak_time = time[peak_index]
        peak = self.linear[peak_index]
        peak_magnitude = self.magnitude[peak_index]
        # The stop is measured against the mean acceleration just before the stretch began.
        low, high = self.remembered(decision_index, time[start_index] - REFERENCE_WINDOW, time[start_index], True)
        duration = self.interval[low:high].sum()
        before = ((self.linear[low:high] * self.interval[low:high, None]).sum(axis=0) / duration
                  if duration > 0 else np.zeros(3))
        direction = normalized(peak - before)
        direction_start = max(peak_time - DIRECTION_WINDOW, self.thrust_start)
        low, high = self.remembered(decision_index, max(peak_time - THRUST_WINDOW, self.thrust_start), peak_time,
                                    False)
        window = self.linear[low:high]
        steps = self.interval[low:high]
        along = window @ direction
        opposing = along < 0
        pushed = np.where(opposing, -along * steps, 0.0)
        speed = pushed.sum()
        strongest_push = -along[opposing].min() if opposing.any() else 0.0
        if speed < MINIMUM_THRUST or peak @ direction < STOP_SHARPNESS * strongest_push:
            return
        approach = (window * steps[:, None]).sum(axis=0)
        if approach @ direction > -STOP_ALIGNMENT * np.linalg.norm(approach):
            return
        if (self.last_punch is not None and peak_time - self.last_punch[0] < RETRACTION_WINDOW
                and direction @ self.last_punch[1] < -0.3):
            return
        self.last_punch = (peak_time, direction)
        self.thrust_start = peak_time

        thrust = window[opposing] * steps[opposing, None]
        velocity = thrust.sum(axis=0)
        path_length = (np.linalg.norm(window[opposing], axis=1) * steps[opposing]).sum()
        onset = window[opposing][0] if opposing.any() else np.zeros(3)
        # The first half of the thrust within the direction window, before the wrist turns and
        # without the wind-up, gives its direction.
        recent = opposing & (time[low:high] > direction_start)
        recent_pushed = np.where(recent, pushed, 0.0)
        early = recent & (np.cumsum(recent_pushed) - recent_pushed < recent_pushed.sum() / 2)
        early_velocity = (window[early] * steps[early, None]).sum(axis=0)

        estimate = self.after[decision_index]
        up = normalized(estimate) if self.includes_gravity else normalized(FALLBACK_UP)
        rise = normalized(early_velocity) @ up
        straightness = np.linalg.norm(velocity) / path_length if path_length > 0 else 1.0
        turn = np.cross(onset, -direction) @ up
        curves_like_hook = turn > 0 if RIGHT_HAND else turn < 0
        if rise >= UPPERCUT_RISE:
            kind = "uppercut"
        elif REPORTS_HOOKS and straightness < HOOK_STRAIGHTNESS and curves_like_hook:
            kind = "hook"
        else:
            kind = "jab"
        found.append((peak_time, kind, peak_magnitude))


def detect(path):
    time, acceleration, first_time = load(path)
    punches = Detector(time, acceleration).punches() if len(time) > 1 else []
    out = sys.stdout
    for peak_time, kind, peak_g in punches:
        out.write(json.dumps({"t": round(peak_time - first_time, 4), "type": kind, "peak_g": round(peak_g, 3)},
                             separators=(",", ":")) + "\n")
    print(f"{path}: {len(punches)} punches in {len(time)} samples (reference)", file=sys.stderr)


def match(path_a, path_b, tolerance=0.011):
    """Pairs punches by time within `tolerance` seconds; the kinds of paired punches must agree."""
    def read(path):
        with open(path) as lines:
            return [json.loads(line) for line in lines if line.strip()]

    a, b = read(path_a), read(path_b)
    times_b = np.array([p["t"] for p in b])
    paired, kinds_differ, unmatched = 0, 0, 0
    for punch in a:
        nearest = int(np.argmin(np.abs(times_b - punch["t"]))) if len(b) else -1
        if nearest >= 0 and abs(times_b[nearest] - punch["t"]) <= tolerance:
            paired += 1
            kinds_differ += b[nearest]["type"] != punch["type"]
        else:
            unmatched += 1
    agree = len(a) == len(b) and unmatched == 0 and kinds_differ == 0
    print(f"punches: {len(a)} vs {len(b)}; paired within {tolerance * 1000:.0f} ms: {paired}; "
          f"unpaired: {unmatched}; paired with another kind: {kinds_differ} -> {'same' if agree else 'DIFFERENT'}")
    return agree


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "detect":
        detect(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "match":
        sys.exit(0 if match(sys.argv[2], sys.argv[3]) else 1)
    else:
        sys.exit(__doc__)
