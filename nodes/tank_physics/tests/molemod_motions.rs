//! The mole's motions as firmware (`flotilla_firmware::molemod::motion`) driving the final
//! model in rapier through the MoleMOD contract alone (joint readings in; joint velocities
//! and head grips out), as on a real mole: how far a crawl cycle moves it, how far a turn
//! turns it, how exact the joints end, and that it repeats.

use flotilla_contract::wrap_angle as wrap;
use flotilla_contract::Firmware;
use flotilla_firmware::molemod::motion::{MoleMotions, Motion};
use nalgebra::{Isometry3, Vector3};
use reconfig_planner::lattice::Lattice;
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::world::{MoleWorld, MoleWorldOptions};

// Shared support: each test binary uses part of it.
#[allow(dead_code)]
#[path = "support/mole.rs"]
mod mole;
use mole::{axes, committed_model, start_pose};

struct Run {
    world: MoleWorld,
    firmware: MoleMotions,
}

impl Run {
    /// A mole at `pose` on the floor, settled for 0.2 s with every joint held.
    fn new(pose: Isometry3<f64>) -> Self {
        let world = MoleWorld::new(&committed_model(), pose, MoleWorldOptions::default()).expect("the model builds");
        let firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
        let mut run = Self { world, firmware };
        run.until_idle(0.2);
        run
    }

    /// Steps until the firmware is idle and at least `min_s` passed; panics after 60 s.
    fn until_idle(&mut self, min_s: f64) {
        mole::until_idle(&mut self.world, &mut self.firmware, min_s, |_| {});
    }

    fn motion(&mut self, motion: Motion) {
        mole::run_motion(&mut self.world, &mut self.firmware, motion, |_| {});
    }

    fn body(&self) -> Isometry3<f64> {
        self.world.link_pose("base_link").expect("link")
    }

    fn heading(&self, link: &str) -> f64 {
        let x = self.world.link_pose(link).expect("link").rotation * Vector3::x();
        x.y.atan2(x.x)
    }
}

#[test]
fn a_crawl_moves_step_times_iterations_forward_and_back() {
    for step in [0.010, 0.015, 0.020] {
        let mut run = Run::new(Isometry3::identity());
        let start = run.body();
        let iterations = 6;
        run.motion(Motion::Crawl { step, iterations, backward: false });
        let moved = run.body().translation.vector - start.translation.vector;
        let expected = step * f64::from(iterations);
        let per_cycle = 2.0 * moved.x / f64::from(iterations);
        eprintln!(
            "crawl step {:.0} mm: {:.2} mm per expand+contract cycle (ideal {:.0}), {:.2} mm sideways, heading {:.4} rad, {:.2} s",
            step * 1e3,
            per_cycle * 1e3,
            2.0 * step * 1e3,
            moved.y * 1e3,
            run.heading("base_link"),
            run.world.time()
        );
        assert!((moved.x - expected).abs() < 0.05 * expected, "step {step}: moved {moved}, expected {expected} m");
        assert!(moved.y.abs() < 0.02 * expected, "drifted sideways {moved}");
        // Backward the same distance: back where it started.
        run.motion(Motion::Crawl { step, iterations, backward: true });
        let back = run.body().translation.vector - start.translation.vector;
        assert!(back.norm() < 0.05 * expected, "step {step}: {back} from the start after forward and back");
    }
}

#[test]
fn a_turn_turns_the_body_by_the_asked_angle() {
    for angle in [0.2, 0.4, -0.4, 0.8] {
        let mut run = Run::new(Isometry3::identity());
        let start = run.body();
        run.motion(Motion::Turn { angle, reach: 0.015 });
        let turned = wrap(run.heading("base_link") - run.heading_of(&start));
        let shifted = (run.body().translation.vector - start.translation.vector).norm();
        eprintln!(
            "turn {angle:+.2} rad: body turned {turned:+.4} rad ({:+.1} %), centre moved {:.2} mm",
            100.0 * (turned / angle - 1.0),
            shifted * 1e3
        );
        assert!((turned - angle).abs() < 0.1 * angle.abs(), "asked {angle}, turned {turned}");
    }
}

impl Run {
    fn heading_of(&self, pose: &Isometry3<f64>) -> f64 {
        let x = pose.rotation * Vector3::x();
        x.y.atan2(x.x)
    }
}

#[test]
fn every_phase_ends_with_its_joints_within_50_um_and_motions_repeat_over_start_poses() {
    let mut outcomes = Vec::new();
    for seed in 0..4 {
        let pose = start_pose(seed);
        let mut run = Run::new(pose);
        let start = run.body();
        run.motion(Motion::Crawl { step: 0.015, iterations: 4, backward: false });
        run.motion(Motion::Turn { angle: 0.5, reach: 0.015 });
        run.motion(Motion::Crawl { step: 0.015, iterations: 4, backward: false });
        // In the start frame: where the body went and how it turned.
        let relative = start.inverse() * run.body();
        let turned = wrap(run.heading("base_link") - run.heading_of(&start));
        // The phases ended only with their joints in the dead band; the reading now agrees.
        let reading = run.world.sensors();
        for (name, p) in run.world.robot().joint_names().zip(&reading.joint_positions) {
            if name.starts_with("prismatic_0") || name.starts_with("prismatic_3") {
                assert!(p.abs() <= 50e-6 + 1e-6, "seed {seed}: {name} at {p}");
            }
        }
        eprintln!(
            "seed {seed}: start ({:.3}, {:.3}) m, end in the start frame ({:.2}, {:.2}) mm, turned {turned:.4} rad, {} phases",
            pose.translation.x,
            pose.translation.y,
            relative.translation.x * 1e3,
            relative.translation.y * 1e3,
            run.firmware.finished().len()
        );
        outcomes.push((relative.translation.vector, turned));
    }
    let (first, turn0) = outcomes[0];
    for (i, (v, t)) in outcomes.iter().enumerate() {
        assert!((v - first).norm() < 1e-3, "start {i} ends {v} vs {first} in its own frame");
        assert!((t - turn0).abs() < 0.01, "start {i} turned {t} vs {turn0}");
    }
}

#[test]
fn a_blocked_joint_stops_the_mole_with_a_report() {
    // A fault the firmware cannot see: both heads held gripping where each is clamped in a
    // block ("#R#": the heads in the two blocks beside the robot's, screwed together), so
    // the expansion would have to pull a 30 N clamp with the joints' 15 N and never ends.
    // On the open floor the fault no longer blocks them: at friction 1 (and even 1000, on
    // head and floor) the 15 N joints drag the heads (the expansion ended in 1.2 s).
    let lattice = Lattice::from_picture("#R#").expect("picture");
    let world = MoleWorld::in_lattice(&committed_model(), &lattice, MoleWorldOptions::default(), BlockOptions::default()).expect("builds");
    let firmware = MoleMotions::new(axes(&world)).expect("the final model has the motions' joints");
    let mut run = Run { world, firmware };
    run.until_idle(0.2);
    run.firmware.phase_timeout = 2.0;
    run.firmware.push(Motion::Crawl { step: 0.02, iterations: 1, backward: false }).expect("valid");
    let mut steps = 0;
    while !run.firmware.idle() && steps < 5000 {
        let reading = run.world.sensors();
        let mut command = run.firmware.step(reading.stamp, &reading);
        command.head_grip = vec![true, true];
        run.world.step("mole", &command).expect("fits");
        steps += 1;
    }
    assert!(run.world.head_clamped(0) && run.world.head_clamped(1), "both heads clamped");
    let stuck = run.firmware.stuck().expect("the blocked expansion stops the mole");
    eprintln!("blocked: {stuck}");
    assert_eq!((stuck.motion, stuck.phase), (0, "expand"));
    // Jammed, not slow: the joint is still far from its target after twice the 1 s an
    // unloaded expansion takes.
    assert!((stuck.position - stuck.target).abs() > 5e-3, "{stuck}");
    assert!(run.firmware.status().contains("stopped"));
}
