//! Per-robot controllers for Flotilla (SPEC 1 self-assembly; DESIGN `robot_controller`).
//!
//! - [`io`], [`channel`], [`sensing`]: the hardware contract ([`Sensors`], [`RobotCommand`]),
//!   the framed latch-channel / radio bytes and the world-side sensing. They live in
//!   `tank_physics::robots` (the physics node publishes the readings and delivers the
//!   messages) and are re-exported here for the firmware.
//! - [`firmware`]: the [`Firmware`] trait and the [`ControllerHost`] running many robots.
//! - [`lily`]: YAML rulesets and the Lily firmware that runs them.
//! - [`station`]: the base station (radio broadcast, state collection) and the pump
//!   schedule (centralised stirring).
//! - [`metrics`]: structures recognised up to rotation, yield, assembly rate, wrong
//!   attachments.
//! - [`report`]: the metrics CSV the base station logs.
//!
//! Pure library: no ROS; I/O only in the ruleset reader and the report writers.

pub mod firmware;
pub mod lily;
pub mod metrics;
pub mod report;
pub mod station;

pub use tank_physics::robots::{channel, io, sensing};

pub use channel::{Frame, Mailroom, Outbox, Port};
pub use firmware::{ControllerError, ControllerHost, ControllerParams, Firmware};
pub use io::{RobotCommand, Sensors};
pub use lily::{LilyFirmware, Ruleset, RulesetError};
pub use metrics::{LatticeShape, MetricsTracker, RunSummary, Snapshot};
pub use sensing::{sensors_for, SensingConfig};
pub use station::{BaseStation, PumpSchedule};
