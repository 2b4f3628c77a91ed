//! Firmware: one robot's controller, fed only that robot's own sensor reading, and the host
//! that runs many of them in one process (in-process batch runs and the ROS node alike).

mod error;
mod host;
mod mhp;
mod selection;

pub use error::ControllerError;
pub use host::{build_firmware, has_firmware, ControllerHost, ControllerParams, RobotSide};
pub use mhp::MhpReactive;
pub use selection::{RobotEntry, Selection, SelectionError};

use crate::channel::Outbox;
use crate::io::{RobotCommand, Sensors};

/// One robot's controller. It sees nothing but its own [`Sensors`] (including the bytes
/// its neighbours and the base station sent it) and answers with a [`RobotCommand`];
/// messages go into `outbox`, which the host encodes into `RobotCommand::radio_tx`. All of
/// its randomness is its own, seeded from (run seed, robot id), so the same readings give
/// the same commands wherever it runs.
pub trait Firmware: Send {
    /// One control step at sim time `time`, s.
    fn step(&mut self, time: f64, sensors: &Sensors, outbox: &mut Outbox) -> RobotCommand;

    /// The controller and its internal state in a few words (logs, status queries).
    fn status(&self) -> String;
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
}
