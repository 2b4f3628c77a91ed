//! Accuracy of the tracker against ground truth: renders the stirred tank, tracks it,
//! and prints position/heading RMSE, misses, false positives and identity switches
//! for a clean and a degraded (noise, blur, illumination gradient, distortion) camera.
//!
//! ```text
//! cargo run --release -p tracking --no-default-features --example accuracy -- \
//!     --bodies balls --duration 60 [--save-frames DIR] [--csv FILE]
//! ```

use anyhow::Context;
use clap::{Parser, ValueEnum};
use std::path::PathBuf;
use std::time::Instant;
use tracking::accuracy::{AccuracyReport, Harness, HarnessConfig, RenderedFrame, StirringConfig, SyntheticStirring};
use tracking::recording::TrackRecorder;
use tracking::replay;

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Bodies {
    /// 24 ping-pong balls (no heading on the marker).
    Balls,
    /// 15 Lily modules (heading-encoding marker).
    Lilies,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq)]
enum Setting {
    Clean,
    Degraded,
    Both,
}

#[derive(Parser, Debug)]
struct Args {
    /// Which bodies float in the tank.
    #[arg(long, value_enum, default_value = "balls")]
    bodies: Bodies,
    /// Camera setting(s) to evaluate.
    #[arg(long, value_enum, default_value = "both")]
    setting: Setting,
    /// Simulated duration, s.
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Camera frame rate, Hz.
    #[arg(long, default_value_t = 30.0)]
    rate: f64,
    /// Seed of the motion and of the pixel noise.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Save the frames of the first setting as PNG (plus camera.yaml) into this folder.
    #[arg(long)]
    save_frames: Option<PathBuf>,
    /// Write the tracks of the first setting to this trajectory CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let motion_config = match args.bodies {
        Bodies::Balls => StirringConfig::ping_pong_24(args.seed),
        Bodies::Lilies => StirringConfig::lily_15(args.seed),
    };
    let motion = SyntheticStirring::new(motion_config)?;
    let settings: Vec<(&str, HarnessConfig)> = [("clean", HarnessConfig::clean()), ("degraded", HarnessConfig::degraded())]
        .into_iter()
        .filter(|(name, _)| args.setting == Setting::Both || format!("{:?}", args.setting).to_lowercase() == *name)
        .collect();
    let frames = (args.duration * args.rate).round() as u64;
    println!("{:?}: {} bodies, {} frames at {} Hz, seed {}", args.bodies, motion.config().count, frames, args.rate, args.seed);
    for (k, (name, mut config)) in settings.into_iter().enumerate() {
        config.render.seed = args.seed;
        if let Some(dir) = args.save_frames.as_ref().filter(|_| k == 0) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            replay::write_camera(dir, &config.camera)?;
        }
        let mut recorder = match args.csv.as_ref().filter(|_| k == 0) {
            Some(path) => Some(TrackRecorder::create(path)?),
            None => None,
        };
        let mut harness = Harness::new(config)?;
        let start = Instant::now();
        for frame in 0..frames {
            let stamp = frame as f64 / args.rate;
            let (image, tracks) = harness.step(stamp, &motion.objects_at(stamp))?;
            if let Some(recorder) = recorder.as_mut() {
                recorder.write(tracks)?;
            }
            if let Some(dir) = args.save_frames.as_ref().filter(|_| k == 0) {
                match image {
                    RenderedFrame::Rgb(rgb) => replay::save_rgb_frame(dir, frame, rgb)?,
                    RenderedFrame::Gray(gray) => replay::save_gray_frame(dir, frame, gray)?,
                };
            }
        }
        print_report(name, &harness.report(), start.elapsed().as_secs_f64());
    }
    Ok(())
}

fn print_report(name: &str, r: &AccuracyReport, seconds: f64) {
    println!("== {name} ({} frames, {} truth samples, {:.1} s wall)", r.frames, r.truth_samples, seconds);
    println!("  detection position RMSE   {:.4} mm (max {:.4} mm)", r.detection_rmse * 1e3, r.detection_max_error * 1e3);
    match (r.heading_rmse, r.heading_max_error) {
        (Some(rmse), Some(max)) => println!("  heading RMSE              {:.3} deg (max {:.3} deg)", rmse.to_degrees(), max.to_degrees()),
        _ => println!("  heading RMSE              n/a (markers do not encode heading)"),
    }
    println!("  missed / false detections {} / {}", r.missed_detections, r.false_detections);
    println!("  track position RMSE       {:.4} mm", r.track_rmse * 1e3);
    println!("  missed / false tracks     {} / {}", r.missed_tracks, r.false_tracks);
    println!("  identity switches         {}", r.identity_switches);
    println!("  track ids used            {}", r.track_ids);
}
