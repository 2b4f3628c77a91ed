//! Experiments of the MoleMOD planner (SPEC 2): Table 1 planning times.

mod table1;

pub use table1::Table1;

use crate::experiment::Experiment;

/// The MoleMOD experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&Table1];

/// The task files shipped in the repository (`config/molemod/`).
pub const TASKS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/molemod");
