//! The pass through a lone block (`Motion::Pass`, the planar model
//! `flotilla_firmware::molemod::pass`; task 3's put down onward right after a lift), then
//! entering the U on the far side and the put down there (`Motion::EnterU` and
//! `Motion::PutDown`, mirrored). Every figure is taken from the rapier bodies' poses.
//!
//! Measured (docs/molemod_execution.md, "Passing through a lone block" and "Entering the U
//! and putting A down after the pass"): the pass runs and the mirrored `EnterU` after it
//! ends (its press bears on A's tunnel); the put down after it stalls in its close, so the
//! test of the whole chain is `#[ignore]`d (it runs with `-- --ignored` and shows where it
//! breaks). The pass alone takes ~5 minutes of wall time, so it is a measurement too
//! (`scripts/molemod_measure.sh`); the planar model's pass is unit-tested in the firmware.

use std::time::Instant;

use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{Head, MoleMotions, Motion};
use nalgebra::{Isometry3, Point3, Vector3};
use reconfig_planner::lattice::{Cell, Lattice};
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::tunnel_world_options;
use tank_physics::systems::molemod::world::{MoleWorld, LIFT_SOLVER_ITERATIONS};

// Shared support: this test drives the mole itself.
#[allow(dead_code)]
#[path = "support/mole.rs"]
mod mole;
use mole::{axes, committed_model, cubes, load_average, run_phases as run, until_idle};

/// Prints every joint, each main cube's pose and closest contact with a block, and the front
/// head's pose in A's frame.
fn describe(world: &MoleWorld, a: &Cell) {
    let names: Vec<String> = axes(world).into_iter().map(|s| s.name).collect();
    let q = world.sensors().joint_positions;
    for (n, v) in names.iter().zip(&q) {
        eprint!("{n} {:.5}; ", v);
    }
    eprintln!();
    for link in ["head_front", "base_link", "head_rear"] {
        let p = world.link_pose(link).expect("link");
        let (r, pi, y) = p.rotation.euler_angles();
        eprintln!(
            "  {link}: ({:.2}, {:.2}, {:.2}) mm, roll {:.2} pitch {:.2} yaw {:.2} mrad, contact {:?}",
            p.translation.x * 1e3,
            p.translation.y * 1e3,
            p.translation.z * 1e3,
            r * 1e3,
            pi * 1e3,
            y * 1e3,
            world.block_contact(link).expect("link").map(|d| d * 1e3)
        );
    }
    let pa = world.block_pose(a).expect("A");
    let h = pa.inverse() * world.link_pose("head_front").expect("link");
    let (r, pi, y) = h.rotation.euler_angles();
    eprintln!(
        "  front head in A: ({:.2}, {:.2}, {:.2}) mm, roll {:.2} pitch {:.2} yaw {:.2} mrad; A at ({:.3}, {:.3}, {:.3}) mm",
        h.translation.x * 1e3,
        h.translation.y * 1e3,
        h.translation.z * 1e3,
        r * 1e3,
        pi * 1e3,
        y * 1e3,
        pa.translation.x * 1e3,
        pa.translation.y * 1e3,
        pa.translation.z * 1e3
    );
}

/// A lone block B at x = 100 mm with A on it (drawn as a block on B: the same solid; screwed
/// to B, as the executor leaves it after a lift), the cells on both sides of B empty; the
/// robot starts lying in a spare block at x = 600 mm, out of the way, and is moved from
/// there.
const PICTURE: &str = ".#.....\n.#....R";

/// The x tunnel's axis height where the mole lies, m.
const LYING: f64 = 0.045;

/// (x, y, z) of the front head, the body and the rear head, mm.
fn places(world: &MoleWorld) -> [(f64, f64, f64); 3] {
    ["head_front", "base_link", "head_rear"].map(|link| {
        let p = world.link_pose(link).expect("link").translation;
        (p.x * 1e3, p.y * 1e3, p.z * 1e3)
    })
}

/// The world with the mole moved from its spare block to where `Motion::LeaveU` leaves it
/// (straight along B's tunnel at the tunnel's height, every joint at zero, the front head
/// 18 mm from B's centre towards the empty cell behind and clamped there), then
/// `Motion::Pass` at the lift's solver passes. Checks that no phase sticks, A and B stay
/// (0.5 mm) and the mole ends straight at the tunnel's height (every cube within 2 mm of it
/// and 10 mrad of level) with the rear head 18 mm from B's centre towards the far cell
/// (within 3 mm) and clamped in B: where `Motion::EnterU { lead: Head::Rear }` starts.
fn pass_through(cells: &[Cell; 2]) -> (MoleWorld, MoleMotions) {
    eprintln!("load at the start: {}", load_average());
    let lattice = Lattice::from_picture(PICTURE).expect("picture");
    let mut world =
        MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), BlockOptions::default()).expect("the world builds");
    let front = world.link_pose("head_front").expect("link").translation.x;
    world.move_robot(0, &Isometry3::translation(0.082 - front, 0.0, 0.0)).expect("robot 0");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    until_idle(&mut world, &mut firmware, 0.3, |_| {});
    let start = cubes(&world);
    eprintln!(
        "start: front head, body, rear head at (x, y, z) {:.2?} mm, pitch {:.2?} mrad; front clamped {}, rear clamped {}",
        places(&world),
        start.map(|(_, _, p)| p * 1e3),
        world.head_clamped(0),
        world.head_clamped(1)
    );
    world.set_solver_iterations(LIFT_SOLVER_ITERATIONS);
    let (moved, _, _) = run(&mut world, &mut firmware, Motion::Pass { lead: Head::Front }, cells);
    let out = cubes(&world);
    eprintln!("after the pass: front head, body, rear head at (x, y, z) {:.2?} mm", places(&world));
    assert!(moved.iter().all(|&m| m < 5e-4), "blocks moved {moved:?} m");
    assert!((out[2].0 - 0.118).abs() < 3e-3 && world.head_clamped(1), "{out:?}");
    assert!(out.iter().all(|&(_, z, p)| (z - LYING).abs() < 2e-3 && p.abs() < 1e-2), "{out:?}");
    (world, firmware)
}

/// [`pass_through`]: the pass alone.
#[test]
#[ignore = "310 s wall at load 3 (2026-11-30), over the suite's share for one chain; run with scripts/molemod_measure.sh"]
fn passing_through_a_lone_block_from_where_leaving_the_u_ends_to_its_far_side() {
    let wall = Instant::now();
    let (world, _) = pass_through(&[Cell::new(1, 0, 1), Cell::new(1, 0, 0)]);
    eprintln!(
        "B {:.4} mm from its cell; {:.1} s wall in all; load average {}",
        world.block_error(&Cell::new(1, 0, 0), &Cell::new(1, 0, 0)).expect("B") * 1e3,
        wall.elapsed().as_secs_f64(),
        load_average()
    );
}

/// [`pass_through`], then `Motion::EnterU { lead: Head::Rear }` and, A unscrewed from B,
/// `Motion::PutDown { lead: Head::Rear }`: entering the U leaves the front head clamped in A,
/// and the put down sets A on the far cell's floor within the executor's 5 mm of its centre
/// and 3 degrees of upright, B within 1 mm of its cell.
#[test]
#[ignore = "fails today (17 min wall under load): EnterU now ends after the pass, the put down after it does not (its close \
            stalls 1.33 mm short): docs/molemod_execution.md, Entering the U and putting A down after the pass; run with \
            cargo test --release -p tank_physics --no-default-features --test molemod_pass -- --ignored --nocapture"]
fn passing_through_a_lone_block_then_putting_a_down_beyond_it() {
    let wall = Instant::now();
    let (a, b, far) = (Cell::new(1, 0, 1), Cell::new(1, 0, 0), Cell::new(2, 0, 0));
    let (mut world, mut firmware) = pass_through(&[a, b]);
    enter_and_put_down(&mut world, &mut firmware, [a, b, far]);
    eprintln!("{:.1} s wall in all; load average {}", wall.elapsed().as_secs_f64(), load_average());
}

/// `Motion::EnterU { lead: Head::Rear }` from the mole straight along B's tunnel with its rear
/// head clamped in B (A screwed to B), then, A unscrewed, `Motion::PutDown { lead:
/// Head::Rear }` (cells: A, B, the far cell): checks that no phase sticks, the front head
/// holds A after entering the U, and the put down sets A on the far cell's floor within the
/// executor's 5 mm of its centre and 3 degrees of upright, B within 1 mm of its cell.
fn enter_and_put_down(world: &mut MoleWorld, firmware: &mut MoleMotions, [a, b, far]: [Cell; 3]) {
    let a0 = world.block_pose(&a).expect("A");
    let (t0, entering) = (world.time(), Instant::now());
    firmware.push(Motion::EnterU { lead: Head::Rear }).expect("valid");
    until_idle(world, firmware, 0.0, |_| {});
    let a1 = world.block_pose(&a).expect("A");
    let grip = a1.inverse_transform_point(&Point3::from(world.link_pose("head_front").expect("link").translation.vector));
    eprintln!(
        "enter the U, rear head leading: {} after {:.2} s sim, {:.1} s wall; A moved {:.4} mm; front head clamped {}, at ({:.2}, {:.2}, {:.2}) mm in A's frame",
        firmware.status(),
        world.time() - t0,
        entering.elapsed().as_secs_f64(),
        (a1.translation.vector - a0.translation.vector).norm() * 1e3,
        world.head_clamped(0),
        grip.x * 1e3,
        grip.y * 1e3,
        grip.z * 1e3
    );
    describe(world, &a);
    assert!(firmware.stuck().is_none(), "{}", firmware.status());
    assert!(world.head_clamped(0), "the front head does not hold A");
    world.unscrew(&a, &b).expect("A starts screwed to B");
    let (t1, putting) = (world.time(), Instant::now());
    firmware.push(Motion::PutDown { lead: Head::Rear }).expect("valid");
    until_idle(world, firmware, 0.0, |_| {});
    assert!(firmware.stuck().is_none(), "{}", firmware.status());
    let pose = world.block_pose(&a).expect("A");
    let off = pose.translation.vector - world.cell_centre(&far);
    let tilt = (pose.rotation * Vector3::z()).angle(&Vector3::z()).to_degrees();
    let corners: Vec<f64> = [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)]
        .iter()
        .map(|&(u, v)| (pose * Point3::new(0.05 * u, 0.05 * v, -0.05)).z)
        .collect();
    let b_off = world.block_error(&b, &b).expect("B");
    eprintln!(
        "put down, rear head leading: {} after {:.2} s sim, {:.1} s wall; A {:.2} mm from the far cell's centre ({:+.2}, {:+.2}, {:+.2}) mm, \
         its z axis {:.2} deg from up, bottom corners {:.2} to {:.2} mm above the floor; B {:.3} mm from its cell; load average {}",
        firmware.status(),
        world.time() - t1,
        putting.elapsed().as_secs_f64(),
        off.norm() * 1e3,
        off.x * 1e3,
        off.y * 1e3,
        off.z * 1e3,
        tilt,
        corners.iter().copied().fold(f64::INFINITY, f64::min) * 1e3,
        corners.iter().copied().fold(f64::NEG_INFINITY, f64::max) * 1e3,
        b_off * 1e3,
        load_average()
    );
    assert!(off.norm() < 5e-3, "A ends {} m from the far cell's centre", off.norm());
    assert!(tilt < 3.0, "A's z axis {tilt} deg from up");
    assert!(b_off < 1e-3, "B moved {b_off} m");
}
