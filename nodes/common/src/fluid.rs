//! Fluid mechanics shared by the physics and the calibration (SPEC 1): the density of
//! water, the mass of a floating body, and the quadratic drag law
//! `|F| = 1/2 rho A C |v_rel|^2` both forwards (force from the relative velocity) and
//! inverted (the slip speed that explains an acceleration), so that the simulated drag
//! and the drag the flow estimation inverts are one formula.

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

use crate::catalogue::ModuleSpec;
pub use crate::catalogue::{floating_mass, WATER_DENSITY};

/// Quadratic drag of a body in a fluid (high Reynolds number, SPEC 1: Re ~ 6700).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct QuadraticDrag {
    /// Submerged cross-section facing the flow, A (m^2).
    pub area: f64,
    /// Drag coefficient, C (dimensionless).
    pub coefficient: f64,
    /// Fluid density, rho (kg/m^3).
    pub density: f64,
}

impl QuadraticDrag {
    /// The drag of a catalogue module (its frontal area and drag coefficient) in a fluid
    /// of `density` kg/m^3.
    pub fn of_module(spec: &ModuleSpec, density: f64) -> Self {
        Self { area: spec.frontal_area, coefficient: spec.drag_coefficient, density }
    }

    /// Drag force (N) on a body moving at `v_rel` (m/s) relative to the fluid, scaled by
    /// `gain` (dimensionless; 1 for the plain law, the model's K_F in the tank):
    /// `-gain 1/2 rho A C |v_rel| v_rel`, against the relative motion.
    pub fn force(&self, v_rel: Vector3<f64>, gain: f64) -> Vector3<f64> {
        self.force_at_speed(v_rel, v_rel.norm(), gain)
    }

    /// [`QuadraticDrag::force`] with `speed` = |v_rel| already at hand (one root less in a
    /// per-section loop), N.
    pub fn force_at_speed(&self, v_rel: Vector3<f64>, speed: f64, gain: f64) -> Vector3<f64> {
        -gain * 0.5 * self.density * self.area * self.coefficient * speed * v_rel
    }

    /// The relative speed (m/s) at which drag alone gives a body of `mass` kg an
    /// acceleration of magnitude `acceleration` m/s^2: `sqrt(2 m |a| / (rho A C))`, the
    /// inverse of [`QuadraticDrag::force`] with gain 1.
    pub fn slip_speed(&self, mass: f64, acceleration: f64) -> f64 {
        (2.0 * mass * acceleration / (self.density * self.area * self.coefficient)).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::{ModuleKind, Shape};

    #[test]
    fn ball_mass_by_hand() {
        // A 3 cm ball floating 25 mm deep displaces a spherical cap:
        // pi * 0.025^2 * (0.045 - 0.025) / 3 * 1000 = 0.0130900 kg.
        assert!((floating_mass(&Shape::Sphere { radius: 0.015 }, 0.025) - 0.013_090_0).abs() < 1e-7);
        assert_eq!(ModuleKind::PingPongBall.spec().mass, floating_mass(&Shape::Sphere { radius: 0.015 }, 0.025));
    }

    #[test]
    fn force_by_hand() {
        let drag = QuadraticDrag { area: 7e-4, coefficient: 0.47, density: 1000.0 };
        // v_rel = (0.3, -0.4), |v| = 0.5: |F| = 0.5 * 1000 * 7e-4 * 0.47 * 0.25 = 0.041125 N.
        let f = drag.force(Vector3::new(0.3, -0.4, 0.0), 1.0);
        assert!((f - Vector3::new(-0.024_675, 0.0329, 0.0)).norm() < 1e-12, "{f}");
        assert!((drag.force(Vector3::new(0.3, -0.4, 0.0), 2.0) - 2.0 * f).norm() < 1e-15);
        assert_eq!(drag.force(Vector3::zeros(), 1.0), Vector3::zeros());
    }

    #[test]
    fn slip_speed_inverts_the_force() {
        let ball = ModuleKind::PingPongBall.spec();
        let drag = QuadraticDrag::of_module(ball, WATER_DENSITY);
        for speed in [0.01, 0.2, 1.5] {
            let a = drag.force(Vector3::new(speed, 0.0, 0.0), 1.0).norm() / ball.mass;
            assert!((drag.slip_speed(ball.mass, a) - speed).abs() < 1e-12 * speed.max(1.0), "{speed}");
        }
        // |a| = 0.5 m/s^2, m = 0.01309 kg: sqrt(2 * 0.01309 * 0.5 / (1000 * 7e-4 * 0.47)) = 0.199467 m/s.
        assert!((drag.slip_speed(0.01309, 0.5) - 0.199_467).abs() < 1e-6);
    }
}
