//! Keyed search (`flotilla_firmware::molemod::follow_keys`) for the follow down's hand-over
//! after the push over: the lower head clamped in B's +x arm (`follow_down::lower_in_arm`),
//! the upper head from a hold (`from`, mm from B's centre and rad) to a hold (`to`), keys
//! driving the lower pitch (the body's turn about the lower joint) from the first hold's to
//! the second's, optionally first the upper pitch to `pitch first` (rad; 9 = no), each key
//! the most room in the window round the last; then a join to the second hold's
//! configuration. With `reverse` 1 the keys run from the second hold to the first; with
//! `meet` N both ways run and RRT-connect (20 000 iterations) tries the N nearest pairs of
//! their rows. Prints each key's room and where it stops.
//! `cargo run --release -p flotilla_firmware --no-default-features --example molemod_follow_down_keys -- \
//!   out_mm z_mm tilt from_x from_z from_angle to_x to_z to_angle step_rad travel_mm travel_step_mm pitch pitch_step \
//!   pitch_first iterations reverse meet`

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::after_push::{head_clearance, limits};
use flotilla_firmware::molemod::follow::{clearances_in, joint_distance, links, reach, Base, Grip, FOLLOW_PAIRS};
use flotilla_firmware::molemod::follow_down::lower_in_arm;
use flotilla_firmware::molemod::follow_keys::{join, keyed, ramp, Window};
use flotilla_firmware::molemod::lift::{Pose, BLOCK};

fn main() {
    let a = args::numbers();
    let g = |i: usize, d: f64| a.get(i).copied().unwrap_or(d);
    let lower = lower_in_arm(g(0, 71.0) * 1e-3, g(1, -2.5) * 1e-3, g(2, -0.1));
    let from = Pose { x: g(3, 50.0) * 1e-3 - BLOCK, z: g(4, 97.5) * 1e-3, angle: g(5, 0.25) };
    let to = Pose { x: g(6, 0.0) * 1e-3 - BLOCK, z: g(7, 50.0) * 1e-3, angle: g(8, 1.3) };
    let step = g(9, 0.0175);
    let window = Window { travel: g(10, 3.0) * 1e-3, travel_step: g(11, 1.0) * 1e-3, pitch: g(12, 0.08), pitch_step: g(13, 0.02) };
    let pitch_first = g(14, 9.0);
    let iterations = g(15, 2000.0) as usize;
    let reverse = g(16, 0.0) != 0.0;
    let lim = limits();
    println!("lower head {:?}, its own clearance {:.2} mm", lower.pose, head_clearance(&lower.pose) * 1e3);
    let Some((q0, r0)) = reach(&lower, &lim, &from, 0.0025, None) else {
        println!("no configuration at the first hold");
        return;
    };
    let Some((q1, r1)) = reach(&lower, &lim, &to, 0.0025, None) else {
        println!("no configuration at the second hold");
        return;
    };
    println!("first hold {q0:.4?} ({:.2} mm), second {q1:.4?} ({:.2} mm)", r0 * 1e3, r1 * 1e3);
    let (q0, q1) = if reverse { (q1, q0) } else { (q0, q1) };
    let mut keys = Vec::new();
    if pitch_first.abs() <= 2.0 {
        keys.extend(ramp(1, q0[1], pitch_first, step));
    }
    keys.extend(ramp(4, q0[4], q1[4], step));
    let t = std::time::Instant::now();
    let run = keyed(&lower, &lim, &q0, &keys, &window, (iterations, 1), |_| false);
    for (k, (q, r)) in run.keys.iter().enumerate() {
        let l = links(&lower, q);
        let d = clearances_in(lim.blocks, &l);
        let worst = (0..8).filter(|i| *i != 2).min_by(|x, y| d[*x].total_cmp(&d[*y])).unwrap_or(0);
        println!(
            "key {k}: room {:.2} mm ({}), upper head ({:.1}, {:.1}) mm {:.2} rad, q {q:.4?}",
            r * 1e3,
            FOLLOW_PAIRS[worst],
            (l.front.x + BLOCK) * 1e3,
            l.front.z * 1e3,
            l.front.angle
        );
    }
    println!(
        "{} of {} keys, {} rows, stop {:?} ({:.1} s)",
        run.keys.len(),
        keys.len(),
        run.rows.len(),
        run.stop,
        t.elapsed().as_secs_f64()
    );
    let meet = g(17, 0.0) as usize;
    if meet > 0 {
        let mut back_keys = Vec::new();
        if pitch_first.abs() <= 2.0 {
            back_keys.extend(ramp(1, q1[1], pitch_first, step));
        }
        back_keys.extend(ramp(4, q1[4], q0[4], step));
        let back = keyed(&lower, &lim, &q1, &back_keys, &window, (iterations, 1), |_| false);
        println!("the other way: {} keys, stop {:?}", back.keys.len(), back.stop);
        let mut pairs = Vec::new();
        for a in &run.rows {
            for b in &back.rows {
                pairs.push((joint_distance(a, b), *a, *b));
            }
        }
        pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
        for (d, a, b) in pairs.iter().take(meet) {
            let t = std::time::Instant::now();
            let p = join(&lower, &lim, a, b, 20_000, 1);
            println!("meet {d:.3}: {a:.3?} -> {b:.3?}: {:?} ({:.1} s)", p.map(|p| p.len()), t.elapsed().as_secs_f64());
        }
    }
    if run.stop.is_none() {
        let last = run.rows[run.rows.len() - 1];
        let upper = Grip { base: Base::Front, pose: links(&lower, &last).front };
        println!(
            "last key's upper head {:?}; join to the second hold: {:?}",
            upper.pose,
            join(&lower, &lim, &last, &q1, 20_000, 1).map(|p| p.len())
        );
    }
}
