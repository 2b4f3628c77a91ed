//! The real ROS 2 Jazzy `ros2` command line drives the nodes as the README documents:
//! `ros2 topic echo`, `ros2 service call` (a refused request answered with its reason, the
//! node serving on), `ros2 action send_goal --feedback` on the MoleMOD executor. The
//! messages of `flotilla_msgs` must reach the CLI's Python type support for any of this.
//!
//! The real `ros2` comes from the test kit beside the project (`FLOTILLA_ROS2_CLI_ENV`,
//! installed by `scripts/test.sh`) or from a sourced ROS 2; without either the tests say
//! so and stop.

use std::process::Command;
use std::time::{Duration, Instant};

use flotilla_e2e::{bin, repo_root, ros2, skip_without_cli, Domain, Launch};

/// `ros2 <args>` repeated until its output holds `want` (the node may not be discovered
/// yet), up to `timeout`: the last output.
fn ros2_until(cli: &Command, domain: u32, args: &[&str], want: &str, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        let (_, out) = ros2(cli, domain, args);
        if out.contains(want) {
            return out;
        }
        assert!(Instant::now() < deadline, "`ros2 {}` never printed `{want}`:\n{out}", args.join(" "));
        std::thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn topics_and_services_answer_the_real_cli() {
    let Some(cli) = skip_without_cli() else { return };
    let domain = Domain::reserve().unwrap();
    let mut cmd = Command::new(bin("tank_physics"));
    cmd.args(["--ros-args", "--params-file"]).arg(repo_root().join("config/lily_15.yaml"));
    let tank = Launch::spawn(cmd, &domain).unwrap();
    let minute = Duration::from_secs(60);

    let out = ros2_until(&cli, domain.id, &["topic", "echo", "/tank/state", "--once", "--no-daemon"], "sim_time:", minute);
    assert!(out.contains("name: lily_0") && out.contains("frame_id: world"), "{out}");
    let out = ros2_until(&cli, domain.id, &["interface", "show", "flotilla_msgs/srv/SpawnModule"], "---", minute);
    assert!(out.contains("string kind"), "{out}");

    let call = |service: &str, kind: &str, request: &str, want: &str| {
        ros2_until(&cli, domain.id, &["service", "call", service, kind, request], want, minute)
    };
    call("/tank/pause", "std_srvs/srv/SetBool", "{data: true}", "success=True");
    let out = call("/tank/spawn", "flotilla_msgs/srv/SpawnModule", "{kind: submarine}", "success=False");
    assert!(out.contains("unknown module kind `submarine`") && out.contains("lily"), "{out}");
    // Refused, and still serving.
    call("/tank/pause", "std_srvs/srv/SetBool", "{data: false}", "success=True");

    let (status, output) = tank.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "tank_physics exit {status:?}:\n{output}");
}

#[test]
fn the_molemod_plan_runs_from_ros2_action_send_goal() {
    let Some(cli) = skip_without_cli() else { return };
    let domain = Domain::reserve().unwrap();
    let launch = Launch::start("launch/molemod.launch.yaml", &["real_time_factor:=0"], &domain).unwrap();
    // The README's command, as a user types it.
    let args = ["action", "send_goal", "/molemod_physics/execute", "flotilla_msgs/action/ExecutePlan", "{}", "--feedback"];
    let out = ros2_until(&cli, domain.id, &args, "Goal finished with status", Duration::from_secs(120));
    assert!(out.contains("Goal finished with status: SUCCEEDED"), "{out}");
    assert!(out.contains("motion_name: crawl forward") && out.contains("event: step_checked"), "feedback missing:\n{out}");
    assert!(out.contains("steps_done: 2"), "{out}");
    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "launch exit {status:?}:\n{output}");
    assert!(output.contains("1 goals succeeded"), "{output}");
}
