//! Files a calibration leaves behind.

mod files;
pub mod plots;

pub use files::{write_fitness_history, write_msd_table, write_parameter_file};

use std::io::Write;
use std::path::Path;

use crate::CalibrationError;

/// Writes `bytes` to `path` so that a reader (or a crash) sees either the old file or the
/// whole new one: write a temporary file beside it, sync, rename over.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CalibrationError> {
    let io = |source| CalibrationError::Io { path: path.to_path_buf(), source };
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = std::path::PathBuf::from(temporary);
    let mut file = std::fs::File::create(&temporary).map_err(io)?;
    file.write_all(bytes).and_then(|_| file.sync_all()).map_err(io)?;
    std::fs::rename(&temporary, path).map_err(io)
}
