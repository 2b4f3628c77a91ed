//! The controller node's parameters.

use std::path::PathBuf;
use std::sync::Arc;

use flotilla_common::params::{self, ParamError};
use flotilla_firmware::bluebot::Behaviour;
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
        Ok(Self { selection, ruleset, seed: raw.seed, period: 1.0 / raw.control_rate, interface: raw.interface, bluebot })
    }
}
