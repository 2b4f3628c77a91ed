//! The decentralised Modular Hydraulic Propulsion controller (SPEC 5): a pump fires iff
//! its face is not connected and does not see the target. No memory, no messages.

use flotilla_contract::mhp::{Mhp, MhpCommand, MhpSensors};
use flotilla_contract::Firmware;

/// The reactive MHP controller.
#[derive(Clone, Copy, Debug, Default)]
pub struct MhpReactive;

impl Firmware<Mhp> for MhpReactive {
    fn step(&mut self, _time: f64, sensors: &MhpSensors) -> MhpCommand {
        if sensors.connected.len() != sensors.target_seen.len() {
            tracing::warn!(
                connected = sensors.connected.len(),
                target = sensors.target_seen.len(),
                "MHP reading with mismatched faces; holding"
            );
            return MhpCommand::default();
        }
        let thrust = sensors.connected.iter().zip(&sensors.target_seen).map(|(&c, &t)| if c || t { 0.0 } else { 1.0 }).collect();
        MhpCommand { thrust }
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
        let sensors = MhpSensors {
            connected: vec![false, true, false, false],
            target_seen: vec![true, false, false, false],
            ..MhpSensors::default()
        };
        // Face 0 sees the target, face 1 is connected: only faces 2 and 3 push.
        assert_eq!(MhpReactive.step(0.0, &sensors).thrust, vec![0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn mismatched_reading_holds() {
        let sensors = MhpSensors { connected: vec![false; 4], target_seen: vec![false; 3], ..MhpSensors::default() };
        assert_eq!(MhpReactive.step(0.0, &sensors), MhpCommand::default());
    }
}
