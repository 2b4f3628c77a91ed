//! Messages <-> planner library types. Bad requests become a reason string, never a panic.

use flotilla_common::duration::{Span, MAX_SECONDS};
use r2r::flotilla_msgs::action::ExecutePlan;
use r2r::flotilla_msgs::srv::PlanReconfiguration;
pub use reconfig_planner::ros::lattice_msg;
use reconfig_planner::ros::{action_msgs, goal_plan, lattice};
use reconfig_planner::{Action, HeuristicKind, Lattice, Plan, PlanRequest};

use crate::node::NodeSettings;

/// A service request as a planner request, its budget capped by the node's.
pub fn plan_request(msg: &PlanReconfiguration::Request, settings: &NodeSettings) -> Result<PlanRequest, String> {
    let start = lattice(&msg.start, "start")?;
    let goal = lattice(&msg.goal, "goal")?;
    let heuristic = match msg.heuristic.as_str() {
        "" | "improved" => HeuristicKind::Improved,
        "published" => HeuristicKind::Published,
        "zero" => HeuristicKind::Zero,
        other => return Err(format!("unknown heuristic `{other}`; known: improved, published, zero")),
    };
    let weight = if msg.weight == 0.0 { 1.0 } else { msg.weight };
    let cap = &settings.budget;
    let max_expansions = match msg.max_expansions {
        0 => cap.max_expansions,
        n => n.min(cap.max_expansions),
    };
    // 0 = the node's cap; anything above the cap is lowered to it.
    let asked = Span::new(0.0, MAX_SECONDS).seconds(msg.max_time).map_err(|e| format!("max_time: {e}"))?;
    let max_time = if asked.is_zero() { cap.max_time } else { asked.min(cap.max_time) };
    let request = PlanRequest::new(start, goal)
        .with_heuristic(heuristic)
        .with_weight(weight)
        .with_repertoire(settings.repertoire)
        .with_budget(cap.with_max_expansions(max_expansions).with_max_time(max_time));
    request.validate().map_err(|e| e.to_string())?;
    Ok(request)
}

/// A successful plan as the service response.
pub fn success(plan: &Plan, seconds: f64) -> PlanReconfiguration::Response {
    PlanReconfiguration::Response {
        success: true,
        message: format!("plan of {} steps, cost {}, {} states expanded", plan.steps.len(), plan.cost, plan.stats.expanded),
        actions: action_msgs(&plan.steps),
        steps: plan.steps.len() as u32,
        cost: plan.cost,
        expanded_states: plan.stats.expanded,
        planning_time: seconds,
    }
}

/// A failure response carrying `reason`.
pub fn failure(reason: String) -> PlanReconfiguration::Response {
    PlanReconfiguration::Response { success: false, message: reason, ..Default::default() }
}

/// A playback goal as its start lattice and plan steps.
pub fn playback(goal: &ExecutePlan::Goal) -> Result<(Lattice, Vec<Vec<Action>>), String> {
    let (start, steps) = goal_plan(goal)?;
    if !(goal.step_period >= 0.0 && goal.step_period.is_finite()) {
        return Err(format!("step_period must be a finite number of seconds >= 0, got {}", goal.step_period));
    }
    Ok((start, steps))
}
