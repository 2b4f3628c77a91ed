//! Sub-pixel measurement of one blob: coverage-weighted centroid of the filled marker
//! disc and of its heading dot.
//!
//! Around the thresholded blob, each pixel's coverage is estimated from its grey level
//! between the local surround level `b` and the marker level `f`:
//! `c = clamp((I - b) / (f - b), 0, 1)`. The centroid of `c` is the centroid of the
//! marker to a small fraction of a pixel because antialiased edge pixels carry their
//! partial coverage. Holes (the heading dot) count as covered, so the disc centre is
//! not pulled away from the dot; the dot's own centroid is weighted by `f - I`.

use super::components::Run;
use crate::frame::{Encoding, ImageView};

/// Bright pixel of the blob itself.
const COMP: u8 = 1;
/// Dark pixel connected to the box border (outside the marker).
const OUTSIDE: u8 = 2;
/// Pixel of any enclosed hole.
const HOLE: u8 = 4;
/// Pixel of the largest hole, accepted as the heading dot.
const DOT: u8 = 8;
/// Within the edge margin of the filled marker.
const NEAR_FILLED: u8 = 16;
/// Within the edge margin plus one of the filled marker (the surround lies outside).
const NEAR_RING: u8 = 32;
/// Within the edge margin of the dot.
const NEAR_DOT: u8 = 64;

/// Limits the measurement needs from the detector configuration.
#[derive(Clone, Copy, Debug)]
pub struct RefineLimits {
    /// Pixels around the blob whose partial coverage is summed, px.
    pub edge_margin: u32,
    /// Smallest accepted dot, fraction of the filled marker pixels.
    pub min_dot_fraction: f64,
    /// Largest accepted dot, fraction of the filled marker pixels.
    pub max_dot_fraction: f64,
    /// Smallest marker-to-surround contrast, 8-bit levels.
    pub min_contrast: f64,
}

/// What the refinement measured, in pixel coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlobMeasure {
    /// Centroid column of the filled marker, px.
    pub u: f64,
    /// Centroid row of the filled marker, px.
    pub v: f64,
    /// Covered area of the filled marker, px^2.
    pub area: f64,
    /// Centroid of the heading dot (column, row), px.
    pub dot: Option<(f64, f64)>,
    /// Marker level minus surround level, 8-bit levels.
    pub contrast: f64,
    /// Ratio of the major to the minor axis of the covered area (1 for a disc).
    pub elongation: f64,
    /// Width of the marker's edge, px: pixels of partial coverage (0.1..0.9) per pixel of
    /// perimeter. A blurred marker edge is about 2.5 blur sigmas wide; a soft lamp
    /// reflection or a glint is all edge.
    pub edge_width: f64,
}

/// Why a blob could not be measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefineReject {
    /// Marker and surround levels are too close.
    LowContrast,
}

/// Reusable buffers for measuring blobs.
#[derive(Default)]
pub struct Refiner {
    mask: Vec<u8>,
    spread: Vec<u8>,
    stack: Vec<u32>,
    hole: Vec<u32>,
    best_hole: Vec<u32>,
    /// Grey levels of a colour frame's window, converted once per blob (a mono8 frame's
    /// rows are read in place).
    gray: Vec<u8>,
}

/// The padded box around a blob, in image pixels.
struct Window {
    u0: u32,
    v0: u32,
    width: usize,
    height: usize,
}

impl Refiner {
    /// Measures the blob made of `runs` inside the bounding box
    /// `(u_min, u_max, v_min, v_max)` (inclusive, px).
    pub fn measure(
        &mut self,
        image: &ImageView,
        runs: impl Iterator<Item = Run>,
        bounds: (u32, u32, u32, u32),
        limits: &RefineLimits,
    ) -> Result<BlobMeasure, RefineReject> {
        let pad = limits.edge_margin + 2;
        let (u_min, u_max, v_min, v_max) = bounds;
        let u0 = u_min.saturating_sub(pad);
        let v0 = v_min.saturating_sub(pad);
        let u1 = (u_max + pad).min(image.width() - 1);
        let v1 = (v_max + pad).min(image.height() - 1);
        let win = Window { u0, v0, width: (u1 - u0 + 1) as usize, height: (v1 - v0 + 1) as usize };
        self.mask.clear();
        self.mask.resize(win.width * win.height, 0);
        let mut comp_pixels = 0usize;
        for run in runs {
            let row = (run.v - v0) as usize * win.width;
            for u in run.start..run.end {
                self.mask[row + (u - u0) as usize] = COMP;
            }
            comp_pixels += (run.end - run.start) as usize;
        }
        self.mark_outside(&win);
        let dot_pixels = self.mark_holes(&win);
        let filled_pixels = comp_pixels + self.mask.iter().filter(|&&m| m & HOLE != 0).count();
        let dot_fraction = dot_pixels as f64 / filled_pixels as f64;
        let has_dot = dot_pixels > 0 && (limits.min_dot_fraction..=limits.max_dot_fraction).contains(&dot_fraction);
        let margin = limits.edge_margin as usize;
        self.dilate(&win, COMP | HOLE, NEAR_FILLED, margin);
        // One more pixel around the margin: a square grown by `margin`, then by 1, is the
        // square grown by `margin + 1` (also where the window clips it).
        self.dilate(&win, NEAR_FILLED, NEAR_RING, 1);
        if has_dot {
            self.dilate(&win, DOT, NEAR_DOT, margin);
        }
        self.gray.clear();
        if image.encoding() != Encoding::Mono8 {
            for v in win.v0..win.v0 + win.height as u32 {
                image.gray_span(win.u0, v, win.width, &mut self.gray);
            }
        }
        let (surround, marker) = self.levels(image, &win);
        let contrast = marker - surround;
        if contrast < limits.min_contrast {
            return Err(RefineReject::LowContrast);
        }
        Ok(self.weighted_centroids(image, &win, surround, marker, has_dot))
    }

    /// Flood-fills (4-connected) the non-blob pixels reachable from the window border,
    /// a row stretch at a time.
    fn mark_outside(&mut self, win: &Window) {
        self.stack.clear();
        let (w, h) = (win.width, win.height);
        for i in 0..w {
            self.stack.push(i as u32);
            self.stack.push(((h - 1) * w + i) as u32);
        }
        for j in 0..h {
            self.stack.push((j * w) as u32);
            self.stack.push((j * w + w - 1) as u32);
        }
        while let Some(i) = self.stack.pop() {
            let i = i as usize;
            if self.mask[i] != 0 {
                continue;
            }
            let row = i - i % w;
            let mut lo = i;
            while lo > row && self.mask[lo - 1] == 0 {
                lo -= 1;
            }
            let mut hi = i + 1;
            while hi < row + w && self.mask[hi] == 0 {
                hi += 1;
            }
            self.mask[lo..hi].fill(OUTSIDE);
            // One seed per stretch of unmarked pixels along it in the rows above and below.
            let y = row / w;
            for neighbour in [y.checked_sub(1), (y + 1 < h).then_some(y + 1)].into_iter().flatten() {
                let shift = neighbour * w;
                let mut in_stretch = false;
                for j in lo - row..hi - row {
                    let free = self.mask[shift + j] == 0;
                    if free && !in_stretch {
                        self.stack.push((shift + j) as u32);
                    }
                    in_stretch = free;
                }
            }
        }
    }

    /// Marks every enclosed pixel `HOLE` and the largest hole also `DOT`; returns the
    /// largest hole's pixel count.
    fn mark_holes(&mut self, win: &Window) -> usize {
        let w = win.width;
        self.best_hole.clear();
        for start in 0..self.mask.len() {
            if self.mask[start] != 0 {
                continue;
            }
            self.hole.clear();
            self.stack.clear();
            self.stack.push(start as u32);
            while let Some(i) = self.stack.pop() {
                let i = i as usize;
                if self.mask[i] != 0 {
                    continue;
                }
                self.mask[i] = HOLE;
                self.hole.push(i as u32);
                // Enclosed pixels never touch the window border, so neighbours exist.
                self.stack.extend_from_slice(&[(i - 1) as u32, (i + 1) as u32, (i - w) as u32, (i + w) as u32]);
            }
            if self.hole.len() > self.best_hole.len() {
                std::mem::swap(&mut self.hole, &mut self.best_hole);
            }
        }
        for &i in &self.best_hole {
            self.mask[i as usize] |= DOT;
        }
        self.best_hole.len()
    }

    /// Sets `dst` on every pixel within Chebyshev distance `radius` of a pixel with any
    /// of the `src` bits (separable max filter: rows, then columns).
    fn dilate(&mut self, win: &Window, src: u8, dst: u8, radius: usize) {
        let (w, h) = (win.width, win.height);
        self.spread.clear();
        self.spread.resize(w * h, 0);
        for (mask, spread) in self.mask.chunks_exact(w).zip(self.spread.chunks_exact_mut(w)) {
            let mut x = 0;
            while x < w {
                if mask[x] & src == 0 {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < w && mask[x] & src != 0 {
                    x += 1;
                }
                spread[start.saturating_sub(radius)..(x + radius).min(w)].fill(dst);
            }
        }
        // Whole rows at a time: `spread` holds `dst` or 0.
        for y in 0..h {
            let mask = &mut self.mask[y * w..(y + 1) * w];
            for yy in y.saturating_sub(radius)..(y + radius + 1).min(h) {
                for (m, &s) in mask.iter_mut().zip(&self.spread[yy * w..(yy + 1) * w]) {
                    *m |= s;
                }
            }
        }
    }

    /// Grey levels of window row `y`: the image's own bytes for mono8, else the
    /// converted window.
    fn gray_row<'s>(&'s self, image: &ImageView<'s>, win: &Window, y: usize) -> &'s [u8] {
        match image.encoding() {
            Encoding::Mono8 => &image.row(win.v0 + y as u32)[win.u0 as usize..win.u0 as usize + win.width],
            _ => &self.gray[y * win.width..(y + 1) * win.width],
        }
    }

    /// Surround level (median outside the ring) and marker level (mean of blob pixels
    /// whose 8 neighbours are all blob pixels; the brightest blob pixel if none).
    fn levels(&self, image: &ImageView, win: &Window) -> (f64, f64) {
        let w = win.width;
        // The surround's levels counted (the median by counting beats a general
        // selection on bytes).
        let (mut histogram, mut surround_count) = ([0u32; 256], 0u32);
        let (mut interior_sum, mut interior_count, mut brightest) = (0u64, 0u64, 0u8);
        for y in 0..win.height {
            let gray = self.gray_row(image, win, y);
            for (x, &level) in gray.iter().enumerate() {
                let i = y * w + x;
                let m = self.mask[i];
                if m & NEAR_RING == 0 {
                    histogram[usize::from(level)] += 1;
                    surround_count += 1;
                } else if m & COMP != 0 {
                    brightest = brightest.max(level);
                    // Blob pixels never sit on the window border (it is padded).
                    let interior =
                        [i - w - 1, i - w, i - w + 1, i - 1, i + 1, i + w - 1, i + w, i + w + 1].iter().all(|&n| self.mask[n] & COMP != 0);
                    if interior {
                        interior_sum += u64::from(level);
                        interior_count += 1;
                    }
                }
            }
        }
        let marker = if interior_count > 0 { interior_sum as f64 / interior_count as f64 } else { f64::from(brightest) };
        let surround = if surround_count == 0 {
            0.0
        } else {
            // The level of rank `mid`.
            let mid = surround_count / 2;
            let mut below = 0;
            let rank = histogram.iter().position(|&count| {
                below += count;
                below > mid
            });
            rank.map_or(0.0, |level| level as f64)
        };
        (surround, marker)
    }

    fn weighted_centroids(&self, image: &ImageView, win: &Window, surround: f64, marker: f64, has_dot: bool) -> BlobMeasure {
        let w = win.width;
        let scale = 1.0 / (marker - surround);
        let (mut sum, mut sum_x, mut sum_y) = (0.0, 0.0, 0.0);
        let (mut sum_xx, mut sum_xy, mut sum_yy) = (0.0, 0.0, 0.0);
        let (mut dot_sum, mut dot_x, mut dot_y) = (0.0, 0.0, 0.0);
        let mut partial = 0usize;
        for y in 0..win.height {
            let gray = self.gray_row(image, win, y);
            for (x, &level) in gray.iter().enumerate() {
                let m = self.mask[y * w + x];
                if m & NEAR_FILLED == 0 {
                    continue;
                }
                let level = f64::from(level);
                let inside_marker = m & (COMP | HOLE) != 0;
                let weight =
                    if m & HOLE != 0 || (inside_marker && m & NEAR_DOT != 0) { 1.0 } else { ((level - surround) * scale).clamp(0.0, 1.0) };
                partial += usize::from(weight > 0.1 && weight < 0.9);
                let (xf, yf) = (x as f64, y as f64);
                sum += weight;
                sum_x += weight * xf;
                sum_y += weight * yf;
                sum_xx += weight * xf * xf;
                sum_xy += weight * xf * yf;
                sum_yy += weight * yf * yf;
                if inside_marker && m & NEAR_DOT != 0 {
                    let dark = (marker - level).max(0.0);
                    dot_sum += dark;
                    dot_x += dark * x as f64;
                    dot_y += dark * y as f64;
                }
            }
        }
        let (u0, v0) = (f64::from(win.u0), f64::from(win.v0));
        let dot = (has_dot && dot_sum > 0.0).then(|| (u0 + dot_x / dot_sum, v0 + dot_y / dot_sum));
        let (mean_x, mean_y) = (sum_x / sum, sum_y / sum);
        let elongation = axis_ratio(sum_xx / sum - mean_x * mean_x, sum_xy / sum - mean_x * mean_y, sum_yy / sum - mean_y * mean_y);
        let edge_width = partial as f64 / (2.0 * (std::f64::consts::PI * sum).sqrt()).max(1.0);
        BlobMeasure { u: u0 + mean_x, v: v0 + mean_y, area: sum, dot, contrast: marker - surround, elongation, edge_width }
    }
}

/// Square root of the ratio of the eigenvalues of the covariance [[xx, xy], [xy, yy]]
/// (major over minor axis length).
fn axis_ratio(xx: f64, xy: f64, yy: f64) -> f64 {
    let half_trace = 0.5 * (xx + yy);
    let spread = (0.25 * (xx - yy).powi(2) + xy * xy).sqrt();
    let (major, minor) = (half_trace + spread, half_trace - spread);
    if minor > 0.0 {
        (major / minor).sqrt()
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::components::{Components, TileThresholds};

    const LIMITS: RefineLimits = RefineLimits { edge_margin: 2, min_dot_fraction: 0.02, max_dot_fraction: 0.3, min_contrast: 20.0 };

    fn measure(width: u32, height: u32, pixels: &[u8]) -> Result<BlobMeasure, RefineReject> {
        let image = ImageView::new(width, height, width, "mono8", pixels).unwrap();
        let mut components = Components::default();
        components.label(&image, &TileThresholds::uniform(width, height, 128), &[]);
        let blob = components.blobs()[0];
        Refiner::default().measure(&image, components.blob_runs(&blob), (blob.u_min, blob.u_max, blob.v_min, blob.v_max), &LIMITS)
    }

    #[test]
    fn partial_edge_coverage_moves_the_centroid() {
        // A 2x2 white square (200) on 0 at columns 5..6, rows 5..6, plus a column of
        // half coverage (100) at column 7: coverage sums 4 + 1 = 5 and the centroid
        // column is (2*5 + 2*6 + 2*0.5*7) / 5 = 29 / 5 = 5.8.
        let mut img = vec![0u8; 144];
        for v in 5..7 {
            img[v * 12 + 5] = 200;
            img[v * 12 + 6] = 200;
            img[v * 12 + 7] = 100;
        }
        let m = measure(12, 12, &img).unwrap();
        assert!((m.u - 5.8).abs() < 1e-12, "{m:?}");
        assert!((m.v - 5.5).abs() < 1e-12);
        assert!((m.area - 5.0).abs() < 1e-12);
        assert_eq!(m.contrast, 200.0);
        assert!(m.dot.is_none());
    }

    #[test]
    fn axis_ratio_hand_computed() {
        // Covariance diag(9, 1): axes 3 and 1. Rotated by 45 deg: [[5, 4], [4, 5]].
        assert!((axis_ratio(9.0, 0.0, 1.0) - 3.0).abs() < 1e-12);
        assert!((axis_ratio(5.0, 4.0, 5.0) - 3.0).abs() < 1e-12);
        assert!(axis_ratio(1.0, 1.0, 1.0).is_infinite());
    }

    #[test]
    fn hole_counts_as_covered_and_gives_the_dot() {
        // 7x7 white square at 4..=10 with a 1 px black hole at (8, 7):
        // the filled centroid stays at the square centre (7, 7); the dot is at (8, 7).
        let mut img = vec![0u8; 15 * 15];
        for v in 4..=10 {
            for u in 4..=10 {
                img[v * 15 + u] = 250;
            }
        }
        img[7 * 15 + 8] = 0;
        let m = measure(15, 15, &img).unwrap();
        assert!((m.u - 7.0).abs() < 1e-12 && (m.v - 7.0).abs() < 1e-12, "{m:?}");
        assert!((m.area - 49.0).abs() < 1e-12);
        assert!((m.elongation - 1.0).abs() < 1e-12);
        let (du, dv) = m.dot.unwrap();
        assert!((du - 8.0).abs() < 1e-12 && (dv - 7.0).abs() < 1e-12);
    }

    #[test]
    fn low_contrast_is_rejected() {
        let mut img = vec![120u8; 100];
        img[55] = 130;
        assert_eq!(measure(10, 10, &img), Err(RefineReject::LowContrast));
    }
}
