//! The surface flow field as per-cell statistics (SPEC 1) and its file format.
//!
//! The calibration node estimates it from tracked trajectories and writes it with
//! [`FlowGrid::write_csv`]; the physics reads it with [`FlowGrid::read_csv`] and samples
//! `v_flow = Kv * N(mean, std)` in the cell under each body.

mod file;
mod grid;

pub use grid::{FlowCell, FlowGrid, GridExtent};

/// Most cells per side of any flow grid (count): a grid estimated by the calibration
/// (CLI or node) or read from a file. Caps the memory a file header or a request can make
/// a process allocate (1000 x 1000 cells is about 50 MB).
pub const MAX_CELLS_PER_SIDE: usize = 1000;

/// A flow-field file or grid that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FlowFieldError {
    /// The file could not be read or written.
    #[error("flow field file {path}: {source}")]
    Io {
        /// The file's path.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file's text is malformed.
    #[error("flow field{}: line {line}: {message}", file.as_deref().map(|f| format!(" file {f}")).unwrap_or_default())]
    Parse {
        /// The file's path, when read from a file.
        file: Option<String>,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Grid geometry that cannot exist.
    #[error("flow field grid: {0}")]
    Invalid(String),
}

impl FlowFieldError {
    fn in_file(self, path: &std::path::Path) -> Self {
        match self {
            FlowFieldError::Parse { line, message, .. } => FlowFieldError::Parse { file: Some(path.display().to_string()), line, message },
            other => other,
        }
    }
}
