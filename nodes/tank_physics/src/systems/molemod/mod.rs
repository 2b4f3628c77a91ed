//! MoleMOD in the simulation: articulated robots in rapier3d, built from the same model
//! description the URDF/SDF files are generated from (`flotilla_common::models`). The
//! simulated robot speaks the MoleMOD hardware contract: it reports its joint positions
//! ([`ArticulatedRobot::sensors`]) and takes joint velocities
//! ([`ArticulatedRobot::apply`]); the five-interval position controller that computes them
//! is firmware (`flotilla_firmware::molemod`).
//!
//! Each massive link becomes a dynamic body; each joint an impulse joint with a velocity
//! motor per free axis; universal joints are native two-axis joints (a model read from URDF
//! is joined back first). Impulse joints rather than rapier 0.31's reduced-coordinate
//! multibodies: there, contact friction on a link other than the root does not resist
//! twisting, so a gripping end cube spins instead of holding the robot (measured while
//! building this module). Massless frames (sensor mounts) are left out.
//!
//! Rapier's tolerances scale with `IntegrationParameters::length_unit`; for centimetre
//! robots set it to about 0.01 m, or bodies rest on the 2 mm speculative-contact margin.
//! [`world::MoleWorld`] is a mole on a floor with those settings.

pub mod blocks;
pub mod executor;
pub mod world;

use flotilla_common::models::{Geometry, JointKind, JointLimits, Model};
use flotilla_contract::molemod::{MolemodCommand, MolemodSensors};
use flotilla_contract::OutOfRange;
use nalgebra::{Isometry3, Matrix3, Point3, Rotation3, Translation3, UnitQuaternion, Vector3};
use rapier3d_f64::prelude::*;
use std::collections::{HashMap, VecDeque};
use tracing::debug;

/// How an articulated robot is put into rapier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArticulatedOptions {
    /// Friction coefficient of every collider but the heads' (combined with the other
    /// surface by taking the lower of the two, so the robot's own value rules on a rougher
    /// floor): the body slides; only the heads grip.
    pub friction: f64,
    /// Motor damping of the revolute joints: torque per unit of speed error pulling each
    /// joint to its commanded speed, N m s/rad; the joint's effort limit caps it (100
    /// reaches the universal joints' 0.52 N m at 5.2 mrad/s behind).
    pub motor_damping: f64,
    /// Motor damping of the prismatic joints, N s/m; the effort limit caps it. 75 000: a
    /// speed loop that gives the joint's 15 N when it falls 0.2 mm/s (1 % of its top speed)
    /// behind, as a geared actuator under speed control does. At the revolute joints' 100
    /// a stalled prismatic joint pushed at most 2 N, below a block's 2.45 N of friction.
    pub prismatic_motor_damping: f64,
    /// Collision groups of the robot's colliders. The default keeps a robot's links from
    /// touching each other (the real robot's soft body fills the gaps between cubes).
    pub collision_groups: InteractionGroups,
    /// Links whose friction the command's `head_grip` switches, in its order (front, rear);
    /// they start gripping.
    pub heads: &'static [&'static str],
    /// Friction coefficient of a gripping head.
    pub grip_friction: f64,
    /// Friction coefficient of a head that slides.
    pub slide_friction: f64,
    /// Radius of the rounded edges of box links, m (0 = sharp). The real mole's cubes sit
    /// in a soft body; a rounded edge slides over a tunnel rim where a sharp one catches.
    pub edge_radius: f64,
    /// A joint axis commanded to stand still is locked where it is (the real joints are
    /// geared and do not back-drive), instead of only being driven to zero speed by its
    /// motor, which yields under load in the impulse-joint chain.
    pub hold_still_joints: bool,
}

impl Default for ArticulatedOptions {
    fn default() -> Self {
        Self {
            friction: 0.02,
            motor_damping: 100.0,
            prismatic_motor_damping: 75_000.0,
            collision_groups: InteractionGroups::new(Group::GROUP_2, Group::ALL.difference(Group::GROUP_2), InteractionTestMode::And),
            heads: &["head_front", "head_rear"],
            grip_friction: 1.0,
            slide_friction: 0.02,
            edge_radius: 0.0,
            hold_still_joints: true,
        }
    }
}

/// The heads of a model without `head_rear`, whose rear cube is its root: the MoleMOD
/// paper's basic and rotating models (`flotilla_common::models::molemod_paper_models`).
const ROOT_REAR_HEADS: &[&str] = &["head_front", "base_link"];

impl ArticulatedOptions {
    /// The links of `model` whose grip the command switches, front first: `head_front` and
    /// `head_rear` (the final model), or `head_front` and the root `base_link` in a model
    /// without `head_rear` (the basic and rotating models).
    pub fn heads_of(model: &Model) -> &'static [&'static str] {
        if model.link("head_rear").is_some() {
            Self::default().heads
        } else {
            ROOT_REAR_HEADS
        }
    }

    /// Motor damping of a joint driven about or along `axis`.
    fn damping(&self, axis: JointAxis) -> f64 {
        match axis {
            JointAxis::LinX | JointAxis::LinY | JointAxis::LinZ => self.prismatic_motor_damping,
            _ => self.motor_damping,
        }
    }
}

/// A model that cannot be built, or a name the robot does not have.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArticulatedError {
    /// A joint names a link the model does not have.
    #[error("model {model}: joint `{joint}` names unknown link `{link}`")]
    UnknownLink {
        /// Model name.
        model: String,
        /// Joint name.
        joint: String,
        /// The missing link.
        link: String,
    },
    /// A link is not below the root, or has two parents.
    #[error("model {model}: link `{link}` is not reached from the root exactly once")]
    NotATree {
        /// Model name.
        model: String,
        /// The link.
        link: String,
    },
    /// A movable joint hangs below a massless frame.
    #[error("model {model}: joint `{joint}` hangs from the massless frame `{parent}`")]
    JointOnFrame {
        /// Model name.
        model: String,
        /// Joint name.
        joint: String,
        /// The frame.
        parent: String,
    },
    /// A head the options name is not a link of the model.
    #[error("model {model}: no head link `{head}` (see ArticulatedOptions::heads_of)")]
    MissingHead {
        /// Model name.
        model: String,
        /// The missing head.
        head: String,
    },
    /// The robot has no joint of this name.
    #[error("no movable joint `{0}`")]
    UnknownJoint(String),
    /// The robot has no body of this name.
    #[error("no body `{0}`")]
    UnknownBody(String),
    /// A command value out of range.
    #[error(transparent)]
    Command(#[from] OutOfRange),
    /// A command with another number of head grips than the robot has heads.
    #[error("the command sets {given} head grips, the robot has {expected} heads")]
    WrongGripCount {
        /// Heads of the robot.
        expected: usize,
        /// Grips given.
        given: usize,
    },
    /// A command with another number of joint axes than the robot has.
    #[error("the command drives {given} joint axes, the robot has {expected}")]
    WrongAxisCount {
        /// Axes of the robot.
        expected: usize,
        /// Velocities given.
        given: usize,
    },
    /// A target outside the joint's limits.
    #[error("target {target} for joint `{joint}` is outside its limits [{lower}, {upper}]")]
    TargetOutOfRange {
        /// Joint name.
        joint: String,
        /// The target asked for, m or rad.
        target: f64,
        /// Lowest position, m or rad.
        lower: f64,
        /// Highest position, m or rad.
        upper: f64,
    },
}

/// How a driven coordinate is read from the two joint frames.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Coordinate {
    /// Shift along the frame's x axis, m.
    Shift,
    /// Turn about the frame's x axis, rad.
    Turn,
    /// First angle of a universal joint (about the frame's x axis), rad.
    UniversalFirst,
    /// Second angle of a universal joint (about the turned frame's y axis), rad.
    UniversalSecond,
}

/// One driven coordinate of a built robot (a universal joint has two).
#[derive(Clone, Debug)]
struct DrivenCoordinate {
    /// The URDF joint name (`prismatic_0`, `universal_0_axis1`, ...).
    name: String,
    coordinate: Coordinate,
    axis: JointAxis,
    limits: JointLimits,
    parent: RigidBodyHandle,
    child: RigidBodyHandle,
    /// Joint frame in the parent body: x along the (first) axis, y along the second.
    frame_in_parent: Isometry3<f64>,
    /// Joint frame in the child body at position zero.
    frame_in_child: Isometry3<f64>,
    handle: ImpulseJointHandle,
}

/// One driven rapier joint and which of its coordinates are held still.
#[derive(Clone, Debug)]
struct DrivenJoint {
    handle: ImpulseJointHandle,
    /// Axes locked while every coordinate moves.
    free_mask: JointAxesMask,
    frame_in_parent: Isometry3<f64>,
    frame_in_child: Isometry3<f64>,
    /// Indices of its coordinates in `ArticulatedRobot::coordinates` (one, or two for a
    /// universal joint: first then second angle).
    coordinates: Vec<usize>,
    /// Per coordinate: locked where it stood when commanded to stand still.
    held: Vec<bool>,
}

/// A robot built into rapier sets from a model.
#[derive(Clone, Debug)]
pub struct ArticulatedRobot {
    bodies: Vec<(String, RigidBodyHandle)>,
    coordinates: Vec<DrivenCoordinate>,
    joints: Vec<DrivenJoint>,
    options: ArticulatedOptions,
}

/// A rotation taking x onto `axis` and, when given, y onto `axis2` (perpendicular unit
/// vectors), so a joint's free axes are its frame's x (and y).
fn joint_axes(axis: &Vector3<f64>, axis2: Option<&Vector3<f64>>) -> UnitQuaternion<f64> {
    match axis2 {
        Some(y) => {
            UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(Matrix3::from_columns(&[*axis, *y, axis.cross(y)])))
        }
        None => UnitQuaternion::rotation_between(&Vector3::x(), axis)
            // Only x -> -x has no unique shortest rotation: turn half a circle about z.
            .unwrap_or_else(|| UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::PI)),
    }
}

fn shape(geometry: &Geometry, edge_radius: f64) -> (SharedShape, Isometry3<f64>) {
    match *geometry {
        Geometry::Box { size } if edge_radius > 0.0 => {
            let r = edge_radius.min(0.5 * size.min());
            (SharedShape::round_cuboid(0.5 * size.x - r, 0.5 * size.y - r, 0.5 * size.z - r, r), Isometry3::identity())
        }
        Geometry::Box { size } => (SharedShape::cuboid(0.5 * size.x, 0.5 * size.y, 0.5 * size.z), Isometry3::identity()),
        // Rapier's cylinder axis is y; the models' is z.
        Geometry::Cylinder { radius, length } => {
            (SharedShape::cylinder(0.5 * length, radius), Isometry3::rotation(Vector3::x() * std::f64::consts::FRAC_PI_2))
        }
        Geometry::Sphere { radius } => (SharedShape::ball(radius), Isometry3::identity()),
    }
}

impl ArticulatedRobot {
    /// Builds `model` (root at `pose` in the world, every joint at zero) into the sets. A
    /// model in URDF form (universal joints split around `_cross` links) is joined first.
    pub fn build(
        model: &Model,
        pose: Isometry3<f64>,
        options: ArticulatedOptions,
        bodies: &mut RigidBodySet,
        colliders: &mut ColliderSet,
        impulse_joints: &mut ImpulseJointSet,
    ) -> Result<Self, ArticulatedError> {
        let model = model.join_universal_joints();
        let name = model.name.clone();
        for joint in &model.joints {
            for link in [&joint.parent, &joint.child] {
                if model.link(link).is_none() {
                    return Err(ArticulatedError::UnknownLink { model: name, joint: joint.name.clone(), link: link.clone() });
                }
            }
        }
        if let Some(head) = options.heads.iter().find(|h| model.link(h).is_none()) {
            return Err(ArticulatedError::MissingHead { model: name, head: (*head).to_owned() });
        }
        // Links in breadth-first order from the root, so parents are built first.
        let mut order = Vec::new();
        let mut queue = VecDeque::from([model.links[0].name.clone()]);
        while let Some(link) = queue.pop_front() {
            if order.contains(&link) {
                return Err(ArticulatedError::NotATree { model: name, link });
            }
            queue.extend(model.joints.iter().filter(|j| j.parent == link).map(|j| j.child.clone()));
            order.push(link);
        }
        if let Some(missing) = model.links.iter().find(|l| !order.contains(&l.name)) {
            return Err(ArticulatedError::NotATree { model: name, link: missing.name.clone() });
        }
        let mut handles: HashMap<String, RigidBodyHandle> = HashMap::new();
        let mut robot = Self { bodies: Vec::new(), coordinates: Vec::new(), joints: Vec::new(), options };
        for link_name in &order {
            let Some(link) = model.link(link_name) else { continue };
            let parent_joint = model.parent_joint(link_name);
            let fixed = parent_joint.is_some_and(|j| matches!(j.kind, JointKind::Fixed));
            if fixed && link.inertial.is_none() && link.collisions.is_empty() {
                // A massless frame: nothing to simulate; nothing may hang from it.
                if let Some(j) = model.joints.iter().find(|j| j.parent == *link_name) {
                    return Err(ArticulatedError::JointOnFrame { model: name, joint: j.name.clone(), parent: link_name.clone() });
                }
                continue;
            }
            let mut builder = RigidBodyBuilder::dynamic().pose(pose * model.rest_pose(link_name)).can_sleep(false);
            if let Some(i) = link.inertial {
                builder = builder.additional_mass_properties(MassProperties::with_inertia_matrix(
                    Point3::from(i.centre_of_mass),
                    i.mass,
                    i.inertia,
                ));
            }
            let handle = bodies.insert(builder.build());
            for c in &link.collisions {
                let (shape, align) = shape(&c.geometry, options.edge_radius);
                let collider = ColliderBuilder::new(shape)
                    .position(c.origin.to_isometry() * align)
                    .density(0.0)
                    .friction(if options.heads.contains(&link_name.as_str()) { options.grip_friction } else { options.friction })
                    .friction_combine_rule(CoefficientCombineRule::Min)
                    .collision_groups(options.collision_groups)
                    .build();
                colliders.insert_with_parent(collider, handle, bodies);
            }
            if let Some(joint) = parent_joint {
                let parent = handles.get(&joint.parent).copied().ok_or_else(|| ArticulatedError::JointOnFrame {
                    model: name.clone(),
                    joint: joint.name.clone(),
                    parent: joint.parent.clone(),
                })?;
                robot.attach(joint, parent, handle, impulse_joints);
            }
            handles.insert(link_name.clone(), handle);
            robot.bodies.push((link_name.clone(), handle));
        }
        debug!(model = %name, bodies = robot.bodies.len(), coordinates = robot.coordinates.len(), "articulated robot built");
        Ok(robot)
    }

    /// Adds the impulse joint for `joint` and records its driven coordinates.
    fn attach(
        &mut self,
        joint: &flotilla_common::models::Joint,
        parent: RigidBodyHandle,
        child: RigidBodyHandle,
        impulse_joints: &mut ImpulseJointSet,
    ) {
        let (mask, rotation, driven, limits) = match joint.kind {
            JointKind::Fixed => (JointAxesMask::LOCKED_FIXED_AXES, UnitQuaternion::identity(), vec![], None),
            JointKind::Prismatic { axis, limits } => (
                JointAxesMask::LOCKED_PRISMATIC_AXES,
                joint_axes(&axis, None),
                vec![(joint.name.clone(), Coordinate::Shift, JointAxis::LinX)],
                Some(limits),
            ),
            JointKind::Revolute { axis, limits } => (
                JointAxesMask::LOCKED_REVOLUTE_AXES,
                joint_axes(&axis, None),
                vec![(joint.name.clone(), Coordinate::Turn, JointAxis::AngX)],
                Some(limits),
            ),
            JointKind::Universal { axis, axis2, limits } => (
                JointAxesMask::LIN_AXES | JointAxesMask::ANG_Z,
                joint_axes(&axis, Some(&axis2)),
                vec![
                    (format!("{}_axis1", joint.name), Coordinate::UniversalFirst, JointAxis::AngX),
                    (format!("{}_axis2", joint.name), Coordinate::UniversalSecond, JointAxis::AngY),
                ],
                Some(limits),
            ),
        };
        let align = Isometry3::from_parts(Translation3::identity(), rotation);
        let frame_in_parent = joint.origin.to_isometry() * align;
        let mut generic = GenericJointBuilder::new(mask).local_frame1(frame_in_parent).local_frame2(align);
        if let Some(l) = limits {
            for (_, _, axis) in &driven {
                generic = generic
                    .limits(*axis, [l.lower, l.upper])
                    .motor_model(*axis, MotorModel::ForceBased)
                    .motor_velocity(*axis, 0.0, self.options.damping(*axis))
                    .motor_max_force(*axis, l.effort);
            }
        }
        let handle = impulse_joints.insert(parent, child, generic.build(), true);
        if let Some(limits) = limits {
            let first = self.coordinates.len();
            self.joints.push(DrivenJoint {
                handle,
                free_mask: mask,
                frame_in_parent,
                frame_in_child: align,
                coordinates: (first..first + driven.len()).collect(),
                held: vec![false; driven.len()],
            });
            for (name, coordinate, axis) in driven {
                self.coordinates.push(DrivenCoordinate {
                    name,
                    coordinate,
                    axis,
                    limits,
                    parent,
                    child,
                    frame_in_parent,
                    frame_in_child: align,
                    handle,
                });
            }
        }
    }

    /// Names of the driven joint coordinates, as the URDF names its joints (a universal
    /// joint `u` drives `u_axis1` and `u_axis2`).
    pub fn joint_names(&self) -> impl Iterator<Item = &str> {
        self.coordinates.iter().map(|j| j.name.as_str())
    }

    /// Every link's name and rigid body.
    pub fn bodies_iter(&self) -> impl Iterator<Item = (&str, RigidBodyHandle)> {
        self.bodies.iter().map(|(n, h)| (n.as_str(), *h))
    }

    /// The links whose grip the command switches, front first.
    pub fn heads(&self) -> &'static [&'static str] {
        self.options.heads
    }

    /// The rigid body of a link.
    pub fn body(&self, link: &str) -> Result<RigidBodyHandle, ArticulatedError> {
        self.bodies.iter().find(|(n, _)| n == link).map(|(_, h)| *h).ok_or_else(|| ArticulatedError::UnknownBody(link.to_owned()))
    }

    /// World pose of a link's frame.
    pub fn link_pose(&self, link: &str, bodies: &RigidBodySet) -> Result<Isometry3<f64>, ArticulatedError> {
        let handle = self.body(link)?;
        bodies.get(handle).map(|b| *b.position()).ok_or_else(|| ArticulatedError::UnknownBody(link.to_owned()))
    }

    fn coordinate(&self, name: &str) -> Result<&DrivenCoordinate, ArticulatedError> {
        self.coordinates.iter().find(|j| j.name == name).ok_or_else(|| ArticulatedError::UnknownJoint(name.to_owned()))
    }

    fn position_of(c: &DrivenCoordinate, bodies: &RigidBodySet) -> f64 {
        let (Some(parent), Some(child)) = (bodies.get(c.parent), bodies.get(c.child)) else {
            return f64::NAN;
        };
        // The child's joint frame seen from the parent's.
        let relative = (parent.position() * c.frame_in_parent).inverse() * (child.position() * c.frame_in_child);
        // A universal joint turns by Rx(a1) Ry(a2): row 0 = (c2, 0, s2), column 1 = (0, c1, s1).
        let r = relative.rotation.to_rotation_matrix();
        let r = r.matrix();
        match c.coordinate {
            Coordinate::Shift => relative.translation.x,
            Coordinate::Turn => relative.rotation.scaled_axis().x,
            Coordinate::UniversalFirst => r[(2, 1)].atan2(r[(1, 1)]),
            Coordinate::UniversalSecond => r[(0, 2)].atan2(r[(0, 0)]),
        }
    }

    /// Current position of a joint coordinate, measured from the two bodies' poses, m or rad.
    pub fn joint_position(&self, name: &str, bodies: &RigidBodySet) -> Result<f64, ArticulatedError> {
        Ok(Self::position_of(self.coordinate(name)?, bodies))
    }

    /// Whether `target` lies within the limits of joint coordinate `name`.
    pub fn check_target(&self, name: &str, target: f64) -> Result<(), ArticulatedError> {
        let JointLimits { lower, upper, .. } = self.coordinate(name)?.limits;
        if (lower..=upper).contains(&target) {
            Ok(())
        } else {
            Err(ArticulatedError::TargetOutOfRange { joint: name.to_owned(), target, lower, upper })
        }
    }

    /// Whether joint coordinate `name` is prismatic (m) rather than revolute (rad).
    pub fn is_prismatic(&self, name: &str) -> Result<bool, ArticulatedError> {
        Ok(matches!(self.coordinate(name)?.coordinate, Coordinate::Shift))
    }

    /// The encoder reading at `time` (s): every driven coordinate, in [`Self::joint_names`] order.
    pub fn sensors(&self, time: f64, bodies: &RigidBodySet) -> MolemodSensors {
        MolemodSensors { stamp: time, joint_positions: self.coordinates.iter().map(|c| Self::position_of(c, bodies)).collect() }
    }

    /// Takes the firmware's command: each motor runs at its commanded velocity (capped at
    /// the joint's speed limit) and each head grips or slides (its friction switches between
    /// [`ArticulatedOptions::grip_friction`] and `slide_friction`); an empty list keeps the
    /// last. With [`ArticulatedOptions::hold_still_joints`], an axis commanded to zero
    /// speed is locked where it stands until it is commanded to move. Call before each step.
    pub fn apply(
        &mut self,
        robot: &str,
        command: &MolemodCommand,
        bodies: &RigidBodySet,
        colliders: &mut ColliderSet,
        impulse_joints: &mut ImpulseJointSet,
    ) -> Result<(), ArticulatedError> {
        command.validate(robot).map_err(ArticulatedError::Command)?;
        if !command.joint_velocities.is_empty() && command.joint_velocities.len() != self.coordinates.len() {
            return Err(ArticulatedError::WrongAxisCount { expected: self.coordinates.len(), given: command.joint_velocities.len() });
        }
        if !command.head_grip.is_empty() && command.head_grip.len() != self.options.heads.len() {
            return Err(ArticulatedError::WrongGripCount { expected: self.options.heads.len(), given: command.head_grip.len() });
        }
        for (c, &velocity) in self.coordinates.iter().zip(&command.joint_velocities) {
            let speed = velocity.clamp(-c.limits.velocity, c.limits.velocity);
            if let Some(joint) = impulse_joints.get_mut(c.handle, true) {
                joint.data.set_motor_velocity(c.axis, speed, self.options.damping(c.axis));
            }
        }
        if self.options.hold_still_joints && !command.joint_velocities.is_empty() {
            for j in 0..self.joints.len() {
                let held: Vec<bool> = self.joints[j].coordinates.iter().map(|&c| command.joint_velocities[c] == 0.0).collect();
                if held != self.joints[j].held {
                    self.hold(j, held, bodies, impulse_joints);
                }
            }
        }
        for (head, &grip) in self.options.heads.iter().zip(&command.head_grip) {
            let friction = if grip { self.options.grip_friction } else { self.options.slide_friction };
            self.set_friction(head, friction, bodies, colliders)?;
        }
        Ok(())
    }

    /// Locks joint `j`'s coordinates flagged in `held` at their present positions and
    /// frees the others: a locked axis is a rigid constraint, as a geared joint at rest.
    fn hold(&mut self, j: usize, held: Vec<bool>, bodies: &RigidBodySet, impulse_joints: &mut ImpulseJointSet) {
        let joint = &self.joints[j];
        let here: Vec<f64> = joint.coordinates.iter().map(|&c| Self::position_of(&self.coordinates[c], bodies)).collect();
        let (mask, frame1, frame2) = match held.as_slice() {
            // Every coordinate still: the joint is rigid in the pose it has now.
            [true] | [true, true] => {
                let c = &self.coordinates[joint.coordinates[0]];
                let (Some(parent), Some(child)) = (bodies.get(c.parent), bodies.get(c.child)) else { return };
                let frame2 = child.position().inverse() * parent.position() * joint.frame_in_parent;
                (JointAxesMask::LOCKED_FIXED_AXES, joint.frame_in_parent, frame2)
            }
            // A universal joint turning about its first axis (x) with the second held at
            // a2: R = Rx(a1) Ry(a2); the child frame turned by Ry(-a2) leaves a revolute
            // joint about x whose angle is still a1.
            [false, true] => (
                JointAxesMask::LOCKED_REVOLUTE_AXES,
                joint.frame_in_parent,
                joint.frame_in_child * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -here[1]),
            ),
            // Turning about the second axis with the first held at a1: the parent frame
            // turned by Rx(a1) leaves a revolute joint about y whose angle is still a2.
            [true, false] => (
                JointAxesMask::LIN_AXES | JointAxesMask::ANG_X | JointAxesMask::ANG_Z,
                joint.frame_in_parent * UnitQuaternion::from_axis_angle(&Vector3::x_axis(), here[0]),
                joint.frame_in_child,
            ),
            _ => (joint.free_mask, joint.frame_in_parent, joint.frame_in_child),
        };
        if let Some(rapier_joint) = impulse_joints.get_mut(joint.handle, true) {
            rapier_joint.data.locked_axes = mask;
            rapier_joint.data.set_local_frame1(frame1);
            rapier_joint.data.set_local_frame2(frame2);
        }
        self.joints[j].held = held;
    }

    /// The limits of joint coordinate `name`.
    pub fn limits(&self, name: &str) -> Result<JointLimits, ArticulatedError> {
        Ok(self.coordinate(name)?.limits)
    }

    /// Sets the friction coefficient of a link's colliders (the MoleMOD gait switches it).
    pub fn set_friction(
        &self,
        link: &str,
        friction: f64,
        bodies: &RigidBodySet,
        colliders: &mut ColliderSet,
    ) -> Result<(), ArticulatedError> {
        let handle = self.body(link)?;
        let body = bodies.get(handle).ok_or_else(|| ArticulatedError::UnknownBody(link.to_owned()))?;
        for &c in body.colliders() {
            if let Some(collider) = colliders.get_mut(c) {
                collider.set_friction(friction);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joint_axes_map_x_and_y() {
        for axis in [Vector3::x(), -Vector3::x(), Vector3::y(), Vector3::z(), -Vector3::z()] {
            assert!((joint_axes(&axis, None) * Vector3::x() - axis).norm() < 1e-12, "{axis}");
        }
        // Universal z then y: x -> z, y -> y.
        let q = joint_axes(&Vector3::z(), Some(&Vector3::y()));
        assert!((q * Vector3::x() - Vector3::z()).norm() < 1e-12);
        assert!((q * Vector3::y() - Vector3::y()).norm() < 1e-12);
    }
}
