//! Trajectories on a regular time grid, and velocity/acceleration by smoothed finite
//! differences (a local least-squares quadratic per sample, i.e. a Savitzky-Golay filter
//! that also accepts uneven time stamps).

use flotilla_common::trajectory::{Track, TrajectoryRecording};
use std::ops::Range;

use nalgebra::{Matrix3, Vector2, Vector3};
use serde::Serialize;

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

#[cfg(test)]
impl RegularTracks {
    /// The tracks as a recording (object `k` has id `k`; gaps left out).
    pub(crate) fn to_recording(&self) -> TrajectoryRecording {
        let mut rec = TrajectoryRecording::default();
        for frame in 0..self.frames() {
            for (id, track) in self.tracks.iter().enumerate() {
                if let Some(p) = track[frame] {
                    let sample =
                        flotilla_common::trajectory::TrajectorySample::new(frame as u64, frame as f64 * self.dt, id as u32, p.x, p.y, 0.0);
                    rec.samples.push(sample);
                }
            }
        }
        rec
    }
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

/// Noise standard deviations the jump test allows before it calls a step a jump.
const JUMP_SIGMAS: f64 = 6.0;

/// Settings of the smoothed differentiation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DifferentiationSettings {
    /// Samples on each side of the centre used by the local quadratic fit that gives the
    /// position and the velocity (dimensionless, >= 1; default 3, i.e. 7 samples, ~0.23 s
    /// at 30 Hz).
    pub half_window: usize,
    /// Samples on each side of the fit that gives the acceleration (dimensionless, >= 1;
    /// default 3). Noise enters the acceleration as `1 / window^2.5`, the velocity as
    /// `1 / window^1.5`, so noisy tracks want a wider acceleration window ([`choose_windows`]).
    pub acceleration_half_window: usize,
    /// Two consecutive samples farther apart than this belong to different contiguous
    /// segments; no fit spans a gap (s, default 0.1).
    pub max_gap: f64,
    /// Largest acceleration the tracked objects' own motion shows (m/s^2, default 20); a
    /// step whose velocity departs from its neighbours' by more than this (and by more
    /// than six noise sd) is a tracking jump (an identity swap, a mis-association) and
    /// splits the track there. Infinity: never split.
    pub max_acceleration: f64,
    /// Position noise sd per axis (m, default 0), for the jump test ([`estimate_position_noise`]).
    pub noise_sd: f64,
}

impl Default for DifferentiationSettings {
    fn default() -> Self {
        Self { half_window: 3, acceleration_half_window: 3, max_gap: 0.1, max_acceleration: 20.0, noise_sd: 0.0 }
    }
}

/// The contiguous segments of one track: split at gaps wider than `max_gap` and at
/// jumps (see [`DifferentiationSettings::max_acceleration`]); index ranges into `times`.
pub fn split_segments(times: &[f64], positions: &[Vector2<f64>], settings: &DifferentiationSettings) -> Vec<Range<usize>> {
    let n = times.len();
    if n == 0 {
        return Vec::new();
    }
    // step[k]: velocity from sample k to k + 1, None across a gap.
    let step: Vec<Option<Vector2<f64>>> = (0..n - 1)
        .map(|k| {
            let dt = times[k + 1] - times[k];
            (dt > 0.0 && dt <= settings.max_gap).then(|| (positions[k + 1] - positions[k]) / dt)
        })
        .collect();
    // How far each step's velocity departs from the mean of its neighbours, relative to
    // the threshold (> 1: a jump). For white noise of sd s per axis the departure has sd
    // sqrt(5) s / dt per axis.
    let excess: Vec<f64> = (0..step.len())
        .map(|k| {
            let Some(u) = step[k] else { return 0.0 };
            let mean = match (k.checked_sub(1).and_then(|j| step[j]), step.get(k + 1).copied().flatten()) {
                (Some(before), Some(after)) => (before + after) / 2.0,
                (Some(one), None) | (None, Some(one)) => one,
                (None, None) => return 0.0,
            };
            let dt = times[k + 1] - times[k];
            let threshold = (settings.max_acceleration * dt).max(JUMP_SIGMAS * 5f64.sqrt() * settings.noise_sd / dt);
            (u - mean).norm() / threshold
        })
        .collect();
    let mut segments = Vec::new();
    let mut start = 0;
    for k in 0..step.len() {
        // A jump also disturbs its neighbours' departures (by half); only the largest splits.
        let jump =
            excess[k] > 1.0 && k.checked_sub(1).is_none_or(|j| excess[j] <= excess[k]) && excess.get(k + 1).is_none_or(|&e| e < excess[k]);
        if step[k].is_none() || jump {
            segments.push(start..k + 1);
            start = k + 1;
        }
    }
    segments.push(start..n);
    segments
}

/// Velocity and acceleration at every sample of `times`/`positions` that has enough
/// contiguous neighbours on both sides for both fits (edges of each segment are dropped);
/// no fit spans a gap or a jump ([`split_segments`]).
pub fn differentiate(times: &[f64], positions: &[Vector2<f64>], settings: &DifferentiationSettings) -> Vec<KinematicSample> {
    let hv = settings.half_window.max(1);
    let ha = settings.acceleration_half_window.max(1);
    let h = hv.max(ha);
    let mut out = Vec::new();
    for segment in split_segments(times, positions, settings) {
        if segment.len() < 2 * h + 1 {
            continue;
        }
        for centre in segment.start + h..segment.end - h {
            let Some(mut sample) = local_quadratic(times, positions, centre, hv) else { continue };
            if ha != hv {
                let Some(wide) = local_quadratic(times, positions, centre, ha) else { continue };
                sample.acceleration = wide.acceleration;
            }
            out.push(sample);
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

/// Sums `sum j^2` and `sum j^4` over j = -h..=h.
fn window_moments(h: usize) -> (f64, f64) {
    let h = h as f64;
    let s2 = h * (h + 1.0) * (2.0 * h + 1.0) / 3.0;
    let s4 = h * (h + 1.0) * (2.0 * h + 1.0) * (3.0 * h * h + 3.0 * h - 1.0) / 15.0;
    (s2, s4)
}

/// Noise variance per axis of the local-quadratic velocity on a regular grid of step
/// `dt`, per unit position noise variance (1/s^2): `1 / (dt^2 sum j^2)`.
pub fn velocity_noise_gain(h: usize, dt: f64) -> f64 {
    1.0 / (dt * dt * window_moments(h).0)
}

/// Noise variance per axis of the local-quadratic acceleration on a regular grid of step
/// `dt`, per unit position noise variance (1/s^4): `4 / (dt^4 (sum j^4 - (sum j^2)^2 / n))`.
pub fn acceleration_noise_gain(h: usize, dt: f64) -> f64 {
    let (s2, s4) = window_moments(h);
    4.0 / (dt.powi(4) * (s4 - s2 * s2 / (2 * h + 1) as f64))
}

/// Robust estimate of the position noise sd per axis (m) from the third differences of
/// evenly spaced consecutive samples: for white noise of sd s, `x[k+3] - 3 x[k+2] +
/// 3 x[k+1] - x[k]` has sd `sqrt(20) s`, while a smooth motion contributes only
/// `dt^3` times its jerk. The median absolute value (not the sd) keeps jumps and
/// collisions from inflating it. `None` without four evenly spaced samples.
pub fn estimate_position_noise<'a>(tracks: impl IntoIterator<Item = (&'a [f64], &'a [Vector2<f64>])>) -> Option<f64> {
    let mut values = Vec::new();
    for (times, positions) in tracks {
        for k in 0..times.len().saturating_sub(3) {
            let steps = [times[k + 1] - times[k], times[k + 2] - times[k + 1], times[k + 3] - times[k + 2]];
            if !(steps[0] > 0.0 && steps.iter().all(|s| (s - steps[0]).abs() <= 1e-3 * steps[0])) {
                continue;
            }
            let d3 = positions[k + 3] - 3.0 * positions[k + 2] + 3.0 * positions[k + 1] - positions[k];
            values.extend([d3.x.abs(), d3.y.abs()]);
        }
    }
    if values.is_empty() {
        return None;
    }
    let mid = values.len() / 2;
    let (_, median, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
    // Median of |N(0, 1)| is 0.6745.
    Some(*median / (0.674_49 * 20f64.sqrt()))
}

/// Windows of the smoothed differentiation chosen from the data, and what they cost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WindowChoice {
    /// Measured position noise sd per axis (m).
    pub noise_sd: f64,
    /// Sampling interval the choice assumed, the median step (s).
    pub frame_interval: f64,
    /// Half window of the position/velocity fit (samples).
    pub velocity_half_window: usize,
    /// Half window of the acceleration fit (samples).
    pub acceleration_half_window: usize,
    /// Expected RMS velocity error per axis with the chosen window, bias and noise (m/s).
    pub velocity_error: f64,
    /// Expected RMS acceleration error per axis with the chosen window (m/s^2).
    pub acceleration_error: f64,
    /// The same for the three-point central difference, h = 1 (m/s).
    pub raw_velocity_error: f64,
    /// The same for the narrowest acceleration fit, h = 1 (m/s^2).
    pub raw_acceleration_error: f64,
}

/// Chooses the velocity and acceleration half windows (1..=`max_half_window`) that
/// minimise the expected squared error, bias^2 + noise variance. The noise variance is
/// `noise_sd^2` times the fit's gain ([`velocity_noise_gain`]). The bias of window h is
/// measured against a narrow reference window r (h = 1 for the velocity, 2 for the
/// acceleration) whose bias is small: `E|d_h - d_r|^2 = (b_h - b_r)^2 + noise_sd^2 (g_r -
/// g_h)` (the wider least-squares fit is the minimum-variance unbiased one, so the noise of
/// the difference is the difference of the noise variances), so `b_h^2 ~ mean|d_h - d_r|^2
/// - noise_sd^2 (g_r - g_h)`. Uses the evenly spaced runs of `segments` (from
/// [`split_segments`]) long enough for the widest window. `None` when there is no such run.
pub fn choose_windows(
    tracks: &[(&[f64], &[Vector2<f64>])],
    settings: &DifferentiationSettings,
    noise_sd: f64,
    max_half_window: usize,
) -> Option<WindowChoice> {
    let hmax = max_half_window.max(2);
    let mut steps: Vec<f64> =
        tracks.iter().flat_map(|(t, _)| t.windows(2).map(|w| w[1] - w[0])).filter(|&s| s > 0.0 && s <= settings.max_gap).collect();
    if steps.is_empty() {
        return None;
    }
    let mid = steps.len() / 2;
    let dt = *steps.select_nth_unstable_by(mid, f64::total_cmp).1;
    // Closed-form local-quadratic weights on a regular grid (positions in units of dt).
    let weights = |h: usize| -> (Vec<f64>, Vec<f64>) {
        let (s2, s4) = window_moments(h);
        let n = (2 * h + 1) as f64;
        let js = (-(h as i64)..=h as i64).map(|j| j as f64);
        let v = js.clone().map(|j| j / (s2 * dt)).collect();
        let a = js.map(|j| 2.0 * (j * j - s2 / n) / ((s4 - s2 * s2 / n) * dt * dt)).collect();
        (v, a)
    };
    let all: Vec<(Vec<f64>, Vec<f64>)> = (1..=hmax).map(weights).collect();
    let (mut dv, mut da, mut count) = (vec![0.0; hmax + 1], vec![0.0; hmax + 1], 0usize);
    for &(times, positions) in tracks {
        for segment in split_segments(times, positions, settings) {
            // Evenly spaced runs inside the segment.
            let mut run_start = segment.start;
            for k in segment.start + 1..=segment.end {
                let even = k < segment.end && ((times[k] - times[k - 1]) - dt).abs() <= 1e-3 * dt;
                if even {
                    continue;
                }
                let run = run_start..k;
                run_start = k;
                if run.len() < 2 * hmax + 1 {
                    continue;
                }
                for centre in run.start + hmax..run.end - hmax {
                    let fit = |w: &[f64], h: usize| -> Vector2<f64> {
                        w.iter().zip(&positions[centre - h..=centre + h]).map(|(c, p)| p * *c).sum()
                    };
                    let v_ref = fit(&all[0].0, 1);
                    let a_ref = fit(&all[1].1, 2);
                    for h in 1..=hmax {
                        dv[h] += (fit(&all[h - 1].0, h) - v_ref).norm_squared();
                        da[h] += (fit(&all[h - 1].1, h) - a_ref).norm_squared();
                    }
                    count += 1;
                }
            }
        }
    }
    if count == 0 {
        return None;
    }
    let var = noise_sd * noise_sd;
    // Per-axis mean squared differences (two axes per sample).
    let per_axis = 2.0 * count as f64;
    let mse = |d: &[f64], gain: &dyn Fn(usize) -> f64, reference: usize, h: usize| -> f64 {
        let bias_sq = (d[h] / per_axis - var * (gain(reference) - gain(h))).max(0.0);
        bias_sq + var * gain(h)
    };
    let v_gain = |h: usize| velocity_noise_gain(h, dt);
    let a_gain = |h: usize| acceleration_noise_gain(h, dt);
    let best = |gain: &dyn Fn(usize) -> f64, d: &[f64], reference: usize| -> (usize, f64) {
        (1..=hmax).map(|h| (h, mse(d, gain, reference, h))).min_by(|a, b| a.1.total_cmp(&b.1)).unwrap_or((1, f64::NAN))
    };
    let (hv, ev) = best(&v_gain, &dv, 1);
    let (ha, ea) = best(&a_gain, &da, 2);
    Some(WindowChoice {
        noise_sd,
        frame_interval: dt,
        velocity_half_window: hv,
        acceleration_half_window: ha,
        velocity_error: ev.sqrt(),
        acceleration_error: ea.sqrt(),
        raw_velocity_error: mse(&dv, &v_gain, 1, 1).sqrt(),
        raw_acceleration_error: mse(&da, &a_gain, 2, 1).sqrt(),
    })
}

/// Kinematics of every object of regular tracks, pooled (gaps split segments).
pub fn regular_kinematics(tracks: &RegularTracks, half_window: usize) -> Vec<KinematicSample> {
    let settings = DifferentiationSettings {
        half_window,
        acceleration_half_window: half_window,
        max_gap: 1.5 * tracks.dt,
        max_acceleration: f64::INFINITY,
        noise_sd: 0.0,
    };
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
        let out = differentiate(
            &times,
            &positions,
            &DifferentiationSettings { half_window: 2, acceleration_half_window: 2, max_gap: 1.0, ..DifferentiationSettings::default() },
        );
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
        let out = differentiate(
            &times,
            &positions,
            &DifferentiationSettings { half_window: 1, acceleration_half_window: 1, max_gap: 1.5, ..DifferentiationSettings::default() },
        );
        assert_eq!(out.len(), 1);
        assert!((out[0].velocity.x - 2.0).abs() < 1e-12);
        assert!((out[0].acceleration.x - 2.0).abs() < 1e-12);
    }

    #[test]
    fn fits_never_span_a_gap() {
        let times = [0.0, 0.1, 0.2, 5.0, 5.1, 5.2, 5.3];
        let positions = vec![Vector2::zeros(); 7];
        let out = differentiate(
            &times,
            &positions,
            &DifferentiationSettings { half_window: 1, acceleration_half_window: 1, max_gap: 0.5, ..DifferentiationSettings::default() },
        );
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

    /// Times (s), noisy positions (m), true velocities (m/s), true accelerations (m/s^2).
    type Synthetic = (Vec<f64>, Vec<Vector2<f64>>, Vec<Vector2<f64>>, Vec<Vector2<f64>>);

    /// A smooth 2-D motion with known derivatives: three sinusoids per axis (0.1 m at
    /// 0.1 Hz, 2 cm at 0.5 Hz, 3 mm at 2 Hz), RMS acceleration ~0.4 m/s^2 per axis, like a
    /// stirred ball.
    fn synthetic_track(seconds: f64, noise_sd: f64, seed: u64) -> Synthetic {
        use rand::{Rng, SeedableRng};
        use rand_distr::StandardNormal;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let components: Vec<(f64, f64, f64, f64)> = [(0.1, 0.1), (0.02, 0.5), (0.003, 2.0)]
            .iter()
            .map(|&(amp, f)| (amp, 2.0 * std::f64::consts::PI * f, rng.gen::<f64>() * 6.3, rng.gen::<f64>() * 6.3))
            .collect();
        let dt = 1.0 / 30.0;
        let n = (seconds / dt) as usize;
        let (mut t, mut p, mut v, mut a) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for k in 0..n {
            let time = k as f64 * dt;
            let (mut pk, mut vk, mut ak) = (Vector2::zeros(), Vector2::zeros(), Vector2::zeros());
            for &(amp, w, px, py) in &components {
                pk += amp * Vector2::new((w * time + px).sin(), (w * time + py).cos());
                vk += amp * w * Vector2::new((w * time + px).cos(), -(w * time + py).sin());
                ak -= amp * w * w * Vector2::new((w * time + px).sin(), (w * time + py).cos());
            }
            let noise = Vector2::new(rng.sample::<f64, _>(StandardNormal), rng.sample::<f64, _>(StandardNormal)) * noise_sd;
            t.push(time);
            p.push(pk + noise);
            v.push(vk);
            a.push(ak);
        }
        (t, p, v, a)
    }

    /// RMS per-axis error of velocity and acceleration with fixed windows, against the truth.
    fn rms_errors(track: &Synthetic, hv: usize, ha: usize) -> (f64, f64) {
        let settings = DifferentiationSettings { half_window: hv, acceleration_half_window: ha, ..DifferentiationSettings::default() };
        let out = differentiate(&track.0, &track.1, &settings);
        let (mut ev, mut ea) = (0.0, 0.0);
        for s in &out {
            let k = (s.time * 30.0).round() as usize;
            ev += (s.velocity - track.2[k]).norm_squared();
            ea += (s.acceleration - track.3[k]).norm_squared();
        }
        let n = 2.0 * out.len() as f64;
        ((ev / n).sqrt(), (ea / n).sqrt())
    }

    #[test]
    fn noise_level_is_measured_from_the_tracks() {
        for (noise, seed) in [(0.0005, 1), (0.001, 2), (0.002, 3)] {
            let track = synthetic_track(300.0, noise, seed);
            let measured = estimate_position_noise([(track.0.as_slice(), track.1.as_slice())]).unwrap();
            // The 2 Hz component's jerk (0.003 * 12.6^3 m/s^3) reads as ~0.05 mm of noise,
            // added in quadrature: negligible at 0.5 mm and above.
            assert!((measured / noise - 1.0).abs() < 0.05, "noise {noise} m measured {measured} m");
        }
        let clean = synthetic_track(60.0, 0.0, 4);
        assert!(estimate_position_noise([(clean.0.as_slice(), clean.1.as_slice())]).unwrap() < 1e-4);
        assert_eq!(estimate_position_noise([(&[0.0, 1.0, 2.0][..], &[Vector2::zeros(); 3][..])]), None);
    }

    #[test]
    fn noise_gains_match_the_hand_values() {
        // h = 1: central difference, var = 2 s^2 / (2 dt)^2 = 1 / (2 dt^2); second difference var = 6 s^2 / dt^4.
        assert!((velocity_noise_gain(1, 0.1) - 50.0).abs() < 1e-9);
        assert!((acceleration_noise_gain(1, 0.1) - 6e4).abs() < 1e-6);
        // h = 3: sum j^2 = 28, sum j^4 - 28^2 / 7 = 84.
        assert!((velocity_noise_gain(3, 1.0) - 1.0 / 28.0).abs() < 1e-12);
        assert!((acceleration_noise_gain(3, 1.0) - 4.0 / 84.0).abs() < 1e-12);
    }

    #[test]
    fn chosen_windows_beat_raw_differences_and_are_near_the_best() {
        for (noise, seed) in [(0.0005, 11), (0.001, 12), (0.002, 13)] {
            let track = synthetic_track(300.0, noise, seed);
            let sd = estimate_position_noise([(track.0.as_slice(), track.1.as_slice())]).unwrap();
            let choice = choose_windows(&[(track.0.as_slice(), track.1.as_slice())], &DifferentiationSettings::default(), sd, 15).unwrap();
            let (ev, ea) = rms_errors(&track, choice.velocity_half_window, choice.acceleration_half_window);
            let (raw_v, raw_a) = rms_errors(&track, 1, 1);
            let best_v = (1..=15).map(|h| rms_errors(&track, h, h).0).fold(f64::INFINITY, f64::min);
            let best_a = (1..=15).map(|h| rms_errors(&track, h, h).1).fold(f64::INFINITY, f64::min);
            eprintln!(
                "noise {noise}: h_v {} err {ev:.5} (raw {raw_v:.5}, best {best_v:.5}, predicted {:.5}); h_a {} err {ea:.4} (raw {raw_a:.3}, best {best_a:.4}, predicted {:.4})",
                choice.velocity_half_window, choice.velocity_error, choice.acceleration_half_window, choice.acceleration_error
            );
            // Within 25 % of the best fixed window, and well below the raw differences.
            assert!(ev < 1.25 * best_v && ev < 0.6 * raw_v, "velocity error {ev} (best {best_v}, raw {raw_v})");
            assert!(ea < 1.25 * best_a && ea < 0.2 * raw_a, "acceleration error {ea} (best {best_a}, raw {raw_a})");
            // Stated bounds: at 2 mm noise, 1.5 cm/s and 0.2 m/s^2 per axis (signal RMS 0.6 m/s^2).
            assert!(ev < 0.015 && ea < 0.2, "errors {ev} m/s, {ea} m/s^2 at {noise} m noise");
            // The predicted error is the measured one to within 40 % (the reference window's
            // own bias is taken as zero; measured: 7-37 %).
            assert!((choice.velocity_error / ev - 1.0).abs() < 0.4 && (choice.acceleration_error / ea - 1.0).abs() < 0.4);
        }
    }

    #[test]
    fn noise_free_tracks_get_narrow_windows() {
        // Without noise only bias counts: the narrowest windows, i.e. the references (the
        // acceleration's is h = 2, whose own bias the choice cannot see).
        let track = synthetic_track(120.0, 0.0, 5);
        let choice = choose_windows(&[(track.0.as_slice(), track.1.as_slice())], &DifferentiationSettings::default(), 0.0, 15).unwrap();
        assert_eq!((choice.velocity_half_window, choice.acceleration_half_window), (1, 2), "{choice:?}");
    }

    #[test]
    fn an_identity_swap_splits_the_track_and_noise_does_not() {
        // Two balls 4 cm apart; at frame 300 the tracker swaps their labels.
        let (t, p, v, _) = synthetic_track(20.0, 0.002, 21);
        let other: Vec<Vector2<f64>> = p.iter().map(|q| q + Vector2::new(0.04, 0.0)).collect();
        let swapped: Vec<Vector2<f64>> = (0..p.len()).map(|k| if k < 300 { p[k] } else { other[k] }).collect();
        let settings = DifferentiationSettings { noise_sd: 0.002, ..DifferentiationSettings::default() };
        assert_eq!(split_segments(&t, &p, &settings), vec![0..p.len()]);
        assert_eq!(split_segments(&t, &swapped, &settings), vec![0..300, 300..p.len()]);
        // Without the split, a window across the swap reads the 4 cm jump as a velocity of
        // up to ~(3 / 14) 0.04 * 30 = 0.26 m/s; with it, every velocity is close to the truth.
        let v_error = |settings: &DifferentiationSettings| {
            differentiate(&t, &swapped, settings)
                .iter()
                .map(|s| (s.velocity - v[(s.time * 30.0).round() as usize]).norm())
                .fold(0.0, f64::max)
        };
        let out = differentiate(&t, &swapped, &settings);
        assert_eq!(out.len(), differentiate(&t, &p, &settings).len() - 2 * 3);
        assert!(v_error(&settings) < 0.05, "largest velocity error {} m/s", v_error(&settings));
        let unsplit = DifferentiationSettings { max_acceleration: f64::INFINITY, noise_sd: 0.0, ..settings };
        assert!(v_error(&unsplit) > 0.2, "largest velocity error without the split {} m/s", v_error(&unsplit));
    }

    #[test]
    fn dropouts_split_segments_and_no_derivative_spans_them() {
        let (t, p, ..) = synthetic_track(10.0, 0.0005, 31);
        // Drop frames 100..130 (1 s) and a single frame 200 (a 67 ms step stays within max_gap 0.1 s).
        let keep: Vec<usize> = (0..t.len()).filter(|&k| !(100..130).contains(&k)).collect();
        let (tk, pk): (Vec<f64>, Vec<Vector2<f64>>) = keep.iter().map(|&k| (t[k], p[k])).unzip();
        let segments = split_segments(&tk, &pk, &DifferentiationSettings::default());
        assert_eq!(segments, vec![0..100, 100..tk.len()]);
        let out = differentiate(&tk, &pk, &DifferentiationSettings::default());
        assert!(out.iter().all(|s| s.time < t[100 - 3] || s.time > t[130 + 2]), "a fit spans the dropout");
    }
}
