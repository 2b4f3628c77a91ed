#!/usr/bin/env bash
# The main demo: the scenario's launch file through the Flotilla launcher. Runs on this
# machine's loopback only (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST) in the project's
# domain, so `eval "$(make -s env)"` in another shell sees it (rclpy, the node binaries).
# Usage: scripts/demo.sh DURATION SCENARIO   (DURATION in sim seconds, 0 = until Ctrl-C)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
duration=${1:-60}
scenario=${2:-lily_15}
[ -f "launch/$scenario.launch.yaml" ] || { echo "demo: no scenario launch/$scenario.launch.yaml (have: $(cd launch && ls *.launch.yaml | sed 's/\.launch\.yaml$//' | grep -v -x -e demo -e tank -e planner | tr '\n' ' '))" >&2; exit 2; }
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
target=${CARGO_TARGET_DIR:-target}
exec "$target/release/flotilla" launch launch/demo.launch.yaml "duration:=$duration" "scenario:=$scenario"
