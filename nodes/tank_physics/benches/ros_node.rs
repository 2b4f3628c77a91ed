//! The tank physics node through ROS, as fast as it can go: 60 s of sim time at 25 ms steps
//! (10 sections per face) while it publishes `/tank/state` + `/tf` at 30 Hz, `/clock` every
//! step, sensors and markers at 10 Hz, and this bench subscribes to the state. Reported as
//! ratios to real time: the node's wall time (its own summary line) and its CPU time (all
//! threads, DDS included), beside the in-process library on the same scenario in the same
//! run. Goal (issue #3): >= 100 x real time through ROS for 24 balls.
//!
//! `scripts/isolated.sh cargo bench -p tank_physics --bench ros_node` (own network
//! namespace, loopback only; `ROS_DOMAIN_ID` from the environment, else 93).

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use tank_physics::{World, WorldConfig};

const SIM_SECONDS: f64 = 60.0;

/// CPU time (user + system) of every reaped child process so far.
fn children_cpu_time() -> Duration {
    // SAFETY: getrusage writes one rusage struct into the valid pointer we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Sim seconds per wall second of the in-process library on the same parameters.
fn in_process_ratio(params_yaml: &str) -> f64 {
    let tree: serde_yaml::Value = serde_yaml::from_str(params_yaml).expect("bench parameters");
    let mut world_tree = tree["tank_physics"]["ros__parameters"].clone();
    if let Some(m) = world_tree.as_mapping_mut() {
        for section in ["run", "publish", "record"] {
            m.remove(section);
        }
    }
    let config = WorldConfig::from_params(&world_tree).expect("bench world");
    let mut world = World::new(config, 1).expect("bench world");
    let steps = (SIM_SECONDS / world.config().dt).round() as u64;
    let start = Instant::now();
    for _ in 0..steps {
        world.step();
    }
    SIM_SECONDS / start.elapsed().as_secs_f64()
}

struct NodeRun {
    wall_ratio: f64,
    cpu_ratio: f64,
    states_received: usize,
}

/// Runs the node binary on `params_yaml` until `max_sim_time`, subscribed to its state.
fn run_node(params_yaml: &str) -> NodeRun {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(params_yaml.as_bytes()).expect("writing parameters");

    let ctx = r2r::Context::create().expect("ROS context");
    let mut node = r2r::Node::create(ctx, "ros_node_bench", "").expect("bench node");
    let received = Arc::new(AtomicUsize::new(0));
    let mut states = node
        .subscribe::<r2r::flotilla_msgs::msg::TankState>("/tank/state", r2r::QosProfile::default())
        .expect("subscribing to /tank/state");
    let counter = received.clone();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spin_done = done.clone();
    let spinner = std::thread::spawn(move || {
        let mut pool = futures::executor::LocalPool::new();
        let counting = async move {
            while states.next().await.is_some() {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        };
        let spawner = pool.spawner();
        futures::task::LocalSpawnExt::spawn_local(&spawner, counting).expect("spawning the counter");
        while !spin_done.load(Ordering::Acquire) {
            node.spin_once(Duration::from_millis(5));
            pool.run_until_stalled();
        }
    });
    // Discovery before the run, so the first seconds of state are not lost.
    std::thread::sleep(Duration::from_millis(500));

    let cpu_before = children_cpu_time();
    let output = Command::new(env!("CARGO_BIN_EXE_tank_physics"))
        .args(["--ros-args", "--params-file"])
        .arg(file.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("running tank_physics");
    let cpu = children_cpu_time() - cpu_before;
    std::thread::sleep(Duration::from_millis(200));
    done.store(true, Ordering::Release);
    spinner.join().expect("spinner");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "tank_physics failed:\n{text}");
    // "summary: ... after 60.00 s of sim time in 0.41 s wall (146.3x real time) ..."
    let wall = text
        .split("s of sim time in ")
        .nth(1)
        .and_then(|rest| rest.split(" s wall").next())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no summary line in:\n{text}"));
    NodeRun {
        wall_ratio: SIM_SECONDS / wall,
        cpu_ratio: SIM_SECONDS / cpu.as_secs_f64(),
        states_received: received.load(Ordering::Relaxed),
    }
}

/// A scenario file's parameters with the bench's run settings.
fn scenario(file: &str, extra: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/").to_owned() + file;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.replacen(
        "ros__parameters:",
        &format!(
            "ros__parameters:\n    run: {{real_time_factor: 0.0, max_sim_time: {SIM_SECONDS}}}\n    \
             publish: {{state_rate: 30.0, sensor_rate: 10.0, marker_rate: 10.0}}\n{extra}"
        ),
        1,
    )
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("ros_node: run with `cargo bench` for measurements");
        return;
    }
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    if std::env::var_os("ROS_DOMAIN_ID").is_none() {
        std::env::set_var("ROS_DOMAIN_ID", "93");
    }
    let cases = [
        ("24 balls (pingpong_24)", scenario("pingpong_24.yaml", "")),
        ("15 Lilies (lily_15)", scenario("lily_15.yaml", "")),
        (
            "200 balls, 1.2 m tank",
            scenario("pingpong_24.yaml", "")
                .replace("count: 24", "count: 200")
                .replace("diameter: 0.6 ", "diameter: 1.2 "),
        ),
    ];
    println!("{:<24} {:>10} {:>12} {:>12} {:>16}", "scenario", "library", "node wall", "node CPU", "states received");
    for (label, params) in cases {
        let library = in_process_ratio(&params);
        let run = run_node(&params);
        let expected = (SIM_SECONDS * 30.0) as usize;
        println!(
            "{label:<24} {library:>9.0}x {:>11.0}x {:>11.0}x {:>9} / {expected}",
            run.wall_ratio, run.cpu_ratio, run.states_received
        );
    }
}
