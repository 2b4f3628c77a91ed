//! The node's parameters: the table (`table.*`, [`TableConfig`]), where the robots start
//! (`robots.*`), time control (`run.*`) and topic rates (`publish.*`).

use flotilla_common::param_spec::{DefaultValue, Kind, NodeParams, ParamSpec as P};
use flotilla_common::params::{self, take_section, ParamError};
use serde::Deserialize;
use serde_yaml::Mapping;
use std::time::Duration;
use tank_physics::run::{check_rate, rate_param, RunSettings, RUN_PARAMS};
use tank_physics::systems::kilobot::{hex_block, KilobotTable, Pose, TableConfig};

/// Where the robots start.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RobotSettings {
    /// Robots packed on a hexagonal lattice centred on the origin (ignored when `poses` is
    /// given). Default 25.
    pub count: usize,
    /// Centre-to-centre spacing of that lattice, world units (one robot diameter, 32.5 mm).
    /// Default 1.5.
    pub spacing: f64,
    /// Explicit start poses, flat `[x0, y0, heading0, x1, y1, heading1, ...]` (world units,
    /// rad; a ROS parameter array holds scalars only), three numbers per robot.
    pub poses: Vec<f64>,
    /// Robot names are `<prefix><index>`. Default `kb_`.
    pub name_prefix: String,
    /// `lattice` (default): `count` robots on the lattice, or `poses`; `topic`: wait for a
    /// scenario to place them (`flotilla_msgs/KilobotPlacement` on `/kilobot/placement`,
    /// names, poses and which are anchored), and ignore `count`, `spacing`, `poses` and
    /// `name_prefix`.
    pub placement: Placement,
}

/// Who puts the robots on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// The node's parameters (`count` on a lattice, or `poses`).
    Lattice,
    /// A scenario node, through `/kilobot/placement`.
    Topic,
}

impl Default for RobotSettings {
    fn default() -> Self {
        Self { count: 25, spacing: 1.5, poses: Vec::new(), name_prefix: "kb_".into(), placement: Placement::Lattice }
    }
}

/// Topic rates, Hz of sim time.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PublishSettings {
    /// `/tank/state` (and `/tf` when someone listens), Hz. Default 30.
    pub state_rate: f64,
    /// `/tank/markers`, Hz. Default 10.
    pub marker_rate: f64,
    /// `/kilobot/sensors`, Hz; a rate above one per step reads every step. Default 10.
    pub sensor_rate: f64,
    /// Fixed frame of every pose. Default `world`.
    pub frame_id: String,
}

impl Default for PublishSettings {
    fn default() -> Self {
        Self { state_rate: 30.0, marker_rate: 10.0, sensor_rate: 10.0, frame_id: "world".into() }
    }
}

/// The node's parameters for ROS 2 tools (`ros2 param describe /kilobot_table <name>`),
/// checked against [`NodeSettings::from_tree`]; all are read at start-up. The table's
/// distance-error model (`table.channel.distance_error`, a tagged choice) is declared as a
/// file gives it, without a descriptor.
pub const PARAMS: NodeParams = NodeParams { groups: &[OWN_PARAMS, TABLE_PARAMS, RUN_PARAMS], extras_live: false };

/// `table.*` ([`TableConfig`]) entries of [`PARAMS`]: world units are robot diameters
/// (32.5 mm), a step is [`TableConfig::step_duration`].
const TABLE_PARAMS: &[P] = &[
    P::new(
        "table.bounds.min",
        DefaultValue::Unset(Kind::Doubles),
        "Lower-left corner [x, y] of the walled table top, world units; absent: no walls",
    ),
    P::new(
        "table.bounds.max",
        DefaultValue::Unset(Kind::Doubles),
        "Upper-right corner [x, y] of the walled table top, world units (more than one robot from min)",
    ),
    P::double("table.speed", 0.01, "Distance moved per step at nominal speed, world units (> 0)"),
    P::double("table.turn_angle", 10.0 * std::f64::consts::PI / 180.0, "Heading change of a turning step, rad (>= 0)"),
    P::double("table.turn_drift", 1.0, "Distance a turning step still moves forward, fraction of table.speed (>= 0)"),
    P::double("table.speed_factor_mean", 1.0, "Mean of the per-robot speed factor (dimensionless, >= 0)"),
    P::double("table.speed_factor_std", 0.0, "Standard deviation of the per-robot speed factor (dimensionless, >= 0; 0 = all equal)"),
    P::double(
        "table.avoidance.yield_distance",
        1.5,
        "A moving robot stops for the step when another is ahead closer than this, world units (> 0)",
    ),
    P::double("table.avoidance.cone", std::f64::consts::FRAC_PI_3, "Half angle of the cone counted as ahead, rad")
        .range(0.0, std::f64::consts::PI),
    P::new(
        "table.failures.interval",
        DefaultValue::Unset(Kind::Integer),
        "Steps between motor-failure draws (> 0); absent: motors never fail",
    ),
    P::new(
        "table.failures.threshold",
        DefaultValue::Unset(Kind::Double),
        "A robot's motors fail for good when a U(0, 1) draw exceeds this (0..1)",
    )
    .range(0.0, 1.0),
    P::double("table.channel.range", 4.845, "Infrared range, centre to centre, world units (> 0)"),
    P::double("table.channel.loss", 0.0, "Probability that a receiver misses a transmission it could hear").range(0.0, 1.0),
    P::new(
        "table.channel.capacity",
        DefaultValue::Unset(Kind::Double),
        "Packets per second one neighbourhood carries (hardware: ~240), Hz (> 0); absent: no shared-channel limit",
    ),
    P::double("table.channel.tx_rate", 9.6, "Transmission attempts per robot when the channel is shared, Hz (> 0)"),
    P::double("table.step_duration", 0.0325, "Duration of one step, s (> 0)"),
    P::double("table.ambient_light", 0.5, "Ambient light every robot reads (dimensionless, 0..1)"),
    P::integer("table.overlap_passes", 4, "Overlap resolution passes per step, count").int_range(0, i64::MAX),
    P::double(
        "table.push_share",
        0.0,
        "Share of an overlap a robot at rest takes when a moving robot runs into it (0: immovable; 0.5: equal masses)",
    )
    .range(0.0, 1.0),
];

/// The node's own entries of [`PARAMS`].
const OWN_PARAMS: &[P] = &[
    P::integer("seed", 1, "Run seed (speed factors, channel, failures)").int_range(0, i64::MAX),
    P::string(
        "robots.placement",
        "lattice",
        "Who places the robots: lattice (robots.count on a lattice, or robots.poses) or topic (a scenario, on /kilobot/placement)",
    ),
    P::integer("robots.count", 25, "Robots packed on a hexagonal lattice centred on the origin (ignored when robots.poses is given)")
        .int_range(1, MAX_ROBOTS as i64),
    P::double("robots.spacing", 1.5, "Centre-to-centre spacing of that lattice, world units (one robot diameter, 32.5 mm); at least 1"),
    P::new(
        "robots.poses",
        DefaultValue::Doubles(&[]),
        "Explicit start poses [x0, y0, heading0, ...], world units and rad, three numbers per robot",
    ),
    P::string("robots.name_prefix", "kb_", "Robot names are <prefix><index>: letters, digits or _"),
    rate_param("publish.state_rate", 30.0, "Rate of /tank/state (and /tf when someone listens), Hz of sim time"),
    rate_param("publish.marker_rate", 10.0, "Rate of /tank/markers, Hz of sim time"),
    rate_param("publish.sensor_rate", 10.0, "Rate of /kilobot/sensors, Hz of sim time (above one per step: every step)"),
    P::string("publish.frame_id", "world", "Fixed frame of every pose"),
];

/// Everything the node is configured with.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// Run seed (speed factors, channel, failures).
    pub seed: u64,
    /// The table and the robots' bodies.
    pub table: TableConfig,
    /// Start poses, one per robot.
    pub poses: Vec<Pose>,
    /// Robot names, one per pose.
    pub names: Vec<String>,
    /// Robots that are never pushed (the self-assembly seeds), one flag per pose.
    pub anchored: Vec<bool>,
    /// Who places the robots; with [`Placement::Topic`], `poses`, `names` and `anchored`
    /// are empty until a placement arrives.
    pub placement: Placement,
    /// Time control.
    pub run: RunSettings,
    /// `run.lockstep_timeout`, checked and converted.
    pub lockstep_timeout: Duration,
    /// Topic rates.
    pub publish: PublishSettings,
}

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys are ignored); errors name the key.
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let mut tree = params::without_standard(tree);
        let seed = params::take_seed(&mut tree, 1)?;
        let table = take_section::<TableConfig>(&mut tree, "table")?;
        table.validate().map_err(|e| ParamError::invalid("table", e))?;
        let robots = take_section::<RobotSettings>(&mut tree, "robots")?;
        let run = take_section::<RunSettings>(&mut tree, "run")?;
        let publish = take_section::<PublishSettings>(&mut tree, "publish")?;
        params::refuse_unknown(&tree, "seed, table, robots, run, publish")?;
        let positive = |key: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(ParamError::invalid(key, format!("must be a positive finite number, got {v}")))
            }
        };
        let lockstep_timeout = run.check()?;
        check_rate("publish.state_rate", publish.state_rate)?;
        check_rate("publish.marker_rate", publish.marker_rate)?;
        check_rate("publish.sensor_rate", publish.sensor_rate)?;
        params::name_prefix("robots.name_prefix", &robots.name_prefix)?;
        if robots.placement == Placement::Topic {
            let (poses, names, anchored) = (Vec::new(), Vec::new(), Vec::new());
            return Ok(Self { seed, table, poses, names, anchored, placement: robots.placement, run, lockstep_timeout, publish });
        }
        let poses: Vec<Pose> = if robots.poses.is_empty() {
            positive("robots.spacing", robots.spacing)?;
            if robots.spacing < 1.0 {
                return Err(ParamError::invalid("robots.spacing", "must be at least 1 (one robot diameter): robots would overlap"));
            }
            if robots.count == 0 || robots.count > MAX_ROBOTS {
                return Err(ParamError::invalid("robots.count", format!("must be in 1..={MAX_ROBOTS}, got {}", robots.count)));
            }
            hex_block(robots.count, robots.spacing)
        } else {
            if robots.poses.len() > 3 * MAX_ROBOTS {
                return Err(ParamError::invalid("robots.poses", format!("at most {MAX_ROBOTS} robots")));
            }
            if robots.poses.len() % 3 != 0 {
                return Err(ParamError::invalid(
                    "robots.poses",
                    format!("three numbers per robot (x, y, heading), got {}", robots.poses.len()),
                ));
            }
            robots.poses.chunks_exact(3).map(|p| Pose { x: p[0], y: p[1], theta: p[2] }).collect()
        };
        // The table checks the poses against its walls (a robot outside is a bad start).
        KilobotTable::new(table, &poses, seed).map_err(|e| ParamError::invalid("robots", e))?;
        let names = (0..poses.len()).map(|i| format!("{}{i}", robots.name_prefix)).collect();
        let anchored = vec![false; poses.len()];
        Ok(Self { seed, table, poses, names, anchored, placement: robots.placement, run, lockstep_timeout, publish })
    }
}

/// Most robots one table node hosts (a bound on what a parameter can make it allocate).
pub const MAX_ROBOTS: usize = 1_000_000;

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

    #[test]
    fn defaults_and_explicit_poses() {
        let s = settings("{}").unwrap();
        assert_eq!((s.poses.len(), s.names[24].as_str(), s.seed), (25, "kb_24", 1));
        let s = settings("robots: {poses: [0, 0, 0, 2, 0, 1.5], name_prefix: k}\nseed: 4").unwrap();
        assert_eq!((s.names.clone(), s.poses[1].theta, s.seed), (vec!["k0".to_owned(), "k1".to_owned()], 1.5, 4));
        let s = settings("robots: {placement: topic}").unwrap();
        assert_eq!((s.placement, s.poses.len()), (Placement::Topic, 0));
        assert!(settings("robots: {placement: hand}").unwrap_err().to_string().contains("placement"));
    }

    #[test]
    fn bad_values_name_the_key() {
        for (yaml, key) in [
            ("table: {speed: -1}", "speed"),
            ("table: {sped: 1}", "sped"),
            ("robots: {count: 0}", "robots.count"),
            ("robots: {spacing: 0.5}", "robots.spacing"),
            ("robots: {name_prefix: 'a b'}", "robots.name_prefix"),
            ("run: {real_time_factor: .nan}", "run.real_time_factor"),
            ("publish: {sensor_rate: 0}", "publish.sensor_rate"),
            ("tabel: {}", "tabel"),
            ("seed: -3", "seed"),
            ("table: {bounds: {min: [0, 0], max: [5, 5]}}\nrobots: {poses: [9, 1, 0]}", "outside the table"),
            ("robots: {poses: [1, 2]}", "three numbers per robot"),
        ] {
            let err = settings(yaml).unwrap_err().to_string();
            assert!(err.contains(key), "{yaml}: {err}");
        }
    }
}
