//! What the tank physics node records (the trajectory CSV and the MCAP bag of the state
//! topics) and its live parameters, through ROS: a finished run gives a complete bag whose
//! messages are the ones published; a killed node leaves every state message it had
//! published readable; `set_parameters` (what `ros2 param set` calls) changes the
//! hydrodynamics while running and refuses bad values with a reason.

use std::process::Command;
use std::time::Duration;

use flotilla_e2e::{answered, bin, repo_root, temp_file, Launch, RosProbe};
use futures::StreamExt;
use r2r::flotilla_msgs::msg::{FlowField, TankState};
use r2r::rcl_interfaces::msg::{Parameter, ParameterValue};
use r2r::rcl_interfaces::srv::{GetParameters, SetParameters};
use r2r::tf2_msgs::msg::TFMessage;
use r2r::WrappedTypesupport;

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

/// Every message of an MCAP file, and whether the file was finished.
fn read_bag(path: &std::path::Path) -> (Vec<BagMessage>, bool) {
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

/// tests/read_bag.py's JSON summary of a bag (Foxglove's mcap-ros2-support, installed by
/// scripts/setup.sh; its absence fails the test).
fn python_reading(bag: &std::path::Path) -> serde_json::Value {
    let tools = std::env::var("FLOTILLA_PY_TOOLS")
        .expect("FLOTILLA_PY_TOOLS unset: source build/env.sh (scripts/setup.sh installs the bag reader)");
    let python_path = match std::env::var("PYTHONPATH") {
        Ok(p) if !p.is_empty() => format!("{tools}:{p}"),
        _ => tools,
    };
    let out = Command::new("python3")
        .arg(repo_root().join("tests/read_bag.py"))
        .arg(bag)
        .env("PYTHONPATH", python_path)
        .output()
        .expect("running python3");
    assert!(out.status.success(), "read_bag.py: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("read_bag.py prints JSON")
}

#[test]
fn a_finished_run_leaves_a_complete_bag_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("run.mcap");
    let csv = dir.path().join("run.csv");
    let extra = format!("    record: {{mcap: \"{}\", trajectory_csv: \"{}\"}}", bag.display(), csv.display());
    let (_sdir, scenario) = temp_file("pingpong.yaml", &pingpong_with(&extra)).unwrap();
    let probe = RosProbe::new("probe_bag").unwrap();
    let args = [format!("scenario_file:={}", scenario.display()), "duration:=5".into(), "real_time_factor:=0".into()];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (status, output) = Launch::start("launch/tank.launch.yaml", &args, &probe.domain).unwrap().wait(Duration::from_secs(60)).unwrap();
    assert!(status.success(), "{output}");

    let (messages, complete) = read_bag(&bag);
    assert!(complete, "a bag closed on a normal stop has its summary and footer");
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

    // An independent ROS 2 reader (Foxglove's, Python) decodes the same bag.
    let python = python_reading(&bag);
    assert_eq!(python["counts"]["/tank/state"].as_u64(), Some(states.len() as u64), "{python}");
    assert_eq!(python["schemas"]["/tf"], "tf2_msgs/msg/TFMessage");
    assert_eq!(python["state"]["step"].as_u64(), Some(last.step));
    let modules = python["state"]["modules"].as_array().unwrap();
    assert_eq!(modules.len(), 24);
    for (m, ours) in modules.iter().zip(&last.modules) {
        assert_eq!(m[0], ours.name.as_str());
        // JSON text -> f64 is within an ulp (serde_json's fast float parsing).
        assert!((m[1].as_f64().unwrap() - ours.pose.position.x).abs() < 1e-12, "{m} vs {:?}", ours.pose.position);
    }
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_node_leaves_every_published_state_in_the_bag() {
    let dir = tempfile::tempdir().unwrap();
    let bag = dir.path().join("crash.mcap");
    let extra = format!("    record: {{mcap: \"{}\"}}", bag.display());
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

    let (messages, complete) = read_bag(&bag);
    assert!(!complete, "a killed node cannot write the summary");
    let recorded: Vec<u64> =
        messages.iter().filter(|m| m.topic == "/tank/state").map(|m| TankState::from_serialized_bytes(&m.data).unwrap().step).collect();
    // Everything the probe saw is in the bag, but perhaps the very last (killed between
    // publishing and writing it).
    let missing: Vec<u64> = received[..received.len() - 1].iter().filter(|s| !recorded.contains(s)).copied().collect();
    assert!(missing.is_empty(), "published but not recorded: {missing:?} (recorded {} states)", recorded.len());
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
