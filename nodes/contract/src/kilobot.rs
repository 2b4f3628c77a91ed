//! Kilobot: a 33 mm table-top robot with two vibration motors (forward, turn left, turn
//! right; not holonomic), an RGB LED, a light sensor and infrared messaging to neighbours
//! within about three body diameters with distance sensing (SPEC 4). Swarms of them are
//! exchanged in batches over ROS (`flotilla_msgs/KilobotSensorsBatch` on
//! `/kilobot/sensors`, `KilobotCommandBatch` on `/kilobot/cmd`), one robot per entry.

use crate::{check_range, Hardware, OutOfRange};
use serde::{Deserialize, Serialize};

/// The Kilobot system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kilobot;

impl Hardware for Kilobot {
    const SYSTEM: &'static str = "kilobot";
    type Sensors = KilobotSensors;
    type Command = KilobotCommand;

    fn stamp(sensors: &KilobotSensors) -> f64 {
        sensors.stamp
    }
}

/// Payload bytes of one Kilobot IR message (the kilolib message: 9 data bytes).
pub const MESSAGE_BYTES: usize = 9;

/// One IR message heard from a neighbour. The payload has the kilolib message's fixed
/// size, so a swarm's readings are refilled every tick without allocating.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IrMessage {
    /// The message's data bytes (kilolib `message_t.data`; unused bytes are 0).
    pub payload: [u8; MESSAGE_BYTES],
    /// Distance to the sender estimated from the signal strength, m.
    pub distance: f64,
}

/// One reading of a Kilobot's sensors.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KilobotSensors {
    /// Time of the reading, s.
    pub stamp: f64,
    /// The robot's clock since power-on, ticks (kilolib `kilo_ticks`: about 32 per s on
    /// hardware; one per step on the simulated table, where a step is 32.5 ms).
    pub ticks: u32,
    /// Ambient light, 0..1 of full scale.
    pub light: f64,
    /// Messages heard since the last reading, in arrival order.
    pub messages: Vec<IrMessage>,
    /// The overhead controller's broadcast heard with this reading, if any (kilolib's
    /// system messages: the table hands one to every robot).
    #[serde(default)]
    pub overhead: Option<Overhead>,
}

/// A broadcast of the overhead controller (OHC), the infrared transmitter a Kilobot user
/// holds above the table to start, pause or configure every robot at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Overhead {
    /// Start (or resume) the user program (kilolib `RUN`).
    Run,
    /// Pause the program: motors off, silent, its state kept.
    Pause,
    /// A program-defined message, e.g. a parameter to set (kilolib's data bytes).
    Custom([u8; MESSAGE_BYTES]),
}

impl Overhead {
    /// The command byte on the wire (`flotilla_msgs/KilobotOverhead`: 1 run, 2 pause, 3 custom).
    pub fn command(&self) -> u8 {
        match self {
            Overhead::Run => 1,
            Overhead::Pause => 2,
            Overhead::Custom(_) => 3,
        }
    }

    /// The data bytes (zero but for `Custom`).
    pub fn payload(&self) -> [u8; MESSAGE_BYTES] {
        match self {
            Overhead::Custom(data) => *data,
            _ => [0; MESSAGE_BYTES],
        }
    }

    /// From the wire: `command` 0 is none; a payload longer than a message is refused.
    pub fn from_wire(command: u8, payload: &[u8]) -> Result<Option<Self>, OverheadError> {
        match command {
            0 => Ok(None),
            1 => Ok(Some(Overhead::Run)),
            2 => Ok(Some(Overhead::Pause)),
            3 => {
                if payload.len() > MESSAGE_BYTES {
                    return Err(OverheadError::Payload(payload.len()));
                }
                let mut data = [0; MESSAGE_BYTES];
                data[..payload.len()].copy_from_slice(payload);
                Ok(Some(Overhead::Custom(data)))
            }
            other => Err(OverheadError::Command(other)),
        }
    }
}

/// An overhead message that cannot be one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverheadError {
    /// Not 0 (none), 1 (run), 2 (pause) or 3 (custom).
    #[error("overhead command {0} is not one of 0 (none), 1 (run), 2 (pause), 3 (custom)")]
    Command(u8),
    /// More bytes than a Kilobot message holds.
    #[error("overhead payload of {0} bytes: a Kilobot message holds at most 9")]
    Payload(usize),
}

/// What a Kilobot's firmware asks of its motors, LED and transmitter.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KilobotCommand {
    /// Left vibration motor duty, 0..1 (alone: turns clockwise).
    pub motor_left: f64,
    /// Right vibration motor duty, 0..1 (alone: turns counter-clockwise).
    pub motor_right: f64,
    /// LED colour, red, green, blue, 0..1 each.
    pub led: [f64; 3],
    /// The message the robot keeps sending until it changes (empty: silent).
    pub message: Vec<u8>,
}

impl KilobotCommand {
    /// Checks duties and colours are in 0..1 and the message fits a packet.
    pub fn validate(&self, robot: &str) -> Result<(), OutOfRange> {
        check_range(robot, "motor", &[self.motor_left, self.motor_right], 0.0, 1.0)?;
        check_range(robot, "led", &self.led, 0.0, 1.0)?;
        if self.message.len() > MESSAGE_BYTES {
            let len = self.message.len() as f64;
            return Err(OutOfRange {
                robot: robot.to_owned(),
                field: "message length".into(),
                value: len,
                min: 0.0,
                max: MESSAGE_BYTES as f64,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_checked() {
        let ok = KilobotCommand { motor_left: 1.0, led: [0.0, 1.0, 0.0], message: vec![1; 9], ..KilobotCommand::default() };
        assert!(ok.validate("kb_1").is_ok());
        let long = KilobotCommand { message: vec![0; 10], ..KilobotCommand::default() };
        assert!(long.validate("kb_1").unwrap_err().to_string().contains("message length"));
        let bright = KilobotCommand { led: [0.0, 0.0, 1.5], ..KilobotCommand::default() };
        assert!(bright.validate("kb_2").unwrap_err().to_string().contains("led[2]"));
    }

    #[test]
    fn overhead_messages_round_trip_the_wire_and_bad_ones_are_named() {
        for m in [Overhead::Run, Overhead::Pause, Overhead::Custom([1, 2, 3, 4, 5, 6, 7, 8, 9])] {
            assert_eq!(Overhead::from_wire(m.command(), &m.payload()), Ok(Some(m)));
        }
        assert_eq!(Overhead::from_wire(0, &[]), Ok(None));
        assert_eq!(Overhead::from_wire(3, &[7]), Ok(Some(Overhead::Custom([7, 0, 0, 0, 0, 0, 0, 0, 0]))));
        assert!(Overhead::from_wire(9, &[]).unwrap_err().to_string().contains("overhead command 9"));
        assert!(Overhead::from_wire(3, &[0; 10]).unwrap_err().to_string().contains("10 bytes"));
    }
}
