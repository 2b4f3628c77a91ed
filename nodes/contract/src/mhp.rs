//! Modular Hydraulic Propulsion: a robot is a connected set of modules, each face with a
//! pump (thruster), a connection sensor and a binary target sensor along its normal (SPEC
//! 5). The contract is per robot, never per module: arrays run over the robot's faces in
//! module order, then face order within a module ([`FACE_NORMALS`]). ROS:
//! `flotilla_msgs/MhpSensors` on `<robot>/sensors`, `flotilla_msgs/MhpCommand` on
//! `<robot>/cmd`.
//!
//! The centralised controller of the paper knows more than the faces tell: the target
//! position relative to the robot, the robot's motion and attitude ([`MhpNavigation`], an
//! optional part of the reading that only such a robot carries) and where its thrusters
//! are ([`MhpLayout`], fixed for the robot, given to the firmware when it is built).
//! [`MhpFirmware`] lets a host reuse one command buffer per robot, so a robot of millions
//! of faces is not reallocated every tick.

use crate::{check_range, Firmware, Hardware, OutOfRange};
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
    /// What a centrally controlled robot knows of itself and the target; `None` for a
    /// robot with face sensors only (the decentralised robot). On ROS: `has_navigation`
    /// and the four navigation fields of `flotilla_msgs/MhpSensors`.
    pub navigation: Option<MhpNavigation>,
}

/// Outward normals of a module's faces in the module (= robot body) frame, in the order
/// the per-face arrays use; a square module of the 2-D robot has the first four.
pub const FACE_NORMALS: [[i32; 3]; 6] = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];

/// The face opposite face `face` (0 <-> 1, 2 <-> 3, 4 <-> 5).
pub const fn opposite_face(face: usize) -> usize {
    face ^ 1
}

/// The robot's own state and the target as a central controller sees them (SPEC 5: "the
/// relative target position and the robot's 3-D posture are known").
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MhpNavigation {
    /// Target position relative to the centre of mass, body frame, m.
    pub target: [f64; 3],
    /// Velocity of the centre of mass, body frame, m/s.
    pub velocity: [f64; 3],
    /// Angular velocity, body frame, rad/s.
    pub angular_velocity: [f64; 3],
    /// Attitude: unit quaternion (w, x, y, z) rotating body vectors into the world frame.
    pub orientation: [f64; 4],
}

/// One thruster as the robot's builder knows it (nominal: a manufacturing error of its
/// direction is unknown to the controller).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MhpThruster {
    /// Index of its face in the per-face arrays.
    pub face: usize,
    /// Where it pushes: its face centre relative to the centre of mass, body frame, m.
    pub position: [f64; 3],
    /// Unit direction of the force on the robot when it fires (the inward face normal:
    /// the pump expels fluid outwards), body frame.
    pub direction: [f64; 3],
    /// Force when firing, N.
    pub force: f64,
}

/// The thrusters a central controller may use: those on the robot's outer faces (SPEC 5).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MhpLayout {
    /// Faces per module: 4 (squares, 2-D) or 6 (cubes, 3-D).
    pub faces_per_module: usize,
    /// Faces in the per-face arrays (modules x faces per module).
    pub faces: usize,
    /// The outer thrusters, in face order.
    pub thrusters: Vec<MhpThruster>,
}

/// Most faces a layout may have: six per module of a robot of 2^24 modules (the largest
/// robot the experiments build).
pub const MAX_LAYOUT_FACES: usize = 6 << 24;

impl MhpLayout {
    /// Checks the layout against the arrays it indexes (a layout comes over ROS on
    /// `/<robot>/layout` from whatever publishes there): 4 or 6 faces per module, a
    /// positive whole number of modules' faces up to [`MAX_LAYOUT_FACES`], and every
    /// thruster on one of them with a finite position and direction and a finite force
    /// >= 0. The message names the first problem.
    pub fn validate(&self) -> Result<(), String> {
        if !matches!(self.faces_per_module, 4 | 6) {
            return Err(format!("faces_per_module must be 4 (squares) or 6 (cubes), got {}", self.faces_per_module));
        }
        if self.faces == 0 || self.faces % self.faces_per_module != 0 || self.faces > MAX_LAYOUT_FACES {
            return Err(format!(
                "faces must be a positive multiple of faces_per_module = {} up to {MAX_LAYOUT_FACES}, got {}",
                self.faces_per_module, self.faces
            ));
        }
        for (i, t) in self.thrusters.iter().enumerate() {
            if t.face >= self.faces {
                return Err(format!("thruster {i}: face {} is not one of the {} faces", t.face, self.faces));
            }
            if !t.position.iter().chain(&t.direction).all(|v| v.is_finite()) {
                return Err(format!("thruster {i}: position {:?} and direction {:?} must be finite", t.position, t.direction));
            }
            if !(t.force >= 0.0 && t.force.is_finite()) {
                return Err(format!("thruster {i}: force must be a finite number of N >= 0, got {}", t.force));
            }
        }
        Ok(())
    }
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

/// MHP firmware that writes its command into a buffer the host keeps (one per robot), so
/// that a step allocates nothing. [`Firmware::step`] is the allocating form of it.
pub trait MhpFirmware: Firmware<Mhp> {
    /// One control step at time `time`, s: overwrites `command` (resized to the reading's
    /// faces).
    fn step_into(&mut self, time: f64, sensors: &MhpSensors, command: &mut MhpCommand);
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

    #[test]
    fn faces_pair_with_their_opposites() {
        for (face, n) in FACE_NORMALS.iter().enumerate() {
            let o = FACE_NORMALS[opposite_face(face)];
            assert_eq!([n[0] + o[0], n[1] + o[1], n[2] + o[2]], [0, 0, 0], "face {face}");
        }
    }
}
