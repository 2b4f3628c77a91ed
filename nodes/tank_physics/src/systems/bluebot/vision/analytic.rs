//! The fast vision: each LED, its surface reflection and the red source are projected
//! through the fisheye model to a blob centre with Gaussian pixel noise and a size from
//! the LED's glow; blobs of one camera that overlap merge (as thresholding merges them);
//! then the shared [`pipeline`](super::pipeline) pairs them.

use super::camera::{Cameras, CAMERAS};
use super::pipeline::{bearing, process, ImageBlob, PipelineParams};
use super::{Leds, Scene, Vision};
use flotilla_contract::bluebot::{BluebotSensors, Flash};
use nalgebra::Vector3;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

/// Analytic vision parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Analytic {
    /// The two cameras.
    pub cameras: Cameras,
    /// Pairing tolerances.
    pub pipeline: PipelineParams,
    /// Standard deviation of a blob centre, pixels.
    pub pixel_noise: f64,
    /// Radius of an LED's thresholded glow, m (its image radius is this over the distance).
    pub glow_radius: f64,
    /// Angle from the vertical beyond which the surface reflects totally (water to air:
    /// asin(1 / 1.333) = 48.6 deg), rad; steeper reflections are too faint to pass the
    /// threshold.
    pub critical_angle: f64,
    /// Probability that the flash detector misses a visible flashing robot, 1.
    pub flash_miss: f64,
}

impl Default for Analytic {
    fn default() -> Self {
        Self {
            cameras: Cameras::default(),
            pipeline: PipelineParams::default(),
            pixel_noise: 0.3,
            glow_radius: 0.008,
            critical_angle: (1.0f64 / 1.333).asin(),
            flash_miss: 0.05,
        }
    }
}

/// A light the cameras may see.
pub(super) struct Light {
    /// Where it is (a reflection: its mirror image above the surface), tank frame, m.
    pub position: Vector3<f64>,
    /// Glow radius, m.
    pub glow: f64,
    /// Red over blue of its colour, 1.
    pub red_ratio: f64,
}

/// Every lit light the eye of `observer` may see at `time` s: unoccluded LEDs, their total
/// reflections at the surface, and the red source sized to its detection range.
pub(super) fn lights(
    scene: &Scene<'_>,
    observer: usize,
    time: f64,
    occluders: &super::Occluders,
    glow: f64,
    focal: f64,
    critical_angle: f64,
) -> Vec<Light> {
    let eye = scene.robots[observer].position;
    let surface = scene.tank.water_depth;
    let cos_critical = critical_angle.cos();
    let mut out = Vec::new();
    for (j, robot) in scene.robots.iter().enumerate() {
        let lit = match robot.leds {
            Leds::Off => false,
            Leds::On => true,
            Leds::Flashing => flash_lit(time),
        };
        if j == observer || !robot.present || !lit {
            continue;
        }
        for led in scene.layout.leds(robot) {
            if !occluders.hides(&led, j) {
                out.push(Light { position: led, glow, red_ratio: BLUE_RATIO });
            }
            // The surface mirrors an LED under water to an image above it; only total
            // internal reflection is bright enough to pass the threshold.
            if led.z < surface && eye.z < surface {
                let mirror = Vector3::new(led.x, led.y, 2.0 * surface - led.z);
                let ray = mirror - eye;
                if ray.z / ray.norm() < cos_critical {
                    out.push(Light { position: mirror, glow, red_ratio: BLUE_RATIO });
                }
            }
        }
    }
    if let Some(source) = &scene.tank.red_source {
        if !occluders.hides(&source.position, usize::MAX) {
            // Its thresholded image is larger than two pixels exactly within the
            // detection range (the paper tuned the detector to ~3 BL).
            let d = (source.position - eye).norm().max(1e-3);
            let pixels = (3.0 * (source.detection_range / d).powi(2)).floor();
            if pixels >= 1.0 {
                let glow = d * ((pixels / std::f64::consts::PI).sqrt() / focal).tan();
                out.push(Light { position: source.position, glow, red_ratio: RED_SOURCE_RATIO });
            }
        }
    }
    out
}

/// Whether LEDs blinking at 15 Hz are lit in an exposure at `time` s.
pub fn flash_lit(time: f64) -> bool {
    (time * 30.0).floor().rem_euclid(2.0) < 1.0
}

impl Analytic {
    fn project(
        &self,
        light: &Light,
        eye: &Vector3<f64>,
        to_body: &nalgebra::UnitQuaternion<f64>,
        rng: &mut ChaCha8Rng,
        out: &mut Vec<ImageBlob>,
    ) {
        let offset = light.position - eye;
        let distance = offset.norm();
        if distance < 1e-6 {
            return;
        }
        let dir = to_body * (offset / distance);
        let noise = Normal::new(0.0, self.pixel_noise.max(1e-12)).ok();
        for camera in CAMERAS {
            let Some((u, v)) = self.cameras.project(camera, &dir) else { continue };
            let (du, dv) = noise.map_or((0.0, 0.0), |n| (n.sample(rng), n.sample(rng)));
            let (u, v) = (u + du, v + dv);
            if !self.cameras.in_image(u, v) {
                continue;
            }
            let radius = (self.cameras.model.focal * (light.glow / distance).atan()).max(0.6);
            let pixels = (std::f64::consts::PI * radius * radius).round().max(1.0) as u32;
            out.push(ImageBlob { camera, column: u, row: v, pixels, red_ratio: light.red_ratio });
        }
    }

    /// Merges blobs of one camera whose discs touch (thresholding makes one blob of them).
    fn merge(mut blobs: Vec<ImageBlob>) -> Vec<ImageBlob> {
        let radius = |p: u32| (f64::from(p) / std::f64::consts::PI).sqrt();
        // Sweep by column: only blobs within two of the largest radii can touch.
        let window = 2.0 * blobs.iter().map(|b| radius(b.pixels)).fold(0.0, f64::max) + 0.5;
        blobs.sort_by(|a, b| (a.camera as u8).cmp(&(b.camera as u8)).then(a.column.total_cmp(&b.column)));
        let mut out: Vec<ImageBlob> = Vec::with_capacity(blobs.len());
        for b in blobs {
            let twin = out.iter_mut().rev().take_while(|o| o.camera == b.camera && o.column >= b.column - window).find(|o| {
                let reach = radius(o.pixels) + radius(b.pixels) + 0.5;
                (o.column - b.column).powi(2) + (o.row - b.row).powi(2) < reach * reach
            });
            match twin {
                Some(o) => {
                    let (wo, wb) = (f64::from(o.pixels), f64::from(b.pixels));
                    o.column = (o.column * wo + b.column * wb) / (wo + wb);
                    o.row = (o.row * wo + b.row * wb) / (wo + wb);
                    o.red_ratio = (o.red_ratio * wo + b.red_ratio * wb) / (wo + wb);
                    o.pixels += b.pixels;
                }
                None => out.push(b),
            }
        }
        out
    }
}

/// Red over blue ratio of a blue LED, 1.
pub(super) const BLUE_RATIO: f64 = 0.1;
/// Red over blue ratio of the red source, 1.
pub(super) const RED_SOURCE_RATIO: f64 = 3.0;

impl Vision for Analytic {
    fn name(&self) -> &'static str {
        "analytic"
    }

    fn sense(&self, scene: &Scene<'_>, observer: usize, time: f64, rng: &mut ChaCha8Rng) -> BluebotSensors {
        let me = &scene.robots[observer];
        let eye = me.position;
        let to_body = me.orientation.inverse();
        let surface = scene.tank.water_depth;
        let occluders = scene.occluders(observer);
        let mut flashes = Vec::new();
        for (j, robot) in scene.robots.iter().enumerate() {
            if j == observer || !robot.present || robot.leds != Leds::Flashing {
                continue;
            }
            let leds = scene.layout.leds(robot);
            if leds.iter().any(|led| !occluders.hides(led, j)) && rng.gen::<f64>() >= self.flash_miss {
                let dir = to_body * (0.5 * (leds[0] + leds[1]) - eye);
                if CAMERAS.iter().any(|&c| self.cameras.project(c, &dir.normalize()).is_some()) {
                    let (azimuth, elevation) = bearing(&dir);
                    flashes.push(Flash { azimuth, elevation });
                }
            }
        }
        let mut image = Vec::new();
        for light in lights(scene, observer, time, &occluders, self.glow_radius, self.cameras.model.focal, self.critical_angle) {
            self.project(&light, &eye, &to_body, rng, &mut image);
        }
        let image = Self::merge(image);
        let depth = surface - eye.z;
        let (blobs, neighbours) = process(&self.cameras, &image, depth, &self.pipeline);
        BluebotSensors { stamp: time, depth, blobs, neighbours, flashes, photodiode: 0.0 }
    }
}
