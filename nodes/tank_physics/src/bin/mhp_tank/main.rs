//! `mhp_tank` node: the ROS 2 glue around the 2-D MHP prototype in its tank
//! ([`tank_physics::systems::mhp::prototype::PrototypeTrial`], the model of
//! `flotilla experiment mhp prototype`). `main` only wires things up; the logic is in the
//! library and in [`node::run`].

mod node;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("mhp_tank", settings::PARAMS, settings::NodeSettings::from_tree, node::run)
}
