//! The bit-packed generator against the reference rules, on random states.

use super::astar::joint_steps;
use super::bits::Bits;
use super::expand::{Expander, State};
use super::geometry::Geometry;
use crate::lattice::{Dims, Lattice};
use crate::rules::{all_steps, ActionCosts};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
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
    let geometry = Geometry::<W>::new(lattice.dims());
    let mut expander = Expander::new(&geometry, *costs);
    let mut fast = BTreeSet::new();
    let mut count = 0;
    let _ = expander.expand(&state_of(lattice), |next, cost, _| {
        fast.insert((codes_of(&next, lattice.dims().cell_count()), cost));
        count += 1;
        ControlFlow::Continue(())
    });
    let reference: BTreeSet<_> =
        all_steps(lattice, costs).into_iter().map(|o| (o.next.codes(), o.cost)).collect();
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
        let mut expander = Expander::new(&geometry, costs);
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
    let mut expander = Expander::new(&geometry, costs);
    let mut choices = Vec::new();
    expander.choices(&state_of(&lattice), &mut choices);
    assert_eq!(choices.len(), 4);
    assert_eq!(joint_steps(&choices), 8);
    assert_eq!(all_steps(&lattice, &costs).len(), 4);
    assert_eq!(compare::<1>(&lattice, &costs), 4);
}
