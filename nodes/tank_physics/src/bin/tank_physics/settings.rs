//! The node's parameters: the world's (validated by [`WorldConfig::from_params`]) plus
//! `run.*` (time control), `publish.*` (topic rates) and `robots.*` (how robots' readings
//! and commands travel), which only the node uses.

use flotilla_common::params::{self, take_section, ParamError};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_yaml::{Mapping, Value};
use tank_physics::run::check_rate;
pub use tank_physics::run::RunSettings;
use tank_physics::WorldConfig;

/// Topic rates, in Hz of sim time.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PublishSettings {
    /// `/tank/state` and `/tf`, Hz (sim time). Default 30 (the overhead camera's rate).
    pub state_rate: f64,
    /// `/tank/markers`, Hz (sim time). Default 10.
    pub marker_rate: f64,
    /// Every robot's `<name>/sensors`, Hz (sim time). Default 10.
    pub sensor_rate: f64,
    /// Fixed frame of every pose. Default `world`.
    pub frame_id: String,
    /// Every module's latched `/<name>/robot_description` (its URDF). Default true; a
    /// swarm turns it off (one publisher per module: docs/swarm_scale.md).
    pub robot_descriptions: bool,
}

impl Default for PublishSettings {
    fn default() -> Self {
        Self { state_rate: 30.0, marker_rate: 10.0, sensor_rate: 10.0, frame_id: "world".into(), robot_descriptions: true }
    }
}

/// How robots' readings and commands travel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interface {
    /// Each robot its own `/<robot>/sensors` and `/<robot>/cmd` (a robot with its own
    /// computer).
    #[default]
    PerRobot,
    /// One `/<system>/sensors` batch per tick and one `/<system>/cmd` subscription per
    /// system (swarms of small robots); systems without batch messages stay per robot.
    Batched,
}

/// The robots' interface.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RobotSettings {
    /// `per_robot` (default) or `batched`.
    pub interface: Interface,
}

/// Recording of every body's trajectory.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordSettings {
    /// Trajectory CSV (frame,time,id,x,y,heading,...), flushed every frame so a crash loses
    /// nothing; "" = no recording. After a reset the recording continues in `<stem>.<n>.csv`.
    #[serde(deserialize_with = "optional_path")]
    pub trajectory_csv: Option<PathBuf>,
    /// Record every this many physics steps. Default 1.
    pub every_steps: u64,
    /// ROS 2 bag (MCAP, sim-time stamps) of `/tank/state`, `/tf` and `/tank/flow_field`,
    /// flushed at every state message; "" = none. After a reset: `<stem>.<n>.mcap`.
    #[serde(deserialize_with = "optional_path")]
    pub mcap: Option<PathBuf>,
}

impl Default for RecordSettings {
    fn default() -> Self {
        Self { trajectory_csv: None, every_steps: 1, mcap: None }
    }
}

fn optional_path<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
    let s = String::deserialize(d)?;
    Ok(if s.is_empty() { None } else { Some(PathBuf::from(s)) })
}

/// `base` with ` .<n>` before its extension: `run.csv` -> `run.1.csv`.
pub fn numbered(base: &Path, n: u32) -> PathBuf {
    let stem = base.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = base.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    base.with_file_name(format!("{stem}.{n}{ext}"))
}

/// Everything the node is configured with.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// The simulated world.
    pub world: WorldConfig,
    /// Time control.
    pub run: RunSettings,
    /// `run.lockstep_timeout`, checked and converted.
    pub lockstep_timeout: Duration,
    /// Topic rates.
    pub publish: PublishSettings,
    /// Trajectory recording.
    pub record: RecordSettings,
    /// The robots' interface.
    pub robots: RobotSettings,
}

impl NodeSettings {
    /// Splits and validates a parameter tree (standard ROS keys are ignored).
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let mut world_tree = params::without_standard(tree);
        let run = take_section::<RunSettings>(&mut world_tree, "run")?;
        let publish = take_section::<PublishSettings>(&mut world_tree, "publish")?;
        let record = take_section::<RecordSettings>(&mut world_tree, "record")?;
        let robots = take_section::<RobotSettings>(&mut world_tree, "robots")?;
        if record.every_steps == 0 {
            return Err(ParamError::invalid("record.every_steps", "must be at least 1"));
        }
        let lockstep_timeout = run.check()?;
        for (key, rate) in [
            ("publish.state_rate", publish.state_rate),
            ("publish.marker_rate", publish.marker_rate),
            ("publish.sensor_rate", publish.sensor_rate),
        ] {
            check_rate(key, rate)?;
        }
        let world = WorldConfig::from_params(&Value::Mapping(world_tree)).map_err(|e| ParamError::invalid(e.key(), e.reason()))?;
        Ok(Self { world, run, lockstep_timeout, publish, record, robots })
    }

    /// Modules the scenario spawns at start.
    pub fn world_module_count(&self) -> usize {
        self.world.initial_module_count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(yaml: &str) -> Result<NodeSettings, ParamError> {
        NodeSettings::from_tree(&serde_yaml::from_str(yaml).unwrap())
    }

    /// Issue 21 item 2: `run.real_time_factor: 1e-300` passed validation and panicked the
    /// physics thread on the wall-clock conversion (then heap corruption on exit).
    #[test]
    fn item2_tiny_real_time_factor_is_refused() {
        for (yaml, key) in [
            ("run: {real_time_factor: 1.0e-300}", "run.real_time_factor"),
            ("run: {real_time_factor: 1.0e300}", "run.real_time_factor"),
            ("run: {lockstep_timeout: 1.0e300}", "run.lockstep_timeout"),
            ("publish: {state_rate: 1.0e-300}", "publish.state_rate"),
        ] {
            let msg = settings(yaml).unwrap_err().to_string();
            assert!(msg.contains(key), "{yaml}: {msg}");
        }
        assert_eq!(settings("run: {real_time_factor: 0.0}").unwrap().run.real_time_factor, 0.0);
    }
}
