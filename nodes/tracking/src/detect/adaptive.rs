//! Detection that adapts to the scene's light.
//!
//! 1. [`Illumination`]: a background level per [`TILE`] x [`TILE`] tile (a low percentile
//!    of a sparse sample of the tile, then the median of the 3 x 3 tiles around it, so
//!    markers and bodies covering a tile do not count), refreshed a quarter of the tile
//!    rows per frame. Candidates are whatever
//!    stands `candidate_contrast` above its tile's background: a marker with its body top,
//!    a glint, a reflection. Tiles that cannot hold a marker (outside the detection
//!    region) are not read at all.
//! 2. [`Splitter`]: each candidate is cut at its own level: Otsu's threshold between its
//!    dark class (body top, blurred rim) and its bright class (the marker), with
//!    hysteresis: blobs grow down to halfway between the threshold and the dark class but
//!    must reach the threshold somewhere. The marker level is thus measured on the marker
//!    itself, wherever it sits in a vignetted, graded or dimmed frame.

use super::components::{Components, Run, RunScanner, TileThresholds, SKIP_CHUNK, TILE, TILE_OFF};
use crate::frame::ImageView;

/// Sparse sampling step inside a tile, px (an 8 x 8 sample of a 32 px tile).
pub const SAMPLE_STEP: usize = 4;
/// Background samples along a tile side.
pub const SAMPLES_PER_SIDE: usize = TILE / SAMPLE_STEP;
/// Percentile of a tile's samples taken as its background: markers and bodies may cover
/// up to three quarters of a tile.
const BACKGROUND_PERCENTILE: f64 = 0.25;
/// Tile rows refreshed per frame: one in this many, in turn.
const REFRESH_STRIDE: usize = 4;

/// Per-tile background levels and the candidate thresholds derived from them.
#[derive(Default)]
pub struct Illumination {
    /// Tiles that can hold a marker (inside the region, grown by a marker).
    active: Vec<bool>,
    /// Per tile, which of its 8 x 8 background samples see the region itself (bit
    /// `row * 8 + column`): the floor beyond the wall is not the water's background.
    sample_masks: Vec<u64>,
    /// Background level per tile, 8-bit levels.
    background: Vec<f32>,
    thresholds: TileThresholds,
    /// Frames since the model was (re)built.
    frames: usize,
    /// The contrast of the last thresholds, 8-bit levels.
    contrast: Option<f64>,
    samples: Vec<u8>,
    /// Per tile, whether the last refresh changed its background.
    changed: Vec<bool>,
}

impl Illumination {
    /// Starts over for an image of `width` x `height` px in which only `active` tiles
    /// (row-major, [`TILE`] px) are looked at.
    /// `sample_masks` says which samples of each tile are background (all: `u64::MAX`).
    pub fn reset(&mut self, width: u32, height: u32, active: Vec<bool>, sample_masks: Vec<u64>) {
        let (columns, rows) = ((width as usize).div_ceil(TILE), (height as usize).div_ceil(TILE));
        debug_assert_eq!(active.len(), columns * rows);
        debug_assert_eq!(sample_masks.len(), columns * rows);
        self.active = active;
        self.sample_masks = sample_masks;
        self.background = vec![0.0; columns * rows];
        self.changed = vec![false; columns * rows];
        self.thresholds = TileThresholds { columns, rows, values: vec![TILE_OFF; columns * rows] };
        self.frames = 0;
        self.contrast = None;
    }

    /// True once [`Illumination::reset`] was called for this size.
    pub fn fits(&self, width: u32, height: u32) -> bool {
        self.thresholds.columns == (width as usize).div_ceil(TILE) && self.thresholds.rows == (height as usize).div_ceil(TILE)
    }

    /// Refreshes part of the background from `image` (all of it on the first frame) and
    /// returns the candidate thresholds: background + `contrast` levels.
    pub fn update(&mut self, image: &ImageView, contrast: f64) -> &TileThresholds {
        let (columns, rows) = (self.thresholds.columns, self.thresholds.rows);
        let (width, height) = (image.width() as usize, image.height() as usize);
        // Thresholds change only where the background did: all on the first frame (or for
        // a new contrast), else the tile rows next to the refreshed ones.
        let phase = self.frames % REFRESH_STRIDE;
        let everything = self.frames == 0 || self.contrast != Some(contrast);
        let refreshed = |row: usize| everything || row % REFRESH_STRIDE == phase;
        self.changed.fill(everything);
        for row in 0..rows {
            if !refreshed(row) {
                continue;
            }
            for column in 0..columns {
                let t = row * columns + column;
                if !self.active[t] || self.sample_masks[t] == 0 {
                    continue;
                }
                self.samples.clear();
                let (u0, v0) = (column * TILE, row * TILE);
                for (j, v) in (v0 + SAMPLE_STEP / 2..(v0 + TILE).min(height)).step_by(SAMPLE_STEP).enumerate() {
                    for (i, u) in (u0 + SAMPLE_STEP / 2..(u0 + TILE).min(width)).step_by(SAMPLE_STEP).enumerate() {
                        if self.sample_masks[t] & (1 << (j * SAMPLES_PER_SIDE + i)) != 0 {
                            self.samples.push(image.gray(u as u32, v as u32));
                        }
                    }
                }
                if self.samples.is_empty() {
                    continue;
                }
                let k = ((self.samples.len() - 1) as f64 * BACKGROUND_PERCENTILE) as usize;
                let level = f32::from(kth_smallest(&self.samples, k));
                self.changed[t] |= level != self.background[t];
                self.background[t] = level;
            }
        }
        // A body can cover a whole tile, never most of the 3 x 3 around it; the median
        // (not the least) keeps a darker floor beyond the wall out of the water's tiles.
        let mut around = [0f32; 9];
        for row in 0..rows {
            if !(row.saturating_sub(1)..(row + 2).min(rows)).any(refreshed) {
                continue;
            }
            for column in 0..columns {
                let t = row * columns + column;
                if !self.active[t] {
                    continue;
                }
                // A median of the same levels is the same level (a static scene's
                // backgrounds rarely change).
                let around_changed = (row.saturating_sub(1)..(row + 2).min(rows))
                    .any(|r| self.changed[r * columns + column.saturating_sub(1)..r * columns + (column + 2).min(columns)].contains(&true));
                if !around_changed {
                    continue;
                }
                let mut n = 0;
                for r in row.saturating_sub(1)..(row + 2).min(rows) {
                    for c in column.saturating_sub(1)..(column + 2).min(columns) {
                        if self.active[r * columns + c] && self.sample_masks[r * columns + c] != 0 {
                            around[n] = self.background[r * columns + c];
                            n += 1;
                        }
                    }
                }
                if n == 0 {
                    continue;
                }
                let level = *around[..n].select_nth_unstable_by(n / 2, f32::total_cmp).1;
                self.thresholds.values[t] = (f64::from(level) + contrast).ceil().clamp(1.0, 255.0) as u16;
            }
        }
        self.frames += 1;
        self.contrast = Some(contrast);
        &self.thresholds
    }

    /// The candidate thresholds of the last update.
    pub fn thresholds(&self) -> &TileThresholds {
        &self.thresholds
    }
}

/// The `k`-th smallest (from 0) of `levels`: the least level with
/// more than `k` levels at or below it, found by bisection, each step one vectorised count
/// (a general selection, or a histogram of a mostly uniform tile whose increments wait on
/// each other, costs several times more on a tile's 64 samples).
/// At most 255 levels (a byte counts them, so the count vectorises 16 or 32 at a time).
fn kth_smallest(levels: &[u8], k: usize) -> u8 {
    debug_assert!(levels.len() <= 255 && k < levels.len());
    let (mut low, mut high) = (0u8, 255u8);
    while low < high {
        let mid = low + (high - low) / 2;
        if usize::from(levels.iter().fold(0u8, |n, &l| n.wrapping_add(u8::from(l <= mid)))) > k {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    low
}

/// Levels of one candidate after the split, 8-bit levels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SplitLevels {
    /// Mean of the dark class (body top, blurred rim).
    pub dark: f64,
    /// Mean of the bright class (the marker).
    pub bright: f64,
    /// Seed threshold: a marker blob must reach it.
    pub high: u8,
    /// Growth threshold: a marker blob extends over connected pixels at or above it.
    pub low: u8,
}

/// Cuts candidates into marker blobs. Reuses its buffers.
#[derive(Default)]
pub struct Splitter {
    /// Four interleaved 256-bin histograms: a candidate's pixels often share a level
    /// (a saturated marker), and counting neighbours into separate bins keeps each
    /// increment from waiting on the previous one.
    partial: Vec<[u32; 4]>,
    /// Histogram of the candidate of the last [`Splitter::levels`], pixels per level.
    histogram: Vec<u32>,
    /// Growth level of the last cut, 8-bit level.
    cut_low: u8,
    blobs: Components,
}

/// Pixels a histogram copy costs about as much as counting: below this margin a blob's
/// histogram is counted, not derived from its parent's.
const DERIVE_MARGIN: u32 = 128;

impl Splitter {
    /// Splits the candidate made of `runs` (sorted by row, with their pixels' grey
    /// levels: a slice at least as long as the run, levels past its end ignored); a candidate whose pixels all share one level stays whole. The marker
    /// blobs are in [`Splitter::blobs`]; `None` for an empty candidate.
    pub fn split<'a>(&mut self, runs: impl Iterator<Item = (Run, &'a [u8])> + Clone) -> Option<SplitLevels> {
        let levels = self.levels(runs.clone())?;
        self.cut(runs, levels);
        Some(levels)
    }

    /// The levels [`Splitter::split`] would cut the candidate made of `runs` at, without
    /// cutting it: a caller that may not need the blobs decides on these first.
    pub fn levels<'a>(&mut self, runs: impl Iterator<Item = (Run, &'a [u8])>) -> Option<SplitLevels> {
        self.partial.clear();
        self.partial.resize(256, [0; 4]);
        for (run, levels) in runs {
            let mut quads = levels[..(run.end - run.start) as usize].chunks_exact(4);
            for quad in &mut quads {
                for (lane, &level) in quad.iter().enumerate() {
                    self.partial[usize::from(level)][lane] += 1;
                }
            }
            for &level in quads.remainder() {
                self.partial[usize::from(level)][0] += 1;
            }
        }
        self.histogram.clear();
        self.histogram.extend(self.partial.iter().map(|lanes| lanes.iter().sum::<u32>()));
        self.histogram_levels()
    }

    /// [`Splitter::levels`] of blob `index` of `parent`'s last cut, made of `runs`. Every
    /// pixel of the parent's candidate at or above its cut's growth level lies in exactly
    /// one blob of the cut, so the blob's histogram is the parent's from that level up
    /// less the other blobs' pixels: counted that way when they are fewer (a large blob
    /// cut again, a marker on its body top), the same counts either way.
    pub(crate) fn levels_within<'a>(
        &mut self,
        parent: &Splitter,
        index: usize,
        runs: impl Iterator<Item = (Run, &'a [u8])>,
    ) -> Option<SplitLevels> {
        let blobs = parent.blobs.blobs();
        let pixels = blobs[index].pixels;
        let others = blobs.iter().map(|b| b.pixels).sum::<u32>() - pixels;
        if others + DERIVE_MARGIN >= pixels {
            return self.levels(runs);
        }
        self.histogram.clear();
        self.histogram.extend_from_slice(&parent.histogram);
        self.histogram[..usize::from(parent.cut_low)].fill(0);
        for (i, other) in blobs.iter().enumerate() {
            if i != index {
                for (_, levels) in parent.blobs.blob_run_levels(other) {
                    for &level in levels {
                        self.histogram[usize::from(level)] -= 1;
                    }
                }
            }
        }
        debug_assert_eq!(self.histogram.iter().sum::<u32>(), pixels);
        self.histogram_levels()
    }

    /// Otsu's levels of the histogram in `self.histogram`; one level for a single-level one.
    fn histogram_levels(&self) -> Option<SplitLevels> {
        match otsu(&self.histogram) {
            Some(levels) => Some(levels),
            None => {
                let level = self.histogram.iter().position(|&c| c > 0)?;
                Some(SplitLevels { dark: level as f64, bright: level as f64, high: level as u8, low: level as u8 })
            }
        }
    }

    /// Cuts the candidate made of `runs` at `levels` (from [`Splitter::levels`] on the same runs).
    pub fn cut<'a>(&mut self, runs: impl Iterator<Item = (Run, &'a [u8])>, levels: SplitLevels) {
        self.cut_low = levels.low;
        self.blobs.label_runs(|set| {
            for (run, row) in runs {
                let len = (run.end - run.start) as usize;
                let mut push = |start: usize, end: usize| {
                    set.push_from(Run { v: run.v, start: run.start + start as u32, end: run.start + end as u32 }, &row[start..]);
                };
                let mut scanner = RunScanner::default();
                let mut base = 0;
                while base < len {
                    scanner.scan_padded(&row[base..], (len - base).min(SKIP_CHUNK), base, levels.low, &mut push);
                    base += SKIP_CHUNK;
                }
                scanner.close(len, &mut push);
            }
        });
    }

    /// The marker blobs of the last split (check [`super::Blob::peak`] against the seed level).
    pub fn blobs(&self) -> &Components {
        &self.blobs
    }
}

/// Otsu's threshold of a 256-bin histogram with the means of both classes and the
/// hysteresis levels; `None` when all pixels share one level.
fn otsu(histogram: &[u32]) -> Option<SplitLevels> {
    // Pixel counts and level sums are integers (far below 2^53): summed as integers and
    // converted, they are the same numbers as summed in f64, for fewer instructions.
    let (total, sum_all) =
        histogram.iter().enumerate().fold((0u64, 0u64), |(n, sum), (level, &c)| (n + u64::from(c), sum + level as u64 * u64::from(c)));
    let (mut weight_dark, mut sum_dark) = (0u64, 0u64);
    let mut best: Option<(f64, usize, f64, f64)> = None;
    for (level, &count) in histogram.iter().enumerate().take(255) {
        // An empty level repeats the previous level's classes exactly, and a tie never
        // replaces the best cut: skipping it changes nothing.
        if count == 0 {
            continue;
        }
        weight_dark += u64::from(count);
        sum_dark += level as u64 * u64::from(count);
        // Nothing brighter: every later level is empty.
        if weight_dark == total {
            break;
        }
        let (weight_dark, weight_bright) = (weight_dark as f64, (total - weight_dark) as f64);
        let (dark, bright) = (sum_dark as f64 / weight_dark, (sum_all - sum_dark) as f64 / weight_bright);
        let between = weight_dark * weight_bright * (bright - dark).powi(2);
        if best.is_none_or(|(b, ..)| between > b) {
            best = Some((between, level, dark, bright));
        }
    }
    let (_, level, dark, bright) = best?;
    let high = (level + 1) as u8;
    let low = ((f64::from(high) + dark) / 2.0).ceil().clamp(1.0, f64::from(high)) as u8;
    Some(SplitLevels { dark, bright, high, low })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kth_smallest_matches_a_sort() {
        let mut noise = 7u32;
        for len in [1usize, 2, 5, 16, 63, 64, 255] {
            for spread in [1u32, 3, 40, 256] {
                let levels: Vec<u8> = (0..len)
                    .map(|_| {
                        noise = noise.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        (100 + (noise >> 16) % spread).min(255) as u8
                    })
                    .collect();
                let mut sorted = levels.clone();
                sorted.sort_unstable();
                for (k, &expected) in sorted.iter().enumerate() {
                    assert_eq!(kth_smallest(&levels, k), expected, "len {len}, spread {spread}, k {k}");
                }
            }
        }
    }

    #[test]
    fn otsu_splits_two_levels_and_sets_hysteresis() {
        // 60 pixels at 100 (a body top), 40 at 200 (the marker).
        let mut histogram = vec![0u32; 256];
        histogram[100] = 60;
        histogram[200] = 40;
        let levels = otsu(&histogram).unwrap();
        assert_eq!((levels.dark, levels.bright), (100.0, 200.0));
        // Every cut in 100..200 separates the classes equally well; the first is kept.
        assert_eq!(levels.high, 101);
        assert_eq!(levels.low, 101);
        let mut flat = vec![0u32; 256];
        flat[77] = 10;
        assert!(otsu(&flat).is_none());
    }

    #[test]
    fn a_dim_marker_on_a_dim_top_is_cut_at_its_own_level() {
        // A 12 x 12 "top" at 60 with a 6 x 6 "marker" at 110 (a dimmed scene where a fixed
        // threshold of 180 sees nothing), on water at 20.
        let mut pixels = vec![20u8; 20 * 20];
        for v in 4..16 {
            for u in 4..16 {
                pixels[v * 20 + u] = if (7..13).contains(&v) && (7..13).contains(&u) { 110 } else { 60 };
            }
        }
        let image = ImageView::new(20, 20, 20, "mono8", &pixels).unwrap();
        let mut illumination = Illumination::default();
        illumination.reset(20, 20, vec![true], vec![u64::MAX]);
        let thresholds = illumination.update(&image, 25.0).clone();
        // Background: the 25th percentile of the samples is water (20): threshold 45.
        assert_eq!(thresholds.values, vec![45]);
        let mut candidates = Components::default();
        candidates.label(&image, &thresholds, &[]);
        assert_eq!(candidates.blobs().len(), 1);
        assert_eq!(candidates.blobs()[0].pixels, 144);
        let mut splitter = Splitter::default();
        let blob = candidates.blobs()[0];
        let levels = splitter.split(candidates.blob_run_levels(&blob)).unwrap();
        assert_eq!((levels.dark, levels.bright), (60.0, 110.0));
        let markers = splitter.blobs().blobs();
        assert_eq!(markers.len(), 1);
        assert_eq!((markers[0].pixels, markers[0].u_min, markers[0].v_max), (36, 7, 12));
    }
}
