//! The TF frames of a model: what robot_state_publisher would publish from its URDF. Each
//! joint places its child link in its parent link; a fixed joint gives a static transform
//! (`/tf_static`), a movable one (revolute, prismatic) a transform a joint state would move
//! (`/tf`). [`FrameTree`] gives them with every movable joint at position zero, where the
//! child link's frame is the joint's origin: `tank_physics` simulates every module as one
//! rigid body, so it has no joint state, and publishes these itself (no
//! robot_state_publisher is needed for rviz's RobotModel).
//!
//! Frame names on TF are `<prefix>/<link>` ([`prefixed_frame`]), the module's name as the
//! prefix: `lily_7/base_link`, `lily_7/latch_0`, ..., which is what rviz's RobotModel looks up
//! with `TF Prefix: lily_7`.

use super::description::{JointKind, Model};
use super::reader::{parse_urdf, ModelFileError};
use crate::catalogue::ModuleKind;
use nalgebra::Isometry3;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The transform one joint puts on TF.
#[derive(Clone, Debug, PartialEq)]
pub struct JointFrame {
    /// The joint it comes from.
    pub joint: String,
    /// Parent link: the TF parent frame below the module's prefix.
    pub parent: String,
    /// Child link: the TF child frame below the module's prefix.
    pub child: String,
    /// The child link's frame in the parent link's frame with the joint at position zero
    /// (translation in m).
    pub transform: Isometry3<f64>,
}

/// Every link frame of one model, as transforms between parent and child links.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTree {
    /// Model (robot) name.
    pub model: String,
    /// The root link (`base_link` for every Flotilla model): the frame the world's pose of
    /// the module is given for.
    pub root: String,
    /// The fixed joints' transforms, in the model's joint order (`/tf_static`).
    pub fixed: Vec<JointFrame>,
    /// The movable joints' transforms at position zero, in the model's joint order (`/tf`).
    pub moving: Vec<JointFrame>,
}

/// A model whose frames cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum FrameTreeError {
    /// The URDF text is malformed or not a tree (the message names file, line and element).
    #[error(transparent)]
    Urdf(#[from] ModelFileError),
    /// A joint that cannot be placed on TF.
    #[error("model {model}: joint `{joint}`: {message}")]
    Joint {
        /// Model name.
        model: String,
        /// The joint.
        joint: String,
        /// What is wrong with it.
        message: String,
    },
    /// The links do not hang from one root.
    #[error("model {model}: {message}")]
    Links {
        /// Model name.
        model: String,
        /// What is wrong.
        message: String,
    },
}

/// The TF name of `link` below `prefix`: `<prefix>/<link>`, or `link` alone for an empty
/// prefix (as rviz's RobotModel joins its `TF Prefix` and a link name).
pub fn prefixed_frame(prefix: &str, link: &str) -> String {
    if prefix.is_empty() {
        link.to_owned()
    } else {
        format!("{prefix}/{link}")
    }
}

impl FrameTree {
    /// The frames of a URDF document; `source` names it in errors.
    pub fn from_urdf(text: &str, source: &Path) -> Result<Self, FrameTreeError> {
        Self::from_model(&parse_urdf(text, source)?)
    }

    /// The frames of the URDF a module of `kind` publishes as its `robot_description`.
    pub fn of_kind(kind: ModuleKind) -> Result<Self, FrameTreeError> {
        let source = format!("robot_description of {}", kind.name());
        Self::from_urdf(&super::robot_description(kind), Path::new(&source))
    }

    /// The frames of `model` in its URDF form (a universal joint is two revolute joints
    /// around a cross link, as in the URDF text rviz reads). The root is `links[0]`; every
    /// other link must hang from it through exactly one joint.
    pub fn from_model(model: &Model) -> Result<Self, FrameTreeError> {
        let model = model.split_universal_joints();
        let links_error = |message: String| FrameTreeError::Links { model: model.name.clone(), message };
        let root = model.links.first().ok_or_else(|| links_error("no links".into()))?.name.clone();
        let names: HashSet<&str> = model.links.iter().map(|l| l.name.as_str()).collect();
        let mut parent_of: HashMap<&str, &str> = HashMap::new();
        let (mut fixed, mut moving) = (Vec::new(), Vec::new());
        for joint in &model.joints {
            let joint_error = |message: String| FrameTreeError::Joint { model: model.name.clone(), joint: joint.name.clone(), message };
            for (end, link) in [("parent", &joint.parent), ("child", &joint.child)] {
                if !names.contains(link.as_str()) {
                    return Err(joint_error(format!("{end} link `{link}` is not a link of the model")));
                }
            }
            if joint.child == root {
                return Err(joint_error(format!("its child `{root}` is the root link")));
            }
            if let Some(first) = parent_of.insert(&joint.child, &joint.parent) {
                return Err(joint_error(format!("link `{}` already hangs from `{first}`", joint.child)));
            }
            let transform = joint.origin.to_isometry();
            let finite = transform.translation.vector.iter().chain(transform.rotation.coords.iter()).all(|v| v.is_finite());
            if !finite {
                return Err(joint_error(format!(
                    "origin xyz {:?} rpy {:?} is not finite",
                    joint.origin.xyz.as_slice(),
                    joint.origin.rpy.as_slice()
                )));
            }
            let frame = JointFrame { joint: joint.name.clone(), parent: joint.parent.clone(), child: joint.child.clone(), transform };
            match joint.kind {
                JointKind::Fixed => fixed.push(frame),
                JointKind::Revolute { .. } | JointKind::Prismatic { .. } => moving.push(frame),
                // `split_universal_joints` left none.
                JointKind::Universal { .. } => return Err(joint_error("a universal joint was not split".into())),
            }
        }
        // One parent per link and none for the root: a link that does not reach the root
        // within as many steps as there are links is on a cycle or on another tree.
        for link in &model.links {
            let mut current = link.name.as_str();
            let mut steps = 0;
            while current != root {
                match parent_of.get(current) {
                    Some(&parent) if steps < model.links.len() => {
                        current = parent;
                        steps += 1;
                    }
                    Some(_) => return Err(links_error(format!("link `{}` is on a joint cycle", link.name))),
                    None => return Err(links_error(format!("link `{}` does not hang from the root link `{root}`", link.name))),
                }
            }
        }
        Ok(Self { model: model.name.clone(), root, fixed, moving })
    }

    /// Every link: the root, then each joint's child (fixed joints first).
    pub fn links(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.root.as_str()).chain(self.joints().map(|f| f.child.as_str()))
    }

    /// Every joint's transform: the fixed ones, then the movable ones.
    pub fn joints(&self) -> impl Iterator<Item = &JointFrame> {
        self.fixed.iter().chain(&self.moving)
    }

    /// The frame of `link` in the root link's frame (movable joints at zero), composed along
    /// the chain of joints; `None` for a link the model does not have.
    pub fn pose_in_root(&self, link: &str) -> Option<Isometry3<f64>> {
        let mut pose = Isometry3::identity();
        let mut current = link;
        // `from_model` checked that every chain reaches the root in fewer steps.
        for _ in 0..=self.fixed.len() + self.moving.len() {
            if current == self.root {
                return Some(pose);
            }
            let joint = self.joints().find(|f| f.child == current)?;
            pose = joint.transform * pose;
            current = &joint.parent;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{module_model, render_urdf};
    use nalgebra::{Translation3, UnitQuaternion, Vector3};

    /// A URDF of three links: `base_link -fixed-> arm -revolute-> hand`, and a fixed
    /// `sensor` on the hand; `extra` is inserted into the `<robot>` element.
    fn urdf(extra: &str) -> String {
        format!(
            r#"<?xml version="1.0"?>
<robot name="arm">
  <link name="base_link"/>
  <link name="arm"/>
  <link name="hand"/>
  <link name="sensor"/>
  <joint name="shoulder" type="fixed">
    <parent link="base_link"/>
    <child link="arm"/>
    <origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/>
  </joint>
  <joint name="wrist" type="revolute">
    <parent link="arm"/>
    <child link="hand"/>
    <origin xyz="0.2 0 0" rpy="0 0 0"/>
    <axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <joint name="sensor_mount" type="fixed">
    <parent link="hand"/>
    <child link="sensor"/>
    <origin xyz="0 0 0.05" rpy="0 0 0"/>
  </joint>
  {extra}
</robot>
"#
        )
    }

    /// Within 1e-9 (m, rad): the URDF text keeps 12 significant digits.
    fn close(a: &Isometry3<f64>, b: &Isometry3<f64>) -> bool {
        (a.translation.vector - b.translation.vector).norm() < 1e-9 && a.rotation.angle_to(&b.rotation) < 1e-9
    }

    #[test]
    fn fixed_and_moving_joints_are_told_apart() {
        let tree = FrameTree::from_urdf(&urdf(""), Path::new("arm.urdf")).unwrap();
        assert_eq!(tree.root, "base_link");
        let names = |frames: &[JointFrame]| frames.iter().map(|f| f.joint.clone()).collect::<Vec<_>>();
        assert_eq!(names(&tree.fixed), ["shoulder", "sensor_mount"]);
        assert_eq!(names(&tree.moving), ["wrist"]);
        assert_eq!(tree.links().collect::<Vec<_>>(), ["base_link", "arm", "sensor", "hand"]);
        let wrist = &tree.moving[0];
        assert_eq!((wrist.parent.as_str(), wrist.child.as_str()), ("arm", "hand"));
        assert!(close(&wrist.transform, &Isometry3::translation(0.2, 0.0, 0.0)));
    }

    #[test]
    fn transforms_compose_along_the_chain() {
        let tree = FrameTree::from_urdf(&urdf(""), Path::new("arm.urdf")).unwrap();
        // The shoulder turns the arm 90 degrees about z, so the wrist's 0.2 m along the
        // arm's x is 0.2 m along the base's y; the sensor is 5 cm above the hand.
        let sensor = tree.pose_in_root("sensor").unwrap();
        let expected = Isometry3::from_parts(
            Translation3::new(0.1, 0.2, 0.05),
            UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2),
        );
        assert!(close(&sensor, &expected), "{sensor:?}");
        assert!(close(&tree.pose_in_root("base_link").unwrap(), &Isometry3::identity()));
        assert_eq!(tree.pose_in_root("tail"), None);
    }

    #[test]
    fn rpy_is_roll_then_pitch_then_yaw_about_fixed_axes() {
        let text = urdf("")
            .replace(r#"xyz="0.1 0 0" rpy="0 0 1.5707963267948966""#, r#"xyz="0 0 0" rpy="1.5707963267948966 0 1.5707963267948966""#);
        let tree = FrameTree::from_urdf(&text, Path::new("arm.urdf")).unwrap();
        // Roll first maps y to z, then yaw maps x to y: the arm's y is the base's z, its x
        // the base's y.
        let r = tree.fixed[0].transform.rotation;
        assert!((r * Vector3::y() - Vector3::z()).norm() < 1e-12, "{:?}", r * Vector3::y());
        assert!((r * Vector3::x() - Vector3::y()).norm() < 1e-12, "{:?}", r * Vector3::x());
    }

    #[test]
    fn a_malformed_urdf_names_the_joint() {
        let text = urdf("").replace(r#"<child link="hand"/>"#, "");
        let err = FrameTree::from_urdf(&text, Path::new("arm.urdf")).unwrap_err().to_string();
        assert!(err.contains(r#"<joint name="wrist">"#) && err.contains("missing <child>") && err.contains("arm.urdf"), "{err}");
        let text = urdf("").replace(r#"<parent link="hand"/>"#, r#"<parent link="palm"/>"#);
        let err = FrameTree::from_urdf(&text, Path::new("arm.urdf")).unwrap_err().to_string();
        assert!(err.contains("sensor_mount") && err.contains("palm"), "{err}");
        let text = urdf("").replace(r#"xyz="0.2 0 0""#, r#"xyz="0.2 zero 0""#);
        let err = FrameTree::from_urdf(&text, Path::new("arm.urdf")).unwrap_err().to_string();
        assert!(err.contains("wrist") && err.contains("0.2 zero 0"), "{err}");
    }

    #[test]
    fn a_model_that_is_not_a_tree_names_the_joint_or_link() {
        let mut model = parse_urdf(&urdf(""), Path::new("arm.urdf")).unwrap();
        // A second parent for the hand.
        let mut twice = model.clone();
        let mut extra = twice.joints[0].clone();
        extra.name = "second_wrist".into();
        extra.child = "hand".into();
        twice.joints.push(extra);
        let err = FrameTree::from_model(&twice).unwrap_err().to_string();
        assert!(err.contains("second_wrist") && err.contains("`hand` already hangs from `arm`"), "{err}");
        // A joint onto the root.
        let mut onto_root = model.clone();
        onto_root.joints[1].child = "base_link".into();
        let err = FrameTree::from_model(&onto_root).unwrap_err().to_string();
        assert!(err.contains("wrist") && err.contains("root"), "{err}");
        // A link left hanging in the air.
        model.joints.retain(|j| j.name != "sensor_mount");
        let err = FrameTree::from_model(&model).unwrap_err().to_string();
        assert!(err.contains("`sensor` does not hang from the root link `base_link`"), "{err}");
    }

    #[test]
    fn every_module_kind_has_a_frame_per_urdf_link() {
        for kind in ModuleKind::ALL {
            let tree = FrameTree::of_kind(kind).unwrap_or_else(|e| panic!("{}: {e}", kind.name()));
            let urdf = module_model(kind).split_universal_joints();
            let mut from_tree: Vec<&str> = tree.links().collect();
            let mut from_urdf: Vec<&str> = urdf.links.iter().map(|l| l.name.as_str()).collect();
            from_tree.sort_unstable();
            from_urdf.sort_unstable();
            assert_eq!(from_tree, from_urdf, "{}", kind.name());
            assert_eq!(tree.root, "base_link", "{}", kind.name());
            // Each link's pose agrees with the model's own rest pose.
            for link in &from_urdf {
                let pose = tree.pose_in_root(link).unwrap();
                assert!(close(&pose, &urdf.rest_pose(link)), "{} {link}", kind.name());
            }
        }
        // The kinds with movable joints: the MoleMOD robot (4 prismatic, 2 universal = 4
        // revolute in URDF) and the Bluebot's fins.
        let moving = |kind| FrameTree::of_kind(kind).unwrap().moving.len();
        assert_eq!(moving(ModuleKind::MolemodRobot), 8);
        assert_eq!(moving(ModuleKind::Bluebot), 4);
        assert_eq!(moving(ModuleKind::Lily), 0);
        assert_eq!(FrameTree::of_kind(ModuleKind::Lily).unwrap().fixed.len(), 5);
        // The same text rviz gets: the URDF rendered from the model.
        let text = render_urdf(&module_model(ModuleKind::Bluebot));
        assert_eq!(FrameTree::from_urdf(&text, Path::new("bluebot.urdf")).unwrap(), FrameTree::of_kind(ModuleKind::Bluebot).unwrap());
    }

    #[test]
    fn prefixes_join_with_a_slash() {
        assert_eq!(prefixed_frame("lily_7", "latch_0"), "lily_7/latch_0");
        assert_eq!(prefixed_frame("", "base_link"), "base_link");
    }
}
