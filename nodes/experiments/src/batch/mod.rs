//! In-process runs: a [`World`](tank_physics::World) and every robot's firmware stepping
//! together on sim time, seeded, with the base station, the pump schedule and the metrics.
//!
//! [`Run`] is the tank side (physics, sensing, message delivery, base station, metrics);
//! the robot side is anything implementing [`RobotSide`](robot_controller::firmware::RobotSide) — a
//! [`ControllerHost`](robot_controller::ControllerHost) here, the controllers' ROS topics in the node.

mod experiment;
mod run;
mod sweep;
#[cfg(test)]
mod tests;

pub use experiment::{BatchError, Broadcast, TankExperiment};
pub use run::{run, Run, RunResult};
pub use sweep::{sweep, YieldCurve};
