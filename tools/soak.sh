#!/usr/bin/env bash
# Soak: `hitthat serve` under many scripted players for a long time, with random disconnects,
# bad messages mixed in, and a `kill -9` and restart half way; then every fight is checked.
#
#   1. builds `hitthat` and `hitthat-load` (release) and starts the server on a free port with a
#      new SQLite file under .build/soak/<time>/;
#   2. runs `hitthat-load` (CLIENTS players, quick matches, punches in turn, disconnects, bad
#      messages) for MINUTES; at half time kills the server with SIGKILL and starts it again on
#      the same file and port (the clients reconnect by themselves);
#   3. hitthat-load checks that every event each client saw is in the server's log, unchanged, and
#      that records and statistics add up to each client's fights; then the server is stopped with
#      SIGTERM and `hitthat audit` replays the whole log against the saved fights, records and
#      statistics (stamina = starting stamina minus the damage landed, rebuilt = incremental);
#   4. the server's resident memory is sampled every 5 s: after the restart it must not keep
#      growing (the last sample at most 1.5 times the one a quarter of the way in, plus 16 MB).
# Prints the figures and exits non-zero if any check fails.
#
# Usage: tools/soak.sh                          (CLIENTS=200 MINUTES=10 THINK_MS=300 unless set)
#        CLIENTS=200 MINUTES=2 KILL=0 tools/soak.sh     (issue 5's load: no kill, no mischief)
set -euo pipefail
cd "$(dirname "$0")/.."

clients=${CLIENTS:-200}
minutes=${MINUTES:-10}
think_ms=${THINK_MS:-300}
kill_half_way=${KILL:-1}
disconnects=${DISCONNECTS:-0.002}
bad_messages=${BAD_MESSAGES:-0.02}
seconds=$(python3 -c "print(int(float('$minutes') * 60))")

work=.build/soak/$(date +%Y%m%d-%H%M%S)
mkdir -p "$work"
for product in hitthat hitthat-load; do
    swift build -c release --product "$product" >>"$work/build.log" 2>&1 ||
        { echo "soak: the build failed; see $work/build.log" >&2; exit 1; }
done
bin=$(swift build -c release --show-bin-path)
database=$work/hitthat.sqlite
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "soak: $clients clients, $minutes min, think $think_ms ms, disconnects $disconnects, bad messages $bad_messages, kill -9 half way: $kill_half_way; in $work"

# MARK: - The server

server=
start_server() {
    "$bin/hitthat" serve --port "$port" --database "$database" --log-level warning >>"$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 200); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/health', timeout=1)" \
            2>/dev/null && return 0
        sleep 0.05
    done
    echo "soak: the server did not come up; see $work/server.log" >&2
    exit 1
}

sample_memory() {
    local began=$SECONDS
    while sleep 5; do
        local pid=$server rss
        rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || continue
        echo "$((SECONDS - began)) $pid $rss" >>"$work/memory.txt"
    done
}

cleanup() {
    [[ -n ${sampler:-} ]] && kill "$sampler" 2>/dev/null || true
    [[ -n $server ]] && kill -9 "$server" 2>/dev/null || true
}
trap cleanup EXIT

start_server
sample_memory &
sampler=$!

# MARK: - The load

"$bin/hitthat-load" --server "ws://127.0.0.1:$port" --clients "$clients" --seconds "$seconds" \
    --think-ms "$think_ms" --disconnects "$disconnects" --bad-messages "$bad_messages" --json \
    >"$work/load.json" 2>"$work/load.log" &
load=$!

if [[ $kill_half_way == 1 ]]; then
    sleep $((seconds / 2))
    echo "soak: kill -9 of the server (pid $server) at $((seconds / 2)) s"
    kill -9 "$server"
    wait "$server" 2>/dev/null || true
    start_server
    echo "soak: restarted (pid $server)"
fi

load_status=0
wait "$load" || load_status=$?
kill "$sampler" 2>/dev/null || true
sampler=
kill -TERM "$server"
wait "$server" 2>/dev/null || true
server=

audit_status=0
"$bin/hitthat" audit --database "$database" --json >"$work/audit.json" || audit_status=$?

# MARK: - The figures

python3 - "$work" "$load_status" "$audit_status" <<'EOF'
import json, os, sys
work, load_status, audit_status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
failed = False
try:
    load = json.load(open(f"{work}/load.json"))
except Exception as error:
    print(f"soak: no load report ({error}); see {work}/load.log")
    sys.exit(1)
counts, latency = load["counts"], load["pushLatencyMs"]
def ms(value): return "–" if value is None else f"{value:.1f} ms"
print(f"load: {load['clients']} clients for {load['seconds']:.0f} s; {load['messagesPerSecond']:.0f} messages/s")
print(f"  fights checked {counts.get('fightsChecked', 0) // 2} (each from both sides), events checked {counts.get('eventsChecked', 0)}")
print(f"  punch pushed to the opponent: p50 {ms(latency['p50'])}, p90 {ms(latency['p90'])}, p99 {ms(latency['p99'])}, max {ms(latency['max'])} ({latency['count']} punches)")
print(f"  connections {counts.get('connections', 0)}, dropped on purpose {counts.get('dropsOnPurpose', 0)}, lost or refused {counts.get('connectionsLost', 0)}")
print(f"  bad messages sent {counts.get('badMessagesSent', 0)}, answered with the right error {counts.get('badMessagesAnswered', 0)}")
print(f"  errors not provoked: {load['unprovokedErrors'] or 'none'}")
if load["problems"] or load_status != 0:
    failed = True
    print(f"  {len(load['problems'])} PROBLEMS (exit {load_status}):")
    for problem in load["problems"][:20]: print("   ", problem)
audit = json.load(open(f"{work}/audit.json"))
print(f"audit: {audit['fights']} fights, {audit['events']} events: {'consistent' if audit['consistent'] else 'NOT CONSISTENT'}")
for problem in audit["problems"][:20]: print("   ", problem)
failed |= audit_status != 0 or not audit["consistent"]
samples = [line.split() for line in open(f"{work}/memory.txt")] if os.path.exists(f"{work}/memory.txt") else []
samples = [(int(t), pid, int(kb)) for t, pid, kb in samples]
last_pid = samples[-1][1] if samples else None
run = [s for s in samples if s[1] == last_pid]
if len(run) >= 4:
    quarter = run[len(run) // 4][2] / 1024
    end = run[-1][2] / 1024
    peak = max(s[2] for s in samples) / 1024
    grew = end > quarter * 1.5 + 16
    failed |= grew
    print(f"memory (resident): peak {peak:.0f} MB; last server process {quarter:.0f} MB a quarter in, {end:.0f} MB at the end: {'GREW' if grew else 'flat'}")
else:
    print("memory: too few samples to judge")
print("soak: FAILED" if failed else "soak: passed")
sys.exit(1 if failed else 0)
EOF
