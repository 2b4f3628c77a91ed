//! The bit-packed generator against the reference rules, on random states.

use super::astar::joint_steps;
use super::bits::Bits;
use super::expand::{walk, Expander, PartialStep, State};
use super::geometry::Geometry;
use super::heuristic::{Heuristic, HeuristicKind};
use crate::lattice::{Dims, Lattice};
use crate::rules::{all_steps, ActionCosts, Repertoire};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::ops::ControlFlow;

/// A random supported lattice with `robots` robots (fewer if there are fewer blocks).
pub(crate) fn random_lattice(rng: &mut ChaCha8Rng, dims: Dims, fill: f64, robots: usize) -> Lattice {
    let mut lattice = Lattice::new(dims).unwrap();
    for i in 0..dims.cell_count() {
        if rng.gen_bool(fill) {
            lattice.set_block(lattice.cell_at(i), true).unwrap();
        }
    }
    for cell in lattice.unsupported_blocks() {
        lattice.set_block(cell, false).unwrap();
    }
    let mut cells: Vec<_> = lattice.block_cells().collect();
    for _ in 0..robots.min(cells.len()) {
        let cell = cells.swap_remove(rng.gen_range(0..cells.len()));
        lattice.add_robot(cell).unwrap();
    }
    lattice
}

fn state_of<const W: usize>(lattice: &Lattice) -> State<W> {
    let mut state = State { blocks: Bits::EMPTY, robots: Bits::EMPTY };
    for cell in lattice.block_cells() {
        state.blocks.insert(lattice.index(&cell).unwrap());
    }
    for cell in lattice.robots() {
        state.robots.insert(lattice.index(cell).unwrap());
    }
    state
}

fn codes_of<const W: usize>(state: &State<W>, cells: usize) -> Vec<u8> {
    (0..cells).map(|i| state.blocks.contains(i) as u8 + state.robots.contains(i) as u8).collect()
}

fn compare<const W: usize>(lattice: &Lattice, costs: &ActionCosts) -> usize {
    compare_within::<W>(lattice, costs, &Repertoire::default())
}

/// Compares the successors of `lattice` within `repertoire`, which takes out no kind of
/// action (the reference rules have no repertoire) but may keep robots apart.
fn compare_within<const W: usize>(lattice: &Lattice, costs: &ActionCosts, repertoire: &Repertoire) -> usize {
    let geometry = Geometry::<W>::new(lattice.dims());
    let mut expander = Expander::new(&geometry, *costs, repertoire);
    let mut fast = BTreeSet::new();
    let mut count = 0;
    let _ = expander.expand(&state_of(lattice), |next, cost, _| {
        fast.insert((codes_of(&next, lattice.dims().cell_count()), cost));
        count += 1;
        ControlFlow::Continue(())
    });
    let reference: BTreeSet<_> = all_steps(lattice, costs)
        .into_iter()
        .filter(|o| repertoire.side_by_side || lattice.keeps_apart(&o.actions).is_ok())
        .map(|o| (o.next.codes(), o.cost))
        .collect();
    assert_eq!(fast, reference, "successors differ for\n{}", lattice.picture());
    count
}

#[test]
fn generator_matches_the_rules_on_random_states() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let costs = ActionCosts::default();
    let mut total = 0;
    for round in 0..400 {
        let dims = if round % 3 == 0 {
            Dims::new(rng.gen_range(2..4), rng.gen_range(2..4), rng.gen_range(2..4))
        } else {
            Dims::planar(rng.gen_range(2..7), rng.gen_range(2..5))
        };
        let (fill, robots) = (rng.gen_range(0.3..0.8), rng.gen_range(1..4));
        let lattice = random_lattice(&mut rng, dims, fill, robots);
        total += compare::<1>(&lattice, &costs);
    }
    // The generator produced a real variety of steps (not an empty comparison).
    assert!(total > 2000, "only {total} successors compared");
}

#[test]
fn generator_keeps_robots_apart_as_the_rules_do() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let costs = ActionCosts::default();
    let apart = Repertoire { side_by_side: false, ..Repertoire::EVERY_ACTION };
    let (mut states, mut kept, mut all) = (0, 0, 0);
    for round in 0..1500 {
        let dims = if round % 4 == 0 {
            Dims::new(rng.gen_range(3..5), rng.gen_range(2..4), rng.gen_range(2..4))
        } else {
            Dims::planar(rng.gen_range(4..9), rng.gen_range(2..5))
        };
        let (fill, robots) = (rng.gen_range(0.4..0.9), rng.gen_range(2..4));
        let lattice = random_lattice(&mut rng, dims, fill, robots);
        // The search only meets states that keep the robots apart (the start is checked).
        if lattice.keeps_apart(&[]).is_err() {
            continue;
        }
        states += 1;
        kept += compare_within::<1>(&lattice, &costs, &apart);
        all += compare::<1>(&lattice, &costs);
    }
    // Enough states, and the rule took out a real share of their steps.
    assert!(states > 300 && kept > 1000, "{states} states, {kept} steps kept");
    assert!(all > kept + kept / 5, "only {} of {all} steps taken out", all - kept);
}

#[test]
fn generator_matches_the_rules_with_several_words_and_other_costs() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let costs = ActionCosts { travel: 2, lift: 3, put_down: 4, shift: 5, coop_lift: 6, step: 3 };
    for _ in 0..40 {
        // 100 cells: two words.
        let lattice = random_lattice(&mut rng, Dims::planar(20, 5), 0.5, 2);
        compare::<2>(&lattice, &costs);
    }
}

#[test]
fn options_are_grouped_by_robot_with_the_robots_after_them() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let costs = ActionCosts::default();
    let mut groups_seen = 0;
    for _ in 0..100 {
        let dims = Dims::planar(rng.gen_range(3..7), rng.gen_range(2..5));
        let robots = rng.gen_range(1..5);
        let lattice = random_lattice(&mut rng, dims, 0.6, robots);
        let state = state_of::<1>(&lattice);
        let geometry = Geometry::<1>::new(dims);
        let expander = Expander::new(&geometry, costs, &Repertoire::default());
        let mut choices = Vec::new();
        expander.choices(&state, &mut choices);
        let mut start = 0;
        while start < choices.len() {
            let group = &choices[start..choices[start].next_robot as usize];
            let robot = group[0].action.robot_from;
            assert!(group.iter().all(|c| c.action.robot_from == robot && c.next_robot == choices[start].next_robot));
            // `later` holds exactly the robots of the later groups, all above this robot.
            let mut later = Bits::EMPTY;
            for c in &choices[group.len() + start..] {
                later.insert(c.action.robot_from as usize);
            }
            assert!(group.iter().all(|c| c.later == later));
            assert!(later.iter().all(|cell| cell > robot as usize));
            start += group.len();
            groups_seen += 1;
        }
    }
    assert!(groups_seen > 100, "only {groups_seen} robot groups");
}

#[test]
fn joint_steps_bound_by_hand() {
    // Robot 0 in (0,0) and robot 1 in (2,0) beside the free block (1,0): each can move
    // into it or lift its own block onto it (2 options each): (2+1)(2+1) - 1 = 8 joint
    // steps at most; every pair shares the cell (1,0), so 4 valid steps.
    let lattice = Lattice::from_picture("...\n0#1\n").unwrap();
    let geometry = Geometry::<1>::new(lattice.dims());
    let costs = ActionCosts::default();
    let expander = Expander::new(&geometry, costs, &Repertoire::default());
    let mut choices = Vec::new();
    expander.choices(&state_of(&lattice), &mut choices);
    assert_eq!(choices.len(), 4);
    assert_eq!(joint_steps(&choices), 8);
    assert_eq!(all_steps(&lattice, &costs).len(), 4);
    assert_eq!(compare::<1>(&lattice, &costs), 4);
}

/// Most states of a random instance's reachable graph for the admissibility check.
const ADMISSIBILITY_STATES: usize = 20_000;

/// Exact cost to the goal blocks `goal` of every state reachable from `start` (by
/// Dijkstra backwards over the explicit graph), or `None` above `limit` states.
fn exact_costs_to_goal(start: State<1>, goal: Bits<1>, expander: &mut Expander<'_, 1>, limit: usize) -> Option<FxHashMap<State<1>, u32>> {
    let mut ids = FxHashMap::default();
    let mut states = vec![start];
    let mut into: Vec<Vec<(usize, u32)>> = vec![Vec::new()];
    ids.insert(start, 0);
    let mut next = 0;
    while next < states.len() {
        let state = states[next];
        let mut edges = Vec::new();
        let _ = expander.expand(&state, |after, cost, _| {
            edges.push((after, cost));
            ControlFlow::Continue(())
        });
        for (after, cost) in edges {
            let id = *ids.entry(after).or_insert_with(|| {
                states.push(after);
                into.push(Vec::new());
                states.len() - 1
            });
            into[id].push((next, cost));
        }
        if states.len() > limit {
            return None;
        }
        next += 1;
    }
    let mut best = vec![u32::MAX; states.len()];
    let mut queue = BinaryHeap::new();
    for (id, state) in states.iter().enumerate() {
        if state.blocks == goal {
            best[id] = 0;
            queue.push(Reverse((0, id)));
        }
    }
    while let Some(Reverse((d, id))) = queue.pop() {
        if d > best[id] {
            continue;
        }
        for &(from, cost) in &into[id] {
            if d + cost < best[from] {
                best[from] = d + cost;
                queue.push(Reverse((d + cost, from)));
            }
        }
    }
    Some(states.into_iter().zip(best).filter(|&(_, d)| d != u32::MAX).collect())
}

/// A random supported layout of exactly `blocks` blocks.
fn random_layout(rng: &mut ChaCha8Rng, dims: Dims, blocks: usize) -> Option<Lattice> {
    (0..10_000)
        .map(|_| {
            let fill = rng.gen_range(0.3..0.8);
            random_lattice(rng, dims, fill, 0)
        })
        .find(|l| l.block_count() == blocks)
}

/// Both heuristics never exceed the exact cost to the goal: of every state reachable in
/// small crowded instances, and part-way through each step begun from it by one option
/// (the cost of finishing the step best, plus the exact cost from where it leads).
#[test]
fn heuristics_never_exceed_the_exact_cost() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let costs = ActionCosts::default();
    let (mut states_checked, mut partial_checked, mut tight) = (0, 0, 0);
    for _ in 0..100 {
        let dims = Dims::planar(rng.gen_range(3..6), rng.gen_range(2..5));
        let robots = rng.gen_range(1..5);
        let fill = rng.gen_range(0.4..0.8);
        let start = random_lattice(&mut rng, dims, fill, robots);
        let Some(goal) = random_layout(&mut rng, dims, start.block_count()) else { continue };
        let geometry = Geometry::<1>::new(dims);
        let goal_bits = state_of::<1>(&goal).blocks;
        let mut expander = Expander::new(&geometry, costs, &Repertoire::default());
        let Some(exact) = exact_costs_to_goal(state_of(&start), goal_bits, &mut expander, ADMISSIBILITY_STATES) else {
            continue;
        };
        let count = start.robots().len() as u32;
        for kind in [HeuristicKind::Published, HeuristicKind::Improved] {
            let heuristic = Heuristic::new(kind, &geometry, goal_bits, count, &costs);
            for (state, &cost) in &exact {
                let h = heuristic.estimate(state);
                assert!(h <= cost, "{kind:?}: h {h} > exact {cost} for {:?} -> {:?}", state, goal_bits);
                tight += (h == cost && cost > 0) as usize;
                states_checked += 1;
                let mut choices = Vec::new();
                expander.choices(state, &mut choices);
                for choice in &choices {
                    let Some(begun) = PartialStep::empty(&costs).with(&choice.action) else { continue };
                    let mut rest = u32::MAX;
                    let mut chosen = Vec::new();
                    let mut visit = |after: State<1>, step_cost: u32, _: &[_]| {
                        if let Some(&to_goal) = exact.get(&after) {
                            rest = rest.min(step_cost - begun.cost + to_goal);
                        }
                        ControlFlow::Continue(())
                    };
                    if let Some(after) = begun.finish(state, &geometry) {
                        let _ = visit(after, begun.cost, &[]);
                    }
                    let _ = walk(state, &geometry, &choices, choice.next_robot as usize, begun, &mut chosen, &mut visit);
                    if rest != u32::MAX {
                        let h = heuristic.estimate_mid_step(&begun.applied(state), choice.later);
                        assert!(h <= rest, "{kind:?} mid-step: h {h} > exact {rest}");
                        partial_checked += 1;
                    }
                }
            }
        }
    }
    assert!(states_checked > 15_000 && partial_checked > 60_000, "{states_checked} states, {partial_checked} partial steps");
    assert!(tight > 100, "the bound is never tight ({tight})");
}

/// On a whole Table 1 task: every state reachable in task 4 with 4 robots (the crowded
/// staircase) from which the goal can be reached (16 774 of 27 574) has an improved
/// estimate at most its exact cost to the goal, and A* finds that exact cost from the
/// start.
#[test]
fn improved_heuristic_never_exceeds_the_exact_cost_on_task_4_with_4_robots() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config/molemod/task4.yaml");
    let task = crate::Task::load(&path).unwrap();
    let start = task.start_with(4).unwrap();
    let geometry = Geometry::<1>::new(start.dims());
    let costs = ActionCosts::default();
    let goal_bits = state_of::<1>(&task.goal).blocks;
    let mut expander = Expander::new(&geometry, costs, &Repertoire::default());
    let exact = exact_costs_to_goal(state_of(&start), goal_bits, &mut expander, 100_000).unwrap();
    let heuristic = Heuristic::new(HeuristicKind::Improved, &geometry, goal_bits, 4, &costs);
    for (state, &cost) in &exact {
        let h = heuristic.estimate(state);
        assert!(h <= cost, "h {h} > exact {cost} for {state:?}");
    }
    assert!(exact.len() > 15_000, "only {} states", exact.len());
    let optimum = exact[&state_of(&start)];
    let found = crate::plan(&task.request(4).unwrap()).unwrap();
    assert_eq!(found.cost, optimum);
}
