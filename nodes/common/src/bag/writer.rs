//! A rosbag2 bag directory: `metadata.yaml` (version 9) and one MCAP file
//! `<name>_0.mcap` (profile `ros2`, `ros2msg` schemas, `cdr` messages, channel metadata
//! `offered_qos_profiles` and `topic_type_hash`, a `rosbag2` metadata record), the layout
//! `ros2 bag record -s mcap` leaves on Jazzy.
//!
//! Crash safety: the MCAP file is a complete file after every [`BagWriter::flush`]
//! (module `mcap_file`); `metadata.yaml` is replaced atomically when the bag is created,
//! when a flush follows a new topic, at most once per [`BagWriter::set_metadata_interval`]
//! otherwise, and at [`BagWriter::finish`]. A killed process leaves a bag that readers open
//! as is; its `metadata.yaml` may count fewer messages than the MCAP file holds (at most
//! one interval's worth), readers take the messages from the MCAP file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::mcap_file::McapFile;
use super::metadata::{write_atomically, BagMetadata, TopicEntry, METADATA_FILE};
use super::{TopicQos, TypeHash};

/// Why recording failed.
#[derive(Debug, thiserror::Error)]
pub enum BagError {
    /// The bag path names no directory (`/`, `..`, "").
    #[error("the bag path {0} does not name a directory")]
    BadPath(PathBuf),
    /// The path exists and is something else than a bag directory.
    #[error("{path} exists and is not a bag directory ({why}); choose another path or remove it")]
    NotABag {
        /// The path.
        path: PathBuf,
        /// What was found.
        why: String,
    },
    /// The directory or a file in it cannot be created.
    #[error("creating the bag {path}: {source}")]
    Create {
        /// The directory or file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing the MCAP file failed (disk full, file gone ...).
    #[error("writing the bag file {path}: {source}")]
    Write {
        /// The MCAP file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing `metadata.yaml` failed.
    #[error("writing {path}: {source}")]
    Metadata {
        /// The metadata file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A topic was added twice.
    #[error("topic {0} is already in the bag")]
    DuplicateTopic(String),
    /// A topic id of another bag.
    #[error("topic id {0} was not added to this bag")]
    UnknownTopic(usize),
}

/// A topic to record.
#[derive(Debug, Clone, Copy)]
pub struct Topic<'a> {
    /// Topic name, e.g. `/tank/state`.
    pub name: &'a str,
    /// Message type, `package/msg/Type`.
    pub type_name: &'a str,
    /// Full `ros2msg` definition (see [`super::MessageDefinitions`]).
    pub definition: &'a str,
    /// RIHS01 hash of the type, as rosidl generated it.
    pub type_hash: &'a TypeHash,
    /// QoS the topic is published with.
    pub qos: TopicQos,
}

/// A topic added to a bag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicId(usize);

/// A topic's MCAP channel and the sequence number of its last message.
struct Channel {
    id: u16,
    sequence: u32,
}

/// A rosbag2 bag directory being written.
pub struct BagWriter {
    dir: PathBuf,
    mcap: McapFile,
    metadata: BagMetadata,
    channels: Vec<Channel>,
    /// When `metadata.yaml` was last written.
    metadata_written: Instant,
    /// A topic was added since `metadata.yaml` was last written.
    topics_changed: bool,
    /// Whether the MCAP file has its `rosbag2` metadata record yet.
    record_written: bool,
    metadata_interval: Duration,
}

impl BagWriter {
    /// Default time between two `metadata.yaml` rewrites while recording, s.
    pub const METADATA_INTERVAL: Duration = Duration::from_secs(1);

    /// Creates the bag directory `dir` (a previous bag there is overwritten) with
    /// `<dir name>_0.mcap` and a `metadata.yaml` naming `ros_distro` (e.g. `jazzy`).
    pub fn create(dir: &Path, ros_distro: &str) -> Result<Self, BagError> {
        let name = dir.file_name().and_then(|n| n.to_str()).filter(|n| !n.is_empty() && *n != "..");
        let Some(name) = name else { return Err(BagError::BadPath(dir.to_owned())) };
        check_bag_dir(dir)?;
        std::fs::create_dir_all(dir).map_err(|source| BagError::Create { path: dir.to_owned(), source })?;
        let file = format!("{name}_0.mcap");
        let path = dir.join(&file);
        let mcap = McapFile::create(&path).map_err(|source| BagError::Create { path, source })?;
        let metadata = BagMetadata { file, ros_distro: ros_distro.to_owned(), topics: Vec::new(), time_range: None };
        let mut bag = Self {
            dir: dir.to_owned(),
            mcap,
            metadata,
            channels: Vec::new(),
            metadata_written: Instant::now(),
            topics_changed: false,
            record_written: false,
            metadata_interval: Self::METADATA_INTERVAL,
        };
        bag.write_metadata_file()?;
        Ok(bag)
    }

    /// Changes the time between two `metadata.yaml` rewrites while recording.
    pub fn set_metadata_interval(&mut self, interval: Duration) {
        self.metadata_interval = interval;
    }

    /// The bag directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The MCAP file.
    pub fn mcap_path(&self) -> &Path {
        self.mcap.path()
    }

    /// Messages written so far.
    pub fn message_count(&self) -> u64 {
        self.metadata.message_count()
    }

    /// Adds a topic: its schema, and a channel whose metadata carries the offered QoS and
    /// the type hash as rosbag2 writes them.
    pub fn add_topic(&mut self, topic: &Topic<'_>) -> Result<TopicId, BagError> {
        if self.metadata.topics.iter().any(|t| t.name == topic.name) {
            return Err(BagError::DuplicateTopic(topic.name.to_owned()));
        }
        let channel_metadata = BTreeMap::from([
            ("offered_qos_profiles".to_owned(), topic.qos.channel_yaml()),
            ("topic_type_hash".to_owned(), topic.type_hash.to_string()),
        ]);
        let id = self
            .mcap
            .add_channel(topic.name, topic.type_name, topic.definition, &channel_metadata)
            .map_err(|source| self.write_error(source))?;
        self.metadata.topics.push(TopicEntry {
            name: topic.name.to_owned(),
            type_name: topic.type_name.to_owned(),
            type_hash: topic.type_hash.to_string(),
            qos: topic.qos,
            message_count: 0,
        });
        self.channels.push(Channel { id, sequence: 0 });
        self.topics_changed = true;
        Ok(TopicId(self.channels.len() - 1))
    }

    /// Writes one CDR-serialized message stamped `time_ns` (ns; log and publish time).
    pub fn write(&mut self, topic: TopicId, time_ns: u64, cdr: &[u8]) -> Result<(), BagError> {
        let channel = self.channels.get_mut(topic.0).ok_or(BagError::UnknownTopic(topic.0))?;
        channel.sequence = channel.sequence.wrapping_add(1);
        let (id, sequence) = (channel.id, channel.sequence);
        self.mcap.write(id, sequence, time_ns, cdr).map_err(|source| self.write_error(source))?;
        self.metadata.topics[topic.0].message_count += 1;
        self.metadata.time_range = Some(match self.metadata.time_range {
            None => (time_ns, time_ns),
            Some((start, end)) => (start.min(time_ns), end.max(time_ns)),
        });
        Ok(())
    }

    /// Puts everything written into the MCAP file (a complete file again) and, when due,
    /// rewrites `metadata.yaml`: a crash after this loses nothing written before it.
    pub fn flush(&mut self) -> Result<(), BagError> {
        if !self.record_written && !self.metadata.topics.is_empty() {
            self.write_record()?;
            self.record_written = true;
        }
        self.mcap.flush().map_err(|source| self.write_error(source))?;
        if self.topics_changed || self.metadata_written.elapsed() >= self.metadata_interval {
            self.write_metadata_file()?;
        }
        Ok(())
    }

    /// Finishes the MCAP file (final `rosbag2` record, summary, footer) and writes the final
    /// `metadata.yaml`; returns the number of messages.
    pub fn finish(mut self) -> Result<u64, BagError> {
        self.write_record()?;
        let Self { dir, mcap, metadata, .. } = self;
        let path = mcap.path().to_owned();
        mcap.finish().map_err(|source| BagError::Write { path, source })?;
        let path = dir.join(METADATA_FILE);
        write_atomically(&path, &metadata.file_text()).map_err(|source| BagError::Metadata { path, source })?;
        Ok(metadata.message_count())
    }

    /// The MCAP `rosbag2` metadata record (`serialized_metadata`: the metadata without its
    /// outer key), from which rosbag2's MCAP plugin takes the metadata version.
    fn write_record(&mut self) -> Result<(), BagError> {
        let record = BTreeMap::from([("serialized_metadata".to_owned(), self.metadata.serialized())]);
        self.mcap.write_metadata("rosbag2", record).map_err(|source| self.write_error(source))
    }

    fn write_metadata_file(&mut self) -> Result<(), BagError> {
        let path = self.dir.join(METADATA_FILE);
        write_atomically(&path, &self.metadata.file_text()).map_err(|source| BagError::Metadata { path, source })?;
        self.metadata_written = Instant::now();
        self.topics_changed = false;
        Ok(())
    }

    fn write_error(&self, source: std::io::Error) -> BagError {
        BagError::Write { path: self.mcap.path().to_owned(), source }
    }
}

/// A bag may be written at `dir` if nothing is there, or an empty directory, or a previous
/// bag (a directory with `metadata.yaml`).
fn check_bag_dir(dir: &Path) -> Result<(), BagError> {
    let not_a_bag = |why: &str| BagError::NotABag { path: dir.to_owned(), why: why.to_owned() };
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(BagError::Create { path: dir.to_owned(), source }),
        Ok(m) if !m.is_dir() => Err(not_a_bag("a file")),
        Ok(_) if dir.join(METADATA_FILE).is_file() => Ok(()),
        Ok(_) => match std::fs::read_dir(dir).map(|mut entries| entries.next().is_none()) {
            Ok(true) => Ok(()),
            Ok(false) => Err(not_a_bag("a directory with files but no metadata.yaml")),
            Err(source) => Err(BagError::Create { path: dir.to_owned(), source }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_yaml::Value;

    fn hash(byte: &str) -> TypeHash {
        TypeHash::parse(&format!("RIHS01_{}", byte.repeat(32))).unwrap()
    }

    struct Fixture {
        state_hash: TypeHash,
        flow_hash: TypeHash,
    }

    impl Fixture {
        fn new() -> Self {
            Self { state_hash: hash("ab"), flow_hash: hash("cd") }
        }

        fn state(&self) -> Topic<'_> {
            Topic {
                name: "/tank/state",
                type_name: "pkg/msg/State",
                definition: "float64 t",
                type_hash: &self.state_hash,
                qos: TopicQos::STREAM,
            }
        }

        fn flow(&self) -> Topic<'_> {
            Topic {
                name: "/tank/flow_field",
                type_name: "pkg/msg/Flow",
                definition: "float64[] u",
                type_hash: &self.flow_hash,
                qos: TopicQos::LATCHED,
            }
        }
    }

    fn metadata(dir: &Path) -> Value {
        let text = std::fs::read_to_string(dir.join(METADATA_FILE)).unwrap();
        serde_yaml::from_str::<Value>(&text).unwrap()["rosbag2_bagfile_information"].clone()
    }

    fn counts(m: &Value) -> Vec<(String, u64)> {
        m["topics_with_message_count"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|t| (t["topic_metadata"]["name"].as_str().unwrap().to_owned(), t["message_count"].as_u64().unwrap()))
            .collect()
    }

    fn read_all(bytes: &[u8]) -> Vec<(String, u64, Vec<u8>)> {
        mcap::MessageStream::new(bytes)
            .unwrap()
            .map(|m| m.unwrap())
            .map(|m| (m.channel.topic.clone(), m.log_time, m.data.into_owned()))
            .collect()
    }

    #[test]
    fn a_finished_bag_is_a_directory_of_metadata_and_mcap_that_agree() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run");
        let f = Fixture::new();
        let mut bag = BagWriter::create(&dir, "jazzy").unwrap();
        let state = bag.add_topic(&f.state()).unwrap();
        let flow = bag.add_topic(&f.flow()).unwrap();
        assert!(matches!(bag.add_topic(&f.state()), Err(BagError::DuplicateTopic(_))));
        assert!(matches!(bag.write(TopicId(7), 0, &[]), Err(BagError::UnknownTopic(7))));
        bag.write(flow, 0, &[9]).unwrap();
        for i in 1..=3u8 {
            bag.write(state, u64::from(i) * 25_000_000, &[i]).unwrap();
            bag.flush().unwrap();
        }
        assert_eq!(bag.mcap_path(), dir.join("run_0.mcap"));
        assert_eq!(bag.finish().unwrap(), 4);

        let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        assert_eq!(names, ["metadata.yaml", "run_0.mcap"]);
        let m = metadata(&dir);
        assert_eq!(m["message_count"], 4);
        assert_eq!(m["relative_file_paths"][0], "run_0.mcap");
        assert_eq!(m["starting_time"]["nanoseconds_since_epoch"], 0);
        assert_eq!(m["duration"]["nanoseconds"], 75_000_000);
        assert_eq!(m["ros_distro"], "jazzy");
        assert_eq!(counts(&m), [("/tank/state".to_owned(), 3), ("/tank/flow_field".to_owned(), 1)]);
        assert_eq!(m["topics_with_message_count"][1]["topic_metadata"]["type_description_hash"], f.flow_hash.as_str());

        let bytes = std::fs::read(dir.join("run_0.mcap")).unwrap();
        let messages = read_all(&bytes);
        assert_eq!(messages.len(), 4);
        assert_eq!(messages[3], ("/tank/state".to_owned(), 75_000_000, vec![3]));
        let summary = mcap::Summary::read(&bytes).unwrap().expect("finished bag has a summary");
        let channel = summary.channels.values().find(|c| c.topic == "/tank/flow_field").unwrap();
        let schema = channel.schema.as_ref().unwrap();
        assert_eq!((schema.name.as_str(), schema.encoding.as_str()), ("pkg/msg/Flow", "ros2msg"));
        assert_eq!(channel.message_encoding, "cdr");
        assert_eq!(channel.metadata["topic_type_hash"], f.flow_hash.as_str());
        let qos: Value = serde_yaml::from_str(&channel.metadata["offered_qos_profiles"]).unwrap();
        assert_eq!(
            qos, m["topics_with_message_count"][1]["topic_metadata"]["offered_qos_profiles"],
            "channel and metadata.yaml offer the same QoS"
        );
        assert_eq!(summary.stats.unwrap().message_count, 4);
        // The last `rosbag2` record is the final metadata (rosbag2's MCAP plugin reads it).
        let record = summary.metadata_indexes.iter().rev().find(|i| i.name == "rosbag2").unwrap();
        let record = mcap::read::metadata(&bytes, record).unwrap();
        let serialized: Value = serde_yaml::from_str(&record.metadata["serialized_metadata"]).unwrap();
        assert_eq!(serialized, m);
    }

    #[test]
    fn a_killed_writer_leaves_a_readable_bag_with_metadata_at_most_one_interval_behind() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("crash");
        let f = Fixture::new();
        let mut bag = BagWriter::create(&dir, "jazzy").unwrap();
        // Before the first topic: an empty but valid bag.
        assert_eq!(counts(&metadata(&dir)), []);
        let state = bag.add_topic(&f.state()).unwrap();
        for i in 0..50u8 {
            bag.write(state, u64::from(i), &[i]).unwrap();
            bag.flush().unwrap();
        }
        // The first flush wrote metadata.yaml (a new topic); the next ones came within the
        // interval.
        assert_eq!(counts(&metadata(&dir)), [("/tank/state".to_owned(), 1)]);
        bag.set_metadata_interval(Duration::ZERO);
        bag.write(state, 50, &[50]).unwrap();
        bag.flush().unwrap();
        // A crash: no summary, no final metadata, no destructor.
        std::mem::forget(bag);
        let m = metadata(&dir);
        assert_eq!(counts(&m), [("/tank/state".to_owned(), 51)]);
        assert_eq!(m["duration"]["nanoseconds"], 50);
        let bytes = std::fs::read(dir.join("crash_0.mcap")).unwrap();
        assert!(bytes.ends_with(b"\x89MCAP0\r\n"), "the file ends in a footer and magic");
        assert!(mcap::Summary::read(&bytes).unwrap().is_none());
        let messages = read_all(&bytes);
        assert_eq!(messages.len(), 51);
        assert_eq!(messages.last().unwrap().2, vec![50]);
    }

    #[test]
    fn a_new_topic_rewrites_metadata_at_the_next_flush() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("topics");
        let f = Fixture::new();
        let mut bag = BagWriter::create(&dir, "jazzy").unwrap();
        let state = bag.add_topic(&f.state()).unwrap();
        bag.write(state, 1, &[1]).unwrap();
        bag.flush().unwrap();
        bag.add_topic(&f.flow()).unwrap();
        bag.flush().unwrap();
        assert_eq!(counts(&metadata(&dir)), [("/tank/state".to_owned(), 1), ("/tank/flow_field".to_owned(), 0)]);
    }

    #[test]
    fn only_an_empty_or_bag_directory_is_written_to() {
        let root = tempfile::tempdir().unwrap();
        let f = Fixture::new();
        // A previous bag is replaced.
        let dir = root.path().join("again");
        let mut first = BagWriter::create(&dir, "jazzy").unwrap();
        let t = first.add_topic(&f.state()).unwrap();
        first.write(t, 5, &[5]).unwrap();
        first.finish().unwrap();
        let second = BagWriter::create(&dir, "jazzy").unwrap();
        assert_eq!(second.finish().unwrap(), 0);
        assert_eq!(metadata(&dir)["message_count"], 0);
        assert!(read_all(&std::fs::read(dir.join("again_0.mcap")).unwrap()).is_empty());
        // An empty directory is taken.
        let empty = root.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        BagWriter::create(&empty, "jazzy").unwrap();
        // A file, or a directory of other files, is not.
        let file = root.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let err = BagWriter::create(&file, "jazzy").err().unwrap().to_string();
        assert!(err.contains("is not a bag directory (a file)"), "{err}");
        let other = root.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("notes.txt"), "x").unwrap();
        let err = BagWriter::create(&other, "jazzy").err().unwrap().to_string();
        assert!(err.contains("no metadata.yaml"), "{err}");
        assert!(matches!(BagWriter::create(Path::new("/"), "jazzy"), Err(BagError::BadPath(_))));
        assert!(matches!(BagWriter::create(&root.path().join(".."), "jazzy"), Err(BagError::BadPath(_))));
    }
}
