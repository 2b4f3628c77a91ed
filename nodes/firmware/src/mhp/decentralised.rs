//! The decentralised MHP controller (SPEC 5): a pump fires iff its face is not connected
//! and does not see the target. No memory, no messages, no arithmetic.

use flotilla_contract::mhp::{opposite_face, Mhp, MhpCommand, MhpFirmware, MhpSensors};
use flotilla_contract::Firmware;

/// The reactive MHP controller of the 3-D simulation: every face on its own.
#[derive(Clone, Copy, Debug, Default)]
pub struct MhpReactive;

/// Whether a reading's arrays agree; logs and holds (no pump fires) when not.
fn consistent(sensors: &MhpSensors) -> bool {
    let ok = sensors.connected.len() == sensors.target_seen.len();
    if !ok {
        tracing::warn!(
            connected = sensors.connected.len(),
            target = sensors.target_seen.len(),
            "MHP reading with mismatched faces; holding"
        );
    }
    ok
}

/// The occlusion rule into `thrust`: 1 on free faces that do not see the target.
fn occlusion_rule(sensors: &MhpSensors, thrust: &mut Vec<f64>) {
    thrust.clear();
    if consistent(sensors) {
        thrust.extend(sensors.connected.iter().zip(&sensors.target_seen).map(|(&c, &t)| if c || t { 0.0 } else { 1.0 }));
    }
}

impl MhpFirmware for MhpReactive {
    fn step_into(&mut self, _time: f64, sensors: &MhpSensors, command: &mut MhpCommand) {
        occlusion_rule(sensors, &mut command.thrust);
    }
}

impl Firmware<Mhp> for MhpReactive {
    fn step(&mut self, time: f64, sensors: &MhpSensors) -> MhpCommand {
        let mut command = MhpCommand::default();
        self.step_into(time, sensors, &mut command);
        command
    }

    fn status(&self) -> String {
        "mhp_reactive".into()
    }
}

/// The 2-D prototype's controller (SPEC 5): the occlusion rule per face, then within each
/// module two opposite pumps that would both fire are both switched off (same net force,
/// less power).
#[derive(Clone, Copy, Debug)]
pub struct MhpPrototypeReactive {
    /// Faces per module in the arrays: 4 (squares) or 6 (cubes).
    pub faces_per_module: usize,
}

impl MhpFirmware for MhpPrototypeReactive {
    fn step_into(&mut self, _time: f64, sensors: &MhpSensors, command: &mut MhpCommand) {
        occlusion_rule(sensors, &mut command.thrust);
        let per = self.faces_per_module;
        if per == 0 || command.thrust.len() % per != 0 {
            tracing::warn!(faces = command.thrust.len(), per_module = per, "MHP reading not whole modules; holding");
            command.thrust.clear();
            return;
        }
        for module in command.thrust.chunks_mut(per) {
            for face in (0..per).step_by(2) {
                let other = opposite_face(face);
                if module[face] > 0.0 && module[other] > 0.0 {
                    module[face] = 0.0;
                    module[other] = 0.0;
                }
            }
        }
    }
}

impl Firmware<Mhp> for MhpPrototypeReactive {
    fn step(&mut self, time: f64, sensors: &MhpSensors) -> MhpCommand {
        let mut command = MhpCommand::default();
        self.step_into(time, sensors, &mut command);
        command
    }

    fn status(&self) -> String {
        "mhp_prototype_reactive".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(connected: &[bool], target_seen: &[bool]) -> MhpSensors {
        MhpSensors { connected: connected.to_vec(), target_seen: target_seen.to_vec(), ..MhpSensors::default() }
    }

    #[test]
    fn fires_on_free_faces_that_do_not_see_the_target() {
        let sensors = reading(&[false, true, false, false], &[true, false, false, false]);
        // Face 0 sees the target, face 1 is connected: only faces 2 and 3 push.
        assert_eq!(MhpReactive.step(0.0, &sensors).thrust, vec![0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn mismatched_reading_holds() {
        let sensors = reading(&[false; 4], &[false; 3]);
        assert_eq!(MhpReactive.step(0.0, &sensors), MhpCommand::default());
        assert_eq!(MhpPrototypeReactive { faces_per_module: 4 }.step(0.0, &sensors), MhpCommand::default());
    }

    #[test]
    fn prototype_switches_off_opposite_pairs_only() {
        // Module 0: +x sees the target; -x, +y, -y free and blind: +y/-y both fire -> both off.
        // Module 1: +x connected; -x fires alone; +y sees; -y fires alone.
        let sensors =
            reading(&[false, false, false, false, true, false, false, false], &[true, false, false, false, false, false, true, false]);
        let mut fw = MhpPrototypeReactive { faces_per_module: 4 };
        assert_eq!(fw.step(0.0, &sensors).thrust, vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0]);
        // The per-face rule fires the pair.
        assert_eq!(MhpReactive.step(0.0, &sensors).thrust, vec![0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0]);
        // Seven faces are not whole square modules.
        assert!(fw.step(0.0, &reading(&[false; 7], &[false; 7])).thrust.is_empty());
    }

    #[test]
    fn the_buffer_is_reused() {
        let mut command = MhpCommand { thrust: vec![1.0; 10] };
        MhpReactive.step_into(0.0, &reading(&[false, true], &[false, false]), &mut command);
        assert_eq!(command.thrust, vec![1.0, 0.0]);
    }
}
