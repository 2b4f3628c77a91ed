//! `lily yield`: yield over time of Lily rulesets at several pump powers, several seeds
//! each (15 Lilies, level -8 cm, published Lily calibration, controllers at 10 Hz). The
//! defaults reproduce `docs/self_assembly.md`:
//!
//! ```sh
//! flotilla experiment lily yield --out docs/self_assembly --doc docs/self_assembly.md
//! ```
//! writes `yield_<ruleset>.png` and `yield.png`, the curves and per-run totals as CSV,
//! the tables as `report.md`, and with `--doc` replaces the generated block of that file.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::ruleset;
use crate::batch::{sweep, RunResult, TankExperiment, YieldCurve};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use crate::report::{plot_yield, plot_yield_panels, yield_table};

const BEGIN: &str = "<!-- yield_study:begin -->";
const END: &str = "<!-- yield_study:end -->";

/// Interval between kept yield samples, s.
const SAMPLE_PERIOD: f64 = 10.0;

/// The yield study.
pub struct YieldStudy;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "seeds", kind: OptionKind::Count, default: "8", help: "seeds per ruleset and pump power" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "first seed (seeds seed..seed+seeds)" },
    OptionSpec { name: "duration", kind: OptionKind::Positive, default: "900", help: "sim time per run, s" },
    OptionSpec {
        name: "rulesets",
        kind: OptionKind::Names,
        default: "chain4,chain4_sequential,square4,t4",
        help: "rulesets (files <name>.yaml in --rulesets_dir)",
    },
    OptionSpec { name: "pumps", kind: OptionKind::Numbers, default: "40,68.6", help: "pump powers, % (all seven pumps)" },
    OptionSpec { name: "lilies", kind: OptionKind::Count, default: "15", help: "Lilies in the tank" },
    OptionSpec {
        name: "panels",
        kind: OptionKind::Names,
        default: "chain4,square4",
        help: "rulesets side by side in yield.png (those run)",
    },
    OptionSpec { name: "rulesets_dir", kind: OptionKind::Path, default: super::RULESETS_DIR, help: "directory of the ruleset files" },
    OptionSpec {
        name: "doc",
        kind: OptionKind::Path,
        default: "",
        help: "Markdown file whose yield_study block is replaced by the tables (none if empty)",
    },
];

impl Experiment for YieldStudy {
    fn system(&self) -> &'static str {
        "lily"
    }

    fn name(&self) -> &'static str {
        "yield"
    }

    fn description(&self) -> &'static str {
        "self-assembly yield over time of Lily rulesets x pump powers x seeds"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let duration = options.number("duration")?;
        let rulesets = options.names("rulesets")?;
        let powers = options.numbers("pumps")?;
        let lilies = options.count("lilies")?;
        let dir = options.path("rulesets_dir")?.unwrap_or_default();
        let mut experiments = Vec::new();
        for name in &rulesets {
            let rules =
                Arc::new(ruleset(&dir, name).map_err(|e| ExperimentError::Option { option: "rulesets".into(), message: e.to_string() })?);
            // Fewer Lilies than a target has can make none: the yield (targets over the most
            // possible) has no meaning, and was reported as 0 %.
            if lilies < rules.target.len() {
                return Err(ExperimentError::Option {
                    option: "lilies".into(),
                    message: format!(
                        "{lilies} Lilies cannot make one target of ruleset {name} ({} Lilies): give at least {}",
                        rules.target.len(),
                        rules.target.len()
                    ),
                });
            }
            for &power in &powers {
                let mut e = TankExperiment::lily_tank(rules.clone(), lilies, power);
                e.duration = duration;
                e.sample_period = SAMPLE_PERIOD;
                experiments.push(e);
            }
        }
        let seeds = options.seed_range("seed", "seeds")?;
        let seed_list: Vec<u64> = seeds.clone().collect();
        progress.expect(experiments.len() * seed_list.len(), "Lily yield");
        let results = sweep(&experiments, &seed_list, &|| progress.finished_one())?;
        let labels: Vec<String> = experiments.iter().map(|e| e.label.clone()).collect();
        let curves: Vec<YieldCurve> = labels.iter().map(|l| YieldCurve::from_runs(l, &results)).collect();
        let mut times: Vec<f64> = [60.0, 150.0, 300.0, 600.0, duration].into_iter().filter(|t| *t <= duration).collect();
        // A duration on one of the fixed times would give that column twice.
        times.dedup();
        let mut outcome = Outcome { metrics: metrics(&labels, &curves, &results, &times), ..Outcome::default() };
        outcome.tables = vec![curve_table(&curves), run_table(&results)];
        let per_ruleset = powers.len();
        for (k, name) in rulesets.iter().enumerate() {
            let curves = curves[k * per_ruleset..(k + 1) * per_ruleset].to_vec();
            let title = format!("Lily self-assembly, ruleset {name}: yield over time");
            outcome.plots.push(Plot { file: format!("yield_{name}.png"), draw: Box::new(move |path| plot_yield(path, &title, &curves)) });
        }
        let panels: Vec<(String, Vec<YieldCurve>)> = options
            .names("panels")?
            .into_iter()
            .filter_map(|name| {
                let k = rulesets.iter().position(|r| *r == name)?;
                Some((format!("ruleset {name}: yield over time"), curves[k * per_ruleset..(k + 1) * per_ruleset].to_vec()))
            })
            .collect();
        if !panels.is_empty() {
            outcome.plots.push(Plot {
                file: "yield.png".into(),
                draw: Box::new(move |path| {
                    let borrowed: Vec<(&str, &[YieldCurve])> = panels.iter().map(|(t, c)| (t.as_str(), c.as_slice())).collect();
                    plot_yield_panels(path, &borrowed)
                }),
            });
        }
        let seed_range = format!("seeds {}..={}", seeds.start(), seeds.end());
        let mut most_targets: Vec<String> = experiments.iter().map(|e| (lilies / e.ruleset.target.len()).to_string()).collect();
        most_targets.dedup();
        let lilies_text = format!("{lilies} Lilies can make ({})", most_targets.join(" / "));
        outcome.report = format!(
            "{BEGIN}\nGenerated by `flotilla experiment lily yield {}` ({} runs of {duration:.0} s of sim time, {seed_range}).\n\n\
             Yield over time, mean over seeds (min-max), % of the most targets {lilies_text}:\n\n{}\n\
             Per run:\n\n{}{END}\n",
            command_options(options),
            results.len(),
            yield_table(&curves, &times),
            summary_table(&labels, &results)
        );
        if let Some(doc) = options.path("doc")? {
            replace_block(&doc, outcome.report.trim_end())?;
        }
        Ok(outcome)
    }
}

/// The options that differ from their defaults, as command-line flags (the files and
/// directories left out).
fn command_options(options: &Options) -> String {
    OPTIONS
        .iter()
        .filter(|s| !matches!(s.kind, OptionKind::Path))
        .filter_map(|s| options.value(s.name).filter(|v| *v != s.default).map(|v| format!("--{} {v}", s.name)))
        .chain(std::iter::once("--out DIR".to_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = if values.len() > 1 { values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, var.sqrt())
}

/// Per experiment label: final yield statistics, yield at the report times, first target,
/// totals per run.
fn metrics(labels: &[String], curves: &[YieldCurve], results: &[RunResult], times: &[f64]) -> Map<String, Value> {
    let mut out = Map::new();
    for (label, curve) in labels.iter().zip(curves) {
        let runs: Vec<&RunResult> = results.iter().filter(|r| &r.label == label).collect();
        let yields: Vec<f64> = runs.iter().map(|r| r.summary.final_yield * 100.0).collect();
        let (mean, sd) = mean_sd(&yields);
        let firsts: Vec<f64> = runs.iter().filter_map(|r| r.summary.first_target_time).collect();
        let per_run = |f: &dyn Fn(&RunResult) -> f64| runs.iter().map(|r| f(r)).sum::<f64>() / runs.len() as f64;
        let at: Map<String, Value> =
            times.iter().filter_map(|&t| curve.at(t).map(|(m, _, _)| (format!("{t:.0}"), number(m * 100.0)))).collect();
        out.insert(
            label.clone(),
            json!({
                "runs": runs.len(),
                "final_yield_mean_pct": number(mean),
                "final_yield_sd_pct": number(sd),
                "final_yield_min_pct": number(yields.iter().copied().fold(f64::INFINITY, f64::min)),
                "final_yield_max_pct": number(yields.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
                "mean_yield_pct_at_s": at,
                "first_target_mean_s": if firsts.is_empty() { Value::Null } else { number(mean_sd(&firsts).0) },
                "runs_with_a_target": firsts.len(),
                "targets_formed_per_run": number(per_run(&|r| r.summary.targets_formed as f64)),
                "targets_broken_per_run": number(per_run(&|r| r.summary.targets_broken as f64)),
                "assembly_rate_per_min": number(per_run(&|r| r.summary.assembly_rate)),
                "wrong_attachments_per_run": number(per_run(&|r| r.summary.wrong_attachments as f64)),
            }),
        );
    }
    out
}

/// `yield_curves.csv`: mean, min and max yield over seeds at each sample time.
fn curve_table(curves: &[YieldCurve]) -> Table {
    let rows = curves
        .iter()
        .flat_map(|c| {
            (0..c.times.len()).map(move |i| {
                vec![
                    c.label.clone(),
                    format!("{:.1}", c.times[i]),
                    format!("{:.4}", c.mean[i]),
                    format!("{:.4}", c.min[i]),
                    format!("{:.4}", c.max[i]),
                ]
            })
        })
        .collect();
    Table {
        file: "yield_curves.csv".into(),
        header: ["experiment", "time_s", "mean_yield", "min_yield", "max_yield"].map(String::from).to_vec(),
        rows,
    }
}

/// `runs.csv`: one row per run with its totals.
fn run_table(results: &[RunResult]) -> Table {
    let rows = results
        .iter()
        .map(|r| {
            let s = &r.summary;
            vec![
                r.label.clone(),
                r.seed.to_string(),
                format!("{:.4}", s.final_yield),
                s.final_targets.to_string(),
                s.first_target_time.map_or_else(String::new, |t| format!("{t:.3}")),
                s.targets_formed.to_string(),
                s.targets_broken.to_string(),
                format!("{:.4}", s.assembly_rate),
                s.attachments.to_string(),
                s.wrong_attachments.to_string(),
            ]
        })
        .collect();
    let header = [
        "experiment",
        "seed",
        "final_yield",
        "final_targets",
        "first_target_s",
        "targets_formed",
        "targets_broken",
        "assembly_rate_per_min",
        "attachments",
        "wrong_attachments",
    ];
    Table { file: "runs.csv".into(), header: header.map(String::from).to_vec(), rows }
}

fn summary_table(labels: &[String], results: &[RunResult]) -> String {
    let mut out = String::from(
        "| experiment | final yield mean ± sd (min-max) | first target (s), mean over seeds with one | targets formed / broken per run | assembly rate (1/min) | wrong attachments per run |\n|---|---|---|---|---|---|\n",
    );
    for label in labels {
        let runs: Vec<&RunResult> = results.iter().filter(|r| &r.label == label).collect();
        let yields: Vec<f64> = runs.iter().map(|r| r.summary.final_yield * 100.0).collect();
        let (y, sd) = mean_sd(&yields);
        let (lo, hi) = yields.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
        let firsts: Vec<f64> = runs.iter().filter_map(|r| r.summary.first_target_time).collect();
        let first =
            if firsts.is_empty() { "none".to_owned() } else { format!("{:.0} ({} of {})", mean_sd(&firsts).0, firsts.len(), runs.len()) };
        let per_run = |f: &dyn Fn(&RunResult) -> f64| runs.iter().map(|r| f(r)).sum::<f64>() / runs.len() as f64;
        out += &format!(
            "| {label} | {y:.1} % ± {sd:.1} ({lo:.0}-{hi:.0}) | {first} | {:.1} / {:.1} | {:.3} | {:.1} |\n",
            per_run(&|r| r.summary.targets_formed as f64),
            per_run(&|r| r.summary.targets_broken as f64),
            per_run(&|r| r.summary.assembly_rate),
            per_run(&|r| r.summary.wrong_attachments as f64),
        );
    }
    out
}

/// Replaces the text between the markers (inclusive) in `path`.
fn replace_block(path: &Path, block: &str) -> Result<(), ExperimentError> {
    let io = |source| ExperimentError::Io { path: path.to_path_buf(), source };
    let text = std::fs::read_to_string(path).map_err(io)?;
    let (Some(a), Some(b)) = (text.find(BEGIN), text.find(END)) else {
        return Err(ExperimentError::Option {
            option: "doc".into(),
            message: format!("{}: markers {BEGIN} ... {END} not found", path.display()),
        });
    };
    let updated = format!("{}{block}{}", &text[..a], &text[b + END.len()..]);
    std::fs::write(path, updated).map_err(io)
}
