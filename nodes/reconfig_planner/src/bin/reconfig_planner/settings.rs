//! The planner node's parameters.

use std::time::Duration;

use flotilla_common::params::{self, ParamError};
use reconfig_planner::Budget;
use serde::Deserialize;
use serde_yaml::Mapping;

/// Parameters as they appear in the `ros__parameters` file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Raw {
    /// Largest number of A* expansions a request may use (count); requests asking for
    /// more or for 0 get this. Default 5 000 000.
    max_expansions: u64,
    /// Longest planning time a request may use, s; requests asking for more or for 0 get
    /// this. Default 10.
    max_time: f64,
    /// Seconds between steps when a playback goal gives 0. Default 0.5.
    playback_period: f64,
    /// Fixed frame of the markers. Default `world`.
    frame_id: String,
    /// Side of one lattice cell in rviz, m. Default 0.05 (the MoleMOD blocks).
    cell_size: f64,
}

impl Default for Raw {
    fn default() -> Self {
        let b = Budget::default();
        Self {
            max_expansions: b.max_expansions,
            max_time: b.max_time.as_secs_f64(),
            playback_period: 0.5,
            frame_id: "world".into(),
            cell_size: 0.05,
        }
    }
}

/// Validated node settings.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// The node's budget cap.
    pub budget: Budget,
    /// Default playback period.
    pub playback_period: Duration,
    /// Fixed frame of the markers.
    pub frame_id: String,
    /// Side of one lattice cell in rviz, m.
    pub cell_size: f64,
}

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys ignored).
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let raw: Raw = params::deserialize(&params::without_standard(tree))?;
        if raw.max_expansions == 0 {
            return Err(ParamError::invalid("max_expansions", "must be at least 1"));
        }
        let positive = |key: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(v)
            } else {
                Err(ParamError::invalid(key, format!("must be a positive number, got {v}")))
            }
        };
        let max_time = positive("max_time", raw.max_time)?;
        let playback = positive("playback_period", raw.playback_period)?;
        let cell_size = positive("cell_size", raw.cell_size)?;
        Ok(Self {
            budget: Budget::default().with_max_expansions(raw.max_expansions).with_max_time(Duration::from_secs_f64(max_time)),
            playback_period: Duration::from_secs_f64(playback),
            frame_id: raw.frame_id,
            cell_size,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_errors() {
        let s = NodeSettings::from_tree(&Mapping::new()).unwrap();
        assert_eq!(s.budget.max_expansions, Budget::default().max_expansions);
        let tree: Mapping = serde_yaml::from_str("max_time: -1").unwrap();
        let msg = NodeSettings::from_tree(&tree).unwrap_err().to_string();
        assert!(msg.contains("max_time") && msg.contains("-1"), "{msg}");
        let tree: Mapping = serde_yaml::from_str("max_tim: 1").unwrap();
        assert!(NodeSettings::from_tree(&tree).unwrap_err().to_string().contains("max_tim"));
    }
}
