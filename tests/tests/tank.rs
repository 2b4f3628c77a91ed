//! The tank physics node through ROS: spawn, pause/step, latch and unlatch through the
//! robots' `cmd` topics (seen in `/tank/state` and in `sensors`), set pumps, reset, remove,
//! and the refusals that must not stop the node.

use std::time::Duration;

use flotilla_e2e::{answered, temp_file, Launch, RosProbe};
use futures::StreamExt;
use r2r::flotilla_msgs::msg::{LilyCommand, LilySensors, TankState};
use r2r::flotilla_msgs::srv::{RemoveModule, ResetWorld, SetPumps, SpawnModule, StepWorld};
use r2r::geometry_msgs::msg::{Point, Pose};
use r2r::std_srvs::srv::SetBool;
use r2r::QosProfile;

const EMPTY_TANK: &str =
    "tank_physics:\n  ros__parameters:\n    seed: 3\n    arena: {kind: round_tank, water_level: -0.08}\n    pumps: {power: [0.0]}\n";

fn at(x: f64, y: f64) -> Pose {
    Pose { position: Point { x, y, z: 0.0 }, ..Default::default() }
}

fn latched(state: &TankState, module: &str, face: u8) -> Option<String> {
    let m = state.modules.iter().find(|m| m.name == module)?;
    let l = m.latches.iter().find(|l| l.face == face)?;
    l.latched.then(|| l.partner.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spawn_latch_unlatch_pumps_reset_through_ros() {
    let (_dir, scenario) = temp_file("empty.yaml", EMPTY_TANK).unwrap();
    let mut probe = RosProbe::new("probe_tank").unwrap();
    let qos = QosProfile::default;
    let spawn = probe.with_node(|n| n.create_client::<SpawnModule::Service>("/tank/spawn", qos())).unwrap();
    let remove = probe.with_node(|n| n.create_client::<RemoveModule::Service>("/tank/remove", qos())).unwrap();
    let reset = probe.with_node(|n| n.create_client::<ResetWorld::Service>("/tank/reset", qos())).unwrap();
    let pumps = probe.with_node(|n| n.create_client::<SetPumps::Service>("/tank/set_pumps", qos())).unwrap();
    let pause = probe.with_node(|n| n.create_client::<SetBool::Service>("/tank/pause", qos())).unwrap();
    let step = probe.with_node(|n| n.create_client::<StepWorld::Service>("/tank/step", qos())).unwrap();
    let cmd_a = probe.with_node(|n| n.create_publisher::<LilyCommand>("/lily_a/cmd", qos())).unwrap();
    let cmd_b = probe.with_node(|n| n.create_publisher::<LilyCommand>("/lily_b/cmd", qos())).unwrap();
    let mut state = probe.subscribe::<TankState>("/tank/state").unwrap();
    let mut sensors_a = probe.subscribe::<LilySensors>("/lily_a/sensors").unwrap();
    let mut description = probe.subscribe_latched::<r2r::std_msgs::msg::String>("/lily_a/robot_description").unwrap();
    // Every service this test calls: a request sent before its server is matched is lost.
    let ready = probe
        .with_node(|_| -> r2r::Result<_> {
            use r2r::Node;
            let services = (Node::is_available(&spawn)?, Node::is_available(&remove)?, Node::is_available(&reset)?);
            let more = (Node::is_available(&pumps)?, Node::is_available(&pause)?, Node::is_available(&step)?);
            Ok(async move { futures::try_join!(services.0, services.1, services.2, more.0, more.1, more.2) })
        })
        .unwrap();
    probe.spin();
    let arg = format!("scenario_file:={}", scenario.display());
    let launch = Launch::start("launch/tank.launch.yaml", &[&arg], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(30), ready).await.expect("services did not appear").unwrap();

    let ok = |success: bool, message: &str, what: &str| assert!(success, "{what}: {message}");
    let r = answered(pause.request(&SetBool::Request { data: true }).unwrap(), "pause.request").await;
    ok(r.success, &r.message, "pause");
    // Step refuses while running is covered by the pause above; stepping a paused world works.
    let r = answered(step.request(&StepWorld::Request { steps: 2 }).unwrap(), "step.request").await;
    ok(r.success, &r.message, "step");
    assert!(r.sim_time > 0.0);

    // Two Lilies face to face (face 0 of a toward face 2 of b), 1 mm apart.
    for (name, x) in [("lily_a", -0.0155), ("lily_b", 0.0155)] {
        let r = answered(
            spawn.request(&SpawnModule::Request { kind: "lily".into(), name: name.into(), pose: at(x, 0.0) }).unwrap(),
            "spawn.request",
        )
        .await;
        ok(r.success, &r.message, name);
        assert_eq!(r.name, name);
    }
    // The module's URDF is there for robot_state_publisher.
    let urdf = tokio::time::timeout(Duration::from_secs(10), description.next()).await.ok().flatten().expect("no robot_description");
    assert!(urdf.data.contains("<robot") && urdf.data.contains("latch_0"), "{}", &urdf.data[..urdf.data.len().min(200)]);

    // Refusals name the problem; the node keeps serving.
    let r = answered(
        spawn.request(&SpawnModule::Request { kind: "frog".into(), name: "".into(), pose: at(0.1, 0.1) }).unwrap(),
        "spawn.request",
    )
    .await;
    assert!(!r.success && r.message.contains("frog") && r.message.contains("lily"), "{}", r.message);
    let r = answered(
        spawn.request(&SpawnModule::Request { kind: "lily".into(), name: "lily_c".into(), pose: at(0.0, 0.0) }).unwrap(),
        "spawn.request",
    )
    .await;
    assert!(!r.success && r.message.contains("overlap"), "{}", r.message);
    let r = answered(remove.request(&RemoveModule::Request { name: "nobody".into() }).unwrap(), "remove.request").await;
    assert!(!r.success && r.message.contains("nobody"), "{}", r.message);

    // Latch on both faces through the robots' cmd topics.
    let latch = |faces: [bool; 4]| LilyCommand { latch: faces.to_vec(), ..Default::default() };
    let mut joined = false;
    for _ in 0..100 {
        cmd_a.publish(&latch([true, false, false, false])).unwrap();
        cmd_b.publish(&latch([false, false, true, false])).unwrap();
        answered(step.request(&StepWorld::Request { steps: 2 }).unwrap(), "step.request").await;
        let s = tokio::time::timeout(Duration::from_secs(2), state.next()).await.ok().flatten();
        if s.as_ref().and_then(|s| latched(s, "lily_a", 0)).as_deref() == Some("lily_b") {
            joined = true;
            break;
        }
    }
    assert!(joined, "the Lilies did not latch through their cmd topics");
    let mut saw_latched_sensor = false;
    for _ in 0..40 {
        answered(step.request(&StepWorld::Request { steps: 4 }).unwrap(), "step.request").await;
        if let Ok(Some(s)) = tokio::time::timeout(Duration::from_millis(500), sensors_a.next()).await {
            if s.latched.first() == Some(&true) {
                saw_latched_sensor = true;
                break;
            }
        }
    }
    assert!(saw_latched_sensor, "lily_a/sensors never reported face 0 latched");

    // Unlatch.
    let mut released = false;
    for _ in 0..100 {
        cmd_a.publish(&latch([false; 4])).unwrap();
        answered(step.request(&StepWorld::Request { steps: 2 }).unwrap(), "step.request").await;
        let s = tokio::time::timeout(Duration::from_secs(2), state.next()).await.ok().flatten();
        if s.is_some_and(|s| s.modules.len() == 2 && latched(&s, "lily_a", 0).is_none()) {
            released = true;
            break;
        }
    }
    assert!(released, "commanding the latch off did not release it");

    // Pumps: valid, out of range, wrong count.
    let r = answered(pumps.request(&SetPumps::Request { power: vec![50.0] }).unwrap(), "pumps.request").await;
    ok(r.success, &r.message, "set pumps");
    let r = answered(pumps.request(&SetPumps::Request { power: vec![150.0] }).unwrap(), "pumps.request").await;
    assert!(!r.success && r.message.contains("150"), "{}", r.message);
    let r = answered(pumps.request(&SetPumps::Request { power: vec![1.0, 2.0, 3.0] }).unwrap(), "pumps.request").await;
    assert!(!r.success && r.message.contains('3'), "{}", r.message);
    // Messages published before the change may still be queued: look for the new power.
    let mut seen = Vec::new();
    for _ in 0..50 {
        answered(step.request(&StepWorld::Request { steps: 1 }).unwrap(), "step.request").await;
        if let Ok(Some(s)) = tokio::time::timeout(Duration::from_secs(2), state.next()).await {
            seen = s.pump_power;
            if seen.iter().all(|p| (*p - 50.0).abs() < 1e-9) {
                break;
            }
        }
    }
    assert!(!seen.is_empty() && seen.iter().all(|p| (*p - 50.0).abs() < 1e-9), "pump power in /tank/state: {seen:?}");

    // Remove one, then reset: back to the scenario (no modules) at t = 0.
    let r = answered(remove.request(&RemoveModule::Request { name: "lily_b".into() }).unwrap(), "remove.request").await;
    ok(r.success, &r.message, "remove");
    let r = answered(reset.request(&ResetWorld::Request { use_seed: true, seed: 9 }).unwrap(), "reset.request").await;
    ok(r.success, &r.message, "reset");
    let s = loop {
        answered(step.request(&StepWorld::Request { steps: 1 }).unwrap(), "step.request").await;
        if let Ok(Some(s)) = tokio::time::timeout(Duration::from_secs(2), state.next()).await {
            if s.sim_time < 0.2 {
                break s;
            }
        }
    };
    assert!(s.modules.is_empty(), "reset kept {} modules", s.modules.len());

    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
}
