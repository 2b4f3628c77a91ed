//! Every system's reading and command behind one type, for code that serves robots of
//! several systems at once (a controller process hosting Lilies and MHP robots, a
//! physics node publishing all readings). The list of systems is written once, in the
//! `systems!` invocation below: adding a system is one line here plus its module.

use crate::{bluebot, kilobot, lily, mhp, molemod, Firmware, Hardware};
use serde::{Deserialize, Serialize};

/// A [`Hardware`] that is one of the [`System`]s: how its readings and commands go in
/// and out of [`Reading`] and [`Actuation`].
pub trait SystemHardware: Hardware {
    /// Which system.
    const ID: System;
    /// The reading as an any-system reading.
    fn wrap_sensors(sensors: Self::Sensors) -> Reading;
    /// This system's reading, if `reading` is one.
    fn sensors_of(reading: &Reading) -> Option<&Self::Sensors>;
    /// The command as an any-system command.
    fn wrap_command(command: Self::Command) -> Actuation;
    /// This system's command, if `actuation` is one.
    fn command_of(actuation: &Actuation) -> Option<&Self::Command>;
}

macro_rules! systems {
    ($($variant:ident => $hardware:ty),* $(,)?) => {
        /// A robot system of Flotilla.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum System {
            $(
                #[doc = concat!("The `", stringify!($variant), "` system.")]
                $variant,
            )*
        }

        impl System {
            /// Every system.
            pub const ALL: &'static [System] = &[$(System::$variant),*];

            /// The system's name (topics, parameter files), e.g. `lily`.
            pub fn name(self) -> &'static str {
                match self {
                    $(System::$variant => <$hardware as Hardware>::SYSTEM,)*
                }
            }
        }

        /// A reading of any system.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub enum Reading {
            $(
                #[doc = concat!("A `", stringify!($variant), "` reading.")]
                $variant(<$hardware as Hardware>::Sensors),
            )*
        }

        /// A command of any system.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        pub enum Actuation {
            $(
                #[doc = concat!("A `", stringify!($variant), "` command.")]
                $variant(<$hardware as Hardware>::Command),
            )*
        }

        impl Reading {
            /// The system the reading belongs to.
            pub fn system(&self) -> System {
                match self {
                    $(Reading::$variant(_) => System::$variant,)*
                }
            }

            /// Time of the reading, s.
            pub fn stamp(&self) -> f64 {
                match self {
                    $(Reading::$variant(s) => <$hardware as Hardware>::stamp(s),)*
                }
            }
        }

        impl Actuation {
            /// The system the command belongs to.
            pub fn system(&self) -> System {
                match self {
                    $(Actuation::$variant(_) => System::$variant,)*
                }
            }
        }

        $(
            impl SystemHardware for $hardware {
                const ID: System = System::$variant;

                fn wrap_sensors(sensors: Self::Sensors) -> Reading {
                    Reading::$variant(sensors)
                }

                fn sensors_of(reading: &Reading) -> Option<&Self::Sensors> {
                    match reading {
                        Reading::$variant(s) => Some(s),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }

                fn wrap_command(command: Self::Command) -> Actuation {
                    Actuation::$variant(command)
                }

                fn command_of(actuation: &Actuation) -> Option<&Self::Command> {
                    match actuation {
                        Actuation::$variant(c) => Some(c),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*
    };
}

systems! {
    Lily => lily::Lily,
    Mhp => mhp::Mhp,
    Bluebot => bluebot::Bluebot,
    Kilobot => kilobot::Kilobot,
    Molemod => molemod::Molemod,
}

impl std::fmt::Display for System {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A reading of the wrong system for a controller (e.g. an MHP reading for a Lily).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {given} reading cannot drive {expected} firmware")]
pub struct WrongSystem {
    /// The firmware's system.
    pub expected: System,
    /// The reading's system.
    pub given: System,
}

/// Firmware of any system behind one object type: it takes any-system readings and
/// refuses those of another system.
pub trait AnyFirmware: Send {
    /// The system it controls.
    fn system(&self) -> System;
    /// One control step; an error when `reading` belongs to another system.
    fn step(&mut self, time: f64, reading: &Reading) -> Result<Actuation, WrongSystem>;
    /// The controller and its state in a few words.
    fn status(&self) -> String;
    /// Changes a live parameter ([`Firmware::set_parameter`]).
    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), String>;
}

/// A system's firmware as an [`AnyFirmware`].
pub struct Erased<H: SystemHardware>(pub Box<dyn Firmware<H>>);

impl<H: SystemHardware> AnyFirmware for Erased<H> {
    fn system(&self) -> System {
        H::ID
    }

    fn step(&mut self, time: f64, reading: &Reading) -> Result<Actuation, WrongSystem> {
        let sensors = H::sensors_of(reading).ok_or(WrongSystem { expected: H::ID, given: reading.system() })?;
        Ok(H::wrap_command(self.0.step(time, sensors)))
    }

    fn status(&self) -> String {
        self.0.status()
    }

    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), String> {
        self.0.set_parameter(name, value)
    }
}

/// Boxes `firmware` as an [`AnyFirmware`].
pub fn erase<H: SystemHardware>(firmware: impl Firmware<H> + 'static) -> Box<dyn AnyFirmware> {
    Box::new(Erased::<H>(Box::new(firmware)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mhp::{Mhp, MhpCommand, MhpSensors};

    struct AllOn;

    impl Firmware<Mhp> for AllOn {
        fn step(&mut self, _time: f64, sensors: &MhpSensors) -> MhpCommand {
            MhpCommand { thrust: vec![1.0; sensors.connected.len()] }
        }

        fn status(&self) -> String {
            "all on".into()
        }
    }

    #[test]
    fn erased_firmware_takes_its_own_system_only() {
        let mut fw = erase::<Mhp>(AllOn);
        assert_eq!(fw.system(), System::Mhp);
        let reading = Reading::Mhp(MhpSensors { stamp: 1.0, connected: vec![false; 2], target_seen: vec![true; 2], navigation: None });
        assert_eq!(reading.stamp(), 1.0);
        assert_eq!(fw.step(0.0, &reading).unwrap(), Actuation::Mhp(MhpCommand { thrust: vec![1.0, 1.0] }));
        let err = fw.step(0.0, &Reading::Lily(Default::default())).unwrap_err();
        assert_eq!(err.to_string(), "a lily reading cannot drive mhp firmware");
        assert!(fw.set_parameter("gain", 1.0).unwrap_err().contains("no live parameter `gain`"));
        let names: Vec<_> = System::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["lily", "mhp", "bluebot", "kilobot", "molemod"]);
    }
}
