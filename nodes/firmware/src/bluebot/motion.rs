//! How Bluebot firmware turns "go that way, this fast, at that depth" into fin
//! frequencies: the caudal fin sets the speed, the pectoral on the far side turns toward
//! the goal (on the spot when it is far off the bow), the dorsal fin holds the depth
//! against the slight buoyancy.

use flotilla_contract::bluebot::BluebotCommand;
use serde::{Deserialize, Serialize};

/// Fin frequencies of the behaviours.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gait {
    /// Caudal frequency at full speed, Hz.
    pub max_caudal: f64,
    /// Pectoral frequency of the sharpest turn, Hz.
    pub max_pectoral: f64,
    /// A goal farther off the bow than this is turned to on the spot, rad.
    pub turn_in_place: f64,
    /// Dorsal frequency that holds the depth against the buoyancy, Hz.
    pub hover: f64,
    /// Dorsal frequency added per metre above the target depth, Hz/m.
    pub depth_gain: f64,
    /// Highest dorsal frequency, Hz.
    pub max_dorsal: f64,
}

impl Default for Gait {
    fn default() -> Self {
        Self { max_caudal: 4.0, max_pectoral: 8.0, turn_in_place: 1.0, hover: 1.9, depth_gain: 30.0, max_dorsal: 4.0 }
    }
}

pub use flotilla_contract::wrap_angle as wrap;

impl Gait {
    /// Dorsal frequency that brings a robot at `depth` m to `target` m (both below the
    /// surface), Hz.
    pub fn dorsal(&self, depth: f64, target: f64) -> f64 {
        (self.hover + self.depth_gain * (target - depth)).clamp(0.0, self.max_dorsal)
    }

    /// Swims toward body-frame `azimuth` (rad, counter-clockwise from forward) at `speed`
    /// (fraction of full speed, clamped to [0, 1]) while moving to `target_depth` m.
    pub fn steer(&self, azimuth: f64, speed: f64, depth: f64, target_depth: f64) -> BluebotCommand {
        let azimuth = wrap(azimuth);
        let turn = (azimuth.abs() / self.turn_in_place).min(1.0) * self.max_pectoral;
        let caudal = if azimuth.abs() > self.turn_in_place { 0.0 } else { speed.clamp(0.0, 1.0) * self.max_caudal };
        // The right pectoral turns the robot left (counter-clockwise), the left one right.
        let (pectoral_left, pectoral_right) = if azimuth > 0.0 { (0.0, turn) } else { (turn, 0.0) };
        BluebotCommand { caudal, pectoral_left, pectoral_right, dorsal: self.dorsal(depth, target_depth), leds: true, flashing: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steering_by_hand() {
        let g = Gait::default();
        let ahead = g.steer(0.0, 0.5, 0.3, 0.3);
        assert_eq!((ahead.caudal, ahead.pectoral_left, ahead.pectoral_right), (2.0, 0.0, 0.0));
        assert!((ahead.dorsal - g.hover).abs() < 1e-12);
        let left = g.steer(0.5, 1.0, 0.3, 0.3);
        assert_eq!((left.caudal, left.pectoral_left, left.pectoral_right), (4.0, 0.0, 4.0));
        let behind_right = g.steer(-3.0, 1.0, 0.3, 0.3);
        assert_eq!((behind_right.caudal, behind_right.pectoral_left, behind_right.pectoral_right), (0.0, 8.0, 0.0));
        // Too shallow: dive harder; too deep: let the buoyancy lift it.
        assert!(g.dorsal(0.2, 0.3) > g.hover && g.dorsal(0.6, 0.3) == 0.0);
    }
}
