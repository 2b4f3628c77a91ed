//! Which robots a controller process hosts: named robots, every robot of a kind seen in the
//! world, or robots given in full (`name:kind:id`, for hardware that no `/tank/state`
//! describes).

/// One entry of the `robots` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RobotEntry {
    /// A robot by name; its kind and id come from the world's state.
    Named(String),
    /// A robot given in full.
    Full {
        /// Name (its ROS namespace).
        name: String,
        /// Catalogue kind.
        kind: String,
        /// Unique robot id (seeds its firmware, sent in Lily offers).
        id: u32,
    },
}

/// An entry that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("robots[{index}] = `{text}`: {message} (expected `name` or `name:kind:id`)")]
pub struct SelectionError {
    /// Position in the list.
    pub index: usize,
    /// The entry as given.
    pub text: String,
    /// What is wrong.
    pub message: String,
}

/// Errors unless `kind` is a catalogue module kind: a kind no module has would make a
/// controller that silently controls nothing.
pub fn check_kind(kind: &str) -> Result<(), String> {
    kind.parse::<flotilla_common::catalogue::ModuleKind>().map(|_| ()).map_err(|_| {
        let known: Vec<&str> = flotilla_common::catalogue::ModuleKind::ALL.iter().map(|m| m.name()).collect();
        format!("unknown module kind `{kind}`; known: {}", known.join(", "))
    })
}

/// The robots one controller process runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Listed robots, in order.
    pub entries: Vec<RobotEntry>,
    /// Every robot of this kind in the world (none when `None`).
    pub kind: Option<String>,
}

impl Selection {
    /// Reads the `robots` list and the `kind` filter ("" = none).
    pub fn parse(robots: &[String], kind: &str) -> Result<Self, SelectionError> {
        let mut entries = Vec::with_capacity(robots.len());
        for (index, text) in robots.iter().enumerate() {
            let error = |message: &str| SelectionError { index, text: text.clone(), message: message.to_owned() };
            let parts: Vec<&str> = text.split(':').collect();
            let valid_name = |n: &str| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !n.starts_with(|c: char| c.is_ascii_digit())
            };
            if !valid_name(parts[0]) {
                return Err(error("a robot name is letters, digits and `_`, not starting with a digit"));
            }
            let entry = match parts.as_slice() {
                [name] => RobotEntry::Named((*name).to_owned()),
                [name, kind, id] if !kind.is_empty() => {
                    let id = id.parse().map_err(|_| error("the id must be a whole number >= 0"))?;
                    RobotEntry::Full { name: (*name).to_owned(), kind: (*kind).to_owned(), id }
                }
                _ => return Err(error("wrong number of `:` fields")),
            };
            if entries.iter().any(|e: &RobotEntry| e.name() == entry.name()) {
                return Err(error("listed twice"));
            }
            entries.push(entry);
        }
        Ok(Self { entries, kind: (!kind.is_empty()).then(|| kind.to_owned()) })
    }

    /// Whether a module of the world (`name`, `kind`) is one of these robots.
    pub fn wants(&self, name: &str, kind: &str) -> bool {
        self.kind.as_deref() == Some(kind) || self.entries.iter().any(|e| matches!(e, RobotEntry::Named(n) if n == name))
    }

    /// Whether nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.kind.is_none()
    }
}

impl RobotEntry {
    /// The robot's name.
    pub fn name(&self) -> &str {
        match self {
            RobotEntry::Named(name) | RobotEntry::Full { name, .. } => name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn entries_and_kind_filter() {
        let s = Selection::parse(&list(&["lily_0", "frog_1:frog:99"]), "mhp_square").unwrap();
        assert_eq!(s.entries[1], RobotEntry::Full { name: "frog_1".into(), kind: "frog".into(), id: 99 });
        assert!(s.wants("lily_0", "lily") && s.wants("m_3", "mhp_square"));
        assert!(!s.wants("lily_1", "lily") && !s.wants("frog_1", "frog"), "full entries are not looked up");
        assert!(Selection::parse(&[], "").unwrap().is_empty());
    }

    #[test]
    fn bad_entries_name_index_and_text() {
        for (bad, why) in
            [("lily_0:lily", "number of"), ("lily_0:lily:x", "whole number"), ("0lily", "name"), ("", "name"), ("a::3", "number of")]
        {
            let err = Selection::parse(&list(&["ok", bad]), "").unwrap_err().to_string();
            assert!(err.contains("robots[1]") && err.contains(why), "{bad}: {err}");
        }
        let err = Selection::parse(&list(&["a", "a:lily:1"]), "").unwrap_err().to_string();
        assert!(err.contains("twice"), "{err}");
    }

    /// Issue 21 item 9: `kind:=frog` started a controller that controls nothing.
    #[test]
    fn item9_unknown_kind_is_refused() {
        let msg = check_kind("frog").unwrap_err();
        assert!(msg.contains("frog") && msg.contains("lily"), "{msg}");
        assert!(check_kind("lily").is_ok());
    }
}
