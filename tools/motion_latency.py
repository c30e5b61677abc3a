#!/usr/bin/env python3
"""How long the server takes to land a sensor's punch: pairs of players fight to the end, every punch
a synthetic swing streamed as a `motion` hold (tools/protocol_client.py's) at 200 samples a second,
and for each the time
from sending the batch the detector decided it in to receiving its `punched` event (TCP_NODELAY,
so that Nagle's algorithm and delayed ACKs do not add 40 ms). Prints the median, p90 and max.

Usage: tools/motion_latency.py --server http://127.0.0.1:8080 [--fights 6]
"""
import argparse, os, queue, random, socket, statistics, string, sys, threading, time, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol_client as pc  # noqa: E402


def fight(address, latencies):
    tag = "".join(random.choices(string.ascii_lowercase + string.digits, k=8))
    alice, bob = pc.Player(address, f"ma_{tag}"), pc.Player(address, f"mb_{tag}")
    for player in (alice, bob):
        player.socket.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        player.reply_to(player.request("hello"))
    alice.reply_to(alice.request("quickMatch"))
    matched = bob.reply_to(bob.request("quickMatch"))
    fight_id, turn, last = matched["fight"], matched["turn"], matched["sequence"]
    players = {alice.id: alice, bob.id: bob}
    # Each player's messages, timed as they arrive, read on a thread while the batches go out.
    inboxes = {}
    for player in (alice, bob):
        inbox = inboxes[player.id] = queue.Queue()
        threading.Thread(target=read, args=(player, inbox), daemon=True).start()
    hold = 0
    while True:
        player = players[turn]
        hold += 1
        rows = pc.swing(6)
        sent = {}
        answer = None
        for start in range(0, len(rows), 20):
            ref = player.request("motion", fight=fight_id, after=last, hold=hold, samples=rows[start:start + 20],
                                 final=start + 20 >= len(rows))
            sent[ref] = time.perf_counter()
            # At a sensor's pace (200 samples a second), within the server's sample budget.
            answer = wait(inboxes[player.id], sent, 20 / 200)
            if answer:
                break
        answer = answer or wait(inboxes[player.id], sent, 10)
        pc.expect(answer and answer[1]["type"] == "event", f"the swing did not land: {answer}")
        arrived, message = answer
        latencies.append((arrived - sent[message["ref"]]) * 1000)
        if "turn" not in message:
            for player in (alice, bob):
                player.socket.sock.close()
            return
        turn, last = message["turn"], message["sequence"]


def read(player, inbox):
    try:
        while True:
            message = player.socket.receive()
            inbox.put((time.perf_counter(), message))
    except Exception:
        return


def wait(inbox, refs, seconds):
    """The first answer to one of `refs` within `seconds`: (when it arrived, the message), or None."""
    deadline = time.perf_counter() + seconds
    while (left := deadline - time.perf_counter()) > 0:
        try:
            arrived, message = inbox.get(timeout=left)
        except queue.Empty:
            return None
        if message.get("ref") in refs and (message["type"] != "event" or message["kind"] == "punched"):
            return arrived, message
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument("--fights", type=int, default=6)
    arguments = parser.parse_args()
    address = urllib.parse.urlparse(arguments.server)
    latencies = []
    for _ in range(arguments.fights):
        fight(address, latencies)
    latencies.sort()
    print(f"{len(latencies)} punches landed from motion; from the deciding batch sent to its punched event, ms: "
          f"median {statistics.median(latencies):.2f}, p90 {latencies[int(len(latencies) * 0.9)]:.2f}, "
          f"max {latencies[-1]:.2f}")


if __name__ == "__main__":
    main()
