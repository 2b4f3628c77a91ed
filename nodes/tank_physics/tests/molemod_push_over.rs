//! Pushing a block over from under it (issue #18, task 1's shift after the lift): the mole
//! stands upright in the column of block B and block A (A on B, unscrewed), as
//! `Motion::Follow` leaves it at the top of a climb, 3.75 mm off the column's axis away from
//! block C beside B; it settles 10 mm lower with its heads alternating, then both heads
//! grip and it rolls A a quarter turn over the edge shared by B's and C's tops onto C
//! (`Motion::PushOver`, the planar model's searched path, `molemod::push_over`). Every
//! figure is taken from the rapier bodies' poses.

use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{Head, MoleMotions, Motion};
use flotilla_firmware::molemod::push_over::{FOLLOW_END_REAR, PUSH_OVER_ACROSS};
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

/// Solver passes per substep: the shift from below's 1024 (A carried by the chain).
const SOLVER_ITERATIONS: usize = 2 * LIFT_SOLVER_ITERATIONS;

/// Task 1 after the lift: A at (1, 0, 1) on B at (1, 0, 0) with the robot in B, C at (2, 0,
/// 0), the target (2, 0, 1) free. (A lies upright here; with its two crossed tunnels it is
/// the same solid upside down, as the lift leaves it.)
const PICTURE: &str = ".#..\n.R#.";

/// The mole stood upright in B's column (front head up, turned -90 degrees about +y about
/// B's centre: the side it lay on then faces +x), moved to `PUSH_OVER_ACROSS` from the axis
/// and up until its lower head's centre is 1 mm above where the follow leaves it (the
/// follow's end has `prismatic_2` out 1 mm; here every joint is at zero, so the upper head
/// stands where the follow leaves it, 108 mm above B's crossing); A unscrewed from B; then
/// `Motion::PushOver` at [`SOLVER_ITERATIONS`]. Where A ends: distance from the target
/// cell's centre, how far it is turned from a quarter turn about +y; B and C.
#[test]
fn a_push_over_rolls_the_block_onto_the_free_cell() {
    let wall = std::time::Instant::now();
    eprintln!("load at the start: {}", load_average());
    let lattice = Lattice::from_picture(PICTURE).expect("picture");
    let (a_cell, b_cell, c_cell, target) = (Cell::new(1, 0, 1), Cell::new(1, 0, 0), Cell::new(2, 0, 0), Cell::new(2, 0, 1));
    assert_eq!(lattice.robots(), &[b_cell], "the robot is in B");
    let mut world =
        MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), BlockOptions::default()).expect("the world builds");
    let centre = world.block_pose(&b_cell).expect("B").translation.vector;
    let upright = Translation3::from(centre) * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -FRAC_PI_2) * Translation3::from(-centre);
    world.move_robot(0, &upright).expect("robot 0");
    // Where the upright mole's lower head stands, and how far to move it.
    let lower = world.link_pose("head_rear").expect("link").translation.vector - centre;
    let shift = Translation3::new(PUSH_OVER_ACROSS - lower.x, 0.0, FOLLOW_END_REAR + 0.001 - (lower.z + centre.z));
    world.move_robot(0, &(shift * upright)).expect("robot 0");
    world.unscrew(&a_cell, &b_cell).expect("A lies screwed on B at the start");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    until_idle(&mut world, &mut firmware, 0.3, |_| {});
    let report = |world: &MoleWorld, what: &str| {
        let (rear, front) = (world.link_pose("head_rear").expect("link"), world.link_pose("head_front").expect("link"));
        eprintln!(
            "{what}: lower head ({:+.2}, {:.2}) mm from B's axis / above the floor, upper head ({:+.2}, {:.2}) mm; clamped: upper {} lower {}",
            (rear.translation.x - centre.x) * 1e3,
            rear.translation.z * 1e3,
            (front.translation.x - centre.x) * 1e3,
            front.translation.z * 1e3,
            world.head_clamped(0),
            world.head_clamped(1),
        );
    };
    report(&world, "start (model: -3.75, 46 / 158)");

    world.set_solver_iterations(SOLVER_ITERATIONS);
    let t0 = world.time();
    firmware.push(Motion::PushOver { lead: Head::Front }).expect("valid");
    let mut done = 0;
    while !firmware.idle() && firmware.stuck().is_none() {
        let finished = world.drive("mole", &mut firmware, 60.0, |fw| fw.finished().len() > done || fw.idle(), |_| {}).expect("fits");
        assert!(finished, "no phase ended within 60 s: {}", firmware.status());
        done = firmware.finished().len();
        let a = world.block_pose(&a_cell).expect("A");
        let x = a.rotation * Vector3::x();
        eprintln!(
            "  t {:6.2} s: {done} phases done; A at ({:.2}, {:.2}) mm, x axis pitched {:.1} deg; wall {:.0} s",
            world.time() - t0,
            a.translation.x * 1e3,
            a.translation.z * 1e3,
            x.z.atan2(x.x).to_degrees(),
            wall.elapsed().as_secs_f64()
        );
        if done == 4 {
            report(&world, "settled (model: -3.75, 35 / 150)");
        }
    }
    let a = world.block_pose(&a_cell).expect("A");
    let cell = world.cell_centre(&target);
    let off = (a.translation.vector - cell).norm();
    // A quarter turn about +y takes A's x axis straight down (C at +x).
    let rolled = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), FRAC_PI_2);
    let turn = a.rotation.angle_to(&rolled);
    let (b_off, c_off) = (world.block_error(&b_cell, &b_cell).expect("B"), world.block_error(&c_cell, &c_cell).expect("C"));
    eprintln!(
        "push over: {} after {:.2} s sim, {:.1} s wall; A {:.2} mm from the target cell's centre ({:+.2}, {:+.2}, {:+.2}) mm, {:.2} deg from a \
         quarter turn; B {:.3} mm and C {:.3} mm from their cells",
        firmware.status(),
        world.time() - t0,
        wall.elapsed().as_secs_f64(),
        off * 1e3,
        (a.translation.x - cell.x) * 1e3,
        (a.translation.y - cell.y) * 1e3,
        (a.translation.z - cell.z) * 1e3,
        turn.to_degrees(),
        b_off * 1e3,
        c_off * 1e3,
    );
    report(&world, "end");
    eprintln!("load at the end: {}", load_average());
    assert!(firmware.stuck().is_none(), "{}", firmware.status());
    // In the target cell within the executor's 5 mm block tolerance, turned a quarter turn
    // (within 3 degrees), B and C where they were.
    assert!(off < 5e-3, "A ends {off} m from the target cell's centre");
    assert!(turn < 3f64.to_radians(), "A {} deg from rolled", turn.to_degrees());
    assert!(b_off < 1e-3 && c_off < 1e-3, "B moved {b_off} m, C {c_off} m");
}
