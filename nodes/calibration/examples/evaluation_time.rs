//! Wall time of one fitness evaluation's simulation on the tank (24 balls, 10 s warm-up +
//! 60 s window at 25 ms), single-threaded.
//! `cargo run --release -p calibration --no-default-features --example evaluation_time`

use std::time::Instant;

use calibration::tank::{hydro_parameter_space, TankSimulator};
use calibration::Simulator;
use flotilla_common::catalogue::ModuleKind;
use tank_physics::WorldConfig;

fn main() -> anyhow::Result<()> {
    let world = WorldConfig::default().with_modules(ModuleKind::PingPongBall, 24, "ball");
    let sim = TankSimulator::new(world, &hydro_parameter_space())?;
    let values = hydro_parameter_space().initial();
    for seed in 0..3 {
        let start = Instant::now();
        let tracks = sim.simulate(&values, 2401, seed)?;
        let s = start.elapsed().as_secs_f64();
        let steps = (sim.warmup / 0.025) as usize + 2400;
        println!(
            "seed {seed}: {} balls x {} frames in {s:.3} s ({:.1} us per step, {:.0}x real time)",
            tracks.tracks.len(),
            tracks.frames(),
            s / steps as f64 * 1e6,
            steps as f64 * 0.025 / s
        );
    }
    Ok(())
}
