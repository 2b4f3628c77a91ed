//! A* with duplicate detection on bit-packed states.
//!
//! Every distinct state is stored once (a hash map from state to node). A successor
//! reached more cheaply than before takes the new parent and is pushed again; stale heap
//! entries are skipped when popped. This re-opening keeps A* optimal with an admissible
//! heuristic that is not consistent (the published one).

use super::bits::Bits;
use super::expand::{Expander, Single, State};
use super::geometry::Geometry;
use super::heuristic::{Heuristic, HeuristicKind};
use crate::planner::{Budget, BudgetLimit, SearchStats};
use crate::rules::ActionCosts;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::collections::hash_map::Entry;
use std::collections::BinaryHeap;
use std::ops::ControlFlow;
use std::time::Instant;

/// Successors generated between two clock reads inside one expansion.
const CLOCK_EVERY: u64 = 1024;

pub(crate) struct Problem<const W: usize> {
    pub geometry: Geometry<W>,
    pub start: State<W>,
    pub goal_blocks: Bits<W>,
    /// Required robot cells, when the goal names them.
    pub goal_robots: Option<Bits<W>>,
    pub costs: ActionCosts,
}

impl<const W: usize> Problem<W> {
    fn is_goal(&self, state: &State<W>) -> bool {
        state.blocks == self.goal_blocks && self.goal_robots.is_none_or(|r| r == state.robots)
    }
}

/// How the search ended without a plan.
pub(crate) enum Stop {
    /// Every reachable state was expanded.
    Exhausted,
    /// A budget limit was hit.
    Budget(BudgetLimit),
    /// The plan could not be rebuilt from the search tree (a bug, reported not hidden).
    Rebuild(String),
}

/// The steps of an optimal plan, as bit-level actions.
pub(crate) struct Found<const W: usize> {
    pub steps: Vec<Vec<Single<W>>>,
    pub cost: u32,
}

/// Search record of one stored state (kept in the hash map beside its state, so a
/// duplicate check is one memory access).
struct Node {
    id: u32,
    parent: u32,
    g: u32,
    /// Weighted heuristic value, cost units.
    h: u32,
}

#[derive(PartialEq, Eq)]
struct OpenEntry {
    f: u32,
    g: u32,
    id: u32,
}

impl Ord for OpenEntry {
    /// Max-heap order: lowest `f` first, then deepest (`g` highest), then oldest.
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.cmp(&self.f).then(self.g.cmp(&other.g)).then(other.id.cmp(&self.id))
    }
}

impl PartialOrd for OpenEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `weight_permille`: the heuristic is multiplied by `weight_permille / 1000` (1000 =
/// plain A*; more gives weighted A*, cost at most that factor above optimal).
pub(crate) fn astar<const W: usize>(
    problem: &Problem<W>,
    kind: HeuristicKind,
    weight_permille: u32,
    budget: &Budget,
    stats: &mut SearchStats,
) -> Result<Found<W>, Stop> {
    let clock = Instant::now();
    let robots = problem.start.robots.count();
    let heuristic = Heuristic::new(kind, &problem.geometry, problem.goal_blocks, robots, &problem.costs);
    let mut expander = Expander::new(&problem.geometry, problem.costs);
    // `states[id]` is the state of node `id`; `index` maps a state to its node.
    let mut states: Vec<State<W>> = vec![problem.start];
    let weighted = |h: u32| (h as u64 * weight_permille as u64 / 1000) as u32;
    let h0 = heuristic.estimate(&problem.start);
    stats.start_heuristic = h0;
    let h0 = weighted(h0);
    let mut index: FxHashMap<State<W>, Node> = FxHashMap::default();
    index.insert(problem.start, Node { id: 0, parent: u32::MAX, g: 0, h: h0 });
    let mut open = BinaryHeap::new();
    open.push(OpenEntry { f: h0, g: 0, id: 0 });

    let outcome = loop {
        let Some(top) = open.pop() else { break Err(Stop::Exhausted) };
        let id = top.id as usize;
        let state = states[id];
        if index.get(&state).is_some_and(|node| node.g != top.g) {
            continue; // superseded by a cheaper path
        }
        if problem.is_goal(&state) {
            break rebuild(&mut expander, &states, &index, id);
        }
        if stats.expanded >= budget.max_expansions {
            break Err(Stop::Budget(BudgetLimit::Expansions));
        }
        if clock.elapsed() >= budget.max_time {
            break Err(Stop::Budget(BudgetLimit::Time));
        }
        stats.expanded += 1;
        let g = top.g;
        let mut limit = None;
        let flow = expander.expand(&state, |next, cost, _| {
            stats.generated += 1;
            if stats.generated % CLOCK_EVERY == 0 && clock.elapsed() >= budget.max_time {
                limit = Some(BudgetLimit::Time);
                return ControlFlow::Break(());
            }
            let g_next = g.saturating_add(cost);
            match index.entry(next) {
                Entry::Occupied(mut entry) => {
                    let node = entry.get_mut();
                    if g_next < node.g {
                        node.g = g_next;
                        node.parent = id as u32;
                        stats.reopened += 1;
                        open.push(OpenEntry { f: g_next + node.h, g: g_next, id: node.id });
                    }
                }
                Entry::Vacant(entry) => {
                    if states.len() >= budget.max_stored_states {
                        limit = Some(BudgetLimit::StoredStates);
                        return ControlFlow::Break(());
                    }
                    let new_id = states.len() as u32;
                    let h = weighted(heuristic.estimate(&next));
                    entry.insert(Node { id: new_id, parent: id as u32, g: g_next, h });
                    states.push(next);
                    open.push(OpenEntry { f: g_next + h, g: g_next, id: new_id });
                }
            }
            ControlFlow::Continue(())
        });
        if let (ControlFlow::Break(()), Some(limit)) = (flow, limit) {
            break Err(Stop::Budget(limit));
        }
    };
    stats.stored_states = states.len();
    stats.peak_memory_bytes = states.capacity() * size_of::<State<W>>()
        + index.capacity() * (size_of::<(State<W>, Node)>() + 1)
        + open.capacity() * size_of::<OpenEntry>();
    stats.elapsed = clock.elapsed();
    outcome
}

/// Walks the parent links back from `goal` and recovers each step's actions by
/// re-expanding the parent (the expansion is deterministic).
fn rebuild<const W: usize>(
    expander: &mut Expander<'_, W>,
    states: &[State<W>],
    index: &FxHashMap<State<W>, Node>,
    goal: usize,
) -> Result<Found<W>, Stop> {
    let node = |id: usize| index.get(&states[id]).ok_or_else(|| Stop::Rebuild(format!("search node {id} lost")));
    let mut path = vec![goal];
    while let Some(&last) = path.last() {
        let parent = node(last)?.parent;
        if parent == u32::MAX {
            break;
        }
        path.push(parent as usize);
    }
    path.reverse();
    let mut steps = Vec::with_capacity(path.len().saturating_sub(1));
    for pair in path.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let step_cost = node(to)?.g - node(from)?.g;
        let mut found = None;
        let _ = expander.expand(&states[from], |next, cost, actions| {
            if next == states[to] && cost == step_cost {
                found = Some(actions.to_vec());
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        let actions = found.ok_or_else(|| {
            Stop::Rebuild(format!("no step of cost {step_cost} joins search nodes {from} and {to}"))
        })?;
        steps.push(actions);
    }
    Ok(Found { steps, cost: node(goal)?.g })
}
