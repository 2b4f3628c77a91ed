//! YAML reading for launch files: a tree that keeps every node's position, and the YAML 1.1
//! scalar typing that `ros2 launch` gets from PyYAML (so `value: yes` is a bool there and here).

mod resolve;
mod tree;

pub use resolve::{resolve_scalar, Scalar};
pub use tree::{parse_document, parse_optional_document, YamlKind, YamlNode};
