//! The world: bodies in an arena under the hydrodynamic model, stepped by rapier3d.

mod error;
mod latch;
mod physics;
mod state;

pub use error::PhysicsError;
pub use state::{BodyState, Command, FaceState, LatchLink, PlanarPose};

use crate::arena::Arena;
use crate::config::{check_range, ConfigError, HydroParams, WorldConfig};
use crate::flow;
use crate::hydro::{self, DragModel};
use flotilla_common::catalogue::{Medium, ModuleKind, ModuleSpec, Shape};
use flotilla_common::flow_field::FlowGrid;
use nalgebra::{Isometry3, Point2, Translation3, UnitQuaternion, Vector2, Vector3};
use physics::Physics;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use rapier3d_f64::prelude::RigidBodyHandle;
use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::sync::Arc;

/// A module kind as the world uses it: the catalogue entry and its drag model.
struct KindModel {
    spec: ModuleSpec,
    drag: DragModel,
    ccd: physics::CcdGate,
}

/// Per-thruster imperfection drawn at spawn.
#[derive(Clone, Copy, Debug)]
struct Thruster {
    /// Unit thrust direction in the body frame (inward normal plus direction error).
    direction: Vector3<f64>,
    /// Broken for good.
    failed: bool,
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
        let physics = Physics::new(config.dt, config.solver_iterations, &arena, &config.contact);
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
            config,
        };
        let groups = world.config.modules.clone();
        for group in &groups {
            for i in 0..group.count {
                let name = format!("{}_{i}", group.prefix);
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

    /// Advances one `config.dt` (s): latches made/broken per the commands, hydrodynamic
    /// and thruster forces on every body, then rapier.
    pub fn step(&mut self) {
        self.update_latches();
        let dt = self.config.dt;
        let hydro = &self.config.hydro;
        let lin_keep = hydro::damping_factor(hydro.d_linear, dt);
        let ang_keep = hydro::damping_factor(hydro.d_angular, dt);
        for body in &self.bodies {
            let Some(rb) = self.physics.bodies.get_mut(body.handle) else { continue };
            // Draws happen for every body in id order, whatever its medium, so that a
            // seed fixes the whole run.
            let z_flow = Vector2::new(self.rng.sample(StandardNormal), self.rng.sample(StandardNormal));
            let z_stoch = Vector2::new(self.rng.sample(StandardNormal), self.rng.sample(StandardNormal));
            let pose = *rb.position();
            let mass = body.model.spec.mass;
            let inertia_z = body.model.spec.inertia().z;
            let mut force = Vector3::zeros();
            let mut torque = Vector3::zeros();
            // Webots damping acts on every body, in water or not.
            let linvel = *rb.linvel() * lin_keep;
            let angvel = *rb.angvel() * ang_keep;
            rb.set_linvel(linvel, true);
            rb.set_angvel(angvel, true);
            if !matches!(body.model.drag, DragModel::None) {
                let centre = Point2::new(pose.translation.x, pose.translation.y);
                let v_flow =
                    self.flow.sample_cell(centre).map(|cell| hydro::sample_flow(cell, hydro.kv, z_flow)).unwrap_or_else(Vector3::zeros);
                let (f, t) = hydro::drag(&body.model.drag, &pose, linvel, angvel, v_flow, hydro.kf, hydro.water_density);
                let rel_speed = Vector3::new(linvel.x - v_flow.x, linvel.y - v_flow.y, 0.0).norm();
                force += hydro::limit_drag(f, rel_speed, mass, dt);
                // The same limiter on the spin: drag torque cannot more than stop it in a step.
                torque += hydro::limit_drag(t, angvel.z.abs(), inertia_z, dt);
                force += hydro::stochastic_force(hydro.sigma_stoch, z_stoch);
            }
            for (face, (state, thruster)) in body.model.spec.faces.iter().zip(body.faces.iter().zip(&body.thrusters)) {
                if let (true, Some(t), Some(spec)) = (state.thruster_on, thruster, face.thruster) {
                    if !t.failed {
                        let f = pose.rotation * (t.direction * spec.force);
                        let r = pose.rotation * face.centre;
                        force += f;
                        torque += r.cross(&f);
                    }
                }
            }
            let speed = (linvel + force * (dt / mass)).norm();
            let spin = (angvel.z + torque.z * dt / inertia_z).abs();
            let gate = &body.model.ccd;
            let travel = gate.travel(speed, spin, dt);
            let centre = Point2::new(pose.translation.x, pose.translation.y);
            let near_wall = !self.arena.contains_disc(centre, gate.radius(), 2.0 * travel);
            rb.enable_ccd(near_wall && gate.is_fast(travel));
            rb.reset_forces(false);
            rb.reset_torques(false);
            rb.add_force(force, true);
            rb.add_torque(torque, true);
        }
        self.physics.step();
        self.step_count += 1;
        self.time = self.step_count as f64 * dt;
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
        let rebuild = params.face_sections != self.config.hydro.face_sections;
        self.config.hydro = params;
        if rebuild {
            self.models.clear();
            for body in &mut self.bodies {
                body.model = model_for(&mut self.models, body.kind, self.config.hydro.face_sections);
            }
        }
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
        let model = model_for(&mut self.models, kind, self.config.hydro.face_sections);
        let z = self.body_height(&model.spec)?;
        let iso =
            Isometry3::from_parts(Translation3::new(pose.x, pose.y, z), UnitQuaternion::from_axis_angle(&Vector3::z_axis(), pose.heading));
        if !self.fits(&model.spec.shape, &iso, 0.0) {
            return Err(PhysicsError::OutsideArena { name: name.to_owned(), x: pose.x, y: pose.y });
        }
        if let Some(other) = self.overlapping(&model.spec.shape, &iso, 0.0) {
            return Err(PhysicsError::Overlap { name: name.to_owned(), other });
        }
        let id = self.next_id;
        let handle = self.physics.add_module(&model.spec, iso, &self.config.contact, id);
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
        self.bodies.push(Body { id, name: name.to_owned(), kind, model, handle, faces, thrusters });
        tracing::debug!(id, name, kind = kind.name(), x = pose.x, y = pose.y, "spawned");
        Ok(id)
    }

    /// Adds a module of `kind` at a random free pose (uniform in the arena).
    pub fn spawn_random(&mut self, kind: ModuleKind, name: &str) -> Result<u32, PhysicsError> {
        let model = model_for(&mut self.models, kind, self.config.hydro.face_sections);
        let radius = model.spec.shape.horizontal_radius();
        let half = self.arena.spawn_half_extents();
        let spawn = self.config.spawn.clone();
        for _ in 0..spawn.max_attempts {
            let p = Point2::new(self.rng.gen_range(-half.x..=half.x), self.rng.gen_range(-half.y..=half.y));
            let heading = self.rng.gen_range(-PI..PI);
            let iso = Isometry3::new(Vector3::new(p.x, p.y, 0.0), Vector3::z() * heading);
            if self.arena.contains_disc(p, radius, spawn.wall_margin)
                && self.overlapping(&model.spec.shape, &iso, spawn.min_separation).is_none()
            {
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

    /// Height of the body centre for its medium in this arena, m.
    fn body_height(&self, spec: &ModuleSpec) -> Result<f64, PhysicsError> {
        let half = spec.shape.half_height();
        match (spec.medium, self.arena.surface_z) {
            (Medium::Surface { draft }, Some(surface)) => Ok(surface - draft + half),
            (Medium::Submerged, Some(surface)) => Ok(0.5 * surface),
            (Medium::Ground, _) => Ok(half),
            (_, None) => Err(PhysicsError::NeedsWater { kind: spec.kind, arena: self.arena.kind.name() }),
        }
    }

    /// Name of a body whose collision shape comes closer than `gap` m to `shape` at `pose`.
    fn overlapping(&self, shape: &Shape, pose: &Isometry3<f64>, gap: f64) -> Option<String> {
        let radius = shape.horizontal_radius();
        let probe = physics::collision_shape(shape);
        self.bodies.iter().find_map(|b| {
            let rb = self.physics.bodies.get(b.handle)?;
            let q = rb.translation();
            let reach = radius + b.model.spec.shape.horizontal_radius() + gap;
            if (pose.translation.x - q.x).hypot(pose.translation.y - q.y) >= reach {
                return None;
            }
            let other = physics::collision_shape(&b.model.spec.shape);
            // Same-height probe: overlap in the plane is what matters.
            let mut level = *pose;
            level.translation.z = q.z;
            let distance = rapier3d_f64::parry::query::distance(&level, probe.as_ref(), rb.position(), other.as_ref()).unwrap_or(0.0);
            // parry reports 0 for touching and for intersecting shapes.
            (distance <= 0.0 || distance < gap).then(|| b.name.clone())
        })
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

fn model_for(cache: &mut BTreeMap<ModuleKind, Arc<KindModel>>, kind: ModuleKind, sections: usize) -> Arc<KindModel> {
    cache
        .entry(kind)
        .or_insert_with(|| {
            let spec = kind.spec();
            let drag = DragModel::new(&spec, sections);
            let ccd = physics::CcdGate::for_shape(&spec.shape);
            Arc::new(KindModel { spec, drag, ccd })
        })
        .clone()
}

fn check_name(name: &str) -> Result<(), PhysicsError> {
    let ok =
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit());
    if ok {
        Ok(())
    } else {
        Err(PhysicsError::InvalidName {
            name: name.to_owned(),
            reason: "must be a ROS name: letters, digits and `_`, not starting with a digit".into(),
        })
    }
}

/// Checks what [`WorldConfig::from_params`] checks, for configs built in code.
fn validate(config: &WorldConfig) -> Result<(), ConfigError> {
    check_range("dt", config.dt, 1e-4, 0.1)?;
    config.hydro.validate()?;
    check_range("arena.water_level", config.arena.water_level, -config.arena.depth + 0.03, 0.0)?;
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
