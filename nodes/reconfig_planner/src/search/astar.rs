//! A* over operator-decomposed steps, with duplicate detection on bit-packed states.
//!
//! With several robots a state has up to the product over robots of (options + 1)
//! steps as successors, most of them wasteful. Above [`SearchSettings::decompose_above`]
//! such steps are built one robot's action at a time (operator decomposition, Standley
//! 2010): expanding the state begins one *partial step* per option of any robot;
//! expanding a partial step finishes it (the state after the step, if the step is valid)
//! and extends it by each option of a later robot (robots in cell order) that shares no
//! cell with it. Every step of the joint expansion is built exactly once this way, at the
//! same cost, so the search graph keeps its states and distances and A* stays optimal.
//! A partial step waits in the open list with `f = g + h`, `h` bounding the cost still to
//! pay from the configuration it reaches (the step term is already paid, and only the
//! later robots may still act in the step: [`Heuristic::estimate_mid_step`]), never below
//! its parent's `f` (path-max, valid as `h*(child) >= h*(parent) - cost`). Steps whose
//! first actions already push `f` past the optimum are never completed.
//!
//! Every distinct state is stored once (a hash table from state to node). A state reached
//! more cheaply than before takes the new parent and is pushed again; stale open entries
//! (of states, and of partial steps begun from a state reached more cheaply since) are
//! skipped when popped. This re-opening keeps A* optimal with an admissible heuristic
//! that is not consistent (neither of ours is). Partial steps form a tree under their
//! state, so they need no duplicate detection.

use super::bits::Bits;
use super::expand::{walk, Choice, Expander, PartialStep, Single, State, Untracked};
use super::geometry::Geometry;
use super::heuristic::{Heuristic, HeuristicKind};
use super::index::{state_hash, Lookup, StateIndex};
use super::open::OpenList;
use crate::planner::{Budget, BudgetLimit, SearchStats};
use crate::rules::{ActionCosts, Repertoire};
use std::ops::ControlFlow;
use std::time::Instant;

/// Nodes generated (states and partial steps) between two clock reads.
const CLOCK_EVERY: u64 = 1024;

/// States expanded between two clock reads (a read costs about as much as a tenth of an
/// expansion).
const CLOCK_EVERY_EXPANDED: u64 = 16;

/// Most slots of the option-list cache; a partial step is usually extended soon after its
/// state was expanded, so a small direct-mapped cache avoids most recomputation.
const CACHE_SLOTS: usize = 4096;

/// Slots of the option-list cache at first; it doubles as lists are stored, up to
/// [`CACHE_SLOTS`], so that searches that decompose few states touch little memory.
const CACHE_FIRST_SLOTS: usize = 64;

/// Most stored states and queued partial steps whatever the budget (node ids are `u32`,
/// `u32::MAX` marks the start's parent).
const MAX_NODES: usize = u32::MAX as usize - 1;

pub(crate) struct Problem<const W: usize> {
    pub geometry: Geometry<W>,
    pub start: State<W>,
    pub goal_blocks: Bits<W>,
    /// Required robot cells, when the goal names them.
    pub goal_robots: Option<Bits<W>>,
    pub costs: ActionCosts,
    /// The actions the plan may use.
    pub repertoire: Repertoire,
}

impl<const W: usize> Problem<W> {
    fn is_goal(&self, state: &State<W>) -> bool {
        state.blocks == self.goal_blocks && self.goal_robots.is_none_or(|r| r == state.robots)
    }
}

/// How to search.
pub(crate) struct SearchSettings {
    pub heuristic: HeuristicKind,
    /// The heuristic is multiplied by `weight_permille / 1000` (1000 = plain A*; more
    /// gives weighted A*, cost at most that factor above optimal).
    pub weight_permille: u32,
    /// Joint steps of a state above which its steps are built one action at a time,
    /// count.
    pub decompose_above: u64,
    pub budget: Budget,
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

/// Search record of one stored state.
#[derive(Clone, Copy)]
struct Node<const W: usize> {
    state: State<W>,
    parent: u32,
    g: u32,
    /// Weighted heuristic value, cost units.
    h: u32,
}

/// A partial step waiting in the open list.
#[derive(Clone, Copy)]
struct Pending<const W: usize> {
    /// Node id of the state the step starts from.
    parent: u32,
    /// Its `g` when the step was begun; a cheaper path found since makes the step stale.
    parent_g: u32,
    /// First option (index in the parent's option list) that may still join.
    next: u32,
    step: PartialStep<W>,
}

/// A popped state.
struct Top {
    f: u32,
    g: u32,
    /// Its node id.
    node: u32,
}

/// Option lists of recently decomposed states, direct-mapped by node id (a miss
/// recomputes the list, which is deterministic). Allocated on first use: searches that
/// never decompose a step do not pay for it.
#[derive(Default)]
struct OptionCache<const W: usize> {
    /// `(node id, its list)`; `u32::MAX` marks a slot never used.
    slots: Vec<(u32, Vec<Choice<W>>)>,
    /// Lists stored, count.
    stored: usize,
}

impl<const W: usize> OptionCache<W> {
    fn slot(&mut self, id: u32) -> &mut (u32, Vec<Choice<W>>) {
        if self.slots.is_empty() {
            self.grow();
        }
        let slots = self.slots.len();
        &mut self.slots[id as usize % slots]
    }

    /// Doubles the slots, keeping every list (and its allocation): ids distinct modulo
    /// `n` stay distinct modulo `2n`.
    fn grow(&mut self) {
        let doubled = (self.slots.len() * 2).max(CACHE_FIRST_SLOTS);
        let mut slots: Vec<_> = (0..doubled).map(|_| (u32::MAX, Vec::new())).collect();
        // A slot never used holds no allocation.
        for (id, list) in self.slots.drain(..).filter(|&(id, _)| id != u32::MAX) {
            slots[id as usize % doubled] = (id, list);
        }
        self.slots = slots;
    }

    /// Stores a copy of the option list of node `id` (the slot keeps its allocation).
    fn store(&mut self, id: u32, list: &[Choice<W>]) {
        self.stored += 1;
        if self.stored > self.slots.len() && self.slots.len() < CACHE_SLOTS {
            self.grow();
        }
        let slot = self.slot(id);
        slot.0 = id;
        slot.1.clear();
        slot.1.extend_from_slice(list);
    }

    /// The option list of node `id` (whose state is `state`); give it back with [`Self::put`].
    fn take(&mut self, id: u32, state: &State<W>, expander: &Expander<'_, W>) -> Vec<Choice<W>> {
        let slot = self.slot(id);
        let mut list = std::mem::take(&mut slot.1);
        if slot.0 != id {
            list.clear();
            expander.choices(state, &mut list);
            slot.0 = id;
        }
        list
    }

    fn put(&mut self, id: u32, list: Vec<Choice<W>>) {
        self.slot(id).1 = list;
    }

    fn bytes(&self) -> usize {
        self.slots.iter().map(|(_, list)| list.capacity() * size_of::<Choice<W>>()).sum::<usize>()
            + self.slots.capacity() * size_of::<(u32, Vec<Choice<W>>)>()
    }
}

struct Search<'p, const W: usize> {
    problem: &'p Problem<W>,
    settings: &'p SearchSettings,
    heuristic: Heuristic<'p, W>,
    expander: Expander<'p, W>,
    clock: Instant,
    /// `nodes[id]` is node `id`; `index` maps a state to its node id.
    nodes: Vec<Node<W>>,
    index: StateIndex,
    /// The open list: states by node id, and partial steps (kept apart, inline: a
    /// partial step is read once, when popped).
    open: OpenList<u32>,
    partials: OpenList<Pending<W>>,
    cache: OptionCache<W>,
    /// Scratch list of a state's options.
    scratch: Vec<Choice<W>>,
    stats: SearchStats,
}

pub(crate) fn astar<const W: usize>(problem: &Problem<W>, settings: &SearchSettings, stats: &mut SearchStats) -> Result<Found<W>, Stop> {
    let robots = problem.start.robots.count();
    let mut search = Search {
        problem,
        settings,
        heuristic: Heuristic::new(settings.heuristic, &problem.geometry, problem.goal_blocks, robots, &problem.costs),
        expander: Expander::new(&problem.geometry, problem.costs, &problem.repertoire),
        clock: Instant::now(),
        nodes: Vec::new(),
        index: StateIndex::default(),
        open: OpenList::default(),
        partials: OpenList::default(),
        cache: OptionCache::default(),
        scratch: Vec::new(),
        stats: SearchStats::default(),
    };
    let outcome = search.run();
    search.stats.stored_states = search.nodes.len();
    search.stats.peak_memory_bytes = search.nodes.capacity() * size_of::<Node<W>>()
        + search.index.bytes()
        + search.open.bytes()
        + search.partials.bytes()
        + search.cache.bytes();
    search.stats.elapsed = search.clock.elapsed();
    *stats = search.stats;
    outcome
}

/// `h` times the weight.
fn weighted(h: u32, weight_permille: u32) -> u32 {
    (h as u64 * weight_permille as u64 / 1000).min(u32::MAX as u64) as u32
}

impl<const W: usize> Search<'_, W> {
    /// True when one more stored state or pending partial step exceeds the budget.
    fn storage_full(&self) -> bool {
        let stored = self.nodes.len() + self.partials.len();
        stored >= self.settings.budget.max_stored_states.min(MAX_NODES)
    }

    fn run(&mut self) -> Result<Found<W>, Stop> {
        let start = self.problem.start;
        let h0 = self.heuristic.estimate(&start);
        self.stats.start_heuristic = h0;
        let h0 = weighted(h0, self.settings.weight_permille);
        self.nodes.push(Node { state: start, parent: u32::MAX, g: 0, h: h0 });
        let hash = state_hash(&start);
        if let Lookup::Vacant(slot) = self.index.find(hash, |_| false) {
            self.index.insert(slot, hash, 0); // the index is empty: always vacant
        }
        self.open.push(h0, 0, 0);
        loop {
            // Lowest (f, -g) first; a partial step before a state on a tie.
            let (f, g, node) = match (self.open.first_key(), self.partials.first_key()) {
                (None, None) => return Err(Stop::Exhausted),
                (Some(state), Some(partial)) if state < partial => self.open.pop(),
                (Some(_), None) => self.open.pop(),
                _ => {
                    if let Some((f, _, pending)) = self.partials.pop() {
                        self.expand_partial(f, &pending)?;
                    }
                    continue;
                }
            }
            .ok_or_else(|| Stop::Rebuild("the open list lost an entry".to_string()))?;
            let top = Top { f, g, node };
            let Node { state, g: best, .. } = self.nodes[node as usize];
            if best != g {
                continue; // superseded by a cheaper path
            }
            if self.problem.is_goal(&state) {
                return rebuild(&mut self.expander, &self.nodes, node as usize);
            }
            if self.stats.expanded >= self.settings.budget.max_expansions {
                return Err(Stop::Budget(BudgetLimit::Expansions));
            }
            if self.stats.expanded % CLOCK_EVERY_EXPANDED == 0 && self.clock.elapsed() >= self.settings.budget.max_time {
                return Err(Stop::Budget(BudgetLimit::Time));
            }
            self.stats.expanded += 1;
            self.expand_state(&top, &state)?;
        }
    }

    /// Generates every step from a popped state, or with many joint steps begins one
    /// partial step per option.
    fn expand_state(&mut self, top: &Top, state: &State<W>) -> Result<(), Stop> {
        let mut choices = std::mem::take(&mut self.scratch);
        choices.clear();
        self.expander.choices(state, &mut choices);
        let begun = PartialStep::empty(&self.problem.costs);
        if joint_steps(&choices) <= self.settings.decompose_above {
            let problem = self.problem;
            let mut failure = None;
            let _ = walk(state, &problem.geometry, &choices, 0, begun, &mut Untracked, &mut |next, cost, _| match self.reach(
                next,
                top.g.saturating_add(cost),
                top.node,
            ) {
                Ok(()) => ControlFlow::Continue(()),
                Err(stop) => {
                    failure = Some(stop);
                    ControlFlow::Break(())
                }
            });
            self.scratch = choices;
            return failure.map_or(Ok(()), Err);
        }
        let end = choices.len() as u32;
        let result = choices.iter().try_for_each(|choice| match begun.with(&choice.action) {
            Some(step) => self.spawn(top.node, top.g, top.f, state, step, choice, end),
            None => Ok(()),
        });
        // Its partial steps will need the list again.
        self.cache.store(top.node, &choices);
        self.scratch = choices;
        result
    }

    /// Finishes a popped partial step (`f` its key) and extends it by every later option.
    fn expand_partial(&mut self, f: u32, pending: &Pending<W>) -> Result<(), Stop> {
        let Node { state, g: parent_g, .. } = self.nodes[pending.parent as usize];
        if parent_g != pending.parent_g {
            return Ok(()); // the parent was reached more cheaply and expanded again
        }
        self.stats.partial_expanded += 1;
        let g = pending.parent_g.saturating_add(pending.step.cost);
        if let Some(next) = pending.step.finish(&state, &self.problem.geometry) {
            self.reach(next, g, pending.parent)?;
        }
        let choices = self.cache.take(pending.parent, &state, &self.expander);
        let end = choices.len() as u32;
        let flow = choices[pending.next as usize..].iter().try_for_each(|choice| match pending.step.with(&choice.action) {
            Some(step) => self.spawn(pending.parent, pending.parent_g, f, &state, step, choice, end),
            None => Ok(()),
        });
        self.cache.put(pending.parent, choices);
        flow
    }

    /// Queues the partial step `step` begun from node `parent`, whose last action is
    /// `taken`; options after `taken`'s robot may still join it. With none left it can
    /// only finish, so it is finished at once.
    #[allow(clippy::too_many_arguments)]
    fn spawn(
        &mut self,
        parent: u32,
        parent_g: u32,
        parent_f: u32,
        state: &State<W>,
        step: PartialStep<W>,
        taken: &Choice<W>,
        end: u32,
    ) -> Result<(), Stop> {
        let g = parent_g.saturating_add(step.cost);
        let next = taken.next_robot;
        if next == end {
            return match step.finish(state, &self.problem.geometry) {
                Some(after) => self.reach(after, g, parent),
                None => Ok(()),
            };
        }
        self.tick()?;
        if self.storage_full() {
            return Err(Stop::Budget(BudgetLimit::StoredStates));
        }
        self.stats.partial_generated += 1;
        let h = self.heuristic.estimate_mid_step(&step.applied(state), taken.later);
        let f = g.saturating_add(weighted(h, self.settings.weight_permille)).max(parent_f);
        self.partials.push(f, g, Pending { parent, parent_g, next, step });
        Ok(())
    }

    /// Records that `next` is reached with cost `g` from node `parent`.
    /// Most successors are stored states reached no more cheaply: that test is inlined,
    /// the rest is not.
    #[inline]
    fn reach(&mut self, next: State<W>, g: u32, parent: u32) -> Result<(), Stop> {
        self.tick()?;
        self.stats.generated += 1;
        let hash = state_hash(&next);
        let nodes = &self.nodes;
        match self.index.find(hash, |id| nodes[id as usize].state == next) {
            Lookup::Found(id) if g >= self.nodes[id as usize].g => Ok(()),
            Lookup::Found(id) => {
                self.reopen(id, g, parent);
                Ok(())
            }
            Lookup::Vacant(slot) => self.store(next, hash, slot, g, parent),
        }
    }

    /// `parent` gives the stored node `id` the cheaper cost `g`.
    #[inline(never)]
    fn reopen(&mut self, id: u32, g: u32, parent: u32) {
        let node = &mut self.nodes[id as usize];
        node.g = g;
        node.parent = parent;
        self.stats.reopened += 1;
        let f = g.saturating_add(node.h);
        self.open.push(f, g, id);
    }

    /// Stores the new state `next` (hash `hash`, index slot `slot`).
    #[inline(never)]
    fn store(&mut self, next: State<W>, hash: u32, slot: usize, g: u32, parent: u32) -> Result<(), Stop> {
        if self.storage_full() {
            return Err(Stop::Budget(BudgetLimit::StoredStates));
        }
        let id = self.nodes.len() as u32;
        let h = weighted(self.heuristic.estimate(&next), self.settings.weight_permille);
        self.index.insert(slot, hash, id);
        self.nodes.push(Node { state: next, parent, g, h });
        self.open.push(g.saturating_add(h), g, id);
        Ok(())
    }

    /// Counts a generated node; reads the clock every [`CLOCK_EVERY`].
    fn tick(&mut self) -> Result<(), Stop> {
        let generated = self.stats.generated + self.stats.partial_generated;
        if generated % CLOCK_EVERY == CLOCK_EVERY - 1 && self.clock.elapsed() >= self.settings.budget.max_time {
            return Err(Stop::Budget(BudgetLimit::Time));
        }
        Ok(())
    }
}

/// Upper bound on the joint steps from a state with these options: the product over
/// robots of (options + 1), less the empty step.
pub(super) fn joint_steps<const W: usize>(choices: &[Choice<W>]) -> u64 {
    let mut product: u64 = 1;
    let mut group = 0;
    while group < choices.len() {
        let next = choices[group].next_robot as usize;
        product = product.saturating_mul((next - group) as u64 + 1);
        group = next;
    }
    product - 1
}

/// Walks the parent links back from `goal` and recovers each step's actions by
/// re-expanding the parent (the expansion is deterministic).
fn rebuild<const W: usize>(expander: &mut Expander<'_, W>, nodes: &[Node<W>], goal: usize) -> Result<Found<W>, Stop> {
    let mut path = vec![goal];
    while let Some(&last) = path.last() {
        match nodes[last].parent {
            u32::MAX => break,
            parent if path.len() <= nodes.len() => path.push(parent as usize),
            _ => return Err(Stop::Rebuild("the parent links form a cycle".to_string())),
        }
    }
    path.reverse();
    let mut steps = Vec::with_capacity(path.len().saturating_sub(1));
    for pair in path.windows(2) {
        let (from, to) = (&nodes[pair[0]], &nodes[pair[1]]);
        let step_cost = to.g - from.g;
        let mut found = None;
        let _ = expander.expand(&from.state, |next, cost, actions| {
            if next == to.state && cost == step_cost {
                found = Some(actions.to_vec());
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        let actions =
            found.ok_or_else(|| Stop::Rebuild(format!("no step of cost {step_cost} joins search nodes {} and {}", pair[0], pair[1])))?;
        steps.push(actions);
    }
    Ok(Found { steps, cost: nodes[goal].g })
}
