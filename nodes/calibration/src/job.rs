//! A whole calibration job, as the CLI and the ROS action run it: recordings in;
//! calibrated parameter file, fitness history, MSD table, plots and a summary out.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use flotilla_common::trajectory::TrajectoryRecording;
use serde::{Deserialize, Serialize};
use serde_yaml::Mapping;
use tracing::info;

use crate::calibrate::{calibrate, fitness, CalibrationProgress, CalibrationReference, CalibrationSettings};
use crate::flow_estimation::{DragModel, FlowEstimationSettings};
use crate::kinematics::RegularTracks;
use crate::maps::{GridSpec, MapComparison, SpatialMaps};
use crate::msd::{pooled_mean_squared_displacement, MsdCurve};
use crate::output::plots::{plot_fitness, plot_heat_maps, plot_msd, ColourScale, HeatPanel};
use crate::output::{write_atomically, write_fitness_history, write_msd_table, write_parameter_file};
use crate::pso::evaluation_seed;
use crate::simulator::Simulator;
use crate::validation::{build_report, plot_speeds, write_markdown, SpeedComparison, ValidationReport, ValidationSettings, Verdict};
use crate::CalibrationError;

/// Settings of a calibration job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JobSettings {
    /// The calibration proper (MSD window, PSO, parameter space).
    pub calibration: CalibrationSettings,
    /// Recorded samples of one object farther apart than this are not interpolated
    /// when the recordings are resampled to the simulator's step (s; default 0.1).
    pub max_gap: f64,
    /// Grid of the occupancy and velocity maps (default 50 x 50 over 0.6 m).
    pub maps: GridSpec,
    /// Samples on each side for the map velocities (dimensionless; default 3).
    pub velocity_half_window: usize,
    /// Node name the parameter file is written for (default `tank_physics`).
    pub parameter_file_node: String,
    /// Fresh-seed windows the calibrated best is validated on; the summary gives their
    /// mean and spread next to the PSO's best fitness (dimensionless; default 5).
    pub validation_runs: usize,
    /// The validation report's KS test and verdict criteria.
    pub validation: ValidationSettings,
    /// How a flow field is estimated from the recordings when the job calibrates on one
    /// (`run --estimate-flow`, a goal's `flow_field`).
    pub flow_estimation: FlowEstimationOptions,
}

/// The settings of a flow field estimated for a calibration that the user chooses; the
/// grid's side, the tank's radius and the ball's drag come from the world, the drag
/// inversion from `--flow-inversion` (or the goal's `flow_field`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlowEstimationOptions {
    /// Cells per side of the square grid over the tank (dimensionless; default 50).
    pub cells: usize,
    /// Fewest flow samples for a cell to count as measured; sparser cells inside the
    /// tank are filled from the measured ones (dimensionless; default 20).
    pub min_measured_samples: usize,
    /// Half window of the smoothed differentiation, velocity and acceleration alike
    /// (samples); default none: chosen from the recordings' measured position noise.
    pub half_window: Option<usize>,
}

impl Default for FlowEstimationOptions {
    fn default() -> Self {
        let defaults = FlowEstimationSettings::default();
        Self { cells: defaults.grid.nx, min_measured_samples: defaults.min_measured_samples, half_window: defaults.half_window }
    }
}

impl FlowEstimationOptions {
    /// The estimation settings for a world whose tank is `side` (m) across, round with
    /// `tank_radius` (m; 0: all of the grid is the tank), its balls' drag `drag`.
    pub fn settings(&self, side: f64, tank_radius: f64, drag: Option<DragModel>) -> FlowEstimationSettings {
        let defaults = FlowEstimationSettings::default();
        FlowEstimationSettings {
            grid: GridSpec { nx: self.cells, ny: self.cells, side },
            drag: drag.unwrap_or(defaults.drag),
            half_window: self.half_window,
            min_measured_samples: self.min_measured_samples,
            tank_radius,
            ..defaults
        }
    }

    fn validate(&self) -> Result<(), CalibrationError> {
        // The grid's own check (cell count cap) runs with the world's side, once known.
        GridSpec { nx: self.cells, ny: self.cells, side: 1.0 }
            .validate()
            .map_err(|e| CalibrationError::Setting(format!("flow_estimation.cells: {e}")))?;
        if self.min_measured_samples == 0 {
            return Err(CalibrationError::Setting("flow_estimation.min_measured_samples must be at least 1".into()));
        }
        if self.half_window == Some(0) {
            return Err(CalibrationError::Setting("flow_estimation.half_window must be at least 1 sample".into()));
        }
        Ok(())
    }
}

impl Default for JobSettings {
    fn default() -> Self {
        Self {
            calibration: CalibrationSettings::default(),
            max_gap: 0.1,
            maps: GridSpec::default(),
            velocity_half_window: 3,
            parameter_file_node: "tank_physics".into(),
            validation_runs: 5,
            validation: ValidationSettings::default(),
            flow_estimation: FlowEstimationOptions::default(),
        }
    }
}

impl JobSettings {
    /// Reads job settings from a YAML file (the format of `flotilla-calibrate run
    /// --settings`; keys left out take their defaults). Not checked: see [`Self::validate`].
    pub fn read(path: &Path) -> Result<Self, CalibrationError> {
        let text = std::fs::read_to_string(path).map_err(|source| CalibrationError::Io { path: path.to_path_buf(), source })?;
        // Another kind of file (a CSV, a text) parses as one YAML string, and serde's
        // "invalid type" error would quote all of it: say what the file is instead.
        let kind = match serde_yaml::from_str::<serde_yaml::Value>(&text) {
            Ok(serde_yaml::Value::String(_)) => Some("a plain text"),
            Ok(serde_yaml::Value::Sequence(_)) => Some("a list"),
            Ok(serde_yaml::Value::Bool(_) | serde_yaml::Value::Number(_)) => Some("a single value"),
            _ => None,
        };
        if let Some(kind) = kind {
            return Err(CalibrationError::Setting(format!(
                "{}: a job settings file is a YAML mapping (calibration:, max_gap:, ...), this one holds {kind}",
                path.display()
            )));
        }
        serde_yaml::from_str(&text).map_err(|e| CalibrationError::Setting(format!("{}: {e}", path.display())))
    }

    /// Checks every setting without running anything (what the ROS action does before
    /// accepting a goal).
    pub fn validate(&self) -> Result<(), CalibrationError> {
        let c = &self.calibration;
        c.parameters.bounds()?;
        c.pso.validate()?;
        if c.msd.window_frames == 0 || c.msd.start_stride == 0 {
            return Err(CalibrationError::Setting(format!(
                "msd.window_frames and msd.start_stride must be >= 1, got {} and {}",
                c.msd.window_frames, c.msd.start_stride
            )));
        }
        if c.simulated_windows == 0 {
            return Err(CalibrationError::Setting("simulated_windows must be at least 1".into()));
        }
        c.occupancy.validate()?;
        if !(self.max_gap.is_finite() && self.max_gap >= 0.0) {
            return Err(CalibrationError::Setting(format!("max_gap must be >= 0 s, got {}", self.max_gap)));
        }
        self.maps.validate()?;
        if self.validation_runs == 0 {
            return Err(CalibrationError::Setting("validation_runs must be at least 1".into()));
        }
        self.validation.validate()?;
        if self.parameter_file_node.is_empty() {
            return Err(CalibrationError::Setting("parameter_file_node must not be empty".into()));
        }
        self.flow_estimation.validate()
    }
}

/// The reference MSD of `recordings` resampled to `dt` (s): fails early, with the
/// reason, on recordings too short or too gappy for the window.
pub fn reference_msd(recordings: &[TrajectoryRecording], settings: &JobSettings, dt: f64) -> Result<MsdCurve, CalibrationError> {
    let real = resample_all(recordings, dt, settings.max_gap)?;
    pooled_mean_squared_displacement(&real, &settings.calibration.msd)
}

/// Where a job wrote its files.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobFiles {
    /// `ros__parameters` file of the calibrated model.
    pub parameters: PathBuf,
    /// Fitness per iteration (CSV).
    pub fitness_history: PathBuf,
    /// MSD real vs calibrated simulation (CSV).
    pub msd_table: PathBuf,
    /// MSD plot (PNG).
    pub msd_plot: PathBuf,
    /// Fitness plot (PNG).
    pub fitness_plot: PathBuf,
    /// Occupancy heat maps real vs simulated (PNG).
    pub occupancy_plot: PathBuf,
    /// Mean x/y velocity maps real vs simulated (PNG).
    pub velocity_plot: PathBuf,
    /// Per-cell speed KS statistic and rejections (PNG).
    pub speed_ks_plot: PathBuf,
    /// Per-cell mean speed real vs simulated (PNG).
    pub speed_mean_plot: PathBuf,
    /// Speed histograms real vs simulated (PNG).
    pub speed_histogram: PathBuf,
    /// The validation report with the verdict line (markdown).
    pub report: PathBuf,
    /// Summary (YAML).
    pub summary: PathBuf,
    /// PSO checkpoint (JSON); a rerun with the same output directory resumes from it.
    pub checkpoint: PathBuf,
}

impl JobFiles {
    /// The standard file names inside `dir`.
    pub fn in_dir(dir: &Path) -> Self {
        Self {
            parameters: dir.join("calibrated_params.yaml"),
            fitness_history: dir.join("fitness_history.csv"),
            msd_table: dir.join("msd.csv"),
            msd_plot: dir.join("msd.png"),
            fitness_plot: dir.join("fitness.png"),
            occupancy_plot: dir.join("occupancy.png"),
            velocity_plot: dir.join("velocity.png"),
            speed_ks_plot: dir.join("speed_ks.png"),
            speed_mean_plot: dir.join("speed_ks.mean.png"),
            speed_histogram: dir.join("speed_histogram.png"),
            report: dir.join("report.md"),
            summary: dir.join("summary.yaml"),
            checkpoint: dir.join("checkpoint.json"),
        }
    }
}

/// What a job found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSummary {
    /// Calibrated parameters, `(name, value)` (parameter units).
    pub parameters: Vec<(String, f64)>,
    /// PSO best fitness (m^2): with final re-evaluations, the best mean of fresh
    /// evaluations of the personal bests; otherwise the best single draw.
    pub best_fitness: f64,
    /// Mean fitness of the best parameters re-simulated on `validation_runs` fresh seeds,
    /// one window each (m^2). Much above `best_fitness`: the best was a lucky draw.
    pub validation_fitness: f64,
    /// Sample standard deviation of those validation fitnesses (m^2).
    pub validation_fitness_std: f64,
    /// Validation windows (dimensionless).
    pub validation_runs: usize,
    /// `sum |MSD_sim - MSD_real| / sum MSD_real` of a long validation run (dimensionless).
    pub relative_msd_error: f64,
    /// Occupancy and velocity maps, real vs simulated.
    pub maps: MapComparison,
    /// The validation report's verdict.
    pub verdict: Verdict,
    /// The verdict with its figures and the criteria missed (also the first line of
    /// the report).
    pub verdict_line: String,
    /// Per-cell speed distributions, real vs simulated (two-sample KS tests).
    pub speed_distributions: SpeedComparison,
    /// Iterations done (dimensionless).
    pub iterations: usize,
    /// Objective evaluations, i.e. simulations (dimensionless).
    pub evaluations: u64,
    /// False when cancelled before the last iteration.
    pub completed: bool,
    /// Wall time of this invocation (s).
    pub wall_time: f64,
    /// The files written.
    pub files: JobFiles,
}

/// Resamples recordings onto the simulator's frame interval.
pub fn resample_all(recordings: &[TrajectoryRecording], dt: f64, max_gap: f64) -> Result<Vec<RegularTracks>, CalibrationError> {
    recordings.iter().map(|r| RegularTracks::resample(r, dt, max_gap)).collect()
}

/// Runs a whole calibration of `simulator` against `recordings` and writes every output
/// into `out_dir` (created if missing). `base_parameters` is the parameter tree the
/// calibrated values are written into (e.g. the simulated world's own file).
pub fn run_job(
    simulator: &impl Simulator,
    recordings: &[TrajectoryRecording],
    settings: &JobSettings,
    base_parameters: &Mapping,
    out_dir: &Path,
    progress: impl FnMut(&CalibrationProgress) -> ControlFlow<()>,
) -> Result<JobSummary, CalibrationError> {
    let started = Instant::now();
    settings.validate()?;
    let files = JobFiles::in_dir(out_dir);
    std::fs::create_dir_all(out_dir).map_err(|source| CalibrationError::Io { path: out_dir.to_path_buf(), source })?;
    let real = resample_all(recordings, simulator.frame_interval(), settings.max_gap)?;
    let target = CalibrationReference::of(&real, &settings.calibration)?;
    let reference = &target.msd;
    info!(recordings = real.len(), window_s = reference.values.len() as f64 * reference.dt, "reference MSD computed");
    let outcome = calibrate(simulator, &target, &settings.calibration, Some(&files.checkpoint), progress)?;
    let space = &settings.calibration.parameters;

    // Validation on fresh seeds: one window as in the fitness, and a run as long as the
    // longest recording for the MSD curve and the maps.
    let seed = evaluation_seed(settings.calibration.pso.seed, usize::MAX, 7, 0);
    let validation = {
        use rayon::prelude::*;
        (0..settings.validation_runs)
            .into_par_iter()
            .map(|k| {
                let seed = evaluation_seed(settings.calibration.pso.seed, usize::MAX, 7, k);
                let window = simulator.simulate(&outcome.best, settings.calibration.simulated_frames(), seed)?;
                fitness(&window, &target, &settings.calibration)
            })
            .collect::<Result<Vec<f64>, CalibrationError>>()?
    };
    let (validation_fitness, validation_fitness_std) = mean_and_std(&validation);
    let parameters: Vec<(String, f64)> = space.named(&outcome.best).map(|(n, v)| (n.to_owned(), v)).collect();
    write_parameter_file(&files.parameters, &settings.parameter_file_node, base_parameters, space, &outcome.best)?;
    write_fitness_history(&files.fitness_history, space, &outcome.history)?;
    plot_fitness(&files.fitness_plot, &outcome.history)?;
    let report = write_validation(simulator, &real, reference, &outcome.best, &parameters, settings, seed.wrapping_add(1), &files)?;

    let summary = JobSummary {
        parameters,
        best_fitness: outcome.best_fitness,
        validation_fitness,
        validation_fitness_std: if validation.len() > 1 { validation_fitness_std } else { 0.0 },
        validation_runs: validation.len(),
        relative_msd_error: report.relative_msd_error,
        maps: report.maps,
        verdict: report.verdict,
        verdict_line: report.verdict_line.clone(),
        speed_distributions: report.speeds,
        iterations: outcome.history.last().map_or(0, |r| r.iteration),
        evaluations: outcome.history.last().map_or(0, |r| r.evaluations)
            + (outcome.reevaluations * settings.calibration.pso.swarm_size) as u64,
        completed: outcome.completed,
        wall_time: started.elapsed().as_secs_f64(),
        files: files.clone(),
    };
    let yaml = serde_yaml::to_string(&summary).map_err(|e| CalibrationError::Setting(format!("cannot serialise the summary: {e}")))?;
    write_atomically(&files.summary, yaml.as_bytes())?;
    info!(
        best_fitness = summary.best_fitness,
        validation_fitness,
        relative_msd_error = summary.relative_msd_error,
        wall_time_s = summary.wall_time,
        "calibration job done"
    );
    info!("{}", summary.verdict_line);
    Ok(summary)
}

/// The validation report of `parameters`: one simulation as long as the longest
/// recording (seed `seed`) against the resampled recordings `real` and their MSD
/// `reference`; writes the MSD table and plot, the occupancy, velocity and speed plots
/// and the markdown report into `files`.
#[allow(clippy::too_many_arguments)]
pub fn write_validation(
    simulator: &impl Simulator,
    real: &[RegularTracks],
    reference: &MsdCurve,
    parameters: &[f64],
    named: &[(String, f64)],
    settings: &JobSettings,
    seed: u64,
    files: &JobFiles,
) -> Result<ValidationReport, CalibrationError> {
    let frames = real.iter().map(RegularTracks::frames).max().unwrap_or(0);
    let long = simulator.simulate(parameters, frames, seed)?;
    let simulated = pooled_mean_squared_displacement(std::slice::from_ref(&long), &settings.calibration.msd)?;
    let relative_msd_error = simulated.relative_error(reference)?;
    write_msd_table(&files.msd_table, &[("msd_real_m2", reference), ("msd_calibrated_m2", &simulated)])?;
    plot_msd(
        &files.msd_plot,
        "MSD: recording vs calibrated simulation",
        &[("recording", reference), ("calibrated simulation", &simulated)],
    )?;
    let maps = write_maps(files, real, &long, settings)?;
    let pooled = pool(real, long.dt);
    let report =
        build_report(relative_msd_error, maps, &pooled, &long, &settings.maps, settings.velocity_half_window, &settings.validation)?;
    plot_speeds(&report, &settings.maps, &files.speed_ks_plot, &files.speed_histogram)?;
    write_markdown(
        &files.report,
        &report,
        named,
        &[
            ("MSD", &files.msd_plot),
            ("Occupancy", &files.occupancy_plot),
            ("Mean velocity", &files.velocity_plot),
            ("Per-cell speed KS test", &files.speed_ks_plot),
            ("Mean speed per cell", &files.speed_mean_plot),
            ("Speed distribution", &files.speed_histogram),
        ],
    )?;
    Ok(report)
}

/// All recordings' tracks as one set.
fn pool(real: &[RegularTracks], dt: f64) -> RegularTracks {
    RegularTracks { dt, tracks: real.iter().flat_map(|r| r.tracks.iter().cloned()).collect() }
}

fn write_maps(
    files: &JobFiles,
    real: &[RegularTracks],
    simulated: &RegularTracks,
    settings: &JobSettings,
) -> Result<MapComparison, CalibrationError> {
    let pooled = pool(real, simulated.dt);
    let real_maps = SpatialMaps::from_tracks(&pooled, settings.maps, settings.velocity_half_window)?;
    let sim_maps = SpatialMaps::from_tracks(simulated, settings.maps, settings.velocity_half_window)?;
    let occupancy = |m: &SpatialMaps| m.occupancy.iter().map(|&v| Some(v)).collect::<Vec<_>>();
    let (real_occupancy, sim_occupancy) = (occupancy(&real_maps), occupancy(&sim_maps));
    let max = real_maps.occupancy.iter().chain(&sim_maps.occupancy).fold(0.0, |a: f64, b| a.max(*b));
    plot_heat_maps(
        &files.occupancy_plot,
        "Normalised occupancy per cell",
        &settings.maps,
        &[HeatPanel { title: "recording", values: &real_occupancy }, HeatPanel { title: "calibrated simulation", values: &sim_occupancy }],
        2,
        ColourScale::Sequential { min: 0.0, max: max.max(1e-12) },
        "fraction",
    )?;
    let limit =
        [&real_maps, &sim_maps].iter().flat_map(|m| m.mean_vx.iter().chain(&m.mean_vy).flatten()).fold(0.0, |a: f64, b| a.max(b.abs()));
    plot_heat_maps(
        &files.velocity_plot,
        "Mean velocity per cell",
        &settings.maps,
        &[
            HeatPanel { title: "recording: v_x", values: &real_maps.mean_vx },
            HeatPanel { title: "recording: v_y", values: &real_maps.mean_vy },
            HeatPanel { title: "simulation: v_x", values: &sim_maps.mean_vx },
            HeatPanel { title: "simulation: v_y", values: &sim_maps.mean_vy },
        ],
        2,
        ColourScale::Diverging { limit: limit.max(1e-12) },
        "m/s",
    )?;
    real_maps.compare(&sim_maps)
}

/// The paper's fitness-noise check: the fitness of one parameter set over `runs`
/// seeds, in parallel; `done(k)` is called with the number of runs finished so far.
/// Returns every value (m^2).
pub fn fitness_samples(
    simulator: &impl Simulator,
    reference: &CalibrationReference,
    settings: &CalibrationSettings,
    parameters: &[f64],
    runs: usize,
    seed: u64,
    done: impl Fn(usize) + Sync,
) -> Result<Vec<f64>, CalibrationError> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let frames = settings.simulated_frames();
    let finished = AtomicUsize::new(0);
    (0..runs)
        .into_par_iter()
        .map(|k| {
            let tracks = simulator.simulate(parameters, frames, evaluation_seed(seed, 0, 9, k))?;
            let value = fitness(&tracks, reference, settings);
            done(finished.fetch_add(1, Ordering::Relaxed) + 1);
            value
        })
        .collect()
}

/// Mean and sample standard deviation (units of the values).
pub fn mean_and_std(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msd::MsdSettings;
    use crate::parameters::{ParameterRange, ParameterSpace};
    use crate::pso::PsoSettings;
    use crate::simulator::OrnsteinUhlenbeck;

    fn ou_job(iterations: usize) -> JobSettings {
        JobSettings {
            calibration: CalibrationSettings {
                msd: MsdSettings { window_frames: 80, start_stride: 20 },
                simulated_windows: 2,
                pso: PsoSettings { iterations, swarm_size: 6, seed: 2, ..PsoSettings::default() },
                parameters: ParameterSpace {
                    parameters: vec![
                        ParameterRange::new("stiffness", "1/s^2", 2.0, 30.0, 10.0),
                        ParameterRange::new("damping", "1/s", 0.3, 5.0, 1.0),
                        ParameterRange::new("noise", "m/s^1.5", 0.01, 0.2, 0.05),
                    ],
                },
                occupancy: Default::default(),
            },
            maps: GridSpec { nx: 10, ny: 10, side: 0.3 },
            parameter_file_node: "ou".into(),
            ..JobSettings::default()
        }
    }

    #[test]
    fn job_writes_every_output_and_resumes() {
        let sim = OrnsteinUhlenbeck { particles: 8, substeps: 1, ..OrnsteinUhlenbeck::default() };
        let recording = sim.simulate(&[12.0, 1.5, 0.05], 600, 77).unwrap().to_recording();
        let dir = tempfile::tempdir().unwrap();
        let summary =
            run_job(&sim, std::slice::from_ref(&recording), &ou_job(3), &Mapping::new(), dir.path(), |_| ControlFlow::Continue(()))
                .unwrap();
        assert!(summary.completed);
        assert_eq!(summary.iterations, 3);
        // 3 iterations x 6 particles, plus the default 3 fresh re-evaluations of the 6
        // personal bests.
        assert_eq!(summary.evaluations, 36);
        assert_eq!(summary.validation_runs, 5);
        assert!(summary.validation_fitness > 0.0 && summary.validation_fitness_std > 0.0, "{summary:?}");
        let f = &summary.files;
        for path in [
            &f.parameters,
            &f.fitness_history,
            &f.msd_table,
            &f.msd_plot,
            &f.fitness_plot,
            &f.occupancy_plot,
            &f.velocity_plot,
            &f.summary,
            &f.checkpoint,
        ] {
            assert!(path.exists(), "{}", path.display());
        }
        let text = std::fs::read_to_string(&f.parameters).unwrap();
        assert!(text.contains("ou:") && text.contains("ros__parameters") && text.contains("stiffness"), "{text}");
        // A second run with more iterations resumes from the checkpoint.
        let mut seen = Vec::new();
        let more = run_job(&sim, &[recording], &ou_job(4), &Mapping::new(), dir.path(), |p| {
            seen.push((p.iteration, p.reevaluations));
            ControlFlow::Continue(())
        })
        .unwrap();
        // The one iteration left, then the 3 final re-evaluation passes.
        assert_eq!(seen, vec![(4, 0), (4, 1), (4, 2), (4, 3)]);
        // 4 x 6 PSO evaluations (the first 3 iterations from the checkpoint) + 3 x 6 fresh.
        assert_eq!(more.evaluations, 42);
    }

    /// The validation report against an OU recording: the recording's own parameters
    /// (fresh seed) are GOOD, a clearly different process (three times the noise, a
    /// wider and faster well) is POOR, and every report file is written.
    #[test]
    fn validation_report_tells_a_match_from_a_mismatch() {
        let sim = OrnsteinUhlenbeck { particles: 24, substeps: 2, ..OrnsteinUhlenbeck::default() };
        let truth = [12.0, 1.5, 0.05];
        let real = vec![sim.simulate(&truth, 12000, 77).unwrap()];
        let mut settings = ou_job(1);
        settings.maps = GridSpec { nx: 12, ny: 12, side: 0.06 };
        settings.calibration.msd = MsdSettings { window_frames: 400, start_stride: 20 };
        let reference = pooled_mean_squared_displacement(&real, &settings.calibration.msd).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = JobFiles::in_dir(dir.path());
        let named = [("stiffness".to_owned(), 12.0)];
        let good = write_validation(&sim, &real, &reference, &truth, &named, &settings, 5, &files).unwrap();
        assert_eq!(good.verdict, Verdict::Good, "{}", good.verdict_line);
        assert!(good.speeds.tested_cells >= 50, "{:?}", good.speeds.tested_cells);
        for path in [
            &files.msd_plot,
            &files.occupancy_plot,
            &files.velocity_plot,
            &files.speed_ks_plot,
            &files.speed_mean_plot,
            &files.speed_histogram,
            &files.report,
        ] {
            assert!(path.exists(), "{}", path.display());
        }
        let text = std::fs::read_to_string(&files.report).unwrap();
        assert!(text.contains("**GOOD: MSD error") && text.contains("stiffness = 12"), "{text}");
        let bad = write_validation(&sim, &real, &reference, &[20.0, 1.5, 0.15], &named, &settings, 5, &files).unwrap();
        eprintln!("{}\n{}", good.verdict_line, bad.verdict_line);
        assert_eq!(bad.verdict, Verdict::Poor, "{}", bad.verdict_line);
        assert!(bad.speeds.pass_fraction < 0.2 && bad.speeds.failing_simulation_faster > 0, "{:?}", bad.speeds);
    }

    #[test]
    fn too_short_recording_is_rejected_with_the_reason() {
        let sim = OrnsteinUhlenbeck { particles: 2, substeps: 1, ..OrnsteinUhlenbeck::default() };
        let recording = sim.simulate(&[12.0, 1.5, 0.05], 50, 77).unwrap().to_recording();
        let dir = tempfile::tempdir().unwrap();
        let e = run_job(&sim, &[recording], &ou_job(1), &Mapping::new(), dir.path(), |_| ControlFlow::Continue(())).unwrap_err();
        assert!(e.to_string().contains("too short for the MSD window"), "{e}");
    }

    #[test]
    fn bad_settings_are_named() {
        assert!(JobSettings::default().validate().is_ok());
        let mut s = JobSettings::default();
        s.calibration.parameters.parameters.clear();
        assert!(s.validate().unwrap_err().to_string().contains("bounds are empty"));
        let mut s = JobSettings::default();
        s.calibration.parameters.parameters[1].upper = -1.0;
        assert!(s.validate().unwrap_err().to_string().contains("hydro.kf"));
        let s = JobSettings { max_gap: f64::NAN, ..JobSettings::default() };
        assert!(s.validate().unwrap_err().to_string().contains("max_gap"));
        let s: Result<JobSettings, _> = serde_yaml::from_str("calibration: {pso: {swarm: 3}}");
        assert!(s.unwrap_err().to_string().contains("unknown field `swarm`"));
        let s: JobSettings = serde_yaml::from_str("flow_estimation: {cells: 30, half_window: 4}").unwrap();
        assert_eq!((s.flow_estimation.cells, s.flow_estimation.min_measured_samples, s.flow_estimation.half_window), (30, 20, Some(4)));
        for (yaml, named) in [
            ("flow_estimation: {cells: 0}", "flow_estimation.cells"),
            ("flow_estimation: {min_measured_samples: 0}", "flow_estimation.min_measured_samples"),
            ("flow_estimation: {half_window: 0}", "flow_estimation.half_window"),
        ] {
            let s: JobSettings = serde_yaml::from_str(yaml).unwrap();
            assert!(s.validate().unwrap_err().to_string().contains(named), "{yaml}");
        }
        let s: Result<JobSettings, _> = serde_yaml::from_str("flow_estimation: {side: 0.9}");
        assert!(s.unwrap_err().to_string().contains("unknown field `side`"));
    }

    #[test]
    fn fitness_noise_statistics() {
        assert_eq!(mean_and_std(&[1.0, 3.0]), (2.0, 2f64.sqrt()));
        let sim = OrnsteinUhlenbeck { particles: 4, substeps: 1, ..OrnsteinUhlenbeck::default() };
        let settings = ou_job(1).calibration;
        let reference = CalibrationReference::of(&[sim.simulate(&[12.0, 1.5, 0.05], 400, 1).unwrap()], &settings).unwrap();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let a = fitness_samples(&sim, &reference, &settings, &[12.0, 1.5, 0.05], 10, 4, |_| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(calls.into_inner(), 10);
        assert_eq!(a, fitness_samples(&sim, &reference, &settings, &[12.0, 1.5, 0.05], 10, 4, |_| ()).unwrap());
        let (mean, std) = mean_and_std(&a);
        assert!(mean > 0.0 && std > 0.0);
    }
}
