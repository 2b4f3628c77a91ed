//! The tracker a user would configure for a nuisance scene: the camera from its
//! CameraInfo and mount, the tank as the detection region.

#![allow(dead_code)] // Shared by the test and the example; each uses part of it.

use super::nuisance::{SceneConfig, BALL_TOP};
use tracking::{Arena, CameraModel, CameraMount, DetectorConfig, Distortion, SetupError, Tracker, TrackerConfig};

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

/// Detector and tracker settings for the scene.
pub fn tracker_for(config: &SceneConfig) -> Result<Tracker, SetupError> {
    let marker_height = if config.balls > 0 { BALL_TOP } else { super::nuisance::LILY_TOP };
    let detector =
        DetectorConfig { marker_height, region: Some(Arena::RoundTank { radius: config.tank_radius }), ..DetectorConfig::default() };
    Tracker::new(camera_model(config), detector, TrackerConfig::default())
}
