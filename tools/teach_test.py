#!/usr/bin/env python3
""""Teach me your punches" through the page, the way a phone delivers a swing: headless Chromium's
virtual sensors (as `sensor_test.py` drives them over DevTools) fire genuine `devicemotion` events
into the page's own listener while a finger holds the lesson's HOLD button.

A new player signs up, enables motion and taps "Teach me your punches"; for each kind the page
asks for by name ("Throw a jab (1 of 3)") the next `--swing START,END,KIND` window of that kind
in the trace (`t,x,y,z,gx,gy,gz`, g and rad/s) is replayed at its own pace, HOLD pressed `LEAD` s
into it and lifted when the server took the punch or the window ends, until the page shows what
the server learned. It prints one JSON line: the profile (`punchProfile`), what the page says of
it, each hold (the kind asked, and whether the server took a punch), and the messages the lesson
sent. Exits 1 with the reason on any failure.

Usage: tools/teach_test.py --page http://127.0.0.1:8080/ --user dora --trace gyro.csv \\
         --swing 10.2,10.9,jab --swing 14.1,14.8,uppercut ...
"""
import argparse, os

from browser_test import expect, read_trace, record_sent
from sensor_test import LEAD, Replay, readings, run_with_sensors, set_reading

TAUGHT = "return hitthat.lesson.progress ? hitthat.lesson.progress.jabs + hitthat.lesson.progress.uppercuts + hitthat.lesson.progress.hooks : 0"
LEARNED = "return hitthat.lesson.status === 'idle' && hitthat.state.punchProfile != null"


def teach_one(browser, devtools, trace, start, end):
    """One window swung with HOLD down from `LEAD` s into it; returns whether the server took its
    punch (the page's count went up, or it learned), and the last reading set."""
    taught = browser.js(TAUGHT)
    rows, _ = read_trace(trace, max(0.0, start - LEAD), end)
    expect(len(rows[0]) == 7, f"{trace}: a swing needs a gyroscope (gx, gy, gz in rad/s)")
    replayed = readings(rows)
    replay = Replay(devtools, replayed)
    replay.start()
    browser.wait("the lead-in replayed", lambda: replay.at >= min(LEAD, rows[-1][0] / 2) or replay.done, 30)
    browser.touch_down("#teach-punch")
    taken = lambda: browser.js(LEARNED) or browser.js(TAUGHT) > taught
    browser.wait("the punch taken or the replay's end", lambda: replay.done or taken(), 60)
    browser.touch_up()
    replay.join(60)
    if replay.failure:
        raise replay.failure
    # Released without a punch taken: the server's word on the hold's last batch.
    said = browser.wait("the hold judged", lambda: "taken" if taken() else (lambda text: text if text and (
        text.startswith("No punch") or text.startswith("That swing was refused")) else None)(
        browser.text("#teach-swing")), 30)
    return said == "taken", replayed[-1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--page", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", default="correct horse")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--trace", required=True, help="a t,x,y,z,gx,gy,gz trace (g, rad/s)")
    parser.add_argument("--swing", action="append", required=True, metavar="START,END,KIND",
                        help="a window of the trace holding a punch of KIND, in seconds")
    parser.add_argument("--screenshots", help="a folder for teach-asking.png and teach-learned.png, at a phone's size")
    options = parser.parse_args()
    if options.screenshots:
        os.makedirs(options.screenshots, exist_ok=True)
    windows = {}
    for text in options.swing:
        start, end, kind = text.split(",")
        windows.setdefault(kind, []).append((float(start), float(end)))

    outcome = {"holds": []}

    def teach(browser, devtools, held):
        shoot = lambda name: options.screenshots and browser.screenshot(os.path.join(options.screenshots, name))
        record_sent(browser)
        outcome["button"] = browser.text("#teach")
        browser.click("#teach")
        while not browser.js(LEARNED):
            expect(len(outcome["holds"]) < 20, f"not learned after {len(outcome['holds'])} holds")
            asked = browser.wait("a kind asked for, or the profile", lambda: browser.js(
                "return hitthat.lesson.status === 'asking' ? [hitthat.lesson.kind, document.getElementById('teach-ask').textContent]"
                " : hitthat.state.punchProfile != null && hitthat.lesson.status === 'idle' ? ['', ''] : null"), 30)
            if not asked[0]:
                break
            if not outcome["holds"]:
                browser.js("document.getElementById('teach-card').scrollIntoView()")
                shoot("teach-asking.png")
            expect(windows.get(asked[0]), f"no window of a {asked[0]} left to swing")
            start, end = windows[asked[0]].pop(0)
            taken, held = teach_one(browser, devtools, options.trace, start, end)
            set_reading(devtools, held)
            outcome["holds"].append({"asked": asked[0], "said": asked[1], "taken": taken})
        outcome["punchProfile"] = browser.js("return hitthat.state.punchProfile")
        outcome["learned"] = browser.text("#teach-learned")
        outcome["sent"] = [m["type"] for m in browser.js("return window.__sent")]
        browser.js("document.getElementById('teach-card').scrollIntoView()")
        shoot("teach-learned.png")

    run_with_sensors("teach test", options, outcome, teach)

if __name__ == "__main__":
    main()
