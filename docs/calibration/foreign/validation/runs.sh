#!/bin/bash
# Paper-scale runs with the optional 6th parameter (hydro.flow_correlation_time), PSO seeds 1 and 2.
T=/work/tgt-calib-model/release
cd /tmp/cm
run() { # name recording world seed
  echo "== $1 start $(date +%T) $(uptime)"; /usr/bin/time -f "$1 wall %e s CPU %U+%S s" nice -n 5 $T/flotilla-calibrate run --recording $2 --world $3 --settings s6.yaml --out run_$1 --seed $4 > log_$1.txt 2>&1; tail -1 log_$1.txt; grep "verdict_line" run_$1/summary.yaml
}
run B_s1 B.csv world_B.yaml 1 & run B_s2 B.csv world_B.yaml 2; wait
run A_s1 A.csv world_A.yaml 1 & run A_s2 A.csv world_A.yaml 2; wait
run C_s1 C.csv world_C.yaml 1 & run C_s2 C.csv world_C.yaml 2; wait
