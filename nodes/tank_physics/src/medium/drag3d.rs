//! Quadratic drag and added mass of a whole body moving in 3-D, per body axis, integrated
//! implicitly so that light bodies with strong drag or large added mass stay stable.

use flotilla_common::catalogue::{ModuleSpec, Shape};
use nalgebra::Vector3;

/// What the 3-D media need of a kind's hull, computed once per kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hull {
    /// Volume, m^3.
    pub volume: f64,
    /// Projected area across each body axis, m^2.
    pub areas: Vector3<f64>,
    /// Rotational drag moment about each body axis, m^5: torque `-rho C moment |w| w`.
    pub moments: Vector3<f64>,
    /// Added mass when fully submerged, per body axis, kg.
    pub added_mass: Vector3<f64>,
    /// Principal moments of inertia, kg m^2.
    pub inertia: Vector3<f64>,
}

impl Hull {
    /// The hull of `spec` in a fluid of density `rho` kg/m^3.
    pub fn of(spec: &ModuleSpec, rho: f64) -> Self {
        let volume = spec.shape.volume_below(f64::INFINITY);
        Self {
            volume,
            areas: spec.shape.projected_areas(),
            moments: rotational_drag_moments(&spec.shape),
            added_mass: spec.added_mass * (rho * volume),
            inertia: spec.inertia(),
        }
    }
}

/// Rotational drag moments of a shape, m^5. A box of half extents `e` turning at `w`
/// about axis i meets the fluid with the faces parallel to that axis; integrating
/// `1/2 rho C (w r)^2` times the lever `r` over them gives `-rho C e_i (e_j^4 + e_k^4) |w| w`.
/// A sphere has no pressure drag when it spins (skin friction is neglected); a cylinder
/// about its axis neither, and about a cross axis counts as its bounding box.
pub fn rotational_drag_moments(shape: &Shape) -> Vector3<f64> {
    let of_box = |e: Vector3<f64>| {
        let q = e.map(|v| v.powi(4));
        Vector3::new(e.x * (q.y + q.z), e.y * (q.x + q.z), e.z * (q.x + q.y))
    };
    match *shape {
        Shape::Sphere { .. } => Vector3::zeros(),
        Shape::Box { half_extents } => of_box(half_extents),
        Shape::Cylinder { radius, half_height } => {
            let b = of_box(Vector3::new(radius, radius, half_height));
            Vector3::new(b.x, b.y, 0.0)
        }
    }
}

/// One implicit step of `m dv/dt = force - k |speed| v` along one axis: the velocity after
/// `dt` s starting from `v` m/s, with the drag linearised about the current `speed` m/s
/// (`k` in N s^2/m^2, `force` N, `mass` kg). Stable for any step; at steady state
/// `force = k speed v`, the exact terminal velocity. Works unchanged for rotation (torque,
/// moment of inertia, angular velocity).
pub fn implicit_quadratic(v: f64, speed: f64, k: f64, force: f64, mass: f64, dt: f64) -> f64 {
    (v + dt * force / mass) / (1.0 + k * speed * dt / mass)
}

/// The wrench a solver integrating with the body's own mass and inertia must apply so that
/// the body ends the step as if it had felt `force` and `torque` (world frame, everything
/// but drag) plus quadratic drag, carrying `added_mass` (kg per body axis) along.
/// `drag_scale` scales areas and moments (the submerged fraction), `rho C` the fluid.
pub(crate) struct ImplicitDrag<'a> {
    /// Hull of the body's kind.
    pub hull: &'a Hull,
    /// Body mass, kg.
    pub mass: f64,
    /// `rho * C`, kg/m^3.
    pub rho_c: f64,
    /// Fraction of the hull in the fluid (scales drag and added mass).
    pub wetted: f64,
    /// Time step, s.
    pub dt: f64,
}

impl ImplicitDrag<'_> {
    /// Replaces `force` and `torque` (world frame) by what the solver must apply.
    pub(crate) fn apply(
        &self,
        rotation: &nalgebra::UnitQuaternion<f64>,
        linvel: Vector3<f64>,
        angvel: Vector3<f64>,
        force: &mut Vector3<f64>,
        torque: &mut Vector3<f64>,
    ) {
        let h = self.hull;
        let (v, f) = (rotation.inverse_transform_vector(&linvel), rotation.inverse_transform_vector(force));
        let speed = v.norm();
        let mut applied = Vector3::zeros();
        for i in 0..3 {
            let k = 0.5 * self.rho_c * h.areas[i] * self.wetted;
            let m_eff = self.mass + h.added_mass[i] * self.wetted;
            let v_new = implicit_quadratic(v[i], speed, k, f[i], m_eff, self.dt);
            applied[i] = self.mass * (v_new - v[i]) / self.dt;
        }
        *force = rotation * applied;
        let (w, t) = (rotation.inverse_transform_vector(&angvel), rotation.inverse_transform_vector(torque));
        let mut applied = Vector3::zeros();
        for i in 0..3 {
            let c = self.rho_c * h.moments[i] * self.wetted;
            let w_new = implicit_quadratic(w[i], w[i].abs(), c, t[i], h.inertia[i], self.dt);
            applied[i] = h.inertia[i] * (w_new - w[i]) / self.dt;
        }
        *torque = rotation * applied;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotational_moments_by_hand() {
        // Box 0.1 x 0.2 x 0.3 half extents: about z, 0.3 * (0.1^4 + 0.2^4) = 0.3 * 0.0017 = 5.1e-4.
        let m = rotational_drag_moments(&Shape::Box { half_extents: Vector3::new(0.1, 0.2, 0.3) });
        assert!((m.z - 5.1e-4).abs() < 1e-15, "{m}");
        // About x: 0.1 * (0.2^4 + 0.3^4) = 0.1 * 0.0097 = 9.7e-4.
        assert!((m.x - 9.7e-4).abs() < 1e-15, "{m}");
        assert_eq!(rotational_drag_moments(&Shape::Sphere { radius: 0.1 }), Vector3::zeros());
    }

    #[test]
    fn implicit_step_by_hand() {
        // From rest, 2 N on 0.5 kg for 0.1 s: 0.4 m/s (no drag yet at speed 0).
        assert!((implicit_quadratic(0.0, 0.0, 3.0, 2.0, 0.5, 0.1) - 0.4).abs() < 1e-15);
        // At 1 m/s, k = 3: (1 + 0.4) / (1 + 3 * 1 * 0.1 / 0.5) = 1.4 / 1.6 = 0.875 m/s.
        assert!((implicit_quadratic(1.0, 1.0, 3.0, 2.0, 0.5, 0.1) - 0.875).abs() < 1e-15);
        // At the terminal speed sqrt(F / k) = sqrt(2 / 3) it stays.
        let vt = (2.0f64 / 3.0).sqrt();
        assert!((implicit_quadratic(vt, vt, 3.0, 2.0, 0.5, 0.1) - vt).abs() < 1e-15);
    }

    #[test]
    fn drag_with_added_mass_slows_the_start_and_keeps_the_terminal_speed() {
        let hull = Hull {
            volume: 1e-3,
            areas: Vector3::repeat(0.01),
            moments: Vector3::zeros(),
            added_mass: Vector3::new(4.0, 0.0, 0.0),
            inertia: Vector3::repeat(1e-3),
        };
        let drag = ImplicitDrag { hull: &hull, mass: 1.0, rho_c: 1000.0, wetted: 1.0, dt: 0.01 };
        // 10 N along x from rest on 1 kg + 4 kg added: dv = 10 * 0.01 / 5 = 0.02 m/s, which
        // the solver gets as 1 kg * 0.02 / 0.01 = 2 N.
        let (mut f, mut t) = (Vector3::new(10.0, 0.0, 0.0), Vector3::zeros());
        drag.apply(&nalgebra::UnitQuaternion::identity(), Vector3::zeros(), Vector3::zeros(), &mut f, &mut t);
        assert!((f - Vector3::new(2.0, 0.0, 0.0)).norm() < 1e-12, "{f}");
        // Terminal speed sqrt(2 F / (rho C A)) = sqrt(20 / 10) = 1.41421 m/s, whatever the added mass.
        let mut v = Vector3::zeros();
        for _ in 0..20_000 {
            let (mut f, mut t) = (Vector3::new(10.0, 0.0, 0.0), Vector3::zeros());
            drag.apply(&nalgebra::UnitQuaternion::identity(), v, Vector3::zeros(), &mut f, &mut t);
            v += f * (0.01 / 1.0);
        }
        assert!((v.x - 2f64.sqrt()).abs() < 1e-9, "{v}");
    }
}
