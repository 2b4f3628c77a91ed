//! Modular Hydraulic Propulsion: a robot is a connected set of modules, each face with a
//! pump (thruster), a connection sensor and a binary target sensor along its normal (SPEC
//! 5). The contract is per robot, never per module: arrays run over the robot's faces in
//! module order, then face order within a module. ROS: `flotilla_msgs/MhpSensors` on
//! `<robot>/sensors`, `flotilla_msgs/MhpCommand` on `<robot>/cmd`.

use crate::{check_range, Hardware, OutOfRange};
use serde::{Deserialize, Serialize};

/// The MHP system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mhp;

impl Hardware for Mhp {
    const SYSTEM: &'static str = "mhp";
    type Sensors = MhpSensors;
    type Command = MhpCommand;

    fn stamp(sensors: &MhpSensors) -> f64 {
        sensors.stamp
    }
}

/// One reading of an MHP robot's face sensors.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MhpSensors {
    /// Time of the reading, s.
    pub stamp: f64,
    /// Per face: a neighbouring module is connected (or touching) there.
    pub connected: Vec<bool>,
    /// Per face: the binary target sensor (180 deg field of view along the face normal,
    /// blocked by the robot's own body) sees the target.
    pub target_seen: Vec<bool>,
}

/// What an MHP robot's controller asks of its pumps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MhpCommand {
    /// Per face: pump command, 0..1 of the pump's force (an empty array keeps the last).
    pub thrust: Vec<f64>,
}

/// Thrust at or above which an on/off pump fires, fraction of maximum.
pub const THRUST_ON_THRESHOLD: f64 = 0.5;

impl MhpCommand {
    /// Per face: whether the on/off pump fires (thrust >= [`THRUST_ON_THRESHOLD`]); an
    /// error names the robot and the face of a value outside 0..1.
    pub fn pumps_on(&self, robot: &str) -> Result<Vec<bool>, OutOfRange> {
        check_range(robot, "thrust", &self.thrust, 0.0, 1.0)?;
        Ok(self.thrust.iter().map(|&t| t >= THRUST_ON_THRESHOLD).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thrust_maps_to_on_off_at_the_threshold() {
        let cmd = MhpCommand { thrust: vec![0.0, 0.49, 0.5, 1.0] };
        assert_eq!(cmd.pumps_on("mhp_0").unwrap(), vec![false, false, true, true]);
        let err = MhpCommand { thrust: vec![0.0, 2.0] }.pumps_on("mhp_3").unwrap_err().to_string();
        assert!(err.contains("mhp_3") && err.contains("thrust[1]"), "{err}");
    }
}
