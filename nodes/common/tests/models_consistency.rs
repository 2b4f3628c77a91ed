//! The models are physically consistent and agree with the catalogue: every inertia tensor
//! is a body's (positive definite, triangle inequality), masses and dimensions are the
//! catalogue's, frames sit where the papers put them, and the URDF reads back unchanged.

use flotilla_common::catalogue::{ModuleKind, Shape};
use flotilla_common::models::dimensions::MolemodRobotGeometry;
use flotilla_common::models::inertia::check;
use flotilla_common::models::{
    all_models, inlet_layout, module_model, molemod_paper_models, parse_urdf, read_urdf, render_urdf, shape_geometry,
    universal_cross_inertial, ArenaModel, ArenaOutline, Geometry, JointKind, Model, BASIC_MODEL, ROTATING_MODEL,
};
use nalgebra::{Matrix3, Vector3};
use std::f64::consts::PI;
use std::path::Path;

fn urdf_path(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../urdf").join(format!("{name}.urdf"))
}

#[test]
fn every_inertia_in_every_committed_urdf_is_physical() {
    for model in all_models() {
        // Read the committed file, not the in-memory model: this is what tools load.
        let read = read_urdf(&urdf_path(&model.name)).unwrap_or_else(|e| panic!("{e}"));
        let mut massive = 0;
        for link in &read.links {
            if let Some(inertial) = &link.inertial {
                check(inertial).unwrap_or_else(|e| panic!("{}: link {}: {e}", model.name, link.name));
                massive += 1;
            }
        }
        assert!(massive >= 1, "{} has no massive link", model.name);
    }
}

#[test]
fn masses_match_the_catalogue() {
    for kind in ModuleKind::ALL {
        let model = module_model(kind);
        let spec = kind.spec();
        let total = model.total_mass();
        assert!((total - spec.mass).abs() < 1e-12, "{kind}: model {total} kg, catalogue {} kg", spec.mass);
    }
}

fn base_collision(model: &Model) -> Geometry {
    model.links[0].collisions[0].geometry
}

#[test]
fn single_body_kinds_collide_and_weigh_as_the_catalogue_says() {
    for kind in [ModuleKind::Lily, ModuleKind::PingPongBall, ModuleKind::MhpSquare, ModuleKind::MhpCube, ModuleKind::Kilobot] {
        let model = module_model(kind);
        let spec = kind.spec();
        assert_eq!(model.links[0].name, "base_link");
        assert_eq!(base_collision(&model), shape_geometry(&spec.shape), "{kind}");
        let inertial = model.links[0].inertial.expect("massive base");
        assert!((inertial.inertia - Matrix3::from_diagonal(&spec.inertia())).norm() < 1e-18, "{kind}");
    }
    // The Bluebot's body box is the catalogue's; its fins take part of the catalogue mass.
    let bluebot = module_model(ModuleKind::Bluebot);
    assert_eq!(base_collision(&bluebot), shape_geometry(&ModuleKind::Bluebot.spec().shape));
}

#[test]
fn shape_conversion_by_hand() {
    let g = shape_geometry(&Shape::Cylinder { radius: 0.0165, half_height: 0.015 });
    assert_eq!(g, Geometry::Cylinder { radius: 0.0165, length: 0.03 });
    let g = shape_geometry(&Shape::Box { half_extents: Vector3::new(0.015, 0.015, 0.0175) });
    assert_eq!(g, Geometry::Box { size: Vector3::new(0.03, 0.03, 0.035) });
}

fn frame_position(model: &Model, name: &str) -> Vector3<f64> {
    assert!(model.link(name).is_some(), "{}: no frame {name}", model.name);
    model.rest_pose(name).translation.vector
}

fn frame_x_axis(model: &Model, name: &str) -> Vector3<f64> {
    model.rest_pose(name).rotation * Vector3::x()
}

#[test]
fn lily_latch_frames_sit_on_the_catalogue_faces() {
    let model = module_model(ModuleKind::Lily);
    let spec = ModuleKind::Lily.spec();
    for (i, face) in spec.faces.iter().enumerate() {
        let name = format!("latch_{i}");
        assert!((frame_position(&model, &name) - face.centre).norm() < 1e-12, "{name}");
        assert!((frame_x_axis(&model, &name) - face.normal).norm() < 1e-12, "{name} x is not the outward normal");
    }
    // Light sensor on the top face: 17.5 mm above the centre of the 35 mm tall body.
    assert!((frame_position(&model, "light_sensor") - Vector3::new(0.0, 0.0, 0.0175)).norm() < 1e-12);
}

#[test]
fn mhp_modules_have_a_pump_frame_per_face() {
    let square = module_model(ModuleKind::MhpSquare);
    let cube = module_model(ModuleKind::MhpCube);
    let pumps = |m: &Model| m.links.iter().filter(|l| l.name.starts_with("pump_")).count();
    assert_eq!((pumps(&square), pumps(&cube)), (4, 6));
    // Square 80 x 80 x 90 mm (SPEC 5): side pumps 40 mm out.
    assert_eq!(base_collision(&square), Geometry::Box { size: Vector3::new(0.08, 0.08, 0.09) });
    assert!((frame_position(&square, "pump_1") - Vector3::new(0.0, 0.04, 0.0)).norm() < 1e-12);
    // The cube's top and bottom pumps push along +-z, 40 mm from the centre.
    assert!((frame_position(&cube, "pump_4") - Vector3::new(0.0, 0.0, 0.04)).norm() < 1e-12);
    assert!((frame_x_axis(&cube, "pump_4") - Vector3::z()).norm() < 1e-12);
    assert!((frame_x_axis(&cube, "pump_5") + Vector3::z()).norm() < 1e-12);
}

#[test]
fn bluebot_fins_cameras_and_leds() {
    let model = module_model(ModuleKind::Bluebot);
    for fin in ["caudal_fin", "pectoral_fin_left", "pectoral_fin_right", "dorsal_fin"] {
        let joint = model.parent_joint(fin).expect("fin joint");
        assert!(matches!(joint.kind, JointKind::Revolute { .. }), "{fin} is not driven by a revolute joint");
    }
    // LEDs stacked vertically 86 mm apart (SPEC 3).
    let d = frame_position(&model, "led_upper") - frame_position(&model, "led_lower");
    assert!((d - Vector3::new(0.0, 0.0, 0.086)).norm() < 1e-12, "{d}");
    // Two 195 deg cameras: 35 deg overlap in front, 5 deg blind spot behind (SPEC 3).
    let heading = |name: &str| {
        let x = frame_x_axis(&model, name);
        x.y.atan2(x.x)
    };
    let (left, right) = (heading("camera_left"), heading("camera_right"));
    let half_fov = 0.5 * 195.0_f64.to_radians();
    let front_overlap = (right + half_fov) - (left - half_fov);
    let blind_behind = 2.0 * PI - ((left + half_fov) - (right - half_fov));
    assert!((front_overlap.to_degrees() - 35.0).abs() < 1e-9, "{}", front_overlap.to_degrees());
    assert!((blind_behind.to_degrees() - 5.0).abs() < 1e-9, "{}", blind_behind.to_degrees());
    // Optical frames look along the camera's x (REP 103: z forward).
    for side in ["left", "right"] {
        let optical = model.rest_pose(&format!("camera_{side}_optical"));
        let camera_x = frame_x_axis(&model, &format!("camera_{side}"));
        assert!((optical.rotation * Vector3::z() - camera_x).norm() < 1e-12);
    }
}

#[test]
fn kilobot_stands_on_three_legs_inside_its_envelope() {
    let model = module_model(ModuleKind::Kilobot);
    let legs: Vec<_> = (0..3).map(|i| frame_position(&model, &format!("leg_{i}"))).collect();
    for (i, leg) in legs.iter().enumerate() {
        // Legs 120 deg apart on a 12 mm circle; each 12 mm long, its centre 9 mm below the body centre.
        assert!((leg.xy().norm() - 0.012).abs() < 1e-12, "leg {i}");
        assert!((leg.z + 0.009).abs() < 1e-12, "leg {i}: {}", leg.z);
        let next = legs[(i + 1) % 3];
        assert!((leg.xy().angle(&next.xy()) - 2.0 * PI / 3.0).abs() < 1e-9);
    }
    // The IR transceiver under the board looks down.
    assert!((frame_x_axis(&model, "ir_sensor") + Vector3::z()).norm() < 1e-12);
}

#[test]
fn molemod_robot_is_the_final_model() {
    let model = module_model(ModuleKind::MolemodRobot);
    let count = |f: fn(&JointKind) -> bool| model.joints.iter().filter(|j| f(&j.kind)).count();
    assert_eq!(count(|k| matches!(k, JointKind::Prismatic { .. })), 4);
    assert_eq!(count(|k| matches!(k, JointKind::Universal { .. })), 2);
    // Three main cubes touch the world; four immaterial joint cubes do not.
    let colliding: Vec<&str> = model.links.iter().filter(|l| !l.collisions.is_empty()).map(|l| l.name.as_str()).collect();
    assert_eq!(colliding, ["base_link", "head_front", "head_rear"]);
    assert_eq!(model.links.iter().filter(|l| l.name.starts_with("joint_cube_")).count(), 4);
    // The catalogue's 40 x 40 mm cross-section.
    let Shape::Box { half_extents } = ModuleKind::MolemodRobot.spec().shape else { panic!("box") };
    for name in colliding {
        let Geometry::Box { size } = model.link(name).expect("link").collisions[0].geometry else { panic!("box") };
        assert!((size.yz() - 2.0 * half_extents.yz()).norm() < 1e-12, "{name}: {size}");
    }
    // Contracted: the cubes one pitch apart, joint cubes in the middle of the gaps.
    let g = MolemodRobotGeometry::default();
    let p = g.contracted_pitch;
    assert!((frame_position(&model, "head_front") - Vector3::new(p, 0.0, 0.0)).norm() < 1e-12);
    assert!((frame_position(&model, "head_rear") - Vector3::new(-p, 0.0, 0.0)).norm() < 1e-12);
    assert!((frame_position(&model, "joint_cube_3") - Vector3::new(-0.5 * p, 0.0, 0.0)).norm() < 1e-12);
    // The catalogue's box is the contracted robot's bounding box.
    assert!((2.0 * half_extents.x - (2.0 * p + g.main_cube_side)).abs() < 1e-12, "catalogue length {}", 2.0 * half_extents.x);
    // The joint cubes fit between the main cubes without touching them.
    assert!(g.joint_cube_side <= p - g.main_cube_side);
    // URDF form: each universal joint is two revolute joints around a 0.1 g cross link
    // (libsdformat drops a massless one and everything below it).
    let split = model.split_universal_joints();
    for u in ["universal_0", "universal_1"] {
        let cross = split.link(&format!("{u}_cross")).expect("cross link");
        assert!(cross.visuals.is_empty() && cross.collisions.is_empty());
        assert_eq!(cross.inertial, Some(universal_cross_inertial()));
        let a1 = split.joint(&format!("{u}_axis1")).expect("axis1");
        let a2 = split.joint(&format!("{u}_axis2")).expect("axis2");
        match (a1.kind, a2.kind) {
            (JointKind::Revolute { axis: x1, .. }, JointKind::Revolute { axis: x2, .. }) => {
                assert!(x1.dot(&x2).abs() < 1e-12, "the two axes must be perpendicular")
            }
            other => panic!("{u}: {other:?}"),
        }
    }
}

/// The paper's basic and rotating models are made of the final model's parts: its main
/// cubes (size, mass, inertia), its joint cubes, its prismatic joints and the yaw axis of its
/// universal joints, at the final model's places.
#[test]
fn molemod_basic_and_rotating_models_are_made_of_the_final_models_parts() {
    let final_model = module_model(ModuleKind::MolemodRobot);
    let models = molemod_paper_models();
    let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, [BASIC_MODEL, ROTATING_MODEL]);
    let kinds = |m: &Model| -> Vec<(String, &'static str)> {
        m.joints
            .iter()
            .map(|j| {
                let kind = match j.kind {
                    JointKind::Prismatic { .. } => "prismatic",
                    JointKind::Revolute { .. } => "revolute",
                    JointKind::Universal { .. } => "universal",
                    JointKind::Fixed => "fixed",
                };
                (j.name.clone(), kind)
            })
            .collect()
    };
    let p = MolemodRobotGeometry::default().contracted_pitch;
    for model in &models {
        // Two heads touch the world: the rear one is the root (REP 105 base_link).
        let colliding: Vec<&str> = model.links.iter().filter(|l| !l.collisions.is_empty()).map(|l| l.name.as_str()).collect();
        assert_eq!(colliding, ["base_link", "head_front"], "{}", model.name);
        for head in &colliding {
            let (ours, theirs) = (model.link(head).expect("link"), final_model.link("head_front").expect("link"));
            assert_eq!((&ours.inertial, &ours.collisions), (&theirs.inertial, &theirs.collisions), "{} {head}", model.name);
        }
        for cube in model.links.iter().filter(|l| l.name.starts_with("joint_cube_")) {
            assert_eq!(cube.inertial, final_model.link(&cube.name).expect("link").inertial, "{} {}", model.name, cube.name);
        }
        // Contracted, the heads one pitch apart.
        assert!((model.rest_pose("head_front").translation.vector - Vector3::new(p, 0.0, 0.0)).norm() < 1e-12, "{}", model.name);
    }
    let (basic, rotating) = (&models[0], &models[1]);
    assert_eq!(kinds(basic), [("prismatic_0".to_owned(), "prismatic")]);
    assert_eq!(
        kinds(rotating),
        [("prismatic_1".to_owned(), "prismatic"), ("revolute_0".to_owned(), "revolute"), ("prismatic_0".to_owned(), "prismatic")]
    );
    // The rotating model's two immaterial middle cubes lie on each other, halfway between the heads.
    for cube in ["joint_cube_0", "joint_cube_1"] {
        assert!((rotating.rest_pose(cube).translation.vector - Vector3::new(0.5 * p, 0.0, 0.0)).norm() < 1e-12);
    }
    // Joint figures: a final-model prismatic joint's; the revolute one is a universal joint's yaw axis.
    let limits = |m: &Model, name: &str| match m.joint(name).expect("joint").kind {
        JointKind::Prismatic { limits, .. } | JointKind::Revolute { limits, .. } | JointKind::Universal { limits, .. } => limits,
        JointKind::Fixed => panic!("{name} is fixed"),
    };
    let prismatic = limits(&final_model, "prismatic_0");
    assert_eq!(limits(basic, "prismatic_0"), prismatic);
    assert_eq!((limits(rotating, "prismatic_0"), limits(rotating, "prismatic_1")), (prismatic, prismatic));
    assert_eq!(limits(rotating, "revolute_0"), limits(&final_model, "universal_0"));
    let JointKind::Revolute { axis, .. } = rotating.joint("revolute_0").expect("joint").kind else { panic!("revolute") };
    assert_eq!(axis, Vector3::z());
    // (Reading back, inertia and the files: the tests over `all_models`, which holds both.)
}

/// Whether two axis-aligned boxes (centre, full size) overlap with positive volume.
fn boxes_overlap(c1: Vector3<f64>, s1: Vector3<f64>, c2: Vector3<f64>, s2: Vector3<f64>) -> bool {
    (0..3).all(|k| (c1[k] - c2[k]).abs() < 0.5 * (s1[k] + s2[k]) - 1e-12)
}

#[test]
fn molemod_block_lets_the_robot_through_both_tunnels() {
    let block = module_model(ModuleKind::MolemodBlock);
    let spec = ModuleKind::MolemodBlock.spec();
    let link = &block.links[0];
    let boxes: Vec<(Vector3<f64>, Vector3<f64>)> = link
        .collisions
        .iter()
        .map(|c| match c.geometry {
            Geometry::Box { size } => (c.origin.xyz, size),
            other => panic!("{other:?}"),
        })
        .collect();
    // The boxes fill exactly the catalogue cube minus the two tunnels: 1e-3 - 2 * 0.05^2 * 0.1
    // + 0.05^3 (the crossing counted once) = 1e-3 - 5e-4 + 1.25e-4 = 6.25e-4 m^3.
    let volume: f64 = boxes.iter().map(|(_, s)| s.x * s.y * s.z).sum();
    assert!((volume - 6.25e-4).abs() < 1e-12, "{volume}");
    let half = spec.shape.half_height();
    for (c, s) in &boxes {
        assert!((0..3).all(|k| (c[k].abs() + 0.5 * s[k]) <= half + 1e-12), "box outside the catalogue cube");
    }
    // A 40 x 40 mm robot cube slides along x and along z through the block without touching it.
    let robot = Vector3::repeat(0.04);
    for step in -30..=30 {
        let t = f64::from(step) * 0.002;
        for centre in [Vector3::new(t, 0.0, 0.0), Vector3::new(0.0, 0.0, t)] {
            assert!(!boxes.iter().any(|(c, s)| boxes_overlap(centre, robot, *c, *s)), "robot at {centre} hits the block");
        }
    }
    // Not along y: that side is solid.
    assert!(boxes.iter().any(|(c, s)| boxes_overlap(Vector3::new(0.0, 0.04, 0.0), robot, *c, *s)));
    // Mass spread over the solid: the centre of mass stays at the centre by symmetry.
    let inertial = link.inertial.expect("mass");
    assert!((inertial.mass - spec.mass).abs() < 1e-12);
    assert!(inertial.centre_of_mass.norm() < 1e-15);
}

#[test]
fn lily_tank_matches_spec_1() {
    let model = ArenaModel::LilyTank.model();
    let g = ArenaModel::LilyTank.geometry();
    let ArenaOutline::Round { diameter, .. } = g.outline else { panic!("round") };
    assert_eq!((diameter, g.depth, g.water_level), (0.6, 0.3, Some(-0.08)));
    let inlets = g.inlets.expect("inlets");
    assert_eq!(inlets.count, 7);
    let layout = inlet_layout(diameter, &inlets);
    for (i, (position, jet)) in layout.iter().enumerate() {
        // On the wall, jet 15 deg off the inward radial direction.
        assert!((position.norm() - 0.3).abs() < 1e-12);
        let inward = -position.normalize();
        assert!((inward.angle(jet).to_degrees() - 15.0).abs() < 1e-9, "inlet {i}");
        assert!(model.link(&format!("inlet_{i}")).is_some());
        assert!((model.rest_pose(&format!("inlet_{i}")).rotation * Vector3::x()).xy().angle(jet) < 1e-9);
    }
    // Water 8 cm below the 30 cm rim.
    assert!((frame_position(&model, "water_surface").z - 0.22).abs() < 1e-12);
    assert!(model.is_static);
}

#[test]
fn arenas_are_static_bodies_weighing_their_floor_and_walls() {
    // Kilobot table, plywood 600 kg/m^3: top 1.9 x 1.9 x 0.1 m = 0.361 m^3, four rim boxes
    // 1.9 x 0.1 x 0.05 m = 0.0095 m^3 each (corners counted twice, as the boxes overlap):
    // 0.399 m^3 = 239.4 kg, centre of mass (0.361 * -0.05 + 0.038 * 0.025) / 0.399 m.
    let table = ArenaModel::KilobotTable.model();
    let inertial = table.links[0].inertial.expect("the table is a body");
    assert!((inertial.mass - 239.4).abs() < 1e-9, "{}", inertial.mass);
    let com_z = (0.361 * -0.05 + 0.038 * 0.025) / 0.399;
    assert!((inertial.centre_of_mass - Vector3::new(0.0, 0.0, com_z)).norm() < 1e-12, "{}", inertial.centre_of_mass);
    for arena in ArenaModel::ALL {
        let model = arena.model();
        assert!(model.is_static, "{}", model.name);
        let read = read_urdf(&urdf_path(&model.name)).unwrap_or_else(|e| panic!("{e}"));
        assert!(read.is_static, "{}: the URDF does not mark the model static for Gazebo", model.name);
        // Only the floor-and-walls link weighs; water surface and inlets stay frames.
        let massive: Vec<&str> = model.links.iter().filter(|l| l.inertial.is_some()).map(|l| l.name.as_str()).collect();
        assert_eq!(massive, ["base_link"], "{}", model.name);
    }
}

#[test]
fn every_frame_name_is_a_valid_tf_name_and_unique() {
    for model in all_models() {
        let split = model.split_universal_joints();
        assert_eq!(split.links[0].name, "base_link", "{}: REP 105 root", model.name);
        let mut names: Vec<&str> = split.links.iter().map(|l| l.name.as_str()).collect();
        for name in &names {
            assert!(
                name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                    && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{}: `{name}` is not a plain ROS name",
                model.name
            );
        }
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "{}: duplicate link names", model.name);
    }
}

#[test]
fn joining_undoes_splitting() {
    for model in all_models() {
        assert_eq!(model.split_universal_joints().join_universal_joints(), model, "{}", model.name);
    }
}

#[test]
fn urdf_reads_back_as_the_model() {
    for model in all_models() {
        let text = render_urdf(&model);
        let read = parse_urdf(&text, Path::new("memory.urdf")).unwrap_or_else(|e| panic!("{e}"));
        // Same tree and names; numbers equal to the 12 digits the file keeps.
        let split = model.split_universal_joints();
        let names =
            |m: &Model| -> Vec<String> { m.links.iter().map(|l| l.name.clone()).chain(m.joints.iter().map(|j| j.name.clone())).collect() };
        assert_eq!(names(&read), names(&split), "{}", model.name);
        assert_eq!(render_urdf(&read), text, "{}", model.name);
        for (a, b) in read.links.iter().zip(&split.links) {
            if let (Some(a), Some(b)) = (a.inertial, b.inertial) {
                assert!((a.mass - b.mass).abs() <= 1e-11 * b.mass, "{} {}", model.name, a.mass);
                assert!((a.inertia - b.inertia).norm() <= 1e-11 * b.inertia.norm(), "{}", model.name);
            }
        }
    }
}
