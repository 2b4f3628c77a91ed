//! `blueswarm_tank` node: the ROS 2 glue around the Blueswarm tank
//! ([`tank_physics::systems::bluebot::SwarmWorld`]). `main` only wires things up; the
//! logic is in the library and in [`node::run`].

mod node;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("blueswarm_tank", settings::PARAMS, settings::NodeSettings::from_tree, node::run)
}
