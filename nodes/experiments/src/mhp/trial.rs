//! One trial of the paper's protocol (SPEC 5): a robot centred at the origin in a
//! uniformly random attitude (Arvo's method), a target 100 cm away, 50 s, success when
//! the centre of mass comes within 6 cm of the target. Each trial draws everything (the
//! robot of a random shape, its faults, its attitude) from its own seed, so a batch run in
//! parallel gives the same results as one run in order.

use std::path::PathBuf;

use flotilla_contract::mhp::{MhpCommand, MhpFirmware};
use flotilla_contract::robot_seed;
use flotilla_firmware::mhp::{CentralisedGains, MhpCentralised, MhpPrototypeReactive, MhpReactive};
use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tank_physics::systems::mhp::file::RobotFile;
use tank_physics::systems::mhp::shapes::{cube, prototype_configurations, random_growth};
use tank_physics::systems::mhp::{DragModel, Lattice, MhpError, MhpFaults, MhpParams, MhpRobot, Morphology};

/// Largest cube side accepted (256^3 modules need about 1.3 GB for the per-face arrays).
const MAX_CUBE_SIDE: u32 = 256;
/// Most modules of a random robot.
const MAX_RANDOM_MODULES: usize = 1 << 24;

/// Which robot a trial runs.
#[derive(Clone, Debug, PartialEq)]
pub enum RobotSpec {
    /// `cube:N`: the N x N x N cube with the paper's scaling.
    Cube(u32),
    /// `random:N`: a new random-growth robot of N cubes per trial, the volume of the 8 cm cube.
    Random(usize),
    /// `file:PATH`: a robot file.
    File(PathBuf, Box<RobotFile>),
    /// `poly:NAME`: one of the 2-D prototype's configurations (`1`, `2`, `3I` ... `4T`), 8 cm squares.
    Polyomino(String, Morphology),
}

impl RobotSpec {
    /// Parses `cube:N`, `random:N`, `file:PATH` (the file is read now) or `poly:NAME`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (kind, arg) = text.split_once(':').ok_or_else(|| format!("`{text}`: expected cube:N, random:N, file:PATH or poly:NAME"))?;
        let count = |what: &str| {
            arg.parse::<usize>().ok().filter(|&n| n >= 1).ok_or_else(|| format!("`{text}`: {what} must be a whole number >= 1"))
        };
        match kind {
            "cube" => {
                let n = count("the side")?;
                u32::try_from(n)
                    .ok()
                    .filter(|&n| n <= MAX_CUBE_SIDE)
                    .map(RobotSpec::Cube)
                    .ok_or_else(|| format!("`{text}`: the side is at most {MAX_CUBE_SIDE} (16.8 million modules)"))
            }
            "random" => match count("the module count")? {
                n if n <= MAX_RANDOM_MODULES => Ok(RobotSpec::Random(n)),
                _ => Err(format!("`{text}`: at most {MAX_RANDOM_MODULES} modules")),
            },
            "file" => {
                let path = PathBuf::from(arg);
                let file = tank_physics::systems::mhp::file::load(&path).map_err(|e| e.to_string())?;
                Ok(RobotSpec::File(path, Box::new(file)))
            }
            "poly" => prototype_configurations()
                .into_iter()
                .find(|(name, _)| name == arg)
                .map(|(name, m)| RobotSpec::Polyomino(name, m))
                .ok_or_else(|| format!("`{text}`: no such configuration (1, 2, 3I, 3L, 4I, 4O, 4T, 4S, 4L)")),
            _ => Err(format!("`{text}`: unknown robot kind `{kind}` (cube, random, file, poly)")),
        }
    }

    /// Short label for tables (`cube:16` -> `16^3`).
    pub fn label(&self) -> String {
        match self {
            RobotSpec::Cube(n) => format!("{n}^3"),
            RobotSpec::Random(n) => format!("random {n}"),
            RobotSpec::File(path, _) => path.file_stem().map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned()),
            RobotSpec::Polyomino(name, _) => format!("poly {name}"),
        }
    }

    /// Modules per robot.
    pub fn modules(&self) -> usize {
        match self {
            RobotSpec::Cube(n) => (*n as usize).pow(3),
            RobotSpec::Random(n) => *n,
            RobotSpec::File(_, f) => f.morphology.len(),
            RobotSpec::Polyomino(_, m) => m.len(),
        }
    }

    /// The shape, its parameters and the file's own faults (none for other kinds), for one
    /// trial drawing from `rng`.
    fn build(&self, rng: &mut ChaCha8Rng) -> (Morphology, MhpParams, MhpFaults) {
        match self {
            RobotSpec::Cube(n) => (cube(*n), MhpParams::scaled_cube(*n), MhpFaults::default()),
            RobotSpec::Random(n) => (random_growth(Lattice::Cube, *n, rng), MhpParams::equal_volume(*n), MhpFaults::default()),
            RobotSpec::File(_, f) => (f.morphology.clone(), f.params(), f.faults),
            RobotSpec::Polyomino(_, m) => (m.clone(), MhpParams::with_module_side(0.08), MhpFaults::default()),
        }
    }
}

/// The controller every module (or the centre) runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Controller {
    /// The occlusion rule per face.
    Decentralised,
    /// The 2-D prototype's rule (opposite pairs off).
    Prototype,
    /// Pseudo-inverses and two PD controllers.
    Centralised(CentralisedGains),
}

impl Controller {
    /// Parses `decentralised`, `prototype` or `centralised` (default gains).
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "decentralised" | "decentralized" => Ok(Controller::Decentralised),
            "prototype" => Ok(Controller::Prototype),
            "centralised" | "centralized" => Ok(Controller::Centralised(CentralisedGains::default())),
            _ => Err(format!("`{text}`: expected decentralised, centralised or prototype")),
        }
    }

    /// Its name.
    pub fn name(&self) -> &'static str {
        match self {
            Controller::Decentralised => "decentralised",
            Controller::Prototype => "prototype",
            Controller::Centralised(_) => "centralised",
        }
    }

    pub(super) fn firmware(&self, robot: &MhpRobot) -> Box<dyn MhpFirmware> {
        match self {
            Controller::Decentralised => Box::new(MhpReactive),
            Controller::Prototype => Box::new(MhpPrototypeReactive { faces_per_module: robot.layout().faces_per_module }),
            Controller::Centralised(gains) => Box::new(MhpCentralised::new(&robot.layout(), *gains)),
        }
    }
}

/// Everything a trial needs but its index.
#[derive(Clone, Debug)]
pub struct TrialSetup {
    /// The robot.
    pub robot: RobotSpec,
    /// Its controller.
    pub controller: Controller,
    /// Faults, added to a robot file's own (the larger of each).
    pub faults: MhpFaults,
    /// Target distance from the start, m.
    pub distance: f64,
    /// Time limit, s.
    pub time_limit: f64,
    /// Success radius around the target, m.
    pub success_radius: f64,
    /// Sensing and control period, s (a multiple of the integration step is used).
    pub control_period: f64,
    /// Run seed; trial i draws from `robot_seed(seed, i)`.
    pub seed: u64,
    /// Stop at success (false: always simulate the whole time limit, for benchmarks).
    pub stop_at_success: bool,
    /// Which surfaces feel drag.
    pub drag: DragModel,
    /// Drag coefficient of a module face, dimensionless (the paper's 0.8).
    pub drag_coefficient: f64,
    /// Density of a module, kg/m^3 (the fluid's: neutrally buoyant).
    pub module_density: f64,
}

impl TrialSetup {
    /// The paper's protocol for `robot` and `controller`.
    pub fn paper(robot: RobotSpec, controller: Controller, faults: MhpFaults, seed: u64) -> Self {
        Self {
            robot,
            controller,
            faults,
            distance: 1.0,
            time_limit: 50.0,
            success_radius: 0.06,
            control_period: 0.05,
            seed,
            stop_at_success: true,
            drag: DragModel::OuterFaces,
            drag_coefficient: 0.8,
            module_density: 1000.0,
        }
    }
}

/// How one trial ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrialResult {
    /// Trial index.
    pub index: usize,
    /// Whether the centre of mass came within the success radius in time.
    pub success: bool,
    /// Time of success (or the time limit), s.
    pub time_s: f64,
    /// Mean speed: straight-line displacement over time, cm/s.
    pub velocity_cm_s: f64,
    /// Distance to the target at the end, cm.
    pub final_distance_cm: f64,
    /// Farthest from the target after first reaching it, cm (0 if never reached; only
    /// meaningful when the trial runs on after success).
    pub overshoot_cm: f64,
    /// Modules of the robot.
    pub modules: usize,
    /// Its outer faces.
    pub outer_faces: usize,
    /// Bytes the model and the command buffer held.
    pub bytes: usize,
}

/// A uniformly random rotation, Arvo's method (Graphics Gems III, 1992): a random turn
/// about z, then the z axis sent to a uniformly random direction by a Householder
/// reflection (negated, to keep det = +1).
pub fn arvo(rng: &mut impl Rng) -> UnitQuaternion<f64> {
    let (x1, x2, x3): (f64, f64, f64) = (rng.gen(), rng.gen(), rng.gen());
    let theta = std::f64::consts::TAU * x1;
    let phi = std::f64::consts::TAU * x2;
    let z = x3;
    let v = Vector3::new(phi.cos() * z.sqrt(), phi.sin() * z.sqrt(), (1.0 - z).sqrt());
    let (st, ct) = theta.sin_cos();
    let r = Matrix3::new(ct, st, 0.0, -st, ct, 0.0, 0.0, 0.0, 1.0);
    let h = Matrix3::identity() - 2.0 * v * v.transpose();
    let m = -h * r;
    UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(m))
}

/// Runs trial `index` of `setup`.
pub fn run_trial(setup: &TrialSetup, index: usize) -> Result<TrialResult, MhpError> {
    let mut rng = ChaCha8Rng::seed_from_u64(robot_seed(setup.seed, index as u32));
    let (morphology, mut params, own) = setup.robot.build(&mut rng);
    params.drag = setup.drag;
    params.drag_coefficient = setup.drag_coefficient;
    params.module_density = setup.module_density;
    let faults = MhpFaults {
        direction_error: own.direction_error.max(setup.faults.direction_error),
        thruster_failure: own.thruster_failure.max(setup.faults.thruster_failure),
        sensor_failure: own.sensor_failure.max(setup.faults.sensor_failure),
    };
    let mut robot = MhpRobot::new(&morphology, params, faults, &mut rng)?;
    let attitude = if morphology.lattice() == Lattice::Square {
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), rng.gen_range(0.0..std::f64::consts::TAU))
    } else {
        arvo(&mut rng)
    };
    robot.place(Vector3::zeros(), attitude);
    let target = Vector3::new(setup.distance, 0.0, 0.0);
    let mut firmware = setup.controller.firmware(&robot);
    let navigation = matches!(setup.controller, Controller::Centralised(_));
    let every = (setup.control_period / params.dt).round().max(1.0) as usize;
    let steps = (setup.time_limit / params.dt).round() as usize;
    let mut command = MhpCommand::default();
    let name = format!("trial_{index}");
    let mut success_at = None;
    let mut overshoot: f64 = 0.0;
    for step in 0..steps {
        if step % every == 0 {
            let time = robot.time();
            let sensors = robot.read(target, navigation);
            firmware.step_into(time, sensors, &mut command);
            robot.apply(&name, &command)?;
        }
        robot.step();
        robot.check_finite()?;
        let distance = (robot.body().position - target).norm();
        if success_at.is_some() {
            overshoot = overshoot.max(distance);
        } else if distance <= setup.success_radius {
            success_at = Some(robot.time());
            if setup.stop_at_success {
                break;
            }
        }
    }
    let time_s = success_at.unwrap_or(robot.time());
    let position = robot.body().position;
    Ok(TrialResult {
        index,
        success: success_at.is_some(),
        time_s,
        velocity_cm_s: position.norm() * 100.0 / time_s,
        final_distance_cm: (position - target).norm() * 100.0,
        overshoot_cm: overshoot * 100.0,
        modules: robot.modules(),
        outer_faces: robot.outer_faces(),
        bytes: robot.bytes() + command.thrust.capacity() * std::mem::size_of::<f64>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arvo_rotations_are_proper_and_spread() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut mean = Vector3::zeros();
        for _ in 0..4000 {
            let q = arvo(&mut rng);
            let m = q.to_rotation_matrix();
            assert!((m.matrix().determinant() - 1.0).abs() < 1e-9);
            mean += q * Vector3::z();
        }
        // The image of z is uniform on the sphere: its mean is near 0 (sd ~ 1/sqrt(3 n)).
        assert!((mean / 4000.0).norm() < 0.05, "{mean}");
    }

    #[test]
    fn specs_parse_or_say_why() {
        assert_eq!(RobotSpec::parse("cube:4").unwrap(), RobotSpec::Cube(4));
        assert_eq!(RobotSpec::parse("random:100").unwrap().label(), "random 100");
        assert!(RobotSpec::parse("cube:0").unwrap_err().contains("whole number >= 1"));
        assert!(RobotSpec::parse("cube:1000").unwrap_err().contains("at most 256"));
        assert!(RobotSpec::parse("sphere:3").unwrap_err().contains("unknown robot kind"));
        assert!(RobotSpec::parse("poly:4X").unwrap_err().contains("no such configuration"));
        assert!(RobotSpec::parse("file:/nonexistent.txt").unwrap_err().contains("/nonexistent.txt"));
        assert_eq!(Controller::parse("centralised").unwrap().name(), "centralised");
        assert!(Controller::parse("pid").is_err());
    }

    #[test]
    fn a_cube_reaches_the_target_and_trials_repeat() {
        let setup = TrialSetup::paper(RobotSpec::Cube(2), Controller::Decentralised, MhpFaults::default(), 9);
        let a = run_trial(&setup, 3).unwrap();
        assert!(a.success, "{a:?}");
        assert!(a.time_s > 15.0 && a.time_s < 40.0, "{a:?}");
        assert_eq!(a, run_trial(&setup, 3).unwrap());
        let c = TrialSetup::paper(RobotSpec::Cube(2), Controller::Centralised(CentralisedGains::default()), MhpFaults::default(), 9);
        assert!(run_trial(&c, 3).unwrap().success);
    }
}
