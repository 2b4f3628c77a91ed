//! The base station's parameters.

use std::path::PathBuf;
use std::sync::Arc;

use flotilla_common::param_spec::{DefaultValue, Kind, NodeParams, ParamSpec as P};
use flotilla_common::params::{self, ParamError};
use robot_controller::station::{PumpSchedule, PumpStep};
use robot_controller::Ruleset;
use serde::Deserialize;
use serde_yaml::Mapping;

/// Pump schedule as two lists.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawStirring {
    /// Step start times, s of sim time, increasing.
    times: Vec<f64>,
    /// Pump power from each time on, % (all pumps).
    power: Vec<f64>,
}

/// Parameters as they appear in the `ros__parameters` file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Raw {
    /// Ruleset the Lilies run (YAML): its target, state names and radio commands.
    ruleset: String,
    /// Interval between metric samples (log, `~/metrics`, CSV), s of sim time. Default 5.
    sample_period: f64,
    /// CSV of the metrics over time, one row per sample, flushed each row; "" = none.
    metrics_csv: String,
    /// Pump schedule; none = leave the pumps as the world has them.
    stirring: RawStirring,
}

impl Default for Raw {
    fn default() -> Self {
        Self { ruleset: String::new(), sample_period: 5.0, metrics_csv: String::new(), stirring: RawStirring::default() }
    }
}

/// The node's parameters for ROS 2 tools (`ros2 param describe /base_station <name>`),
/// checked against [`NodeSettings::from_tree`]; all are read at start-up.
pub const PARAMS: NodeParams = NodeParams {
    groups: &[&[
        P::new(
            "ruleset",
            DefaultValue::Unset(Kind::String),
            "Ruleset the Lilies run (YAML): its target, state names and radio commands (required)",
        ),
        P::double("sample_period", 5.0, "Interval between metric samples (log, ~/metrics, CSV), s of sim time (> 0)"),
        P::string("metrics_csv", "", "CSV of the metrics over time, flushed each row; \"\" = none"),
        P::new("stirring.times", DefaultValue::Doubles(&[]), "Pump schedule: step start times, s of sim time, increasing"),
        P::new("stirring.power", DefaultValue::Doubles(&[]), "Pump schedule: power of every pump from each time on, %"),
    ]],
    extras_live: false,
};

/// Validated node settings.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// The Lilies' ruleset and its file.
    pub ruleset: (PathBuf, Arc<Ruleset>),
    /// Metric sample interval, s of sim time.
    pub sample_period: f64,
    /// Metrics CSV, if any.
    pub metrics_csv: Option<PathBuf>,
    /// Pump power over sim time.
    pub stirring: PumpSchedule,
}

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys ignored) and loads the ruleset.
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let raw: Raw = params::deserialize(&params::without_standard(tree))?;
        if raw.ruleset.is_empty() {
            return Err(ParamError::invalid("ruleset", "a ruleset file is required (its target is what the metrics count)"));
        }
        let path = PathBuf::from(&raw.ruleset);
        let rules = Ruleset::from_file(&path).map_err(|e| ParamError::invalid("ruleset", e))?;
        if !(raw.sample_period > 0.0 && raw.sample_period.is_finite()) {
            return Err(ParamError::invalid("sample_period", format!("must be a positive number of seconds, got {}", raw.sample_period)));
        }
        let RawStirring { times, power } = raw.stirring;
        if times.len() != power.len() {
            return Err(ParamError::invalid(
                "stirring",
                format!("times ({}) and power ({}) must have the same length", times.len(), power.len()),
            ));
        }
        let stirring = PumpSchedule { steps: times.into_iter().zip(power).map(|(at, p)| PumpStep { at, power: vec![p] }).collect() };
        stirring.validate().map_err(|e| ParamError::invalid("stirring", e))?;
        Ok(Self {
            ruleset: (path, Arc::new(rules)),
            sample_period: raw.sample_period,
            metrics_csv: (!raw.metrics_csv.is_empty()).then(|| PathBuf::from(raw.metrics_csv)),
            stirring,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest tree the node accepts.
    const BASE: &str = concat!("ruleset: ", env!("CARGO_MANIFEST_DIR"), "/../../config/rulesets/square4.yaml");

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        let check = flotilla_common::param_spec::check_table(PARAMS.params(), BASE, |t| {
            NodeSettings::from_tree(t).map(|s| format!("{s:?}")).map_err(|e| e.to_string())
        });
        assert_eq!(check, Ok(()));
    }
}
