//! An MHP robot in unbounded fluid (SPEC 5) as a pure, fast model: one rigid body per
//! robot, per-face quadratic drag on its outer faces, per-face constant-force pumps, the
//! occlusion target sensors and the connection sensors, speaking the MHP contract.

use flotilla_contract::mhp::{MhpCommand, MhpLayout, MhpNavigation, MhpSensors, MhpThruster, FACE_NORMALS, THRUST_ON_THRESHOLD};
use flotilla_contract::OutOfRange;
use nalgebra::{UnitQuaternion, Vector3};
use rand::Rng;

use super::body::RigidBody;
use super::lattice::{exposed_faces, Cell, Grid, Lattice, Morphology, MorphologyError};
use super::occlusion::face_sees;

/// Which module surfaces feel the fluid's drag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DragModel {
    /// The outer faces only (the fluid touches nothing else): a cube's drag is that of its
    /// outline whatever its module count.
    #[default]
    OuterFaces,
    /// Every module's full cross-section, neighbours or not (the drag of an n^3 cube grows
    /// with n); kept to show why it cannot be the paper's model (docs/mhp.md).
    WholeModules,
}

/// A number as a person reads it: plain between 1e-4 and 1e6, else with an exponent
/// (Rust prints 1e300 with 301 digits).
pub(super) fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e6).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Physical parameters of a robot and its fluid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MhpParams {
    /// Module side, m.
    pub module_side: f64,
    /// Height of a module in the fluid, m: the side for a submerged cube, the draft for a
    /// floating square (it sets the wetted face area `side x height` and the mass).
    pub wetted_height: f64,
    /// Force of one firing pump, N.
    pub thrust: f64,
    /// Fluid density, kg/m^3.
    pub fluid_density: f64,
    /// Density of a module's wetted part, kg/m^3: the fluid's for a neutrally buoyant or
    /// floating module (its mass is then the displaced fluid's). It sets only the
    /// inertia: buoyancy and weight cancel whatever it is.
    pub module_density: f64,
    /// Drag coefficient of a module face, dimensionless.
    pub drag_coefficient: f64,
    /// Integration step, s.
    pub dt: f64,
    /// Which surfaces feel drag.
    pub drag: DragModel,
}

/// Side of the paper's cubic robot, m (SPEC 5: 8 cm whatever the module count).
pub const CUBE_SIDE: f64 = 0.08;
/// Force of all pumps of one side of the paper's cubic robot, N (6.4 mN).
pub const SIDE_THRUST: f64 = 6.4e-3;

impl MhpParams {
    /// Modules of side `module_side` m with the paper's thrust per face area (6.4 mN per
    /// 64 cm^2), in water, C = 0.8, 10 ms steps.
    pub fn with_module_side(module_side: f64) -> Self {
        Self {
            module_side,
            wetted_height: module_side,
            thrust: SIDE_THRUST * (module_side / CUBE_SIDE).powi(2),
            fluid_density: 1000.0,
            module_density: 1000.0,
            drag_coefficient: 0.8,
            dt: 0.01,
            drag: DragModel::OuterFaces,
        }
    }

    /// Checks that every parameter is positive and finite, and so is the mass of a module
    /// (density x side^2 x wetted height: a side of 1e-120 m gives 0 kg, 1e120 m infinity).
    pub fn validate(&self) -> Result<(), MhpError> {
        for (name, value) in [
            ("module_side", self.module_side),
            ("wetted_height", self.wetted_height),
            ("thrust", self.thrust),
            ("fluid_density", self.fluid_density),
            ("module_density", self.module_density),
            ("drag_coefficient", self.drag_coefficient),
            ("dt", self.dt),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(MhpError::Parameter { name, value });
            }
        }
        let mass = self.module_density * self.module_side * self.module_side * self.wetted_height;
        if !(mass.is_finite() && mass > 0.0) {
            return Err(MhpError::ModuleMass { mass, density: self.module_density, side: self.module_side, height: self.wetted_height });
        }
        Ok(())
    }

    /// The paper's scaling of an n^3 cube: modules of 8/n cm, pumps of 6.4/n^2 mN.
    pub fn scaled_cube(n: u32) -> Self {
        Self::with_module_side(CUBE_SIDE / f64::from(n.max(1)))
    }

    /// Modules whose robot of `modules` has the volume of the 8 cm cube (random shapes).
    pub fn equal_volume(modules: usize) -> Self {
        Self::with_module_side(CUBE_SIDE / (modules.max(1) as f64).cbrt())
    }
}

/// Faults of a robot, drawn once per trial (SPEC 5).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MhpFaults {
    /// Thruster direction error: each pump's direction is offset by a vector parallel to
    /// its face of length U(0, e_max), relative to the unit normal (1 = 45 deg at most).
    pub direction_error: f64,
    /// Probability that a pump never fires.
    pub thruster_failure: f64,
    /// Probability that a target sensor is stuck (at true or false, even odds).
    pub sensor_failure: f64,
}

/// A fault setting that is not a probability or not a length.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{name} = {value}: {expected}")]
pub struct FaultError {
    /// The setting.
    pub name: &'static str,
    /// The value given.
    pub value: f64,
    /// What it must be.
    pub expected: &'static str,
}

impl MhpFaults {
    /// Checks the ranges: probabilities in [0, 1], the direction error finite and >= 0.
    pub fn validate(&self) -> Result<(), FaultError> {
        for (name, value) in [("thruster_failure", self.thruster_failure), ("sensor_failure", self.sensor_failure)] {
            if !(0.0..=1.0).contains(&value) {
                return Err(FaultError { name, value, expected: "a probability must be in [0, 1]" });
            }
        }
        if !(self.direction_error.is_finite() && self.direction_error >= 0.0) {
            return Err(FaultError { name: "direction_error", value: self.direction_error, expected: "must be finite and >= 0" });
        }
        Ok(())
    }
}

/// Why a robot cannot be built or commanded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MhpError {
    /// The shape is not a robot.
    #[error(transparent)]
    Morphology(#[from] MorphologyError),
    /// A fault setting is out of range.
    #[error(transparent)]
    Fault(#[from] FaultError),
    /// A parameter is not positive and finite.
    #[error("parameter {name} = {}: must be positive and finite", num(*value))]
    Parameter {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// A command for another number of faces.
    #[error("command has {given} thrust values; the robot has {faces} faces")]
    CommandSize {
        /// Values given.
        given: usize,
        /// Faces of the robot.
        faces: usize,
    },
    /// A thrust value outside 0..1.
    #[error(transparent)]
    Range(#[from] OutOfRange),
    /// A module's mass is not a positive finite number.
    #[error("a module's mass {} kg (density {} kg/m^3 x side {} m squared x wetted height {} m) must be positive and finite", num(*mass), num(*density), num(*side), num(*height))]
    ModuleMass {
        /// The mass, kg.
        mass: f64,
        /// Module density, kg/m^3.
        density: f64,
        /// Module side, m.
        side: f64,
        /// Wetted height, m.
        height: f64,
    },
    /// A robot too large to turn in the prototype's tank.
    #[error("the robot is {} m across (its farthest corners from the centre of mass), more than the tank's {} m width: it cannot turn in it", num(*diameter), num(*width))]
    TooLargeForTank {
        /// Twice the farthest module corner from the centroid, m.
        diameter: f64,
        /// The tank's smaller inner side, m.
        width: f64,
    },
    /// The robot's inertia cannot be inverted (modules so light or small that it rounds to
    /// nothing).
    #[error("the robot's inertia cannot be inverted: modules of {} kg and {} m side are too light or too small (module density or side)", num(*module_mass), num(*side))]
    Inertia {
        /// Mass of one module, kg.
        module_mass: f64,
        /// Module side, m.
        side: f64,
    },
    /// The state stopped being finite: the parameters do not fit together (a thrust too
    /// strong for the module mass and the step, a drag coefficient that makes the explicit
    /// drag step overshoot).
    #[error("the motion diverged at t = {time:.2} s (the robot's state is no longer finite) with pump thrust {} N, a module of {} kg, drag coefficient {} and step {dt} s: these do not fit together", num(*thrust), num(*module_mass), num(*drag_coefficient))]
    Diverged {
        /// Sim time, s.
        time: f64,
        /// Force of one pump, N.
        thrust: f64,
        /// Mass of one module, kg.
        module_mass: f64,
        /// Drag coefficient of a face.
        drag_coefficient: f64,
        /// Integration step, s.
        dt: f64,
    },
}

/// An outer face as the model needs it each step.
#[derive(Clone, Copy, Debug)]
struct Face {
    /// The module's cell.
    cell: Cell,
    /// Index in the per-face arrays.
    slot: u32,
    /// Face index (0..6).
    face: u8,
    /// `r x n`: face centre (m, from the centre of mass) cross the outward normal, m.
    lever: Vector3<f64>,
    /// Force when firing (with its direction error), body frame, N; zero if failed.
    force: Vector3<f64>,
    /// Torque when firing, body frame, N m.
    torque: Vector3<f64>,
    /// A stuck target sensor's reading.
    stuck: Option<bool>,
}

/// One MHP robot.
#[derive(Clone, Debug)]
pub struct MhpRobot {
    params: MhpParams,
    lattice: Lattice,
    grid: Grid,
    faces: Vec<Face>,
    /// Centroid of the cells, lattice units.
    centroid: Vector3<f64>,
    body: RigidBody,
    /// Faces feeling drag per normal axis (rotational drag of spinning faces).
    faces_per_axis: [f64; 3],
    /// Module centres from the centre of mass, m (whole-module drag only; else empty).
    centres: Vec<Vector3<f64>>,
    /// Force and torque of the firing pumps, body frame, N and N m.
    thrust: (Vector3<f64>, Vector3<f64>),
    sensors: MhpSensors,
    /// Steps taken (the time is steps x dt, free of summation drift).
    steps: u64,
    modules: usize,
}

impl MhpRobot {
    /// A robot of `morphology` at rest at the origin with identity attitude; its faults
    /// drawn from `rng` (the same five draws per outer face whatever the settings, so
    /// settings compare on the same draws).
    pub fn new(morphology: &Morphology, params: MhpParams, faults: MhpFaults, rng: &mut impl Rng) -> Result<Self, MhpError> {
        faults.validate()?;
        params.validate()?;
        let grid = Grid::new(morphology)?;
        let centroid = Vector3::from(morphology.centroid());
        let s = params.module_side;
        let lattice = morphology.lattice();
        let per = lattice.faces();
        let centre = |c: Cell| (Vector3::new(f64::from(c[0]), f64::from(c[1]), f64::from(c[2])) - centroid) * s;
        let module_mass = params.module_density * s * s * params.wetted_height;
        let body = RigidBody::of_modules(morphology.cells().iter().map(|&c| centre(c)), module_mass, s, lattice == Lattice::Square)
            .ok_or(MhpError::Inertia { module_mass, side: s })?;
        let mut faces_per_axis = [0.0; 3];
        let faces = exposed_faces(morphology, &grid)
            .into_iter()
            .map(|f| {
                let n = Vector3::from(FACE_NORMALS[f.face as usize].map(f64::from));
                let r = centre(f.cell) + n * (0.5 * s);
                faces_per_axis[f.face as usize / 2] += 1.0;
                // The offset: a random direction in the face plane, length U(0, e_max).
                let (t1, t2) = (
                    Vector3::from(FACE_NORMALS[(f.face as usize + 2) % 6].map(f64::from)),
                    n.cross(&Vector3::from(FACE_NORMALS[(f.face as usize + 2) % 6].map(f64::from))),
                );
                let (angle, length): (f64, f64) = (rng.gen_range(0.0..std::f64::consts::TAU), rng.gen::<f64>() * faults.direction_error);
                let failed = rng.gen::<f64>() < faults.thruster_failure;
                let sensor_failed = rng.gen::<f64>() < faults.sensor_failure;
                let stuck_value = rng.gen_bool(0.5);
                let direction = (-n + (t1 * angle.cos() + t2 * angle.sin()) * length).normalize();
                let force = if failed { Vector3::zeros() } else { direction * params.thrust };
                Face {
                    cell: f.cell,
                    slot: f.slot,
                    face: f.face,
                    lever: r.cross(&n),
                    force,
                    torque: r.cross(&force),
                    stuck: sensor_failed.then_some(stuck_value),
                }
            })
            .collect();
        let centres: Vec<Vector3<f64>> = match params.drag {
            DragModel::OuterFaces => Vec::new(),
            DragModel::WholeModules => {
                faces_per_axis = [1.0, 1.0, 1.0].map(|k: f64| k * 2.0 * morphology.len() as f64);
                if lattice == Lattice::Square {
                    faces_per_axis[2] = 0.0;
                }
                morphology.cells().iter().map(|&c| centre(c)).collect()
            }
        };
        let slots = morphology.len() * per;
        let mut connected = vec![true; slots];
        let robot_faces: &Vec<Face> = &faces;
        for f in robot_faces {
            connected[f.slot as usize] = false;
        }
        let sensors = MhpSensors { stamp: 0.0, connected, target_seen: vec![false; slots], navigation: None };
        Ok(Self {
            params,
            lattice,
            grid,
            faces,
            centroid,
            body,
            faces_per_axis,
            centres,
            thrust: (Vector3::zeros(), Vector3::zeros()),
            sensors,
            steps: 0,
            modules: morphology.len(),
        })
    }

    /// Puts the centre of mass at `position` (m, world) with attitude `orientation`, at rest.
    pub fn place(&mut self, position: Vector3<f64>, orientation: UnitQuaternion<f64>) {
        self.body.position = position;
        self.body.orientation = orientation;
        self.body.velocity = Vector3::zeros();
        self.body.angular_velocity = Vector3::zeros();
    }

    /// The body (pose, velocities, mass properties).
    pub fn body(&self) -> &RigidBody {
        &self.body
    }

    /// The body, to be moved by a constraint the model does not know (a tank wall).
    pub fn body_mut(&mut self) -> &mut RigidBody {
        &mut self.body
    }

    /// The parameters.
    pub fn params(&self) -> &MhpParams {
        &self.params
    }

    /// [`MhpError::Diverged`] when the body's position, velocity or attitude is no longer
    /// finite (a few comparisons: cheap enough to call every step).
    pub fn check_finite(&self) -> Result<(), MhpError> {
        let b = &self.body;
        let finite = b.position.iter().chain(b.velocity.iter()).chain(b.angular_velocity.iter()).all(|x| x.is_finite())
            && b.orientation.coords.iter().all(|x| x.is_finite());
        if finite {
            return Ok(());
        }
        let p = &self.params;
        Err(MhpError::Diverged {
            time: self.time(),
            thrust: p.thrust,
            module_mass: p.module_density * p.module_side * p.module_side * p.wetted_height,
            drag_coefficient: p.drag_coefficient,
            dt: p.dt,
        })
    }

    /// Number of modules.
    pub fn modules(&self) -> usize {
        self.modules
    }

    /// Number of outer faces (pumps and target sensors in use).
    pub fn outer_faces(&self) -> usize {
        self.faces.len()
    }

    /// Faces in the per-face arrays (modules x faces per module).
    pub fn face_slots(&self) -> usize {
        self.sensors.connected.len()
    }

    /// Sim time, s.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.params.dt
    }

    /// The outer pumps as the robot's builder knows them (nominal directions: the
    /// controller does not know the direction errors or failures).
    pub fn layout(&self) -> MhpLayout {
        let s = self.params.module_side;
        let thrusters = self
            .faces
            .iter()
            .map(|f| {
                let n = Vector3::from(FACE_NORMALS[f.face as usize].map(f64::from));
                let c =
                    (Vector3::new(f64::from(f.cell[0]), f64::from(f.cell[1]), f64::from(f.cell[2])) - self.centroid) * s + n * (0.5 * s);
                MhpThruster { face: f.slot as usize, position: c.into(), direction: (-n).into(), force: self.params.thrust }
            })
            .collect();
        MhpLayout { faces_per_module: self.lattice.faces(), faces: self.face_slots(), thrusters }
    }

    /// The robot's reading with the target at `target` (m, world): connection and
    /// target sensors per face, and with `navigation` the central controller's state.
    pub fn read(&mut self, target: Vector3<f64>, navigation: bool) -> &MhpSensors {
        let b = &self.body;
        let relative = b.orientation.inverse_transform_vector(&(target - b.position));
        let t = self.centroid + relative / self.params.module_side;
        let t = [t.x, t.y, t.z];
        for f in &self.faces {
            self.sensors.target_seen[f.slot as usize] = f.stuck.unwrap_or_else(|| face_sees(&self.grid, f.cell, f.face as usize, t));
        }
        self.sensors.stamp = self.time();
        self.sensors.navigation = navigation.then(|| {
            let q = b.orientation.quaternion();
            MhpNavigation {
                target: relative.into(),
                velocity: b.orientation.inverse_transform_vector(&b.velocity).into(),
                angular_velocity: b.angular_velocity.into(),
                orientation: [q.w, q.i, q.j, q.k],
            }
        });
        &self.sensors
    }

    /// Switches the pumps: a pump fires when its thrust is at least
    /// [`THRUST_ON_THRESHOLD`]. Only outer faces push; a failed pump never does.
    pub fn apply(&mut self, name: &str, command: &MhpCommand) -> Result<(), MhpError> {
        if command.thrust.len() != self.face_slots() {
            return Err(MhpError::CommandSize { given: command.thrust.len(), faces: self.face_slots() });
        }
        let (mut force, mut torque) = (Vector3::zeros(), Vector3::zeros());
        for f in &self.faces {
            let value = command.thrust[f.slot as usize];
            if !(0.0..=1.0).contains(&value) {
                return Err(OutOfRange { robot: name.to_owned(), field: format!("thrust[{}]", f.slot), value, min: 0.0, max: 1.0 }.into());
            }
            if value >= THRUST_ON_THRESHOLD {
                force += f.force;
                torque += f.torque;
            }
        }
        self.thrust = (force, torque);
        Ok(())
    }

    /// Drag on the outer faces at the current motion, body frame (N, N m). A face
    /// advancing into the fluid at normal speed `u` (its centre's velocity along its
    /// outward normal) feels `1/2 rho C a u^2` against its normal at its centre (`a` = side
    /// x wetted height); a face spinning about an axis in its plane at `w` feels
    /// `rho C s^4 h w^2 / 128` against the spin (its advancing half integrated); trailing
    /// faces feel nothing.
    pub fn drag(&self) -> (Vector3<f64>, Vector3<f64>) {
        let p = &self.params;
        let s = p.module_side;
        let q = 0.5 * p.fluid_density * p.drag_coefficient * s * p.wetted_height;
        let v = self.body.orientation.inverse_transform_vector(&self.body.velocity);
        let w = self.body.angular_velocity;
        let (mut force, mut torque) = (Vector3::zeros(), Vector3::zeros());
        match p.drag {
            DragModel::OuterFaces => {
                for f in &self.faces {
                    let axis = f.face as usize / 2;
                    let sign = if f.face % 2 == 0 { 1.0 } else { -1.0 };
                    let u = sign * v[axis] + w.dot(&f.lever);
                    if u > 0.0 {
                        let g = q * u * u;
                        force[axis] -= sign * g;
                        torque -= f.lever * g;
                    }
                }
            }
            DragModel::WholeModules => {
                // Each module's leading face along each axis, at the module's own velocity.
                for r in &self.centres {
                    let u = v + w.cross(r);
                    let f = -q * u.component_mul(&u.abs());
                    force += f;
                    torque += r.cross(&f);
                }
            }
        }
        let spin = p.fluid_density * p.drag_coefficient * s.powi(4) * p.wetted_height / 128.0;
        let n = self.faces_per_axis;
        let about = [n[1] + n[2], n[0] + n[2], n[0] + n[1]];
        for a in 0..3 {
            torque[a] -= spin * about[a] * w[a] * w[a].abs();
        }
        (force, torque)
    }

    /// One integration step of `dt` s under the pumps and the drag.
    pub fn step(&mut self) {
        let (df, dt) = self.drag();
        self.body.step(self.thrust.0 + df, self.thrust.1 + dt, self.params.dt);
        self.steps += 1;
    }

    /// Bytes the model holds (its arrays; the struct itself aside).
    pub fn bytes(&self) -> usize {
        self.grid.bytes()
            + self.faces.capacity() * std::mem::size_of::<Face>()
            + self.sensors.connected.capacity()
            + self.sensors.target_seen.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::super::shapes::cube;
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn robot(n: u32, faults: MhpFaults) -> MhpRobot {
        MhpRobot::new(&cube(n), MhpParams::scaled_cube(n), faults, &mut ChaCha8Rng::seed_from_u64(1)).unwrap()
    }

    /// Pumps on the -x side only: the faces whose outward normal is -x.
    fn back_faces(r: &MhpRobot) -> MhpCommand {
        let mut thrust = vec![0.0; r.face_slots()];
        for f in r.layout().thrusters {
            if f.direction[0] > 0.5 {
                thrust[f.face] = 1.0;
            }
        }
        MhpCommand { thrust }
    }

    #[test]
    fn every_cube_reaches_the_same_terminal_speed() {
        // One side's pumps: 6.4 mN against 1/2 rho C A v^2 with A = 64 cm^2:
        // v = sqrt(2 * 6.4e-3 / (1000 * 0.8 * 6.4e-3)) = 0.05 m/s, for 1^3 and 4^3 alike.
        for n in [1, 4] {
            let mut r = robot(n, MhpFaults::default());
            assert_eq!(r.outer_faces(), 6 * (n * n) as usize);
            r.apply("r", &back_faces(&r)).unwrap();
            for _ in 0..6000 {
                r.step();
            }
            let v = r.body().velocity;
            assert!((v.x - 0.05).abs() < 1e-6 && v.yzx().xy().norm() < 1e-12, "{n}: {v}");
            assert!((r.body().mass - 0.512).abs() < 1e-9);
        }
    }

    #[test]
    fn module_density_sets_the_inertia_not_the_terminal_speed() {
        // Half the density: half the mass, the same 5 cm/s, reached sooner.
        let light = MhpParams { module_density: 500.0, ..MhpParams::scaled_cube(2) };
        let mut r = MhpRobot::new(&cube(2), light, MhpFaults::default(), &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        let mut heavy = robot(2, MhpFaults::default());
        assert!((r.body().mass - 0.256).abs() < 1e-9);
        r.apply("r", &back_faces(&r)).unwrap();
        heavy.apply("r", &back_faces(&heavy)).unwrap();
        for _ in 0..200 {
            r.step();
            heavy.step();
        }
        assert!(r.body().velocity.x > heavy.body().velocity.x, "the lighter robot accelerates faster");
        for _ in 0..6000 {
            r.step();
        }
        assert!((r.body().velocity.x - 0.05).abs() < 1e-6);
        let bad = MhpParams { module_density: 0.0, ..MhpParams::scaled_cube(2) };
        let err = MhpRobot::new(&cube(2), bad, MhpFaults::default(), &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err();
        assert!(err.to_string().contains("module_density"), "{err}");
    }
    #[test]
    fn sensors_of_a_cube_facing_the_target() {
        let mut r = robot(2, MhpFaults::default());
        let s = r.read(Vector3::new(1.0, 0.0, 0.0), false).clone();
        // 8 modules x 6 faces, 24 outer; the +x faces (4) see a target straight ahead; the
        // side faces have it behind their plane (their centres are off-axis).
        assert_eq!(s.connected.iter().filter(|c| !**c).count(), 24);
        let seen: Vec<usize> = (0..48).filter(|&i| s.target_seen[i]).collect();
        assert_eq!(seen.len(), 4);
        assert!(seen.iter().all(|&i| i % 6 == 0));
        assert!(s.navigation.is_none());
        let nav = r.read(Vector3::new(1.0, 0.0, 0.0), true).navigation.unwrap();
        assert_eq!(nav.target, [1.0, 0.0, 0.0]);
    }

    #[test]
    fn readings_follow_the_attitude() {
        // Turned 90 deg about z: body +x points along world +y, so a target at world +y is
        // straight ahead of the +x faces, and a push along body +x moves the robot along +y.
        let mut r = robot(2, MhpFaults::default());
        r.place(Vector3::new(0.0, 0.0, 0.0), UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2));
        let s = r.read(Vector3::new(0.0, 1.0, 0.0), true).clone();
        assert!((0..48).filter(|&i| s.target_seen[i]).all(|i| i % 6 == 0));
        assert_eq!((0..48).filter(|&i| s.target_seen[i]).count(), 4);
        let nav = s.navigation.unwrap();
        assert!((nav.target[0] - 1.0).abs() < 1e-12 && nav.target[1].abs() < 1e-12, "{nav:?}");
        r.apply("r", &back_faces(&r)).unwrap();
        r.step();
        let v = r.body().velocity;
        assert!(v.y > 0.0 && v.x.abs() < 1e-15, "{v}");
    }

    #[test]
    fn faults_change_forces_not_the_layout() {
        let all_fail = MhpFaults { thruster_failure: 1.0, ..MhpFaults::default() };
        let mut r = robot(2, all_fail);
        r.apply("r", &back_faces(&r)).unwrap();
        r.step();
        assert_eq!(r.body().velocity, Vector3::zeros());
        // A direction error tilts the force; its magnitude stays.
        let bent = robot(1, MhpFaults { direction_error: 1.0, ..MhpFaults::default() });
        assert!(bent.faces.iter().all(|f| (f.force.norm() - 6.4e-3).abs() < 1e-12));
        assert!(bent.faces.iter().any(|f| f.torque.norm() > 1e-6));
        assert_eq!(bent.layout(), robot(1, MhpFaults::default()).layout());
        // Stuck sensors read their value whatever the target.
        let mut stuck = robot(1, MhpFaults { sensor_failure: 1.0, ..MhpFaults::default() });
        let a = stuck.read(Vector3::x(), false).target_seen.clone();
        assert_eq!(&a, &stuck.read(-Vector3::x(), false).target_seen);
        let bad = MhpFaults { sensor_failure: 1.5, ..MhpFaults::default() };
        let e = MhpRobot::new(&cube(1), MhpParams::scaled_cube(1), bad, &mut ChaCha8Rng::seed_from_u64(1)).unwrap_err();
        assert_eq!(e.to_string(), "sensor_failure = 1.5: a probability must be in [0, 1]");
    }

    #[test]
    fn bad_commands_are_refused() {
        let mut r = robot(1, MhpFaults::default());
        assert_eq!(r.apply("r", &MhpCommand { thrust: vec![1.0; 5] }).unwrap_err(), MhpError::CommandSize { given: 5, faces: 6 });
        let e = r.apply("r7", &MhpCommand { thrust: vec![0.0, 0.0, 2.0, 0.0, 0.0, 0.0] }).unwrap_err().to_string();
        assert!(e.contains("r7") && e.contains("thrust[2]"), "{e}");
    }

    #[test]
    fn whole_module_drag_equals_face_drag_for_one_module_and_grows_with_n() {
        let whole = |n: u32| {
            let params = MhpParams { drag: DragModel::WholeModules, ..MhpParams::scaled_cube(n) };
            MhpRobot::new(&cube(n), params, MhpFaults::default(), &mut ChaCha8Rng::seed_from_u64(1)).unwrap()
        };
        let motion = |r: &mut MhpRobot| {
            r.body.velocity = Vector3::new(0.03, -0.01, 0.02);
            r.body.angular_velocity = Vector3::new(0.2, 0.1, -0.3);
            r.drag()
        };
        let (a, b) = (motion(&mut robot(1, MhpFaults::default())), motion(&mut whole(1)));
        assert!((a.0 - b.0).norm() < 1e-15 && (a.1 - b.1).norm() < 1e-15, "{a:?} {b:?}");
        // Translation of a 4^3 cube: 4 x the drag of its outline.
        let mut r = whole(4);
        r.body.velocity = Vector3::new(0.05, 0.0, 0.0);
        let mut f = robot(4, MhpFaults::default());
        f.body.velocity = Vector3::new(0.05, 0.0, 0.0);
        assert!((r.drag().0.x / f.drag().0.x - 4.0).abs() < 1e-9);
    }

    #[test]
    fn spin_decays_under_drag() {
        let mut r = robot(2, MhpFaults::default());
        r.body.angular_velocity = Vector3::new(0.3, -0.2, 1.0);
        for _ in 0..2000 {
            r.step();
        }
        let w = r.body().angular_velocity.norm();
        // Quadratic drag: w(t) = w0 / (1 + c w0 t / I), slow but steady (1.06 -> 0.36 rad/s in 20 s).
        assert!(w < 0.5 && w > 0.0, "{w}");
    }
}
