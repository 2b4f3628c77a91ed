//! The ROS 2 glue of the tracking binaries (feature `ros`): topics, parameters, the
//! per-message loop and shutdown. The work itself is in [`crate::live`].
//!
//! - [`camera`]: `overhead_camera`, `/tank/state` -> sensor_msgs/Image + CameraInfo.
//! - [`tracker`]: `tracker`, any Image + CameraInfo -> `/tracking/tracks`, markers, CSV.
//! - [`replay`]: `image_replay`, a folder of PNG frames published as a camera.

pub mod camera;
mod convert;
pub mod replay;
pub mod tracker;
