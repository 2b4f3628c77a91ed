//! Models of the arenas: the round Lily tank with its inlets, the rectangular Blueswarm and
//! MHP tanks, and the Kilobot table. World frame: origin at the centre of the tank floor
//! (the table top), z up; an arena's `base_link` is that origin.

use super::description::{Collision, Colour, Geometry, Joint, Link, Model, Pose, Visual};
use super::modules::{DARK, GREY};
use nalgebra::{Vector2, Vector3};
use std::borrow::Cow;
use std::f64::consts::PI;

const WALL: Colour = Colour { name: Cow::Borrowed("wall"), rgba: [0.7, 0.75, 0.8, 0.35] };
const WATER: Colour = Colour { name: Cow::Borrowed("water"), rgba: [0.2, 0.45, 0.9, 0.25] };
const WOOD: Colour = Colour { name: Cow::Borrowed("wood"), rgba: [0.6, 0.45, 0.3, 1.0] };

/// The arenas Flotilla models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArenaModel {
    /// Round Lily tank with seven peripheral inlets (SPEC 1).
    LilyTank,
    /// Rectangular Blueswarm tank (SPEC 3).
    BlueswarmTank,
    /// Rectangular tank of the MHP 2-D prototype (SPEC 5).
    MhpTank,
    /// Table for Kilobots (SPEC 4) with a low rim.
    KilobotTable,
}

/// Outline of an arena's floor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArenaOutline {
    /// A circle approximated by straight wall boxes.
    Round {
        /// Inner diameter, m.
        diameter: f64,
        /// Number of straight wall boxes.
        wall_segments: usize,
    },
    /// A rectangle.
    Rectangle {
        /// Inner length along x, m.
        size_x: f64,
        /// Inner width along y, m.
        size_y: f64,
    },
}

/// Peripheral inlets on a round tank's wall.
#[derive(Clone, Copy, Debug, PartialEq)]
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
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArenaGeometry {
    /// Floor outline.
    pub outline: ArenaOutline,
    /// Height of the walls (tank depth, or the table's rim), m.
    pub depth: f64,
    /// Water surface relative to the rim (negative: below it), m; `None` without water.
    pub water_level: Option<f64>,
    /// Thickness of walls and floor, m (0.1 m: the tank physics' wall colliders, thick so
    /// that no fast body tunnels through).
    pub wall_thickness: f64,
    /// Inlets, if any.
    pub inlets: Option<InletGeometry>,
}

impl ArenaModel {
    /// Every arena.
    pub const ALL: [ArenaModel; 4] = [ArenaModel::LilyTank, ArenaModel::BlueswarmTank, ArenaModel::MhpTank, ArenaModel::KilobotTable];

    /// The model (and file) name.
    pub fn name(self) -> &'static str {
        match self {
            ArenaModel::LilyTank => "lily_tank",
            ArenaModel::BlueswarmTank => "blueswarm_tank",
            ArenaModel::MhpTank => "mhp_tank",
            ArenaModel::KilobotTable => "kilobot_table",
        }
    }

    /// The arena's dimensions.
    pub fn geometry(self) -> ArenaGeometry {
        match self {
            // 0.60 m across, 0.30 m deep, water 8 cm below the rim, seven inlets deflected
            // 15 deg (SPEC 1); nozzle depth and bore and 48 wall boxes assumed (the tank
            // physics' defaults).
            ArenaModel::LilyTank => ArenaGeometry {
                outline: ArenaOutline::Round { diameter: 0.6, wall_segments: 48 },
                depth: 0.3,
                water_level: Some(-0.08),
                wall_thickness: 0.1,
                inlets: Some(InletGeometry { count: 7, deflection: 15.0_f64.to_radians(), nozzle_below_rim: 0.11, nozzle_diameter: 0.008 }),
            },
            // 1.78 x 1.78 x 1.17 m, water 0.91 m deep (SPEC 3).
            ArenaModel::BlueswarmTank => ArenaGeometry {
                outline: ArenaOutline::Rectangle { size_x: 1.78, size_y: 1.78 },
                depth: 1.17,
                water_level: Some(0.91 - 1.17),
                wall_thickness: 0.1,
                inlets: None,
            },
            // 126 x 68 cm (SPEC 5); 0.30 m deep with water 8 cm below the rim (assumed).
            ArenaModel::MhpTank => ArenaGeometry {
                outline: ArenaOutline::Rectangle { size_x: 1.26, size_y: 0.68 },
                depth: 0.3,
                water_level: Some(-0.08),
                wall_thickness: 0.1,
                inlets: None,
            },
            // 1.7 x 1.7 m: the study's 50 x 50 robot-diameter world (SPEC 4: 50 x 32.5 mm =
            // 1.625 m) with a margin; a 5 cm rim (assumed).
            ArenaModel::KilobotTable => ArenaGeometry {
                outline: ArenaOutline::Rectangle { size_x: 1.7, size_y: 1.7 },
                depth: 0.05,
                water_level: None,
                wall_thickness: 0.1,
                inlets: None,
            },
        }
    }

    /// The arena as a static model.
    pub fn model(self) -> Model {
        arena_model(self.name(), &self.geometry())
    }
}

/// A wall box: centre, yaw (rad) and full size, m.
struct WallBox {
    centre: Vector3<f64>,
    yaw: f64,
    size: Vector3<f64>,
}

/// The wall boxes of an arena, laid out as the tank physics lays them out.
fn walls(g: &ArenaGeometry) -> Vec<WallBox> {
    let t = g.wall_thickness;
    let hz = 0.5 * g.depth;
    match g.outline {
        ArenaOutline::Round { diameter, wall_segments } => {
            let r = 0.5 * diameter;
            let n = wall_segments as f64;
            // Each box covers its chord at the inner radius plus a little overlap.
            let length = 2.0 * (r * (PI / n).tan() + 0.5 * t);
            (0..wall_segments)
                .map(|i| {
                    let angle = 2.0 * PI * i as f64 / n;
                    let rc = r + 0.5 * t;
                    WallBox {
                        centre: Vector3::new(rc * angle.cos(), rc * angle.sin(), hz),
                        yaw: angle,
                        size: Vector3::new(t, length, g.depth),
                    }
                })
                .collect()
        }
        ArenaOutline::Rectangle { size_x, size_y } => {
            let (hx, hy) = (0.5 * size_x, 0.5 * size_y);
            vec![
                WallBox { centre: Vector3::new(hx + 0.5 * t, 0.0, hz), yaw: 0.0, size: Vector3::new(t, size_y + 2.0 * t, g.depth) },
                WallBox { centre: Vector3::new(-hx - 0.5 * t, 0.0, hz), yaw: 0.0, size: Vector3::new(t, size_y + 2.0 * t, g.depth) },
                WallBox { centre: Vector3::new(0.0, hy + 0.5 * t, hz), yaw: 0.0, size: Vector3::new(size_x + 2.0 * t, t, g.depth) },
                WallBox { centre: Vector3::new(0.0, -hy - 0.5 * t, hz), yaw: 0.0, size: Vector3::new(size_x + 2.0 * t, t, g.depth) },
            ]
        }
    }
}

/// Position (x, y) on the inner wall and unit jet direction of each inlet.
pub fn inlet_layout(diameter: f64, inlets: &InletGeometry) -> Vec<(Vector2<f64>, Vector2<f64>)> {
    let r = 0.5 * diameter;
    (0..inlets.count)
        .map(|i| {
            let angle = 2.0 * PI * i as f64 / inlets.count as f64;
            let outward = Vector2::new(angle.cos(), angle.sin());
            let jet = nalgebra::Rotation2::new(inlets.deflection) * -outward;
            (outward * r, jet)
        })
        .collect()
}

fn arena_model(name: &str, g: &ArenaGeometry) -> Model {
    let t = g.wall_thickness;
    let floor_geometry = match g.outline {
        ArenaOutline::Round { diameter, .. } => Geometry::Cylinder { radius: 0.5 * diameter + t, length: t },
        ArenaOutline::Rectangle { size_x, size_y } => Geometry::Box { size: Vector3::new(size_x + 2.0 * t, size_y + 2.0 * t, t) },
    };
    let floor_pose = Pose::translation(0.0, 0.0, -0.5 * t);
    let floor_colour = if g.water_level.is_some() { GREY } else { WOOD };
    let mut base = Link::frame("base_link");
    base.visuals.push(Visual { origin: floor_pose, geometry: floor_geometry, colour: floor_colour });
    base.collisions.push(Collision { origin: floor_pose, geometry: floor_geometry });
    for wall in walls(g) {
        let origin = Pose { xyz: wall.centre, rpy: Vector3::new(0.0, 0.0, wall.yaw) };
        let geometry = Geometry::Box { size: wall.size };
        base.visuals.push(Visual { origin, geometry, colour: WALL });
        base.collisions.push(Collision { origin, geometry });
    }
    let mut links = vec![base];
    let mut joints = Vec::new();
    if let Some(level) = g.water_level {
        // A thin sheet drawn at the surface; its frame is where floating modules' drafts start.
        let sheet = match g.outline {
            ArenaOutline::Round { diameter, .. } => Geometry::Cylinder { radius: 0.5 * diameter, length: 0.001 },
            ArenaOutline::Rectangle { size_x, size_y } => Geometry::Box { size: Vector3::new(size_x, size_y, 0.001) },
        };
        links.push(Link::marker("water_surface", sheet, WATER));
        joints.push(Joint::fixed("base_link", "water_surface", Pose::translation(0.0, 0.0, g.depth + level)));
    }
    if let (Some(inlets), ArenaOutline::Round { diameter, .. }) = (g.inlets, g.outline) {
        let z = g.depth - inlets.nozzle_below_rim;
        for (i, (position, jet)) in inlet_layout(diameter, &inlets).into_iter().enumerate() {
            // Frame x along the jet; the nozzle is drawn as a short tube behind the opening.
            let nozzle = Geometry::Cylinder { radius: 0.5 * inlets.nozzle_diameter + 0.002, length: 0.02 };
            let mut link = Link::frame(format!("inlet_{i}"));
            link.visuals.push(Visual {
                origin: Pose::translation(-0.01, 0.0, 0.0).with_rpy(0.0, 0.5 * PI, 0.0),
                geometry: nozzle,
                colour: DARK,
            });
            joints.push(Joint::fixed(
                "base_link",
                &link.name,
                Pose::translation(position.x, position.y, z).with_rpy(0.0, 0.0, jet.y.atan2(jet.x)),
            ));
            links.push(link);
        }
    }
    Model { name: name.to_owned(), links, joints, is_static: true }
}
