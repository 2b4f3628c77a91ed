//! Experiments of Modular Hydraulic Propulsion (SPEC 5) on the fast whole-robot model
//! (`tank_physics::systems::mhp`) with the firmware controllers
//! (`flotilla_firmware::mhp`):
//!
//! - `trials`: one setting, the paper's protocol, N trials in parallel;
//! - `sweep`: the grids of the paper's Fig. 4 (direction error x robot x controller) and
//!   Fig. 5 (failure probability x robot);
//! - `tune`: the paper's P-then-D tuning of the centralised controller on the 3^3 cube;
//! - `bench`: one 50 s trial per robot size on one core: cost, real-time factor, memory;
//! - `prototype`: the 2-D prototype's configurations in their tank, times over 50 cm.

mod bench;
mod plots;
mod prototype;
mod stats;
mod sweep;
mod trial;
mod trials;
mod tune;

pub use bench::Bench;
pub use prototype::Prototype;
pub use stats::Stats;
pub use sweep::Sweep;
pub use trial::{arvo, run_trial, Controller, RobotSpec, TrialResult, TrialSetup};
pub use trials::Trials;
pub use tune::Tune;

use rayon::prelude::*;

use crate::experiment::{Experiment, ExperimentError, Options, Progress, Table};
use tank_physics::systems::mhp::MhpError;

/// The MHP experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&Trials, &Sweep, &Tune, &Bench, &Prototype];

fn option_error(option: &str, message: impl Into<String>) -> ExperimentError {
    ExperimentError::Option { option: option.to_owned(), message: message.into() }
}

/// `x` as a message shows it: plain between 1e-4 and 1e6, in exponent form beyond (1e308
/// is not 309 digits).
fn shown(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e6).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// A probability option: comma-separated values in [0, 1].
fn probabilities(options: &Options, name: &str) -> Result<Vec<f64>, ExperimentError> {
    let values = options.numbers(name)?;
    match values.iter().find(|p| !(0.0..=1.0).contains(*p)) {
        Some(p) => Err(option_error(name, format!("{p} is not a probability in [0, 1]"))),
        None => Ok(values),
    }
}

/// A direction-error option: comma-separated values >= 0.
fn direction_errors(options: &Options, name: &str) -> Result<Vec<f64>, ExperimentError> {
    let values = options.numbers(name)?;
    match values.iter().find(|e| **e < 0.0) {
        Some(e) => Err(option_error(name, format!("{e}: the error length must be >= 0"))),
        None => Ok(values),
    }
}

fn robots(options: &Options, name: &str) -> Result<Vec<RobotSpec>, ExperimentError> {
    options.names(name)?.iter().map(|r| RobotSpec::parse(r).map_err(|m| option_error(name, m))).collect()
}

fn controllers(options: &Options, name: &str) -> Result<Vec<Controller>, ExperimentError> {
    options.names(name)?.iter().map(|c| Controller::parse(c).map_err(|m| option_error(name, m))).collect()
}

/// Runs `trials` trials of every setup in parallel (rayon), one progress tick per trial;
/// results per setup in trial order.
fn run_batch(setups: &[TrialSetup], trials: usize, progress: &Progress) -> Result<Vec<Vec<TrialResult>>, ExperimentError> {
    progress.expect(setups.len() * trials, "MHP trials");
    let jobs: Vec<(usize, usize)> = (0..setups.len()).flat_map(|s| (0..trials).map(move |t| (s, t))).collect();
    let results: Vec<Result<TrialResult, ExperimentError>> = jobs
        .par_iter()
        .map(|&(s, t)| {
            let r = run_trial(&setups[s], t)
                .map_err(|e| option_error(option_of(&e, &setups[s]), format!("{} trial {t}: {e}", setups[s].robot.label())));
            progress.finished_one();
            r
        })
        .collect();
    let mut out = vec![Vec::with_capacity(trials); setups.len()];
    for ((s, _), r) in jobs.iter().zip(results) {
        out[*s].push(r?);
    }
    Ok(out)
}

/// The option a trial's error comes from: the drag coefficient and the module density are
/// options of their own (a module's mass or inertia is the density's when it was changed);
/// everything else is the robot's (its size, thrust, faults).
fn option_of(e: &MhpError, setup: &TrialSetup) -> &'static str {
    let paper = TrialSetup::paper(RobotSpec::Cube(1), Controller::Decentralised, Default::default(), 0);
    let density_changed = setup.module_density != paper.module_density;
    let drag_changed = setup.drag_coefficient != paper.drag_coefficient;
    match e {
        MhpError::Parameter { name: "drag_coefficient", .. } => "drag-coefficient",
        MhpError::Parameter { name: "module_density", .. } => "module-density",
        MhpError::ModuleMass { .. } | MhpError::Inertia { .. } if density_changed => "module-density",
        // A motion that blows up is the changed physics' before the robot's.
        MhpError::Diverged { .. } if density_changed => "module-density",
        MhpError::Diverged { .. } if drag_changed => "drag-coefficient",
        _ => "robot",
    }
}

/// `trials.csv`: one row per trial of each labelled setting.
fn trials_table(rows: &[(String, &[TrialResult])]) -> Table {
    let header = ["setting", "trial", "success", "time_s", "velocity_cm_s", "final_distance_cm", "modules", "outer_faces"];
    let rows = rows
        .iter()
        .flat_map(|(label, results)| {
            results.iter().map(move |r| {
                vec![
                    label.clone(),
                    r.index.to_string(),
                    r.success.to_string(),
                    format!("{:.3}", r.time_s),
                    format!("{:.4}", r.velocity_cm_s),
                    format!("{:.3}", r.final_distance_cm),
                    r.modules.to_string(),
                    r.outer_faces.to_string(),
                ]
            })
        })
        .collect();
    Table { file: "trials.csv".into(), header: header.map(String::from).to_vec(), rows }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tank_physics::systems::mhp::MhpFaults;

    /// A thrust far beyond what the modules' mass and the step can integrate turned every
    /// figure into NaN (success rate 0, exit 0); now the trial stops at the first step
    /// whose state is not finite and names the parameters.
    #[test]
    fn a_diverging_trial_is_an_error_naming_the_physics_not_a_nan_row() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("strong.txt");
        std::fs::write(&path, "0 0 0\n1 0 0\nthrust_mN 1e300\n").unwrap();
        let robot = RobotSpec::parse(&format!("file:{}", path.display())).unwrap();
        let setup = TrialSetup { time_limit: 1.0, ..TrialSetup::paper(robot, Controller::Decentralised, MhpFaults::default(), 1) };
        let err = run_batch(std::slice::from_ref(&setup), 2, &Progress::hidden()).unwrap_err().to_string();
        assert!(err.starts_with("option --robot: strong trial 0: the motion diverged at t = "), "{err}");
        assert!(err.contains("pump thrust 1e297 N"), "{err}");
    }

    /// Regression: a divergence under a changed module density named `--robot`.
    #[test]
    fn a_diverging_trial_under_a_changed_density_names_the_density() {
        let setup = TrialSetup {
            time_limit: 1.0,
            module_density: 1e-3,
            ..TrialSetup::paper(RobotSpec::Cube(2), Controller::Decentralised, MhpFaults::default(), 1)
        };
        let err = run_batch(std::slice::from_ref(&setup), 1, &Progress::hidden()).unwrap_err().to_string();
        assert!(err.starts_with("option --module-density: 2^3 trial 0: "), "{err}");
    }

    #[test]
    fn parallel_batches_equal_trials_run_in_order() {
        let faults = MhpFaults { direction_error: 0.5, thruster_failure: 0.2, sensor_failure: 0.1 };
        let setup = TrialSetup::paper(RobotSpec::Random(30), Controller::Decentralised, faults, 11);
        let batch = run_batch(std::slice::from_ref(&setup), 6, &Progress::hidden()).unwrap().remove(0);
        let in_order: Vec<TrialResult> = (0..6).map(|i| run_trial(&setup, i).unwrap()).collect();
        assert_eq!(batch, in_order);
        // Different trials draw different robots and attitudes.
        assert!(in_order.windows(2).any(|w| w[0].time_s != w[1].time_s));
    }
}
