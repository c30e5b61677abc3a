#!/usr/bin/env python3
"""The page's screens held to what they must say (issue 41), in headless Chromium at a phone's size
against a real server, the opponent a protocol client of this script's own (tools/protocol_client.py)
so that each of their punches comes when a check wants it:

- over plain http from a LAN name, motion is said to need a secure page (not "no motion here");
- a refused motion permission is told where to allow it: Android's words on Android, iOS's on iOS;
- the rules shown are the ones the server stated in `welcome` (the matchmaking radius);
- "your guard is up" only once a guard is up; the meter's green shown before WIND UP;
- "Swing!" and "Judging the swing…" gone once the connection drops, and after it is back;
- a server that stops answering (SIGSTOP) with its socket open is noticed within seconds, said,
  and the page is back once it answers again (SIGCONT);
- a page reloaded in a fight lists the fight's past punches;
- every visible text meets WCAG AA contrast, light and dark, on each screen.

Prints one JSON line with what it saw; exits 1 with the reason on any failure.

Usage: tools/page_checks.py --port 8080 --server-pid PID --screenshots .build/screenshots
"""
import argparse, json, os, signal, sys, time, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_test import (Browser, Failure, expect, check_screen, check_contrast, enable_motion, set_location,
                          join_quick_match, my_turn_or_the_end, report, IN_THE_GREEN)
import protocol_client

ANDROID = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
           "Chrome/120.0 Mobile Safari/537.36")
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")


def cdp(browser, command, params):
    return browser.do("POST", "/goog/cdp/execute", {"cmd": command, "params": params})


def connected(browser, seconds=60):
    browser.wait("the page connected", lambda: browser.text("#connection") == "Connected", seconds)


def sign_in(browser, page, user, password, register):
    browser.open(page)
    browser.wait("the sign-in screen", lambda: browser.js("return !document.getElementById('signin').hidden"))
    browser.type("#username", user)
    browser.type("#password", password)
    browser.click("#register" if register else "#login")
    browser.wait("the lobby", lambda: browser.js("return !document.getElementById('lobby').hidden"))
    connected(browser)


def permission_words(browser, page, user_agent):
    """What the lobby says of motion after the permission is refused, on a phone of `user_agent`
    (the page's navigator says it: chromedriver's phone emulation keeps its own for the requests)."""
    script = cdp(browser, "Page.addScriptToEvaluateOnNewDocument", {
        "source": f"Object.defineProperty(navigator, 'userAgent', {{get: () => {json.dumps(user_agent)}}});"})
    browser.open(page)
    cdp(browser, "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
    connected(browser)
    browser.wait("the ask for motion", lambda: "tap Enable motion" in (browser.text("#motion-status") or ""))
    browser.click("#enable-motion")
    return browser.wait("the refusal said", lambda: (lambda t: t if "refused" in t else None)(
        browser.text("#motion-status") or ""), 10)


def opponent_punches(bob, fight, after):
    """Bob winds up and throws a jab at once: the meter's floor, so that the fight lasts."""
    ref = bob.request("windUp", fight=fight, after=after)
    expect(bob.reply_to(ref)["type"] == "meter", "bob's wind-up answered with the meter")
    bob.request("punch", fight=fight, after=after, kind="jab")


def page_seen(browser):
    return browser.js("return hitthat.state.seen.get(hitthat.state.current)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--server-pid", type=int, required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    options = parser.parse_args()
    os.makedirs(options.screenshots, exist_ok=True)
    page = f"http://127.0.0.1:{options.port}/"
    # A name for this machine that is not localhost: a page from it is not a secure context, as
    # one opened from a LAN address (http://192.168.1.20:8080/) is not.
    lan_page = f"http://lan.test:{options.port}/"
    address = urllib.parse.urlparse(page)

    bob = protocol_client.Player(address, "bob")
    welcome = bob.reply_to(bob.request("hello"))
    expect(welcome["type"] == "welcome" and "rules" in welcome, f"a welcome with the rules: {welcome}")
    rules = welcome["rules"]
    bob.reply_to(bob.request("move", latitude=48.8566, longitude=2.3522))

    browser = Browser(options.chromedriver, options.chromium, ["--host-resolver-rules=MAP lan.test 127.0.0.1"])
    shot = lambda name: browser.screenshot(os.path.join(options.screenshots, name + ".png"))
    outcome = {"contrast": {}}
    stopped = False
    failure = None
    try:
        # Plain http from a LAN name: the cause of no motion is the page's origin.
        browser.open(lan_page)
        browser.wait("the sign-in screen", lambda: browser.js("return !document.getElementById('signin').hidden"))
        expect(browser.js("return window.isSecureContext") is False, "the LAN page is not a secure context")
        outcome["contrast"]["sign-in"] = check_contrast(browser, "the sign-in screen")
        sign_in(browser, lan_page, "carol", "correct horse", register=True)
        insecure = browser.text("#motion-status")
        expect("plain http://" in insecure and "https://" in insecure and "gives no motion" not in insecure,
               f"over http from the LAN, motion is said to need https: {insecure!r}")
        # The radius as the server stated it, not a number of the page's.
        radius = f"within {rules['matchRadiusKm']:g} km"
        expect(radius in browser.text("#location-text"), f"{radius!r} in {browser.text('#location-text')!r}")
        outcome["contrast"]["lobby"] = check_contrast(browser, "the lobby over http")
        shot("7-lan-http")
        outcome["insecure"] = insecure

        # A refused permission, on Android and on iOS (Chromium asks as Safari does; its answer stubbed).
        script = cdp(browser, "Page.addScriptToEvaluateOnNewDocument", {
            "source": "DeviceMotionEvent.requestPermission = async () => 'denied';"})
        sign_in(browser, page, "carol", "correct horse", register=False)
        android = permission_words(browser, page, ANDROID)
        ios = permission_words(browser, page, IPHONE)
        expect("Motion sensors" in android and "Motion & Orientation" not in android, f"Android's words: {android!r}")
        expect("Motion & Orientation" in ios and "Safari" in ios, f"iOS's words: {ios!r}")
        outcome["denied"] = {"android": android, "ios": ios}
        cdp(browser, "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        browser.open(page)
        connected(browser)
        enable_motion(browser)

        # A notice on screen, measured too.
        set_location(browser)
        browser.wait("the notice", lambda: browser.js("return !document.getElementById('notice').hidden"), 10)
        outcome["contrast"]["notice"] = check_contrast(browser, "the lobby with a notice")

        # Bob's room, joined: bob throws first, and carol has raised no guard.
        bob.reply_to(bob.request("quickMatch"))
        join_quick_match(browser, "bob")
        fight = browser.js("return hitthat.state.current")
        browser.wait("bob's turn", lambda: "BOB'S TURN" in (browser.text("#turn") or ""))
        turn = browser.text("#turn")
        expect("no guard up" in turn and "guard is up" not in turn and browser.text("#guard") == "none",
               f"no guard said while none is up: {turn!r}, guard {browser.text('#guard')!r}")
        outcome["contrast"]["their-turn"] = check_contrast(browser, "the fight, their turn")
        browser.click("#switch-guard")
        browser.wait("the high guard said", lambda: browser.text("#guard") == "high"
                     and "your high guard is up" in browser.text("#turn"))
        outcome["guard"] = [turn, browser.text("#turn")]

        # Carol's turn: the green of the chosen punch shows before WIND UP.
        opponent_punches(bob, fight, page_seen(browser))
        expect(my_turn_or_the_end(browser, 30) == "mine", "carol's turn after bob's punch")
        if browser.js("return document.getElementById('motion-area').offsetParent !== null"):
            browser.click("#punch-mode")
        browser.click(".kinds button[data-kind='hook']")
        # The hook's green, as wide as the rules the server stated make it, drawn by the next frame.
        hook = rules["meter"]["hook"]
        share = min(1, hook["level"] + hook["halfWidth"]) - max(0, hook["level"] - hook["halfWidth"])
        green = browser.wait("the hook's green before the wind-up", lambda: browser.js("""
            const spot = document.querySelector('#meter .spot').getBoundingClientRect();
            const whole = document.getElementById('meter').getBoundingClientRect().width;
            const hint = document.getElementById('meter-hint').textContent;
            return Math.abs(spot.width - arguments[0] * whole) < 2 && hint.includes('in the green') ? hint : null;""",
            share), 10)
        expect(browser.text("#throw") == "WIND UP", "not wound up yet")
        expect(browser.js("return hitthat.meter.shape") is None, "the green is the stated rules', not a wind-up's")
        outcome["greenBeforeWindUp"] = green
        outcome["contrast"]["my-turn"] = check_contrast(browser, "the fight, my turn")
        shot("8-green-before-wind-up")

        # A swing under way, then the connection dropped: its status goes with it. A first event
        # shows the page its sensor, and PUNCH is offered (the meter chosen above is left).
        browser.js("window.dispatchEvent(new DeviceMotionEvent('devicemotion', "
                   "{accelerationIncludingGravity: {x: 0, y: 9.8, z: 0}}))")
        browser.wait("the sensor found", lambda: browser.js("return hitthat.motion.status === 'ready'"), 10)
        if not browser.js("return document.getElementById('punch').offsetParent !== null"):
            browser.click("#punch-mode")
        browser.wait("PUNCH", lambda: browser.js("return document.getElementById('punch').offsetParent !== null"), 10)
        browser.touch_down("#punch")
        browser.wait("Swing!", lambda: browser.text("#swing-status") == "Swing!", 10)
        # Released and dropped in one task: no answer to the hold can come in between.
        judging = browser.js("""
            document.getElementById('punch').dispatchEvent(new PointerEvent('pointerup'));
            const said = document.getElementById('swing-status').textContent;
            hitthat.drop();
            return said;""")
        expect(judging == "Judging the swing…", f"released: {judging!r}")
        browser.wait("the drop said", lambda: (browser.text("#connection") or "").startswith("Connection lost"), 10)
        expect(browser.text("#swing-status") == "", f"after the drop: {browser.text('#swing-status')!r}")
        browser.touch_up()
        connected(browser)
        expect(browser.text("#swing-status") == "", f"after reconnecting: {browser.text('#swing-status')!r}")

        # Carol throws with the meter; bob answers: two punches in the log.
        browser.click("#punch-mode")
        browser.click("#throw")
        browser.wait("the needle in the green", lambda: browser.js(IN_THE_GREEN), 10)
        before = page_seen(browser)
        browser.click("#throw")
        browser.wait("carol's punch", lambda: page_seen(browser) > before, 30)
        opponent_punches(bob, fight, page_seen(browser))
        browser.wait("bob's second punch", lambda: page_seen(browser) > before + 1, 30)

        # The server stops answering, its socket open: noticed and said within seconds.
        os.kill(options.server_pid, signal.SIGSTOP)
        stopped = True
        since = time.time()
        said = browser.wait("the silence noticed", lambda: (lambda t: t if "silent" in t else None)(
            browser.text("#connection") or ""), 20)
        outcome["silence"] = {"said": said, "after": round(time.time() - since, 1)}
        shot("9-server-silent")
        os.kill(options.server_pid, signal.SIGCONT)
        stopped = False
        connected(browser, 60)

        # Reloaded in the fight: its past punches are listed again, as before.
        lines = lambda: browser.js("return [...document.querySelectorAll('#events li')].map((li) => li.textContent)")
        listed = lines()
        punches = [line for line in listed if " left." in line]
        expect(len(punches) >= 3, f"three punches in the log before the reload: {listed}")
        browser.open(page)
        connected(browser)
        browser.wait("the fight screen", lambda: browser.js("return !document.getElementById('fight').hidden"))
        # The same lines, newest first; a turn that lapsed meanwhile on a slow machine may add one on top.
        browser.wait("the fight's log", lambda: (lambda now: now[len(now) - len(listed):] == listed)(lines()), 30)
        outcome["logAfterReload"] = listed
        shot("10-reloaded")
    except Failure as error:
        failure = error
        try:
            shot("failure-checks")
        except Exception:
            pass
    finally:
        if stopped:
            os.kill(options.server_pid, signal.SIGCONT)
        browser.quit()
    report("page checks", failure, outcome)


if __name__ == "__main__":
    main()
