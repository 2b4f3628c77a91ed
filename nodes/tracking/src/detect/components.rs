//! Thresholding and 8-connected component labelling on horizontal runs: each row is
//! reduced to runs of bright pixels, and runs that touch between consecutive rows are
//! joined with a union-find (the row/column continuity idea of SPEC 3, done exactly).
//! The threshold is set per square tile of [`TILE`] pixels (the illumination model), and
//! a tile can be left out altogether (outside the detection region).

use crate::frame::{colour_chunk_to_luma, colour_to_luma, luma, Encoding, ImageView};

/// Side of a threshold tile, px; also the chunk of a row read at once when finding runs.
pub const TILE: usize = 32;
pub(crate) const SKIP_CHUNK: usize = TILE;
// A chunk's comparisons fit one 32-bit mask, made of two 16-byte vectors.
const _: () = assert!(SKIP_CHUNK == 32);
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

/// Runs with the grey levels of their pixels, so that the candidate splits read each
/// pixel's level once, from the labelling, rather than converting it from the image again.
#[derive(Default)]
pub struct RunLevels {
    runs: Vec<Run>,
    /// Brightest level of each run.
    peaks: Vec<u8>,
    /// Where each run's levels start in `levels`.
    starts: Vec<u32>,
    /// Grey levels of every run's pixels, run after run, then [`SKIP_CHUNK`] zeros once
    /// filled, so that any chunk of a run can be read as a whole vector.
    levels: Vec<u8>,
}

impl RunLevels {
    /// Appends a run and the grey levels of its pixels (one per column).
    pub fn push(&mut self, run: Run, levels: &[u8]) {
        debug_assert_eq!(levels.len(), (run.end - run.start) as usize);
        self.runs.push(run);
        self.peaks.push(levels.iter().fold(0, |m, &l| m.max(l)));
        self.starts.push(self.levels.len() as u32);
        self.levels.extend_from_slice(levels);
    }

    /// [`RunLevels::push`] from `levels`, which starts with the run's levels and may go
    /// on past them: when it holds whole [`SKIP_CHUNK`]s, they are copied and their peak
    /// taken a chunk at a time (most runs are short: a `memmove` call and a byte-by-byte
    /// peak cost more than the copy itself).
    pub(crate) fn push_from(&mut self, run: Run, levels: &[u8]) {
        let len = (run.end - run.start) as usize;
        let chunks = len.div_ceil(SKIP_CHUNK);
        if levels.len() < chunks * SKIP_CHUNK {
            self.push(run, &levels[..len]);
            return;
        }
        let start = self.levels.len();
        let mut peak = 0;
        for (c, chunk) in levels.chunks_exact(SKIP_CHUNK).take(chunks).enumerate() {
            let Some(chunk) = chunk.first_chunk::<SKIP_CHUNK>() else { continue };
            self.levels.extend_from_slice(chunk);
            peak = peak.max(chunk_peak(chunk, (len - c * SKIP_CHUNK).min(SKIP_CHUNK)));
        }
        // The levels copied past the run's end are dropped (the next run overwrites them).
        self.levels.truncate(start + len);
        self.runs.push(run);
        self.peaks.push(peak);
        self.starts.push(start as u32);
    }

    fn clear(&mut self) {
        self.runs.clear();
        self.peaks.clear();
        self.starts.clear();
        self.levels.clear();
    }

    /// The grey levels of run `i`.
    fn levels_of(&self, i: usize) -> &[u8] {
        let (run, start) = (self.runs[i], self.starts[i] as usize);
        &self.levels[start..start + (run.end - run.start) as usize]
    }

    /// The grey levels of run `i` and the levels after them, [`SKIP_CHUNK`] - 1 more at
    /// least (once padded).
    fn padded_levels_of(&self, i: usize) -> &[u8] {
        let (run, start) = (self.runs[i], self.starts[i] as usize);
        let end = start + (run.end - run.start) as usize;
        &self.levels[start..(end + SKIP_CHUNK - 1).min(self.levels.len())]
    }

    /// Appends the zeros after the last run's levels.
    fn pad(&mut self) {
        self.levels.resize(self.levels.len() + SKIP_CHUNK, 0);
    }
}

/// Reusable labeller: buffers grow to the largest frame seen and are then reused.
#[derive(Default)]
pub struct Components {
    set: RunLevels,
    parent: Vec<u32>,
    gray_row: Vec<u8>,
    blobs: Vec<Blob>,
    run_order: Vec<u32>,
    blob_of_root: Vec<u32>,
    blob_of_run: Vec<u32>,
}

impl Components {
    /// Labels the pixels of `image` whose grey level is at or above their tile's
    /// threshold, looking only at columns `spans[v].0..spans[v].1` of each row `v` (all
    /// columns when `spans` is shorter than the image).
    pub fn label(&mut self, image: &ImageView, thresholds: &TileThresholds, spans: &[(u32, u32)]) {
        self.set.clear();
        self.parent.clear();
        let mut previous_row = 0..0;
        for v in 0..image.height() {
            let row_start = self.set.runs.len();
            let tiles = thresholds.row(v);
            let (lo, hi) = spans.get(v as usize).map_or((0, image.width() as usize), |&(lo, hi)| (lo as usize, hi as usize));
            if lo < hi {
                // Whole tiles, so that chunks stay aligned with their thresholds.
                let (lo, hi) = (lo / TILE * TILE, hi.div_ceil(TILE).saturating_mul(TILE).min(image.width() as usize));
                // The levels after the span (the rest of the frame, or zeros) let a run that
                // ends near it be copied a whole chunk at a time too.
                let padded = match image.encoding() {
                    Encoding::Mono8 => &image.row_onward(v)[lo..],
                    encoding => {
                        let bytes = encoding.bytes_per_pixel() as usize;
                        colour_row_to_gray(&image.row(v)[lo * bytes..hi * bytes], encoding, &tiles[lo / TILE..], &mut self.gray_row);
                        self.gray_row.resize(hi - lo + SKIP_CHUNK, 0);
                        &self.gray_row
                    }
                };
                push_runs(&padded[..hi - lo], padded, v, lo as u32, &tiles[lo / TILE..], &mut self.set);
            }
            let row_end = self.set.runs.len();
            self.parent.extend(row_start as u32..row_end as u32);
            self.join_rows(previous_row.clone(), row_start..row_end);
            previous_row = row_start..row_end;
        }
        self.set.pad();
        self.collect_blobs();
    }

    /// Labels ready-made runs that `fill` pushes (sorted by row, then column, not
    /// overlapping) with the grey levels of their pixels.
    pub fn label_runs(&mut self, fill: impl FnOnce(&mut RunLevels)) {
        self.set.clear();
        fill(&mut self.set);
        self.set.pad();
        let count = self.set.runs.len();
        self.parent.clear();
        self.parent.extend(0..count as u32);
        let (mut previous_row, mut start) = (0..0, 0);
        while start < count {
            let runs = &self.set.runs;
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
        self.run_order[blob.runs.0 as usize..blob.runs.1 as usize].iter().map(|&i| self.set.runs[i as usize])
    }

    /// The runs of one blob with the grey levels of their pixels.
    pub fn blob_run_levels<'a>(&'a self, blob: &Blob) -> impl Iterator<Item = (Run, &'a [u8])> + Clone + 'a {
        self.run_order[blob.runs.0 as usize..blob.runs.1 as usize]
            .iter()
            .map(|&i| (self.set.runs[i as usize], self.set.levels_of(i as usize)))
    }

    /// The runs of one blob with the grey levels of their pixels followed by
    /// [`SKIP_CHUNK`] - 1 more levels (of the next runs, or zeros): each chunk of a run
    /// can be compared as a whole vector.
    pub(crate) fn blob_run_padded_levels<'a>(&'a self, blob: &Blob) -> impl Iterator<Item = (Run, &'a [u8])> + Clone + 'a {
        self.run_order[blob.runs.0 as usize..blob.runs.1 as usize]
            .iter()
            .map(|&i| (self.set.runs[i as usize], self.set.padded_levels_of(i as usize)))
    }

    /// Unions runs of the current row with 8-connected runs of the previous row.
    fn join_rows(&mut self, previous: std::ops::Range<usize>, current: std::ops::Range<usize>) {
        let (mut p, mut c) = (previous.start, current.start);
        while p < previous.end && c < current.end {
            let (above, here) = (self.set.runs[p], self.set.runs[c]);
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
        self.run_order.clear();
        let count = self.set.runs.len();
        // A run's parent never follows it (unions point the later root at the earlier
        // one, path halving only moves up), so once the runs before `i` point at their
        // roots, its parent's parent is its root.
        let mut roots = 0usize;
        for i in 0..count {
            let root = self.parent[self.parent[i] as usize];
            debug_assert_eq!(self.parent[root as usize], root);
            self.parent[i] = root;
            roots += usize::from(root as usize == i);
        }
        if roots == 1 {
            // One blob (most cuts leave their candidate in one piece): no grouping.
            let first = self.set.runs[0];
            let mut blob = Blob {
                u_min: first.start,
                u_max: first.end - 1,
                v_min: first.v,
                v_max: first.v,
                pixels: 0,
                peak: 0,
                runs: (0, count as u32),
            };
            for (run, &peak) in self.set.runs.iter().zip(&self.set.peaks) {
                blob.u_min = blob.u_min.min(run.start);
                blob.u_max = blob.u_max.max(run.end - 1);
                blob.v_max = blob.v_max.max(run.v);
                blob.pixels += run.end - run.start;
                blob.peak = blob.peak.max(peak);
            }
            self.blobs.push(blob);
            self.run_order.extend(0..count as u32);
            return;
        }
        self.blob_of_root.resize(count, u32::MAX);
        self.blob_of_run.clear();
        for i in 0..count {
            let root = self.parent[i] as usize;
            if self.blob_of_root[root] == u32::MAX {
                self.blob_of_root[root] = self.blobs.len() as u32;
                let run = self.set.runs[i];
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
            self.blob_of_run.push(b);
            let run = self.set.runs[i];
            let blob = &mut self.blobs[b as usize];
            blob.u_min = blob.u_min.min(run.start);
            blob.u_max = blob.u_max.max(run.end - 1);
            blob.v_max = blob.v_max.max(run.v);
            blob.pixels += run.end - run.start;
            blob.peak = blob.peak.max(self.set.peaks[i]);
            blob.runs.1 += 1;
        }
        let mut offset = 0;
        for blob in &mut self.blobs {
            let count = blob.runs.1;
            blob.runs = (offset, offset);
            offset += count;
        }
        self.run_order.resize(count, 0);
        for (i, &b) in self.blob_of_run.iter().enumerate() {
            let blob = &mut self.blobs[b as usize];
            self.run_order[blob.runs.1 as usize] = i as u32;
            blob.runs.1 += 1;
        }
    }
}

/// `bytes.as_chunks::<N>()`: the whole `N`-byte chunks as arrays, and the rest (the
/// standard method needs Rust 1.88, above the workspace's minimum).
fn as_chunks<const N: usize>(bytes: &[u8]) -> (&[[u8; N]], &[u8]) {
    let (head, tail) = bytes.split_at(bytes.len() / N * N);
    // SAFETY: `head` holds exactly `head.len() / N` arrays of `N` bytes, and `[u8; N]`
    // has the size `N` and the alignment 1 of its bytes.
    (unsafe { std::slice::from_raw_parts(head.as_ptr().cast::<[u8; N]>(), head.len() / N) }, tail)
}

/// `bytes.as_chunks_mut::<N>()` (see [`as_chunks`]).
fn as_chunks_mut<const N: usize>(bytes: &mut [u8]) -> (&mut [[u8; N]], &mut [u8]) {
    let whole = bytes.len() / N;
    let (head, tail) = bytes.split_at_mut(whole * N);
    // SAFETY: as in `as_chunks`; `head` is borrowed mutably and exclusively.
    (unsafe { std::slice::from_raw_parts_mut(head.as_mut_ptr().cast::<[u8; N]>(), whole) }, tail)
}

/// Converts a colour row to grey, writing 0 for whole chunks whose every byte is below
/// the tile's threshold (luma is a weighted mean of the channels, so it is below too) and
/// for tiles left out.
fn colour_row_to_gray(row: &[u8], encoding: Encoding, tiles: &[u16], out: &mut Vec<u8>) {
    out.resize(row.len() / 3, 0);
    let bgr = encoding == Encoding::Bgr8;
    // Whole chunks as fixed-size arrays (a dark chunk's zeros are two vector stores, not
    // a `memset` call), then the rest of the row.
    let (whole, tail) = as_chunks::<{ 3 * SKIP_CHUNK }>(row);
    let (gray_whole, gray_tail) = as_chunks_mut::<SKIP_CHUNK>(out);
    for ((chunk, gray), &threshold) in whole.iter().zip(gray_whole.iter_mut()).zip(tiles) {
        if threshold >= TILE_OFF || u16::from(luma_of(channel_maxima(chunk), encoding)) < threshold {
            *gray = [0; SKIP_CHUNK];
        } else {
            colour_chunk_to_luma(chunk, bgr, gray);
        }
    }
    if let (false, Some(&threshold)) = (tail.is_empty(), tiles.get(whole.len())) {
        if threshold >= TILE_OFF || u16::from(luma_bound(tail, encoding)) < threshold {
            gray_tail.fill(0);
        } else {
            colour_to_luma(tail, bgr, gray_tail);
        }
    }
}

/// An upper bound of the luma of every pixel of a colour chunk: the luma of the
/// per-channel maxima (tighter than the largest byte on coloured backgrounds such as
/// blue water, whose blue channel alone would cross a low threshold).
fn luma_bound(chunk: &[u8], encoding: Encoding) -> u8 {
    let max = match <&[u8; 3 * SKIP_CHUNK]>::try_from(chunk) {
        Ok(full) => channel_maxima(full),
        Err(_) => chunk.chunks_exact(3).fold([0u8; 3], |m, px| [m[0].max(px[0]), m[1].max(px[1]), m[2].max(px[2])]),
    };
    luma_of(max, encoding)
}

/// The luma of one pixel's bytes in `encoding`'s channel order.
fn luma_of(px: [u8; 3], encoding: Encoding) -> u8 {
    match encoding {
        Encoding::Bgr8 => luma(px[2], px[1], px[0]),
        _ => luma(px[0], px[1], px[2]),
    }
}

/// The largest byte of each channel of a whole colour chunk, in byte order, with byte
/// shifts of three vectors: every background chunk of a colour frame goes through here
/// (the compiler's version of the halving folds spilled to the stack and cost more than
/// the frame's reads).
#[cfg(target_arch = "x86_64")]
#[inline]
fn channel_maxima(chunk: &[u8; 3 * SKIP_CHUNK]) -> [u8; 3] {
    use std::arch::x86_64::{__m128i, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_max_epu8, _mm_slli_si128, _mm_srli_si128};
    // SAFETY: SSE2 is part of the x86_64 baseline, and the six unaligned 16-byte loads
    // read exactly the 96 bytes of `chunk`.
    unsafe {
        let load = |offset: usize| _mm_loadu_si128(chunk.as_ptr().add(offset).cast::<__m128i>());
        // Bytes 48 apart hold the same channel: lane i of `a` holds channel i % 3, of `b`
        // (i + 1) % 3, of `c` (i + 2) % 3.
        let a = _mm_max_epu8(load(0), load(48));
        let b = _mm_max_epu8(load(16), load(64));
        let c = _mm_max_epu8(load(32), load(80));
        // Moved onto `a`'s channels: `b` one lane up and two down, `c` two up and one down
        // (each pair of shifts keeps every lane of the vector; shifted-in zeros are harmless).
        let m = _mm_max_epu8(a, _mm_max_epu8(_mm_slli_si128::<1>(b), _mm_srli_si128::<2>(b)));
        let m = _mm_max_epu8(m, _mm_max_epu8(_mm_slli_si128::<2>(c), _mm_srli_si128::<1>(c)));
        // Lanes 0, 1 and 2 gather the lanes 3 apart: 0..16 step 3, 1..16 step 3, 2..16 step 3.
        let m = _mm_max_epu8(m, _mm_srli_si128::<3>(m));
        let m = _mm_max_epu8(m, _mm_srli_si128::<6>(m));
        let m = _mm_max_epu8(m, _mm_srli_si128::<12>(m));
        let [r, g, b, _] = _mm_cvtsi128_si32(m).to_le_bytes();
        [r, g, b]
    }
}

/// The largest byte of each channel of a whole colour chunk, in byte order.
#[cfg(not(target_arch = "x86_64"))]
fn channel_maxima(chunk: &[u8; 3 * SKIP_CHUNK]) -> [u8; 3] {
    // Folded in halves whose lengths stay multiples of 3, so every byte keeps its
    // channel; fixed sizes let the compiler vectorise the maxima.
    fold_max::<3>(&fold_max::<6>(&fold_max::<12>(&fold_max::<24>(&fold_max::<48>(chunk)))))
}

/// Element-wise maximum of the first two `N`-byte halves of `pair` (zeros if shorter).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn fold_max<const N: usize>(pair: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some((low, high)) = pair.split_first_chunk::<N>().and_then(|(low, rest)| Some((low, rest.first_chunk::<N>()?))) {
        for ((o, &a), &b) in out.iter_mut().zip(low).zip(high) {
            *o = a.max(b);
        }
    }
    out
}

/// Appends the runs of pixels at or above their tile's threshold in one grey row (or the
/// part of it from column `offset`, a multiple of [`TILE`]), with their grey levels;
/// `padded` starts as `row` and may go on past it.
fn push_runs(row: &[u8], padded: &[u8], v: u32, offset: u32, tiles: &[u16], out: &mut RunLevels) {
    let mut push =
        |start: usize, end: usize| out.push_from(Run { v, start: offset + start as u32, end: offset + end as u32 }, &padded[start..]);
    let mut scanner = RunScanner::default();
    // Whole chunks first, as fixed-size arrays: every chunk of the frame's rows passes
    // here, and a plain loop over them costs less than a chain of slice iterators.
    let (whole, tail) = as_chunks::<SKIP_CHUNK>(row);
    for (c, (chunk, &threshold)) in whole.iter().zip(tiles).enumerate() {
        // A tile left out ends the open run at its first column, as a dark chunk does.
        let bits = if threshold >= TILE_OFF { 0 } else { full_mask(chunk, threshold as u8) };
        scanner.scan_bits(bits, SKIP_CHUNK, c * SKIP_CHUNK, &mut push);
    }
    if let (false, Some(&threshold)) = (tail.is_empty(), tiles.get(whole.len())) {
        let base = whole.len() * SKIP_CHUNK;
        if threshold >= TILE_OFF {
            scanner.close(base, &mut push);
        } else {
            scanner.scan(tail, base, threshold as u8, &mut push);
        }
    }
    scanner.close(row.len(), &mut push);
}

/// Finds the runs of levels at or above a threshold in a row read [`SKIP_CHUNK`] levels
/// at a time: each chunk becomes a bit mask (compared all at once), and runs are found
/// from its bit transitions, so a chunk costs the same whatever its content.
#[derive(Default)]
pub(crate) struct RunScanner {
    /// Start of the run still growing at the end of the last chunk.
    open: Option<usize>,
}

impl RunScanner {
    /// Scans `chunk` (at most [`SKIP_CHUNK`] levels, from column `base` of the row),
    /// calling `push(start, end)` for every run it ends.
    pub(crate) fn scan(&mut self, chunk: &[u8], base: usize, threshold: u8, push: &mut impl FnMut(usize, usize)) {
        self.scan_bits(above_mask(chunk, threshold), chunk.len(), base, push);
    }

    /// Scans the first `len` levels (at most [`SKIP_CHUNK`]) of `levels` from column
    /// `base` of the row: a whole vector compare when `levels` holds a whole chunk (the
    /// levels past `len` are ignored).
    #[inline]
    pub(crate) fn scan_padded(&mut self, levels: &[u8], len: usize, base: usize, threshold: u8, push: &mut impl FnMut(usize, usize)) {
        let bits = match levels.first_chunk::<SKIP_CHUNK>() {
            Some(full) => full_mask(full, threshold) & (u32::MAX >> (SKIP_CHUNK - len)),
            None => above_mask(&levels[..len], threshold),
        };
        self.scan_bits(bits, len, base, push);
    }

    /// Ends and starts runs at the transitions of `bits` (bit `i`: level `base + i` is at
    /// or above the threshold; bits from `len` on are 0).
    #[inline]
    fn scan_bits(&mut self, bits: u32, len: usize, base: usize, push: &mut impl FnMut(usize, usize)) {
        debug_assert!((1..=SKIP_CHUNK).contains(&len));
        // Most chunks neither start nor end a run (the water, a run's middle).
        match self.open {
            None if bits == 0 => return,
            Some(_) if bits == u32::MAX >> (SKIP_CHUNK - len) => return,
            _ => {}
        }
        let mut i = 0;
        while i < len {
            // Bits from `i` on; `i` < 32, and bits past the chunk are 0.
            let rest = bits >> i;
            match self.open {
                Some(start) => {
                    i += (!rest).trailing_zeros() as usize;
                    if i < len {
                        push(start, base + i);
                        self.open = None;
                    }
                }
                None => {
                    i += rest.trailing_zeros() as usize;
                    if i < len {
                        self.open = Some(base + i);
                    }
                }
            }
        }
    }

    /// Ends the open run (if any) at column `end`.
    pub(crate) fn close(&mut self, end: usize, push: &mut impl FnMut(usize, usize)) {
        if let Some(start) = self.open.take() {
            push(start, end);
        }
    }
}

/// Bit `i` set where `chunk[i] >= threshold` (at most 32 levels).
#[inline]
fn above_mask(chunk: &[u8], threshold: u8) -> u32 {
    match <&[u8; SKIP_CHUNK]>::try_from(chunk) {
        Ok(full) => full_mask(full, threshold),
        Err(_) => chunk.iter().enumerate().fold(0u32, |bits, (i, &level)| bits | u32::from(level >= threshold) << i),
    }
}

/// [`above_mask`] of a whole chunk with two vector compares and byte-mask extractions:
/// every thresholded pixel goes through here, and the compiler does not find
/// `movemask` on its own (it widened the comparisons to 32-bit lanes instead).
#[cfg(target_arch = "x86_64")]
#[inline]
fn full_mask(chunk: &[u8; SKIP_CHUNK], threshold: u8) -> u32 {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_set1_epi8};
    // SAFETY: SSE2 is part of the x86_64 baseline, and the two unaligned 16-byte loads
    // read exactly the 32 bytes of `chunk`.
    unsafe {
        let floor = _mm_set1_epi8(threshold as i8);
        // Unsigned `level >= threshold` is `max(level, threshold) == level`.
        let above = |p: *const u8| {
            let levels = _mm_loadu_si128(p.cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(levels, floor), levels)) as u32 & 0xffff
        };
        above(chunk.as_ptr()) | above(chunk.as_ptr().add(16)) << 16
    }
}

/// [`above_mask`] of a whole chunk; the fixed size lets the compiler vectorise it.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn full_mask(chunk: &[u8; SKIP_CHUNK], threshold: u8) -> u32 {
    chunk.iter().enumerate().fold(0u32, |bits, (i, &level)| bits | u32::from(level >= threshold) << i)
}

/// The largest of the first `len` (at most [`SKIP_CHUNK`]) levels of a chunk, with
/// vector maxima (the levels past `len` masked off).
#[cfg(target_arch = "x86_64")]
#[inline]
fn chunk_peak(chunk: &[u8; SKIP_CHUNK], len: usize) -> u8 {
    use std::arch::x86_64::{__m128i, _mm_and_si128, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_max_epu8, _mm_srli_si128};
    /// `KEEP[SKIP_CHUNK - len..][..SKIP_CHUNK]`: `len` bytes 0xff, then zeros.
    static KEEP: [u8; 2 * SKIP_CHUNK] = {
        let mut keep = [0u8; 2 * SKIP_CHUNK];
        let mut i = 0;
        while i < SKIP_CHUNK {
            keep[i] = 0xff;
            i += 1;
        }
        keep
    };
    let keep = &KEEP[SKIP_CHUNK - len.min(SKIP_CHUNK)..][..SKIP_CHUNK];
    // SAFETY: SSE2 is part of the x86_64 baseline; the loads read exactly the 32 bytes of
    // `chunk` and of `keep`.
    unsafe {
        let load = |p: *const u8| _mm_loadu_si128(p.cast::<__m128i>());
        let low = _mm_and_si128(load(chunk.as_ptr()), load(keep.as_ptr()));
        let high = _mm_and_si128(load(chunk.as_ptr().add(16)), load(keep.as_ptr().add(16)));
        let m = _mm_max_epu8(low, high);
        let m = _mm_max_epu8(m, _mm_srli_si128::<8>(m));
        let m = _mm_max_epu8(m, _mm_srli_si128::<4>(m));
        let m = _mm_max_epu8(m, _mm_srli_si128::<2>(m));
        let m = _mm_max_epu8(m, _mm_srli_si128::<1>(m));
        _mm_cvtsi128_si32(m) as u8
    }
}

/// The largest of the first `len` (at most [`SKIP_CHUNK`]) levels of a chunk.
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn chunk_peak(chunk: &[u8; SKIP_CHUNK], len: usize) -> u8 {
    chunk.iter().enumerate().fold(0, |m, (i, &l)| if i < len { m.max(l) } else { m })
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
        let mut set = RunLevels::default();
        push_runs(&row, &row, 0, 0, &[128; 4], &mut set);
        assert_eq!(set.runs, vec![Run { v: 0, start: 31, end: 33 }, Run { v: 0, start: 99, end: 100 }]);
        assert_eq!(set.peaks, vec![200, 200]);
        assert_eq!((set.levels_of(0), set.levels_of(1)), (&[200u8, 200][..], &[200u8][..]));
        // Tiles left out and tiles with their own threshold.
        let mut set = RunLevels::default();
        push_runs(&row, &row, 0, 0, &[TILE_OFF, 201, 128, 128], &mut set);
        assert_eq!(set.runs, vec![Run { v: 0, start: 99, end: 100 }]);
        // A run over whole bright chunks crosses chunk and tile borders.
        let mut set = RunLevels::default();
        let bright: Vec<u8> = (0..100).map(|u| if (20..90).contains(&u) { 150 + (u % 7) as u8 } else { 0 }).collect();
        push_runs(&bright, &bright, 3, 64, &[100, 140, 150, 100], &mut set);
        assert_eq!(set.runs, vec![Run { v: 3, start: 84, end: 154 }]);
        assert_eq!((set.peaks[0], set.levels_of(0)), (156, &bright[20..90]));
    }

    #[test]
    fn chunk_masks_match_the_comparisons() {
        let chunk: [u8; SKIP_CHUNK] = std::array::from_fn(|i| (i * 37 % 256) as u8);
        for threshold in [0u8, 1, 37, 128, 200, 254, 255] {
            let expected = chunk.iter().enumerate().fold(0u32, |bits, (i, &level)| bits | u32::from(level >= threshold) << i);
            assert_eq!(above_mask(&chunk, threshold), expected, "threshold {threshold}");
            assert_eq!(above_mask(&chunk[..7], threshold), expected & 0x7f, "threshold {threshold}");
        }
    }

    #[test]
    fn chunk_peaks_and_padded_pushes_match_the_levels() {
        let chunk: [u8; SKIP_CHUNK] = std::array::from_fn(|i| (i * 53 % 251) as u8);
        for len in 1..=SKIP_CHUNK {
            assert_eq!(chunk_peak(&chunk, len), chunk[..len].iter().copied().max().unwrap_or(0), "len {len}");
        }
        // Runs pushed from longer slices (whole chunks or not) keep their own levels.
        let levels: Vec<u8> = (0..100).map(|i| (i * 91 % 256) as u8).collect();
        let (mut fast, mut plain) = (RunLevels::default(), RunLevels::default());
        for (start, end) in [(0usize, 1usize), (3, 40), (40, 72), (50, 99), (70, 100)] {
            let run = Run { v: 0, start: start as u32, end: end as u32 };
            fast.push_from(run, &levels[start..]);
            plain.push(run, &levels[start..end]);
        }
        assert_eq!((&fast.runs, &fast.peaks, &fast.starts, &fast.levels), (&plain.runs, &plain.peaks, &plain.starts, &plain.levels));
    }

    #[test]
    fn channel_maxima_match_the_bytes() {
        // Each channel's maximum placed at every pixel of the chunk in turn, over noise
        // below it: the vector shifts must reach every byte of every channel.
        let mut noise = 12345u32;
        for pixel in 0..SKIP_CHUNK {
            let mut chunk = [0u8; 3 * SKIP_CHUNK];
            for byte in chunk.iter_mut() {
                noise = noise.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                *byte = (noise >> 24) as u8 % 200;
            }
            for (channel, peak) in [(0, 201u8), (1, 230), (2, 255)] {
                chunk[3 * ((pixel + 7 * channel) % SKIP_CHUNK) + channel] = peak;
            }
            let expected = fold_max::<3>(&fold_max::<6>(&fold_max::<12>(&fold_max::<24>(&fold_max::<48>(&chunk)))));
            assert_eq!(channel_maxima(&chunk), expected, "pixel {pixel}");
            assert_eq!(expected, [201, 230, 255]);
        }
    }

    #[test]
    fn colour_rows_convert_chunk_by_chunk() {
        // 100 px: three whole chunks and a tail of 4, over noise with one bright pixel per
        // chunk; tiles: converted, left out, above everything, converted (the tail).
        let mut noise = 4321u32;
        let mut row: Vec<u8> = (0..300)
            .map(|_| {
                noise = noise.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (noise >> 24) as u8 / 2
            })
            .collect();
        for u in [5usize, 40, 70, 98] {
            row[3 * u..3 * u + 3].copy_from_slice(&[250, 240, 230]);
        }
        for encoding in [Encoding::Rgb8, Encoding::Bgr8] {
            let mut gray = vec![7u8; 3];
            colour_row_to_gray(&row, encoding, &[100, TILE_OFF, 255, 100], &mut gray);
            let expected: Vec<u8> = row
                .chunks_exact(3)
                .enumerate()
                .map(|(u, px)| if (32..96).contains(&u) { 0 } else { luma_of([px[0], px[1], px[2]], encoding) })
                .collect();
            assert_eq!(gray, expected, "{encoding:?}");
        }
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
        c.label_runs(|set| {
            for (run, peak) in runs.iter().zip([10, 20, 30, 40, 50]) {
                set.push(*run, &vec![peak; (run.end - run.start) as usize]);
            }
        });
        // Rows 0-1 join (diagonal touch); row 3 is not next to row 1; row 4 joins both runs of row 3.
        assert_eq!(c.blobs().len(), 2);
        assert_eq!((c.blobs()[0].pixels, c.blobs()[0].peak), (4, 20));
        assert_eq!((c.blobs()[1].pixels, c.blobs()[1].peak), (8, 50));
    }
}
