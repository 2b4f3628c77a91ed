//! MoleMOD models (SPEC 2): the final robot model, the paper's two simpler models before
//! it (basic and rotating), and the passive block with two square tunnels.

use super::description::{Collision, Colour, Geometry, Inertial, Joint, JointKind, JointLimits, Link, Model, Pose, Visual};
use super::dimensions::{MolemodBlockGeometry, MolemodRobotGeometry};
use super::inertia::{combine, solid, volume};
use super::modules::{GREY, ORANGE, WHITE, YELLOW};
use crate::catalogue::{ModuleKind, ModuleSpec};
use nalgebra::{Isometry3, Vector3};

/// The final robot model: `head_front` - prismatic_0 - `joint_cube_0` - universal_0 -
/// `joint_cube_1` - prismatic_1 - `base_link` (middle cube) - prismatic_2 - `joint_cube_2` -
/// universal_1 - `joint_cube_3` - prismatic_3 - `head_rear`. The tree is rooted at the
/// middle cube, so the front chain runs base -> front and the rear chain base -> rear.
/// Prismatic positions are extensions (positive = longer robot); universal joints turn
/// about z (yaw, turning) then y (pitch, lifting). With every joint at zero the robot is
/// contracted and straight.
pub fn molemod_robot(spec: &ModuleSpec, g: &MolemodRobotGeometry) -> Model {
    let main_link = |name: &str, colour| main_cube(spec, g, name, colour);
    let joint_cube = |i: usize| joint_cube(g, i);
    let (prismatic_limits, universal_limits) = (prismatic_limits(g), universal_limits(g));
    let half_pitch = 0.5 * g.contracted_pitch;
    let mut joints = Vec::new();
    // side = +1 builds the front chain, -1 the rear chain (mirrored along x).
    for (side, outer, inner, universal, cubes, head) in [
        (1.0, "prismatic_0", "prismatic_1", "universal_0", [1, 0], "head_front"),
        (-1.0, "prismatic_3", "prismatic_2", "universal_1", [2, 3], "head_rear"),
    ] {
        let axis = Vector3::x() * side;
        let (near, far) = (format!("joint_cube_{}", cubes[0]), format!("joint_cube_{}", cubes[1]));
        joints.push(Joint {
            name: inner.into(),
            kind: JointKind::Prismatic { axis, limits: prismatic_limits },
            parent: "base_link".into(),
            child: near.clone(),
            origin: Pose::translation(side * half_pitch, 0.0, 0.0),
        });
        joints.push(Joint {
            name: universal.into(),
            kind: JointKind::Universal { axis: Vector3::z(), axis2: Vector3::y(), limits: universal_limits },
            parent: near,
            child: far.clone(),
            origin: Pose::identity(),
        });
        joints.push(Joint {
            name: outer.into(),
            kind: JointKind::Prismatic { axis, limits: prismatic_limits },
            parent: far,
            child: head.into(),
            origin: Pose::translation(side * half_pitch, 0.0, 0.0),
        });
    }
    let mut links = vec![main_link("base_link", WHITE), main_link("head_front", ORANGE), main_link("head_rear", YELLOW)];
    links.extend((0..4).map(joint_cube));
    Model { name: spec.kind.name().to_owned(), links, joints, is_static: false }
}

/// Mass of one of the final model's three main cubes, kg: the catalogue's robot mass less
/// the four joint cubes, shared equally.
fn main_cube_mass(spec: &ModuleSpec, g: &MolemodRobotGeometry) -> f64 {
    (spec.mass - 4.0 * g.joint_cube_mass) / 3.0
}

/// A main cube: drawn, weighed and touching the world.
fn main_cube(spec: &ModuleSpec, g: &MolemodRobotGeometry, name: &str, colour: Colour) -> Link {
    let main = Geometry::Box { size: Vector3::repeat(g.main_cube_side) };
    Link {
        name: name.to_owned(),
        inertial: Some(solid(&main, main_cube_mass(spec, g))),
        visuals: vec![Visual { origin: Pose::identity(), geometry: main, colour }],
        collisions: vec![Collision { origin: Pose::identity(), geometry: main }],
    }
}

/// An immaterial joint cube: drawn, weighed, never touched.
fn joint_cube(g: &MolemodRobotGeometry, i: usize) -> Link {
    let small = Geometry::Box { size: Vector3::repeat(g.joint_cube_side) };
    Link {
        name: format!("joint_cube_{i}"),
        inertial: Some(solid(&small, g.joint_cube_mass)),
        visuals: vec![Visual { origin: Pose::identity(), geometry: small, colour: GREY }],
        collisions: Vec::new(),
    }
}

fn prismatic_limits(g: &MolemodRobotGeometry) -> JointLimits {
    JointLimits { lower: 0.0, upper: g.prismatic_travel, effort: g.prismatic_force, velocity: g.prismatic_speed }
}

/// Limits of each axis of a universal joint, and of the rotating model's revolute joint.
fn universal_limits(g: &MolemodRobotGeometry) -> JointLimits {
    JointLimits { lower: -g.universal_range, upper: g.universal_range, effort: g.universal_torque, velocity: g.universal_speed }
}

/// The paper's basic model (SPEC 2): two main cubes joined by one prismatic joint,
/// `prismatic_0`, along x. The rear cube is the root (`base_link`, REP 105), the front one
/// `head_front`; both are heads (friction switched by the gait). Cubes, masses and joint
/// figures are the final model's ([`molemod_robot`] from the same `spec` and `g`): the cubes
/// one contracted pitch apart at zero, the joint with a final-model prismatic joint's travel,
/// force and speed.
pub fn molemod_basic(spec: &ModuleSpec, g: &MolemodRobotGeometry) -> Model {
    let joints = vec![Joint {
        name: "prismatic_0".into(),
        kind: JointKind::Prismatic { axis: Vector3::x(), limits: prismatic_limits(g) },
        parent: "base_link".into(),
        child: "head_front".into(),
        origin: Pose::translation(g.contracted_pitch, 0.0, 0.0),
    }];
    let links = vec![main_cube(spec, g, "base_link", YELLOW), main_cube(spec, g, "head_front", ORANGE)];
    Model { name: BASIC_MODEL.to_owned(), links, joints, is_static: false }
}

/// The paper's rotating model (SPEC 2): rear head (`base_link`, the root) - `prismatic_1` -
/// `joint_cube_1` - `revolute_0` (about z) - `joint_cube_0` - `prismatic_0` - `head_front`,
/// the two immaterial middle cubes on top of each other ("the simulator cannot connect two
/// joints"). It is the final model's front half with the body cube as rear head and the
/// universal joint's yaw axis alone: same cubes, masses, places and joint figures. A
/// positive `revolute_0` turns the front head counter-clockwise seen from above.
pub fn molemod_rotating(spec: &ModuleSpec, g: &MolemodRobotGeometry) -> Model {
    let half_pitch = 0.5 * g.contracted_pitch;
    let joints = vec![
        Joint {
            name: "prismatic_1".into(),
            kind: JointKind::Prismatic { axis: Vector3::x(), limits: prismatic_limits(g) },
            parent: "base_link".into(),
            child: "joint_cube_1".into(),
            origin: Pose::translation(half_pitch, 0.0, 0.0),
        },
        Joint {
            name: "revolute_0".into(),
            kind: JointKind::Revolute { axis: Vector3::z(), limits: universal_limits(g) },
            parent: "joint_cube_1".into(),
            child: "joint_cube_0".into(),
            origin: Pose::identity(),
        },
        Joint {
            name: "prismatic_0".into(),
            kind: JointKind::Prismatic { axis: Vector3::x(), limits: prismatic_limits(g) },
            parent: "joint_cube_0".into(),
            child: "head_front".into(),
            origin: Pose::translation(half_pitch, 0.0, 0.0),
        },
    ];
    let links = vec![main_cube(spec, g, "base_link", YELLOW), main_cube(spec, g, "head_front", ORANGE), joint_cube(g, 0), joint_cube(g, 1)];
    Model { name: ROTATING_MODEL.to_owned(), links, joints, is_static: false }
}

/// Model (and file) name of the basic model.
pub const BASIC_MODEL: &str = "molemod_basic";

/// Model (and file) name of the rotating model.
pub const ROTATING_MODEL: &str = "molemod_rotating";

/// The paper's two models before the final one, from the MoleMOD robot's catalogue entry
/// and the final model's geometry: [`molemod_basic`], [`molemod_rotating`].
pub fn molemod_paper_models() -> Vec<Model> {
    let spec = ModuleKind::MolemodRobot.spec();
    let g = MolemodRobotGeometry::default();
    vec![molemod_basic(spec, &g), molemod_rotating(spec, &g)]
}

/// The six boxes of a cube of side `2 h` with two crossing square tunnels of side `2 t`,
/// one along x and one along z: two full slabs beside the tunnels (|y| > t) and four
/// corner bars between them (|x| > t and |z| > t). Returns (centre, size) pairs.
fn tunnel_block_boxes(h: f64, t: f64) -> Vec<(Vector3<f64>, Vector3<f64>)> {
    let mid = 0.5 * (h + t);
    let mut boxes = vec![
        (Vector3::new(0.0, mid, 0.0), Vector3::new(2.0 * h, h - t, 2.0 * h)),
        (Vector3::new(0.0, -mid, 0.0), Vector3::new(2.0 * h, h - t, 2.0 * h)),
    ];
    for (sx, sz) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
        boxes.push((Vector3::new(sx * mid, 0.0, sz * mid), Vector3::new(h - t, 2.0 * t, h - t)));
    }
    boxes
}

/// The passive block: the catalogue's cube and mass with two straight square tunnels
/// (along x and along z, so a robot passes horizontally and vertically in the 2-D vertical
/// lattice) as six collision boxes; mass spread by volume.
pub fn molemod_block(spec: &ModuleSpec, g: &MolemodBlockGeometry) -> Model {
    let h = spec.shape.half_height();
    let boxes = tunnel_block_boxes(h, 0.5 * g.tunnel_side);
    let solid_volume: f64 = boxes.iter().map(|(_, s)| volume(&Geometry::Box { size: *s })).sum();
    let density = spec.mass / solid_volume;
    let parts: Vec<(Inertial, Isometry3<f64>)> = boxes
        .iter()
        .map(|(c, s)| {
            let geometry = Geometry::Box { size: *s };
            (solid(&geometry, density * volume(&geometry)), Isometry3::translation(c.x, c.y, c.z))
        })
        .collect();
    let link = Link {
        name: "base_link".into(),
        inertial: Some(combine(&parts)),
        visuals: boxes
            .iter()
            .map(|(c, s)| Visual { origin: Pose { xyz: *c, rpy: Vector3::zeros() }, geometry: Geometry::Box { size: *s }, colour: GREY })
            .collect(),
        collisions: boxes
            .iter()
            .map(|(c, s)| Collision { origin: Pose { xyz: *c, rpy: Vector3::zeros() }, geometry: Geometry::Box { size: *s } })
            .collect(),
    };
    Model { name: spec.kind.name().to_owned(), links: vec![link], joints: Vec::new(), is_static: false }
}
