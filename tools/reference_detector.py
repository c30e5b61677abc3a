#!/usr/bin/env python3
"""HitThat's punch rule written the way a data person would: pandas to read and filter, NumPy for
the rest, every per-sample step vectorised, a plain loop only over the candidate humps.

The reference that tools/compare.sh times `hitthat detect` against. It follows PunchDetector's
rule (Sources/PunchKit/PunchDetector.swift, GravityTracker.swift, DetectorConfiguration's
defaults) for a generic t,x,y,z trace in seconds and g, gravity included, no gyroscope:

- gravity: a first-order low-pass filter (time constant 0.6 s) at the trace's median rate, an
  exponential moving average (`ewm`) seeded with the first reading; the motion is the reading less it;
- the strength of motion: the mean length of the motion over the last 0.25 s (cumulative sums);
- a hump: a sample whose strength is at least the trigger (1.1 g, or 0.3 × the median strength of
  the last eight punches), the strongest of the last 0.35 s (a rolling maximum), and not beaten
  before it is decided: 0.125 s later, or from 0.1 s once the strength fell below 0.9 of it;
- a punch: a hump at least 0.3 s after the last punch, and not its retraction (within 1.5 s,
  pointing back against it and weaker); its time 0.125 s before the hump, its peak the strongest
  sample of the hump's window, its direction the motion there;
- its kind: an uppercut when rise·|rise| + 6 × the stop's width + 0.5 × the bend is above 0.7,
  else a jab (hooks need a gyroscope); its damage 4 × the peak, scaled by the player's usual peak.

What it leaves out, which a generated trace does not have: gaps of more than 0.25 s (the detector
starts afresh), other units or formats, a sample interval that the filter's fixed rate does not
describe (the detector weighs each sample by its own interval; jitter moves the estimate a little).

Usage:
  reference_detector.py detect TRACE.csv        one JSON object a punch: t, type, damage, peak_g
  reference_detector.py match A.jsonl B.jsonl   how far two punch lists agree (exit 1 if under 95 %)
"""

import sys

import numpy as np
import pandas as pd

# DetectorConfiguration's defaults.
TRIGGER = 1.1
RELATIVE_TRIGGER = 0.3
STRENGTH_WINDOW = 0.25
LOOK_BACK = 0.35
CONFIRMATION = 0.1
CONFIRMING_FALL = 0.9
LONGEST_CONFIRMATION = 0.125
MINIMUM_INTERVAL = 0.3
RETRACTION_WINDOW = 1.5
RETRACTION_ALIGNMENT = -0.2
GRAVITY_TIME_CONSTANT = 0.6
THRUST_WINDOW = 0.4
FOLLOW_THROUGH = 0.1
STOP_LEAD = 0.05
STOP_WIDTH_WEIGHT = 6.0
BEND_WEIGHT = 0.5
UPPERCUT_SCORE = 0.7
DAMAGE_PER_G = 4.0
MAXIMUM_DAMAGE = 100
USUAL_PEAK_G = 9.0  # PunchProfile.usualPeakG
LEAST_USUAL_PEAK_G = 1.5  # UsualPunch.leastPeakG
STANDARD_GRAVITY = 9.80665


def load(path):
    """Times (s) and readings (g), without the readings that repeat the last one exactly (a
    sensor's sample-and-hold, which the detector passes over)."""
    frame = pd.read_csv(path, usecols=["t", "x", "y", "z"], dtype="float64", engine="c")
    time = frame["t"].to_numpy()
    raw = frame[["x", "y", "z"]].to_numpy()
    changed = np.ones(len(time), dtype=bool)
    changed[1:] = (raw[1:] != raw[:-1]).any(axis=1)
    return time[changed], raw[changed]


def windows(time, rows, span):
    """For each of `rows`, the index of the first sample at most `span` seconds before it, and a
    matrix of indices from there (clipped to the trace) wide enough for the widest window."""
    low = np.searchsorted(time, time[rows] - span, side="left")
    width = int((rows - low).max()) + 1 if len(rows) else 1
    return low, np.minimum(low[:, None] + np.arange(width), len(time) - 1)


def upper_median(values):
    """The median of each row, the upper of the middle two for an even count, as LastEight's."""
    ordered = np.sort(values, axis=-1)
    return ordered[..., values.shape[-1] // 2]


def detect(path):
    time, raw = load(path)
    count = len(time)
    if count < 2:
        return pd.DataFrame(columns=["t", "type", "damage", "peak_g"]), time

    # Gravity: a first-order low-pass filter (an exponential moving average), seeded by the
    # first reading.
    weight = min(1.0, float(np.median(np.diff(time))) / GRAVITY_TIME_CONSTANT)
    gravity = pd.DataFrame(raw).ewm(alpha=weight, adjust=False).mean().to_numpy()
    linear = raw - gravity
    magnitude = np.sqrt(np.einsum("ij,ij->i", linear, linear))
    interval = np.diff(time, prepend=time[0])

    # Strength of motion: the mean magnitude over the last 0.25 s.
    sums = np.concatenate(([0.0], np.cumsum(magnitude)))
    index = np.arange(count)
    start = np.searchsorted(time, time - STRENGTH_WINDOW, side="left")
    strength = (sums[index + 1] - sums[start]) / (index + 1 - start)

    # Humps: at least the trigger's floor, the strongest of the last 0.35 s.
    series = pd.Series(strength, index=pd.to_datetime(time, unit="s"))
    strongest_before = series.rolling(pd.Timedelta(seconds=LOOK_BACK), closed="both").max().to_numpy()
    humps = np.flatnonzero((strength >= TRIGGER) & (strength >= strongest_before))
    humps = humps[humps > 0]  # the first sample only seeds gravity

    # Each hump's decision: 0.125 s on, or from 0.1 s once its strength has fallen by a tenth;
    # a stronger sample before then takes its place.
    ahead = int(np.searchsorted(time, time[0] + 2 * LONGEST_CONFIRMATION)) + 2
    later = np.minimum(humps[:, None] + np.arange(1, ahead), count - 1)
    waited = time[later] - time[humps, None]
    due = (waited >= LONGEST_CONFIRMATION) | (
        (waited >= CONFIRMATION) & (strength[later] < CONFIRMING_FALL * strength[humps, None]))
    due[:, -1] = True
    decision = later[np.arange(len(humps)), due.argmax(axis=1)]
    until = np.arange(1, ahead) <= (decision - humps)[:, None]
    beaten = ((strength[later] > strength[humps, None]) & until).any(axis=1)
    humps, decision = humps[~beaten], decision[~beaten]

    # The stop's peak: the sample of greatest magnitude in the hump's window.
    low, around = windows(time, humps, STRENGTH_WINDOW)
    inside = around <= humps[:, None]
    peaks = around[np.arange(len(humps)), np.where(inside, magnitude[around], -1.0).argmax(axis=1)]
    direction = linear[peaks] / magnitude[peaks, None]

    # Which humps are punches: a loop over the humps alone, as each depends on the last punch.
    kept = []
    last_time, last_direction, last_strength = -np.inf, None, 0.0
    strengths = []
    for n, hump in enumerate(humps.tolist()):
        strong = strength[hump]
        floor = TRIGGER if not strengths else max(TRIGGER, RELATIVE_TRIGGER * upper_median(np.array(strengths[-8:])))
        if strong < floor:
            continue
        punch_time = time[hump] - STRENGTH_WINDOW / 2
        since = punch_time - last_time
        if since < MINIMUM_INTERVAL:
            continue
        if (since < RETRACTION_WINDOW and float(direction[n] @ last_direction) < RETRACTION_ALIGNMENT
                and strong < last_strength):
            continue
        last_time, last_direction, last_strength = punch_time, direction[n], strong
        strengths.append(strong)
        kept.append(n)
    kept = np.array(kept, dtype=int)
    peaks, decision, humps = peaks[kept], decision[kept], humps[kept]

    # The kind, from the motion 0.4 s before the peak to 0.1 s after, against the gravity before.
    first, span = windows(time, peaks, THRUST_WINDOW)
    before = gravity[first]
    up = before / np.linalg.norm(before, axis=1, keepdims=True)
    taken = (span > first[:, None]) & (time[span] <= time[peaks, None] + FOLLOW_THROUGH)
    motion = np.where(taken[..., None], raw[span] - before[:, None, :], 0.0)
    along = np.einsum("pkc,pc->pk", motion, up)
    energy = np.einsum("pkc,pkc->p", motion, motion)
    upward = (along * np.abs(along)).sum(axis=1)
    share = np.divide(upward, energy, out=np.zeros_like(energy), where=energy > 0)
    rise = np.sign(share) * np.sqrt(np.abs(share))
    thrust = (motion * (time[span] <= time[peaks, None] - STOP_LEAD)[..., None]).sum(axis=1)
    stop = raw[peaks] - before
    bend = np.einsum("pc,pc->p", normalized(thrust), normalized(stop))
    velocity = np.cumsum(motion * interval[span][..., None], axis=1)
    speed = np.sqrt(np.einsum("pkc,pkc->pk", velocity, velocity).max(axis=1)) * STANDARD_GRAVITY

    # The stop's width: how long the reading's length stays more than half as far from 1 g as at
    # the peak, up to the sample that decided it.
    departure = np.abs(np.linalg.norm(raw, axis=1) - 1.0)
    half = departure[peaks] / 2
    last, earliest = peaks.copy(), peaks.copy()
    growing = np.ones(len(peaks), dtype=bool)
    while growing.any():
        growing &= (last + 1 <= decision) & (departure[np.minimum(last + 1, count - 1)] > half)
        last += growing
    growing[:] = True
    while growing.any():
        growing &= (earliest > 0) & (departure[earliest - 1] > half)
        earliest -= growing
    width = time[last] - time[earliest]

    score = rise * np.abs(rise) + STOP_WIDTH_WEIGHT * width + BEND_WEIGHT * bend
    kind = np.where(score > UPPERCUT_SCORE, "uppercut", "jab")

    # Damage: the peak against the median of the last eight peaks, the usual one counted first.
    peak_g = magnitude[peaks]
    history = np.concatenate(([USUAL_PEAK_G] * 8, peak_g))
    usual = upper_median(np.lib.stride_tricks.sliding_window_view(history, 8)[: len(peak_g)])
    for n in range(min(7, len(peak_g))):  # fewer than eight seen so far
        usual[n] = upper_median(history[7 - n: 8])
    scaled = peak_g * USUAL_PEAK_G / np.maximum(usual, LEAST_USUAL_PEAK_G)
    damage = np.clip(np.round(scaled * DAMAGE_PER_G), 1, MAXIMUM_DAMAGE).astype(int)

    punches = pd.DataFrame({
        "t": np.round(time[humps] - STRENGTH_WINDOW / 2 - time[0], 4), "type": kind, "damage": damage,
        "peak_g": np.round(peak_g, 3), "speed_ms": np.round(speed, 2)})
    return punches, time


def normalized(vectors):
    length = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, length, out=np.zeros_like(vectors), where=length > 0)


def match(path_a, path_b, tolerance=0.1):
    """Pairs each punch of A with B's nearest within `tolerance` seconds (each of B's once, in
    time order) and counts the kinds and damages that agree."""
    a = pd.read_json(path_a, lines=True)
    b = pd.read_json(path_b, lines=True)
    if a.empty or b.empty:
        print(f"punches: {len(a)} vs {len(b)}")
        return len(a) == len(b)
    paired = pd.merge_asof(a.sort_values("t"), b.sort_values("t").assign(tb=lambda f: f["t"]), on="t",
                           direction="nearest", tolerance=tolerance, suffixes=("", "_b")).dropna(subset=["tb"])
    paired = paired.drop_duplicates(subset="tb")
    same_kind = int((paired["type"] == paired["type_b"]).sum())
    same_damage = int((paired["damage"] == paired["damage_b"]).sum())
    both = len(paired)
    share = both / max(len(a), len(b))
    print(f"punches: {len(a)} vs {len(b)}; found by both within {tolerance} s: {both} ({share:.1%} of the larger); "
          f"of those, the same kind: {same_kind} ({same_kind / both:.1%}), the same damage: {same_damage} "
          f"({same_damage / both:.1%}); time apart p50 {np.median(np.abs(paired['t'] - paired['tb'])) * 1000:.1f} ms")
    return share >= 0.95 and same_kind >= 0.95 * both


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "detect":
        found, samples = detect(sys.argv[2])
        found[["t", "type", "damage", "peak_g"]].to_json(sys.stdout, orient="records", lines=True)
        counts = found["type"].value_counts().to_dict()
        print(f"{sys.argv[2]}: {len(found)} punches {counts} in {len(samples)} samples (reference)", file=sys.stderr)
    elif len(sys.argv) == 4 and sys.argv[1] == "match":
        sys.exit(0 if match(sys.argv[2], sys.argv[3]) else 1)
    else:
        sys.exit(__doc__)
