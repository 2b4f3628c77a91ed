//! The Kilobot table node through ROS: a controller's command batch makes a robot drive
//! and talk, its neighbours hear it with a distance in the next sensor batch, `/tank/state`
//! shows it moving; a malformed batch and a command for a robot that does not exist are
//! refused while the node keeps serving; Ctrl-C exits 0; bad parameters exit 2.

use std::process::Command;
use std::time::Duration;

use flotilla_common::ros_contract::RosBatch;
use flotilla_contract::kilobot::{Kilobot, KilobotCommand};
use flotilla_e2e::{bin, temp_file, Launch, RosProbe};
use r2r::flotilla_msgs::msg::{KilobotCommandBatch, KilobotSensorsBatch, TankState};
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
