//! Foundation end-to-end tests: the tank slice through the launcher, shutdown, bad input,
//! and a second, independent ROS client (rclpy).

use std::process::Command;
use std::time::{Duration, Instant};

use flotilla_e2e::{bin, collect_until, repo_root, temp_file, Launch, RosProbe};
use r2r::flotilla_msgs::msg::TankState;
use r2r::rosgraph_msgs::msg::Clock;

/// Round tank radius of the scenarios, m.
const TANK_RADIUS: f64 = 0.30;

fn secs(t: &r2r::builtin_interfaces::msg::Time) -> f64 {
    t.sec as f64 + t.nanosec as f64 * 1e-9
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slice_publishes_advancing_clock_and_state_with_balls_inside_the_tank() {
    let mut probe = RosProbe::new("probe_slice").unwrap();
    let mut clock = probe.subscribe::<Clock>("/clock").unwrap();
    let mut state = probe.subscribe::<TankState>("/tank/state").unwrap();
    probe.spin();
    let launch = Launch::start("launch/pingpong_24.launch.yaml", &["real_time_factor:=4.0"], &probe.domain).unwrap();

    let ticks = collect_until(&mut clock, Duration::from_secs(30), |c: &[Clock]| c.last().is_some_and(|c| secs(&c.clock) >= 10.0)).await;
    let states = collect_until(&mut state, Duration::from_secs(10), |s: &[TankState]| s.len() >= 30).await;
    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();

    assert!(
        ticks.last().is_some_and(|c| secs(&c.clock) >= 10.0),
        "/clock did not reach 10 s of sim time ({} messages); output:\n{output}",
        ticks.len()
    );
    for pair in ticks.windows(2) {
        assert!(secs(&pair[1].clock) > secs(&pair[0].clock), "/clock went backwards: {:?}", pair);
    }
    assert!(states.len() >= 30, "only {} /tank/state messages; output:\n{output}", states.len());
    for s in &states {
        assert_eq!(s.modules.len(), 24, "scenario has 24 balls");
        for m in &s.modules {
            let r = m.pose.position.x.hypot(m.pose.position.y);
            assert!(r < TANK_RADIUS, "{} at r = {r:.3} m is outside the tank at t = {}", m.name, s.sim_time);
            assert_eq!(m.kind, "ping_pong_ball");
        }
    }
    assert!(status.success(), "launcher exit {status:?} after SIGINT; output:\n{output}");
}

#[test]
fn demo_stops_by_itself_with_a_summary() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let launch = Launch::start("launch/demo.launch.yaml", &["duration:=5", "real_time_factor:=0"], &domain).unwrap();
    let (status, output) = launch.wait(Duration::from_secs(60)).unwrap();
    assert!(status.success(), "exit {status:?}; output:\n{output}");
    assert!(output.contains("summary: reached max_sim_time"), "no summary in:\n{output}");
}

#[test]
fn nodes_exit_zero_within_two_seconds_of_sigint_and_sigterm() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let nodes = [
        ("tank_physics", "config/pingpong_24.yaml", "tank_physics running"),
        ("reconfig_planner", "config/reconfig_planner.yaml", "reconfig_planner ready"),
    ];
    for (exe, params, ready) in nodes {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            let mut cmd = Command::new(bin(exe));
            cmd.args(["--ros-args", "--params-file"]).arg(repo_root().join(params));
            let launch = Launch::spawn(cmd, &domain).unwrap();
            let t0 = Instant::now();
            while !launch.output().contains(ready) && t0.elapsed() < Duration::from_secs(20) {
                std::thread::sleep(Duration::from_millis(50));
            }
            assert!(launch.output().contains(ready), "{exe} did not start:\n{}", launch.output());
            // No pause: the nodes catch signals from before they say they are ready.
            // SAFETY: signalling our own child.
            unsafe { libc::kill(launch.pid() as i32, signal) };
            let sent = Instant::now();
            let (status, output) = launch.wait(Duration::from_secs(10)).unwrap();
            let took = sent.elapsed();
            assert!(status.success(), "{exe}, signal {signal}: exit {status:?}; output:\n{output}");
            assert!(took < Duration::from_secs(2), "{exe}, signal {signal}: took {took:?} to exit");
        }
    }
}

#[test]
fn nodes_reject_bad_parameter_values_naming_the_key() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let cases = [
        ("tank_physics", "tank_physics:\n  ros__parameters:\n    hydro: {kv: 70.0}\n", "hydro.kv"),
        ("tank_physics", "tank_physics:\n  ros__parameters:\n    modules: [{kind: lily}]\n", "modules"),
        ("reconfig_planner", "reconfig_planner:\n  ros__parameters:\n    max_time: -1.0\n", "max_time"),
        ("reconfig_planner", "reconfig_planner:\n  ros__parameters:\n    repertoire: minimal,fly\n", "`fly`"),
        // Regression: `[a:b:c]` reads as strings to our loader but rcl refuses it; r2r
        // panicked on that. Now exit 2 with rcl's file and line.
        ("robot_controller", "robot_controller:\n  ros__parameters:\n    robots: [lily_0:lily:0]\n", "near line 3"),
    ];
    flotilla_e2e::assert_bad_parameters_refused(&domain, &cases);
}

#[test]
fn malformed_launch_file_fails_with_file_and_line() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let (_dir, path) =
        temp_file("bad.launch.yaml", "launch:\n- arg: {name: a, default: '1'}\n- node:\n    pkg: flotilla\n    exec: [tank_physics\n")
            .unwrap();
    let mut cmd = Command::new(bin("flotilla"));
    cmd.arg("launch").arg(&path);
    let (status, output) = Launch::spawn(cmd, &domain).unwrap().wait(Duration::from_secs(20)).unwrap();
    assert!(!status.success(), "a malformed launch file must fail; output:\n{output}");
    assert!(output.contains("bad.launch.yaml:"), "error does not name file:line:\n{output}");
}

#[test]
fn unknown_launch_argument_is_rejected_with_the_known_ones() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let launch = Launch::start("launch/demo.launch.yaml", &["durration:=5"], &domain).unwrap();
    let (status, output) = launch.wait(Duration::from_secs(20)).unwrap();
    assert!(!status.success(), "output:\n{output}");
    assert!(output.contains("durration"), "{output}");
    assert!(output.contains("duration"), "known arguments not listed:\n{output}");
}

#[test]
fn malformed_parameter_file_fails_naming_the_file_and_key() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let scenario = std::fs::read_to_string(repo_root().join("config/pingpong_24.yaml")).unwrap();
    // A typo'd key inside the real scenario: the node must name it.
    let typo = scenario.replacen("ros__parameters:", "ros__parameters:\n    real_time_factr: 2.0", 1);
    let (_d1, typo_path) = temp_file("typo.yaml", &typo).unwrap();
    let (_d2, syntax_path) = temp_file("syntax.yaml", "tank_physics:\n  ros__parameters:\n    dt: [0.025\n").unwrap();
    for (path, want) in [(&typo_path, "real_time_factr"), (&syntax_path, "syntax.yaml:")] {
        let arg = format!("scenario_file:={}", path.display());
        let launch = Launch::start("launch/tank.launch.yaml", &[&arg], &domain).unwrap();
        let (status, output) = launch.wait(Duration::from_secs(30)).unwrap();
        assert!(!status.success(), "{}: must fail; output:\n{output}", path.display());
        assert!(output.contains(want), "{}: error does not mention {want}:\n{output}", path.display());
    }
}

#[test]
fn rclpy_receives_clock_and_state_from_the_running_demo() {
    let domain = flotilla_e2e::Domain::reserve().unwrap();
    let launch = Launch::start("launch/demo.launch.yaml", &["duration:=0"], &domain).unwrap();
    let script = repo_root().join("tests/rclpy_probe.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(["--timeout", "30"])
        .env("ROS_DOMAIN_ID", domain.id.to_string())
        .env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
        .output()
        .unwrap();
    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    let py = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "rclpy probe failed:\n{py}\nlaunch output:\n{output}");
    assert!(py.contains("clock ok") && py.contains("tank_state ok"), "{py}");
    assert!(status.success(), "launch exit {status:?}:\n{output}");
}
