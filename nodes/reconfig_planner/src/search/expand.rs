//! Successor generation on bit-packed states: every robot's single actions, then every
//! combination of them (one per robot at most, disjoint footprints) as one parallel step.
//! The rules are those of [`crate::rules`]; tests check both agree.

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

/// Running totals of a partial combination.
#[derive(Clone, Copy)]
struct Partial<const W: usize> {
    footprint: Bits<W>,
    blocks_xor: Bits<W>,
    robots_xor: Bits<W>,
    cost: u32,
    block_moves: u32,
}

pub(crate) struct Expander<'g, const W: usize> {
    geometry: &'g Geometry<W>,
    costs: ActionCosts,
    options: Vec<Vec<Single<W>>>,
    chosen: Vec<Single<W>>,
}

impl<'g, const W: usize> Expander<'g, W> {
    pub fn new(geometry: &'g Geometry<W>, costs: ActionCosts) -> Self {
        Self { geometry, costs, options: Vec::new(), chosen: Vec::new() }
    }

    /// Calls `visit(next_state, step_cost, actions)` for every valid step from `state`;
    /// stops early when `visit` breaks.
    pub fn expand<F>(&mut self, state: &State<W>, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(State<W>, u32, &[Single<W>]) -> ControlFlow<()>,
    {
        let robot_count = state.robots.count() as usize;
        self.options.resize_with(robot_count, Vec::new);
        for (slot, robot) in state.robots.iter().enumerate() {
            let mut options = std::mem::take(&mut self.options[slot]);
            options.clear();
            self.single_actions(state, robot, &mut options);
            self.options[slot] = options;
        }
        let mut chosen = std::mem::take(&mut self.chosen);
        chosen.clear();
        let start = Partial {
            footprint: Bits::EMPTY,
            blocks_xor: Bits::EMPTY,
            robots_xor: Bits::EMPTY,
            cost: self.costs.step,
            block_moves: 0,
        };
        let flow = self.combine(0, state, start, &mut chosen, &mut visit);
        self.chosen = chosen;
        flow
    }

    fn combine<F>(
        &self,
        level: usize,
        state: &State<W>,
        partial: Partial<W>,
        chosen: &mut Vec<Single<W>>,
        visit: &mut F,
    ) -> ControlFlow<()>
    where
        F: FnMut(State<W>, u32, &[Single<W>]) -> ControlFlow<()>,
    {
        if level == self.options.len() {
            if chosen.is_empty() {
                return ControlFlow::Continue(());
            }
            let blocks = state.blocks ^ partial.blocks_xor;
            // One block move alone was checked when generated; two or more need the
            // final state checked.
            if partial.block_moves >= 2 && !self.geometry.supported(blocks) {
                return ControlFlow::Continue(());
            }
            let next = State { blocks, robots: state.robots ^ partial.robots_xor };
            return visit(next, partial.cost, chosen);
        }
        self.combine(level + 1, state, partial, chosen, visit)?;
        for option in &self.options[level] {
            if option.footprint.intersects(&partial.footprint) {
                continue;
            }
            let extended = Partial {
                footprint: partial.footprint | option.footprint,
                blocks_xor: partial.blocks_xor ^ option.blocks_xor,
                robots_xor: partial.robots_xor ^ option.robots_xor,
                cost: partial.cost + option.cost,
                block_moves: partial.block_moves + option.kind.moves_block() as u32,
            };
            chosen.push(*option);
            let flow = self.combine(level + 1, state, extended, chosen, visit);
            chosen.pop();
            flow?;
        }
        ControlFlow::Continue(())
    }

    /// Every single action of the robot in cell `p`.
    fn single_actions(&self, state: &State<W>, p: usize, out: &mut Vec<Single<W>>) {
        let g = self.geometry;
        let (blocks, robots) = (state.blocks, state.robots);
        let free_block = |c: u16| c != NONE && blocks.contains(c as usize) && !robots.contains(c as usize);
        let empty = |c: u16| c != NONE && !blocks.contains(c as usize);
        let bit = |c: u16| Bits::<W>::single(c as usize);
        let here = p as u16;
        let nb = g.neighbours[p];
        for &q in &nb {
            if free_block(q) {
                out.push(Single {
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
                });
            }
        }
        let up = nb[UP];
        if up != NONE && blocks.contains(up as usize) {
            return; // a loaded block does not move
        }
        let above = if up == NONE { Bits::EMPTY } else { bit(up) };
        let block_action = |kind: ActionKind, to: u16, robot_to: u16, extra: Bits<W>, partner: u16| Single {
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
                } else if over != NONE && robots.contains(over as usize) && empty(up) {
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
            if g.supported(blocks ^ out[i].blocks_xor) {
                out[kept] = out[i];
                kept += 1;
            }
        }
        out.truncate(kept);
    }
}
