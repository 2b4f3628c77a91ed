//! The MCAP writer: rosbag2's layout (profile `ros2`, `ros2msg` schemas, `cdr` messages,
//! `offered_qos_profiles` per channel) with a chunk closed at every [`BagWriter::flush`],
//! so a killed process leaves a file whose messages up to the last flush all read back
//! (the summary is missing; `mcap recover` or any linear reader handles that).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Why recording failed.
#[derive(Debug, thiserror::Error)]
pub enum BagError {
    /// The file cannot be created.
    #[error("creating the bag {path}: {source}")]
    Create {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing failed (disk full, file gone ...).
    #[error("writing the bag {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The MCAP error.
        source: mcap::McapError,
    },
    /// A topic was added twice.
    #[error("topic {0} is already in the bag")]
    DuplicateTopic(String),
}

/// Durability a topic was offered with (all that differs between Flotilla's topics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Ordinary stream.
    Volatile,
    /// Latched: a late subscriber gets the last message.
    TransientLocal,
}

/// The QoS a topic was published with, stored the way rosbag2 (Jazzy) does so that
/// `ros2 bag play` offers the same.
#[derive(Debug, Clone, Copy)]
pub struct TopicQos {
    /// History depth (keep last).
    pub depth: u32,
    /// Volatile or transient local; reliability is always reliable.
    pub durability: Durability,
}

impl TopicQos {
    /// Reliable, volatile, keep last 10 (rclcpp's default).
    pub const STREAM: TopicQos = TopicQos { depth: 10, durability: Durability::Volatile };
    /// Reliable, transient local, keep last 1.
    pub const LATCHED: TopicQos = TopicQos { depth: 1, durability: Durability::TransientLocal };

    fn to_yaml(self) -> String {
        let durability = match self.durability {
            Durability::Volatile => "volatile",
            Durability::TransientLocal => "transient_local",
        };
        let infinite = "\n    sec: 9223372036\n    nsec: 854775807";
        format!(
            "- history: keep_last\n  depth: {}\n  reliability: reliable\n  durability: {durability}\n  \
             deadline:{infinite}\n  lifespan:{infinite}\n  liveliness: automatic\n  \
             liveliness_lease_duration:{infinite}\n  avoid_ros_namespace_conventions: false",
            self.depth
        )
    }
}

/// A topic added to a bag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicId(usize);

/// A topic's channel and the sequence number of its last message.
struct Topic {
    name: String,
    channel: u16,
    sequence: u32,
}

/// An MCAP file being written.
pub struct BagWriter {
    inner: mcap::Writer<BufWriter<File>>,
    path: PathBuf,
    topics: Vec<Topic>,
    messages: u64,
}

impl BagWriter {
    /// Creates (truncates) the file.
    pub fn create(path: &Path) -> Result<Self, BagError> {
        let file = File::create(path).map_err(|source| BagError::Create { path: path.to_owned(), source })?;
        let inner = mcap::WriteOptions::new()
            .profile("ros2")
            .library(concat!("flotilla ", env!("CARGO_PKG_VERSION")))
            .compression(None)
            .create(BufWriter::new(file))
            .map_err(|source| BagError::Write { path: path.to_owned(), source })?;
        Ok(Self { inner, path: path.to_owned(), topics: Vec::new(), messages: 0 })
    }

    /// Where the bag is written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Messages written so far.
    pub fn message_count(&self) -> u64 {
        self.messages
    }

    /// Adds a topic of `type_name` (`pkg/msg/Type`) with its full `ros2msg` definition.
    pub fn add_topic(&mut self, topic: &str, type_name: &str, definition: &str, qos: TopicQos) -> Result<TopicId, BagError> {
        if self.topics.iter().any(|t| t.name == topic) {
            return Err(BagError::DuplicateTopic(topic.to_owned()));
        }
        let schema = self.inner.add_schema(type_name, "ros2msg", definition.as_bytes()).map_err(|e| self.write_error(e))?;
        let metadata = BTreeMap::from([("offered_qos_profiles".to_owned(), qos.to_yaml())]);
        let channel = self.inner.add_channel(schema, topic, "cdr", &metadata).map_err(|e| self.write_error(e))?;
        self.topics.push(Topic { name: topic.to_owned(), channel, sequence: 0 });
        Ok(TopicId(self.topics.len() - 1))
    }

    /// Writes one CDR-serialized message stamped `time_ns` (ns; log and publish time).
    pub fn write(&mut self, topic: TopicId, time_ns: u64, cdr: &[u8]) -> Result<(), BagError> {
        let entry = &mut self.topics[topic.0];
        entry.sequence += 1;
        let header =
            mcap::records::MessageHeader { channel_id: entry.channel, sequence: entry.sequence, log_time: time_ns, publish_time: time_ns };
        self.inner.write_to_known_channel(&header, cdr).map_err(|e| self.write_error(e))?;
        self.messages += 1;
        Ok(())
    }

    /// Closes the current chunk and hands everything to the OS: a crash after this loses
    /// nothing written before it.
    pub fn flush(&mut self) -> Result<(), BagError> {
        self.inner.flush().map_err(|e| self.write_error(e))
    }

    /// Writes the summary and footer; returns the number of messages.
    pub fn finish(mut self) -> Result<u64, BagError> {
        self.inner.finish().map_err(|e| self.write_error(e))?;
        Ok(self.messages)
    }

    fn write_error(&self, source: mcap::McapError) -> BagError {
        BagError::Write { path: self.path.clone(), source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8]) -> (Vec<(String, u64, Vec<u8>)>, bool) {
        let mut out = Vec::new();
        let mut complete = true;
        for message in mcap::MessageStream::new(bytes).unwrap() {
            match message {
                Ok(m) => out.push((m.channel.topic.clone(), m.log_time, m.data.into_owned())),
                Err(_) => {
                    complete = false;
                    break;
                }
            }
        }
        (out, complete)
    }

    #[test]
    fn messages_schemas_and_qos_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.mcap");
        let mut bag = BagWriter::create(&path).unwrap();
        let state = bag.add_topic("/tank/state", "pkg/msg/State", "float64 t", TopicQos::STREAM).unwrap();
        let flow = bag.add_topic("/tank/flow_field", "pkg/msg/Flow", "float64[] u", TopicQos::LATCHED).unwrap();
        assert!(matches!(bag.add_topic("/tank/state", "pkg/msg/State", "", TopicQos::STREAM), Err(BagError::DuplicateTopic(_))));
        bag.write(flow, 0, &[9]).unwrap();
        for i in 1..=3u8 {
            bag.write(state, u64::from(i) * 25_000_000, &[i]).unwrap();
        }
        assert_eq!(bag.finish().unwrap(), 4);

        let bytes = std::fs::read(&path).unwrap();
        let (messages, complete) = read_all(&bytes);
        assert!(complete);
        assert_eq!(messages.len(), 4);
        assert_eq!(messages[3], ("/tank/state".to_owned(), 75_000_000, vec![3]));
        let summary = mcap::Summary::read(&bytes).unwrap().expect("finished bag has a summary");
        let channel = summary.channels.values().find(|c| c.topic == "/tank/flow_field").unwrap();
        let schema = channel.schema.as_ref().unwrap();
        assert_eq!((schema.name.as_str(), schema.encoding.as_str()), ("pkg/msg/Flow", "ros2msg"));
        assert_eq!(channel.message_encoding, "cdr");
        assert!(channel.metadata["offered_qos_profiles"].contains("durability: transient_local"));
        assert_eq!(summary.stats.unwrap().message_count, 4);
    }

    #[test]
    fn a_crash_after_flush_loses_nothing_flushed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crash.mcap");
        let mut bag = BagWriter::create(&path).unwrap();
        let state = bag.add_topic("/tank/state", "pkg/msg/State", "float64 t", TopicQos::STREAM).unwrap();
        for i in 0..50u8 {
            bag.write(state, u64::from(i), &[i]).unwrap();
            bag.flush().unwrap();
        }
        // A crash: no summary, no footer, no destructor.
        std::mem::forget(bag);
        let bytes = std::fs::read(&path).unwrap();
        let (messages, complete) = read_all(&bytes);
        assert!(!complete, "an unfinished bag has no footer");
        assert_eq!(messages.len(), 50);
        assert_eq!(messages.last().unwrap().2, vec![49]);
    }
}
