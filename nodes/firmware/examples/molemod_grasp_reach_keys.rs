//! Tries the reach into A from the rear head lying 65 mm behind C's crossing in B's x tunnel
//! (where the straight contracted mole lying with its front head 47 mm ahead of the crossing
//! puts it; `flotilla_firmware::molemod::grasp`): hand-made keys for the front head out of
//! C's +x mouth into the empty cell ahead, up beside C's +x face, turned over C's top, then
//! `grasp::grips_in_a`'s grip; each key by `follow::reach` (5 mm joint grid, the one
//! nearest the previous key), each phase between keys by `follow::search_phase`
//! (RRT-connect over task 1's blocks). Prints each key's clearance and each phase's rows
//! (`None`: not connected).
//! `cargo run --release -p flotilla_firmware --example molemod_grasp_reach_keys -- [iterations] [seed]`

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::follow::{reach, search_phase, Base, FollowLimits, Grip, TASK1_BLOCKS};
use flotilla_firmware::molemod::grasp::{grips_in_a, GraspGrid};
use flotilla_firmware::molemod::lift::{LiftJoints, Pose};

/// The front head's keys (x, z, angle), m and rad, from C's crossing.
const KEYS: [(f64, f64, f64); 7] = [
    (0.08, 0.01, 0.6),
    (0.08, 0.04, 1.2),
    (0.075, 0.07, 1.4),
    (0.07, 0.08, 1.4),
    (0.075, 0.08, 0.4),
    (0.05, 0.085, 0.4),
    (0.03, 0.08, 0.2),
];

fn main() {
    let args = args::numbers();
    let iterations = args.first().copied().unwrap_or(3000.0) as usize;
    let seed = args.get(1).copied().unwrap_or(1.0) as u64;
    let limits = FollowLimits { blocks: &TASK1_BLOCKS, ..FollowLimits::actuators() };
    let rear = Pose { x: -0.065, z: -0.005, angle: 0.0 };
    let grip = Grip { base: Base::Rear, pose: rear };
    let Some((front, in_a, clear)) = grips_in_a(&rear, &limits, &GraspGrid::stored()) else {
        println!("no grip in A from the rear head at {rear:?}");
        return;
    };
    let mut rows: Vec<LiftJoints> = vec![[0.0; 6]];
    for (x, z, angle) in KEYS {
        match reach(&grip, &limits, &Pose { x, z, angle }, 0.005, rows.last()) {
            Some((q, d)) => {
                println!("key ({:.0}, {:.0}) mm, {angle:.1} rad: {:.2} mm clear", x * 1e3, z * 1e3, d * 1e3);
                rows.push(q);
            }
            None => println!("key ({:.0}, {:.0}) mm, {angle:.1} rad: no configuration", x * 1e3, z * 1e3),
        }
    }
    println!("grip ({:.0}, {:.1}) mm, {:.2} rad: {:.2} mm clear", front.x * 1e3, front.z * 1e3, front.angle, clear * 1e3);
    rows.push(in_a);
    let mut connected = 0;
    for (k, pair) in rows.windows(2).enumerate() {
        let path = search_phase(&grip, &limits, &pair[0], &pair[1], iterations, seed);
        println!("phase {}: {:?}", k + 1, path.as_ref().map(Vec::len));
        connected += usize::from(path.is_some());
    }
    println!("{connected} of {} phases connected", rows.len() - 1);
}
