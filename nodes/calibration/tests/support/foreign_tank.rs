//! A "foreign" tank for the calibration bench (issue #19, item 5): a 2-D simulator of
//! floating balls written independently of `tank_physics` (no code shared), so that the
//! calibration is measured on recordings Flotilla's own physics did not make.
//!
//! What differs from `tank_physics` on purpose:
//! - flow: a swirl with a **still core** (no flow inside `core_radius`), an outward
//!   surface drift (the tea-leaf secondary flow seen by floaters), wall jets that decay
//!   as `d0 / (d0 + s)` and pulse in time, and two Lamb-Oseen side vortices; plus an
//!   Ornstein-Uhlenbeck turbulent velocity per ball (coloured, correlation time
//!   `turbulence_time`), where Flotilla draws white noise per step;
//! - drag: linear + quadratic with added mass, solved implicitly per substep;
//! - integration: semi-implicit Euler at `substep` (1/240 s), frames at 30 Hz;
//! - contacts: soft spring-dashpot spheres against the wall and each other;
//! - tracking: Gaussian position noise, missing detections, track dropouts and identity
//!   swaps between close balls.
//!
//! Deterministic per seed (ChaCha12).

#![allow(dead_code)]

use std::f64::consts::PI;

use flotilla_common::trajectory::{TrajectoryRecording, TrajectorySample};
use nalgebra::{Point2, Vector2};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use rand_distr::StandardNormal;

/// The simulated tank and its balls.
#[derive(Clone, Debug)]
pub struct ForeignTank {
    /// Inner radius of the round tank (m).
    pub radius: f64,
    /// Balls (dimensionless).
    pub balls: usize,
    /// Ball radius (m).
    pub ball_radius: f64,
    /// Ball mass (kg).
    pub mass: f64,
    /// Added-mass coefficient of the half-submerged ball (dimensionless).
    pub added_mass: f64,
    /// Linear drag coefficient (N s/m).
    pub linear_drag: f64,
    /// Quadratic drag `1/2 rho A C` (kg/m).
    pub quadratic_drag: f64,
    /// Stirring strength, a factor on every flow velocity (dimensionless; 1 = nominal).
    pub stirring: f64,
    /// Water level below the rim (m); the jets sit 0.11 m below the rim, so a higher
    /// level (smaller value) couples them less to the surface, and the still core grows
    /// with the level's distance from the rim.
    pub water_level: f64,
    /// Wall jets (dimensionless).
    pub jets: usize,
    /// RMS of the turbulent velocity per axis at nominal stirring (m/s).
    pub turbulence: f64,
    /// Correlation time of the turbulent velocity (s).
    pub turbulence_time: f64,
    /// Integration substep (s).
    pub substep: f64,
    /// Simulated before recording starts (s).
    pub warmup: f64,
}

impl Default for ForeignTank {
    fn default() -> Self {
        Self {
            radius: 0.3,
            balls: 24,
            ball_radius: 0.02,
            mass: 0.0131,
            added_mass: 0.25,
            linear_drag: 0.03,
            quadratic_drag: 0.5 * 1000.0 * 6e-4 * 0.5,
            stirring: 1.0,
            water_level: 0.08,
            jets: 4,
            turbulence: 0.05,
            turbulence_time: 0.5,
            substep: 1.0 / 240.0,
            warmup: 20.0,
        }
    }
}

/// What the tracker does to the true positions.
#[derive(Clone, Copy, Debug)]
pub struct Tracking {
    /// Frame rate (1/s).
    pub frame_rate: f64,
    /// Position noise per axis (m).
    pub position_sd: f64,
    /// Probability that one detection is missing (dimensionless).
    pub missing: f64,
    /// Rate at which a ball's track drops out (1/s per ball).
    pub dropout_rate: f64,
    /// Mean length of a dropout (s).
    pub dropout_mean: f64,
    /// Rate of identity swaps between two balls closer than 6 cm (1/s).
    pub swap_rate: f64,
}

impl Default for Tracking {
    fn default() -> Self {
        Self { frame_rate: 30.0, position_sd: 5e-4, missing: 0.01, dropout_rate: 0.0, dropout_mean: 1.0, swap_rate: 0.0 }
    }
}

fn smoothstep(x: f64) -> f64 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

impl ForeignTank {
    /// Radius of the still core (m).
    pub fn core_radius(&self) -> f64 {
        0.035 + 0.5 * (self.water_level - 0.06).max(0.0)
    }

    /// Surface coupling of the jets (dimensionless; 1 at a level 8 cm below the rim).
    fn coupling(&self) -> f64 {
        ((self.water_level - 0.08) / 0.05).exp()
    }

    /// The mean flow at `p` (m) and time `t` (s), without turbulence (m/s).
    pub fn flow(&self, p: Vector2<f64>, t: f64) -> Vector2<f64> {
        let r = p.norm();
        let rc = self.core_radius();
        if r >= self.radius || r == 0.0 {
            return Vector2::zeros();
        }
        let scale = self.stirring * self.coupling();
        let radial = p / r;
        // Surface drift: upwelling in the core (outward, growing linearly from the
        // centre) and a band of outward flow just outside it keep floaters out of the
        // core; a weak inward drift by the wall (surface convergence) keeps them off the
        // rim. The drift is the only flow in the core.
        let peak = 1.3 * rc;
        let drift =
            if r < peak { 0.05 * r / peak } else { 0.05 * (-((r - peak) / (0.8 * rc)).powi(2)).exp() - 0.02 * (r / self.radius).powi(4) };
        let drift = radial * (drift * scale);
        // No swirl, jets or side vortices in the core, all of them from twice its radius on.
        let core = smoothstep((r - rc) / rc);
        if core == 0.0 {
            return drift;
        }
        let tangential = Vector2::new(-radial.y, radial.x);
        let wall = 1.0 - (r / self.radius).powi(6);
        let mut v = tangential * (0.07 * wall);
        for k in 0..self.jets {
            let phi = 2.0 * PI * k as f64 / self.jets as f64 + 0.3;
            let nozzle = Vector2::new(phi.cos(), phi.sin()) * (self.radius - 0.01);
            // Counter-clockwise along the wall, turned 25 degrees inwards.
            let (s25, c25) = (25f64.to_radians().sin(), 25f64.to_radians().cos());
            let along_wall = Vector2::new(-phi.sin(), phi.cos());
            let inward = -Vector2::new(phi.cos(), phi.sin());
            let dir = along_wall * c25 + inward * s25;
            let normal = Vector2::new(-dir.y, dir.x);
            let d = p - nozzle;
            let s = d.dot(&dir);
            if s <= 0.0 {
                continue;
            }
            let q = d.dot(&normal);
            let width = 0.012 + 0.12 * s;
            let pulse = 1.0 + 0.3 * (2.0 * PI * t / 7.0 + k as f64).sin();
            v += dir * (0.35 * pulse * 0.03 / (0.03 + s) * (-0.5 * (q / width).powi(2)).exp());
        }
        for (angle, circulation) in [(PI / 4.0, 0.012), (5.0 * PI / 4.0, -0.012)] {
            let centre = Vector2::new(angle.cos(), angle.sin()) * 0.17;
            let d = p - centre;
            let r2 = d.norm_squared().max(1e-12);
            let a2 = 0.03f64.powi(2);
            v += Vector2::new(-d.y, d.x) * (circulation / (2.0 * PI * r2) * (1.0 - (-r2 / a2).exp()));
        }
        v * (scale * core) + drift
    }

    /// Simulates `seconds` of recording at `tracking.frame_rate` and applies the tracker.
    pub fn record(&self, seconds: f64, seed: u64, tracking: &Tracking) -> TrajectoryRecording {
        let mut rng = ChaCha12Rng::seed_from_u64(seed);
        let mut state = self.initial_state(&mut rng);
        let frame_dt = 1.0 / tracking.frame_rate;
        let substeps = (frame_dt / self.substep).round().max(1.0) as usize;
        let h = frame_dt / substeps as f64;
        let warmup_frames = (self.warmup / frame_dt).round() as usize;
        let frames = (seconds / frame_dt).round() as usize + 1;
        let mut labels: Vec<u32> = (0..self.balls as u32).collect();
        let mut dropout_left = vec![0.0f64; self.balls];
        let mut recording = TrajectoryRecording::default();
        for frame in 0..warmup_frames + frames {
            for _ in 0..substeps {
                self.step(&mut state, h, &mut rng);
            }
            if frame < warmup_frames {
                continue;
            }
            let k = (frame - warmup_frames) as u64;
            let time = k as f64 * frame_dt;
            if tracking.swap_rate > 0.0 && rng.gen::<f64>() < tracking.swap_rate * frame_dt {
                let a = rng.gen_range(0..self.balls);
                let nearest = (0..self.balls)
                    .filter(|&b| b != a)
                    .min_by(|&b, &c| {
                        let db = (state.position[b] - state.position[a]).norm();
                        let dc = (state.position[c] - state.position[a]).norm();
                        db.total_cmp(&dc)
                    })
                    .filter(|&b| (state.position[b] - state.position[a]).norm() < 0.06);
                if let Some(b) = nearest {
                    labels.swap(a, b);
                }
            }
            for ball in 0..self.balls {
                if dropout_left[ball] > 0.0 {
                    dropout_left[ball] -= frame_dt;
                    continue;
                }
                if tracking.dropout_rate > 0.0 && rng.gen::<f64>() < tracking.dropout_rate * frame_dt {
                    dropout_left[ball] = -tracking.dropout_mean * (1.0 - rng.gen::<f64>()).ln();
                    continue;
                }
                if rng.gen::<f64>() < tracking.missing {
                    continue;
                }
                let noise = Vector2::new(rng.sample::<f64, _>(StandardNormal), rng.sample::<f64, _>(StandardNormal));
                let p = state.position[ball] + noise * tracking.position_sd;
                recording.samples.push(TrajectorySample::new(k, time, labels[ball], p.x, p.y, 0.0));
            }
        }
        recording
    }

    fn initial_state(&self, rng: &mut ChaCha12Rng) -> State {
        let mut position: Vec<Vector2<f64>> = Vec::with_capacity(self.balls);
        let inner = self.core_radius() * 2.0;
        let outer = self.radius - self.ball_radius;
        while position.len() < self.balls {
            let r = rng.gen_range(inner..outer);
            let phi = rng.gen_range(0.0..2.0 * PI);
            let p = Vector2::new(r * phi.cos(), r * phi.sin());
            if position.iter().all(|q| (q - p).norm() > 2.0 * self.ball_radius) {
                position.push(p);
            }
        }
        State { position, velocity: vec![Vector2::zeros(); self.balls], turbulent: vec![Vector2::zeros(); self.balls], time: 0.0 }
    }

    fn step(&self, state: &mut State, h: f64, rng: &mut ChaCha12Rng) {
        let n = self.balls;
        let m = self.mass * (1.0 + self.added_mass);
        // Spring-dashpot contacts: stiffness (N/m) and damping (N s/m) for a
        // restitution of about 0.6.
        let (stiffness, damping) = (60.0, 0.25);
        let mut force = vec![Vector2::zeros(); n];
        for i in 0..n {
            let p = state.position[i];
            let r = p.norm();
            let overlap = r + self.ball_radius - self.radius;
            if overlap > 0.0 && r > 0.0 {
                let normal = p / r;
                let vn = state.velocity[i].dot(&normal);
                force[i] -= normal * (stiffness * overlap + damping * vn).max(0.0);
            }
            for j in i + 1..n {
                let d = state.position[j] - p;
                let dist = d.norm();
                let overlap = 2.0 * self.ball_radius - dist;
                if overlap > 0.0 && dist > 0.0 {
                    let normal = d / dist;
                    let vn = (state.velocity[j] - state.velocity[i]).dot(&normal);
                    let f = normal * (stiffness * overlap - damping * vn).max(0.0);
                    force[i] -= f;
                    force[j] += f;
                }
            }
        }
        // Exact Ornstein-Uhlenbeck update of the turbulent velocity.
        let keep = (-h / self.turbulence_time).exp();
        let sd = self.turbulence * self.stirring * self.coupling() * (1.0 - keep * keep).sqrt();
        for (i, contact) in force.iter().enumerate() {
            let z = Vector2::new(rng.sample::<f64, _>(StandardNormal), rng.sample::<f64, _>(StandardNormal));
            let core = smoothstep((state.position[i].norm() - self.core_radius()) / self.core_radius());
            state.turbulent[i] = state.turbulent[i] * keep + z * sd;
            let fluid = self.flow(state.position[i], state.time) + state.turbulent[i] * core;
            // Implicit drag: k (fluid - v_new) with k frozen at the current slip.
            let k = self.linear_drag + self.quadratic_drag * (fluid - state.velocity[i]).norm();
            state.velocity[i] = (state.velocity[i] * m + (contact + fluid * k) * h) / (m + k * h);
            state.position[i] += state.velocity[i] * h;
        }
        state.time += h;
    }

    /// The time-averaged mean flow (and its spread from the pulsing jets and the
    /// turbulence) at every cell centre of an `n` x `n` grid over `side` m (for comparing
    /// an estimate): `(centre, mean, sd per axis)` (m, m/s, m/s).
    pub fn mean_field(&self, n: usize, side: f64) -> Vec<(Point2<f64>, Vector2<f64>, Vector2<f64>)> {
        let d = side / n as f64;
        let times: Vec<f64> = (0..70).map(|k| k as f64 * 0.1).collect();
        let mut out = Vec::with_capacity(n * n);
        for iy in 0..n {
            for ix in 0..n {
                let c = Point2::new(-0.5 * side + (ix as f64 + 0.5) * d, -0.5 * side + (iy as f64 + 0.5) * d);
                let values: Vec<Vector2<f64>> = times.iter().map(|&t| self.flow(c.coords, t)).collect();
                let mean = values.iter().sum::<Vector2<f64>>() / values.len() as f64;
                let var = values.iter().map(|v| (v - mean).component_mul(&(v - mean))).sum::<Vector2<f64>>() / values.len() as f64;
                let core = smoothstep((c.coords.norm() - self.core_radius()) / self.core_radius());
                let turb = self.turbulence * self.stirring * self.coupling() * core;
                out.push((c, mean, var.map(|v| (v + turb * turb).sqrt())));
            }
        }
        out
    }
}

struct State {
    position: Vec<Vector2<f64>>,
    velocity: Vec<Vector2<f64>>,
    turbulent: Vec<Vector2<f64>>,
    time: f64,
}
