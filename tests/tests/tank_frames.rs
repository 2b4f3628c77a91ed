//! What rviz's RobotModel needs of every module, through ROS: the tank with 15 Lilies
//! (`launch/lily_15.launch.yaml`), a MoleMOD robot and a Bluebot spawned through
//! `/tank/spawn`; every module's `/<name>/robot_description` delivers a URDF that parses,
//! and every link of it chains through `/tf_static` + `/tf` to `world`, landing where the
//! URDF puts it on the module's pose. `/tf_static` (one latched message with every module's
//! fixed joints) follows spawn, remove and reset, and a subscriber that comes late gets it.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use flotilla_common::models::{prefixed_frame, FrameTree};
use flotilla_e2e::{Launch, RosProbe};
use futures::{Stream, StreamExt};
use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion};
use r2r::flotilla_msgs::srv::{RemoveModule, ResetWorld, SpawnModule};
use r2r::geometry_msgs::msg::{Point, Pose, Quaternion as QuaternionMsg, Transform};
use r2r::tf2_msgs::msg::TFMessage;
use r2r::QosProfile;

const TIMEOUT: Duration = Duration::from_secs(40);

fn iso(t: &Transform) -> Isometry3<f64> {
    let q = UnitQuaternion::from_quaternion(Quaternion::new(t.rotation.w, t.rotation.x, t.rotation.y, t.rotation.z));
    Isometry3::from_parts(Translation3::new(t.translation.x, t.translation.y, t.translation.z), q)
}

/// Parent frame and transform of every child frame in `msg`.
fn edges(msg: &TFMessage) -> HashMap<String, (String, Isometry3<f64>)> {
    msg.transforms.iter().map(|t| (t.child_frame_id.clone(), (t.header.frame_id.clone(), iso(&t.transform)))).collect()
}

/// The frames of module `name` among the children of `msg`.
fn frames_of(msg: &TFMessage, name: &str) -> usize {
    msg.transforms.iter().filter(|t| t.child_frame_id.starts_with(&format!("{name}/"))).count()
}

/// The next message of `stream` that satisfies `wanted`, within [`TIMEOUT`].
async fn next_where<T>(stream: &mut (impl Stream<Item = T> + Unpin), what: &str, mut wanted: impl FnMut(&T) -> bool) -> T {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(msg)) if wanted(&msg) => return msg,
            Ok(Some(_)) => {}
            _ => panic!("no {what} within {TIMEOUT:?}"),
        }
    }
}

/// Walks from `frame` up to `world` through `edges`: the frame's pose in `world`, or the
/// frame where the chain breaks.
fn pose_in_world(frame: &str, edges: &HashMap<String, (String, Isometry3<f64>)>) -> Result<Isometry3<f64>, String> {
    let mut pose = Isometry3::identity();
    let mut current = frame.to_owned();
    for _ in 0..32 {
        if current == "world" {
            return Ok(pose);
        }
        let (parent, step) = edges.get(&current).ok_or_else(|| format!("{frame}: no transform to `{current}`'s parent"))?;
        pose = step * pose;
        current = parent.clone();
    }
    Err(format!("{frame}: no `world` within 32 frames"))
}

fn at(x: f64, y: f64, yaw: f64) -> Pose {
    let half = 0.5 * yaw;
    Pose { position: Point { x, y, z: 0.0 }, orientation: QuaternionMsg { x: 0.0, y: 0.0, z: half.sin(), w: half.cos() } }
}

/// Spawns a `kind` named `name` at the first of a few places where it fits (the 15 Lilies
/// lie at random).
async fn spawn_where_free(spawn: &r2r::Client<SpawnModule::Service>, kind: &str, name: &str) {
    const SPOTS: [(f64, f64); 9] =
        [(0.0, 0.0), (0.12, 0.1), (-0.12, -0.1), (0.15, -0.12), (-0.15, 0.12), (0.0, 0.18), (0.0, -0.18), (0.18, 0.0), (-0.18, 0.0)];
    let mut refusals = Vec::new();
    for (x, y) in SPOTS {
        let r = spawn.request(&SpawnModule::Request { kind: kind.into(), name: name.into(), pose: at(x, y, 0.3) }).unwrap().await.unwrap();
        if r.success {
            assert_eq!(r.name, name);
            return;
        }
        refusals.push(r.message);
    }
    panic!("the tank did not take a {kind}: {refusals:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_link_of_every_module_chains_to_world() {
    let mut probe = RosProbe::new("probe_tank_frames").unwrap();
    let qos = QosProfile::default;
    let spawn = probe.with_node(|n| n.create_client::<SpawnModule::Service>("/tank/spawn", qos())).unwrap();
    let remove = probe.with_node(|n| n.create_client::<RemoveModule::Service>("/tank/remove", qos())).unwrap();
    let reset = probe.with_node(|n| n.create_client::<ResetWorld::Service>("/tank/reset", qos())).unwrap();
    let mut tf = probe.subscribe::<TFMessage>("/tf").unwrap();
    let mut tf_static = probe.subscribe_latched::<TFMessage>("/tf_static").unwrap();
    // Every service this test calls: a request sent before its server is matched is lost.
    let ready = probe
        .with_node(|_| -> r2r::Result<_> {
            use r2r::Node;
            Ok(futures::future::try_join3(Node::is_available(&spawn)?, Node::is_available(&remove)?, Node::is_available(&reset)?))
        })
        .unwrap();
    probe.spin();
    let launch = Launch::start("launch/lily_15.launch.yaml", &["controllers:=false", "camera:=false"], &probe.domain).unwrap();
    tokio::time::timeout(TIMEOUT, ready).await.expect("/tank/spawn, /tank/remove or /tank/reset did not appear").unwrap();

    // The 15 Lilies' fixed frames: four latches and the light sensor each.
    let lily = FrameTree::of_kind(flotilla_common::catalogue::ModuleKind::Lily).unwrap();
    let scenario_static = 15 * lily.fixed.len();
    next_where(&mut tf_static, "/tf_static with the 15 Lilies", |m: &TFMessage| m.transforms.len() == scenario_static).await;

    // A MoleMOD robot and a Bluebot through /tank/spawn, each where there is room.
    for (kind, name) in [("molemod_robot", "mole"), ("bluebot", "fish")] {
        spawn_where_free(&spawn, kind, name).await;
    }
    let fish_fixed = FrameTree::of_kind(flotilla_common::catalogue::ModuleKind::Bluebot).unwrap().fixed.len();
    let fixed = next_where(&mut tf_static, "/tf_static with the Bluebot", |m: &TFMessage| frames_of(m, "fish") == fish_fixed).await;
    assert_eq!(fixed.transforms.len(), scenario_static + fish_fixed);

    // Every module's description parses; every link reaches `world` where the URDF says.
    let mut names: Vec<String> = (0..15).map(|i| format!("lily_{i}")).collect();
    names.extend(["mole".to_owned(), "fish".to_owned()]);
    let mut trees = HashMap::new();
    for name in &names {
        let topic = format!("/{name}/robot_description");
        let mut sub = probe.subscribe_latched::<r2r::std_msgs::msg::String>(&topic).unwrap();
        let urdf = tokio::time::timeout(TIMEOUT, sub.next()).await.ok().flatten().unwrap_or_else(|| panic!("nothing on {topic}"));
        let tree = FrameTree::from_urdf(&urdf.data, Path::new(&topic)).unwrap_or_else(|e| panic!("{topic}: {e}"));
        trees.insert(name.clone(), tree);
    }
    let moving_count = trees["mole"].moving.len() + trees["fish"].moving.len();
    assert_eq!(moving_count, 8 + 4, "the MoleMOD robot's 8 and the Bluebot's 4 movable joints (URDF form)");
    let tf_msg = next_where(&mut tf, "/tf with both spawned modules", |m: &TFMessage| {
        m.transforms.iter().any(|t| t.child_frame_id == "fish/base_link")
            && m.transforms.iter().any(|t| t.child_frame_id == "mole/base_link")
    })
    .await;
    let (dynamic, fixed) = (edges(&tf_msg), edges(&fixed));
    for (child, (parent, _)) in &dynamic {
        assert!(!fixed.contains_key(child), "{child} (parent {parent}) is on both /tf and /tf_static");
    }
    let mut all = dynamic.clone();
    all.extend(fixed.clone());
    let mut checked = 0;
    for name in &names {
        let tree = &trees[name];
        let base = pose_in_world(&prefixed_frame(name, "base_link"), &all).unwrap_or_else(|e| panic!("{e}"));
        for link in tree.links() {
            let frame = prefixed_frame(name, link);
            let got = pose_in_world(&frame, &all).unwrap_or_else(|e| panic!("{e}"));
            let want = base * tree.pose_in_root(link).unwrap();
            let error = (got.translation.vector - want.translation.vector).norm() + got.rotation.angle_to(&want.rotation);
            assert!(error < 1e-9, "{frame}: at {got:?}, the URDF puts it at {want:?}");
            checked += 1;
        }
        // Fixed joints come latched, movable ones with the poses.
        for joint in &tree.fixed {
            assert!(fixed.contains_key(&prefixed_frame(name, &joint.child)), "{name}: fixed joint {} not on /tf_static", joint.joint);
        }
        for joint in &tree.moving {
            assert!(dynamic.contains_key(&prefixed_frame(name, &joint.child)), "{name}: movable joint {} not on /tf", joint.joint);
        }
    }
    let expected: usize = trees.values().map(|t| t.links().count()).sum();
    assert_eq!(checked, expected);
    eprintln!("{checked} link frames of {} modules reach `world` ({} static, {} on /tf)", names.len(), fixed.len(), dynamic.len());

    // Remove, spawn again, reset: /tf_static follows each time.
    let r = remove.request(&RemoveModule::Request { name: "fish".into() }).unwrap().await.unwrap();
    assert!(r.success, "remove: {}", r.message);
    next_where(&mut tf_static, "/tf_static without the Bluebot", |m: &TFMessage| {
        frames_of(m, "fish") == 0 && m.transforms.len() == scenario_static
    })
    .await;
    spawn_where_free(&spawn, "bluebot", "fish").await;
    next_where(&mut tf_static, "/tf_static with the Bluebot again", |m: &TFMessage| frames_of(m, "fish") == fish_fixed).await;
    let r = reset.request(&ResetWorld::Request { use_seed: false, seed: 0 }).unwrap().await.unwrap();
    assert!(r.success, "reset: {}", r.message);
    next_where(&mut tf_static, "/tf_static of the scenario after the reset", |m: &TFMessage| {
        frames_of(m, "fish") == 0 && m.transforms.len() == scenario_static
    })
    .await;
    next_where(&mut tf, "/tf without the spawned modules after the reset", |m: &TFMessage| {
        m.transforms.len() == 15 && m.transforms.iter().all(|t| t.child_frame_id.starts_with("lily_"))
    })
    .await;

    // A viewer that starts now still gets every fixed frame (transient local).
    let mut late = probe.subscribe_latched::<TFMessage>("/tf_static").unwrap();
    let got = tokio::time::timeout(TIMEOUT, late.next()).await.ok().flatten().expect("a late /tf_static subscriber got nothing");
    assert_eq!(got.transforms.len(), scenario_static);
    assert!((0..15).all(|i| frames_of(&got, &format!("lily_{i}")) == lily.fixed.len()), "late /tf_static: {:?}", got.transforms.len());

    let (status, output) = launch.interrupt(Duration::from_secs(15)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
}
