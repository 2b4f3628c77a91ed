//! Searches the planar model of `flotilla_firmware::molemod::follow` for the body following
//! the head round a block's crossing after the turn up: phases with alternating bases
//! (`follow::FOLLOW_KEYS`). In each, the sliding head's pose is moved in steps of at most
//! 5 mm (or 0.1 rad at 28 mm) along the straight line to the key's; each step's joints put it
//! there exactly with the most clearance near the last step's (`follow::reach`); a step the
//! firmware's phase cannot run straight is searched by a seeded RRT-connect
//! (`follow::search_phase`). Prints each phase's least clearance and peak loads, and the table.
//! `cargo run --release -p flotilla_firmware --example molemod_follow_search -- [seed] [iterations]`

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::follow::{self, Base, FollowLimits, Grip};
use flotilla_firmware::molemod::lift::{segment_samples, LiftJoints, Pose};

fn main() {
    let args = args::numbers();
    let seed = args.first().copied().unwrap_or(1.0) as u64;
    let iterations = args.get(1).copied().unwrap_or(3000.0) as usize;
    let limits = FollowLimits::actuators();
    let mut grip = Grip { base: Base::Rear, pose: follow::FOLLOW_REAR_START };
    let mut q: LiftJoints = follow::FOLLOW_START;
    let mut rows: Vec<(Base, LiftJoints)> = vec![(Base::Rear, q)];
    let mut keys = follow::FOLLOW_KEYS.to_vec();
    keys.extend(follow::rear_turn_keys());
    for (k, (base, target)) in keys.iter().enumerate() {
        if *base != grip.base {
            let l = follow::links(&grip, &q);
            grip = Grip { base: *base, pose: if *base == Base::Front { l.front } else { l.rear } };
        }
        let from = follow::sliding(&grip, &follow::links(&grip, &q));
        let steps = (follow::pose_error(&from, target) / 0.005).ceil().max(1.0) as usize;
        let touching = limits.touching(&grip, &q);
        let first = rows.len();
        for s in 1..=steps {
            let f = s as f64 / steps as f64;
            let at = Pose {
                x: from.x + f * (target.x - from.x),
                z: from.z + f * (target.z - from.z),
                angle: from.angle + f * (target.angle - from.angle),
            };
            let Some((next, _)) = follow::reach(&grip, &limits, &at, 0.001, Some(&q)) else {
                println!("phase {k}, step {s}/{steps}: no configuration reaches {at:?}");
                print_rows(&rows);
                return;
            };
            if follow::phase_ok(&grip, &limits, &touching, &q, &next) {
                rows.push((*base, next));
            } else if let Some(path) = follow::search_phase(&grip, &limits, &q, &next, iterations, seed + (100 * k + s) as u64) {
                rows.extend(path[1..].iter().map(|r| (*base, *r)));
            } else {
                println!("phase {k}, step {s}/{steps}: no path in {iterations} iterations to {at:?}");
                print_rows(&rows);
                return;
            }
            q = next;
        }
        let l = follow::links(&grip, &q);
        let (mut least, mut torque, mut force) = (f64::INFINITY, 0.0f64, 0.0f64);
        let based = if grip.base == Base::Front { 0 } else { 2 };
        for pair in rows[first - 1..].windows(2) {
            for s in segment_samples(&pair[0].1, &pair[1].1, 0.001) {
                let l = follow::links(&grip, &s);
                for (i, d) in follow::clearances(&l).iter().enumerate() {
                    if i != based && !touching[i] {
                        least = least.min(*d);
                    }
                }
                let (t, f) = follow::loads(&grip, &l, limits.down);
                torque = t.iter().fold(torque, |m, v| m.max(*v));
                force = f.iter().fold(force, |m, v| m.max(*v));
            }
        }
        println!(
            "phase {k} ({base:?} base): {} rows, least clearance {:.2} mm, torque {torque:.3} N m, force {force:.2} N; front head ({:.1}, {:.1}, {:.3}), body ({:.1}, {:.1}, {:.3}), rear head ({:.1}, {:.1}, {:.3})",
            rows.len() - first,
            least * 1e3,
            l.front.x * 1e3,
            l.front.z * 1e3,
            l.front.angle,
            l.body.x * 1e3,
            l.body.z * 1e3,
            l.body.angle,
            l.rear.x * 1e3,
            l.rear.z * 1e3,
            l.rear.angle
        );
    }
    print_rows(&rows);
}

/// The rows rounded to 10 um and 0.1 mrad as a Rust table (a pitch at the end of its range
/// as `UPRIGHT`), a row that rounds to the one before it left out (a phase that would move
/// nothing).
fn print_rows(rows: &[(Base, LiftJoints)]) {
    let mut last = String::new();
    println!("table:");
    for (base, r) in rows {
        let row = format!("[{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}]", r[0], r[1], r[2], r[3], r[4], r[5])
            .replace("-0.0000,", "0.0000,")
            .replace(" -1.5688,", " -UPRIGHT,")
            .replace(" 1.5688,", " UPRIGHT,");
        if row != last {
            println!("    (Base::{base:?}, {row}),");
            last = row;
        }
    }
}
