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
}
