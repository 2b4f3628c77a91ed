//! The Bluebot's forward-facing photodiode (paper, Materials and Methods: a VTP1112H the
//! robots use to start their programs on a light pulse). The authors' programs
//! (fberlinger/blueswarm, `fishfood/lib_photodiode.py`) read it through a 12-bit ADC
//! (ADC121C021) as raw counts and note "lights off: 2, lights on: 400"; those two figures
//! are the dark and ambient levels here.
//!
//! Model: `reading = dark + ambient + source + noise`, rounded to whole counts and clipped
//! to the ADC's range, where the red light source of the search world adds, on the
//! sensor's axis, `source_at_detection_range` counts at the camera's red detection range
//! R (`RedSource::detection_range`), falling with the inverse square of the distance d and
//! the absorption of red light by water: `S (R / d)^2 exp(-k (d - R)) cos(theta)`, theta
//! the angle between the sensor's axis (the bow) and the source, nothing beyond the field
//! of view's half-angle (a flat photodiode behind a window: cosine response). The room
//! light is diffuse and taken as the same in every direction. The paper gives neither the
//! source's brightness nor the diode's angular response: both are parameters, their
//! defaults the assumptions named on each field.

use super::tank::Tank;
use nalgebra::{UnitQuaternion, Vector3};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

/// The photodiode and the light it sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Photodiode {
    /// Reading in the dark (authors' note: 2), counts.
    pub dark: f64,
    /// What the room lights add (authors' note: 400 with the lights on), counts.
    pub ambient: f64,
    /// What the red source adds on the sensor's axis at the camera's detection range
    /// (assumption: as much as the room lights), counts.
    pub source_at_detection_range: f64,
    /// Absorption of the source's red light by water (pure water near 650 nm), 1/m.
    pub attenuation: f64,
    /// Half-angle of the field of view: no response beyond it (a flat diode: pi/2), rad.
    pub half_fov: f64,
    /// Standard deviation of the reading's noise (assumption), counts.
    pub noise: f64,
    /// Largest reading (12-bit ADC), counts.
    pub full_scale: f64,
    /// Where the diode sits on the body (at the bow), body frame, m.
    pub mount: Vector3<f64>,
}

impl Default for Photodiode {
    fn default() -> Self {
        Self {
            dark: 2.0,
            ambient: 400.0,
            source_at_detection_range: 400.0,
            attenuation: 0.35,
            half_fov: std::f64::consts::FRAC_PI_2,
            noise: 2.0,
            full_scale: 4095.0,
            mount: Vector3::new(0.065, 0.0, 0.0),
        }
    }
}

impl Photodiode {
    /// Checks every field is in its range; the message names the first that is not.
    pub fn validate(&self) -> Result<(), String> {
        let fields = [
            ("dark", self.dark),
            ("ambient", self.ambient),
            ("source_at_detection_range", self.source_at_detection_range),
            ("attenuation", self.attenuation),
            ("noise", self.noise),
        ];
        if let Some((name, value)) = fields.iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0)) {
            return Err(format!("photodiode {name} must be a finite number >= 0, got {value}"));
        }
        if !(self.half_fov > 0.0 && self.half_fov <= std::f64::consts::PI) {
            return Err(format!("photodiode half_fov must be in (0, pi] rad, got {}", self.half_fov));
        }
        if !(self.full_scale.is_finite() && self.full_scale > 0.0 && self.mount.iter().all(|x| x.is_finite())) {
            return Err(format!("photodiode full_scale ({}) must be > 0 and its mount finite", self.full_scale));
        }
        Ok(())
    }

    /// The noiseless light on the diode of a robot at `position` (tank frame, m) with
    /// `orientation` (body x forward), counts (not clipped).
    pub fn light(&self, tank: &Tank, position: &Vector3<f64>, orientation: &UnitQuaternion<f64>) -> f64 {
        let mut light = self.dark + self.ambient;
        if let Some(source) = &tank.red_source {
            let diode = position + orientation * self.mount;
            let to_source = source.position - diode;
            let d = to_source.norm().max(0.01);
            let axis = orientation * Vector3::x();
            let cos = axis.dot(&to_source) / d;
            if cos.clamp(-1.0, 1.0).acos() < self.half_fov && cos > 0.0 {
                let r = source.detection_range;
                light += self.source_at_detection_range * (r / d).powi(2) * (-self.attenuation * (d - r)).exp() * cos;
            }
        }
        light
    }

    /// One reading: the light plus noise drawn from `rng`, rounded to whole counts and
    /// clipped to [0, full_scale], counts.
    pub fn read(&self, tank: &Tank, position: &Vector3<f64>, orientation: &UnitQuaternion<f64>, rng: &mut ChaCha8Rng) -> f64 {
        let noise = Normal::new(0.0, self.noise.max(1e-12)).map_or(0.0, |n| n.sample(rng));
        (self.light(tank, position, orientation) + noise).round().clamp(0.0, self.full_scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn facing(yaw: f64) -> UnitQuaternion<f64> {
        UnitQuaternion::from_euler_angles(0.0, 0.0, yaw)
    }

    /// A robot on the line from the source along +x, `d` m from it (diode to source),
    /// heading `yaw` (pi: facing the source).
    fn at(tank: &Tank, d: f64) -> Vector3<f64> {
        let s = tank.red_source.map(|s| s.position).unwrap_or_default();
        s + Vector3::new(d + 0.065, 0.0, 0.0)
    }

    #[test]
    fn the_reading_rises_toward_the_source() {
        let tank = Tank::default().with_red_source_in_a_corner();
        let diode = Photodiode::default();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let readings: Vec<f64> =
            [1.2, 0.8, 0.39, 0.2].iter().map(|&d| diode.read(&tank, &at(&tank, d), &facing(std::f64::consts::PI), &mut rng)).collect();
        assert!(readings.windows(2).all(|w| w[1] > w[0] + 20.0), "{readings:?}");
        // At the detection range the source adds its nominal 400 counts to the room's 402.
        assert!((readings[2] - 802.0).abs() < 10.0, "{readings:?}");
        // Far from the source, facing it or not, the room light is what is left.
        let far = diode.light(&tank, &Vector3::new(1.6, 1.6, 0.8), &facing(-2.36));
        assert!(far > 402.0 && far < 430.0, "{far}");
        // Right at the source the 12-bit ADC saturates.
        assert_eq!(diode.read(&tank, &at(&tank, 0.02), &facing(std::f64::consts::PI), &mut rng), 4095.0);
    }

    #[test]
    fn the_reading_follows_the_diodes_orientation() {
        let tank = Tank::default().with_red_source_in_a_corner();
        // A diode at the body's centre, so that turning does not move it.
        let diode = Photodiode { noise: 0.0, mount: Vector3::zeros(), ..Photodiode::default() };
        let p = at(&tank, 0.39);
        let room = diode.dark + diode.ambient;
        let on_axis = diode.light(&tank, &p, &facing(std::f64::consts::PI)) - room;
        // Cosine response: 60 deg off the axis sees half the source's light.
        let off = diode.light(&tank, &p, &facing(std::f64::consts::PI - 60f64.to_radians())) - room;
        assert!(on_axis > 250.0 && (off / on_axis - 0.5).abs() < 1e-9, "{off} / {on_axis}");
        // Sideways and facing away: only the room light.
        assert_eq!(diode.light(&tank, &p, &facing(std::f64::consts::FRAC_PI_2)), room);
        assert_eq!(diode.light(&tank, &p, &facing(0.0)), room);
        // A narrower field of view cuts the 60 deg reading off.
        let narrow = Photodiode { half_fov: 45f64.to_radians(), ..diode };
        assert_eq!(narrow.light(&tank, &p, &facing(std::f64::consts::PI - 60f64.to_radians())), room);
        // Without a source the orientation does not matter.
        let plain = Tank::default();
        assert_eq!(diode.light(&plain, &p, &facing(0.0)), diode.light(&plain, &p, &facing(2.0)));
    }

    #[test]
    fn the_noise_is_seeded_and_the_fields_are_checked() {
        let tank = Tank::default().with_red_source_in_a_corner();
        let diode = Photodiode::default();
        let p = Vector3::new(0.9, 0.9, 0.5);
        let draw = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..50).map(|_| diode.read(&tank, &p, &facing(0.3), &mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        let v = draw(7);
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
        assert!(sd > 1.0 && sd < 3.5 && v.iter().all(|x| x.fract() == 0.0), "sd {sd}");
        assert!(diode.validate().is_ok());
        assert!(Photodiode { ambient: -1.0, ..diode }.validate().unwrap_err().contains("ambient"));
        assert!(Photodiode { half_fov: 0.0, ..diode }.validate().unwrap_err().contains("half_fov"));
    }
}
