//! Fitness profiles: each of the five parameters swept over its bounds with the others
//! at the values that made the recording, fitness averaged over seeds. A flat profile
//! (within the seed-to-seed spread) means the MSD cannot identify that parameter.
//!
//! `flotilla-calibrate record --seconds 600 --seed 101 --parameters 1.3,1.8,120,0.3,0.25 --out real.csv`
//! `cargo run --release -p calibration --no-default-features --example identifiability -- real.csv 1.3,1.8,120,0.3,0.25 [seconds]`
//! Six values: the sixth is `hydro.flow_correlation_time` (s), swept as well.

use anyhow::Context;
use calibration::job::{mean_and_std, resample_all};
use calibration::msd::{pooled_mean_squared_displacement, MsdSettings};
use calibration::pso::evaluation_seed;
use calibration::tank::{hydro_parameter_space, hydro_parameter_space_with_flow_correlation, TankSimulator};
use calibration::Simulator;
use flotilla_common::catalogue::ModuleKind;
use flotilla_common::trajectory::TrajectoryRecording;
use rayon::prelude::*;
use tank_physics::WorldConfig;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let recording = TrajectoryRecording::read(args.get(1).context("usage: identifiability REAL.csv TRUTH [SECONDS]")?)?;
    let truth: Vec<f64> = args.get(2).context("missing TRUTH")?.split(',').map(str::parse).collect::<Result<_, _>>()?;
    let seconds: f64 = args.get(3).map_or(Ok(60.0), |s| s.parse())?;
    let space = if truth.len() == 6 { hydro_parameter_space_with_flow_correlation() } else { hydro_parameter_space() };
    let sim = TankSimulator::new(WorldConfig::default().with_modules(ModuleKind::PingPongBall, 24, "ball"), &space)?;
    let msd = MsdSettings::default();
    let reference = pooled_mean_squared_displacement(&resample_all(&[recording], sim.frame_interval(), 0.1)?, &msd)?;
    let frames = (seconds / sim.frame_interval()).round() as usize + 1;
    let seeds = 8;
    let fitness = |p: &[f64]| -> anyhow::Result<(f64, f64)> {
        let values: Vec<f64> = (0..seeds)
            .into_par_iter()
            .map(|k| {
                let tracks = sim.simulate(p, frames, evaluation_seed(3, 0, 0, k))?;
                Ok(pooled_mean_squared_displacement(&[tracks], &msd)?.relative_error(&reference)?)
            })
            .collect::<Result<_, calibration::CalibrationError>>()?;
        Ok(mean_and_std(&values))
    };
    println!("relative MSD error sum|MSD_sim - MSD_real| / sum MSD_real, {seeds} seeds, {seconds} s simulations");
    let (m, s) = fitness(&truth)?;
    println!("truth {truth:?}: {m:.4} +- {s:.4}");
    for (d, range) in space.parameters.iter().enumerate() {
        let mut line = format!("{:>18}:", range.name);
        for k in 0..6 {
            let mut p = truth.clone();
            p[d] = range.lower + (range.upper - range.lower) * k as f64 / 5.0;
            let (m, s) = fitness(&p)?;
            line.push_str(&format!("  {:.3}->{m:.3}+-{s:.3}", p[d]));
        }
        println!("{line}");
    }
    Ok(())
}
