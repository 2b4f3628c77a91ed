//! ROS 2 bag-compatible MCAP recording: what `ros2 bag record -s mcap` writes (profile
//! `ros2`, full `ros2msg` schemas, CDR messages, offered QoS per topic), closed in chunks
//! so that a crash loses nothing already flushed.
//!
//! The caller serializes messages (r2r's `to_serialized_bytes` gives CDR); this module
//! needs no ROS, so it is tested without one.

mod definitions;
mod writer;

pub use definitions::{DefinitionError, MessageDefinitions};
pub use writer::{BagError, BagWriter, Durability, TopicId, TopicQos};
