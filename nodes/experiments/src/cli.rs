//! The `flotilla experiment` command line (binary `flotilla-experiment`):
//!
//! ```text
//! flotilla experiment list
//! flotilla experiment <system> <name> [--option value ...] --out DIR
//! flotilla experiment <system> <name> --help
//! ```
//! Options are `--name value` or `--name=value`; each experiment declares its own
//! ([`crate::OptionSpec`]). A run writes `DIR/summary.json`, its CSV tables and PNG plots,
//! and draws a progress bar on stderr.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context as _;

use crate::experiment::{catch_interrupts, caught_signal, Experiment, OptionKind, Options, Progress};
use crate::registry;

/// Exit code of a usage error (unknown experiment or option, bad value).
pub const EXIT_USAGE: u8 = 2;

/// How a command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The command line is wrong (exit code [`EXIT_USAGE`]).
    #[error("{0}\nusage: flotilla experiment list | flotilla experiment <system> <name> [--option value ...] --out DIR")]
    Usage(String),
    /// The experiment failed (exit code 1).
    #[error("{0:#}")]
    Failed(anyhow::Error),
    /// A signal stopped the run early, after what it ran was written (exit code 128 +
    /// `signal`, as a shell reports a process the signal ended, so a script running
    /// experiments one after the other does not take the partial results for whole ones).
    #[error("interrupted by signal {signal}: the run stopped early; what it ran is written to {}", out.display())]
    Interrupted {
        /// The signal caught (SIGINT 2, SIGTERM 15).
        signal: i32,
        /// Where the results are.
        out: PathBuf,
    },
}

impl CliError {
    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => EXIT_USAGE,
            CliError::Failed(_) => 1,
            CliError::Interrupted { signal, .. } => u8::try_from(128 + signal).unwrap_or(1),
        }
    }
}

/// Runs one command; `args` without the program name. Listings and help go to `stdout`.
pub fn run(args: &[String], stdout: &mut dyn Write, show_progress: bool) -> Result<(), CliError> {
    let write_failed = |e: std::io::Error| CliError::Failed(anyhow::Error::new(e).context("cannot write to stdout"));
    match args {
        [] => Err(CliError::Usage("no experiment given".into())),
        [word] if word == "list" => stdout.write_all(list().as_bytes()).map_err(write_failed),
        [word] if word == "--help" || word == "-h" || word == "help" => stdout
            .write_all(
                format!(
                    "usage: flotilla experiment list | flotilla experiment <system> <name> [--option value ...] --out DIR\n\n{}",
                    list()
                )
                .as_bytes(),
            )
            .map_err(write_failed),
        [system] => Err(CliError::Usage(format!("`{system}`: give a system and an experiment name (see `flotilla experiment list`)"))),
        [system, name, rest @ ..] => {
            let experiment = registry::find(system, name)
                .ok_or_else(|| CliError::Usage(format!("no experiment `{system} {name}`; `flotilla experiment list` shows them")))?;
            if rest.iter().any(|a| a == "--help" || a == "-h") {
                return stdout.write_all(help(experiment).as_bytes()).map_err(write_failed);
            }
            let switches: Vec<&str> = experiment.options().iter().filter(|o| o.kind == OptionKind::Flag).map(|o| o.name).collect();
            let Flags { out, given } = parse_flags(rest, &switches)?;
            let options = Options::parse(experiment.options(), &given).map_err(|e| CliError::Usage(e.to_string()))?;
            let out = out.ok_or_else(|| CliError::Usage("option --out: missing (the output directory)".into()))?;
            run_experiment(experiment, &options, &out, stdout, show_progress)
        }
    }
}

/// The flags of a run.
struct Flags {
    /// `--out`.
    out: Option<PathBuf>,
    /// Every other flag: (name, value).
    given: Vec<(String, String)>,
}

/// Splits `--name value` / `--name=value` pairs (`--name` alone for the `switches`);
/// `--out` is taken out.
fn parse_flags(args: &[String], switches: &[&str]) -> Result<Flags, CliError> {
    let mut out = None;
    let mut given = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let Some(flag) = word.strip_prefix("--") else {
            return Err(CliError::Usage(format!("unexpected argument `{word}` (options are --name value)")));
        };
        let (name, value) = match flag.split_once('=') {
            Some((name, value)) => (name.to_owned(), value.to_owned()),
            None if switches.contains(&flag) => (flag.to_owned(), "true".to_owned()),
            None => {
                let value = words.next().ok_or_else(|| CliError::Usage(format!("option --{flag}: missing its value")))?;
                (flag.to_owned(), value.clone())
            }
        };
        if name == "out" {
            if out.is_some() {
                return Err(CliError::Usage("option --out: given twice".into()));
            }
            out = Some(PathBuf::from(value));
        } else {
            given.push((name, value));
        }
    }
    Ok(Flags { out, given })
}

fn run_experiment(
    experiment: &dyn Experiment,
    options: &Options,
    out: &std::path::Path,
    stdout: &mut dyn Write,
    show_progress: bool,
) -> Result<(), CliError> {
    let progress = if show_progress { Progress::on_stderr() } else { Progress::hidden() };
    if experiment.interruptible() {
        catch_interrupts().context("catching Ctrl-C").map_err(CliError::Failed)?;
    }
    let started = Instant::now();
    let label = format!("{} {}", experiment.system(), experiment.name());
    let outcome = experiment.run(options, &progress);
    progress.clear();
    let outcome = outcome.map_err(|e| {
        if e.is_usage() {
            CliError::Usage(e.to_string())
        } else {
            CliError::Failed(anyhow::Error::new(e).context(format!("{label} failed")))
        }
    })?;
    let written = outcome
        .write(out, experiment, options)
        .with_context(|| format!("{label}: cannot write the results to {}", out.display()))
        .map_err(CliError::Failed)?;
    let mut text = format!("{label}: {} runs in {:.1} s wall\n", progress.finished(), started.elapsed().as_secs_f64());
    for path in written {
        text += &format!("  {}\n", path.display());
    }
    stdout.write_all(text.as_bytes()).map_err(|e| CliError::Failed(anyhow::Error::new(e).context("cannot write to stdout")))?;
    match caught_signal() {
        Some(signal) if experiment.interruptible() => Err(CliError::Interrupted { signal, out: out.to_owned() }),
        _ => Ok(()),
    }
}

/// Systems, experiments and their options.
pub fn list() -> String {
    let mut out = String::new();
    for system in registry::SYSTEMS {
        let Some(first) = system.first() else { continue };
        out += &format!("{}\n", first.system());
        for experiment in system.iter() {
            out += &format!("  {} - {}\n", experiment.name(), experiment.description());
            for o in experiment.options() {
                out += &format!("      --{} (default `{}`): {}\n", o.name, o.default, o.help);
            }
        }
    }
    out
}

fn help(experiment: &dyn Experiment) -> String {
    let mut out = format!(
        "flotilla experiment {} {} [--option value ...] --out DIR\n{}\n\noptions:\n",
        experiment.system(),
        experiment.name(),
        experiment.description()
    );
    for o in experiment.options() {
        out += &format!("  --{} (default `{}`): {}\n", o.name, o.default, o.help);
    }
    out += "  --out DIR: output directory (summary.json, CSV tables, PNG plots)\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    fn usage(words: &[&str]) -> String {
        match run(&args(words), &mut Vec::new(), false) {
            Err(e @ CliError::Usage(_)) => {
                assert_eq!(e.exit_code(), EXIT_USAGE);
                e.to_string()
            }
            other => panic!("{words:?}: expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn usage_errors_name_what_is_wrong() {
        assert!(usage(&[]).contains("no experiment"));
        assert!(usage(&["lily"]).contains("give a system and an experiment"));
        assert!(usage(&["lily", "speed", "--out", "x"]).contains("no experiment `lily speed`"));
        assert!(usage(&["lily", "yield", "--seeds", "0", "--out", "x"]).contains("option --seeds"));
        assert!(usage(&["lily", "yield", "--colour", "red", "--out", "x"]).contains("option --colour: unknown option"));
        assert!(usage(&["lily", "yield", "--seeds"]).contains("option --seeds: missing its value"));
        assert!(usage(&["lily", "yield", "--seeds", "2"]).contains("option --out: missing"));
        assert!(usage(&["lily", "yield", "stray", "--out", "x"]).contains("unexpected argument `stray`"));
        assert!(usage(&["lily", "msd", "--duration=30", "--out", "x"]).contains("option --duration: must be more than the 60 s MSD window"));
        // Three Lilies make no chain of four: refused, not a yield of 0 % of no possible target.
        let few = usage(&["lily", "yield", "--lilies", "3", "--rulesets", "chain4", "--out", "x"]);
        assert!(few.contains("option --lilies: 3 Lilies cannot make one target of ruleset chain4 (4 Lilies)"), "{few}");
    }

    #[test]
    fn list_and_help_show_every_option() {
        let mut out = Vec::new();
        run(&args(&["list"]), &mut out, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        for e in registry::all() {
            assert!(text.contains(&format!("  {} - ", e.name())), "{text}");
            assert!(e.options().iter().all(|o| text.contains(&format!("--{} (default", o.name))), "{text}");
        }
        let mut out = Vec::new();
        run(&args(&["lily", "yield", "--help"]), &mut out, false).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("--rulesets") && text.contains("--out DIR"), "{text}");
    }
}
