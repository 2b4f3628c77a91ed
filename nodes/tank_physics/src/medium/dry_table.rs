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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ArenaConfig;
    use flotilla_common::catalogue::ModuleKind;
    use flotilla_common::flow_field::{FlowGrid, GridExtent};
    use nalgebra::Isometry3;
    use rand::SeedableRng;

    #[test]
    fn no_fluid_forces_and_no_damping() {
        let arena = Arena::new(&ArenaConfig { kind: crate::ArenaKind::Table, ..ArenaConfig::default() });
        let flow = FlowGrid::new(2, 2, GridExtent::centred_square(1.0)).unwrap();
        let surroundings = Surroundings { arena: &arena, flow: &flow };
        let (linvel, angvel) = (Vector3::new(0.3, -0.1, 0.0), Vector3::new(0.0, 0.0, 2.0));
        let mut body = BodyMotion {
            spec: ModuleKind::Kilobot.spec(),
            pose: Isometry3::identity(),
            linvel,
            angvel,
            flow_noise: nalgebra::Vector2::zeros(),
        };
        let mut wrench = Wrench::default();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        DryTable.act(&surroundings, &mut body, &mut rng, &mut wrench);
        DryTable.finish(&surroundings, &body, &mut wrench);
        assert_eq!((body.linvel, body.angvel, wrench), (linvel, angvel, Wrench::default()));
        // Held upright on the table top under full gravity.
        let hold = DryTable.hold(ModuleKind::Kilobot.spec(), &arena).unwrap();
        assert_eq!((hold.gravity_scale, hold.spawn_z), (1.0, 0.015));
        assert_eq!(DryTable.gravity(), Vector3::new(0.0, 0.0, -9.81));
    }
}
