//! `mhp bench`: the model's speed on one core: one trial per robot size simulating the
//! whole time limit (no stop at success; repeated for small robots until 0.25 s passed), its wall time, real-time factor, the model's
//! bytes and the process's peak resident memory. The trials run one after another on
//! the calling thread, so each has one core (the machine's other load still counts:
//! run it under `nice` on a quiet machine).
//!
//! `flotilla experiment mhp bench --sizes 1,2,4,8,16,32,64,128 --out DIR`

use std::time::Instant;

use serde_json::json;
use tank_physics::systems::mhp::MhpFaults;

use super::plots::plot_cost;
use super::trial::{run_trial, RobotSpec, TrialSetup};
use super::{controllers, option_error};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};

/// The `bench` experiment.
pub struct Bench;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "sizes", kind: OptionKind::Numbers, default: "1,2,4,8,16,32,64", help: "cube sides n (n^3 modules)" },
    OptionSpec { name: "controller", kind: OptionKind::Names, default: "decentralised", help: "decentralised, centralised or prototype" },
    OptionSpec { name: "sim-time", kind: OptionKind::Positive, default: "50", help: "simulated time per trial, s" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "0", help: "run seed" },
];

/// Least wall time measured per size, s.
const MIN_BENCH_S: f64 = 0.25;

/// CPU time of the calling thread so far, s (Linux `schedstat`, ns; None elsewhere): on a
/// shared machine the wall time also counts other processes.
fn thread_cpu_s() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// Peak resident memory of this process so far, bytes (Linux `VmHWM`; None elsewhere).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

impl Experiment for Bench {
    fn system(&self) -> &'static str {
        "mhp"
    }

    fn name(&self) -> &'static str {
        "bench"
    }

    fn description(&self) -> &'static str {
        "speed on one core: one whole trial per cube size, CPU and wall time, real-time factor (by CPU time), memory"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let sizes = options.numbers("sizes")?;
        let sizes: Vec<u32> = sizes
            .iter()
            .map(|&n| {
                if n >= 1.0 && n.fract() == 0.0 && n <= 256.0 {
                    Ok(n as u32)
                } else {
                    Err(option_error("sizes", format!("{n}: a side is a whole number 1..256")))
                }
            })
            .collect::<Result<_, _>>()?;
        let controller = match controllers(options, "controller")?.as_slice() {
            [one] => *one,
            _ => return Err(option_error("controller", "give one controller")),
        };
        let sim_time = options.number("sim-time")?;
        let seed = options.seed("seed")?;
        progress.expect(sizes.len(), "MHP bench (one core)");
        let mut rows = Vec::new();
        let mut metrics = serde_json::Map::new();
        let mut points = Vec::new();
        for &n in &sizes {
            let mut setup = TrialSetup::paper(RobotSpec::Cube(n), controller, MhpFaults::default(), seed);
            setup.time_limit = sim_time;
            setup.stop_at_success = false;
            // Small robots run in microseconds, below the clocks' resolution: repeat the
            // same trial until a quarter second has passed and divide.
            let started = Instant::now();
            let cpu_start = thread_cpu_s();
            let mut repeats = 0u32;
            let result = loop {
                let result = run_trial(&setup, 0).map_err(|e| option_error("sizes", format!("{n}^3: {e}")))?;
                repeats += 1;
                if started.elapsed().as_secs_f64() >= MIN_BENCH_S {
                    break result;
                }
            };
            let wall = started.elapsed().as_secs_f64() / f64::from(repeats);
            let cpu = cpu_start.zip(thread_cpu_s()).map(|(a, b)| (b - a) / f64::from(repeats));
            let rss = peak_rss();
            progress.finished_one();
            // The thread's CPU time where the system reports it (other load on the machine
            // does not count), else the wall time.
            let cost = cpu.unwrap_or(wall);
            let factor = sim_time / cost;
            points.push((result.modules, cost / sim_time));
            metrics.insert(
                format!("{n}^3"),
                json!({
                    "modules": result.modules,
                    "outer_faces": result.outer_faces,
                    "repeats": repeats,
                    "wall_s": number(wall),
                    "cpu_s": cpu.map(number),
                    "real_time_factor": number(factor),
                    "model_bytes": result.bytes,
                    "peak_rss_bytes": rss,
                    "reached_target": result.success,
                    // Null when the robot did not reach the target (time_s is then the
                    // simulated time, which read as the time of arrival).
                    "reached_at_s": result.success.then(|| number(result.time_s)),
                }),
            );
            rows.push(vec![
                n.to_string(),
                result.modules.to_string(),
                result.outer_faces.to_string(),
                format!("{wall:.4}"),
                cpu.map_or_else(String::new, |c| format!("{c:.4}")),
                format!("{factor:.2}"),
                result.bytes.to_string(),
                rss.map_or_else(String::new, |r| r.to_string()),
                result.success.to_string(),
            ]);
        }
        metrics.insert("sim_time_s".into(), number(sim_time));
        metrics.insert("controller".into(), json!(controller.name()));
        let header =
            ["side", "modules", "outer_faces", "wall_s", "cpu_s", "real_time_factor", "model_bytes", "peak_rss_bytes", "reached_target"];
        let table = Table { file: "bench.csv".into(), header: header.map(String::from).to_vec(), rows };
        let plot = Plot { file: "cost.png".into(), draw: Box::new(move |path| plot_cost(path, &points)) };
        Ok(Outcome { metrics, tables: vec![table], plots: vec![plot], report: String::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_bench_runs_the_whole_time() {
        let given = vec![("sizes".to_owned(), "1,2".to_owned()), ("sim-time".to_owned(), "2".to_owned())];
        let options = Options::parse(OPTIONS, &given).unwrap();
        let out = Bench.run(&options, &Progress::hidden()).unwrap();
        assert_eq!(out.metrics["2^3"]["outer_faces"], json!(24));
        assert_eq!(out.tables[0].rows.len(), 2);
        // Two seconds reach no target 1 m away: no arrival time (it was the 2 s simulated).
        assert_eq!(out.metrics["1^3"]["reached_target"], json!(false));
        assert_eq!(out.metrics["1^3"]["reached_at_s"], serde_json::Value::Null, "{:?}", out.metrics);
        let bad = Options::parse(OPTIONS, &[("sizes".to_owned(), "1.5".to_owned())]).unwrap();
        assert!(Bench.run(&bad, &Progress::hidden()).err().unwrap().is_usage());
    }
}
