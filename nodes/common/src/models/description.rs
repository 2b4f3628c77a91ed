//! A robot description independent of file format: links with inertia, visuals and
//! collisions, joints between them. URDF and SDF text are rendered from it, the URDF reader
//! parses back into it, and the physics builds articulated bodies from it.

use nalgebra::{Isometry3, Matrix3, Translation3, UnitQuaternion, Vector3};
use std::borrow::Cow;

/// A rigid transform written as URDF/SDF write it: translation then fixed-axis roll, pitch,
/// yaw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Translation, m.
    pub xyz: Vector3<f64>,
    /// Roll, pitch, yaw about the fixed x, y, z axes, rad.
    pub rpy: Vector3<f64>,
}

impl Default for Pose {
    fn default() -> Self {
        Self::identity()
    }
}

impl Pose {
    /// No translation, no rotation.
    pub fn identity() -> Self {
        Self { xyz: Vector3::zeros(), rpy: Vector3::zeros() }
    }

    /// A pure translation, m.
    pub fn translation(x: f64, y: f64, z: f64) -> Self {
        Self { xyz: Vector3::new(x, y, z), rpy: Vector3::zeros() }
    }

    /// Returns the pose with the given roll, pitch, yaw, rad.
    pub fn with_rpy(mut self, roll: f64, pitch: f64, yaw: f64) -> Self {
        self.rpy = Vector3::new(roll, pitch, yaw);
        self
    }

    /// As an isometry (child frame expressed in the parent frame).
    pub fn to_isometry(&self) -> Isometry3<f64> {
        Isometry3::from_parts(Translation3::from(self.xyz), UnitQuaternion::from_euler_angles(self.rpy.x, self.rpy.y, self.rpy.z))
    }
}

/// A primitive shape centred on its own frame origin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Geometry {
    /// A box.
    Box {
        /// Full edge lengths along x, y, z, m.
        size: Vector3<f64>,
    },
    /// A cylinder with its axis along z.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Full length along z, m.
        length: f64,
    },
    /// A sphere.
    Sphere {
        /// Radius, m.
        radius: f64,
    },
}

/// Mass properties of a link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertial {
    /// Mass, kg.
    pub mass: f64,
    /// Centre of mass in the link frame, m.
    pub centre_of_mass: Vector3<f64>,
    /// Inertia tensor about the centre of mass, in link axes, kg m^2.
    pub inertia: Matrix3<f64>,
}

impl Inertial {
    /// The six independent tensor entries by their URDF/SDF names, kg m^2.
    pub fn inertia_entries(&self) -> [(&'static str, f64); 6] {
        let m = &self.inertia;
        [("ixx", m[(0, 0)]), ("ixy", m[(0, 1)]), ("ixz", m[(0, 2)]), ("iyy", m[(1, 1)]), ("iyz", m[(1, 2)]), ("izz", m[(2, 2)])]
    }
}

/// An RGBA colour, each channel in 0..1.
#[derive(Clone, Debug, PartialEq)]
pub struct Colour {
    /// Material name (URDF materials are named).
    pub name: Cow<'static, str>,
    /// Red, green, blue, alpha, each 0..1.
    pub rgba: [f64; 4],
}

/// Something drawn for a link.
#[derive(Clone, Debug, PartialEq)]
pub struct Visual {
    /// Pose of the shape in the link frame.
    pub origin: Pose,
    /// The shape.
    pub geometry: Geometry,
    /// Its colour.
    pub colour: Colour,
}

/// A contact shape of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct Collision {
    /// Pose of the shape in the link frame.
    pub origin: Pose,
    /// The shape.
    pub geometry: Geometry,
}

/// One rigid body of a model, or (without inertial) a named frame such as a sensor mount.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Link name, unique within the model (the TF frame name below the module's prefix).
    pub name: String,
    /// Mass properties; `None` for a massless frame.
    pub inertial: Option<Inertial>,
    /// Shapes drawn.
    pub visuals: Vec<Visual>,
    /// Contact shapes.
    pub collisions: Vec<Collision>,
}

impl Link {
    /// A massless frame with no shapes.
    pub fn frame(name: impl Into<String>) -> Self {
        Self { name: name.into(), inertial: None, visuals: Vec::new(), collisions: Vec::new() }
    }

    /// A massless frame with one visual shape at its origin.
    pub fn marker(name: impl Into<String>, geometry: Geometry, colour: Colour) -> Self {
        let mut link = Self::frame(name);
        link.visuals.push(Visual { origin: Pose::identity(), geometry, colour });
        link
    }
}

/// Range, effort and speed limits of a movable joint. Units follow the joint: m, N and m/s
/// for prismatic joints; rad, N m and rad/s for revolute ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimits {
    /// Lowest position, m or rad.
    pub lower: f64,
    /// Highest position, m or rad.
    pub upper: f64,
    /// Largest force or torque the actuator applies, N or N m.
    pub effort: f64,
    /// Largest speed, m/s or rad/s.
    pub velocity: f64,
}

/// How a joint lets its child move relative to its parent. Axes are unit vectors in the
/// joint frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// No relative motion.
    Fixed,
    /// Rotation about `axis`.
    Revolute {
        /// Rotation axis (unit).
        axis: Vector3<f64>,
        /// Limits, rad.
        limits: JointLimits,
    },
    /// Translation along `axis`.
    Prismatic {
        /// Translation axis (unit).
        axis: Vector3<f64>,
        /// Limits, m.
        limits: JointLimits,
    },
    /// Rotation about `axis` then about `axis2` (two revolute joints through one point).
    /// URDF has no such joint: [`Model::split_universal_joints`] replaces it by two
    /// revolute joints around a massless cross link.
    Universal {
        /// First rotation axis (unit).
        axis: Vector3<f64>,
        /// Second rotation axis (unit), perpendicular to the first.
        axis2: Vector3<f64>,
        /// Limits of each of the two rotations, rad.
        limits: JointLimits,
    },
}

/// A joint between two links. At position zero the child link's frame is the joint frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// Joint name, unique within the model.
    pub name: String,
    /// Motion allowed.
    pub kind: JointKind,
    /// Parent link name.
    pub parent: String,
    /// Child link name.
    pub child: String,
    /// Joint frame in the parent link frame.
    pub origin: Pose,
}

impl Joint {
    /// A fixed joint placing `child` at `origin` in `parent`.
    pub fn fixed(parent: &str, child: &str, origin: Pose) -> Self {
        Self { name: format!("{child}_joint"), kind: JointKind::Fixed, parent: parent.to_owned(), child: child.to_owned(), origin }
    }
}

/// A whole model: a tree of links joined by joints, rooted at `links[0]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Model (robot) name; also the file stem of its URDF and SDF.
    pub name: String,
    /// Links; the first one is the root (`base_link`).
    pub links: Vec<Link>,
    /// Joints.
    pub joints: Vec<Joint>,
    /// Whether the model never moves (arenas).
    pub is_static: bool,
}

/// Suffix of the cross link between the two revolute joints of a split universal joint.
pub const UNIVERSAL_CROSS_SUFFIX: &str = "_cross";

/// Mass of the cross link of a split universal joint, kg (0.1 g). The cross is the joint's
/// own mechanism, not a model part, but libsdformat's URDF converter (what Gazebo loads a
/// URDF through) drops a link without `<inertial>` or with a mass it takes for zero (at or
/// below 1e-6 kg) together with every link below it. 0.1 g is 100 times that threshold and
/// 0.05 % of the 0.2 kg MoleMOD robot per joint, so it moves no result measurably; the
/// native model (SDF, the physics) has no cross link and so not this mass.
pub const UNIVERSAL_CROSS_MASS: f64 = 1e-4;

/// Each principal moment of the cross link about its centre, kg m^2: a solid sphere of
/// [`UNIVERSAL_CROSS_MASS`] and radius 5 mm (2/5 m r^2 = 1e-9), which fits inside the 16 mm
/// joint cubes either side of it. Written as the literal so that the file's text reads back
/// to exactly this value.
pub const UNIVERSAL_CROSS_MOMENT: f64 = 1e-9;

/// The mass properties [`Model::split_universal_joints`] gives each cross link.
pub fn universal_cross_inertial() -> Inertial {
    Inertial {
        mass: UNIVERSAL_CROSS_MASS,
        centre_of_mass: Vector3::zeros(),
        inertia: Matrix3::from_diagonal_element(UNIVERSAL_CROSS_MOMENT),
    }
}

/// Whether a link can be a split universal joint's cross: no shapes, and either no mass (as
/// URDF files written before the cross had mass, or by hand) or [`universal_cross_inertial`].
fn is_cross_link(link: &Link) -> bool {
    let tiny = |i: &Inertial| {
        let reference = universal_cross_inertial();
        (i.mass - reference.mass).abs() <= 1e-9 * reference.mass
            && i.centre_of_mass == reference.centre_of_mass
            && (i.inertia - reference.inertia).abs().max() <= 1e-9 * UNIVERSAL_CROSS_MOMENT
    };
    link.visuals.is_empty() && link.collisions.is_empty() && link.inertial.as_ref().is_none_or(tiny)
}

impl Model {
    /// The link called `name`.
    pub fn link(&self, name: &str) -> Option<&Link> {
        self.links.iter().find(|l| l.name == name)
    }

    /// The joint called `name`.
    pub fn joint(&self, name: &str) -> Option<&Joint> {
        self.joints.iter().find(|j| j.name == name)
    }

    /// The joint whose child is `link`, if any (none for the root).
    pub fn parent_joint(&self, link: &str) -> Option<&Joint> {
        self.joints.iter().find(|j| j.child == link)
    }

    /// Sum of all link masses, kg.
    pub fn total_mass(&self) -> f64 {
        self.links.iter().filter_map(|l| l.inertial.map(|i| i.mass)).sum()
    }

    /// Pose of one link's frame in the root frame with all joints at zero (identity for
    /// the root or an unknown name).
    pub fn rest_pose(&self, link: &str) -> Isometry3<f64> {
        let mut pose = Isometry3::identity();
        let mut current = link;
        // A tree has at most links.len() - 1 joints on any path; the bound stops a cycle.
        for _ in 0..self.links.len() {
            match self.parent_joint(current) {
                Some(joint) => {
                    pose = joint.origin.to_isometry() * pose;
                    current = &joint.parent;
                }
                None => break,
            }
        }
        pose
    }

    /// The same model with every universal joint replaced by two revolute joints around a
    /// cross link of [`universal_cross_inertial`] (0.1 g, see [`UNIVERSAL_CROSS_MASS`]):
    /// `<name>_axis1` (parent -> `<name>_cross`, about `axis`) and `<name>_axis2` (cross ->
    /// child, about `axis2`). This is the URDF form (URDF has no universal joint).
    pub fn split_universal_joints(&self) -> Model {
        let mut links = self.links.clone();
        let mut joints = Vec::with_capacity(self.joints.len());
        for joint in &self.joints {
            match joint.kind {
                JointKind::Universal { axis, axis2, limits } => {
                    let cross = format!("{}{UNIVERSAL_CROSS_SUFFIX}", joint.name);
                    let mut cross_link = Link::frame(cross.clone());
                    cross_link.inertial = Some(universal_cross_inertial());
                    links.push(cross_link);
                    joints.push(Joint {
                        name: format!("{}_axis1", joint.name),
                        kind: JointKind::Revolute { axis, limits },
                        parent: joint.parent.clone(),
                        child: cross.clone(),
                        origin: joint.origin,
                    });
                    joints.push(Joint {
                        name: format!("{}_axis2", joint.name),
                        kind: JointKind::Revolute { axis: axis2, limits },
                        parent: cross,
                        child: joint.child.clone(),
                        origin: Pose::identity(),
                    });
                }
                _ => joints.push(joint.clone()),
            }
        }
        Model { name: self.name.clone(), links, joints, is_static: self.is_static }
    }

    /// The inverse of [`Model::split_universal_joints`]: every shapeless `<name>_cross` link
    /// (massless, or of [`universal_cross_inertial`]) between revolute joints `<name>_axis1`
    /// and `<name>_axis2` (the second at the cross link's origin) becomes the universal joint
    /// `<name>` again, and the cross's 0.1 g goes with it. Used to bring a model read from
    /// URDF back to its native form.
    pub fn join_universal_joints(&self) -> Model {
        let mut model = self.clone();
        let crosses: Vec<String> = self
            .links
            .iter()
            .filter(|l| is_cross_link(l))
            .filter_map(|l| l.name.strip_suffix(UNIVERSAL_CROSS_SUFFIX).map(str::to_owned))
            .collect();
        for name in crosses {
            let cross = format!("{name}{UNIVERSAL_CROSS_SUFFIX}");
            let (first, second) = (format!("{name}_axis1"), format!("{name}_axis2"));
            let (Some(j1), Some(j2)) = (model.joint(&first).cloned(), model.joint(&second).cloned()) else {
                continue;
            };
            let (JointKind::Revolute { axis, limits }, JointKind::Revolute { axis: axis2, .. }) = (j1.kind, j2.kind) else {
                continue;
            };
            if j1.child != cross || j2.parent != cross || j2.origin != Pose::identity() {
                continue;
            }
            model.links.retain(|l| l.name != cross);
            model.joints.retain(|j| j.name != second);
            if let Some(joint) = model.joints.iter_mut().find(|j| j.name == first) {
                *joint = Joint {
                    name,
                    kind: JointKind::Universal { axis, axis2, limits },
                    parent: j1.parent.clone(),
                    child: j2.child.clone(),
                    origin: j1.origin,
                };
            }
        }
        model
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn robot_with_universal_joint() -> Model {
        let body = |name: &str| Link {
            name: name.to_owned(),
            inertial: Some(Inertial { mass: 1.0, centre_of_mass: Vector3::zeros(), inertia: Matrix3::identity() }),
            visuals: Vec::new(),
            collisions: Vec::new(),
        };
        let limits = JointLimits { lower: -1.0, upper: 1.0, effort: 1.0, velocity: 1.0 };
        Model {
            name: "two".into(),
            links: vec![body("base_link"), body("tip")],
            joints: vec![Joint {
                name: "u".into(),
                kind: JointKind::Universal { axis: Vector3::z(), axis2: Vector3::y(), limits },
                parent: "base_link".into(),
                child: "tip".into(),
                origin: Pose::translation(0.1, 0.0, 0.0),
            }],
            is_static: false,
        }
    }

    #[test]
    fn the_cross_moment_is_a_five_millimetre_sphere_of_the_cross_mass() {
        assert!((0.4 * UNIVERSAL_CROSS_MASS * 0.005 * 0.005 - UNIVERSAL_CROSS_MOMENT).abs() < 1e-24);
        // libsdformat takes a mass within 1e-6 kg of zero for none.
        const { assert!(UNIVERSAL_CROSS_MASS >= 100.0 * 1e-6) };
    }

    #[test]
    fn split_gives_the_cross_its_tiny_mass_and_join_removes_it() {
        let model = robot_with_universal_joint();
        let split = model.split_universal_joints();
        let cross = split.link("u_cross").expect("cross link");
        assert_eq!(cross.inertial, Some(universal_cross_inertial()));
        assert!((split.total_mass() - model.total_mass() - UNIVERSAL_CROSS_MASS).abs() < 1e-15);
        assert_eq!(split.join_universal_joints(), model);
    }

    #[test]
    fn a_massless_cross_joins_too_but_a_massive_one_does_not() {
        let model = robot_with_universal_joint();
        let mut split = model.split_universal_joints();
        let cross = split.links.iter_mut().find(|l| l.name == "u_cross").expect("cross link");
        cross.inertial = None;
        assert_eq!(split.join_universal_joints(), model);
        // A cross with a real mass is a body of its own: joining would lose it.
        let cross = split.links.iter_mut().find(|l| l.name == "u_cross").expect("cross link");
        cross.inertial = Some(Inertial { mass: 0.01, ..universal_cross_inertial() });
        let joined = split.join_universal_joints();
        assert!(joined.link("u_cross").is_some() && joined.joint("u").is_none());
    }
}
