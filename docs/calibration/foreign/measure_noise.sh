#!/bin/bash
# Drag inversion vs tracking noise (docs/calibration.md, "Kinematics from noisy tracks"):
# set-ups A and B of the foreign bench recorded with 0, 0.5, 1 and 2 mm position noise;
# the flow field estimated with the noise-aware windows (default) and with the former
# fixed half window 3; per measured cell, the error of the mean and the deviation
# against the foreign tank's time-averaged field. Run from an empty directory.
# cargo build --release -p calibration --no-default-features --bin flotilla-calibrate --example foreign_recording
set -euo pipefail
T=${CARGO_TARGET_DIR:-target}/release
CAL=$T/flotilla-calibrate
REC=$T/examples/foreign_recording
compare() { # estimate truth -> "rms error of the mean, mean |sd| estimated, mean |sd| true" (m/s)
python3 - "$1" "$2" <<'PY'
import csv, sys
def load(p):
    return {(r['ix'], r['iy']): r for r in csv.DictReader(l for l in open(p) if not l.startswith('#'))}
est, tru = load(sys.argv[1]), load(sys.argv[2])
cells = [k for k, r in est.items() if int(r['count']) >= 20]
f = lambda r, a: float(r[a])
err = (sum((f(est[k], 'mean_x') - f(tru[k], 'mean_x'))**2 + (f(est[k], 'mean_y') - f(tru[k], 'mean_y'))**2 for k in cells) / len(cells))**0.5
sd = lambda d, k: (f(d[k], 'std_x')**2 + f(d[k], 'std_y')**2)**0.5
print(f"{err:.4f} {sum(sd(est, k) for k in cells) / len(cells):.4f} {sum(sd(tru, k) for k in cells) / len(cells):.4f}")
PY
}
echo "setup noise_mm windows(v,a) noise_measured_mm | auto: rms_mean_err sd_est sd_true | fixed h=3: rms_mean_err sd_est"
for s in A B; do
  case $s in A) args="--seed 1 --stirring 1.0 --level 0.08";; B) args="--seed 2 --stirring 0.7 --level 0.06";; esac
  for n in 0 0.0005 0.001 0.002; do
    $REC --seconds 600 $args --noise $n --out $s-$n.csv --flow-out ${s}_flow.csv > /dev/null
    line=$($CAL flow-field --recording $s-$n.csv --out $s-$n-auto.csv | grep kinematics)
    $CAL flow-field --recording $s-$n.csv --out $s-$n-fixed.csv --half-window 3 > /dev/null
    w=$(echo "$line" | sed -E 's/.*noise ([0-9.]+) mm.*half windows ([0-9]+) .* and ([0-9]+) .*/\2,\3 \1/')
    echo "$s $n $w | $(compare $s-$n-auto.csv ${s}_flow.csv) | $(compare $s-$n-fixed.csv ${s}_flow.csv | cut -d' ' -f1-2)"
  done
done
