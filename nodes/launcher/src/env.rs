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
        let vars = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect();
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

    /// Where ROS writes logs: `$ROS_LOG_DIR`, else `$ROS_HOME/log`, else `$HOME/.ros/log`
    /// (relative values taken from [`LaunchEnv::cwd`]).
    pub fn ros_log_root(&self) -> PathBuf {
        let nonempty = |name: &str| self.var(name).filter(|v| !v.is_empty());
        let root = match (nonempty("ROS_LOG_DIR"), nonempty("ROS_HOME"), nonempty("HOME")) {
            (Some(dir), _, _) => PathBuf::from(dir),
            (None, Some(home), _) => PathBuf::from(home).join("log"),
            (None, None, Some(home)) => PathBuf::from(home).join(".ros/log"),
            (None, None, None) => PathBuf::from(".ros/log"),
        };
        self.absolute(root)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_root_follows_ros_variables() {
        let env = LaunchEnv::new("/work").with_var("HOME", "/home/u");
        assert_eq!(env.ros_log_root(), PathBuf::from("/home/u/.ros/log"));
        let env = env.with_var("ROS_HOME", "rh");
        assert_eq!(env.ros_log_root(), PathBuf::from("/work/rh/log"));
        let env = env.with_var("ROS_LOG_DIR", "/var/log/ros");
        assert_eq!(env.ros_log_root(), PathBuf::from("/var/log/ros"));
    }
}
