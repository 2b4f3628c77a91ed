//! MoleMOD reconfiguration planner (SPEC 2; Brejchová et al., "Modelling, simulation,
//! and planning for the MoleMOD system").
//!
//! Passive blocks fill cells of a lattice; robots live inside blocks, move between them,
//! and carry blocks. Given a start and a goal layout, [`plan`] finds a cheapest sequence
//! of steps with A* (several robots act in parallel within a step).
//!
//! - [`lattice`]: cells, blocks, robots, support, text pictures.
//! - [`rules`]: the actions, their preconditions and costs; [`replay`] checks plans.
//! - [`planner`]: [`PlanRequest`] -> [`Plan`] with a budget; [`HeuristicKind`].
//! - [`task`]: YAML task files.
//! - [`wire`]: flat, serialisable forms of lattices and actions (for ROS messages).
//! - `ros` (feature `ros`): ROS message <-> planner conversions shared by the nodes.
//!
//! Pure logic: no ROS (outside the `ros` feature's message conversions), no I/O except
//! reading task files.

pub mod lattice;
pub mod planner;
pub mod pool;
#[cfg(feature = "ros")]
pub mod ros;
pub mod rules;
mod search;
pub mod task;
pub mod wire;

pub use lattice::{Cell, CellCode, Dims, Lattice, LatticeError, MAX_CELLS};
pub use planner::{
    plan, Budget, BudgetLimit, LatticeRole, Plan, PlanError, PlanRequest, RequestError, SearchStats, VerifyError, MAX_ROBOTS,
};
pub use pool::{Reservation, StatePool};
pub use rules::{
    all_steps, replay, Action, ActionCosts, ActionKind, CostError, Repertoire, RepertoireError, Replay, ReplayError, StepError, StepOption,
};
pub use search::HeuristicKind;
pub use task::{Task, TaskError};
pub use wire::{msgs_to_steps, steps_to_msgs, ActionMsg, LatticeMsg, WireError};
