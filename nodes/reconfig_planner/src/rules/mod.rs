//! The actions of SPEC 2 and their rules, on [`Lattice`](crate::Lattice) values.
//!
//! This module is the reference semantics: [`Lattice::apply_step`](crate::Lattice::apply_step)
//! checks a step action by action, and [`replay`] checks a whole plan. The planner's
//! bit-packed successor generator (`search`) is tested against it.
//!
//! # Actions (robot in block `p`; `h` a horizontal unit step, `u` one cell up)
//!
//! | kind | block moves | robot ends in | needs | footprint |
//! |---|---|---|---|---|
//! | `Move` | none | `q = p + any unit` | `q` a block without robot | `p, q` |
//! | `Lift` | `p -> p+h+u` (stairs) | `p+h+u` | `p+u` free, anchor `p+h` a block without robot, `p+h+u` empty | `p, p+u, p+h, p+h+u` |
//! | `PutDown` | `p -> p+h-u` | `p+h-u` | `p+u` free, `p+h` empty (swing room), `p+h-u` empty, anchor `p-u` a block without robot | `p, p+u, p+h, p+h-u, p-u` |
//! | `Shift` | `p -> p+h` | `p+h` | `p+u` free, `p+h` empty, anchor `p+h-u` a block without robot | `p, p+u, p+h, p+h-u` |
//! | `CoopLift` | `p -> p+u` (straight up) | `p+h` | `p+u` empty, `p+h` a block without robot, partner robot in the block `p+h+u` | `p, p+u, p+h, p+h+u` |
//!
//! "Free" means empty or outside the top of the lattice. The robot expands into the
//! anchor block, so a robot already there would collide. In `CoopLift` the first robot
//! lifts its block one cell, the partner in the block `p+h+u` catches it, and the first
//! robot contracts into `p+h` (the paper's description, Sec. 3).
//!
//! # Steps
//! A step is a set of actions done in parallel by distinct robots. It is valid when every
//! action is valid on the state before the step, no two footprints share a cell (so the
//! actions commute), each block-moving action alone leaves no floating block, and the
//! state after the step has no floating block.
//! A [`Repertoire`] without `side_by_side` also keeps the robots a cell apart along `x`
//! ([`Lattice::keeps_apart`](crate::Lattice::keeps_apart)).
//!
//! # Cost
//! `g(x_n) = g(x_{n-1}) + d(m) + 1`: a step costs the sum of its actions' fixed costs
//! ([`ActionCosts`]) plus [`ActionCosts::step`].

mod enumerate;
mod step;

pub use enumerate::{all_steps, StepOption};
pub use step::{replay, Replay, ReplayError, StepError};

use crate::lattice::Cell;
use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

/// The kind of an action (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// The robot moves to a neighbouring block.
    Move,
    /// The robot lifts its block up and sideways onto the neighbouring column.
    Lift,
    /// The robot puts its block down and sideways.
    PutDown,
    /// The robot shifts its block sideways.
    Shift,
    /// Two robots lift a block straight up.
    CoopLift,
}

impl ActionKind {
    /// All kinds, in wire-code order.
    pub const ALL: [ActionKind; 5] = [ActionKind::Move, ActionKind::Lift, ActionKind::PutDown, ActionKind::Shift, ActionKind::CoopLift];

    /// The wire code (index in [`ActionKind::ALL`]).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind of a wire code.
    pub fn from_code(code: u8) -> Option<ActionKind> {
        Self::ALL.get(code as usize).copied()
    }

    /// True for the kinds that move a block.
    pub fn moves_block(self) -> bool {
        self != ActionKind::Move
    }
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ActionKind::Move => "move",
            ActionKind::Lift => "lift",
            ActionKind::PutDown => "put_down",
            ActionKind::Shift => "shift",
            ActionKind::CoopLift => "coop_lift",
        })
    }
}

/// One action of one robot (two for [`ActionKind::CoopLift`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Action {
    /// Index of the acting robot (its index in the start lattice), count.
    pub robot: usize,
    /// What it does.
    pub kind: ActionKind,
    /// Cell the robot (`Move`) or its block (other kinds) leaves; always the robot's cell.
    pub from: Cell,
    /// Cell the robot (`Move`) or the block (other kinds) arrives in.
    pub to: Cell,
    /// For `CoopLift`: the robot that catches the block (in the block at `to + h`);
    /// `None` for the other kinds.
    pub partner: Option<usize>,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "robot {} {} {} -> {}", self.robot, self.kind, self.from, self.to)?;
        if let Some(partner) = self.partner {
            write!(f, " (with robot {partner})")?;
        }
        Ok(())
    }
}

/// Which of the rules' actions the robots that will execute a plan can perform: the planner
/// plans with these only. The default is every action the rules allow (the paper's
/// planner); a physical executor may perform fewer (the MoleMOD executor's blocks have no
/// tunnel along `y`, and some of its motions are not built: `tank_physics`'s
/// `executor::EXECUTED`). Each field allows a kind of action that the rules allow, or (for
/// [`Repertoire::side_by_side`]) robots beside each other; `true` keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Repertoire {
    /// Any action whose cells differ along `y`.
    pub along_y: bool,
    /// A move up a vertical tunnel.
    pub move_up: bool,
    /// A horizontal move through the tunnels above the bottom layer.
    pub move_above_floor: bool,
    /// A lift of a block that stands on another one.
    pub lift_above_floor: bool,
    /// A put down onto another block (to above the bottom layer).
    pub put_down_above_floor: bool,
    /// A shift of a block along the bottom layer.
    pub shift_on_floor: bool,
    /// The co-operative lift.
    pub coop_lift: bool,
    /// Robots in cells beside each other along `x`, and a robot acting next to another: a
    /// robot that overhangs its cell along its tunnel needs the cell between (the MoleMOD
    /// mole, 152 mm contracted in 100 mm blocks, reaches 26 mm into each `x` neighbour).
    /// Off, no cell a robot is in or its action uses may be, or lie beside along `x`, one
    /// of another robot's ([`Lattice::keeps_apart`](crate::Lattice::keeps_apart)), and a
    /// start with robots side by side is refused.
    pub side_by_side: bool,
}

impl Default for Repertoire {
    fn default() -> Self {
        Self::EVERY_ACTION
    }
}

impl Repertoire {
    /// Every action the rules allow.
    pub const EVERY_ACTION: Repertoire = Repertoire {
        along_y: true,
        move_up: true,
        move_above_floor: true,
        lift_above_floor: true,
        put_down_above_floor: true,
        shift_on_floor: true,
        coop_lift: true,
        side_by_side: true,
    };

    /// Only the actions no field can take out: horizontal moves along `x` in the bottom layer,
    /// moves down, lifts off the bottom layer, shifts above it, put downs onto the floor;
    /// robots kept a cell apart.
    pub const MINIMAL: Repertoire = Repertoire {
        along_y: false,
        move_up: false,
        move_above_floor: false,
        lift_above_floor: false,
        put_down_above_floor: false,
        shift_on_floor: false,
        coop_lift: false,
        side_by_side: false,
    };

    /// The names of the fields, in declaration order (the words [`Repertoire::from_str`] takes).
    pub const FIELDS: [&'static str; 8] = [
        "along_y",
        "move_up",
        "move_above_floor",
        "lift_above_floor",
        "put_down_above_floor",
        "shift_on_floor",
        "coop_lift",
        "side_by_side",
    ];

    fn field(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "along_y" => &mut self.along_y,
            "move_up" => &mut self.move_up,
            "move_above_floor" => &mut self.move_above_floor,
            "lift_above_floor" => &mut self.lift_above_floor,
            "put_down_above_floor" => &mut self.put_down_above_floor,
            "shift_on_floor" => &mut self.shift_on_floor,
            "coop_lift" => &mut self.coop_lift,
            "side_by_side" => &mut self.side_by_side,
            _ => return None,
        })
    }

    /// Whether an action of `kind` from cell `from` to cell `to` (`[x, y, z]`, as
    /// [`Action::from`] and [`Action::to`]) is in the repertoire.
    pub fn allows(&self, kind: ActionKind, from: [usize; 3], to: [usize; 3]) -> bool {
        if from[1] != to[1] && !self.along_y {
            return false;
        }
        match kind {
            ActionKind::Move if to[2] > from[2] => self.move_up,
            ActionKind::Move if to[2] == from[2] && from[2] > 0 => self.move_above_floor,
            ActionKind::Move => true,
            ActionKind::Lift => from[2] == 0 || self.lift_above_floor,
            ActionKind::PutDown => to[2] == 0 || self.put_down_above_floor,
            ActionKind::Shift => from[2] > 0 || self.shift_on_floor,
            ActionKind::CoopLift => self.coop_lift,
        }
    }
}

/// A repertoire written as text was not understood.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "unknown action class `{0}` in a repertoire; write `every_action`, `minimal`, or `minimal` and/or a comma-separated list of: {known}",
    known = Repertoire::FIELDS.join(", ")
)]
pub struct RepertoireError(pub String);

/// `every_action`, or a comma-separated list of [`Repertoire::FIELDS`] allowed on top of
/// [`Repertoire::MINIMAL`] (`minimal` alone, or an empty list, is the minimal one), e.g.
/// `minimal,move_up,along_y`. Spaces around the words are ignored.
impl std::str::FromStr for Repertoire {
    type Err = RepertoireError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.trim() == "every_action" {
            return Ok(Self::EVERY_ACTION);
        }
        let mut repertoire = Self::MINIMAL;
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty() && *w != "minimal") {
            *repertoire.field(word).ok_or_else(|| RepertoireError(word.to_owned()))? = true;
        }
        Ok(repertoire)
    }
}

/// The form [`Repertoire::from_str`] reads back: `every_action`, `minimal`, or `minimal`
/// and the fields allowed.
impl fmt::Display for Repertoire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Self::EVERY_ACTION {
            return f.write_str("every_action");
        }
        f.write_str("minimal")?;
        let mut copy = *self;
        for name in Self::FIELDS {
            if copy.field(name).is_some_and(|allowed| *allowed) {
                write!(f, ",{name}")?;
            }
        }
        Ok(())
    }
}

/// Fixed cost `d(m)` of each action kind, and the per-step term of the cost.
///
/// Defaults follow the paper's rule "the distance the robot or block moves": a move or a
/// shift is 1 cell, a lift or put-down moves the block 2 cells (up/down and sideways), a
/// cooperative lift moves the block 1 cell and the first robot 1 cell. The heuristics'
/// admissibility needs at least these values ([`ActionCosts::validate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ActionCosts {
    /// Cost of [`ActionKind::Move`], cost units (>= 1).
    pub travel: u32,
    /// Cost of [`ActionKind::Lift`], cost units (>= 2).
    pub lift: u32,
    /// Cost of [`ActionKind::PutDown`], cost units (>= 2).
    pub put_down: u32,
    /// Cost of [`ActionKind::Shift`], cost units (>= 1).
    pub shift: u32,
    /// Cost of [`ActionKind::CoopLift`] (both robots together), cost units (>= 2).
    pub coop_lift: u32,
    /// Added once per step (the paper's `+ 1`), cost units.
    pub step: u32,
}

impl Default for ActionCosts {
    fn default() -> Self {
        Self { travel: 1, lift: 2, put_down: 2, shift: 1, coop_lift: 2, step: 1 }
    }
}

/// A cost outside what the planner accepts.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CostError {
    /// An action cost below what the heuristics assume, or above [`ActionCosts::MAX`].
    #[error("cost of {kind} is {cost}, outside [{min}, {max}] (the minimum keeps the heuristics admissible)")]
    OutOfRange {
        /// The kind.
        kind: ActionKind,
        /// Its configured cost.
        cost: u32,
        /// The least allowed ([`ActionCosts::minimum`]).
        min: u32,
        /// The most allowed ([`ActionCosts::MAX`]).
        max: u32,
    },
    /// A per-step cost above [`ActionCosts::MAX`].
    #[error("per-step cost {step} is above {max}")]
    StepTooLarge {
        /// The configured per-step cost.
        step: u32,
        /// [`ActionCosts::MAX`].
        max: u32,
    },
}

impl ActionCosts {
    /// Largest accepted cost of one action or step, cost units (keeps plan costs far
    /// from integer overflow).
    pub const MAX: u32 = 1000;

    /// Fixed cost of one action of `kind`.
    pub fn of(&self, kind: ActionKind) -> u32 {
        match kind {
            ActionKind::Move => self.travel,
            ActionKind::Lift => self.lift,
            ActionKind::PutDown => self.put_down,
            ActionKind::Shift => self.shift,
            ActionKind::CoopLift => self.coop_lift,
        }
    }

    /// Least cost of each kind for which the heuristics stay admissible: an action must
    /// cost at least the Manhattan distance its block moves plus one per block a robot
    /// enters.
    pub fn minimum(kind: ActionKind) -> u32 {
        match kind {
            ActionKind::Move | ActionKind::Shift => 1,
            ActionKind::Lift | ActionKind::PutDown | ActionKind::CoopLift => 2,
        }
    }

    /// `Ok` when every action cost is in `[minimum, MAX]` and the step cost at most `MAX`.
    pub fn validate(&self) -> Result<(), CostError> {
        for kind in ActionKind::ALL {
            let (cost, min) = (self.of(kind), Self::minimum(kind));
            if !(min..=Self::MAX).contains(&cost) {
                return Err(CostError::OutOfRange { kind, cost, min, max: Self::MAX });
            }
        }
        if self.step > Self::MAX {
            return Err(CostError::StepTooLarge { step: self.step, max: Self::MAX });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_codes_round_trip() {
        for kind in ActionKind::ALL {
            assert_eq!(ActionKind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(ActionKind::from_code(5), None);
        assert_eq!(ActionKind::CoopLift.code(), 4);
    }

    #[test]
    fn a_repertoire_reads_and_writes_as_text() {
        assert_eq!("every_action".parse(), Ok(Repertoire::EVERY_ACTION));
        assert_eq!("minimal".parse(), Ok(Repertoire::MINIMAL));
        assert_eq!("".parse(), Ok(Repertoire::MINIMAL));
        let some: Repertoire = " minimal, move_up ,along_y".parse().expect("parses");
        assert_eq!(some, Repertoire { move_up: true, along_y: true, ..Repertoire::MINIMAL });
        assert_eq!(some.to_string(), "minimal,along_y,move_up");
        // Every field named is every action; each one alone reads back as itself.
        assert_eq!(Repertoire::FIELDS.join(",").parse(), Ok(Repertoire::EVERY_ACTION));
        for name in Repertoire::FIELDS {
            let one: Repertoire = name.parse().expect(name);
            assert_eq!(one.to_string().parse(), Ok(one));
            assert_eq!(one.to_string(), format!("minimal,{name}"));
        }
        for text in [Repertoire::EVERY_ACTION.to_string(), Repertoire::MINIMAL.to_string()] {
            assert!(text.parse::<Repertoire>().is_ok(), "{text}");
        }
        let err = "minimal,move_upp".parse::<Repertoire>().unwrap_err();
        assert_eq!(err, RepertoireError("move_upp".into()));
        assert!(err.to_string().contains("`move_upp`") && err.to_string().contains("coop_lift"), "{err}");
    }

    #[test]
    fn a_repertoire_allows_each_kind_by_its_cells() {
        let every = Repertoire::EVERY_ACTION;
        let none = Repertoire::MINIMAL;
        // (kind, from, to, allowed with nothing optional)
        let cases = [
            (ActionKind::Move, [0, 0, 0], [1, 0, 0], true),
            (ActionKind::Move, [1, 0, 1], [1, 0, 0], true),
            (ActionKind::Move, [1, 0, 0], [1, 0, 1], false),
            (ActionKind::Move, [1, 0, 1], [2, 0, 1], false),
            (ActionKind::Move, [0, 0, 0], [0, 1, 0], false),
            (ActionKind::Lift, [0, 0, 0], [1, 0, 1], true),
            (ActionKind::Lift, [0, 0, 1], [1, 0, 2], false),
            (ActionKind::Lift, [0, 0, 0], [0, 1, 1], false),
            (ActionKind::PutDown, [1, 0, 1], [2, 0, 0], true),
            (ActionKind::PutDown, [1, 0, 2], [2, 0, 1], false),
            (ActionKind::Shift, [1, 0, 1], [2, 0, 1], true),
            (ActionKind::Shift, [1, 0, 0], [2, 0, 0], false),
            (ActionKind::CoopLift, [1, 0, 0], [1, 0, 1], false),
        ];
        for (kind, from, to, allowed) in cases {
            assert!(every.allows(kind, from, to), "{kind} {from:?} -> {to:?}");
            assert_eq!(none.allows(kind, from, to), allowed, "{kind} {from:?} -> {to:?}");
        }
        assert_eq!(Repertoire::default(), every);
    }

    #[test]
    fn cost_validation_names_the_kind() {
        assert_eq!(ActionCosts::default().validate(), Ok(()));
        let costs = ActionCosts { lift: 1, ..Default::default() };
        assert_eq!(costs.validate(), Err(CostError::OutOfRange { kind: ActionKind::Lift, cost: 1, min: 2, max: 1000 }));
        let costs = ActionCosts { shift: 5000, ..Default::default() };
        assert!(costs.validate().unwrap_err().to_string().starts_with("cost of shift is 5000, outside [1, 1000]"));
        let costs = ActionCosts { step: 1001, ..Default::default() };
        assert_eq!(costs.validate(), Err(CostError::StepTooLarge { step: 1001, max: 1000 }));
    }
}
