//! Actuators as force models: each registered [`ForceModel`] adds its forces to every body
//! each step, after the medium's and before the medium finishes (so that drag and added
//! mass see the actuators' push). Thrusters (SPEC 5) are the first; fins, vibration drive
//! and joint motors plug in the same way, without touching the step loop.

use crate::medium::Wrench;
use crate::world::{FaceState, Thruster};
use flotilla_common::catalogue::ModuleSpec;
use nalgebra::Isometry3;
use std::fmt;

/// One body as an actuator sees it during a step.
#[derive(Clone, Copy, Debug)]
pub struct ActuatedBody<'a> {
    /// Catalogue entry of its kind.
    pub spec: &'static ModuleSpec,
    /// Pose, world frame (m, unit quaternion).
    pub pose: &'a Isometry3<f64>,
    /// Per-face command and state, in catalogue face order.
    pub faces: &'a [FaceState],
    /// Per-face thruster as built (direction error, failure), `None` without one.
    pub thrusters: &'a [Option<Thruster>],
}

/// A source of actuator forces.
pub trait ForceModel: Send + Sync + fmt::Debug {
    /// Adds this model's force (N) and torque about the centre (N m), world frame, on `body`.
    fn apply(&self, body: &ActuatedBody<'_>, wrench: &mut Wrench);
}

/// The pumps of SPEC 5: a commanded, working thruster pushes with its catalogue force along
/// its (imperfect) direction, at the centre of its face.
#[derive(Clone, Copy, Debug, Default)]
pub struct Thrusters;

impl ForceModel for Thrusters {
    fn apply(&self, body: &ActuatedBody<'_>, wrench: &mut Wrench) {
        for (face, (state, thruster)) in body.spec.faces.iter().zip(body.faces.iter().zip(body.thrusters)) {
            if let (true, Some(t), Some(spec)) = (state.thruster_on, thruster, face.thruster) {
                if !t.failed {
                    let f = body.pose.rotation * (t.direction * spec.force);
                    let r = body.pose.rotation * face.centre;
                    wrench.force += f;
                    wrench.torque += r.cross(&f);
                }
            }
        }
    }
}
