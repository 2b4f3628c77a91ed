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
    /// Ruleset name.
    pub name: String,
    /// What it builds, in words.
    #[serde(default)]
    pub description: String,
    /// Target shape: module cells (x, y), lattice units.
    pub target: Vec<[i32; 2]>,
    /// State every module starts in.
    pub initial: String,
    /// A released latch stays off for U(min, max), s.
    #[serde(default = "default_release_time")]
    pub release_time: [f64; 2],
    /// A bond whose exchange is not complete after this long is released, s.
    #[serde(default = "default_handshake_timeout")]
    pub handshake_timeout: f64,
    /// Period of state reports to the base station, s.
    #[serde(default = "default_report_period")]
    pub report_period: f64,
    /// The states by name.
    #[serde(deserialize_with = "unique_keys")]
    pub states: BTreeMap<String, StateFile>,
    /// Rules for new bonds.
    pub bonds: Vec<BondFile>,
    /// Rules that leave a state after a time in it.
    #[serde(default)]
    pub timeouts: Vec<TimeoutFile>,
    /// Rules that react to base-station commands.
    #[serde(default)]
    pub radio: Vec<RadioFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StateFile {
    /// Faces (0 = anchor, counter-clockwise) whose latch is on while unbonded.
    pub open: Vec<u8>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BondFile {
    /// Rule name.
    pub name: String,
    /// The two modules' states (`state` or `state@face`).
    pub when: [String; 2],
    /// The states the two modules take (keep the bond).
    #[serde(default)]
    #[serde(rename = "become")]
    pub next: Option<[String; 2]>,
    /// Let go instead (a wrong attachment).
    #[serde(default)]
    pub release: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TimeoutFile {
    /// Rule name.
    pub name: String,
    /// State it applies to.
    pub state: String,
    /// Time in the state before it fires, s.
    pub after: f64,
    /// New state.
    #[serde(rename = "become")]
    pub next: String,
    /// Let go of every bond.
    #[serde(default)]
    pub release: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RadioFile {
    /// Rule name.
    pub name: String,
    /// Command text the base station broadcasts.
    pub command: String,
    /// States it applies to; every state when empty.
    #[serde(default)]
    pub states: Vec<String>,
    /// New state.
    #[serde(rename = "become")]
    pub next: String,
    /// Let go of every bond.
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
