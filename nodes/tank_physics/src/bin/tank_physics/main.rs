//! `tank_physics` node: the ROS 2 glue around [`tank_physics::World`].
//! `main` only wires things up; the logic is in the library and in [`node::run`].

mod flow;
mod frames;
mod markers;
mod node;
mod recording;
mod robots;
mod services;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("tank_physics", settings::PARAMS, node::NodeSettings::from_tree, node::run)
}
