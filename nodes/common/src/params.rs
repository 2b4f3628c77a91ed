//! `ros__parameters` files: loading, merging, typed validation with clear errors.
//!
//! A node's parameters come from one or more YAML files in the ROS 2 form
//!
//! ```yaml
//! tank_physics:            # node name, "/ns/name", "/**" or "**"
//!   ros__parameters:
//!     dt: 0.025
//!     hydro: {kv: 1.24, kf: 2.266}
//! ```
//!
//! plus `name:=value` overrides. The result is one nested [`serde_yaml::Mapping`] (the
//! tree); nested keys are what ROS tools show as dotted names (`hydro.kv`).
//!
//! Files are also checked against what the ROS 2 parameter parser (rcl) accepts: scalars,
//! homogeneous non-empty scalar arrays and nested mappings. A file rcl cannot parse would
//! otherwise make the node fail inside `rcl_init` with an opaque error.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_yaml::{Mapping, Value};

/// Keys every ROS 2 node accepts that no node's own configuration validates.
pub const STANDARD_ROS_PARAMETERS: &[&str] = &["use_sim_time", "start_type_description_service"];

/// What went wrong with a parameter file or a parameter value.
#[derive(Debug, thiserror::Error)]
pub enum ParamError {
    /// The file could not be read.
    #[error("cannot read parameter file {path}: {source}")]
    Read {
        /// File that was asked for.
        path: PathBuf,
        /// Underlying I/O error.
        source: std::io::Error,
    },
    /// The file is not valid YAML.
    #[error("{path}:{line}:{column}: YAML syntax error: {message}")]
    Syntax {
        /// File with the error.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// Parser message.
        message: String,
    },
    /// The file's structure is not that of a ROS 2 parameter file.
    #[error("{path}:{line}: {message}")]
    Structure {
        /// File with the error.
        path: PathBuf,
        /// 1-based line of the offending key (0 when unknown).
        line: usize,
        /// What is wrong and why.
        message: String,
    },
    /// A `name:=value` override is malformed.
    #[error("parameter override `{text}`: {message}")]
    Override {
        /// The override as given.
        text: String,
        /// What is wrong.
        message: String,
    },
    /// A value is missing, of the wrong type, out of range or unknown.
    #[error("parameter `{key}`: {message}")]
    Invalid {
        /// Dotted key path, e.g. `hydro.kv`.
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
}

impl ParamError {
    /// An [`ParamError::Invalid`] for `key`.
    pub fn invalid(key: impl Into<String>, message: impl fmt::Display) -> Self {
        Self::Invalid { key: key.into(), message: message.to_string() }
    }
}

/// Which sections of a parameter file apply to a node, as rclcpp/r2r match them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeIdentity {
    /// Node name, e.g. `tank_physics`.
    pub name: String,
    /// Namespace, `/` or `/tracking`.
    pub namespace: String,
}

impl NodeIdentity {
    /// A node `name` in `namespace` (normalised to start with `/`).
    pub fn new(name: impl Into<String>, namespace: impl Into<String>) -> Self {
        let ns: String = namespace.into();
        let ns = if ns.starts_with('/') { ns } else { format!("/{ns}") };
        Self { name: name.into(), namespace: ns }
    }

    /// `/ns/name`.
    pub fn fully_qualified(&self) -> String {
        if self.namespace == "/" {
            format!("/{}", self.name)
        } else {
            format!("{}/{}", self.namespace.trim_end_matches('/'), self.name)
        }
    }

    fn matches(&self, section: &str) -> bool {
        section == "/**"
            || section == "**"
            || section == self.name
            || section == self.fully_qualified()
            || section.trim_start_matches('/') == self.fully_qualified().trim_start_matches('/')
    }
}

/// Reads `path` and returns the merged `ros__parameters` of every section that applies to
/// `node` (wildcard sections first, so a section naming the node overrides them).
pub fn load_file(path: &Path, node: &NodeIdentity) -> Result<Mapping, ParamError> {
    let text = std::fs::read_to_string(path).map_err(|source| ParamError::Read { path: path.to_owned(), source })?;
    parse_str(&text, path, node)
}

/// The node sections of a parameter file, in file order (for messages naming what a file
/// holds when none matches).
pub fn section_names(path: &Path) -> Result<Vec<String>, ParamError> {
    let text = std::fs::read_to_string(path).map_err(|source| ParamError::Read { path: path.to_owned(), source })?;
    let doc: Value = serde_yaml::from_str(&text).map_err(|e| syntax_error(&text, path, &e))?;
    Ok(doc.as_mapping().map(|m| m.keys().filter_map(|k| k.as_str().map(str::to_owned)).collect()).unwrap_or_default())
}

/// [`load_file`] on text already read; `path` is used in messages only.
pub fn parse_str(text: &str, path: &Path, node: &NodeIdentity) -> Result<Mapping, ParamError> {
    parse_sections(text, path, node).map(|(tree, _)| tree)
}

/// [`parse_str`], refusing a file none of whose sections applies to `node`: a misspelled
/// node name (`tank_phyisics:`) would otherwise start the node on its defaults.
pub fn parse_str_for_node(text: &str, path: &Path, node: &NodeIdentity) -> Result<Mapping, ParamError> {
    let (tree, matched) = parse_sections(text, path, node)?;
    if matched {
        return Ok(tree);
    }
    let sections = section_names_of(text);
    let nearest = sections.iter().min_by_key(|s| edit_distance(s.trim_start_matches('/'), &node.name)).cloned().unwrap_or_default();
    let line = line_of_key(text, &nearest).max(1);
    Err(ParamError::Structure {
        path: path.to_owned(),
        line,
        message: format!(
            "no section applies to node `{}` (sections: {}); a misspelled node name? Use `{}:` or `/**:`",
            node.fully_qualified(),
            sections.join(", "),
            node.name
        ),
    })
}

fn section_names_of(text: &str) -> Vec<String> {
    serde_yaml::from_str::<Value>(text)
        .ok()
        .and_then(|d| d.as_mapping().map(|m| m.keys().filter_map(|k| k.as_str().map(str::to_owned)).collect()))
        .unwrap_or_default()
}

/// Levenshtein distance (for "did you mean").
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The merged tree and whether any section applied to `node`.
fn parse_sections(text: &str, path: &Path, node: &NodeIdentity) -> Result<(Mapping, bool), ParamError> {
    let doc: Value = serde_yaml::from_str(text).map_err(|e| syntax_error(text, path, &e))?;
    let structure = |key: &str, message: String| ParamError::Structure { path: path.to_owned(), line: line_of_key(text, key), message };
    let Value::Mapping(sections) = doc else {
        return Err(structure("", "a parameter file is a mapping of node names to `ros__parameters`".into()));
    };
    let mut wildcard = Mapping::new();
    let mut specific = Mapping::new();
    let mut matched = false;
    for (section, body) in &sections {
        let Some(section) = section.as_str() else {
            return Err(structure("", format!("node name {section:?} is not a string")));
        };
        let Some(params) = body.as_mapping().and_then(|m| m.get("ros__parameters")) else {
            return Err(structure(section, format!("section `{section}` has no `ros__parameters` mapping")));
        };
        let Value::Mapping(params) = params else {
            return Err(structure(section, format!("`{section}.ros__parameters` must be a mapping")));
        };
        check_rcl_compatible(params, "")
            .map_err(|(key, why)| structure(key.rsplit('.').next().unwrap_or(&key), format!("`{key}`: {why}")))?;
        if !node.matches(section) {
            continue;
        }
        matched = true;
        let target = if section.contains('*') { &mut wildcard } else { &mut specific };
        merge(target, &nest_dotted(params));
    }
    merge(&mut wildcard, &specific);
    Ok((wildcard, matched))
}

/// A YAML error with its file, line and column. serde_yaml gives no location when it stops
/// an alias expansion ("repetition limit exceeded") or a deep nesting ("recursion limit
/// exceeded"): then the first alias, or the first line, is named.
fn syntax_error(text: &str, path: &Path, e: &serde_yaml::Error) -> ParamError {
    let (line, column) = match e.location() {
        Some(l) => (l.line(), l.column()),
        None => first_alias(text).unwrap_or((1, 1)),
    };
    ParamError::Syntax { path: path.to_owned(), line, column, message: e.to_string() }
}

/// 1-based line and column of the first `*alias` outside quotes and comments.
fn first_alias(text: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let code = line.split(" #").next().unwrap_or(line);
        let bytes = code.as_bytes();
        (0..bytes.len())
            .find(|&k| {
                bytes[k] == b'*'
                    && (k == 0 || matches!(bytes[k - 1], b' ' | b'[' | b',' | b'{'))
                    && bytes.get(k + 1).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            })
            .map(|k| (i + 1, k + 1))
    })
}

/// Longest topic name a Flotilla parameter may give, characters (rmw limits are a little
/// above 200 once prefixed).
pub const MAX_TOPIC_LEN: usize = 200;

/// Checks a topic name as rcl does (`rcl_validate_topic_name`) so a bad one is a parameter
/// error naming `key`, not an `RCL_RET_TOPIC_NAME_INVALID` when the publisher is made.
pub fn topic_name(key: &str, name: String) -> Result<String, ParamError> {
    let why = if name.is_empty() {
        Some("must not be empty".to_owned())
    } else if name.len() > MAX_TOPIC_LEN {
        Some(format!("must be at most {MAX_TOPIC_LEN} characters, got {}", name.len()))
    } else if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '~' | '{' | '}'))) {
        Some(format!("`{name}` contains `{c}`; a ROS topic name has letters, digits, `_` and `/`"))
    } else if name.ends_with('/') || name.contains("//") {
        Some(format!("`{name}` has an empty token (`//` or a trailing `/`)"))
    } else if name.split('/').any(|t| t.starts_with(|c: char| c.is_ascii_digit())) {
        Some(format!("`{name}` has a token starting with a digit"))
    } else if name[1..].contains('~') || (name.starts_with('~') && name.len() > 1 && !name.starts_with("~/")) {
        Some(format!("`{name}`: `~` may only start the name, as `~/...`"))
    } else {
        None
    };
    match why {
        Some(message) => Err(ParamError::invalid(key, message)),
        None => Ok(name),
    }
}

/// Applies `name:=value` (dotted name, YAML value) to `tree`.
pub fn apply_override(tree: &mut Mapping, text: &str) -> Result<(), ParamError> {
    let err = |message: &str| ParamError::Override { text: text.to_owned(), message: message.to_owned() };
    let (name, value) = text.split_once(":=").ok_or_else(|| err("expected name:=value"))?;
    if name.is_empty() {
        return Err(err("empty parameter name"));
    }
    let value: Value = serde_yaml::from_str(value).map_err(|e| err(&e.to_string()))?;
    set_dotted(tree, name, value);
    Ok(())
}

/// Sets `a.b.c` in a nested mapping, creating the intermediate mappings.
pub fn set_dotted(tree: &mut Mapping, dotted: &str, value: Value) {
    let mut parts = dotted.split('.').peekable();
    let mut node = tree;
    while let Some(part) = parts.next() {
        let key = Value::String(part.to_owned());
        if parts.peek().is_none() {
            node.insert(key, value);
            return;
        }
        let entry = node.entry(key).or_insert_with(|| Value::Mapping(Mapping::new()));
        if !entry.is_mapping() {
            *entry = Value::Mapping(Mapping::new());
        }
        let Value::Mapping(next) = entry else { return };
        node = next;
    }
}

/// Reads `a.b.c` from a nested mapping.
pub fn get_dotted<'a>(tree: &'a Mapping, dotted: &str) -> Option<&'a Value> {
    let mut parts = dotted.split('.');
    let mut value = tree.get(parts.next()?)?;
    for part in parts {
        value = value.as_mapping()?.get(part)?;
    }
    Some(value)
}

/// Every leaf of the tree as `(dotted name, value)`, in file order.
pub fn flatten(tree: &Mapping) -> Vec<(String, Value)> {
    fn walk(prefix: &str, map: &Mapping, out: &mut Vec<(String, Value)>) {
        for (k, v) in map {
            let key = match k.as_str() {
                Some(s) => s.to_owned(),
                None => serde_yaml::to_string(k).unwrap_or_default().trim().to_owned(),
            };
            let name = if prefix.is_empty() { key } else { format!("{prefix}.{key}") };
            match v {
                Value::Mapping(m) => walk(&name, m, out),
                other => out.push((name, other.clone())),
            }
        }
    }
    let mut out = Vec::new();
    walk("", tree, &mut out);
    out
}

/// The tree without the standard ROS parameters (`use_sim_time`, ...).
pub fn without_standard(tree: &Mapping) -> Mapping {
    let mut own = tree.clone();
    for key in STANDARD_ROS_PARAMETERS {
        own.remove(*key);
    }
    own
}

/// Deserialises a tree into a typed configuration; the error names the key path.
/// Use `#[serde(deny_unknown_fields)]` on the target so typos are caught.
pub fn deserialize<T: DeserializeOwned>(tree: &Mapping) -> Result<T, ParamError> {
    let value = Value::Mapping(tree.clone());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let key = e.path().to_string();
        let key = if key == "." { "(root)".to_owned() } else { key };
        ParamError::invalid(key, e.into_inner())
    })
}

/// `a.b: 1` and `a: {b: 1}` mean the same to ROS 2; this writes both as the latter.
fn nest_dotted(map: &Mapping) -> Mapping {
    let mut out = Mapping::new();
    for (k, v) in map {
        let v = match v {
            Value::Mapping(m) => Value::Mapping(nest_dotted(m)),
            other => other.clone(),
        };
        match k.as_str() {
            Some(dotted) if dotted.contains('.') => {
                let mut single = Mapping::new();
                set_dotted(&mut single, dotted, v);
                merge(&mut out, &single);
            }
            _ => match (out.get_mut(k), v) {
                (Some(Value::Mapping(a)), Value::Mapping(b)) => merge(a, &b),
                (_, v) => {
                    out.insert(k.clone(), v);
                }
            },
        }
    }
    out
}

fn merge(into: &mut Mapping, from: &Mapping) {
    for (k, v) in from {
        match (into.get_mut(k), v) {
            (Some(Value::Mapping(a)), Value::Mapping(b)) => merge(a, b),
            _ => {
                into.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Checks the shapes rcl's YAML parameter parser accepts; returns (dotted key, reason).
fn check_rcl_compatible(map: &Mapping, prefix: &str) -> Result<(), (String, String)> {
    for (k, v) in map {
        let key = k.as_str().map(str::to_owned).unwrap_or_else(|| format!("{k:?}"));
        let name = if prefix.is_empty() { key } else { format!("{prefix}.{key}") };
        match v {
            Value::Mapping(m) => check_rcl_compatible(m, &name)?,
            Value::Sequence(items) => {
                if items.is_empty() {
                    return Err((name, "an empty array has no type for ROS 2 parameters; omit the key or give a value".into()));
                }
                let kind = |v: &Value| match v {
                    Value::Bool(_) => Some("bool"),
                    Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
                    Value::Number(_) => Some("double"),
                    Value::String(_) => Some("string"),
                    _ => None,
                };
                let first = kind(&items[0]).ok_or_else(|| {
                    (name.clone(), "ROS 2 parameter arrays hold scalars only (no lists of mappings or nested lists)".to_owned())
                })?;
                for item in items {
                    let k = kind(item).ok_or_else(|| {
                        (name.clone(), "ROS 2 parameter arrays hold scalars only (no lists of mappings or nested lists)".to_owned())
                    })?;
                    if k != first {
                        return Err((
                            name,
                            format!(
                                "ROS 2 parameter arrays must be homogeneous; found {first} and {k} (write 1.0, not 1, in a double array)"
                            ),
                        ));
                    }
                }
            }
            Value::Null => {
                return Err((name, "a parameter needs a value (found null)".into()));
            }
            Value::Tagged(_) => return Err((name, "YAML tags are not supported".into())),
            _ => {}
        }
    }
    Ok(())
}

/// Best-effort 1-based line of the first `key:` in the text (0 if not found).
fn line_of_key(text: &str, key: &str) -> usize {
    if key.is_empty() {
        return 1;
    }
    text.lines()
        .position(|l| {
            let t = l.trim_start().trim_start_matches("- ");
            t.starts_with(&format!("{key}:"))
                || t.starts_with(&format!("\"{key}\":"))
                || t.starts_with(&format!("'{key}':"))
                || t.starts_with(&format!("{{{key}:"))
        })
        .map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn node() -> NodeIdentity {
        NodeIdentity::new("tank_physics", "/")
    }

    #[test]
    fn seed_and_unknown_keys() {
        let mut tree: Mapping = serde_yaml::from_str("{seed: 7, tabel: {}}").unwrap();
        assert_eq!(take_seed(&mut tree, 1).unwrap(), 7);
        assert_eq!(take_seed(&mut tree, 1).unwrap(), 1, "taken: the default");
        let err = refuse_unknown(&tree, "seed, table").unwrap_err().to_string();
        assert!(err.contains("tabel") && err.contains("unknown parameter (known: seed, table)"), "{err}");
        tree.clear();
        assert!(refuse_unknown(&tree, "seed").is_ok());
        assert!(name_prefix("robots.name_prefix", "kb_7").is_ok());
        for bad in ["", "a b", "k/"] {
            assert!(name_prefix("robots.name_prefix", bad).unwrap_err().to_string().contains("robots.name_prefix"), "{bad}");
        }
        // The value as written: `Number(-3)` leaked from its debug form.
        for (bad, written) in [("{seed: -3}", "got -3"), ("{seed: 1.5}", "got 1.5"), ("{seed: one}", "got one")] {
            let mut tree: Mapping = serde_yaml::from_str(bad).unwrap();
            let e = take_seed(&mut tree, 1).unwrap_err().to_string();
            assert!(e.contains("seed") && e.ends_with(written), "{bad}: {e}");
        }
    }

    #[test]
    fn merges_wildcard_then_node_section() {
        let text = "/**:\n  ros__parameters:\n    use_sim_time: true\n    dt: 0.1\n\
                    tank_physics:\n  ros__parameters:\n    dt: 0.025\n    hydro: {kv: 1.24}\n\
                    other:\n  ros__parameters:\n    dt: 9.0\n";
        let tree = parse_str(text, Path::new("x.yaml"), &node()).unwrap();
        assert_eq!(get_dotted(&tree, "dt").unwrap().as_f64(), Some(0.025));
        assert_eq!(get_dotted(&tree, "use_sim_time").unwrap().as_bool(), Some(true));
        assert_eq!(get_dotted(&tree, "hydro.kv").unwrap().as_f64(), Some(1.24));
    }

    #[test]
    fn namespaced_section_matches_fully_qualified_name() {
        let text = "/tracking/tracker:\n  ros__parameters:\n    rate: 30\n";
        let tracker = NodeIdentity::new("tracker", "tracking");
        let tree = parse_str(text, Path::new("x.yaml"), &tracker).unwrap();
        assert_eq!(get_dotted(&tree, "rate").unwrap().as_i64(), Some(30));
        assert!(parse_str(text, Path::new("x.yaml"), &node()).unwrap().is_empty());
    }

    #[test]
    fn syntax_error_names_file_and_line() {
        let text = "tank_physics:\n  ros__parameters:\n    dt: [0.1\n    x: 1\n";
        let err = parse_str(text, Path::new("bad.yaml"), &node()).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("bad.yaml:"), "{msg}");
        assert!(matches!(err, ParamError::Syntax { line, .. } if line >= 3), "{msg}");
    }

    #[test]
    fn missing_ros_parameters_is_a_structure_error_with_line() {
        let text = "# comment\ntank_physics:\n  dt: 0.1\n";
        let err = parse_str(text, Path::new("p.yaml"), &node()).unwrap_err();
        assert_eq!(err.to_string(), "p.yaml:2: section `tank_physics` has no `ros__parameters` mapping");
    }

    #[test]
    fn rejects_what_rcl_cannot_parse() {
        let cases = [
            ("modules: [{kind: a}]", "scalars only"),
            ("gains: [1, 2.5]", "homogeneous"),
            ("gains: []", "empty array"),
            ("gains: ~", "null"),
        ];
        for (body, want) in cases {
            let text = format!("tank_physics:\n  ros__parameters:\n    {body}\n");
            let msg = parse_str(&text, Path::new("p.yaml"), &node()).unwrap_err().to_string();
            assert!(msg.contains(want), "{body}: {msg}");
            assert!(msg.starts_with("p.yaml:3:"), "{body}: {msg}");
        }
    }

    #[test]
    fn overrides_are_typed_yaml_and_dotted() {
        let mut tree = Mapping::new();
        apply_override(&mut tree, "hydro.kv:=1.5").unwrap();
        apply_override(&mut tree, "name:=lily").unwrap();
        assert_eq!(get_dotted(&tree, "hydro.kv").unwrap().as_f64(), Some(1.5));
        assert_eq!(get_dotted(&tree, "name").unwrap().as_str(), Some("lily"));
        assert!(apply_override(&mut tree, "novalue").is_err());
    }

    #[test]
    fn dotted_keys_in_files_are_nested() {
        let text = "/**:\n  ros__parameters:\n    run.max_sim_time: 5\n    run: {real_time_factor: 0.0}\n";
        let tree = parse_str(text, Path::new("x.yaml"), &node()).unwrap();
        assert_eq!(get_dotted(&tree, "run.max_sim_time").unwrap().as_i64(), Some(5));
        assert_eq!(get_dotted(&tree, "run.real_time_factor").unwrap().as_f64(), Some(0.0));
    }

    #[test]
    fn flatten_lists_dotted_leaves() {
        let tree: Mapping = serde_yaml::from_str("a: 1\nb: {c: 2, d: {e: x}}").unwrap();
        let names: Vec<_> = flatten(&tree).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "b.c", "b.d.e"]);
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Hydro {
        kv: f64,
    }
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Config {
        hydro: Hydro,
    }

    #[test]
    fn typed_errors_name_the_key_path() {
        let tree: Mapping = serde_yaml::from_str("hydro: {kv: fast}").unwrap();
        let msg = deserialize::<Config>(&tree).unwrap_err().to_string();
        assert!(msg.starts_with("parameter `hydro.kv`: invalid type"), "{msg}");
        let tree: Mapping = serde_yaml::from_str("hydro: {kv: 1.0, kx: 2}").unwrap();
        let msg = deserialize::<Config>(&tree).unwrap_err().to_string();
        assert!(msg.contains("unknown field `kx`"), "{msg}");
    }

    /// Issue 21 item 6: a "billion laughs" parameter file was refused at location 0:0; the
    /// error now names the first alias's line.
    #[test]
    fn item6_alias_bomb_names_a_location() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for k in 1..10 {
            let p = k - 1;
            text.push_str(&format!("a{k}: &a{k} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        text.push_str("tank_physics:\n  ros__parameters:\n    x: *a9\n");
        let msg = parse_str(&text, Path::new("bomb.yaml"), &node()).unwrap_err().to_string();
        assert!(msg.starts_with("bomb.yaml:2:"), "{msg}");
    }

    /// Issue 21 item 10: a bad topic name was reported only as RCL_RET_TOPIC_NAME_INVALID.
    #[test]
    fn item10_topic_names_are_checked_with_the_key() {
        for good in ["/camera/image_raw", "image", "~/tracks", "/a_1/b"] {
            assert!(topic_name("t", good.into()).is_ok(), "{good}");
        }
        for bad in ["", "/a//b", "/a/", "/a b", "/1abc", "/a/~b", &"x".repeat(300)] {
            let msg = topic_name("image_topic", bad.into()).unwrap_err().to_string();
            assert!(msg.starts_with("parameter `image_topic`"), "{bad}: {msg}");
        }
    }
}

/// rcl's `--ros-args` flags without a value.
const ROS_SWITCHES: &[&str] = &[
    "--enable-rosout-logs",
    "--disable-rosout-logs",
    "--enable-stdout-logs",
    "--disable-stdout-logs",
    "--enable-external-lib-logs",
    "--disable-external-lib-logs",
];

/// Removes section `key` (a mapping) from `tree` and reads it as `T` (its defaults when
/// absent); an error names `key.<field>`.
pub fn take_section<T: DeserializeOwned + Default>(tree: &mut Mapping, key: &str) -> Result<T, ParamError> {
    match tree.remove(key) {
        None => Ok(T::default()),
        Some(Value::Mapping(m)) => deserialize::<T>(&m).map_err(|e| match e {
            ParamError::Invalid { key: k, message } => ParamError::invalid(format!("{key}.{k}"), message),
            other => other,
        }),
        Some(other) => Err(ParamError::invalid(key, format!("must be a mapping, got {}", as_written(&other)))),
    }
}

/// Removes `seed` from `tree` and reads it (an integer >= 0), `default` when absent.
pub fn take_seed(tree: &mut Mapping, default: u64) -> Result<u64, ParamError> {
    match tree.remove("seed") {
        None => Ok(default),
        Some(v) => v.as_u64().ok_or_else(|| ParamError::invalid("seed", format!("must be an integer >= 0, got {}", as_written(&v)))),
    }
}

/// A YAML value as a file or `-p key:=value` writes it (`-1`, `one`), not its Rust debug
/// form (`Number(-1)`, `String("one")`).
pub fn as_written(v: &Value) -> String {
    serde_yaml::to_string(v).map_or_else(|_| format!("{v:?}"), |s| s.trim().to_owned())
}

/// Checks `prefix` (robot names are `<prefix><index>`) as the start of a ROS name: letters,
/// digits or `_`, not empty; an error names `key`.
pub fn name_prefix(key: &str, prefix: &str) -> Result<(), ParamError> {
    if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(ParamError::invalid(key, "must be letters, digits or `_` (it starts ROS names)"));
    }
    Ok(())
}

/// Refuses what is left of `tree` once a node took every key it knows (`known`, listed in
/// the error): the first key left names the error.
pub fn refuse_unknown(tree: &Mapping, known: &str) -> Result<(), ParamError> {
    match tree.keys().next() {
        None => Ok(()),
        Some(key) => Err(ParamError::invalid(format!("{key:?}").trim_matches('"'), format!("unknown parameter (known: {known})"))),
    }
}

/// The ROS 2 command line of a node: `[args...] --ros-args -r __node:=name -r __ns:=/ns
/// --params-file f.yaml -p key:=value ...` (as `ros2 run`/`ros2 launch` and the Flotilla
/// launcher write it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeArgs {
    /// Node name and namespace after `__node`/`__ns` remaps.
    pub identity: NodeIdentity,
    /// `--params-file` arguments, in order.
    pub params_files: Vec<PathBuf>,
    /// `-p name:=value` arguments, in order.
    pub overrides: Vec<String>,
    /// Arguments before `--ros-args` (the node's own, non-ROS arguments).
    pub positional: Vec<String>,
}

impl NodeArgs {
    /// Parses process arguments (without the program name).
    pub fn parse(default_name: &str, args: impl IntoIterator<Item = String>) -> Result<Self, ParamError> {
        let mut out = Self {
            identity: NodeIdentity::new(default_name, "/"),
            params_files: Vec::new(),
            overrides: Vec::new(),
            positional: Vec::new(),
        };
        let mut in_ros = false;
        let mut it = args.into_iter();
        let missing = |flag: &str| ParamError::Override { text: flag.to_owned(), message: "missing value after the flag".into() };
        while let Some(arg) = it.next() {
            match (in_ros, arg.as_str()) {
                (false, "--ros-args") => in_ros = true,
                (false, _) => out.positional.push(arg),
                (true, "--") => in_ros = false,
                (true, "--ros-args") => {}
                (true, "-r" | "--remap") => {
                    let rule = it.next().ok_or_else(|| missing(&arg))?;
                    if let Some(name) = rule.strip_prefix("__node:=").or_else(|| rule.strip_prefix("__name:=")) {
                        out.identity.name = name.to_owned();
                    } else if let Some(ns) = rule.strip_prefix("__ns:=") {
                        out.identity = NodeIdentity::new(out.identity.name.clone(), ns);
                    }
                }
                (true, "-p" | "--param") => out.overrides.push(it.next().ok_or_else(|| missing(&arg))?),
                (true, "--params-file") => out.params_files.push(PathBuf::from(it.next().ok_or_else(|| missing(&arg))?)),
                // Flags with one value that rcl handles (logging, enclave).
                (true, "--log-level" | "-e" | "--enclave" | "--log-config-file" | "--log-file-name") => {
                    it.next().ok_or_else(|| missing(&arg))?;
                }
                (true, flag) if ROS_SWITCHES.contains(&flag) => {}
                (true, other) => {
                    return Err(ParamError::Override {
                        text: other.to_owned(),
                        message: "unknown --ros-args flag (known: -r/--remap, -p/--param, --params-file, --log-level, \
                                  --log-config-file, --log-file-name, -e/--enclave, --enable-/--disable-rosout-logs, \
                                  --enable-/--disable-stdout-logs, --enable-/--disable-external-lib-logs; end the ROS \
                                  arguments with `--`)"
                            .into(),
                    })
                }
            }
        }
        Ok(out)
    }

    /// Loads and merges every parameter file, then applies the overrides.
    pub fn load(&self) -> Result<Mapping, ParamError> {
        let mut tree = Mapping::new();
        for file in &self.params_files {
            let text = std::fs::read_to_string(file).map_err(|source| ParamError::Read { path: file.clone(), source })?;
            merge(&mut tree, &parse_str_for_node(&text, file, &self.identity)?);
        }
        for o in &self.overrides {
            apply_override(&mut tree, o)?;
        }
        Ok(tree)
    }

    /// Like [`NodeArgs::load`] for a node that does the work of other nodes in its process
    /// (a camera and its tracker): each file's sections for every one of `components`, in
    /// order, each passed through `adopt` (which drops the keys the composite takes from
    /// an earlier component), then the node's own sections, then the overrides. The same
    /// files thus configure the nodes alone or together; a file with no section for any of
    /// them is refused as [`NodeArgs::load`] refuses it.
    pub fn load_composite(&self, components: &[&str], adopt: impl Fn(&str, &mut Mapping)) -> Result<Mapping, ParamError> {
        let mut tree = Mapping::new();
        for file in &self.params_files {
            let text = std::fs::read_to_string(file).map_err(|source| ParamError::Read { path: file.clone(), source })?;
            let mut any = false;
            for name in components {
                let (mut section, matched) = parse_sections(&text, file, &NodeIdentity::new(*name, self.identity.namespace.clone()))?;
                if matched {
                    any = true;
                    adopt(name, &mut section);
                    merge(&mut tree, &section);
                }
            }
            let (own, matched) = parse_sections(&text, file, &self.identity)?;
            if !(matched || any) {
                // The error names the sections and the nearest name.
                parse_str_for_node(&text, file, &self.identity)?;
            }
            merge(&mut tree, &own);
        }
        for o in &self.overrides {
            apply_override(&mut tree, o)?;
        }
        Ok(tree)
    }
}

#[cfg(test)]
mod args_tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_launcher_command_line() {
        let args = NodeArgs::parse(
            "tank_physics",
            strings(&[
                "extra",
                "--ros-args",
                "-r",
                "__node:=physics",
                "-r",
                "__ns:=/sim",
                "--params-file",
                "a.yaml",
                "-p",
                "dt:=0.01",
                "-r",
                "/tf:=/tf2",
                "--log-level",
                "debug",
            ]),
        )
        .unwrap();
        assert_eq!(args.identity, NodeIdentity::new("physics", "/sim"));
        assert_eq!(args.params_files, [PathBuf::from("a.yaml")]);
        assert_eq!(args.overrides, ["dt:=0.01"]);
        assert_eq!(args.positional, ["extra"]);
    }

    #[test]
    fn files_then_overrides() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.yaml");
        std::fs::write(&f, "tank_physics:\n  ros__parameters:\n    dt: 0.025\n    seed: 3\n").unwrap();
        let args =
            NodeArgs::parse("tank_physics", strings(&["--ros-args", "--params-file", f.to_str().unwrap(), "-p", "seed:=7"])).unwrap();
        let tree = args.load().unwrap();
        assert_eq!(get_dotted(&tree, "seed").unwrap().as_i64(), Some(7));
        assert_eq!(get_dotted(&tree, "dt").unwrap().as_f64(), Some(0.025));
    }

    #[test]
    fn a_composite_reads_its_components_sections_then_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
        std::fs::write(&a, "camera:\n  ros__parameters:\n    frame_id: cam\n    rate: 30.0\n").unwrap();
        std::fs::write(&b, "tracker:\n  ros__parameters:\n    frame_id: world\n    gate: 4.0\nboth:\n  ros__parameters:\n    rate: 10.0\n")
            .unwrap();
        let args = NodeArgs::parse(
            "both",
            strings(&["--ros-args", "--params-file", a.to_str().unwrap(), "--params-file", b.to_str().unwrap(), "-p", "gate:=2.0"]),
        )
        .unwrap();
        let tree = args
            .load_composite(&["camera", "tracker"], |component, section| {
                if component == "tracker" {
                    section.remove("frame_id");
                }
            })
            .unwrap();
        assert_eq!(get_dotted(&tree, "frame_id").and_then(Value::as_str), Some("cam"), "the tracker's clashing key is dropped");
        assert_eq!(get_dotted(&tree, "rate").and_then(Value::as_f64), Some(10.0), "the own section wins");
        assert_eq!(get_dotted(&tree, "gate").and_then(Value::as_f64), Some(2.0), "overrides come last");
        // A file for none of them is refused, naming the sections.
        std::fs::write(&a, "camra:\n  ros__parameters:\n    rate: 1.0\n").unwrap();
        let err = args.load_composite(&["camera", "tracker"], |_, _| {}).unwrap_err().to_string();
        assert!(err.contains("no section applies") && err.contains("camra"), "{err}");
    }

    #[test]
    fn missing_file_is_named() {
        let args = NodeArgs::parse("n", strings(&["--ros-args", "--params-file", "/nope.yaml"])).unwrap();
        let msg = args.load().unwrap_err().to_string();
        assert!(msg.contains("/nope.yaml"), "{msg}");
    }

    /// Issue 21 item 9: `--ros-args --bogus-flag` was accepted without a word.
    #[test]
    fn item9_unknown_ros_flags_are_refused() {
        let err = NodeArgs::parse("n", strings(&["--ros-args", "--bogus-flag"])).unwrap_err().to_string();
        assert!(err.contains("--bogus-flag") && err.contains("unknown"), "{err}");
        let ok = NodeArgs::parse("n", strings(&["--ros-args", "--disable-rosout-logs", "--log-level", "warn", "--", "x"])).unwrap();
        assert_eq!(ok.positional, ["x"]);
    }

    /// Issue 21 item 9: a parameter file whose only section is a misspelled node name ran
    /// an empty default world.
    #[test]
    fn item9_misspelled_node_section_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.yaml");
        std::fs::write(&f, "# scenario\ntank_phyisics:\n  ros__parameters:\n    seed: 3\n").unwrap();
        let args = NodeArgs::parse("tank_physics", strings(&["--ros-args", "--params-file", f.to_str().unwrap()])).unwrap();
        let err = args.load().unwrap_err().to_string();
        assert!(err.contains("p.yaml:2:") && err.contains("tank_phyisics") && err.contains("/tank_physics"), "{err}");
        std::fs::write(&f, "/**:\n  ros__parameters:\n    seed: 3\nother:\n  ros__parameters:\n    x: 1\n").unwrap();
        assert!(args.load().is_ok());
    }
}
