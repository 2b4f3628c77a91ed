//! Time control of the simulator's nodes (`run.*` of `tank_physics` and `kilobot_table`):
//! pacing against the wall clock, a sim-time limit, lock step with the controllers.

use flotilla_common::duration::Span;
use flotilla_common::param_spec::ParamSpec;
use flotilla_common::params::ParamError;
use serde::Deserialize;
use std::time::Duration;

/// Sim seconds per wall second: 0 (as fast as possible) or 1/1000 to 1000.
pub const REAL_TIME_FACTOR: Span = Span::new(1e-3, 1e3).or_zero();

/// Longest wait for the robots' commands in lock step, s of wall time.
const LOCKSTEP_TIMEOUT: Span = Span::new(1e-3, 3600.0);

/// Periods a topic rate may have, s of sim time (a rate of 1/3600 to 1e6 Hz).
const RATE_PERIOD: Span = Span::new(1e-6, 3600.0);

/// `run.*` ([`RunSettings`]) for ROS 2 tools, in every simulator node's parameter table:
/// read at start-up.
pub const RUN_PARAMS: &[ParamSpec] = &[
    ParamSpec::double("run.real_time_factor", 1.0, "Sim seconds per wall second: 0 (as fast as possible) or 0.001 to 1000, x")
        .range(0.0, REAL_TIME_FACTOR.max),
    ParamSpec::double("run.max_sim_time", 0.0, "Stop (exit 0, with a summary) after this many sim seconds, s; 0 = run until shut down")
        .range(0.0, Span::NON_NEGATIVE.max),
    ParamSpec::boolean(
        "run.lockstep",
        false,
        "Lock step: wait for every robot's command stamped with each reading's time before stepping on",
    ),
    ParamSpec::double("run.lockstep_timeout", 5.0, "Longest wait for the robots' commands in lock step, s of wall time")
        .range(LOCKSTEP_TIMEOUT.min, LOCKSTEP_TIMEOUT.max),
    ParamSpec::boolean("run.start_paused", false, "Start paused until /tank/pause false"),
];

/// The parameter-table entry of topic rate `name` (Hz of sim time, read at start-up): the
/// range [`check_rate`] accepts.
pub const fn rate_param(name: &'static str, default: f64, description: &'static str) -> ParamSpec {
    ParamSpec::double(name, default, description).range(1.0 / RATE_PERIOD.max, 1.0 / RATE_PERIOD.min)
}

/// Time control.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSettings {
    /// Sim seconds per wall second; 0 = as fast as possible. Default 1 (real time).
    pub real_time_factor: f64,
    /// Stop (exit 0, with a summary) after this many sim seconds; 0 = run until shut down.
    pub max_sim_time: f64,
    /// Lock step: after each sensor publication wait for every robot's command stamped with
    /// that reading's time before stepping on (deterministic runs with the controllers).
    /// Default false.
    pub lockstep: bool,
    /// Longest wait for the robots' commands in lock step, s of wall time; then the world
    /// steps on without them (logged). Default 5.
    pub lockstep_timeout: f64,
    /// Start paused: nothing moves until `/tank/pause` false, so that subscribers can
    /// connect first. Default false.
    pub start_paused: bool,
}

impl Default for RunSettings {
    fn default() -> Self {
        Self { real_time_factor: 1.0, max_sim_time: 0.0, lockstep: false, lockstep_timeout: 5.0, start_paused: false }
    }
}

impl RunSettings {
    /// Checks every value (errors name `run.<key>`) and returns the lock-step timeout.
    pub fn check(&self) -> Result<Duration, ParamError> {
        // 0 = as fast as possible; a tiny factor would make every wall-clock wait endless.
        REAL_TIME_FACTOR.check(self.real_time_factor, "x").map_err(|e| e.at("run.real_time_factor"))?;
        Span::NON_NEGATIVE.check(self.max_sim_time, "s").map_err(|e| e.at("run.max_sim_time"))?;
        LOCKSTEP_TIMEOUT.seconds(self.lockstep_timeout).map_err(|e| e.at("run.lockstep_timeout"))
    }
}

/// Checks a topic rate (Hz of sim time); an error names `key`.
pub fn check_rate(key: &str, rate: f64) -> Result<(), ParamError> {
    RATE_PERIOD.period_of_rate(rate).map(|_| ()).map_err(|e| e.at(key))
}
