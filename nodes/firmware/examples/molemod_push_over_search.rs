//! Searches the planar model of the push over from under A
//! (`flotilla_firmware::molemod::push_over`): over a grid of where the mole stands upright in
//! the B/A column (side of the axis, the lower head's height in B, the upper head's grip
//! height in A), the ends (the straight mole, A lifted, A held over C, A set down) and
//! RRT-connect for the roll; prints why the ends fail, every path found, and, for every
//! grid point, the roll's profile: the best clearance the hold grid finds with A rolled
//! 0..90 degrees about the B-C edge and raised [`push_over::LIFT_OFF`].
//! `cargo run --release -p flotilla_firmware --example molemod_push_over_search -- [torque N m]
//! [iterations] [seed] [across rear_z grip, m]`: with the last three, that grid point alone.

#[path = "support/args.rs"]
mod args;

use std::collections::BTreeMap;

use flotilla_firmware::molemod::lift::LiftLimits;
use flotilla_firmware::molemod::push_over::{self, UnderScene, LIFT_OFF};
use flotilla_firmware::molemod::shift_below::PAIRS;

fn main() {
    let args = args::numbers();
    let torque = args.first().copied().unwrap_or(0.52);
    let iterations = args.get(1).copied().unwrap_or(3000.0) as usize;
    let seed = args.get(2).copied().unwrap_or(1.0) as u64;
    let limits = LiftLimits { torque, ..LiftLimits::actuators() };
    let only = |i: usize, values: Vec<f64>| -> Vec<f64> {
        match args.get(i) {
            Some(&v) => vec![v],
            None => values,
        }
    };
    let mm = |lo: i32, hi: i32, step: usize| (lo..=hi).step_by(step).map(|v| f64::from(v) * 1e-3).collect::<Vec<_>>();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut found = 0;
    // The bottleneck over the grid: the grid point whose worst roll angle is best.
    let mut widest: Option<(f64, f64, usize, UnderScene)> = None;
    for across in only(3, vec![-push_over::FOLLOW_SIDE, push_over::FOLLOW_SIDE]) {
        for rear_z in only(4, mm(20, 80, 5)) {
            for grip in only(5, mm(20, 80, 5)) {
                let scene = UnderScene::new(across, rear_z, grip);
                let profile = push_over::roll_profile(&scene, &limits, 18);
                if let Some(&(angle, clear, pair)) = profile.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
                    if widest.as_ref().is_none_or(|w| clear > w.1) {
                        widest = Some((angle, clear, pair, scene));
                    }
                }
                let ends = match push_over::endpoints(&scene, &limits) {
                    Ok(ends) => ends,
                    Err(why) => {
                        let key = why.split(" at best").next().unwrap_or(&why).to_string();
                        *reasons.entry(key).or_insert(0) += 1;
                        continue;
                    }
                };
                let Some(path) = push_over::search(&scene, &ends, iterations, seed) else {
                    *reasons.entry("no roll path".into()).or_insert(0) += 1;
                    continue;
                };
                found += 1;
                let w = push_over::walk(&scene, &path, 0.001, &ends.limits.touching);
                let end = push_over::chain(&scene, &path[path.len() - 1]).block;
                println!(
                    "across {across:+.5} rear {rear_z:.3} grip {grip:.3}: {} phases, touching {:?}, least clearance {:.2} mm ({}), torque {:.3} / {:.3} N m, force {:.2} N, grips {:.3} / {:.3} N m; A ends ({:.5}, {:.5}, {:.4})",
                    path.len() - 1,
                    ends.limits.touching,
                    w.least * 1e3,
                    PAIRS[w.pair],
                    w.peak.universal[0],
                    w.peak.universal[1],
                    w.peak.prismatic.iter().fold(0.0_f64, |m, &f| m.max(f)),
                    w.peak.base_grip,
                    w.peak.block_grip,
                    end.x,
                    end.z,
                    end.angle
                );
                for q in &path {
                    println!("    [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}],", q[0], q[1], q[2], q[3], q[4], q[5]);
                }
            }
        }
    }
    println!("ends that fail (grid points): {reasons:#?}");
    println!("{found} paths under {torque} N m");
    if let Some((angle, clear, pair, scene)) = widest {
        println!(
            "widest bottleneck over the grid: {:.2} mm ({}) at {:.0} degrees, A raised {:.0} mm, {scene:?}",
            clear * 1e3,
            PAIRS[pair],
            angle.to_degrees(),
            LIFT_OFF * 1e3
        );
        for (a, d, p) in push_over::roll_profile(&scene, &limits, 18) {
            println!("  {:5.1} deg: {:+.2} mm ({})", a.to_degrees(), d * 1e3, PAIRS[p]);
        }
    }
}
