use super::*;
use crate::{Command, PlanarPose, WorldConfig};
use flotilla_common::catalogue::ModuleKind;
use flotilla_contract::lily::LilySensors;
use flotilla_contract::mhp::MhpSensors;

fn world() -> World {
    World::new(WorldConfig::default(), 3).unwrap()
}

fn lily(w: &World, id: u32, radio_rx: Vec<u8>, config: &SensingConfig) -> LilySensors {
    match sensors_for(w, id, radio_rx, config).unwrap() {
        Some(Reading::Lily(s)) => s,
        other => panic!("not a Lily reading: {other:?}"),
    }
}

fn mhp(w: &World, id: u32, config: &SensingConfig) -> MhpSensors {
    match sensors_for(w, id, vec![], config).unwrap() {
        Some(Reading::Mhp(s)) => s,
        other => panic!("not an MHP reading: {other:?}"),
    }
}

#[test]
fn light_is_the_brightest_covering_spot_or_ambient() {
    let config = SensingConfig {
        ambient_light: 0.1,
        light_spots: vec![LightSpot { x: 0.0, y: 0.0, radius: 0.05, level: 0.6 }, LightSpot { x: 0.04, y: 0.0, radius: 0.02, level: 0.9 }],
        ..SensingConfig::default()
    };
    assert_eq!(config.light_at(0.2, 0.0), 0.1);
    assert_eq!(config.light_at(0.0, 0.03), 0.6);
    assert_eq!(config.light_at(0.045, 0.0), 0.9);
}

#[test]
fn lily_reports_latches_and_light_only() {
    let mut w = world();
    // Two Lilies 2 mm apart along x: face 0 of `a` opposes face 2 of `b`.
    let a = w.spawn(ModuleKind::Lily, PlanarPose::new(0.0, 0.0, 0.0), "a").unwrap();
    let b = w.spawn(ModuleKind::Lily, PlanarPose::new(0.032, 0.0, 0.0), "b").unwrap();
    for id in [a, b] {
        w.command(id, &Command { latch_on: vec![true; 4], thruster_on: vec![] }).unwrap();
    }
    w.step();
    let config = SensingConfig { light_spots: vec![LightSpot { x: 0.0, y: 0.0, radius: 0.01, level: 0.8 }], ..SensingConfig::default() };
    let sa = lily(&w, a, vec![1, 0, 0], &config);
    assert_eq!(sa.latched, vec![true, false, false, false]);
    assert_eq!(sa.radio_rx, vec![1, 0, 0]);
    assert!((sa.stamp - w.time()).abs() < 1e-12);
    assert!((sa.light - 0.8).abs() < 1e-12, "{}", sa.light);
    let sb = lily(&w, b, vec![], &config);
    assert_eq!(sb.latched, vec![false, false, true, false]);
    assert!((sb.light - 0.2).abs() < 1e-12, "outside the spot: ambient");
    assert_eq!(sensors_for(&w, 99, vec![], &config), Err(SensingError::NoSuchRobot { id: 99 }));
    let ball = w.spawn(ModuleKind::PingPongBall, PlanarPose::new(-0.1, 0.1, 0.0), "ball").unwrap();
    assert_eq!(sensors_for(&w, ball, vec![], &config), Ok(None), "a passive body has no reading");
}

#[test]
fn mhp_contact_and_target_with_occlusion() {
    let mut w = world();
    // 8 cm squares: `a` at the origin, `b` 3 mm to its right, `c` far above.
    let a = w.spawn(ModuleKind::MhpSquare, PlanarPose::new(-0.1, 0.0, 0.0), "a").unwrap();
    let b = w.spawn(ModuleKind::MhpSquare, PlanarPose::new(-0.017, 0.0, 0.0), "b").unwrap();
    let c = w.spawn(ModuleKind::MhpSquare, PlanarPose::new(-0.1, 0.15, 0.0), "c").unwrap();
    let config = SensingConfig { target: Some([0.2, 0.0]), ..SensingConfig::default() };
    let sa = mhp(&w, a, &config);
    assert_eq!(sa.connected, vec![true, false, false, false]);
    // Face 0 looks at the target, but `b` stands in the way.
    assert_eq!(sa.target_seen, vec![false, false, false, false]);
    let sb = mhp(&w, b, &config);
    assert_eq!(sb.connected, vec![false, false, true, false]);
    assert_eq!(sb.target_seen, vec![true, false, false, false]);
    // `c`: the target is ahead (+x) and below (-y): faces 0 and 3 see it.
    let sc = mhp(&w, c, &config);
    assert_eq!(sc.target_seen, vec![true, false, false, true]);
    assert_eq!(sc.connected, vec![false; 4]);
}

#[test]
fn rotated_box_occludes_along_its_true_footprint() {
    let mut w = world();
    // A Lily turned 45 deg: its corner reaches 21 mm from its centre along the axes.
    w.spawn(ModuleKind::Lily, PlanarPose::new(0.0, 0.0, std::f64::consts::FRAC_PI_4), "l").unwrap();
    let body = w.bodies().pop().unwrap();
    let hit = |y: f64| segment_hits_body(Vector2::new(-0.1, y), Vector2::new(0.1, y), &body);
    assert!(hit(0.020), "within the 21.2 mm corner");
    assert!(!hit(0.022), "beyond the corner");
}

#[test]
fn invalid_sensing_values_name_the_key() {
    let bad = SensingConfig { light_spots: vec![LightSpot { x: 0.0, y: 0.0, radius: 0.1, level: 1.5 }], ..SensingConfig::default() };
    let err = bad.validate().unwrap_err().to_string();
    assert!(err.contains("light_spots[0].level"), "{err}");
    let bad = SensingConfig { contact_range: f64::NAN, ..SensingConfig::default() };
    assert!(bad.validate().unwrap_err().to_string().contains("contact_range"));
    assert!(SensingConfig::default().validate().is_ok());
}
