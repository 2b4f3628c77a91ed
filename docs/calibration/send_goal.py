#!/usr/bin/env python3
"""Sends one goal to a running calibration node (`launch/calibration.launch.yaml`) with
rclpy, prints every feedback message with its wall time and the result.

Usage: python3 docs/calibration/send_goal.py RECORDING OUTPUT_DIR [--iterations N]
       [--swarm-size N] [--seed S] [--window SECONDS] [--job-settings FILE]
Exit 0 when the goal succeeded, 1 otherwise.
"""
import argparse
import os
import sys
import time

os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import rclpy  # noqa: E402
from rclpy.action import ActionClient  # noqa: E402
from rclpy.node import Node  # noqa: E402
from flotilla_msgs.action import Calibrate  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("recording")
    parser.add_argument("output_dir")
    parser.add_argument("--iterations", type=int, default=0)
    parser.add_argument("--swarm-size", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--window", type=float, default=0.0)
    parser.add_argument("--job-settings", default="", help="job settings YAML for this goal (as flotilla calibrate run --settings)")
    args = parser.parse_args()
    rclpy.init()
    node = Node("send_calibration_goal")
    client = ActionClient(node, Calibrate, "/calibration/calibrate")
    if not client.wait_for_server(timeout_sec=30.0):
        print("no /calibration/calibrate server", file=sys.stderr)
        return 1
    goal = Calibrate.Goal(recording=os.path.abspath(args.recording), output_dir=os.path.abspath(args.output_dir),
                          iterations=args.iterations, swarm_size=args.swarm_size, seed=args.seed, window=args.window,
                          job_settings_file=os.path.abspath(args.job_settings) if args.job_settings else "")
    started = time.monotonic()

    def on_feedback(msg):
        f = msg.feedback
        print(f"{time.monotonic() - started:7.1f} s  iteration {f.iteration}/{f.iterations}  best fitness {f.best_fitness:.4f} m^2  "
              f"parameters {[round(p, 3) for p in f.best_parameters]}", flush=True)

    future = client.send_goal_async(goal, feedback_callback=on_feedback)
    rclpy.spin_until_future_complete(node, future)
    handle = future.result()
    result_future = handle.get_result_async()
    rclpy.spin_until_future_complete(node, result_future)
    response = result_future.result()
    result = response.result
    print(f"{time.monotonic() - started:7.1f} s  status {response.status}  success {result.success}: {result.message}")
    print(f"parameters {list(result.parameters)}  parameter file {result.parameter_file}")
    node.destroy_node()
    rclpy.shutdown()
    return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main())
