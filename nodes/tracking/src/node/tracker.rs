//! `tracker`: any sensor_msgs/Image + CameraInfo -> `/tracking/tracks`, `/tracking/markers`
//! and (optionally) the trajectory CSV.
//!
//! Bad input (unsupported encoding, empty or truncated data, a step that does not fit,
//! no CameraInfo, a CameraInfo that is invalid or does not match the image) skips the
//! frame with a warning limited to one per kind every `warn_interval`; the node keeps
//! running.

use super::convert;
use crate::config::TrackerNodeConfig;
use crate::live::{FrameIssue, FrameLedger, FrameOutcome, LiveTracker, WarnLimiter};
use crate::recording::{numbered_path, TrackRecorder};
use crate::transcode::RawImage;
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

/// Everything a tracked frame goes to (also `camera_tracker`'s, fed in memory).
pub(super) struct Outputs {
    pub(super) config: TrackerNodeConfig,
    tracks: r2r::Publisher<r2r::flotilla_msgs::msg::TrackArray>,
    markers: r2r::Publisher<r2r::visualization_msgs::msg::MarkerArray>,
    recorder: Option<TrackRecorder<std::io::BufWriter<std::fs::File>>>,
    /// Times the stamps went back (numbers the continued recordings).
    restarts: u32,
    limiter: WarnLimiter,
    /// Counts frames that never arrived, from the CameraInfo and image stamps.
    frames: FrameLedger,
    stats: Stats,
}

impl Outputs {
    /// The publishers of `config`'s topics on `node`, and the recording if one is asked for.
    pub(super) fn create(node: &mut r2r::Node, config: TrackerNodeConfig) -> anyhow::Result<Self> {
        let recorder = config.tracks_csv.as_deref().map(open_recorder).transpose()?;
        let tracks = node.create_publisher::<r2r::flotilla_msgs::msg::TrackArray>(&config.tracks_topic, QosProfile::default())?;
        let markers = node.create_publisher::<r2r::visualization_msgs::msg::MarkerArray>(&config.markers_topic, QosProfile::default())?;
        let limiter = WarnLimiter::new(config.warn_interval);
        Ok(Self { config, tracks, markers, recorder, restarts: 0, limiter, frames: FrameLedger::default(), stats: Stats::default() })
    }

    fn report_lost(&mut self, missing: u64, stamp: f64) {
        if missing == 0 {
            return;
        }
        self.stats.lost = self.frames.lost();
        if let Some(held_back) = self.limiter.admit("frames_lost", Instant::now()) {
            warn!(topic = %self.config.image_topic, missing, lost_total = self.stats.lost, held_back, stamp, "frames lost before reaching the tracker");
        }
    }

    /// Takes the camera model of a CameraInfo; true when it changed (the tracks restart).
    pub(super) fn camera_info(&mut self, live: &mut LiveTracker, msg: &CameraInfo) -> bool {
        let missing = self.frames.camera_info(nanoseconds(&msg.header.stamp));
        self.report_lost(missing, convert::seconds(&msg.header.stamp));
        match live.camera_info(msg.width, msg.height, &msg.distortion_model, &msg.k, &msg.d) {
            Ok(changed) => {
                if changed {
                    info!(
                        width = msg.width,
                        height = msg.height,
                        fx = msg.k.first().copied().unwrap_or_default(),
                        "camera model from CameraInfo"
                    );
                }
                changed
            }
            Err(e) => {
                if let Some(held_back) = self.limiter.admit("camera_info", Instant::now()) {
                    warn!(topic = %self.config.camera_info_topic, held_back, "CameraInfo refused, previous camera model kept: {e}");
                }
                false
            }
        }
    }

    /// New settings (the topics and the recording stay as they started).
    pub(super) fn reconfigure(&mut self, config: TrackerNodeConfig) {
        self.limiter = WarnLimiter::new(config.warn_interval);
        self.config = config;
    }

    /// Closes the recording; returns the summary line.
    pub(super) fn finish(self) -> anyhow::Result<String> {
        if let Some(r) = self.recorder {
            r.into_inner().context("closing the track recording")?;
        }
        let mut summary = self.stats.summary();
        let unanswered = self.frames.unanswered();
        if unanswered > 0 {
            summary += &format!(", {unanswered} announced by CameraInfo and not received by shutdown");
        }
        Ok(summary)
    }

    /// Tracks one image and publishes and records the result, or warns why it was skipped.
    pub(super) fn image(&mut self, live: &mut LiveTracker, msg: &Image) {
        let received = Instant::now();
        let stamp = convert::seconds(&msg.header.stamp);
        let missing = self.frames.image(nanoseconds(&msg.header.stamp));
        self.report_lost(missing, stamp);
        let tracks = match live
            .frame(&RawImage::new(msg.width, msg.height, msg.step, &msg.encoding, &msg.data).big_endian(msg.is_bigendian != 0), stamp)
        {
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
                warn!("track recording stopped: {}", flotilla_common::error_chain::describe(e.as_ref()));
                None
            }
        };
    }
}

/// A header stamp in nanoseconds (exact, to pair an image with its CameraInfo).
fn nanoseconds(stamp: &r2r::builtin_interfaces::msg::Time) -> i64 {
    i64::from(stamp.sec) * 1_000_000_000 + i64::from(stamp.nanosec)
}

fn open_recorder(path: &Path) -> anyhow::Result<TrackRecorder<std::io::BufWriter<std::fs::File>>> {
    TrackRecorder::create(path).with_context(|| format!("opening tracks_csv {}", path.display()))
}

pub(super) fn live_tracker(config: &TrackerNodeConfig) -> anyhow::Result<LiveTracker> {
    LiveTracker::new(config.detector.clone(), config.tracker.clone(), config.mount).context("tracker settings")
}

/// Tracks until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, config: TrackerNodeConfig) -> anyhow::Result<String> {
    let mut live = live_tracker(&config)?;
    let mut node = startup.create_node()?;
    let image_qos = if config.image_best_effort { QosProfile::sensor_data() } else { convert::image_qos() };
    let mut images = node.subscribe::<Image>(&config.image_topic, image_qos)?;
    let mut infos = node.subscribe::<CameraInfo>(&config.camera_info_topic, QosProfile::default())?;
    let mut out = Outputs::create(&mut node, config.clone())?;
    let mut updates = startup.param_updates();
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    info!(image_topic = %config.image_topic, camera_info_topic = %config.camera_info_topic, tracks_topic = %config.tracks_topic, "tracker running");
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
                        out.reconfigure(new_config);
                    }
                    Err(e) => warn!("parameter update ignored: {}", flotilla_common::error_chain::describe(e.as_ref())),
                }
            }
            msg = infos.next() => {
                let Some(msg) = msg else { break };
                if out.camera_info(&mut live, &msg) {
                    for held in pending.drain(..) {
                        out.image(&mut live, &held);
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
    fros::release_node(node);
    out.finish()
}
