//! The 2-D prototype in its tank (SPEC 5), one trial at a time: square modules 80 x 80 mm
//! floating 64 mm deep in a 126 x 68 cm tank, four pumps of about 11 ml/s per module, a
//! torch outside the tank on the +x side, start and finish lines 50 cm apart (the finish
//! 20 cm from the torch). The robot starts just behind the start line in a yaw and lateral
//! offset drawn from the trial's seed; the time runs from its centre of mass crossing the
//! start line to crossing the finish line.
//!
//! A pump's force is the momentum flux of its jet, `rho Q^2 / A` for flow Q through an
//! outlet of area A (the outlet diameter is not published: an assumption). The robot is
//! the whole-robot model [`MhpRobot`]; the tank's walls hold it inelastically (a module
//! corner that would pass a wall is put back on it and the velocity into the wall is
//! dropped). Both `flotilla experiment mhp prototype` and the `mhp_tank` node run this.

use flotilla_contract::mhp::{MhpCommand, MhpLayout, MhpSensors, THRUST_ON_THRESHOLD};
use flotilla_contract::robot_seed;
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::robot::num;
use super::shapes::prototype_configurations;
use super::{MhpError, MhpFaults, MhpParams, MhpRobot, Morphology};

/// The configurations' names, as `flotilla experiment mhp prototype` and the launch file
/// take them (the nine free polyominoes of one to four squares).
pub const CONFIGURATION_NAMES: &str = "1, 2, 3I, 3L, 4I, 4O, 4T, 4S, 4L";

/// Control (sensing, firmware, pump switching) period of the prototype, s.
pub const CONTROL_PERIOD: f64 = 0.05;

/// The configuration called `name`: one of [`CONFIGURATION_NAMES`], or `file:PATH`, a
/// robot file ([`super::file`]) of square modules, or of cubes all in the plane z = 0
/// (the prototype floats: its robots are flat). A file's module side, thrust and faults
/// are not the prototype's and are refused.
pub fn configuration(name: &str) -> Result<Morphology, ConfigurationError> {
    if let Some(path) = name.strip_prefix("file:") {
        // `file:` alone used to be reported as `: No such file or directory`.
        if path.trim().is_empty() {
            return Err(ConfigurationError::Unknown { name: name.to_owned() });
        }
        let file = super::file::load(std::path::Path::new(path))?;
        if file.module_side.is_some() || file.thrust.is_some() || file.faults != MhpFaults::default() {
            return Err(ConfigurationError::FileSettings { path: path.to_owned() });
        }
        let cells = file.morphology.cells().to_vec();
        if cells.iter().any(|c| c[2] != 0) {
            return Err(ConfigurationError::NotFlat { path: path.to_owned() });
        }
        return Ok(Morphology::new(super::Lattice::Square, cells)?);
    }
    prototype_configurations()
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, m)| m)
        .ok_or_else(|| ConfigurationError::Unknown { name: name.to_owned() })
}

/// A configuration the prototype cannot take.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigurationError {
    /// A name that is none of the nine.
    #[error("unknown configuration `{name}`: expected one of {CONFIGURATION_NAMES}, or file:PATH (a robot file)")]
    Unknown {
        /// The name given.
        name: String,
    },
    /// The robot file cannot be read or is not a robot.
    #[error(transparent)]
    File(#[from] super::file::RobotFileError),
    /// A robot file with modules off the plane z = 0.
    #[error("{path}: the prototype's robots float flat: every module needs z = 0")]
    NotFlat {
        /// The file.
        path: String,
    },
    /// A robot file that sets module side, thrust or faults (the prototype's modules are
    /// its own: 80 mm, its pumps).
    #[error("{path}: module_side_cm, thrust_mN and faults are the prototype's own; give the file only `lattice` and modules")]
    FileSettings {
        /// The file.
        path: String,
    },
    /// The cells do not form a robot (cannot happen for a file the reader accepted).
    #[error(transparent)]
    Morphology(#[from] super::MorphologyError),
}

/// The tank and its marks, in the model frame: the water surface's centre at the origin,
/// x towards the torch, z up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrototypeTank {
    /// Inner length along x, m (126 cm).
    pub size_x: f64,
    /// Inner width along y, m (68 cm).
    pub size_y: f64,
    /// Start line, x in m.
    pub start_x: f64,
    /// Finish line, x in m (50 cm after the start line).
    pub finish_x: f64,
    /// The torch (the target), m: outside the tank beyond its +x wall.
    pub torch: Vector3<f64>,
    /// How far behind the start line the centre of mass starts, m.
    pub start_behind: f64,
    /// The start's lateral offset is drawn from U(-spread, spread), m.
    pub start_spread: f64,
}

impl Default for PrototypeTank {
    fn default() -> Self {
        Self {
            size_x: 1.26,
            size_y: 0.68,
            start_x: -0.05,
            finish_x: 0.45,
            torch: Vector3::new(0.65, 0.0, 0.0),
            start_behind: 0.05,
            start_spread: 0.02,
        }
    }
}

/// A tank setting that cannot hold a trial.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{name}: {message}")]
pub struct TankError {
    /// The setting (as the node's parameter names it, without its section).
    pub name: &'static str,
    /// What is wrong.
    pub message: String,
}

impl PrototypeTank {
    /// Checks the tank: positive sizes, the lines inside the tank in order, the torch
    /// outside it, the start inside it.
    pub fn validate(&self) -> Result<(), TankError> {
        let err = |name, message: String| Err(TankError { name, message });
        for (name, v) in [("size_x", self.size_x), ("size_y", self.size_y)] {
            if !(v.is_finite() && v > 0.0) {
                return err(name, format!("must be positive and finite, got {v} m"));
            }
        }
        let (hx, hy) = (0.5 * self.size_x, 0.5 * self.size_y);
        if !(self.start_x.is_finite() && self.start_x.abs() < hx) {
            return err("start_x", format!("must be inside the tank (|x| < {hx} m), got {} m", self.start_x));
        }
        if !(self.finish_x.is_finite() && self.finish_x > self.start_x && self.finish_x < hx) {
            return err(
                "finish_x",
                format!("must be after start_x ({} m) and inside the tank (< {hx} m), got {} m", self.start_x, self.finish_x),
            );
        }
        if !(self.torch.iter().all(|v| v.is_finite()) && (self.torch.x.abs() > hx || self.torch.y.abs() > hy)) {
            return err("torch", format!("must be outside the tank (|x| > {hx} m or |y| > {hy} m), got {:?} m", self.torch.as_slice()));
        }
        if !(self.start_behind.is_finite() && self.start_behind >= 0.0 && self.start_x - self.start_behind > -hx) {
            return err("start_behind", format!("must be >= 0 m and keep the start in the tank, got {} m", self.start_behind));
        }
        if !(self.start_spread.is_finite() && self.start_spread > 0.0 && self.start_spread < hy) {
            return err("start_spread", format!("must be in (0, {hy}) m, got {} m", self.start_spread));
        }
        Ok(())
    }
}

/// The prototype's modules: pumps and flotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrototypeModules {
    /// Flow of one pump, ml/s (the paper: about 11).
    pub flow_ml_s: f64,
    /// Inner diameter of a pump's outlet, mm (assumed: 4).
    pub outlet_mm: f64,
    /// Water level in and around a module, mm (64 of its 90 mm height).
    pub draft_mm: f64,
}

impl Default for PrototypeModules {
    fn default() -> Self {
        Self { flow_ml_s: 11.0, outlet_mm: 4.0, draft_mm: 64.0 }
    }
}

/// Side of a prototype module, m (80 mm).
pub const MODULE_SIDE: f64 = 0.08;
/// Height of a prototype module, m (90 mm).
pub const MODULE_HEIGHT: f64 = 0.09;

impl PrototypeModules {
    /// Checks the modules: a positive flow and outlet whose jet force `rho Q^2 / A` is
    /// positive and finite, a draft within the module's height (a module floating deeper
    /// than it is tall is under water). A flow of 1e308 ml/s was reported as a bad
    /// configuration ("thrust = inf"); a draft of 1e308 mm ran.
    pub fn validate(&self) -> Result<(), TankError> {
        let err = |name, message: String| Err(TankError { name, message });
        for (name, v, unit) in
            [("flow_ml_s", self.flow_ml_s, "ml/s"), ("outlet_mm", self.outlet_mm, "mm"), ("draft_mm", self.draft_mm, "mm")]
        {
            if !(v.is_finite() && v > 0.0) {
                return err(name, format!("must be positive and finite, got {} {unit}", num(v)));
            }
        }
        let height_mm = MODULE_HEIGHT * 1e3;
        if self.draft_mm > height_mm {
            return err(
                "draft_mm",
                format!(
                    "must be at most the module's height {height_mm} mm (a module floating deeper is under water), got {} mm",
                    num(self.draft_mm)
                ),
            );
        }
        let thrust = self.params().thrust;
        if !(thrust.is_finite() && thrust > 0.0) {
            // Q^2 overflows with the flow, A with the outlet (or A underflows to 0).
            let name = if (self.flow_ml_s * 1e-6).powi(2).is_finite() { "outlet_mm" } else { "flow_ml_s" };
            return err(
                name,
                format!(
                    "a pump's force rho Q^2 / A from flow {} ml/s through an outlet of {} mm is {} N: it must be positive and finite",
                    num(self.flow_ml_s),
                    num(self.outlet_mm),
                    num(thrust)
                ),
            );
        }
        Ok(())
    }

    /// The model's parameters: 80 mm squares, the wetted height of the draft, the jet's
    /// momentum flux as the pump force, water, C = 0.8, 10 ms steps.
    pub fn params(&self) -> MhpParams {
        let mut params = MhpParams::with_module_side(MODULE_SIDE);
        let (flow, outlet) = (self.flow_ml_s * 1e-6, self.outlet_mm * 1e-3);
        params.wetted_height = self.draft_mm * 1e-3;
        params.thrust = params.fluid_density * flow * flow / (std::f64::consts::PI * outlet * outlet / 4.0);
        params
    }
}

/// Where a trial stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The centre of mass has not reached the start line.
    BeforeStart,
    /// Between the lines.
    Racing,
    /// Crossed the finish line.
    Finished,
}

/// One robot in the tank, from its start to wherever it goes.
#[derive(Clone, Debug)]
pub struct PrototypeTrial {
    robot: MhpRobot,
    tank: PrototypeTank,
    /// Module centres from the centre of mass, body frame, m.
    centres: Vec<Vector3<f64>>,
    /// Integration steps per control period.
    every: u64,
    steps: u64,
    /// Per face: the pump fires (the last command applied).
    pumps: Vec<bool>,
    /// Sim times of crossing the start and finish lines, s.
    started: Option<f64>,
    finished: Option<f64>,
    /// Steps on which a wall held the robot.
    wall_contacts: u64,
}

/// The farthest a module's corner lies from the robot's centroid, m.
fn morphology_reach(morphology: &Morphology, side: f64) -> f64 {
    let c = morphology.centroid();
    morphology
        .cells()
        .iter()
        .map(|cell| {
            let (dx, dy) = ((f64::from(cell[0]) - c[0]).abs() + 0.5, (f64::from(cell[1]) - c[1]).abs() + 0.5);
            dx.hypot(dy) * side
        })
        .fold(0.0, f64::max)
}

impl PrototypeTrial {
    /// Trial `trial` of a run seeded `seed`: the robot of `morphology` placed behind the
    /// start line with a yaw U(0, 2 pi) and a lateral offset U(-spread, spread) drawn
    /// (after the robot's own fault draws) from `robot_seed(seed, trial)`.
    pub fn new(morphology: &Morphology, modules: PrototypeModules, tank: PrototypeTank, seed: u64, trial: u32) -> Result<Self, MhpError> {
        let params = modules.params();
        let reach = morphology_reach(morphology, params.module_side);
        if 2.0 * reach > tank.size_y.min(tank.size_x) {
            return Err(MhpError::TooLargeForTank { diameter: 2.0 * reach, width: tank.size_y.min(tank.size_x) });
        }
        let mut rng = ChaCha8Rng::seed_from_u64(robot_seed(seed, trial));
        let mut robot = MhpRobot::new(morphology, params, MhpFaults::default(), &mut rng)?;
        let yaw = rng.gen_range(0.0..std::f64::consts::TAU);
        let y = rng.gen_range(-tank.start_spread..tank.start_spread);
        robot.place(Vector3::new(tank.start_x - tank.start_behind, y, 0.0), UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw));
        let c = Vector3::from(morphology.centroid());
        let centres = morphology
            .cells()
            .iter()
            .map(|cell| (Vector3::new(f64::from(cell[0]), f64::from(cell[1]), f64::from(cell[2])) - c) * params.module_side)
            .collect();
        let pumps = vec![false; robot.face_slots()];
        let every = (CONTROL_PERIOD / params.dt).round().max(1.0) as u64;
        Ok(Self { robot, tank, centres, every, steps: 0, pumps, started: None, finished: None, wall_contacts: 0 })
    }

    /// Whether a control step (reading, firmware, pumps) is due before the next
    /// integration step: every [`CONTROL_PERIOD`], from time 0.
    pub fn control_due(&self) -> bool {
        self.steps % self.every == 0
    }

    /// The robot's reading now (the torch as the target; with `navigation`, what a
    /// central controller knows).
    pub fn read(&mut self, navigation: bool) -> &MhpSensors {
        let torch = self.tank.torch;
        self.robot.read(torch, navigation)
    }

    /// Switches the pumps (robot `name`, for errors).
    pub fn apply(&mut self, name: &str, command: &MhpCommand) -> Result<(), MhpError> {
        self.robot.apply(name, command)?;
        self.pumps.clear();
        self.pumps.extend(command.thrust.iter().map(|&t| t >= THRUST_ON_THRESHOLD));
        Ok(())
    }

    /// One integration step: the robot moves, the walls hold it, the lines are checked.
    pub fn step(&mut self) -> Stage {
        self.robot.step();
        self.steps += 1;
        if self.contain() {
            self.wall_contacts += 1;
        }
        let (x, t) = (self.robot.body().position.x, self.robot.time());
        if self.started.is_none() && x >= self.tank.start_x {
            self.started = Some(t);
        }
        if self.started.is_some() && self.finished.is_none() && x >= self.tank.finish_x {
            self.finished = Some(t);
        }
        self.progress()
    }

    /// Where the trial stands.
    pub fn progress(&self) -> Stage {
        match (self.started, self.finished) {
            (_, Some(_)) => Stage::Finished,
            (Some(_), None) => Stage::Racing,
            (None, None) => Stage::BeforeStart,
        }
    }

    /// Start line to finish line, s (once finished).
    pub fn crossing_time(&self) -> Option<f64> {
        Some(self.finished? - self.started?)
    }

    /// Sim time the centre of mass crossed the start line, s.
    pub fn started(&self) -> Option<f64> {
        self.started
    }

    /// Sim time the centre of mass crossed the finish line, s.
    pub fn finished(&self) -> Option<f64> {
        self.finished
    }

    /// Whether the centre of mass is within 4 cm of a side wall or the back wall (the
    /// experiment counts such a trial as lost).
    pub fn near_side_or_back_wall(&self) -> bool {
        let p = self.robot.body().position;
        p.y.abs() > 0.5 * self.tank.size_y - 0.04 || p.x < -0.5 * self.tank.size_x + 0.04
    }

    /// Integration steps on which a wall held the robot.
    pub fn wall_contacts(&self) -> u64 {
        self.wall_contacts
    }

    /// Sim time, s.
    pub fn time(&self) -> f64 {
        self.robot.time()
    }

    /// The robot model.
    pub fn robot(&self) -> &MhpRobot {
        &self.robot
    }

    /// The tank.
    pub fn tank(&self) -> &PrototypeTank {
        &self.tank
    }

    /// The outer pumps as the robot's builder knows them.
    pub fn layout(&self) -> MhpLayout {
        self.robot.layout()
    }

    /// Per face: whether its pump fires (the last command applied).
    pub fn pumps(&self) -> &[bool] {
        &self.pumps
    }

    /// Number of modules.
    pub fn modules(&self) -> usize {
        self.centres.len()
    }

    /// Module `i`'s pose in the model frame (its centre at the water line).
    pub fn module_pose(&self, i: usize) -> Isometry3<f64> {
        let b = self.robot.body();
        Isometry3::from_parts(Translation3::from(b.position + b.orientation * self.centres[i]), b.orientation)
    }

    /// Velocity of module `i`'s centre, model frame, m/s.
    pub fn module_velocity(&self, i: usize) -> Vector3<f64> {
        let b = self.robot.body();
        b.velocity + b.orientation * b.angular_velocity.cross(&self.centres[i])
    }

    /// Puts the robot back inside the walls: the corner farthest past each wall is moved
    /// onto it and the velocity into that wall dropped (inelastic, frictionless). True when
    /// a wall held it.
    fn contain(&mut self) -> bool {
        let h = 0.5 * self.robot.params().module_side;
        let (hx, hy) = (0.5 * self.tank.size_x, 0.5 * self.tank.size_y);
        let b = self.robot.body();
        let (mut lo, mut hi) = (Vector3::repeat(f64::INFINITY), Vector3::repeat(f64::NEG_INFINITY));
        for c in &self.centres {
            for (sx, sy) in [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)] {
                let p = b.position + b.orientation * (c + Vector3::new(sx * h, sy * h, 0.0));
                lo = lo.inf(&p);
                hi = hi.sup(&p);
            }
        }
        let body = self.robot.body_mut();
        let mut held = false;
        for (axis, half) in [(0, hx), (1, hy)] {
            if hi[axis] > half {
                body.position[axis] -= hi[axis] - half;
                body.velocity[axis] = body.velocity[axis].min(0.0);
                held = true;
            } else if lo[axis] < -half {
                body.position[axis] += -half - lo[axis];
                body.velocity[axis] = body.velocity[axis].max(0.0);
                held = true;
            }
        }
        held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_contract::mhp::MhpFirmware;

    /// Regression: a flow of 1e308 ml/s or an outlet of 1e308 mm was reported as a bad
    /// configuration ("parameter thrust = inf"), and a draft deeper than the module (1e308
    /// mm, or 100 mm of its 90) ran.
    #[test]
    fn pumps_and_drafts_beyond_the_module_are_named() {
        let d = PrototypeModules::default();
        assert_eq!(d.validate(), Ok(()));
        for (modules, name, says) in [
            (PrototypeModules { flow_ml_s: 1e308, ..d }, "flow_ml_s", "is inf N"),
            (PrototypeModules { outlet_mm: 1e308, ..d }, "outlet_mm", "is 0 N"),
            (PrototypeModules { draft_mm: 1e308, ..d }, "draft_mm", "at most the module's height 90 mm"),
            (PrototypeModules { draft_mm: 100.0, ..d }, "draft_mm", "got 100 mm"),
            (PrototypeModules { flow_ml_s: f64::NAN, ..d }, "flow_ml_s", "must be positive and finite"),
        ] {
            let e = modules.validate().unwrap_err();
            assert!(e.name == name && e.message.contains(says), "{e}");
        }
        assert_eq!(PrototypeModules { draft_mm: 90.0, ..d }.validate(), Ok(()));
    }

    /// A trial of configuration `name` under the prototype's controller for `limit` s.
    fn run(name: &str, seed: u64, limit: f64) -> PrototypeTrial {
        let m = configuration(name).unwrap();
        let mut trial = PrototypeTrial::new(&m, PrototypeModules::default(), PrototypeTank::default(), seed, 0).unwrap();
        let mut firmware = flotilla_firmware::mhp::MhpPrototypeReactive { faces_per_module: 4 };
        let mut command = MhpCommand::default();
        while trial.time() < limit {
            if trial.control_due() {
                let t = trial.time();
                firmware.step_into(t, trial.read(false), &mut command);
                trial.apply(name, &command).unwrap();
            }
            trial.step();
        }
        trial
    }

    #[test]
    fn the_t_crosses_fifty_centimetres_and_the_wall_stops_it() {
        let t = run("4T", 0, 30.0);
        let crossing = t.crossing_time().unwrap();
        // The experiment's figure for 4T, seed 0, trial 0 (docs/mhp.md: 5.9-8.8 s).
        assert!((6.0..10.0).contains(&crossing), "{crossing}");
        assert_eq!(t.progress(), Stage::Finished);
        // Held by the +x wall: no corner beyond it, pressing on.
        assert!(t.wall_contacts() > 0);
        // A square reaches at least half its side beyond its centre in x.
        for i in 0..t.modules() {
            assert!(t.module_pose(i).translation.x + 0.04 <= 0.63 + 1e-9);
        }
        assert!(t.robot().body().velocity.x <= 1e-12);
    }

    #[test]
    fn pump_force_and_names() {
        // rho Q^2 / A = 1000 * (11e-6)^2 / (pi * 0.002^2) = 9.63 mN.
        let p = PrototypeModules::default().params();
        assert!((p.thrust - 9.6289e-3).abs() < 1e-6, "{}", p.thrust);
        assert_eq!(configuration("4T").unwrap().len(), 4);
        let e = configuration("5X").unwrap_err().to_string();
        assert!(e.contains("`5X`") && e.contains("4T"), "{e}");
        let e = configuration("file:").unwrap_err().to_string();
        assert!(e.contains("unknown configuration `file:`") && e.contains("file:PATH"), "{e}");
        assert!(PrototypeTank::default().validate().is_ok());
        let bad = PrototypeTank { torch: Vector3::new(0.2, 0.0, 0.0), ..PrototypeTank::default() };
        assert_eq!(bad.validate().unwrap_err().name, "torch");
        let bad = PrototypeTank { finish_x: -0.1, ..PrototypeTank::default() };
        assert_eq!(bad.validate().unwrap_err().name, "finish_x");
    }

    #[test]
    fn trials_are_seeded() {
        let (a, b, c) = (run("4L", 3, 2.0), run("4L", 3, 2.0), run("4L", 4, 2.0));
        assert_eq!(a.robot().body(), b.robot().body());
        assert_ne!(a.robot().body(), c.robot().body());
    }
}
