//! `tracker`: any sensor_msgs/Image + CameraInfo -> `/tracking/tracks`, `/tracking/markers`
//! and (optionally) the trajectory CSV.
//!
//! Bad input (unsupported encoding, empty or truncated data, a step that does not fit,
//! no CameraInfo, a CameraInfo that is invalid or does not match the image) skips the
//! frame with a warning limited to one per kind every `warn_interval`; the node keeps
//! running.

use super::convert;
use crate::config::TrackerNodeConfig;
use crate::live::{DropCounter, FrameIssue, FrameOutcome, LiveTracker, WarnLimiter};
use crate::recording::{numbered_path, TrackRecorder};
use anyhow::Context as _;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use futures::StreamExt;
use r2r::sensor_msgs::msg::{CameraInfo, Image};
use r2r::QosProfile;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tracing::{info, warn};

/// What the node reports when it ends.
#[derive(Default)]
struct Stats {
    tracked: u64,
    skipped: u64,
    /// Frames that never arrived (stamp gaps).
    lost: u64,
    processing: Duration,
    max_processing: Duration,
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Stats {
    fn summary(&self) -> String {
        let mut s = format!("summary: {} frames tracked, {} skipped, {} lost before arrival", self.tracked, self.skipped, self.lost);
        if self.tracked > 0 {
            s += &format!(
                ", processing {:.2} ms per frame (max {:.2} ms)",
                self.processing.as_secs_f64() * 1e3 / self.tracked as f64,
                self.max_processing.as_secs_f64() * 1e3
            );
        }
        if let (Some(first), Some(last)) = (self.first, self.last) {
            let wall = last.duration_since(first).as_secs_f64();
            if self.tracked > 1 && wall > 0.0 {
                s += &format!(", {:.1} frames per wall s", (self.tracked - 1) as f64 / wall);
            }
        }
        s
    }
}

/// Frames held while waiting for the first CameraInfo (one second at 30 Hz).
const PENDING_FRAMES: usize = 30;

/// Everything a tracked frame goes to.
struct Outputs {
    config: TrackerNodeConfig,
    tracks: r2r::Publisher<r2r::flotilla_msgs::msg::TrackArray>,
    markers: r2r::Publisher<r2r::visualization_msgs::msg::MarkerArray>,
    recorder: Option<TrackRecorder<std::io::BufWriter<std::fs::File>>>,
    /// Times the stamps went back (numbers the continued recordings).
    restarts: u32,
    limiter: WarnLimiter,
    /// Counts frames that never arrived, from the image stamps.
    drops: DropCounter,
    stats: Stats,
}

impl Outputs {
    /// Tracks one image and publishes and records the result, or warns why it was skipped.
    fn image(&mut self, live: &mut LiveTracker, msg: &Image) {
        let received = Instant::now();
        let stamp = convert::seconds(&msg.header.stamp);
        let missing = self.drops.observe(stamp);
        if missing > 0 {
            self.stats.lost += missing;
            if let Some(held_back) = self.limiter.admit("frames_lost", Instant::now()) {
                warn!(topic = %self.config.image_topic, missing, lost_total = self.stats.lost, held_back, stamp, "frames lost before reaching the tracker (gap in the image stamps)");
            }
        }
        let tracks = match live.frame(msg.width, msg.height, msg.step, &msg.encoding, &msg.data, stamp) {
            Ok((outcome, tracks)) => {
                if let FrameOutcome::Restarted { previous } = outcome {
                    warn!(previous, stamp, "image stamps went back (world reset or replay restart): tracks restarted");
                    self.restart_recording();
                }
                tracks
            }
            Err(issue) => {
                self.stats.skipped += 1;
                if let Some(held_back) = self.limiter.admit(issue.kind(), Instant::now()) {
                    warn!(topic = %self.config.image_topic, held_back, "frame skipped: {issue}");
                }
                return;
            }
        };
        let config = &self.config;
        if let Err(e) = self.tracks.publish(&convert::track_array_msg(tracks, &msg.header.stamp, &config.frame_id)) {
            warn!("publishing {}: {e}", config.tracks_topic);
        }
        let markers = convert::track_markers(tracks, &msg.header.stamp, &config.frame_id, config.plane_z);
        if let Err(e) = self.markers.publish(&markers) {
            warn!("publishing {}: {e}", config.markers_topic);
        }
        if let Some(r) = self.recorder.as_mut() {
            if let Err(e) = r.write(tracks) {
                warn!("track recording stopped: {e}");
                self.recorder = None;
            }
        }
        let elapsed = received.elapsed();
        let stats = &mut self.stats;
        stats.tracked += 1;
        stats.processing += elapsed;
        stats.max_processing = stats.max_processing.max(elapsed);
        stats.first.get_or_insert(received);
        stats.last = Some(received);
    }

    /// After time went back the CSV continues in `<stem>.<n>.csv` (its times must grow).
    fn restart_recording(&mut self) {
        let Some(base) = self.config.tracks_csv.clone() else { return };
        self.restarts += 1;
        let path = numbered_path(&base, self.restarts);
        self.recorder = match open_recorder(&path) {
            Ok(r) => {
                info!(path = %path.display(), "track recording continues");
                Some(r)
            }
            Err(e) => {
                warn!("track recording stopped: {e:#}");
                None
            }
        };
    }
}

fn open_recorder(path: &Path) -> anyhow::Result<TrackRecorder<std::io::BufWriter<std::fs::File>>> {
    TrackRecorder::create(path).with_context(|| format!("opening tracks_csv {}", path.display()))
}

fn live_tracker(config: &TrackerNodeConfig) -> anyhow::Result<LiveTracker> {
    LiveTracker::new(config.detector.clone(), config.tracker.clone(), config.mount).context("tracker settings")
}

/// Tracks until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, config: TrackerNodeConfig) -> anyhow::Result<String> {
    let mut live = live_tracker(&config)?;
    let recorder = config.tracks_csv.as_deref().map(open_recorder).transpose()?;
    let mut node = startup.create_node()?;
    let tracks = node.create_publisher::<r2r::flotilla_msgs::msg::TrackArray>(&config.tracks_topic, QosProfile::default())?;
    let markers = node.create_publisher::<r2r::visualization_msgs::msg::MarkerArray>(&config.markers_topic, QosProfile::default())?;
    let image_qos = if config.image_best_effort { QosProfile::sensor_data() } else { convert::image_qos() };
    let mut images = node.subscribe::<Image>(&config.image_topic, image_qos)?;
    let mut infos = node.subscribe::<CameraInfo>(&config.camera_info_topic, QosProfile::default())?;
    let mut updates = startup.param_updates();
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    info!(image_topic = %config.image_topic, camera_info_topic = %config.camera_info_topic, tracks_topic = %config.tracks_topic, "tracker running");
    let limiter = WarnLimiter::new(config.warn_interval);
    let mut out =
        Outputs { config, tracks, markers, recorder, restarts: 0, limiter, drops: DropCounter::default(), stats: Stats::default() };
    let mut pending: VecDeque<Image> = VecDeque::new();
    let mut parameters_served = true;
    let signal = fros::shutdown_signal();
    tokio::pin!(signal);
    loop {
        tokio::select! {
            signal = &mut signal => {
                info!(signal = signal.context("installing signal handlers")?, "shutting down");
                break;
            }
            changed = updates.changed(), if parameters_served => {
                if changed.is_err() {
                    // The parameter service ended: stop polling it (it would be ready forever).
                    parameters_served = false;
                    continue;
                }
                let tree = updates.borrow_and_update().clone();
                match TrackerNodeConfig::from_tree(&tree).map_err(anyhow::Error::from).and_then(|c| Ok((live_tracker(&c)?, c))) {
                    Ok((new_live, new_config)) => {
                        info!("tracker parameters updated; tracks restart with the next CameraInfo");
                        live = new_live;
                        out.limiter = WarnLimiter::new(new_config.warn_interval);
                        out.config = new_config;
                    }
                    Err(e) => warn!("parameter update ignored: {e:#}"),
                }
            }
            msg = infos.next() => {
                let Some(msg) = msg else { break };
                match live.camera_info(msg.width, msg.height, &msg.distortion_model, &msg.k, &msg.d) {
                    Ok(true) => {
                        info!(width = msg.width, height = msg.height, fx = msg.k.first().copied().unwrap_or_default(), "camera model from CameraInfo");
                        for held in pending.drain(..) {
                            out.image(&mut live, &held);
                        }
                    }
                    Ok(false) => {}
                    Err(e) => {
                        if let Some(held_back) = out.limiter.admit("camera_info", Instant::now()) {
                            warn!(topic = %out.config.camera_info_topic, held_back, "CameraInfo refused, previous camera model kept: {e}");
                        }
                    }
                }
            }
            msg = images.next() => {
                let Some(msg) = msg else { break };
                if live.tracker().is_none() {
                    // Image and CameraInfo arrive on separate topics: hold the first frames
                    // until the camera model is known rather than lose them.
                    if let Some(held_back) = out.limiter.admit(FrameIssue::NoCameraInfo.kind(), Instant::now()) {
                        warn!(topic = %out.config.image_topic, held_back, "{}; holding the last {PENDING_FRAMES} frames", FrameIssue::NoCameraInfo);
                    }
                    if pending.len() == PENDING_FRAMES {
                        pending.pop_front();
                        out.stats.skipped += 1;
                    }
                    pending.push_back(msg);
                    continue;
                }
                out.image(&mut live, &msg);
            }
        }
    }
    // Frames still waiting for a CameraInfo were never tracked.
    out.stats.skipped += pending.len() as u64;
    spinner.stop();
    drop(node);
    if let Some(r) = out.recorder {
        r.into_inner().context("closing the track recording")?;
    }
    Ok(out.stats.summary())
}
