//! `camera_tracker` node: the emulated overhead camera and the marker tracker in one
//! process (see `tracking::node::camera::run_with_tracker`); it reads the
//! `overhead_camera` and `tracker` sections of its parameter files.

fn main() -> std::process::ExitCode {
    flotilla_common::ros::node_main_loading(
        "camera_tracker",
        tracking::config::CAMERA_TRACKER_PARAMS,
        tracking::config::CameraTrackerConfig::load,
        tracking::config::CameraTrackerConfig::from_tree,
        tracking::node::camera::run_with_tracker,
    )
}
