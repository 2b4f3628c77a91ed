//! Lily: a floating module with four EPM latches (one per side face, counter-clockwise
//! from +x), a top light sensor, the inductive latch channel to latched neighbours and a
//! radio to the base station (SPEC 1). ROS: `flotilla_msgs/LilySensors` on
//! `<robot>/sensors`, `flotilla_msgs/LilyCommand` on `<robot>/cmd`.

use crate::frame::{decode, Frame, FrameError};
use crate::Hardware;
use serde::{Deserialize, Serialize};

/// Latch faces of a Lily.
pub const FACES: usize = 4;

/// The Lily system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lily;

impl Hardware for Lily {
    const SYSTEM: &'static str = "lily";
    type Sensors = LilySensors;
    type Command = LilyCommand;

    fn stamp(sensors: &LilySensors) -> f64 {
        sensors.stamp
    }
}

/// One reading of a Lily's sensors.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LilySensors {
    /// Time of the reading, s.
    pub stamp: f64,
    /// Per face: latched to a neighbour.
    pub latched: Vec<bool>,
    /// Top light sensor, 0..1 of full scale.
    pub light: f64,
    /// Frames received since the last reading ([`crate::frame`]): port = the face a
    /// latched neighbour's message arrived on, or 255 for the base station's radio.
    pub radio_rx: Vec<u8>,
}

impl LilySensors {
    /// The received frames.
    pub fn frames(&self) -> Result<Vec<Frame>, FrameError> {
        decode(&self.radio_rx)
    }
}

/// What a Lily's firmware asks of its actuators. An empty array leaves the latches as
/// they are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LilyCommand {
    /// Per face: EPM latch on (true) or off.
    pub latch: Vec<bool>,
    /// Frames to send ([`crate::frame`]): port = the face whose latched neighbour gets
    /// it, or 255 for the base station.
    pub radio_tx: Vec<u8>,
}
