//! The validation report (issue #19 item 6): is the calibrated model good? A long
//! simulation of the calibrated parameters against the recordings: MSD, occupancy and
//! mean-velocity maps, per-cell speed distributions compared by a two-sample
//! Kolmogorov-Smirnov test, and a verdict line with the criteria it used.
//!
//! Consecutive samples of one ball are not independent, so the KS p-value of a cell uses
//! an effective sample size: each visit of a ball to the cell (a run of consecutive
//! frames in it) counts `ceil(frames / tau)` samples, `tau` the integrated
//! autocorrelation time of the speed along the tracks (frames). All samples still enter
//! the empirical distributions; only the test's sample size is corrected.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::flow_estimation::kolmogorov_q;
use crate::kinematics::{regular_kinematics, KinematicSample, RegularTracks};
use crate::maps::{correlation, GridSpec, MapComparison};
use crate::output::plots::{plot_heat_maps, plot_histograms, ColourScale, HeatPanel};
use crate::output::write_atomically;
use crate::CalibrationError;

/// Thresholds of one verdict level; a model meets the level when all three hold.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Criteria {
    /// Largest `sum |MSD_sim - MSD_real| / sum MSD_real` (dimensionless).
    pub max_relative_msd_error: f64,
    /// Smallest Pearson correlation of the occupancy maps (dimensionless).
    pub min_occupancy_correlation: f64,
    /// Smallest fraction of tested cells whose speed distributions the KS test does not
    /// tell apart at `alpha` (dimensionless).
    pub min_ks_pass_fraction: f64,
}

/// Settings of the validation report.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ValidationSettings {
    /// Significance level of the per-cell two-sample KS test (dimensionless; default 0.05).
    pub alpha: f64,
    /// Fewest effective samples (independent visits) on each side for a cell to be
    /// tested (dimensionless; default 10).
    pub min_effective_samples: f64,
    /// Longest lag of the speed autocorrelation summed into `tau` (s; default 10).
    pub max_correlation_lag: f64,
    /// GOOD: the targets (10 % MSD, occupancy 0.85) and 80 % of the cells passing.
    pub good: Criteria,
    /// MARGINAL: below GOOD but within these; POOR otherwise.
    pub marginal: Criteria,
}

impl Default for ValidationSettings {
    fn default() -> Self {
        Self {
            alpha: 0.05,
            min_effective_samples: 10.0,
            max_correlation_lag: 10.0,
            good: Criteria { max_relative_msd_error: 0.10, min_occupancy_correlation: 0.85, min_ks_pass_fraction: 0.80 },
            marginal: Criteria { max_relative_msd_error: 0.20, min_occupancy_correlation: 0.70, min_ks_pass_fraction: 0.50 },
        }
    }
}

impl ValidationSettings {
    /// Errors naming the first setting out of range.
    pub fn validate(&self) -> Result<(), CalibrationError> {
        let unit = |v: f64| v.is_finite() && (0.0..=1.0).contains(&v);
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(CalibrationError::Setting(format!("validation.alpha must be in (0, 1), got {}", self.alpha)));
        }
        if !(self.min_effective_samples.is_finite() && self.min_effective_samples >= 2.0) {
            return Err(CalibrationError::Setting(format!(
                "validation.min_effective_samples must be >= 2, got {}",
                self.min_effective_samples
            )));
        }
        if !(self.max_correlation_lag.is_finite() && self.max_correlation_lag > 0.0) {
            return Err(CalibrationError::Setting(format!(
                "validation.max_correlation_lag must be > 0 s, got {}",
                self.max_correlation_lag
            )));
        }
        for (name, c) in [("good", &self.good), ("marginal", &self.marginal)] {
            if !(c.max_relative_msd_error.is_finite()
                && c.max_relative_msd_error >= 0.0
                && unit(c.min_ks_pass_fraction)
                && c.min_occupancy_correlation.is_finite()
                && c.min_occupancy_correlation <= 1.0)
            {
                return Err(CalibrationError::Setting(format!("validation.{name}: thresholds out of range: {c:?}")));
            }
        }
        Ok(())
    }
}

/// The verdict levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// Meets every GOOD criterion.
    Good,
    /// Meets every MARGINAL criterion, not every GOOD one.
    Marginal,
    /// Misses a MARGINAL criterion.
    Poor,
}

/// Two-sample KS test of one cell's speeds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CellTest {
    /// KS statistic `sup |F_rec - F_sim|` (dimensionless).
    pub statistic: f64,
    /// p-value with the effective sample sizes (dimensionless).
    pub p_value: f64,
    /// Effective samples of the recording and of the simulation (dimensionless).
    pub effective_samples: (f64, f64),
}

/// Per-cell speed distributions, recording vs simulation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpeedComparison {
    /// Significance level of the tests (dimensionless).
    pub alpha: f64,
    /// Cells with enough effective samples on both sides (dimensionless).
    pub tested_cells: usize,
    /// Tested cells whose distributions the test does not tell apart (p >= alpha).
    pub passing_cells: usize,
    /// `passing_cells / tested_cells` (dimensionless; NaN without tested cells).
    pub pass_fraction: f64,
    /// Median KS statistic over the tested cells (dimensionless).
    pub median_statistic: f64,
    /// Of the failing cells, those where the simulated median speed is above the
    /// recorded one (dimensionless).
    pub failing_simulation_faster: usize,
    /// Mean speed over all samples, recording and simulation (m/s).
    pub mean_speed: (f64, f64),
    /// Pearson correlation of the per-cell mean speeds over the tested cells (dimensionless).
    pub mean_speed_correlation: f64,
    /// Integrated autocorrelation time of the speed, recording and simulation (s).
    pub correlation_time: (f64, f64),
    /// Per cell, row-major: the test, `None` where untested.
    #[serde(skip)]
    pub cells: Vec<Option<CellTest>>,
    /// Per cell, row-major: mean speed of the recording and of the simulation, `None`
    /// without samples (m/s).
    #[serde(skip)]
    pub cell_mean_speeds: (Vec<Option<f64>>, Vec<Option<f64>>),
    /// Every speed sample inside the grid, recording and simulation (m/s).
    #[serde(skip)]
    pub speeds: (Vec<f64>, Vec<f64>),
}

/// The report: the figures a user judges the model by, and the verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ValidationReport {
    /// `sum |MSD_sim - MSD_real| / sum MSD_real` (dimensionless).
    pub relative_msd_error: f64,
    /// Occupancy and mean-velocity maps compared.
    pub maps: MapComparison,
    /// Per-cell speed distributions compared.
    pub speeds: SpeedComparison,
    /// The verdict.
    pub verdict: Verdict,
    /// One line: the verdict, the figures and which criteria failed.
    pub verdict_line: String,
    /// The criteria used.
    pub settings: ValidationSettings,
}

/// Speeds of one data set, binned per cell, with the visit structure.
struct CellSpeeds {
    speeds: Vec<Vec<f64>>,
    effective: Vec<f64>,
    tau_frames: f64,
}

/// Kinematics per track (each track's own contiguous segments).
fn per_track(tracks: &RegularTracks, half_window: usize) -> Vec<Vec<KinematicSample>> {
    tracks.tracks.iter().map(|t| regular_kinematics(&RegularTracks { dt: tracks.dt, tracks: vec![t.clone()] }, half_window)).collect()
}

/// Contiguous runs (consecutive frames) of each track's samples.
fn runs(samples: &[KinematicSample], dt: f64) -> impl Iterator<Item = &[KinematicSample]> + '_ {
    let mut start = 0;
    (1..=samples.len()).filter_map(move |k| {
        if k == samples.len() || samples[k].time - samples[k - 1].time > 1.5 * dt {
            let run = &samples[start..k];
            start = k;
            Some(run)
        } else {
            None
        }
    })
}

/// Integrated autocorrelation time of the speed (frames, >= 1): `1 + 2 sum rho_k`
/// over lags up to the first non-positive `rho_k` or `max_lag`, pooled over runs.
pub fn integrated_correlation_time(series: &[Vec<f64>], max_lag: usize) -> f64 {
    let n: usize = series.iter().map(Vec::len).sum();
    if n < 2 {
        return 1.0;
    }
    let mean = series.iter().flatten().sum::<f64>() / n as f64;
    let var = series.iter().flatten().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
    if var <= 0.0 {
        return 1.0;
    }
    let mut tau = 1.0;
    for lag in 1..=max_lag {
        let (mut sum, mut count) = (0.0, 0usize);
        for s in series.iter().filter(|s| s.len() > lag) {
            sum += s.iter().zip(&s[lag..]).map(|(a, b)| (a - mean) * (b - mean)).sum::<f64>();
            count += s.len() - lag;
        }
        if count == 0 {
            break;
        }
        let rho = sum / count as f64 / var;
        if rho <= 0.0 {
            break;
        }
        tau += 2.0 * rho;
    }
    tau
}

fn cell_speeds(tracks: &RegularTracks, grid: &GridSpec, half_window: usize, max_lag: usize) -> CellSpeeds {
    let kinematics = per_track(tracks, half_window);
    let series: Vec<Vec<f64>> =
        kinematics.iter().flat_map(|k| runs(k, tracks.dt).map(|r| r.iter().map(|s| s.velocity.norm()).collect())).collect();
    let tau = integrated_correlation_time(&series, max_lag);
    let mut speeds = vec![Vec::new(); grid.len()];
    let mut effective = vec![0.0; grid.len()];
    for run in kinematics.iter().flat_map(|k| runs(k, tracks.dt)) {
        let mut visit: Option<(usize, usize)> = None;
        for s in run {
            let cell = grid.index(s.position);
            if let Some(c) = cell {
                speeds[c].push(s.velocity.norm());
            }
            match (visit, cell) {
                (Some((v, len)), Some(c)) if v == c => visit = Some((v, len + 1)),
                _ => {
                    if let Some((v, len)) = visit {
                        effective[v] += (len as f64 / tau).ceil();
                    }
                    visit = cell.map(|c| (c, 1));
                }
            }
        }
        if let Some((v, len)) = visit {
            effective[v] += (len as f64 / tau).ceil();
        }
    }
    CellSpeeds { speeds, effective, tau_frames: tau }
}

/// Two-sample KS statistic `sup |F_a - F_b|` of sorted samples.
pub fn ks_two_sample_statistic(a: &[f64], b: &[f64]) -> f64 {
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / a.len() as f64 - j as f64 / b.len() as f64).abs());
    }
    d
}

/// p-value of a two-sample KS statistic `d` for sample sizes `n` and `m` (Stephens'
/// correction of the asymptotic Kolmogorov distribution with `ne = n m / (n + m)`).
pub fn ks_two_sample_p_value(d: f64, n: f64, m: f64) -> f64 {
    let ne = n * m / (n + m);
    let s = ne.sqrt();
    kolmogorov_q((s + 0.12 + 0.11 / s) * d)
}

fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

/// Compares the per-cell speed distributions of `recorded` and `simulated` on `grid`.
pub fn compare_speeds(
    recorded: &RegularTracks,
    simulated: &RegularTracks,
    grid: &GridSpec,
    half_window: usize,
    settings: &ValidationSettings,
) -> SpeedComparison {
    let lag = |t: &RegularTracks| (settings.max_correlation_lag / t.dt).ceil().max(1.0) as usize;
    let mut rec = cell_speeds(recorded, grid, half_window, lag(recorded));
    let mut sim = cell_speeds(simulated, grid, half_window, lag(simulated));
    let mean_of = |c: &CellSpeeds| {
        let n: usize = c.speeds.iter().map(Vec::len).sum();
        c.speeds.iter().flatten().sum::<f64>() / n.max(1) as f64
    };
    let mean_speed = (mean_of(&rec), mean_of(&sim));
    let cell_means = |c: &CellSpeeds| -> Vec<Option<f64>> {
        c.speeds.iter().map(|s| (!s.is_empty()).then(|| s.iter().sum::<f64>() / s.len() as f64)).collect()
    };
    let cell_mean_speeds = (cell_means(&rec), cell_means(&sim));
    let pooled = |c: &CellSpeeds| c.speeds.iter().flatten().copied().collect::<Vec<f64>>();
    let speeds = (pooled(&rec), pooled(&sim));
    let mut cells = vec![None; grid.len()];
    let (mut passing, mut faster) = (0, 0);
    let mut statistics = Vec::new();
    let mut means = (Vec::new(), Vec::new());
    for (i, cell) in cells.iter_mut().enumerate() {
        let (ne_r, ne_s) = (rec.effective[i], sim.effective[i]);
        if ne_r < settings.min_effective_samples || ne_s < settings.min_effective_samples {
            continue;
        }
        let (a, b) = (&mut rec.speeds[i], &mut sim.speeds[i]);
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        let statistic = ks_two_sample_statistic(a, b);
        let p_value = ks_two_sample_p_value(statistic, ne_r, ne_s);
        if p_value >= settings.alpha {
            passing += 1;
        } else if median(b) > median(a) {
            faster += 1;
        }
        statistics.push(statistic);
        means.0.push(a.iter().sum::<f64>() / a.len() as f64);
        means.1.push(b.iter().sum::<f64>() / b.len() as f64);
        *cell = Some(CellTest { statistic, p_value, effective_samples: (ne_r, ne_s) });
    }
    let tested = statistics.len();
    SpeedComparison {
        alpha: settings.alpha,
        tested_cells: tested,
        passing_cells: passing,
        pass_fraction: if tested > 0 { passing as f64 / tested as f64 } else { f64::NAN },
        median_statistic: median(&mut statistics),
        failing_simulation_faster: faster,
        mean_speed,
        mean_speed_correlation: correlation(&means.0, &means.1),
        correlation_time: (rec.tau_frames * recorded.dt, sim.tau_frames * simulated.dt),
        cells,
        cell_mean_speeds,
        speeds,
    }
}

/// The verdict and its line from the three figures.
pub fn verdict(
    relative_msd_error: f64,
    occupancy_correlation: f64,
    pass_fraction: f64,
    settings: &ValidationSettings,
) -> (Verdict, String) {
    let misses = |c: &Criteria| {
        let mut m = Vec::new();
        // NaN figures fail every criterion.
        if relative_msd_error.is_nan() || relative_msd_error > c.max_relative_msd_error {
            let (value, limit) = apart(100.0 * relative_msd_error, 100.0 * c.max_relative_msd_error, 1, 0);
            m.push(format!("MSD error {value} % > {limit} %"));
        }
        if occupancy_correlation.is_nan() || occupancy_correlation < c.min_occupancy_correlation {
            let (value, limit) = apart(occupancy_correlation, c.min_occupancy_correlation, 3, 2);
            m.push(format!("occupancy correlation {value} < {limit}"));
        }
        if pass_fraction.is_nan() {
            m.push(format!("speed KS pass fraction: no cell tested (needs >= {:.2})", c.min_ks_pass_fraction));
        } else if pass_fraction < c.min_ks_pass_fraction {
            let (value, limit) = apart(pass_fraction, c.min_ks_pass_fraction, 2, 2);
            m.push(format!("speed KS pass fraction {value} < {limit}"));
        }
        m
    };
    // A run too short to give any cell enough speed samples has no pass fraction (NaN).
    let ks = if pass_fraction.is_nan() {
        format!("no cell has enough samples for the speed KS test at alpha {}", settings.alpha)
    } else {
        format!("{:.0} % of cells pass the speed KS test at alpha {}", 100.0 * pass_fraction, settings.alpha)
    };
    let figures = format!("MSD error {:.1} %, occupancy correlation {:.3}, {ks}", 100.0 * relative_msd_error, occupancy_correlation);
    let criteria = |c: &Criteria| {
        format!(
            "MSD error <= {:.0} %, occupancy correlation >= {:.2}, KS pass fraction >= {:.2}",
            100.0 * c.max_relative_msd_error,
            c.min_occupancy_correlation,
            c.min_ks_pass_fraction
        )
    };
    let good = misses(&settings.good);
    if good.is_empty() {
        return (Verdict::Good, format!("GOOD: {figures} (GOOD needs {})", criteria(&settings.good)));
    }
    let marginal = misses(&settings.marginal);
    if marginal.is_empty() {
        return (Verdict::Marginal, format!("MARGINAL: {figures}; misses GOOD ({}): {}", criteria(&settings.good), good.join("; ")));
    }
    (Verdict::Poor, format!("POOR: {figures}; misses MARGINAL ({}): {}", criteria(&settings.marginal), marginal.join("; ")))
}

/// A missed figure (`decimals`) and its threshold (`limit_decimals`) as printed, both with
/// more decimals where the figure would otherwise read as the threshold (a pass fraction
/// of 0.798 against 0.80 must not read "0.80 < 0.80").
fn apart(value: f64, limit: f64, decimals: usize, limit_decimals: usize) -> (String, String) {
    let mut d = decimals;
    while d < 6 && format!("{value:.d$}") == format!("{limit:.d$}") {
        d += 1;
    }
    let l = if d > decimals { d } else { limit_decimals };
    (format!("{value:.d$}"), format!("{limit:.l$}"))
}

/// Builds the report from the figures already computed and the tracks.
pub fn build_report(
    relative_msd_error: f64,
    maps: MapComparison,
    recorded: &RegularTracks,
    simulated: &RegularTracks,
    grid: &GridSpec,
    half_window: usize,
    settings: &ValidationSettings,
) -> Result<ValidationReport, CalibrationError> {
    settings.validate()?;
    let speeds = compare_speeds(recorded, simulated, grid, half_window, settings);
    let (verdict, verdict_line) = verdict(relative_msd_error, maps.occupancy_correlation, speeds.pass_fraction, settings);
    Ok(ValidationReport { relative_msd_error, maps, speeds, verdict, verdict_line, settings: *settings })
}

/// Writes the speed plots: the per-cell KS statistic and rejections (untested cells
/// grey), the per-cell mean speeds (`<map_path stem>.mean.png`), the pooled speed
/// histograms.
pub fn plot_speeds(report: &ValidationReport, grid: &GridSpec, map_path: &Path, histogram_path: &Path) -> Result<(), CalibrationError> {
    let s = &report.speeds;
    let statistic: Vec<Option<f64>> = s.cells.iter().map(|c| c.map(|c| c.statistic)).collect();
    let rejected: Vec<Option<f64>> = s.cells.iter().map(|c| c.map(|c| if c.p_value < report.settings.alpha { 1.0 } else { 0.0 })).collect();
    plot_heat_maps(
        map_path,
        &format!("Per-cell speed KS test (alpha {}; grey: untested)", report.settings.alpha),
        grid,
        &[HeatPanel { title: "KS statistic D", values: &statistic }, HeatPanel { title: "rejected (1) / passed (0)", values: &rejected }],
        2,
        ColourScale::Sequential { min: 0.0, max: 1.0 },
        "D / rejected",
    )?;
    let (rec_mean, sim_mean) = &s.cell_mean_speeds;
    let limit = rec_mean.iter().chain(sim_mean).flatten().fold(0.0f64, |a, b| a.max(*b));
    plot_heat_maps(
        &map_path.with_extension("mean.png"),
        "Mean speed per cell",
        grid,
        &[HeatPanel { title: "recording", values: rec_mean }, HeatPanel { title: "calibrated simulation", values: sim_mean }],
        2,
        ColourScale::Sequential { min: 0.0, max: limit.max(1e-9) },
        "m/s",
    )?;
    plot_histograms(
        histogram_path,
        "Speed distribution, all cells",
        "speed (m/s)",
        &[("recording", &s.speeds.0), ("calibrated simulation", &s.speeds.1)],
    )
}

/// Writes the report as markdown: verdict first, then the figures and the files.
pub fn write_markdown(
    path: &Path,
    report: &ValidationReport,
    parameters: &[(String, f64)],
    images: &[(&str, &Path)],
) -> Result<(), CalibrationError> {
    let s = &report.speeds;
    let m = &report.maps;
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(text, "# Validation of the calibrated model\n\n**{}**\n", report.verdict_line);
    let _ = writeln!(text, "| figure | value |\n|---|---|");
    let _ = writeln!(text, "| relative MSD error sum\\|sim - rec\\| / sum rec | {:.4} |", report.relative_msd_error);
    let _ = writeln!(text, "| occupancy correlation | {:.4} |", m.occupancy_correlation);
    let _ = writeln!(text, "| mean-velocity correlation ({} cells) | {:.4} |", m.velocity_cells, m.velocity_correlation);
    let _ = writeln!(text, "| mean-velocity RMS difference (m/s) | {:.4} |", m.velocity_rms_difference);
    let _ = writeln!(
        text,
        "| speed KS test: cells passing / tested (alpha {}) | {} / {} ({:.1} %) |",
        s.alpha,
        s.passing_cells,
        s.tested_cells,
        100.0 * s.pass_fraction
    );
    let _ = writeln!(text, "| failing cells where the simulation is faster (median speed) | {} |", s.failing_simulation_faster);
    let _ = writeln!(text, "| median KS statistic | {:.3} |", s.median_statistic);
    let _ = writeln!(text, "| mean speed recording / simulation (m/s) | {:.4} / {:.4} |", s.mean_speed.0, s.mean_speed.1);
    let _ = writeln!(text, "| correlation of per-cell mean speeds | {:.3} |", s.mean_speed_correlation);
    let _ =
        writeln!(text, "| speed correlation time recording / simulation (s) | {:.2} / {:.2} |", s.correlation_time.0, s.correlation_time.1);
    let _ = writeln!(text, "\nParameters:\n");
    for (name, value) in parameters {
        let _ = writeln!(text, "- {name} = {value:.6}");
    }
    let criteria = |c: &Criteria| {
        format!(
            "MSD error <= {}, occupancy correlation >= {}, KS pass fraction >= {}",
            c.max_relative_msd_error, c.min_occupancy_correlation, c.min_ks_pass_fraction
        )
    };
    let _ = writeln!(
        text,
        "\nCriteria: GOOD = {}; MARGINAL = {}; otherwise POOR. The KS test compares each cell's speeds (recording vs simulation) with effective sample sizes: a ball's visit to a cell counts ceil(frames / tau) samples, tau the speed's integrated autocorrelation time; cells with fewer than {} effective samples on either side are not tested.\n",
        criteria(&report.settings.good),
        criteria(&report.settings.marginal),
        report.settings.min_effective_samples
    );
    for (title, image) in images {
        let name = image.file_name().map_or_else(|| image.display().to_string(), |n| n.to_string_lossy().into_owned());
        let _ = writeln!(text, "## {title}\n\n![{title}]({name})\n");
    }
    write_atomically(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Vector2;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn two_sample_statistic_by_hand() {
        // F_a steps at 1, 2, 3; F_b at 2.5, 3.5: at 2 F_a = 2/3, F_b = 0.
        assert!((ks_two_sample_statistic(&[1.0, 2.0, 3.0], &[2.5, 3.5]) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(ks_two_sample_statistic(&[1.0, 2.0], &[1.0, 2.0]), 0.0);
        assert_eq!(ks_two_sample_statistic(&[1.0, 2.0], &[3.0, 4.0]), 1.0);
        // Large samples, tiny difference: p near 1; total separation: p near 0.
        assert!(ks_two_sample_p_value(0.01, 100.0, 100.0) > 0.99);
        assert!(ks_two_sample_p_value(1.0, 100.0, 100.0) < 1e-10);
    }

    #[test]
    fn correlation_time_of_white_and_of_ar1_series() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let white: Vec<f64> = (0..20000).map(|_| rng.gen::<f64>()).collect();
        let tau = integrated_correlation_time(&[white], 50);
        assert!((tau - 1.0).abs() < 0.1, "white noise tau {tau}");
        // AR(1) with phi = 0.8: tau = (1 + phi) / (1 - phi) = 9.
        let mut x = 0.0;
        let ar: Vec<f64> = (0..200000)
            .map(|_| {
                x = 0.8 * x + rng.gen::<f64>() - 0.5;
                x
            })
            .collect();
        let tau = integrated_correlation_time(&[ar], 200);
        assert!((tau - 9.0).abs() < 1.0, "AR(1) tau {tau}");
    }

    /// Balls in a 2 x 2 grid of 0.2 m cells doing a correlated random walk with speed
    /// scale `speed`, reflected at the walls.
    fn walkers(seed: u64, speed: f64, frames: usize) -> RegularTracks {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let dt = 0.025;
        let tracks = (0..6)
            .map(|_| {
                let mut p: Vector2<f64> = Vector2::new(rng.gen_range(-0.15..0.15), rng.gen_range(-0.15..0.15));
                let mut v: Vector2<f64> = Vector2::zeros();
                (0..frames)
                    .map(|_| {
                        let kick = Vector2::new(rng.gen::<f64>() - 0.5, rng.gen::<f64>() - 0.5);
                        v = 0.95 * v + speed * kick;
                        p += v * dt;
                        for k in 0..2 {
                            if p[k].abs() > 0.19 {
                                p[k] = p[k].signum() * 0.19;
                                v[k] = -v[k];
                            }
                        }
                        Some(p)
                    })
                    .collect()
            })
            .collect();
        RegularTracks { dt, tracks }
    }

    #[test]
    fn same_process_passes_and_a_different_speed_fails() {
        let grid = GridSpec { nx: 4, ny: 4, side: 0.4 };
        let settings = ValidationSettings::default();
        let rec = walkers(1, 0.1, 24000);
        let same = compare_speeds(&rec, &walkers(2, 0.1, 24000), &grid, 3, &settings);
        assert_eq!(same.tested_cells, 16);
        // Without the effective sample size nearly every cell would be rejected (the
        // samples are correlated over ~20 frames); with it, about 1 - alpha pass.
        assert!(same.pass_fraction >= 0.8, "{same:?}");
        let slow = compare_speeds(&rec, &walkers(2, 0.05, 24000), &grid, 3, &settings);
        assert!(slow.pass_fraction < 0.2, "{slow:?}");
        assert_eq!(slow.failing_simulation_faster, 0);
        assert!(slow.mean_speed.1 < 0.6 * slow.mean_speed.0);
    }

    #[test]
    fn verdict_levels_and_reasons() {
        let s = ValidationSettings::default();
        let (v, line) = verdict(0.05, 0.9, 0.9, &s);
        assert_eq!(v, Verdict::Good);
        assert!(line.starts_with("GOOD: MSD error 5.0 %"), "{line}");
        let (v, line) = verdict(0.15, 0.9, 0.9, &s);
        assert_eq!(v, Verdict::Marginal);
        assert!(line.contains("MSD error 15.0 % > 10 %"), "{line}");
        let (v, line) = verdict(0.05, 0.5, 0.9, &s);
        assert_eq!(v, Verdict::Poor);
        assert!(line.contains("occupancy correlation 0.500 < 0.70"), "{line}");
        // No cell tested (a run too short for the KS test): said in words, not "NaN %".
        let (v, line) = verdict(0.05, 0.9, f64::NAN, &s);
        assert_eq!(v, Verdict::Poor);
        assert!(!line.contains("NaN") && line.contains("no cell has enough samples for the speed KS test"), "{line}");
        assert!(line.contains("speed KS pass fraction: no cell tested (needs >= 0.50)"), "{line}");
        // A figure just short of its threshold reads short of it (was "0.80 < 0.80").
        let (_, line) = verdict(0.05, 0.9, 0.798, &ValidationSettings::default());
        assert!(!line.contains("0.80 < 0.80"), "{line}");
        assert!(line.contains("speed KS pass fraction 0.798 < 0.800"), "{line}");
        let bad = ValidationSettings { alpha: 0.0, ..s };
        assert!(bad.validate().unwrap_err().to_string().contains("alpha"));
    }
}
