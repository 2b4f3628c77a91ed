//! Successor generation on bit-packed states: every robot's single actions (the options),
//! and steps built from them one action at a time ([`PartialStep`]): at most one option
//! per robot, disjoint footprints, the finished step supported. The rules are those of
//! [`crate::rules`]; tests check both agree.

use super::bits::Bits;
use super::geometry::{Geometry, DOWN, HORIZONTAL, NONE, UP};
use crate::rules::{ActionCosts, ActionKind, Repertoire};
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
    /// The footprint, and with robots kept apart (no [`Repertoire::side_by_side`]) its
    /// cells' neighbours along `x`: no other robot's cell or footprint may lie in it.
    pub reach: Bits<W>,
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
        Self { footprint: Bits::EMPTY, blocks_xor: Bits::EMPTY, robots_xor: Bits::EMPTY, cost: costs.step, actions: 0, block_moves: 0 }
    }

    /// The step with `action` added, or `None` when it shares a cell with a chosen one
    /// (or, robots kept apart, uses one beside a chosen one's along `x`).
    #[inline]
    pub fn with(&self, action: &Single<W>) -> Option<Self> {
        if action.reach.intersects(&self.footprint) {
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
        let valid = self.actions > 0 && (self.block_moves < 2 || geometry.supported_after(next.blocks, state.blocks & !next.blocks));
        valid.then_some(next)
    }
}

/// A single action of the robot in one cell, precomputed with what it needs of the state.
#[derive(Debug, Clone, Copy)]
struct Template<const W: usize> {
    action: Single<W>,
    /// Cells that must be blocks holding no robot.
    free: Bits<W>,
    /// Cells that must be empty.
    empty: Bits<W>,
    /// Cells that must hold a robot (a co-operative lift's partner).
    robot: Bits<W>,
}

pub(crate) struct Expander<'g, const W: usize> {
    geometry: &'g Geometry<W>,
    costs: ActionCosts,
    /// Robots kept a cell apart (no [`Repertoire::side_by_side`]).
    apart: bool,
    /// Every action the lattice allows from each cell, grouped by cell, in the order
    /// options are listed: moves by direction slot, then per horizontal direction lift,
    /// co-operative lift, put-down, shift.
    templates: Vec<Template<W>>,
    /// Templates of cell `c`: `templates[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    choices: Vec<Choice<W>>,
    chosen: Vec<Single<W>>,
}

impl<'g, const W: usize> Expander<'g, W> {
    /// The templates of every cell, of the actions in `repertoire` only.
    pub fn new(geometry: &'g Geometry<W>, costs: ActionCosts, repertoire: &Repertoire) -> Self {
        let mut templates = Vec::new();
        let mut starts = vec![0];
        let cell = |c: u16| geometry.coords[c as usize].map(usize::from);
        let allowed = |t: &Template<W>| repertoire.allows(t.action.kind, cell(t.action.from), cell(t.action.to));
        let apart = !repertoire.side_by_side;
        let mut of_cell = Vec::new();
        for p in 0..geometry.coords.len() {
            of_cell.clear();
            push_templates(geometry, &costs, p, &mut of_cell);
            if apart {
                of_cell.iter_mut().for_each(|t| t.action.reach = geometry.along_x(t.action.footprint));
            }
            templates.extend(of_cell.iter().filter(|t| allowed(t)).copied());
            starts.push(templates.len() as u32);
        }
        Self { geometry, costs, apart, templates, starts, choices: Vec::new(), chosen: Vec::new() }
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
        let here = Bits::single(p);
        let templates = &self.templates[self.starts[p] as usize..self.starts[p + 1] as usize];
        for t in templates {
            let valid = t.free & free == t.free
                && !t.empty.intersects(&state.blocks)
                && t.robot & state.robots == t.robot
                // Robots kept apart: no other robot (the partner aside) where the action reaches.
                && !(self.apart && t.action.reach.intersects(&(state.robots & !here & !t.robot)))
                // Each block move must leave no floating block on its own.
                && (t.action.kind == ActionKind::Move
                    || self.geometry.supported_after(state.blocks ^ t.action.blocks_xor, here));
            if valid {
                out.push(Choice { action: t.action, next_robot: 0, later: Bits::EMPTY });
            }
        }
    }
}

/// Appends the templates of every action the lattice allows the robot in cell `p` (see
/// the rules table: a moving block carries nothing, so the cell above it must be empty;
/// the anchor holds no robot).
fn push_templates<const W: usize>(g: &Geometry<W>, costs: &ActionCosts, p: usize, out: &mut Vec<Template<W>>) {
    let bit = |c: u16| Bits::<W>::single(c as usize);
    let here = p as u16;
    let nb = g.neighbours[p];
    let none = Bits::EMPTY;
    for &q in nb.iter().filter(|&&q| q != NONE) {
        let action = Single {
            footprint: bit(here) | bit(q),
            reach: bit(here) | bit(q),
            blocks_xor: Bits::EMPTY,
            robots_xor: bit(here) | bit(q),
            cost: costs.travel,
            kind: ActionKind::Move,
            robot_from: here,
            robot_to: q,
            from: here,
            to: q,
            partner: NONE,
        };
        out.push(Template { action, free: bit(q), empty: none, robot: none });
    }
    let up = nb[UP];
    let above = if up == NONE { Bits::EMPTY } else { bit(up) };
    let block_action = |kind: ActionKind, to: u16, robot_to: u16, extra: Bits<W>, partner: u16| Single {
        footprint: bit(here) | above | bit(to) | extra,
        reach: bit(here) | above | bit(to) | extra,
        blocks_xor: bit(here) | bit(to),
        robots_xor: bit(here) | bit(robot_to),
        cost: costs.of(kind),
        kind,
        robot_from: here,
        robot_to,
        from: here,
        to,
        partner,
    };
    for side in HORIZONTAL.map(|h| nb[h]).into_iter().filter(|&side| side != NONE) {
        let (over, under, below) = (g.neighbours[side as usize][UP], g.neighbours[side as usize][DOWN], nb[DOWN]);
        if over != NONE {
            let action = block_action(ActionKind::Lift, over, over, bit(side), NONE);
            out.push(Template { action, free: bit(side), empty: above | bit(over), robot: none });
        }
        if over != NONE && up != NONE {
            let action = block_action(ActionKind::CoopLift, up, side, bit(side) | bit(over), over);
            out.push(Template { action, free: bit(side), empty: above, robot: bit(over) });
        }
        if under != NONE && below != NONE {
            let action = block_action(ActionKind::PutDown, under, under, bit(side) | bit(below), NONE);
            out.push(Template { action, free: bit(below), empty: above | bit(side) | bit(under), robot: none });
        }
        if under != NONE {
            let action = block_action(ActionKind::Shift, side, side, bit(under), NONE);
            out.push(Template { action, free: bit(under), empty: above | bit(side), robot: none });
        }
    }
}

/// Where [`walk`] keeps the actions of the step it is building.
pub(crate) trait Taken<const W: usize> {
    fn push(&mut self, action: Single<W>);
    fn pop(&mut self);
    fn actions(&self) -> &[Single<W>];
}

impl<const W: usize> Taken<W> for Vec<Single<W>> {
    fn push(&mut self, action: Single<W>) {
        Vec::push(self, action);
    }

    fn pop(&mut self) {
        Vec::pop(self);
    }

    fn actions(&self) -> &[Single<W>] {
        self
    }
}

/// Keeps no actions (the search needs only the states).
pub(crate) struct Untracked;

impl<const W: usize> Taken<W> for Untracked {
    fn push(&mut self, _: Single<W>) {}

    fn pop(&mut self) {}

    fn actions(&self) -> &[Single<W>] {
        &[]
    }
}

/// Calls `visit(next_state, step_cost, actions)` for every valid step that extends
/// `partial` by options of `choices` from index `from` on (at most one per robot);
/// `chosen` holds the actions taken so far.
pub(crate) fn walk<const W: usize, T: Taken<W>, F>(
    state: &State<W>,
    geometry: &Geometry<W>,
    choices: &[Choice<W>],
    from: usize,
    partial: PartialStep<W>,
    chosen: &mut T,
    visit: &mut F,
) -> ControlFlow<()>
where
    F: FnMut(State<W>, u32, &[Single<W>]) -> ControlFlow<()>,
{
    for choice in choices.get(from..).unwrap_or_default() {
        let Some(extended) = partial.with(&choice.action) else { continue };
        chosen.push(choice.action);
        let mut flow = match extended.finish(state, geometry) {
            Some(next) => visit(next, extended.cost, chosen.actions()),
            None => ControlFlow::Continue(()),
        };
        if flow.is_continue() && (choice.next_robot as usize) < choices.len() {
            flow = walk(state, geometry, choices, choice.next_robot as usize, extended, chosen, visit);
        }
        chosen.pop();
        flow?;
    }
    ControlFlow::Continue(())
}
