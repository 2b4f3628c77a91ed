//! `molemod_physics` node: a MoleMOD task's plan executed by the physics
//! ([`tank_physics::systems::molemod::executor::Executor`], the model of `flotilla
//! experiment molemod execute`) behind the `~/execute` action. `main` only wires things
//! up; the logic is in the library and in [`node::run`].

mod node;
mod settings;

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main("molemod_physics", settings::PARAMS, settings::NodeSettings::from_tree, node::run)
}
