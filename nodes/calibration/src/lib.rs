//! Calibration of the Lily-tank hydrodynamic model (SPEC 1).
//!
//! - [`kinematics`]: trajectories on a regular time grid; velocity and acceleration by
//!   smoothed finite differences.
//! - [`msd`]: the mean squared displacement, pooled and gap-aware.
//! - [`flow_estimation`]: the flow field from tracked balls by inverting the quadratic
//!   drag, per-cell statistics and a Kolmogorov-Smirnov normality test.
//! - [`flow_choice`]: which drag inversion a recording needs, chosen by a pilot
//!   calibration iteration on each candidate field.
//! - [`pso`]: particle swarm optimisation with the paper's constants.
//! - [`simulator`]: what a calibration needs from a simulator; [`tank`] runs the
//!   tank physics in-process.
//! - [`mod@calibrate`]: a checkpointed, resumable calibration run.
//! - [`job`]: a whole calibration job (recordings in, parameter file and plots out).
//! - [`maps`]: occupancy and mean-velocity maps for validation.
//! - [`output`]: the parameter file, fitness history and plots of a calibration.
//! - [`request`]: the ROS node's goals and requests, checked before any work starts.
//! - [`validation`]: the validation report (MSD, maps, per-cell speed KS tests, verdict).
//! - [`cli`]: the offline command line (`flotilla-calibrate`).

pub mod calibrate;
pub mod cli;
pub mod flow_choice;
pub mod flow_estimation;
pub mod job;
pub mod kinematics;
pub mod maps;
pub mod msd;
pub mod output;
pub mod parameters;
pub mod pso;
pub mod request;
pub mod simulator;
pub mod tank;
pub mod validation;

use std::path::PathBuf;

pub use calibrate::{calibrate, CalibrationOutcome, CalibrationProgress, CalibrationSettings};
pub use msd::{mean_squared_displacement, MsdCurve, MsdSettings};
pub use parameters::{ParameterRange, ParameterSpace};
pub use simulator::Simulator;

/// Everything that can go wrong in a calibration, with what and where.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// A setting is invalid (named in the message).
    #[error("invalid setting: {0}")]
    Setting(String),
    /// A field of a ROS goal or request is unusable (named, with the reason).
    #[error("request field `{field}`: {message}")]
    Request {
        /// The field of the goal or request.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The recorded data cannot be used (too short, too gappy, empty ...).
    #[error("unusable recording: {0}")]
    Recording(String),
    /// A trajectory file is malformed.
    #[error(transparent)]
    Trajectory(#[from] flotilla_common::trajectory::TrajectoryError),
    /// The simulator failed.
    #[error("simulation failed: {0}")]
    Simulation(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A checkpoint cannot be used.
    #[error("checkpoint {path}: {message}")]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Drawing a plot failed.
    #[error("plot {path}: {message}")]
    Plot {
        /// The image file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}
