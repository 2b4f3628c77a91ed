//! rosbag2's `metadata.yaml` (format version 9, as Jazzy writes it) and the QoS profiles it
//! and the MCAP channels carry, plus the atomic rewrite that keeps the file readable
//! whenever the process dies.

use serde::Serialize;
use std::io::Write as _;
use std::path::Path;

/// The rosbag2 metadata version written (Jazzy's: QoS profiles as structured YAML with
/// policy names, `type_description_hash` per topic, `ros_distro`).
pub const METADATA_VERSION: u32 = 9;

/// Name of the metadata file in a bag directory.
pub const METADATA_FILE: &str = "metadata.yaml";

/// `RMW_DURATION_INFINITE` as rosbag2 records it from the ROS graph: s part.
const INFINITE_SEC: i64 = 9_223_372_036;
/// `RMW_DURATION_INFINITE`: ns part.
const INFINITE_NSEC: i64 = 854_775_807;

/// Durability a topic was offered with (all that differs between Flotilla's topics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Ordinary stream.
    Volatile,
    /// Latched: a late subscriber gets the last message.
    TransientLocal,
}

/// The QoS a topic was published with, stored the way rosbag2 does so that `ros2 bag play`
/// offers the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicQos {
    /// History depth (keep last), messages.
    pub depth: u32,
    /// Volatile or transient local; reliability is always reliable.
    pub durability: Durability,
}

impl TopicQos {
    /// Reliable, volatile, keep last 10 (rclcpp's default).
    pub const STREAM: TopicQos = TopicQos { depth: 10, durability: Durability::Volatile };
    /// Reliable, transient local, keep last 1.
    pub const LATCHED: TopicQos = TopicQos { depth: 1, durability: Durability::TransientLocal };

    /// The profile as rosbag2 (metadata version 9) writes it.
    pub(crate) fn profile(self) -> QosProfile {
        let infinite = RmwTime { sec: INFINITE_SEC, nsec: INFINITE_NSEC };
        QosProfile {
            history: "keep_last",
            depth: self.depth,
            reliability: "reliable",
            durability: match self.durability {
                Durability::Volatile => "volatile",
                Durability::TransientLocal => "transient_local",
            },
            deadline: infinite,
            lifespan: infinite,
            liveliness: "automatic",
            liveliness_lease_duration: infinite,
            avoid_ros_namespace_conventions: false,
        }
    }

    /// The `offered_qos_profiles` value of an MCAP channel: the YAML text of a one-profile
    /// list (rosbag2's `serialize_rclcpp_qos_vector`).
    pub(crate) fn channel_yaml(self) -> String {
        // Serializing plain structs of strings and integers cannot fail.
        serde_yaml::to_string(&[self.profile()]).unwrap_or_default().trim_end().to_owned()
    }
}

/// `rmw_time_t`.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct RmwTime {
    sec: i64,
    nsec: i64,
}

/// One offered QoS profile (rosbag2 `Rosbag2QoS`, version 9 encoding).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct QosProfile {
    history: &'static str,
    depth: u32,
    reliability: &'static str,
    durability: &'static str,
    deadline: RmwTime,
    lifespan: RmwTime,
    liveliness: &'static str,
    liveliness_lease_duration: RmwTime,
    avoid_ros_namespace_conventions: bool,
}

/// `std::chrono::nanoseconds` as rosbag2 writes it.
#[derive(Debug, Clone, Copy, Serialize)]
struct Nanoseconds {
    nanoseconds: u64,
}

/// A `time_point` as rosbag2 writes it.
#[derive(Debug, Clone, Copy, Serialize)]
struct SinceEpoch {
    nanoseconds_since_epoch: u64,
}

#[derive(Debug, Clone, Serialize)]
struct TopicMetadata<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    type_name: &'a str,
    serialization_format: &'a str,
    offered_qos_profiles: Vec<QosProfile>,
    type_description_hash: &'a str,
}

#[derive(Debug, Clone, Serialize)]
struct TopicInformation<'a> {
    topic_metadata: TopicMetadata<'a>,
    message_count: u64,
}

#[derive(Debug, Clone, Serialize)]
struct FileInformation<'a> {
    path: &'a str,
    starting_time: SinceEpoch,
    duration: Nanoseconds,
    message_count: u64,
}

/// rosbag2's `BagMetadata`, fields in the order rosbag2's YAML encoder writes them.
#[derive(Debug, Clone, Serialize)]
struct BagMetadataYaml<'a> {
    version: u32,
    storage_identifier: &'a str,
    duration: Nanoseconds,
    starting_time: SinceEpoch,
    message_count: u64,
    topics_with_message_count: Vec<TopicInformation<'a>>,
    compression_format: &'a str,
    compression_mode: &'a str,
    relative_file_paths: Vec<&'a str>,
    files: Vec<FileInformation<'a>>,
    custom_data: Option<()>,
    ros_distro: &'a str,
}

#[derive(Serialize)]
struct MetadataFile<'a> {
    rosbag2_bagfile_information: BagMetadataYaml<'a>,
}

/// A topic as the metadata lists it.
#[derive(Debug, Clone)]
pub(crate) struct TopicEntry {
    /// Topic name.
    pub name: String,
    /// Message type, `pkg/msg/Type`.
    pub type_name: String,
    /// The type's RIHS01 hash as the graph announces it.
    pub type_hash: String,
    /// The QoS the topic was recorded with.
    pub qos: TopicQos,
    /// Messages recorded on it.
    pub message_count: u64,
}

/// What `metadata.yaml` says about a bag of one MCAP file.
#[derive(Debug, Clone)]
pub(crate) struct BagMetadata {
    /// The MCAP file, relative to the bag directory.
    pub file: String,
    /// `ROS_DISTRO` of the recording.
    pub ros_distro: String,
    /// The recorded topics.
    pub topics: Vec<TopicEntry>,
    /// Earliest and latest message time, ns; `None` before the first message.
    pub time_range: Option<(u64, u64)>,
}

impl BagMetadata {
    pub fn message_count(&self) -> u64 {
        self.topics.iter().map(|t| t.message_count).sum()
    }

    fn yaml(&self) -> BagMetadataYaml<'_> {
        // rosbag2 starts `starting_time` at time_point::max() and keeps it there when
        // nothing was recorded.
        let (start, end) = self.time_range.unwrap_or((i64::MAX as u64, i64::MAX as u64));
        let duration = Nanoseconds { nanoseconds: end - start };
        let starting_time = SinceEpoch { nanoseconds_since_epoch: start };
        let message_count = self.message_count();
        BagMetadataYaml {
            version: METADATA_VERSION,
            storage_identifier: "mcap",
            duration,
            starting_time,
            message_count,
            topics_with_message_count: self
                .topics
                .iter()
                .map(|t| TopicInformation {
                    topic_metadata: TopicMetadata {
                        name: &t.name,
                        type_name: &t.type_name,
                        serialization_format: "cdr",
                        offered_qos_profiles: vec![t.qos.profile()],
                        type_description_hash: &t.type_hash,
                    },
                    message_count: t.message_count,
                })
                .collect(),
            compression_format: "",
            compression_mode: "",
            relative_file_paths: vec![&self.file],
            files: vec![FileInformation { path: &self.file, starting_time, duration, message_count }],
            custom_data: None,
            ros_distro: &self.ros_distro,
        }
    }

    /// The text of `metadata.yaml`.
    pub fn file_text(&self) -> String {
        // Plain structs of strings and integers always serialize.
        serde_yaml::to_string(&MetadataFile { rosbag2_bagfile_information: self.yaml() }).unwrap_or_default()
    }

    /// The same metadata without the outer key: the `serialized_metadata` entry of the MCAP
    /// file's `rosbag2` metadata record (rosbag2's MCAP plugin reads its version from it).
    pub fn serialized(&self) -> String {
        serde_yaml::to_string(&self.yaml()).unwrap_or_default()
    }
}

/// Replaces `path` by `text` so that a reader (or a process killed meanwhile) sees the old
/// file or the new one, never a mix: a temporary file beside it, then a rename.
pub(crate) fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let mut tmp_name = path.file_name().unwrap_or_default().to_owned();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(text.as_bytes())?;
    drop(file);
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_yaml::Value;

    fn bag() -> BagMetadata {
        BagMetadata {
            file: "run_0.mcap".into(),
            ros_distro: "jazzy".into(),
            topics: vec![
                TopicEntry {
                    name: "/tank/state".into(),
                    type_name: "flotilla_msgs/msg/TankState".into(),
                    type_hash: format!("RIHS01_{}", "ab".repeat(32)),
                    qos: TopicQos::STREAM,
                    message_count: 150,
                },
                TopicEntry {
                    name: "/tank/flow_field".into(),
                    type_name: "flotilla_msgs/msg/FlowField".into(),
                    type_hash: format!("RIHS01_{}", "cd".repeat(32)),
                    qos: TopicQos::LATCHED,
                    message_count: 1,
                },
            ],
            time_range: Some((25_000_000, 5_000_000_000)),
        }
    }

    fn get<'a>(v: &'a Value, path: &str) -> &'a Value {
        path.split('.').fold(v, |v, k| match k.parse::<usize>() {
            Ok(i) => &v[i],
            Err(_) => &v[k],
        })
    }

    /// Every key rosbag2's decoder reads for version 9, with the values of this bag.
    #[test]
    fn metadata_yaml_has_every_field_rosbag2_reads() {
        let text = bag().file_text();
        let root: Value = serde_yaml::from_str(&text).unwrap();
        let m = &root["rosbag2_bagfile_information"];
        for (path, want) in [
            ("version", Value::from(9)),
            ("storage_identifier", "mcap".into()),
            ("duration.nanoseconds", Value::from(4_975_000_000u64)),
            ("starting_time.nanoseconds_since_epoch", Value::from(25_000_000u64)),
            ("message_count", Value::from(151)),
            ("compression_format", "".into()),
            ("compression_mode", "".into()),
            ("relative_file_paths.0", "run_0.mcap".into()),
            ("files.0.path", "run_0.mcap".into()),
            ("files.0.message_count", Value::from(151)),
            ("files.0.duration.nanoseconds", Value::from(4_975_000_000u64)),
            ("files.0.starting_time.nanoseconds_since_epoch", Value::from(25_000_000u64)),
            ("custom_data", Value::Null),
            ("ros_distro", "jazzy".into()),
            ("topics_with_message_count.0.message_count", Value::from(150)),
            ("topics_with_message_count.0.topic_metadata.name", "/tank/state".into()),
            ("topics_with_message_count.0.topic_metadata.type", "flotilla_msgs/msg/TankState".into()),
            ("topics_with_message_count.0.topic_metadata.serialization_format", "cdr".into()),
            ("topics_with_message_count.1.topic_metadata.type_description_hash", format!("RIHS01_{}", "cd".repeat(32)).into()),
            ("topics_with_message_count.1.topic_metadata.offered_qos_profiles.0.durability", "transient_local".into()),
            ("topics_with_message_count.1.topic_metadata.offered_qos_profiles.0.depth", Value::from(1)),
            ("topics_with_message_count.0.topic_metadata.offered_qos_profiles.0.history", "keep_last".into()),
            ("topics_with_message_count.0.topic_metadata.offered_qos_profiles.0.reliability", "reliable".into()),
            ("topics_with_message_count.0.topic_metadata.offered_qos_profiles.0.liveliness", "automatic".into()),
            ("topics_with_message_count.0.topic_metadata.offered_qos_profiles.0.deadline.sec", Value::from(9_223_372_036i64)),
            ("topics_with_message_count.0.topic_metadata.offered_qos_profiles.0.lifespan.nsec", Value::from(854_775_807i64)),
            (
                "topics_with_message_count.0.topic_metadata.offered_qos_profiles.0.liveliness_lease_duration.sec",
                Value::from(9_223_372_036i64),
            ),
            ("topics_with_message_count.0.topic_metadata.offered_qos_profiles.0.avoid_ros_namespace_conventions", Value::from(false)),
        ] {
            assert_eq!(get(m, path), &want, "{path} in\n{text}");
        }
        // Version 9 stores QoS as a YAML list, not as a string of YAML (versions 4-8).
        assert!(get(m, "topics_with_message_count.0.topic_metadata.offered_qos_profiles").is_sequence());
        // The MCAP record holds the same mapping without the outer key.
        let inner: Value = serde_yaml::from_str(&bag().serialized()).unwrap();
        assert_eq!(&inner, m);
    }

    #[test]
    fn an_empty_bag_starts_at_time_point_max_as_rosbag2_writes_it() {
        let empty = BagMetadata { topics: Vec::new(), time_range: None, ..bag() };
        let root: Value = serde_yaml::from_str(&empty.file_text()).unwrap();
        let m = &root["rosbag2_bagfile_information"];
        assert_eq!(get(m, "starting_time.nanoseconds_since_epoch"), &Value::from(i64::MAX));
        assert_eq!(get(m, "duration.nanoseconds"), &Value::from(0));
        assert_eq!(get(m, "message_count"), &Value::from(0));
        assert!(get(m, "topics_with_message_count").as_sequence().unwrap().is_empty());
    }

    #[test]
    fn channel_qos_is_the_yaml_text_of_a_profile_list() {
        let text = TopicQos::LATCHED.channel_yaml();
        assert!(text.starts_with("- history: keep_last\n"), "{text}");
        let v: Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(v[0]["durability"], "transient_local");
        assert_eq!(v[0]["depth"], 1);
        assert_eq!(v[0]["deadline"]["nsec"], 854_775_807);
    }

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(METADATA_FILE);
        write_atomically(&path, "a: 1\n").unwrap();
        write_atomically(&path, "a: 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 2\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, [METADATA_FILE]);
    }
}
