use std::path::PathBuf;

/// A ruleset that cannot be read or used. Messages name the file (or `<string>`), the
/// 1-based line when known (0 otherwise) and the rule or key.
#[derive(Debug, thiserror::Error)]
pub enum RulesetError {
    /// The file could not be read.
    #[error("cannot read ruleset {path}: {source}")]
    Read {
        /// The file asked for.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not valid YAML, an unknown key, a missing key or a value of the wrong type.
    #[error("{origin}:{line}:{column}: {message}")]
    Syntax {
        /// File name or `<string>`.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// Well-formed YAML whose content is wrong (unknown state, bad face, duplicate rule ...).
    #[error("{origin}:{line}: {item}: {message}")]
    Invalid {
        /// File name or `<string>`.
        origin: String,
        /// 1-based line of the item (0 when it cannot be found).
        line: usize,
        /// The rule (`bonds rule \`pair\``) or key (`release_time`) at fault.
        item: String,
        /// What is wrong.
        message: String,
    },
}
