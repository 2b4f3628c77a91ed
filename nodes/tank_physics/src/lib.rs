//! The Flotilla world: floating, swimming and crawling modules as rapier3d bodies in an
//! arena, in a [`medium`] chosen by configuration (the Lily tank's stirred water of SPEC 1,
//! 3-D still water, unbounded fluid, a dry table), pushed by actuator [`actuation`] models.
//! Neighbour queries (sensing, latches, spawning) go through a uniform grid ([`spatial`]).
//!
//! Pure library: no ROS, no I/O except the explicit flow-field and trajectory files.
//!
//! ```
//! use tank_physics::{World, WorldConfig};
//! use flotilla_common::catalogue::ModuleKind;
//! let config = WorldConfig::default().with_modules(ModuleKind::PingPongBall, 24, "ball");
//! let mut world = World::new(config, 7).unwrap();
//! for _ in 0..40 { world.step(); }
//! assert_eq!(world.bodies().len(), 24);
//! assert!((world.time() - 1.0).abs() < 1e-9);
//! ```

pub mod actuation;
pub mod arena;
pub mod config;
pub mod flow;
pub mod hydro;
pub mod medium;
pub mod rate;
pub mod recorder;
pub mod robots;
pub mod run;
pub mod rviz;
pub mod spatial;
pub mod stepping;
pub mod systems;
pub mod world;

pub use arena::{Arena, Inlet, WallSegment};
pub use config::{ArenaConfig, ArenaKind, ConfigError, FlowConfig, HydroParams, WorldConfig};
pub use medium::MediumKind;
pub use recorder::TrajectoryRecorder;
pub use world::{BodyState, Command, FaceState, LatchLink, PhysicsError, PlanarPose, Thruster, World};
