//! Constant-velocity Kalman filter on the plane. Both axes share one 2x2 covariance
//! (position, velocity) because they see the same noise model and the same updates.

/// State of one target: position, velocity and their shared per-axis covariance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConstantVelocity {
    /// Position, m.
    pub position: [f64; 2],
    /// Velocity, m/s.
    pub velocity: [f64; 2],
    /// Position variance per axis, m^2.
    pub var_position: f64,
    /// Position-velocity covariance per axis, m^2/s.
    pub cov_position_velocity: f64,
    /// Velocity variance per axis, m^2/s^2.
    pub var_velocity: f64,
}

impl ConstantVelocity {
    /// A target first seen at `position` (m) with unknown velocity.
    pub fn new(position: [f64; 2], position_sigma: f64, velocity_sigma: f64) -> Self {
        Self {
            position,
            velocity: [0.0; 2],
            var_position: position_sigma * position_sigma,
            cov_position_velocity: 0.0,
            var_velocity: velocity_sigma * velocity_sigma,
        }
    }

    /// Propagates over `dt` (s) under continuous white acceleration noise of power
    /// spectral density `q` (m^2/s^3):
    /// `P' = F P F^T + q [[dt^3/3, dt^2/2], [dt^2/2, dt]]`.
    ///
    /// The continuous model stays well damped when measurements are trusted far more than
    /// the motion model (velocity gain 1.5/dt); the piecewise-constant one rings (2/dt).
    pub fn predict(&mut self, dt: f64, q: f64) {
        for axis in 0..2 {
            self.position[axis] += self.velocity[axis] * dt;
        }
        let (pp, pv, vv) = (self.var_position, self.cov_position_velocity, self.var_velocity);
        self.var_position = pp + 2.0 * dt * pv + dt * dt * vv + q * dt.powi(3) / 3.0;
        self.cov_position_velocity = pv + dt * vv + q * dt * dt / 2.0;
        self.var_velocity = vv + q * dt;
    }

    /// Variance of the innovation for a position measurement of std `measurement_sigma`, m^2.
    pub fn innovation_variance(&self, measurement_sigma: f64) -> f64 {
        self.var_position + measurement_sigma * measurement_sigma
    }

    /// Corrects with a measured position `z` (m) of std `measurement_sigma` (m).
    pub fn update(&mut self, z: [f64; 2], measurement_sigma: f64) {
        let s = self.innovation_variance(measurement_sigma);
        let (gain_p, gain_v) = (self.var_position / s, self.cov_position_velocity / s);
        for ((position, velocity), measured) in self.position.iter_mut().zip(&mut self.velocity).zip(z) {
            let innovation = measured - *position;
            *position += gain_p * innovation;
            *velocity += gain_v * innovation;
        }
        let (pp, pv, vv) = (self.var_position, self.cov_position_velocity, self.var_velocity);
        self.var_position = pp * (1.0 - gain_p);
        self.cov_position_velocity = pv * (1.0 - gain_p);
        self.var_velocity = vv - gain_v * pv;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predict_hand_computed() {
        // P = [[1, 0], [0, 4]], dt = 0.5, q = 4:
        // pp = 1 + 0 + 0.25*4 + 4*0.125/3 = 2.1666..; pv = 0 + 0.5*4 + 4*0.25/2 = 2.5;
        // vv = 4 + 4*0.5 = 6.
        let mut f = ConstantVelocity::new([1.0, 2.0], 1.0, 2.0);
        f.velocity = [2.0, -1.0];
        f.predict(0.5, 4.0);
        assert_eq!(f.position, [2.0, 1.5]);
        assert!((f.var_position - (2.0 + 1.0 / 6.0)).abs() < 1e-12);
        assert!((f.cov_position_velocity - 2.5).abs() < 1e-12);
        assert!((f.var_velocity - 6.0).abs() < 1e-12);
    }

    #[test]
    fn update_hand_computed() {
        // pp = 3, pv = 1, vv = 2, r = 1: S = 4, K = (0.75, 0.25).
        // Innovation 4 along x: x += 3, vx += 1. pp' = 0.75, pv' = 0.25, vv' = 1.75.
        let mut f = ConstantVelocity {
            position: [0.0, 0.0],
            velocity: [0.0, 0.0],
            var_position: 3.0,
            cov_position_velocity: 1.0,
            var_velocity: 2.0,
        };
        f.update([4.0, 0.0], 1.0);
        assert_eq!(f.position, [3.0, 0.0]);
        assert_eq!(f.velocity, [1.0, 0.0]);
        assert!((f.var_position - 0.75).abs() < 1e-12);
        assert!((f.cov_position_velocity - 0.25).abs() < 1e-12);
        assert!((f.var_velocity - 1.75).abs() < 1e-12);
    }

    #[test]
    fn learns_a_constant_velocity() {
        let mut f = ConstantVelocity::new([0.0, 0.0], 0.001, 1.0);
        for k in 1..=30 {
            f.predict(0.1, 0.01);
            f.update([0.2 * 0.1 * f64::from(k), -0.05 * 0.1 * f64::from(k)], 0.001);
        }
        assert!((f.velocity[0] - 0.2).abs() < 1e-3 && (f.velocity[1] + 0.05).abs() < 1e-3, "{f:?}");
    }
}
