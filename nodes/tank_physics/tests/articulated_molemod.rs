//! The MoleMOD robot's final model, loaded from the committed URDF, built in rapier3d and
//! driven through its hardware contract by the five-interval joint-control firmware
//! (SPEC 2), as a real mole would be: the joints expand and
//! contract to within 50 um, the inchworm gait moves step length x iterations, and a
//! universal joint turns the robot.

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::models::dimensions::MolemodRobotGeometry;
use flotilla_common::models::{module_model, read_urdf, render_urdf, JointKind, Model};
use flotilla_contract::Firmware;
use flotilla_firmware::molemod::{FiveIntervalController, JointAxis, JointControl};
use nalgebra::{Isometry3, Vector3};
use rapier3d_f64::prelude::{ColliderSet, ImpulseJointSet, RigidBodySet};
use std::path::Path;
use tank_physics::systems::molemod::world::{MoleWorld, MoleWorldOptions};
use tank_physics::systems::molemod::{ArticulatedError, ArticulatedOptions, ArticulatedRobot};

const DT: f64 = 0.002;
/// Friction of a cube that must hold still, and of one that must slide.
const GRIP: f64 = 1.0;
const SLIDE: f64 = 0.02;
const CUBES: [&str; 3] = ["head_front", "base_link", "head_rear"];

struct Sim {
    world: MoleWorld,
    /// The mole's firmware: one axis per driven joint coordinate, in the robot's order.
    firmware: JointControl,
    /// Joint coordinate names, in the robot's order.
    names: Vec<String>,
    /// Joints given a new target last.
    moving: Vec<String>,
}

fn committed_model() -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../urdf/molemod_robot.urdf");
    read_urdf(&path).unwrap_or_else(|e| panic!("{e}"))
}

impl Sim {
    /// The robot resting on a flat floor (top at z = 0), every joint at zero.
    fn new(model: &Model) -> Self {
        let world = MoleWorld::new(model, Isometry3::identity(), MoleWorldOptions { dt: DT, ..MoleWorldOptions::default() })
            .expect("the model builds");
        let names: Vec<String> = world.robot().joint_names().map(str::to_owned).collect();
        let axes = names
            .iter()
            .map(|n| {
                let prismatic = world.robot().is_prismatic(n).expect("joint");
                let controller = if prismatic { FiveIntervalController::prismatic() } else { FiveIntervalController::revolute() };
                JointAxis { controller, target: 0.0 }
            })
            .collect();
        let mut sim = Self { firmware: JointControl { axes, head_grip: Vec::new() }, names, world, moving: Vec::new() };
        sim.settle();
        sim
    }

    fn step(&mut self) {
        let reading = self.world.sensors();
        let command = self.firmware.step(reading.stamp, &reading);
        self.world.step("mole", &command).expect("the firmware's command fits the robot");
    }

    fn settle(&mut self) {
        for _ in 0..100 {
            self.step();
        }
    }

    /// Runs the controller until every joint moved last is at its target; panics after
    /// `seconds`. (The others hold their positions within the solver's compliance.)
    fn run_to_targets(&mut self, seconds: f64) {
        let limit = (seconds / DT) as usize;
        for _ in 0..limit {
            self.step();
            let reading = self.world.sensors();
            let at_target = |j: &String| {
                let i = self.index(j);
                self.firmware.axes[i].controller.reached(reading.joint_positions[i], self.firmware.axes[i].target)
            };
            if self.moving.iter().all(at_target) {
                return;
            }
        }
        let positions: Vec<String> =
            self.world.robot().joint_names().map(|n| format!("{n}={:.6}", self.world.joint_position(n).unwrap_or(f64::NAN))).collect();
        panic!("joints not at their targets after {seconds} s: {}", positions.join(", "));
    }

    fn targets(&mut self, targets: &[(&str, f64)]) {
        self.moving.clear();
        for (joint, target) in targets {
            self.world.robot().check_target(joint, *target).expect("valid target");
            let i = self.index(joint);
            self.firmware.axes[i].target = *target;
            self.moving.push((*joint).to_owned());
        }
    }

    /// Which cubes grip the floor; the others slide.
    fn grip(&mut self, gripping: &[&str]) {
        for cube in CUBES {
            let mu = if gripping.contains(&cube) { GRIP } else { SLIDE };
            self.world.set_friction(cube, mu).expect("cube");
        }
    }

    fn index(&self, joint: &str) -> usize {
        self.names.iter().position(|n| n == joint).unwrap_or_else(|| panic!("no joint {joint}"))
    }

    fn pose(&self, link: &str) -> Isometry3<f64> {
        self.world.link_pose(link).expect("link")
    }

    fn heading(&self, link: &str) -> f64 {
        let x = self.pose(link).rotation * Vector3::x();
        x.y.atan2(x.x)
    }

    fn joint(&self, name: &str) -> f64 {
        self.world.joint_position(name).expect("joint")
    }
}

#[test]
fn rapier_bodies_carry_the_model_masses() {
    let model = committed_model();
    let sim = Sim::new(&model);
    // The URDF's 0.1 g universal-joint cross links (there for libsdformat) go when the
    // split joints are joined back: the bodies are the native model's links.
    let native = model.join_universal_joints();
    assert!(native.link("universal_0_cross").is_none() && sim.world.robot().body("universal_0_cross").is_err());
    let mut total = 0.0;
    for link in native.links.iter().filter(|l| l.inertial.is_some()) {
        let body_mass = sim.world.link_mass(&link.name).expect("body");
        let mass = link.inertial.expect("mass").mass;
        assert!((body_mass - mass).abs() < 1e-12, "{}: {body_mass} vs {mass}", link.name);
        total += body_mass;
    }
    assert!((total - ModuleKind::MolemodRobot.spec().mass).abs() < 1e-12);
    // Four prismatic joints and two universal joints as two revolute joints each.
    let mut names: Vec<&str> = sim.world.robot().joint_names().collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "prismatic_0",
            "prismatic_1",
            "prismatic_2",
            "prismatic_3",
            "universal_0_axis1",
            "universal_0_axis2",
            "universal_1_axis1",
            "universal_1_axis2",
        ]
    );
    // The file is the catalogue-built model.
    assert_eq!(render_urdf(&model), render_urdf(&module_model(ModuleKind::MolemodRobot)));
}

#[test]
fn joints_expand_and_contract_to_within_50_um() {
    let mut sim = Sim::new(&committed_model());
    let gap = |s: &Sim, a: &str, b: &str| (s.pose(a).translation.vector - s.pose(b).translation.vector).norm();
    let (front0, rear0) = (gap(&sim, "head_front", "base_link"), gap(&sim, "head_rear", "base_link"));
    let pitch = MolemodRobotGeometry::default().contracted_pitch;
    assert!((front0 - pitch).abs() < 1e-4, "contracted pitch {front0}");
    // Expand the first and the fourth joint by 20 mm, the rear cube gripping.
    sim.grip(&["head_rear"]);
    sim.targets(&[("prismatic_0", 0.02), ("prismatic_3", 0.02)]);
    sim.run_to_targets(5.0);
    for joint in ["prismatic_0", "prismatic_3"] {
        assert!((sim.joint(joint) - 0.02).abs() <= 50e-6, "{joint} at {}", sim.joint(joint));
    }
    // Measured independently of the joint reading: the cubes are 20 mm farther apart.
    assert!((gap(&sim, "head_front", "base_link") - front0 - 0.02).abs() < 1e-4);
    assert!((gap(&sim, "head_rear", "base_link") - rear0 - 0.02).abs() < 1e-4);
    // Contract: the same controller drives back (reversed speed past the target).
    sim.targets(&[("prismatic_0", 0.0), ("prismatic_3", 0.0)]);
    sim.run_to_targets(5.0);
    assert!((gap(&sim, "head_front", "base_link") - front0).abs() < 1e-4);
    // 20 mm at 20 mm/s, then half speed over the last 2 mm: about 1.1 s each way.
    assert!(sim.world.time() < (100.0 + 2.0 * 1.5 / DT) * DT, "took {} s", sim.world.time());
}

#[test]
fn inchworm_gait_moves_step_length_times_iterations() {
    let mut sim = Sim::new(&committed_model());
    let start = sim.pose("base_link").translation.vector;
    let step = 0.015;
    let iterations = 6;
    for i in 0..iterations {
        if i % 2 == 0 {
            // Expand with the rear cube gripping: the middle and the front slide forward.
            sim.grip(&["head_rear"]);
            sim.targets(&[("prismatic_0", step), ("prismatic_3", step)]);
        } else {
            // Contract with the front cube gripping: the middle and the rear follow.
            sim.grip(&["head_front"]);
            sim.targets(&[("prismatic_0", 0.0), ("prismatic_3", 0.0)]);
        }
        sim.run_to_targets(5.0);
    }
    let moved = sim.pose("base_link").translation.vector - start;
    // SPEC 2: distance = step length x iterations (an iteration is one expand or one
    // contract; each moves the body one step past its gripping cube).
    let expected = step * f64::from(iterations);
    eprintln!(
        "inchworm: moved {:.5} m along x (expected {expected}), {:.5} m sideways, heading {:.5} rad",
        moved.x,
        moved.y,
        sim.heading("base_link")
    );
    assert!((moved.x - expected).abs() < 0.1 * expected, "moved {moved}, expected {expected} m along x");
    assert!(moved.y.abs() < 0.05 * expected, "drifted sideways {moved}");
    assert!(sim.heading("base_link").abs() < 0.01, "turned {}", sim.heading("base_link"));
}

#[test]
fn universal_joint_turns_the_robot() {
    let mut sim = Sim::new(&committed_model());
    let angle = 0.4;
    // Room to swing: the front head out by 15 mm first.
    sim.grip(&["base_link", "head_rear"]);
    sim.targets(&[("prismatic_0", 0.015)]);
    sim.run_to_targets(5.0);
    let heading0 = sim.heading("base_link");
    // Swing the front head left about the first universal joint's z axis, body gripping.
    sim.targets(&[("universal_0_axis1", angle)]);
    sim.run_to_targets(5.0);
    assert!((sim.heading("head_front") - heading0 - angle).abs() < 0.01, "front heading {}", sim.heading("head_front"));
    assert!((sim.heading("base_link") - heading0).abs() < 0.02, "body turned early");
    // Swap frictions and straighten: the body follows the head.
    sim.grip(&["head_front"]);
    sim.targets(&[("universal_0_axis1", 0.0), ("prismatic_0", 0.0)]);
    sim.run_to_targets(10.0);
    let turned = sim.heading("base_link") - heading0;
    eprintln!("turn: body {turned:.5} rad, gripping head moved {:.5} rad", sim.heading("head_front") - heading0 - angle);
    assert!((turned - angle).abs() < 0.1 * angle, "turned {turned} rad, expected {angle}");
    // The pitch axes held (within the solver's compliance): the robot still lies flat.
    for joint in ["universal_0_axis2", "universal_1_axis2"] {
        assert!(sim.joint(joint).abs() <= 0.01, "{joint} at {}", sim.joint(joint));
    }
    // The gripping head held still while the body swung round to it.
    assert!((sim.heading("head_front") - heading0 - angle).abs() < 0.01, "head slipped to {}", sim.heading("head_front"));
}

#[test]
fn bad_models_and_requests_are_named() {
    let mut model = module_model(ModuleKind::MolemodRobot);
    model.joints[0].child = "wheel".into();
    let (mut bodies, mut colliders, mut joints) = (RigidBodySet::new(), ColliderSet::new(), ImpulseJointSet::new());
    let err =
        ArticulatedRobot::build(&model, Isometry3::identity(), ArticulatedOptions::default(), &mut bodies, &mut colliders, &mut joints)
            .unwrap_err();
    assert!(matches!(&err, ArticulatedError::UnknownLink { link, .. } if link == "wheel"), "{err}");
    assert!(err.to_string().contains("molemod_robot"), "{err}");

    let mut sim = Sim::new(&committed_model());
    let err = sim.world.robot().check_target("prismatic_0", 0.5).unwrap_err();
    assert!(matches!(err, ArticulatedError::TargetOutOfRange { .. }), "{err}");
    assert!(matches!(sim.world.robot().check_target("elbow", 0.0), Err(ArticulatedError::UnknownJoint(_))));
    let too_few = flotilla_contract::molemod::MolemodCommand { joint_velocities: vec![0.0; 2], head_grip: Vec::new() };
    let err = sim.world.step("mole", &too_few).unwrap_err();
    assert!(matches!(err, ArticulatedError::WrongAxisCount { given: 2, .. }), "{err}");
    let too_fast = flotilla_contract::molemod::MolemodCommand { joint_velocities: vec![f64::NAN; sim.names.len()], head_grip: Vec::new() };
    let err = sim.world.step("mole", &too_fast).unwrap_err().to_string();
    assert!(err.contains("mole") && err.contains("joint_velocities[0]"), "{err}");
    assert!(sim.world.set_friction("tail", 0.1).is_err());
    // Only prismatic and revolute joints are driven in the URDF form.
    let split = committed_model();
    assert!(split.joints.iter().all(|j| matches!(j.kind, JointKind::Prismatic { .. } | JointKind::Revolute { .. })));
}
