//! Regenerates the rviz2 views of the scenarios (`config/<scenario>.rviz`: the general
//! view plus a RobotModel per module) from `config/flotilla.rviz` and the scenario files.
//!
//! ```sh
//! cargo run -p tank_physics --no-default-features --bin gen_rviz          # writes config/
//! cargo run -p tank_physics --no-default-features --bin gen_rviz -- DIR   # writes DIR
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let config = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config");
    let out = std::env::args_os().nth(1).map(PathBuf::from).unwrap_or_else(|| config.clone());
    match tank_physics::rviz::write_views(&config, &out) {
        Ok(paths) => {
            for p in &paths {
                println!("{}", p.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("gen_rviz: {e}");
            ExitCode::FAILURE
        }
    }
}
