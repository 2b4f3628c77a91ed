//! `kilobot_table` node: the ROS 2 glue around the kinematic Kilobot table
//! ([`tank_physics::systems::kilobot::KilobotTable`]). `main` only wires things up; the
//! logic is in the library and in [`node::run`].

mod node;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("kilobot_table", settings::NodeSettings::from_tree, node::run)
}
