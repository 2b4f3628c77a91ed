//! Search, alert and gather as one state machine for every robot (SPEC 3):
//!
//! - **search**: disperse with d_t = infinity (every visible neighbour repels); with
//!   nobody in sight, random-walk (turn by a random angle every `wander_period`, swim at
//!   `wander_speed`); LEDs on so that the others can disperse from it;
//! - **alert** (the red source is seen: a blob of more than 2 pixels with red/blue > 1.2,
//!   which the camera only resolves within ~3 BL): hold position and flash at 15 Hz;
//! - **gather** (a flashing robot is seen): LEDs off, swim toward the flash; back to search
//!   when no flash has been seen for `lost_after`; near the source it alerts too.

use super::dispersion::{DispersionFirmware, DispersionParams};
use super::motion::Gait;
use flotilla_contract::bluebot::{Bluebot, BluebotCommand, BluebotSensors};
use flotilla_contract::{robot_seed, Firmware};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Search parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchParams {
    /// Random-walk speed, fraction of full speed (0.43: the paper's 0.5 BL/s), 1.
    pub wander_speed: f64,
    /// Time between random turns, s.
    pub wander_period: f64,
    /// Turning rate on the spot used to time a random turn, rad/s.
    pub turn_rate: f64,
    /// Gather gives up after this long without a flash, s.
    pub lost_after: f64,
    /// Shallowest and deepest depth target while searching, m.
    pub depth_range: (f64, f64),
}

impl Default for SearchParams {
    fn default() -> Self {
        Self { wander_speed: 0.43, wander_period: 5.0, turn_rate: 0.65, lost_after: 10.0, depth_range: (0.08, 0.83) }
    }
}

impl SearchParams {
    /// Checks every parameter is in its range; the message names the first that is not.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.wander_speed > 0.0 && self.wander_speed <= 1.0) {
            return Err(format!("search wander_speed must be in (0, 1], got {}", self.wander_speed));
        }
        for (name, v) in [("wander_period", self.wander_period), ("turn_rate", self.turn_rate), ("lost_after", self.lost_after)] {
            if !(v > 0.0 && v.is_finite()) {
                return Err(format!("search {name} must be > 0, got {v}"));
            }
        }
        if !(0.0 <= self.depth_range.0 && self.depth_range.0 < self.depth_range.1) {
            return Err(format!("search depth_range {:?} m is empty", self.depth_range));
        }
        Ok(())
    }
}

/// The behaviour a searching robot is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SearchState {
    /// Dispersing / random walking.
    Search,
    /// At the source, flashing.
    Alert,
    /// Swimming toward a flashing robot.
    Gather,
}

/// The search firmware of one robot.
#[derive(Clone, Debug)]
pub struct SearchFirmware {
    params: SearchParams,
    gait: Gait,
    disperse: DispersionFirmware,
    state: SearchState,
    rng: ChaCha8Rng,
    last_time: Option<f64>,
    /// Current random turn: direction (+1 left) and when it ends, and the next turn's time.
    turning: Option<(f64, f64)>,
    next_turn: f64,
    depth_target: Option<f64>,
    last_flash: f64,
}

impl SearchFirmware {
    /// Robot `id` of a run seeded with `seed`.
    pub fn new(params: SearchParams, seed: u64, id: u32) -> Self {
        let dispersion = DispersionParams {
            target_distance: f64::INFINITY,
            min_depth: params.depth_range.0,
            max_depth: params.depth_range.1,
            ..DispersionParams::default()
        };
        Self {
            params,
            gait: Gait::default(),
            disperse: DispersionFirmware::new(dispersion),
            state: SearchState::Search,
            rng: ChaCha8Rng::seed_from_u64(robot_seed(seed, id)),
            last_time: None,
            turning: None,
            next_turn: 0.0,
            depth_target: None,
            last_flash: f64::NEG_INFINITY,
        }
    }

    /// The state.
    pub fn state(&self) -> SearchState {
        self.state
    }

    fn wander(&mut self, time: f64, depth: f64) -> BluebotCommand {
        if time >= self.next_turn {
            let angle: f64 = self.rng.gen_range(-PI..PI);
            self.turning = Some((angle.signum(), time + angle.abs() / self.params.turn_rate));
            self.next_turn = time + self.params.wander_period;
            let (lo, hi) = self.params.depth_range;
            self.depth_target = Some(self.rng.gen_range(lo..hi));
        }
        let target = *self.depth_target.get_or_insert(depth);
        let azimuth = match self.turning {
            Some((sign, until)) if time < until => sign * PI,
            _ => 0.0,
        };
        self.gait.steer(azimuth, self.params.wander_speed, depth, target)
    }
}

impl Firmware<Bluebot> for SearchFirmware {
    fn step(&mut self, time: f64, sensors: &BluebotSensors) -> BluebotCommand {
        let dt = self.last_time.map_or(0.0, |t| (time - t).max(0.0));
        self.last_time = Some(time);
        if !sensors.flashes.is_empty() {
            self.last_flash = time;
        }
        self.state = match self.state {
            SearchState::Alert => SearchState::Alert,
            _ if sensors.red_source().is_some() => SearchState::Alert,
            _ if !sensors.flashes.is_empty() => SearchState::Gather,
            SearchState::Gather if time - self.last_flash < self.params.lost_after => SearchState::Gather,
            _ => SearchState::Search,
        };
        match self.state {
            SearchState::Alert => {
                let hold = *self.depth_target.get_or_insert(sensors.depth);
                BluebotCommand { dorsal: self.gait.dorsal(sensors.depth, hold), flashing: true, leds: true, ..BluebotCommand::default() }
            }
            SearchState::Gather => {
                let toward = sensors.flashes.iter().min_by(|a, b| a.azimuth.abs().total_cmp(&b.azimuth.abs()));
                let (lo, hi) = self.params.depth_range;
                let target = self.depth_target.get_or_insert(sensors.depth);
                if let Some(f) = toward {
                    // Dive or rise toward the flash's elevation.
                    *target = (sensors.depth - 0.3 * f.elevation.tan().clamp(-2.0, 2.0)).clamp(lo, hi);
                }
                let azimuth = toward.map_or(0.0, |f| f.azimuth);
                let mut command = self.gait.steer(azimuth, 1.0, sensors.depth, *target);
                command.leds = false;
                command
            }
            SearchState::Search if sensors.neighbours.is_empty() => self.wander(time, sensors.depth),
            SearchState::Search => {
                let positions: Vec<[f64; 3]> = sensors.neighbours.iter().map(|n| n.position()).collect();
                let p = self.disperse.params().next_move(&positions);
                self.depth_target = None;
                self.disperse.command_for(p, sensors.depth, dt)
            }
        }
    }

    fn status(&self) -> String {
        format!("search: {:?}", self.state)
    }

    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), String> {
        self.params = self.params.with(name, value)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_contract::bluebot::{Blob, Flash, Neighbour};

    fn reading() -> BluebotSensors {
        BluebotSensors { depth: 0.3, ..Default::default() }
    }

    #[test]
    fn search_gather_alert() {
        let mut fw = SearchFirmware::new(SearchParams::default(), 1, 0);
        // Alone: random walk with LEDs on.
        let c = fw.step(0.0, &reading());
        assert_eq!(fw.state(), SearchState::Search);
        assert!(c.leds && !c.flashing && c.caudal + c.pectoral_left + c.pectoral_right > 0.0);
        // A neighbour ahead: swim away from it (turn around).
        let near = BluebotSensors { neighbours: vec![Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.5 }], ..reading() };
        let c = fw.step(0.5, &near);
        assert!(c.caudal == 0.0 && c.pectoral_left + c.pectoral_right > 0.0, "{c:?}");
        // A flash to the left: gather, LEDs off, turn left.
        let flash = BluebotSensors { flashes: vec![Flash { azimuth: 0.6, elevation: 0.0 }], ..reading() };
        let c = fw.step(1.0, &flash);
        assert_eq!(fw.state(), SearchState::Gather);
        assert!(!c.leds && c.pectoral_right > 0.0 && c.caudal > 0.0, "{c:?}");
        // Flash lost for a while: still gathering within lost_after, then searching.
        fw.step(5.0, &reading());
        assert_eq!(fw.state(), SearchState::Gather);
        fw.step(11.5, &reading());
        assert_eq!(fw.state(), SearchState::Search);
        // A blue blob is not the source; a red one of 3 pixels is: alert for good.
        let blue = BluebotSensors { blobs: vec![Blob { pixels: 5, red_ratio: 0.1, ..Blob::default() }], ..reading() };
        fw.step(12.0, &blue);
        assert_eq!(fw.state(), SearchState::Search);
        let small = BluebotSensors { blobs: vec![Blob { pixels: 2, red_ratio: 3.0, ..Blob::default() }], ..reading() };
        fw.step(12.5, &small);
        assert_eq!(fw.state(), SearchState::Search, "2 pixels is not enough");
        let red = BluebotSensors { blobs: vec![Blob { pixels: 3, red_ratio: 3.0, ..Blob::default() }], ..reading() };
        let c = fw.step(13.0, &red);
        assert_eq!(fw.state(), SearchState::Alert);
        assert!(c.flashing && c.caudal == 0.0);
        let c = fw.step(13.5, &flash);
        assert_eq!(fw.state(), SearchState::Alert);
        assert!(c.flashing);
    }
}
