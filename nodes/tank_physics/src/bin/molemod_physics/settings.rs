//! The node's parameters: the task (`task`, `robots`, `seed`, `start_jitter_mm`), pacing
//! (`real_time_factor`) and what it shows (`publish.*`). All are read at start-up.

use std::path::PathBuf;

use flotilla_common::param_spec::{NodeParams, ParamSpec as P};
use flotilla_common::params::{self, ParamError};
use reconfig_planner::Task;
use serde::Deserialize;
use serde_yaml::Mapping;
use tank_physics::run::{check_rate, rate_param, REAL_TIME_FACTOR};
use tank_physics::systems::molemod::executor::MAX_START_JITTER;

/// Parameters as they appear in the `ros__parameters` file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Raw {
    /// Task file (YAML, the planner's format). Required.
    task: String,
    /// Robots: the first N of the task's list, count. Default 1.
    robots: u64,
    /// Seed of the robots' start displacements. Default 1.
    seed: u64,
    /// Each robot starts displaced along its tunnel by up to +- this, mm. Default 1.
    start_jitter_mm: f64,
    /// Sim seconds per wall second while a goal runs; 0 = as fast as possible. Default 1.
    real_time_factor: f64,
}

impl Default for Raw {
    fn default() -> Self {
        Self { task: String::new(), robots: 1, seed: 1, start_jitter_mm: 1.0, real_time_factor: 1.0 }
    }
}

/// What the node shows, and how often.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PublishSettings {
    /// Joint states, `/tf` and `/clock` while a goal runs, Hz of sim time. Default 30.
    pub rate: f64,
    /// Fixed frame of every pose (the floor under the lattice's corner cell). Default `world`.
    pub frame_id: String,
}

impl Default for PublishSettings {
    fn default() -> Self {
        Self { rate: 30.0, frame_id: "world".into() }
    }
}

/// Largest start displacement, mm: the executor's [`MAX_START_JITTER`] (half a crawl step).
const MAX_JITTER_MM: f64 = MAX_START_JITTER * 1e3;

/// The node's parameters for ROS 2 tools (`ros2 param describe /molemod_physics <name>`),
/// checked against [`NodeSettings::from_tree`]; all are read at start-up.
pub const PARAMS: NodeParams = NodeParams {
    groups: &[&[
        P::string("task", "", "Task file (YAML, the planner's format: start, goal, robots); required"),
        // No static range: the upper bound is the task file's robot count.
        P::integer("robots", 1, "Robots: the first N of the task's list (>= 1, at most the task's)"),
        P::integer("seed", 1, "Seed of the robots' start displacements along their tunnels").int_range(0, i64::MAX),
        P::double("start_jitter_mm", 1.0, "Each robot starts displaced along its tunnel by up to +- this, mm").range(0.0, MAX_JITTER_MM),
        P::double("real_time_factor", 1.0, "Sim seconds per wall second while a goal runs: 0 (as fast as possible) or 0.001 to 1000, x")
            .range(0.0, REAL_TIME_FACTOR.max),
        rate_param("publish.rate", 30.0, "Rate of the joint states, /tf and /clock while a goal runs, Hz of sim time"),
        P::string("publish.frame_id", "world", "Fixed frame of every pose"),
    ]],
    extras_live: false,
};

/// Everything the node is configured with.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// The task file (loaded and checked for [`NodeSettings::robots`] robots here; the
    /// node plans it at start-up).
    pub task_path: PathBuf,
    /// Robots, count.
    pub robots: usize,
    /// Seed of the start displacements.
    pub seed: u64,
    /// Largest start displacement, m.
    pub start_jitter: f64,
    /// Sim seconds per wall second; 0 = as fast as possible.
    pub real_time_factor: f64,
    /// Topic rates and frame.
    pub publish: PublishSettings,
}

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys are ignored); errors name the key.
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let mut tree = params::without_standard(tree);
        let publish = params::take_section::<PublishSettings>(&mut tree, "publish")?;
        let raw: Raw = params::deserialize(&tree)?;
        if raw.task.is_empty() {
            return Err(ParamError::invalid("task", "a task file is required (e.g. config/molemod/moves1.yaml)"));
        }
        let task_path = PathBuf::from(&raw.task);
        let task = Task::load(&task_path).map_err(|e| ParamError::invalid("task", e))?;
        if raw.robots == 0 {
            return Err(ParamError::invalid("robots", "must be at least 1"));
        }
        let robots = usize::try_from(raw.robots).map_err(|_| ParamError::invalid("robots", "too large"))?;
        task.request(robots).map_err(|e| ParamError::invalid("robots", e))?;
        if !(0.0..=MAX_JITTER_MM).contains(&raw.start_jitter_mm) {
            return Err(ParamError::invalid("start_jitter_mm", format!("must be 0 to {MAX_JITTER_MM} mm, got {}", raw.start_jitter_mm)));
        }
        REAL_TIME_FACTOR.check(raw.real_time_factor, "x").map_err(|e| e.at("real_time_factor"))?;
        check_rate("publish.rate", publish.rate)?;
        if publish.frame_id.is_empty() {
            return Err(ParamError::invalid("publish.frame_id", "must not be empty"));
        }
        Ok(Self {
            task_path,
            robots,
            seed: raw.seed,
            start_jitter: raw.start_jitter_mm * 1e-3,
            real_time_factor: raw.real_time_factor,
            publish,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves1() -> String {
        format!("{}/../../config/molemod/moves1.yaml", env!("CARGO_MANIFEST_DIR"))
    }

    fn settings(yaml: &str) -> Result<NodeSettings, ParamError> {
        let mut tree: Mapping = serde_yaml::from_str(yaml).unwrap();
        if !tree.contains_key("task") {
            tree.insert("task".into(), moves1().into());
        }
        NodeSettings::from_tree(&tree)
    }

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        let base = format!("task: {}", moves1());
        let check = flotilla_common::param_spec::check_table(PARAMS.params(), &base, |t| {
            NodeSettings::from_tree(t).map(|s| format!("{s:?}")).map_err(|e| e.to_string())
        });
        assert_eq!(check, Ok(()));
    }

    #[test]
    fn defaults() {
        let s = settings("{}").unwrap();
        assert_eq!((s.robots, s.seed, s.publish.rate, s.publish.frame_id.as_str()), (1, 1, 30.0, "world"));
        assert!((s.start_jitter - 1e-3).abs() < 1e-12);
    }

    #[test]
    fn bad_values_name_the_key_and_the_reason() {
        for (yaml, wanted) in [
            ("task: ''", "a task file is required"),
            ("task: /nonexistent/task.yaml", "task"),
            ("robots: 0", "robots"),
            ("robots: 9", "robots"),
            ("seed: -1", "seed"),
            ("start_jitter_mm: 20", "start_jitter_mm"),
            ("real_time_factor: -1", "real_time_factor"),
            ("publish: {rate: 0}", "publish.rate"),
            ("publish: {colour: red}", "colour"),
            ("tasks: x", "tasks"),
        ] {
            let err = settings(yaml).unwrap_err().to_string();
            assert!(err.contains(wanted), "{yaml}: {err}");
        }
    }
}
