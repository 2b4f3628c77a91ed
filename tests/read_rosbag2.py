"""Reads a Flotilla bag directory with the `rosbags` package (Ternaris' pure-Python rosbag2
reader, independent of ROS and of Foxglove's reader): `rosbags.rosbag2.Reader` parses
metadata.yaml and opens the MCAP file through its storage plugin; `rosbags.highlevel.AnyReader`
builds the message types from the schemas stored in the bag, checks each topic's RIHS01
type hash against the one it computes from them (refusing the bag on a mismatch), and
decodes the CDR messages. Prints JSON: what metadata.yaml says (as rosbags reads it), what
the MCAP file holds, the computed type hashes, and the fields the e2e tests compare.

Usage: python3 tests/read_rosbag2.py BAG_DIRECTORY
"""
import json
import sys
from importlib.metadata import version
from pathlib import Path

from rosbags.highlevel import AnyReader
from rosbags.rosbag2 import Reader


def qos(profile):
    return {
        "history": profile.history.name.lower(),
        "depth": profile.depth,
        "reliability": profile.reliability.name.lower(),
        "durability": profile.durability.name.lower(),
    }


def main(path):
    bag = Path(path)
    out = {"reader": f"rosbags {version('rosbags')}"}
    with Reader(bag) as reader:
        out["metadata"] = {
            "message_count": reader.message_count,
            "start_time": reader.start_time,
            "end_time": reader.end_time,
            "ros_distro": reader.ros_distro,
            "topics": {
                c.topic: {
                    "type": c.msgtype,
                    "count": c.msgcount,
                    "type_hash": c.digest,
                    "serialization_format": c.ext.serialization_format,
                    "qos": [qos(p) for p in c.ext.offered_qos_profiles],
                }
                for c in reader.connections
            },
        }
        read = {}
        for connection, _, _ in reader.messages():
            read[connection.topic] = read.get(connection.topic, 0) + 1
        out["read_counts"] = read

    # AnyReader raises if a stored type hash differs from the one computed from the schemas.
    with AnyReader([bag]) as reader:
        out["computed_hashes"] = {c.msgtype: reader.typestore.hash_rihs01(c.msgtype) for c in reader.connections}
        steps, last = [], {}
        for connection, timestamp, raw in reader.messages():
            msg = reader.deserialize(raw, connection.msgtype)
            if connection.topic == "/tank/state":
                steps.append(msg.step)
            last[connection.topic] = (timestamp, msg)
        out["state_steps"] = steps
    if "/tank/state" in last:
        timestamp, state = last["/tank/state"]
        out["state"] = {
            "log_time_ns": timestamp,
            "sim_time": state.sim_time,
            "step": state.step,
            "modules": [[m.name, m.pose.position.x, m.pose.position.y] for m in state.modules],
        }
    if "/tf" in last:
        out["tf_frames"] = sorted(t.child_frame_id for t in last["/tf"][1].transforms)
    if "/tank/flow_field" in last:
        flow = last["/tank/flow_field"][1]
        out["flow"] = {"nx": flow.nx, "ny": flow.ny, "cells": len(flow.mean_x)}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
