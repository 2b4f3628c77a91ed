//! Every valid step from a state, by brute force over the rules.

use super::{Action, ActionCosts, ActionKind};
use crate::lattice::{Cell, Lattice};

/// One valid step and where it leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepOption {
    /// The parallel actions.
    pub actions: Vec<Action>,
    /// The state after the step.
    pub next: Lattice,
    /// The step's cost, cost units.
    pub cost: u32,
}

const HORIZONTAL: [(isize, isize); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// Every action one robot might attempt (valid or not).
fn candidates(state: &Lattice, robot: usize) -> Vec<Action> {
    let from = state.robots()[robot];
    let target = |dx, dy, dz| from.offset(dx, dy, dz).filter(|c: &Cell| state.contains(c));
    let action = |kind, to, partner| Action { robot, kind, from, to, partner };
    let mut out = Vec::new();
    let units = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)];
    out.extend(units.iter().filter_map(|&(dx, dy, dz)| target(dx, dy, dz)).map(|to| action(ActionKind::Move, to, None)));
    for (dx, dy) in HORIZONTAL {
        for (kind, dz) in [(ActionKind::Lift, 1), (ActionKind::PutDown, -1), (ActionKind::Shift, 0)] {
            out.extend(target(dx, dy, dz).map(|to| action(kind, to, None)));
        }
    }
    if let Some(to) = target(0, 0, 1) {
        out.extend((0..state.robots().len()).filter(|&p| p != robot).map(|p| action(ActionKind::CoopLift, to, Some(p))));
    }
    out
}

/// Every valid step from `state`: each robot's candidate actions checked with
/// [`Lattice::apply_step`], then every combination of them (at most one per robot)
/// checked again. Exponential in the number of robots: this is the readable reference
/// (tests compare the planner's fast generator with it) and a tool for small states.
pub fn all_steps(state: &Lattice, costs: &ActionCosts) -> Vec<StepOption> {
    let singles: Vec<Vec<Action>> = (0..state.robots().len())
        .map(|robot| candidates(state, robot).into_iter().filter(|a| state.apply_step(std::slice::from_ref(a), costs).is_ok()).collect())
        .collect();
    let mut options = Vec::new();
    let mut chosen = Vec::new();
    combine(state, costs, &singles, 0, &mut chosen, &mut options);
    options
}

fn combine(
    state: &Lattice,
    costs: &ActionCosts,
    singles: &[Vec<Action>],
    robot: usize,
    chosen: &mut Vec<Action>,
    out: &mut Vec<StepOption>,
) {
    if robot == singles.len() {
        if let Ok((next, cost)) = state.apply_step(chosen, costs) {
            out.push(StepOption { actions: chosen.clone(), next, cost });
        }
        return;
    }
    combine(state, costs, singles, robot + 1, chosen, out);
    for action in &singles[robot] {
        chosen.push(*action);
        combine(state, costs, singles, robot + 1, chosen, out);
        chosen.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_robot_on_a_two_block_floor() {
        // Robot 0 in (0,0), a block at (1,0): it can move right or lift onto (1,1).
        let state = Lattice::from_picture("..\n0#\n").unwrap();
        let mut found: Vec<(ActionKind, Cell, u32)> =
            all_steps(&state, &ActionCosts::default()).into_iter().map(|o| (o.actions[0].kind, o.actions[0].to, o.cost)).collect();
        found.sort_by_key(|f| f.0.code());
        assert_eq!(found, vec![(ActionKind::Move, Cell::planar(1, 0), 2), (ActionKind::Lift, Cell::planar(1, 1), 3)]);
    }
}
