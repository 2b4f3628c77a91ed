//! Scans task 1's hand-overs for anchoring the front head in A (`flotilla_firmware::molemod::grasp`):
//! for each place of the rear head's centre along the x tunnel behind C's crossing, whether
//! the front head holding in C's vertical tunnel can draw the rear head there, and whether
//! from there the front head can grip in A's x tunnel; a place that allows both, with the
//! same rear pose, is a hand-over that puts the front head in A.
//! `cargo run --release -p flotilla_firmware --example molemod_grasp_scan -- [x_from x_to
//! x_step, m] [rear z step, m] [rear angle step, rad] [joint step, m]`; no arguments: the
//! stored grid ([`GraspGrid::stored`]) over 100 .. 40 mm behind the crossing in 5 mm steps.
//! With the finer steps the rear head's heights stay within 5 mm of the tunnel's axis and
//! its tilts within -0.4 .. 0.5 rad.

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::follow::FollowLimits;
use flotilla_firmware::molemod::grasp::{rear_holds, GraspGrid};

fn main() {
    let args = args::numbers();
    let (from, to, step) =
        (args.first().copied().unwrap_or(-0.1), args.get(1).copied().unwrap_or(-0.04), args.get(2).copied().unwrap_or(0.005));
    let mut grid = GraspGrid::stored();
    if let Some(&dz) = args.get(3) {
        grid.rear_z = (-0.005, dz, (0.01 / dz).round() as usize + 1);
    }
    if let Some(&da) = args.get(4) {
        grid.rear_angle = (-0.4, da, (0.9 / da).round() as usize + 1);
    }
    if let Some(&s) = args.get(5) {
        grid.step = s;
    }
    let n = ((to - from) / step).round().max(0.0) as usize;
    let xs: Vec<f64> = (0..=n).map(|k| from + step * k as f64).collect();
    let limits = FollowLimits::actuators();
    let (mut both, mut ahead) = (0, 0);
    for h in rear_holds(&xs, &limits, &grid) {
        let show = |o: &Option<(flotilla_firmware::molemod::lift::Pose, flotilla_firmware::molemod::grasp::Hold)>| {
            o.as_ref().map_or("no".to_string(), |(r, (f, _, d))| {
                format!(
                    "rear z {:.2} mm {:.3} rad, front ({:.1}, {:.1}) mm {:.3} rad, {:.2} mm clear",
                    r.z * 1e3,
                    r.angle,
                    f.x * 1e3,
                    f.z * 1e3,
                    f.angle,
                    d * 1e3
                )
            })
        };
        println!(
            "rear head at {:7.2} mm: from C: {}; to A: {}; both: {:?}; held ahead and to A: {:?}",
            h.x * 1e3,
            show(&h.from_c),
            show(&h.to_a),
            h.both,
            h.ahead_and_a
        );
        both += usize::from(h.both.is_some());
        ahead += usize::from(h.ahead_and_a.is_some());
    }
    println!("{both} of {} places allow both; {ahead} allow the hold ahead of the crossing and the grip in A", xs.len());
}
