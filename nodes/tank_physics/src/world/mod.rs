//! The world: bodies in an arena under the hydrodynamic model, stepped by rapier3d.

mod error;
mod latch;
mod physics;
mod state;

pub use error::PhysicsError;
pub use state::{BodyState, Command, FaceState, LatchLink, PlanarPose};

use crate::actuation::{ActuatedBody, ForceModel, Thrusters};
use crate::arena::Arena;
use crate::config::{check_range, ConfigError, HydroParams, WorldConfig};
use crate::flow;
use crate::medium::{BodyMotion, Hold, Medium, MediumKind, Surroundings, Wrench};
use crate::spatial::{Disc, PlanarGrid};
use flotilla_common::catalogue::{ModuleKind, ModuleSpec, Shape};
use flotilla_common::flow_field::FlowGrid;
use nalgebra::{Isometry3, Point2, Translation3, UnitQuaternion, Vector2, Vector3};
use physics::Physics;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rapier3d_f64::prelude::{RigidBodyHandle, SharedShape};
use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::sync::Arc;

/// A module kind as this world uses it: the catalogue entry, how the medium holds it, and
/// what the step needs of it, computed once.
struct KindModel {
    spec: &'static ModuleSpec,
    hold: Hold,
    ccd: physics::CcdGate,
    /// Collision shape (for spawn overlap tests).
    collider: SharedShape,
    /// Principal moments of inertia, kg m^2.
    inertia: Vector3<f64>,
}

/// Per-thruster imperfection drawn at spawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thruster {
    /// Unit thrust direction in the body frame (inward normal plus direction error).
    pub direction: Vector3<f64>,
    /// Broken for good.
    pub failed: bool,
}

/// One simulated module.
struct Body {
    id: u32,
    name: String,
    kind: ModuleKind,
    model: Arc<KindModel>,
    handle: RigidBodyHandle,
    faces: Vec<FaceState>,
    thrusters: Vec<Option<Thruster>>,
    /// The medium's flow fluctuation state ([`BodyMotion::flow_noise`]).
    flow_noise: Vector2<f64>,
}

/// A world of modules in an arena. `Send`, cheap to create, deterministic for a seed.
pub struct World {
    config: WorldConfig,
    arena: Arena,
    measured_flow: Option<FlowGrid>,
    flow: FlowGrid,
    seed: u64,
    rng: ChaCha8Rng,
    time: f64,
    step_count: u64,
    next_id: u32,
    bodies: Vec<Body>,
    models: BTreeMap<ModuleKind, Arc<KindModel>>,
    latches: Vec<latch::LatchJoint>,
    physics: Physics,
    medium: Box<dyn Medium>,
    force_models: Vec<Box<dyn ForceModel>>,
    /// Bodies' footprints for spawn overlap tests; `None` once bodies have moved.
    spawn_index: Option<SpawnIndex>,
    /// Reused buffers of the latch capture search.
    latch_search: latch::LatchSearch,
}

/// The bodies' footprints on a grid over the arena, kept up to date while bodies are added
/// between steps (a world's start-up spawns them all at once).
struct SpawnIndex {
    grid: PlanarGrid,
    /// Cell size the grid was built with, m.
    cell: f64,
}

impl World {
    /// Builds the arena, the flow field and the configured modules. Fails on an invalid
    /// configuration or when the modules cannot be placed.
    pub fn new(config: WorldConfig, seed: u64) -> Result<Self, PhysicsError> {
        validate(&config)?;
        let measured_flow = flow::load_measured(&config.flow)?;
        Self::build(config, seed, measured_flow)
    }

    fn build(config: WorldConfig, seed: u64, measured_flow: Option<FlowGrid>) -> Result<Self, PhysicsError> {
        let arena = Arena::new(&config.arena);
        let flow = flow::effective_field(&arena, &config.pumps, &config.flow, measured_flow.as_ref())?;
        let medium = config.medium_kind().build(&config.hydro, config.dt);
        let physics = Physics::new(config.dt, config.solver_iterations, &arena, &config.contact, medium.as_ref());
        let mut world = Self {
            arena,
            measured_flow,
            flow,
            seed,
            rng: ChaCha8Rng::seed_from_u64(seed),
            time: 0.0,
            step_count: 0,
            next_id: 0,
            bodies: Vec::new(),
            models: BTreeMap::new(),
            latches: Vec::new(),
            physics,
            medium,
            force_models: vec![Box::new(Thrusters)],
            spawn_index: None,
            latch_search: latch::LatchSearch::default(),
            config,
        };
        let groups = world.config.modules.clone();
        for group in &groups {
            for i in 0..group.count {
                let name = group.name(i);
                match &group.poses {
                    Some(poses) => {
                        let [x, y, heading] = poses[i];
                        world.spawn(group.kind, PlanarPose::new(x, y, heading), &name)?;
                    }
                    None => {
                        world.spawn_random(group.kind, &name)?;
                    }
                }
            }
        }
        tracing::debug!(seed, bodies = world.bodies.len(), arena = world.arena.kind.name(), "world built");
        Ok(world)
    }

    /// Advances one `config.dt` (s): latches made/broken per the commands; per body the
    /// medium's forces, the actuators' ([`ForceModel`]s in registration order), the
    /// medium's finishing terms; then rapier.
    pub fn step(&mut self) {
        self.update_latches();
        self.spawn_index = None;
        let dt = self.config.dt;
        let surroundings = Surroundings { arena: &self.arena, flow: &self.flow };
        for body in &mut self.bodies {
            let Some(rb) = self.physics.bodies.get_mut(body.handle) else { continue };
            let model = &body.model;
            let pose = *rb.position();
            let mut motion = BodyMotion { spec: model.spec, pose, linvel: *rb.linvel(), angvel: *rb.angvel(), flow_noise: body.flow_noise };
            let mut wrench = Wrench::default();
            self.medium.act(&surroundings, &mut motion, &mut self.rng, &mut wrench);
            body.flow_noise = motion.flow_noise;
            rb.set_linvel(motion.linvel, true);
            rb.set_angvel(motion.angvel, true);
            let actuated = ActuatedBody { spec: model.spec, pose: &pose, faces: &body.faces, thrusters: &body.thrusters };
            for force_model in &self.force_models {
                force_model.apply(&actuated, &mut wrench);
            }
            self.medium.finish(&surroundings, &motion, &mut wrench);
            let speed = (motion.linvel + wrench.force * (dt / model.spec.mass)).norm();
            let spin = if model.hold.is_planar() {
                (motion.angvel.z + wrench.torque.z * dt / model.inertia.z).abs()
            } else {
                (motion.angvel + wrench.torque.component_div(&model.inertia) * dt).norm()
            };
            let gate = &model.ccd;
            let travel = gate.travel(speed, spin, dt);
            let centre = Point2::new(pose.translation.x, pose.translation.y);
            let near_wall = !self.arena.contains_disc(centre, gate.radius(), 2.0 * travel);
            rb.enable_ccd(near_wall && gate.is_fast(travel));
            rb.reset_forces(false);
            rb.reset_torques(false);
            rb.add_force(wrench.force, true);
            rb.add_torque(wrench.torque, true);
        }
        self.physics.step(&self.medium.gravity());
        self.step_count += 1;
        self.time = self.step_count as f64 * dt;
    }

    /// Registers another source of actuator forces, applied after those already registered.
    pub fn add_force_model(&mut self, model: Box<dyn ForceModel>) {
        self.force_models.push(model);
    }

    /// The medium the bodies live in.
    pub fn medium(&self) -> MediumKind {
        self.medium.kind()
    }

    /// Simulated time since creation or the last reset, s.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Steps taken since creation or the last reset.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// The seed of the current run.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Ground truth of every body, ordered by id.
    pub fn bodies(&self) -> Vec<BodyState> {
        self.bodies.iter().filter_map(|b| self.state_of(b)).collect()
    }

    /// Ground truth of one body.
    pub fn body(&self, id: u32) -> Option<BodyState> {
        self.find(id).ok().and_then(|i| self.state_of(&self.bodies[i]))
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// The arena geometry.
    pub fn arena(&self) -> &Arena {
        &self.arena
    }

    /// The configuration in effect (including live changes).
    pub fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// The flow field in effect (per-cell mean and deviation, before Kv).
    pub fn flow_field(&self) -> &FlowGrid {
        &self.flow
    }

    /// Power of each pump, % (one per inlet).
    pub fn pump_power(&self) -> &[f64] {
        &self.config.pumps
    }

    /// Whether the body's bounding circle lies inside the arena's free area (a body found
    /// outside has escaped through a wall).
    pub fn contains(&self, body: &BodyState) -> bool {
        // Contacts may press a body a little into the wall: allow a few millimetres.
        self.fits(&body.kind.spec().shape, &body.pose, -0.005)
    }

    /// Whether `shape` at `pose` lies inside the free area with `margin` m to spare:
    /// the disc of a round shape, the four corners of a box.
    fn fits(&self, shape: &Shape, pose: &Isometry3<f64>, margin: f64) -> bool {
        let centre = Point2::new(pose.translation.x, pose.translation.y);
        match *shape {
            Shape::Sphere { radius } | Shape::Cylinder { radius, .. } => self.arena.contains_disc(centre, radius, margin),
            Shape::Box { half_extents: h } => [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)].iter().all(|(sx, sy)| {
                let corner = pose * nalgebra::Point3::new(sx * h.x, sy * h.y, 0.0);
                self.arena.contains_disc(Point2::new(corner.x, corner.y), 0.0, margin)
            }),
        }
    }

    /// Replaces the hydrodynamic parameters while running.
    pub fn set_hydro(&mut self, params: HydroParams) -> Result<(), ConfigError> {
        params.validate()?;
        self.config.hydro = params;
        self.medium = self.medium.kind().build(&self.config.hydro, self.config.dt);
        tracing::info!(hydro = ?self.config.hydro, "hydrodynamic parameters changed");
        Ok(())
    }

    /// Sets the pump powers (%): one value for all pumps or one per inlet.
    pub fn set_pumps(&mut self, power: &[f64]) -> Result<(), ConfigError> {
        let n = self.arena.inlets.len();
        let pumps = match power.len() {
            1 => vec![power[0]; n],
            len if len == n => power.to_vec(),
            len => {
                return Err(ConfigError::Invalid {
                    path: "pumps.power".into(),
                    message: format!("give one value or one per inlet ({n}), got {len}"),
                })
            }
        };
        for (i, p) in pumps.iter().enumerate() {
            check_range(&format!("pumps.power[{i}]"), *p, 0.0, 100.0)?;
        }
        self.flow = flow::effective_field(&self.arena, &pumps, &self.config.flow, self.measured_flow.as_ref())?;
        self.config.pumps = pumps;
        tracing::info!(pumps = ?self.config.pumps, "pump power changed");
        Ok(())
    }

    /// Starts again from the configuration (with its live changes) and a new seed.
    pub fn reset(&mut self, seed: u64) -> Result<(), PhysicsError> {
        let fresh = Self::build(self.config.clone(), seed, self.measured_flow.clone())?;
        *self = fresh;
        tracing::info!(seed, "world reset");
        Ok(())
    }

    /// Adds a module of `kind` at `pose` named `name` (its ROS namespace). Rejects names in
    /// use or not valid as a namespace, poses outside the free area or overlapping another
    /// module, and kinds the arena cannot hold. Returns the new id.
    pub fn spawn(&mut self, kind: ModuleKind, pose: PlanarPose, name: &str) -> Result<u32, PhysicsError> {
        check_name(name)?;
        if self.bodies.iter().any(|b| b.name == name) {
            return Err(PhysicsError::NameTaken { name: name.to_owned() });
        }
        if ![pose.x, pose.y, pose.heading].iter().all(|v| v.is_finite()) {
            return Err(PhysicsError::NonFinitePose { name: name.to_owned() });
        }
        let model = self.model_for(kind)?;
        let iso = Isometry3::from_parts(
            Translation3::new(pose.x, pose.y, model.hold.spawn_z),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), pose.heading),
        );
        if !self.fits(&model.spec.shape, &iso, 0.0) {
            return Err(PhysicsError::OutsideArena { name: name.to_owned(), x: pose.x, y: pose.y });
        }
        if let Some(other) = self.overlapping(&model, &iso, 0.0) {
            return Err(PhysicsError::Overlap { name: name.to_owned(), other });
        }
        let id = self.next_id;
        let handle = self.physics.add_module(model.spec, &model.hold, iso, &self.config.contact, id);
        let thrusters = model.spec.faces.iter().map(|face| face.thruster.map(|_| self.draw_thruster(face.normal))).collect::<Vec<_>>();
        let faces = model
            .spec
            .faces
            .iter()
            .zip(&thrusters)
            .map(|(face, t)| FaceState {
                has_latch: face.latch.is_some(),
                has_thruster: face.thruster.is_some(),
                thruster_failed: t.is_some_and(|t| t.failed),
                ..FaceState::default()
            })
            .collect();
        self.next_id += 1;
        let index = self.bodies.len() as u32;
        if let Some(spawned) = &mut self.spawn_index {
            spawned.grid.insert(index, &Disc { centre: Vector2::new(pose.x, pose.y), radius: model.spec.shape.horizontal_radius() });
        }
        self.bodies.push(Body { id, name: name.to_owned(), kind, model, handle, faces, thrusters, flow_noise: Vector2::zeros() });
        tracing::debug!(id, name, kind = kind.name(), x = pose.x, y = pose.y, "spawned");
        Ok(id)
    }

    /// Adds a module of `kind` at a random free pose (uniform in the arena).
    pub fn spawn_random(&mut self, kind: ModuleKind, name: &str) -> Result<u32, PhysicsError> {
        let model = self.model_for(kind)?;
        let radius = model.spec.shape.horizontal_radius();
        let half = self.arena.spawn_half_extents();
        let spawn = self.config.spawn.clone();
        for _ in 0..spawn.max_attempts {
            let p = Point2::new(self.rng.gen_range(-half.x..=half.x), self.rng.gen_range(-half.y..=half.y));
            let heading = self.rng.gen_range(-PI..PI);
            let iso = Isometry3::new(Vector3::new(p.x, p.y, 0.0), Vector3::z() * heading);
            if self.arena.contains_disc(p, radius, spawn.wall_margin) && self.overlapping(&model, &iso, spawn.min_separation).is_none() {
                return self.spawn(kind, PlanarPose::new(p.x, p.y, heading), name);
            }
        }
        Err(PhysicsError::NoRoom { name: name.to_owned(), attempts: spawn.max_attempts })
    }

    /// Removes a body (and any latch it holds). Returns its last state.
    pub fn remove(&mut self, id: u32) -> Result<BodyState, PhysicsError> {
        let index = self.find(id)?;
        let state = self.state_of(&self.bodies[index]).ok_or(PhysicsError::NoSuchBody { id })?;
        let body = self.bodies.remove(index);
        self.spawn_index = None;
        self.physics.remove(body.handle);
        self.forget_latches_of(id);
        tracing::debug!(id, name = body.name, "removed");
        Ok(state)
    }

    /// Id of the body named `name`.
    pub fn id_of(&self, name: &str) -> Option<u32> {
        self.bodies.iter().find(|b| b.name == name).map(|b| b.id)
    }

    /// Applies a robot's command (latches and thrusters per face).
    pub fn command(&mut self, id: u32, command: &Command) -> Result<(), PhysicsError> {
        let index = self.find(id)?;
        let body = &mut self.bodies[index];
        let faces = body.faces.len();
        for (what, list) in [("latch_on", &command.latch_on), ("thruster_on", &command.thruster_on)] {
            if !list.is_empty() && list.len() != faces {
                return Err(PhysicsError::BadCommand {
                    name: body.name.clone(),
                    message: format!("{what} needs {faces} entries (one per face), got {}", list.len()),
                });
            }
        }
        for (i, face) in body.faces.iter_mut().enumerate() {
            if let Some(&on) = command.latch_on.get(i) {
                face.latch_on = on && face.has_latch;
            }
            if let Some(&on) = command.thruster_on.get(i) {
                face.thruster_on = on && face.has_thruster;
            }
        }
        Ok(())
    }

    fn find(&self, id: u32) -> Result<usize, PhysicsError> {
        self.bodies.binary_search_by_key(&id, |b| b.id).map_err(|_| PhysicsError::NoSuchBody { id })
    }

    fn state_of(&self, body: &Body) -> Option<BodyState> {
        let rb = self.physics.bodies.get(body.handle)?;
        Some(BodyState {
            id: body.id,
            name: body.name.clone(),
            kind: body.kind,
            pose: *rb.position(),
            linvel: *rb.linvel(),
            angvel: *rb.angvel(),
            faces: body.faces.clone(),
        })
    }

    /// The model of `kind` in this world (built on first use): fails when the medium
    /// cannot hold the kind in this arena.
    fn model_for(&mut self, kind: ModuleKind) -> Result<Arc<KindModel>, PhysicsError> {
        if let Some(model) = self.models.get(&kind) {
            return Ok(model.clone());
        }
        let spec = kind.spec();
        let model = Arc::new(KindModel {
            spec,
            hold: self.medium.hold(spec, &self.arena)?,
            ccd: physics::CcdGate::for_shape(&spec.shape),
            collider: physics::collision_shape(&spec.shape),
            inertia: spec.inertia(),
        });
        self.models.insert(kind, model.clone());
        Ok(model)
    }

    /// Name of the first body (in id order) whose collision shape comes closer than `gap` m
    /// to a body of `model` at `pose`. Candidates come from the spawn index.
    fn overlapping(&mut self, model: &KindModel, pose: &Isometry3<f64>, gap: f64) -> Option<String> {
        let radius = model.spec.shape.horizontal_radius();
        let index = self.take_spawn_index(radius);
        let centre = Vector2::new(pose.translation.x, pose.translation.y);
        // Every candidate's footprint is within its bounding radius of its centre.
        let reach = Vector2::repeat(radius + gap);
        let mut first: Option<usize> = None;
        let bodies = &self.bodies;
        let rapier = &self.physics.bodies;
        index.grid.any_in_box(centre - reach, centre + reach, |i| {
            let i = i as usize;
            if first.is_some_and(|f| f <= i) {
                return false;
            }
            let b = &bodies[i];
            let Some(rb) = rapier.get(b.handle) else { return false };
            let q = rb.translation();
            let reach = radius + b.model.spec.shape.horizontal_radius() + gap;
            if (pose.translation.x - q.x).hypot(pose.translation.y - q.y) >= reach {
                return false;
            }
            // Same-height probe: overlap in the plane is what matters.
            let mut level = *pose;
            level.translation.z = q.z;
            let distance = rapier3d_f64::parry::query::distance(&level, model.collider.as_ref(), rb.position(), b.model.collider.as_ref())
                .unwrap_or(0.0);
            // parry reports 0 for touching and for intersecting shapes.
            if distance <= 0.0 || distance < gap {
                first = Some(i);
            }
            false
        });
        self.spawn_index = Some(index);
        first.map(|i| self.bodies[i].name.clone())
    }

    /// The spawn index (to be put back), rebuilt when bodies have moved since it was made or
    /// when a body of bounding radius `radius` m wants cells of another size.
    fn take_spawn_index(&mut self, radius: f64) -> SpawnIndex {
        let cell = 2.0 * radius;
        match self.spawn_index.take() {
            Some(index) if index.cell <= 2.0 * cell && index.cell >= 0.5 * cell => index,
            stale => {
                let mut grid = stale.map(|s| s.grid).unwrap_or_default();
                let half = self.arena.spawn_half_extents();
                grid.reset(-half, half, cell);
                for (i, b) in self.bodies.iter().enumerate() {
                    if let Some(rb) = self.physics.bodies.get(b.handle) {
                        let q = rb.translation();
                        grid.insert(i as u32, &Disc { centre: Vector2::new(q.x, q.y), radius: b.model.spec.shape.horizontal_radius() });
                    }
                }
                SpawnIndex { grid, cell }
            }
        }
    }

    /// A thruster on a face with outward normal `normal`: pushes along -normal, with a
    /// direction error parallel to the face and a failure draw (SPEC 5).
    fn draw_thruster(&mut self, normal: Vector3<f64>) -> Thruster {
        let t = &self.config.thrusters;
        let along = Vector3::z().cross(&normal);
        let length = self.rng.gen_range(0.0..=1.0) * t.direction_error;
        let sign = if self.rng.gen_bool(0.5) { 1.0 } else { -1.0 };
        let failed = self.rng.gen_bool(t.failure_probability);
        let direction = (-normal + along * (sign * length)).normalize();
        Thruster { direction, failed }
    }
}

/// Longest module name, characters: it becomes topic names (`/<name>/sensors`), which
/// rcl limits to a few hundred characters.
pub const MAX_NAME_LEN: usize = 64;

fn check_name(name: &str) -> Result<(), PhysicsError> {
    let ok =
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit());
    let shown = || if name.len() > 40 { format!("{}... ({} characters)", &name[..40], name.len()) } else { name.to_owned() };
    if !ok {
        Err(PhysicsError::InvalidName {
            name: shown(),
            reason: "must be a ROS name: letters, digits and `_`, not starting with a digit".into(),
        })
    } else if name.len() > MAX_NAME_LEN {
        Err(PhysicsError::InvalidName { name: shown(), reason: format!("must be at most {MAX_NAME_LEN} characters (it names topics)") })
    } else {
        Ok(())
    }
}

/// Checks what [`WorldConfig::from_params`] checks, for configs built in code.
fn validate(config: &WorldConfig) -> Result<(), ConfigError> {
    check_range("dt", config.dt, 1e-4, 0.1)?;
    config.hydro.validate()?;
    check_range("arena.water_level", config.arena.water_level, -config.arena.depth + 0.03, 0.0)?;
    crate::config::check_medium(config.medium_kind(), &config.arena)?;
    if config.pumps.len() != config.arena.inlets.count {
        return Err(ConfigError::Invalid {
            path: "pumps.power".into(),
            message: format!("one value per inlet ({}), got {}", config.arena.inlets.count, config.pumps.len()),
        });
    }
    for (i, p) in config.pumps.iter().enumerate() {
        check_range(&format!("pumps.power[{i}]"), *p, 0.0, 100.0)?;
    }
    Ok(())
}
