//! Small trajectory statistics used by this crate's tests, examples and benches.
//! The calibration node has the full MSD pipeline (recordings, pooling, fitness); this is
//! the plain definition of SPEC 1 on in-memory positions.

use nalgebra::Point2;

/// Mean squared displacement, m^2, for lags 0..=`window` steps:
/// `MSD(tau) = < |R_k(t0 + tau) - R_k(t0)|^2 >` over all particles k and window starts
/// t0 = 0, stride, 2 stride, ... with t0 + window inside the recording.
/// `frames[t][k]` is particle k's position at step t; every frame must hold the same
/// particles in the same order. Returns an empty vector when no full window fits.
pub fn msd(frames: &[Vec<Point2<f64>>], window: usize, stride: usize) -> Vec<f64> {
    let stride = stride.max(1);
    if frames.len() <= window {
        return Vec::new();
    }
    let mut sum = vec![0.0; window + 1];
    let mut count = 0usize;
    for t0 in (0..frames.len() - window).step_by(stride) {
        let start = &frames[t0];
        for (lag, acc) in sum.iter_mut().enumerate() {
            *acc += frames[t0 + lag].iter().zip(start).map(|(p, q)| (p - q).norm_squared()).sum::<f64>();
        }
        count += start.len();
    }
    if count == 0 {
        return vec![0.0; window + 1];
    }
    sum.iter().map(|s| s / count as f64).collect()
}

/// Lag (steps) of the first local maximum of an MSD curve that rises above
/// `min_height` m^2, or None when the curve has none (the oscillation's half period).
pub fn first_peak(curve: &[f64], min_height: f64) -> Option<usize> {
    (1..curve.len().saturating_sub(1)).find(|&i| curve[i] >= min_height && curve[i] >= curve[i - 1] && curve[i] > curve[i + 1])
}

/// Mean of the curve's last `fraction` (0..1] of lags: the plateau, m^2.
pub fn plateau(curve: &[f64], fraction: f64) -> f64 {
    let n = ((curve.len() as f64 * fraction).ceil() as usize).clamp(1, curve.len().max(1));
    let tail = &curve[curve.len().saturating_sub(n)..];
    tail.iter().sum::<f64>() / tail.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msd_by_hand() {
        // One particle moving 1 m per step along x, and one at rest: MSD(tau) = tau^2 / 2.
        let frames: Vec<Vec<Point2<f64>>> = (0..5).map(|t| vec![Point2::new(t as f64, 0.0), Point2::new(0.0, 3.0)]).collect();
        assert_eq!(msd(&frames, 2, 1), vec![0.0, 0.5, 2.0]);
        // A full window must fit.
        assert!(msd(&frames, 5, 1).is_empty());
    }

    #[test]
    fn circular_motion_peaks_at_half_a_turn() {
        // Radius 1, 20 steps per turn: MSD = 2 (1 - cos) peaks at lag 10 with value 4.
        let frames: Vec<Vec<Point2<f64>>> = (0..100)
            .map(|t| {
                let a = t as f64 * std::f64::consts::TAU / 20.0;
                vec![Point2::new(a.cos(), a.sin())]
            })
            .collect();
        let curve = msd(&frames, 40, 1);
        assert_eq!(first_peak(&curve, 0.1), Some(10));
        assert!((curve[10] - 4.0).abs() < 1e-12);
        // Averaged over whole turns the plateau is the mean of 2 (1 - cos): 2.
        assert!((plateau(&curve[..40], 0.5) - 2.0).abs() < 1e-9);
    }
}
