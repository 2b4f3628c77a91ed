#!/usr/bin/env bash
# Every test: unit, behaviour and end-to-end, in a private network namespace (loopback
# only) when the kernel allows it. nextest runs each test in its own process, so every
# end-to-end test gets its own ROS context and ROS_DOMAIN_ID.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
# Style first: a formatting or lint violation fails the run before any test.
echo "[test] cargo fmt --check" >&2
cargo fmt --all --check
echo "[test] cargo clippy -D warnings" >&2
cargo clippy --release --workspace --all-targets -- -D warnings
# The real ROS 2 Jazzy launch library and `ros2` CLI (a test kit beside the project): the
# launch files are checked under them too. Installed here, outside the namespace (pip).
kit="$(cd .. && pwd)/shared/tools/ros2-jazzy-cli"
if [ -f "$kit/install.sh" ] && [ -n "${FLOTILLA_ROS_PREFIX:-}" ]; then
    echo "[test] installing the ROS 2 Jazzy CLI test kit (no-op once installed)" >&2
    bash "$kit/install.sh" "$FLOTILLA_ROS_PREFIX" "$HOME/.cache/flotilla/ros2-jazzy-cli" >&2
    export FLOTILLA_ROS2_CLI_ENV="$HOME/.cache/flotilla/ros2-jazzy-cli/env.sh"
else
    echo "[test] ../shared/tools/ros2-jazzy-cli not found: the real ros2 launch checks will be skipped" >&2
fi
# colcon, without and with its Cargo extensions, for the colcon workspace build test
# (tests/tests/colcon.rs); pip needs the network, so outside the namespace too.
echo "[test] installing colcon for the workspace build test (no-op once installed)" >&2
FLOTILLA_COLCON=$(bash scripts/setup.sh colcon) && FLOTILLA_COLCON_CARGO=$(bash scripts/setup.sh colcon-cargo) \
    && export FLOTILLA_COLCON FLOTILLA_COLCON_CARGO \
    || echo "[test] colcon could not be installed: the colcon workspace test will be skipped" >&2
# Compile (and fetch dev-dependencies) outside the namespace, which has no network.
cargo test --release --workspace --no-run
if cargo nextest --version >/dev/null 2>&1; then
    scripts/isolated.sh cargo nextest run --release --workspace --offline --no-fail-fast "$@"
else
    echo "[test] cargo-nextest not found; running end-to-end tests one at a time" >&2
    scripts/isolated.sh cargo test --release --workspace --offline --no-fail-fast -- --test-threads=1 "$@"
fi
scripts/isolated.sh cargo test --release --workspace --offline --doc
