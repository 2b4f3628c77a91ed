#!/bin/bash
# Reruns "An occupancy term in the objective" (docs/calibration.md): the foreign recordings
# A-E, the field relative to (V.grad)V, paper-scale calibrations with --occupancy-weight 1 on
# PSO seeds 1-3 (two at a time, nice 5), Flotilla's own recording, D and E, and a second
# validation seed (11) of every A-C calibration. Run from an empty directory; WORLD from the
# repository root.
# cargo build --release -p calibration --no-default-features --bin flotilla-calibrate --example foreign_recording
set -uo pipefail
T=${CARGO_TARGET_DIR:-target}/release
FC=$T/flotilla-calibrate
REC=$T/examples/foreign_recording
WORLD=${WORLD:-config/pingpong_24.yaml}
W=${W:-1}
for s in "A 1.0 0.08 1" "B 0.7 0.06 2" "C 1.4 0.10 3"; do
  set -- $s
  $REC --seconds 600 --seed $4 --stirring $2 --level $3 --out $1.csv --flow-out $1_flow.csv
done
$REC --seconds 600 --seed 4 --dropout-rate 0.05 --swap-rate 0.1 --out D.csv
$REC --seconds 600 --seed 5 --noise 0.002 --out E.csv
for s in A B C D E; do
  $FC flow-field --recording $s.csv --out ${s}_relative.csv --subtract-mean-flow-acceleration
  sed "s#file: \"\"  #file: \"$PWD/${s}_relative.csv\"#" "$WORLD" > world_${s}_relative.yaml
done
$FC record --seconds 600 --seed 101 --parameters 1.3,1.8,120,0.3,0.25 --out real.csv
run() { # setup seed
  local rec=$1.csv world="--world world_$1_relative.yaml"
  [ "$1" = own ] && rec=real.csv world=""
  uptime; /usr/bin/time -f "w$W $1 relative seed $2: wall %e s CPU %U+%S s" nice -n 5 $FC run --recording $rec $world --out run_w${W}_$1_s$2 --seed $2 --occupancy-weight $W > log_$1_s$2.txt 2>&1
  tail -n 1 log_$1_s$2.txt; grep verdict_line run_w${W}_$1_s$2/summary.yaml
}
for seed in 1 2 3; do
  run A $seed & run B $seed; wait
  run C $seed
done
run own 1 & run D 1; wait
run E 1
for s in A B C; do for seed in 1 2 3; do
  p=$(grep -A1 "^- - hydro" run_w${W}_${s}_s$seed/summary.yaml | grep -o "^  - .*" | sed 's/  - //' | paste -sd,)
  echo "$s seed $seed, validation seed 11: $($FC validate --recording $s.csv --world world_${s}_relative.yaml --parameters $p --out val11_${s}_s$seed --seed 11 | head -n 1)"
done; done
# The default (whole-acceleration) field with the term, PSO seeds 1-3.
for s in A B C; do
  $FC flow-field --recording $s.csv --out ${s}_whole.csv
  sed "s#file: \"\"  #file: \"$PWD/${s}_whole.csv\"#" "$WORLD" > world_${s}_whole.yaml
done
for seed in 1 2 3; do for s in A B C; do
  uptime; /usr/bin/time -f "w$W $s whole seed $seed: wall %e s CPU %U+%S s" nice -n 5 $FC run --recording $s.csv --world world_${s}_whole.yaml --out run_w${W}_${s}_whole_s$seed --seed $seed --occupancy-weight $W > log_${s}_whole_s$seed.txt 2>&1
done; done
