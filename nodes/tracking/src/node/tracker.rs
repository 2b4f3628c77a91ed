//! `tracker`: any sensor_msgs/Image + CameraInfo -> `/tracking/tracks`, `/tracking/markers`
//! and (optionally) the trajectory CSV.
//!
//! Bad input (unsupported encoding, empty or truncated data, a step that does not fit,
//! no CameraInfo, a CameraInfo that is invalid or does not match the image) skips the
//! frame with a warning limited to one per kind every `warn_interval`; the node keeps
//! running.

use super::convert;
use crate::config::TrackerNodeConfig;
use crate::live::{FrameOutcome, LiveTracker, WarnLimiter};
use crate::recording::{numbered_path, TrackRecorder};
use anyhow::Context as _;
use flotilla_common::ros::{self as fros, LiveParams, Spinner, Startup};
use futures::StreamExt;
use r2r::sensor_msgs::msg::{CameraInfo, Image};
use r2r::QosProfile;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tracing::{info, warn};

/// What the node reports when it ends.
#[derive(Default)]
struct Stats {
    tracked: u64,
    skipped: u64,
    processing: Duration,
    max_processing: Duration,
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Stats {
    fn summary(&self) -> String {
        let mut s = format!("summary: {} frames tracked, {} skipped", self.tracked, self.skipped);
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

fn live_tracker(config: &TrackerNodeConfig) -> anyhow::Result<LiveTracker> {
    LiveTracker::new(config.detector.clone(), config.tracker.clone(), config.mount).context("tracker settings")
}

/// Tracks until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, config: TrackerNodeConfig) -> anyhow::Result<String> {
    let mut live = live_tracker(&config)?;
    let mut recorder = match &config.tracks_csv {
        Some(path) => Some(TrackRecorder::create(path).with_context(|| format!("opening tracks_csv {}", path.display()))?),
        None => None,
    };
    let mut node = startup.create_node()?;
    let tracks_pub = node.create_publisher::<r2r::flotilla_msgs::msg::TrackArray>(&config.tracks_topic, QosProfile::default())?;
    let markers_pub = node.create_publisher::<r2r::visualization_msgs::msg::MarkerArray>(&config.markers_topic, QosProfile::default())?;
    let image_qos = if config.image_best_effort { QosProfile::sensor_data() } else { QosProfile::default() };
    let mut images = node.subscribe::<Image>(&config.image_topic, image_qos)?;
    let mut infos = node.subscribe::<CameraInfo>(&config.camera_info_topic, QosProfile::default())?;
    let (params, mut updates) = LiveParams::new(flotilla_common::params::without_standard(&startup.params), |tree| {
        TrackerNodeConfig::from_tree(tree).map(|_| ()).map_err(|e| e.to_string())
    });
    let (param_handler, _param_events) = node.make_derived_parameter_handler(Arc::new(Mutex::new(params)))?;
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    tokio::spawn(param_handler);
    info!(image_topic = %config.image_topic, camera_info_topic = %config.camera_info_topic, tracks_topic = %config.tracks_topic, "tracker running");
    let mut config = config;
    let mut limiter = WarnLimiter::new(config.warn_interval);
    let mut stats = Stats::default();
    let mut restarts = 0;
    let signal = fros::shutdown_signal();
    tokio::pin!(signal);
    loop {
        tokio::select! {
            signal = &mut signal => {
                info!(signal = signal.context("installing signal handlers")?, "shutting down");
                break;
            }
            changed = updates.changed() => {
                if changed.is_err() {
                    continue;
                }
                let tree = updates.borrow_and_update().clone();
                match TrackerNodeConfig::from_tree(&tree).map_err(anyhow::Error::from).and_then(|c| Ok((live_tracker(&c)?, c))) {
                    Ok((new_live, new_config)) => {
                        info!("tracker parameters updated; tracks restart with the next CameraInfo");
                        live = new_live;
                        limiter = WarnLimiter::new(new_config.warn_interval);
                        config = new_config;
                    }
                    Err(e) => warn!("parameter update ignored: {e:#}"),
                }
            }
            msg = infos.next() => {
                let Some(msg) = msg else { break };
                match live.camera_info(msg.width, msg.height, &msg.distortion_model, &msg.k, &msg.d) {
                    Ok(true) => info!(width = msg.width, height = msg.height, fx = msg.k.first().copied().unwrap_or_default(), "camera model from CameraInfo"),
                    Ok(false) => {}
                    Err(e) => {
                        if let Some(held_back) = limiter.admit("camera_info", Instant::now()) {
                            warn!(topic = %config.camera_info_topic, held_back, "CameraInfo refused, previous camera model kept: {e}");
                        }
                    }
                }
            }
            msg = images.next() => {
                let Some(msg) = msg else { break };
                let received = Instant::now();
                let stamp = convert::seconds(&msg.header.stamp);
                match live.frame(msg.width, msg.height, msg.step, &msg.encoding, &msg.data, stamp) {
                    Ok((outcome, tracks)) => {
                        if let FrameOutcome::Restarted { previous } = outcome {
                            warn!(previous, stamp, "image stamps went back (world reset or replay restart): tracks restarted");
                            if let Some(base) = &config.tracks_csv {
                                restarts += 1;
                                let path = numbered_path(base, restarts);
                                recorder = match TrackRecorder::create(&path) {
                                    Ok(r) => {
                                        info!(path = %path.display(), "track recording continues");
                                        Some(r)
                                    }
                                    Err(e) => {
                                        warn!("track recording stopped: {e}");
                                        None
                                    }
                                };
                            }
                        }
                        if let Err(e) = tracks_pub.publish(&convert::track_array_msg(tracks, &msg.header.stamp, &config.frame_id)) {
                            warn!("publishing {}: {e}", config.tracks_topic);
                        }
                        let markers = convert::track_markers(tracks, &msg.header.stamp, &config.frame_id, config.plane_z);
                        if let Err(e) = markers_pub.publish(&markers) {
                            warn!("publishing {}: {e}", config.markers_topic);
                        }
                        if let Some(r) = recorder.as_mut() {
                            if let Err(e) = r.write(tracks) {
                                warn!("track recording stopped: {e}");
                                recorder = None;
                            }
                        }
                        let elapsed = received.elapsed();
                        stats.tracked += 1;
                        stats.processing += elapsed;
                        stats.max_processing = stats.max_processing.max(elapsed);
                        stats.first.get_or_insert(received);
                        stats.last = Some(received);
                    }
                    Err(issue) => {
                        stats.skipped += 1;
                        if let Some(held_back) = limiter.admit(issue.kind(), Instant::now()) {
                            warn!(topic = %config.image_topic, held_back, "frame skipped: {issue}");
                        }
                    }
                }
            }
        }
    }
    spinner.stop();
    drop(node);
    if let Some(r) = recorder {
        r.into_inner().context("closing the track recording")?;
    }
    Ok(stats.summary())
}
