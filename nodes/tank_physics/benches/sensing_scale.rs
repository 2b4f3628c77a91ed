//! Cost of stepping and sensing as the swarm grows, one thread.
//! `cargo bench -p tank_physics --no-default-features --bench sensing_scale`
//!
//! N = 64, 256, 1024, 4096 robots in a square stirred tank of 0.01 m^2 per robot (constant
//! density), two kinds: Lilies (all latches on: latch capture in the step, latch state and
//! light sensing) and MHP squares on a 10 cm lattice with a light target beyond the east
//! wall (per-face contact and target sensors with occlusion). The world steps at its dt
//! (25 ms) and every robot is read at 10 Hz of sim time. Reported per N: the real-time
//! factor of step + sensing, sensing cost per tick, step cost, and the cost per robot
//! relative to N = 64 (1.0 = linear growth). Thread CPU time, so other load does not count.
//! Sensing is timed from `World::bodies()` to the last reading, through one
//! one indexed snapshot per tick (`RobotBus::read_tick`; the figures before the index went through `RobotBus::read` per robot).

use flotilla_common::catalogue::ModuleKind;
use std::hint::black_box;
use std::time::Duration;
use tank_physics::config::{ArenaKind, ModuleGroup};
use tank_physics::robots::{LightSpot, RobotBus, SensingConfig};
use tank_physics::{Command, HydroParams, World, WorldConfig};

/// Sim time per run, s.
const SIM_SECONDS: f64 = 2.0;
/// Sensing rate, Hz of sim time.
const SENSING_HZ: f64 = 10.0;
/// CPU time after which a run stops early (the O(N^2) code at N = 4096), s.
const CPU_BUDGET: f64 = 30.0;
/// Area per robot, m^2.
const AREA_PER_ROBOT: f64 = 0.01;

#[path = "support/cpu.rs"]
mod cpu;
use cpu::thread_cpu_time;

#[derive(Clone, Copy)]
enum Swarm {
    Lilies,
    MhpSquares,
}

/// A square stirred tank of `n` * 0.01 m^2 without inlets.
fn tank(n: usize) -> WorldConfig {
    let side = (n as f64 * AREA_PER_ROBOT).sqrt();
    let mut config = WorldConfig { hydro: HydroParams::lily_published(), pumps: Vec::new(), ..WorldConfig::default() };
    config.arena.kind = ArenaKind::RectTank;
    config.arena.size_x = side;
    config.arena.size_y = side;
    config.arena.inlets.count = 0;
    config
}

fn scenario(swarm: Swarm, n: usize) -> (WorldConfig, SensingConfig) {
    let mut config = tank(n);
    let side = config.arena.size_x;
    let spots = (0..4).map(|i| LightSpot { x: side * (0.125 + 0.25 * i as f64) - 0.5 * side, y: 0.0, radius: 0.1 * side, level: 0.8 });
    let sensing = SensingConfig { light_spots: spots.collect(), target: Some([side, 0.0]), ..SensingConfig::default() };
    match swarm {
        Swarm::Lilies => config = config.with_modules(ModuleKind::Lily, n, "lily"),
        Swarm::MhpSquares => {
            // 10 cm lattice (8 cm modules, 2 cm gaps), cells centred in the tank.
            let per_row = (side / 0.1).floor() as usize;
            let poses = (0..n)
                .map(|i| {
                    let (col, row) = ((i % per_row) as f64, (i / per_row) as f64);
                    [-0.5 * side + 0.05 + 0.1 * col, -0.5 * side + 0.05 + 0.1 * row, 0.0]
                })
                .collect();
            config.modules.push(ModuleGroup { prefix: "mhp".into(), kind: ModuleKind::MhpSquare, count: n, poses: Some(poses) });
        }
    }
    (config, sensing)
}

struct Costs {
    sim_seconds: f64,
    ticks: usize,
    step: Duration,
    sensing: Duration,
}

fn run(swarm: Swarm, n: usize) -> Costs {
    let (config, sensing) = scenario(swarm, n);
    let dt = config.dt;
    let mut world = World::new(config, 1).expect("bench scenario");
    for body in world.bodies() {
        let cmd = Command { latch_on: vec![matches!(swarm, Swarm::Lilies); body.faces.len()], ..Command::default() };
        world.command(body.id, &cmd).expect("latch command");
    }
    let mut bus = RobotBus::new(sensing).expect("sensing config");
    let steps_per_tick = (1.0 / (SENSING_HZ * dt)).round() as usize;
    let ticks = (SIM_SECONDS * SENSING_HZ).round() as usize;
    let mut costs = Costs { sim_seconds: 0.0, ticks: 0, step: Duration::ZERO, sensing: Duration::ZERO };
    for _ in 0..ticks {
        let t0 = thread_cpu_time();
        for _ in 0..steps_per_tick {
            world.step();
        }
        let t1 = thread_cpu_time();
        let bodies = world.bodies();
        black_box(bus.read_tick(&bodies, 0..bodies.len(), world.time()));
        let t2 = thread_cpu_time();
        costs.step += t1 - t0;
        costs.sensing += t2 - t1;
        costs.ticks += 1;
        costs.sim_seconds += steps_per_tick as f64 * dt;
        if (costs.step + costs.sensing).as_secs_f64() > CPU_BUDGET {
            break;
        }
    }
    costs
}

fn main() {
    // `cargo bench` passes `--bench`; a test run passes nothing: run the quick path then.
    if !std::env::args().any(|a| a == "--bench") {
        println!("sensing_scale: run with `cargo bench` for measurements");
        return;
    }
    // `-- 1024` (any sizes) runs only those, e.g. under a profiler.
    let only: Vec<usize> = std::env::args().filter_map(|a| a.parse().ok()).collect();
    for (swarm, label) in [(Swarm::Lilies, "Lilies, latches on"), (Swarm::MhpSquares, "MHP squares, target")] {
        let mut base_per_robot = None;
        for n in [64, 256, 1024, 4096].into_iter().filter(|n| only.is_empty() || only.contains(n)) {
            let c = run(swarm, n);
            let total = (c.step + c.sensing).as_secs_f64();
            let per_robot = total / (c.sim_seconds * n as f64);
            let base = *base_per_robot.get_or_insert(per_robot);
            println!(
                "{label:<20} N {n:>5}: {:>8.1} x real time over {:.1} s sim ({} ticks); sensing {:>9.3} ms/tick, step {:>8.3} ms/step; \
                 cost per robot {:>5.2} x N=64",
                c.sim_seconds / total,
                c.sim_seconds,
                c.ticks,
                c.sensing.as_secs_f64() * 1e3 / c.ticks as f64,
                c.step.as_secs_f64() * 1e3 / (c.sim_seconds / 0.025),
                per_robot / base
            );
        }
    }
}
