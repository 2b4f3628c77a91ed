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
    /// Cell of each filed robot, in filing order (scratch of the sort).
    cell_of: Vec<u32>,
}

impl Grid {
    /// Files the robots for which `member(i)` holds in cells of at least `cell` world units
    /// covering all of them.
    pub(crate) fn rebuild(&mut self, x: &[f64], y: &[f64], member: impl Fn(usize) -> bool, cell: f64) {
        self.file(x, y, (0..x.len()).filter(|&i| member(i)), cell);
    }

    /// Files the robots `members` (increasing indices) in cells of at least `cell` world
    /// units covering all of them: [`Self::rebuild`] for a few robots of many, without a
    /// pass over all.
    pub(crate) fn rebuild_of(&mut self, x: &[f64], y: &[f64], members: &[u32], cell: f64) {
        self.file(x, y, members.iter().map(|&i| i as usize), cell);
    }

    fn file(&mut self, x: &[f64], y: &[f64], members: impl Iterator<Item = usize> + Clone, cell: f64) {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for i in members.clone() {
            lo = [lo[0].min(x[i]), lo[1].min(y[i])];
            hi = [hi[0].max(x[i]), hi[1].max(y[i])];
        }
        if lo[0] > hi[0] {
            (lo, hi) = ([0.0; 2], [0.0; 2]);
        }
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
        let mut grid = Grid::default();
        grid.rebuild(&x, &y, |i| i % 3 != 0, 2.0);
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
        // The same robots given as a list file into the same grid (same visiting order).
        let members: Vec<u32> = (0..200).filter(|i| i % 3 != 0).collect();
        let mut listed = Grid::default();
        listed.rebuild_of(&x, &y, &members, 2.0);
        assert_eq!((listed.start, listed.items, listed.nx, listed.ny), (grid.start, grid.items, grid.nx, grid.ny));
    }
}
