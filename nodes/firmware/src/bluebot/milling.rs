//! Milling by a binary wedge sensor (SPEC 3, Materials and Methods): the sensor reports
//! whether any neighbour's body (a disc of radius rho about its LED pair) reaches into the
//! planar wedge of half-angle alpha ahead, unbounded vertically. Nobody seen: turn
//! clockwise (caudal 3 Hz, left pectoral 6 Hz: radius r0); somebody seen: turn
//! counter-clockwise (right pectoral). Each robot holds its own depth, so the circle is a
//! rotating cylinder. Emergent radius: `R = rho cos(alpha) / (cos(alpha) - cos(2 pi / N - alpha))`.

use super::motion::Gait;
use flotilla_contract::bluebot::{Bluebot, BluebotCommand, BluebotSensors, Neighbour};
use flotilla_contract::Firmware;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Milling parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MillingParams {
    /// Half-angle alpha of the wedge, rad (paper: pi / 12).
    pub alpha: f64,
    /// Body radius rho a neighbour occupies, m (paper: ~83 mm).
    pub rho: f64,
    /// Caudal frequency, Hz (paper: 3).
    pub caudal: f64,
    /// Pectoral frequency of both turns, Hz (paper: 6).
    pub pectoral: f64,
    /// Depth held, m.
    pub depth: f64,
}

impl Default for MillingParams {
    fn default() -> Self {
        Self { alpha: PI / 12.0, rho: 0.083, caudal: 3.0, pectoral: 6.0, depth: 0.3 }
    }
}

impl MillingParams {
    /// Checks every parameter is in its range; the message names the first that is not.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.alpha > 0.0 && self.alpha < PI / 2.0) {
            return Err(format!("milling alpha must be in (0, pi/2) rad, got {}", self.alpha));
        }
        if !(self.rho > 0.0 && self.rho < 1.0) {
            return Err(format!("milling rho must be in (0, 1) m, got {}", self.rho));
        }
        if !(self.caudal >= 0.0 && self.pectoral > 0.0 && self.caudal.is_finite() && self.pectoral.is_finite()) {
            return Err(format!("milling fin frequencies must be >= 0 Hz (pectoral > 0), got {} and {}", self.caudal, self.pectoral));
        }
        if !(0.0..=5.0).contains(&self.depth) {
            return Err(format!("milling depth must be in [0, 5] m, got {}", self.depth));
        }
        Ok(())
    }

    /// The circle radius the model predicts for `robots` robots, m (infinite or negative
    /// when no circle of that size exists: 2 pi / N <= 2 alpha).
    pub fn predicted_radius(&self, robots: usize) -> f64 {
        let theta = 2.0 * PI / robots.max(1) as f64;
        self.rho * self.alpha.cos() / (self.alpha.cos() - (theta - self.alpha).cos())
    }

    /// The wedge sensor: whether the disc of radius rho around neighbour `n` reaches into
    /// the wedge (horizontal plane; elevation ignored).
    pub fn sees(&self, n: &Neighbour) -> bool {
        let horizontal = n.distance * n.elevation.cos();
        let widening = if horizontal > self.rho { (self.rho / horizontal).asin() } else { PI / 2.0 };
        super::motion::wrap(n.azimuth).abs() <= self.alpha + widening
    }
}

/// The milling firmware of one robot.
#[derive(Clone, Debug)]
pub struct MillingFirmware {
    params: MillingParams,
    gait: Gait,
    seen: bool,
}

impl MillingFirmware {
    /// A robot milling with `params`.
    pub fn new(params: MillingParams) -> Self {
        Self { params, gait: Gait::default(), seen: false }
    }

    /// What the wedge sensor said last.
    pub fn seen(&self) -> bool {
        self.seen
    }
}

impl Firmware<Bluebot> for MillingFirmware {
    fn step(&mut self, _time: f64, sensors: &BluebotSensors) -> BluebotCommand {
        self.seen = sensors.neighbours.iter().any(|n| self.params.sees(n));
        let (pectoral_left, pectoral_right) = if self.seen { (0.0, self.params.pectoral) } else { (self.params.pectoral, 0.0) };
        BluebotCommand {
            caudal: self.params.caudal,
            pectoral_left,
            pectoral_right,
            dorsal: self.gait.dorsal(sensors.depth, self.params.depth),
            leds: true,
            flashing: false,
        }
    }

    fn status(&self) -> String {
        format!(
            "milling: alpha = {:.3} rad, {}",
            self.params.alpha,
            if self.seen { "robot seen: counter-clockwise" } else { "clear: clockwise" }
        )
    }

    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), String> {
        self.params = self.params.with(name, value)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_predictions() {
        let p = MillingParams::default();
        for (n, mm) in [(5, 190.0), (6, 309.0), (7, 496.0)] {
            assert!((p.predicted_radius(n) * 1000.0 - mm).abs() < 1.5, "N = {n}: {}", p.predicted_radius(n));
        }
    }

    #[test]
    fn the_wedge_sees_bodies_reaching_into_it() {
        let p = MillingParams::default();
        let at = |azimuth: f64, distance: f64| Neighbour { azimuth, elevation: 0.0, distance };
        assert!(p.sees(&at(0.0, 2.0)));
        // 1 m away a 83 mm body widens the wedge by asin(0.083) = 4.76 deg.
        assert!(p.sees(&at((15.0f64 + 4.7).to_radians(), 1.0)));
        assert!(!p.sees(&at((15.0f64 + 4.9).to_radians(), 1.0)));
        assert!(!p.sees(&at(-(15.0f64 + 4.9).to_radians(), 1.0)));
        assert!(p.sees(&at(1.5, 0.05)), "a body overlapping the robot is always seen");
        // Vertically unbounded: far above but ahead counts.
        assert!(p.sees(&Neighbour { azimuth: 0.1, elevation: 1.2, distance: 0.8 }));
    }

    #[test]
    fn turns_clockwise_when_clear_and_counter_clockwise_when_not() {
        let mut fw = MillingFirmware::new(MillingParams::default());
        let clear = fw.step(0.0, &BluebotSensors { depth: 0.3, ..Default::default() });
        assert_eq!((clear.caudal, clear.pectoral_left, clear.pectoral_right), (3.0, 6.0, 0.0));
        let ahead = BluebotSensors {
            depth: 0.3,
            neighbours: vec![Neighbour { azimuth: 0.1, elevation: 0.0, distance: 0.5 }],
            ..Default::default()
        };
        let seen = fw.step(0.5, &ahead);
        assert_eq!((seen.pectoral_left, seen.pectoral_right), (0.0, 6.0));
        assert!(fw.set_parameter("alpha", 2.0).unwrap_err().contains("alpha"));
    }
}
