//! Cells without enough data (issue #19): harmonic inpainting from the measured cells.
//!
//! A cell's value is replaced by the solution of Laplace's equation over the unknown
//! cells inside the tank, with the measured cells as fixed (Dirichlet) values and the
//! tank wall as a no-flux (Neumann) boundary: every unknown cell becomes the mean of its
//! inside 4-neighbours. This is the smoothest field that agrees with the measurements
//! and never invents still water: a cell surrounded by moving water gets moving water's
//! mean and spread.

use serde::Serialize;

/// How much data a cell of the estimate rests on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellCoverage {
    /// At least `min_measured_samples` flow samples: the cell keeps its own statistics.
    Measured,
    /// Some samples, fewer than `min_measured_samples`: filled from measured cells.
    Sparse,
    /// Inside the tank, no sample: filled from measured cells.
    #[default]
    Unvisited,
    /// Outside the tank: left as estimated (no object can be there).
    Outside,
}

/// Cells per coverage class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CoverageSummary {
    /// Measured cells (dimensionless).
    pub measured: usize,
    /// Sparse cells, filled (dimensionless).
    pub sparse: usize,
    /// Unvisited cells inside the tank, filled (dimensionless).
    pub unvisited: usize,
    /// Cells outside the tank (dimensionless).
    pub outside: usize,
}

/// Largest number of Gauss-Seidel sweeps of [`harmonic_fill`].
const MAX_SWEEPS: usize = 20_000;

/// Fills `values` (row-major, `nx` fastest) where `known` is false and `inside` is true
/// with the discrete harmonic interpolation of the known inside values. Unknown cells
/// with no path to a known one get the mean of all known values. Returns the sweeps
/// used. Solved by successive over-relaxation to a change below `1e-12` of the value
/// scale.
pub fn harmonic_fill(values: &mut [f64], known: &[bool], inside: &[bool], nx: usize, ny: usize) -> usize {
    let unknown: Vec<usize> = (0..values.len()).filter(|&i| inside[i] && !known[i]).collect();
    let known_values: Vec<f64> = (0..values.len()).filter(|&i| inside[i] && known[i]).map(|i| values[i]).collect();
    if unknown.is_empty() || known_values.is_empty() {
        return 0;
    }
    let mean = known_values.iter().sum::<f64>() / known_values.len() as f64;
    let scale = known_values.iter().fold(0.0f64, |a, v| a.max(v.abs())).max(1e-300);
    for &i in &unknown {
        values[i] = mean;
    }
    let neighbours: Vec<Vec<usize>> = unknown
        .iter()
        .map(|&i| {
            let (ix, iy) = (i % nx, i / nx);
            let mut n = Vec::with_capacity(4);
            if ix > 0 {
                n.push(i - 1);
            }
            if ix + 1 < nx {
                n.push(i + 1);
            }
            if iy > 0 {
                n.push(i - nx);
            }
            if iy + 1 < ny {
                n.push(i + nx);
            }
            n.retain(|&j| inside[j]);
            n
        })
        .collect();
    // Over-relaxation factor near the optimum for grids of tens of cells per side.
    let omega = 2.0 / (1.0 + (std::f64::consts::PI / nx.max(ny) as f64).sin());
    for sweep in 1..=MAX_SWEEPS {
        let mut change = 0.0f64;
        for (&i, n) in unknown.iter().zip(&neighbours) {
            if n.is_empty() {
                continue;
            }
            let target = n.iter().map(|&j| values[j]).sum::<f64>() / n.len() as f64;
            let delta = omega * (target - values[i]);
            values[i] += delta;
            change = change.max(delta.abs());
        }
        if change <= 1e-12 * scale {
            return sweep;
        }
    }
    MAX_SWEEPS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linear_field_is_recovered_exactly() {
        // Linear functions are harmonic: the fill must reproduce them on a hole.
        let (nx, ny) = (12, 10);
        let f = |i: usize| 0.3 * (i % nx) as f64 - 0.2 * (i / nx) as f64 + 1.0;
        let known: Vec<bool> = (0..nx * ny).map(|i| !((3..8).contains(&(i % nx)) && (2..7).contains(&(i / nx)))).collect();
        let inside = vec![true; nx * ny];
        let mut values: Vec<f64> = (0..nx * ny).map(|i| if known[i] { f(i) } else { 0.0 }).collect();
        let sweeps = harmonic_fill(&mut values, &known, &inside, nx, ny);
        assert!(sweeps > 1 && sweeps < MAX_SWEEPS, "{sweeps}");
        for (i, v) in values.iter().enumerate() {
            assert!((v - f(i)).abs() < 1e-9, "cell {i}: {v} vs {}", f(i));
        }
    }

    #[test]
    fn hand_case_and_walls() {
        // 3 x 1: known 0 and 3 at the ends; the middle is their mean.
        let mut v = vec![0.0, 7.0, 3.0];
        harmonic_fill(&mut v, &[true, false, true], &[true; 3], 3, 1);
        assert!((v[1] - 1.5).abs() < 1e-12, "{v:?}");
        // Outside cells neither change nor count: the middle takes its inside neighbour.
        let mut v = vec![0.0, 7.0, 3.0];
        harmonic_fill(&mut v, &[true, false, true], &[false, true, true], 3, 1);
        assert_eq!(v[0], 0.0);
        assert!((v[1] - 3.0).abs() < 1e-12, "{v:?}");
        // Nothing known: nothing to fill from, values untouched.
        let mut v = vec![1.0, 2.0];
        assert_eq!(harmonic_fill(&mut v, &[false, false], &[true, true], 2, 1), 0);
        assert_eq!(v, vec![1.0, 2.0]);
    }
}
