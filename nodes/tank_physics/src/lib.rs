//! The Flotilla world: floating and swimming modules as rapier3d bodies in an arena, under
//! the Lily tank's hydrodynamic model (SPEC 1): per-cell flow sampling, quadratic drag per
//! face section, stochastic force, Webots damping, buoyancy at the draft (planar model).
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

pub mod arena;
pub mod config;
pub mod flow;
pub mod hydro;
pub mod recorder;
pub mod robots;
pub mod systems;
pub mod world;

pub use arena::{Arena, Inlet, WallSegment};
pub use config::{ArenaConfig, ArenaKind, ConfigError, FlowConfig, HydroParams, WorldConfig};
pub use recorder::TrajectoryRecorder;
pub use world::{BodyState, Command, FaceState, LatchLink, PhysicsError, PlanarPose, World};
