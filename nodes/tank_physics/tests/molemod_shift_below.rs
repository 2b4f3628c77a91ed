//! Shifting a block from below (issue #18, task 1's shift after the lift): the mole stands
//! upright in the vertical tunnel of block C beside block B, on which block A lies
//! unscrewed; its upper head reaches into A's mouth facing C, grips, and the mole rolls A a
//! quarter turn over the edge shared by B's and C's tops onto C (`Motion::ShiftBelow`, the
//! planar model's searched paths, `molemod::shift_below`). Every figure is taken from the
//! rapier bodies' poses.

use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{Head, MoleMotions, Motion};
use flotilla_firmware::molemod::shift_below::SHIFT_BELOW_ACROSS;
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use reconfig_planner::lattice::{Cell, Lattice};
use std::f64::consts::FRAC_PI_2;
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::tunnel_world_options;
use tank_physics::systems::molemod::world::{MoleWorld, LIFT_SOLVER_ITERATIONS};

// Shared support: this test drives the mole itself.
#[allow(dead_code)]
#[path = "support/mole.rs"]
mod mole;
use mole::{axes, committed_model, load_average, until_idle};

/// Solver passes per substep: the stored shift's 1024 (at the lift's 512 its lift off
/// stalls; docs/molemod_execution.md, "Shifting a block").
const SOLVER_ITERATIONS: usize = 2 * LIFT_SOLVER_ITERATIONS;

/// Task 1 after the lift: A at (1, 0, 1) on B at (1, 0, 0), C at (2, 0, 0) with the robot in
/// it, the target (2, 0, 1) free. (A lies upright here; with its two crossed tunnels it is
/// the same solid upside down, as the lift leaves it.)
const PICTURE: &str = ".#..\n.#R.";

/// The mirror image: A at (2, 0, 1) on B at (2, 0, 0), C at (1, 0, 0) with the robot, the
/// target (1, 0, 1).
const MIRRORED: &str = "..#.\n.R#.";

/// The mole stood upright in C's vertical tunnel (front head up, turned -90 degrees about
/// +y about C's centre: the side it lay on then rests against the tunnel's +x wall,
/// `SHIFT_BELOW_ACROSS` from its axis, away from B), raised until its lower head's centre
/// is 20 mm up (resting on the floor), A unscrewed from B; then `Motion::ShiftBelow` at
/// [`SOLVER_ITERATIONS`]. Where A ends: distance from the target cell's centre, how far it
/// is turned from a quarter turn about +y; B and C.
#[test]
#[ignore = "over 3 min wall at load 3-4 (2026-11-30); the executor's shift is the push over, which the suite runs; run with scripts/molemod_measure.sh"]
fn a_shift_from_below_rolls_the_block_onto_the_free_cell() {
    shift_below(Head::Front);
}

/// The mirror image: C on B's -x side, the mole stood up front head down (turned +90
/// degrees: against the -x wall, away from B), `Motion::ShiftBelow { lead: Head::Rear }`:
/// the rear head reaches into A. A ends turned a quarter turn about -y (its x axis up).
#[test]
#[ignore = "the mirror image of the shift from below, minutes of wall time; run with scripts/molemod_measure.sh"]
fn a_shift_from_below_with_the_rear_head_leading_rolls_the_block_the_other_way() {
    shift_below(Head::Rear);
}

/// The shift from below with `lead` reaching into A, in task 1's scene or its mirror image.
fn shift_below(lead: Head) {
    let wall = std::time::Instant::now();
    eprintln!("load at the start: {}", load_average());
    // The side C stands on from B, +1 along x with the front head leading.
    let side: f64 = if lead == Head::Front { 1.0 } else { -1.0 };
    let lattice = Lattice::from_picture(if lead == Head::Front { PICTURE } else { MIRRORED }).expect("picture");
    let (b_x, c_x) = if lead == Head::Front { (1, 2) } else { (2, 1) };
    let (a_cell, b_cell, c_cell, target) = (Cell::new(b_x, 0, 1), Cell::new(b_x, 0, 0), Cell::new(c_x, 0, 0), Cell::new(c_x, 0, 1));
    assert_eq!(lattice.robots(), &[c_cell], "the robot is in C");
    let mut world =
        MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), BlockOptions::default()).expect("the world builds");
    let centre = world.block_pose(&c_cell).expect("C").translation.vector;
    // Turned about C's centre the lower head's centre is 6 mm below the floor: up 26 mm.
    let stand: Isometry3<f64> = Translation3::new(0.0, 0.0, 0.026)
        * Translation3::from(centre)
        * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -side * FRAC_PI_2)
        * Translation3::from(-centre);
    world.move_robot(0, &stand).expect("robot 0");
    world.unscrew(&a_cell, &b_cell).expect("A lies screwed on B at the start");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    until_idle(&mut world, &mut firmware, 0.3, |_| {});
    // The contract's head order: front (0), rear (1); the reaching head and the lower one.
    let (reaching, lower) = if lead == Head::Front { ((0, "head_front"), (1, "head_rear")) } else { ((1, "head_rear"), (0, "head_front")) };
    let (rear, front) = (world.link_pose(lower.1).expect("link"), world.link_pose(reaching.1).expect("link"));
    eprintln!(
        "start ({lead:?} leading): lower head at ({:+.2}, {:.2}) mm from C's axis (away from B) / the floor, reaching head at ({:+.2}, {:.2}) mm \
         (model: {:+.1}, 20 / 132)",
        side * (rear.translation.x - centre.x) * 1e3,
        rear.translation.z * 1e3,
        side * (front.translation.x - centre.x) * 1e3,
        front.translation.z * 1e3,
        SHIFT_BELOW_ACROSS * 1e3
    );

    world.set_solver_iterations(SOLVER_ITERATIONS);
    let t0 = world.time();
    firmware.push(Motion::ShiftBelow { lead }).expect("valid");
    let mut done = 0;
    while !firmware.idle() && firmware.stuck().is_none() {
        let finished = world.drive("mole", &mut firmware, 60.0, |fw| fw.finished().len() > done || fw.idle(), |_| {}).expect("fits");
        assert!(finished, "no phase ended within 60 s: {}", firmware.status());
        done = firmware.finished().len();
        let a = world.block_pose(&a_cell).expect("A");
        let x = a.rotation * Vector3::x();
        let head = world.link_pose(reaching.1).expect("link").translation.vector - a.translation.vector;
        eprintln!(
            "  t {:6.2} s: {done} phases done; A at ({:.2}, {:.2}) mm, x axis pitched {:.1} deg; reaching head {:+.1}, {:+.1} mm from A's centre, \
             clamped: reaching {} lower {}; wall {:.0} s",
            world.time() - t0,
            a.translation.x * 1e3,
            a.translation.z * 1e3,
            x.z.atan2(x.x).to_degrees(),
            head.x * 1e3,
            head.z * 1e3,
            world.head_clamped(reaching.0),
            world.head_clamped(lower.0),
            wall.elapsed().as_secs_f64()
        );
    }
    let a = world.block_pose(&a_cell).expect("A");
    let cell = world.cell_centre(&target);
    let off = (a.translation.vector - cell).norm();
    // A quarter turn about +y takes A's x axis straight down (C at +x), about -y up.
    let rolled = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), side * FRAC_PI_2);
    let turn = a.rotation.angle_to(&rolled);
    let tilt = (a.rotation * Vector3::x()).angle(&(-side * Vector3::z()));
    let (b_off, c_off) = (world.block_error(&b_cell, &b_cell).expect("B"), world.block_error(&c_cell, &c_cell).expect("C"));
    eprintln!(
        "shift from below ({lead:?} leading): {} after {:.2} s sim, {:.1} s wall; A {:.2} mm from the target cell's centre ({:+.2}, {:+.2}, {:+.2}) mm, \
         {:.2} deg from a quarter turn (x axis {:.2} deg from rolled); B {:.3} mm and C {:.3} mm from their cells",
        firmware.status(),
        world.time() - t0,
        wall.elapsed().as_secs_f64(),
        off * 1e3,
        (a.translation.x - cell.x) * 1e3,
        (a.translation.y - cell.y) * 1e3,
        (a.translation.z - cell.z) * 1e3,
        turn.to_degrees(),
        tilt.to_degrees(),
        b_off * 1e3,
        c_off * 1e3,
    );
    eprintln!("load at the end: {}", load_average());
    assert!(firmware.stuck().is_none(), "{}", firmware.status());
    // In the target cell within the executor's 5 mm block tolerance, turned a quarter turn
    // (within 3 degrees), B and C where they were.
    assert!(off < 5e-3, "A ends {off} m from the target cell's centre");
    assert!(turn < 3f64.to_radians(), "A {} deg from rolled", turn.to_degrees());
    assert!(b_off < 1e-3 && c_off < 1e-3, "B moved {b_off} m, C {c_off} m");
}
