//! Synthetic ground-truth motion for a stirred tank: bodies on concentric rings that
//! counter-rotate ring by ring, each wobbling radially and spinning, never touching.
//! Neighbours on adjacent rings pass each other at up to twice the stirring speed,
//! which is what stresses identity keeping.

use crate::render::{MarkerKind, SceneObject};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::f64::consts::{PI, TAU};

/// Bodies do not fit in the tank with the requested spacing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{count} bodies of {size} m do not fit on rings in a tank of radius {tank_radius} m (room for {capacity})")]
pub struct DoesNotFit {
    /// Requested bodies.
    pub count: usize,
    /// Body size, m.
    pub size: f64,
    /// Tank radius, m.
    pub tank_radius: f64,
    /// How many fit.
    pub capacity: usize,
}

/// Parameters of the synthetic stirring.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StirringConfig {
    /// Number of bodies.
    pub count: usize,
    /// Marker design of every body.
    pub kind: MarkerKind,
    /// Outline size of every body, m.
    pub size: f64,
    /// Inner radius of the tank, m.
    pub tank_radius: f64,
    /// Largest tangential speed of a ring, m/s.
    pub max_speed: f64,
    /// Radial wobble amplitude of each body, m.
    pub wobble: f64,
    /// Smallest free gap between bodies and to the wall, m.
    pub gap: f64,
    /// Seed of the ring speeds, phases and spins.
    pub seed: u64,
}

impl StirringConfig {
    /// The 24 ping-pong balls of SPEC 1 in the 0.6 m tank, stirred at up to 0.2 m/s.
    pub fn ping_pong_24(seed: u64) -> Self {
        Self {
            count: 24,
            kind: MarkerKind::Ball,
            size: MarkerKind::Ball.default_size(),
            tank_radius: 0.3,
            max_speed: 0.2,
            wobble: 0.004,
            gap: 0.008,
            seed,
        }
    }

    /// The 15 Lily modules of SPEC 1 (their marker encodes heading).
    pub fn lily_15(seed: u64) -> Self {
        Self { count: 15, kind: MarkerKind::Lily, size: MarkerKind::Lily.default_size(), ..Self::ping_pong_24(seed) }
    }
}

#[derive(Clone, Debug)]
struct RingBody {
    id: u32,
    ring_radius: f64,
    phase: f64,
    angular_speed: f64,
    wobble_frequency: f64,
    wobble_phase: f64,
    spin_rate: f64,
    spin_phase: f64,
}

/// Ground-truth motion of the bodies over time.
#[derive(Clone, Debug)]
pub struct SyntheticStirring {
    config: StirringConfig,
    bodies: Vec<RingBody>,
}

impl SyntheticStirring {
    /// Lays the bodies out on rings from the centre outward.
    pub fn new(config: StirringConfig) -> Result<Self, DoesNotFit> {
        let c = &config;
        // Square tops reach sqrt(2) * half side from their centre when turned.
        let reach = if c.kind == MarkerKind::Lily { c.size / 2.0 * std::f64::consts::SQRT_2 } else { c.size / 2.0 };
        let ring_spacing = 2.0 * reach + 2.0 * c.wobble + c.gap;
        let mut rings = Vec::new();
        let mut radius = reach + c.wobble + c.gap;
        while radius + reach + c.wobble + c.gap <= c.tank_radius {
            // Same-ring neighbours are closest when both wobble inward.
            let inner = radius - c.wobble;
            let mut n = 1;
            while n < 1000 && 2.0 * inner * (PI / (n + 1) as f64).sin() >= 2.0 * reach + c.gap {
                n += 1;
            }
            rings.push((radius, n));
            radius += ring_spacing;
        }
        let capacity: usize = rings.iter().map(|r| r.1).sum();
        if capacity < c.count {
            return Err(DoesNotFit { count: c.count, size: c.size, tank_radius: c.tank_radius, capacity });
        }
        // Fill outer rings first (more room), spreading bodies proportionally.
        let mut per_ring: Vec<usize> = rings.iter().map(|r| r.1 * c.count / capacity).collect();
        let mut missing = c.count - per_ring.iter().sum::<usize>();
        for (k, ring) in rings.iter().enumerate().rev() {
            let add = missing.min(ring.1 - per_ring[k]);
            per_ring[k] += add;
            missing -= add;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(c.seed);
        let mut bodies = Vec::with_capacity(c.count);
        for (k, (&(ring_radius, _), &n)) in rings.iter().zip(&per_ring).enumerate() {
            let direction = if k % 2 == 0 { 1.0 } else { -1.0 };
            let speed = c.max_speed * rng.gen_range(0.5..=1.0);
            let angular_speed = direction * speed / ring_radius;
            let phase0 = rng.gen_range(0.0..TAU);
            for j in 0..n {
                bodies.push(RingBody {
                    id: bodies.len() as u32,
                    ring_radius,
                    phase: phase0 + TAU * j as f64 / n as f64,
                    angular_speed,
                    wobble_frequency: rng.gen_range(0.2..0.6),
                    wobble_phase: rng.gen_range(0.0..TAU),
                    spin_rate: rng.gen_range(0.5..2.0) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 },
                    spin_phase: rng.gen_range(0.0..TAU),
                });
            }
        }
        Ok(Self { config, bodies })
    }

    /// The configuration.
    pub fn config(&self) -> &StirringConfig {
        &self.config
    }

    /// Every body at time `t` (s).
    pub fn objects_at(&self, t: f64) -> Vec<SceneObject> {
        let c = &self.config;
        self.bodies
            .iter()
            .map(|b| {
                let angle = b.phase + b.angular_speed * t;
                let radius = b.ring_radius + c.wobble * (TAU * b.wobble_frequency * t + b.wobble_phase).sin();
                let heading = (b.spin_phase + b.spin_rate * t).rem_euclid(TAU);
                SceneObject::new(b.id, c.kind, radius * angle.cos(), radius * angle.sin()).with_heading(heading).with_size(c.size)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_never_overlap_and_stay_in_the_tank() {
        for config in [StirringConfig::ping_pong_24(3), StirringConfig::lily_15(4)] {
            let stirring = SyntheticStirring::new(config.clone()).unwrap();
            let reach = if config.kind == MarkerKind::Lily { config.size / 2.0 * 2f64.sqrt() } else { config.size / 2.0 };
            for k in 0..600 {
                let objects = stirring.objects_at(f64::from(k) * 0.1);
                assert_eq!(objects.len(), config.count);
                for (i, a) in objects.iter().enumerate() {
                    assert!(a.x.hypot(a.y) + reach < config.tank_radius);
                    for b in &objects[i + 1..] {
                        assert!((a.x - b.x).hypot(a.y - b.y) > 2.0 * reach, "overlap at t = {}", f64::from(k) * 0.1);
                    }
                }
            }
        }
    }

    #[test]
    fn speeds_are_bounded_and_rings_counter_rotate() {
        let stirring = SyntheticStirring::new(StirringConfig::ping_pong_24(1)).unwrap();
        let (a, b) = (stirring.objects_at(1.0), stirring.objects_at(1.0 + 1e-4));
        let mut directions = Vec::new();
        for (p, q) in a.iter().zip(&b) {
            let speed = (q.x - p.x).hypot(q.y - p.y) / 1e-4;
            // Tangential up to 0.2 m/s plus radial wobble up to 2 pi 0.6 Hz 4 mm.
            assert!(speed < 0.2 + TAU * 0.6 * 0.004 + 1e-6, "{speed}");
            directions.push((p.x * q.y - p.y * q.x).signum());
        }
        assert!(directions.contains(&1.0) && directions.contains(&-1.0));
    }

    #[test]
    fn too_many_bodies_is_an_error() {
        let err = SyntheticStirring::new(StirringConfig { count: 500, ..StirringConfig::ping_pong_24(0) }).unwrap_err();
        assert_eq!(err.count, 500);
        assert!(err.capacity < 500);
    }
}
