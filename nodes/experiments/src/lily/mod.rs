//! Experiments of the Lily tank (SPEC 1): self-assembly yield of rulesets, and the MSD of
//! the stirred ball tank.

mod msd;
mod yield_study;

pub use msd::MsdStudy;
pub use yield_study::YieldStudy;

use std::path::Path;

use robot_controller::{Ruleset, RulesetError};

use crate::experiment::Experiment;

/// The Lily experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&YieldStudy, &MsdStudy];

/// The rulesets shipped in the repository (`config/rulesets/`).
pub const RULESETS_DIR: &str = robot_controller::lily::SHIPPED_RULESETS;

/// Reads ruleset `name` (`<dir>/<name>.yaml`).
pub fn ruleset(dir: &Path, name: &str) -> Result<Ruleset, RulesetError> {
    Ruleset::from_file(&dir.join(format!("{name}.yaml")))
}

/// A ruleset shipped in the repository.
#[cfg(test)]
pub(crate) fn shipped_ruleset(name: &str) -> Ruleset {
    Ruleset::shipped(name).unwrap()
}
