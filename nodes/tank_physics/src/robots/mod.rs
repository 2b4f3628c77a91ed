//! The robots' side of the world: what each robot's own sensors report ([`sensing`]), the
//! latch channel and the base-station radio ([`channel`]), and what the world does with a
//! robot's command ([`RobotBus::apply`]). In-process batch runs and the `tank_physics` node
//! both go through [`RobotBus`], so a reading or a delivered message is the same wherever
//! the firmware runs.
//!
//! Radio convention: every byte stream is framed `[port u8][length u16 LE][payload]`; ports
//! 0..=254 are latch faces (inductive channel to the latched neighbour), 255 the radio link
//! to or from the base station. Messages posted during one control step arrive with the
//! receiver's next reading.

pub mod channel;
pub mod io;
pub mod sensing;

pub use channel::{Frame, FrameError, Mailroom, Outbox, Port};
pub use io::{stamp_seconds, CommandError, RobotCommand, Sensors};
pub use sensing::{sense, sensors_for, LightSpot, SensingConfig, SensingError};

use crate::{BodyState, PhysicsError, World};

/// A robot command the world could not take.
#[derive(Debug, thiserror::Error)]
pub enum RobotError {
    /// The command names a robot the world does not have.
    #[error("command for robot `{robot}`: no such robot in the world")]
    UnknownRobot {
        /// The name given.
        robot: String,
    },
    /// The world refused the actuator command (wrong number of faces).
    #[error(transparent)]
    Physics(#[from] PhysicsError),
    /// A thrust value out of range.
    #[error(transparent)]
    Command(#[from] CommandError),
    /// `radio_tx` bytes that are not a frame sequence.
    #[error(transparent)]
    Frame(#[from] FrameError),
}

/// Whether a module is a robot (it has latches or thrusters, so a `cmd` and `sensors`).
pub fn is_robot(body: &BodyState) -> bool {
    body.faces.iter().any(|f| f.has_latch || f.has_thruster)
}

/// Readings out, commands and messages in: the world's side of every robot's hardware.
#[derive(Clone, Debug, Default)]
pub struct RobotBus {
    mailroom: Mailroom,
    sensing: SensingConfig,
}

impl RobotBus {
    /// A bus with the given sensing (validated).
    pub fn new(sensing: SensingConfig) -> Result<Self, SensingError> {
        sensing.validate()?;
        Ok(Self { mailroom: Mailroom::new(), sensing })
    }

    /// The sensing configuration.
    pub fn sensing(&self) -> &SensingConfig {
        &self.sensing
    }

    /// The reading of `bodies[index]` at `time` (s), with the bytes waiting for it (they
    /// are handed over once). `bodies` is one snapshot of the whole world. The stamp is
    /// `time` as a ROS stamp carries it ([`stamp_seconds`]).
    pub fn read(&mut self, bodies: &[BodyState], index: usize, time: f64) -> Sensors {
        let inbox = self.mailroom.take_inbox(bodies[index].id);
        sense(bodies, index, stamp_seconds(time), inbox, &self.sensing)
    }

    /// Applies `body`'s command: actuators to the world, `radio_tx` frames routed by the
    /// latches of `body` (the snapshot its reading was made from). Returns the number of
    /// latch-channel frames lost to unlatched faces.
    pub fn apply(&mut self, world: &mut World, body: &BodyState, command: &RobotCommand) -> Result<usize, RobotError> {
        world.command(body.id, &command.to_world(&body.name)?)?;
        let lost = self.mailroom.post(body, &command.radio_tx)?;
        if lost > 0 {
            tracing::trace!(robot = %body.name, lost, "latch-channel frames to unlatched faces dropped");
        }
        Ok(lost)
    }

    /// Applies the command of robot `robot` (by name) against the world as it is now.
    pub fn apply_named(&mut self, world: &mut World, robot: &str, command: &RobotCommand) -> Result<usize, RobotError> {
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

    fn two_lilies() -> World {
        let mut w = World::new(WorldConfig::default(), 3).unwrap();
        w.spawn(ModuleKind::Lily, crate::PlanarPose::new(-0.0155, 0.0, 0.0), "a").unwrap();
        w.spawn(ModuleKind::Lily, crate::PlanarPose::new(0.0155, 0.0, 0.0), "b").unwrap();
        w
    }

    #[test]
    fn latch_channel_and_radio_reach_the_readings() {
        let mut w = two_lilies();
        let mut bus = RobotBus::default();
        // Latch a's face 0 to b's face 2.
        bus.apply_named(&mut w, "a", &RobotCommand { latch: vec![true, false, false, false], ..RobotCommand::default() }).unwrap();
        bus.apply_named(&mut w, "b", &RobotCommand { latch: vec![false, false, true, false], ..RobotCommand::default() }).unwrap();
        for _ in 0..40 {
            w.step();
        }
        let bodies = w.bodies();
        assert_eq!(bodies[0].faces[0].latched.map(|l| l.other_id), Some(bodies[1].id), "latched");
        let tx = channel::encode(&[Frame::face(0, vec![7]), Frame::radio(vec![9])]).unwrap();
        assert_eq!(bus.apply(&mut w, &bodies[0], &RobotCommand { radio_tx: tx, ..RobotCommand::default() }).unwrap(), 0);
        bus.broadcast([bodies[1].id], &[5]).unwrap();
        let reading = bus.read(&bodies, 1, w.time());
        // b gets a's frame on its own face 2, then the broadcast on port 255.
        assert_eq!(reading.radio_rx, vec![2, 1, 0, 7, 255, 1, 0, 5]);
        assert!(bus.read(&bodies, 1, w.time()).radio_rx.is_empty(), "handed over once");
        assert_eq!(bus.take_uplink(), vec![(bodies[0].id, vec![9])]);
        assert_eq!(reading.latched, vec![false, false, true, false]);
    }

    #[test]
    fn bad_commands_name_the_robot() {
        let mut w = two_lilies();
        let mut bus = RobotBus::default();
        let err = bus.apply_named(&mut w, "ghost", &RobotCommand::default()).unwrap_err().to_string();
        assert_eq!(err, "command for robot `ghost`: no such robot in the world");
        let err = bus.apply_named(&mut w, "a", &RobotCommand { latch: vec![true; 3], ..RobotCommand::default() }).unwrap_err().to_string();
        assert!(err.contains('a') && err.contains("latch_on needs 4"), "{err}");
        let err = bus.apply_named(&mut w, "b", &RobotCommand { radio_tx: vec![0, 5], ..RobotCommand::default() }).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
        let err = bus.apply_named(&mut w, "b", &RobotCommand { thrust: vec![2.0; 4], ..RobotCommand::default() }).unwrap_err().to_string();
        assert!(err.contains("thrust[0]"), "{err}");
        let bad = SensingConfig { ambient_light: 2.0, ..SensingConfig::default() };
        assert!(RobotBus::new(bad).unwrap_err().to_string().contains("ambient_light"));
    }
}
