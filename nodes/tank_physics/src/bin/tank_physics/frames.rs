//! The link frames of every module, for rviz's RobotModel: each kind's
//! [`FrameTree`], made from the URDF its modules publish as `robot_description`. The fixed
//! joints go on `/tf_static` (all modules in one latched message, sent again whenever
//! modules come or go); the movable joints (MoleMOD robot, Bluebot fins) go on `/tf` at
//! position zero beside `world -> <name>/base_link`, since the world simulates each module
//! as one rigid body and has no joint state. Frames are `<name>/<link>`.

use std::collections::BTreeMap;

use anyhow::Context as _;
use flotilla_common::catalogue::ModuleKind;
use flotilla_common::models::FrameTree;
use flotilla_common::ros as fros;
use r2r::geometry_msgs::msg::TransformStamped;
use tank_physics::BodyState;

/// Every module kind's link frames.
pub struct ModuleFrames {
    trees: BTreeMap<ModuleKind, FrameTree>,
}

impl ModuleFrames {
    /// The frames of every kind; an error names the kind whose URDF cannot give them.
    pub fn new() -> anyhow::Result<Self> {
        let trees = ModuleKind::ALL
            .iter()
            .map(|&kind| Ok((kind, FrameTree::of_kind(kind).with_context(|| format!("the link frames of a {} module", kind.name()))?)))
            .collect::<anyhow::Result<_>>()?;
        Ok(Self { trees })
    }

    /// `/tf_static`: the fixed joints of every module in `bodies` in one message (a latched
    /// topic keeps only a publisher's last message), stamped `seconds` of sim time.
    pub fn static_message(&self, bodies: &[BodyState], seconds: f64) -> r2r::tf2_msgs::msg::TFMessage {
        let transforms = bodies
            .iter()
            .filter_map(|b| Some((b, self.trees.get(&b.kind)?)))
            .flat_map(|(b, tree)| fros::joint_transforms(&tree.fixed, &b.name, seconds))
            .collect();
        r2r::tf2_msgs::msg::TFMessage { transforms }
    }

    /// The movable joints of every module in `bodies` at position zero, stamped `seconds`.
    pub fn moving<'a>(&'a self, bodies: &'a [BodyState], seconds: f64) -> impl Iterator<Item = TransformStamped> + 'a {
        bodies
            .iter()
            .filter_map(|b| Some((b, self.trees.get(&b.kind)?)))
            .flat_map(move |(b, tree)| fros::joint_transforms(&tree.moving, &b.name, seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Isometry3, Vector3};

    fn body(name: &str, kind: ModuleKind) -> BodyState {
        BodyState {
            id: 0,
            name: name.into(),
            kind,
            pose: Isometry3::identity(),
            linvel: Vector3::zeros(),
            angvel: Vector3::zeros(),
            faces: Vec::new(),
        }
    }

    #[test]
    fn fixed_joints_are_static_and_movable_ones_move_each_below_its_module() {
        let frames = ModuleFrames::new().unwrap();
        let bodies = [body("lily_0", ModuleKind::Lily), body("mole", ModuleKind::MolemodRobot), body("ball_0", ModuleKind::PingPongBall)];
        let fixed = frames.static_message(&bodies, 1.5);
        // The Lily's four latches and its light sensor; the mole's joints all move; a ball is one link.
        let children: Vec<&str> = fixed.transforms.iter().map(|t| t.child_frame_id.as_str()).collect();
        assert_eq!(children.len(), 5, "{children:?}");
        assert!(children.iter().all(|c| c.starts_with("lily_0/")), "{children:?}");
        assert!(children.contains(&"lily_0/latch_3"), "{children:?}");
        assert!(fixed.transforms.iter().all(|t| t.header.frame_id == "lily_0/base_link" && t.header.stamp.sec == 1));
        let moving: Vec<TransformStamped> = frames.moving(&bodies, 1.5).collect();
        assert_eq!(moving.len(), 8);
        assert!(moving.iter().all(|t| t.child_frame_id.starts_with("mole/") && t.header.frame_id.starts_with("mole/")));
        assert!(moving.iter().any(|t| t.header.frame_id == "mole/base_link" && t.child_frame_id == "mole/joint_cube_1"));
    }
}
