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

/// Detector plus multi-target tracker for one camera.
pub struct Tracker {
    camera: CameraModel,
    detector: Detector,
    targets: MultiTargetTracker,
    last_stamp: Option<f64>,
}

impl Tracker {
    /// A tracker for `camera` with validated settings.
    pub fn new(camera: CameraModel, detector: DetectorConfig, tracker: TrackerConfig) -> Result<Self, SetupError> {
        camera.validate()?;
        Ok(Self { camera, detector: Detector::new(detector)?, targets: MultiTargetTracker::new(tracker)?, last_stamp: None })
    }

    /// The camera model in use.
    pub fn camera(&self) -> &CameraModel {
        &self.camera
    }

    /// Replaces the camera model (a new CameraInfo); tracks are kept.
    pub fn set_camera(&mut self, camera: CameraModel) -> Result<(), CameraError> {
        camera.validate()?;
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
        Ok(self.targets.update(detections, stamp)?)
    }

    /// The tracks published for the last processed frame.
    pub fn tracks(&self) -> &[Track] {
        self.targets.tracks()
    }

    /// The detections of the last processed frame.
    pub fn detections(&self) -> &[Detection] {
        self.detector.last_detections()
    }

    /// What the detector dropped in the last frame.
    pub fn detection_stats(&self) -> DetectionStats {
        self.detector.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Arena;
    use crate::render::{MarkerKind, RenderOptions, Renderer, SceneObject};

    #[test]
    fn skipped_frames_leave_the_tracks_alone() {
        let camera = CameraModel::covering(&Arena::lily_tank(), 256, 256, 1.0, 0.03);
        let mut renderer = Renderer::new(Arena::lily_tank(), camera.clone(), RenderOptions::default()).unwrap();
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
