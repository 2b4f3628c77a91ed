//! The controller node's parameters.

use std::path::PathBuf;
use std::sync::Arc;

use flotilla_common::param_spec::{DefaultValue, Kind, NodeParams, ParamSpec as P};
use flotilla_common::params::{self, ParamError};
use flotilla_firmware::bluebot::Behaviour;
use flotilla_firmware::registry::MhpController;
use robot_controller::firmware::behaviour::behaviour_from_section;
use robot_controller::firmware::Selection;
use robot_controller::Ruleset;
use serde::Deserialize;
use serde_yaml::Mapping;

/// Parameters as they appear in the `ros__parameters` file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Raw {
    /// Robots to run: `name` (kind and id from `/tank/state`) or `name:kind:id`.
    robots: Vec<String>,
    /// Also run every robot of this catalogue kind seen in `/tank/state`; "" = none.
    kind: String,
    /// Lily ruleset file (YAML); "" = none (then a Lily cannot be run).
    ruleset: String,
    /// Run seed; each firmware draws from (seed, robot id). Default 1.
    seed: u64,
    /// Control steps per second of sim time. Default 10.
    control_rate: f64,
    /// `per_robot` (default) or `batched`, as the physics node's `robots.interface`.
    interface: Interface,
    /// Bluebot behaviour: `behaviour` (sync, dispersion, milling, search) and any of its
    /// scalar parameters (`target_distance` m, `alpha` rad, ...); empty = none.
    bluebot: Mapping,
    /// Controller of every hosted MHP robot: decentralised (default), prototype or
    /// centralised (the last two wait for the robot's latched `/<robot>/layout`).
    mhp_controller: String,
}

impl Default for Raw {
    fn default() -> Self {
        Self {
            robots: Vec::new(),
            kind: String::new(),
            ruleset: String::new(),
            seed: 1,
            control_rate: 10.0,
            interface: Interface::PerRobot,
            bluebot: Mapping::new(),
            mhp_controller: "decentralised".into(),
        }
    }
}

/// How the hosted robots' readings and commands travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interface {
    /// `/<robot>/sensors` in, `/<robot>/cmd` out, `~/<robot>/enable` per robot.
    PerRobot,
    /// `/<system>/sensors` batches in, one `/<system>/cmd` batch out per batch received,
    /// one `~/enable` for every robot; systems without batch messages stay per robot.
    Batched,
}

/// A scalar parameter of a Bluebot behaviour: declared when the behaviour is (the node
/// states the behaviour in full), changeable while running.
const fn bluebot(name: &'static str, description: &'static str) -> P {
    P::new(name, DefaultValue::Unset(Kind::Double), description).live()
}

/// The node's parameters for ROS 2 tools (`ros2 param describe /robot_controller <name>`),
/// checked against [`NodeSettings::from_tree`]: the Bluebot behaviour's scalars
/// (`bluebot.<name>`, each behaviour's own, the behaviour in the description) change
/// while running; the rest is read at start-up.
pub const PARAMS: NodeParams = NodeParams {
    groups: &[&[
        P::new("robots", DefaultValue::Strings(&[]), "Robots to run: `name` (kind and id from /tank/state) or `name:kind:id`"),
        P::string("kind", "", "Also run every robot of this catalogue kind seen in /tank/state; \"\" = none"),
        P::string("ruleset", "", "Lily ruleset file (YAML); \"\" = none"),
        P::integer("seed", 1, "Run seed; each firmware draws from (seed, robot id)").int_range(0, i64::MAX),
        P::double("control_rate", 10.0, "Control steps per second, Hz of sim time (> 0)"),
        P::string("interface", "per_robot", "per_robot or batched, as the physics node's robots.interface"),
        P::string(
            "mhp_controller",
            "decentralised",
            "Controller of every hosted MHP robot: decentralised, prototype or centralised (the last two wait for the latched /<robot>/layout)",
        ),
        P::new(
            "bluebot.behaviour",
            DefaultValue::Unset(Kind::String),
            "Behaviour of every hosted Bluebot: sync, dispersion, milling or search (its parameters are declared with it); absent: none",
        ),
        bluebot("bluebot.period", "sync: flash period t_f, s (> 0)"),
        bluebot("bluebot.flash", "sync: how long a flash lasts, s (in (0, period))"),
        bluebot("bluebot.coupling", "sync: jump at n = t_f over t_f (dimensionless, > 0)"),
        bluebot("bluebot.exponent", "sync: exponent of the jump function (dimensionless, in (0, 1]: concave down)"),
        bluebot("bluebot.depth", "sync, milling: depth held, m").range(0.0, 5.0),
        bluebot("bluebot.target_distance", "dispersion: target distance d_t, m (> 0; .inf: unbounded dispersion)"),
        bluebot("bluebot.a", "dispersion: repulsive exponent a (dimensionless, a > b)"),
        bluebot("bluebot.b", "dispersion: attractive exponent b (dimensionless, > 0)"),
        bluebot(
            "bluebot.full_speed_force",
            "dispersion: |p| d_t at and above which the robot swims at full speed (dimensionless, > dead_band)",
        ),
        bluebot("bluebot.dead_band", "dispersion: |p| d_t below which the log speed map gives no speed (dimensionless, > 0)"),
        bluebot(
            "bluebot.min_caudal",
            "dispersion: lowest caudal frequency while a neighbour is seen, Hz (>= 0; 0: hold still below dead_band)",
        ),
        bluebot("bluebot.vertical_speed", "dispersion: vertical speed of the depth target at full force, m/s (>= 0)"),
        bluebot("bluebot.min_depth", "dispersion: shallowest depth target, m (>= 0, < max_depth)"),
        bluebot("bluebot.max_depth", "dispersion: deepest depth target, m (> min_depth)"),
        bluebot("bluebot.alpha", "milling: half-angle alpha of the wedge sensor, rad (in (0, pi/2))"),
        bluebot("bluebot.rho", "milling: body radius rho a neighbour occupies, m (in (0, 1))"),
        bluebot("bluebot.caudal", "milling: caudal fin frequency, Hz (>= 0)"),
        bluebot("bluebot.pectoral", "milling: pectoral fin frequency of both turns, Hz (> 0)"),
        bluebot("bluebot.wander_speed", "search: random-walk speed, fraction of full speed (in (0, 1])"),
        bluebot("bluebot.wander_period", "search: time between random turns, s (> 0)"),
        bluebot("bluebot.turn_rate", "search: turning rate on the spot that times a random turn, rad/s (> 0)"),
        bluebot("bluebot.lost_after", "search: gathering gives up after this long without a flash, s (> 0)"),
    ]],
    extras_live: false,
};

/// Validated node settings.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// The robots hosted.
    pub selection: Selection,
    /// The Lilies' ruleset and where it came from.
    pub ruleset: Option<(PathBuf, Arc<Ruleset>)>,
    /// Run seed.
    pub seed: u64,
    /// Control period, s of sim time.
    pub period: f64,
    /// The robots' topics.
    pub interface: Interface,
    /// Behaviour of every Bluebot hosted.
    pub bluebot: Option<Behaviour>,
    /// Controller of every MHP robot hosted.
    pub mhp: MhpController,
}

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys ignored) and loads the ruleset.
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let raw: Raw = params::deserialize(&params::without_standard(tree))?;
        if !raw.kind.is_empty() {
            robot_controller::firmware::check_kind(&raw.kind).map_err(|e| ParamError::invalid("kind", e))?;
        }
        let selection = Selection::parse(&raw.robots, &raw.kind).map_err(|e| ParamError::invalid("robots", e))?;
        if selection.is_empty() {
            return Err(ParamError::invalid("robots", "no robots selected: give `robots` (names) and/or `kind`"));
        }
        if !(raw.control_rate > 0.0 && raw.control_rate.is_finite()) {
            return Err(ParamError::invalid("control_rate", format!("must be a positive rate in Hz, got {}", raw.control_rate)));
        }
        let ruleset = if raw.ruleset.is_empty() {
            None
        } else {
            let path = PathBuf::from(&raw.ruleset);
            let rules = Ruleset::from_file(&path).map_err(|e| ParamError::invalid("ruleset", e))?;
            Some((path, Arc::new(rules)))
        };
        let bluebot = behaviour_from_section(&raw.bluebot)?;
        let mhp = MhpController::parse(&raw.mhp_controller).map_err(|e| ParamError::invalid("mhp_controller", e))?;
        Ok(Self { selection, ruleset, seed: raw.seed, period: 1.0 / raw.control_rate, interface: raw.interface, bluebot, mhp })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest tree the node accepts.
    const BASE: &str = "kind: lily";

    fn validate(t: &Mapping) -> Result<String, String> {
        NodeSettings::from_tree(t).map(|s| format!("{s:?}")).map_err(|e| e.to_string())
    }

    /// The table's defaults, names and ranges are those of the node's own validation; each
    /// Bluebot behaviour's scalars are in it, live, and checked with that behaviour.
    #[test]
    fn table_matches_the_validation() {
        let fixed = PARAMS.params().filter(|p| !p.name.starts_with("bluebot.") || p.name == "bluebot.behaviour");
        assert_eq!(flotilla_common::param_spec::check_table(fixed, BASE, validate), Ok(()));
        assert!(PARAMS.params().any(|p| p.name == "bluebot.behaviour" && !p.live));
        let mut covered = vec!["bluebot.behaviour".to_owned()];
        for name in ["sync", "dispersion", "milling", "search"] {
            let scalars: Vec<String> = Behaviour::by_name(name).unwrap().scalars().iter().map(|(k, _)| format!("bluebot.{k}")).collect();
            let own: Vec<&P> = PARAMS.params().filter(|p| scalars.iter().any(|s| s == p.name)).collect();
            assert_eq!(own.len(), scalars.len(), "{name}: every scalar has an entry");
            assert!(own.iter().all(|p| p.live), "{name}: its scalars change while running");
            let base = format!("kind: bluebot\nbluebot: {{behaviour: {name}}}");
            assert_eq!(flotilla_common::param_spec::check_table(own, &base, validate), Ok(()), "{name}");
            covered.extend(scalars);
        }
        let stray: Vec<_> = PARAMS.params().filter(|p| p.name.starts_with("bluebot.") && !covered.iter().any(|c| c == p.name)).collect();
        assert!(stray.is_empty(), "entries of no behaviour: {stray:?}");
    }
}
