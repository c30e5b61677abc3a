#!/usr/bin/env python3
"""Real phone recordings replayed through the page, as a phone would deliver them: each punch of a
recording is swung with headless Chromium's virtual sensors (`sensor_test.py`'s recipe: genuine
`devicemotion` events, PUNCH held by a touch) against a scripted opponent, and what the server
decided is set beside what `hitthat detect` finds in the same recording.

The recordings are read at run time from `../shared/recordings/motion` (or `--recordings`); they
have no licence, so nothing made from them (converted traces, per-punch results) is written
anywhere but `--work` (default /tmp/replay), never into the repository.

For each set (`sensorlogger`: a phone strapped to the hand, a truth window per punch;
`phyphox-practice`: a phone in the hand, one kind per recording and no times):

1. Each case's export (a folder) is converted to the `t,x,y,z,gx,gy,gz` trace (g, rad/s, t from
   the acceleration's first sample) that `sensor_test.py` swings: Sensor Logger's
   `TotalAcceleration.csv` and `Gyroscope.csv` share their rows (columns `z,y,x`); phyphox's
   `Accelerometer.csv` and `Gyroscope.csv` have their own times, and each acceleration row takes
   the gyroscope's rate interpolated at its time, as `detect` reads the export (`--pairing nearest`
   takes the nearest reading instead). `detect --json --features` is run on the export and on the
   trace, and their punches are matched (same kind within 0.05 s): printed as "conversion".
2. The holds: a sensorlogger case's truth windows, PUNCH down at the window's start and up at its
   end; a practice case's punches as `detect` finds them in the export, PUNCH down `--before` s
   before the punch (but not before the midpoint from the punch before it) and up `--after` s
   after it. `--lead` s of the recording are replayed before the press (`sensor_test.LEAD`): more
   than the page's 1.95 s lead-in, so that all of the lead-in the page sends is the recording's,
   not the sensors' reading held since the last hold. At most `--max-holds` a set, spread evenly
   over its cases and over each recording. The `*nopunch` practice recordings give
   `--nopunch-holds` holds each, at even times, to count the punches that land from no punch.
3. One server (`hitthat serve`, a fresh database in `--work`) and one opponent (`hitthat play
   --script`, kept in a quick-match room: `quick` again after each fight), who jabs from the meter
   in its turns (`--opponent-sensor TRACE` has it swing a trace instead; `traces/mixed-phyphox.csv`
   runs out of punches after a few fights). Each case is one player in the page (a new account,
   so that the server's per-fighter usual punch is built from that recording only, as `detect`
   builds it over one recording); when a fight ends (a knockout after a few hits) the page leaves
   and joins the opponent's next room, and the last one is forfeited. A hold the page or the
   server refuses, or that fails `sensor_test`'s checks of what the page sent, is counted with
   its message, and the run goes on.
4. Per set it prints: holds thrown, the share where a punch landed, the share whose landed kind
   is the truth's (sensorlogger: the window's; practice: the recording's), the same two for
   `detect` on the whole export (the scorer's way: a detection within a window +-0.3 s; for the
   practice holds, the window is the hold) and for `detect` on the hold's stretch cut from the
   recording (lead-in and hold, the recording's own rate: what the window alone does), the
   median / p10 / p90 of the landed damage (a player's first three holds apart: the server learns
   their usual punch across swings) and of `detect`'s on the same punches, how often `detect` on
   the samples exactly as the page sent them (the page's ~60 Hz and rounding: the server's input)
   decides as the server did, and on the readings behind them (each row's acceleration's reading
   with its own rotation rate: how often Chromium paired a row with an older rotation shows here),
   each truth -> server / stretch / whole-recording kind, and every refused or failed hold with
   its message. The whole result goes to `--work`/results.json, each hold's samples as sent to
   `--work`/sent/.

Usage (from the repository's root; hitthat built, Chromium and chromedriver installed):
    python3 tools/page_replay.py --hitthat .build/release/hitthat
    python3 tools/page_replay.py --hitthat /tmp/hitthat --sets sensorlogger --max-holds 20
    python3 tools/page_replay.py --hitthat /tmp/hitthat --check-only   # the conversion only
    python3 tools/page_replay.py --hitthat /tmp/hitthat --cases practice_jab --max-holds 5
It takes about 4 s a hold (two sets of 60 and 10 no-punch holds: about 10 minutes).
"""
import argparse, bisect, csv, glob, json, math, os, queue, re, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sensor_test  # noqa: E402
from browser_test import (Browser, Failure, expect, join_quick_match, my_turn_or_the_end,  # noqa: E402
                          record_sent, set_location)

G = 9.80665
SETS = ("sensorlogger", "phyphox-practice")
TOLERANCE = 0.3
"""The scorer's: a detection within a truth window +-0.3 s matches it."""


# MARK: - Converting an export

def read_columns(path):
    """A CSV's rows as lists of floats, with its header's names (quotes and spaces stripped)."""
    with open(path, newline="") as file:
        reader = csv.reader(file)
        header = [name.strip().strip('"') for name in next(reader)]
        rows = [[float(v) for v in record] for record in reader if record]
    return header, rows


def convert(folder, pairing="interpolate"):
    """The export at `folder` as rows (t s, x y z g, gx gy gz rad/s), t from its first sample."""
    if os.path.exists(os.path.join(folder, "TotalAcceleration.csv")):
        header, accel = read_columns(os.path.join(folder, "TotalAcceleration.csv"))
        gheader, gyro = read_columns(os.path.join(folder, "Gyroscope.csv"))
        expect(header[1:] == ["seconds_elapsed", "z", "y", "x"] and gheader == header, f"{folder}: {header}")
        expect(len(accel) == len(gyro) and all(a[0] == g[0] for a, g in zip(accel, gyro)),
               f"{folder}: the acceleration's and gyroscope's rows are not the same")
        start = accel[0][1]
        return [[a[1] - start, a[4] / G, a[3] / G, a[2] / G, g[4], g[3], g[2]] for a, g in zip(accel, gyro)]
    header, accel = read_columns(os.path.join(folder, "Accelerometer.csv"))
    gheader, gyro = read_columns(os.path.join(folder, "Gyroscope.csv"))
    expect(header[1:] == ["X (m/s^2)", "Y (m/s^2)", "Z (m/s^2)"], f"{folder}: {header}")
    expect(gheader[1:] == ["X (rad/s)", "Y (rad/s)", "Z (rad/s)"], f"{folder}: {gheader}")
    times = [g[0] for g in gyro]
    start = accel[0][0]
    rows = []
    for a in accel:
        i = bisect.bisect_left(times, a[0])
        if pairing == "nearest" or i == 0 or i == len(times):
            j = min((k for k in (i - 1, i) if 0 <= k < len(times)), key=lambda k: abs(times[k] - a[0]))
            rate = gyro[j][1:4]
        else:
            before, after = gyro[i - 1], gyro[i]
            share = (a[0] - before[0]) / (after[0] - before[0]) if after[0] > before[0] else 0
            rate = [b + (c - b) * share for b, c in zip(before[1:4], after[1:4])]
        rows.append([a[0] - start] + [v / G for v in a[1:4]] + rate)
    return rows


def write_trace(path, rows):
    sensor_test.write_trace(path, rows)


def detect(hitthat, path, *more):
    """`detect --json --features` on a trace or an export: its punches, as dicts."""
    done = subprocess.run([hitthat, "detect", "--json", "--features", *more, path],
                          capture_output=True, text=True, timeout=600)
    expect(done.returncode == 0, f"detect {path}: {done.stderr[-500:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def compare_detections(a, b, within=0.05):
    """How many of `a`'s punches `b` has at the same time (within `within` s), and of the same kind."""
    times = [p["t"] for p in b]
    same_time = same_kind = 0
    for punch in a:
        i = bisect.bisect_left(times, punch["t"] - within)
        near = [b[j] for j in range(i, len(b)) if b[j]["t"] <= punch["t"] + within]
        if near:
            same_time += 1
            same_kind += any(n["type"] == punch["type"] for n in near)
    return same_time, same_kind


# MARK: - The cases and their holds

def cases(recordings, name):
    """A set's cases: (name, export folder, truth)."""
    found = []
    for truth_path in sorted(glob.glob(os.path.join(recordings, name, "*.truth.json"))):
        case = os.path.basename(truth_path)[:-len(".truth.json")]
        folder = os.path.join(recordings, name, case)
        if os.path.isdir(folder):
            with open(truth_path) as file:
                found.append((case, folder, json.load(file)))
    return found


def spread(items, count):
    """`count` of `items`, evenly spread over them (all of them when there are fewer)."""
    if count >= len(items):
        return list(items)
    return [items[int((i + 0.5) * len(items) / count)] for i in range(count)]


def holds_of(case, truth, detected, duration, options):
    """The case's holds: dicts with press, release (trace seconds), the truth's kind and the punch's
    time when known."""
    if truth["mode"] == "windows" and truth["punches"]:
        return [{"press": p["start"], "release": p["end"], "truth": p["type"], "window": [p["start"], p["end"]]}
                for p in truth["punches"]]
    if truth["mode"] == "windows":  # a session with no punch: holds at even times, for false punches
        lead = sensor_test.LEAD
        step = (duration - lead - 2) / max(1, options.nopunch_holds)
        return [{"press": lead + 1 + i * step, "release": lead + 1 + i * step + options.before + options.after,
                 "truth": None, "window": None} for i in range(options.nopunch_holds)]
    holds = []
    times = [p["t"] for p in detected]
    for i, t in enumerate(times):
        press = t - options.before
        if i > 0:
            press = max(press, (times[i - 1] + t) / 2)
        if press - sensor_test.LEAD < 0 or t + options.after > duration:
            continue
        holds.append({"press": press, "release": t + options.after, "truth": truth["type"], "punchAt": t,
                      "window": [press, t + options.after]})
    return holds


def detect_in_window(detected, window):
    """`detect`'s first punch within the window +-0.3 s, the scorer's way."""
    return next((p for p in detected if window[0] - TOLERANCE <= p["t"] <= window[1] + TOLERANCE), None)


# MARK: - The opponent

class Opponent:
    """`hitthat play --script` as the opponent, in a quick-match room whenever asked. In its turns it
    throws a jab from the meter (`jab`: wound up and thrown at once, a few points), or with
    `sensor`, swings that trace's punches (`--sensor`: a recorded trace runs out of punches after a
    few fights). Its JSON lines are read on a thread of their own."""

    def __init__(self, hitthat, port, user, sensor, log):
        env = dict(os.environ, HITTHAT_PASSWORD="correct horse")
        self.process = subprocess.Popen(
            [hitthat, "play", "--user", user, "--server", f"ws://127.0.0.1:{port}", "--script", "--at", "48.8566,2.3522"]
            + (["--sensor", sensor] if sensor else []),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True, bufsize=1, env=env)
        self.by_meter = not sensor
        self.me = None
        self.lock = threading.Lock()
        self.lines = queue.Queue()
        self.log = open(log + ".out", "w")
        threading.Thread(target=self._read, daemon=True).start()

    def send(self, command):
        with self.lock:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()

    def _read(self):
        for line in self.process.stdout:
            at = time.monotonic()
            self.log.write(line)
            self.log.flush()
            self.lines.put(line)
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("type") == "welcome":
                self.me = message["fighter"]["id"]
            self.heard(message, at)
        self.lines.put(None)

    def heard(self, message, at):
        """What it does with a message, read at `at` (time.monotonic())."""
        # Its turn in a fight: a jab from the meter, after a moment (as a player would).
        if (self.by_meter and message.get("type") == "event" and message.get("turn") == self.me
                and message.get("kind") in ("matched", "accepted", "punched", "turnPassed")):
            threading.Timer(0.3, lambda: self.send("jab")).start()

    def open_room(self, seconds=60):
        """Sends `quick` and waits for its room (or a fight matched at once)."""
        while not self.lines.empty():
            self.lines.get_nowait()
        self.send("quick")
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            expect(line is not None, "the opponent's client ended")
            if '"openedRoom"' in line or '"matched"' in line:
                return
        raise Failure("the opponent's room did not open")

    def stop(self):
        try:
            self.send("quit")
            self.process.stdin.close()
            self.process.wait(10)
        except Exception:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def serve(hitthat, work):
    """`hitthat serve` on a free port with a fresh database; returns the process and the port."""
    database = os.path.join(work, f"replay-{os.getpid()}-{int(time.time())}.sqlite")
    log = open(os.path.join(work, "serve.log"), "w")
    process = subprocess.Popen([hitthat, "serve", "--port", "0", "--database", database, "--password-rounds", "1000"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    port = None
    deadline = time.time() + 120
    while port is None and time.time() < deadline:
        line = process.stdout.readline()
        expect(line, "the server ended before it listened")
        log.write(line)
        found = re.search(r"ws://127\.0\.0\.1:(\d+)", line)
        if found and "serving" in line:
            port = int(found.group(1))
    expect(port, "the server did not say where it listens")
    threading.Thread(target=lambda: [log.write(l) or log.flush() for l in process.stdout], daemon=True).start()
    return process, port


# MARK: - Swinging through the page

def the_last_punch(browser):
    """The page's own newest `punched` event: kind, damage, and the guard that blunted it."""
    return browser.js("""
        const state = hitthat.state;
        const events = [...state.log.get(state.current).entries()].sort((a, b) => b[0] - a[0]).map((e) => e[1]);
        const mine = events.find((e) => e.kind === 'punched' && e.by === state.me.id);
        return {punch: mine.punch, damage: mine.damage, bluntedBy: mine.bluntedBy || null};""")


def when_shown(browser):
    """When the page's newest punch of this player came and when the frame that shows it began
    (`motion.landed`: performance.now(), ms, the clock of the rows' `t`); None from a page that
    does not note it (an older build's, measured for its kinds)."""
    if browser.js("return hitthat.motion.landed === undefined"):
        return None
    browser.wait("the hit drawn", lambda: browser.js(
        "return hitthat.motion.landed !== null && hitthat.motion.landed.drawn !== null"), 10)
    return browser.js("return hitthat.motion.landed")


def the_stop(trace, t):
    """The time of the stop's peak of the punch `detect` put at `t` in `trace` (g): the row within
    the strength window's half either side of it whose length is farthest from 1 g."""
    with open(trace) as file:
        rows = [[float(v) for v in line.split(",")] for line in list(file)[1:]]
    near = [r for r in rows if t - 0.125 <= r[0] <= t + 0.125] or rows
    return max(near, key=lambda r: abs(math.sqrt(r[1] ** 2 + r[2] ** 2 + r[3] ** 2) - 1))[0]


def swing_to_screen(holds):
    """Per landed hold whose page rows `detect` reads as the server did, ms from the stop's peak
    (as the page read it) to the `punched` event and to the frame that shows it."""
    came, drawn = [], []
    for h in holds:
        found, shown = h.get("detectOnPage"), h.get("shown")
        if not (h.get("landed") and found and shown and found["type"] == h["punch"]):
            continue
        stop = (h["pageOrigin"] + the_stop(h["pageSent"], found["t"])) * 1000
        came.append(round(shown["received"] - stop, 1))
        drawn.append(round(shown["drawn"] - stop, 1))
    return came, drawn


def into_a_fight(browser, opponent, options):
    """The page in a fight with the opponent, in a new quick match. No guard: the opponent's jabs
    from the meter take a few points a turn, and a hold that finds no punch keeps the turn."""
    opponent.open_room()
    join_quick_match(browser, options.opponent)
    browser.wait("the opponent present", lambda: "connected" in (browser.text("#presence") or ""))


def leave_the_fight(browser):
    browser.click("#leave")
    browser.wait("the lobby", lambda: browser.js("return !document.getElementById('lobby').hidden"), 30)


def play_case(options, port, opponent, user, trace, holds, sent_folder, log):
    """Signs `user` up in a new browser and swings each hold; fills each hold's outcome in."""
    player = argparse.Namespace(page=f"http://127.0.0.1:{port}/", user=user, password="correct horse",
                                chromedriver=options.chromedriver, chromium=options.chromium)
    browser = Browser(options.chromedriver, options.chromium)
    devtools = None
    fights = 0
    try:
        devtools, held, _ = sensor_test.sign_up_with_sensors(browser, player)
        set_location(browser)
        # Once: each call wraps WebSocket's send again, and would record every message twice.
        record_sent(browser)
        in_fight = False
        for index, hold in enumerate(holds):
            if not in_fight:
                into_a_fight(browser, opponent, options)
                in_fight, fights = True, fights + 1
            state = my_turn_or_the_end(browser)
            if state == "over":
                leave_the_fight(browser)
                into_a_fight(browser, opponent, options)
                fights += 1
                state = my_turn_or_the_end(browser)
            expect(state == "mine", f"no turn: {state}")
            browser.wait("PUNCH", lambda: browser.js(
                "return document.getElementById('punch').offsetParent !== null"), 10)
            try:
                result, batches, replayed = sensor_test.swing(browser, devtools, trace, hold["press"], hold["release"], held,
                                                             refused=True, press_at_start=True)
                held = replayed[-1]
                if result["landed"]:
                    result.update(the_last_punch(browser))
                    result["shown"] = when_shown(browser)
                rows, pressed = sensor_test.the_readings_behind(batches, replayed)
                path = os.path.join(sent_folder, f"{user}-{index}.csv")
                sensor_test.write_trace(path, rows)
                # The samples exactly as the page sent them (the server's input), in g and rad/s;
                # and how many rows' rotation rate is not their acceleration's reading's (Chromium's
                # event pairing the newest acceleration with an older rotation, under load).
                samples = [row for b in batches for row in b["samples"]]
                page_rows = [[r[0] - samples[0][0]] + [v / G for v in r[1:4]] + [math.radians(v) for v in r[4:7]]
                             for r in samples]
                page_path = os.path.join(sent_folder, f"{user}-{index}.page.csv")
                sensor_test.write_trace(page_path, page_rows)
                other = sum(1 for a, b in zip(page_rows, rows)
                            if max(abs(math.degrees(x - y)) for x, y in zip(a[4:7], b[4:7])) > 0.2)
                result.update({"sent": path, "pageSent": page_path, "pageOrigin": samples[0][0],
                               "pressedInSent": pressed, "rowsSent": len(rows),
                               "rotationNotTheReadings": other,
                               "sentSpan": rows[-1][0] - rows[0][0] if rows else 0})
                said = result.get("said") or ""
                if result["landed"] is False and not said.startswith("No punch found"):
                    result["error"] = said
            except Failure as error:
                result = {"landed": False, "error": str(error)}
                try:
                    browser.touch_up()
                except Exception:
                    pass
                # The page may be in any state: on with a fresh fight.
                try:
                    if my_turn_or_the_end(browser, seconds=30) == "over":
                        leave_the_fight(browser)
                        in_fight = False
                except Failure:
                    pass
            hold.update(result, order=index)
            print(f"  {user} hold {index + 1}/{len(holds)} at {hold['press']:.2f}: "
                  + (f"{hold['punch']} {hold['damage']}" if hold.get("landed") else hold.get("error") or hold.get("said", "")),
                  file=log, flush=True)
        # The fight under way forfeited, so that the opponent is in no fight but the next player's.
        if in_fight and my_turn_or_the_end(browser) != "over":
            browser.js("window.confirm = () => true")
            browser.click("#forfeit")
            browser.wait("the forfeit", lambda: my_turn_or_the_end(browser) == "over", 30)
    finally:
        if devtools:
            devtools.close()
        browser.quit()
    return fights


# MARK: - Figures

def share(part, whole):
    return f"{part}/{whole} = {part / whole:.3f}" if whole else f"{part}/0"


def quantiles(values):
    if not values:
        return "none"
    ordered = sorted(values)
    at = lambda q: ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]
    return f"median {statistics.median(ordered):g}, p10 {at(0.1):g}, p90 {at(0.9):g} (n={len(ordered)})"


def first_from(punches, t):
    return next((p for p in punches if p["t"] >= t - 1e-9), None)


def first_found(hitthat, trace, since):
    """The first punch `detect` finds in `trace` from `since` seconds on: its type, damage and
    time, or None."""
    punch = first_from(detect(hitthat, trace), since)
    return {"type": punch["type"], "damage": punch["damage"], "t": punch["t"]} if punch else None


def summarise(name, holds, hitthat, out):
    """The set's figures, printed to `out`; returns them."""
    real = [h for h in holds if h["truth"]]
    false_holds = [h for h in holds if not h["truth"]]
    landed = [h for h in real if h.get("landed")]
    right = [h for h in landed if h["punch"] == h["truth"]]
    found = [h for h in real if h.get("detected")]
    found_right = [h for h in found if h["detected"]["type"] == h["truth"]]
    # detect on the samples the page sent, from the press on: what the server's detector was given.
    on_sent = []
    for h in real:
        if h.get("sent"):
            h["detectOnSent"] = first_found(hitthat, h["sent"], h["pressedInSent"])
            on_sent.append(h)
    # detect on the same stretch cut from the recording (its own rate and precision, no page): what
    # the window alone does, apart from the page's sampling.
    cut_folder = os.path.join(os.path.dirname(os.path.dirname(holds[0]["trace"])), "cut") if holds else None
    for number, h in enumerate(real):
        begin = max(0.0, h["press"] - sensor_test.LEAD)
        with open(h["trace"]) as file:
            rows = [[float(v) for v in line.split(",")] for line in list(file)[1:]]
        rows = [[r[0] - begin] + r[1:] for r in rows if begin <= r[0] <= h["release"]]
        os.makedirs(cut_folder, exist_ok=True)
        path = os.path.join(cut_folder, f"{name}-{h['case']}-{number}.csv")
        sensor_test.write_trace(path, rows)
        h["detectOnCut"] = first_found(hitthat, path, h["press"] - begin)
    cut_found = [h for h in real if h.get("detectOnCut")]
    cut_right = [h for h in cut_found if h["detectOnCut"]["type"] == h["truth"]]
    as_sent = []
    for h in real:
        if h.get("pageSent"):
            h["detectOnPage"] = first_found(hitthat, h["pageSent"], h["pressedInSent"])
            as_sent.append(h)
    server_kind = lambda h: h.get("punch") if h.get("landed") else None
    agree_as_sent = [h for h in as_sent if (h["detectOnPage"] or {}).get("type") == server_kind(h)]
    page_right = [h for h in as_sent if (h["detectOnPage"] or {}).get("type") == h["truth"]]
    other_rows = sum(h.get("rotationNotTheReadings", 0) for h in real)
    all_rows = sum(h.get("rowsSent", 0) for h in real)
    agree = [h for h in on_sent if (h["detectOnSent"] or {}).get("type") == (h.get("punch") if h.get("landed") else None)]
    errors = [h for h in holds if h.get("error")]
    figures = {
        "set": name, "holds": len(real), "landed": len(landed), "landedRightKind": len(right),
        "detectFound": len(found), "detectRightKind": len(found_right),
        "damageLanded": [h["damage"] for h in landed], "damageLandedUnblunted": [
            h["damage"] * (2 if h.get("bluntedBy") else 1) for h in landed],
        "detectDamageSameHolds": [h["detected"]["damage"] for h in landed if h.get("detected")],
        "detectDamageAll": [h["detected"]["damage"] for h in found],
        "cutFound": len(cut_found), "cutRightKind": len(cut_right),
        "falseHolds": len(false_holds), "falseLanded": sum(1 for h in false_holds if h.get("landed")),
        "serverAgreesWithDetectOnSent": len(agree), "checkedOnSent": len(on_sent),
        "serverAgreesWithDetectAsSent": len(agree_as_sent), "detectAsSentRightKind": len(page_right),
        "rowsRotationNotTheReadings": other_rows, "rows": all_rows,
        "stopToPunchedMs": swing_to_screen(real)[0], "stopToScreenMs": swing_to_screen(real)[1],
        "errors": [{"case": h["case"], "press": h["press"], "error": h["error"]} for h in errors],
    }
    p = lambda *a: print(*a, file=out)
    p(f"== {name}: {len(real)} holds thrown over {len({h['case'] for h in real})} cases")
    p(f"  server: a punch landed   {share(len(landed), len(real))}")
    p(f"  server: the truth's kind {share(len(right), len(real))}  (of those landed: {share(len(right), len(landed))})")
    p(f"  detect (whole export, window +-{TOLERANCE} s): found {share(len(found), len(real))}, "
      f"the truth's kind {share(len(found_right), len(real))}")
    p(f"  detect on the hold's stretch cut from the recording (lead-in and hold, no page): found "
      f"{share(len(cut_found), len(real))}, the truth's kind {share(len(cut_right), len(real))}")
    p(f"  landed damage:  {quantiles(figures['damageLanded'])}"
      + (f"; blunted by a guard: {sum(1 for h in landed if h.get('bluntedBy'))}" if any(h.get('bluntedBy') for h in landed) else ""))
    p(f"    a player's first 3 holds: {quantiles([h['damage'] for h in landed if h['order'] < 3])}; "
      f"the later ones: {quantiles([h['damage'] for h in landed if h['order'] >= 3])}")
    p(f"  detect's damage, same punches: {quantiles(figures['detectDamageSameHolds'])}")
    p(f"  detect on the samples exactly as the page sent them agrees with the server (kind or none): "
      f"{share(len(agree_as_sent), len(as_sent))}; the truth's kind {share(len(page_right), len(as_sent))}")
    p(f"  detect on the readings behind the page's rows (its times, each row's acceleration's reading, rotation "
      f"as set) agrees with the server: {share(len(agree), len(on_sent))}; rows whose rotation was not their "
      f"acceleration's reading's: {share(other_rows, all_rows)}")
    p(f"  swing to screen, ms from the stop's peak as the page read it: to `punched` "
      f"{quantiles(figures['stopToPunchedMs'])}; to the frame that shows it {quantiles(figures['stopToScreenMs'])}")
    kinds = {}
    for h in real:
        key = (h["truth"], h.get("punch") if h.get("landed") else "-", (h.get("detectOnCut") or {}).get("type", "-"),
               (h.get("detected") or {}).get("type", "-"))
        kinds[key] = kinds.get(key, 0) + 1
    p("  truth -> server / detect on the stretch / detect on the whole: "
      + ", ".join(f"{t}->{s}/{c}/{d} x{n}" for (t, s, c, d), n in sorted(kinds.items())))
    if false_holds:
        p(f"  no-punch recordings: {figures['falseLanded']} of {len(false_holds)} holds landed a punch")
    p(f"  refused or failed holds: {len(errors)}")
    for h in errors:
        p(f"    {h['case']} at {h['press']:.2f} s: {h['error']}")
    return figures


# MARK: - Main

def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hitthat", default=os.path.join(here, ".build/release/hitthat"))
    parser.add_argument("--recordings", default=os.path.join(here, "../shared/recordings/motion"))
    parser.add_argument("--work", default="/tmp/replay", help="converted traces and results (never the repository)")
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--cases", nargs="+", help="only these cases (their names, e.g. all_left practice_jab)")
    parser.add_argument("--max-holds", type=int, default=60, help="holds a set at most, spread over its cases")
    parser.add_argument("--nopunch-holds", type=int, default=5, help="holds in each no-punch recording")
    parser.add_argument("--before", type=float, default=1.0, help="practice: PUNCH down this long before the punch")
    parser.add_argument("--after", type=float, default=0.5, help="practice: PUNCH up this long after it")
    parser.add_argument("--lead", type=float, default=2.25,
                        help="motion replayed before PUNCH goes down (sensor_test.LEAD): past the page's "
                             "2 s lead-in, so that all of it is the recording's")
    parser.add_argument("--pairing", choices=("interpolate", "nearest"), default="interpolate",
                        help="phyphox: the gyroscope's rate at an acceleration row's time")
    parser.add_argument("--check-only", action="store_true", help="convert and compare detect, throw nothing")
    parser.add_argument("--opponent", default="bob")
    parser.add_argument("--opponent-sensor", help="a trace the opponent swings (default: jabs from the meter)")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    options = parser.parse_args()
    sensor_test.LEAD = options.lead
    if not os.path.isdir(options.recordings):
        # The recordings are the team's, not the project's: without them there is nothing to do.
        print(f"page replay: no recordings at {options.recordings}: skipped")
        return
    work = os.path.abspath(options.work)
    expect(not work.startswith(here + os.sep), "--work must be outside the repository (the recordings have no licence)")
    for sub in ("traces", "sent", "logs"):
        os.makedirs(os.path.join(work, sub), exist_ok=True)

    plan = {}
    print("conversion: detect on the export against detect on the converted trace "
          "(punches at the same time within 0.05 s; of them, the same kind)")
    for name in options.sets:
        plan[name] = []
        for case, folder, truth in cases(options.recordings, name):
            if options.cases and case not in options.cases:
                continue
            rows = convert(folder, options.pairing)
            trace = os.path.join(work, "traces", f"{name}-{case}.csv")
            write_trace(trace, rows)
            on_export, on_trace = detect(options.hitthat, folder), detect(options.hitthat, trace)
            same_time, same_kind = compare_detections(on_export, on_trace)
            back_time, _ = compare_detections(on_trace, on_export)
            damage_same = sum(1 for a, b in zip(on_export, on_trace) if a["damage"] == b["damage"])
            print(f"  {name}/{case}: export {len(on_export)} punches, trace {len(on_trace)}; "
                  f"{same_time} at the same time, {same_kind} of the same kind, {back_time} back; "
                  f"damage equal pairwise {damage_same}/{min(len(on_export), len(on_trace))}; "
                  f"{len(rows)} rows, {rows[-1][0]:.1f} s")
            plan[name].append({"case": case, "trace": trace, "truth": truth, "detected": on_export,
                               "duration": rows[-1][0]})
    if options.check_only:
        return

    # The holds, at most --max-holds a set spread over its cases (round robin), plus the no-punch ones.
    for name, entries in plan.items():
        per_case = {}
        for entry in entries:
            holds = holds_of(entry["case"], entry["truth"], entry["detected"], entry["duration"], options)
            for hold in holds:
                hold["case"], hold["trace"] = entry["case"], entry["trace"]
                if hold["window"]:
                    hold["detected"] = detect_in_window(entry["detected"], hold["window"])
            per_case[entry["case"]] = holds
        real_cases = [c for c, h in per_case.items() if h and h[0]["truth"]]
        quota = {c: 0 for c in real_cases}
        left = options.max_holds
        while left > 0 and any(quota[c] < len(per_case[c]) for c in real_cases):
            for c in real_cases:
                if left > 0 and quota[c] < len(per_case[c]):
                    quota[c] += 1
                    left -= 1
        for entry in entries:
            holds = per_case[entry["case"]]
            entry["holds"] = spread(holds, quota[entry["case"]]) if entry["case"] in quota else holds
        total = sum(len(per_case[c]) for c in real_cases)
        print(f"{name}: {sum(quota.values())} of {total} punches thrown"
              + (" (a sample, spread over the cases)" if sum(quota.values()) < total else ""))

    server, port = serve(options.hitthat, work)
    opponent = Opponent(options.hitthat, port, options.opponent, options.opponent_sensor,
                        os.path.join(work, "logs", "opponent.log"))
    results = {"port": port, "sets": {}}
    try:
        for name, entries in plan.items():
            for number, entry in enumerate(entries):
                if not entry["holds"]:
                    continue
                user = f"{name[:4]}{number}_{int(time.time()) % 100000}".replace("-", "")
                print(f"{name}/{entry['case']}: {len(entry['holds'])} holds as {user}", flush=True)
                started = time.time()
                try:
                    entry["fights"] = play_case(options, port, opponent, user, entry["trace"], entry["holds"],
                                                os.path.join(work, "sent"), sys.stdout)
                except Failure as error:
                    print(f"  {entry['case']}: stopped: {error}", flush=True)
                    for hold in entry["holds"]:
                        hold.setdefault("landed", False)
                        hold.setdefault("error", f"not thrown: the case stopped: {error}")
                print(f"  {time.time() - started:.0f} s, {entry.get('fights', 0)} fights", flush=True)
    finally:
        opponent.stop()
        server.terminate()
        server.wait(30)

    for name, entries in plan.items():
        holds = [h for entry in entries for h in entry["holds"]]
        if not holds:
            continue
        results["sets"][name] = {"figures": summarise(name, holds, options.hitthat, sys.stdout), "holds": holds}
    with open(os.path.join(work, "results.json"), "w") as file:
        json.dump(results, file, indent=1, default=str)
    print(f"results: {os.path.join(work, 'results.json')}")


if __name__ == "__main__":
    try:
        main()
    except Failure as error:
        print(f"page replay: {error}", file=sys.stderr)
        sys.exit(1)
