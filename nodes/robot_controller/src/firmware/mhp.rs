//! The decentralised Modular Hydraulic Propulsion controller (SPEC 5): a thruster fires iff
//! its face is not connected and does not see the target. No memory, no messages.

use super::Firmware;
use crate::channel::Outbox;
use crate::io::{RobotCommand, Sensors};

/// The reactive MHP controller.
#[derive(Clone, Copy, Debug, Default)]
pub struct MhpReactive;

impl Firmware for MhpReactive {
    fn step(&mut self, _time: f64, sensors: &Sensors, _outbox: &mut Outbox) -> RobotCommand {
        if sensors.contact.len() != sensors.target_seen.len() {
            tracing::warn!(
                contact = sensors.contact.len(),
                target = sensors.target_seen.len(),
                "MHP reading with mismatched faces; holding"
            );
            return RobotCommand::default();
        }
        let thrust = sensors.contact.iter().zip(&sensors.target_seen).map(|(&c, &t)| if c || t { 0.0 } else { 1.0 }).collect();
        RobotCommand { thrust, ..RobotCommand::default() }
    }

    fn status(&self) -> String {
        "mhp_reactive".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_on_free_faces_that_do_not_see_the_target() {
        let sensors =
            Sensors { contact: vec![false, true, false, false], target_seen: vec![true, false, false, false], ..Sensors::default() };
        // Face 0 sees the target, face 1 is connected: only faces 2 and 3 push.
        let cmd = MhpReactive.step(0.0, &sensors, &mut Outbox::new());
        assert_eq!(cmd.thrust, vec![0.0, 0.0, 1.0, 1.0]);
        assert!(cmd.latch.is_empty() && cmd.radio_tx.is_empty());
    }

    #[test]
    fn mismatched_reading_holds() {
        let sensors = Sensors { contact: vec![false; 4], target_seen: vec![false; 3], ..Sensors::default() };
        assert_eq!(MhpReactive.step(0.0, &sensors, &mut Outbox::new()), RobotCommand::default());
    }
}
