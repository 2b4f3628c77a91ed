//! The mole climbing a vertical tunnel (issue #18, vertical moves): the inchworm gait with
//! the mole upright in a column of blocks, so the head that holds carries the whole mole
//! (1.96 N, against the prismatic joints' 15 N and the grip clamp's 30 N).

use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{MoleMotions, Motion};
use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use reconfig_planner::lattice::{Cell, Lattice};
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::world::{MoleWorld, MoleWorldOptions};
use tank_physics::systems::molemod::ArticulatedOptions;

#[allow(dead_code)]
#[path = "support/mole.rs"]
mod mole;
use mole::{axes, committed_model};

const LINKS: [&str; 3] = ["head_front", "base_link", "head_rear"];

/// A column of four blocks on a row of three; the robot starts in the column's second
/// block, turned upright (front head up) about that block's centre into its vertical
/// tunnel: the side it lay on now rests against the tunnel's +x wall.
fn upright_in_column() -> (MoleWorld, MoleMotions, Vector3<f64>) {
    let lattice = Lattice::from_picture(".#.\n.#.\n.R.\n###").expect("picture");
    let options = MoleWorldOptions {
        robot: ArticulatedOptions { edge_radius: 0.004, ..ArticulatedOptions::default() },
        ..MoleWorldOptions::default()
    };
    let mut world = MoleWorld::in_lattice(&committed_model(), &lattice, options, BlockOptions::default()).expect("the world builds");
    let centre = world.block_pose(&Cell::planar(1, 1)).expect("block").translation.vector;
    // About +y by -90 degrees: the heading +x turns to +z.
    let turn: Isometry3<f64> = Translation3::from(centre)
        * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -std::f64::consts::FRAC_PI_2)
        * Translation3::from(-centre);
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
    let (mut world, mut firmware, centre) = upright_in_column();
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
