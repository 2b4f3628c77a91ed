//! The media in a world: configuration, how bodies are held, and what each medium does to
//! them over long runs (hand-computed equilibria and terminal speeds).

use flotilla_common::catalogue::{ModuleKind, WATER_DENSITY};
use tank_physics::medium::GRAVITY;
use tank_physics::{ArenaKind, MediumKind, PlanarPose, World, WorldConfig};

fn parse(text: &str) -> Result<WorldConfig, String> {
    let value: serde_yaml::Value = serde_yaml::from_str(text).unwrap();
    WorldConfig::from_params(&value).map_err(|e| e.to_string())
}

/// A world of `arena` kind in `medium` (None: the arena's usual one), without inlets.
fn world(arena: ArenaKind, medium: Option<MediumKind>) -> World {
    let mut config = WorldConfig { pumps: Vec::new(), medium, ..WorldConfig::default() };
    config.arena.kind = arena;
    config.arena.inlets.count = 0;
    World::new(config, 1).unwrap()
}

#[test]
fn the_medium_key_defaults_from_the_arena_and_names_itself_in_errors() {
    assert_eq!(parse("{}").unwrap().medium_kind(), MediumKind::StirredTank);
    assert_eq!(parse("arena: {kind: rect_tank}").unwrap().medium_kind(), MediumKind::StirredTank);
    assert_eq!(parse("arena: {kind: open_water}").unwrap().medium_kind(), MediumKind::UnboundedFluid);
    assert_eq!(parse("arena: {kind: table}").unwrap().medium_kind(), MediumKind::DryTable);
    let cfg = parse("medium: water_volume\narena: {kind: rect_tank}").unwrap();
    assert_eq!(cfg.medium, Some(MediumKind::WaterVolume));
    let err = parse("medium: honey").unwrap_err();
    assert_eq!(err, "medium: unknown medium `honey`; known: stirred_tank, water_volume, unbounded_fluid, dry_table");
    let err = parse("medium: water_volume\narena: {kind: table}").unwrap_err();
    assert_eq!(err, "medium: water_volume needs water; the table arena has none");
    assert!(parse("medium: 3").unwrap_err().starts_with("medium: expected a string"));
}

#[test]
fn a_kilobot_on_the_dry_table_stays_on_it_and_feels_no_fluid() {
    let mut w = world(ArenaKind::Table, None);
    assert_eq!(w.medium(), MediumKind::DryTable);
    w.spawn(ModuleKind::Kilobot, PlanarPose::new(0.1, -0.2, 0.5), "kb_0").unwrap();
    for _ in 0..400 {
        w.step();
    }
    let kb = &w.bodies()[0];
    // Resting on the floor under gravity: centre at half its 30 mm height (within the
    // solver's contact allowance), not sliding, not turning.
    assert!((kb.pose.translation.z - 0.015).abs() < 1e-3, "{}", kb.pose.translation);
    assert!((kb.pose.translation.x - 0.1).abs() < 1e-9 && (kb.pose.translation.y + 0.2).abs() < 1e-9, "{}", kb.pose.translation);
    assert!(kb.linvel.norm() < 1e-3 && (kb.heading() - 0.5).abs() < 1e-9, "{} {}", kb.linvel, kb.heading());
    // Floaters cannot be held here.
    let err = w.spawn(ModuleKind::Lily, PlanarPose::new(0.0, 0.0, 0.0), "lily_0").unwrap_err();
    assert_eq!(err.to_string(), "lily needs water; the table arena has none");
    let mut tank = world(ArenaKind::RoundTank, Some(MediumKind::DryTable));
    let err = tank.spawn(ModuleKind::Lily, PlanarPose::new(0.0, 0.0, 0.0), "lily_0").unwrap_err();
    assert_eq!(err.to_string(), "lily cannot live in the dry_table medium");
}

#[test]
fn a_ball_in_the_water_volume_floats_at_its_draft() {
    let mut w = world(ArenaKind::RoundTank, Some(MediumKind::WaterVolume));
    w.spawn(ModuleKind::PingPongBall, PlanarPose::new(0.0, 0.0, 0.0), "ball_0").unwrap();
    // Surface at 0.22 m; a 13.09 g ball displaces its weight with its lowest 25 mm:
    // centre at 0.22 - 0.025 + 0.015 = 0.21 m, and it stays there.
    for _ in 0..400 {
        w.step();
    }
    let b = &w.bodies()[0];
    assert!((b.pose.translation.z - 0.21).abs() < 1e-9, "{}", b.pose.translation);
    assert!(b.linvel.norm() < 1e-9, "{}", b.linvel);
}

#[test]
fn a_bluebot_rises_at_its_terminal_speed_and_stays_level_over_a_long_run() {
    // The Blueswarm tank's water: 0.91 m deep, 1.17 m walls (SPEC 3).
    let mut config = WorldConfig { pumps: Vec::new(), medium: Some(MediumKind::WaterVolume), ..WorldConfig::default() };
    config.arena.kind = ArenaKind::RectTank;
    config.arena.inlets.count = 0;
    (config.arena.size_x, config.arena.size_y, config.arena.depth, config.arena.water_level) = (1.78, 1.78, 1.17, 0.91 - 1.17);
    let mut w = World::new(config, 1).unwrap();
    w.spawn(ModuleKind::Bluebot, PlanarPose::new(0.0, 0.0, 0.3), "bluebot_0").unwrap();
    let start = w.bodies()[0].pose.translation.z;
    // The catalogue's Bluebot is 0.2 % lighter than its 130 x 45 x 40 mm (234 cm^3) hull:
    // 4.6 mN of net lift (slightly buoyant, SPEC 3). Rising against the drag of its
    // 130 x 45 mm top (C = 0.8), the terminal speed is sqrt(2 L / (rho C A)) = 0.0443 m/s.
    let lift = (WATER_DENSITY * 0.13 * 0.045 * 0.04 - ModuleKind::Bluebot.spec().mass) * GRAVITY;
    let terminal = (2.0 * lift / (WATER_DENSITY * 0.8 * 0.13 * 0.045)).sqrt();
    assert!((terminal - 0.0443).abs() < 1e-4, "{terminal}");
    let mut fastest = 0.0f64;
    let mut highest = f64::NEG_INFINITY;
    for _ in 0..4800 {
        w.step();
        let b = &w.bodies()[0];
        assert!(b.pose.translation.vector.iter().all(|v| v.is_finite()), "finite");
        fastest = fastest.max(b.linvel.z);
        highest = highest.max(b.pose.translation.z + 0.02);
        let up = b.pose.rotation * nalgebra::Vector3::z();
        assert!(up.z > 1f64.to_radians().cos(), "stays level: {up}");
    }
    let up = w.bodies()[0].pose.rotation * nalgebra::Vector3::z();
    assert!(up.z > 1.0 - 1e-6, "level: {up}");
    // It never outruns the terminal speed and comes close to it. At the surface it bobs
    // (the medium's waterline spring is stiff against 4.6 mN of lift; measured: top 0 to
    // 3 cm below the surface, up to 4 mm out: under-damped at the waterline, a known
    // limit of this medium; the Blueswarm simulation has its own integrator).
    assert!(fastest <= terminal * (1.0 + 1e-6) && fastest > 0.9 * terminal, "{fastest} vs {terminal}");
    let top = w.bodies()[0].pose.translation.z + 0.02;
    assert!(top > start + 0.4 && top > 0.91 - 0.04 && highest < 0.91 + 0.01, "{top} {highest}");
}
