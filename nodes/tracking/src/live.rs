//! What the tracking nodes do with each message, without ROS: the camera's frame
//! schedule and emulator, the tracker's handling of raw images and CameraInfo (bad input
//! is a reason to skip the frame, never a failure), rate-limited warnings, and the
//! replay timeline.

use crate::accuracy::RenderedFrame;
use crate::camera::{CameraModel, CameraMount};
use crate::config::CameraNodeConfig;
use crate::detect::DetectorConfig;
use crate::frame::{Encoding, FrameError};
use crate::pipeline::{SetupError, SkipReason, Tracker};
use crate::render::{RenderError, Renderer, SceneObject};
use crate::track::{Track, TrackerConfig};
use crate::transcode::{FrameReader, RawImage};
use flotilla_common::catalogue::{ModuleKind, UnknownKind};
use nalgebra::{Isometry3, Vector3};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Two stamps closer than this are the same instant, s (stamps are sums of time steps).
const STAMP_TOLERANCE: f64 = 1e-6;

/// Picks the ground-truth states that become frames: sim time is cut into periods of
/// `1 / rate` s from t = 0 and the first state of each period is rendered, so the frame
/// rate follows sim time whatever the real-time factor or the state rate (a burst or a
/// gap of states costs no frame beyond the periods it covers).
#[derive(Clone, Debug)]
pub struct FrameClock {
    rate: f64,
    last_period: Option<i64>,
}

impl FrameClock {
    /// A clock for `rate` frames per second of sim time (`rate` > 0).
    pub fn new(rate: f64) -> Self {
        Self { rate, last_period: None }
    }

    /// True when the state stamped `stamp` (s) is to be rendered. Time going back (a
    /// world reset) restarts the schedule.
    pub fn offer(&mut self, stamp: f64) -> bool {
        // Stamps are sums of time steps: 0.1 s x 30 Hz may come out as 2.9999999999999996.
        let period = (stamp * self.rate + STAMP_TOLERANCE).floor() as i64;
        if self.last_period.is_some_and(|last| period == last) {
            return false;
        }
        self.last_period = Some(period);
        true
    }
}

/// The scene object of a module in the physics frame (origin on the arena floor);
/// `reference_z` is the height of the camera's reference plane (water surface or table)
/// in that frame, m. `Ok(None)` for kinds without a top marker.
pub fn scene_object(id: u32, kind: &str, pose: &Isometry3<f64>, reference_z: f64) -> Result<Option<SceneObject>, UnknownKind> {
    let kind: ModuleKind = kind.parse()?;
    let p = pose.translation.vector;
    let forward = pose.rotation * Vector3::x();
    Ok(SceneObject::for_module(id, kind, p.x, p.y, p.z - reference_z, forward.y.atan2(forward.x)))
}

/// The emulated camera of the `overhead_camera` node: schedule plus renderer.
pub struct CameraEmulator {
    renderer: Renderer,
    clock: FrameClock,
    encoding: Encoding,
    frames: u64,
}

impl CameraEmulator {
    /// Builds the renderer for the node's settings.
    pub fn new(config: &CameraNodeConfig) -> Result<Self, RenderError> {
        Ok(Self {
            renderer: Renderer::new(config.arena, config.camera.clone(), config.render.clone())?,
            clock: FrameClock::new(config.rate),
            encoding: config.encoding,
            frames: 0,
        })
    }

    /// The camera with new settings, continuing this one's frame count: frame indices
    /// (saved frame names, noise streams) go on rather than start over and overwrite the
    /// frames already saved.
    pub fn rebuilt(&self, config: &CameraNodeConfig) -> Result<Self, RenderError> {
        Ok(Self { frames: self.frames, ..Self::new(config)? })
    }

    /// The camera model (for CameraInfo).
    pub fn camera(&self) -> &CameraModel {
        self.renderer.camera()
    }

    /// Frames rendered so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// Renders `objects` if a frame is due at `stamp` (s); returns the frame's index
    /// (which also selects its noise stream) and the image.
    pub fn offer(&mut self, stamp: f64, objects: &[SceneObject]) -> Option<(u64, RenderedFrame)> {
        if !self.clock.offer(stamp) {
            return None;
        }
        let index = self.frames;
        self.frames += 1;
        let frame = match self.encoding {
            Encoding::Mono8 => RenderedFrame::Gray(self.renderer.render_gray(objects, index)),
            Encoding::Rgb8 | Encoding::Bgr8 => RenderedFrame::Rgb(self.renderer.render_rgb(objects, index)),
        };
        Some((index, frame))
    }
}

impl RenderedFrame {
    /// ROS encoding name, row step (bytes) and pixel bytes of the frame.
    pub fn raw(&self) -> (&'static str, u32, &[u8]) {
        match self {
            RenderedFrame::Rgb(image) => ("rgb8", image.width() * 3, image.as_raw()),
            RenderedFrame::Gray(image) => ("mono8", image.width(), image.as_raw()),
        }
    }

    /// Width and height, px.
    pub fn size(&self) -> (u32, u32) {
        match self {
            RenderedFrame::Rgb(image) => image.dimensions(),
            RenderedFrame::Gray(image) => image.dimensions(),
        }
    }
}

/// Why the tracker node skipped a frame.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FrameIssue {
    /// No valid CameraInfo has arrived yet.
    #[error("no valid CameraInfo received yet; the image cannot be mapped to the world")]
    NoCameraInfo,
    /// The image message itself is unusable.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The image does not fit the CameraInfo.
    #[error(transparent)]
    Skip(#[from] SkipReason),
}

impl FrameIssue {
    /// A short name of the problem, for rate limiting.
    pub fn kind(&self) -> &'static str {
        match self {
            FrameIssue::NoCameraInfo => "no_camera_info",
            FrameIssue::Frame(FrameError::UnsupportedEncoding(_) | FrameError::NeedsConversion(_)) => "encoding",
            FrameIssue::Frame(FrameError::ZeroSize { .. }) => "zero_size",
            FrameIssue::Frame(FrameError::StepTooSmall { .. }) => "step",
            FrameIssue::Frame(FrameError::Truncated { .. }) => "truncated",
            FrameIssue::Skip(SkipReason::SizeMismatch(_)) => "size_mismatch",
            FrameIssue::Skip(SkipReason::Stamp(_)) => "stamp",
        }
    }
}

/// What a frame did to the tracks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameOutcome {
    /// Tracked normally.
    Tracked,
    /// The stamp went back by more than a frame (a world reset or a replay starting
    /// over): the tracks were dropped and tracking restarted with this frame.
    Restarted {
        /// Stamp of the previous frame, s.
        previous: f64,
    },
}

/// Counts frames lost before they reached the tracker (sensor_msgs/Image has no sequence
/// number in ROS 2): the frame period is the median of the recent stamp intervals, and a
/// gap of `n` periods means `n - 1` frames missing.
#[derive(Clone, Debug, Default)]
pub struct DropCounter {
    last_stamp: Option<f64>,
    intervals: std::collections::VecDeque<f64>,
    lost: u64,
}

/// Stamp intervals the frame period is measured over.
const PERIOD_SAMPLES: usize = 31;
/// Intervals needed before gaps are counted.
const MIN_PERIOD_SAMPLES: usize = 5;

impl DropCounter {
    /// Takes the next frame's stamp (s); returns how many frames are missing before it.
    pub fn observe(&mut self, stamp: f64) -> u64 {
        let Some(last) = self.last_stamp.replace(stamp) else { return 0 };
        let interval = stamp - last;
        if interval <= 0.0 {
            // A restart or a repeated stamp: measure the period afresh.
            self.intervals.clear();
            return 0;
        }
        let missing = self.period().map_or(0, |period| ((interval / period).round() as u64).saturating_sub(1));
        if missing == 0 {
            if self.intervals.len() == PERIOD_SAMPLES {
                self.intervals.pop_front();
            }
            self.intervals.push_back(interval);
        }
        self.lost += missing;
        missing
    }

    /// The frame period, s, once enough intervals were seen.
    pub fn period(&self) -> Option<f64> {
        if self.intervals.len() < MIN_PERIOD_SAMPLES {
            return None;
        }
        let mut sorted: Vec<f64> = self.intervals.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        Some(sorted[sorted.len() / 2])
    }

    /// Frames lost so far.
    pub fn lost(&self) -> u64 {
        self.lost
    }
}

/// Counts the frames lost before they reached the tracker. sensor_msgs/Image has no
/// sequence number in ROS 2, but a camera publishes a CameraInfo with each image's stamp:
/// a message of a few hundred bytes that arrives where a multi-megabyte image may not. A
/// CameraInfo stamp whose image was overtaken by a later image is a lost frame, however
/// irregular the stamps (an emulated camera sampling a physics step of 25 ms at 30 Hz
/// has gaps of 1.5 periods that stamp gaps alone would count as losses). Until an image
/// matches a CameraInfo stamp (a driver that publishes its CameraInfo once, or with other
/// stamps) the gaps in the image stamps are counted instead ([`DropCounter`]).
#[derive(Clone, Debug, Default)]
pub struct FrameLedger {
    /// CameraInfo stamps whose image has not arrived, ns.
    announced: std::collections::BTreeSet<i64>,
    /// Stamps of the latest images, ns (a CameraInfo may come after its image).
    received: std::collections::VecDeque<i64>,
    last_image: Option<i64>,
    /// Whether the images and CameraInfos share stamps.
    paired: bool,
    gaps: DropCounter,
    lost: u64,
}

/// Stamps the ledger remembers on each side.
const LEDGER_SPAN: usize = 300;

impl FrameLedger {
    /// A CameraInfo stamped `stamp_ns` arrived; returns the frames this shows lost (its
    /// image was overtaken by a later one).
    pub fn camera_info(&mut self, stamp_ns: i64) -> u64 {
        if self.received.contains(&stamp_ns) {
            self.paired = true;
            return 0;
        }
        if self.received.front().is_some_and(|&oldest| stamp_ns < oldest) {
            // Before every image remembered: time went back (a reset or a replay restart).
            self.restart();
        } else if self.last_image.is_some_and(|last| stamp_ns < last) {
            // Older than the newest image and never received: lost, once pairing is known.
            let missing = u64::from(self.paired);
            self.lost += missing;
            return missing;
        }
        self.announced.insert(stamp_ns);
        if self.announced.len() > LEDGER_SPAN {
            self.announced.pop_first();
        }
        0
    }

    /// An image stamped `stamp_ns` arrived; returns how many frames before it are lost.
    pub fn image(&mut self, stamp_ns: i64) -> u64 {
        let gap_missing = self.gaps.observe(stamp_ns as f64 * 1e-9);
        if self.last_image.is_some_and(|last| stamp_ns <= last) && !self.announced.contains(&stamp_ns) {
            // Time went back (a reset or a replay restart): start the ledger over.
            self.restart();
        }
        self.last_image = Some(stamp_ns);
        if self.announced.remove(&stamp_ns) {
            self.paired = true;
        }
        self.received.push_back(stamp_ns);
        if self.received.len() > LEDGER_SPAN {
            self.received.pop_front();
        }
        let missing = if self.paired {
            let overtaken = self.announced.range(..stamp_ns).count();
            self.announced = self.announced.split_off(&stamp_ns);
            overtaken as u64
        } else {
            gap_missing
        };
        self.lost += missing;
        missing
    }

    fn restart(&mut self) {
        self.announced.clear();
        self.received.clear();
        self.last_image = None;
    }

    /// Frames lost so far.
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// CameraInfos newer than the last image, whose images had not arrived (in flight at
    /// shutdown, or lost with the last frames).
    pub fn unanswered(&self) -> u64 {
        if self.paired {
            self.announced.len() as u64
        } else {
            0
        }
    }
}

/// The `tracker` node's state: the latest CameraInfo and the tracker built on it.
pub struct LiveTracker {
    detector: DetectorConfig,
    tracker_config: TrackerConfig,
    mount: CameraMount,
    tracker: Option<Tracker>,
    last_stamp: Option<f64>,
    reader: FrameReader,
}

impl LiveTracker {
    /// Validates the settings; the tracker itself starts with the first CameraInfo.
    pub fn new(detector: DetectorConfig, tracker: TrackerConfig, mount: CameraMount) -> Result<Self, SetupError> {
        // Building one checks every setting now rather than at the first CameraInfo.
        Tracker::new(CameraModel { mount, ..CameraModel::lily_tank_default() }, detector.clone(), tracker.clone())?;
        Ok(Self { detector, tracker_config: tracker, mount, tracker: None, last_stamp: None, reader: FrameReader::new() })
    }

    /// The tracker, once a CameraInfo was accepted.
    pub fn tracker(&self) -> Option<&Tracker> {
        self.tracker.as_ref()
    }

    /// Takes a CameraInfo; returns true when the camera model changed. An invalid one is
    /// refused and the previous model kept.
    pub fn camera_info(&mut self, width: u32, height: u32, distortion_model: &str, k: &[f64], d: &[f64]) -> Result<bool, SetupError> {
        let camera = CameraModel::from_camera_info(width, height, distortion_model, k, d, self.mount)?;
        match &mut self.tracker {
            Some(tracker) if *tracker.camera() == camera => Ok(false),
            Some(tracker) => Ok(tracker.set_camera(camera).map(|_| true)?),
            None => {
                self.tracker = Some(Tracker::new(camera, self.detector.clone(), self.tracker_config.clone())?);
                Ok(true)
            }
        }
    }

    /// Tracks one raw image stamped `stamp` (s).
    pub fn frame(&mut self, image: &RawImage, stamp: f64) -> Result<(FrameOutcome, &[Track]), FrameIssue> {
        let view = self.reader.view(image)?;
        let tracker = self.tracker.as_mut().ok_or(FrameIssue::NoCameraInfo)?;
        let mut outcome = FrameOutcome::Tracked;
        if let Some(previous) = self.last_stamp.filter(|p| stamp < *p - STAMP_TOLERANCE) {
            tracker.reset();
            outcome = FrameOutcome::Restarted { previous };
        }
        let tracks = tracker.process(&view, stamp)?;
        self.last_stamp = Some(stamp);
        Ok((outcome, tracks))
    }
}

/// Lets a warning of each kind through at most once per interval and counts the ones
/// held back, so a stream of bad frames cannot flood the log.
#[derive(Debug)]
pub struct WarnLimiter {
    interval: Duration,
    kinds: HashMap<&'static str, (Instant, u64)>,
}

impl WarnLimiter {
    /// At most one warning per kind every `interval`.
    pub fn new(interval: Duration) -> Self {
        Self { interval, kinds: HashMap::new() }
    }

    /// `Some(n)` when a warning of `kind` at `now` is to be logged, `n` being how many of
    /// that kind were held back since the last one logged; `None` to hold it back.
    pub fn admit(&mut self, kind: &'static str, now: Instant) -> Option<u64> {
        match self.kinds.get_mut(kind) {
            Some((last, held)) if now.duration_since(*last) < self.interval => {
                *held += 1;
                None
            }
            Some((last, held)) => {
                *last = now;
                Some(std::mem::take(held))
            }
            None => {
                self.kinds.insert(kind, (now, 0));
                Some(0)
            }
        }
    }
}

/// Stamps and wall-clock pacing of a replayed folder.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayTimeline {
    /// Stamp of each file in one pass, s.
    stamps: Vec<f64>,
    /// Time between the last frame of a pass and the first of the next, s.
    period: f64,
}

impl ReplayTimeline {
    /// `frames` files: recorded stamps where known (all or nothing), else
    /// `start_time + k / rate`.
    pub fn new(frames: usize, recorded: Option<Vec<f64>>, start_time: f64, rate: f64) -> Self {
        let period = 1.0 / rate;
        let stamps =
            recorded.filter(|s| s.len() == frames).unwrap_or_else(|| (0..frames).map(|k| start_time + k as f64 * period).collect());
        Self { stamps, period }
    }

    /// Frames in one pass.
    pub fn len(&self) -> usize {
        self.stamps.len()
    }

    /// True for an empty folder.
    pub fn is_empty(&self) -> bool {
        self.stamps.is_empty()
    }

    /// Stamp of the `k`-th published frame, counting across passes (stamps keep
    /// increasing when looping), s.
    pub fn stamp(&self, k: u64) -> f64 {
        let n = self.stamps.len().max(1) as u64;
        let (pass, i) = (k / n, (k % n) as usize);
        let span = self.stamps.last().copied().unwrap_or(0.0) - self.stamps.first().copied().unwrap_or(0.0) + self.period;
        self.stamps.get(i).copied().unwrap_or(0.0) + pass as f64 * span
    }

    /// When the `k`-th frame is due after the first at `speed` recording seconds per wall
    /// second; `None` for `speed` 0 (as fast as possible).
    pub fn wall_offset(&self, k: u64, speed: f64) -> Option<Duration> {
        (speed > 0.0).then(|| flotilla_common::duration::saturating((self.stamp(k) - self.stamp(0)) / speed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{MarkerKind, RenderOptions};
    use flotilla_common::arena::ArenaOutline;

    /// A parameter change rebuilt the camera with its frame count at 0: saved frames were
    /// overwritten from `frame_000000.png` on and the summary counted only the frames since.
    #[test]
    fn a_rebuilt_camera_goes_on_counting_frames() {
        let config = CameraNodeConfig::from_tree(&serde_yaml::from_str("width: 64\nheight: 64").unwrap()).unwrap();
        let mut camera = CameraEmulator::new(&config).unwrap();
        for k in 0..3u32 {
            assert_eq!(camera.offer(f64::from(k) / 30.0, &[]).map(|(i, _)| i), Some(u64::from(k)));
        }
        let changed = CameraNodeConfig::from_tree(&serde_yaml::from_str("width: 48\nheight: 48").unwrap()).unwrap();
        let mut camera = camera.rebuilt(&changed).unwrap();
        let (index, frame) = camera.offer(0.1, &[]).unwrap();
        assert_eq!((index, camera.frames(), frame.size()), (3, 4, (48, 48)));
    }

    #[test]
    fn frame_clock_follows_sim_time() {
        // States every 25 ms (40 Hz), camera at 30 Hz: 3 frames per 0.1 s.
        let mut clock = FrameClock::new(30.0);
        let rendered: Vec<f64> = (0..=12).map(|k| k as f64 * 0.025).filter(|t| clock.offer(*t)).collect();
        let expected = [0.0, 0.05, 0.075, 0.1, 0.15, 0.175, 0.2, 0.25, 0.275, 0.3];
        assert_eq!(rendered.len(), expected.len(), "{rendered:?}");
        for (a, b) in rendered.iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "{rendered:?}");
        }
        // A gap of 1 s renders one frame, not a burst.
        assert!(clock.offer(1.3));
        assert!(!clock.offer(1.31));
        assert!(clock.offer(1.3 + 1.0 / 30.0));
        // A reset (time back to 0) restarts the schedule.
        assert!(clock.offer(0.0));
        assert!(!clock.offer(0.025));
        // States already at 30 Hz on 25 ms steps (0.05, 0.075, 0.1, 0.15, ...): every one.
        let mut clock = FrameClock::new(30.0);
        let states = [0.05, 0.075, 0.1, 0.15, 0.175, 0.2, 0.25];
        assert!(states.iter().all(|t| clock.offer(*t)));
    }

    #[test]
    fn scene_objects_from_module_poses() {
        let pose = Isometry3::new(Vector3::new(0.1, -0.05, 0.23), Vector3::new(0.0, 0.0, 0.5));
        let ball = scene_object(4, "ping_pong_ball", &pose, 0.22).unwrap().unwrap();
        // Ball centre 1 cm above the water, radius 15 mm: top 25 mm above it.
        assert_eq!((ball.id, ball.kind, ball.x, ball.y), (4, MarkerKind::Ball, 0.1, -0.05));
        assert!((ball.top_height - 0.025).abs() < 1e-12, "{}", ball.top_height);
        assert!((ball.heading - 0.5).abs() < 1e-12);
        let err = scene_object(1, "submarine", &pose, 0.0).unwrap_err();
        assert!(err.to_string().contains("submarine"));
        assert_eq!(scene_object(2, "molemod_block", &pose, 0.0).unwrap(), None);
    }

    fn small_camera() -> CameraModel {
        CameraModel::covering(&ArenaOutline::lily_tank(), 256, 256, 1.0, 0.03)
    }

    /// The small camera and one 6 cm ball rendered by it (rgb8).
    fn ball_frame() -> (CameraModel, image::RgbImage) {
        let camera = small_camera();
        let mut renderer = Renderer::new(ArenaOutline::lily_tank(), camera.clone(), RenderOptions::default()).unwrap();
        let ball = [SceneObject::new(0, MarkerKind::Ball, 0.05, 0.05).with_size(0.06)];
        let frame = renderer.render_rgb(&ball, 0);
        (camera, frame)
    }

    #[test]
    fn live_tracker_skips_bad_input_and_keeps_tracking() {
        let (camera, frame) = ball_frame();
        let info = camera.camera_info();
        let config = TrackerConfig { confirm_hits: 1, ..TrackerConfig::default() };
        let mut live = LiveTracker::new(DetectorConfig::default(), config, camera.mount).unwrap();
        let data = frame.as_raw();

        let err = live.frame(&RawImage::new(256, 256, 768, "rgb8", data), 0.0).unwrap_err();
        assert_eq!(err, FrameIssue::NoCameraInfo);
        assert!(live.camera_info(256, 256, &info.distortion_model, &info.k, &info.d).unwrap());
        assert!(!live.camera_info(256, 256, &info.distortion_model, &info.k, &info.d).unwrap());
        let (outcome, tracks) = live.frame(&RawImage::new(256, 256, 768, "rgb8", data), 0.1).unwrap();
        assert_eq!((outcome, tracks.len()), (FrameOutcome::Tracked, 1));

        let bad = [
            (live.frame(&RawImage::new(256, 256, 768, "32FC1", data), 0.2).unwrap_err(), "encoding", "32FC1"),
            (live.frame(&RawImage::new(256, 256, 768, "rgb8", &data[..1000]), 0.2).unwrap_err(), "truncated", "truncated"),
            (live.frame(&RawImage::new(0, 256, 768, "rgb8", data), 0.2).unwrap_err(), "zero_size", "empty"),
            (live.frame(&RawImage::new(256, 256, 700, "rgb8", data), 0.2).unwrap_err(), "step", "step 700"),
            (live.frame(&RawImage::new(128, 256, 384, "rgb8", data), 0.2).unwrap_err(), "size_mismatch", "128x256"),
        ];
        for (err, kind, text) in bad {
            assert_eq!(err.kind(), kind);
            assert!(err.to_string().contains(text), "{err}");
        }
        // Inconsistent CameraInfo is refused; the previous camera stays.
        let err = live.camera_info(256, 256, "rational_polynomial", &info.k, &[0.0; 8]).unwrap_err();
        assert!(err.to_string().contains("rational_polynomial"), "{err}");
        let err = live.camera_info(256, 256, "plumb_bob", &[0.0; 9], &info.d).unwrap_err();
        assert!(err.to_string().contains("k[8]") || err.to_string().contains("fx"), "{err}");
        let (_, tracks) = live.frame(&RawImage::new(256, 256, 768, "rgb8", data), 0.3).unwrap();
        assert_eq!((tracks.len(), tracks[0].id, tracks[0].missed_frames), (1, 1, 0));

        // Time going back restarts the tracks (new ids), it does not stop tracking.
        let (outcome, tracks) = live.frame(&RawImage::new(256, 256, 768, "rgb8", data), 0.0).unwrap();
        assert_eq!(outcome, FrameOutcome::Restarted { previous: 0.3 });
        assert_eq!((tracks.len(), tracks[0].id), (1, 2));
    }

    #[test]
    fn frames_in_other_renderers_encodings_track_where_rgb8_does() {
        let (camera, frame) = ball_frame();
        let info = camera.camera_info();
        let pixels: Vec<[u8; 3]> = frame.pixels().map(|p| p.0).collect();
        let rgba: Vec<u8> = pixels.iter().flat_map(|p| [p[0], p[1], p[2], 255]).collect();
        let bgra16_be: Vec<u8> = pixels.iter().flat_map(|p| [p[2], 0, p[1], 0, p[0], 0, 255, 255]).collect();
        let mono16: Vec<u8> =
            pixels.iter().flat_map(|p| u16::from(crate::frame::luma(p[0], p[1], p[2])).wrapping_mul(257).to_le_bytes()).collect();
        let bayer: Vec<u8> = pixels.iter().enumerate().map(|(i, p)| p[[[0, 1], [1, 2]][i / 256 % 2][i % 2]]).collect();
        let track = |image: RawImage| {
            let mut live =
                LiveTracker::new(DetectorConfig::default(), TrackerConfig { confirm_hits: 1, ..TrackerConfig::default() }, camera.mount)
                    .unwrap();
            live.camera_info(256, 256, &info.distortion_model, &info.k, &info.d).unwrap();
            let (_, tracks) = live.frame(&image, 0.1).unwrap();
            assert_eq!(tracks.len(), 1, "{}", image.encoding);
            (tracks[0].x, tracks[0].y)
        };
        let (x, y) = track(RawImage::new(256, 256, 768, "rgb8", frame.as_raw()));
        for image in [
            RawImage::new(256, 256, 1024, "rgba8", &rgba),
            RawImage::new(256, 256, 2048, "bgra16", &bgra16_be).big_endian(true),
            RawImage::new(256, 256, 512, "mono16", &mono16),
            RawImage::new(256, 256, 256, "bayer_rggb8", &bayer),
        ] {
            let (u, v) = track(image);
            // The pixel here is 3.5 mm: a twentieth of one.
            assert!((u - x).hypot(v - y) < 2e-4, "{}: ({u}, {v}) vs ({x}, {y})", image.encoding);
        }
    }

    #[test]
    fn warn_limiter_counts_what_it_holds_back() {
        let mut limiter = WarnLimiter::new(Duration::from_secs(5));
        let t0 = Instant::now();
        assert_eq!(limiter.admit("encoding", t0), Some(0));
        assert_eq!(limiter.admit("encoding", t0 + Duration::from_secs(1)), None);
        assert_eq!(limiter.admit("truncated", t0 + Duration::from_secs(1)), Some(0));
        assert_eq!(limiter.admit("encoding", t0 + Duration::from_secs(2)), None);
        assert_eq!(limiter.admit("encoding", t0 + Duration::from_secs(6)), Some(2));
        assert_eq!(limiter.admit("encoding", t0 + Duration::from_secs(7)), None);
    }

    #[test]
    fn replay_timeline_stamps_and_pacing() {
        let recorded = ReplayTimeline::new(3, Some(vec![0.05, 0.075, 0.1]), 0.0, 40.0);
        assert_eq!(recorded.stamp(1), 0.075);
        // Second pass: span 0.05 + period 0.025.
        assert!((recorded.stamp(4) - 0.15).abs() < 1e-12);
        assert_eq!(recorded.wall_offset(2, 0.5), Some(Duration::from_millis(100)));
        assert_eq!(recorded.wall_offset(2, 0.0), None);
        // Stamps for a different number of files are ignored.
        let rate = ReplayTimeline::new(3, Some(vec![1.0]), 2.0, 10.0);
        assert!((rate.stamp(2) - 2.2).abs() < 1e-12 && rate.len() == 3);
    }

    #[test]
    fn the_ledger_counts_lost_images_from_their_camera_infos_whatever_the_spacing() {
        let mut ledger = FrameLedger::default();
        // Frames quantised to a 25 ms physics step at 30 Hz: gaps of 25 and 50 ms.
        let stamps: Vec<i64> = [0, 50, 75, 100, 150, 175, 200, 250, 275, 300, 350].iter().map(|ms| ms * 1_000_000).collect();
        let mut lost = 0;
        for (k, &s) in stamps.iter().enumerate() {
            match k {
                // Frames 4 and 7 are lost.
                4 | 7 => lost += ledger.camera_info(s),
                // Frame 9's CameraInfo comes after its image.
                9 => lost += ledger.image(s) + ledger.camera_info(s),
                _ => lost += ledger.camera_info(s) + ledger.image(s),
            }
        }
        assert_eq!((lost, ledger.lost(), ledger.unanswered()), (2, 2, 0));
        // A CameraInfo overtaken by a later image counts when it arrives.
        assert_eq!(ledger.image(400_000_000), 0);
        assert_eq!(ledger.camera_info(400_000_000), 0);
        assert_eq!(ledger.camera_info(375_000_000), 1);
        // The last CameraInfo without its image yet is in flight, not lost.
        assert_eq!(ledger.camera_info(425_000_000), 0);
        assert_eq!((ledger.lost(), ledger.unanswered()), (3, 1));
        // Time going back (a reset) starts over without counting.
        let mut ledger = FrameLedger::default();
        for ms in [1000, 1050, 1075] {
            assert_eq!(ledger.camera_info(ms * 1_000_000) + ledger.image(ms * 1_000_000), 0);
        }
        assert_eq!(ledger.camera_info(0), 0);
        assert_eq!(ledger.image(0), 0);
        assert_eq!(ledger.camera_info(50_000_000) + ledger.image(50_000_000), 0);
        assert_eq!((ledger.lost(), ledger.unanswered()), (0, 0));
    }

    #[test]
    fn without_stamped_camera_infos_the_ledger_counts_stamp_gaps() {
        let mut ledger = FrameLedger::default();
        // One CameraInfo at start-up (stamp 0), then images at 30 Hz.
        assert_eq!(ledger.camera_info(0), 0);
        let period = 1_000_000_000 / 30;
        let mut lost = 0;
        for k in (1..20).filter(|k| *k != 12) {
            lost += ledger.image(k * period);
        }
        assert_eq!((lost, ledger.unanswered()), (1, 0));
    }

    #[test]
    fn drop_counter_counts_the_frames_a_stamp_gap_skips() {
        let mut drops = DropCounter::default();
        let period = 1.0 / 30.0;
        for k in 0..10 {
            assert_eq!(drops.observe(f64::from(k) * period), 0);
        }
        assert!((drops.period().unwrap() - period).abs() < 1e-12);
        // Frames 10, 11 and 12 never came.
        assert_eq!(drops.observe(13.0 * period), 3);
        assert_eq!(drops.observe(14.0 * period), 0);
        // A little jitter is not a loss; time going back starts over.
        assert_eq!(drops.observe(15.3 * period), 0);
        assert_eq!(drops.observe(0.2), 0);
        assert_eq!(drops.observe(0.2 + 5.0 * period), 0, "no period yet after a restart");
        assert_eq!(drops.lost(), 3);
    }
}
