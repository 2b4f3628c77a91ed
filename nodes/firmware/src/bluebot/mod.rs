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

pub use dispersion::{DispersionFirmware, DispersionGait, DispersionParams};
pub use milling::{MillingFirmware, MillingParams};
pub use search::{SearchFirmware, SearchParams, SearchState};
pub use sync::{SyncFirmware, SyncParams};

use flotilla_contract::bluebot::Bluebot;
use flotilla_contract::{robot_seed, Firmware};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// The scalar parameters of a behaviour's parameter struct, by field name: the names a host
/// exposes (ROS parameters) and a validated copy with one of them changed.
macro_rules! scalar_parameters {
    ($ty:ty, $label:literal, [$($field:ident),*]) => {
        impl $ty {
            /// Names of the scalar parameters (each settable while running).
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            /// The scalar parameters, by name.
            pub fn scalars(&self) -> Vec<(&'static str, f64)> {
                vec![$((stringify!($field), self.$field)),*]
            }

            /// A copy with parameter `name` set to `value`, validated; the error names the
            /// parameter and its range.
            pub fn with(&self, name: &str, value: f64) -> Result<Self, String> {
                self.with_all(&[(name, value)])
            }

            /// A copy with every `(name, value)` set, validated once at the end (so a set of
            /// values is judged as a whole, whatever their order).
            pub fn with_all(&self, values: &[(&str, f64)]) -> Result<Self, String> {
                let mut p = *self;
                for &(name, value) in values {
                    match name {
                        $(stringify!($field) => p.$field = value,)*
                        other => return Err(format!("{} has no parameter `{other}` (known: {})", $label, Self::NAMES.join(", "))),
                    }
                }
                p.validate()?;
                Ok(p)
            }
        }
    };
}

scalar_parameters!(SyncParams, "sync", [period, flash, coupling, exponent, depth]);
scalar_parameters!(
    DispersionParams,
    "dispersion",
    [target_distance, a, b, full_speed_force, dead_band, min_caudal, vertical_speed, min_depth, max_depth]
);
scalar_parameters!(MillingParams, "milling", [alpha, rho, caudal, pectoral, depth]);
scalar_parameters!(SearchParams, "search", [wander_speed, wander_period, turn_rate, lost_after]);

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

    /// The behaviour's scalar parameters, by name (the names [`Behaviour::with`] takes).
    pub fn scalars(&self) -> Vec<(&'static str, f64)> {
        match self {
            Behaviour::Sync(p) => p.scalars(),
            Behaviour::Dispersion(p) => p.scalars(),
            Behaviour::Milling(p) => p.scalars(),
            Behaviour::Search(p) => p.scalars(),
        }
    }

    /// The same behaviour with scalar parameter `name` set to `value`, validated (the
    /// error names the parameter, its range, or the names the behaviour has).
    pub fn with(&self, name: &str, value: f64) -> Result<Self, String> {
        self.with_all(&[(name, value)])
    }

    /// The same behaviour with every `(name, value)` set, validated as a whole.
    pub fn with_all(&self, values: &[(&str, f64)]) -> Result<Self, String> {
        Ok(match self {
            Behaviour::Sync(p) => Behaviour::Sync(p.with_all(values)?),
            Behaviour::Dispersion(p) => Behaviour::Dispersion(p.with_all(values)?),
            Behaviour::Milling(p) => Behaviour::Milling(p.with_all(values)?),
            Behaviour::Search(p) => Behaviour::Search(p.with_all(values)?),
        })
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
        let milling = Behaviour::by_name("milling").unwrap();
        let wider = milling.with("alpha", 0.3).unwrap();
        assert!(wider.scalars().contains(&("alpha", 0.3)));
        assert!(milling.with("alpha", 2.0).unwrap_err().contains("milling alpha must be in (0, pi/2)"));
        assert!(milling.with("target_distance", 1.0).unwrap_err().contains("milling has no parameter `target_distance` (known: alpha,"));
        let d = Behaviour::by_name("dispersion").unwrap();
        assert!(d.with("b", 14.0).is_err(), "a = 12 > b fails alone");
        assert!(d.with_all(&[("b", 14.0), ("a", 28.0)]).is_ok(), "judged as a whole");
        assert!(d.with("target_distance", f64::INFINITY).is_ok() && d.with("target_distance", 0.0).is_err());
        for name in ["sync", "dispersion", "milling", "search"] {
            let b = Behaviour::by_name(name).unwrap();
            for (key, value) in b.scalars() {
                assert_eq!(b.with(key, value).unwrap(), b, "{name}.{key} round trip");
                let mut fw = b.build(1, 0).unwrap();
                assert!(fw.set_parameter(key, value).is_ok(), "{name}.{key} live");
                assert!(fw.set_parameter(key, f64::NAN).is_err(), "{name}.{key} = NaN refused");
            }
        }
        let bad = Behaviour::Milling(MillingParams { alpha: -1.0, ..MillingParams::default() });
        assert!(bad.build(0, 0).err().unwrap_or_default().contains("alpha"));
    }
}
