//! Unbounded fluid (MHP, SPEC 5): no walls, neutral buoyancy, quadratic drag per module.

use super::drag3d::{Hull, ImplicitDrag};
use super::{planar_spawn_z, BodyMotion, Hold, Medium, MediumKind, Surroundings, Wrench};
use crate::arena::Arena;
use crate::world::PhysicsError;
use flotilla_common::catalogue::{ModuleKind, ModuleSpec};
use rand_chacha::ChaCha8Rng;
use rapier3d_f64::prelude::LockedAxes;

/// Bodies move freely in 3-D, neutrally buoyant (no gravity, no buoyancy), against
/// quadratic drag `-1/2 rho C A_i |v| v_i` across each body axis (C from the catalogue,
/// 0.8 for MHP modules) and `-rho C M_i |w_i| w_i` about it, integrated implicitly; a
/// constant force F along a body axis gives the terminal speed `sqrt(2 F / (rho A C))`.
#[derive(Clone, Debug)]
pub struct UnboundedFluid {
    /// Fluid density, kg/m^3.
    rho: f64,
    /// Time step, s.
    dt: f64,
    /// Hull of each kind, by [`ModuleKind::index`].
    hulls: Vec<Hull>,
}

impl UnboundedFluid {
    /// A fluid of density `rho` kg/m^3 for steps of `dt` s.
    pub fn new(rho: f64, dt: f64) -> Self {
        Self { rho, dt, hulls: ModuleKind::ALL.iter().map(|k| Hull::of(k.spec(), rho)).collect() }
    }
}

impl Medium for UnboundedFluid {
    fn kind(&self) -> MediumKind {
        MediumKind::UnboundedFluid
    }

    fn hold(&self, spec: &ModuleSpec, arena: &Arena) -> Result<Hold, PhysicsError> {
        // Spawned where the planar tank would put it; from there on free in 3-D.
        Ok(Hold { locked_axes: LockedAxes::empty(), gravity_scale: 0.0, spawn_z: planar_spawn_z(spec, arena)? })
    }

    fn act(&self, _surroundings: &Surroundings<'_>, _body: &mut BodyMotion, _rng: &mut ChaCha8Rng, _wrench: &mut Wrench) {}

    fn finish(&self, _surroundings: &Surroundings<'_>, body: &BodyMotion, wrench: &mut Wrench) {
        let hull = &self.hulls[body.spec.kind.index()];
        // Neutral buoyancy in an unbounded fluid: no added mass in SPEC 5's model.
        let hull = Hull { added_mass: nalgebra::Vector3::zeros(), ..*hull };
        let drag =
            ImplicitDrag { hull: &hull, mass: body.spec.mass, rho_c: self.rho * body.spec.drag_coefficient, wetted: 1.0, dt: self.dt };
        drag.apply(&body.pose.rotation, body.linvel, body.angvel, &mut wrench.force, &mut wrench.torque);
    }
}
