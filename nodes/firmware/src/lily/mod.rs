//! Lily self-assembly: rulesets as data ([`ruleset`]), the firmware that runs them
//! ([`LilyFirmware`]) and its messages ([`LilyMessage`]).

mod firmware;
mod protocol;
pub mod ruleset;
pub mod shape;

pub use firmware::{LilyCounters, LilyFirmware};
pub use protocol::{LilyMessage, MessageError};
pub use ruleset::{BondDecision, Ruleset, RulesetError, Side, StateId, SHIPPED_RULESETS};
pub use shape::{Cell, LatticeShape, ShapeError, MAX_SHAPE_CELLS};

#[cfg(test)]
pub(crate) mod tests_support {
    use super::Ruleset;

    pub(crate) fn shipped(name: &str) -> Ruleset {
        Ruleset::shipped(name).unwrap()
    }

    pub(crate) fn chain4() -> Ruleset {
        shipped("chain4")
    }
}
