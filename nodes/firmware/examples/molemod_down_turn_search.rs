//! Searches the planar model of `flotilla_firmware::molemod::down_turn` for the lower
//! head's turn into B's x tunnel from where the push over ends: the upper head's grips in A
//! with the lower head at the turn's last key (`down_turn::grips_in_a`, a 3 mm / 0.03 rad
//! grid, the grip clear of A's solid by 1 mm); the deepest in A, rounded to 0.1 mm and 1
//! mrad; then `down_turn::search` with it. Prints the grip, each stage's rows and the table.
//! `cargo run --release -p flotilla_firmware --example molemod_down_turn_search -- [seed] [last degrees] [raise mm]`

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::follow::Base;
use flotilla_firmware::molemod::lift::{LiftJoints, Pose};
use flotilla_firmware::molemod::motion::TURN_UP_PATH;
use flotilla_firmware::molemod::{after_push, down_turn};

fn main() {
    let args = args::numbers();
    let seed = args.first().copied().unwrap_or(1.0) as u64;
    let last_degrees = args.get(1).copied().unwrap_or(87.0);
    let raise = args.get(2).copied().unwrap_or(-5.0) * 1e-3;
    // The last key of the turn up's table at or below `last_degrees`.
    let Some(&(pitch, along)) = TURN_UP_PATH.iter().rev().find(|r| -r.0 <= last_degrees.to_radians() + 1e-9) else {
        println!("no key of the turn up at or below {last_degrees} degrees");
        return;
    };
    let end = down_turn::turn_pose(-pitch, -along);
    let grips = down_turn::grips_in_a(&end, 0.003, 0.03, 0.001);
    let Some(deepest) = grips.iter().max_by(|a, b| a.1.x.total_cmp(&b.1.x)) else {
        println!("no grip in A with the lower head at {end:?}");
        return;
    };
    let round = |v: f64, unit: f64| (v / unit).round() * unit;
    let grip = Pose { x: round(deepest.1.x, 1e-4), z: round(deepest.1.z, 1e-4), angle: round(deepest.1.angle, 1e-3) };
    println!(
        "{} grips; the deepest: ({:.1}, {:.1}) mm, {:.3} rad, clear of A's solid by {:.2} mm; rounded {grip:?}",
        grips.len(),
        deepest.1.x * 1e3,
        deepest.1.z * 1e3,
        deepest.1.angle,
        after_push::head_clearance(&grip) * 1e3
    );
    match down_turn::search(&grip, raise, last_degrees, seed) {
        Ok(rows) => print_rows(&rows),
        Err(stop) => println!("{stop}"),
    }
}

/// The rows rounded to 10 um and 0.1 mrad as a Rust table, a row that rounds to the one
/// before it left out (a phase that would move nothing).
fn print_rows(rows: &[(Base, LiftJoints)]) {
    let mut last = String::new();
    println!("table ({} rows):", rows.len());
    for (base, r) in rows {
        let row = format!("(Base::{base:?}, [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}]),", r[0], r[1], r[2], r[3], r[4], r[5])
            .replace("-0.0000,", "0.0000,");
        if row != last {
            println!("    {row}");
            last = row;
        }
    }
}
