//! Every task file plans with every robot count it lists, and every plan replays valid
//! into the goal; 2-D and 3-D alike. Both heuristics agree on the optimal cost.

use reconfig_planner::planner::DECOMPOSE_ABOVE;
use reconfig_planner::{plan, ActionKind, HeuristicKind, PlanError, Repertoire, ReplayError, RequestError, StepError, Task, VerifyError};
use std::path::PathBuf;

fn task(name: &str) -> Task {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config/molemod").join(name);
    Task::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Plans `name` with `robots` robots and both heuristics; returns the optimal cost.
fn plan_and_replay(name: &str, robots: usize) -> u32 {
    let t = task(name);
    let mut costs = Vec::new();
    for heuristic in [HeuristicKind::Improved, HeuristicKind::Published] {
        let request = t.request(robots).unwrap().with_heuristic(heuristic);
        let found = plan(&request).unwrap_or_else(|e| panic!("{name}, {robots} robots, {heuristic:?}: {e}"));
        let replay = found.verify(&request).unwrap_or_else(|e| panic!("{name}, {robots} robots: {e}"));
        assert_eq!(replay.states.len(), found.steps.len() + 1);
        assert!(replay.states.last().unwrap().same_blocks(&t.goal));
        assert!(found.steps.iter().all(|s| !s.is_empty()));
        costs.push(found.cost);
    }
    assert_eq!(costs[0], costs[1], "{name}, {robots} robots: heuristics disagree on the optimum");
    costs[0]
}

#[test]
fn table1_tasks_plan_and_replay() {
    for (n, name) in ["task1.yaml", "task2.yaml", "task3.yaml", "task4.yaml", "task5.yaml"].iter().enumerate() {
        assert_eq!(task(name).robots.len(), n + 1, "task {} lists {} robots", n + 1, n + 1);
        for robots in 1..=n + 1 {
            assert!(plan_and_replay(name, robots) > 0);
        }
    }
    // Task 6: the cheaper robot counts here; all six run in the benchmark.
    for robots in 1..=3 {
        plan_and_replay("task6.yaml", robots);
    }
}

#[test]
fn three_d_tasks_plan_and_replay() {
    for name in ["task3d_1.yaml", "task3d_2.yaml", "task3d_3.yaml"] {
        let t = task(name);
        assert!(!t.start.dims().is_planar(), "{name} is 3-D");
        for robots in 1..=t.robots.len() {
            plan_and_replay(name, robots);
        }
    }
}

#[test]
fn decomposing_steps_keeps_the_optimum() {
    for (name, robots) in [("task4.yaml", 4), ("task5.yaml", 5), ("task6.yaml", 3)] {
        let t = task(name);
        for robots in 1..=robots {
            let costs: Vec<u32> = [0, DECOMPOSE_ABOVE, u64::MAX]
                .into_iter()
                .map(|decompose| {
                    let request = t.request(robots).unwrap().with_decompose_above(decompose);
                    let found = plan(&request).unwrap_or_else(|e| panic!("{name}, {robots} robots, {decompose}: {e}"));
                    found.verify(&request).unwrap_or_else(|e| panic!("{name}, {robots} robots: {e}"));
                    found.cost
                })
                .collect();
            assert!(costs.iter().all(|&c| c == costs[0]), "{name}, {robots} robots: {costs:?}");
        }
    }
}

/// A repertoire without lifts from above the bottom layer and put downs onto blocks plans
/// task 3 (one robot) without them, at a cost no lower than the unrestricted optimum, and
/// the plan replays into the goal.
#[test]
fn a_repertoire_keeps_the_plan_to_its_actions() {
    let t = task("task3.yaml");
    let every = plan(&t.request(1).unwrap()).expect("plans");
    let bottom_only = Repertoire { lift_above_floor: false, put_down_above_floor: false, ..Repertoire::EVERY_ACTION };
    let request = t.request(1).unwrap().with_repertoire(bottom_only);
    let restricted = plan(&request).expect("plans");
    restricted.verify(&request).expect("replays");
    // The unrestricted plan is outside it, and its check says which step and action.
    match every.verify(&request) {
        Err(VerifyError::OutsideRepertoire { action, .. }) => assert!(action.kind == ActionKind::Lift && action.from.z > 0, "{action}"),
        other => panic!("the unrestricted plan should be outside the repertoire: {other:?}"),
    }
    let actions: Vec<_> = restricted.steps.iter().flatten().collect();
    let on_top = actions.iter().filter(|a| (a.kind == ActionKind::Lift && a.from.z > 0) || (a.kind == ActionKind::PutDown && a.to.z > 0));
    assert_eq!(on_top.count(), 0, "{actions:?}");
    assert!(every.steps.iter().flatten().any(|a| a.kind == ActionKind::Lift && a.from.z > 0), "the unrestricted plan lifts on top");
    assert!(restricted.cost >= every.cost);
}

/// With robots kept a cell apart (no `side_by_side`, as the MoleMOD physics needs): task 2's
/// two robots have no plan (robot 1 must leave the end block the shifted block lands on,
/// and every cell it can go to lies beside a cell the shifts use); the paper's plan fails
/// the check at its first shift; task 3 starts its robots side by side and is refused,
/// naming them; the row with a robot at each end plans as before.
#[test]
fn robots_kept_apart_plan_only_steps_that_keep_them_apart() {
    let apart = Repertoire { side_by_side: false, ..Repertoire::EVERY_ACTION };
    let two = task("task2.yaml").request(2).unwrap();
    let paper = plan(&two).expect("the paper's planner plans task 2 with two robots");
    let kept_apart = two.clone().with_repertoire(apart);
    match paper.verify(&kept_apart) {
        Err(VerifyError::Replay(ReplayError { step: 1, source: StepError::SideBySide { robot: 0, other: 1, .. } })) => {}
        other => panic!("the paper's plan should fail at its shift with robot 1 beside: {other:?}"),
    }
    assert!(matches!(plan(&kept_apart), Err(PlanError::NoPlan { .. })));

    let three = task("task3.yaml").request(2).unwrap().with_repertoire(apart);
    let err = plan(&three).unwrap_err();
    assert!(matches!(err, PlanError::Invalid(RequestError::SideBySide(..))), "{err}");
    assert!(err.to_string().contains("robot 0 in (5, 0, 0) and robot 1 in (4, 0, 0) are side by side"), "{err}");

    let pair = task("pair.yaml").request(2).unwrap();
    let request = pair.clone().with_repertoire(apart);
    let spaced = plan(&request).expect("plans");
    spaced.verify(&request).expect("keeps apart");
    assert_eq!(spaced.cost, plan(&pair).expect("plans").cost);
    assert!(spaced.steps.iter().all(|step| step.len() == 2), "both robots act in every step");
}
