//! Swarm metrics of the paper (SPEC 3): convex-hull volume and density, mean
//! nearest-neighbour distance, neighbours seen, circle radius.

use nalgebra::{Vector2, Vector3};
use std::collections::HashSet;

/// Volume of the convex hull of `points`, m^3 (0 for fewer than 4 or coplanar points).
/// Every plane through three points with all points on one side is a hull face; the
/// points on it are outlined by their 2-D hull, and the faces' pyramids from the centroid
/// sum to the volume. O(n^4): meant for swarms of tens.
pub fn hull_volume(points: &[Vector3<f64>]) -> f64 {
    let n = points.len();
    if n < 4 {
        return 0.0;
    }
    let centroid = points.iter().sum::<Vector3<f64>>() / n as f64;
    let scale = points.iter().map(|p| (p - centroid).norm()).fold(0.0, f64::max).max(1e-9);
    let eps = 1e-9 * scale;
    let mut faces: HashSet<Vec<usize>> = HashSet::new();
    let mut volume = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let normal = (points[j] - points[i]).cross(&(points[k] - points[i]));
                if normal.norm() < eps * scale {
                    continue;
                }
                let normal = normal.normalize();
                let side: Vec<f64> = points.iter().map(|p| normal.dot(&(p - points[i]))).collect();
                let (above, below) = (side.iter().any(|&s| s > eps), side.iter().any(|&s| s < -eps));
                if above && below {
                    continue;
                }
                if !above && !below {
                    return 0.0; // every point on one plane
                }
                let on: Vec<usize> = (0..n).filter(|&m| side[m].abs() <= eps).collect();
                if !faces.insert(on.clone()) {
                    continue;
                }
                let u = (points[j] - points[i]).normalize();
                let v = normal.cross(&u);
                let flat: Vec<Vector2<f64>> = on.iter().map(|&m| Vector2::new(u.dot(&points[m]), v.dot(&points[m]))).collect();
                let height = normal.dot(&(points[i] - centroid)).abs();
                volume += polygon_hull_area(flat) * height / 3.0;
            }
        }
    }
    volume
}

/// Area of the 2-D convex hull of `points` (monotone chain), m^2.
fn polygon_hull_area(mut points: Vec<Vector2<f64>>) -> f64 {
    points.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let cross = |o: &Vector2<f64>, a: &Vector2<f64>, b: &Vector2<f64>| (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
    let mut hull: Vec<Vector2<f64>> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &Vector2<f64>>> = if pass == 0 { Box::new(points.iter()) } else { Box::new(points.iter().rev()) };
        for p in iter {
            while hull.len() >= start + 2 && cross(&hull[hull.len() - 2], &hull[hull.len() - 1], p) <= 0.0 {
                hull.pop();
            }
            hull.push(*p);
        }
        hull.pop();
    }
    let m = hull.len();
    0.5 * (0..m).map(|i| hull[i].x * hull[(i + 1) % m].y - hull[(i + 1) % m].x * hull[i].y).sum::<f64>().abs()
}

/// Mean over the points of the distance to the nearest other point, m.
pub fn mean_nnd(points: &[Vector3<f64>]) -> f64 {
    if points.len() < 2 {
        return f64::NAN;
    }
    let nearest =
        |i: usize| points.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, q)| (q - points[i]).norm()).fold(f64::INFINITY, f64::min);
    (0..points.len()).map(nearest).sum::<f64>() / points.len() as f64
}

/// Mean horizontal distance of the points from their centroid, m, and its coefficient of
/// variation.
pub fn circle(points: &[Vector3<f64>]) -> (f64, f64) {
    if points.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let c = points.iter().sum::<Vector3<f64>>() / points.len() as f64;
    let r: Vec<f64> = points.iter().map(|p| (p.x - c.x).hypot(p.y - c.y)).collect();
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    let var = r.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / r.len() as f64;
    (mean, var.sqrt() / mean.max(1e-12))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_volume_by_hand() {
        let v = |x, y, z| Vector3::new(x, y, z);
        let cube: Vec<_> = (0..8).map(|i| v(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from((i >> 2) & 1))).collect();
        assert!((hull_volume(&cube) - 1.0).abs() < 1e-9, "{}", hull_volume(&cube));
        let mut inside = cube.clone();
        inside.push(v(0.5, 0.5, 0.5));
        inside.push(v(0.5, 0.5, 0.0));
        assert!((hull_volume(&inside) - 1.0).abs() < 1e-9);
        let tetra = [v(0., 0., 0.), v(1., 0., 0.), v(0., 1., 0.), v(0., 0., 1.)];
        assert!((hull_volume(&tetra) - 1.0 / 6.0).abs() < 1e-12);
        let flat = [v(0., 0., 0.), v(1., 0., 0.), v(0., 1., 0.), v(1., 1., 0.)];
        assert_eq!(hull_volume(&flat), 0.0);
    }

    #[test]
    fn nnd_and_circle_by_hand() {
        let v = |x, y| Vector3::new(x, y, 0.3);
        let pts = [v(0.0, 0.0), v(1.0, 0.0), v(3.0, 0.0)];
        assert!((mean_nnd(&pts) - (1.0 + 1.0 + 2.0) / 3.0).abs() < 1e-12);
        let ring: Vec<_> = (0..6).map(|i| v(2.0 + 0.5 * (f64::from(i)).cos(), 1.0 + 0.5 * f64::from(i).sin())).collect();
        let (r, cv) = circle(&ring);
        assert!(r > 0.4 && r < 0.6 && cv < 0.2, "{r} {cv}");
    }
}
