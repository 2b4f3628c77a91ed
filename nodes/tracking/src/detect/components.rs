//! Thresholding and 8-connected component labelling on horizontal runs: each row is
//! reduced to runs of bright pixels, and runs that touch between consecutive rows are
//! joined with a union-find (the row/column continuity idea of SPEC 3, done exactly).
//! The threshold is set per square tile of [`TILE`] pixels (the illumination model), and
//! a tile can be left out altogether (outside the detection region).

use crate::frame::{luma, Encoding, ImageView};

/// Side of a threshold tile, px; also the chunk tested at once when skipping dark
/// stretches of a row.
pub const TILE: usize = 32;
const SKIP_CHUNK: usize = TILE;
/// Threshold of a tile that is not looked at (above every 8-bit level).
pub const TILE_OFF: u16 = 256;

/// One threshold per [`TILE`] x [`TILE`] tile, 8-bit level ([`TILE_OFF`]: tile skipped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TileThresholds {
    /// Tiles per row.
    pub columns: usize,
    /// Tile rows.
    pub rows: usize,
    /// Row-major thresholds, 8-bit levels (or [`TILE_OFF`]).
    pub values: Vec<u16>,
}

impl TileThresholds {
    /// The same threshold everywhere in a `width` x `height` image.
    pub fn uniform(width: u32, height: u32, threshold: u8) -> Self {
        let (columns, rows) = ((width as usize).div_ceil(TILE).max(1), (height as usize).div_ceil(TILE).max(1));
        Self { columns, rows, values: vec![u16::from(threshold); columns * rows] }
    }

    /// The thresholds of the tiles crossed by image row `v`.
    pub fn row(&self, v: u32) -> &[u16] {
        let r = (v as usize / TILE).min(self.rows.saturating_sub(1));
        &self.values[r * self.columns..(r + 1) * self.columns]
    }
}

/// A horizontal stretch of bright pixels `start..end` in row `v`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// Row, px.
    pub v: u32,
    /// First column, px.
    pub start: u32,
    /// One past the last column, px.
    pub end: u32,
}

/// A connected set of runs with its bounding box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blob {
    /// Smallest column, px.
    pub u_min: u32,
    /// Largest column, px.
    pub u_max: u32,
    /// Smallest row, px.
    pub v_min: u32,
    /// Largest row, px.
    pub v_max: u32,
    /// Bright pixel count.
    pub pixels: u32,
    /// Brightest grey level in the blob, 8-bit level.
    pub peak: u8,
    /// Range of this blob's runs in [`Components::blob_runs`].
    runs: (u32, u32),
}

/// Reusable labeller: buffers grow to the largest frame seen and are then reused.
#[derive(Default)]
pub struct Components {
    runs: Vec<Run>,
    /// Brightest level of each run.
    peaks: Vec<u8>,
    parent: Vec<u32>,
    gray_row: Vec<u8>,
    blobs: Vec<Blob>,
    run_order: Vec<u32>,
    blob_of_root: Vec<u32>,
}

impl Components {
    /// Labels the pixels of `image` whose grey level is at or above their tile's
    /// threshold, looking only at columns `spans[v].0..spans[v].1` of each row `v` (all
    /// columns when `spans` is shorter than the image).
    pub fn label(&mut self, image: &ImageView, thresholds: &TileThresholds, spans: &[(u32, u32)]) {
        self.runs.clear();
        self.peaks.clear();
        self.parent.clear();
        let mut previous_row = 0..0;
        for v in 0..image.height() {
            let row_start = self.runs.len();
            let tiles = thresholds.row(v);
            let (lo, hi) = spans.get(v as usize).map_or((0, image.width() as usize), |&(lo, hi)| (lo as usize, hi as usize));
            if lo < hi {
                // Whole tiles, so that chunks stay aligned with their thresholds.
                let (lo, hi) = (lo / TILE * TILE, hi.div_ceil(TILE).saturating_mul(TILE).min(image.width() as usize));
                let gray = match image.encoding() {
                    Encoding::Mono8 => &image.row(v)[lo..hi],
                    encoding => {
                        let bytes = encoding.bytes_per_pixel() as usize;
                        colour_row_to_gray(&image.row(v)[lo * bytes..hi * bytes], encoding, &tiles[lo / TILE..], &mut self.gray_row);
                        &self.gray_row
                    }
                };
                push_runs(gray, v, lo as u32, &tiles[lo / TILE..], &mut self.runs, &mut self.peaks);
            }
            for i in row_start..self.runs.len() {
                self.parent.push(i as u32);
            }
            self.join_rows(previous_row.clone(), row_start..self.runs.len());
            previous_row = row_start..self.runs.len();
        }
        self.collect_blobs();
    }

    /// Labels ready-made runs (sorted by row, then column, not overlapping) with the
    /// brightest level of each.
    pub fn label_runs(&mut self, runs: &[Run], peaks: &[u8]) {
        self.runs.clear();
        self.runs.extend_from_slice(runs);
        self.peaks.clear();
        self.peaks.extend_from_slice(peaks);
        self.parent.clear();
        self.parent.extend(0..runs.len() as u32);
        let (mut previous_row, mut start) = (0..0, 0);
        while start < runs.len() {
            let v = runs[start].v;
            let end = start + runs[start..].iter().take_while(|r| r.v == v).count();
            if previous_row.end > previous_row.start && runs[previous_row.start].v + 1 == v {
                self.join_rows(previous_row.clone(), start..end);
            }
            previous_row = start..end;
            start = end;
        }
        self.collect_blobs();
    }

    /// The blobs of the last labelled frame.
    pub fn blobs(&self) -> &[Blob] {
        &self.blobs
    }

    /// The runs of one blob.
    pub fn blob_runs<'a>(&'a self, blob: &Blob) -> impl Iterator<Item = Run> + Clone + 'a {
        self.run_order[blob.runs.0 as usize..blob.runs.1 as usize].iter().map(|&i| self.runs[i as usize])
    }

    /// Unions runs of the current row with 8-connected runs of the previous row.
    fn join_rows(&mut self, previous: std::ops::Range<usize>, current: std::ops::Range<usize>) {
        let (mut p, mut c) = (previous.start, current.start);
        while p < previous.end && c < current.end {
            let (above, here) = (self.runs[p], self.runs[c]);
            // 8-connectivity: the columns overlap once each run is widened by one pixel.
            if above.start <= here.end && above.end >= here.start {
                self.union(p as u32, c as u32);
            }
            // Advance whichever run ends first; the other may touch the next one.
            if above.end < here.end {
                p += 1;
            } else {
                c += 1;
            }
        }
    }

    fn find(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let grandparent = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = grandparent;
            i = grandparent;
        }
        i
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[high as usize] = low;
        }
    }

    /// Groups runs by root into blobs with bounding boxes (counting sort by blob).
    fn collect_blobs(&mut self) {
        self.blobs.clear();
        self.blob_of_root.clear();
        self.blob_of_root.resize(self.runs.len(), u32::MAX);
        let mut blob_of_run = Vec::with_capacity(self.runs.len());
        for i in 0..self.runs.len() {
            let root = self.find(i as u32) as usize;
            if self.blob_of_root[root] == u32::MAX {
                self.blob_of_root[root] = self.blobs.len() as u32;
                let run = self.runs[i];
                self.blobs.push(Blob {
                    u_min: run.start,
                    u_max: run.end - 1,
                    v_min: run.v,
                    v_max: run.v,
                    pixels: 0,
                    peak: 0,
                    runs: (0, 0),
                });
            }
            let b = self.blob_of_root[root];
            blob_of_run.push(b);
            let run = self.runs[i];
            let blob = &mut self.blobs[b as usize];
            blob.u_min = blob.u_min.min(run.start);
            blob.u_max = blob.u_max.max(run.end - 1);
            blob.v_max = blob.v_max.max(run.v);
            blob.pixels += run.end - run.start;
            blob.peak = blob.peak.max(self.peaks[i]);
            blob.runs.1 += 1;
        }
        let mut offset = 0;
        for blob in &mut self.blobs {
            let count = blob.runs.1;
            blob.runs = (offset, offset);
            offset += count;
        }
        self.run_order.clear();
        self.run_order.resize(self.runs.len(), 0);
        for (i, &b) in blob_of_run.iter().enumerate() {
            let blob = &mut self.blobs[b as usize];
            self.run_order[blob.runs.1 as usize] = i as u32;
            blob.runs.1 += 1;
        }
    }
}

/// Converts a colour row to grey, writing 0 for whole chunks whose every byte is below
/// the tile's threshold (luma is a weighted mean of the channels, so it is below too) and
/// for tiles left out.
fn colour_row_to_gray(row: &[u8], encoding: Encoding, tiles: &[u16], out: &mut Vec<u8>) {
    out.resize(row.len() / 3, 0);
    for ((chunk, gray), &threshold) in row.chunks(3 * SKIP_CHUNK).zip(out.chunks_mut(SKIP_CHUNK)).zip(tiles) {
        if threshold >= TILE_OFF || u16::from(luma_bound(chunk, encoding)) < threshold {
            gray.fill(0);
            continue;
        }
        for (px, g) in chunk.chunks_exact(3).zip(gray.iter_mut()) {
            *g = match encoding {
                Encoding::Bgr8 => luma(px[2], px[1], px[0]),
                _ => luma(px[0], px[1], px[2]),
            };
        }
    }
}

/// An upper bound of the luma of every pixel of a colour chunk: the luma of the
/// per-channel maxima (tighter than the largest byte on coloured backgrounds such as
/// blue water, whose blue channel alone would cross a low threshold).
fn luma_bound(chunk: &[u8], encoding: Encoding) -> u8 {
    let mut max = [0u8; 3];
    for px in chunk.chunks_exact(3) {
        for (m, &b) in max.iter_mut().zip(px) {
            *m = (*m).max(b);
        }
    }
    match encoding {
        Encoding::Bgr8 => luma(max[2], max[1], max[0]),
        _ => luma(max[0], max[1], max[2]),
    }
}

/// Appends the runs of pixels at or above their tile's threshold in one grey row (or the
/// part of it from column `offset`, a multiple of [`TILE`]), with the brightest level of
/// each run.
fn push_runs(row: &[u8], v: u32, offset: u32, tiles: &[u16], runs: &mut Vec<Run>, peaks: &mut Vec<u8>) {
    let n = row.len();
    let above = |u: usize| u16::from(row[u]) >= tiles[u / SKIP_CHUNK];
    let mut u = 0;
    while u < n {
        // Skip dark pixels, a whole chunk at a time where possible.
        while u < n && !above(u) {
            let threshold = tiles[u / SKIP_CHUNK];
            if u % SKIP_CHUNK == 0
                && u + SKIP_CHUNK <= n
                && (threshold >= TILE_OFF || u16::from(row[u..u + SKIP_CHUNK].iter().fold(0u8, |m, &b| m.max(b))) < threshold)
            {
                u += SKIP_CHUNK;
            } else {
                u += 1;
            }
        }
        if u >= n {
            break;
        }
        let start = u;
        let mut peak = 0u8;
        while u < n && above(u) {
            peak = peak.max(row[u]);
            u += 1;
        }
        runs.push(Run { v, start: offset + start as u32, end: offset + u as u32 });
        peaks.push(peak);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(rows: &[&str]) -> Components {
        let width = rows[0].len() as u32;
        let data: Vec<u8> = rows.iter().flat_map(|r| r.bytes().map(|b| if b == b'#' { 255 } else { 0 })).collect();
        let image = ImageView::new(width, rows.len() as u32, width, "mono8", &data).unwrap();
        let mut c = Components::default();
        c.label(&image, &TileThresholds::uniform(width, rows.len() as u32, 128), &[]);
        c
    }

    #[test]
    fn diagonal_pixels_join_and_separate_blobs_do_not() {
        let c = label(&["#....##.", ".#...##.", "..#.....", "......#."]);
        let blobs = c.blobs();
        assert_eq!(blobs.len(), 3);
        assert_eq!((blobs[0].pixels, blobs[0].u_min, blobs[0].u_max, blobs[0].v_min, blobs[0].v_max), (3, 0, 2, 0, 2));
        assert_eq!((blobs[1].pixels, blobs[1].u_min, blobs[1].v_max), (4, 5, 1));
        assert_eq!(blobs[2].pixels, 1);
    }

    #[test]
    fn u_shape_merges_into_one_blob() {
        // Two arms joined only at the bottom: labels must merge late.
        let c = label(&["#...#", "#...#", "#####"]);
        assert_eq!(c.blobs().len(), 1);
        assert_eq!(c.blobs()[0].pixels, 9);
        let runs: Vec<Run> = c.blob_runs(&c.blobs()[0]).collect();
        assert_eq!(runs.len(), 5);
        assert_eq!(runs.iter().map(|r| r.end - r.start).sum::<u32>(), 9);
    }

    #[test]
    fn long_rows_use_chunk_skipping_correctly() {
        let mut row = vec![0u8; 100];
        row[31] = 200;
        row[32] = 200;
        row[99] = 200;
        let (mut runs, mut peaks) = (Vec::new(), Vec::new());
        push_runs(&row, 0, 0, &[128; 4], &mut runs, &mut peaks);
        assert_eq!(runs, vec![Run { v: 0, start: 31, end: 33 }, Run { v: 0, start: 99, end: 100 }]);
        assert_eq!(peaks, vec![200, 200]);
        // Tiles left out and tiles with their own threshold.
        let (mut runs, mut peaks) = (Vec::new(), Vec::new());
        push_runs(&row, 0, 0, &[TILE_OFF, 201, 128, 128], &mut runs, &mut peaks);
        assert_eq!(runs, vec![Run { v: 0, start: 99, end: 100 }]);
    }

    #[test]
    fn colour_rows_threshold_on_luma() {
        // Pure red 255 has luma 77 < 128: dark. White is bright.
        let data = [255u8, 0, 0, 255, 255, 255, 0, 0, 255];
        let image = ImageView::new(3, 1, 9, "rgb8", &data).unwrap();
        let mut c = Components::default();
        c.label(&image, &TileThresholds::uniform(3, 1, 128), &[]);
        assert_eq!(c.blobs().len(), 1);
        assert_eq!(c.blobs()[0].u_min, 1);
    }

    #[test]
    fn ready_made_runs_join_only_on_consecutive_rows() {
        let runs = [
            Run { v: 0, start: 0, end: 3 },
            Run { v: 1, start: 3, end: 4 },
            Run { v: 3, start: 0, end: 2 },
            Run { v: 3, start: 6, end: 8 },
            Run { v: 4, start: 2, end: 6 },
        ];
        let mut c = Components::default();
        c.label_runs(&runs, &[10, 20, 30, 40, 50]);
        // Rows 0-1 join (diagonal touch); row 3 is not next to row 1; row 4 joins both runs of row 3.
        assert_eq!(c.blobs().len(), 2);
        assert_eq!((c.blobs()[0].pixels, c.blobs()[0].peak), (4, 20));
        assert_eq!((c.blobs()[1].pixels, c.blobs()[1].peak), (8, 50));
    }
}
