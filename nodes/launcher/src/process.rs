//! What to run: one [`ProcessSpec`] per node, with its command line built exactly as
//! launch_ros builds it.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::location::Loc;
use crate::params::InlineParams;

/// Where a process's output goes (launch's `output` attribute).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OutputMode {
    /// stdout and stderr to the screen.
    Screen,
    /// stdout to the launch log, stderr to the screen and the launch log (launch's default).
    #[default]
    Log,
    /// stdout and stderr to the screen and the launch log.
    Both,
    /// stdout and stderr to the process's own log files only.
    OwnLog,
}

impl OutputMode {
    /// Parses launch's spelling (`screen`, `log`, `both`, `own_log`).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "screen" => Self::Screen,
            "log" => Self::Log,
            "both" => Self::Both,
            "own_log" => Self::OwnLog,
            _ => return None,
        })
    }
}

impl fmt::Display for OutputMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Screen => "screen",
            Self::Log => "log",
            Self::Both => "both",
            Self::OwnLog => "own_log",
        })
    }
}

/// One argument of a command line.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandArg {
    /// Passed as is.
    Plain(String),
    /// Parameters given in the launch file: written to a file whose path is passed here.
    GeneratedParams(InlineParams),
}

/// A process to run.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessSpec {
    /// Unique label used in output and logs: `<exec_name or executable file name>-<n>`, `n`
    /// counting processes from 1 in launch order (as `ros2 launch` labels them).
    pub label: String,
    /// The executable.
    pub executable: PathBuf,
    /// Its arguments (argv after the executable).
    pub args: Vec<CommandArg>,
    /// Environment variables added to the launcher's own.
    pub env: Vec<(String, String)>,
    /// Working directory; `None` keeps the launcher's.
    pub cwd: Option<PathBuf>,
    /// `on_exit: shutdown`: when this process exits, the launch shuts down.
    pub required: bool,
    /// Restart the process when it exits (unless shutting down).
    pub respawn: bool,
    /// Wait before a restart (s).
    pub respawn_delay: f64,
    /// Where its output goes.
    pub output: OutputMode,
    /// The node name given to it (`-r __node:=`), if any.
    pub node_name: Option<String>,
    /// Its namespace (`-r __ns:=`), if any.
    pub namespace: Option<String>,
    /// The `node` action it comes from.
    pub origin: Loc,
}

impl ProcessSpec {
    /// The argument list with every generated parameter file written into `dir` (named after
    /// the label, so files of different processes never collide).
    pub fn materialize_args(&self, dir: &Path) -> std::io::Result<Vec<String>> {
        let mut out = Vec::with_capacity(self.args.len());
        let mut generated = 0;
        for arg in &self.args {
            match arg {
                CommandArg::Plain(s) => out.push(s.clone()),
                CommandArg::GeneratedParams(params) => {
                    generated += 1;
                    let path = dir.join(format!("{}_params_{generated}.yaml", file_safe(&self.label)));
                    let header = format!("# Parameters of '{}' from {}, written by flotilla launch\n", self.label, self.origin);
                    std::fs::write(&path, header + &params.to_yaml())?;
                    out.push(path.display().to_string());
                }
            }
        }
        Ok(out)
    }
}

fn file_safe(label: &str) -> String {
    label.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::params::ParamValue;

    #[test]
    fn generated_params_become_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut params = InlineParams::new("/**");
        params.set("rate".into(), ParamValue::Integer(30));
        let spec = ProcessSpec {
            label: "cam/era-1".into(),
            executable: "/bin/true".into(),
            args: vec![
                CommandArg::Plain("--ros-args".into()),
                CommandArg::Plain("--params-file".into()),
                CommandArg::GeneratedParams(params),
            ],
            env: Vec::new(),
            cwd: None,
            required: false,
            respawn: false,
            respawn_delay: 0.0,
            output: OutputMode::Screen,
            node_name: None,
            namespace: None,
            origin: Loc::new(Arc::from(Path::new("a.launch.yaml")), 3, 3),
        };
        let args = spec.materialize_args(dir.path()).unwrap();
        let file = dir.path().join("cam_era-1_params_1.yaml");
        assert_eq!(args, vec!["--ros-args".to_owned(), "--params-file".into(), file.display().to_string()]);
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains("\"rate\": 30"), "{text}");
        assert!(text.starts_with("# Parameters of 'cam/era-1' from a.launch.yaml:3:3"), "{text}");
    }

    #[test]
    fn output_modes() {
        for name in ["screen", "log", "both", "own_log"] {
            assert_eq!(OutputMode::parse(name).unwrap().to_string(), name);
        }
        assert_eq!(OutputMode::parse("console"), None);
        assert_eq!(OutputMode::default(), OutputMode::Log);
    }
}
