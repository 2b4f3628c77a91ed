//! `blueswarm milling`: N Bluebots with the wedge sensor (half-angle alpha, body radius
//! rho), started at random on the water surface, each diving to its own depth (a rotating
//! cylinder). Measured over the second half of the unperturbed run: the circle radius
//! (mean horizontal distance from the centroid) against the model's
//! `R = rho cos(alpha) / (cos(alpha) - cos(2 pi / N - alpha))`, the depth error. With
//! `--remove-at` / `--add-at` the last robot is taken out and put back; the recovery
//! time is from the perturbation until the radius stays within 20 % of that phase's
//! settled radius.

use super::plot::{lines, Series};
use super::{fidelity, finite_mean, over_seeds, Run};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use flotilla_firmware::bluebot::{MillingFirmware, MillingParams};
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{json, Map};
use tank_physics::systems::bluebot::capabilities::{pectoral_for_radius, turning_radius};
use tank_physics::systems::bluebot::metrics::circle;
use tank_physics::systems::bluebot::{BodyParams, SwarmConfig, SwarmWorld, Tank};

/// The milling experiment.
pub struct Milling;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "robots", kind: OptionKind::Count, default: "7", help: "Bluebots in the tank" },
    OptionSpec { name: "alpha", kind: OptionKind::Positive, default: "0.2617993877991494", help: "wedge half-angle, rad (pi/12)" },
    OptionSpec { name: "rho", kind: OptionKind::Positive, default: "0.083", help: "body radius the wedge sensor uses, m" },
    OptionSpec { name: "caudal", kind: OptionKind::Positive, default: "1.8", help: "caudal fin frequency, Hz (paper: 3 on the real fins)" },
    OptionSpec {
        name: "pectoral",
        kind: OptionKind::Numbers,
        default: "0",
        help: "pectoral frequency of both turns, Hz; 0: the one that swims r0 = --r0-factor x the model's R",
    },
    OptionSpec { name: "r0-factor", kind: OptionKind::Positive, default: "0.8", help: "r0 / R when --pectoral is 0 (stable for r0 <= R)" },
    OptionSpec { name: "duration", kind: OptionKind::Positive, default: "180", help: "sim time per run, s" },
    OptionSpec { name: "seeds", kind: OptionKind::Count, default: "5", help: "runs (seeds seed..seed+seeds)" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "first seed" },
    OptionSpec {
        name: "tank",
        kind: OptionKind::Positive,
        default: "1.78",
        help: "tank length and width, m (the paper's 1.78; larger for big circles)",
    },
    OptionSpec {
        name: "depth-spread",
        kind: OptionKind::Numbers,
        default: "0.3",
        help: "robots' preferred depths spread evenly over 0.2 m + [0, this], m (0: one depth)",
    },
    OptionSpec { name: "remove-at", kind: OptionKind::Numbers, default: "0", help: "time the last robot is taken out, s (0: never)" },
    OptionSpec { name: "add-at", kind: OptionKind::Numbers, default: "0", help: "time it is put back, s (0: never)" },
    OptionSpec { name: "fidelity", kind: OptionKind::Names, default: "analytic", help: "vision fidelity: analytic or rendered" },
];

/// Sampling period of the circle, s.
const SAMPLE: f64 = 1.0;

struct SeedRun {
    seed: u64,
    /// (time s, robots present, radius m, coefficient of variation, mean relative depth error).
    samples: Vec<(f64, usize, f64, f64, f64)>,
}

fn single(options: &Options, name: &str) -> Result<f64, ExperimentError> {
    match options.numbers(name)?.as_slice() {
        [x] if *x >= 0.0 => Ok(*x),
        _ => Err(ExperimentError::Option { option: name.into(), message: "expected one number >= 0".into() }),
    }
}

impl Experiment for Milling {
    fn system(&self) -> &'static str {
        "blueswarm"
    }

    fn name(&self) -> &'static str {
        "milling"
    }

    fn description(&self) -> &'static str {
        "wedge-sensor milling: circle radius vs the model, depth error, recovery after removing/adding a robot"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let robots = options.count("robots")?;
        // The count first: one robot has no circle, and the model's message about alpha
        // (which needs 2 pi / N > 2 alpha) contradicted itself for N = 1.
        let (remove_at, add_at) = (single(options, "remove-at")?, single(options, "add-at")?);
        if robots < 2 || (remove_at > 0.0 && robots < 3) {
            return Err(ExperimentError::Option {
                option: "robots".into(),
                message: "milling needs at least 2 robots (3 with --remove-at)".into(),
            });
        }
        let mut params = MillingParams {
            alpha: options.number("alpha")?,
            rho: options.number("rho")?,
            caudal: options.number("caudal")?,
            ..MillingParams::default()
        };
        // Alpha, rho and the caudal first (the default pectoral stands in until it is chosen).
        params.validate().map_err(|message| ExperimentError::Option { option: "alpha".into(), message })?;
        // The model's circle, if it has one for this N and alpha (2 pi / N > 2 alpha).
        let predicted = Some(params.predicted_radius(robots)).filter(|r| *r > 0.0 && r.is_finite());
        params.pectoral = match (single(options, "pectoral")?, predicted) {
            (0.0, Some(predicted)) => {
                let r0 = options.number("r0-factor")? * predicted;
                pectoral_for_radius(&BodyParams::bluebot(), params.caudal, r0).ok_or_else(|| ExperimentError::Option {
                    option: "r0-factor".into(),
                    message: format!("no pectoral frequency swims r0 = {r0:.3} m at caudal {} Hz", params.caudal),
                })?
            }
            (0.0, None) => {
                return Err(ExperimentError::Option {
                    option: "alpha".into(),
                    message: format!(
                        "the milling model has no circle for N = {robots} at alpha = {:.3} rad (it needs 2 pi / N > 2 alpha, i.e. alpha < {:.3} rad), \
                         so the pectoral frequency cannot be chosen from it: give --pectoral to run without a prediction",
                        params.alpha,
                        std::f64::consts::PI / robots.max(1) as f64
                    ),
                });
            }
            (f, _) => f,
        };
        params.validate().map_err(|message| ExperimentError::Option { option: "pectoral".into(), message })?;
        let duration = options.number("duration")?;
        let seeds = options.count("seeds")?;
        let size = options.number("tank")?;
        let spread_depth = single(options, "depth-spread")?;
        if spread_depth > 0.6 {
            return Err(ExperimentError::Option {
                option: "depth-spread".into(),
                message: "depths must stay in the 0.91 m of water: at most 0.6".into(),
            });
        }
        if remove_at >= duration {
            return Err(ExperimentError::Option {
                option: "remove-at".into(),
                message: format!("{remove_at} s is not within the run's --duration of {duration} s (0: never)"),
            });
        }
        if add_at > 0.0 && !(remove_at > 0.0 && add_at > remove_at && add_at < duration) {
            return Err(ExperimentError::Option {
                option: "add-at".into(),
                message: "needs --remove-at before it, both within --duration".into(),
            });
        }
        let fidelity = fidelity(options)?;
        let tank = Tank { size_x: size, size_y: size, ..Tank::default() };
        progress.expect(seeds, "blueswarm milling");
        let runs: Vec<SeedRun> = options
            .seed_range("seed", "seeds")?
            .into_par_iter()
            .map(|seed| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut world = SwarmWorld::new(SwarmConfig { tank: tank.clone(), fidelity, ..SwarmConfig::default() }, seed)?;
                let mut firmware = Vec::new();
                let mut depths = Vec::new();
                let centre = 0.5 * size;
                for i in 0..robots {
                    let p = Vector3::new(centre + rng.gen_range(-0.5..0.5), centre + rng.gen_range(-0.5..0.5), 0.88);
                    world.add(&format!("bluebot_{i}"), p, rng.gen_range(-3.1..3.1))?;
                    let depth = 0.2 + spread_depth * i as f64 / (robots - 1) as f64;
                    depths.push(depth);
                    firmware.push(MillingFirmware::new(MillingParams { depth, ..params }));
                }
                let mut run = Run::new(world, firmware);
                let mut samples = Vec::new();
                let mut events = vec![(remove_at, false), (add_at, true), (duration, true)];
                events.retain(|e| e.0 > 0.0);
                let mut next_sample = 0.0;
                for (at, present) in events {
                    run.run_until(at, |world, _, _| {
                        if world.time() + 1e-9 >= next_sample {
                            next_sample += SAMPLE;
                            let here: Vec<(usize, Vector3<f64>)> =
                                world.robots().iter().enumerate().filter(|(_, r)| r.present).map(|(i, r)| (i, r.body.position)).collect();
                            let points: Vec<Vector3<f64>> = here.iter().map(|x| x.1).collect();
                            let (radius, cv) = circle(&points);
                            let depth_error =
                                here.iter().map(|(i, p)| ((0.91 - p.z) - depths[*i]).abs() / depths[*i]).sum::<f64>() / here.len() as f64;
                            samples.push((world.time(), here.len(), radius, cv, depth_error));
                        }
                    })?;
                    if at < duration {
                        let last = robots - 1;
                        if present {
                            let p = Vector3::new(centre + rng.gen_range(-0.3..0.3), centre + rng.gen_range(-0.3..0.3), 0.88);
                            run.world.place(last, p, rng.gen_range(-3.1..3.1))?;
                        }
                        run.world.set_present(last, present)?;
                    }
                }
                progress.finished_one();
                Ok(SeedRun { seed, samples })
            })
            .collect::<Result<_, ExperimentError>>()?;

        // The unperturbed span and its measurement window.
        let end = if remove_at > 0.0 { remove_at } else { duration };
        let window = |t: f64| t >= 0.5 * end && t <= end;
        let mean_in =
            |run: &SeedRun, f: fn(&(f64, usize, f64, f64, f64)) -> f64| finite_mean(run.samples.iter().filter(|s| window(s.0)).map(f));
        let radii: Vec<f64> = runs.iter().map(|r| mean_in(r, |s| s.2)).collect();
        let depth_errors: Vec<f64> = runs.iter().map(|r| mean_in(r, |s| s.4)).collect();
        let cvs: Vec<f64> = runs.iter().map(|r| mean_in(r, |s| s.3)).collect();
        let r0 = turning_radius(&BodyParams::bluebot(), params.caudal, params.pectoral);
        let mean_radius = radii.iter().sum::<f64>() / radii.len() as f64;
        let mut metrics = Map::new();
        metrics.insert("robots".into(), json!(robots));
        metrics.insert("alpha_rad".into(), number(params.alpha));
        metrics.insert("rho_m".into(), number(params.rho));
        metrics.insert("caudal_hz".into(), number(params.caudal));
        metrics.insert("pectoral_hz".into(), number(params.pectoral));
        metrics.insert("r0_mm".into(), number(r0 * 1e3));
        metrics.insert("radius_mm".into(), over_seeds(&radii.iter().map(|r| r * 1e3).collect::<Vec<_>>()));
        // Null without a model circle (JSON has no NaN).
        let error = |r: f64| predicted.map_or(f64::NAN, |p| (r - p).abs() / p);
        metrics.insert("predicted_mm".into(), number(predicted.map_or(f64::NAN, |p| p * 1e3)));
        metrics.insert("radius_error".into(), number(error(mean_radius)));
        metrics.insert("radius_error_per_seed".into(), over_seeds(&radii.iter().map(|&r| error(r)).collect::<Vec<_>>()));
        metrics.insert("radius_cv".into(), over_seeds(&cvs));
        metrics.insert("depth_error".into(), over_seeds(&depth_errors));
        for (name, at) in [("recovery_after_removal_s", remove_at), ("recovery_after_addition_s", add_at)] {
            if at <= 0.0 {
                continue;
            }
            let next = if name.contains("removal") && add_at > 0.0 { add_at } else { duration };
            let recovery: Vec<f64> = runs
                .iter()
                .map(|r| {
                    let phase: Vec<&(f64, usize, f64, f64, f64)> = r.samples.iter().filter(|s| s.0 > at && s.0 <= next).collect();
                    let settled: Vec<f64> = phase.iter().filter(|s| s.0 >= 0.5 * (at + next)).map(|s| s.2).collect();
                    let target = settled.iter().sum::<f64>() / settled.len().max(1) as f64;
                    let ok = |s: &&(f64, usize, f64, f64, f64)| (s.2 - target).abs() <= 0.2 * target;
                    (0..phase.len()).find(|&k| phase[k..].iter().all(ok)).map_or(next - at, |k| phase[k].0 - at)
                })
                .collect();
            metrics.insert(name.into(), over_seeds(&recovery));
        }
        let rows = runs
            .iter()
            .flat_map(|r| {
                r.samples.iter().map(move |s| {
                    vec![
                        r.seed.to_string(),
                        format!("{:.1}", s.0),
                        s.1.to_string(),
                        format!("{:.4}", s.2),
                        format!("{:.3}", s.3),
                        format!("{:.4}", s.4),
                    ]
                })
            })
            .collect();
        let table = Table {
            file: "milling.csv".into(),
            header: ["seed", "time_s", "robots_present", "radius_m", "radius_cv", "depth_error"].map(String::from).to_vec(),
            rows,
        };
        let mut series: Vec<Series> =
            runs.iter().map(|r| (format!("seed {}", r.seed), r.samples.iter().map(|s| (s.0, s.2 * 1e3)).collect())).collect();
        if let Some(predicted) = predicted {
            series.push((format!("model, N = {robots}"), vec![(0.0, predicted * 1e3), (duration, predicted * 1e3)]));
        }
        let title = format!("milling radius, {robots} robots, alpha = {:.3} rad", params.alpha);
        Ok(Outcome {
            metrics,
            tables: vec![table],
            plots: vec![Plot {
                file: "radius.png".into(),
                draw: Box::new(move |p| lines(p, &title, "time (s)", "circle radius (mm)", &series, false)),
            }],
            report: String::new(),
        })
    }
}
