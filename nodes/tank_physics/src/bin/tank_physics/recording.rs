//! What the node records: every body's trajectory to CSV (each step it is due) and the
//! state topics (`/tank/state`, `/tf`, `/tank/flow_field`) to a rosbag2 bag directory
//! (`metadata.yaml` + MCAP), stamped with sim time. Both are flushed as they go, so a crash
//! loses nothing already published. A reset sends time back to 0: both continue in new
//! numbered files (`<stem>.<n>.csv`, bag `<dir>.<n>`).

use anyhow::Context as _;
use flotilla_common::bag::{BagWriter, MessageDefinitions, Topic, TopicId, TopicQos};
use flotilla_common::ros_bag::type_hash;
use r2r::flotilla_msgs::msg::{FlowField, TankState};
use r2r::tf2_msgs::msg::TFMessage;
use r2r::WrappedTypesupport;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use tank_physics::{TrajectoryRecorder, World};
use tracing::{info, warn};

use crate::settings::{numbered, RecordSettings};

/// The state topics in the bag.
struct StateBag {
    writer: BagWriter,
    state: TopicId,
    tf: TopicId,
    flow: TopicId,
}

impl StateBag {
    fn create(dir: &Path, definitions: &MessageDefinitions) -> anyhow::Result<Self> {
        // The bag names the distribution it was recorded with, as rosbag2 does.
        let distro = std::env::var("ROS_DISTRO").unwrap_or_default();
        let mut writer = BagWriter::create(dir, &distro)?;
        let state = add_topic::<TankState>(&mut writer, definitions, "/tank/state", "flotilla_msgs/msg/TankState", TopicQos::STREAM)?;
        let tf = add_topic::<TFMessage>(&mut writer, definitions, "/tf", "tf2_msgs/msg/TFMessage", TopicQos::STREAM)?;
        let flow = add_topic::<FlowField>(&mut writer, definitions, "/tank/flow_field", "flotilla_msgs/msg/FlowField", TopicQos::LATCHED)?;
        Ok(Self { writer, state, tf, flow })
    }

    fn write<T: WrappedTypesupport>(&mut self, topic: TopicId, msg: &T, sim_time: f64) -> anyhow::Result<()> {
        let cdr = msg.to_serialized_bytes().context("serializing a message")?;
        self.writer.write(topic, sim_time_ns(sim_time), &cdr)?;
        Ok(())
    }
}

/// Adds `name` of message type `T` (`type_name`) with its full definition and the type
/// hash of `T`'s type support.
fn add_topic<T: WrappedTypesupport>(
    writer: &mut BagWriter,
    definitions: &MessageDefinitions,
    name: &str,
    type_name: &str,
    qos: TopicQos,
) -> anyhow::Result<TopicId> {
    let definition = definitions.full_definition(type_name).with_context(|| format!("message definition of {type_name} for {name}"))?;
    let type_hash = type_hash::<T>().with_context(|| format!("type hash of {type_name} for {name}"))?;
    Ok(writer.add_topic(&Topic { name, type_name, definition: &definition, type_hash: &type_hash, qos })?)
}

/// Sim time as a bag timestamp, ns.
fn sim_time_ns(t: f64) -> u64 {
    (t.max(0.0) * 1e9).round() as u64
}

/// The node's recordings; a failing one is logged and stopped, the node goes on.
pub struct Recording {
    settings: RecordSettings,
    definitions: MessageDefinitions,
    csv: Option<TrajectoryRecorder<BufWriter<File>>>,
    bag: Option<StateBag>,
    /// Resets so far (numbers the files).
    resets: u32,
}

impl Recording {
    /// Opens the configured files; an unwritable path or a missing message definition is
    /// an error at start-up.
    pub fn open(settings: &RecordSettings) -> anyhow::Result<Self> {
        let mut recording =
            Self { settings: settings.clone(), definitions: MessageDefinitions::from_env(), csv: None, bag: None, resets: 0 };
        recording.csv = recording.open_csv(settings.trajectory_csv.clone())?;
        recording.bag = recording.open_bag(settings.bag.clone())?;
        Ok(recording)
    }

    fn open_csv(&self, path: Option<PathBuf>) -> anyhow::Result<Option<TrajectoryRecorder<BufWriter<File>>>> {
        path.map(|path| {
            TrajectoryRecorder::create(&path, self.settings.every_steps)
                .with_context(|| format!("opening the trajectory recording {}", path.display()))
        })
        .transpose()
    }

    fn open_bag(&self, dir: Option<PathBuf>) -> anyhow::Result<Option<StateBag>> {
        dir.map(|dir| StateBag::create(&dir, &self.definitions).with_context(|| format!("opening the bag {}", dir.display()))).transpose()
    }

    /// The trajectory frame of this step, if one is due.
    pub fn step(&mut self, world: &World) {
        if let Some(csv) = &mut self.csv {
            if let Err(e) = csv.record(world) {
                warn!("trajectory recording stopped: {e}");
                self.csv = None;
            }
        }
    }

    /// The state and TF messages just published, then everything to disk.
    pub fn state(&mut self, state: &TankState, tf: &TFMessage, sim_time: f64) {
        self.with_bag(|bag| {
            bag.write(bag.state, state, sim_time)?;
            bag.write(bag.tf, tf, sim_time)?;
            Ok(bag.writer.flush()?)
        });
    }

    /// The flow field just published (latched; again after pump changes and resets).
    pub fn flow(&mut self, flow: &FlowField, sim_time: f64) {
        self.with_bag(|bag| {
            bag.write(bag.flow, flow, sim_time)?;
            Ok(bag.writer.flush()?)
        });
    }

    fn with_bag(&mut self, write: impl FnOnce(&mut StateBag) -> anyhow::Result<()>) {
        if let Some(bag) = &mut self.bag {
            if let Err(e) = write(bag) {
                warn!(bag = %bag.writer.dir().display(), "bag recording stopped: {}", flotilla_common::error_chain::describe(e.as_ref()));
                self.bag = None;
            }
        }
    }

    /// Whether the bag takes the states (then `/tank/state` and `/tf` are made whoever
    /// listens).
    pub fn records_states(&self) -> bool {
        self.bag.is_some()
    }

    /// Closes the current files and continues in `<stem>.<n>.<ext>` after a reset.
    pub fn restart(&mut self) {
        self.finish();
        self.resets += 1;
        let n = self.resets;
        let csv = self.settings.trajectory_csv.as_ref().map(|p| numbered(p, n));
        let bag = self.settings.bag.as_ref().map(|p| numbered(p, n));
        match self.open_csv(csv) {
            Ok(csv) => self.csv = csv,
            Err(e) => warn!("cannot continue the trajectory recording after reset: {}", flotilla_common::error_chain::describe(e.as_ref())),
        }
        match self.open_bag(bag) {
            Ok(bag) => self.bag = bag,
            Err(e) => warn!("cannot continue the bag after reset: {}", flotilla_common::error_chain::describe(e.as_ref())),
        }
        if self.csv.is_some() || self.bag.is_some() {
            info!(reset = n, "recording continues in new files after the reset");
        }
    }

    /// Finishes both recordings (the bag's MCAP file gets its summary, `metadata.yaml` its
    /// final counts).
    pub fn finish(&mut self) {
        if let Some(csv) = self.csv.take() {
            if let Err(e) = csv.finish() {
                warn!("closing the trajectory recording: {e}");
            }
        }
        if let Some(bag) = self.bag.take() {
            let dir = bag.writer.dir().to_owned();
            match bag.writer.finish() {
                Ok(messages) => info!(bag = %dir.display(), messages, "bag closed"),
                Err(e) => warn!("closing the bag: {e}"),
            }
        }
    }
}
