//! The generic layer every robot system's experiments implement: what an experiment
//! declares (system, name, options), what it returns (metrics, CSV tables, plots) and how
//! it reports progress.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

use flotilla_common::progress::TenthLines;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Map, Value};

use crate::report::PlotError;

/// One experiment of one robot system, run from the `flotilla experiment` CLI or the
/// library. Same options, same outcome: every random draw comes from the seeds.
pub trait Experiment: Sync {
    /// The robot system, e.g. `lily` (the CLI's first word).
    fn system(&self) -> &'static str;
    /// The experiment's name within its system, e.g. `yield` (the CLI's second word).
    fn name(&self) -> &'static str;
    /// One line: what it measures.
    fn description(&self) -> &'static str;
    /// The options it takes (`--name value`), with their defaults.
    fn options(&self) -> &'static [OptionSpec];
    /// Runs it; `progress` counts finished runs.
    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError>;
    /// Whether `run` stops early when [`Progress::interrupted`] and returns what it has:
    /// the CLI then catches Ctrl-C (SIGINT, SIGTERM) for it, once. Default: no, the signal
    /// ends the process as usual.
    fn interruptible(&self) -> bool {
        false
    }
}

/// Why an experiment could not run.
#[derive(Debug, thiserror::Error)]
pub enum ExperimentError {
    /// An option is unknown or its value unusable (a usage error).
    #[error("option --{option}: {message}")]
    Option {
        /// The option, without the dashes.
        option: String,
        /// What is wrong.
        message: String,
    },
    /// A tank run could not be made or went wrong.
    #[error(transparent)]
    Batch(#[from] crate::batch::BatchError),
    /// A Lily ruleset could not be read.
    #[error(transparent)]
    Ruleset(#[from] robot_controller::RulesetError),
    /// The physics refused its configuration.
    #[error(transparent)]
    Physics(#[from] tank_physics::PhysicsError),
    /// The Blueswarm world refused a robot or a command.
    #[error(transparent)]
    Swarm(#[from] tank_physics::systems::bluebot::SwarmError),
    /// An MSD could not be computed.
    #[error("MSD: {0}")]
    Msd(#[from] flotilla_common::msd::MsdError),
    /// A MoleMOD task cannot be planned as asked.
    #[error(transparent)]
    Task(#[from] reconfig_planner::TaskError),
    /// The planner failed.
    #[error(transparent)]
    Plan(#[from] reconfig_planner::PlanError),
    /// A plan does not replay to its goal at its cost.
    #[error("the plan does not replay: {0}")]
    Verify(#[from] reconfig_planner::VerifyError),
    /// The MoleMOD mole could not be built or refused a command.
    #[error(transparent)]
    Mole(#[from] tank_physics::systems::molemod::ArticulatedError),
    /// The MoleMOD lattice world has no such block or robot.
    #[error(transparent)]
    MoleWorld(#[from] tank_physics::systems::molemod::world::WorldError),
    /// The plan executor could not set up the world.
    #[error(transparent)]
    MoleExecutor(#[from] tank_physics::systems::molemod::executor::ExecutorError),
    /// The mole's model lacks a joint its motion firmware drives.
    #[error(transparent)]
    MoleFirmware(#[from] flotilla_firmware::molemod::motion::MotionError),
    /// A plot could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl ExperimentError {
    /// Whether the caller asked for something invalid (exit code 2 on the CLI).
    pub fn is_usage(&self) -> bool {
        matches!(self, ExperimentError::Option { .. })
    }

    fn option(option: &str, message: impl Into<String>) -> Self {
        ExperimentError::Option { option: option.to_owned(), message: message.into() }
    }
}

/// What values an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A whole number >= 1.
    Count,
    /// A whole number >= 0 (a seed).
    Seed,
    /// A whole number >= 0 (a position in a list, e.g. a plan step).
    Index,
    /// A finite number > 0 (e.g. seconds).
    Positive,
    /// Comma-separated finite numbers, at least one.
    Numbers,
    /// Comma-separated names, at least one.
    Names,
    /// A file or directory; empty for none.
    Path,
    /// Any text the experiment parses itself (it names the option when it cannot).
    Text,
    /// A switch: `--name` alone turns it on (value `true`); default `false`.
    Flag,
}

impl OptionKind {
    fn describe(self) -> &'static str {
        match self {
            OptionKind::Count => "a whole number >= 1",
            OptionKind::Seed | OptionKind::Index => "a whole number >= 0",
            OptionKind::Positive => "a number > 0",
            OptionKind::Numbers => "comma-separated numbers",
            OptionKind::Names => "comma-separated names",
            OptionKind::Path => "a path",
            OptionKind::Text => "text",
            OptionKind::Flag => "true or false",
        }
    }

    fn check(self, value: &str) -> Result<(), String> {
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|x| x.is_finite());
        let ok = match self {
            OptionKind::Count => value.parse::<usize>().is_ok_and(|n| n >= 1),
            OptionKind::Seed => value.parse::<u64>().is_ok(),
            OptionKind::Index => value.parse::<usize>().is_ok(),
            OptionKind::Positive => number(value).is_some_and(|x| x > 0.0),
            OptionKind::Numbers => value.split(',').all(|s| number(s).is_some()),
            OptionKind::Names => value.split(',').all(|s| !s.trim().is_empty()),
            OptionKind::Path | OptionKind::Text => true,
            OptionKind::Flag => value == "true" || value == "false",
        };
        if ok {
            Ok(())
        } else {
            Err(format!("expected {}, got `{value}`", self.describe()))
        }
    }
}

/// One option of an experiment.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// Name on the command line, without the dashes.
    pub name: &'static str,
    /// The values it takes.
    pub kind: OptionKind,
    /// Value when not given (a valid value of `kind`).
    pub default: &'static str,
    /// One line of help, with the unit.
    pub help: &'static str,
}

/// The options of one run of an experiment, checked against its [`OptionSpec`]s, with
/// the defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    values: BTreeMap<&'static str, String>,
}

impl Options {
    /// Checks `given` (name, value) pairs against `specs`: unknown names, repeated names
    /// and values of the wrong kind are errors naming the option.
    pub fn parse(specs: &'static [OptionSpec], given: &[(String, String)]) -> Result<Self, ExperimentError> {
        let mut values: BTreeMap<&'static str, String> = specs.iter().map(|s| (s.name, s.default.to_owned())).collect();
        let mut seen = Vec::new();
        for (name, value) in given {
            let Some(spec) = specs.iter().find(|s| s.name == name) else {
                let known: Vec<String> = specs.iter().map(|s| format!("--{}", s.name)).collect();
                return Err(ExperimentError::option(name, format!("unknown option; this experiment takes {}", known.join(", "))));
            };
            if seen.contains(&spec.name) {
                return Err(ExperimentError::option(name, "given twice"));
            }
            seen.push(spec.name);
            spec.kind.check(value).map_err(|m| ExperimentError::option(name, m))?;
            values.insert(spec.name, value.clone());
        }
        Ok(Self { values })
    }

    /// The defaults of `specs`.
    pub fn defaults(specs: &'static [OptionSpec]) -> Result<Self, ExperimentError> {
        Self::parse(specs, &[])
    }

    /// The text of option `name`, if the experiment has it.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    fn raw(&self, name: &str) -> Result<&str, ExperimentError> {
        self.value(name).ok_or_else(|| ExperimentError::option(name, "not an option of this experiment"))
    }

    /// A [`OptionKind::Count`] option.
    pub fn count(&self, name: &str) -> Result<usize, ExperimentError> {
        self.raw(name)?.parse().map_err(|e| ExperimentError::option(name, format!("{e}")))
    }

    /// A [`OptionKind::Index`] option.
    pub fn index(&self, name: &str) -> Result<usize, ExperimentError> {
        self.raw(name)?.parse().map_err(|e| ExperimentError::option(name, format!("{e}")))
    }

    /// A [`OptionKind::Seed`] option.
    pub fn seed(&self, name: &str) -> Result<u64, ExperimentError> {
        self.raw(name)?.parse().map_err(|e| ExperimentError::option(name, format!("{e}")))
    }

    /// The seeds `first..=first + count - 1` of a [`OptionKind::Seed`] option (`first`)
    /// and a [`OptionKind::Count`] option (`count`); an error naming `first` when the last
    /// seed would pass the largest one (the range would wrap round to nothing).
    pub fn seed_range(&self, first: &str, count: &str) -> Result<std::ops::RangeInclusive<u64>, ExperimentError> {
        let (start, n) = (self.seed(first)?, self.count(count)?);
        let last = u64::try_from(n - 1).ok().and_then(|k| start.checked_add(k)).ok_or_else(|| {
            ExperimentError::option(first, format!("{n} seeds from {start} pass the largest seed {}: give a smaller --{first}", u64::MAX))
        })?;
        Ok(start..=last)
    }

    /// A [`OptionKind::Positive`] option.
    pub fn number(&self, name: &str) -> Result<f64, ExperimentError> {
        self.raw(name)?.trim().parse().map_err(|e| ExperimentError::option(name, format!("{e}")))
    }

    /// A [`OptionKind::Numbers`] option.
    pub fn numbers(&self, name: &str) -> Result<Vec<f64>, ExperimentError> {
        self.raw(name)?.split(',').map(|s| s.trim().parse().map_err(|e| ExperimentError::option(name, format!("{e}")))).collect()
    }

    /// A [`OptionKind::Names`] option.
    pub fn names(&self, name: &str) -> Result<Vec<String>, ExperimentError> {
        Ok(self.raw(name)?.split(',').map(|s| s.trim().to_owned()).collect())
    }

    /// A [`OptionKind::Path`] option; None when empty.
    pub fn path(&self, name: &str) -> Result<Option<PathBuf>, ExperimentError> {
        let raw = self.raw(name)?;
        Ok((!raw.is_empty()).then(|| PathBuf::from(raw)))
    }

    /// A [`OptionKind::Text`] option.
    pub fn text(&self, name: &str) -> Result<&str, ExperimentError> {
        self.raw(name)
    }

    /// A [`OptionKind::Flag`] option.
    pub fn flag(&self, name: &str) -> Result<bool, ExperimentError> {
        Ok(self.raw(name)? == "true")
    }

    /// An error about option `name` (its value cannot be used).
    pub fn invalid(name: &str, message: impl Into<String>) -> ExperimentError {
        ExperimentError::option(name, message)
    }

    /// Every option and its value, for the summary.
    pub fn to_json(&self) -> Value {
        Value::Object(self.values.iter().map(|(k, v)| ((*k).to_owned(), Value::String(v.clone()))).collect())
    }
}

/// Counts finished runs: an indicatif bar on a terminal's stderr, a line per tenth of
/// the runs on a redirected stderr (logs, CI), or nothing (library use, tests).
pub struct Progress {
    bar: ProgressBar,
    lines: Option<TenthLines>,
    interrupt: AtomicBool,
    /// Runs finished; kept apart from the bar, whose position clearing sets to its length.
    finished: AtomicU64,
}

/// The signal the handler [`catch_interrupts`] installs caught, 0 before one.
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_interrupt(signal: libc::c_int) {
    SIGNALLED.store(signal, Ordering::Relaxed);
    const NOTICE: &[u8] = b"\ninterrupted: the run stops at its next check and its results are written (again to quit at once)\n";
    // SAFETY: write(2) is async-signal-safe; the buffer is a static byte string.
    unsafe { libc::write(2, NOTICE.as_ptr().cast(), NOTICE.len()) };
}

/// Catches the next SIGINT and SIGTERM: [`Progress::interrupted`] turns true and the
/// default action is restored, so a second signal ends the process at once.
pub fn catch_interrupts() -> std::io::Result<()> {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: a zeroed sigaction is valid; the handler only stores an atomic and calls
        // write(2), and SA_RESETHAND restores the default after one delivery.
        let installed = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if installed != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The signal (SIGINT, SIGTERM) [`catch_interrupts`] caught, if one came.
pub fn caught_signal() -> Option<i32> {
    Some(SIGNALLED.load(Ordering::Relaxed)).filter(|&signal| signal != 0)
}

impl Progress {
    /// A bar drawn on stderr, or lines where stderr is not a terminal.
    pub fn on_stderr() -> Self {
        let bar = ProgressBar::new(0);
        let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs {msg} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        let lines = (!TenthLines::stderr_is_terminal()).then(|| TenthLines::new("progress"));
        Self { bar, lines, interrupt: AtomicBool::new(false), finished: AtomicU64::new(0) }
    }

    /// Counts without drawing.
    pub fn hidden() -> Self {
        Self { bar: ProgressBar::hidden(), lines: None, interrupt: AtomicBool::new(false), finished: AtomicU64::new(0) }
    }

    /// Announces `runs` more runs, described by `what`.
    pub fn expect(&self, runs: usize, what: &str) {
        self.bar.inc_length(runs as u64);
        self.bar.set_message(what.to_owned());
    }

    /// One run finished (callable from any thread).
    pub fn finished_one(&self) {
        self.finished.fetch_add(1, Ordering::Relaxed);
        self.bar.inc(1);
        if let Some(lines) = &self.lines {
            lines.update(self.bar.position(), self.bar.length().unwrap_or(0), &self.bar.message());
        }
    }

    /// Asks the run to stop early (what a caught Ctrl-C does).
    pub fn interrupt(&self) {
        self.interrupt.store(true, Ordering::Relaxed);
    }

    /// Whether the run was asked to stop: [`Progress::interrupt`] or a signal caught by
    /// [`catch_interrupts`].
    pub fn interrupted(&self) -> bool {
        self.interrupt.load(Ordering::Relaxed) || caught_signal().is_some()
    }

    /// Runs finished so far.
    pub fn finished(&self) -> u64 {
        self.finished.load(Ordering::Relaxed)
    }

    /// Removes the bar.
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// A CSV table of an outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// File name in the output directory (`*.csv`).
    pub file: String,
    /// Column names, with units.
    pub header: Vec<String>,
    /// Rows, as many cells as columns.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The CSV text (RFC 4180: a cell with a comma, a quote or a line break is quoted).
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let cells: Vec<std::borrow::Cow<str>> = row.iter().map(|c| csv_cell(c)).collect();
            out += &cells.join(",");
            out.push('\n');
        }
        out
    }
}

fn csv_cell(cell: &str) -> std::borrow::Cow<'_, str> {
    if cell.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", cell.replace('"', "\"\"")).into()
    } else {
        cell.into()
    }
}

/// Draws one figure into the file it is given.
pub type DrawPlot = Box<dyn Fn(&Path) -> Result<(), PlotError> + Send + Sync>;

/// A PNG plot of an outcome, drawn when the outcome is written.
pub struct Plot {
    /// File name in the output directory (`*.png`).
    pub file: String,
    /// Draws it.
    pub draw: DrawPlot,
}

/// What an experiment produced.
#[derive(Default)]
pub struct Outcome {
    /// Figures by name (units in the names), the `metrics` of `summary.json`.
    pub metrics: Map<String, Value>,
    /// CSV tables.
    pub tables: Vec<Table>,
    /// PNG plots.
    pub plots: Vec<Plot>,
    /// A Markdown report (tables for the docs), written to `report.md` when not empty.
    pub report: String,
}

impl Outcome {
    /// Writes `summary.json` (experiment, options, metrics, file names), the tables, the
    /// plots and the report into `dir` (created if missing); returns the files written.
    pub fn write(&self, dir: &Path, experiment: &dyn Experiment, options: &Options) -> Result<Vec<PathBuf>, ExperimentError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ExperimentError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let mut written = Vec::new();
        for table in &self.tables {
            let path = dir.join(&table.file);
            std::fs::write(&path, table.to_csv()).map_err(io(&path))?;
            written.push(path);
        }
        for plot in &self.plots {
            let path = dir.join(&plot.file);
            (plot.draw)(&path)?;
            written.push(path);
        }
        if !self.report.is_empty() {
            let path = dir.join("report.md");
            std::fs::write(&path, &self.report).map_err(io(&path))?;
            written.push(path);
        }
        let files = |names: Vec<&String>| Value::Array(names.into_iter().map(|n| Value::String(n.clone())).collect());
        let mut summary = Map::new();
        summary.insert("system".into(), experiment.system().into());
        summary.insert("experiment".into(), experiment.name().into());
        summary.insert("options".into(), options.to_json());
        summary.insert("metrics".into(), Value::Object(self.metrics.clone()));
        summary.insert("tables".into(), files(self.tables.iter().map(|t| &t.file).collect()));
        summary.insert("plots".into(), files(self.plots.iter().map(|p| &p.file).collect()));
        let path = dir.join("summary.json");
        let text = serde_json::to_string_pretty(&Value::Object(summary))
            .map_err(|e| ExperimentError::Io { path: path.clone(), source: e.into() })?;
        std::fs::write(&path, text + "\n").map_err(io(&path))?;
        written.push(path);
        Ok(written)
    }
}

/// A JSON number, or null when not finite (JSON has no NaN).
pub fn number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// A CSV cell of `x` with `digits` decimals, or an empty cell when it is not finite (no
/// trial succeeded: a mean, quantile or extreme of nothing), not Rust's `NaN` / `inf`.
pub fn csv_number(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptionSpec] = &[
        OptionSpec { name: "seeds", kind: OptionKind::Count, default: "2", help: "seeds" },
        OptionSpec { name: "pumps", kind: OptionKind::Numbers, default: "40,68.6", help: "pump power, %" },
        OptionSpec { name: "out_file", kind: OptionKind::Path, default: "", help: "a file" },
    ];

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    }

    #[test]
    fn defaults_and_given_values() {
        let o = Options::parse(SPECS, &pairs(&[("pumps", "90, 10")])).unwrap();
        assert_eq!(o.count("seeds").unwrap(), 2);
        assert_eq!(o.numbers("pumps").unwrap(), vec![90.0, 10.0]);
        assert_eq!(o.path("out_file").unwrap(), None);
        assert!(o.count("duration").is_err(), "not declared");
    }

    #[test]
    fn bad_options_name_the_option() {
        let e = Options::parse(SPECS, &pairs(&[("seeds", "0")])).unwrap_err();
        assert!(e.is_usage());
        assert_eq!(e.to_string(), "option --seeds: expected a whole number >= 1, got `0`");
        let e = Options::parse(SPECS, &pairs(&[("speed", "3")])).unwrap_err();
        assert!(e.to_string().starts_with("option --speed: unknown option; this experiment takes --seeds, --pumps"), "{e}");
        let e = Options::parse(SPECS, &pairs(&[("pumps", "40,x")])).unwrap_err();
        assert!(e.to_string().contains("--pumps") && e.to_string().contains("40,x"), "{e}");
        let e = Options::parse(SPECS, &pairs(&[("seeds", "1"), ("seeds", "2")])).unwrap_err();
        assert!(e.to_string().contains("twice"), "{e}");
    }

    /// A MoleMOD execution stopped at its step 3 of 13 once reported "13 runs": the count
    /// was the bar's position, which clearing the bar sets to its length.
    #[test]
    fn the_count_of_finished_runs_survives_clearing_the_bar() {
        let progress = Progress::hidden();
        progress.expect(13, "plan steps");
        for _ in 0..3 {
            progress.finished_one();
        }
        progress.clear();
        assert_eq!(progress.finished(), 3);
    }

    /// `--seed 18446744073709551615 --seeds 2` once wrapped round to an empty range: no run
    /// and an empty summary, exit 0.
    #[test]
    fn seed_ranges_that_pass_the_largest_seed_are_refused() {
        const SEEDED: &[OptionSpec] = &[
            OptionSpec { name: "seeds", kind: OptionKind::Count, default: "2", help: "seeds" },
            OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "first seed" },
        ];
        let o = Options::parse(SEEDED, &pairs(&[("seed", "7"), ("seeds", "3")])).unwrap();
        assert_eq!(o.seed_range("seed", "seeds").unwrap(), 7..=9);
        let last = Options::parse(SEEDED, &pairs(&[("seed", "18446744073709551615"), ("seeds", "1")])).unwrap();
        assert_eq!(last.seed_range("seed", "seeds").unwrap(), u64::MAX..=u64::MAX);
        let wrap = Options::parse(SEEDED, &pairs(&[("seed", "18446744073709551615"), ("seeds", "2")])).unwrap();
        let e = wrap.seed_range("seed", "seeds").unwrap_err();
        assert!(e.is_usage() && e.to_string().starts_with("option --seed: 2 seeds from 18446744073709551615 pass"), "{e}");
    }

    #[test]
    fn tables_are_csv() {
        let t = Table { file: "a.csv".into(), header: vec!["t_s".into(), "x_m".into()], rows: vec![vec!["0".into(), "1.5".into()]] };
        assert_eq!(t.to_csv(), "t_s,x_m\n0,1.5\n");
        // Regression: molemod execute's events name cells "(1, 0, 1)"; they were written
        // unquoted, splitting one cell into three.
        let quoted = Table { rows: vec![vec!["robot 0 lift (0, 0, 0) -> (1, 0, 1)".into(), "a \"b\"".into()]], ..t };
        assert_eq!(quoted.to_csv(), "t_s,x_m\n\"robot 0 lift (0, 0, 0) -> (1, 0, 1)\",\"a \"\"b\"\"\"\n");
        assert_eq!(number(f64::NAN), Value::Null);
        assert_eq!(number(0.5), serde_json::json!(0.5));
        assert_eq!(
            (csv_number(0.25, 3), csv_number(f64::NAN, 3), csv_number(f64::NEG_INFINITY, 1)),
            ("0.250".into(), String::new(), String::new())
        );
    }

    #[test]
    fn progress_counts_from_many_threads() {
        use rayon::prelude::*;
        let progress = Progress::hidden();
        progress.expect(10, "test");
        (0..10).into_par_iter().for_each(|_| progress.finished_one());
        assert_eq!(progress.finished(), 10);
    }
}
