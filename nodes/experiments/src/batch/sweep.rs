//! Many runs in parallel, and their yield curves.

use super::{run, BatchError, RunResult, TankExperiment};
use rayon::prelude::*;

/// Every experiment with every seed (in parallel); results in experiment-major order.
/// `on_finished` is called after each run (from the worker that ran it).
pub fn sweep(experiments: &[TankExperiment], seeds: &[u64], on_finished: &(dyn Fn() + Sync)) -> Result<Vec<RunResult>, BatchError> {
    let jobs: Vec<(&TankExperiment, u64)> = experiments.iter().flat_map(|e| seeds.iter().map(move |&s| (e, s))).collect();
    jobs.par_iter()
        .map(|(e, s)| {
            let result = run(e, *s);
            on_finished();
            result
        })
        .collect()
}

/// Yield over time of one experiment across seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct YieldCurve {
    /// Experiment label.
    pub label: String,
    /// Sample times, s.
    pub times: Vec<f64>,
    /// Mean yield over seeds at each time, 0..1.
    pub mean: Vec<f64>,
    /// Smallest yield over seeds, 0..1.
    pub min: Vec<f64>,
    /// Largest yield over seeds, 0..1.
    pub max: Vec<f64>,
    /// Seeds behind each point.
    pub runs: usize,
}

impl YieldCurve {
    /// The curve of the runs labelled `label` (their series must share sample times; the
    /// curve stops at the shortest).
    pub fn from_runs(label: &str, results: &[RunResult]) -> Self {
        let runs: Vec<&RunResult> = results.iter().filter(|r| r.label == label).collect();
        let len = runs.iter().map(|r| r.series.len()).min().unwrap_or(0);
        let mut curve =
            YieldCurve { label: label.to_owned(), times: Vec::new(), mean: Vec::new(), min: Vec::new(), max: Vec::new(), runs: runs.len() };
        for i in 0..len {
            let values: Vec<f64> = runs.iter().map(|r| r.series[i].yield_fraction).collect();
            curve.times.push(runs[0].series[i].time);
            curve.mean.push(values.iter().sum::<f64>() / values.len() as f64);
            curve.min.push(values.iter().copied().fold(f64::INFINITY, f64::min));
            curve.max.push(values.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        }
        curve
    }

    /// (mean, min, max) at the first sample at or after `time` s, if any.
    pub fn at(&self, time: f64) -> Option<(f64, f64, f64)> {
        let i = self.times.iter().position(|&t| t >= time - 1e-9)?;
        Some((self.mean[i], self.min[i], self.max[i]))
    }
}
