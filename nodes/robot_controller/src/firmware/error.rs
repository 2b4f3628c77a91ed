use crate::channel::FrameError;
use flotilla_common::catalogue::UnknownKind;

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
    /// A catalogue kind without firmware (a passive object).
    #[error("robot `{robot}`: kind `{kind}` has no firmware (passive module); controllers exist for: lily, mhp_square, mhp_cube")]
    NoFirmware {
        /// Robot name.
        robot: String,
        /// Its kind.
        kind: String,
    },
    /// A Lily without a ruleset.
    #[error("robot `{robot}`: a Lily needs a ruleset and none was given")]
    MissingRuleset {
        /// Robot name.
        robot: String,
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
    /// The firmware's outgoing messages cannot be framed.
    #[error("robot `{robot}`: {source}")]
    Outbox {
        /// Robot name.
        robot: String,
        /// The framing error.
        source: FrameError,
    },
}
