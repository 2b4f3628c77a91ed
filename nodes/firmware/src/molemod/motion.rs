//! The final mole's motions as firmware (SPEC 2, "The final model"). A motion is a
//! sequence of phases; a phase sets joint targets and which heads grip, and ends when every
//! joint it moves is inside its controller's dead band (50 um, 2 mrad). A phase that does
//! not end within [`MoleMotions::phase_timeout`] stops the robot and leaves a report
//! ([`Stuck`]: which motion, which phase, which joint, how far off).
//!
//! The motions use the joints as the paper's final model does: the two outer prismatic
//! joints (`prismatic_0` at the front head, `prismatic_3` at the rear) to crawl, the front
//! universal joint's yaw axis (`universal_0_axis1`) to turn. Lifting pitches the same
//! joint's second axis inside the blocks' tunnels, which hold the body down; on an open
//! floor a pitched joint only kinks the robot (measured), so it is not offered here.
//! The heads' grips are the contract's `head_grip` (front, rear).

use std::collections::VecDeque;

use flotilla_contract::molemod::{Molemod, MolemodCommand, MolemodSensors};
use flotilla_contract::Firmware;

use super::{FiveIntervalController, JointAxis, JointControl};

/// One driven joint coordinate of the mole, in the order of its readings.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisSpec {
    /// Coordinate name as the model names it (`prismatic_0`, `universal_0_axis1`, ...).
    pub name: String,
    /// Prismatic (m) rather than revolute (rad).
    pub prismatic: bool,
    /// Lowest position, m or rad.
    pub lower: f64,
    /// Highest position, m or rad.
    pub upper: f64,
}

/// What a motion asks of the mole.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// The inchworm gait (SPEC 2): `iterations` expansions and contractions, alternately,
    /// of the two outer prismatic joints by `step`; each moves the robot `step` (m) forward,
    /// or backward when `backward` (the heads grip the other way round).
    Crawl {
        /// Expansion of each outer prismatic joint, m.
        step: f64,
        /// Expansions plus contractions.
        iterations: u32,
        /// Move backward.
        backward: bool,
    },
    /// Turn on the spot by `angle` (rad, positive = counter-clockwise seen from above): the
    /// front head reaches out by `reach` (m) with the rear head gripping, swings about the
    /// front universal joint, grips, and the body swings round to it as the joint
    /// straightens and the head is drawn back in.
    Turn {
        /// Heading change, rad.
        angle: f64,
        /// How far the front head reaches out first, m (room to swing).
        reach: f64,
    },
}

impl Motion {
    /// Short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            Motion::Crawl { backward: false, .. } => "crawl forward",
            Motion::Crawl { backward: true, .. } => "crawl backward",
            Motion::Turn { .. } => "turn",
        }
    }
}

/// A motion the mole cannot do, or a model that lacks a joint the motions use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotionError {
    /// The model has no coordinate of this name.
    #[error("the mole has no joint `{0}` (the motions need prismatic_0, prismatic_3 and universal_0_axis1)")]
    MissingJoint(&'static str),
    /// A motion's parameter is not finite or outside what the joint allows.
    #[error("{motion}: {what} = {value} is outside [{lower}, {upper}]")]
    OutOfRange {
        /// The motion's name.
        motion: &'static str,
        /// The parameter.
        what: &'static str,
        /// The value given.
        value: f64,
        /// Lowest allowed.
        lower: f64,
        /// Highest allowed.
        upper: f64,
    },
    /// A crawl of no iterations.
    #[error("{0}: iterations must be at least 1")]
    NoIterations(&'static str),
}

/// A phase that did not end in time: the robot stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    /// Index of the motion among those pushed (0 = first).
    pub motion: usize,
    /// The motion's name.
    pub motion_name: &'static str,
    /// The phase's name.
    pub phase: &'static str,
    /// The joint farthest from its target.
    pub joint: String,
    /// Its target, m or rad.
    pub target: f64,
    /// Its position at the time limit, m or rad.
    pub position: f64,
    /// When the phase started, s.
    pub since: f64,
}

impl std::fmt::Display for Stuck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "motion {} ({}), phase `{}`: joint `{}` at {:.6} of target {:.6} ({:.6} off) since t = {:.3} s",
            self.motion,
            self.motion_name,
            self.phase,
            self.joint,
            self.position,
            self.target,
            self.position - self.target,
            self.since
        )
    }
}

/// A finished phase.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseRecord {
    /// Index of the motion among those pushed.
    pub motion: usize,
    /// The phase's name.
    pub phase: &'static str,
    /// Start, s.
    pub started: f64,
    /// End (every moved joint at its target), s.
    pub ended: f64,
}

/// One phase: joint targets (by reading index) and grips (front, rear).
#[derive(Clone, Debug, PartialEq)]
struct Phase {
    motion: usize,
    motion_name: &'static str,
    name: &'static str,
    targets: Vec<(usize, f64)>,
    grip: [bool; 2],
}

/// Reading indices of the coordinates the motions drive.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Joints {
    front_shift: usize,
    rear_shift: usize,
    front_yaw: usize,
}

/// The mole's motion firmware: motions pushed are done one after the other.
#[derive(Clone, Debug)]
pub struct MoleMotions {
    control: JointControl,
    axes: Vec<AxisSpec>,
    joints: Joints,
    queue: VecDeque<Phase>,
    active: Option<(Phase, f64)>,
    pushed: usize,
    done: Vec<PhaseRecord>,
    stuck: Option<Stuck>,
    /// Longest a phase may take before the robot stops, s.
    pub phase_timeout: f64,
}

impl MoleMotions {
    /// Firmware for a mole whose readings carry `axes` in this order; every joint starts
    /// held at zero, both heads gripping.
    pub fn new(axes: Vec<AxisSpec>) -> Result<Self, MotionError> {
        let find = |name: &'static str| axes.iter().position(|a| a.name == name).ok_or(MotionError::MissingJoint(name));
        let joints = Joints { front_shift: find("prismatic_0")?, rear_shift: find("prismatic_3")?, front_yaw: find("universal_0_axis1")? };
        let control = JointControl {
            axes: axes
                .iter()
                .map(|a| JointAxis {
                    controller: if a.prismatic { FiveIntervalController::prismatic() } else { FiveIntervalController::revolute() },
                    target: 0.0,
                })
                .collect(),
            head_grip: vec![true, true],
        };
        Ok(Self {
            control,
            axes,
            joints,
            queue: VecDeque::new(),
            active: None,
            pushed: 0,
            done: Vec::new(),
            stuck: None,
            phase_timeout: 20.0,
        })
    }

    /// Queues `motion` after those pushed before; returns its index.
    pub fn push(&mut self, motion: Motion) -> Result<usize, MotionError> {
        let index = self.pushed;
        let phases = self.phases(index, motion)?;
        self.queue.extend(phases);
        self.pushed += 1;
        Ok(index)
    }

    /// Whether every pushed motion is done (or the robot stopped).
    pub fn idle(&self) -> bool {
        self.stuck.is_some() || (self.active.is_none() && self.queue.is_empty())
    }

    /// The phases finished so far.
    pub fn finished(&self) -> &[PhaseRecord] {
        &self.done
    }

    /// Why the robot stopped, if it did.
    pub fn stuck(&self) -> Option<&Stuck> {
        self.stuck.as_ref()
    }

    /// Checks `value` of `motion` against `[lower, upper]`.
    fn check(motion: &Motion, what: &'static str, value: f64, lower: f64, upper: f64) -> Result<(), MotionError> {
        if value.is_finite() && (lower..=upper).contains(&value) {
            Ok(())
        } else {
            Err(MotionError::OutOfRange { motion: motion.name(), what, value, lower, upper })
        }
    }

    fn phases(&self, motion_index: usize, motion: Motion) -> Result<Vec<Phase>, MotionError> {
        let Joints { front_shift, rear_shift, front_yaw } = self.joints;
        let (front, rear, yaw) = (&self.axes[front_shift], &self.axes[rear_shift], &self.axes[front_yaw]);
        let phase = |name, targets, grip| Phase { motion: motion_index, motion_name: motion.name(), name, targets, grip };
        match motion {
            Motion::Crawl { step, iterations, backward } => {
                let longest = front.upper.min(rear.upper);
                Self::check(&motion, "step", step, f64::MIN_POSITIVE, longest)?;
                if iterations == 0 {
                    return Err(MotionError::NoIterations(motion.name()));
                }
                // Forward: expand with the rear head gripping (the front slides ahead),
                // contract with the front gripping (the rear follows); backward: swapped.
                let (expand_grip, contract_grip) = if backward { ([true, false], [false, true]) } else { ([false, true], [true, false]) };
                Ok((0..iterations)
                    .map(|k| {
                        if k % 2 == 0 {
                            phase("expand", vec![(front_shift, step), (rear_shift, step)], expand_grip)
                        } else {
                            phase("contract", vec![(front_shift, 0.0), (rear_shift, 0.0)], contract_grip)
                        }
                    })
                    .collect())
            }
            Motion::Turn { angle, reach } => {
                Self::check(&motion, "angle", angle, yaw.lower, yaw.upper)?;
                Self::check(&motion, "reach", reach, 0.0, front.upper)?;
                Ok(vec![
                    phase("reach", vec![(front_shift, reach)], [false, true]),
                    phase("swing", vec![(front_yaw, angle)], [false, true]),
                    phase("follow", vec![(front_yaw, 0.0), (front_shift, 0.0)], [true, false]),
                ])
            }
        }
    }

    /// Whether every joint `phase` moves is at its target in `positions`.
    fn reached(&self, phase: &Phase, positions: &[f64]) -> bool {
        phase.targets.iter().all(|&(i, target)| self.control.axes[i].controller.reached(positions[i], target))
    }

    /// Starts the next phase if the current one ended; stops the robot if it took too long.
    fn advance(&mut self, time: f64, positions: &[f64]) {
        loop {
            match self.active.take() {
                Some((phase, started)) if self.reached(&phase, positions) => {
                    self.done.push(PhaseRecord { motion: phase.motion, phase: phase.name, started, ended: time });
                }
                Some((phase, started)) => {
                    if time - started > self.phase_timeout {
                        self.stuck = Some(self.stuck_report(&phase, started, positions));
                    }
                    self.active = Some((phase, started));
                    return;
                }
                None => {
                    let Some(next) = self.queue.pop_front() else { return };
                    for &(i, target) in &next.targets {
                        self.control.axes[i].target = target;
                    }
                    self.control.head_grip = next.grip.to_vec();
                    self.active = Some((next, time));
                }
            }
        }
    }

    fn stuck_report(&self, phase: &Phase, since: f64, positions: &[f64]) -> Stuck {
        let worst = phase
            .targets
            .iter()
            .copied()
            .max_by(|a, b| (positions[a.0] - a.1).abs().total_cmp(&(positions[b.0] - b.1).abs()))
            .unwrap_or((0, 0.0));
        Stuck {
            motion: phase.motion,
            motion_name: phase.motion_name,
            phase: phase.name,
            joint: self.axes[worst.0].name.clone(),
            target: worst.1,
            position: positions[worst.0],
            since,
        }
    }
}

impl Firmware<Molemod> for MoleMotions {
    fn step(&mut self, time: f64, sensors: &MolemodSensors) -> MolemodCommand {
        if sensors.joint_positions.len() != self.axes.len() {
            // The joint controller reports the mismatch and stops every joint.
            return self.control.step(time, sensors);
        }
        if self.stuck.is_none() {
            self.advance(time, &sensors.joint_positions);
        }
        if self.stuck.is_some() {
            return MolemodCommand { joint_velocities: vec![0.0; self.axes.len()], head_grip: self.control.head_grip.clone() };
        }
        self.control.step(time, sensors)
    }

    fn status(&self) -> String {
        match (&self.stuck, &self.active) {
            (Some(stuck), _) => format!("stopped: {stuck}"),
            (None, Some((phase, started))) => {
                format!("motion {} phase `{}` since {started:.3} s, {} phases queued", phase.motion, phase.name, self.queue.len())
            }
            (None, None) => format!("idle after {} motions", self.pushed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mole() -> MoleMotions {
        let axis = |name: &str, prismatic, lower, upper| AxisSpec { name: name.into(), prismatic, lower, upper };
        MoleMotions::new(vec![
            axis("prismatic_0", true, 0.0, 0.03),
            axis("universal_0_axis1", false, -1.5, 1.5),
            axis("universal_0_axis2", false, -1.5, 1.5),
            axis("prismatic_3", true, 0.0, 0.03),
        ])
        .expect("the motions' joints exist")
    }

    fn reading(t: f64, p: [f64; 4]) -> MolemodSensors {
        MolemodSensors { stamp: t, joint_positions: p.to_vec() }
    }

    #[test]
    fn a_crawl_alternates_expansion_and_contraction_with_swapped_grips() {
        let mut fw = mole();
        fw.push(Motion::Crawl { step: 0.01, iterations: 2, backward: false }).expect("valid");
        let cmd = fw.step(0.0, &reading(0.0, [0.0; 4]));
        // Expanding: rear grips, both outer joints at full speed.
        assert_eq!(cmd.head_grip, vec![false, true]);
        assert_eq!(cmd.joint_velocities, vec![0.02, 0.0, 0.0, 0.02]);
        // Expanded: the contraction starts with the front gripping.
        let cmd = fw.step(1.0, &reading(1.0, [0.01, 0.0, 0.0, 0.01]));
        assert_eq!(cmd.head_grip, vec![true, false]);
        assert_eq!(cmd.joint_velocities, vec![-0.02, 0.0, 0.0, -0.02]);
        assert!(!fw.idle());
        fw.step(2.0, &reading(2.0, [0.0; 4]));
        assert!(fw.idle());
        let phases: Vec<_> = fw.finished().iter().map(|r| (r.phase, r.started, r.ended)).collect();
        assert_eq!(phases, [("expand", 0.0, 1.0), ("contract", 1.0, 2.0)]);
    }

    #[test]
    fn backward_swaps_the_grips() {
        let mut fw = mole();
        fw.push(Motion::Crawl { step: 0.01, iterations: 1, backward: true }).expect("valid");
        assert_eq!(fw.step(0.0, &reading(0.0, [0.0; 4])).head_grip, vec![true, false]);
    }

    #[test]
    fn a_joint_that_does_not_reach_its_target_stops_the_robot_with_a_report() {
        let mut fw = mole();
        fw.phase_timeout = 5.0;
        fw.push(Motion::Turn { angle: 0.4, reach: 0.015 }).expect("valid");
        fw.step(0.0, &reading(0.0, [0.0; 4]));
        fw.step(1.0, &reading(1.0, [0.015, 0.0, 0.0, 0.0]));
        // The yaw joint stays at 0.1 rad: blocked.
        let cmd = fw.step(7.0, &reading(7.0, [0.015, 0.1, 0.0, 0.0]));
        assert_eq!(cmd.joint_velocities, vec![0.0; 4]);
        let stuck = fw.stuck().expect("stopped");
        assert_eq!((stuck.motion, stuck.phase, stuck.joint.as_str()), (0, "swing", "universal_0_axis1"));
        assert!((stuck.position - stuck.target + 0.3).abs() < 1e-12);
        assert!(fw.status().contains("swing") && fw.status().contains("universal_0_axis1"), "{}", fw.status());
        assert!(fw.idle());
    }

    #[test]
    fn motions_outside_the_joints_are_refused() {
        let mut fw = mole();
        let err = fw.push(Motion::Crawl { step: 0.05, iterations: 2, backward: false }).unwrap_err();
        assert!(err.to_string().contains("step = 0.05"), "{err}");
        assert!(matches!(fw.push(Motion::Crawl { step: 0.01, iterations: 0, backward: false }), Err(MotionError::NoIterations(_))));
        assert!(fw.push(Motion::Turn { angle: f64::NAN, reach: 0.01 }).is_err());
        assert!(fw.push(Motion::Turn { angle: 2.0, reach: 0.01 }).is_err());
        assert!(fw.idle());
        let err = MoleMotions::new(vec![AxisSpec { name: "prismatic_0".into(), prismatic: true, lower: 0.0, upper: 0.03 }]).unwrap_err();
        assert_eq!(err, MotionError::MissingJoint("prismatic_3"));
    }
}
