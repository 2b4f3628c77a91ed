//! Render -> track -> compare, one frame at a time.

use super::evaluate::{AccuracyReport, Evaluator};
use crate::camera::{CameraModel, Distortion};
use crate::detect::DetectorConfig;
use crate::frame::{Encoding, ImageView};
use crate::pipeline::{SetupError, SkipReason, Tracker};
use crate::render::{RenderError, RenderOptions, Renderer, SceneObject};
use crate::track::{Track, TrackerConfig};
use flotilla_common::arena::ArenaOutline;
use image::{GrayImage, RgbImage};
use serde::{Deserialize, Serialize};

/// Why the harness stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HarnessError {
    /// The renderer cannot be built.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The tracker cannot be built.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The tracker skipped a frame.
    #[error("frame {frame}: {reason}")]
    Skipped { frame: u64, reason: SkipReason },
}

/// Everything that defines an accuracy run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HarnessConfig {
    /// The arena.
    pub arena: ArenaOutline,
    /// The camera (shared by renderer and tracker, as CameraInfo would be).
    pub camera: CameraModel,
    /// Image formation.
    pub render: RenderOptions,
    /// Pixel encoding of the rendered frames (rgb8 or mono8; bgr8 renders as rgb8).
    pub encoding: Encoding,
    /// Detector settings.
    pub detector: DetectorConfig,
    /// Multi-target tracker settings.
    pub tracker: TrackerConfig,
    /// Truth and estimate closer than this are a match, m.
    pub match_radius: f64,
}

impl HarnessConfig {
    /// Default camera over the Lily tank, sharp and noiseless, rgb8.
    /// The detector only looks inside the water.
    pub fn clean() -> Self {
        let arena = ArenaOutline::lily_tank();
        Self {
            arena,
            camera: CameraModel::lily_tank_default(),
            render: RenderOptions::default(),
            encoding: Encoding::Rgb8,
            detector: DetectorConfig { region: Some(arena), ..DetectorConfig::default() },
            tracker: TrackerConfig::default(),
            match_radius: 0.01,
        }
    }

    /// A poor camera: noise sigma 6 levels, blur sigma 1 px, +-20 % illumination
    /// gradient, barrel distortion k1 = -0.12, k2 = 0.02 (known to the tracker through
    /// the camera model), mono8.
    pub fn degraded() -> Self {
        let clean = Self::clean();
        Self {
            camera: clean.camera.clone().with_distortion(Distortion::radial(-0.12, 0.02)),
            render: RenderOptions { illumination_direction: 0.7, ..RenderOptions::degraded(6.0, 1.0, 0.2) },
            encoding: Encoding::Mono8,
            ..clean
        }
    }
}

impl HarnessConfig {
    /// Sets the detector's marker plane height, m (builder style).
    pub fn with_marker_height(mut self, marker_height: f64) -> Self {
        self.detector.marker_height = marker_height;
        self
    }
}

/// A rendered frame in its encoding.
#[derive(Clone, Debug, PartialEq)]
pub enum RenderedFrame {
    /// rgb8 frame.
    Rgb(RgbImage),
    /// mono8 frame.
    Gray(GrayImage),
}

impl RenderedFrame {
    /// A validated view for the tracker.
    pub fn view(&self) -> ImageView<'_> {
        match self {
            RenderedFrame::Rgb(image) => ImageView::from_rgb(image),
            RenderedFrame::Gray(image) => ImageView::from_gray(image),
        }
    }
}

/// Renders ground truth, tracks it, and scores the result.
pub struct Harness {
    renderer: Renderer,
    tracker: Tracker,
    evaluator: Evaluator,
    encoding: Encoding,
    frame_index: u64,
    frame: RenderedFrame,
}

impl Harness {
    /// Builds renderer, tracker and evaluator.
    pub fn new(config: HarnessConfig) -> Result<Self, HarnessError> {
        let renderer = Renderer::new(config.arena, config.camera.clone(), config.render)?;
        let tracker = Tracker::new(config.camera, config.detector, config.tracker)?;
        Ok(Self {
            renderer,
            tracker,
            evaluator: Evaluator::new(config.match_radius),
            encoding: config.encoding,
            frame_index: 0,
            frame: RenderedFrame::Gray(GrayImage::new(1, 1)),
        })
    }

    /// Renders `truth` at `stamp` (s), tracks it and scores it; returns the frame and
    /// the published tracks.
    pub fn step(&mut self, stamp: f64, truth: &[SceneObject]) -> Result<(&RenderedFrame, &[Track]), HarnessError> {
        self.frame = match self.encoding {
            Encoding::Mono8 => RenderedFrame::Gray(self.renderer.render_gray(truth, self.frame_index)),
            Encoding::Rgb8 | Encoding::Bgr8 => RenderedFrame::Rgb(self.renderer.render_rgb(truth, self.frame_index)),
        };
        let frame = self.frame_index;
        self.frame_index += 1;
        self.tracker.process(&self.frame.view(), stamp).map_err(|reason| HarnessError::Skipped { frame, reason })?;
        self.evaluator.add_frame(truth, self.tracker.detections(), self.tracker.tracks());
        Ok((&self.frame, self.tracker.tracks()))
    }

    /// The tracker (for its detections and statistics).
    pub fn tracker(&self) -> &Tracker {
        &self.tracker
    }

    /// Accuracy so far.
    pub fn report(&self) -> AccuracyReport {
        self.evaluator.report()
    }
}
