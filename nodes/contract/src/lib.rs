//! The hardware contract of Flotilla's robot systems: what each robot's sensors report,
//! what its actuators take, and the [`Firmware`] trait that turns one into the other.
//!
//! A real robot's driver and the simulator both produce the `Sensors` of a system and obey
//! its `Command`; firmware sees nothing else, so it cannot tell a simulated robot from a
//! real one. This crate has no simulator and no ROS in it (`cargo tree -p
//! flotilla_contract` shows neither): the firmware crate depends on it alone, the simulator
//! and the ROS nodes depend on it, never the reverse.
//!
//! One module per robot system, each with a [`Hardware`] marker type:
//! - [`lily`]: Lily floating modules (latches, top light sensor, latch channel and radio);
//! - [`mhp`]: Modular Hydraulic Propulsion robots (per-face connection and target sensors,
//!   per-face pumps);
//! - [`bluebot`]: Blueswarm fish robots (LED blobs seen by two cameras, depth; fins, LEDs);
//! - [`kilobot`]: Kilobots (IR messages with distance, light; vibration motors, LED);
//! - [`molemod`]: MoleMOD moles (joint encoders; joint motors, head grips).
//!
//! [`frame`] is the byte framing of the Lily radio (latch channel and base station);
//! [`any`] puts every system's reading and command behind one type ([`System`],
//! [`Reading`], [`Actuation`], [`AnyFirmware`]) for hosts that serve several systems.

pub mod any;
pub mod bluebot;
pub mod frame;
pub mod kilobot;
pub mod lily;
pub mod mhp;
pub mod molemod;

pub use any::{erase, Actuation, AnyFirmware, Reading, System, SystemHardware, WrongSystem};
pub use frame::{decode, encode, Frame, FrameError, Outbox, Port};

use std::fmt::Debug;

/// One robot system's hardware: the reading its sensors produce and the command its
/// actuators take. Implemented by a marker type per system (e.g. [`lily::Lily`]).
pub trait Hardware: 'static {
    /// The system's name as topics, parameter files and registries spell it (`lily`).
    const SYSTEM: &'static str;
    /// One reading of one robot's own sensors.
    type Sensors: Clone + Debug + Default + PartialEq + Send + Sync + 'static;
    /// What one robot's firmware asks of its actuators.
    type Command: Clone + Debug + Default + PartialEq + Send + Sync + 'static;

    /// Time of a reading (sim time for a simulated robot), s.
    fn stamp(sensors: &Self::Sensors) -> f64;
}

/// One robot's controller. It sees nothing but its own reading (including the messages
/// its neighbours sent it) and answers with a command. All of its randomness is its own,
/// seeded from (run seed, robot id) with [`robot_seed`], so the same readings give the
/// same commands wherever it runs.
pub trait Firmware<H: Hardware>: Send {
    /// One control step at time `time`, s.
    fn step(&mut self, time: f64, sensors: &H::Sensors) -> H::Command;

    /// The controller and its internal state in a few words (logs, status queries).
    fn status(&self) -> String;

    /// Changes the live parameter `name` to `value` while running, keeping the firmware's
    /// state; an error (the parameter is unknown or the value out of range) says why and
    /// leaves the firmware as it was. Firmware without live parameters refuses every name.
    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), String> {
        let _ = value;
        Err(format!("this firmware has no live parameter `{name}`"))
    }
}

/// A boxed firmware is a firmware (so that a firmware chosen at run time can be erased).
impl<H: Hardware> Firmware<H> for Box<dyn Firmware<H>> {
    fn step(&mut self, time: f64, sensors: &H::Sensors) -> H::Command {
        (**self).step(time, sensors)
    }

    fn status(&self) -> String {
        (**self).status()
    }

    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), String> {
        (**self).set_parameter(name, value)
    }
}

/// Wraps an angle to (-pi, pi], rad (headings, bearings and turn errors of every system).
pub fn wrap_angle(angle: f64) -> f64 {
    let a = angle.rem_euclid(std::f64::consts::TAU);
    if a > std::f64::consts::PI {
        a - std::f64::consts::TAU
    } else {
        a
    }
}

/// Seed of robot `robot`'s own random stream in a run seeded with `seed` (splitmix64 of
/// both, so neighbouring ids give unrelated streams).
pub fn robot_seed(seed: u64, robot: u32) -> u64 {
    fn splitmix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    splitmix(seed ^ splitmix(u64::from(robot)))
}

/// Time `seconds` as a ROS stamp carries it (whole seconds and nanoseconds, rounded like
/// `flotilla_common::ros::time_msg`), read back the way a receiver does
/// (`sec + nanosec * 1e-9`). Readings carry this time, so firmware sees the same time
/// in-process and over ROS, to the last bit.
pub fn stamp_seconds(seconds: f64) -> f64 {
    let s = seconds.max(0.0);
    let mut sec = s.floor();
    let mut nanosec = ((s - sec) * 1e9).round();
    if nanosec >= 1e9 {
        sec += 1.0;
        nanosec -= 1e9;
    }
    sec + nanosec * 1e-9
}

/// A command value outside what the actuator takes.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("command for `{robot}`: {field} = {value} is not in [{min}, {max}]")]
pub struct OutOfRange {
    /// Robot name.
    pub robot: String,
    /// The field and index, e.g. `thrust[2]`.
    pub field: String,
    /// The value given.
    pub value: f64,
    /// Smallest value taken.
    pub min: f64,
    /// Largest value taken.
    pub max: f64,
}

/// Checks that every value of `values` (the array field `field`) is finite and in
/// [`min`, `max`].
pub fn check_range(robot: &str, field: &str, values: &[f64], min: f64, max: f64) -> Result<(), OutOfRange> {
    match values.iter().enumerate().find(|(_, v)| !(min..=max).contains(*v)) {
        Some((i, &value)) => Err(OutOfRange { robot: robot.to_owned(), field: format!("{field}[{i}]"), value, min, max }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_by_hand() {
        // splitmix64 of 0 (first output of the reference generator seeded with 0).
        fn first(z: u64) -> u64 {
            let z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        assert_eq!(first(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(robot_seed(0, 0), first(first(0)));
        assert_ne!(robot_seed(1, 2), robot_seed(1, 3));
        assert_ne!(robot_seed(1, 2), robot_seed(2, 2));
    }

    #[test]
    fn stamps_keep_whole_nanoseconds() {
        // 0.1 s = 0 s + 100 000 000 ns; read back as 1e8 * 1e-9.
        assert_eq!(stamp_seconds(0.1), 100_000_000.0 * 1e-9);
        assert_eq!(stamp_seconds(12.025), 12.0 + 25_000_000.0 * 1e-9);
        assert_eq!(stamp_seconds(0.999_999_999_9), 1.0);
        assert_eq!(stamp_seconds(-1.0), 0.0);
    }

    #[test]
    fn range_errors_name_robot_field_and_index() {
        assert!(check_range("r", "thrust", &[0.0, 1.0], 0.0, 1.0).is_ok());
        for bad in [1.5, -0.1, f64::NAN, f64::INFINITY] {
            let err = check_range("mhp_3", "thrust", &[0.0, bad], 0.0, 1.0).unwrap_err().to_string();
            assert!(err.contains("mhp_3") && err.contains("thrust[1]"), "{err}");
        }
    }
}
