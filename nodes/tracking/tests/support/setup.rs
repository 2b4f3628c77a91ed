//! The tracker a user would configure for a nuisance scene: the camera from its
//! CameraInfo and mount, the tank as the detection region.

#![allow(dead_code)] // Shared by the test and the example; each uses part of it.

use super::nuisance::{SceneConfig, BALL_RADIUS, BALL_STICKER_RADIUS, BALL_TOP, LILY_STICKER_RADIUS, LILY_TOP};
use tracking::detect::MarkerSpec;
use tracking::{ArenaOutline, CameraModel, CameraMount, DetectorConfig, Distortion, SetupError, Tracker, TrackerConfig};

/// The camera model the tracker gets (CameraInfo K and D, plus the mount).
pub fn camera_model(config: &SceneConfig) -> CameraModel {
    let c = &config.camera;
    let [k1, k2, p1, p2, k3] = c.d;
    CameraModel {
        width: c.width,
        height: c.height,
        fx: c.fx,
        fy: c.fy,
        cx: c.cx,
        cy: c.cy,
        distortion: Distortion { k1, k2, p1, p2, k3 },
        mount: CameraMount { x: c.mount[0], y: c.mount[1], height: c.mount[2] },
    }
}

/// The marker kinds of the scene, as a user would write them from the objects' sizes:
/// the ball's sticker is curved, its plane is the height of its rim (its outline seen
/// from above) `top - (R - sqrt(R^2 - a^2))`.
/// `ball_plane_offset` (m) shifts the ball's plane (a calibrated plane).
pub fn marker_specs(config: &SceneConfig, ball_plane_offset: f64) -> Vec<MarkerSpec> {
    let ball = MarkerSpec {
        diameter: 2.0 * BALL_STICKER_RADIUS,
        height: BALL_TOP - (BALL_RADIUS - (BALL_RADIUS.powi(2) - BALL_STICKER_RADIUS.powi(2)).sqrt()) + ball_plane_offset,
        heading_dot: false,
    };
    let lily = MarkerSpec { diameter: 2.0 * LILY_STICKER_RADIUS, height: LILY_TOP, heading_dot: true };
    [(config.balls > 0, ball), (config.lilies > 0, lily)].into_iter().filter(|(present, _)| *present).map(|(_, spec)| spec).collect()
}

/// Detector and tracker settings for the scene.
/// `closed_set`: the tracker knows how many objects are in the tank.
pub fn tracker_for(config: &SceneConfig, ball_plane_offset: f64, closed_set: bool) -> Result<Tracker, SetupError> {
    let detector = DetectorConfig {
        markers: marker_specs(config, ball_plane_offset),
        region: Some(ArenaOutline::round(2.0 * config.tank_radius)),
        ..DetectorConfig::default()
    };
    // The set of objects is closed and known: lost tracks are re-identified.
    let object_count = if closed_set { (config.balls + config.lilies) as u32 } else { 0 };
    // Stirred bodies never stay put: a detection that does not move for 1 s is a reflection.
    let tracker = TrackerConfig { object_count, static_time: 1.0, ..TrackerConfig::default() };
    Tracker::new(camera_model(config), detector, tracker)
}
