//! The node's parameters: the tank (`tank.*`), the vision (`vision.*`), where the robots
//! start (`robots.*`), time control (`run.*`), topic rates (`publish.*`) and the metrics
//! CSV (`metrics_csv`).

use flotilla_common::param_spec::{DefaultValue, NodeParams, ParamSpec as P};
use flotilla_common::params::{self, take_section, ParamError};
use serde::Deserialize;
use serde_yaml::Mapping;
use std::path::PathBuf;
use std::time::Duration;
use tank_physics::run::{check_rate, rate_param, RunSettings, RUN_PARAMS};
use tank_physics::systems::bluebot::placement::Placement;
use tank_physics::systems::bluebot::{Fidelity, SwarmConfig, SwarmWorld, Tank};

/// The tank.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TankSettings {
    /// Length along x, m. Default 1.78 (SPEC 3).
    pub size_x: f64,
    /// Width along y, m. Default 1.78.
    pub size_y: f64,
    /// Wall height, m. Default 1.17.
    pub height: f64,
    /// Water depth, m. Default 0.91.
    pub water_depth: f64,
    /// The red light source 15 cm from two walls and the floor (the search scenario).
    /// Default false.
    pub red_source: bool,
}

impl Default for TankSettings {
    fn default() -> Self {
        let t = Tank::default();
        Self { size_x: t.size_x, size_y: t.size_y, height: t.height, water_depth: t.water_depth, red_source: false }
    }
}

/// The robots' vision.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VisionSettings {
    /// `analytic` (default) or `rendered` (256 x 192 frames per camera).
    pub fidelity: String,
}

impl Default for VisionSettings {
    fn default() -> Self {
        Self { fidelity: "analytic".into() }
    }
}

/// Where the robots start.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RobotSettings {
    /// Robots (ignored when `poses` is given). Default 7.
    pub count: usize,
    /// Start region: `scattered`, `centre` (default), `surface`, `surface_centre`.
    pub placement: String,
    /// Explicit start poses, flat `[x0, y0, z0, heading0, x1, ...]` (tank frame: floor
    /// corner, m; rad), four numbers per robot.
    pub poses: Vec<f64>,
    /// Robot names are `<prefix><index>`. Default `bluebot_`.
    pub name_prefix: String,
}

impl Default for RobotSettings {
    fn default() -> Self {
        Self { count: 7, placement: "centre".into(), poses: Vec::new(), name_prefix: "bluebot_".into() }
    }
}

/// Topic rates, Hz of sim time, and what is drawn.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PublishSettings {
    /// `/tank/state` and `/tf` (each when someone listens), Hz. Default 30.
    pub state_rate: f64,
    /// `/tank/markers` (when someone listens), Hz. Default 10.
    pub marker_rate: f64,
    /// `~/metrics` and a row of the metrics CSV, Hz. Default 1.
    pub metrics_rate: f64,
    /// Draw each robot's vision: a line to every neighbour it paired in its last reading.
    /// Default false.
    pub vision_rays: bool,
    /// Publish `/<robot>/robot_description` (the Bluebot's URDF, transient local).
    /// Default true.
    pub robot_descriptions: bool,
    /// URDF file published as the robot description (`urdf/bluebot.urdf`); "" = the model
    /// generated from the catalogue (the same text). Default "".
    pub robot_model: String,
    /// Fixed frame of every pose (the tank's floor centre, as urdf/blueswarm_tank.urdf).
    /// Default `world`.
    pub frame_id: String,
}

impl Default for PublishSettings {
    fn default() -> Self {
        Self {
            state_rate: 30.0,
            marker_rate: 10.0,
            metrics_rate: 1.0,
            vision_rays: false,
            robot_descriptions: true,
            robot_model: String::new(),
            frame_id: "world".into(),
        }
    }
}

/// The node's parameters for ROS 2 tools (`ros2 param describe /blueswarm_tank <name>`),
/// checked against [`NodeSettings::from_tree`]; all are read at start-up.
pub const PARAMS: NodeParams = NodeParams { groups: &[OWN_PARAMS, RUN_PARAMS], extras_live: false };

/// The node's own entries of [`PARAMS`].
const OWN_PARAMS: &[P] = &[
    P::integer("seed", 1, "Run seed (start placement, vision noise)").int_range(0, i64::MAX),
    P::string("metrics_csv", "", "CSV of the swarm metrics, a row per ~/metrics sample; \"\" = none"),
    P::double("tank.size_x", 1.78, "Tank length along x, m (> 0)"),
    P::double("tank.size_y", 1.78, "Tank width along y, m (> 0)"),
    P::double("tank.height", 1.17, "Wall height, m (> 0, at least tank.water_depth)"),
    P::double("tank.water_depth", 0.91, "Water depth, m (> 0, at most tank.height)"),
    P::boolean("tank.red_source", false, "The red light source 15 cm from two walls and the floor (the search scenario)"),
    P::string("vision.fidelity", "analytic", "Robots' vision: analytic, or rendered (256 x 192 frames per camera)"),
    P::integer("robots.count", 7, "Robots placed by robots.placement (ignored when robots.poses is given)").int_range(1, MAX_ROBOTS as i64),
    P::string("robots.placement", "centre", "Start region: scattered, centre, surface or surface_centre"),
    P::new(
        "robots.poses",
        DefaultValue::Doubles(&[]),
        "Explicit start poses [x0, y0, z0, heading0, ...] in the tank frame (floor corner), m and rad, four numbers per robot",
    ),
    P::string("robots.name_prefix", "bluebot_", "Robot names are <prefix><index>: letters, digits or _"),
    rate_param("publish.state_rate", 30.0, "Rate of /tank/state and /tf (each when someone listens), Hz of sim time"),
    rate_param("publish.marker_rate", 10.0, "Rate of /tank/markers (when someone listens), Hz of sim time"),
    rate_param("publish.metrics_rate", 1.0, "Rate of ~/metrics and of the metrics CSV's rows, Hz of sim time"),
    P::boolean("publish.vision_rays", false, "Draw each robot's vision: a line to every neighbour it paired in its last reading"),
    P::boolean("publish.robot_descriptions", true, "Publish every robot's latched /<robot>/robot_description (URDF)"),
    P::string("publish.robot_model", "", "URDF file published as the robot description; \"\" = the model generated from the catalogue"),
    P::string("publish.frame_id", "world", "Fixed frame of every pose (the tank's floor centre)"),
];

/// Everything the node is configured with.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// Run seed (placement, vision noise).
    pub seed: u64,
    /// The world.
    pub config: SwarmConfig,
    /// Robot names and start poses (tank frame, m; heading, rad).
    pub robots: Vec<(String, nalgebra::Vector3<f64>, f64)>,
    /// Time control.
    pub run: RunSettings,
    /// `run.lockstep_timeout`, checked.
    pub lockstep_timeout: Duration,
    /// Topic rates.
    pub publish: PublishSettings,
    /// Metrics CSV (a row per metrics sample), if any.
    pub metrics_csv: Option<PathBuf>,
    /// The Bluebot's URDF.
    pub robot_description: String,
}

/// Most robots one node hosts (a bound on what a parameter can make it allocate).
pub const MAX_ROBOTS: usize = 1000;

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys are ignored); errors name the key.
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let mut tree = params::without_standard(tree);
        let seed = params::take_seed(&mut tree, 1)?;
        let metrics_csv = match tree.remove("metrics_csv") {
            None => None,
            Some(serde_yaml::Value::String(s)) if s.is_empty() => None,
            Some(serde_yaml::Value::String(s)) => Some(PathBuf::from(s)),
            Some(v) => {
                return Err(ParamError::invalid(
                    "metrics_csv",
                    format!("must be a file path (\"\" = none), got {}", params::as_written(&v)),
                ))
            }
        };
        let tank = take_section::<TankSettings>(&mut tree, "tank")?;
        let vision = take_section::<VisionSettings>(&mut tree, "vision")?;
        let robots = take_section::<RobotSettings>(&mut tree, "robots")?;
        let run = take_section::<RunSettings>(&mut tree, "run")?;
        let publish = take_section::<PublishSettings>(&mut tree, "publish")?;
        params::refuse_unknown(&tree, "seed, metrics_csv, tank, vision, robots, run, publish")?;
        let lockstep_timeout = run.check()?;
        check_rate("publish.state_rate", publish.state_rate)?;
        check_rate("publish.marker_rate", publish.marker_rate)?;
        check_rate("publish.metrics_rate", publish.metrics_rate)?;
        let mut tank_model =
            Tank { size_x: tank.size_x, size_y: tank.size_y, height: tank.height, water_depth: tank.water_depth, red_source: None };
        if tank.red_source {
            tank_model = tank_model.with_red_source_in_a_corner();
        }
        tank_model.validate().map_err(|e| ParamError::invalid("tank", e))?;
        let fidelity = Fidelity::parse(&vision.fidelity).map_err(|e| ParamError::invalid("vision.fidelity", e))?;
        let config = SwarmConfig { tank: tank_model, fidelity, ..SwarmConfig::default() };
        params::name_prefix("robots.name_prefix", &robots.name_prefix)?;
        let poses: Vec<(nalgebra::Vector3<f64>, f64)> = if robots.poses.is_empty() {
            if robots.count == 0 || robots.count > MAX_ROBOTS {
                return Err(ParamError::invalid("robots.count", format!("must be in 1..={MAX_ROBOTS}, got {}", robots.count)));
            }
            let placement = Placement::parse(&robots.placement).map_err(|e| ParamError::invalid("robots.placement", e))?;
            placement.poses(&config.tank, robots.count, seed)
        } else {
            if robots.poses.len() % 4 != 0 || robots.poses.len() > 4 * MAX_ROBOTS {
                return Err(ParamError::invalid(
                    "robots.poses",
                    format!("four numbers per robot (x, y, z, heading), at most {MAX_ROBOTS} robots; got {} numbers", robots.poses.len()),
                ));
            }
            robots.poses.chunks_exact(4).map(|p| (nalgebra::Vector3::new(p[0], p[1], p[2]), p[3])).collect()
        };
        let robots: Vec<_> = poses.into_iter().enumerate().map(|(i, (p, yaw))| (format!("{}{i}", robots.name_prefix), p, yaw)).collect();
        // The world checks the poses (a robot out of the water is a bad start).
        let mut world = SwarmWorld::new(config.clone(), seed).map_err(|e| ParamError::invalid("tank", e))?;
        for (name, p, yaw) in &robots {
            if !yaw.is_finite() {
                return Err(ParamError::invalid("robots.poses", format!("robot {name}: heading must be finite, got {yaw}")));
            }
            world.add(name, *p, *yaw).map_err(|e| ParamError::invalid("robots", e))?;
        }
        let robot_description = if publish.robot_model.is_empty() {
            flotilla_common::models::robot_description(flotilla_common::catalogue::ModuleKind::Bluebot)
        } else {
            let text = std::fs::read_to_string(&publish.robot_model)
                .map_err(|e| ParamError::invalid("publish.robot_model", format!("cannot read {}: {e}", publish.robot_model)))?;
            if !text.contains("<robot") {
                return Err(ParamError::invalid(
                    "publish.robot_model",
                    format!("{} is not a URDF (no <robot> element)", publish.robot_model),
                ));
            }
            text
        };
        Ok(Self { seed, config, robots, run, lockstep_timeout, publish, metrics_csv, robot_description })
    }

    /// A world with the robots at their start poses.
    pub fn world(&self) -> anyhow::Result<SwarmWorld> {
        let mut world = SwarmWorld::new(self.config.clone(), self.seed)?;
        for (name, p, yaw) in &self.robots {
            world.add(name, *p, *yaw)?;
        }
        Ok(world)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(yaml: &str) -> Result<NodeSettings, ParamError> {
        NodeSettings::from_tree(&serde_yaml::from_str(yaml).unwrap())
    }

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        assert_eq!(PARAMS.check_against(NodeSettings::from_tree), Ok(()));
    }

    #[test]
    fn defaults_placements_and_explicit_poses() {
        let s = settings("{}").unwrap();
        assert_eq!((s.robots.len(), s.robots[6].0.as_str(), s.seed, s.metrics_csv.clone()), (7, "bluebot_6", 1, None));
        assert!(s.config.tank.red_source.is_none());
        let s = settings("tank: {red_source: true}\nrobots: {count: 3, placement: surface_centre}\nmetrics_csv: /tmp/m.csv").unwrap();
        assert!(s.config.tank.red_source.is_some() && s.robots.len() == 3 && s.metrics_csv.is_some());
        let s = settings("robots: {poses: [0.5, 0.5, 0.4, 0, 1, 1, 0.5, 1.5], name_prefix: fish}").unwrap();
        assert_eq!((s.robots[1].0.as_str(), s.robots[1].2), ("fish1", 1.5));
        assert!(s.world().is_ok());
        let model = concat!(env!("CARGO_MANIFEST_DIR"), "/../../urdf/bluebot.urdf");
        let s = settings(&format!("publish: {{robot_model: {model}}}")).unwrap();
        assert_eq!(s.robot_description, flotilla_common::models::robot_description(flotilla_common::catalogue::ModuleKind::Bluebot));
    }

    #[test]
    fn bad_values_name_the_key() {
        for (yaml, key) in [
            ("tank: {water_depth: -1}", "tank"),
            ("tank: {depth: 1}", "depth"),
            ("vision: {fidelity: photo}", "vision.fidelity"),
            ("robots: {count: 0}", "robots.count"),
            ("robots: {placement: ring}", "robots.placement"),
            ("robots: {name_prefix: 'a b'}", "robots.name_prefix"),
            ("robots: {poses: [1, 1, 0.5]}", "four numbers per robot"),
            ("robots: {poses: [1, 1, 2.0, 0]}", "not under water"),
            ("run: {real_time_factor: -1}", "run.real_time_factor"),
            ("publish: {metrics_rate: 0}", "publish.metrics_rate"),
            ("metrics_csv: 3", "metrics_csv"),
            ("publish: {robot_model: /nonexistent/bluebot.urdf}", "publish.robot_model"),
            ("tabel: {}", "tabel"),
            ("seed: -3", "seed"),
        ] {
            let err = settings(yaml).unwrap_err().to_string();
            assert!(err.contains(key), "{yaml}: {err}");
        }
    }
}
