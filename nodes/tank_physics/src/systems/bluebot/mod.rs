//! Blueswarm in the simulation (SPEC 3): Bluebots in the 1.78 x 1.78 x 1.17 m tank with
//! 0.91 m of water, their 3-D fin-driven dynamics ([`body`]), the tank with its surface and
//! red light source ([`tank`]), their emulated LED vision in two fidelities ([`vision`])
//! and the world that steps them and answers each robot's reading in the Bluebot contract
//! ([`world`]).
//!
//! Like the MoleMOD mole, a Bluebot is not a rapier body in the module world: the swarm has
//! its own integrator (see [`body`] for why) and speaks the same contract, so firmware,
//! experiments and the physics node drive it through `apply` / `step` / `sense`.

pub mod body;
pub mod capabilities;
pub mod metrics;
pub mod photodiode;
pub mod placement;
pub mod tank;
pub mod vision;
pub mod world;

pub use body::{BodyParams, BodyState, FinMap};
pub use photodiode::Photodiode;
pub use tank::{RedSource, Tank};
pub use vision::{Analytic, Fidelity, Vision};
pub use world::{Robot, SwarmConfig, SwarmError, SwarmWorld};

use crate::medium::GRAVITY;
