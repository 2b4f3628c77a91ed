//! MoleMOD mole: an active robot that crawls through the tunnels of passive blocks (SPEC
//! 2). The final model has three main cubes, four prismatic joints and two universal
//! joints (each two revolute axes), and switches friction at its two heads. Its firmware
//! reads the joint encoders and drives joint velocities (the five-interval controller)
//! and the head grips. Arrays run over the model's movable joint axes in the order of its
//! description (`flotilla_common::models`). ROS: `flotilla_msgs/MolemodSensors` /
//! `MolemodCommand` on `<robot>/sensors` / `<robot>/cmd`.

use crate::{check_range, Hardware, OutOfRange};
use serde::{Deserialize, Serialize};

/// The MoleMOD system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Molemod;

impl Hardware for Molemod {
    const SYSTEM: &'static str = "molemod";
    type Sensors = MolemodSensors;
    type Command = MolemodCommand;

    fn stamp(sensors: &MolemodSensors) -> f64 {
        sensors.stamp
    }
}

/// One reading of a mole's encoders.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MolemodSensors {
    /// Time of the reading, s.
    pub stamp: f64,
    /// Per movable joint axis: position, m (prismatic) or rad (revolute).
    pub joint_positions: Vec<f64>,
}

/// What a mole's firmware asks of its motors and heads.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MolemodCommand {
    /// Per movable joint axis: velocity, m/s or rad/s (an empty array keeps the last).
    pub joint_velocities: Vec<f64>,
    /// Per head (front, back): high friction (gripping the tunnel) or low (sliding).
    pub head_grip: Vec<bool>,
}

/// Largest joint speed a command may ask, m/s or rad/s (assumed: well above the
/// controller's 20 mm/s and 0.5 rad/s full speeds).
pub const MAX_JOINT_SPEED: f64 = 5.0;

impl MolemodCommand {
    /// Checks every velocity is finite and within [`MAX_JOINT_SPEED`].
    pub fn validate(&self, robot: &str) -> Result<(), OutOfRange> {
        check_range(robot, "joint_velocities", &self.joint_velocities, -MAX_JOINT_SPEED, MAX_JOINT_SPEED)
    }
}
