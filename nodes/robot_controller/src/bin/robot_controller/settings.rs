//! The controller node's parameters.

use std::path::PathBuf;
use std::sync::Arc;

use flotilla_common::param_spec::{DefaultValue, NodeParams, ParamSpec as P};
use flotilla_common::params::{self, ParamError};
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

/// The node's parameters for ROS 2 tools (`ros2 param describe /robot_controller <name>`),
/// checked against [`NodeSettings::from_tree`]; all are read at start-up.
pub const PARAMS: NodeParams = NodeParams {
    params: &[
        P::new("robots", DefaultValue::Strings(&[]), "Robots to run: `name` (kind and id from /tank/state) or `name:kind:id`"),
        P::string("kind", "", "Also run every robot of this catalogue kind seen in /tank/state; \"\" = none"),
        P::string("ruleset", "", "Lily ruleset file (YAML); \"\" = none"),
        P::integer("seed", 1, "Run seed; each firmware draws from (seed, robot id)").int_range(0, i64::MAX),
        P::double("control_rate", 10.0, "Control steps per second, Hz of sim time (> 0)"),
        P::string("interface", "per_robot", "per_robot or batched, as the physics node's robots.interface"),
    ],
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
        Ok(Self { selection, ruleset, seed: raw.seed, period: 1.0 / raw.control_rate, interface: raw.interface })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest tree the node accepts.
    const BASE: &str = "kind: lily";

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        let check = flotilla_common::param_spec::check_table(&PARAMS, BASE, |t| {
            NodeSettings::from_tree(t).map(|s| format!("{s:?}")).map_err(|e| e.to_string())
        });
        assert_eq!(check, Ok(()));
    }
}
