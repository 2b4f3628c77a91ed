#!/bin/bash
# Reruns "The estimate's radial bias" (docs/calibration.md): the foreign recordings A, B,
# C, both estimates (whole acceleration, and relative to the mean ball flow's (V.grad)V),
# the per-ring bias profiles, Flotilla's own round trip, and paper-scale calibrations on
# PSO seeds 1-3 (two at a time). Run from an empty directory; WORLD from the repository root.
# cargo build --release -p calibration --no-default-features --bin flotilla-calibrate --example foreign_recording --example flow_bias
set -euo pipefail
T=${CARGO_TARGET_DIR:-target}/release
FC=$T/flotilla-calibrate
WORLD=${WORLD:-config/pingpong_24.yaml}
for s in "A 1.0 0.08 1" "B 0.7 0.06 2" "C 1.4 0.10 3"; do
  set -- $s
  $T/examples/foreign_recording --seconds 600 --seed $4 --stirring $2 --level $3 --out $1.csv --flow-out $1_flow.csv
  $T/examples/flow_bias $2 $3 $4 >> flow_bias.txt
  $FC flow-field --recording $1.csv --out $1_whole.csv --compare $1_flow.csv
  $FC flow-field --recording $1.csv --out $1_relative.csv --compare $1_flow.csv --subtract-mean-flow-acceleration
  for v in whole relative; do sed "s#file: \"\"  #file: \"$PWD/$1_$v.csv\"#" "$WORLD" > world_$1_$v.yaml; done
done
for s in 201 202 203; do $FC record --seconds 600 --seed $s --parameters 1,1,0,0,0.5 --out balls_$s.csv --flow-out flow_used.csv; done
$FC flow-field --recording balls_201.csv --recording balls_202.csv --recording balls_203.csv --out own_whole.csv --compare flow_used.csv
$FC flow-field --recording balls_201.csv --recording balls_202.csv --recording balls_203.csv --out own_relative.csv --compare flow_used.csv --subtract-mean-flow-acceleration
run() { # setup variant seed
  uptime; /usr/bin/time -f "$1 $2 seed $3: wall %e s CPU %U+%S s" nice -n 5 $FC run --recording $1.csv --world world_$1_$2.yaml --out run_$1_$2_s$3 --seed $3 > log_$1_$2_s$3.txt 2>&1
  tail -n 1 log_$1_$2_s$3.txt; grep verdict_line run_$1_$2_s$3/summary.yaml
}
for seed in 1 2 3; do
  run A relative $seed & run B relative $seed; wait
  run C relative $seed & run A whole $seed; wait
  run B whole $seed & run C whole $seed; wait
done
# B with fields made by hand (reduced PSO): the mean ball velocity (flow_bias ... B writes
# B_vbar.csv) and the true field.
$T/examples/flow_bias 0.7 0.06 2 0.0005 B > /dev/null
for f in vbar flow; do
  sed "s#file: \"\"  #file: \"$PWD/B_$f.csv\"#" "$WORLD" > world_B_$f.yaml
  $FC run --recording B.csv --world world_B_$f.yaml --out red_B_$f --seed 1 --swarm-size 24 --iterations 10
done
