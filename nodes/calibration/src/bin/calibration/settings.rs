//! The calibration node's parameters.

use std::path::PathBuf;

use calibration::job::JobSettings;
use calibration::request::ServiceDefaults;
use calibration::tank::MAX_BALLS;
use flotilla_common::param_spec::{NodeParams, ParamSpec as P};
use flotilla_common::params::{self, ParamError};
use serde::Deserialize;
use serde_yaml::Mapping;

/// Parameters as they appear in the `ros__parameters` file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Raw {
    /// Goals without an output directory write into a fresh `run-<time>-seed<seed>`
    /// directory under this one (relative to the node's working directory). Default
    /// `calibration_runs`.
    output_root: String,
    /// Worker threads of one calibration (count; 0 = one per core). Default 0.
    threads: usize,
    /// Simulated seconds before each simulation starts recording, s. Default 10.
    warmup: f64,
    /// Ping-pong balls of the default world (goals without a scenario file). Default 24.
    balls: usize,
    /// Node whose section of a goal's scenario file describes the world. Default
    /// `tank_physics`.
    scenario_node: String,
    /// Job settings (YAML of the crate README: PSO constants, MSD stride, maps, bounds);
    /// "" = the library defaults. A goal's fields override them. Default "".
    job_settings_file: String,
    /// Largest iterations x swarm size a goal may ask for (simulations). Default 200000.
    max_evaluations: u64,
    /// Flow-field estimation.
    flow_field: RawFlow,
    /// Frame of the flow-field message. Default `world`.
    frame_id: String,
}

/// `flow_field.*` parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawFlow {
    /// Side of the square grid centred on the tank, m. Default 0.6.
    side: f64,
    /// Cells per side when a request gives 0 (count). Default 50.
    cells: usize,
    /// Most cells per side a request may ask for (count). Default 500.
    max_cells: usize,
    /// Mass of a tracked ball, kg. Default 0.01309 (3 cm ball floating 25 mm deep).
    ball_mass: f64,
}

impl Default for Raw {
    fn default() -> Self {
        let d = ServiceDefaults::default();
        Self {
            output_root: d.output_root.display().to_string(),
            threads: 0,
            warmup: d.warmup,
            balls: d.balls,
            scenario_node: d.scenario_node,
            job_settings_file: String::new(),
            max_evaluations: d.max_evaluations,
            flow_field: RawFlow::default(),
            frame_id: "world".into(),
        }
    }
}

impl Default for RawFlow {
    fn default() -> Self {
        let d = ServiceDefaults::default();
        Self { side: d.flow.grid.side, cells: d.flow.grid.nx, max_cells: d.max_flow_cells, ball_mass: d.flow.drag.mass }
    }
}

/// Mass of the catalogue's ping-pong ball (3 cm, floating 25 mm deep), kg: the default of
/// `flow_field.ball_mass` (`table_matches_the_validation` checks it is the library's).
const BALL_MASS: f64 = 0.013_089_969_389_957_47;

/// The node's parameters for ROS 2 tools (`ros2 param describe /calibration <name>`),
/// checked against [`NodeSettings::from_tree`]: a change applies to the next goal or
/// request.
pub const PARAMS: NodeParams = NodeParams {
    groups: &[&[
        P::string(
            "output_root",
            "calibration_runs",
            "Goals without an output directory write into a fresh run-<time>-seed<seed> directory under this one (not empty)",
        )
        .live(),
        P::integer("threads", 0, "Worker threads of one calibration, count; 0 = one per core").int_range(0, i64::MAX).live(),
        P::double("warmup", 10.0, "Simulated seconds before each simulation starts recording, s")
            .range(0.0, calibration::tank::MAX_WARMUP_SECONDS)
            .live(),
        P::integer("balls", 24, "Ping-pong balls of the default world (goals without a scenario file), count")
            .int_range(1, MAX_BALLS as i64)
            .live(),
        P::string("scenario_node", "tank_physics", "Node whose section of a goal's scenario file describes the world").live(),
        P::string(
            "job_settings_file",
            "",
            "Job settings YAML (PSO constants, MSD stride, maps, bounds; calibration README); \"\" = the library's defaults",
        )
        .live(),
        P::integer("max_evaluations", 200_000, "Largest iterations x swarm size a goal may ask for, simulations")
            .int_range(1, i64::MAX)
            .live(),
        P::double("flow_field.side", 0.6, "Side of the square flow-field grid centred on the tank, m (> 0)").live(),
        P::integer("flow_field.cells", 50, "Cells per side when a request gives 0, count (1 to flow_field.max_cells)").live(),
        P::integer(
            "flow_field.max_cells",
            500,
            "Most cells per side a request may ask for, count (at least flow_field.cells, at most 1000: the flow grids' cap)",
        )
        .live(),
        P::double("flow_field.ball_mass", BALL_MASS, "Mass of a tracked ball, kg (> 0; the catalogue's 3 cm ball floating 25 mm deep)")
            .live(),
        P::string("frame_id", "world", "Frame of the flow-field message (not empty)").live(),
    ]],
    extras_live: true,
};

/// Validated node settings.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// What goals and requests leave open.
    pub defaults: ServiceDefaults,
    /// Worker threads per calibration (0 = one per core).
    pub threads: usize,
    /// Frame of the flow-field message.
    pub frame_id: String,
}

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys ignored).
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let raw: Raw = params::deserialize(&params::without_standard(tree))?;
        let job = if raw.job_settings_file.is_empty() {
            JobSettings::default()
        } else {
            let text = std::fs::read_to_string(&raw.job_settings_file)
                .map_err(|e| ParamError::invalid("job_settings_file", format!("cannot read {}: {e}", raw.job_settings_file)))?;
            serde_yaml::from_str(&text).map_err(|e| ParamError::invalid("job_settings_file", format!("{}: {e}", raw.job_settings_file)))?
        };
        let mut defaults = ServiceDefaults {
            output_root: PathBuf::from(&raw.output_root),
            job,
            balls: raw.balls,
            warmup: raw.warmup,
            scenario_node: raw.scenario_node.clone(),
            max_evaluations: raw.max_evaluations,
            max_flow_cells: raw.flow_field.max_cells,
            ..ServiceDefaults::default()
        };
        let flow = &raw.flow_field;
        for (key, value) in [("flow_field.side", flow.side), ("flow_field.ball_mass", flow.ball_mass)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(ParamError::invalid(key, format!("must be a positive number, got {value}")));
            }
        }
        if flow.cells == 0 || flow.cells > flow.max_cells {
            return Err(ParamError::invalid(
                "flow_field.cells",
                format!("must be in 1..=flow_field.max_cells ({}), got {}", flow.max_cells, flow.cells),
            ));
        }
        defaults.flow.grid.side = flow.side;
        defaults.flow.grid.nx = flow.cells;
        defaults.flow.grid.ny = flow.cells;
        // The grid is the round tank's bounding square: cells beyond its radius are outside.
        defaults.flow.tank_radius = 0.5 * flow.side;
        defaults.flow.drag.mass = flow.ball_mass;
        defaults.job.validate().map_err(|e| ParamError::invalid("job_settings_file", e))?;
        // Bounded: a goal with a huge warm-up could be neither finished nor cancelled.
        if !(raw.warmup.is_finite() && (0.0..=calibration::tank::MAX_WARMUP_SECONDS).contains(&raw.warmup)) {
            return Err(ParamError::invalid(
                "warmup",
                format!("must be in [0, {}] s, got {}", calibration::tank::MAX_WARMUP_SECONDS, raw.warmup),
            ));
        }
        for (key, value) in
            [("balls", raw.balls as u64), ("max_evaluations", raw.max_evaluations), ("flow_field.max_cells", flow.max_cells as u64)]
        {
            if value == 0 {
                return Err(ParamError::invalid(key, "must be at least 1"));
            }
        }
        if raw.balls > calibration::tank::MAX_BALLS {
            return Err(ParamError::invalid("balls", format!("must be at most {}, got {}", calibration::tank::MAX_BALLS, raw.balls)));
        }
        if flow.max_cells > calibration::maps::MAX_CELLS_PER_SIDE {
            return Err(ParamError::invalid(
                "flow_field.max_cells",
                format!("must be at most {} (the cap of every flow grid), got {}", calibration::maps::MAX_CELLS_PER_SIDE, flow.max_cells),
            ));
        }
        if raw.scenario_node.trim().is_empty() {
            return Err(ParamError::invalid("scenario_node", "must name the physics node whose section of a scenario file is read"));
        }
        if raw.output_root.is_empty() {
            return Err(ParamError::invalid("output_root", "must not be empty"));
        }
        // An empty frame_id gives a FlowField no tool can place.
        if raw.frame_id.is_empty() {
            return Err(ParamError::invalid("frame_id", "must not be empty"));
        }
        Ok(Self { defaults, threads: raw.threads, frame_id: raw.frame_id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Mapping {
        serde_yaml::from_str(text).unwrap()
    }

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        let check = flotilla_common::param_spec::check_table(PARAMS.params(), "{}", |t| {
            NodeSettings::from_tree(t).map(|s| format!("{s:?}")).map_err(|e| e.to_string())
        });
        assert_eq!(check, Ok(()));
    }

    #[test]
    fn defaults_and_errors_name_the_key() {
        let s = NodeSettings::from_tree(&Mapping::new()).unwrap();
        assert_eq!((s.defaults.balls, s.threads, s.defaults.flow.grid.nx), (24, 0, 50));
        let s = NodeSettings::from_tree(&tree("warmup: 1.5\nflow_field: {cells: 20}")).unwrap();
        assert_eq!((s.defaults.warmup, s.defaults.flow.grid.ny), (1.5, 20));
        for (text, key) in [
            ("warmup: -1", "warmup"),
            // A huge warm-up was accepted and the next goal ran for ever.
            ("warmup: 1e12", "warmup"),
            ("balls: 0", "balls"),
            ("flow_field: {side: 0}", "flow_field.side"),
            ("flow_field: {cells: 0}", "flow_field.cells"),
            ("job_settings_file: /no/such.yaml", "job_settings_file"),
            ("threds: 2", "threds"),
            ("max_evaluations: 0", "max_evaluations"),
        ] {
            let e = NodeSettings::from_tree(&tree(text)).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }

    #[test]
    fn job_settings_file_is_loaded_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job.yaml");
        std::fs::write(&path, "calibration:\n  pso: {swarm_size: 5}\n").unwrap();
        let s = NodeSettings::from_tree(&tree(&format!("job_settings_file: {}", path.display()))).unwrap();
        assert_eq!(s.defaults.job.calibration.pso.swarm_size, 5);
        std::fs::write(&path, "calibration:\n  pso: {swarm_size: 0}\n").unwrap();
        let e = NodeSettings::from_tree(&tree(&format!("job_settings_file: {}", path.display()))).unwrap_err().to_string();
        assert!(e.contains("job_settings_file") && e.contains("swarm_size"), "{e}");
    }

    /// Issue 21 items 3 and 9: `balls` 1e7, an empty `scenario_node` and a `max_cells`
    /// above the shared flow-grid cap were accepted.
    #[test]
    fn item3_item9_counts_are_capped_and_scenario_node_named() {
        for (text, key) in [
            ("balls: 10000000", "balls"),
            ("scenario_node: ''", "scenario_node"),
            // An empty frame_id was accepted (a FlowField no tool can place).
            ("frame_id: ''", "frame_id"),
            ("flow_field: {max_cells: 1000000, cells: 1000000}", "flow_field.max_cells"),
        ] {
            let e = NodeSettings::from_tree(&tree(text)).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }
}
