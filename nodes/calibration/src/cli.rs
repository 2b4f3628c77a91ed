//! The offline command line: `flotilla-calibrate <command>` (also `flotilla calibrate`).
//!
//! - `run`: PSO calibration of the tank model against recordings, with a progress bar;
//!   writes the parameter file, fitness history, MSD table, plots, summary, checkpoint.
//! - `flow-field`: estimates the flow field from ball recordings (optionally compared
//!   with a known field).
//! - `record`: simulates the tank and writes a trajectory CSV (a synthetic recording).
//! - `noise`: the fitness-noise check (one parameter set, many seeds).
//! - `validate`: the validation report of one parameter set against recordings (what
//!   `run` writes for its calibrated parameters).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};
use flotilla_common::flow_field::FlowGrid;
use flotilla_common::progress::TenthLines;
use flotilla_common::trajectory::TrajectoryRecording;
use indicatif::{ProgressBar, ProgressStyle};
use serde_yaml::Mapping;
use tank_physics::WorldConfig;

use crate::calibrate::CalibrationReference;
use crate::flow_choice::{estimate_flow, FlowInversion};
use crate::flow_estimation::{estimate_flow_field, CellCoverage, FlowEstimationSettings};
use crate::job::{fitness_samples, mean_and_std, resample_all, run_job, write_validation, JobFiles, JobSettings};
use crate::maps::GridSpec;
use crate::msd::pooled_mean_squared_displacement;
use crate::output::plots::{plot_heat_maps, ColourScale, HeatPanel};
use crate::tank::TankSimulator;
use crate::Simulator;

/// `bail!` with the error marked as bad input ([`InputError`]).
macro_rules! bail_input {
    ($($arg:tt)*) => {
        return Err(InputError(anyhow::anyhow!($($arg)*)).into())
    };
}

/// `flotilla calibrate`: flow-field estimation and PSO calibration of the tank's
/// hydrodynamic model, offline.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: CalibrateCommand,
}

/// The calibration commands.
#[derive(Debug, Subcommand)]
pub enum CalibrateCommand {
    /// Calibrate the five hydrodynamic parameters against recordings (PSO on the MSD).
    Run(RunArgs),
    /// Estimate the flow field from ball recordings.
    FlowField(FlowFieldArgs),
    /// Simulate the tank and write a trajectory CSV.
    Record(RecordArgs),
    /// Fitness noise: the fitness of one parameter set over many seeds.
    Noise(NoiseArgs),
    /// Validation report of one parameter set against recordings (MSD, maps, per-cell
    /// speed KS tests, verdict).
    Validate(ValidateArgs),
}

/// The simulated world.
#[derive(Debug, Args)]
pub struct WorldArgs {
    /// Parameter file of the physics node (`tank_physics: ros__parameters: ...`); by
    /// default the Lily tank with `--balls` ping-pong balls.
    #[arg(long)]
    pub world: Option<PathBuf>,
    /// Node name whose section of `--world` applies.
    #[arg(long, default_value = "tank_physics")]
    pub node: String,
    /// Balls in the default world (ignored with `--world`).
    #[arg(long, default_value_t = 24)]
    pub balls: usize,
    /// Simulated seconds before recording starts in each simulation (s).
    #[arg(long, default_value_t = 10.0)]
    pub warmup: f64,
}

/// `run` arguments.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Trajectory CSV files (pooled).
    #[arg(long = "recording", required = true)]
    pub recordings: Vec<PathBuf>,
    /// The simulated world.
    #[command(flatten)]
    pub world: WorldArgs,
    /// Job settings (YAML, see the crate README); defaults otherwise.
    #[arg(long)]
    pub settings: Option<PathBuf>,
    /// Output directory; rerunning with the same directory resumes from its checkpoint.
    #[arg(long)]
    pub out: PathBuf,
    /// Override: PSO iterations.
    #[arg(long)]
    pub iterations: Option<usize>,
    /// Override: PSO swarm size.
    #[arg(long)]
    pub swarm_size: Option<usize>,
    /// Override: PSO seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override: re-evaluate personal bests each iteration (noise-resistant PSO).
    #[arg(long)]
    pub reevaluate: bool,
    /// Override: after the last iteration, re-evaluate every personal best this many
    /// times and keep the best mean.
    #[arg(long)]
    pub final_reevaluations: Option<usize>,
    /// Override: weight of the occupancy mismatch in the fitness (0 = the paper's MSD
    /// fitness alone; see `calibration.occupancy` in the settings).
    #[arg(long)]
    pub occupancy_weight: Option<f64>,
    /// Estimate the flow field from the recordings (as `flow-field` does, with the
    /// world's ball and a grid over the world's tank) and calibrate the world on it
    /// instead of its own flow: the way to calibrate on a tank Flotilla did not record. The field(s), the
    /// choice and a world file loading the chosen field are written to `--out`.
    #[arg(long)]
    pub estimate_flow: bool,
    /// With `--estimate-flow`: how the drag is inverted. `auto` runs one pilot PSO
    /// iteration on each inversion (same swarm, same seeds) and keeps the better fit;
    /// `whole` suits Flotilla's own physics, `relative` balls turned by the water's
    /// pressure gradient (docs/calibration.md, "Choosing the inversion").
    #[arg(long, value_enum, default_value_t = InversionArg::Auto, requires = "estimate_flow")]
    pub flow_inversion: InversionArg,
    /// Override, with `--estimate-flow`: cells per side of the field's grid
    /// (`flow_estimation.cells`, default 50).
    #[arg(long, requires = "estimate_flow")]
    pub flow_cells: Option<usize>,
    /// Override, with `--estimate-flow`: fewest flow samples for a cell to count as
    /// measured (`flow_estimation.min_measured_samples`, default 20).
    #[arg(long, requires = "estimate_flow")]
    pub flow_min_measured: Option<usize>,
    /// Override, with `--estimate-flow`: fixed half window of the differentiation
    /// (samples; `flow_estimation.half_window`, default: chosen from the position noise).
    #[arg(long, requires = "estimate_flow")]
    pub flow_half_window: Option<usize>,
}

/// `run --flow-inversion` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InversionArg {
    /// A pilot iteration on each inversion chooses.
    Auto,
    /// On the whole measured acceleration.
    Whole,
    /// Relative to the mean ball flow's convective acceleration.
    Relative,
}

/// `flow-field` arguments.
#[derive(Debug, Args)]
pub struct FlowFieldArgs {
    /// Trajectory CSV files of balls (pooled).
    #[arg(long = "recording", required = true)]
    pub recordings: Vec<PathBuf>,
    /// Output flow-field file (the format the physics loads).
    #[arg(long)]
    pub out: PathBuf,
    /// Cells per side.
    #[arg(long, default_value_t = 50)]
    pub cells: usize,
    /// Side of the square grid centred on the tank (m).
    #[arg(long, default_value_t = 0.6)]
    pub side: f64,
    /// Ball mass (kg); default: a 3 cm ball floating 25 mm deep.
    #[arg(long)]
    pub mass: Option<f64>,
    /// A known flow-field file to compare the estimate with (per-cell error of the mean).
    #[arg(long)]
    pub compare: Option<PathBuf>,
    /// Fewest samples for a cell to enter the comparison.
    #[arg(long, default_value_t = 20)]
    pub min_count: u64,
    /// Fewest flow samples for a cell to count as measured; sparse and unvisited cells
    /// inside the tank are filled from the measured ones.
    #[arg(long, default_value_t = 20)]
    pub min_measured: usize,
    /// Radius of the round tank centred on the grid (m); default half of `--side`; 0:
    /// the whole grid is the tank.
    #[arg(long)]
    pub tank_radius: Option<f64>,
    /// Keep the raw per-cell statistics (zero mean and deviation where nothing was seen).
    #[arg(long)]
    pub no_fill: bool,
    /// Invert the drag on the acceleration relative to the mean ball flow's own
    /// convective acceleration (V.grad)V, not on the whole acceleration: removes the
    /// inward bias of circulating balls whose small-slip drag is not quadratic, or whom
    /// the water's pressure gradient turns (docs/calibration.md).
    #[arg(long)]
    pub subtract_mean_flow_acceleration: bool,
    /// Fixed half window of the smoothed differentiation (samples), velocity and
    /// acceleration alike; default: chosen from the recordings' measured position noise.
    #[arg(long)]
    pub half_window: Option<usize>,
}

/// `record` arguments.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The simulated world.
    #[command(flatten)]
    pub world: WorldArgs,
    /// Recorded duration (s).
    #[arg(long, default_value_t = 600.0)]
    pub seconds: f64,
    /// Simulation seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Hydrodynamic parameters `kv,kf,sigma_stoch,d_linear,d_angular[,flow_correlation_time]`;
    /// default: the world's own.
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<f64>>,
    /// Output trajectory CSV.
    #[arg(long)]
    pub out: PathBuf,
    /// Also write the flow field the simulation used (flow-field file).
    #[arg(long)]
    pub flow_out: Option<PathBuf>,
}

/// `noise` arguments.
#[derive(Debug, Args)]
pub struct NoiseArgs {
    /// Trajectory CSV files giving the reference MSD (pooled).
    #[arg(long = "recording", required = true)]
    pub recordings: Vec<PathBuf>,
    /// The simulated world.
    #[command(flatten)]
    pub world: WorldArgs,
    /// Job settings (YAML); only the MSD window and parameter names are used.
    #[arg(long)]
    pub settings: Option<PathBuf>,
    /// Parameter values (in the settings' order); default: their initial values.
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<f64>>,
    /// Simulations.
    #[arg(long, default_value_t = 100)]
    pub runs: usize,
    /// Seed of the runs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// `validate` arguments.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Trajectory CSV files (pooled).
    #[arg(long = "recording", required = true)]
    pub recordings: Vec<PathBuf>,
    /// The simulated world.
    #[command(flatten)]
    pub world: WorldArgs,
    /// Job settings (YAML): MSD window, maps, parameter names, `validation` criteria.
    #[arg(long)]
    pub settings: Option<PathBuf>,
    /// Parameter values (in the settings' order); default: their initial values.
    #[arg(long, value_delimiter = ',')]
    pub parameters: Option<Vec<f64>>,
    /// Seed of the validation simulation.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output directory (report.md, validation.yaml, plots, MSD table).
    #[arg(long)]
    pub out: PathBuf,
}

/// Runs a `flotilla calibrate` command.
/// Exit code of bad input (an argument, settings, world, flow-field or recording file
/// that cannot be used), as for an argument clap refuses.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code of work that failed on good input (a simulation, an output file).
pub const EXIT_FAILED: u8 = 1;

/// What the command was given cannot be used; the message says what and where. Its
/// text and causes are those of the error it wraps.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct InputError(#[from] anyhow::Error);

/// The result of a stage that reads or checks the command's input, its errors marked
/// as [`InputError`].
fn input<T, E: Into<anyhow::Error>>(result: Result<T, E>) -> anyhow::Result<T> {
    result.map_err(|e| InputError(e.into()).into())
}

/// The exit code for `error`: [`EXIT_BAD_INPUT`] when it (or a cause) is an
/// [`InputError`], a malformed trajectory file, an invalid setting or request, an
/// unusable recording or a checkpoint of another job; else [`EXIT_FAILED`].
pub fn exit_code(error: &anyhow::Error) -> u8 {
    let bad_input = error.chain().any(|e| {
        e.is::<InputError>()
            || e.is::<flotilla_common::trajectory::TrajectoryError>()
            || e.downcast_ref::<crate::CalibrationError>().is_some_and(|c| {
                matches!(
                    c,
                    crate::CalibrationError::Setting(_)
                        | crate::CalibrationError::Request { .. }
                        | crate::CalibrationError::Recording(_)
                        | crate::CalibrationError::Trajectory(_)
                        | crate::CalibrationError::Checkpoint { .. }
                )
            })
    });
    if bad_input {
        EXIT_BAD_INPUT
    } else {
        EXIT_FAILED
    }
}

/// Runs a command; on error, [`exit_code`] tells bad input from failed work.
pub fn run(args: CalibrateArgs) -> anyhow::Result<()> {
    match args.command {
        CalibrateCommand::Run(a) => run_calibration(a),
        CalibrateCommand::FlowField(a) => run_flow_field(a),
        CalibrateCommand::Record(a) => run_record(a),
        CalibrateCommand::Noise(a) => run_noise(a),
        CalibrateCommand::Validate(a) => run_validate(a),
    }
}

fn read_recordings(paths: &[PathBuf]) -> anyhow::Result<Vec<TrajectoryRecording>> {
    paths.iter().map(|p| input(TrajectoryRecording::read(p))).collect()
}

/// Each recording on its own: not empty, and longer than the MSD window once resampled
/// to the simulator's `dt` (s), so that an error names the file rather than a position
/// in the pooled list.
fn check_recordings(paths: &[PathBuf], recordings: &[TrajectoryRecording], dt: f64, settings: &JobSettings) -> anyhow::Result<()> {
    let window = settings.calibration.msd.window_frames;
    for (path, recording) in paths.iter().zip(recordings) {
        let tracks = input(
            crate::kinematics::RegularTracks::resample(recording, dt, settings.max_gap)
                .with_context(|| format!("recording {}", path.display())),
        )?;
        if tracks.frames() <= window {
            bail_input!(
                "recording {}: {} s ({} frames at {dt} s) is too short for the MSD window of {} s ({} frames)",
                path.display(),
                tracks.duration(),
                tracks.frames(),
                window as f64 * dt,
                window + 1
            );
        }
    }
    Ok(())
}

fn read_settings(path: Option<&Path>) -> anyhow::Result<JobSettings> {
    Ok(match path {
        Some(path) => input(JobSettings::read(path))?,
        None => JobSettings::default(),
    })
}

/// The world config and the parameter tree it came from.
fn load_world(args: &WorldArgs) -> anyhow::Result<(WorldConfig, Mapping)> {
    // Bounded: a huge warm-up ran for ever (every simulation simulates it first).
    if let Err(e) = flotilla_common::duration::Span::new(0.0, crate::tank::MAX_WARMUP_SECONDS).seconds(args.warmup) {
        bail_input!("--warmup {e}");
    }
    input(crate::tank::load_world(args.world.as_deref(), &args.node, args.balls))
}

/// Progress of long work: a bar on a terminal; otherwise (logs, CI) a line on stderr
/// at every tenth of the work, so a redirected run still shows it moving.
struct Progress {
    bar: ProgressBar,
    length: u64,
    lines: Option<TenthLines>,
}

impl Progress {
    fn new(length: u64, what: &str) -> Self {
        let bar = ProgressBar::new(length);
        let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_message(what.to_owned());
        let lines = (!TenthLines::stderr_is_terminal()).then(|| TenthLines::new(what));
        Self { bar, length, lines }
    }

    fn update(&self, position: u64, message: &str) {
        match &self.lines {
            Some(lines) => lines.update(position, self.length, message),
            None => {
                self.bar.set_position(position);
                self.bar.set_message(message.to_owned());
            }
        }
    }

    fn finish(&self) {
        if self.lines.is_none() {
            self.bar.finish();
        }
    }
}

fn run_calibration(args: RunArgs) -> anyhow::Result<()> {
    let mut settings = read_settings(args.settings.as_deref())?;
    let pso = &mut settings.calibration.pso;
    pso.iterations = args.iterations.unwrap_or(pso.iterations);
    pso.swarm_size = args.swarm_size.unwrap_or(pso.swarm_size);
    pso.seed = args.seed.unwrap_or(pso.seed);
    pso.reevaluate_personal_best |= args.reevaluate;
    pso.final_reevaluations = args.final_reevaluations.unwrap_or(pso.final_reevaluations);
    let occupancy = &mut settings.calibration.occupancy;
    occupancy.weight = args.occupancy_weight.unwrap_or(occupancy.weight);
    let flow = &mut settings.flow_estimation;
    flow.cells = args.flow_cells.unwrap_or(flow.cells);
    flow.min_measured_samples = args.flow_min_measured.unwrap_or(flow.min_measured_samples);
    flow.half_window = args.flow_half_window.or(flow.half_window);
    // Before any work: the flow estimation runs ahead of the job's own check.
    input(settings.validate())?;
    let (world, mut tree) = load_world(&args.world)?;
    let simulator = TankSimulator { warmup: args.world.warmup, ..input(TankSimulator::new(world, &settings.calibration.parameters))? };
    let recordings = read_recordings(&args.recordings)?;
    check_recordings(&args.recordings, &recordings, simulator.frame_interval(), &settings)?;
    let simulator = if args.estimate_flow {
        let inversions = match args.flow_inversion {
            InversionArg::Auto => FlowInversion::ALL.to_vec(),
            InversionArg::Whole => vec![FlowInversion::Whole],
            InversionArg::Relative => vec![FlowInversion::Relative],
        };
        if inversions.len() > 1 {
            eprintln!("estimating the flow field with each drag inversion; a pilot PSO iteration on each chooses");
        }
        let flow = estimate_flow(&simulator, &recordings, &settings, &inversions, &args.out).context("--estimate-flow")?;
        if let Some(choice) = &flow.choice {
            let pilots: Vec<String> = choice.pilots.iter().map(|p| format!("{} {:.4e} m^2", p.inversion, p.best_fitness)).collect();
            eprintln!("flow-inversion pilot (first PSO iteration each): {}; chosen: {}", pilots.join(", "), choice.chosen);
        }
        let c = &flow.coverage;
        eprintln!(
            "flow field ({} inversion) -> {}: {} cells measured, {} sparse and {} unvisited filled",
            flow.inversion,
            flow.file.display(),
            c.measured,
            c.sparse,
            c.unvisited
        );
        flow.apply_to(&mut tree);
        flow.simulator
    } else {
        simulator
    };
    // The final re-evaluation passes cost an iteration each: they are steps of the bar too.
    let pso = &settings.calibration.pso;
    let progress = Progress::new((pso.iterations + pso.final_reevaluations) as u64, "calibrating");
    let summary = run_job(&simulator, &recordings, &settings, &tree, &args.out, |p| {
        let message = if p.reevaluations == 0 {
            format!("iterations, best fitness {:.4e} m^2", p.best_fitness)
        } else {
            format!("re-evaluating the personal bests, pass {} of {}", p.reevaluations, p.final_reevaluations)
        };
        progress.update((p.iteration + p.reevaluations) as u64, &message);
        ControlFlow::Continue(())
    })?;
    progress.finish();
    println!("{}", serde_yaml::to_string(&summary)?);
    Ok(())
}

fn run_flow_field(args: FlowFieldArgs) -> anyhow::Result<()> {
    let mut settings = FlowEstimationSettings {
        grid: GridSpec { nx: args.cells, ny: args.cells, side: args.side },
        min_measured_samples: args.min_measured,
        tank_radius: args.tank_radius.unwrap_or(0.5 * args.side),
        fill: !args.no_fill,
        subtract_mean_flow_acceleration: args.subtract_mean_flow_acceleration,
        half_window: args.half_window,
        ..FlowEstimationSettings::default()
    };
    // Before reading anything: the same cap the node applies (`--cells` 1000000 aborted).
    input(settings.grid.validate().context("--cells/--side"))?;
    if let Some(mass) = args.mass {
        settings.drag.mass = mass;
    }
    // The known field first: a bad file fails before the estimation's work.
    let truth = input(args.compare.as_deref().map(FlowGrid::read_csv).transpose())?;
    let recordings = read_recordings(&args.recordings)?;
    let files = args.recordings.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    let estimate = estimate_flow_field(&recordings, &settings).with_context(|| format!("flow field from {files}"))?;
    estimate.to_flow_grid()?.write_csv(&args.out)?;
    let (tested, normal) = estimate.normality_summary();
    println!("flow field: {} -> {}", args.recordings.len(), args.out.display());
    println!("normality (KS, 5 %): {normal} of {tested} tested cells not rejected");
    if let Some(w) = &estimate.windows {
        println!(
            "kinematics: position noise {:.2} mm per axis; half windows {} (velocity, expected error {:.4} m/s vs {:.4} raw) and {} (acceleration, {:.3} m/s^2 vs {:.3} raw) at {:.4} s",
            w.noise_sd * 1e3,
            w.velocity_half_window,
            w.velocity_error,
            w.raw_velocity_error,
            w.acceleration_half_window,
            w.acceleration_error,
            w.raw_acceleration_error,
            w.frame_interval
        );
    }
    let coverage = estimate.coverage_summary();
    println!(
        "cells: {} measured (>= {} samples), {} sparse, {} unvisited inside the tank ({}), {} outside",
        coverage.measured,
        settings.min_measured_samples,
        coverage.sparse,
        coverage.unvisited,
        if settings.fill { "filled from the measured cells" } else { "not filled" },
        coverage.outside
    );
    let stem = args.out.with_extension("");
    estimate.write_normality_csv(&stem.with_extension("normality.csv"))?;
    let mean = |axis: usize| estimate.cells.iter().map(|c| (c.count > 0 || c.filled).then_some(c.mean[axis])).collect::<Vec<_>>();
    let (est_x, est_y) = (mean(0), mean(1));
    let mut panels =
        vec![HeatPanel { title: "estimated mean v_x", values: &est_x }, HeatPanel { title: "estimated mean v_y", values: &est_y }];
    let known;
    if let Some(truth) = &truth {
        let comparison = estimate.compare_with(truth, args.min_count);
        println!("{}", serde_yaml::to_string(&comparison)?);
        let at_centres = |axis: usize| -> Vec<Option<f64>> {
            let g = settings.grid;
            (0..g.len())
                .map(|i| {
                    let d = g.side / g.nx as f64;
                    let p =
                        nalgebra::Point2::new(-0.5 * g.side + ((i % g.nx) as f64 + 0.5) * d, -0.5 * g.side + ((i / g.nx) as f64 + 0.5) * d);
                    truth.sample_cell(p).map(|c| c.mean[axis])
                })
                .collect()
        };
        known = [at_centres(0), at_centres(1)];
        panels.insert(0, HeatPanel { title: "known mean v_x", values: &known[0] });
        panels.insert(1, HeatPanel { title: "known mean v_y", values: &known[1] });
    }
    let limit = panels.iter().flat_map(|p| p.values.iter().flatten()).fold(0.0, |a: f64, b| a.max(b.abs()));
    let plot = stem.with_extension("png");
    plot_heat_maps(
        &plot,
        "Flow field (mean per cell)",
        &settings.grid,
        &panels,
        2,
        ColourScale::Diverging { limit: limit.max(1e-9) },
        "m/s",
    )?;
    println!("plot: {}", plot.display());
    // Which cells rest on data: 2 measured, 1 sparse (filled), 0 unvisited (filled).
    let status: Vec<Option<f64>> = estimate
        .cells
        .iter()
        .map(|c| match c.coverage {
            CellCoverage::Measured => Some(2.0),
            CellCoverage::Sparse => Some(1.0),
            CellCoverage::Unvisited => Some(0.0),
            CellCoverage::Outside => None,
        })
        .collect();
    let coverage_plot = stem.with_extension("coverage.png");
    plot_heat_maps(
        &coverage_plot,
        "Cells: 2 measured, 1 sparse (filled), 0 unvisited (filled)",
        &settings.grid,
        &[HeatPanel { title: "coverage", values: &status }],
        1,
        ColourScale::Sequential { min: 0.0, max: 2.0 },
        "class",
    )?;
    println!("coverage plot: {}", coverage_plot.display());
    Ok(())
}

fn run_record(args: RecordArgs) -> anyhow::Result<()> {
    if let Err(e) = flotilla_common::duration::Span::new(1e-3, crate::tank::MAX_RECORD_SECONDS).seconds(args.seconds) {
        bail_input!("--seconds {e}");
    }
    let (world, _) = load_world(&args.world)?;
    let h = &world.hydro;
    let values = args.parameters.clone().unwrap_or_else(|| vec![h.kv, h.kf, h.sigma_stoch, h.d_linear, h.d_angular]);
    // A sixth value is the optional flow correlation time.
    let space =
        if values.len() == 6 { crate::tank::hydro_parameter_space_with_flow_correlation() } else { crate::tank::hydro_parameter_space() };
    if values.len() != space.parameters.len() {
        bail_input!(
            "--parameters takes {} values ({}) or a sixth, the flow correlation time (s); got {}",
            space.parameters.len(),
            space.names().join(","),
            values.len()
        );
    }
    let simulator = TankSimulator { warmup: args.world.warmup, ..input(TankSimulator::new(world, &space))? };
    // Parameter values the world refuses are the command's input, not a failed run.
    input(simulator.configured(&values))?;
    let frames = (args.seconds / simulator.frame_interval()).round() as usize + 1;
    let recording = simulator.record(&values, frames, args.seed)?;
    recording.write(&args.out)?;
    println!("recorded {} s of {} objects -> {}", recording.duration(), recording.tracks().len(), args.out.display());
    if let Some(path) = &args.flow_out {
        let world = tank_physics::World::new(simulator.configured(&values)?, args.seed)?;
        world.flow_field().write_csv(path)?;
        println!("flow field used -> {}", path.display());
    }
    Ok(())
}

fn run_noise(args: NoiseArgs) -> anyhow::Result<()> {
    if args.runs < 2 {
        bail_input!("--runs must be at least 2 (a mean and a standard deviation), got {}", args.runs);
    }
    let settings = read_settings(args.settings.as_deref())?;
    let (world, _) = load_world(&args.world)?;
    let simulator = TankSimulator { warmup: args.world.warmup, ..input(TankSimulator::new(world, &settings.calibration.parameters))? };
    let recordings = read_recordings(&args.recordings)?;
    check_recordings(&args.recordings, &recordings, simulator.frame_interval(), &settings)?;
    let real = resample_all(&recordings, simulator.frame_interval(), settings.max_gap)?;
    let reference = CalibrationReference::of(&real, &settings.calibration)?;
    let parameters = args.parameters.unwrap_or_else(|| settings.calibration.parameters.initial());
    let progress = Progress::new(args.runs as u64, "fitness noise");
    let values = fitness_samples(&simulator, &reference, &settings.calibration, &parameters, args.runs, args.seed, |done| {
        progress.update(done as u64, "runs")
    })?;
    progress.finish();
    let (mean, std) = mean_and_std(&values);
    println!("fitness over {} runs of {parameters:?}: mean {mean:.6e} m^2, std {std:.6e} m^2 ({:.1} %)", values.len(), 100.0 * std / mean);
    Ok(())
}

fn run_validate(args: ValidateArgs) -> anyhow::Result<()> {
    let settings = read_settings(args.settings.as_deref())?;
    input(settings.validate())?;
    let space = &settings.calibration.parameters;
    let parameters = args.parameters.unwrap_or_else(|| space.initial());
    if parameters.len() != space.parameters.len() {
        bail_input!("--parameters takes {} values ({}), got {}", space.parameters.len(), space.names().join(","), parameters.len());
    }
    let (world, _) = load_world(&args.world)?;
    let simulator = TankSimulator { warmup: args.world.warmup, ..input(TankSimulator::new(world, space))? };
    let recordings = read_recordings(&args.recordings)?;
    check_recordings(&args.recordings, &recordings, simulator.frame_interval(), &settings)?;
    let real = resample_all(&recordings, simulator.frame_interval(), settings.max_gap)?;
    let reference = pooled_mean_squared_displacement(&real, &settings.calibration.msd)?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let files = JobFiles::in_dir(&args.out);
    let named: Vec<(String, f64)> = space.named(&parameters).map(|(n, v)| (n.to_owned(), v)).collect();
    let report = write_validation(&simulator, &real, &reference, &parameters, &named, &settings, args.seed, &files)?;
    let yaml_path = args.out.join("validation.yaml");
    std::fs::write(&yaml_path, serde_yaml::to_string(&report)?).with_context(|| format!("writing {}", yaml_path.display()))?;
    println!("{}", report.verdict_line);
    println!("report: {}", files.report.display());
    Ok(())
}
