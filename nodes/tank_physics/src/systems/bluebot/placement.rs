//! Where a swarm starts, as the Blueswarm experiments place it (`flotilla experiment
//! blueswarm ...`): the same regions, drawn from one seeded stream.

use super::tank::Tank;
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A start region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Anywhere 0.3 m from the walls, 0.3-0.6 m above the floor (the synchrony runs).
    Scattered,
    /// Within 0.25 m of the tank's centre horizontally, 0.35-0.55 m above the floor (the
    /// dispersion runs).
    Centre,
    /// Within 0.5 m of the centre, 3 cm under the surface (the milling runs).
    Surface,
    /// Within 0.1 m of the centre, 3 cm under the surface (the search runs).
    SurfaceCentre,
}

impl Placement {
    /// The names [`Placement::parse`] takes.
    pub const NAMES: &'static [&'static str] = &["scattered", "centre", "surface", "surface_centre"];

    /// Parses one of [`Placement::NAMES`].
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "scattered" => Ok(Placement::Scattered),
            "centre" => Ok(Placement::Centre),
            "surface" => Ok(Placement::Surface),
            "surface_centre" => Ok(Placement::SurfaceCentre),
            other => Err(format!("unknown placement `{other}`; expected {}", Self::NAMES.join(", "))),
        }
    }

    /// `count` start poses (tank frame position in m, heading in rad) in `tank`, seeded.
    pub fn poses(self, tank: &Tank, count: usize, seed: u64) -> Vec<(Vector3<f64>, f64)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (cx, cy) = (0.5 * tank.size_x, 0.5 * tank.size_y);
        let under_surface = tank.water_depth - 0.03;
        (0..count)
            .map(|_| {
                let p = match self {
                    Placement::Scattered => Vector3::new(
                        rng.gen_range(0.3..(tank.size_x - 0.3).max(0.31)),
                        rng.gen_range(0.3..(tank.size_y - 0.3).max(0.31)),
                        rng.gen_range(0.3..0.6_f64.min(under_surface).max(0.31)),
                    ),
                    Placement::Centre => Vector3::new(
                        cx + rng.gen_range(-0.25..0.25),
                        cy + rng.gen_range(-0.25..0.25),
                        (0.45 + rng.gen_range(-0.1..0.1_f64)).min(under_surface),
                    ),
                    Placement::Surface => Vector3::new(cx + rng.gen_range(-0.5..0.5), cy + rng.gen_range(-0.5..0.5), under_surface),
                    Placement::SurfaceCentre => Vector3::new(cx + rng.gen_range(-0.1..0.1), cy + rng.gen_range(-0.1..0.1), under_surface),
                };
                (p, rng.gen_range(-3.1..3.1))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_placement_is_under_water_in_its_region_and_seeded() {
        let tank = Tank::default();
        for name in Placement::NAMES {
            let placement = Placement::parse(name).unwrap();
            let poses = placement.poses(&tank, 20, 3);
            assert_eq!(poses, placement.poses(&tank, 20, 3), "{name}: same seed, same poses");
            assert_ne!(poses, placement.poses(&tank, 20, 4), "{name}");
            for (p, _) in &poses {
                assert!(tank.contains(p), "{name}: {p:?}");
                let off_centre = (p.x - 0.5 * tank.size_x).hypot(p.y - 0.5 * tank.size_y);
                match placement {
                    Placement::Centre => assert!(off_centre < 0.36),
                    Placement::SurfaceCentre => assert!(off_centre < 0.15 && p.z > 0.85),
                    Placement::Surface => assert!(p.z > 0.85),
                    Placement::Scattered => assert!(p.z < 0.61),
                }
            }
        }
        assert!(Placement::parse("ring").unwrap_err().contains("scattered, centre, surface, surface_centre"));
    }
}
