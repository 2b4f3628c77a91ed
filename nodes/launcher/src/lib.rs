//! `flotilla_launch`: reads ROS 2 launch files in the YAML format (the launch_yaml /
//! launch_ros frontend, so the same files run under `ros2 launch`) and evaluates them into
//! the processes to start, without a ROS installation.
//!
//! Pipeline: [`read_launch_file`] (YAML with positions -> typed [`ast`]) ->
//! [`evaluate_launch`] (arguments, substitutions, conditions, includes, groups, packages
//! through `AMENT_PREFIX_PATH`) -> [`LaunchPlan`] of [`ProcessSpec`]s, whose command lines
//! are those launch_ros builds. [`supervision`] holds the policy the `flotilla` binary
//! applies while the processes run. Everything here is free of process handling; the only
//! I/O is reading launch files, checking package paths and writing parameter files.

pub mod ament;
pub mod ast;
pub mod env;
pub mod error;
pub mod evaluate;
pub mod location;
pub mod namespace;
pub mod params;
pub mod parse;
pub mod process;
pub mod substitution;
pub mod supervision;
pub mod yaml;

pub use ament::AmentIndex;
pub use ast::LaunchFile;
pub use env::LaunchEnv;
pub use error::LaunchError;
pub use evaluate::{evaluate_launch, parse_launch_arguments, LaunchPlan};
pub use location::Loc;
pub use params::{InlineParams, ParamValue};
pub use parse::{parse_launch_text, read_launch_file};
pub use process::{CommandArg, OutputMode, ProcessSpec};
