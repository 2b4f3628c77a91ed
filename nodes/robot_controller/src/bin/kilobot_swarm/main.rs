//! `kilobot_swarm` node: every Kilobot's firmware (the programmable self-assembly program
//! under kilolib's overhead-controller states) in one process over the batched topics of
//! the `kilobot_table` node. `main` only wires things up; the scene is built by the
//! library (`robot_controller::kilobot`), the ROS glue is in [`node::run`].

mod node;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("kilobot_swarm", settings::PARAMS, settings::SwarmSettings::from_tree, node::run)
}
