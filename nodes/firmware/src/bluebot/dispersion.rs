//! Dispersion and aggregation by a Lennard-Jones potential (SPEC 3, Eq. 2): each visible
//! neighbour j at distance r pulls with `F(r) = (2 b (d_t / r)^b - a (d_t / r)^a) / r`
//! (zero at the target distance d_t, repulsive without bound closer, attractive and fading
//! farther; a = 12, b = 6); the next move is `p = 1/N sum_j F(r_j) u_j` over the N visible
//! neighbours, u_j the unit vector toward j. The robot heads along p, faster the larger
//! |p| (fin frequency grows with |p|, logarithmically between a dead band and full speed:
//! the attraction of a neighbour at 6 d_t is 10^5 times weaker than at 1.2 d_t, and a
//! linear map would leave aggregation stalled), and moves its depth target along p's
//! vertical part.
//! While it sees a neighbour it never stops: the caudal fin beats at least at
//! `min_caudal` (the paper: "all robots move continuously to minimize forces", "the
//! stronger the final averaged force, the higher the oscillation frequencies"; the
//! authors' dispersion program, fberlinger/blueswarm `fishfood/exp_LJpot.py`, swims
//! along the normalised p with the caudal fin at 1.5 Hz plus a term growing with |p|).
//! d_t can be changed while running ([`DispersionFirmware::set_target_distance`]);
//! d_t = infinity disperses without bound (every neighbour repels equally).

use super::motion::Gait;
use flotilla_contract::bluebot::{Bluebot, BluebotCommand, BluebotSensors};
use flotilla_contract::Firmware;
use serde::{Deserialize, Serialize};

/// Distance beyond d_t at which the program's force stops changing (2 BL), m.
const PROGRAM_CLIP: f64 = 0.26;

/// Lennard-Jones parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DispersionParams {
    /// Target distance d_t, m (infinite: unbounded dispersion).
    pub target_distance: f64,
    /// Repulsive exponent a, 1.
    pub a: f64,
    /// Attractive exponent b, 1.
    pub b: f64,
    /// |p| d_t at and above which the robot swims at full speed, 1.
    pub full_speed_force: f64,
    /// Below this |p| d_t the log map gives no speed; between the two the speed grows
    /// with log |p|, 1.
    pub dead_band: f64,
    /// Lowest caudal frequency while a neighbour is seen and p is not zero (0: the robot
    /// holds still below the dead band), Hz.
    pub min_caudal: f64,
    /// Vertical speed of the depth target at full force, m/s.
    pub vertical_speed: f64,
    /// Shallowest depth target, m.
    pub min_depth: f64,
    /// Deepest depth target, m.
    pub max_depth: f64,
    /// How a move p becomes fin frequencies.
    #[serde(default)]
    pub gait: DispersionGait,
}

/// How the dispersion firmware turns its next move p into fin frequencies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DispersionGait {
    /// Speed graded by |p| on the log map (floor `min_caudal`), heading and depth target
    /// through [`Gait::steer`]; p averages force x unit vector (SPEC 3).
    #[default]
    Graded,
    /// The authors' dispersion program (fberlinger/blueswarm `fishfood/exp_LJpot.py`, read,
    /// not copied): p averages force x relative position (the paper's Eq. 2) with each
    /// distance clipped at d_t + 2 BL for the force; the caudal fin beats at
    /// 1.5 + 0.4 |p| Hz (at most 2) while p is within 35 deg of the bow; the far pectoral
    /// turns at 1 + 1.5 |heading| / 155 deg Hz beyond 10 deg; p more than 155 deg off the
    /// bow: both pectorals at 2.5 Hz (backing off) and no caudal; the dorsal fin is on at
    /// full frequency while p points more than 2 deg down, off while it points more than
    /// 2 deg up, and unchanged between.
    Program,
}

impl Default for DispersionParams {
    fn default() -> Self {
        Self {
            target_distance: 0.26,
            a: 12.0,
            b: 6.0,
            full_speed_force: 2.0,
            dead_band: 1e-6,
            min_caudal: 1.5,
            vertical_speed: 0.05,
            min_depth: 0.08,
            max_depth: 0.83,
            gait: DispersionGait::Graded,
        }
    }
}

impl DispersionParams {
    /// Checks every parameter is in its range; the message names the first that is not.
    pub fn validate(&self) -> Result<(), String> {
        if self.target_distance.is_nan() || self.target_distance <= 0.0 {
            return Err(format!("dispersion target_distance must be > 0 m (inf allowed), got {}", self.target_distance));
        }
        if !(self.a > self.b && self.b > 0.0 && self.a.is_finite()) {
            return Err(format!("dispersion exponents need a > b > 0, got a = {}, b = {}", self.a, self.b));
        }
        // Each bound names its own key, and every one is finite: an infinite full speed
        // force stops the robot for ever, an infinite vertical speed makes the depth target
        // NaN (0 x inf) and an infinite max_depth sends it below any tank.
        if !(self.dead_band > 0.0 && self.dead_band.is_finite()) {
            return Err(format!("dispersion dead_band must be a finite number > 0, got {}", self.dead_band));
        }
        if !(self.full_speed_force > self.dead_band && self.full_speed_force.is_finite()) {
            return Err(format!(
                "dispersion full_speed_force must be a finite number > dead_band = {}, got {}",
                self.dead_band, self.full_speed_force
            ));
        }
        if !(self.vertical_speed >= 0.0 && self.vertical_speed.is_finite()) {
            return Err(format!("dispersion vertical_speed must be a finite speed >= 0 m/s, got {}", self.vertical_speed));
        }
        if !(self.min_caudal >= 0.0 && self.min_caudal.is_finite()) {
            return Err(format!("dispersion min_caudal must be >= 0 Hz, got {}", self.min_caudal));
        }
        if !(self.min_depth >= 0.0 && self.min_depth.is_finite()) {
            return Err(format!("dispersion min_depth must be a finite depth >= 0 m, got {}", self.min_depth));
        }
        if !(self.max_depth > self.min_depth && self.max_depth.is_finite()) {
            return Err(format!("dispersion max_depth must be a finite depth > min_depth = {} m, got {}", self.min_depth, self.max_depth));
        }
        Ok(())
    }

    /// The force of a neighbour at `r` m, 1/m (positive: attractive).
    pub fn force(&self, r: f64) -> f64 {
        if self.target_distance.is_infinite() {
            return -1.0 / r.max(1e-3);
        }
        let q = self.target_distance / r.max(1e-3);
        // a = 2 b puts the zero exactly at d_t; in general at d_t (a / 2b)^(1 / (a - b)).
        (2.0 * self.b * q.powf(self.b) - self.a * q.powf(self.a)) / r.max(1e-3)
    }

    /// The program's next move from body-frame neighbour positions (the paper's Eq. 2:
    /// force x relative position, the force's distance clipped at d_t + 2 BL), 1.
    pub fn program_move(&self, positions: &[[f64; 3]]) -> [f64; 3] {
        let clip = self.target_distance + PROGRAM_CLIP;
        let mut p = [0.0; 3];
        for r in positions {
            let d = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt().clamp(1e-3, clip);
            let f = self.force(d);
            for k in 0..3 {
                p[k] += f * r[k] / positions.len() as f64;
            }
        }
        p
    }

    /// The next move p from body-frame neighbour positions, 1/m.
    pub fn next_move(&self, positions: &[[f64; 3]]) -> [f64; 3] {
        let mut p = [0.0; 3];
        for r in positions {
            let d = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt().max(1e-6);
            let f = self.force(d);
            for k in 0..3 {
                p[k] += f * r[k] / d / positions.len() as f64;
            }
        }
        p
    }
}

/// The dispersion firmware of one robot.
#[derive(Clone, Debug)]
pub struct DispersionFirmware {
    params: DispersionParams,
    gait: Gait,
    depth_target: Option<f64>,
    diving: bool,
    last_time: Option<f64>,
    last_move: [f64; 3],
    seen: usize,
}

impl DispersionFirmware {
    /// A robot dispersing with `params`.
    pub fn new(params: DispersionParams) -> Self {
        Self { params, gait: Gait::default(), depth_target: None, diving: false, last_time: None, last_move: [0.0; 3], seen: 0 }
    }

    /// Changes d_t while running (m, > 0; infinite for unbounded dispersion).
    pub fn set_target_distance(&mut self, target_distance: f64) -> Result<(), String> {
        let params = DispersionParams { target_distance, ..self.params };
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// The parameters.
    pub fn params(&self) -> &DispersionParams {
        &self.params
    }

    /// The last move vector p, 1/m (body frame).
    pub fn last_move(&self) -> [f64; 3] {
        self.last_move
    }

    /// The program's command for a move `p` (body frame, 1; zero: nobody seen).
    fn program_command(&mut self, p: [f64; 3]) -> BluebotCommand {
        let magnitude = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        if magnitude == 0.0 {
            let dorsal = if self.diving { self.gait.max_dorsal } else { 0.0 };
            return BluebotCommand { dorsal, leds: true, ..BluebotCommand::default() };
        }
        let pitch = p[2].atan2(p[0].hypot(p[1])).to_degrees();
        if pitch < -2.0 {
            self.diving = true;
        } else if pitch > 2.0 {
            self.diving = false;
        }
        let dorsal = if self.diving { self.gait.max_dorsal } else { 0.0 };
        // Degrees clockwise from the bow (the program's sign: positive to the right).
        let heading = -p[1].atan2(p[0]).to_degrees();
        let caudal = (1.5 + 0.4 * magnitude).min(2.0);
        let (caudal, left, right) = if heading.abs() > 155.0 {
            (0.0, 2.5, 2.5)
        } else if heading.abs() < 10.0 {
            (caudal, 0.0, 0.0)
        } else {
            let turn = 1.0 + 1.5 * heading.abs() / 155.0;
            let caudal = if heading.abs() < 35.0 { caudal } else { 0.0 };
            if heading > 0.0 {
                (caudal, turn, 0.0)
            } else {
                (caudal, 0.0, turn)
            }
        };
        BluebotCommand { caudal, pectoral_left: left, pectoral_right: right, dorsal, leds: true, flashing: false }
    }

    /// The command for a move `p` (body frame, 1/m), `dt` s after the last one.
    pub fn command_for(&mut self, p: [f64; 3], depth: f64, dt: f64) -> BluebotCommand {
        let scale = if self.params.target_distance.is_finite() { self.params.target_distance } else { 1.0 };
        let strength = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt() * scale;
        let horizontal = p[0].hypot(p[1]) * scale;
        let logarithmic = if strength > self.params.dead_band {
            ((strength / self.params.dead_band).ln() / (self.params.full_speed_force / self.params.dead_band).ln()).min(1.0)
        } else {
            0.0
        };
        let floor = if strength > 0.0 { (self.params.min_caudal / self.gait.max_caudal).min(1.0) } else { 0.0 };
        let speed = logarithmic.max(floor);
        let target = self.depth_target.get_or_insert(depth);
        let climb = if strength > 0.0 { p[2] * scale / strength } else { 0.0 };
        *target = (*target - climb * speed * self.params.vertical_speed * dt).clamp(self.params.min_depth, self.params.max_depth);
        let target = *target;
        if speed <= 0.0 || horizontal <= 1e-12 {
            return BluebotCommand { dorsal: self.gait.dorsal(depth, target), leds: true, ..BluebotCommand::default() };
        }
        self.gait.steer(p[1].atan2(p[0]), speed, depth, target)
    }
}

impl Firmware<Bluebot> for DispersionFirmware {
    fn step(&mut self, time: f64, sensors: &BluebotSensors) -> BluebotCommand {
        let dt = self.last_time.map_or(0.0, |t| (time - t).max(0.0));
        self.last_time = Some(time);
        let positions: Vec<[f64; 3]> = sensors.neighbours.iter().map(|n| n.position()).collect();
        self.seen = positions.len();
        if self.params.gait == DispersionGait::Program {
            let p = if positions.is_empty() { [0.0; 3] } else { self.params.program_move(&positions) };
            self.last_move = p;
            return self.program_command(p);
        }
        let p = if positions.is_empty() { [0.0; 3] } else { self.params.next_move(&positions) };
        self.last_move = p;
        self.command_for(p, sensors.depth, dt)
    }

    fn status(&self) -> String {
        format!(
            "dispersion: d_t = {:.3} m, {} neighbours seen, |p| = {:.2} 1/m",
            self.params.target_distance,
            self.seen,
            self.last_move.iter().map(|x| x * x).sum::<f64>().sqrt()
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
    use flotilla_contract::bluebot::Neighbour;

    fn reading(neighbours: Vec<Neighbour>) -> BluebotSensors {
        BluebotSensors { depth: 0.4, neighbours, ..Default::default() }
    }

    // Regression: an infinite vertical speed, max depth or full speed force passed
    // validation (`ros2 param set /robot_controller bluebot.vertical_speed .inf` was
    // accepted) and the depth target became NaN (0 x inf), so every dorsal command was NaN.
    #[test]
    fn non_finite_bounds_are_refused_naming_the_key() {
        for name in ["vertical_speed", "max_depth", "min_depth", "full_speed_force", "dead_band"] {
            for v in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
                let mut p = DispersionParams::default();
                match name {
                    "vertical_speed" => p.vertical_speed = v,
                    "max_depth" => p.max_depth = v,
                    "min_depth" => p.min_depth = v,
                    "full_speed_force" => p.full_speed_force = v,
                    _ => p.dead_band = v,
                }
                let err = p.validate().expect_err(name);
                assert!(err.contains(&format!(" {name} ")), "{name} = {v}: {err}");
            }
        }
        assert_eq!(DispersionParams::default().validate(), Ok(()));
        // Largest finite values stay finite through a step with and without neighbours.
        let big = DispersionParams { vertical_speed: f64::MAX, max_depth: f64::MAX, ..Default::default() };
        assert_eq!(big.validate(), Ok(()));
        let mut fw = DispersionFirmware::new(big);
        for (t, neighbours) in [(0.0, vec![]), (0.5, vec![Neighbour { azimuth: 0.3, elevation: 0.4, distance: 0.4 }]), (1.0, vec![])] {
            let c = fw.step(t, &reading(neighbours));
            assert!(c.dorsal.is_finite() && c.caudal.is_finite(), "{c:?}");
        }
    }

    #[test]
    fn the_force_vanishes_at_the_target_distance_and_changes_sign() {
        let p = DispersionParams::default();
        assert!(p.force(0.26).abs() < 1e-12);
        assert!(p.force(0.2) < 0.0 && p.force(0.4) > 0.0);
        assert!(p.force(0.1) < -1000.0, "grows without bound closer");
        assert!(p.force(3.0) < p.force(0.4), "fades far away");
        // By hand at r = 2 d_t: (12 / 64 - 12 / 4096) / 0.52.
        assert!((p.force(0.52) - (12.0 / 64.0 - 12.0 / 4096.0) / 0.52).abs() < 1e-12);
    }

    #[test]
    fn too_close_swims_away_too_far_swims_toward() {
        let mut fw = DispersionFirmware::new(DispersionParams::default());
        // One neighbour 0.15 m dead ahead: repelled, so turn around (on the spot).
        let near = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.15 };
        let c = fw.step(0.0, &reading(vec![near]));
        assert!(c.caudal == 0.0 && c.pectoral_left + c.pectoral_right > 0.0, "{c:?}");
        // One neighbour 0.4 m ahead: attracted, swim forward.
        let far = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.4 };
        let c = fw.step(0.5, &reading(vec![far]));
        assert!(c.caudal > 0.0 && c.pectoral_left == 0.0 && c.pectoral_right == 0.0, "{c:?}");
        // Two equal neighbours on either side balance: no swimming.
        let left = Neighbour { azimuth: std::f64::consts::FRAC_PI_2, elevation: 0.0, distance: 0.3 };
        let right = Neighbour { azimuth: -std::f64::consts::FRAC_PI_2, elevation: 0.0, distance: 0.3 };
        let c = fw.step(1.0, &reading(vec![left, right]));
        assert!(c.caudal == 0.0 && c.leds, "{c:?}");
    }

    #[test]
    fn a_robot_that_sees_a_neighbour_keeps_swimming_at_the_lowest_caudal_frequency() {
        // A neighbour a hair beyond d_t ahead: |p| d_t = 72e-9, below the dead band.
        let hair = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.26 * (1.0 + 1e-9) };
        let mut moving = DispersionFirmware::new(DispersionParams::default());
        let c = moving.step(0.0, &reading(vec![hair.clone()]));
        assert!((c.caudal - 1.5).abs() < 1e-12 && c.pectoral_left == 0.0 && c.pectoral_right == 0.0, "{c:?}");
        let mut still = DispersionFirmware::new(DispersionParams { min_caudal: 0.0, ..DispersionParams::default() });
        assert_eq!(still.step(0.0, &reading(vec![hair.clone()])).caudal, 0.0, "min_caudal 0: the dead band holds it");
        // A strong pull is above the floor: the log map decides.
        let far = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.4 };
        assert!(moving.step(0.5, &reading(vec![far])).caudal > 2.0);
        // Nobody seen: it does not swim.
        assert_eq!(moving.step(1.0, &reading(vec![])).caudal, 0.0);
        assert!(moving.set_parameter("min_caudal", -1.0).unwrap_err().contains("min_caudal"));
    }

    #[test]
    fn the_target_distance_switches_while_running_and_infinity_disperses() {
        let mut fw = DispersionFirmware::new(DispersionParams::default());
        let n = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.4 };
        assert!(fw.step(0.0, &reading(vec![n.clone()])).caudal > 0.0, "attracted at d_t = 0.26 m");
        fw.set_target_distance(0.6).unwrap();
        assert_eq!(fw.step(0.5, &reading(vec![n.clone()])).caudal, 0.0, "repelled at d_t = 0.6 m: turns away");
        fw.set_target_distance(f64::INFINITY).unwrap();
        assert!(fw.params().force(2.0) < 0.0);
        assert!(fw.set_target_distance(-1.0).unwrap_err().contains("target_distance"));
        // A neighbour above pushes the depth target down at d_t = inf.
        let above = Neighbour { azimuth: 0.0, elevation: 1.2, distance: 0.3 };
        let c = fw.step(1.0, &reading(vec![above]));
        assert!(c.dorsal > Gait::default().hover, "{c:?}");
    }

    #[test]
    fn the_program_gait_swims_at_1_5_to_2_hz_turns_slowly_and_backs_off() {
        let params = DispersionParams { gait: DispersionGait::Program, ..DispersionParams::default() };
        let mut fw = DispersionFirmware::new(params);
        // 0.4 m dead ahead: attracted; p = (12 (0.65^6 - 0.65^12)) = 0.8673..., caudal 1.5 + 0.4 |p|.
        let ahead = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.4 };
        let c = fw.step(0.0, &reading(vec![ahead]));
        let q: f64 = 0.26 / 0.4;
        let p = 12.0 * (q.powi(6) - q.powi(12));
        assert!((c.caudal - (1.5 + 0.4 * p)).abs() < 1e-12 && c.pectoral_left == 0.0 && c.pectoral_right == 0.0, "{c:?}");
        // Far away the force stops fading at d_t + 2 BL and grows with the distance: capped at 2 Hz.
        let far = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 5.0 };
        assert_eq!(fw.step(0.5, &reading(vec![far])).caudal, 2.0);
        // 90 deg to the right: the left pectoral at 1 + 1.5 * 90 / 155 Hz, no caudal (beyond 35 deg).
        let right = Neighbour { azimuth: -std::f64::consts::FRAC_PI_2, elevation: 0.0, distance: 0.4 };
        let c = fw.step(1.0, &reading(vec![right]));
        assert!(c.caudal == 0.0 && (c.pectoral_left - (1.0 + 1.5 * 90.0 / 155.0)).abs() < 1e-9 && c.pectoral_right == 0.0, "{c:?}");
        // 20 deg to the left: the right pectoral and the caudal fin.
        let left = Neighbour { azimuth: 20f64.to_radians(), elevation: 0.0, distance: 0.4 };
        let c = fw.step(1.5, &reading(vec![left]));
        assert!(c.caudal > 1.5 && c.pectoral_right > 1.0 && c.pectoral_left == 0.0, "{c:?}");
        // Too close dead ahead: p points behind, both pectorals back it off.
        let near = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.15 };
        let c = fw.step(2.0, &reading(vec![near]));
        assert!(c.caudal == 0.0 && c.pectoral_left == 2.5 && c.pectoral_right == 2.5, "{c:?}");
        // The dorsal fin: on while p points down, kept while level, off while p points up.
        let below = Neighbour { azimuth: 0.0, elevation: -0.5, distance: 0.4 };
        assert_eq!(fw.step(2.5, &reading(vec![below])).dorsal, Gait::default().max_dorsal);
        let level = Neighbour { azimuth: 0.0, elevation: 0.0, distance: 0.4 };
        assert_eq!(fw.step(3.0, &reading(vec![level])).dorsal, Gait::default().max_dorsal);
        let above = Neighbour { azimuth: 0.0, elevation: 0.5, distance: 0.4 };
        assert_eq!(fw.step(3.5, &reading(vec![above])).dorsal, 0.0);
        // Nobody seen: no swimming.
        let c = fw.step(4.0, &reading(vec![]));
        assert!(c.caudal == 0.0 && c.pectoral_left == 0.0 && c.pectoral_right == 0.0, "{c:?}");
    }
}
