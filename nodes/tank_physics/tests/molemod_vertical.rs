//! Moving up and down a vertical tunnel (issue #18, vertical moves): the mole climbing a
//! column of blocks with the inchworm gait (the head that holds carries the whole mole,
//! 1.96 N, against the prismatic joints' 15 N and the grip clamp's 30 N), turning its head
//! out of the vertical tunnel into an x tunnel at either end of a climb, and turning its
//! head from an x tunnel down into the vertical tunnel.

use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{Head, MoleMotions, Motion};
use flotilla_firmware::molemod::FiveIntervalController;
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use reconfig_planner::lattice::{Cell, Lattice};
use std::f64::consts::FRAC_PI_2;
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::world::{MoleWorld, MoleWorldOptions, LIFT_SOLVER_ITERATIONS};
use tank_physics::systems::molemod::ArticulatedOptions;

#[allow(dead_code)]
#[path = "support/mole.rs"]
mod mole;
use mole::{axes, committed_model};

/// The robot in the column's second block, blocks above it up to the fourth.
const UP_COLUMN: &str = ".#.\n.#.\n.R.\n###";
/// The robot in the column's third block, one block above it and two below.
const DOWN_COLUMN: &str = ".#.\n.R.\n.#.\n###";

/// Solver passes for the turns out of the vertical tunnel (as the turn up in
/// `molemod_tunnels`); the turn down's tilt, which lifts the body and the front half on the
/// rear pitch joint, needs the lift's `LIFT_SOLVER_ITERATIONS` (with 64 it stalls).
const TURN_SOLVER_ITERATIONS: usize = 64;

const LINKS: [&str; 3] = ["head_front", "base_link", "head_rear"];

/// A column of four blocks on a row of three ("`picture`"), the robot turned upright about
/// its block's centre into the block's vertical tunnel: by `turn` (rad) about +y, so -90
/// degrees stands it front head up (the side it lay on, its "floor", then rests against the
/// tunnel's +x wall) and +90 degrees front head down (against the -x wall).
fn upright_in_column(picture: &str, turn: f64) -> (MoleWorld, MoleMotions, Vector3<f64>) {
    let lattice = Lattice::from_picture(picture).expect("picture");
    let options = MoleWorldOptions {
        robot: ArticulatedOptions { edge_radius: 0.004, ..ArticulatedOptions::default() },
        ..MoleWorldOptions::default()
    };
    let mut world = MoleWorld::in_lattice(&committed_model(), &lattice, options, BlockOptions::default()).expect("the world builds");
    let cell = *lattice.robots().first().expect("a robot");
    let centre = world.block_pose(&cell).expect("block").translation.vector;
    let turn: Isometry3<f64> =
        Translation3::from(centre) * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), turn) * Translation3::from(-centre);
    world.move_robot(0, &turn).expect("robot 0");
    let firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    (world, firmware, centre)
}

/// Steps until the firmware is idle (or 60 s); returns the lowest clearance of a main cube
/// against a block seen (m) and the body's height at the end of every phase (m).
fn drive(world: &mut MoleWorld, firmware: &mut MoleMotions, min_s: f64) -> (f64, Vec<f64>) {
    let until = world.time() + min_s;
    let end = world.time() + 60.0;
    let mut closest = f64::INFINITY;
    let mut ends = Vec::new();
    let mut phases = firmware.finished().len();
    while world.time() < end && !(firmware.idle() && world.time() >= until) {
        let reading = world.sensors();
        let command = firmware.step(reading.stamp, &reading);
        if firmware.finished().len() > phases {
            phases = firmware.finished().len();
            ends.push(height(world, "base_link"));
        }
        world.step("mole", &command).expect("the firmware's commands fit the robot");
        for link in LINKS {
            if let Some(d) = world.block_contact(link).expect("link") {
                closest = closest.min(d);
            }
        }
    }
    if firmware.idle() && firmware.finished().len() > phases {
        ends.push(height(world, "base_link"));
    }
    (closest, ends)
}

fn height(world: &MoleWorld, link: &str) -> f64 {
    world.link_pose(link).expect("link").translation.z
}

/// Up one block (four 25 mm iterations of the crawl: the rear head holds the mole while
/// both outer joints expand, the front one while they contract) and back down (the crawl
/// backward): each iteration moves the body by its step within 1 mm, the mole ends within
/// 2 mm of where it started, upright, and the column does not move.
#[test]
fn the_crawl_climbs_a_vertical_tunnel_and_back_down() {
    let (mut world, mut firmware, centre) = upright_in_column(UP_COLUMN, -FRAC_PI_2);
    drive(&mut world, &mut firmware, 0.3);
    assert!(firmware.finished().is_empty());
    let start = height(&world, "base_link");
    let mut closest = f64::INFINITY;
    let mut heights = vec![start];
    let (step, iterations) = (0.025, 4);
    for backward in [false, true] {
        firmware.push(Motion::Crawl { step, iterations, backward }).expect("a valid crawl");
        let (near, ends) = drive(&mut world, &mut firmware, 0.0);
        assert!(firmware.stuck().is_none(), "{}", firmware.status());
        closest = closest.min(near);
        heights.extend(ends);
    }
    assert_eq!(heights.len(), 1 + 2 * iterations as usize, "one height per phase");
    let moved: Vec<f64> = heights.windows(2).map(|w| (w[1] - w[0]) * 1e3).collect();
    let body = world.link_pose("base_link").expect("link");
    let axis = body.rotation * Vector3::x();
    let off_axis = (body.translation.vector - centre).x;
    let worst_block = world.block_offsets().iter().map(|(_, o)| *o).fold(0.0, f64::max);
    let top = heights[iterations as usize];
    eprintln!(
        "climb: body {:.2} mm up after {iterations} x {:.0} mm, back to {:+.2} mm from the start; per iteration (mm): {moved:.2?}; \
         body's axis {:.2} mrad from upright, {:.2} mm off the tunnel's axis; closest cube-block contact {:.3} mm; blocks moved \
         {:.3} mm; {:.1} s sim; front head at {:.1} mm",
        (top - start) * 1e3,
        step * 1e3,
        (heights[heights.len() - 1] - start) * 1e3,
        axis.z.acos() * 1e3,
        off_axis * 1e3,
        closest * 1e3,
        worst_block * 1e3,
        world.time(),
        (world.link_pose("head_front").expect("link") * Point3::origin()).z * 1e3,
    );
    for (k, m) in moved.iter().enumerate() {
        let expected = if k < iterations as usize { step } else { -step } * 1e3;
        assert!((m - expected).abs() < 1.0, "iteration {k} moved the body {m} mm, not {expected}");
    }
    assert!((heights[heights.len() - 1] - start).abs() < 2e-3, "the mole came back {} mm off", (heights[heights.len() - 1] - start) * 1e3);
    assert!(axis.z > (0.05f64).cos(), "the body tilted {} rad from upright", axis.z.acos());
    assert!(closest > -1e-4, "a cube overlapped a block by {} m", -closest);
    assert!(worst_block < 1e-3, "the blocks moved {worst_block} m");
}

/// The turn up, done by the mole standing in a vertical tunnel, is the turn at either end
/// of a climb: in the mole's own frame it lies against one wall and turns its head away
/// from it into the crossing tunnel, whichever way gravity pulls. Front head up ("over":
/// from the vertical tunnel into the x tunnel of the block above, the top of a climb) and
/// front head down (from the vertical tunnel into the x tunnel of the block below, the
/// bottom of a descent): the approach crawls 48 mm along the vertical tunnel, then
/// `TURN_UP_PATH` turns the head level into the x tunnel, 23 mm from the crossing's centre
/// (the 28 mm lever less the 5 mm the mole lies off the vertical tunnel's axis).
#[test]
fn the_turn_up_turns_the_head_out_of_a_vertical_tunnel_at_either_end_of_a_climb() {
    for (name, picture, turn, crossing_cell, side) in [
        ("over, head up", UP_COLUMN, -FRAC_PI_2, Cell::planar(1, 2), -1.0),
        ("at the bottom, head down", DOWN_COLUMN, FRAC_PI_2, Cell::planar(1, 1), 1.0),
    ] {
        let (mut world, mut firmware, _) = upright_in_column(picture, turn);
        drive(&mut world, &mut firmware, 0.3);
        world.set_solver_iterations(TURN_SOLVER_ITERATIONS);
        let crossing = world.block_pose(&crossing_cell).expect("block").translation.vector;
        let t0 = world.time();
        firmware.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }).expect("a valid turn");
        let (closest, _) = drive(&mut world, &mut firmware, 0.0);
        let stuck = firmware.stuck().map(|s| s.to_string());
        let took = world.time() - t0;
        let joint = world.joint_position("universal_0_axis2").expect("joint");
        // Held a second with both heads gripping.
        drive(&mut world, &mut firmware, 1.0);
        let head = world.link_pose("head_front").expect("link");
        let at = head.translation.vector - crossing;
        let axis = head.rotation * Vector3::x();
        let worst_block = world.block_offsets().iter().map(|(_, o)| *o).fold(0.0, f64::max);
        eprintln!(
            "turn {name}: stuck {stuck:?}; pitch joint {joint:.4} rad; head centre {:.2} mm across and {:.2} mm along the vertical \
             tunnel from the crossing's centre, its axis ({:.4}, {:.4}, {:.4}); closest cube-block contact {:.3} mm; blocks moved {:.3} mm; \
             {took:.1} s",
            at.x * 1e3,
            at.z * 1e3,
            axis.x,
            axis.y,
            axis.z,
            closest * 1e3,
            worst_block * 1e3
        );
        assert!(stuck.is_none(), "{name}: {}", firmware.status());
        let dead_band = FiveIntervalController::revolute().accuracy;
        assert!((joint + FRAC_PI_2).abs() < dead_band + 1e-6, "{name}: pitch joint at {joint}");
        // Level, pointing out of the vertical tunnel to `side`, enough to fit the 50 mm x
        // tunnel: 40 (cos d + sin d) < 50.
        let tilt = (axis.x * side).clamp(-1.0, 1.0).acos();
        assert!(0.040 * (tilt.cos() + tilt.sin()) < 0.050, "{name}: head tilted {tilt} rad");
        // Its centre 23 mm out and level with the crossing's centre, within 1 mm.
        assert!((at.x - side * 0.023).abs() < 1e-3 && at.z.abs() < 1e-3, "{name}: head at {at} from the crossing");
        assert!(world.head_clamped(0), "{name}: the head does not grip");
        assert!(closest > -1e-4, "{name}: a cube overlapped a block by {} m", -closest);
        assert!(worst_block < 1e-3, "{name}: the blocks moved {worst_block} m");
    }
}

/// The turn from the x tunnel down into the vertical tunnel (the start of a move down), in
/// the lattice world: the mole lying in block 1 of the upper row of "#R#" over "###", the
/// crossing of block 2 ahead. `TURN_DOWN_PATH` tilts the body up on the rear joint, pitches
/// the head down in the turn up's steps mirrored and lowers the body again; the head ends
/// hanging straight down in the vertical tunnel, gripping there, the body level on the x
/// tunnel's floor.
#[test]
fn a_turn_down_hangs_the_head_down_the_vertical_tunnel() {
    let lattice = Lattice::from_picture("#R#\n###").expect("picture");
    let options = MoleWorldOptions {
        robot: ArticulatedOptions { edge_radius: 0.004, ..ArticulatedOptions::default() },
        ..MoleWorldOptions::default()
    };
    let mut world = MoleWorld::in_lattice(&committed_model(), &lattice, options, BlockOptions::default()).expect("the world builds");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    drive(&mut world, &mut firmware, 0.3);
    world.set_solver_iterations(LIFT_SOLVER_ITERATIONS);
    let crossing = world.block_pose(&Cell::planar(2, 1)).expect("block").translation.vector;
    let t0 = world.time();
    firmware.push(Motion::TurnDown { ahead: 0.1 }).expect("a valid turn");
    let (closest, _) = drive(&mut world, &mut firmware, 0.0);
    let stuck = firmware.stuck().map(|s| s.to_string());
    let took = world.time() - t0;
    drive(&mut world, &mut firmware, 1.0);
    let head = world.link_pose("head_front").expect("link");
    let at = head.translation.vector - crossing;
    let axis = head.rotation * Vector3::x();
    let body = world.link_pose("base_link").expect("link");
    let body_axis = body.rotation * Vector3::x();
    let body_height = body.translation.z - crossing.z;
    let worst_block = world.block_offsets().iter().map(|(_, o)| *o).fold(0.0, f64::max);
    eprintln!(
        "turn down: stuck {stuck:?}; head centre {:.2} mm along and {:.2} mm below the crossing's centre, its axis ({:.4}, {:.4}, \
         {:.4}); body {:.2} mm below the centre, pitched {:.2} mrad; closest cube-block contact {:.3} mm; blocks moved {:.3} mm; \
         {took:.1} s",
        at.x * 1e3,
        -at.z * 1e3,
        axis.x,
        axis.y,
        axis.z,
        -body_height * 1e3,
        body_axis.z.asin() * 1e3,
        closest * 1e3,
        worst_block * 1e3
    );
    assert!(stuck.is_none(), "{}", firmware.status());
    // Straight down within what fits the 50 mm tunnel: 40 (cos d + sin d) < 50.
    let tilt = (-axis.z).clamp(-1.0, 1.0).acos();
    assert!(0.040 * (tilt.cos() + tilt.sin()) < 0.050, "head tilted {tilt} rad");
    // Over the vertical tunnel's axis and 33 mm below the crossing's centre (the 28 mm
    // lever under the front joint, which lies 5 mm below it), within 1 mm.
    assert!(at.x.abs() < 1e-3 && (at.z + 0.033).abs() < 1e-3, "head at {at} from the crossing");
    assert!(world.head_clamped(0), "the head does not grip");
    // The body lies level on the x tunnel's floor again.
    assert!(body_axis.z.abs() < 0.01 && (body_height + 0.005).abs() < 1e-3, "body at {body_height} m, axis {body_axis}");
    assert!(closest > -1e-4, "a cube overlapped a block by {} m", -closest);
    assert!(worst_block < 1e-3, "the blocks moved {worst_block} m");
}

/// Solver passes for the follow: its phases pitch the body and a hanging head about a
/// universal joint against the clamped head at the chain's other end, as the turn down's
/// tilt does.
const FOLLOW_SOLVER_ITERATIONS: usize = LIFT_SOLVER_ITERATIONS;

/// A move up's turns in the physics: the mole lying in block 1 of the bottom row of "#R##",
/// two blocks stacked on blocks 1 and 2; the turn up into block 2's vertical tunnel
/// (`TURN_UP_PATH`, 64 passes), then the body following the head round the crossing
/// (`Motion::Follow`, `FOLLOW_PATH`, 512 passes), then the climb (the crawl, front head up)
/// by one block. The mole ends the follow upright in the vertical tunnel (the model: 3.75 mm
/// off its axis, the heads' centres 108 mm above and 5 mm below the crossing's), and climbs;
/// back down to 100 mm below the top block's crossing, it turns over into that block's x
/// tunnel (the turn up again) and follows its head round that crossing (the same table),
/// ending along the x tunnel. The suite runs the first part (~5 min wall: the turn up, the
/// follow, the climb); the turn over and the follow at the top are
/// [`after_the_climb_the_mole_turns_over_and_follows_round_the_top_crossing`]'s.
#[test]
#[ignore = "over 8 min wall in CI (killed there at 489 s, 2026-11-30), 834 s at load 5; the suite keeps the climb and the turns; run with scripts/molemod_measure.sh"]
fn the_body_follows_the_head_round_the_crossing_and_the_mole_climbs() {
    follow_and_climb();
}

/// [`the_body_follows_the_head_round_the_crossing_and_the_mole_climbs`] continued: back
/// down to 100 mm below the top block's crossing, the turn over into its x tunnel and the
/// follow round that crossing. Two follows at 512 passes take ~11 min wall (683 s at load
/// 1-2), over the suite's 10 min per test, so it runs on demand: `cargo test --release -p
/// tank_physics --no-default-features --test molemod_vertical -- --ignored --nocapture`.
#[test]
#[ignore = "~11 min wall, over the suite's 10 min per test: run with --ignored (docs/molemod_execution.md)"]
fn after_the_climb_the_mole_turns_over_and_follows_round_the_top_crossing() {
    let (world, firmware, crossing) = follow_and_climb();
    let at = |world: &MoleWorld, link: &str| world.link_pose(link).expect("link").translation.vector - crossing;
    turn_over_and_follow_at_the_top(world, firmware, &crossing, at);
}

/// The turn up, the follow and the climb of the move up's test; returns the world, the
/// firmware and the lower crossing's centre.
fn follow_and_climb() -> (MoleWorld, MoleMotions, Vector3<f64>) {
    let lattice = Lattice::from_picture(".##.\n.##.\n#R##").expect("picture");
    let options = MoleWorldOptions {
        robot: ArticulatedOptions { edge_radius: 0.004, ..ArticulatedOptions::default() },
        ..MoleWorldOptions::default()
    };
    let mut world = MoleWorld::in_lattice(&committed_model(), &lattice, options, BlockOptions::default()).expect("the world builds");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    drive(&mut world, &mut firmware, 0.3);
    let crossing = world.block_pose(&Cell::planar(2, 0)).expect("block").translation.vector;
    world.set_solver_iterations(TURN_SOLVER_ITERATIONS);
    firmware.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }).expect("a valid turn");
    let (turn_closest, _) = drive(&mut world, &mut firmware, 0.0);
    assert!(firmware.stuck().is_none(), "turn up: {}", firmware.status());
    world.set_solver_iterations(FOLLOW_SOLVER_ITERATIONS);
    let (t0, wall) = (world.time(), std::time::Instant::now());
    firmware.push(Motion::Follow { lead: Head::Front }).expect("a valid follow");
    let (closest, _) = drive(&mut world, &mut firmware, 0.0);
    let stuck = firmware.stuck().map(|s| s.to_string());
    let (took, wall_s) = (world.time() - t0, wall.elapsed().as_secs_f64());
    drive(&mut world, &mut firmware, 1.0);
    let at = |world: &MoleWorld, link: &str| world.link_pose(link).expect("link").translation.vector - crossing;
    let upright = |world: &MoleWorld, link: &str| (world.link_pose(link).expect("link").rotation * Vector3::x()).z.clamp(-1.0, 1.0).acos();
    let (front, body, rear) = (at(&world, "head_front"), at(&world, "base_link"), at(&world, "head_rear"));
    let tilts = [upright(&world, "head_front"), upright(&world, "base_link"), upright(&world, "head_rear")];
    let worst_block = world.block_offsets().iter().map(|(_, o)| *o).fold(0.0, f64::max);
    eprintln!(
        "follow: stuck {stuck:?}; {took:.1} s sim, {wall_s:.0} s wall; from the crossing's centre (across, up; mm): front head ({:.2}, {:.2}), \
         body ({:.2}, {:.2}), rear head ({:.2}, {:.2}); from upright (mrad): front head {:.2}, body {:.2}, rear head {:.2}; closest cube-block \
         contact {:.3} mm (turn up {:.3}); blocks moved {:.3} mm; heads clamped {} {}",
        front.x * 1e3,
        front.z * 1e3,
        body.x * 1e3,
        body.z * 1e3,
        rear.x * 1e3,
        rear.z * 1e3,
        tilts[0] * 1e3,
        tilts[1] * 1e3,
        tilts[2] * 1e3,
        closest * 1e3,
        turn_closest * 1e3,
        worst_block * 1e3,
        world.head_clamped(0),
        world.head_clamped(1)
    );
    assert!(stuck.is_none(), "{}", firmware.status());
    // Upright in the vertical tunnel: every cube within what fits its 50 mm (40 (cos d +
    // sin d) < 50), within 5 mm of its axis, the rear head at the crossing, the others above.
    for (link, tilt) in ["head_front", "base_link", "head_rear"].iter().zip(tilts) {
        let off = at(&world, link);
        assert!(0.040 * (tilt.cos() + tilt.sin()) < 0.050 && off.x.abs() < 5e-3, "{link}: {tilt} rad, at {off}");
    }
    assert!(rear.z.abs() < 0.01 && body.z > 0.04 && front.z > 0.1, "front {front}, body {body}, rear {rear}");
    assert!(closest > -1e-4, "a cube overlapped a block by {} m", -closest);
    assert!(worst_block < 1e-3, "the blocks moved {worst_block} m");
    // The climb: one block up.
    let start = height(&world, "base_link");
    firmware.push(Motion::Crawl { step: 0.025, iterations: 4, backward: false }).expect("a valid crawl");
    let (_, ends) = drive(&mut world, &mut firmware, 0.0);
    assert!(firmware.stuck().is_none(), "climb: {}", firmware.status());
    let climbed = height(&world, "base_link") - start;
    let moved: Vec<f64> = std::iter::once(start).chain(ends).collect::<Vec<_>>().windows(2).map(|w| (w[1] - w[0]) * 1e3).collect();
    eprintln!(
        "climb after the follow: body {:.2} mm up (per iteration {moved:.2?} mm), its axis {:.2} mrad from upright, {:.2} mm off the axis; blocks moved {:.3} mm",
        climbed * 1e3,
        upright(&world, "base_link") * 1e3,
        at(&world, "base_link").x * 1e3,
        world.block_offsets().iter().map(|(_, o)| *o).fold(0.0, f64::max) * 1e3
    );
    assert!((climbed - 0.1).abs() < 4e-3, "climbed {climbed} m");
    (world, firmware, crossing)
}

/// The turn over at the top and the follow round that crossing, from where
/// [`follow_and_climb`] leaves the mole; `at` gives a link's centre from the lower
/// crossing's.
fn turn_over_and_follow_at_the_top(
    mut world: MoleWorld,
    mut firmware: MoleMotions,
    crossing: &Vector3<f64>,
    at: impl Fn(&MoleWorld, &str) -> Vector3<f64>,
) {
    // The turn over at the top of a move up: back down to 100 mm below the crossing of the
    // top block (its x tunnel open to both sides), then the turn up out of the vertical
    // tunnel, which was measured with the mole lying against the tunnel's wall (5 mm off
    // its axis) and here starts where the follow and the climb leave it.
    let top = world.block_pose(&Cell::planar(2, 2)).expect("block").translation.vector;
    let down = height(&world, "base_link") - (top.z - 0.1);
    firmware.push(Motion::Crawl { step: 0.25 * down, iterations: 4, backward: true }).expect("a valid crawl");
    drive(&mut world, &mut firmware, 0.0);
    assert!(firmware.stuck().is_none(), "down to the turn over: {}", firmware.status());
    let before = at(&world, "base_link");
    world.set_solver_iterations(TURN_SOLVER_ITERATIONS);
    firmware.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }).expect("a valid turn");
    let (over_closest, _) = drive(&mut world, &mut firmware, 0.0);
    let over_stuck = firmware.stuck().map(|s| s.to_string());
    drive(&mut world, &mut firmware, 1.0);
    let head = world.link_pose("head_front").expect("link");
    let (head_at, head_axis) = (head.translation.vector - top, head.rotation * Vector3::x());
    eprintln!(
        "turn over after the follow: body {:.2} mm off the axis, {:.2} mm below the top crossing before it; stuck {over_stuck:?}; head centre \
         {:.2} mm across and {:.2} mm along the vertical tunnel from the top crossing's centre, its axis ({:.4}, {:.4}, {:.4}); closest \
         cube-block contact {:.3} mm; blocks moved {:.3} mm; clamped {}",
        before.x * 1e3,
        (top.z - crossing.z - before.z) * 1e3,
        head_at.x * 1e3,
        head_at.z * 1e3,
        head_axis.x,
        head_axis.y,
        head_axis.z,
        over_closest * 1e3,
        world.block_offsets().iter().map(|(_, o)| *o).fold(0.0, f64::max) * 1e3,
        world.head_clamped(0)
    );
    assert!(over_stuck.is_none(), "{}", firmware.status());
    let tilt = (-head_axis.x).clamp(-1.0, 1.0).acos();
    assert!(0.040 * (tilt.cos() + tilt.sin()) < 0.050 && (head_at.x + 0.023).abs() < 1.5e-3 && head_at.z.abs() < 1e-3, "{head_at}");
    assert!(world.head_clamped(0), "the head does not grip");
    // The follow again, at the top: the crossing seen a quarter turn round (the vertical
    // tunnel below as the x tunnel behind, the x tunnel towards -x as the vertical tunnel
    // above, the wall the mole lies against as the floor), so the same table; gravity pulls
    // along the tunnel the mole lay in.
    world.set_solver_iterations(FOLLOW_SOLVER_ITERATIONS);
    let (t1, wall) = (world.time(), std::time::Instant::now());
    firmware.push(Motion::Follow { lead: Head::Front }).expect("a valid follow");
    let (top_closest, _) = drive(&mut world, &mut firmware, 0.0);
    let top_stuck = firmware.stuck().map(|s| s.to_string());
    let (took, wall_s) = (world.time() - t1, wall.elapsed().as_secs_f64());
    drive(&mut world, &mut firmware, 1.0);
    let from_top = |link: &str| world.link_pose(link).expect("link").translation.vector - top;
    let level = |link: &str| (world.link_pose(link).expect("link").rotation * Vector3::x()).z.asin();
    let (front, body, rear) = (from_top("head_front"), from_top("base_link"), from_top("head_rear"));
    eprintln!(
        "follow at the top: stuck {top_stuck:?}; {took:.1} s sim, {wall_s:.0} s wall; from the top crossing's centre (along, up; mm): front \
         head ({:.2}, {:.2}), body ({:.2}, {:.2}), rear head ({:.2}, {:.2}); pitch (mrad): front head {:.2}, body {:.2}, rear head {:.2}; \
         closest cube-block contact {:.3} mm; blocks moved {:.3} mm; heads clamped {} {}",
        front.x * 1e3,
        front.z * 1e3,
        body.x * 1e3,
        body.z * 1e3,
        rear.x * 1e3,
        rear.z * 1e3,
        level("head_front") * 1e3,
        level("base_link") * 1e3,
        level("head_rear") * 1e3,
        top_closest * 1e3,
        world.block_offsets().iter().map(|(_, o)| *o).fold(0.0, f64::max) * 1e3,
        world.head_clamped(0),
        world.head_clamped(1)
    );
    assert!(top_stuck.is_none(), "{}", firmware.status());
    // Lying along the top block's x tunnel towards -x, level within what fits it, within 5
    // mm of its axis (the model: 3.75 mm up), the rear head at the crossing (the model: 5 mm
    // past it), the body and the front head 52 and 108 mm out within 3 mm (the model's).
    for link in ["head_front", "base_link", "head_rear"] {
        let tilt = level(link).abs();
        assert!(0.040 * (tilt.cos() + tilt.sin()) < 0.050 && from_top(link).z.abs() < 5e-3, "{link}: {tilt} rad, at {}", from_top(link));
    }
    assert!(rear.x.abs() < 0.01 && (body.x + 0.052).abs() < 3e-3 && (front.x + 0.108).abs() < 3e-3, "{front} {body} {rear}");
    assert!(top_closest > -1e-4, "a cube overlapped a block by {} m", -top_closest);
    assert!(world.block_offsets().iter().all(|(_, o)| *o < 1e-3), "the blocks moved");
}
