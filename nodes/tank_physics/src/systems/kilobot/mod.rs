//! Kilobots on a dry table (SPEC 4), simulated kinematically at swarm scale (10,000 robots
//! and more; rapier is not involved): world units are one robot diameter (32.5 mm), time is
//! counted in steps (32.5 ms: one step of 0.01 world units at the Kilobot's 1 cm/s).
//!
//! - motion: each step a robot goes forward, turns clockwise or counter-clockwise (turning
//!   still drifts forward: Kilobots are not holonomic), at `speed` times its own speed
//!   factor drawn from N(mean, std^2);
//! - bodies: overlaps are resolved every step through a uniform grid; optional collision
//!   avoidance (a moving robot yields to a moving robot ahead of it; of two facing each
//!   other, the one moving longer, ahead in the queue, goes);
//! - rare events: every `interval` steps each robot's motors fail for good when a U(0,1)
//!   draw exceeds `threshold` (it keeps talking);
//! - infrared channel: messages to every robot within `range`, distances with uniform or
//!   Gaussian error, loss, and an optional shared medium of limited capacity
//!   ([`ChannelConfig`]).
//!
//! A host (the experiments, the physics node) drives it in lock step, with buffers it
//! keeps across steps, so a steady swarm allocates nothing per step:
//!
//! ```
//! use flotilla_contract::kilobot::{KilobotCommand, KilobotSensors};
//! use tank_physics::systems::kilobot::{KilobotTable, Pose, TableConfig};
//! let poses = [Pose { x: 0.0, y: 0.0, theta: 0.0 }, Pose { x: 2.0, y: 0.0, theta: 0.0 }];
//! let mut table = KilobotTable::new(TableConfig::default(), &poses, 7).unwrap();
//! let (mut sensors, mut commands) = (Vec::<KilobotSensors>::new(), vec![KilobotCommand::default(); 2]);
//! for _ in 0..100 {
//!     table.read_all(&mut sensors);
//!     commands[0] = KilobotCommand { motor_left: 1.0, motor_right: 1.0, message: vec![1], ..KilobotCommand::default() };
//!     table.apply_all(&commands).unwrap();
//!     table.step();
//! }
//! assert!((table.pose(0).x - 1.0).abs() < 1e-9); // 100 steps of 0.01 forward
//! ```

mod config;
mod grid;
mod placement;
mod table;

pub use config::{Avoidance, Bounds, ChannelConfig, DistanceError, Failures, TableConfig, TableError, WORLD_UNIT_M};
pub use placement::hex_block;
pub use table::{CommandError, KilobotTable, Motion, Pose};

#[cfg(test)]
mod tests;
