//! MHP in the simulation (SPEC 5), two ways:
//!
//! - in the shared world (rapier bodies, one per module, the `unbounded_fluid` medium or
//!   a tank): [`read`] packs per-face connection and target sight, [`apply`] switches the
//!   on/off pumps;
//! - as a fast pure model of whole robots ([`MhpRobot`]): a robot is a connected set of
//!   lattice cells ([`lattice`], [`shapes`], [`file`]) simulated as ONE rigid body
//!   ([`body`]) with per-face drag and pumps, exact occlusion sensors by lattice ray
//!   stepping ([`occlusion`]) and faults ([`MhpFaults`]). It runs the paper's 3-D study,
//!   up to 128^3 modules (docs/mhp.md).

pub mod body;
pub mod file;
pub mod lattice;
pub mod occlusion;
pub mod prototype;
pub mod robot;
pub mod shapes;

pub use lattice::{Cell, Lattice, Morphology, MorphologyError};
pub use robot::{DragModel, MhpError, MhpFaults, MhpParams, MhpRobot};

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
