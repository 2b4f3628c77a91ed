//! Planar geometry of faces and bodies for the sensors.

use crate::BodyState;
use flotilla_common::catalogue::Shape;
use nalgebra::{Point3, Vector2, Vector3};

/// Centre (m) and outward unit normal of face `k` of `body` in the world plane.
pub(crate) fn face_frame(body: &BodyState, k: usize) -> Option<(Vector2<f64>, Vector2<f64>)> {
    let spec = body.kind.spec();
    let face = spec.faces.get(k)?;
    let c = body.pose * Point3::from(face.centre);
    let n: Vector3<f64> = body.pose.rotation * face.normal;
    Some((Vector2::new(c.x, c.y), Vector2::new(n.x, n.y).normalize()))
}

/// Whether the segment p0 -> p1 (world plane, m) crosses the footprint of `body`.
pub(crate) fn segment_hits_body(p0: Vector2<f64>, p1: Vector2<f64>, body: &BodyState) -> bool {
    let centre = Vector2::new(body.pose.translation.x, body.pose.translation.y);
    match body.kind.spec().shape {
        Shape::Sphere { radius } | Shape::Cylinder { radius, .. } => segment_distance(p0, p1, centre) <= radius,
        Shape::Box { half_extents } => {
            // Into the body frame, then a slab test against the rectangle.
            let heading = body.heading();
            let (s, c) = (-heading).sin_cos();
            let local = |p: Vector2<f64>| {
                let d = p - centre;
                Vector2::new(c * d.x - s * d.y, s * d.x + c * d.y)
            };
            segment_hits_rectangle(local(p0), local(p1), Vector2::new(half_extents.x, half_extents.y))
        }
    }
}

/// Distance from `q` to the segment p0 -> p1, m.
fn segment_distance(p0: Vector2<f64>, p1: Vector2<f64>, q: Vector2<f64>) -> f64 {
    let d = p1 - p0;
    let len2 = d.norm_squared();
    let t = if len2 > 0.0 { ((q - p0).dot(&d) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (p0 + d * t - q).norm()
}

/// Slab test: whether the segment p0 -> p1 meets the rectangle |x| <= half.x, |y| <= half.y.
fn segment_hits_rectangle(p0: Vector2<f64>, p1: Vector2<f64>, half: Vector2<f64>) -> bool {
    let d = p1 - p0;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for axis in 0..2 {
        if d[axis].abs() < 1e-15 {
            if p0[axis].abs() > half[axis] {
                return false;
            }
        } else {
            let a = (-half[axis] - p0[axis]) / d[axis];
            let b = (half[axis] - p0[axis]) / d[axis];
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_distance_by_hand() {
        let (a, b) = (Vector2::new(0.0, 0.0), Vector2::new(2.0, 0.0));
        assert!((segment_distance(a, b, Vector2::new(1.0, 3.0)) - 3.0).abs() < 1e-12);
        // Beyond the end: distance to the end point, sqrt(1 + 1).
        assert!((segment_distance(a, b, Vector2::new(3.0, 1.0)) - 2f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn rectangle_slab_test_by_hand() {
        let half = Vector2::new(1.0, 0.5);
        // Crosses the middle.
        assert!(segment_hits_rectangle(Vector2::new(-3.0, 0.0), Vector2::new(3.0, 0.2), half));
        // Passes above (y = 0.6 > 0.5).
        assert!(!segment_hits_rectangle(Vector2::new(-3.0, 0.6), Vector2::new(3.0, 0.6), half));
        // Stops short of the box.
        assert!(!segment_hits_rectangle(Vector2::new(-3.0, 0.0), Vector2::new(-1.1, 0.0), half));
        // Diagonal that clips the corner (1, 0.5): the line x + y = 1.4 meets it.
        assert!(segment_hits_rectangle(Vector2::new(1.4, 0.0), Vector2::new(0.0, 1.4), half));
        assert!(!segment_hits_rectangle(Vector2::new(1.6, 0.0), Vector2::new(0.0, 1.6), half));
    }
}
