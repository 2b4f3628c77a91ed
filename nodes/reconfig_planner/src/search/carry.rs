//! Carrying single blocks on the bare lattice, for the improved heuristic: the moves a
//! block can make whatever else is in the lattice (only the cells an action needs must
//! exist), the least cost and the least actions to carry a block from any cell to the
//! goal cells, and a minimum-cost matching of misplaced blocks to vacant goal cells.
//!
//! A block on the floor cannot shift or be put down sideways (no anchor below it), so
//! these bounds exceed the Manhattan ones where blocks must climb around.

use super::bits::Bits;
use super::geometry::{Geometry, DOWN, HORIZONTAL, NONE, UP};
use crate::rules::{ActionCosts, ActionKind};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Cost or step count standing for "impossible" (above any real carry, which is at most
/// 1000 per action over at most 512 cells).
pub(crate) const UNREACHABLE: u32 = 1 << 24;

/// Most misplaced blocks matched exactly; above, each block's cheapest vacant goal cell
/// (still a lower bound) keeps the cost linear.
const MATCH_EXACT: usize = 6;

/// Every cell a block in `cell` can be carried to by one action, with the action.
fn moves<const W: usize>(geometry: &Geometry<W>, cell: usize) -> impl Iterator<Item = (usize, ActionKind)> + '_ {
    let nb = geometry.neighbours[cell];
    let exists = |c: u16| c != NONE;
    let up_of = |c: u16| geometry.neighbours[c as usize][UP];
    let down_of = |c: u16| geometry.neighbours[c as usize][DOWN];
    let sideways = HORIZONTAL.into_iter().map(move |h| nb[h]).filter(move |&side| exists(side)).flat_map(move |side| {
        let lift = exists(up_of(side)).then(|| (up_of(side) as usize, ActionKind::Lift));
        let put_down = (exists(nb[DOWN]) && exists(down_of(side))).then(|| (down_of(side) as usize, ActionKind::PutDown));
        let shift = exists(down_of(side)).then_some((side as usize, ActionKind::Shift));
        [lift, put_down, shift].into_iter().flatten()
    });
    let partner_above_a_side = HORIZONTAL.iter().any(|&h| exists(nb[h]) && exists(up_of(nb[h])));
    let coop = (exists(nb[UP]) && partner_above_a_side).then(|| (nb[UP] as usize, ActionKind::CoopLift));
    sideways.chain(coop)
}

/// What carrying a block costs, to each goal cell.
pub(crate) struct Carry {
    cells: usize,
    /// `row[cell]`: the row of `cost` for a goal cell, `u32::MAX` for other cells.
    row: Vec<u32>,
    /// `cost[row * cells + c]`: least cost to carry a block from `c` to that goal cell,
    /// cost units; a co-operative lift counts one unit less, left for the lifter's entry.
    cost: Vec<u32>,
    /// Least actions to carry a block from each cell to its nearest goal cell, count.
    pub goal_steps: Vec<u32>,
}

impl Carry {
    pub fn new<const W: usize>(geometry: &Geometry<W>, goal: Bits<W>, costs: &ActionCosts) -> Self {
        let cells = geometry.coords.len();
        let price = |kind: ActionKind| match kind {
            ActionKind::CoopLift => costs.coop_lift.saturating_sub(1),
            kind => costs.of(kind),
        };
        // Searches run backwards from the goal cells, over the reversed moves.
        let mut into: Vec<Vec<(usize, u32)>> = vec![Vec::new(); cells];
        for from in 0..cells {
            for (to, kind) in moves(geometry, from) {
                into[to].push((from, price(kind)));
            }
        }
        let mut row = vec![u32::MAX; cells];
        let mut cost = Vec::with_capacity(goal.count() as usize * cells);
        for (r, target) in goal.iter().enumerate() {
            row[target] = r as u32;
            let mut best = vec![UNREACHABLE; cells];
            best[target] = 0;
            let mut queue = BinaryHeap::from([Reverse((0, target))]);
            while let Some(Reverse((d, cell))) = queue.pop() {
                if d > best[cell] {
                    continue;
                }
                for &(from, price) in &into[cell] {
                    if d + price < best[from] {
                        best[from] = d + price;
                        queue.push(Reverse((d + price, from)));
                    }
                }
            }
            cost.extend(best);
        }
        let mut goal_steps = vec![UNREACHABLE; cells];
        let mut queue: VecDeque<usize> = goal.iter().collect();
        queue.iter().for_each(|&g| goal_steps[g] = 0);
        while let Some(cell) = queue.pop_front() {
            for &(from, _) in &into[cell] {
                if goal_steps[from] == UNREACHABLE {
                    goal_steps[from] = goal_steps[cell] + 1;
                    queue.push_back(from);
                }
            }
        }
        Self { cells, row, cost, goal_steps }
    }

    /// Least cost to carry a block from `from` to the goal cell `to`, cost units.
    pub fn cost(&self, from: usize, to: usize) -> u32 {
        match self.row[to] {
            u32::MAX => UNREACHABLE,
            row => self.cost[row as usize * self.cells + from],
        }
    }

    /// Lower bound on the cost of carrying the blocks in `from` onto the goal cells `to`
    /// (as many), one block each: a minimum-cost matching (up to [`MATCH_EXACT`] blocks,
    /// else each block's cheapest cell), cost units.
    pub fn matching<const W: usize>(&self, from: Bits<W>, to: Bits<W>) -> u32 {
        let n = from.count() as usize;
        if n > MATCH_EXACT {
            return from.iter().map(|f| to.iter().map(|t| self.cost(f, t)).min().unwrap_or(0)).sum();
        }
        // The usual one or two misplaced blocks directly.
        let (mut f, mut t) = (from.iter(), to.iter());
        match (f.next(), f.next(), t.next(), t.next()) {
            (None, ..) => return 0,
            (Some(a), None, Some(x), _) => return self.cost(a, x),
            (Some(a), Some(b), Some(x), Some(y)) if n == 2 => {
                return (self.cost(a, x) + self.cost(b, y)).min(self.cost(a, y) + self.cost(b, x))
            }
            _ => {}
        }
        let mut matrix = [[0u32; MATCH_EXACT]; MATCH_EXACT];
        for (i, f) in from.iter().enumerate() {
            for (j, t) in to.iter().take(n).enumerate() {
                matrix[i][j] = self.cost(f, t);
            }
        }
        min_cost_assignment(n, &matrix)
    }
}

/// Minimum total of `matrix[i][perm(i)]` over permutations of `0..n`, by dynamic
/// programming over the sets of columns taken by the first rows (`n 2^n` steps).
fn min_cost_assignment(n: usize, matrix: &[[u32; MATCH_EXACT]; MATCH_EXACT]) -> u32 {
    let mut best = [u32::MAX; 1 << MATCH_EXACT];
    best[0] = 0;
    for taken in 0..(1usize << n) - 1 {
        let so_far = best[taken];
        if so_far == u32::MAX {
            continue;
        }
        let row = &matrix[taken.count_ones() as usize];
        for (column, &cost) in row.iter().enumerate().take(n) {
            if taken & 1 << column == 0 {
                let next = &mut best[taken | 1 << column];
                *next = (*next).min(so_far + cost);
            }
        }
    }
    best[(1 << n) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lattice::Dims;

    fn cell(x: usize, z: usize) -> usize {
        x + 4 * z
    }

    #[test]
    fn floor_blocks_climb_and_upper_blocks_shift() {
        // 4 x 3, goal cells (0,0) and (1,1).
        let geometry = Geometry::<1>::new(Dims::planar(4, 3));
        let mut goal = Bits::EMPTY;
        goal.insert(cell(0, 0));
        goal.insert(cell(1, 1));
        let carry = Carry::new(&geometry, goal, &ActionCosts::default());
        // (3,1) -> (2,1) -> (1,1): two shifts, 2.
        assert_eq!(carry.cost(cell(3, 1), cell(1, 1)), 2);
        // (3,0) -> (2,1) lift 2, shift 1: 3 (Manhattan 3).
        assert_eq!(carry.cost(cell(3, 0), cell(1, 1)), 3);
        // (1,0) -> (1,1) straight up: co-operative lift 2, one unit left for the entry.
        assert_eq!(carry.cost(cell(1, 0), cell(1, 1)), 1);
        // (1,0) -> (0,0): a floor block cannot move sideways; up (co-operative, 1) and
        // put down (2) -> 3 (Manhattan 1).
        assert_eq!(carry.cost(cell(1, 0), cell(0, 0)), 3);
        // Steps to the nearest goal cell: (3,0): lift to (2,1), shift to (1,1) -> 2;
        // (2,2): put down to (1,1) -> 1; a goal cell -> 0.
        assert_eq!(carry.goal_steps[cell(3, 0)], 2);
        assert_eq!(carry.goal_steps[cell(2, 2)], 1);
        assert_eq!(carry.goal_steps[cell(1, 1)], 0);
        // Not a goal cell.
        assert_eq!(carry.cost(cell(3, 0), cell(2, 0)), UNREACHABLE);
    }

    #[test]
    fn one_cell_high_lattice_cannot_carry() {
        let geometry = Geometry::<1>::new(Dims::planar(3, 1));
        let carry = Carry::new(&geometry, Bits::single(0), &ActionCosts::default());
        assert_eq!(carry.cost(2, 0), UNREACHABLE);
        assert_eq!(carry.goal_steps[2], UNREACHABLE);
    }

    #[test]
    fn assignment_by_hand() {
        let mut m = [[0u32; MATCH_EXACT]; MATCH_EXACT];
        // Rows: 4 1 3 / 2 0 5 / 3 2 2: best 1 + 2 + 2 = 5 (0->1, 1->0, 2->2).
        for (i, row) in [[4, 1, 3], [2, 0, 5], [3, 2, 2]].iter().enumerate() {
            m[i][..3].copy_from_slice(row);
        }
        assert_eq!(min_cost_assignment(3, &m), 5);
        // The textbook 4 x 4: 2 + 6 + 1 + 4 = 13 (row 0 -> 1, 1 -> 0, 2 -> 2, 3 -> 3).
        let mut m4 = [[0u32; MATCH_EXACT]; MATCH_EXACT];
        for (i, row) in [[9, 2, 7, 8], [6, 4, 3, 7], [5, 8, 1, 8], [7, 6, 9, 4]].iter().enumerate() {
            m4[i][..4].copy_from_slice(row);
        }
        assert_eq!(min_cost_assignment(4, &m4), 13);
        assert_eq!(min_cost_assignment(1, &m), 4);
        assert_eq!(min_cost_assignment(0, &m), 0);
    }

    #[test]
    fn matching_pairs_blocks_and_cells() {
        // Blocks at (3,1) and (1,0), vacant goal cells (2,1) and (0,0):
        // (3,1) -> (2,1) shift 1 + (1,0) -> (0,0) 3 = 4, against
        // (3,1) -> (0,0) (shifts to (1,1), put down: 2 + 2 = 4) + (1,0) -> (2,1) lift 2 = 6.
        let geometry = Geometry::<1>::new(Dims::planar(4, 3));
        let mut goal = Bits::EMPTY;
        goal.insert(cell(2, 1));
        goal.insert(cell(0, 0));
        let carry = Carry::new(&geometry, goal, &ActionCosts::default());
        assert_eq!(carry.cost(cell(3, 1), cell(2, 1)), 1);
        assert_eq!(carry.cost(cell(3, 1), cell(0, 0)), 4);
        assert_eq!(carry.cost(cell(1, 0), cell(2, 1)), 2);
        let mut from = Bits::EMPTY;
        from.insert(cell(3, 1));
        from.insert(cell(1, 0));
        assert_eq!(carry.matching(from, goal), 4);
    }
}
