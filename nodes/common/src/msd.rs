//! Mean squared displacement (SPEC 1): `MSD(t_i) = < |R_k(t0 + t_i) - R_k(t0)|^2 >`,
//! pooled over objects k and averaged over window start times t0, with the shape figures
//! of a tank's MSD (first peak of the oscillation, plateau). Gap-aware: a pair of frames
//! counts only when the object was seen at both, so a gap never contributes a zero
//! displacement. The one implementation: calibration fitness, physics tests and
//! experiments all use it.

use nalgebra::Vector2;
use serde::{Deserialize, Serialize};

/// Why an MSD cannot be computed or compared.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MsdError {
    /// A setting is unusable, or two curves are not comparable.
    #[error("{0}")]
    Setting(String),
    /// The tracks cannot give the MSD asked for (too short, too gappy, none).
    #[error("{0}")]
    Recording(String),
}

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

/// Positions of several objects on one regular time grid.
#[derive(Clone, Copy, Debug)]
pub struct TrackSet<'a> {
    /// Time between consecutive frames (s).
    pub dt: f64,
    /// Position of each object at each frame, `tracks[object][frame]` (m); `None` where
    /// the object was not seen. All tracks have the same length.
    pub tracks: &'a [Vec<Option<Vector2<f64>>>],
}

impl TrackSet<'_> {
    /// Number of frames (the length of every track).
    pub fn frames(&self) -> usize {
        self.tracks.first().map_or(0, Vec::len)
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
    /// Lag of `values[index]` (s).
    pub fn lag(&self, index: usize) -> f64 {
        (index + 1) as f64 * self.dt
    }

    /// Lag time of each value (s).
    pub fn lags(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.values.len()).map(move |i| self.lag(i))
    }

    /// The paper's fitness: `sum_i |MSD_self(t_i) - MSD_reference(t_i)|` (m^2). Errors
    /// when the curves differ in length or frame interval.
    pub fn absolute_difference_sum(&self, reference: &MsdCurve) -> Result<f64, MsdError> {
        self.check_comparable(reference)?;
        Ok(self.values.iter().zip(&reference.values).map(|(a, b)| (a - b).abs()).sum())
    }

    /// `sum |MSD_self - MSD_ref| / sum MSD_ref` (dimensionless).
    pub fn relative_error(&self, reference: &MsdCurve) -> Result<f64, MsdError> {
        let total: f64 = reference.values.iter().sum();
        Ok(self.absolute_difference_sum(reference)? / total)
    }

    /// Index into `values` of the first local maximum that reaches `min_height` (m^2): the
    /// stirring's oscillation peaks there (about half a circulation period). The MSD at
    /// lag 0 is 0, so the first value can be a peak too. None when the curve has none.
    pub fn first_peak(&self, min_height: f64) -> Option<usize> {
        let v = &self.values;
        (0..v.len().saturating_sub(1)).find(|&i| {
            let before = if i == 0 { 0.0 } else { v[i - 1] };
            v[i] >= min_height && v[i] >= before && v[i] > v[i + 1]
        })
    }

    /// Mean of the values over the last `fraction` (0..1] of the lags: the plateau, the
    /// largest effective displacement once the oscillation has settled (m^2).
    pub fn plateau(&self, fraction: f64) -> f64 {
        let len = self.values.len();
        let n = ((len as f64 * fraction).ceil() as usize).clamp(1, len.max(1));
        let tail = &self.values[len.saturating_sub(n)..];
        tail.iter().sum::<f64>() / tail.len().max(1) as f64
    }

    fn check_comparable(&self, reference: &MsdCurve) -> Result<(), MsdError> {
        if self.values.len() != reference.values.len() || (self.dt - reference.dt).abs() > 1e-9 * reference.dt {
            return Err(MsdError::Setting(format!(
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
pub fn mean_squared_displacement(tracks: TrackSet<'_>, settings: &MsdSettings) -> Result<MsdCurve, MsdError> {
    pooled_mean_squared_displacement(&[tracks], settings)
}

/// The MSD pooled over several recordings of the same set-up (all at the same `dt`):
/// every object of every recording contributes its displacement pairs. Recordings of one
/// length without gaps (seeds of a simulation) give the mean of their MSDs.
pub fn pooled_mean_squared_displacement(recordings: &[TrackSet<'_>], settings: &MsdSettings) -> Result<MsdCurve, MsdError> {
    let n_s = settings.window_frames;
    if n_s == 0 {
        return Err(MsdError::Setting("MSD window must have at least 1 lag".into()));
    }
    if settings.start_stride == 0 {
        return Err(MsdError::Setting("MSD start stride must be at least 1 frame".into()));
    }
    let Some(dt) = recordings.first().map(|r| r.dt) else {
        return Err(MsdError::Recording("no recording given for the MSD".into()));
    };
    // Every recording is checked before the window is allocated: a window far longer
    // than the data must be an error, not an allocation failure.
    for (index, tracks) in recordings.iter().enumerate() {
        if (tracks.dt - dt).abs() > 1e-9 * dt {
            return Err(MsdError::Recording(format!("recording {index} is sampled at {} s, the first at {dt} s", tracks.dt)));
        }
        let frames = tracks.frames();
        if frames <= n_s {
            return Err(MsdError::Recording(format!(
                "recording {index} is too short for the MSD window: {} s ({frames} frames at {dt} s) but the window needs {} s ({} frames)",
                frames.saturating_sub(1) as f64 * tracks.dt,
                n_s as f64 * dt,
                n_s.saturating_add(1)
            )));
        }
    }
    let mut sums = vec![0.0; n_s];
    let mut counts = vec![0u64; n_s];
    for tracks in recordings {
        let frames = tracks.frames();
        for track in tracks.tracks {
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
        return Err(MsdError::Recording(format!(
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

    fn line(xs: &[Option<f64>]) -> Vec<Option<Vector2<f64>>> {
        xs.iter().map(|x| x.map(|x| Vector2::new(x, 0.0))).collect()
    }

    fn settings(window_frames: usize, start_stride: usize) -> MsdSettings {
        MsdSettings { window_frames, start_stride }
    }

    #[test]
    fn hand_computed_single_particle() {
        // x = 0, 1, 3: lag 1 -> (1^2 + 2^2) / 2 = 2.5; lag 2 -> 3^2 = 9 (window 1 uses
        // starts 0 and 1; window 2 uses start 0 only).
        let tracks = [line(&[Some(0.0), Some(1.0), Some(3.0)])];
        let set = TrackSet { dt: 0.5, tracks: &tracks };
        assert_eq!(mean_squared_displacement(set, &settings(1, 1)).unwrap().values, vec![2.5]);
        let two = mean_squared_displacement(set, &settings(2, 1)).unwrap();
        assert_eq!(two.values, vec![1.0, 9.0]);
        assert_eq!(two.lags().collect::<Vec<_>>(), vec![0.5, 1.0]);
    }

    #[test]
    fn gaps_are_skipped_not_counted_as_zero() {
        // Particle A: 0, gap, 2 ; particle B: 0, 1, 2. Lag 1 pairs (stride 1, window 1):
        // A has none (gap at both), B: 1, 1 -> MSD 1. Lag 2 (window 2, start 0): A 4, B 4.
        let tracks = [line(&[Some(0.0), None, Some(2.0)]), line(&[Some(0.0), Some(1.0), Some(2.0)])];
        let m = mean_squared_displacement(TrackSet { dt: 1.0, tracks: &tracks }, &settings(2, 1)).unwrap();
        assert_eq!(m.values, vec![1.0, 4.0]);
        assert_eq!(m.counts, vec![1, 2]);
        let hole = [line(&[Some(0.0), None, None, Some(1.0)])];
        let e = mean_squared_displacement(TrackSet { dt: 1.0, tracks: &hole }, &settings(1, 1)).unwrap_err();
        assert!(e.to_string().contains("too many gaps"), "{e}");
    }

    #[test]
    fn pooling_recordings_pools_pairs() {
        // Recording A: x = 0, 2 (one pair, 4); recording B: x = 0, 1, 1 (pairs 1, 0).
        let a = [line(&[Some(0.0), Some(2.0)])];
        let b = [line(&[Some(0.0), Some(1.0), Some(1.0)])];
        let sets = [TrackSet { dt: 1.0, tracks: &a }, TrackSet { dt: 1.0, tracks: &b }];
        assert_eq!(pooled_mean_squared_displacement(&sets, &settings(1, 1)).unwrap().values, vec![5.0 / 3.0]);
        let mixed = [TrackSet { dt: 0.5, tracks: &b }, TrackSet { dt: 1.0, tracks: &b }];
        assert!(pooled_mean_squared_displacement(&mixed, &settings(1, 1)).is_err());
        assert!(pooled_mean_squared_displacement(&[], &settings(1, 1)).is_err());
    }

    #[test]
    fn bad_settings_and_short_recordings_are_clear_errors() {
        let tracks = [line(&[Some(0.0); 100])];
        let set = TrackSet { dt: 0.025, tracks: &tracks };
        let e = mean_squared_displacement(set, &settings(2400, 40)).unwrap_err();
        assert!(e.to_string().contains("too short") && e.to_string().contains("2401 frames"), "{e}");
        assert!(mean_squared_displacement(set, &settings(0, 40)).unwrap_err().to_string().contains("at least 1 lag"));
        assert!(mean_squared_displacement(set, &settings(10, 0)).unwrap_err().to_string().contains("stride"));
    }

    #[test]
    fn fitness_is_the_sum_of_absolute_differences() {
        let a = MsdCurve { dt: 1.0, values: vec![1.0, 2.0, 3.0], counts: vec![1; 3] };
        let b = MsdCurve { dt: 1.0, values: vec![2.0, 2.0, 1.0], counts: vec![1; 3] };
        assert_eq!(a.absolute_difference_sum(&b).unwrap(), 3.0);
        assert_eq!(a.relative_error(&b).unwrap(), 3.0 / 5.0);
        let c = MsdCurve { dt: 0.5, ..b };
        assert!(a.absolute_difference_sum(&c).unwrap_err().to_string().contains("differ"));
    }

    #[test]
    fn circular_motion_peaks_at_half_a_turn_and_settles_on_its_mean() {
        // Radius 1, 20 frames per turn: MSD = 2 (1 - cos) peaks at lag 10 (index 9) with
        // value 4; averaged over whole turns its plateau is 2.
        let track: Vec<Option<Vector2<f64>>> = (0..100)
            .map(|t| {
                let a = t as f64 * std::f64::consts::TAU / 20.0;
                Some(Vector2::new(a.cos(), a.sin()))
            })
            .collect();
        let curve = mean_squared_displacement(TrackSet { dt: 0.1, tracks: &[track] }, &settings(40, 1)).unwrap();
        let peak = curve.first_peak(0.1).unwrap();
        assert_eq!(peak, 9);
        assert!((curve.lag(peak) - 1.0).abs() < 1e-12);
        assert!((curve.values[peak] - 4.0).abs() < 1e-12);
        assert!((curve.plateau(0.5) - 2.0).abs() < 1e-9);
        assert_eq!(curve.first_peak(5.0), None, "no peak reaches 5 m^2");
    }

    #[test]
    fn a_first_value_above_the_next_is_a_peak() {
        let curve = MsdCurve { dt: 1.0, values: vec![2.0, 1.0, 1.5, 1.0], counts: vec![1; 4] };
        assert_eq!(curve.first_peak(0.5), Some(0));
        assert_eq!(curve.first_peak(1.8), Some(0));
        assert_eq!(curve.first_peak(2.5), None);
        assert_eq!(curve.plateau(0.5), 1.25);
    }
}
