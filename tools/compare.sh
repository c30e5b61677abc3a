#!/usr/bin/env bash
# HitThat against the same rule written the way a data scientist would (pandas + NumPy,
# tools/reference_detector.py), in one run:
#   1. simulates a ~100 MB generic trace, and a ~25 MB one, with `hitthat simulate`;
#   2. times `hitthat detect --json` (release build) and the reference alternately, ROUNDS times
#      each, with /usr/bin/time for wall time and peak memory (maximum resident set);
#   3. checks that both find the same punches: the same count, times within 11 ms, the same kinds;
#   4. prints the ratios, and hitthat's peak memory on the 25 MB and 100 MB traces, which stays
#      flat because the trace is streamed.
# The reference's Python packages come from PyPI into .build/compare-venv.
#
# Usage: tools/compare.sh              (ROUNDS=5 and PUNCHES=7400, about 100 MB, unless set)
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-5}
punches=${PUNCHES:-7400}
work=.build/compare
venv=.build/compare-venv
mkdir -p "$work"

# MARK: - Tools

if [[ ! -x /usr/bin/time ]]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null
fi
if ! "$venv/bin/python" -c 'import pandas, numpy' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet pandas numpy
fi
python=$venv/bin/python

swift build -c release --product hitthat >/dev/null
hitthat=$(swift build -c release --show-bin-path)/hitthat

# MARK: - Traces

for count in "$punches" $((punches / 4)); do
    trace=$work/trace-$count.csv
    [[ -s $trace ]] || "$hitthat" simulate --seed 6 --punches "$count" --kinds jab uppercut hook --output "$trace"
done
large=$work/trace-$punches.csv
quarter=$work/trace-$((punches / 4)).csv

# MARK: - Measuring

# Runs a command with its standard output to the file $1 and sets `seconds`, `cpu` and
# `kilobytes` to its wall time, CPU time (user and system) and peak resident memory.
measure() {
    local output=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" >"$output" 2>>"$work/stderr.log" || {
        echo "failed: $* (see $work/stderr.log)" >&2
        exit 1
    }
    read -r seconds user system kilobytes <"$work/time.txt"
    cpu=$(awk -v u="$user" -v s="$system" 'BEGIN { print u + s }')
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
megabytes() { awk -v kb="$1" 'BEGIN { printf "%.0f MB", kb / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f×", a / b }'; }

: >"$work/stderr.log"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "trace: $large, $(($(stat -c %s "$large") / 1000000)) MB; $rounds rounds, alternating"

ours_times=() ours_cpu=() ours_memory=() theirs_times=() theirs_cpu=() theirs_memory=()
for ((round = 1; round <= rounds; round++)); do
    measure "$work/hitthat.jsonl" "$hitthat" detect --json "$large"
    ours_times+=("$seconds") ours_cpu+=("$cpu") ours_memory+=("$kilobytes")
    measure "$work/reference.jsonl" "$python" tools/reference_detector.py detect "$large"
    theirs_times+=("$seconds") theirs_cpu+=("$cpu") theirs_memory+=("$kilobytes")
    echo "round $round: hitthat ${ours_times[-1]} s, $(megabytes "${ours_memory[-1]}"); reference ${theirs_times[-1]} s, $(megabytes "${theirs_memory[-1]}")"
done

# MARK: - Agreement

"$python" tools/reference_detector.py match "$work/hitthat.jsonl" "$work/reference.jsonl" || {
    echo "hitthat and the reference disagree: compare $work/hitthat.jsonl with $work/reference.jsonl" >&2
    exit 1
}

# MARK: - Results

ours_time=$(printf '%s\n' "${ours_times[@]}" | median)
theirs_time=$(printf '%s\n' "${theirs_times[@]}" | median)
ours_cpu_time=$(printf '%s\n' "${ours_cpu[@]}" | median)
theirs_cpu_time=$(printf '%s\n' "${theirs_cpu[@]}" | median)
ours_peak=$(printf '%s\n' "${ours_memory[@]}" | median)
theirs_peak=$(printf '%s\n' "${theirs_memory[@]}" | median)
measure "$work/quarter.jsonl" "$hitthat" detect --json "$quarter"
quarter_time=$seconds quarter_peak=$kilobytes
large_mb=$(($(stat -c %s "$large") / 1000000))
quarter_mb=$(($(stat -c %s "$quarter") / 1000000))

cat <<EOF

| ${large_mb} MB generic trace, $(wc -l <"$work/hitthat.jsonl") punches | hitthat detect | pandas + NumPy | ratio |
| --- | ---: | ---: | ---: |
| wall time, median of $rounds | $ours_time s | $theirs_time s | $(ratio "$theirs_time" "$ours_time") faster |
| CPU time (user + system), median | $ours_cpu_time s | $theirs_cpu_time s | $(ratio "$theirs_cpu_time" "$ours_cpu_time") less |
| peak memory, median of $rounds | $(megabytes "$ours_peak") | $(megabytes "$theirs_peak") | $(ratio "$theirs_peak" "$ours_peak") less |
| end to end | $(awk -v s="$ours_time" -v mb="$large_mb" 'BEGIN { printf "%.0f MB/s", mb / s }') | $(awk -v s="$theirs_time" -v mb="$large_mb" 'BEGIN { printf "%.0f MB/s", mb / s }') | |

| hitthat detect --json | wall time | peak memory |
| --- | ---: | ---: |
| ${quarter_mb} MB trace | $quarter_time s | $(megabytes "$quarter_peak") |
| ${large_mb} MB trace | $ours_time s | $(megabytes "$ours_peak") |
EOF
