//! Models of the module kinds, built from the catalogue ([`ModuleKind::spec`]) plus the
//! parts in [`super::dimensions`].

use super::description::{Collision, Colour, Geometry, Inertial, Joint, JointKind, JointLimits, Link, Model, Pose, Visual};
use super::dimensions::{BluebotParts, FinSpec, KilobotParts};
use super::inertia::solid;
use super::molemod::{molemod_block, molemod_robot};
use crate::catalogue::{FaceSpec, ModuleKind, ModuleSpec, Shape};
use nalgebra::{Matrix3, Vector3};
use std::borrow::Cow;
use std::f64::consts::FRAC_PI_2;

pub(super) const WHITE: Colour = Colour { name: Cow::Borrowed("white"), rgba: [0.95, 0.95, 0.95, 1.0] };
pub(super) const GREY: Colour = Colour { name: Cow::Borrowed("grey"), rgba: [0.5, 0.5, 0.5, 1.0] };
pub(super) const DARK: Colour = Colour { name: Cow::Borrowed("dark"), rgba: [0.15, 0.15, 0.15, 1.0] };
pub(super) const RED: Colour = Colour { name: Cow::Borrowed("red"), rgba: [0.85, 0.1, 0.1, 1.0] };
pub(super) const ORANGE: Colour = Colour { name: Cow::Borrowed("orange"), rgba: [1.0, 0.55, 0.1, 1.0] };
pub(super) const YELLOW: Colour = Colour { name: Cow::Borrowed("yellow"), rgba: [0.95, 0.85, 0.1, 1.0] };
pub(super) const BLUE: Colour = Colour { name: Cow::Borrowed("blue"), rgba: [0.1, 0.3, 0.9, 1.0] };
pub(super) const GREEN: Colour = Colour { name: Cow::Borrowed("green"), rgba: [0.1, 0.7, 0.2, 1.0] };

/// The model of one module kind. Link names are the TF frames below the module's prefix
/// (`lily_7/base_link`, `lily_7/latch_0`, ...).
pub fn module_model(kind: ModuleKind) -> Model {
    let spec = kind.spec();
    match kind {
        ModuleKind::Lily => lily(spec),
        ModuleKind::PingPongBall => single_body(spec, ORANGE, Vec::new()),
        ModuleKind::Bluebot => bluebot(spec, &BluebotParts::default()),
        ModuleKind::MhpSquare | ModuleKind::MhpCube => mhp(spec),
        ModuleKind::Kilobot => kilobot(spec, &KilobotParts::default()),
        ModuleKind::MolemodRobot => molemod_robot(spec, &Default::default()),
        ModuleKind::MolemodBlock => molemod_block(spec, &Default::default()),
    }
}

/// The catalogue collision shape as a model geometry.
pub fn shape_geometry(shape: &Shape) -> Geometry {
    match *shape {
        Shape::Sphere { radius } => Geometry::Sphere { radius },
        Shape::Box { half_extents } => Geometry::Box { size: 2.0 * half_extents },
        Shape::Cylinder { radius, half_height } => Geometry::Cylinder { radius, length: 2.0 * half_height },
    }
}

/// The catalogue body: its shape, mass and principal inertia.
fn catalogue_base(spec: &ModuleSpec, colour: Colour) -> Link {
    let geometry = shape_geometry(&spec.shape);
    Link {
        name: "base_link".into(),
        inertial: Some(Inertial { mass: spec.mass, centre_of_mass: Vector3::zeros(), inertia: Matrix3::from_diagonal(&spec.inertia()) }),
        visuals: vec![Visual { origin: Pose::identity(), geometry, colour }],
        collisions: vec![Collision { origin: Pose::identity(), geometry }],
    }
}

/// A model of the catalogue body plus massless frames `(link, pose in base_link)`.
fn single_body(spec: &ModuleSpec, colour: Colour, frames: Vec<(Link, Pose)>) -> Model {
    let mut links = vec![catalogue_base(spec, colour)];
    let mut joints = Vec::new();
    for (link, pose) in frames {
        joints.push(Joint::fixed("base_link", &link.name, pose));
        links.push(link);
    }
    Model { name: spec.kind.name().to_owned(), links, joints, is_static: false }
}

/// A frame on a face centre with its x axis along the outward normal.
fn face_frame(centre: Vector3<f64>, normal: Vector3<f64>) -> Pose {
    let pose = Pose { xyz: centre, rpy: Vector3::zeros() };
    if normal.z > 0.5 {
        pose.with_rpy(0.0, -FRAC_PI_2, 0.0)
    } else if normal.z < -0.5 {
        pose.with_rpy(0.0, FRAC_PI_2, 0.0)
    } else {
        pose.with_rpy(0.0, 0.0, normal.y.atan2(normal.x))
    }
}

/// A thin disc lying on a face, drawn in a frame whose x axis is the face normal.
fn face_disc(radius: f64, colour: Colour) -> Visual {
    Visual { origin: Pose::identity().with_rpy(0.0, FRAC_PI_2, 0.0), geometry: Geometry::Cylinder { radius, length: 0.002 }, colour }
}

fn face_marker(name: String, face: &FaceSpec, radius: f64, colour: Colour) -> (Link, Pose) {
    let mut link = Link::frame(name);
    link.visuals.push(face_disc(radius, colour));
    (link, face_frame(face.centre, face.normal))
}

fn top_marker(name: &str, position: Vector3<f64>, radius: f64, colour: Colour) -> (Link, Pose) {
    let mut link = Link::frame(name);
    link.visuals.push(Visual { origin: Pose::identity(), geometry: Geometry::Cylinder { radius, length: 0.002 }, colour });
    (link, Pose { xyz: position, rpy: Vector3::zeros() })
}

fn lily(spec: &ModuleSpec) -> Model {
    let mut frames: Vec<(Link, Pose)> =
        spec.faces.iter().enumerate().map(|(i, face)| face_marker(format!("latch_{i}"), face, 0.006, RED)).collect();
    let top = spec.shape.half_height();
    frames.push(top_marker("light_sensor", Vector3::new(0.0, 0.0, top), 0.003, YELLOW));
    single_body(spec, WHITE, frames)
}

fn mhp(spec: &ModuleSpec) -> Model {
    let mut faces = spec.faces.clone();
    if spec.kind == ModuleKind::MhpCube {
        // The catalogue lists the four side faces the planar model drives; the cube has six.
        let half = spec.shape.half_height();
        for normal in [Vector3::z(), -Vector3::z()] {
            faces.push(FaceSpec { normal, centre: normal * half, ..faces[0].clone() });
        }
    }
    let frames = faces.iter().enumerate().map(|(i, face)| face_marker(format!("pump_{i}"), face, 0.01, BLUE)).collect();
    single_body(spec, GREY, frames)
}

/// A fin link: a plate hinged at its front edge, so its centre lies half a length behind.
fn fin(name: &str, fin: &FinSpec, side: f64) -> (Link, Joint) {
    let geometry = Geometry::Box { size: fin.size };
    let centre = Vector3::new(-0.5 * fin.size.x, 0.0, 0.0);
    let mut inertial = solid(&geometry, fin.mass);
    inertial.centre_of_mass = centre;
    let origin = Pose { xyz: centre, rpy: Vector3::zeros() };
    let link = Link {
        name: name.to_owned(),
        inertial: Some(inertial),
        visuals: vec![Visual { origin, geometry, colour: BLUE }],
        collisions: Vec::new(),
    };
    let joint = Joint {
        name: format!("{name}_joint"),
        kind: JointKind::Revolute {
            axis: fin.axis,
            limits: JointLimits { lower: -fin.amplitude, upper: fin.amplitude, effort: fin.torque, velocity: fin.speed },
        },
        parent: "base_link".into(),
        child: name.to_owned(),
        origin: Pose::translation(fin.hinge.x, side * fin.hinge.y, fin.hinge.z),
    };
    (link, joint)
}

fn bluebot(spec: &ModuleSpec, parts: &BluebotParts) -> Model {
    let fins = [
        fin("caudal_fin", &parts.caudal_fin, 1.0),
        fin("pectoral_fin_left", &parts.pectoral_fin_left, 1.0),
        fin("pectoral_fin_right", &parts.pectoral_fin_left, -1.0),
        fin("dorsal_fin", &parts.dorsal_fin, 1.0),
    ];
    // The catalogue mass is the whole robot's: the body carries what the fins do not.
    let fin_mass: f64 = fins.iter().filter_map(|(l, _)| l.inertial.map(|i| i.mass)).sum();
    let mut base = catalogue_base(spec, WHITE);
    let body_geometry = shape_geometry(&spec.shape);
    base.inertial = Some(solid(&body_geometry, spec.mass - fin_mass));
    // Drawn streamlined: a round body with hemispherical nose and tail, as long as the
    // catalogue box (which stays the collision shape).
    let radius = spec.shape.half_height();
    let half_length = match body_geometry {
        Geometry::Box { size } => 0.5 * size.x,
        _ => spec.shape.horizontal_radius(),
    };
    base.visuals = vec![
        Visual {
            origin: Pose::identity().with_rpy(0.0, FRAC_PI_2, 0.0),
            geometry: Geometry::Cylinder { radius, length: 2.0 * (half_length - radius) },
            colour: WHITE,
        },
        Visual { origin: Pose::translation(half_length - radius, 0.0, 0.0), geometry: Geometry::Sphere { radius }, colour: WHITE },
        Visual { origin: Pose::translation(radius - half_length, 0.0, 0.0), geometry: Geometry::Sphere { radius }, colour: WHITE },
    ];
    // The LED mast.
    base.visuals.push(Visual {
        origin: Pose { xyz: parts.led_midpoint, rpy: Vector3::zeros() },
        geometry: Geometry::Cylinder { radius: 0.0015, length: parts.led_spacing },
        colour: DARK,
    });
    let mut links = vec![base];
    let mut joints = Vec::new();
    for (link, joint) in fins {
        links.push(link);
        joints.push(joint);
    }
    let mut attach = |link: Link, parent: &str, pose: Pose| {
        joints.push(Joint::fixed(parent, &link.name, pose));
        links.push(link);
    };
    let camera_box = Geometry::Box { size: Vector3::new(0.006, 0.01, 0.01) };
    for (side, name) in [(1.0, "left"), (-1.0, "right")] {
        let p = parts.camera_left_position;
        let camera = format!("camera_{name}");
        attach(
            Link::marker(camera.clone(), camera_box, DARK),
            "base_link",
            Pose::translation(p.x, side * p.y, p.z).with_rpy(0.0, 0.0, side * parts.camera_yaw),
        );
        // REP 103 optical frame: z along the optical axis, x right, y down.
        attach(Link::frame(format!("{camera}_optical")), &camera, Pose::identity().with_rpy(-FRAC_PI_2, 0.0, -FRAC_PI_2));
    }
    let led = Geometry::Sphere { radius: parts.led_radius };
    let m = parts.led_midpoint;
    for (dz, name) in [(0.5, "led_upper"), (-0.5, "led_lower")] {
        attach(Link::marker(name, led, BLUE), "base_link", Pose::translation(m.x, m.y, m.z + dz * parts.led_spacing));
    }
    Model { name: spec.kind.name().to_owned(), links, joints, is_static: false }
}

fn kilobot(spec: &ModuleSpec, parts: &KilobotParts) -> Model {
    let (radius, half_height) = (spec.shape.horizontal_radius(), spec.shape.half_height());
    let mut model = single_body(spec, DARK, Vec::new());
    // Drawn as the board and battery on three legs inside the catalogue's envelope.
    let body_length = 2.0 * half_height - parts.leg_length;
    model.links[0].visuals[0] = Visual {
        origin: Pose::translation(0.0, 0.0, 0.5 * parts.leg_length),
        geometry: Geometry::Cylinder { radius, length: body_length },
        colour: DARK,
    };
    let board_bottom = -half_height + parts.leg_length;
    let leg = Geometry::Cylinder { radius: parts.leg_radius, length: parts.leg_length };
    let mut frames: Vec<(Link, Pose)> = (0..3)
        .map(|i| {
            let heading = parts.first_leg_heading + f64::from(i) * 2.0 * std::f64::consts::PI / 3.0;
            let r = parts.leg_circle_radius;
            (
                Link::marker(format!("leg_{i}"), leg, GREY),
                Pose::translation(r * heading.cos(), r * heading.sin(), -half_height + 0.5 * parts.leg_length),
            )
        })
        .collect();
    // The IR transceiver under the board looks down at the table (messages bounce off it).
    frames.push((Link::frame("ir_sensor"), Pose::translation(0.0, 0.0, board_bottom).with_rpy(0.0, FRAC_PI_2, 0.0)));
    frames.push(top_marker("light_sensor", Vector3::new(-0.008, 0.0, half_height), 0.002, YELLOW));
    frames.push(top_marker("led", Vector3::new(0.0, 0.0, half_height), 0.003, GREEN));
    for (link, pose) in frames {
        model.joints.push(Joint::fixed("base_link", &link.name, pose));
        model.links.push(link);
    }
    model
}
