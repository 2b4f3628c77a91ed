//! MHP in the simulation (SPEC 5): the reading packs per-face connection and target
//! sight; the command switches the on/off pumps.

use crate::robots::{RobotError, SensingContext};
use crate::{BodyState, Command, World};
use flotilla_contract::mhp::{MhpCommand, MhpSensors};

/// The reading of `ctx.bodies[index]` at `time` (s).
pub fn read(ctx: &SensingContext, index: usize, time: f64) -> MhpSensors {
    MhpSensors { stamp: time, connected: ctx.contacts(index), target_seen: ctx.target_seen(index), navigation: None }
}

/// Pumps to the world: a thrust of at least
/// [`flotilla_contract::mhp::THRUST_ON_THRESHOLD`] fires.
pub fn apply(world: &mut World, body: &BodyState, command: &MhpCommand) -> Result<(), RobotError> {
    let thruster_on = command.pumps_on(&body.name)?;
    world.command(body.id, &Command { latch_on: Vec::new(), thruster_on })?;
    Ok(())
}
