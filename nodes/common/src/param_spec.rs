//! What a node's parameters are, for ROS 2 tools: each parameter's default, description
//! with unit, range and whether it may change while the node runs. From a node's table of
//! [`ParamSpec`]s and its parameter tree, [`declare`] gives the declarations every
//! Flotilla node serves (`ros2 param list/get/describe/dump`), and [`Declared::check_set`]
//! decides whether a `ros2 param set` is accepted before the node's own validator sees it.
//!
//! A table is checked against the node's own validation by [`check_table`] (unit tests of
//! each node): every default is the node's default, every range edge is accepted and a
//! value just outside it refused, so the descriptors cannot drift from what the node does.

use serde_yaml::{Mapping, Number, Value};
use std::fmt;

use crate::params::{self, STANDARD_ROS_PARAMETERS};

/// A parameter's default value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DefaultValue {
    /// `true`/`false`.
    Bool(bool),
    /// A 64-bit integer.
    Integer(i64),
    /// A double.
    Double(f64),
    /// A string.
    Str(&'static str),
    /// A double array.
    Doubles(&'static [f64]),
    /// A string array.
    Strings(&'static [&'static str]),
    /// No default: declared only when a file or `-p` gives a value (an optional key whose
    /// absence means something, e.g. "the arena's usual medium"); the type is that of
    /// `kind`.
    Unset(Kind),
}

/// A ROS 2 parameter type (`rcl_interfaces/msg/ParameterType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// PARAMETER_BOOL.
    Bool,
    /// PARAMETER_INTEGER.
    Integer,
    /// PARAMETER_DOUBLE.
    Double,
    /// PARAMETER_STRING.
    String,
    /// PARAMETER_BOOL_ARRAY.
    Bools,
    /// PARAMETER_INTEGER_ARRAY.
    Integers,
    /// PARAMETER_DOUBLE_ARRAY.
    Doubles,
    /// PARAMETER_STRING_ARRAY.
    Strings,
}

impl Kind {
    /// `rcl_interfaces/msg/ParameterType` constant.
    pub fn ros_type(self) -> u8 {
        match self {
            Kind::Bool => 1,
            Kind::Integer => 2,
            Kind::Double => 3,
            Kind::String => 4,
            Kind::Bools => 6,
            Kind::Integers => 7,
            Kind::Doubles => 8,
            Kind::Strings => 9,
        }
    }

    /// The type of a YAML scalar or scalar array (`None` for mappings, null, empty arrays).
    pub fn of(v: &Value) -> Option<Kind> {
        Some(match v {
            Value::Bool(_) => Kind::Bool,
            Value::Number(n) if n.is_i64() => Kind::Integer,
            Value::Number(_) => Kind::Double,
            Value::String(_) => Kind::String,
            Value::Sequence(items) => match Kind::of(items.first()?)? {
                Kind::Bool => Kind::Bools,
                Kind::Integer if items.iter().all(|i| i.as_i64().is_some()) => Kind::Integers,
                Kind::Integer | Kind::Double => Kind::Doubles,
                Kind::String => Kind::Strings,
                _ => return None,
            },
            _ => return None,
        })
    }

    /// Name as `ros2 param describe` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Bool => "boolean",
            Kind::Integer => "integer",
            Kind::Double => "double",
            Kind::String => "string",
            Kind::Bools => "boolean array",
            Kind::Integers => "integer array",
            Kind::Doubles => "double array",
            Kind::Strings => "string array",
        }
    }
}

impl DefaultValue {
    /// The parameter's type.
    pub fn kind(&self) -> Kind {
        match self {
            DefaultValue::Bool(_) => Kind::Bool,
            DefaultValue::Integer(_) => Kind::Integer,
            DefaultValue::Double(_) => Kind::Double,
            DefaultValue::Str(_) => Kind::String,
            DefaultValue::Doubles(_) => Kind::Doubles,
            DefaultValue::Strings(_) => Kind::Strings,
            DefaultValue::Unset(k) => *k,
        }
    }

    /// The default as YAML (`None` for [`DefaultValue::Unset`]).
    pub fn value(&self) -> Option<Value> {
        Some(match self {
            DefaultValue::Bool(b) => Value::Bool(*b),
            DefaultValue::Integer(i) => Value::Number(Number::from(*i)),
            DefaultValue::Double(d) => Value::Number(Number::from(*d)),
            DefaultValue::Str(s) => Value::String((*s).to_owned()),
            DefaultValue::Doubles(a) => Value::Sequence(a.iter().map(|d| Value::Number(Number::from(*d))).collect()),
            DefaultValue::Strings(a) => Value::Sequence(a.iter().map(|s| Value::String((*s).to_owned())).collect()),
            DefaultValue::Unset(_) => return None,
        })
    }
}

/// Allowed values of a number (inclusive bounds, as `rcl_interfaces` ranges).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// Any value the node's validator accepts (stated in the description).
    Any,
    /// A double in `[min, max]` (for an array: every element).
    Float {
        /// Lowest value, in the parameter's unit.
        min: f64,
        /// Highest value, in the parameter's unit.
        max: f64,
    },
    /// An integer in `[min, max]`.
    Integer {
        /// Lowest value.
        min: i64,
        /// Highest value.
        max: i64,
    },
}

/// One parameter of a node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSpec {
    /// Dotted name, e.g. `publish.state_rate`.
    pub name: &'static str,
    /// Default value (its type is the parameter's type).
    pub default: DefaultValue,
    /// What it does, with its unit.
    pub description: &'static str,
    /// Allowed values.
    pub range: Range,
    /// Whether a change while the node runs takes effect (otherwise read-only).
    pub live: bool,
}

impl ParamSpec {
    /// A read-only double.
    pub const fn double(name: &'static str, default: f64, description: &'static str) -> Self {
        Self { name, default: DefaultValue::Double(default), description, range: Range::Any, live: false }
    }
    /// A read-only integer.
    pub const fn integer(name: &'static str, default: i64, description: &'static str) -> Self {
        Self { name, default: DefaultValue::Integer(default), description, range: Range::Any, live: false }
    }
    /// A read-only boolean.
    pub const fn boolean(name: &'static str, default: bool, description: &'static str) -> Self {
        Self { name, default: DefaultValue::Bool(default), description, range: Range::Any, live: false }
    }
    /// A read-only string.
    pub const fn string(name: &'static str, default: &'static str, description: &'static str) -> Self {
        Self { name, default: DefaultValue::Str(default), description, range: Range::Any, live: false }
    }
    /// A read-only parameter with any default.
    pub const fn new(name: &'static str, default: DefaultValue, description: &'static str) -> Self {
        Self { name, default, description, range: Range::Any, live: false }
    }
    /// With a double range `[min, max]`.
    pub const fn range(mut self, min: f64, max: f64) -> Self {
        self.range = Range::Float { min, max };
        self
    }
    /// With an integer range `[min, max]`.
    pub const fn int_range(mut self, min: i64, max: i64) -> Self {
        self.range = Range::Integer { min, max };
        self
    }
    /// Changeable while the node runs.
    pub const fn live(mut self) -> Self {
        self.live = true;
        self
    }
}

/// A node's parameter table.
#[derive(Debug, Clone, Copy)]
pub struct NodeParams {
    /// Every parameter the node reads, with its default, in groups: the node's own, and
    /// groups several nodes share (e.g. the simulators' `run.*`), stated once beside the
    /// code that validates them.
    pub groups: &'static [&'static [ParamSpec]],
    /// Whether keys outside the table (scenario lists such as `modules.*`) may change
    /// while the node runs.
    pub extras_live: bool,
}

impl NodeParams {
    /// Every entry, group after group.
    pub fn params(&self) -> impl Iterator<Item = &'static ParamSpec> + Clone {
        self.groups.iter().flat_map(|g| g.iter())
    }

    /// [`check_table`] of every entry from the empty tree, against `from_tree` (a node's
    /// settings parser: the settings' `Debug` text is compared).
    pub fn check_against<S: fmt::Debug, E: fmt::Display>(&self, from_tree: impl Fn(&Mapping) -> Result<S, E>) -> Result<(), String> {
        check_table(self.params(), "{}", |t| from_tree(t).map(|s| format!("{s:?}")).map_err(|e| e.to_string()))
    }
}

/// The standard parameters every ROS 2 node declares.
pub const STANDARD: &[ParamSpec] = &[
    ParamSpec::boolean("use_sim_time", false, "Use /clock for the node's ROS time (read at start-up)"),
    ParamSpec::boolean(
        "start_type_description_service",
        true,
        "Serve ~/get_type_description (rclcpp's standard parameter; Flotilla nodes do not serve it)",
    ),
];

/// A declared parameter: its current value and its descriptor.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    /// Dotted name.
    pub name: String,
    /// Current value (a scalar or scalar array).
    pub value: Value,
    /// Type.
    pub kind: Kind,
    /// Description with unit ("" for a key outside the node's table).
    pub description: String,
    /// Allowed values.
    pub range: Range,
    /// Refused by `ros2 param set`.
    pub read_only: bool,
}

/// Why a parameter change is refused (the reason `ros2 param set` prints).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetError {
    /// No such parameter.
    #[error("parameter `{0}` is not declared by this node (`ros2 param list` shows the declared ones)")]
    Undeclared(String),
    /// Read-only.
    #[error("parameter `{0}` is read-only: it is read at start-up only; restart the node with `-p {0}:=<value>`")]
    ReadOnly(String),
    /// Wrong type.
    #[error("parameter `{name}` is a {want}, got a {got}")]
    Type {
        /// Parameter.
        name: String,
        /// Declared type.
        want: &'static str,
        /// Given type.
        got: &'static str,
    },
    /// Outside the declared range.
    #[error("parameter `{name}`: {value} is out of range [{min}, {max}]")]
    Range {
        /// Parameter.
        name: String,
        /// Given value.
        value: String,
        /// Lowest allowed.
        min: String,
        /// Highest allowed.
        max: String,
    },
}

/// A node's declared parameters, in declaration order.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// Every declaration.
    pub list: Vec<Declaration>,
}

/// Declares `node`'s parameters from its start-up `tree`: the standard ones, every table
/// entry (the tree's value, else the default; an [`DefaultValue::Unset`] entry only when the
/// tree has it), then every other scalar leaf of the tree (no description; live as
/// [`NodeParams::extras_live`]). A tree value of another type than the table's (an
/// integer for a double) is declared as the table's type when it converts.
pub fn declare(node: &NodeParams, tree: &Mapping) -> Declared {
    let mut list: Vec<Declaration> = Vec::new();
    for spec in STANDARD.iter().chain(node.params()) {
        if list.iter().any(|d| d.name == spec.name) {
            continue;
        }
        let given = params::get_dotted(tree, spec.name).cloned();
        let Some(value) = given.map(|v| coerce(&v, spec.default.kind()).unwrap_or(v)).or_else(|| spec.default.value()) else {
            continue;
        };
        let kind = Kind::of(&value).unwrap_or(spec.default.kind());
        list.push(Declaration {
            name: spec.name.to_owned(),
            value,
            kind,
            description: spec.description.to_owned(),
            range: spec.range,
            read_only: !spec.live,
        });
    }
    for (name, value) in params::flatten(tree) {
        if list.iter().any(|d| d.name == name) {
            continue;
        }
        let Some(kind) = Kind::of(&value) else { continue };
        let read_only = !node.extras_live || STANDARD_ROS_PARAMETERS.contains(&name.as_str());
        list.push(Declaration { name, value, kind, description: String::new(), range: Range::Any, read_only });
    }
    Declared { list }
}

/// `v` as `kind` when it converts without loss of meaning (integer to double, integer
/// array to double array).
fn coerce(v: &Value, kind: Kind) -> Option<Value> {
    match (kind, v) {
        (Kind::Double, Value::Number(n)) if n.is_i64() || n.is_u64() => Some(Value::Number(Number::from(n.as_f64()?))),
        (Kind::Doubles, Value::Sequence(items)) => {
            Some(Value::Sequence(items.iter().map(|i| i.as_f64().map(|f| Value::Number(Number::from(f)))).collect::<Option<Vec<_>>>()?))
        }
        _ => None,
    }
}

impl Declared {
    /// The declaration named `name`.
    pub fn get(&self, name: &str) -> Option<&Declaration> {
        self.list.iter().find(|d| d.name == name)
    }

    /// Checks a change of `name` to `value` against the declaration (declared, not
    /// read-only, same type, in range); returns the value as the declared type.
    pub fn check_set(&self, name: &str, value: &Value) -> Result<Value, SetError> {
        let decl = self.get(name).ok_or_else(|| SetError::Undeclared(name.to_owned()))?;
        if decl.read_only {
            return Err(SetError::ReadOnly(name.to_owned()));
        }
        let got = Kind::of(value);
        let value = if got == Some(decl.kind) {
            value.clone()
        } else {
            coerce(value, decl.kind).ok_or(SetError::Type {
                name: name.to_owned(),
                want: decl.kind.name(),
                got: got.map_or("value of no parameter type", Kind::name),
            })?
        };
        let out_of_range = |shown: String, min: String, max: String| SetError::Range { name: name.to_owned(), value: shown, min, max };
        match decl.range {
            Range::Any => {}
            Range::Float { min, max } => {
                let numbers: Vec<f64> = match &value {
                    Value::Sequence(items) => items.iter().filter_map(Value::as_f64).collect(),
                    other => other.as_f64().into_iter().collect(),
                };
                if let Some(bad) = numbers.into_iter().find(|x| !(min..=max).contains(x)) {
                    return Err(out_of_range(bad.to_string(), min.to_string(), max.to_string()));
                }
            }
            Range::Integer { min, max } => {
                if let Some(bad) = value.as_i64().filter(|x| !(min..=max).contains(x)) {
                    return Err(out_of_range(bad.to_string(), min.to_string(), max.to_string()));
                }
            }
        }
        Ok(value)
    }

    /// Records an accepted value.
    pub fn set(&mut self, name: &str, value: Value) {
        if let Some(d) = self.list.iter_mut().find(|d| d.name == name) {
            d.value = value;
        }
    }
}

/// Checks entries of a node's table against its own validation (`validate` returns the
/// validated settings' `Debug` text), starting from `base`, the smallest tree the node
/// accepts (YAML, "{}" for most nodes): the defaults give the same settings as `base`
/// alone, every name is one the node accepts, every range edge is accepted and a value
/// just outside refused. Entries that need another base (a section that exists only with
/// a given mode) are checked by a second call with that base. The error lists every
/// mismatch.
pub fn check_table<'a>(
    params: impl IntoIterator<Item = &'a ParamSpec>,
    base: &str,
    validate: impl Fn(&Mapping) -> Result<String, String>,
) -> Result<(), String> {
    let params: Vec<&ParamSpec> = params.into_iter().collect();
    let mut problems = Vec::new();
    let start: Mapping = serde_yaml::from_str(base).map_err(|e| format!("base tree: {e}"))?;
    let base = validate(&start).map_err(|e| format!("the base parameter tree is refused: {e}"))?;
    let mut defaults = start.clone();
    for spec in &params {
        if let (Some(v), None) = (spec.default.value(), params::get_dotted(&start, spec.name)) {
            params::set_dotted(&mut defaults, spec.name, v);
        }
    }
    match validate(&defaults) {
        Ok(s) if s == base => {}
        Ok(s) => problems.push(format!("the table's defaults differ from the node's:\n  table: {s}\n  node:  {base}")),
        Err(e) => problems.push(format!("the table's defaults are refused: {e}")),
    }
    let with = |name: &str, v: Value| {
        let mut t = start.clone();
        params::set_dotted(&mut t, name, v);
        validate(&t)
    };
    for spec in &params {
        let (low, high, below, above) = match spec.range {
            Range::Any => continue,
            Range::Float { min, max } => {
                let step = |x: f64| (x.abs() * 1e-6).max(1e-9);
                let n = |x: f64| Value::Number(Number::from(x));
                (n(min), n(max), n(min - step(min)), n(max + step(max)))
            }
            Range::Integer { min, max } => {
                let n = |x: i64| Value::Number(Number::from(x));
                (n(min), n(max), n(min.saturating_sub(1)), n(max.saturating_add(1)))
            }
        };
        let wrap = |v: Value| if spec.default.kind() == Kind::Doubles { Value::Sequence(vec![v]) } else { v };
        for edge in [low, high] {
            if let Err(e) = with(spec.name, wrap(edge.clone())) {
                problems.push(format!("`{}` = {edge:?} (a range edge) is refused: {e}", spec.name));
            }
        }
        for (outside, edge) in [(below, spec.range_min()), (above, spec.range_max())] {
            if edge.is_some_and(|e| e == i64::MIN as f64 || e == i64::MAX as f64) {
                continue;
            }
            if with(spec.name, wrap(outside.clone())).is_ok() {
                problems.push(format!("`{}` = {outside:?} (outside the range) is accepted", spec.name));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

impl ParamSpec {
    fn range_min(&self) -> Option<f64> {
        match self.range {
            Range::Any => None,
            Range::Float { min, .. } => Some(min),
            Range::Integer { min, .. } => Some(min as f64),
        }
    }
    fn range_max(&self) -> Option<f64> {
        match self.range {
            Range::Any => None,
            Range::Float { max, .. } => Some(max),
            Range::Integer { max, .. } => Some(max as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: NodeParams = NodeParams {
        groups: &[
            &[
                ParamSpec::double("publish.state_rate", 30.0, "Rate of /tank/state, Hz").range(1e-6, 3600.0).live(),
                ParamSpec::integer("seed", 0, "Random seed").int_range(0, i64::MAX),
            ],
            &[
                ParamSpec::string("frame_id", "world", "Fixed frame"),
                ParamSpec::new("medium", DefaultValue::Unset(Kind::String), "Medium; absent: the arena's"),
                ParamSpec::new("pumps.power", DefaultValue::Doubles(&[68.6]), "Pump power, %").range(0.0, 100.0).live(),
            ],
        ],
        extras_live: false,
    };

    fn tree(yaml: &str) -> Mapping {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn defaults_are_declared_with_their_descriptors() {
        let d = declare(&TABLE, &Mapping::new());
        let names: Vec<_> = d.list.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["use_sim_time", "start_type_description_service", "publish.state_rate", "seed", "frame_id", "pumps.power"]);
        let rate = d.get("publish.state_rate").unwrap();
        assert_eq!(rate.value.as_f64(), Some(30.0));
        assert_eq!((rate.kind, rate.read_only), (Kind::Double, false));
        assert_eq!(rate.range, Range::Float { min: 1e-6, max: 3600.0 });
        assert_eq!(rate.description, "Rate of /tank/state, Hz");
        assert!(d.get("seed").unwrap().read_only);
        assert_eq!(d.get("pumps.power").unwrap().kind, Kind::Doubles);
    }

    #[test]
    fn tree_values_win_and_extras_are_declared_without_description() {
        let d = declare(&TABLE, &tree("publish: {state_rate: 60}\nmedium: air\nmodules: {lily: {count: 3}}\nuse_sim_time: true"));
        // An integer for a double parameter is declared as the double it means.
        assert_eq!(d.get("publish.state_rate").unwrap().value, Value::Number(Number::from(60.0)));
        assert_eq!(d.get("publish.state_rate").unwrap().kind, Kind::Double);
        assert_eq!(d.get("medium").unwrap().value.as_str(), Some("air"));
        assert_eq!(d.get("use_sim_time").unwrap().value.as_bool(), Some(true));
        let extra = d.get("modules.lily.count").unwrap();
        assert_eq!((extra.kind, extra.read_only, extra.description.as_str()), (Kind::Integer, true, ""));
        assert_eq!(d.list.iter().filter(|x| x.name == "use_sim_time").count(), 1);
    }

    #[test]
    fn sets_are_checked_for_declaration_read_only_type_and_range() {
        let d = declare(&TABLE, &Mapping::new());
        let n = |x: f64| Value::Number(Number::from(x));
        assert_eq!(d.check_set("publish.state_rate", &n(60.0)), Ok(n(60.0)));
        assert_eq!(d.check_set("publish.state_rate", &Value::Number(Number::from(60))), Ok(n(60.0)));
        let e = d.check_set("publish.state_rate", &n(1e6)).unwrap_err();
        assert_eq!(e.to_string(), "parameter `publish.state_rate`: 1000000 is out of range [0.000001, 3600]");
        assert!(matches!(d.check_set("seed", &Value::Number(Number::from(3))), Err(SetError::ReadOnly(_))));
        assert!(d.check_set("seed", &Value::Number(Number::from(3))).unwrap_err().to_string().contains("-p seed:=<value>"));
        assert!(matches!(d.check_set("nope", &n(1.0)), Err(SetError::Undeclared(_))));
        let e = d.check_set("publish.state_rate", &Value::String("fast".into())).unwrap_err();
        assert_eq!(e.to_string(), "parameter `publish.state_rate` is a double, got a string");
        assert!(d.check_set("pumps.power", &Value::Sequence(vec![n(50.0), n(120.0)])).is_err());
        assert!(d.check_set("pumps.power", &Value::Sequence(vec![n(50.0), n(20.0)])).is_ok());
    }

    /// A validator that agrees with TABLE, and one that does not: check_table tells them
    /// apart.
    #[test]
    fn check_table_finds_drifted_defaults_and_ranges() {
        let good = |t: &Mapping| -> Result<String, String> {
            let rate = params::get_dotted(t, "publish.state_rate").and_then(Value::as_f64).unwrap_or(30.0);
            if !(1e-6..=3600.0).contains(&rate) {
                return Err(format!("rate {rate}"));
            }
            let pumps: Vec<f64> = params::get_dotted(t, "pumps.power")
                .and_then(Value::as_sequence)
                .map(|s| s.iter().filter_map(Value::as_f64).collect())
                .unwrap_or(vec![68.6]);
            if pumps.iter().any(|p| !(0.0..=100.0).contains(p)) {
                return Err("pump".into());
            }
            let frame = params::get_dotted(t, "frame_id").and_then(Value::as_str).unwrap_or("world").to_owned();
            let seed = params::get_dotted(t, "seed").map_or(Some(0), Value::as_u64).ok_or("seed")?;
            Ok(format!("{rate} {pumps:?} {frame} {seed}"))
        };
        assert_eq!(check_table(TABLE.params(), "{}", good), Ok(()));
        let drifted = |t: &Mapping| -> Result<String, String> {
            let rate = params::get_dotted(t, "publish.state_rate").and_then(Value::as_f64).unwrap_or(25.0);
            if !(1.0..=3600.0).contains(&rate) {
                return Err(format!("rate {rate}"));
            }
            Ok(format!("{rate}"))
        };
        let err = check_table(TABLE.params(), "{}", drifted).unwrap_err();
        assert!(err.contains("defaults differ"), "{err}");
        assert!(err.contains("`publish.state_rate` = Number(1e-6) (a range edge) is refused"), "{err}");
        assert!(err.contains("`pumps.power` = Number(-1e-9) (outside the range) is accepted"), "{err}");
    }
}
