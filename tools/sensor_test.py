#!/usr/bin/env python3
"""Swings thrown through the page the way a phone delivers them: headless Chromium's virtual
sensors, driven over DevTools, make the browser fire genuine `devicemotion` events into the page's
own listener; no event is built by hand.

DevTools' `Emulation.setSensorOverrideEnabled` puts a virtual `accelerometer`,
`linear-acceleration` and `gyroscope` in place of the device's, and
`Emulation.setSensorOverrideReadings` sets what they read: the accelerometer in m/s², gravity
included, and the gyroscope in rad/s, both about the device's x, y and z. Chromium turns them into
`devicemotion`'s `accelerationIncludingGravity` (m/s²) and `rotationRate` (°/s, `alpha` about x,
`beta` about y, `gamma` about z), read at its own pace (about 60 Hz) and rounded (0.1 m/s², 0.1 °/s).

A new player signs up, joins the opponent's quick-match room (the opponent must be waiting near
48.8566, 2.3522, e.g. `hitthat play --script --at 48.8566,2.3522` that sent `quick`) and, in their
turns, swings each `--swing START,END,NAME` window of the trace (a `t,x,y,z,gx,gy,gz` trace in g
and rad/s) in order: the readings replayed at the trace's own pace, PUNCH held by a touch from
`LEAD` s into them until the punch lands or the window ends. The readings are set over a DevTools
connection of the tool's own (one WebSocket, commands sent back to back), so that a reading's three
sensors change together and the replay keeps the trace's pace; a replay that falls behind skips to
the reading due rather than slowing the swing.

For each swing it writes NAME.csv in `--out`: the samples the page sent, at the page's times, with
the readings they came from in the device's frame (each row's acceleration is one reading's,
which tells which; the rotation rate is that reading's as set, whatever the page made of it), in
g and rad/s for `hitthat detect`. It prints one JSON line: for each swing, what the server decided
(`punch` "kind damage" when it landed, else what the page said), when PUNCH went down (`pressed`,
seconds from the file's first row) and the rows sent. Exits 1 with the reason on any failure.

Usage: tools/sensor_test.py --page http://127.0.0.1:8080/ --user carol --opponent bob \\
         --trace gyro.csv --swing 10.2,10.9,jab --swing 14.1,14.8,hook --out folder
"""
import base64, json, math, os, socket, struct, sys, threading, time, urllib.parse, urllib.request

from browser_test import (G, Browser, Failure, check_batches, enable_motion, expect, join_quick_match, judged,
                          my_punch, my_turn_or_the_end, player_arguments, read_trace, record_sent, register,
                          report, set_location)

LEAD = 1.5
"""Seconds of motion replayed before PUNCH is pressed: the page sends them as the hold's lead-in."""
SENSORS = ("accelerometer", "linear-acceleration", "gyroscope")
ACCELERATION_STEP = 0.1
"""Chromium rounds what a page reads of a motion sensor: m/s² to a tenth."""
ROTATION_STEP = math.radians(0.1)
"""... and the rotation rate to a tenth of a °/s."""
GRAVITY_SECONDS = 0.5
"""The time constant of the low-pass that takes gravity out for `linear-acceleration`, as phones do."""


# MARK: - DevTools over a WebSocket of its own (RFC 6455, the standard library only)

class DevTools:
    def __init__(self, address):
        """Connects to the first page target of the Chromium serving DevTools at `address`."""
        with urllib.request.urlopen(f"http://{address}/json/list", timeout=30) as response:
            targets = json.loads(response.read())
        page = next((t for t in targets if t.get("type") == "page"), None)
        expect(page, f"no page target at {address}: {targets}")
        url = urllib.parse.urlparse(page["webSocketDebuggerUrl"])
        self.socket = socket.create_connection((url.hostname, url.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.socket.sendall((f"GET {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\n"
                             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                            .encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.socket.recv(4096)
            expect(chunk, "DevTools closed the connection during its handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        expect(head.startswith(b"HTTP/1.1 101"), f"DevTools refused the WebSocket: {head[:200]!r}")
        self.last = 0

    def send(self, method, params):
        """Sends a command without waiting for its answer; returns its id."""
        self.last += 1
        payload = json.dumps({"id": self.last, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        size = len(payload)
        # A client's frames are masked: FIN and text, then the length in 7, 16 or 64 bits.
        head = bytes([0x81]) + (bytes([0x80 | size]) if size < 126 else
                                struct.pack("!BH", 0x80 | 126, size) if size < 1 << 16 else
                                struct.pack("!BQ", 0x80 | 127, size))
        self.socket.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        return self.last

    def _read(self, count):
        while len(self.buffer) < count:
            chunk = self.socket.recv(65536)
            expect(chunk, "DevTools closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def answers_up_to(self, last):
        """Reads answers until command `last`'s, failing on any error among them."""
        while True:
            first, second = self._read(2)
            size = second & 0x7F
            if size == 126:
                size = struct.unpack("!H", self._read(2))[0]
            elif size == 127:
                size = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(size)
            if first & 0x0F != 0x1:
                continue  # a ping or a continuation DevTools does not send a client that asked nothing
            message = json.loads(payload)
            expect("error" not in message, f"DevTools: {message}")
            if message.get("id") == last:
                return message.get("result")

    def call(self, method, params):
        return self.answers_up_to(self.send(method, params))

    def close(self):
        self.socket.close()


# MARK: - Readings

def readings(rows):
    """The trace's rows as `read_trace` gives them (t from the window's start, m/s², °/s) as the
    virtual sensors' readings: (t, accelerometer m/s², linear acceleration m/s², gyroscope rad/s),
    each on the grid Chromium rounds to, so that what the page reads is what was set."""
    on = lambda value, step: round(value / step) * step
    gravity = None
    previous = None
    out = []
    for row in rows:
        t, a = row[0], row[1:4]
        gravity = a if gravity is None else [
            g + (v - g) * min(1.0, (t - previous) / GRAVITY_SECONDS) for g, v in zip(gravity, a)]
        previous = t
        out.append((t, [on(v, ACCELERATION_STEP) for v in a], [on(v - g, ACCELERATION_STEP) for v, g in zip(a, gravity)],
                    [on(math.radians(v), ROTATION_STEP) for v in row[4:7]]))
    return out


def set_reading(devtools, reading):
    """Sets the three sensors to one reading, back to back, and waits until DevTools took them."""
    _, accelerometer, linear, gyroscope = reading
    last = None
    for sensor, values in zip(SENSORS, (accelerometer, linear, gyroscope)):
        last = devtools.send("Emulation.setSensorOverrideReadings", {
            "type": sensor, "reading": {"xyz": dict(zip("xyz", values))}})
    devtools.answers_up_to(last)


class Replay(threading.Thread):
    """Sets the readings at their own times from now; `at` is the newest set, `done` once all were."""

    def __init__(self, devtools, readings):
        super().__init__(daemon=True)
        self.devtools, self.readings = devtools, readings
        self.at, self.done, self.failure = -1.0, False, None

    def run(self):
        try:
            start = time.monotonic()
            index = 0
            while index < len(self.readings):
                wait = self.readings[index][0] - (time.monotonic() - start)
                if wait > 0:
                    time.sleep(wait)
                # Behind (a busy machine): on to the reading due now, keeping the swing's pace.
                elapsed = time.monotonic() - start
                while index + 1 < len(self.readings) and self.readings[index + 1][0] <= elapsed:
                    index += 1
                set_reading(self.devtools, self.readings[index])
                self.at = self.readings[index][0]
                index += 1
        except Exception as error:  # reported by the thread that waits on it
            self.failure = error
        self.done = True


# MARK: - A swing

def swing(browser, devtools, trace, start, end, held, refused=False, press_at_start=False):
    """One window of the trace swung, PUNCH held from `LEAD` s into it; `held` is the reading the
    sensors have until then. Returns what the server decided, the page's motion messages and the
    readings they were made from (`held` first). With `refused`, a hold the page says was refused
    is an outcome (`said`), not a wait that times out. PUNCH goes down `LEAD` s into the replay, or
    halfway through it if that comes first; with `press_at_start`, at `start` in the trace whatever
    the window's length."""
    begin = max(0.0, start - LEAD)
    rows, _ = read_trace(trace, begin, end)
    expect(len(rows[0]) == 7, f"{trace}: a swing needs a gyroscope (gx, gy, gz in rad/s)")
    replayed = readings(rows)
    seq = browser.js("return hitthat.state.seen.get(hitthat.state.current)")
    sent = browser.js("return window.__sent.length")
    replay = Replay(devtools, replayed)
    replay.start()
    # PUNCH goes down once the replay has reached the press (watched, not timed: a loaded machine).
    press = start - begin if press_at_start else min(LEAD, rows[-1][0] / 2)
    browser.wait("the lead-in replayed", lambda: replay.at >= press or replay.done, 30)
    browser.touch_down("#punch")
    browser.wait("the punch to land or the replay's end", lambda: replay.done or browser.js(
        "return hitthat.state.seen.get(hitthat.state.current) > arguments[0]", seq), 60)
    browser.touch_up()
    replay.join(60)
    if replay.failure:
        raise replay.failure
    said = judged(browser, seq, refused)
    batches = [m for m in browser.js("return window.__sent.slice(arguments[0])", sent) if m["type"] == "motion"]
    # As the page had them (m/s² and °/s, the rotation about x, y, z); the lead-in may begin with
    # what the sensors held before the replay, given at the replay's end so as not to lengthen it.
    as_read = lambda t, reading: [t] + reading[1] + [math.degrees(v) for v in reading[3]]
    given = [as_read(reading[0], reading) for reading in replayed] + [as_read(replayed[-1][0], held)]
    # PUNCH comes up at the replay's end unless the punch landed first: a hold the page did not end
    # with a final batch is one whose punch landed.
    released = bool(batches) and batches[-1]["final"]
    expect(released or said == "landed", f"a hold neither released nor landed: {said}")
    check_batches(batches, given, seq, released=released, gyroscope=True,
                  turning=any(abs(v) > 57.3 for row in given for v in row[4:7]))
    result = {"landed": said == "landed", "batches": len(batches)}
    if result["landed"]:
        result["punch"] = my_punch(browser)
    else:
        result["said"] = said
    return result, batches, [held] + replayed


def the_readings_behind(batches, replayed):
    """The page's rows at its own times, each with the reading it came from: the first one, from
    the last matched on, whose acceleration it has (a reading's three sensors are set back to back).
    The rotation rate is the reading's as set, in the device's frame: what a page that maps
    `rotationRate` rightly sends. Returns the rows (g, rad/s) and when PUNCH went down, in seconds
    from the first."""
    samples = [row for b in batches for row in b["samples"]]
    matched, index = [], 0
    for row in samples:
        same = lambda reading: all(abs(a - b) < ACCELERATION_STEP / 4 for a, b in zip(row[1:4], reading[1]))
        found = next((i for i in range(index, len(replayed)) if same(replayed[i])), None)
        expect(found is not None, f"a row the page sent that no reading made: {row}")
        index = found
        matched.append([row[0] - samples[0][0]] + [v / G for v in replayed[found][1]] + replayed[found][3])
    expect(matched, "no row the page sent came from the readings")
    pressed = batches[0]["pressed"] - samples[0][0]
    return matched, pressed


def write_trace(path, rows):
    """`rows` as a trace `hitthat detect` reads: t, then g and rad/s."""
    with open(path, "w") as file:
        file.write("t,x (g),y (g),z (g),gx (rad/s),gy (rad/s),gz (rad/s)\n")
        for row in rows:
            file.write(",".join(f"{v:.9f}" for v in row) + "\n")


# MARK: - The player

def sign_up_with_sensors(browser, options):
    """Puts the virtual sensors in place of the device's, reading a phone lying still, before the page
    looks for them; opens the page and signs `options.user` up, and taps Enable motion. Returns the
    DevTools connection, the reading the sensors hold and what the page says of motion."""
    expect(browser.debugger, "chromedriver did not say where Chromium serves DevTools")
    devtools = DevTools(browser.debugger)
    for sensor in SENSORS:
        devtools.call("Emulation.setSensorOverrideEnabled", {"enabled": True, "type": sensor,
                                                             "metadata": {"available": True}})
    held = (0, [0, 9.8, 0], [0, 0, 0], [0, 0, 0])
    set_reading(devtools, held)
    browser.open(options.page)
    browser.wait("the sign-in screen", lambda: browser.js("return !document.getElementById('signin').hidden"))
    browser.type("#username", options.user)
    browser.type("#password", options.password)
    register(browser, options.user)
    status = enable_motion(browser)
    expect(status.startswith("Motion: ready"), f"the page found no motion: {status!r}")
    return devtools, held, status


# MARK: - The fight

def main():
    parser = player_arguments()
    parser.add_argument("--trace", required=True, help="a t,x,y,z,gx,gy,gz trace (g, rad/s)")
    parser.add_argument("--swing", action="append", required=True, metavar="START,END,NAME",
                        help="a window of the trace to swing, in seconds, and the name of its file")
    parser.add_argument("--out", required=True, help="the folder for each swing's NAME.csv")
    options = parser.parse_args()
    swings = []
    for text in options.swing:
        start, end, name = text.split(",")
        swings.append((float(start), float(end), name))

    outcome = {"swings": []}

    def fight(browser, devtools, held):
        set_location(browser)
        join_quick_match(browser, options.opponent)
        browser.wait("the opponent present", lambda: "connected" in (browser.text("#presence") or ""))
        # A high guard halves the opponent's jabs and hooks: the page's turns last for every swing.
        browser.click("#switch-guard")
        browser.wait("a high guard", lambda: browser.text("#guard") == "high")
        record_sent(browser)
        for start, end, name in swings:
            state = my_turn_or_the_end(browser)
            expect(state == "mine", f"the fight ended before the swing {name}")
            browser.wait("PUNCH", lambda: browser.js("return document.getElementById('punch').offsetParent !== null"), 10)
            result, batches, replayed = swing(browser, devtools, options.trace, start, end, held)
            held = replayed[-1]
            rows, pressed = the_readings_behind(batches, replayed)
            path = os.path.join(options.out, f"{name}.csv")
            write_trace(path, rows)
            result.update({"name": name, "file": path, "pressed": pressed, "rows": len(rows)})
            outcome["swings"].append(result)

    run_with_sensors("sensor test", options, outcome, fight)


def run_with_sensors(name, options, outcome, play):
    """Runs `play(browser, devtools, held)` for `options.user`, signed up with the virtual sensors in
    place (`sign_up_with_sensors`), as it fills `outcome` in; then prints `outcome` as one JSON
    line, or exits 1 with the reason, said as `name`'s."""
    browser = Browser(options.chromedriver, options.chromium)
    devtools = None
    failure = None
    try:
        devtools, held, outcome["motionStatus"] = sign_up_with_sensors(browser, options)
        play(browser, devtools, held)
    except Failure as error:
        failure = error
    finally:
        if devtools:
            devtools.close()
        browser.quit()
    report(name, failure, outcome)

if __name__ == "__main__":
    main()
