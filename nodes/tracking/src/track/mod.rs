//! Multi-target tracking: constant-velocity Kalman prediction, gated optimal
//! assignment (Hungarian per cluster), persistent identities.

mod assignment;
mod kalman;
mod tracker;

pub use assignment::{hungarian, Assigner, Candidate};
pub use kalman::ConstantVelocity;
pub use tracker::{MultiTargetTracker, StampError, Track, TrackerConfig, TrackerConfigError};
