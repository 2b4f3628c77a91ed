//! MSD of the 24-ball scenario for a few pump powers and water levels (SPEC 1: the
//! oscillation then the plateau; more power or a lower level gives a lower plateau and an
//! earlier first peak): prints a summary per setting and plots the curves.
//! `cargo run --release -p calibration --no-default-features --example msd_settings [seconds] [seeds] [plot.png]`
//! (the docs' plot: `-- 600 2 docs/tank_msd.png`).

use flotilla_common::catalogue::ModuleKind;
use nalgebra::Point2;
use tank_physics::analysis::{first_peak, msd, plateau};
use tank_physics::{World, WorldConfig};

use calibration::output::plots::plot_msd;
use calibration::MsdCurve;

/// 60 s windows of 25 ms steps, started every second.
const WINDOW: usize = 2400;
const STRIDE: usize = 40;

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(600.0);
    let seeds: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let plot = args.next();
    let mut plotted = Vec::new();
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
            curves.push(msd(&frames, WINDOW, STRIDE));
        }
        let n = (steps as f64 * seeds as f64).max(1.0);
        let curve: Vec<f64> = (0..=WINDOW).map(|i| curves.iter().map(|c| c[i]).sum::<f64>() / curves.len() as f64).collect();
        let peak = first_peak(&curve, 1e-4);
        println!(
            "power {power:5.1} % level {level:+.2} m: mean speed {:.3} m/s, mean radius {:.3} m, MSD at 1/2/5/10/30/60 s: {:.4} {:.4} {:.4} {:.4} {:.4} {:.4} m^2, first peak {:?} s, plateau {:.4} m^2",
            speed / n,
            radius / n,
            curve[40], curve[80], curve[200], curve[400], curve[1200], curve[2400],
            peak.map(|p| p as f64 * 0.025),
            plateau(&curve, 0.5)
        );
        let windows = steps.saturating_sub(WINDOW).div_ceil(STRIDE);
        let pairs = (windows * 24) as u64 * seeds;
        let label = format!("{power} %, level {:.0} cm", level * 100.0);
        plotted.push((label, MsdCurve { dt: config.dt, values: curve[1..].to_vec(), counts: vec![pairs; WINDOW] }));
    }
    if let Some(path) = plot {
        let curves: Vec<(&str, &MsdCurve)> = plotted.iter().map(|(l, c)| (l.as_str(), c)).collect();
        let title = format!("MSD of 24 balls, 60 s windows ({seeds} seed(s) x {seconds} s)");
        match plot_msd(std::path::Path::new(&path), &title, &curves) {
            Ok(()) => println!("plot: {path}"),
            Err(e) => eprintln!("plot failed: {e}"),
        }
    }
}
