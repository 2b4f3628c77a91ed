//! Many robots' controllers in one process, each fed only its own reading. A controller
//! can be stopped and restarted without touching the others.

use super::ControllerError;
use flotilla_common::catalogue::ModuleKind;
use flotilla_contract::{Actuation, AnyFirmware, Reading};
use flotilla_firmware::registry::{self, FirmwareParams};
use std::collections::BTreeMap;

/// What the controllers are built from (the firmware registry's parameters).
pub type ControllerParams = FirmwareParams;

/// Whether modules of `kind` run firmware built from configuration (the others are
/// passive objects, or robots whose controllers come from elsewhere).
pub fn has_firmware(kind: ModuleKind) -> bool {
    kind.system().is_some_and(|s| registry::SYSTEMS_WITH_FIRMWARE.contains(&s))
}

/// The firmware for robot `robot` (name, for errors) with id `id` of catalogue kind `kind`.
pub fn build_firmware(robot: &str, id: u32, kind: &str, params: &ControllerParams) -> Result<Box<dyn AnyFirmware>, ControllerError> {
    let parsed: ModuleKind = kind.parse().map_err(|source| ControllerError::UnknownKind { robot: robot.to_owned(), source })?;
    let system = parsed.system().ok_or_else(|| ControllerError::NoFirmware { robot: robot.to_owned(), kind: parsed.name().to_owned() })?;
    registry::build(system, id, params).map_err(|source| ControllerError::Build { robot: robot.to_owned(), source })
}

/// One hosted robot.
struct Hosted {
    id: u32,
    kind: String,
    /// `None` while stopped.
    firmware: Option<Box<dyn AnyFirmware>>,
}

/// Whatever answers robots' readings with commands: a [`ControllerHost`] in-process, or a
/// transport to controllers elsewhere (the ROS topics).
pub trait RobotSide {
    /// The command of robot `robot` for its reading at `time` (s); `None` when its
    /// controller is down.
    fn command(&mut self, robot: &str, time: f64, reading: &Reading) -> Result<Option<Actuation>, ControllerError>;
}

impl RobotSide for ControllerHost {
    fn command(&mut self, robot: &str, time: f64, reading: &Reading) -> Result<Option<Actuation>, ControllerError> {
        self.tick(robot, time, reading)
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
        self.robots.insert(name.to_owned(), Hosted { id, kind: kind.to_owned(), firmware: Some(firmware) });
        Ok(())
    }

    /// Keeps MHP robot `id`'s thruster layout for the controllers built from one
    /// ([`flotilla_firmware::registry::MhpController::needs_layout`]); give it before
    /// [`ControllerHost::add`].
    pub fn set_mhp_layout(&mut self, id: u32, layout: flotilla_contract::mhp::MhpLayout) {
        self.params.mhp_layouts.insert(id, std::sync::Arc::new(layout));
    }

    /// Whether this host's MHP controllers are built from the robot's layout.
    pub fn mhp_needs_layout(&self) -> bool {
        self.params.mhp.needs_layout()
    }

    /// Removes robot `name`'s controller.
    pub fn remove(&mut self, name: &str) -> Result<(), ControllerError> {
        self.robots.remove(name).map(|_| ()).ok_or_else(|| self.no_such(name))
    }

    /// One control step of robot `name` from its reading. `None` while its controller is
    /// stopped (the robot's actuators keep their last command, like a real robot's).
    pub fn tick(&mut self, name: &str, time: f64, reading: &Reading) -> Result<Option<Actuation>, ControllerError> {
        let hosted = self.hosted_mut(name)?;
        let Some(firmware) = hosted.firmware.as_mut() else { return Ok(None) };
        firmware.step(time, reading).map(Some).map_err(|source| ControllerError::WrongReading { robot: name.to_owned(), source })
    }

    /// Stops robot `name`'s controller (the others go on).
    pub fn stop(&mut self, name: &str) -> Result<(), ControllerError> {
        let hosted = self.hosted_mut(name)?;
        hosted.firmware = None;
        tracing::info!(robot = name, "controller stopped");
        Ok(())
    }

    /// Starts robot `name`'s controller afresh (same seed and id: a reboot).
    pub fn restart(&mut self, name: &str) -> Result<(), ControllerError> {
        let params = self.params.clone();
        let hosted = self.hosted_mut(name)?;
        hosted.firmware = Some(build_firmware(name, hosted.id, &hosted.kind, &params)?);
        tracing::info!(robot = name, "controller restarted");
        Ok(())
    }

    /// Changes the Bluebots' live behaviour parameter `name` to `value`: every running
    /// Bluebot controller keeps its state and takes the value at once, a stopped one gets it
    /// when restarted. Refused (nothing changes) when no Bluebot behaviour is configured or
    /// the value is out of range; returns how many running controllers took it.
    pub fn set_bluebot_parameter(&mut self, name: &str, value: f64) -> Result<usize, String> {
        let behaviour = self.params.bluebot.ok_or("no Bluebot behaviour is configured (parameter bluebot.behaviour)")?;
        let updated = behaviour.with(name, value)?;
        let mut running = 0;
        for (robot, hosted) in &mut self.robots {
            let Some(fw) = hosted.firmware.as_mut().filter(|f| f.system() == flotilla_contract::System::Bluebot) else { continue };
            fw.set_parameter(name, value).map_err(|e| format!("robot `{robot}`: {e}"))?;
            running += 1;
        }
        self.params.bluebot = Some(updated);
        tracing::info!(parameter = name, value, robots = running, "Bluebot behaviour parameter changed");
        Ok(running)
    }

    /// Whether robot `name` is hosted here (running or stopped).
    pub fn hosts(&self, name: &str) -> bool {
        self.robots.contains_key(name)
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

    use crate::tests_support::chain4;
    use flotilla_contract::lily::LilySensors;
    use std::sync::Arc;

    fn params() -> ControllerParams {
        let bluebot = flotilla_firmware::bluebot::Behaviour::by_name("milling").ok();
        ControllerParams { seed: 1, lily_ruleset: Some(Arc::new(chain4())), bluebot, ..ControllerParams::default() }
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
        let err = host.add("kb_0", 5, "kilobot").unwrap_err().to_string();
        assert!(err.contains("kb_0") && err.contains("no firmware for kilobot"), "{err}");
        let err = host.add("lily_0", 4, "lily").unwrap_err().to_string();
        assert!(err.contains("already"), "{err}");
        let mut bare = ControllerHost::new(ControllerParams::default());
        assert!(bare.add("lily_1", 0, "lily").unwrap_err().to_string().contains("needs a ruleset"));
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
        let reading = Reading::Lily(LilySensors { latched: vec![false; 4], ..LilySensors::default() });
        let Some(Actuation::Lily(cmd)) = host.tick("lily_0", 0.0, &reading).unwrap() else { panic!("a Lily command") };
        // A free chain4 Lily opens all faces and reports to the base station.
        assert_eq!(cmd.latch, vec![true; 4]);
        assert!(!cmd.radio_tx.is_empty());
        host.stop("lily_0").unwrap();
        assert_eq!(host.tick("lily_0", 0.1, &reading).unwrap(), None);
        assert_eq!(host.status("lily_0").unwrap(), "stopped");
        assert!(host.tick("lily_1", 0.1, &reading).unwrap().is_some(), "the others go on");
        host.restart("lily_0").unwrap();
        assert!(host.is_running("lily_0").unwrap());
        assert!(host.hosts("lily_0") && !host.hosts("lily_9"));
        assert_eq!(host.status("lily_0").unwrap(), "chain4:free");
        let err = host.tick("lily_9", 0.0, &reading).unwrap_err().to_string();
        assert!(err.contains("lily_9") && err.contains("lily_0, lily_1"), "{err}");
        assert!(host.stop("nobody").is_err() && host.restart("nobody").is_err() && host.remove("nobody").is_err());
        let mhp = Reading::Mhp(Default::default());
        let err = host.tick("lily_1", 0.2, &mhp).unwrap_err().to_string();
        assert!(err.contains("lily_1") && err.contains("mhp reading cannot drive lily"), "{err}");
        host.remove("lily_1").unwrap();
    }

    #[test]
    fn bluebot_parameters_change_running_controllers_and_bad_values_change_nothing() {
        use flotilla_contract::bluebot::{BluebotSensors, Neighbour};
        let mut host = ControllerHost::new(params());
        host.add("bb_0", 0, "bluebot").unwrap();
        host.add("bb_1", 1, "bluebot").unwrap();
        host.stop("bb_1").unwrap();
        // A neighbour 0.4 rad to the left: outside the pi/12 wedge (with rho widening at 1 m)
        // it is not seen (clockwise: left pectoral); a 0.5 rad wedge sees it.
        let reading = Reading::Bluebot(BluebotSensors {
            depth: 0.3,
            neighbours: vec![Neighbour { azimuth: 0.4, elevation: 0.0, distance: 1.0 }],
            ..BluebotSensors::default()
        });
        let pectorals = |host: &mut ControllerHost, robot: &str, t: f64| match host.tick(robot, t, &reading).unwrap() {
            Some(Actuation::Bluebot(c)) => (c.pectoral_left > 0.0, c.pectoral_right > 0.0),
            other => panic!("{other:?}"),
        };
        assert_eq!(pectorals(&mut host, "bb_0", 0.0), (true, false), "clear: clockwise");
        assert_eq!(host.set_bluebot_parameter("alpha", 0.5), Ok(1), "one running Bluebot");
        assert_eq!(pectorals(&mut host, "bb_0", 0.5), (false, true), "seen: counter-clockwise");
        let err = host.set_bluebot_parameter("alpha", 2.0).unwrap_err();
        assert!(err.contains("alpha must be in (0, pi/2)"), "{err}");
        assert!(host.set_bluebot_parameter("target_distance", 1.0).unwrap_err().contains("known: alpha"));
        assert_eq!(pectorals(&mut host, "bb_0", 1.0), (false, true), "the refused value changed nothing");
        host.restart("bb_1").unwrap();
        assert_eq!(pectorals(&mut host, "bb_1", 1.5), (false, true), "a restarted robot gets the new alpha");
        let mut bare = ControllerHost::new(ControllerParams { seed: 1, ..ControllerParams::default() });
        assert!(bare.set_bluebot_parameter("alpha", 0.3).unwrap_err().contains("bluebot.behaviour"));
    }
}
