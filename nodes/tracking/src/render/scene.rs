//! What the camera looks at: floating objects with their top outline and passive
//! marker, one marker design per kind.

use flotilla_common::catalogue::{Medium, ModuleKind, Shape};
use serde::{Deserialize, Serialize};

/// Linear RGB colour, 8-bit intensity scale (0..255).
pub type Colour = [f32; 3];

/// Marker design family of a module kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerKind {
    /// Ping-pong ball: orange round top with a centred white disc (no heading).
    Ball,
    /// Lily module: grey square top with a white disc carrying an off-centre black dot
    /// toward the module's heading.
    Lily,
    /// Round robot (Kilobot, Bluebot seen from above): dark round top with a white disc
    /// and a black heading dot.
    RoundRobot,
}

impl MarkerKind {
    /// The marker design a catalogue module carries on top; `None` for kinds the
    /// overhead camera does not track (MoleMOD lattice robots and blocks).
    pub fn for_module(kind: ModuleKind) -> Option<Self> {
        match kind {
            ModuleKind::PingPongBall => Some(MarkerKind::Ball),
            ModuleKind::Lily | ModuleKind::MhpSquare | ModuleKind::MhpCube => Some(MarkerKind::Lily),
            ModuleKind::Kilobot | ModuleKind::Bluebot => Some(MarkerKind::RoundRobot),
            ModuleKind::MolemodRobot | ModuleKind::MolemodBlock => None,
        }
    }

    /// The catalogue module this design is named after.
    fn module(self) -> ModuleKind {
        match self {
            MarkerKind::Ball => ModuleKind::PingPongBall,
            MarkerKind::Lily => ModuleKind::Lily,
            MarkerKind::RoundRobot => ModuleKind::Kilobot,
        }
    }

    /// Outline size of the module this design is named after, m (catalogue: ball
    /// diameter 30 mm, Lily side 30 mm, Kilobot diameter 33 mm).
    pub fn default_size(self) -> f64 {
        top_size(&self.module().spec().shape)
    }

    /// Height of the top above the water (table for ground robots) of the module this
    /// design is named after, m (catalogue: a 3 cm ball floating 25 mm deep shows its
    /// top 5 mm above the water; a 35 mm Lily 10 mm; a 30 mm Kilobot 30 mm).
    pub fn default_top_height(self) -> f64 {
        let spec = self.module().spec();
        match spec.medium {
            Medium::Surface { draft } => 2.0 * spec.shape.half_height() - draft,
            Medium::Submerged | Medium::Ground => 2.0 * spec.shape.half_height(),
        }
    }

    /// True when the marker encodes the object's heading.
    pub fn encodes_heading(self) -> bool {
        !matches!(self, MarkerKind::Ball)
    }

    /// The marker geometry and colours for an object of outline size `size` (m).
    pub fn design(self, size: f64) -> MarkerDesign {
        const WHITE: Colour = [245.0, 245.0, 245.0];
        const BLACK: Colour = [15.0, 15.0, 15.0];
        let half = size / 2.0;
        // Dot radius 0.25 R at 0.45 R from the centre leaves 0.3 R of white beyond it,
        // enough for the detector's edge margin at the default resolution.
        let dot = |marker_radius: f64| Some(HeadingDot { offset: 0.45 * marker_radius, radius: 0.25 * marker_radius });
        match self {
            MarkerKind::Ball => MarkerDesign {
                outline: Outline::Disc { radius: half },
                outline_colour: [225.0, 115.0, 35.0],
                marker_radius: 0.5 * half,
                marker_colour: WHITE,
                dot: None,
                dot_colour: BLACK,
            },
            MarkerKind::Lily => {
                let marker_radius = 0.7 * half;
                MarkerDesign {
                    outline: Outline::Square { half_side: half },
                    outline_colour: [120.0, 120.0, 125.0],
                    marker_radius,
                    marker_colour: WHITE,
                    dot: dot(marker_radius),
                    dot_colour: BLACK,
                }
            }
            MarkerKind::RoundRobot => {
                let marker_radius = 0.6 * half;
                MarkerDesign {
                    outline: Outline::Disc { radius: half },
                    outline_colour: [70.0, 70.0, 70.0],
                    marker_radius,
                    marker_colour: WHITE,
                    dot: dot(marker_radius),
                    dot_colour: BLACK,
                }
            }
        }
    }
}

/// One object seen from above.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneObject {
    /// Identifier of the module (ground truth id).
    pub id: u32,
    /// Marker design family.
    pub kind: MarkerKind,
    /// World x of the centre, m (origin at the arena centre).
    pub x: f64,
    /// World y of the centre, m.
    pub y: f64,
    /// Heading, rad counter-clockwise from world +x.
    pub heading: f64,
    /// Outline size, m (diameter of a round top, side of a square one).
    pub size: f64,
    /// Height of the top (outline and marker) above the water plane, m.
    pub top_height: f64,
}

impl SceneObject {
    /// An object of `kind` at `(x, y)` (m) with the kind's default size and height.
    pub fn new(id: u32, kind: MarkerKind, x: f64, y: f64) -> Self {
        Self { id, kind, x, y, heading: 0.0, size: kind.default_size(), top_height: kind.default_top_height() }
    }

    /// The top of catalogue module `kind` whose body centre is at `(x, y)` (m) and
    /// `centre_height` m above the camera's reference plane (the water surface, or the
    /// table top); `None` for kinds without a marker. Square and round tops use the
    /// smaller horizontal side as size.
    pub fn for_module(id: u32, kind: ModuleKind, x: f64, y: f64, centre_height: f64, heading: f64) -> Option<Self> {
        let marker = MarkerKind::for_module(kind)?;
        let shape = kind.spec().shape;
        Some(Self { id, kind: marker, x, y, heading, size: top_size(&shape), top_height: centre_height + shape.half_height() })
    }

    /// Sets the heading, rad.
    pub fn with_heading(mut self, heading: f64) -> Self {
        self.heading = heading;
        self
    }

    /// Sets the outline size, m.
    pub fn with_size(mut self, size: f64) -> Self {
        self.size = size;
        self
    }

    /// Sets the top height above the water, m.
    pub fn with_top_height(mut self, top_height: f64) -> Self {
        self.top_height = top_height;
        self
    }
}

/// Horizontal size of a catalogue shape's top, m.
fn top_size(shape: &Shape) -> f64 {
    match *shape {
        Shape::Sphere { radius } | Shape::Cylinder { radius, .. } => 2.0 * radius,
        Shape::Box { half_extents } => 2.0 * half_extents.x.min(half_extents.y),
    }
}

/// Outline of a module's top, in the object's own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outline {
    /// Round top of the given radius, m.
    Disc { radius: f64 },
    /// Square top of the given half side, m, sides along the object's axes.
    Square { half_side: f64 },
}

/// The heading dot inside the marker disc, placed along the object's +x axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeadingDot {
    /// Distance of the dot centre from the marker centre, m.
    pub offset: f64,
    /// Dot radius, m.
    pub radius: f64,
}

/// Geometry and colours of one object's top: outline, marker disc, optional dot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkerDesign {
    /// Top outline.
    pub outline: Outline,
    /// Colour of the top outside the marker.
    pub outline_colour: Colour,
    /// Radius of the bright marker disc centred on the object, m.
    pub marker_radius: f64,
    /// Colour of the marker disc.
    pub marker_colour: Colour,
    /// Heading dot, if the design encodes heading.
    pub dot: Option<HeadingDot>,
    /// Colour of the heading dot.
    pub dot_colour: Colour,
}

/// Which part of a design a point falls on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// Not on the object.
    Outside,
    /// On the top, outside the marker.
    Outline,
    /// On the bright marker disc.
    Marker,
    /// On the heading dot.
    Dot,
}

impl MarkerDesign {
    /// Radius of a circle around the centre that contains the whole top, m.
    pub fn bounding_radius(&self) -> f64 {
        match self.outline {
            Outline::Disc { radius } => radius,
            Outline::Square { half_side } => half_side * std::f64::consts::SQRT_2,
        }
    }

    /// The region at the object-frame point `(x, y)` (m).
    pub fn region(&self, x: f64, y: f64) -> Region {
        if let Some(dot) = self.dot {
            if length(x - dot.offset, y) < dot.radius {
                return Region::Dot;
            }
        }
        if length(x, y) < self.marker_radius {
            return Region::Marker;
        }
        if self.outline_distance(x, y) < 0.0 {
            Region::Outline
        } else {
            Region::Outside
        }
    }

    /// A lower bound on the distance (m) from `(x, y)` to the nearest region boundary:
    /// a pixel footprint smaller than this is uniformly one region.
    pub fn clearance(&self, x: f64, y: f64) -> f64 {
        let mut clearance = self.outline_distance(x, y).abs().min((length(x, y) - self.marker_radius).abs());
        if let Some(dot) = self.dot {
            clearance = clearance.min((length(x - dot.offset, y) - dot.radius).abs());
        }
        clearance
    }

    /// Colour of a region, `None` outside the object.
    pub fn colour(&self, region: Region) -> Option<Colour> {
        match region {
            Region::Outside => None,
            Region::Outline => Some(self.outline_colour),
            Region::Marker => Some(self.marker_colour),
            Region::Dot => Some(self.dot_colour),
        }
    }

    /// Signed distance bound to the outline (negative inside).
    fn outline_distance(&self, x: f64, y: f64) -> f64 {
        match self.outline {
            Outline::Disc { radius } => length(x, y) - radius,
            Outline::Square { half_side } => x.abs().max(y.abs()) - half_side,
        }
    }
}

/// Euclidean length (plain sqrt: `f64::hypot` is much slower and the overflow it
/// guards against cannot happen at scene scales).
#[inline]
fn length(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lily_design_regions() {
        // size 0.03: half 0.015, marker radius 0.0105, dot at 0.004725 radius 0.002625.
        let d = MarkerKind::Lily.design(0.03);
        assert_eq!(d.region(0.0047, 0.0), Region::Dot);
        assert_eq!(d.region(-0.005, 0.0), Region::Marker);
        assert_eq!(d.region(0.012, 0.012), Region::Outline);
        assert_eq!(d.region(0.016, 0.0), Region::Outside);
        assert!((d.bounding_radius() - 0.015 * 2f64.sqrt()).abs() < 1e-15);
        // At the centre the nearest boundary is the dot edge: 0.004725 - 0.002625.
        assert!((d.clearance(0.0, 0.0) - 0.0021).abs() < 1e-12);
    }

    #[test]
    fn catalogue_modules_map_to_markers() {
        // A ball floating 25 mm deep has its centre 10 mm below the water: top at +5 mm.
        let ball = SceneObject::for_module(4, ModuleKind::PingPongBall, 0.1, 0.2, -0.010, 0.3).unwrap();
        assert_eq!((ball.kind, ball.id, ball.heading), (MarkerKind::Ball, 4, 0.3));
        assert!((ball.size - 0.03).abs() < 1e-15 && (ball.top_height - 0.005).abs() < 1e-15);
        assert!((MarkerKind::Ball.default_top_height() - 0.005).abs() < 1e-15);
        // Lily: 35 mm tall, 25 mm draft -> top 10 mm above the water.
        assert!((MarkerKind::Lily.default_top_height() - 0.010).abs() < 1e-15);
        assert!((MarkerKind::RoundRobot.default_size() - 0.033).abs() < 1e-15);
        assert!(SceneObject::for_module(0, ModuleKind::MolemodBlock, 0.0, 0.0, 0.0, 0.0).is_none());
    }

    #[test]
    fn ball_design_has_no_dot() {
        let d = MarkerKind::Ball.design(0.03);
        assert!(d.dot.is_none());
        assert_eq!(d.region(0.0, 0.0), Region::Marker);
        assert_eq!(d.region(0.01, 0.0), Region::Outline);
        // Clearance at the centre is the marker radius 7.5 mm.
        assert!((d.clearance(0.0, 0.0) - 0.0075).abs() < 1e-15);
    }
}
