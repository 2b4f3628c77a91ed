//! The base station: broadcasts commands to the Lilies over the radio, collects their state
//! reports, and drives the pumps (centralised stirring control, [`PumpSchedule`]).

mod stirring;

pub use stirring::{PumpSchedule, PumpStep};

use crate::lily::{LilyMessage, Ruleset, StateId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The latest report of one robot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RobotReport {
    /// The robot's state (index into the ruleset's states).
    pub state: StateId,
    /// Bit mask of bonded faces (bit k = face k).
    pub bonded: u8,
}

/// Why the station refused something.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StationError {
    /// A command the Lilies cannot carry.
    #[error("base-station command `{command}`: {message}")]
    BadCommand {
        /// The command text.
        command: String,
        /// What is wrong.
        message: String,
    },
    /// A pump schedule that cannot be applied.
    #[error("pump schedule step {index}: {message}")]
    BadSchedule {
        /// Index of the step.
        index: usize,
        /// What is wrong.
        message: String,
    },
}

/// The base station of a Lily run.
#[derive(Clone, Debug)]
pub struct BaseStation {
    state_names: Vec<String>,
    commands: Vec<String>,
    reports: BTreeMap<u32, RobotReport>,
}

impl BaseStation {
    /// A station that understands `ruleset`'s states and commands.
    pub fn new(ruleset: &Ruleset) -> Self {
        Self {
            state_names: ruleset.states.iter().map(|s| s.name.clone()).collect(),
            commands: ruleset.radio.iter().map(|r| r.command.clone()).collect(),
            reports: BTreeMap::new(),
        }
    }

    /// Radio payload of command `text` (for [`tank_physics::robots::RobotBus::broadcast`]). Commands the
    /// ruleset has no rule for are refused, naming the known ones.
    pub fn command(&self, text: &str) -> Result<Vec<u8>, StationError> {
        if !self.commands.iter().any(|c| c == text) {
            return Err(StationError::BadCommand {
                command: text.to_owned(),
                message: format!("the ruleset reacts only to: {}", self.commands.join(", ")),
            });
        }
        tracing::info!(command = text, "broadcast");
        Ok(LilyMessage::Command(text.to_owned()).encode())
    }

    /// Takes in radio messages (sender id, payload); keeps each robot's latest report.
    pub fn receive(&mut self, uplink: Vec<(u32, Vec<u8>)>) {
        for (robot, payload) in uplink {
            match LilyMessage::decode(&payload) {
                Ok(LilyMessage::Report { state, bonded }) => {
                    self.reports.insert(robot, RobotReport { state, bonded });
                }
                Ok(other) => tracing::warn!(robot, ?other, "unexpected radio message"),
                Err(error) => tracing::warn!(robot, %error, "unreadable radio message"),
            }
        }
    }

    /// The latest report of every robot heard from, by id.
    pub fn reports(&self) -> &BTreeMap<u32, RobotReport> {
        &self.reports
    }

    /// How many robots last reported each state, by state name.
    pub fn state_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for report in self.reports.values() {
            let name = self.state_names.get(report.state as usize).cloned().unwrap_or_else(|| format!("#{}", report.state));
            *counts.entry(name).or_insert(0) += 1;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_support::chain4;

    #[test]
    fn collects_reports_and_refuses_unknown_commands() {
        let rules = chain4();
        let mut station = BaseStation::new(&rules);
        let free = rules.state_id("free").unwrap();
        let mid = rules.state_id("mid").unwrap();
        station.receive(vec![
            (1, LilyMessage::Report { state: free, bonded: 0 }.encode()),
            (2, LilyMessage::Report { state: mid, bonded: 0b0101 }.encode()),
            (3, vec![99]),
            (1, LilyMessage::Report { state: mid, bonded: 0b0001 }.encode()),
        ]);
        assert_eq!(station.reports().len(), 2);
        assert_eq!(station.reports()[&2], RobotReport { state: mid, bonded: 5 });
        assert_eq!(station.state_counts(), BTreeMap::from([("mid".to_owned(), 2)]));
        assert_eq!(station.command("dissolve").unwrap(), LilyMessage::Command("dissolve".into()).encode());
        let err = station.command("explode").unwrap_err().to_string();
        assert!(err.contains("explode") && err.contains("dissolve"), "{err}");
    }
}
