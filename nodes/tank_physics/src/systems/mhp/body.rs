//! One rigid body per robot: mass properties from the modules and a symplectic Euler
//! integrator. An isolated body in unbounded fluid has no contacts and no joints, so it
//! needs nothing of rapier's (broad phase, constraint solver, islands); integrating it
//! here costs a few dozen flops per step whatever the robot's size (docs/mhp.md).

use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// The body of a robot.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBody {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia tensor about the centre of mass, body frame, kg m^2.
    pub inertia: Matrix3<f64>,
    /// Its inverse, 1 / (kg m^2).
    pub inertia_inv: Matrix3<f64>,
    /// Centre of mass, world frame, m.
    pub position: Vector3<f64>,
    /// Attitude (body to world).
    pub orientation: UnitQuaternion<f64>,
    /// Velocity of the centre of mass, world frame, m/s.
    pub velocity: Vector3<f64>,
    /// Angular velocity, body frame, rad/s.
    pub angular_velocity: Vector3<f64>,
    /// Planar: moves in the world x-y plane and turns about z only (the 2-D robot).
    pub planar: bool,
}

impl RigidBody {
    /// A body at rest at the origin of `mass` kg and inertia `inertia` (kg m^2, body
    /// frame); `None` when the inertia is singular.
    pub fn new(mass: f64, inertia: Matrix3<f64>, planar: bool) -> Option<Self> {
        Some(Self {
            mass,
            inertia,
            inertia_inv: inertia.try_inverse()?,
            position: Vector3::zeros(),
            orientation: UnitQuaternion::identity(),
            velocity: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
            planar,
        })
    }

    /// The body of equal modules of `module_mass` kg, square in plan with side `side` m,
    /// at `centres` (m, relative to their centroid). A module's own inertia is that of a
    /// cube of its side (exact about the vertical axis whatever its height, which is the
    /// only axis a planar robot turns about).
    pub fn of_modules(centres: impl Iterator<Item = Vector3<f64>>, module_mass: f64, side: f64, planar: bool) -> Option<Self> {
        let m = module_mass;
        let own = m * side * side / 6.0;
        let (mut mass, mut inertia) = (0.0, Matrix3::zeros());
        for r in centres {
            mass += m;
            inertia += Matrix3::identity() * (own + m * r.norm_squared()) - m * r * r.transpose();
        }
        Self::new(mass, inertia, planar)
    }

    /// One step of `dt` s under `force` (N) and `torque` (N m), both in the body frame.
    pub fn step(&mut self, mut force: Vector3<f64>, mut torque: Vector3<f64>, dt: f64) {
        if self.planar {
            force.z = 0.0;
            torque.x = 0.0;
            torque.y = 0.0;
        }
        self.velocity += self.orientation * force * (dt / self.mass);
        let w = self.angular_velocity;
        // Euler's equations in the body frame: I dw/dt = torque - w x (I w).
        self.angular_velocity += self.inertia_inv * (torque - w.cross(&(self.inertia * w))) * dt;
        if self.planar {
            self.velocity.z = 0.0;
            self.angular_velocity.x = 0.0;
            self.angular_velocity.y = 0.0;
        }
        // Renormalised every step: thousands of products would drift off unit length.
        let turned = self.orientation * UnitQuaternion::from_scaled_axis(self.angular_velocity * dt);
        self.orientation = UnitQuaternion::new_normalize(turned.into_inner());
        self.position += self.velocity * dt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inertia_of_two_cubes_by_hand() {
        // Two 1 m cubes of 1 kg at x = +-0.5: mass 2; I_xx = 2/6; I_yy = I_zz = 2/6 + 2 * 0.25.
        let centres = [Vector3::new(-0.5, 0.0, 0.0), Vector3::new(0.5, 0.0, 0.0)];
        let b = RigidBody::of_modules(centres.into_iter(), 1.0, 1.0, false).unwrap();
        assert!((b.mass - 2.0).abs() < 1e-12);
        assert!((b.inertia[(0, 0)] - 1.0 / 3.0).abs() < 1e-12);
        assert!((b.inertia[(1, 1)] - (1.0 / 3.0 + 0.5)).abs() < 1e-12);
        assert!(b.inertia[(0, 1)].abs() < 1e-12);
    }

    #[test]
    fn constant_force_and_free_spin() {
        let mut b = RigidBody::of_modules(std::iter::once(Vector3::zeros()), 2.0, 1.0, false).unwrap();
        // 2 kg, 1 N along body x for 1 s in 1000 steps: v = 0.5 m/s, x ~ 0.25 m.
        for _ in 0..1000 {
            b.step(Vector3::x(), Vector3::zeros(), 1e-3);
        }
        assert!((b.velocity.x - 0.5).abs() < 1e-9 && (b.position.x - 0.25).abs() < 1e-3, "{:?}", b.position);
        // A symmetric body keeps its spin; a quarter turn at pi/2 rad/s in 1 s.
        b.angular_velocity = Vector3::new(0.0, 0.0, std::f64::consts::FRAC_PI_2);
        b.velocity = Vector3::zeros();
        for _ in 0..1000 {
            b.step(Vector3::zeros(), Vector3::zeros(), 1e-3);
        }
        let x = b.orientation * Vector3::x();
        assert!((x - Vector3::y()).norm() < 1e-9, "{x}");
        // Planar bodies stay in the plane.
        let mut p = RigidBody::of_modules(std::iter::once(Vector3::zeros()), 1.0, 1.0, true).unwrap();
        p.step(Vector3::new(1.0, 0.0, 1.0), Vector3::new(1.0, 0.0, 1.0), 0.1);
        assert_eq!((p.velocity.z, p.angular_velocity.x), (0.0, 0.0));
        assert!(p.velocity.x > 0.0 && p.angular_velocity.z > 0.0);
    }
}
