//! A calibration run: PSO over the parameter space, fitness = the paper's
//! `sum_i |MSD_sim(t_i) - MSD_real(t_i)|`, a checkpoint after every iteration (atomic
//! write), resume from a checkpoint, progress through a callback that may cancel.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tracing::{info, warn};

use crate::msd::{mean_squared_displacement, MsdCurve, MsdSettings};
use crate::parameters::ParameterSpace;
use crate::pso::{optimise, IterationRecord, PsoSettings, Swarm};
use crate::simulator::Simulator;
use crate::CalibrationError;

/// Everything that defines a calibration (apart from the data and the simulator).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CalibrationSettings {
    /// The MSD window and start-time stride (frames of the simulator's interval).
    pub msd: MsdSettings,
    /// MSD windows per simulated run: each evaluation simulates
    /// `window + (windows - 1) * stride` frames (dimensionless, >= 1; default 1, the
    /// paper's one 60 s run per evaluation).
    pub simulated_windows: usize,
    /// The optimiser.
    pub pso: PsoSettings,
    /// The parameters searched, with bounds and starting point.
    pub parameters: ParameterSpace,
}

impl Default for CalibrationSettings {
    fn default() -> Self {
        Self {
            msd: MsdSettings::default(),
            simulated_windows: 1,
            pso: PsoSettings::default(),
            parameters: crate::tank::hydro_parameter_space(),
        }
    }
}

impl CalibrationSettings {
    /// Frames each fitness evaluation simulates.
    pub fn simulated_frames(&self) -> usize {
        self.msd.window_frames + 1 + (self.simulated_windows.max(1) - 1) * self.msd.start_stride
    }
}

/// Reported after every iteration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrationProgress {
    /// Iterations done (dimensionless).
    pub iteration: usize,
    /// Iterations asked for (dimensionless).
    pub iterations: usize,
    /// Best fitness so far (m^2).
    pub best_fitness: f64,
    /// Best parameters so far, `(name, value)` (parameter units).
    pub best_parameters: Vec<(String, f64)>,
    /// Objective evaluations so far (dimensionless).
    pub evaluations: u64,
    /// Wall time of this run so far, excluding any resumed part (s).
    pub elapsed: f64,
}

/// The result of a calibration run.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationOutcome {
    /// Best parameters, in the order of the parameter space (parameter units).
    pub best: Vec<f64>,
    /// Their fitness (m^2): the mean of their evaluations when re-evaluated.
    pub best_fitness: f64,
    /// One record per iteration.
    pub history: Vec<IterationRecord>,
    /// False when the progress callback cancelled the run before the last iteration.
    pub completed: bool,
}

/// What the checkpoint file holds.
#[derive(Serialize, Deserialize)]
struct Checkpoint {
    format: String,
    settings: CalibrationSettings,
    reference_digest: String,
    swarm: Swarm,
}

const CHECKPOINT_FORMAT: &str = "flotilla-calibration-checkpoint v1";

/// Calibrates `simulator` against the `reference` MSD. With `checkpoint`, the state is
/// saved there after every iteration and, if the file already exists, the run resumes
/// from it (its settings must match, except the iteration count).
pub fn calibrate(
    simulator: &impl Simulator,
    reference: &MsdCurve,
    settings: &CalibrationSettings,
    checkpoint: Option<&Path>,
    mut progress: impl FnMut(&CalibrationProgress) -> ControlFlow<()>,
) -> Result<CalibrationOutcome, CalibrationError> {
    let bounds = settings.parameters.bounds()?;
    settings.pso.validate()?;
    check_compatible(simulator, reference, settings)?;
    let digest = reference_digest(reference);
    let resume = match checkpoint {
        Some(path) if path.exists() => {
            let swarm = load_checkpoint(path, settings, &digest)?;
            info!(path = %path.display(), iteration = swarm.iteration, "resuming calibration from checkpoint");
            Some(swarm)
        }
        _ => None,
    };
    let frames = settings.simulated_frames();
    let objective = |position: &[f64], seed: u64| -> Result<f64, CalibrationError> {
        let tracks = simulator.simulate(position, frames, seed)?;
        let msd = mean_squared_displacement(&tracks, &settings.msd)?;
        Ok(msd.absolute_difference_sum(reference)?)
    };
    let started = Instant::now();
    let mut cancelled = false;
    let initial = settings.parameters.initial();
    let swarm = optimise(&settings.pso, &bounds, Some(&initial), &objective, resume, |swarm| {
        if let Some(path) = checkpoint {
            save_checkpoint(path, settings, &digest, swarm)?;
        }
        let (best, best_fitness) = swarm.best();
        let report = CalibrationProgress {
            iteration: swarm.iteration,
            iterations: settings.pso.iterations,
            best_fitness,
            best_parameters: settings.parameters.named(best).map(|(n, v)| (n.to_owned(), v)).collect(),
            evaluations: swarm.history.last().map_or(0, |r| r.evaluations),
            elapsed: started.elapsed().as_secs_f64(),
        };
        info!(iteration = report.iteration, best_fitness, elapsed_s = report.elapsed, "calibration iteration");
        let flow = progress(&report);
        cancelled = flow.is_break() && swarm.iteration < settings.pso.iterations;
        Ok(flow)
    })?;
    if cancelled {
        warn!(iteration = swarm.iteration, "calibration cancelled");
    }
    let (best, best_fitness) = if cancelled {
        let (best, fitness) = swarm.best();
        (best.to_vec(), fitness)
    } else {
        swarm.select_by_reevaluation(&settings.pso, &objective, settings.pso.final_reevaluations)?
    };
    Ok(CalibrationOutcome { best, best_fitness, history: swarm.history.clone(), completed: !cancelled })
}

fn check_compatible(simulator: &impl Simulator, reference: &MsdCurve, settings: &CalibrationSettings) -> Result<(), CalibrationError> {
    let names = simulator.parameter_names();
    if names != settings.parameters.names() {
        return Err(CalibrationError::Setting(format!(
            "the simulator takes parameters {names:?} but the settings calibrate {:?}",
            settings.parameters.names()
        )));
    }
    let dt = simulator.frame_interval();
    if (reference.dt - dt).abs() > 1e-9 * dt || reference.values.len() != settings.msd.window_frames {
        return Err(CalibrationError::Setting(format!(
            "the reference MSD has {} lags at {} s but the calibration window is {} lags at the simulator's {} s",
            reference.values.len(),
            reference.dt,
            settings.msd.window_frames,
            dt
        )));
    }
    if settings.simulated_windows == 0 {
        return Err(CalibrationError::Setting("simulated_windows must be at least 1".into()));
    }
    Ok(())
}

/// FNV-1a over the reference's bits: a resumed run must calibrate against the same data.
fn reference_digest(reference: &MsdCurve) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for value in std::iter::once(reference.dt).chain(reference.values.iter().copied()) {
        for byte in value.to_bits().to_le_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

fn save_checkpoint(path: &Path, settings: &CalibrationSettings, digest: &str, swarm: &Swarm) -> Result<(), CalibrationError> {
    let checkpoint =
        Checkpoint { format: CHECKPOINT_FORMAT.into(), settings: settings.clone(), reference_digest: digest.into(), swarm: swarm.clone() };
    let text = serde_json::to_string(&checkpoint)
        .map_err(|e| CalibrationError::Checkpoint { path: path.to_path_buf(), message: e.to_string() })?;
    crate::output::write_atomically(path, text.as_bytes())
}

fn load_checkpoint(path: &Path, settings: &CalibrationSettings, digest: &str) -> Result<Swarm, CalibrationError> {
    let bad = |message: String| CalibrationError::Checkpoint { path: path.to_path_buf(), message };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let checkpoint: Checkpoint = serde_json::from_str(&text).map_err(|e| bad(format!("not a calibration checkpoint: {e}")))?;
    if checkpoint.format != CHECKPOINT_FORMAT {
        return Err(bad(format!("format `{}`, expected `{CHECKPOINT_FORMAT}`", checkpoint.format)));
    }
    // Neither the iteration count nor the final selection changes the saved swarm.
    let mut saved = checkpoint.settings;
    saved.pso.iterations = settings.pso.iterations;
    saved.pso.final_reevaluations = settings.pso.final_reevaluations;
    if saved != *settings {
        return Err(bad("it was written with different settings (only the iteration count and final re-evaluations may change); delete it to start afresh".into()));
    }
    if checkpoint.reference_digest != digest {
        return Err(bad("it was written for a different reference recording; delete it to start afresh".into()));
    }
    Ok(checkpoint.swarm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parameters::ParameterRange;
    use crate::simulator::OrnsteinUhlenbeck;

    fn ou_settings(iterations: usize) -> CalibrationSettings {
        CalibrationSettings {
            msd: MsdSettings { window_frames: 120, start_stride: 20 },
            simulated_windows: 4,
            // The plain PSO: the reported best is the swarm's (no final re-evaluation).
            pso: PsoSettings { iterations, swarm_size: 12, seed: 5, final_reevaluations: 0, ..PsoSettings::default() },
            parameters: ParameterSpace {
                parameters: vec![
                    ParameterRange::new("stiffness", "1/s^2", 2.0, 30.0, 10.0),
                    ParameterRange::new("damping", "1/s", 0.3, 5.0, 1.0),
                    ParameterRange::new("noise", "m/s^1.5", 0.01, 0.2, 0.05),
                ],
            },
        }
    }

    fn reference(sim: &OrnsteinUhlenbeck, truth: &[f64], settings: &CalibrationSettings) -> MsdCurve {
        let tracks = sim.simulate(truth, 3000, 999).unwrap();
        mean_squared_displacement(&tracks, &settings.msd).unwrap()
    }

    #[test]
    fn recovers_ou_parameters() {
        let sim = OrnsteinUhlenbeck { particles: 48, substeps: 2, ..OrnsteinUhlenbeck::default() };
        let truth = [16.0, 2.0, 0.08];
        let settings = ou_settings(20);
        let reference = reference(&OrnsteinUhlenbeck { particles: 64, ..sim.clone() }, &truth, &settings);
        let mut reports = Vec::new();
        let outcome = calibrate(&sim, &reference, &settings, None, |p| {
            reports.push(p.clone());
            ControlFlow::Continue(())
        })
        .unwrap();
        assert!(outcome.completed);
        assert_eq!(reports.len(), 20);
        assert_eq!(reports.last().unwrap().best_fitness, outcome.best_fitness);
        assert!(outcome.best_fitness < 0.3 * outcome.history[0].best_fitness);
        // On fresh seeds the calibrated model matches the reference about as well as the
        // true parameters do.
        let mean_fitness = |p: &[f64]| -> f64 {
            (100..105)
                .map(|seed| {
                    let tracks = sim.simulate(p, settings.simulated_frames(), seed).unwrap();
                    mean_squared_displacement(&tracks, &settings.msd).unwrap().absolute_difference_sum(&reference).unwrap()
                })
                .sum::<f64>()
                / 5.0
        };
        let (found, true_fit) = (mean_fitness(&outcome.best), mean_fitness(&truth));
        assert!(found < 1.5 * true_fit, "calibrated {found} vs truth {true_fit}: {:?}", outcome.best);
        // Stiffness sets the oscillation, noise^2 / (damping stiffness) the plateau.
        assert!((outcome.best[0] / truth[0] - 1.0).abs() < 0.15, "{:?}", outcome.best);
        let plateau = |p: &[f64]| p[2] * p[2] / (p[1] * p[0]);
        assert!((plateau(&outcome.best) / plateau(&truth) - 1.0).abs() < 0.15, "{:?}", outcome.best);
    }

    #[test]
    fn checkpoint_resume_gives_the_same_result_as_an_uninterrupted_run() {
        let sim = OrnsteinUhlenbeck { particles: 6, substeps: 1, ..OrnsteinUhlenbeck::default() };
        let settings = ou_settings(5);
        let reference = reference(&sim, &[12.0, 1.5, 0.05], &settings);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.checkpoint.json");
        let full = calibrate(&sim, &reference, &settings, None, |_| ControlFlow::Continue(())).unwrap();
        // "Kill" after 2 iterations, then rerun with the same checkpoint.
        let partial = calibrate(&sim, &reference, &settings, Some(&path), |p| {
            if p.iteration == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        assert!(!partial.completed);
        assert!(path.exists());
        let mut iterations_seen = Vec::new();
        let resumed = calibrate(&sim, &reference, &settings, Some(&path), |p| {
            iterations_seen.push(p.iteration);
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(iterations_seen, vec![3, 4, 5]);
        assert_eq!(resumed, full);
        // A checkpoint from other settings is refused with a clear message.
        let mut other = settings.clone();
        other.pso.seed = 6;
        let e = calibrate(&sim, &reference, &other, Some(&path), |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("different settings"), "{e}");
        std::fs::write(&path, "garbage").unwrap();
        let e = calibrate(&sim, &reference, &settings, Some(&path), |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("not a calibration checkpoint"), "{e}");
    }

    #[test]
    fn mismatches_are_reported_before_running() {
        let sim = OrnsteinUhlenbeck::default();
        let settings = ou_settings(2);
        let short = MsdCurve { dt: 0.025, values: vec![1.0; 10], counts: vec![1; 10] };
        let e = calibrate(&sim, &short, &settings, None, |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("reference MSD has 10 lags"), "{e}");
        let mut renamed = settings.clone();
        renamed.parameters.parameters[0].name = "kv".into();
        let good = MsdCurve { dt: 0.025, values: vec![1.0; 120], counts: vec![1; 120] };
        let e = calibrate(&sim, &good, &renamed, None, |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("simulator takes parameters"), "{e}");
        let mut empty = settings;
        empty.parameters.parameters.clear();
        let e = calibrate(&sim, &good, &empty, None, |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
    }
}
