"""Reads the MCAP file of a Flotilla bag with Foxglove's ROS 2 reader (mcap-ros2-support),
which parses the stored ros2msg schemas and decodes CDR itself: an independent check that
the bag is a ROS 2 bag. Prints JSON: message count per topic and, per topic, the last message's fields
the e2e test compares.

Usage: python3 tests/read_bag.py BAG_DIRECTORY/NAME_0.mcap
"""
import json
import sys

from mcap_ros2.reader import read_ros2_messages


def main(path):
    counts, last = {}, {}
    for m in read_ros2_messages(path):
        topic = m.channel.topic
        counts[topic] = counts.get(topic, 0) + 1
        last[topic] = (m.schema.name, m.log_time_ns, m.ros_msg)
    summary = {"counts": counts, "schemas": {t: v[0] for t, v in last.items()}}
    if "/tank/state" in last:
        _, log_time, state = last["/tank/state"]
        summary["state"] = {
            "log_time_ns": log_time,
            "sim_time": state.sim_time,
            "step": state.step,
            "modules": [[m.name, m.pose.position.x, m.pose.position.y] for m in state.modules],
        }
    if "/tf" in last:
        summary["tf_frames"] = sorted(t.child_frame_id for t in last["/tf"][2].transforms)
    json.dump(summary, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
