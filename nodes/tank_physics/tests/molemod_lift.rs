//! Lifting a block (SPEC 2, "lifting"; the paper's Fig. 12, "a combination of
//! translational and rotational motion"): the mole parts its unscrewed block from its
//! neighbour (`Motion::Part`) and turns it up about its front universal joint, the front
//! head holding on in the neighbour (`Motion::Raise`), then sets it down again; and lifts
//! it onto the neighbour along the planar model's searched path (`Motion::LiftOnto`).
//! Every figure is taken from the rapier bodies' poses.

use flotilla_common::models::{JointKind, Model};
use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{Head, MoleMotions, Motion, LIFT_ONTO_REAR_GRIP};
use flotilla_firmware::molemod::FiveIntervalController;
use nalgebra::{Isometry3, Point3, Vector3};
use reconfig_planner::lattice::{Cell, Lattice};
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::tunnel_world_options;
use tank_physics::systems::molemod::world::{GripClamp, MoleWorld, MoleWorldOptions, LIFT_SOLVER_ITERATIONS};

// Shared support: this test drives the mole itself.
#[allow(dead_code)]
#[path = "support/mole.rs"]
mod mole;
use mole::{assert_put_back, axes, committed_model, load_average, until_idle};

struct Run {
    world: MoleWorld,
    firmware: MoleMotions,
}

impl Run {
    /// Task 1's start ("R##.": the robot in the first of three blocks) brought to a lift,
    /// as the part test in `molemod_tunnels` does: two 5 mm crawl iterations put the rear
    /// head's centre inside the robot's block, so each head grips a block.
    fn ready() -> Self {
        Self::ready_from(0.0)
    }

    /// [`Self::ready`] with the mole first moved `along` (m) along its tunnel.
    fn ready_from(along: f64) -> Self {
        Self::ready_with(along, &committed_model(), tunnel_world_options())
    }

    /// [`Self::ready_from`] with `model` in a world of `options`.
    fn ready_with(along: f64, model: &Model, options: MoleWorldOptions) -> Self {
        let lattice = Lattice::from_picture("R##.").expect("picture");
        let world = MoleWorld::in_lattice(model, &lattice, options, BlockOptions::default()).expect("the world builds");
        let firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
        let mut run = Self { world, firmware };
        run.world.shift_robot(0, &Vector3::new(along, 0.0, 0.0)).expect("robot 0");
        run.drive(0.3);
        run.motion(Motion::Crawl { step: 0.005, iterations: 2, backward: false });
        assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
        run.world.set_solver_iterations(LIFT_SOLVER_ITERATIONS);
        run
    }

    fn drive(&mut self, min_s: f64) {
        until_idle(&mut self.world, &mut self.firmware, min_s, |_| {});
    }

    /// Runs `motion` to its end or its report (a stuck phase ends the motion too).
    fn motion(&mut self, motion: Motion) {
        self.firmware.push(motion).expect("a valid motion");
        self.drive(0.0);
    }

    fn block(&self, cell: &Cell) -> Isometry3<f64> {
        self.world.block_pose(cell).expect("block")
    }
}

/// The universal joints' earlier actuator class (0.245 N m, a Pololu 1000:1 micro
/// gearmotor) and its grip clamp (0.5 N m, about twice that), in which the raise and its
/// pull back were measured: with the model's 0.52 N m joints and 1.04 N m clamp the pull
/// back drags the screwed pair 14.6 mm instead of the block (docs/molemod_execution.md,
/// "Lifting a block").
fn earlier_class() -> (Model, MoleWorldOptions) {
    let mut model = committed_model();
    for joint in model.joints.iter_mut().filter(|j| j.name.starts_with("universal_")) {
        match &mut joint.kind {
            JointKind::Revolute { limits, .. } | JointKind::Universal { limits, .. } => limits.effort = 0.245,
            _ => panic!("{} is not a universal joint's axis", joint.name),
        }
    }
    let options = tunnel_world_options();
    (model, MoleWorldOptions { clamp: GripClamp { torque: 0.5, ..options.clamp }, ..options })
}

/// Pitch of a pose's x axis, rad (positive = nose up).
fn pitch(p: &Isometry3<f64>) -> f64 {
    let x = p.rotation * Vector3::x();
    x.z.atan2(x.x.hypot(x.y))
}

/// Height of a block's bottom edge on its `side` (+1 = towards +x, -1 = towards -x) above
/// the floor, m.
fn bottom_edge(p: &Isometry3<f64>, side: f64) -> f64 {
    (p * Point3::new(0.05 * side, 0.0, -0.05)).z
}

/// The lift: the robot's block, unscrewed from its neighbour and parted 15 mm from it,
/// turned up by 0.2 rad about the front universal joint with the earlier 0.245 N m
/// joint ([`earlier_class`]), held, set down and pulled back. The raise turns the block with the joint (its far bottom
/// edge rises ~20 mm, the near one clears the floor), the neighbour does not move, the
/// front head does not turn in its clamp; the set-down puts the block back flat where it
/// was lifted, and the pull back puts it against its neighbour again, both within the
/// executor's 5 mm of their cells.
#[test]
fn a_raise_turns_the_parted_block_up_and_sets_it_down_and_back() {
    let (model, options) = earlier_class();
    let mut run = Run::ready_with(0.0, &model, options);
    let (own, next) = (Cell::planar(0, 0), Cell::planar(1, 0));
    run.world.unscrew(&own, &next).expect("screwed at the start");
    run.motion(Motion::Part { by: 0.015 });
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    let parted = run.block(&own);
    let t0 = run.world.time();
    let angle = 0.2;
    run.motion(Motion::Raise { angle });
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    let raised_in = run.world.time() - t0;
    run.drive(1.0);
    let (up, neighbour) = (run.block(&own), run.block(&next));
    let joint = run.world.joint_position("universal_0_axis2").expect("joint");
    let turned = pitch(&up) - pitch(&parted);
    let (far, near) = (bottom_edge(&up, -1.0), bottom_edge(&up, 1.0));
    let rise = up.translation.z - parted.translation.z;
    let head_turn = pitch(&run.world.link_pose("head_front").expect("link"));
    eprintln!(
        "raise {angle} rad: joint {joint:.4} rad, block turned {turned:+.4} rad in {raised_in:.2} s, centre up {:.2} mm, far bottom edge \
         {:.2} mm and near one {:.2} mm above the floor (1 s held), neighbour moved {:.3} mm, front head pitched {:.2} mrad",
        rise * 1e3,
        far * 1e3,
        near * 1e3,
        (neighbour.translation.vector - Vector3::new(0.1, 0.0, 0.05)).norm() * 1e3,
        head_turn * 1e3
    );
    let dead_band = FiveIntervalController::revolute().accuracy;
    assert!((joint + angle).abs() < dead_band + 1e-4, "the pitch joint at {joint} rad");
    // The block turns with the body (nose down about the front joint: its far end up).
    assert!((turned + angle).abs() < 0.01, "the block turned {turned} rad");
    // Its far end rises by the 100 mm block's length times the angle, less the turn's dip.
    assert!(far > 0.015 && near > 0.0005, "bottom edges at {far} / {near} m: the block is not off the floor");
    assert!((neighbour.translation.vector - Vector3::new(0.1, 0.0, 0.05)).norm() < 1e-3, "the neighbour moved");
    assert!(head_turn.abs() < 5e-3, "the front head turned {head_turn} rad in its clamp");

    run.motion(Motion::SetDown);
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    run.drive(0.5);
    let down = run.block(&own);
    eprintln!(
        "set down: block pitch {:.2} mrad, centre {:+.3} mm from its height, {:+.3} mm along x from where it was parted to",
        pitch(&down) * 1e3,
        (down.translation.z - 0.05) * 1e3,
        (down.translation.x - parted.translation.x) * 1e3
    );
    assert!(pitch(&down).abs() < 5e-3 && (down.translation.z - 0.05).abs() < 5e-4, "not set down flat: {down}");
    assert!(
        (down.translation.x - parted.translation.x).abs() < 5e-3,
        "set down {} m from where it was lifted",
        down.translation.x - parted.translation.x
    );

    // Put back: prismatic_1 closes, both heads gripping, and pulls the block against its
    // neighbour; both within the executor's step tolerance (5 mm) of their cells.
    run.motion(Motion::Part { by: 0.0 });
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    let (home, neighbour) = (run.world.block_error(&own, &own).expect("block"), run.world.block_error(&next, &next).expect("block"));
    let gap = (run.block(&next).translation.x - 0.05) - (run.block(&own).translation.x + 0.05);
    eprintln!(
        "put back: the block {:.3} mm from its cell's centre, the neighbour {:.3} mm from its, gap {:.3} mm",
        home * 1e3,
        neighbour * 1e3,
        gap * 1e3
    );
    assert!(gap.abs() < 5e-4, "the blocks are {gap} m apart");
    assert!(home < 5e-3 && neighbour < 5e-3, "the block ends {home} m and its neighbour {neighbour} m from their cells");
}

/// An impossible lift: the robot's block is still screwed to its neighbour, so the raise
/// cannot turn it; the motion stops at its phase limit with a report naming the raise and
/// the pitch joint, and no block moved.
#[test]
fn a_raise_of_a_screwed_block_stops_with_a_report() {
    let mut run = Run::ready();
    run.firmware.phase_timeout = 1.0;
    run.motion(Motion::Raise { angle: 0.2 });
    let stuck = run.firmware.stuck().expect("the screwed block does not turn up");
    eprintln!("screwed: {stuck}");
    assert_eq!((stuck.motion_name, stuck.phase, stuck.joint.as_str()), ("raise", "raise", "universal_0_axis2"));
    assert!(stuck.position - stuck.target > 0.15, "{stuck}");
    let worst = run.world.block_offsets().iter().map(|(_, o)| *o).fold(0.0, f64::max);
    assert!(worst < 1e-3, "a screwed block moved {worst} m");
}

/// Repeatability: the part and raise from starts 1 mm apart along the tunnel (the executor's
/// start jitter) end with the block turned and lifted alike.
#[test]
fn the_raise_repeats_from_starts_along_the_tunnel() {
    let ends: Vec<(f64, f64)> = [-0.0005, 0.0005]
        .iter()
        .map(|&along| {
            let mut run = Run::ready_from(along);
            let own = Cell::planar(0, 0);
            run.world.unscrew(&own, &Cell::planar(1, 0)).expect("screwed at the start");
            run.motion(Motion::Part { by: 0.015 });
            let parted = run.block(&own);
            run.motion(Motion::Raise { angle: 0.2 });
            assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
            let up = run.block(&own);
            (pitch(&up) - pitch(&parted), bottom_edge(&up, -1.0))
        })
        .collect();
    let spread_turn = (ends[0].0 - ends[1].0).abs();
    let spread_edge = (ends[0].1 - ends[1].1).abs();
    eprintln!(
        "raise from starts -0.5 / +0.5 mm: turned {:.4} / {:.4} rad, far edge {:.2} / {:.2} mm; spread {:.2} mrad, {:.3} mm",
        ends[0].0,
        ends[1].0,
        ends[0].1 * 1e3,
        ends[1].1 * 1e3,
        spread_turn * 1e3,
        spread_edge * 1e3
    );
    assert!(spread_turn < 3e-3 && spread_edge < 5e-4, "{ends:?}");
}

/// Where a lift onto the neighbour ended.
struct Lifted {
    /// A's pose, m.
    a: Isometry3<f64>,
    /// The cell A should land in.
    target: Cell,
    /// The other blocks' largest offset from their cells, m.
    others: f64,
    /// The least floor load of B and C together during the part, N.
    least_pair: f64,
}

/// The lift onto the neighbour (`Motion::LiftOnto`, the planar model's searched path) in
/// the physics, with the model's 0.52 N m universal joints and its grip clamp (twice
/// that). With `lead` [`Head::Front`] task 1's start "R##." (B towards +x, the robot
/// facing it); with [`Head::Rear`] its mirror image ".##R" (B towards -x, behind the
/// robot, which heads +x as before). The mole is first moved `along` its tunnel (the
/// executor's crawls leave it within ~1.2 mm), crawled as if from the centre (forward, or
/// backward when the rear head leads) until the head that holds A grips near
/// [`LIFT_ONTO_REAR_GRIP`] from A's centre towards B, A unscrewed, then the motion (let go
/// and grip again, part 48 mm, draw in, the path).
fn lift_onto_from(along: f64, lead: Head) -> (Lifted, Run) {
    let wall = std::time::Instant::now();
    // Towards B along x; the head that stays in A and its picture.
    let (towards, holder, picture, own, next, third, target) = match lead {
        Head::Front => (1.0, "head_rear", "R##.", Cell::planar(0, 0), Cell::planar(1, 0), Cell::planar(2, 0), Cell::new(1, 0, 1)),
        Head::Rear => (-1.0, "head_front", ".##R", Cell::planar(3, 0), Cell::planar(2, 0), Cell::planar(1, 0), Cell::new(2, 0, 1)),
    };
    let lattice = Lattice::from_picture(picture).expect("picture");
    let world =
        MoleWorld::in_lattice(&committed_model(), &lattice, tunnel_world_options(), BlockOptions::default()).expect("the world builds");
    let firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    let mut run = Run { world, firmware };
    run.world.shift_robot(0, &Vector3::new(along, 0.0, 0.0)).expect("robot 0");
    run.drive(0.3);
    // The holding head starts 56 mm from A's centre away from B (the body at its centre).
    let crawl = LIFT_ONTO_REAR_GRIP + 0.056;
    run.motion(Motion::Crawl { step: 0.25 * crawl, iterations: 4, backward: towards < 0.0 });
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    let held = towards * (run.world.link_pose(holder).expect("link").translation.x - run.block(&own).translation.x);
    run.world.set_solver_iterations(LIFT_SOLVER_ITERATIONS);
    run.world.unscrew(&own, &next).expect("screwed at the start");
    let t0 = run.world.time();
    run.firmware.push(Motion::LiftOnto { lead }).expect("valid");
    // Through the part: the floor's load on B and C (screwed together) and on A.
    let weight = 2.0 * 0.25 * 9.81;
    let (mut least_pair, mut most_a) = (f64::INFINITY, 0.0f64);
    while !run.firmware.finished().iter().any(|r| r.phase == "part") && run.firmware.stuck().is_none() {
        let reading = run.world.sensors();
        let command = run.firmware.step(reading.stamp, &reading);
        run.world.step("mole", &command).expect("fits");
        if run.firmware.finished().iter().any(|r| r.phase == "grip") {
            let pair = run.world.floor_load(&next).expect("block") + run.world.floor_load(&third).expect("block");
            least_pair = least_pair.min(pair);
            most_a = most_a.max(run.world.floor_load(&own).expect("block"));
        }
    }
    let parted = towards * (run.block(&own).translation.x - run.world.cell_centre(&own).x);
    until_idle(&mut run.world, &mut run.firmware, 0.0, |_| {});
    let a = run.block(&own);
    let centre = run.world.cell_centre(&target);
    let down = a.rotation * Vector3::z();
    let offsets = run.world.block_offsets();
    let others = offsets.iter().filter(|(c, _)| *c != own).map(|(_, o)| *o).fold(0.0, f64::max);
    let sim = run.world.time() - t0;
    // A's offset from its cell seen from the robot's side of the lift (x towards B), so
    // the stored lift and its mirror image read alike.
    let off = a.translation.vector - centre;
    eprintln!(
        "{lead:?} head leading, start {:+.1} mm: holding head {:.2} mm from A's centre towards B; part: A to {:.2} mm, floor load on B and C at least {:.2} N \
         (their weight {weight:.2} N), on A at most {:.2} N; {} after {sim:.2} s sim, {:.1} s wall; A at ({:.2}, {:.2}, {:.2}) mm, {:.3} mm from the cell on B, \
         off ({:+.3}, {:+.3}, {:+.3}) mm (x towards B, y turned with it), its z axis {:.2} deg from straight down; B {:.4} mm, C {:.4} mm from their cells",
        along * 1e3,
        held * 1e3,
        parted * 1e3,
        least_pair,
        most_a,
        run.firmware.status(),
        wall.elapsed().as_secs_f64(),
        a.translation.x * 1e3,
        a.translation.y * 1e3,
        a.translation.z * 1e3,
        off.norm() * 1e3,
        towards * off.x * 1e3,
        towards * off.y * 1e3,
        off.z * 1e3,
        down.angle(&-Vector3::z()).to_degrees(),
        offsets.iter().find(|(c, _)| *c == next).map_or(f64::NAN, |(_, o)| o * 1e3),
        offsets.iter().find(|(c, _)| *c == third).map_or(f64::NAN, |(_, o)| o * 1e3),
    );
    for r in run.firmware.finished() {
        eprintln!("  {} {:.2}-{:.2}", r.phase, r.started, r.ended);
    }
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    (Lifted { a, target, others, least_pair }, run)
}

/// A lifted as the motion should leave it: within the executor's 5 mm of the cell on B,
/// upside down (its local +z face is its bottom now) resting on its lowest corner (0.5
/// mm), the others within 3 mm (the tilt is across the row, out of the path's plane); B
/// and the block screwed to it where they were (1 mm), and through the part the floor
/// bore B and C with at least half their weight.
fn assert_lifted(lifted: &Lifted, start: &str) {
    let Lifted { a, target, others, least_pair } = lifted;
    assert!(*least_pair > 0.5 * 2.0 * 0.25 * 9.81, "{start}: B and C bore only {least_pair} N during the part");
    let centre = Vector3::new(0.1 * target.x as f64, 0.0, 0.15);
    let corners: Vec<f64> = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
        .iter()
        .map(|&(u, v)| (a * Point3::new(0.05 * u, 0.05 * v, 0.05)).z - 0.1)
        .collect();
    let (low, high) = corners.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &c| (l.min(c), h.max(c)));
    let off = (a.translation.vector - centre).norm();
    assert!(off < 5e-3, "{start}: A ends {off} m from the cell on B");
    assert!(low.abs() < 5e-4 && high < 3e-3, "{start}: A's bottom corners {corners:?} m above B");
    assert!(*others < 1e-3, "{start}: a block under A moved {others} m");
}

/// The lift onto the neighbour from the nominal start and 1.5 mm either way along the
/// tunnel: each time the part pushes A, not B and its screwed neighbour (before the heads
/// let go and gripped again, a start 0.5 mm ahead pushed B 12.7 mm: the held chain,
/// clamped at both ends, carried the crawl's strain and lifted B; docs/molemod_execution.md),
/// and A ends upside down on B.
#[test]
#[ignore = "three lifts, 517 s wall at load 3-4 (2026-11-30); the suite's lift is molemod_execute's task 1 lift from the nominal start; run with scripts/molemod_measure.sh"]
fn a_lift_onto_the_neighbour_parts_and_lifts_from_starts_along_the_tunnel() {
    for along in [-0.0015, 0.0, 0.0015] {
        assert_lifted(&lift_onto_from(along, Head::Front).0, &format!("start {along}"));
    }
}

/// The mirror image (`Motion::LiftOnto { lead: Head::Rear }`): ".##R", B behind the robot
/// (towards -x), the robot heading +x; the front head crawls back to its grip in A and
/// holds it, the rear head goes into B's tunnel, and A ends upside down on B at (2, 0, 1).
/// From the nominal start (the mirror image of the stored lift's nominal start). Then the
/// mirrored put down (`Motion::PutDown { lead: Head::Rear }`, from where the mirrored lift
/// ends) sets A back down into the cell it came from, (3, 0, 0), now free, as
/// `molemod_put_down` checks the stored one.
#[test]
#[ignore = "a lift and a put down, 272 s wall at load 3 (2026-11-30); the suite keeps the front-led lift and put down (molemod_put_down); run with scripts/molemod_measure.sh"]
fn a_lift_onto_the_neighbour_behind_and_the_put_down_with_the_rear_head_leading() {
    let (lifted, mut run) = lift_onto_from(0.0, Head::Rear);
    assert_lifted(&lifted, "mirrored, nominal start");
    let (t0, wall) = (run.world.time(), std::time::Instant::now());
    run.motion(Motion::PutDown { lead: Head::Rear });
    eprintln!(
        "mirrored put down: {} after {:.2} s sim, {:.1} s wall",
        run.firmware.status(),
        run.world.time() - t0,
        wall.elapsed().as_secs_f64()
    );
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    assert_put_back(&run.world, &Cell::planar(3, 0), &[Cell::planar(2, 0), Cell::planar(1, 0)], "mirrored put down");
}

/// Where the mole's three main cubes are: (x, z) of each centre, m, and its x axis' pitch,
/// rad, for the front head, the body and the rear head.
fn mole_cubes(run: &Run) -> [(f64, f64, f64); 3] {
    ["head_front", "base_link", "head_rear"].map(|link| {
        let p = run.world.link_pose(link).expect("link");
        (p.translation.x, p.translation.z, pitch(&p))
    })
}

/// A's, B's and the third block's cells in the lift led by `lead` ([`lift_onto_from`]).
fn lift_cells(lead: Head) -> [Cell; 3] {
    match lead {
        Head::Front => [Cell::planar(0, 0), Cell::planar(1, 0), Cell::planar(2, 0)],
        Head::Rear => [Cell::planar(3, 0), Cell::planar(2, 0), Cell::planar(1, 0)],
    }
}

/// The lift onto the neighbour led by `lead` from a start moved `along` (m) along the
/// tunnel ([`lift_onto_from`], 512 solver passes; task 1's with [`Head::Front`]), A screwed to B as the executor screws it
/// after a lift, then `Motion::LeaveU { lead }` at the same passes. Checks that A, B and the
/// block beyond stay where they are (within 0.1 mm and 1 mrad, read at every step) and that
/// the mole ends straight (every main cube's x axis within 5 mrad of level) at the tunnel's
/// height (every cube's centre within 2 mm of 45 mm), the leading head still clamped in B.
/// Returns the run and the three cubes.
fn lift_then_leave_the_u(along: f64, lead: Head) -> (Run, [(f64, f64, f64); 3]) {
    let (lifted, mut run) = lift_onto_from(along, lead);
    assert_lifted(&lifted, &format!("start {along}"));
    let [own, next, third] = lift_cells(lead);
    // The head in B: its index among the heads (front, rear).
    let leading = match lead {
        Head::Front => 0,
        Head::Rear => 1,
    };
    run.world.screw(&own, &next).expect("A lies on B");
    let cells = [own, next, third];
    let before = cells.map(|c| run.block(&c));
    let (t0, wall, done0) = (run.world.time(), std::time::Instant::now(), run.firmware.finished().len());
    run.firmware.push(Motion::LeaveU { lead }).expect("valid");
    // The blocks' largest displacement (m) and turn (rad) from where they were, every step.
    let (mut moved, mut turned) = ([0.0f64; 3], [0.0f64; 3]);
    while !run.firmware.idle() {
        let reading = run.world.sensors();
        let command = run.firmware.step(reading.stamp, &reading);
        run.world.step("mole", &command).expect("fits");
        for (k, c) in cells.iter().enumerate() {
            let now = run.block(c);
            moved[k] = moved[k].max((now.translation.vector - before[k].translation.vector).norm());
            turned[k] = turned[k].max(now.rotation.angle_to(&before[k].rotation));
        }
        assert!(run.world.time() - t0 < 60.0, "not done after 60 s: {}", run.firmware.status());
    }
    let cubes = mole_cubes(&run);
    eprintln!(
        "leave the U, {lead:?} head leading, start {:+.1} mm: {} after {:.2} s sim, {:.1} s wall; A, B, C moved at most {:.4?} mm, turned at most {:.3?} mrad; \
         front head, body, rear head at (x, z) {:.2?} mm, pitch {:.2?} mrad; leading head clamped {}; load average {}",
        along * 1e3,
        run.firmware.status(),
        run.world.time() - t0,
        wall.elapsed().as_secs_f64(),
        moved.map(|m| m * 1e3),
        turned.map(|t| t * 1e3),
        cubes.map(|(x, z, _)| (x * 1e3, z * 1e3)),
        cubes.map(|(_, _, p)| p * 1e3),
        run.world.head_clamped(leading),
        load_average()
    );
    for r in &run.firmware.finished()[done0..] {
        eprintln!("  {} {:.2}-{:.2}", r.phase, r.started - t0, r.ended - t0);
    }
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    assert!(moved.iter().all(|&m| m < 1e-4) && turned.iter().all(|&t| t < 1e-3), "blocks moved {moved:?} m, turned {turned:?} rad");
    let b = run.block(&next).translation.x;
    assert!(cubes.iter().all(|&(_, z, p)| (z - 0.045).abs() < 2e-3 && p.abs() < 5e-3), "{cubes:?}");
    assert!((cubes[2 * leading].0 - b).abs() < 0.05 && run.world.head_clamped(leading), "the leading head left B: {cubes:?}");
    (run, cubes)
}

/// Leaving the U ([`lift_then_leave_the_u`]) after task 1's lift from a start 1.5 mm along
/// the tunnel (the nominal start and the mirror image are
/// [`entering_the_u_again_lets_the_put_down_follow`]'s), then the way on into the tunnels:
/// `Motion::StepIn` at the lift's passes (the rear head set down on the floor of the empty
/// cell as the second hold, the rear half drawn up into B) and one crawl cycle on (2 x 10
/// mm) at the world's (docs/molemod_execution.md, "Stepping between a tunnel and the
/// floor"). Checks that no phase sticks, the blocks stay (0.5 mm), the step ends with the
/// mole straight in B's and C's tunnels (the heads within 3 mm of the planned 172 and 60
/// mm, every cube within 2 mm of the tunnel's height and 10 mrad of level, both heads
/// clamped) and the crawl carries it on 20 mm (within 2 mm).
#[test]
#[ignore = "a lift, leave the U and step in, over 3 min wall at load 3 (2026-11-30); run with scripts/molemod_measure.sh"]
fn leaving_the_u_and_stepping_into_the_tunnels_after_the_lift_onto_the_neighbour() {
    let (mut run, _) = lift_then_leave_the_u(0.0015, Head::Front);
    let cells = lift_cells(Head::Front);
    let before = cells.map(|c| run.block(&c));
    let (t0, wall) = (run.world.time(), std::time::Instant::now());
    run.motion(Motion::StepIn { lead: Head::Front });
    let moved = [0, 1, 2].map(|k| (run.block(&cells[k]).translation.vector - before[k].translation.vector).norm());
    let stepped = mole_cubes(&run);
    eprintln!(
        "step in: {} after {:.2} s sim, {:.1} s wall; A, B, C moved {:.4?} mm; front head, body, rear head at (x, z) {:.2?} mm, pitch {:.2?} mrad; \
         clamped {} {}; load average {}",
        run.firmware.status(),
        run.world.time() - t0,
        wall.elapsed().as_secs_f64(),
        moved.map(|m| m * 1e3),
        stepped.map(|(x, z, _)| (x * 1e3, z * 1e3)),
        stepped.map(|(_, _, p)| p * 1e3),
        run.world.head_clamped(0),
        run.world.head_clamped(1),
        load_average()
    );
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    assert!(moved.iter().all(|&m| m < 5e-4), "blocks moved {moved:?} m");
    assert!((stepped[0].0 - 0.172).abs() < 3e-3 && (stepped[2].0 - 0.060).abs() < 3e-3, "{stepped:?}");
    assert!(stepped.iter().all(|&(_, z, p)| (z - 0.045).abs() < 2e-3 && p.abs() < 1e-2), "{stepped:?}");
    assert!(run.world.head_clamped(0) && run.world.head_clamped(1), "a head does not hold after the step in");
    run.world.set_solver_iterations(tunnel_world_options().solver_iterations);
    run.motion(Motion::Crawl { step: 0.01, iterations: 2, backward: false });
    let crawled = mole_cubes(&run);
    eprintln!(
        "then a crawl cycle (2 x 10 mm): {}; the cubes moved {:.2?} mm along x, pitch {:.2?} mrad",
        run.firmware.status(),
        [0, 1, 2].map(|k| (crawled[k].0 - stepped[k].0) * 1e3),
        crawled.map(|(_, _, p)| p * 1e3)
    );
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    assert!((0..3).all(|k| (crawled[k].0 - stepped[k].0 - 0.02).abs() < 2e-3), "{crawled:?}");
}

/// Leaving the U ([`lift_then_leave_the_u`]), then the way back in (`Motion::EnterU`, the
/// same table backwards) at the same passes: the holding head back in A's mouth, both heads
/// gripping, A unscrewed again, and the put down (`Motion::PutDown`) sets A back into the
/// cell it came from, as after the lift alone (`molemod_put_down`). Task 1's (the front head
/// leading) and its mirror image (".##R", the rear head leading).
#[test]
#[ignore = "two lifts with leave U, enter U and put down, over 8 min wall at load 3 (2026-11-30); run with scripts/molemod_measure.sh"]
fn entering_the_u_again_lets_the_put_down_follow() {
    for lead in [Head::Front, Head::Rear] {
        enter_the_u_and_put_down(lead);
    }
}

/// [`entering_the_u_again_lets_the_put_down_follow`] with `lead` leading.
fn enter_the_u_and_put_down(lead: Head) {
    let (mut run, _) = lift_then_leave_the_u(0.0, lead);
    let [own, next, third] = lift_cells(lead);
    let (holder, holding) = match lead {
        Head::Front => ("head_rear", 1),
        Head::Rear => ("head_front", 0),
    };
    let a0 = run.block(&own);
    let (t0, wall) = (run.world.time(), std::time::Instant::now());
    run.motion(Motion::EnterU { lead });
    let a = run.block(&own);
    let grip = a.inverse_transform_point(&Point3::from(run.world.link_pose(holder).expect("link").translation.vector));
    eprintln!(
        "enter the U, {lead:?} head leading: {} after {:.2} s sim, {:.1} s wall; A moved {:.4} mm; holding head clamped {}, at ({:.2}, {:.2}, {:.2}) mm in A's frame",
        run.firmware.status(),
        run.world.time() - t0,
        wall.elapsed().as_secs_f64(),
        (a.translation.vector - a0.translation.vector).norm() * 1e3,
        run.world.head_clamped(holding),
        grip.x * 1e3,
        grip.y * 1e3,
        grip.z * 1e3
    );
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    assert!(run.world.head_clamped(holding), "the holding head does not hold A");
    run.world.unscrew(&own, &next).expect("screwed after the lift");
    let (t1, wall) = (run.world.time(), std::time::Instant::now());
    run.motion(Motion::PutDown { lead });
    eprintln!(
        "put down: {} after {:.2} s sim, {:.1} s wall; load average {}",
        run.firmware.status(),
        run.world.time() - t1,
        wall.elapsed().as_secs_f64(),
        load_average()
    );
    assert!(run.firmware.stuck().is_none(), "{}", run.firmware.status());
    assert_put_back(&run.world, &own, &[next, third], &format!("put down after leaving and entering the U, {lead:?} head leading"));
}
