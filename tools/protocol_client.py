#!/usr/bin/env python3
"""A second, independent client of docs/PROTOCOL.md: Python's standard library only, with its own
WebSocket framing (RFC 6455), sharing no code with the Swift client.

Two players register over HTTP, open a WebSocket each, say hello, join quick match and punch in
turn (each punch sent with `after` = the last sequence seen) until the fight ends: the room's owner
as a sensor does, streaming a swing's samples as `motion` holds for the server's detector to find
(a phone still for a second first: `holdEnded`; a batch with a NaN: refused), the other from the
power meter (`windUp`, then a `punch` timed for the uppercut's sweet spot), behind a high guard.
Then it checks that a punch stating its own `damage` is refused, that each punch did what the
document's rules say (a detected one within the kind's ceiling, halved by the high guard for jabs
and hooks; a meter punch between the floor and the ceiling),
that both saw the same fight events with sequences 1, 2, 3, … and no gap, that the stamina in the
events is 100 minus the damage landed, that the server's `fight` state and both players'
`history` and `profile` records agree with the `ended` event, that a meter punch with no wind-up
is refused as `notWoundUp`, and that a punch after the end is refused. Prints one JSON line with
the outcome; exits 1 with the reason on any mismatch.

With an https:// server (`hitthat serve --tls-cert --tls-key`), the same runs over HTTPS and WSS,
the server's certificate checked against `--cafile` (its own, when it signed itself).

With two `--server`s (several servers on one PostgreSQL), the room's owner plays on the first and
the other player on the second, each seeing the other's events pushed across. With `--kill PID`
(the first server's process), the first server is killed (SIGKILL) after the `--kill-after`th
punch; its player connects to the second, says `hello`, replays what it missed from the last
sequence it saw, and plays on: the checks above then hold across the kill.

Usage: tools/protocol_client.py --server http://127.0.0.1:8080 [--server http://127.0.0.1:8081
         [--kill PID] [--kill-after 2]] [--seed 1] [--cafile cert.pem]
"""
import argparse, base64, http.client, json, os, random, signal, socket, ssl, string, struct, sys, time, urllib.parse

# The TLS context every connection goes through, for an https:// server; None for http://.
TLS = None


class ProtocolMismatch(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise ProtocolMismatch(message)


# MARK: - HTTP

def post(address, path, body):
    if TLS:
        connection = http.client.HTTPSConnection(address.hostname, address.port, timeout=120, context=TLS)
    else:
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
    connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer = json.loads(response.read())
    connection.close()
    return response.status, answer


# MARK: - WebSocket (RFC 6455, client side: masked text frames, no extensions)

class WebSocket:
    def __init__(self, address, path="/ws"):
        self.sock = socket.create_connection((address.hostname, address.port), timeout=30)
        if TLS:
            self.sock = TLS.wrap_socket(self.sock, server_hostname=address.hostname)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET {path} HTTP/1.1\r\nHost: {address.hostname}:{address.port}\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            expect(chunk, "the server closed the connection during the upgrade")
            head += chunk
        expect(head.startswith(b"HTTP/1.1 101"), f"upgrade refused: {head.splitlines()[0]!r}")

    def send(self, message):
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x81, 0x80 | length)
        elif length < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _read(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            expect(chunk, "the server closed the connection")
            data += chunk
        return data

    def receive(self):
        """The next text message, decoded; pings are answered, fragments joined."""
        message = b""
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._read(8))[0]
            expect(not second & 0x80, "a server frame was masked")
            payload = self._read(length)
            if opcode == 0x9:  # ping: a pong with the same payload, masked as every client frame
                mask = os.urandom(4)
                self.sock.sendall(struct.pack("!BB", 0x8A, 0x80 | len(payload)) + mask
                                  + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
                continue
            expect(opcode in (0x0, 0x1), f"unexpected frame opcode {opcode}")
            message += payload
            if first & 0x80:
                return json.loads(message)


# MARK: - A player

class Player:
    def __init__(self, address, name):
        self.name = name
        status, answer = post(address, "/register", {"username": name, "password": "protocol-check-" + name})
        expect(status == 201 and answer["type"] == "session", f"register {name}: {status} {answer}")
        self.token, self.id = answer["token"], answer["fighter"]["id"]
        self.socket = WebSocket(address)
        self.ref = 0
        self.inbox = []
        self.events = {}  # fight -> [event], in the order received

    def request(self, message_type, **fields):
        self.ref += 1
        self.socket.send({"type": message_type, "v": 1, "token": self.token, "ref": self.ref, **fields})
        return self.ref

    def next_message(self):
        message = self.inbox.pop(0) if self.inbox else self.socket.receive()
        expect(message.get("v") == 1, f"{self.name}: message without v 1: {message}")
        if message["type"] == "event" and "fight" in message:
            event = {k: v for k, v in message.items() if k not in ("type", "v", "ref")}
            self.events.setdefault(event["fight"], []).append(event)
        return message

    def reply_to(self, ref):
        """Reads until the message answering `ref` (events on the way are kept)."""
        while True:
            message = self.next_message()
            if message.get("ref") == ref:
                return message

    def until_event(self, fight, kind):
        while not any(e["kind"] == kind for e in self.events.get(fight, [])):
            self.next_message()

    def move_to(self, address, fight):
        """Connects to another server, its own being gone: `hello`, then `replay` of `fight` from
        the last sequence this player saw, as PROTOCOL.md's "Reconnecting" says."""
        self.socket = WebSocket(address)
        self.inbox = []
        welcome = self.reply_to(self.request("hello"))
        expect(welcome["type"] == "welcome", f"{self.name}: hello on the other server: {welcome}")
        seen = self.events.get(fight, [])
        after = seen[-1]["sequence"] if seen else 0
        replay = self.reply_to(self.request("replay", fight=fight, after=after))
        expect(replay["type"] == "events", f"{self.name}: replay: {replay}")
        # Events pushed meanwhile are in the inbox or came before the replay's answer: each is
        # kept once, in sequence order.
        known = {e["sequence"] for e in seen}
        for event in replay["events"]:
            if event["sequence"] not in known:
                self.events.setdefault(fight, []).append(dict(event, fight=fight))
        self.events[fight].sort(key=lambda e: e["sequence"])
        return [e["sequence"] for e in replay["events"]]


# MARK: - Motion

G = 9.80665


def still(seconds, start=0.0):
    """A phone lying still at 60 Hz: [t, ax, ay, az, gx, gy, gz], m/s² with gravity, °/s."""
    return [[start + i / 60, 0.1 + (i % 5) * 0.01, 9.79, 0.2, 0.5, -0.3, 0.0] for i in range(round(seconds * 60))]


def swing(peak_g):
    """Half a second still, 0.12 s of thrust along x at 3 g, its stop at peak_g, then still: 100 Hz."""
    rows = []
    for i in range(120):
        t = i / 100
        x = 3 * G if 0.5 <= t < 0.62 else -peak_g * G if 0.62 <= t < 0.66 else 0.0
        rows.append([t, x + (i % 3) * 0.02, 9.79, 0.2, 0.4, (i % 4) * 0.1, 0.1])
    return rows


def stream(player, fight, after, hold, rows, batch=20, pressed=None):
    """Sends rows as one hold in batches, the last `final` (the rows before `pressed`, when given,
    its lead-in); the first answer: punched, holdEnded or error."""
    refs = set()
    press = {} if pressed is None else {"pressed": pressed}
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch]
        refs.add(player.request("motion", fight=fight, after=after, hold=hold, samples=part,
                                final=start + batch >= len(rows), **press))
    while True:
        message = player.next_message()
        if message.get("ref") in refs and (message["type"] != "event" or message["kind"] == "punched"):
            return message


def play(addresses, kill=None, kill_after=2):
    tag = "".join(random.choices(string.ascii_lowercase + string.digits, k=8))
    alice, bob = Player(addresses[0], f"pa_{tag}"), Player(addresses[-1], f"pb_{tag}")
    for player in (alice, bob):
        welcome = player.reply_to(player.request("hello"))
        expect(welcome["type"] == "welcome" and welcome["openFights"] == [], f"{player.name}: hello: {welcome}")
    opened = alice.reply_to(alice.request("quickMatch"))
    expect(opened["type"] == "event" and opened["kind"] == "openedRoom", f"quickMatch: {opened}")
    matched = bob.reply_to(bob.request("quickMatch"))
    expect(matched["type"] == "event" and matched["kind"] == "matched", f"second quickMatch: {matched}")
    fight = matched["fight"]
    alice.until_event(fight, "matched")

    players = {alice.id: alice, bob.id: bob}
    stamina = {alice.id: 100, bob.id: 100}
    turn, last = matched["turn"], matched["sequence"]
    # The sensor player is the room's owner, who throws first; the meter player guards high.
    sensor, meter_player = players[turn], players[next(i for i in players if i != turn)]
    guarded = meter_player.reply_to(meter_player.request("raiseGuard", fight=fight, guard="high"))
    expect(guarded["type"] == "fight" and guarded["fight"].get("ownGuard") == "high", f"raiseGuard: {guarded}")
    unwound = meter_player.reply_to(meter_player.request("punch", fight=fight, kind="jab", after=last))
    expect(unwound["type"] == "error" and unwound.get("reason") in ("notWoundUp", "waitYourTurn"),
           f"a meter punch with no wind-up was not refused: {unwound}")
    # No client states a damage: a punch that does is refused, naming the field.
    stated = sensor.reply_to(sensor.request("punch", fight=fight, kind="uppercut", damage=64, after=last))
    expect(stated["type"] == "error" and stated["code"] == "invalid" and stated.get("field") == "damage",
           f"a punch stating its damage was not refused: {stated}")
    meter = None
    punches = 0
    holds = 0
    outcome_kill = None
    while True:
        puncher = players[turn]
        kind = random.choice(["jab", "uppercut", "hook"])
        detected = puncher is sensor
        if detected and holds == 0:
            # No punch in a phone lying still: the hold's last batch says so, and the turn goes on.
            holds += 1
            ended = stream(puncher, fight, last, holds, still(1.0))
            expect(ended["type"] == "holdEnded" and ended["hold"] == holds and ended["samples"] == 60
                   and abs(ended["seconds"] - 59 / 60) < 1e-6, f"a still hold: {ended}")
            # A punch in the lead-in, before the button went down, is read but not found.
            holds += 1
            lead = swing(8) + still(0.5, start=1.2)
            ended = stream(puncher, fight, last, holds, lead, pressed=1.0)
            expect(ended["type"] == "holdEnded" and ended["samples"] == len(lead),
                   f"a hold whose only punch was in its lead-in: {ended}")
            # JavaScript writes NaN as null: refused, naming the samples.
            holds += 1
            refused = puncher.reply_to(puncher.request("motion", fight=fight, after=last, hold=holds,
                                                       samples=[[0, 0.1, None, 9.8]], final=True))
            expect(refused["type"] == "error" and refused["code"] == "invalid" and refused.get("field") == "samples",
                   f"a NaN sample: {refused}")
        if detected:
            holds += 1
            reply = stream(puncher, fight, last, holds, swing(random.uniform(4, 9)))
            kind = reply.get("punch")
        else:
            wound = puncher.reply_to(puncher.request("windUp", fight=fight, after=last))
            expect(wound["type"] == "meter" and wound["fight"] == fight, f"windUp: {wound}")
            meter = wound["meter"]
            # The uppercut's spot is the top of the sweep, half a sweep after the wind-up.
            kind = "uppercut"
            time.sleep(meter["sweepMilliseconds"] / 2000)
            reply = puncher.reply_to(puncher.request("punch", fight=fight, kind=kind, after=last))
        expect(reply["type"] == "event" and reply["kind"] == "punched", f"punch: {reply}")
        punches += 1
        if detected and meter is not None:
            ceiling = meter[kind]["ceiling"] // 2 if kind in ("jab", "hook") else meter[kind]["ceiling"]
            expect(1 <= reply["damage"] <= ceiling and reply.get("bluntedBy") == ("high" if kind != "uppercut" else None),
                   f"a detected {kind} against a high guard: {reply}")
        elif puncher is meter_player:
            expect(meter["floor"] <= reply["damage"] <= meter[kind]["ceiling"] and "bluntedBy" not in reply,
                   f"a meter {kind} outside floor…ceiling: {reply}")
        target = next(i for i in players if i != turn)
        stamina[target] = max(0, stamina[target] - reply["damage"])
        expect(reply["staminaLeft"] == stamina[target], f"stamina {reply['staminaLeft']}, expected {stamina[target]}")
        last = reply["sequence"]
        if kill is not None and punches == kill_after:
            # The first server dies between two punches; its player goes on on the second.
            os.kill(kill, signal.SIGKILL)
            moved = alice.move_to(addresses[1], fight)
            outcome_kill = {"after": last, "replayed": moved}
        # No next turn: the fight is over. A knockout by the one who has thrown more punches is
        # answered first (the one knocked out throws once more), so stamina 0 alone does not say.
        if "turn" not in reply:
            break
        turn = reply["turn"]
    for player in (alice, bob):
        player.until_event(fight, "ended")

    # MARK: - What both saw, and what the server says
    seen = [alice.events[fight], bob.events[fight]]
    expect(seen[0] == seen[1], f"the players saw different events:\n{seen[0]}\n{seen[1]}")
    expect([e["sequence"] for e in seen[0]] == list(range(1, len(seen[0]) + 1)), "sequences with a gap or out of order")
    ended = seen[0][-1]
    expect(ended["kind"] == "ended" and ended["decision"] == "knockout", f"the last event: {ended}")
    punched = [e for e in seen[0] if e["kind"] == "punched"]
    thrown = {i: sum(1 for e in punched if e["by"] == i) for i in players}
    expect(thrown[alice.id] == thrown[bob.id], f"a knockout is answered: both throw as many punches, {thrown}")
    # No winner: the answer floored the knocker too, as far past 0. With a winner, the loser is
    # down (and the winner too, when their blow went further past 0 in a double knockout).
    winner = ended.get("winner")
    if winner is None:
        expect(set(stamina.values()) == {0}, f"a draw by knockout with stamina {stamina}")
    else:
        loser = next(i for i in players if i != winner)
        expect(stamina[loser] == 0, f"winner {winner} with stamina {stamina}")
    state = alice.reply_to(alice.request("fight", fight=fight))
    expect(state["type"] == "fight" and state["fight"]["phase"] == "finished"
           and state["fight"].get("winner") == winner and state["fight"]["lastSequence"] == ended["sequence"],
           f"fight state: {state}")
    replay = bob.reply_to(bob.request("replay", fight=fight, after=0))
    expect([dict(e, fight=fight) for e in replay["events"]] == seen[0], f"replay differs from what was pushed: {replay}")
    for player in players.values():
        record = (0, 0, 1) if winner is None else (1, 0, 0) if player.id == winner else (0, 1, 0)
        profile = player.reply_to(player.request("profile"))["fighter"]
        expect((profile["wins"], profile["losses"], profile["draws"]) == record, f"{player.name}: record {profile}")
        history = player.reply_to(player.request("history"))
        expect([f["id"] for f in history["fights"]] == [fight], f"{player.name}: history {history}")
    late = sensor.reply_to(sensor.request("punch", fight=fight, kind="jab", after=ended["sequence"]))
    expect(late["type"] == "error", f"a punch after the end was not refused: {late}")
    return {"fight": fight, "events": len(seen[0]), "punches": punches, "holds": holds,
            "winner": players[winner].name if winner is not None else None,
            "stamina": {players[i].name: s for i, s in stamina.items()}, "latePunch": late["code"],
            "servers": len(addresses), "killed": outcome_kill}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", action="append",
                        help="a server; twice, for two servers on one database (default http://127.0.0.1:8080)")
    parser.add_argument("--kill", type=int, metavar="PID", help="the first server's process, killed mid-fight")
    parser.add_argument("--kill-after", type=int, default=2, help="punches before the kill")
    parser.add_argument("--seed", type=int, help="the random kinds and swings, repeatable")
    parser.add_argument("--cafile", help="the certificate to trust for an https:// server")
    arguments = parser.parse_args()
    addresses = [urllib.parse.urlparse(server) for server in arguments.server or ["http://127.0.0.1:8080"]]
    if len(addresses) > 2 or (arguments.kill is not None and len(addresses) != 2):
        parser.error("--server: expected one or two servers, and two with --kill")
    random.seed(arguments.seed)
    if addresses[0].scheme == "https":
        global TLS
        TLS = ssl.create_default_context(cafile=arguments.cafile)
    try:
        print(json.dumps(play(addresses, arguments.kill, arguments.kill_after)))
    except (ProtocolMismatch, OSError, KeyError, ValueError) as error:
        print(f"protocol_client: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
