//! Shifting a block (SPEC 2, "shifting": the robot in the block to shift expands into the
//! block under the free cell beside it, moves its block there and contracts): the mole in
//! block A, which lies unscrewed on block B, rolls A 90 degrees over the edge shared by B's
//! and C's tops onto C (`Motion::Shift`, the planar model's reach and searched roll).
//! Every figure is taken from the rapier bodies' poses.

use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{Head, MoleMotions, Motion, SHIFT_REAR_GRIP};
use nalgebra::{Point3, Vector3};
use reconfig_planner::lattice::{Cell, Lattice};
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::tunnel_world_options;
use tank_physics::systems::molemod::world::{MoleWorld, LIFT_SOLVER_ITERATIONS};

// Shared support: this test drives the mole itself.
#[allow(dead_code)]
#[path = "support/mole.rs"]
mod mole;
use mole::{axes, committed_model, until_idle};

/// Solver passes per substep for the shift: at the lift's 512 (`LIFT_SOLVER_ITERATIONS`)
/// the roll's lift off stalls 11 mrad into its 61 mrad, with the 0.52 N m joints and with
/// 1.0 N m alike (so not the torque: the joint's push does not converge through the chain
/// of seven bodies and the 250 g block, docs/molemod_execution.md); at 1024 it runs.
const SHIFT_SOLVER_ITERATIONS: usize = 2 * LIFT_SOLVER_ITERATIONS;

/// Task 1's shift (`.0..` over `.##.`): A at (1, 0, 1) on B at (1, 0, 0), C at (2, 0, 0)
/// screwed to B, the target (2, 0, 1) free. The mole lies in A's x tunnel moved forward so
/// its rear head's centre is `SHIFT_REAR_GRIP` from A's centre (at A's centre neither
/// head's centre is inside A: the contracted mole is 112 mm between head centres), A is
/// unscrewed, then `Motion::Shift` runs at [`SHIFT_SOLVER_ITERATIONS`]. Where A ends: distance
/// from the target cell's centre, how far its x axis is from straight down, B and C.
#[test]
#[ignore = "a lift and a shift, 401 s wall at load 3 (2026-11-30); run with scripts/molemod_measure.sh"]
fn a_shift_rolls_the_block_onto_the_free_cell() {
    shift(Head::Front);
}

/// The mirror image: C at (0, 0, 0), the target (0, 0, 1); the mole heads +x as before, but
/// its front head holds A 1 mm inside A's +x face and the rear head leads towards -x
/// (`Motion::Shift { lead: Head::Rear }`). A ends rolled the other way: its x axis up.
#[test]
#[ignore = "the mirror image of the shift, 423 s wall at load 3 (2026-11-30); run with scripts/molemod_measure.sh"]
fn a_shift_with_the_rear_head_leading_rolls_the_block_the_other_way() {
    shift(Head::Rear);
}

/// The shift with `lead` leading, in task 1's scene or its mirror image (see the tests).
fn shift(lead: Head) {
    let wall = std::time::Instant::now();
    // The side C stands on: the way the leading head points.
    let side: f64 = if lead == Head::Front { 1.0 } else { -1.0 };
    let picture = if lead == Head::Front { ".R..\n.##." } else { ".R..\n##.." };
    let lattice = Lattice::from_picture(picture).expect("picture");
    let c_x = if lead == Head::Front { 2 } else { 0 };
    let (a_cell, b_cell, c_cell, target) = (Cell::new(1, 0, 1), Cell::new(1, 0, 0), Cell::new(c_x, 0, 0), Cell::new(c_x, 0, 1));
    assert_eq!(lattice.robots(), &[a_cell], "the robot is in the upper block");
    let mut world =
        MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), BlockOptions::default()).expect("the world builds");
    // The body at A's centre puts each head's centre 56 mm from it; the holding head goes
    // SHIFT_REAR_GRIP from A's centre, on the side away from C.
    world.shift_robot(0, &Vector3::new(side * (SHIFT_REAR_GRIP + 0.056), 0.0, 0.0)).expect("robot 0");
    world.unscrew(&a_cell, &b_cell).expect("A lies screwed on B at the start");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    until_idle(&mut world, &mut firmware, 0.3, |_| {});
    let a0 = world.block_pose(&a_cell).expect("A");
    // The contract's head order: front (0), rear (1).
    let (holding, leading) = if lead == Head::Front { ("head_rear", 0) } else { ("head_front", 1) };
    let held = world.link_pose(holding).expect("link").translation.x - a0.translation.x;
    eprintln!(
        "start ({lead:?} leading): holding head {:.2} mm from A's centre, rear clamped {}, front clamped {}",
        held * 1e3,
        world.head_clamped(1),
        world.head_clamped(0)
    );
    assert!(
        world.head_clamped(1 - leading) && !world.head_clamped(leading),
        "the holding head holds A, the leading one is in the free cell"
    );

    world.set_solver_iterations(SHIFT_SOLVER_ITERATIONS);
    let t0 = world.time();
    firmware.push(Motion::Shift { lead }).expect("valid");
    // Phase by phase: where A is when each ends.
    let mut done = 0;
    while !firmware.idle() && firmware.stuck().is_none() {
        let finished = world.drive("mole", &mut firmware, 60.0, |fw| fw.finished().len() > done || fw.idle(), |_| {}).expect("fits");
        assert!(finished, "no phase ended within 60 s: {}", firmware.status());
        done = firmware.finished().len();
        let a = world.block_pose(&a_cell).expect("A");
        let x = a.rotation * Vector3::x();
        eprintln!(
            "  t {:6.2} s: {} phases done; A at ({:.2}, {:.2}) mm, x axis pitched {:.1} deg; leading head clamped {}",
            world.time() - t0,
            done,
            a.translation.x * 1e3,
            a.translation.z * 1e3,
            x.z.atan2(x.x).to_degrees(),
            world.head_clamped(leading)
        );
    }
    let a = world.block_pose(&a_cell).expect("A");
    let centre = world.cell_centre(&target);
    let off = (a.translation.vector - centre).norm();
    // A's face that looked at C looks down: its x axis down (C at +x) or up (C at -x).
    let tilt = (a.rotation * Vector3::x()).angle(&(-side * Vector3::z()));
    let corners: Vec<f64> = [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)]
        .iter()
        .map(|&(v, w)| (a * Point3::new(0.05 * side, 0.05 * v, 0.05 * w)).z - 0.1)
        .collect();
    let (b_off, c_off) = (world.block_error(&b_cell, &b_cell).expect("B"), world.block_error(&c_cell, &c_cell).expect("C"));
    eprintln!(
        "shift ({lead:?} leading): {} after {:.2} s sim, {:.1} s wall; A {:.2} mm from the target cell's centre ({:+.2}, {:+.2}, {:+.2}) mm, \
         {:.2} deg from rolled, its face towards C at {:.2} to {:.2} mm above C's top; B {:.3} mm and C {:.3} mm from their cells",
        firmware.status(),
        world.time() - t0,
        wall.elapsed().as_secs_f64(),
        off * 1e3,
        (a.translation.x - centre.x) * 1e3,
        (a.translation.y - centre.y) * 1e3,
        (a.translation.z - centre.z) * 1e3,
        tilt.to_degrees(),
        corners.iter().copied().fold(f64::INFINITY, f64::min) * 1e3,
        corners.iter().copied().fold(f64::NEG_INFINITY, f64::max) * 1e3,
        b_off * 1e3,
        c_off * 1e3,
    );
    assert!(firmware.stuck().is_none(), "{}", firmware.status());
    // In the target cell within the executor's 5 mm block tolerance, rolled 90 degrees
    // (within 3 degrees), B and C where they were.
    assert!(off < 5e-3, "A ends {off} m from the target cell's centre");
    assert!(tilt < 3f64.to_radians(), "A's x axis {} deg from rolled", tilt.to_degrees());
    assert!(b_off < 1e-3 && c_off < 1e-3, "B moved {b_off} m, C {c_off} m");
}
