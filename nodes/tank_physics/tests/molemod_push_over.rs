//! Pushing a block over from under it (issue #18, task 1's shift after the lift): the mole
//! stands upright in the column of block B and block A (A on B, unscrewed), as
//! `Motion::Follow` leaves it at the top of a climb, 3.75 mm off the column's axis away from
//! block C beside B; it settles 10 mm lower with its heads alternating, then both heads
//! grip and it rolls A a quarter turn over the edge shared by B's and C's tops onto C
//! (`Motion::PushOver`, the planar model's searched path, `molemod::push_over`). Every
//! figure is taken from the rapier bodies' poses.

use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{Head, MoleMotions, Motion};
use flotilla_firmware::molemod::push_over::{FOLLOW_END_REAR, PUSH_OVER_ACROSS, PUSH_OVER_GRIP, PUSH_OVER_REAR};
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

/// The mirror image: A at (2, 0, 1) on B at (2, 0, 0) with the robot, C at (1, 0, 0), the
/// target (1, 0, 1).
const MIRRORED: &str = "..#.\n.#R.";

/// The mole stood upright in B's column (front head up, turned -90 degrees about +y about
/// B's centre: the side it lay on then faces +x), moved to `PUSH_OVER_ACROSS` from the axis
/// and up until its lower head's centre is 1 mm above where the follow leaves it (the
/// follow's end has `prismatic_2` out 1 mm; here every joint is at zero, so the upper head
/// stands where the follow leaves it, 108 mm above B's crossing); A unscrewed from B; then
/// `Motion::PushOver` at [`SOLVER_ITERATIONS`]. Where A ends: distance from the target
/// cell's centre, how far it is turned from a quarter turn about +y; B and C.
#[test]
fn a_push_over_rolls_the_block_onto_the_free_cell() {
    landed(push_over(Head::Front, PICTURE, BlockOptions::default(), |_| {}));
}

/// Task 1's scene with a block already on top beyond the target, N at (3, 0, 1) on (3, 0,
/// 0), as task 3's last shift lands its block beside the one shifted first: A ends face to
/// face with N, the lattice leaving no gap between neighbours.
const BESIDE: &str = ".#.#\n.R##";

/// N in [`BESIDE`] and the block it stands on.
const NEIGHBOUR: (Cell, Cell) = (Cell { x: 3, y: 0, z: 1 }, Cell { x: 3, y: 0, z: 0 });

#[test]
#[ignore = "task 3's last push over, beside a block already there, 52 s wall; run by hand (docs/molemod_execution.md)"]
fn a_push_over_lands_the_block_beside_one_already_on_top() {
    landed(push_over(Head::Front, BESIDE, BlockOptions::default(), |_| {}));
}

/// N leaning 8 mrad into A's target cell and screwed so (turned about its bottom edge beside
/// A's target, its top edge 0.8 mm into that cell), as the blocks a push over lands stand in
/// task 3's chain (6-9 mrad turned): A's roll stands still short of its hold, the upper head
/// slides while the roll goes on (the land), N pushes A back along it, and A is set down
/// beside N.
#[test]
#[ignore = "task 3's last push over beside a leaning block, ~1 min wall; run by hand (docs/molemod_execution.md)"]
fn a_push_over_lands_the_block_beside_one_leaning_into_its_cell() {
    landed(push_over(Head::Front, BESIDE, BlockOptions::default(), |world| {
        let edge = world.cell_centre(&NEIGHBOUR.0) + Vector3::new(-0.05, 0.0, -0.05);
        let lean = Translation3::from(edge) * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -0.008) * Translation3::from(-edge);
        move_neighbour(world, &lean, true);
    }));
}

/// N standing 0.8 mm into A's target cell (unscrewed, resting there): A's roll stands still
/// with A 2.7 degrees short of its turn, the land does not turn it further (A is wedged
/// between N and the block under it), and A is set down beside N tilted (measured: 3.96 mm
/// from its cell, 2.80 degrees from a quarter turn; docs/molemod_execution.md, "Landing
/// beside a block"). Before the land the robot stopped here, 42.8 mrad short.
#[test]
#[ignore = "a block standing into the target, the push over's land at its worst, 120 s wall; run by hand (docs/molemod_execution.md)"]
fn a_block_standing_into_the_target_cell_is_landed_beside_within_the_tolerance() {
    landed(push_over(Head::Front, BESIDE, BlockOptions::default(), standing_into));
}

/// The same at printed plastic's friction between the blocks (0.3, `BlockOptions::
/// block_friction`): the roll reaches its hold, N giving way, and A lands square (measured
/// 2026-12-03: 0.32 mm from its cell, 0.15 deg from a quarter turn, against 3.96 mm and
/// 2.80 deg at 1.0).
#[test]
#[ignore = "a block standing into the target at printed plastic's friction, 75 s wall; run by hand (docs/molemod_execution.md)"]
fn at_printed_plastic_friction_a_block_standing_into_the_target_cell_is_landed_square() {
    let (off, turn) =
        landed(push_over(Head::Front, BESIDE, BlockOptions { block_friction: 0.3, ..BlockOptions::default() }, standing_into));
    assert!(off < 1e-3 && turn < 0.5f64.to_radians(), "A {off} m from its cell, {turn} rad from a quarter turn");
}

/// N 0.8 mm into A's target cell, unscrewed, resting there.
fn standing_into(world: &mut MoleWorld) {
    move_neighbour(world, &Isometry3::from(Translation3::new(-0.0008, 0.0, 0.0)), false);
}

/// A's offset and turn where the push over landed it; a stop fails the test with its report.
fn landed(outcome: Result<(f64, f64), String>) -> (f64, f64) {
    outcome.unwrap_or_else(|report| panic!("the robot stopped: {report}"))
}

/// Unscrews N from the block under it, moves it rigidly by `by` (world frame) and, if
/// `screw_back`, screws it there again.
fn move_neighbour(world: &mut MoleWorld, by: &Isometry3<f64>, screw_back: bool) {
    let (n, under) = NEIGHBOUR;
    world.unscrew(&n, &under).expect("N stands screwed on its block");
    world.move_block(&n, by).expect("N");
    if screw_back {
        world.screw(&n, &under).expect("N on its block");
    }
}

/// The mirror image: C on B's -x side, the mole stood up rear head up (turned +90 degrees),
/// 3.75 mm to +x of the axis (away from C), `Motion::PushOver { lead: Head::Rear }`: A ends
/// turned a quarter turn about -y.
#[test]
#[ignore = "the mirror image of the suite's push over, 122 s wall at load 3 (2026-11-30); run with scripts/molemod_measure.sh"]
fn a_push_over_with_the_rear_head_on_top_rolls_the_block_the_other_way() {
    landed(push_over(Head::Rear, MIRRORED, BlockOptions::default(), |_| {}));
}

/// The push over with `lead` on top in `picture` (task 1's scene, its mirror image, or
/// either with more blocks beside) of `blocks`, after `prepare` has set the scene's blocks:
/// once A is checked in its target cell, how far A is from the cell's centre (m) and from a
/// quarter turn (rad); the firmware's report if the robot stopped.
fn push_over(lead: Head, picture: &str, blocks: BlockOptions, prepare: impl FnOnce(&mut MoleWorld)) -> Result<(f64, f64), String> {
    let wall = std::time::Instant::now();
    eprintln!("load at the start: {}", load_average());
    // The side C stands on from B, +1 along x with the front head on top.
    let side: f64 = if lead == Head::Front { 1.0 } else { -1.0 };
    let lattice = Lattice::from_picture(picture).expect("picture");
    let (b_x, c_x) = if lead == Head::Front { (1, 2) } else { (2, 1) };
    let (a_cell, b_cell, c_cell, target) = (Cell::new(b_x, 0, 1), Cell::new(b_x, 0, 0), Cell::new(c_x, 0, 0), Cell::new(c_x, 0, 1));
    assert_eq!(lattice.robots(), &[b_cell], "the robot is in B");
    let mut world = MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), blocks).expect("the world builds");
    let centre = world.block_pose(&b_cell).expect("B").translation.vector;
    let upright =
        Translation3::from(centre) * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -side * FRAC_PI_2) * Translation3::from(-centre);
    world.move_robot(0, &upright).expect("robot 0");
    // Where the upright mole's lower head stands, and how far to move it.
    // The contract's head order: front (0), rear (1); the upper head and the lower one.
    let (upper, lower_head) =
        if lead == Head::Front { ((0, "head_front"), (1, "head_rear")) } else { ((1, "head_rear"), (0, "head_front")) };
    let lower = world.link_pose(lower_head.1).expect("link").translation.vector - centre;
    let shift = Translation3::new(side * PUSH_OVER_ACROSS - lower.x, 0.0, FOLLOW_END_REAR + 0.001 - (lower.z + centre.z));
    world.move_robot(0, &Isometry3::from(shift)).expect("robot 0");
    world.unscrew(&a_cell, &b_cell).expect("A lies screwed on B at the start");
    prepare(&mut world);
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    until_idle(&mut world, &mut firmware, 0.3, |_| {});
    let report = |world: &MoleWorld, what: &str| {
        let (rear, front) = (world.link_pose(lower_head.1).expect("link"), world.link_pose(upper.1).expect("link"));
        eprintln!(
            "{what} ({lead:?} on top): lower head ({:+.2}, {:.2}) mm from B's axis towards C / above the floor, upper head ({:+.2}, {:.2}) mm; \
             clamped: upper {} lower {}",
            side * (rear.translation.x - centre.x) * 1e3,
            rear.translation.z * 1e3,
            side * (front.translation.x - centre.x) * 1e3,
            front.translation.z * 1e3,
            world.head_clamped(upper.0),
            world.head_clamped(lower_head.0),
        );
    };
    report(&world, "start (model: -3.75, 46 / 158)");

    world.set_solver_iterations(SOLVER_ITERATIONS);
    let t0 = world.time();
    firmware.push(Motion::PushOver { lead, flipped: false }).expect("valid");
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
            // The settle leaves the heads where the stored path starts (within 0.5 mm).
            let (l, u) = (world.link_pose(lower_head.1).expect("link"), world.link_pose(upper.1).expect("link"));
            assert!((l.translation.z - PUSH_OVER_REAR).abs() < 5e-4, "lower head {} m up", l.translation.z);
            assert!((u.translation.z - (0.1 + PUSH_OVER_GRIP)).abs() < 5e-4, "upper head {} m up", u.translation.z);
        }
    }
    let a = world.block_pose(&a_cell).expect("A");
    let cell = world.cell_centre(&target);
    let off = (a.translation.vector - cell).norm();
    // A quarter turn about +y takes A's x axis straight down (C at +x), about -y up.
    let rolled = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), side * FRAC_PI_2);
    let turn = a.rotation.angle_to(&rolled);
    let (b_off, c_off) = (world.block_error(&b_cell, &b_cell).expect("B"), world.block_error(&c_cell, &c_cell).expect("C"));
    eprintln!(
        "push over ({lead:?} on top): {} after {:.2} s sim, {:.1} s wall; A {:.2} mm from the target cell's centre ({:+.2}, {:+.2}, {:+.2}) mm, {:.2} deg from a \
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
    for (home, off) in world.block_offsets() {
        eprintln!("  block from {home}: {:.3} mm from its cell", off * 1e3);
    }
    eprintln!("load at the end: {}", load_average());
    if firmware.stuck().is_some() {
        return Err(firmware.status());
    }
    // In the target cell within the executor's 5 mm block tolerance, turned a quarter turn
    // (within 3 degrees), B and C where they were.
    assert!(off < 5e-3, "A ends {off} m from the target cell's centre");
    assert!(turn < 3f64.to_radians(), "A {} deg from rolled", turn.to_degrees());
    assert!(b_off < 1e-3 && c_off < 1e-3, "B moved {b_off} m, C {c_off} m");
    Ok((off, turn))
}
