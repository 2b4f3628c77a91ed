//! Full message definitions for MCAP schemas, the way rosbag2 stores them: the type's own
//! `.msg` text, then every type it uses (depth first, each once) after a separator line
//! and `MSG: <package>/<Type>`.

use std::collections::HashSet;
use std::path::PathBuf;

/// Line between two definitions in a `ros2msg` schema (rosbag2's).
const SEPARATOR: &str = "================================================================================";

/// Built-in field types that have no definition of their own.
const PRIMITIVES: &[&str] = &[
    "bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "string",
    "wstring",
];

/// Why a definition could not be put together.
#[derive(Debug, thiserror::Error)]
pub enum DefinitionError {
    /// The type name is not `package/msg/Type` (or `package/Type`).
    #[error("`{0}` is not a message type name (expected package/msg/Type)")]
    BadTypeName(String),
    /// No prefix has `share/<package>/msg/<Type>.msg`.
    #[error("no definition of {type_name} in any prefix (looked for share/{package}/msg/{name}.msg under: {searched})")]
    NotFound {
        /// The type asked for.
        type_name: String,
        /// Its package.
        package: String,
        /// Its bare name.
        name: String,
        /// The prefixes searched, `:`-separated.
        searched: String,
    },
    /// A `.msg` file exists but cannot be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Finds `.msg` files in ament prefixes (`<prefix>/share/<package>/msg/<Type>.msg`).
#[derive(Debug, Clone)]
pub struct MessageDefinitions {
    prefixes: Vec<PathBuf>,
}

impl MessageDefinitions {
    /// Searches these prefixes, first match wins.
    pub fn new(prefixes: Vec<PathBuf>) -> Self {
        Self { prefixes }
    }

    /// The prefixes of `AMENT_PREFIX_PATH`.
    pub fn from_env() -> Self {
        let path = std::env::var_os("AMENT_PREFIX_PATH").unwrap_or_default();
        Self::new(std::env::split_paths(&path).filter(|p| !p.as_os_str().is_empty()).collect())
    }

    /// The full `ros2msg` definition of `type_name` (`geometry_msgs/msg/Pose`).
    pub fn full_definition(&self, type_name: &str) -> Result<String, DefinitionError> {
        let (package, name) = split_type(type_name, None)?;
        let mut out = self.read(&package, &name, type_name)?;
        let mut seen = HashSet::from([(package.clone(), name.clone())]);
        let mut pending: Vec<(String, String)> = dependencies(&out, &package).into_iter().rev().collect();
        while let Some((dep_package, dep_name)) = pending.pop() {
            if !seen.insert((dep_package.clone(), dep_name.clone())) {
                continue;
            }
            let text = self.read(&dep_package, &dep_name, &format!("{dep_package}/msg/{dep_name}"))?;
            pending.extend(dependencies(&text, &dep_package).into_iter().rev());
            out.push('\n');
            out.push_str(SEPARATOR);
            out.push_str(&format!("\nMSG: {dep_package}/{dep_name}\n"));
            out.push_str(&text);
        }
        Ok(out)
    }

    fn read(&self, package: &str, name: &str, type_name: &str) -> Result<String, DefinitionError> {
        let relative: PathBuf = ["share", package, "msg", &format!("{name}.msg")].iter().collect();
        for prefix in &self.prefixes {
            let path = prefix.join(&relative);
            if path.is_file() {
                let text = std::fs::read_to_string(&path).map_err(|source| DefinitionError::Read { path, source })?;
                return Ok(text.trim_end().to_owned());
            }
        }
        Err(DefinitionError::NotFound {
            type_name: type_name.to_owned(),
            package: package.to_owned(),
            name: name.to_owned(),
            searched: std::env::join_paths(&self.prefixes).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(),
        })
    }
}

/// `pkg/msg/Type`, `pkg/Type` or (inside `context`) `Type` -> (package, Type).
fn split_type(type_name: &str, context: Option<&str>) -> Result<(String, String), DefinitionError> {
    let parts: Vec<&str> = type_name.split('/').collect();
    let bad = || DefinitionError::BadTypeName(type_name.to_owned());
    let (package, name) = match (parts.as_slice(), context) {
        ([package, "msg", name], _) | ([package, name], _) => (*package, *name),
        ([name], Some(package)) => (package, *name),
        _ => return Err(bad()),
    };
    if package.is_empty() || name.is_empty() {
        return Err(bad());
    }
    Ok((package.to_owned(), name.to_owned()))
}

/// The non-primitive field types of one `.msg` text, in order, as (package, Type).
fn dependencies(text: &str, package: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.split('#').next().unwrap_or("").trim();
            let mut tokens = line.split_whitespace();
            let field_type = tokens.next()?;
            let field_name = tokens.next()?;
            // `TYPE NAME=value` is a constant, always primitive.
            if field_name.contains('=') {
                return None;
            }
            // Strip array and bound suffixes: `Pose[]`, `int32[3]`, `string<=10`.
            let base = field_type.split(['[', '<']).next().unwrap_or(field_type);
            if PRIMITIVES.contains(&base) {
                return None;
            }
            // ROS 1 style `Header` still appears in old files; ROS 2 spells std_msgs/Header.
            let base = if base == "Header" { "std_msgs/Header" } else { base };
            split_type(base, Some(package)).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn write(root: &Path, package: &str, name: &str, text: &str) {
        let dir = root.join("share").join(package).join("msg");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.msg")), text).unwrap();
    }

    #[test]
    fn full_definition_lists_each_dependency_once_depth_first() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "builtin_interfaces", "Time", "int32 sec\nuint32 nanosec\n");
        write(root, "std_msgs", "Header", "builtin_interfaces/Time stamp\nstring frame_id\n");
        write(root, "geo", "Point", "float64 x\nfloat64 y\n");
        write(
            root,
            "geo",
            "Path",
            "# a path\nstd_msgs/Header header\nPoint[] points  # same package\nint32 MAX=3\nstring<=8 label\ngeo/Point[<=2] ends\n",
        );
        let defs = MessageDefinitions::new(vec![root.to_path_buf()]);
        let full = defs.full_definition("geo/msg/Path").unwrap();
        let headers: Vec<&str> = full.lines().filter(|l| l.starts_with("MSG: ")).collect();
        assert_eq!(headers, ["MSG: std_msgs/Header", "MSG: builtin_interfaces/Time", "MSG: geo/Point"]);
        assert!(full.starts_with("# a path\nstd_msgs/Header header"));
        assert_eq!(full.matches(SEPARATOR).count(), 3);
    }

    #[test]
    fn a_missing_type_names_the_file_it_looked_for() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "geo", "Path", "geo/Missing m\n");
        let defs = MessageDefinitions::new(vec![dir.path().to_path_buf()]);
        let err = defs.full_definition("geo/msg/Path").unwrap_err().to_string();
        assert!(err.contains("geo/msg/Missing") && err.contains("share/geo/msg/Missing.msg"), "{err}");
        let err = defs.full_definition("nonsense").unwrap_err().to_string();
        assert!(err.contains("not a message type name"), "{err}");
    }
}
