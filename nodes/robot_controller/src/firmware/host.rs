//! Many robots' controllers in one process, each fed only its own reading. A controller
//! can be stopped and restarted without touching the others.

use super::{ControllerError, Firmware, MhpReactive};
use crate::channel::Outbox;
use crate::io::{RobotCommand, Sensors};
use crate::lily::{LilyFirmware, Ruleset};
use flotilla_common::catalogue::ModuleKind;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the controllers are built from.
#[derive(Clone, Debug, Default)]
pub struct ControllerParams {
    /// Run seed; each robot's firmware draws from (seed, robot id).
    pub seed: u64,
    /// Ruleset of every Lily.
    pub lily_ruleset: Option<Arc<Ruleset>>,
}

/// Whether modules of `kind` run firmware (the others are passive objects).
pub fn has_firmware(kind: ModuleKind) -> bool {
    matches!(kind, ModuleKind::Lily | ModuleKind::MhpSquare | ModuleKind::MhpCube)
}

/// The firmware for robot `robot` (name, for errors) with id `id` of catalogue kind `kind`.
pub fn build_firmware(robot: &str, id: u32, kind: &str, params: &ControllerParams) -> Result<Box<dyn Firmware>, ControllerError> {
    let parsed: ModuleKind = kind.parse().map_err(|source| ControllerError::UnknownKind { robot: robot.to_owned(), source })?;
    match parsed {
        ModuleKind::Lily => {
            let rules = params.lily_ruleset.clone().ok_or_else(|| ControllerError::MissingRuleset { robot: robot.to_owned() })?;
            Ok(Box::new(LilyFirmware::new(rules, id, params.seed)))
        }
        ModuleKind::MhpSquare | ModuleKind::MhpCube => Ok(Box::new(MhpReactive)),
        other => Err(ControllerError::NoFirmware { robot: robot.to_owned(), kind: other.name().to_owned() }),
    }
}

/// One hosted robot.
struct Hosted {
    id: u32,
    kind: String,
    /// `None` while stopped.
    firmware: Option<Box<dyn Firmware>>,
    outbox: Outbox,
}

/// Whatever answers robots' readings with commands: a [`ControllerHost`] in-process, or a
/// transport to controllers elsewhere (the ROS topics).
pub trait RobotSide {
    /// The command of robot `robot` for its reading at `time` (s); `None` when its
    /// controller is down.
    fn command(&mut self, robot: &str, time: f64, sensors: &Sensors) -> Result<Option<RobotCommand>, ControllerError>;
}

impl RobotSide for ControllerHost {
    fn command(&mut self, robot: &str, time: f64, sensors: &Sensors) -> Result<Option<RobotCommand>, ControllerError> {
        self.tick(robot, time, sensors)
    }
}

/// Controllers of many robots, by robot name (its namespace).
pub struct ControllerHost {
    params: ControllerParams,
    robots: BTreeMap<String, Hosted>,
}

impl ControllerHost {
    /// An empty host building controllers from `params`.
    pub fn new(params: ControllerParams) -> Self {
        Self { params, robots: BTreeMap::new() }
    }

    /// Starts a controller for robot `name` with id `id` and catalogue kind `kind`.
    pub fn add(&mut self, name: &str, id: u32, kind: &str) -> Result<(), ControllerError> {
        if self.robots.contains_key(name) {
            return Err(ControllerError::DuplicateRobot { robot: name.to_owned() });
        }
        let firmware = build_firmware(name, id, kind, &self.params)?;
        tracing::info!(robot = name, id, kind, controller = %firmware.status(), "controller started");
        self.robots.insert(name.to_owned(), Hosted { id, kind: kind.to_owned(), firmware: Some(firmware), outbox: Outbox::new() });
        Ok(())
    }

    /// Removes robot `name`'s controller.
    pub fn remove(&mut self, name: &str) -> Result<(), ControllerError> {
        self.robots.remove(name).map(|_| ()).ok_or_else(|| self.no_such(name))
    }

    /// One control step of robot `name` from its reading. `None` while its controller is
    /// stopped (the robot's actuators keep their last command, like a real robot's).
    pub fn tick(&mut self, name: &str, time: f64, sensors: &Sensors) -> Result<Option<RobotCommand>, ControllerError> {
        let hosted = self.hosted_mut(name)?;
        let Some(firmware) = hosted.firmware.as_mut() else { return Ok(None) };
        let mut command = firmware.step(time, sensors, &mut hosted.outbox);
        let bytes = hosted.outbox.drain_encoded().map_err(|source| ControllerError::Outbox { robot: name.to_owned(), source })?;
        command.radio_tx.extend(bytes);
        Ok(Some(command))
    }

    /// Stops robot `name`'s controller (the others go on).
    pub fn stop(&mut self, name: &str) -> Result<(), ControllerError> {
        let hosted = self.hosted_mut(name)?;
        hosted.firmware = None;
        hosted.outbox = Outbox::new();
        tracing::info!(robot = name, "controller stopped");
        Ok(())
    }

    /// Starts robot `name`'s controller afresh (same seed and id: a reboot).
    pub fn restart(&mut self, name: &str) -> Result<(), ControllerError> {
        let params = self.params.clone();
        let hosted = self.hosted_mut(name)?;
        hosted.firmware = Some(build_firmware(name, hosted.id, &hosted.kind, &params)?);
        hosted.outbox = Outbox::new();
        tracing::info!(robot = name, "controller restarted");
        Ok(())
    }

    /// Whether robot `name`'s controller runs.
    pub fn is_running(&self, name: &str) -> Result<bool, ControllerError> {
        self.robots.get(name).map(|h| h.firmware.is_some()).ok_or_else(|| self.no_such(name))
    }

    /// Robot `name`'s controller state in words (`stopped` while stopped).
    pub fn status(&self, name: &str) -> Result<String, ControllerError> {
        let hosted = self.robots.get(name).ok_or_else(|| self.no_such(name))?;
        Ok(hosted.firmware.as_ref().map_or_else(|| "stopped".to_owned(), |f| f.status()))
    }

    /// Hosted robots: (name, id), by name.
    pub fn robots(&self) -> impl Iterator<Item = (&str, u32)> {
        self.robots.iter().map(|(name, h)| (name.as_str(), h.id))
    }

    fn hosted_mut(&mut self, name: &str) -> Result<&mut Hosted, ControllerError> {
        if !self.robots.contains_key(name) {
            return Err(self.no_such(name));
        }
        self.robots.get_mut(name).ok_or_else(|| no_such(name, std::iter::empty()))
    }

    fn no_such(&self, name: &str) -> ControllerError {
        no_such(name, self.robots.keys())
    }
}

fn no_such<'a>(name: &str, hosted: impl Iterator<Item = &'a String>) -> ControllerError {
    ControllerError::NoSuchRobot { robot: name.to_owned(), hosted: hosted.map(String::as_str).collect::<Vec<_>>().join(", ") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> ControllerParams {
        ControllerParams { seed: 1, lily_ruleset: Some(Arc::new(crate::lily::tests_support::chain4())) }
    }

    #[test]
    fn kinds_map_to_controllers_with_clear_errors() {
        let mut host = ControllerHost::new(params());
        host.add("lily_0", 0, "lily").unwrap();
        host.add("mhp_0", 1, "mhp_square").unwrap();
        let err = host.add("frog_0", 2, "frog").unwrap_err().to_string();
        assert!(err.contains("frog_0") && err.contains("unknown module kind `frog`") && err.contains("lily"), "{err}");
        let err = host.add("ball_0", 3, "ping_pong_ball").unwrap_err().to_string();
        assert!(err.contains("no firmware"), "{err}");
        let err = host.add("lily_0", 4, "lily").unwrap_err().to_string();
        assert!(err.contains("already"), "{err}");
        let mut bare = ControllerHost::new(ControllerParams::default());
        assert!(matches!(bare.add("lily_1", 0, "lily"), Err(ControllerError::MissingRuleset { .. })));
        assert_eq!(host.robots().collect::<Vec<_>>(), vec![("lily_0", 0), ("mhp_0", 1)]);
        for kind in ModuleKind::ALL {
            assert_eq!(has_firmware(kind), build_firmware("r", 0, kind.name(), &params()).is_ok(), "{kind}");
        }
    }

    #[test]
    fn ticks_stop_restart_and_unknown_robots() {
        let mut host = ControllerHost::new(params());
        host.add("lily_0", 0, "lily").unwrap();
        host.add("lily_1", 1, "lily").unwrap();
        let reading = Sensors { latched: vec![false; 4], ..Sensors::default() };
        let cmd = host.tick("lily_0", 0.0, &reading).unwrap().unwrap();
        // A free chain4 Lily opens all faces and reports to the base station.
        assert_eq!(cmd.latch, vec![true; 4]);
        assert!(!cmd.radio_tx.is_empty());
        host.stop("lily_0").unwrap();
        assert_eq!(host.tick("lily_0", 0.1, &reading).unwrap(), None);
        assert_eq!(host.status("lily_0").unwrap(), "stopped");
        assert!(host.tick("lily_1", 0.1, &reading).unwrap().is_some(), "the others go on");
        host.restart("lily_0").unwrap();
        assert!(host.is_running("lily_0").unwrap());
        assert_eq!(host.status("lily_0").unwrap(), "chain4:free");
        let err = host.tick("lily_9", 0.0, &reading).unwrap_err().to_string();
        assert!(err.contains("lily_9") && err.contains("lily_0, lily_1"), "{err}");
        assert!(host.stop("nobody").is_err() && host.restart("nobody").is_err() && host.remove("nobody").is_err());
        host.remove("lily_1").unwrap();
    }
}
