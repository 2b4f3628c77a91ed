//! Where the mole can hold on from where the lift onto a neighbour leaves it (the planar
//! model, `flotilla_firmware::molemod::lift`): block A upside down on B at (0.1, 0.15) m, B
//! at (0.1, 0.05), the third block at (0.2, 0.05), the floor; the cells left of them free.
//! One head is clamped in A's x tunnel `grip` from A's centre with the mole leaving A's
//! mouth that faces -x (as the lift's rear head is), its axis 5 mm above A's centre (where
//! the lift leaves it, A being upside down) or 5 mm below (lying on the tunnel's floor).
//! Over a grid of the six joints (pitches every 5 degrees within the range less the dead
//! band, prismatic joints every 5 mm), the other head's centre: inside which block (the
//! physics clamps a gripping head only there) or resting on the floor, counting only
//! configurations whose cubes keep out of the blocks and the floor (overlaps up to
//! `slack` allowed, to err on the side of finding a hold).
//! `cargo run --release -p flotilla_firmware --example molemod_unfold_holds -- [slack m]`
//! (default 0.0005).

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::lift::{chain_from, mirror, LiftLimits, Pose, AXIS_BELOW, BLOCK, CUBE_HALF};
use flotilla_firmware::molemod::shift::{self, ShiftScene};

fn main() {
    let args = args::numbers();
    let slack = args.first().copied().unwrap_or(0.0005);
    let pitch = LiftLimits::actuators().pitch;
    let (a, b, third) = ((BLOCK, 1.5 * BLOCK), (BLOCK, 0.5 * BLOCK), (2.0 * BLOCK, 0.5 * BLOCK));
    let scene = ShiftScene { fixed: vec![a, b, third], ..ShiftScene::new(0.0, 0.0, 0.0) };
    let pitches: Vec<f64> = (0..=36).map(|k| -pitch + 2.0 * pitch * f64::from(k) / 36.0).collect();
    let travel: Vec<f64> = (0..=6).map(|k| 0.005 * f64::from(k)).collect();
    let inside = |(x, z): (f64, f64), (cx, cz): (f64, f64)| (x - cx).abs() < 0.5 * BLOCK && (z - cz).abs() < 0.5 * BLOCK;
    println!("grip mm, axis: free head's centre inside A / inside B (deepest grip) / inside the third block / on the floor");
    let (mut deepest_b, mut deepest_floor) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for grip_mm in (-49..=49).step_by(7) {
        let grip = 0.001 * f64::from(grip_mm);
        for axis in [AXIS_BELOW, -AXIS_BELOW] {
            // The held head, its x axis pointing away from the rest of the mole (+x, into A):
            // the chain read from it is the mirrored joints' (`lift::mirror`).
            let held = Pose { x: a.0 + grip, z: a.1 + axis, angle: 0.0 };
            let mut counts = [0usize; 4];
            for &u0 in &pitches {
                for &u1 in &pitches {
                    for &p0 in &travel {
                        for &p1 in &travel {
                            for &p2 in &travel {
                                for &p3 in &travel {
                                    let mut c = chain_from(held, 0.0, &mirror(&[p0, u0, p1, p2, u1, p3]));
                                    // `c.rear` is the free head; A is one of the fixed blocks here.
                                    let free = (c.rear.x, c.rear.z);
                                    // Low enough to rest on the floor: its centre within a
                                    // cube's half diagonal of it.
                                    let low = free.1 < CUBE_HALF * std::f64::consts::SQRT_2 + slack;
                                    if !(low || inside(free, a) || inside(free, b) || inside(free, third)) {
                                        continue;
                                    }
                                    c.block = Pose { x: 10.0, z: 10.0, angle: 0.0 };
                                    let d = shift::clearances(&scene, &c);
                                    // The cubes with each other, the fixed blocks and the floor.
                                    if [0, 1, 2, 5, 6, 7, 8, 9, 10].iter().any(|&i| d[i] < -slack) {
                                        continue;
                                    }
                                    let place = [inside(free, a), inside(free, b), inside(free, third), d[10] < 1e-3];
                                    for (n, &p) in counts.iter_mut().zip(&place) {
                                        *n += usize::from(p);
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if counts[1] > 0 {
                deepest_b = deepest_b.max(grip);
            }
            if counts[3] > 0 {
                deepest_floor = deepest_floor.max(grip);
            }
            println!("{grip_mm:+4} mm, axis {:+.0} mm: {:?}", axis * 1e3, counts);
        }
    }
    println!(
        "the deepest grip in A from which the other head reaches inside B: {:+.0} mm, the floor: {:+.0} mm from A's centre (+ = towards A's +x face)",
        deepest_b * 1e3,
        deepest_floor * 1e3
    );
}
