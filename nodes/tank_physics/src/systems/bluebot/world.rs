//! The Blueswarm world: Bluebots in the tank, stepped by the dedicated integrator
//! ([`super::body`]), touching the walls, the floor and each other as spheres, and seeing
//! each other through a [`Vision`] of either fidelity.
//!
//! Its API is three calls per robot, for the physics node and in-process experiments alike:
//! [`SwarmWorld::apply`] a command, [`SwarmWorld::step`] the world, [`SwarmWorld::sense`]
//! a reading (the cameras run at 2 Hz: call it every [`SwarmConfig::sensing_period`]).

use super::body::{BodyConstants, BodyParams, BodyState};
use super::photodiode::Photodiode;
use super::tank::Tank;
use super::vision::{Fidelity, LedLayout, Leds, RobotView, Scene, Vision};
use flotilla_contract::bluebot::{BluebotCommand, BluebotSensors};
use flotilla_contract::{robot_seed, OutOfRange};
use nalgebra::Vector3;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

/// Mixed into the run seed for the photodiodes' noise streams.
const PHOTODIODE_STREAM: u64 = 0x5048_4f54_4f44_494f;

/// How a Blueswarm world is built.
#[derive(Clone, Debug, PartialEq)]
pub struct SwarmConfig {
    /// The tank.
    pub tank: Tank,
    /// Every robot's body.
    pub body: BodyParams,
    /// Every robot's LEDs and occluding body.
    pub layout: LedLayout,
    /// Integration step, s.
    pub dt: f64,
    /// Time between two camera readings, s (2 Hz: 0.5 s).
    pub sensing_period: f64,
    /// Standard deviation of the pressure sensor's depth, m.
    pub depth_noise: f64,
    /// The vision's fidelity.
    pub fidelity: Fidelity,
    /// Every robot's forward-facing photodiode.
    pub photodiode: Photodiode,
}

impl Default for SwarmConfig {
    fn default() -> Self {
        Self {
            tank: Tank::default(),
            body: BodyParams::bluebot(),
            layout: LedLayout::default(),
            dt: 0.01,
            sensing_period: 0.5,
            depth_noise: 0.002,
            fidelity: Fidelity::Analytic,
            photodiode: Photodiode::default(),
        }
    }
}

/// A world that cannot be built or a request it cannot carry out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SwarmError {
    /// The tank's dimensions are unusable.
    #[error("{0}")]
    Tank(String),
    /// The photodiode's parameters are unusable.
    #[error("{0}")]
    Photodiode(String),
    /// The step or sensing period is not a positive number.
    #[error("{field} must be a positive number of seconds, got {value}")]
    Period {
        /// The field.
        field: &'static str,
        /// Its value, s.
        value: f64,
    },
    /// A robot placed outside the water.
    #[error("robot {name}: position ({x}, {y}, {z}) m is not under water in the tank")]
    OutsideWater {
        /// Its name.
        name: String,
        /// Position, m.
        x: f64,
        /// Position, m.
        y: f64,
        /// Position, m.
        z: f64,
    },
    /// No robot of this index.
    #[error("no robot {0} (the world has {1})")]
    NoRobot(usize, usize),
    /// A command out of range.
    #[error(transparent)]
    Command(#[from] OutOfRange),
}

/// One Bluebot in the world.
#[derive(Clone, Debug, PartialEq)]
pub struct Robot {
    /// Its name (`bluebot_0`, ...).
    pub name: String,
    /// Where it is and how it moves.
    pub body: BodyState,
    /// The command it is carrying out.
    pub command: BluebotCommand,
    /// Whether it is in the tank (removed robots neither move nor are seen).
    pub present: bool,
}

/// Bluebots in the tank.
pub struct SwarmWorld {
    config: SwarmConfig,
    constants: BodyConstants,
    robots: Vec<Robot>,
    rngs: Vec<ChaCha8Rng>,
    /// The photodiodes' noise, a stream of its own per robot so that adding the diode
    /// left every other draw as it was.
    diode_rngs: Vec<ChaCha8Rng>,
    vision: Box<dyn Vision>,
    seed: u64,
    steps: u64,
    contacts: u64,
}

impl SwarmWorld {
    /// An empty tank; every random draw of robot `i` comes from (`seed`, `i`).
    pub fn new(config: SwarmConfig, seed: u64) -> Result<Self, SwarmError> {
        config.tank.validate().map_err(SwarmError::Tank)?;
        config.photodiode.validate().map_err(SwarmError::Photodiode)?;
        for (field, value) in [("dt", config.dt), ("sensing_period", config.sensing_period)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(SwarmError::Period { field, value });
            }
        }
        let vision = config.fidelity.build();
        Ok(Self {
            constants: config.body.constants(),
            config,
            robots: Vec::new(),
            rngs: Vec::new(),
            diode_rngs: Vec::new(),
            vision,
            seed,
            steps: 0,
            contacts: 0,
        })
    }

    /// Replaces the vision (another fidelity or other camera parameters).
    pub fn with_vision(mut self, vision: Box<dyn Vision>) -> Self {
        self.vision = vision;
        self
    }

    /// Adds a robot at `position` (tank frame, m), level, heading `yaw` rad; returns its index.
    pub fn add(&mut self, name: &str, position: Vector3<f64>, yaw: f64) -> Result<usize, SwarmError> {
        if !self.config.tank.contains(&position) || !yaw.is_finite() {
            return Err(SwarmError::OutsideWater { name: name.to_owned(), x: position.x, y: position.y, z: position.z });
        }
        let index = self.robots.len();
        self.robots.push(Robot {
            name: name.to_owned(),
            body: BodyState::at_rest(position, yaw),
            command: BluebotCommand::default(),
            present: true,
        });
        self.rngs.push(ChaCha8Rng::seed_from_u64(robot_seed(self.seed, index as u32)));
        self.diode_rngs.push(ChaCha8Rng::seed_from_u64(robot_seed(self.seed ^ PHOTODIODE_STREAM, index as u32)));
        Ok(index)
    }

    /// Takes robot `index` out of the tank (false) or puts it back where it was (true).
    pub fn set_present(&mut self, index: usize, present: bool) -> Result<(), SwarmError> {
        let n = self.robots.len();
        let robot = self.robots.get_mut(index).ok_or(SwarmError::NoRobot(index, n))?;
        robot.present = present;
        Ok(())
    }

    /// Moves robot `index` to `position`, at rest, heading `yaw` rad.
    pub fn place(&mut self, index: usize, position: Vector3<f64>, yaw: f64) -> Result<(), SwarmError> {
        let n = self.robots.len();
        let tank = &self.config.tank;
        let robot = self.robots.get_mut(index).ok_or(SwarmError::NoRobot(index, n))?;
        if !tank.contains(&position) || !yaw.is_finite() {
            return Err(SwarmError::OutsideWater { name: robot.name.clone(), x: position.x, y: position.y, z: position.z });
        }
        robot.body = BodyState::at_rest(position, yaw);
        Ok(())
    }

    /// Robot `index` carries out `command` from now on (checked first).
    pub fn apply(&mut self, index: usize, command: &BluebotCommand) -> Result<(), SwarmError> {
        let n = self.robots.len();
        let robot = self.robots.get_mut(index).ok_or(SwarmError::NoRobot(index, n))?;
        command.validate(&robot.name)?;
        robot.command = command.clone();
        Ok(())
    }

    /// Advances by one step of [`SwarmConfig::dt`].
    pub fn step(&mut self) {
        let (params, k, dt) = (&self.config.body, &self.constants, self.config.dt);
        let surface = self.config.tank.water_depth;
        let radius = params.contact_radius;
        for robot in self.robots.iter_mut().filter(|r| r.present) {
            robot.body.step(params, k, &robot.command, surface, dt);
        }
        // Robots against robots: overlapping spheres are pushed apart equally and lose
        // their approaching speed (an inelastic touch).
        let n = self.robots.len();
        for i in 0..n {
            if !self.robots[i].present {
                continue;
            }
            for j in i + 1..n {
                if !self.robots[j].present {
                    continue;
                }
                let offset = self.robots[j].body.position - self.robots[i].body.position;
                let d2 = offset.norm_squared();
                if d2 >= 4.0 * radius * radius {
                    continue;
                }
                let d = d2.sqrt();
                let normal = if d > 1e-9 { offset / d } else { Vector3::x() };
                let push = 0.5 * (2.0 * radius - d) * normal;
                let closing = (self.robots[i].body.velocity - self.robots[j].body.velocity).dot(&normal).max(0.0);
                let (a, b) = self.robots.split_at_mut(j);
                a[i].body.position -= push;
                b[0].body.position += push;
                a[i].body.velocity -= 0.5 * closing * normal;
                b[0].body.velocity += 0.5 * closing * normal;
                self.contacts += 1;
            }
        }
        for robot in self.robots.iter_mut().filter(|r| r.present) {
            let b = &mut robot.body;
            if self.config.tank.confine(&mut b.position, &mut b.velocity, radius) {
                self.contacts += 1;
            }
        }
        self.steps += 1;
    }

    /// Advances by `seconds` (whole steps).
    pub fn run_for(&mut self, seconds: f64) {
        let steps = (seconds / self.config.dt).round().max(0.0) as u64;
        for _ in 0..steps {
            self.step();
        }
    }

    /// What every robot's cameras see of it right now.
    pub fn views(&self) -> Vec<RobotView> {
        self.robots
            .iter()
            .map(|r| RobotView {
                position: r.body.position,
                orientation: r.body.orientation,
                leds: match (r.command.flashing, r.command.leds) {
                    (true, _) => Leds::Flashing,
                    (false, true) => Leds::On,
                    (false, false) => Leds::Off,
                },
                present: r.present,
            })
            .collect()
    }

    /// Robot `index`'s reading now: vision, pressure sensor and photodiode.
    pub fn sense(&mut self, index: usize) -> Result<BluebotSensors, SwarmError> {
        let views = self.views();
        self.sense_with(&views, index)
    }

    /// Every present robot's reading now (None for removed robots), sharing one snapshot.
    pub fn sense_all(&mut self) -> Vec<Option<BluebotSensors>> {
        let views = self.views();
        (0..self.robots.len()).map(|i| if self.robots[i].present { self.sense_with(&views, i).ok() } else { None }).collect()
    }

    fn sense_with(&mut self, views: &[RobotView], index: usize) -> Result<BluebotSensors, SwarmError> {
        let n = self.robots.len();
        if index >= n {
            return Err(SwarmError::NoRobot(index, n));
        }
        let scene = Scene { tank: &self.config.tank, robots: views, layout: &self.config.layout };
        let time = self.time();
        let rng = &mut self.rngs[index];
        let mut reading = self.vision.sense(&scene, index, time, rng);
        let noise = Normal::new(0.0, self.config.depth_noise.max(1e-12)).map_or(0.0, |n| n.sample(rng));
        reading.depth = self.config.tank.water_depth - self.robots[index].body.position.z + noise;
        let body = &self.robots[index].body;
        reading.photodiode = self.config.photodiode.read(&self.config.tank, &body.position, &body.orientation, &mut self.diode_rngs[index]);
        reading.stamp = flotilla_contract::stamp_seconds(time);
        Ok(reading)
    }

    /// The robots, in the order they were added.
    pub fn robots(&self) -> &[Robot] {
        &self.robots
    }

    /// The configuration.
    pub fn config(&self) -> &SwarmConfig {
        &self.config
    }

    /// The vision's name.
    pub fn vision_name(&self) -> &'static str {
        self.vision.name()
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.config.dt
    }

    /// Contacts so far (robot-robot pairs and robot-wall touches, counted per step).
    pub fn contacts(&self) -> u64 {
        self.contacts
    }
}
