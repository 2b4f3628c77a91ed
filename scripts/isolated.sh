#!/usr/bin/env bash
# Runs a command with ROS 2 traffic confined to this machine: in a private network
# namespace with only loopback when the kernel allows it (unshare -n, then lo up),
# otherwise on the host with localhost-only discovery. A fresh ROS_DOMAIN_ID per call
# unless one is given.
set -euo pipefail
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
export ROS_DOMAIN_ID=${ROS_DOMAIN_ID:-$(( (RANDOM % 100) + 100 ))}
if [ -z "${FLOTILLA_IN_NETNS:-}" ] && unshare -n true 2>/dev/null; then
    export FLOTILLA_IN_NETNS=1
    exec unshare -n bash -c 'ip link set lo up && exec "$@"' isolated "$@"
fi
if [ -z "${FLOTILLA_IN_NETNS:-}" ] && unshare -rn true 2>/dev/null; then
    export FLOTILLA_IN_NETNS=1
    exec unshare -rn bash -c 'ip link set lo up && exec "$@"' isolated "$@"
fi
[ -n "${FLOTILLA_IN_NETNS:-}" ] || echo "[isolated] no network namespace available; DDS discovery limited to localhost" >&2
exec "$@"
