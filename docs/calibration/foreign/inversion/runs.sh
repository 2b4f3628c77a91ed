#!/bin/bash
# Reruns "Choosing the inversion" (docs/calibration.md): the one-command pipeline
# `run --estimate-flow` (auto inversion, paper scale) on the foreign bench's A-E (PSO seeds
# 1-3 for A, B, C), on five recordings the bench had not made (A2, B2, C2: new recording
# seeds; F, G: new stirring and level), on Flotilla's own recording through the estimated
# field, and Flotilla's own recording with its parametric field at fitness weight 0 and 1
# (PSO seeds 1-3, validation seeds 11 and 12). Run from an empty directory.
# cargo build --release -p calibration --no-default-features --bin flotilla-calibrate --example foreign_recording
set -uo pipefail
T=${CARGO_TARGET_DIR:-target}/release
FC=$T/flotilla-calibrate
REC=$T/examples/foreign_recording
WORLD=${WORLD:-config/pingpong_24.yaml}
for s in "A 1.0 0.08 1" "B 0.7 0.06 2" "C 1.4 0.10 3" "A2 1.0 0.08 11" "B2 0.7 0.06 12" "C2 1.4 0.10 13" "F 0.85 0.07 14" "G 1.2 0.09 15"; do
  set -- $s
  $REC --seconds 600 --seed $4 --stirring $2 --level $3 --out $1.csv --flow-out $1_flow.csv
done
$REC --seconds 600 --seed 4 --dropout-rate 0.05 --swap-rate 0.1 --out D.csv
$REC --seconds 600 --seed 5 --noise 0.002 --out E.csv
$FC record --seconds 600 --seed 101 --parameters 1.3,1.8,120,0.3,0.25 --out own.csv
one() { # name seed [world args]
  local name=$1 seed=$2; shift 2
  /usr/bin/time -f "$name seed $seed: wall %e s CPU %U+%S s" $FC run --recording $name.csv "$@" --estimate-flow --out auto_${name}_s$seed --seed $seed > log_auto_${name}_s$seed.txt 2>&1
  tail -n 1 log_auto_${name}_s$seed.txt; grep pilot log_auto_${name}_s$seed.txt; grep verdict_line auto_${name}_s$seed/summary.yaml
}
for seed in 1 2 3; do
  for s in A B C; do one $s $seed --world "$WORLD"; done
  one own $seed
done
for s in D E A2 B2 C2 F G; do one $s 1 --world "$WORLD"; done
# Flotilla's own recording, parametric field: the paper's fitness (w = 0) against the default (w = 1).
for w in 0 1; do for seed in 1 2 3; do
  d=param_w${w}_s$seed
  $FC run --recording own.csv --out $d --seed $seed --occupancy-weight $w > log_$d.txt 2>&1
  p=$(grep -A1 "^- - hydro" $d/summary.yaml | grep -o "^  - .*" | sed 's/  - //' | paste -sd,)
  echo "w$w seed $seed: $(grep verdict_line $d/summary.yaml)"
  for v in 11 12; do echo "   validation seed $v: $($FC validate --recording own.csv --parameters $p --out val_${d}_$v --seed $v | head -n 1)"; done
done; done
