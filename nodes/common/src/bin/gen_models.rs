//! Regenerates the URDF and SDF files of every module kind and arena from the catalogue.
//!
//! ```sh
//! cargo run -p flotilla_common --no-default-features --bin gen_models          # writes urdf/
//! cargo run -p flotilla_common --no-default-features --bin gen_models -- DIR   # writes DIR
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args_os().nth(1).map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../urdf"));
    match flotilla_common::models::write_files(&dir) {
        Ok(paths) => {
            for p in &paths {
                println!("{}", p.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_models: {e}");
            ExitCode::FAILURE
        }
    }
}
