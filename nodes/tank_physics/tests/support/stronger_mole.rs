//! The mole the block motions (lift onto a neighbour, shift, put down) run with: universal
//! joints of a stronger actuator class than the model's, and a grip clamp to match.

use flotilla_common::models::{JointKind, Model};
use tank_physics::systems::molemod::world::{GripClamp, MoleWorldOptions};
use tank_physics::systems::molemod::ArticulatedOptions;

use crate::mole::committed_model;

/// The universal joints' effort of the stronger actuator class (ROBOTIS Dynamixel
/// XL330-M288-T, 0.52 N m stall at 5 V, fits a 40 mm cube), N m; the planar model's paths
/// need 0.34-0.40 N m static (docs/molemod_execution.md).
pub const STRONGER_UNIVERSAL: f64 = 0.52;

/// The committed model with [`STRONGER_UNIVERSAL`] universal joints, and the world options
/// the block motions run with: the cubes' rounded edges and a grip clamp twice the joints'
/// effort.
pub fn stronger_mole() -> (Model, MoleWorldOptions) {
    let mut model = committed_model();
    for joint in model.joints.iter_mut().filter(|j| j.name.starts_with("universal_")) {
        match &mut joint.kind {
            JointKind::Revolute { limits, .. } | JointKind::Universal { limits, .. } => limits.effort = STRONGER_UNIVERSAL,
            _ => panic!("{} is not a universal joint's axis", joint.name),
        }
    }
    let options = MoleWorldOptions {
        robot: ArticulatedOptions { edge_radius: 0.004, ..ArticulatedOptions::default() },
        clamp: GripClamp { torque: 2.0 * STRONGER_UNIVERSAL, ..GripClamp::default() },
        ..MoleWorldOptions::default()
    };
    (model, options)
}
