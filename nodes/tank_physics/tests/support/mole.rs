//! The mole of the MoleMOD physics tests: the committed final model and the firmware's
//! view of its joints.

use flotilla_common::models::{read_urdf, Model};
use flotilla_contract::molemod::MolemodSensors;
use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{AxisSpec, MoleMotions, Motion};
use nalgebra::{Isometry3, Point3, Vector3};
use reconfig_planner::lattice::Cell;
use std::path::Path;
use std::time::Instant;
use tank_physics::systems::molemod::world::MoleWorld;

/// `urdf/molemod_robot.urdf`, the final model (three main cubes, four prismatic and two
/// universal joints).
pub fn committed_model() -> Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../urdf/molemod_robot.urdf");
    read_urdf(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// The firmware's view of the robot: its joint coordinates in reading order.
pub fn axes(world: &MoleWorld) -> Vec<AxisSpec> {
    let robot = world.robot();
    robot
        .joint_names()
        .map(|name| {
            let limits = robot.limits(name).expect("joint");
            AxisSpec {
                name: name.to_owned(),
                prismatic: robot.is_prismatic(name).expect("joint"),
                lower: limits.lower,
                upper: limits.upper,
            }
        })
        .collect()
}

/// Steps the world's robot `mole` under `firmware` until it is idle and at least `min_s`
/// passed, handing every reading of the motion to `each`; panics after 60 s.
pub fn until_idle(world: &mut MoleWorld, firmware: &mut MoleMotions, min_s: f64, each: impl FnMut(&MolemodSensors)) {
    let until = world.time() + min_s;
    let finished = world.drive("mole", firmware, 60.0, |fw| fw.idle(), each).expect("the firmware's commands fit the robot");
    assert!(finished, "motion not done after 60 s: {}", firmware.status());
    let rest = until - world.time();
    if rest > 0.0 {
        world.drive("mole", firmware, rest, |_| false, |_| {}).expect("fits");
    }
}

/// Runs `motion` to its end (see [`until_idle`]); panics if it gets stuck.
pub fn run_motion(world: &mut MoleWorld, firmware: &mut MoleMotions, motion: Motion, each: impl FnMut(&MolemodSensors)) {
    firmware.push(motion).expect("a valid motion");
    until_idle(world, firmware, 0.0, each);
    assert!(firmware.stuck().is_none(), "{}", firmware.status());
}

/// A start pose drawn from `seed`: anywhere within 0.5 m, any heading.
pub fn start_pose(seed: u64) -> Isometry3<f64> {
    // SplitMix64: a seeded start without another dependency.
    let mut state = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let (x, y, yaw) = (next() - 0.5, next() - 0.5, (2.0 * next() - 1.0) * std::f64::consts::PI);
    Isometry3::new(Vector3::new(x, y, 0.0), Vector3::z() * yaw)
}

/// Checks a block put back down into the cell it started from (`a`, which names the block
/// too): within the executor's 5 mm of the cell's centre, upright within 3 degrees, and the
/// blocks of `others` within 1 mm of their cells. Prints where A ends.
pub fn assert_put_back(world: &MoleWorld, a: &Cell, others: &[Cell], label: &str) {
    let pose = world.block_pose(a).expect("A");
    let centre = world.cell_centre(a);
    let off = pose.translation.vector - centre;
    let tilt = (pose.rotation * Vector3::z()).angle(&Vector3::z());
    let corners: Vec<f64> = [(-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0)]
        .iter()
        .map(|&(u, v)| (pose * Point3::new(0.05 * u, 0.05 * v, -0.05)).z)
        .collect();
    let moved: Vec<f64> = others.iter().map(|c| world.block_error(c, c).expect("block")).collect();
    eprintln!(
        "{label}: A {:.2} mm from its cell's centre ({:+.2}, {:+.2}, {:+.2}) mm, its z axis {:.2} deg from up, bottom corners {:.2} to {:.2} mm above the floor; \
         the other blocks {:.3?} mm from their cells",
        off.norm() * 1e3,
        off.x * 1e3,
        off.y * 1e3,
        off.z * 1e3,
        tilt.to_degrees(),
        corners.iter().copied().fold(f64::INFINITY, f64::min) * 1e3,
        corners.iter().copied().fold(f64::NEG_INFINITY, f64::max) * 1e3,
        moved.iter().map(|m| m * 1e3).collect::<Vec<_>>(),
    );
    assert!(off.norm() < 5e-3, "{label}: A ends {} m from its cell's centre", off.norm());
    assert!(tilt < 3f64.to_radians(), "{label}: A's z axis {} deg from up", tilt.to_degrees());
    assert!(moved.iter().all(|m| *m < 1e-3), "{label}: the other blocks moved {moved:?} m");
}

/// The machine's load average (`/proc/loadavg`), printed beside the tests' wall times.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(|e| format!("/proc/loadavg: {e}"), |s| s.trim().to_owned())
}

/// (x, z, pitch) of the front head, the body and the rear head, m and rad.
pub fn cubes(world: &MoleWorld) -> [(f64, f64, f64); 3] {
    ["head_front", "base_link", "head_rear"].map(|link| {
        let p = world.link_pose(link).expect("link");
        let x = p.rotation * Vector3::x();
        (p.translation.x, p.translation.z, -x.z.atan2(x.x))
    })
}

/// Runs `motion` at the world's present solver passes (the robot `mole`), printing the mole
/// after each phase;
/// returns the largest displacement of each of `cells`' blocks from where it was (m, read
/// after every phase), the sim time (s) and the wall time (s).
pub fn run_phases<const N: usize>(
    world: &mut MoleWorld,
    firmware: &mut MoleMotions,
    motion: Motion,
    cells: &[Cell; N],
) -> ([f64; N], f64, f64) {
    let before = cells.map(|c| world.block_pose(&c).expect("block"));
    let (t0, wall) = (world.time(), Instant::now());
    firmware.push(motion).expect("valid");
    let mut moved = [0.0f64; N];
    let mut done = firmware.finished().len();
    while !firmware.idle() {
        let finished = world.drive("mole", firmware, 30.0, |fw| fw.finished().len() > done || fw.idle(), |_| {}).expect("fits");
        for (k, c) in cells.iter().enumerate() {
            let now = world.block_pose(c).expect("block");
            moved[k] = moved[k].max((now.translation.vector - before[k].translation.vector).norm());
        }
        done = firmware.finished().len();
        let now = cubes(world);
        eprintln!(
            "  t {:6.2} s: {} ({}); front head, body, rear head at (x, z) {:.2?} mm, pitch {:.1?} mrad; clamped {} {}",
            world.time() - t0,
            firmware.finished().last().map_or("", |r| r.phase),
            if finished { "phase ended" } else { "30 s, no phase ended" },
            now.map(|(x, z, _)| (x * 1e3, z * 1e3)),
            now.map(|(_, _, p)| p * 1e3),
            world.head_clamped(0),
            world.head_clamped(1)
        );
        if !finished {
            break;
        }
    }
    let now = cubes(world);
    eprintln!(
        "{}: {} after {:.2} s sim, {:.1} s wall; the blocks of {:?} moved at most {:.4?} mm; front head, body, rear head at (x, z) \
         {:.2?} mm, pitch {:.2?} mrad; front clamped {}, rear clamped {}; load average {}",
        motion.name(),
        firmware.status(),
        world.time() - t0,
        wall.elapsed().as_secs_f64(),
        cells.map(|c| c.to_string()),
        moved.map(|m| m * 1e3),
        now.map(|(x, z, _)| (x * 1e3, z * 1e3)),
        now.map(|(_, _, p)| p * 1e3),
        world.head_clamped(0),
        world.head_clamped(1),
        load_average()
    );
    assert!(firmware.stuck().is_none(), "{}", firmware.status());
    (moved, world.time() - t0, wall.elapsed().as_secs_f64())
}
