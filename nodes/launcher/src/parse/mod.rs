//! Reading a YAML launch file into the typed [`crate::ast`], checking its structure the way
//! launch_yaml does (string attributes must be YAML strings, required attributes present)
//! and refusing, with file:line, whatever lies outside the supported subset.

mod cmdline;
mod fields;
mod node;

use std::path::Path;
use std::sync::Arc;

pub use cmdline::split_command_line;

use crate::ast::{Action, ActionKind, ArgDecl, Condition, GroupDecl, IncludeDecl, LaunchFile, NameValue};
use crate::error::LaunchError;
use crate::yaml::{parse_document, YamlKind, YamlNode};
use fields::Fields;

/// Reads and parses the launch file at `path`.
pub fn read_launch_file(path: &Path) -> Result<LaunchFile, LaunchError> {
    let text = std::fs::read_to_string(path).map_err(|source| LaunchError::Read { path: path.to_owned(), source })?;
    parse_launch_text(&text, Arc::from(path))
}

/// Parses launch-file `text` read from `path`.
pub fn parse_launch_text(text: &str, path: Arc<Path>) -> Result<LaunchFile, LaunchError> {
    let root = parse_document(text, &path)?;
    let YamlKind::Map(entries) = &root.kind else {
        return Err(LaunchError::invalid(&root.loc, "a launch file must be a mapping with one key, `launch`"));
    };
    let launch = match entries.as_slice() {
        [(key, value)] if matches!(&key.kind, YamlKind::Scalar { text, .. } if text == "launch") => value,
        _ => return Err(LaunchError::invalid(&root.loc, "a launch file must be a mapping with one key, `launch`")),
    };
    let actions = match &launch.kind {
        YamlKind::Seq(items) => parse_actions(items)?,
        // `launch:` with nothing under it.
        YamlKind::Scalar { text, .. } if text.is_empty() => Vec::new(),
        _ => return Err(LaunchError::invalid(&launch.loc, format!("`launch` must be a list of actions, found {}", launch.kind_name()))),
    };
    Ok(LaunchFile { path, actions })
}

fn parse_actions(items: &[YamlNode]) -> Result<Vec<Action>, LaunchError> {
    items.iter().map(parse_action).collect()
}

fn parse_action(item: &YamlNode) -> Result<Action, LaunchError> {
    let (type_key, body) = match &item.kind {
        YamlKind::Map(entries) if entries.len() == 1 => (&entries[0].0, &entries[0].1),
        _ => {
            return Err(LaunchError::invalid(
                &item.loc,
                "an action must be a mapping with exactly one key, the action type (e.g. `- node: {...}`)",
            ))
        }
    };
    let YamlKind::Scalar { text: type_name, .. } = &type_key.kind else {
        return Err(LaunchError::invalid(&type_key.loc, "an action type must be text"));
    };
    let loc = type_key.loc.clone();
    // `group: [children]` is the one entity written as a bare list (so without conditions).
    if type_name == "group" {
        if let YamlKind::Seq(children) = &body.kind {
            let group = GroupDecl { scoped: true, forwarding: true, keep: Vec::new(), children: parse_actions(children)? };
            return Ok(Action { kind: ActionKind::Group(group), condition: None, loc });
        }
    }
    let mut fields = Fields::new(body, type_name)?;
    let condition = parse_condition(&mut fields)?;
    let kind = match type_name.as_str() {
        "arg" => ActionKind::Arg(parse_arg(&mut fields)?),
        "let" => ActionKind::Let(parse_name_value(&mut fields)?),
        "node" => ActionKind::Node(Box::new(node::parse_node(&mut fields)?)),
        "include" => ActionKind::Include(parse_include(&mut fields)?),
        "group" => ActionKind::Group(parse_group(&mut fields)?),
        "push-ros-namespace" | "push_ros_namespace" => ActionKind::PushRosNamespace(fields.required_text("namespace")?),
        other => return Err(LaunchError::unsupported(&loc, format!("action `{other}`"))),
    };
    fields.finish()?;
    Ok(Action { kind, condition, loc })
}

fn parse_condition(fields: &mut Fields) -> Result<Option<Condition>, LaunchError> {
    let if_text = fields.text("if")?;
    let unless_text = fields.text("unless")?;
    match (if_text, unless_text) {
        (Some(_), Some(_)) => Err(LaunchError::invalid(fields.loc(), "`if` and `unless` cannot be used on the same action")),
        (Some(t), None) => Ok(Some(Condition::If(t))),
        (None, Some(t)) => Ok(Some(Condition::Unless(t))),
        (None, None) => Ok(None),
    }
}

fn parse_arg(fields: &mut Fields) -> Result<ArgDecl, LaunchError> {
    let (name, _) = fields.required_string("name")?;
    let default = fields.text("default")?;
    let description = fields.string("description")?.map(|(d, _)| d);
    let mut choices = Vec::new();
    for item in fields.list("choice")?.unwrap_or_default() {
        let mut choice = Fields::new(item, "choice")?;
        choices.push(choice.required_string("value")?.0);
        choice.finish()?;
    }
    Ok(ArgDecl { name, default, description, choices })
}

fn parse_name_value(fields: &mut Fields) -> Result<NameValue, LaunchError> {
    Ok(NameValue { name: fields.required_text("name")?, value: fields.required_text("value")? })
}

/// A list attribute of `{name, value}` mappings (include `arg`, group `keep`, node `env`).
fn parse_name_values(fields: &mut Fields, key: &str) -> Result<Vec<NameValue>, LaunchError> {
    let mut out = Vec::new();
    for item in fields.list(key)?.unwrap_or_default() {
        let mut entry = Fields::new(item, key)?;
        out.push(parse_name_value(&mut entry)?);
        entry.finish()?;
    }
    Ok(out)
}

fn parse_include(fields: &mut Fields) -> Result<IncludeDecl, LaunchError> {
    Ok(IncludeDecl { file: fields.required_text("file")?, args: parse_name_values(fields, "arg")? })
}

fn parse_group(fields: &mut Fields) -> Result<GroupDecl, LaunchError> {
    let scoped = fields.boolean("scoped")?.unwrap_or(true);
    let forwarding = fields.boolean("forwarding")?.unwrap_or(true);
    let keep = parse_name_values(fields, "keep")?;
    let children = fields.list("children")?.ok_or_else(|| LaunchError::invalid(fields.loc(), "`group` is missing its `children` list"))?;
    Ok(GroupDecl { scoped, forwarding, keep, children: parse_actions(children)? })
}

#[cfg(test)]
mod tests;
