//! The robot systems in the simulation, one room each: how the world produces a system's
//! reading from its sensor models and carries out its command. [`read`] and [`apply`]
//! are the registry: the one place that lists which systems the world simulates.
//!
//! - [`kilobot`]: Kilobots on a dry table, kinematic at swarm scale (its own table
//!   outside the rapier world, hosted next to it);
//! - [`lily`]: Lily modules (latches, light, latch channel and radio);
//! - [`mhp`]: MHP modules (connection and target sensors, pumps);
//! - [`molemod`]: the MoleMOD mole as an articulated rapier robot (joint encoders, joint
//!   motors);
//! - [`bluebot`]: the Blueswarm's Bluebots in their 3-D tank with emulated LED vision
//!   (own integrator; `bluebot::SwarmWorld`).

pub mod bluebot;
pub mod kilobot;
pub mod lily;
pub mod mhp;
pub mod molemod;

use crate::robots::{Mailroom, RobotError, SensingContext};
use crate::{BodyState, World};
use flotilla_contract::{Actuation, Reading, System};

/// The reading of `ctx.bodies[index]` at `time` (s) in its system's contract type, with
/// the radio bytes waiting for it; `None` for a body of no system the world senses.
pub fn read(ctx: &SensingContext, index: usize, time: f64, inbox: Vec<u8>) -> Option<Reading> {
    match ctx.bodies()[index].kind.system()? {
        System::Lily => Some(Reading::Lily(lily::read(ctx, index, time, inbox))),
        System::Mhp => Some(Reading::Mhp(mhp::read(ctx, index, time))),
        // Moles and Bluebots live outside the module world (see `molemod`, `bluebot`);
        // Kilobots get their sensor model with their system.
        System::Molemod | System::Bluebot | System::Kilobot => None,
    }
}

/// Carries out `command` for `body` (the snapshot its reading came from); returns the
/// number of Lily latch-channel frames lost to unlatched faces.
pub fn apply(world: &mut World, body: &BodyState, command: &Actuation, mailroom: &mut Mailroom) -> Result<usize, RobotError> {
    match (body.kind.system(), command) {
        (Some(System::Lily), Actuation::Lily(c)) => lily::apply(world, body, c, mailroom),
        (Some(System::Mhp), Actuation::Mhp(c)) => mhp::apply(world, body, c).map(|()| 0),
        (system, _) => Err(RobotError::WrongSystem {
            robot: body.name.clone(),
            expected: system.map_or_else(|| "passive".to_owned(), |s| s.name().to_owned()),
            given: command.system(),
        }),
    }
}
