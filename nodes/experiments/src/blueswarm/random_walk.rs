//! `blueswarm random-walk`: the lone searcher. The paper's Markov chain (41 states 0.5 BL
//! apart from the far corner, 0, to the source, n = 40; start at the surface centre,
//! j = 24; one step toward or away per second, reflecting at 0) has the expected hitting
//! time n^2 - j^2 = 1024 s; it is sampled here over many trials. Next to it, one Bluebot
//! running the search firmware alone in the simulated tank (random walk, no neighbours)
//! until it detects the red source.

use super::search::at_surface_centre;
use super::{over_seeds, Run};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Progress, Table};
use flotilla_firmware::bluebot::{SearchFirmware, SearchParams, SearchState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{json, Map};
use tank_physics::systems::bluebot::{SwarmConfig, SwarmWorld, Tank};

/// The random-walk experiment.
pub struct RandomWalk;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "trials", kind: OptionKind::Count, default: "20000", help: "Markov-chain walks" },
    OptionSpec { name: "states", kind: OptionKind::Count, default: "40", help: "n: the source's state (the chain has n + 1)" },
    OptionSpec { name: "start", kind: OptionKind::Count, default: "24", help: "j: the start state" },
    OptionSpec { name: "tank-trials", kind: OptionKind::Count, default: "10", help: "lone simulated Bluebots (one per seed)" },
    OptionSpec { name: "max-time", kind: OptionKind::Positive, default: "3000", help: "a simulated robot gives up after this, s" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "seed" },
];

/// Steps of one walk from `start` to `n` (reflecting at 0).
fn walk(n: u64, start: u64, rng: &mut ChaCha8Rng) -> u64 {
    let (mut at, mut steps) = (start, 0);
    while at < n {
        at = if at == 0 || rng.gen::<bool>() { at + 1 } else { at - 1 };
        steps += 1;
    }
    steps
}

impl Experiment for RandomWalk {
    fn system(&self) -> &'static str {
        "blueswarm"
    }

    fn name(&self) -> &'static str {
        "random-walk"
    }

    fn description(&self) -> &'static str {
        "lone random walker: Markov-chain hitting time vs n^2 - j^2, and one simulated Bluebot searching alone"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let trials = options.count("trials")?;
        let n = options.count("states")? as u64;
        let j = options.count("start")? as u64;
        if j >= n {
            return Err(ExperimentError::Option {
                option: "start".into(),
                message: format!("the start state must be below --states ({n}), got {j}"),
            });
        }
        let tank_trials = options.count("tank-trials")?;
        let max_time = options.number("max-time")?;
        let seed = options.seed("seed")?;
        progress.expect(tank_trials + 1, "blueswarm random-walk");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let steps: Vec<f64> = (0..trials).map(|_| walk(n, j, &mut rng) as f64).collect();
        progress.finished_one();
        let chain_mean = steps.iter().sum::<f64>() / steps.len() as f64;
        let sd = (steps.iter().map(|s| (s - chain_mean).powi(2)).sum::<f64>() / steps.len() as f64).sqrt();
        let expected = (n * n - j * j) as f64;
        let lone: Vec<(u64, Option<f64>)> = options
            .seed_range("seed", "tank-trials")?
            .into_par_iter()
            .map(|s| {
                let mut rng = ChaCha8Rng::seed_from_u64(s);
                let mut world =
                    SwarmWorld::new(SwarmConfig { tank: Tank::default().with_red_source_in_a_corner(), ..SwarmConfig::default() }, s)?;
                at_surface_centre(&mut world, 1, &mut rng)?;
                let mut run = Run::new(world, vec![SearchFirmware::new(SearchParams::default(), s, 0)]);
                let mut found = None;
                let mut t = 0.0;
                while t < max_time && found.is_none() {
                    t = (t + 20.0).min(max_time);
                    run.run_until(t, |world, _, fw| {
                        if found.is_none() && fw[0].state() == SearchState::Alert {
                            found = Some(world.time());
                        }
                    })?;
                }
                progress.finished_one();
                Ok((s, found))
            })
            .collect::<Result<_, ExperimentError>>()?;
        let found: Vec<f64> = lone.iter().filter_map(|x| x.1).collect();
        // Runs that did not find it count at max-time: a lower bound of the mean.
        let censored_mean = lone.iter().map(|x| x.1.unwrap_or(max_time)).sum::<f64>() / lone.len().max(1) as f64;
        let mut metrics = Map::new();
        metrics.insert("markov_expected_s".into(), number(expected));
        metrics.insert("markov_mean_s".into(), number(chain_mean));
        metrics.insert("markov_standard_error_s".into(), number(sd / (steps.len() as f64).sqrt()));
        metrics.insert("markov_trials".into(), json!(trials));
        metrics.insert("lone_bluebot_detection_s".into(), over_seeds(&found));
        metrics.insert("lone_bluebot_found".into(), json!(found.len()));
        metrics.insert("lone_bluebot_trials".into(), json!(lone.len()));
        metrics.insert("lone_bluebot_mean_with_misses_at_max_s".into(), number(censored_mean));
        let rows = lone.iter().map(|(s, t)| vec![s.to_string(), t.map_or("none".into(), |t| format!("{t:.1}"))]).collect();
        Ok(Outcome {
            metrics,
            tables: vec![Table { file: "lone_bluebot.csv".into(), header: vec!["seed".into(), "detection_s".into()], rows }],
            plots: Vec::new(),
            report: String::new(),
        })
    }
}
