//! `flotilla experiment kilobot self-assembly`: one seeded run of the self-assembly of an
//! image's shape, with the study's metrics, CSV tables and figures.

use super::layout::{robots_for_area, shape_from_image, Arrangement, LayoutError};
use super::plots::{self, EndRobot};
use super::run::{run, Frame, RunError, RunRecord, Scenario};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use flotilla_firmware::kilobot::{Localisation, References, SelfAssemblyParams, Shape, State};
use serde_json::{Map, Value};
use std::ops::ControlFlow;
use std::sync::Arc;
use tank_physics::systems::kilobot::{Avoidance, Bounds, ChannelConfig, DistanceError, Failures, TableConfig, TableError};

/// The study's distance accuracy (2 mm), world units.
pub const DISTANCE_ACCURACY: f64 = 2.0 / 32.5;
/// Robots closer than this fraction of DESIRED_DISTANCE cover a point of the shape.
pub const COVER_FRACTION: f64 = 0.75;
/// Fraction of the shape covered for it to count as complete.
pub const COMPLETE_FRACTION: f64 = 0.95;
/// How far outside the shape a joined robot may be and still count as in it, world units.
pub const OUTSIDE_TOLERANCE: f64 = 0.05;
/// Localisation RMSE below which it counts as converged, world units (0.65 mm).
pub const CONVERGED_RMSE: f64 = 0.02;

/// The experiment.
pub struct SelfAssemblyExperiment;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "shape",
        kind: OptionKind::Path,
        default: concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/shapes/rectangle_10x5.png"),
        help: "black-and-white image of the shape (dark = shape; lower-left corner = seeds)",
    },
    OptionSpec { name: "scale", kind: OptionKind::Positive, default: "0.05", help: "world units (robot diameters, 32.5 mm) per pixel" },
    OptionSpec { name: "robots", kind: OptionKind::Text, default: "auto", help: "non-seed robots, or `auto`: as many as fill the shape" },
    OptionSpec { name: "localisation", kind: OptionKind::Text, default: "greedy", help: "ideal | greedy | least-squares" },
    OptionSpec {
        name: "references",
        kind: OptionKind::Text,
        default: "shape",
        help: "whom robots localise from: shape (seeds and joined robots; joined robots keep localising) | study (the study's code: every stationary robot whose estimate holds still, the starting group included; joined robots stop)",
    },
    OptionSpec { name: "noise", kind: OptionKind::Numbers, default: "0", help: "distance error as a multiple k of 2 mm (0: exact)" },
    OptionSpec {
        name: "noise-kind",
        kind: OptionKind::Text,
        default: "uniform",
        help: "uniform U(-k 2mm, k 2mm) | gaussian N(0, (k 2mm / 3)^2)",
    },
    OptionSpec {
        name: "failure-threshold",
        kind: OptionKind::Text,
        default: "none",
        help: "motors fail when U(0,1) exceeds it (e.g. 0.95), or none",
    },
    OptionSpec { name: "failure-interval", kind: OptionKind::Count, default: "500", help: "steps between motor-failure draws" },
    OptionSpec { name: "no-collision-avoidance", kind: OptionKind::Flag, default: "false", help: "robots do not yield to the robot ahead" },
    OptionSpec {
        name: "speed-std",
        kind: OptionKind::Numbers,
        default: "0",
        help: "standard deviation of the per-robot speed factor N(1, s^2)",
    },
    OptionSpec {
        name: "turn-angle",
        kind: OptionKind::Positive,
        default: "10",
        help: "heading change per turning step, degrees (the study: 45; hardware 45 deg/s = 1.46)",
    },
    OptionSpec { name: "desired-distance", kind: OptionKind::Positive, default: "1.615", help: "DESIRED_DISTANCE, robot diameters" },
    OptionSpec {
        name: "neighbor-radius",
        kind: OptionKind::Positive,
        default: "4.845",
        help: "NEIGHBOR_RADIUS (and IR range), robot diameters",
    },
    OptionSpec { name: "gradient-distance", kind: OptionKind::Positive, default: "1.715", help: "G, robot diameters" },
    OptionSpec { name: "startup-time", kind: OptionKind::Count, default: "500", help: "STARTUP_TIME, steps" },
    OptionSpec { name: "divide-localize", kind: OptionKind::Positive, default: "2", help: "DIVIDE_LOCALIZE of the greedy trilateration" },
    OptionSpec {
        name: "channel",
        kind: OptionKind::Text,
        default: "ideal",
        help: "ideal (every neighbour every step) | shared (240 packets/s per neighbourhood)",
    },
    OptionSpec { name: "loss", kind: OptionKind::Numbers, default: "0", help: "probability a receiver misses a message, 0..1" },
    OptionSpec {
        name: "table-size",
        kind: OptionKind::Text,
        default: "unbounded",
        help: "side of a square table centred on the seeds, robot diameters, or unbounded",
    },
    OptionSpec { name: "max-steps", kind: OptionKind::Count, default: "200000", help: "steps before the run is stopped" },
    OptionSpec {
        name: "pack",
        kind: OptionKind::Text,
        default: "corner",
        help: "where the starting pack stands: corner (lower left of the seeds) | study (the study's code: the seeds' lattice continued below them, robots touching)",
    },
    OptionSpec {
        name: "pack-spacing",
        kind: OptionKind::Text,
        default: "auto",
        help: "lattice spacing of the starting pack, robot diameters, or `desired` (= DESIRED_DISTANCE), or `auto` (desired for the corner pack, 1 for the study's)",
    },
    OptionSpec {
        name: "headings",
        kind: OptionKind::Text,
        default: "random",
        help: "which way robots face at the start: random | north (the study's: with --turn-angle 45 they keep to its eight compass headings)",
    },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "run seed" },
];

/// A scenario from options.
pub fn scenario(options: &Options) -> Result<Scenario, ExperimentError> {
    let scale = options.number("scale")?;
    let path = options.path("shape")?.ok_or_else(|| bad("shape", "give an image file"))?;
    let shape = shape_from_image(&path, scale).map_err(|e| bad("shape", e.to_string()))?;
    let localisation: Localisation = options.text("localisation")?.parse().map_err(|e: String| bad("localisation", e))?;
    let references: References = options.text("references")?.parse().map_err(|e: String| bad("references", e))?;
    let params = SelfAssemblyParams {
        desired_distance: options.number("desired-distance")?,
        neighbor_radius: options.number("neighbor-radius")?,
        gradient_distance: options.number("gradient-distance")?,
        divide_localize: options.number("divide-localize")?,
        startup_time: u32::try_from(options.count("startup-time")?)
            .map_err(|_| bad("startup-time", format!("at most {} steps", u32::MAX)))?,
        localisation,
        references,
        ..SelfAssemblyParams::default()
    };
    params.validate().map_err(|e| {
        let option = match e.field {
            "neighbor_radius" => "neighbor-radius",
            "gradient_distance" => "gradient-distance",
            "divide_localize" => "divide-localize",
            _ => "desired-distance",
        };
        bad(option, e.to_string())
    })?;
    let single = |name: &str| -> Result<f64, ExperimentError> {
        match options.numbers(name)?.as_slice() {
            [v] if *v >= 0.0 => Ok(*v),
            _ => Err(bad(name, "give one number >= 0")),
        }
    };
    let k = single("noise")?;
    let distance_error = match options.text("noise-kind")? {
        _ if k == 0.0 => DistanceError::None,
        "uniform" => DistanceError::Uniform { half_width: k * DISTANCE_ACCURACY },
        "gaussian" => DistanceError::Gaussian { sigma: k * DISTANCE_ACCURACY / 3.0 },
        other => return Err(bad("noise-kind", format!("`{other}` is not uniform or gaussian"))),
    };
    let loss = single("loss")?;
    if loss > 1.0 {
        return Err(bad("loss", "a probability is at most 1"));
    }
    let mut channel = ChannelConfig { range: params.neighbor_radius, distance_error, loss, ..ChannelConfig::default() };
    match options.text("channel")? {
        "ideal" => {}
        "shared" => channel = channel.shared(),
        other => return Err(bad("channel", format!("`{other}` is not ideal or shared"))),
    }
    let failures = match options.text("failure-threshold")? {
        "none" => None,
        text => {
            let threshold: f64 = text.parse().map_err(|_| bad("failure-threshold", format!("`{text}` is not a number or none")))?;
            if !(0.0..=1.0).contains(&threshold) {
                return Err(bad("failure-threshold", "must be in [0, 1]"));
            }
            Some(Failures { interval: options.count("failure-interval")? as u64, threshold })
        }
    };
    let bounds = match options.text("table-size")? {
        "unbounded" => None,
        text => {
            let side: f64 = text
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s > 2.0)
                .ok_or_else(|| bad("table-size", format!("`{text}` is not a side > 2 or unbounded")))?;
            Some(Bounds { min: [-side / 2.0, -side / 2.0], max: [side / 2.0, side / 2.0] })
        }
    };
    let table = TableConfig {
        bounds,
        speed_factor_std: single("speed-std")?,
        turn_angle: options.number("turn-angle")?.to_radians(),
        avoidance: (!options.flag("no-collision-avoidance")?).then(Avoidance::default),
        failures,
        channel,
        ..TableConfig::default()
    };
    table.validate().map_err(|e| {
        let option = match &e {
            TableError::Parameter { field, .. } => match *field {
                "turn_angle" => "turn-angle",
                "speed_factor_std" | "step_length" => "speed-std",
                "channel.loss" => "loss",
                "channel.range" => "neighbor-radius",
                "failures.interval" => "failure-interval",
                "failures.threshold" => "failure-threshold",
                "bounds" => "table-size",
                field if field.starts_with("distance_error") => "noise",
                _ => "channel",
            },
            TableError::Pose { .. } => "shape",
        };
        bad(option, e.to_string())
    })?;
    // The shape must be on the table: a shape past a wall (10 x 5 on a table of side 12,
    // reaching 6 from the seeds) ran, never to fill.
    if let Some(b) = bounds {
        let (width, height) = (shape.width() as f64 * shape.scale(), shape.height() as f64 * shape.scale());
        if width > b.max[0] || height > b.max[1] {
            return Err(bad(
                "table-size",
                format!(
                    "the shape spans {width} x {height} world units from the seeds' corner at the table's centre, past the walls {} from it: a side of at least {} is needed",
                    b.max[0],
                    2.0 * width.max(height)
                ),
            ));
        }
    }
    let robots = match options.text("robots")? {
        "auto" => robots_for_area(&shape, params.desired_distance).map_err(|e| bad("robots", format!("auto: {e}")))?,
        text => {
            text.parse().ok().filter(|n: &usize| *n >= 1).ok_or_else(|| bad("robots", format!("`{text}` is not a count >= 1 or auto")))?
        }
    };
    let record_every = if robots <= 400 { 10 } else { 0 };
    let arrangement: Arrangement = options.text("pack")?.parse().map_err(|e: String| bad("pack", e))?;
    Ok(Scenario {
        shape: Arc::new(shape),
        params,
        table,
        robots,
        arrangement,
        headings: options.text("headings")?.parse().map_err(|e: String| bad("headings", e))?,
        pack_spacing: match options.text("pack-spacing")? {
            "auto" if arrangement == Arrangement::Study => 1.0,
            "desired" | "auto" => params.desired_distance,
            text => text
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s >= 1.0)
                .ok_or_else(|| bad("pack-spacing", format!("`{text}` is not a spacing >= 1, desired or auto")))?,
        },
        clearance: 1.5,
        max_steps: options.count("max-steps")? as u64,
        record_every,
        loop_check_every: 1000,
        seed: options.seed("seed")?,
    })
}

impl Experiment for SelfAssemblyExperiment {
    fn system(&self) -> &'static str {
        "kilobot"
    }

    fn name(&self) -> &'static str {
        "self-assembly"
    }

    fn description(&self) -> &'static str {
        "Kilobots assemble an image's shape from four seeds (SPEC 4): steps, fill, localisation error, collisions"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    /// A 1024-robot run takes an hour and more: Ctrl-C ends it at the next loop check
    /// with its results written (`ending: interrupted`).
    fn interruptible(&self) -> bool {
        true
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let scenario = scenario(options)?;
        progress.expect((scenario.max_steps / 1000) as usize, "thousand steps (the bar ends early when the shape is done)");
        let record = run(&scenario, |_| {
            progress.finished_one();
            if progress.interrupted() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .map_err(|e| match e {
            RunError::Layout(l @ LayoutError::TooMany { .. }) => Options::invalid("robots", l.to_string()),
            RunError::Layout(l) => Options::invalid("shape", l.to_string()),
            // The seeds stand where they always do: a start pose the table refuses is the
            // pack's (a spacing of 1e308 put robots at infinity).
            RunError::Table(t @ TableError::Pose { .. }) => Options::invalid(
                "pack-spacing",
                format!("{t}: the starting pack does not fit in the numbers at this spacing; give a smaller one"),
            ),
            other => Options::invalid("shape", other.to_string()),
        })?;
        Ok(outcome(&scenario, record))
    }
}

/// Whether `p` is in the shape or within OUTSIDE_TOLERANCE of it (a robot stops one step
/// after its believed position left the shape).
fn near_shape(shape: &Shape, p: [f64; 2]) -> bool {
    let t = OUTSIDE_TOLERANCE;
    [[0.0, 0.0], [t, 0.0], [-t, 0.0], [0.0, t], [0.0, -t]].iter().any(|d| shape.contains(p[0] + d[0], p[1] + d[1]))
}

/// Fraction of the shape's pixels within COVER_FRACTION x DESIRED_DISTANCE of a joined robot
/// or seed (true positions).
pub fn filled_fraction(shape: &Shape, joined: &[[f64; 2]], desired: f64) -> f64 {
    let r = COVER_FRACTION * desired;
    let mut buckets: std::collections::HashMap<(i64, i64), Vec<[f64; 2]>> = std::collections::HashMap::new();
    for p in joined {
        buckets.entry(((p[0] / r).floor() as i64, (p[1] / r).floor() as i64)).or_default().push(*p);
    }
    let (mut total, mut covered) = (0usize, 0usize);
    for c in shape.pixel_centres() {
        total += 1;
        let (bx, by) = ((c[0] / r).floor() as i64, (c[1] / r).floor() as i64);
        let hit = (-1..=1).any(|dx| {
            (-1..=1).any(|dy| buckets.get(&(bx + dx, by + dy)).is_some_and(|v| v.iter().any(|p| (p[0] - c[0]).hypot(p[1] - c[1]) < r)))
        });
        covered += usize::from(hit);
    }
    covered as f64 / total.max(1) as f64
}

/// Each robot's position along the shared path per recorded step: the path is the world
/// path of the first robot to move, from its start to its stop; a robot is on it when within
/// 0.3 world units, at the arc length of the nearest path point. Also counts overtakings
/// (two robots swapping order on the path between recorded steps: collisions).
pub fn shared_path(frames: &[Frame], seeds: usize) -> (Vec<Vec<(u64, f64)>>, usize) {
    let n = frames.first().map_or(0, |f| f.world.len());
    let Some(first) = (seeds..n).min_by_key(|&i| frames.iter().position(|f| f.moving[i]).unwrap_or(usize::MAX)) else {
        return (Vec::new(), 0);
    };
    let reference: Vec<[f64; 2]> = frames.iter().filter(|f| f.moving[first]).map(|f| f.world[first].map(f64::from)).collect();
    if reference.len() < 2 {
        return (Vec::new(), 0);
    }
    let mut arc = vec![0.0];
    for w in reference.windows(2) {
        arc.push(arc.last().copied().unwrap_or(0.0) + (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]));
    }
    let locate = |p: [f64; 2]| {
        let (k, d) = reference.iter().enumerate().map(|(k, q)| (k, (q[0] - p[0]).hypot(q[1] - p[1]))).min_by(|a, b| a.1.total_cmp(&b.1))?;
        (d < 0.3).then_some(arc[k])
    };
    let mut lines = vec![Vec::new(); n];
    let mut on: Vec<Vec<Option<f64>>> = Vec::with_capacity(frames.len());
    for f in frames {
        let row: Vec<Option<f64>> =
            (0..n).map(|i| if i >= seeds && f.moving[i] { locate(f.world[i].map(f64::from)) } else { None }).collect();
        for (i, s) in row.iter().enumerate() {
            if let Some(s) = s {
                lines[i].push((f.step, *s));
            }
        }
        on.push(row);
    }
    let mut overtakings = 0;
    for w in on.windows(2) {
        for i in 0..n {
            for j in i + 1..n {
                if let (Some(a0), Some(b0), Some(a1), Some(b1)) = (w[0][i], w[0][j], w[1][i], w[1][j]) {
                    // A swap of order by more than the path's sampling noise.
                    if (a0 - b0) * (a1 - b1) < 0.0 && (a0 - b0).abs() > 0.05 && (a1 - b1).abs() > 0.05 {
                        overtakings += 1;
                    }
                }
            }
        }
    }
    (lines.into_iter().filter(|l| !l.is_empty()).collect(), overtakings)
}

fn outcome(scenario: &Scenario, record: RunRecord) -> Outcome {
    let swarm = &record.swarm;
    let seeds = swarm.seeds();
    let n = swarm.firmware.len();
    let params = scenario.params;
    let shape = scenario.shape.clone();
    let robots: Vec<EndRobot> = (0..n)
        .map(|i| {
            let p = swarm.table.pose(i);
            let program = swarm.firmware[i].program();
            EndRobot { world: [p.x, p.y], believed: program.position(), state: program.state(), seed: i < seeds }
        })
        .collect();
    let count = |pred: &dyn Fn(&EndRobot) -> bool| robots[seeds..].iter().filter(|r| pred(r)).count();
    let joined: Vec<[f64; 2]> = robots.iter().filter(|r| r.seed || r.state == State::JoinedShape).map(|r| r.world).collect();
    let filled = filled_fraction(&shape, &joined, params.desired_distance);
    let sq = |r: &EndRobot| (r.world[0] - r.believed[0]).powi(2) + (r.world[1] - r.believed[1]).powi(2);
    let mean = |v: Vec<f64>| if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 };
    let localised: Vec<f64> = (seeds..n).filter(|&i| swarm.firmware[i].program().localised()).map(|i| sq(&robots[i])).collect();
    let localised_count = localised.len();
    let joined_mse: Vec<f64> = robots[seeds..].iter().filter(|r| r.state == State::JoinedShape).map(sq).collect();
    let steps = swarm.table.steps();
    let startup = params.startup_time as usize;
    let rmse_startup = record.rmse.get(startup).map_or(f64::NAN, |v| f64::from(*v));
    // Converged: the first step below the threshold after the error's peak (robots start
    // from (0, 0)); with no error above it (ideal), the first step with a position.
    let peak = record.rmse.iter().enumerate().filter(|(_, v)| v.is_finite()).max_by(|a, b| a.1.total_cmp(b.1));
    let converged = match peak {
        Some((s, v)) if f64::from(*v) >= CONVERGED_RMSE => {
            record.rmse.iter().skip(s).position(|v| f64::from(*v) < CONVERGED_RMSE).map(|k| k + s)
        }
        _ => record.rmse.iter().position(|v| v.is_finite()),
    };
    let (lines, overtakings) = shared_path(&record.frames, seeds);
    let sim_seconds = steps as f64 * scenario.table.step_duration;

    let mut m = Map::new();
    m.insert("steps".into(), steps.into());
    m.insert("ending".into(), record.ending.name().into());
    m.insert("complete".into(), (filled >= COMPLETE_FRACTION).into());
    m.insert("filled_fraction".into(), number(filled));
    m.insert("robots".into(), (n - seeds).into());
    m.insert("robots_joined".into(), count(&|r| r.state == State::JoinedShape).into());
    m.insert("robots_edge_following".into(), count(&|r| r.state.is_moving()).into());
    m.insert("robots_waiting".into(), count(&|r| matches!(r.state, State::Start | State::WaitToMove)).into());
    m.insert("robots_joined_outside_shape".into(), count(&|r| r.state == State::JoinedShape && !near_shape(&shape, r.world)).into());
    m.insert("mse_world_vs_believed".into(), number(mean(joined_mse)));
    m.insert("mse_all_localised_world_vs_believed".into(), number(mean(localised)));
    // The study's own figure (its `compute_mse`): every robot, seeds included, each
    // coordinate on its own, so (joined robots only) 22 / 26 / 2 of the one above on its L.
    m.insert("mse_study_definition".into(), number(mean(robots.iter().map(sq).collect()) / 2.0));
    m.insert("robots_localised".into(), localised_count.into());
    m.insert("localisation_rmse_after_startup".into(), number(rmse_startup));
    m.insert("localisation_converged_step".into(), converged.map_or(Value::Null, |s| s.into()));
    m.insert("collisions".into(), swarm.table.collisions().into());
    m.insert("shared_path_overtakings".into(), overtakings.into());
    m.insert("motor_failures".into(), swarm.table.failed_count().into());
    m.insert("transmissions".into(), swarm.table.transmissions().into());
    m.insert("simulated_time_s".into(), number(sim_seconds));
    m.insert("wall_time_s".into(), number(record.wall_seconds));
    m.insert("real_time_factor".into(), number(sim_seconds / record.wall_seconds.max(1e-9)));

    let end_rows = (0..n)
        .map(|i| {
            let r = &robots[i];
            let program = swarm.firmware[i].program();
            vec![
                i.to_string(),
                swarm.firmware[i].kilo().kilo_uid().to_string(),
                r.seed.to_string(),
                format!("{:?}", r.state),
                program.gradient().map_or_else(String::new, |g| g.to_string()),
                format!("{:.6}", r.world[0]),
                format!("{:.6}", r.world[1]),
                format!("{:.6}", r.believed[0]),
                format!("{:.6}", r.believed[1]),
                format!("{:.4}", swarm.table.odometer(i)),
                swarm.table.failed(i).to_string(),
            ]
        })
        .collect();
    let header = ["robot", "uid", "seed", "state", "gradient", "x", "y", "believed_x", "believed_y", "travelled", "motors_failed"];
    let mut tables = vec![Table { file: "end_state.csv".into(), header: header.iter().map(|h| (*h).to_owned()).collect(), rows: end_rows }];
    let every = (record.rmse.len() / 5000).max(1);
    tables.push(Table {
        file: "localisation_rmse.csv".into(),
        header: vec!["step".into(), "rmse_robot_diameters".into()],
        // No robot has a position yet (the first steps): an empty cell, not NaN.
        rows: record
            .rmse
            .iter()
            .enumerate()
            .step_by(every)
            .map(|(s, v)| vec![s.to_string(), if v.is_finite() { format!("{v:.6e}") } else { String::new() }])
            .collect(),
    });
    if !record.frames.is_empty() {
        let mut rows = Vec::new();
        for f in &record.frames {
            for i in 0..n {
                rows.push(vec![
                    f.step.to_string(),
                    i.to_string(),
                    format!("{:.4}", f.world[i][0]),
                    format!("{:.4}", f.world[i][1]),
                    format!("{:.4}", f.believed[i][0]),
                    format!("{:.4}", f.believed[i][1]),
                ]);
            }
        }
        let header = ["step", "robot", "x", "y", "believed_x", "believed_y"].iter().map(|h| (*h).to_owned()).collect();
        tables.push(Table { file: "paths.csv".into(), header, rows });
    }

    let title = format!("{} robots + {seeds} seeds, {} steps ({})", n - seeds, steps, record.ending.name());
    let mut plots = Vec::new();
    {
        let (shape, title) = (shape.clone(), title.clone());
        plots.push(Plot {
            file: "end_state.png".into(),
            draw: Box::new(move |p| plots::end_state(p, &format!("end state: {title}"), &shape, &robots)),
        });
    }
    {
        let rmse = record.rmse.clone();
        plots.push(Plot {
            file: "localisation_rmse.png".into(),
            draw: Box::new(move |p| plots::rmse(p, "localisation RMSE per step (line: STARTUP_TIME)", &rmse, params.startup_time)),
        });
    }
    if !record.frames.is_empty() {
        let (shape, title, frames) = (shape.clone(), title.clone(), record.frames.clone());
        plots.push(Plot { file: "paths.png".into(), draw: Box::new(move |p| plots::paths(p, &title, &shape, &frames, seeds)) });
        plots.push(Plot {
            file: "shared_path.png".into(),
            draw: Box::new(move |p| plots::shared_path(p, "position along the shared path (crossings: collisions)", &lines)),
        });
    }
    Outcome { metrics: m, tables, plots, report: String::new() }
}

/// An error about option `name`.
fn bad(name: &str, message: impl Into<String>) -> ExperimentError {
    Options::invalid(name, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> Options {
        let given: Vec<(String, String)> = pairs.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect();
        Options::parse(OPTIONS, &given).unwrap()
    }

    #[test]
    fn bad_options_are_named() {
        let e = scenario(&options(&[("localisation", "magic")])).unwrap_err().to_string();
        assert!(e.contains("--localisation") && e.contains("least-squares"), "{e}");
        let e = scenario(&options(&[("failure-threshold", "2")])).unwrap_err().to_string();
        assert!(e.contains("--failure-threshold"), "{e}");
        let e = scenario(&options(&[("robots", "many")])).unwrap_err().to_string();
        assert!(e.contains("--robots"), "{e}");
        let e = scenario(&options(&[("pack", "heap")])).unwrap_err().to_string();
        assert!(e.contains("--pack") && e.contains("corner, study"), "{e}");
        let e = scenario(&options(&[("references", "friends")])).unwrap_err().to_string();
        assert!(e.contains("--references") && e.contains("shape, study"), "{e}");
        let e = scenario(&options(&[("headings", "east")])).unwrap_err().to_string();
        assert!(e.contains("--headings") && e.contains("random, north"), "{e}");
        let study = scenario(&options(&[("pack", "study")])).unwrap();
        assert_eq!((study.arrangement, study.pack_spacing), (Arrangement::Study, 1.0));
        assert_eq!(scenario(&options(&[])).unwrap().pack_spacing, 1.615);
        let e = Options::parse(OPTIONS, &[("scale".into(), "0".into())]).unwrap_err().to_string();
        assert!(e.contains("--scale") && e.contains("> 0"), "{e}");
        let e = SelfAssemblyExperiment.run(&options(&[("robots", "70000")]), &Progress::hidden()).err().unwrap().to_string();
        assert!(e.contains("70000 robots do not fit"), "{e}");
        let e = SelfAssemblyExperiment
            .run(&options(&[("robots", "300"), ("table-size", "20")]), &Progress::hidden())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("300 robots do not fit"), "{e}");
    }

    /// Regression: `--pack-spacing 1e308` was reported as `option --shape: kilobot table:
    /// robot 4 at (NaN, -inf) is not finite`, naming an option that was fine.
    #[test]
    fn a_pack_beyond_the_numbers_names_the_pack_spacing() {
        let e = SelfAssemblyExperiment.run(&options(&[("robots", "5"), ("pack-spacing", "1e308")]), &Progress::hidden()).err().unwrap();
        let e = e.to_string();
        assert!(e.starts_with("option --pack-spacing: kilobot table: robot") && e.contains("give a smaller one"), "{e}");
    }

    /// Regression: a table whose walls cut through the shape (the 10 x 5 rectangle on a
    /// table of side 12, reaching 6 from the seeds) was accepted, a run that could never fill.
    #[test]
    fn a_table_that_cuts_the_shape_is_refused() {
        let e = scenario(&options(&[("robots", "5"), ("table-size", "12")])).unwrap_err().to_string();
        assert!(e.starts_with("option --table-size: the shape spans 10 x 5 world units") && e.contains("at least 20 is needed"), "{e}");
        assert!(scenario(&options(&[("robots", "5"), ("table-size", "20")])).is_ok());
    }

    #[test]
    fn coverage_counts_pixels_near_joined_robots() {
        let shape = Shape::rectangle(4.0, 2.0, 0.1).unwrap();
        assert_eq!(filled_fraction(&shape, &[], 1.0), 0.0);
        let grid: Vec<[f64; 2]> = (0..5).flat_map(|i| (0..3).map(move |j| [i as f64, j as f64])).collect();
        assert_eq!(filled_fraction(&shape, &grid, 1.0), 1.0);
        let half = filled_fraction(&shape, &grid[..9], 1.0);
        assert!(half > 0.3 && half < 0.7, "{half}");
    }
}
