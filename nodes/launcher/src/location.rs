//! Source positions, so every error can name `file:line:column`.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// A position in a launch file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The launch file (as given or as resolved from an `include`).
    pub file: Arc<Path>,
    /// Line, counted from 1 (line).
    pub line: usize,
    /// Column, counted from 1 (character).
    pub column: usize,
}

impl Loc {
    /// A position in `file`; `line` and `column` count from 1.
    pub fn new(file: Arc<Path>, line: usize, column: usize) -> Self {
        Self { file, line, column }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}
