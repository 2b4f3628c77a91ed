//! The Bluebot's two fisheye cameras: an equidistant model (image radius proportional to
//! the angle from the optical axis), whose undistortion is its exact inverse (the paper
//! calibrated a polynomial model with OCamCalib; the pipeline only needs a bijection).

use flotilla_contract::bluebot::Camera;
use nalgebra::Vector3;

/// One fisheye camera's image geometry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraModel {
    /// Image width, pixels (down-scaled: 256).
    pub width: u32,
    /// Image height, pixels (down-scaled: 192).
    pub height: u32,
    /// Half the field of view, rad (195 / 2 deg).
    pub half_fov: f64,
    /// Pixels per radian off the optical axis (the field of view's edge touches the top
    /// and bottom of the image), pixels/rad.
    pub focal: f64,
}

impl Default for CameraModel {
    fn default() -> Self {
        let parts = flotilla_common::models::dimensions::BluebotParts::default();
        let half_fov = 0.5 * parts.camera_field_of_view;
        Self { width: 256, height: 192, half_fov, focal: 96.0 / half_fov }
    }
}

/// The pair of cameras, axes turned `yaw` left and right of the body's x axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cameras {
    /// Each camera's image geometry.
    pub model: CameraModel,
    /// Yaw of the left camera's axis from body x (the right one mirrored), rad (80 deg:
    /// 35 deg front overlap, 5 deg blind behind).
    pub yaw: f64,
}

impl Default for Cameras {
    fn default() -> Self {
        Self { model: CameraModel::default(), yaw: flotilla_common::models::dimensions::BluebotParts::default().camera_yaw }
    }
}

/// Both cameras, left first.
pub const CAMERAS: [Camera; 2] = [Camera::Left, Camera::Right];

impl Cameras {
    fn frame(&self, camera: Camera) -> (Vector3<f64>, Vector3<f64>) {
        let yaw = match camera {
            Camera::Left => self.yaw,
            Camera::Right => -self.yaw,
        };
        let axis = Vector3::new(yaw.cos(), yaw.sin(), 0.0);
        // Image x to the right of the axis (seen from behind the camera), image y down.
        (axis, axis.cross(&Vector3::z()))
    }

    /// Pixel (column, row) of body-frame direction `dir` (unit) in `camera`, or None
    /// outside its field of view.
    pub fn project(&self, camera: Camera, dir: &Vector3<f64>) -> Option<(f64, f64)> {
        let (axis, right) = self.frame(camera);
        let theta = dir.dot(&axis).clamp(-1.0, 1.0).acos();
        if theta > self.model.half_fov {
            return None;
        }
        let phi = dir.z.atan2(dir.dot(&right));
        let r = self.model.focal * theta;
        Some((0.5 * f64::from(self.model.width) + r * phi.cos(), 0.5 * f64::from(self.model.height) - r * phi.sin()))
    }

    /// Undistortion: the body-frame unit direction of pixel (column, row) of `camera`.
    pub fn unproject(&self, camera: Camera, column: f64, row: f64) -> Vector3<f64> {
        let (axis, right) = self.frame(camera);
        let (dx, dy) = (column - 0.5 * f64::from(self.model.width), 0.5 * f64::from(self.model.height) - row);
        let theta = dx.hypot(dy) / self.model.focal;
        let phi = dy.atan2(dx);
        let (s, c) = theta.sin_cos();
        axis * c + (right * phi.cos() + Vector3::z() * phi.sin()) * s
    }

    /// Whether `column`, `row` lies inside the image.
    pub fn in_image(&self, column: f64, row: f64) -> bool {
        (0.0..f64::from(self.model.width)).contains(&column) && (0.0..f64::from(self.model.height)).contains(&row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(azimuth_deg: f64, elevation_deg: f64) -> Vector3<f64> {
        let (a, e) = (azimuth_deg.to_radians(), elevation_deg.to_radians());
        Vector3::new(e.cos() * a.cos(), e.cos() * a.sin(), e.sin())
    }

    #[test]
    fn fields_of_view_overlap_35_deg_in_front_and_leave_5_deg_blind_behind() {
        let c = Cameras::default();
        let seen = |az: f64| CAMERAS.iter().filter(|&&k| c.project(k, &dir(az, 0.0)).is_some()).count();
        assert_eq!(seen(0.0), 2);
        assert_eq!(seen(17.0), 2);
        assert_eq!(seen(-17.0), 2);
        assert_eq!(seen(18.0), 1);
        assert_eq!(seen(90.0), 1);
        assert_eq!(seen(177.0), 1);
        assert_eq!(seen(178.0), 0);
        assert_eq!(seen(180.0), 0);
        assert_eq!(seen(-178.0), 0);
    }

    #[test]
    fn undistortion_inverts_the_projection() {
        let c = Cameras::default();
        for (az, el) in [(0.0, 0.0), (40.0, 30.0), (120.0, -60.0), (-10.0, 5.0), (-150.0, 20.0)] {
            let d = dir(az, el);
            for k in CAMERAS {
                if let Some((u, v)) = c.project(k, &d) {
                    assert!(c.in_image(u, v), "{az} {el}: {u} {v}");
                    assert!((c.unproject(k, u, v) - d).norm() < 1e-12, "{az} {el} {k:?}");
                }
            }
        }
    }
}
