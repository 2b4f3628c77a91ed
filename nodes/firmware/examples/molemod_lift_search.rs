//! Searches the planar lift model (`flotilla_firmware::molemod::lift`) for the path that puts
//! the robot's block on its neighbour with the least static torque on the universal joints:
//! over a grid of grips (front head in B, rear head in A, 2 mm apart) and parts (A's gap
//! from B), RRT-connect from A lifted off the floor to A over B, each under a torque limit.
//! Prints why the ends fail, every path found, and the best one as a joint table.
//! `cargo run --release -p flotilla_firmware --example molemod_lift_search -- [torque N m]
//! [iterations] [seed] [block mass, kg] [rear front gap, m]`: with the last three, that
//! grid point alone.

#[path = "support/args.rs"]
mod args;

use std::collections::BTreeMap;

use flotilla_firmware::molemod::lift::{self, LiftJoints, LiftLimits, LiftScene, GOAL_SLACK};

fn main() {
    let args = args::numbers();
    let torque = args.first().copied().unwrap_or(LiftLimits::actuators().torque);
    let iterations = args.get(1).copied().unwrap_or(3000.0) as usize;
    let seed = args.get(2).copied().unwrap_or(1.0) as u64;
    let block_mass = args.get(3).copied().unwrap_or(lift::BLOCK_MASS);
    let mut limits = LiftLimits::actuators();
    limits.torque = torque;
    let grid = |lo: i32, hi: i32, step: usize| (lo..=hi).step_by(step).map(|mm| f64::from(mm) * 1e-3);
    let only = |i: usize, lo: i32, hi: i32| -> Vec<f64> {
        match args.get(i) {
            Some(&v) => vec![v],
            None => grid(lo, hi, 2).collect(),
        }
    };
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut best: Option<(f64, LiftScene, f64, Vec<LiftJoints>)> = None;
    let mut found = 0;
    for rear in only(4, -46, 46) {
        for front in only(5, -46, 46) {
            for &gap in &only(6, 2, 64) {
                let scene = LiftScene { block_mass, ..LiftScene::task1(front, rear) };
                let ends = match lift::endpoints(&scene, &limits, gap) {
                    Ok(ends) => ends,
                    Err(why) => {
                        let key = why.split(" (").next().unwrap_or_default();
                        let key = if key.contains("off the cell") {
                            format!("no goal: A ends over {GOAL_SLACK} m off the cell")
                        } else {
                            key.to_string()
                        };
                        *reasons.entry(key).or_insert(0) += 1;
                        continue;
                    }
                };
                let Some(path) = lift::search(&scene, &ends.limits, &ends.start[1], &ends.goal[0], iterations, seed) else {
                    *reasons.entry("no path found".into()).or_insert(0) += 1;
                    continue;
                };
                found += 1;
                let mut full = vec![ends.start[0]];
                full.extend(path);
                full.push(ends.goal[1]);
                let (clear, pair) = lift::path_clearance(&scene, &full[1..full.len() - 1], 0.001, &ends.limits.touching);
                let (t, j, f, g, tip) = lift::path_loads(&scene, &full, 0.001);
                println!(
                    "rear {rear:+.3} front {front:+.3} gap {gap:.3}: {} phases, clearance {:.2} mm ({pair}), torque {t:.3} N m (universal_{j}), force {f:.2} N, grip {g:.3} N m, tipping {tip:.3} N m",
                    full.len() - 1,
                    clear * 1e3
                );
                if best.as_ref().is_none_or(|b| t < b.0) {
                    best = Some((t, scene, gap, full));
                }
            }
        }
    }
    println!("ends that fail (grid points): {reasons:#?}");
    println!("{found} paths under {torque} N m");
    if let Some((t, scene, gap, full)) = best {
        println!("least torque {t:.3} N m: front grip {:.3} m, rear grip {:.3} m, gap {gap:.3} m", scene.front_grip, scene.rear_grip);
        for q in &full {
            println!("    [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}],", q[0], q[1], q[2], q[3], q[4], q[5]);
        }
    }
}
