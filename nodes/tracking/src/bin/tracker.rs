//! `tracker` node: markers in any camera image -> tracks (see `tracking::node::tracker`).

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main(
        "tracker",
        tracking::config::TRACKER_PARAMS,
        tracking::config::TrackerNodeConfig::from_tree,
        tracking::node::tracker::run,
    )
}
