//! The rviz arrows of the flow the physics samples (`/tank/flow_field` itself is
//! `flotilla_common::ros::flow_field_msg`).

use flotilla_common::flow_field::FlowGrid;
use flotilla_common::ros as fros;
use r2r::geometry_msgs::msg::Point;
use r2r::visualization_msgs::msg::Marker;

/// Arrows drawn per side of the grid (every k-th cell), so rviz stays readable.
const ARROWS_PER_SIDE: usize = 17;
/// Arrow length per m/s of mean flow, m.
const ARROW_SCALE: f64 = 0.25;

/// Mean-flow arrows on the water surface at height `z`, one ARROW marker each.
pub fn flow_arrows(grid: &FlowGrid, t: f64, frame: &str, z: f64) -> Vec<Marker> {
    let step = (grid.nx().max(grid.ny()) / ARROWS_PER_SIDE).max(1);
    let mut out = Vec::new();
    for iy in (step / 2..grid.ny()).step_by(step) {
        for ix in (step / 2..grid.nx()).step_by(step) {
            let Some(cell) = grid.cell(ix, iy) else { continue };
            if cell.mean.norm() < 1e-6 {
                continue;
            }
            let c = grid.cell_centre(ix, iy);
            let tip = c + cell.mean * ARROW_SCALE;
            out.push(Marker {
                points: vec![Point { x: c.x, y: c.y, z }, Point { x: tip.x, y: tip.y, z }],
                scale: r2r::geometry_msgs::msg::Vector3 { x: 0.002, y: 0.005, z: 0.005 },
                color: fros::rgba(0.1, 0.8, 0.9, 0.8),
                ..fros::marker(t, frame, "flow", (iy * grid.nx() + ix) as i32, Marker::ARROW as i32)
            });
        }
    }
    out
}
