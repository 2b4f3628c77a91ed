//! What an in-process run is made of.

use flotilla_common::catalogue::ModuleKind;
use flotilla_contract::FrameError;
use robot_controller::firmware::ControllerError;
use robot_controller::lily::Ruleset;
use robot_controller::station::{PumpSchedule, StationError};
use std::sync::Arc;
use tank_physics::robots::RobotError;
use tank_physics::robots::{SensingConfig, SensingError};
use tank_physics::{ConfigError, HydroParams, PhysicsError, WorldConfig};

/// A base-station broadcast at a given time.
#[derive(Clone, Debug, PartialEq)]
pub struct Broadcast {
    /// Sim time, s.
    pub at: f64,
    /// Command text (a radio rule of the ruleset).
    pub command: String,
}

/// One self-assembly experiment.
#[derive(Clone, Debug)]
pub struct TankExperiment {
    /// Name in tables and plots.
    pub label: String,
    /// The world: arena, pumps, hydrodynamics, modules.
    pub world: WorldConfig,
    /// Ruleset of every Lily.
    pub ruleset: Arc<Ruleset>,
    /// Light, target and contact sensing.
    pub sensing: SensingConfig,
    /// Firmware period, s (a whole number of physics steps).
    pub control_period: f64,
    /// Length of the run, s of sim time.
    pub duration: f64,
    /// Interval between kept metric snapshots, s.
    pub sample_period: f64,
    /// Pump power over time.
    pub stirring: PumpSchedule,
    /// Base-station broadcasts, in time order.
    pub broadcasts: Vec<Broadcast>,
}

/// Why a run could not be made or went wrong.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The world refused its configuration, a spawn or a command.
    #[error(transparent)]
    Physics(#[from] PhysicsError),
    /// A live world change (pumps) was refused.
    #[error(transparent)]
    WorldConfig(#[from] ConfigError),
    /// A controller could not be built or run.
    #[error(transparent)]
    Controller(#[from] ControllerError),
    /// A firmware's command does not fit the world (or names a robot it lacks).
    #[error(transparent)]
    Robot(#[from] RobotError),
    /// Radio bytes that cannot be delivered.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The sensing configuration is invalid.
    #[error(transparent)]
    Sensing(#[from] SensingError),
    /// The base station refused a command or the pump schedule is invalid.
    #[error(transparent)]
    Station(#[from] StationError),
    /// An experiment value is out of range.
    #[error("experiment `{label}`: {key}: {message}")]
    Invalid {
        /// The experiment.
        label: String,
        /// The key at fault.
        key: String,
        /// What is wrong.
        message: String,
    },
}

impl TankExperiment {
    /// `lilies` Lilies in the round Lily tank (level -8 cm, the published Lily calibration)
    /// with all pumps at `power` %, controlled at 10 Hz for 600 s, a snapshot every 5 s.
    pub fn lily_tank(ruleset: Arc<Ruleset>, lilies: usize, power: f64) -> Self {
        let mut world = WorldConfig::default().with_modules(ModuleKind::Lily, lilies, "lily").with_pump_power(power);
        world.hydro = HydroParams::lily_published();
        Self {
            label: format!("{} @ {power} %", ruleset.name),
            world,
            ruleset,
            sensing: SensingConfig::default(),
            control_period: 0.1,
            duration: 600.0,
            sample_period: 5.0,
            stirring: PumpSchedule::default(),
            broadcasts: Vec::new(),
        }
    }

    /// Physics steps per control period; checks the periods and schedules.
    pub fn validate(&self) -> Result<usize, BatchError> {
        let invalid = |key: &str, message: String| BatchError::Invalid { label: self.label.clone(), key: key.to_owned(), message };
        let dt = self.world.dt;
        let steps = (self.control_period / dt).round();
        if !(self.control_period.is_finite() && steps >= 1.0 && (steps * dt - self.control_period).abs() < 1e-9) {
            return Err(invalid(
                "control_period",
                format!("must be a whole number (>= 1) of physics steps of {dt} s, got {} s", self.control_period),
            ));
        }
        if !(self.duration.is_finite() && self.duration >= 0.0) {
            return Err(invalid("duration", format!("must be finite and >= 0 s, got {}", self.duration)));
        }
        if !(self.sample_period.is_finite() && self.sample_period > 0.0) {
            return Err(invalid("sample_period", format!("must be > 0 s, got {}", self.sample_period)));
        }
        if let Some(pair) = self.broadcasts.windows(2).find(|w| w[1].at < w[0].at) {
            return Err(invalid("broadcasts", format!("must be in time order ({} s after {} s)", pair[1].at, pair[0].at)));
        }
        self.sensing.validate()?;
        self.stirring.validate()?;
        Ok(steps as usize)
    }
}
