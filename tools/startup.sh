#!/usr/bin/env bash
# Start-up on a long history: starts a release `hitthat serve` on FILE, asks `/health` every 10 ms
# until it answers 200, and prints how long that took and the server's resident memory then
# (VmRSS) and at its peak so far (VmHWM); then stops the server with SIGTERM. Run it several times:
# the first run after the file was written reads it from disk, the next from the page cache.
# Exits non-zero when the answer took more than MAX_MS (2000) or the peak was above MAX_MB (100).
#
# FILE is by default the one the Startup benchmark builds (1 M finished fights, 20,000 fighters,
# ~2 GB); make it with:
#   swift package benchmark --target Startup --filter Startup-store-open-1M-fights --no-progress
#
# Usage: tools/startup.sh [FILE]
set -euo pipefail
cd "$(dirname "$0")/.."

file=${1:-${TMPDIR:-/tmp}/hitthat-history-20000-fighters-1000000-fights.sqlite}
max_ms=${MAX_MS:-2000}
max_mb=${MAX_MB:-100}
[ -f "$file" ] || { echo "startup: no $file; see the comment at the top of $0" >&2; exit 1; }

swift build -c release --product hitthat >/dev/null
bin=$(swift build -c release --show-bin-path)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

started=$(date +%s%N)
"$bin/hitthat" serve --database "$file" --port "$port" --log-level warning &
server=$!
trap 'kill -TERM $server 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$port/health" >/dev/null; do
    kill -0 $server 2>/dev/null || { echo "startup: the server exited" >&2; exit 1; }
    sleep 0.01
done
answered=$(date +%s%N)
ms=$(((answered - started) / 1000000))
rss_kb=$(awk '/^VmRSS:/ { print $2 }' /proc/$server/status)
hwm_kb=$(awk '/^VmHWM:/ { print $2 }' /proc/$server/status)
kill -TERM $server
wait $server || true
trap - EXIT

echo "startup: $file ($(du -h "$file" | cut -f1)): /health answered after $ms ms; resident $((rss_kb / 1024)) MB, peak $((hwm_kb / 1024)) MB"
[ "$ms" -le "$max_ms" ] || { echo "startup: slower than $max_ms ms" >&2; exit 1; }
[ $((hwm_kb / 1024)) -le "$max_mb" ] || { echo "startup: more than $max_mb MB" >&2; exit 1; }
