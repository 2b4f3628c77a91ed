//! `image_replay` node: a folder of PNG frames as a camera (see `tracking::node::replay`).

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main(
        "image_replay",
        tracking::config::REPLAY_PARAMS,
        tracking::config::ReplayNodeConfig::from_tree,
        tracking::node::replay::run,
    )
}
