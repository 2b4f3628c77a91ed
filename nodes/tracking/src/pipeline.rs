//! The whole tracker: frame -> detections -> tracks, with one camera model.

use crate::camera::{CameraError, CameraModel};
use crate::detect::{Detection, DetectionStats, Detector, DetectorConfig, DetectorConfigError, SizeMismatch};
use crate::frame::ImageView;
use crate::track::{MultiTargetTracker, StampError, Track, TrackerConfig, TrackerConfigError};

/// Why a tracker cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    /// Unusable camera model.
    #[error(transparent)]
    Camera(#[from] CameraError),
    /// Bad detector setting.
    #[error(transparent)]
    Detector(#[from] DetectorConfigError),
    /// Bad tracker setting.
    #[error(transparent)]
    Tracker(#[from] TrackerConfigError),
    /// A marker plane at or above the camera, which looks down on it: nothing would
    /// ever be detected.
    #[error("detector option `{field}` = {height} m is not below the camera ({camera} m above the water, `mount.height`): a camera looking down cannot see it")]
    MarkerAboveCamera {
        /// The detector option (`marker_height` or `markers.height`).
        field: &'static str,
        /// The marker plane's height above the water, m.
        height: f64,
        /// The camera's height above the water, m.
        camera: f64,
    },
}

/// Every marker plane of `detector` must lie below `camera`.
pub(crate) fn check_marker_heights(camera: &CameraModel, detector: &DetectorConfig) -> Result<(), SetupError> {
    let planes =
        std::iter::once(("marker_height", detector.marker_height)).chain(detector.markers.iter().map(|m| ("markers.height", m.height)));
    for (field, height) in planes {
        if height >= camera.mount.height {
            return Err(SetupError::MarkerAboveCamera { field, height, camera: camera.mount.height });
        }
    }
    Ok(())
}

/// Why a frame was skipped (the tracker state is unchanged).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SkipReason {
    /// The image does not match the camera model.
    #[error(transparent)]
    SizeMismatch(#[from] SizeMismatch),
    /// The frame is older than the previous one.
    #[error(transparent)]
    Stamp(#[from] StampError),
}

/// A place where a detection has not moved at all for a while.
#[derive(Clone, Copy, Debug)]
struct Spot {
    x: f64,
    y: f64,
    first_stamp: f64,
    last_stamp: f64,
    /// A detection whose centre is this close is on the spot, m.
    radius: f64,
}

/// The static reflection map, learned online: a detection that stays put to within
/// `static_tolerance` for `static_time` is a reflection of a fixed light (or a mark on the
/// tank), not a floating body, which the water always moves; detections there are
/// dropped until the spot has been empty for `static_time`. Learned fastest on the empty
/// tank. Once mapped, a spot covers a quarter of its blob's diameter (at least twice
/// `static_tolerance`): when the light changes (a dimmer) the reflection's blob is cut at
/// another level and its centre wanders by a millimetre or two, which must not unmap it;
/// a marker merged with it moves the centre further than that.
#[derive(Default)]
struct ReflectionMap {
    candidates: Vec<Spot>,
    spots: Vec<Spot>,
    kept: Vec<Detection>,
    dropped: usize,
}

impl ReflectionMap {
    /// Keeps the detections that are not on a mapped spot; learns new spots.
    fn filter(&mut self, detections: &[Detection], stamp: f64, config: &TrackerConfig) -> &[Detection] {
        self.kept.clear();
        self.dropped = 0;
        if config.static_time <= 0.0 {
            self.kept.extend_from_slice(detections);
            return &self.kept;
        }
        let (tolerance, time) = (config.static_tolerance, config.static_time);
        // A marker passing over a spot merges with it: drop only what sits on it.
        let on_spot = |s: &Spot, d: &Detection| (s.x - d.x).hypot(s.y - d.y) <= s.radius;
        for d in detections {
            if let Some(spot) = self.spots.iter_mut().find(|s| on_spot(s, d)) {
                spot.last_stamp = stamp;
                self.dropped += 1;
                continue;
            }
            match self.candidates.iter_mut().find(|s| (s.x - d.x).hypot(s.y - d.y) <= tolerance) {
                Some(spot) => spot.last_stamp = stamp,
                None => self.candidates.push(Spot {
                    x: d.x,
                    y: d.y,
                    first_stamp: stamp,
                    last_stamp: stamp,
                    radius: (0.25 * d.diameter).max(2.0 * tolerance),
                }),
            }
            self.kept.push(*d);
        }
        // A candidate must be seen in every frame; a spot is forgotten once empty for long.
        self.candidates.retain(|s| s.last_stamp == stamp);
        for s in self.candidates.iter().filter(|s| stamp - s.first_stamp >= time) {
            tracing::info!(x = s.x, y = s.y, stamp, "static reflection mapped; detections there are dropped");
            self.spots.push(*s);
        }
        self.candidates.retain(|s| stamp - s.first_stamp < time);
        self.spots.retain(|s| stamp - s.last_stamp <= time);
        if !self.spots.is_empty() {
            // Tracks of a newly mapped spot get no more detections and coast out.
            let spots = &self.spots;
            self.kept.retain(|d| spots.iter().all(|s| !on_spot(s, d)));
        }
        &self.kept
    }
}

/// Detector plus multi-target tracker for one camera.
pub struct Tracker {
    camera: CameraModel,
    detector: Detector,
    reflections: ReflectionMap,
    targets: MultiTargetTracker,
    last_stamp: Option<f64>,
}

impl Tracker {
    /// A tracker for `camera` with validated settings.
    pub fn new(camera: CameraModel, detector: DetectorConfig, tracker: TrackerConfig) -> Result<Self, SetupError> {
        camera.validate()?;
        check_marker_heights(&camera, &detector)?;
        Ok(Self {
            camera,
            detector: Detector::new(detector)?,
            reflections: ReflectionMap::default(),
            targets: MultiTargetTracker::new(tracker)?,
            last_stamp: None,
        })
    }

    /// The camera model in use.
    pub fn camera(&self) -> &CameraModel {
        &self.camera
    }

    /// Replaces the camera model (a new CameraInfo); tracks are kept.
    pub fn set_camera(&mut self, camera: CameraModel) -> Result<(), SetupError> {
        camera.validate()?;
        check_marker_heights(&camera, self.detector.config())?;
        self.camera = camera;
        Ok(())
    }

    /// Drops every track and forgets the last stamp (time jumped back); ids keep
    /// counting up.
    pub fn reset(&mut self) {
        self.targets.reset();
        self.last_stamp = None;
    }

    /// Detects markers in `image` taken at `stamp` (s) and updates the tracks.
    pub fn process(&mut self, image: &ImageView, stamp: f64) -> Result<&[Track], SkipReason> {
        if let Some(previous) = self.last_stamp.filter(|p| stamp < *p) {
            return Err(StampError { previous, stamp }.into());
        }
        let detections = self.detector.detect(image, &self.camera)?;
        self.last_stamp = Some(stamp);
        let detections = self.reflections.filter(detections, stamp, self.targets.config());
        Ok(self.targets.update(detections, stamp)?)
    }

    /// Detections of the last frame dropped on mapped static reflections.
    pub fn static_reflection_hits(&self) -> usize {
        self.reflections.dropped
    }

    /// The tracks published for the last processed frame.
    pub fn tracks(&self) -> &[Track] {
        self.targets.tracks()
    }

    /// The detections of the last processed frame (without those on static reflections).
    pub fn detections(&self) -> &[Detection] {
        &self.reflections.kept
    }

    /// What the detector dropped in the last frame.
    pub fn detection_stats(&self) -> DetectionStats {
        self.detector.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{MarkerKind, RenderOptions, Renderer, SceneObject};
    use flotilla_common::arena::ArenaOutline;

    #[test]
    fn skipped_frames_leave_the_tracks_alone() {
        let camera = CameraModel::covering(&ArenaOutline::lily_tank(), 256, 256, 1.0, 0.03);
        let mut renderer = Renderer::new(ArenaOutline::lily_tank(), camera.clone(), RenderOptions::default()).unwrap();
        let config = TrackerConfig { confirm_hits: 1, ..TrackerConfig::default() };
        let mut tracker = Tracker::new(camera, DetectorConfig::default(), config).unwrap();
        let ball = [SceneObject::new(0, MarkerKind::Ball, 0.05, 0.05).with_size(0.06)];
        let frame = renderer.render_gray(&ball, 0);
        assert_eq!(tracker.process(&ImageView::from_gray(&frame), 1.0).unwrap().len(), 1);

        let small = image::GrayImage::new(128, 128);
        let err = tracker.process(&ImageView::from_gray(&small), 1.1).unwrap_err();
        assert!(matches!(err, SkipReason::SizeMismatch(_)), "{err}");
        let err = tracker.process(&ImageView::from_gray(&frame), 0.5).unwrap_err();
        assert_eq!(err.to_string(), "frame stamp 0.5 s is earlier than the previous frame's 1 s");
        // The track survived both rejected frames unchanged.
        let tracks = tracker.process(&ImageView::from_gray(&frame), 1.2).unwrap();
        assert_eq!((tracks.len(), tracks[0].id, tracks[0].missed_frames), (1, 1, 0));
    }

    #[test]
    fn a_static_reflection_is_mapped_and_dropped_while_bodies_move_on() {
        let det = |x: f64, y: f64| Detection {
            u: 0.0,
            v: 0.0,
            x,
            y,
            heading: None,
            diameter: 0.015,
            contrast: 100.0,
            kind: None,
            coverage: 1.0,
            edge_width: 2.0,
        };
        let config = TrackerConfig { static_time: 0.5, static_tolerance: 0.0002, ..TrackerConfig::default() };
        let mut map = ReflectionMap::default();
        let dt = 1.0 / 30.0;
        for k in 0..30 {
            let t = f64::from(k) * dt;
            // A reflection jittering by 0.05 mm, a body crawling at 0.03 m/s (1 mm per frame).
            let reflection = det(0.1 + 5e-5 * f64::from(k % 2), 0.1);
            let body = det(-0.1 + 0.03 * t, 0.0);
            let kept = map.filter(&[reflection, body], t, &config).to_vec();
            if t < 0.5 - 1e-9 {
                assert_eq!(kept.len(), 2, "frame {k}: nothing mapped before 0.5 s");
            } else {
                assert_eq!(kept, vec![body], "frame {k}: the reflection is dropped, the body kept");
                assert_eq!(map.dropped, usize::from(t > 0.5 + 1e-9));
            }
        }
        // A dimmer: the reflection is cut at another level and its centre wanders by up to
        // 2 mm (as on the nuisance scenes); it stays mapped and dropped. A body passing
        // 5 mm from the spot's centre is kept.
        for k in 30..45 {
            let t = f64::from(k) * dt;
            let wander = 0.002 * (f64::from(k) * 0.7).sin();
            let reflection = det(0.1 + wander, 0.1 - 0.5 * wander);
            let passing = det(0.1 - 0.005, 0.1 + 0.03 * (t - 1.2));
            let kept = map.filter(&[reflection, passing], t, &config).to_vec();
            assert_eq!(kept, vec![passing], "frame {k}");
        }
        // Gone for longer than static_time: forgotten, so it must be learned again.
        map.filter(&[], 1.5 + 0.6, &config);
        assert!(map.spots.is_empty());
        let off = TrackerConfig { static_time: 0.0, ..config };
        assert_eq!(map.filter(&[det(0.1, 0.1)], 2.5, &off).len(), 1);
    }

    #[test]
    fn setup_errors_name_the_setting() {
        let camera = CameraModel::lily_tank_default();
        let err =
            Tracker::new(camera.clone(), DetectorConfig { edge_margin: 0, ..Default::default() }, TrackerConfig::default()).err().unwrap();
        assert!(err.to_string().contains("edge_margin"), "{err}");
        let err = Tracker::new(camera, DetectorConfig::default(), TrackerConfig { max_gate_distance: 0.001, ..Default::default() })
            .err()
            .unwrap();
        assert!(err.to_string().contains("max_gate_distance"), "{err}");
    }
}
