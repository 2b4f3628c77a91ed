//! Successor generation on bit-packed states: every robot's single actions (the options),
//! and steps built from them one action at a time ([`PartialStep`]): at most one option
//! per robot, disjoint footprints, the finished step supported. The rules are those of
//! [`crate::rules`]; tests check both agree.

use super::bits::Bits;
use super::geometry::{Geometry, DOWN, HORIZONTAL, NONE, UP};
use crate::rules::{ActionCosts, ActionKind};
use std::ops::ControlFlow;

/// A lattice state: block cells and robot cells (robots are interchangeable here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct State<const W: usize> {
    pub blocks: Bits<W>,
    pub robots: Bits<W>,
}

/// One robot's action on a given state, as bit masks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Single<const W: usize> {
    /// Cells the action uses (see the rules table); parallel actions must not share one.
    pub footprint: Bits<W>,
    pub blocks_xor: Bits<W>,
    pub robots_xor: Bits<W>,
    pub cost: u32,
    pub kind: ActionKind,
    pub robot_from: u16,
    pub robot_to: u16,
    /// The block's cells, or the robot's for a `Move`.
    pub from: u16,
    pub to: u16,
    /// Cell of the partner robot (`CoopLift`), else [`NONE`].
    pub partner: u16,
}

/// An option in a state's option list. The list is grouped by robot (robots in ascending
/// cell order), so a step, which takes at most one option per robot, is a strictly
/// increasing sequence of list indices that jumps past each chosen robot's group.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Choice<const W: usize> {
    pub action: Single<W>,
    /// List index of the first option of the next robot.
    pub next_robot: u32,
    /// Cells of the later robots that have options: after taking this option, the
    /// robots still free to act in the step.
    pub later: Bits<W>,
}

/// The actions chosen so far for one step (operator decomposition: a step is built one
/// robot's action at a time).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PartialStep<const W: usize> {
    /// Cells used by the chosen actions.
    pub footprint: Bits<W>,
    pub blocks_xor: Bits<W>,
    pub robots_xor: Bits<W>,
    /// Cost so far, the per-step term included, cost units.
    pub cost: u32,
    /// Chosen actions, count.
    pub actions: u32,
    /// Chosen actions that move a block, count.
    pub block_moves: u32,
}

impl<const W: usize> PartialStep<W> {
    /// No action chosen yet; the step term is paid up front.
    pub fn empty(costs: &ActionCosts) -> Self {
        Self {
            footprint: Bits::EMPTY,
            blocks_xor: Bits::EMPTY,
            robots_xor: Bits::EMPTY,
            cost: costs.step,
            actions: 0,
            block_moves: 0,
        }
    }

    /// The step with `action` added, or `None` when it shares a cell with a chosen one.
    #[inline]
    pub fn with(&self, action: &Single<W>) -> Option<Self> {
        if action.footprint.intersects(&self.footprint) {
            return None;
        }
        Some(Self {
            footprint: self.footprint | action.footprint,
            blocks_xor: self.blocks_xor ^ action.blocks_xor,
            robots_xor: self.robots_xor ^ action.robots_xor,
            cost: self.cost + action.cost,
            actions: self.actions + 1,
            block_moves: self.block_moves + action.kind.moves_block() as u32,
        })
    }

    /// The configuration with the chosen actions done (part-way through a step it may
    /// have floating blocks).
    #[inline]
    pub fn applied(&self, state: &State<W>) -> State<W> {
        State { blocks: state.blocks ^ self.blocks_xor, robots: state.robots ^ self.robots_xor }
    }

    /// The state after the step when the chosen actions form a valid step: at least one
    /// action, and no floating block (one block move was checked alone when generated).
    #[inline]
    pub fn finish(&self, state: &State<W>, geometry: &Geometry<W>) -> Option<State<W>> {
        let next = self.applied(state);
        let valid = self.actions > 0
            && (self.block_moves < 2 || geometry.supported_after(next.blocks, state.blocks & !next.blocks));
        valid.then_some(next)
    }
}

pub(crate) struct Expander<'g, const W: usize> {
    geometry: &'g Geometry<W>,
    costs: ActionCosts,
    choices: Vec<Choice<W>>,
    chosen: Vec<Single<W>>,
}

impl<'g, const W: usize> Expander<'g, W> {
    pub fn new(geometry: &'g Geometry<W>, costs: ActionCosts) -> Self {
        Self { geometry, costs, choices: Vec::new(), chosen: Vec::new() }
    }

    /// Appends the options of every robot in `state` to `out`, grouped by robot.
    pub fn choices(&self, state: &State<W>, out: &mut Vec<Choice<W>>) {
        let first = out.len();
        let free = state.blocks & !state.robots;
        let mut acting = Bits::EMPTY;
        for robot in state.robots.iter() {
            let start = out.len();
            self.single_actions(state, free, robot, out);
            let next_robot = out.len() as u32;
            if next_robot as usize > start {
                acting.insert(robot);
                out[start..].iter_mut().for_each(|choice| choice.next_robot = next_robot);
            }
        }
        // Forwards over the groups, dropping each group's robot from the later ones.
        let (mut later, mut group) = (acting, first);
        while group < out.len() {
            later = later & !Bits::single(out[group].action.robot_from as usize);
            let end = out[group].next_robot as usize;
            out[group..end].iter_mut().for_each(|choice| choice.later = later);
            group = end;
        }
    }

    /// Calls `visit(next_state, step_cost, actions)` for every valid step from `state`
    /// (exhaustively, through the same partial steps the search builds); stops early
    /// when `visit` breaks.
    pub fn expand<F>(&mut self, state: &State<W>, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(State<W>, u32, &[Single<W>]) -> ControlFlow<()>,
    {
        let mut choices = std::mem::take(&mut self.choices);
        choices.clear();
        self.choices(state, &mut choices);
        let mut chosen = std::mem::take(&mut self.chosen);
        chosen.clear();
        let begun = PartialStep::empty(&self.costs);
        let flow = walk(state, self.geometry, &choices, 0, begun, &mut chosen, &mut visit);
        self.choices = choices;
        self.chosen = chosen;
        flow
    }

    /// Appends every single action of the robot in cell `p` to `out` (`next_robot` and
    /// `later` left for [`Self::choices`]); `free` = the blocks holding no robot.
    fn single_actions(&self, state: &State<W>, free: Bits<W>, p: usize, out: &mut Vec<Choice<W>>) {
        let g = self.geometry;
        let blocks = state.blocks;
        let free_block = |c: u16| c != NONE && free.contains(c as usize);
        let empty = |c: u16| c != NONE && !blocks.contains(c as usize);
        let bit = |c: u16| Bits::<W>::single(c as usize);
        let here = p as u16;
        let nb = g.neighbours[p];
        let choice = |action: Single<W>| Choice { action, next_robot: 0, later: Bits::EMPTY };
        for &q in &nb {
            if free_block(q) {
                out.push(choice(Single {
                    footprint: bit(here) | bit(q),
                    blocks_xor: Bits::EMPTY,
                    robots_xor: bit(here) | bit(q),
                    cost: self.costs.travel,
                    kind: ActionKind::Move,
                    robot_from: here,
                    robot_to: q,
                    from: here,
                    to: q,
                    partner: NONE,
                }));
            }
        }
        let up = nb[UP];
        if up != NONE && blocks.contains(up as usize) {
            return; // a loaded block does not move
        }
        let above = if up == NONE { Bits::EMPTY } else { bit(up) };
        let block_action = |kind: ActionKind, to: u16, robot_to: u16, extra: Bits<W>, partner: u16| {
            choice(Single {
                footprint: bit(here) | above | bit(to) | extra,
                blocks_xor: bit(here) | bit(to),
                robots_xor: bit(here) | bit(robot_to),
                cost: self.costs.of(kind),
                kind,
                robot_from: here,
                robot_to,
                from: here,
                to,
                partner,
            })
        };
        let first_block_action = out.len();
        for h in HORIZONTAL {
            let side = nb[h];
            if side == NONE {
                continue;
            }
            if free_block(side) {
                let over = g.neighbours[side as usize][UP];
                if empty(over) {
                    out.push(block_action(ActionKind::Lift, over, over, bit(side), NONE));
                } else if over != NONE && state.robots.contains(over as usize) && empty(up) {
                    out.push(block_action(ActionKind::CoopLift, up, side, bit(side) | bit(over), over));
                }
            } else if empty(side) {
                let under = g.neighbours[side as usize][DOWN];
                let below = nb[DOWN];
                if empty(under) && free_block(below) {
                    out.push(block_action(ActionKind::PutDown, under, under, bit(side) | bit(below), NONE));
                }
                if free_block(under) {
                    out.push(block_action(ActionKind::Shift, side, side, bit(under), NONE));
                }
            }
        }
        // Each block move must leave no floating block on its own.
        let mut kept = first_block_action;
        for i in first_block_action..out.len() {
            if g.supported_after(blocks ^ out[i].action.blocks_xor, bit(here)) {
                out[kept] = out[i];
                kept += 1;
            }
        }
        out.truncate(kept);
    }
}

/// Calls `visit(next_state, step_cost, actions)` for every valid step that extends
/// `partial` by options of `choices` from index `from` on (at most one per robot);
/// `chosen` holds the actions taken so far.
pub(crate) fn walk<const W: usize, F>(
    state: &State<W>,
    geometry: &Geometry<W>,
    choices: &[Choice<W>],
    from: usize,
    partial: PartialStep<W>,
    chosen: &mut Vec<Single<W>>,
    visit: &mut F,
) -> ControlFlow<()>
where
    F: FnMut(State<W>, u32, &[Single<W>]) -> ControlFlow<()>,
{
    for choice in choices.get(from..).unwrap_or_default() {
        let Some(extended) = partial.with(&choice.action) else { continue };
        chosen.push(choice.action);
        let mut flow = match extended.finish(state, geometry) {
            Some(next) => visit(next, extended.cost, chosen),
            None => ControlFlow::Continue(()),
        };
        if flow.is_continue() {
            flow = walk(state, geometry, choices, choice.next_robot as usize, extended, chosen, visit);
        }
        chosen.pop();
        flow?;
    }
    ControlFlow::Continue(())
}
