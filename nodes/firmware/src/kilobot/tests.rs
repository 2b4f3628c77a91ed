//! The self-assembly program against hand-made readings (no simulator).

use super::message::Broadcast;
use super::*;
use flotilla_contract::kilobot::{IrMessage, KilobotCommand, KilobotSensors};
use std::sync::Arc;

const MM: f64 = 32.5;

fn heard(uid: u16, gradient: u16, state: State, position: Option<[f64; 2]>, distance: f64) -> IrMessage {
    let b = Broadcast { uid, gradient, state, localised: position.is_some(), position: position.unwrap_or([0.0, 0.0]) };
    IrMessage { payload: b.encode(), distance: distance * MM / 1e3 }
}

fn robot(uid: u16, params: SelfAssemblyParams) -> KilobotFirmware<SelfAssembly> {
    let shape = Arc::new(Shape::rectangle(10.0, 5.0, 0.05).unwrap());
    KilobotFirmware::new(uid, 1, SelfAssembly::new(params, shape, Role::Robot).unwrap())
}

fn tick(fw: &mut KilobotFirmware<SelfAssembly>, ticks: u32, messages: Vec<IrMessage>) -> KilobotCommand {
    let mut c = KilobotCommand::default();
    fw.step_into(&KilobotSensors { ticks, messages, ..KilobotSensors::default() }, &mut c);
    c
}

fn quick() -> SelfAssemblyParams {
    SelfAssemblyParams { startup_time: 2, ..SelfAssemblyParams::default() }
}

fn motion(c: &KilobotCommand) -> (bool, bool) {
    (c.motor_left > 0.0, c.motor_right > 0.0)
}

#[test]
fn seeds_tell_their_fixed_position_and_gradient() {
    let shape = Arc::new(Shape::rectangle(4.0, 4.0, 0.1).unwrap());
    let seed = SelfAssembly::new(SelfAssemblyParams::default(), shape, Role::Seed { position: [1.0, 0.0], source: false }).unwrap();
    let mut fw = KilobotFirmware::new(3, 1, seed);
    let c = tick(&mut fw, 0, vec![heard(9, 4, State::WaitToMove, None, 1.0)]);
    let b = Broadcast::decode(c.message[..].try_into().unwrap()).unwrap();
    assert_eq!((b.uid, b.gradient, b.state, b.localised, b.position), (3, 1, State::JoinedShape, true, [1.0, 0.0]));
    assert_eq!((c.motor_left, c.motor_right), (0.0, 0.0));
}

#[test]
fn gradient_is_one_more_than_the_smallest_within_g() {
    let mut fw = robot(10, quick());
    tick(
        &mut fw,
        0,
        vec![heard(1, 3, State::WaitToMove, None, 1.0), heard(2, 1, State::JoinedShape, None, 1.8), heard(3, 5, State::Start, None, 1.7)],
    );
    assert_eq!(fw.program().gradient(), Some(4), "the gradient-1 robot is beyond G = 1.715");
    tick(&mut fw, 1, vec![heard(2, 1, State::JoinedShape, None, 1.7)]);
    assert_eq!(fw.program().gradient(), Some(2));
    // Neighbours not heard for longer than the timeout are forgotten.
    tick(&mut fw, 40, vec![]);
    assert_eq!(fw.program().gradient(), None);
}

#[test]
fn neighbours_are_found_by_uid_up_to_the_largest_uid() {
    // 20 neighbours, one of them uid u16::MAX (the index's last slot).
    let mut fw = robot(10, quick());
    let mut around: Vec<IrMessage> = (0..19).map(|k| heard(100 + k * 7, 9, State::WaitToMove, None, 3.0)).collect();
    around.push(heard(u16::MAX, 4, State::WaitToMove, None, 1.0));
    tick(&mut fw, 0, around.clone());
    assert_eq!(fw.program().gradient(), Some(5));
    assert!(fw.program().status().ends_with("20 neighbours"), "{}", fw.program().status());
    // The same robots again, the largest uid with a new gradient: updated, not added.
    around[19] = heard(u16::MAX, 2, State::WaitToMove, None, 1.0);
    tick(&mut fw, 1, around);
    assert_eq!(fw.program().gradient(), Some(3));
    assert!(fw.program().status().ends_with("20 neighbours"), "{}", fw.program().status());
    // A new neighbour below them all shifts every entry: still one entry per uid.
    tick(&mut fw, 2, vec![heard(1, 7, State::WaitToMove, None, 1.2), heard(u16::MAX, 2, State::WaitToMove, None, 1.0)]);
    assert!(fw.program().status().ends_with("21 neighbours"), "{}", fw.program().status());
    assert_eq!(fw.program().gradient(), Some(3));
}

#[test]
fn uids_sharing_an_index_slot_are_found_through_inserts_and_expiry() {
    // uids 5, 133 and 261 share an index slot (modulo 128); every insert below them
    // shifts the entries the index names. A lookup that took the entry a slot names
    // without checking its uid would overwrite uid 5's entry with 133's message
    // (gradient 9 instead of 3).
    let mut fw = robot(10, quick());
    tick(&mut fw, 0, vec![heard(5, 2, State::WaitToMove, None, 1.0), heard(133, 8, State::WaitToMove, None, 1.0)]);
    assert_eq!(fw.program().gradient(), Some(3));
    tick(&mut fw, 1, vec![heard(1, 8, State::WaitToMove, None, 1.0), heard(133, 8, State::WaitToMove, None, 1.0)]);
    assert_eq!(fw.program().gradient(), Some(3));
    assert!(fw.program().status().ends_with("3 neighbours"), "{}", fw.program().status());
    tick(&mut fw, 2, vec![heard(261, 8, State::WaitToMove, None, 1.0), heard(5, 6, State::WaitToMove, None, 1.0)]);
    assert_eq!(fw.program().gradient(), Some(7), "uid 5's entry updated in place");
    assert!(fw.program().status().ends_with("4 neighbours"), "{}", fw.program().status());
    // Only 261 heard: the others expire and 261 moves to the front; then 5 comes back.
    for t in 3..40 {
        tick(&mut fw, t, vec![heard(261, 8, State::WaitToMove, None, 1.0)]);
    }
    assert!(fw.program().status().ends_with("1 neighbours"), "{}", fw.program().status());
    tick(&mut fw, 40, vec![heard(5, 1, State::WaitToMove, None, 1.0), heard(261, 8, State::WaitToMove, None, 1.0)]);
    assert_eq!(fw.program().gradient(), Some(2));
    assert!(fw.program().status().ends_with("2 neighbours"), "{}", fw.program().status());
}

#[test]
fn neighbours_beyond_the_index_s_size_are_found_by_uid() {
    // 300 neighbours: more than the index holds (the table is bisected).
    let mut fw = robot(10, SelfAssemblyParams { neighbour_timeout: 1000, ..quick() });
    let around = |last_gradient| {
        (0..300u16).map(|k| heard(1000 + k, if k == 299 { last_gradient } else { 50 }, State::WaitToMove, None, 1.0)).collect::<Vec<_>>()
    };
    tick(&mut fw, 0, around(50));
    tick(&mut fw, 1, around(50));
    assert!(fw.program().status().ends_with("300 neighbours"), "{}", fw.program().status());
    assert_eq!(fw.program().gradient(), Some(51));
    tick(&mut fw, 2, around(20));
    assert!(fw.program().status().ends_with("300 neighbours"), "{}", fw.program().status());
    assert_eq!(fw.program().gradient(), Some(21));
}

#[test]
fn startup_time_then_the_highest_gradient_moves_first() {
    let params = SelfAssemblyParams { startup_time: 5, ..SelfAssemblyParams::default() };
    let lower = |_t| vec![heard(1, 2, State::WaitToMove, None, 1.0), heard(2, 3, State::WaitToMove, None, 2.5)];
    let mut fw = robot(10, params);
    for t in 0..5 {
        assert_eq!(motion(&tick(&mut fw, t, lower(t))), (false, false));
        assert_eq!(fw.program().state(), State::Start);
    }
    let c = tick(&mut fw, 5, lower(5));
    assert_eq!(fw.program().state(), State::WaitToMove, "one tick to leave start");
    assert_eq!(motion(&c), (false, false));
    let c = tick(&mut fw, 6, lower(6));
    assert_eq!(fw.program().gradient(), Some(3));
    assert_eq!(fw.program().state(), State::MoveWhileOutside);
    assert_ne!(motion(&c), (false, false), "moves");

    // Equal gradient: the higher id goes; a moving neighbour holds everyone.
    let mut low_id = robot(4, quick());
    let mut high_id = robot(12, quick());
    for t in 0..6 {
        tick(&mut low_id, t, vec![heard(1, 2, State::WaitToMove, None, 1.0), heard(8, 3, State::WaitToMove, None, 1.2)]);
        tick(&mut high_id, t, vec![heard(1, 2, State::WaitToMove, None, 1.0), heard(8, 3, State::WaitToMove, None, 1.2)]);
    }
    assert_eq!(low_id.program().state(), State::WaitToMove);
    assert_eq!(high_id.program().state(), State::MoveWhileOutside);
    let mut held = robot(12, quick());
    for t in 0..6 {
        tick(&mut held, t, vec![heard(1, 2, State::WaitToMove, None, 1.0), heard(30, 1, State::MoveWhileOutside, None, 4.0)]);
    }
    assert_eq!(held.program().state(), State::WaitToMove);
}

#[test]
fn edge_following_keeps_the_desired_distance() {
    let mut fw = robot(10, quick());
    let at = |d: f64| vec![heard(1, 2, State::WaitToMove, None, 1.0_f64.min(d)), heard(1, 2, State::WaitToMove, None, d)];
    for t in 0..4 {
        tick(&mut fw, t, at(1.2));
    }
    assert_eq!(fw.program().state(), State::MoveWhileOutside);
    // Too close and not getting farther: turn away (counter-clockwise, right motor).
    assert_eq!(motion(&tick(&mut fw, 4, at(1.2))), (false, true));
    // Too close but getting farther: straight.
    assert_eq!(motion(&tick(&mut fw, 5, at(1.3))), (true, true));
    // Too far and not getting closer: turn toward (clockwise, left motor).
    assert_eq!(motion(&tick(&mut fw, 6, at(1.8))), (true, false));
    // Too far but getting closer: straight.
    assert_eq!(motion(&tick(&mut fw, 7, at(1.7))), (true, true));
}

/// The study's reference rule: a waiting robot tells its neighbours it is localised only
/// once its estimate holds still (rounded to 1e-3 over four localisations), neighbours that
/// wait are references once they say so, and a joined robot keeps its estimate.
#[test]
fn under_the_studys_rule_waiting_robots_become_references_once_still_and_joined_ones_freeze() {
    let study = SelfAssemblyParams { references: References::Study, ..quick() };
    let seeds = [[0.0, 0.0], [1.0, 0.0], [0.5, 0.866]];
    let truth = [-1.1, -1.3];
    let from = |state: State, shift: f64| {
        seeds
            .iter()
            .enumerate()
            .map(|(k, s)| heard(k as u16 + 1, 1, state, Some(*s), (truth[0] - s[0]).hypot(truth[1] - s[1]) + shift))
            .collect::<Vec<_>>()
    };
    let mut fw = robot(10, study);
    let mut said_localised = Vec::new();
    for t in 0..400 {
        // A waiting neighbour of higher gradient keeps this robot waiting.
        let mut heard_now = from(State::JoinedShape, 0.0);
        heard_now.push(heard(20, 9, State::WaitToMove, None, 1.2));
        let c = tick(&mut fw, t, heard_now);
        said_localised.push(Broadcast::decode(c.message[..].try_into().unwrap()).unwrap().localised);
    }
    assert_eq!(fw.program().state(), State::WaitToMove);
    // Greedy converges geometrically: early on the estimate still moves, later it holds.
    assert!(!said_localised[0] && !said_localised[5] && said_localised[399], "{said_localised:?}");
    // Waiting robots are references under the study's rule, not under ours.
    for (rule, localises) in [(References::Study, true), (References::Shape, false)] {
        let mut fw = robot(10, SelfAssemblyParams { references: rule, ..quick() });
        tick(&mut fw, 0, from(State::WaitToMove, 0.0));
        assert_eq!(fw.program().position() != [0.0, 0.0], localises, "{rule:?}");
    }
    // A joined robot under the study's rule freezes its estimate: distances that would
    // pull it elsewhere change nothing.
    let mut joined = SelfAssembly::new(study, Arc::new(Shape::rectangle(10.0, 5.0, 0.05).unwrap()), Role::Robot).unwrap();
    joined.force_state_for_test(State::JoinedShape, [2.0, 2.0]);
    let mut fw = KilobotFirmware::new(10, 1, joined);
    tick(&mut fw, 0, from(State::JoinedShape, 0.3));
    assert_eq!(fw.program().position(), [2.0, 2.0]);
}

#[test]
fn localisation_variants_from_three_seeds() {
    let seeds = [[0.0, 0.0], [1.0, 0.0], [0.5, 0.866]];
    let truth = [-1.1, -1.3];
    let readings = || {
        seeds
            .iter()
            .enumerate()
            .map(|(k, s)| heard(k as u16 + 1, u16::from(k > 0), State::JoinedShape, Some(*s), (truth[0] - s[0]).hypot(truth[1] - s[1])))
            .collect::<Vec<_>>()
    };
    let error = |fw: &KilobotFirmware<SelfAssembly>| {
        let p = fw.program().position();
        (p[0] - truth[0]).hypot(p[1] - truth[1])
    };
    let mut greedy = robot(10, quick());
    let mut errors = Vec::new();
    for t in 0..300 {
        tick(&mut greedy, t, readings());
        errors.push(error(&greedy));
    }
    assert!(greedy.program().localised());
    // Broadcast positions are quantised to 1/2048 world units.
    assert!(errors[299] < 2e-3 && errors[10] > errors[299], "{} {}", errors[10], errors[299]);
    let mut ls = robot(10, SelfAssemblyParams { localisation: Localisation::LeastSquares, ..quick() });
    tick(&mut ls, 0, readings());
    assert!(error(&ls) < 2e-3, "{}", error(&ls));
    let mut ideal = robot(10, SelfAssemblyParams { localisation: Localisation::Ideal, ..quick() });
    tick(&mut ideal, 0, readings());
    assert!(!ideal.program().localised(), "no oracle, no position");
    ideal.program_mut().set_oracle(Some(truth));
    tick(&mut ideal, 1, readings());
    assert_eq!(ideal.program().position(), truth);
    // Two references are not enough.
    let mut few = robot(10, quick());
    tick(&mut few, 0, readings()[..2].to_vec());
    assert!(!few.program().localised());
}

#[test]
fn a_moving_robot_does_not_localise_from_a_reference_it_no_longer_hears() {
    // Regression: a reference that went out of range stays in the table for
    // `neighbour_timeout` ticks with the distance last measured; least squares used it
    // while the robot moved on (ideal L: end-state MSE 1.8e-4 instead of ~1e-7).
    let refs = [[0.0, 0.0], [1.0, 0.0], [0.5, 0.866], [1.5, 0.866]];
    let readings = |at: [f64; 2], sources: &[[f64; 2]]| {
        sources
            .iter()
            .map(|s| {
                let uid = refs.iter().position(|r| r == s).unwrap() as u16 + 1;
                heard(uid, 1, State::JoinedShape, Some(*s), (at[0] - s[0]).hypot(at[1] - s[1]))
            })
            .collect::<Vec<_>>()
    };
    let mut fw = robot(10, SelfAssemblyParams { localisation: Localisation::LeastSquares, ..quick() });
    tick(&mut fw, 0, readings([3.0, 0.5], &refs));
    // Moved 0.3 on; the fourth reference (last heard at tick 0, 1.54 away then) is out of range.
    let now = [3.0, 0.8];
    tick(&mut fw, 5, readings(now, &refs[..3]));
    let p = fw.program().position();
    // Broadcast positions are quantised to 1/2048 world units.
    assert!((p[0] - now[0]).hypot(p[1] - now[1]) < 2e-3, "{p:?}");
}

#[test]
fn joins_when_about_to_leave_or_next_to_the_same_gradient() {
    let ideal = SelfAssemblyParams { localisation: Localisation::Ideal, ..quick() };
    let walk = |fw: &mut KilobotFirmware<SelfAssembly>, path: &[[f64; 2]], near: Vec<IrMessage>| {
        for (t, p) in path.iter().enumerate() {
            fw.program_mut().set_oracle(Some(*p));
            tick(fw, t as u32, near.clone());
        }
    };
    let pack = vec![heard(1, 4, State::WaitToMove, None, 1.0)];
    // In, then out of the 10 x 5 rectangle: joins at the first step outside.
    let mut fw = robot(10, ideal);
    walk(&mut fw, &[[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [-0.5, 1.0], [0.5, 1.0], [0.6, 1.0]], pack.clone());
    assert_eq!(fw.program().state(), State::MoveWhileInside);
    walk(&mut fw, &[[-0.01, 1.0]], pack.clone());
    assert_eq!(fw.program().state(), State::JoinedShape);
    // Inside, next to a stationary robot of its own gradient: joins.
    let mut fw = robot(10, ideal);
    walk(&mut fw, &[[-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [-1.0, 1.0], [1.0, 1.0], [1.1, 1.0]], pack);
    assert_eq!(fw.program().state(), State::MoveWhileInside);
    let same = vec![
        heard(1, 4, State::WaitToMove, None, 3.0),
        heard(5, 4, State::JoinedShape, None, 1.6),
        heard(6, 3, State::JoinedShape, None, 1.7),
    ];
    walk(&mut fw, &[[1.2, 1.0]], same);
    assert_eq!(fw.program().gradient(), Some(4));
    assert_eq!(fw.program().state(), State::JoinedShape);
}

#[test]
fn bad_parameters_are_named() {
    let shape = Arc::new(Shape::rectangle(1.0, 1.0, 0.1).unwrap());
    let bad = SelfAssemblyParams { desired_distance: 0.0, ..SelfAssemblyParams::default() };
    let e = SelfAssembly::new(bad, shape, Role::Robot).err().unwrap();
    assert!(e.to_string().contains("desired_distance"), "{e}");
    assert!("fast".parse::<Localisation>().unwrap_err().contains("least-squares"));
    // Distances no robot can keep were accepted: a radius below the distance (every robot
    // edge-followed forever, nothing joined), a distance or G within a diameter (robots
    // packed into each other), a distance of a diameter or a G not above the distance
    // (nothing joined in 100,000 steps).
    let d = SelfAssemblyParams::default();
    for (params, says) in [
        (SelfAssemblyParams { neighbor_radius: 1.2, ..d }, "neighbor_radius = 1.2: must be more than desired_distance (1.615)"),
        (SelfAssemblyParams { desired_distance: 0.5, ..d }, "desired_distance = 0.5: must be more than 1"),
        (SelfAssemblyParams { desired_distance: 1.0, ..d }, "desired_distance = 1: must be more than 1"),
        (
            SelfAssemblyParams { desired_distance: 1.2, gradient_distance: 1.2, ..d },
            "gradient_distance = 1.2: must be more than desired_distance (1.2)",
        ),
        (SelfAssemblyParams { gradient_distance: 1.0, ..d }, "gradient_distance = 1: must be more than 1"),
        (SelfAssemblyParams { gradient_distance: 100.0, ..d }, "gradient_distance = 100: must be at most neighbor_radius (4.845)"),
        (SelfAssemblyParams { divide_localize: 1e-300, ..d }, "divide_localize = 1e-300: must be >= 1"),
    ] {
        let e = params.validate().unwrap_err().to_string();
        assert!(e.starts_with(&format!("self-assembly parameter {says}")), "{e}");
    }
    let study_ideal = SelfAssemblyParams { desired_distance: 1.05, neighbor_radius: 3.0, gradient_distance: 1.5, ..d };
    assert_eq!(study_ideal.validate(), Ok(()));
    assert_eq!("least-squares".parse::<Localisation>().unwrap(), Localisation::LeastSquares);
}

#[test]
fn a_robot_enters_the_shape_only_on_an_estimate_its_measurements_agree_with() {
    // Regression (2026-11-30): with the seeds' rhombus centred on the corner, greedy
    // localisation from (0, 0) can settle on a mirror image inside the shape while the
    // robot is outside it; the robot then joined where it stood.
    let refs = [[1.0, 1.0], [2.0, 1.0], [1.5, 1.866]];
    let at = |p: [f64; 2], scale: f64| -> Vec<IrMessage> {
        let mut m: Vec<IrMessage> = refs
            .iter()
            .enumerate()
            .map(|(k, r)| heard(k as u16 + 1, 2, State::JoinedShape, Some(*r), scale * (p[0] - r[0]).hypot(p[1] - r[1])))
            .collect();
        m.push(heard(20, 2, State::WaitToMove, None, 2.5));
        m
    };
    let truth = [1.5, 1.3];
    let mut fw = robot(10, quick());
    // Distances a tenth of the true ones: no point agrees with all three, and greedy's
    // estimate stays between them, inside the shape.
    for t in 0..40 {
        tick(&mut fw, t, at(truth, 0.1));
    }
    let p = fw.program().position();
    assert!(fw.program().localised() && (0.0..10.0).contains(&p[0]) && (0.0..5.0).contains(&p[1]), "{p:?}");
    assert_eq!(fw.program().state(), State::MoveWhileOutside);
    // The true distances: greedy converges and the robot enters.
    for t in 40..140 {
        tick(&mut fw, t, at(truth, 1.0));
    }
    assert_eq!(fw.program().state(), State::MoveWhileInside);
}

/// Regression: a shape wider than the +-512 world units a message's position carries (an
/// image of 200 pixels at scale 3, or at 1e308, whose run then hung plotting an infinite
/// extent) was accepted, and robots beyond 512 broadcast clamped positions.
#[test]
fn a_shape_beyond_the_message_position_range_is_refused() {
    let d = SelfAssemblyParams::default();
    for scale in [3.0, 1e308] {
        let shape = Arc::new(Shape::new(200, 100, scale, vec![true; 200 * 100]).unwrap());
        let e = SelfAssembly::new(d, shape, Role::Robot).err().unwrap().to_string();
        assert!(e.contains("shape extent") && e.contains("200 x 100 pixels") && e.contains("+-511.9995 world units"), "{e}");
    }
    let fits = Arc::new(Shape::new(200, 100, 2.5, vec![true; 200 * 100]).unwrap());
    assert!(SelfAssembly::new(d, fits, Role::Robot).is_ok(), "500 + 1.615 is within the range");
}

/// Regression: `--desired-distance 1e308` was refused with the 309 digits of 1e308 in the
/// message ("must be more than desired_distance (100000000...)").
#[test]
fn numbers_in_parameter_errors_are_compact() {
    let d = SelfAssemblyParams::default();
    for params in [
        SelfAssemblyParams { desired_distance: 1e308, ..d },
        SelfAssemblyParams { desired_distance: 1e307, neighbor_radius: 2e307, gradient_distance: 1e308, ..d },
        SelfAssemblyParams { neighbor_radius: 2e-300, ..d },
    ] {
        let e = params.validate().unwrap_err().to_string();
        assert!(e.len() < 250 && !e.contains("00000"), "{e}");
    }
    let e = SelfAssemblyParams { desired_distance: 1e308, ..d }.validate().unwrap_err().to_string();
    assert!(e.contains("must be more than desired_distance (1e308)"), "{e}");
}

// Regression: a reading with a NaN distance (a malformed /kilobot/sensors batch reaches the
// swarm host as is) made a localised robot's position NaN, and it stayed NaN: the robot
// could never join the shape. Messages without a finite distance are not heard.
#[test]
fn a_message_without_a_finite_distance_is_not_heard() {
    let seeds = [[0.0, 0.0], [1.0, 0.0], [0.5, 0.866]];
    let truth = [-1.1, -1.3];
    let readings = |bad: Option<f64>| {
        seeds
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let mut m = heard(k as u16 + 1, u16::from(k > 0), State::JoinedShape, Some(*s), (truth[0] - s[0]).hypot(truth[1] - s[1]));
                if let (Some(d), 0) = (bad, k) {
                    m.distance = d;
                }
                m
            })
            .collect::<Vec<_>>()
    };
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut fw = robot(10, quick());
        for t in 0..300 {
            tick(&mut fw, t, readings(None));
        }
        tick(&mut fw, 300, readings(Some(bad)));
        let p = fw.program().position();
        assert!((p[0] - truth[0]).hypot(p[1] - truth[1]) < 2e-3, "distance {bad}: {p:?}");
        for t in 301..320 {
            tick(&mut fw, t, readings(None));
        }
        let p = fw.program().position();
        assert!((p[0] - truth[0]).hypot(p[1] - truth[1]) < 2e-3, "distance {bad}: {p:?}");
    }
    // A robot that never heard a finite distance from its references does not localise.
    let mut deaf = robot(11, quick());
    for t in 0..50 {
        tick(&mut deaf, t, readings(None).into_iter().map(|m| IrMessage { distance: f64::NAN, ..m }).collect());
    }
    assert!(!deaf.program().localised());
}
