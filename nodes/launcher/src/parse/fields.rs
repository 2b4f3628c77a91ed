//! Typed access to the attributes of one launch entity (a YAML mapping), with errors that
//! name the file and line, and a final check that no attribute was left unread.

use crate::ast::Text;
use crate::error::LaunchError;
use crate::location::Loc;
use crate::substitution::{parse_template, TemplateError};
use crate::yaml::{resolve_scalar, Scalar, YamlKind, YamlNode};

/// The attributes of a mapping, taken one by one.
pub struct Fields<'a> {
    entity: &'a str,
    loc: &'a Loc,
    entries: Vec<(&'a str, &'a YamlNode, &'a Loc)>,
    taken: Vec<bool>,
}

impl<'a> Fields<'a> {
    /// `node` must be a mapping with string keys; `entity` names it in errors.
    pub fn new(node: &'a YamlNode, entity: &'a str) -> Result<Self, LaunchError> {
        let YamlKind::Map(pairs) = &node.kind else {
            return Err(LaunchError::invalid(&node.loc, format!("`{entity}` must be a mapping of attributes, found {}", node.kind_name())));
        };
        let mut entries: Vec<(&str, &YamlNode, &Loc)> = Vec::with_capacity(pairs.len());
        for (key, value) in pairs {
            let YamlKind::Scalar { text, .. } = &key.kind else {
                return Err(LaunchError::invalid(&key.loc, format!("`{entity}` has a non-text key")));
            };
            if entries.iter().any(|(k, _, _)| k == text) {
                return Err(LaunchError::invalid(&key.loc, format!("`{entity}` has attribute `{text}` twice")));
            }
            entries.push((text.as_str(), value, &key.loc));
        }
        let taken = vec![false; entries.len()];
        Ok(Self { entity, loc: &node.loc, entries, taken })
    }

    /// Where the entity starts.
    pub fn loc(&self) -> &'a Loc {
        self.loc
    }

    /// The raw node of attribute `key`, marked as read.
    pub fn take(&mut self, key: &str) -> Option<&'a YamlNode> {
        let i = self.entries.iter().position(|(k, _, _)| *k == key)?;
        self.taken[i] = true;
        Some(self.entries[i].1)
    }

    /// A string attribute (a YAML string, like launch_yaml requires).
    pub fn string(&mut self, key: &str) -> Result<Option<(String, &'a Loc)>, LaunchError> {
        let entity = self.entity;
        self.take(key).map(|node| expect_string(node, entity, key).map(|s| (s, &node.loc))).transpose()
    }

    /// A required string attribute.
    pub fn required_string(&mut self, key: &str) -> Result<(String, &'a Loc), LaunchError> {
        let found = self.string(key)?;
        found.ok_or_else(|| self.missing(key))
    }

    /// A string attribute with substitutions.
    pub fn text(&mut self, key: &str) -> Result<Option<Text>, LaunchError> {
        self.string(key)?.map(|(s, loc)| text_at(&s, loc)).transpose()
    }

    /// A required string attribute with substitutions.
    pub fn required_text(&mut self, key: &str) -> Result<Text, LaunchError> {
        let found = self.text(key)?;
        found.ok_or_else(|| self.missing(key))
    }

    /// A YAML boolean attribute.
    pub fn boolean(&mut self, key: &str) -> Result<Option<bool>, LaunchError> {
        let entity = self.entity;
        self.take(key)
            .map(|node| match typed_scalar(node)? {
                Some(Scalar::Bool(b)) => Ok(b),
                _ => Err(LaunchError::invalid(&node.loc, format!("`{key}` of `{entity}` must be true or false"))),
            })
            .transpose()
    }

    /// A YAML float attribute (launch_yaml accepts no integer here: write `1.0`, not `1`).
    pub fn float(&mut self, key: &str) -> Result<Option<f64>, LaunchError> {
        let entity = self.entity;
        self.take(key)
            .map(|node| match typed_scalar(node)? {
                Some(Scalar::Float(x)) => Ok(x),
                Some(Scalar::Int(i)) => Err(LaunchError::invalid(
                    &node.loc,
                    format!("`{key}` of `{entity}` must be a float: write {i}.0 (ros2 launch rejects integers here)"),
                )),
                _ => Err(LaunchError::invalid(&node.loc, format!("`{key}` of `{entity}` must be a float"))),
            })
            .transpose()
    }

    /// A list attribute.
    pub fn list(&mut self, key: &str) -> Result<Option<&'a [YamlNode]>, LaunchError> {
        let entity = self.entity;
        self.take(key)
            .map(|node| match &node.kind {
                YamlKind::Seq(items) => Ok(items.as_slice()),
                _ => Err(LaunchError::invalid(&node.loc, format!("`{key}` of `{entity}` must be a list, found {}", node.kind_name()))),
            })
            .transpose()
    }

    /// Fails on the first attribute nobody read.
    pub fn finish(self) -> Result<(), LaunchError> {
        match self.entries.iter().zip(&self.taken).find(|(_, taken)| !**taken) {
            None => Ok(()),
            Some(((key, _, loc), _)) => Err(LaunchError::unsupported(loc, format!("attribute `{key}` of `{}`", self.entity))),
        }
    }

    fn missing(&self, key: &str) -> LaunchError {
        LaunchError::invalid(self.loc, format!("`{}` is missing required attribute `{key}`", self.entity))
    }
}

/// The YAML 1.1 type of a scalar node, `None` for collections.
pub fn typed_scalar(node: &YamlNode) -> Result<Option<Scalar>, LaunchError> {
    match &node.kind {
        YamlKind::Scalar { text, plain } => resolve_scalar(text, *plain).map(Some).map_err(|m| LaunchError::invalid(&node.loc, m)),
        _ => Ok(None),
    }
}

fn expect_string(node: &YamlNode, entity: &str, key: &str) -> Result<String, LaunchError> {
    let YamlKind::Scalar { text, plain } = &node.kind else {
        return Err(LaunchError::invalid(&node.loc, format!("`{key}` of `{entity}` must be a string, found {}", node.kind_name())));
    };
    match resolve_scalar(text, *plain).map_err(|m| LaunchError::invalid(&node.loc, m))? {
        Scalar::Str(s) => Ok(s),
        _ => Err(LaunchError::invalid(
            &node.loc,
            format!("`{key}` of `{entity}` must be a string; quote it: \"{text}\" (ros2 launch rejects other types here)"),
        )),
    }
}

/// Parses the substitutions of `s`, written at `loc`.
pub fn text_at(s: &str, loc: &Loc) -> Result<Text, LaunchError> {
    match parse_template(s) {
        Ok(template) => Ok(Text { template, loc: loc.clone() }),
        Err(TemplateError::Syntax(m)) => Err(LaunchError::invalid(loc, m)),
        Err(TemplateError::Unsupported(m)) => Err(LaunchError::unsupported(loc, m)),
    }
}
