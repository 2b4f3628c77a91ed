//! The physics' arena: the walls (as box colliders), water surface and inlets of the
//! configured [`ArenaGeometry`] (`flotilla_common::arena`, shared with the models).
//!
//! World frame: origin at the centre of the tank floor (or the table top), z up.

use crate::config::{ArenaConfig, ArenaKind};
use flotilla_common::arena::ArenaGeometry;
use nalgebra::{Isometry3, Point2, Translation3, UnitQuaternion, Vector2, Vector3};
use serde::{Deserialize, Serialize};

/// One straight wall piece: a box.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WallSegment {
    /// Pose of the box centre in the world frame (translation m, rotation rad).
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
    /// Its geometry (the description the URDF/SDF models draw too).
    pub geometry: ArenaGeometry,
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
        let geometry = config.geometry();
        let walls = geometry
            .walls()
            .into_iter()
            .map(|w| WallSegment {
                pose: Isometry3::from_parts(Translation3::from(w.centre), UnitQuaternion::from_axis_angle(&Vector3::z_axis(), w.yaw)),
                half_extents: w.half_extents,
            })
            .collect();
        let depth_below_surface = (config.inlets.nozzle_below_rim + config.water_level).max(0.0);
        let inlets = geometry
            .inlet_layout()
            .into_iter()
            .map(|(position, direction)| Inlet { position: Point2::from(position), direction, depth_below_surface })
            .collect();
        Self { kind: config.kind, config: config.clone(), surface_z: geometry.surface_z(), geometry, walls, inlets }
    }

    /// Whether a disc of radius `radius` m centred at `p` lies inside the free area,
    /// at least `margin` m from every wall.
    pub fn contains_disc(&self, p: Point2<f64>, radius: f64, margin: f64) -> bool {
        self.geometry.contains_disc(p, radius, margin)
    }

    /// Half extents of the rectangle random spawns are drawn from, m.
    pub fn spawn_half_extents(&self) -> Vector2<f64> {
        self.geometry.half_extents()
    }
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
