//! `overhead_camera`: renders `/tank/state` as the overhead camera sees it, at a rate of
//! sim time, and publishes the image with a CameraInfo of the same stamp. Optionally
//! saves every frame (PNG + `camera.yaml` + `stamps.csv`) for `image_replay`.
//!
//! The optical frame's pose goes on `/tf_static` (parent `parent_frame_id`) with the
//! first state and again whenever the water level or the mount changes.
//!
//! As `camera_tracker` it also tracks each frame in memory, as the `tracker` node would.
//!
//! The frame is rendered on the task that receives the states (a few ms per frame); PNG
//! encoding runs on a writer thread so saving cannot slow the camera down, and every
//! queued frame is written before the node exits.

use super::{convert, tracker};
use crate::accuracy::RenderedFrame;
use crate::config::{CameraNodeConfig, CameraTrackerConfig, TrackerNodeConfig};
use crate::live::{scene_object, CameraEmulator, WarnLimiter};
use crate::replay::FrameSaver;
use anyhow::Context as _;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use futures::StreamExt;
use r2r::flotilla_msgs::msg::TankState;
use r2r::QosProfile;
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};
use tracing::{info, warn};

/// Saves frames on its own thread.
struct FrameWriter {
    queue: mpsc::Sender<(u64, f64, RenderedFrame)>,
    thread: std::thread::JoinHandle<u64>,
}

impl FrameWriter {
    fn start(dir: PathBuf, config: &CameraNodeConfig) -> anyhow::Result<Self> {
        let mut saver = FrameSaver::create(&dir, &config.camera).with_context(|| format!("preparing save_frames_dir {}", dir.display()))?;
        let (queue, frames) = mpsc::channel::<(u64, f64, RenderedFrame)>();
        let thread = std::thread::Builder::new().name("frame-writer".into()).spawn(move || {
            let mut saved = 0;
            for (index, stamp, frame) in frames {
                match saver.save(index, stamp, &frame) {
                    Ok(_) => saved += 1,
                    Err(e) => {
                        warn!("saving frames stopped: {e}");
                        break;
                    }
                }
            }
            saved
        })?;
        info!(dir = %dir.display(), "saving frames");
        Ok(Self { queue, thread })
    }

    /// Writes what is queued, then returns the number of frames saved.
    fn finish(self) -> u64 {
        drop(self.queue);
        self.thread.join().unwrap_or(0)
    }
}

/// Renders and publishes until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, config: CameraNodeConfig) -> anyhow::Result<String> {
    run_with(startup, config, None).await
}

/// `camera_tracker`: the camera, each frame tracked in this process as `tracker` would
/// (same topics, recording and summary), so no frame is lost in transport; the image
/// itself is published only while something subscribes to it (rviz).
pub async fn run_with_tracker(startup: Startup, config: CameraTrackerConfig) -> anyhow::Result<String> {
    run_with(startup, config.camera, Some(config.tracker)).await
}

/// The settings of an accepted parameter tree: the camera's, and in `camera_tracker` the
/// tracker's.
fn settings(tree: &serde_yaml::Mapping, tracking: bool) -> anyhow::Result<(CameraNodeConfig, Option<TrackerNodeConfig>)> {
    Ok(if tracking {
        let both = CameraTrackerConfig::from_tree(tree)?;
        (both.camera, Some(both.tracker))
    } else {
        (CameraNodeConfig::from_tree(tree)?, None)
    })
}

async fn run_with(startup: Startup, config: CameraNodeConfig, tracker: Option<TrackerNodeConfig>) -> anyhow::Result<String> {
    let mut emulator = CameraEmulator::new(&config).context("building the emulated camera")?;
    let mut writer = match &config.save_frames_dir {
        Some(dir) => Some(FrameWriter::start(dir.clone(), &config)?),
        None => None,
    };
    let mut node = startup.create_node()?;
    let images = node.create_publisher::<r2r::sensor_msgs::msg::Image>(&config.image_topic, convert::image_qos())?;
    let infos = node.create_publisher::<r2r::sensor_msgs::msg::CameraInfo>(&config.camera_info_topic, QosProfile::default())?;
    let static_tf =
        node.create_publisher::<r2r::tf2_msgs::msg::TFMessage>("/tf_static", QosProfile::default().transient_local().keep_last(1))?;
    let mut states = node.subscribe::<TankState>(&config.state_topic, QosProfile::default())?;
    let mut tracking = match tracker {
        Some(c) => Some((tracker::live_tracker(&c)?, tracker::Outputs::create(&mut node, c)?)),
        None => None,
    };
    let mut updates = startup.param_updates();
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    info!(
        width = config.camera.width,
        height = config.camera.height,
        rate = config.rate,
        encoding = config.encoding.name(),
        image_topic = %config.image_topic,
        "overhead_camera running"
    );
    let mut config = config;
    let mut limiter = WarnLimiter::new(Duration::from_secs(5));
    let mut finite = flotilla_common::finite::FiniteGuard::new(config.state_topic.clone());
    let mut render_time = Duration::ZERO;
    let mut first_frame: Option<(Instant, f64)> = None;
    let mut last_frame = (Instant::now(), 0.0);
    let mut published_pose = None;
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
                let parsed = settings(&tree, tracking.is_some()).and_then(|(c, t)| Ok((emulator.rebuilt(&c)?, c, t)));
                match parsed {
                    Ok((new_emulator, new_config, new_tracker)) => {
                        if (new_config.state_topic.as_str(), new_config.image_topic.as_str(), new_config.camera_info_topic.as_str())
                            != (config.state_topic.as_str(), config.image_topic.as_str(), config.camera_info_topic.as_str())
                        {
                            warn!("topic names change only on restart (so does save_frames_dir)");
                        }
                        info!("camera parameters updated");
                        if let (Some((live, out)), Some(new_tracker)) = (tracking.as_mut(), new_tracker) {
                            if new_tracker != out.config {
                                match tracker::live_tracker(&new_tracker) {
                                    Ok(new_live) => {
                                        *live = new_live;
                                        out.reconfigure(new_tracker);
                                        info!("tracker parameters updated; tracks restart with the next frame");
                                    }
                                    Err(e) => warn!("tracker parameter update ignored: {}", flotilla_common::error_chain::describe(e.as_ref())),
                                }
                            }
                        }
                        emulator = new_emulator;
                        config = new_config;
                        published_pose = None; // frame names may have changed
                    }
                    Err(e) => warn!("parameter update ignored: {}", flotilla_common::error_chain::describe(e.as_ref())),
                }
            }
            state = states.next() => {
                // Every state is offered in order (states arriving in a burst must not
                // cost frames); when rendering cannot keep up, the subscription's queue
                // of 10 states bounds the lag.
                let Some(state) = state else { break };
                if !finite.admit(&state) {
                    continue;
                }
                let stamp = convert::seconds(&state.header.stamp);
                let reference_z = config.reference_z(state.water_level);
                let pose = emulator.camera().optical_pose(reference_z);
                if published_pose != Some(pose) {
                    let transform = r2r::geometry_msgs::msg::TransformStamped {
                        header: r2r::std_msgs::msg::Header { stamp: state.header.stamp.clone(), frame_id: config.parent_frame_id.clone() },
                        child_frame_id: config.frame_id.clone(),
                        transform: fros::transform_msg(&pose),
                    };
                    match static_tf.publish(&r2r::tf2_msgs::msg::TFMessage { transforms: vec![transform] }) {
                        Ok(()) => published_pose = Some(pose),
                        Err(e) => warn!("publishing the camera pose on /tf_static: {e}"),
                    }
                }
                let mut objects = Vec::with_capacity(state.modules.len());
                for m in &state.modules {
                    match scene_object(m.id, &m.kind, &fros::pose_from_msg(&m.pose), reference_z) {
                        Ok(Some(object)) => objects.push(object),
                        Ok(None) => {}
                        Err(e) => {
                            if let Some(held_back) = limiter.admit("unknown_kind", Instant::now()) {
                                warn!(module = %m.name, held_back, "module not drawn: {e}");
                            }
                        }
                    }
                }
                let started = Instant::now();
                let Some((index, frame)) = emulator.offer(stamp, &objects) else { continue };
                render_time += started.elapsed();
                let image = convert::image_msg(&frame, stamp, &config.frame_id);
                let info = convert::camera_info_msg(emulator.camera(), stamp, &config.frame_id);
                if tracking.is_none() || fros::listened(&images) {
                    if let Err(e) = images.publish(&image) {
                        warn!("publishing the camera image: {e}");
                    }
                }
                if let Err(e) = infos.publish(&info) {
                    warn!("publishing the camera info: {e}");
                }
                if let Some((live, out)) = tracking.as_mut() {
                    out.camera_info(live, &info);
                    out.image(live, &image);
                }
                if let Some(w) = &writer {
                    if w.queue.send((index, stamp, frame)).is_err() {
                        writer = None;
                    }
                }
                first_frame.get_or_insert((Instant::now(), stamp));
                last_frame = (Instant::now(), stamp);
            }
        }
    }
    spinner.stop();
    // Twice under load the camera logged its shutdown and then hung past the launcher's
    // 5 s timeout without its summary, most likely in the middleware deleting the writer
    // of the 3 MB images (the tracker did the same with their reader): bounded.
    fros::release_node(node);
    let saved = writer.map(FrameWriter::finish);
    let frames = emulator.frames();
    let mut summary = format!("summary: {frames} frames rendered");
    if frames > 0 {
        summary += &format!(", {:.2} ms per frame", render_time.as_secs_f64() * 1e3 / frames as f64);
    }
    if let Some((wall0, sim0)) = first_frame.filter(|_| frames > 1) {
        let (wall, sim) = (last_frame.0.duration_since(wall0).as_secs_f64(), last_frame.1 - sim0);
        if wall > 0.0 && sim > 0.0 {
            summary += &format!(", {:.1} Hz of sim time, {:.1} frames per wall s", (frames - 1) as f64 / sim, (frames - 1) as f64 / wall);
        }
    }
    if let Some(saved) = saved {
        summary += &format!(", {saved} saved");
    }
    if let Some((_, out)) = tracking {
        summary += &format!("; tracker {}", out.finish()?);
    }
    Ok(summary)
}
