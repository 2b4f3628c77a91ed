//! `blueswarm bench`: real-time factor of the in-process simulation on one thread: N
//! Bluebots dispersing (d_t = 2 BL; the firmware, the 2 Hz vision and the 100 Hz dynamics
//! all count), sim time over this thread's CPU time (other load on the machine does not
//! count; wall time is reported next to it).

use super::{fidelity, Run, BODY_LENGTH};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Progress, Table};
use flotilla_firmware::bluebot::{DispersionFirmware, DispersionParams};
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map};
use std::time::Instant;
use tank_physics::systems::bluebot::{SwarmConfig, SwarmWorld};

/// The speed benchmark.
pub struct Bench;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "robots", kind: OptionKind::Numbers, default: "7,100", help: "swarm sizes" },
    OptionSpec { name: "seconds", kind: OptionKind::Positive, default: "60", help: "sim time per size, s" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "seed" },
    OptionSpec { name: "fidelity", kind: OptionKind::Names, default: "analytic", help: "vision fidelity: analytic or rendered" },
];

impl Experiment for Bench {
    fn system(&self) -> &'static str {
        "blueswarm"
    }

    fn name(&self) -> &'static str {
        "bench"
    }

    fn description(&self) -> &'static str {
        "real-time factor of N dispersing Bluebots in-process on one thread"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let sizes = options.numbers("robots")?;
        if let Some(bad) = sizes.iter().find(|n| !(**n >= 1.0 && n.fract() == 0.0 && **n <= 10_000.0)) {
            return Err(ExperimentError::Option {
                option: "robots".into(),
                message: format!("swarm sizes are whole numbers in 1..=10000, got {bad}"),
            });
        }
        let seconds = options.number("seconds")?;
        let seed = options.seed("seed")?;
        let fidelity = fidelity(options)?;
        progress.expect(sizes.len(), "blueswarm bench");
        let mut metrics = Map::new();
        let mut rows = Vec::new();
        for &n in &sizes {
            let robots = n as usize;
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut world = SwarmWorld::new(SwarmConfig { fidelity, ..SwarmConfig::default() }, seed)?;
            for i in 0..robots {
                let p = Vector3::new(rng.gen_range(0.1..1.68), rng.gen_range(0.1..1.68), rng.gen_range(0.1..0.85));
                world.add(&format!("bluebot_{i}"), p, rng.gen_range(-3.1..3.1))?;
            }
            let params = DispersionParams { target_distance: 2.0 * BODY_LENGTH, ..DispersionParams::default() };
            let mut run = Run::new(world, (0..robots).map(|_| DispersionFirmware::new(params)).collect());
            let (started, cpu_start) = (Instant::now(), thread_cpu_seconds());
            run.run_until(seconds, |_, _, _| ())?;
            let (wall, cpu) = (started.elapsed().as_secs_f64(), thread_cpu_seconds() - cpu_start);
            let factor = seconds / cpu;
            metrics.insert(
                format!("{robots}_robots"),
                json!({ "real_time_factor": number(factor), "cpu_s": number(cpu), "wall_s": number(wall), "sim_s": number(seconds) }),
            );
            rows.push(vec![robots.to_string(), format!("{seconds}"), format!("{cpu:.4}"), format!("{wall:.4}"), format!("{factor:.1}")]);
            progress.finished_one();
        }
        metrics.insert("fidelity".into(), json!(fidelity_name(options)?));
        Ok(Outcome {
            metrics,
            tables: vec![Table {
                file: "bench.csv".into(),
                header: ["robots", "sim_s", "cpu_s", "wall_s", "real_time_factor"].map(String::from).to_vec(),
                rows,
            }],
            plots: Vec::new(),
            report: String::new(),
        })
    }
}

/// CPU time this thread has used, s.
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into the valid pointer we pass.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn fidelity_name(options: &Options) -> Result<String, ExperimentError> {
    Ok(options.names("fidelity")?.join(","))
}
