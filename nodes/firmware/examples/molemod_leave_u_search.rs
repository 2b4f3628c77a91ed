//! Searches the planar model of leaving the lift's U (`flotilla_firmware::molemod::unfold`)
//! for a joint path: from the stored lift's end (`LIFT_ONTO_PATH`'s last row) with the rear
//! head let go, the hand-made release and withdrawal (`unfold::release`), then RRT-connect
//! to the mole straight along B's tunnel (every joint at zero), the front head gripping in
//! B as the base, every phase checked both ways. Prints the path as a joint table, its
//! least clearance and peak static loads, forwards and backwards.
//! `cargo run --release -p flotilla_firmware --example molemod_leave_u_search -- [torque N m]
//! [iterations] [seed]` (defaults 0.245 3000 1).

#[path = "support/args.rs"]
mod args;

use flotilla_firmware::molemod::lift::LiftLimits;
use flotilla_firmware::molemod::motion::LIFT_ONTO_PATH;
use flotilla_firmware::molemod::unfold::{self, UnfoldScene};

fn main() {
    let args = args::numbers();
    let torque = args.first().copied().unwrap_or(0.245);
    let iterations = args.get(1).copied().unwrap_or(3000.0) as usize;
    let seed = args.get(2).copied().unwrap_or(1.0) as u64;
    let limits = LiftLimits { torque, ..LiftLimits::actuators() };
    let scene = UnfoldScene::task1();
    let end = LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1];
    let [released, withdrawn] = unfold::release(&end);
    for (name, q) in [("released", released), ("withdrawn", withdrawn), ("straight", unfold::STRAIGHT)] {
        println!("{name}: {:?}", unfold::check(&scene, &limits, &q));
    }
    println!("withdrawal phase keeps to the limits both ways: {}", unfold::segment_ok(&scene, &limits, &released, &withdrawn));
    let wall = std::time::Instant::now();
    let Some(found) = unfold::search(&scene, &limits, &withdrawn, &unfold::STRAIGHT, iterations, seed) else {
        println!("no path in {iterations} iterations (seed {seed}, {:.1} s)", wall.elapsed().as_secs_f64());
        return;
    };
    let mut path = vec![end, released];
    path.extend(found);
    println!("{} phases ({:.1} s)", path.len() - 1, wall.elapsed().as_secs_f64());
    for backwards in [false, true] {
        let exempt = |k: usize| if k == 0 { vec![unfold::REAR_HEAD_BLOCK_A] } else { Vec::new() };
        match unfold::walk(&scene, &limits, &path, backwards, 0.001, exempt) {
            Ok(w) => println!(
                "{}: least clearance {:.2} mm ({}), torque {:.3} N m, force {:.2} N, front grip {:.3} N m",
                if backwards { "backwards" } else { "forwards" },
                w.least * 1e3,
                w.worst,
                w.torque,
                w.force,
                w.grip
            ),
            Err(why) => println!("{why}"),
        }
    }
    for q in &path {
        println!("    [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}],", q[0], q[1], q[2], q[3], q[4], q[5]);
    }
}
