//! The hardware contract on ROS: each robot system's sensor and command types
//! (`flotilla_contract`) as their `flotilla_msgs` messages, field for field. A real
//! robot's driver publishes the sensor message and obeys the command message; the physics
//! node and the controller host convert with [`RosHardware`] and nothing else. Systems
//! of swarms of small robots also have batched messages ([`RosBatch`]): every robot's
//! reading of a tick in one message, commands of many robots in one message.

use crate::ros::header;
use flotilla_contract::bluebot::{Blob, Bluebot, BluebotCommand, BluebotSensors, Camera, Flash, Neighbour};
use flotilla_contract::kilobot::{IrMessage, Kilobot, KilobotCommand, KilobotSensors};
use flotilla_contract::lily::{Lily, LilyCommand, LilySensors};
use flotilla_contract::mhp::{Mhp, MhpCommand, MhpSensors};
use flotilla_contract::molemod::{Molemod, MolemodCommand, MolemodSensors};
use flotilla_contract::SystemHardware;
use r2r::flotilla_msgs::msg as m;
use r2r::std_msgs::msg::Header;

/// A system's contract types as ROS messages.
pub trait RosHardware: SystemHardware {
    /// The `<robot>/sensors` message.
    type SensorsMsg: r2r::WrappedTypesupport + Clone + Send + 'static;
    /// The `<robot>/cmd` message.
    type CommandMsg: r2r::WrappedTypesupport + Clone + Send + 'static;

    /// A reading as its message; `frame` names the robot's body frame.
    fn sensors_msg(sensors: &Self::Sensors, frame: &str) -> Self::SensorsMsg;
    /// A sensor message as the reading (a real robot's driver on the other side).
    fn sensors_from_msg(msg: Self::SensorsMsg) -> Self::Sensors;
    /// A command as its message, stamped with the time of the reading it answers.
    fn command_msg(command: &Self::Command, stamp: f64) -> Self::CommandMsg;
    /// A command message as the command and the stamp of the reading it answers, s.
    fn command_from_msg(msg: Self::CommandMsg) -> (Self::Command, f64);
}

/// A system whose readings and commands also travel batched: one `/<system>/sensors`
/// message per tick for every robot, one `/<system>/cmd` message for many robots' commands
/// (each element keeps its own header: a command's stamp names the reading it answers).
pub trait RosBatch: RosHardware {
    /// The `/<system>/sensors` message.
    type SensorsBatchMsg: r2r::WrappedTypesupport + Clone + Send + 'static;
    /// The `/<system>/cmd` message.
    type CommandBatchMsg: r2r::WrappedTypesupport + Clone + Send + 'static;

    /// Readings of the tick at `stamp` (s), by robot name.
    fn sensors_batch_msg(stamp: f64, readings: Vec<(String, Self::SensorsMsg)>) -> Self::SensorsBatchMsg;
    /// A sensor batch as its tick's stamp (s) and (robot, reading message) pairs.
    fn sensors_from_batch(msg: Self::SensorsBatchMsg) -> (f64, Vec<(String, Self::SensorsMsg)>);
    /// Commands answering readings of the tick at `stamp` (s), by robot name.
    fn command_batch_msg(stamp: f64, commands: Vec<(String, Self::CommandMsg)>) -> Self::CommandBatchMsg;
    /// A command batch as (robot, command message) pairs.
    fn commands_from_batch(msg: Self::CommandBatchMsg) -> Vec<(String, Self::CommandMsg)>;
}

/// [`RosBatch`] for a system whose batch messages are `{ header, robots, <items> }`.
macro_rules! batch {
    ($hardware:ty, $sensors:ident, $commands:ident) => {
        impl RosBatch for $hardware {
            type SensorsBatchMsg = m::$sensors;
            type CommandBatchMsg = m::$commands;

            fn sensors_batch_msg(stamp: f64, readings: Vec<(String, Self::SensorsMsg)>) -> m::$sensors {
                let (robots, readings) = readings.into_iter().unzip();
                m::$sensors { header: header(stamp, ""), robots, readings }
            }

            fn sensors_from_batch(msg: m::$sensors) -> (f64, Vec<(String, Self::SensorsMsg)>) {
                (stamp_of(&msg.header), msg.robots.into_iter().zip(msg.readings).collect())
            }

            fn command_batch_msg(stamp: f64, commands: Vec<(String, Self::CommandMsg)>) -> m::$commands {
                let (robots, commands) = commands.into_iter().unzip();
                m::$commands { header: header(stamp, ""), robots, commands }
            }

            fn commands_from_batch(msg: m::$commands) -> Vec<(String, Self::CommandMsg)> {
                msg.robots.into_iter().zip(msg.commands).collect()
            }
        }
    };
}

batch!(Lily, LilySensorsBatch, LilyCommandBatch);
batch!(Kilobot, KilobotSensorsBatch, KilobotCommandBatch);

/// A header's stamp in seconds, read the way every receiver reads it.
pub fn stamp_of(h: &Header) -> f64 {
    f64::from(h.stamp.sec) + f64::from(h.stamp.nanosec) * 1e-9
}

impl RosHardware for Lily {
    type SensorsMsg = m::LilySensors;
    type CommandMsg = m::LilyCommand;

    fn sensors_msg(s: &LilySensors, frame: &str) -> m::LilySensors {
        m::LilySensors { header: header(s.stamp, frame), latched: s.latched.clone(), light: s.light, radio_rx: s.radio_rx.clone() }
    }

    fn sensors_from_msg(msg: m::LilySensors) -> LilySensors {
        LilySensors { stamp: stamp_of(&msg.header), latched: msg.latched, light: msg.light, radio_rx: msg.radio_rx }
    }

    fn command_msg(c: &LilyCommand, stamp: f64) -> m::LilyCommand {
        m::LilyCommand { header: header(stamp, ""), latch: c.latch.clone(), radio_tx: c.radio_tx.clone() }
    }

    fn command_from_msg(msg: m::LilyCommand) -> (LilyCommand, f64) {
        (LilyCommand { latch: msg.latch, radio_tx: msg.radio_tx }, stamp_of(&msg.header))
    }
}

impl RosHardware for Mhp {
    type SensorsMsg = m::MhpSensors;
    type CommandMsg = m::MhpCommand;

    fn sensors_msg(s: &MhpSensors, frame: &str) -> m::MhpSensors {
        m::MhpSensors { header: header(s.stamp, frame), connected: s.connected.clone(), target_seen: s.target_seen.clone() }
    }

    fn sensors_from_msg(msg: m::MhpSensors) -> MhpSensors {
        MhpSensors { stamp: stamp_of(&msg.header), connected: msg.connected, target_seen: msg.target_seen }
    }

    fn command_msg(c: &MhpCommand, stamp: f64) -> m::MhpCommand {
        m::MhpCommand { header: header(stamp, ""), thrust: c.thrust.clone() }
    }

    fn command_from_msg(msg: m::MhpCommand) -> (MhpCommand, f64) {
        (MhpCommand { thrust: msg.thrust }, stamp_of(&msg.header))
    }
}

impl RosHardware for Bluebot {
    type SensorsMsg = m::BluebotSensors;
    type CommandMsg = m::BluebotCommand;

    fn sensors_msg(s: &BluebotSensors, frame: &str) -> m::BluebotSensors {
        let blob = |b: &Blob| m::BluebotBlob {
            camera: match b.camera {
                Camera::Left => m::BluebotBlob::LEFT as u8,
                Camera::Right => m::BluebotBlob::RIGHT as u8,
            },
            azimuth: b.azimuth,
            elevation: b.elevation,
            pixels: b.pixels,
            red_ratio: b.red_ratio,
        };
        m::BluebotSensors {
            header: header(s.stamp, frame),
            depth: s.depth,
            blobs: s.blobs.iter().map(blob).collect(),
            neighbours: s
                .neighbours
                .iter()
                .map(|n| m::BluebotNeighbour { azimuth: n.azimuth, elevation: n.elevation, distance: n.distance })
                .collect(),
            flashes: s.flashes.iter().map(|f| m::BluebotFlash { azimuth: f.azimuth, elevation: f.elevation }).collect(),
        }
    }

    fn sensors_from_msg(msg: m::BluebotSensors) -> BluebotSensors {
        let blob = |b: m::BluebotBlob| Blob {
            camera: if b.camera == m::BluebotBlob::RIGHT as u8 { Camera::Right } else { Camera::Left },
            azimuth: b.azimuth,
            elevation: b.elevation,
            pixels: b.pixels,
            red_ratio: b.red_ratio,
        };
        BluebotSensors {
            stamp: stamp_of(&msg.header),
            depth: msg.depth,
            blobs: msg.blobs.into_iter().map(blob).collect(),
            neighbours: msg
                .neighbours
                .into_iter()
                .map(|n| Neighbour { azimuth: n.azimuth, elevation: n.elevation, distance: n.distance })
                .collect(),
            flashes: msg.flashes.into_iter().map(|f| Flash { azimuth: f.azimuth, elevation: f.elevation }).collect(),
        }
    }

    fn command_msg(c: &BluebotCommand, stamp: f64) -> m::BluebotCommand {
        m::BluebotCommand {
            header: header(stamp, ""),
            caudal: c.caudal,
            pectoral_left: c.pectoral_left,
            pectoral_right: c.pectoral_right,
            dorsal: c.dorsal,
            leds: c.leds,
            flashing: c.flashing,
        }
    }

    fn command_from_msg(msg: m::BluebotCommand) -> (BluebotCommand, f64) {
        let command = BluebotCommand {
            caudal: msg.caudal,
            pectoral_left: msg.pectoral_left,
            pectoral_right: msg.pectoral_right,
            dorsal: msg.dorsal,
            leds: msg.leds,
            flashing: msg.flashing,
        };
        (command, stamp_of(&msg.header))
    }
}

impl RosHardware for Kilobot {
    type SensorsMsg = m::KilobotSensors;
    type CommandMsg = m::KilobotCommand;

    fn sensors_msg(s: &KilobotSensors, frame: &str) -> m::KilobotSensors {
        let message = |ir: &IrMessage| m::KilobotMessage { payload: ir.payload.clone(), distance: ir.distance };
        m::KilobotSensors { header: header(s.stamp, frame), light: s.light, messages: s.messages.iter().map(message).collect() }
    }

    fn sensors_from_msg(msg: m::KilobotSensors) -> KilobotSensors {
        let message = |ir: m::KilobotMessage| IrMessage { payload: ir.payload, distance: ir.distance };
        KilobotSensors { stamp: stamp_of(&msg.header), light: msg.light, messages: msg.messages.into_iter().map(message).collect() }
    }

    fn command_msg(c: &KilobotCommand, stamp: f64) -> m::KilobotCommand {
        m::KilobotCommand {
            header: header(stamp, ""),
            motor_left: c.motor_left,
            motor_right: c.motor_right,
            led: c.led.to_vec(),
            message: c.message.clone(),
        }
    }

    fn command_from_msg(msg: m::KilobotCommand) -> (KilobotCommand, f64) {
        // A fixed-size array on the wire: r2r checks its length on publish.
        let led = [0, 1, 2].map(|i| msg.led.get(i).copied().unwrap_or(0.0));
        (KilobotCommand { motor_left: msg.motor_left, motor_right: msg.motor_right, led, message: msg.message }, stamp_of(&msg.header))
    }
}

impl RosHardware for Molemod {
    type SensorsMsg = m::MolemodSensors;
    type CommandMsg = m::MolemodCommand;

    fn sensors_msg(s: &MolemodSensors, frame: &str) -> m::MolemodSensors {
        // Joint names come from the model; the contract carries positions in its order.
        m::MolemodSensors { header: header(s.stamp, frame), joints: Vec::new(), positions: s.joint_positions.clone() }
    }

    fn sensors_from_msg(msg: m::MolemodSensors) -> MolemodSensors {
        MolemodSensors { stamp: stamp_of(&msg.header), joint_positions: msg.positions }
    }

    fn command_msg(c: &MolemodCommand, stamp: f64) -> m::MolemodCommand {
        m::MolemodCommand { header: header(stamp, ""), joint_velocities: c.joint_velocities.clone(), head_grip: c.head_grip.clone() }
    }

    fn command_from_msg(msg: m::MolemodCommand) -> (MolemodCommand, f64) {
        (MolemodCommand { joint_velocities: msg.joint_velocities, head_grip: msg.head_grip }, stamp_of(&msg.header))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<H: RosHardware>(sensors: H::Sensors, command: H::Command) {
        let back = H::sensors_from_msg(H::sensors_msg(&sensors, "r/base_link"));
        assert_eq!(back, sensors);
        let (c, stamp) = H::command_from_msg(H::command_msg(&command, 2.5));
        assert_eq!(c, command);
        assert_eq!(stamp, 2.5);
    }

    #[test]
    fn batches_keep_robots_and_their_items_paired() {
        let reading = |light| Lily::sensors_msg(&LilySensors { stamp: 0.5, light, ..LilySensors::default() }, "");
        let batch = Lily::sensors_batch_msg(0.5, vec![("a".into(), reading(0.1)), ("b".into(), reading(0.2))]);
        let (stamp, back) = Lily::sensors_from_batch(batch);
        assert_eq!(stamp, 0.5);
        assert_eq!(back.iter().map(|(n, r)| (n.as_str(), r.light)).collect::<Vec<_>>(), vec![("a", 0.1), ("b", 0.2)]);
        let command = Kilobot::command_msg(&KilobotCommand { motor_left: 1.0, ..KilobotCommand::default() }, 0.5);
        let back = Kilobot::commands_from_batch(Kilobot::command_batch_msg(0.5, vec![("k".into(), command)]));
        assert_eq!((back[0].0.as_str(), back[0].1.motor_left), ("k", 1.0));
    }

    #[test]
    fn every_system_round_trips_through_its_messages() {
        round_trip::<Lily>(
            LilySensors { stamp: 1.25, latched: vec![true, false, false, true], light: 0.5, radio_rx: vec![255, 1, 0, 7] },
            LilyCommand { latch: vec![true; 4], radio_tx: vec![0, 0, 0] },
        );
        round_trip::<Mhp>(
            MhpSensors { stamp: 0.5, connected: vec![true, false], target_seen: vec![false, true] },
            MhpCommand { thrust: vec![1.0, 0.0] },
        );
        let blob = Blob { camera: Camera::Right, azimuth: 0.3, elevation: -0.1, pixels: 12, red_ratio: 0.4 };
        round_trip::<Bluebot>(
            BluebotSensors {
                stamp: 3.0,
                depth: 0.4,
                blobs: vec![blob, Blob::default()],
                neighbours: vec![Neighbour { azimuth: 0.2, elevation: 0.1, distance: 0.7 }],
                flashes: vec![Flash { azimuth: -1.0, elevation: 0.3 }],
            },
            BluebotCommand { caudal: 3.0, pectoral_left: 6.0, pectoral_right: 0.0, dorsal: 1.0, leds: true, flashing: true },
        );
        round_trip::<Kilobot>(
            KilobotSensors { stamp: 0.125, light: 0.7, messages: vec![IrMessage { payload: vec![1, 2, 3], distance: 0.05 }] },
            KilobotCommand { motor_left: 1.0, motor_right: 0.0, led: [0.0, 1.0, 0.0], message: vec![9; 9] },
        );
        round_trip::<Molemod>(
            MolemodSensors { stamp: 0.002, joint_positions: vec![0.01, -0.2] },
            MolemodCommand { joint_velocities: vec![0.02, 0.0], head_grip: vec![true, false] },
        );
    }
}
