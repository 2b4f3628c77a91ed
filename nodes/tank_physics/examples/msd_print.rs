//! Prints one averaged MSD curve (every second) for a pump power and water level.
//! `cargo run --release -p tank_physics --no-default-features --example msd_print [power %] [level m] [seconds] [seeds]`

use flotilla_common::catalogue::ModuleKind;
use nalgebra::Point2;
use tank_physics::analysis::msd;
use tank_physics::{World, WorldConfig};

fn main() {
    let args: Vec<f64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let power = args.first().copied().unwrap_or(68.6);
    let level = args.get(1).copied().unwrap_or(-0.08);
    let seconds = args.get(2).copied().unwrap_or(600.0);
    let seeds = args.get(3).copied().unwrap_or(1.0) as u64;
    let mut config = WorldConfig::default().with_modules(ModuleKind::PingPongBall, 24, "ball").with_pump_power(power);
    config.arena.water_level = level;
    let steps = (seconds / config.dt) as usize;
    let window = (60.0 / config.dt) as usize;
    let mut total = vec![0.0; window + 1];
    for seed in 0..seeds {
        let mut world = World::new(config.clone(), seed).expect("scenario");
        let mut frames = Vec::with_capacity(steps);
        for _ in 0..steps {
            world.step();
            frames.push(world.bodies().iter().map(|b| Point2::new(b.pose.translation.x, b.pose.translation.y)).collect());
        }
        for (t, v) in total.iter_mut().zip(msd(&frames, window, 40)) {
            *t += v / seeds as f64;
        }
    }
    println!("t_s,msd_m2");
    for (i, v) in total.iter().enumerate().step_by(40) {
        println!("{},{v:.5}", i as f64 * config.dt);
    }
}
