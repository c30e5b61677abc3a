#!/usr/bin/env bash
# Regenerates the sample traces in traces/ with `hitthat simulate`, each with its labels.
# The traces are committed; run this only to change them, then look at what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product hitthat >/dev/null
hitthat=.build/release/hitthat
out=traces

simulate() { "$hitthat" simulate "$@"; }

# One trace in each format and variant; together they cover both hands, 25 to 400 Hz, clipping,
# held samples, gravity removed, and all three kinds of punch.
simulate --seed 101 --punches 12 --format generic --rate 100 --output "$out/mixed-generic-100hz.csv"
simulate --seed 102 --punches 12 --format phyphox --rate 200 --output "$out/mixed-phyphox.csv"
simulate --seed 103 --punches 10 --format phyphox --dialect semicolon-decimal-comma --rate 100 --hand left \
    --output "$out/left-phyphox-decimal-comma.csv"
simulate --seed 104 --punches 10 --format phyphox --dialect tab --rate 400 --linear --upright \
    --output "$out/linear-phyphox-tab-400hz.csv"
simulate --seed 105 --punches 12 --format sensor-logger --rate 100 --hold 0.08 \
    --output "$out/sensor-logger-TotalAcceleration.csv"
simulate --seed 106 --punches 12 --format physics-toolbox --rate 25 --range 4 \
    --output "$out/glove-physics-toolbox-25hz-clipped.csv"
simulate --seed 107 --punches 12 --kinds jab uppercut hook --format generic --rate 50 \
    --output "$out/hooks-generic-50hz.csv"
simulate --seed 108 --punches 16 --random-sensor --format generic --hand left \
    --output "$out/left-generic-random-sensor.csv"
echo "wrote $(ls "$out"/*.csv | wc -l) files to $out/"
