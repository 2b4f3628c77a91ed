//! Sensing scale through the node: N sensing robots (Lilies) in a rectangular tank sized
//! for a constant density (0.01 m^2 per robot), the `tank_physics` node as fast as it can
//! go, every robot's `/<name>/sensors` at 10 Hz of sim time, `/tank/state` + `/tf` and
//! `/tank/markers` at the rates given (default: the node's own defaults, 30 Hz and 10 Hz,
//! what a user running the node keeps). This bench subscribes to `/tank/state` only
//! (the per-robot readings have no subscriber here: docs/swarm_scale.md, swarm interface
//! for the delivered case).
//!
//! Per N: the node starts paused; once its `/tank/pause` service is up (all per-robot
//! topics are created before the node spins) and 0.5 s more for the state subscription to
//! match, the bench resumes it and stops it (SIGINT) at the first state whose sim time
//! reaches the run's length, or at the wall-time bound (then the sim time reached is the
//! figure). Reported: sim s per wall s and per node CPU s (from /proc between resume and
//! stop), states received, node CPU per robot relative to the smallest N, the node's
//! memory and threads at the stop, and the in-process library (physics + every robot's
//! reading at the sensor rate, no ROS) on the same world for the same sim time.
//!
//! `scripts/isolated.sh cargo bench -p tank_physics --bench sensing_node [-- --n 1024]`
//! Options: `--n 64,256` (default 64,256,1024,4096), `--sim-seconds S` (default
//! 7680 / N clamped to [2, 60]), `--timeout S` (wall bound per run, default 240),
//! `--state-rate HZ` (30), `--marker-rate HZ` (10), `--sensor-rate HZ` (10),
//! `--params FILE` (default config/bench_sensing.yaml; config/bench_sensing_batched.yaml
//! for the batched interface), `--no-library`, `--idle S` (how
//! long the node's CPU is sampled while paused before resuming, default 3; 0 = skip),
//! `--viewer` (also subscribe to `/tf` and `/tank/markers`, as rviz would: the node makes
//! those only for a subscriber).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use futures::task::LocalSpawnExt as _;
use futures::StreamExt;
use serde_yaml::Value;
use tank_physics::robots::{is_robot, RobotBus};
use tank_physics::{World, WorldConfig};

#[path = "support/process.rs"]
mod process;
use process::{process_cpu, process_memory, NodeProcess};

/// Floor area per robot, m^2: the density kept constant across N.
const AREA_PER_ROBOT: f64 = 0.01;
/// Wait after the node's service is up, for the state subscription to match.
const SETTLE: Duration = Duration::from_millis(500);

struct Options {
    counts: Vec<usize>,
    sim_seconds: Option<f64>,
    timeout: Duration,
    state_rate: f64,
    marker_rate: f64,
    sensor_rate: f64,
    params: std::path::PathBuf,
    library: bool,
    idle: Duration,
    viewer: bool,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut o = Self {
            counts: vec![64, 256, 1024, 4096],
            sim_seconds: None,
            timeout: Duration::from_secs(240),
            state_rate: 30.0,
            marker_rate: 10.0,
            sensor_rate: 10.0,
            params: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/bench_sensing.yaml"),
            library: true,
            idle: Duration::from_secs(3),
            viewer: false,
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
            let number = |name: &str, v: &String| v.parse::<f64>().with_context(|| format!("{name} {v}: not a number"));
            match arg.as_str() {
                "--bench" => {}
                "--n" => {
                    let v = value("--n")?;
                    o.counts =
                        v.split(',').map(|s| s.trim().parse::<usize>().with_context(|| format!("--n {v}"))).collect::<Result<_, _>>()?;
                }
                "--sim-seconds" => o.sim_seconds = Some(number("--sim-seconds", value("--sim-seconds")?)?),
                "--timeout" => o.timeout = Duration::from_secs_f64(number("--timeout", value("--timeout")?)?),
                "--state-rate" => o.state_rate = number("--state-rate", value("--state-rate")?)?,
                "--marker-rate" => o.marker_rate = number("--marker-rate", value("--marker-rate")?)?,
                "--sensor-rate" => o.sensor_rate = number("--sensor-rate", value("--sensor-rate")?)?,
                "--params" => o.params = value("--params")?.into(),
                "--no-library" => o.library = false,
                "--idle" => o.idle = Duration::from_secs_f64(number("--idle", value("--idle")?)?),
                "--viewer" => o.viewer = true,
                other => bail!("unknown option {other} (see the bench's header comment)"),
            }
        }
        Ok(o)
    }

    /// Sim seconds of the run for `n` robots: shorter for large N so each run stays
    /// within minutes.
    fn sim_seconds(&self, n: usize) -> f64 {
        self.sim_seconds.unwrap_or_else(|| (7680.0 / n as f64).clamp(2.0, 60.0))
    }
}

/// Side of the square tank for `n` robots at the bench's density, m.
fn tank_side(n: usize) -> f64 {
    (AREA_PER_ROBOT * n as f64).sqrt()
}

/// The parameter tree of `file` with `n` robots in a tank of the bench's density.
fn world_tree(file: &std::path::Path, n: usize) -> anyhow::Result<Value> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut tree: Value = serde_yaml::from_str(&text).with_context(|| format!("parsing {}", file.display()))?;
    let params = tree
        .get_mut("tank_physics")
        .and_then(|t| t.get_mut("ros__parameters"))
        .with_context(|| format!("{}: no tank_physics.ros__parameters", file.display()))?;
    let side = tank_side(n);
    params["arena"]["size_x"] = side.into();
    params["arena"]["size_y"] = side.into();
    let groups = params["modules"].as_mapping_mut().with_context(|| format!("{}: no modules", file.display()))?;
    if groups.len() != 1 {
        bail!("{}: the bench sets the count of exactly one module group", file.display());
    }
    for (_, group) in groups.iter_mut() {
        group["count"] = (n as u64).into();
    }
    Ok(tree)
}

/// Sim seconds per wall second of the library on the same world: physics steps and every
/// robot's reading at the sensor rate, up to `sim_seconds` or the wall bound.
fn library_ratio(tree: &Value, sim_seconds: f64, sensor_rate: f64, bound: Duration) -> anyhow::Result<f64> {
    let mut world_tree = tree["tank_physics"]["ros__parameters"].clone();
    // The node's own sections are not the world's.
    if let Some(m) = world_tree.as_mapping_mut() {
        for section in ["run", "publish", "record", "robots"] {
            m.remove(section);
        }
    }
    let config = WorldConfig::from_params(&world_tree).context("bench world parameters")?;
    let mut world = World::new(config, 1).context("building the bench world")?;
    let mut bus = RobotBus::default();
    let dt = world.config().dt;
    let start = Instant::now();
    while world.time() + 0.5 * dt < sim_seconds && start.elapsed() < bound {
        world.step();
        let t = world.time();
        if ((t * sensor_rate) + 1e-6).floor() > (((t - dt) * sensor_rate) + 1e-6).floor() {
            let bodies = world.bodies();
            for index in 0..bodies.len() {
                if is_robot(&bodies[index]) {
                    std::hint::black_box(bus.read(&bodies, index, t));
                }
            }
        }
    }
    Ok(world.time() / start.elapsed().as_secs_f64())
}

/// One run of the node.
struct NodeRun {
    startup: Duration,
    /// Node CPU share while paused (no stepping, nothing published): the per-endpoint
    /// cost of merely spinning, NaN when not sampled.
    idle_cpu: f64,
    sim_reached: f64,
    wall: Duration,
    cpu: Duration,
    states: usize,
    viewer: usize,
    rss_mib: f64,
    hwm_mib: f64,
    threads: u64,
    complete: bool,
}

/// What the state subscription (and the viewer's, with `--viewer`) has seen.
#[derive(Default)]
struct Seen {
    states: usize,
    last_sim_time: f64,
    /// `/tf` and `/tank/markers` messages.
    viewer: usize,
}

/// The bench's ROS side, kept across runs: one state subscription and one pause client.
struct Probe {
    node: r2r::Node,
    pool: futures::executor::LocalPool,
    seen: Rc<RefCell<Seen>>,
    pause: r2r::Client<r2r::std_srvs::srv::SetBool::Service>,
}

impl Probe {
    fn new(viewer: bool) -> anyhow::Result<Self> {
        let ctx = r2r::Context::create().context("ROS context")?;
        let mut node = r2r::Node::create(ctx, "sensing_node_bench", "").context("bench node")?;
        let pool = futures::executor::LocalPool::new();
        let seen = Rc::new(RefCell::new(Seen::default()));
        let mut states = node.subscribe::<r2r::flotilla_msgs::msg::TankState>("/tank/state", r2r::QosProfile::default())?;
        let counter = seen.clone();
        pool.spawner().spawn_local(async move {
            while let Some(state) = states.next().await {
                // The state published at start (before resuming) is not part of the run.
                if state.sim_time > 1e-9 {
                    let mut s = counter.borrow_mut();
                    s.states += 1;
                    s.last_sim_time = s.last_sim_time.max(state.sim_time);
                }
            }
        })?;
        if viewer {
            let mut tf = node.subscribe::<r2r::tf2_msgs::msg::TFMessage>("/tf", r2r::QosProfile::default())?;
            let mut markers = node.subscribe::<r2r::visualization_msgs::msg::MarkerArray>("/tank/markers", r2r::QosProfile::default())?;
            let (on_tf, on_markers) = (seen.clone(), seen.clone());
            pool.spawner().spawn_local(async move {
                while tf.next().await.is_some() {
                    on_tf.borrow_mut().viewer += 1;
                }
            })?;
            pool.spawner().spawn_local(async move {
                while markers.next().await.is_some() {
                    on_markers.borrow_mut().viewer += 1;
                }
            })?;
        }
        let pause = node.create_client::<r2r::std_srvs::srv::SetBool::Service>("/tank/pause", r2r::QosProfile::default())?;
        Ok(Self { node, pool, seen, pause })
    }

    fn spin(&mut self) {
        self.node.spin_once(Duration::from_millis(2));
        self.pool.run_until_stalled();
    }
}

/// `/tank/pause` with `paused`; the answer's success, None if none came by `deadline`.
fn ask(probe: &mut Probe, paused: bool, deadline: Instant) -> anyhow::Result<Option<bool>> {
    let answer = Rc::new(RefCell::new(None));
    let slot = answer.clone();
    let reply = probe.pause.request(&r2r::std_srvs::srv::SetBool::Request { data: paused })?;
    probe.pool.spawner().spawn_local(async move {
        *slot.borrow_mut() = Some(reply.await.map(|r| r.success).unwrap_or(false));
    })?;
    while answer.borrow().is_none() && Instant::now() < deadline {
        probe.spin();
    }
    let result = *answer.borrow();
    Ok(result)
}

fn run_node(probe: &mut Probe, tree: &Value, sim_seconds: f64, bound: Duration, idle: Duration) -> anyhow::Result<NodeRun> {
    let spawner = probe.pool.spawner();
    let seen = probe.seen.clone();
    let spawned = Instant::now();
    let mut node = NodeProcess::spawn(env!("CARGO_BIN_EXE_tank_physics"), &serde_yaml::to_string(tree)?)?;
    let pid = node.pid();

    let up = Rc::new(RefCell::new(false));
    {
        let up = up.clone();
        let available = r2r::Node::is_available(&probe.pause)?;
        spawner.spawn_local(async move {
            if available.await.is_ok() {
                *up.borrow_mut() = true;
            }
        })?;
    }
    while !*up.borrow() {
        if spawned.elapsed() > bound || node.exited()?.is_some() {
            let log = node.stop()?;
            bail!("tank_physics did not come up within {bound:?}:\n{log}");
        }
        probe.spin();
    }
    let settle = Instant::now() + SETTLE;
    while Instant::now() < settle {
        probe.spin();
    }
    // The node answers once it spins, i.e. after every per-robot topic exists: a first
    // "pause" (it starts paused) marks the end of start-up.
    if ask(probe, true, spawned + bound)? != Some(true) {
        let log = node.stop()?;
        bail!("tank_physics did not answer /tank/pause within {bound:?}:\n{log}");
    }
    let ready = spawned.elapsed();
    let mut idle_cpu = f64::NAN;
    if !idle.is_zero() {
        let (from, cpu_from) = (Instant::now(), process_cpu(pid)?);
        while Instant::now() < from + idle {
            probe.spin();
        }
        idle_cpu = (process_cpu(pid)? - cpu_from).as_secs_f64() / from.elapsed().as_secs_f64();
    }
    if ask(probe, false, Instant::now() + bound)? != Some(true) {
        let log = node.stop()?;
        bail!("tank_physics did not resume:\n{log}");
    }
    let start = Instant::now();
    let startup = ready;
    *seen.borrow_mut() = Seen::default();
    let cpu_start = process_cpu(pid)?;
    let complete = loop {
        probe.spin();
        if seen.borrow().last_sim_time + 1e-6 >= sim_seconds {
            break true;
        }
        if start.elapsed() > bound {
            break false;
        }
        if let Some(status) = node.exited()? {
            bail!("tank_physics exited early ({status})");
        }
    };
    let wall = start.elapsed();
    let cpu = process_cpu(pid)? - cpu_start;
    let (rss_mib, hwm_mib, threads) = process_memory(pid)?;
    let sim_reached = seen.borrow().last_sim_time;
    let (states, viewer) = (seen.borrow().states, seen.borrow().viewer);
    let log = node.stop()?;
    if log.contains("panicked") {
        bail!("tank_physics panicked:\n{log}");
    }
    // Drain what is still in flight so that the next run starts from an empty queue.
    let drain = Instant::now() + SETTLE;
    while Instant::now() < drain {
        probe.spin();
    }
    Ok(NodeRun { startup, idle_cpu, sim_reached, wall, cpu, states, viewer, rss_mib, hwm_mib, threads, complete })
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("sensing_node: run with `cargo bench` for measurements");
        return Ok(());
    }
    let options = Options::parse(&args)?;
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    if std::env::var_os("ROS_DOMAIN_ID").is_none() {
        std::env::set_var("ROS_DOMAIN_ID", "94");
    }
    let mut probe = Probe::new(options.viewer)?;
    // The machine is shared: the load beside the figures says how far to trust wall times.
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    println!("load average at the start: {}", load());
    println!(
        "sensing robots through tank_physics: {} m^2 per robot, sensors {} Hz, /tank/state + /tf {} Hz, markers {} Hz (sim time); {}; {}",
        AREA_PER_ROBOT,
        options.sensor_rate,
        options.state_rate,
        options.marker_rate,
        options.params.display(),
        if options.viewer { "/tf and /tank/markers subscribed (viewer)" } else { "/tank/state subscribed only" }
    );
    println!(
        "{:>5} {:>6} {:>6} {:>8} {:>7} {:>9} {:>9} {:>9} {:>13} {:>7} {:>14} {:>8} {:>8} {:>8} {:>7}",
        "N",
        "tank m",
        "sim s",
        "start s",
        "idle %",
        "wall x",
        "CPU x",
        "library x",
        "states",
        "viewer",
        "CPU ms/sim s/N",
        "vs first",
        "RSS MiB",
        "HWM MiB",
        "threads"
    );
    let mut first_per_robot = None;
    for &n in &options.counts {
        let sim_seconds = options.sim_seconds(n);
        let mut tree = world_tree(&options.params, n)?;
        let library = if options.library {
            format!("{:.2}", library_ratio(&tree, sim_seconds, options.sensor_rate, options.timeout)?)
        } else {
            "-".to_owned()
        };
        let params = &mut tree["tank_physics"]["ros__parameters"];
        params["run"] = serde_yaml::from_str("{real_time_factor: 0.0, max_sim_time: 0.0, start_paused: true}")?;
        // The rates are the bench's; the file's other publish keys (robot_descriptions) stay.
        for (key, rate) in [("state_rate", options.state_rate), ("sensor_rate", options.sensor_rate), ("marker_rate", options.marker_rate)]
        {
            params["publish"][key] = rate.into();
        }
        let run = run_node(&mut probe, &tree, sim_seconds, options.timeout, options.idle).with_context(|| format!("N = {n}"))?;
        let sim = run.sim_reached;
        // Node CPU per sim second per robot: flat when the cost is linear in N.
        let per_robot = run.cpu.as_secs_f64() / sim.max(1e-9) / n as f64 * 1e3;
        let first = *first_per_robot.get_or_insert(per_robot);
        let expected = (sim * options.state_rate + 1e-6).floor() as usize;
        println!(
            "{:>5} {:>6.2} {:>6} {:>8.1} {:>7.1} {:>8.2}x {:>8.2}x {:>8}x {:>13} {:>7} {:>14.3} {:>7.2}x {:>8.0} {:>8.0} {:>7}",
            n,
            tank_side(n),
            if run.complete { format!("{sim:.1}") } else { format!("{sim:.1}*") },
            run.startup.as_secs_f64(),
            run.idle_cpu * 100.0,
            sim / run.wall.as_secs_f64(),
            sim / run.cpu.as_secs_f64().max(1e-9),
            library,
            format!("{} / {}", run.states, expected),
            run.viewer,
            per_robot,
            per_robot / first,
            run.rss_mib,
            run.hwm_mib,
            run.threads
        );
    }
    println!(
        "sim s: reached (* = stopped at the {:.0} s wall bound before the run's length); start s: spawn to the node answering /tank/pause (every topic created); idle %: node CPU while paused; load average at the end: {}",
        options.timeout.as_secs_f64(),
        load()
    );
    Ok(())
}
