//! Trajectories on a regular time grid, and velocity/acceleration by smoothed finite
//! differences (a local least-squares quadratic per sample, i.e. a Savitzky-Golay filter
//! that also accepts uneven time stamps).

use flotilla_common::trajectory::{Track, TrajectoryRecording};
use nalgebra::{Matrix3, Vector2, Vector3};

use crate::CalibrationError;

/// Trajectories of several objects sampled on one regular time grid; `None` marks a gap.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegularTracks {
    /// Time between consecutive frames (s).
    pub dt: f64,
    /// Position of each object at each frame, `tracks[object][frame]` (m); all tracks
    /// have the same length.
    pub tracks: Vec<Vec<Option<Vector2<f64>>>>,
}

impl RegularTracks {
    /// Number of frames (the length of every track).
    pub fn frames(&self) -> usize {
        self.tracks.first().map_or(0, Vec::len)
    }

    /// Duration covered, first to last frame (s).
    pub fn duration(&self) -> f64 {
        self.frames().saturating_sub(1) as f64 * self.dt
    }

    /// Resamples a recording onto a grid of step `dt` starting at its first frame, by
    /// linear interpolation between consecutive samples of an object that are at most
    /// `max_gap` apart; wider gaps stay gaps.
    pub fn resample(recording: &TrajectoryRecording, dt: f64, max_gap: f64) -> Result<Self, CalibrationError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(CalibrationError::Setting(format!("resampling step must be > 0 s, got {dt}")));
        }
        if !(max_gap.is_finite() && max_gap >= 0.0) {
            return Err(CalibrationError::Setting(format!("maximum interpolation gap must be >= 0 s, got {max_gap}")));
        }
        let (Some(first), Some(last)) = (recording.samples.first(), recording.samples.last()) else {
            return Err(CalibrationError::Recording("the recording has no samples".into()));
        };
        let (t_start, t_end) = (first.time, last.time);
        // The small tolerance keeps a final frame that lands on the grid up to rounding.
        let span = (t_end - t_start) / dt + 1e-9;
        // Interpolation fills at most a few frames around each sample; a time span far
        // beyond that is a broken time column, and would only allocate empty frames.
        let limit = 1000 * (recording.samples.len() + 1);
        if span.is_nan() || span >= limit as f64 {
            return Err(CalibrationError::Recording(format!(
                "the recording spans {} s ({t_start} to {t_end} s) but has only {} samples; check its time column",
                t_end - t_start,
                recording.samples.len()
            )));
        }
        let frames = span.floor() as usize + 1;
        let tracks = recording.tracks().iter().map(|track| resample_track(track, t_start, dt, frames, max_gap)).collect();
        Ok(Self { dt, tracks })
    }
}

fn resample_track(track: &Track, t_start: f64, dt: f64, frames: usize, max_gap: f64) -> Vec<Option<Vector2<f64>>> {
    let mut out = vec![None; frames];
    let tolerance = 1e-9 * dt;
    for (k, pair) in track.times.windows(2).enumerate() {
        let (ta, tb) = (pair[0], pair[1]);
        if tb - ta > max_gap + tolerance {
            continue;
        }
        let (pa, pb) = (track.positions[k], track.positions[k + 1]);
        let first = ((ta - t_start) / dt - 1e-9).ceil().max(0.0) as usize;
        for (frame, slot) in out.iter_mut().enumerate().skip(first) {
            let t = t_start + frame as f64 * dt;
            if t > tb + tolerance {
                break;
            }
            let s = ((t - ta) / (tb - ta)).clamp(0.0, 1.0);
            *slot = Some(pa + (pb - pa) * s);
        }
    }
    // A lone sample (no neighbour within max_gap) still occupies its own grid frame.
    for (t, p) in track.times.iter().zip(&track.positions) {
        let frame = ((t - t_start) / dt).round();
        if frame >= 0.0 && (frame as usize) < frames && (t_start + frame * dt - t).abs() <= tolerance.max(1e-12) {
            out[frame as usize].get_or_insert(*p);
        }
    }
    out
}

/// Position, velocity and acceleration of one object at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KinematicSample {
    /// Time (s).
    pub time: f64,
    /// Smoothed position (m).
    pub position: Vector2<f64>,
    /// Velocity (m/s).
    pub velocity: Vector2<f64>,
    /// Acceleration (m/s^2).
    pub acceleration: Vector2<f64>,
}

/// Settings of the smoothed differentiation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DifferentiationSettings {
    /// Samples on each side of the centre used by the local quadratic fit
    /// (dimensionless, >= 1; default 3, i.e. 7 samples, ~0.23 s at 30 Hz).
    pub half_window: usize,
    /// Two consecutive samples farther apart than this belong to different contiguous
    /// segments; no fit spans a gap (s, default 0.1).
    pub max_gap: f64,
}

impl Default for DifferentiationSettings {
    fn default() -> Self {
        Self { half_window: 3, max_gap: 0.1 }
    }
}

/// Velocity and acceleration at every sample of `times`/`positions` that has
/// `half_window` contiguous neighbours on both sides (edges of each segment are dropped).
pub fn differentiate(times: &[f64], positions: &[Vector2<f64>], settings: &DifferentiationSettings) -> Vec<KinematicSample> {
    let h = settings.half_window.max(1);
    let mut out = Vec::new();
    let mut segment_start = 0;
    for end in 1..=times.len() {
        let split = end == times.len() || times[end] - times[end - 1] > settings.max_gap;
        if !split {
            continue;
        }
        let segment = segment_start..end;
        segment_start = end;
        if segment.len() < 2 * h + 1 {
            continue;
        }
        for centre in segment.start + h..segment.end - h {
            if let Some(sample) = local_quadratic(times, positions, centre, h) {
                out.push(sample);
            }
        }
    }
    out
}

/// Least-squares fit `p(tau) = c0 + c1 tau + c2 tau^2` (tau = t - t_centre) over the
/// window; returns p(0), p'(0) = c1 and p''(0) = 2 c2. `None` if the times are degenerate.
fn local_quadratic(times: &[f64], positions: &[Vector2<f64>], centre: usize, h: usize) -> Option<KinematicSample> {
    let t0 = times[centre];
    let mut normal = Matrix3::zeros();
    let mut rhs_x = Vector3::zeros();
    let mut rhs_y = Vector3::zeros();
    for j in centre - h..=centre + h {
        let tau = times[j] - t0;
        let basis = Vector3::new(1.0, tau, tau * tau);
        normal += basis * basis.transpose();
        rhs_x += basis * positions[j].x;
        rhs_y += basis * positions[j].y;
    }
    let inverse = normal.try_inverse()?;
    let cx = inverse * rhs_x;
    let cy = inverse * rhs_y;
    Some(KinematicSample {
        time: t0,
        position: Vector2::new(cx[0], cy[0]),
        velocity: Vector2::new(cx[1], cy[1]),
        acceleration: Vector2::new(2.0 * cx[2], 2.0 * cy[2]),
    })
}

/// Kinematics of every object of a recording, pooled.
pub fn recording_kinematics(recording: &TrajectoryRecording, settings: &DifferentiationSettings) -> Vec<KinematicSample> {
    recording.tracks().iter().flat_map(|t| differentiate(&t.times, &t.positions, settings)).collect()
}

/// Kinematics of every object of regular tracks, pooled (gaps split segments).
pub fn regular_kinematics(tracks: &RegularTracks, half_window: usize) -> Vec<KinematicSample> {
    let settings = DifferentiationSettings { half_window, max_gap: 1.5 * tracks.dt };
    tracks
        .tracks
        .iter()
        .flat_map(|track| {
            let (times, positions): (Vec<f64>, Vec<Vector2<f64>>) =
                track.iter().enumerate().filter_map(|(k, p)| p.map(|p| (k as f64 * tracks.dt, p))).unzip();
            differentiate(&times, &positions, &settings)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_common::trajectory::TrajectorySample;

    #[test]
    fn quadratic_motion_gives_exact_velocity_and_acceleration() {
        // x = 1 + 2 t + 3 t^2, y = -t^2 / 2, sampled unevenly: v = (2 + 6 t, -t), a = (6, -1).
        let times: Vec<f64> = (0..12).map(|k| 0.03 * k as f64 + 0.004 * ((k * 7) % 3) as f64).collect();
        let positions: Vec<_> = times.iter().map(|&t| Vector2::new(1.0 + 2.0 * t + 3.0 * t * t, -0.5 * t * t)).collect();
        let out = differentiate(&times, &positions, &DifferentiationSettings { half_window: 2, max_gap: 1.0 });
        assert_eq!(out.len(), 12 - 4);
        for s in out {
            assert!((s.velocity - Vector2::new(2.0 + 6.0 * s.time, -s.time)).norm() < 1e-9);
            assert!((s.acceleration - Vector2::new(6.0, -1.0)).norm() < 1e-8);
        }
    }

    #[test]
    fn three_point_window_is_the_central_difference() {
        // Hand value: positions 0, 1, 4 at t = 0, 1, 2 -> v(1) = (4 - 0) / 2 = 2, a(1) = 4 - 2 + 0 = 2.
        let times = [0.0, 1.0, 2.0];
        let positions = [Vector2::new(0.0, 0.0), Vector2::new(1.0, 0.0), Vector2::new(4.0, 0.0)];
        let out = differentiate(&times, &positions, &DifferentiationSettings { half_window: 1, max_gap: 1.5 });
        assert_eq!(out.len(), 1);
        assert!((out[0].velocity.x - 2.0).abs() < 1e-12);
        assert!((out[0].acceleration.x - 2.0).abs() < 1e-12);
    }

    #[test]
    fn fits_never_span_a_gap() {
        let times = [0.0, 0.1, 0.2, 5.0, 5.1, 5.2, 5.3];
        let positions = vec![Vector2::zeros(); 7];
        let out = differentiate(&times, &positions, &DifferentiationSettings { half_window: 1, max_gap: 0.5 });
        let centres: Vec<f64> = out.iter().map(|s| s.time).collect();
        assert_eq!(centres, vec![0.1, 5.1, 5.2]);
    }

    #[test]
    fn a_broken_time_column_is_refused_before_allocating() {
        let mut rec = TrajectoryRecording::default();
        rec.samples.push(TrajectorySample::new(0, 0.0, 0, 0.0, 0.0, 0.0));
        rec.samples.push(TrajectorySample::new(1, 1e15, 0, 0.0, 0.0, 0.0));
        let e = RegularTracks::resample(&rec, 0.025, 0.1).unwrap_err().to_string();
        assert!(e.contains("only 2 samples") && e.contains("time column"), "{e}");
    }

    #[test]
    fn resampling_interpolates_and_keeps_gaps() {
        let mut rec = TrajectoryRecording::default();
        // id 0 at t = 0, 0.1, 0.2 moving 1 m/s in x; id 1 at t = 0 and t = 0.2 only (gap 0.2 s).
        for (frame, t) in [(0u64, 0.0), (1, 0.1), (2, 0.2)] {
            rec.samples.push(TrajectorySample::new(frame, t, 0, t, 0.0, 0.0));
            if frame != 1 {
                rec.samples.push(TrajectorySample::new(frame, t, 1, 0.0, t, 0.0));
            }
        }
        let r = RegularTracks::resample(&rec, 0.05, 0.15).unwrap();
        assert_eq!(r.frames(), 5);
        let x: Vec<f64> = r.tracks[0].iter().map(|p| p.unwrap().x).collect();
        for (k, v) in x.iter().enumerate() {
            assert!((v - 0.05 * k as f64).abs() < 1e-12);
        }
        // id 1: only the two end samples, the 0.2 s gap is wider than 0.15 s.
        assert_eq!(r.tracks[1].iter().filter(|p| p.is_some()).count(), 2);
        assert!(r.tracks[1][2].is_none());
        assert!(RegularTracks::resample(&rec, 0.0, 0.1).is_err());
    }
}
