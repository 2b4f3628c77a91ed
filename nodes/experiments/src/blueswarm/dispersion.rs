//! `blueswarm dispersion`: Lennard-Jones dispersion / aggregation of N Bluebots deployed
//! at the tank's centre, d_t switched through `--target-distances` (in body lengths)
//! every `--switch-every` s. Per phase (each a mean over seeds of the phase's second half):
//! density N / V(convex hull), hull volume, mean nearest-neighbour distance, neighbours
//! seen; and the settling time: from the switch until the density stays within a factor
//! 2 of its settled value (the paper plots density on a log scale).

use super::plot::{lines, Series};
use super::{choice, fidelity, finite_mean, over_seeds, pairing, Run, BODY_LENGTH};
use crate::experiment::{Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use flotilla_firmware::bluebot::{DispersionFirmware, DispersionGait, DispersionParams};
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{json, Map};
use tank_physics::systems::bluebot::metrics::{hull_volume, mean_nnd};
use tank_physics::systems::bluebot::vision::pipeline::PipelineParams;
use tank_physics::systems::bluebot::vision::{Analytic, Rendered, Vision};
use tank_physics::systems::bluebot::{Fidelity, SwarmConfig, SwarmWorld};

/// The dispersion experiment.
pub struct Dispersion;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "robots", kind: OptionKind::Count, default: "7", help: "Bluebots in the tank" },
    OptionSpec { name: "target-distances", kind: OptionKind::Numbers, default: "2,0.75,2,0.75", help: "d_t of each phase, BL (130 mm)" },
    OptionSpec { name: "switch-every", kind: OptionKind::Positive, default: "30", help: "length of each phase, s" },
    OptionSpec {
        name: "dead-band",
        kind: OptionKind::Positive,
        default: "0.000001",
        help: "|p| d_t below which the log speed map gives no speed (speed grows with log |p| above)",
    },
    OptionSpec {
        name: "min-caudal",
        kind: OptionKind::Numbers,
        default: "1.5",
        help: "lowest caudal frequency while a neighbour is seen, Hz (0: hold still below the dead band)",
    },
    OptionSpec {
        name: "pairing",
        kind: OptionKind::Names,
        default: "nearest-elevation",
        help: "LED pairing: nearest-elevation (vertically aligned, smallest gap first) or azimuth-order (the authors' program: next blob within 5 deg)",
    },
    OptionSpec {
        name: "gait",
        kind: OptionKind::Names,
        default: "graded",
        help: "how p becomes fin frequencies: graded (log speed map, fast turns) or program (the authors' exp_LJpot.py: caudal 1.5-2 Hz, slow pectoral turns, distances clipped at d_t + 2 BL)",
    },
    OptionSpec {
        name: "pixel-noise",
        kind: OptionKind::Numbers,
        default: "0.3",
        help: "standard deviation of a blob centre in the analytic vision, pixels (sensitivity of the spread to distance errors)",
    },
    OptionSpec { name: "seeds", kind: OptionKind::Count, default: "5", help: "runs (seeds seed..seed+seeds)" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "first seed" },
    OptionSpec { name: "fidelity", kind: OptionKind::Names, default: "analytic", help: "vision fidelity: analytic or rendered" },
];

/// One sample of one run.
#[derive(Clone, Copy)]
struct Sample {
    time: f64,
    phase: usize,
    density: f64,
    volume: f64,
    nnd: f64,
    seen: f64,
}

impl Experiment for Dispersion {
    fn system(&self) -> &'static str {
        "blueswarm"
    }

    fn name(&self) -> &'static str {
        "dispersion"
    }

    fn description(&self) -> &'static str {
        "Lennard-Jones dispersion/aggregation: density, hull volume, NND, neighbours seen per d_t phase"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let robots = options.count("robots")?;
        let targets = options.numbers("target-distances")?;
        if let Some(bad) = targets.iter().find(|t| t.is_nan() || **t <= 0.0) {
            return Err(ExperimentError::Option {
                option: "target-distances".into(),
                message: format!("every d_t must be > 0 BL, got {bad}"),
            });
        }
        let phase_length = options.number("switch-every")?;
        // Each phase's figures average its second half of readings (2 Hz): a shorter phase
        // has none and gave a summary of nulls.
        let reading = SwarmConfig::default().sensing_period;
        if phase_length < 2.0 * reading {
            return Err(ExperimentError::Option {
                option: "switch-every".into(),
                message: format!(
                    "{phase_length} s: a phase needs at least {} s (its second half holds the readings its figures average, one every {reading} s)",
                    2.0 * reading
                ),
            });
        }
        let dead_band = options.number("dead-band")?;
        let min_caudal = match options.numbers("min-caudal")?.as_slice() {
            [f] => *f,
            other => {
                return Err(ExperimentError::Option {
                    option: "min-caudal".into(),
                    message: format!("one frequency (Hz, >= 0), got {} values", other.len()),
                })
            }
        };
        let pixel_noise = match options.numbers("pixel-noise")?.as_slice() {
            [px] if *px >= 0.0 && px.is_finite() => *px,
            _ => {
                return Err(ExperimentError::Option {
                    option: "pixel-noise".into(),
                    message: "one standard deviation (pixels, >= 0)".into(),
                })
            }
        };
        let seeds = options.count("seeds")?;
        let fidelity = fidelity(options)?;
        let pipeline = PipelineParams { pairing: pairing(options)?, ..PipelineParams::default() };
        let gait = match choice(options, "gait", &["graded", "program"])?.as_str() {
            "program" => DispersionGait::Program,
            _ => DispersionGait::Graded,
        };
        progress.expect(seeds, "blueswarm dispersion");
        let runs: Vec<(u64, Vec<Sample>)> = options
            .seed_range("seed", "seeds")?
            .into_par_iter()
            .map(|seed| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let vision: Box<dyn Vision> = match fidelity {
                    Fidelity::Analytic => Box::new(Analytic { pipeline, pixel_noise, ..Analytic::default() }),
                    Fidelity::Rendered => Box::new(Rendered { pipeline, ..Rendered::default() }),
                };
                let mut world = SwarmWorld::new(SwarmConfig { fidelity, ..SwarmConfig::default() }, seed)?.with_vision(vision);
                // Centrally deployed: within 0.25 m of the tank's centre at mid-depth.
                for i in 0..robots {
                    let p =
                        Vector3::new(0.89 + rng.gen_range(-0.25..0.25), 0.89 + rng.gen_range(-0.25..0.25), 0.45 + rng.gen_range(-0.1..0.1));
                    world.add(&format!("bluebot_{i}"), p, rng.gen_range(-3.1..3.1))?;
                }
                let params = DispersionParams {
                    target_distance: targets[0] * BODY_LENGTH,
                    dead_band,
                    min_caudal,
                    gait,
                    ..DispersionParams::default()
                };
                params.validate().map_err(|message| ExperimentError::Option { option: "dead-band/min-caudal".into(), message })?;
                let mut run = Run::new(world, (0..robots).map(|_| DispersionFirmware::new(params)).collect());
                let mut samples = Vec::new();
                for (phase, &target) in targets.iter().enumerate() {
                    for fw in &mut run.firmware {
                        fw.set_target_distance(target * BODY_LENGTH)
                            .map_err(|message| ExperimentError::Option { option: "target-distances".into(), message })?;
                    }
                    run.run_until((phase + 1) as f64 * phase_length, |world, readings, _| {
                        let points: Vec<Vector3<f64>> = world.robots().iter().map(|r| r.body.position).collect();
                        let volume = hull_volume(&points);
                        let seen = readings.iter().flatten().map(|r| r.neighbours.len() as f64).sum::<f64>() / robots as f64;
                        samples.push(Sample {
                            time: world.time(),
                            phase,
                            // A hull without volume (fewer than four robots, or all in one
                            // plane) has no density: NaN, reported as null / an empty cell.
                            density: if volume > 0.0 { robots as f64 / volume } else { f64::NAN },
                            volume,
                            nnd: mean_nnd(&points),
                            seen,
                        });
                    })?;
                }
                progress.finished_one();
                Ok((seed, samples))
            })
            .collect::<Result<_, ExperimentError>>()?;

        let mut metrics = Map::new();
        let mut phases = Vec::new();
        for (phase, &target) in targets.iter().enumerate() {
            let start = phase as f64 * phase_length;
            let settled = |s: &&Sample| s.phase == phase && s.time >= start + 0.5 * phase_length;
            let per_seed = |f: fn(&Sample) -> f64| -> Vec<f64> {
                runs.iter().map(|(_, samples)| finite_mean(samples.iter().filter(settled).map(f))).collect()
            };
            let settling: Vec<f64> = runs
                .iter()
                .map(|(_, samples)| {
                    let mine: Vec<&Sample> = samples.iter().filter(|s| s.phase == phase).collect();
                    let last: Vec<f64> = mine.iter().filter(|s| s.time >= start + 0.5 * phase_length).map(|s| s.volume).collect();
                    let target_volume = last.iter().sum::<f64>() / last.len().max(1) as f64;
                    if target_volume <= 0.0 {
                        // No settled volume to settle to (the hull stayed flat): no settling
                        // time, rather than the phase's length.
                        return f64::NAN;
                    }
                    let inside = |s: &&&Sample| s.volume > 0.5 * target_volume && s.volume < 2.0 * target_volume;
                    let first_stable = (0..mine.len()).find(|&k| mine[k..].iter().all(|s| inside(&s)));
                    first_stable.map_or(phase_length, |k| mine[k].time - start)
                })
                .collect();
            phases.push(json!({
                "phase": phase + 1,
                "target_distance_bl": target,
                "target_distance_m": target * BODY_LENGTH,
                "density_per_m3": over_seeds(&per_seed(|s| s.density)),
                "hull_volume_m3": over_seeds(&per_seed(|s| s.volume)),
                "mean_nnd_m": over_seeds(&per_seed(|s| s.nnd)),
                "mean_neighbours_seen": over_seeds(&per_seed(|s| s.seen)),
                "settling_s": over_seeds(&settling),
            }));
        }
        metrics.insert("robots".into(), json!(robots));
        metrics.insert("phases".into(), json!(phases));
        let mut rows = Vec::new();
        for (seed, samples) in &runs {
            for s in samples {
                rows.push(vec![
                    seed.to_string(),
                    format!("{:.1}", s.time),
                    format!("{}", targets[s.phase]),
                    if s.density.is_finite() { format!("{:.3}", s.density) } else { String::new() },
                    format!("{:.5}", s.volume),
                    format!("{:.4}", s.nnd),
                    format!("{:.3}", s.seen),
                ]);
            }
        }
        let table = Table {
            file: "dispersion.csv".into(),
            header: ["seed", "time_s", "target_distance_bl", "density_per_m3", "hull_volume_m3", "mean_nnd_m", "neighbours_seen"]
                .map(String::from)
                .to_vec(),
            rows,
        };
        let mean_series = |f: fn(&Sample) -> f64| -> Vec<(f64, f64)> {
            let n = runs.iter().map(|(_, s)| s.len()).min().unwrap_or(0);
            (0..n).map(|k| (runs[0].1[k].time, finite_mean(runs.iter().map(|(_, s)| f(&s[k]))))).collect()
        };
        let density: Vec<Series> = vec![("density (mean over seeds)".into(), mean_series(|s| s.density.min(1e5)))];
        let nnd: Vec<Series> = vec![
            ("mean NND (m)".into(), mean_series(|s| s.nnd)),
            (
                "d_t (m)".into(),
                runs.first().map_or(Vec::new(), |(_, s)| s.iter().map(|x| (x.time, targets[x.phase] * BODY_LENGTH)).collect()),
            ),
            ("neighbours seen / 10".into(), mean_series(|s| s.seen / 10.0)),
        ];
        let title = format!("{robots} Bluebots, d_t = {:?} BL every {phase_length} s", targets);
        let title2 = title.clone();
        Ok(Outcome {
            metrics,
            tables: vec![table],
            plots: vec![
                Plot {
                    file: "density.png".into(),
                    draw: Box::new(move |p| lines(p, &title, "time (s)", "density N / V(hull) (1/m^3)", &density, true)),
                },
                Plot { file: "nnd.png".into(), draw: Box::new(move |p| lines(p, &title2, "time (s)", "m", &nnd, false)) },
            ],
            report: String::new(),
        })
    }
}
