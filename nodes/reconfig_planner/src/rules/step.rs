//! Checking and applying one step, and replaying a plan.

use super::{Action, ActionCosts, ActionKind};
use crate::lattice::{Cell, Lattice};
use thiserror::Error;

/// Why a step is not valid. `action` is the index of the action within the step.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StepError {
    /// A step with no action.
    #[error("the step has no actions")]
    Empty,
    /// A robot index that does not exist.
    #[error("action {action}: robot {robot} does not exist (the lattice has {robots} robots)")]
    UnknownRobot {
        /// Action index.
        action: usize,
        /// The index given.
        robot: usize,
        /// Number of robots.
        robots: usize,
    },
    /// A robot acting twice (or as partner and actor) in one step.
    #[error("action {action}: robot {robot} already acts in this step")]
    RobotBusy {
        /// Action index.
        action: usize,
        /// The robot.
        robot: usize,
    },
    /// `from` is not the robot's cell.
    #[error("action {action}: robot {robot} is at {at}, not at {from}")]
    NotAtFrom {
        /// Action index.
        action: usize,
        /// The robot.
        robot: usize,
        /// Where it is.
        at: Cell,
        /// The `from` given.
        from: Cell,
    },
    /// `to - from` is not a displacement this kind makes.
    #[error("action {action}: a {kind} cannot go from {from} to {to}")]
    BadDisplacement {
        /// Action index.
        action: usize,
        /// Its kind.
        kind: ActionKind,
        /// From.
        from: Cell,
        /// To.
        to: Cell,
    },
    /// A partner given for a one-robot kind, or missing / misplaced for `CoopLift`.
    #[error("action {action}: {reason}")]
    Partner {
        /// Action index.
        action: usize,
        /// What is wrong.
        reason: String,
    },
    /// A cell the action needs is outside the lattice.
    #[error("action {action}: a {kind} needs {need}, which is outside the lattice")]
    OutsideLattice {
        /// Action index.
        action: usize,
        /// Its kind.
        kind: ActionKind,
        /// Which cell.
        need: &'static str,
    },
    /// A precondition on a cell fails.
    #[error("action {action}: a {kind} needs {need} at {cell}")]
    Precondition {
        /// Action index.
        action: usize,
        /// Its kind.
        kind: ActionKind,
        /// The cell.
        cell: Cell,
        /// What it needs there.
        need: &'static str,
    },
    /// Two footprints share a cell.
    #[error("actions {first} and {second} both use cell {cell}")]
    Overlap {
        /// First action index.
        first: usize,
        /// Second action index.
        second: usize,
        /// The shared cell.
        cell: Cell,
    },
    /// A block-moving action that alone leaves a block floating.
    #[error("action {action}: alone it leaves the block at {cell} floating")]
    UnsupportedAlone {
        /// Action index.
        action: usize,
        /// The floating block.
        cell: Cell,
    },
    /// The state after the step has a floating block.
    #[error("after the step the block at {cell} is floating")]
    Unsupported {
        /// The floating block.
        cell: Cell,
    },
    /// Two robots side by side along `x` where the repertoire keeps them a cell apart
    /// ([`Repertoire::side_by_side`](super::Repertoire::side_by_side) off).
    #[error(
        "robot {robot} {}{cell} and robot {other} {}{other_cell} are side by side along x; robots that overhang their cell keep a cell apart",
        if *robot_acts { "acting on " } else { "in " },
        if *other_acts { "acting on " } else { "in " }
    )]
    SideBySide {
        /// The first robot.
        robot: usize,
        /// Whether `cell` is one its action uses (else it is the robot's cell).
        robot_acts: bool,
        /// The first robot's cell next to `other_cell`.
        cell: Cell,
        /// The second robot.
        other: usize,
        /// Whether `other_cell` is one its action uses.
        other_acts: bool,
        /// The second robot's cell next to (or the same as) `cell`.
        other_cell: Cell,
    },
}

/// What one valid action does.
struct Effect {
    footprint: Vec<Cell>,
    block: Option<(Cell, Cell)>,
    robot_moves: Vec<(usize, Cell)>,
    actors: Vec<usize>,
}

/// Cell at `from + (dx, dy, dz)` if inside `lattice`.
fn cell_at(lattice: &Lattice, from: &Cell, dx: isize, dy: isize, dz: isize) -> Option<Cell> {
    from.offset(dx, dy, dz).filter(|c| lattice.contains(c))
}

/// Signed displacement `to - from`.
fn delta(from: &Cell, to: &Cell) -> (isize, isize, isize) {
    (to.x as isize - from.x as isize, to.y as isize - from.y as isize, to.z as isize - from.z as isize)
}

fn is_horizontal_unit(dx: isize, dy: isize) -> bool {
    dx.abs() + dy.abs() == 1
}

struct Checker<'a> {
    lattice: &'a Lattice,
    action: usize,
    kind: ActionKind,
}

impl Checker<'_> {
    fn inside(&self, cell: Option<Cell>, need: &'static str) -> Result<Cell, StepError> {
        cell.ok_or(StepError::OutsideLattice { action: self.action, kind: self.kind, need })
    }

    fn require(&self, ok: bool, cell: Cell, need: &'static str) -> Result<(), StepError> {
        if ok {
            Ok(())
        } else {
            Err(StepError::Precondition { action: self.action, kind: self.kind, cell, need })
        }
    }

    fn anchor(&self, cell: Cell) -> Result<(), StepError> {
        self.require(self.lattice.has_block(&cell), cell, "an anchor block")?;
        self.require(self.lattice.robot_at(&cell).is_none(), cell, "no robot in the anchor block")
    }

    fn empty(&self, cell: Cell) -> Result<(), StepError> {
        self.require(!self.lattice.has_block(&cell), cell, "an empty cell")
    }

    /// Checks that nothing sits on the block at `from`; returns the cell above if inside.
    fn free_above(&self, from: &Cell) -> Result<Option<Cell>, StepError> {
        let above = cell_at(self.lattice, from, 0, 0, 1);
        if let Some(cell) = above {
            self.require(!self.lattice.has_block(&cell), cell, "nothing on top of the moving block")?;
        }
        Ok(above)
    }
}

impl Lattice {
    /// Checks `action` (index `index` in its step) against this state.
    fn action_effect(&self, index: usize, action: &Action) -> Result<Effect, StepError> {
        let robots = self.robots();
        let robot = action.robot;
        let at = *robots.get(robot).ok_or(StepError::UnknownRobot { action: index, robot, robots: robots.len() })?;
        if at != action.from {
            return Err(StepError::NotAtFrom { action: index, robot, at, from: action.from });
        }
        let kind = action.kind;
        let check = Checker { lattice: self, action: index, kind };
        let (from, to) = (action.from, action.to);
        let (dx, dy, dz) = delta(&from, &to);
        let bad = || StepError::BadDisplacement { action: index, kind, from, to };
        if kind != ActionKind::CoopLift && action.partner.is_some() {
            return Err(StepError::Partner { action: index, reason: format!("a {kind} takes no partner robot") });
        }
        let to = check.inside(Some(to).filter(|c| self.contains(c)), "the target cell")?;
        let single = |footprint: Vec<Cell>, block: Option<(Cell, Cell)>| Effect {
            footprint,
            block,
            robot_moves: vec![(robot, to)],
            actors: vec![robot],
        };
        match kind {
            ActionKind::Move => {
                if dx.abs() + dy.abs() + dz.abs() != 1 {
                    return Err(bad());
                }
                check.require(self.has_block(&to), to, "a block to move into")?;
                check.require(self.robot_at(&to).is_none(), to, "no robot in the target block")?;
                Ok(single(vec![from, to], None))
            }
            ActionKind::Lift => {
                if !is_horizontal_unit(dx, dy) || dz != 1 {
                    return Err(bad());
                }
                let mut footprint = vec![from, to];
                footprint.extend(check.free_above(&from)?);
                let anchor = check.inside(cell_at(self, &from, dx, dy, 0), "the anchor beside")?;
                check.anchor(anchor)?;
                check.empty(to)?;
                footprint.push(anchor);
                Ok(single(footprint, Some((from, to))))
            }
            ActionKind::PutDown => {
                if !is_horizontal_unit(dx, dy) || dz != -1 {
                    return Err(bad());
                }
                let mut footprint = vec![from, to];
                footprint.extend(check.free_above(&from)?);
                let side = check.inside(cell_at(self, &from, dx, dy, 0), "the cell beside")?;
                check.empty(side)?;
                check.empty(to)?;
                let below = check.inside(cell_at(self, &from, 0, 0, -1), "the anchor below")?;
                check.anchor(below)?;
                footprint.extend([side, below]);
                Ok(single(footprint, Some((from, to))))
            }
            ActionKind::Shift => {
                if !is_horizontal_unit(dx, dy) || dz != 0 {
                    return Err(bad());
                }
                let mut footprint = vec![from, to];
                footprint.extend(check.free_above(&from)?);
                check.empty(to)?;
                let anchor = check.inside(cell_at(self, &to, 0, 0, -1), "the anchor under the target")?;
                check.anchor(anchor)?;
                footprint.push(anchor);
                Ok(single(footprint, Some((from, to))))
            }
            ActionKind::CoopLift => {
                if (dx, dy, dz) != (0, 0, 1) {
                    return Err(bad());
                }
                let partner = action
                    .partner
                    .ok_or_else(|| StepError::Partner { action: index, reason: "a coop_lift needs a partner robot".to_string() })?;
                let partner_at =
                    *robots.get(partner).ok_or(StepError::UnknownRobot { action: index, robot: partner, robots: robots.len() })?;
                let (px, py, pz) = delta(&to, &partner_at);
                if partner == robot || !is_horizontal_unit(px, py) || pz != 0 {
                    return Err(StepError::Partner {
                        action: index,
                        reason: format!("partner robot {partner} at {partner_at} is not in a block beside the target {to}"),
                    });
                }
                check.empty(to)?;
                let side = check.inside(cell_at(self, &from, px, py, 0), "the block beside")?;
                check.anchor(side)?;
                Ok(Effect {
                    footprint: vec![from, to, side, partner_at],
                    block: Some((from, to)),
                    robot_moves: vec![(robot, side)],
                    actors: vec![robot, partner],
                })
            }
        }
    }

    fn apply_effect(&mut self, effect: &Effect) {
        if let Some((from, to)) = &effect.block {
            self.set_block_unchecked(from, false);
            self.set_block_unchecked(to, true);
        }
        for &(robot, cell) in &effect.robot_moves {
            self.place_robot_unchecked(robot, cell);
        }
    }

    /// Checks one step (actions done in parallel, see [`crate::rules`]) against this state
    /// and returns the state after it and the step's cost
    /// (`sum of d(m) + costs.step`).
    pub fn apply_step(&self, actions: &[Action], costs: &ActionCosts) -> Result<(Lattice, u32), StepError> {
        if actions.is_empty() {
            return Err(StepError::Empty);
        }
        let mut effects: Vec<Effect> = Vec::with_capacity(actions.len());
        let mut cost = costs.step;
        for (index, action) in actions.iter().enumerate() {
            let effect = self.action_effect(index, action)?;
            for &robot in &effect.actors {
                if effects.iter().any(|e| e.actors.contains(&robot)) {
                    return Err(StepError::RobotBusy { action: index, robot });
                }
            }
            for (first, earlier) in effects.iter().enumerate() {
                if let Some(cell) = effect.footprint.iter().find(|c| earlier.footprint.contains(c)) {
                    return Err(StepError::Overlap { first, second: index, cell: *cell });
                }
            }
            if effect.block.is_some() {
                let mut alone = self.clone();
                alone.apply_effect(&effect);
                if let Some(&cell) = alone.unsupported_blocks().first() {
                    return Err(StepError::UnsupportedAlone { action: index, cell });
                }
            }
            cost += costs.of(action.kind);
            effects.push(effect);
        }
        let mut next = self.clone();
        for effect in &effects {
            next.apply_effect(effect);
        }
        if let Some(&cell) = next.unsupported_blocks().first() {
            return Err(StepError::Unsupported { cell });
        }
        Ok((next, cost))
    }

    /// Checks that the robots keep a cell apart along `x` through `actions` (a step valid
    /// by [`Lattice::apply_step`]; an empty one checks the robots where they are): no cell
    /// a robot is in or its action uses ([`crate::rules`]'s footprint) is the same as, or
    /// the `x` neighbour of, one of another robot's. A co-operative lift's partner belongs to
    /// its lifter's action. This is the rule of a repertoire without
    /// [`Repertoire::side_by_side`](super::Repertoire::side_by_side).
    pub fn keeps_apart(&self, actions: &[Action]) -> Result<(), StepError> {
        // (robot, acts, cells it is in or uses) for each acting group, then each idle robot.
        let mut reaches: Vec<(usize, bool, Vec<Cell>)> = Vec::with_capacity(self.robots().len());
        let mut busy = Vec::new();
        for (index, action) in actions.iter().enumerate() {
            let effect = self.action_effect(index, action)?;
            busy.extend(effect.actors.iter().copied());
            reaches.push((action.robot, true, effect.footprint));
        }
        for (robot, cell) in self.robots().iter().enumerate().filter(|(robot, _)| !busy.contains(robot)) {
            reaches.push((robot, false, vec![*cell]));
        }
        let beside = |a: &Cell, b: &Cell| a.y == b.y && a.z == b.z && a.x.abs_diff(b.x) <= 1;
        for (i, (robot, robot_acts, cells)) in reaches.iter().enumerate() {
            for (other, other_acts, other_cells) in &reaches[i + 1..] {
                for cell in cells {
                    if let Some(other_cell) = other_cells.iter().find(|c| beside(cell, c)) {
                        return Err(StepError::SideBySide {
                            robot: *robot,
                            robot_acts: *robot_acts,
                            cell: *cell,
                            other: *other,
                            other_acts: *other_acts,
                            other_cell: *other_cell,
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// A failed replay: which step, and why.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("step {step}: {source}")]
pub struct ReplayError {
    /// Index of the failing step (0-based).
    pub step: usize,
    /// Why it fails.
    #[source]
    pub source: StepError,
}

/// The states a plan passes through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// The start state, then the state after each step.
    pub states: Vec<Lattice>,
    /// Total cost of the steps, cost units.
    pub cost: u32,
}

/// Replays `steps` from `start`, checking every step.
pub fn replay(start: &Lattice, steps: &[Vec<Action>], costs: &ActionCosts) -> Result<Replay, ReplayError> {
    let mut states = vec![start.clone()];
    let mut cost = 0;
    for (step, actions) in steps.iter().enumerate() {
        let current = states.last().unwrap_or(start);
        let (next, step_cost) = current.apply_step(actions, costs).map_err(|source| ReplayError { step, source })?;
        cost += step_cost;
        states.push(next);
    }
    Ok(Replay { states, cost })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(robot: usize, kind: ActionKind, from: (usize, usize), to: (usize, usize)) -> Action {
        Action { robot, kind, from: Cell::planar(from.0, from.1), to: Cell::planar(to.0, to.1), partner: None }
    }

    fn costs() -> ActionCosts {
        ActionCosts::default()
    }

    #[test]
    fn move_costs_one_plus_step() {
        let start = Lattice::from_picture("0#.\n").unwrap();
        let (next, cost) = start.apply_step(&[act(0, ActionKind::Move, (0, 0), (1, 0))], &costs()).unwrap();
        assert_eq!(next.robots(), &[Cell::planar(1, 0)]);
        assert_eq!(cost, 1 + 1);
        // No block to move into.
        let err = next.apply_step(&[act(0, ActionKind::Move, (1, 0), (2, 0))], &costs()).unwrap_err();
        assert!(matches!(err, StepError::Precondition { need: "a block to move into", .. }), "{err}");
        // Not a unit step.
        let err = start.apply_step(&[act(0, ActionKind::Move, (0, 0), (2, 0))], &costs()).unwrap_err();
        assert!(matches!(err, StepError::BadDisplacement { .. }));
    }

    #[test]
    fn lift_goes_up_and_sideways_onto_the_anchor() {
        let start = Lattice::from_picture("...\n0#.\n").unwrap();
        let (next, cost) = start.apply_step(&[act(0, ActionKind::Lift, (0, 0), (1, 1))], &costs()).unwrap();
        assert_eq!(next.picture(), ".0.\n.#.\n");
        assert_eq!(cost, 2 + 1);
        // The reverse is a put-down, anchored on the block below.
        let (back, cost) = next.apply_step(&[act(0, ActionKind::PutDown, (1, 1), (0, 0))], &costs()).unwrap();
        assert_eq!(back, start);
        assert_eq!(cost, 2 + 1);
        // No anchor beside.
        let err = start.apply_step(&[act(0, ActionKind::Lift, (1, 0), (2, 1))], &costs());
        assert!(matches!(err, Err(StepError::NotAtFrom { .. })));
        let lone = Lattice::from_picture("...\n0..\n").unwrap();
        let err = lone.apply_step(&[act(0, ActionKind::Lift, (0, 0), (1, 1))], &costs()).unwrap_err();
        assert!(matches!(err, StepError::Precondition { need: "an anchor block", .. }), "{err}");
    }

    #[test]
    fn anchor_with_a_robot_blocks_the_action() {
        let start = Lattice::from_picture("...\n01.\n").unwrap();
        let err = start.apply_step(&[act(0, ActionKind::Lift, (0, 0), (1, 1))], &costs()).unwrap_err();
        assert!(matches!(err, StepError::Precondition { need: "no robot in the anchor block", .. }), "{err}");
    }

    #[test]
    fn block_with_load_cannot_move() {
        let start = Lattice::from_picture("#..\n0#.\n").unwrap();
        let err = start.apply_step(&[act(0, ActionKind::Lift, (0, 0), (1, 1))], &costs()).unwrap_err();
        assert!(matches!(err, StepError::Precondition { need: "nothing on top of the moving block", .. }), "{err}");
    }

    #[test]
    fn shift_needs_a_block_under_the_target() {
        let start = Lattice::from_picture("0..\n##.\n").unwrap();
        let (next, cost) = start.apply_step(&[act(0, ActionKind::Shift, (0, 1), (1, 1))], &costs()).unwrap();
        assert_eq!(next.picture(), ".0.\n##.\n");
        assert_eq!(cost, 1 + 1);
        let err = next.apply_step(&[act(0, ActionKind::Shift, (1, 1), (2, 1))], &costs()).unwrap_err();
        assert!(matches!(err, StepError::OutsideLattice { .. } | StepError::Precondition { .. }), "{err}");
        // On the floor there is no anchor block under the target.
        let floor = Lattice::from_picture("0.\n").unwrap();
        let err = floor.apply_step(&[act(0, ActionKind::Shift, (0, 0), (1, 0))], &costs()).unwrap_err();
        assert!(matches!(err, StepError::OutsideLattice { need: "the anchor under the target", .. }), "{err}");
    }

    #[test]
    fn coop_lift_moves_straight_up_and_the_lifter_steps_aside() {
        // Robot 0 in (0,0); robot 1 in (1,1) above the anchor (1,0).
        let start = Lattice::from_picture("...\n.1.\n0#.\n").unwrap();
        let lift = Action { robot: 0, kind: ActionKind::CoopLift, from: Cell::planar(0, 0), to: Cell::planar(0, 1), partner: Some(1) };
        let (next, cost) = start.apply_step(&[lift], &costs()).unwrap();
        assert_eq!(next.picture(), "...\n#1.\n.0.\n");
        assert_eq!(cost, 2 + 1);
        let no_partner = Action { partner: None, ..lift };
        assert!(matches!(start.apply_step(&[no_partner], &costs()), Err(StepError::Partner { .. })));
    }

    #[test]
    fn parallel_actions_cost_one_step_term_and_must_not_overlap() {
        let start = Lattice::from_picture("......\n0#..1#\n").unwrap();
        let both = [act(0, ActionKind::Lift, (0, 0), (1, 1)), act(1, ActionKind::Lift, (4, 0), (5, 1))];
        let (_, cost) = start.apply_step(&both, &costs()).unwrap();
        assert_eq!(cost, 2 + 2 + 1);
        let close = Lattice::from_picture("....\n0#1.\n").unwrap();
        let clash = [act(0, ActionKind::Lift, (0, 0), (1, 1)), act(1, ActionKind::Move, (2, 0), (1, 0))];
        let err = close.apply_step(&clash, &costs()).unwrap_err();
        assert!(matches!(err, StepError::Overlap { first: 0, second: 1, .. }), "{err}");
        let twice = [act(0, ActionKind::Move, (0, 0), (1, 0)), act(0, ActionKind::Move, (0, 0), (1, 0))];
        assert!(matches!(start.apply_step(&twice, &costs()), Err(StepError::RobotBusy { action: 1, robot: 0 })));
        assert_eq!(start.apply_step(&[], &costs()), Err(StepError::Empty));
    }

    #[test]
    fn robots_kept_apart_are_checked_where_they_are_and_where_their_actions_reach() {
        // Side by side where they are: refused with no action, naming both.
        let close = Lattice::from_picture("....\n01##\n").unwrap();
        let err = close.keeps_apart(&[]).unwrap_err();
        assert_eq!(
            err,
            StepError::SideBySide {
                robot: 0,
                robot_acts: false,
                cell: Cell::planar(0, 0),
                other: 1,
                other_acts: false,
                other_cell: Cell::planar(1, 0)
            }
        );
        assert!(err.to_string().starts_with("robot 0 in (0, 0, 0) and robot 1 in (1, 0, 0) are side by side along x"), "{err}");
        // A cell between: apart, and each may act alone while the other stays.
        let apart = Lattice::from_picture("......\n0##1##\n").unwrap();
        assert_eq!(apart.keeps_apart(&[]), Ok(()));
        let (right, left) = (act(0, ActionKind::Move, (0, 0), (1, 0)), act(1, ActionKind::Move, (3, 0), (2, 0)));
        assert_eq!(apart.keeps_apart(&[right]), Ok(()));
        assert_eq!(apart.keeps_apart(&[left]), Ok(()));
        assert_eq!(apart.keeps_apart(&[act(0, ActionKind::Lift, (0, 0), (1, 1))]), Ok(()));
        // Both towards each other: the rules allow it (no shared cell), kept apart it is not.
        assert!(apart.apply_step(&[right, left], &costs()).is_ok());
        let err = apart.keeps_apart(&[right, left]).unwrap_err();
        assert!(matches!(err, StepError::SideBySide { robot: 0, robot_acts: true, other: 1, other_acts: true, .. }), "{err}");
        // A lift whose anchor lies beside the other robot: acting next to an idle one.
        let lift = Lattice::from_picture("....\n#0#1\n").unwrap();
        let err = lift.keeps_apart(&[act(0, ActionKind::Lift, (1, 0), (2, 1))]).unwrap_err();
        assert!(err.to_string().starts_with("robot 0 acting on (2, 0, 0) and robot 1 in (3, 0, 0)"), "{err}");
        // Another layer is not beside.
        let layers = Lattice::from_picture("..0.\n.##1\n").unwrap();
        assert_eq!(layers.keeps_apart(&[]), Ok(()));
    }

    #[test]
    fn removing_a_support_is_rejected() {
        // The block at (2,1) hangs on (1,1); lifting (1,1) away would drop it.
        let start = Lattice::from_picture("....\n.0#.\n.#..\n").unwrap();
        let err = start.apply_step(&[act(0, ActionKind::PutDown, (1, 1), (0, 0))], &costs()).unwrap_err();
        assert!(matches!(err, StepError::UnsupportedAlone { cell, .. } if cell == Cell::planar(2, 1)), "{err}");
    }

    #[test]
    fn replay_reports_the_failing_step() {
        let start = Lattice::from_picture("...\n0#.\n").unwrap();
        let steps = vec![vec![act(0, ActionKind::Move, (0, 0), (1, 0))], vec![act(0, ActionKind::Move, (1, 0), (2, 0))]];
        let err = replay(&start, &steps, &costs()).unwrap_err();
        assert_eq!(err.step, 1);
        let ok = replay(&start, &steps[..1], &costs()).unwrap();
        assert_eq!(ok.states.len(), 2);
        assert_eq!(ok.cost, 2);
    }
}
