//! The module catalogue: one source of truth for every module kind's geometry, mass,
//! inertia, draft, drag, faces (latches, thrusters), sensors and actuators.
//!
//! The physics builds its bodies from [`ModuleKind::spec`]; the URDF/SDF models are
//! generated from (or checked against) the same numbers.

mod kind;
mod spec;

pub use kind::{ModuleKind, UnknownKind};
pub use spec::{
    floating_box_metacentric_height, floating_mass, ActuatorKind, FaceSpec, LatchSpec, Medium, ModuleSpec, SensorKind, Shape, ThrusterSpec,
    WATER_DENSITY,
};
