//! Success rate and velocity of a batch of trials, as the paper reports them.

use serde_json::{json, Value};

use super::trial::TrialResult;
use crate::experiment::number;

/// The figures of one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Trials run.
    pub trials: usize,
    /// Successful trials.
    pub successes: usize,
    /// Velocities of the successful trials, sorted, cm/s.
    pub velocities: Vec<f64>,
    /// Times of the successful trials, s.
    pub times: Vec<f64>,
}

/// Quantile `p` of sorted `x` (linear between order statistics, as R's type 7); NaN if empty.
pub fn quantile(x: &[f64], p: f64) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    let h = (x.len() - 1) as f64 * p;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    x[lo] + (h - lo as f64) * (x[hi] - x[lo])
}

impl Stats {
    /// The figures of `results`.
    pub fn of(results: &[TrialResult]) -> Self {
        let ok: Vec<&TrialResult> = results.iter().filter(|r| r.success).collect();
        let mut velocities: Vec<f64> = ok.iter().map(|r| r.velocity_cm_s).collect();
        velocities.sort_by(f64::total_cmp);
        Self { trials: results.len(), successes: ok.len(), velocities, times: ok.iter().map(|r| r.time_s).collect() }
    }

    /// Fraction of trials that succeeded (0..1).
    pub fn success_rate(&self) -> f64 {
        if self.trials == 0 {
            0.0
        } else {
            self.successes as f64 / self.trials as f64
        }
    }

    /// Median velocity of the successful trials, cm/s (0 with no success, as the paper's Fig. 5).
    pub fn median_velocity(&self) -> f64 {
        if self.velocities.is_empty() {
            0.0
        } else {
            quantile(&self.velocities, 0.5)
        }
    }

    /// Mean time of the successful trials, s (NaN with none).
    pub fn mean_time(&self) -> f64 {
        self.times.iter().sum::<f64>() / self.times.len() as f64
    }

    /// The summary keys of `flotilla experiment mhp trials`.
    pub fn to_json(&self) -> Value {
        let min = self.times.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        json!({
            "trials": self.trials,
            "successes": self.successes,
            "success_rate": number(self.success_rate()),
            "velocity_median_cm_s": number(quantile(&self.velocities, 0.5)),
            "velocity_quartiles": [number(quantile(&self.velocities, 0.25)), number(quantile(&self.velocities, 0.75))],
            "mean_time_s": number(self.mean_time()),
            "min_time_s": number(min),
            "max_time_s": number(max),
        })
    }
}

/// `x` with `digits` decimals for a Markdown table, `-` when it is not a number (no trial
/// succeeded).
pub fn cell(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        "-".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(success: bool, time_s: f64, velocity_cm_s: f64) -> TrialResult {
        TrialResult {
            index: 0,
            success,
            time_s,
            velocity_cm_s,
            final_distance_cm: 0.0,
            overshoot_cm: 0.0,
            modules: 1,
            outer_faces: 6,
            bytes: 0,
        }
    }

    #[test]
    fn figures_by_hand() {
        let s = Stats::of(&[result(true, 20.0, 4.0), result(false, 50.0, 1.0), result(true, 10.0, 8.0), result(true, 30.0, 2.0)]);
        assert_eq!(s.success_rate(), 0.75);
        assert_eq!(s.median_velocity(), 4.0);
        let j = s.to_json();
        assert_eq!(j["velocity_quartiles"], json!([3.0, 6.0]));
        assert_eq!((j["mean_time_s"].as_f64(), j["min_time_s"].as_f64(), j["max_time_s"].as_f64()), (Some(20.0), Some(10.0), Some(30.0)));
        let none = Stats::of(&[result(false, 50.0, 1.0)]);
        assert_eq!((none.success_rate(), none.median_velocity()), (0.0, 0.0));
        assert!(none.to_json()["velocity_median_cm_s"].is_null());
        assert_eq!((cell(f64::NAN, 1), cell(f64::INFINITY, 1), cell(2.25, 1)), ("-".to_owned(), "-".to_owned(), "2.2".to_owned()));
    }
}
