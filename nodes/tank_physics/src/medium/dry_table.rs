//! A dry table (Kilobots, SPEC 4): gravity holds bodies on the table top, no fluid at all.

use super::{BodyMotion, Hold, Medium, MediumKind, Surroundings, Wrench, GRAVITY};
use crate::arena::Arena;
use crate::world::PhysicsError;
use flotilla_common::catalogue::{Medium as Habitat, ModuleSpec};
use nalgebra::Vector3;
use rand_chacha::ChaCha8Rng;
use rapier3d_f64::prelude::LockedAxes;

/// Gravity through the solver onto a floor at z = 0; bodies keep upright (roll and pitch
/// locked) and move in the plane of the table; no drag, no damping, no random force.
#[derive(Clone, Copy, Debug, Default)]
pub struct DryTable;

impl Medium for DryTable {
    fn kind(&self) -> MediumKind {
        MediumKind::DryTable
    }

    fn gravity(&self) -> Vector3<f64> {
        Vector3::new(0.0, 0.0, -GRAVITY)
    }

    fn has_floor(&self) -> bool {
        true
    }

    fn hold(&self, spec: &ModuleSpec, arena: &Arena) -> Result<Hold, PhysicsError> {
        match (spec.medium, arena.surface_z) {
            (Habitat::Ground, _) => Ok(Hold {
                locked_axes: LockedAxes::ROTATION_LOCKED_X | LockedAxes::ROTATION_LOCKED_Y,
                gravity_scale: 1.0,
                spawn_z: spec.shape.half_height(),
            }),
            (_, None) => Err(PhysicsError::NeedsWater { kind: spec.kind, arena: arena.kind.name() }),
            (_, Some(_)) => Err(PhysicsError::WrongMedium { kind: spec.kind, medium: MediumKind::DryTable.name() }),
        }
    }

    fn act(&self, _surroundings: &Surroundings<'_>, _body: &mut BodyMotion, _rng: &mut ChaCha8Rng, _wrench: &mut Wrench) {}
}
