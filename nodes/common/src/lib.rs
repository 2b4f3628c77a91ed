//! Shared Flotilla types and helpers used by every node.
//!
//! - [`arena`]: the one geometric description of an arena (outline, walls, water, inlets).
//! - [`duration`]: the one checked conversion of seconds, rates and speed factors to
//!   `Duration` (finite, within stated bounds), used by every parameter and request.
//! - [`error_chain`]: an error and its causes in one line, each cause said once.
//! - [`finite`]: drops received messages holding NaN or infinite numbers, with a
//!   rate-limited warning naming the topic and field.
//! - [`catalogue`]: the module kinds (geometry, mass, draft, faces, actuators, sensors).
//! - [`flow_field`]: the gridded per-cell flow statistics and their file format.
//! - [`fluid`]: water density, floating mass and the quadratic drag law (forward and
//!   inverted), shared by the physics and the flow estimation.
//! - [`msd`]: the mean squared displacement of tracked or simulated objects, with its
//!   first peak and plateau.
//! - [`trajectory`]: the SwisTrack-like trajectory CSV that physics, tracker and
//!   calibration share.
//! - [`bag`]: rosbag2 bag directories (`metadata.yaml` + MCAP) that survive a crash.
//! - [`params`]: `ros__parameters` files: loading, validation, clear errors.
//! - [`progress`]: progress lines for long work whose stderr is not a terminal.
//! - [`param_spec`]: each node's parameter table (default, description with unit, range,
//!   live or read-only) and the ROS 2 declarations made from it.
//! - `ros` (feature `ros`): node start-up, shutdown and parameter glue for r2r;
//!   `ros_contract`: each robot system's hardware contract as its `flotilla_msgs` messages;
//!   `ros_params`: the ROS 2 parameter services and `/parameter_events` every node serves;
//!   `rosout`: every `tracing` event on `/rosout`; `ros_bag`: message type hashes for bags.

pub mod arena;
pub mod bag;
pub mod catalogue;
pub mod duration;
pub mod error_chain;
pub mod finite;
pub mod flow_field;
pub mod fluid;
pub mod models;
pub mod msd;
pub mod param_spec;
pub mod params;
pub mod progress;
pub mod trajectory;

#[cfg(feature = "ros")]
pub mod ros;
#[cfg(feature = "ros")]
pub mod ros_bag;
#[cfg(feature = "ros")]
pub mod ros_contract;
#[cfg(feature = "ros")]
pub mod ros_params;
#[cfg(feature = "ros")]
pub mod rosout;
