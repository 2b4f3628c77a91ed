//! Searches the planar shift model (`flotilla_firmware::molemod::shift`) for the path that
//! rolls the robot's block from its neighbour B onto the free cell over C: over a grid of
//! front-head places in C's vertical tunnel and rear grips in A, RRT-connect for the reach
//! (the front half down into C) and the roll (A over the shared edge onto C), under a torque
//! limit. Prints why the ends fail, every pair of paths found, and the one with the least
//! static torque as joint tables.
//! `cargo run --release -p flotilla_firmware --example molemod_shift_search -- [torque N m]
//! [iterations] [seed] [across lower rear, m]`: with the last three, that grid point alone.

#[path = "support/args.rs"]
mod args;

use std::collections::BTreeMap;

use flotilla_firmware::molemod::lift::{LiftJoints, LiftLimits};
use flotilla_firmware::molemod::shift::{self, ShiftScene, Stage};

fn main() {
    let args = args::numbers();
    let torque = args.first().copied().unwrap_or(0.52);
    let iterations = args.get(1).copied().unwrap_or(3000.0) as usize;
    let seed = args.get(2).copied().unwrap_or(1.0) as u64;
    let limits = LiftLimits { torque, ..LiftLimits::actuators() };
    let only = |i: usize, lo: i32, hi: i32, step: usize| -> Vec<f64> {
        match args.get(i) {
            Some(&v) => vec![v],
            None => (lo..=hi).step_by(step).map(|mm| f64::from(mm) * 1e-3).collect(),
        }
    };
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut best: Option<(f64, ShiftScene, Vec<LiftJoints>, Vec<LiftJoints>)> = None;
    let mut found = 0;
    for across in only(3, -4, 4, 1) {
        for lower in only(4, 17, 30, 1) {
            for rear in only(5, -49, -30, 1) {
                let (scene, reach) = match shift::reach(across, lower, rear, limits.pitch) {
                    Ok(r) => r,
                    Err(why) => {
                        *reasons.entry(why.split(" (").next().unwrap_or_default().to_string()).or_insert(0) += 1;
                        continue;
                    }
                };
                let ends = match shift::endpoints(&scene, &limits, &reach) {
                    Ok(ends) => ends,
                    Err(why) => {
                        *reasons.entry(why).or_insert(0) += 1;
                        continue;
                    }
                };
                let Some(roll) = shift::search(&scene, &ends, iterations, seed) else {
                    *reasons.entry("no roll path".into()).or_insert(0) += 1;
                    continue;
                };
                found += 1;
                let touching = &ends.limits.touching;
                let (reach_clear, reach_pair) = shift::path_clearance(&scene, Stage::Reach, &reach, 0.001, touching);
                let mut exempt = touching.clone();
                exempt.push(shift::BLOCK_FIXED);
                let (roll_clear, roll_pair) = shift::path_clearance(&scene, Stage::Roll, &roll[1..roll.len() - 1], 0.001, &exempt);
                let (lr, ll) =
                    (shift::path_loads(Stage::Reach, &scene, &reach, 0.001), shift::path_loads(Stage::Roll, &scene, &roll, 0.001));
                let t = ll.universal.iter().chain(&lr.universal).fold(0.0_f64, |m, &x| m.max(x));
                let f = ll.prismatic.iter().chain(&lr.prismatic).fold(0.0_f64, |m, &x| m.max(x));
                println!(
                    "across {across:+.3} lower {lower:.3} rear {rear:+.3}: reach clearance {:.2} mm ({reach_pair}); roll {} phases, clearance {:.2} mm ({roll_pair}); torque {t:.3} N m (roll {:.3} / {:.3}), force {f:.2} N, front grip {:.3} N m",
                    reach_clear * 1e3,
                    roll.len() - 1,
                    roll_clear * 1e3,
                    ll.universal[0],
                    ll.universal[1],
                    ll.grip
                );
                if best.as_ref().is_none_or(|b| t < b.0) {
                    best = Some((t, scene, reach, roll));
                }
            }
        }
    }
    println!("ends that fail (grid points): {reasons:#?}");
    println!("{found} paths under {torque} N m");
    if let Some((t, scene, reach, roll)) = best {
        println!(
            "least torque {t:.3} N m: front head at ({:.3}, {:.3}) m, rear grip {:.3} m",
            scene.front.x, scene.front.z, scene.rear_grip
        );
        for (name, path) in [("reach", &reach), ("roll", &roll)] {
            println!("  {name}:");
            for q in path.iter() {
                println!("    [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}],", q[0], q[1], q[2], q[3], q[4], q[5]);
            }
        }
    }
}
