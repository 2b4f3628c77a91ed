//! The node's parameters: the world's (validated by [`WorldConfig::from_params`]) plus
//! `run.*` (time control), `publish.*` (topic rates) and `robots.*` (how robots' readings
//! and commands travel), which only the node uses.

use flotilla_common::param_spec::{DefaultValue, Kind, NodeParams, ParamSpec as P};
use flotilla_common::params::{self, take_section, ParamError};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_yaml::{Mapping, Value};
pub use tank_physics::run::RunSettings;
use tank_physics::run::{check_rate, rate_param, RUN_PARAMS};
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
    /// Every module's latched `/<name>/robot_description` (its URDF) and link frames
    /// (fixed joints on `/tf_static`, movable ones at position zero on `/tf`), for rviz's
    /// RobotModel. Default true; a swarm turns it off (one publisher per module:
    /// docs/swarm_scale.md).
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
    /// rosbag2 bag directory (`metadata.yaml` + `<name>_0.mcap`, sim-time stamps) of
    /// `/tank/state`, `/tf` and `/tank/flow_field`, flushed at every state message; "" =
    /// none. After a reset the recording continues in the bag `<dir>.<n>`.
    #[serde(deserialize_with = "optional_path")]
    pub bag: Option<PathBuf>,
}

impl Default for RecordSettings {
    fn default() -> Self {
        Self { trajectory_csv: None, every_steps: 1, bag: None }
    }
}

/// Keys that are gone, with what replaced them: refused at start-up with this message
/// rather than as unknown keys.
const REPLACED_KEYS: &[(&str, &str)] =
    &[("record.mcap", "was replaced by record.bag: a rosbag2 bag directory (metadata.yaml + MCAP file) instead of a bare .mcap file")];

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

/// The node's parameters for ROS 2 tools (`ros2 param describe /tank_physics <name>`):
/// checked against [`NodeSettings::from_tree`] by the `table_matches_the_validation` test.
/// Only `hydro.*` is applied while the node runs; the rest is read at start-up.
pub const PARAMS: NodeParams = NodeParams { groups: &[OWN_PARAMS, RUN_PARAMS], extras_live: false };

/// The node's own entries of [`PARAMS`].
const OWN_PARAMS: &[P] = &[
        P::double("dt", 0.025, "Physics time step, s").range(1e-4, 0.1),
        P::integer("seed", 0, "Seed of the world's randomness (spawn poses, thruster imperfections, flow noise) and of resets without one").int_range(0, i64::MAX),
        P::integer("solver_iterations", 2, "Constraint-solver iterations per step").int_range(1, 32),
        P::string("arena.kind", "round_tank", "Arena: round_tank, rect_tank, open_water or table"),
        P::double("arena.diameter", 0.6, "Inner diameter of the round tank, m").range(0.1, 10.0),
        P::new("arena.size_x", DefaultValue::Unset(Kind::Double), "Inner size along x of a rectangular tank or table, spawn area of open water, m (default by kind: rect_tank 1.26, open_water 2, table 1)").range(0.1, 50.0),
        P::new("arena.size_y", DefaultValue::Unset(Kind::Double), "Inner size along y, m (default by kind: rect_tank 0.68, open_water 2, table 1)").range(0.1, 50.0),
        P::double("arena.depth", 0.3, "Depth of the tank from floor to rim, m").range(0.05, 10.0),
        P::double("arena.water_level", -0.08, "Water surface relative to the rim (negative: below), m; at least 3 cm above the floor (range shown for the default depth)").range(-0.27, 0.0),
        P::double("arena.wall_thickness", 0.1, "Thickness of the wall colliders, m").range(0.001, 0.5),
        P::integer("arena.wall_segments", 48, "Wall segments of the round tank").int_range(8, 1024),
        P::new("arena.inlets.count", DefaultValue::Unset(Kind::Integer), "Inlets (= pumps) of the round tank, evenly spaced from +x (default 7 in the round tank, 0 elsewhere)").int_range(0, 64),
        P::double("arena.inlets.deflection_deg", 15.0, "Deflection of each jet from the inward radial direction, counter-clockwise, deg").range(-89.0, 89.0),
        P::double("arena.inlets.nozzle_below_rim", 0.11, "Depth of the nozzles below the rim, m (at most the depth; range shown for the default depth)").range(0.0, 0.3),
        P::double("arena.inlets.nozzle_diameter", 0.008, "Inner diameter of a nozzle, m").range(0.001, 0.1),
        P::double("arena.inlets.max_flow_lpm", 9.0, "Flow of one pump at 100 % power, L/min").range(0.0, 200.0),
        P::new("medium", DefaultValue::Unset(Kind::String), "What the bodies live in (e.g. water, air); absent: the arena's usual medium"),
        P::new("pumps.power", DefaultValue::Unset(Kind::Doubles), "Power of each pump, % of the maximum flow: one value for all or one per inlet (default 68.6 each)").range(0.0, 100.0),
        P::double("hydro.kv", 1.24, "Kv: scale of the sampled flow velocity (dimensionless)").range(0.1, 5.0).live(),
        P::double("hydro.kf", 2.266, "KF: scale of the quadratic drag force (dimensionless)").range(0.01, 10.0).live(),
        P::double("hydro.sigma_stoch", 195.25, "sigma_stoch: standard deviation of the stochastic force per axis, mN").range(0.0, 1000.0).live(),
        P::double("hydro.d_linear", 0.3483, "D_linear: fraction of the linear velocity removed per second, 1/s").range(0.0, 1.0).live(),
        P::double("hydro.d_angular", 0.2476, "D_angular: fraction of the angular velocity removed per second, 1/s").range(0.0, 1.0).live(),
        P::integer("hydro.face_sections", 10, "Sections each face is split into for the drag integral").int_range(1, 100).live(),
        P::double("hydro.water_density", 1000.0, "Water density rho, kg/m^3").range(500.0, 1500.0).live(),
        P::double("hydro.flow_correlation_time", 0.0, "Correlation time of the flow fluctuation along a body's path, s (0: a fresh draw every step)").range(0.0, 10.0).live(),
        P::new("flow_field.file", DefaultValue::Unset(Kind::String), "Measured flow-field CSV; absent or \"\": the parametric model"),
        P::double("flow_field.measured_at_power", 68.6, "Mean pump power the measured field was recorded at, %").range(1.0, 100.0),
        P::integer("flow_field.cells", 50, "Cells per side of the parametric model's grid").int_range(2, 1000),
        P::double("flow_field.jet_decay", 6.0, "Centre-line decay constant K of a round turbulent jet (dimensionless)").range(0.5, 20.0),
        P::double("flow_field.jet_spread", 0.15, "Growth of the jet's 1/e half-width with distance (dimensionless)").range(0.01, 1.0),
        P::double("flow_field.jet_reach", 0.15, "Distance along a jet over which it leaves the surface, m").range(0.01, 10.0),
        P::double("flow_field.surface_coupling_depth", 0.03, "Depth scale of the nozzle-to-surface coupling, m").range(0.001, 1.0),
        P::double("flow_field.swirl_gain", 1.0, "Tank-wide rotation relative to the jets' tangential speed (dimensionless)").range(0.0, 5.0),
        P::double("flow_field.turbulence", 0.4, "Standard deviation per unit of mean speed in each cell (dimensionless)").range(0.0, 5.0),
        P::double("flow_field.noise_floor", 0.05, "Background standard deviation at 100 % power and full coupling, m/s").range(0.0, 2.0),
        P::double("spawn.min_separation", 0.002, "Smallest gap between randomly placed modules, m").range(0.0, 1.0),
        P::double("spawn.wall_margin", 0.005, "Smallest gap between a randomly placed module and the wall, m").range(0.0, 1.0),
        P::integer("spawn.max_attempts", 10_000, "Random placement attempts before giving up").int_range(1, 10_000_000),
        P::double("contact.friction", 0.2, "Coulomb friction coefficient (dimensionless)").range(0.0, 2.0),
        P::double("contact.restitution", 0.3, "Restitution coefficient (dimensionless)").range(0.0, 1.0),
        P::double("thrusters.direction_error", 0.0, "Largest thrust direction error: offset U(0, this) parallel to the face added to the unit direction (dimensionless), drawn per thruster at spawn").range(0.0, 1.0),
        P::double("thrusters.failure_probability", 0.0, "Probability that a thruster is broken for good, drawn per thruster at spawn (0..1)").range(0.0, 1.0),
        rate_param("publish.state_rate", 30.0, "Rate of /tank/state and /tf, Hz of sim time"),
        rate_param("publish.marker_rate", 10.0, "Rate of /tank/markers, Hz of sim time"),
        rate_param("publish.sensor_rate", 10.0, "Rate of every robot's sensors, Hz of sim time"),
        P::string("publish.frame_id", "world", "Fixed frame of every pose"),
        P::boolean("publish.robot_descriptions", true, "Publish every module's latched /<name>/robot_description (URDF) and its link frames (/tf_static, movable joints on /tf)"),
        P::string("record.trajectory_csv", "", "Trajectory CSV (frame,time,id,x,y,heading,...), flushed every frame; \"\" = none"),
        P::integer("record.every_steps", 1, "Record every this many physics steps").int_range(1, i64::MAX),
        P::string("record.bag", "", "rosbag2 bag directory (metadata.yaml + MCAP) of /tank/state, /tf and /tank/flow_field; \"\" = none"),
        P::string("robots.interface", "per_robot", "per_robot (a topic pair per robot) or batched (one per system)"),
];

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
        for (key, why) in REPLACED_KEYS {
            if params::get_dotted(tree, key).or_else(|| tree.get(*key)).is_some() {
                return Err(ParamError::invalid(*key, why));
            }
        }
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

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        assert_eq!(PARAMS.check_against(NodeSettings::from_tree), Ok(()));
    }

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

    /// Issue 20 item 5: the bare-MCAP key is refused with a message naming its successor.
    #[test]
    fn record_mcap_is_refused_naming_record_bag() {
        for yaml in ["record: {mcap: /tmp/run.mcap}", "record: {mcap: \"\"}", "record.mcap: /tmp/run.mcap"] {
            let msg = settings(yaml).unwrap_err().to_string();
            assert!(msg.contains("record.mcap") && msg.contains("record.bag"), "{yaml}: {msg}");
        }
        let record = settings("record: {bag: /tmp/run}").unwrap().record;
        assert_eq!(record.bag, Some(PathBuf::from("/tmp/run")));
        assert_eq!(settings("record: {bag: \"\"}").unwrap().record.bag, None);
    }
}
