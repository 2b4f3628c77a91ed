//! The swarm interface at N robots (default 1024): `tank_physics` with N Lilies in lock step
//! (`run.lockstep`: each sensor tick waits for every robot's command) and one
//! `robot_controller` hosting all N controllers, as launch/lily_15.launch.yaml runs 15.
//! Measured from outside the nodes (their code is not instrumented):
//! - discovery: from starting both processes until (a) every expected endpoint is in the
//!   ROS graph seen by this bench's own node (`get_publishers_info_by_topic`; r2r 0.9 has no
//!   subscription count, so the expected publishers stand for the endpoint pairs) and (b)
//!   the first complete lock-step tick: the first `/clock` after sim time 0, which the
//!   physics publishes only once every robot's command for the readings at 0 arrived;
//! - memory and threads of each process (/proc/<pid>/status VmRSS, VmHWM, Threads; open
//!   descriptors) after discovery and after the measured ticks, and CPU (/proc/<pid>/stat);
//! - wall time per lock-step tick from the `/clock` receipt times: a tick is the sensor
//!   period (e.g. 4 steps of 25 ms at 10 Hz): readings out, every command back, the steps
//!   up to the next readings. Its "exchange" part is the step right after the readings
//!   (state publication when due + readings out + all commands in + one physics step),
//!   beside the median plain physics step.
//!
//! The interface is a parameter file `config/bench_swarm_<interface>.yaml`: the nodes'
//! parameters plus this bench's `swarm_interface_bench` section (the expected publishers,
//! `{robot}` = every robot's name). A batched interface is another such file; nothing
//! here changes.
//!
//! Build the node binaries first (`make build`), then
//! `scripts/isolated.sh cargo bench -p flotilla_e2e --bench swarm_interface [-- --n 1024]`
//! Options: `--interface NAME` (per_robot), `--params FILE` (instead of the interface's
//! file), `--n N` (1024), `--ticks T` (100), `--discovery-timeout S` (300), `--poll S` (0.5).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::process::Command;
use std::rc::Rc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use flotilla_e2e::{bin, repo_root, Domain, Launch};
use futures::task::LocalSpawnExt as _;
use futures::StreamExt;
use serde_yaml::Value;

/// Floor area per robot, m^2 (as the sensing bench).
const AREA_PER_ROBOT: f64 = 0.01;
/// The bench's own section of the parameter file.
const BENCH_SECTION: &str = "swarm_interface_bench";

struct Options {
    params: PathBuf,
    label: String,
    n: usize,
    ticks: usize,
    discovery_timeout: Duration,
    poll: Duration,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut interface = "per_robot".to_owned();
        let mut params = None;
        let mut o = Self {
            params: PathBuf::new(),
            label: String::new(),
            n: 1024,
            ticks: 100,
            discovery_timeout: Duration::from_secs(300),
            poll: Duration::from_millis(500),
        };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
            let seconds = |name: &str, v: &String| {
                v.parse::<f64>().map(Duration::from_secs_f64).with_context(|| format!("{name} {v}: not a number of seconds"))
            };
            match arg.as_str() {
                "--bench" => {}
                "--interface" => interface = value("--interface")?.clone(),
                "--params" => params = Some(PathBuf::from(value("--params")?)),
                "--n" => o.n = value("--n")?.parse().context("--n")?,
                "--ticks" => o.ticks = value("--ticks")?.parse().context("--ticks")?,
                "--discovery-timeout" => o.discovery_timeout = seconds("--discovery-timeout", value("--discovery-timeout")?)?,
                "--poll" => o.poll = seconds("--poll", value("--poll")?)?,
                other => bail!("unknown option {other} (see the bench's header comment)"),
            }
        }
        o.params = params.unwrap_or_else(|| repo_root().join(format!("config/bench_swarm_{interface}.yaml")));
        o.label = o.params.file_stem().map(|s| s.to_string_lossy().trim_start_matches("bench_swarm_").to_owned()).unwrap_or(interface);
        Ok(o)
    }
}

/// The node parameters to run and the publishers that mark discovery as complete.
struct Scenario {
    /// Parameter file text for both nodes (without the bench's section).
    node_params: String,
    /// (topic, node that must publish it).
    expected: Vec<(String, String)>,
    /// Sensor period in physics steps.
    steps_per_tick: u64,
    dt: f64,
    /// The physics parameters (the in-process baseline's world).
    world: Value,
    /// The controllers' Lily ruleset, if any.
    ruleset: Option<PathBuf>,
}

fn scenario(o: &Options) -> anyhow::Result<Scenario> {
    let file = o.params.display();
    let text = std::fs::read_to_string(&o.params).with_context(|| format!("reading {file}"))?;
    let mut tree: Value = serde_yaml::from_str(&text).with_context(|| format!("parsing {file}"))?;
    let root = tree.as_mapping_mut().with_context(|| format!("{file}: not a mapping"))?;
    let bench = root.remove(BENCH_SECTION).with_context(|| format!("{file}: no {BENCH_SECTION} section"))?;
    let physics = root
        .get_mut("tank_physics")
        .and_then(|t| t.get_mut("ros__parameters"))
        .with_context(|| format!("{file}: no tank_physics.ros__parameters"))?;
    let side = (AREA_PER_ROBOT * o.n as f64).sqrt();
    physics["arena"]["size_x"] = side.into();
    physics["arena"]["size_y"] = side.into();
    // The first tick waits for every robot's first command: as long as discovery may take.
    physics["run"]["lockstep_timeout"] = o.discovery_timeout.as_secs_f64().into();
    let dt = physics["dt"].as_f64().with_context(|| format!("{file}: tank_physics dt"))?;
    let sensor_rate = physics["publish"]["sensor_rate"].as_f64().with_context(|| format!("{file}: tank_physics publish.sensor_rate"))?;
    let steps_per_tick = (1.0 / (sensor_rate * dt)).round() as u64;
    let groups = physics["modules"].as_mapping_mut().with_context(|| format!("{file}: no modules"))?;
    if groups.len() != 1 {
        bail!("{file}: the bench sets the count of exactly one module group");
    }
    let mut robots = Vec::new();
    for (prefix, group) in groups.iter_mut() {
        group["count"] = (o.n as u64).into();
        let prefix = prefix.as_str().context("module group name")?;
        robots.extend((0..o.n).map(|i| format!("{prefix}_{i}")));
    }
    let templates = bench["ros__parameters"]["expect_publishers"]
        .as_sequence()
        .with_context(|| format!("{file}: {BENCH_SECTION}.ros__parameters.expect_publishers"))?;
    let mut expected = Vec::new();
    for t in templates {
        let t = t.as_str().context("expect_publishers: strings `<topic> <node>`")?;
        let (topic, node) = t.split_once(' ').with_context(|| format!("expect_publishers: `{t}` is not `<topic> <node>`"))?;
        if topic.contains("{robot}") {
            expected.extend(robots.iter().map(|r| (topic.replace("{robot}", r), node.trim().to_owned())));
        } else {
            expected.push((topic.to_owned(), node.trim().to_owned()));
        }
    }
    let world = tree["tank_physics"]["ros__parameters"].clone();
    let ruleset = tree["robot_controller"]["ros__parameters"]["ruleset"].as_str().filter(|r| !r.is_empty()).map(|r| repo_root().join(r));
    Ok(Scenario { node_params: serde_yaml::to_string(&tree)?, expected, steps_per_tick, dt, world, ruleset })
}

/// A process's /proc figures.
#[derive(Clone, Copy, Default)]
struct Usage {
    rss_mib: f64,
    hwm_mib: f64,
    threads: u64,
    fds: usize,
    cpu: Duration,
}

fn usage(pid: u32) -> anyhow::Result<Usage> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).with_context(|| format!("reading /proc/{pid}/status"))?;
    let field = |key: &str| -> anyhow::Result<u64> {
        let line = status.lines().find(|l| l.starts_with(key)).with_context(|| format!("/proc/{pid}/status: no {key}"))?;
        line[key.len()..].split_whitespace().next().context(key.to_owned())?.parse::<u64>().with_context(|| key.to_owned())
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).with_context(|| format!("reading /proc/{pid}/stat"))?;
    // After the parenthesised command name, utime and stime are the 12th and 13th fields.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).context("malformed /proc stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11).context("utime")?.parse::<u64>()? + fields.get(12).context("stime")?.parse::<u64>()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Ok(Usage {
        rss_mib: field("VmRSS:")? as f64 / 1024.0,
        hwm_mib: field("VmHWM:")? as f64 / 1024.0,
        threads: field("Threads:")?,
        fds: std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0),
        cpu: Duration::from_secs_f64(ticks as f64 / hz),
    })
}

/// Expected publishers seen so far in the graph (monotone: endpoints are not removed
/// during a run).
struct Graph {
    pending: Vec<(String, String)>,
    total: usize,
}

impl Graph {
    /// One poll: drops the expected publishers now visible; true when none is left.
    fn poll(&mut self, node: &r2r::Node) -> anyhow::Result<bool> {
        let topics = node.get_topic_names_and_types().context("graph: topic names")?;
        let mut still = Vec::new();
        for (topic, owner) in self.pending.drain(..) {
            let seen = topics.contains_key(&topic)
                && node.get_publishers_info_by_topic(&topic, false).context("graph: publishers")?.iter().any(|p| p.node_name == owner);
            if !seen {
                still.push((topic, owner));
            }
        }
        self.pending = still;
        Ok(self.pending.is_empty())
    }

    fn found(&self) -> usize {
        self.total - self.pending.len()
    }
}

/// Publishers per node over every topic in the graph (one pass, at the end).
fn publishers_per_node(node: &r2r::Node) -> anyhow::Result<(usize, BTreeMap<String, usize>)> {
    let topics = node.get_topic_names_and_types()?;
    let mut per_node = BTreeMap::new();
    for topic in topics.keys() {
        for p in node.get_publishers_info_by_topic(topic, false)? {
            *per_node.entry(p.node_name).or_insert(0) += 1;
        }
    }
    Ok((topics.len(), per_node))
}

/// The same world and firmware in one process without ROS (`robot_controller::batch::Run`,
/// what lock step reproduces): wall ms per tick, sorted.
fn in_process_ticks(sc: &Scenario, ticks: usize) -> anyhow::Result<Vec<f64>> {
    let mut world = sc.world.clone();
    if let Some(m) = world.as_mapping_mut() {
        for section in ["run", "publish", "record", "robots"] {
            m.remove(section);
        }
    }
    let world = tank_physics::WorldConfig::from_params(&world).context("in-process world")?;
    let path = sc.ruleset.as_ref().context("the in-process baseline needs robot_controller.ruleset")?;
    let ruleset = robot_controller::Ruleset::from_file(path).with_context(|| format!("ruleset {}", path.display()))?;
    let mut experiment = flotilla_experiments::batch::TankExperiment::lily_tank(std::sync::Arc::new(ruleset), 0, 0.0);
    experiment.world = world;
    experiment.control_period = sc.steps_per_tick as f64 * sc.dt;
    experiment.duration = f64::MAX;
    let mut run = flotilla_experiments::batch::Run::new(&experiment, 1).context("in-process run")?;
    let mut host = run.controller_host().context("in-process controllers")?;
    let mut times = Vec::with_capacity(ticks);
    for _ in 0..ticks {
        let start = Instant::now();
        run.tick(&mut host).context("in-process tick")?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}

fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("swarm_interface: run with `cargo bench` for measurements");
        return Ok(());
    }
    let o = Options::parse(&args)?;
    let sc = scenario(&o)?;
    for exe in ["tank_physics", "robot_controller"] {
        if !bin(exe).exists() {
            bail!("{} missing: build the node binaries first (`make build`)", bin(exe).display());
        }
    }
    // First, without ROS: the cost of the tick itself (physics, sensing, firmware).
    let local = in_process_ticks(&sc, o.ticks)?;
    let domain = Domain::reserve()?;
    std::env::set_var("ROS_DOMAIN_ID", domain.id.to_string());
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    let ctx = r2r::Context::create().context("ROS context")?;
    let mut node = r2r::Node::create(ctx, "swarm_interface_bench", "").context("bench node")?;
    let mut pool = futures::executor::LocalPool::new();
    let clock: Rc<RefCell<Vec<(Instant, f64)>>> = Rc::default();
    {
        let mut sub = node.subscribe::<r2r::rosgraph_msgs::msg::Clock>("/clock", r2r::QosProfile::default())?;
        let clock = clock.clone();
        pool.spawner().spawn_local(async move {
            while let Some(msg) = sub.next().await {
                let t = f64::from(msg.clock.sec) + f64::from(msg.clock.nanosec) * 1e-9;
                clock.borrow_mut().push((Instant::now(), t));
            }
        })?;
    }
    let dir = tempfile::tempdir()?;
    let params = dir.path().join("params.yaml");
    std::fs::write(&params, &sc.node_params)?;
    let node_cmd = |exe: &str| {
        let mut cmd = Command::new(bin(exe));
        cmd.args(["--ros-args", "--params-file"]).arg(&params);
        cmd
    };
    let load = || std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    println!(
        "swarm interface `{}`: {} robots ({}), {} expected publishers, tick = {} steps of {} s; load average {}",
        o.label,
        o.n,
        o.params.display(),
        sc.expected.len(),
        sc.steps_per_tick,
        sc.dt,
        load()
    );

    if let Some(profile) = std::env::var_os("FASTRTPS_DEFAULT_PROFILES_FILE") {
        println!("Fast DDS profiles: {}", profile.to_string_lossy());
    }
    let started = Instant::now();
    let physics = Launch::spawn(node_cmd("tank_physics"), &domain)?;
    let controller = Launch::spawn(node_cmd("robot_controller"), &domain)?;
    let pids = [("tank_physics", physics.pid()), ("robot_controller", controller.pid()), ("bench (observer)", std::process::id())];
    let mut graph = Graph { pending: sc.expected.clone(), total: sc.expected.len() };
    let mut graph_done: Option<Duration> = None;
    let mut last_poll = Instant::now() - o.poll;
    let mut progress = Vec::new();
    let spin = |node: &mut r2r::Node, pool: &mut futures::executor::LocalPool| {
        node.spin_once(Duration::from_millis(1));
        pool.run_until_stalled();
    };
    // Discovery: until the graph is complete and the first tick has been seen.
    let first_tick = loop {
        spin(&mut node, &mut pool);
        let now = Instant::now();
        if graph_done.is_none() && now - last_poll >= o.poll {
            last_poll = now;
            if graph.poll(&node)? {
                graph_done = Some(started.elapsed());
            }
            // Progress every 10 s, for runs that do not finish.
            if progress.last().is_none_or(|(t, _): &(Duration, usize)| started.elapsed() >= *t + Duration::from_secs(10)) {
                progress.push((started.elapsed(), graph.found()));
            }
        }
        let tick = clock.borrow().iter().find(|(_, t)| *t > 0.5 * sc.dt).map(|(at, _)| *at - started);
        if let (Some(_), Some(tick)) = (graph_done, tick) {
            break Some(tick);
        }
        if started.elapsed() > o.discovery_timeout {
            break tick;
        }
        for (name, launch) in [("tank_physics", &physics), ("robot_controller", &controller)] {
            if !std::path::Path::new(&format!("/proc/{}", launch.pid())).exists() {
                bail!("{name} exited during discovery:\n{}", launch.output());
            }
        }
    };
    let after_discovery: Vec<Usage> = pids.iter().map(|(_, pid)| usage(*pid)).collect::<Result<_, _>>()?;
    let discovered_at = started.elapsed();
    println!("discovery (from starting both processes; bound {:.0} s):", o.discovery_timeout.as_secs_f64());
    match graph_done {
        Some(t) => println!("  every expected publisher in the graph: {:.1} s", t.as_secs_f64()),
        None => println!("  every expected publisher in the graph: NOT within the bound ({} of {} seen)", graph.found(), graph.total),
    }
    let progress_line: Vec<String> = progress.iter().map(|(t, n)| format!("{:.0} s: {n}", t.as_secs_f64())).collect();
    println!("  graph progress (publishers seen): {}", progress_line.join(", "));
    match first_tick {
        Some(t) => println!("  first complete lock-step tick: {:.1} s", t.as_secs_f64()),
        None => println!("  first complete lock-step tick: NOT within the bound"),
    }

    // Ticks: from the first tick boundary after discovery, `ticks` sensor periods.
    let mut window = None;
    if first_tick.is_some() {
        let step = |t: f64| (t / sc.dt).round() as u64;
        let from = clock.borrow().last().map(|(_, t)| step(*t)).unwrap_or(0) / sc.steps_per_tick * sc.steps_per_tick + sc.steps_per_tick;
        let to = from + o.ticks as u64 * sc.steps_per_tick + 1;
        let bound = Instant::now() + o.discovery_timeout;
        while clock.borrow().last().map(|(_, t)| step(*t)).unwrap_or(0) < to {
            spin(&mut node, &mut pool);
            if Instant::now() > bound {
                bail!("{} ticks not done within {:?}", o.ticks, o.discovery_timeout);
            }
        }
        window = Some((from, to, step));
    }
    let after_ticks: Vec<Usage> = pids.iter().map(|(_, pid)| usage(*pid)).collect::<Result<_, _>>()?;
    let (topic_count, per_node) = publishers_per_node(&node)?;
    let end_load = load();

    if let Some((from, to, step)) = window {
        let at: HashMap<u64, Instant> = clock.borrow().iter().map(|(i, t)| (step(*t), *i)).collect();
        let gap = |a: u64, b: u64| Some((*at.get(&b)? - *at.get(&a)?).as_secs_f64() * 1e3);
        let (mut ticks, mut exchange, mut plain, mut missing) = (Vec::new(), Vec::new(), Vec::new(), 0);
        let mut k = from;
        while k + sc.steps_per_tick < to {
            match gap(k + 1, k + 1 + sc.steps_per_tick) {
                Some(ms) => ticks.push(ms),
                None => missing += 1,
            }
            exchange.extend(gap(k, k + 1));
            plain.extend((1..sc.steps_per_tick).filter_map(|j| gap(k + j, k + j + 1)));
            k += sc.steps_per_tick;
        }
        for v in [&mut ticks, &mut exchange, &mut plain] {
            v.sort_by(f64::total_cmp);
        }
        let wall = gap(from, to - 1).context("no /clock samples at the window's ends")? / 1e3;
        println!(
            "lock-step ticks ({} measured, {} without /clock samples; {:.1} s sim in {:.1} s wall = {:.2}x real time):",
            ticks.len(),
            missing,
            (to - 1 - from) as f64 * sc.dt,
            wall,
            (to - 1 - from) as f64 * sc.dt / wall
        );
        println!("  {:<46} {:>9} {:>9} {:>9}", "wall ms", "median", "p95", "max");
        for (label, v) in [
            ("tick (readings out .. all commands .. next)", &ticks),
            ("  exchange step (readings -> all commands)", &exchange),
            ("  plain physics step", &plain),
            ("in-process tick, no ROS (measured first)", &local),
        ] {
            println!(
                "  {label:<46} {:>9.1} {:>9.1} {:>9.1}",
                percentile(v, 0.5),
                percentile(v, 0.95),
                v.last().copied().unwrap_or(f64::NAN)
            );
        }
        // Stalls come in a few discrete lengths (a resend, a DDS repair): how many ticks each.
        let over = |ms: f64| ticks.iter().filter(|t| **t > ms).count();
        println!(
            "  ticks over 250 ms: {}, over 1 s: {}, over 2 s: {} (of {}); exchange steps over 250 ms (sorted, ms): {}",
            over(250.0),
            over(1000.0),
            over(2000.0),
            ticks.len(),
            exchange.iter().filter(|t| **t > 250.0).map(|t| format!("{t:.0}")).collect::<Vec<_>>().join(" ")
        );
    }
    println!("processes (after discovery at {:.1} s / after the ticks):", discovered_at.as_secs_f64());
    println!(
        "  {:<18} {:>15} {:>15} {:>9} {:>9} {:>13} {:>12} {:>10}",
        "process", "VmRSS MiB", "VmHWM MiB", "threads", "fds", "CPU s disc.", "CPU ms/tick", "publishers"
    );
    for (i, (name, _)) in pids.iter().enumerate() {
        let (a, b) = (after_discovery[i], after_ticks[i]);
        let per_tick = if window.is_some() { format!("{:.1}", (b.cpu - a.cpu).as_secs_f64() * 1e3 / o.ticks as f64) } else { "-".into() };
        let node_name = name.split(' ').next().unwrap_or(name);
        let publishers = per_node.get(node_name).map_or_else(|| "-".to_owned(), |n| n.to_string());
        println!(
            "  {name:<18} {:>7.0} / {:<5.0} {:>7.0} / {:<5.0} {:>4} / {:<3} {:>4} / {:<3} {:>13.1} {:>12} {:>10}",
            a.rss_mib,
            b.rss_mib,
            a.hwm_mib,
            b.hwm_mib,
            a.threads,
            b.threads,
            a.fds,
            b.fds,
            a.cpu.as_secs_f64(),
            per_tick,
            publishers
        );
    }
    println!("graph: {topic_count} topics; load average at the end {end_load}");

    let (_, physics_log) = physics.interrupt(Duration::from_secs(60))?;
    let (_, controller_log) = controller.interrupt(Duration::from_secs(60))?;
    let timeouts = physics_log.lines().filter(|l| l.contains("no command from these robots")).count();
    let summary = controller_log.lines().rfind(|l| l.contains("summary:")).unwrap_or("(no summary)");
    let hosted = summary.split("summary: ").nth(1).and_then(|s| s.split(' ').next()).unwrap_or("?");
    let sent = summary.split(", ").find(|s| s.contains("commands sent")).and_then(|s| s.split(' ').next()).unwrap_or("?");
    println!("lock-step timeouts logged by the physics: {timeouts}; robot_controller: {hosted} robots controlled, {sent} commands sent");
    Ok(())
}
