//! The ROS 2 side of `molemod_physics`: the node's task is planned at start-up, and each
//! `~/execute` goal (`flotilla_msgs/action/ExecutePlan`) runs a plan on the physics from
//! a fresh world built from its start lattice: the node's own plan when the goal carries
//! no actions, else the goal's start and actions (checked by the executor against the
//! planner's rules, so an edited plan fails with a report instead of being refused).
//! Goals run one at a time, each on its own thread, paced to `real_time_factor`.
//!
//! While a goal runs, every `1 / publish.rate` s of sim time: `/clock` (sim time, summed
//! over goals so that it never runs backwards), per robot `/molemod/robot_<i>/joint_states`
//! (`sensor_msgs/JointState`, the encoder readings of the mole's joint coordinates), and
//! `/tf`: `<frame_id> -> molemod/robot_<i>/<link>` for every link and `<frame_id> ->
//! molemod/block_<x>_<y>_<z>` for every block (named after its start cell), all from the
//! rapier poses: the node publishes the links itself because robot_state_publisher is not
//! part of the pip-wheel ROS this project runs on, and the physics knows the poses anyway;
//! and `~/markers` (`visualization_msgs/MarkerArray`): every block as a translucent cube
//! at its physics pose. Each robot's URDF is latched on
//! `/molemod/robot_<i>/robot_description`, so rviz's RobotModel with `TF Prefix:
//! molemod/robot_<i>` draws the moving mole (`config/molemod.rviz`).
//! Feedback goes out at every step start, motion start and end and step check (`step` =
//! steps done, `current` = the lattice the plan has reached, `event` with the step, robot,
//! action, motion and, at a check, the largest block and robot errors); the same events
//! as text lines on `~/events`. The result carries success, the summary or
//! the executor's failure report (step, robot, action, motion, how far off), the lattice
//! reached and the steps done; a failed goal is aborted and the node serves the next.
//! A cancelled goal stops at its next physics step, or while its world is built (blocks
//! added, then settled) at the next block, robot or settle step, and ends cancelled.
//! On SIGINT/SIGTERM a running goal stops at its next physics step and is aborted with
//! the steps it did (the client gets its result, the summary counts it and its sim time)
//! before the node goes; goals that arrive while it shuts down are rejected.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use flotilla_common::catalogue::ModuleKind;
use flotilla_common::models::{module_model, render_urdf, Model};
use flotilla_common::ros::{self as fros, Spinner, Startup};
use futures::{Stream, StreamExt};
use nalgebra::Vector3;
use r2r::flotilla_msgs::action::ExecutePlan;
use r2r::geometry_msgs::msg::TransformStamped;
use r2r::sensor_msgs::msg::JointState;
use r2r::std_msgs::msg::ColorRGBA;
use r2r::tf2_msgs::msg::TFMessage;
use r2r::visualization_msgs::msg::{Marker, MarkerArray};
use r2r::QosProfile;
use reconfig_planner::ros::lattice_msg;
use reconfig_planner::{Action, ActionCosts, Lattice};
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::{
    plan_task, tunnel_world_options, Event, Executor, ExecutorError, ExecutorOptions, FailureKind, PlannedTask, WorldSample,
};
use tokio::sync::mpsc;
use tracing::{info, warn};

use crate::settings::NodeSettings;

/// Publishers the execution threads use.
struct Outputs {
    clock: r2r::Publisher<r2r::rosgraph_msgs::msg::Clock>,
    tf: r2r::Publisher<TFMessage>,
    joints: Vec<r2r::Publisher<JointState>>,
    events: r2r::Publisher<r2r::std_msgs::msg::String>,
    markers: r2r::Publisher<MarkerArray>,
}

/// What every goal shares.
struct Shared {
    settings: NodeSettings,
    model: Model,
    planned: PlannedTask,
    /// Locked by the running goal's thread (r2r publishers are `Send`, not `Sync`).
    out: Mutex<Outputs>,
    /// Sim time before the running goal's world started, s (the sum of earlier goals').
    clock_offset: Mutex<f64>,
    /// Set on SIGINT/SIGTERM: the running goal stops.
    stop: AtomicBool,
    /// A goal is being served (from its acceptance to its result).
    busy: AtomicBool,
    succeeded: AtomicU64,
    failed: AtomicU64,
}

/// The joint-state topic of robot `index`.
pub fn joint_topic(index: usize) -> String {
    format!("/molemod/robot_{index}/joint_states")
}

/// The latched URDF topic of robot `index` (rviz's RobotModel reads it).
pub fn description_topic(index: usize) -> String {
    format!("/molemod/robot_{index}/robot_description")
}

/// Longest wait at shutdown for the running goal to stop and send its result.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(3);

/// Runs the node until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    let planned = plan_task(&settings.task_path, settings.robots).context("planning the task")?;
    if let Some(why) = &planned.outside_repertoire {
        tracing::warn!(task = %settings.task_path.display(), %why, "planned with every action: no plan within the executor's repertoire");
    }
    let model = module_model(ModuleKind::MolemodRobot);
    // The start world, built once here so that a lattice the physics cannot hold fails
    // the start-up (exit 2) rather than every goal.
    let start = Executor::new(&model, &planned.request.start, tunnel_world_options(), BlockOptions::default(), executor_options(&settings))
        .context("building the world from the task's start lattice")?;
    let mut node = startup.create_node()?;
    let goals = node.create_action_server::<ExecutePlan::Action>("~/execute")?;
    let robots = planned.request.start.robots().len();
    let out = Outputs {
        clock: node.create_publisher("/clock", QosProfile::default())?,
        tf: node.create_publisher("/tf", QosProfile::default())?,
        joints: (0..robots).map(|i| node.create_publisher(&joint_topic(i), QosProfile::default())).collect::<Result<_, _>>()?,
        events: node.create_publisher("~/events", QosProfile::default().keep_last(100))?,
        markers: node.create_publisher("~/markers", QosProfile::default())?,
    };
    // Kept for the node's life: a late rviz gets the latched descriptions.
    let latched = QosProfile::default().transient_local().keep_last(1);
    let urdf = r2r::std_msgs::msg::String { data: render_urdf(&model) };
    let _descriptions = (0..robots)
        .map(|i| {
            let publisher = node.create_publisher::<r2r::std_msgs::msg::String>(&description_topic(i), latched.clone())?;
            publisher.publish(&urdf)?;
            Ok(publisher)
        })
        .collect::<Result<Vec<_>, r2r::Error>>()?;
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    info!(
        task = %planned.task.name,
        robots,
        seed = settings.seed,
        steps = planned.plan.steps.len(),
        cost = planned.plan.cost,
        real_time_factor = settings.real_time_factor,
        "molemod_physics ready"
    );
    let shared = Arc::new(Shared {
        settings,
        model,
        planned,
        out: Mutex::new(out),
        clock_offset: Mutex::new(0.0),
        stop: AtomicBool::new(false),
        busy: AtomicBool::new(false),
        succeeded: AtomicU64::new(0),
        failed: AtomicU64::new(0),
    });
    match start.sample() {
        Ok(sample) => shared.publish(&sample, 0.0),
        Err(e) => warn!("sampling the start world: {e}"),
    }
    drop(start);
    let started = Instant::now();
    let serving = tokio::spawn(serve(goals, shared.clone()));
    let signal = fros::shutdown_signal().await.context("installing signal handlers")?;
    info!(signal, "shutting down");
    shared.stop.store(true, Ordering::SeqCst);
    // A running goal stops at its next step and answers its client before the node goes
    // (it used to be dropped: no result, not in the summary, its thread publishing on the
    // released node).
    if shared.busy.load(Ordering::SeqCst) {
        info!("stopping the running goal");
        let deadline = Instant::now() + SHUTDOWN_WAIT;
        while shared.busy.load(Ordering::SeqCst) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if shared.busy.load(Ordering::SeqCst) {
            warn!("the running goal did not stop within {SHUTDOWN_WAIT:?}");
        } else {
            // The result response is written; let the middleware deliver it.
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    serving.abort();
    spinner.stop();
    fros::release_node(node);
    let sim = *shared.clock_offset.lock().map_err(|_| anyhow::anyhow!("clock lock poisoned"))?;
    Ok(format!(
        "summary: {} goals succeeded, {} failed or cancelled, {sim:.2} s of sim time executed in {:.1} s",
        shared.succeeded.load(Ordering::Relaxed),
        shared.failed.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    ))
}

fn executor_options(settings: &NodeSettings) -> ExecutorOptions {
    ExecutorOptions {
        start_jitter: settings.start_jitter,
        seed: settings.seed,
        sample_interval: 1.0 / settings.publish.rate,
        ..ExecutorOptions::default()
    }
}

/// The plan a goal asks for: the node's own when it carries no actions.
fn goal_plan(goal: &ExecutePlan::Goal, shared: &Shared) -> Result<(Lattice, Vec<Vec<Action>>), String> {
    if goal.actions.is_empty() {
        return Ok((shared.planned.request.start.clone(), shared.planned.plan.steps.clone()));
    }
    reconfig_planner::ros::goal_plan(goal)
}

/// What an execution thread tells the goal's task.
enum Report {
    Feedback(ExecutePlan::Feedback),
    Done(ExecutePlan::Result, Outcome),
}

#[derive(Clone, Copy, PartialEq)]
enum Outcome {
    Succeeded,
    Failed,
    /// Cancelled by the client.
    Cancelled,
    /// Stopped because the node shuts down (aborted: the client did not ask).
    Stopped,
}

/// Goals one at a time (one world).
async fn serve(mut requests: impl Stream<Item = r2r::ActionServerGoalRequest<ExecutePlan::Action>> + Unpin, shared: Arc<Shared>) {
    while let Some(req) = requests.next().await {
        // Busy before the stop check, the shutdown sets stop before it checks busy: either
        // this goal is refused or the shutdown waits for it.
        shared.busy.store(true, Ordering::SeqCst);
        let plan =
            if shared.stop.load(Ordering::SeqCst) { Err("the node is shutting down".to_owned()) } else { goal_plan(&req.goal, &shared) };
        let (start, steps) = match plan {
            Ok(p) => p,
            Err(reason) => {
                warn!(%reason, "goal rejected");
                if let Err(e) = req.reject() {
                    warn!("rejecting a goal: {e}");
                }
                shared.busy.store(false, Ordering::SeqCst);
                continue;
            }
        };
        let (mut goal, mut cancels) = match req.accept() {
            Ok(g) => g,
            Err(e) => {
                warn!("accepting a goal: {e}");
                shared.busy.store(false, Ordering::SeqCst);
                continue;
            }
        };
        info!(steps = steps.len(), robots = start.robots().len(), "executing a plan");
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let worker = {
            let (shared, cancel) = (shared.clone(), cancel.clone());
            std::thread::Builder::new().name("molemod-execute".into()).spawn(move || shared.execute(&start, &steps, &cancel, &tx))
        };
        if let Err(e) = worker {
            warn!("starting the execution thread: {e}");
            let result = ExecutePlan::Result { message: format!("the execution thread could not start: {e}"), ..Default::default() };
            if let Err(e) = goal.abort(result) {
                warn!("sending the execution result: {e}");
            }
            shared.failed.fetch_add(1, Ordering::Relaxed);
            shared.busy.store(false, Ordering::SeqCst);
            continue;
        }
        let mut done = None;
        while done.is_none() {
            tokio::select! {
                report = rx.recv() => match report {
                    Some(Report::Feedback(f)) => {
                        if let Err(e) = goal.publish_feedback(f) {
                            warn!("execution feedback: {e}");
                        }
                    }
                    Some(Report::Done(result, outcome)) => done = Some((result, outcome)),
                    None => done = Some((ExecutePlan::Result { message: "the execution thread ended without a result".into(), ..Default::default() }, Outcome::Failed)),
                },
                Some(c) = cancels.next() => {
                    c.accept();
                    cancel.store(true, Ordering::Release);
                }
            }
        }
        let Some((result, outcome)) = done else {
            shared.busy.store(false, Ordering::SeqCst);
            continue;
        };
        let counter = if outcome == Outcome::Succeeded { &shared.succeeded } else { &shared.failed };
        counter.fetch_add(1, Ordering::Relaxed);
        let sent = match outcome {
            Outcome::Succeeded => goal.succeed(result),
            Outcome::Failed | Outcome::Stopped => goal.abort(result),
            Outcome::Cancelled => goal.cancel(result),
        };
        if let Err(e) = sent {
            warn!("sending the execution result: {e}");
        }
        shared.busy.store(false, Ordering::SeqCst);
    }
}

impl Shared {
    /// Runs `steps` from `start` in a fresh world; reports progress and the result on `tx`.
    fn execute(&self, start: &Lattice, steps: &[Vec<Action>], cancel: &AtomicBool, tx: &mpsc::UnboundedSender<Report>) {
        let total = steps.len() as u32;
        let failed = |message: String| ExecutePlan::Result { success: false, message, final_: lattice_msg(start), steps_done: 0 };
        let stopped = || cancel.load(Ordering::Acquire) || self.stop.load(Ordering::Acquire);
        // Cancellable while built: the settle of a full 8 x 8 x 8 lattice (150 steps of 512
        // blocks) takes 11-25 s on the 2-core machine, one step 0.1-0.3 s.
        let built = Instant::now();
        let world = tunnel_world_options();
        let mut executor =
            match Executor::new_until(&self.model, start, world, BlockOptions::default(), executor_options(&self.settings), &stopped) {
                Ok(e) => e,
                Err(ExecutorError::Cancelled) => {
                    let (message, outcome) = if cancel.load(Ordering::Acquire) {
                        (format!("cancelled while its world was being built (0 of {total} steps)"), Outcome::Cancelled)
                    } else {
                        (
                            format!("stopped while its world was being built (0 of {total} steps): the node is shutting down"),
                            Outcome::Stopped,
                        )
                    };
                    info!(%message, blocks = start.block_count(), after_s = built.elapsed().as_secs_f64(), "plan execution ended");
                    let _ = tx.send(Report::Done(failed(message), outcome));
                    return;
                }
                Err(e) => {
                    let _ =
                        tx.send(Report::Done(failed(format!("the world cannot be built from the start lattice: {e}")), Outcome::Failed));
                    return;
                }
            };
        info!(blocks = start.block_count(), robots = start.robots().len(), build_s = built.elapsed().as_secs_f64(), "world built");
        let offset = self.clock_offset.lock().map_or(0.0, |o| *o);
        if let Ok(sample) = executor.sample() {
            self.publish(&sample, offset);
        }
        let costs = ActionCosts::default();
        let mut reached = start.clone();
        let mut done = 0u32;
        let pace = (Instant::now(), executor.world().time());
        let wall = Instant::now();
        let rtf = self.settings.real_time_factor;
        let execution = executor.execute_until(
            steps,
            &mut |event| {
                if let Event::Sampled(sample) = event {
                    self.publish(sample, offset);
                    tank_physics::rate::wait_for_real_time(pace, sample.time, rtf);
                    return;
                }
                if let Event::StepChecked { step, .. } = event {
                    // The executor checked the step against the rules before it ran.
                    if let Some(Ok((next, _))) = steps.get(*step).map(|s| reached.apply_step(s, &costs)) {
                        reached = next;
                    }
                    done = *step as u32 + 1;
                }
                let line = event_line(event);
                if let Ok(out) = self.out.lock() {
                    if let Err(e) = out.events.publish(&r2r::std_msgs::msg::String { data: line }) {
                        warn!("publishing ~/events: {e}");
                    }
                }
                let _ = tx.send(Report::Feedback(event_feedback(event, done, total, lattice_msg(&reached))));
            },
            &stopped,
        );
        if let Ok(sample) = executor.sample() {
            self.publish(&sample, offset);
        }
        if let Ok(mut o) = self.clock_offset.lock() {
            *o = offset + execution.sim_time;
        }
        let (message, outcome) = match &execution.failure {
            None => (
                format!(
                    "executed {} steps in {:.2} s of sim time ({:.2} s wall); blocks within {:.2} mm, robots within {:.2} mm of their cells",
                    execution.steps,
                    execution.sim_time,
                    wall.elapsed().as_secs_f64(),
                    execution.max_block_error * 1e3,
                    execution.max_robot_error * 1e3
                ),
                Outcome::Succeeded,
            ),
            Some(f) if f.kind == FailureKind::Cancelled && !cancel.load(Ordering::Acquire) => (
                format!("stopped after {} of {} steps: the node is shutting down", execution.steps_succeeded, execution.steps),
                Outcome::Stopped,
            ),
            Some(f) if f.kind == FailureKind::Cancelled => {
                (format!("cancelled after {} of {} steps", execution.steps_succeeded, execution.steps), Outcome::Cancelled)
            }
            Some(f) => (format!("step failed after {} of {} steps: {f}", execution.steps_succeeded, execution.steps), Outcome::Failed),
        };
        if outcome == Outcome::Failed {
            warn!(report = %message, "plan execution failed");
        } else {
            info!(%message, "plan execution ended");
        }
        let result = ExecutePlan::Result {
            success: outcome == Outcome::Succeeded,
            message,
            final_: lattice_msg(&reached),
            steps_done: execution.steps_succeeded as u32,
        };
        let _ = tx.send(Report::Done(result, outcome));
    }

    /// `/clock`, each robot's joint states and `/tf` at `sample`'s time (+ `offset`).
    fn publish(&self, sample: &WorldSample, offset: f64) {
        let Ok(out) = self.out.lock() else { return };
        let t = offset + sample.time;
        if let Err(e) = out.clock.publish(&r2r::rosgraph_msgs::msg::Clock { clock: fros::time_msg(t) }) {
            warn!("publishing /clock: {e}");
        }
        let frame = &self.settings.publish.frame_id;
        let header = fros::header(t, frame);
        let mut transforms = Vec::new();
        for (index, robot) in sample.robots.iter().enumerate() {
            let msg = JointState {
                header: header.clone(),
                name: robot.joints.iter().map(|(n, _)| n.clone()).collect(),
                position: robot.joints.iter().map(|(_, v)| *v).collect(),
                ..Default::default()
            };
            if let Some(publisher) = out.joints.get(index) {
                if let Err(e) = publisher.publish(&msg) {
                    warn!("publishing {}: {e}", joint_topic(index));
                }
            }
            for (link, pose) in &robot.links {
                transforms.push(TransformStamped {
                    header: header.clone(),
                    child_frame_id: format!("molemod/robot_{index}/{link}"),
                    transform: fros::transform_msg(pose),
                });
            }
        }
        for (home, pose) in &sample.blocks {
            transforms.push(TransformStamped {
                header: header.clone(),
                child_frame_id: format!("molemod/block_{}_{}_{}", home.x, home.y, home.z),
                transform: fros::transform_msg(pose),
            });
        }
        if let Err(e) = out.tf.publish(&TFMessage { transforms }) {
            warn!("publishing /tf: {e}");
        }
        if let Err(e) = out.markers.publish(&block_markers(sample, &header, BlockOptions::default().size)) {
            warn!("publishing ~/markers: {e}");
        }
    }
}

/// Every block of `sample` as a translucent cube of edge `size` (m) at its physics pose
/// (`header`'s frame), after a DELETEALL so that a smaller lattice of the next goal
/// leaves no stale cubes.
fn block_markers(sample: &WorldSample, header: &r2r::std_msgs::msg::Header, size: f64) -> MarkerArray {
    let clear = Marker { header: header.clone(), action: Marker::DELETEALL as i32, ..Default::default() };
    let blocks = sample.blocks.iter().enumerate().map(|(id, (_, pose))| Marker {
        header: header.clone(),
        ns: "blocks".into(),
        id: id as i32,
        type_: Marker::CUBE as i32,
        action: Marker::ADD as i32,
        pose: fros::pose_msg(pose),
        scale: fros::vector_msg(&Vector3::repeat(size)),
        color: ColorRGBA { r: 0.8, g: 0.7, b: 0.55, a: 0.35 },
        ..Default::default()
    });
    MarkerArray { markers: std::iter::once(clear).chain(blocks).collect() }
}

/// One line of `~/events`.
/// The action feedback of an executor event: steps done, the lattice reached and the
/// event's own fields (robot, action, motion; the check's errors).
fn event_feedback(event: &Event, done: u32, total: u32, current: r2r::flotilla_msgs::msg::Lattice) -> ExecutePlan::Feedback {
    let base = ExecutePlan::Feedback { step: done, total, current, step_index: -1, robot: -1, motion: -1, ..Default::default() };
    let index = |step: usize| i32::try_from(step).unwrap_or(i32::MAX);
    match event {
        Event::StepStarted { step, actions } => ExecutePlan::Feedback {
            event: "step_started".into(),
            step_index: index(*step),
            action: actions.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
            ..base
        },
        Event::MotionStarted { step, action, motion, name, time } | Event::MotionFinished { step, action, motion, name, time } => {
            let started = matches!(event, Event::MotionStarted { .. });
            ExecutePlan::Feedback {
                event: if started { "motion_started" } else { "motion_finished" }.into(),
                step_index: index(*step),
                robot: index(action.robot),
                action: action.to_string(),
                motion: index(*motion),
                motion_name: (*name).into(),
                sim_time: *time,
                ..base
            }
        }
        Event::StepChecked { step, block_error, robot_error, time, .. } => ExecutePlan::Feedback {
            event: "step_checked".into(),
            step_index: index(*step),
            sim_time: *time,
            block_error: *block_error,
            robot_error: *robot_error,
            ..base
        },
        Event::Sampled(sample) => ExecutePlan::Feedback { sim_time: sample.time, ..base },
    }
}

fn event_line(event: &Event) -> String {
    match event {
        Event::StepStarted { step, actions } => {
            let what = actions.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
            format!("step {step} started: {what}")
        }
        Event::MotionStarted { step, action, motion, name, time } => {
            format!("t = {time:.3} s: step {step}, {action}: motion {motion} ({name}) started")
        }
        Event::MotionFinished { step, action, motion, name, time } => {
            format!("t = {time:.3} s: step {step}, {action}: motion {motion} ({name}) finished")
        }
        Event::StepChecked { step, block_error, robot_error, time, .. } => format!(
            "t = {time:.3} s: step {step} checked: blocks within {:.3} mm, robots within {:.3} mm",
            block_error * 1e3,
            robot_error * 1e3
        ),
        Event::Sampled(sample) => format!("t = {:.3} s: sample", sample.time),
    }
}
