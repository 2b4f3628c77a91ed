//! Marker detection: threshold, connected components, sub-pixel centroids, size
//! gating, heading from the marker dot, and pixel-to-world mapping.

mod components;
mod refine;

pub use components::{Blob, Components, Run};

use crate::arena::Arena;
use crate::camera::CameraModel;
use crate::frame::ImageView;
use nalgebra::Point2;
use refine::{RefineLimits, RefineReject, Refiner};
use serde::{Deserialize, Serialize};

/// A bad detector setting, with the field named.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("detector option `{field}` = {value} is invalid: {reason}")]
pub struct DetectorConfigError {
    /// The offending field.
    pub field: &'static str,
    /// Its value.
    pub value: f64,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// A frame the detector cannot use with its camera model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("image is {image_width}x{image_height} but the camera model is {camera_width}x{camera_height}")]
pub struct SizeMismatch {
    /// Image width, px.
    pub image_width: u32,
    /// Image height, px.
    pub image_height: u32,
    /// Camera model width, px.
    pub camera_width: u32,
    /// Camera model height, px.
    pub camera_height: u32,
}

/// Detector settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DetectorConfig {
    /// Grey level at or above which a pixel belongs to a marker, 8-bit level.
    pub threshold: u8,
    /// Smallest accepted marker diameter (equivalent disc), m.
    pub min_marker_diameter: f64,
    /// Largest accepted marker diameter (equivalent disc), m.
    pub max_marker_diameter: f64,
    /// Height of the marker plane above the water, m (a 3 cm ball floating 25 mm deep: 0.005).
    pub marker_height: f64,
    /// Band around a blob whose partial coverage enters the centroid, px (>= 2 sigma of the blur).
    pub edge_margin: u32,
    /// Smallest hole taken as a heading dot, fraction of the filled marker area.
    pub min_dot_fraction: f64,
    /// Largest hole taken as a heading dot, fraction of the filled marker area.
    pub max_dot_fraction: f64,
    /// Smallest marker-to-surround contrast, 8-bit levels.
    pub min_contrast: f64,
    /// Largest ratio of major to minor axis of a marker (1 for a disc).
    pub max_elongation: f64,
    /// World region where markers can be (e.g. the tank's water), like SwisTrack's
    /// mask; blobs centred outside it (rim, floor) are dropped. `None`: everywhere.
    pub region: Option<Arena>,
}

impl Default for DetectorConfig {
    fn default() -> Self {
        Self {
            threshold: 180,
            min_marker_diameter: 0.008,
            max_marker_diameter: 0.035,
            marker_height: 0.005,
            edge_margin: 2,
            min_dot_fraction: 0.02,
            max_dot_fraction: 0.25,
            min_contrast: 30.0,
            max_elongation: 1.5,
            region: None,
        }
    }
}

impl DetectorConfig {
    /// Checks every setting; the error names the first bad one.
    pub fn validate(&self) -> Result<(), DetectorConfigError> {
        let bad = |field, value, reason| Err(DetectorConfigError { field, value, reason });
        if self.threshold == 0 {
            return bad("threshold", 0.0, "must be > 0");
        }
        if !(self.min_marker_diameter.is_finite() && self.min_marker_diameter > 0.0) {
            return bad("min_marker_diameter", self.min_marker_diameter, "must be finite and > 0");
        }
        if !(self.max_marker_diameter.is_finite() && self.max_marker_diameter > self.min_marker_diameter) {
            return bad("max_marker_diameter", self.max_marker_diameter, "must be finite and > min_marker_diameter");
        }
        if !self.marker_height.is_finite() {
            return bad("marker_height", self.marker_height, "must be finite");
        }
        if !(1..=8).contains(&self.edge_margin) {
            return bad("edge_margin", f64::from(self.edge_margin), "must be in 1..=8");
        }
        if !(0.0..1.0).contains(&self.min_dot_fraction) {
            return bad("min_dot_fraction", self.min_dot_fraction, "must be in [0, 1)");
        }
        if !(self.max_dot_fraction > self.min_dot_fraction && self.max_dot_fraction <= 1.0) {
            return bad("max_dot_fraction", self.max_dot_fraction, "must be in (min_dot_fraction, 1]");
        }
        if !(self.min_contrast.is_finite() && self.min_contrast > 0.0) {
            return bad("min_contrast", self.min_contrast, "must be finite and > 0");
        }
        if !(self.max_elongation.is_finite() && self.max_elongation >= 1.0) {
            return bad("max_elongation", self.max_elongation, "must be finite and >= 1");
        }
        Ok(())
    }
}

/// One marker found in a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Detection {
    /// Sub-pixel centroid column, px.
    pub u: f64,
    /// Sub-pixel centroid row, px.
    pub v: f64,
    /// World x on the marker plane, m.
    pub x: f64,
    /// World y on the marker plane, m.
    pub y: f64,
    /// Heading from the marker centre toward its dot, rad from world +x (`None`
    /// without a dot).
    pub heading: Option<f64>,
    /// Diameter of the disc with the marker's area, m.
    pub diameter: f64,
    /// Marker level minus surround level, 8-bit levels.
    pub contrast: f64,
}

/// How many blobs of the last frame were dropped, and why.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DetectionStats {
    /// Connected bright components found.
    pub components: usize,
    /// Dropped: too few or too many pixels, or measured size out of range.
    pub rejected_size: usize,
    /// Dropped: touching the image border (partly outside the view).
    pub rejected_border: usize,
    /// Dropped: too little contrast to its surround, or outside the lens model.
    pub rejected_contrast: usize,
    /// Dropped: not round enough.
    pub rejected_shape: usize,
    /// Dropped: centred outside the detection region.
    pub rejected_region: usize,
}

/// Finds markers in frames. Reuses its buffers between frames.
pub struct Detector {
    config: DetectorConfig,
    components: Components,
    refiner: Refiner,
    detections: Vec<Detection>,
    stats: DetectionStats,
}

impl Detector {
    /// A detector with validated settings.
    pub fn new(config: DetectorConfig) -> Result<Self, DetectorConfigError> {
        config.validate()?;
        Ok(Self {
            config,
            components: Components::default(),
            refiner: Refiner::default(),
            detections: Vec::new(),
            stats: DetectionStats::default(),
        })
    }

    /// The settings.
    pub fn config(&self) -> &DetectorConfig {
        &self.config
    }

    /// The detections of the last frame.
    pub fn last_detections(&self) -> &[Detection] {
        &self.detections
    }

    /// What was dropped in the last frame.
    pub fn stats(&self) -> DetectionStats {
        self.stats
    }

    /// Detects the markers of one frame seen through `camera`.
    pub fn detect(&mut self, image: &ImageView, camera: &CameraModel) -> Result<&[Detection], SizeMismatch> {
        if (image.width(), image.height()) != (camera.width, camera.height) {
            return Err(SizeMismatch {
                image_width: image.width(),
                image_height: image.height(),
                camera_width: camera.width,
                camera_height: camera.height,
            });
        }
        let c = &self.config;
        self.detections.clear();
        self.components.label(image, c.threshold);
        let mut stats = DetectionStats { components: self.components.blobs().len(), ..Default::default() };
        // Pixel-count pre-gate from the nominal scale, loose enough for distortion,
        // blur and the dot hole; the measured size is gated exactly below.
        let px_per_m = camera.pixels_per_metre(c.marker_height);
        let disc_pixels = |d: f64| std::f64::consts::FRAC_PI_4 * (d * px_per_m).powi(2);
        let (min_pixels, max_pixels) = (0.25 * disc_pixels(c.min_marker_diameter), 4.0 * disc_pixels(c.max_marker_diameter) + 4.0);
        let limits = RefineLimits {
            edge_margin: c.edge_margin,
            min_dot_fraction: c.min_dot_fraction,
            max_dot_fraction: c.max_dot_fraction,
            min_contrast: c.min_contrast,
        };
        for blob in self.components.blobs() {
            let pixels = f64::from(blob.pixels);
            if pixels < min_pixels || pixels > max_pixels {
                stats.rejected_size += 1;
                continue;
            }
            if blob.u_min == 0 || blob.v_min == 0 || blob.u_max + 1 >= image.width() || blob.v_max + 1 >= image.height() {
                stats.rejected_border += 1;
                continue;
            }
            let bounds = (blob.u_min, blob.u_max, blob.v_min, blob.v_max);
            let measure = match self.refiner.measure(image, self.components.blob_runs(blob), bounds, &limits) {
                Ok(measure) => measure,
                Err(RefineReject::LowContrast) => {
                    stats.rejected_contrast += 1;
                    continue;
                }
            };
            if measure.elongation > c.max_elongation {
                stats.rejected_shape += 1;
                continue;
            }
            let centre = Point2::new(measure.u, measure.v);
            let (Some(world), Some(jacobian)) =
                (camera.pixel_to_world(centre, c.marker_height), camera.pixel_to_world_jacobian(centre, c.marker_height))
            else {
                stats.rejected_contrast += 1;
                continue;
            };
            if c.region.is_some_and(|region| region.boundary_distance(world.x, world.y, 0.0) >= 0.0) {
                stats.rejected_region += 1;
                continue;
            }
            let diameter = 2.0 * (measure.area * jacobian.determinant().abs() / std::f64::consts::PI).sqrt();
            if diameter < c.min_marker_diameter || diameter > c.max_marker_diameter {
                stats.rejected_size += 1;
                continue;
            }
            let heading = measure
                .dot
                .and_then(|(u, v)| camera.pixel_to_world(Point2::new(u, v), c.marker_height))
                .map(|dot| (dot.y - world.y).atan2(dot.x - world.x));
            self.detections.push(Detection {
                u: measure.u,
                v: measure.v,
                x: world.x,
                y: world.y,
                heading,
                diameter,
                contrast: measure.contrast,
            });
        }
        self.stats = stats;
        Ok(&self.detections)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Arena;
    use crate::camera::Distortion;
    use crate::render::{MarkerKind, RenderOptions, Renderer, SceneObject};

    fn camera() -> CameraModel {
        CameraModel::covering(&Arena::lily_tank(), 512, 512, 1.0, 0.03)
    }

    #[test]
    fn finds_a_rendered_lily_with_heading() {
        let cam = camera().with_distortion(Distortion::radial(-0.1, 0.01));
        let mut renderer = Renderer::new(Arena::lily_tank(), cam.clone(), RenderOptions::default()).unwrap();
        let lily = SceneObject::new(3, MarkerKind::Lily, 0.1234, -0.0567).with_heading(2.0).with_size(0.05);
        let image = renderer.render_rgb(&[lily], 0);
        let config = DetectorConfig { marker_height: lily.top_height, ..DetectorConfig::default() };
        let mut detector = Detector::new(config).unwrap();
        let found = detector.detect(&ImageView::from_rgb(&image), &cam).unwrap();
        assert_eq!(found.len(), 1, "{:?}", detector.stats());
        let d = found[0];
        // 512 px over 0.66 m: 1.29 mm per px; sub-pixel accuracy means well under 0.2 mm.
        assert!((d.x - lily.x).abs() < 2e-4 && (d.y - lily.y).abs() < 2e-4, "{d:?}");
        assert!((d.heading.unwrap() - 2.0).abs() < 0.03, "{d:?}");
        // Marker diameter 0.7 * 0.05 = 0.035 m.
        assert!((d.diameter - 0.035).abs() < 5e-4, "{d:?}");
    }

    #[test]
    fn ball_has_no_heading_and_is_size_gated() {
        let cam = camera();
        let mut renderer = Renderer::new(Arena::lily_tank(), cam.clone(), RenderOptions::default()).unwrap();
        let ball = SceneObject::new(0, MarkerKind::Ball, -0.05, 0.07);
        let image = renderer.render_gray(&[ball], 0);
        let mut detector = Detector::new(DetectorConfig::default()).unwrap();
        let found = detector.detect(&ImageView::from_gray(&image), &cam).unwrap().to_vec();
        assert_eq!(found.len(), 1);
        assert!(found[0].heading.is_none());
        let config = DetectorConfig { min_marker_diameter: 0.02, ..DetectorConfig::default() };
        let mut strict = Detector::new(config).unwrap();
        assert!(strict.detect(&ImageView::from_gray(&image), &cam).unwrap().is_empty());
        assert_eq!(strict.stats().rejected_size, 1);
    }

    #[test]
    fn wrong_size_and_bad_config_are_reported() {
        let cam = camera();
        let data = vec![0u8; 100];
        let image = ImageView::new(10, 10, 10, "mono8", &data).unwrap();
        let mut detector = Detector::new(DetectorConfig::default()).unwrap();
        let err = detector.detect(&image, &cam).unwrap_err();
        assert!(err.to_string().contains("10x10") && err.to_string().contains("512x512"));
        let err = Detector::new(DetectorConfig { max_marker_diameter: 0.001, ..Default::default() }).err().unwrap();
        assert_eq!(err.field, "max_marker_diameter");
    }

    #[test]
    fn region_and_shape_gates() {
        let cam = camera();
        let mut renderer = Renderer::new(Arena::lily_tank(), cam.clone(), RenderOptions::default()).unwrap();
        let balls = [SceneObject::new(0, MarkerKind::Ball, 0.0, 0.0), SceneObject::new(1, MarkerKind::Ball, 0.2, 0.0)];
        let image = renderer.render_gray(&balls, 0);
        let config = DetectorConfig { region: Some(Arena::RoundTank { radius: 0.1 }), ..DetectorConfig::default() };
        let mut detector = Detector::new(config).unwrap();
        assert_eq!(detector.detect(&ImageView::from_gray(&image), &cam).unwrap().len(), 1);
        assert_eq!(detector.stats().rejected_region, 1);
        // A bright 3:1 bar is not a marker.
        let mut bar = image::GrayImage::new(512, 512);
        for v in 250..260 {
            for u in 240..270 {
                bar.put_pixel(u, v, image::Luma([250]));
            }
        }
        let mut detector = Detector::new(DetectorConfig::default()).unwrap();
        assert!(detector.detect(&ImageView::from_gray(&bar), &cam).unwrap().is_empty());
        assert_eq!(detector.stats().rejected_shape, 1);
    }
}
