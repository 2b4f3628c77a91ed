//! Every detection and rejection count of the throughput bench's scenes, so that a
//! change meant to be a pure speed-up can be shown to leave the detector's output
//! bit-identical: run it on both commits and compare the output.
//!
//! ```text
//! cargo run --release -p tracking --no-default-features --example detection_digest -- [--full]
//! ```
//!
//! Scenes: the bench's two (1024^2 x 24 balls, 2048^2 x 200), clean and degraded
//! rendering (noise, blur, gradient, distortion), rgb8 and mono8, adaptive and fixed
//! threshold. Per case one line: frames, detections, summed stats and a 64-bit FNV-1a
//! hash of every field of every detection (f64 bit patterns) and of each frame's stats;
//! `--full` also prints each detection.

#[path = "../tests/support/digest.rs"]
mod digest;

use clap::Parser;
use digest::{stats_fields, Digest};
use tracking::accuracy::{HarnessConfig, StirringConfig, SyntheticStirring};
use tracking::{ArenaOutline, CameraModel, Detector, DetectorConfig, ImageView, Renderer};

#[derive(Parser, Debug)]
struct Args {
    /// Print every detection, not only the per-case digest.
    #[arg(long)]
    full: bool,
    /// Frames per 1024^2 case (the 2048^2 cases get a third of them).
    #[arg(long, default_value_t = 30)]
    frames: usize,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let stirring =
        |count, radius, seed| SyntheticStirring::new(StirringConfig { count, tank_radius: radius, ..StirringConfig::ping_pong_24(seed) });
    let large = ArenaOutline::round(1.2);
    let cases = [
        ("1024px_24markers", ArenaOutline::lily_tank(), CameraModel::lily_tank_default(), stirring(24, 0.3, 1)?, args.frames),
        ("2048px_200markers", large, CameraModel::covering(&large, 2048, 2048, 1.0, 0.03), stirring(200, 0.6, 2)?, args.frames.div_ceil(3)),
    ];
    for (name, arena, camera, motion, frames) in cases {
        for (setting, render, distortion) in [
            ("clean", HarnessConfig::clean().render, None),
            ("degraded", HarnessConfig::degraded().render, Some(HarnessConfig::degraded().camera.distortion)),
        ] {
            let camera = match distortion {
                Some(d) => camera.clone().with_distortion(d),
                None => camera.clone(),
            };
            let mut renderer = Renderer::new(arena, camera.clone(), render)?;
            let objects: Vec<_> = (0..frames).map(|k| motion.objects_at(k as f64 / 30.0)).collect();
            let rgb: Vec<_> = objects.iter().enumerate().map(|(k, o)| renderer.render_rgb(o, k as u64)).collect();
            let gray: Vec<_> = objects.iter().enumerate().map(|(k, o)| renderer.render_gray(o, k as u64)).collect();
            for encoding in ["rgb8", "mono8"] {
                for adaptive in [true, false] {
                    let config = DetectorConfig { region: Some(arena), adaptive, ..HarnessConfig::clean().detector };
                    let mut detector = Detector::new(config)?;
                    let (mut hash, mut count, mut totals) = (Digest::default(), 0usize, [0usize; 7]);
                    for k in 0..frames {
                        let view = if encoding == "rgb8" { ImageView::from_rgb(&rgb[k]) } else { ImageView::from_gray(&gray[k]) };
                        let found = detector.detect(&view, &camera)?.to_vec();
                        let stats = detector.stats();
                        for d in &found {
                            hash.detection(d);
                            if args.full {
                                println!("{name} {setting} {encoding} adaptive={adaptive} frame {k} {d:?}");
                            }
                        }
                        hash.stats(&stats);
                        count += found.len();
                        for (total, field) in totals.iter_mut().zip(stats_fields(&stats)) {
                            *total += field;
                        }
                    }
                    println!(
                        "{name} {setting} {encoding} adaptive={adaptive}: {frames} frames, {count} detections, stats {totals:?}, digest {:016x}",
                        hash.0
                    );
                }
            }
        }
    }
    Ok(())
}
