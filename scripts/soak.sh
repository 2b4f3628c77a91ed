#!/usr/bin/env bash
# Soak: runs the lily_15 launch (physics, controllers, base station, camera, tracker) for
# MINUTES wall minutes and samples the resident memory of every process of the launch
# every PERIOD seconds. After a warm-up, the mean RSS of the first fifth of the samples is
# compared with the last fifth, per process: the soak passes when every process grew by at
# most LIMIT percent. Writes OUT/rss.csv (time_s,pid,name,rss_kb) and OUT/summary.txt.
#
# Usage: scripts/isolated.sh scripts/soak.sh [MINUTES=30] [OUT=soak_out] [RTF=0]
#   RTF: the physics' real-time factor (0 = as fast as it can; the camera renders at its
#   own sim-time rate and so sets the pace). Env: PERIOD (10 s), WARMUP (30 s), LIMIT (5).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
minutes=${1:-30}
out=${2:-soak_out}
rtf=${3:-0}
period=${PERIOD:-10}
warmup=${WARMUP:-30}
limit=${LIMIT:-5}
target=${CARGO_TARGET_DIR:-target}
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
mkdir -p "$out"
csv="$out/rss.csv"
echo "time_s,pid,name,rss_kb" > "$csv"

"$target/release/flotilla" launch launch/lily_15.launch.yaml "real_time_factor:=$rtf" \
    "metrics_csv:=$out/metrics.csv" --log-dir "$out/logs" > "$out/launch.log" 2>&1 &
launcher=$!
stop() {
    kill -INT "$launcher" 2>/dev/null || true
    wait "$launcher" 2>/dev/null || true
}
trap stop EXIT

# The launcher and every process below it.
tree() {
    local pid=$1
    echo "$pid"
    for child in $(pgrep -P "$pid" || true); do tree "$child"; done
}

start=$(date +%s)
end=$((start + minutes * 60))
sleep "$warmup"
while [ "$(date +%s)" -lt "$end" ]; do
    kill -0 "$launcher" 2>/dev/null || { echo "soak: the launch ended early (see $out/launch.log)" >&2; exit 1; }
    now=$(( $(date +%s) - start ))
    for pid in $(tree "$launcher"); do
        [ -r "/proc/$pid/status" ] || continue
        name=$(awk '/^Name:/ {print $2}' "/proc/$pid/status")
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
        [ -n "$rss" ] && echo "$now,$pid,$name,$rss" >> "$csv"
    done
    sleep "$period"
done
stop
trap - EXIT

# Per process: mean RSS of the first and the last fifth of its samples.
awk -F, -v limit="$limit" '
    NR > 1 { key = $3 "(" $2 ")"; n[key]++; rss[key, n[key]] = $4 }
    END {
        worst = 0; fail = 0
        printf "%-32s %8s %12s %12s %8s\n", "process", "samples", "first_kb", "last_kb", "growth%"
        for (k in n) {
            m = int(n[k] / 5); if (m < 1) m = 1
            a = 0; b = 0
            for (i = 1; i <= m; i++) { a += rss[k, i]; b += rss[k, n[k] - m + i] }
            a /= m; b /= m
            g = (a > 0) ? 100 * (b - a) / a : 0
            printf "%-32s %8d %12.0f %12.0f %8.2f\n", k, n[k], a, b, g
            if (g > limit) fail = 1
            if (g > worst) worst = g
        }
        printf "largest growth %.2f %% (limit %s %%): %s\n", worst, limit, fail ? "FAIL" : "PASS"
        exit fail
    }' "$csv" | tee "$out/summary.txt"
