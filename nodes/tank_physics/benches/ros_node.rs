//! The tank physics node through ROS, as fast as it can go: 60 s of sim time at 25 ms steps
//! (10 sections per face) while it publishes `/tank/state` + `/tf` at 30 Hz, `/clock` every
//! step, sensors and markers at 10 Hz, and this bench subscribes to the state. Reported as
//! ratios to real time: wall time from resuming the (paused, subscribed) node to its exit
//! and the node's CPU time (all threads, DDS and start-up included), beside the in-process library on the same scenario in the same
//! run. Goal (issue #3): >= 100 x real time through ROS for 24 balls.
//!
//! `scripts/isolated.sh cargo bench -p tank_physics --bench ros_node` (own network
//! namespace, loopback only; `ROS_DOMAIN_ID` from the environment, else 93).

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::task::LocalSpawnExt as _;
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

/// Runs the node binary on `params_yaml` (which starts it paused) until `max_sim_time`:
/// waits until this bench's subscription is matched, resumes the world and times it.
fn run_node(params_yaml: &str) -> NodeRun {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(params_yaml.as_bytes()).expect("writing parameters");

    let ctx = r2r::Context::create().expect("ROS context");
    let mut node = r2r::Node::create(ctx, "ros_node_bench", "").expect("bench node");
    let received = Arc::new(AtomicUsize::new(0));
    let mut states = node
        .subscribe::<r2r::flotilla_msgs::msg::TankState>("/tank/state", r2r::QosProfile::default())
        .expect("subscribing to /tank/state");
    let pause = node
        .create_client::<r2r::std_srvs::srv::SetBool::Service>("/tank/pause", r2r::QosProfile::default())
        .expect("client of /tank/pause");
    let mut pool = futures::executor::LocalPool::new();
    let spawner = pool.spawner();
    let counter = received.clone();
    spawner
        .spawn_local(async move {
            while states.next().await.is_some() {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        })
        .expect("spawning the counter");

    let cpu_before = children_cpu_time();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tank_physics"))
        .args(["--ros-args", "--params-file"])
        .arg(file.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting tank_physics");
    let spin = |node: &mut r2r::Node, pool: &mut futures::executor::LocalPool| {
        node.spin_once(Duration::from_millis(2));
        pool.run_until_stalled();
    };
    // Discovered (service up), then half a second for the state subscription to match,
    // before the world moves.
    let available = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = available.clone();
    let service_up = r2r::Node::is_available(&pause).expect("service availability");
    spawner
        .spawn_local(async move {
            if service_up.await.is_ok() {
                flag.store(true, Ordering::Release);
            }
        })
        .expect("spawning the availability wait");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !available.load(Ordering::Acquire) {
        assert!(Instant::now() < deadline, "the node did not come up");
        spin(&mut node, &mut pool);
    }
    let settle = Instant::now() + Duration::from_millis(500);
    while Instant::now() < settle {
        spin(&mut node, &mut pool);
    }
    let resumed = pause.request(&r2r::std_srvs::srv::SetBool::Request { data: false }).expect("resume request");
    let response = Arc::new(std::sync::Mutex::new(None));
    let slot = response.clone();
    spawner
        .spawn_local(async move {
            let r = resumed.await;
            if let Ok(mut s) = slot.lock() {
                *s = Some(r.map(|r| r.success).unwrap_or(false));
            }
        })
        .expect("spawning the resume");
    let start = loop {
        spin(&mut node, &mut pool);
        if let Some(ok) = *response.lock().expect("response slot") {
            assert!(ok, "resume refused");
            break Instant::now();
        }
    };
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for tank_physics") {
            break status;
        }
        spin(&mut node, &mut pool);
    };
    let wall = start.elapsed();
    let cpu = children_cpu_time() - cpu_before;
    for _ in 0..100 {
        spin(&mut node, &mut pool);
    }
    let output = child.wait_with_output().expect("tank_physics output");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(status.success() && text.contains("reached max_sim_time"), "tank_physics failed:\n{text}");
    NodeRun {
        wall_ratio: SIM_SECONDS / wall.as_secs_f64(),
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
            "ros__parameters:\n    run: {{real_time_factor: 0.0, max_sim_time: {SIM_SECONDS}, start_paused: true}}\n    \
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
            scenario("pingpong_24.yaml", "").replace("count: 24", "count: 200").replace("diameter: 0.6 ", "diameter: 1.2 "),
        ),
    ];
    println!("{:<24} {:>10} {:>12} {:>12} {:>16}", "scenario", "library", "node wall", "node CPU", "states received");
    for (label, params) in cases {
        let library = in_process_ratio(&params);
        let run = run_node(&params);
        let expected = (SIM_SECONDS * 30.0) as usize;
        println!("{label:<24} {library:>9.0}x {:>11.0}x {:>11.0}x {:>9} / {expected}", run.wall_ratio, run.cpu_ratio, run.states_received);
    }
}
