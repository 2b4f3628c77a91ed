#!/usr/bin/env python3
"""A second, independent ROS 2 client: rclpy from the same prefix subscribes to /clock
and /tank/state of a running Flotilla world and reports what it received.

Exit 0 when both arrived (prints "clock ok <t>" and "tank_state ok <n> modules"), 1 on
timeout. Usage: python3 tests/rclpy_probe.py [--timeout SECONDS]
"""
import argparse
import os
import sys
import time

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import rclpy  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from flotilla_msgs.msg import TankState  # noqa: E402
from flotilla_msgs import action as _actions, srv as _services  # noqa: E402,F401  (all interfaces import)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--timeout", type=float, default=20.0, help="wall seconds to wait")
    args = parser.parse_args()
    rclpy.init()
    node = Node("rclpy_probe")
    got = {}

    def on_clock(msg):
        got.setdefault("clock", msg.clock.sec + msg.clock.nanosec * 1e-9)

    def on_state(msg):
        got.setdefault("tank_state", len(msg.modules))

    node.create_subscription(Clock, "/clock", on_clock, 10)
    node.create_subscription(TankState, "/tank/state", on_state, 10)
    deadline = time.monotonic() + args.timeout
    while len(got) < 2 and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
    node.destroy_node()
    rclpy.shutdown()
    if "clock" in got:
        print(f"clock ok {got['clock']:.3f}")
    if "tank_state" in got:
        print(f"tank_state ok {got['tank_state']} modules")
    if len(got) < 2:
        print(f"timeout after {args.timeout} s; received: {sorted(got)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
