use flotilla_common::flow_field::FlowFieldError;

/// A parameter that cannot be used; every variant names the key path
/// (e.g. `hydro.kv`, `pumps.power[3]`, `modules.ball.kind`).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A key this node does not know.
    #[error("{path}: unknown key (known here: {known})")]
    UnknownKey {
        /// Full key path.
        path: String,
        /// The keys accepted at that level.
        known: String,
    },
    /// A value of the wrong type.
    #[error("{path}: expected {expected}, got {got}")]
    WrongType {
        /// Full key path.
        path: String,
        /// What was expected.
        expected: &'static str,
        /// What was found.
        got: String,
    },
    /// A number outside its allowed range.
    #[error("{path}: must be in [{min}, {max}], got {got}")]
    OutOfRange {
        /// Full key path.
        path: String,
        /// Smallest allowed value.
        min: f64,
        /// Largest allowed value.
        max: f64,
        /// The value given.
        got: f64,
    },
    /// NaN or infinity.
    #[error("{path}: must be a finite number, got {got}")]
    NotFinite {
        /// Full key path.
        path: String,
        /// The value given.
        got: f64,
    },
    /// A value that is well-typed but not acceptable, with the reason.
    #[error("{path}: {message}")]
    Invalid {
        /// Full key path.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The flow-field file named by `flow_field.file` cannot be used.
    #[error("flow_field.file: {0}")]
    FlowField(#[from] FlowFieldError),
}

impl ConfigError {
    /// The key path the error is about (e.g. `hydro.kv`).
    pub fn key(&self) -> &str {
        match self {
            ConfigError::UnknownKey { path, .. }
            | ConfigError::WrongType { path, .. }
            | ConfigError::OutOfRange { path, .. }
            | ConfigError::NotFinite { path, .. }
            | ConfigError::Invalid { path, .. } => path,
            ConfigError::FlowField(_) => "flow_field.file",
        }
    }

    /// What is wrong, without the key path.
    pub fn reason(&self) -> String {
        let text = self.to_string();
        let prefix = format!("{}: ", self.key());
        text.strip_prefix(&prefix).map(str::to_owned).unwrap_or(text)
    }
}
