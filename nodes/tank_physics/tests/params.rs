//! `WorldConfig::from_params`: the parameter tree of `config/*.yaml`, validated key by key.

use flotilla_common::catalogue::ModuleKind;
use tank_physics::{ArenaKind, WorldConfig};

fn parse(text: &str) -> Result<WorldConfig, String> {
    let value: serde_yaml::Value = serde_yaml::from_str(text).unwrap();
    WorldConfig::from_params(&value).map_err(|e| e.to_string())
}

#[test]
fn empty_tree_gives_the_defaults() {
    assert_eq!(parse("{}").unwrap(), WorldConfig::default());
}

#[test]
fn full_tree_is_read() {
    let cfg = parse(
        "dt: 0.02\nseed: 9\narena: {kind: round_tank, diameter: 0.6, depth: 0.3, water_level: -0.07,\n  inlets: {count: 7, deflection_deg: 15}}\n\
         pumps: {power: [10, 20, 30, 40, 50, 60, 70]}\nhydro: {kv: 1.365, kf: 0.442, sigma_stoch: 126.82, d_linear: 0.332, d_angular: 0.12, face_sections: 10}\n\
         modules:\n  lily: {kind: lily, count: 2, poses: [0.0, 0.0, 0.0, 0.1, 0.0, 1.57]}\n  ball: {kind: ping_pong_ball, count: 3}\n\
         spawn: {min_separation: 0.001}\n",
    )
    .unwrap();
    assert_eq!(cfg.dt, 0.02);
    assert_eq!(cfg.seed, 9);
    assert_eq!(cfg.arena.kind, ArenaKind::RoundTank);
    assert_eq!(cfg.arena.water_level, -0.07);
    assert_eq!(cfg.pumps[6], 70.0);
    assert_eq!(cfg.hydro.kf, 0.442);
    assert_eq!(cfg.modules.len(), 2);
    assert_eq!(cfg.modules[0].kind, ModuleKind::Lily);
    assert_eq!(cfg.modules[0].poses.as_ref().unwrap()[1], [0.1, 0.0, 1.57]);
    assert_eq!(cfg.modules[1].prefix, "ball");
}

#[test]
fn errors_name_the_key_path() {
    let cases = [
        ("hydro: {kv: 7}", "hydro.kv: must be in [0.1, 5], got 7"),
        ("hydro: {kv: .nan}", "hydro.kv: must be a finite number"),
        ("hydro: {kv: fast}", "hydro.kv: expected a number, got a string"),
        ("hydro: {kvv: 1}", "hydro.kvv: unknown key"),
        ("dtt: 1", "dtt: unknown key"),
        ("dt: 0.5", "dt: must be in [0.0001, 0.1], got 0.5"),
        ("arena: {kind: pond}", "arena.kind: unknown arena `pond`; known: round_tank, rect_tank, open_water, table"),
        ("arena: {kind: rect_tank, inlets: {count: 3}}", "arena.inlets.count: inlets exist only in the round_tank arena"),
        ("arena: {water_level: -0.4}", "arena.water_level: must be in"),
        ("pumps: {power: [1, 2]}", "pumps.power: give one value or one per inlet (7), got 2"),
        ("pumps: {power: [1, 2, 3, 4, 5, 6, 170]}", "pumps.power[6]: must be in [0, 100], got 170"),
        ("modules: {ball: {kind: frog, count: 2}}", "modules.ball.kind: unknown module kind `frog`; known kinds: lily"),
        ("modules: {ball: {kind: lily, count: 2, poses: [0, 0]}}", "modules.ball.poses: need 3 numbers"),
        ("modules: {ball: {kind: lily, colour: red}}", "modules.ball.colour: unknown key"),
        ("modules: {ba-ll: {kind: lily, count: 1}}", "modules.ba-ll: group names are ROS namespace prefixes"),
        ("hydro: 3", "hydro: expected a mapping, got a number"),
        ("seed: -1", "seed: expected a non-negative integer, got -1"),
        ("flow_field: {file: /nonexistent/f.csv}", ""),
    ];
    for (text, expected) in cases {
        match parse(text) {
            Ok(_) if expected.is_empty() => {}
            Ok(_) => panic!("`{text}` was accepted"),
            Err(msg) => assert!(msg.starts_with(expected), "`{text}`: got `{msg}`, expected `{expected}`"),
        }
    }
}

#[test]
fn error_key_and_reason_split_the_message() {
    let value: serde_yaml::Value = serde_yaml::from_str("hydro: {kv: 7}").unwrap();
    let err = WorldConfig::from_params(&value).unwrap_err();
    assert_eq!(err.key(), "hydro.kv");
    assert_eq!(err.reason(), "must be in [0.1, 5], got 7");
}

#[test]
fn initial_module_count_sums_the_groups() {
    let cfg = WorldConfig::default().with_modules(ModuleKind::Lily, 3, "lily").with_modules(ModuleKind::PingPongBall, 4, "ball");
    assert_eq!(cfg.initial_module_count(), 7);
}

/// The shipped scenarios parse and build.
#[test]
fn scenario_files_build_worlds() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config");
    for (file, kind, count) in [("pingpong_24.yaml", ModuleKind::PingPongBall, 24), ("lily_15.yaml", ModuleKind::Lily, 15)] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let params = &doc["tank_physics"]["ros__parameters"];
        let cfg = WorldConfig::from_params(params).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(cfg.arena.water_level, -0.08, "{file}");
        assert_eq!(cfg.pumps, vec![68.6; 7], "{file}");
        let world = tank_physics::World::new(cfg, 1).unwrap();
        assert_eq!(world.bodies().len(), count);
        assert!(world.bodies().iter().all(|b| b.kind == kind));
    }
}
