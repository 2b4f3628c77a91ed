//! The overhead camera: pinhole intrinsics, lens distortion and a mount looking
//! straight down on the water plane.
//!
//! Frames: the world frame has its origin at the arena centre, `z` up, the water plane
//! at `z = 0`. The camera's optical frame has `x` along world `x`, `y` along world `-y`
//! and `z` pointing down, so image rows grow toward world `-y` (north is up in the
//! image). Pixel centres sit at integer coordinates (ROS/OpenCV convention).

mod distortion;

pub use distortion::Distortion;

use flotilla_common::arena::ArenaOutline;
use nalgebra::{Isometry3, Matrix2, Point2, Translation3, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};

/// Camera model that cannot be used, with the offending field named.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CameraError {
    /// A parameter is non-finite or outside its valid range.
    #[error("camera parameter `{field}` = {value} is invalid: {reason}")]
    InvalidParameter { field: &'static str, value: f64, reason: &'static str },
    /// The image size is zero.
    #[error("camera image size {width}x{height} is empty")]
    ZeroSize { width: u32, height: u32 },
    /// A CameraInfo array has the wrong length.
    #[error("CameraInfo `{field}` has {actual} elements, expected {expected}")]
    WrongLength { field: &'static str, expected: &'static str, actual: usize },
    /// A CameraInfo distortion model this tracker cannot undistort.
    #[error("CameraInfo distortion model `{0}` is not supported (use `plumb_bob`)")]
    UnsupportedDistortionModel(String),
}

/// Where the camera hangs: straight above the point `(x, y)` looking down.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CameraMount {
    /// World x of the optical centre, m.
    pub x: f64,
    /// World y of the optical centre, m.
    pub y: f64,
    /// Height of the optical centre above the water plane, m.
    pub height: f64,
}

impl Default for CameraMount {
    fn default() -> Self {
        Self { x: 0.0, y: 0.0, height: 1.0 }
    }
}

/// The fields of a `sensor_msgs/CameraInfo` (without header, binning and ROI).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CameraInfoFields {
    /// Image width, px.
    pub width: u32,
    /// Image height, px.
    pub height: u32,
    /// Distortion model name (`plumb_bob`).
    pub distortion_model: String,
    /// Distortion coefficients `[k1, k2, p1, p2, k3]` (dimensionless).
    pub d: Vec<f64>,
    /// Intrinsic matrix, row-major 3x3 (px).
    pub k: [f64; 9],
    /// Rectification rotation, row-major 3x3 (identity for a monocular camera).
    pub r: [f64; 9],
    /// Projection matrix, row-major 3x4 (px).
    pub p: [f64; 12],
}

/// A calibrated overhead camera looking straight down.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CameraModel {
    /// Image width, px.
    pub width: u32,
    /// Image height, px.
    pub height: u32,
    /// Focal length along image columns, px.
    pub fx: f64,
    /// Focal length along image rows, px.
    pub fy: f64,
    /// Principal point column, px.
    pub cx: f64,
    /// Principal point row, px.
    pub cy: f64,
    /// Lens distortion.
    pub distortion: Distortion,
    /// Position of the camera above the arena.
    pub mount: CameraMount,
}

impl CameraModel {
    /// A distortion-free camera centred above the arena whose square field of view
    /// spans the arena plus `margin` (m) on every side at the water plane.
    pub fn covering(arena: &ArenaOutline, width: u32, height: u32, mount_height: f64, margin: f64) -> Self {
        let half = arena.half_extents();
        let (half_x, half_y) = (half.x, half.y);
        let span_x = (half_x + margin) / mount_height;
        let span_y = (half_y + margin) / mount_height;
        let focal = (f64::from(width) / 2.0 / span_x).min(f64::from(height) / 2.0 / span_y);
        Self {
            width,
            height,
            fx: focal,
            fy: focal,
            cx: (f64::from(width) - 1.0) / 2.0,
            cy: (f64::from(height) - 1.0) / 2.0,
            distortion: Distortion::default(),
            mount: CameraMount { height: mount_height, ..CameraMount::default() },
        }
    }

    /// The default emulated camera: 1024 x 1024 px, 1 m above the 0.6 m Lily tank,
    /// 3 cm margin (about 0.64 mm per pixel).
    pub fn lily_tank_default() -> Self {
        Self::covering(&ArenaOutline::lily_tank(), 1024, 1024, 1.0, 0.03)
    }

    /// Replaces the lens distortion (builder style).
    pub fn with_distortion(mut self, distortion: Distortion) -> Self {
        self.distortion = distortion;
        self
    }

    /// Checks every parameter; the error names the first bad one.
    pub fn validate(&self) -> Result<(), CameraError> {
        if self.width == 0 || self.height == 0 {
            return Err(CameraError::ZeroSize { width: self.width, height: self.height });
        }
        let positive = [("fx", self.fx), ("fy", self.fy), ("mount.height", self.mount.height)];
        for (field, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(CameraError::InvalidParameter { field, value, reason: "must be finite and > 0" });
            }
        }
        let d = self.distortion.coefficients();
        let finite = [
            ("cx", self.cx),
            ("cy", self.cy),
            ("mount.x", self.mount.x),
            ("mount.y", self.mount.y),
            ("distortion.k1", d[0]),
            ("distortion.k2", d[1]),
            ("distortion.p1", d[2]),
            ("distortion.p2", d[3]),
            ("distortion.k3", d[4]),
        ];
        for (field, value) in finite {
            if !value.is_finite() {
                return Err(CameraError::InvalidParameter { field, value, reason: "must be finite" });
            }
        }
        Ok(())
    }

    /// CameraInfo `K`, row-major.
    pub fn k(&self) -> [f64; 9] {
        [self.fx, 0.0, self.cx, 0.0, self.fy, self.cy, 0.0, 0.0, 1.0]
    }

    /// CameraInfo `D` for the `plumb_bob` model.
    pub fn d(&self) -> Vec<f64> {
        self.distortion.coefficients().to_vec()
    }

    /// CameraInfo `P` of this unrectified monocular camera, row-major.
    pub fn p(&self) -> [f64; 12] {
        [self.fx, 0.0, self.cx, 0.0, 0.0, self.fy, self.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    }

    /// Everything a `sensor_msgs/CameraInfo` carries about this camera.
    pub fn camera_info(&self) -> CameraInfoFields {
        CameraInfoFields {
            width: self.width,
            height: self.height,
            distortion_model: "plumb_bob".to_owned(),
            d: self.d(),
            k: self.k(),
            r: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            p: self.p(),
        }
    }

    /// Builds the model from CameraInfo arrays (any length, as they arrive from a
    /// message) plus the mount, which CameraInfo does not carry.
    ///
    /// Accepts `plumb_bob` with 0 or 5 coefficients, or an empty model name with no
    /// coefficients. Skew must be zero.
    pub fn from_camera_info(
        width: u32,
        height: u32,
        distortion_model: &str,
        k: &[f64],
        d: &[f64],
        mount: CameraMount,
    ) -> Result<Self, CameraError> {
        if k.len() != 9 {
            return Err(CameraError::WrongLength { field: "k", expected: "9", actual: k.len() });
        }
        let distortion = match (distortion_model, d.len()) {
            ("plumb_bob" | "", 0) => Distortion::default(),
            ("plumb_bob", 5) => Distortion { k1: d[0], k2: d[1], p1: d[2], p2: d[3], k3: d[4] },
            ("plumb_bob", n) => return Err(CameraError::WrongLength { field: "d", expected: "0 or 5", actual: n }),
            ("", n) => return Err(CameraError::WrongLength { field: "d", expected: "0 without a model", actual: n }),
            (other, _) => return Err(CameraError::UnsupportedDistortionModel(other.to_owned())),
        };
        let fixed = [("k[1] (skew)", k[1], 0.0), ("k[3]", k[3], 0.0), ("k[6]", k[6], 0.0), ("k[7]", k[7], 0.0), ("k[8]", k[8], 1.0)];
        for (field, value, expected) in fixed {
            if value != expected {
                return Err(CameraError::InvalidParameter { field, value, reason: "must be 0 (k[8] must be 1)" });
            }
        }
        let model = Self { width, height, fx: k[0], fy: k[4], cx: k[2], cy: k[5], distortion, mount };
        model.validate()?;
        Ok(model)
    }

    /// Normalized undistorted image coordinates of a pixel, or `None` outside the
    /// region where the distortion can be inverted.
    pub fn pixel_to_normalized(&self, pixel: Point2<f64>) -> Option<Point2<f64>> {
        let distorted = Point2::new((pixel.x - self.cx) / self.fx, (pixel.y - self.cy) / self.fy);
        self.distortion.undistort(distorted)
    }

    /// The pixel that sees the normalized undistorted image point `normalized`.
    pub fn normalized_to_pixel(&self, normalized: Point2<f64>) -> Point2<f64> {
        let d = self.distortion.distort(normalized);
        Point2::new(self.fx * d.x + self.cx, self.fy * d.y + self.cy)
    }

    /// World point (m) on the horizontal plane `plane_height` (m above water) seen at
    /// normalized coordinates `normalized`.
    pub fn normalized_to_world(&self, normalized: Point2<f64>, plane_height: f64) -> Point2<f64> {
        let depth = self.mount.height - plane_height;
        Point2::new(self.mount.x + normalized.x * depth, self.mount.y - normalized.y * depth)
    }

    /// Pixel seen at the world point `world` (m) on the plane `plane_height` (m above
    /// water); `None` when the plane is at or above the camera.
    pub fn world_to_pixel(&self, world: Point2<f64>, plane_height: f64) -> Option<Point2<f64>> {
        let depth = self.mount.height - plane_height;
        if depth <= 0.0 {
            return None;
        }
        let normalized = Point2::new((world.x - self.mount.x) / depth, -(world.y - self.mount.y) / depth);
        Some(self.normalized_to_pixel(normalized))
    }

    /// World point (m) on the plane `plane_height` (m above water) seen at `pixel`.
    pub fn pixel_to_world(&self, pixel: Point2<f64>, plane_height: f64) -> Option<Point2<f64>> {
        if self.mount.height - plane_height <= 0.0 {
            return None;
        }
        self.pixel_to_normalized(pixel).map(|n| self.normalized_to_world(n, plane_height))
    }

    /// Jacobian of [`Self::pixel_to_world`] at `pixel` (m per px, columns = d/du, d/dv),
    /// by central differences over one pixel.
    pub fn pixel_to_world_jacobian(&self, pixel: Point2<f64>, plane_height: f64) -> Option<Matrix2<f64>> {
        let h = 0.5;
        let du = self.pixel_to_world(pixel + nalgebra::Vector2::new(h, 0.0), plane_height)?
            - self.pixel_to_world(pixel - nalgebra::Vector2::new(h, 0.0), plane_height)?;
        let dv = self.pixel_to_world(pixel + nalgebra::Vector2::new(0.0, h), plane_height)?
            - self.pixel_to_world(pixel - nalgebra::Vector2::new(0.0, h), plane_height)?;
        Some(Matrix2::from_columns(&[du / (2.0 * h), dv / (2.0 * h)]))
    }

    /// Pose of the optical frame (module docs) in a world frame whose water plane is at
    /// height `water_z` (m): above the mount point, turned half a turn about world `x`
    /// (so its `z` looks down and its `y` runs along world `-y`). What the camera node
    /// publishes on `/tf_static`.
    pub fn optical_pose(&self, water_z: f64) -> Isometry3<f64> {
        Isometry3::from_parts(
            Translation3::new(self.mount.x, self.mount.y, water_z + self.mount.height),
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::PI),
        )
    }

    /// Nominal ground sampling at the image centre on plane `plane_height`, px per m.
    pub fn pixels_per_metre(&self, plane_height: f64) -> f64 {
        0.5 * (self.fx + self.fy) / (self.mount.height - plane_height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn simple() -> CameraModel {
        CameraModel {
            width: 640,
            height: 480,
            fx: 500.0,
            fy: 400.0,
            cx: 320.0,
            cy: 240.0,
            distortion: Distortion::default(),
            mount: CameraMount { x: 0.1, y: -0.2, height: 2.0 },
        }
    }

    #[test]
    fn optical_pose_projects_like_world_to_pixel() {
        // A world point taken into the optical frame by the pose and projected as a
        // pinhole lands on the pixel `world_to_pixel` computes, on planes at two heights.
        let camera = simple().with_distortion(Distortion { k1: -0.05, k2: 0.01, p1: 0.001, p2: -0.002, k3: 0.0 });
        let water_z = 0.22;
        let pose = camera.optical_pose(water_z);
        for (x, y, above) in [(0.5, 0.3, 0.0), (-0.4, 0.1, 0.4), (0.1, -0.2, 0.0)] {
            let in_camera = pose.inverse_transform_point(&nalgebra::Point3::new(x, y, water_z + above));
            assert!(in_camera.z > 0.0, "in front of the camera");
            let pinhole = camera.normalized_to_pixel(Point2::new(in_camera.x / in_camera.z, in_camera.y / in_camera.z));
            let expected = camera.world_to_pixel(Point2::new(x, y), above).unwrap();
            assert!((pinhole - expected).norm() < 1e-9, "{pinhole} vs {expected}");
        }
        assert!((pose.translation.vector - Vector3::new(0.1, -0.2, 2.22)).norm() < 1e-12);
    }

    #[test]
    fn world_to_pixel_hand_computed() {
        // World (0.5, 0.3) on plane 0: X = 0.4, Y = -(0.5) , Z = 2 -> n = (0.2, -0.25)
        // u = 500*0.2 + 320 = 420; v = 400*(-0.25) + 240 = 140.
        let px = simple().world_to_pixel(Point2::new(0.5, 0.3), 0.0).unwrap();
        assert!((px.x - 420.0).abs() < 1e-12 && (px.y - 140.0).abs() < 1e-12);
        // On a plane 0.4 m above water Z = 1.6: n = (0.25, -0.3125) -> (445, 115).
        let px = simple().world_to_pixel(Point2::new(0.5, 0.3), 0.4).unwrap();
        assert!((px.x - 445.0).abs() < 1e-12 && (px.y - 115.0).abs() < 1e-12);
    }

    #[test]
    fn pixel_to_world_round_trip_with_distortion() {
        let cam = simple().with_distortion(Distortion { k1: -0.15, k2: 0.03, p1: 0.001, p2: 0.0005, k3: 0.0 });
        for &(x, y) in &[(0.0, 0.0), (0.6, 0.4), (-0.5, -0.6), (0.7, -0.8)] {
            let w = Point2::new(x, y);
            let back = cam.pixel_to_world(cam.world_to_pixel(w, 0.005).unwrap(), 0.005).unwrap();
            assert!((back - w).norm() < 1e-10);
        }
    }

    #[test]
    fn covering_fits_the_tank() {
        // 0.33 m half extent at 1 m height over 512 px: f = 512 / 0.33.
        let cam = CameraModel::lily_tank_default();
        assert!((cam.fx - 512.0 / 0.33).abs() < 1e-9);
        assert_eq!(cam.cx, 511.5);
        let rim = cam.world_to_pixel(Point2::new(0.33, 0.0), 0.0).unwrap();
        assert!((rim.x - 1023.5).abs() < 1e-9, "{rim:?}");
    }

    #[test]
    fn camera_info_round_trip() {
        let cam = simple().with_distortion(Distortion::radial(-0.1, 0.01));
        let info = cam.camera_info();
        let back = CameraModel::from_camera_info(info.width, info.height, &info.distortion_model, &info.k, &info.d, cam.mount).unwrap();
        assert_eq!(back, cam);
        assert_eq!(info.p[2], 320.0);
        assert_eq!(info.p[6], 240.0);
    }

    #[test]
    fn camera_info_errors_name_the_field() {
        let cam = simple();
        let k = cam.k();
        let err = CameraModel::from_camera_info(640, 480, "plumb_bob", &k[..8], &[], cam.mount).unwrap_err();
        assert_eq!(err, CameraError::WrongLength { field: "k", expected: "9", actual: 8 });
        let err = CameraModel::from_camera_info(640, 480, "equidistant", &k, &[0.0; 4], cam.mount).unwrap_err();
        assert!(err.to_string().contains("equidistant"));
        let mut bad = k;
        bad[0] = 0.0;
        let err = CameraModel::from_camera_info(640, 480, "plumb_bob", &bad, &[], cam.mount).unwrap_err();
        assert!(err.to_string().contains("fx"), "{err}");
        let err = CameraModel::from_camera_info(0, 480, "plumb_bob", &k, &[], cam.mount).unwrap_err();
        assert_eq!(err, CameraError::ZeroSize { width: 0, height: 480 });
        let err = CameraModel::from_camera_info(640, 480, "plumb_bob", &k, &[0.0; 4], cam.mount).unwrap_err();
        assert!(err.to_string().contains("`d`"), "{err}");
    }

    #[test]
    fn jacobian_of_pinhole_is_depth_over_focal() {
        let j = simple().pixel_to_world_jacobian(Point2::new(100.0, 100.0), 0.0).unwrap();
        assert!((j[(0, 0)] - 2.0 / 500.0).abs() < 1e-12);
        assert!((j[(1, 1)] + 2.0 / 400.0).abs() < 1e-12);
        assert!(j[(0, 1)].abs() < 1e-12 && j[(1, 0)].abs() < 1e-12);
    }
}
