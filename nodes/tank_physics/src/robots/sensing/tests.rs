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

/// The O(N^2) search the index replaced, kept as the reference: every other body, every face.
mod brute_force {
    use super::super::geometry::{face_frame, segment_hits_body};
    use super::*;

    pub(super) fn face_in_contact(bodies: &[BodyState], index: usize, k: usize, config: &SensingConfig) -> bool {
        let body = &bodies[index];
        if body.faces.get(k).is_some_and(|f| f.latched.is_some()) {
            return true;
        }
        let Some((centre, normal)) = face_frame(body, k) else { return false };
        let cos_limit = config.contact_angle.cos();
        bodies.iter().enumerate().filter(|(j, _)| *j != index).any(|(_, other)| {
            let reach = other.kind.spec().shape.horizontal_radius() + config.contact_range;
            let d = Vector2::new(other.pose.translation.x - centre.x, other.pose.translation.y - centre.y);
            d.norm() <= reach
                && (0..other.faces.len())
                    .filter_map(|m| face_frame(other, m))
                    .any(|(c, n)| (c - centre).norm() <= config.contact_range && normal.dot(&n) <= -cos_limit)
        })
    }

    pub(super) fn face_sees(bodies: &[BodyState], index: usize, k: usize, target: Vector2<f64>) -> bool {
        let Some((centre, normal)) = face_frame(&bodies[index], k) else { return false };
        if (target - centre).dot(&normal) <= 0.0 {
            return false;
        }
        !bodies.iter().enumerate().any(|(j, other)| j != index && segment_hits_body(centre, target, other))
    }
}

/// A body of `kind` at (x, y) turned by `heading`, with no latches made.
fn body_at(id: u32, kind: ModuleKind, x: f64, y: f64, heading: f64) -> BodyState {
    use nalgebra::{Isometry3, Vector3};
    BodyState {
        id,
        name: format!("b_{id}"),
        kind,
        pose: Isometry3::new(Vector3::new(x, y, 0.2), Vector3::z() * heading),
        linvel: Vector3::zeros(),
        angvel: Vector3::zeros(),
        faces: vec![crate::FaceState::default(); kind.spec().faces.len()],
    }
}

#[test]
fn indexed_sensing_matches_the_brute_force_search_face_for_face() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let kinds = [ModuleKind::MhpSquare, ModuleKind::MhpSquare, ModuleKind::Lily, ModuleKind::PingPongBall, ModuleKind::Bluebot];
    let (mut contacts, mut seen, mut blocked) = (0, 0, 0);
    for world in 0..40 {
        let n = rng.gen_range(2..120);
        // Lattices of 80 mm modules with gaps of 0..6 mm (contacts), some turned, some
        // placed anywhere; coordinates on exact multiples too (cell borders).
        let pitch = 0.08 + rng.gen_range(0.0..0.006);
        let bodies: Vec<BodyState> = (0..n)
            .map(|i| {
                let kind = kinds[rng.gen_range(0..kinds.len())];
                let (x, y) = if world % 3 == 0 {
                    (rng.gen_range(-0.6..0.6), rng.gen_range(-0.4..0.4))
                } else {
                    ((i % 10) as f64 * pitch, (i / 10) as f64 * pitch)
                };
                let heading = if rng.gen_bool(0.7) { 0.0 } else { rng.gen_range(-0.3..0.3) };
                body_at(i as u32, kind, x, y, heading)
            })
            .collect();
        let target = match world % 4 {
            0 => [5.0, 0.1],
            1 => [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)],
            2 => [0.4, 0.4],
            _ => [-3.0, rng.gen_range(-3.0..3.0)],
        };
        let config = SensingConfig { target: Some(target), contact_range: rng.gen_range(0.001..0.008), ..SensingConfig::default() };
        let mut index = SensingIndex::default();
        let ctx = SensingContext { snapshot: index.snapshot(&bodies), config: &config };
        for (i, body) in bodies.iter().enumerate() {
            if !body.kind.spec().sensors.contains(&flotilla_common::catalogue::SensorKind::ConnectionPerFace) {
                continue;
            }
            let (contact_faces, seen_faces) = (ctx.contacts(i), ctx.target_seen(i));
            for k in 0..body.faces.len() {
                let contact = brute_force::face_in_contact(&bodies, i, k, &config);
                let sees = brute_force::face_sees(&bodies, i, k, Vector2::new(target[0], target[1]));
                assert_eq!(contact_faces[k], contact, "world {world}, body {i}, face {k}: contact");
                assert_eq!(seen_faces[k], sees, "world {world}, body {i}, face {k}: target");
                contacts += contact as usize;
                seen += sees as usize;
                let (centre, normal) = super::geometry::face_frame(body, k).unwrap();
                blocked += (!sees && (Vector2::new(target[0], target[1]) - centre).dot(&normal) > 0.0) as usize;
            }
            // The one-off path gives the same reading.
            let reading =
                flotilla_contract::mhp::MhpSensors { stamp: 1.0, connected: contact_faces, target_seen: seen_faces, navigation: None };
            if body.kind.system() == Some(flotilla_contract::System::Mhp) {
                assert_eq!(sense(&bodies, i, 1.0, Vec::new(), &config), Some(Reading::Mhp(reading)));
            }
        }
    }
    // The worlds exercised both answers of both sensors.
    assert!(contacts > 100 && seen > 100 && blocked > 100, "contacts {contacts}, seen {seen}, blocked {blocked}");
}
