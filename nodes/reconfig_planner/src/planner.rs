//! The planning API: a [`PlanRequest`] in, a [`Plan`] or a [`PlanError`] out.

use crate::lattice::{Cell, Dims, Lattice};
use crate::rules::{replay, Action, ActionCosts, CostError, Repertoire, Replay, ReplayError, StepError};
use crate::search::{astar, Bits, Found, Geometry, HeuristicKind, Problem, SearchSettings, Single, State, Stop, NONE};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;
use thiserror::Error;

/// Most robots a request may have. The joint actions of one step grow as the product of
/// the robots' options; the budget stops long searches, this stops absurd requests.
pub const MAX_ROBOTS: usize = 16;

/// Limits that stop a search; the first one reached ends it with
/// [`PlanError::OutOfBudget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Budget {
    /// Most states expanded, count.
    pub max_expansions: u64,
    /// Most wall-clock time, checked every 16 expansions and every 1024 generated
    /// successors, seconds.
    #[serde(with = "flotilla_common::duration::serde_seconds")]
    pub max_time: Duration,
    /// Most distinct states stored (bounds memory: tens of bytes each), count.
    pub max_stored_states: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Self { max_expansions: 5_000_000, max_time: Duration::from_secs(10), max_stored_states: 10_000_000 }
    }
}

impl Budget {
    /// Builder: most expansions.
    pub fn with_max_expansions(mut self, max_expansions: u64) -> Self {
        self.max_expansions = max_expansions;
        self
    }

    /// Builder: most wall-clock time.
    pub fn with_max_time(mut self, max_time: Duration) -> Self {
        self.max_time = max_time;
        self
    }

    /// Builder: most stored states.
    pub fn with_max_stored_states(mut self, max_stored_states: usize) -> Self {
        self.max_stored_states = max_stored_states;
        self
    }
}

/// Which budget limit ended a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetLimit {
    /// [`Budget::max_expansions`].
    Expansions,
    /// [`Budget::max_time`].
    Time,
    /// [`Budget::max_stored_states`].
    StoredStates,
}

impl fmt::Display for BudgetLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BudgetLimit::Expansions => "expansion limit",
            BudgetLimit::Time => "time limit",
            BudgetLimit::StoredStates => "stored-state limit",
        })
    }
}

/// What a search did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SearchStats {
    /// States expanded, count.
    pub expanded: u64,
    /// Successor states generated (with duplicates), count.
    pub generated: u64,
    /// Partial steps (a step's first actions, built one robot at a time) queued, count.
    pub partial_generated: u64,
    /// Partial steps expanded (finished and extended by a later robot's action), count.
    pub partial_expanded: u64,
    /// Stored states reached again more cheaply, count.
    pub reopened: u64,
    /// Distinct states stored, count.
    pub stored_states: usize,
    /// Estimated peak memory of the search tables (capacity x entry size), bytes.
    pub peak_memory_bytes: usize,
    /// Wall-clock search time (without validation and plan rebuilding), seconds.
    pub elapsed: Duration,
    /// Heuristic value of the start state, cost units.
    pub start_heuristic: u32,
}

/// A planning problem.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRequest {
    /// Start state: blocks and robots.
    pub start: Lattice,
    /// Goal: the block layout to reach; if it has robots, their cells (any robot in each)
    /// must be reached too.
    pub goal: Lattice,
    /// A* heuristic.
    pub heuristic: HeuristicKind,
    /// Heuristic weight `w` in `f = g + w h`, dimensionless, in `[1, 100]`; 1 (default) is
    /// A* and returns optimal plans, more is weighted A*: faster, cost at most `w` times
    /// the optimum.
    pub weight: f64,
    /// Action costs.
    pub costs: ActionCosts,
    /// The actions the plan may use (default: every action the rules allow).
    pub repertoire: Repertoire,
    /// Search limits.
    pub budget: Budget,
    /// Joint steps of a state (bounded by the product over robots of their options + 1)
    /// above which its successors are built one robot's action at a time (operator
    /// decomposition), count; 0 always, `u64::MAX` never. Only speed depends on it.
    pub decompose_above: u64,
}

/// Default of [`PlanRequest::decompose_above`]: below it generating every step at once
/// costs less than queueing partial steps (measured on the Table 1 tasks).
pub const DECOMPOSE_ABOVE: u64 = 64;

impl PlanRequest {
    /// A request with the default heuristic, costs and budget.
    pub fn new(start: Lattice, goal: Lattice) -> Self {
        Self {
            start,
            goal,
            heuristic: HeuristicKind::default(),
            weight: 1.0,
            costs: ActionCosts::default(),
            repertoire: Repertoire::default(),
            budget: Budget::default(),
            decompose_above: DECOMPOSE_ABOVE,
        }
    }

    /// Builder: the heuristic.
    pub fn with_heuristic(mut self, heuristic: HeuristicKind) -> Self {
        self.heuristic = heuristic;
        self
    }

    /// Builder: the heuristic weight (see [`PlanRequest::weight`]).
    pub fn with_weight(mut self, weight: f64) -> Self {
        self.weight = weight;
        self
    }

    /// Builder: the action costs.
    pub fn with_costs(mut self, costs: ActionCosts) -> Self {
        self.costs = costs;
        self
    }

    /// Builder: the actions the plan may use.
    pub fn with_repertoire(mut self, repertoire: Repertoire) -> Self {
        self.repertoire = repertoire;
        self
    }

    /// Builder: the budget.
    pub fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Builder: when to decompose steps (see [`PlanRequest::decompose_above`]).
    pub fn with_decompose_above(mut self, joint_steps: u64) -> Self {
        self.decompose_above = joint_steps;
        self
    }

    /// Checks the request; the error says what is wrong and where.
    pub fn validate(&self) -> Result<(), RequestError> {
        let (start, goal) = (&self.start, &self.goal);
        if start.dims() != goal.dims() {
            return Err(RequestError::DimsMismatch { start: start.dims(), goal: goal.dims() });
        }
        if start.block_count() != goal.block_count() {
            return Err(RequestError::BlockCountMismatch { start: start.block_count(), goal: goal.block_count() });
        }
        for (role, lattice) in [(LatticeRole::Start, start), (LatticeRole::Goal, goal)] {
            if let Some(&cell) = lattice.unsupported_blocks().first() {
                return Err(RequestError::Unsupported { role, cell });
            }
        }
        let robots = start.robots().len();
        if robots > MAX_ROBOTS {
            return Err(RequestError::TooManyRobots { count: robots, limit: MAX_ROBOTS });
        }
        if !goal.robots().is_empty() && goal.robots().len() != robots {
            return Err(RequestError::GoalRobotCount { start: robots, goal: goal.robots().len() });
        }
        if robots == 0 && !reached(start, goal) {
            return Err(RequestError::NoRobots);
        }
        if !(1.0..=100.0).contains(&self.weight) {
            return Err(RequestError::Weight { weight: self.weight });
        }
        self.costs.validate()?;
        if !self.repertoire.side_by_side {
            start.keeps_apart(&[]).map_err(|e| RequestError::SideBySide(e, self.repertoire))?;
        }
        Ok(())
    }
}

/// True when `state` satisfies `goal`.
fn reached(state: &Lattice, goal: &Lattice) -> bool {
    if goal.robots().is_empty() {
        state.same_blocks(goal)
    } else {
        state.same_layout(goal)
    }
}

/// Which lattice of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatticeRole {
    /// The start state.
    Start,
    /// The goal.
    Goal,
}

impl fmt::Display for LatticeRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LatticeRole::Start => "start",
            LatticeRole::Goal => "goal",
        })
    }
}

/// What is wrong with a request.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RequestError {
    /// Start and goal of different sizes.
    #[error("start lattice is {start} but goal lattice is {goal}")]
    DimsMismatch {
        /// Start size.
        start: Dims,
        /// Goal size.
        goal: Dims,
    },
    /// Blocks are neither made nor destroyed.
    #[error("start has {start} blocks but goal has {goal}; blocks are only moved, so the counts must match")]
    BlockCountMismatch {
        /// Blocks in the start.
        start: usize,
        /// Blocks in the goal.
        goal: usize,
    },
    /// A floating block.
    #[error("{role} lattice: block at {cell} is floating (not connected to the floor through blocks)")]
    Unsupported {
        /// Start or goal.
        role: LatticeRole,
        /// The first floating block.
        cell: Cell,
    },
    /// Nothing can move.
    #[error("start has no robot, so the goal cannot be reached")]
    NoRobots,
    /// Above [`MAX_ROBOTS`].
    #[error("{count} robots requested, the limit is {limit}")]
    TooManyRobots {
        /// Robots given.
        count: usize,
        /// [`MAX_ROBOTS`].
        limit: usize,
    },
    /// The goal names robot cells but not one per robot.
    #[error("goal places {goal} robots but the start has {start}")]
    GoalRobotCount {
        /// Robots in the start.
        start: usize,
        /// Robots in the goal.
        goal: usize,
    },
    /// A heuristic weight outside `[1, 100]` (or not a number).
    #[error("heuristic weight {weight} is outside [1, 100]")]
    Weight {
        /// The weight given.
        weight: f64,
    },
    /// A cost below the heuristics' bound.
    #[error(transparent)]
    Costs(#[from] CostError),
    /// Robots side by side in the start where the repertoire keeps them a cell apart.
    #[error("start lattice: {0} (the repertoire `{1}` has no side_by_side)")]
    SideBySide(StepError, Repertoire),
}

/// Why no plan came back.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PlanError {
    /// The request is malformed.
    #[error("invalid request: {0}")]
    Invalid(#[from] RequestError),
    /// Every reachable state was searched: the goal is unreachable.
    #[error("no plan: the goal is unreachable ({} states searched)", stats.stored_states)]
    NoPlan {
        /// What the search did.
        stats: SearchStats,
    },
    /// A budget limit was hit first.
    #[error("no plan within budget: {limit} reached after {} expansions, {:.3} s", stats.expanded, stats.elapsed.as_secs_f64())]
    OutOfBudget {
        /// The limit.
        limit: BudgetLimit,
        /// What the search did.
        stats: SearchStats,
    },
    /// The planner could not turn its search result into actions (a bug).
    #[error("internal planner error: {reason}")]
    Internal {
        /// Details.
        reason: String,
    },
}

/// A plan: steps of parallel actions from the start to the goal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// The steps; the actions of one step run in parallel.
    pub steps: Vec<Vec<Action>>,
    /// Total cost `g` of the plan, cost units.
    pub cost: u32,
    /// What the search did.
    pub stats: SearchStats,
}

/// A plan that does not do what it claims.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VerifyError {
    /// A step is invalid.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The replayed cost differs from the plan's.
    #[error("plan says cost {claimed}, replay gives {replayed}")]
    CostMismatch {
        /// [`Plan::cost`].
        claimed: u32,
        /// Sum of the step costs.
        replayed: u32,
    },
    /// The last state is not the goal.
    #[error("the plan ends in a state that is not the goal")]
    GoalNotReached,
    /// An action the request's repertoire does not have.
    #[error("step {step}: {action} is outside the repertoire `{repertoire}`")]
    OutsideRepertoire {
        /// Index of the step (0-based).
        step: usize,
        /// The action.
        action: Action,
        /// The request's repertoire.
        repertoire: Repertoire,
    },
}

impl Plan {
    /// Number of actions over all steps.
    pub fn action_count(&self) -> usize {
        self.steps.iter().map(Vec::len).sum()
    }

    /// Replays the plan from the request's start, checking every step (within the
    /// request's repertoire), the cost and that the goal is reached. Returns the states
    /// passed through.
    pub fn verify(&self, request: &PlanRequest) -> Result<Replay, VerifyError> {
        let replayed = replay(&request.start, &self.steps, &request.costs)?;
        let repertoire = request.repertoire;
        for (step, (actions, before)) in self.steps.iter().zip(&replayed.states).enumerate() {
            let cells = |cell: Cell| [cell.x, cell.y, cell.z];
            if let Some(action) = actions.iter().find(|a| !repertoire.allows(a.kind, cells(a.from), cells(a.to))) {
                return Err(VerifyError::OutsideRepertoire { step, action: *action, repertoire });
            }
            if !repertoire.side_by_side {
                before.keeps_apart(actions).map_err(|source| ReplayError { step, source })?;
            }
        }
        if replayed.cost != self.cost {
            return Err(VerifyError::CostMismatch { claimed: self.cost, replayed: replayed.cost });
        }
        let last = replayed.states.last().unwrap_or(&request.start);
        if !reached(last, &request.goal) {
            return Err(VerifyError::GoalNotReached);
        }
        Ok(replayed)
    }
}

/// Plans with A*: validates the request, searches within the budget, and returns an
/// optimal plan (all heuristics are admissible; with `weight > 1` a plan at most `weight`
/// times the optimal cost) or why there is none.
pub fn plan(request: &PlanRequest) -> Result<Plan, PlanError> {
    request.validate()?;
    let cells = request.start.dims().cell_count();
    tracing::info!(
        dims = %request.start.dims(),
        blocks = request.start.block_count(),
        robots = request.start.robots().len(),
        heuristic = ?request.heuristic,
        weight = request.weight,
        "planning"
    );
    let result = match cells {
        0..=64 => plan_with::<1>(request),
        65..=128 => plan_with::<2>(request),
        129..=256 => plan_with::<4>(request),
        _ => plan_with::<8>(request),
    };
    match &result {
        Ok(plan) => tracing::info!(
            cost = plan.cost,
            steps = plan.steps.len(),
            expanded = plan.stats.expanded,
            elapsed_ms = plan.stats.elapsed.as_secs_f64() * 1e3,
            "plan found"
        ),
        Err(error) => tracing::warn!(%error, "no plan"),
    }
    result
}

fn bits_of<const W: usize>(lattice: &Lattice, cells: impl Iterator<Item = Cell>) -> Bits<W> {
    let mut bits = Bits::EMPTY;
    for cell in cells {
        if let Some(i) = lattice.index(&cell) {
            bits.insert(i);
        }
    }
    bits
}

fn plan_with<const W: usize>(request: &PlanRequest) -> Result<Plan, PlanError> {
    let (start, goal) = (&request.start, &request.goal);
    let problem = Problem {
        geometry: Geometry::<W>::new(start.dims()),
        start: State { blocks: bits_of(start, start.block_cells()), robots: bits_of(start, start.robots().iter().copied()) },
        goal_blocks: bits_of(goal, goal.block_cells()),
        goal_robots: (!goal.robots().is_empty()).then(|| bits_of(goal, goal.robots().iter().copied())),
        costs: request.costs,
        repertoire: request.repertoire,
    };
    let mut stats = SearchStats::default();
    let weight_permille = (request.weight * 1000.0).round() as u32;
    let settings =
        SearchSettings { heuristic: request.heuristic, weight_permille, decompose_above: request.decompose_above, budget: request.budget };
    match astar(&problem, &settings, &mut stats) {
        Ok(found) => label(start, found, stats),
        Err(Stop::Exhausted) => Err(PlanError::NoPlan { stats }),
        Err(Stop::Budget(limit)) => Err(PlanError::OutOfBudget { limit, stats }),
        Err(Stop::Rebuild(reason)) => Err(PlanError::Internal { reason }),
    }
}

/// Turns bit-level steps into actions of numbered robots, following each robot.
fn label<const W: usize>(start: &Lattice, found: Found<W>, stats: SearchStats) -> Result<Plan, PlanError> {
    let mut positions: Vec<u16> = start.robots().iter().filter_map(|c| start.index(c)).map(|i| i as u16).collect();
    let robot_in = |positions: &[u16], cell: u16| {
        positions.iter().position(|&p| p == cell).ok_or_else(|| PlanError::Internal {
            reason: format!("no robot at cell {} while labelling the plan", start.cell_at(cell as usize)),
        })
    };
    let mut steps = Vec::with_capacity(found.steps.len());
    for singles in &found.steps {
        let mut actions = Vec::with_capacity(singles.len());
        for single in singles {
            let robot = robot_in(&positions, single.robot_from)?;
            let partner = match single.partner {
                NONE => None,
                cell => Some(robot_in(&positions, cell)?),
            };
            actions.push((robot, single, partner));
        }
        steps.push(
            actions
                .into_iter()
                .map(|(robot, single, partner): (usize, &Single<W>, Option<usize>)| {
                    positions[robot] = single.robot_to;
                    Action {
                        robot,
                        kind: single.kind,
                        from: start.cell_at(single.from as usize),
                        to: start.cell_at(single.to as usize),
                        partner,
                    }
                })
                .collect(),
        );
    }
    Ok(Plan { steps, cost: found.cost, stats })
}
