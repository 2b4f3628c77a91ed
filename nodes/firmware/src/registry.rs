//! The firmware each robot system offers, built from configuration: the one place a host
//! (the `robot_controller` node, in-process experiments) learns which controller runs a
//! robot of a given system.

use crate::bluebot::Behaviour;
use crate::lily::{LilyFirmware, Ruleset};
use crate::mhp::MhpReactive;
use flotilla_contract::bluebot::Bluebot;
use flotilla_contract::lily::Lily;
use flotilla_contract::mhp::Mhp;
use flotilla_contract::{erase, AnyFirmware, System};
use std::sync::Arc;

/// What firmware is built from.
#[derive(Clone, Debug, Default)]
pub struct FirmwareParams {
    /// Run seed; each robot's firmware draws from (seed, robot id).
    pub seed: u64,
    /// Ruleset of every Lily.
    pub lily_ruleset: Option<Arc<Ruleset>>,
    /// Behaviour of every Bluebot.
    pub bluebot: Option<Behaviour>,
}

/// Why a robot's firmware cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// The system has no firmware that runs from configuration alone.
    #[error("no firmware for {system} robots is built from configuration; firmware exists for: {known}")]
    NoFirmware {
        /// The robot's system.
        system: System,
        /// Systems with firmware, comma separated.
        known: String,
    },
    /// A Lily without a ruleset.
    #[error("a Lily needs a ruleset and none was given")]
    MissingRuleset,
    /// A Bluebot without a behaviour.
    #[error("a Bluebot needs a behaviour (sync, dispersion, milling or search) and none was given")]
    MissingBehaviour,
    /// A Bluebot behaviour with parameters out of range.
    #[error("Bluebot behaviour: {0}")]
    Behaviour(String),
}

/// Systems whose firmware [`build`] makes.
pub const SYSTEMS_WITH_FIRMWARE: &[System] = &[System::Lily, System::Mhp, System::Bluebot];

/// The firmware of robot `id` of `system`.
pub fn build(system: System, id: u32, params: &FirmwareParams) -> Result<Box<dyn AnyFirmware>, BuildError> {
    match system {
        System::Lily => {
            let rules = params.lily_ruleset.clone().ok_or(BuildError::MissingRuleset)?;
            Ok(erase::<Lily>(LilyFirmware::new(rules, id, params.seed)))
        }
        System::Mhp => Ok(erase::<Mhp>(MhpReactive)),
        System::Bluebot => {
            let behaviour = params.bluebot.ok_or(BuildError::MissingBehaviour)?;
            behaviour.build(params.seed, id).map(erase::<Bluebot>).map_err(BuildError::Behaviour)
        }
        // A mole's joint control is set up per motion (its targets come from the motion
        // being executed); Kilobot firmware comes with its system.
        System::Molemod | System::Kilobot => {
            Err(BuildError::NoFirmware { system, known: SYSTEMS_WITH_FIRMWARE.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ") })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_system_builds_and_the_others_say_why() {
        let params = FirmwareParams {
            seed: 1,
            lily_ruleset: Some(Arc::new(crate::lily::tests_support::chain4())),
            bluebot: Some(Behaviour::by_name("milling").unwrap()),
        };
        for &system in System::ALL {
            let built = build(system, 0, &params);
            assert_eq!(built.is_ok(), SYSTEMS_WITH_FIRMWARE.contains(&system), "{system}");
            if let Ok(fw) = built {
                assert_eq!(fw.system(), system);
            }
        }
        let err = build(System::Kilobot, 0, &params).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("kilobot") && err.contains("lily, mhp, bluebot"), "{err}");
        assert_eq!(build(System::Bluebot, 0, &FirmwareParams::default()).err(), Some(BuildError::MissingBehaviour));
        assert_eq!(build(System::Lily, 0, &FirmwareParams::default()).err(), Some(BuildError::MissingRuleset));
    }
}
