//! Strict reading of a YAML parameter mapping: every key is typed, range-checked and
//! accounted for; errors name the full key path.

use super::ConfigError;
use serde_yaml::{Mapping, Value};

/// One mapping of the parameter tree, read key by key. [`Section::finish`] rejects the
/// keys nobody asked for.
pub(crate) struct Section<'a> {
    path: String,
    map: Option<&'a Mapping>,
    used: Vec<String>,
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

impl<'a> Section<'a> {
    /// The root mapping (`path` is the prefix used in errors, "" at the root).
    pub(crate) fn root(value: &'a Value) -> Result<Self, ConfigError> {
        Self::from_value(value, String::new())
    }

    fn from_value(value: &'a Value, path: String) -> Result<Self, ConfigError> {
        match value {
            Value::Mapping(map) => Ok(Self { path, map: Some(map), used: Vec::new() }),
            Value::Null => Ok(Self { path, map: None, used: Vec::new() }),
            other => Err(ConfigError::WrongType {
                path: if path.is_empty() { "<root>".into() } else { path },
                expected: "a mapping",
                got: type_name(other).into(),
            }),
        }
    }

    /// Full path of `key` inside this section.
    pub(crate) fn key_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn get(&mut self, key: &str) -> Option<&'a Value> {
        self.used.push(key.to_owned());
        self.map.and_then(|m| m.get(key)).filter(|v| !v.is_null())
    }

    /// The keys present, in file order.
    pub(crate) fn keys(&self) -> Vec<String> {
        self.map.map(|m| m.keys().map(|k| k.as_str().map(str::to_owned).unwrap_or_else(|| format!("{k:?}"))).collect()).unwrap_or_default()
    }

    /// A nested mapping (an absent key reads as an empty mapping).
    pub(crate) fn section(&mut self, key: &str) -> Result<Section<'a>, ConfigError> {
        let path = self.key_path(key);
        match self.get(key) {
            Some(v) => Self::from_value(v, path),
            None => Ok(Section { path, map: None, used: Vec::new() }),
        }
    }

    fn number(&self, key: &str, v: &Value) -> Result<f64, ConfigError> {
        let x = v.as_f64().ok_or_else(|| ConfigError::WrongType {
            path: self.key_path(key),
            expected: "a number",
            got: type_name(v).into(),
        })?;
        if x.is_finite() {
            Ok(x)
        } else {
            Err(ConfigError::NotFinite { path: self.key_path(key), got: x })
        }
    }

    /// A real number in `[min, max]`, or `default` when absent.
    pub(crate) fn f64_in(&mut self, key: &str, default: f64, min: f64, max: f64) -> Result<f64, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => {
                let x = self.number(key, v)?;
                check_range(&self.key_path(key), x, min, max)
            }
        }
    }

    /// A non-negative integer in `[min, max]`, or `default` when absent.
    pub(crate) fn u64_in(&mut self, key: &str, default: u64, min: u64, max: u64) -> Result<u64, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => {
                let x = v.as_u64().ok_or_else(|| ConfigError::WrongType {
                    path: self.key_path(key),
                    expected: "a non-negative integer",
                    got: match v.as_f64() {
                        Some(f) => f.to_string(),
                        None => type_name(v).into(),
                    },
                })?;
                if x < min || x > max {
                    return Err(ConfigError::OutOfRange { path: self.key_path(key), min: min as f64, max: max as f64, got: x as f64 });
                }
                Ok(x)
            }
        }
    }

    /// A string, if present.
    pub(crate) fn opt_string(&mut self, key: &str) -> Result<Option<String>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(ConfigError::WrongType { path: self.key_path(key), expected: "a string", got: type_name(other).into() }),
        }
    }

    /// A list of real numbers each in `[min, max]` (a single number reads as a list of one).
    pub(crate) fn opt_f64_list(&mut self, key: &str, min: f64, max: f64) -> Result<Option<Vec<f64>>, ConfigError> {
        let path = self.key_path(key);
        match self.get(key) {
            None => Ok(None),
            Some(Value::Sequence(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let p = format!("{path}[{i}]");
                    let x = v.as_f64().ok_or_else(|| ConfigError::WrongType {
                        path: p.clone(),
                        expected: "a number",
                        got: type_name(v).into(),
                    })?;
                    if !x.is_finite() {
                        return Err(ConfigError::NotFinite { path: p, got: x });
                    }
                    check_range(&p, x, min, max)
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(v) => {
                let x = self.number(key, v)?;
                check_range(&path, x, min, max).map(|x| Some(vec![x]))
            }
        }
    }

    /// Fails on any key of this mapping that was never read.
    pub(crate) fn finish(self) -> Result<(), ConfigError> {
        let Some(map) = self.map else { return Ok(()) };
        for key in map.keys() {
            let name = key.as_str().map(str::to_owned).unwrap_or_else(|| format!("{key:?}"));
            if !self.used.contains(&name) {
                let mut known = self.used.clone();
                known.sort();
                known.dedup();
                return Err(ConfigError::UnknownKey { path: self.key_path(&name), known: known.join(", ") });
            }
        }
        Ok(())
    }
}

/// `x` if it lies in `[min, max]`, else an error naming `path`.
pub(crate) fn check_range(path: &str, x: f64, min: f64, max: f64) -> Result<f64, ConfigError> {
    if !x.is_finite() {
        return Err(ConfigError::NotFinite { path: path.to_owned(), got: x });
    }
    if x < min || x > max {
        return Err(ConfigError::OutOfRange { path: path.to_owned(), min, max, got: x });
    }
    Ok(x)
}
