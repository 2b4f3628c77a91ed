//! The tank physics (`tank_physics::World`) as the calibration's simulator: every
//! evaluation builds a fresh world in-process from a base configuration with the
//! calibrated hydrodynamic parameters, warms it up and records the bodies' positions.

use std::path::Path;

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::params::{load_file, NodeIdentity};
use flotilla_common::trajectory::{TrajectoryRecording, TrajectorySample};
use nalgebra::Vector2;
use serde_yaml::{Mapping, Value};
use tank_physics::{World, WorldConfig};

use crate::flow_estimation::DragModel;
use crate::kinematics::RegularTracks;
use crate::parameters::{ParameterRange, ParameterSpace};
use crate::simulator::Simulator;
use crate::CalibrationError;

/// The five free parameters of the hydrodynamic model (SPEC 1), named as the physics
/// node's parameters. Bounds contain both published calibrations and stay inside the
/// physics' stable ranges; the start is neutral scales, no stochastic force and the
/// simulator default damping of 0.5.
pub fn hydro_parameter_space() -> ParameterSpace {
    ParameterSpace {
        parameters: vec![
            ParameterRange::new("hydro.kv", "1", 0.5, 2.0, 1.0),
            ParameterRange::new("hydro.kf", "1", 0.1, 4.0, 1.0),
            ParameterRange::new("hydro.sigma_stoch", "1e-4 N", 0.0, 400.0, 0.0),
            ParameterRange::new("hydro.d_linear", "1/s", 0.0, 0.9, 0.5),
            ParameterRange::new("hydro.d_angular", "1/s", 0.0, 0.9, 0.5),
        ],
    }
}

/// The optional sixth parameter (issue #19 item 4): the correlation time of the flow's
/// per-cell fluctuation along a ball's path, 0-2 s, starting white (0, the SPEC's model).
/// Add it to a job's `parameters` to calibrate it.
pub fn flow_correlation_time_range() -> ParameterRange {
    ParameterRange::new("hydro.flow_correlation_time", "s", 0.0, 2.0, 0.0)
}

/// [`hydro_parameter_space`] plus [`flow_correlation_time_range`].
pub fn hydro_parameter_space_with_flow_correlation() -> ParameterSpace {
    let mut space = hydro_parameter_space();
    space.parameters.push(flow_correlation_time_range());
    space
}

/// Most ping-pong balls of the default world (count), for the CLI and the node alike: each
/// is simulated in every evaluation, so more only multiplies the run time and memory.
pub const MAX_BALLS: usize = 1000;

/// Longest simulated recording (`record --seconds`), s: one hour, six times the default.
pub const MAX_RECORD_SECONDS: f64 = 3600.0;

/// Longest warm-up before each simulation records (`--warmup`, the node's `warmup`), s:
/// every evaluation simulates it, and a run cannot be cancelled inside an evaluation.
pub const MAX_WARMUP_SECONDS: f64 = 3600.0;

/// The world to calibrate and the parameter tree it came from: the `node` section of a
/// physics parameter file, or (without a file) the default Lily tank with `balls`
/// ping-pong balls and an empty tree.
pub fn load_world(path: Option<&Path>, node: &str, balls: usize) -> Result<(WorldConfig, Mapping), CalibrationError> {
    let Some(path) = path else {
        if !(1..=MAX_BALLS).contains(&balls) {
            return Err(CalibrationError::Setting(format!("balls must be in 1..={MAX_BALLS}, got {balls}")));
        }
        return Ok((WorldConfig::default().with_modules(ModuleKind::PingPongBall, balls, "ball"), Mapping::new()));
    };
    let tree = load_file(path, &NodeIdentity::new(node, "/")).map_err(|e| CalibrationError::Setting(e.to_string()))?;
    let config = WorldConfig::from_params(&Value::Mapping(tree.clone()))
        .map_err(|e| CalibrationError::Setting(format!("world {}: {e}", path.display())))?;
    if config.modules.is_empty() {
        let sections = flotilla_common::params::section_names(path).unwrap_or_default();
        let hint = if sections.iter().any(|s| s == node || s.contains('*')) {
            String::new()
        } else {
            format!(" (it has no section for node `{node}`; its sections: {})", sections.join(", "))
        };
        return Err(CalibrationError::Setting(format!("world {} has no modules to track{hint}", path.display())));
    }
    Ok((config, tree))
}

/// One calibratable field of `tank_physics::HydroParams`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HydroParameter {
    /// `hydro.kv`: flow velocity scale Kv (dimensionless).
    Kv,
    /// `hydro.kf`: drag force scale KF (dimensionless).
    Kf,
    /// `hydro.sigma_stoch`: stochastic force deviation (1e-4 N).
    SigmaStoch,
    /// `hydro.d_linear`: fraction of linear velocity removed per second (1/s).
    DLinear,
    /// `hydro.d_angular`: fraction of angular velocity removed per second (1/s).
    DAngular,
    /// `hydro.flow_correlation_time`: correlation time of the flow fluctuation along a
    /// body's path (s); optional, not in the default space.
    FlowCorrelationTime,
}

impl HydroParameter {
    const ALL: [HydroParameter; 6] = [Self::Kv, Self::Kf, Self::SigmaStoch, Self::DLinear, Self::DAngular, Self::FlowCorrelationTime];

    /// The physics node's parameter name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Kv => "hydro.kv",
            Self::Kf => "hydro.kf",
            Self::SigmaStoch => "hydro.sigma_stoch",
            Self::DLinear => "hydro.d_linear",
            Self::DAngular => "hydro.d_angular",
            Self::FlowCorrelationTime => "hydro.flow_correlation_time",
        }
    }

    /// The parameter called `name`, or an error listing the calibratable ones.
    pub fn from_name(name: &str) -> Result<Self, CalibrationError> {
        Self::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Self::ALL.iter().map(|p| p.name()).collect();
            CalibrationError::Setting(format!("`{name}` is not a calibratable tank parameter (known: {})", known.join(", ")))
        })
    }

    fn set(self, config: &mut WorldConfig, value: f64) {
        let hydro = &mut config.hydro;
        match self {
            Self::Kv => hydro.kv = value,
            Self::Kf => hydro.kf = value,
            Self::SigmaStoch => hydro.sigma_stoch = value,
            Self::DLinear => hydro.d_linear = value,
            Self::DAngular => hydro.d_angular = value,
            Self::FlowCorrelationTime => hydro.flow_correlation_time = value,
        }
    }
}

/// The tank physics, simulated in-process.
#[derive(Clone, Debug)]
pub struct TankSimulator {
    /// The world every evaluation starts from: arena, pumps, flow field, modules.
    pub world: WorldConfig,
    /// The calibrated parameters, in the order `simulate` takes them.
    pub parameters: Vec<HydroParameter>,
    /// Simulated time before recording starts, so the random start positions and zero
    /// velocities are forgotten (s; default 10).
    pub warmup: f64,
    /// Physics steps per output frame (dimensionless; default 1, frames at the physics
    /// step).
    pub steps_per_frame: usize,
}

impl TankSimulator {
    /// A simulator of `world` calibrating the parameters of `space` (names must be
    /// calibratable tank parameters).
    pub fn new(world: WorldConfig, space: &ParameterSpace) -> Result<Self, CalibrationError> {
        let parameters = space.parameters.iter().map(|p| HydroParameter::from_name(&p.name)).collect::<Result<_, _>>()?;
        Ok(Self { world, parameters, warmup: 10.0, steps_per_frame: 1 })
    }

    /// The base world with `values` applied.
    pub fn configured(&self, values: &[f64]) -> Result<WorldConfig, CalibrationError> {
        if values.len() != self.parameters.len() {
            return Err(CalibrationError::Setting(format!(
                "the tank simulator takes {} parameters, got {}",
                self.parameters.len(),
                values.len()
            )));
        }
        let mut config = self.world.clone();
        for (parameter, value) in self.parameters.iter().zip(values) {
            parameter.set(&mut config, *value);
        }
        Ok(config)
    }

    /// Builds and warms up a world with `values` and `seed`.
    fn warmed_up(&self, values: &[f64], seed: u64) -> Result<World, CalibrationError> {
        let config = self.configured(values)?;
        let warmup_steps = (self.warmup / config.dt).round() as usize;
        let mut world = World::new(config, seed).map_err(|e| CalibrationError::Simulation(e.to_string()))?;
        for _ in 0..warmup_steps {
            world.step();
        }
        Ok(world)
    }

    /// Records `frames` frames of every body as a trajectory recording (headings
    /// included), e.g. to make a synthetic "real" recording.
    pub fn record(&self, values: &[f64], frames: usize, seed: u64) -> Result<TrajectoryRecording, CalibrationError> {
        let mut world = self.warmed_up(values, seed)?;
        let dt = self.frame_interval();
        let mut recording = TrajectoryRecording::default();
        for frame in 0..frames {
            if frame > 0 {
                self.advance(&mut world);
            }
            for body in world.bodies() {
                let p = body.pose.translation.vector;
                recording.samples.push(TrajectorySample::new(frame as u64, frame as f64 * dt, body.id, p.x, p.y, body.heading()));
            }
        }
        Ok(recording)
    }

    /// The drag model of the calibration objects of the base world (its first module
    /// group), for estimating the flow field from its recordings.
    pub fn drag_model(&self) -> Option<DragModel> {
        let group = self.world.modules.first()?;
        Some(DragModel::of_module(group.kind.spec(), self.world.hydro.water_density))
    }

    fn advance(&self, world: &mut World) {
        for _ in 0..self.steps_per_frame.max(1) {
            world.step();
        }
    }
}

impl Simulator for TankSimulator {
    fn parameter_names(&self) -> Vec<String> {
        self.parameters.iter().map(|p| p.name().to_owned()).collect()
    }

    fn frame_interval(&self) -> f64 {
        self.world.dt * self.steps_per_frame.max(1) as f64
    }

    fn simulate(&self, parameters: &[f64], frames: usize, seed: u64) -> Result<RegularTracks, CalibrationError> {
        let mut world = self.warmed_up(parameters, seed)?;
        let mut tracks: Vec<Vec<Option<Vector2<f64>>>> = vec![Vec::with_capacity(frames); world.body_count()];
        for frame in 0..frames {
            if frame > 0 {
                self.advance(&mut world);
            }
            for (track, body) in tracks.iter_mut().zip(world.bodies()) {
                let p = body.pose.translation.vector;
                // A body thrown out of the tank (an unstable parameter set) counts as lost.
                track.push((p.x.is_finite() && p.y.is_finite()).then(|| Vector2::new(p.x, p.y)));
            }
        }
        Ok(RegularTracks { dt: self.frame_interval(), tracks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_common::catalogue::ModuleKind;

    fn simulator(balls: usize) -> TankSimulator {
        let world = WorldConfig::default().with_modules(ModuleKind::PingPongBall, balls, "ball");
        TankSimulator { warmup: 0.5, ..TankSimulator::new(world, &hydro_parameter_space()).unwrap() }
    }

    #[test]
    fn parameters_reach_the_world_config() {
        let sim = simulator(1);
        let config = sim.configured(&[1.1, 2.2, 3.3, 0.4, 0.5]).unwrap();
        let h = &config.hydro;
        assert_eq!((h.kv, h.kf, h.sigma_stoch, h.d_linear, h.d_angular), (1.1, 2.2, 3.3, 0.4, 0.5));
        assert!(sim.configured(&[1.0]).is_err());
        let e = HydroParameter::from_name("hydro.kx").unwrap_err();
        assert!(e.to_string().contains("hydro.kv"), "{e}");
    }

    /// The optional sixth parameter reaches the world, loads from a parameter file and is
    /// range-checked there; 0 is the five-parameter model bit for bit, > 0 changes the run.
    #[test]
    fn flow_correlation_time_is_optional_and_zero_is_the_white_model() {
        let world = WorldConfig::default().with_modules(ModuleKind::PingPongBall, 4, "ball");
        let five = TankSimulator { warmup: 0.5, ..TankSimulator::new(world.clone(), &hydro_parameter_space()).unwrap() };
        let six = TankSimulator { warmup: 0.5, ..TankSimulator::new(world, &hydro_parameter_space_with_flow_correlation()).unwrap() };
        assert_eq!(six.configured(&[1.0, 1.0, 0.0, 0.5, 0.5, 0.7]).unwrap().hydro.flow_correlation_time, 0.7);
        let p = [1.3, 1.8, 120.0, 0.3, 0.25];
        let white = five.simulate(&p, 40, 3).unwrap();
        assert_eq!(six.simulate(&[p.as_slice(), &[0.0]].concat(), 40, 3).unwrap(), white);
        assert_ne!(six.simulate(&[p.as_slice(), &[0.8]].concat(), 40, 3).unwrap(), white);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.yaml");
        let file = |t: &str| {
            format!("tank_physics:\n  ros__parameters:\n    hydro: {{flow_correlation_time: {t}}}\n    modules:\n      ball: {{kind: ping_pong_ball, count: 3}}\n")
        };
        std::fs::write(&path, file("0.5")).unwrap();
        assert_eq!(load_world(Some(&path), "tank_physics", 24).unwrap().0.hydro.flow_correlation_time, 0.5);
        std::fs::write(&path, file("-1")).unwrap();
        let e = load_world(Some(&path), "tank_physics", 24).unwrap_err().to_string();
        assert!(e.contains("hydro.flow_correlation_time"), "{e}");
    }

    #[test]
    fn worlds_load_from_parameter_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.yaml");
        std::fs::write(
            &path,
            "tank_physics:\n  ros__parameters:\n    hydro: {kv: 1.5}\n    modules:\n      ball: {kind: ping_pong_ball, count: 3}\n",
        )
        .unwrap();
        let (config, tree) = load_world(Some(&path), "tank_physics", 24).unwrap();
        assert_eq!((config.hydro.kv, config.modules[0].count), (1.5, 3));
        assert!(tree.contains_key("modules"));
        std::fs::write(&path, "tank_physics:\n  ros__parameters:\n    hydro: {kv: 1.5}\n").unwrap();
        assert!(load_world(Some(&path), "tank_physics", 24).unwrap_err().to_string().contains("no modules"));
        std::fs::write(
            &path,
            "tank_physics:\n  ros__parameters:\n    hydro: {kv: fast}\n    modules:\n      ball: {kind: ping_pong_ball, count: 3}\n",
        )
        .unwrap();
        assert!(load_world(Some(&path), "tank_physics", 24).unwrap_err().to_string().contains("hydro.kv"));
        let (config, tree) = load_world(None, "tank_physics", 5).unwrap();
        assert_eq!((config.modules[0].count, tree.len()), (5, 0));
    }

    #[test]
    fn simulation_is_seeded_and_records_every_ball() {
        let sim = simulator(3);
        let values = hydro_parameter_space().initial();
        let a = sim.simulate(&values, 20, 4).unwrap();
        assert_eq!(a.tracks.len(), 3);
        assert_eq!(a.frames(), 20);
        assert!((a.dt - 0.025).abs() < 1e-15);
        assert_eq!(a, sim.simulate(&values, 20, 4).unwrap());
        assert_ne!(a, sim.simulate(&values, 20, 5).unwrap());
        let rec = sim.record(&values, 5, 4).unwrap();
        assert_eq!(rec.samples.len(), 15);
        // The recording and the tracks agree on positions.
        assert_eq!(rec.tracks()[1].positions[4], a.tracks[1][4].unwrap());
    }
}
