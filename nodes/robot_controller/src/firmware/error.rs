use flotilla_common::catalogue::UnknownKind;
use flotilla_contract::WrongSystem;
use flotilla_firmware::registry::BuildError;

/// Why a controller cannot be created or run.
#[derive(Debug, thiserror::Error)]
pub enum ControllerError {
    /// The robot kind is not in the catalogue (the message lists the known ones).
    #[error("robot `{robot}`: {source}")]
    UnknownKind {
        /// Robot name.
        robot: String,
        /// The catalogue's error.
        source: UnknownKind,
    },
    /// A catalogue kind of no robot system (a passive object).
    #[error("robot `{robot}`: kind `{kind}` has no firmware (passive module)")]
    NoFirmware {
        /// Robot name.
        robot: String,
        /// Its kind.
        kind: String,
    },
    /// The firmware registry could not build the robot's controller.
    #[error("robot `{robot}`: {source}")]
    Build {
        /// Robot name.
        robot: String,
        /// The registry's error.
        source: BuildError,
    },
    /// No hosted robot has that name.
    #[error("no controller for robot `{robot}` (hosted: {hosted})")]
    NoSuchRobot {
        /// The name asked for.
        robot: String,
        /// Names hosted, comma separated.
        hosted: String,
    },
    /// A robot of that name is hosted already.
    #[error("robot `{robot}` already has a controller")]
    DuplicateRobot {
        /// The name.
        robot: String,
    },
    /// A reading of another system than the robot's firmware.
    #[error("robot `{robot}`: {source}")]
    WrongReading {
        /// Robot name.
        robot: String,
        /// Which systems.
        source: WrongSystem,
    },
}
