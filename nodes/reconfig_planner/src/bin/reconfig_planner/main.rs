//! `reconfig_planner` node: the MoleMOD planner as a ROS 2 service and playback action.
//! `main` only wires things up; the logic is in the library and in [`node::run`].

mod convert;
mod markers;
mod node;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("reconfig_planner", settings::PARAMS, node::NodeSettings::from_tree, node::run)
}
