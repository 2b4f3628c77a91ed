#!/bin/bash
# Paper-scale runs with the optional 6th parameter (hydro.flow_correlation_time), PSO seeds 1 and 2.
# Run from the directory of measure.sh's recordings and worlds (A.csv, world_A.yaml, ...)
# with s6.yaml copied there.
T=${CARGO_TARGET_DIR:-target}/release
run() { # name recording world seed
  echo "== $1 start $(date +%T) $(uptime)"; /usr/bin/time -f "$1 wall %e s CPU %U+%S s" nice -n 5 $T/flotilla-calibrate run --recording $2 --world $3 --settings s6.yaml --out run_$1 --seed $4 > log_$1.txt 2>&1; tail -1 log_$1.txt; grep "verdict_line" run_$1/summary.yaml
}
run B_s1 B.csv world_B.yaml 1 & run B_s2 B.csv world_B.yaml 2; wait
run A_s1 A.csv world_A.yaml 1 & run A_s2 A.csv world_A.yaml 2; wait
run C_s1 C.csv world_C.yaml 1 & run C_s2 C.csv world_C.yaml 2; wait
# Flotilla's own recording with the default settings (the report's own rows) and the
# flow-correlation identifiability (a recording made with T = 0.8 s).
$T/flotilla-calibrate run --recording real.csv --out run_own --seed 1
$T/flotilla-calibrate validate --recording real.csv --parameters 1.3,1.8,120,0.3,0.25 --seed 1 --out v_truth_1
$T/flotilla-calibrate record --seconds 600 --seed 101 --parameters 1.3,1.8,120,0.3,0.25,0.8 --out real_tau.csv
$T/examples/identifiability real_tau.csv 1.3,1.8,120,0.3,0.25,0.8 > identifiability_flow_correlation.txt
# Diagnosis of B by hand: the estimated field vs the true one (B_flow.csv), white vs correlated flow.
sed "s#B_est.csv#B_flow.csv#" world_B.yaml > world_Btrue.yaml
for w in world_B.yaml world_Btrue.yaml; do for tau in 0 0.5 1; do
  $T/flotilla-calibrate validate --recording B.csv --world $w --settings s6.yaml --parameters 1.0,2.58,0,0.3,0.25,$tau --out v_${w%.yaml}_$tau | head -1
done; done
