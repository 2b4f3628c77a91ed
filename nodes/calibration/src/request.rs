//! Calibration and flow-field requests as the ROS node receives them (a recording, a
//! scenario file, an output directory and a few overrides of the node's defaults),
//! checked and turned into a runnable job before any work starts. Every refusal names
//! the request field at fault. The node only converts messages to and from these types.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use flotilla_common::flow_field::FlowGrid;
use flotilla_common::trajectory::TrajectoryRecording;
use serde_yaml::Mapping;

use crate::calibrate::CalibrationProgress;
use crate::flow_choice::{estimate_flow, FlowInversion};
use crate::flow_estimation::{estimate_flow_field, FlowEstimationSettings};
use crate::job::{reference_msd, run_job, JobFiles, JobSettings, JobSummary};
use crate::tank::{load_world, TankSimulator};
use crate::{CalibrationError, Simulator};

/// What a request leaves open: the node's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceDefaults {
    /// Goals without an output directory get a fresh one under this directory.
    pub output_root: PathBuf,
    /// Job settings the goal's fields override (PSO constants, MSD stride, maps, ...).
    pub job: JobSettings,
    /// Ping-pong balls of the default world, used when a goal names no scenario file
    /// (dimensionless).
    pub balls: usize,
    /// Simulated time before each simulation starts recording (s).
    pub warmup: f64,
    /// Node whose section of a scenario file describes the world (`tank_physics`).
    pub scenario_node: String,
    /// Largest `iterations x swarm_size` a goal may ask for (simulations), so no goal
    /// can occupy the node for days.
    pub max_evaluations: u64,
    /// Flow-field estimation settings; a request may change the cells per side.
    pub flow: FlowEstimationSettings,
    /// Most cells per side a flow-field request may ask for (dimensionless).
    pub max_flow_cells: usize,
}

impl Default for ServiceDefaults {
    fn default() -> Self {
        Self {
            output_root: PathBuf::from("calibration_runs"),
            job: JobSettings::default(),
            balls: 24,
            warmup: 10.0,
            scenario_node: "tank_physics".into(),
            max_evaluations: 200_000,
            flow: FlowEstimationSettings::default(),
            max_flow_cells: 500,
        }
    }
}

/// A calibration goal (the fields of `flotilla_msgs/action/Calibrate`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CalibrationRequest {
    /// Trajectory CSV of the recording to match.
    pub recording: PathBuf,
    /// Physics parameter file of the set-up; `None` = the default tank with
    /// [`ServiceDefaults::balls`] balls.
    pub scenario_file: Option<PathBuf>,
    /// Where the outputs go; `None` = a fresh directory under the output root.
    pub output_dir: Option<PathBuf>,
    /// PSO iterations (dimensionless; 0 = default).
    pub iterations: usize,
    /// Swarm size (dimensionless; 0 = default).
    pub swarm_size: usize,
    /// PSO seed.
    pub seed: u64,
    /// MSD window (s; 0 = default).
    pub window: f64,
    /// Lower bound per calibrated parameter (parameter units); empty = defaults.
    pub lower_bounds: Vec<f64>,
    /// Upper bound per calibrated parameter (parameter units); empty = defaults.
    pub upper_bounds: Vec<f64>,
    /// Noise-resistant PSO: re-evaluate personal bests.
    pub reevaluate_personal_best: bool,
    /// Continue from the output directory's checkpoint when there is one; otherwise an
    /// old checkpoint there is discarded and the run starts afresh.
    pub resume: bool,
    /// `""`: the scenario's own flow field; `"auto"`, `"whole"` or `"relative"`: the field
    /// estimated from the recording with that drag inversion (`auto`: both, a pilot
    /// chooses; [`crate::flow_choice`]).
    pub flow_field: String,
    /// Job settings file (YAML, as `flotilla-calibrate run --settings`) replacing
    /// [`ServiceDefaults::job`] for this goal; the fields above override it. `None` = the
    /// node's job settings.
    pub job_settings_file: Option<PathBuf>,
}

/// A checked goal, ready to run.
#[derive(Clone, Debug)]
pub struct PreparedJob {
    /// The simulated world with the calibrated parameters.
    pub simulator: TankSimulator,
    /// The recording, loaded.
    pub recordings: Vec<TrajectoryRecording>,
    /// The complete job settings.
    pub settings: JobSettings,
    /// Parameter tree of the scenario, the base of the written parameter file.
    pub base_parameters: Mapping,
    /// Output directory.
    pub out_dir: PathBuf,
    /// Whether an existing checkpoint is continued.
    pub resume: bool,
    /// Inversions to estimate the flow field from the recording with before calibrating
    /// (empty: the scenario's own flow; two: a pilot chooses).
    pub estimate_flow: Vec<FlowInversion>,
}

fn field(field: &'static str, message: impl Into<String>) -> CalibrationError {
    CalibrationError::Request { field, message: message.into() }
}

impl CalibrationRequest {
    /// Checks every field against `defaults`, loads the scenario and the recording and
    /// computes the reference MSD (so a recording too short for the window is refused
    /// here, not after the first iteration).
    pub fn prepare(&self, defaults: &ServiceDefaults) -> Result<PreparedJob, CalibrationError> {
        let mut settings = match &self.job_settings_file {
            Some(path) => {
                let settings = JobSettings::read(path).map_err(|e| field("job_settings_file", e.to_string()))?;
                settings.validate().map_err(|e| field("job_settings_file", format!("{}: {e}", path.display())))?;
                settings
            }
            None => defaults.job.clone(),
        };
        let pso = &mut settings.calibration.pso;
        if self.iterations > 0 {
            pso.iterations = self.iterations;
        }
        if self.swarm_size > 0 {
            pso.swarm_size = self.swarm_size;
        }
        pso.seed = self.seed;
        pso.reevaluate_personal_best |= self.reevaluate_personal_best;
        let evaluations = (pso.iterations as u64).saturating_mul(pso.swarm_size as u64);
        if evaluations > defaults.max_evaluations {
            return Err(field(
                "iterations",
                format!(
                    "{} iterations x swarm_size {} = {evaluations} simulations, more than the node's max_evaluations {}",
                    pso.iterations, pso.swarm_size, defaults.max_evaluations
                ),
            ));
        }
        // The settings file's re-evaluations count too: `final_reevaluations: 100000000`
        // passed the check above and ran for days.
        let per_iteration = if pso.reevaluate_personal_best { 2 } else { 1 };
        let total = (pso.iterations as u64)
            .saturating_mul(per_iteration)
            .saturating_add(pso.final_reevaluations as u64)
            .saturating_mul(pso.swarm_size as u64);
        if total > defaults.max_evaluations {
            return Err(field(
                "job_settings_file",
                format!(
                    "swarm_size {} x ({} iterations{} + {} final re-evaluations) = {total} simulations, more than the node's max_evaluations {}",
                    pso.swarm_size,
                    pso.iterations,
                    if pso.reevaluate_personal_best { " x 2 (personal bests re-evaluated)" } else { "" },
                    pso.final_reevaluations,
                    defaults.max_evaluations
                ),
            ));
        }
        self.apply_bounds(&mut settings)?;
        settings.validate()?;

        let (world, base_parameters) = load_world(self.scenario_file.as_deref(), &defaults.scenario_node, defaults.balls)
            .map_err(|e| field("scenario_file", e.to_string()))?;
        let simulator = TankSimulator { warmup: defaults.warmup, ..TankSimulator::new(world, &settings.calibration.parameters)? };
        let dt = simulator.frame_interval();
        if self.recording.as_os_str().is_empty() {
            return Err(field("recording", "no trajectory file given"));
        }
        let recording = TrajectoryRecording::read(&self.recording).map_err(|e| field("recording", e.to_string()))?;
        let window = if self.window == 0.0 { settings.calibration.msd.window_frames as f64 * dt } else { self.window };
        if !(window.is_finite() && window >= 2.0 * dt) {
            return Err(field("window", format!("must be 0 (default) or at least two simulator steps ({} s), got {window} s", 2.0 * dt)));
        }
        if window >= recording.duration() {
            return Err(field(
                "window",
                format!("{window} s is not shorter than the recording {} ({} s)", self.recording.display(), recording.duration()),
            ));
        }
        settings.calibration.msd.window_frames = (window / dt).round() as usize;
        let recordings = vec![recording];
        reference_msd(&recordings, &settings, dt)
            .map_err(|e| field("window", format!("a {window} s window does not fit the recording {}: {e}", self.recording.display())))?;
        let estimate_flow = match self.flow_field.as_str() {
            "" => Vec::new(),
            "auto" => FlowInversion::ALL.to_vec(),
            other => vec![other
                .parse::<FlowInversion>()
                .map_err(|_| field("flow_field", format!("must be \"\", \"auto\", \"whole\" or \"relative\", got {other:?}")))?],
        };
        let out_dir = match &self.output_dir {
            Some(dir) => dir.clone(),
            None => fresh_run_dir(&defaults.output_root, self.seed),
        };
        // Created now, so that a path that is a file or cannot be created refuses the
        // goal naming the field instead of aborting it once accepted.
        std::fs::create_dir_all(&out_dir).map_err(|e| {
            let what = if self.output_dir.is_some() { "" } else { " (under the node's output_root)" };
            field("output_dir", format!("cannot create {}{what}: {e}", out_dir.display()))
        })?;
        Ok(PreparedJob { simulator, recordings, settings, base_parameters, out_dir, resume: self.resume, estimate_flow })
    }

    /// Replaces the default bounds with the goal's (either list may be empty), clamping
    /// each start value into its new interval.
    fn apply_bounds(&self, settings: &mut JobSettings) -> Result<(), CalibrationError> {
        let parameters = &mut settings.calibration.parameters.parameters;
        let names = parameters.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ");
        for (name, values) in [("lower_bounds", &self.lower_bounds), ("upper_bounds", &self.upper_bounds)] {
            if !values.is_empty() && values.len() != parameters.len() {
                return Err(field(
                    name,
                    format!("needs {} values ({names}) or none for the defaults, got {}", parameters.len(), values.len()),
                ));
            }
        }
        for (k, p) in parameters.iter_mut().enumerate() {
            p.lower = self.lower_bounds.get(k).copied().unwrap_or(p.lower);
            p.upper = self.upper_bounds.get(k).copied().unwrap_or(p.upper);
            if p.lower.is_finite() && p.upper.is_finite() && p.lower < p.upper {
                p.initial = p.initial.clamp(p.lower, p.upper);
            }
        }
        settings.calibration.parameters.bounds().map(|_| ()).map_err(|e| field("lower_bounds/upper_bounds", e.to_string()))
    }
}

/// `<root>/run-<unix seconds>-seed<seed>`, with a numeric suffix if that already exists.
fn fresh_run_dir(root: &Path, seed: u64) -> PathBuf {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let base = format!("run-{now}-seed{seed}");
    let mut dir = root.join(&base);
    let mut n = 1;
    while dir.exists() {
        dir = root.join(format!("{base}-{n}"));
        n += 1;
    }
    dir
}

impl PreparedJob {
    /// Runs the calibration (in parallel on the current rayon pool). Without `resume`, a
    /// checkpoint left in the output directory is discarded first.
    pub fn run(&self, progress: impl FnMut(&CalibrationProgress) -> ControlFlow<()>) -> Result<JobSummary, CalibrationError> {
        let checkpoint = JobFiles::in_dir(&self.out_dir).checkpoint;
        if !self.resume && checkpoint.exists() {
            std::fs::remove_file(&checkpoint).map_err(|source| CalibrationError::Io { path: checkpoint.clone(), source })?;
        }
        if self.estimate_flow.is_empty() {
            return run_job(&self.simulator, &self.recordings, &self.settings, &self.base_parameters, &self.out_dir, progress);
        }
        let flow = estimate_flow(&self.simulator, &self.recordings, &self.settings, &self.estimate_flow, &self.out_dir)?;
        let mut base_parameters = self.base_parameters.clone();
        flow.apply_to(&mut base_parameters);
        run_job(&flow.simulator, &self.recordings, &self.settings, &base_parameters, &self.out_dir, progress)
    }
}

/// A flow-field estimation request (the fields of `flotilla_msgs/srv/EstimateFlowField`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowFieldRequest {
    /// Trajectory CSVs of balls, pooled.
    pub recordings: Vec<PathBuf>,
    /// Flow-field file to write (plus `<stem>.normality.csv`); `None` = write nothing.
    pub output_file: Option<PathBuf>,
    /// Cells per side (dimensionless; 0 = default).
    pub cells: usize,
    /// Drag inversion: `""` or `"whole"` (the default), or `"relative"`
    /// ([`FlowInversion`]).
    pub inversion: String,
}

/// What a flow-field estimation produced.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowFieldReply {
    /// The estimated field (per-cell mean, sd, sample count).
    pub grid: FlowGrid,
    /// Cells with enough samples for the normality test (dimensionless).
    pub tested_cells: usize,
    /// Tested cells whose normality was not rejected (dimensionless).
    pub normal_cells: usize,
    /// Flow samples pooled over all cells (dimensionless).
    pub samples: u64,
}

impl FlowFieldRequest {
    /// Estimates the field and writes it if asked.
    pub fn run(&self, defaults: &ServiceDefaults) -> Result<FlowFieldReply, CalibrationError> {
        if self.recordings.is_empty() {
            return Err(field("recordings", "no trajectory file given"));
        }
        if self.cells > defaults.max_flow_cells {
            return Err(field("cells", format!("at most {} per side, got {}", defaults.max_flow_cells, self.cells)));
        }
        let inversion = match self.inversion.as_str() {
            "" => FlowInversion::Whole,
            other => other.parse::<FlowInversion>().map_err(|e| field("inversion", e))?,
        };
        let mut settings = inversion.apply(&defaults.flow);
        if self.cells > 0 {
            settings.grid.nx = self.cells;
            settings.grid.ny = self.cells;
        }
        let recordings = self
            .recordings
            .iter()
            .enumerate()
            .map(|(k, path)| TrajectoryRecording::read(path).map_err(|e| field("recordings", format!("[{k}]: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        let estimate = estimate_flow_field(&recordings, &settings)?;
        let grid = estimate.to_flow_grid()?;
        if let Some(path) = &self.output_file {
            grid.write_csv(path).map_err(|e| field("output_file", e.to_string()))?;
            estimate.write_normality_csv(&path.with_extension("normality.csv")).map_err(|e| field("output_file", e.to_string()))?;
        }
        let (tested_cells, normal_cells) = estimate.normality_summary();
        let samples = estimate.cells.iter().map(|c| c.count).sum();
        Ok(FlowFieldReply { grid, tested_cells, normal_cells, samples })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tank::hydro_parameter_space;

    /// A 4-ball recording of `seconds` in a fresh directory.
    fn recording(seconds: f64) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let (world, _) = load_world(None, "tank_physics", 4).unwrap();
        let sim = TankSimulator { warmup: 0.5, ..TankSimulator::new(world, &hydro_parameter_space()).unwrap() };
        let frames = (seconds / sim.frame_interval()).round() as usize + 1;
        let path = dir.path().join("real.csv");
        sim.record(&[1.2, 1.5, 50.0, 0.3, 0.3], frames, 3).unwrap().write(&path).unwrap();
        (dir, path)
    }

    fn small_defaults(root: &Path) -> ServiceDefaults {
        let mut defaults = ServiceDefaults { output_root: root.join("runs"), balls: 4, warmup: 0.5, ..ServiceDefaults::default() };
        defaults.job.calibration.msd.start_stride = 20;
        defaults
    }

    fn goal(path: &Path) -> CalibrationRequest {
        CalibrationRequest {
            recording: path.to_path_buf(),
            iterations: 2,
            swarm_size: 3,
            seed: 4,
            window: 2.0,
            ..CalibrationRequest::default()
        }
    }

    fn refusal(request: &CalibrationRequest, defaults: &ServiceDefaults) -> String {
        request.prepare(defaults).unwrap_err().to_string()
    }

    #[test]
    fn a_good_goal_runs_and_writes_its_files() {
        let (dir, path) = recording(4.0);
        let defaults = small_defaults(dir.path());
        let job = goal(&path).prepare(&defaults).unwrap();
        assert_eq!(job.settings.calibration.msd.window_frames, 80);
        assert_eq!((job.settings.calibration.pso.iterations, job.settings.calibration.pso.swarm_size), (2, 3));
        assert!(job.out_dir.starts_with(dir.path().join("runs")));
        let mut seen = Vec::new();
        let summary = job
            .run(|p| {
                seen.push((p.iteration, p.reevaluations));
                ControlFlow::Continue(())
            })
            .unwrap();
        assert_eq!(seen, vec![(1, 0), (2, 0), (2, 1), (2, 2), (2, 3)]);
        assert!(summary.completed && summary.files.parameters.exists() && summary.files.checkpoint.exists());
        // Without `resume` an old checkpoint is discarded: the run starts afresh.
        let mut again = Vec::new();
        job.run(|p| {
            again.push((p.iteration, p.reevaluations));
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(again, seen);
    }

    /// A goal with `flow_field: auto` calibrates on the field estimated from its recording:
    /// both inversions written, the pilot's choice written, the parameter file loading the
    /// chosen field.
    #[test]
    fn a_goal_can_calibrate_on_the_flow_estimated_from_its_recording() {
        let (dir, path) = recording(4.0);
        let defaults = small_defaults(dir.path());
        let job = CalibrationRequest { flow_field: "auto".into(), ..goal(&path) }.prepare(&defaults).unwrap();
        assert_eq!(job.estimate_flow, FlowInversion::ALL);
        let summary = job.run(|_| ControlFlow::Continue(())).unwrap();
        assert!(summary.completed);
        let choice = std::fs::read_to_string(job.out_dir.join("flow_choice.yaml")).unwrap();
        let chosen = if choice.contains("chosen: whole") { "whole" } else { "relative" };
        assert!(choice.contains(&format!("chosen: {chosen}")), "{choice}");
        for inversion in ["whole", "relative"] {
            assert!(job.out_dir.join(format!("flow_{inversion}.csv")).exists());
        }
        let parameters = std::fs::read_to_string(&summary.files.parameters).unwrap();
        assert!(parameters.contains(&format!("flow_{chosen}.csv")), "{parameters}");
        let tree: serde_yaml::Value = serde_yaml::from_str(&parameters).unwrap();
        let file = tree["tank_physics"]["ros__parameters"]["flow_field"]["file"].as_str().unwrap();
        assert_eq!(Path::new(file), std::path::absolute(job.out_dir.join(format!("flow_{chosen}.csv"))).unwrap());
    }

    #[test]
    fn bad_goals_name_the_field() {
        let (dir, path) = recording(4.0);
        let defaults = small_defaults(dir.path());
        // Re-evaluations were not counted against max_evaluations.
        let huge_final = dir.path().join("huge_final.yaml");
        std::fs::write(&huge_final, "calibration:\n  pso: {final_reevaluations: 100000000}\n").unwrap();
        let cases = [
            (CalibrationRequest { recording: dir.path().join("missing.csv"), ..goal(&path) }, "`recording`"),
            (CalibrationRequest { recording: PathBuf::new(), ..goal(&path) }, "`recording`"),
            (CalibrationRequest { window: 30.0, ..goal(&path) }, "`window`"),
            (CalibrationRequest { window: -1.0, ..goal(&path) }, "`window`"),
            (CalibrationRequest { window: f64::NAN, ..goal(&path) }, "`window`"),
            (CalibrationRequest { window: 1e300, ..goal(&path) }, "s is not shorter than the recording"),
            (CalibrationRequest { lower_bounds: vec![1.0; 5], upper_bounds: vec![1.0; 5], ..goal(&path) }, "`lower_bounds/upper_bounds`"),
            (CalibrationRequest { lower_bounds: vec![0.5, 0.1], ..goal(&path) }, "`lower_bounds`: needs 5 values"),
            (CalibrationRequest { upper_bounds: vec![f64::INFINITY; 5], ..goal(&path) }, "`lower_bounds/upper_bounds`"),
            (CalibrationRequest { scenario_file: Some(dir.path().join("nope.yaml")), ..goal(&path) }, "`scenario_file`"),
            (CalibrationRequest { iterations: 1_000_000, ..goal(&path) }, "max_evaluations"),
            (CalibrationRequest { job_settings_file: Some(huge_final.clone()), ..goal(&path) }, "100000000 final re-evaluations"),
            (CalibrationRequest { flow_field: "estimate".into(), ..goal(&path) }, "`flow_field`: must be"),
        ];
        for (request, want) in cases {
            let message = refusal(&request, &defaults);
            assert!(message.contains(want), "`{message}` does not mention {want}");
        }
        // Bounds replace the defaults and pull the start value inside.
        let job = CalibrationRequest {
            lower_bounds: vec![1.1, 0.1, 0.0, 0.0, 0.0],
            upper_bounds: vec![1.5, 4.0, 400.0, 0.9, 0.9],
            ..goal(&path)
        }
        .prepare(&defaults)
        .unwrap();
        let kv = &job.settings.calibration.parameters.parameters[0];
        assert_eq!((kv.lower, kv.upper, kv.initial), (1.1, 1.5, 1.1));
    }

    /// An output_dir that is a file was accepted and then aborted with "File exists" not
    /// naming the field; a CSV given as job_settings_file was refused quoting all of it.
    #[test]
    fn an_unusable_output_dir_or_a_non_yaml_settings_file_is_refused_briefly_by_name() {
        let (dir, path) = recording(4.0);
        let defaults = small_defaults(dir.path());
        let message = refusal(&CalibrationRequest { output_dir: Some(path.clone()), ..goal(&path) }, &defaults);
        assert!(message.contains("`output_dir`") && message.contains("cannot create"), "{message}");
        let message = refusal(&CalibrationRequest { job_settings_file: Some(path.clone()), ..goal(&path) }, &defaults);
        assert!(message.contains("`job_settings_file`") && message.contains("holds a plain text"), "{message}");
        assert!(message.len() < 300, "{message}");
    }

    /// A goal's settings file replaces the node's job settings and the goal's own fields
    /// override it; a file that is missing, malformed or invalid is refused by name.
    #[test]
    fn a_goals_settings_file_replaces_the_node_settings_and_is_checked() {
        let (dir, path) = recording(4.0);
        let defaults = small_defaults(dir.path());
        let file = dir.path().join("settings.yaml");
        let text = "validation_runs: 2\ncalibration:\n  pso:\n    iterations: 5\n    swarm_size: 6\n  msd:\n    window_frames: 2400\n    start_stride: 10\n";
        std::fs::write(&file, text).unwrap();
        let with_file = CalibrationRequest { job_settings_file: Some(file), iterations: 0, swarm_size: 0, ..goal(&path) };
        let job = with_file.prepare(&defaults).unwrap();
        let pso = &job.settings.calibration.pso;
        assert_eq!((pso.iterations, pso.swarm_size, pso.seed), (5, 6, 4));
        assert_eq!(job.settings.validation_runs, 2);
        assert_eq!(job.settings.calibration.msd.start_stride, 10, "the node's stride (20) is not merged in");
        let job = CalibrationRequest { iterations: 2, ..with_file.clone() }.prepare(&defaults).unwrap();
        assert_eq!((job.settings.calibration.pso.iterations, job.settings.calibration.pso.swarm_size), (2, 6));

        std::fs::write(dir.path().join("typo.yaml"), "validation_rnus: 2\n").unwrap();
        std::fs::write(dir.path().join("zero.yaml"), "validation_runs: 0\n").unwrap();
        std::fs::write(dir.path().join("list.yaml"), "- 1\n- 2\n").unwrap();
        for (name, want) in
            [("gone.yaml", "gone.yaml"), ("typo.yaml", "validation_rnus"), ("zero.yaml", "validation_runs"), ("list.yaml", "list.yaml")]
        {
            let message = refusal(&CalibrationRequest { job_settings_file: Some(dir.path().join(name)), ..goal(&path) }, &defaults);
            assert!(message.contains("`job_settings_file`") && message.contains(want), "{name}: {message}");
        }
    }

    #[test]
    fn flow_field_requests_write_a_loadable_field_or_name_the_field() {
        let (dir, path) = recording(3.0);
        let defaults = small_defaults(dir.path());
        let out = dir.path().join("flow.csv");
        let request =
            FlowFieldRequest { recordings: vec![path.clone()], output_file: Some(out.clone()), cells: 10, ..FlowFieldRequest::default() };
        let reply = request.run(&defaults).unwrap();
        assert_eq!((reply.grid.nx(), reply.grid.ny()), (10, 10));
        assert!(reply.samples > 0);
        assert_eq!(FlowGrid::read_csv(&out).unwrap(), reply.grid);
        assert!(dir.path().join("flow.normality.csv").exists());
        let e = FlowFieldRequest::default().run(&defaults).unwrap_err().to_string();
        assert!(e.contains("`recordings`"), "{e}");
        let e = FlowFieldRequest { recordings: vec![path.clone(), dir.path().join("gone.csv")], ..FlowFieldRequest::default() }
            .run(&defaults)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`recordings`: [1]") && e.contains("gone.csv"), "{e}");
        let e = FlowFieldRequest { recordings: vec![path.clone()], cells: 100_000, ..FlowFieldRequest::default() }
            .run(&defaults)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`cells`"), "{e}");
        let e = FlowFieldRequest { output_file: Some(dir.path().join("no/such/dir/f.csv")), cells: 0, ..request.clone() }
            .run(&defaults)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`output_file`"), "{e}");
        // The relative inversion is a different field; an unknown one is refused by name.
        let relative = FlowFieldRequest { inversion: "relative".into(), output_file: None, ..request.clone() }.run(&defaults).unwrap();
        assert_ne!(relative.grid, reply.grid);
        let whole = FlowFieldRequest { inversion: "whole".into(), output_file: None, ..request.clone() }.run(&defaults).unwrap();
        assert_eq!(whole.grid, reply.grid);
        let e = FlowFieldRequest { inversion: "both".into(), ..request }.run(&defaults).unwrap_err().to_string();
        assert!(e.contains("`inversion`") && e.contains("\"both\""), "{e}");
    }
}
