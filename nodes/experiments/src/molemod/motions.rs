//! `molemod motions`: the mole's motions (firmware `flotilla_firmware::molemod::motion`)
//! driving the final model in the physics (`tank_physics::systems::molemod::world`)
//! through the MoleMOD contract: distance per crawl cycle for each step length, turn angle
//! for each asked angle, joint accuracy at the end of every phase, and the spread of one
//! motion sequence over seeded start poses. Every figure comes from the bodies' poses.

use std::time::Instant;

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::models::{module_model, Model};
use flotilla_contract::wrap_angle as wrap;
use flotilla_firmware::molemod::motion::{AxisSpec, MoleMotions, Motion};
use nalgebra::{Isometry3, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map};
use tank_physics::systems::molemod::world::{MoleWorld, MoleWorldOptions};

use super::plot_joints;
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};

/// The motions experiment.
pub struct Motions;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "steps", kind: OptionKind::Numbers, default: "10,15,20", help: "crawl step lengths, mm" },
    OptionSpec { name: "iterations", kind: OptionKind::Count, default: "6", help: "expansions + contractions per crawl" },
    OptionSpec { name: "angles", kind: OptionKind::Numbers, default: "0.2,0.4,-0.4,0.8", help: "turn angles, rad (+ = left)" },
    OptionSpec { name: "reach", kind: OptionKind::Positive, default: "15", help: "how far the front head reaches out before a turn, mm" },
    OptionSpec { name: "starts", kind: OptionKind::Count, default: "4", help: "seeded start poses for the repeatability run" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "seed of the start poses" },
];

/// Longest a motion may take, s of sim time.
const MOTION_LIMIT: f64 = 120.0;

/// A mole on the floor with its motion firmware.
struct Mole {
    world: MoleWorld,
    firmware: MoleMotions,
    /// Joint readings, one row per step: time, then every coordinate.
    trace: Option<Vec<Vec<f64>>>,
}

impl Mole {
    fn new(model: &Model, pose: Isometry3<f64>) -> Result<Self, ExperimentError> {
        let world = MoleWorld::new(model, pose, MoleWorldOptions::default())?;
        let robot = world.robot();
        let mut axes = Vec::new();
        for name in robot.joint_names() {
            let limits = robot.limits(name)?;
            axes.push(AxisSpec { name: name.to_owned(), prismatic: robot.is_prismatic(name)?, lower: limits.lower, upper: limits.upper });
        }
        let firmware = MoleMotions::new(axes)?;
        let mut mole = Self { world, firmware, trace: None };
        // Settle on the floor with every joint held.
        mole.world.drive("mole", &mut mole.firmware, 0.2, |_| false, |_| {})?;
        Ok(mole)
    }

    /// Does `motion` to its end; a refused motion is a usage error of `option`.
    fn run(&mut self, motion: Motion, option: &str) -> Result<(), ExperimentError> {
        self.firmware.push(motion).map_err(|e| Options::invalid(option, e.to_string()))?;
        let trace = &mut self.trace;
        let finished = self.world.drive("mole", &mut self.firmware, MOTION_LIMIT, MoleMotions::idle, |r| {
            if let Some(rows) = trace.as_mut() {
                rows.push(std::iter::once(r.stamp).chain(r.joint_positions.iter().copied()).collect());
            }
        })?;
        match (finished, self.firmware.stuck()) {
            (true, None) => Ok(()),
            (_, Some(stuck)) => Err(Options::invalid(option, format!("the mole stopped: {stuck}"))),
            (false, None) => Err(Options::invalid(option, format!("{} not done after {MOTION_LIMIT} s", motion.name()))),
        }
    }

    fn body(&self) -> Result<Isometry3<f64>, ExperimentError> {
        Ok(self.world.link_pose("base_link")?)
    }
}

fn heading(pose: &Isometry3<f64>) -> f64 {
    let x = pose.rotation * Vector3::x();
    x.y.atan2(x.x)
}

impl Experiment for Motions {
    fn system(&self) -> &'static str {
        "molemod"
    }

    fn name(&self) -> &'static str {
        "motions"
    }

    fn description(&self) -> &'static str {
        "the mole's motions in the physics: distance per crawl cycle, turn angle, joint accuracy, repeatability over start poses"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let steps_mm = options.numbers("steps")?;
        let iterations = u32::try_from(options.count("iterations")?).map_err(|e| Options::invalid("iterations", e.to_string()))?;
        let angles = options.numbers("angles")?;
        let reach = options.number("reach")? * 1e-3;
        let starts = options.count("starts")?;
        let seed = options.seed("seed")?;
        let model = module_model(ModuleKind::MolemodRobot);
        progress.expect(steps_mm.len() + angles.len() + starts + 1, "mole motions");
        let wall = Instant::now();
        let mut sim_time = 0.0;
        let mut rows = Vec::new();
        let mut crawl = Map::new();
        for &step_mm in &steps_mm {
            let mut mole = Mole::new(&model, Isometry3::identity())?;
            let start = mole.body()?;
            mole.run(Motion::Crawl { step: step_mm * 1e-3, iterations, backward: false }, "steps")?;
            let forward = mole.body()?;
            let moved = start.inverse() * forward;
            mole.run(Motion::Crawl { step: step_mm * 1e-3, iterations, backward: true }, "steps")?;
            let back = (mole.body()?.translation.vector - start.translation.vector).norm();
            let per_cycle_mm = 2e3 * moved.translation.x / f64::from(iterations);
            crawl.insert(
                format!("step {step_mm} mm"),
                json!({
                    "mm_per_cycle": number(per_cycle_mm),
                    "ideal_mm_per_cycle": number(2.0 * step_mm),
                    "sideways_mm": number(moved.translation.y * 1e3),
                    "heading_change_rad": number(wrap(heading(&forward) - heading(&start))),
                    "off_start_after_back_mm": number(back * 1e3),
                }),
            );
            rows.push(vec![
                "crawl".to_owned(),
                format!("{step_mm}"),
                format!("{per_cycle_mm:.4}"),
                format!("{:.4}", moved.translation.y * 1e3),
                format!("{:.6}", wrap(heading(&forward) - heading(&start))),
            ]);
            sim_time += mole.world.time();
            progress.finished_one();
        }
        let mut turns = Map::new();
        for &angle in &angles {
            let mut mole = Mole::new(&model, Isometry3::identity())?;
            let start = mole.body()?;
            mole.run(Motion::Turn { angle, reach }, "angles")?;
            let end = mole.body()?;
            let turned = wrap(heading(&end) - heading(&start));
            let shift_mm = (end.translation.vector - start.translation.vector).norm() * 1e3;
            turns.insert(
                format!("angle {angle} rad"),
                json!({ "turned_rad": number(turned), "error_percent": number(100.0 * (turned / angle - 1.0)), "centre_moved_mm": number(shift_mm) }),
            );
            rows.push(vec!["turn".to_owned(), format!("{angle}"), format!("{turned:.6}"), format!("{shift_mm:.4}"), String::new()]);
            sim_time += mole.world.time();
            progress.finished_one();
        }
        // Repeatability: one sequence from seeded start poses, compared in each start's frame.
        let sequence = [
            Motion::Crawl { step: steps_mm[0] * 1e-3, iterations, backward: false },
            Motion::Turn { angle: angles[0], reach },
            Motion::Crawl { step: steps_mm[0] * 1e-3, iterations, backward: false },
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut ends = Vec::new();
        let mut worst_joint_um = 0.0f64;
        for _ in 0..starts {
            let pose = Isometry3::new(
                Vector3::new(rng.gen_range(-0.5..0.5), rng.gen_range(-0.5..0.5), 0.0),
                Vector3::z() * rng.gen_range(-std::f64::consts::PI..std::f64::consts::PI),
            );
            let mut mole = Mole::new(&model, pose)?;
            let start = mole.body()?;
            for motion in sequence {
                mole.run(motion, "steps")?;
            }
            let end = mole.body()?;
            let relative = start.inverse() * end;
            ends.push((relative.translation.vector, wrap(heading(&end) - heading(&start))));
            // The outer prismatic joints end each crawl contracted to 0 (dead band 50 um).
            for joint in ["prismatic_0", "prismatic_3"] {
                worst_joint_um = worst_joint_um.max(mole.world.joint_position(joint)?.abs() * 1e6);
            }
            sim_time += mole.world.time();
            progress.finished_one();
        }
        let spread_mm = ends.iter().flat_map(|a| ends.iter().map(move |b| (a.0 - b.0).norm() * 1e3)).fold(0.0, f64::max);
        let spread_rad = ends.iter().flat_map(|a| ends.iter().map(move |b| (a.1 - b.1).abs())).fold(0.0, f64::max);
        // One traced run for the joint plot: the repeatability sequence from the origin.
        let mut mole = Mole::new(&model, Isometry3::identity())?;
        mole.trace = Some(Vec::new());
        for motion in sequence {
            mole.run(motion, "steps")?;
        }
        sim_time += mole.world.time();
        progress.finished_one();
        let names: Vec<String> = mole.world.robot().joint_names().map(str::to_owned).collect();
        let trace = mole.trace.take().unwrap_or_default();
        let phases = mole.firmware.finished().len();

        let mut metrics = Map::new();
        metrics.insert("crawl".into(), crawl.into());
        metrics.insert("turn".into(), turns.into());
        metrics.insert("repeat_starts".into(), json!(starts));
        metrics.insert("repeat_end_spread_mm".into(), number(spread_mm));
        metrics.insert("repeat_heading_spread_rad".into(), number(spread_rad));
        metrics.insert("max_outer_joint_error_um".into(), number(worst_joint_um));
        metrics.insert("traced_phases".into(), json!(phases));
        metrics.insert("sim_time_s".into(), number(sim_time));
        metrics.insert("wall_time_s".into(), number(wall.elapsed().as_secs_f64()));
        let measured = Table {
            file: "motions.csv".into(),
            header: [
                "motion",
                "asked (mm step or rad)",
                "measured (mm per cycle or rad)",
                "sideways or centre moved (mm)",
                "heading change (rad)",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        };
        let mut header = vec!["time_s".to_owned()];
        header.extend(names.iter().map(|n| format!("{n} (m or rad)")));
        let joints = Table {
            file: "joints.csv".into(),
            header,
            rows: trace.iter().map(|r| r.iter().map(|v| format!("{v:.6}")).collect()).collect(),
        };
        let plot = Plot {
            file: "joints.png".into(),
            draw: Box::new(move |path| {
                let trace: Vec<(f64, Vec<Vec<f64>>)> = trace.iter().map(|r| (r[0], vec![r[1..].to_vec()])).collect();
                plot_joints(path, "MoleMOD motions: crawl, turn, crawl (joint readings)", &names, &trace)
            }),
        };
        Ok(Outcome { metrics, tables: vec![measured, joints], plots: vec![plot], report: String::new() })
    }
}
