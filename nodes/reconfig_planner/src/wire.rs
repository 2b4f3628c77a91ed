//! Flat, serialisable forms of lattices and plans, shaped for ROS messages (arrays of
//! integers, no nesting beyond one level).
//!
//! Robots in a [`LatticeMsg`] are numbered in cell-index order (code 2 cells, `x`
//! fastest, then `y`, then `z`). Plan a request whose start was built from a message and
//! the plan's robot indices refer to that numbering.

use crate::lattice::{Cell, Dims, Lattice, LatticeError};
use crate::rules::{Action, ActionKind};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A lattice as dimensions plus one [`CellCode`](crate::CellCode) per cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatticeMsg {
    /// Cells along `x`, `y`, `z` (z up), count.
    pub dims: [u32; 3],
    /// Cell codes (0 empty, 1 block, 2 block with robot), `x` fastest, then `y`, then `z`.
    pub cells: Vec<u8>,
}

impl From<&Lattice> for LatticeMsg {
    fn from(lattice: &Lattice) -> Self {
        let d = lattice.dims();
        Self { dims: [d.x as u32, d.y as u32, d.z as u32], cells: lattice.codes() }
    }
}

impl LatticeMsg {
    /// The lattice, checking size, cell count and codes.
    pub fn to_lattice(&self) -> Result<Lattice, LatticeError> {
        let [x, y, z] = self.dims.map(|n| n as usize);
        Lattice::from_codes(Dims::new(x, y, z), &self.cells)
    }
}

/// One action of a plan, flat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionMsg {
    /// Index of the step the action belongs to (actions of one step run in parallel).
    pub step: u32,
    /// Acting robot's index.
    pub robot: u32,
    /// [`ActionKind::code`]: 0 move, 1 lift, 2 put down, 3 shift, 4 co-operative lift.
    pub kind: u8,
    /// Cell the robot (move) or its block leaves, `[x, y, z]`.
    pub from: [u32; 3],
    /// Cell the robot (move) or the block arrives in, `[x, y, z]`.
    pub to: [u32; 3],
    /// Partner robot of a co-operative lift, or -1.
    pub partner: i32,
}

/// A flat action list that does not describe a plan.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WireError {
    /// An unknown kind code.
    #[error("action {index}: unknown kind code {code} (0..=4)")]
    UnknownKind {
        /// Position in the list.
        index: usize,
        /// The code.
        code: u8,
    },
    /// Steps must start at 0 and go up by at most one.
    #[error("action {index}: step {step} follows step {previous}; steps must count up from 0 without gaps")]
    StepOrder {
        /// Position in the list.
        index: usize,
        /// Its step.
        step: u32,
        /// The step before it.
        previous: i64,
    },
    /// A negative partner other than -1.
    #[error("action {index}: partner {partner} is not a robot index or -1")]
    Partner {
        /// Position in the list.
        index: usize,
        /// The value.
        partner: i32,
    },
}

fn cell_array(cell: &Cell) -> [u32; 3] {
    [cell.x as u32, cell.y as u32, cell.z as u32]
}

fn array_cell(a: &[u32; 3]) -> Cell {
    Cell::new(a[0] as usize, a[1] as usize, a[2] as usize)
}

/// Flattens plan steps into one list, each action tagged with its step index.
pub fn steps_to_msgs(steps: &[Vec<Action>]) -> Vec<ActionMsg> {
    steps
        .iter()
        .enumerate()
        .flat_map(|(step, actions)| {
            actions.iter().map(move |a| ActionMsg {
                step: step as u32,
                robot: a.robot as u32,
                kind: a.kind.code(),
                from: cell_array(&a.from),
                to: cell_array(&a.to),
                partner: a.partner.map_or(-1, |p| p as i32),
            })
        })
        .collect()
}

/// Groups a flat list back into steps (the inverse of [`steps_to_msgs`]). Rules are not
/// checked here: [`replay`](crate::replay) does that.
pub fn msgs_to_steps(msgs: &[ActionMsg]) -> Result<Vec<Vec<Action>>, WireError> {
    let mut steps: Vec<Vec<Action>> = Vec::new();
    for (index, msg) in msgs.iter().enumerate() {
        let previous = steps.len() as i64 - 1;
        match msg.step as i64 - previous {
            0 => {}
            1 => steps.push(Vec::new()),
            _ => return Err(WireError::StepOrder { index, step: msg.step, previous }),
        }
        let kind = ActionKind::from_code(msg.kind).ok_or(WireError::UnknownKind { index, code: msg.kind })?;
        let partner = match msg.partner {
            -1 => None,
            p if p >= 0 => Some(p as usize),
            partner => return Err(WireError::Partner { index, partner }),
        };
        let action = Action { robot: msg.robot as usize, kind, from: array_cell(&msg.from), to: array_cell(&msg.to), partner };
        if let Some(step) = steps.last_mut() {
            step.push(action);
        }
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{replay, ActionCosts};

    #[test]
    fn lattice_round_trip_and_errors() {
        let lattice = Lattice::from_picture("..\n#0\n").unwrap();
        let msg = LatticeMsg::from(&lattice);
        assert_eq!(msg, LatticeMsg { dims: [2, 1, 2], cells: vec![1, 2, 0, 0] });
        assert_eq!(msg.to_lattice().unwrap(), lattice);
        let bad = LatticeMsg { dims: [2, 1, 2], cells: vec![1, 3, 0, 0] };
        assert!(matches!(bad.to_lattice(), Err(LatticeError::InvalidCode { index: 1, code: 3, .. })));
        let huge = LatticeMsg { dims: [u32::MAX, u32::MAX, u32::MAX], cells: vec![] };
        assert!(matches!(huge.to_lattice(), Err(LatticeError::TooLarge { .. })));
    }

    #[test]
    fn plan_round_trip_replays() {
        let start = Lattice::from_picture("...\n.1.\n0#.\n").unwrap();
        let steps =
            vec![vec![Action { robot: 0, kind: ActionKind::CoopLift, from: Cell::planar(0, 0), to: Cell::planar(0, 1), partner: Some(1) }]];
        let msgs = steps_to_msgs(&steps);
        assert_eq!(msgs[0].kind, 4);
        assert_eq!(msgs[0].partner, 1);
        let back = msgs_to_steps(&msgs).unwrap();
        assert_eq!(back, steps);
        assert!(replay(&start, &back, &ActionCosts::default()).is_ok());
    }

    #[test]
    fn rejects_malformed_lists() {
        let msg = ActionMsg { step: 0, robot: 0, kind: 0, from: [0, 0, 0], to: [1, 0, 0], partner: -1 };
        assert!(matches!(msgs_to_steps(&[ActionMsg { step: 1, ..msg }]), Err(WireError::StepOrder { index: 0, step: 1, previous: -1 })));
        assert!(matches!(msgs_to_steps(&[ActionMsg { kind: 9, ..msg }]), Err(WireError::UnknownKind { code: 9, .. })));
        assert!(matches!(msgs_to_steps(&[ActionMsg { partner: -3, ..msg }]), Err(WireError::Partner { .. })));
        assert_eq!(msgs_to_steps(&[msg, msg, ActionMsg { step: 1, ..msg }]).unwrap().len(), 2);
    }
}
