//! Per-robot controllers for Flotilla (SPEC 1 self-assembly; DESIGN `robot_controller`).
//!
//! - [`io`]: [`Sensors`] and [`RobotCommand`], the `flotilla_msgs` hardware contract.
//! - [`channel`]: framed bytes for the latch channel and the radio; the [`Mailroom`] that
//!   delivers them.
//! - [`sensing`]: a robot's reading derived from the world ([`sensors_for`]).
//! - [`firmware`]: the [`Firmware`] trait and the [`ControllerHost`] running many robots.
//! - [`lily`]: YAML rulesets and the Lily firmware that runs them.
//! - [`station`]: the base station (radio broadcast, state collection) and the pump
//!   schedule (centralised stirring).
//! - [`metrics`]: structures recognised up to rotation, yield, assembly rate, wrong
//!   attachments.
//! - [`batch`]: in-process runs (world + firmwares, seeded) and seed sweeps.
//! - [`report`]: yield tables and plots.
//!
//! Pure library: no ROS; I/O only in the ruleset reader and the report writers.

pub mod batch;
pub mod channel;
pub mod firmware;
pub mod io;
pub mod lily;
pub mod metrics;
pub mod report;
pub mod sensing;
pub mod station;

pub use batch::{Experiment, Run, RunResult};
pub use channel::{Frame, Mailroom, Outbox, Port};
pub use firmware::{ControllerError, ControllerHost, ControllerParams, Firmware};
pub use io::{RobotCommand, Sensors};
pub use lily::{LilyFirmware, Ruleset, RulesetError};
pub use metrics::{LatticeShape, MetricsTracker, RunSummary, Snapshot};
pub use sensing::{sensors_for, SensingConfig};
pub use station::{BaseStation, PumpSchedule};
