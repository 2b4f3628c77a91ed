//! The `calibration` node: the `~/calibrate` action (PSO calibration of the tank model
//! against a recording) and the `~/estimate_flow_field` service.
//!
//! Goals run one at a time: a goal that arrives while another runs, or that fails its
//! checks, is accepted and at once aborted with the reason in `message` (a ROS 2 goal
//! rejection carries no reason). An accepted goal runs the library job on a blocking
//! thread with its own rayon pool (`threads`); every iteration becomes one feedback
//! message, and a cancel request stops the run at the next iteration boundary with the
//! checkpoint kept. Parameters changed with `ros2 param set` apply to the next goal.

use crate::{convert, settings};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use calibration::job::JobSummary;
use calibration::request::PreparedJob;
use calibration::CalibrationProgress;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use futures::{Stream, StreamExt};
use r2r::flotilla_msgs::action::Calibrate;
use r2r::flotilla_msgs::srv::EstimateFlowField;
use r2r::{ActionServerCancelRequest, ActionServerGoal, ActionServerGoalRequest, QosProfile};
use tokio::sync::watch;
use tracing::{info, warn};

pub use settings::NodeSettings;

/// How long shutdown waits for a running calibration to reach an iteration boundary and
/// write its outputs (the checkpoint is on disk after every iteration regardless).
const SHUTDOWN_WAIT: Duration = Duration::from_secs(3);

/// The calibration that is running, if any.
#[derive(Clone)]
struct ActiveJob {
    out_dir: PathBuf,
    iterations: usize,
    /// Iterations done (dimensionless).
    iteration: Arc<AtomicUsize>,
    /// Set to stop at the next iteration boundary.
    cancel: Arc<AtomicBool>,
    /// Set when the job's thread has ended, before its result is sent: from then on a
    /// new goal is not refused as busy (a client that sends one as soon as it has the
    /// result must not be turned away), while shutdown still waits for the result.
    ended: Arc<AtomicBool>,
}

impl ActiveJob {
    fn running(&self) -> bool {
        !self.ended.load(Ordering::Acquire)
    }
}

type Slot = Arc<Mutex<Option<ActiveJob>>>;

fn active(slot: &Slot) -> Option<ActiveJob> {
    slot.lock().map(|s| s.clone()).unwrap_or_default()
}

fn set_active(slot: &Slot, job: Option<ActiveJob>) {
    if let Ok(mut s) = slot.lock() {
        *s = job;
    }
}

/// Empties the slot if it still holds `job` (a next goal may have taken it already).
fn release(slot: &Slot, job: &ActiveJob) {
    if let Ok(mut s) = slot.lock() {
        if s.as_ref().is_some_and(|held| Arc::ptr_eq(&held.ended, &job.ended)) {
            *s = None;
        }
    }
}

/// Serves until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    let mut node = startup.create_node()?;
    let goals = node.create_action_server::<Calibrate::Action>("~/calibrate")?;
    let flow_requests = node.create_service::<EstimateFlowField::Service>("~/estimate_flow_field", QosProfile::default())?;
    let mut updates = startup.param_updates();
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    let (settings_tx, settings_rx) = watch::channel(settings.clone());
    tokio::spawn(async move {
        while updates.changed().await.is_ok() {
            let tree = updates.borrow_and_update().clone();
            match NodeSettings::from_tree(&tree) {
                Ok(s) => {
                    info!("parameters changed; they apply to the next goal");
                    if settings_tx.send(s).is_err() {
                        break;
                    }
                }
                Err(e) => warn!("parameter update ignored: {e}"),
            }
        }
    });

    let slot: Slot = Arc::default();
    let finished = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    tokio::spawn(serve_goals(goals, settings_rx.clone(), slot.clone(), finished.clone()));
    tokio::spawn(serve_flow_fields(flow_requests, settings_rx));
    info!(
        output_root = %settings.defaults.output_root.display(),
        threads = settings.threads,
        balls = settings.defaults.balls,
        "calibration ready: action ~/calibrate, service ~/estimate_flow_field"
    );

    let signal = fros::shutdown_signal().await.context("installing signal handlers")?;
    info!(signal, "shutting down");
    if let Some(job) = active(&slot) {
        info!(out_dir = %job.out_dir.display(), "stopping the running calibration at its next iteration (checkpoint kept)");
        job.cancel.store(true, Ordering::Release);
        let deadline = Instant::now() + SHUTDOWN_WAIT;
        while active(&slot).is_some() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    spinner.stop();
    fros::release_node(node);
    Ok(format!("summary: {} calibration goals run in {:.1} s", finished.load(Ordering::Relaxed), started.elapsed().as_secs_f64()))
}

/// Accepts and at once aborts a goal, so the client sees `reason`.
fn refuse(request: ActionServerGoalRequest<Calibrate::Action>, reason: String) {
    warn!(%reason, "calibration goal refused");
    match request.accept() {
        Ok((mut goal, _)) => {
            if let Err(e) = goal.abort(convert::failure(reason)) {
                warn!("aborting a refused goal: {e}");
            }
        }
        Err(e) => warn!("answering a refused goal: {e}"),
    }
}

async fn serve_goals(
    mut requests: impl Stream<Item = ActionServerGoalRequest<Calibrate::Action>> + Unpin,
    settings: watch::Receiver<NodeSettings>,
    slot: Slot,
    finished: Arc<AtomicU64>,
) {
    while let Some(request) = requests.next().await {
        if let Some(job) = active(&slot).filter(ActiveJob::running) {
            let reason = format!(
                "busy: a calibration into {} is running (iteration {} of {}); the node runs one goal at a time, send this one when it has finished or cancel it",
                job.out_dir.display(),
                job.iteration.load(Ordering::Relaxed),
                job.iterations
            );
            refuse(request, reason);
            continue;
        }
        let current = settings.borrow().clone();
        let goal = convert::calibration_request(&request.goal);
        let prepared = tokio::task::spawn_blocking(move || goal.prepare(&current.defaults).map(|job| (job, current.threads))).await;
        let (job, threads) = match prepared {
            Ok(Ok(ready)) => ready,
            Ok(Err(e)) => {
                refuse(request, e.to_string());
                continue;
            }
            Err(e) => {
                refuse(request, format!("checking the goal failed: {e}"));
                continue;
            }
        };
        let (goal, cancels) = match request.accept() {
            Ok(accepted) => accepted,
            Err(e) => {
                warn!("accepting a calibration goal: {e}");
                continue;
            }
        };
        let pso = &job.settings.calibration.pso;
        info!(out_dir = %job.out_dir.display(), iterations = pso.iterations, swarm_size = pso.swarm_size, seed = pso.seed, "calibration goal accepted");
        let handle = ActiveJob {
            out_dir: job.out_dir.clone(),
            iterations: pso.iterations,
            iteration: Arc::default(),
            cancel: Arc::default(),
            ended: Arc::default(),
        };
        set_active(&slot, Some(handle.clone()));
        let (slot, finished) = (slot.clone(), finished.clone());
        tokio::spawn(async move {
            run_goal(goal, cancels, job, threads, handle.clone()).await;
            finished.fetch_add(1, Ordering::Relaxed);
            release(&slot, &handle);
        });
    }
}

/// Runs one accepted goal: the job on a blocking thread, feedback per iteration, cancel
/// requests turned into a stop at the next iteration boundary, then the result.
async fn run_goal(
    mut goal: ActionServerGoal<Calibrate::Action>,
    mut cancels: impl Stream<Item = ActionServerCancelRequest> + Unpin,
    job: PreparedJob,
    threads: usize,
    handle: ActiveJob,
) {
    let (progress_tx, mut progress_rx) = tokio::sync::mpsc::unbounded_channel::<CalibrationProgress>();
    let (cancel, iteration) = (handle.cancel.clone(), handle.iteration.clone());
    let worker = tokio::task::spawn_blocking(move || -> Result<JobSummary, String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|k| format!("calibration-{k}"))
            .build()
            .map_err(|e| format!("cannot start {threads} worker threads: {e}"))?;
        pool.install(|| {
            job.run(|p| {
                iteration.store(p.iteration, Ordering::Relaxed);
                // Feedback is one message per iteration (the action's fields have no place
                // for the final re-evaluation passes, which are logged); a cancel stops both.
                // The receiver only goes away when the goal task is gone; nothing to tell.
                if p.reevaluations == 0 {
                    let _ = progress_tx.send(p.clone());
                }
                if cancel.load(Ordering::Acquire) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
        })
        .map_err(|e| e.to_string())
    });
    // The worker drops the progress sender when it ends, which ends this loop: every
    // feedback message is out before the result.
    let mut cancel_requested = false;
    let mut cancels_open = true;
    loop {
        tokio::select! {
            progress = progress_rx.recv() => match progress {
                Some(p) => {
                    let feedback = Calibrate::Feedback {
                        iteration: p.iteration as u32,
                        iterations: p.iterations as u32,
                        best_fitness: p.best_fitness,
                        best_parameters: p.best_parameters.iter().map(|(_, v)| *v).collect(),
                    };
                    if let Err(e) = goal.publish_feedback(feedback) {
                        warn!("calibration feedback: {e}");
                    }
                }
                None => break,
            },
            request = cancels.next(), if cancels_open => match request {
                Some(request) => {
                    info!(iteration = handle.iteration.load(Ordering::Relaxed), "cancel requested: stopping at the next iteration boundary");
                    request.accept();
                    cancel_requested = true;
                    handle.cancel.store(true, Ordering::Release);
                }
                None => cancels_open = false,
            },
        }
    }
    let outcome = worker.await;
    handle.ended.store(true, Ordering::Release);
    let sent = match outcome {
        Ok(Ok(summary)) if summary.completed => {
            info!(
                best_fitness = summary.best_fitness,
                relative_msd_error = summary.relative_msd_error,
                wall_time_s = summary.wall_time,
                "calibration goal done"
            );
            goal.succeed(convert::job_result(&summary))
        }
        Ok(Ok(summary)) if cancel_requested => goal.cancel(convert::job_result(&summary)),
        Ok(Ok(summary)) => {
            let mut result = convert::job_result(&summary);
            result.message = format!("node shutting down: {}", result.message);
            goal.abort(result)
        }
        Ok(Err(reason)) => {
            warn!(%reason, "calibration goal failed");
            goal.abort(convert::failure(reason))
        }
        Err(e) => goal.abort(convert::failure(format!("the calibration thread failed: {e}"))),
    };
    if let Err(e) = sent {
        warn!("sending the calibration result: {e}");
    }
}

async fn serve_flow_fields(
    mut requests: impl Stream<Item = r2r::ServiceRequest<EstimateFlowField::Service>> + Unpin,
    settings: watch::Receiver<NodeSettings>,
) {
    while let Some(req) = requests.next().await {
        let current = settings.borrow().clone();
        tokio::spawn(async move {
            let request = convert::flow_request(&req.message);
            let output_file = req.message.output_file.clone();
            let outcome = tokio::task::spawn_blocking(move || request.run(&current.defaults).map(|reply| (reply, current.frame_id))).await;
            let response = match outcome {
                Ok(Ok((reply, frame))) => {
                    info!(cells = reply.grid.nx(), samples = reply.samples, output_file, "flow field estimated");
                    convert::flow_response(&reply, &output_file, &frame)
                }
                Ok(Err(e)) => {
                    warn!(reason = %e, "flow-field request refused");
                    convert::flow_failure(e.to_string())
                }
                Err(e) => convert::flow_failure(format!("the estimation thread failed: {e}")),
            };
            if let Err(e) = req.respond(response) {
                warn!("answering a flow-field request: {e}");
            }
        });
    }
}
