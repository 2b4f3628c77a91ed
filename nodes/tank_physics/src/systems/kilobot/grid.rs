//! A uniform grid over the table for neighbour queries, stored flat (a counting sort of
//! the robots by cell): rebuilding it every step touches a few arrays and allocates
//! nothing once they have grown.

/// Most cells the grid may have; beyond it cells are made larger (a few robots far apart on
/// an unbounded table would otherwise ask for millions of empty cells).
const MAX_CELLS: usize = 1 << 18;

/// Robot indices sorted by cell.
#[derive(Clone, Debug, Default)]
pub(crate) struct Grid {
    /// Lower corner of the covered rectangle, world units.
    min: [f64; 2],
    /// Side of a cell, world units.
    cell: f64,
    /// Cells along x.
    nx: usize,
    /// Cells along y.
    ny: usize,
    /// `start[c]..start[c + 1]` are the entries of cell `c` in `items`.
    start: Vec<u32>,
    /// Robot indices, grouped by cell, in increasing index within a cell.
    items: Vec<u32>,
    /// Cell of each filed robot, in filing order (after [`Self::rebuild_all`]: robot
    /// `i`'s cell).
    cell_of: Vec<u32>,
    /// Upper corner of the covered rectangle (the filed robots' largest x and y), world
    /// units.
    max: [f64; 2],
    /// A robot at each edge of the covered rectangle: smallest x, largest x, smallest y,
    /// largest y.
    edge: [u32; 4],
    /// Whether the last filing was [`Self::rebuild_all`], with cells of `requested` world
    /// units asked for.
    of_all: bool,
    requested: f64,
}

impl Grid {
    /// Files every robot in cells of at least `cell` world units covering all of them.
    pub(crate) fn rebuild_all(&mut self, x: &[f64], y: &[f64], cell: f64) {
        self.file(x, y, 0..x.len(), cell);
        (self.of_all, self.requested) = (true, cell);
    }

    /// Whether [`Self::rebuild_all`] of `x`, `y` in cells of `cell` would file the same
    /// grid as the last one, when only the robots in `shifted` have moved since (any
    /// order, repeats allowed): none of them was at an edge of the covered rectangle,
    /// none left it and none changed cell, so the rectangle, the cells and each cell's
    /// robots are the same. A swarm of which a few robots move keeps its grid for tens
    /// of steps (cells are a few world units, robots move 0.01 per step).
    pub(crate) fn unchanged_by(&self, x: &[f64], y: &[f64], shifted: &[u32], cell: f64) -> bool {
        if !self.of_all || self.requested != cell || self.cell_of.len() != x.len() || x.is_empty() {
            return false;
        }
        shifted.iter().all(|&s| {
            let (i, (xi, yi)) = (s as usize, (x[s as usize], y[s as usize]));
            !self.edge.contains(&s)
                && (self.min[0] <= xi && xi <= self.max[0] && self.min[1] <= yi && yi <= self.max[1])
                && self.cell_index(xi, yi) == self.cell_of[i] as usize
        })
    }

    /// Files the robots `members` (increasing indices) in cells of at least `cell` world
    /// units covering all of them (a few robots of many, without a pass over all).
    pub(crate) fn rebuild_of(&mut self, x: &[f64], y: &[f64], members: &[u32], cell: f64) {
        self.file(x, y, members.iter().map(|&i| i as usize), cell);
        self.of_all = false;
    }

    fn file(&mut self, x: &[f64], y: &[f64], members: impl Iterator<Item = usize> + Clone, cell: f64) {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        let mut edge = [0; 4];
        for i in members.clone() {
            for (k, v) in [x[i] < lo[0], x[i] > hi[0], y[i] < lo[1], y[i] > hi[1]].into_iter().enumerate() {
                if v {
                    edge[k] = i as u32;
                }
            }
            lo = [lo[0].min(x[i]), lo[1].min(y[i])];
            hi = [hi[0].max(x[i]), hi[1].max(y[i])];
        }
        if lo[0] > hi[0] {
            (lo, hi) = ([0.0; 2], [0.0; 2]);
        }
        (self.max, self.edge) = (hi, edge);
        let span = [hi[0] - lo[0], hi[1] - lo[1]];
        let mut cell = cell.max(1e-6);
        while ((span[0] / cell).floor() + 1.0) * ((span[1] / cell).floor() + 1.0) > MAX_CELLS as f64 {
            cell *= 2.0;
        }
        self.min = lo;
        self.cell = cell;
        self.nx = (span[0] / cell).floor() as usize + 1;
        self.ny = (span[1] / cell).floor() as usize + 1;
        let cells = self.nx * self.ny;
        self.start.clear();
        self.start.resize(cells + 1, 0);
        self.cell_of.clear();
        for i in members.clone() {
            let c = self.cell_index(x[i], y[i]);
            self.cell_of.push(c as u32);
            self.start[c + 1] += 1;
        }
        let filed = self.cell_of.len();
        for c in 0..cells {
            self.start[c + 1] += self.start[c];
        }
        self.items.clear();
        self.items.resize(filed, 0);
        // `start[c]` serves as the fill cursor of cell `c`, then is restored below.
        for (i, &c) in members.zip(&self.cell_of) {
            let slot = &mut self.start[c as usize];
            self.items[*slot as usize] = i as u32;
            *slot += 1;
        }
        for c in (1..=cells).rev() {
            self.start[c] = self.start[c - 1];
        }
        self.start[0] = 0;
    }

    /// Calls `visit(j)` for every filed robot in the cells within `radius` of (`x`, `y`)
    /// (candidates: the caller applies the exact distance test).
    #[inline]
    pub(crate) fn for_each_near(&self, x: f64, y: f64, radius: f64, mut visit: impl FnMut(usize)) {
        if self.items.is_empty() {
            return;
        }
        let span = |v: f64, lo: f64, n: usize| {
            let a = ((v - radius - lo) / self.cell).floor().max(0.0) as usize;
            let b = ((((v + radius - lo) / self.cell).floor()).max(0.0) as usize).min(n - 1);
            (a.min(n - 1), b)
        };
        let (x0, x1) = span(x, self.min[0], self.nx);
        let (y0, y1) = span(y, self.min[1], self.ny);
        for cy in y0..=y1 {
            let row = cy * self.nx;
            let (a, b) = (self.start[row + x0] as usize, self.start[row + x1 + 1] as usize);
            for &j in &self.items[a..b] {
                visit(j as usize);
            }
        }
    }

    fn cell_index(&self, x: f64, y: f64) -> usize {
        let cx = (((x - self.min[0]) / self.cell).floor().max(0.0) as usize).min(self.nx - 1);
        let cy = (((y - self.min[1]) / self.cell).floor().max(0.0) as usize).min(self.ny - 1);
        cy * self.nx + cx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_find_every_robot_in_range() {
        let x: Vec<f64> = (0..200).map(|i| ((i * 37) % 101) as f64 * 0.3 - 5.0).collect();
        let y: Vec<f64> = (0..200).map(|i| ((i * 53) % 97) as f64 * 0.2 - 3.0).collect();
        let members: Vec<u32> = (0..200).filter(|i| i % 3 != 0).collect();
        let mut grid = Grid::default();
        grid.rebuild_of(&x, &y, &members, 2.0);
        for q in 0..200 {
            let mut found = Vec::new();
            grid.for_each_near(x[q], y[q], 2.0, |j| {
                if (x[j] - x[q]).hypot(y[j] - y[q]) < 2.0 {
                    found.push(j)
                }
            });
            let brute: Vec<usize> = (0..200).filter(|&j| j % 3 != 0 && (x[j] - x[q]).hypot(y[j] - y[q]) < 2.0).collect();
            found.sort_unstable();
            assert_eq!(found, brute, "query {q}");
        }
        // Every robot given as a list files into the same grid as all of them.
        let (mut all, mut listed) = (Grid::default(), Grid::default());
        all.rebuild_all(&x, &y, 2.0);
        listed.rebuild_of(&x, &y, &(0..200).collect::<Vec<u32>>(), 2.0);
        assert_eq!((listed.start, listed.items, listed.nx, listed.ny), (all.start, all.items, all.nx, all.ny));
    }

    /// The filed grid, as a query sees it.
    fn layout(g: &Grid) -> (Vec<u32>, Vec<u32>, usize, usize, [f64; 2], f64) {
        (g.start.clone(), g.items.clone(), g.nx, g.ny, g.min, g.cell)
    }

    #[test]
    fn a_grid_is_kept_only_when_refiling_would_give_the_same_grid() {
        let mut x: Vec<f64> = (0..300).map(|i| ((i * 37) % 101) as f64 * 0.3 - 5.0).collect();
        let mut y: Vec<f64> = (0..300).map(|i| ((i * 53) % 97) as f64 * 0.2 - 3.0).collect();
        let mut grid = Grid::default();
        grid.rebuild_all(&x, &y, 2.0);
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut kept, mut refiled) = (0, 0);
        for _ in 0..2000 {
            // A few robots move a little (some across a cell, some out of the rectangle).
            let shifted: Vec<u32> = (0..3).map(|_| (next() * 300.0) as u32).collect();
            for &s in &shifted {
                x[s as usize] += (next() - 0.5) * 0.6;
                y[s as usize] += (next() - 0.5) * 0.6;
            }
            let mut fresh = Grid::default();
            fresh.rebuild_all(&x, &y, 2.0);
            // Other cells: never kept.
            assert!(!grid.unchanged_by(&x, &y, &shifted, 2.5));
            if grid.unchanged_by(&x, &y, &shifted, 2.0) {
                assert_eq!(layout(&grid), layout(&fresh));
                kept += 1;
            } else {
                // As the table does.
                grid.rebuild_all(&x, &y, 2.0);
                refiled += 1;
            }
        }
        assert!(kept > 1000 && refiled > 50, "kept {kept}, refiled {refiled}");
        grid.rebuild_of(&x, &y, &(0..300).collect::<Vec<u32>>(), 2.0);
        assert!(!grid.unchanged_by(&x, &y, &[], 2.0));
    }
}
