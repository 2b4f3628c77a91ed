//! The typed form of a ROS 2 YAML launch file, every piece with its source position.

use std::path::Path;
use std::sync::Arc;

use crate::location::Loc;
use crate::substitution::Template;
use crate::yaml::Scalar;

/// A parsed launch file.
#[derive(Clone, Debug)]
pub struct LaunchFile {
    /// The file it was read from.
    pub path: Arc<Path>,
    /// The `launch:` list, in order.
    pub actions: Vec<Action>,
}

/// An attribute value with substitutions, and where it was written.
#[derive(Clone, Debug)]
pub struct Text {
    /// The parsed value.
    pub template: Template,
    /// Its position.
    pub loc: Loc,
}

/// One entry of a `launch:` or `children:` list.
#[derive(Clone, Debug)]
pub struct Action {
    /// What it does.
    pub kind: ActionKind,
    /// `if:` / `unless:`; the action is skipped when the condition fails.
    pub condition: Option<Condition>,
    /// Where the action starts.
    pub loc: Loc,
}

/// `if` or `unless`, evaluated like launch's `IfCondition` (`true`/`1` or `false`/`0`).
#[derive(Clone, Debug)]
pub enum Condition {
    /// Run the action when the expression is true.
    If(Text),
    /// Run the action when the expression is false.
    Unless(Text),
}

/// The supported actions.
#[derive(Clone, Debug)]
pub enum ActionKind {
    /// `arg`: declares a launch argument.
    Arg(ArgDecl),
    /// `let`: sets a launch configuration.
    Let(NameValue),
    /// `node`: runs a ROS node.
    Node(Box<NodeDecl>),
    /// `include`: runs another launch file in place.
    Include(IncludeDecl),
    /// `group`: nests actions, optionally scoping configurations.
    Group(GroupDecl),
    /// `push-ros-namespace` (or `push_ros_namespace`): prefixes later nodes' namespace.
    PushRosNamespace(Text),
}

/// `arg: {name, default, description, choice}`.
#[derive(Clone, Debug)]
pub struct ArgDecl {
    /// The argument name (no substitutions, as in launch).
    pub name: String,
    /// The default; `None` makes the argument required.
    pub default: Option<Text>,
    /// Shown by `--show-args`.
    pub description: Option<String>,
    /// Allowed values (`choice: [{value: a}, ...]`); empty means any.
    pub choices: Vec<String>,
}

/// A `{name, value}` pair (`let`, include `arg`, group `keep`, node `env`).
#[derive(Clone, Debug)]
pub struct NameValue {
    /// The name.
    pub name: Text,
    /// The value.
    pub value: Text,
}

/// `include: {file, arg}`.
#[derive(Clone, Debug)]
pub struct IncludeDecl {
    /// The launch file; a relative path is taken from the working directory, as in launch.
    pub file: Text,
    /// Arguments set (as launch configurations) before the included file runs.
    pub args: Vec<NameValue>,
}

/// `group: {scoped, forwarding, keep, children}` or `group: [children]`.
#[derive(Clone, Debug)]
pub struct GroupDecl {
    /// Changes inside stay inside (default true).
    pub scoped: bool,
    /// A scoped group sees the outer configurations (default true).
    pub forwarding: bool,
    /// Configurations set at the start of the group (and kept when not forwarding).
    pub keep: Vec<NameValue>,
    /// The nested actions.
    pub children: Vec<Action>,
}

/// `node: {...}`.
#[derive(Clone, Debug)]
pub struct NodeDecl {
    /// `pkg`: the package holding the executable; without it `exec` is a path or a command.
    pub package: Option<Text>,
    /// `exec`: the executable name.
    pub executable: Text,
    /// `name`: the node name (`-r __node:=`).
    pub name: Option<Text>,
    /// `namespace`: relative ones are prefixed by pushed namespaces (`-r __ns:=`).
    pub namespace: Option<Text>,
    /// `exec_name`: the label of the process in output (default: the executable's file name).
    pub exec_name: Option<Text>,
    /// `param`: parameter files and values, in order (later wins).
    pub params: Vec<ParamDecl>,
    /// `remap`: `-r from:=to` rules, in order.
    pub remaps: Vec<Remap>,
    /// `args`: extra arguments, split like a shell command line (one entry per argument).
    pub args: Vec<Text>,
    /// `ros_args`: arguments placed after an extra `--ros-args`.
    pub ros_args: Vec<Text>,
    /// `output`: `screen`, `log` (default), `both` or `own_log`.
    pub output: Option<Text>,
    /// `respawn`: restart the process when it exits (a boolean expression).
    pub respawn: Option<Text>,
    /// `respawn_delay`: wait before restarting (s).
    pub respawn_delay: Option<f64>,
    /// `on_exit: shutdown`: the process is required; its exit ends the launch.
    pub shutdown_on_exit: bool,
    /// `env`: environment variables added for the process.
    pub env: Vec<NameValue>,
    /// `cwd`: the process's working directory.
    pub cwd: Option<Text>,
}

/// A `remap: [{from, to}]` entry.
#[derive(Clone, Debug)]
pub struct Remap {
    /// Topic/service/node name to remap.
    pub from: Text,
    /// Its replacement.
    pub to: Text,
}

/// One `param:` entry.
#[derive(Clone, Debug)]
pub enum ParamDecl {
    /// `{from: file.yaml}`: passed with `--params-file`.
    File(Text),
    /// `{name, value}` or `{name, param: [...]}`.
    Value(InlineParam),
}

/// A parameter given in the launch file.
#[derive(Clone, Debug)]
pub struct InlineParam {
    /// Its name (nested names are joined with `.` when evaluated).
    pub name: Text,
    /// Its value.
    pub value: ParamValueDecl,
    /// Where the entry starts.
    pub loc: Loc,
}

/// How a parameter value was written.
#[derive(Clone, Debug)]
pub enum ParamValueDecl {
    /// A YAML scalar with no substitution: kept with its YAML type (a plain string stays a string).
    Native(Scalar),
    /// A string with substitutions: after substitution, typed by YAML rules (`"60"` -> 60).
    Substituted(Template),
    /// A list; items follow the two rules above.
    List(Vec<ParamValueDecl>),
    /// `param: [...]`: nested parameters `name.child`.
    Nested(Vec<InlineParam>),
}

impl LaunchFile {
    /// Every `arg` declared in this file, in order, looking inside groups but not includes.
    /// The flag tells whether the declaration sits under a condition.
    pub fn declared_arguments(&self) -> Vec<(&ArgDecl, bool, &Loc)> {
        fn walk<'a>(actions: &'a [Action], conditional: bool, out: &mut Vec<(&'a ArgDecl, bool, &'a Loc)>) {
            for action in actions {
                let conditional = conditional || action.condition.is_some();
                match &action.kind {
                    ActionKind::Arg(decl) => out.push((decl, conditional, &action.loc)),
                    ActionKind::Group(group) => walk(&group.children, conditional, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.actions, false, &mut out);
        out
    }
}
