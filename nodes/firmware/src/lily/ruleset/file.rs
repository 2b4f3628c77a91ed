//! The ruleset file as written (YAML), before validation.

use serde::Deserialize;
use std::collections::BTreeMap;

fn default_release_time() -> [f64; 2] {
    [1.5, 3.0]
}
fn default_handshake_timeout() -> f64 {
    2.0
}
fn default_report_period() -> f64 {
    1.0
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RulesetFile {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub target: Vec<[i32; 2]>,
    pub initial: String,
    #[serde(default = "default_release_time")]
    pub release_time: [f64; 2],
    #[serde(default = "default_handshake_timeout")]
    pub handshake_timeout: f64,
    #[serde(default = "default_report_period")]
    pub report_period: f64,
    #[serde(deserialize_with = "unique_keys")]
    pub states: BTreeMap<String, StateFile>,
    pub bonds: Vec<BondFile>,
    #[serde(default)]
    pub timeouts: Vec<TimeoutFile>,
    #[serde(default)]
    pub radio: Vec<RadioFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StateFile {
    pub open: Vec<u8>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BondFile {
    pub name: String,
    pub when: [String; 2],
    #[serde(default)]
    #[serde(rename = "become")]
    pub next: Option<[String; 2]>,
    #[serde(default)]
    pub release: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TimeoutFile {
    pub name: String,
    pub state: String,
    pub after: f64,
    #[serde(rename = "become")]
    pub next: String,
    #[serde(default)]
    pub release: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RadioFile {
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub states: Vec<String>,
    #[serde(rename = "become")]
    pub next: String,
    #[serde(default)]
    pub release: bool,
}

/// A mapping whose keys must all differ: YAML allows a repeated key and the last would
/// silently replace the first (a state defined twice).
fn unique_keys<'de, D, V>(d: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Unique<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Unique<V> {
        type Value = BTreeMap<String, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a mapping with distinct keys")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((key, value)) = map.next_entry::<String, V>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!("state `{key}` is defined twice")));
                }
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Unique(std::marker::PhantomData))
}
