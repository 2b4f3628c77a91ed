//! Sensing scale through the node on the Kilobot table: N Kilobots packed on a hexagonal
//! lattice (1.5 diameters apart, each hearing ~30 neighbours within the study's 4.845
//! diameters), the `kilobot_table` node as fast as it can go, every robot's reading in
//! `/kilobot/sensors` at 10 Hz of sim time, `/tank/state` at 30 Hz and markers at 10 Hz
//! (the node's defaults). Before resuming the paused node the bench sends one command
//! batch as a controller would: every robot transmits its id and drives (even ids
//! forward, odd ids turning), so the IR channel, the motion model and the overlap grid all
//! work; the bench subscribes to `/tank/state` and `/kilobot/sensors` (the delivered case).
//!
//! Per N: sim seconds per wall second and per node CPU second (from /proc), messages heard
//! per robot per reading (the sensing is real), node CPU per robot relative to the first N,
//! memory, and the in-process library (same table, same commands, readings at the same
//! rate, no ROS) for the same sim time. Real time is the robot's own: a table step of
//! 32.5 ms is 0.01 diameters at 1 cm/s.
//!
//! `scripts/isolated.sh cargo bench -p tank_physics --bench kilobot_node [-- --n 1024]`
//! Options: `--n 64,256` (default 64,256,1024,4096), `--sim-seconds S` (default 60),
//! `--timeout S` (wall bound per run, default 240), `--sensor-rate HZ` (10),
//! `--state-rate HZ` (30: the overhead camera's rate), `--node PATH` (a `kilobot_table`
//! binary to run instead of this build's, e.g. one built from an earlier commit: before and
//! after measured in one session), `--no-library` (skip the in-process column).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use flotilla_common::ros_contract::RosBatch;
use flotilla_contract::kilobot::{Kilobot, KilobotCommand, KilobotSensors};
use futures::task::LocalSpawnExt as _;
use futures::StreamExt;
use tank_physics::rate::due;
use tank_physics::systems::kilobot::{hex_block, KilobotTable, TableConfig};

#[path = "support/process.rs"]
mod process;
use process::{process_cpu, process_memory, NodeProcess};

/// Lattice spacing, robot diameters.
const SPACING: f64 = 1.5;

struct Options {
    counts: Vec<usize>,
    sim_seconds: f64,
    timeout: Duration,
    sensor_rate: f64,
    state_rate: f64,
    node: String,
    library: bool,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut o = Self {
            counts: vec![64, 256, 1024, 4096],
            sim_seconds: 60.0,
            timeout: Duration::from_secs(240),
            sensor_rate: 10.0,
            state_rate: 30.0,
            node: env!("CARGO_BIN_EXE_kilobot_table").to_owned(),
            library: true,
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
                "--sim-seconds" => o.sim_seconds = number("--sim-seconds", value("--sim-seconds")?)?,
                "--timeout" => o.timeout = Duration::from_secs_f64(number("--timeout", value("--timeout")?)?),
                "--sensor-rate" => o.sensor_rate = number("--sensor-rate", value("--sensor-rate")?)?,
                "--state-rate" => o.state_rate = number("--state-rate", value("--state-rate")?)?,
                "--node" => o.node = value("--node")?.clone(),
                "--no-library" => o.library = false,
                other => bail!("unknown option {other} (see the bench's header comment)"),
            }
        }
        Ok(o)
    }
}

/// The command every robot gets: transmit its id; even ids forward, odd ids turning.
fn command(i: usize) -> KilobotCommand {
    let id = (i as u32).to_le_bytes();
    let forward = i % 2 == 0;
    KilobotCommand { motor_left: 1.0, motor_right: if forward { 1.0 } else { 0.0 }, led: [0.0, 1.0, 0.0], message: id.to_vec() }
}

/// Sim seconds per wall second of the library: the same table and commands, every
/// robot's reading at `sensor_rate`; and the mean messages per reading.
fn library_ratio(n: usize, sim_seconds: f64, sensor_rate: f64) -> anyhow::Result<(f64, f64)> {
    let mut table = KilobotTable::new(TableConfig::default(), &hex_block(n, SPACING), 1)?;
    let commands: Vec<KilobotCommand> = (0..n).map(command).collect();
    table.apply_all(&commands)?;
    let mut sensors: Vec<KilobotSensors> = Vec::new();
    let (mut heard, mut readings) = (0usize, 0usize);
    let dt = table.config().step_duration;
    let start = Instant::now();
    while table.time() + 0.5 * dt < sim_seconds {
        table.step();
        if due(sensor_rate, table.time(), dt) {
            table.read_all(&mut sensors);
            heard += sensors.iter().map(|s| s.messages.len()).sum::<usize>();
            readings += n;
        }
    }
    Ok((table.time() / start.elapsed().as_secs_f64(), heard as f64 / readings.max(1) as f64))
}

/// What the bench's subscriptions have seen.
#[derive(Default)]
struct Seen {
    last_sim_time: f64,
    batches: usize,
    heard: usize,
    readings: usize,
}

/// The bench's ROS side, kept across runs.
struct Probe {
    node: r2r::Node,
    pool: futures::executor::LocalPool,
    seen: Rc<RefCell<Seen>>,
    pause: r2r::Client<r2r::std_srvs::srv::SetBool::Service>,
    commands: r2r::Publisher<r2r::flotilla_msgs::msg::KilobotCommandBatch>,
}

impl Probe {
    fn new() -> anyhow::Result<Self> {
        let ctx = r2r::Context::create().context("ROS context")?;
        let mut node = r2r::Node::create(ctx, "kilobot_node_bench", "").context("bench node")?;
        let pool = futures::executor::LocalPool::new();
        let seen = Rc::new(RefCell::new(Seen::default()));
        let mut states = node.subscribe::<r2r::flotilla_msgs::msg::TankState>("/tank/state", r2r::QosProfile::default())?;
        let on_state = seen.clone();
        pool.spawner().spawn_local(async move {
            while let Some(state) = states.next().await {
                let mut s = on_state.borrow_mut();
                s.last_sim_time = s.last_sim_time.max(state.sim_time);
            }
        })?;
        let mut sensors = node.subscribe::<r2r::flotilla_msgs::msg::KilobotSensorsBatch>("/kilobot/sensors", r2r::QosProfile::default())?;
        let on_sensors = seen.clone();
        pool.spawner().spawn_local(async move {
            while let Some(batch) = sensors.next().await {
                let mut s = on_sensors.borrow_mut();
                if batch.header.stamp.sec > 0 || batch.header.stamp.nanosec > 0 {
                    s.batches += 1;
                    s.readings += batch.robots.len();
                    s.heard += batch.distances.len();
                }
            }
        })?;
        let pause = node.create_client::<r2r::std_srvs::srv::SetBool::Service>("/tank/pause", r2r::QosProfile::default())?;
        let commands = node.create_publisher("/kilobot/cmd", r2r::QosProfile::default())?;
        Ok(Self { node, pool, seen, pause, commands })
    }

    fn spin(&mut self) {
        self.node.spin_once(Duration::from_millis(2));
        self.pool.run_until_stalled();
    }

    fn spin_for(&mut self, d: Duration) {
        let until = Instant::now() + d;
        while Instant::now() < until {
            self.spin();
        }
    }

    /// `/tank/pause` with `paused`; whether it was answered with success by `deadline`.
    fn ask(&mut self, paused: bool, deadline: Instant) -> anyhow::Result<bool> {
        let answer = Rc::new(RefCell::new(None));
        let slot = answer.clone();
        let reply = self.pause.request(&r2r::std_srvs::srv::SetBool::Request { data: paused })?;
        self.pool.spawner().spawn_local(async move {
            *slot.borrow_mut() = Some(reply.await.map(|r| r.success).unwrap_or(false));
        })?;
        while answer.borrow().is_none() && Instant::now() < deadline {
            self.spin();
        }
        let answered = *answer.borrow();
        Ok(answered == Some(true))
    }
}

/// One run of the node.
struct NodeRun {
    startup: Duration,
    sim_reached: f64,
    wall: Duration,
    cpu: Duration,
    heard_per_reading: f64,
    batches: usize,
    rss_mib: f64,
    threads: u64,
    complete: bool,
}

fn run_node(probe: &mut Probe, n: usize, options: &Options) -> anyhow::Result<NodeRun> {
    let params = format!(
        "kilobot_table:\n  ros__parameters:\n    robots: {{count: {n}, spacing: {SPACING}}}\n    run: {{real_time_factor: 0.0, start_paused: true}}\n    publish: {{sensor_rate: {}, state_rate: {}}}\n",
        options.sensor_rate, options.state_rate
    );
    let spawned = Instant::now();
    let mut node = NodeProcess::spawn(&options.node, &params)?;
    let pid = node.pid();
    // Start-up: the node answers /tank/pause once it spins, every topic created.
    let bound = options.timeout;
    loop {
        if spawned.elapsed() > bound || node.exited()?.is_some() {
            let log = node.stop()?;
            bail!("kilobot_table did not answer /tank/pause within {bound:?}:\n{log}");
        }
        if probe.ask(true, Instant::now() + Duration::from_secs(2))? {
            break;
        }
    }
    let startup = spawned.elapsed();
    // Subscriptions matched both ways, then the controller's one batch.
    let matched = Instant::now() + bound;
    while probe.commands.get_inter_process_subscription_count().unwrap_or(0) == 0 && Instant::now() < matched {
        probe.spin();
    }
    probe.spin_for(Duration::from_millis(500));
    let (names, commands): (Vec<String>, Vec<KilobotCommand>) = (0..n).map(|i| (format!("kb_{i}"), command(i))).unzip();
    let batch: Vec<(&str, &KilobotCommand)> = names.iter().map(String::as_str).zip(&commands).collect();
    probe.commands.publish(&Kilobot::command_batch(0.0, &batch))?;
    probe.spin_for(Duration::from_millis(500));
    *probe.seen.borrow_mut() = Seen::default();
    if !probe.ask(false, Instant::now() + bound)? {
        let log = node.stop()?;
        bail!("kilobot_table did not resume:\n{log}");
    }
    let (start, cpu_start) = (Instant::now(), process_cpu(pid)?);
    let complete = loop {
        probe.spin();
        if probe.seen.borrow().last_sim_time + 1e-6 >= options.sim_seconds {
            break true;
        }
        if start.elapsed() > bound {
            break false;
        }
        if let Some(status) = node.exited()? {
            bail!("kilobot_table exited early ({status})");
        }
    };
    let wall = start.elapsed();
    let cpu = process_cpu(pid)? - cpu_start;
    let (rss_mib, _, threads) = process_memory(pid)?;
    let log = node.stop()?;
    if log.contains("panicked") || log.contains("refused") && !log.contains("0 refused commands") {
        bail!("kilobot_table failed:\n{log}");
    }
    probe.spin_for(Duration::from_millis(500));
    let seen = probe.seen.borrow();
    Ok(NodeRun {
        startup,
        sim_reached: seen.last_sim_time,
        wall,
        cpu,
        heard_per_reading: seen.heard as f64 / seen.readings.max(1) as f64,
        batches: seen.batches,
        rss_mib,
        threads,
        complete,
    })
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("kilobot_node: run with `cargo bench` for measurements");
        return Ok(());
    }
    let options = Options::parse(&args)?;
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    if std::env::var_os("ROS_DOMAIN_ID").is_none() {
        std::env::set_var("ROS_DOMAIN_ID", "95");
    }
    let mut probe = Probe::new()?;
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    println!("load average at the start: {}", load());
    println!(
        "Kilobots through kilobot_table: hexagonal lattice {SPACING} diameters apart, sensors {} Hz, /tank/state {} Hz, markers 10 Hz (sim time), {} s of sim time per N",
        options.sensor_rate, options.state_rate, options.sim_seconds
    );
    println!(
        "{:>5} {:>8} {:>7} {:>9} {:>9} {:>10} {:>10} {:>9} {:>14} {:>8} {:>8} {:>7}",
        "N", "start s", "sim s", "wall x", "CPU x", "library x", "heard/rd", "batches", "CPU ms/sim s/N", "vs first", "RSS MiB", "threads"
    );
    let mut first = None;
    for &n in &options.counts {
        let (library, library_heard) =
            if options.library { library_ratio(n, options.sim_seconds, options.sensor_rate)? } else { (f64::NAN, f64::NAN) };
        let run = run_node(&mut probe, n, &options).with_context(|| format!("N = {n}"))?;
        let sim = run.sim_reached;
        let per_robot = run.cpu.as_secs_f64() / sim.max(1e-9) / n as f64 * 1e3;
        let first = *first.get_or_insert(per_robot);
        println!(
            "{:>5} {:>8.1} {:>7} {:>8.1}x {:>8.1}x {:>9.1}x {:>4.1}/{:<5.1} {:>9} {:>14.4} {:>7.2}x {:>8.0} {:>7}",
            n,
            run.startup.as_secs_f64(),
            if run.complete { format!("{sim:.1}") } else { format!("{sim:.1}*") },
            sim / run.wall.as_secs_f64(),
            sim / run.cpu.as_secs_f64().max(1e-9),
            library,
            run.heard_per_reading,
            library_heard,
            run.batches,
            per_robot,
            per_robot / first,
            run.rss_mib,
            run.threads
        );
    }
    println!(
        "heard/rd: messages per robot per reading through the node / in the library; sim s: reached (* = wall bound); load average at the end: {}",
        load()
    );
    Ok(())
}
