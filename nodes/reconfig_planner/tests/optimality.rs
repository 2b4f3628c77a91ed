//! A* returns optimal plans: its cost equals an exhaustive uniform-cost search built only
//! on the reference rules (`all_steps`), with every heuristic; every plan replays.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reconfig_planner::planner::DECOMPOSE_ABOVE;
use reconfig_planner::{all_steps, plan, ActionCosts, Dims, HeuristicKind, Lattice, PlanRequest, Task};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::PathBuf;

/// Cheapest cost from `start` to a state with `goal`'s blocks, by Dijkstra over
/// `all_steps` (independent of the planner's bit-level generator and heuristics).
fn reference_cost(start: &Lattice, goal: &Lattice, costs: &ActionCosts) -> Option<u32> {
    let mut best: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut states: HashMap<Vec<u8>, Lattice> = HashMap::new();
    let mut open = BinaryHeap::new();
    best.insert(start.codes(), 0);
    states.insert(start.codes(), start.clone());
    open.push(Reverse((0, start.codes())));
    while let Some(Reverse((g, key))) = open.pop() {
        if best.get(&key).is_some_and(|&b| b < g) {
            continue;
        }
        let state = states[&key].clone();
        if state.same_blocks(goal) {
            return Some(g);
        }
        for option in all_steps(&state, costs) {
            let next_key = option.next.codes();
            let g_next = g + option.cost;
            if best.get(&next_key).is_none_or(|&b| g_next < b) {
                best.insert(next_key.clone(), g_next);
                states.insert(next_key.clone(), option.next);
                open.push(Reverse((g_next, next_key)));
            }
        }
    }
    None
}

/// Joint-step thresholds: every step built one action at a time, the default, never.
const DECOMPOSITIONS: [u64; 3] = [0, DECOMPOSE_ABOVE, u64::MAX];

fn check(start: &Lattice, goal: &Lattice, label: &str) -> u32 {
    let costs = ActionCosts::default();
    let optimum = reference_cost(start, goal, &costs).unwrap_or_else(|| panic!("{label}: reference found no plan"));
    for heuristic in [HeuristicKind::Zero, HeuristicKind::Published, HeuristicKind::Improved] {
        for decompose in DECOMPOSITIONS {
            let request = PlanRequest::new(start.clone(), goal.clone()).with_heuristic(heuristic).with_decompose_above(decompose);
            let label = format!("{label} {heuristic:?} decompose above {decompose}");
            let found = plan(&request).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(found.cost, optimum, "{label}: A* cost differs from the exhaustive optimum");
            found.verify(&request).unwrap_or_else(|e| panic!("{label}: replay: {e}"));
        }
    }
    // Weighted A* trades optimality for speed, within its bound.
    for (weight, decompose) in [1.5, 2.0].into_iter().flat_map(|w| DECOMPOSITIONS.map(|d| (w, d))) {
        let request = PlanRequest::new(start.clone(), goal.clone()).with_weight(weight).with_decompose_above(decompose);
        let weighted = plan(&request).unwrap_or_else(|e| panic!("{label} weight {weight}: {e}"));
        weighted.verify(&request).unwrap_or_else(|e| panic!("{label} weight {weight}: replay: {e}"));
        let bound = (weight * optimum as f64).floor() as u32;
        assert!((optimum..=bound).contains(&weighted.cost), "{label}: cost {} with weight {weight}, optimum {optimum}", weighted.cost);
    }
    optimum
}

fn task(name: &str) -> Task {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config/molemod").join(name);
    Task::load(&path).unwrap()
}

#[test]
fn small_tasks_match_the_exhaustive_optimum() {
    let mut checked = Vec::new();
    for (name, robots) in [
        ("task1.yaml", 1),
        ("task2.yaml", 1),
        ("task2.yaml", 2),
        ("task3.yaml", 1),
        ("task3.yaml", 2),
        ("task3d_1.yaml", 1),
        ("task3d_1.yaml", 2),
        ("task3d_2.yaml", 2),
    ] {
        let t = task(name);
        let cost = check(&t.start_with(robots).unwrap(), &t.goal, &format!("{name} with {robots} robots"));
        checked.push((name, robots, cost));
    }
    // The hand-checkable ones: task 1 = lift (2+1) + shift (1+1) + put down (2+1) = 8.
    assert_eq!(checked[0].2, 8);
}

/// A goal reached from `start` by a seeded random walk of valid steps.
fn random_goal(rng: &mut ChaCha8Rng, start: &Lattice, steps: usize) -> Lattice {
    let mut state = start.clone();
    for _ in 0..steps {
        let options = all_steps(&state, &ActionCosts::default());
        if options.is_empty() {
            break;
        }
        state = options[rng.gen_range(0..options.len())].next.clone();
    }
    // The goal is a block layout: drop the robots.
    let codes: Vec<u8> = state.codes().iter().map(|&c| c.min(1)).collect();
    Lattice::from_codes(state.dims(), &codes).unwrap()
}

#[test]
fn random_instances_match_the_exhaustive_optimum() {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let mut nontrivial = 0;
    for round in 0..24 {
        let dims = if round % 4 == 3 { Dims::new(3, 2, 2) } else { Dims::planar(4, 3) };
        // A supported random start: random column heights on a full floor.
        let mut start = Lattice::new(dims).unwrap();
        for index in 0..dims.cell_count() {
            let cell = start.cell_at(index);
            if cell.z == 0 || (start.has_block(&reconfig_planner::Cell { z: cell.z - 1, ..cell }) && rng.gen_bool(0.35)) {
                start.set_block(cell, true).unwrap();
            }
        }
        let blocks: Vec<_> = start.block_cells().collect();
        let robots = 1 + round % 2;
        for i in 0..robots {
            start.add_robot(blocks[(round + i * 3) % blocks.len()]).unwrap(); // >= 4 blocks: distinct cells
        }
        let goal = random_goal(&mut rng, &start, 2 + round % 4);
        let cost = check(&start, &goal, &format!("random instance {round}\n{}", start.picture()));
        nontrivial += (cost > 0) as usize;
    }
    assert!(nontrivial >= 12, "only {nontrivial} instances needed any action");
}

/// A random supported start (full floor, random columns) with `robots` robots, seeded.
fn random_start(rng: &mut ChaCha8Rng, dims: Dims, robots: usize) -> Lattice {
    let mut start = Lattice::new(dims).unwrap();
    for index in 0..dims.cell_count() {
        let cell = start.cell_at(index);
        if cell.z == 0 || (start.has_block(&reconfig_planner::Cell { z: cell.z - 1, ..cell }) && rng.gen_bool(0.35)) {
            start.set_block(cell, true).unwrap();
        }
    }
    let mut blocks: Vec<_> = start.block_cells().collect();
    for _ in 0..robots {
        let cell = blocks.swap_remove(rng.gen_range(0..blocks.len()));
        start.add_robot(cell).unwrap();
    }
    start
}

/// Three and four robots on small lattices: many joint steps, so the search builds most
/// steps one action at a time (also with the default threshold).
#[test]
fn crowded_instances_match_the_exhaustive_optimum() {
    let mut rng = ChaCha8Rng::seed_from_u64(77);
    let mut nontrivial = 0;
    for round in 0..16 {
        let robots = 3 + round % 2;
        let dims = if round % 3 == 2 { Dims::planar(5, 3) } else { Dims::planar(4, 3) };
        let start = random_start(&mut rng, dims, robots);
        // A walk may undo itself; walk again (bounded) until some block moved.
        let mut goal = random_goal(&mut rng, &start, 5 + round % 3);
        for _ in 0..10 {
            if !goal.same_blocks(&start) {
                break;
            }
            goal = random_goal(&mut rng, &start, 5 + round % 3);
        }
        let cost = check(&start, &goal, &format!("crowded instance {round}\n{}", start.picture()));
        nontrivial += (cost > 0) as usize;
    }
    assert!(nontrivial >= 14, "only {nontrivial} instances needed any action");
}
