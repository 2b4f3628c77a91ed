#!/bin/bash
# Reruns "Recordings from other simulators" (docs/calibration.md): foreign-tank
# recordings, the documented pipeline (flow-field, then run on a world that loads the
# estimated field) and the fresh-seed check. BEFORE=path of a flotilla-calibrate built at
# f23294f (raw field, plain PSO), AFTER=this branch's; run from an empty directory.
# cargo build --release -p calibration --no-default-features --bin flotilla-calibrate --example foreign_recording
set -euo pipefail
T=${CARGO_TARGET_DIR:-target}/release
AFTER=${AFTER:-$T/flotilla-calibrate}
BEFORE=${BEFORE:?set BEFORE to a flotilla-calibrate built at f23294f}
REC=$T/examples/foreign_recording
WORLD=${WORLD:-config/pingpong_24.yaml}   # from the repository root
$REC --seconds 600 --seed 1 --stirring 1.0 --level 0.08 --out A.csv --flow-out A_flow.csv
$REC --seconds 600 --seed 2 --stirring 0.7 --level 0.06 --out B.csv --flow-out B_flow.csv
$REC --seconds 600 --seed 3 --stirring 1.4 --level 0.10 --out C.csv --flow-out C_flow.csv
$REC --seconds 600 --seed 4 --dropout-rate 0.05 --swap-rate 0.1 --out D.csv
$REC --seconds 600 --seed 5 --noise 0.002 --out E.csv
for s in A B C D E; do
  $AFTER flow-field --recording $s.csv --out ${s}_est.csv --compare A_flow.csv
  $BEFORE flow-field --recording $s.csv --out ${s}_est_before.csv
  sed "s#file: \"\"  #file: \"$PWD/${s}_est.csv\"#" "$WORLD" > world_$s.yaml
  sed "s#file: \"\"  #file: \"$PWD/${s}_est_before.csv\"#" "$WORLD" > world_${s}_before.yaml
done
for s in A B C; do
  uptime; /usr/bin/time $BEFORE run --recording $s.csv --world world_${s}_before.yaml --out run_${s}_before --seed 1
  uptime; /usr/bin/time $AFTER run --recording $s.csv --world world_$s.yaml --out run_${s}_after --seed 1
done
for s in D E; do
  uptime; /usr/bin/time $AFTER run --recording $s.csv --world world_$s.yaml --out run_${s}_after --seed 1 --swarm-size 24 --iterations 10
done
# Fresh-seed fitness of each calibrated best: 20 windows (seed 77).
for v in before after; do for s in A B C; do
  w=world_$s.yaml; [ $v = before ] && w=world_${s}_before.yaml
  p=$(python3 -c "import yaml;d=yaml.safe_load(open('run_${s}_$v/summary.yaml'));print(','.join(repr(x) for _,x in d['parameters']))")
  echo "$s $v: $($AFTER noise --recording $s.csv --world $w --runs 20 --seed 77 --parameters $p | tail -1)"
done; done
# "Kinematics from noisy tracks": the same run on PSO seeds 1 and 2 (AFTER built on
# calib-kin; the estimates above already use the noise-aware windows).
for seed in 1 2; do for s in A B C; do
  uptime; /usr/bin/time $AFTER run --recording $s.csv --world world_$s.yaml --out run_${s}_kin_s$seed --seed $seed
done; done
# B with a whiter foreign turbulence (0.05 s) vs the original 0.5 s, reduced PSO.
for tt in 0.5 0.05; do
  $REC --seconds 600 --seed 2 --stirring 0.7 --level 0.06 --turbulence-time $tt --out Bt$tt.csv
  $AFTER flow-field --recording Bt$tt.csv --out Bt${tt}_est.csv
  sed "s#file: \"\"  #file: \"$PWD/Bt${tt}_est.csv\"#" "$WORLD" > world_Bt$tt.yaml
  uptime; /usr/bin/time $AFTER run --recording Bt$tt.csv --world world_Bt$tt.yaml --out run_Bt$tt --seed 1 --swarm-size 24 --iterations 10
done
