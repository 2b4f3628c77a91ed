//! Bluebot: a fish-like robot of the Blueswarm (SPEC 3) with two fisheye cameras (195 deg
//! each), a pressure (depth) sensor, a caudal fin (forward), two pectoral fins (turning)
//! and a dorsal fin (diving), and two blue LEDs stacked 86 mm apart. Its vision pipeline
//! (blue channel, threshold, blob detection, undistortion) reports blobs as bearings;
//! this contract carries those blobs, the neighbours the pipeline found in them (LED pairs
//! with reflections rejected, distance by projective geometry) and the flashes its flash
//! detector saw, so firmware works the same on the emulated and the real cameras. ROS: `flotilla_msgs/BluebotSensors` / `BluebotCommand` on
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

/// A neighbour found by pairing two vertically stacked LED blobs, in the body frame.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Neighbour {
    /// Bearing of the LED pair's midpoint in the horizontal plane, counter-clockwise from
    /// forward, rad.
    pub azimuth: f64,
    /// Bearing of the midpoint above the horizontal plane, rad.
    pub elevation: f64,
    /// Distance to the midpoint, m.
    pub distance: f64,
}

impl Neighbour {
    /// The midpoint's position in the body frame (x forward, y left, z up), m.
    pub fn position(&self) -> [f64; 3] {
        let horizontal = self.distance * self.elevation.cos();
        [horizontal * self.azimuth.cos(), horizontal * self.azimuth.sin(), self.distance * self.elevation.sin()]
    }
}

/// A flashing robot (LEDs blinking at 15 Hz) found by the flash detector, in the body frame.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Flash {
    /// Bearing in the horizontal plane, counter-clockwise from forward, rad.
    pub azimuth: f64,
    /// Bearing above the horizontal plane, rad.
    pub elevation: f64,
}

/// One reading of a Bluebot's sensors.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BluebotSensors {
    /// Time of the reading (the frame pair's exposure), s.
    pub stamp: f64,
    /// Depth below the water surface from the pressure sensor, m.
    pub depth: f64,
    /// Blobs of both cameras (blue LEDs, their surface reflections, the red source).
    pub blobs: Vec<Blob>,
    /// Neighbours the vision pipeline paired from the blobs (reflections rejected, a robot
    /// seen by both cameras reported once).
    pub neighbours: Vec<Neighbour>,
    /// Flashing robots seen by the flash detector.
    pub flashes: Vec<Flash>,
    /// Light on the forward-facing photodiode (VTP1112H read by a 12-bit ADC: 0 to 4095;
    /// the authors' programs see about 2 with the room lights off, 400 with them on),
    /// counts.
    pub photodiode: f64,
}

/// Red over blue ratio above which a blob is the red light source (SPEC 3).
pub const RED_RATIO: f64 = 1.2;

/// Blobs larger than this are red-source candidates, pixels (SPEC 3).
pub const RED_MIN_PIXELS: u32 = 2;

impl BluebotSensors {
    /// The red light source blob, if the reading has one (more than [`RED_MIN_PIXELS`]
    /// pixels and a red/blue ratio above [`RED_RATIO`], as the paper's detector).
    pub fn red_source(&self) -> Option<&Blob> {
        self.blobs.iter().find(|b| b.pixels > RED_MIN_PIXELS && b.red_ratio > RED_RATIO)
    }
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
    /// Blue LEDs blink at 15 Hz (the alert signal); takes precedence over `leds`.
    pub flashing: bool,
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
