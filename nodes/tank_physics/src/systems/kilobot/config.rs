//! The table's parameters, in world units (one Kilobot diameter, 32.5 mm) and steps (one
//! step = the time a robot at nominal speed takes to move [`TableConfig::speed`]; 32.5 ms
//! at the Kilobot's 1 cm/s). Defaults are the study's (SPEC 4).

use serde::{Deserialize, Serialize};

/// One world unit (a Kilobot diameter), m.
pub const WORLD_UNIT_M: f64 = 0.0325;

/// A table with walls, or none.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// Lower-left corner (x, y) of the table top, world units.
    pub min: [f64; 2],
    /// Upper-right corner (x, y), world units.
    pub max: [f64; 2],
}

/// Error added to every distance a robot measures from a message.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DistanceError {
    /// Exact distances.
    None,
    /// Uniform in [-half_width, half_width], world units (the study: 0.0615 = 2 mm).
    Uniform {
        /// Half width, world units.
        half_width: f64,
    },
    /// Gaussian N(0, sigma^2), world units (the study's alternative: sigma = half width / 3).
    Gaussian {
        /// Standard deviation, world units.
        sigma: f64,
    },
}

/// The infrared channel. With `capacity` set, transmissions share the medium: each robot
/// with a message tries to send with probability `tx_rate * step_duration` per step; a
/// try succeeds with probability `min(1, capacity * step_duration / m)`, `m` the robots
/// trying within `range` of the sender (itself included): carrier sensing shares the
/// capacity of each neighbourhood, the rest back off or collide and are lost. A success
/// reaches every robot within `range`, each losing it independently with `loss`. Without
/// `capacity`, every message reaches every robot in range every step (the study's function
/// calls).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChannelConfig {
    /// Communication range, centre to centre, world units (the study: NEIGHBOR_RADIUS 4.845).
    pub range: f64,
    /// Error on measured distances.
    pub distance_error: DistanceError,
    /// Probability that a receiver misses a transmission it could hear, 0..1.
    pub loss: f64,
    /// Packets per second one neighbourhood carries (hardware: ~240 five-byte packets/s in
    /// a 25-robot group); `None`: no shared-channel limit.
    pub capacity: Option<f64>,
    /// Transmission attempts per robot, Hz (used with `capacity`; 240 / 25 = 9.6 Hz
    /// saturates a 25-robot group as on hardware).
    pub tx_rate: f64,
}

impl Default for ChannelConfig {
    fn default() -> Self {
        Self { range: 4.845, distance_error: DistanceError::Uniform { half_width: 0.0615 }, loss: 0.0, capacity: None, tx_rate: 9.6 }
    }
}

impl ChannelConfig {
    /// The hardware-calibrated shared channel (240 packets/s per neighbourhood, 9.6 Hz
    /// attempts per robot), other fields unchanged.
    pub fn shared(self) -> Self {
        Self { capacity: Some(240.0), tx_rate: 9.6, ..self }
    }
}

/// Collision avoidance as the real robots do it: a moving robot stops for the step when
/// another moving robot is ahead of it (within `cone` of its heading) closer than
/// `yield_distance`; of two robots each ahead of the other, the one that has been moving
/// longer goes (the one ahead in the queue; of two that started in the same step, the lower
/// index).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Avoidance {
    /// Centre-to-centre distance below which it yields, world units.
    pub yield_distance: f64,
    /// Half angle of the cone counted as ahead, rad.
    pub cone: f64,
}

impl Default for Avoidance {
    fn default() -> Self {
        Self { yield_distance: 1.5, cone: std::f64::consts::FRAC_PI_3 }
    }
}

/// Permanent motor failures (the study's rare event).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Failures {
    /// Steps between draws (the study: 500, and 1500 in its breakdown runs).
    pub interval: u64,
    /// A robot's motors fail for good when a U(0,1) draw exceeds it (the study: 0.95).
    pub threshold: f64,
}

impl Default for Failures {
    fn default() -> Self {
        Self { interval: 500, threshold: 0.95 }
    }
}

/// Everything about the table and the robots' bodies.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TableConfig {
    /// Walls, or an unbounded table.
    pub bounds: Option<Bounds>,
    /// Distance moved per step at nominal speed, world units (the study's SPEED 0.01).
    pub speed: f64,
    /// Heading change of a turning step, rad. Default 10 deg: the study's 45 deg per step
    /// leaves a robot that starts between two equidistant neighbours spinning in place (no
    /// heading increases its distance to both), the hardware's 45 deg/s (1.46 deg per step)
    /// turns too wide to follow the group's corners (docs/kilobot.md, turn-angle sweep).
    pub turn_angle: f64,
    /// Distance a turning step still moves forward, as a fraction of `speed` (the study: 1,
    /// the Kilobot is not holonomic).
    pub turn_drift: f64,
    /// Mean of the per-robot speed factor (the study: 1).
    pub speed_factor_mean: f64,
    /// Standard deviation of the per-robot speed factor (the study: 0.1; 0 = all equal).
    pub speed_factor_std: f64,
    /// Collision avoidance; `None`: robots drive into each other (and are pushed apart).
    pub avoidance: Option<Avoidance>,
    /// Motor failures; `None`: motors never fail.
    pub failures: Option<Failures>,
    /// The infrared channel.
    pub channel: ChannelConfig,
    /// Duration of one step, s (32.5 ms: 0.01 world units at 1 cm/s).
    pub step_duration: f64,
    /// Ambient light every robot reads, 0..1.
    pub ambient_light: f64,
    /// Overlap resolution passes per step.
    pub overlap_passes: usize,
    /// Share of an overlap a robot at rest takes when a moving robot runs into it, 0..1
    /// (0: immovable; 0.5: equal masses). Anchored robots never move.
    pub push_share: f64,
}

impl Default for TableConfig {
    fn default() -> Self {
        Self {
            bounds: None,
            speed: 0.01,
            turn_angle: 10.0 * std::f64::consts::PI / 180.0,
            turn_drift: 1.0,
            speed_factor_mean: 1.0,
            speed_factor_std: 0.0,
            avoidance: Some(Avoidance::default()),
            failures: None,
            channel: ChannelConfig::default(),
            step_duration: 0.0325,
            ambient_light: 0.5,
            overlap_passes: 4,
            push_share: 0.0,
        }
    }
}

/// Longest distance a robot may move in one step, world units (half a body).
pub const MAX_STEP_LENGTH: f64 = 0.5;

/// `value` as an error shows it: plain between 1e-4 and 1e6, in exponent form beyond
/// (1e308 is not 309 digits).
fn compact(value: f64) -> String {
    if (1e-4..1e6).contains(&value.abs()) || value == 0.0 || !value.is_finite() {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// A table parameter out of range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TableError {
    /// A parameter is not usable.
    #[error("kilobot table: {field} = {} {rule}", compact(*value))]
    Parameter {
        /// The parameter.
        field: &'static str,
        /// Its value.
        value: f64,
        /// What it must be.
        rule: &'static str,
    },
    /// A robot's pose is not finite or lies outside the walls.
    #[error("kilobot table: robot {index} at ({x}, {y}) is {reason}")]
    Pose {
        /// Robot index.
        index: usize,
        /// x, world units.
        x: f64,
        /// y, world units.
        y: f64,
        /// What is wrong.
        reason: &'static str,
    },
}

impl TableConfig {
    /// Checks every parameter's range.
    pub fn validate(&self) -> Result<(), TableError> {
        let check = |field: &'static str, value: f64, ok: bool, rule: &'static str| {
            if ok && value.is_finite() {
                Ok(())
            } else {
                Err(TableError::Parameter { field, value, rule })
            }
        };
        check("speed", self.speed, self.speed > 0.0, "must be > 0")?;
        check(
            "turn_angle",
            self.turn_angle,
            (0.0..=std::f64::consts::PI).contains(&self.turn_angle),
            "must be in [0, pi] rad (0-180 deg a step)",
        )?;
        check("turn_drift", self.turn_drift, self.turn_drift >= 0.0, "must be >= 0")?;
        check("speed_factor_std", self.speed_factor_std, self.speed_factor_std >= 0.0, "must be >= 0")?;
        check("speed_factor_mean", self.speed_factor_mean, self.speed_factor_mean >= 0.0, "must be >= 0")?;
        check("step_duration", self.step_duration, self.step_duration > 0.0, "must be > 0")?;
        // Overlaps are resolved after the step and avoidance looks 1.5 diameters ahead: a
        // robot moving more than half its body a step jumps through others (a speed factor
        // std of 1e308 sent robots to infinity and hung the experiment's plots).
        let longest = self.speed * self.turn_drift.max(1.0) * (self.speed_factor_mean + 6.0 * self.speed_factor_std);
        check(
            "step_length",
            longest,
            longest <= MAX_STEP_LENGTH,
            "(speed x max(1, turn_drift) x (speed_factor_mean + 6 speed_factor_std), world units) must be at most 0.5: a robot moving more than half its body a step jumps through others",
        )?;
        check("push_share", self.push_share, (0.0..=1.0).contains(&self.push_share), "must be in [0, 1]")?;
        check("channel.range", self.channel.range, self.channel.range > 0.0, "must be > 0")?;
        check("channel.loss", self.channel.loss, (0.0..=1.0).contains(&self.channel.loss), "must be in [0, 1]")?;
        check("channel.tx_rate", self.channel.tx_rate, self.channel.tx_rate > 0.0, "must be > 0")?;
        if let Some(c) = self.channel.capacity {
            check("channel.capacity", c, c > 0.0, "must be > 0")?;
        }
        match self.channel.distance_error {
            DistanceError::None => {}
            DistanceError::Uniform { half_width } => check("distance_error.half_width", half_width, half_width >= 0.0, "must be >= 0")?,
            DistanceError::Gaussian { sigma } => check("distance_error.sigma", sigma, sigma >= 0.0, "must be >= 0")?,
        }
        if let Some(a) = self.avoidance {
            check("avoidance.yield_distance", a.yield_distance, a.yield_distance > 0.0, "must be > 0")?;
            check("avoidance.cone", a.cone, (0.0..=std::f64::consts::PI).contains(&a.cone), "must be in [0, pi]")?;
        }
        if let Some(f) = self.failures {
            check("failures.interval", f.interval as f64, f.interval > 0, "must be > 0")?;
            check("failures.threshold", f.threshold, (0.0..=1.0).contains(&f.threshold), "must be in [0, 1]")?;
        }
        if let Some(b) = self.bounds {
            check("bounds", b.max[0] - b.min[0], b.max[0] - b.min[0] > 1.0 && b.max[1] - b.min[1] > 1.0, "must be wider than a robot")?;
        }
        Ok(())
    }
}
