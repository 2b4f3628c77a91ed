//! What the calibration needs from a simulator: trajectories on a regular time grid for
//! a parameter vector and a seed. The tank physics implements it for real calibrations;
//! [`OrnsteinUhlenbeck`] is a cheap analytic stand-in for tests and examples.

mod ornstein_uhlenbeck;

pub use ornstein_uhlenbeck::OrnsteinUhlenbeck;

use crate::kinematics::RegularTracks;
use crate::CalibrationError;

/// A seeded, deterministic simulator of floating objects.
pub trait Simulator: Sync {
    /// Names of the parameters, in the order `simulate` takes them.
    fn parameter_names(&self) -> Vec<String>;

    /// Time between output frames (s).
    fn frame_interval(&self) -> f64;

    /// Simulates with `parameters` and returns `frames` frames of every object's position
    /// (the simulator's own warm-up, if any, is not included). Same seed, same output.
    fn simulate(&self, parameters: &[f64], frames: usize, seed: u64) -> Result<RegularTracks, CalibrationError>;
}
