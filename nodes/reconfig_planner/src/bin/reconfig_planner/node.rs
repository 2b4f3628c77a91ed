//! The `reconfig_planner` node: the `~/plan` service, the `~/execute` playback action,
//! and the lattice shown on `~/lattice` and in rviz on `~/markers`.
//!
//! Every plan runs on a blocking thread under the request's budget (capped by the node's),
//! so a hard request can never stop the node from serving others.

use crate::{convert, markers, settings};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context as _;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use futures::{Stream, StreamExt};
use r2r::flotilla_msgs::action::ExecutePlan;
use r2r::flotilla_msgs::msg::Lattice as LatticeMsg;
use r2r::flotilla_msgs::srv::PlanReconfiguration;
use r2r::visualization_msgs::msg::MarkerArray;
use r2r::QosProfile;
use reconfig_planner::{plan, replay, ActionCosts, Lattice, StatePool};
use tracing::{info, warn};

pub use settings::NodeSettings;

/// Publishers of the current lattice.
#[derive(Clone)]
struct Display {
    lattice: r2r::Publisher<LatticeMsg>,
    markers: r2r::Publisher<MarkerArray>,
    frame_id: String,
    cell_size: f64,
}

impl Display {
    fn show(&self, lattice: &Lattice, t: f64) {
        if let Err(e) = self.lattice.publish(&convert::lattice_msg(lattice)) {
            warn!("publishing ~/lattice: {e}");
        }
        let markers = markers::lattice_markers(lattice, &self.frame_id, self.cell_size, t);
        if let Err(e) = self.markers.publish(&markers) {
            warn!("publishing ~/markers: {e}");
        }
    }
}

/// Serves until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    let mut node = startup.create_node()?;
    let latched = QosProfile::default().transient_local().keep_last(1);
    let plans = node.create_service::<PlanReconfiguration::Service>("~/plan", QosProfile::default())?;
    let goals = node.create_action_server::<ExecutePlan::Action>("~/execute")?;
    let display = Display {
        lattice: node.create_publisher("~/lattice", latched.clone())?,
        markers: node.create_publisher("~/markers", latched)?,
        frame_id: settings.frame_id.clone(),
        cell_size: settings.cell_size,
    };
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    let started = Instant::now();
    let served = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let pool = StatePool::new(settings.max_stored_states_total);
    tokio::spawn(serve_plans(plans, settings.clone(), display.clone(), served.clone(), pool));
    tokio::spawn(serve_playback(goals, settings.clone(), display));
    info!(max_expansions = settings.budget.max_expansions, max_time = settings.budget.max_time.as_secs_f64(), "reconfig_planner ready");
    let signal = fros::shutdown_signal().await.context("installing signal handlers")?;
    info!(signal, "shutting down");
    spinner.stop();
    fros::release_node(node);
    Ok(format!(
        "summary: served {} plan requests in {:.1} s",
        served.load(std::sync::atomic::Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    ))
}

async fn serve_plans(
    mut requests: impl Stream<Item = r2r::ServiceRequest<PlanReconfiguration::Service>> + Unpin,
    settings: NodeSettings,
    display: Display,
    served: Arc<std::sync::atomic::AtomicU64>,
    pool: Arc<StatePool>,
) {
    while let Some(req) = requests.next().await {
        let pool = pool.clone();
        let settings = settings.clone();
        let display = display.clone();
        let served = served.clone();
        tokio::spawn(async move {
            let message = req.message.clone();
            // The search's stored states come out of the node's pool (memory budget).
            let reserved = convert::plan_request(&message, &settings).and_then(|request| {
                let wanted = request.budget.max_stored_states;
                match pool.reserve(wanted, settings::MIN_SEARCH_STATES) {
                    Some(r) => Ok((request, r)),
                    None => Err(format!(
                        "the planner's memory budget ({} stored states) is in use by other searches ({} free); try again later",
                        pool.total(),
                        pool.free()
                    )),
                }
            });
            let response = match reserved {
                Err(reason) => convert::failure(reason),
                Ok((mut request, reservation)) => {
                    request.budget.max_stored_states = reservation.granted();
                    let started = Instant::now();
                    let outcome = tokio::task::spawn_blocking(move || {
                        let _reservation = reservation;
                        (plan(&request), request)
                    })
                    .await;
                    let elapsed = started.elapsed().as_secs_f64();
                    match outcome {
                        Ok((Ok(p), request)) => {
                            display.show(&request.start, 0.0);
                            info!(cost = p.cost, steps = p.steps.len(), expanded = p.stats.expanded, seconds = elapsed, "planned");
                            convert::success(&p, elapsed)
                        }
                        Ok((Err(e), _)) => {
                            info!(reason = %e, "no plan");
                            convert::failure(e.to_string())
                        }
                        Err(e) => convert::failure(format!("planner thread failed: {e}")),
                    }
                }
            };
            served.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Err(e) = req.respond(response) {
                warn!("answering a plan request: {e}");
            }
        });
    }
}

async fn serve_playback(
    mut requests: impl Stream<Item = r2r::ActionServerGoalRequest<ExecutePlan::Action>> + Unpin,
    settings: NodeSettings,
    display: Display,
) {
    // Goals run one at a time: the lattice topic shows one plan.
    while let Some(req) = requests.next().await {
        // 0 = the node's playback period; otherwise a checked period (1e300 s used to panic
        // this task and leave the action dead).
        let period = if req.goal.step_period == 0.0 {
            Ok(settings.playback_period)
        } else {
            settings::PLAYBACK_PERIOD.seconds(req.goal.step_period).map_err(|e| format!("step_period: {e}"))
        };
        let prepared = period.and_then(|period| {
            convert::playback(&req.goal).and_then(|(start, steps)| {
                replay(&start, &steps, &ActionCosts::default())
                    .map(|r| (r.states, period))
                    .map_err(|e| format!("the plan is not valid from the given start: {e}"))
            })
        });
        let (states, period) = match prepared {
            Ok(s) => s,
            Err(reason) => {
                warn!(%reason, "playback goal rejected");
                if let Err(e) = req.reject() {
                    warn!("rejecting a goal: {e}");
                }
                continue;
            }
        };
        let (mut goal, mut cancel) = match req.accept() {
            Ok(g) => g,
            Err(e) => {
                warn!("accepting a goal: {e}");
                continue;
            }
        };
        let total = states.len() - 1;
        let mut done = 0usize;
        let mut cancelled = false;
        display.show(&states[0], 0.0);
        for (i, state) in states.iter().enumerate().skip(1) {
            tokio::select! {
                _ = tokio::time::sleep(period) => {}
                c = cancel.next() => {
                    if let Some(c) = c { c.accept(); }
                    cancelled = true;
                    break;
                }
            }
            display.show(state, i as f64 * period.as_secs_f64());
            done = i;
            // The physical execution's event fields stay empty (-1) in a replay.
            let feedback = ExecutePlan::Feedback {
                step: i as u32,
                total: total as u32,
                current: convert::lattice_msg(state),
                step_index: -1,
                robot: -1,
                motion: -1,
                ..Default::default()
            };
            if let Err(e) = goal.publish_feedback(feedback) {
                warn!("playback feedback: {e}");
            }
        }
        let result = ExecutePlan::Result {
            success: !cancelled,
            message: if cancelled { format!("cancelled after {done} of {total} steps") } else { format!("played {total} steps") },
            final_: convert::lattice_msg(&states[done]),
            steps_done: done as u32,
        };
        let sent = if cancelled { goal.cancel(result) } else { goal.succeed(result) };
        if let Err(e) = sent {
            warn!("sending the playback result: {e}");
        }
    }
}
