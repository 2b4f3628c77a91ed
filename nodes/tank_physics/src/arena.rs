//! Arena geometry: walls (as box colliders), water surface, inlets, spawn area.
//!
//! World frame: origin at the centre of the tank floor (or the table top), z up.

use crate::config::{ArenaConfig, ArenaKind};
use nalgebra::{Isometry3, Point2, Translation3, UnitQuaternion, Vector2, Vector3};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// One straight wall piece: a box.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WallSegment {
    /// Pose of the box centre in the world frame.
    pub pose: Isometry3<f64>,
    /// Half extents of the box along its own axes, m.
    pub half_extents: Vector3<f64>,
}

/// A water inlet on the tank wall.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inlet {
    /// Nozzle position on the inner wall (x, y), m.
    pub position: Point2<f64>,
    /// Unit direction of the jet in the horizontal plane.
    pub direction: Vector2<f64>,
    /// Depth of the nozzle below the water surface, m (0 when above it).
    pub depth_below_surface: f64,
}

/// The arena a world lives in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Arena {
    /// Which arena.
    pub kind: ArenaKind,
    /// The configuration it was built from.
    pub config: ArenaConfig,
    /// Height of the water surface above the floor, m; None for a table.
    pub surface_z: Option<f64>,
    /// Wall boxes (empty for open water).
    pub walls: Vec<WallSegment>,
    /// Inlets (round tank only).
    pub inlets: Vec<Inlet>,
}

impl Arena {
    /// Builds the geometry from a (validated) configuration.
    pub fn new(config: &ArenaConfig) -> Self {
        let c = config;
        let surface_z = match c.kind {
            ArenaKind::Table => None,
            _ => Some(c.depth + c.water_level),
        };
        let walls = match c.kind {
            ArenaKind::RoundTank => round_walls(c),
            ArenaKind::RectTank | ArenaKind::Table => rect_walls(c),
            ArenaKind::OpenWater => Vec::new(),
        };
        let inlets = match c.kind {
            ArenaKind::RoundTank => round_inlets(c),
            _ => Vec::new(),
        };
        Self { kind: c.kind, config: c.clone(), surface_z, walls, inlets }
    }

    /// Whether a disc of radius `radius` m centred at `p` lies inside the free area,
    /// at least `margin` m from every wall.
    pub fn contains_disc(&self, p: Point2<f64>, radius: f64, margin: f64) -> bool {
        let c = &self.config;
        let r = radius + margin;
        match self.kind {
            ArenaKind::RoundTank => p.coords.norm() + r <= 0.5 * c.diameter,
            ArenaKind::RectTank | ArenaKind::Table | ArenaKind::OpenWater => {
                p.x.abs() + r <= 0.5 * c.size_x && p.y.abs() + r <= 0.5 * c.size_y
            }
        }
    }

    /// Half extents of the rectangle random spawns are drawn from, m.
    pub fn spawn_half_extents(&self) -> Vector2<f64> {
        match self.kind {
            ArenaKind::RoundTank => Vector2::repeat(0.5 * self.config.diameter),
            _ => Vector2::new(0.5 * self.config.size_x, 0.5 * self.config.size_y),
        }
    }
}

fn round_walls(c: &ArenaConfig) -> Vec<WallSegment> {
    let n = c.wall_segments;
    let r_inner = 0.5 * c.diameter;
    let half_t = 0.5 * c.wall_thickness;
    // Segment half length covers the chord at the inner radius with a small overlap so
    // that no ball slips between neighbours.
    let half_len = r_inner * (PI / n as f64).tan() + half_t;
    (0..n)
        .map(|i| {
            let angle = 2.0 * PI * i as f64 / n as f64;
            let rc = r_inner + half_t;
            WallSegment {
                pose: Isometry3::from_parts(
                    Translation3::new(rc * angle.cos(), rc * angle.sin(), 0.5 * c.depth),
                    UnitQuaternion::from_axis_angle(&Vector3::z_axis(), angle),
                ),
                half_extents: Vector3::new(half_t, half_len, 0.5 * c.depth),
            }
        })
        .collect()
}

fn rect_walls(c: &ArenaConfig) -> Vec<WallSegment> {
    let t = c.wall_thickness;
    let (hx, hy, hz) = (0.5 * c.size_x, 0.5 * c.size_y, 0.5 * c.depth.max(0.05));
    let wall = |x: f64, y: f64, half: Vector3<f64>| WallSegment { pose: Isometry3::translation(x, y, hz), half_extents: half };
    vec![
        wall(hx + 0.5 * t, 0.0, Vector3::new(0.5 * t, hy + t, hz)),
        wall(-hx - 0.5 * t, 0.0, Vector3::new(0.5 * t, hy + t, hz)),
        wall(0.0, hy + 0.5 * t, Vector3::new(hx + t, 0.5 * t, hz)),
        wall(0.0, -hy - 0.5 * t, Vector3::new(hx + t, 0.5 * t, hz)),
    ]
}

fn round_inlets(c: &ArenaConfig) -> Vec<Inlet> {
    let n = c.inlets.count;
    let r = 0.5 * c.diameter;
    let deflection = c.inlets.deflection_deg.to_radians();
    let depth_below_surface = (c.inlets.nozzle_below_rim + c.water_level).max(0.0);
    (0..n)
        .map(|i| {
            let angle = 2.0 * PI * i as f64 / n as f64;
            let outward = Vector2::new(angle.cos(), angle.sin());
            let (s, co) = deflection.sin_cos();
            let inward = -outward;
            // Rotate the inward radial direction counter-clockwise by the deflection.
            let direction = Vector2::new(co * inward.x - s * inward.y, s * inward.x + co * inward.y);
            Inlet { position: Point2::from(outward * r), direction, depth_below_surface }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_tank_geometry() {
        let arena = Arena::new(&ArenaConfig::default());
        // Level -8 cm in a 30 cm tank: surface 22 cm above the floor.
        assert!((arena.surface_z.unwrap() - 0.22).abs() < 1e-12);
        assert_eq!(arena.walls.len(), 48);
        assert_eq!(arena.inlets.len(), 7);
        // Inlet 0 sits at (0.3, 0) and points inward (-x) turned 15 deg counter-clockwise.
        let i0 = arena.inlets[0];
        assert!((i0.position - Point2::new(0.3, 0.0)).norm() < 1e-12);
        let expect = Vector2::new(-(15f64.to_radians().cos()), -(15f64.to_radians().sin()));
        assert!((i0.direction - expect).norm() < 1e-12, "{}", i0.direction);
        // Nozzle 11 cm below the rim, surface 8 cm below: 3 cm of water above the nozzle.
        assert!((i0.depth_below_surface - 0.03).abs() < 1e-12);
        // Every wall box's inner face is at the tank radius.
        for w in &arena.walls {
            let inner = w.pose.translation.vector.xy().norm() - w.half_extents.x;
            assert!((inner - 0.3).abs() < 1e-12);
        }
    }

    #[test]
    fn containment() {
        let arena = Arena::new(&ArenaConfig::default());
        assert!(arena.contains_disc(Point2::new(0.28, 0.0), 0.015, 0.0));
        assert!(!arena.contains_disc(Point2::new(0.29, 0.0), 0.015, 0.0));
        let rect = Arena::new(&ArenaConfig { kind: ArenaKind::RectTank, ..ArenaConfig::default() });
        assert_eq!(rect.walls.len(), 4);
        assert!(rect.contains_disc(Point2::new(0.6, 0.3), 0.01, 0.0));
        assert!(!rect.contains_disc(Point2::new(0.6, 0.335), 0.01, 0.0));
    }
}
