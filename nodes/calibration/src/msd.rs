//! Mean squared displacement (SPEC 1): `MSD(t_i) = < |R_k(t0 + t_i) - R_k(t0)|^2 >`,
//! pooled over objects k and averaged over window start times t0. Gap-aware: a pair of
//! frames counts only when the object was seen at both, so a gap never contributes a
//! zero displacement.

use serde::{Deserialize, Serialize};

use crate::kinematics::RegularTracks;
use crate::CalibrationError;

/// How the MSD window is laid over a recording.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MsdSettings {
    /// Lags in the window, N_s (frames; default 2400 = 60 s at 25 ms).
    pub window_frames: usize,
    /// Frames between consecutive window start times t0 (frames, >= 1; default 40 = 1 s
    /// at 25 ms).
    pub start_stride: usize,
}

impl Default for MsdSettings {
    fn default() -> Self {
        Self { window_frames: 2400, start_stride: 40 }
    }
}

/// An MSD curve at lags `dt, 2 dt, ..., N_s dt`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MsdCurve {
    /// Frame interval: lag of `values[i]` is `(i + 1) * dt` (s).
    pub dt: f64,
    /// MSD at each lag (m^2).
    pub values: Vec<f64>,
    /// Number of displacement pairs averaged at each lag (dimensionless).
    pub counts: Vec<u64>,
}

impl MsdCurve {
    /// Lag time of each value (s).
    pub fn lags(&self) -> impl Iterator<Item = f64> + '_ {
        (1..=self.values.len()).map(move |i| i as f64 * self.dt)
    }

    /// The paper's fitness: `sum_i |MSD_self(t_i) - MSD_reference(t_i)|` (m^2). Errors
    /// when the curves differ in length or frame interval.
    pub fn absolute_difference_sum(&self, reference: &MsdCurve) -> Result<f64, CalibrationError> {
        self.check_comparable(reference)?;
        Ok(self.values.iter().zip(&reference.values).map(|(a, b)| (a - b).abs()).sum())
    }

    /// `sum |MSD_self - MSD_ref| / sum MSD_ref` (dimensionless).
    pub fn relative_error(&self, reference: &MsdCurve) -> Result<f64, CalibrationError> {
        let total: f64 = reference.values.iter().sum();
        Ok(self.absolute_difference_sum(reference)? / total)
    }

    fn check_comparable(&self, reference: &MsdCurve) -> Result<(), CalibrationError> {
        if self.values.len() != reference.values.len() || (self.dt - reference.dt).abs() > 1e-9 * reference.dt {
            return Err(CalibrationError::Setting(format!(
                "MSD curves differ: {} lags at {} s vs {} lags at {} s",
                self.values.len(),
                self.dt,
                reference.values.len(),
                reference.dt
            )));
        }
        Ok(())
    }
}

/// Computes the MSD of `tracks` over windows of `settings.window_frames` lags starting
/// every `settings.start_stride` frames (only whole windows, so every lag averages over
/// the same start times).
pub fn mean_squared_displacement(tracks: &RegularTracks, settings: &MsdSettings) -> Result<MsdCurve, CalibrationError> {
    pooled_mean_squared_displacement(std::slice::from_ref(tracks), settings)
}

/// The MSD pooled over several recordings of the same set-up (all at the same `dt`):
/// every object of every recording contributes its displacement pairs.
pub fn pooled_mean_squared_displacement(recordings: &[RegularTracks], settings: &MsdSettings) -> Result<MsdCurve, CalibrationError> {
    let n_s = settings.window_frames;
    if n_s == 0 {
        return Err(CalibrationError::Setting("MSD window must have at least 1 lag".into()));
    }
    if settings.start_stride == 0 {
        return Err(CalibrationError::Setting("MSD start stride must be at least 1 frame".into()));
    }
    let Some(dt) = recordings.first().map(|r| r.dt) else {
        return Err(CalibrationError::Recording("no recording given for the MSD".into()));
    };
    // Every recording is checked before the window is allocated: a window far longer
    // than the data must be an error, not an allocation failure.
    for (index, tracks) in recordings.iter().enumerate() {
        if (tracks.dt - dt).abs() > 1e-9 * dt {
            return Err(CalibrationError::Recording(format!("recording {index} is sampled at {} s, the first at {dt} s", tracks.dt)));
        }
        let frames = tracks.frames();
        if frames <= n_s {
            return Err(CalibrationError::Recording(format!(
                "recording {index} is too short for the MSD window: {} s ({frames} frames at {dt} s) but the window needs {} s ({} frames)",
                tracks.duration(),
                n_s as f64 * dt,
                n_s.saturating_add(1)
            )));
        }
    }
    let mut sums = vec![0.0; n_s];
    let mut counts = vec![0u64; n_s];
    for tracks in recordings {
        let frames = tracks.frames();
        for track in &tracks.tracks {
            for t0 in (0..frames - n_s).step_by(settings.start_stride) {
                let Some(origin) = track[t0] else { continue };
                for (lag, p) in track[t0 + 1..=t0 + n_s].iter().enumerate() {
                    if let Some(p) = p {
                        sums[lag] += (p - origin).norm_squared();
                        counts[lag] += 1;
                    }
                }
            }
        }
    }
    if let Some(lag) = counts.iter().position(|&c| c == 0) {
        return Err(CalibrationError::Recording(format!(
            "no object was seen at both ends of a {} s lag; the recordings have too many gaps for the MSD window",
            (lag + 1) as f64 * dt
        )));
    }
    let values = sums.iter().zip(&counts).map(|(s, &c)| s / c as f64).collect();
    Ok(MsdCurve { dt, values, counts })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector2;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Normal};

    fn line(xs: &[Option<f64>]) -> Vec<Option<Vector2<f64>>> {
        xs.iter().map(|x| x.map(|x| Vector2::new(x, 0.0))).collect()
    }

    #[test]
    fn hand_computed_single_particle() {
        // x = 0, 1, 3: lag 1 -> (1^2 + 2^2) / 2 = 2.5; lag 2 -> 3^2 = 9 (window 1 uses
        // starts 0 and 1; window 2 uses start 0 only).
        let tracks = RegularTracks { dt: 0.5, tracks: vec![line(&[Some(0.0), Some(1.0), Some(3.0)])] };
        let one = mean_squared_displacement(&tracks, &MsdSettings { window_frames: 1, start_stride: 1 }).unwrap();
        assert_eq!(one.values, vec![2.5]);
        let two = mean_squared_displacement(&tracks, &MsdSettings { window_frames: 2, start_stride: 1 }).unwrap();
        assert_eq!(two.values, vec![1.0, 9.0]);
        assert_eq!(two.lags().collect::<Vec<_>>(), vec![0.5, 1.0]);
    }

    #[test]
    fn gaps_are_skipped_not_counted_as_zero() {
        // Particle A: 0, gap, 2 ; particle B: 0, 1, 2. Lag 1 pairs (stride 1, window 1):
        // A has none (gap at both), B: 1, 1 -> MSD 1. Lag 2 (window 2, start 0): A 4, B 4.
        let tracks = RegularTracks { dt: 1.0, tracks: vec![line(&[Some(0.0), None, Some(2.0)]), line(&[Some(0.0), Some(1.0), Some(2.0)])] };
        let m = mean_squared_displacement(&tracks, &MsdSettings { window_frames: 2, start_stride: 1 }).unwrap();
        assert_eq!(m.values, vec![1.0, 4.0]);
        assert_eq!(m.counts, vec![1, 2]);
    }

    #[test]
    fn brownian_motion_in_2d_has_msd_4dt() {
        let (d, dt): (f64, f64) = (0.01, 0.025);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let step = Normal::new(0.0, (2.0 * d * dt).sqrt()).unwrap();
        let gap = rand::distributions::Bernoulli::new(0.1).unwrap();
        let tracks = (0..40)
            .map(|_| {
                let mut p = Vector2::zeros();
                (0..4000)
                    .map(|_| {
                        p += Vector2::new(step.sample(&mut rng), step.sample(&mut rng));
                        // 10 % of frames are lost: must not bias the MSD.
                        (!gap.sample(&mut rng)).then_some(p)
                    })
                    .collect()
            })
            .collect();
        let tracks = RegularTracks { dt, tracks };
        let m = mean_squared_displacement(&tracks, &MsdSettings { window_frames: 200, start_stride: 20 }).unwrap();
        for (lag, value) in m.lags().zip(&m.values) {
            let expected = 4.0 * d * lag;
            assert!((value - expected).abs() < 0.1 * expected + 1e-5, "lag {lag}: {value} vs {expected}");
        }
    }

    #[test]
    fn pooling_recordings_pools_pairs() {
        // Recording A: x = 0, 2 (one pair, 4); recording B: x = 0, 1, 1 (pairs 1, 0).
        let a = RegularTracks { dt: 1.0, tracks: vec![line(&[Some(0.0), Some(2.0)])] };
        let b = RegularTracks { dt: 1.0, tracks: vec![line(&[Some(0.0), Some(1.0), Some(1.0)])] };
        let m = pooled_mean_squared_displacement(&[a, b.clone()], &MsdSettings { window_frames: 1, start_stride: 1 }).unwrap();
        assert_eq!(m.values, vec![5.0 / 3.0]);
        let c = RegularTracks { dt: 0.5, ..b };
        assert!(pooled_mean_squared_displacement(
            &[c.clone(), RegularTracks { dt: 1.0, ..c }],
            &MsdSettings { window_frames: 1, start_stride: 1 }
        )
        .is_err());
    }

    #[test]
    fn too_short_recording_is_a_clear_error() {
        let tracks = RegularTracks { dt: 0.025, tracks: vec![line(&[Some(0.0); 100])] };
        let e = mean_squared_displacement(&tracks, &MsdSettings { window_frames: 2400, start_stride: 40 }).unwrap_err();
        assert!(e.to_string().contains("too short"), "{e}");
    }

    #[test]
    fn fitness_is_the_sum_of_absolute_differences() {
        let a = MsdCurve { dt: 1.0, values: vec![1.0, 2.0, 3.0], counts: vec![1; 3] };
        let b = MsdCurve { dt: 1.0, values: vec![2.0, 2.0, 1.0], counts: vec![1; 3] };
        assert_eq!(a.absolute_difference_sum(&b).unwrap(), 3.0);
        assert_eq!(a.relative_error(&b).unwrap(), 3.0 / 5.0);
        let c = MsdCurve { dt: 0.5, ..b };
        assert!(a.absolute_difference_sum(&c).is_err());
    }
}
