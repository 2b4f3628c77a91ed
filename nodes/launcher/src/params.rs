//! ROS parameter values given in launch files: their typing (launch_ros rules) and the
//! `ros__parameters` YAML file they are passed in.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use crate::yaml::{parse_optional_document, resolve_scalar, Scalar, YamlKind};

/// A typed ROS parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// `bool`.
    Bool(bool),
    /// `int64`.
    Integer(i64),
    /// `double`.
    Double(f64),
    /// `string`.
    String(String),
    /// `bool[]`.
    BoolArray(Vec<bool>),
    /// `int64[]`.
    IntegerArray(Vec<i64>),
    /// `double[]`.
    DoubleArray(Vec<f64>),
    /// `string[]`.
    StringArray(Vec<String>),
}

impl ParamValue {
    /// A scalar value; `None` for YAML null.
    pub fn from_scalar(scalar: Scalar) -> Option<Self> {
        Some(match scalar {
            Scalar::Null => return None,
            Scalar::Bool(b) => Self::Bool(b),
            Scalar::Int(i) => Self::Integer(i),
            Scalar::Float(x) => Self::Double(x),
            Scalar::Str(s) => Self::String(s),
        })
    }
}

/// Types the result of a substitution the way launch_ros does (`yaml.safe_load`): `"60"` is
/// an integer, `"0.5"` a double, `"true"` a bool, `"[1, 2]"` an integer array, `"abc"` a
/// string. Empty values, nulls and mappings are errors.
pub fn type_substituted(text: &str) -> Result<ParamValue, String> {
    let fail = |why: &str| format!("substituted parameter value \"{text}\" {why}");
    let file: Arc<Path> = Arc::from(Path::new("<value>"));
    let node = match parse_optional_document(text, &file) {
        Ok(Some(node)) => node,
        Ok(None) => return Err(fail("is empty")),
        Err(e) => return Err(fail(&format!("is not valid YAML: {e}"))),
    };
    match node.kind {
        YamlKind::Scalar { text: t, plain } => {
            let scalar = resolve_scalar(&t, plain).map_err(|m| fail(&m))?;
            ParamValue::from_scalar(scalar).ok_or_else(|| fail("is null"))
        }
        YamlKind::Seq(items) => {
            let mut scalars = Vec::with_capacity(items.len());
            for item in items {
                let YamlKind::Scalar { text: t, plain } = item.kind else {
                    return Err(fail("is a nested list"));
                };
                scalars.push(resolve_scalar(&t, plain).map_err(|m| fail(&m))?);
            }
            uniform_list(scalars).map_err(|m| fail(&m))
        }
        YamlKind::Map(_) => Err(fail("is a mapping, which is not a parameter type")),
    }
}

/// An array parameter from list items: all bools, all integers, integers and doubles
/// (all become doubles, as launch_ros does) or all strings.
pub fn uniform_list(items: Vec<Scalar>) -> Result<ParamValue, String> {
    if items.is_empty() {
        return Err("is an empty list, whose element type cannot be known".to_owned());
    }
    if items.iter().all(|s| matches!(s, Scalar::Bool(_))) {
        return Ok(ParamValue::BoolArray(items.into_iter().filter_map(|s| if let Scalar::Bool(b) = s { Some(b) } else { None }).collect()));
    }
    if items.iter().all(|s| matches!(s, Scalar::Int(_))) {
        return Ok(ParamValue::IntegerArray(
            items.into_iter().filter_map(|s| if let Scalar::Int(i) = s { Some(i) } else { None }).collect(),
        ));
    }
    if items.iter().all(|s| matches!(s, Scalar::Int(_) | Scalar::Float(_))) {
        return Ok(ParamValue::DoubleArray(
            items
                .into_iter()
                .filter_map(|s| match s {
                    Scalar::Int(i) => Some(i as f64),
                    Scalar::Float(x) => Some(x),
                    _ => None,
                })
                .collect(),
        ));
    }
    if items.iter().all(|s| matches!(s, Scalar::Str(_))) {
        return Ok(ParamValue::StringArray(
            items.into_iter().filter_map(|s| if let Scalar::Str(t) = s { Some(t) } else { None }).collect(),
        ));
    }
    Err("mixes element types; a parameter array holds one type".to_owned())
}

/// Parameters written to one generated `--params-file`.
#[derive(Clone, Debug, PartialEq)]
pub struct InlineParams {
    /// The node key: `/<ns>/<name>` when the node's name and namespace are both known, else
    /// `/**` (as launch_ros does).
    pub node_key: String,
    /// `(dotted name, value)`, in order; a repeated name keeps its first place, last value.
    pub entries: Vec<(String, ParamValue)>,
}

impl InlineParams {
    /// Empty parameters for `node_key`.
    pub fn new(node_key: impl Into<String>) -> Self {
        Self { node_key: node_key.into(), entries: Vec::new() }
    }

    /// Sets `name` (a later value replaces an earlier one).
    pub fn set(&mut self, name: String, value: ParamValue) {
        match self.entries.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((name, value)),
        }
    }

    /// The file content. Strings are always double-quoted so rcl reads them as strings;
    /// doubles always carry a `.` so rcl reads them as doubles.
    pub fn to_yaml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{}:\n  ros__parameters:", quote(&self.node_key));
        for (name, value) in &self.entries {
            let _ = writeln!(out, "    {}: {}", quote(name), render_value(value));
        }
        out
    }
}

fn render_value(value: &ParamValue) -> String {
    fn list<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
        format!("[{}]", items.iter().map(f).collect::<Vec<_>>().join(", "))
    }
    match value {
        ParamValue::Bool(b) => b.to_string(),
        ParamValue::Integer(i) => i.to_string(),
        ParamValue::Double(x) => render_double(*x),
        ParamValue::String(s) => quote(s),
        ParamValue::BoolArray(v) => list(v, |b| b.to_string()),
        ParamValue::IntegerArray(v) => list(v, |i| i.to_string()),
        ParamValue::DoubleArray(v) => list(v, |x| render_double(*x)),
        ParamValue::StringArray(v) => list(v, |s| quote(s)),
    }
}

/// A double in a form both rcl and YAML 1.1 read back as the same double.
fn render_double(x: f64) -> String {
    if x.is_nan() {
        return ".nan".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { ".inf".to_owned() } else { "-.inf".to_owned() };
    }
    let s = format!("{x:?}");
    match s.split_once('e') {
        None => s,
        Some((mantissa, exponent)) => {
            let mantissa = if mantissa.contains('.') { mantissa.to_owned() } else { format!("{mantissa}.0") };
            let exponent = if exponent.starts_with('-') { exponent.to_owned() } else { format!("+{exponent}") };
            format!("{mantissa}e{exponent}")
        }
    }
}

/// A YAML double-quoted string.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_document;

    #[test]
    fn substituted_values_are_typed_by_yaml_rules() {
        assert_eq!(type_substituted("60"), Ok(ParamValue::Integer(60)));
        assert_eq!(type_substituted("0.25"), Ok(ParamValue::Double(0.25)));
        assert_eq!(type_substituted("false"), Ok(ParamValue::Bool(false)));
        assert_eq!(type_substituted("on"), Ok(ParamValue::Bool(true)));
        assert_eq!(type_substituted("/a/b.yaml"), Ok(ParamValue::String("/a/b.yaml".into())));
        assert_eq!(type_substituted("'60'"), Ok(ParamValue::String("60".into())));
        assert_eq!(type_substituted("[1, 2]"), Ok(ParamValue::IntegerArray(vec![1, 2])));
        assert_eq!(type_substituted("[1, 2.5]"), Ok(ParamValue::DoubleArray(vec![1.0, 2.5])));
        assert_eq!(type_substituted("[a, 'b']"), Ok(ParamValue::StringArray(vec!["a".into(), "b".into()])));
        assert!(type_substituted("").unwrap_err().contains("is empty"));
        assert!(type_substituted("~").unwrap_err().contains("null"));
        assert!(type_substituted("a: 1").unwrap_err().contains("mapping"));
        assert!(type_substituted("[1, a]").unwrap_err().contains("mixes"));
        assert!(type_substituted("[[1]]").unwrap_err().contains("nested"));
    }

    #[test]
    fn doubles_round_trip_as_doubles() {
        assert_eq!(render_double(1.0), "1.0");
        assert_eq!(render_double(-0.5), "-0.5");
        assert_eq!(render_double(1e300), "1.0e+300");
        assert_eq!(render_double(2.5e-12), "2.5e-12");
        assert_eq!(render_double(f64::NEG_INFINITY), "-.inf");
        for x in [1.0, -0.5, 1e300, 2.5e-12, 123456.789] {
            assert_eq!(type_substituted(&render_double(x)), Ok(ParamValue::Double(x)));
        }
    }

    #[test]
    fn params_file_layout() {
        let mut p = InlineParams::new("/tracking/tracker");
        p.set("use_sim_time".into(), ParamValue::Bool(false));
        p.set("max_sim_time".into(), ParamValue::Integer(60));
        p.set("b.c".into(), ParamValue::IntegerArray(vec![1, 2]));
        p.set("label".into(), ParamValue::String("say \"60\"".into()));
        p.set("use_sim_time".into(), ParamValue::Bool(true));
        let expected = "\"/tracking/tracker\":\n  ros__parameters:\n    \"use_sim_time\": true\n    \
                        \"max_sim_time\": 60\n    \"b.c\": [1, 2]\n    \"label\": \"say \\\"60\\\"\"\n";
        assert_eq!(p.to_yaml(), expected);
    }

    #[test]
    fn rendered_file_reads_back_with_the_same_types() {
        let mut p = InlineParams::new("/**");
        p.set("s".into(), ParamValue::String("60".into()));
        p.set("d".into(), ParamValue::Double(3.0));
        p.set("l".into(), ParamValue::StringArray(vec!["yes".into(), "a\nb".into()]));
        let yaml = p.to_yaml();
        let root = parse_document(&yaml, &Arc::from(Path::new("p.yaml"))).unwrap();
        let YamlKind::Map(top) = root.kind else { panic!() };
        let YamlKind::Map(ros) = &top[0].1.kind else { panic!() };
        let YamlKind::Map(params) = &ros[0].1.kind else { panic!() };
        let value = |i: usize| match &params[i].1.kind {
            YamlKind::Scalar { text, plain } => resolve_scalar(text, *plain).unwrap(),
            YamlKind::Seq(items) => Scalar::Str(format!("{} items", items.len())),
            YamlKind::Map(_) => panic!(),
        };
        assert_eq!(value(0), Scalar::Str("60".into()));
        assert_eq!(value(1), Scalar::Float(3.0));
        assert_eq!(value(2), Scalar::Str("2 items".into()));
    }
}
