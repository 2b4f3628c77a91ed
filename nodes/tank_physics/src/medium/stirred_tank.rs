//! The Lily tank of SPEC 1: bodies float planar at their draft, pushed by the stirred flow.

use super::{planar_spawn_z, BodyMotion, Hold, Medium, MediumKind, Surroundings, Wrench, PLANAR};
use crate::arena::Arena;
use crate::config::HydroParams;
use crate::hydro::{self, DragModel};
use crate::world::PhysicsError;
use flotilla_common::catalogue::{ModuleKind, ModuleSpec};
use nalgebra::{Point2, Vector2, Vector3};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

/// Per-cell flow sampling, quadratic drag per face section (limited so that one step
/// never reverses the relative motion), stochastic force, Webots damping (on every body,
/// in water or not); planar at the draft, no gravity.
#[derive(Clone, Debug)]
pub struct StirredTank {
    /// The model's parameters.
    hydro: HydroParams,
    /// Time step, s.
    dt: f64,
    /// Linear velocity kept per step (Webots damping), fraction.
    linear_keep: f64,
    /// Angular velocity kept per step (Webots damping), fraction.
    angular_keep: f64,
    /// Flow fluctuation kept per step, `exp(-dt / flow_correlation_time)` (0: white).
    flow_keep: f64,
    /// Drag model of each kind, by [`ModuleKind::index`].
    drag: Vec<DragModel>,
    /// z moment of inertia of each kind, by [`ModuleKind::index`], kg m^2.
    inertia_z: Vec<f64>,
}

impl StirredTank {
    /// The model with `hydro`'s parameters for steps of `dt` s.
    pub fn new(hydro: &HydroParams, dt: f64) -> Self {
        Self {
            hydro: hydro.clone(),
            dt,
            linear_keep: hydro::damping_factor(hydro.d_linear, dt),
            angular_keep: hydro::damping_factor(hydro.d_angular, dt),
            flow_keep: if hydro.flow_correlation_time > 0.0 { (-dt / hydro.flow_correlation_time).exp() } else { 0.0 },
            drag: ModuleKind::ALL.iter().map(|k| DragModel::new(k.spec(), hydro.face_sections)).collect(),
            inertia_z: ModuleKind::ALL.iter().map(|k| k.spec().inertia().z).collect(),
        }
    }
}

impl Medium for StirredTank {
    fn kind(&self) -> MediumKind {
        MediumKind::StirredTank
    }

    fn hold(&self, spec: &ModuleSpec, arena: &Arena) -> Result<Hold, PhysicsError> {
        // Buoyancy holds a floater at its draft and cancels gravity: the body is planar.
        Ok(Hold { locked_axes: PLANAR, gravity_scale: 0.0, spawn_z: planar_spawn_z(spec, arena)? })
    }

    fn act(&self, surroundings: &Surroundings<'_>, body: &mut BodyMotion, rng: &mut ChaCha8Rng, wrench: &mut Wrench) {
        let hydro = &self.hydro;
        // Draws happen for every body in id order, whatever its kind, so that a seed fixes
        // the whole run.
        let fresh = Vector2::new(rng.sample(StandardNormal), rng.sample(StandardNormal));
        let z_flow = hydro::correlated_noise(self.flow_keep, body.flow_noise, fresh);
        body.flow_noise = z_flow;
        let z_stoch = Vector2::new(rng.sample(StandardNormal), rng.sample(StandardNormal));
        body.linvel *= self.linear_keep;
        body.angvel *= self.angular_keep;
        let kind = body.spec.kind.index();
        let drag = &self.drag[kind];
        if matches!(drag, DragModel::None) {
            return;
        }
        let pose = &body.pose;
        let centre = Point2::new(pose.translation.x, pose.translation.y);
        let v_flow =
            surroundings.flow.sample_cell(centre).map(|cell| hydro::sample_flow(cell, hydro.kv, z_flow)).unwrap_or_else(Vector3::zeros);
        let (linvel, angvel) = (body.linvel, body.angvel);
        let (f, t) = hydro::drag(drag, pose, linvel, angvel, v_flow, hydro.kf, hydro.water_density);
        let rel_speed = Vector3::new(linvel.x - v_flow.x, linvel.y - v_flow.y, 0.0).norm();
        wrench.force += hydro::limit_drag(f, rel_speed, body.spec.mass, self.dt);
        // The same limiter on the spin: drag torque cannot more than stop it in a step.
        wrench.torque += hydro::limit_drag(t, angvel.z.abs(), self.inertia_z[kind], self.dt);
        wrench.force += hydro::stochastic_force(hydro.sigma_stoch, z_stoch);
    }
}
