use crate::config::ConfigError;
use flotilla_common::catalogue::{ModuleKind, UnknownKind};

/// Why a world operation failed.
#[derive(Debug, thiserror::Error)]
pub enum PhysicsError {
    /// The configuration is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A kind name that is not in the catalogue (the message lists the known ones).
    #[error(transparent)]
    UnknownKind(#[from] UnknownKind),
    /// A body with that name exists.
    #[error("spawn `{name}`: the name is taken")]
    NameTaken {
        /// The requested name.
        name: String,
    },
    /// The name cannot be a ROS namespace.
    #[error("spawn `{name}`: {reason}")]
    InvalidName {
        /// The requested name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The pose is NaN or infinite.
    #[error("spawn `{name}`: pose must be finite")]
    NonFinitePose {
        /// The requested name.
        name: String,
    },
    /// The module would not fit inside the arena there.
    #[error("spawn `{name}`: ({x}, {y}) m is outside the arena's free area")]
    OutsideArena {
        /// The requested name.
        name: String,
        /// Requested x, m.
        x: f64,
        /// Requested y, m.
        y: f64,
    },
    /// The module would overlap another.
    #[error("spawn `{name}`: overlaps `{other}`")]
    Overlap {
        /// The requested name.
        name: String,
        /// The body in the way.
        other: String,
    },
    /// Random placement found no free spot.
    #[error("spawn `{name}`: no free spot found in {attempts} attempts (arena too full?)")]
    NoRoom {
        /// The requested name.
        name: String,
        /// Attempts made.
        attempts: usize,
    },
    /// A floating or swimming module in an arena without water.
    #[error("{kind} needs water; the {arena} arena has none")]
    NeedsWater {
        /// The kind.
        kind: ModuleKind,
        /// The arena's name.
        arena: &'static str,
    },
    /// A kind the configured medium cannot hold (a floater on a dry table in a tank).
    #[error("{kind} cannot live in the {medium} medium")]
    WrongMedium {
        /// The kind.
        kind: ModuleKind,
        /// The medium's configuration name.
        medium: &'static str,
    },
    /// No body has that id.
    #[error("no body with id {id}")]
    NoSuchBody {
        /// The id asked for.
        id: u32,
    },
    /// A command that does not fit the body.
    #[error("command for `{name}`: {message}")]
    BadCommand {
        /// The body's name.
        name: String,
        /// What is wrong.
        message: String,
    },
}
