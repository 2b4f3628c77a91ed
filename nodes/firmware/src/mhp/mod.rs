//! Modular Hydraulic Propulsion controllers (SPEC 5), written against the MHP contract:
//!
//! - [`MhpReactive`]: the decentralised occlusion rule (a pump fires iff its face is not
//!   connected and does not see the target); [`MhpPrototypeReactive`] adds the 2-D
//!   prototype's rule that two opposite firing pumps of one module both stop;
//! - [`MhpCentralised`]: Moore-Penrose pseudo-inverses of the outer thruster layout for
//!   force and torque, separate translational and rotational PD controllers (I = 0), the
//!   two thruster vectors summed, a thruster fires iff its sum is positive.

mod centralised;
mod decentralised;
mod linalg;

pub use centralised::{CentralisedGains, MhpCentralised};
pub use decentralised::{MhpPrototypeReactive, MhpReactive};
