//! Task 1's shift after the lift as one chain in the physics (issue #18): A upside down on B
//! (the same solid as upright), C on the floor beside B (+x), the mole lying in B's x tunnel
//! where the world's start placement puts it. The mole turns its head up into C's vertical
//! tunnel (`Motion::TurnUp`, whose approach crawls it to C's crossing), the body follows
//! round the crossing (`Motion::Follow`), the mole climbs down onto C's floor (the crawl
//! backward, upright: the join), A is unscrewed from B as the executor does when a carrying
//! motion starts, and the mole rolls A onto C from below (`Motion::ShiftBelow`). Every
//! motion runs at the solver passes its own test used. Figures from the rapier bodies' poses.
//!
//! Measured (docs/molemod_execution.md, "The shift as a chain"): in task 1's scene the chain
//! stops in the follow, whose front head holds above C where no block is (the whole chain is
//! therefore `#[ignore]`d); the second test starts where the follow's own test leaves the
//! mole, and its join is a drop onto C's floor, not a climb (no head above C can hold): a
//! measurement, `#[ignore]`d as well. Both run with `-- --ignored`.
//!
//! The third test is the shift done from the B/A column instead ("Pushing A over from under
//! it"), joined to a real lift in one run: lift, leave the U, step in, a crawl, the turn up
//! and the follow with the rear head leading, A unscrewed, `Motion::PushOver` flipped
//! (`#[ignore]`d: ~4-5 min wall). The fourth is its mirror image, the lift and shift of
//! tasks 2 and 3 (".##R": the lift onto the neighbour behind, the shift towards -x, every
//! lead swapped; `#[ignore]`d as well).

use flotilla_contract::Firmware;
use flotilla_firmware::molemod::follow::FOLLOW_AXIS;
use flotilla_firmware::molemod::motion::{Head, MoleMotions, Motion, LIFT_ONTO_REAR_GRIP};
use flotilla_firmware::molemod::shift_below::SHIFT_BELOW_ACROSS;
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use reconfig_planner::lattice::{Cell, Lattice};
use std::f64::consts::FRAC_PI_2;
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::{
    tunnel_world_options, SHIFT_PUSH_OVER_FLIPPED, SHIFT_SETTLE_BEFORE_PUSH_OVER, SHIFT_TURN_AHEAD,
};
use tank_physics::systems::molemod::world::{MoleWorld, LIFT_SOLVER_ITERATIONS, PUSH_SOLVER_ITERATIONS, TURN_SOLVER_ITERATIONS};

#[allow(dead_code)]
#[path = "support/mole.rs"]
mod mole;
use mole::{axes, committed_model, load_average};

/// A at (1, 0, 1) on B at (1, 0, 0) with the robot, C at (2, 0, 0); the target (2, 0, 1).
const PICTURE: &str = ".#..\n.R#.";

/// Solver passes of the follow and the climb down (`molemod_vertical`'s follow test).
const FOLLOW_SOLVER_ITERATIONS: usize = LIFT_SOLVER_ITERATIONS;

/// Height of the lower head's centre above the floor when it stands on it, m (half the
/// head's 40 mm).
const HEAD_ON_FLOOR: f64 = 0.020;

/// How far above the floor the climb down stops the lower head, m: the crawl's expansion
/// pushing the head into the floor would stall the prismatic joints.
const FLOOR_MARGIN: f64 = 0.000_2;

const LINKS: [&str; 3] = ["head_front", "base_link", "head_rear"];

/// Steps until the firmware is idle and `min_s` passed (or 600 s: the follow down's 277 phases
/// take minutes; a phase that stalls ends the motion at its own limit); returns the lowest
/// clearance of a main cube against a block seen, m.
fn drive(world: &mut MoleWorld, firmware: &mut MoleMotions, min_s: f64) -> f64 {
    let until = world.time() + min_s;
    let end = world.time() + 600.0;
    let mut closest = f64::INFINITY;
    while world.time() < end && !(firmware.idle() && world.time() >= until) {
        let reading = world.sensors();
        let command = firmware.step(reading.stamp, &reading);
        world.step("mole", &command).expect("the firmware's commands fit the robot");
        for link in LINKS {
            if let Some(d) = world.block_contact(link).expect("link") {
                closest = closest.min(d);
            }
        }
    }
    closest
}

/// The mole's three cubes from C's centre (x = away from B, z = up; mm) and how far each
/// one's axis is from upright (mrad), printed under `label`; returns the lower (rear)
/// head's centre from C's centre, m.
fn report_mole(world: &MoleWorld, centre: &Vector3<f64>, label: &str) -> Vector3<f64> {
    let mut line = String::new();
    for link in LINKS {
        let pose = world.link_pose(link).expect("link");
        let at = pose.translation.vector - centre;
        let upright = (pose.rotation * Vector3::x()).z.clamp(-1.0, 1.0).acos();
        line +=
            &format!(" {link} ({:+.2}, {:+.2}, {:+.2}) mm, {:.1} mrad from upright;", at.x * 1e3, at.y * 1e3, at.z * 1e3, upright * 1e3);
    }
    eprintln!("{label}:{line} heads clamped {} {}", world.head_clamped(0), world.head_clamped(1));
    world.link_pose("head_rear").expect("link").translation.vector - centre
}

/// The chain from the mole lying in B's tunnel to A rolled onto C: every motion ends
/// without a report, the join stands the lower head on C's floor (within 0.5 mm of 20 mm
/// up, within 2 mm of the wall away from B), A ends within the executor's 5 mm of the
/// target cell's centre and 3 degrees of a quarter turn about +y, B and C within 1 mm.
#[test]
#[ignore = "Motion::Follow stalls in task 1's scene: its front head holds 55-108 mm above C's crossing, in the cell above C, which is \
            the shift's empty target cell (docs/molemod_execution.md, The shift as a chain)"]
fn the_mole_turns_up_in_c_follows_climbs_down_and_shifts_the_lifted_block_from_below() {
    let wall = std::time::Instant::now();
    eprintln!("load at the start: {}", load_average());
    let lattice = Lattice::from_picture(PICTURE).expect("picture");
    let [_, b_cell, c_cell, _] = cells();
    assert_eq!(lattice.robots(), &[b_cell], "the robot lies in B");
    let mut world =
        MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), BlockOptions::default()).expect("the world builds");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    drive(&mut world, &mut firmware, 0.3);
    let centre = world.block_pose(&c_cell).expect("C").translation.vector;
    report_mole(&world, &centre, "lying in B (from C's centre)");

    // The turn up into C's vertical tunnel; its approach crawls the front joint to the path's
    // start 0.1 m ahead of the body (at B's centre).
    world.set_solver_iterations(TURN_SOLVER_ITERATIONS);
    let t0 = world.time();
    firmware.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }).expect("a valid turn");
    let closest = drive(&mut world, &mut firmware, 0.0);
    eprintln!(
        "turn up: {} after {:.2} s sim, {:.0} s wall; closest cube-block contact {:.3} mm",
        firmware.status(),
        world.time() - t0,
        wall.elapsed().as_secs_f64(),
        closest * 1e3
    );
    report_mole(&world, &centre, "after the turn up (the follow starts from the front head upright, its joint at the crossing's centre)");
    assert!(firmware.stuck().is_none(), "turn up: {}", firmware.status());

    // The body follows round C's crossing; held a second with both heads gripping, as in
    // its own test.
    world.set_solver_iterations(FOLLOW_SOLVER_ITERATIONS);
    let t0 = world.time();
    firmware.push(Motion::Follow { lead: Head::Front }).expect("a valid follow");
    let phases_before = firmware.finished().len();
    // Stepped here to print where the front head is whenever its clamp is made or let go,
    // and at every phase's end.
    let (mut closest, mut clamped, mut phases) = (f64::INFINITY, world.head_clamped(0), phases_before);
    let front_z = |world: &MoleWorld| (world.link_pose("head_front").expect("link").translation.z - centre.z) * 1e3;
    while world.time() < t0 + 60.0 && !firmware.idle() {
        let reading = world.sensors();
        let command = firmware.step(reading.stamp, &reading);
        world.step("mole", &command).expect("the firmware's commands fit the robot");
        for link in LINKS {
            if let Some(d) = world.block_contact(link).expect("link") {
                closest = closest.min(d);
            }
        }
        if world.head_clamped(0) != clamped {
            clamped = world.head_clamped(0);
            eprintln!("  t {:.3} s: front head clamped {clamped} at {:.2} mm above C's centre", world.time() - t0, front_z(&world));
        }
        if firmware.finished().len() > phases {
            phases = firmware.finished().len();
            eprintln!(
                "  t {:.3} s: follow phase {} done; front head {:.2} mm above C's centre; clamped {} {}",
                world.time() - t0,
                phases - phases_before,
                front_z(&world),
                world.head_clamped(0),
                world.head_clamped(1)
            );
        }
    }
    let follow_stuck = firmware.stuck().map(|s| s.to_string());
    let follow_done = firmware.finished().len() - phases_before;
    report_mole(&world, &centre, "as the follow ends");
    drive(&mut world, &mut firmware, 1.0);
    eprintln!(
        "follow: {follow_done} phases done, stuck {follow_stuck:?} after {:.2} s sim, {:.0} s wall; closest cube-block contact {:.3} mm",
        world.time() - t0,
        wall.elapsed().as_secs_f64(),
        closest * 1e3
    );
    let lower = report_mole(&world, &centre, "after the follow (model: upright 3.75 mm to +x, the rear head 5 mm below the crossing)");
    assert!(follow_stuck.is_none(), "follow: {follow_stuck:?}");

    // The join: the crawl backward, upright, by what puts the lower head on the floor: the
    // expansion lowers the rear head by twice the step (front head holding), the
    // contraction the front head (rear head holding).
    // The ground (z = 0) closes C's vertical tunnel; from C's centre.
    let floor = -centre.z;
    let descent = lower.z - (floor + HEAD_ON_FLOOR) - FLOOR_MARGIN;
    let t0 = world.time();
    firmware.push(Motion::Crawl { step: 0.5 * descent, iterations: 2, backward: true }).expect("a valid crawl");
    let closest = drive(&mut world, &mut firmware, 0.3);
    eprintln!(
        "climb down by {:.2} mm: {} after {:.2} s sim, {:.0} s wall; closest cube-block contact {:.3} mm",
        descent * 1e3,
        firmware.status(),
        world.time() - t0,
        wall.elapsed().as_secs_f64(),
        closest * 1e3
    );
    let lower =
        report_mole(&world, &centre, "after the climb down (ShiftBelow's start: rear head (+5, 0, -30) mm, front head 112 mm above it)");
    assert!(firmware.stuck().is_none(), "climb down: {}", firmware.status());
    let (across, up) = (lower.x, lower.z - floor);
    eprintln!(
        "  the lower head {:.2} mm from C's axis away from B ({:+.2} mm from ShiftBelow's {:.1}), {:.2} mm above the floor (model 20)",
        across * 1e3,
        (across - SHIFT_BELOW_ACROSS) * 1e3,
        SHIFT_BELOW_ACROSS * 1e3,
        up * 1e3
    );
    assert!((up - HEAD_ON_FLOOR).abs() < 5e-4, "the lower head's centre {up} m above the floor");
    assert!((across - SHIFT_BELOW_ACROSS).abs() < 2e-3, "the lower head {across} m from C's axis");

    shift_from_below(&mut world, &mut firmware, &centre, wall);
}

/// Task 1's A (1, 0, 1), B (1, 0, 0), C (2, 0, 0) and the target (2, 0, 1).
fn cells() -> [Cell; 4] {
    [Cell::new(1, 0, 1), Cell::new(1, 0, 0), Cell::new(2, 0, 0), Cell::new(2, 0, 1)]
}

/// A unscrewed from B (as the executor does when a carrying motion starts), then
/// `Motion::ShiftBelow` at [`PUSH_SOLVER_ITERATIONS`], printed phase by phase; asserts A
/// within the executor's 5 mm of the target cell's centre and 3 degrees of a quarter turn
/// about +y, B and C within 1 mm of their cells.
fn shift_from_below(world: &mut MoleWorld, firmware: &mut MoleMotions, centre: &Vector3<f64>, wall: std::time::Instant) {
    let [a_cell, b_cell, c_cell, target] = cells();
    world.unscrew(&a_cell, &b_cell).expect("A lies screwed on B");
    world.set_solver_iterations(PUSH_SOLVER_ITERATIONS);
    let t0 = world.time();
    firmware.push(Motion::ShiftBelow { lead: Head::Front }).expect("valid");
    let mut done = firmware.finished().len();
    while !firmware.idle() && firmware.stuck().is_none() {
        let finished = world.drive("mole", firmware, 60.0, |fw| fw.finished().len() > done || fw.idle(), |_| {}).expect("fits");
        assert!(finished, "no phase ended within 60 s: {}", firmware.status());
        done = firmware.finished().len();
        let a = world.block_pose(&a_cell).expect("A");
        let x = a.rotation * Vector3::x();
        let head = world.link_pose("head_front").expect("link").translation.vector - a.translation.vector;
        eprintln!(
            "  t {:6.2} s: {done} phases done; A at ({:.2}, {:.2}) mm, x axis pitched {:.1} deg; front head {:+.1}, {:+.1} mm from A's centre, \
             clamped: front {} rear {}; wall {:.0} s",
            world.time() - t0,
            a.translation.x * 1e3,
            a.translation.z * 1e3,
            x.z.atan2(x.x).to_degrees(),
            head.x * 1e3,
            head.z * 1e3,
            world.head_clamped(0),
            world.head_clamped(1),
            wall.elapsed().as_secs_f64()
        );
    }
    let a = world.block_pose(&a_cell).expect("A");
    let cell = world.cell_centre(&target);
    let off = (a.translation.vector - cell).norm();
    let rolled = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), FRAC_PI_2);
    let turn = a.rotation.angle_to(&rolled);
    let (b_off, c_off) = (world.block_error(&b_cell, &b_cell).expect("B"), world.block_error(&c_cell, &c_cell).expect("C"));
    eprintln!(
        "shift from below: {} after {:.2} s sim; chain {:.2} s sim, {:.0} s wall; A {:.2} mm from the target cell's centre ({:+.2}, {:+.2}, \
         {:+.2}) mm, {:.2} deg from a quarter turn; B {:.3} mm and C {:.3} mm from their cells",
        firmware.status(),
        world.time() - t0,
        world.time(),
        wall.elapsed().as_secs_f64(),
        off * 1e3,
        (a.translation.x - cell.x) * 1e3,
        (a.translation.y - cell.y) * 1e3,
        (a.translation.z - cell.z) * 1e3,
        turn.to_degrees(),
        b_off * 1e3,
        c_off * 1e3,
    );
    report_mole(world, centre, "at the end");
    eprintln!("load at the end: {}", load_average());
    assert!(firmware.stuck().is_none(), "shift from below: {}", firmware.status());
    assert!(off < 5e-3, "A ends {off} m from the target cell's centre");
    assert!(turn < 3f64.to_radians(), "A {} deg from rolled", turn.to_degrees());
    assert!(b_off < 1e-3 && c_off < 1e-3, "B moved {b_off} m, C {c_off} m");
}

/// The join and the shift from below, from where `molemod_vertical`'s follow test leaves
/// the mole (upright in C's vertical tunnel, [`FOLLOW_AXIS`] from its axis away from B, the
/// lower head's centre 5.4 mm below the crossing's: the world's start placement in C, turned
/// -90 degrees about +y about C's centre, raised 50.6 mm, moved 1.25 mm towards B). The join
/// is the crawl backward by what puts the lower head on the floor; the upper head stands in
/// the empty cell above C, where no block is to clamp it, so the expansion holds nothing and
/// the mole drops onto C's floor. Prints the drop (the upper head's lowest point, the lower
/// head's fastest fall), where the mole lands, and the shift from below that follows.
/// A measurement, not a motion the executor may use (the drop is a fall), so it does not
/// run with the suite: `cargo test --release -p tank_physics --no-default-features --test
/// molemod_shift_chain -- --ignored --nocapture` (~3 min).
#[test]
#[ignore = "a measurement: the join is a 24 mm drop onto C's floor, not a motion (docs/molemod_execution.md, The shift as a chain)"]
fn the_join_from_where_the_follow_leaves_the_mole_then_the_shift_from_below() {
    let wall = std::time::Instant::now();
    eprintln!("load at the start: {}", load_average());
    let lattice = Lattice::from_picture(".#..\n.#R.").expect("picture");
    let c_cell = cells()[2];
    let mut world =
        MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), BlockOptions::default()).expect("the world builds");
    let centre = world.block_pose(&c_cell).expect("C").translation.vector;
    let stand: Isometry3<f64> = Translation3::new(FOLLOW_AXIS - SHIFT_BELOW_ACROSS, 0.0, 0.0506)
        * Translation3::from(centre)
        * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -FRAC_PI_2)
        * Translation3::from(-centre);
    world.move_robot(0, &stand).expect("robot 0");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    world.set_solver_iterations(FOLLOW_SOLVER_ITERATIONS);
    drive(&mut world, &mut firmware, 0.3);
    let lower = report_mole(&world, &centre, "placed as the follow leaves it");
    let floor = -centre.z;
    let descent = lower.z - (floor + HEAD_ON_FLOOR) - FLOOR_MARGIN;
    let upper_start = world.link_pose("head_front").expect("link").translation.z;
    firmware.push(Motion::Crawl { step: 0.5 * descent, iterations: 2, backward: true }).expect("a valid crawl");
    let (mut upper_lowest, mut fastest, mut landed) = (f64::INFINITY, 0.0_f64, None);
    let mut last = (world.time(), world.link_pose("head_rear").expect("link").translation.z);
    let t0 = world.time();
    while !firmware.idle() && firmware.stuck().is_none() && world.time() < t0 + 20.0 {
        let reading = world.sensors();
        let command = firmware.step(reading.stamp, &reading);
        world.step("mole", &command).expect("the firmware's commands fit the robot");
        let (now, z) = (world.time(), world.link_pose("head_rear").expect("link").translation.z);
        if firmware.finished().is_empty() {
            upper_lowest = upper_lowest.min(world.link_pose("head_front").expect("link").translation.z);
        }
        fastest = fastest.max((last.1 - z) / (now - last.0));
        if landed.is_none() && z - centre.z - floor < HEAD_ON_FLOOR + 5e-5 {
            landed = Some(now - t0);
        }
        last = (now, z);
    }
    drive(&mut world, &mut firmware, 0.3);
    eprintln!(
        "join, the crawl backward by {:.2} mm: {}; in the expansion the upper head {:.2} mm at its lowest below where it stood, the lower \
         head falling at most {:.3} m/s, on the floor {landed:?} s after the start",
        descent * 1e3,
        firmware.status(),
        (upper_start - upper_lowest) * 1e3,
        fastest
    );
    let lower = report_mole(&world, &centre, "after the join (ShiftBelow's start: rear head (+5, 0, -30) mm, front head 112 mm above it)");
    assert!(firmware.stuck().is_none(), "join: {}", firmware.status());
    assert!((lower.z - floor - HEAD_ON_FLOOR).abs() < 5e-4, "the lower head's centre {} m above the floor", lower.z - floor);
    shift_from_below(&mut world, &mut firmware, &centre, wall);
}

/// The lift and shift chain's row, by the head that leads the lift: [`Head::Front`] task 1's
/// "R##." (B towards +x, ahead of the robot), [`Head::Rear`] its mirror image ".##R" (B
/// towards -x, behind the robot, which heads +x as before; tasks 2 and 3).
#[derive(Clone, Copy)]
struct Row {
    /// The head that leads the lift, the way out of the U and the step in.
    lift: Head,
}

impl Row {
    /// The lattice the chain starts from.
    fn picture(self) -> &'static str {
        match self.lift {
            Head::Front => "R##.",
            Head::Rear => ".##R",
        }
    }

    /// +1 when C is towards +x of B, -1 in the mirror image.
    fn towards(self) -> f64 {
        match self.lift {
            Head::Front => 1.0,
            Head::Rear => -1.0,
        }
    }

    /// The head that turns up into B's crossing, follows round it and ends on top, in A:
    /// the one away from C after the step in.
    fn upper(self) -> Head {
        match self.lift {
            Head::Front => Head::Rear,
            Head::Rear => Head::Front,
        }
    }

    /// The blocks by home cell (A the robot's, B the lift's neighbour, C the next one on)
    /// and A's target over C.
    fn cells(self) -> [Cell; 4] {
        match self.lift {
            Head::Front => [Cell::planar(0, 0), Cell::planar(1, 0), Cell::planar(2, 0), Cell::new(2, 0, 1)],
            Head::Rear => [Cell::planar(3, 0), Cell::planar(2, 0), Cell::planar(1, 0), Cell::new(1, 0, 1)],
        }
    }

    /// A's roll onto C: a quarter turn about +y towards C.
    fn roll(self) -> UnitQuaternion<f64> {
        UnitQuaternion::from_axis_angle(&Vector3::y_axis(), self.towards() * FRAC_PI_2)
    }
}

/// One junction's figures, from the rapier bodies: each main cube's centre from B's centre
/// (x towards C, z up; mm) and its x axis' direction (degrees from the row's x towards C
/// towards +z), the body's z axis (x towards C; the side it lay on's normal, the pitch
/// joints' plane's "up"), the clamps, A's centre from its cell over C (x towards C) and its
/// turn from a quarter turn towards C from upright (A starts the push over upside down, the
/// same solid: 180 degrees there is the roll done), B and C from their cells.
fn junction(world: &MoleWorld, row: Row, label: &str) {
    let [a_home, b_home, c_home, target] = row.cells();
    let s = row.towards();
    let b = world.cell_centre(&b_home);
    let mut line = String::new();
    for link in LINKS {
        let pose = world.link_pose(link).expect("link");
        let at = pose.translation.vector - b;
        let x = pose.rotation * Vector3::x();
        line += &format!(
            " {link} ({:+.2}, {:+.2}, {:+.2}) mm, x axis at {:.1} deg;",
            s * at.x * 1e3,
            at.y * 1e3,
            at.z * 1e3,
            x.z.atan2(s * x.x).to_degrees()
        );
    }
    let top = world.link_pose("base_link").expect("link").rotation * Vector3::z();
    let a = world.block_pose(&a_home).expect("A");
    let off = a.translation.vector - world.cell_centre(&target);
    eprintln!(
        "{label}:{line} body z axis ({:+.2}, {:+.2}, {:+.2}); clamped front {} rear {}; A ({:+.2}, {:+.2}, {:+.2}) mm from the cell over C, {:.2} deg from a \
         quarter turn towards C; B {:.3} mm, C {:.3} mm from their cells; t {:.2} s sim",
        s * top.x,
        top.y,
        top.z,
        world.head_clamped(0),
        world.head_clamped(1),
        s * off.x * 1e3,
        off.y * 1e3,
        off.z * 1e3,
        a.rotation.angle_to(&row.roll()).to_degrees(),
        world.block_error(&b_home, &b_home).expect("B") * 1e3,
        world.block_error(&c_home, &c_home).expect("C") * 1e3,
        world.time()
    );
}

/// Prints the phases of the last motion `firmware` finished: name, s of sim time from the
/// chain's start at its start and end.
fn print_last_motions_phases(firmware: &MoleMotions) {
    let last = firmware.finished().last().map(|r| r.motion);
    for r in firmware.finished().iter().filter(|r| Some(r.motion) == last) {
        eprintln!("  {} {:.2}-{:.2}", r.phase, r.started, r.ended);
    }
}

/// Runs `motion` to its end at `passes` solver passes, prints the junction after it and
/// asserts it did not stick.
fn chain_step(world: &mut MoleWorld, firmware: &mut MoleMotions, row: Row, passes: usize, motion: Motion, wall: &std::time::Instant) {
    world.set_solver_iterations(passes);
    let (t0, name) = (world.time(), motion.name());
    firmware.push(motion).expect("a valid motion");
    let closest = drive(world, firmware, 0.0);
    eprintln!(
        "{name} at {passes} passes: {} after {:.2} s sim, {:.0} s wall; closest cube-block contact {:.3} mm",
        firmware.status(),
        world.time() - t0,
        wall.elapsed().as_secs_f64(),
        closest * 1e3
    );
    junction(world, row, &format!("after {name}"));
    assert!(firmware.stuck().is_none(), "{name}: {}", firmware.status());
}

/// Task 1's shift joined to the lift in one physics run (issue #18): from "R##." the lift
/// onto the neighbour as `molemod_lift` runs it (crawled to the grip, A unscrewed,
/// `LiftOnto { lead: Front }` at 512 passes), A screwed to B, `LeaveU { lead: Front }` and
/// `StepIn { lead: Front }` at 512, a crawl forward at the world's passes to put the body
/// [`SHIFT_TURN_AHEAD`] from B's crossing, `TurnUp { ahead, lead: Rear }` at 64 (`ahead` as measured
/// after the crawl; the rear head turns up into B's vertical tunnel towards A, the front head
/// anchoring in C), `Follow { lead: Rear }` at 512 (the rear head ends on top, in A), A
/// unscrewed from B and `PushOver { lead: Rear, flipped: SHIFT_PUSH_OVER_FLIPPED }` at 1024 ([`lift_and_push_over`]).
/// ~4-5 min wall: `nice -n 5 cargo test --release -p
/// tank_physics --no-default-features --test molemod_shift_chain
/// the_lift_then_the_turn_up_follow_and_push_over_in_one_run -- --ignored --nocapture
/// --test-threads 1`.
#[test]
#[ignore = "~4-5 min wall, over the suite's ~3 min a test (docs/molemod_execution.md, Pushing A over from under it)"]
fn the_lift_then_the_turn_up_follow_and_push_over_in_one_run() {
    lift_and_push_over(Row { lift: Head::Front });
}

/// Task 1's lift and shift as [`the_lift_then_the_turn_up_follow_and_push_over_in_one_run`]
/// ([`lift_and_push_over`]), then `DownTurn { lead: Rear, flipped: SHIFT_PUSH_OVER_FLIPPED }`
/// at 512 passes ([`down_turn`]). `nice -n 5 cargo test --release -p tank_physics
/// --no-default-features --test molemod_shift_chain
/// the_lift_push_over_then_the_down_turn_in_one_run -- --ignored --nocapture --test-threads 1`.
#[test]
#[ignore = "the whole lift and shift first: 608 s wall measured, over the suite's ~3 min a test (docs/molemod_execution.md, mole-downturn)"]
fn the_lift_push_over_then_the_down_turn_in_one_run() {
    down_turn(Row { lift: Head::Front });
}

/// Task 1 end to end in one physics run (issue #18): the lift, the shift and the down turn as
/// [`down_turn`], then the put down onward by route Z (docs/molemod_execution.md, "The body
/// following down into B's x tunnel after the push over"): `FollowDown` at 512 passes (the
/// upper head leaves A, the body comes down B's column and the mole ends straight along B's
/// and C's x tunnels); a crawl putting the upper head 29 mm past B's centre towards C (where
/// the afterroll chain's 37 mm crawl leaves its rear head), a settle (`SetDown`, at the
/// crawl's passes), `StepOut`,
/// `EnterU`, A unscrewed from C and `PutDown`, all led by the upper head (the afterroll
/// chain's steps 4-8, "Putting a block down onward after the shift from below"). Asserts no
/// motion stuck, A within the executor's 5 mm of the cell beyond C, B and C within 1 mm.
/// `nice -n 5 cargo test --release -p tank_physics --no-default-features --test
/// molemod_shift_chain task_1_lift_shift_and_put_down_in_one_run -- --ignored --nocapture
/// --test-threads 1`.
#[test]
#[ignore = "task 1's three steps in one run: over 10 min wall (docs/molemod_execution.md, mole-followdown)"]
fn task_1_lift_shift_and_put_down_in_one_run() {
    let row = Row { lift: Head::Front };
    let (mut world, mut firmware, wall) = down_turn(row);
    let [a_home, b_home, c_home, _] = row.cells();
    let s = row.towards();
    let upper = row.upper();
    chain_step(
        &mut world,
        &mut firmware,
        row,
        LIFT_SOLVER_ITERATIONS,
        Motion::FollowDown { lead: upper, flipped: SHIFT_PUSH_OVER_FLIPPED },
        &wall,
    );
    let b = world.cell_centre(&b_home);
    let upper_link = if upper == Head::Rear { "head_rear" } else { "head_front" };
    let head = s * (world.link_pose(upper_link).expect("link").translation.x - b.x);
    let on = PUT_DOWN_CRAWL_TO - head;
    eprintln!("the upper head {:.2} mm past B's centre after the follow down: crawling {:.2} mm on", head * 1e3, on * 1e3);
    chain_step(
        &mut world,
        &mut firmware,
        row,
        tunnel_world_options().solver_iterations,
        Motion::Crawl { step: 0.5 * on, iterations: 2, backward: s < 0.0 },
        &wall,
    );
    // The settle at the crawl's passes, as the afterroll chain runs it (at 512 the pitch stalls
    // 7 mrad short of level with the mole on the tunnel floors).
    chain_step(&mut world, &mut firmware, row, tunnel_world_options().solver_iterations, Motion::SetDown, &wall);
    chain_step(&mut world, &mut firmware, row, LIFT_SOLVER_ITERATIONS, Motion::StepOut { lead: upper }, &wall);
    chain_step(&mut world, &mut firmware, row, LIFT_SOLVER_ITERATIONS, Motion::EnterU { lead: upper }, &wall);
    world.unscrew(&a_home, &c_home).expect("A screwed to C after the shift");
    chain_step(&mut world, &mut firmware, row, LIFT_SOLVER_ITERATIONS, Motion::PutDown { lead: upper }, &wall);
    let beyond = Cell::planar((c_home.x as isize + s as isize) as usize, 0);
    let off = world.block_error(&a_home, &beyond).expect("A");
    let (b_off, c_off) = (world.block_error(&b_home, &b_home).expect("B"), world.block_error(&c_home, &c_home).expect("C"));
    eprintln!(
        "task 1 in one run: A {:.3} mm from {beyond}, B {:.3} mm, C {:.3} mm from their cells; {:.2} s sim, {:.0} s wall; load {}",
        off * 1e3,
        b_off * 1e3,
        c_off * 1e3,
        world.time(),
        wall.elapsed().as_secs_f64(),
        load_average()
    );
    assert!(off < 5e-3, "A ends {off} m from {beyond}");
    assert!(b_off < 1e-3 && c_off < 1e-3, "B moved {b_off} m, C {c_off} m");
}

/// Where the crawl after the follow down puts the upper head, m past B's centre towards C:
/// where the afterroll chain's crawl leaves its rear head (92 + 37 mm in that test's frame,
/// B's centre at 100 mm), the step out's start.
const PUT_DOWN_CRAWL_TO: f64 = 0.029;

/// Task 1's lift and shift ([`lift_and_push_over`]), then `DownTurn { lead: Rear, flipped:
/// SHIFT_PUSH_OVER_FLIPPED }` at 512 passes (docs/molemod_execution.md, "The lower head's
/// turn into B's x tunnel after the push over (issue #18, mole-downturn)"): the lower head
/// (the physical front head) is raised 10 mm in B's column, the upper head moves to 7.3 mm
/// inside A's -x face, and the lower head turns into B's x tunnel towards C; A screwed to C
/// first, as the executor screws a carried block to the one it lands on. Asserts no motion
/// stuck, the lower head's centre within 3 mm of 23 mm from B's axis towards C and of B's
/// crossing's height, its axis within 0.1 rad of level, both heads clamped, and A, B and C
/// moved less than 0.5 mm by the turn.
fn down_turn(row: Row) -> (MoleWorld, MoleMotions, std::time::Instant) {
    let (mut world, mut firmware, wall) = lift_and_push_over(row);
    let [a_home, b_home, c_home, _] = row.cells();
    let s = row.towards();
    // The executor screws a carried block to the one it lands on after the step.
    world.screw(&a_home, &c_home).expect("A lies on C");
    let before: Vec<Isometry3<f64>> = [a_home, b_home, c_home].iter().map(|c| world.block_pose(c).expect("block")).collect();
    chain_step(
        &mut world,
        &mut firmware,
        row,
        LIFT_SOLVER_ITERATIONS,
        Motion::DownTurn { lead: row.upper(), flipped: SHIFT_PUSH_OVER_FLIPPED },
        &wall,
    );
    print_last_motions_phases(&firmware);
    let lower = if row.upper() == Head::Rear { "head_front" } else { "head_rear" };
    let pose = world.link_pose(lower).expect("link");
    let at = pose.translation.vector - world.cell_centre(&b_home);
    let axis = pose.rotation * Vector3::x();
    let tilt = axis.z.abs().atan2(axis.x.abs());
    let moved: Vec<f64> = [a_home, b_home, c_home]
        .iter()
        .zip(&before)
        .map(|(c, b)| (world.block_pose(c).expect("block").translation.vector - b.translation.vector).norm())
        .collect();
    eprintln!(
        "the lower head ({lower}) {:.2} mm from B's axis towards C, {:+.2} mm across, {:+.2} mm from B's crossing's height, {:.1} mrad from level; \
         clamped front {} rear {}; A, B, C moved {:.3}, {:.3}, {:.3} mm by the turn; chain {:.0} s wall; load {}",
        s * at.x * 1e3,
        at.y * 1e3,
        at.z * 1e3,
        tilt * 1e3,
        world.head_clamped(0),
        world.head_clamped(1),
        moved[0] * 1e3,
        moved[1] * 1e3,
        moved[2] * 1e3,
        wall.elapsed().as_secs_f64(),
        load_average()
    );
    assert!((s * at.x - 0.023).abs() < 3e-3 && at.z.abs() < 3e-3, "{at:?}");
    assert!(tilt < 0.1, "{tilt}");
    assert!(world.head_clamped(0) && world.head_clamped(1));
    assert!(moved.iter().all(|m| *m < 5e-4), "{moved:?}");
    (world, firmware, wall)
}

/// The mirror image of [`the_lift_then_the_turn_up_follow_and_push_over_in_one_run`], the
/// lift and shift of tasks 2 and 3 (issue #18): from ".##R" (A at cell 3 with the robot
/// heading +x, B at 2, C at 1) `LiftOnto { lead: Rear }` onto the neighbour behind,
/// `LeaveU { lead: Rear }`, `StepIn { lead: Rear }`, a crawl backward to put the body
/// [`SHIFT_TURN_AHEAD`] past B's crossing towards C, `TurnUp { ahead, lead: Front }`,
/// `Follow { lead: Front }` (the front head on top, in A), A unscrewed and
/// `PushOver { lead: Front, flipped: SHIFT_PUSH_OVER_FLIPPED }`: A onto C at (1, 0, 1). Measured: every
/// motion up to the push over ends as the mirror image of task 1's, A lands 1.0 mm from its
/// cell, but the push over's set down creeps (12.4 s in task 1's run) and here stops at the
/// 20 s phase limit 0.092 mm short, so the test fails on "no motion stuck". 22 min wall at
/// load 5-6 (task 1's chain: 4 min at load 3):
/// `nice -n 5 cargo test --release -p tank_physics --no-default-features --test
/// molemod_shift_chain the_mirrored_lift_then_the_turn_up_follow_and_push_over_in_one_run --
/// --ignored --nocapture --test-threads 1`.
#[test]
#[ignore = "22 min wall at load 5-6 (task 1's chain: 4 min at load 3); measured 2026-11-30: the push over's set down (prismatic_3 in by 3 mm, A onto C) \
            ends 0.092 mm short at the 20 s phase limit with A 1.0 mm from its cell (docs/molemod_execution.md, The mirrored lift and shift in one run)"]
fn the_mirrored_lift_then_the_turn_up_follow_and_push_over_in_one_run() {
    lift_and_push_over(Row { lift: Head::Rear });
}

/// The lift and the shift from the B/A column in one run along `row`: the set-up crawl and
/// `LiftOnto` (512 passes), A screwed to B, `LeaveU` and `StepIn` (512), all led by
/// `row.lift`; one crawl cycle at the world's passes towards C to put the body [`SHIFT_TURN_AHEAD`]
/// past B's crossing; `TurnUp { ahead }` (64) and `Follow` (512) led by [`Row::upper`]; A
/// unscrewed from B and `PushOver { lead: row.upper(), flipped: SHIFT_PUSH_OVER_FLIPPED }` (1024). Prints
/// each junction ([`junction`]); asserts no motion stuck, A within 5 mm of its cell over C
/// and 3 degrees of a quarter turn towards C from where it stood before the push over, B
/// and C within 1 mm. Returns the world, the firmware and the chain's wall clock.
fn lift_and_push_over(row: Row) -> (MoleWorld, MoleMotions, std::time::Instant) {
    let wall = std::time::Instant::now();
    eprintln!("load at the start: {}", load_average());
    let [a_home, b_home, c_home, target] = row.cells();
    let s = row.towards();
    let lattice = Lattice::from_picture(row.picture()).expect("picture");
    let mut world =
        MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), BlockOptions::default()).expect("the world builds");
    let mut firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    drive(&mut world, &mut firmware, 0.3);
    // As `molemod_lift`: the holding head crawled to its grip in A (backward when the rear
    // head leads), A unscrewed.
    let crawl = LIFT_ONTO_REAR_GRIP + 0.056;
    firmware.push(Motion::Crawl { step: 0.25 * crawl, iterations: 4, backward: s < 0.0 }).expect("a valid crawl");
    drive(&mut world, &mut firmware, 0.0);
    assert!(firmware.stuck().is_none(), "crawl to the lift: {}", firmware.status());
    world.unscrew(&a_home, &b_home).expect("A screwed to B at the start");
    junction(&world, row, "ready to lift");
    chain_step(&mut world, &mut firmware, row, LIFT_SOLVER_ITERATIONS, Motion::LiftOnto { lead: row.lift }, &wall);
    // The executor screws A to B after a lift.
    world.screw(&a_home, &b_home).expect("A lies on B");
    chain_step(&mut world, &mut firmware, row, LIFT_SOLVER_ITERATIONS, Motion::LeaveU { lead: row.lift }, &wall);
    chain_step(&mut world, &mut firmware, row, LIFT_SOLVER_ITERATIONS, Motion::StepIn { lead: row.lift }, &wall);

    // The crawl towards C to SHIFT_TURN_AHEAD in one cycle (each joint out by half of it: the head
    // towards C 2 x 22 mm on, to ~216 mm, inside C); the turn takes `ahead` as it ends.
    let b = world.cell_centre(&b_home);
    let body = s * (world.link_pose("base_link").expect("link").translation.x - b.x);
    let on = SHIFT_TURN_AHEAD - body;
    chain_step(
        &mut world,
        &mut firmware,
        row,
        tunnel_world_options().solver_iterations,
        Motion::Crawl { step: 0.5 * on, iterations: 2, backward: s < 0.0 },
        &wall,
    );
    let ahead = s * (world.link_pose("base_link").expect("link").translation.x - b.x);
    eprintln!("crawled {:.2} mm on: the body {:.2} mm from B's crossing (aimed at {:.0})", on * 1e3, ahead * 1e3, SHIFT_TURN_AHEAD * 1e3);
    chain_step(&mut world, &mut firmware, row, TURN_SOLVER_ITERATIONS, Motion::TurnUp { ahead, lead: row.upper() }, &wall);
    chain_step(&mut world, &mut firmware, row, LIFT_SOLVER_ITERATIONS, Motion::Follow { lead: row.upper() }, &wall);
    drive(&mut world, &mut firmware, SHIFT_SETTLE_BEFORE_PUSH_OVER);
    junction(
        &world,
        row,
        "after the follow and 0.3 s (PushOver's start: upright, 3.75 mm off the axis away from C, the lower head 45 mm up)",
    );

    world.unscrew(&a_home, &b_home).expect("A screwed to B after the lift");
    // A lies upside down (the lift turned it over): the roll turns it a quarter turn
    // towards C from there.
    let rolled = row.roll() * world.block_pose(&a_home).expect("A").rotation;
    chain_step(
        &mut world,
        &mut firmware,
        row,
        PUSH_SOLVER_ITERATIONS,
        Motion::PushOver { lead: row.upper(), flipped: SHIFT_PUSH_OVER_FLIPPED },
        &wall,
    );
    print_last_motions_phases(&firmware);
    let a = world.block_pose(&a_home).expect("A");
    let off = (a.translation.vector - world.cell_centre(&target)).norm();
    let turn = a.rotation.angle_to(&rolled);
    eprintln!(
        "A {:.3} mm from its cell over C, {:.2} deg from a quarter turn towards C from where it stood before the push over",
        off * 1e3,
        turn.to_degrees()
    );
    let (b_off, c_off) = (world.block_error(&b_home, &b_home).expect("B"), world.block_error(&c_home, &c_home).expect("C"));
    eprintln!("chain: {:.0} s wall, {:.2} s sim; load at the end: {}", wall.elapsed().as_secs_f64(), world.time(), load_average());
    assert!(off < 5e-3, "A ends {off} m from its cell over C");
    assert!(turn < 3f64.to_radians(), "A {} deg from a quarter turn", turn.to_degrees());
    assert!(b_off < 1e-3 && c_off < 1e-3, "B moved {b_off} m, C {c_off} m");
    (world, firmware, wall)
}
