//! Searches the planar lift model (`flotilla_firmware::molemod::lift`) for a put-down path:
//! the lift onto a neighbour mirrored and run backwards. Read mirrored, the lift's scene is
//! the put-down's: its neighbour B is the block C that A lies upside down on, the lift's
//! start cell is the free one. The ends are the lift's (`lift::endpoints`), the RRT-connect
//! runs from A held over C to A lifted over the floor, so every phase is checked in the
//! direction the firmware runs it (a phase run backwards takes another joint-space path).
//! Prints the path as a joint table, its clearance and loads.
//! `cargo run --release -p flotilla_firmware --example molemod_put_down_search -- [torque N m]
//! [iterations] [seed] [rear front gap, m]` (defaults: 0.34 3000 1 and the lift's grips).

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::lift::{self, LiftScene};
use flotilla_firmware::molemod::motion::{LIFT_ONTO_FRONT_GRIP, LIFT_ONTO_PART, LIFT_ONTO_REAR_GRIP};

fn main() {
    let args = args::numbers();
    let torque = args.first().copied().unwrap_or(0.34);
    let iterations = args.get(1).copied().unwrap_or(3000.0) as usize;
    let seed = args.get(2).copied().unwrap_or(1.0) as u64;
    let rear = args.get(3).copied().unwrap_or(LIFT_ONTO_REAR_GRIP);
    let front = args.get(4).copied().unwrap_or(LIFT_ONTO_FRONT_GRIP);
    let gap = args.get(5).copied().unwrap_or(LIFT_ONTO_PART);
    let limits = lift::LiftLimits { torque, ..lift::LiftLimits::actuators() };
    let scene = LiftScene::task1(front, rear);
    let ends = match lift::endpoints(&scene, &limits, gap) {
        Ok(ends) => ends,
        Err(why) => {
            println!("no ends: {why}");
            return;
        }
    };
    // The lift's ends backwards: A on C, lifted off it (the set down backwards), ...,
    // A over the floor, set down (the lift off backwards).
    let mut lifting = ends.limits.clone();
    lifting.touching.extend([lift::BLOCK_NEIGHBOUR, lift::BLOCK_NEIGHBOUR + 1]);
    let mut landing = ends.limits.clone();
    landing.touching.push(lift::BLOCK_FLOOR);
    let off = lift::segment_ok(&scene, &lifting, &ends.goal[1], &ends.goal[0]);
    let down = lift::segment_ok(&scene, &landing, &ends.start[1], &ends.start[0]);
    println!("lift off C keeps to the limits: {off}; set down on the floor: {down}");
    let Some(path) = lift::search(&scene, &ends.limits, &ends.goal[0], &ends.start[1], iterations, seed) else {
        println!("no path in {iterations} iterations");
        return;
    };
    let mut full = vec![ends.goal[1]];
    full.extend(path);
    full.push(ends.start[0]);
    let (clear, pair) = lift::path_clearance(&scene, &full[1..full.len() - 1], 0.001, &ends.limits.touching);
    let (t, j, f, g, tip) = lift::path_loads(&scene, &full, 0.001);
    println!(
        "rear {rear:+.3} front {front:+.3} gap {gap:.3}: {} phases, clearance {:.2} mm ({pair}), torque {t:.3} N m (universal_{j}), force {f:.2} N, grip {g:.3} N m, tipping {tip:.3} N m",
        full.len() - 1,
        clear * 1e3
    );
    for q in &full {
        println!("    [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}],", q[0], q[1], q[2], q[3], q[4], q[5]);
    }
}
