//! Sub-pixel measurement of one blob: coverage-weighted centroid of the filled marker
//! disc and of its heading dot.
//!
//! Around the thresholded blob, each pixel's coverage is estimated from its grey level
//! between the local surround level `b` and the marker level `f`:
//! `c = clamp((I - b) / (f - b), 0, 1)`. `b` is the plateau the marker's edge decays
//! into (the body top it is printed on, or the water), taken within the edge margin plus
//! one pixel of the blob (see [`plateau_of`]): a body top only a few pixels wider than
//! the marker (a small frame) must not be mixed with the body's rim and the water beyond
//! it, or the whole top reads as partial coverage. When the marker does not stand
//! `min_contrast` above that plateau (a dim sticker on a body top), `b` is the median of
//! the padded box beyond it instead (where the body lies, often the water), and only a
//! marker under `min_contrast` above both is rejected: the plateau refines the edge of a
//! marker, it does not make a dim one too faint. The centroid of `c` is the centroid of the
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
/// Within the edge margin plus one of the filled marker (its pixels outside the filled
/// marker give the surround level).
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
    planes: Planes,
}

/// The padded box around a blob, in image pixels.
struct Window {
    u0: u32,
    v0: u32,
    width: usize,
    height: usize,
}

impl Window {
    /// The bounding box `(u_min, u_max, v_min, v_max)` (inclusive, px) padded by the edge
    /// margin and two pixels, clipped to the image.
    fn around(image: &ImageView, bounds: (u32, u32, u32, u32), limits: &RefineLimits) -> Self {
        let pad = limits.edge_margin + 2;
        let (u_min, u_max, v_min, v_max) = bounds;
        let u0 = u_min.saturating_sub(pad);
        let v0 = v_min.saturating_sub(pad);
        let u1 = (u_max + pad).min(image.width() - 1);
        let v1 = (v_max + pad).min(image.height() - 1);
        Self { u0, v0, width: (u1 - u0 + 1) as usize, height: (v1 - v0 + 1) as usize }
    }
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
        let win = Window::around(image, bounds, limits);
        if win.width <= BIT_ROW_WIDTH {
            self.measure_bits(image, runs, &win, limits)
        } else {
            self.measure_bytes(image, runs, &win, limits)
        }
    }

    /// [`Refiner::measure`] on bit rows (windows up to [`BIT_ROW_WIDTH`] px wide): each
    /// pixel class is one `u128` per row, so the fills and dilations are word operations
    /// (a marker's window is ~1000 px; byte by byte, its passes cost more than the sums).
    fn measure_bits(
        &mut self,
        image: &ImageView,
        runs: impl Iterator<Item = Run>,
        win: &Window,
        limits: &RefineLimits,
    ) -> Result<BlobMeasure, RefineReject> {
        let planes = &mut self.planes;
        planes.reset(win);
        let mut comp_pixels = 0usize;
        for run in runs {
            let (start, end) = (run.start - win.u0, run.end - win.u0);
            planes.comp[(run.v - win.v0) as usize] |= bit_span(start, end);
            comp_pixels += (run.end - run.start) as usize;
        }
        let dot_pixels = planes.mark_holes();
        let filled_pixels = comp_pixels + planes.holes.iter().map(|r| r.count_ones() as usize).sum::<usize>();
        let dot_fraction = dot_pixels as f64 / filled_pixels as f64;
        let has_dot = dot_pixels > 0 && (limits.min_dot_fraction..=limits.max_dot_fraction).contains(&dot_fraction);
        let margin = limits.edge_margin as usize;
        planes.dilate_filled(margin, has_dot);
        self.convert_window(image, win);
        let (mut surround, marker) = self.levels_bits(image, win);
        if marker - surround < limits.min_contrast {
            surround = self.wide_surround_bits(image, win);
            if marker - surround < limits.min_contrast {
                return Err(RefineReject::LowContrast);
            }
        }
        let mut moments = Moments::new(surround, marker);
        let planes = &self.planes;
        for y in 0..win.height {
            let gray = self.gray_row(image, win, y);
            let (inside, hole, near_dot) = (planes.comp[y] | planes.holes[y], planes.holes[y], planes.near_dot[y]);
            // A 64-bit half at a time, low half first (row-major order kept): `u128`
            // shifts and tests cost several instructions each, per pixel.
            for half in [0, 64] {
                let word = |plane: u128| (plane >> half) as u64;
                let (inside, hole, near_dot) = (word(inside), word(hole), word(near_dot));
                let mut bits = word(planes.near_filled[y]);
                while bits != 0 {
                    let i = bits.trailing_zeros();
                    bits &= bits - 1;
                    let x = half + i as usize;
                    moments.add(x, y, gray[x], hole >> i & 1 != 0, inside >> i & 1 != 0, near_dot >> i & 1 != 0);
                }
            }
        }
        Ok(moments.finish(win, has_dot))
    }

    /// Converts a colour frame's window to grey levels once (a mono8 frame's rows are read
    /// in place).
    fn convert_window(&mut self, image: &ImageView, win: &Window) {
        self.gray.clear();
        if image.encoding() != Encoding::Mono8 {
            for v in win.v0..win.v0 + win.height as u32 {
                image.gray_span(win.u0, v, win.width, &mut self.gray);
            }
        }
    }

    /// Surround and marker levels (see [`Refiner::levels`]) from the bit rows.
    fn levels_bits(&self, image: &ImageView, win: &Window) -> (f64, f64) {
        let planes = &self.planes;
        // Four interleaved histograms: the surround is mostly one level, and counting
        // neighbours into separate bins keeps each increment from waiting on the last.
        let (mut lanes, mut surround_count) = ([[0u32; 4]; 256], 0u32);
        let (mut interior_sum, mut interior_count) = (0u64, 0u64);
        // Blob pixels never sit on the window border (it is padded): the first and last
        // rows hold no interior pixel.
        let across = |c: u128| c & (c << 1) & (c >> 1);
        for y in 0..win.height {
            let gray = self.gray_row(image, win, y);
            let mut surround = planes.near_ring[y] & !(planes.comp[y] | planes.holes[y]);
            surround_count += surround.count_ones();
            let mut lane = 0;
            while surround != 0 {
                lanes[usize::from(gray[surround.trailing_zeros() as usize])][lane & 3] += 1;
                surround &= surround - 1;
                lane += 1;
            }
            if y == 0 || y + 1 == win.height {
                continue;
            }
            let mut interior = across(planes.comp[y - 1]) & across(planes.comp[y]) & across(planes.comp[y + 1]);
            interior_count += u64::from(interior.count_ones());
            while interior != 0 {
                interior_sum += u64::from(gray[interior.trailing_zeros() as usize]);
                interior &= interior - 1;
            }
        }
        let marker = if interior_count > 0 {
            interior_sum as f64 / interior_count as f64
        } else {
            let mut brightest = 0u8;
            for y in 0..win.height {
                let gray = self.gray_row(image, win, y);
                let mut comp = planes.comp[y];
                while comp != 0 {
                    brightest = brightest.max(gray[comp.trailing_zeros() as usize]);
                    comp &= comp - 1;
                }
            }
            f64::from(brightest)
        };
        let histogram: [u32; 256] = std::array::from_fn(|level| lanes[level].iter().sum());
        (plateau_of(&histogram, surround_count), marker)
    }

    /// The wider surround level (see [`Refiner::wide_surround`]) from the bit rows.
    fn wide_surround_bits(&self, image: &ImageView, win: &Window) -> f64 {
        let planes = &self.planes;
        let (mut histogram, mut count) = ([0u32; 256], 0u32);
        for y in 0..win.height {
            let gray = self.gray_row(image, win, y);
            let mut wide = planes.row_mask & !planes.near_ring[y];
            count += wide.count_ones();
            while wide != 0 {
                histogram[usize::from(gray[wide.trailing_zeros() as usize])] += 1;
                wide &= wide - 1;
            }
        }
        median_of(&histogram, count)
    }

    /// [`Refiner::measure`] on a byte mask (windows wider than [`BIT_ROW_WIDTH`]).
    fn measure_bytes(
        &mut self,
        image: &ImageView,
        runs: impl Iterator<Item = Run>,
        win: &Window,
        limits: &RefineLimits,
    ) -> Result<BlobMeasure, RefineReject> {
        let (u0, v0) = (win.u0, win.v0);
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
        self.mark_outside(win);
        let dot_pixels = self.mark_holes(win);
        let filled_pixels = comp_pixels + self.mask.iter().filter(|&&m| m & HOLE != 0).count();
        let dot_fraction = dot_pixels as f64 / filled_pixels as f64;
        let has_dot = dot_pixels > 0 && (limits.min_dot_fraction..=limits.max_dot_fraction).contains(&dot_fraction);
        let margin = limits.edge_margin as usize;
        self.dilate(win, COMP | HOLE, NEAR_FILLED, margin);
        // One more pixel around the margin: a square grown by `margin`, then by 1, is the
        // square grown by `margin + 1` (also where the window clips it).
        self.dilate(win, NEAR_FILLED, NEAR_RING, 1);
        if has_dot {
            self.dilate(win, DOT, NEAR_DOT, margin);
        }
        self.convert_window(image, win);
        let (mut surround, marker) = self.levels(image, win);
        if marker - surround < limits.min_contrast {
            surround = self.wide_surround(image, win);
            if marker - surround < limits.min_contrast {
                return Err(RefineReject::LowContrast);
            }
        }
        Ok(self.weighted_centroids(image, win, surround, marker, has_dot))
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

    /// Surround level ([`plateau_of`] the pixels within the edge margin plus one of the
    /// filled marker, outside it) and marker level (mean of blob pixels whose 8
    /// neighbours are all blob pixels; the brightest blob pixel if none).
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
                if m & (COMP | HOLE) == 0 {
                    if m & NEAR_RING != 0 {
                        histogram[usize::from(level)] += 1;
                        surround_count += 1;
                    }
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
        let surround = plateau_of(&histogram, surround_count);
        (surround, marker)
    }

    /// The wider surround level: the median of the window's pixels beyond the edge margin
    /// plus one of the filled marker (the box padded by two more pixels). Used when the
    /// marker does not stand `min_contrast` above the plateau next to it: that plateau is
    /// then too close to the marker to grade its edge (a dim sticker on a body top seen
    /// at a high resolution, the top only a few pixels wide), and the marker is measured
    /// against, and gated by, where its body lies, as before the plateau.
    fn wide_surround(&self, image: &ImageView, win: &Window) -> f64 {
        let (mut histogram, mut count) = ([0u32; 256], 0u32);
        for y in 0..win.height {
            let gray = self.gray_row(image, win, y);
            for (x, &level) in gray.iter().enumerate() {
                if self.mask[y * win.width + x] & NEAR_RING == 0 {
                    histogram[usize::from(level)] += 1;
                    count += 1;
                }
            }
        }
        median_of(&histogram, count)
    }

    fn weighted_centroids(&self, image: &ImageView, win: &Window, surround: f64, marker: f64, has_dot: bool) -> BlobMeasure {
        let w = win.width;
        let mut moments = Moments::new(surround, marker);
        for y in 0..win.height {
            let gray = self.gray_row(image, win, y);
            for (x, &level) in gray.iter().enumerate() {
                let m = self.mask[y * w + x];
                if m & NEAR_FILLED != 0 {
                    moments.add(x, y, level, m & HOLE != 0, m & (COMP | HOLE) != 0, m & NEAR_DOT != 0);
                }
            }
        }
        moments.finish(win, has_dot)
    }
}

/// The level of rank `count / 2` in `histogram` (0 when empty).
fn median_of(histogram: &[u32; 256], count: u32) -> f64 {
    if count == 0 {
        return 0.0;
    }
    let mid = count / 2;
    let mut below = 0;
    let rank = histogram.iter().position(|&c| {
        below += c;
        below > mid
    });
    rank.map_or(0.0, |level| level as f64)
}

/// The level of the largest plateau among the `count` pixels counted in `histogram`
/// (0 when empty): the median of the pixels in the shortest level interval holding at
/// least half of them (the first such interval from the dark end). Levels spread over a
/// ramp (a marker's blurred rim, a body's rim) never hold half of the pixels in a short
/// interval, a flat surround does: around a marker on a body top a few pixels wider than
/// it, the top's level, where the median of the same pixels falls between the top and
/// the water once the body's rim takes half of them.
fn plateau_of(histogram: &[u32; 256], count: u32) -> f64 {
    if count == 0 {
        return 0.0;
    }
    let half = count.div_ceil(2);
    // Two pointers: for each upper end, the highest lower end still holding half.
    let (mut best, mut low, mut inside) = (None::<(usize, usize)>, 0, 0u32);
    for (high, &c) in histogram.iter().enumerate() {
        inside += c;
        while inside - histogram[low] >= half {
            inside -= histogram[low];
            low += 1;
        }
        if inside >= half && best.is_none_or(|(a, b)| high - low < b - a) {
            best = Some((low, high));
        }
    }
    let Some((low, high)) = best else { return 0.0 };
    let within = &histogram[low..=high];
    let mid = within.iter().sum::<u32>() / 2;
    let mut below = 0;
    let rank = within.iter().position(|&c| {
        below += c;
        below > mid
    });
    rank.map_or(0.0, |level| (low + level) as f64)
}

/// Coverage-weighted sums over the pixels near the filled marker, added in row-major
/// order (the same sums, bit for bit, from either mask layout).
struct Moments {
    surround: f64,
    marker: f64,
    scale: f64,
    sum: f64,
    sum_x: f64,
    sum_y: f64,
    sum_xx: f64,
    sum_xy: f64,
    sum_yy: f64,
    dot_sum: f64,
    dot_x: f64,
    dot_y: f64,
    partial: usize,
}

impl Moments {
    fn new(surround: f64, marker: f64) -> Self {
        Self {
            surround,
            marker,
            scale: 1.0 / (marker - surround),
            sum: 0.0,
            sum_x: 0.0,
            sum_y: 0.0,
            sum_xx: 0.0,
            sum_xy: 0.0,
            sum_yy: 0.0,
            dot_sum: 0.0,
            dot_x: 0.0,
            dot_y: 0.0,
            partial: 0,
        }
    }

    /// Adds window pixel (`x`, `y`) of grey `level`; `hole`: in a hole; `inside_marker`:
    /// blob or hole; `near_dot`: within the margin of the dot.
    #[inline]
    fn add(&mut self, x: usize, y: usize, level: u8, hole: bool, inside_marker: bool, near_dot: bool) {
        let level = f64::from(level);
        let weight = if hole || (inside_marker && near_dot) { 1.0 } else { ((level - self.surround) * self.scale).clamp(0.0, 1.0) };
        // An uncovered pixel (most of the margin) adds +0 to every sum and is no dot pixel
        // (those weigh 1): skipping it leaves the sums bit for bit as they are.
        if weight == 0.0 {
            return;
        }
        self.partial += usize::from(weight > 0.1 && weight < 0.9);
        let (xf, yf) = (x as f64, y as f64);
        self.sum += weight;
        self.sum_x += weight * xf;
        self.sum_y += weight * yf;
        self.sum_xx += weight * xf * xf;
        self.sum_xy += weight * xf * yf;
        self.sum_yy += weight * yf * yf;
        if inside_marker && near_dot {
            let dark = (self.marker - level).max(0.0);
            self.dot_sum += dark;
            self.dot_x += dark * xf;
            self.dot_y += dark * yf;
        }
    }

    fn finish(&self, win: &Window, has_dot: bool) -> BlobMeasure {
        let (u0, v0) = (f64::from(win.u0), f64::from(win.v0));
        let sum = self.sum;
        let dot = (has_dot && self.dot_sum > 0.0).then(|| (u0 + self.dot_x / self.dot_sum, v0 + self.dot_y / self.dot_sum));
        let (mean_x, mean_y) = (self.sum_x / sum, self.sum_y / sum);
        let elongation =
            axis_ratio(self.sum_xx / sum - mean_x * mean_x, self.sum_xy / sum - mean_x * mean_y, self.sum_yy / sum - mean_y * mean_y);
        let edge_width = self.partial as f64 / (2.0 * (std::f64::consts::PI * sum).sqrt()).max(1.0);
        BlobMeasure { u: u0 + mean_x, v: v0 + mean_y, area: sum, dot, contrast: self.marker - self.surround, elongation, edge_width }
    }
}

/// Windows up to this wide are measured on bit rows, px.
const BIT_ROW_WIDTH: usize = 128;

/// Bits `start..end` of a row (`end` <= [`BIT_ROW_WIDTH`]).
#[inline]
fn bit_span(start: u32, end: u32) -> u128 {
    let below = |n: u32| if n >= 128 { u128::MAX } else { (1u128 << n) - 1 };
    below(end) & !below(start)
}

/// The pixel classes of a window as bit rows (bit `x` of row `y`: window pixel (x, y)).
#[derive(Default)]
struct Planes {
    /// Pixels of the row inside the window.
    row_mask: u128,
    comp: Vec<u128>,
    /// Scratch: pixels a fill may enter.
    free: Vec<u128>,
    /// Scratch: a filled region.
    region: Vec<u128>,
    holes: Vec<u128>,
    dot: Vec<u128>,
    near_filled: Vec<u128>,
    near_ring: Vec<u128>,
    near_dot: Vec<u128>,
    /// Scratch: a row-dilated plane.
    spread: Vec<u128>,
}

impl Planes {
    fn reset(&mut self, win: &Window) {
        self.row_mask = bit_span(0, win.width as u32);
        for plane in [&mut self.comp, &mut self.holes, &mut self.dot, &mut self.near_dot] {
            plane.clear();
            plane.resize(win.height, 0);
        }
    }

    /// Marks every enclosed non-blob pixel in `holes` and the largest 4-connected hole
    /// (the first in row-major order among equals) in `dot`; returns its pixel count.
    fn mark_holes(&mut self) -> usize {
        let h = self.comp.len();
        // The outside: non-blob pixels 4-connected to the window border.
        self.free.clear();
        self.free.extend(self.comp.iter().map(|&c| !c & self.row_mask));
        self.region.clear();
        self.region.extend_from_slice(&self.free);
        let edges = 1 | (self.row_mask ^ (self.row_mask >> 1));
        for row in self.region.iter_mut().skip(1).take(h.saturating_sub(2)) {
            *row &= edges;
        }
        flood(&self.free, &mut self.region);
        // Enclosed pixels, cut into holes one at a time from the first remaining pixel.
        let mut any = false;
        for ((hole, free), outside) in self.holes.iter_mut().zip(&mut self.free).zip(&self.region) {
            *hole = *free & !outside;
            *free = *hole;
            any |= *hole != 0;
        }
        if !any {
            return 0;
        }
        let mut best = 0;
        while let Some(y) = self.free.iter().position(|&r| r != 0) {
            self.region.fill(0);
            self.region[y] = self.free[y] & self.free[y].wrapping_neg();
            flood(&self.free, &mut self.region);
            let count: usize = self.region.iter().map(|r| r.count_ones() as usize).sum();
            for (free, region) in self.free.iter_mut().zip(&self.region) {
                *free &= !region;
            }
            if count > best {
                best = count;
                self.dot.copy_from_slice(&self.region);
            }
        }
        best
    }

    /// Sets `near_filled` (blob and holes grown by `margin`), `near_ring` (by
    /// `margin + 1`) and, with a dot, `near_dot` (the dot grown by `margin`).
    fn dilate_filled(&mut self, margin: usize, has_dot: bool) {
        self.region.clear();
        self.region.extend(self.comp.iter().zip(&self.holes).map(|(c, h)| c | h));
        dilate(&self.region, &mut self.near_filled, &mut self.spread, margin, self.row_mask);
        dilate(&self.near_filled, &mut self.near_ring, &mut self.spread, 1, self.row_mask);
        if has_dot {
            dilate(&self.dot, &mut self.near_dot, &mut self.spread, margin, self.row_mask);
        }
    }
}

/// Grows `region` (within `free`) to every pixel of `free` 4-connected to it: row fills
/// swept down, then up and down in turn until a sweep changes nothing. Once filled, a row
/// is whole stretches, so a row whose neighbours add no seed stays as it is (most rows
/// of the later sweeps: no fill computed).
fn flood(free: &[u128], region: &mut [u128]) {
    let h = free.len();
    for y in 0..h {
        let seeds = region[y] | if y > 0 { region[y - 1] & free[y] } else { 0 };
        if seeds != 0 {
            region[y] = row_fill(free[y], seeds);
        }
    }
    loop {
        let mut changed = false;
        for y in (0..h.saturating_sub(1)).rev() {
            let seeds = region[y] | (region[y + 1] & free[y]);
            if seeds != region[y] {
                region[y] = row_fill(free[y], seeds);
                changed = true;
            }
        }
        if !changed {
            return;
        }
        changed = false;
        for y in 1..h {
            let seeds = region[y] | (region[y - 1] & free[y]);
            if seeds != region[y] {
                region[y] = row_fill(free[y], seeds);
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// The stretches of set bits of `free` that hold a bit of `seeds`: upward by the carry
/// of an addition (it runs through the stretch above each seed), downward the same on
/// the bits reversed.
#[inline]
fn row_fill(free: u128, seeds: u128) -> u128 {
    let seeds = seeds & free;
    let up = |m: u128, s: u128| ((m.wrapping_add(s) ^ m) & m) | s;
    up(free, seeds) | up(free.reverse_bits(), seeds.reverse_bits()).reverse_bits()
}

/// `out`: `src` grown by `radius` pixels in every direction (a square), clipped to the window.
fn dilate(src: &[u128], out: &mut Vec<u128>, spread: &mut Vec<u128>, radius: usize, row_mask: u128) {
    let h = src.len();
    spread.clear();
    spread.extend(src.iter().map(|&row| {
        let mut grown = row;
        for k in 1..=radius {
            grown |= row << k | row >> k;
        }
        grown & row_mask
    }));
    out.clear();
    out.extend((0..h).map(|y| spread[y.saturating_sub(radius)..(y + radius + 1).min(h)].iter().fold(0, |a, &r| a | r)));
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
    fn bit_rows_measure_as_the_byte_mask() {
        // Blobs of every shape the detector meets (discs with dots, rings with several
        // holes, bars, blurred edges) measured both ways: bit for bit the same.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
        let (width, height) = (140u32, 90u32);
        let (mut compared, mut dots) = (0, 0);
        for case in 0..300 {
            let mut img = vec![0u8; (width * height) as usize];
            let (cu, cv) = (rng.gen_range(30.0..110.0), rng.gen_range(25.0..65.0));
            let (ru, rv) = (rng.gen_range(1.5..if case % 10 == 0 { 62.0 } else { 22.0 }), rng.gen_range(1.5..20.0));
            let holes: Vec<(f64, f64, f64)> = (0..rng.gen_range(0..4))
                .map(|_| (cu + rng.gen_range(-ru..ru) * 0.6, cv + rng.gen_range(-rv..rv) * 0.6, rng.gen_range(0.5..4.0)))
                .collect();
            for v in 0..height {
                for u in 0..width {
                    let (du, dv) = ((f64::from(u) - cu) / ru, (f64::from(v) - cv) / rv);
                    let r = (du * du + dv * dv).sqrt();
                    let mut level = (200.0 * (1.0 - r).clamp(0.0, 0.15) / 0.15) as u8 + rng.gen_range(0..40);
                    if holes.iter().any(|&(hu, hv, hr)| (f64::from(u) - hu).hypot(f64::from(v) - hv) < hr) {
                        level = rng.gen_range(0..60);
                    }
                    img[(v * width + u) as usize] = level;
                }
            }
            let image = ImageView::new(width, height, width, "mono8", &img).unwrap();
            let mut components = Components::default();
            components.label(&image, &TileThresholds::uniform(width, height, 128), &[]);
            for blob in components.blobs() {
                if blob.u_min == 0 || blob.v_min == 0 || blob.u_max + 1 >= width || blob.v_max + 1 >= height {
                    continue;
                }
                let bounds = (blob.u_min, blob.u_max, blob.v_min, blob.v_max);
                let win = Window::around(&image, bounds, &LIMITS);
                let mut refiner = Refiner::default();
                let bytes = refiner.measure_bytes(&image, components.blob_runs(blob), &win, &LIMITS);
                if win.width <= BIT_ROW_WIDTH {
                    let bits = refiner.measure_bits(&image, components.blob_runs(blob), &win, &LIMITS);
                    assert_eq!(format!("{bits:?}"), format!("{bytes:?}"), "case {case}, blob {blob:?}");
                    compared += 1;
                    dots += usize::from(bits.is_ok_and(|m| m.dot.is_some()));
                }
            }
        }
        assert!(compared > 300 && dots > 30, "{compared} compared, {dots} with a dot");
    }

    #[test]
    fn row_fill_takes_the_seeded_stretches() {
        let free = 0b0111_0110_1110u128 | 0b11 << 126;
        assert_eq!(row_fill(free, 0b100_0000), 0b110_0000);
        assert_eq!(row_fill(free, 0b1010_0000_0100), 0b0111_0000_1110);
        assert_eq!(row_fill(free, 1 << 127), 0b11 << 126);
        assert_eq!(row_fill(free, 0b1_0001), 0);
    }

    #[test]
    fn plateau_of_is_the_flat_level_not_the_median() {
        // Around a marker on a body top a few pixels wider than it: 35 pixels of the top
        // (139), 30 of the body's rim (60..=118), 25 of water (54) and 10 of the marker's
        // own blurred rim (150..=240). The median (rank 50) falls on the body's rim.
        let mut histogram = [0u32; 256];
        histogram[139] = 35;
        histogram[54] = 25;
        for level in (60..120).step_by(2) {
            histogram[level] += 1;
        }
        for level in (150..250).step_by(10) {
            histogram[level] += 1;
        }
        let count = histogram.iter().sum();
        assert_eq!(count, 100);
        let mut below = 0;
        let median = histogram.iter().position(|&c| {
            below += c;
            below > 50
        });
        assert_eq!(median, Some(110));
        assert_eq!(plateau_of(&histogram, count), 139.0);
        // Noise spreads the plateau: still its middle.
        let mut noisy = [0u32; 256];
        for (level, c) in [(133, 3), (136, 9), (139, 16), (142, 9), (145, 3), (54, 20), (100, 10), (200, 10)] {
            noisy[level] = c;
        }
        assert_eq!(plateau_of(&noisy, noisy.iter().sum()), 139.0);
        // One level; nothing.
        let mut flat = [0u32; 256];
        flat[55] = 9;
        assert_eq!(plateau_of(&flat, 9), 55.0);
        assert_eq!(plateau_of(&[0; 256], 0), 0.0);
    }

    #[test]
    fn a_marker_on_a_narrow_top_is_measured_against_the_top() {
        // A 245 disc of radius 5.8 px on a 139 top of radius 11.5 px on water at 54 (a
        // ball at 512^2), blurred by a 3 x 3 box as resampling does, at sub-pixel offsets:
        // the surround is the top, so the contrast is the sticker's over the top and the
        // flat top adds no partial coverage (the surround was the median of the padded
        // box, whose corners reach the ball's rim and the water: contrast up to 117 and
        // edge width up to 3.9 px at some offsets).
        let size = 40usize;
        for step in 0..16 {
            let (cu, cv) = (19.5 + f64::from(step % 4) * 0.25, 19.5 + f64::from(step / 4) * 0.25);
            let sample = |u: f64, v: f64| {
                let r = (u - cu).hypot(v - cv);
                if r < 5.8 {
                    245.0
                } else if r < 11.5 {
                    139.0
                } else {
                    54.0
                }
            };
            // 8 x 8 sub-samples per pixel, then the box blur.
            let sharp: Vec<f64> = (0..size * size)
                .map(|i| {
                    let (u, v) = ((i % size) as f64, (i / size) as f64);
                    (0..64).map(|s| sample(u - 0.4375 + f64::from(s % 8) * 0.125, v - 0.4375 + f64::from(s / 8) * 0.125)).sum::<f64>()
                        / 64.0
                })
                .collect();
            let pixels = crate::detect::box_blurred(&sharp, size, size);
            let image = ImageView::new(size as u32, size as u32, size as u32, "mono8", &pixels).unwrap();
            let mut components = Components::default();
            components.label(&image, &TileThresholds::uniform(size as u32, size as u32, 192), &[]);
            let blob = components.blobs()[0];
            let m = Refiner::default()
                .measure(&image, components.blob_runs(&blob), (blob.u_min, blob.u_max, blob.v_min, blob.v_max), &LIMITS)
                .unwrap();
            assert!((m.contrast - (245.0 - 139.0)).abs() < 3.0, "offset {step}: {m:?}");
            assert!(m.edge_width < 2.5, "offset {step}: {m:?}");
            assert!((m.u - cu).abs() < 0.05 && (m.v - cv).abs() < 0.05, "offset {step}: {m:?}");
        }
    }

    #[test]
    fn low_contrast_is_rejected() {
        let mut img = vec![120u8; 100];
        img[55] = 130;
        assert_eq!(measure(10, 10, &img), Err(RefineReject::LowContrast));
    }
}
