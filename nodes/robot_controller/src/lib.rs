//! Robot controller hosting for Flotilla (DESIGN `robot_controller`): many robots'
//! firmware in one process, fed only their own readings, plus the Lily base station.
//!
//! - [`firmware`]: the [`ControllerHost`] running many robots' firmware (any system,
//!   built through `flotilla_firmware::registry`) and the robot selection of a process.
//! - [`kilobot`]: the Kilobot self-assembly scene (shape from an image, seeds, the
//!   start layout, ids and headings) that the in-process experiments and the ROS swarm
//!   host build the same way.
//! - [`station`]: the base station (radio broadcast, state collection) and the pump
//!   schedule (centralised stirring).
//! - [`metrics`]: structures recognised up to rotation, yield, assembly rate, wrong
//!   attachments.
//! - [`report`]: the metrics CSV the base station logs.
//!
//! The hardware contract is `flotilla_contract`; the firmware is `flotilla_firmware`
//! ([`lily`] is re-exported from it). Pure library: no ROS; I/O only in the ruleset reader,
//! the shape image reader and the report writers.

pub mod firmware;
pub mod kilobot;
pub mod metrics;
pub mod report;
pub mod station;

pub use flotilla_firmware::lily;

pub use firmware::{ControllerError, ControllerHost, ControllerParams};
pub use lily::{LilyFirmware, Ruleset, RulesetError};
pub use metrics::{LatticeShape, MetricsTracker, RunSummary, Snapshot};
pub use station::{BaseStation, PumpSchedule};

#[cfg(test)]
pub(crate) mod tests_support {
    pub(crate) fn chain4() -> crate::Ruleset {
        crate::Ruleset::shipped("chain4").unwrap()
    }
}
