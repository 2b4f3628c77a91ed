//! `calibration` node: the PSO calibration as a ROS 2 action and the flow-field
//! estimation as a service. `main` only wires things up; the logic is in the library
//! (`calibration::request`, `calibration::job`) and in [`node::run`].

mod convert;
mod node;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("calibration", settings::PARAMS, node::NodeSettings::from_tree, node::run)
}
