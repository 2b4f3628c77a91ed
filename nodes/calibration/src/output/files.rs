//! Text outputs: the physics parameter file, the fitness history and the MSD table.

use std::fmt::Write as _;
use std::path::Path;

use flotilla_common::params::set_dotted;
use serde_yaml::{Mapping, Value};

use super::write_atomically;
use crate::msd::MsdCurve;
use crate::parameters::ParameterSpace;
use crate::pso::IterationRecord;
use crate::CalibrationError;

/// Writes a `ros__parameters` file for `node` that the node loads directly: the `base`
/// parameter tree (e.g. the world the calibration simulated) with every calibrated
/// parameter set to its value (dotted names become nested keys).
pub fn write_parameter_file(
    path: &Path,
    node: &str,
    base: &Mapping,
    space: &ParameterSpace,
    values: &[f64],
) -> Result<(), CalibrationError> {
    let mut tree = base.clone();
    for (name, value) in space.named(values) {
        set_dotted(&mut tree, name, Value::from(value));
    }
    let mut inner = Mapping::new();
    inner.insert("ros__parameters".into(), Value::Mapping(tree));
    let mut root = Mapping::new();
    root.insert(node.into(), Value::Mapping(inner));
    let yaml = serde_yaml::to_string(&root).map_err(|e| CalibrationError::Setting(format!("cannot serialise the parameter file: {e}")))?;
    let text = format!("# Calibrated by flotilla calibration (PSO on the MSD).\n{yaml}");
    write_atomically(path, text.as_bytes())
}

/// Writes `iteration,best_fitness,mean_fitness,evaluations,<parameter names...>`.
pub fn write_fitness_history(path: &Path, space: &ParameterSpace, history: &[IterationRecord]) -> Result<(), CalibrationError> {
    let mut text = String::from("iteration,best_fitness,mean_fitness,evaluations");
    for name in space.names() {
        text.push(',');
        text.push_str(&name);
    }
    text.push('\n');
    for r in history {
        let _ = write!(text, "{},{},{},{}", r.iteration, r.best_fitness, r.mean_fitness, r.evaluations);
        for v in &r.best_position {
            let _ = write!(text, ",{v}");
        }
        text.push('\n');
    }
    write_atomically(path, text.as_bytes())
}

/// Writes `lag_s,<label>...` with one MSD column (m^2) per curve; the curves must share
/// their lags.
pub fn write_msd_table(path: &Path, curves: &[(&str, &MsdCurve)]) -> Result<(), CalibrationError> {
    let Some((_, first)) = curves.first() else {
        return Err(CalibrationError::Setting("no MSD curve to write".into()));
    };
    for (label, c) in curves {
        c.absolute_difference_sum(first).map_err(|e| CalibrationError::Setting(format!("MSD curve `{label}`: {e}")))?;
    }
    let mut text = String::from("lag_s");
    for (label, _) in curves {
        let _ = write!(text, ",{label}");
    }
    text.push('\n');
    for (i, lag) in first.lags().enumerate() {
        let _ = write!(text, "{lag}");
        for (_, c) in curves {
            let _ = write!(text, ",{}", c.values[i]);
        }
        text.push('\n');
    }
    write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parameters::ParameterRange;

    #[test]
    fn parameter_file_keeps_the_base_and_nests_dotted_names() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.yaml");
        let base: Mapping = serde_yaml::from_str("dt: 0.025\nhydro: {kv: 1.0, face_sections: 10}").unwrap();
        let space = ParameterSpace {
            parameters: vec![ParameterRange::new("hydro.kv", "1", 0.5, 2.0, 1.0), ParameterRange::new("hydro.kf", "1", 0.1, 4.0, 1.0)],
        };
        write_parameter_file(&path, "tank_physics", &base, &space, &[1.5, 2.25]).unwrap();
        let tree = flotilla_common::params::load_file(&path, &flotilla_common::params::NodeIdentity::new("tank_physics", "/")).unwrap();
        let get = |k: &str| flotilla_common::params::get_dotted(&tree, k).and_then(Value::as_f64);
        assert_eq!(get("hydro.kv"), Some(1.5));
        assert_eq!(get("hydro.kf"), Some(2.25));
        assert_eq!(get("hydro.face_sections"), Some(10.0));
        assert_eq!(get("dt"), Some(0.025));
    }

    #[test]
    fn tables_by_hand() {
        let dir = tempfile::tempdir().unwrap();
        let space = ParameterSpace { parameters: vec![ParameterRange::new("a", "1", 0.0, 1.0, 0.5)] };
        let history =
            vec![IterationRecord { iteration: 1, best_fitness: 2.0, mean_fitness: 3.0, best_position: vec![0.25], evaluations: 4 }];
        let path = dir.path().join("h.csv");
        write_fitness_history(&path, &space, &history).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "iteration,best_fitness,mean_fitness,evaluations,a\n1,2,3,4,0.25\n");
        let m = MsdCurve { dt: 0.5, values: vec![1.0, 2.0], counts: vec![1, 1] };
        let path = dir.path().join("m.csv");
        write_msd_table(&path, &[("real", &m), ("sim", &m)]).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "lag_s,real,sim\n0.5,1,1\n1,2,2\n");
    }
}
