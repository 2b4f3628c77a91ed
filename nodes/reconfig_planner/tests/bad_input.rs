//! Bad requests get clear errors; unreachable goals end as "no plan" or "no plan within
//! budget", never a hang or a panic.

use reconfig_planner::{
    plan, ActionCosts, ActionKind, Budget, BudgetLimit, Cell, CostError, Dims, Lattice, LatticeError, LatticeMsg, LatticeRole, PlanError,
    PlanRequest, RequestError, Task, TaskError, MAX_CELLS,
};
use std::time::Duration;

fn lattice(picture: &str) -> Lattice {
    Lattice::from_picture(picture).unwrap()
}

fn invalid(request: &PlanRequest) -> RequestError {
    match plan(request) {
        Err(PlanError::Invalid(e)) => e,
        other => panic!("expected an invalid-request error, got {other:?}"),
    }
}

#[test]
fn different_block_counts() {
    let err = invalid(&PlanRequest::new(lattice("...\n0#.\n"), lattice("...\n###\n")));
    assert_eq!(err, RequestError::BlockCountMismatch { start: 2, goal: 3 });
    assert!(err.to_string().contains("start has 2 blocks but goal has 3"));
}

#[test]
fn different_sizes() {
    let err = invalid(&PlanRequest::new(lattice("0#.\n"), lattice("##\n")));
    assert!(matches!(err, RequestError::DimsMismatch { .. }), "{err}");
}

#[test]
fn robot_outside_any_block() {
    let mut start = lattice("...\n##.\n");
    let err = start.add_robot(Cell::planar(2, 0)).unwrap_err();
    assert_eq!(err, LatticeError::RobotOutsideBlock { robot: 0, cell: Cell::planar(2, 0) });
    assert_eq!(err.to_string(), "robot 0 at (2, 0, 0) is not inside a block");
    // The same from a task file names the file and the entry.
    let yaml = "name: t\nstart: |\n  ..\n  #.\ngoal: |\n  ..\n  #.\nrobots: [[1, 1]]\n";
    let err = Task::from_yaml(yaml, "bad.yaml").unwrap_err();
    assert!(matches!(err, TaskError::Robot { index: 0, .. }));
    assert_eq!(err.to_string(), "bad.yaml: robots[0]: robot 0 at (1, 0, 1) is not inside a block");
}

#[test]
fn floating_blocks_in_start_or_goal() {
    let err = invalid(&PlanRequest::new(lattice(".#.\n0..\n"), lattice("...\n##.\n")));
    assert_eq!(err, RequestError::Unsupported { role: LatticeRole::Start, cell: Cell::planar(1, 1) });
    let err = invalid(&PlanRequest::new(lattice("...\n0#.\n"), lattice("..#\n#..\n")));
    assert_eq!(err, RequestError::Unsupported { role: LatticeRole::Goal, cell: Cell::planar(2, 1) });
    assert!(err.to_string().starts_with("goal lattice: block at (2, 0, 1) is floating"));
}

#[test]
fn huge_lattice_is_rejected_at_the_boundary() {
    let msg = LatticeMsg { dims: [1000, 1000, 1000], cells: vec![0; 16] };
    let err = msg.to_lattice().unwrap_err();
    assert!(matches!(err, LatticeError::TooLarge { limit: MAX_CELLS, .. }));
    assert!(err.to_string().contains("above the limit of 512"), "{err}");
    assert!(Lattice::new(Dims::new(8, 8, 8)).is_ok());
    assert!(Lattice::new(Dims::new(8, 8, 9)).is_err());
}

#[test]
fn other_request_errors() {
    let start = lattice("...\n##.\n");
    assert_eq!(invalid(&PlanRequest::new(start.clone(), lattice("...\n#.#\n"))), RequestError::NoRobots);
    // No robots but already at the goal: an empty plan.
    let done = plan(&PlanRequest::new(start.clone(), start.clone())).unwrap();
    assert!(done.steps.is_empty() && done.cost == 0);
    let goal_with_robots = lattice("...\n01.\n");
    let err = invalid(&PlanRequest::new(lattice("...\n0#.\n"), goal_with_robots));
    assert_eq!(err, RequestError::GoalRobotCount { start: 1, goal: 2 });
    let cheap = ActionCosts { put_down: 1, ..Default::default() };
    let err = invalid(&PlanRequest::new(lattice("...\n0#.\n"), lattice("...\n.##\n")).with_costs(cheap));
    assert!(matches!(&err, RequestError::Costs(CostError::OutOfRange { kind: ActionKind::PutDown, .. })), "{err}");
    let err = invalid(&PlanRequest::new(lattice("...\n0#.\n"), lattice("...\n.##\n")).with_weight(0.5));
    assert_eq!(err, RequestError::Weight { weight: 0.5 });
    let err = invalid(&PlanRequest::new(lattice("...\n0#.\n"), lattice("...\n.##\n")).with_weight(f64::NAN));
    assert!(err.to_string().contains("outside [1, 100]"), "{err}");
    let crowd = Lattice::from_picture(&format!("{}\n", "R".repeat(17))).unwrap();
    assert!(matches!(invalid(&PlanRequest::new(crowd.clone(), crowd)), RequestError::TooManyRobots { count: 17, .. }));
}

#[test]
fn unreachable_goal_is_no_plan() {
    // A lone block on the floor has no anchor: nothing can ever move it.
    let err = plan(&PlanRequest::new(lattice("0.\n"), lattice(".#\n"))).unwrap_err();
    assert!(matches!(err, PlanError::NoPlan { .. }), "{err}");
    assert!(err.to_string().starts_with("no plan: the goal is unreachable"));
    // One cell high: no block can ever move (every block action needs a row above or
    // below), so the search exhausts every robot placement and reports no plan.
    let err = plan(&PlanRequest::new(lattice("0#1##2##.#\n"), lattice("#######.##\n"))).unwrap_err();
    match err {
        PlanError::NoPlan { stats } => assert!(stats.stored_states > 10, "{stats:?}"),
        other => panic!("expected no plan, got {other:?}"),
    }
}

/// A search far larger than the small budgets below (two towers into a bridge with four
/// robots: ~15 000 expansions when run to the end).
fn large_search() -> PlanRequest {
    let mut start = lattice("........\n........\n#......#\n#......#\n##....##\n");
    let goal = lattice("........\n........\n........\n..####..\n..##.##.\n");
    for cell in [Cell::planar(0, 2), Cell::planar(7, 2), Cell::planar(0, 0), Cell::planar(7, 0)] {
        start.add_robot(cell).unwrap();
    }
    PlanRequest::new(start, goal)
}

#[test]
fn search_stops_at_the_expansion_budget() {
    let request = large_search().with_budget(Budget::default().with_max_expansions(2_000));
    match plan(&request) {
        Err(PlanError::OutOfBudget { limit: BudgetLimit::Expansions, stats }) => assert_eq!(stats.expanded, 2_000),
        other => panic!("expected the expansion limit, got {other:?}"),
    }
}

#[test]
fn search_stops_at_the_time_budget() {
    // ~15 000 expansions cannot fit in 1 ms (each costs well over 70 ns).
    let request = large_search().with_budget(Budget::default().with_max_time(Duration::from_millis(1)));
    match plan(&request) {
        Err(e @ PlanError::OutOfBudget { limit: BudgetLimit::Time, .. }) => {
            assert!(e.to_string().starts_with("no plan within budget: time limit"), "{e}")
        }
        other => panic!("expected the time limit, got {other:?}"),
    }
}

#[test]
fn stored_state_budget_bounds_memory() {
    let request = large_search().with_budget(Budget::default().with_max_stored_states(5_000));
    match plan(&request) {
        Err(PlanError::OutOfBudget { limit: BudgetLimit::StoredStates, stats }) => {
            assert!(stats.stored_states <= 5_000)
        }
        other => panic!("expected the stored-state limit, got {other:?}"),
    }
}
