//! Whether a put-down can start where the shift ends, with the front head gripping upright
//! in C's vertical tunnel (the shift's planar model, `flotilla_firmware::molemod::shift`,
//! roll kinematics): first every configuration on a grid (both pitch joints within 0.02 rad
//! of their range ends, prismatic joints every 2 mm, rear grip -49 to +29 mm every 3 mm)
//! that holds A 3 mm over the free floor cell beside C, turned 180 degrees over C's edge,
//! with the front head within 4 mm of the tunnel's axis and 20-80 mm up, keeping to every
//! limit; then, for every `stride`-th of them, whether the same grips hold A 3 mm over C
//! (rolled as the shift leaves it) and, if so, RRT-connect between the two.
//! `cargo run --release -p flotilla_firmware --example molemod_put_down_vertical_grip --
//! [stride] [iterations] [seed]` (defaults 8 2000 1).

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::lift::{chain_from, connect, LiftJoints, LiftLimits, Pose, LIFT_OFF};
use flotilla_firmware::molemod::shift::{self, ShiftScene, Stage, TARGET};

fn main() {
    let args = args::numbers();
    let stride = args.first().copied().unwrap_or(8.0).max(1.0) as usize;
    let iterations = args.get(1).copied().unwrap_or(2000.0) as usize;
    let seed = args.get(2).copied().unwrap_or(1.0) as u64;
    // The mole's cubes lying in A's tunnel at the start may touch A.
    let limits = LiftLimits { torque: 0.52, touching: vec![3, 4], ..LiftLimits::actuators() };
    // A 1.5 mm from C's face, 3 mm over the floor.
    let (a_x, a_z) = (0.2015, 0.053);
    let base = Pose { x: 0.0, z: 0.0, angle: -0.5 * std::f64::consts::PI };
    let travel: Vec<f64> = (0..=15).map(|k| 0.002 * f64::from(k)).collect();
    let mut ends: Vec<(ShiftScene, LiftJoints)> = Vec::new();
    for grip in (-49..=29).step_by(3).map(|mm| 0.001 * f64::from(mm)) {
        for bend in [0.0, 0.01, 0.02] {
            for lean in [0.0, 0.01, 0.02] {
                for &p0 in &travel {
                    for &p1 in &travel {
                        for &p2 in &travel {
                            for &p3 in &travel {
                                let q = [p0, -limits.pitch + bend, p1, p2, limits.pitch - lean, p3];
                                // A relative to the front head; the head placed so that A is over the cell.
                                let rel = chain_from(base, grip, &q).block;
                                let front = Pose { x: a_x - rel.x, z: a_z - rel.z, ..base };
                                if (front.x - 0.1).abs() > 0.004 || !(0.02..=0.08).contains(&front.z) {
                                    continue;
                                }
                                let mut scene = ShiftScene::new(0.0, 0.0, grip);
                                scene.front = front;
                                if shift::check(&scene, &limits, Stage::Roll, &q).is_ok() {
                                    ends.push((scene, q));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    println!("{} configurations hold A over the free cell", ends.len());
    let over_c = Pose { z: TARGET.z + LIFT_OFF, ..TARGET };
    let (mut tried, mut started, mut found) = (0, 0, 0);
    for (scene, end) in ends.iter().step_by(stride) {
        tried += 1;
        let c = shift::chain(scene, Stage::Roll, end);
        let grid = (0..=10).flat_map(|i| (0..=10).flat_map(move |j| (0..=10).map(move |k| (i, j, k))));
        let start = grid
            .filter_map(|(i, j, k)| shift::reach_block(scene, &over_c, (0.003 * f64::from(i), 0.003 * f64::from(j)), f64::from(k) / 10.0))
            .find(|q| shift::check(scene, &limits, Stage::Roll, q).is_ok());
        let Some(start) = start else { continue };
        started += 1;
        let path = connect(
            limits.pitch,
            |q| shift::check(scene, &limits, Stage::Roll, q).is_ok(),
            |a, b| shift::segment_ok(scene, &limits, Stage::Roll, a, b),
            &start,
            end,
            iterations,
            seed,
        );
        found += usize::from(path.is_some());
        println!(
            "front head ({:.3}, {:.3}) m, rear grip {:+.3} m; at the end the body at ({:.3}, {:.3}) m, the rear joint at ({:.3}, {:.3}) m: {}",
            scene.front.x,
            scene.front.z,
            scene.rear_grip,
            c.body.x,
            c.body.z,
            c.joint_rear.0,
            c.joint_rear.1,
            path.map_or("no path".to_string(), |p| format!("a path of {} phases", p.len() - 1))
        );
    }
    println!("{tried} tried, {started} also hold A over C, {found} connected in {iterations} iterations");
}
