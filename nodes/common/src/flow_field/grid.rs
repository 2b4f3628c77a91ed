//! A regular grid of per-cell flow statistics over the arena (SPEC 1: mean and standard
//! deviation of the surface flow velocity in each of 50 x 50 cells).

use super::FlowFieldError;
use nalgebra::{Point2, Vector2};
use serde::{Deserialize, Serialize};

/// Flow statistics of one grid cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowCell {
    /// Mean flow velocity (x, y), m/s.
    pub mean: Vector2<f64>,
    /// Standard deviation of the flow velocity per axis (x, y), m/s.
    pub std: Vector2<f64>,
    /// Number of samples the statistics come from (0 for a modelled or empty cell).
    pub count: u64,
}

/// Axis-aligned rectangle the grid covers, world frame, m.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridExtent {
    /// Smallest x, m.
    pub x_min: f64,
    /// Largest x, m.
    pub x_max: f64,
    /// Smallest y, m.
    pub y_min: f64,
    /// Largest y, m.
    pub y_max: f64,
}

impl GridExtent {
    /// A square of side `side` m centred on the origin.
    pub fn centred_square(side: f64) -> Self {
        let h = 0.5 * side;
        Self { x_min: -h, x_max: h, y_min: -h, y_max: h }
    }
}

/// Per-cell flow statistics on an `nx` x `ny` grid; cell (ix, iy) covers
/// `[x_min + ix dx, x_min + (ix+1) dx) x [y_min + iy dy, ...)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowGrid {
    nx: usize,
    ny: usize,
    extent: GridExtent,
    cells: Vec<FlowCell>,
}

impl FlowGrid {
    /// An all-zero grid. Errors when a size is zero or above [`MAX_CELLS_PER_SIDE`](super::MAX_CELLS_PER_SIDE),
    /// or the extent is empty or not finite.
    pub fn new(nx: usize, ny: usize, extent: GridExtent) -> Result<Self, FlowFieldError> {
        if nx == 0 || ny == 0 {
            return Err(FlowFieldError::Invalid(format!("grid size must be at least 1 x 1, got {nx} x {ny}")));
        }
        let cap = super::MAX_CELLS_PER_SIDE;
        if nx > cap || ny > cap {
            return Err(FlowFieldError::Invalid(format!("grid size must be at most {cap} x {cap} cells, got {nx} x {ny}")));
        }
        let GridExtent { x_min, x_max, y_min, y_max } = extent;
        let finite = [x_min, x_max, y_min, y_max].iter().all(|v| v.is_finite());
        if !finite || x_max <= x_min || y_max <= y_min {
            return Err(FlowFieldError::Invalid(format!(
                "extent must be finite with x_min < x_max and y_min < y_max, got \
                 x [{x_min}, {x_max}], y [{y_min}, {y_max}]"
            )));
        }
        Ok(Self { nx, ny, extent, cells: vec![FlowCell::default(); nx * ny] })
    }

    /// Number of cells along x.
    pub fn nx(&self) -> usize {
        self.nx
    }

    /// Number of cells along y.
    pub fn ny(&self) -> usize {
        self.ny
    }

    /// The rectangle covered, m.
    pub fn extent(&self) -> GridExtent {
        self.extent
    }

    /// Cell size (dx, dy), m.
    pub fn cell_size(&self) -> Vector2<f64> {
        let e = self.extent;
        Vector2::new((e.x_max - e.x_min) / self.nx as f64, (e.y_max - e.y_min) / self.ny as f64)
    }

    /// All cells, row-major with ix fastest (index = iy * nx + ix).
    pub fn cells(&self) -> &[FlowCell] {
        &self.cells
    }

    /// Mutable access to all cells, same order as [`Self::cells`].
    pub fn cells_mut(&mut self) -> &mut [FlowCell] {
        &mut self.cells
    }

    /// The cell (ix, iy), if inside the grid.
    pub fn cell(&self, ix: usize, iy: usize) -> Option<&FlowCell> {
        (ix < self.nx && iy < self.ny).then(|| &self.cells[iy * self.nx + ix])
    }

    /// Mutable cell (ix, iy), if inside the grid.
    pub fn cell_mut(&mut self, ix: usize, iy: usize) -> Option<&mut FlowCell> {
        (ix < self.nx && iy < self.ny).then(|| &mut self.cells[iy * self.nx + ix])
    }

    /// Grid coordinates (ix, iy) of the cell containing `p` (m), or None outside the grid.
    /// The upper edges belong to the last cell.
    pub fn locate(&self, p: Point2<f64>) -> Option<(usize, usize)> {
        let e = self.extent;
        if !(p.x >= e.x_min && p.x <= e.x_max && p.y >= e.y_min && p.y <= e.y_max) {
            return None;
        }
        let d = self.cell_size();
        let ix = (((p.x - e.x_min) / d.x) as usize).min(self.nx - 1);
        let iy = (((p.y - e.y_min) / d.y) as usize).min(self.ny - 1);
        Some((ix, iy))
    }

    /// The cell containing `p` (m), or None outside the grid.
    pub fn sample_cell(&self, p: Point2<f64>) -> Option<&FlowCell> {
        self.locate(p).map(|(ix, iy)| &self.cells[iy * self.nx + ix])
    }

    /// Centre of cell (ix, iy), m.
    pub fn cell_centre(&self, ix: usize, iy: usize) -> Point2<f64> {
        let d = self.cell_size();
        Point2::new(self.extent.x_min + (ix as f64 + 0.5) * d.x, self.extent.y_min + (iy as f64 + 0.5) * d.y)
    }

    /// Multiplies every mean and standard deviation by `factor` (e.g. a pump power ratio).
    pub fn scale(&mut self, factor: f64) {
        for c in &mut self.cells {
            c.mean *= factor;
            c.std *= factor;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_maps_points_to_cells() {
        let g = FlowGrid::new(50, 50, GridExtent::centred_square(0.6)).unwrap();
        // dx = 12 mm; x = -0.3 + 0.013 is in cell 1; y = 0.0 is in cell 25.
        assert_eq!(g.locate(Point2::new(-0.287, 0.0)), Some((1, 25)));
        assert_eq!(g.locate(Point2::new(0.3, 0.3)), Some((49, 49)));
        assert_eq!(g.locate(Point2::new(0.31, 0.0)), None);
        assert_eq!(g.locate(Point2::new(f64::NAN, 0.0)), None);
        let c = g.cell_centre(1, 25);
        assert!((c - Point2::new(-0.282, 0.006)).norm() < 1e-12);
    }

    #[test]
    fn bad_sizes_are_rejected() {
        assert!(FlowGrid::new(0, 5, GridExtent::centred_square(1.0)).is_err());
        let bad = GridExtent { x_min: 1.0, x_max: 0.0, y_min: 0.0, y_max: 1.0 };
        assert!(FlowGrid::new(5, 5, bad).is_err());
    }
}
