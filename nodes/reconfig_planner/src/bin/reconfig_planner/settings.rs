//! The planner node's parameters.

use std::time::Duration;

use flotilla_common::duration::Span;
use flotilla_common::param_spec::{NodeParams, ParamSpec as P};
use flotilla_common::params::{self, ParamError};
use reconfig_planner::{Budget, Repertoire, RepertoireError};
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
    /// Most stored search states of all concurrent requests together (count): the node's
    /// memory budget (~220 B each). Default 10 000 000 (about 2.2 GB).
    max_stored_states_total: usize,
    /// Seconds between steps when a playback goal gives 0. Default 0.5.
    playback_period: f64,
    /// Fixed frame of the markers. Default `world`.
    frame_id: String,
    /// Side of one lattice cell in rviz, m. Default 0.05 (the MoleMOD blocks).
    cell_size: f64,
    /// The actions plans may use (`Repertoire`'s text form). Default `every_action`.
    repertoire: String,
}

impl Default for Raw {
    fn default() -> Self {
        let b = Budget::default();
        Self {
            max_expansions: b.max_expansions,
            max_time: b.max_time.as_secs_f64(),
            max_stored_states_total: b.max_stored_states,
            playback_period: 0.5,
            frame_id: "world".into(),
            cell_size: 0.05,
            repertoire: Repertoire::EVERY_ACTION.to_string(),
        }
    }
}

/// Planning time a node may grant one request, s (1 ms to 1 h).
pub const MAX_TIME: Span = Span::new(1e-3, 3600.0);
/// Seconds between playback steps (1 ms to 1 h).
pub const PLAYBACK_PERIOD: Span = Span::new(1e-3, 3600.0);

/// Smallest share of the node's stored states a search starts with.
pub const MIN_SEARCH_STATES: usize = 10_000;

/// The node's parameters for ROS 2 tools (`ros2 param describe /reconfig_planner <name>`),
/// checked against [`NodeSettings::from_tree`]; all are read at start-up.
pub const PARAMS: NodeParams = NodeParams {
    groups: &[&[
        P::integer(
            "max_expansions",
            5_000_000,
            "Largest number of A* expansions a request may use (requests asking for more or for 0 get this), count",
        )
        .int_range(1, i64::MAX),
        P::double("max_time", 10.0, "Longest planning time a request may use (requests asking for more or for 0 get this), s")
            .range(1e-3, 3600.0),
        P::integer(
            "max_stored_states_total",
            10_000_000,
            "Most stored search states of all concurrent requests together (~220 B each), count",
        )
        .int_range(10_000, i64::MAX),
        P::double("playback_period", 0.5, "Seconds between steps when a playback goal gives 0, s").range(1e-3, 3600.0),
        P::string("frame_id", "world", "Fixed frame of the markers"),
        P::double("cell_size", 0.05, "Side of one lattice cell in rviz, m (> 0)"),
        P::string(
            "repertoire",
            "every_action",
            "Actions plans may use: every_action, or minimal (moves along x in the bottom layer and down, lifts off the bottom layer, shifts above it, put downs onto the floor, robots kept a cell apart along x: what the MoleMOD physics executes) followed by a comma-separated list of: along_y, move_up, move_above_floor, lift_above_floor, put_down_above_floor, shift_on_floor, coop_lift, side_by_side",
        ),
    ]],
    extras_live: false,
};

/// Validated node settings.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// The node's budget cap.
    pub budget: Budget,
    /// Stored states of all concurrent searches together.
    pub max_stored_states_total: usize,
    /// Default playback period.
    pub playback_period: Duration,
    /// Fixed frame of the markers.
    pub frame_id: String,
    /// Side of one lattice cell in rviz, m.
    pub cell_size: f64,
    /// The actions every plan may use.
    pub repertoire: Repertoire,
}

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys ignored).
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let raw: Raw = params::deserialize(&params::without_standard(tree))?;
        if raw.max_stored_states_total < MIN_SEARCH_STATES {
            return Err(ParamError::invalid(
                "max_stored_states_total",
                format!("must be at least {MIN_SEARCH_STATES} (one search's smallest share), got {}", raw.max_stored_states_total),
            ));
        }
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
        let max_time = MAX_TIME.seconds(raw.max_time).map_err(|e| e.at("max_time"))?;
        let playback_period = PLAYBACK_PERIOD.seconds(raw.playback_period).map_err(|e| e.at("playback_period"))?;
        let cell_size = positive("cell_size", raw.cell_size)?;
        if raw.frame_id.trim().is_empty() {
            return Err(ParamError::invalid("frame_id", "must name the fixed frame of the markers (e.g. `world`), got an empty string"));
        }
        let repertoire = raw.repertoire.parse().map_err(|e: RepertoireError| ParamError::invalid("repertoire", e.to_string()))?;
        Ok(Self {
            budget: Budget::default()
                .with_max_expansions(raw.max_expansions)
                .with_max_time(max_time)
                .with_max_stored_states(Budget::default().max_stored_states.min(raw.max_stored_states_total)),
            max_stored_states_total: raw.max_stored_states_total,
            playback_period,
            frame_id: raw.frame_id,
            cell_size,
            repertoire,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest tree the node accepts.
    const BASE: &str = "{}";

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        let check = flotilla_common::param_spec::check_table(PARAMS.params(), BASE, |t| {
            NodeSettings::from_tree(t).map(|s| format!("{s:?}")).map_err(|e| e.to_string())
        });
        assert_eq!(check, Ok(()));
    }

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

    /// Issue 21 item 1: `max_time: 1e20` and `playback_period: 1e300` passed validation and
    /// panicked at start-up.
    #[test]
    fn item1_huge_durations_are_refused() {
        for (body, key) in
            [("max_time: 1.0e20", "max_time"), ("playback_period: 1.0e300", "playback_period"), ("max_time: 1.0e-300", "max_time")]
        {
            let tree: Mapping = serde_yaml::from_str(body).unwrap();
            let msg = NodeSettings::from_tree(&tree).unwrap_err().to_string();
            assert!(msg.contains(key), "{body}: {msg}");
        }
    }

    #[test]
    fn the_repertoire_is_read_and_a_bad_one_named() {
        assert_eq!(NodeSettings::from_tree(&Mapping::new()).unwrap().repertoire, Repertoire::EVERY_ACTION);
        let tree: Mapping = serde_yaml::from_str("repertoire: minimal,move_up").unwrap();
        assert_eq!(NodeSettings::from_tree(&tree).unwrap().repertoire, Repertoire { move_up: true, ..Repertoire::MINIMAL });
        let tree: Mapping = serde_yaml::from_str("repertoire: minimal,fly").unwrap();
        let msg = NodeSettings::from_tree(&tree).unwrap_err().to_string();
        assert!(msg.contains("repertoire") && msg.contains("`fly`"), "{msg}");
    }

    /// Issue 21 item 9: an empty `frame_id` was accepted.
    #[test]
    fn item9_empty_frame_id_is_refused() {
        let tree: Mapping = serde_yaml::from_str("frame_id: ''").unwrap();
        assert!(NodeSettings::from_tree(&tree).unwrap_err().to_string().contains("frame_id"));
    }
}
