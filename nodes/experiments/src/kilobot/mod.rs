//! Experiments of the Kilobot self-assembly (SPEC 4): one run of an image's shape
//! ([`SelfAssemblyExperiment`]) and the swarm-scale speed benchmark ([`Bench`]).

mod bench;
pub mod plots;
pub mod run;
mod self_assembly;

/// Shapes from images and the start layout: one implementation, in the controller crate
/// that the ROS swarm host (`kilobot_swarm`) shares.
pub use robot_controller::kilobot::layout;

pub use bench::Bench;
pub use self_assembly::{filled_fraction, scenario, shared_path, SelfAssemblyExperiment};

use crate::experiment::Experiment;

/// The Kilobot experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&SelfAssemblyExperiment, &Bench];

/// The shape images shipped in the repository (`config/shapes/`).
pub const SHAPES_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/shapes");

#[cfg(test)]
mod tests;
