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
//! `h(x) = work + step * steps` with
//! - `work = max(Phi, Lambda)`, `Phi = W + E`: `W` is the sum over the three axes of the
//!   1-D earth mover's distance between the blocks' and the goal's coordinate histograms
//!   (`sum over cuts c of |#blocks with coord <= c - #goal cells with coord <= c|`), `E`
//!   the misplaced blocks holding no robot; `Lambda` is the weight of a minimum spanning
//!   tree (L1) over the cells some robot must visit — misplaced robot-free blocks, and
//!   with one robot also the vacant goal cells — with all robot cells merged into its root;
//! - `steps = max(ceil(work / 2k), S)`, `k` robots, `S` = max over misplaced blocks of
//!   (1 if no robot is inside) + min over goal cells of max(horizontal L1 distance,
//!   vertical distance);
//! - `step` = the per-step cost.
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
//! 4. So the action costs are at least `Phi` (either distance term): the published
//!    heuristic is admissible.
//! 5. Every action costs at least the path length it gives its robot(s) (move 1 for >= 1,
//!    lift/put-down 2 for >= 2, shift 1 for >= 1, co-operative lift 1 for >= 2), and
//!    the robots' paths, joined at their start cells, connect every cell in `Lambda`'s
//!    set (a robot is inside a block when it moves it; with one robot it is inside every
//!    block arriving in a goal cell), so they weigh at least that tree. Hence cost >= `work`.
//! 6. Steps: one robot's action lowers `W + E` by at most 2 and adds at most 2 to the
//!    robots' path, so a step does at most `2k` of `work`. Every action moves a block at
//!    most one cell sideways and one cell up or down (lift `(h, +1)`, put-down `(h, -1)`,
//!    shift `(h, 0)`, co-operative lift `(0, +1)`), a misplaced block must end in some
//!    goal cell, and a robot-free one must first be entered in an earlier step. Each
//!    remaining step pays `step`. Hence `h_imp <= h*`.
//!
//! Neither is consistent (a block arriving in a goal cell can change other blocks'
//! nearest vacant or goal cell, and the spanning tree of a smaller set can be heavier),
//! so the search re-opens states whose cost improves; that keeps A* optimal with any
//! admissible heuristic.

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
    /// Per-axis transport distance + robot entries, or the robots' spanning tree, plus a
    /// step-count bound (admissible; see the module docs).
    #[default]
    Improved,
}

pub(crate) struct Heuristic<'g, const W: usize> {
    kind: HeuristicKind,
    geometry: &'g Geometry<W>,
    goal: Bits<W>,
    /// Every cut of every axis: the cells with that axis's coordinate at most `c` (for
    /// `c` below the last), and the goal cells among them, count.
    cuts: Vec<(Bits<W>, u32)>,
    /// Least steps a block in each cell needs to reach any goal cell, steps.
    goal_steps: Vec<u32>,
    robots: u32,
    step_cost: u32,
}

/// Most cells [`Heuristic::robot_tour`] spans (one 64-bit mask of open points).
const TOUR_POINTS: usize = 64;

impl<'g, const W: usize> Heuristic<'g, W> {
    pub fn new(kind: HeuristicKind, geometry: &'g Geometry<W>, goal: Bits<W>, robots: u32, costs: &ActionCosts) -> Self {
        let mut cuts = Vec::new();
        for slices in &geometry.slices {
            let mut below = Bits::EMPTY;
            for slice in slices.iter().take(slices.len().saturating_sub(1)) {
                below = below | *slice;
                cuts.push((below, (goal & below).count()));
            }
        }
        let goal_steps = (0..geometry.coords.len())
            .map(|c| goal.iter().map(|g| geometry.block_steps(c, g)).min().unwrap_or(0))
            .collect();
        Self { kind, geometry, goal, cuts, goal_steps, robots: robots.max(1), step_cost: costs.step }
    }

    /// Lower bound on the cost from `state` to the goal, cost units.
    pub fn estimate(&self, state: &State<W>) -> u32 {
        match self.kind {
            HeuristicKind::Zero => 0,
            HeuristicKind::Published => self.published(state),
            HeuristicKind::Improved => {
                let work = self.work(state);
                work + self.step_cost * self.steps(state, work)
            }
        }
    }

    /// Lower bound on the cost still to pay from `state`, reached part-way through a step
    /// whose step term is already paid and in which only the robots in `undecided` (their
    /// cells) may still act, cost units. Equals [`Self::estimate`] when none may.
    pub fn estimate_mid_step(&self, state: &State<W>, undecided: Bits<W>) -> u32 {
        match self.kind {
            HeuristicKind::Zero => 0,
            HeuristicKind::Published => self.published(state),
            HeuristicKind::Improved => {
                let work = self.work(state);
                work + self.step_cost * self.later_steps(state, work, undecided)
            }
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

    /// Sum over axes of the 1-D earth mover's distance between block and goal histograms:
    /// the sum over cuts of the blocks that must cross them.
    fn axis_transport(&self, blocks: Bits<W>) -> u32 {
        self.cuts.iter().map(|(below, goal)| (blocks & *below).count().abs_diff(*goal)).sum()
    }

    /// Weight of a minimum spanning tree over the cells some robot path must visit, with
    /// all robot cells merged into one root: a lower bound on the robots' total path
    /// length. Bounded work: 0 (still a lower bound) above [`TOUR_POINTS`] cells.
    fn robot_tour(&self, state: &State<W>) -> u32 {
        let mut required = state.blocks & !self.goal & !state.robots;
        if self.robots == 1 {
            // With one robot, every block reaches its goal cell with the robot inside.
            required = required | (self.goal & !state.blocks);
        }
        let count = required.count() as usize;
        if count == 0 || count > TOUR_POINTS {
            return 0;
        }
        let mut points = [0u16; TOUR_POINTS];
        for (i, p) in required.iter().enumerate() {
            points[i] = p as u16;
        }
        // Prim's algorithm; `best[i]` = distance of point i to the tree, at first to the
        // root (the nearest robot, found by growing the robots' cells one layer at a time:
        // in a box lattice the layers are the L1 distance).
        let mut best = [0u32; TOUR_POINTS];
        let (mut reached, mut unreached, mut layer) = (state.robots, required, 0);
        while unreached != Bits::EMPTY && reached != Bits::EMPTY && (layer as usize) < self.geometry.coords.len() {
            let hit = unreached & reached;
            if hit != Bits::EMPTY {
                for (i, &p) in points[..count].iter().enumerate() {
                    if hit.contains(p as usize) {
                        best[i] = layer;
                    }
                }
                unreached = unreached & !hit;
            }
            reached = self.geometry.dilate(reached);
            layer += 1;
        }
        let mut open = u64::MAX >> (64 - count); // bits 0..count, 1 <= count <= 64
        let mut total = 0;
        while open != 0 {
            let mut next = open.trailing_zeros() as usize;
            let mut rest = open;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if best[i] < best[next] {
                    next = i;
                }
            }
            open &= !(1u64 << next);
            total += best[next];
            let mut rest = open;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                best[i] = best[i].min(self.geometry.manhattan(points[i] as usize, points[next] as usize));
            }
        }
        total
    }

    /// Steps needed by the slowest single block: enter it (if no robot is inside), then
    /// carry it at most one cell sideways and one up or down per step to a goal cell.
    fn slowest_block_steps(&self, state: &State<W>) -> u32 {
        (state.blocks & !self.goal)
            .iter()
            .map(|b| (!state.robots.contains(b)) as u32 + self.goal_steps[b])
            .max()
            .unwrap_or(0)
    }

    /// Lower bound on the action costs still to pay: `max(Phi, Lambda)`.
    fn work(&self, state: &State<W>) -> u32 {
        let phi = self.axis_transport(state.blocks) + self.entries(state);
        phi.max(self.robot_tour(state))
    }

    /// Lower bound on the steps still needed, given `work`.
    fn steps(&self, state: &State<W>, work: u32) -> u32 {
        work.div_ceil(2 * self.robots).max(self.slowest_block_steps(state))
    }

    /// Lower bound on the steps needed after the current one, part-way through it with
    /// only the robots in `undecided` still free to act in it: those robots do at most 2
    /// work each now, and a block progresses now only if an undecided robot is inside it
    /// (or, robot-free, next to it and so able to enter it).
    fn later_steps(&self, state: &State<W>, work: u32, undecided: Bits<W>) -> u32 {
        let by_work = work.saturating_sub(2 * undecided.count()).div_ceil(2 * self.robots);
        let can_enter = self.geometry.dilate(undecided);
        let slowest = (state.blocks & !self.goal)
            .iter()
            .map(|b| {
                let robot_free = !state.robots.contains(b);
                let progress = if robot_free { can_enter.contains(b) } else { undecided.contains(b) };
                (robot_free as u32 + self.goal_steps[b]).saturating_sub(progress as u32)
            })
            .max()
            .unwrap_or(0);
        by_work.max(slowest)
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
        // Same task. Lambda (k = 1): robot (2,1) -> (3,0) 2, -> (0,1) 2, (0,1) -> (0,2) 1 = 5.
        // S: (3,0) 1 + max(1 sideways to (2,0), 0) = 2. Both below the Phi terms here. x histograms: blocks at x = 0,1,2,2,3; goal x = 0,0,0,1,2.
        // cuts c=0: 1-3 = -2; c=1: 2-4 = -2; c=2: 4-5 = -1  -> |.| sum 5.
        // z histograms: blocks z = 0,0,0,0,1; goal z = 0,0,0,1,2. cut 0: 4-3=1; cut 1: 5-4=1 -> 2.
        // W = 7, E = 1, Phi = 8 = work; k = 1: steps ceil(8/2) = 4 -> 12; k = 3: ceil(8/6) = 2 -> 10.
        let (g, s, goal) = setup("....\n..0.\n####\n", "#...\n#...\n###.\n");
        let h1 = Heuristic::new(HeuristicKind::Improved, &g, goal, 1, &ActionCosts::default());
        assert_eq!(h1.robot_tour(&s), 5);
        assert_eq!(h1.slowest_block_steps(&s), 2);
        assert_eq!(h1.estimate(&s), 12);
        let h3 = Heuristic::new(HeuristicKind::Improved, &g, goal, 3, &ActionCosts::default());
        assert_eq!(h3.estimate(&s), 10);
        let zero = Heuristic::new(HeuristicKind::Zero, &g, goal, 1, &ActionCosts::default());
        assert_eq!(zero.estimate(&s), 0);
    }

    #[test]
    fn robot_tour_and_slowest_block_by_hand() {
        // Robot 0 at (0,1), far from the misplaced (6,1); vacant goal cell (5,1).
        // Phi: W = 1 (x cut 5), E = 1 -> 2. Lambda: robot->(5,1) 5, then (5,1)->(6,1) 1 -> 6.
        // S: (6,1) needs an entry, goal cell (6,0) is 0 sideways, 1 down -> 1 + 1 = 2.
        // work 6, steps max(ceil(6/2), 2) = 3 -> 9. Published: 1 + 1 = 2.
        let (g, s, goal) = setup("0.....#\n#######\n", "#....#.\n#######\n");
        let h = Heuristic::new(HeuristicKind::Improved, &g, goal, 1, &ActionCosts::default());
        assert_eq!(h.robot_tour(&s), 6);
        assert_eq!(h.slowest_block_steps(&s), 2);
        assert_eq!(h.estimate(&s), 9);
        let published = Heuristic::new(HeuristicKind::Published, &g, goal, 1, &ActionCosts::default());
        assert_eq!(published.estimate(&s), 2);
    }

    #[test]
    fn robot_tour_handles_the_point_limit() {
        // 16 x 8 cells (two words). 32 misplaced robot-free blocks + 32 vacant goal cells
        // = 64 tour points with one robot; one more block gives 65 (bound dropped to 0).
        let g = Geometry::<2>::new(crate::lattice::Dims::planar(16, 8));
        let cells = |range: std::ops::Range<usize>| {
            let mut b = Bits::<2>::EMPTY;
            range.for_each(|i| b.insert(i));
            b
        };
        let goal = cells(64..96);
        let h = Heuristic::new(HeuristicKind::Improved, &g, goal, 1, &ActionCosts::default());
        let state = State { blocks: cells(0..32), robots: cells(127..128) };
        // Every point is at least 1 from the tree; rows 0-1 to rows 4-5 need 2 more.
        assert!(h.robot_tour(&state) >= 64 + 2);
        let state = State { blocks: cells(0..33), robots: cells(127..128) };
        assert_eq!(h.robot_tour(&state), 0);
    }

    #[test]
    fn mid_step_by_hand() {
        // Robots 0 in (1,1) and 1 in (3,1); misplaced (3,0) (robot-free) and (3,1);
        // vacant goal cells (0,1), (0,2).
        // x cuts: blocks 1,3,4 vs goal 3,5,6 -> 2+2+2 = 6; z cuts: 4,6 vs 3,5 -> 1+1 = 2.
        // Phi = 8 + E 1 = 9; Lambda = 1 (robot (3,1) -> (3,0)); work 9.
        // Full: steps max(ceil(9/4) = 3, S = 1 + 1 for (3,0)) = 3 -> 12.
        let (g, s, goal) = setup("....\n.0.1\n####\n", "#...\n##..\n###.\n");
        let h = Heuristic::new(HeuristicKind::Improved, &g, goal, 2, &ActionCosts::default());
        assert_eq!(h.estimate(&s), 12);
        // No robot left to act: nothing of this step remains, the full bound.
        assert_eq!(h.estimate_mid_step(&s, Bits::EMPTY), 12);
        // Robot 1 (cell 7) may still act: the work bound allows (9 - 2) / 4 -> 2 later
        // steps; (3,0) can be entered now (next to it) and (3,1) moved now -> 1, 0.
        let cell = |x: usize, z: usize| x + 4 * z;
        assert_eq!(h.estimate_mid_step(&s, Bits::single(cell(3, 1))), 9 + 2);
        // Only robot 0 (1,1) may act: (3,0) is out of its reach, still 2 later steps.
        assert_eq!(h.estimate_mid_step(&s, Bits::single(cell(1, 1))), 9 + 2);
        // The published heuristic has no step term: the same mid-step.
        let published = Heuristic::new(HeuristicKind::Published, &g, goal, 2, &ActionCosts::default());
        assert_eq!(published.estimate_mid_step(&s, Bits::single(cell(3, 1))), published.estimate(&s));
    }

    #[test]
    fn zero_at_the_goal() {
        let (g, s, goal) = setup("..\n#0\n", "..\n##\n");
        for kind in [HeuristicKind::Published, HeuristicKind::Improved] {
            assert_eq!(Heuristic::new(kind, &g, goal, 1, &ActionCosts::default()).estimate(&s), 0);
        }
    }
}
