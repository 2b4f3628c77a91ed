//! The Bluebot behaviour a controller process runs, from its `bluebot` parameter section:
//! `behaviour` names it (`sync`, `dispersion`, `milling`, `search`) and every other key is
//! one of that behaviour's scalar parameters (`target_distance` = d_t in m, `alpha` in rad,
//! ...). The same section, filled with every parameter, is what the node serves as ROS
//! parameters; each scalar can change while running.

use flotilla_common::params::{as_written, ParamError};
use flotilla_firmware::bluebot::Behaviour;
use serde_yaml::{Mapping, Value};

/// The parameter section's key.
pub const SECTION: &str = "bluebot";

/// The behaviour of a `bluebot` section (`None` for an empty or absent section); errors
/// name `bluebot.<key>`.
pub fn behaviour_from_section(section: &Mapping) -> Result<Option<Behaviour>, ParamError> {
    if section.is_empty() {
        return Ok(None);
    }
    let name = match section.get("behaviour") {
        Some(Value::String(s)) => s.as_str(),
        Some(v) => return Err(ParamError::invalid("bluebot.behaviour", format!("must be a behaviour name, got {}", as_written(v)))),
        None => return Err(ParamError::invalid("bluebot.behaviour", "missing: give sync, dispersion, milling or search")),
    };
    let behaviour = Behaviour::by_name(name).map_err(|e| ParamError::invalid("bluebot.behaviour", e))?;
    let mut values = Vec::new();
    for (key, value) in section {
        let key = key.as_str().unwrap_or_default();
        if key == "behaviour" {
            continue;
        }
        let at = format!("{SECTION}.{key}");
        let number = number(value).ok_or_else(|| ParamError::invalid(&at, format!("must be a number, got {}", as_written(value))))?;
        if !behaviour.scalars().iter().any(|(k, _)| *k == key) {
            // The behaviour's own message lists the names it has.
            return Err(ParamError::invalid(&at, behaviour.with(key, number).err().unwrap_or_default()));
        }
        values.push((key, number, at));
    }
    let all: Vec<(&str, f64)> = values.iter().map(|(k, v, _)| (*k, *v)).collect();
    match behaviour.with_all(&all) {
        Ok(b) => Ok(Some(b)),
        Err(e) => {
            // Name the key whose value the message mentions, else the section.
            let at =
                values.iter().find(|(k, _, _)| e.contains(&format!(" {k} "))).map_or_else(|| SECTION.to_owned(), |(_, _, at)| at.clone());
            Err(ParamError::invalid(at, e))
        }
    }
}

/// A parameter value as a number: YAML numbers, and strings a launcher passed through
/// (`"0.26"`, `"inf"`).
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
}

/// The section that states `behaviour` in full: its name and every scalar parameter.
pub fn section_of(behaviour: &Behaviour) -> Mapping {
    let mut section = Mapping::new();
    section.insert("behaviour".into(), behaviour.name().into());
    for (key, value) in behaviour.scalars() {
        section.insert(key.into(), value.into());
    }
    section
}

/// The scalar parameters that differ between `from` and `to` (same behaviour), with their
/// new values; an error when the behaviour itself changed.
pub fn changes(from: &Behaviour, to: &Behaviour) -> Result<Vec<(&'static str, f64)>, String> {
    if from.name() != to.name() {
        return Err(format!("bluebot.behaviour cannot change while running ({} -> {}); restart the controller", from.name(), to.name()));
    }
    let before = from.scalars();
    Ok(to.scalars().into_iter().zip(before).filter(|((_, new), (_, old))| new.to_bits() != old.to_bits()).map(|(n, _)| n).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(yaml: &str) -> Mapping {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn sections_build_behaviours_and_bad_ones_name_the_key() {
        assert_eq!(behaviour_from_section(&Mapping::new()).unwrap(), None);
        let b = behaviour_from_section(&section("{behaviour: milling, alpha: 0.2, rho: '0.09'}")).unwrap().unwrap();
        assert!(b.scalars().contains(&("alpha", 0.2)) && b.scalars().contains(&("rho", 0.09)));
        let d = behaviour_from_section(&section("{behaviour: dispersion, target_distance: .inf}")).unwrap().unwrap();
        assert!(d.scalars().contains(&("target_distance", f64::INFINITY)));
        for (yaml, needle) in [
            ("{behaviour: schooling}", "unknown Bluebot behaviour `schooling`"),
            ("{alpha: 0.2}", "bluebot.behaviour"),
            ("{behaviour: 3}", "bluebot.behaviour"),
            ("{behaviour: milling, alpha: 2}", "bluebot.alpha"),
            ("{behaviour: milling, alpha: wide}", "must be a number"),
            ("{behaviour: milling, target_distance: 1}", "milling has no parameter `target_distance`"),
            ("{behaviour: dispersion, target_distance: -1}", "target_distance must be > 0"),
            // Regression: these were accepted (an infinite vertical speed made every
            // dorsal command NaN) or refused naming another key.
            ("{behaviour: dispersion, vertical_speed: .inf}", "parameter `bluebot.vertical_speed`"),
            ("{behaviour: dispersion, max_depth: .inf}", "parameter `bluebot.max_depth`"),
            ("{behaviour: dispersion, full_speed_force: .inf}", "parameter `bluebot.full_speed_force`"),
            ("{behaviour: dispersion, dead_band: .nan}", "parameter `bluebot.dead_band`"),
            ("{behaviour: dispersion, min_depth: .nan}", "parameter `bluebot.min_depth`"),
        ] {
            let err = behaviour_from_section(&section(yaml)).unwrap_err().to_string();
            assert!(err.contains(needle), "{yaml}: {err}");
        }
    }

    #[test]
    fn full_sections_round_trip_and_changes_are_the_differing_scalars() {
        for name in ["sync", "dispersion", "milling", "search"] {
            let b = Behaviour::by_name(name).unwrap();
            assert_eq!(behaviour_from_section(&section_of(&b)).unwrap(), Some(b));
        }
        let m = Behaviour::by_name("milling").unwrap();
        assert_eq!(changes(&m, &m.with("alpha", 0.3).unwrap()).unwrap(), vec![("alpha", 0.3)]);
        assert!(changes(&m, &Behaviour::by_name("sync").unwrap()).unwrap_err().contains("cannot change while running"));
    }
}
