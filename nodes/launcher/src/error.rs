//! Errors of reading and evaluating launch files. Each names the file and line it comes from.

use std::path::PathBuf;

use crate::location::Loc;

/// Everything that can be wrong with a launch file, its arguments or its environment.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid YAML.
    #[error("{loc}: YAML syntax error: {message}")]
    Syntax {
        /// Where the parser stopped.
        loc: Loc,
        /// The parser's message.
        message: String,
    },
    /// Valid YAML, but not a valid launch description (wrong type, missing field, ...).
    #[error("{loc}: {message}")]
    Invalid {
        /// The offending node.
        loc: Loc,
        /// What is wrong.
        message: String,
    },
    /// Valid in the ROS 2 launch format, but outside the subset this launcher runs.
    #[error("{loc}: unsupported: {what}")]
    Unsupported {
        /// The offending node.
        loc: Loc,
        /// The action, attribute or substitution.
        what: String,
    },
    /// A substitution could not be performed (undefined variable, unset environment variable).
    #[error("{loc}: {message}")]
    Substitution {
        /// The attribute holding the substitution.
        loc: Loc,
        /// What failed.
        message: String,
    },
    /// `name:=value` given on the command line for an argument the launch file does not declare.
    #[error(
        "unknown launch argument(s) {}: {file} declares {}",
        names.join(", "),
        if known.is_empty() { "no arguments".to_owned() } else { known.join(", ") }
    )]
    UnknownArguments {
        /// The unknown names.
        names: Vec<String>,
        /// The arguments the top-level file declares.
        known: Vec<String>,
        /// The top-level file.
        file: PathBuf,
    },
    /// A command-line argument that is not `name:=value`.
    #[error("launch argument `{given}` is not of the form name:=value")]
    ArgumentSyntax {
        /// What was given.
        given: String,
    },
    /// An argument without default was neither given on the command line nor by the includer.
    #[error("{loc}: required launch argument '{name}' was not provided{}", describe(description))]
    MissingArgument {
        /// The argument.
        name: String,
        /// Its description, if any.
        description: Option<String>,
        /// Its declaration (or the `include` that failed to pass it).
        loc: Loc,
    },
    /// An argument's value is not among its declared choices.
    #[error("{loc}: argument '{name}' = '{value}' is not one of: {}", choices.join(", "))]
    InvalidChoice {
        /// The argument.
        name: String,
        /// The value given.
        value: String,
        /// The allowed values.
        choices: Vec<String>,
        /// The declaration.
        loc: Loc,
    },
    /// No prefix in `AMENT_PREFIX_PATH` holds the package.
    #[error("{loc}: package '{package}' not found in AMENT_PREFIX_PATH (searched: {})", list_paths(searched))]
    PackageNotFound {
        /// The package.
        package: String,
        /// The prefixes searched, in order.
        searched: Vec<PathBuf>,
        /// Where it was asked for.
        loc: Loc,
    },
    /// The package exists but has no such executable in `lib/<package>/`.
    #[error("{loc}: executable '{executable}' not found in {} (package '{package}')", dir.display())]
    ExecutableNotFound {
        /// The package.
        package: String,
        /// The executable name.
        executable: String,
        /// The directory searched.
        dir: PathBuf,
        /// Where it was asked for.
        loc: Loc,
    },
    /// A launch file includes itself, directly or not.
    #[error("{loc}: include cycle: {}", chain.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" -> "))]
    IncludeCycle {
        /// The chain of files, outermost first.
        chain: Vec<PathBuf>,
        /// The `include` closing the cycle.
        loc: Loc,
    },
}

fn describe(description: &Option<String>) -> String {
    match description {
        Some(d) if !d.is_empty() => format!(" (description: {d})"),
        _ => String::new(),
    }
}

fn list_paths(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "none: AMENT_PREFIX_PATH is empty".to_owned();
    }
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

impl LaunchError {
    /// An [`LaunchError::Invalid`] at `loc`.
    pub(crate) fn invalid(loc: &Loc, message: impl Into<String>) -> Self {
        Self::Invalid { loc: loc.clone(), message: message.into() }
    }

    /// An [`LaunchError::Unsupported`] at `loc`.
    pub(crate) fn unsupported(loc: &Loc, what: impl Into<String>) -> Self {
        Self::Unsupported { loc: loc.clone(), what: what.into() }
    }

    /// A [`LaunchError::Substitution`] at `loc`.
    pub(crate) fn substitution(loc: &Loc, message: impl Into<String>) -> Self {
        Self::Substitution { loc: loc.clone(), message: message.into() }
    }
}
