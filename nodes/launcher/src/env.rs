//! The environment a launch is evaluated in, passed explicitly so evaluation is reproducible
//! and tests never depend on the real process environment.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Environment variables and working directory seen by a launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchEnv {
    /// Environment variables (`$(env X)`, `AMENT_PREFIX_PATH`, inherited by every process).
    pub vars: BTreeMap<String, String>,
    /// Working directory: relative launch, include and parameter-file paths start here.
    pub cwd: PathBuf,
}

impl LaunchEnv {
    /// The current process's environment and working directory (variables that are not
    /// valid UTF-8 are skipped).
    pub fn from_process() -> std::io::Result<Self> {
        let vars = std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect();
        Ok(Self { vars, cwd: std::env::current_dir()? })
    }

    /// An environment with only `vars`, working in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self { vars: BTreeMap::new(), cwd: cwd.into() }
    }

    /// Builder: sets variable `name`.
    pub fn with_var(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.vars.insert(name.into(), value.into());
        self
    }

    /// The value of variable `name`.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// `path` made absolute against [`LaunchEnv::cwd`].
    pub fn absolute(&self, path: impl Into<PathBuf>) -> PathBuf {
        let path = path.into();
        if path.is_absolute() {
            path
        } else {
            self.cwd.join(path)
        }
    }
}
