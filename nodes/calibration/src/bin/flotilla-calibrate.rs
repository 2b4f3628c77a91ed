//! `flotilla-calibrate`: the offline calibration CLI (no ROS needed).

use std::process::ExitCode;

use calibration::cli::{exit_code, run, CalibrateArgs};
use clap::Parser;

/// Flow-field estimation and PSO calibration of the Lily tank's hydrodynamic model.
#[derive(Debug, Parser)]
#[command(name = "flotilla-calibrate", version)]
struct Cli {
    #[command(flatten)]
    args: CalibrateArgs,
}

fn main() -> ExitCode {
    // Logs go to stderr at `warn` unless RUST_LOG says otherwise, so they do not fight
    // with the progress bar.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse().args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Bad input exits 2 (as clap's argument errors do), failed work 1.
            eprintln!("error: {}", flotilla_common::error_chain::describe(e.as_ref()));
            ExitCode::from(exit_code(&e))
        }
    }
}
