#!/usr/bin/env python3
"""Runs hand-made 1 MB worst cases through each fuzz target, without ASan, one input at a time.

    tools/fuzz-worst-cases.py [TARGET...]

A fuzzer grows its inputs slowly, so in a 30-minute run it rarely reaches the shapes that cost
most at 1 MB: one huge line, a million separators, deep nesting, hundreds of thousands of valid
records. Each is written to .build-fuzz/worst/<TARGET>/ and replayed with
`FUZZ_SANITIZE=fuzzer FUZZ_MAX_LEN=1048576 tools/fuzz.sh TARGET --replay FILE`; the table shows the
time and peak memory of each (limits: 1 s of CPU and 100 MB). Exits non-zero if one fails or is over.
"""
import os
import re
import struct
import subprocess
import sys

MB = 1 << 20
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fill(head, unit, tail=b""):
    """`head`, then `unit` repeated, then `tail`: exactly 1 MB."""
    body = MB - len(head) - len(tail)
    return head + (unit * (body // len(unit) + 1))[:body] + tail


def whole(head, unit, tail):
    """As many whole `unit`s as fit, padded with spaces (white space in JSON) to 1 MB."""
    count = (MB - len(head) - len(tail)) // len(unit)
    return head + unit * count + b" " * (MB - len(head) - len(tail) - count * len(unit)) + tail


def input_events(options, size):
    """Events of `size` bytes (24 or 16): X, Y, Z and SYN_REPORT frames, ticking 4 ms."""
    records = []
    for n in range(MB // (4 * size)):
        usec = n * 4000
        for type_, code, value in ((3, 0, 4096 + n % 7), (3, 1, -8192), (3, 2, 16384), (0, 0, 0)):
            if size == 24:
                records.append(struct.pack("<qqHHi", usec // 1_000_000, usec % 1_000_000, type_, code, value))
            else:
                records.append(struct.pack("<iiHHi", usec // 1_000_000, usec % 1_000_000, type_, code, value))
    return (bytes([options]) + b"".join(records))[:MB]


def js_events():
    """js_event records: axes 0-2 moving, then a button."""
    records = [struct.pack("<IhBB", n * 4, (n * 97) % 65536 - 32768, 2, n % 3) for n in range(MB // 8)]
    return (bytes([0]) + b"".join(records))[:MB]


def evemu_header():
    with open(os.path.join(ROOT, "Fuzz/seeds/Evemu/dualsense.evemu"), "rb") as seed:
        text = seed.read()
    return text[: text.index(b"E: ")]


def cases():
    evemu = evemu_header()
    trace = b"t,x,y,z\n"
    client = b'{"type":"punch","v":1,"token":"t","fight":1,"kind":"jab","damage":9,"after":'
    event = b'{"at":"2026-11-22T05:00:00Z","fight":7,"kind":"turnPassed","missedTurns":1,"sequence":2},'
    return {
        "TraceReader": {
            "one-line": fill(trace, b"1"),
            "commas": fill(trace, b","),
            "newlines": fill(trace, b"\n"),
            "carriage-returns": fill(trace, b"\r"),
            "quotes": fill(b'"', b'"'),
            "valid-rows": fill(trace, b"0.004,0.1,-9.8,0.2\n"),
            "punches": fill(trace, b"0.01,0,0,1\n0.02,40,0,1\n"),
            "long-number": fill(trace + b"0.01,", b"9", b",0,0\n"),
        },
        "PunchDetector": {
            "sensor-samples": fill(b"", b"\x09\xff\x7f\x00\x80\x00\x40"),
            "nan-samples": fill(b"", b"\x00" + b"\xff" * 32),
            "zeros": fill(b"", b"\x00"),
            "alternating": fill(b"", b"\x00" + struct.pack("<dddd", 1e-310, 1e308, -1e308, 5e-324) + b"\x03\x00\x7f\x00\x80\x01\x00"),
        },
        "LabelParser": {
            "one-line": fill(b"start,end,type\n", b"1"),
            "commas": fill(b"start,end,type\n", b","),
            "newlines": fill(b"start,end,type\n", b"\n"),
            "valid-rows": fill(b"start,end,type\n", b"1.226,1.485,uppercut\n"),
        },
        "InputEvents": {
            "frames-24": input_events(0, 24),
            "frames-16-short-reads": input_events(1 | 8, 16),
            "syn-dropped": fill(b"\x04", struct.pack("<qqHHi", 0, 0, 0, 3, 0)),
            "zeros": fill(b"\x00", b"\x00"),
        },
        "JoystickEvents": {
            "axes": js_events(),
            "zeros": fill(b"\x08", b"\x00"),
            "init-events": fill(b"\x00", struct.pack("<IhBB", 0, 1, 0x82, 0)),
        },
        "Evemu": {
            "one-line": fill(evemu + b"E: ", b"1"),
            "events": fill(evemu, b"E: 0.004000 0003 0000 16384\nE: 0.004000 0000 0000 0000\n"),
            "comments": fill(b"#", b"# EVEMU 1.3\n"),
            "axes": fill(b"# EVEMU 1.3\nN: x\nI: 0003 054c 0ce6 8100\n", b"A: 00 -32768 32767 16 0 8192\n"),
            "spaces": fill(evemu + b"E:", b" "),
        },
        "ServerMessages": {
            "nested-arrays": fill(b"", b"["),
            "nested-objects": fill(b"", b'{"a":'),
            "one-string": fill(b'{"type":"error","v":1,"code":"invalid","message":"', b"x", b'"}'),
            "escapes": fill(b'{"type":"error","v":1,"code":"invalid","message":"', b"\\u00e9", b'"}'),
            "commas": fill(b"[", b","),
            "long-number": fill(client, b"9", b"}"),
            "events": whole(b'{"type":"events","v":1,"fight":7,"events":[', event, b'{"at":"2026-11-22T05:00:00Z","kind":"x"}]}'),
            "client-16k-nesting": (b"[" * (16 * 1024)),
        },
    }


def run(target, path):
    """Exit status, wall and CPU milliseconds, peak MB and output of one replay.

    The CPU time (the whole process: start-up included) is what counts on a shared machine, where
    the wall-clock time of a niced run says more about the neighbours; libFuzzer's own timeout is
    raised to 30 s for the same reason.
    """
    env = dict(os.environ, FUZZ_MAX_LEN=str(MB), FUZZ_TIMEOUT="30")
    env.setdefault("FUZZ_SANITIZE", "fuzzer")
    before = os.times()
    result = subprocess.run(
        [os.path.join(ROOT, "tools/fuzz.sh"), target, "--replay", path],
        cwd=ROOT, env=env, capture_output=True, text=True, errors="replace")
    after = os.times()
    cpu = round(1000 * (after.children_user + after.children_system - before.children_user - before.children_system))
    log = result.stdout + result.stderr
    took = re.search(r"Executed .* in (\d+) ms", log)
    rss = re.search(r"stat::peak_rss_mb:\s+(\d+)", log)
    return result.returncode, int(took.group(1)) if took else None, cpu, int(rss.group(1)) if rss else None, log


def main():
    targets = sys.argv[1:] or list(cases())
    failed = False
    print(f"{'target':<15} {'input':<22} {'wall ms':>8} {'CPU ms':>7} {'peak MB':>8}")
    for target, inputs in cases().items():
        if target not in targets:
            continue
        folder = os.path.join(ROOT, ".build-fuzz/worst", target)
        os.makedirs(folder, exist_ok=True)
        # Builds the target first, so that the compiler's time is not counted as the first input's.
        empty = os.path.join(folder, "empty")
        open(empty, "wb").close()
        run(target, empty)
        for name, data in inputs.items():
            path = os.path.join(folder, name)
            with open(path, "wb") as file:
                file.write(data)
            code, took, cpu, rss, log = run(target, path)
            over = code != 0 or cpu > 1000 or (rss or 0) > 100
            failed |= over
            print(f"{target:<15} {name:<22} {took if took is not None else '-':>8} {cpu:>7} {rss or '-':>8}"
                  f"{'  FAILED (exit %d)' % code if code else ''}{'  OVER' if over and not code else ''}")
            if code:
                print("\n".join(line for line in log.splitlines() if "ld.gold" not in line)[-3000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
