//! MoleMOD joint control (SPEC 2): the five-interval joint position controller, the
//! firmware that drives every joint of a mole to its target from the encoder readings,
//! and the mole's motions built on it ([`motion`]).

pub mod after_push;
pub mod after_roll;
pub mod down_turn;
pub mod follow;
pub mod follow_down;
pub mod follow_keys;
pub mod grasp;
pub mod lift;
pub mod motion;
pub mod pass;
pub mod push_over;
pub mod shift;
pub mod shift_below;
pub mod stand_up;
pub mod step;
pub mod unfold;
pub mod vertical;

use flotilla_contract::molemod::{Molemod, MolemodCommand, MolemodSensors};
use flotilla_contract::Firmware;

/// The five-interval joint position controller of SPEC 2: full speed far from the target,
/// half speed within `slow_zone` of it, zero within `accuracy`, and the reversed speeds past
/// the target (so one controller both expands and contracts).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FiveIntervalController {
    /// Full speed, m/s (prismatic) or rad/s (revolute).
    pub speed: f64,
    /// Distance to the target under which the speed is halved, m or rad.
    pub slow_zone: f64,
    /// Half-width of the dead band around the target, m or rad.
    pub accuracy: f64,
}

impl FiveIntervalController {
    /// Prismatic joints: 20 mm/s (assumed), half speed within 2 mm (assumed), 50 um
    /// accuracy (SPEC 2).
    pub fn prismatic() -> Self {
        Self { speed: 0.02, slow_zone: 0.002, accuracy: 50e-6 }
    }

    /// Revolute joints: 0.5 rad/s, half speed within 0.05 rad (assumed); 2 mrad accuracy,
    /// the 50 um of SPEC 2 at the 25 mm from a universal joint to its cube's centre.
    pub fn revolute() -> Self {
        Self { speed: 0.5, slow_zone: 0.05, accuracy: 50e-6 / 0.025 }
    }

    /// The commanded joint speed at `position` for `target`, m/s or rad/s.
    pub fn command(&self, position: f64, target: f64) -> f64 {
        let error = target - position;
        if error.abs() <= self.accuracy {
            0.0
        } else if error.abs() <= self.slow_zone {
            0.5 * self.speed * error.signum()
        } else {
            self.speed * error.signum()
        }
    }

    /// Whether `position` is inside the dead band around `target`.
    pub fn reached(&self, position: f64, target: f64) -> bool {
        (target - position).abs() <= self.accuracy
    }
}

/// One joint axis under position control.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointAxis {
    /// Its controller.
    pub controller: FiveIntervalController,
    /// Target position, m or rad.
    pub target: f64,
}

/// Drives every joint axis of a mole to its target with its five-interval controller
/// and holds the head grips as set. The motions (forward, turn, lift ...) set targets
/// and grips step by step.
#[derive(Clone, Debug, PartialEq)]
pub struct JointControl {
    /// Per movable joint axis, in the model's order.
    pub axes: Vec<JointAxis>,
    /// Per head (front, back): gripping.
    pub head_grip: Vec<bool>,
}

impl JointControl {
    /// Whether every axis reached its target in `sensors`.
    pub fn at_targets(&self, sensors: &MolemodSensors) -> bool {
        sensors.joint_positions.len() == self.axes.len()
            && self.axes.iter().zip(&sensors.joint_positions).all(|(a, &p)| a.controller.reached(p, a.target))
    }
}

impl Firmware<Molemod> for JointControl {
    fn step(&mut self, _time: f64, sensors: &MolemodSensors) -> MolemodCommand {
        if sensors.joint_positions.len() != self.axes.len() {
            tracing::warn!(
                axes = self.axes.len(),
                reading = sensors.joint_positions.len(),
                "mole reading with the wrong joint count; stopping"
            );
            return MolemodCommand { joint_velocities: vec![0.0; self.axes.len()], head_grip: self.head_grip.clone() };
        }
        let joint_velocities = self.axes.iter().zip(&sensors.joint_positions).map(|(a, &p)| a.controller.command(p, a.target)).collect();
        MolemodCommand { joint_velocities, head_grip: self.head_grip.clone() }
    }

    fn status(&self) -> String {
        let targets: Vec<String> = self.axes.iter().map(|a| format!("{:.4}", a.target)).collect();
        format!("joint_control targets [{}]", targets.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_intervals_by_hand() {
        let c = FiveIntervalController::prismatic();
        // Far below the target: full speed up; within 2 mm: half; within 50 um: stop.
        assert_eq!(c.command(0.0, 0.01), 0.02);
        assert_eq!(c.command(0.009, 0.01), 0.01);
        assert_eq!(c.command(0.00996, 0.01), 0.0);
        // Past the target: the reversed speeds.
        assert_eq!(c.command(0.0105, 0.01), -0.01);
        assert_eq!(c.command(0.05, 0.01), -0.02);
        assert!(c.reached(0.01004, 0.01) && !c.reached(0.0101, 0.01));
    }

    #[test]
    fn joint_control_drives_each_axis_and_stops_on_a_bad_reading() {
        let axis = |controller, target| JointAxis { controller, target };
        let mut fw = JointControl {
            axes: vec![axis(FiveIntervalController::prismatic(), 0.01), axis(FiveIntervalController::revolute(), -0.3)],
            head_grip: vec![true, false],
        };
        let reading = MolemodSensors { stamp: 0.0, joint_positions: vec![0.0, 0.0] };
        let cmd = fw.step(0.0, &reading);
        assert_eq!(cmd.joint_velocities, vec![0.02, -0.5]);
        assert_eq!(cmd.head_grip, vec![true, false]);
        assert!(!fw.at_targets(&reading));
        assert!(fw.at_targets(&MolemodSensors { stamp: 1.0, joint_positions: vec![0.01, -0.3] }));
        let cmd = fw.step(0.1, &MolemodSensors { stamp: 0.1, joint_positions: vec![0.0] });
        assert_eq!(cmd.joint_velocities, vec![0.0, 0.0]);
    }
}
