//! The rapier3d side of a world: the sets, the pipeline, and how modules become bodies.

use crate::arena::Arena;
use crate::config::ContactConfig;
use crate::medium::{Hold, Medium};
use flotilla_common::catalogue::{ModuleSpec, Shape};
use nalgebra::{Isometry3, Vector3};
use rapier3d_f64::prelude::*;

/// The rapier shape of a catalogue shape.
pub(crate) fn collision_shape(shape: &Shape) -> SharedShape {
    match *shape {
        Shape::Sphere { radius } => SharedShape::ball(radius),
        Shape::Box { half_extents: h } => SharedShape::cuboid(h.x, h.y, h.z),
        Shape::Cylinder { radius, half_height } => SharedShape::cylinder(half_height, radius),
    }
}

/// When a body needs CCD. rapier's own activity test compares a speed with a length
/// (without the step), so with CCD simply left on nearly every body ran it every step (it
/// halved the speed of a 24-ball world). CCD is needed where a body may cross more than a
/// quarter of its thinnest size in the coming step next to a wall: fast bodies pressed
/// into the wall sank through it (proptest regressions); bodies meet each other softly.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CcdGate {
    /// Travel in one step above which a body counts as fast, m.
    travel_limit: f64,
    /// Bounding radius (how far rotation moves a point), m.
    radius: f64,
}

impl CcdGate {
    pub(crate) fn for_shape(shape: &Shape) -> Self {
        let shape = collision_shape(shape);
        Self { travel_limit: 0.25 * shape.ccd_thickness(), radius: shape.compute_local_bounding_sphere().radius() }
    }

    /// How far a point of a body moving at `speed` m/s and spinning at `spin` rad/s may
    /// travel in a step of `dt` s, m.
    pub(crate) fn travel(&self, speed: f64, spin: f64, dt: f64) -> f64 {
        (speed + spin * self.radius) * dt
    }

    /// Whether that travel is enough to need CCD.
    pub(crate) fn is_fast(&self, travel: f64) -> bool {
        travel > self.travel_limit
    }

    /// Bounding radius, m.
    pub(crate) fn radius(&self) -> f64 {
        self.radius
    }
}

/// Everything rapier needs to step.
pub(crate) struct Physics {
    pub(crate) pipeline: PhysicsPipeline,
    pub(crate) params: IntegrationParameters,
    pub(crate) islands: IslandManager,
    pub(crate) broad_phase: BroadPhaseBvh,
    pub(crate) narrow_phase: NarrowPhase,
    pub(crate) bodies: RigidBodySet,
    pub(crate) colliders: ColliderSet,
    pub(crate) impulse_joints: ImpulseJointSet,
    pub(crate) multibody_joints: MultibodyJointSet,
    pub(crate) ccd: CCDSolver,
}

impl Physics {
    /// Empty sets plus the arena's walls as colliders of one fixed body, and a floor at
    /// z = 0 when the medium lets bodies rest on one.
    pub(crate) fn new(dt: f64, solver_iterations: usize, arena: &Arena, contact: &ContactConfig, medium: &dyn Medium) -> Self {
        let mut params = IntegrationParameters { dt, ..IntegrationParameters::default() };
        params.num_solver_iterations = solver_iterations;
        let mut physics = Self {
            pipeline: PhysicsPipeline::new(),
            params,
            islands: IslandManager::new(),
            broad_phase: BroadPhaseBvh::new(),
            narrow_phase: NarrowPhase::new(),
            bodies: RigidBodySet::new(),
            colliders: ColliderSet::new(),
            impulse_joints: ImpulseJointSet::new(),
            multibody_joints: MultibodyJointSet::new(),
            ccd: CCDSolver::new(),
        };
        if arena.walls.is_empty() && !medium.has_floor() {
            return physics;
        }
        let ground = physics.bodies.insert(RigidBodyBuilder::fixed().build());
        if arena.walls.len() <= 4 {
            // A rectangle's four walls as their own colliders: a compound's bounding box
            // spans the whole arena, which made every body a broad-phase pair with it.
            for w in &arena.walls {
                let collider = ColliderBuilder::cuboid(w.half_extents.x, w.half_extents.y, w.half_extents.z)
                    .position(w.pose)
                    .friction(contact.friction)
                    .restitution(contact.restitution)
                    .build();
                physics.colliders.insert_with_parent(collider, ground, &mut physics.bodies);
            }
        } else {
            // The round tank's many wall boxes as one compound collider: the broad phase
            // then sees a single static leaf instead of one per wall box.
            let boxes =
                arena.walls.iter().map(|w| (w.pose, SharedShape::cuboid(w.half_extents.x, w.half_extents.y, w.half_extents.z))).collect();
            let collider = ColliderBuilder::compound(boxes).friction(contact.friction).restitution(contact.restitution).build();
            physics.colliders.insert_with_parent(collider, ground, &mut physics.bodies);
        }
        if medium.has_floor() {
            let floor = ColliderBuilder::halfspace(Vector3::z_axis()).friction(contact.friction).restitution(contact.restitution).build();
            physics.colliders.insert_with_parent(floor, ground, &mut physics.bodies);
        }
        physics
    }

    /// A dynamic body for `spec` at `pose`, held as the medium says (`hold`: locked axes,
    /// gravity scale), no built-in damping (media apply their own), never asleep so forces
    /// always apply.
    pub(crate) fn add_module(
        &mut self,
        spec: &ModuleSpec,
        hold: &Hold,
        pose: Isometry3<f64>,
        contact: &ContactConfig,
        id: u32,
    ) -> RigidBodyHandle {
        let body = RigidBodyBuilder::dynamic()
            .pose(pose)
            .locked_axes(hold.locked_axes)
            .gravity_scale(hold.gravity_scale)
            .can_sleep(false)
            // Switched on per step by `CcdGate` when the body moves fast.
            .ccd_enabled(false)
            .user_data(id as u128)
            .build();
        let handle = self.bodies.insert(body);
        let collider = ColliderBuilder::new(collision_shape(&spec.shape))
            .mass(spec.mass)
            .friction(contact.friction)
            .restitution(contact.restitution)
            .user_data(id as u128)
            .build();
        self.colliders.insert_with_parent(collider, handle, &mut self.bodies);
        handle
    }

    /// Removes a body with its collider and joints.
    pub(crate) fn remove(&mut self, handle: RigidBodyHandle) {
        self.bodies.remove(handle, &mut self.islands, &mut self.colliders, &mut self.impulse_joints, &mut self.multibody_joints, true);
    }

    /// Advances rapier by one step with the forces already applied, under `gravity` m/s^2.
    pub(crate) fn step(&mut self, gravity: &Vector3<f64>) {
        self.pipeline.step(
            gravity,
            &self.params,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.ccd,
            &(),
            &(),
        );
    }
}
