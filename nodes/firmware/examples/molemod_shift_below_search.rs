//! Searches the planar model of the shift from below (`flotilla_firmware::molemod::shift_below`):
//! over a grid of the lower head's places across C's vertical tunnel and the upper head's
//! grips in A, the push into A's mouth (hand-made), RRT-connect for the reach (from the
//! straight upright mole to the head in front of A's mouth) and for the roll (A over the
//! B-C edge onto C), under a torque limit. Prints why the ends fail, every path found, and
//! the one with the least static torque as joint tables.
//! `cargo run --release -p flotilla_firmware --example molemod_shift_below_search -- [torque N m]
//! [iterations] [seed] [across head_x head_z, m]`: with the last three, that grid point alone.

#[path = "support/args.rs"]
mod args;

use std::collections::BTreeMap;

use flotilla_firmware::molemod::lift::{LiftJoints, LiftLimits};
use flotilla_firmware::molemod::shift_below::{self, BelowScene, Stage, BLOCK_FIXED, BLOCK_FLOOR, PAIRS};

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
    let mut best: Option<(f64, BelowScene, Vec<LiftJoints>, Vec<LiftJoints>)> = None;
    let mut found = 0;
    for across in only(3, -5, 5, 5) {
        for head_x in only(4, 10, 18, 2) {
            for head_z in only(5, 148, 154, 2) {
                let scene = BelowScene::new(across, (head_x, head_z));
                let ends = match shift_below::endpoints(&scene, &limits) {
                    Ok(ends) => ends,
                    Err(why) => {
                        *reasons.entry(why).or_insert(0) += 1;
                        continue;
                    }
                };
                let Some(reach) = shift_below::search_reach(&scene, &ends, iterations, seed) else {
                    *reasons.entry("no reach path".into()).or_insert(0) += 1;
                    continue;
                };
                let Some(roll) = shift_below::search_roll(&scene, &ends, iterations, seed) else {
                    *reasons.entry("no roll path".into()).or_insert(0) += 1;
                    continue;
                };
                found += 1;
                let touching = ends.limits.touching.clone();
                let r = shift_below::walk(&scene, Stage::Reach, &reach, 0.001, |_| touching.clone());
                let last = roll.len() - 2;
                let o = shift_below::walk(&scene, Stage::Roll, &roll, 0.001, |k| {
                    let mut e = touching.clone();
                    if k == 0 || k == last {
                        e.extend([BLOCK_FLOOR, BLOCK_FIXED]);
                    }
                    e
                });
                let t = o.peak.universal.iter().chain(&r.peak.universal).fold(0.0_f64, |m, &x| m.max(x));
                let f = o.peak.prismatic.iter().chain(&r.peak.prismatic).fold(0.0_f64, |m, &x| m.max(x));
                println!(
                    "across {across:+.3} head ({head_x:.3}, {head_z:.3}): reach {} phases, clearance {:.2} mm ({}); roll {} phases, clearance {:.2} mm ({}); torque {t:.3} N m (roll {:.3} / {:.3}), force {f:.2} N, grips {:.3} / {:.3} N m",
                    reach.len() - 1,
                    r.least * 1e3,
                    PAIRS[r.pair],
                    roll.len() - 1,
                    o.least * 1e3,
                    PAIRS[o.pair],
                    o.peak.universal[0],
                    o.peak.universal[1],
                    o.peak.base_grip,
                    o.peak.block_grip
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
        println!("least torque {t:.3} N m: {scene:?}");
        for (name, path) in [("reach", &reach), ("roll", &roll)] {
            println!("  {name}:");
            for q in path.iter() {
                println!("    [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}],", q[0], q[1], q[2], q[3], q[4], q[5]);
            }
        }
    }
}
