//! `blueswarm search`: N Bluebots start at the centre of the water surface; a red light
//! sits in a bottom corner. Each runs the search / alert / gather state machine. Measured:
//! the first detection (first robot alerts), everyone alerted (every robot is gathering or
//! alerting) and everyone at the source (every robot alerting).

use super::plot::{lines, Series};
use super::{fidelity, over_seeds, Run};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use flotilla_firmware::bluebot::{SearchFirmware, SearchParams, SearchState};
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{json, Map};
use tank_physics::systems::bluebot::{SwarmConfig, SwarmWorld, Tank};

/// The search experiment.
pub struct Search;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "robots", kind: OptionKind::Count, default: "7", help: "Bluebots in the tank" },
    OptionSpec {
        name: "duration",
        kind: OptionKind::Positive,
        default: "300",
        help: "longest sim time per run, s (a run ends when all are at the source)",
    },
    OptionSpec { name: "seeds", kind: OptionKind::Count, default: "5", help: "runs (seeds seed..seed+seeds)" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "first seed" },
    OptionSpec { name: "fidelity", kind: OptionKind::Names, default: "analytic", help: "vision fidelity: analytic or rendered" },
];

/// Times of one run, s (None: not within the duration), and the state counts over time.
struct SeedRun {
    seed: u64,
    first_detection: Option<f64>,
    all_alerted: Option<f64>,
    all_at_source: Option<f64>,
    /// (time, searching, gathering, alerting).
    counts: Vec<(f64, usize, usize, usize)>,
}

/// Places `robots` Bluebots at the centre of the water surface (within 0.1 m), seeded.
pub(super) fn at_surface_centre(world: &mut SwarmWorld, robots: usize, rng: &mut ChaCha8Rng) -> Result<(), ExperimentError> {
    let tank = world.config().tank.clone();
    for i in 0..robots {
        let p = Vector3::new(
            0.5 * tank.size_x + rng.gen_range(-0.1..0.1),
            0.5 * tank.size_y + rng.gen_range(-0.1..0.1),
            tank.water_depth - 0.03,
        );
        world.add(&format!("bluebot_{i}"), p, rng.gen_range(-3.1..3.1))?;
    }
    Ok(())
}

fn time_json(times: &[Option<f64>]) -> serde_json::Value {
    let reached: Vec<f64> = times.iter().flatten().copied().collect();
    let mut v = over_seeds(&reached);
    v["runs_reached"] = json!(reached.len());
    v["runs"] = json!(times.len());
    v
}

impl Experiment for Search {
    fn system(&self) -> &'static str {
        "blueswarm"
    }

    fn name(&self) -> &'static str {
        "search"
    }

    fn description(&self) -> &'static str {
        "search/alert/gather for a red light: first detection, everyone alerted, everyone at the source"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let robots = options.count("robots")?;
        let duration = options.number("duration")?;
        let seeds = options.count("seeds")?;
        let fidelity = fidelity(options)?;
        progress.expect(seeds, "blueswarm search");
        let runs: Vec<SeedRun> = options
            .seed_range("seed", "seeds")?
            .into_par_iter()
            .map(|seed| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let tank = Tank::default().with_red_source_in_a_corner();
                let mut world = SwarmWorld::new(SwarmConfig { tank, fidelity, ..SwarmConfig::default() }, seed)?;
                at_surface_centre(&mut world, robots, &mut rng)?;
                let firmware = (0..robots).map(|i| SearchFirmware::new(SearchParams::default(), seed, i as u32)).collect();
                let mut run = Run::new(world, firmware);
                let mut out = SeedRun { seed, first_detection: None, all_alerted: None, all_at_source: None, counts: Vec::new() };
                let mut t = 0.0;
                while t < duration && out.all_at_source.is_none() {
                    t = (t + 10.0).min(duration);
                    run.run_until(t, |world, _, fw| {
                        let time = world.time();
                        let count = |s: SearchState| fw.iter().filter(|f| f.state() == s).count();
                        let (search, gather, alert) = (count(SearchState::Search), count(SearchState::Gather), count(SearchState::Alert));
                        out.counts.push((time, search, gather, alert));
                        if alert > 0 && out.first_detection.is_none() {
                            out.first_detection = Some(time);
                        }
                        if search == 0 && out.all_alerted.is_none() {
                            out.all_alerted = Some(time);
                        }
                        if alert == robots && out.all_at_source.is_none() {
                            out.all_at_source = Some(time);
                        }
                    })?;
                }
                progress.finished_one();
                Ok(out)
            })
            .collect::<Result<_, ExperimentError>>()?;
        let mut metrics = Map::new();
        metrics.insert("robots".into(), json!(robots));
        metrics.insert("first_detection_s".into(), time_json(&runs.iter().map(|r| r.first_detection).collect::<Vec<_>>()));
        metrics.insert("all_alerted_s".into(), time_json(&runs.iter().map(|r| r.all_alerted).collect::<Vec<_>>()));
        metrics.insert("all_at_source_s".into(), time_json(&runs.iter().map(|r| r.all_at_source).collect::<Vec<_>>()));
        let per_seed: Vec<_> = runs
            .iter()
            .map(|r| json!({"seed": r.seed, "first_detection_s": r.first_detection.map(number), "all_alerted_s": r.all_alerted.map(number), "all_at_source_s": r.all_at_source.map(number)}))
            .collect();
        metrics.insert("per_seed".into(), json!(per_seed));
        let rows = runs
            .iter()
            .flat_map(|r| {
                r.counts
                    .iter()
                    .map(move |c| vec![r.seed.to_string(), format!("{:.1}", c.0), c.1.to_string(), c.2.to_string(), c.3.to_string()])
            })
            .collect();
        let table = Table {
            file: "states.csv".into(),
            header: ["seed", "time_s", "searching", "gathering", "alerting"].map(String::from).to_vec(),
            rows,
        };
        let series: Vec<Series> =
            runs.iter().map(|r| (format!("seed {}", r.seed), r.counts.iter().map(|c| (c.0, c.3 as f64)).collect())).collect();
        let title = format!("robots alerting at the source, {robots} Bluebots");
        Ok(Outcome {
            metrics,
            tables: vec![table],
            plots: vec![Plot {
                file: "alerting.png".into(),
                draw: Box::new(move |p| lines(p, &title, "time (s)", "robots alerting", &series, false)),
            }],
            report: String::new(),
        })
    }
}
