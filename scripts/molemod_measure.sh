#!/usr/bin/env bash
# The MoleMOD physics measurements: the long motion chains (minutes each at 512-1024 solver
# passes) that `make test` leaves out. They are `#[ignore]`d tests in
# nodes/tank_physics/tests/molemod_*.rs, with the firmware's long planar scans
# (`#[ignore]`d tests under nodes/firmware/src/molemod); the suite keeps a shorter version of each (one start
# instead of several, one lead instead of both, a part of the chain), so CI stays within its
# time. Each prints its figures; docs/molemod_execution.md quotes them with date and load.
#
# Usage: scripts/molemod_measure.sh [FILTER]
#   FILTER  a nextest filter expression narrowing the set, e.g. 'binary(molemod_lift)' or
#           'test(/mirrored/)'; all of them by default (about 1.5 hours on 2 idle cores).
# Runs one test at a time (their wall times are part of what they measure) with output shown,
# under the nextest profile `measure` (no time limit; .config/nextest.toml).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh >&2
source build/env.sh
filter=${1:-all()}
echo "[measure] load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exec cargo nextest run --release -p tank_physics -p flotilla_firmware --no-default-features --profile measure \
    --run-ignored only --no-fail-fast --no-capture \
    -E "(binary(/^molemod_/) | (package(flotilla_firmware) & test(/^molemod::/))) & ($filter)"
