//! The planner node through ROS: plans checked by replaying them, bad requests answered
//! with clear reasons while the node keeps serving, and plan playback as an action.

use std::time::Duration;

use flotilla_e2e::{answered, repo_root, temp_file, Launch, RosProbe, ANSWER_TIMEOUT};
use futures::StreamExt;
use r2r::flotilla_msgs::action::ExecutePlan;
use r2r::flotilla_msgs::msg::{Lattice as LatticeMsg, LatticeAction};
use r2r::flotilla_msgs::srv::PlanReconfiguration;
use reconfig_planner::ros::lattice_msg;
use reconfig_planner::{msgs_to_steps, replay, ActionCosts, ActionMsg, Lattice, LatticeMsg as Wire, Repertoire, Task};

fn task(name: &str, robots: usize) -> (Lattice, Lattice) {
    let t = Task::load(&repo_root().join("config/molemod").join(format!("{name}.yaml"))).unwrap();
    let r = t.request(robots).unwrap();
    // Robots are numbered in cell-index order on the wire, as the node sees them.
    let through_wire = |l: &Lattice| Wire::from(l).to_lattice().unwrap();
    (through_wire(&r.start), through_wire(&r.goal))
}

fn request(start: &Lattice, goal: &Lattice) -> PlanReconfiguration::Request {
    PlanReconfiguration::Request { start: lattice_msg(start), goal: lattice_msg(goal), ..Default::default() }
}

fn steps_of(actions: &[LatticeAction]) -> Vec<Vec<reconfig_planner::Action>> {
    let wire: Vec<ActionMsg> = actions
        .iter()
        .map(|a| ActionMsg {
            step: a.step,
            robot: a.robot,
            kind: a.kind,
            from: [a.from_cell[0], a.from_cell[1], a.from_cell[2]],
            to: [a.to_cell[0], a.to_cell[1], a.to_cell[2]],
            partner: a.partner,
        })
        .collect();
    msgs_to_steps(&wire).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_service_returns_valid_plans_and_refuses_bad_requests_without_dying() {
    let mut probe = RosProbe::new("probe_planner").unwrap();
    let client =
        probe.with_node(|n| n.create_client::<PlanReconfiguration::Service>("/reconfig_planner/plan", r2r::QosProfile::default())).unwrap();
    let goals = probe.with_node(|n| n.create_action_client::<ExecutePlan::Action>("/reconfig_planner/execute")).unwrap();
    let available = probe.with_node(|_| r2r::Node::is_available(&client)).unwrap();
    let action_ready = probe.with_node(|_| r2r::Node::is_available(&goals)).unwrap();
    probe.spin();
    let launch = Launch::start("launch/planner.launch.yaml", &[], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(30), available).await.expect("plan service did not appear").unwrap();

    // A real task: the plan must replay, action by action, into the goal at the stated cost.
    for (name, robots) in [("task3", 2), ("task4", 3), ("task3d_1", 1)] {
        let (start, goal) = task(name, robots);
        let resp = answered(client.request(&request(&start, &goal)).unwrap(), "client.request").await;
        assert!(resp.success, "{name}: {}", resp.message);
        let steps = steps_of(&resp.actions);
        assert_eq!(steps.len() as u32, resp.steps);
        let replayed = replay(&start, &steps, &ActionCosts::default()).unwrap();
        assert_eq!(replayed.cost, resp.cost, "{name}: cost");
        let end = replayed.states.last().unwrap();
        assert_eq!(
            end.codes().iter().map(|&c| c != 0).collect::<Vec<_>>(),
            goal.codes().iter().map(|&c| c != 0).collect::<Vec<_>>(),
            "{name}: blocks not in the goal"
        );
        assert!(resp.expanded_states > 0 && resp.planning_time >= 0.0);
    }

    // Bad requests: a clear reason each, and the node keeps serving.
    let (start, goal) = task("task3", 2);
    let mut fewer = lattice_msg(&goal);
    let first_block = fewer.cells.iter().position(|&c| c == 1).unwrap();
    fewer.cells[first_block] = 0;
    let mut outside = lattice_msg(&start);
    outside.cells[0] = 2; // a robot where the start row has a block? force one in an empty cell:
    let empty = outside.cells.iter().rposition(|&c| c == 0).unwrap();
    outside.cells[empty] = 2;
    let huge = LatticeMsg { size_x: 100, size_y: 100, size_z: 100, cells: vec![0; 1_000_000] };
    let bad = [
        (PlanReconfiguration::Request { goal: fewer, ..request(&start, &goal) }, "block"),
        (PlanReconfiguration::Request { start: outside, ..request(&start, &goal) }, ""),
        (PlanReconfiguration::Request { start: huge.clone(), goal: huge, ..request(&start, &goal) }, "cells"),
        (PlanReconfiguration::Request { heuristic: "magic".into(), ..request(&start, &goal) }, "heuristic"),
        // Issue #21 item 1: a time budget that would panic Duration::from_secs_f64.
        (PlanReconfiguration::Request { max_time: 1e300, ..request(&start, &goal) }, "max_time"),
        (PlanReconfiguration::Request { max_expansions: 3, ..request(&task("task6", 4).0, &task("task6", 4).1) }, "budget"),
        (
            PlanReconfiguration::Request {
                start: LatticeMsg { size_x: 2, size_y: 1, size_z: 1, cells: vec![1] },
                ..request(&start, &goal)
            },
            "start",
        ),
    ];
    for (req, want) in bad {
        let resp = tokio::time::timeout(Duration::from_secs(20), client.request(&req).unwrap())
            .await
            .expect("a bad request hung the node")
            .unwrap();
        assert!(!resp.success, "bad request accepted: {:?}", resp.message);
        assert!(!resp.message.is_empty());
        assert!(resp.message.to_lowercase().contains(want), "message `{}` does not mention `{want}`", resp.message);
    }
    let resp = answered(client.request(&request(&start, &goal)).unwrap(), "client.request").await;
    assert!(resp.success, "node stopped serving after bad requests: {}", resp.message);

    // Playback: feedback per step, result = the goal layout.
    tokio::time::timeout(Duration::from_secs(10), action_ready).await.unwrap().unwrap();
    let goal_msg = ExecutePlan::Goal { start: lattice_msg(&start), actions: resp.actions.clone(), step_period: 0.01 };
    let (_handle, result, mut feedback) = answered(goals.send_goal_request(goal_msg).unwrap(), "goals.send_goal_request").await;
    let result = tokio::time::timeout(Duration::from_secs(20), result).await.unwrap().unwrap();
    let (status, result) = result;
    assert_eq!(status, r2r::GoalStatus::Succeeded, "{}", result.message);
    assert_eq!(result.steps_done, resp.steps);
    let fb: Vec<_> = tokio::time::timeout(Duration::from_secs(2), feedback.by_ref().take(resp.steps as usize).collect::<Vec<_>>())
        .await
        .unwrap_or_default();
    assert!(!fb.is_empty(), "no playback feedback");
    let final_blocks: Vec<bool> = result.final_.cells.iter().map(|&c| c != 0).collect();
    assert_eq!(final_blocks, goal.codes().iter().map(|&c| c != 0).collect::<Vec<_>>());

    // An invalid plan is rejected as a goal.
    let mut broken = resp.actions.clone();
    broken[0].to_cell = vec![0, 0, 5];
    let bad_goal = ExecutePlan::Goal { start: lattice_msg(&start), actions: broken, step_period: 0.01 };
    assert!(
        tokio::time::timeout(ANSWER_TIMEOUT, goals.send_goal_request(bad_goal).unwrap()).await.expect("goal not answered").is_err(),
        "an invalid plan was accepted"
    );

    // Issue #21 item 1: a step period of 1e300 s is refused as a goal, and the action still
    // answers the next goal.
    let huge_period = ExecutePlan::Goal { start: lattice_msg(&start), actions: resp.actions.clone(), step_period: 1e300 };
    assert!(
        tokio::time::timeout(ANSWER_TIMEOUT, goals.send_goal_request(huge_period).unwrap()).await.expect("goal not answered").is_err(),
        "a 1e300 s step period was accepted"
    );
    let again = ExecutePlan::Goal { start: lattice_msg(&start), actions: resp.actions.clone(), step_period: 0.01 };
    let (_handle, result, _feedback) = answered(goals.send_goal_request(again).unwrap(), "goals.send_goal_request").await;
    let (status, result) = tokio::time::timeout(Duration::from_secs(20), result).await.unwrap().unwrap();
    assert_eq!(status, r2r::GoalStatus::Succeeded, "the action stopped serving: {}", result.message);

    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
}

/// The node's `repertoire` parameter: with `minimal` it plans only with the actions the
/// MoleMOD physics executes, robots kept a cell apart, and a task that needs more (a move
/// along `y`, robots side by side) has no plan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_plans_only_with_the_actions_of_its_repertoire() {
    let mut probe = RosProbe::new("probe_planner_repertoire").unwrap();
    let client =
        probe.with_node(|n| n.create_client::<PlanReconfiguration::Service>("/reconfig_planner/plan", r2r::QosProfile::default())).unwrap();
    let available = probe.with_node(|_| r2r::Node::is_available(&client)).unwrap();
    probe.spin();
    let (_dir, params) = temp_file("planner.yaml", "reconfig_planner:\n  ros__parameters:\n    repertoire: minimal\n").unwrap();
    let arg = format!("params_file:={}", params.display());
    let launch = Launch::start("launch/planner.launch.yaml", &[&arg], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(30), available).await.expect("plan service did not appear").unwrap();

    let (start, goal) = task("task3", 1);
    let resp = answered(client.request(&request(&start, &goal)).unwrap(), "client.request").await;
    assert!(resp.success, "task3: {}", resp.message);
    for action in steps_of(&resp.actions).iter().flatten() {
        let cell = |c: reconfig_planner::Cell| [c.x, c.y, c.z];
        assert!(Repertoire::MINIMAL.allows(action.kind, cell(action.from), cell(action.to)), "outside the repertoire: {action}");
    }
    let (start, goal) = task("task3d_1", 1);
    let resp = answered(client.request(&request(&start, &goal)).unwrap(), "client.request").await;
    assert!(!resp.success && resp.message.contains("no plan"), "a task needing moves along y: {}", resp.message);
    // `minimal` keeps robots a cell apart: a start with two side by side is refused naming
    // them, and task 2's two robots have no plan that keeps them apart; the node serves on.
    let (start, goal) = task("task3", 2);
    let resp = answered(client.request(&request(&start, &goal)).unwrap(), "client.request").await;
    assert!(!resp.success && resp.message.contains("are side by side along x"), "robots side by side: {}", resp.message);
    let (start, goal) = task("task2", 2);
    let resp = answered(client.request(&request(&start, &goal)).unwrap(), "client.request").await;
    assert!(!resp.success && resp.message.contains("no plan"), "task 2 with two robots kept apart: {}", resp.message);
    let (start, goal) = task("task2", 1);
    let resp = answered(client.request(&request(&start, &goal)).unwrap(), "client.request").await;
    assert!(resp.success, "task2 after the refusals: {}", resp.message);

    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
}
