//! Searches the follow down's hand-over after the down turn (`flotilla_firmware::molemod::
//! follow_down`, `follow_keys`): from `DOWN_TURN_PATH`'s end, (1) the upper head to its hold
//! at A's face, (2) the lower head out to `out` mm, `z` mm, tilted `tilt` rad, (3) the body's
//! turn about the lower joint taking the upper head to its hold at B's top face, by the
//! passage (`follow_keys::passage_phase`, cut at `cut` rad of the lower pitch). Prints each
//! phase's rows, the 1 ms walk and the table.
//! `cargo run --release -p flotilla_firmware --no-default-features --example molemod_follow_down_search -- [out z tilt cut]`

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::after_push::limits;
use flotilla_firmware::molemod::follow::{links, Base, Grip};
use flotilla_firmware::molemod::follow_down::{down_turn_end, lower_in_arm, phase, walk};
use flotilla_firmware::molemod::follow_keys::{passage_phase, PassageGrid};
use flotilla_firmware::molemod::lift::{LiftJoints, Pose, BLOCK};

fn main() {
    let a = args::numbers();
    let g = |i: usize, d: f64| a.get(i).copied().unwrap_or(d);
    let lim = limits();
    let (_, lower, q) = down_turn_end();
    let hold_a = Pose { x: 0.050 - BLOCK, z: 0.0975, angle: 0.25 };
    let out = lower_in_arm(g(0, 71.0) * 1e-3, g(1, -2.5) * 1e-3, g(2, -0.1));
    let hold_b = Pose { x: -BLOCK, z: 0.050, angle: 1.3 };
    let mut rows: Vec<(Base, LiftJoints)> = vec![(Base::Rear, q)];
    let p1 = match phase(&lower, &q, &hold_a, 20_000) {
        Ok(p) => p,
        Err(e) => return println!("phase 1: {e}"),
    };
    rows.extend(p1.iter().skip(1).map(|q| (Base::Rear, *q)));
    let q1 = p1[p1.len() - 1];
    let upper = Grip { base: Base::Front, pose: links(&lower, &q1).front };
    let p2 = match phase(&upper, &q1, &out.pose, 20_000) {
        Ok(p) => p,
        Err(e) => return println!("phase 2: {e}"),
    };
    rows.extend(p2.iter().skip(1).map(|q| (Base::Front, *q)));
    let q2 = p2[p2.len() - 1];
    let lower_out = Grip { base: Base::Rear, pose: links(&upper, &q2).rear };
    let Some((q3, _)) = flotilla_firmware::molemod::follow::reach(&lower_out, &lim, &hold_b, 0.0025, None) else {
        return println!("phase 3: the hold at B's top face not reached");
    };
    let t = std::time::Instant::now();
    let p3 = match passage_phase(&lower_out, &lim, &q2, &q3, &PassageGrid::found(), g(3, -0.6), (2000, 1)) {
        Ok(p) => p,
        Err(e) => return println!("phase 3: {e}"),
    };
    println!("phases: {} + {} + {} rows (phase 3 in {:.1} s)", p1.len() - 1, p2.len() - 1, p3.len() - 1, t.elapsed().as_secs_f64());
    rows.extend(p3.iter().skip(1).map(|q| (Base::Rear, *q)));
    // Both heads hold at the end: a last row with the upper head clamped, not moving.
    rows.push((Base::Front, p3[p3.len() - 1]));
    match walk(&lower, &rows) {
        Ok(w) => println!("walk: {w:?}"),
        Err(e) => println!("walk: {e}"),
    }
    let mut last = String::new();
    println!("table ({} rows):", rows.len());
    for (base, r) in &rows {
        let row = format!("(Base::{base:?}, [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}]),", r[0], r[1], r[2], r[3], r[4], r[5])
            .replace("-0.0000,", "0.0000,");
        if row != last {
            println!("    {row}");
            last = row;
        }
    }
}
