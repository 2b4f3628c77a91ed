//! The robots' side of the world: what each robot's own sensors report ([`sensing`] and
//! the per-system sensor models in [`crate::systems`]), the Lily latch channel and
//! base-station radio ([`Mailroom`]), and what the world does with a robot's command
//! ([`RobotBus::apply`]). In-process batch runs and the `tank_physics` node both go
//! through [`RobotBus`], so a reading or a delivered message is the same wherever the
//! firmware runs. Readings and commands are the hardware contract's types
//! (`flotilla_contract`), wrapped as [`Reading`] / [`Actuation`] to serve every system.
//!
//! Lily radio convention: every byte stream is framed `[port u8][length u16 LE][payload]`
//! (`flotilla_contract::frame`); ports 0..=254 are latch faces (inductive channel to the
//! latched neighbour), 255 the radio link to or from the base station. Messages posted
//! during one control step arrive with the receiver's next reading.

mod mailroom;
pub mod sensing;

pub use mailroom::Mailroom;
pub use sensing::{sense, sensors_for, LightSpot, SensingConfig, SensingContext, SensingError, SensingIndex, SensingSnapshot};

use crate::{BodyState, PhysicsError, World};
use flotilla_contract::{Actuation, FrameError, OutOfRange, Reading, System};

/// A robot command the world could not take.
#[derive(Debug, thiserror::Error)]
pub enum RobotError {
    /// The command names a robot the world does not have.
    #[error("command for robot `{robot}`: no such robot in the world")]
    UnknownRobot {
        /// The name given.
        robot: String,
    },
    /// A command of another system than the robot's (e.g. an MHP command for a Lily).
    #[error("command for robot `{robot}`: the robot is {expected}, the command is for {given}")]
    WrongSystem {
        /// Robot name.
        robot: String,
        /// The robot's system, or "passive" for a body without actuators.
        expected: String,
        /// The command's system.
        given: System,
    },
    /// The world refused the actuator command (wrong number of faces).
    #[error(transparent)]
    Physics(#[from] PhysicsError),
    /// A command value out of range.
    #[error(transparent)]
    Command(#[from] OutOfRange),
    /// `radio_tx` bytes that are not a frame sequence.
    #[error(transparent)]
    Frame(#[from] FrameError),
}

/// Whether a module is a robot (its kind belongs to a robot system, so it has a `cmd` and
/// `sensors`).
pub fn is_robot(body: &BodyState) -> bool {
    body.kind.system().is_some()
}

/// Readings out, commands and messages in: the world's side of every robot's hardware.
#[derive(Clone, Debug, Default)]
pub struct RobotBus {
    mailroom: Mailroom,
    sensing: SensingConfig,
    /// Reused for every tick's snapshot.
    index: SensingIndex,
}

impl RobotBus {
    /// A bus with the given sensing (validated).
    pub fn new(sensing: SensingConfig) -> Result<Self, SensingError> {
        sensing.validate()?;
        Ok(Self { mailroom: Mailroom::new(), sensing, index: SensingIndex::default() })
    }

    /// The sensing configuration.
    pub fn sensing(&self) -> &SensingConfig {
        &self.sensing
    }

    /// The reading of `bodies[index]` at `time` (s), with the bytes waiting for it (they
    /// are handed over once); `None` for a passive body. `bodies` is one snapshot of the
    /// whole world, indexed for this one reading: to read many robots, use
    /// [`Self::read_tick`]. The stamp is `time` as a ROS stamp carries it
    /// ([`flotilla_contract::stamp_seconds`]).
    pub fn read(&mut self, bodies: &[BodyState], index: usize, time: f64) -> Option<Reading> {
        self.read_tick(bodies, [index], time).pop().map(|(_, reading)| reading)
    }

    /// The readings of `bodies[i]` for every `i` of `robots` at `time` (s), from one
    /// indexed snapshot (neighbour queries cost about as much per robot whatever the
    /// world's size): (index, reading) for each robot that has sensors, in the order given.
    pub fn read_tick(&mut self, bodies: &[BodyState], robots: impl IntoIterator<Item = usize>, time: f64) -> Vec<(usize, Reading)> {
        let stamp = flotilla_contract::stamp_seconds(time);
        let ctx = SensingContext { snapshot: self.index.snapshot(bodies), config: &self.sensing };
        robots
            .into_iter()
            .filter_map(|i| {
                let inbox = self.mailroom.take_inbox(bodies[i].id);
                crate::systems::read(&ctx, i, stamp, inbox).map(|reading| (i, reading))
            })
            .collect()
    }

    /// Applies `body`'s command: actuators to the world and, for Lilies, `radio_tx` frames
    /// routed by the latches of `body` (the snapshot its reading was made from). Returns
    /// the number of latch-channel frames lost to unlatched faces.
    pub fn apply(&mut self, world: &mut World, body: &BodyState, command: &Actuation) -> Result<usize, RobotError> {
        crate::systems::apply(world, body, command, &mut self.mailroom)
    }

    /// Applies the command of robot `robot` (by name) against the world as it is now.
    pub fn apply_named(&mut self, world: &mut World, robot: &str, command: &Actuation) -> Result<usize, RobotError> {
        let body = world.id_of(robot).and_then(|id| world.body(id)).ok_or_else(|| RobotError::UnknownRobot { robot: robot.to_owned() })?;
        self.apply(world, &body, command)
    }

    /// Queues a base-station radio payload for each robot in `receivers` (ids).
    pub fn broadcast(&mut self, receivers: impl IntoIterator<Item = u32>, payload: &[u8]) -> Result<(), FrameError> {
        self.mailroom.broadcast(receivers, payload)
    }

    /// Radio messages the robots sent to the base station: (sender id, payload), in order.
    pub fn take_uplink(&mut self) -> Vec<(u32, Vec<u8>)> {
        self.mailroom.take_uplink()
    }

    /// Drops everything waiting for robot `id` (removed, or the world was reset).
    pub fn forget(&mut self, id: u32) {
        self.mailroom.forget(id);
    }

    /// Drops every pending message (the world was reset).
    pub fn clear(&mut self) {
        self.mailroom = Mailroom::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WorldConfig;
    use flotilla_common::catalogue::ModuleKind;
    use flotilla_contract::lily::{LilyCommand, LilySensors};
    use flotilla_contract::mhp::MhpCommand;
    use flotilla_contract::{encode, Frame};

    fn two_lilies() -> World {
        let mut w = World::new(WorldConfig::default(), 3).unwrap();
        w.spawn(ModuleKind::Lily, crate::PlanarPose::new(-0.0155, 0.0, 0.0), "a").unwrap();
        w.spawn(ModuleKind::Lily, crate::PlanarPose::new(0.0155, 0.0, 0.0), "b").unwrap();
        w
    }

    fn lily(command: LilyCommand) -> Actuation {
        Actuation::Lily(command)
    }

    fn lily_reading(reading: Option<Reading>) -> LilySensors {
        match reading {
            Some(Reading::Lily(s)) => s,
            other => panic!("not a Lily reading: {other:?}"),
        }
    }

    #[test]
    fn latch_channel_and_radio_reach_the_readings() {
        let mut w = two_lilies();
        let mut bus = RobotBus::default();
        // Latch a's face 0 to b's face 2.
        bus.apply_named(&mut w, "a", &lily(LilyCommand { latch: vec![true, false, false, false], ..LilyCommand::default() })).unwrap();
        bus.apply_named(&mut w, "b", &lily(LilyCommand { latch: vec![false, false, true, false], ..LilyCommand::default() })).unwrap();
        for _ in 0..40 {
            w.step();
        }
        let bodies = w.bodies();
        assert_eq!(bodies[0].faces[0].latched.map(|l| l.other_id), Some(bodies[1].id), "latched");
        let tx = encode(&[Frame::face(0, vec![7]), Frame::radio(vec![9])]).unwrap();
        assert_eq!(bus.apply(&mut w, &bodies[0], &lily(LilyCommand { radio_tx: tx, ..LilyCommand::default() })).unwrap(), 0);
        bus.broadcast([bodies[1].id], &[5]).unwrap();
        let reading = lily_reading(bus.read(&bodies, 1, w.time()));
        // b gets a's frame on its own face 2, then the broadcast on port 255.
        assert_eq!(reading.radio_rx, vec![2, 1, 0, 7, 255, 1, 0, 5]);
        assert!(lily_reading(bus.read(&bodies, 1, w.time())).radio_rx.is_empty(), "handed over once");
        assert_eq!(bus.take_uplink(), vec![(bodies[0].id, vec![9])]);
        assert_eq!(reading.latched, vec![false, false, true, false]);
    }

    #[test]
    fn bad_commands_name_the_robot() {
        let mut w = two_lilies();
        let mut bus = RobotBus::default();
        let err = bus.apply_named(&mut w, "ghost", &lily(LilyCommand::default())).unwrap_err().to_string();
        assert_eq!(err, "command for robot `ghost`: no such robot in the world");
        let err =
            bus.apply_named(&mut w, "a", &lily(LilyCommand { latch: vec![true; 3], ..LilyCommand::default() })).unwrap_err().to_string();
        assert!(err.contains('a') && err.contains("latch_on needs 4"), "{err}");
        let err =
            bus.apply_named(&mut w, "b", &lily(LilyCommand { radio_tx: vec![0, 5], ..LilyCommand::default() })).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        let err = bus.apply_named(&mut w, "b", &Actuation::Mhp(MhpCommand { thrust: vec![1.0; 4] })).unwrap_err().to_string();
        assert!(err.ends_with("the robot is lily, the command is for mhp"), "{err}");
        let bad = SensingConfig { ambient_light: 2.0, ..SensingConfig::default() };
        assert!(RobotBus::new(bad).unwrap_err().to_string().contains("ambient_light"));
    }
}
