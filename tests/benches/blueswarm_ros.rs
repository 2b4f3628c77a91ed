//! Blueswarm through ROS: a behaviour's launch file (default dispersion, 7 robots) with the
//! tank as fast as it can go (`real_time_factor:=0`) in lock step (every 0.5 s reading
//! waits for every robot's command from `robot_controller`), so each sensing instant is a
//! full round trip: 7 readings out, 7 firmware steps, 7 commands back, then 50 dynamics
//! steps. Measured from outside: the real-time factor is the sim time the metrics stream
//! (`/blueswarm_tank/metrics`, 1 Hz of sim time) advances per wall second after the first
//! 10 s of sim time (discovery and start-up excluded); the tank's own summary line (whole
//! run, start-up included) is printed too.
//!
//! Build the binaries first (`cargo build --release -p tank_physics -p robot_controller
//! -p flotilla_launch --bins`), then
//! `scripts/isolated.sh cargo bench -p flotilla_e2e --bench blueswarm_ros [-- --robots 7 --sim-seconds 600]`
//! Options: `--robots N[,N..]` (7), `--behaviour NAME` (dispersion; sync, milling, search),
//! `--sim-seconds S` (600), `--fidelity F` (analytic).

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use flotilla_e2e::{Launch, RosProbe};
use futures::StreamExt;

struct Options {
    robots: Vec<usize>,
    behaviour: String,
    sim_seconds: f64,
    fidelity: String,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut o = Self { robots: vec![7], behaviour: "dispersion".into(), sim_seconds: 600.0, fidelity: "analytic".into() };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| it.next().with_context(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--bench" => {}
                "--robots" => {
                    let v = value("--robots")?;
                    o.robots = v
                        .split(',')
                        .map(|s| s.trim().parse::<usize>().with_context(|| format!("--robots {v}")))
                        .collect::<Result<_, _>>()?;
                }
                "--behaviour" => o.behaviour = value("--behaviour")?.clone(),
                "--fidelity" => o.fidelity = value("--fidelity")?.clone(),
                "--sim-seconds" => {
                    let v = value("--sim-seconds")?;
                    o.sim_seconds = v.parse::<f64>().with_context(|| format!("--sim-seconds {v}: not a number"))?;
                    if !(o.sim_seconds > 20.0 && o.sim_seconds.is_finite()) {
                        bail!("--sim-seconds must be more than 20 (the first 10 s are not measured)");
                    }
                }
                other => bail!("unknown option {other} (see the bench's header comment)"),
            }
        }
        if !["sync", "dispersion", "milling", "search"].contains(&o.behaviour.as_str()) {
            bail!("--behaviour {}: expected sync, dispersion, milling or search", o.behaviour);
        }
        Ok(o)
    }
}

/// Sim time of a metrics message, s.
fn sim_time(msg: &r2r::std_msgs::msg::String) -> Option<f64> {
    serde_json::from_str::<serde_json::Value>(&msg.data).ok()?.get("time_s")?.as_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = Options::parse(&args)?;
    let mut probe = RosProbe::new("blueswarm_bench")?;
    let mut metrics = probe.subscribe::<r2r::std_msgs::msg::String>("/blueswarm_tank/metrics")?;
    probe.spin();
    let scratch = tempfile::tempdir()?;
    println!("| robots | behaviour | vision | sim s measured | wall s | real-time factor (steady) | tank summary |");
    println!("|---|---|---|---|---|---|---|");
    for &n in &options.robots {
        let file = format!("launch/blueswarm_{}.launch.yaml", options.behaviour);
        let args = [
            format!("robots:={n}"),
            "real_time_factor:=0".into(),
            "lockstep:=true".into(),
            format!("duration:={}", options.sim_seconds),
            format!("fidelity:={}", options.fidelity),
            format!("metrics_csv:={}", scratch.path().join("metrics.csv").display()),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let launch = Launch::start(&file, &args, &probe.domain)?;
        let mut start: Option<(f64, Instant)> = None;
        let mut last: Option<(f64, Instant)> = None;
        let deadline = Instant::now() + Duration::from_secs_f64(60.0 + options.sim_seconds);
        while Instant::now() < deadline {
            let Ok(Some(msg)) = tokio::time::timeout(Duration::from_secs(20), metrics.next()).await else { break };
            let Some(t) = sim_time(&msg) else { continue };
            let now = Instant::now();
            if t >= 10.0 && start.is_none() {
                start = Some((t, now));
            }
            last = Some((t, now));
            if t + 1.0 >= options.sim_seconds {
                break;
            }
        }
        let (status, output) = launch.wait(Duration::from_secs(60))?;
        let summary = output.lines().find(|l| l.contains("summary: reached max_sim_time")).map(|l| {
            let at = l.find("summary:").unwrap_or(0);
            l[at..].to_owned()
        });
        let (Some((t0, w0)), Some((t1, w1))) = (start, last) else { bail!("no metrics from the tank (exit {status:?}):\n{output}") };
        let wall = (w1 - w0).as_secs_f64();
        if !status.success() || summary.is_none() || t1 <= t0 {
            bail!("the run did not complete (exit {status:?}):\n{output}");
        }
        println!(
            "| {n} | {} | {} | {:.0} | {wall:.2} | {:.1}x | {} |",
            options.behaviour,
            options.fidelity,
            t1 - t0,
            (t1 - t0) / wall,
            summary.unwrap_or_default()
        );
    }
    Ok(())
}
