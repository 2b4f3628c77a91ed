//! The planar model of the step between B's x tunnel and the floor of the empty cell
//! (`flotilla_firmware::molemod::step`): builds the step's phases from the straight mole
//! `LEAVE_U_PATH` ends in to the mole lying in the tunnels of B and C, walks them forwards
//! and backwards as the firmware runs them, prints the table, the least clearances, the
//! static loads and the rear head's floor hold.
//! `cargo run --release -p flotilla_firmware --example molemod_step_search`.

use flotilla_firmware::molemod::step;
use flotilla_firmware::molemod::unfold::{self, UnfoldScene};

fn main() {
    let scene = UnfoldScene::task1();
    let phases = step::step_in_phases(&scene);
    let mut at = scene.front.x;
    let mut before = unfold::STRAIGHT;
    for p in &phases {
        if p.hold == step::Hold::Rear {
            at = step::front_at(at, &before, &p.to);
        }
        let q = p.to;
        let c = flotilla_firmware::molemod::lift::chain_from(flotilla_firmware::molemod::lift::Pose { x: at, ..scene.front }, 0.0, &q);
        println!(
            "    [{:.5}, {:.4}, {:.5}, {:.5}, {:.4}, {:.5}], {:?}: front ({:.1}, {:.1}) body ({:.1}, {:.1}) rear ({:.1}, {:.1}) mm, rear angle {:.3}",
            q[0], q[1], q[2], q[3], q[4], q[5], p.hold,
            c.front.x * 1e3, c.front.z * 1e3, c.body.x * 1e3, c.body.z * 1e3, c.rear.x * 1e3, c.rear.z * 1e3, c.rear.angle
        );
        before = q;
        println!("        {:?}", q);
    }
    for backwards in [false, true] {
        let w = step::walk(&scene, &phases, backwards, 0.001);
        println!("{}: {w:?}", if backwards { "backwards" } else { "forwards" });
    }
}
