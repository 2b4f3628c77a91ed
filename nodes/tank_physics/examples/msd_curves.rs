//! Prints MSD summaries of the 24-ball scenario for a few pump powers and water levels.
//! `cargo run --release -p tank_physics --no-default-features --example msd_curves [seconds] [seeds]`

use flotilla_common::catalogue::ModuleKind;
use nalgebra::Point2;
use tank_physics::analysis::{first_peak, msd, plateau};
use tank_physics::{World, WorldConfig};

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(600.0);
    let seeds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    for (power, level) in [(40.0, -0.08), (68.6, -0.08), (90.0, -0.08), (68.6, -0.07), (68.6, -0.09)] {
        let mut config = WorldConfig::default().with_modules(ModuleKind::PingPongBall, 24, "ball").with_pump_power(power);
        config.arena.water_level = level;
        let steps = (seconds / config.dt) as usize;
        let mut curves = Vec::new();
        let mut speed = 0.0;
        let mut radius = 0.0;
        for seed in 0..seeds {
            let mut world = World::new(config.clone(), seed).expect("scenario");
            let mut frames = Vec::with_capacity(steps);
            for _ in 0..steps {
                world.step();
                let bodies = world.bodies();
                speed += bodies.iter().map(|b| b.linvel.norm()).sum::<f64>() / bodies.len() as f64;
                radius += bodies.iter().map(|b| b.pose.translation.vector.xy().norm()).sum::<f64>() / bodies.len() as f64;
                frames.push(bodies.iter().map(|b| Point2::new(b.pose.translation.x, b.pose.translation.y)).collect());
            }
            curves.push(msd(&frames, 2400, 40));
        }
        let n = (steps as f64 * seeds as f64).max(1.0);
        let curve: Vec<f64> = (0..=2400).map(|i| curves.iter().map(|c| c[i]).sum::<f64>() / curves.len() as f64).collect();
        let peak = first_peak(&curve, 1e-4);
        println!(
            "power {power:5.1} % level {level:+.2} m: mean speed {:.3} m/s, mean radius {:.3} m, MSD at 1/2/5/10/30/60 s: {:.4} {:.4} {:.4} {:.4} {:.4} {:.4} m^2, first peak {:?} s, plateau {:.4} m^2",
            speed / n,
            radius / n,
            curve[40], curve[80], curve[200], curve[400], curve[1200], curve[2400],
            peak.map(|p| p as f64 * 0.025),
            plateau(&curve, 0.5)
        );
    }
}
