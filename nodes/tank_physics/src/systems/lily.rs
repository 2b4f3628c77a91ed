//! Lily in the simulation (SPEC 1): the reading packs latch state and top light, plus the
//! latch-channel and radio frames waiting for the robot; the command sets the EPM latches
//! and routes its frames through the latches of the snapshot it was made from.

use crate::robots::{Mailroom, RobotError, SensingContext};
use crate::{BodyState, Command, World};
use flotilla_contract::lily::{LilyCommand, LilySensors};

/// The reading of `ctx.bodies[index]` at `time` (s) with the radio bytes `inbox`.
pub fn read(ctx: &SensingContext, index: usize, time: f64, inbox: Vec<u8>) -> LilySensors {
    LilySensors { stamp: time, latched: ctx.latched(index), light: ctx.light(index), radio_rx: inbox }
}

/// Latches to the world, frames to the mailroom; returns the latch-channel frames lost.
pub fn apply(world: &mut World, body: &BodyState, command: &LilyCommand, mailroom: &mut Mailroom) -> Result<usize, RobotError> {
    world.command(body.id, &Command { latch_on: command.latch.clone(), thruster_on: Vec::new() })?;
    let lost = mailroom.post(body, &command.radio_tx)?;
    if lost > 0 {
        tracing::trace!(robot = %body.name, lost, "latch-channel frames to unlatched faces dropped");
    }
    Ok(lost)
}
