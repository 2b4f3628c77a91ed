//! The Kilobot table node through ROS: a controller's command batch makes a robot drive
//! and talk, its neighbours hear it with a distance in the next sensor batch, `/tank/state`
//! shows it moving; a malformed batch and a command for a robot that does not exist are
//! refused while the node keeps serving; Ctrl-C exits 0; bad parameters exit 2.
//!
//! The self-assembly scenario (`launch/kilobot_self_assembly.launch.yaml`): the swarm
//! host places the robots, they wait for the overhead controller's RUN, move and join the
//! shape, stop on PAUSE; bad launch arguments (scale 0, a missing or grey image) stop the
//! swarm host with the reason and exit 2 (the launch fails); Ctrl-C exits 0.

use std::process::Command;
use std::time::Duration;

use flotilla_common::ros_contract::RosBatch;
use flotilla_contract::kilobot::{Kilobot, KilobotCommand};
use flotilla_e2e::{bin, temp_file, Launch, RosProbe};
use r2r::flotilla_msgs::msg::{KilobotCommandBatch, KilobotOverhead, KilobotSensorsBatch, TankState};
use r2r::visualization_msgs::msg::MarkerArray;
use r2r::QosProfile;

const TABLE: &str = "kilobot_table:\n  ros__parameters:\n    seed: 5\n    robots: {count: 7, spacing: 1.5}\n    run: {real_time_factor: 4.0}\n    publish: {sensor_rate: 10.0}\n";

/// Robot `name`'s x in the state, m.
fn x_of(state: &TankState, name: &str) -> Option<f64> {
    state.modules.iter().find(|m| m.name == name).map(|m| m.pose.position.x)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_drive_and_hear_each_other_through_the_batches() {
    let (_dir, params) = temp_file("table.yaml", TABLE).unwrap();
    let mut probe = RosProbe::new("probe_kilobot").unwrap();
    let commands = probe.with_node(|n| n.create_publisher::<KilobotCommandBatch>("/kilobot/cmd", QosProfile::default())).unwrap();
    let mut sensors = probe.subscribe::<KilobotSensorsBatch>("/kilobot/sensors").unwrap();
    let mut states = probe.subscribe::<TankState>("/tank/state").unwrap();
    probe.spin();
    let mut cmd = Command::new(bin("kilobot_table"));
    cmd.args(["--ros-args", "--params-file"]).arg(&params);
    let table = Launch::spawn(cmd, &probe.domain).unwrap();
    let first = flotilla_e2e::collect_until(&mut states, Duration::from_secs(20), |s: &[TankState]| !s.is_empty()).await;
    let start = first.first().and_then(|s| x_of(s, "kb_0")).unwrap_or_else(|| panic!("no state with kb_0:\n{}", table.output()));
    assert_eq!(first[0].modules.len(), 7);
    assert!(first[0].modules.iter().all(|m| m.kind == "kilobot"));

    // kb_0 drives straight ahead (+y) and says 42; the others stay silent.
    let talk = KilobotCommand { motor_left: 1.0, motor_right: 1.0, led: [0.0, 0.0, 1.0], message: vec![42] };
    let silent = KilobotCommand::default();
    let batch: Vec<(&str, &KilobotCommand)> = vec![("kb_0", &talk), ("kb_1", &silent)];
    let heard = |b: &KilobotSensorsBatch| {
        let (_, readings) = Kilobot::sensors_from_batch(b.clone()).unwrap();
        readings.iter().any(|(name, r)| name == "kb_1" && r.messages.iter().any(|m| m.payload[0] == 42 && m.distance > 0.0))
    };
    let mut got = Vec::new();
    for _ in 0..50 {
        commands.publish(&Kilobot::command_batch(0.0, &batch)).unwrap();
        got = flotilla_e2e::collect_until(&mut sensors, Duration::from_millis(200), |b: &[KilobotSensorsBatch]| b.iter().any(heard)).await;
        if got.iter().any(heard) {
            break;
        }
    }
    assert!(got.iter().any(heard), "kb_1 never heard kb_0:\n{}", table.output());
    let moved = flotilla_e2e::collect_until(&mut states, Duration::from_secs(20), |s: &[TankState]| {
        s.last().and_then(|s| s.modules.iter().find(|m| m.name == "kb_0")).is_some_and(|m| {
            let p = &m.pose.position;
            (p.y - first[0].modules[0].pose.position.y).abs() > 0.003 || (p.x - start).abs() > 0.003
        })
    })
    .await;
    assert!(!moved.is_empty() && moved.len() < 600, "kb_0 did not move:\n{}", table.output());

    // A batch whose arrays do not add up, and a robot that does not exist: refused, named.
    let mut broken = Kilobot::command_batch(0.0, &batch);
    broken.motor_right.pop();
    commands.publish(&broken).unwrap();
    commands.publish(&Kilobot::command_batch(0.0, &[("ghost", &talk)])).unwrap();
    let told = |out: &str| out.contains("`motor_right` has 1 entries, expected 2") && out.contains("ghost");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !told(&table.output()) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(told(&table.output()), "{}", table.output());
    let still = flotilla_e2e::collect_until(&mut states, Duration::from_secs(10), |s: &[TankState]| s.len() >= 3).await;
    assert!(still.len() >= 3, "the table stopped publishing:\n{}", table.output());

    let (status, output) = table.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
    assert!(output.contains("summary: stopped on request") && output.contains("1 refused commands"), "{output}");
}

#[test]
fn kilobot_table_refuses_bad_parameters_naming_the_key() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let node = |body: &str| format!("kilobot_table:\n  ros__parameters:\n{body}");
    let cases = [
        node("    robots: {count: 0}\n"),
        node("    table: {channel: {loss: 1.5}}\n"),
        node("    table: {bounds: {min: [0.0, 0.0], max: [4.0, 4.0]}}\n    robots: {poses: [9.0, 1.0, 0.0]}\n"),
        node("    publish: {sensor_rate: -1.0}\n"),
        node("    tabel: {}\n"),
    ];
    let keys = ["robots.count", "channel.loss", "outside the table", "publish.sensor_rate", "tabel"];
    let cases: Vec<(&str, &str, &str)> = cases.iter().zip(keys).map(|(text, key)| ("kilobot_table", text.as_str(), key)).collect();
    flotilla_e2e::assert_bad_parameters_refused(&domain, &cases);
}

/// Every robot's (x, y) in the state, m, by name order of the state.
fn positions(state: &TankState) -> Vec<(f64, f64)> {
    state.modules.iter().map(|m| (m.pose.position.x, m.pose.position.y)).collect()
}

/// Robots (not seeds: white) whose LED in the table's markers shows `colour`.
fn showing(markers: &MarkerArray, colour: [f32; 3]) -> usize {
    markers
        .markers
        .iter()
        .filter(|m| m.ns == "kilobots")
        .flat_map(|m| &m.colors)
        .filter(|c| (c.r - colour[0]).abs() < 0.01 && (c.g - colour[1]).abs() < 0.01 && (c.b - colour[2]).abs() < 0.01)
        .count()
}

/// Publishes `command` on /kilobot/overhead every 200 ms until `done` sees it took effect
/// in the collected states (the first publication may precede discovery).
async fn overhead_until(
    publisher: &r2r::Publisher<KilobotOverhead>,
    command: u8,
    states: &mut (impl futures::Stream<Item = TankState> + Unpin),
    timeout: Duration,
    done: impl Fn(&[TankState]) -> bool,
) -> Vec<TankState> {
    let deadline = std::time::Instant::now() + timeout;
    let mut seen: Vec<TankState> = Vec::new();
    while std::time::Instant::now() < deadline {
        publisher.publish(&KilobotOverhead { command, ..Default::default() }).unwrap();
        seen.extend(flotilla_e2e::collect_until(states, Duration::from_millis(200), |s: &[TankState]| done(s)).await);
        if done(&seen) {
            break;
        }
        // Keep the last few only: the condition looks at recent states.
        let keep = seen.len().saturating_sub(200);
        seen.drain(..keep);
    }
    seen
}

/// Whether two states at least `dt` s of sim time apart show every robot in place.
fn still_for(states: &[TankState], dt: f64) -> bool {
    let Some(last) = states.last() else { return false };
    states
        .iter()
        .rev()
        .find(|s| last.sim_time - s.sim_time >= dt)
        .is_some_and(|s| positions(s).iter().zip(positions(last)).all(|(a, b)| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn self_assembly_scenario_waits_for_run_assembles_and_pauses() {
    let mut probe = RosProbe::new("probe_kilobot_scenario").unwrap();
    let overhead = probe.with_node(|n| n.create_publisher::<KilobotOverhead>("/kilobot/overhead", QosProfile::default())).unwrap();
    let mut states = probe.subscribe::<TankState>("/tank/state").unwrap();
    let mut markers = probe.subscribe_latched::<MarkerArray>("/tank/markers").unwrap();
    let mut shape = probe.subscribe_latched::<MarkerArray>("/kilobot/markers").unwrap();
    probe.spin();
    // 8 robots + 4 seeds on the 5 x 10 rectangle; real time x 8 so the sim time of the
    // conditions below passes in seconds.
    let args = ["robots:=8", "seed:=2", "wait_for_run:=true", "real_time_factor:=8.0"];
    let launch = Launch::start("launch/kilobot_self_assembly.launch.yaml", &args, &probe.domain).unwrap();
    // Placed and idle: every robot stays where it was put for 2 s of sim time.
    let idle = flotilla_e2e::collect_until(&mut states, Duration::from_secs(60), |s: &[TankState]| still_for(s, 2.0)).await;
    assert!(still_for(&idle, 2.0), "robots did not stand still waiting for RUN:\n{}", launch.output());
    assert_eq!(idle[0].modules.len(), 12);
    let start = positions(&idle[0]);
    let drawn = flotilla_e2e::collect_until(&mut shape, Duration::from_secs(20), |m: &[MarkerArray]| !m.is_empty()).await;
    let outline = drawn.first().and_then(|m| m.markers.iter().find(|m| m.ns == "shape"));
    // The 10 x 5 diameter rectangle at 0.05 diameters per pixel is 200 x 100 pixels: its
    // outline is 2 x (200 + 100) pixel edges, two points each.
    assert!(outline.is_some_and(|o| o.points.len() == 2 * 2 * (200 + 100)), "no shape outline on /kilobot/markers:\n{}", launch.output());

    // RUN: robots leave the pack (first after STARTUP_TIME, 500 ticks = 16 s).
    let moved =
        |s: &[TankState]| s.last().is_some_and(|s| positions(s).iter().zip(&start).any(|(a, b)| (a.0 - b.0).hypot(a.1 - b.1) > 0.01));
    let running = overhead_until(&overhead, KilobotOverhead::RUN as u8, &mut states, Duration::from_secs(120), moved).await;
    assert!(moved(&running), "no robot moved after RUN:\n{}", launch.output());
    // ... and join the shape: a robot's LED turns green (the program's joined colour).
    let joined = flotilla_e2e::collect_until(&mut markers, Duration::from_secs(240), |m: &[MarkerArray]| {
        m.last().is_some_and(|m| showing(m, [0.0, 1.0, 0.0]) >= 1)
    })
    .await;
    assert!(joined.last().is_some_and(|m| showing(m, [0.0, 1.0, 0.0]) >= 1), "no robot joined the shape:\n{}", launch.output());

    // PAUSE: every robot stops (motors off) and stays still.
    let paused = overhead_until(&overhead, KilobotOverhead::PAUSE as u8, &mut states, Duration::from_secs(60), |s| still_for(s, 2.0)).await;
    assert!(still_for(&paused, 2.0), "robots kept moving after PAUSE:\n{}", launch.output());

    let (status, output) = launch.interrupt(Duration::from_secs(30)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
    assert!(output.contains("joined") && output.contains("summary: stopped on request"), "{output}");
}

#[test]
fn self_assembly_launch_refuses_bad_arguments_with_the_reason() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let grey = dir.path().join("grey.png");
    image::GrayImage::from_fn(8, 8, |x, _| image::Luma([if x < 4 { 0 } else { 128 }])).save(&grey).unwrap();
    let missing = dir.path().join("missing.png");
    let cases = [
        ("scale:=0".to_owned(), "shape.scale"),
        (format!("shape:={}", missing.display()), "missing.png"),
        (format!("shape:={}", grey.display()), "not black or white"),
    ];
    for (arg, says) in &cases {
        // The swarm host alone: exit 2 (bad configuration), the parameter named.
        let mut node = Command::new(bin("kilobot_swarm"));
        let default_image = flotilla_e2e::repo_root().join("config/shapes/rectangle_10x5.png").display().to_string();
        let image = arg.strip_prefix("shape:=").map_or(default_image, str::to_owned);
        let scale = if arg == "scale:=0" { "0.0" } else { "0.05" };
        node.args(["--ros-args", "-p", &format!("shape.image:={image}"), "-p", &format!("shape.scale:={scale}")]);
        let (status, output) = Launch::spawn(node, &domain).unwrap().wait(Duration::from_secs(20)).unwrap();
        assert_eq!(status.code(), Some(2), "kilobot_swarm {arg}: {output}");
        assert!(output.contains(says), "kilobot_swarm {arg}: does not say `{says}`:\n{output}");
        // Through the launch file: the swarm host's exit ends the launch, which fails.
        let launch = Launch::start("launch/kilobot_self_assembly.launch.yaml", &[arg.as_str()], &domain).unwrap();
        let (status, output) = launch.wait(Duration::from_secs(60)).unwrap();
        assert!(!status.success(), "flotilla launch {arg} succeeded:\n{output}");
        assert!(output.contains(says), "flotilla launch {arg}: does not say `{says}`:\n{output}");
    }
}

/// Regression: the swarm host handed a sensor batch with a NaN distance to the firmware,
/// and one NaN distance left a localised robot's position NaN for good. The batch is
/// dropped, named and counted; the host keeps serving and Ctrl-C exits 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_swarm_host_drops_a_sensor_batch_with_a_non_finite_number() {
    let mut probe = RosProbe::new("probe_kilobot_nan").unwrap();
    let sensors = probe.with_node(|n| n.create_publisher::<KilobotSensorsBatch>("/kilobot/sensors", QosProfile::default())).unwrap();
    probe.spin();
    let mut swarm = Command::new(bin("kilobot_swarm"));
    let image = flotilla_e2e::repo_root().join("config/shapes/rectangle_10x5.png");
    swarm.args(["--ros-args", "-p", &format!("shape.image:={}", image.display()), "-p", "robots:=2"]);
    let swarm = Launch::spawn(swarm, &probe.domain).unwrap();
    // A seed's reading (the swarm's first names) with one message whose distance is NaN.
    let batch = KilobotSensorsBatch {
        robots: vec!["kb_0".into()],
        ticks: vec![10],
        light: vec![0.5],
        message_counts: vec![1],
        payloads: vec![1; 9],
        distances: vec![f64::NAN],
        ..Default::default()
    };
    let told = |out: &str| out.contains("sensor batch dropped: distances[0] = NaN is not finite");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !told(&swarm.output()) && std::time::Instant::now() < deadline {
        sensors.publish(&batch).unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(told(&swarm.output()), "{}", swarm.output());
    let (status, output) = tokio::task::block_in_place(|| swarm.interrupt(Duration::from_secs(10))).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
    assert!(output.contains("0 sensor batches answered") && !output.contains(" 0 refused"), "{output}");
}
