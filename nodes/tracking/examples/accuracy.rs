//! Accuracy of the tracker against ground truth: renders the tank, tracks it, and
//! prints position/heading RMSE, misses, false positives and identity switches for a
//! clean and a degraded (noise, blur, illumination gradient, distortion) camera.
//!
//! Ground truth is either the physics (`tank_physics::World` from
//! `config/pingpong_24.yaml` or `config/lily_15.yaml`) or the synthetic ring stirring.
//!
//! ```text
//! cargo run --release -p tracking --no-default-features --example accuracy -- \
//!     --bodies balls --truth physics --duration 60 [--save-frames DIR] [--csv FILE]
//! ```

use anyhow::{bail, Context};
use clap::{Parser, ValueEnum};
use std::path::PathBuf;
use std::time::Instant;
use tank_physics::{ArenaKind, World, WorldConfig};
use tracking::accuracy::{AccuracyReport, Harness, HarnessConfig, RenderedFrame, StirringConfig, SyntheticStirring};
use tracking::recording::TrackRecorder;
use tracking::{replay, ArenaOutline, MarkerKind, SceneObject};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Bodies {
    /// 24 ping-pong balls (no heading on the marker).
    Balls,
    /// 15 Lily modules (heading-encoding marker).
    Lilies,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Truth {
    /// tank_physics World from the scenario file in config/.
    Physics,
    /// Counter-rotating rings of bodies (no physics).
    Synthetic,
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
    /// Where the ground-truth motion comes from.
    #[arg(long, value_enum, default_value = "physics")]
    truth: Truth,
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

/// Ground truth sampled at camera times: (stamp of the state, objects).
trait GroundTruth {
    fn at(&mut self, time: f64) -> anyhow::Result<(f64, Vec<SceneObject>)>;
    fn arena(&self) -> ArenaOutline;
}

impl GroundTruth for SyntheticStirring {
    fn at(&mut self, time: f64) -> anyhow::Result<(f64, Vec<SceneObject>)> {
        Ok((time, self.objects_at(time)))
    }

    fn arena(&self) -> ArenaOutline {
        ArenaOutline::round(2.0 * self.config().tank_radius)
    }
}

/// The physics world, stepped up to each camera time; the frame shows the latest state
/// and carries its time, as the camera node renders the latest /tank/state.
struct Physics {
    world: World,
}

impl Physics {
    fn load(file: &str, seed: u64) -> anyhow::Result<Self> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config").join(file);
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let yaml: serde_yaml::Value = serde_yaml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let params = &yaml["tank_physics"]["ros__parameters"];
        let config = WorldConfig::from_params(params).with_context(|| format!("{}", path.display()))?;
        Ok(Self { world: World::new(config, seed)? })
    }
}

impl GroundTruth for Physics {
    fn at(&mut self, time: f64) -> anyhow::Result<(f64, Vec<SceneObject>)> {
        let dt = self.world.config().dt;
        while self.world.time() < time - 1e-9 * dt.max(1.0) {
            self.world.step();
        }
        let surface = self.world.arena().surface_z.unwrap_or(0.0);
        let objects = self
            .world
            .bodies()
            .iter()
            .filter_map(|b| {
                let p = b.pose.translation.vector;
                SceneObject::for_module(b.id, b.kind, p.x, p.y, p.z - surface, b.heading())
            })
            .collect();
        Ok((self.world.time(), objects))
    }

    fn arena(&self) -> ArenaOutline {
        let c = &self.world.config().arena;
        match c.kind {
            ArenaKind::RoundTank => ArenaOutline::round(c.diameter),
            _ => ArenaOutline::Rectangle { size_x: c.size_x, size_y: c.size_y },
        }
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let (marker, scenario_file, stirring) = match args.bodies {
        Bodies::Balls => (MarkerKind::Ball, "pingpong_24.yaml", StirringConfig::ping_pong_24(args.seed)),
        Bodies::Lilies => (MarkerKind::Lily, "lily_15.yaml", StirringConfig::lily_15(args.seed)),
    };
    let settings: Vec<(&str, HarnessConfig)> = [("clean", HarnessConfig::clean()), ("degraded", HarnessConfig::degraded())]
        .into_iter()
        .filter(|(name, _)| args.setting == Setting::Both || format!("{:?}", args.setting).to_lowercase() == *name)
        .collect();
    let frames = (args.duration * args.rate).round() as u64;
    for (k, (name, mut config)) in settings.into_iter().enumerate() {
        // Each setting replays the same motion from the same seed.
        let mut truth: Box<dyn GroundTruth> = match args.truth {
            Truth::Physics => Box::new(Physics::load(scenario_file, args.seed)?),
            Truth::Synthetic => Box::new(SyntheticStirring::new(stirring.clone())?),
        };
        if truth.arena() != config.arena {
            bail!("arena {:?} differs from the camera set-up {:?}", truth.arena(), config.arena);
        }
        config.render.seed = args.seed;
        config.detector.marker_height = marker.default_top_height();
        if k == 0 {
            println!("{:?} ({:?} truth): {} frames at {} Hz, seed {}", args.bodies, args.truth, frames, args.rate, args.seed);
        }
        let save_dir = args.save_frames.as_ref().filter(|_| k == 0);
        if let Some(dir) = save_dir {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            replay::write_camera(dir, &config.camera)?;
        }
        let mut recorder = match args.csv.as_ref().filter(|_| k == 0) {
            Some(path) => Some(TrackRecorder::create(path)?),
            None => None,
        };
        let mut harness = Harness::new(config)?;
        let start = Instant::now();
        let mut bodies = 0;
        for frame in 0..frames {
            let (stamp, objects) = truth.at(frame as f64 / args.rate)?;
            bodies = objects.len();
            let (image, tracks) = harness.step(stamp, &objects)?;
            if let Some(recorder) = recorder.as_mut() {
                recorder.write(tracks)?;
            }
            if let Some(dir) = save_dir {
                match image {
                    RenderedFrame::Rgb(rgb) => replay::save_rgb_frame(dir, frame, rgb)?,
                    RenderedFrame::Gray(gray) => replay::save_gray_frame(dir, frame, gray)?,
                };
            }
        }
        print_report(name, bodies, &harness.report(), start.elapsed().as_secs_f64());
    }
    Ok(())
}

fn print_report(name: &str, bodies: usize, r: &AccuracyReport, seconds: f64) {
    println!("== {name}: {bodies} bodies, {} frames, {} truth samples, {:.1} s wall", r.frames, r.truth_samples, seconds);
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
