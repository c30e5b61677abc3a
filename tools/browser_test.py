#!/usr/bin/env python3
"""The page `hitthat serve` serves, played in a real browser: headless Chromium at a phone's size,
driven over WebDriver (chromedriver's HTTP JSON API, with Python's standard library only).

A new player signs up, sets a location, looks at the versus card (the opponent must be waiting
near 48.8566, 2.3522 in a quick-match room, e.g. `hitthat play --script --at 48.8566,2.3522` that
sent `quick`), joins the opponent's room and fights to the end. Its first turn is a swing: `devicemotion` events
replayed from a trace around its first labelled punch, and a touch holding PUNCH from 1.5 s into
them. The page must send them as PROTOCOL.md's `motion` (rows `[t, ax, ay, az, gx, gy, gz]` in m/s²
and °/s, at most 64 a batch, at most 200 Hz, one `hold` number, the motion before the press as the
lead-in with `pressed`, `final` on release unless the punch landed first), and the server's answer
must come: the punch landed (`punched` by the page) or none found (`holdEnded`); the outcome is
printed for the caller to hold against `hitthat detect` on the same samples (written to
`--window-out`; `pressed` is when PUNCH went down, in seconds from their first). Every other turn of the page's is thrown with the power meter
(`windUp`, then `punch` stopped in the green), chosen with the page's own switch; on the second,
the connection is dropped as the punch is thrown.

At each screen (sign-in, versus, fight, the end) it checks by the DOM that what a player needs is
there and visible, that nothing is wider than the phone, that every visible button is a thumb's
size, and saves a screenshot. Prints one JSON line with what it saw; exits 1 with the reason on
any failure.

Usage: tools/browser_test.py --page http://127.0.0.1:8080/ --user carol --opponent bob \\
         --trace gyro.csv --screenshots .build/screenshots [--window-out swing.csv]
"""
import argparse, base64, csv, json, math, os, re, socket, subprocess, sys, time, urllib.error, urllib.request

import contrast

PHONE = {"width": 390, "height": 844, "pixelRatio": 2}
G = 9.80665


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


# MARK: - WebDriver (W3C, over chromedriver's HTTP JSON API)

class Browser:
    def __init__(self, chromedriver, chromium, extra_args=()):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.driver = subprocess.Popen(
            [chromedriver, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 30
        while True:
            try:
                if self.call("GET", "/status")["ready"]:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            expect(time.time() < deadline, "chromedriver did not start")
            time.sleep(0.1)
        options = {
            "binary": chromium,
            # As root (CI), Chromium runs only without its sandbox; /dev/shm may be small in a container.
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={PHONE['width']},{PHONE['height']}", "--hide-scrollbars", *extra_args],
            "mobileEmulation": {
                "deviceMetrics": dict(PHONE, touch=True, mobile=True),
                "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                             "Chrome/120.0 Mobile Safari/537.36",
            },
        }
        answer = self.call("POST", "/session", {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}})
        self.session = f"/session/{answer['sessionId']}"
        # Where Chromium serves DevTools ("localhost:PORT"), for a connection of one's own.
        self.debugger = answer["capabilities"].get("goog:chromeOptions", {}).get("debuggerAddress")

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as error:
            raise Failure(f"WebDriver {method} {path}: {error.read().decode()[:500]}")

    def do(self, method, path, body=None):
        return self.call(method, self.session + path, body)

    def js(self, script, *args):
        return self.do("POST", "/execute/sync", {"script": script, "args": list(args)})

    def open(self, url):
        self.do("POST", "/url", {"url": url})

    def find(self, css):
        found = self.do("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(found.values()))

    def click(self, css):
        self.wait(f"{css} to be visible and enabled", lambda: self.js(
            "const e = document.querySelector(arguments[0]);"
            "return !!e && e.offsetParent !== null && !e.disabled;", css))
        self.do("POST", f"/element/{self.find(css)}/click", {})

    def type(self, css, text):
        element = self.find(css)
        self.do("POST", f"/element/{element}/clear", {})
        self.do("POST", f"/element/{element}/value", {"text": text})

    def text(self, css):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", css)

    def wait(self, what, condition, seconds=60):
        deadline = time.time() + seconds
        while True:
            value = condition()
            if value:
                return value
            if time.time() > deadline:
                raise Failure(f"timed out waiting for {what}; the page says: "
                              f"{self.js('return document.body.innerText')[:800]!r}")
            time.sleep(0.05)

    def screenshot(self, path):
        with open(path, "wb") as file:
            file.write(base64.b64decode(self.do("GET", "/screenshot")))

    def touch_down(self, css):
        """Puts a finger on the element and leaves it there (WebDriver actions: a touch pointer,
        whose state lasts until `touch_up`)."""
        origin = {"element-6066-11e4-a52e-4f735466cecf": self.find(css)}
        self.do("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "finger", "parameters": {"pointerType": "touch"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": origin, "x": 0, "y": 0},
                {"type": "pointerDown", "button": 0},
            ]}]})

    def touch_up(self):
        """Lifts the finger `touch_down` put down: releasing the actions lifts what is down."""
        self.do("DELETE", "/actions")

    def quit(self):
        try:
            self.do("DELETE", "")
        except Exception:
            pass
        self.driver.terminate()
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
            self.driver.wait()


# MARK: - What a player needs on each screen

def check_screen(browser, screen, selectors):
    """Each selector visible, the page no wider than the phone, every visible button a thumb's size."""
    report = browser.js("""
        const [screen, selectors] = arguments;
        const visible = (e) => !!e && e.offsetParent !== null && e.getBoundingClientRect().width > 0;
        const missing = selectors.filter((s) => !visible(document.querySelector(s)));
        const small = [...document.querySelectorAll('#' + screen + ' button, header button')]
          .filter(visible).filter((b) => b.getBoundingClientRect().height < 40)
          .map((b) => b.id || b.textContent);
        return {missing, small, width: document.documentElement.scrollWidth};
    """, screen, selectors)
    expect(not report["missing"], f"{screen}: not visible: {report['missing']}; the page says: "
                                  f"{browser.js('return document.body.innerText')[:600]!r}")
    expect(not report["small"], f"{screen}: buttons under 40 px high: {report['small']}")
    expect(report["width"] <= PHONE["width"], f"{screen}: {report['width']} px wide, wider than the phone")


IN_THE_GREEN = """
// The needle within a quarter of the kind's half-width of its sweet spot, on the meter the server
// answered the wind-up with, and the hint saying so.
const meter = hitthat.meter, shape = meter.shape, spot = shape && shape[meter.kind];
const level = Number(document.querySelector('#meter .needle').dataset.level);
return !!spot && Math.abs(level - spot.level) < spot.halfWidth / 4
  && document.getElementById('meter-hint').textContent.startsWith('In the green');
"""


def check_contrast(browser, where):
    """Every visible text of the page as it is now meets WCAG AA, in the light and the dark theme
    (tools/contrast.py); returns how many texts were measured in each."""
    counts = {}
    for theme, report in contrast.measure(browser).items():
        expect(report["checked"] > 0, f"{where}: no text measured")
        expect(not report["failures"], f"{where}, {theme} theme: below WCAG AA: {report['failures']}")
        counts[theme] = report["checked"]
    return counts


# MARK: - Motion from a trace

def read_trace(path, start, end):
    """Rows of a `t,x,y,z[,gx,gy,gz]` trace between two times, as a phone's browser reports them:
    acceleration with gravity in m/s² (the trace's g × 9.80665), the rotation rate in °/s (rad/s
    converted), time from the window's start in s."""
    rows = []
    with open(path) as file:
        reader = csv.reader(file)
        header = [name.strip() for name in next(reader)]
        names = [name.split(" ")[0] for name in header]
        expect(names[:4] == ["t", "x", "y", "z"], f"{path}: expected t,x,y,z, got {header}")
        gyro = names[4:7] == ["gx", "gy", "gz"] and all("rad/s" in name for name in header[4:7])
        for record in reader:
            t = float(record[0])
            if t < start or t > end:
                continue
            row = [t - start] + [float(v) * G for v in record[1:4]]
            if gyro:
                row += [math.degrees(float(v)) for v in record[4:7]]
            rows.append(row)
    expect(rows, f"{path}: no samples between {start} and {end} s")
    return rows, header


def first_punch_window(labels):
    with open(labels) as file:
        reader = csv.DictReader(file)
        first = next(reader)
    return float(first["start"]) - 1.0, float(first["end"]) + 0.6


REPLAY = """
// Dispatches the rows as devicemotion events at their own times from now (the page reads
// event.timeStamp), as a phone's sensor would deliver them.
const rows = arguments[0];
window.__replayDone = false;
window.__replayAt = -1;
const start = performance.now();
window.__replayStart = start / 1000;
let next = 0;
function tick() {
  const elapsed = (performance.now() - start) / 1000;
  while (next < rows.length && rows[next][0] <= elapsed) {
    const r = rows[next++];
    const init = {accelerationIncludingGravity: {x: r[1], y: r[2], z: r[3]}, interval: 10};
    if (r.length >= 7) init.rotationRate = {alpha: r[4], beta: r[5], gamma: r[6]};
    window.dispatchEvent(new DeviceMotionEvent('devicemotion', init));
    window.__replayAt = r[0];
    // One event per tick at most, so that each has its own timeStamp.
    break;
  }
  if (next < rows.length) setTimeout(tick, 1); else window.__replayDone = true;
}
tick();
"""


# MARK: - The fight

def player_arguments():
    """The options of a player in the browser against an opponent: the page, who signs up, the browser."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--page", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", default="correct horse")
    parser.add_argument("--opponent", required=True, help="the opponent's display name")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    return parser


def main():
    parser = player_arguments()
    parser.add_argument("--trace", required=True, help="a t,x,y,z,gx,gy,gz trace (g, rad/s) with NAME.labels.csv")
    parser.add_argument("--window-out", help="write the swing's samples as sent (t,x,y,z,gx,gy,gz in g and rad/s) here")
    parser.add_argument("--screenshots", required=True)
    options = parser.parse_args()
    os.makedirs(options.screenshots, exist_ok=True)
    # A failure's shot from an earlier run is not this run's.
    if os.path.exists(os.path.join(options.screenshots, "failure.png")):
        os.remove(os.path.join(options.screenshots, "failure.png"))
    shot = lambda name: browser.screenshot(os.path.join(options.screenshots, name + ".png"))

    browser = Browser(options.chromedriver, options.chromium)
    outcome = {}
    failure = None
    try:
        # Sign-in
        browser.open(options.page)
        browser.wait("the sign-in screen", lambda: browser.js("return !document.getElementById('signin').hidden"))
        check_screen(browser, "signin", ["#username", "#password", "#login", "#register"])
        browser.type("#username", options.user)
        browser.type("#password", options.password)
        shot("1-sign-in")
        register(browser, options.user)

        # The lobby: where, then the versus card
        check_screen(browser, "lobby", ["#quick", "#next", "#locate", "#location-input", "#motion-status", "#logout"])
        expect(not browser.js("return document.getElementById('sound').checked"), "sound is off by default")
        outcome["motionStatus"] = enable_motion(browser)
        set_location(browser)
        browser.click("#next")
        browser.wait("the versus card", lambda: options.opponent in browser.text("#versus-body"))
        versus = browser.text("#versus-body")
        expect("km" in versus and "%" in versus, f"the versus card gives distance and odds: {versus!r}")
        check_screen(browser, "lobby", ["#versus-body .versus-name", "#versus-body .odds", "#challenge", "#next"])
        browser.js("document.getElementById('versus').scrollIntoView()")
        shot("2-versus")

        # Quick match: the opponent's room is joined, and the opponent throws first.
        browser.js("window.scrollTo(0, 0)")
        join_quick_match(browser, options.opponent)
        check_screen(browser, "fight", ["#me-side .stamina-bar", "#them-side .stamina-bar", "#turn", "#guard",
                                        "#switch-guard", "#forfeit", "#events li"])
        browser.wait("the opponent present", lambda: "connected" in (browser.text("#presence") or ""))
        browser.click("#switch-guard")
        browser.wait("a high guard", lambda: browser.text("#guard") == "high")

        record_sent(browser)
        turns, swung, shot_fight = 0, False, False
        while True:
            state = my_turn_or_the_end(browser)
            if state == "over":
                break
            expect(re.search(r"\d+ s (to punch|knocked down)", browser.text("#turn")), f"the turn's countdown: {browser.text('#turn')!r}")
            if not swung:
                swung = True
                outcome["swing"] = swing(browser, options, shot)
                if outcome["swing"].get("landed"):
                    continue
            if browser.js("return document.getElementById('motion-area').offsetParent !== null"):
                # Swings are judged here: the rest of the fight is thrown with the meter, by choice.
                browser.click("#punch-mode")
            check_screen(browser, "fight", ["#throw", "#meter", ".kinds button[data-kind='uppercut']"])
            browser.click(".kinds button[data-kind='jab']")
            browser.click("#throw")
            expect(browser.wait("THROW", lambda: browser.text("#throw") == "THROW", 10), "wound up")
            # Stopped near the sweet spot of the meter the server sent, where the green is brightest.
            in_green = lambda: browser.js(IN_THE_GREEN)
            browser.wait("the needle in the green", in_green, 10)
            if not shot_fight:
                # The fight as a player sees it at its busiest: a punch taken, the meter running.
                shot_fight = True
                shot("3-fight")
                outcome["contrastFight"] = check_contrast(browser, "the fight, the meter running")
                browser.wait("the needle in the green again", in_green, 10)
            before = browser.js("return hitthat.state.seen.get(hitthat.state.current)")
            if turns == 1:
                drop_the_connection(browser, outcome)
            else:
                browser.click("#throw")
            browser.wait("the punch to land", lambda: browser.js("return hitthat.state.seen.get(hitthat.state.current)") > before, 30)
            turns += 1

        ending = browser.text("#turn")
        check_screen(browser, "fight", ["#turn", "#rematch", "#leave", "#events li"])
        shot("4-ended")
        outcome["contrastEnded"] = check_contrast(browser, "the fight's end")
        # The same in the system's dark mode.
        browser.do("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia", "params": {
            "features": [{"name": "prefers-color-scheme", "value": "dark"}]}})
        expect(browser.js("return matchMedia('(prefers-color-scheme: dark)').matches"), "dark mode emulated")
        shot("5-ended-dark")
        fight = browser.js("return hitthat.state.fights.get(hitthat.state.current)")
        lines = browser.js("return [...document.querySelectorAll('#events li')].map((li) => li.textContent)")
        outcome.update({
            "ending": ending, "fight": fight, "log": lines, "meterTurns": turns,
            "sent": sorted({m["type"] for m in browser.js("return window.__sent")}),
        })
        browser.do("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia", "params": {"features": []}})
        # Back in the lobby, the record counts the fight.
        browser.click("#leave")
        record = browser.wait("the record to count the fight", lambda: (lambda t: t if "0 won · 0 lost" not in t else None)(
            browser.text("#me-record") or ""), 15)
        check_screen(browser, "lobby", ["#me-name", "#me-record", "#quick", "#next"])
        expect(options.opponent not in browser.text("#versus-body"), "the versus card from before the fight is gone")
        shot("6-lobby")
        outcome["record"] = record
    except Failure as error:
        failure = error
        try:
            shot("failure")
        except Exception:
            pass
    finally:
        browser.quit()
    report("browser test", failure, outcome)


def report(name, failure, outcome):
    """The end of a browser script: the failure's reason on stderr and exit 1, or the outcome as
    one JSON line for the Swift test that ran it."""
    if failure:
        print(f"{name}: {failure}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(outcome))


def register(browser, user):
    """Signs up with what the sign-in form holds, and waits for the lobby, connected."""
    browser.click("#register")
    browser.wait("the lobby", lambda: browser.js(
        "return !document.getElementById('lobby').hidden && document.getElementById('me-name').textContent === arguments[0]",
        user))
    browser.wait("the connection", lambda: browser.text("#connection") == "Connected")


def enable_motion(browser):
    """Taps Enable motion where the page asks for it and returns what the page then says of motion."""
    said = lambda: (lambda t: t if t and "looking" not in t else None)(browser.text("#motion-status"))
    # Chromium, as iOS Safari, asks for motion from a tap (DeviceMotionEvent.requestPermission).
    if "tap Enable motion" in browser.wait("the motion check", said):
        browser.click("#enable-motion")
        browser.wait("the tap to be taken", lambda: "tap Enable motion" not in browser.text("#motion-status"))
    return browser.wait("the motion check after the tap", said)


def set_location(browser, where="48.8566, 2.3522"):
    """Types the player's location in, near the opponent's quick-match room."""
    browser.type("#location-input", where)
    browser.click("#location-form button")
    browser.wait("the location", lambda: where.split(",")[0] in browser.text("#location-text"))


def join_quick_match(browser, opponent):
    """Quick match from the lobby: the opponent's room is joined, and the fight screen shows them."""
    browser.click("#quick")
    browser.wait("the fight screen", lambda: browser.js("return !document.getElementById('fight').hidden"))
    browser.wait("the opponent's name", lambda: opponent in browser.text("#them-side .name"))


def my_turn_or_the_end(browser, seconds=120):
    """Waits for the page's turn ('mine') or the fight's end ('over')."""
    return browser.wait("my turn or the end", lambda: browser.js("""
        const turn = document.getElementById('turn');
        if (turn.classList.contains('mine')) return 'mine';
        if (turn.classList.contains('won') || turn.classList.contains('lost') || turn.classList.contains('draw')) return 'over';
        return null;"""), seconds=seconds)


def record_sent(browser):
    """From now on, every message the page sends, as sent, in window.__sent."""
    browser.js("""
        window.__sent = [];
        const send = WebSocket.prototype.send;
        WebSocket.prototype.send = function (data) { window.__sent.push(JSON.parse(data)); return send.call(this, data); };
    """)


def judged(browser, seq, refused=False):
    """Waits for the server's answer to a hold thrown at sequence `seq`: 'landed' (the fight moved
    on), or what the page says when no punch was found; with `refused`, also what it says when the
    hold was refused (the server's error, or held too long)."""
    return browser.wait("the swing judged", lambda: browser.js("""
        const seq = hitthat.state.seen.get(hitthat.state.current);
        if (seq > arguments[0]) return 'landed';
        const status = document.getElementById('swing-status').textContent;
        const refusal = arguments[1] && (status.startsWith('That swing was refused') || status.startsWith('Held too long'));
        return status.startsWith('No punch found') || refusal ? status : null;""", seq, refused), 30)


def my_punch(browser):
    """The page's own newest punch in the fight's log (newest first): "kind damage"."""
    return browser.js("""
        const state = hitthat.state;
        const mine = [...state.log.get(state.current).values()].sort((a, b) => b.sequence - a.sequence)
          .find((e) => e.kind === 'punched' && e.by === state.me.id);
        return mine.punch + ' ' + mine.damage;""")


def drop_the_connection(browser, outcome):
    """The connection lost just as the punch is thrown, before its event comes back: the page
    says so, counts down to its next try, comes back and catches up on what it missed (`hello`,
    then `replay` from the last sequence it saw: its own punch, and the opponent's after it)."""
    seen = browser.js("return hitthat.state.seen.get(hitthat.state.current)")
    sent = browser.js("return window.__sent.length")
    # In one task: nothing from the server can come in between.
    browser.js("document.getElementById('throw').click(); hitthat.drop()")
    said = browser.wait("the page to say the connection dropped", lambda: (lambda t: t if t.startswith("Connection lost") else None)(
        browser.text("#connection")), 10)
    browser.wait("the page to come back", lambda: browser.text("#connection") == "Connected", 30)
    browser.wait("the events missed meanwhile", lambda: browser.js("return hitthat.state.seen.get(hitthat.state.current)") > seen, 60)
    browser.wait("the opponent's punch after it", lambda: browser.js("return hitthat.state.seen.get(hitthat.state.current)") >= seen + 2, 60)
    again = [m for m in browser.js("return window.__sent.slice(arguments[0])", sent) if m["type"] in ("hello", "replay")]
    expect([m["type"] for m in again][:2] == ["hello", "replay"] and again[1]["after"] == seen,
           f"hello, then replay after {seen}: {again}")
    outcome["reconnect"] = {"said": said, "sent": [m["type"] for m in again]}


LEAD = 1.5
"""Seconds of motion replayed before PUNCH is pressed: the page sends them as the hold's lead-in."""


def swing(browser, options, shot):
    """One turn swung: motion replayed, and PUNCH held by a touch from `LEAD` s into it (the page
    sends what came before the press as the hold's lead-in). Returns what came of it."""
    start, end = first_punch_window(options.trace.replace(".csv", ".labels.csv"))
    begin = max(0.0, start - LEAD)
    rows, header = read_trace(options.trace, begin, end)
    # A first event makes the page find its "sensor", and offer PUNCH.
    browser.js("window.dispatchEvent(new DeviceMotionEvent('devicemotion', "
               "{accelerationIncludingGravity: {x: 0, y: 9.8, z: 0}, rotationRate: {alpha: 0, beta: 0, gamma: 0}}))")
    browser.wait("PUNCH", lambda: browser.js("return document.getElementById('punch').offsetParent !== null"), 10)
    check_screen(browser, "fight", ["#punch", "#punch-mode", "#turn", "#switch-guard"])
    shot("3-swing")
    seq = browser.js("return hitthat.state.seen.get(hitthat.state.current)")
    start = browser.js("return window.__sent.length")
    browser.js(REPLAY, rows)
    # PUNCH goes down once the replay has reached the window (a loaded machine slows the replay,
    # so it is watched rather than timed), and comes up after its last row.
    lead = min(LEAD, rows[-1][0] / 2)
    browser.wait("the lead-in replayed", lambda: browser.js("return window.__replayAt") >= lead, 30)
    browser.touch_down("#punch")
    # Up once the punch landed (the hold is over) or the replay is over, as a player lets go.
    browser.wait("the punch to land or the replay's end", lambda: browser.js(
        "return window.__replayDone || hitthat.state.seen.get(hitthat.state.current) > arguments[0]", seq), 60)
    browser.touch_up()
    browser.wait("the replay's end", lambda: browser.js("return window.__replayDone"), 60)
    time.sleep(0.2)
    batches = [m for m in browser.js("return window.__sent.slice(arguments[0])", start) if m["type"] == "motion"]
    # A hold whose punch landed is over at once: the page sends no more of it, nor a final batch.
    landed = browser.js("return hitthat.state.seen.get(hitthat.state.current)") > seq
    check_batches(batches, rows, seq, released=not landed, gyroscope=len(rows[0]) == 7)
    samples = [row for b in batches for row in b["samples"]]
    # When PUNCH went down, in seconds from the first sample sent: `detect` on the samples as sent
    # finds the punch the server must land as its first one from then on.
    result = {"batches": len(batches), "rows": len(samples), "pressed": batches[0]["pressed"] - samples[0][0],
              "lead": sum(1 for row in samples if row[0] < batches[0]["pressed"]),
              # The same moment in the trace's own time, for `detect` on the whole trace.
              "pressedInTrace": begin + batches[0]["pressed"] - browser.js("return window.__replayStart")}
    if options.window_out:
        # The samples the server was sent, as they were sent (the page's clock, what the touch
        # held of the replay), back in the trace's units: `hitthat detect` reads the same.
        with open(options.window_out, "w") as file:
            file.write("t,x (g),y (g),z (g)" + (",gx (rad/s),gy (rad/s),gz (rad/s)" if len(samples[0]) == 7 else "") + "\n")
            for row in samples:
                raw = [row[0] - samples[0][0]] + [v / G for v in row[1:4]] + [math.radians(v) for v in row[4:7]]
                file.write(",".join(f"{v:.9f}" for v in raw) + "\n")
    said = judged(browser, seq)
    result["landed"] = said == "landed"
    if result["landed"]:
        result["punch"] = my_punch(browser)
    else:
        result["said"] = said
    return result


def check_batches(batches, rows, after, released, gyroscope, turning=True):
    """The page's motion messages as issue 29 fixes them; `released`: the hold went on to the
    release (no punch landed during it), which sends the final batch; `gyroscope`: the trace has
    a rotation rate, which the rows must carry; `turning`: the motion turns faster than 1 rad/s
    somewhere (a swing's does), which tells °/s from rad/s."""
    expect(batches, "no motion message was sent while PUNCH was held")
    expect(all(b["final"] is False for b in batches[:-1]), "final only on the last batch")
    expect(batches[-1]["final"] is released, f"final on release ({released}), not when a punch landed")
    expect(len({b["hold"] for b in batches}) == 1, "one hold number for one hold")
    expect(len({b.get("pressed") for b in batches}) == 1 and batches[0].get("pressed") is not None,
           "one press time (pressed) for the hold, in every batch")
    expect(all(b["after"] == after for b in batches), f"after is the fight's last sequence ({after})")
    samples = [row for b in batches for row in b["samples"]]
    expect(all(len(b["samples"]) <= 64 for b in batches), "at most 64 rows a batch")
    width = 7 if gyroscope else 4
    expect(all(len(row) == width for row in samples), f"{width}-wide rows, as the trace has a rotation rate or not")
    times = [row[0] for row in samples]
    pressed = batches[0]["pressed"]
    expect(times[0] < pressed, f"a lead-in: the motion before the press ({times[0]} against {pressed})")
    expect(pressed - times[0] <= 2.0, f"a lead-in of at most 2 s, got {pressed - times[0]:.3f} s")
    expect(all(b - a >= 0.005 - 1e-4 for a, b in zip(times, times[1:])), "increasing, at most 200 Hz")
    if released:
        sent_span, replay_span = times[-1] - times[0], rows[-1][0] - rows[0][0]
        expect(sent_span >= replay_span / 2, f"the swing was sent: {sent_span:.2f} s of rows of {replay_span:.2f} s")
    # Units: the page's rows are the replayed ones (m/s², °/s), in order, rounded; the lead-in may
    # begin with the event that showed the page its sensor.
    given = rows + [[0, 0, 9.8, 0]]
    near = lambda sample: any(all(abs(a - b) < 0.002 for a, b in zip(sample[1:4], row[1:4])) for row in given)
    expect(all(near(sample) for sample in samples), "the acceleration as the events gave it, in m/s²")
    if gyroscope and turning:
        biggest = max(abs(v) for row in samples for v in row[4:7])
        expect(biggest > 57.3, f"rotation in °/s (largest {biggest:.1f})")


if __name__ == "__main__":
    main()
