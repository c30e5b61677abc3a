#!/usr/bin/env python3
"""Swing to screen through `play --sensor`: real recordings streamed live, at their own pace, into a
named pipe that `hitthat play --sensor PIPE --script` reads as a live sensor (a pipe is read as it
comes, as a controller is), fighting a scripted opponent (page_replay.py's, jabbing from the meter).
For each of the player's punches that lands, the time from the moment its stop's peak was written
to the pipe to the moment the `punched` line came out of the client (`--script` prints each server
message as it handles it, when the full-screen client draws it). The stop's peak is the row,
within `detect`'s punch's strength window, whose length is farthest from 1 g (page_replay.py's
`the_stop`); a landed punch is paired with the newest such peak written before it, at most 0.6 s
before.

The recordings are read at run time from `../shared/recordings/motion` and converted to /tmp only
(`--work`); they have no licence, so nothing made from them goes into the repository.

Usage (from the repository's root, hitthat built):
    python3 tools/sensor_latency.py --hitthat .build/release/hitthat
    python3 tools/sensor_latency.py --hitthat .build/release/hitthat --sets phyphox-practice --seconds 40
It takes `--seconds` a case (default 30) for `--cases` cases a set (default 3).
"""
import argparse, bisect, json, os, queue, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_replay  # noqa: E402
from page_replay import Opponent, cases, convert, detect, serve, spread, the_stop, write_trace  # noqa: E402


class Player(Opponent):
    """`hitthat play --sensor PIPE --script` for `user` (the opponent's client, with a sensor): the
    player's punches, each with when its line was read."""

    def __init__(self, hitthat, port, user, pipe, log):
        self.punched = []          # (when read, the event) for each punch of this player
        self.ended = threading.Event()
        super().__init__(hitthat, port, user, pipe, log)

    def heard(self, message, at):
        if message.get("type") == "event" and message.get("kind") == "punched" and message.get("by") == self.me:
            self.punched.append((at, message))
        if message.get("type") == "event" and message.get("kind") == "ended":
            self.ended.set()


def stream(pipe, rows, written, stop):
    """Writes the rows (t, g, rad/s) to the pipe at their own pace, noting when each was written."""
    with open(pipe, "w") as out:
        out.write("t,x (g),y (g),z (g),gx (rad/s),gy (rad/s),gz (rad/s)\n")
        start = time.monotonic() - rows[0][0]
        for row in rows:
            if stop.is_set():
                return
            wait = start + row[0] - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            out.write(",".join(f"{v:.6f}" for v in row) + "\n")
            out.flush()
            written.append((row[0], time.monotonic()))


def run_case(options, port, opponent, user, trace, seconds):
    """One player streams `trace` for `seconds`, fighting the opponent; returns ms stop -> `punched`."""
    rows = [[float(v) for v in line.split(",")] for line in list(open(trace))[1:]]
    rows = [r for r in rows if r[0] <= rows[0][0] + seconds]
    pipe = os.path.join(options.work, f"{user}.pipe")
    if os.path.exists(pipe):
        os.remove(pipe)
    os.mkfifo(pipe)
    written, stop = [], threading.Event()
    player = Player(options.hitthat, port, user, pipe, os.path.join(options.work, f"{user}.log"))
    writer = threading.Thread(target=stream, args=(pipe, rows, written, stop), daemon=True)
    writer.start()
    try:
        while writer.is_alive():
            opponent.open_room()
            player.ended.clear()
            player.send("quick")
            while writer.is_alive() and not player.ended.wait(0.5):
                pass
        if not player.ended.is_set():
            player.send("forfeit")
            player.ended.wait(10)
    finally:
        stop.set()
        player.stop()
    # Each stop's peak, when it was written.
    times, walls = [t for t, _ in written], [w for _, w in written]
    peaks = []
    for punch in detect(options.hitthat, trace):
        peak = the_stop(trace, punch["t"])
        index = bisect.bisect_left(times, peak - 1e-9)
        if index < len(times) and abs(times[index] - peak) < 1e-6:
            peaks.append(walls[index])
    latencies = []
    for at, event in player.punched:
        before = [w for w in peaks if at - 0.6 <= w <= at]
        if before:
            latencies.append(round((at - max(before)) * 1000, 1))
    return latencies, len(player.punched)


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hitthat", required=True)
    parser.add_argument("--recordings", default=os.path.join(os.path.dirname(here), "shared", "recordings", "motion"))
    parser.add_argument("--work", default="/tmp/sensor_latency")
    parser.add_argument("--sets", nargs="+", default=list(page_replay.SETS))
    parser.add_argument("--cases", type=int, default=3, help="cases a set")
    parser.add_argument("--seconds", type=float, default=30, help="seconds of each case streamed")
    options = parser.parse_args()
    options.hitthat = os.path.abspath(options.hitthat)
    os.makedirs(options.work, exist_ok=True)
    server, port = serve(options.hitthat, options.work)
    opponent = Opponent(options.hitthat, port, f"opp_{os.getpid()}", None, os.path.join(options.work, "opponent.log"))
    results = {}
    try:
        for name in options.sets:
            found = [c for c in cases(options.recordings, name) if not c[0].endswith("nopunch")]
            latencies, landed = [], 0
            for number, (case, folder, _) in enumerate(spread(found, options.cases)):
                trace = os.path.join(options.work, f"{name}-{case}.csv")
                write_trace(trace, convert(folder))
                got, count = run_case(options, port, opponent, f"s{number}_{os.getpid() % 10000}_{name[:4]}", trace,
                                      options.seconds)
                print(f"  {name}/{case}: {count} landed, {len(got)} paired with a stop: {got}", flush=True)
                latencies += got
                landed += count
            ordered = sorted(latencies)
            at = lambda q: ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else None
            results[name] = {"landed": landed, "paired": len(ordered), "p50": statistics.median(ordered) if ordered else None,
                             "p90": at(0.9), "ms": ordered}
            print(f"== {name}: stop -> `punched` on screen, ms: median {results[name]['p50']}, p90 {results[name]['p90']} "
                  f"(n={len(ordered)} of {landed} landed)", flush=True)
    finally:
        opponent.stop()
        server.terminate()
    with open(os.path.join(options.work, "results.json"), "w") as out:
        json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
