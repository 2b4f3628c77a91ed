//! ROS-native parameters and logs (issue 20 item 4), checked with the real ROS 2 Jazzy
//! `ros2` command line: every node declares its parameters with their effective values
//! and descriptors (`ros2 param list/get/describe`), a `ros2 param set` raises a
//! `/parameter_events` message or is refused with a reason, and every node's `tracing`
//! events reach `/rosout` under the node's name.
//!
//! The real `ros2` comes from the test kit beside the project (`FLOTILLA_ROS2_CLI_ENV`,
//! installed by `scripts/test.sh`) or from a sourced ROS 2; without either the tests say
//! so and stop.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Duration, Instant};

use flotilla_e2e::{bin, collect_until, repo_root, ros2, skip_without_cli, temp_file, Launch, RosProbe};
use futures::StreamExt;
use r2r::rcl_interfaces::msg::{Log, ParameterEvent};

/// `ros2 param list <node>` once the node answers (up to `timeout`): the parameter names.
fn param_list(base: &Command, domain: u32, node: &str, timeout: Duration) -> Vec<String> {
    let deadline = Instant::now() + timeout;
    loop {
        let (ok, out) = ros2(base, domain, &["param", "list", node, "--no-daemon"]);
        let names: Vec<String> = out.lines().filter(|l| l.starts_with("  ")).map(|l| l.trim().to_owned()).collect();
        if ok && !names.is_empty() {
            return names;
        }
        assert!(Instant::now() < deadline, "`ros2 param list {node}` gave no parameters within {timeout:?}:\n{out}");
        std::thread::sleep(Duration::from_millis(300));
    }
}

const TANK: &str = "tank_physics:\n  ros__parameters:\n    seed: 3\n    hydro: {kv: 1.5}\n    run: {real_time_factor: 1.0}\n";

/// `ros2 param get` returns defaults (a key no file gives) and given values; `ros2 param
/// describe` shows type, description with unit, range and read-only; `ros2 param set`
/// of a live parameter raises a `/parameter_events` message, and a set out of range, of
/// a read-only parameter or of the wrong type is refused with its reason.
#[test]
fn tank_physics_parameters_under_ros2_param() {
    let Some(cli) = skip_without_cli() else { return };
    let mut probe = RosProbe::new("params_probe").unwrap();
    let domain = probe.domain.id;
    let mut events = probe.with_node(|n| n.subscribe::<ParameterEvent>("/parameter_events", r2r::QosProfile::parameter_events())).unwrap();
    probe.spin();
    let (_dir, file) = temp_file("tank.yaml", TANK).unwrap();
    let mut cmd = Command::new(bin("tank_physics"));
    cmd.args(["--ros-args", "--params-file"]).arg(&file);
    let node = Launch::spawn(cmd, &probe.domain).unwrap();
    let names = param_list(&cli, domain, "/tank_physics", Duration::from_secs(60));
    for expected in ["publish.state_rate", "hydro.kv", "run.real_time_factor", "arena.diameter", "use_sim_time"] {
        assert!(names.iter().any(|n| n == expected), "{expected} not listed: {names:?}");
    }
    eprintln!("tank_physics: {} parameters listed", names.len());

    let get = |name: &str| ros2(&cli, domain, &["param", "get", "/tank_physics", name, "--no-daemon"]);
    let (ok, out) = get("publish.state_rate");
    assert!(ok && out.contains("Double value is: 30.0"), "default not served:\n{out}");
    let (ok, out) = get("seed");
    assert!(ok && out.contains("Integer value is: 3"), "file value not served:\n{out}");

    let (ok, out) = ros2(&cli, domain, &["param", "describe", "/tank_physics", "publish.state_rate", "hydro.kv", "--no-daemon"]);
    assert!(ok, "{out}");
    for want in [
        "Parameter name: publish.state_rate",
        "Type: double",
        "Description: Rate of /tank/state and /tf, Hz of sim time",
        "Read only: true",
        "Min value: 0.0002777777777777778",
        "Max value: 1000000.0",
        "Parameter name: hydro.kv",
        "Min value: 0.1",
        "Max value: 5.0",
    ] {
        assert!(out.contains(want), "describe lacks `{want}`:\n{out}");
    }
    assert_eq!(out.matches("Read only: true").count(), 1, "hydro.kv is live:\n{out}");

    let set = |name: &str, value: &str| ros2(&cli, domain, &["param", "set", "/tank_physics", name, value, "--no-daemon"]);
    let (ok, out) = set("hydro.kv", "2.0");
    assert!(ok && out.contains("Set parameter successful"), "{out}");
    expect_change_event(&mut events, "/tank_physics", "hydro.kv", 2.0);
    for (name, value, reason) in [
        ("hydro.kv", "7.0", "parameter `hydro.kv`: 7 is out of range [0.1, 5]"),
        ("publish.state_rate", "60.0", "parameter `publish.state_rate` is read-only"),
        ("hydro.kv", "fast", "parameter `hydro.kv` is a double, got a string"),
        ("no.such", "1", "is not declared"),
    ] {
        let (_, out) = set(name, value);
        assert!(out.contains("Setting parameter failed") && out.contains(reason), "{name}={value}:\n{out}");
    }
    let (_, out) = get("hydro.kv");
    assert!(out.contains("Double value is: 2.0"), "a refused set changed the value:\n{out}");
    // The accepted change is in the node's log, hence on /rosout too.
    let (status, output) = node.interrupt(Duration::from_secs(30)).unwrap();
    assert!(status.success(), "{output}");
    assert!(output.contains("hydrodynamic parameters updated"), "{output}");
}

/// Waits (up to 20 s) for the `/parameter_events` message of `node` changing double
/// parameter `name` to `value`.
fn expect_change_event(events: &mut (impl futures::Stream<Item = ParameterEvent> + Unpin), node: &str, name: &str, value: f64) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let seen = rt.block_on(collect_until(events, Duration::from_secs(20), |got: &[ParameterEvent]| {
        got.iter().any(|e| e.node == node && e.changed_parameters.iter().any(|p| p.name == name && p.value.double_value == value))
    }));
    assert!(
        seen.iter().any(|e| e.node == node && e.changed_parameters.iter().any(|p| p.name == name && p.value.double_value == value)),
        "no /parameter_events message from {node} for {name} = {value}: {:?}",
        seen.iter().map(|e| (&e.node, e.new_parameters.len(), e.changed_parameters.len())).collect::<Vec<_>>()
    );
}

const CONTROLLER: &str =
    "robot_controller:\n  ros__parameters:\n    use_sim_time: true\n    kind: bluebot\n    bluebot: {behaviour: milling, alpha: 0.25}\n";

/// robot_controller declares its Bluebot behaviour in full: every scalar of the behaviour,
/// defaults included, with its unit and live; a set in the behaviour's range is applied
/// and raises `/parameter_events`, one outside it is refused with the behaviour's own
/// reason, and the behaviour itself is read-only.
#[test]
fn robot_controller_bluebot_parameters_under_ros2_param() {
    let Some(cli) = skip_without_cli() else { return };
    let mut probe = RosProbe::new("bluebot_params_probe").unwrap();
    let domain = probe.domain.id;
    let mut events = probe.with_node(|n| n.subscribe::<ParameterEvent>("/parameter_events", r2r::QosProfile::parameter_events())).unwrap();
    probe.spin();
    let (_dir, file) = temp_file("controller.yaml", CONTROLLER).unwrap();
    let mut cmd = Command::new(bin("robot_controller"));
    cmd.args(["--ros-args", "--params-file"]).arg(&file);
    let node = Launch::spawn(cmd, &probe.domain).unwrap();
    let names = param_list(&cli, domain, "/robot_controller", Duration::from_secs(60));
    for expected in ["bluebot.behaviour", "bluebot.alpha", "bluebot.rho", "bluebot.caudal", "bluebot.pectoral", "bluebot.depth", "seed"] {
        assert!(names.iter().any(|n| n == expected), "{expected} not listed: {names:?}");
    }
    assert!(!names.iter().any(|n| n == "bluebot.target_distance"), "another behaviour's parameter is declared: {names:?}");
    let (ok, out) = ros2(&cli, domain, &["param", "describe", "/robot_controller", "bluebot.alpha", "bluebot.depth", "--no-daemon"]);
    assert!(ok, "{out}");
    for want in ["Description: milling: half-angle alpha of the wedge sensor, rad", "Min value: 0.0", "Max value: 5.0"] {
        assert!(out.contains(want), "describe lacks `{want}`:\n{out}");
    }
    assert!(!out.contains("Read only: true"), "the behaviour's scalars are live:\n{out}");
    let (ok, out) = ros2(&cli, domain, &["param", "get", "/robot_controller", "bluebot.rho", "--no-daemon"]);
    assert!(ok && out.contains("Double value is: 0.083"), "the behaviour's default is not served:\n{out}");

    let set = |name: &str, value: &str| ros2(&cli, domain, &["param", "set", "/robot_controller", name, value, "--no-daemon"]);
    let (ok, out) = set("bluebot.alpha", "0.3");
    assert!(ok && out.contains("Set parameter successful"), "{out}");
    expect_change_event(&mut events, "/robot_controller", "bluebot.alpha", 0.3);
    for (name, value, reason) in [
        ("bluebot.alpha", "2.0", "milling alpha must be in (0, pi/2) rad"),
        ("bluebot.depth", "6.0", "parameter `bluebot.depth`: 6 is out of range [0, 5]"),
        ("bluebot.behaviour", "sync", "parameter `bluebot.behaviour` is read-only"),
    ] {
        let (_, out) = set(name, value);
        assert!(out.contains("Setting parameter failed") && out.contains(reason), "{name}={value}:\n{out}");
    }
    let (status, output) = node.interrupt(Duration::from_secs(30)).unwrap();
    assert!(status.success(), "{output}");
    assert!(output.contains("parameters changed"), "{output}");
}

/// Every node answers `ros2 param list` with its parameters and logs on `/rosout` under
/// its own name. Prints the per-node figures of the README.
#[test]
fn every_node_lists_its_parameters_and_logs_on_rosout() {
    let Some(cli) = skip_without_cli() else { return };
    let mut probe = RosProbe::new("rosout_probe").unwrap();
    let domain = probe.domain.id;
    let qos = r2r::QosProfile::default().transient_local().keep_last(1000).reliable();
    let mut rosout = probe.with_node(|n| n.subscribe::<Log>("/rosout", qos)).unwrap();
    probe.spin();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    // Count every /rosout message by logger name while the nodes run.
    let counts = std::sync::Arc::new(std::sync::Mutex::new(BTreeMap::<String, usize>::new()));
    {
        let counts = counts.clone();
        rt.spawn(async move {
            while let Some(log) = rosout.next().await {
                *counts.lock().unwrap().entry(log.name).or_default() += 1;
            }
        });
    }
    let scratch = tempfile::tempdir().unwrap();
    let replay = replay_folder();
    // (what to start, the nodes it runs and their logger names)
    let groups: Vec<(Command, Vec<(&str, &str)>)> = vec![
        (
            launch("lily_15.launch.yaml", &[format!("metrics_csv:={}", scratch.path().join("metrics.csv").display())]),
            vec![
                ("/tank_physics", "tank_physics"),
                ("/robot_controller", "robot_controller"),
                ("/base_station", "base_station"),
                ("/overhead_camera", "overhead_camera"),
                ("/tracker", "tracker"),
            ],
        ),
        (launch("planner.launch.yaml", &[]), vec![("/reconfig_planner", "reconfig_planner")]),
        (launch("camera_tracker.launch.yaml", &["in_process:=true".into()]), vec![("/camera_tracker", "camera_tracker")]),
        (
            launch("calibration.launch.yaml", &[format!("output_root:={}", scratch.path().join("calibration").display())]),
            vec![("/calibration", "calibration")],
        ),
        (
            launch("replay_tracker.launch.yaml", &[format!("replay_dir:={}", replay.path().display()), "loop:=true".into()]),
            vec![("/image_replay", "image_replay")],
        ),
        (
            launch(
                "blueswarm_milling.launch.yaml",
                &["robots:=3".into(), format!("metrics_csv:={}", scratch.path().join("blueswarm.csv").display())],
            ),
            vec![("/blueswarm_tank", "blueswarm_tank"), ("/robot_controller", "robot_controller")],
        ),
        (
            launch("kilobot_self_assembly.launch.yaml", &["robots:=6".into()]),
            vec![("/kilobot_table", "kilobot_table"), ("/kilobot_swarm", "kilobot_swarm")],
        ),
        (
            launch("mhp_tank.launch.yaml", &["controller:=centralised".into()]),
            vec![("/mhp_tank", "mhp_tank"), ("/robot_controller", "robot_controller")],
        ),
        (launch("molemod.launch.yaml", &[]), vec![("/molemod_physics", "molemod_physics")]),
    ];
    let mut table = vec!["| node | parameters listed | /rosout messages seen |".to_owned(), "|---|---|---|".to_owned()];
    let mut failures = Vec::new();
    for (cmd, nodes) in groups {
        // Counted per launch (robot_controller runs in two of them).
        counts.lock().unwrap().clear();
        let running = Launch::spawn(cmd, &probe.domain).unwrap();
        let mut listed = Vec::new();
        for (node, _) in &nodes {
            listed.push(param_list(&cli, domain, node, Duration::from_secs(90)).len());
        }
        // Every node logs at start ("... running"): wait for each name on /rosout.
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline && !nodes.iter().all(|(_, logger)| counts.lock().unwrap().contains_key(*logger)) {
            std::thread::sleep(Duration::from_millis(100));
        }
        let (status, output) = running.interrupt(Duration::from_secs(30)).unwrap();
        let seen = counts.lock().unwrap().clone();
        for ((node, logger), n) in nodes.iter().zip(listed) {
            let logs = seen.get(*logger).copied().unwrap_or(0);
            table.push(format!("| {node} | {n} | {logs} |"));
            if logs == 0 {
                failures.push(format!("no /rosout message named `{logger}` (seen: {seen:?})\n{output}"));
            }
        }
        if !status.success() {
            failures.push(format!("{nodes:?} exited with {status:?}\n{output}"));
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn launch(file: &str, args: &[String]) -> Command {
    let mut cmd = Command::new(bin("flotilla"));
    cmd.arg("launch").arg(repo_root().join("launch").join(file)).args(args);
    cmd
}

/// A folder of three rendered frames with its camera model, for the replay launch.
fn replay_folder() -> tempfile::TempDir {
    use tracking::{ArenaOutline, CameraModel, MarkerKind, RenderOptions, Renderer, SceneObject};
    let dir = tempfile::tempdir().unwrap();
    let camera = CameraModel::covering(&ArenaOutline::lily_tank(), 256, 256, 1.0, 0.03);
    tracking::replay::write_camera(dir.path(), &camera).unwrap();
    let mut renderer = Renderer::new(ArenaOutline::lily_tank(), camera, RenderOptions::default()).unwrap();
    for k in 0..3 {
        let balls = [SceneObject::new(0, MarkerKind::Ball, 0.01 * k as f64, 0.0)];
        tracking::replay::save_rgb_frame(dir.path(), k, &renderer.render_rgb(&balls, k)).unwrap();
    }
    dir
}
