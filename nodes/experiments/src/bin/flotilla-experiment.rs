//! `flotilla-experiment` (also `flotilla experiment`): seeded batch experiments of the
//! robot systems, results in a directory (`flotilla_experiments::cli`).

use std::process::ExitCode;

fn main() -> ExitCode {
    // Logs go to stderr at `warn` unless RUST_LOG says otherwise, so they do not fight
    // with the progress bar.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match flotilla_experiments::cli::run(&args, &mut std::io::stdout(), true) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
