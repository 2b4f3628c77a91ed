//! rviz view of a lattice: one cube per block, robots as spheres inside their blocks.

use flotilla_common::ros as fros;
use nalgebra::{Isometry3, Vector3};
use r2r::visualization_msgs::msg::{Marker, MarkerArray};
use reconfig_planner::{CellCode, Lattice};

/// Markers of `lattice` (cells of side `cell` m, lattice origin at the frame origin).
pub fn lattice_markers(lattice: &Lattice, frame: &str, cell: f64, t: f64) -> MarkerArray {
    let mut markers = vec![Marker { header: fros::header(t, frame), action: Marker::DELETEALL as i32, ..Default::default() }];
    for (index, &code) in lattice.codes().iter().enumerate() {
        if code == CellCode::Empty as u8 {
            continue;
        }
        let c = lattice.cell_at(index);
        let centre = Vector3::new(c.x as f64 + 0.5, c.y as f64 + 0.5, c.z as f64 + 0.5) * cell;
        let pose = fros::pose_msg(&Isometry3::translation(centre.x, centre.y, centre.z));
        markers.push(Marker {
            pose: pose.clone(),
            scale: fros::vector_msg(&Vector3::repeat(0.92 * cell)),
            color: fros::rgba(0.8, 0.75, 0.6, 0.7),
            ..fros::marker(t, frame, "molemod/blocks", index as i32, Marker::CUBE as i32)
        });
        if code == CellCode::BlockWithRobot as u8 {
            markers.push(Marker {
                pose,
                scale: fros::vector_msg(&Vector3::repeat(0.5 * cell)),
                color: fros::rgba(0.1, 0.4, 1.0, 1.0),
                ..fros::marker(t, frame, "molemod/robots", index as i32, Marker::SPHERE as i32)
            });
        }
    }
    MarkerArray { markers }
}
