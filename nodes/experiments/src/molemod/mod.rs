//! Experiments of MoleMOD (SPEC 2): the planner's Table 1 planning times, the mole's
//! motions measured in the physics, and plans executed by the physics.

mod execute;
mod motions;
mod table1;

pub use execute::Execute;
pub use motions::Motions;
pub use table1::Table1;

use crate::experiment::Experiment;

/// The MoleMOD experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&Table1, &Motions, &Execute];

/// The task files shipped in the repository (`config/molemod/`).
pub const TASKS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/molemod");
