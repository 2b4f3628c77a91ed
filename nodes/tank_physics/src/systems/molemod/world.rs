//! A mole on a flat floor under gravity, alone or in the tunnels of a lattice of passive
//! blocks: the rapier world its motions are measured in. The robot takes commands and
//! gives readings through the MoleMOD contract only, so the firmware driving it cannot
//! tell it from a real mole.
//!
//! **Gripping inside a block.** The real mole grips a tunnel by pressing its head against
//! the walls. Where the tunnel floor has its hole (the crossing tunnel), floor friction
//! cannot stand for that, so a head that grips while its centre is inside a block is
//! clamped to the block: a joint whose six axes are held still by motors up to
//! [`GripClamp::force`] and [`GripClamp::torque`], removed when the grip is released. On
//! the open floor a grip is the head's friction alone.

use super::blocks::{BlockError, BlockOptions, Blocks};
use super::{ArticulatedError, ArticulatedOptions, ArticulatedRobot};
use flotilla_common::models::dimensions::MolemodRobotGeometry;
use flotilla_common::models::Model;
use flotilla_contract::molemod::{Molemod, MolemodCommand, MolemodSensors};
use flotilla_contract::Firmware;
use nalgebra::{Isometry3, Point3, Vector3};
use rapier3d_f64::prelude::*;
use reconfig_planner::lattice::{Cell, Lattice};

/// Solver passes per step for lifting a block (`set_solver_iterations`): turning the
/// parted block up about the front universal joint moves the body, the rear half and the
/// block through a chain of seven impulse-jointed bodies (15 g joint cubes between 47 g
/// cubes and a 250 g block) against the front head's clamp, and the joint's push reaches
/// the far end only after many passes. Measured (docs/molemod_execution.md): at 64 and 256
/// passes the pitch joint stalls within 3 mrad, even driven with 10 N m; at 384 and 512
/// it turns the block 0.2 rad with a 0.245 N m joint, and at 512 the part before it
/// moves the lighter block (the robot's), not its screwed neighbours.
pub const LIFT_SOLVER_ITERATIONS: usize = 512;

/// Solver passes per step for the firmware's `Motion::TurnUp`:
/// the passes the turn up was measured at (`molemod_vertical`, `molemod_tunnels`, and task
/// 1's shift chain in `molemod_shift_chain`; docs/molemod_execution.md).
pub const TURN_SOLVER_ITERATIONS: usize = 64;

/// Solver passes per step for the motions that roll a block over (`PushOver`, `ShiftBelow`,
/// `Shift`): twice [`LIFT_SOLVER_ITERATIONS`], the passes they were measured at
/// (`molemod_push_over`, `molemod_shift_below`, `molemod_shift`; docs/molemod_execution.md).
pub const PUSH_SOLVER_ITERATIONS: usize = 2 * LIFT_SOLVER_ITERATIONS;

/// An axis-aligned box in the world, m: where a link lies, or where a robot's motions
/// reach.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    /// The corner with the smallest coordinates, m.
    pub min: Vector3<f64>,
    /// The corner with the largest coordinates, m.
    pub max: Vector3<f64>,
}

impl Span {
    /// The box from `min` to `max`, m.
    pub fn new(min: Vector3<f64>, max: Vector3<f64>) -> Self {
        Self { min, max }
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Span) -> Span {
        Span { min: self.min.inf(&other.min), max: self.max.sup(&other.max) }
    }

    /// The box swept by this one moved by `by` (m) in a straight line.
    pub fn swept(&self, by: &Vector3<f64>) -> Span {
        self.union(&Span { min: self.min + by, max: self.max + by })
    }

    /// The part the two boxes share, if they share a volume (touching faces share none).
    pub fn overlap(&self, other: &Span) -> Option<Span> {
        let shared = Span { min: self.min.sup(&other.min), max: self.max.inf(&other.max) };
        (shared.min.iter().zip(shared.max.iter()).all(|(lo, hi)| hi > lo)).then_some(shared)
    }

    /// The box's smallest extent, m: for the part two boxes share, how deep one is in the
    /// other.
    pub fn depth(&self) -> f64 {
        (self.max - self.min).min()
    }

    /// The box's centre, m.
    pub fn centre(&self) -> Vector3<f64> {
        0.5 * (self.min + self.max)
    }
}

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
    /// Substeps per step (rapier's `num_solver_iterations`): a cantilevered head held by
    /// a chain of light links sags less with more.
    pub substeps: usize,
    /// Natural frequency of the contact spring, Hz. Rapier's 30 Hz lets a loaded 40 mm
    /// cube sink 0.2-0.45 mm into what it rests on, enough for a cube crossing a tunnel's
    /// hole to catch the far rim; at 1000 Hz it sinks under 0.05 mm.
    pub contact_frequency: f64,
    /// The robot's build options.
    pub robot: ArticulatedOptions,
    /// How hard a gripping head holds on to a block.
    pub clamp: GripClamp,
}

impl Default for MoleWorldOptions {
    fn default() -> Self {
        Self {
            dt: 0.002,
            floor_friction: 1.0,
            solver_iterations: 16,
            substeps: 8,
            contact_frequency: 1000.0,
            robot: ArticulatedOptions::default(),
            clamp: GripClamp::default(),
        }
    }
}

/// The hold of a head gripping inside a block. The head's pads press on the tunnel's walls
/// along the part of its length inside the block: it grips once [`GripClamp::engaged_min`]
/// of its length is in, with [`GripClamp::force`] and [`GripClamp::torque`] scaled by that
/// length up to [`GripClamp::engaged_full`] (assumed: the paper gives no grip figure nor the
/// pads' layout).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GripClamp {
    /// Largest force the grip holds along each axis with [`GripClamp::engaged_full`] of the
    /// head in the block or more, N.
    pub force: f64,
    /// Largest torque the grip holds about each axis, likewise, N m.
    pub torque: f64,
    /// Least length of the head inside a block for its pads to grip, m.
    pub engaged_min: f64,
    /// Length of the head inside a block from which it grips with the full force and torque,
    /// m (half the 40 mm head: its centre inside the block).
    pub engaged_full: f64,
    /// Motor damping of the clamp, N s/m and N m s/rad: high, so below its limits the
    /// clamp does not creep (a static grip), as a softer one lets the head slide 1 mm per
    /// crawl cycle.
    pub damping: f64,
}

impl Default for GripClamp {
    /// 30 N and 1.04 N m (assumed: the paper gives no grip figure): twice the force of a
    /// prismatic joint and the torque of a universal one (`MolemodRobotGeometry`: the
    /// PQ12-class 15 N and the XL330-M288-T-class 0.52 N m), so the joints cannot pull a
    /// gripping head loose, and far above the 2 N weight of the mole; in full from half the
    /// head's length inside the block, none below 15 mm of its 40 mm (a head whose centre is
    /// up to 5 mm out of a tunnel's mouth still grips, with three quarters of the hold).
    fn default() -> Self {
        let joints = MolemodRobotGeometry::default();
        Self {
            force: 2.0 * joints.prismatic_force,
            torque: 2.0 * joints.universal_torque,
            engaged_min: 0.015,
            engaged_full: 0.5 * joints.main_cube_side,
            damping: 1.0e6,
        }
    }
}

/// A world that cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// The robot cannot be built.
    #[error(transparent)]
    Robot(#[from] ArticulatedError),
    /// The blocks cannot be built.
    #[error(transparent)]
    Blocks(#[from] BlockError),
    /// The lattice has no robot to put the mole in.
    #[error("the lattice has no robot cell")]
    NoRobot,
    /// The build was stopped from outside ([`MoleWorld::in_lattice_until`]).
    #[error("cancelled while the world was being built")]
    Cancelled,
    /// A robot index the world does not have.
    #[error("no robot {index} (the world has {count})")]
    NoSuchRobot {
        /// The index asked for.
        index: usize,
        /// Robots in the world.
        count: usize,
    },
}

/// One mole in the world: its bodies and joints, and the state of its heads' grips.
struct Mole {
    robot: ArticulatedRobot,
    /// Per head: the clamp joint holding it to a block while it grips there.
    clamps: Vec<Option<ImpulseJointHandle>>,
    /// Per head: gripping (the last command's, or the start's: all).
    grips: Vec<bool>,
}

impl Mole {
    fn new(robot: ArticulatedRobot, heads: usize) -> Self {
        Self { robot, clamps: vec![None; heads], grips: vec![true; heads] }
    }
}

/// Moles on a floor (floor top at z = 0): one on an open floor, one per robot cell in a
/// lattice. The robots do not touch each other (their links share one collision group),
/// only the floor and the blocks.
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
    /// The robots; the first is the one the single-robot methods address.
    moles: Vec<Mole>,
    steps: u64,
    blocks: Option<Blocks>,
    clamp: GripClamp,
}

/// Half the length of a link along its own x axis, m: the farthest its colliders reach
/// along it either way (0 without colliders).
fn head_half_length(body: RigidBodyHandle, bodies: &RigidBodySet, colliders: &ColliderSet) -> f64 {
    bodies.get(body).map_or(0.0, |b| {
        b.colliders()
            .iter()
            .filter_map(|&c| colliders.get(c))
            .map(|c| {
                let aabb = c.shape().compute_aabb(c.position_wrt_parent().copied().as_ref().unwrap_or(&Isometry3::identity()));
                aabb.mins.x.abs().max(aabb.maxs.x.abs())
            })
            .fold(0.0, f64::max)
    })
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
                num_solver_iterations: options.substeps,
                contact_softness: SpringCoefficients { natural_frequency: options.contact_frequency, damping_ratio: 5.0 },
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
            moles: vec![Mole::new(robot, options.robot.heads.len())],
            steps: 0,
            blocks: None,
            clamp: options.clamp,
        })
    }

    /// The blocks of `lattice` standing on the floor (see [`Blocks`]), all screwed to
    /// their neighbours, and one `model` per robot of the lattice (robot `i` of the
    /// lattice is robot `i` here) lying on the floor of the `x` tunnel of its block, its
    /// body cube at the block's centre, heading along +x.
    pub fn in_lattice(model: &Model, lattice: &Lattice, options: MoleWorldOptions, blocks: BlockOptions) -> Result<Self, WorldError> {
        Self::in_lattice_until(model, lattice, options, blocks, &|| false)
    }

    /// [`MoleWorld::in_lattice`] that stops with [`WorldError::Cancelled`] as soon as
    /// `cancelled` says so: checked before each block and each robot is added (a full
    /// 8 x 8 x 8 lattice is 512 blocks), so the build stops within one of them.
    pub fn in_lattice_until(
        model: &Model,
        lattice: &Lattice,
        options: MoleWorldOptions,
        blocks: BlockOptions,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Self, WorldError> {
        let cell = *lattice.robots().first().ok_or(WorldError::NoRobot)?;
        // Built at the floor first, then lifted into the tunnel: the root's pose is at its
        // cube's centre, the tunnel floor lies half a tunnel below the block's centre.
        let mut world = Self::new(model, Isometry3::identity(), options)?;
        let built =
            match Blocks::build_until(lattice, blocks, &mut world.bodies, &mut world.colliders, &mut world.impulse_joints, cancelled) {
                Err(BlockError::Cancelled) => return Err(WorldError::Cancelled),
                built => built?,
            };
        let centre = built.centre(&cell);
        let lift = Isometry3::translation(centre.x, centre.y, centre.z - 0.5 * blocks.tunnel);
        for (_, handle) in world.moles[0].robot.bodies_iter() {
            if let Some(body) = world.bodies.get_mut(handle) {
                let pose = lift * body.position();
                body.set_position(pose, true);
            }
        }
        // The others straight into their tunnels, at the first one's height above its floor.
        let root_height = world.moles[0].robot.link_pose(&model.links[0].name, &world.bodies)?.translation.z - centre.z;
        for cell in &lattice.robots()[1..] {
            if cancelled() {
                return Err(WorldError::Cancelled);
            }
            let at = built.centre(cell);
            let pose = Isometry3::translation(at.x, at.y, at.z + root_height);
            let robot =
                ArticulatedRobot::build(model, pose, options.robot, &mut world.bodies, &mut world.colliders, &mut world.impulse_joints)?;
            world.moles.push(Mole::new(robot, options.robot.heads.len()));
        }
        world.blocks = Some(built);
        Ok(world)
    }

    /// Moves every body of robot `index` by `by` (m), as it stands.
    pub fn shift_robot(&mut self, index: usize, by: &Vector3<f64>) -> Result<(), WorldError> {
        self.move_robot(index, &Isometry3::from(by.clone_owned()))
    }

    /// Moves every body of robot `index` rigidly by `by` (world frame, m and rad), as it
    /// stands: e.g. turned about a block's centre to stand the mole up in a vertical tunnel.
    /// `by` is applied to where the bodies are now, not to where the robot was built: two
    /// calls compose (a second quarter turn about the same centre makes a half turn).
    pub fn move_robot(&mut self, index: usize, by: &Isometry3<f64>) -> Result<(), WorldError> {
        let handles: Vec<RigidBodyHandle> = self.mole(index)?.robot.bodies_iter().map(|(_, h)| h).collect();
        for handle in handles {
            if let Some(body) = self.bodies.get_mut(handle) {
                let pose = by * body.position();
                body.set_position(pose, true);
            }
        }
        Ok(())
    }

    /// Number of robots.
    pub fn robot_count(&self) -> usize {
        self.moles.len()
    }

    fn mole(&self, index: usize) -> Result<&Mole, WorldError> {
        self.moles.get(index).ok_or(WorldError::NoSuchRobot { index, count: self.moles.len() })
    }

    /// Sets the solver passes per step from now on (see
    /// [`MoleWorldOptions::solver_iterations`]). A pitch of a universal joint against a
    /// clamped head at the chain's other end needs more than a crawl: with 16 the pitch
    /// motor's push converges too slowly through the seven bodies and the joint creeps
    /// (docs/molemod_execution.md, turning inside a block).
    pub fn set_solver_iterations(&mut self, iterations: usize) {
        self.params.num_internal_pgs_iterations = iterations;
    }

    /// The solver passes per step now.
    pub fn solver_iterations(&self) -> usize {
        self.params.num_internal_pgs_iterations
    }

    /// Sim time, s.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.params.dt
    }

    /// The first robot's encoder reading now.
    pub fn sensors(&self) -> MolemodSensors {
        self.moles[0].robot.sensors(self.time(), &self.bodies)
    }

    /// Robot `index`'s encoder reading now.
    pub fn robot_sensors(&self, index: usize) -> Result<MolemodSensors, WorldError> {
        Ok(self.mole(index)?.robot.sensors(self.time(), &self.bodies))
    }

    /// Carries out `command` on the first robot for one step (a bad command changes
    /// nothing and is returned); the others keep their last command.
    pub fn step(&mut self, robot: &str, command: &MolemodCommand) -> Result<(), ArticulatedError> {
        self.command(0, robot, command)?;
        self.advance()
    }

    /// Carries out one command per robot, in robot order (each named for the contract's
    /// checks), for one step; robots after the last command keep their last command.
    pub fn step_all(&mut self, commands: &[(&str, &MolemodCommand)]) -> Result<(), ArticulatedError> {
        for (index, (robot, command)) in commands.iter().enumerate() {
            self.command(index, robot, command)?;
        }
        self.advance()
    }

    fn command(&mut self, index: usize, robot: &str, command: &MolemodCommand) -> Result<(), ArticulatedError> {
        let mole = self.moles.get_mut(index).ok_or_else(|| ArticulatedError::UnknownBody(format!("robot {index}")))?;
        mole.robot.apply(robot, command, &self.bodies, &mut self.colliders, &mut self.impulse_joints)?;
        if !command.head_grip.is_empty() {
            mole.grips.clone_from(&command.head_grip);
        }
        Ok(())
    }

    fn advance(&mut self) -> Result<(), ArticulatedError> {
        self.clamp_heads()?;
        let contacts = self.blocks.as_ref().map(Blocks::contacts);
        let hooks: &dyn PhysicsHooks = match &contacts {
            Some(contacts) => contacts,
            None => &(),
        };
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
            hooks,
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

    /// Clamps each gripping head that is inside a block to it; frees each head that lets go.
    fn clamp_heads(&mut self) -> Result<(), ArticulatedError> {
        let Some(blocks) = &self.blocks else { return Ok(()) };
        for mole in &mut self.moles {
            for (i, head) in mole.robot.heads().iter().enumerate() {
                match (mole.grips[i], mole.clamps[i]) {
                    (true, None) => {
                        let handle = mole.robot.body(head)?;
                        let pose = mole.robot.link_pose(head, &self.bodies)?;
                        // The head along its axis, end to end (its colliders' extent).
                        let half = head_half_length(handle, &self.bodies, &self.colliders);
                        let (from, to) = (pose * Point3::new(-half, 0.0, 0.0), pose * Point3::new(half, 0.0, 0.0));
                        let Some((block, engaged)) = blocks.block_engaging(&from, &to, &self.bodies) else { continue };
                        if engaged < self.clamp.engaged_min {
                            continue;
                        }
                        let share = (engaged / self.clamp.engaged_full).min(1.0);
                        let Some(block_pose) = self.bodies.get(block.body).map(|b| *b.position()) else { continue };
                        let mut joint = GenericJointBuilder::new(JointAxesMask::empty())
                            .local_frame1(Isometry3::identity())
                            .local_frame2(block_pose.inverse() * pose)
                            .contacts_enabled(true);
                        for (axis, limit) in [
                            (JointAxis::LinX, share * self.clamp.force),
                            (JointAxis::LinY, share * self.clamp.force),
                            (JointAxis::LinZ, share * self.clamp.force),
                            (JointAxis::AngX, share * self.clamp.torque),
                            (JointAxis::AngY, share * self.clamp.torque),
                            (JointAxis::AngZ, share * self.clamp.torque),
                        ] {
                            joint = joint
                                .motor_model(axis, MotorModel::ForceBased)
                                .motor_velocity(axis, 0.0, self.clamp.damping)
                                .motor_max_force(axis, limit);
                        }
                        mole.clamps[i] = Some(self.impulse_joints.insert(handle, block.body, joint.build(), true));
                    }
                    (false, Some(clamp)) => {
                        self.impulse_joints.remove(clamp, true);
                        mole.clamps[i] = None;
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The blocks, if the world has a lattice.
    pub fn blocks(&self) -> Option<&Blocks> {
        self.blocks.as_ref()
    }

    /// The closest contact now between `link` of the first robot and any block, m: the
    /// smallest distance among their contact points (negative = the link overlaps the block by that much);
    /// `None` when the link touches no block (nor comes within rapier's prediction distance).
    pub fn block_contact(&self, link: &str) -> Result<Option<f64>, ArticulatedError> {
        let Some(blocks) = &self.blocks else { return Ok(None) };
        let body = self.moles[0].robot.body(link)?;
        let of_block = |collider: ColliderHandle| {
            self.colliders.get(collider).and_then(|c| c.parent()).is_some_and(|p| blocks.blocks().iter().any(|b| b.body == p))
        };
        let mut closest: Option<f64> = None;
        for &collider in self.bodies.get(body).map(|b| b.colliders()).unwrap_or_default() {
            for pair in self.narrow_phase.contact_pairs_with(collider) {
                let other = if pair.collider1 == collider { pair.collider2 } else { pair.collider1 };
                if !of_block(other) {
                    continue;
                }
                for point in pair.manifolds.iter().flat_map(|m| &m.points) {
                    closest = Some(closest.map_or(point.dist, |c| c.min(point.dist)));
                }
            }
        }
        Ok(closest)
    }

    /// The vertical force the floor bears the block that started in `home` with now, N:
    /// the normal impulses of their contacts over the last step. At rest and alone, the
    /// block's weight; a robot resting in it or straining against it changes it.
    pub fn floor_load(&self, home: &Cell) -> Result<f64, WorldError> {
        let blocks = self.blocks.as_ref().ok_or(BlockError::NoBlock(*home))?;
        let block = blocks.block(home)?;
        let fixed = |collider: ColliderHandle| {
            self.colliders.get(collider).and_then(|c| c.parent()).and_then(|p| self.bodies.get(p)).is_some_and(|b| b.is_fixed())
        };
        let mut up = 0.0;
        for &collider in self.bodies.get(block.body).map(|b| b.colliders()).unwrap_or_default() {
            for pair in self.narrow_phase.contact_pairs_with(collider) {
                // The pair's impulse is the one its second collider receives.
                let (other, sign) = if pair.collider1 == collider { (pair.collider2, -1.0) } else { (pair.collider1, 1.0) };
                if fixed(other) {
                    up += sign * pair.total_impulse().z;
                }
            }
        }
        Ok(up / self.params.dt)
    }

    /// Whether head `i` (0 = front) of the first robot is clamped to a block now.
    pub fn head_clamped(&self, i: usize) -> bool {
        self.moles[0].clamps.get(i).is_some_and(Option::is_some)
    }

    /// Where the block that started in `home` is: its distance from the centre of `cell`, m.
    pub fn block_error(&self, home: &Cell, cell: &Cell) -> Result<f64, WorldError> {
        let blocks = self.blocks.as_ref().ok_or(BlockError::NoBlock(*home))?;
        Ok((blocks.pose(home, &self.bodies)?.translation.vector - blocks.centre(cell)).norm())
    }

    /// Centre of `cell` in the world, m (cell (0, 0, 0) stands on the floor at the origin;
    /// 100 mm cells without blocks).
    pub fn cell_centre(&self, cell: &Cell) -> Vector3<f64> {
        let size = self.blocks.as_ref().map_or(BlockOptions::default().size, |b| b.options().size);
        Vector3::new(cell.x as f64 * size, cell.y as f64 * size, (cell.z as f64 + 0.5) * size)
    }

    /// World pose of the block that started in `home`.
    pub fn block_pose(&self, home: &Cell) -> Result<Isometry3<f64>, WorldError> {
        let blocks = self.blocks.as_ref().ok_or(BlockError::NoBlock(*home))?;
        Ok(blocks.pose(home, &self.bodies)?)
    }

    /// How far each block is from the centre of its home cell, m.
    pub fn block_offsets(&self) -> Vec<(Cell, f64)> {
        self.blocks.as_ref().map_or_else(Vec::new, |b| b.offsets(&self.bodies))
    }

    /// Unscrews two blocks (by their home cells).
    pub fn unscrew(&mut self, a: &Cell, b: &Cell) -> Result<(), WorldError> {
        let blocks = self.blocks.as_mut().ok_or(BlockError::NoBlock(*a))?;
        Ok(blocks.unscrew(a, b, &mut self.impulse_joints)?)
    }

    /// Moves the block that started in `home` rigidly by `by` (world frame, m and rad) from
    /// where it is now, at rest: e.g. to start a scene with a block landed off its cell
    /// (unscrew it first: its screws hold it where they were made).
    pub fn move_block(&mut self, home: &Cell, by: &Isometry3<f64>) -> Result<(), WorldError> {
        let blocks = self.blocks.as_ref().ok_or(BlockError::NoBlock(*home))?;
        let handle = blocks.block(home)?.body;
        let body = self.bodies.get_mut(handle).ok_or(BlockError::NoBlock(*home))?;
        body.set_position(by * body.position(), true);
        body.set_linvel(Vector3::zeros(), true);
        body.set_angvel(Vector3::zeros(), true);
        Ok(())
    }

    /// Screws two blocks (by their home cells) together where they stand; they must be
    /// face neighbours now, within 10 % of a block's size (see [`Blocks::screw`]).
    pub fn screw(&mut self, a: &Cell, b: &Cell) -> Result<(), WorldError> {
        let blocks = self.blocks.as_mut().ok_or(BlockError::NoBlock(*a))?;
        Ok(blocks.screw(*a, *b, &self.bodies, &mut self.impulse_joints)?)
    }

    /// The blocks (home cells) screwed to the block that started in `home`.
    pub fn screwed_to(&self, home: &Cell) -> Vec<Cell> {
        self.blocks.as_ref().map_or_else(Vec::new, |b| {
            b.blocks().iter().map(|other| other.home).filter(|other| other != home && b.screwed(home, other)).collect()
        })
    }

    /// The first built robot (its joints, links and limits).
    pub fn robot(&self) -> &ArticulatedRobot {
        &self.moles[0].robot
    }

    /// Built robot `index`.
    pub fn robot_at(&self, index: usize) -> Result<&ArticulatedRobot, WorldError> {
        Ok(&self.mole(index)?.robot)
    }

    /// Where each of robot `index`'s links with a collider lies now (the main cubes; the
    /// joint cubes have none): its name and the world box round its colliders, m.
    pub fn robot_link_spans(&self, index: usize) -> Result<Vec<(String, Span)>, WorldError> {
        let mut spans = Vec::new();
        for (name, handle) in self.mole(index)?.robot.bodies_iter() {
            let colliders = self.bodies.get(handle).map(|b| b.colliders()).unwrap_or_default();
            let boxes = colliders.iter().filter_map(|&c| self.colliders.get(c)).map(|c| {
                let aabb = c.compute_aabb();
                Span::new(aabb.mins.coords, aabb.maxs.coords)
            });
            if let Some(span) = boxes.reduce(|a, b| a.union(&b)) {
                spans.push((name.to_owned(), span));
            }
        }
        Ok(spans)
    }

    /// Pose of the first robot's `link` in the world.
    pub fn link_pose(&self, link: &str) -> Result<Isometry3<f64>, ArticulatedError> {
        self.moles[0].robot.link_pose(link, &self.bodies)
    }

    /// Pose of robot `index`'s `link` in the world.
    pub fn robot_link_pose(&self, index: usize, link: &str) -> Result<Isometry3<f64>, WorldError> {
        Ok(self.mole(index)?.robot.link_pose(link, &self.bodies)?)
    }

    /// Position of the first robot's joint coordinate `name`, m or rad.
    pub fn joint_position(&self, name: &str) -> Result<f64, ArticulatedError> {
        self.moles[0].robot.joint_position(name, &self.bodies)
    }

    /// Mass of the first robot's `link`'s body, kg.
    pub fn link_mass(&self, link: &str) -> Result<f64, ArticulatedError> {
        let handle = self.moles[0].robot.body(link)?;
        self.bodies.get(handle).map(|b| b.mass()).ok_or_else(|| ArticulatedError::UnknownBody(link.to_owned()))
    }

    /// Sets the friction of the first robot's `link`'s colliders.
    pub fn set_friction(&mut self, link: &str, friction: f64) -> Result<(), ArticulatedError> {
        self.moles[0].robot.set_friction(link, friction, &self.bodies, &mut self.colliders)
    }
}
