//! A mole on a flat floor under gravity: the rapier world its motions are measured in.
//! The robot takes commands and gives readings through the MoleMOD contract only, so the
//! firmware driving it cannot tell it from a real mole.

use super::{ArticulatedError, ArticulatedOptions, ArticulatedRobot};
use flotilla_common::models::Model;
use flotilla_contract::molemod::{Molemod, MolemodCommand, MolemodSensors};
use flotilla_contract::Firmware;
use nalgebra::{Isometry3, Vector3};
use rapier3d_f64::prelude::*;

/// How the world is set up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoleWorldOptions {
    /// Physics step, s.
    pub dt: f64,
    /// Friction coefficient of the floor (a contact takes the lower of the two surfaces').
    pub floor_friction: f64,
    /// Solver passes per step: a chain of seven jointed bodies needs more than rapier's
    /// default for a motor's torque to reach the far end within a step.
    pub solver_iterations: usize,
    /// The robot's build options.
    pub robot: ArticulatedOptions,
}

impl Default for MoleWorldOptions {
    fn default() -> Self {
        Self { dt: 0.002, floor_friction: 1.0, solver_iterations: 16, robot: ArticulatedOptions::default() }
    }
}

/// A mole on a floor (floor top at z = 0).
pub struct MoleWorld {
    pipeline: PhysicsPipeline,
    params: IntegrationParameters,
    islands: IslandManager,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    ccd: CCDSolver,
    robot: ArticulatedRobot,
    steps: u64,
}

impl MoleWorld {
    /// `model` lying on the floor at `pose` (its root's pose; z = 0 puts the cubes' lower
    /// faces 0.1 mm above the floor for cubes of the model's size), every joint at zero.
    pub fn new(model: &Model, pose: Isometry3<f64>, options: MoleWorldOptions) -> Result<Self, ArticulatedError> {
        let mut bodies = RigidBodySet::new();
        let mut colliders = ColliderSet::new();
        let mut impulse_joints = ImpulseJointSet::new();
        let floor = bodies.insert(RigidBodyBuilder::fixed().translation(Vector3::new(0.0, 0.0, -0.05)).build());
        colliders.insert_with_parent(ColliderBuilder::cuboid(5.0, 5.0, 0.05).friction(options.floor_friction).build(), floor, &mut bodies);
        let half_height = model.links.first().and_then(|l| l.collisions.first()).map_or(0.02, |c| match c.geometry {
            flotilla_common::models::Geometry::Box { size } => 0.5 * size.z,
            flotilla_common::models::Geometry::Cylinder { radius, .. } | flotilla_common::models::Geometry::Sphere { radius } => radius,
        });
        let lifted = Isometry3::translation(0.0, 0.0, half_height + 1e-4) * pose;
        let robot = ArticulatedRobot::build(model, lifted, options.robot, &mut bodies, &mut colliders, &mut impulse_joints)?;
        Ok(Self {
            pipeline: PhysicsPipeline::new(),
            // Centimetre-sized bodies: rapier's tolerances and speculative-contact distance
            // scale with length_unit; at the default 1 m the links float on 2 mm contacts.
            params: IntegrationParameters {
                dt: options.dt,
                length_unit: 0.01,
                num_internal_pgs_iterations: options.solver_iterations,
                ..IntegrationParameters::default()
            },
            islands: IslandManager::new(),
            broad_phase: BroadPhaseBvh::new(),
            narrow_phase: NarrowPhase::new(),
            bodies,
            colliders,
            impulse_joints,
            multibody_joints: MultibodyJointSet::new(),
            ccd: CCDSolver::new(),
            robot,
            steps: 0,
        })
    }

    /// Sim time, s.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.params.dt
    }

    /// The robot's encoder reading now.
    pub fn sensors(&self) -> MolemodSensors {
        self.robot.sensors(self.time(), &self.bodies)
    }

    /// Carries out `command` for one step (a bad command changes nothing and is returned).
    pub fn step(&mut self, robot: &str, command: &MolemodCommand) -> Result<(), ArticulatedError> {
        self.robot.apply(robot, command, &self.bodies, &mut self.colliders, &mut self.impulse_joints)?;
        self.pipeline.step(
            &Vector3::new(0.0, 0.0, -9.81),
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
        self.steps += 1;
        Ok(())
    }

    /// Runs `firmware` against the robot, one command per step, until `done(firmware)`
    /// holds after a step or `limit` seconds passed (then `Ok(false)`); `each` sees every
    /// reading. A command the robot cannot take is returned as the error.
    pub fn drive<F: Firmware<Molemod>>(
        &mut self,
        robot: &str,
        firmware: &mut F,
        limit: f64,
        mut done: impl FnMut(&F) -> bool,
        mut each: impl FnMut(&MolemodSensors),
    ) -> Result<bool, ArticulatedError> {
        let end = self.time() + limit;
        while self.time() < end {
            let reading = self.sensors();
            each(&reading);
            let command = firmware.step(reading.stamp, &reading);
            self.step(robot, &command)?;
            if done(firmware) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The built robot (its joints, links and limits).
    pub fn robot(&self) -> &ArticulatedRobot {
        &self.robot
    }

    /// Pose of `link` in the world.
    pub fn link_pose(&self, link: &str) -> Result<Isometry3<f64>, ArticulatedError> {
        self.robot.link_pose(link, &self.bodies)
    }

    /// Position of joint coordinate `name`, m or rad.
    pub fn joint_position(&self, name: &str) -> Result<f64, ArticulatedError> {
        self.robot.joint_position(name, &self.bodies)
    }

    /// Mass of `link`'s body, kg.
    pub fn link_mass(&self, link: &str) -> Result<f64, ArticulatedError> {
        let handle = self.robot.body(link)?;
        self.bodies.get(handle).map(|b| b.mass()).ok_or_else(|| ArticulatedError::UnknownBody(link.to_owned()))
    }

    /// Sets the friction of `link`'s colliders.
    pub fn set_friction(&mut self, link: &str, friction: f64) -> Result<(), ArticulatedError> {
        self.robot.set_friction(link, friction, &self.bodies, &mut self.colliders)
    }
}
