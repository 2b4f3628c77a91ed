//! 3-D still water (the Blueswarm tank, SPEC 3): weight and buoyancy of the submerged
//! volume, a righting torque, anisotropic quadratic drag and added mass.

use super::drag3d::{Hull, ImplicitDrag};
use super::{BodyMotion, Hold, Medium, MediumKind, Surroundings, Wrench, GRAVITY};
use crate::arena::Arena;
use crate::world::PhysicsError;
use flotilla_common::catalogue::{Medium as Habitat, ModuleKind, ModuleSpec};
use nalgebra::Vector3;
use rand_chacha::ChaCha8Rng;
use rapier3d_f64::prelude::LockedAxes;

/// Bodies move freely in 3-D. Each step: weight `m g` at the centre of mass; buoyancy
/// `rho g V_sub` (V_sub below the surface, the body taken upright) at the metacentre,
/// [`ModuleSpec::metacentric_height`] above the centre of mass along the body's z, so a
/// tilted body is turned back upright; quadratic drag across each body axis
/// `-1/2 rho C A_i |v| v_i` and about it `-rho C M_i |w_i| w_i` ([`Hull`]), scaled by the
/// submerged fraction; added mass per body axis. Drag and added mass are integrated
/// implicitly ([`ImplicitDrag`]): a light body with a large added mass stays stable.
#[derive(Clone, Debug)]
pub struct WaterVolume {
    /// Water density, kg/m^3.
    rho: f64,
    /// Time step, s.
    dt: f64,
    /// Hull of each kind, by [`ModuleKind::index`].
    hulls: Vec<Hull>,
}

impl WaterVolume {
    /// Still water of density `rho` kg/m^3 for steps of `dt` s.
    pub fn new(rho: f64, dt: f64) -> Self {
        Self { rho, dt, hulls: ModuleKind::ALL.iter().map(|k| Hull::of(k.spec(), rho)).collect() }
    }

    /// Submerged volume (m^3) of a body of `spec` whose centre is at height `z` m, under a
    /// surface at `surface` m (upright).
    pub fn submerged_volume(spec: &ModuleSpec, z: f64, surface: f64) -> f64 {
        spec.shape.volume_below(surface - (z - spec.shape.half_height()))
    }

    /// Weight plus buoyancy and the righting torque on `body` (world frame).
    pub fn hydrostatics(&self, body: &BodyMotion, surface: f64) -> Wrench {
        let spec = body.spec;
        let submerged = Self::submerged_volume(spec, body.pose.translation.z, surface);
        let buoyancy = Vector3::new(0.0, 0.0, self.rho * GRAVITY * submerged);
        let metacentre = body.pose.rotation * Vector3::new(0.0, 0.0, spec.metacentric_height);
        Wrench { force: buoyancy - Vector3::new(0.0, 0.0, spec.mass * GRAVITY), torque: metacentre.cross(&buoyancy) }
    }
}

impl Medium for WaterVolume {
    fn kind(&self) -> MediumKind {
        MediumKind::WaterVolume
    }

    fn has_floor(&self) -> bool {
        true
    }

    fn hold(&self, spec: &ModuleSpec, arena: &Arena) -> Result<Hold, PhysicsError> {
        let surface = arena.surface_z.ok_or(PhysicsError::NeedsWater { kind: spec.kind, arena: arena.kind.name() })?;
        let half = spec.shape.half_height();
        // Weight is applied by the medium (so that added mass scales it too): no solver gravity.
        let spawn_z = match spec.medium {
            Habitat::Surface { draft } => surface - draft + half,
            Habitat::Submerged => 0.5 * surface,
            Habitat::Ground => half,
        };
        Ok(Hold { locked_axes: LockedAxes::empty(), gravity_scale: 0.0, spawn_z })
    }

    fn act(&self, surroundings: &Surroundings<'_>, body: &mut BodyMotion, _rng: &mut ChaCha8Rng, wrench: &mut Wrench) {
        let Some(surface) = surroundings.arena.surface_z else { return };
        let statics = self.hydrostatics(body, surface);
        wrench.force += statics.force;
        wrench.torque += statics.torque;
    }

    fn finish(&self, surroundings: &Surroundings<'_>, body: &BodyMotion, wrench: &mut Wrench) {
        let Some(surface) = surroundings.arena.surface_z else { return };
        let hull = &self.hulls[body.spec.kind.index()];
        let wetted = Self::submerged_volume(body.spec, body.pose.translation.z, surface) / hull.volume;
        let drag = ImplicitDrag { hull, mass: body.spec.mass, rho_c: self.rho * body.spec.drag_coefficient, wetted, dt: self.dt };
        drag.apply(&body.pose.rotation, body.linvel, body.angvel, &mut wrench.force, &mut wrench.torque);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Isometry3, UnitQuaternion};

    fn motion(kind: ModuleKind, pose: Isometry3<f64>) -> BodyMotion {
        BodyMotion { spec: kind.spec(), pose, linvel: Vector3::zeros(), angvel: Vector3::zeros(), flow_noise: nalgebra::Vector2::zeros() }
    }

    #[test]
    fn a_ball_at_its_draft_floats_in_equilibrium() {
        // The ball's mass is the water displaced at a 25 mm draft: centre at surface - 10 mm.
        let water = WaterVolume::new(1000.0, 0.025);
        let ball = motion(ModuleKind::PingPongBall, Isometry3::translation(0.0, 0.0, 0.2 - 0.010));
        let w = water.hydrostatics(&ball, 0.2);
        assert!(w.force.norm() < 1e-12, "{}", w.force);
        // 5 mm deeper: the cap of 30 mm holds pi 0.03^2 (0.045 - 0.03) / 3 = 14.137 cm^3
        // against 13.090 cm^3: 1000 * 9.81 * 1.0472e-6 = 0.010273 N up.
        let deeper = motion(ModuleKind::PingPongBall, Isometry3::translation(0.0, 0.0, 0.2 - 0.015));
        let f = water.hydrostatics(&deeper, 0.2).force.z;
        assert!((f - 0.0102730).abs() < 1e-6, "{f}");
    }

    #[test]
    fn a_tilted_bluebot_is_turned_back_by_the_metacentric_torque() {
        // Submerged Bluebot rolled by 30 deg about x: torque -rho g V GM sin 30 about x
        // = -1000 * 9.81 * 235e-6 * 0.005 * 0.5 = -5.763375e-3 N m.
        let water = WaterVolume::new(1000.0, 0.025);
        let roll = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 30f64.to_radians());
        let bot = motion(ModuleKind::Bluebot, Isometry3::from_parts(nalgebra::Translation3::new(0.0, 0.0, 0.4), roll));
        let w = water.hydrostatics(&bot, 0.91);
        // 130 x 45 x 40 mm box: 234 cm^3 submerged (the catalogue mass is 235 g).
        let volume = 0.13 * 0.045 * 0.04;
        let expect = -1000.0 * 9.81 * volume * 0.005 * 0.5;
        assert!((w.torque.x - expect).abs() < 1e-12 && w.torque.y.abs() < 1e-15, "{}", w.torque);
        assert!((expect + 5.7389e-3).abs() < 1e-7);
    }
}
