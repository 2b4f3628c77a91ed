//! Per-cell maps over the tank for validation (SPEC 1): normalised occupancy and mean
//! velocity in x and y, real vs simulated.

use nalgebra::Vector2;
use serde::{Deserialize, Serialize};

use crate::kinematics::{regular_kinematics, RegularTracks};
use crate::CalibrationError;
pub use flotilla_common::flow_field::MAX_CELLS_PER_SIDE;

/// A regular grid over a rectangle of the world plane.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GridSpec {
    /// Cells along x (dimensionless; default 50).
    pub nx: usize,
    /// Cells along y (dimensionless; default 50).
    pub ny: usize,
    /// Side of the square covered, centred on the tank centre (m; default 0.6).
    pub side: f64,
}

impl Default for GridSpec {
    fn default() -> Self {
        Self { nx: 50, ny: 50, side: 0.6 }
    }
}

impl GridSpec {
    /// Errors unless both sizes are in `1..=MAX_CELLS_PER_SIDE` (the cap the node and the
    /// CLI share) and the side is finite and > 0.
    pub fn validate(&self) -> Result<(), CalibrationError> {
        let cells = 1..=MAX_CELLS_PER_SIDE;
        if !(cells.contains(&self.nx) && cells.contains(&self.ny) && self.side.is_finite() && self.side > 0.0) {
            return Err(CalibrationError::Setting(format!(
                "grid must have nx, ny in 1..={MAX_CELLS_PER_SIDE} and side > 0 m, got {} x {} over {} m",
                self.nx, self.ny, self.side
            )));
        }
        Ok(())
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.nx * self.ny
    }

    /// True when the grid has no cell.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row-major index (ix fastest) of the cell containing `p`, `None` outside.
    pub fn index(&self, p: Vector2<f64>) -> Option<usize> {
        let half = 0.5 * self.side;
        let fx = (p.x + half) / self.side * self.nx as f64;
        let fy = (p.y + half) / self.side * self.ny as f64;
        if !(fx >= 0.0 && fy >= 0.0) {
            return None;
        }
        let (ix, iy) = (fx as usize, fy as usize);
        (ix < self.nx && iy < self.ny).then_some(iy * self.nx + ix)
    }
}

/// Occupancy and mean velocity per cell.
#[derive(Clone, Debug, PartialEq)]
pub struct SpatialMaps {
    /// The grid.
    pub grid: GridSpec,
    /// Fraction of all position samples in each cell (dimensionless, sums to 1 over the
    /// samples inside the grid).
    pub occupancy: Vec<f64>,
    /// Mean velocity along x in each cell; `None` without samples (m/s).
    pub mean_vx: Vec<Option<f64>>,
    /// Mean velocity along y in each cell; `None` without samples (m/s).
    pub mean_vy: Vec<Option<f64>>,
}

impl SpatialMaps {
    /// Maps of `tracks`; velocities by smoothed differences over `half_window` frames on
    /// each side.
    pub fn from_tracks(tracks: &RegularTracks, grid: GridSpec, half_window: usize) -> Result<Self, CalibrationError> {
        let occupancy = occupancy(tracks, grid)?;
        let mut sums = vec![(Vector2::zeros(), 0u64); grid.len()];
        for sample in regular_kinematics(tracks, half_window) {
            if let Some(i) = grid.index(sample.position) {
                sums[i].0 += sample.velocity;
                sums[i].1 += 1;
            }
        }
        let mean = |axis: usize| sums.iter().map(|(s, n)| (*n > 0).then(|| s[axis] / *n as f64)).collect();
        Ok(Self { grid, occupancy, mean_vx: mean(0), mean_vy: mean(1) })
    }

    /// How close two maps are: occupancy correlation and RMS velocity difference over
    /// cells where both have data.
    pub fn compare(&self, other: &SpatialMaps) -> Result<MapComparison, CalibrationError> {
        if self.grid != other.grid {
            return Err(CalibrationError::Setting("maps on different grids cannot be compared".into()));
        }
        let occupancy_correlation = correlation(&self.occupancy, &other.occupancy);
        let mut squared = 0.0;
        let mut pairs = (Vec::new(), Vec::new());
        for i in 0..self.grid.len() {
            if let (Some(ax), Some(ay), Some(bx), Some(by)) = (self.mean_vx[i], self.mean_vy[i], other.mean_vx[i], other.mean_vy[i]) {
                squared += (ax - bx).powi(2) + (ay - by).powi(2);
                pairs.0.extend([ax, ay]);
                pairs.1.extend([bx, by]);
            }
        }
        let cells = pairs.0.len() / 2;
        Ok(MapComparison {
            occupancy_correlation,
            velocity_rms_difference: if cells > 0 { (squared / cells as f64).sqrt() } else { f64::NAN },
            velocity_correlation: correlation(&pairs.0, &pairs.1),
            velocity_cells: cells,
        })
    }
}

/// Fraction of all position samples of `tracks` in each cell of `grid` (dimensionless,
/// sums to 1 over the samples inside the grid); an error when none falls inside.
pub fn occupancy(tracks: &RegularTracks, grid: GridSpec) -> Result<Vec<f64>, CalibrationError> {
    grid.validate()?;
    let mut counts = vec![0u64; grid.len()];
    for p in tracks.tracks.iter().flatten().flatten() {
        if let Some(i) = grid.index(*p) {
            counts[i] += 1;
        }
    }
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return Err(CalibrationError::Recording(format!(
            "no position falls inside the {} m map grid centred on the tank (positions are in m, origin at the tank centre)",
            grid.side
        )));
    }
    Ok(counts.iter().map(|&c| c as f64 / total as f64).collect())
}

/// Similarity of two [`SpatialMaps`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MapComparison {
    /// Pearson correlation of the occupancy fractions over all cells (dimensionless).
    pub occupancy_correlation: f64,
    /// RMS over shared cells of the mean-velocity difference vector (m/s).
    pub velocity_rms_difference: f64,
    /// Pearson correlation of the mean-velocity components over shared cells
    /// (dimensionless).
    pub velocity_correlation: f64,
    /// Cells where both maps have a mean velocity (dimensionless).
    pub velocity_cells: usize,
}

/// Pearson correlation; NaN when either series is constant or empty.
pub fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len()) as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    sab / (saa * sbb).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_index_by_hand() {
        let g = GridSpec { nx: 4, ny: 2, side: 0.4 };
        // Cells are 0.1 m wide in x, 0.2 m in y; (-0.2, -0.2) is the corner of cell 0.
        assert_eq!(g.index(Vector2::new(-0.2, -0.2)), Some(0));
        assert_eq!(g.index(Vector2::new(0.05, 0.01)), Some(4 + 2));
        assert_eq!(g.index(Vector2::new(0.2, 0.0)), None);
        assert_eq!(g.index(Vector2::new(f64::NAN, 0.0)), None);
        assert!(GridSpec { nx: 0, ..g }.validate().is_err());
    }

    #[test]
    fn occupancy_and_mean_velocity_by_hand() {
        // One object moving at +1 m/s in x along y = -0.1 through two cells of a 2 x 2 grid.
        let positions = (0..20).map(|k| Some(Vector2::new(-0.19 + 0.01 * k as f64, -0.1))).collect();
        let tracks = RegularTracks { dt: 0.01, tracks: vec![positions] };
        let maps = SpatialMaps::from_tracks(&tracks, GridSpec { nx: 2, ny: 2, side: 0.4 }, 2).unwrap();
        // x from -0.19 to 0.0: 19 samples in cell 0, 1 (x = 0.0) in cell 1.
        assert_eq!(maps.occupancy, vec![19.0 / 20.0, 1.0 / 20.0, 0.0, 0.0]);
        assert!((maps.mean_vx[0].unwrap() - 1.0).abs() < 1e-9);
        assert!(maps.mean_vy[0].unwrap().abs() < 1e-9);
        assert_eq!(maps.mean_vx[2], None);
        let same = maps.compare(&maps).unwrap();
        assert!((same.occupancy_correlation - 1.0).abs() < 1e-12);
        assert_eq!(same.velocity_rms_difference, 0.0);
    }

    #[test]
    fn correlation_by_hand() {
        assert!((correlation(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]) - 1.0).abs() < 1e-12);
        assert!((correlation(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        // x = (1, 2, 3), y = (1, 3, 2): deviations (-1, 0, 1) and (-1, 1, 0): 1 / sqrt(2 * 2) = 0.5.
        assert!((correlation(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]) - 0.5).abs() < 1e-12);
    }
}
