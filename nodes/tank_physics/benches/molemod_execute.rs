//! MoleMOD plans executed by the physics: sim time per CPU time (and per wall time) for
//! one and three robots, one thread.
//! `cargo bench -p tank_physics --no-default-features --bench molemod_execute`
//!
//! Runs: `config/molemod/moves1.yaml` (one robot crawls two cells in a row of five
//! blocks), the same crawls by one robot in `moves3.yaml`'s row of twelve (the cost of
//! the blocks), `moves3.yaml` (three robots crawl in parallel in that row), and task
//! 1's first step (the set-up crawl and the lift onto the neighbour at the lift's solver
//! passes; the plan then stops at its shift, which has no motions yet). Each is planned by
//! the planner and executed as `flotilla experiment molemod execute` does (seed 1, start
//! jitter 1 mm). Ratios use this thread's CPU time (best of the repeats), so other load on
//! the machine does not count; wall time is printed beside it.

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::models::module_model;
use reconfig_planner::lattice::Lattice;
use reconfig_planner::{plan, PlanRequest};
use std::path::Path;
use std::time::{Duration, Instant};
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::{plan_task, tunnel_world_options, Executor, ExecutorOptions};

#[path = "support/cpu.rs"]
mod cpu;
use cpu::thread_cpu_time;

/// One measured execution of a plan.
struct Measured {
    /// Sim time at the end, s.
    sim_time: f64,
    /// Steps done and checked, count.
    steps_done: usize,
    /// Steps of the plan, count.
    steps: usize,
    /// This thread's CPU time for the execution.
    cpu: Duration,
    /// Wall time for the execution.
    wall: Duration,
}

/// `task`'s request with its first `robots` robots.
fn task_request(task: &str, robots: usize) -> PlanRequest {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/molemod").join(task);
    plan_task(&path, robots).unwrap_or_else(|e| panic!("planning {}: {e}", path.display())).request
}

/// Plans `request` and executes the plan `repeats` times; the run with the least CPU time.
/// World building is outside the timing.
fn measure(request: &PlanRequest, repeats: usize) -> Measured {
    let planned = plan(request).expect("a plan");
    let model = module_model(ModuleKind::MolemodRobot);
    let options = ExecutorOptions { start_jitter: 0.001, seed: 1, ..ExecutorOptions::default() };
    (0..repeats)
        .map(|_| {
            let mut executor = Executor::new(&model, &request.start, tunnel_world_options(), BlockOptions::default(), options)
                .expect("the task's world builds");
            let (wall, cpu) = (Instant::now(), thread_cpu_time());
            let execution = executor.execute(&planned.steps, &mut |_| {});
            Measured {
                sim_time: execution.sim_time,
                steps_done: execution.steps_succeeded,
                steps: execution.steps,
                cpu: thread_cpu_time() - cpu,
                wall: wall.elapsed(),
            }
        })
        .min_by_key(|m| m.cpu)
        .expect("at least one repeat")
}

fn report(label: &str, m: &Measured) {
    println!(
        "{label:<48} {}/{} steps, {:>5.1} s sim: CPU {:>6.1} s ({:>5.2} x real time); wall {:>6.1} s ({:>5.2} x)",
        m.steps_done,
        m.steps,
        m.sim_time,
        m.cpu.as_secs_f64(),
        m.sim_time / m.cpu.as_secs_f64(),
        m.wall.as_secs_f64(),
        m.sim_time / m.wall.as_secs_f64()
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a test run passes nothing: run the quick path then.
    if !std::env::args().any(|a| a == "--bench") {
        println!("molemod_execute: run with `cargo bench` for measurements");
        return;
    }
    report("moves1: 1 robot, 5 blocks", &measure(&task_request("moves1.yaml", 1), 3));
    let lone = |picture: &str| Lattice::from_picture(picture).expect("picture");
    let one_in_twelve = PlanRequest::new(lone("#R##########"), lone("###R########"));
    report("moves3's first robot alone: 1 robot, 12 blocks", &measure(&one_in_twelve, 3));
    report("moves3: 3 robots in parallel, 12 blocks", &measure(&task_request("moves3.yaml", 3), 3));
    report("task1 lift (512 passes): 1 robot, 3 blocks", &measure(&task_request("task1.yaml", 1), 1));
}
