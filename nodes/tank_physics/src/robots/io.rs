//! The hardware contract of one robot: what its sensors report and what its firmware asks
//! of its actuators. Field for field the `flotilla_msgs/RobotSensors` and
//! `flotilla_msgs/RobotCommand` messages, so the ROS node converts one to the other
//! without logic.

use super::channel::{decode, Frame, FrameError};
use crate::Command;
use serde::{Deserialize, Serialize};

/// One reading of a robot's own sensors (`<ns>/sensors`). Arrays are indexed by face in
/// catalogue order and are empty when the robot lacks that sensor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sensors {
    /// Time of the reading (sim time), s.
    pub stamp: f64,
    /// Per face: latched to a neighbour.
    pub latched: Vec<bool>,
    /// Per face: a neighbour's face is within latching range.
    pub contact: Vec<bool>,
    /// Top light sensor, 0..1 of full scale.
    pub light: f64,
    /// Per face: the binary target sensor sees the target.
    pub target_seen: Vec<bool>,
    /// Framed bytes received since the last reading (latch channel and base-station radio,
    /// see [`super::channel`]).
    pub radio_rx: Vec<u8>,
}

impl Sensors {
    /// The received frames.
    pub fn frames(&self) -> Result<Vec<Frame>, FrameError> {
        decode(&self.radio_rx)
    }
}

/// What a robot's firmware asks of its actuators (`<ns>/cmd`). An empty array leaves that
/// actuator group unchanged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RobotCommand {
    /// Per face: EPM latch on (true) or off.
    pub latch: Vec<bool>,
    /// Per face: thruster command, 0..1 of the module's maximum thrust.
    pub thrust: Vec<f64>,
    /// Framed bytes to send (latch channel to neighbours, radio to the base station).
    pub radio_tx: Vec<u8>,
}

/// A command the world cannot carry out.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// A thrust value outside 0..1 or not finite.
    #[error("command for `{robot}`: thrust[{face}] = {value} is not in [0, 1]")]
    ThrustOutOfRange {
        /// Robot name.
        robot: String,
        /// Face index.
        face: usize,
        /// The value given.
        value: f64,
    },
}

/// Sim time `seconds` as a ROS stamp carries it (whole seconds and nanoseconds, rounded
/// like `flotilla_common::ros::time_msg`), read back the way a receiver does
/// (`sec + nanosec * 1e-9`). Readings carry this time, so firmware sees the same time
/// in-process and over ROS, to the last bit.
pub fn stamp_seconds(seconds: f64) -> f64 {
    let s = seconds.max(0.0);
    let mut sec = s.floor();
    let mut nanosec = ((s - sec) * 1e9).round();
    if nanosec >= 1e9 {
        sec += 1.0;
        nanosec -= 1e9;
    }
    sec + nanosec * 1e-9
}

/// Thrust at or above which the simulated (on/off) thruster fires, fraction of maximum.
pub const THRUST_ON_THRESHOLD: f64 = 0.5;

impl RobotCommand {
    /// The world's actuator command. The simulated thrusters are on/off (SPEC 5's pumps):
    /// a thrust of at least [`THRUST_ON_THRESHOLD`] fires.
    pub fn to_world(&self, robot: &str) -> Result<Command, CommandError> {
        let thruster_on = self
            .thrust
            .iter()
            .enumerate()
            .map(|(face, &value)| {
                if (0.0..=1.0).contains(&value) {
                    Ok(value >= THRUST_ON_THRESHOLD)
                } else {
                    Err(CommandError::ThrustOutOfRange { robot: robot.to_owned(), face, value })
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Command { latch_on: self.latch.clone(), thruster_on })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thrust_maps_to_on_off_at_the_threshold() {
        let cmd = RobotCommand { latch: vec![true, false], thrust: vec![0.0, 0.49, 0.5, 1.0], radio_tx: vec![] };
        let world = cmd.to_world("mhp_0").unwrap();
        assert_eq!(world.thruster_on, vec![false, false, true, true]);
        assert_eq!(world.latch_on, vec![true, false]);
    }

    #[test]
    fn stamps_keep_whole_nanoseconds() {
        // 0.1 s = 0 s + 100 000 000 ns; read back as 1e8 * 1e-9.
        assert_eq!(stamp_seconds(0.1), 100_000_000.0 * 1e-9);
        assert_eq!(stamp_seconds(12.025), 12.0 + 25_000_000.0 * 1e-9);
        assert_eq!(stamp_seconds(0.999_999_999_9), 1.0);
        assert_eq!(stamp_seconds(-1.0), 0.0);
    }

    #[test]
    fn bad_thrust_names_robot_and_face() {
        for bad in [1.5, -0.1, f64::NAN] {
            let cmd = RobotCommand { thrust: vec![0.0, bad], ..RobotCommand::default() };
            let err = cmd.to_world("mhp_3").unwrap_err();
            assert!(err.to_string().contains("mhp_3") && err.to_string().contains("thrust[1]"), "{err}");
        }
    }
}
