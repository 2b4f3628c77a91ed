//! Models of the arenas: the round Lily tank with its inlets, the rectangular Blueswarm and
//! MHP tanks, and the Kilobot table. World frame: origin at the centre of the tank floor
//! (the table top), z up; an arena's `base_link` is that origin.

use super::description::{Collision, Colour, Geometry, Inertial, Joint, Link, Model, Pose, Visual};
use super::inertia::{combine, solid, volume};
use super::modules::{DARK, GREY};
pub use crate::arena::{inlet_layout, ArenaGeometry, ArenaOutline, InletGeometry};
use nalgebra::Vector3;
use std::borrow::Cow;
use std::f64::consts::PI;

const WALL: Colour = Colour { name: Cow::Borrowed("wall"), rgba: [0.7, 0.75, 0.8, 0.35] };
const WATER: Colour = Colour { name: Cow::Borrowed("water"), rgba: [0.2, 0.45, 0.9, 0.25] };
const WOOD: Colour = Colour { name: Cow::Borrowed("wood"), rgba: [0.6, 0.45, 0.3, 1.0] };

/// Density of a tank's floor and walls, kg/m^3: PMMA (acrylic), assumed.
const TANK_DENSITY: f64 = 1190.0;
/// Density of the Kilobot table's top and rim, kg/m^3: plywood, assumed.
const TABLE_DENSITY: f64 = 600.0;

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
                walled: true,
                outline: ArenaOutline::Round { diameter: 0.6, wall_segments: 48 },
                depth: 0.3,
                water_level: Some(-0.08),
                wall_thickness: 0.1,
                inlets: Some(InletGeometry { count: 7, deflection: 15.0_f64.to_radians(), nozzle_below_rim: 0.11, nozzle_diameter: 0.008 }),
            },
            // 1.78 x 1.78 x 1.17 m, water 0.91 m deep (SPEC 3).
            ArenaModel::BlueswarmTank => ArenaGeometry {
                walled: true,
                outline: ArenaOutline::Rectangle { size_x: 1.78, size_y: 1.78 },
                depth: 1.17,
                water_level: Some(0.91 - 1.17),
                wall_thickness: 0.1,
                inlets: None,
            },
            // 126 x 68 cm (SPEC 5); 0.30 m deep with water 8 cm below the rim (assumed).
            ArenaModel::MhpTank => ArenaGeometry {
                walled: true,
                outline: ArenaOutline::Rectangle { size_x: 1.26, size_y: 0.68 },
                depth: 0.3,
                water_level: Some(-0.08),
                wall_thickness: 0.1,
                inlets: None,
            },
            // 1.7 x 1.7 m: the study's 50 x 50 robot-diameter world (SPEC 4: 50 x 32.5 mm =
            // 1.625 m) with a margin; a 5 cm rim (assumed).
            ArenaModel::KilobotTable => ArenaGeometry {
                walled: true,
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
    for wall in g.walls() {
        let origin = Pose { xyz: wall.centre, rpy: Vector3::new(0.0, 0.0, wall.yaw) };
        let geometry = Geometry::Box { size: 2.0 * wall.half_extents };
        base.visuals.push(Visual { origin, geometry, colour: WALL });
        base.collisions.push(Collision { origin, geometry });
    }
    let density = if g.water_level.is_some() { TANK_DENSITY } else { TABLE_DENSITY };
    base.inertial = Some(solid_of(&base.collisions, density));
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
    if let (Some(inlets), ArenaOutline::Round { .. }) = (g.inlets, g.outline) {
        let z = g.depth - inlets.nozzle_below_rim;
        for (i, (position, jet)) in g.inlet_layout().into_iter().enumerate() {
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

/// Mass properties of the arena's floor and walls as solids of `density` kg/m^3. The arena
/// is static (`<static>` in SDF, the `<gazebo><static>` extension in URDF), so this mass
/// never moves anything; the link has it because libsdformat's URDF converter (what Gazebo
/// loads a URDF through) drops a link without mass and then refuses a model with no link.
/// The walls are the physics' 0.1 m wall boxes, thicker than a real tank's, so this is the
/// mass of the model's solid, not of the real tank.
fn solid_of(parts: &[Collision], density: f64) -> Inertial {
    let parts: Vec<_> = parts.iter().map(|c| (solid(&c.geometry, density * volume(&c.geometry)), c.origin.to_isometry())).collect();
    combine(&parts)
}
