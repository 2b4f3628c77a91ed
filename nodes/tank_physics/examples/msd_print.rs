//! Prints one averaged MSD curve (every second) for a pump power and water level.
//! `cargo run --release -p tank_physics --no-default-features --example msd_print [power %] [level m] [seconds] [seeds]`

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::msd::{pooled_mean_squared_displacement, MsdSettings, TrackSet};
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
    let runs: Vec<Vec<Vec<_>>> = (0..seeds)
        .map(|seed| {
            let mut world = World::new(config.clone(), seed).expect("scenario");
            let mut tracks = (0..24).map(|_| Vec::with_capacity(steps)).collect::<Vec<_>>();
            for _ in 0..steps {
                world.step();
                for (track, b) in tracks.iter_mut().zip(world.bodies()) {
                    track.push(Some(b.pose.translation.vector.xy()));
                }
            }
            tracks
        })
        .collect();
    let sets: Vec<TrackSet<'_>> = runs.iter().map(|tracks| TrackSet { dt: config.dt, tracks }).collect();
    let curve =
        pooled_mean_squared_displacement(&sets, &MsdSettings { window_frames: window, start_stride: 40 }).expect("a run longer than 60 s");
    println!("t_s,msd_m2");
    println!("0,0.00000");
    for (i, v) in curve.values.iter().enumerate().skip(39).step_by(40) {
        println!("{},{v:.5}", curve.lag(i));
    }
}
