//! `image_replay`: a folder of PNG frames (with its `camera.yaml`) published as a camera:
//! sensor_msgs/Image plus CameraInfo on the emulated camera's topics, so the tracker
//! cannot tell it from a live camera. A frame that cannot be decoded is reported and
//! skipped.

use super::convert;
use crate::accuracy::RenderedFrame;
use crate::config::{ReplayNodeConfig, ReplayStamps};
use crate::frame::Encoding;
use crate::live::{ReplayTimeline, WarnLimiter};
use crate::replay;
use anyhow::{bail, Context as _};
use flotilla_common::ros::{self as fros, Spinner, Startup};
use futures::StreamExt;
use image::{GrayImage, RgbImage};
use r2r::QosProfile;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tracing::{info, warn};

/// Shortest time between two warnings of one kind (unreadable frame, wrong size).
const WARN_INTERVAL: Duration = Duration::from_secs(5);

/// Publishes the folder (once, or looping) and returns the summary line; SIGINT/SIGTERM
/// stops early.
pub async fn run(startup: Startup, config: ReplayNodeConfig) -> anyhow::Result<String> {
    let dir = &config.directory;
    let paths = replay::list_frames(dir)?;
    let camera = replay::read_camera(dir)?.with_context(|| {
        format!(
            "{} has no {} (nor a ROS calibration file {}): the CameraInfo needs the camera model",
            dir.display(),
            replay::CAMERA_FILE,
            replay::ROS_CALIBRATION_FILES.join(" or ")
        )
    })?;
    let recorded = match config.stamps {
        ReplayStamps::Recorded => replay::read_stamps(dir, &paths)?,
        ReplayStamps::Rate | ReplayStamps::Wall => None,
    };
    if config.stamps == ReplayStamps::Recorded && recorded.is_none() {
        info!("no complete {} in {}: stamps from the rate", replay::STAMPS_FILE, dir.display());
    }
    let timeline = ReplayTimeline::new(paths.len(), recorded, config.start_time, config.rate);
    let mut node = startup.create_node()?;
    let images = node.create_publisher::<r2r::sensor_msgs::msg::Image>(&config.image_topic, convert::image_qos())?;
    let infos = node.create_publisher::<r2r::sensor_msgs::msg::CameraInfo>(&config.camera_info_topic, QosProfile::default())?;
    let done = match &config.done_topic {
        Some(topic) => Some(node.subscribe::<r2r::flotilla_msgs::msg::TrackArray>(topic, QosProfile::default())?),
        None => None,
    };
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    info!(frames = paths.len(), dir = %dir.display(), image_topic = %config.image_topic, "image_replay running");
    let mut counts = Counts::default();
    let outcome = tokio::select! {
        signal = fros::shutdown_signal() => {
            info!(signal = signal.context("installing signal handlers")?, "shutting down");
            Ok(())
        }
        done = publish_all(&config, &paths, &camera, &timeline, &images, &infos, done, &mut counts) => done,
    };
    spinner.stop();
    fros::release_node(node);
    outcome?;
    let Counts { published, bad, confirmed } = counts;
    let confirmation = match (&config.done_topic, confirmed) {
        (Some(topic), true) => format!(", last frame tracked (seen on {topic})"),
        (Some(topic), false) => format!(", last frame NOT confirmed on {topic} within {:.1} s", config.done_timeout.as_secs_f64()),
        (None, _) => String::new(),
    };
    Ok(format!("summary: {published} frames published from {}, {bad} unreadable{confirmation}", dir.display()))
}

/// What the replay has done so far; read for the summary however it ended (a signal
/// included).
#[derive(Debug, Default)]
struct Counts {
    published: u64,
    bad: u64,
    confirmed: bool,
}

/// Whether a message of `tracks` stamped `stamp` (or later) arrives within `timeout`.
async fn tracked(
    tracks: &mut (impl futures::Stream<Item = r2r::flotilla_msgs::msg::TrackArray> + Unpin),
    stamp: f64,
    timeout: Duration,
) -> bool {
    let seen = async {
        while let Some(msg) = tracks.next().await {
            if convert::seconds(&msg.header.stamp) >= stamp - 1e-6 {
                return true;
            }
        }
        false
    };
    tokio::time::timeout(timeout, seen).await.unwrap_or(false)
}

#[allow(clippy::too_many_arguments)]
async fn publish_all(
    config: &ReplayNodeConfig,
    paths: &[std::path::PathBuf],
    camera: &crate::camera::CameraModel,
    timeline: &ReplayTimeline,
    images: &r2r::Publisher<r2r::sensor_msgs::msg::Image>,
    infos: &r2r::Publisher<r2r::sensor_msgs::msg::CameraInfo>,
    mut done: Option<impl futures::Stream<Item = r2r::flotilla_msgs::msg::TrackArray> + Unpin>,
    counts: &mut Counts,
) -> anyhow::Result<()> {
    let wanted = config.wait_for_subscribers as usize;
    while images.get_inter_process_subscription_count()? < wanted || infos.get_inter_process_subscription_count()? < wanted {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let start = Instant::now();
    // The last frame a tracker can track that was not yet seen tracked. A frame whose
    // size contradicts the CameraInfo is skipped by the tracker and never confirmed:
    // waiting for it cost a whole done_timeout per frame in lock step.
    let mut pending: Option<f64> = None;
    let mut trackable = 0u64;
    // A folder of thousands of bad frames must not flood the log: one warning of a kind
    // every few seconds, with the count held back.
    let mut limiter = WarnLimiter::new(WARN_INTERVAL);
    let (mut pass_published, mut last_error) = (0u64, String::new());
    for k in 0u64.. {
        // At speed 0 (or with every frame unreadable) nothing else awaits: yield so the
        // shutdown signal, polled on this same task, is seen.
        tokio::task::yield_now().await;
        let i = (k % paths.len() as u64) as usize;
        if i == 0 && k > 0 {
            // A whole pass without one readable frame would loop on nothing for ever
            // (with `loop`) or end as if it had worked.
            if pass_published == 0 {
                bail!(
                    "none of the {} image files in {} could be decoded (the last: {last_error})",
                    paths.len(),
                    config.directory.display()
                );
            }
            pass_published = 0;
        }
        if k >= paths.len() as u64 && !config.repeat {
            break;
        }
        // Decode before waiting, so the frame goes out on time.
        let frame = match replay::load_frame(&paths[i]) {
            Ok(frame) => frame,
            Err(e) => {
                if let Some(held_back) = limiter.admit("unreadable", Instant::now()) {
                    warn!(held_back, "frame skipped: {e}");
                }
                last_error = e.to_string();
                counts.bad += 1;
                continue;
            }
        };
        let fits = (frame.width, frame.height) == (camera.width, camera.height);
        if !fits {
            if let Some(held_back) = limiter.admit("size", Instant::now()) {
                warn!(path = %paths[i].display(), held_back, "frame is {}x{} but {} says {}x{}; published anyway (a tracker skips it)", frame.width, frame.height, replay::CAMERA_FILE, camera.width, camera.height);
            }
        }
        if let Some(due) = timeline.wall_offset(k, config.speed) {
            tokio::time::sleep_until((start + due).into()).await;
        }
        if let (true, Some(tracks), Some(previous)) = (config.lockstep, done.as_mut(), pending) {
            if !tracked(tracks, previous, config.done_timeout).await {
                warn!(stamp = previous, timeout_s = config.done_timeout.as_secs_f64(), "lock step: frame not seen tracked; going on");
            }
            pending = None;
        }
        let stamp = match config.stamps {
            ReplayStamps::Wall => SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0),
            ReplayStamps::Recorded | ReplayStamps::Rate => timeline.stamp(k),
        };
        let rendered = match frame.encoding {
            Encoding::Mono8 => GrayImage::from_raw(frame.width, frame.height, frame.data).map(RenderedFrame::Gray),
            Encoding::Rgb8 | Encoding::Bgr8 => RgbImage::from_raw(frame.width, frame.height, frame.data).map(RenderedFrame::Rgb),
        };
        let Some(rendered) = rendered else { bail!("decoded frame {} has an inconsistent size", paths[i].display()) };
        images.publish(&convert::image_msg(&rendered, stamp, &config.frame_id))?;
        infos.publish(&convert::camera_info_msg(camera, stamp, &config.frame_id))?;
        counts.published += 1;
        pass_published += 1;
        if fits {
            pending = Some(stamp);
            trackable += 1;
        }
    }
    // Under load the consumer may still be working through its queue: wait until it
    // shows the last frame tracked, so that ending the launch does not cut the tail off.
    counts.confirmed = match (done, pending) {
        // Lock step already waited for every trackable frame.
        (Some(_), None) => trackable > 0 && config.lockstep,
        (Some(mut tracks), Some(last)) => {
            let confirmed = tracked(&mut tracks, last, config.done_timeout).await;
            if !confirmed {
                warn!(stamp = last, timeout_s = config.done_timeout.as_secs_f64(), "the last frame was not seen tracked");
            }
            confirmed
        }
        _ => false,
    };
    tokio::time::sleep(config.linger).await;
    Ok(())
}
