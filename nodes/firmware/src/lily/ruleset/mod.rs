//! Lily rulesets: data (YAML) that drives the Lily firmware. A module has a state; each
//! state opens some latch faces, counted counter-clockwise from the module's anchor (the
//! face of its first bond; 0 when it has none). When two open faces latch, both modules
//! exchange (state, face) over the latch channel and look up the first bond rule matching
//! the pair, in file order:
//!
//! ```yaml
//! bonds:
//!   - {name: pair, when: [free, free], become: [end, grow2]}   # keep, change states
//!   - {name: no_five, when: [grow3, grow2], release: true}       # wrong: let go
//! ```
//!
//! `state@face` in `when` also requires the bond's face relative to the anchor. A pair no
//! rule matches is released (a wrong attachment). Timeouts move a module on after a time
//! in one state, radio rules react to base-station commands; `release: true` there lets go
//! of every bond. A module that loses a bond it holds dissolves (initial state, releases
//! all), so a broken partial structure falls apart instead of freezing.

mod error;
mod file;
#[cfg(test)]
mod tests;

pub use error::RulesetError;

use super::shape::LatticeShape;
use file::RulesetFile;
use std::collections::BTreeMap;
use std::path::Path;

/// Index of a state in [`Ruleset::states`].
pub type StateId = u8;

/// Faces of a Lily (and every lattice module): relative faces are taken modulo this.
pub const FACES: u8 = 4;

/// One state of the module.
#[derive(Clone, Debug, PartialEq)]
pub struct StateDef {
    /// Name as written in the file.
    pub name: String,
    /// Per relative face (0 = anchor, counter-clockwise): latch on while unbonded.
    pub open: [bool; FACES as usize],
}

/// A state, optionally at one relative face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// Required state.
    pub state: StateId,
    /// Required face of the bond, relative to the anchor; any face when `None`.
    pub face: Option<u8>,
}

impl Pattern {
    fn matches(&self, side: Side) -> bool {
        self.state == side.state && self.face.is_none_or(|f| f == side.face)
    }
}

/// One module's side of a new bond.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// The module's state.
    pub state: StateId,
    /// The bond's face relative to the module's anchor.
    pub face: u8,
}

/// What a bond rule does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BondOutcome {
    /// Keep the bond; the modules matching `a` and `b` take these states.
    Become(StateId, StateId),
    /// Let go (a wrong attachment).
    Release,
}

/// A rule for a new bond between two modules.
#[derive(Clone, Debug, PartialEq)]
pub struct BondRule {
    /// Name (unique in the ruleset).
    pub name: String,
    /// First module.
    pub a: Pattern,
    /// Second module.
    pub b: Pattern,
    /// Keep (with new states) or release.
    pub outcome: BondOutcome,
}

/// Leave a state after a time in it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeoutRule {
    /// Name (unique in the ruleset).
    pub name: String,
    /// State it applies to.
    pub state: StateId,
    /// Time in the state before it fires, s.
    pub after: f64,
    /// New state.
    pub next: StateId,
    /// Whether to let go of every bond.
    pub release: bool,
}

/// React to a base-station command received over the radio.
#[derive(Clone, Debug, PartialEq)]
pub struct RadioRule {
    /// Name (unique in the ruleset).
    pub name: String,
    /// Command text the base station broadcasts.
    pub command: String,
    /// States it applies to; every state when empty.
    pub states: Vec<StateId>,
    /// New state.
    pub next: StateId,
    /// Whether to let go of every bond.
    pub release: bool,
}

/// The verdict on a new bond, the same on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BondDecision {
    /// Keep it and take this state (`rule` indexes [`Ruleset::bonds`]).
    Accept {
        /// The state to take.
        next: StateId,
        /// The rule that applied.
        rule: usize,
    },
    /// Let go; `rule` is the explicit release rule, `None` when no rule matched.
    Release {
        /// The release rule that applied, if any.
        rule: Option<usize>,
    },
}

/// A validated ruleset.
#[derive(Clone, Debug, PartialEq)]
pub struct Ruleset {
    /// Name, e.g. `chain4`.
    pub name: String,
    /// Free text.
    pub description: String,
    /// The structure the ruleset builds (lattice cells, up to rotation).
    pub target: LatticeShape,
    /// States; a [`StateId`] indexes this list (sorted by name).
    pub states: Vec<StateDef>,
    /// State at start and after dissolving.
    pub initial: StateId,
    /// A released latch stays off for U(min, max), s, so the modules drift apart.
    pub release_time: [f64; 2],
    /// A bond whose exchange is not complete after this long is released, s.
    pub handshake_timeout: f64,
    /// Period of state reports to the base station, s (also sent on every change).
    pub report_period: f64,
    /// Bond rules, first match wins.
    pub bonds: Vec<BondRule>,
    /// Timeouts, at most one per state.
    pub timeouts: Vec<TimeoutRule>,
    /// Radio command rules, first match wins.
    pub radio: Vec<RadioRule>,
}

/// The rulesets shipped in this repository's `config/rulesets/` (as built from the source
/// tree: the default of tools and tests run from it).
pub const SHIPPED_RULESETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/rulesets");

impl Ruleset {
    /// The shipped ruleset `name` (`chain4`, `square4`, ...) from [`SHIPPED_RULESETS`].
    pub fn shipped(name: &str) -> Result<Self, RulesetError> {
        Self::from_file(&Path::new(SHIPPED_RULESETS).join(format!("{name}.yaml")))
    }

    /// Reads and validates a ruleset file.
    pub fn from_file(path: &Path) -> Result<Self, RulesetError> {
        let text = std::fs::read_to_string(path).map_err(|source| RulesetError::Read { path: path.to_path_buf(), source })?;
        Self::from_yaml(&text, &path.display().to_string())
    }

    /// Parses and validates ruleset text; `origin` names it in errors.
    pub fn from_yaml(text: &str, origin: &str) -> Result<Self, RulesetError> {
        let file: RulesetFile = serde_yaml::from_str(text).map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            RulesetError::Syntax { origin: origin.to_owned(), line, column, message: e.to_string() }
        })?;
        Compiler { text, origin }.compile(file)
    }

    /// Id of the state called `name`.
    pub fn state_id(&self, name: &str) -> Option<StateId> {
        self.states.iter().position(|s| s.name == name).map(|i| i as StateId)
    }

    /// Name of state `id` (`?` if out of range).
    pub fn state_name(&self, id: StateId) -> &str {
        self.states.get(id as usize).map_or("?", |s| s.name.as_str())
    }

    /// The verdict on a new bond between `me` and `other`. Both modules compute it from the
    /// same exchanged data and reach the same rule; when a rule matches both ways round
    /// (`[free, free]`), the module with the lower robot id takes role `a`.
    pub fn bond_decision(&self, me: Side, other: Side, me_lower_id: bool) -> BondDecision {
        for (i, rule) in self.bonds.iter().enumerate() {
            let as_a = rule.a.matches(me) && rule.b.matches(other);
            let as_b = rule.b.matches(me) && rule.a.matches(other);
            if !(as_a || as_b) {
                continue;
            }
            return match rule.outcome {
                BondOutcome::Release => BondDecision::Release { rule: Some(i) },
                BondOutcome::Become(c, d) => {
                    let role_a = if as_a && as_b { me_lower_id } else { as_a };
                    BondDecision::Accept { next: if role_a { c } else { d }, rule: i }
                }
            };
        }
        BondDecision::Release { rule: None }
    }

    /// The timeout rule of `state`, if any.
    pub fn timeout_for(&self, state: StateId) -> Option<&TimeoutRule> {
        self.timeouts.iter().find(|t| t.state == state)
    }

    /// The first radio rule for `command` that applies in `state`.
    pub fn radio_rule(&self, command: &str, state: StateId) -> Option<&RadioRule> {
        self.radio.iter().find(|r| r.command == command && (r.states.is_empty() || r.states.contains(&state)))
    }
}

/// Validation with access to the text for line numbers.
struct Compiler<'a> {
    text: &'a str,
    origin: &'a str,
}

impl Compiler<'_> {
    fn invalid(&self, item: impl Into<String>, needle: &str, message: impl Into<String>) -> RulesetError {
        RulesetError::Invalid {
            origin: self.origin.to_owned(),
            line: line_of(self.text, needle),
            item: item.into(),
            message: message.into(),
        }
    }

    fn compile(&self, file: RulesetFile) -> Result<Ruleset, RulesetError> {
        if file.name.trim().is_empty() {
            return Err(self.invalid("name", "name:", "must not be empty"));
        }
        let target = LatticeShape::from_cells(&file.target).map_err(|e| self.invalid("target", "target:", e.to_string()))?;
        let states = self.states(&file)?;
        let names: BTreeMap<&str, StateId> = states.iter().enumerate().map(|(i, s)| (s.name.as_str(), i as StateId)).collect();
        let lookup = |item: &str, needle: &str, name: &str| {
            names.get(name).copied().ok_or_else(|| {
                let known = names.keys().copied().collect::<Vec<_>>().join(", ");
                self.invalid(item, needle, format!("unknown state `{name}` (states: {known})"))
            })
        };
        let initial = lookup("initial", "initial:", &file.initial)?;
        let [lo, hi] = file.release_time;
        if !(lo.is_finite() && hi.is_finite() && 0.0 <= lo && lo <= hi) {
            return Err(self.invalid("release_time", "release_time:", format!("needs 0 <= min <= max (s), got [{lo}, {hi}]")));
        }
        for (key, value) in [("handshake_timeout", file.handshake_timeout), ("report_period", file.report_period)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(self.invalid(key, &format!("{key}:"), format!("must be a positive time (s), got {value}")));
            }
        }
        let mut rule_names: BTreeMap<String, String> = BTreeMap::new();
        let mut claim = |section: &str, name: &str| -> Result<String, RulesetError> {
            let item = format!("{section} rule `{name}`");
            if name.trim().is_empty() {
                return Err(self.invalid(format!("{section} rule"), "name:", "has an empty name"));
            }
            if let Some(first) = rule_names.insert(name.to_owned(), item.clone()) {
                return Err(self.invalid(item, &format!("name: {name}"), format!("the name is already used by {first}")));
            }
            Ok(item)
        };
        let mut bonds: Vec<BondRule> = Vec::new();
        for rule in &file.bonds {
            let item = claim("bonds", &rule.name)?;
            let needle = format!("name: {}", rule.name);
            let pattern = |text: &str| -> Result<Pattern, RulesetError> {
                let (state, face) = match text.split_once('@') {
                    Some((s, f)) => {
                        let face =
                            f.parse::<u8>().ok().filter(|f| *f < FACES).ok_or_else(|| {
                                self.invalid(&item, &needle, format!("`{text}`: the face after @ must be 0..{}", FACES - 1))
                            })?;
                        (s, Some(face))
                    }
                    None => (text, None),
                };
                Ok(Pattern { state: lookup(&item, &needle, state)?, face })
            };
            let (a, b) = (pattern(&rule.when[0])?, pattern(&rule.when[1])?);
            let outcome = match (&rule.next, rule.release) {
                (Some([c, d]), false) => BondOutcome::Become(lookup(&item, &needle, c)?, lookup(&item, &needle, d)?),
                (None, true) => BondOutcome::Release,
                _ => return Err(self.invalid(&item, &needle, "give exactly one of `become: [a, b]` or `release: true`")),
            };
            if let Some(earlier) = bonds.iter().find(|r| (r.a == a && r.b == b) || (r.a == b && r.b == a)) {
                return Err(self.invalid(
                    &item,
                    &needle,
                    format!("never applies: bonds rule `{}` matches the same pair first", earlier.name),
                ));
            }
            bonds.push(BondRule { name: rule.name.clone(), a, b, outcome });
        }
        let mut timeouts: Vec<TimeoutRule> = Vec::new();
        for rule in &file.timeouts {
            let item = claim("timeouts", &rule.name)?;
            let needle = format!("name: {}", rule.name);
            let state = lookup(&item, &needle, &rule.state)?;
            if !(rule.after.is_finite() && rule.after > 0.0) {
                return Err(self.invalid(&item, &needle, format!("`after` must be a positive time (s), got {}", rule.after)));
            }
            if let Some(other) = timeouts.iter().find(|t| t.state == state) {
                return Err(self.invalid(&item, &needle, format!("state `{}` already has timeout `{}`", rule.state, other.name)));
            }
            let next = lookup(&item, &needle, &rule.next)?;
            timeouts.push(TimeoutRule { name: rule.name.clone(), state, after: rule.after, next, release: rule.release });
        }
        let mut radio = Vec::new();
        for rule in &file.radio {
            let item = claim("radio", &rule.name)?;
            let needle = format!("name: {}", rule.name);
            if rule.command.is_empty() || rule.command.len() > 64 {
                return Err(self.invalid(&item, &needle, "`command` must be 1 to 64 bytes"));
            }
            let states = rule.states.iter().map(|s| lookup(&item, &needle, s)).collect::<Result<Vec<_>, _>>()?;
            let next = lookup(&item, &needle, &rule.next)?;
            // The first rule for a command that applies wins: a later one for the same
            // command in an overlapping set of states (empty = every state) never runs.
            let overlaps = |other: &RadioRule| {
                other.command == rule.command
                    && (other.states.is_empty() || states.is_empty() || other.states.iter().any(|s| states.contains(s)))
            };
            if let Some(earlier) = radio.iter().find(|r: &&RadioRule| overlaps(r)) {
                return Err(self.invalid(
                    &item,
                    &needle,
                    format!("never applies: radio rule `{}` handles command `{}` in the same states first", earlier.name, rule.command),
                ));
            }
            radio.push(RadioRule { name: rule.name.clone(), command: rule.command.clone(), states, next, release: rule.release });
        }
        Ok(Ruleset {
            name: file.name,
            description: file.description,
            target,
            states,
            initial,
            release_time: file.release_time,
            handshake_timeout: file.handshake_timeout,
            report_period: file.report_period,
            bonds,
            timeouts,
            radio,
        })
    }

    fn states(&self, file: &RulesetFile) -> Result<Vec<StateDef>, RulesetError> {
        if file.states.is_empty() || file.states.len() > usize::from(StateId::MAX) {
            return Err(self.invalid("states", "states:", format!("needs 1 to {} states, got {}", StateId::MAX, file.states.len())));
        }
        file.states
            .iter()
            .map(|(name, state)| {
                let item = format!("state `{name}`");
                let needle = format!("{name}:");
                if name.is_empty() || name.contains('@') || name.contains(char::is_whitespace) {
                    return Err(self.invalid(&item, &needle, "a state name must be non-empty, without `@` or spaces"));
                }
                let mut open = [false; FACES as usize];
                for &face in &state.open {
                    let slot = open
                        .get_mut(face as usize)
                        .ok_or_else(|| self.invalid(&item, &needle, format!("open face {face} is not in 0..{}", FACES - 1)))?;
                    if *slot {
                        return Err(self.invalid(&item, &needle, format!("open face {face} is listed twice")));
                    }
                    *slot = true;
                }
                Ok(StateDef { name: name.clone(), open })
            })
            .collect()
    }
}

/// 1-based line of the first line containing `needle` (0 if none): best effort, enough to
/// point at a named rule or a top-level key.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).map_or(0, |i| i + 1)
}
