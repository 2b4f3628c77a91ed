//! The Bluebot's neighbour pipeline after blob detection (Materials and Methods): each
//! blob is undistorted to a body-frame bearing; blobs at the same azimuth are paired as
//! the two vertically stacked LEDs of one robot (robots do not roll or pitch), nearest in
//! elevation first; a pair's distance follows from the 86 mm spacing by projective
//! geometry; a pair whose midpoint lies above the water surface (known from the observer's
//! own depth) is a surface reflection and is dropped; a robot seen by both cameras (front
//! overlap) is reported once.

use super::camera::Cameras;
use flotilla_contract::bluebot::{Blob, Camera, Neighbour, RED_RATIO};
use nalgebra::Vector3;
use std::f64::consts::PI;

/// One blob as blob detection found it in an image.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageBlob {
    /// The camera.
    pub camera: Camera,
    /// Centroid column, pixels.
    pub column: f64,
    /// Centroid row, pixels.
    pub row: f64,
    /// Size, pixels.
    pub pixels: u32,
    /// Red over blue channel sum around the centroid, 1.
    pub red_ratio: f64,
}

/// Tolerances of the pairing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PipelineParams {
    /// Vertical distance between a robot's LEDs, m.
    pub led_spacing: f64,
    /// Largest azimuth difference of a pair, rad, plus `azimuth_slope` times the pair's
    /// elevation gap (near neighbours' LEDs are farther apart in the image).
    pub azimuth_tolerance: f64,
    /// See `azimuth_tolerance`, 1.
    pub azimuth_slope: f64,
    /// A pair whose midpoint is less than this below the surface counts as a reflection, m.
    pub surface_margin: f64,
    /// Pairs closer than this are rejected as mismatches, m.
    pub min_distance: f64,
    /// Pairs farther than this are rejected as mismatches (larger than the tank), m.
    pub max_distance: f64,
    /// Two pairs of both cameras within this azimuth are one robot, rad.
    pub merge_azimuth: f64,
    /// ... and within this relative distance difference, 1.
    pub merge_distance: f64,
    /// How a camera's blobs are paired into LED pairs.
    pub pairing: Pairing,
}

/// How a camera's blobs are paired into LED pairs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pairing {
    /// Vertically aligned blobs (within `azimuth_tolerance` plus `azimuth_slope` times
    /// their elevation gap), the pair nearest in elevation first.
    NearestElevation,
    /// As the authors' dispersion program (fberlinger/blueswarm `fishfood/exp_LJpot.py`):
    /// blobs sorted by azimuth, each with the next one when their azimuths differ by at
    /// most `window` rad whatever their elevations, else the first is dropped.
    AzimuthOrder {
        /// Largest azimuth difference of a pair, rad (the authors': 5 deg).
        window: f64,
    },
}

impl Default for PipelineParams {
    fn default() -> Self {
        Self {
            led_spacing: 0.086,
            azimuth_tolerance: 1.5f64.to_radians(),
            azimuth_slope: 0.05,
            surface_margin: 0.01,
            min_distance: 0.06,
            max_distance: 4.0,
            merge_azimuth: 4f64.to_radians(),
            merge_distance: 0.35,
            pairing: Pairing::NearestElevation,
        }
    }
}

pub use flotilla_contract::wrap_angle as wrap;

/// Azimuth and elevation of a body-frame direction, rad.
pub fn bearing(dir: &Vector3<f64>) -> (f64, f64) {
    let n = dir.norm();
    (dir.y.atan2(dir.x), (dir.z / n).clamp(-1.0, 1.0).asin())
}

/// Bearings of the detected blobs and the neighbours paired from them, for an observer
/// whose pressure sensor reads `depth` m.
pub fn process(cameras: &Cameras, blobs: &[ImageBlob], depth: f64, params: &PipelineParams) -> (Vec<Blob>, Vec<Neighbour>) {
    let bearings: Vec<Blob> = blobs
        .iter()
        .map(|b| {
            let (azimuth, elevation) = bearing(&cameras.unproject(b.camera, b.column, b.row));
            Blob { camera: b.camera, azimuth, elevation, pixels: b.pixels, red_ratio: b.red_ratio }
        })
        .collect();
    let mut per_camera: Vec<Vec<Neighbour>> = Vec::new();
    for camera in super::camera::CAMERAS {
        let mine: Vec<&Blob> = bearings.iter().filter(|b| b.camera == camera && b.red_ratio <= RED_RATIO).collect();
        per_camera.push(pair(&mine, depth, params));
    }
    let mut neighbours = per_camera.remove(0);
    let right = per_camera.remove(0);
    let mut merged = vec![false; neighbours.len()];
    for r in right {
        let twin = neighbours.iter().enumerate().position(|(i, l)| {
            !merged[i]
                && wrap(l.azimuth - r.azimuth).abs() < params.merge_azimuth
                && (l.distance - r.distance).abs() < params.merge_distance * l.distance.max(r.distance)
        });
        match twin {
            Some(i) => {
                let l = &mut neighbours[i];
                l.azimuth = wrap(l.azimuth + 0.5 * wrap(r.azimuth - l.azimuth));
                l.elevation = 0.5 * (l.elevation + r.elevation);
                l.distance = 0.5 * (l.distance + r.distance);
                merged[i] = true;
            }
            None => {
                neighbours.push(r);
                merged.push(true);
            }
        }
    }
    (bearings, neighbours)
}

/// Pairs one camera's blobs: nearest in elevation first among vertically aligned blobs
/// whose pair is a plausible robot under the water.
fn pair(blobs: &[&Blob], depth: f64, params: &PipelineParams) -> Vec<Neighbour> {
    if let Pairing::AzimuthOrder { window } = params.pairing {
        return pair_in_azimuth_order(blobs, depth, window, params);
    }
    // Sorted by azimuth, a blob's partners lie within the widest tolerance (the gap is at
    // most pi); one camera spans less than 200 deg, so no pair straddles +-pi.
    let mut order: Vec<usize> = (0..blobs.len()).collect();
    order.sort_unstable_by(|&a, &b| blobs[a].azimuth.total_cmp(&blobs[b].azimuth));
    let limit = 85f64.to_radians();
    let tangent: Vec<f64> = blobs.iter().map(|b| if b.elevation.abs() <= limit { b.elevation.tan() } else { f64::NAN }).collect();
    let widest = params.azimuth_tolerance + params.azimuth_slope * PI;
    let mut candidates = Vec::new();
    for (k, &a) in order.iter().enumerate() {
        for &b in order[k + 1..].iter().take_while(|&&b| blobs[b].azimuth - blobs[a].azimuth <= widest) {
            let (i, j) = if blobs[a].elevation <= blobs[b].elevation { (a, b) } else { (b, a) };
            let gap = blobs[j].elevation - blobs[i].elevation;
            let spread = tangent[j] - tangent[i];
            if !(gap > 0.0 && spread > 0.0)
                || (blobs[j].azimuth - blobs[i].azimuth).abs() > params.azimuth_tolerance + params.azimuth_slope * gap
            {
                continue;
            }
            let horizontal = params.led_spacing / spread;
            let z = horizontal * tangent[i] + 0.5 * params.led_spacing;
            let distance = (horizontal * horizontal + z * z).sqrt();
            // Midpoint above the surface (the observer is `depth` below it): a reflection.
            if (params.min_distance..=params.max_distance).contains(&distance) && z < depth - params.surface_margin {
                candidates.push((gap, i, j));
            }
        }
    }
    candidates.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut used = vec![false; blobs.len()];
    let mut out = Vec::new();
    for (_, i, j) in candidates {
        if !used[i] && !used[j] {
            used[i] = true;
            used[j] = true;
            out.extend(locate(blobs[i], blobs[j], params.led_spacing));
        }
    }
    out
}

/// [`Pairing::AzimuthOrder`]: neighbours in azimuth order within `window` rad, pairs
/// outside the distance range or above the surface dropped.
fn pair_in_azimuth_order(blobs: &[&Blob], depth: f64, window: f64, params: &PipelineParams) -> Vec<Neighbour> {
    let mut order: Vec<&Blob> = blobs.to_vec();
    order.sort_unstable_by(|a, b| a.azimuth.total_cmp(&b.azimuth));
    let mut out = Vec::new();
    let mut k = 0;
    while k + 1 < order.len() {
        let (a, b) = (order[k], order[k + 1]);
        if b.azimuth - a.azimuth > window {
            k += 1;
            continue;
        }
        let (lo, hi) = if a.elevation <= b.elevation { (a, b) } else { (b, a) };
        if let Some(n) = locate(lo, hi, params.led_spacing) {
            let z = n.distance * n.elevation.sin();
            if (params.min_distance..=params.max_distance).contains(&n.distance) && z < depth - params.surface_margin {
                out.push(n);
            }
        }
        k += 2;
    }
    out
}

/// The midpoint of two LEDs `spacing` m apart seen at bearings `lo` (lower) and `hi`:
/// their horizontal distance is `spacing / (tan e_hi - tan e_lo)`.
pub fn locate(lo: &Blob, hi: &Blob, spacing: f64) -> Option<Neighbour> {
    let limit = 85f64.to_radians();
    if lo.elevation.abs() > limit || hi.elevation.abs() > limit {
        return None;
    }
    let spread = hi.elevation.tan() - lo.elevation.tan();
    if spread <= 0.0 {
        return None;
    }
    let horizontal = spacing / spread;
    let z = horizontal * lo.elevation.tan() + 0.5 * spacing;
    let azimuth = wrap(lo.azimuth + 0.5 * wrap(hi.azimuth - lo.azimuth));
    Some(Neighbour { azimuth, elevation: z.atan2(horizontal), distance: horizontal.hypot(z) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(azimuth: f64, elevation: f64) -> Blob {
        Blob { camera: Camera::Left, azimuth, elevation, pixels: 3, red_ratio: 0.1 }
    }

    /// The bearing of a point at horizontal distance `h`, height `z` (relative to the eye).
    fn at(azimuth: f64, h: f64, z: f64) -> Blob {
        blob(azimuth, z.atan2(h))
    }

    #[test]
    fn a_pair_gives_distance_and_bearing() {
        // Midpoint 0.6 m ahead-left at 30 deg, 0.1 m above the eye.
        let (lo, hi) = (at(0.5, 0.6, 0.1 - 0.043), at(0.5, 0.6, 0.1 + 0.043));
        let n = locate(&lo, &hi, 0.086).unwrap();
        assert!((n.distance - 0.6f64.hypot(0.1)).abs() < 1e-12 && (n.azimuth - 0.5).abs() < 1e-12, "{n:?}");
        assert!((n.elevation - 0.1f64.atan2(0.6)).abs() < 1e-12);
    }

    #[test]
    fn reflections_are_rejected_and_the_real_pair_kept() {
        // Observer 0.3 m deep; a robot 0.8 m away with its centre 0.25 m deep (0.05 m
        // above the eye): the surface mirrors its LEDs to 0.3 + 0.25 +- 0.043 above the eye.
        let (d, z) = (0.8, 0.05);
        let real = [at(1.0, d, z - 0.043), at(1.0, d, z + 0.043)];
        let mirrored = [at(1.0, d, 0.3 + 0.25 + 0.043), at(1.0, d, 0.3 + 0.25 - 0.043)];
        let all: Vec<&Blob> = real.iter().chain(&mirrored).collect();
        let found = pair(&all, 0.3, &PipelineParams::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!((found[0].distance - d.hypot(z)).abs() < 1e-9);
        // Near the surface (centre 0.05 m deep) the mixed pairs come close; still one robot.
        let z = 0.25;
        let near = [at(-2.0, d, z - 0.043), at(-2.0, d, z + 0.043), at(-2.0, d, 0.35 + 0.043), at(-2.0, d, 0.35 - 0.043)];
        let all: Vec<&Blob> = near.iter().collect();
        let found = pair(&all, 0.3, &PipelineParams::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!((found[0].distance - d.hypot(z)).abs() < 1e-9, "{found:?}");
    }

    #[test]
    fn azimuth_order_pairing_crosses_robots_on_one_bearing() {
        // Two robots 2 deg apart in azimuth, 0.4 m and 1.2 m away, both level with the eye.
        let (a, b) = (0.30, 0.30 + 2f64.to_radians());
        let blobs = [at(a, 0.4, -0.043), at(a + 1e-4, 0.4, 0.043), at(b, 1.2, -0.043), at(b + 1e-4, 1.2, 0.043)];
        let all: Vec<&Blob> = blobs.iter().collect();
        let mut nearest = pair(&all, 0.5, &PipelineParams::default());
        nearest.sort_by(|x, y| x.distance.total_cmp(&y.distance));
        assert!(nearest.len() == 2 && (nearest[0].distance - 0.4).abs() < 1e-6 && (nearest[1].distance - 1.2).abs() < 1e-6);
        // The authors' pairing takes the blobs in azimuth order: the same two pairs here...
        let order = PipelineParams { pairing: Pairing::AzimuthOrder { window: 5f64.to_radians() }, ..PipelineParams::default() };
        assert_eq!(pair(&all, 0.5, &order).len(), 2);
        // ...but when the far robot's upper LED sorts between the near robot's two, each of
        // the near robot's LEDs goes with one of the far robot's: two phantoms at the
        // harmonic mean of 0.4 and 1.2 m (0.6 m), and neither robot is seen.
        let crossed = [at(a, 0.4, -0.043), at(a + 2e-4, 0.4, 0.043), at(a + 1e-4, 1.2, 0.043), at(b, 1.2, -0.043)];
        let all: Vec<&Blob> = crossed.iter().collect();
        let mut found = pair(&all, 0.5, &order);
        found.sort_by(|x, y| x.distance.total_cmp(&y.distance));
        assert!(found.len() == 2 && found.iter().all(|n| (n.distance - 0.6).abs() < 0.01), "{found:?}");
        // Nearest in elevation first pairs the two upper LEDs (the smallest gap): one
        // phantom at the far robot's 1.2 m (a weak force where the other gives a strong one).
        let ours = pair(&all, 0.5, &PipelineParams::default());
        assert!(ours.len() == 1 && (ours[0].distance - 1.2031).abs() < 1e-3, "{ours:?}");
    }

    #[test]
    fn two_robots_at_different_azimuths_are_two_neighbours() {
        let blobs = [at(0.2, 0.5, -0.043), at(0.2, 0.5, 0.043), at(-1.2, 1.0, -0.1 - 0.043), at(-1.2, 1.0, -0.1 + 0.043)];
        let all: Vec<&Blob> = blobs.iter().collect();
        let mut found = pair(&all, 0.5, &PipelineParams::default());
        found.sort_by(|a, b| a.distance.total_cmp(&b.distance));
        assert_eq!(found.len(), 2);
        assert!((found[0].distance - 0.5).abs() < 1e-9 && (found[1].distance - 1.0f64.hypot(0.1)).abs() < 1e-9);
    }
}
