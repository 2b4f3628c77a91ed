//! The `node` action and its `param` / `remap` lists.

use super::cmdline::split_command_line;
use super::fields::{text_at, typed_scalar, Fields};
use super::parse_name_values;
use crate::ast::{InlineParam, NodeDecl, ParamDecl, ParamValueDecl, Remap};
use crate::error::LaunchError;
use crate::yaml::{Scalar, YamlKind, YamlNode};
use flotilla_common::duration::Span;

/// Seconds before a respawn (0 to 1 h).
const RESPAWN_DELAY: Span = Span::new(0.0, 3600.0);

pub(super) fn parse_node(fields: &mut Fields) -> Result<NodeDecl, LaunchError> {
    let package = fields.text("pkg")?;
    let executable = fields.required_text("exec")?;
    let name = fields.text("name")?;
    let namespace = fields.text("namespace")?;
    let exec_name = fields.text("exec_name")?;
    let mut params = Vec::new();
    for item in fields.list("param")?.unwrap_or_default() {
        params.push(parse_param_entry(item)?);
    }
    let mut remaps = Vec::new();
    for item in fields.list("remap")?.unwrap_or_default() {
        let mut remap = Fields::new(item, "remap")?;
        remaps.push(Remap { from: remap.required_text("from")?, to: remap.required_text("to")? });
        remap.finish()?;
    }
    let args = fields.text("args")?.map(|t| split_command_line(&t)).transpose()?.unwrap_or_default();
    let ros_args = fields.text("ros_args")?.map(|t| split_command_line(&t)).transpose()?.unwrap_or_default();
    let output = fields.text("output")?;
    let respawn = fields.text("respawn")?;
    let respawn_delay = fields.float("respawn_delay")?;
    if let Some(delay) = respawn_delay {
        if let Err(e) = RESPAWN_DELAY.seconds(delay) {
            return Err(LaunchError::invalid(fields.loc(), format!("`respawn_delay` {e}")));
        }
    }
    let shutdown_on_exit = match fields.string("on_exit")? {
        None => false,
        Some((value, _)) if value == "shutdown" => true,
        Some((value, loc)) => return Err(LaunchError::unsupported(loc, format!("`on_exit: {value}` (only `shutdown` is supported)"))),
    };
    let env = parse_name_values(fields, "env")?;
    let cwd = fields.text("cwd")?;
    Ok(NodeDecl {
        package,
        executable,
        name,
        namespace,
        exec_name,
        params,
        remaps,
        args,
        ros_args,
        output,
        respawn,
        respawn_delay,
        shutdown_on_exit,
        env,
        cwd,
    })
}

fn parse_param_entry(item: &YamlNode) -> Result<ParamDecl, LaunchError> {
    let mut fields = Fields::new(item, "param")?;
    let from = fields.text("from")?;
    let decl = match from {
        Some(path) => {
            if fields.take("name").is_some() {
                return Err(LaunchError::invalid(fields.loc(), "`param` takes `from` or `name`, not both"));
            }
            ParamDecl::File(path)
        }
        None => ParamDecl::Value(parse_inline_param(&mut fields)?),
    };
    fields.finish()?;
    Ok(decl)
}

fn parse_inline_param(fields: &mut Fields) -> Result<InlineParam, LaunchError> {
    let loc = fields.loc().clone();
    let name = fields
        .text("name")?
        .ok_or_else(|| LaunchError::invalid(&loc, "`param` needs `name` (with `value` or nested `param`) or `from`"))?;
    let value = fields.take("value");
    let nested = fields.list("param")?;
    let value = match (value, nested) {
        (Some(_), Some(_)) => return Err(LaunchError::invalid(&loc, "`param` takes `value` or nested `param`, not both")),
        (Some(v), None) => parse_param_value(v, true)?,
        (None, Some(children)) => {
            let mut nested = Vec::with_capacity(children.len());
            for child in children {
                let mut child_fields = Fields::new(child, "param")?;
                nested.push(parse_inline_param(&mut child_fields)?);
                child_fields.finish()?;
            }
            ParamValueDecl::Nested(nested)
        }
        (None, None) => return Err(LaunchError::invalid(&loc, "`param` needs a `value` or nested `param` list")),
    };
    Ok(InlineParam { name, value, loc })
}

fn parse_param_value(node: &YamlNode, list_allowed: bool) -> Result<ParamValueDecl, LaunchError> {
    match &node.kind {
        YamlKind::Seq(items) if list_allowed => {
            Ok(ParamValueDecl::List(items.iter().map(|i| parse_param_value(i, false)).collect::<Result<_, _>>()?))
        }
        YamlKind::Seq(_) => Err(LaunchError::invalid(&node.loc, "parameter lists cannot be nested")),
        YamlKind::Map(_) => Err(LaunchError::invalid(&node.loc, "a parameter value cannot be a mapping: use nested `param` entries")),
        YamlKind::Scalar { .. } => match typed_scalar(node)? {
            Some(Scalar::Null) | None => Err(LaunchError::invalid(&node.loc, "a parameter value cannot be empty")),
            Some(Scalar::Str(s)) => {
                let text = text_at(&s, &node.loc)?;
                Ok(if text.template.has_substitutions() {
                    ParamValueDecl::Substituted(text.template)
                } else {
                    // Escapes are resolved even without substitutions, as launch does.
                    ParamValueDecl::Native(Scalar::Str(text.template.as_literal().unwrap_or_default()))
                })
            }
            Some(other) => Ok(ParamValueDecl::Native(other)),
        },
    }
}
