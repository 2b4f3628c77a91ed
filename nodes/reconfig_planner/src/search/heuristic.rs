//! The A* heuristics. Blocks are interchangeable, so "the goal position of a block" is a
//! matching between the misplaced blocks (in cells not in the goal) and the vacant goal
//! cells.
//!
//! # Published (`h_pub`)
//! `h(x) = sum over misplaced blocks of (|i_G - i| + |j_G - j|) + n_wrong - n_robot`, with
//! each misplaced block paired with its nearest vacant goal cell and
//! `n_wrong - n_robot` = the misplaced blocks holding no robot.
//!
//! # Improved (`h_imp`)
//! `Phi(x) = W + E`, `h(x) = Phi + step * ceil(Phi / (2 k))`, where `W` is the sum over the
//! three axes of the 1-D earth mover's distance between the blocks' and the goal's
//! coordinate histograms (`sum over cuts c of |#blocks with coord <= c - #goal cells with
//! coord <= c|`), `E` the misplaced blocks holding no robot, `k` the number of robots and
//! `step` the per-step cost.
//!
//! # Admissibility (both), given the minimum costs of [`ActionCosts::validate`]
//! 1. Only a block holding a robot moves, and its move costs at least the Manhattan
//!    distance it travels: lift/put-down 2 cells for cost >= 2, shift 1 for >= 1,
//!    co-operative lift 1 cell plus the lifter entering another block for >= 2.
//! 2. A block in a non-goal cell must leave it (that cell is empty in the goal). A
//!    misplaced block with no robot can only move after a robot enters it, by a move
//!    (cost >= 1, no block moves) or as the lifter of a co-operative lift (counted in 1).
//!    Entries into different blocks are different events, so the entries needed are at
//!    least `E`, and each action pays for its block distance plus its entries.
//! 3. Any sequence of block moves carrying the blocks onto the goal cells costs at least
//!    the minimum-cost perfect matching between the two sets in the L1 metric. Summing
//!    each misplaced block's distance to its nearest vacant goal cell is at most that
//!    matching (fixed points match at zero cost in an optimal L1 transport plan), and so
//!    is `W`: an L1 matching's cost splits by axis, and each axis part is at least the
//!    1-D transport cost of that axis's histograms.
//! 4. So the action costs are at least `Phi` (either distance term) — the published
//!    heuristic is admissible. For the step term: one robot's action lowers
//!    `W + E` by at most 2 (a lift/put-down moves a block 2 cells; a move makes one
//!    entry; a co-operative lift uses two robots for 2), so a step lowers `Phi` by at
//!    most `2k`, at least `ceil(Phi / 2k)` steps remain, each paying `step`. Hence
//!    `h_imp <= h*`.
//!
//! `h_imp` is also consistent (`W` and `E` change by at most the step's block distance
//! plus entries, and the step term by at most `step`); `h_pub` is not (a block arriving
//! in a goal cell changes other blocks' nearest vacant cell), so the search re-opens
//! states whose cost improves, which keeps A* optimal with either.

use super::bits::Bits;
use super::expand::State;
use super::geometry::Geometry;
use crate::rules::ActionCosts;
use serde::{Deserialize, Serialize};

/// Which heuristic A* uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeuristicKind {
    /// `h = 0`: uniform-cost search (Dijkstra), the exhaustive reference.
    Zero,
    /// The paper's heuristic (Sec. 3.1).
    Published,
    /// Per-axis transport distance + robot entries + a step-count bound (admissible,
    /// consistent).
    #[default]
    Improved,
}

pub(crate) struct Heuristic<'g, const W: usize> {
    kind: HeuristicKind,
    geometry: &'g Geometry<W>,
    goal: Bits<W>,
    /// Goal cells per coordinate, per axis.
    goal_counts: [Vec<i32>; 3],
    robots: u32,
    step_cost: u32,
}

impl<'g, const W: usize> Heuristic<'g, W> {
    pub fn new(kind: HeuristicKind, geometry: &'g Geometry<W>, goal: Bits<W>, robots: u32, costs: &ActionCosts) -> Self {
        let goal_counts = std::array::from_fn(|axis| {
            geometry.slices[axis].iter().map(|slice| (goal & *slice).count() as i32).collect()
        });
        Self { kind, geometry, goal, goal_counts, robots: robots.max(1), step_cost: costs.step }
    }

    pub fn estimate(&self, state: &State<W>) -> u32 {
        match self.kind {
            HeuristicKind::Zero => 0,
            HeuristicKind::Published => self.published(state),
            HeuristicKind::Improved => self.improved(state),
        }
    }

    /// Misplaced blocks holding no robot.
    fn entries(&self, state: &State<W>) -> u32 {
        (state.blocks & !self.goal & !state.robots).count()
    }

    fn published(&self, state: &State<W>) -> u32 {
        let misplaced = state.blocks & !self.goal;
        let vacant = self.goal & !state.blocks;
        let distance: u32 = misplaced
            .iter()
            .map(|m| vacant.iter().map(|v| self.geometry.manhattan(m, v)).min().unwrap_or(0))
            .sum();
        distance + self.entries(state)
    }

    /// Sum over axes of the 1-D earth mover's distance between block and goal histograms.
    fn axis_transport(&self, blocks: Bits<W>) -> u32 {
        let mut total = 0;
        for (slices, goal_counts) in self.geometry.slices.iter().zip(&self.goal_counts) {
            let mut surplus = 0i32;
            for (slice, goal_count) in slices.iter().zip(goal_counts).take(slices.len().saturating_sub(1)) {
                surplus += (blocks & *slice).count() as i32 - goal_count;
                total += surplus.unsigned_abs();
            }
        }
        total
    }

    fn improved(&self, state: &State<W>) -> u32 {
        let phi = self.axis_transport(state.blocks) + self.entries(state);
        phi + self.step_cost * phi.div_ceil(2 * self.robots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lattice::Lattice;

    fn setup(start: &str, goal: &str) -> (Geometry<1>, State<1>, Bits<1>) {
        let start = Lattice::from_picture(start).unwrap();
        let goal = Lattice::from_picture(goal).unwrap();
        let geometry = Geometry::<1>::new(start.dims());
        let bits = |l: &Lattice, robots: bool| {
            let mut b = Bits::EMPTY;
            let cells: Vec<_> = if robots { l.robots().to_vec() } else { l.block_cells().collect() };
            for c in cells {
                b.insert(l.index(&c).unwrap());
            }
            b
        };
        let state = State { blocks: bits(&start, false), robots: bits(&start, true) };
        let goal_bits = bits(&goal, false);
        (geometry, state, goal_bits)
    }

    #[test]
    fn published_by_hand() {
        // Misplaced: (3,0) with no robot, (2,1) with robot 0. Vacant goal cells: (0,1), (0,2).
        // Nearest: (3,0)->(0,1) = 3+1 = 4; (2,1)->(0,1) = 2. Sum 6, plus 1 robot-free = 7.
        let (g, s, goal) = setup("....\n..0.\n####\n", "#...\n#...\n###.\n");
        let h = Heuristic::new(HeuristicKind::Published, &g, goal, 1, &ActionCosts::default());
        assert_eq!(h.estimate(&s), 7);
    }

    #[test]
    fn improved_by_hand() {
        // Same task. x histograms: blocks at x = 0,1,2,2,3; goal x = 0,0,0,1,2.
        // cuts c=0: 1-3 = -2; c=1: 2-4 = -2; c=2: 4-5 = -1  -> |.| sum 5.
        // z histograms: blocks z = 0,0,0,0,1; goal z = 0,0,0,1,2. cut 0: 4-3=1; cut 1: 5-4=1 -> 2.
        // W = 7, E = 1, Phi = 8; k = 1: step term ceil(8/2) = 4 -> 12. k = 3: ceil(8/6) = 2 -> 10.
        let (g, s, goal) = setup("....\n..0.\n####\n", "#...\n#...\n###.\n");
        let h1 = Heuristic::new(HeuristicKind::Improved, &g, goal, 1, &ActionCosts::default());
        assert_eq!(h1.estimate(&s), 12);
        let h3 = Heuristic::new(HeuristicKind::Improved, &g, goal, 3, &ActionCosts::default());
        assert_eq!(h3.estimate(&s), 10);
        let zero = Heuristic::new(HeuristicKind::Zero, &g, goal, 1, &ActionCosts::default());
        assert_eq!(zero.estimate(&s), 0);
    }

    #[test]
    fn zero_at_the_goal() {
        let (g, s, goal) = setup("..\n#0\n", "..\n##\n");
        for kind in [HeuristicKind::Published, HeuristicKind::Improved] {
            assert_eq!(Heuristic::new(kind, &g, goal, 1, &ActionCosts::default()).estimate(&s), 0);
        }
    }
}
