//! World behaviour: construction from parameters, spawning rules, determinism, planar
//! buoyancy, live parameter changes.

use flotilla_common::catalogue::ModuleKind;
use tank_physics::{Command, HydroParams, PhysicsError, PlanarPose, World, WorldConfig};

fn balls(n: usize) -> WorldConfig {
    WorldConfig::default().with_modules(ModuleKind::PingPongBall, n, "ball")
}

fn run(config: WorldConfig, seed: u64, steps: usize) -> Vec<(f64, f64, f64)> {
    let mut world = World::new(config, seed).unwrap();
    let mut out = Vec::new();
    for _ in 0..steps {
        world.step();
        for b in world.bodies() {
            out.push((b.pose.translation.x, b.pose.translation.y, b.heading()));
        }
    }
    out
}

#[test]
fn same_seed_is_bit_identical_and_another_seed_differs() {
    let a = run(balls(24), 11, 400);
    let b = run(balls(24), 11, 400);
    let c = run(balls(24), 12, 400);
    assert!(a
        .iter()
        .zip(&b)
        .all(|(p, q)| p.0.to_bits() == q.0.to_bits() && p.1.to_bits() == q.1.to_bits() && p.2.to_bits() == q.2.to_bits()));
    assert_ne!(a, c);
}

#[test]
fn lilies_are_deterministic_too() {
    let cfg = WorldConfig { hydro: HydroParams::lily_published(), ..WorldConfig::default() }.with_modules(ModuleKind::Lily, 15, "lily");
    assert_eq!(run(cfg.clone(), 3, 200), run(cfg, 3, 200));
}

#[test]
fn bodies_stay_at_their_draft_inside_the_tank_and_move() {
    let mut world = World::new(balls(24), 5).unwrap();
    let start = world.bodies();
    for _ in 0..(20.0 / 0.025) as usize {
        world.step();
    }
    assert_eq!(world.step_count(), 800);
    assert!((world.time() - 20.0).abs() < 1e-9);
    let end = world.bodies();
    // Surface 0.22 m above the floor; ball centre 25 mm - 15 mm = 10 mm below it.
    for b in &end {
        assert!((b.pose.translation.z - 0.21).abs() < 1e-9, "{}", b.pose.translation.z);
        let r = b.pose.translation.vector.xy().norm();
        assert!(r < 0.3 - 0.015 + 0.003, "{} at r = {r}", b.name);
        assert!(b.linvel.iter().all(|v| v.is_finite()));
    }
    let moved: f64 =
        start.iter().zip(&end).map(|(a, b)| (a.pose.translation.vector - b.pose.translation.vector).norm()).sum::<f64>() / 24.0;
    assert!(moved > 0.02, "mean displacement {moved} m");
    let ids: Vec<u32> = end.iter().map(|b| b.id).collect();
    assert_eq!(ids, (0..24).collect::<Vec<_>>());
    assert_eq!(end[3].name, "ball_3");
}

#[test]
fn spawn_rejects_overlap_outside_taken_names_and_bad_names() {
    let mut world = World::new(WorldConfig::default(), 1).unwrap();
    let id = world.spawn(ModuleKind::Lily, PlanarPose::new(0.0, 0.0, 0.0), "lily_0").unwrap();
    assert_eq!(id, 0);
    let err = world.spawn(ModuleKind::Lily, PlanarPose::new(0.02, 0.0, 0.0), "lily_1").unwrap_err();
    assert!(matches!(err, PhysicsError::Overlap { ref other, .. } if other == "lily_0"), "{err}");
    let err = world.spawn(ModuleKind::Lily, PlanarPose::new(0.29, 0.0, 0.0), "lily_1").unwrap_err();
    assert!(matches!(err, PhysicsError::OutsideArena { .. }), "{err}");
    let err = world.spawn(ModuleKind::Lily, PlanarPose::new(0.1, 0.0, 0.0), "lily_0").unwrap_err();
    assert!(matches!(err, PhysicsError::NameTaken { .. }), "{err}");
    let err = world.spawn(ModuleKind::Lily, PlanarPose::new(0.1, 0.0, 0.0), "lily/1").unwrap_err();
    assert!(matches!(err, PhysicsError::InvalidName { .. }), "{err}");
    let err = world.spawn(ModuleKind::Lily, PlanarPose::new(f64::NAN, 0.0, 0.0), "lily_2").unwrap_err();
    assert!(matches!(err, PhysicsError::NonFinitePose { .. }), "{err}");
    let unknown: PhysicsError = "frog".parse::<ModuleKind>().unwrap_err().into();
    assert!(unknown.to_string().contains("lily, ping_pong_ball"), "{unknown}");
    assert_eq!(world.spawn(ModuleKind::Lily, PlanarPose::new(0.1, 0.0, 0.0), "lily_1").unwrap(), 1);
    let removed = world.remove(0).unwrap();
    assert_eq!(removed.name, "lily_0");
    assert!(world.remove(0).is_err());
    assert_eq!(world.id_of("lily_1"), Some(1));
}

#[test]
fn reset_restarts_with_a_new_seed_and_keeps_live_changes() {
    let mut world = World::new(balls(10), 1).unwrap();
    for _ in 0..10 {
        world.step();
    }
    world.set_pumps(&[90.0]).unwrap();
    world.reset(2).unwrap();
    assert_eq!(world.step_count(), 0);
    assert_eq!(world.time(), 0.0);
    assert_eq!(world.body_count(), 10);
    assert_eq!(world.config().pumps, vec![90.0; 7]);
    let fresh = World::new(balls(10).with_pump_power(90.0), 2).unwrap();
    assert_eq!(world.bodies(), fresh.bodies());
}

#[test]
fn live_parameter_changes_are_validated() {
    let mut world = World::new(balls(4), 1).unwrap();
    let err = world.set_hydro(HydroParams { kv: 7.0, ..HydroParams::default() }).unwrap_err();
    assert_eq!(err.to_string(), "hydro.kv: must be in [0.1, 5], got 7");
    let err = world.set_hydro(HydroParams { d_linear: f64::NAN, ..HydroParams::default() }).unwrap_err();
    assert!(err.to_string().starts_with("hydro.d_linear: must be a finite number"), "{err}");
    assert!(world.set_pumps(&[50.0, 60.0]).unwrap_err().to_string().contains("pumps.power"));
    assert!(world.set_pumps(&[101.0]).unwrap_err().to_string().contains("pumps.power[0]"));
    world.set_hydro(HydroParams { face_sections: 3, ..HydroParams::lily_published() }).unwrap();
    assert_eq!(world.config().hydro.face_sections, 3);
    world.step();
}

#[test]
fn commands_must_match_the_faces() {
    let mut world = World::new(WorldConfig::default().with_modules(ModuleKind::Lily, 1, "lily"), 1).unwrap();
    let err = world.command(0, &Command { latch_on: vec![true; 3], ..Command::default() }).unwrap_err();
    assert!(err.to_string().contains("latch_on needs 4 entries"), "{err}");
    world.command(0, &Command { latch_on: vec![true; 4], ..Command::default() }).unwrap();
    assert!(world.bodies()[0].faces.iter().all(|f| f.latch_on));
    assert!(world.command(9, &Command::default()).is_err());
}

#[test]
fn world_is_send() {
    fn assert_send<T: Send>() {}
    assert_send::<World>();
}

#[test]
fn arenas_hold_the_kinds_they_can() {
    let mut table = WorldConfig { pumps: Vec::new(), ..WorldConfig::default() };
    table.arena.kind = tank_physics::ArenaKind::Table;
    table.arena.inlets.count = 0;
    let mut world = World::new(table, 1).unwrap();
    let err = world.spawn(ModuleKind::Lily, PlanarPose::new(0.0, 0.0, 0.0), "lily_0").unwrap_err();
    assert_eq!(err.to_string(), "lily needs water; the table arena has none");
    world.spawn(ModuleKind::Kilobot, PlanarPose::new(0.0, 0.0, 0.0), "kb_0").unwrap();
    // On the table: centre at half its height above the top.
    assert!((world.bodies()[0].pose.translation.z - 0.015).abs() < 1e-12);
    // Off the 1.26 m x 0.68 m table (sizes of ArenaConfig::default()).
    assert!(world.spawn(ModuleKind::Kilobot, PlanarPose::new(0.6, 0.0, 0.0), "kb_1").is_ok());
    assert!(world.spawn(ModuleKind::Kilobot, PlanarPose::new(0.7, 0.0, 0.0), "kb_2").is_err());
    world.step();
}

#[test]
fn a_measured_field_file_is_used_and_scaled_by_pump_power() {
    use flotilla_common::flow_field::{FlowCell, FlowGrid, GridExtent};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("field.csv");
    let mut grid = FlowGrid::new(4, 4, GridExtent::centred_square(0.6)).unwrap();
    for c in grid.cells_mut() {
        *c = FlowCell { mean: nalgebra::Vector2::new(0.1, 0.0), std: nalgebra::Vector2::new(0.02, 0.02), count: 5 };
    }
    grid.write_csv(&path).unwrap();
    let yaml = format!("flow_field: {{file: {}, measured_at_power: 68.6}}\npumps: {{power: 34.3}}", path.display());
    let config = WorldConfig::from_params(&serde_yaml::from_str(&yaml).unwrap()).unwrap();
    let mut world = World::new(config, 1).unwrap();
    // Half the recorded power: 0.1 * 34.3 / 68.6 = 0.05 m/s, deviation 0.01 m/s.
    let cell = world.flow_field().cell(2, 2).unwrap();
    assert!((cell.mean.x - 0.05).abs() < 1e-15 && (cell.std.y - 0.01).abs() < 1e-15);
    world.set_pumps(&[68.6]).unwrap();
    assert!((world.flow_field().cell(0, 0).unwrap().mean.x - 0.1).abs() < 1e-15);
}

/// Issue 21 item 9: a 10 000-character module name was accepted and then made every
/// per-robot topic invalid (endless RCL_RET_TOPIC_NAME_INVALID warnings).
#[test]
fn item9_overlong_module_names_are_refused() {
    let mut world = World::new(WorldConfig::default(), 1).unwrap();
    let name = "m".repeat(10_000);
    let err = world.spawn(ModuleKind::Lily, PlanarPose::new(0.0, 0.0, 0.0), &name).unwrap_err();
    assert!(matches!(err, PhysicsError::InvalidName { .. }) && err.to_string().contains("at most 64"), "{err}");
    assert!(err.to_string().len() < 300, "the message does not repeat the whole name");
}
