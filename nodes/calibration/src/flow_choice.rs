//! Which drag inversion a recording's estimated flow field needs, chosen by the data
//! (issue #19).
//!
//! `flow-field` turns each tracked acceleration into a flow by inverting the drag, either
//! on the whole acceleration (right for Flotilla's own physics, where drag alone turns the
//! balls) or on the acceleration relative to the mean ball flow's own `(V.grad)V` (right
//! where the water's pressure gradient turns the balls, or their small-slip drag is not
//! quadratic: a real tank, the foreign bench). The tracks alone cannot tell the two apart
//! (docs/calibration.md, "The estimate's radial bias"), but a simulation can: the pilot
//! runs the PSO's first iteration on each candidate field, the same initial swarm and the
//! same evaluation seeds for both, and the calibration continues on the field whose best
//! fitness is lowest. On the bench the pilots differ two- to threefold (docs/calibration.md,
//! "Choosing the inversion").

use std::fmt;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use flotilla_common::params::set_dotted;
use flotilla_common::trajectory::TrajectoryRecording;
use serde::Serialize;
use serde_yaml::{Mapping, Value};

use crate::calibrate::{calibrate, CalibrationReference, CalibrationSettings};
use crate::flow_estimation::{estimate_flow_field, CoverageSummary, FlowEstimationSettings};
use crate::job::{resample_all, JobSettings};
use crate::output::write_atomically;
use crate::simulator::Simulator;
use crate::tank::TankSimulator;
use crate::CalibrationError;
use tank_physics::ArenaKind;

/// How the drag is inverted when a flow field is estimated from tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowInversion {
    /// On the whole measured acceleration (Flotilla's own physics).
    Whole,
    /// On the acceleration relative to the mean ball flow's convective acceleration.
    Relative,
}

impl FlowInversion {
    /// Both inversions, in the order the pilot tries them.
    pub const ALL: [FlowInversion; 2] = [FlowInversion::Whole, FlowInversion::Relative];

    /// Lower-case name (file names, logs).
    pub fn name(self) -> &'static str {
        match self {
            FlowInversion::Whole => "whole",
            FlowInversion::Relative => "relative",
        }
    }

    /// `settings` with this inversion.
    pub fn apply(self, settings: &FlowEstimationSettings) -> FlowEstimationSettings {
        FlowEstimationSettings { subtract_mean_flow_acceleration: self == FlowInversion::Relative, ..*settings }
    }
}

impl std::str::FromStr for FlowInversion {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        FlowInversion::ALL.into_iter().find(|i| i.name() == text).ok_or_else(|| format!("must be \"whole\" or \"relative\", got {text:?}"))
    }
}

impl fmt::Display for FlowInversion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One candidate's pilot.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Pilot {
    /// The candidate's inversion.
    pub inversion: FlowInversion,
    /// Best fitness of the PSO's first iteration on it (m^2).
    pub best_fitness: f64,
}

/// The pilots and the inversion they chose.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowChoice {
    /// The inversion with the lowest pilot fitness.
    pub chosen: FlowInversion,
    /// Every candidate's pilot, in the order given.
    pub pilots: Vec<Pilot>,
    /// Simulations the pilots cost (dimensionless).
    pub evaluations: u64,
}

/// Runs the pilot on each `(inversion, simulator)` candidate against `recordings` and
/// chooses the lowest best fitness. Every candidate gets the same initial swarm and
/// evaluation seeds (those of the calibration that follows), so the fields are compared on
/// common random numbers.
pub fn choose_inversion<S: Simulator>(
    candidates: &[(FlowInversion, S)],
    recordings: &[TrajectoryRecording],
    settings: &JobSettings,
) -> Result<FlowChoice, CalibrationError> {
    if candidates.is_empty() {
        return Err(CalibrationError::Setting("no flow-field candidate to choose from".into()));
    }
    settings.validate()?;
    let pilot_settings = pilot_settings(&settings.calibration);
    let mut pilots = Vec::with_capacity(candidates.len());
    for (inversion, simulator) in candidates {
        let real = resample_all(recordings, simulator.frame_interval(), settings.max_gap)?;
        let reference = CalibrationReference::of(&real, &settings.calibration)?;
        let outcome = calibrate(simulator, &reference, &pilot_settings, None, |_| ControlFlow::Continue(()))?;
        tracing::info!(inversion = inversion.name(), best_fitness = outcome.best_fitness, "flow-inversion pilot");
        pilots.push(Pilot { inversion: *inversion, best_fitness: outcome.best_fitness });
    }
    let chosen = pilots
        .iter()
        .filter(|p| p.best_fitness.is_finite())
        .min_by(|a, b| a.best_fitness.total_cmp(&b.best_fitness))
        .ok_or_else(|| CalibrationError::Setting("no flow-field candidate gave a finite pilot fitness".into()))?
        .inversion;
    let evaluations = (candidates.len() * pilot_settings.pso.swarm_size) as u64;
    Ok(FlowChoice { chosen, pilots, evaluations })
}

/// A flow field estimated from a calibration's recordings: the simulator on it, and what
/// was chosen.
#[derive(Clone, Debug)]
pub struct EstimatedFlow {
    /// The base simulator with the chosen field as its measured flow.
    pub simulator: TankSimulator,
    /// The chosen field's file (absolute).
    pub file: PathBuf,
    /// The inversion of the chosen field.
    pub inversion: FlowInversion,
    /// Cells measured, sparse and unvisited (filled) of the chosen estimate.
    pub coverage: CoverageSummary,
    /// The pilots, when there was more than one candidate.
    pub choice: Option<FlowChoice>,
}

impl EstimatedFlow {
    /// Points `tree` (a `tank_physics` parameter tree, e.g. the base of the calibrated
    /// parameter file) at the chosen field.
    pub fn apply_to(&self, tree: &mut Mapping) {
        set_dotted(tree, "flow_field.file", Value::from(self.file.display().to_string()));
        set_dotted(tree, "flow_field.measured_at_power", Value::from(self.simulator.world.flow.measured_at_power));
    }
}

/// Estimates the flow field of `recordings` once per inversion of `inversions` (with
/// `settings.flow_estimation`, the base world's ball and a grid over its arena: the
/// round tank's diameter, with cells beyond its wall outside; otherwise the larger side
/// of the rectangle, all of it inside), writes each to
/// `out_dir/flow_<inversion>.csv` and, with two or more, runs the pilot and writes its
/// outcome to `out_dir/flow_choice.yaml`. The chosen field replaces the base world's
/// flow, taken as recorded at the world's own pump power.
pub fn estimate_flow(
    base: &TankSimulator,
    recordings: &[TrajectoryRecording],
    settings: &JobSettings,
    inversions: &[FlowInversion],
    out_dir: &Path,
) -> Result<EstimatedFlow, CalibrationError> {
    if inversions.is_empty() {
        return Err(CalibrationError::Setting("no flow inversion to estimate the field with".into()));
    }
    let pumps = &base.world.pumps;
    let mean_power = pumps.iter().sum::<f64>() / pumps.len().max(1) as f64;
    if mean_power <= 0.0 {
        return Err(CalibrationError::Setting(format!(
            "the world's pumps are off (mean power {mean_power} %): an estimated flow field would not act"
        )));
    }
    // The configured value is kept when it is that power up to rounding, so the two-step
    // pipeline (`flow-field`, then a world file loading it) gives the same run bit for bit.
    let configured = base.world.flow.measured_at_power;
    let measured_at_power = if (mean_power - configured).abs() <= 1e-9 * configured { configured } else { mean_power };
    let arena = &base.world.arena;
    let (side, tank_radius) = match arena.kind {
        ArenaKind::RoundTank => (arena.diameter, 0.5 * arena.diameter),
        ArenaKind::RectTank | ArenaKind::OpenWater | ArenaKind::Table => (arena.size_x.max(arena.size_y), 0.0),
    };
    let estimation = settings.flow_estimation.settings(side, tank_radius, base.drag_model());
    estimation.grid.validate()?;
    let io = |path: &Path, source| CalibrationError::Io { path: path.to_path_buf(), source };
    std::fs::create_dir_all(out_dir).map_err(|e| io(out_dir, e))?;
    let out_dir = std::path::absolute(out_dir).map_err(|e| io(out_dir, e))?;
    let mut simulators = Vec::with_capacity(inversions.len());
    let mut estimates = Vec::with_capacity(inversions.len());
    for &inversion in inversions {
        let estimate = estimate_flow_field(recordings, &inversion.apply(&estimation))?;
        let file = out_dir.join(format!("flow_{inversion}.csv"));
        estimate.to_flow_grid()?.write_csv(&file).map_err(|e| CalibrationError::Setting(e.to_string()))?;
        let mut world = base.world.clone();
        world.flow.file = Some(file.clone());
        world.flow.measured_at_power = measured_at_power;
        simulators.push((inversion, TankSimulator { world, ..base.clone() }));
        estimates.push((file, estimate.coverage_summary()));
    }
    let choice = if simulators.len() > 1 {
        let choice = choose_inversion(&simulators, recordings, settings)?;
        let path = out_dir.join("flow_choice.yaml");
        let yaml =
            serde_yaml::to_string(&choice).map_err(|e| CalibrationError::Setting(format!("cannot serialise the flow choice: {e}")))?;
        write_atomically(&path, yaml.as_bytes())?;
        Some(choice)
    } else {
        None
    };
    // The choice is one of the candidates: the first when there was only one.
    let index = choice.as_ref().and_then(|c| simulators.iter().position(|(i, _)| *i == c.chosen)).unwrap_or(0);
    let (inversion, simulator) = simulators.swap_remove(index);
    let (file, coverage) = estimates.swap_remove(index);
    Ok(EstimatedFlow { simulator, file, inversion, coverage, choice })
}

/// The first iteration of `settings`' PSO alone: no re-evaluations.
fn pilot_settings(settings: &CalibrationSettings) -> CalibrationSettings {
    let mut pilot = settings.clone();
    pilot.pso.iterations = 1;
    pilot.pso.final_reevaluations = 0;
    pilot.pso.reevaluate_personal_best = false;
    pilot
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::OccupancyObjective;
    use crate::kinematics::RegularTracks;
    use crate::maps::GridSpec;
    use crate::msd::MsdSettings;
    use crate::parameters::{ParameterRange, ParameterSpace};
    use crate::pso::PsoSettings;
    use crate::simulator::OrnsteinUhlenbeck;

    /// A well at a fixed centre: like a flow field, something the calibrated parameters
    /// cannot move.
    #[derive(Clone)]
    struct WellAt(OrnsteinUhlenbeck, f64);

    impl Simulator for WellAt {
        fn parameter_names(&self) -> Vec<String> {
            ["stiffness", "damping", "noise"].map(String::from).to_vec()
        }
        fn frame_interval(&self) -> f64 {
            self.0.frame_interval()
        }
        fn simulate(&self, parameters: &[f64], frames: usize, seed: u64) -> Result<RegularTracks, CalibrationError> {
            let mut tracks = self.0.simulate(parameters, frames, seed)?;
            for p in tracks.tracks.iter_mut().flatten().flatten() {
                p.x += self.1;
            }
            Ok(tracks)
        }
    }

    fn settings() -> JobSettings {
        let calibration = CalibrationSettings {
            msd: MsdSettings { window_frames: 120, start_stride: 20 },
            simulated_windows: 2,
            pso: PsoSettings { iterations: 20, swarm_size: 8, seed: 3, ..PsoSettings::default() },
            parameters: ParameterSpace {
                parameters: vec![
                    ParameterRange::new("stiffness", "1/s^2", 2.0, 30.0, 10.0),
                    ParameterRange::new("damping", "1/s", 0.3, 5.0, 1.0),
                    ParameterRange::new("noise", "m/s^1.5", 0.01, 0.2, 0.05),
                ],
            },
            occupancy: OccupancyObjective { weight: 1.0, grid: GridSpec { nx: 30, ny: 30, side: 0.6 } },
        };
        JobSettings { calibration, ..JobSettings::default() }
    }

    /// The candidate that puts the particles where the recording has them wins, whichever
    /// place it has in the list; the pilots cost one iteration each.
    #[test]
    fn the_pilot_chooses_the_candidate_that_fits_the_recording() {
        let ou = OrnsteinUhlenbeck { particles: 24, substeps: 2, ..OrnsteinUhlenbeck::default() };
        let recording = WellAt(ou.clone(), 0.1).simulate(&[16.0, 2.0, 0.08], 3000, 999).unwrap().to_recording();
        let settings = settings();
        let right = (FlowInversion::Relative, WellAt(ou.clone(), 0.1));
        let wrong = (FlowInversion::Whole, WellAt(ou.clone(), -0.1));
        let choice = choose_inversion(&[wrong.clone(), right.clone()], std::slice::from_ref(&recording), &settings).unwrap();
        assert_eq!(choice.chosen, FlowInversion::Relative, "{choice:?}");
        assert_eq!(choice.evaluations, 16);
        assert!(choice.pilots[0].best_fitness > 2.0 * choice.pilots[1].best_fitness, "{choice:?}");
        let swapped = [(FlowInversion::Whole, right.1), (FlowInversion::Relative, wrong.1)];
        let choice = choose_inversion(&swapped, std::slice::from_ref(&recording), &settings).unwrap();
        assert_eq!(choice.chosen, FlowInversion::Whole, "{choice:?}");
        assert!(choose_inversion::<WellAt>(&[], &[recording], &settings).unwrap_err().to_string().contains("no flow-field candidate"));
    }

    /// The estimated field covers the world's own tank, whatever its size (a 0.9 m tank:
    /// a 0.9 m grid, balls near its wall inside it), and the simulator loads it.
    #[test]
    fn the_estimated_field_covers_the_worlds_tank() {
        let mut world = tank_physics::WorldConfig::default().with_modules(flotilla_common::catalogue::ModuleKind::PingPongBall, 4, "ball");
        world.arena.diameter = 0.9;
        let base = TankSimulator { warmup: 0.5, ..TankSimulator::new(world, &crate::tank::hydro_parameter_space()).unwrap() };
        let recording = base.record(&[1.2, 1.5, 50.0, 0.3, 0.3], 161, 3).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let flow = estimate_flow(&base, &[recording], &JobSettings::default(), &[FlowInversion::Whole], dir.path()).unwrap();
        assert!(flow.choice.is_none());
        let extent = flotilla_common::flow_field::FlowGrid::read_csv(&flow.file).unwrap().extent();
        assert_eq!((extent.x_min, extent.x_max, extent.y_max), (-0.45, 0.45, 0.45));
        assert_eq!(flow.simulator.world.flow.file.as_ref(), Some(&flow.file));
        assert!(flow.simulator.simulate(&[1.2, 1.5, 50.0, 0.3, 0.3], 10, 1).is_ok());
    }

    #[test]
    fn the_estimation_follows_the_jobs_flow_estimation_settings() {
        let world = tank_physics::WorldConfig::default().with_modules(flotilla_common::catalogue::ModuleKind::PingPongBall, 4, "ball");
        let base = TankSimulator { warmup: 0.5, ..TankSimulator::new(world, &crate::tank::hydro_parameter_space()).unwrap() };
        let recording = base.record(&[1.2, 1.5, 50.0, 0.3, 0.3], 161, 3).unwrap();
        let coverage = |cells: usize, min_measured_samples: usize| {
            let mut settings = JobSettings::default();
            settings.flow_estimation.cells = cells;
            settings.flow_estimation.min_measured_samples = min_measured_samples;
            let dir = tempfile::tempdir().unwrap();
            estimate_flow(&base, std::slice::from_ref(&recording), &settings, &[FlowInversion::Whole], dir.path()).unwrap().coverage
        };
        let (coarse, strict) = (coverage(20, 20), coverage(20, 60));
        assert_eq!(coarse.measured + coarse.sparse + coarse.unvisited + coarse.outside, 400);
        assert!(strict.measured < coarse.measured, "{strict:?} vs {coarse:?}");
        assert_eq!(strict.measured + strict.sparse, coarse.measured + coarse.sparse);
    }
}
