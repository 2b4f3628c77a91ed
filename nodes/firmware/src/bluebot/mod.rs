//! Bluebot firmware (SPEC 3), one per behaviour, each reading only the Bluebot contract
//! (blobs, paired neighbours, flashes, depth) and commanding fins and LEDs:
//!
//! - [`sync`]: Mirollo-Strogatz flash synchrony;
//! - [`dispersion`]: Lennard-Jones dispersion / aggregation with a switchable d_t;
//! - [`milling`]: the binary wedge-sensor circle;
//! - [`search`]: search, alert and gather as one state machine.
//!
//! [`motion`] is the shared steering (fins from a heading, a speed and a depth);
//! [`Behaviour`] builds any of them from configuration.

pub mod dispersion;
pub mod milling;
pub mod motion;
pub mod search;
pub mod sync;

pub use dispersion::{DispersionFirmware, DispersionParams};
pub use milling::{MillingFirmware, MillingParams};
pub use search::{SearchFirmware, SearchParams, SearchState};
pub use sync::{SyncFirmware, SyncParams};

use flotilla_contract::bluebot::Bluebot;
use flotilla_contract::{robot_seed, Firmware};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// A Bluebot behaviour and its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Behaviour {
    /// Flash synchrony; each robot's counter starts at a random phase drawn from (seed, id).
    Sync(SyncParams),
    /// Lennard-Jones dispersion.
    Dispersion(DispersionParams),
    /// Wedge-sensor milling.
    Milling(MillingParams),
    /// Search / alert / gather.
    Search(SearchParams),
}

impl Behaviour {
    /// The behaviour's name (`sync`, `dispersion`, `milling`, `search`).
    pub fn name(&self) -> &'static str {
        match self {
            Behaviour::Sync(_) => "sync",
            Behaviour::Dispersion(_) => "dispersion",
            Behaviour::Milling(_) => "milling",
            Behaviour::Search(_) => "search",
        }
    }

    /// The behaviour `name` with default parameters.
    pub fn by_name(name: &str) -> Result<Self, String> {
        match name {
            "sync" => Ok(Behaviour::Sync(SyncParams::default())),
            "dispersion" => Ok(Behaviour::Dispersion(DispersionParams::default())),
            "milling" => Ok(Behaviour::Milling(MillingParams::default())),
            "search" => Ok(Behaviour::Search(SearchParams::default())),
            other => Err(format!("unknown Bluebot behaviour `{other}`; expected sync, dispersion, milling or search")),
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Behaviour::Sync(p) => p.validate(),
            Behaviour::Dispersion(p) => p.validate(),
            Behaviour::Milling(p) => p.validate(),
            Behaviour::Search(p) => p.validate(),
        }
    }

    /// The firmware of robot `id` in a run seeded with `seed`.
    pub fn build(&self, seed: u64, id: u32) -> Result<Box<dyn Firmware<Bluebot>>, String> {
        self.validate()?;
        Ok(match *self {
            Behaviour::Sync(p) => {
                let start = rand_chacha::ChaCha8Rng::seed_from_u64(robot_seed(seed, id)).gen_range(0.0..p.period);
                Box::new(SyncFirmware::new(p, start))
            }
            Behaviour::Dispersion(p) => Box::new(DispersionFirmware::new(p)),
            Behaviour::Milling(p) => Box::new(MillingFirmware::new(p)),
            Behaviour::Search(p) => Box::new(SearchFirmware::new(p, seed, id)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaviours_by_name_and_bad_ones_say_why() {
        for name in ["sync", "dispersion", "milling", "search"] {
            let b = Behaviour::by_name(name).unwrap();
            assert_eq!(b.name(), name);
            assert!(b.build(3, 1).is_ok());
        }
        assert!(Behaviour::by_name("schooling").unwrap_err().contains("unknown Bluebot behaviour `schooling`"));
        let bad = Behaviour::Milling(MillingParams { alpha: -1.0, ..MillingParams::default() });
        assert!(bad.build(0, 0).err().unwrap_or_default().contains("alpha"));
    }
}
