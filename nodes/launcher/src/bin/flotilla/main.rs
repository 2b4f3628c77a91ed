//! `flotilla launch FILE [name:=value ...]`: runs a ROS 2 YAML launch file without a ROS
//! launch installation. `--show-args` lists its arguments, `--print` shows the commands.
//! `flotilla calibrate ...` runs the `flotilla-calibrate` executable next to this one,
//! `flotilla experiment ...` the `flotilla-experiment` one.

mod logging;
mod output;
mod supervisor;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::{Parser, Subcommand};
use flotilla_common::duration::Span;
use flotilla_launch::supervision::{EXIT_LAUNCH_ERROR, EXIT_OK, EXIT_PROCESS_FAILED};
use flotilla_launch::{
    evaluate_launch, parse_launch_arguments, read_launch_file, LaunchEnv, LaunchFile, LaunchPlan, OutputMode, ProcessSpec,
};
use tracing::{error, info};

#[derive(Parser)]
#[command(name = "flotilla", version, about = "Flotilla tools")]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}

#[derive(Subcommand)]
enum Commands {
    /// Run a ROS 2 YAML launch file (the same file `ros2 launch` runs).
    Launch(LaunchArgs),
    /// Offline calibration: `run`, `flow-field`, `record`, `noise` (`flotilla calibrate
    /// --help`); runs the `flotilla-calibrate` executable installed next to `flotilla`.
    #[command(disable_help_flag = true)]
    Calibrate {
        /// Passed to `flotilla-calibrate` unchanged.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<std::ffi::OsString>,
    },
    /// Seeded batch experiments: `list`, or `<system> <name> [--option value ...] --out DIR`
    /// (`flotilla experiment list`); runs the `flotilla-experiment` executable installed
    /// next to `flotilla`.
    #[command(disable_help_flag = true)]
    Experiment {
        /// Passed to `flotilla-experiment` unchanged.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
        args: Vec<std::ffi::OsString>,
    },
}

#[derive(clap::Args)]
struct LaunchArgs {
    /// The launch file (`*.launch.yaml`).
    file: PathBuf,
    /// Launch arguments, `name:=value`.
    #[arg(value_name = "NAME:=VALUE")]
    arguments: Vec<String>,
    /// List the file's arguments with their defaults and descriptions, then exit.
    #[arg(long, short = 's')]
    show_args: bool,
    /// Print the commands that would run (parameter files are written and kept), then exit.
    #[arg(long, short = 'p')]
    print: bool,
    /// Seconds the processes get to end after SIGINT/SIGTERM before they are killed.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = parse_seconds)]
    shutdown_timeout: Duration,
    /// Directory for this launch's log files (default: a new directory under the ROS log
    /// directory: $ROS_LOG_DIR, $ROS_HOME/log or ~/.ros/log).
    #[arg(long, value_name = "DIR")]
    log_dir: Option<PathBuf>,
}

fn parse_seconds(s: &str) -> Result<Duration, String> {
    let x = s.parse::<f64>().map_err(|_| format!("'{s}' is not a number of seconds"))?;
    Span::new(0.0, 3600.0).seconds(x).map_err(|e| e.to_string())
}

fn main() {
    let cli = Cli::parse();
    logging::init();
    let code = match cli.command {
        Commands::Launch(args) => launch(&args),
        Commands::Calibrate { args } => dispatch("flotilla-calibrate", "calibration", &args),
        Commands::Experiment { args } => dispatch("flotilla-experiment", "flotilla_experiments", &args),
    };
    std::process::exit(code);
}

/// Replaces this process with `tool` (built by cargo package `package`) from this
/// executable's directory (git-style subcommand), so its output, progress bar, exit code
/// and signals are its own.
fn dispatch(tool: &str, package: &str, args: &[std::ffi::OsString]) -> i32 {
    use std::os::unix::process::CommandExt;
    let dir = std::env::current_exe().ok().and_then(|exe| exe.parent().map(Path::to_path_buf));
    let Some(path) = dir.map(|d| d.join(tool)).filter(|p| p.is_file()) else {
        error!("`flotilla {}` needs the `{tool}` executable next to `flotilla`, and there is none; build it with `cargo build --release -p {package}`", tool.trim_start_matches("flotilla-"));
        return EXIT_PROCESS_FAILED;
    };
    let e = std::process::Command::new(&path).args(args).exec();
    error!("cannot run {}: {e}", path.display());
    EXIT_PROCESS_FAILED
}

fn launch(args: &LaunchArgs) -> i32 {
    let env = match LaunchEnv::from_process() {
        Ok(env) => env,
        Err(e) => {
            error!("cannot read the working directory: {e}");
            return EXIT_LAUNCH_ERROR;
        }
    };
    let file = match read_launch_file(&args.file) {
        Ok(file) => file,
        Err(e) => {
            error!(error = %e, "{e}");
            return EXIT_LAUNCH_ERROR;
        }
    };
    if args.show_args {
        print!("{}", describe_arguments(&file));
        return EXIT_OK;
    }
    let plan = match parse_launch_arguments(&args.arguments).and_then(|a| evaluate_launch(&file, &a, &env)) {
        Ok(plan) => plan,
        Err(e) => {
            error!(error = %e, "{e}");
            return EXIT_LAUNCH_ERROR;
        }
    };
    if args.print {
        return print_plan(&plan);
    }
    if plan.processes.is_empty() {
        info!("{} starts no process", args.file.display());
        return EXIT_OK;
    }
    run(plan, args, &env)
}

fn run(plan: LaunchPlan, args: &LaunchArgs, env: &LaunchEnv) -> i32 {
    // Listen before anything starts, so an early Ctrl-C is forwarded to what did start.
    let signals = match supervisor::listen_for_signals() {
        Ok(rx) => rx,
        Err(e) => {
            error!("cannot install signal handlers: {e}");
            return EXIT_PROCESS_FAILED;
        }
    };
    let params_dir = match tempfile::Builder::new().prefix("flotilla_launch_params_").tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            error!("cannot create a directory for parameter files: {e}");
            return EXIT_PROCESS_FAILED;
        }
    };
    let logs = if plan.processes.iter().any(|p| p.output != OutputMode::Screen) {
        let dir = args.log_dir.clone().unwrap_or_else(|| default_log_dir(env));
        match output::LogDir::create(dir) {
            Ok(logs) => {
                info!(dir = %logs.path().display(), "log directory: {}", logs.path().display());
                Some(logs)
            }
            Err(e) => {
                error!("cannot create the log directory: {e}");
                return EXIT_PROCESS_FAILED;
            }
        }
    } else {
        None
    };
    let prepared = match prepare(plan.processes, params_dir.path()) {
        Ok(p) => p,
        Err(e) => {
            error!("{e}");
            return EXIT_PROCESS_FAILED;
        }
    };
    let settings = supervisor::Settings { shutdown_timeout: args.shutdown_timeout };
    // `params_dir` lives until here: the files are removed once every process has ended.
    supervisor::run(prepared, signals, logs.as_ref(), &settings)
}

fn prepare(processes: Vec<ProcessSpec>, params_dir: &Path) -> Result<Vec<supervisor::Prepared>, String> {
    processes
        .into_iter()
        .map(|spec| {
            let args =
                spec.materialize_args(params_dir).map_err(|e| format!("cannot write the parameter file of '{}': {e}", spec.label))?;
            Ok(supervisor::Prepared { spec, args })
        })
        .collect()
}

fn default_log_dir(env: &LaunchEnv) -> PathBuf {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    env.ros_log_root().join(format!("flotilla-launch-{secs}-{}", std::process::id()))
}

fn describe_arguments(file: &LaunchFile) -> String {
    let declared = file.declared_arguments();
    if declared.is_empty() {
        return format!("{} declares no arguments.\n", file.path.display());
    }
    let mut out = String::from("Arguments (pass arguments as '<name>:=<value>'):\n");
    for (decl, conditional, _) in declared {
        out.push_str(&format!("\n    '{}':\n", decl.name));
        let description = decl.description.as_deref().filter(|d| !d.is_empty()).unwrap_or("no description given");
        out.push_str(&format!("        {description}\n"));
        if !decl.choices.is_empty() {
            out.push_str(&format!("        Valid choices are: {}\n", decl.choices.join(", ")));
        }
        match &decl.default {
            Some(default) => out.push_str(&format!("        (default: '{}')\n", default.template)),
            None if conditional => out.push_str("        (required when its condition holds)\n"),
            None => out.push_str("        (required)\n"),
        }
    }
    out
}

fn print_plan(plan: &LaunchPlan) -> i32 {
    let dir = match tempfile::Builder::new().prefix("flotilla_launch_params_").tempdir() {
        Ok(dir) => dir.keep(),
        Err(e) => {
            error!("cannot create a directory for parameter files: {e}");
            return EXIT_PROCESS_FAILED;
        }
    };
    let mut generated = false;
    for spec in &plan.processes {
        let args = match spec.materialize_args(&dir) {
            Ok(args) => args,
            Err(e) => {
                error!("cannot write the parameter file of '{}': {e}", spec.label);
                return EXIT_PROCESS_FAILED;
            }
        };
        generated |= spec.args.iter().any(|a| matches!(a, flotilla_launch::CommandArg::GeneratedParams(_)));
        let mut notes = vec![format!("output={}", spec.output)];
        if spec.required {
            notes.push("required (on_exit: shutdown)".into());
        }
        if spec.respawn {
            notes.push(format!("respawn after {} s", spec.respawn_delay));
        }
        println!("# {} ({}) from {}", spec.label, notes.join(", "), spec.origin);
        let mut words: Vec<String> = Vec::new();
        if let Some(cwd) = &spec.cwd {
            words.push(format!("cd {} &&", quote(&cwd.display().to_string())));
        }
        for (k, v) in &spec.env {
            words.push(format!("{k}={}", quote(v)));
        }
        words.push(quote(&spec.executable.display().to_string()));
        words.extend(args.iter().map(|a| quote(a)));
        println!("{}", words.join(" "));
    }
    if generated {
        println!("# parameter files written to {} (kept)", dir.display());
    } else {
        let _ = std::fs::remove_dir(&dir);
    }
    EXIT_OK
}

fn quote(word: &str) -> String {
    shlex::try_quote(word).map_or_else(|_| format!("'{word}'"), |q| q.into_owned())
}
