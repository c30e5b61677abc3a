#!/usr/bin/env bash
# `hitthat detect` against the same rule written the way a data person would (pandas + NumPy,
# tools/reference_detector.py), side by side in one run:
#   1. simulates a generic trace of about 2 M samples with `hitthat simulate` (11,400 punches at
#      100 Hz, gravity included) and writes it twice: as simulated (every digit of each double,
#      about 155 MB) and with 3 decimals of time and 4 of acceleration (about 65 MB), as a
#      phone app writes them;
#   2. reads each file once so that it is in the page cache, then times, alternating, ROUNDS
#      times each: `hitthat detect` (release build) with --json and plain, and the reference,
#      with /usr/bin/time for wall time, CPU time and peak memory;
#   3. checks that both find nearly the same punches (tools/reference_detector.py match: found by
#      both within 0.1 s, and of those the same kind);
#   4. prints, per trace, the best and the median of the rounds and their ratios.
# The reference's Python packages come from PyPI into .build/compare-venv.
#
# Usage: tools/compare.sh     (ROUNDS=5, PUNCHES=11400 unless set)
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-5}
punches=${PUNCHES:-11400}
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

full=$work/trace-$punches.csv
short=$work/trace-$punches-short.csv
[[ -s $full ]] || "$hitthat" simulate --seed 6 --punches "$punches" --kinds jab uppercut hook --output "$full" >/dev/null
[[ -s $short ]] || awk -F, 'NR == 1 { print; next } { printf "%.3f,%.4f,%.4f,%.4f\n", $1, $2, $3, $4 }' "$full" >"$short"

# MARK: - Measuring

# Runs a command with its standard output to the file $1 and appends its wall time, CPU time
# (user and system) and peak resident memory (KB) to the file $2.
measure() {
    local output=$1 times=$2
    shift 2
    /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$@" >"$output" 2>>"$work/stderr.log" || {
        echo "failed: $* (see $work/stderr.log)" >&2
        exit 1
    }
    awk '{ print $1, $2 + $3, $4 }' "$work/time.txt" >>"$times"
}

# The best (least) and the median of column $2 of the file $1.
best() { awk -v c="$2" '{ print $c }' "$1" | sort -g | head -1; }
median() {
    awk -v c="$2" '{ print $c }' "$1" | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f×", a / b }'; }

: >"$work/stderr.log"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "hitthat: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- Sources || echo ' + changes'); $rounds rounds, alternating; best and median"

for trace in "$short" "$full"; do
    cat "$trace" >/dev/null # into the page cache
    name=$(basename "$trace" .csv)
    rm -f "$work/$name".*.times
    for ((round = 1; round <= rounds; round++)); do
        measure "$work/$name.json.jsonl" "$work/$name.json.times" "$hitthat" detect --json "$trace"
        measure "$work/$name.plain.txt" "$work/$name.plain.times" "$hitthat" detect "$trace"
        measure "$work/$name.reference.jsonl" "$work/$name.reference.times" "$python" tools/reference_detector.py detect "$trace"
    done
    samples=$(($(wc -l <"$trace") - 1))
    megabytes=$(($(stat -c %s "$trace") / 1000000))
    echo
    echo "$trace: $megabytes MB, $samples samples; $("$python" tools/reference_detector.py match "$work/$name.json.jsonl" "$work/$name.reference.jsonl")"
    echo
    echo "| $megabytes MB, wall time (CPU time), best / median of $rounds | hitthat detect --json | hitthat detect | pandas + NumPy | ratio, --json | ratio, plain |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: |"
    for pick in best median; do
        json=$($pick "$work/$name.json.times" 1) plain=$($pick "$work/$name.plain.times" 1) reference=$($pick "$work/$name.reference.times" 1)
        json_cpu=$($pick "$work/$name.json.times" 2) plain_cpu=$($pick "$work/$name.plain.times" 2) reference_cpu=$($pick "$work/$name.reference.times" 2)
        echo "| $pick | $json s ($json_cpu s) | $plain s ($plain_cpu s) | $reference s ($reference_cpu s) | $(ratio "$reference" "$json") ($(ratio "$reference_cpu" "$json_cpu") CPU) | $(ratio "$reference" "$plain") ($(ratio "$reference_cpu" "$plain_cpu") CPU) |"
    done
    memory=$(median "$work/$name.json.times" 3) reference_memory=$(median "$work/$name.reference.times" 3)
    echo "| peak memory, median | $((memory / 1024)) MB | | $((reference_memory / 1024)) MB | $(ratio "$reference_memory" "$memory") less | |"
done
