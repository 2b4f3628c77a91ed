//! A uniform grid over the horizontal plane for neighbour queries (contact and latch
//! range, line of sight, spawn overlap): items are discs filed under every cell their
//! bounding box overlaps, so a query only looks at the items of the cells it covers.
//!
//! Queries report candidates (an item may be reported more than once when a query spans
//! several of its cells); the caller applies the exact test. Rebuilding keeps the buckets'
//! allocations, so a grid rebuilt every tick stops allocating once it has grown.

use nalgebra::Vector2;

/// Most cells a grid may have; beyond it cells are made larger (a few bodies far apart
/// would otherwise ask for millions of empty cells).
const MAX_CELLS: usize = 1 << 16;

/// A disc in the horizontal plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disc {
    /// Centre (x, y), m.
    pub centre: Vector2<f64>,
    /// Radius, m.
    pub radius: f64,
}

/// Integer cell coordinates.
type Cell = (usize, usize);

/// Items (indices) filed by cell. Positions outside the covered rectangle are clamped to
/// its border cells, so box queries stay exact for them; segment queries assume every
/// item lies inside (true for [`PlanarGrid::from_discs`]).
#[derive(Clone, Debug, Default)]
pub struct PlanarGrid {
    /// Lower corner of the covered rectangle, m.
    origin: Vector2<f64>,
    /// Side of a cell, m.
    cell: f64,
    /// Cells along x.
    nx: usize,
    /// Cells along y.
    ny: usize,
    /// Item indices per cell, row-major (x fastest).
    buckets: Vec<Vec<u32>>,
}

impl PlanarGrid {
    /// Empties the grid and covers the rectangle `min`..`max` (m) with square cells of at
    /// least `cell` m (larger when more than `MAX_CELLS` would be needed).
    pub fn reset(&mut self, min: Vector2<f64>, max: Vector2<f64>, cell: f64) {
        let size = (max - min).map(|v| v.max(0.0));
        let mut cell = if cell.is_finite() && cell > 0.0 { cell } else { size.max().max(1e-3) };
        while (size.x / cell).ceil().max(1.0) * (size.y / cell).ceil().max(1.0) > MAX_CELLS as f64 {
            cell *= 2.0;
        }
        self.origin = min;
        self.cell = cell;
        self.nx = ((size.x / cell).ceil() as usize).max(1);
        self.ny = ((size.y / cell).ceil() as usize).max(1);
        let cells = self.nx * self.ny;
        if self.buckets.len() < cells {
            self.buckets.resize_with(cells, Vec::new);
        }
        for bucket in &mut self.buckets[..cells] {
            bucket.clear();
        }
    }

    /// Rebuilds the grid around `discs` (item `i` is `discs[i]`): it covers all of them,
    /// with cells about one disc diameter or one mean spacing across, whichever is larger.
    pub fn from_discs(&mut self, discs: &[Disc]) {
        let mut min = Vector2::repeat(f64::INFINITY);
        let mut max = Vector2::repeat(f64::NEG_INFINITY);
        let mut largest = 0.0f64;
        // Bounds from the finite discs; a body that has blown up (NaN) is filed in a border
        // cell, where the exact tests never match it.
        for d in discs.iter().filter(|d| d.centre.iter().all(|v| v.is_finite()) && d.radius.is_finite()) {
            min = min.inf(&(d.centre - Vector2::repeat(d.radius)));
            max = max.sup(&(d.centre + Vector2::repeat(d.radius)));
            largest = largest.max(d.radius);
        }
        if min.x > max.x {
            self.reset(Vector2::zeros(), Vector2::zeros(), 1.0);
        } else {
            let size = max - min;
            let spacing = (size.x * size.y / discs.len() as f64).sqrt();
            self.reset(min, max, (2.0 * largest).max(spacing));
        }
        for (i, d) in discs.iter().enumerate() {
            self.insert(i as u32, d);
        }
    }

    /// Files item `item` under every cell the bounding box of `disc` overlaps.
    pub fn insert(&mut self, item: u32, disc: &Disc) {
        let r = Vector2::repeat(disc.radius);
        let (lo, hi) = (self.cell_of(disc.centre - r), self.cell_of(disc.centre + r));
        for y in lo.1..=hi.1 {
            for x in lo.0..=hi.0 {
                self.buckets[y * self.nx + x].push(item);
            }
        }
    }

    /// Cell holding point `p` (clamped to the covered rectangle).
    fn cell_of(&self, p: Vector2<f64>) -> Cell {
        let clamp = |v: f64, n: usize| if v.is_nan() || v <= 0.0 { 0 } else { (v as usize).min(n - 1) };
        let rel = (p - self.origin) / self.cell;
        (clamp(rel.x.floor(), self.nx), clamp(rel.y.floor(), self.ny))
    }

    fn bucket(&self, (x, y): Cell) -> &[u32] {
        &self.buckets[y * self.nx + x]
    }

    /// Calls `visit` with every item filed in a cell that overlaps the box `min`..`max` (m),
    /// until `visit` returns true; returns whether it did.
    pub fn any_in_box(&self, min: Vector2<f64>, max: Vector2<f64>, mut visit: impl FnMut(u32) -> bool) -> bool {
        let (lo, hi) = (self.cell_of(min), self.cell_of(max));
        for y in lo.1..=hi.1 {
            for x in lo.0..=hi.0 {
                if self.bucket((x, y)).iter().any(|&i| visit(i)) {
                    return true;
                }
            }
        }
        false
    }

    /// Calls `visit` with the items of every cell the segment `p0` -> `p1` (m) crosses,
    /// cell by cell from `p0`, until `visit` returns true; returns whether it did. Cells
    /// the segment only grazes at a corner are visited too.
    pub fn any_on_segment(&self, p0: Vector2<f64>, p1: Vector2<f64>, mut visit: impl FnMut(u32) -> bool) -> bool {
        let extent = Vector2::new(self.nx as f64, self.ny as f64) * self.cell;
        // Into grid units, clipped to the covered rectangle (Liang-Barsky).
        let a = (p0 - self.origin) / self.cell;
        let b = (p1 - self.origin) / self.cell;
        let d = b - a;
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for axis in 0..2 {
            let hi = extent[axis] / self.cell;
            if d[axis] == 0.0 {
                if a[axis] < 0.0 || a[axis] > hi {
                    return false;
                }
            } else {
                let (ta, tb) = ((0.0 - a[axis]) / d[axis], (hi - a[axis]) / d[axis]);
                t0 = t0.max(ta.min(tb));
                t1 = t1.min(ta.max(tb));
            }
        }
        if t0 > t1 {
            return false;
        }
        let start = a + d * t0;
        let n = [self.nx, self.ny];
        let clamp = |v: f64, axis: usize| if v <= 0.0 { 0 } else { (v.floor() as usize).min(n[axis] - 1) };
        let mut cell = [clamp(start.x, 0), clamp(start.y, 1)];
        let end = a + d * t1;
        let last = [clamp(end.x, 0), clamp(end.y, 1)];
        // Parameter t (over the whole segment) of the next cell boundary per axis, and its step.
        let mut next = [f64::INFINITY; 2];
        let mut step = [f64::INFINITY; 2];
        for axis in 0..2 {
            if d[axis] > 0.0 {
                next[axis] = ((cell[axis] + 1) as f64 - a[axis]) / d[axis];
                step[axis] = 1.0 / d[axis];
            } else if d[axis] < 0.0 {
                next[axis] = (cell[axis] as f64 - a[axis]) / d[axis];
                step[axis] = -1.0 / d[axis];
            }
        }
        let visit_cell = |c: [usize; 2], visit: &mut dyn FnMut(u32) -> bool| self.bucket((c[0], c[1])).iter().any(|&i| visit(i));
        // At most one step per cell boundary crossed, and the walk ends at the last cell.
        for _ in 0..self.nx + self.ny + 2 {
            if visit_cell(cell, &mut visit) {
                return true;
            }
            if cell == last {
                return false;
            }
            if next[0].min(next[1]) > t1 + 1e-9 {
                // Rounding left the walk short of the last cell: look at it directly.
                return visit_cell(last, &mut visit);
            }
            let axis = if next[0] < next[1] { 0 } else { 1 };
            if (next[0] - next[1]).abs() <= 1e-9 * next[axis].abs().max(1.0) {
                // Through a corner: the two cells that meet there count as crossed too.
                for ax in [0, 1] {
                    if let Some(side) = advance(cell, ax, d[ax], n) {
                        if visit_cell(side, &mut visit) {
                            return true;
                        }
                    }
                }
                for ax in [0, 1] {
                    if let Some(c) = advance(cell, ax, d[ax], n) {
                        cell = c;
                        next[ax] += step[ax];
                    }
                }
            } else {
                let Some(c) = advance(cell, axis, d[axis], n) else { return false };
                cell = c;
                next[axis] += step[axis];
            }
        }
        false
    }
}

/// The neighbour of `cell` one step along `axis` in the direction of `d`, if inside.
fn advance(mut cell: [usize; 2], axis: usize, d: f64, n: [usize; 2]) -> Option<[usize; 2]> {
    if d > 0.0 && cell[axis] + 1 < n[axis] {
        cell[axis] += 1;
        Some(cell)
    } else if d < 0.0 && cell[axis] > 0 {
        cell[axis] -= 1;
        Some(cell)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn disc(x: f64, y: f64, radius: f64) -> Disc {
        Disc { centre: Vector2::new(x, y), radius }
    }

    #[test]
    fn box_query_finds_items_by_their_cells() {
        let mut grid = PlanarGrid::default();
        grid.reset(Vector2::zeros(), Vector2::new(1.0, 1.0), 0.25);
        // A disc of radius 0.05 at (0.5, 0.5) spans the four cells meeting there.
        grid.insert(0, &disc(0.5, 0.5, 0.05));
        grid.insert(1, &disc(0.1, 0.1, 0.01));
        let mut seen = Vec::new();
        grid.any_in_box(Vector2::new(0.3, 0.3), Vector2::new(0.4, 0.4), |i| {
            seen.push(i);
            false
        });
        assert_eq!(seen, vec![0]);
        // Outside the rectangle: clamped to the border cells, still found.
        grid.insert(2, &disc(-3.0, 0.1, 0.01));
        assert!(grid.any_in_box(Vector2::new(-3.1, 0.0), Vector2::new(-2.9, 0.2), |i| i == 2));
        assert!(!grid.any_in_box(Vector2::new(0.8, 0.8), Vector2::new(0.9, 0.9), |_| true));
    }

    #[test]
    fn a_blown_up_disc_hides_no_other() {
        let mut grid = PlanarGrid::default();
        grid.from_discs(&[disc(f64::NAN, 0.0, 0.01), disc(0.3, 0.2, 0.01), disc(-0.3, -0.2, 0.01)]);
        assert!(grid.any_in_box(Vector2::new(0.29, 0.19), Vector2::new(0.31, 0.21), |i| i == 1));
        assert!(grid.any_on_segment(Vector2::new(-1.0, -0.2), Vector2::new(1.0, -0.2), |i| i == 2));
    }

    #[test]
    fn segment_walk_visits_exactly_the_crossed_cells() {
        let mut grid = PlanarGrid::default();
        grid.reset(Vector2::zeros(), Vector2::new(4.0, 4.0), 1.0);
        // One point item per cell, item = 4 y + x.
        for y in 0..4 {
            for x in 0..4 {
                grid.insert(4 * y + x, &disc(x as f64 + 0.5, y as f64 + 0.5, 0.0));
            }
        }
        let walk = |p0: Vector2<f64>, p1: Vector2<f64>| {
            let mut cells = Vec::new();
            grid.any_on_segment(p0, p1, |i| {
                cells.push(i);
                false
            });
            cells
        };
        // Along row 1 from x = 0.5 to 2.5: cells 4, 5, 6 in order.
        assert_eq!(walk(Vector2::new(0.5, 1.5), Vector2::new(2.5, 1.5)), vec![4, 5, 6]);
        // Backwards, from far outside the grid (clipped): 7, 6, 5, 4.
        assert_eq!(walk(Vector2::new(9.0, 1.5), Vector2::new(-3.0, 1.5)), vec![7, 6, 5, 4]);
        // Through the corner (1, 1) exactly: 0, then both 1 and 4, then 5.
        assert_eq!(walk(Vector2::new(0.5, 0.5), Vector2::new(1.5, 1.5)), vec![0, 1, 4, 5]);
        // Missing the grid entirely.
        assert!(walk(Vector2::new(5.0, 5.0), Vector2::new(6.0, 9.0)).is_empty());
    }

    #[test]
    fn segment_walk_finds_every_disc_the_segment_touches() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let discs: Vec<Disc> =
            (0..300).map(|_| disc(rng.gen_range(-1.0..1.0), rng.gen_range(-0.5..0.5), rng.gen_range(0.0..0.04))).collect();
        let mut grid = PlanarGrid::default();
        grid.from_discs(&discs);
        for _ in 0..2000 {
            let p0 = Vector2::new(rng.gen_range(-1.5..1.5), rng.gen_range(-1.0..1.0));
            let p1 = Vector2::new(rng.gen_range(-3.0..3.0), rng.gen_range(-3.0..3.0));
            let d = p1 - p0;
            for (i, c) in discs.iter().enumerate() {
                let t = ((c.centre - p0).dot(&d) / d.norm_squared()).clamp(0.0, 1.0);
                if (p0 + d * t - c.centre).norm() <= c.radius {
                    assert!(grid.any_on_segment(p0, p1, |j| j as usize == i), "disc {i} missed by {p0} -> {p1}");
                }
            }
        }
    }
}
