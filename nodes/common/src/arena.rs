//! One description of an arena's geometry, as plain data: the outline of its floor (round
//! or rectangular), its walls, its water and its inlets. The physics builds its colliders
//! and flow field from it, the URDF/SDF models draw it, a camera can take the water's
//! outline from it. World frame: origin at the centre of the tank floor (the table top),
//! z up.

use nalgebra::{Point2, Vector2, Vector3};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Outline of an arena's floor, centred on the origin. In YAML: `{kind: round_tank,
/// diameter: 0.6}` or `{kind: rect_tank, size_x: 1.26, size_y: 0.68}` (`table` and
/// `rectangle` are accepted for `rect_tank`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum ArenaOutline {
    /// A circle approximated by straight wall boxes.
    #[serde(rename = "round_tank")]
    Round {
        /// Inner diameter, m.
        diameter: f64,
        /// Number of straight wall boxes (the physics' walls; a camera draws the circle).
        #[serde(default = "default_wall_segments")]
        wall_segments: usize,
    },
    /// A rectangle.
    #[serde(rename = "rect_tank", alias = "table", alias = "rectangle")]
    Rectangle {
        /// Inner length along x, m.
        size_x: f64,
        /// Inner width along y, m.
        size_y: f64,
    },
}

fn default_wall_segments() -> usize {
    ArenaOutline::DEFAULT_WALL_SEGMENTS
}

impl ArenaOutline {
    /// Straight wall boxes of a round outline unless a configuration says otherwise.
    pub const DEFAULT_WALL_SEGMENTS: usize = 48;

    /// A round outline of `diameter` m with the default number of wall boxes.
    pub fn round(diameter: f64) -> Self {
        ArenaOutline::Round { diameter, wall_segments: Self::DEFAULT_WALL_SEGMENTS }
    }

    /// The 0.60 m diameter Lily tank (SPEC 1).
    pub fn lily_tank() -> Self {
        Self::round(0.6)
    }

    /// Half sizes of the outline's bounding box, m.
    pub fn half_extents(&self) -> Vector2<f64> {
        match *self {
            ArenaOutline::Round { diameter, .. } => Vector2::repeat(0.5 * diameter),
            ArenaOutline::Rectangle { size_x, size_y } => Vector2::new(0.5 * size_x, 0.5 * size_y),
        }
    }

    /// Whether a disc of radius `radius` m centred at `p` lies inside the outline, at least
    /// `margin` m from it.
    pub fn contains_disc(&self, p: Point2<f64>, radius: f64, margin: f64) -> bool {
        let r = radius + margin;
        match *self {
            ArenaOutline::Round { diameter, .. } => p.coords.norm() + r <= 0.5 * diameter,
            ArenaOutline::Rectangle { size_x, size_y } => p.x.abs() + r <= 0.5 * size_x && p.y.abs() + r <= 0.5 * size_y,
        }
    }

    /// Signed distance bound from (x, y) to the outline grown by `grow` m: negative inside,
    /// positive outside; its magnitude never exceeds the true distance. A round outline is
    /// taken as its circle (the wall boxes' inner faces touch it).
    pub fn boundary_distance(&self, x: f64, y: f64, grow: f64) -> f64 {
        match *self {
            ArenaOutline::Round { diameter, .. } => (x * x + y * y).sqrt() - (0.5 * diameter + grow),
            ArenaOutline::Rectangle { size_x, size_y } => (x.abs() - (size_x / 2.0 + grow)).max(y.abs() - (size_y / 2.0 + grow)),
        }
    }
}

/// Peripheral inlets on a round tank's wall.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct InletGeometry {
    /// Number of inlets, evenly spaced starting on +x.
    pub count: usize,
    /// Deflection of each jet from the inward radial direction, counter-clockwise, rad.
    pub deflection: f64,
    /// Depth of the nozzles below the rim, m.
    pub nozzle_below_rim: f64,
    /// Inner diameter of a nozzle, m.
    pub nozzle_diameter: f64,
}

/// Dimensions of one arena.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArenaGeometry {
    /// Floor outline (for open water: the area bodies are placed in).
    pub outline: ArenaOutline,
    /// Whether walls stand on the outline (open water has none).
    pub walled: bool,
    /// Height of the walls (tank depth, or the table's rim), m.
    pub depth: f64,
    /// Water surface relative to the rim (negative: below it), m; `None` without water.
    pub water_level: Option<f64>,
    /// Thickness of walls and floor, m.
    pub wall_thickness: f64,
    /// Inlets, if any (round outline only).
    pub inlets: Option<InletGeometry>,
}

/// One straight wall piece: a box standing on the floor.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WallBox {
    /// Centre of the box, m.
    pub centre: Vector3<f64>,
    /// Rotation about z, rad.
    pub yaw: f64,
    /// Half extents along the box's own axes, m.
    pub half_extents: Vector3<f64>,
}

impl ArenaGeometry {
    /// Height of the water surface above the floor, m; `None` without water.
    pub fn surface_z(&self) -> Option<f64> {
        self.water_level.map(|level| self.depth + level)
    }

    /// The wall boxes, inner faces on the outline. A round wall's boxes cover their chord at
    /// the inner radius with a little overlap, so that nothing slips between neighbours.
    pub fn walls(&self) -> Vec<WallBox> {
        if !self.walled {
            return Vec::new();
        }
        let t = self.wall_thickness;
        match self.outline {
            ArenaOutline::Round { diameter, wall_segments: n } => {
                let r_inner = 0.5 * diameter;
                let half_t = 0.5 * t;
                let half_len = r_inner * (PI / n as f64).tan() + half_t;
                (0..n)
                    .map(|i| {
                        let angle = 2.0 * PI * i as f64 / n as f64;
                        let rc = r_inner + half_t;
                        WallBox {
                            centre: Vector3::new(rc * angle.cos(), rc * angle.sin(), 0.5 * self.depth),
                            yaw: angle,
                            half_extents: Vector3::new(half_t, half_len, 0.5 * self.depth),
                        }
                    })
                    .collect()
            }
            ArenaOutline::Rectangle { size_x, size_y } => {
                let (hx, hy, hz) = (0.5 * size_x, 0.5 * size_y, 0.5 * self.depth);
                let wall = |x: f64, y: f64, half: Vector3<f64>| WallBox { centre: Vector3::new(x, y, hz), yaw: 0.0, half_extents: half };
                vec![
                    wall(hx + 0.5 * t, 0.0, Vector3::new(0.5 * t, hy + t, hz)),
                    wall(-hx - 0.5 * t, 0.0, Vector3::new(0.5 * t, hy + t, hz)),
                    wall(0.0, hy + 0.5 * t, Vector3::new(hx + t, 0.5 * t, hz)),
                    wall(0.0, -hy - 0.5 * t, Vector3::new(hx + t, 0.5 * t, hz)),
                ]
            }
        }
    }

    /// Half sizes of the outline's bounding box, m.
    pub fn half_extents(&self) -> Vector2<f64> {
        self.outline.half_extents()
    }

    /// Whether a disc of radius `radius` m centred at `p` lies inside the outline, at least
    /// `margin` m from it.
    pub fn contains_disc(&self, p: Point2<f64>, radius: f64, margin: f64) -> bool {
        self.outline.contains_disc(p, radius, margin)
    }

    /// Signed distance bound from (x, y) to the outline grown by `grow` m: negative inside,
    /// positive outside; its magnitude never exceeds the true distance.
    pub fn boundary_distance(&self, x: f64, y: f64, grow: f64) -> f64 {
        self.outline.boundary_distance(x, y, grow)
    }

    /// Position on the inner wall (x, y) and unit jet direction of each inlet (none unless
    /// the outline is round).
    pub fn inlet_layout(&self) -> Vec<(Vector2<f64>, Vector2<f64>)> {
        match (self.outline, self.inlets) {
            (ArenaOutline::Round { diameter, .. }, Some(inlets)) => inlet_layout(diameter, &inlets),
            _ => Vec::new(),
        }
    }
}

/// Position (x, y) on the inner wall of a round tank of `diameter` m and unit jet direction
/// of each inlet: the inward radial direction turned counter-clockwise by the deflection.
pub fn inlet_layout(diameter: f64, inlets: &InletGeometry) -> Vec<(Vector2<f64>, Vector2<f64>)> {
    let r = 0.5 * diameter;
    let (s, co) = inlets.deflection.sin_cos();
    (0..inlets.count)
        .map(|i| {
            let angle = 2.0 * PI * i as f64 / inlets.count as f64;
            let outward = Vector2::new(angle.cos(), angle.sin());
            let inward = -outward;
            let direction = Vector2::new(co * inward.x - s * inward.y, s * inward.x + co * inward.y);
            (outward * r, direction)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tank(outline: ArenaOutline) -> ArenaGeometry {
        ArenaGeometry { outline, walled: true, depth: 0.3, water_level: Some(-0.08), wall_thickness: 0.1, inlets: None }
    }

    #[test]
    fn round_walls_and_inlets_by_hand() {
        let mut g = tank(ArenaOutline::Round { diameter: 0.6, wall_segments: 4 });
        // Four boxes: inner faces 0.3 m out, half length 0.3 tan 45 deg + 0.05 = 0.35 m.
        let walls = g.walls();
        assert_eq!(walls.len(), 4);
        assert!((walls[1].centre - Vector3::new(0.0, 0.35, 0.15)).norm() < 1e-12, "{:?}", walls[1]);
        assert!((walls[1].half_extents - Vector3::new(0.05, 0.35, 0.15)).norm() < 1e-12);
        assert!((g.surface_z().unwrap() - 0.22).abs() < 1e-15);
        g.inlets = Some(InletGeometry { count: 2, deflection: 90f64.to_radians(), nozzle_below_rim: 0.1, nozzle_diameter: 0.008 });
        // Inlet 1 at (-0.3, 0): inward +x turned 90 deg counter-clockwise: +y.
        let (p, d) = g.inlet_layout()[1];
        assert!((p - Vector2::new(-0.3, 0.0)).norm() < 1e-12 && (d - Vector2::new(0.0, 1.0)).norm() < 1e-12, "{p} {d}");
    }

    #[test]
    fn round_outline_distance_by_hand() {
        let tank = ArenaOutline::lily_tank();
        assert!((tank.boundary_distance(0.3, 0.4, 0.0) - 0.2).abs() < 1e-15);
        assert!((tank.boundary_distance(0.0, 0.1, 0.01) + 0.21).abs() < 1e-15);
        assert_eq!(tank.half_extents(), Vector2::new(0.3, 0.3));
        // Outside a rectangle's corner the bound max(0.1, 0.05) stays under the true 0.1118.
        let rect = ArenaOutline::Rectangle { size_x: 1.0, size_y: 0.5 };
        assert!((rect.boundary_distance(0.6, 0.3, 0.0) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn outlines_read_from_yaml() {
        let round: ArenaOutline = serde_yaml::from_str("{kind: round_tank, diameter: 0.6}").unwrap();
        assert_eq!(round, ArenaOutline::lily_tank());
        let table: ArenaOutline = serde_yaml::from_str("{kind: table, size_x: 1.7, size_y: 1.2}").unwrap();
        assert_eq!(table, ArenaOutline::Rectangle { size_x: 1.7, size_y: 1.2 });
        let err = serde_yaml::from_str::<ArenaOutline>("{kind: round_tank, radius: 0.3}").unwrap_err().to_string();
        assert!(err.contains("radius"), "{err}");
        let err = serde_yaml::from_str::<ArenaOutline>("{kind: pond, diameter: 1}").unwrap_err().to_string();
        assert!(err.contains("pond") && err.contains("round_tank"), "{err}");
    }

    #[test]
    fn rectangle_containment_and_distance_by_hand() {
        let g = tank(ArenaOutline::Rectangle { size_x: 1.0, size_y: 0.5 });
        assert!(g.contains_disc(Point2::new(0.45, 0.0), 0.05, 0.0));
        assert!(!g.contains_disc(Point2::new(0.45, 0.0), 0.05, 0.001));
        // Inside: the nearest wall is y = 0.25, 0.15 away.
        assert!((g.boundary_distance(0.2, 0.1, 0.0) + 0.15).abs() < 1e-15);
        assert_eq!(g.half_extents(), Vector2::new(0.5, 0.25));
        let open = ArenaGeometry { walled: false, ..g };
        assert!(open.walls().is_empty());
        assert_eq!(g.walls()[2].half_extents, Vector3::new(0.6, 0.05, 0.15));
    }
}
