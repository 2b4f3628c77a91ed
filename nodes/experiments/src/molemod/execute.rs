//! `molemod execute`: a task planned and the plan executed by the physics
//! (`tank_physics::systems::molemod::executor`): each step's motions run on the moles in
//! the lattice of blocks and the step is checked against the lattice it should produce.
//! Writes how many steps succeeded, the largest block and robot errors, sim and wall time,
//! the failure report if a step failed, the joint readings over time and the lattice
//! before and after (side view).

use std::path::Path;
use std::time::Instant;

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::models::module_model;
use plotters::prelude::*;
use reconfig_planner::{Lattice, PlanError, RequestError};
use serde_json::{json, Map, Value};
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::{
    first_step_in_tunnels, plan_task, tunnel_world_options, BlockCheck, Event, Executor, ExecutorOptions, Failure, PlannedTask,
    TaskPlanError, EXECUTED, MAX_START_JITTER,
};
use tank_physics::systems::molemod::world::MoleWorld;

use super::plot_joints;
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use crate::report::PlotError;

/// The plan-execution experiment.
pub struct Execute;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "task", kind: OptionKind::Path, default: "", help: "task file (YAML, the planner's format; required)" },
    OptionSpec { name: "robots", kind: OptionKind::Count, default: "1", help: "robots: the first N of the task's list" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "seed of the robots' start displacements" },
    OptionSpec {
        name: "start_jitter",
        kind: OptionKind::Numbers,
        default: "1",
        help: "each robot starts displaced along its tunnel by up to +- this, mm (0 to 12.5: half a crawl step)",
    },
    OptionSpec {
        name: "from_step",
        kind: OptionKind::Index,
        default: "0",
        help: "start at this plan step, from the lattice the plan reaches before it (every robot's last action before it a move)",
    },
    OptionSpec {
        name: "block_friction",
        kind: OptionKind::Numbers,
        default: "1",
        help: "friction coefficient between two blocks (0 to 2; 1 as the blocks' own, printed plastic on itself 0.2-0.4)",
    },
];

/// Interval of the joint trace, s of sim time.
const TRACE_INTERVAL: f64 = 0.02;

/// The links drawn for a robot in the lattice pictures.
const LINKS: [&str; 3] = ["head_rear", "base_link", "head_front"];

/// Where things are, for a side view (x, z in m).
struct Snapshot {
    title: String,
    /// Blocks' centres.
    blocks: Vec<(f64, f64)>,
    /// Per robot, its main cubes' centres (rear head, body, front head).
    robots: Vec<Vec<(f64, f64)>>,
    /// Cells the plan has blocks in (centres), drawn as outlines.
    planned: Vec<(f64, f64)>,
    /// Block edge, m.
    size: f64,
}

fn snapshot(world: &MoleWorld, planned: &Lattice, title: String) -> Result<Snapshot, ExperimentError> {
    let blocks = world.blocks().map(|b| b.blocks().to_vec()).unwrap_or_default();
    let mut centres = Vec::new();
    for block in &blocks {
        let at = world.block_pose(&block.home)?;
        centres.push((at.translation.x, at.translation.z));
    }
    let mut robots = Vec::new();
    for index in 0..world.robot_count() {
        let mut cubes = Vec::new();
        for link in LINKS {
            let pose = world.robot_link_pose(index, link)?;
            cubes.push((pose.translation.x, pose.translation.z));
        }
        robots.push(cubes);
    }
    let planned = planned
        .block_cells()
        .map(|c| {
            let at = world.cell_centre(&c);
            (at.x, at.z)
        })
        .collect();
    Ok(Snapshot { title, blocks: centres, robots, planned, size: BlockOptions::default().size })
}

impl Experiment for Execute {
    fn system(&self) -> &'static str {
        "molemod"
    }

    fn name(&self) -> &'static str {
        "execute"
    }

    fn description(&self) -> &'static str {
        "a task planned and executed by the physics: steps succeeded, block and robot errors, sim/wall time, joints, lattice before/after"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    /// Task 3 runs for an hour and more: Ctrl-C stops it within a physics step, with the
    /// steps so far, the trace and the pictures written (`failure`: cancelled).
    fn interruptible(&self) -> bool {
        true
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let path = options
            .path("task")?
            .filter(|p| !p.as_os_str().is_empty())
            .ok_or_else(|| Options::invalid("task", "a task file is required"))?;
        let robots = options.count("robots")?;
        let seed = options.seed("seed")?;
        let jitter = match options.numbers("start_jitter")?.as_slice() {
            [mm] if (0.0..=MAX_START_JITTER * 1e3).contains(mm) => mm * 1e-3,
            _ => {
                return Err(Options::invalid(
                    "start_jitter",
                    format!("give one length from 0 to {} mm (half a crawl step)", MAX_START_JITTER * 1e3),
                ))
            }
        };
        let PlannedTask { task, request, plan: planned, replay, outside_repertoire } = plan_task(&path, robots).map_err(|e| match e {
            TaskPlanError::Task(e) => Options::invalid("task", e.to_string()),
            TaskPlanError::Robots(e) => Options::invalid("robots", e.to_string()),
            // A goal with robot cells (`moves3`: three) needs that many: name --robots.
            TaskPlanError::Plan(PlanError::Invalid(RequestError::GoalRobotCount { goal, start })) => Options::invalid(
                "robots",
                format!("the goal of {} places {goal} robots: give --robots {goal} (got {start})", path.display()),
            ),
            TaskPlanError::Plan(e) => super::plan_error(e, &path, robots, "task"),
            TaskPlanError::Verify(e) => e.into(),
        })?;
        let block_friction = match options.numbers("block_friction")?.as_slice() {
            [mu] if (0.0..=2.0).contains(mu) => *mu,
            _ => return Err(Options::invalid("block_friction", "give one friction coefficient from 0 to 2")),
        };
        let block_options = BlockOptions { block_friction, ..BlockOptions::default() };
        let first_step = options.index("from_step")?;
        first_step_in_tunnels(&planned.steps, first_step).map_err(|e| Options::invalid("from_step", e.to_string()))?;
        let start = replay.states.get(first_step).unwrap_or(&request.start);
        let model = module_model(ModuleKind::MolemodRobot);
        let world_options = tunnel_world_options();
        let executor_options =
            ExecutorOptions { trace_interval: TRACE_INTERVAL, start_jitter: jitter, seed, first_step, ..ExecutorOptions::default() };
        progress.expect(planned.steps.len() - first_step, &format!("{}: plan steps", task.name));
        let wall = Instant::now();
        let mut executor = Executor::new(&model, start, world_options, block_options, executor_options)?;
        let at = if first_step == 0 { String::new() } else { format!(", at step {first_step}") };
        let before = snapshot(executor.world(), start, format!("{}: before ({} robots{at})", task.name, robots))?;
        let mut events = Vec::new();
        let mut block_rows = Vec::new();
        let record = &mut |event: &Event| {
            if let Event::StepChecked { step, blocks, time, .. } = event {
                progress.finished_one();
                block_rows.extend(blocks.iter().map(|b| block_row(*step, *time, b)));
            }
            if let Some(row) = event_row(event) {
                events.push(row);
            }
        };
        let execution = executor.execute_until(&planned.steps, record, &|| progress.interrupted());
        let wall_s = wall.elapsed().as_secs_f64();
        if let Some(failure) = &execution.failure {
            events.push(failure_row(failure));
        }
        let reached = replay.states.get(first_step + execution.steps_succeeded).unwrap_or(&request.start);
        let after = snapshot(
            executor.world(),
            &request.goal,
            format!("{}: after {} of {} steps (outlines: goal)", task.name, first_step + execution.steps_succeeded, execution.steps),
        )?;
        let names: Vec<String> = executor.world().robot_at(0)?.joint_names().map(str::to_owned).collect();
        let trace: Vec<(f64, Vec<Vec<f64>>)> = executor.trace().iter().map(|s| (s.time, s.positions.clone())).collect();

        let mut metrics = Map::new();
        metrics.insert("task".into(), json!(task.name));
        metrics.insert("robots".into(), json!(robots));
        metrics.insert("block_friction".into(), number(block_friction));
        metrics.insert("plan_cost".into(), json!(planned.cost));
        // Planned with the actions the executor has arms for and robots kept apart, or (no
        // plan within them) with robots side by side, or with every action.
        metrics.insert("planned_with_executor_repertoire".into(), json!(request.repertoire == EXECUTED));
        // Why not: the planner's answer within them (no plan, robots side by side), and what
        // it was planned with instead (`Repertoire`'s text form).
        metrics.insert("executor_repertoire_refusal".into(), json!(outside_repertoire));
        metrics.insert("planned_repertoire".into(), json!(request.repertoire.to_string()));
        metrics.insert("actions".into(), json!(planned.action_count()));
        metrics.insert("steps".into(), json!(execution.steps));
        // Steps before it were not run: the executor started from the lattice the plan
        // reaches before it.
        metrics.insert("from_step".into(), json!(first_step));
        metrics.insert("steps_succeeded".into(), json!(execution.steps_succeeded));
        metrics.insert("max_block_error_mm".into(), number(execution.max_block_error * 1e3));
        metrics.insert("max_robot_error_mm".into(), number(execution.max_robot_error * 1e3));
        metrics.insert("block_tolerance_mm".into(), number(executor_options.block_tolerance * 1e3));
        metrics.insert("robot_tolerance_mm".into(), number(executor_options.robot_tolerance * 1e3));
        metrics.insert("sim_time_s".into(), number(execution.sim_time));
        metrics.insert("wall_time_s".into(), number(wall_s));
        metrics.insert("sim_per_wall".into(), number(execution.sim_time / wall_s));
        metrics.insert("goal_reached".into(), json!(execution.failure.is_none() && reached.same_blocks(&request.goal)));
        metrics.insert("failure".into(), execution.failure.as_ref().map_or(Value::Null, failure_json));

        let mut header = vec!["time_s".to_owned()];
        for robot in 0..trace.first().map_or(0, |s| s.1.len()) {
            header.extend(names.iter().map(|n| format!("robot{robot}/{n} (m or rad)")));
        }
        let joints = Table {
            file: "joints.csv".into(),
            header,
            rows: trace
                .iter()
                .map(|(t, per_robot)| {
                    std::iter::once(format!("{t:.3}")).chain(per_robot.iter().flatten().map(|v| format!("{v:.6}"))).collect()
                })
                .collect(),
        };
        let event_table = Table {
            file: "events.csv".into(),
            header: ["time_s", "step", "event", "robot", "action", "motion"].map(String::from).to_vec(),
            rows: events,
        };
        let block_table = Table {
            file: "blocks.csv".into(),
            header: ["time_s", "step", "block", "cell", "dx_mm", "dy_mm", "dz_mm", "error_mm", "tilt_mrad"].map(String::from).to_vec(),
            rows: block_rows,
        };
        let plots = vec![
            Plot {
                file: "joints.png".into(),
                draw: Box::new(move |path| plot_joints(path, "MoleMOD plan executed: joint readings", &names, &trace)),
            },
            Plot { file: "lattice_before.png".into(), draw: Box::new(move |path| plot_lattice(path, &before)) },
            Plot { file: "lattice_after.png".into(), draw: Box::new(move |path| plot_lattice(path, &after)) },
        ];
        Ok(Outcome { metrics, tables: vec![joints, event_table, block_table], plots, report: String::new() })
    }
}

fn failure_json(failure: &Failure) -> Value {
    let (off, unit) = failure.off().map_or((None, None), |(v, u)| (Some(v), Some(u)));
    json!({
        "report": failure.to_string(),
        "step": failure.step,
        "robot": failure.robot,
        "action": failure.action.map(|a| a.to_string()),
        "motion": failure.motion.map(|(i, name)| format!("{i} ({name})")),
        "off": off.map(number),
        "off_unit": unit,
        "sim_time_s": number(failure.time),
    })
}

/// A row of the blocks table: one block after a checked step.
fn block_row(step: usize, time: f64, block: &BlockCheck) -> Vec<String> {
    let mm = |v: f64| format!("{:.3}", v * 1e3);
    vec![
        format!("{time:.3}"),
        step.to_string(),
        block.home.to_string(),
        block.cell.to_string(),
        mm(block.offset.x),
        mm(block.offset.y),
        mm(block.offset.z),
        mm(block.offset.norm()),
        format!("{:.2}", block.tilt * 1e3),
    ]
}

/// The events table's last row for a stopped execution: where it stopped and the report.
fn failure_row(failure: &Failure) -> Vec<String> {
    vec![
        format!("{:.3}", failure.time),
        failure.step.to_string(),
        format!("step failed: {failure}"),
        failure.robot.map_or_else(String::new, |r| r.to_string()),
        failure.action.map_or_else(String::new, |a| a.to_string()),
        failure.motion.map_or_else(String::new, |(i, name)| format!("{i} ({name})")),
    ]
}

fn event_row(event: &Event) -> Option<Vec<String>> {
    Some(match event {
        Event::StepStarted { step, actions } => {
            let what = actions.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
            vec![String::new(), step.to_string(), "step started".into(), String::new(), what, String::new()]
        }
        Event::MotionStarted { step, action, motion, name, time } | Event::MotionFinished { step, action, motion, name, time } => {
            let what = if matches!(event, Event::MotionStarted { .. }) { "motion started" } else { "motion finished" };
            vec![
                format!("{time:.3}"),
                step.to_string(),
                what.into(),
                action.robot.to_string(),
                action.to_string(),
                format!("{motion} ({name})"),
            ]
        }
        Event::StepChecked { step, block_error, robot_error, time, .. } => vec![
            format!("{time:.3}"),
            step.to_string(),
            format!("step checked: blocks {:.3} mm, robots {:.3} mm off", block_error * 1e3, robot_error * 1e3),
            String::new(),
            String::new(),
            String::new(),
        ],
        Event::Sampled(_) => return None,
    })
}

/// Side view (x right, z up, mm): blocks where they are (grey), the planned cells
/// (green outlines), and each robot's three main cubes (orange body, red front head).
fn plot_lattice(path: &Path, shot: &Snapshot) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let h = 0.5 * shot.size * 1e3;
    let points = shot.blocks.iter().chain(&shot.planned).chain(shot.robots.iter().flatten());
    let (mut x0, mut x1, mut z1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &(x, z) in points {
        x0 = x0.min(x * 1e3 - h);
        x1 = x1.max(x * 1e3 + h);
        z1 = z1.max(z * 1e3 + h);
    }
    if !x0.is_finite() {
        (x0, x1, z1) = (-h, h, 2.0 * h);
    }
    let (x0, x1, z1) = (x0 - 40.0, x1 + 40.0, z1 + 40.0);
    let width = 1000u32;
    let height = ((f64::from(width) * (z1 + 20.0) / (x1 - x0)).round() as u32).clamp(200, 1000);
    let root = BitMapBackend::new(path, (width, height + 60)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&shot.title, ("sans-serif", 22))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(50)
        .build_cartesian_2d(x0..x1, -20.0..z1)
        .map_err(|e| err(e.to_string()))?;
    chart.configure_mesh().x_desc("x [mm]").y_desc("z [mm]").disable_mesh().draw().map_err(|e| err(e.to_string()))?;
    let square = |(x, z): (f64, f64), half: f64| [(x * 1e3 - half, z * 1e3 - half), (x * 1e3 + half, z * 1e3 + half)];
    chart
        .draw_series(std::iter::once(Rectangle::new([(x0, -20.0), (x1, 0.0)], BLACK.mix(0.3).filled())))
        .map_err(|e| err(e.to_string()))?;
    chart
        .draw_series(shot.blocks.iter().map(|&c| Rectangle::new(square(c, h - 1.0), RGBColor(150, 150, 150).mix(0.7).filled())))
        .map_err(|e| err(e.to_string()))?;
    chart.draw_series(shot.blocks.iter().map(|&c| Rectangle::new(square(c, 25.0), WHITE.filled()))).map_err(|e| err(e.to_string()))?;
    chart.draw_series(shot.planned.iter().map(|&c| Rectangle::new(square(c, h), GREEN.stroke_width(2)))).map_err(|e| err(e.to_string()))?;
    for cubes in &shot.robots {
        for (i, &c) in cubes.iter().enumerate() {
            let colour = if i == 2 { RED } else { RGBColor(255, 140, 25) };
            chart.draw_series(std::iter::once(Rectangle::new(square(c, 20.0), colour.filled()))).map_err(|e| err(e.to_string()))?;
        }
    }
    root.present().map_err(|e| err(e.to_string()))
}
