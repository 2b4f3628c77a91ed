//! The `ros__parameters` of the three tracking nodes (`overhead_camera`, `tracker`,
//! `image_replay`) as typed, validated settings. Pure: the ROS glue only loads the tree.
//!
//! Every key is optional (defaults below); unknown keys, wrong types and values out of
//! range are errors naming the dotted key.

use crate::camera::{CameraModel, CameraMount, Distortion};
use crate::detect::DetectorConfig;
use crate::frame::Encoding;
use crate::render::RenderOptions;
use crate::track::TrackerConfig;
use flotilla_common::arena::ArenaOutline;
use flotilla_common::duration::Span;
use flotilla_common::param_spec::{DefaultValue, Kind, NodeParams, ParamSpec as P};
use flotilla_common::params::{self, ParamError};
use serde::Deserialize;
use serde_yaml::Mapping;
use std::path::PathBuf;
use std::time::Duration;

/// Default image topic of the emulated camera (and of a replay standing in for it).
pub const DEFAULT_IMAGE_TOPIC: &str = "/overhead_camera/image_raw";
/// Default CameraInfo topic of the emulated camera.
pub const DEFAULT_CAMERA_INFO_TOPIC: &str = "/overhead_camera/camera_info";

/// The arena as the camera parameters describe it (the physics scenario's `arena`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawArena {
    /// `round_tank`, `rect_tank` or `table`.
    kind: String,
    /// Round tank inner diameter, m.
    diameter: f64,
    /// Rectangular tank or table size along x, m.
    size_x: f64,
    /// Rectangular tank or table size along y, m.
    size_y: f64,
    /// Tank floor to rim, m (the water surface is `depth + water_level` above the floor).
    depth: f64,
}

impl Default for RawArena {
    fn default() -> Self {
        Self { kind: "round_tank".into(), diameter: 0.6, size_x: 1.0, size_y: 1.0, depth: 0.3 }
    }
}

/// `overhead_camera`'s parameters for ROS 2 tools (`ros2 param describe /overhead_camera
/// <name>`), checked against [`CameraNodeConfig::from_tree`]: a change applies to the next
/// frame, except the topics and `save_frames_dir` (read at start-up).
pub const CAMERA_PARAMS: NodeParams = NodeParams { groups: &[CAMERA_KEYS], extras_live: true };

/// The camera's own keys.
const CAMERA_KEYS: &[P] = &[
    P::string("state_topic", "/tank/state", "Ground-truth topic (flotilla_msgs/TankState)"),
    P::string("image_topic", DEFAULT_IMAGE_TOPIC, "Published sensor_msgs/Image topic"),
    P::string("camera_info_topic", DEFAULT_CAMERA_INFO_TOPIC, "Published sensor_msgs/CameraInfo topic"),
    P::string("frame_id", "overhead_camera", "frame_id of the image and CameraInfo headers: the optical frame (not empty)").live(),
    P::string("parent_frame_id", "world", "Frame of the /tank/state poses, parent of the optical frame on /tf_static (not empty)").live(),
    P::double("rate", 30.0, "Frames per second, Hz of sim time").range(1.0 / 3600.0, 1000.0).live(),
    P::string("encoding", "rgb8", "Image encoding: rgb8 or mono8").live(),
    P::integer("width", 1024, "Image width, px").int_range(16, 8192).live(),
    P::integer("height", 1024, "Image height, px").int_range(16, 8192).live(),
    P::double("margin", 0.03, "Margin around the arena in the camera's view, m (>= 0)").live(),
    P::double("mount.x", 0.0, "World x of the optical centre, m").live(),
    P::double("mount.y", 0.0, "World y of the optical centre, m").live(),
    P::double("mount.height", 1.0, "Height of the optical centre above the water plane (or table top), m (> 0)").live(),
    P::double("distortion.k1", 0.0, "Plumb-bob first radial coefficient (dimensionless, multiplies r^2)").live(),
    P::double("distortion.k2", 0.0, "Plumb-bob second radial coefficient (dimensionless, multiplies r^4)").live(),
    P::double("distortion.p1", 0.0, "Plumb-bob first tangential coefficient (dimensionless)").live(),
    P::double("distortion.p2", 0.0, "Plumb-bob second tangential coefficient (dimensionless)").live(),
    P::double("distortion.k3", 0.0, "Plumb-bob third radial coefficient (dimensionless, multiplies r^6)").live(),
    P::string("arena.kind", "round_tank", "Arena drawn under the modules: round_tank, rect_tank or table").live(),
    P::double("arena.diameter", 0.6, "Inner diameter of the round tank, m (> 0)").live(),
    P::double("arena.size_x", 1.0, "Size along x of a rectangular tank or table, m (> 0)").live(),
    P::double("arena.size_y", 1.0, "Size along y of a rectangular tank or table, m (> 0)").live(),
    P::double("arena.depth", 0.3, "Tank floor to rim, m (> 0; the water surface is depth + water_level above the floor)").live(),
    P::double("render.noise_sigma", 0.0, "Standard deviation of the additive Gaussian pixel noise, 8-bit levels (>= 0)").live(),
    P::double(
        "render.illumination_gradient",
        0.0,
        "Illumination gain change from the image centre to its edge, fraction (0.2: 0.8x .. 1.2x; in (-1, 1))",
    )
    .live(),
    P::double("render.illumination_direction", 0.0, "Direction in which illumination grows, rad from the image +u axis").live(),
    P::double("render.blur_sigma", 0.0, "Standard deviation of the Gaussian optical blur, px (0 = sharp)").range(0.0, 20.0).live(),
    P::integer("render.supersampling", 4, "Sub-samples per pixel side on region edges, count").int_range(1, 16).live(),
    P::double("render.rim_width", 0.01, "Width of the tank rim drawn around the water, m (>= 0)").live(),
    P::integer("render.seed", 0, "Seed of the pixel noise (frame k draws from stream k)").int_range(0, i64::MAX).live(),
    P::string("save_frames_dir", "", "Folder receiving every frame as PNG with camera.yaml and stamps.csv; \"\" = none"),
];

/// `tracker`'s parameters for ROS 2 tools (`ros2 param describe /tracker <name>`), checked
/// against [`TrackerNodeConfig::from_tree`]: a change restarts the tracks with the next
/// CameraInfo, except the topics, the image QoS and `tracks_csv` (read at start-up). The
/// lists `detector.markers` and `detector.region` are declared as a file gives them.
pub const TRACKER_PARAMS: NodeParams = NodeParams { groups: &[TRACKER_INPUT_KEYS, TRACKING_KEYS], extras_live: true };

/// Where the tracker's images come from and where its camera is: `camera_tracker` takes
/// these from its own camera ([`CAMERA_FROM_TRACKER_KEYS`]).
const TRACKER_INPUT_KEYS: &[P] = &[
    P::string("image_topic", DEFAULT_IMAGE_TOPIC, "Subscribed sensor_msgs/Image topic"),
    P::string("camera_info_topic", DEFAULT_CAMERA_INFO_TOPIC, "Subscribed sensor_msgs/CameraInfo topic"),
    P::boolean(
        "image_best_effort",
        false,
        "Subscribe to images best-effort (as camera drivers with the sensor-data QoS publish; may lose frames) instead of reliable",
    ),
    P::string("frame_id", "world", "Frame of the tracks and markers (not empty)").live(),
    P::double("mount.x", 0.0, "World x of the camera's optical centre (CameraInfo does not carry it), m").live(),
    P::double("mount.y", 0.0, "World y of the camera's optical centre, m").live(),
    P::double("mount.height", 1.0, "Height of the optical centre above the water plane, m (> 0)").live(),
];

/// What the tracker does with the images and where its results go.
const TRACKING_KEYS: &[P] = &[
    P::string("tracks_topic", "/tracking/tracks", "Published flotilla_msgs/TrackArray topic"),
    P::string("markers_topic", "/tracking/markers", "Published visualization_msgs/MarkerArray topic"),
    P::double("plane_z", 0.0, "Height of the water plane in frame_id, where the rviz markers are drawn, m").live(),
    P::boolean(
        "detector.adaptive",
        true,
        "Thresholds relative to a per-tile illumination model (true), or one fixed detector.threshold (false)",
    )
    .live(),
    P::integer("detector.threshold", 180, "Fixed grey level at or above which a pixel is marker (adaptive false), 8-bit level")
        .int_range(1, 255)
        .live(),
    P::double("detector.candidate_contrast", 25.0, "Candidates stand this far above their tile's background, 8-bit levels")
        .range(1.0, 254.0)
        .live(),
    P::double(
        "detector.max_edge_ratio",
        2.0,
        "Largest edge width of a marker, multiple of the scene's typical marker edge (0 disables, else >= 1), ratio",
    )
    .live(),
    P::double(
        "detector.diameter_tolerance",
        0.25,
        "Largest relative difference of a blob's diameter from its kind's, fraction (in (0, 1))",
    )
    .live(),
    P::double("detector.min_marker_diameter", 0.008, "Smallest accepted marker diameter (equivalent disc), m (> 0)").live(),
    P::double("detector.max_marker_diameter", 0.035, "Largest accepted marker diameter (equivalent disc), m (> min_marker_diameter)")
        .live(),
    P::double("detector.marker_height", 0.005, "Height of the marker plane above the water, m").live(),
    P::integer("detector.edge_margin", 2, "Band around a blob whose partial coverage enters the centroid, px (>= 2 sigma of the blur)")
        .int_range(1, 8)
        .live(),
    P::double("detector.min_dot_fraction", 0.02, "Smallest hole taken as a heading dot, fraction of the marker area (in [0, 1))").live(),
    P::double("detector.max_dot_fraction", 0.25, "Largest hole taken as a heading dot, fraction of the marker area (in (min, 1])").live(),
    P::double("detector.min_contrast", 30.0, "Smallest marker-to-surround contrast, 8-bit levels (> 0)").live(),
    P::double("detector.max_elongation", 1.5, "Largest ratio of major to minor axis of a marker (>= 1)").live(),
    P::double("tracker.acceleration_noise", 10.0, "Power spectral density of the unmodelled acceleration, m^2/s^3 (> 0)").live(),
    P::double("tracker.measurement_sigma", 0.0005, "Standard deviation of a measured position, m (> 0)").live(),
    P::double("tracker.initial_velocity_sigma", 0.3, "Standard deviation of a newborn track's velocity, m/s (> 0)").live(),
    P::double("tracker.gate_sigmas", 4.0, "Gate radius in standard deviations of the predicted position (> 0)").live(),
    P::double("tracker.min_gate_distance", 0.015, "Smallest gate radius, m (> 0)").live(),
    P::double("tracker.max_gate_distance", 0.04, "Largest gate radius, m (>= min_gate_distance)").live(),
    P::boolean(
        "tracker.stationary_hypothesis",
        true,
        "Also match a detection against where the track was last seen, not only its constant-velocity prediction",
    )
    .live(),
    P::double("tracker.duplicate_distance", 0.01, "A coasting track this close to a detected one is a duplicate, m (>= 0; 0 disables)")
        .live(),
    P::integer("tracker.confirm_hits", 2, "Consecutive detections before a track is confirmed and published, count")
        .int_range(1, u32::MAX as i64)
        .live(),
    P::double("tracker.max_coast_time", 0.5, "Longest a confirmed track coasts on its prediction without detections, s (>= 0)").live(),
    P::double("tracker.confidence_rate", 0.2, "Weight of the newest frame in the confidence, fraction (in (0, 1])").live(),
    P::double("tracker.static_time", 0.0, "A detection staying within static_tolerance this long is a reflection and dropped, s; 0 = off")
        .live(),
    P::double("tracker.static_tolerance", 0.0002, "How far a static reflection's detections wander, m (> 0)").live(),
    P::integer("tracker.object_count", 0, "Objects in the tank when the set is closed and known (lost ids are reused); 0 = open set")
        .int_range(0, u32::MAX as i64)
        .live(),
    P::double("tracker.max_speed", 0.6, "Fastest a body moves (how far a lost body can be found again), m/s (> 0)").live(),
    P::string("tracks_csv", "", "Trajectory CSV of the tracks, flushed every frame; \"\" = none"),
    P::double("warn_interval", 5.0, "Shortest time between two warnings of the same kind (later ones are counted), s")
        .range(0.0, 3600.0)
        .live(),
];

/// `camera_tracker`'s parameters: the camera's and the tracking ones of the tracker (see
/// [`CameraTrackerConfig`]).
pub const CAMERA_TRACKER_PARAMS: NodeParams = NodeParams { groups: &[CAMERA_KEYS, TRACKING_KEYS], extras_live: true };

/// `image_replay`'s parameters for ROS 2 tools (`ros2 param describe /image_replay
/// <name>`), checked against [`ReplayNodeConfig::from_tree`]; all are read at start-up.
pub const REPLAY_PARAMS: NodeParams = NodeParams {
    groups: &[&[
        P::new(
            "directory",
            DefaultValue::Unset(Kind::String),
            "Folder of PNG frames with camera.yaml (and optionally stamps.csv) to replay (required)",
        ),
        P::string("image_topic", DEFAULT_IMAGE_TOPIC, "Published sensor_msgs/Image topic"),
        P::string("camera_info_topic", DEFAULT_CAMERA_INFO_TOPIC, "Published sensor_msgs/CameraInfo topic"),
        P::string("frame_id", "overhead_camera", "frame_id of the headers (not empty)"),
        P::double("rate", 30.0, "Frames per second of the recording (stamps without stamps.csv, and pacing), Hz")
            .range(1.0 / 3600.0, 1000.0),
        P::double("speed", 1.0, "Playback speed: recording seconds per wall second, 0 (as fast as possible) or 0.001 to 1000, x")
            .range(0.0, 1000.0),
        P::string("stamps", "recorded", "Stamp source: recorded (stamps.csv, else start_time + k / rate), rate or wall"),
        P::double("start_time", 0.0, "Stamp of the first frame when stamps come from the rate, s (>= 0)"),
        P::boolean("loop", false, "Start again after the last frame (stamps keep increasing)"),
        P::integer("wait_for_subscribers", 0, "Subscribers on the image and CameraInfo topics to wait for before the first frame, count")
            .int_range(0, u32::MAX as i64),
        P::double("linger", 1.0, "Time to stay up after the last frame so subscribers receive it, s").range(0.0, 3600.0),
        P::string(
            "done_topic",
            "",
            "TrackArray topic whose message stamped with the last frame's stamp proves it was tracked (waited for); \"\" = no wait",
        ),
        P::double("done_timeout", 10.0, "Longest wait for done_topic, s").range(0.0, 3600.0),
        P::boolean(
            "lockstep",
            false,
            "Publish a frame only once done_topic shows the previous one tracked (up to done_timeout): none lost under load; speed is then an upper bound",
        ),
    ]],
    extras_live: false,
};

/// `overhead_camera` parameters as they appear in the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawCamera {
    state_topic: String,
    image_topic: String,
    camera_info_topic: String,
    frame_id: String,
    parent_frame_id: String,
    rate: f64,
    encoding: String,
    width: u32,
    height: u32,
    margin: f64,
    mount: CameraMount,
    distortion: Distortion,
    arena: RawArena,
    render: RenderOptions,
    save_frames_dir: String,
}

impl Default for RawCamera {
    fn default() -> Self {
        Self {
            state_topic: "/tank/state".into(),
            image_topic: DEFAULT_IMAGE_TOPIC.into(),
            camera_info_topic: DEFAULT_CAMERA_INFO_TOPIC.into(),
            frame_id: "overhead_camera".into(),
            parent_frame_id: "world".into(),
            rate: 30.0,
            encoding: "rgb8".into(),
            width: 1024,
            height: 1024,
            margin: 0.03,
            mount: CameraMount::default(),
            distortion: Distortion::default(),
            arena: RawArena::default(),
            render: RenderOptions::default(),
            save_frames_dir: String::new(),
        }
    }
}

/// Validated `overhead_camera` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraNodeConfig {
    /// Ground truth topic (flotilla_msgs/TankState).
    pub state_topic: String,
    /// Published sensor_msgs/Image topic.
    pub image_topic: String,
    /// Published sensor_msgs/CameraInfo topic.
    pub camera_info_topic: String,
    /// `frame_id` of the image and CameraInfo headers: the optical frame.
    pub frame_id: String,
    /// Frame of `/tank/state` poses, parent of the optical frame on `/tf_static`.
    pub parent_frame_id: String,
    /// Frames per second of sim time, Hz.
    pub rate: f64,
    /// rgb8 or mono8.
    pub encoding: Encoding,
    /// The arena drawn under the modules.
    pub arena: ArenaOutline,
    /// Floor to rim of a tank, m; `None` for a table (the reference plane is the floor).
    pub tank_depth: Option<f64>,
    /// Lens, resolution and mount.
    pub camera: CameraModel,
    /// Noise, blur, illumination, seed.
    pub render: RenderOptions,
    /// Folder receiving every frame as PNG plus `camera.yaml` and `stamps.csv`.
    pub save_frames_dir: Option<PathBuf>,
}

impl CameraNodeConfig {
    /// Validates a parameter tree (standard ROS keys ignored).
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let raw: RawCamera = params::deserialize(&params::without_standard(tree))?;
        let rate = frame_rate("rate", raw.rate)?;
        let encoding = match raw.encoding.as_str() {
            "rgb8" => Encoding::Rgb8,
            "mono8" => Encoding::Mono8,
            other => return Err(ParamError::invalid("encoding", format!("must be rgb8 or mono8, got `{other}`"))),
        };
        for (key, size) in [("width", raw.width), ("height", raw.height)] {
            if !(16..=8192).contains(&size) {
                return Err(ParamError::invalid(key, format!("must be in 16..=8192 px, got {size}")));
            }
        }
        if !(raw.margin.is_finite() && raw.margin >= 0.0) {
            return Err(ParamError::invalid("margin", format!("must be a finite number of metres >= 0, got {}", raw.margin)));
        }
        let (arena, tank_depth) = arena_from(&raw.arena)?;
        if !(raw.mount.height.is_finite() && raw.mount.height > 0.0) {
            return Err(ParamError::invalid("mount.height", format!("must be > 0 m above the water, got {}", raw.mount.height)));
        }
        let mut camera = CameraModel::covering(&arena, raw.width, raw.height, raw.mount.height, raw.margin).with_distortion(raw.distortion);
        camera.mount = raw.mount;
        camera.validate().map_err(|e| ParamError::invalid(camera_key(&e), e))?;
        raw.render.validate().map_err(|e| ParamError::invalid(render_key(&e), e))?;
        Ok(Self {
            state_topic: params::topic_name("state_topic", raw.state_topic)?,
            image_topic: params::topic_name("image_topic", raw.image_topic)?,
            camera_info_topic: params::topic_name("camera_info_topic", raw.camera_info_topic)?,
            frame_id: non_empty("frame_id", raw.frame_id)?,
            parent_frame_id: non_empty("parent_frame_id", raw.parent_frame_id)?,
            rate,
            encoding,
            arena,
            tank_depth,
            camera,
            render: raw.render,
            save_frames_dir: optional_path(&raw.save_frames_dir),
        })
    }

    /// Height of the camera's reference plane (water surface, or table top) above the
    /// physics frame's origin (the arena floor), m, for a tank filled to `water_level`
    /// (m relative to the rim, as in flotilla_msgs/TankState).
    pub fn reference_z(&self, water_level: f64) -> f64 {
        self.tank_depth.map_or(0.0, |depth| depth + water_level)
    }
}

/// `tracker` parameters as they appear in the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawTracker {
    image_topic: String,
    camera_info_topic: String,
    image_best_effort: bool,
    tracks_topic: String,
    markers_topic: String,
    frame_id: String,
    plane_z: f64,
    mount: CameraMount,
    detector: DetectorConfig,
    tracker: TrackerConfig,
    tracks_csv: String,
    warn_interval: f64,
}

impl Default for RawTracker {
    fn default() -> Self {
        Self {
            image_topic: DEFAULT_IMAGE_TOPIC.into(),
            camera_info_topic: DEFAULT_CAMERA_INFO_TOPIC.into(),
            image_best_effort: false,
            tracks_topic: "/tracking/tracks".into(),
            markers_topic: "/tracking/markers".into(),
            frame_id: "world".into(),
            plane_z: 0.0,
            mount: CameraMount::default(),
            detector: DetectorConfig::default(),
            tracker: TrackerConfig::default(),
            tracks_csv: String::new(),
            warn_interval: 5.0,
        }
    }
}

/// Validated `tracker` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackerNodeConfig {
    /// Subscribed sensor_msgs/Image topic.
    pub image_topic: String,
    /// Subscribed sensor_msgs/CameraInfo topic.
    pub camera_info_topic: String,
    /// Subscribe to images best-effort (matches camera drivers using the sensor-data QoS
    /// profile; may lose frames) instead of reliable.
    pub image_best_effort: bool,
    /// Published flotilla_msgs/TrackArray topic.
    pub tracks_topic: String,
    /// Published visualization_msgs/MarkerArray topic.
    pub markers_topic: String,
    /// Frame of the tracks and markers.
    pub frame_id: String,
    /// Height of the water plane in `frame_id`, m (where the rviz markers are drawn).
    pub plane_z: f64,
    /// Where the camera hangs (CameraInfo does not carry it).
    pub mount: CameraMount,
    /// Detection settings.
    pub detector: DetectorConfig,
    /// Multi-target tracker settings.
    pub tracker: TrackerConfig,
    /// Trajectory CSV of the tracks (flushed every frame); `None` = off.
    pub tracks_csv: Option<PathBuf>,
    /// Shortest time between two warnings of the same kind (later ones are counted), s.
    pub warn_interval: Duration,
}

impl TrackerNodeConfig {
    /// Validates a parameter tree (standard ROS keys ignored).
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let raw: RawTracker = params::deserialize(&params::without_standard(tree))?;
        raw.detector.validate().map_err(|e| ParamError::invalid(format!("detector.{}", e.field), &e))?;
        raw.tracker.validate().map_err(|e| ParamError::invalid(format!("tracker.{}", e.field), &e))?;
        let probe = CameraModel { mount: raw.mount, ..CameraModel::lily_tank_default() };
        probe.validate().map_err(|e| ParamError::invalid(camera_key(&e), e))?;
        // Checked here too, so that `ros2 param set` refuses it instead of the node
        // accepting the value and then ignoring it.
        if let Err(e @ crate::pipeline::SetupError::MarkerAboveCamera { field, .. }) =
            crate::pipeline::check_marker_heights(&probe, &raw.detector)
        {
            return Err(ParamError::invalid(format!("detector.{field}"), e));
        }
        if !raw.plane_z.is_finite() {
            return Err(ParamError::invalid("plane_z", "must be finite"));
        }
        let warn_interval = Span::new(0.0, 3600.0).seconds(raw.warn_interval).map_err(|e| e.at("warn_interval"))?;
        Ok(Self {
            image_topic: params::topic_name("image_topic", raw.image_topic)?,
            camera_info_topic: params::topic_name("camera_info_topic", raw.camera_info_topic)?,
            image_best_effort: raw.image_best_effort,
            tracks_topic: params::topic_name("tracks_topic", raw.tracks_topic)?,
            markers_topic: params::topic_name("markers_topic", raw.markers_topic)?,
            frame_id: non_empty("frame_id", raw.frame_id)?,
            plane_z: raw.plane_z,
            mount: raw.mount,
            detector: raw.detector,
            tracker: raw.tracker,
            tracks_csv: optional_path(&raw.tracks_csv),
            warn_interval,
        })
    }
}

/// Top-level keys of the tracker's parameters that `camera_tracker` takes from its own
/// camera instead: the images, the camera's mount and the frame of the poses.
pub const CAMERA_FROM_TRACKER_KEYS: [&str; 5] = ["image_topic", "camera_info_topic", "image_best_effort", "frame_id", "mount"];

/// Top-level keys only the tracking part of `camera_tracker` reads.
const TRACKING_ONLY_KEYS: [&str; 7] = ["tracks_topic", "markers_topic", "plane_z", "detector", "tracker", "tracks_csv", "warn_interval"];

/// Validated `camera_tracker` settings: the overhead camera and the tracker in one process,
/// each rendered frame handed to the tracker in memory, so none can be lost between them.
/// Its parameter files are those of the two nodes: it reads their `overhead_camera` and
/// `tracker` sections ([`CameraTrackerConfig::load`]) and then its own.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraTrackerConfig {
    /// The camera, as `overhead_camera` would run it.
    pub camera: CameraNodeConfig,
    /// The tracker, its image, mount and frame taken from `camera`.
    pub tracker: TrackerNodeConfig,
}

impl CameraTrackerConfig {
    /// Validates a parameter tree (standard ROS keys ignored): the tracking keys
    /// ([`CAMERA_TRACKER_PARAMS`]) go to the tracker, every other key to the camera.
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let (mut camera_tree, mut tracking_tree) = (Mapping::new(), Mapping::new());
        for (key, value) in params::without_standard(tree) {
            let tracking = key.as_str().is_some_and(|k| TRACKING_ONLY_KEYS.contains(&k));
            if tracking { &mut tracking_tree } else { &mut camera_tree }.insert(key, value);
        }
        let camera = CameraNodeConfig::from_tree(&camera_tree)?;
        let mut tracker = TrackerNodeConfig::from_tree(&tracking_tree)?;
        tracker.image_topic.clone_from(&camera.image_topic);
        tracker.camera_info_topic.clone_from(&camera.camera_info_topic);
        tracker.frame_id.clone_from(&camera.parent_frame_id);
        tracker.mount = camera.camera.mount;
        Ok(Self { camera, tracker })
    }

    /// The parameter tree from the command line: every file's `overhead_camera` and
    /// `tracker` sections (without the tracker's [`CAMERA_FROM_TRACKER_KEYS`]), then the
    /// node's own sections and the `-p` overrides.
    pub fn load(args: &params::NodeArgs) -> Result<Mapping, ParamError> {
        args.load_composite(&["overhead_camera", "tracker"], |component, section| {
            if component == "tracker" {
                for key in CAMERA_FROM_TRACKER_KEYS {
                    section.remove(key);
                }
            }
        })
    }
}

/// Where the stamps of replayed frames come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayStamps {
    /// `stamps.csv` of the folder (written by `overhead_camera`), else `start_time + k / rate`.
    Recorded,
    /// `start_time + k / rate`.
    Rate,
    /// Wall-clock (UNIX) time when the frame is published, as a live camera driver
    /// without sim time stamps its frames.
    Wall,
}

/// `image_replay` parameters as they appear in the file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct RawReplay {
    directory: String,
    image_topic: String,
    camera_info_topic: String,
    frame_id: String,
    rate: f64,
    speed: f64,
    stamps: String,
    start_time: f64,
    #[serde(rename = "loop")]
    repeat: bool,
    wait_for_subscribers: u32,
    linger: f64,
    done_topic: String,
    done_timeout: f64,
    lockstep: bool,
}

impl Default for RawReplay {
    fn default() -> Self {
        Self {
            directory: String::new(),
            image_topic: DEFAULT_IMAGE_TOPIC.into(),
            camera_info_topic: DEFAULT_CAMERA_INFO_TOPIC.into(),
            frame_id: "overhead_camera".into(),
            rate: 30.0,
            speed: 1.0,
            stamps: "recorded".into(),
            start_time: 0.0,
            repeat: false,
            wait_for_subscribers: 0,
            linger: 1.0,
            done_topic: String::new(),
            done_timeout: 10.0,
            lockstep: false,
        }
    }
}

/// Validated `image_replay` settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayNodeConfig {
    /// Folder of PNG frames with `camera.yaml` (and optionally `stamps.csv`).
    pub directory: PathBuf,
    /// Published sensor_msgs/Image topic.
    pub image_topic: String,
    /// Published sensor_msgs/CameraInfo topic.
    pub camera_info_topic: String,
    /// `frame_id` of the headers.
    pub frame_id: String,
    /// Frames per second of the recording, Hz (stamps without `stamps.csv`, and pacing).
    pub rate: f64,
    /// Playback speed: recording seconds per wall second; 0 = as fast as possible.
    pub speed: f64,
    /// Stamp source.
    pub stamps: ReplayStamps,
    /// Stamp of the first frame when stamps come from the rate, s.
    pub start_time: f64,
    /// Start again after the last frame (stamps keep increasing).
    pub repeat: bool,
    /// Wait until this many subscribers listen on the image and CameraInfo topics before
    /// the first frame.
    pub wait_for_subscribers: u32,
    /// Time to stay up after the last frame so subscribers receive it, s.
    pub linger: Duration,
    /// A flotilla_msgs/TrackArray topic (the tracker's output) whose message stamped with
    /// the last frame's stamp proves that frame was tracked: the replay waits for it
    /// (up to `done_timeout`) before lingering and ending; `None`: no wait.
    pub done_topic: Option<String>,
    /// Longest wait for `done_topic`, s.
    pub done_timeout: Duration,
    /// Each frame waits until `done_topic` shows the previous one tracked (at most
    /// `done_timeout`): a loaded consumer is never overrun, so no frame is lost.
    pub lockstep: bool,
}

impl ReplayNodeConfig {
    /// Validates a parameter tree (standard ROS keys ignored).
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let raw: RawReplay = params::deserialize(&params::without_standard(tree))?;
        let directory = optional_path(&raw.directory)
            .ok_or_else(|| ParamError::invalid("directory", "is required: the folder of PNG frames to replay"))?;
        if !directory.is_dir() {
            return Err(ParamError::invalid("directory", format!("{} is not a folder", directory.display())));
        }
        let rate = frame_rate("rate", raw.rate)?;
        // 0 = as fast as possible; otherwise recording seconds per wall second.
        let speed = SPEED.check(raw.speed, "x").map_err(|e| e.at("speed"))?;
        let stamps = match raw.stamps.as_str() {
            "recorded" => ReplayStamps::Recorded,
            "rate" => ReplayStamps::Rate,
            "wall" => ReplayStamps::Wall,
            other => return Err(ParamError::invalid("stamps", format!("must be recorded, rate or wall, got `{other}`"))),
        };
        if !(raw.start_time.is_finite() && raw.start_time >= 0.0) {
            return Err(ParamError::invalid("start_time", format!("must be a finite time >= 0 s, got {}", raw.start_time)));
        }
        let done_timeout = Span::new(0.0, 3600.0).seconds(raw.done_timeout).map_err(|e| e.at("done_timeout"))?;
        let linger = Span::new(0.0, 3600.0).seconds(raw.linger).map_err(|e| e.at("linger"))?;
        if raw.lockstep && raw.done_topic.is_empty() {
            return Err(ParamError::invalid("lockstep", "needs done_topic: the tracker's TrackArray topic that shows a frame tracked"));
        }
        Ok(Self {
            directory,
            image_topic: params::topic_name("image_topic", raw.image_topic)?,
            camera_info_topic: params::topic_name("camera_info_topic", raw.camera_info_topic)?,
            frame_id: non_empty("frame_id", raw.frame_id)?,
            rate,
            speed,
            stamps,
            start_time: raw.start_time,
            repeat: raw.repeat,
            wait_for_subscribers: raw.wait_for_subscribers,
            linger,
            done_topic: if raw.done_topic.is_empty() { None } else { Some(params::topic_name("done_topic", raw.done_topic)?) },
            done_timeout,
            lockstep: raw.lockstep,
        })
    }
}

fn arena_from(raw: &RawArena) -> Result<(ArenaOutline, Option<f64>), ParamError> {
    let depth = || positive("arena.depth", raw.depth);
    Ok(match raw.kind.as_str() {
        "round_tank" => (ArenaOutline::round(positive("arena.diameter", raw.diameter)?), Some(depth()?)),
        "rect_tank" => (
            ArenaOutline::Rectangle { size_x: positive("arena.size_x", raw.size_x)?, size_y: positive("arena.size_y", raw.size_y)? },
            Some(depth()?),
        ),
        "table" => {
            (ArenaOutline::Rectangle { size_x: positive("arena.size_x", raw.size_x)?, size_y: positive("arena.size_y", raw.size_y)? }, None)
        }
        other => return Err(ParamError::invalid("arena.kind", format!("must be round_tank, rect_tank or table, got `{other}`"))),
    })
}

/// Replay speed factor: 0 (as fast as possible) or between 1/1000 and 1000 times real time.
const SPEED: Span = Span::new(1e-3, 1e3).or_zero();

/// A frame rate whose period lies between 1 ms and 1 h (1/3600 to 1000 Hz).
fn frame_rate(key: &str, hz: f64) -> Result<f64, ParamError> {
    Span::new(1e-3, 3600.0).period_of_rate(hz).map_err(|e| e.at(key))?;
    Ok(hz)
}

fn positive(key: &str, value: f64) -> Result<f64, ParamError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(ParamError::invalid(key, format!("must be a finite number > 0, got {value}")))
    }
}

fn non_empty(key: &str, value: String) -> Result<String, ParamError> {
    if value.is_empty() {
        Err(ParamError::invalid(key, "must not be empty"))
    } else {
        Ok(value)
    }
}

fn optional_path(text: &str) -> Option<PathBuf> {
    (!text.is_empty()).then(|| PathBuf::from(text))
}

/// The parameter key of a camera model error.
fn camera_key(e: &crate::camera::CameraError) -> String {
    match e {
        crate::camera::CameraError::InvalidParameter { field, .. } => (*field).to_owned(),
        _ => "width".to_owned(),
    }
}

/// The parameter key of a render option error.
fn render_key(e: &crate::render::RenderError) -> String {
    match e {
        crate::render::RenderError::InvalidOption { field, .. } => format!("render.{field}"),
        crate::render::RenderError::Camera(c) => camera_key(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Mapping {
        serde_yaml::from_str(text).unwrap()
    }

    /// Each node's table: its defaults, names and ranges are those of its own validation.
    #[test]
    fn tables_match_the_validation() {
        use flotilla_common::param_spec::check_table;
        let shown = |r: Result<String, ParamError>| r.map_err(|e| e.to_string());
        let camera = check_table(CAMERA_PARAMS.params(), "{}", |t| shown(CameraNodeConfig::from_tree(t).map(|c| format!("{c:?}"))));
        assert_eq!(camera, Ok(()));
        let tracker = check_table(TRACKER_PARAMS.params(), "{}", |t| shown(TrackerNodeConfig::from_tree(t).map(|c| format!("{c:?}"))));
        assert_eq!(tracker, Ok(()));
        let base = format!("directory: {}", env!("CARGO_MANIFEST_DIR"));
        let replay = check_table(REPLAY_PARAMS.params(), &base, |t| shown(ReplayNodeConfig::from_tree(t).map(|c| format!("{c:?}"))));
        assert_eq!(replay, Ok(()));
        let both =
            check_table(CAMERA_TRACKER_PARAMS.params(), "{}", |t| shown(CameraTrackerConfig::from_tree(t).map(|c| format!("{c:?}"))));
        assert_eq!(both, Ok(()));
    }

    #[test]
    fn camera_tracker_splits_its_keys_and_tracks_its_own_camera() {
        let c = CameraTrackerConfig::from_tree(&tree(
            "parent_frame_id: lab\nmount: {x: 0.1, y: 0.0, height: 1.5}\nwidth: 512\ntracks_topic: /t\ndetector: {marker_height: 0.01}",
        ))
        .unwrap();
        assert_eq!((c.camera.camera.width, c.tracker.tracks_topic.as_str()), (512, "/t"));
        assert_eq!((c.tracker.frame_id.as_str(), c.tracker.mount, c.tracker.detector.marker_height), ("lab", c.camera.camera.mount, 0.01));
        // A key of neither is refused by name; so is a tracker input key (the camera's own).
        for (text, key) in
            [("tracker: {gate_sigma: 4.0}", "gate_sigma"), ("colour: red", "colour"), ("image_best_effort: true", "image_best_effort")]
        {
            let err = CameraTrackerConfig::from_tree(&tree(text)).unwrap_err().to_string();
            assert!(err.contains(key), "{text}: {err}");
        }
    }

    #[test]
    fn camera_defaults_are_the_lily_tank_camera() {
        let c = CameraNodeConfig::from_tree(&Mapping::new()).unwrap();
        assert_eq!(c.camera, CameraModel::lily_tank_default());
        assert_eq!((c.rate, c.encoding, c.save_frames_dir.as_deref()), (30.0, Encoding::Rgb8, None));
        // Round tank 0.3 m deep at -8 cm: the water is 0.22 m above the floor.
        assert!((c.reference_z(-0.08) - 0.22).abs() < 1e-12);
    }

    #[test]
    fn camera_settings_are_applied() {
        let c = CameraNodeConfig::from_tree(&tree(
            "use_sim_time: true\nencoding: mono8\nwidth: 512\nheight: 256\nmount: {x: 0.01, height: 2.0}\n\
             distortion: {k1: -0.1}\nrender: {noise_sigma: 4.0, seed: 9}\narena: {kind: table, size_x: 2.0, size_y: 1.0}\n\
             save_frames_dir: /tmp/f",
        ))
        .unwrap();
        assert_eq!((c.camera.width, c.camera.height, c.encoding), (512, 256, Encoding::Mono8));
        assert_eq!((c.camera.mount.x, c.camera.mount.y, c.camera.mount.height), (0.01, 0.0, 2.0));
        assert_eq!((c.camera.distortion.k1, c.render.noise_sigma, c.render.seed), (-0.1, 4.0, 9));
        assert_eq!(c.arena, ArenaOutline::Rectangle { size_x: 2.0, size_y: 1.0 });
        assert_eq!(c.reference_z(-0.08), 0.0);
        assert_eq!(c.save_frames_dir, Some(PathBuf::from("/tmp/f")));
    }

    #[test]
    fn camera_errors_name_the_key() {
        let cases = [
            ("rate: 0.0", "rate"),
            ("encoding: yuv422", "encoding"),
            ("width: 8", "width"),
            ("mount: {height: -1.0}", "mount.height"),
            ("render: {blur_sigma: -1.0}", "render.blur_sigma"),
            ("render: {nois_sigma: 1.0}", "render"),
            ("arena: {kind: pond}", "arena.kind"),
            ("distortion: {k1: .nan}", "distortion.k1"),
            ("frame_rate: 30.0", "frame_rate"),
        ];
        for (text, key) in cases {
            let err = CameraNodeConfig::from_tree(&tree(text)).unwrap_err().to_string();
            assert!(err.contains(key), "{text}: {err}");
        }
    }

    #[test]
    fn tracker_settings_and_errors() {
        let t = TrackerNodeConfig::from_tree(&tree(
            "image_topic: /cam/image\ndetector: {marker_height: 0.01, region: {kind: round_tank, diameter: 0.6}}\n\
             tracker: {confirm_hits: 3}\ntracks_csv: out.csv\nwarn_interval: 2.0",
        ))
        .unwrap();
        assert_eq!(t.image_topic, "/cam/image");
        assert_eq!(t.detector.marker_height, 0.01);
        assert_eq!(t.detector.region, Some(ArenaOutline::round(0.6)));
        assert_eq!(t.tracker.confirm_hits, 3);
        assert_eq!((t.tracks_csv, t.warn_interval), (Some(PathBuf::from("out.csv")), Duration::from_secs(2)));
        for (text, key) in [
            ("detector: {edge_margin: 0}", "detector.edge_margin"),
            ("tracker: {max_gate_distance: 0.001}", "tracker.max_gate_distance"),
            ("detector: {treshold: 100}", "treshold"),
            ("mount: {height: 0.0}", "mount.height"),
            ("warn_interval: -1.0", "warn_interval"),
            ("image_topic: ''", "image_topic"),
        ] {
            let err = TrackerNodeConfig::from_tree(&tree(text)).unwrap_err().to_string();
            assert!(err.contains(key), "{text}: {err}");
        }
    }

    #[test]
    fn replay_settings_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let r = ReplayNodeConfig::from_tree(&tree(&format!("directory: {d}\nspeed: 0.0\nstamps: wall\nloop: true"))).unwrap();
        assert_eq!((r.speed, r.stamps, r.repeat, r.rate), (0.0, ReplayStamps::Wall, true, 30.0));
        assert_eq!(r.done_topic, None);
        let r = ReplayNodeConfig::from_tree(&tree(&format!("directory: {d}\ndone_topic: /tracking/tracks\ndone_timeout: 3.0"))).unwrap();
        assert_eq!((r.done_topic.as_deref(), r.done_timeout), (Some("/tracking/tracks"), Duration::from_secs(3)));
        for (text, key) in [
            (format!("directory: {d}\ndone_timeout: -1.0"), "done_timeout"),
            (String::new(), "directory"),
            ("directory: /no/such/folder".to_owned(), "/no/such/folder"),
            (format!("directory: {d}\nstamps: later"), "stamps"),
            (format!("directory: {d}\nrate: -2.0"), "rate"),
            (format!("directory: {d}\nspeed: .inf"), "speed"),
            (format!("directory: {d}\nlockstep: true"), "`lockstep`: needs done_topic"),
        ] {
            let err = ReplayNodeConfig::from_tree(&tree(&text)).unwrap_err().to_string();
            assert!(err.contains(key), "{text}: {err}");
        }
    }

    /// A marker plane at or above the camera was accepted and nothing was ever detected.
    #[test]
    fn marker_planes_at_or_above_the_camera_are_refused() {
        for text in ["detector: {marker_height: 1.0}", "mount: {height: 0.5}\ndetector: {marker_height: 0.7}"] {
            let err = TrackerNodeConfig::from_tree(&tree(text)).unwrap_err().to_string();
            assert!(err.contains("`detector.marker_height`") && err.contains("not below the camera"), "{text}: {err}");
        }
        assert!(TrackerNodeConfig::from_tree(&tree("detector: {marker_height: 0.9}")).is_ok());
        let camera = CameraModel::lily_tank_default();
        let detector = crate::DetectorConfig { marker_height: 1.5, ..crate::DetectorConfig::default() };
        let err = crate::Tracker::new(camera, detector, crate::TrackerConfig::default()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("not below the camera"), "{err}");
    }

    /// `ros2 param set /tracker frame_id ""` was accepted (tracks no tool can place);
    /// the camera already refused it.
    #[test]
    fn empty_frame_ids_are_refused_by_the_tracker_and_the_replay() {
        let err = TrackerNodeConfig::from_tree(&tree("frame_id: ''")).unwrap_err().to_string();
        assert!(err.contains("`frame_id`") && err.contains("must not be empty"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let err = ReplayNodeConfig::from_tree(&tree(&format!(
            "directory: {}
frame_id: ''",
            dir.path().display()
        )))
        .unwrap_err()
        .to_string();
        assert!(err.contains("`frame_id`") && err.contains("must not be empty"), "{err}");
    }

    /// Issue 21 item 1: huge or tiny durations and rates were accepted and then panicked in
    /// `Duration::from_secs_f64`; now each is a clear parameter error.
    #[test]
    fn item1_huge_or_tiny_durations_are_refused() {
        let err = TrackerNodeConfig::from_tree(&tree("warn_interval: 1.0e300")).unwrap_err().to_string();
        assert!(err.contains("warn_interval") && err.contains("1e300"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        for (body, key) in [
            ("linger: 1.0e300", "linger"),
            ("rate: 1.0e-300", "rate"),
            ("speed: 1.0e-300", "speed"),
            ("done_timeout: .nan", "done_timeout"),
        ] {
            let err = ReplayNodeConfig::from_tree(&tree(&format!("directory: {d}\n{body}"))).unwrap_err().to_string();
            assert!(err.contains(key), "{body}: {err}");
        }
        assert!(CameraNodeConfig::from_tree(&tree("rate: 1.0e-300")).unwrap_err().to_string().contains("rate"));
    }
}
