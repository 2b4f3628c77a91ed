//! `overhead_camera` node: the emulated overhead camera (see `tracking::node::camera`).

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main(
        "overhead_camera",
        tracking::config::CAMERA_PARAMS,
        tracking::config::CameraNodeConfig::from_tree,
        tracking::node::camera::run,
    )
}
