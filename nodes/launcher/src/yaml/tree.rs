//! A YAML document as a tree whose every node knows its line and column.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::error::LaunchError;
use crate::location::Loc;

/// One YAML node and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct YamlNode {
    /// What the node holds.
    pub kind: YamlKind,
    /// Where it starts; a mapping starts at its first key.
    pub loc: Loc,
}

/// The content of a [`YamlNode`].
#[derive(Clone, Debug, PartialEq)]
pub enum YamlKind {
    /// A scalar as written; type it with [`crate::yaml::resolve_scalar`].
    Scalar {
        /// The text, after unquoting.
        text: String,
        /// False for quoted, block and `!!str` scalars (always strings).
        plain: bool,
    },
    /// A sequence.
    Seq(Vec<YamlNode>),
    /// A mapping, keys in file order.
    Map(Vec<(YamlNode, YamlNode)>),
}

impl YamlNode {
    /// A short name of the node's kind for error messages.
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            YamlKind::Scalar { .. } => "a scalar",
            YamlKind::Seq(_) => "a list",
            YamlKind::Map(_) => "a mapping",
        }
    }
}

/// Parses the first YAML document of `text`, read from `file`; an empty document is an error.
pub fn parse_document(text: &str, file: &Arc<Path>) -> Result<YamlNode, LaunchError> {
    parse_optional_document(text, file)?.ok_or_else(|| LaunchError::invalid(&Loc::new(file.clone(), 1, 1), "empty file"))
}

/// Parses the first YAML document of `text`, read from `file`; `None` if there is none.
pub fn parse_optional_document(text: &str, file: &Arc<Path>) -> Result<Option<YamlNode>, LaunchError> {
    let mut builder = TreeBuilder { nodes: 0, file: file.clone(), stack: Vec::new(), anchors: HashMap::new(), root: None, error: None };
    let mut parser = Parser::new_from_str(text);
    if let Err(e) = parser.load(&mut builder, false) {
        return Err(LaunchError::Syntax { loc: loc_of(file, e.marker()), message: e.info().to_owned() });
    }
    if let Some(error) = builder.error {
        return Err(error);
    }
    Ok(builder.root)
}

fn loc_of(file: &Arc<Path>, marker: &Marker) -> Loc {
    // yaml-rust2 counts lines from 1 and columns from 0.
    Loc::new(file.clone(), marker.line(), marker.col() + 1)
}

enum Frame {
    Seq { items: Vec<YamlNode>, loc: Loc, anchor: usize },
    Map { entries: Vec<(YamlNode, YamlNode)>, key: Option<YamlNode>, loc: Loc, anchor: usize },
}

/// Most YAML nodes one launch file may expand to (aliases counted as copies): a
/// "billion laughs" file of nested aliases would otherwise grow without limit.
pub const MAX_NODES: usize = 200_000;

/// Nodes of a tree (itself included).
fn node_count(node: &YamlNode) -> usize {
    1 + match &node.kind {
        YamlKind::Scalar { .. } => 0,
        YamlKind::Seq(items) => items.iter().map(node_count).sum(),
        YamlKind::Map(entries) => entries.iter().map(|(k, v)| node_count(k) + node_count(v)).sum(),
    }
}

struct TreeBuilder {
    /// Nodes made so far, alias copies included (bounded by [`MAX_NODES`]).
    nodes: usize,
    file: Arc<Path>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, YamlNode>,
    root: Option<YamlNode>,
    error: Option<LaunchError>,
}

impl TreeBuilder {
    fn loc(&self, marker: &Marker) -> Loc {
        loc_of(&self.file, marker)
    }

    fn fail(&mut self, loc: Loc, message: String) {
        if self.error.is_none() {
            self.error = Some(LaunchError::invalid(&loc, message));
        }
    }

    fn finish(&mut self, node: YamlNode, anchor: usize) {
        self.nodes += 1;
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
        }
    }
}

/// `!!str` forces a string; other tags are not part of launch files.
fn str_tag(tag: &Option<Tag>) -> Result<bool, String> {
    match tag {
        None => Ok(false),
        Some(t) if t.suffix == "str" && (t.handle == "!!" || t.handle == "tag:yaml.org,2002:") => Ok(true),
        Some(t) => Err(format!("unsupported YAML tag `{}{}`", t.handle, t.suffix)),
    }
}

impl MarkedEventReceiver for TreeBuilder {
    fn on_event(&mut self, event: Event, marker: Marker) {
        if self.error.is_some() {
            return;
        }
        let loc = self.loc(&marker);
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let forced_str = match str_tag(&tag) {
                    Ok(f) => f,
                    Err(message) => return self.fail(loc, message),
                };
                let plain = style == TScalarStyle::Plain && !forced_str;
                self.finish(YamlNode { kind: YamlKind::Scalar { text, plain }, loc }, anchor);
            }
            Event::SequenceStart(_, tag) | Event::MappingStart(_, tag) if tag.is_some() => {
                let message = match str_tag(&tag) {
                    Err(m) => m,
                    Ok(_) => "a `!!str` tag on a collection".to_owned(),
                };
                self.fail(loc, message);
            }
            Event::SequenceStart(anchor, _) => {
                self.stack.push(Frame::Seq { items: Vec::new(), loc, anchor });
            }
            Event::MappingStart(anchor, _) => {
                self.stack.push(Frame::Map { entries: Vec::new(), key: None, loc, anchor });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (node, anchor) = match self.stack.pop() {
                    Some(Frame::Seq { items, loc, anchor }) => (YamlNode { kind: YamlKind::Seq(items), loc }, anchor),
                    Some(Frame::Map { entries, loc, anchor, .. }) => {
                        let loc = entries.first().map_or(loc, |(k, _)| k.loc.clone());
                        (YamlNode { kind: YamlKind::Map(entries), loc }, anchor)
                    }
                    None => return,
                };
                self.finish(node, anchor);
            }
            Event::Alias(id) => match self.anchors.get(&id) {
                Some(node) => {
                    // Counted before copying: the copy is what grows without limit.
                    self.nodes += node_count(node) - 1;
                    if self.nodes > MAX_NODES {
                        return self.fail(
                            loc,
                            format!("aliases expand the file beyond {MAX_NODES} YAML nodes (nested aliases that multiply, a \"billion laughs\")"),
                        );
                    }
                    let node = YamlNode { loc, ..node.clone() };
                    self.finish(node, 0);
                }
                None => self.fail(loc, "alias to an unknown anchor".to_owned()),
            },
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentStart | Event::DocumentEnd => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<YamlNode, LaunchError> {
        parse_document(text, &Arc::from(Path::new("t.yaml")))
    }

    #[test]
    fn nodes_carry_line_and_column() {
        let root = parse("launch:\n- node:\n    pkg: a\n- arg: {name: x}\n").unwrap();
        let YamlKind::Map(top) = &root.kind else { panic!("not a map") };
        let YamlKind::Seq(actions) = &top[0].1.kind else { panic!("not a list") };
        assert_eq!((actions[0].loc.line, actions[0].loc.column), (2, 3));
        assert_eq!((actions[1].loc.line, actions[1].loc.column), (4, 3));
        let YamlKind::Map(node) = &actions[0].kind else { panic!() };
        let YamlKind::Map(fields) = &node[0].1.kind else { panic!() };
        assert_eq!(fields[0].1.loc.line, 3);
        assert_eq!(fields[0].1.kind, YamlKind::Scalar { text: "a".into(), plain: true });
    }

    #[test]
    fn quoted_and_tagged_scalars_are_not_plain() {
        let root = parse("[ '1', \"2\", !!str 3, 4 ]").unwrap();
        let YamlKind::Seq(items) = root.kind else { panic!() };
        let plain: Vec<bool> = items.iter().map(|n| matches!(n.kind, YamlKind::Scalar { plain: true, .. })).collect();
        assert_eq!(plain, vec![false, false, false, true]);
    }

    #[test]
    fn aliases_copy_the_anchored_node() {
        let root = parse("a: &x [1, 2]\nb: *x\n").unwrap();
        let YamlKind::Map(entries) = root.kind else { panic!() };
        assert_eq!(entries[0].1.kind, entries[1].1.kind);
        assert_eq!(entries[1].1.loc.line, 2);
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let err = parse("launch:\n- node: {pkg: a\n- x").unwrap_err();
        let LaunchError::Syntax { loc, .. } = &err else { panic!("{err}") };
        assert_eq!(loc.line, 4);
        assert!(err.to_string().starts_with("t.yaml:4:"), "{err}");
    }

    #[test]
    fn empty_file_is_an_error() {
        assert!(parse("").unwrap_err().to_string().contains("empty file"));
    }

    /// Issue 21 item 6: nested aliases (a "billion laughs" file) grew the launcher by about
    /// 1 GB/s; now the expansion stops at MAX_NODES with the alias's file:line.
    #[test]
    fn item6_alias_expansion_is_bounded() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for k in 1..12 {
            let p = k - 1;
            text.push_str(&format!("a{k}: &a{k} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        let msg = parse(&text).unwrap_err().to_string();
        assert!(msg.starts_with("t.yaml:") && msg.contains("billion laughs"), "{msg}");
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let msg = parse(&deep).unwrap_err().to_string();
        // yaml-rust2 stops deep nesting itself, with the place.
        assert!(msg.starts_with("t.yaml:1:") && msg.contains("recursion limit"), "{msg}");
    }
}
