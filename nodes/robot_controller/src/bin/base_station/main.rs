//! `base_station` node: radio to and from the Lilies, pump schedule (centralised stirring)
//! and assembly metrics from `/tank/state`. `main` only wires things up; the logic is in
//! the library and in [`node::run`].

mod node;
mod settings;
mod world;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("base_station", settings::PARAMS, node::NodeSettings::from_tree, node::run)
}
