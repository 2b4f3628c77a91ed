//! Reads a URDF file back into a [`Model`] (the split form: universal joints appear as two
//! revolute joints), with errors that name the file, line and element.

use super::description::{Collision, Colour, Geometry, Inertial, Joint, JointKind, JointLimits, Link, Model, Pose, Visual};
use nalgebra::{Matrix3, Vector3};
use roxmltree::{Document, Node};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A model file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelFileError {
    /// The file could not be read or written.
    #[error("model file {path}: {source}")]
    Read {
        /// The file asked for.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The text is not well-formed XML.
    #[error("model file {path}:{line}:{column}: malformed XML: {message}")]
    Xml {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// What the XML parser reports.
        message: String,
    },
    /// An element is missing, misplaced or holds a bad value.
    #[error("model file {path}:{line}: {element}: {message}")]
    Element {
        /// The file.
        path: PathBuf,
        /// 1-based line of the element.
        line: u32,
        /// The element, e.g. `<joint name="prismatic_0">`.
        element: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads and checks a URDF file.
pub fn read_urdf(path: &Path) -> Result<Model, ModelFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| ModelFileError::Read { path: path.to_owned(), source })?;
    parse_urdf(&text, path)
}

/// Parses URDF text; `path` names the source in errors.
pub fn parse_urdf(text: &str, path: &Path) -> Result<Model, ModelFileError> {
    let doc = Document::parse(text).map_err(|e| {
        let pos = e.pos();
        ModelFileError::Xml { path: path.to_owned(), line: pos.row, column: pos.col, message: e.to_string() }
    })?;
    Reader { doc: &doc, path }.model()
}

struct Reader<'a, 'input> {
    doc: &'a Document<'input>,
    path: &'a Path,
}

/// `<tag name="...">` or `<tag>` for error messages.
fn describe(node: Node) -> String {
    match node.attribute("name") {
        Some(name) => format!("<{} name=\"{name}\">", node.tag_name().name()),
        None => format!("<{}>", node.tag_name().name()),
    }
}

fn children<'a, 'input>(node: Node<'a, 'input>, tag: &'static str) -> impl Iterator<Item = Node<'a, 'input>> + 'a {
    node.children().filter(move |c| c.is_element() && c.tag_name().name() == tag)
}

impl<'input> Reader<'_, 'input> {
    fn error(&self, node: Node, message: impl Into<String>) -> ModelFileError {
        ModelFileError::Element {
            path: self.path.to_owned(),
            line: self.doc.text_pos_at(node.range().start).row,
            element: describe(node),
            message: message.into(),
        }
    }

    fn attribute<'n>(&self, node: Node<'n, 'input>, name: &str) -> Result<&'n str, ModelFileError> {
        node.attribute(name).ok_or_else(|| self.error(node, format!("missing attribute `{name}`")))
    }

    fn numbers<const N: usize>(&self, node: Node, name: &str) -> Result<[f64; N], ModelFileError> {
        let text = self.attribute(node, name)?;
        let values: Vec<f64> = text
            .split_whitespace()
            .map(|t| t.parse::<f64>().ok().filter(|v| v.is_finite()))
            .collect::<Option<_>>()
            .ok_or_else(|| self.error(node, format!("attribute `{name}=\"{text}\"` is not a list of finite numbers")))?;
        values.try_into().map_err(|_| self.error(node, format!("attribute `{name}=\"{text}\"` needs {N} numbers")))
    }

    fn number(&self, node: Node, name: &str) -> Result<f64, ModelFileError> {
        self.numbers::<1>(node, name).map(|[v]| v)
    }

    fn one<'n>(&self, node: Node<'n, 'input>, tag: &'static str) -> Result<Node<'n, 'input>, ModelFileError> {
        let mut found = children(node, tag);
        let first = found.next().ok_or_else(|| self.error(node, format!("missing <{tag}>")))?;
        match found.next() {
            Some(extra) => Err(self.error(extra, format!("more than one <{tag}> in {}", describe(node)))),
            None => Ok(first),
        }
    }

    fn optional<'n>(&self, node: Node<'n, 'input>, tag: &'static str) -> Result<Option<Node<'n, 'input>>, ModelFileError> {
        match children(node, tag).count() {
            0 => Ok(None),
            _ => self.one(node, tag).map(Some),
        }
    }

    fn origin(&self, node: Node) -> Result<Pose, ModelFileError> {
        let Some(o) = self.optional(node, "origin")? else {
            return Ok(Pose::identity());
        };
        let xyz = if o.has_attribute("xyz") { self.numbers::<3>(o, "xyz")? } else { [0.0; 3] };
        let rpy = if o.has_attribute("rpy") { self.numbers::<3>(o, "rpy")? } else { [0.0; 3] };
        Ok(Pose { xyz: Vector3::from(xyz), rpy: Vector3::from(rpy) })
    }

    fn positive(&self, node: Node, name: &str) -> Result<f64, ModelFileError> {
        let v = self.number(node, name)?;
        if v > 0.0 {
            Ok(v)
        } else {
            Err(self.error(node, format!("`{name}` must be positive, got {v}")))
        }
    }

    fn geometry(&self, owner: Node) -> Result<Geometry, ModelFileError> {
        let g = self.one(owner, "geometry")?;
        let shape = g
            .children()
            .find(|c| c.is_element())
            .ok_or_else(|| self.error(g, "empty <geometry>: expected <box>, <cylinder> or <sphere>"))?;
        match shape.tag_name().name() {
            "box" => {
                let size = self.numbers::<3>(shape, "size")?;
                if size.iter().any(|&s| s <= 0.0) {
                    return Err(self.error(shape, format!("box size {size:?} must be positive")));
                }
                Ok(Geometry::Box { size: Vector3::from(size) })
            }
            "cylinder" => Ok(Geometry::Cylinder { radius: self.positive(shape, "radius")?, length: self.positive(shape, "length")? }),
            "sphere" => Ok(Geometry::Sphere { radius: self.positive(shape, "radius")? }),
            other => Err(self.error(shape, format!("unsupported geometry <{other}>: expected <box>, <cylinder> or <sphere>"))),
        }
    }

    fn colour(&self, material: Node, named: &HashMap<String, Colour>) -> Result<Colour, ModelFileError> {
        let name = self.attribute(material, "name")?;
        if let Some(c) = self.optional(material, "color")? {
            let rgba = self.numbers::<4>(c, "rgba")?;
            return Ok(Colour { name: Cow::Owned(name.to_owned()), rgba });
        }
        named.get(name).cloned().ok_or_else(|| self.error(material, format!("material `{name}` is not defined")))
    }

    fn inertial(&self, node: Node) -> Result<Inertial, ModelFileError> {
        let origin = self.origin(node)?;
        let mass = self.number(self.one(node, "mass")?, "value")?;
        let i = self.one(node, "inertia")?;
        let v = |name| self.number(i, name);
        let (ixx, ixy, ixz, iyy, iyz, izz) = (v("ixx")?, v("ixy")?, v("ixz")?, v("iyy")?, v("iyz")?, v("izz")?);
        let local = Matrix3::new(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz);
        // The tensor is given in the inertial origin's axes; the model keeps link axes.
        let inertia = if origin.rpy == Vector3::zeros() {
            local
        } else {
            let r = origin.to_isometry().rotation.to_rotation_matrix();
            r.matrix() * local * r.matrix().transpose()
        };
        Ok(Inertial { mass, centre_of_mass: origin.xyz, inertia })
    }

    fn link(&self, node: Node, colours: &HashMap<String, Colour>) -> Result<Link, ModelFileError> {
        let mut link = Link::frame(self.attribute(node, "name")?);
        link.inertial = self.optional(node, "inertial")?.map(|n| self.inertial(n)).transpose()?;
        for v in children(node, "visual") {
            let colour = match self.optional(v, "material")? {
                Some(m) => self.colour(m, colours)?,
                None => Colour { name: Cow::Borrowed("default"), rgba: [0.8, 0.8, 0.8, 1.0] },
            };
            link.visuals.push(Visual { origin: self.origin(v)?, geometry: self.geometry(v)?, colour });
        }
        for c in children(node, "collision") {
            link.collisions.push(Collision { origin: self.origin(c)?, geometry: self.geometry(c)? });
        }
        Ok(link)
    }

    /// Reads a `<joint>`; an error in one of its elements (`<origin>`, `<limit>`, ...) also
    /// names the joint.
    fn joint(&self, node: Node) -> Result<Joint, ModelFileError> {
        self.joint_elements(node).map_err(|e| match e {
            ModelFileError::Element { path, line, element, message } if element != describe(node) => {
                ModelFileError::Element { path, line, element: format!("{element} of {}", describe(node)), message }
            }
            other => other,
        })
    }

    fn joint_elements(&self, node: Node) -> Result<Joint, ModelFileError> {
        let name = self.attribute(node, "name")?.to_owned();
        let parent = self.attribute(self.one(node, "parent")?, "link")?.to_owned();
        let child = self.attribute(self.one(node, "child")?, "link")?.to_owned();
        let origin = self.origin(node)?;
        let kind_name = self.attribute(node, "type")?;
        let axis = || -> Result<Vector3<f64>, ModelFileError> {
            let axis = match self.optional(node, "axis")? {
                Some(a) => Vector3::from(self.numbers::<3>(a, "xyz")?),
                None => Vector3::x(),
            };
            let norm = axis.norm();
            if (norm - 1.0).abs() > 1e-6 {
                return Err(self.error(node, format!("axis {:?} is not a unit vector", axis.as_slice())));
            }
            Ok(axis)
        };
        let limits = || -> Result<JointLimits, ModelFileError> {
            let l = self.one(node, "limit")?;
            let limits = JointLimits {
                lower: self.number(l, "lower")?,
                upper: self.number(l, "upper")?,
                effort: self.number(l, "effort")?,
                velocity: self.number(l, "velocity")?,
            };
            if limits.lower > limits.upper {
                return Err(self.error(l, format!("lower {} is above upper {}", limits.lower, limits.upper)));
            }
            Ok(limits)
        };
        let kind = match kind_name {
            "fixed" => JointKind::Fixed,
            "revolute" => JointKind::Revolute { axis: axis()?, limits: limits()? },
            "prismatic" => JointKind::Prismatic { axis: axis()?, limits: limits()? },
            other => return Err(self.error(node, format!("unsupported joint type `{other}`: expected fixed, revolute or prismatic"))),
        };
        Ok(Joint { name, kind, parent, child, origin })
    }

    /// Whether a robot-level Gazebo extension (`<gazebo>` without `reference`) marks the
    /// model static: `<gazebo><static>true</static></gazebo>`.
    fn is_static(&self, robot: Node) -> Result<bool, ModelFileError> {
        let mut is_static = false;
        for gazebo in children(robot, "gazebo").filter(|g| !g.has_attribute("reference")) {
            for flag in children(gazebo, "static") {
                is_static = match flag.text().map(str::trim) {
                    Some("true" | "1") => true,
                    Some("false" | "0") => false,
                    other => return Err(self.error(flag, format!("`{}` is not a boolean (true, false, 1, 0)", other.unwrap_or_default()))),
                };
            }
        }
        Ok(is_static)
    }

    fn model(&self) -> Result<Model, ModelFileError> {
        let root = self.doc.root_element();
        if root.tag_name().name() != "robot" {
            return Err(self.error(root, "the root element must be <robot>"));
        }
        let name = self.attribute(root, "name")?.to_owned();
        let mut colours = HashMap::new();
        for m in children(root, "material") {
            let colour = self.colour(m, &colours)?;
            colours.insert(colour.name.to_string(), colour);
        }
        let mut links = Vec::new();
        let mut link_nodes = HashMap::new();
        for node in children(root, "link") {
            let link = self.link(node, &colours)?;
            if link_nodes.insert(link.name.clone(), node).is_some() {
                return Err(self.error(node, "duplicate link name"));
            }
            links.push(link);
        }
        let mut joints: Vec<Joint> = Vec::new();
        for node in children(root, "joint") {
            let joint = self.joint(node)?;
            for end in [&joint.parent, &joint.child] {
                if !link_nodes.contains_key(end.as_str()) {
                    return Err(self.error(node, format!("names link `{end}`, which the file does not define")));
                }
            }
            if joints.iter().any(|j| j.name == joint.name) {
                return Err(self.error(node, "duplicate joint name"));
            }
            if joints.iter().any(|j| j.child == joint.child) {
                return Err(self.error(node, format!("link `{}` already has a parent joint", joint.child)));
            }
            joints.push(joint);
        }
        let roots: Vec<&Link> = links.iter().filter(|l| !joints.iter().any(|j| j.child == l.name)).collect();
        let root_link = match roots.as_slice() {
            [one] => one.name.clone(),
            [] => return Err(self.error(root, "no root link: the joints form a cycle")),
            many => {
                let names: Vec<&str> = many.iter().map(|l| l.name.as_str()).collect();
                return Err(self.error(root, format!("the links do not form one tree: roots {}", names.join(", "))));
            }
        };
        // A single root and one parent per link leave only cycles apart from the root.
        let model = Model { name, links, joints, is_static: self.is_static(root)? };
        for link in &model.links {
            let mut current = link.name.as_str();
            let mut reached = false;
            for _ in 0..=model.links.len() {
                if current == root_link {
                    reached = true;
                    break;
                }
                match model.parent_joint(current) {
                    Some(j) => current = &j.parent,
                    None => break,
                }
            }
            if !reached {
                return Err(self.error(link_nodes[link.name.as_str()], "link is on a joint cycle, not below the root"));
            }
        }
        // Keep the root first, as the rest of the crate expects.
        let mut model = model;
        if let Some(i) = model.links.iter().position(|l| l.name == root_link) {
            model.links[..=i].rotate_right(1);
        }
        Ok(model)
    }
}
