//! `robot_controller` node: per-robot firmware (Lily rulesets, MHP) over ROS 2.
//! `main` only wires things up; the logic is in the library and in [`node::run`].

mod node;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("robot_controller", settings::PARAMS, node::NodeSettings::from_tree, node::run)
}
