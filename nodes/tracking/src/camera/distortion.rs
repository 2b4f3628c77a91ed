//! Brown-Conrady ("plumb_bob") lens distortion and its iterative inverse.

use nalgebra::{Matrix2, Point2, Vector2};
use serde::{Deserialize, Serialize};

/// Newton iterations allowed when undistorting a point.
const MAX_UNDISTORT_ITERATIONS: usize = 30;
/// Convergence tolerance of the undistortion, in normalized image units.
const UNDISTORT_TOLERANCE: f64 = 1e-13;

/// Lens distortion in the ROS `plumb_bob` model (OpenCV order `[k1, k2, p1, p2, k3]`).
///
/// It acts on normalized image coordinates `(X/Z, Y/Z)`; all coefficients are
/// dimensionless.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Distortion {
    /// First radial coefficient (dimensionless, multiplies r^2).
    pub k1: f64,
    /// Second radial coefficient (dimensionless, multiplies r^4).
    pub k2: f64,
    /// First tangential coefficient (dimensionless).
    pub p1: f64,
    /// Second tangential coefficient (dimensionless).
    pub p2: f64,
    /// Third radial coefficient (dimensionless, multiplies r^6).
    pub k3: f64,
}

impl Distortion {
    /// Radial-only distortion (the emulated camera's lens).
    pub fn radial(k1: f64, k2: f64) -> Self {
        Self { k1, k2, ..Self::default() }
    }

    /// The coefficients in CameraInfo `D` order: `[k1, k2, p1, p2, k3]`.
    pub fn coefficients(&self) -> [f64; 5] {
        [self.k1, self.k2, self.p1, self.p2, self.k3]
    }

    /// True when every coefficient is zero (the model is the identity).
    pub fn is_identity(&self) -> bool {
        self.coefficients().iter().all(|c| *c == 0.0)
    }

    /// Maps an undistorted normalized point to its distorted position.
    pub fn distort(&self, p: Point2<f64>) -> Point2<f64> {
        let (x, y) = (p.x, p.y);
        let r2 = x * x + y * y;
        let radial = 1.0 + r2 * (self.k1 + r2 * (self.k2 + r2 * self.k3));
        Point2::new(
            x * radial + 2.0 * self.p1 * x * y + self.p2 * (r2 + 2.0 * x * x),
            y * radial + self.p1 * (r2 + 2.0 * y * y) + 2.0 * self.p2 * x * y,
        )
    }

    /// Jacobian of [`Self::distort`] at `p`.
    fn jacobian(&self, p: Point2<f64>) -> Matrix2<f64> {
        let (x, y) = (p.x, p.y);
        let r2 = x * x + y * y;
        let radial = 1.0 + r2 * (self.k1 + r2 * (self.k2 + r2 * self.k3));
        // d(radial)/d(r2)
        let d_radial = self.k1 + r2 * (2.0 * self.k2 + 3.0 * r2 * self.k3);
        let dxx = radial + 2.0 * x * x * d_radial + 2.0 * self.p1 * y + 6.0 * self.p2 * x;
        let dxy = 2.0 * x * y * d_radial + 2.0 * self.p1 * x + 2.0 * self.p2 * y;
        let dyx = 2.0 * x * y * d_radial + 2.0 * self.p1 * x + 2.0 * self.p2 * y;
        let dyy = radial + 2.0 * y * y * d_radial + 6.0 * self.p1 * y + 2.0 * self.p2 * x;
        Matrix2::new(dxx, dxy, dyx, dyy)
    }

    /// Inverts [`Self::distort`] by Newton iteration from the distorted point.
    ///
    /// Returns `None` where the model folds over (no unique inverse) or the iteration
    /// does not converge, e.g. far outside the calibrated field of view.
    pub fn undistort(&self, distorted: Point2<f64>) -> Option<Point2<f64>> {
        if self.is_identity() {
            return Some(distorted);
        }
        let mut p = distorted;
        for _ in 0..MAX_UNDISTORT_ITERATIONS {
            let residual: Vector2<f64> = self.distort(p) - distorted;
            if residual.norm() < UNDISTORT_TOLERANCE {
                return Some(p);
            }
            let jacobian = self.jacobian(p);
            // A non-positive determinant means the mapping folds here: no valid inverse.
            if jacobian.determinant() <= 0.0 {
                return None;
            }
            let step = jacobian.try_inverse()? * residual;
            p -= step;
            if !(p.x.is_finite() && p.y.is_finite()) {
                return None;
            }
        }
        let residual = (self.distort(p) - distorted).norm();
        (residual < 1e-9).then_some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distort_hand_computed() {
        // r2 = 0.1^2 + 0.2^2 = 0.05; radial = 1 + 0.1*0.05 + 0.01*0.0025 = 1.005025.
        let d = Distortion::radial(0.1, 0.01);
        let p = d.distort(Point2::new(0.1, 0.2));
        assert!((p.x - 0.1005025).abs() < 1e-15);
        assert!((p.y - 0.2010050).abs() < 1e-15);
    }

    #[test]
    fn tangential_terms_hand_computed() {
        // x = 0.1, y = 0.2, r2 = 0.05, p1 = 0.01, p2 = 0.02:
        // dx = 2*0.01*0.1*0.2 + 0.02*(0.05 + 0.02) = 0.0004 + 0.0014 = 0.0018
        // dy = 0.01*(0.05 + 0.08) + 2*0.02*0.1*0.2 = 0.0013 + 0.0008 = 0.0021
        let d = Distortion { p1: 0.01, p2: 0.02, ..Distortion::default() };
        let p = d.distort(Point2::new(0.1, 0.2));
        assert!((p.x - 0.1018).abs() < 1e-15);
        assert!((p.y - 0.2021).abs() < 1e-15);
    }

    #[test]
    fn undistort_inverts_distort() {
        let d = Distortion { k1: -0.2, k2: 0.05, p1: 0.001, p2: -0.002, k3: 0.01 };
        for &(x, y) in &[(0.0, 0.0), (0.3, -0.2), (-0.35, 0.35), (0.01, 0.4)] {
            let p = Point2::new(x, y);
            let back = d.undistort(d.distort(p)).expect("converges");
            assert!((back - p).norm() < 1e-12, "{p:?} -> {back:?}");
        }
    }

    #[test]
    fn undistort_refuses_folded_region() {
        // With k1 = -1 the radial map r(1 - r^2) folds at r = 1/sqrt(3) ~ 0.577 where
        // it reaches 0.385: a distorted radius of 0.5 has no preimage.
        let d = Distortion::radial(-1.0, 0.0);
        assert!(d.undistort(Point2::new(0.5, 0.0)).is_none());
    }
}
