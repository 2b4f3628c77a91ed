//! Overhead camera emulation and the marker tracker (the SwisTrack role, SPEC 1 and 3).
//!
//! - [`camera`]: pinhole + plumb_bob lens model of a camera looking straight down,
//!   pixel <-> world on a horizontal plane, CameraInfo fields.
//! - [`render`]: the emulated camera: arena, module tops and passive markers
//!   (antialiased), illumination gradient, blur, seeded pixel noise.
//! - [`frame`]: validated raw frames (rgb8, bgr8, mono8).
//! - [`transcode`]: frames in other renderers' and cameras' encodings (alpha, 16-bit,
//!   YUV 4:2:2, Bayer) converted to grey levels.
//! - [`detect`]: threshold, run-based connected components, sub-pixel centroids,
//!   size gating, heading from the marker dot, pixel -> world.
//! - [`track`]: constant-velocity prediction, gated optimal assignment, persistent ids,
//!   birth, coasting, death, confidence.
//! - [`Tracker`]: frame -> detections -> tracks for one camera.
//! - [`recording`]: tracks to the shared trajectory CSV.
//! - [`replay`]: a folder of PNG frames as a camera, and saving frames to one.
//! - [`accuracy`]: synthetic ground truth, render -> track -> score harness.
//! - [`config`]: the three nodes' parameters, typed and validated.
//! - [`live`]: what the nodes do per message (frame schedule, bad-input handling,
//!   rate-limited warnings, replay timeline), without ROS.
//! - `node` (feature `ros`): the ROS 2 glue of the `overhead_camera`, `tracker` and
//!   `image_replay` binaries.

pub mod accuracy;
pub mod camera;
pub mod config;
pub mod detect;
pub mod frame;
pub mod live;
#[cfg(feature = "ros")]
pub mod node;
mod pipeline;
pub mod recording;
pub mod render;
pub mod replay;
pub mod track;
pub mod transcode;

pub use camera::{CameraError, CameraInfoFields, CameraModel, CameraMount, Distortion};
pub use detect::{Detection, DetectionStats, Detector, DetectorConfig};
pub use flotilla_common::arena::ArenaOutline;
pub use frame::{Encoding, FrameError, ImageView, OwnedFrame};
pub use pipeline::{SetupError, SkipReason, Tracker};
pub use render::{MarkerKind, RenderOptions, Renderer, SceneObject};
pub use track::{MultiTargetTracker, Track, TrackerConfig};
pub use transcode::{FrameReader, RawImage};
