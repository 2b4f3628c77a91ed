//! The tracker on the nuisance scenes (tests/support/nuisance.rs: a generator of its own,
//! not `tracking::render`): an odd camera, vignetting, a +-8 % gradient, a dim episode,
//! glints, a static lamp reflection, a pipe hiding markers, motion blur, blur and noise.
//! Prints RMSE, missed and false detections, heading p99 and identity switches per scene.
//!
//! ```text
//! cargo run --release -p tracking --no-default-features --example nuisance -- \
//!     --scene all --frames 150 [--encoding mono8] [--save-frames DIR] [--frame-cache DIR]
//! ```
//!
//! Rendering a 2048^2 frame takes seconds; `--frame-cache` keeps the rendered frames and
//! their truth on disk (raw RGB, about 12 MB per 2048^2 frame), so a second run with the
//! same scene, seed and frame counts only detects and tracks.

#[path = "../tests/support/digest.rs"]
mod digest;
#[path = "../tests/support/nuisance.rs"]
mod nuisance;
#[path = "../tests/support/score.rs"]
mod score;
#[path = "../tests/support/setup.rs"]
mod setup;

use clap::{Parser, ValueEnum};
use std::path::PathBuf;
use std::time::Instant;
use tracking::accuracy::RenderedFrame;
use tracking::{replay, ImageView};

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq)]
enum Scene {
    Balls1024,
    Lilies1024,
    Mixed2048,
    All,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq)]
enum Encoding {
    Rgb8,
    Mono8,
}

#[derive(Parser, Debug)]
struct Args {
    #[arg(long, value_enum, default_value = "all")]
    scene: Scene,
    /// Frames per scene (30 Hz).
    #[arg(long, default_value_t = 150)]
    frames: usize,
    #[arg(long, value_enum, default_value = "rgb8")]
    encoding: Encoding,
    /// Frames of the empty tank shown to the tracker first (not scored): the static
    /// reflection map is learned on them.
    #[arg(long, default_value_t = 0)]
    empty_frames: usize,
    /// Shift of the ball marker plane from the curved-sticker formula, m (a plane
    /// calibrated from the radial bias the run prints: dh = -bias x (H - h)).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    ball_plane_offset: f64,
    /// Treat the set of objects as open (no re-identification of lost tracks).
    #[arg(long)]
    open_set: bool,
    /// Scene seed.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Save the frames (PNG, camera.yaml, stamps.csv) of the last scene for image_replay.
    #[arg(long)]
    save_frames: Option<PathBuf>,
    /// Directory of rendered frames and their truth: read when there, else written (the
    /// cache is keyed by scene, seed and frame index only; delete it after changing the
    /// generator).
    #[arg(long)]
    frame_cache: Option<PathBuf>,
    /// Print every miss, false detection and error above 1 mm, and the detector's rejections.
    #[arg(long)]
    verbose: bool,
    /// Print a digest of every detection and rejection count per scene (compare commits
    /// meant to leave the detector's output bit-identical).
    #[arg(long)]
    digest: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let scenes = match args.scene {
        Scene::All => vec![Scene::Balls1024, Scene::Lilies1024, Scene::Mixed2048],
        one => vec![one],
    };
    for scene in scenes {
        let config = match scene {
            Scene::Balls1024 => nuisance::SceneConfig::balls_1024(args.seed),
            Scene::Lilies1024 => nuisance::SceneConfig::lilies_1024(args.seed),
            _ => nuisance::SceneConfig::mixed_2048(args.seed),
        };
        let mut tracker = setup::tracker_for(&config, args.ball_plane_offset, !args.open_set)?;
        let mut generator = nuisance::Scene::new(config.clone());
        let mut saver = match &args.save_frames {
            Some(dir) => Some(replay::FrameSaver::create(dir, tracker.camera())?),
            None => None,
        };
        let mut scores =
            score::Scores { verbose: args.verbose, nadir: (config.camera.mount[0], config.camera.mount[1]), ..Default::default() };
        let period = 1.0 / config.rate;
        let cache = args.frame_cache.as_ref().map(|dir| FrameCache { dir: dir.join(format!("{scene:?}-seed{}", args.seed)) });
        for k in 0..args.empty_frames {
            let frame = match &cache {
                Some(cache) => cache.get(&format!("empty{k:04}"), &config, || generator.empty_frame())?,
                None => generator.empty_frame(),
            };
            let stamp = (k as f64 - args.empty_frames as f64) * period;
            tracker.process(&ImageView::from_rgb(&frame.rgb), stamp)?;
        }
        let (mut render_time, mut track_time) = (0.0, 0.0);
        let mut digest = digest::Digest::default();
        for k in 0..args.frames {
            let started = Instant::now();
            let frame = match &cache {
                Some(cache) => cache.get(&format!("frame{k:04}"), &config, || generator.next_frame())?,
                None => generator.next_frame(),
            };
            let image = match args.encoding {
                Encoding::Rgb8 => RenderedFrame::Rgb(frame.rgb.clone()),
                Encoding::Mono8 => RenderedFrame::Gray(frame.gray()),
            };
            render_time += started.elapsed().as_secs_f64();
            let started = Instant::now();
            let view = match &image {
                RenderedFrame::Rgb(rgb) => ImageView::from_rgb(rgb),
                RenderedFrame::Gray(gray) => ImageView::from_gray(gray),
            };
            let tracks = tracker.process(&view, frame.stamp)?.to_vec();
            track_time += started.elapsed().as_secs_f64();
            if args.verbose {
                println!("frame {} {:?}", frame.index, tracker.detection_stats());
                let mut widths: Vec<f64> = tracker.detections().iter().map(|d| d.edge_width).collect();
                widths.sort_by(f64::total_cmp);
                println!("frame {} edge widths {widths:.2?}", frame.index);
            }
            tracker.detections().iter().for_each(|d| digest.detection(d));
            digest.stats(&tracker.detection_stats());
            scores.add(&frame.truth, tracker.detections(), &tracks);
            if let Some(saver) = saver.as_mut() {
                saver.save(frame.index as u64, frame.stamp, &image)?;
            }
        }
        println!(
            "{scene:?} {:?}: {scores} | render {:.0} ms/frame, track {:.2} ms/frame",
            args.encoding,
            1e3 * render_time / args.frames as f64,
            1e3 * track_time / args.frames as f64
        );
        if args.digest {
            println!("{scene:?} {:?}: detection digest {:016x}", args.encoding, digest.0);
        }
    }
    Ok(())
}

/// Rendered frames of one scene on disk: `NAME.rgb` (raw pixels) and `NAME.truth` (index,
/// stamp, then one body per line, floats in Rust's round-trip notation).
struct FrameCache {
    dir: PathBuf,
}

impl FrameCache {
    /// The cached frame `name`, else `render()` (called in order, so the generator's
    /// motion stays in step only when the whole cache is missing: a partly filled cache
    /// must be deleted).
    fn get(&self, name: &str, config: &nuisance::SceneConfig, render: impl FnOnce() -> nuisance::Frame) -> anyhow::Result<nuisance::Frame> {
        let (rgb_path, truth_path) = (self.dir.join(format!("{name}.rgb")), self.dir.join(format!("{name}.truth")));
        if truth_path.exists() {
            let (w, h) = (config.camera.width, config.camera.height);
            let rgb = image::RgbImage::from_raw(w, h, std::fs::read(&rgb_path)?)
                .ok_or_else(|| anyhow::anyhow!("{} is not a {w}x{h} RGB frame", rgb_path.display()))?;
            let text = std::fs::read_to_string(&truth_path)?;
            let mut lines = text.lines();
            let mut head = lines.next().unwrap_or_default().split_whitespace();
            let index = head.next().unwrap_or_default().parse()?;
            let stamp = head.next().unwrap_or_default().parse()?;
            let truth = lines.map(parse_truth).collect::<anyhow::Result<_>>()?;
            return Ok(nuisance::Frame { index, stamp, truth, rgb });
        }
        let frame = render();
        std::fs::create_dir_all(&self.dir)?;
        std::fs::write(&rgb_path, frame.rgb.as_raw())?;
        let mut text = format!("{} {:?}\n", frame.index, frame.stamp);
        for t in &frame.truth {
            text += &format!("{} {:?} {:?} {:?} {:?} {:?} {:?} {:?}\n", t.id, t.kind, t.x, t.y, t.vx, t.vy, t.heading, t.visible);
        }
        // The truth file is written last: it marks the frame complete.
        std::fs::write(&truth_path, text)?;
        Ok(frame)
    }
}

fn parse_truth(line: &str) -> anyhow::Result<nuisance::Truth> {
    let f: Vec<&str> = line.split_whitespace().collect();
    anyhow::ensure!(f.len() == 8, "bad truth line {line:?}");
    let kind = match f[1] {
        "Ball" => nuisance::Kind::Ball,
        "Lily" => nuisance::Kind::Lily,
        other => anyhow::bail!("unknown kind {other:?}"),
    };
    let num = |i: usize| f[i].parse::<f64>();
    Ok(nuisance::Truth { id: f[0].parse()?, kind, x: num(2)?, y: num(3)?, vx: num(4)?, vy: num(5)?, heading: num(6)?, visible: num(7)? })
}
