//! What the tank physics node records (the trajectory CSV and the rosbag2 bag directory of
//! the state topics) and its live parameters, through ROS: a finished run gives a complete
//! bag (metadata.yaml + MCAP) whose messages are the ones published, read by three
//! independent readers (the `mcap` crate, rosbags, Foxglove's mcap-ros2-support); a killed
//! node leaves a bag rosbags opens as is, with every state message it had published;
//! `set_parameters` (what `ros2 param set` calls) changes the hydrodynamics while running
//! and refuses bad values with a reason.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use flotilla_common::ros_bag::type_hash;
use flotilla_e2e::{answered, bin, python_tool, read_rosbag2, repo_root, temp_file, Launch, RosProbe};
use futures::StreamExt;
use r2r::flotilla_msgs::msg::{FlowField, TankState};
use r2r::flotilla_msgs::srv::ResetWorld;
use r2r::rcl_interfaces::msg::{Parameter, ParameterValue};
use r2r::rcl_interfaces::srv::{GetParameters, SetParameters};
use r2r::tf2_msgs::msg::TFMessage;
use r2r::WrappedTypesupport;
use serde_json::Value as Json;

/// tf2_msgs/msg/TFMessage's type hash as a Jazzy graph announces it (`ros2 topic info -v /tf`).
const JAZZY_TF_MESSAGE: &str = "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087";

/// The 24-ball scenario with the given extra `ros__parameters` lines (4-space indented).
fn pingpong_with(extra: &str) -> String {
    let scenario = std::fs::read_to_string(repo_root().join("config/pingpong_24.yaml")).unwrap();
    scenario.replacen("ros__parameters:", &format!("ros__parameters:\n{extra}"), 1)
}

/// One message of a bag.
struct BagMessage {
    topic: String,
    schema: String,
    log_time: u64,
    data: Vec<u8>,
}

/// Every message of an MCAP file, and whether it read to its end without error.
fn read_mcap(path: &Path) -> (Vec<BagMessage>, bool) {
    let bytes = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut complete = true;
    for message in mcap::MessageStream::new(&bytes).unwrap() {
        match message {
            Ok(m) => out.push(BagMessage {
                topic: m.channel.topic.clone(),
                schema: m.channel.schema.as_ref().map(|s| s.name.clone()).unwrap_or_default(),
                log_time: m.log_time,
                data: m.data.into_owned(),
            }),
            Err(_) => {
                complete = false;
                break;
            }
        }
    }
    (out, complete)
}

/// The bag's `metadata.yaml`, inside its `rosbag2_bagfile_information` key.
fn metadata_yaml(bag: &Path) -> serde_yaml::Value {
    let text = std::fs::read_to_string(bag.join("metadata.yaml")).unwrap();
    serde_yaml::from_str::<serde_yaml::Value>(&text).unwrap()["rosbag2_bagfile_information"].clone()
}

/// (type, message count, type hash) per topic of a `metadata.yaml`.
fn metadata_topics(m: &serde_yaml::Value) -> BTreeMap<String, (String, u64, String)> {
    m["topics_with_message_count"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|t| {
            let meta = &t["topic_metadata"];
            let text = |v: &serde_yaml::Value| v.as_str().unwrap().to_owned();
            (text(&meta["name"]), (text(&meta["type"]), t["message_count"].as_u64().unwrap(), text(&meta["type_description_hash"])))
        })
        .collect()
}

/// The recorded topics: name, type, RIHS01 hash from the type support, durability.
fn recorded_topics() -> [(&'static str, &'static str, String, &'static str); 3] {
    [
        ("/tank/state", "flotilla_msgs/msg/TankState", type_hash::<TankState>().unwrap().to_string(), "volatile"),
        ("/tf", "tf2_msgs/msg/TFMessage", type_hash::<TFMessage>().unwrap().to_string(), "volatile"),
        ("/tank/flow_field", "flotilla_msgs/msg/FlowField", type_hash::<FlowField>().unwrap().to_string(), "transient_local"),
    ]
}

#[test]
fn a_finished_run_leaves_a_complete_bag_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("run");
    let csv = dir.path().join("run.csv");
    let extra = format!("    record: {{bag: \"{}\", trajectory_csv: \"{}\"}}", bag.display(), csv.display());
    let (_sdir, scenario) = temp_file("pingpong.yaml", &pingpong_with(&extra)).unwrap();
    let probe = RosProbe::new("probe_bag").unwrap();
    let args = [format!("scenario_file:={}", scenario.display()), "duration:=5".into(), "real_time_factor:=0".into()];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (status, output) = Launch::start("launch/tank.launch.yaml", &args, &probe.domain).unwrap().wait(Duration::from_secs(60)).unwrap();
    assert!(status.success(), "{output}");

    // A rosbag2 bag directory: metadata.yaml and <name>_0.mcap, nothing else.
    let mut files: Vec<String> = std::fs::read_dir(&bag).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    files.sort();
    assert_eq!(files, ["metadata.yaml", "run_0.mcap"]);
    let mcap_file = bag.join("run_0.mcap");
    let (messages, complete) = read_mcap(&mcap_file);
    assert!(complete, "a bag closed on a normal stop reads to its end");
    let of = |topic: &str| messages.iter().filter(|m| m.topic == topic).collect::<Vec<_>>();
    let states = of("/tank/state");
    // 30 Hz of sim time (3 steps in 4 of 25 ms) for 5 s, plus the state at start.
    assert!((150..=151).contains(&states.len()), "{} state messages in the bag", states.len());
    assert_eq!(of("/tf").len(), states.len());
    assert_eq!(of("/tank/flow_field").len(), 1);
    assert!(states.iter().all(|m| m.schema == "flotilla_msgs/msg/TankState"));
    let last = TankState::from_serialized_bytes(&states.last().unwrap().data).unwrap();
    assert_eq!(last.modules.len(), 24);
    assert!((last.sim_time - 5.0).abs() < 0.03, "last state at {} s", last.sim_time);
    assert_eq!(states.last().unwrap().log_time, (last.sim_time * 1e9).round() as u64, "log time is sim time");
    let tf = TFMessage::from_serialized_bytes(&of("/tf").last().unwrap().data).unwrap();
    assert_eq!(tf.transforms.len(), 24);
    let flow = FlowField::from_serialized_bytes(&of("/tank/flow_field")[0].data).unwrap();
    assert!(flow.nx > 0 && flow.mean_x.len() == (flow.nx * flow.ny) as usize);

    // The MCAP channels carry the type hash and the offered QoS as rosbag2 writes them; the
    // summary's last `rosbag2` metadata record is metadata.yaml's content.
    let bytes = std::fs::read(&mcap_file).unwrap();
    let summary = mcap::Summary::read(&bytes).unwrap().expect("a finished bag has a summary");
    let topics = recorded_topics();
    for (name, _, hash, durability) in &topics {
        let channel = summary.channels.values().find(|c| c.topic == *name).unwrap();
        assert_eq!(&channel.metadata["topic_type_hash"], hash, "{name}");
        let qos: serde_yaml::Value = serde_yaml::from_str(&channel.metadata["offered_qos_profiles"]).unwrap();
        assert_eq!((qos[0]["reliability"].as_str(), qos[0]["durability"].as_str()), (Some("reliable"), Some(*durability)), "{name}");
    }
    assert_eq!(topics[1].2, JAZZY_TF_MESSAGE, "the type support's TFMessage hash is Jazzy's");

    // metadata.yaml as Jazzy's rosbag2 writes it, agreeing with the MCAP file.
    let meta = metadata_yaml(&bag);
    assert_eq!(meta["version"], 9);
    assert_eq!(meta["storage_identifier"], "mcap");
    assert_eq!(meta["relative_file_paths"][0], "run_0.mcap");
    assert_eq!(meta["files"][0]["path"], "run_0.mcap");
    assert_eq!(meta["ros_distro"], "jazzy");
    assert_eq!(meta["message_count"].as_u64(), Some(messages.len() as u64));
    assert_eq!(meta["files"][0]["message_count"].as_u64(), Some(messages.len() as u64));
    let first = messages.iter().map(|m| m.log_time).min().unwrap();
    let end = messages.iter().map(|m| m.log_time).max().unwrap();
    assert_eq!(meta["starting_time"]["nanoseconds_since_epoch"].as_u64(), Some(first));
    assert_eq!(meta["duration"]["nanoseconds"].as_u64(), Some(end - first));
    let listed = metadata_topics(&meta);
    for (name, type_name, hash, _) in &topics {
        assert_eq!(listed[*name], (type_name.to_string(), of(name).len() as u64, hash.clone()), "{name}");
    }

    // rosbags opens the directory: its metadata, the MCAP file's messages, and the hashes it
    // computes from the stored schemas all agree with ours.
    let rb = read_rosbag2(&bag);
    assert_eq!(rb["metadata"]["message_count"].as_u64(), Some(messages.len() as u64), "{rb}");
    assert_eq!(rb["metadata"]["ros_distro"], "jazzy");
    assert_eq!(rb["metadata"]["start_time"].as_u64(), Some(first));
    for (name, type_name, hash, durability) in &topics {
        let t = &rb["metadata"]["topics"][name];
        let count = of(name).len() as u64;
        assert_eq!(
            (t["type"].as_str(), t["count"].as_u64(), t["type_hash"].as_str()),
            (Some(*type_name), Some(count), Some(hash.as_str())),
            "{name}: {t}"
        );
        assert_eq!(t["serialization_format"], "cdr");
        assert_eq!(t["qos"][0]["reliability"], "reliable");
        assert_eq!(t["qos"][0]["durability"], *durability);
        assert_eq!(rb["read_counts"][name].as_u64(), Some(count), "{name} read from the MCAP file");
        assert_eq!(rb["computed_hashes"][type_name].as_str(), Some(hash.as_str()), "rosbags' hash of {type_name}");
    }
    assert_eq!(rb["state"]["step"].as_u64(), Some(last.step));
    assert_eq!(rb["state"]["log_time_ns"].as_u64(), Some(states.last().unwrap().log_time));
    let steps: Vec<u64> = states.iter().map(|m| TankState::from_serialized_bytes(&m.data).unwrap().step).collect();
    assert_eq!(rb["state_steps"], Json::from(steps));
    assert_modules_match(&rb["state"]["modules"], &last);
    assert_eq!(rb["tf_frames"].as_array().unwrap().len(), 24);
    assert_eq!(rb["flow"]["cells"].as_u64(), Some(flow.mean_x.len() as u64));

    // Foxglove's ROS 2 reader (Python) decodes the same MCAP file.
    let python = python_tool("read_bag.py", &mcap_file);
    assert_eq!(python["counts"]["/tank/state"].as_u64(), Some(states.len() as u64), "{python}");
    assert_eq!(python["schemas"]["/tf"], "tf2_msgs/msg/TFMessage");
    assert_eq!(python["state"]["step"].as_u64(), Some(last.step));
    assert_modules_match(&python["state"]["modules"], &last);
    assert_eq!(python["tf_frames"].as_array().unwrap().len(), 24);

    // The CSV has a frame per step with every ball, and it agrees with the bag.
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(rows.len(), 200 * 24, "5 s of 25 ms steps x 24 balls");
    let last_ball = last.modules.iter().find(|m| m.id == 0).unwrap();
    let row: Vec<f64> =
        rows.iter().rev().map(|r| r.split(',').map(|f| f.parse::<f64>().unwrap()).collect::<Vec<_>>()).find(|r| r[2] == 0.0).unwrap();
    assert!((row[3] - last_ball.pose.position.x).abs() < 1e-9 && (row[4] - last_ball.pose.position.y).abs() < 1e-9);
}

/// A Python reader's `[name, x, y]` per module equals the state's.
fn assert_modules_match(modules: &Json, state: &TankState) {
    let modules = modules.as_array().unwrap();
    assert_eq!(modules.len(), state.modules.len());
    for (m, ours) in modules.iter().zip(&state.modules) {
        assert_eq!(m[0], ours.name.as_str());
        // JSON text -> f64 is within an ulp (serde_json's fast float parsing).
        assert!((m[1].as_f64().unwrap() - ours.pose.position.x).abs() < 1e-12, "{m} vs {:?}", ours.pose.position);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_node_leaves_every_published_state_in_the_bag() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("crash");
    let extra = format!("    record: {{bag: \"{}\"}}", bag.display());
    let (_sdir, scenario) = temp_file("pingpong.yaml", &pingpong_with(&extra)).unwrap();
    let mut probe = RosProbe::new("probe_crash").unwrap();
    let mut states = probe.subscribe::<TankState>("/tank/state").unwrap();
    probe.spin();
    let mut cmd = Command::new(bin("tank_physics"));
    cmd.args(["--ros-args", "--params-file"]).arg(&scenario);
    let node = Launch::spawn(cmd, &probe.domain).unwrap();
    let mut received = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while received.len() < 60 {
        match tokio::time::timeout_at(deadline, states.next()).await {
            Ok(Some(s)) => received.push(s.step),
            _ => panic!("only {} states received; node output:\n{}", received.len(), node.output()),
        }
    }
    // SAFETY: killing our own child by pid.
    unsafe { libc::kill(node.pid() as i32, libc::SIGKILL) };
    let _ = node.wait(Duration::from_secs(10));
    // Everything the probe saw is in the bag, but perhaps the very last (killed between
    // publishing and writing it).
    let must = &received[..received.len() - 1];

    // The MCAP file reads to its (provisional) end; only the summary is missing.
    let mcap_file = bag.join("crash_0.mcap");
    let (messages, complete) = read_mcap(&mcap_file);
    assert!(complete, "a killed node's MCAP file reads to its end");
    // No summary; a kill inside a growth of the file leaves a Footer that points at the old
    // end's Footer, which a summary reader reads as an empty summary.
    let summary = mcap::Summary::read(&std::fs::read(&mcap_file).unwrap()).unwrap();
    assert!(summary.is_none_or(|s| s.stats.is_none() && s.chunk_indexes.is_empty()), "a killed node cannot write the summary");
    let recorded: Vec<u64> =
        messages.iter().filter(|m| m.topic == "/tank/state").map(|m| TankState::from_serialized_bytes(&m.data).unwrap().step).collect();
    let missing: Vec<u64> = must.iter().filter(|s| !recorded.contains(s)).copied().collect();
    assert!(missing.is_empty(), "published but not recorded: {missing:?} (recorded {} states)", recorded.len());

    // metadata.yaml lists every topic; its counts lag the MCAP file by at most the last
    // second of recording.
    let listed = metadata_topics(&metadata_yaml(&bag));
    assert_eq!(listed.keys().collect::<Vec<_>>(), ["/tank/flow_field", "/tank/state", "/tf"]);
    let state_count = listed["/tank/state"].1;
    assert!(state_count >= 1 && state_count <= recorded.len() as u64, "metadata counts {state_count} of {} states", recorded.len());

    // rosbags opens the killed bag as is and reads every state the probe received.
    let rb = read_rosbag2(&bag);
    let read: Vec<u64> = rb["state_steps"].as_array().unwrap().iter().map(|s| s.as_u64().unwrap()).collect();
    assert_eq!(read, recorded, "rosbags reads what the mcap crate reads");
    assert_eq!(rb["metadata"]["topics"]["/tank/state"]["count"].as_u64(), Some(state_count));
}

/// Waits (10 s at most) for a state at `min_time` s of sim time or later.
async fn wait_for_time(states: &mut (impl futures::Stream<Item = TankState> + Unpin), min_time: f64) {
    let reached = async {
        while let Some(s) = states.next().await {
            if s.sim_time >= min_time {
                return;
            }
        }
        panic!("/tank/state ended");
    };
    tokio::time::timeout(Duration::from_secs(10), reached).await.unwrap_or_else(|_| panic!("no state at {min_time} s of sim time"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_closes_the_bag_and_continues_in_a_numbered_one() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("reset");
    let extra = format!("    record: {{bag: \"{}\"}}", bag.display());
    let (_sdir, scenario) = temp_file("pingpong.yaml", &pingpong_with(&extra)).unwrap();
    let mut probe = RosProbe::new("probe_reset").unwrap();
    let reset = probe.with_node(|n| n.create_client::<ResetWorld::Service>("/tank/reset", r2r::QosProfile::default())).unwrap();
    let ready = probe.with_node(|_| r2r::Node::is_available(&reset)).unwrap();
    let mut states = probe.subscribe::<TankState>("/tank/state").unwrap();
    probe.spin();
    let arg = format!("scenario_file:={}", scenario.display());
    let launch = Launch::start("launch/tank.launch.yaml", &[&arg], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(30), ready).await.expect("/tank/reset did not appear").unwrap();
    wait_for_time(&mut states, 0.5).await;
    let r = answered(reset.request(&ResetWorld::Request { use_seed: true, seed: 9 }).unwrap(), "/tank/reset").await;
    assert!(r.success, "{}", r.message);
    // States of the new run (sim time restarts at 0) up to 0.5 s.
    wait_for_time(&mut states, 0.5).await;
    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "{output}");

    // The first bag was finished at the reset, the second at the stop: both complete,
    // both read by rosbags, sim time starting again in the second.
    for (dir, name) in [(bag.clone(), "reset_0.mcap"), (dir.path().join("reset.1"), "reset.1_0.mcap")] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert!(mcap::Summary::read(&bytes).unwrap().is_some(), "{} is finished", dir.display());
        let rb = read_rosbag2(&dir);
        let count = rb["read_counts"]["/tank/state"].as_u64().unwrap();
        assert!(count >= 15, "{}: {count} states", dir.display());
        assert_eq!(rb["metadata"]["topics"]["/tank/state"]["count"].as_u64(), Some(count), "metadata.yaml final counts");
        assert_eq!(rb["metadata"]["start_time"].as_u64(), Some(0), "{}: sim time from 0", dir.display());
    }
}

fn double(name: &str, value: f64) -> Parameter {
    Parameter { name: name.into(), value: ParameterValue { type_: 3, double_value: value, ..Default::default() } }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_parameters_changes_the_hydrodynamics_live_and_refuses_bad_values() {
    let (_sdir, scenario) = temp_file("pingpong.yaml", &pingpong_with("")).unwrap();
    let mut probe = RosProbe::new("probe_params").unwrap();
    let set =
        probe.with_node(|n| n.create_client::<SetParameters::Service>("/tank_physics/set_parameters", r2r::QosProfile::default())).unwrap();
    let get =
        probe.with_node(|n| n.create_client::<GetParameters::Service>("/tank_physics/get_parameters", r2r::QosProfile::default())).unwrap();
    let ready = probe.with_node(|_| r2r::Node::is_available(&set)).unwrap();
    let mut states = probe.subscribe::<TankState>("/tank/state").unwrap();
    probe.spin();
    let arg = format!("scenario_file:={}", scenario.display());
    let launch = Launch::start("launch/tank.launch.yaml", &[&arg], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(30), ready).await.expect("parameter services did not appear").unwrap();
    let kv = || async {
        let r = answered(get.request(&GetParameters::Request { names: vec!["hydro.kv".into()] }).unwrap(), "get hydro.kv").await;
        r.values[0].double_value
    };
    assert_eq!(kv().await, 1.24);

    // Good values are taken; the world keeps running.
    let r = answered(
        set.request(&SetParameters::Request { parameters: vec![double("hydro.kv", 2.0), double("hydro.d_linear", 0.5)] }).unwrap(),
        "set hydro.kv and hydro.d_linear",
    )
    .await;
    assert!(r.results.iter().all(|r| r.successful), "{:?}", r.results);
    assert_eq!(kv().await, 2.0);

    // Out of range, non-finite, wrong type: refused with a reason naming the key; unchanged.
    for (parameter, key) in [
        (double("hydro.kv", -1.0), "kv"),
        (double("hydro.d_linear", f64::NAN), "d_linear"),
        (
            Parameter { name: "hydro.kf".into(), value: ParameterValue { type_: 4, string_value: "fast".into(), ..Default::default() } },
            "kf",
        ),
    ] {
        let r = answered(set.request(&SetParameters::Request { parameters: vec![parameter] }).unwrap(), key).await;
        assert!(!r.results[0].successful && r.results[0].reason.contains(key), "{:?}", r.results);
    }
    assert_eq!(kv().await, 2.0);
    let before = tokio::time::timeout(Duration::from_secs(10), states.next()).await.expect("no /tank/state").unwrap().sim_time;
    let after = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let s = states.next().await.unwrap();
            if s.sim_time > before + 0.5 {
                return s.sim_time;
            }
        }
    })
    .await
    .expect("the world stopped after refused parameters");
    assert!(after > before);
    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "{output}");
    assert!(output.contains("hydrodynamic parameters updated"), "{output}");
}
