//! Independent particles in a 2-D harmonic well with friction and white-noise forcing
//! (an underdamped Ornstein-Uhlenbeck process):
//! `dv = (-stiffness x - damping v) dt + noise dW`, per axis.
//! Its MSD oscillates and reaches a plateau, like the stirred tank, and is known in
//! closed form, which makes it a test bench for the MSD and the PSO.

use nalgebra::Vector2;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

use super::Simulator;
use crate::kinematics::RegularTracks;
use crate::CalibrationError;

/// Parameter order: `[stiffness (1/s^2), damping (1/s), noise (m/s^1.5)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct OrnsteinUhlenbeck {
    /// Number of particles (dimensionless; default 24).
    pub particles: usize,
    /// Output frame interval (s; default 0.025).
    pub dt: f64,
    /// Euler-Maruyama sub-steps per frame (dimensionless; default 10).
    pub substeps: usize,
}

impl Default for OrnsteinUhlenbeck {
    fn default() -> Self {
        Self { particles: 24, dt: 0.025, substeps: 10 }
    }
}

impl OrnsteinUhlenbeck {
    /// Closed-form MSD at lag `t` (s) for one particle in 2-D (m^2):
    /// `4 <x^2> (1 - C(t))`, `<x^2> = noise^2 / (2 damping stiffness)`,
    /// `C(t) = e^{-damping t / 2} (cos(w t) + damping / (2 w) sin(w t))`,
    /// `w = sqrt(stiffness - damping^2 / 4)` (underdamped case only).
    pub fn analytic_msd(parameters: &[f64], t: f64) -> f64 {
        let (k, gamma, sigma) = (parameters[0], parameters[1], parameters[2]);
        let variance = sigma * sigma / (2.0 * gamma * k);
        let w = (k - 0.25 * gamma * gamma).sqrt();
        let c = (-0.5 * gamma * t).exp() * ((w * t).cos() + gamma / (2.0 * w) * (w * t).sin());
        4.0 * variance * (1.0 - c)
    }
}

impl Simulator for OrnsteinUhlenbeck {
    fn parameter_names(&self) -> Vec<String> {
        ["stiffness", "damping", "noise"].map(String::from).to_vec()
    }

    fn frame_interval(&self) -> f64 {
        self.dt
    }

    fn simulate(&self, parameters: &[f64], frames: usize, seed: u64) -> Result<RegularTracks, CalibrationError> {
        let &[k, gamma, sigma] = parameters else {
            return Err(CalibrationError::Setting(format!("the OU simulator takes 3 parameters, got {}", parameters.len())));
        };
        if !(k > 0.0 && gamma > 0.0 && sigma >= 0.0) {
            return Err(CalibrationError::Setting(format!(
                "OU parameters must have stiffness > 0, damping > 0, noise >= 0, got {parameters:?}"
            )));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut normal = || -> Vector2<f64> { Vector2::new(StandardNormal.sample(&mut rng), StandardNormal.sample(&mut rng)) };
        let h = self.dt / self.substeps.max(1) as f64;
        // Start in the stationary distribution so no warm-up is needed.
        let (sd_x, sd_v) = ((sigma * sigma / (2.0 * gamma * k)).sqrt(), (sigma * sigma / (2.0 * gamma)).sqrt());
        let tracks = (0..self.particles)
            .map(|_| {
                let mut x = normal() * sd_x;
                let mut v = normal() * sd_v;
                (0..frames)
                    .map(|frame| {
                        if frame > 0 {
                            for _ in 0..self.substeps.max(1) {
                                v += (-k * x - gamma * v) * h + normal() * (sigma * h.sqrt());
                                x += v * h;
                            }
                        }
                        Some(x)
                    })
                    .collect()
            })
            .collect();
        Ok(RegularTracks { dt: self.dt, tracks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::msd::{mean_squared_displacement, MsdSettings};

    #[test]
    fn analytic_msd_hand_values() {
        // k = 4, gamma = 2, sigma = 2: <x^2> = 4 / 16 = 0.25, w = sqrt(3).
        let p = [4.0, 2.0, 2.0];
        assert_eq!(OrnsteinUhlenbeck::analytic_msd(&p, 0.0), 0.0);
        // t = 1: C = e^-1 (cos sqrt3 + sin sqrt3 / sqrt3) = 0.367879 * (-0.160557 + 0.569860) = 0.150574
        let expected = 4.0 * 0.25 * (1.0 - 0.150_574);
        assert!((OrnsteinUhlenbeck::analytic_msd(&p, 1.0) - expected).abs() < 1e-5);
        // Plateau: 4 <x^2> = 1.
        assert!((OrnsteinUhlenbeck::analytic_msd(&p, 50.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn simulated_msd_matches_closed_form() {
        let p = [6.0, 1.5, 0.05];
        let sim = OrnsteinUhlenbeck { particles: 64, ..OrnsteinUhlenbeck::default() };
        let tracks = sim.simulate(&p, 4000, 1).unwrap();
        let msd = mean_squared_displacement(&tracks, &MsdSettings { window_frames: 200, start_stride: 10 }).unwrap();
        let plateau = OrnsteinUhlenbeck::analytic_msd(&p, 1e3);
        for (t, value) in msd.lags().zip(&msd.values).step_by(10) {
            let expected = OrnsteinUhlenbeck::analytic_msd(&p, t);
            assert!((value - expected).abs() < 0.08 * plateau, "t {t}: {value} vs {expected}");
        }
    }

    #[test]
    fn deterministic_per_seed() {
        let sim = OrnsteinUhlenbeck { particles: 2, ..OrnsteinUhlenbeck::default() };
        let a = sim.simulate(&[1.0, 1.0, 0.1], 10, 5).unwrap();
        assert_eq!(a, sim.simulate(&[1.0, 1.0, 0.1], 10, 5).unwrap());
        assert_ne!(a, sim.simulate(&[1.0, 1.0, 0.1], 10, 6).unwrap());
        assert!(sim.simulate(&[1.0, 1.0], 10, 5).is_err());
    }
}
