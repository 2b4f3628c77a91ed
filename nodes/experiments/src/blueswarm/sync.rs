//! `blueswarm sync`: Mirollo-Strogatz flash synchrony of N Bluebots holding their depths at
//! random places in the tank, counters started evenly spread (`uniform`) or at random
//! (`random`). Round k is every robot's k-th flash; its spread is the standard deviation of
//! those flash times; synchrony is reached at the first round from which the spread stays
//! within one sensing period (0.5 s).

use super::plot::{lines, Series};
use super::{choice, fidelity, over_seeds, Run};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use flotilla_firmware::bluebot::{SyncFirmware, SyncParams};
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{json, Map};
use tank_physics::systems::bluebot::{SwarmConfig, SwarmWorld};

/// The synchrony experiment.
pub struct Sync;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "robots", kind: OptionKind::Count, default: "7", help: "Bluebots in the tank" },
    OptionSpec { name: "start", kind: OptionKind::Names, default: "uniform", help: "initial counters: uniform (evenly spread) or random" },
    OptionSpec { name: "duration", kind: OptionKind::Positive, default: "240", help: "sim time per run, s" },
    OptionSpec { name: "seeds", kind: OptionKind::Count, default: "5", help: "runs (seeds seed..seed+seeds)" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "first seed" },
    OptionSpec { name: "period", kind: OptionKind::Positive, default: "15", help: "flash period t_f, s" },
    OptionSpec {
        name: "coupling",
        kind: OptionKind::Positive,
        default: "1",
        help: "jump f(n) = coupling t_f (n / t_f)^exponent at n = t_f, over t_f",
    },
    OptionSpec { name: "exponent", kind: OptionKind::Positive, default: "1", help: "exponent of f (<= 1: concave down)" },
    OptionSpec { name: "fidelity", kind: OptionKind::Names, default: "analytic", help: "vision fidelity: analytic or rendered" },
];

/// Flash tolerance: flashes within one sensing period are simultaneous, s.
const TOLERANCE: f64 = 0.5;

struct SeedResult {
    seed: u64,
    /// Flash start times per robot, s.
    flashes: Vec<Vec<f64>>,
}

impl SeedResult {
    /// Spread (standard deviation) of each round's flash times, s.
    fn spreads(&self) -> Vec<(f64, f64)> {
        let rounds = self.flashes.iter().map(Vec::len).min().unwrap_or(0);
        (0..rounds)
            .map(|k| {
                let t: Vec<f64> = self.flashes.iter().map(|f| f[k]).collect();
                let mean = t.iter().sum::<f64>() / t.len() as f64;
                let sd = (t.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / t.len() as f64).sqrt();
                (t.iter().copied().fold(f64::NEG_INFINITY, f64::max), sd)
            })
            .collect()
    }

    /// (rounds to synchrony (1-based), time of that round's last flash), if reached.
    fn synchrony(&self) -> Option<(usize, f64)> {
        let spreads = self.spreads();
        let first = (0..spreads.len()).find(|&k| spreads[k..].iter().all(|(_, sd)| *sd <= TOLERANCE))?;
        Some((first + 1, spreads[first].0))
    }
}

impl Experiment for Sync {
    fn system(&self) -> &'static str {
        "blueswarm"
    }

    fn name(&self) -> &'static str {
        "sync"
    }

    fn description(&self) -> &'static str {
        "Mirollo-Strogatz flash synchrony: rounds to synchrony, flash-time spread per round"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let robots = options.count("robots")?;
        let start = choice(options, "start", &["uniform", "random"])?;
        let duration = options.number("duration")?;
        let seeds = options.count("seeds")?;
        let params = SyncParams {
            period: options.number("period")?,
            coupling: options.number("coupling")?,
            exponent: options.number("exponent")?,
            ..SyncParams::default()
        };
        params.validate().map_err(|message| {
            // The flash is fixed: a period too short for it is the period's fault.
            let option =
                ["period", "coupling", "exponent"].into_iter().find(|o| message.starts_with(&format!("sync {o}"))).unwrap_or("period");
            ExperimentError::Option { option: option.into(), message }
        })?;
        let fidelity = fidelity(options)?;
        progress.expect(seeds, "blueswarm sync");
        let results: Vec<SeedResult> = options
            .seed_range("seed", "seeds")?
            .into_par_iter()
            .map(|seed| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let config = SwarmConfig { fidelity, ..SwarmConfig::default() };
                let mut world = SwarmWorld::new(config, seed)?;
                let mut firmware = Vec::new();
                for i in 0..robots {
                    let p = Vector3::new(rng.gen_range(0.3..1.48), rng.gen_range(0.3..1.48), rng.gen_range(0.3..0.6));
                    world.add(&format!("bluebot_{i}"), p, rng.gen_range(-3.1..3.1))?;
                    let counter =
                        if start == "uniform" { params.period * i as f64 / robots as f64 } else { rng.gen_range(0.0..params.period) };
                    firmware.push(SyncFirmware::new(SyncParams { depth: 0.91 - p.z, ..params }, counter));
                }
                let mut run = Run::new(world, firmware);
                let mut flashes = vec![Vec::new(); robots];
                let mut lit = vec![false; robots];
                run.run_until(duration, |world, _, fw| {
                    for (i, f) in fw.iter().enumerate() {
                        if f.flashing() && !lit[i] {
                            flashes[i].push(world.time());
                        }
                        lit[i] = f.flashing();
                    }
                })?;
                progress.finished_one();
                Ok(SeedResult { seed, flashes })
            })
            .collect::<Result<_, ExperimentError>>()?;

        let mut metrics = Map::new();
        let reached: Vec<(usize, f64)> = results.iter().filter_map(SeedResult::synchrony).collect();
        let rounds: Vec<f64> = reached.iter().map(|r| r.0 as f64).collect();
        let times: Vec<f64> = reached.iter().map(|r| r.1).collect();
        metrics.insert("runs".into(), json!(results.len()));
        metrics.insert("runs_synchronised".into(), json!(reached.len()));
        metrics.insert("rounds_to_sync".into(), over_seeds(&rounds));
        metrics.insert("sync_time_s".into(), over_seeds(&times));
        let per_seed: Vec<_> = results
            .iter()
            .map(|r| {
                let s = r.synchrony();
                json!({
                    "seed": r.seed,
                    "rounds_to_sync": s.map(|x| x.0),
                    "sync_time_s": s.map(|x| number(x.1)),
                    "spread_per_round_s": r.spreads().iter().map(|x| number(x.1)).collect::<Vec<_>>(),
                })
            })
            .collect();
        metrics.insert("per_seed".into(), json!(per_seed));
        let mut rows = Vec::new();
        for r in &results {
            for (k, (t, sd)) in r.spreads().iter().enumerate() {
                rows.push(vec![r.seed.to_string(), (k + 1).to_string(), format!("{t:.2}"), format!("{sd:.4}")]);
            }
        }
        let table = Table {
            file: "spread.csv".into(),
            header: vec!["seed".into(), "round".into(), "last_flash_s".into(), "spread_s".into()],
            rows,
        };
        let series: Vec<Series> = results
            .iter()
            .map(|r| (format!("seed {}", r.seed), r.spreads().iter().enumerate().map(|(k, x)| ((k + 1) as f64, x.1)).collect()))
            .collect();
        let title = format!("flash-time spread per round, {robots} robots, {start} start");
        Ok(Outcome {
            metrics,
            tables: vec![table],
            plots: vec![Plot {
                file: "spread.png".into(),
                draw: Box::new(move |path| lines(path, &title, "round", "spread of flash times (s)", &series, false)),
            }],
            report: String::new(),
        })
    }
}
