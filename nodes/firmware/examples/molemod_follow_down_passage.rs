//! The body's passage down B's column in the follow down's hand-over
//! (`flotilla_firmware::molemod::follow_keys::widest_passage`): the lower head clamped in
//! B's +x arm at `out` mm from B's axis, `z` mm from the x tunnel's axis, tilted `tilt` rad
//! (`follow_down::lower_in_arm`); the upper head's hold at A's face (`from`, mm from B's
//! centre and rad) and at B's top face (`to`); the widest path of the lower half's joints
//! between the two holds' configurations.
//! `cargo run --release -p flotilla_firmware --no-default-features --example molemod_follow_down_passage -- \
//!   out z tilt from_x from_z from_angle to_x to_z to_angle travel_step_mm pitch_step`

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::after_push::{head_clearance, limits, AFTER_PUSH_BLOCKS};
use flotilla_firmware::molemod::follow::{in_tunnel_in, links, reach};
use flotilla_firmware::molemod::follow_down::lower_in_arm;
use flotilla_firmware::molemod::follow_keys::{far_head_along, join, passage_bound, widest_passage};
use flotilla_firmware::molemod::lift::{LiftJoints, Pose, BLOCK};

fn main() {
    let a = args::numbers();
    let g = |i: usize, d: f64| a.get(i).copied().unwrap_or(d);
    let lower = lower_in_arm(g(0, 71.0) * 1e-3, g(1, -2.5) * 1e-3, g(2, -0.1));
    let from = Pose { x: g(3, 50.0) * 1e-3 - BLOCK, z: g(4, 97.5) * 1e-3, angle: g(5, 0.25) };
    let to = Pose { x: g(6, 0.0) * 1e-3 - BLOCK, z: g(7, 50.0) * 1e-3, angle: g(8, 1.3) };
    let (ts, ps) = (g(9, 1.0) * 1e-3, g(10, 0.01));
    let lim = limits();
    println!("lower head {:?}, its own clearance {:.2} mm", lower.pose, head_clearance(&lower.pose) * 1e3);
    let (Some((q0, _)), Some((q1, _))) = (reach(&lower, &lim, &from, 0.0025, None), reach(&lower, &lim, &to, 0.0025, None)) else {
        println!("a hold is not reached");
        return;
    };
    let t = std::time::Instant::now();
    let (r, path, at) = widest_passage(&lower, &lim, &q0, &q1, ts, ps);
    println!(
        "holds {q0:.4?} -> {q1:.4?}: widest passage {:.3} mm, narrowest at {at:.4?}; bound {:.3} mm ({:.1} s)",
        r * 1e3,
        passage_bound(ts, ps) * 1e3,
        t.elapsed().as_secs_f64()
    );
    // With `cut` (arg 17, rad) the passage is cut at the first configuration whose lower
    // pitch reaches it and goes straight from there to the second hold.
    let mut path = path;
    let cut = g(17, 9.0);
    if let Some(k) = path.iter().position(|q| q[4] >= cut) {
        path.truncate(k + 1);
        let last = path[k];
        let steps = ((q1[4] - last[4]).abs() / 0.01).ceil().max(1.0) as usize;
        for j in 1..=steps {
            let f = j as f64 / steps as f64;
            path.push(std::array::from_fn(|i| if i < 2 { 0.0 } else { last[i] + (q1[i] - last[i]) * f }));
        }
    }
    // A hold of the upper head in B: its centre in B's tunnels, itself clear of the blocks.
    let any_end = g(18, 0.0) != 0.0;
    let in_b = |q: &LiftJoints| {
        let p = links(&lower, q).front;
        any_end || ((p.x + BLOCK).abs() <= 0.5 * BLOCK && in_tunnel_in(&AFTER_PUSH_BLOCKS, (p.x, p.z)) && head_clearance(&p) >= 0.0)
    };
    let t = std::time::Instant::now();
    let (least, rows) = far_head_along(&lower, &lim, &path, &q0, in_b, g(11, 1.0) * 1e-3, g(12, 0.01), (g(15, 3.0) as i64, g(16, 5.0) as i64));
    println!("far head along the passage: least room {:.3} mm, {} rows ({:.1} s)", least * 1e3, rows.len(), t.elapsed().as_secs_f64());
    if rows.is_empty() {
        return;
    }
    let every = g(13, 10.0) as usize;
    for (k, q) in rows.iter().enumerate() {
        if k % every == 0 || k + 1 == rows.len() {
            let l = links(&lower, q);
            println!("row {k}: upper head ({:.1}, {:.1}) mm {:.2} rad, q {q:.4?}", (l.front.x + BLOCK) * 1e3, l.front.z * 1e3, l.front.angle);
        }
    }
    let (mut joined, mut broken) = (vec![rows[0]], 0);
    for pair in rows.windows(2) {
        match join(&lower, &lim, &pair[0], &pair[1], g(14, 2000.0) as usize, 1) {
            Some(p) => joined.extend(p.iter().skip(1)),
            None => broken += 1,
        }
    }
    println!("{} of {} steps joined, {} rows", rows.len() - 1 - broken, rows.len() - 1, joined.len());
    if any_end {
        let t = std::time::Instant::now();
        let last = rows[rows.len() - 1];
        println!("to the second hold: {:?} ({:.1} s)", join(&lower, &lim, &last, &q1, 20_000, 1).map(|p| p.len()), t.elapsed().as_secs_f64());
    }
}
