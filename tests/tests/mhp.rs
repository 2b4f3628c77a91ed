//! The 2-D MHP prototype through ROS (`launch/mhp_tank.launch.yaml`): the robot crosses
//! the finish line 50 cm after the start line in the time the in-process model gives for
//! the same configuration, seed and controller (lock step: the same steps), with the
//! prototype's controller and the centralised one (built by `robot_controller` from the
//! latched `/<robot>/layout`, fed the navigation fields of `MhpSensors`); the robot has
//! its own topics and no module has any; `/tank/state` lists every module, `/tank/markers`
//! draws the modules, torch and lines; Ctrl-C exits 0. A configuration that is none of the
//! nine, and other bad parameters, exit 2 naming the key.

use std::time::{Duration, Instant};

use flotilla_common::ros_contract::{mhp_layout_from_msg, RosHardware};
use flotilla_contract::mhp::{Mhp, MhpCommand, MhpFirmware};
use flotilla_e2e::{collect_until, drain, Domain, Launch, RosProbe};
use flotilla_firmware::mhp::{CentralisedGains, MhpCentralised, MhpPrototypeReactive};
use r2r::flotilla_msgs::msg::{MhpLayout, MhpSensors, TankState};
use r2r::visualization_msgs::msg::MarkerArray;
use serde_json::Value;
use tank_physics::systems::mhp::prototype::{configuration, PrototypeModules, PrototypeTank, PrototypeTrial, Stage};

/// Start-to-finish time of trial 0 in-process (the model and firmware of `flotilla
/// experiment mhp prototype`), s.
fn in_process(name: &str, seed: u64, centralised: bool) -> f64 {
    let m = configuration(name).unwrap();
    let mut trial = PrototypeTrial::new(&m, PrototypeModules::default(), PrototypeTank::default(), seed, 0).unwrap();
    let mut firmware: Box<dyn MhpFirmware> = if centralised {
        Box::new(MhpCentralised::new(&trial.layout(), CentralisedGains::default()))
    } else {
        Box::new(MhpPrototypeReactive { faces_per_module: 4 })
    };
    let mut command = MhpCommand::default();
    while trial.time() < 60.0 {
        if trial.control_due() {
            let t = trial.time();
            firmware.step_into(t, trial.read(centralised), &mut command);
            trial.apply(name, &command).unwrap();
        }
        if trial.step() == Stage::Finished {
            return trial.crossing_time().unwrap();
        }
    }
    panic!("{name}: no crossing in 60 s in-process");
}

/// The `Nx real time` of the tank's summary line.
fn real_time_factor(output: &str) -> Option<f64> {
    let line = output.lines().find(|l| l.contains("summary:") && l.contains("mhp_tank"))?;
    let before = line.split("x real time").next()?;
    before.rsplit('(').next()?.trim().parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_robot_crosses_fifty_centimetres_through_ros_as_in_process() {
    let mut probe = RosProbe::new("probe_mhp").unwrap();
    let mut crossings = probe.subscribe_latched::<r2r::std_msgs::msg::String>("/mhp_tank/crossing").unwrap();
    let mut layouts = probe.subscribe_latched::<MhpLayout>("/mhp_0/layout").unwrap();
    let mut markers = probe.subscribe_latched::<MarkerArray>("/tank/markers").unwrap();
    let mut readings = probe.subscribe::<MhpSensors>("/mhp_0/sensors").unwrap();
    let mut states = probe.subscribe::<TankState>("/tank/state").unwrap();
    probe.spin();
    for controller in ["prototype", "centralised"] {
        let started = Instant::now();
        let args = ["configuration:=4T", "seed:=0", "real_time_factor:=0", &format!("controller:={controller}")];
        let launch = Launch::start("launch/mhp_tank.launch.yaml", &args, &probe.domain).unwrap();
        let got = collect_until(&mut crossings, Duration::from_secs(60), |c: &[r2r::std_msgs::msg::String]| !c.is_empty()).await;
        let crossing: Value = got
            .first()
            .and_then(|m| serde_json::from_str(&m.data).ok())
            .unwrap_or_else(|| panic!("{controller}: no crossing within 60 s:\n{}", launch.output()));
        let ros = crossing["crossing_time_s"].as_f64().unwrap();
        let local = in_process("4T", 0, controller == "centralised");
        eprintln!("{controller}: 4T seed 0 over 50 cm: {ros:.3} s through ROS, {local:.3} s in-process");
        // Lock step: the same steps, so the same time to the step (10 ms).
        assert!((ros - local).abs() < 0.015, "{controller}: {ros} s through ROS, {local} s in-process\n{}", launch.output());
        assert!((5.0..13.0).contains(&ros), "{controller}: {ros} s (the paper: 6.5-13.0 s)");
        assert_eq!((crossing["configuration"].as_str(), crossing["distance_m"].as_f64()), (Some("4T"), Some(0.5)));

        // One robot, its own topics; no module has any.
        let layout = collect_until(&mut layouts, Duration::from_secs(20), |l: &[MhpLayout]| !l.is_empty()).await;
        let layout = mhp_layout_from_msg(layout.first().unwrap_or_else(|| panic!("no layout:\n{}", launch.output())));
        assert_eq!((layout.faces_per_module, layout.faces, layout.thrusters.len()), (4, 16, 10), "4T: 16 faces, 10 outer");
        let reading = collect_until(&mut readings, Duration::from_secs(20), |r: &[MhpSensors]| !r.is_empty()).await;
        let reading = Mhp::sensors_from_msg(reading.into_iter().next().unwrap_or_else(|| panic!("no reading:\n{}", launch.output())));
        assert_eq!((reading.connected.len(), reading.target_seen.len()), (16, 16));
        assert_eq!(reading.connected.iter().filter(|c| !**c).count(), 10);
        let nav = reading.navigation.unwrap_or_else(|| panic!("the reading has no navigation"));
        let q = nav.orientation;
        assert!(((q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1.0).abs() < 1e-9, "{q:?}");
        let topics = probe.with_node(|n| n.get_topic_names_and_types()).unwrap();
        for topic in ["/mhp_0/sensors", "/mhp_0/cmd", "/mhp_0/layout", "/tank/state", "/tank/markers", "/clock"] {
            assert!(topics.contains_key(topic), "{topic} missing: {:?}", topics.keys());
        }
        let robot_topics: Vec<&String> = topics.keys().filter(|t| t.starts_with("/mhp_0/")).collect();
        assert_eq!(robot_topics.len(), 3, "the robot's topics: {robot_topics:?}");
        assert!(!topics.keys().any(|t| t.contains("module")), "a topic per module: {:?}", topics.keys());

        let state = collect_until(&mut states, Duration::from_secs(20), |s: &[TankState]| !s.is_empty()).await;
        let state = state.first().unwrap_or_else(|| panic!("no /tank/state:\n{}", launch.output()));
        assert_eq!(state.modules.len(), 4);
        assert!(state.modules.iter().all(|m| m.name == "mhp_0" && m.kind == "mhp_square" && m.thrusters.len() == 4));
        assert!(state.modules.iter().all(|m| m.pose.position.x.abs() < 0.63 && m.pose.position.y.abs() < 0.34));
        let drawn = collect_until(&mut markers, Duration::from_secs(20), |m: &[MarkerArray]| !m.is_empty()).await;
        let drawn = drawn.first().unwrap_or_else(|| panic!("no markers:\n{}", launch.output()));
        for ns in ["modules", "jets", "torch", "start_line", "finish_line", "tank", "water"] {
            assert!(drawn.markers.iter().any(|m| m.ns == ns), "no `{ns}` marker");
        }
        assert_eq!(drawn.markers.iter().filter(|m| m.ns == "modules").count(), 4);

        let (status, output) = launch.interrupt(Duration::from_secs(20)).unwrap();
        assert!(status.success(), "{controller}: exit {status:?}:\n{output}");
        assert!(output.contains("summary: stopped on request") && output.contains("0 lock-step timeouts"), "{output}");
        assert!(output.contains("1 robots controlled (mhp_0)"), "{output}");
        eprintln!(
            "{controller}: {:.1}x real time (tank summary), whole launch {:.1} s wall",
            real_time_factor(&output).unwrap_or(f64::NAN),
            started.elapsed().as_secs_f64()
        );
        // Nothing of this run must leak into the next one.
        let (quiet, limit) = (Duration::from_millis(300), Duration::from_secs(10));
        drain(&mut readings, quiet, limit).await;
        drain(&mut states, quiet, limit).await;
        drain(&mut crossings, quiet, limit).await;
        drain(&mut layouts, quiet, limit).await;
        drain(&mut markers, quiet, limit).await;
    }
}

#[test]
fn a_bad_configuration_stops_the_launch_with_the_reason() {
    let domain = Domain::reserve().unwrap();
    // A configuration is a name or a robot file: the node refuses it naming both forms,
    // and the launch exits 2 with it.
    let launch = Launch::start("launch/mhp_tank.launch.yaml", &["configuration:=5X"], &domain).unwrap();
    let (status, output) = launch.wait(Duration::from_secs(40)).unwrap();
    assert_eq!(status.code(), Some(2), "{output}");
    assert!(output.contains("unknown configuration `5X`: expected one of 1, 2, 3I") && output.contains("file:PATH"), "{output}");
    // The controller's choices are declared: the launcher refuses them by name before
    // starting anything (ros2 launch does the same).
    let launch = Launch::start("launch/mhp_tank.launch.yaml", &["controller:=pid"], &domain).unwrap();
    let (status, output) = launch.wait(Duration::from_secs(40)).unwrap();
    assert_eq!(status.code(), Some(2), "{output}");
    assert!(output.contains("argument 'controller' = 'pid' is not one of: decentralised"), "{output}");
}

#[test]
fn bad_parameters_exit_2_naming_the_key() {
    let domain = Domain::reserve().unwrap();
    let tank = |body: &str| format!("mhp_tank:\n  ros__parameters:\n{body}");
    let cases = [
        ("mhp_tank", tank("    robot: {configuration: 5X}\n"), "robot.configuration"),
        ("mhp_tank", tank("    robot: {name: '7up'}\n"), "robot.name"),
        ("mhp_tank", tank("    modules: {flow_ml_s: -11}\n"), "modules.flow_ml_s"),
        ("mhp_tank", tank("    tank: {torch_x: 0.2}\n"), "tank.torch_x"),
        ("mhp_tank", tank("    tank: {water_depth: 0.5}\n"), "tank.water_depth"),
        (
            "robot_controller",
            "robot_controller:\n  ros__parameters:\n    kind: mhp_square\n    mhp_controller: pid\n".to_owned(),
            "mhp_controller",
        ),
    ];
    let cases: Vec<(&str, &str, &str)> = cases.iter().map(|(exe, text, key)| (*exe, text.as_str(), *key)).collect();
    flotilla_e2e::assert_bad_parameters_refused(&domain, &cases);
}

#[test]
fn the_overhead_tracker_follows_every_module() {
    let domain = Domain::reserve().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let csv = scratch.path().join("tracks.csv");
    let csv_arg = format!("tracks_csv:={}", csv.display());
    // 16 s: the crossing is at ~8 s and the robot then rests past the line, so the last
    // frames the camera renders on a loaded machine (it lags the sim) still show it there.
    let args = ["camera:=true", "duration:=16", "real_time_factor:=1.0", csv_arg.as_str()];
    let launch = Launch::start("launch/mhp_tank.launch.yaml", &args, &domain).unwrap();
    let (status, output) = launch.wait(Duration::from_secs(90)).unwrap();
    assert!(status.success(), "{output}");
    let text = std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{}: {e}\n{output}", csv.display()));
    // frame,time,id,x,y,...: one row per track per frame.
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let ids: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[2]).collect();
    assert_eq!(ids.len(), 4, "one track per module, no identity switch: {ids:?}\n{output}");
    let frames: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[0]).collect();
    // 16 s at 30 Hz is 480 frames; on a loaded machine the camera may render fewer, but
    // every frame tracked has all four modules.
    assert!(frames.len() >= 150 && rows.len() == 4 * frames.len(), "{} rows over {} frames", rows.len(), frames.len());
    // The modules' mean x: behind the start line at first, past the finish line at the end.
    let mean_x = |frame: &str| {
        let xs: Vec<f64> = rows.iter().filter(|r| r[0] == frame).map(|r| r[3].parse::<f64>().unwrap()).collect();
        xs.iter().sum::<f64>() / xs.len() as f64
    };
    let (first, last) = (frames.iter().min_by_key(|f| f.parse::<u64>().unwrap()), frames.iter().max_by_key(|f| f.parse::<u64>().unwrap()));
    let (x0, x1) = (mean_x(first.unwrap()), mean_x(last.unwrap()));
    assert!(x0 < -0.05 && x1 > 0.45, "tracked centroid x {x0} -> {x1} m");
}

/// `/tank/pause` (served by `flotilla_common::ros::serve_pause`, as in blueswarm_tank and
/// kilobot_table): paused, sim time stands still; resumed, it runs on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_stops_sim_time_and_resume_runs_it_on() {
    use r2r::std_srvs::srv::SetBool;
    let mut probe = RosProbe::new("probe_mhp_pause").unwrap();
    let pause = probe.with_node(|n| n.create_client::<SetBool::Service>("/tank/pause", r2r::QosProfile::default())).unwrap();
    let ready = probe.with_node(|_| r2r::Node::is_available(&pause)).unwrap();
    let mut clock = probe.subscribe::<r2r::rosgraph_msgs::msg::Clock>("/clock").unwrap();
    probe.spin();
    let launch = Launch::start("launch/mhp_tank.launch.yaml", &["configuration:=4T", "seed:=0", "duration:=0"], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(30), ready).await.expect("/tank/pause did not appear").unwrap();
    let seconds = |c: &r2r::rosgraph_msgs::msg::Clock| c.clock.sec as f64 + c.clock.nanosec as f64 * 1e-9;
    let latest = |got: Vec<r2r::rosgraph_msgs::msg::Clock>| got.last().map(seconds);
    let running = latest(collect_until(&mut clock, Duration::from_secs(20), |c: &[_]| c.len() >= 5).await);
    assert!(running.is_some(), "no /clock:\n{}", launch.output());

    let r = flotilla_e2e::answered(pause.request(&SetBool::Request { data: true }).unwrap(), "pause").await;
    assert!(r.success && r.message == "paused", "{r:?}");
    drain(&mut clock, Duration::from_millis(300), Duration::from_secs(5)).await;
    let quiet = collect_until(&mut clock, Duration::from_secs(1), |_: &[_]| false).await;
    let (first, last) = (quiet.first().map(seconds), quiet.last().map(seconds));
    assert_eq!(first, last, "sim time moved while paused: {} /clock messages", quiet.len());

    let r = flotilla_e2e::answered(pause.request(&SetBool::Request { data: false }).unwrap(), "resume").await;
    assert!(r.success && r.message == "running", "{r:?}");
    let resumed = latest(collect_until(&mut clock, Duration::from_secs(20), |c: &[_]| c.len() >= 10).await);
    assert!(resumed > running, "sim time did not run on after resume: {running:?} -> {resumed:?}");
    let (status, output) = launch.interrupt(Duration::from_secs(20)).unwrap();
    assert_eq!(status.code(), Some(0), "{output}");
}

/// Regression: a `/<robot>/layout` whose thruster sits on a face beyond the robot's faces
/// (face 9 of 4) panicked the centralised controller at its first reading (index out of
/// bounds), poisoning the controller host: every robot stopped and the summary said `0
/// robots controlled`. The layout is refused with the reason, the robot listed as
/// refused, and the node keeps serving and exits 0 on Ctrl-C.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_layout_that_does_not_fit_its_faces_is_refused_not_a_panic() {
    use r2r::flotilla_msgs::msg::{MhpThruster, ModuleState};
    let mut probe = RosProbe::new("probe_mhp_bad_layout").unwrap();
    let latched = r2r::QosProfile::default().transient_local().keep_last(1);
    let layout = probe.with_node(|n| n.create_publisher::<MhpLayout>("/mhp_0/layout", latched)).unwrap();
    let states = probe.with_node(|n| n.create_publisher::<TankState>("/tank/state", r2r::QosProfile::default())).unwrap();
    let sensors = probe.with_node(|n| n.create_publisher::<MhpSensors>("/mhp_0/sensors", r2r::QosProfile::default())).unwrap();
    probe.spin();
    let mut thruster = MhpThruster { face: 9, force: 1.0, ..Default::default() };
    thruster.direction.x = 1.0;
    layout.publish(&MhpLayout { faces_per_module: 4, faces: 4, thrusters: vec![thruster], ..Default::default() }).unwrap();
    let mut cmd = std::process::Command::new(flotilla_e2e::bin("robot_controller"));
    cmd.args(["--ros-args", "-p", "kind:=mhp_square", "-p", "mhp_controller:=centralised"]);
    let controller = Launch::spawn(cmd, &probe.domain).unwrap();
    let state = TankState {
        modules: vec![ModuleState { id: 0, name: "mhp_0".into(), kind: "mhp_square".into(), ..Default::default() }],
        ..Default::default()
    };
    // A reading that would fire the thruster (target ahead along +x).
    let mut reading = MhpSensors { connected: vec![false; 4], target_seen: vec![false; 4], has_navigation: true, ..Default::default() };
    reading.target.x = 1.0;
    reading.orientation.w = 1.0;
    reading.header.stamp.sec = 1;
    let refused = |out: &str| out.contains("thruster layout is refused: thruster 0: face 9 is not one of the 4 faces");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !refused(&controller.output()) && Instant::now() < deadline {
        states.publish(&state).unwrap();
        sensors.publish(&reading).unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(refused(&controller.output()), "{}", controller.output());
    // Readings go on arriving; the node stays up.
    for _ in 0..5 {
        sensors.publish(&reading).unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, output) = tokio::task::block_in_place(|| controller.interrupt(Duration::from_secs(10))).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
    assert!(!output.contains("panicked"), "{output}");
    assert!(output.contains("refused: mhp_0"), "{output}");
}
