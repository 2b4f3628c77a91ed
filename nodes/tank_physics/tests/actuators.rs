//! Latches (fixed joints on command) and thrusters (force along the face's inward normal,
//! direction error, failures).

use flotilla_common::catalogue::ModuleKind;
use tank_physics::{ArenaKind, Command, HydroParams, LatchLink, MediumKind, PlanarPose, World, WorldConfig};

fn latch_command(on: [bool; 4]) -> Command {
    Command { latch_on: on.to_vec(), ..Command::default() }
}

fn centre_distance(world: &World) -> f64 {
    let b = world.bodies();
    (b[0].pose.translation.vector - b[1].pose.translation.vector).norm()
}

#[test]
fn lilies_latch_when_both_faces_are_on_and_release_on_command() {
    let mut world = World::new(WorldConfig { hydro: HydroParams::lily_published(), ..WorldConfig::default() }, 4).unwrap();
    // Face 0 (+x) of lily_0 faces face 2 (-x) of lily_1, 1 mm apart.
    world.spawn(ModuleKind::Lily, PlanarPose::new(-0.0155, 0.0, 0.0), "lily_0").unwrap();
    world.spawn(ModuleKind::Lily, PlanarPose::new(0.0155, 0.0, 0.0), "lily_1").unwrap();
    // Only one side on: nothing happens.
    world.command(0, &latch_command([true, false, false, false])).unwrap();
    world.step();
    assert!(world.bodies().iter().all(|b| b.faces.iter().all(|f| f.latched.is_none())));
    // Both on: latched, reported on both faces.
    world.command(1, &latch_command([false, false, true, false])).unwrap();
    world.step();
    let b = world.bodies();
    assert_eq!(b[0].faces[0].latched, Some(LatchLink { other_id: 1, other_face: 2 }));
    assert_eq!(b[1].faces[2].latched, Some(LatchLink { other_id: 0, other_face: 0 }));
    // The pair stays joined face to face while the flow stirs it for 30 s.
    for _ in 0..1200 {
        world.step();
        assert!((centre_distance(&world) - 0.03).abs() < 0.002, "{}", centre_distance(&world));
    }
    let b = world.bodies();
    let relative = (b[0].heading() - b[1].heading()).rem_euclid(std::f64::consts::TAU);
    assert!(relative.min(std::f64::consts::TAU - relative) < 0.05, "relative heading {relative}");
    // Off on one side: released; the flow then separates them.
    world.command(1, &latch_command([false; 4])).unwrap();
    world.step();
    assert!(world.bodies().iter().all(|b| b.faces.iter().all(|f| f.latched.is_none())));
    let mut apart = false;
    for _ in 0..2400 {
        world.step();
        apart |= centre_distance(&world) > 0.05;
    }
    assert!(apart, "released modules never drifted apart");
}

#[test]
fn removing_a_latched_module_clears_its_partner() {
    let mut world = World::new(WorldConfig::default(), 4).unwrap();
    world.spawn(ModuleKind::Lily, PlanarPose::new(-0.0155, 0.0, 0.0), "lily_0").unwrap();
    world.spawn(ModuleKind::Lily, PlanarPose::new(0.0155, 0.0, 0.0), "lily_1").unwrap();
    world.command(0, &latch_command([true; 4])).unwrap();
    world.command(1, &latch_command([true; 4])).unwrap();
    world.step();
    assert!(world.bodies()[0].faces[0].latched.is_some());
    world.remove(1).unwrap();
    world.step();
    assert!(world.bodies()[0].faces.iter().all(|f| f.latched.is_none()));
}

fn still_open_water() -> WorldConfig {
    let mut config = WorldConfig {
        hydro: HydroParams { sigma_stoch: 0.0, d_linear: 0.0, d_angular: 0.0, ..HydroParams::default() },
        pumps: Vec::new(),
        ..WorldConfig::default()
    };
    config.arena.kind = ArenaKind::OpenWater;
    // The stirred tank's planar model (drag with the step limiter), still: the hand
    // computation below is for it.
    config.medium = Some(MediumKind::StirredTank);
    config.arena.size_x = 2.0;
    config.arena.size_y = 2.0;
    config.arena.inlets.count = 0;
    config
}

#[test]
fn thruster_pushes_along_the_inward_normal_by_hand() {
    let mut world = World::new(still_open_water(), 1).unwrap();
    world.spawn(ModuleKind::MhpSquare, PlanarPose::new(0.0, 0.0, 0.0), "mhp_0").unwrap();
    // Pump on face 2 (outward normal -x) fires: the module goes +x.
    world.command(0, &Command { thruster_on: vec![false, false, true, false], ..Command::default() }).unwrap();
    world.step();
    // 6.4 mN on 1000 * 0.08 * 0.08 * 0.06 = 0.384 kg for 25 ms from rest (no drag yet):
    // dv = 6.4e-3 * 0.025 / 0.384 = 4.16667e-4 m/s.
    let b = &world.bodies()[0];
    assert!((b.linvel.x - 4.16667e-4).abs() < 1e-8, "{}", b.linvel);
    assert!(b.linvel.y.abs() < 1e-12 && b.angvel.norm() < 1e-12);
    // Terminal speed where thrust T meets the (step-limited) drag k v^2 / (1 + k v dt / m),
    // k = 2.266 * 0.5 * 1000 * (0.08 * 0.06) * 0.8 = 4.350720 N s^2/m^2:
    // k v^2 - T k (dt / m) v - T = 0 -> v = 0.0385628 m/s (0.038357 without the limiter).
    for _ in 0..4000 {
        world.step();
    }
    let v = world.bodies()[0].linvel.x;
    assert!((v - 0.0385628).abs() < 1e-6, "{v}");
}

#[test]
fn thruster_reaches_the_unbounded_fluid_terminal_speed() {
    let mut config = still_open_water();
    config.medium = None;
    assert_eq!(config.medium_kind(), MediumKind::UnboundedFluid, "open water's usual medium");
    let mut world = World::new(config, 1).unwrap();
    world.spawn(ModuleKind::MhpSquare, PlanarPose::new(0.0, 0.0, 0.0), "mhp_0").unwrap();
    world.command(0, &Command { thruster_on: vec![false, false, true, false], ..Command::default() }).unwrap();
    for _ in 0..4000 {
        world.step();
    }
    // sqrt(2 F / (rho A C)) with F = 6.4 mN, A = 0.08 m * 0.09 m across x, C = 0.8:
    // sqrt(0.0128 / 5.76) = 0.0471405 m/s.
    let b = &world.bodies()[0];
    assert!((b.linvel.x - 0.0471405).abs() < 1e-7, "{}", b.linvel);
    assert!(b.linvel.yz().norm() < 1e-12 && b.angvel.norm() < 1e-12, "straight on: {} {}", b.linvel, b.angvel);
}

#[test]
fn failed_thrusters_never_fire_and_direction_error_turns_the_push() {
    let mut config = still_open_water();
    config.thrusters.failure_probability = 1.0;
    let mut world = World::new(config, 1).unwrap();
    world.spawn(ModuleKind::MhpSquare, PlanarPose::new(0.0, 0.0, 0.0), "mhp_0").unwrap();
    assert!(world.bodies()[0].faces.iter().all(|f| f.thruster_failed));
    world.command(0, &Command { thruster_on: vec![true; 4], ..Command::default() }).unwrap();
    world.step();
    assert_eq!(world.bodies()[0].linvel.norm(), 0.0);

    let mut config = still_open_water();
    config.thrusters.direction_error = 1.0;
    let mut world = World::new(config, 3).unwrap();
    world.spawn(ModuleKind::MhpSquare, PlanarPose::new(0.0, 0.0, 0.0), "mhp_0").unwrap();
    world.command(0, &Command { thruster_on: vec![false, false, true, false], ..Command::default() }).unwrap();
    world.step();
    let v = world.bodies()[0].linvel;
    // Still a 6.4 mN push (unit direction), but turned off the x axis by up to 45 deg.
    assert!((v.xy().norm() - 4.16667e-4).abs() < 1e-8, "{v}");
    assert!(v.x > 0.0 && v.y.abs() / v.x <= 1.0 + 1e-12);
}
