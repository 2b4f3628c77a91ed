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
# Compile (and fetch dev-dependencies) outside the namespace, which has no network.
cargo test --release --workspace --no-run
if cargo nextest --version >/dev/null 2>&1; then
    scripts/isolated.sh cargo nextest run --release --workspace --offline --no-fail-fast "$@"
else
    echo "[test] cargo-nextest not found; running end-to-end tests one at a time" >&2
    scripts/isolated.sh cargo test --release --workspace --offline --no-fail-fast -- --test-threads=1 "$@"
fi
scripts/isolated.sh cargo test --release --workspace --offline --doc
