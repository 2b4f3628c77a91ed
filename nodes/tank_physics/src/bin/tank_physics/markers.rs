//! `/tank/markers`: the arena (walls, water surface) and every module, for rviz.

use flotilla_common::catalogue::Shape;
use flotilla_common::ros as fros;
use flotilla_common::ros::rgba as color;
use nalgebra::{Isometry3, Translation3, UnitQuaternion};
use r2r::visualization_msgs::msg::{Marker, MarkerArray};
use tank_physics::config::ArenaKind;
use tank_physics::World;

const WALLS_NS: &str = "arena/walls";
const WATER_NS: &str = "arena/water";
const MODULES_NS: &str = "modules";

fn marker(frame: &str, t: f64, ns: &str, id: i32, type_: i32, pose: &Isometry3<f64>) -> Marker {
    Marker { pose: fros::pose_msg(pose), ..fros::marker(t, frame, ns, id, type_) }
}

/// Every marker of the world at its current time. A DELETEALL first, so removed modules
/// disappear.
pub fn world_markers(world: &World, frame: &str) -> MarkerArray {
    let t = world.time();
    let mut markers = vec![Marker { header: fros::header(t, frame), action: Marker::DELETEALL as i32, ..Default::default() }];
    let arena = world.arena();
    for (i, wall) in arena.walls.iter().enumerate() {
        let mut m = marker(frame, t, WALLS_NS, i as i32, Marker::CUBE as i32, &wall.pose);
        m.scale = fros::vector_msg(&(2.0 * wall.half_extents));
        m.color = color(0.7, 0.7, 0.75, 0.6);
        markers.push(m);
    }
    if let Some(surface) = arena.surface_z {
        let (type_, sx, sy) = if arena.kind == ArenaKind::RoundTank {
            (Marker::CYLINDER as i32, arena.config.diameter, arena.config.diameter)
        } else {
            (Marker::CUBE as i32, arena.config.size_x, arena.config.size_y)
        };
        let thickness = 0.002;
        let pose = Isometry3::from_parts(Translation3::new(0.0, 0.0, surface - 0.5 * thickness), UnitQuaternion::identity());
        let mut m = marker(frame, t, WATER_NS, 0, type_, &pose);
        m.scale = r2r::geometry_msgs::msg::Vector3 { x: sx, y: sy, z: thickness };
        m.color = color(0.2, 0.45, 0.9, 0.25);
        markers.push(m);
    }
    for body in world.bodies() {
        let spec = body.kind.spec();
        let (type_, scale) = match spec.shape {
            Shape::Sphere { radius } => (Marker::SPHERE as i32, nalgebra::Vector3::repeat(2.0 * radius)),
            Shape::Box { half_extents } => (Marker::CUBE as i32, 2.0 * half_extents),
            Shape::Cylinder { radius, half_height } => {
                (Marker::CYLINDER as i32, nalgebra::Vector3::new(2.0 * radius, 2.0 * radius, 2.0 * half_height))
            }
        };
        let mut m = marker(frame, t, MODULES_NS, body.id as i32, type_, &body.pose);
        m.scale = fros::vector_msg(&scale);
        m.color = color(1.0, 0.55, 0.1, 1.0);
        markers.push(m);
        let mut label = marker(frame, t, "labels", body.id as i32, Marker::TEXT_VIEW_FACING as i32, &body.pose);
        label.pose.position.z += 0.03;
        label.scale.z = 0.015;
        label.color = color(1.0, 1.0, 1.0, 0.9);
        label.text = body.name.clone();
        markers.push(label);
    }
    MarkerArray { markers }
}
