#!/usr/bin/env bash
# Kilobot self-assembly through ROS at swarm scale (docs/kilobot.md, "Through ROS"): the
# kilobot_table node and the kilobot_swarm host, as launch/kilobot_self_assembly.launch.yaml
# starts them, each under /usr/bin/time; the table stops by itself after DURATION s of sim
# time, then the host gets SIGINT. Prints both summaries and per-process CPU and peak memory.
#
#   scripts/isolated.sh scripts/kilobot_ros_bench.sh [ROBOTS] [DURATION]
#   (env: SHAPE, SCALE, LOCKSTEP=true|false, SEED; needs `make build`)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${FLOTILLA_BIN:-$ROOT/target/release}
ROBOTS=${1:-1024}
DURATION=${2:-60}
SHAPE=${SHAPE:-$ROOT/config/shapes/k_shape.png}
SCALE=${SCALE:-0.6045}
LOCKSTEP=${LOCKSTEP:-true}
SEED=${SEED:-1}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
FORMAT="%C: %U s user, %S s system, %e s wall, %M kB peak RSS"
/usr/bin/time -f "$FORMAT" -o "$OUT/swarm.time" "$BIN/kilobot_swarm" --ros-args \
    -p shape.image:="$SHAPE" -p shape.scale:="$SCALE" -p robots:="$ROBOTS" -p seed:="$SEED" >"$OUT/swarm.log" 2>&1 &
TIMER=$!
/usr/bin/time -f "$FORMAT" -o "$OUT/table.time" "$BIN/kilobot_table" --ros-args \
    -p seed:="$SEED" -p robots.placement:=topic -p run.lockstep:="$LOCKSTEP" -p run.real_time_factor:=0.0 \
    -p run.max_sim_time:="$DURATION" -p publish.sensor_rate:=1000.0 >"$OUT/table.log" 2>&1 || {
    cat "$OUT/table.log" >&2
    exit 1
}
# The host is the child of its /usr/bin/time (which ignores SIGINT itself).
pkill -INT -P "$TIMER" || true
wait "$TIMER" || true
echo "robots: $ROBOTS + 4 seeds, shape $SHAPE x $SCALE, lockstep $LOCKSTEP, $DURATION s of sim time"
grep -h "summary" "$OUT/table.log" "$OUT/swarm.log" | sed 's/^.*summary/summary/'
for p in table swarm; do
    line=$(cat "$OUT/$p.time")
    read -r user sys wall <<<"$(sed -E 's/.*: ([0-9.]+) s user, ([0-9.]+) s system, ([0-9.]+) s wall.*/\1 \2 \3/' <<<"$line")"
    echo "kilobot_$p: $(sed -E 's/^[^:]*: //' <<<"$line"), CPU $(awk -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN { printf "%.0f %%", 100 * (u + s) / w }')"
done
