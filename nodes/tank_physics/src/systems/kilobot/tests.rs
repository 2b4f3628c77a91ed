use super::*;
use flotilla_contract::kilobot::{KilobotCommand, KilobotSensors};

fn at(points: &[(f64, f64, f64)]) -> Vec<Pose> {
    points.iter().map(|&(x, y, theta)| Pose { x, y, theta }).collect()
}

fn drive(left: f64, right: f64) -> KilobotCommand {
    KilobotCommand { motor_left: left, motor_right: right, message: vec![7], ..KilobotCommand::default() }
}

fn exact() -> TableConfig {
    TableConfig { channel: ChannelConfig { distance_error: DistanceError::None, ..ChannelConfig::default() }, ..TableConfig::default() }
}

#[test]
fn forward_and_turns_follow_the_study_motion_model() {
    let study = TableConfig { turn_angle: std::f64::consts::FRAC_PI_4, ..exact() };
    let mut table = KilobotTable::new(study, &at(&[(0.0, 0.0, 0.0), (10.0, 0.0, 0.0), (20.0, 0.0, 0.0)]), 1).unwrap();
    table.apply_all(&[drive(1.0, 1.0), drive(1.0, 0.0), drive(0.0, 1.0)]).unwrap();
    table.step();
    let (f, cw, ccw) = (table.pose(0), table.pose(1), table.pose(2));
    assert!((f.x - 0.01).abs() < 1e-12 && f.y == 0.0 && f.theta == 0.0);
    let q = std::f64::consts::FRAC_PI_4;
    assert!((cw.theta + q).abs() < 1e-12 && (cw.x - 10.0 - 0.01 * q.cos()).abs() < 1e-12 && (cw.y + 0.01 * q.sin()).abs() < 1e-12);
    assert!((ccw.theta - q).abs() < 1e-12 && (ccw.y - 0.01 * q.sin()).abs() < 1e-12, "turning drifts forward");
    assert!((table.odometer(1) - 0.01).abs() < 1e-12);
}

#[test]
fn speed_factors_are_drawn_per_robot() {
    let config = TableConfig { speed_factor_std: 0.1, ..exact() };
    let poses: Vec<Pose> = (0..4000).map(|i| Pose { x: 3.0 * i as f64, y: 0.0, theta: 0.0 }).collect();
    let table = KilobotTable::new(config, &poses, 3).unwrap();
    let f: Vec<f64> = (0..4000).map(|i| table.speed_factor(i)).collect();
    let mean = f.iter().sum::<f64>() / 4000.0;
    let std = (f.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 4000.0).sqrt();
    assert!((mean - 1.0).abs() < 0.01 && (std - 0.1).abs() < 0.01, "{mean} {std}");
}

#[test]
fn robots_cannot_pass_through_each_other_and_contacts_count_once() {
    let config = TableConfig { avoidance: None, ..exact() };
    let mut table = KilobotTable::new(config, &at(&[(0.0, 0.0, 0.0), (1.5, 0.0, 0.0)]), 1).unwrap();
    table.set_anchored(1, true);
    for _ in 0..200 {
        table.apply_all(&[drive(1.0, 1.0), KilobotCommand::default()]).unwrap();
        table.step();
    }
    let (a, b) = (table.pose(0), table.pose(1));
    assert_eq!((b.x, b.y), (1.5, 0.0), "an anchored robot is not shoved");
    assert!(((b.x - a.x).hypot(b.y - a.y) - 1.0).abs() < 1e-9, "held at contact: {a:?}");
    assert_eq!(table.collisions(), 1);
    // Free and as heavy as the mover, it is pushed along (half of each overlap).
    let config = TableConfig { push_share: 0.5, ..config };
    let mut table = KilobotTable::new(config, &at(&[(0.0, 0.0, 0.0), (1.5, 0.0, 0.0)]), 1).unwrap();
    for _ in 0..200 {
        table.apply_all(&[drive(1.0, 1.0), KilobotCommand::default()]).unwrap();
        table.step();
    }
    assert!(table.pose(1).x > 1.5 + 0.5, "{:?}", table.pose(1));
    assert!((table.pose(1).x - table.pose(0).x) >= 1.0 - 1e-9);
}

#[test]
fn avoidance_stops_a_fast_robot_behind_a_slow_one() {
    let run = |avoidance: Option<Avoidance>| {
        let config = TableConfig { avoidance, speed_factor_std: 0.3, ..exact() };
        // Find a seed where the rear robot is faster.
        let seed = (0..100)
            .find(|&s| {
                let t = KilobotTable::new(config, &at(&[(0.0, 0.0, 0.0), (2.0, 0.0, 0.0)]), s).unwrap();
                t.speed_factor(0) > 1.3 * t.speed_factor(1)
            })
            .unwrap();
        let mut table = KilobotTable::new(config, &at(&[(0.0, 0.0, 0.0), (2.0, 0.0, 0.0)]), seed).unwrap();
        let mut closest = f64::INFINITY;
        for _ in 0..3000 {
            table.apply_all(&[drive(1.0, 1.0), drive(1.0, 1.0)]).unwrap();
            table.step();
            closest = closest.min(table.pose(1).x - table.pose(0).x);
        }
        (table.collisions(), closest)
    };
    let (with, gap) = run(Some(Avoidance::default()));
    assert_eq!(with, 0);
    assert!(gap > 1.4, "{gap}");
    let (without, _) = run(None);
    assert!(without >= 1);
}

/// Regression (the 1024-robot K jammed from step ~800,000): two moving robots facing each
/// other within the yield distance each waited for the other for ever, and every robot
/// queued behind them with it. Of such a pair, started together, the lower index goes; the
/// other still waits.
#[test]
fn two_robots_facing_each_other_do_not_wait_for_each_other_for_ever() {
    let facing = at(&[(0.0, 0.0, 0.0), (1.4, 0.0, std::f64::consts::PI)]);
    let mut table = KilobotTable::new(exact(), &facing, 1).unwrap();
    // Robot 0 turns away (clockwise, 9 x 10 degrees) and drives off; robot 1 drives on.
    for step in 0..300 {
        let turn = if step < 9 { drive(1.0, 0.0) } else { drive(1.0, 1.0) };
        table.apply_all(&[turn, drive(1.0, 1.0)]).unwrap();
        table.step();
    }
    let (a, b) = (table.pose(0), table.pose(1));
    assert!(table.odometer(0) > 2.0, "the lower index goes: {a:?}");
    assert!(table.odometer(1) > 0.5, "and, once it is out of the way, so does the other: {b:?}");
    assert_eq!(table.collisions(), 0);
    // In a queue (not facing each other) the robot behind waits, lower index or not.
    let queue = at(&[(0.0, 0.0, 0.0), (1.4, 0.0, 0.0)]);
    let mut table = KilobotTable::new(exact(), &queue, 1).unwrap();
    table.apply_all(&[drive(1.0, 1.0), drive(1.0, 1.0)]).unwrap();
    table.step();
    assert_eq!(table.odometer(0), 0.0, "the robot behind yields");
    assert!(table.odometer(1) > 0.0, "the one ahead drives on");
}

/// Regression (the 1024-robot K jammed again, from about step 2,500,000): the queue's head
/// turned round at the tip of a narrow notch and met the robot that had followed it in;
/// the lower index (the follower's) went, drove for ever into the head, and the head waited.
/// Of two robots facing each other the one moving longer (ahead in the queue) goes.
#[test]
fn of_two_robots_facing_each_other_the_one_ahead_in_the_queue_goes() {
    let stop = KilobotCommand { message: vec![7], ..KilobotCommand::default() };
    // Robot 1 (the head) drives from the start; robot 0 (the follower) from step 20.
    let facing = at(&[(0.0, 0.0, 0.0), (1.4, 0.0, std::f64::consts::PI)]);
    let mut table = KilobotTable::new(exact(), &facing, 1).unwrap();
    let mut follower_while_head_in_front = None;
    for step in 0..300 {
        let follower = if step < 20 { stop.clone() } else { drive(1.0, 1.0) };
        // After its start the head turns away (clockwise, 9 x 10 degrees) and drives off.
        let head = if (20..29).contains(&step) { drive(1.0, 0.0) } else { drive(1.0, 1.0) };
        table.apply_all(&[follower, head]).unwrap();
        table.step();
        if step == 28 {
            follower_while_head_in_front = Some(table.odometer(0));
        }
    }
    assert_eq!(follower_while_head_in_front, Some(0.0), "the follower waits, though its index is lower");
    assert!(table.odometer(1) > 2.0, "the head goes: {:?}", table.pose(1));
    assert!(table.odometer(0) > 0.5, "and, once it is out of the way, so does the follower: {:?}", table.pose(0));
    assert_eq!(table.collisions(), 0);
}

#[test]
fn motors_fail_for_good_by_threshold_and_robots_keep_talking() {
    let poses = at(&[(0.0, 0.0, 0.0), (3.0, 0.0, 0.0)]);
    let config = TableConfig { failures: Some(Failures { interval: 10, threshold: 0.0 }), ..exact() };
    let mut table = KilobotTable::new(config, &poses, 2).unwrap();
    let mut sensors = Vec::new();
    for _ in 0..30 {
        table.apply_all(&[drive(1.0, 1.0), drive(1.0, 1.0)]).unwrap();
        table.step();
    }
    assert_eq!(table.failed_count(), 2);
    assert!((table.pose(0).x - 0.1).abs() < 1e-9, "moved 10 steps, then stopped: {:?}", table.pose(0));
    table.read_all(&mut sensors);
    assert_eq!(sensors[1].messages.len(), 1, "a failed robot still sends");
    let never = TableConfig { failures: Some(Failures { interval: 10, threshold: 1.0 }), ..exact() };
    let mut table = KilobotTable::new(never, &poses, 2).unwrap();
    (0..100).for_each(|_| table.step());
    assert_eq!(table.failed_count(), 0);
}

#[test]
fn ideal_channel_reaches_every_robot_in_range_with_bounded_error() {
    let config = TableConfig::default();
    let poses = at(&[(0.0, 0.0, 0.0), (2.0, 0.0, 0.0), (0.0, 4.8, 0.0), (5.0, 0.0, 0.0)]);
    let mut table = KilobotTable::new(config, &poses, 5).unwrap();
    let commands: Vec<KilobotCommand> = (0..4u8).map(|i| KilobotCommand { message: vec![i], ..KilobotCommand::default() }).collect();
    table.apply_all(&commands).unwrap();
    let mut sensors: Vec<KilobotSensors> = Vec::new();
    for _ in 0..50 {
        table.read_all(&mut sensors);
        let heard: Vec<u8> = sensors[0].messages.iter().map(|m| m.payload[0]).collect();
        assert_eq!(heard, vec![1, 2], "robot 3 is 5 units away, beyond 4.845");
        for m in &sensors[0].messages {
            let truth = if m.payload[0] == 1 { 2.0 } else { 4.8 };
            assert!((m.distance / WORLD_UNIT_M - truth).abs() <= 0.0615 + 1e-12);
        }
        table.step();
    }
    assert_eq!(sensors[0].ticks, 49);
}

#[test]
fn shared_channel_carries_240_packets_per_second_in_a_group_of_25() {
    let config = TableConfig { channel: ChannelConfig { range: 10.0, tx_rate: 1e3, ..ChannelConfig::default() }.shared(), ..exact() };
    let config = TableConfig { channel: ChannelConfig { tx_rate: 1e3, ..config.channel }, ..config };
    let poses: Vec<Pose> = (0..25).map(|i| Pose { x: (i % 5) as f64, y: (i / 5) as f64, theta: 0.0 }).collect();
    let mut table = KilobotTable::new(config, &poses, 9).unwrap();
    table.apply_all(&vec![KilobotCommand { message: vec![1; 5], ..KilobotCommand::default() }; 25]).unwrap();
    let mut sensors = Vec::new();
    let steps = 4000;
    for _ in 0..steps {
        table.read_all(&mut sensors);
        table.step();
    }
    let rate = table.transmissions() as f64 / (steps as f64 * 0.0325);
    assert!((rate - 240.0).abs() < 10.0, "{rate} packets/s");
    assert_eq!(table.deliveries(), table.transmissions() * 24);
}

#[test]
fn lost_messages_and_determinism() {
    let config =
        TableConfig { channel: ChannelConfig { loss: 0.3, ..ChannelConfig::default() }, speed_factor_std: 0.1, ..TableConfig::default() };
    let poses: Vec<Pose> = (0..30).map(|i| Pose { x: (i % 6) as f64 * 1.2, y: (i / 6) as f64 * 1.2, theta: i as f64 }).collect();
    let run = |seed| {
        let mut table = KilobotTable::new(config, &poses, seed).unwrap();
        let mut sensors = Vec::new();
        let commands: Vec<KilobotCommand> = (0..30).map(|i| drive(f64::from(i % 2), f64::from(i % 3 > 0))).collect();
        let mut heard = 0;
        for _ in 0..300 {
            table.read_all(&mut sensors);
            heard += sensors.iter().map(|s| s.messages.len()).sum::<usize>();
            table.apply_all(&commands).unwrap();
            table.step();
        }
        ((0..30).map(|i| table.pose(i)).collect::<Vec<_>>(), heard, table.deliveries(), table.transmissions())
    };
    let (a, b) = (run(4), run(4));
    assert_eq!(a.0, b.0);
    assert_eq!(a.1, b.1);
    assert_ne!(a.0, run(5).0);
    assert_eq!(a.1 as u64, a.2);
}

#[test]
fn bad_configuration_and_poses_are_named() {
    let bad = TableConfig { speed: 0.0, ..TableConfig::default() };
    assert!(KilobotTable::new(bad, &[], 1).err().unwrap().to_string().contains("speed = 0"));
    let walls = TableConfig { bounds: Some(Bounds { min: [0.0, 0.0], max: [10.0, 10.0] }), ..TableConfig::default() };
    let e = KilobotTable::new(walls, &at(&[(1.0, 1.0, 0.0), (11.0, 1.0, 0.0)]), 1).err().unwrap();
    assert!(e.to_string().contains("robot 1") && e.to_string().contains("outside"), "{e}");
    let mut table = KilobotTable::new(TableConfig::default(), &at(&[(1.0, 1.0, 0.0)]), 1).unwrap();
    assert!(table.apply_all(&[]).is_err());
    let long = KilobotCommand { message: vec![0; 10], ..KilobotCommand::default() };
    assert!(table.apply_all(&[long]).unwrap_err().to_string().contains("10 bytes"));
}

#[test]
fn readings_do_not_depend_on_the_order_of_reading() {
    let channel = ChannelConfig { loss: 0.2, ..ChannelConfig::default() }.shared();
    let config = TableConfig { channel, ..TableConfig::default() };
    let poses: Vec<Pose> = (0..40).map(|i| Pose { x: (i % 8) as f64 * 1.3, y: (i / 8) as f64 * 1.3, theta: 0.0 }).collect();
    let commands: Vec<KilobotCommand> =
        (0..40u8).map(|i| KilobotCommand { motor_left: f64::from(i % 2), message: vec![i], ..KilobotCommand::default() }).collect();
    let (mut a, mut b) = (KilobotTable::new(config, &poses, 3).unwrap(), KilobotTable::new(config, &poses, 3).unwrap());
    let (mut all, mut one) = (Vec::new(), KilobotSensors::default());
    let sorted = |s: &KilobotSensors| {
        let mut m: Vec<(u8, u64)> = s.messages.iter().map(|m| (m.payload[0], m.distance.to_bits())).collect();
        m.sort_unstable();
        m
    };
    let mut heard = 0;
    for _ in 0..50 {
        a.read_all(&mut all);
        a.apply_all(&commands).unwrap();
        // Backwards, each robot's command applied right after its reading.
        for i in (0..40).rev() {
            b.read(i, &mut one);
            assert_eq!(sorted(&one), sorted(&all[i]), "robot {i} at step {}", b.steps());
            assert_eq!((one.ticks, one.stamp), (all[i].ticks, all[i].stamp));
            heard += one.messages.len();
            b.apply(i, &commands[i]).unwrap();
        }
        a.step();
        b.step();
    }
    assert!(heard > 1000, "{heard} messages");
    assert_eq!((a.deliveries(), a.transmissions()), (b.deliveries(), b.transmissions()));
    assert_eq!(a.pose(1), b.pose(1));
}

#[test]
fn distance_errors_have_the_configured_spread() {
    let spread = |error: DistanceError| {
        let config = TableConfig { channel: ChannelConfig { distance_error: error, ..ChannelConfig::default() }, ..TableConfig::default() };
        let poses = at(&[(0.0, 0.0, 0.0), (2.0, 0.0, 0.0), (0.0, 3.0, 0.0)]);
        let mut table = KilobotTable::new(config, &poses, 11).unwrap();
        table.apply_all(&vec![KilobotCommand { message: vec![1], ..KilobotCommand::default() }; 3]).unwrap();
        let mut sensors = Vec::new();
        let mut errors = Vec::new();
        for _ in 0..4000 {
            table.read_all(&mut sensors);
            for (i, s) in sensors.iter().enumerate() {
                for m in &s.messages {
                    let truth = if i == 0 {
                        [2.0, 3.0]
                    } else if i == 1 {
                        [2.0, 13f64.sqrt()]
                    } else {
                        [3.0, 13f64.sqrt()]
                    };
                    let d = m.distance / WORLD_UNIT_M;
                    let e = if (d - truth[0]).abs() < (d - truth[1]).abs() { d - truth[0] } else { d - truth[1] };
                    errors.push(e);
                }
            }
            table.step();
        }
        let mean = errors.iter().sum::<f64>() / errors.len() as f64;
        let std = (errors.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / errors.len() as f64).sqrt();
        let max = errors.iter().fold(0.0f64, |m, e| m.max(e.abs()));
        (mean, std, max)
    };
    let (mean, std, max) = spread(DistanceError::Uniform { half_width: 0.06 });
    assert!(mean.abs() < 0.002 && (std - 0.06 / 3f64.sqrt()).abs() < 0.002 && max <= 0.06, "{mean} {std} {max}");
    let (mean, std, _) = spread(DistanceError::Gaussian { sigma: 0.02 });
    assert!(mean.abs() < 0.001 && (std - 0.02).abs() < 0.001, "{mean} {std}");
}

/// The study draws a new error at every call of `get_distance`, so edge-following, which
/// compares this step's distance to the nearest robot with the last step's, sees the
/// noise in the difference. Here a pair at rest is measured afresh every step: consecutive
/// errors are uncorrelated and their difference spreads sqrt(2) x the error's own.
#[test]
fn each_step_measures_a_pair_with_a_fresh_error() {
    let a = 0.0615;
    let config = TableConfig {
        channel: ChannelConfig { distance_error: DistanceError::Uniform { half_width: a }, ..ChannelConfig::default() },
        ..TableConfig::default()
    };
    let mut table = KilobotTable::new(config, &at(&[(0.0, 0.0, 0.0), (1.615, 0.0, 0.0)]), 3).unwrap();
    table.apply_all(&vec![KilobotCommand { message: vec![1], ..KilobotCommand::default() }; 2]).unwrap();
    let mut sensors = Vec::new();
    let mut errors = Vec::new();
    for _ in 0..4000 {
        table.read_all(&mut sensors);
        errors.push(sensors[0].messages[0].distance / WORLD_UNIT_M - 1.615);
        table.step();
    }
    let var = |v: &[f64]| {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / v.len() as f64
    };
    let diffs: Vec<f64> = errors.windows(2).map(|w| w[1] - w[0]).collect();
    let (own, diff) = (var(&errors), var(&diffs));
    assert!((own - a * a / 3.0).abs() < 0.05 * a * a / 3.0, "error variance {own}");
    assert!((diff / own - 2.0).abs() < 0.15, "difference variance {diff} = {} x the error's", diff / own);
}

/// A host may run each robot right after reading it: a robot read after another applied
/// its next message still hears the message that was on the air when the step began.
#[test]
fn a_robot_read_after_its_neighbour_applied_hears_the_step_s_message() {
    let mut table = KilobotTable::new(exact(), &at(&[(0.0, 0.0, 0.0), (2.0, 0.0, 0.0)]), 1).unwrap();
    let say = |byte: u8| KilobotCommand { message: vec![byte], ..KilobotCommand::default() };
    table.apply_all(&[say(1), say(2)]).unwrap();
    table.step();
    let mut reading = KilobotSensors::default();
    table.read(0, &mut reading);
    assert_eq!(reading.messages.iter().map(|m| m.payload[0]).collect::<Vec<_>>(), vec![2]);
    table.apply(0, &say(9)).unwrap();
    table.read(1, &mut reading);
    assert_eq!(reading.messages.iter().map(|m| m.payload[0]).collect::<Vec<_>>(), vec![1], "robot 0's next message is not on the air yet");
    table.step();
    table.read(1, &mut reading);
    assert_eq!(reading.messages.iter().map(|m| m.payload[0]).collect::<Vec<_>>(), vec![9]);
}

/// The channel's neighbour lists stay complete while robots drive through each other's
/// range for many list lifetimes: every reading holds exactly the robots in range, at
/// their exact distances.
#[test]
fn moving_robots_hear_exactly_the_robots_in_range() {
    let poses: Vec<Pose> = (0..60).map(|i| Pose { x: (i % 10) as f64 * 1.7, y: (i / 10) as f64 * 1.7, theta: i as f64 * 0.7 }).collect();
    let config = TableConfig { speed: 0.05, turn_angle: 0.05, ..exact() };
    let mut table = KilobotTable::new(config, &poses, 5).unwrap();
    let range = config.channel.range;
    let mut reading = KilobotSensors::default();
    for step in 0..400 {
        let commands: Vec<KilobotCommand> = (0..60)
            .map(|i| {
                let turn = (i + step / 40) % 3;
                let (l, r) = [(1.0, 1.0), (1.0, 0.0), (0.0, 1.0)][turn];
                KilobotCommand { motor_left: l, motor_right: r, message: vec![i as u8], ..KilobotCommand::default() }
            })
            .collect();
        hears_exactly_the_robots_in_range(&mut table, &mut reading, 60, range, step);
        table.apply_all(&commands).unwrap();
        table.step();
    }
    assert!(table.channel_list_rebuilds() > 5, "the lists were rebuilt as robots moved: {}", table.channel_list_rebuilds());
}

#[test]
fn a_swarm_mostly_at_rest_hears_exactly_the_robots_in_range() {
    // A few robots drive through a group at rest and push some of it: the in-range lists
    // kept from earlier steps must follow every robot that moved or was pushed, and only
    // those (a robot that drives past a still pair changes both of their lists).
    let poses: Vec<Pose> = (0..60).map(|i| Pose { x: (i % 10) as f64 * 1.2, y: (i / 10) as f64 * 1.2, theta: i as f64 * 0.7 }).collect();
    let config = TableConfig { speed: 0.05, turn_angle: 0.05, avoidance: None, push_share: 0.5, ..exact() };
    let mut table = KilobotTable::new(config, &poses, 5).unwrap();
    let range = config.channel.range;
    let mut reading = KilobotSensors::default();
    for step in 0..600 {
        let commands: Vec<KilobotCommand> = (0..60)
            .map(|i| {
                let drive = i % 7 == 3 && (step / 50) % 2 == 0;
                let (l, r) = if drive { [(1.0, 1.0), (1.0, 0.0)][(i + step / 25) % 2] } else { (0.0, 0.0) };
                KilobotCommand { motor_left: l, motor_right: r, message: vec![i as u8], ..KilobotCommand::default() }
            })
            .collect();
        hears_exactly_the_robots_in_range(&mut table, &mut reading, 60, range, step);
        table.apply_all(&commands).unwrap();
        table.step();
    }
    let pushed = (0..60).filter(|&i| i % 7 != 3 && table.pose(i) != poses[i]).count();
    assert!(pushed > 0, "the drivers pushed robots at rest");
    assert!(table.channel_list_rebuilds() > 1, "the lists were rebuilt: {}", table.channel_list_rebuilds());
}

/// Every robot of the first `robots` hears, after the first step, exactly the others
/// within `range` (world units), each at its exact distance (m), and nobody else.
fn hears_exactly_the_robots_in_range(table: &mut KilobotTable, reading: &mut KilobotSensors, robots: usize, range: f64, step: usize) {
    for i in 0..robots {
        table.read(i, reading);
        let mut heard: Vec<(u8, u64)> = reading.messages.iter().map(|m| (m.payload[0], m.distance.to_bits())).collect();
        heard.sort_unstable();
        let p = table.pose(i);
        let expected: Vec<(u8, u64)> = (0..robots)
            .filter(|&j| j != i && step > 0)
            .map(|j| (j, table.pose(j)))
            .filter(|(_, q)| (q.x - p.x).powi(2) + (q.y - p.y).powi(2) < range * range)
            .map(|(j, q)| (j as u8, ((q.x - p.x).powi(2) + (q.y - p.y).powi(2)).sqrt() * WORLD_UNIT_M))
            .map(|(j, d)| (j, d.to_bits()))
            .collect();
        assert_eq!(heard, expected, "robot {i} at step {step}");
    }
}

/// Regression: a speed factor spread of 1e308 (`--speed-std 1e308`) was accepted; robots
/// jumped to infinity and the experiment hung drawing them. A step longer than half a body
/// is refused, naming the product that is too long.
#[test]
fn a_step_longer_than_half_a_body_is_refused() {
    for config in [
        TableConfig { speed_factor_std: 1e308, ..TableConfig::default() },
        TableConfig { speed_factor_std: 10.0, ..TableConfig::default() },
        TableConfig { speed: 1.0, ..TableConfig::default() },
        TableConfig { turn_drift: 100.0, ..TableConfig::default() },
    ] {
        let e = config.validate().unwrap_err().to_string();
        assert!(e.starts_with("kilobot table: step_length = ") && e.contains("must be at most 0.5"), "{e}");
    }
    assert_eq!(TableConfig { speed_factor_std: 3.0, ..TableConfig::default() }.validate(), Ok(()));
}

/// Regression: `--turn-angle 1e308` was refused with the 309 digits of its radians.
#[test]
fn numbers_in_table_errors_are_compact() {
    let e = TableConfig { turn_angle: 1e308_f64.to_radians(), ..TableConfig::default() }.validate().unwrap_err().to_string();
    assert!(e.starts_with("kilobot table: turn_angle = 1.7453292519943295e306 must be in [0, pi] rad"), "{e}");
    let e = TableConfig { push_share: 2.0, ..TableConfig::default() }.validate().unwrap_err().to_string();
    assert!(e.starts_with("kilobot table: push_share = 2 must be in [0, 1]"), "{e}");
}
