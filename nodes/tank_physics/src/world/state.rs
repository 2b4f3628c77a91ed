//! What the world reports about each body, and what each body can be told to do.

use flotilla_common::catalogue::ModuleKind;
use nalgebra::{Isometry3, Vector3};
use serde::{Deserialize, Serialize};

/// A position and heading in the horizontal plane.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanarPose {
    /// x, m.
    pub x: f64,
    /// y, m.
    pub y: f64,
    /// Heading (rotation about z from +x), rad.
    pub heading: f64,
}

impl PlanarPose {
    /// A pose from its parts (m, m, rad).
    pub fn new(x: f64, y: f64, heading: f64) -> Self {
        Self { x, y, heading }
    }
}

/// The link a latch face has made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatchLink {
    /// Id of the neighbour body.
    pub other_id: u32,
    /// Index of the neighbour's face.
    pub other_face: usize,
}

/// State of one face of a body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FaceState {
    /// Whether the face has a latch.
    pub has_latch: bool,
    /// Whether its latch is commanded on.
    pub latch_on: bool,
    /// The neighbour it is latched to, if any.
    pub latched: Option<LatchLink>,
    /// Whether the face has a thruster.
    pub has_thruster: bool,
    /// Whether the thruster is commanded on.
    pub thruster_on: bool,
    /// Whether the thruster is broken (never fires; failure injection).
    pub thruster_failed: bool,
}

/// Ground truth of one body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyState {
    /// Unique id, never reused within a world's life (reset starts again at 0).
    pub id: u32,
    /// Name, e.g. `ball_3`; also the robot's ROS namespace and frame.
    pub name: String,
    /// Module kind.
    pub kind: ModuleKind,
    /// Pose of the body frame in the world frame (m, unit quaternion).
    pub pose: Isometry3<f64>,
    /// Linear velocity, m/s.
    pub linvel: Vector3<f64>,
    /// Angular velocity, rad/s.
    pub angvel: Vector3<f64>,
    /// Per-face latch and thruster state, in catalogue face order.
    pub faces: Vec<FaceState>,
}

impl BodyState {
    /// Heading: rotation about z from +x, rad in (-pi, pi].
    pub fn heading(&self) -> f64 {
        let x = self.pose.rotation * Vector3::x();
        x.y.atan2(x.x)
    }
}

/// What a robot's firmware asks of its actuators. Empty lists leave that group as it is;
/// a non-empty list must have one entry per face.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Command {
    /// Latch on (true) or off per face.
    pub latch_on: Vec<bool>,
    /// Thruster firing (true) or idle per face.
    pub thruster_on: Vec<bool>,
}
