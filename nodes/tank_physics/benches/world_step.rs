//! World stepping speed as a ratio to real time, one thread.
//! `cargo bench -p tank_physics --no-default-features --bench world_step`
//!
//! Scenarios: 24 balls and 15 Lilies (all latches on) in the Lily tank, 60 s of sim time
//! at 25 ms with 10 sections per face; then 50..200 balls in a 1.2 m tank to show how the
//! cost grows; and the cost of creating a 24-ball world (calibration makes thousands).
//! Ratios use this thread's CPU time (best of 5), so other load on the machine does not
//! count; wall time is printed beside it.

use flotilla_common::catalogue::ModuleKind;
use std::hint::black_box;
use std::time::{Duration, Instant};
use tank_physics::{Command, HydroParams, World, WorldConfig};

const SIM_SECONDS: f64 = 60.0;
const REPEATS: u64 = 5;

#[path = "support/cpu.rs"]
mod cpu;
use cpu::thread_cpu_time;

/// Best-of-`REPEATS` (wall time, thread CPU time) for 60 s of sim time.
fn time_run(config: &WorldConfig, latch_all: bool) -> (Duration, Duration) {
    let steps = (SIM_SECONDS / config.dt).round() as u64;
    (0..REPEATS)
        .map(|seed| {
            let mut world = World::new(config.clone(), seed).expect("bench scenario");
            if latch_all {
                for body in world.bodies() {
                    let cmd = Command { latch_on: vec![true; body.faces.len()], ..Command::default() };
                    world.command(body.id, &cmd).expect("latch command");
                }
            }
            let start = Instant::now();
            let cpu = thread_cpu_time();
            for _ in 0..steps {
                world.step();
            }
            black_box(world.bodies());
            (start.elapsed(), thread_cpu_time() - cpu)
        })
        .min_by_key(|(_, cpu)| *cpu)
        .unwrap_or_default()
}

fn report(label: &str, bodies: usize, (wall, cpu): (Duration, Duration)) {
    let steps = SIM_SECONDS / 0.025;
    println!(
        "{label:<34} {bodies:>4} bodies: CPU {:>7.2} ms per 60 s sim ({:>6.1} us/step, {:>6.0} x real time); wall {:>7.2} ms ({:>6.0} x)",
        cpu.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e6 / steps,
        SIM_SECONDS / cpu.as_secs_f64(),
        wall.as_secs_f64() * 1e3,
        SIM_SECONDS / wall.as_secs_f64()
    );
}

fn main() {
    // `cargo bench` passes `--bench`; a test run passes nothing: run the quick path then.
    let full = std::env::args().any(|a| a == "--bench");
    if !full {
        println!("world_step: run with `cargo bench` for measurements");
        return;
    }
    let balls = WorldConfig::default().with_modules(ModuleKind::PingPongBall, 24, "ball");
    report("24 balls, Lily tank", 24, time_run(&balls, false));

    let lilies = WorldConfig { hydro: HydroParams::lily_published(), ..WorldConfig::default() }.with_modules(ModuleKind::Lily, 15, "lily");
    report("15 Lilies, latches on, Lily tank", 15, time_run(&lilies, true));

    for n in [50, 100, 200] {
        let mut big = WorldConfig::default().with_modules(ModuleKind::PingPongBall, n, "ball");
        big.arena.diameter = 1.2;
        report("balls, 1.2 m tank", n, time_run(&big, false));
    }

    let start = Instant::now();
    let count = 200;
    for seed in 0..count {
        black_box(World::new(balls.clone(), seed).expect("bench scenario"));
    }
    println!("create a 24-ball world: {:.1} us", start.elapsed().as_secs_f64() * 1e6 / count as f64);
}
