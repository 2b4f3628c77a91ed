#!/usr/bin/env bash
# Prints the name of every executable of the node crates (each `[[bin]]` of
# nodes/*/Cargo.toml), one per line: the set that installs into lib/flotilla, used by
# scripts/setup.sh and ament/flotilla/CMakeLists.txt, so a new node needs no edit there.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
awk '/^\[\[bin\]\]/{bin=1; next} /^\[/{bin=0} bin && /^name *=/{gsub(/[" ]/,""); sub(/^name=/,""); print; bin=0}' \
    "$ROOT"/nodes/*/Cargo.toml
