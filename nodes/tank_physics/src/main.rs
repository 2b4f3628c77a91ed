//! `tank_physics` node: the ROS 2 glue around [`tank_physics::World`].
//! `main` only wires things up; the logic is in the library and in [`node::run`].

mod node;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("tank_physics", node::NodeSettings::from_tree, node::run)
}
