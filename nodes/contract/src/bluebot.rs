//! Bluebot: a fish-like robot of the Blueswarm (SPEC 3) with two fisheye cameras (195 deg
//! each), a pressure (depth) sensor, a caudal fin (forward), two pectoral fins (turning)
//! and a dorsal fin (diving), and two blue LEDs stacked 86 mm apart. Its vision pipeline
//! (blue channel, threshold, blob detection, undistortion) reports blobs as bearings;
//! this contract carries those blobs, so firmware works the same on the emulated and the
//! real cameras. ROS: `flotilla_msgs/BluebotSensors` / `BluebotCommand` on
//! `<robot>/sensors` / `<robot>/cmd`.

use crate::{check_range, Hardware, OutOfRange};
use serde::{Deserialize, Serialize};

/// The Blueswarm system.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bluebot;

impl Hardware for Bluebot {
    const SYSTEM: &'static str = "bluebot";
    type Sensors = BluebotSensors;
    type Command = BluebotCommand;

    fn stamp(sensors: &BluebotSensors) -> f64 {
        sensors.stamp
    }
}

/// Which camera saw a blob.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Camera {
    /// The left camera.
    #[default]
    Left,
    /// The right camera.
    Right,
}

/// One light blob found in one camera image, undistorted to a bearing in the robot's
/// body frame (x forward, y left, z up).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Blob {
    /// The camera that saw it.
    pub camera: Camera,
    /// Bearing in the horizontal plane, counter-clockwise from forward, rad.
    pub azimuth: f64,
    /// Bearing above the horizontal plane, rad.
    pub elevation: f64,
    /// Blob size, pixels of the down-scaled image.
    pub pixels: u32,
    /// Red over blue channel sum (red light source > 1.2), dimensionless.
    pub red_ratio: f64,
}

/// One reading of a Bluebot's sensors.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BluebotSensors {
    /// Time of the reading (the frame pair's exposure), s.
    pub stamp: f64,
    /// Depth below the water surface from the pressure sensor, m.
    pub depth: f64,
    /// Blobs of both cameras.
    pub blobs: Vec<Blob>,
}

/// What a Bluebot's firmware asks of its fins and LEDs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BluebotCommand {
    /// Caudal fin beat frequency (forward thrust), Hz.
    pub caudal: f64,
    /// Left pectoral fin frequency (turns right), Hz.
    pub pectoral_left: f64,
    /// Right pectoral fin frequency (turns left), Hz.
    pub pectoral_right: f64,
    /// Dorsal fin frequency (dives; zero lets the slight buoyancy lift it), Hz.
    pub dorsal: f64,
    /// Blue LEDs on.
    pub leds: bool,
}

/// Highest fin frequency the servos take, Hz (assumed: above the 6 Hz pectoral beat of
/// the milling experiments with margin).
pub const MAX_FIN_FREQUENCY: f64 = 20.0;

impl BluebotCommand {
    /// Checks every frequency is finite and in [0, [`MAX_FIN_FREQUENCY`]].
    pub fn validate(&self, robot: &str) -> Result<(), OutOfRange> {
        let fins = [
            ("caudal", self.caudal),
            ("pectoral_left", self.pectoral_left),
            ("pectoral_right", self.pectoral_right),
            ("dorsal", self.dorsal),
        ];
        for (field, value) in fins {
            check_range(robot, field, &[value], 0.0, MAX_FIN_FREQUENCY)?;
        }
        Ok(())
    }
}
