//! Mean squared displacement of recordings (SPEC 1), through the shared implementation
//! [`flotilla_common::msd`]: this module lays it over [`RegularTracks`] and reports its
//! errors as [`CalibrationError`]s.

pub use flotilla_common::msd::{MsdCurve, MsdSettings};
use flotilla_common::msd::{MsdError, TrackSet};

use crate::kinematics::RegularTracks;
use crate::CalibrationError;

impl From<MsdError> for CalibrationError {
    fn from(e: MsdError) -> Self {
        match e {
            MsdError::Setting(message) => CalibrationError::Setting(message),
            MsdError::Recording(message) => CalibrationError::Recording(message),
        }
    }
}

impl RegularTracks {
    /// The tracks as the MSD takes them.
    pub fn as_track_set(&self) -> TrackSet<'_> {
        TrackSet { dt: self.dt, tracks: &self.tracks }
    }
}

/// Computes the MSD of `tracks` over windows of `settings.window_frames` lags starting
/// every `settings.start_stride` frames (only whole windows, so every lag averages over
/// the same start times).
pub fn mean_squared_displacement(tracks: &RegularTracks, settings: &MsdSettings) -> Result<MsdCurve, CalibrationError> {
    Ok(flotilla_common::msd::mean_squared_displacement(tracks.as_track_set(), settings)?)
}

/// The MSD pooled over several recordings of the same set-up (all at the same `dt`):
/// every object of every recording contributes its displacement pairs.
pub fn pooled_mean_squared_displacement(recordings: &[RegularTracks], settings: &MsdSettings) -> Result<MsdCurve, CalibrationError> {
    let sets: Vec<TrackSet<'_>> = recordings.iter().map(RegularTracks::as_track_set).collect();
    Ok(flotilla_common::msd::pooled_mean_squared_displacement(&sets, settings)?)
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
    fn too_short_recording_is_a_clear_error() {
        let tracks = RegularTracks { dt: 0.025, tracks: vec![line(&[Some(0.0); 100])] };
        let e = mean_squared_displacement(&tracks, &MsdSettings { window_frames: 2400, start_stride: 40 }).unwrap_err();
        assert!(e.to_string().contains("too short"), "{e}");
        assert!(matches!(e, CalibrationError::Recording(_)));
    }
}
