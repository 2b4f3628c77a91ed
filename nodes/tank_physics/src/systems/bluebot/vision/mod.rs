//! Emulated Bluebot vision (SPEC 3) behind one interface, [`Vision`], in two fidelities:
//!
//! - [`Analytic`]: every LED (and its surface reflection, and the red source) is projected
//!   through the fisheye model ([`Cameras`]) straight to a blob with pixel noise; touching
//!   blobs merge as thresholding merges them. Fast: swarms and long experiments.
//! - [`Rendered`]: both cameras' 256 x 192 frames are drawn and run through the paper's
//!   image pipeline (threshold, blob detection by pixel continuity, red detection, flash
//!   detection over 30 frames).
//!
//! Both end in the same [`pipeline`]: reflection rejection, LED pairing, distance by
//! projective geometry, and the merging of a robot seen by both cameras.

mod analytic;
mod camera;
pub mod pipeline;
mod rendered;

pub use analytic::Analytic;
pub use camera::{CameraModel, Cameras};
pub use rendered::{Frame, Rendered};

use super::tank::Tank;
use flotilla_contract::bluebot::BluebotSensors;
use nalgebra::{UnitQuaternion, Vector3};
use rand_chacha::ChaCha8Rng;

/// What a robot's LEDs do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Leds {
    /// Dark.
    #[default]
    Off,
    /// Lit.
    On,
    /// Blinking at 15 Hz (alert).
    Flashing,
}

/// One robot as the cameras of the others see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RobotView {
    /// Centre in the tank frame, m.
    pub position: Vector3<f64>,
    /// Orientation (body x forward, z up).
    pub orientation: UnitQuaternion<f64>,
    /// Its LEDs.
    pub leds: Leds,
    /// Whether it is in the tank (a removed robot is neither seen nor occludes).
    pub present: bool,
}

/// Where a Bluebot carries its LEDs and how large its body is for occlusion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LedLayout {
    /// Midpoint of the two LEDs in the body frame, m.
    pub midpoint: Vector3<f64>,
    /// Vertical distance between the two LEDs, m (SPEC 3: 86 mm).
    pub spacing: f64,
    /// Half length of the body's occluding capsule along body x, m.
    pub body_half_length: f64,
    /// Radius of the body's occluding capsule, m.
    pub body_radius: f64,
}

impl Default for LedLayout {
    fn default() -> Self {
        let parts = flotilla_common::models::dimensions::BluebotParts::default();
        Self { midpoint: parts.led_midpoint, spacing: parts.led_spacing, body_half_length: 0.045, body_radius: 0.021 }
    }
}

impl LedLayout {
    /// The two LEDs (lower, upper) of a robot at `view`, tank frame, m.
    pub fn leds(&self, view: &RobotView) -> [Vector3<f64>; 2] {
        let mid = view.position + view.orientation * self.midpoint;
        let half = view.orientation * Vector3::new(0.0, 0.0, 0.5 * self.spacing);
        [mid - half, mid + half]
    }
}

/// Everything the cameras can see at one instant.
#[derive(Clone, Copy, Debug)]
pub struct Scene<'a> {
    /// The tank (surface height, red source).
    pub tank: &'a Tank,
    /// Every robot.
    pub robots: &'a [RobotView],
    /// Their LEDs and bodies.
    pub layout: &'a LedLayout,
}

impl Scene<'_> {
    /// The bodies that may hide lights from the eye of robot `observer`, nearest first.
    pub fn occluders(&self, observer: usize) -> Occluders {
        let eye = self.robots[observer].position;
        let reach = self.layout.body_half_length + self.layout.body_radius;
        let mut bodies: Vec<Occluder> = self
            .robots
            .iter()
            .enumerate()
            .filter(|(i, r)| *i != observer && r.present)
            .map(|(index, r)| {
                let offset = r.position - eye;
                let distance = offset.norm().max(1e-9);
                // Within `reach` the body may cover any direction.
                let cos_limit = if distance > reach { (1.0 - (reach / distance).powi(2)).sqrt() } else { -1.0 };
                let axis = r.orientation * Vector3::new(self.layout.body_half_length, 0.0, 0.0);
                Occluder { index, direction: offset / distance, distance, cos_limit, ends: [r.position - axis, r.position + axis] }
            })
            .collect();
        bodies.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        Occluders { eye, bodies, reach, radius: self.layout.body_radius }
    }
}

/// One body as seen from an eye.
#[derive(Clone, Copy, Debug)]
struct Occluder {
    index: usize,
    direction: Vector3<f64>,
    distance: f64,
    /// Cosine of the angle within which the body may cover a direction.
    cos_limit: f64,
    /// Ends of its capsule's axis, m.
    ends: [Vector3<f64>; 2],
}

/// The bodies around one eye, for occlusion tests of many lights: a cone test rejects
/// most bodies before the exact capsule test.
#[derive(Clone, Debug)]
pub struct Occluders {
    eye: Vector3<f64>,
    bodies: Vec<Occluder>,
    reach: f64,
    radius: f64,
}

impl Occluders {
    /// Whether the segment from the eye to `light` passes through a body other than
    /// robot `owner`'s.
    pub fn hides(&self, light: &Vector3<f64>, owner: usize) -> bool {
        let offset = light - self.eye;
        let distance = offset.norm().max(1e-9);
        let direction = offset / distance;
        for b in &self.bodies {
            if b.distance - self.reach > distance {
                break;
            }
            if b.index == owner || direction.dot(&b.direction) < b.cos_limit {
                continue;
            }
            if segment_distance(&self.eye, light, &b.ends[0], &b.ends[1]) < self.radius {
                return true;
            }
        }
        false
    }
}

/// Shortest distance between segments p1-q1 and p2-q2 (Ericson, Real-Time Collision
/// Detection 5.1.9).
fn segment_distance(p1: &Vector3<f64>, q1: &Vector3<f64>, p2: &Vector3<f64>, q2: &Vector3<f64>) -> f64 {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    let (s, t) = if a <= f64::EPSILON && e <= f64::EPSILON {
        (0.0, 0.0)
    } else if a <= f64::EPSILON {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(&r);
        if e <= f64::EPSILON {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(&d2);
            let denom = a * e - b * b;
            let mut s = if denom > 0.0 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let mut t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            }
            (s, t)
        }
    };
    ((p1 + d1 * s) - (p2 + d2 * t)).norm()
}

/// One robot's vision: the reading of `observer` in `scene` at `time` s, drawing its
/// noise from `rng` (the observer's own stream).
pub trait Vision: Send + Sync {
    /// Short name for logs and summaries (`analytic`, `rendered`).
    fn name(&self) -> &'static str;
    /// The observer's reading: blobs, paired neighbours, flashes; `depth` and
    /// `photodiode` are filled in by the caller (pressure sensor, photodiode).
    fn sense(&self, scene: &Scene<'_>, observer: usize, time: f64, rng: &mut ChaCha8Rng) -> BluebotSensors;
}

/// Which fidelity a world's vision has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fidelity {
    /// Projected blob lists.
    #[default]
    Analytic,
    /// Rendered images through the paper's pipeline.
    Rendered,
}

impl Fidelity {
    /// Parses `analytic` or `rendered`.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "analytic" => Ok(Fidelity::Analytic),
            "rendered" => Ok(Fidelity::Rendered),
            other => Err(format!("unknown vision fidelity `{other}`; expected analytic or rendered")),
        }
    }

    /// The vision of this fidelity with default cameras.
    pub fn build(self) -> Box<dyn Vision> {
        match self {
            Fidelity::Analytic => Box::new(Analytic::default()),
            Fidelity::Rendered => Box::new(Rendered::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_distance_by_hand() {
        let v = |x, y, z| Vector3::new(x, y, z);
        assert!((segment_distance(&v(0., 0., 0.), &v(1., 0., 0.), &v(0.5, 1., -1.), &v(0.5, 1., 1.)) - 1.0).abs() < 1e-12);
        assert!((segment_distance(&v(0., 0., 0.), &v(1., 0., 0.), &v(2., 0., 0.), &v(3., 0., 0.)) - 1.0).abs() < 1e-12);
        assert!(segment_distance(&v(0., 0., 0.), &v(1., 1., 0.), &v(1., 0., 0.), &v(0., 1., 0.)) < 1e-12);
    }
}
