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
//! - `work = max(C + E, Lambda)`: `W` is the sum over the three axes of the 1-D earth
//!   mover's distance between the blocks' and the goal's coordinate histograms
//!   (`sum over cuts c of |#blocks with coord <= c - #goal cells with coord <= c|`); `C`
//!   is the larger of `W` and the minimum-cost matching of misplaced blocks to vacant goal
//!   cells, a pair costing the least cost of carrying a block between them on the bare
//!   lattice ([`super::carry`]: a block on the floor cannot shift, so it climbs around);
//!   `E` the misplaced blocks holding no robot; `Lambda` is the weight of a minimum
//!   spanning tree (L1) over the cells some robot must visit — misplaced robot-free
//!   blocks, and with one robot also the vacant goal cells — with all robot cells merged
//!   into its root;
//! - `steps = max(ceil(max(W + E, Lambda) / 2k), ceil(M / m), S)`, `k` robots, `S` = max
//!   over misplaced blocks of (1 if no robot is inside) + the least actions carrying it to
//!   any goal cell on the bare lattice; `M` = the block-moving actions still needed, the
//!   largest of the horizontal part of `W`, its vertical part, and the sum over misplaced
//!   blocks of those least carrying actions; `m = min(k, B - k)` (at least 1), `B` blocks;
//! - `step` = the per-step cost.
//!
//! Part-way through a step (a partial step of the search, [`Heuristic::estimate_mid_step`])
//! the step term is already paid and only the later robots may still act in it: `h` is
//! `work + step * later`, where the rest of the step counts as no step and `later` =
//! `max(ceil((max(W + E, Lambda) - 2u) / 2k), ceil((M - u) / m), max over misplaced blocks
//! of their S term less 1 if the block can progress now)`, `u` the robots still free to
//! act; a block
//! progresses now if such a robot is inside it, or next to it when it is robot-free.
//! (`C` is left out there: it costs more time than it prunes.)
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
//!    1-D transport cost of that axis's histograms. The same holds for the carrying cost
//!    (each action pays at least the carry price of its block's move: the action's cost,
//!    a co-operative lift one less for its entry), a shortest-path cost that obeys the
//!    triangle inequality, so fixed points again match at zero cost: `C` is a bound.
//! 4. So the action costs are at least `Phi` (either distance term): the published
//!    heuristic is admissible.
//! 5. Every action costs at least the path length it gives its robot(s) (move 1 for >= 1,
//!    lift/put-down 2 for >= 2, shift 1 for >= 1, co-operative lift 1 for >= 2), and
//!    the robots' paths, joined at their start cells, connect every cell in `Lambda`'s
//!    set (a robot is inside a block when it moves it; with one robot it is inside every
//!    block arriving in a goal cell), so they weigh at least that tree. Hence cost >= `work`.
//! 6. Steps: one robot's action lowers `W + E` by at most 2 and adds at most 2 to the
//!    robots' path, so a step does at most `2k` of the distance work (counted in
//!    distance, not cost, so that it holds for any costs). Every action carries one
//!    block along one move of [`super::carry`], a misplaced block must end in some goal
//!    cell, and a robot-free one must first be entered in an earlier step. A
//!    block-moving action moves one block by at most one cell horizontally and one
//!    vertically (lift and put-down one of each, shift one across, co-operative lift one
//!    up), so it lowers the horizontal part of `W` by at most 1 and the vertical part by
//!    at most 1; each misplaced block makes its own carrying moves to the goal cell it
//!    ends in (a move of [`super::carry`] each, at least the least count to any goal
//!    cell), and an action moves one block: so at least `M` block moves remain. In one
//!    step each block move needs a robot inside its block and an anchor block holding no
//!    robot (in its footprint, so distinct per action); with every robot inside a block
//!    at most `B - k` blocks are robot-free, so a step has at most `min(k, B - k)` block
//!    moves. Each remaining step pays `step`. Hence `h_imp <= h*`.
//! 7. Mid-step, the actions still to come are the rest of the current step (by the
//!    robots still free in it, each doing at most 2 of the distance work, at most one
//!    block move, and moving at most its own block or entering a neighbouring one) and
//!    whole later steps: 1.-6.
//!    hold for that sequence from the configuration reached, with the current step's
//!    term already paid.
//!
//! Neither is consistent (a block arriving in a goal cell can change other blocks'
//! nearest vacant or goal cell, and the spanning tree of a smaller set can be heavier),
//! so the search re-opens states whose cost improves; that keeps A* optimal with any
//! admissible heuristic.

use super::bits::Bits;
use super::carry::{Carry, UNREACHABLE};
use super::expand::State;
use super::geometry::Geometry;
use crate::rules::ActionCosts;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

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
    /// The first `horizontal_cuts` of `cuts` are those of the horizontal axes, count.
    horizontal_cuts: usize,
    /// Costs and steps of carrying single blocks to the goal cells.
    carry: Carry,
    robots: u32,
    /// Most block-moving actions in one step: each needs a robot in its block and a
    /// distinct robot-free anchor block, so `min(k, blocks - k)` (at least 1), count.
    block_moves_per_step: u32,
    step_cost: u32,
    /// Recent carrying matchings `C` by block layout, direct-mapped (states that differ
    /// only in their robots share one).
    matchings: RefCell<Vec<Option<(Bits<W>, u32)>>>,
}

/// Slots of the matching cache.
const MATCHING_SLOTS: usize = 1024;

/// Most cells [`Heuristic::robot_tour`] spans (one 64-bit mask of open points).
const TOUR_POINTS: usize = 64;

impl<'g, const W: usize> Heuristic<'g, W> {
    pub fn new(kind: HeuristicKind, geometry: &'g Geometry<W>, goal: Bits<W>, robots: u32, costs: &ActionCosts) -> Self {
        let mut cuts = Vec::new();
        let mut horizontal_cuts = 0;
        for (axis, slices) in geometry.slices.iter().enumerate() {
            let mut below = Bits::EMPTY;
            for slice in slices.iter().take(slices.len().saturating_sub(1)) {
                below = below | *slice;
                cuts.push((below, (goal & below).count()));
            }
            if axis < 2 {
                horizontal_cuts = cuts.len();
            }
        }
        let carry = Carry::new(geometry, goal, costs);
        let robots = robots.max(1);
        let block_moves_per_step = robots.min(goal.count().saturating_sub(robots)).max(1);
        Self {
            kind,
            geometry,
            goal,
            cuts,
            horizontal_cuts,
            carry,
            robots,
            block_moves_per_step,
            step_cost: costs.step,
            matchings: RefCell::new(vec![None; MATCHING_SLOTS]),
        }
    }

    /// `C` of the block layout `blocks`, from the cache when it is there.
    fn carried(&self, blocks: Bits<W>) -> u32 {
        let hash = blocks.0.iter().fold(0u64, |h, &word| (h.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95));
        let slot = (hash >> 32) as usize % MATCHING_SLOTS;
        let mut cache = self.matchings.borrow_mut();
        match cache[slot] {
            Some((key, carried)) if key == blocks => carried,
            _ => {
                let carried = self.carry.matching(blocks & !self.goal, self.goal & !blocks);
                cache[slot] = Some((blocks, carried));
                carried
            }
        }
    }

    /// Lower bound on the cost from `state` to the goal, cost units.
    pub fn estimate(&self, state: &State<W>) -> u32 {
        match self.kind {
            HeuristicKind::Zero => 0,
            HeuristicKind::Published => self.published(state),
            HeuristicKind::Improved => {
                let transport = self.axis_transport(state.blocks);
                let carried = self.carried(state.blocks);
                let (work, distance) = self.work(state, transport.total(), carried.max(transport.total()));
                work + self.step_cost * self.steps(state, distance, self.block_moves(state, &transport))
            }
        }
    }

    /// Lower bound on the cost still to pay from `state`, reached part-way through a step
    /// whose step term is already paid and in which only the robots in `undecided` (their
    /// cells) may still act, cost units. At most [`Self::estimate`] when none may.
    pub fn estimate_mid_step(&self, state: &State<W>, undecided: Bits<W>) -> u32 {
        match self.kind {
            HeuristicKind::Zero => 0,
            HeuristicKind::Published => self.published(state),
            HeuristicKind::Improved => {
                // Without the matching `C`: here it costs more time than it saves
                // (partial steps are many and mostly just move robots).
                let transport = self.axis_transport(state.blocks);
                let (work, distance) = self.work(state, transport.total(), transport.total());
                work + self.step_cost * self.later_steps(state, distance, self.block_moves(state, &transport), undecided)
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
        let distance: u32 = misplaced.iter().map(|m| vacant.iter().map(|v| self.geometry.manhattan(m, v)).min().unwrap_or(0)).sum();
        distance + self.entries(state)
    }

    /// Sum over axes of the 1-D earth mover's distance between block and goal histograms:
    /// the sum over cuts of the blocks that must cross them.
    fn axis_transport(&self, blocks: Bits<W>) -> Transport {
        let crossing =
            |cuts: &[(Bits<W>, u32)]| -> u32 { cuts.iter().map(|(below, goal)| (blocks & *below).count().abs_diff(*goal)).sum() };
        let (horizontal, vertical) = self.cuts.split_at(self.horizontal_cuts);
        Transport { horizontal: crossing(horizontal), vertical: crossing(vertical) }
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

    /// Lower bound on the block-moving actions still needed: each moves one block at
    /// most one cell horizontally and one vertically, and each misplaced block makes
    /// its own carrying moves of [`super::carry`] to some goal cell.
    fn block_moves(&self, state: &State<W>, transport: &Transport) -> u32 {
        let own = (state.blocks & !self.goal).iter().fold(0u32, |sum, b| sum.saturating_add(self.carry.goal_steps[b])).min(UNREACHABLE);
        transport.horizontal.max(transport.vertical).max(own)
    }

    /// Steps needed by the slowest single block: enter it (if no robot is inside), then
    /// carry it, one move of [`super::carry`] per step, to a goal cell.
    fn slowest_block_steps(&self, state: &State<W>) -> u32 {
        (state.blocks & !self.goal).iter().map(|b| (!state.robots.contains(b)) as u32 + self.carry.goal_steps[b]).max().unwrap_or(0)
    }

    /// `(work, distance)`: lower bounds on the action costs still to pay,
    /// `max(C + E, Lambda)` with `carried` = `C` (at least `transport` = `W`), and on the
    /// distance work, `max(W + E, Lambda)`, which a step lowers by at most `2k`.
    fn work(&self, state: &State<W>, transport: u32, carried: u32) -> (u32, u32) {
        let (entries, tour) = (self.entries(state), self.robot_tour(state));
        ((carried + entries).max(tour), (transport + entries).max(tour))
    }

    /// Lower bound on the steps still needed, given the distance work and the
    /// block-moving actions still needed.
    fn steps(&self, state: &State<W>, distance: u32, block_moves: u32) -> u32 {
        distance.div_ceil(2 * self.robots).max(block_moves.div_ceil(self.block_moves_per_step)).max(self.slowest_block_steps(state))
    }

    /// Lower bound on the steps needed after the current one, part-way through it with
    /// only the robots in `undecided` still free to act in it: those robots do at most 2
    /// work each now, and a block progresses now only if an undecided robot is inside it
    /// (or, robot-free, next to it and so able to enter it).
    fn later_steps(&self, state: &State<W>, distance: u32, block_moves: u32, undecided: Bits<W>) -> u32 {
        let free = undecided.count();
        let by_work = distance.saturating_sub(2 * free).div_ceil(2 * self.robots);
        let by_moves = block_moves.saturating_sub(free).div_ceil(self.block_moves_per_step);
        let can_enter = self.geometry.dilate(undecided);
        let slowest = (state.blocks & !self.goal)
            .iter()
            .map(|b| {
                let robot_free = !state.robots.contains(b);
                let progress = if robot_free { can_enter.contains(b) } else { undecided.contains(b) };
                (robot_free as u32 + self.carry.goal_steps[b]).saturating_sub(progress as u32)
            })
            .max()
            .unwrap_or(0);
        by_work.max(by_moves).max(slowest)
    }
}

/// Blocks that must cross the cuts of the horizontal axes and of the vertical axis.
struct Transport {
    horizontal: u32,
    vertical: u32,
}

impl Transport {
    /// `W`, the whole transport distance.
    fn total(&self) -> u32 {
        self.horizontal + self.vertical
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
        // x histograms: blocks at x = 0,1,2,2,3; goal x = 0,0,0,1,2.
        // cuts c=0: 1-3 = -2; c=1: 2-4 = -2; c=2: 4-5 = -1  -> |.| sum 5.
        // z histograms: blocks z = 0,0,0,0,1; goal z = 0,0,0,1,2. cut 0: 4-3=1; cut 1: 5-4=1 -> 2.
        // W = 7. Carrying: (2,1) -> (0,1) two shifts 2, (3,0) -> (0,2) lift, lift, shift 5;
        // or (2,1) -> (0,2) lift, shift 3 and (3,0) -> (0,1) lift, shift, shift 4: C = 7.
        // E = 1, work = 8. S: (3,0) is entered (1), then as a floor block needs two
        // actions to reach a goal cell ((3,1) up, put down on (2,0)): 3.
        // Block moves: horizontal transport 5, vertical 2, own carrying moves 2 + 1
        // ((2,1) is put down on the goal cell (1,0)) -> 5; 5 blocks, so min(k, 5 - k)
        // block moves per step.
        // k = 1: steps max(ceil(8/2) = 4, 5 / 1, 3) -> 13;
        // k = 3: max(ceil(8/6) = 2, ceil(5/2) = 3, 3) -> 11.
        let (g, s, goal) = setup("....\n..0.\n####\n", "#...\n#...\n###.\n");
        let h1 = Heuristic::new(HeuristicKind::Improved, &g, goal, 1, &ActionCosts::default());
        assert_eq!(h1.robot_tour(&s), 5);
        assert_eq!(h1.slowest_block_steps(&s), 3);
        let transport = h1.axis_transport(s.blocks);
        assert_eq!((transport.horizontal, transport.vertical), (5, 2));
        assert_eq!(h1.block_moves(&s, &transport), 5);
        assert_eq!(h1.estimate(&s), 13);
        let h3 = Heuristic::new(HeuristicKind::Improved, &g, goal, 3, &ActionCosts::default());
        assert_eq!(h3.estimate(&s), 11);
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
        // W = 8 = C ((3,1) -> (0,1) three shifts, (3,0) -> (0,2) 5; or 4 + 4);
        // + E 1 = 9; Lambda = 1 (robot (3,1) -> (3,0)); work 9.
        // S: (3,0) entry 1 + 2 actions to (2,0) (up, put down) = 3; (3,1) put down 1.
        // Block moves: horizontal 6 (own carrying moves 2 + 1, vertical 2), at most
        // min(2, 6 - 2) = 2 a step.
        // Full: steps max(ceil(9/4) = 3, 6/2 = 3, 3) = 3 -> 12.
        let (g, s, goal) = setup("....\n.0.1\n####\n", "#...\n##..\n###.\n");
        let h = Heuristic::new(HeuristicKind::Improved, &g, goal, 2, &ActionCosts::default());
        assert_eq!(h.estimate(&s), 12);
        // No robot left to act: nothing of this step remains, the full bound (C = W here).
        assert_eq!(h.estimate_mid_step(&s, Bits::EMPTY), 12);
        // Robot 1 (cell 7) may still act: the work bound allows (9 - 2) / 4 -> 2 later
        // steps; (3,0) can be entered now (next to it) and (3,1) moved now -> 2, 0; but
        // one block move now leaves 5, ceil(5/2) = 3 later steps.
        let cell = |x: usize, z: usize| x + 4 * z;
        assert_eq!(h.estimate_mid_step(&s, Bits::single(cell(3, 1))), 9 + 3);
        // Only robot 0 (1,1) may act: (3,0) is out of its reach, still 3 later steps.
        assert_eq!(h.estimate_mid_step(&s, Bits::single(cell(1, 1))), 9 + 3);
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
