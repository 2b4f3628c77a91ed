//! The host that runs many robots' firmware in one process (in-process batch runs and the
//! ROS node alike). The firmware itself lives in `flotilla_firmware`, written against the
//! hardware contract (`flotilla_contract`) only.

pub mod behaviour;
mod error;
mod host;
mod selection;

pub use error::ControllerError;
pub use host::{build_firmware, has_firmware, ControllerHost, ControllerParams, RobotSide};
pub use selection::{check_kind, RobotEntry, Selection, SelectionError};
