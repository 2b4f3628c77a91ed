//! Kilobot firmware (SPEC 4): a kilolib-shaped programming interface over the contract
//! ([`kilolib`]) and the programmable self-assembly program ([`self_assembly`]) that runs on
//! it, with its shape bitmap ([`shape`]), message layout ([`message`]) and trilateration
//! ([`localise`]), and the overhead controller's start, pause and parameter broadcasts
//! ([`overhead`]).

pub mod kilolib;
pub mod localise;
pub mod message;
pub mod overhead;
pub mod self_assembly;
pub mod shape;

pub use kilolib::{KiloProgram, KilobotFirmware};
pub use overhead::{OverheadControlled, OverheadProgram, ParameterMessage};
pub use self_assembly::{Localisation, ParamError, References, Role, SelfAssembly, SelfAssemblyParams, State};
pub use shape::{Shape, ShapeError};

#[cfg(test)]
mod tests;
