//! ROS 2 bags as rosbag2 (Jazzy) writes them with the MCAP storage plugin: a directory with
//! `metadata.yaml` (version 9) and `<name>_0.mcap` (profile `ros2`, full `ros2msg` schemas,
//! CDR messages, offered QoS and RIHS01 type hash per channel), readable as is after every
//! flush, so that a crash loses nothing already flushed.
//!
//! The caller serializes messages (r2r's `to_serialized_bytes` gives CDR) and supplies the
//! type hashes (`flotilla_common::ros::type_hash` reads them from rosidl's type support);
//! this module needs no ROS, so it is tested without one.

mod definitions;
mod mcap_file;
mod metadata;
mod type_hash;
mod writer;

pub use definitions::{DefinitionError, MessageDefinitions};
pub use metadata::{Durability, TopicQos, METADATA_FILE, METADATA_VERSION};
pub use type_hash::{TypeHash, TypeHashError, RIHS_VERSION};
pub use writer::{BagError, BagWriter, Topic, TopicId};
