//! Running a launch description without starting anything: arguments, `let`, conditions,
//! substitutions, includes and groups are evaluated in file order, the way launch visits
//! them, into the list of processes to start.
//!
//! Semantics follow launch/launch_ros (Jazzy):
//! - launch configurations are one flat map; command-line arguments are set before the
//!   first action, so they override `arg` defaults;
//! - `include` is not scoped: its `arg` values are set in the current scope and the included
//!   file sees (and may change) the includer's configurations. Wrap it in a `group` to scope;
//! - a scoped `group` (the default) restores configurations, pushed namespaces included, at
//!   its end; `forwarding: false` starts it with only its `keep` entries;
//! - the pushed namespace is the configuration `ros_namespace`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::ament::{is_executable_file, AmentIndex};
use crate::ast::{
    Action, ActionKind, ArgDecl, Condition, GroupDecl, IncludeDecl, InlineParam, LaunchFile, NameValue, NodeDecl, ParamDecl,
    ParamValueDecl, Text,
};
use crate::env::LaunchEnv;
use crate::error::LaunchError;
use crate::location::Loc;
use crate::namespace::{prefix_namespace, validate_namespace, validate_node_name};
use crate::params::{type_substituted, uniform_list, InlineParams, ParamValue};
use crate::parse::read_launch_file;
use crate::process::{CommandArg, OutputMode, ProcessSpec};
use crate::substitution::{Part, Substitution, SubstitutionKind, Template};
use crate::yaml::{resolve_scalar, Scalar};

/// The configuration holding the namespace pushed by `push-ros-namespace`.
const ROS_NAMESPACE: &str = "ros_namespace";
/// Deeper includes are taken as a runaway recursion.
const MAX_INCLUDE_DEPTH: usize = 64;

/// The result of evaluating a launch file.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchPlan {
    /// The processes to start, in launch order.
    pub processes: Vec<ProcessSpec>,
}

/// Splits command-line launch arguments `name:=value`.
pub fn parse_launch_arguments<S: AsRef<str>>(given: &[S]) -> Result<Vec<(String, String)>, LaunchError> {
    given
        .iter()
        .map(|arg| {
            let arg = arg.as_ref();
            match arg.split_once(":=") {
                Some((name, value)) if !name.is_empty() => Ok((name.to_owned(), value.to_owned())),
                _ => Err(LaunchError::ArgumentSyntax { given: arg.to_owned() }),
            }
        })
        .collect()
}

/// Evaluates `file` with command-line `arguments` (`(name, value)`) in `env`.
///
/// Every argument name must be declared by an `arg` of `file` itself (in any group, not in
/// included files).
pub fn evaluate_launch(file: &LaunchFile, arguments: &[(String, String)], env: &LaunchEnv) -> Result<LaunchPlan, LaunchError> {
    let declared: BTreeSet<&str> = file.declared_arguments().iter().map(|(d, _, _)| d.name.as_str()).collect();
    let unknown: Vec<String> = arguments.iter().filter(|(n, _)| !declared.contains(n.as_str())).map(|(n, _)| n.clone()).collect();
    if !unknown.is_empty() {
        return Err(LaunchError::UnknownArguments {
            names: unknown,
            known: declared.iter().map(|s| (*s).to_owned()).collect(),
            file: file.path.to_path_buf(),
        });
    }
    let mut evaluator = Evaluator {
        env,
        ament: AmentIndex::from_env(env),
        configs: arguments.iter().cloned().collect(),
        files: vec![Arc::from(env.absolute(&*file.path))],
        processes: Vec::new(),
    };
    evaluator.run(&file.actions)?;
    Ok(LaunchPlan { processes: evaluator.processes })
}

struct Evaluator<'a> {
    env: &'a LaunchEnv,
    ament: AmentIndex,
    configs: HashMap<String, String>,
    /// The include chain (absolute paths); the last one is the current file.
    files: Vec<Arc<Path>>,
    processes: Vec<ProcessSpec>,
}

impl Evaluator<'_> {
    fn run(&mut self, actions: &[Action]) -> Result<(), LaunchError> {
        for action in actions {
            if !self.condition_holds(action.condition.as_ref())? {
                continue;
            }
            match &action.kind {
                ActionKind::Arg(decl) => self.declare(decl, &action.loc)?,
                ActionKind::Let(NameValue { name, value }) => {
                    let (name, value) = (self.eval(name)?, self.eval(value)?);
                    self.configs.insert(name, value);
                }
                ActionKind::Node(node) => {
                    let spec = self.node(node, &action.loc)?;
                    self.processes.push(spec);
                }
                ActionKind::Include(include) => self.include(include, &action.loc)?,
                ActionKind::Group(group) => self.group(group)?,
                ActionKind::PushRosNamespace(ns) => {
                    let pushed = self.eval(ns)?;
                    let previous = self.configs.get(ROS_NAMESPACE).map(String::as_str);
                    let namespace = prefix_namespace(previous, Some(&pushed)).unwrap_or_else(|| "/".to_owned());
                    validate_namespace(&namespace).map_err(|m| LaunchError::invalid(&ns.loc, m))?;
                    self.configs.insert(ROS_NAMESPACE.to_owned(), namespace);
                }
            }
        }
        Ok(())
    }

    fn condition_holds(&self, condition: Option<&Condition>) -> Result<bool, LaunchError> {
        let (text, wanted) = match condition {
            None => return Ok(true),
            Some(Condition::If(t)) => (t, true),
            Some(Condition::Unless(t)) => (t, false),
        };
        let value = self.eval(text)?;
        match value.to_lowercase().as_str() {
            "true" | "1" => Ok(wanted),
            "false" | "0" => Ok(!wanted),
            _ => Err(LaunchError::invalid(
                &text.loc,
                format!("condition \"{}\" gave '{value}'; expected true, false, 1 or 0", text.template),
            )),
        }
    }

    fn declare(&mut self, decl: &ArgDecl, loc: &Loc) -> Result<(), LaunchError> {
        let value = match (self.configs.get(&decl.name), &decl.default) {
            (Some(value), _) => value.clone(),
            (None, Some(default)) => {
                let value = self.eval(default)?;
                self.configs.insert(decl.name.clone(), value.clone());
                value
            }
            (None, None) => {
                return Err(LaunchError::MissingArgument {
                    name: decl.name.clone(),
                    description: decl.description.clone(),
                    loc: loc.clone(),
                })
            }
        };
        if !decl.choices.is_empty() && !decl.choices.contains(&value) {
            return Err(LaunchError::InvalidChoice { name: decl.name.clone(), value, choices: decl.choices.clone(), loc: loc.clone() });
        }
        Ok(())
    }

    fn include(&mut self, include: &IncludeDecl, loc: &Loc) -> Result<(), LaunchError> {
        let path = self.env.absolute(self.eval(&include.file)?);
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let same = |f: &Arc<Path>| std::fs::canonicalize(f).is_ok_and(|c| c == canonical);
        if self.files.iter().any(same) || self.files.len() >= MAX_INCLUDE_DEPTH {
            let mut chain: Vec<PathBuf> = self.files.iter().map(|f| f.to_path_buf()).collect();
            chain.push(path);
            return Err(LaunchError::IncludeCycle { chain, loc: loc.clone() });
        }
        let included = match read_launch_file(&path) {
            Err(LaunchError::Read { path, source }) => {
                return Err(LaunchError::invalid(loc, format!("cannot include {}: {source}", path.display())))
            }
            other => other?,
        };
        let given: Vec<String> = include.args.iter().map(|a| self.eval(&a.name)).collect::<Result<_, _>>()?;
        for (decl, conditional, _) in included.declared_arguments() {
            if !conditional && decl.default.is_none() && !given.contains(&decl.name) {
                return Err(LaunchError::MissingArgument {
                    name: decl.name.clone(),
                    description: decl.description.clone(),
                    loc: loc.clone(),
                });
            }
        }
        for (name, arg) in given.into_iter().zip(&include.args) {
            let value = self.eval(&arg.value)?;
            self.configs.insert(name, value);
        }
        self.files.push(Arc::from(path.as_path()));
        let result = self.run(&included.actions);
        self.files.pop();
        result
    }

    fn group(&mut self, group: &GroupDecl) -> Result<(), LaunchError> {
        let saved = group.scoped.then(|| self.configs.clone());
        if group.scoped && !group.forwarding {
            let keep: Vec<(String, String)> =
                group.keep.iter().map(|kv| Ok((self.eval(&kv.name)?, self.eval(&kv.value)?))).collect::<Result<_, LaunchError>>()?;
            self.configs = keep.into_iter().collect();
        } else {
            for kv in &group.keep {
                let (name, value) = (self.eval(&kv.name)?, self.eval(&kv.value)?);
                self.configs.insert(name, value);
            }
        }
        let result = self.run(&group.children);
        if let Some(saved) = saved {
            self.configs = saved;
        }
        result
    }

    fn node(&mut self, node: &NodeDecl, loc: &Loc) -> Result<ProcessSpec, LaunchError> {
        let executable = match &node.package {
            Some(package) => {
                let package = self.eval(package)?;
                let exec = self.eval(&node.executable)?;
                self.ament.executable(&package, &exec, &node.executable.loc)?
            }
            None => self.executable_on_path(&node.executable)?,
        };
        let name = node.name.as_ref().map(|n| self.eval(n)).transpose()?;
        if let (Some(name), Some(text)) = (&name, &node.name) {
            validate_node_name(name).map_err(|m| LaunchError::invalid(&text.loc, m))?;
        }
        let own_namespace = node.namespace.as_ref().map(|n| self.eval(n)).transpose()?;
        let pushed = self.configs.get(ROS_NAMESPACE).map(String::as_str);
        let namespace = prefix_namespace(pushed, own_namespace.as_deref());
        if let Some(ns) = &namespace {
            let ns_loc = node.namespace.as_ref().map_or(loc, |t| &t.loc);
            validate_namespace(ns).map_err(|m| LaunchError::invalid(ns_loc, m))?;
        }

        // <exe> [args] [--ros-args ros_args] --ros-args [-r __node:=] [-r __ns:=] [params] [remaps]
        let mut args: Vec<CommandArg> = Vec::new();
        for arg in &node.args {
            args.push(CommandArg::Plain(self.eval(arg)?));
        }
        if !node.ros_args.is_empty() {
            args.push(CommandArg::Plain("--ros-args".into()));
            for arg in &node.ros_args {
                args.push(CommandArg::Plain(self.eval(arg)?));
            }
        }
        args.push(CommandArg::Plain("--ros-args".into()));
        if let Some(name) = &name {
            args.extend(["-r".into(), format!("__node:={name}")].map(CommandArg::Plain));
        }
        if let Some(ns) = &namespace {
            args.extend(["-r".into(), format!("__ns:={ns}")].map(CommandArg::Plain));
        }
        let node_key = match (&namespace, &name) {
            (Some(ns), Some(name)) => prefix_namespace(Some(ns), Some(name)).unwrap_or_else(|| "/**".to_owned()),
            _ => "/**".to_owned(),
        };
        let mut pending: Option<InlineParams> = None;
        for param in &node.params {
            match param {
                ParamDecl::File(path) => {
                    if let Some(inline) = pending.take() {
                        args.extend([CommandArg::Plain("--params-file".into()), CommandArg::GeneratedParams(inline)]);
                    }
                    let file = self.env.absolute(self.eval(path)?);
                    if !file.is_file() {
                        return Err(LaunchError::invalid(&path.loc, format!("parameter file {} does not exist", file.display())));
                    }
                    args.push(CommandArg::Plain("--params-file".into()));
                    args.push(CommandArg::Plain(file.display().to_string()));
                }
                ParamDecl::Value(inline) => {
                    let params = pending.get_or_insert_with(|| InlineParams::new(node_key.clone()));
                    self.inline_param(inline, "", params)?;
                }
            }
        }
        if let Some(inline) = pending {
            args.extend([CommandArg::Plain("--params-file".into()), CommandArg::GeneratedParams(inline)]);
        }
        for remap in &node.remaps {
            let rule = format!("{}:={}", self.eval(&remap.from)?, self.eval(&remap.to)?);
            args.extend([CommandArg::Plain("-r".into()), CommandArg::Plain(rule)]);
        }

        let output = match &node.output {
            None => OutputMode::default(),
            Some(text) => {
                let value = self.eval(text)?;
                OutputMode::parse(&value)
                    .ok_or_else(|| LaunchError::invalid(&text.loc, format!("output '{value}' is not one of screen, log, both, own_log")))?
            }
        };
        let respawn = match &node.respawn {
            None => false,
            Some(text) => {
                let value = self.eval(text)?;
                match resolve_scalar(&value, true) {
                    Ok(Scalar::Bool(b)) => b,
                    _ => return Err(LaunchError::invalid(&text.loc, format!("respawn '{value}' is not true or false"))),
                }
            }
        };
        let env = node.env.iter().map(|kv| Ok((self.eval(&kv.name)?, self.eval(&kv.value)?))).collect::<Result<_, LaunchError>>()?;
        let cwd = node.cwd.as_ref().map(|c| self.eval(c).map(|d| self.env.absolute(d))).transpose()?;
        let base_label = match &node.exec_name {
            Some(text) => self.eval(text)?,
            None => executable.file_name().map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
        };
        Ok(ProcessSpec {
            label: format!("{base_label}-{}", self.processes.len() + 1),
            executable,
            args,
            env,
            cwd,
            required: node.shutdown_on_exit,
            respawn,
            respawn_delay: node.respawn_delay.unwrap_or(0.0),
            output,
            node_name: name,
            namespace,
            origin: loc.clone(),
        })
    }

    /// `exec` without `pkg`: a path (with a `/`) or a command looked up in `PATH`.
    fn executable_on_path(&self, exec: &Text) -> Result<PathBuf, LaunchError> {
        let name = self.eval(exec)?;
        if name.contains('/') {
            let path = self.env.absolute(&name);
            return if is_executable_file(&path) {
                Ok(path)
            } else {
                Err(LaunchError::invalid(&exec.loc, format!("{} is not an executable file", path.display())))
            };
        }
        let search = self.env.var("PATH").unwrap_or_default();
        search
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|dir| self.env.absolute(dir).join(&name))
            .find(|candidate| is_executable_file(candidate))
            .ok_or_else(|| LaunchError::invalid(&exec.loc, format!("executable '{name}' not found in PATH")))
    }

    fn inline_param(&self, param: &InlineParam, prefix: &str, out: &mut InlineParams) -> Result<(), LaunchError> {
        let name = format!("{prefix}{}", self.eval(&param.name)?);
        let fail = |m: String| LaunchError::invalid(&param.loc, format!("parameter '{name}': {m}"));
        let value = match &param.value {
            ParamValueDecl::Nested(children) => {
                for child in children {
                    self.inline_param(child, &format!("{name}."), out)?;
                }
                return Ok(());
            }
            ParamValueDecl::Native(scalar) => ParamValue::from_scalar(scalar.clone()).ok_or_else(|| fail("value is null".into()))?,
            ParamValueDecl::Substituted(template) => type_substituted(&self.eval_template(template, &param.loc)?).map_err(fail)?,
            ParamValueDecl::List(items) => {
                let mut scalars = Vec::with_capacity(items.len());
                for item in items {
                    scalars.push(match item {
                        ParamValueDecl::Native(s) => s.clone(),
                        ParamValueDecl::Substituted(t) => {
                            let text = self.eval_template(t, &param.loc)?;
                            match type_substituted(&text).map_err(&fail)? {
                                ParamValue::Bool(b) => Scalar::Bool(b),
                                ParamValue::Integer(i) => Scalar::Int(i),
                                ParamValue::Double(x) => Scalar::Float(x),
                                ParamValue::String(s) => Scalar::Str(s),
                                _ => return Err(fail(format!("list item \"{text}\" is itself a list"))),
                            }
                        }
                        ParamValueDecl::List(_) | ParamValueDecl::Nested(_) => return Err(fail("lists cannot be nested".into())),
                    });
                }
                uniform_list(scalars).map_err(|m| fail(format!("the list {m}")))?
            }
        };
        out.set(name, value);
        Ok(())
    }

    fn eval(&self, text: &Text) -> Result<String, LaunchError> {
        self.eval_template(&text.template, &text.loc)
    }

    fn eval_template(&self, template: &Template, loc: &Loc) -> Result<String, LaunchError> {
        let mut out = String::new();
        for part in &template.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Sub(sub) => out.push_str(&self.perform(sub, loc)?),
            }
        }
        Ok(out)
    }

    fn perform(&self, sub: &Substitution, loc: &Loc) -> Result<String, LaunchError> {
        let arg = |i: usize| -> Result<Option<String>, LaunchError> { sub.args.get(i).map(|a| self.eval_template(a, loc)).transpose() };
        let first = || -> Result<String, LaunchError> { Ok(arg(0)?.unwrap_or_default()) };
        let current = self.files.last().map(|f| f.to_path_buf()).unwrap_or_default();
        Ok(match sub.kind {
            SubstitutionKind::Var => {
                let name = first()?;
                match (self.configs.get(&name), arg(1)?) {
                    (Some(value), _) => value.clone(),
                    (None, Some(default)) => default,
                    (None, None) => {
                        let mut known: Vec<&str> = self.configs.keys().map(String::as_str).collect();
                        known.sort_unstable();
                        return Err(LaunchError::substitution(
                            loc,
                            format!("$(var {name}): launch configuration '{name}' is not set (set: {})", known.join(", ")),
                        ));
                    }
                }
            }
            SubstitutionKind::Env => {
                let name = first()?;
                match (self.env.var(&name), arg(1)?) {
                    (Some(value), _) => value.to_owned(),
                    (None, Some(default)) => default,
                    (None, None) => {
                        return Err(LaunchError::substitution(loc, format!("$(env {name}): environment variable '{name}' is not set")))
                    }
                }
            }
            SubstitutionKind::FindPkgShare => path_string(&self.ament.package_share(&first()?, loc)?),
            SubstitutionKind::FindPkgPrefix => path_string(self.ament.package_prefix(&first()?, loc)?),
            SubstitutionKind::ExecInPkg => {
                let (exec, package) = (first()?, arg(1)?.unwrap_or_default());
                path_string(&self.ament.executable(&package, &exec, loc)?)
            }
            SubstitutionKind::Dirname => path_string(current.parent().unwrap_or(Path::new("/"))),
            SubstitutionKind::Filename => path_string(&current),
        })
    }
}

fn path_string(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests;
