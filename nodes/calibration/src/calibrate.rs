//! A calibration run: PSO over the parameter space, fitness = the paper's
//! `sum_i |MSD_sim(t_i) - MSD_real(t_i)|` (plus an occupancy-mismatch term, on by default), a
//! checkpoint after every iteration (atomic write), resume from a checkpoint, progress
//! through a callback that may cancel.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tracing::{info, warn};

use crate::kinematics::RegularTracks;
use crate::maps::{correlation, occupancy, GridSpec};
use crate::msd::{mean_squared_displacement, pooled_mean_squared_displacement, MsdCurve, MsdSettings};
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
    /// The occupancy term of the fitness (weight 0: off).
    pub occupancy: OccupancyObjective,
}

/// An occupancy term in the fitness (issue #19): a calibration that matches a tank should
/// match where the objects go, not only how far they spread. With weight `w` the fitness
/// is `sum_i |MSD_sim(t_i) - MSD_real(t_i)| + w (1 - r) sum_i MSD_real(t_i)` (m^2), `r` the
/// Pearson correlation of the simulated window's occupancy with the recording's on
/// `grid`: divided by `sum MSD_real`, relative MSD error plus `w` times the occupancy
/// mismatch. `w = 0` is the paper's fitness.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OccupancyObjective {
    /// Weight `w` of the occupancy mismatch `1 - r` against the relative MSD error
    /// (dimensionless, >= 0; default 1: both count alike; 0 = the paper's fitness).
    pub weight: f64,
    /// Grid of the occupancy compared (default 12 x 12 over 0.6 m: 5 cm cells, about a
    /// ball's diameter, so that one 60 s window of 24 balls visits each cell of the
    /// balls' range many times; the validation maps' 1.2 cm cells hold a few samples per
    /// window).
    pub grid: GridSpec,
}

impl Default for OccupancyObjective {
    fn default() -> Self {
        Self { weight: 1.0, grid: GridSpec { nx: 12, ny: 12, side: 0.6 } }
    }
}

/// What the fitness compares a simulated window with: the recording's MSD and, when the
/// occupancy term is on, its occupancy on the objective's grid.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationReference {
    /// The recording's MSD over the calibration window.
    pub msd: MsdCurve,
    /// The recording's occupancy on `settings.occupancy.grid` (fractions; empty when the
    /// weight is 0).
    pub occupancy: Vec<f64>,
}

impl CalibrationReference {
    /// The reference of `real` (recordings resampled to the simulator's frame interval).
    pub fn of(real: &[RegularTracks], settings: &CalibrationSettings) -> Result<Self, CalibrationError> {
        let msd = pooled_mean_squared_displacement(real, &settings.msd)?;
        let occupancy = if settings.occupancy.weight > 0.0 {
            let tracks = RegularTracks { dt: msd.dt, tracks: real.iter().flat_map(|r| r.tracks.iter().cloned()).collect() };
            occupancy(&tracks, settings.occupancy.grid)?
        } else {
            Vec::new()
        };
        Ok(Self { msd, occupancy })
    }
}

/// The fitness of one simulated window against `reference` (m^2): the paper's
/// `sum |MSD_sim - MSD_real|` plus the occupancy term of `settings.occupancy`.
pub fn fitness(tracks: &RegularTracks, reference: &CalibrationReference, settings: &CalibrationSettings) -> Result<f64, CalibrationError> {
    let msd = mean_squared_displacement(tracks, &settings.msd)?;
    let mut fitness = msd.absolute_difference_sum(&reference.msd)?;
    let weight = settings.occupancy.weight;
    if weight > 0.0 {
        // No correlation (all simulated objects lost, or a flat map) counts as none: r = 0.
        let r = match occupancy(tracks, settings.occupancy.grid) {
            Ok(simulated) => correlation(&simulated, &reference.occupancy),
            Err(_) => f64::NAN,
        };
        let r = if r.is_finite() { r } else { 0.0 };
        fitness += weight * (1.0 - r) * reference.msd.values.iter().sum::<f64>();
    }
    Ok(fitness)
}

impl Default for CalibrationSettings {
    fn default() -> Self {
        Self {
            msd: MsdSettings::default(),
            simulated_windows: 1,
            pso: PsoSettings::default(),
            parameters: crate::tank::hydro_parameter_space(),
            occupancy: OccupancyObjective::default(),
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
    /// Final re-evaluation passes done, reported after the last iteration (0 before)
    /// (dimensionless).
    pub reevaluations: usize,
    /// Final re-evaluation passes asked for (`pso.final_reevaluations`) (dimensionless).
    pub final_reevaluations: usize,
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
    /// Final re-evaluation passes that ran (fewer than asked when cancelled during them)
    /// (dimensionless).
    pub reevaluations: usize,
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
    reference: &CalibrationReference,
    settings: &CalibrationSettings,
    checkpoint: Option<&Path>,
    mut progress: impl FnMut(&CalibrationProgress) -> ControlFlow<()>,
) -> Result<CalibrationOutcome, CalibrationError> {
    let bounds = settings.parameters.bounds()?;
    settings.pso.validate()?;
    check_compatible(simulator, &reference.msd, settings)?;
    if settings.occupancy.weight > 0.0 && reference.occupancy.len() != settings.occupancy.grid.len() {
        return Err(CalibrationError::Setting(format!(
            "the occupancy term needs the recording's occupancy on its {} cells, got {}",
            settings.occupancy.grid.len(),
            reference.occupancy.len()
        )));
    }
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
        fitness(&tracks, reference, settings)
    };
    let started = Instant::now();
    // The report after an iteration (`pass` 0) or after a final re-evaluation pass.
    let report = |swarm: &Swarm, pass: usize| {
        let (best, best_fitness) = swarm.best();
        CalibrationProgress {
            iteration: swarm.iteration,
            iterations: settings.pso.iterations,
            best_fitness,
            best_parameters: settings.parameters.named(best).map(|(n, v)| (n.to_owned(), v)).collect(),
            evaluations: swarm.history.last().map_or(0, |r| r.evaluations) + (pass * settings.pso.swarm_size) as u64,
            elapsed: started.elapsed().as_secs_f64(),
            reevaluations: pass,
            final_reevaluations: settings.pso.final_reevaluations,
        }
    };
    let mut cancelled = false;
    let initial = settings.parameters.initial();
    let swarm = optimise(&settings.pso, &bounds, Some(&initial), &objective, resume, |swarm| {
        if let Some(path) = checkpoint {
            save_checkpoint(path, settings, &digest, swarm)?;
        }
        let report = report(swarm, 0);
        info!(iteration = report.iteration, best_fitness = report.best_fitness, elapsed_s = report.elapsed, "calibration iteration");
        let flow = progress(&report);
        cancelled = flow.is_break() && swarm.iteration < settings.pso.iterations;
        Ok(flow)
    })?;
    if cancelled {
        warn!(iteration = swarm.iteration, "calibration cancelled");
    }
    let (best, best_fitness, reevaluations) = if cancelled {
        let (best, fitness) = swarm.best();
        (best.to_vec(), fitness, 0)
    } else {
        // Each pass costs an iteration's simulations: reported, and a cancel during them
        // selects on the passes done.
        let extra = settings.pso.final_reevaluations;
        let selection = swarm.select_by_reevaluation(&settings.pso, &objective, extra, |pass| {
            let report = report(&swarm, pass);
            info!(pass, passes = extra, elapsed_s = report.elapsed, "final re-evaluation pass");
            let flow = progress(&report);
            if flow.is_break() && pass < extra {
                warn!(pass, passes = extra, "final re-evaluation cancelled: selecting on the passes done");
            }
            flow
        })?;
        (selection.position, selection.mean_fitness, selection.passes)
    };
    Ok(CalibrationOutcome { best, best_fitness, history: swarm.history.clone(), completed: !cancelled, reevaluations })
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
    settings.occupancy.validate()
}

impl OccupancyObjective {
    /// Errors unless the weight is finite and >= 0 and the grid is valid.
    pub fn validate(&self) -> Result<(), CalibrationError> {
        if !(self.weight.is_finite() && self.weight >= 0.0) {
            return Err(CalibrationError::Setting(format!("occupancy.weight must be >= 0, got {}", self.weight)));
        }
        self.grid.validate()
    }
}

/// FNV-1a over the reference's bits: a resumed run must calibrate against the same data.
fn reference_digest(reference: &CalibrationReference) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let msd = &reference.msd;
    for value in std::iter::once(msd.dt).chain(msd.values.iter().copied()).chain(reference.occupancy.iter().copied()) {
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
    use nalgebra::Vector2;

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
            // The paper's MSD fitness alone.
            occupancy: OccupancyObjective { weight: 0.0, ..OccupancyObjective::default() },
        }
    }

    fn reference(sim: &OrnsteinUhlenbeck, truth: &[f64], settings: &CalibrationSettings) -> CalibrationReference {
        let tracks = sim.simulate(truth, 3000, 999).unwrap();
        CalibrationReference::of(&[tracks], settings).unwrap()
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
                    mean_squared_displacement(&tracks, &settings.msd).unwrap().absolute_difference_sum(&reference.msd).unwrap()
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

    /// Regression: the final re-evaluation passes (each an iteration's simulations) ran
    /// silently and could not be cancelled.
    #[test]
    fn final_reevaluation_passes_are_reported_and_a_cancel_stops_them() {
        let sim = OrnsteinUhlenbeck { particles: 6, substeps: 1, ..OrnsteinUhlenbeck::default() };
        let mut settings = ou_settings(2);
        settings.pso.final_reevaluations = 3;
        let reference = reference(&sim, &[12.0, 1.5, 0.05], &settings);
        let mut heard = Vec::new();
        let full = calibrate(&sim, &reference, &settings, None, |p| {
            heard.push((p.iteration, p.reevaluations, p.final_reevaluations, p.evaluations));
            ControlFlow::Continue(())
        })
        .unwrap();
        let after_iterations = heard[1].3;
        assert_eq!(
            heard,
            vec![
                (1, 0, 3, heard[0].3),
                (2, 0, 3, after_iterations),
                (2, 1, 3, after_iterations + 12),
                (2, 2, 3, after_iterations + 24),
                (2, 3, 3, after_iterations + 36)
            ]
        );
        assert!(full.completed && full.reevaluations == 3);
        // Cancelled during the first pass: the run still completed its iterations and
        // selects on that one pass.
        let stopped = calibrate(&sim, &reference, &settings, None, |p| {
            if p.reevaluations == 1 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        assert!(stopped.completed && stopped.reevaluations == 1);
        assert!(stopped.best_fitness.is_finite());
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
        let short = CalibrationReference { msd: MsdCurve { dt: 0.025, values: vec![1.0; 10], counts: vec![1; 10] }, occupancy: vec![] };
        let e = calibrate(&sim, &short, &settings, None, |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("reference MSD has 10 lags"), "{e}");
        let mut renamed = settings.clone();
        renamed.parameters.parameters[0].name = "kv".into();
        let good = CalibrationReference { msd: MsdCurve { dt: 0.025, values: vec![1.0; 120], counts: vec![1; 120] }, occupancy: vec![] };
        let e = calibrate(&sim, &good, &renamed, None, |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("simulator takes parameters"), "{e}");
        // The occupancy term without the recording's occupancy, or with a negative weight.
        let mut weighted = settings.clone();
        weighted.occupancy.weight = 1.0;
        let e = calibrate(&sim, &good, &weighted, None, |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("occupancy term needs"), "{e}");
        weighted.occupancy.weight = -1.0;
        let e = calibrate(&sim, &good, &weighted, None, |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("occupancy.weight"), "{e}");
        let mut empty = settings;
        empty.parameters.parameters.clear();
        let e = calibrate(&sim, &good, &empty, None, |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("empty"), "{e}");
    }

    /// The occupancy term by hand: tracks with the reference's own MSD but all in another
    /// cell of a 2 x 2 grid cost `w (1 - r) sum MSD_real` with `r = -1/3`.
    #[test]
    fn occupancy_term_by_hand() {
        let walk = |x0: f64| RegularTracks {
            dt: 0.1,
            tracks: vec![(0..40).map(|k| Some(Vector2::new(x0 + 0.001 * k as f64, -0.1 + 0.0005 * (k % 7) as f64))).collect()],
        };
        let mut settings = CalibrationSettings {
            msd: MsdSettings { window_frames: 10, start_stride: 5 },
            occupancy: OccupancyObjective { weight: 0.5, grid: GridSpec { nx: 2, ny: 2, side: 0.4 } },
            ..CalibrationSettings::default()
        };
        // Cell 0 (x, y < 0) for the reference, cell 1 (x > 0, y < 0) after the shift.
        let reference = CalibrationReference::of(&[walk(-0.15)], &settings).unwrap();
        assert_eq!(reference.occupancy, vec![1.0, 0.0, 0.0, 0.0]);
        let total: f64 = reference.msd.values.iter().sum();
        assert_eq!(fitness(&walk(-0.15), &reference, &settings).unwrap(), 0.0);
        let shifted = fitness(&walk(0.05), &reference, &settings).unwrap();
        // Occupancies (1, 0, 0, 0) and (0, 1, 0, 0): r = -0.25 / (0.75) = -1/3.
        let expected = 0.5 * (4.0 / 3.0) * total;
        assert!((shifted - expected).abs() < 1e-9 * expected, "{shifted} vs {expected}");
        // Weight 0 is the paper's fitness: the shift is invisible to the MSD.
        settings.occupancy.weight = 0.0;
        assert!(fitness(&walk(0.05), &reference, &settings).unwrap() < 1e-12 * total);
    }

    /// A well whose centre the MSD cannot see (a shift leaves every displacement as it is)
    /// but the occupancy can: parameters `[stiffness, damping, noise, centre x (m)]`.
    #[derive(Clone)]
    struct ShiftedWell(OrnsteinUhlenbeck);

    impl Simulator for ShiftedWell {
        fn parameter_names(&self) -> Vec<String> {
            ["stiffness", "damping", "noise", "centre"].map(String::from).to_vec()
        }
        fn frame_interval(&self) -> f64 {
            self.0.frame_interval()
        }
        fn simulate(&self, parameters: &[f64], frames: usize, seed: u64) -> Result<RegularTracks, CalibrationError> {
            let mut tracks = self.0.simulate(&parameters[..3], frames, seed)?;
            for p in tracks.tracks.iter_mut().flatten().flatten() {
                p.x += parameters[3];
            }
            Ok(tracks)
        }
    }

    /// The occupancy term finds what the MSD alone cannot: the well's centre. Fails when the
    /// term is dropped, mis-signed or compares the wrong maps.
    #[test]
    fn occupancy_term_recovers_what_the_msd_cannot_see() {
        let sim = ShiftedWell(OrnsteinUhlenbeck { particles: 24, substeps: 2, ..OrnsteinUhlenbeck::default() });
        let truth = [16.0, 2.0, 0.08, 0.1];
        let mut settings = ou_settings(15);
        settings.parameters.parameters.push(ParameterRange::new("centre", "m", -0.2, 0.2, -0.1));
        // 2 cm cells against the well's 1 cm spread.
        settings.occupancy = OccupancyObjective { weight: 1.0, grid: GridSpec { nx: 30, ny: 30, side: 0.6 } };
        let reference = CalibrationReference::of(&[sim.simulate(&truth, 3000, 999).unwrap()], &settings).unwrap();
        let frames = settings.simulated_frames();
        let at = |centre: f64, weight: f64| {
            let s = CalibrationSettings { occupancy: OccupancyObjective { weight, ..settings.occupancy }, ..settings.clone() };
            fitness(&sim.simulate(&[16.0, 2.0, 0.08, centre], frames, 3).unwrap(), &reference, &s).unwrap()
        };
        // The MSD fitness does not tell the centres apart; the occupancy term does.
        assert!((at(0.1, 0.0) - at(-0.1, 0.0)).abs() < 1e-6 * at(0.1, 0.0));
        assert!(at(-0.1, 1.0) > at(0.1, 1.0) + 0.5 * reference.msd.values.iter().sum::<f64>());
        let outcome = calibrate(&sim, &reference, &settings, None, |_| ControlFlow::Continue(())).unwrap();
        assert!((outcome.best[3] - 0.1).abs() < 0.01, "{:?}", outcome.best);
    }
}
