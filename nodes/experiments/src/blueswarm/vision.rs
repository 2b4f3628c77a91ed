//! `blueswarm vision`: neighbour-detection accuracy of the emulated vision. N Bluebots are
//! placed at random (positions, headings, depths) in the tank many times; every robot's
//! reading is compared with the truth: each reported neighbour is matched to the robot
//! whose LED midpoint lies nearest its bearing; its distance and bearing errors are kept,
//! and a match farther than 5 deg off is a false detection. Also the seen-neighbour count
//! and the time per reading.

use super::{fidelity, finite_mean, over_seeds};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Progress, Table};
use flotilla_contract::bluebot::BluebotCommand;
use nalgebra::Vector3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map};
use std::time::Instant;
use tank_physics::systems::bluebot::vision::pipeline::wrap;
use tank_physics::systems::bluebot::{SwarmConfig, SwarmWorld};

/// The vision-accuracy experiment.
pub struct VisionAccuracy;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "robots", kind: OptionKind::Count, default: "7", help: "Bluebots in the tank" },
    OptionSpec {
        name: "placements",
        kind: OptionKind::Count,
        default: "200",
        help: "random placements (each robot reads once per placement)",
    },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "seed" },
    OptionSpec { name: "fidelity", kind: OptionKind::Names, default: "analytic", help: "vision fidelity: analytic or rendered" },
];

/// A match farther off than this is a false detection, rad.
const FALSE_MATCH: f64 = 0.087;

impl Experiment for VisionAccuracy {
    fn system(&self) -> &'static str {
        "blueswarm"
    }

    fn name(&self) -> &'static str {
        "vision"
    }

    fn description(&self) -> &'static str {
        "emulated vision accuracy: distance and bearing error vs truth, neighbours seen, time per reading"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let robots = options.count("robots")?;
        if robots < 2 {
            return Err(ExperimentError::Option { option: "robots".into(), message: "needs at least 2 robots".into() });
        }
        let placements = options.count("placements")?;
        let seed = options.seed("seed")?;
        let fidelity = fidelity(options)?;
        progress.expect(placements, "blueswarm vision");
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut world = SwarmWorld::new(SwarmConfig { fidelity, ..SwarmConfig::default() }, seed)?;
        for i in 0..robots {
            world.add(&format!("bluebot_{i}"), Vector3::new(0.5, 0.5, 0.5), 0.0)?;
            world.apply(i, &BluebotCommand { leds: true, ..BluebotCommand::default() })?;
        }
        let (mut distance_errors, mut bearing_errors, mut seen, mut in_view, mut false_detections) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), 0usize);
        let mut elapsed = 0.0;
        let mut readings = 0usize;
        for _ in 0..placements {
            // Random places at least 0.12 m apart (bodies do not overlap).
            let mut placed: Vec<Vector3<f64>> = Vec::new();
            for i in 0..robots {
                let p = loop {
                    let p = Vector3::new(rng.gen_range(0.1..1.68), rng.gen_range(0.1..1.68), rng.gen_range(0.1..0.85));
                    if placed.iter().all(|q| (q - p).norm() > 0.12) {
                        break p;
                    }
                };
                placed.push(p);
                world.place(i, p, rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI))?;
            }
            for i in 0..robots {
                let started = Instant::now();
                let reading = world.sense(i)?;
                elapsed += started.elapsed().as_secs_f64();
                readings += 1;
                let me = &world.robots()[i].body;
                let to_body = me.orientation.inverse();
                let truth: Vec<(f64, f64, f64)> = world
                    .robots()
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, r)| {
                        let d = to_body * (r.body.position - me.position);
                        (d.y.atan2(d.x), (d.z / d.norm()).asin(), d.norm())
                    })
                    .collect();
                // Outside the 5 deg blind spot behind.
                in_view.push(truth.iter().filter(|t| wrap(t.0 - std::f64::consts::PI).abs() > 2.5f64.to_radians()).count() as f64);
                seen.push(reading.neighbours.len() as f64);
                for n in &reading.neighbours {
                    let angle = |t: &(f64, f64, f64)| {
                        let a = Vector3::new(n.elevation.cos() * n.azimuth.cos(), n.elevation.cos() * n.azimuth.sin(), n.elevation.sin());
                        let b = Vector3::new(t.1.cos() * t.0.cos(), t.1.cos() * t.0.sin(), t.1.sin());
                        a.dot(&b).clamp(-1.0, 1.0).acos()
                    };
                    let best = truth.iter().min_by(|a, b| angle(a).total_cmp(&angle(b)));
                    match best {
                        Some(t) if angle(t) <= FALSE_MATCH => {
                            distance_errors.push((n.distance - t.2) / t.2);
                            bearing_errors.push(angle(t).to_degrees());
                        }
                        _ => false_detections += 1,
                    }
                }
            }
            progress.finished_one();
        }
        let abs: Vec<f64> = distance_errors.iter().map(|e| e.abs()).collect();
        let mut sorted = abs.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
        let mut metrics = Map::new();
        metrics.insert("fidelity".into(), json!(world.vision_name()));
        metrics.insert("readings".into(), json!(readings));
        metrics.insert("neighbours_seen".into(), over_seeds(&seen));
        metrics.insert("neighbours_in_view".into(), number(finite_mean(in_view.iter().copied())));
        metrics.insert("neighbours_total".into(), json!(robots - 1));
        metrics.insert("distance_error_mean_abs".into(), number(finite_mean(abs.iter().copied())));
        metrics.insert("distance_error_median_abs".into(), number(median));
        metrics.insert("distance_error_bias".into(), number(finite_mean(distance_errors.iter().copied())));
        metrics.insert("bearing_error_mean_deg".into(), number(finite_mean(bearing_errors.iter().copied())));
        metrics.insert("false_detections_per_reading".into(), number(false_detections as f64 / readings.max(1) as f64));
        metrics.insert("reading_time_us".into(), number(elapsed / readings.max(1) as f64 * 1e6));
        let rows = distance_errors.iter().zip(&bearing_errors).map(|(d, b)| vec![format!("{d:.4}"), format!("{b:.3}")]).collect();
        Ok(Outcome {
            metrics,
            tables: vec![Table {
                file: "errors.csv".into(),
                header: vec!["distance_error_relative".into(), "bearing_error_deg".into()],
                rows,
            }],
            plots: Vec::new(),
            report: String::new(),
        })
    }
}
