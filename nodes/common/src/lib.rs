//! Shared Flotilla types and helpers used by every node.
//!
//! - [`arena`]: the one geometric description of an arena (outline, walls, water, inlets).
//! - [`catalogue`]: the module kinds (geometry, mass, draft, faces, actuators, sensors).
//! - [`flow_field`]: the gridded per-cell flow statistics and their file format.
//! - [`trajectory`]: the SwisTrack-like trajectory CSV that physics, tracker and
//!   calibration share.
//! - [`bag`]: ROS 2 bag-compatible MCAP recording that survives a crash.
//! - [`params`]: `ros__parameters` files: loading, validation, clear errors.
//! - `ros` (feature `ros`): node start-up, shutdown and parameter glue for r2r.

pub mod arena;
pub mod bag;
pub mod catalogue;
pub mod flow_field;
pub mod models;
pub mod params;
pub mod trajectory;

#[cfg(feature = "ros")]
pub mod ros;
