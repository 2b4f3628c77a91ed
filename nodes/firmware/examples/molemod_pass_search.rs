//! The planar model of the pass through a lone block (`flotilla_firmware::molemod::pass`):
//! builds the pass's first half from the straight mole `LEAVE_U_PATH` ends in to the mole
//! bridging B (both heads on the floors of the empty cells), the whole pass from it (the
//! swap, then the first half mirrored and run backwards), prints the table rounded as stored
//! (`PASS_PATH`, `PASS_HOLDS`), where each phase leaves the heads and the body, and the walk
//! as the firmware runs it (clearances, static loads, friction holds).
//! `cargo run --release -p flotilla_firmware --example molemod_pass_search`.

use flotilla_firmware::molemod::pass;
use flotilla_firmware::molemod::unfold::UnfoldScene;

fn main() {
    let scene = UnfoldScene::task1();
    let (first, holds) = pass::first_half(&scene);
    let (rows, all) = pass::whole(&first, &holds);
    let round = |v: f64, unit: f64| (v / unit).round() * unit;
    let rounded: Vec<[f64; 6]> = rows
        .iter()
        .map(|q| {
            let mut r = *q;
            for (i, v) in r.iter_mut().enumerate() {
                *v = round(*v, if i == 1 || i == 4 { 1e-4 } else { 1e-5 });
            }
            r
        })
        .collect();
    println!("pub const PASS_PATH: [[f64; 6]; {}] = [", rounded.len());
    for r in &rounded {
        let f = |v: f64| {
            let t = format!("{:.5}", if v == 0.0 { 0.0 } else { v });
            let t = t.trim_end_matches('0');
            if t.ends_with('.') {
                format!("{t}0")
            } else {
                t.to_string()
            }
        };
        println!("    [{}, {}, {}, {}, {}, {}],", f(r[0]), f(r[1]), f(r[2]), f(r[3]), f(r[4]), f(r[5]));
    }
    println!("];");
    println!("pub const PASS_HOLDS: [PassHold; {}] = {:?};", all.len(), all);
    let n = all.len();
    // Where each phase leaves the mole (walked coarsely: the ends are exact).
    for k in 0..n {
        let w = pass::walk(&scene, &rounded[..k + 2], &all[..k + 1], |j| pass::resting(j, n), 0.05);
        let c = &w.end;
        println!(
            "phase {k:2} {:?} (spare so far {:.4} N, inside {:.1} mm, least {:.2} mm): front ({:.2}, {:.2}) {:.3} rad, body ({:.2}, {:.2}), rear ({:.2}, {:.2}) {:.3} rad",
            all[k],
            w.spare,
            w.inside * 1e3,
            w.least * 1e3,
            c.front.x * 1e3,
            c.front.z * 1e3,
            c.front.angle,
            c.body.x * 1e3,
            c.body.z * 1e3,
            c.rear.x * 1e3,
            c.rear.z * 1e3,
            c.rear.angle
        );
    }
    let w = pass::walk(&scene, &rounded, &all, |k| pass::resting(k, n), 0.001);
    println!(
        "walk: {} samples, least clearance {:.3} mm ({} in phase {}), resting {:.4} mm, peak torque {:.3} N m, force {:.2} N, clamp moment {:.3} N m, friction to spare {:.4} N, mass centre inside by {:.1} mm, loop error {:.2e} m",
        w.samples,
        w.least * 1e3,
        w.worst.0,
        w.worst.1,
        w.resting * 1e3,
        w.torque,
        w.force,
        w.grip,
        w.spare,
        w.inside * 1e3,
        w.loop_error
    );
}
