#!/usr/bin/env bash
# Re-measures every figure of docs/calibration.md into $OUT (default /tmp/calib_measure).
# Usage: docs/calibration/measure.sh [OUT]   (after cargo build --release -p calibration --examples)
# Each step logs `uptime` before and `/usr/bin/time` CPU/wall after, so the load is on record.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-/tmp/calib_measure}
NICE=${NICE:-19}
mkdir -p "$OUT/bin"
# Private copies: a rebuild during the run does not swap the binaries under it.
cp "$ROOT/target/release/flotilla-calibrate" "$ROOT/target/release/examples/identifiability" \
   "$ROOT/target/release/examples/evaluation_time" "$OUT/bin/"
CAL="$OUT/bin/flotilla-calibrate"
cd "$OUT"
step() {  # step NAME NICENESS COMMAND...
  local name=$1 niceness=$2; shift 2
  echo "## $name: $(uptime)" >> log.txt
  echo "# $*" > "$name.txt"
  /usr/bin/time -f "wall %e s, user %U s, sys %S s" -a -o "$name.txt" nice -n "$niceness" "$@" >> "$name.txt" 2>> "$name.err"
  echo "## $name done: $(uptime)" >> log.txt
}
TRUTH=1.3,1.8,120,0.3,0.25
[ -f real.csv ] || step record "$NICE" "$CAL" record --seconds 600 --seed 101 --parameters $TRUTH --out real.csv
# Speed first, at normal priority: the paper-scale calibration.
[ -f recovery_paper_scale/summary.yaml ] || step paper_scale_seed1 0 "$CAL" run --recording real.csv --out recovery_paper_scale --seed 1
step evaluation_time "$NICE" "$OUT/bin/evaluation_time"
[ -f truth_baseline/summary.yaml ] || { mkdir -p truth_baseline; cp "$ROOT/docs/calibration/truth_baseline/settings.yaml" truth_baseline/;
  step truth_baseline "$NICE" "$CAL" run --recording real.csv --out truth_baseline --settings truth_baseline/settings.yaml; }
step noise_truth "$NICE" "$CAL" noise --recording real.csv --runs 100 --parameters $TRUTH --seed 5
step noise_default "$NICE" "$CAL" noise --recording real.csv --runs 100 --seed 5
for s in 201 202 203; do
  [ -f balls_$s.csv ] || step record_$s "$NICE" "$CAL" record --seconds 600 --seed $s --parameters 1,1,0,0,0.5 --out balls_$s.csv --flow-out flow_used.csv
done
mkdir -p flow_round_trip
step flow_round_trip "$NICE" "$CAL" flow-field --recording balls_201.csv --recording balls_202.csv --recording balls_203.csv --out flow_round_trip/flow_field.csv --compare flow_used.csv
# Final selection on the finished paper-scale run (resumes from its checkpoint).
cp -r recovery_paper_scale recovery_paper_scale_final_selection
step paper_scale_seed1_final "$NICE" "$CAL" run --recording real.csv --out recovery_paper_scale_final_selection --seed 1 --final-reevaluations 5
[ -f recovery_seed2/summary.yaml ] || step paper_scale_seed2 "$NICE" "$CAL" run --recording real.csv --out recovery_seed2 --seed 2
cp -r recovery_seed2 recovery_seed2_final_selection
step paper_scale_seed2_final "$NICE" "$CAL" run --recording real.csv --out recovery_seed2_final_selection --seed 2 --final-reevaluations 5
[ -f recovery_reevaluate/summary.yaml ] || step reevaluate_seed1 "$NICE" "$CAL" run --recording real.csv --out recovery_reevaluate --seed 1 --reevaluate
cp -r recovery_reevaluate recovery_reevaluate_final_selection
step reevaluate_seed1_final "$NICE" "$CAL" run --recording real.csv --out recovery_reevaluate_final_selection --seed 1 --reevaluate --final-reevaluations 5
[ -f recovery_reevaluate_seed2/summary.yaml ] || step reevaluate_seed2 "$NICE" "$CAL" run --recording real.csv --out recovery_reevaluate_seed2 --seed 2 --reevaluate
mkdir -p recovery_long_windows
cp "$ROOT/docs/calibration/recovery_long_windows_final_selection/settings.yaml" recovery_long_windows/
[ -f recovery_long_windows/summary.yaml ] || step long_windows_seed1 "$NICE" "$CAL" run --recording real.csv --out recovery_long_windows --seed 1 --settings recovery_long_windows/settings.yaml
cp -r recovery_long_windows recovery_long_windows_final_selection
step long_windows_seed1_final "$NICE" "$CAL" run --recording real.csv --out recovery_long_windows_final_selection --seed 1 --settings recovery_long_windows/settings.yaml --final-reevaluations 5
step identifiability "$NICE" "$OUT/bin/identifiability" real.csv $TRUTH 600
echo "## all done: $(uptime)" >> log.txt
