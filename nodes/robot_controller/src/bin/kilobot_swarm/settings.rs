//! The node's parameters: the shape (`shape.image`, `shape.scale`), how many robots and
//! how they are packed (`robots`, `pack.*`), the run seed, the firmware's parameters
//! (`firmware.*`, [`SelfAssemblyParams`]), the overhead controller (`overhead.*`) and the
//! markers (`markers.*`). The scene is built here, so a bad image or scale stops the node
//! at start-up with the reason.

use flotilla_common::param_spec::{DefaultValue, Kind, NodeParams, ParamSpec as P};
use flotilla_common::params::{self, take_section, ParamError};
use flotilla_firmware::kilobot::{Localisation, SelfAssemblyParams};
use robot_controller::kilobot::layout::{robots_for_area, shape_from_image, Arrangement, Headings, PackSpec, SEEDS};
use robot_controller::kilobot::Scene;
use serde::Deserialize;
use serde_yaml::{Mapping, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// The shape to assemble.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ShapeSettings {
    /// Black-and-white image (PNG, JPEG, BMP, ...): dark pixels are the shape, its lower-left corner the
    /// origin. Required.
    pub image: String,
    /// World units (robot diameters, 32.5 mm) per pixel. Default 0.05.
    pub scale: f64,
}

impl Default for ShapeSettings {
    fn default() -> Self {
        Self { image: String::new(), scale: 0.05 }
    }
}

/// How the robots that join the shape are packed beside it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PackSettings {
    /// Where the pack stands: `corner` (lower left of the seeds) or `study` (the study's
    /// code: the seeds' lattice continued below them, robots numbered in layout order).
    /// Default `corner`.
    pub arrangement: String,
    /// Which way the robots face at the start: `random` or `north`. Default `random`.
    pub headings: String,
    /// Lattice spacing, world units; 0 = the firmware's DESIRED_DISTANCE (1 for the study's
    /// arrangement). Default 0.
    pub spacing: f64,
    /// Least distance from the pack to the shape, world units. Default 1.5 (3r).
    pub clearance: f64,
}

impl Default for PackSettings {
    fn default() -> Self {
        Self { arrangement: "corner".to_owned(), headings: "random".to_owned(), spacing: 0.0, clearance: 1.5 }
    }
}

/// kilolib's overhead-controller states.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OverheadSettings {
    /// Robots stay idle (no program, still, silent) until the overhead controller's RUN
    /// (`/kilobot/overhead`), as Kilobots do after power-on. Default false: they run at once.
    pub wait_for_run: bool,
}

/// `/kilobot/markers`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MarkerSettings {
    /// Hz of sim time; 0 = none. Default 2.
    pub rate: f64,
    /// Gradient labels are drawn when the swarm has at most this many robots. Default 300.
    pub max_labels: usize,
    /// Fixed frame of the shape and the believed positions. Default `world`.
    pub frame_id: String,
}

impl Default for MarkerSettings {
    fn default() -> Self {
        Self { rate: 2.0, max_labels: 300, frame_id: "world".into() }
    }
}

/// The node's parameters for ROS 2 tools (`ros2 param describe /kilobot_swarm <name>`),
/// checked against [`SwarmSettings::from_tree`]; all are read at start-up.
pub const PARAMS: NodeParams = NodeParams {
    groups: &[&[
        P::integer("seed", 1, "Run seed (the pack's ids and headings, the firmware's draws)").int_range(0, i64::MAX),
        P::integer("robots", 0, "Robots that join the shape (beside the 4 seeds; ids are 16 bits); 0 = as many as the shape's area holds")
            .int_range(0, (MAX_ROBOTS as usize - SEEDS.len()) as i64),
        P::string("name_prefix", "kb_", "Robot names are <prefix><index>, the seeds first: letters, digits or _"),
        P::double("report_every", 30.0, "Sim seconds between progress lines in the log, s (>= 0); 0 = none"),
        P::new(
            "shape.image",
            DefaultValue::Unset(Kind::String),
            "Black-and-white image (PNG, JPEG, BMP, ...) of the shape to assemble: dark pixels are the shape, its lower-left corner the origin (required)",
        ),
        P::double("shape.scale", 0.05, "World units (robot diameters, 32.5 mm) per pixel (> 0)"),
        P::string(
            "pack.arrangement",
            "corner",
            "Where the robots start: corner (lower left of the seeds) or study (the study's code: below the seeds, touching, numbered in layout order)",
        ),
        P::string("pack.headings", "random", "Which way the robots face at the start: random or north (the study's)"),
        P::double(
            "pack.spacing",
            0.0,
            "Lattice spacing of the robots packed beside the shape, world units (at least 1); 0 = firmware.desired_distance (1 for the study's arrangement)",
        ),
        P::double("pack.clearance", 1.5, "Least distance from the pack to the shape, world units (>= 0)"),
        P::double(
            "firmware.desired_distance",
            1.615,
            "DESIRED_DISTANCE: edge-following distance to the nearest stationary neighbour, world units (> 1, below gradient_distance and neighbor_radius)",
        ),
        P::double("firmware.neighbor_radius", 4.845, "NEIGHBOR_RADIUS: messages from farther are ignored, world units (above desired_distance, at least gradient_distance)"),
        P::double("firmware.gradient_distance", 1.715, "G: neighbours closer than this count for the gradient, world units (above desired_distance, at most neighbor_radius)"),
        P::double("firmware.divide_localize", 2.0, "DIVIDE_LOCALIZE: divisor of the greedy localisation step (dimensionless, >= 1)"),
        P::integer("firmware.startup_time", 500, "STARTUP_TIME, ticks").int_range(0, u32::MAX as i64),
        P::string(
            "firmware.localisation",
            "greedy",
            "TRILATERATION_TYPE: greedy or least-squares (ideal is refused: a host on ROS has no true position)",
        ),
        P::double("firmware.world_unit_mm", 32.5, "Length of a world unit (the robot's diameter), mm (> 0)"),
        P::integer("firmware.neighbour_timeout", 32, "A neighbour not heard for this many ticks is forgotten, ticks")
            .int_range(0, u32::MAX as i64),
        P::integer("firmware.min_references", 3, "Localised stationary neighbours needed to localise (3: trilateration)")
            .int_range(2, i64::MAX),
        P::string(
            "firmware.references",
            "shape",
            "Whom robots localise from: shape (seeds and joined robots; joined robots keep localising) or study (the study's code: every stationary robot whose estimate holds still; joined robots freeze)",
        ),
        P::integer("firmware.reference_max_age", 2, "A reference's distance localises only if heard at most this many ticks ago, ticks")
            .int_range(0, u32::MAX as i64),
        P::boolean(
            "overhead.wait_for_run",
            false,
            "Robots stay idle until the overhead controller's RUN on /kilobot/overhead, as after power-on",
        ),
        P::double("markers.rate", 2.0, "Rate of /kilobot/markers, Hz of sim time (>= 0); 0 = none"),
        P::integer("markers.max_labels", 300, "Gradient labels are drawn when the swarm has at most this many robots")
            .int_range(0, i64::MAX),
        P::string("markers.frame_id", "world", "Fixed frame of the shape and the believed positions"),
    ]],
    extras_live: false,
};

/// Everything the node is configured with.
#[derive(Debug, Clone)]
pub struct SwarmSettings {
    /// The laid-out run: shape, seeds, pack, ids, headings.
    pub scene: Scene,
    /// Robot names, `<prefix><index>` (the seeds first).
    pub names: Vec<String>,
    /// The firmware's parameters.
    pub firmware: SelfAssemblyParams,
    /// Overhead controller.
    pub overhead: OverheadSettings,
    /// Markers.
    pub markers: MarkerSettings,
    /// Sim seconds between progress lines in the log; 0 = none. Default 30.
    pub report_every: f64,
    /// The shape image, as given.
    pub image: PathBuf,
}

/// Most robots (ids are 16 bits).
const MAX_ROBOTS: u64 = robot_controller::kilobot::layout::MAX_ROBOTS as u64;

impl SwarmSettings {
    /// Validates a parameter tree (standard ROS keys are ignored), reads the image and lays
    /// the scene out; errors name the key or the image.
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let mut tree = params::without_standard(tree);
        let integer = |tree: &mut Mapping, key: &str, default: u64| match tree.remove(key) {
            None => Ok(default),
            Some(v) => v.as_u64().ok_or_else(|| ParamError::invalid(key, format!("must be an integer >= 0, got {}", show(&v)))),
        };
        let seed = integer(&mut tree, "seed", 1)?;
        let robots = integer(&mut tree, "robots", 0)?;
        let report_every = match tree.remove("report_every") {
            None => 30.0,
            Some(v) => v
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| ParamError::invalid("report_every", format!("must be a number >= 0 (s), got {}", show(&v))))?,
        };
        let name_prefix = match tree.remove("name_prefix") {
            None => "kb_".to_owned(),
            Some(Value::String(s)) if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => s,
            Some(v) => return Err(ParamError::invalid("name_prefix", format!("must be letters, digits or `_`, got {}", show(&v)))),
        };
        let shape = take_section::<ShapeSettings>(&mut tree, "shape")?;
        let pack = take_section::<PackSettings>(&mut tree, "pack")?;
        let firmware = take_section::<SelfAssemblyParams>(&mut tree, "firmware")?;
        let overhead = take_section::<OverheadSettings>(&mut tree, "overhead")?;
        let markers = take_section::<MarkerSettings>(&mut tree, "markers")?;
        if let Some(key) = tree.keys().next() {
            return Err(ParamError::invalid(
                show(key),
                "unknown parameter (known: seed, robots, name_prefix, report_every, shape, pack, firmware, overhead, markers)",
            ));
        }
        firmware.validate().map_err(|e| ParamError::invalid(format!("firmware.{}", e.field), e))?;
        if firmware.localisation == Localisation::Ideal {
            return Err(ParamError::invalid(
                "firmware.localisation",
                "`ideal` copies the simulator's true position into the firmware, which a host on ROS does not have (and a Kilobot cannot know): use greedy or least-squares",
            ));
        }
        if shape.image.is_empty() {
            return Err(ParamError::invalid("shape.image", "give the shape's black-and-white image (PNG, JPEG, BMP, ...)"));
        }
        if !(shape.scale.is_finite() && shape.scale > 0.0) {
            return Err(ParamError::invalid("shape.scale", format!("must be a number > 0 (world units per pixel), got {}", shape.scale)));
        }
        if !(pack.clearance.is_finite() && pack.clearance >= 0.0) {
            return Err(ParamError::invalid("pack.clearance", format!("must be a number >= 0, got {}", pack.clearance)));
        }
        let arrangement: Arrangement = pack.arrangement.parse().map_err(|e: String| ParamError::invalid("pack.arrangement", e))?;
        let headings: Headings = pack.headings.parse().map_err(|e: String| ParamError::invalid("pack.headings", e))?;
        let spacing = match (pack.spacing, arrangement) {
            (0.0, Arrangement::Study) => 1.0,
            (0.0, Arrangement::Corner) => firmware.desired_distance,
            (s, _) => s,
        };
        if !(spacing.is_finite() && spacing >= 1.0) {
            return Err(ParamError::invalid(
                "pack.spacing",
                format!("must be at least 1 (one diameter) or 0 (DESIRED_DISTANCE), got {spacing}"),
            ));
        }
        if !(markers.rate.is_finite() && markers.rate >= 0.0) {
            return Err(ParamError::invalid("markers.rate", format!("must be a number >= 0 (Hz), got {}", markers.rate)));
        }
        if robots > MAX_ROBOTS {
            return Err(ParamError::invalid("robots", format!("at most {MAX_ROBOTS} (Kilobot ids are 16 bits), got {robots}")));
        }
        let image = PathBuf::from(&shape.image);
        let bitmap = Arc::new(shape_from_image(&image, shape.scale).map_err(|e| ParamError::invalid("shape.image", e))?);
        let robots = if robots == 0 {
            robots_for_area(&bitmap, firmware.desired_distance)
                .map_err(|e| ParamError::invalid("robots", format!("0 (fill the shape): {e}")))?
        } else {
            robots as usize
        };
        let spec = PackSpec {
            robots,
            arrangement,
            headings,
            spacing,
            clearance: pack.clearance,
            gradient_distance: firmware.gradient_distance,
            bounds: None,
        };
        let scene = Scene::new(bitmap, &spec, seed).map_err(|e| ParamError::invalid("shape", e))?;
        let names = (0..scene.len()).map(|i| format!("{name_prefix}{i}")).collect();
        Ok(Self { scene, names, firmware, overhead, markers, report_every, image })
    }
}

/// A YAML value as the user wrote it.
fn show(v: &Value) -> String {
    serde_yaml::to_string(v).map_or_else(|_| format!("{v:?}"), |s| s.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/shapes");

    fn settings(yaml: &str) -> Result<SwarmSettings, ParamError> {
        SwarmSettings::from_tree(&serde_yaml::from_str(yaml).unwrap())
    }

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        let base = format!("shape: {{image: {SHAPES}/rectangle_10x5.png}}");
        let check = flotilla_common::param_spec::check_table(PARAMS.params(), &base, |t| {
            SwarmSettings::from_tree(t).map(|s| format!("{s:?}")).map_err(|e| e.to_string())
        });
        assert_eq!(check, Ok(()));
    }

    #[test]
    fn a_shipped_shape_lays_out_as_the_experiment_does() {
        let s = settings(&format!("shape: {{image: {SHAPES}/rectangle_10x5.png, scale: 0.05}}\nrobots: 25\nseed: 3")).unwrap();
        assert_eq!((s.scene.len(), s.scene.seeds(), s.names[28].as_str()), (29, 4, "kb_28"));
        // The experiment's pack spacing is DESIRED_DISTANCE.
        let pack = PackSpec {
            robots: 25,
            arrangement: Arrangement::Corner,
            headings: Headings::Random,
            spacing: 1.615,
            clearance: 1.5,
            gradient_distance: 1.715,
            bounds: None,
        };
        let same = Scene::new(s.scene.shape.clone(), &pack, 3).unwrap();
        assert_eq!((same.poses, same.uids), (s.scene.poses.clone(), s.scene.uids.clone()));
        let auto = settings(&format!("shape: {{image: {SHAPES}/rectangle_10x5.png, scale: 0.05}}")).unwrap();
        assert_eq!(auto.scene.len(), 18 + 4);
        // The study's scene, as `--pack study --headings north` lays it out.
        let study = settings(&format!(
            "shape: {{image: {SHAPES}/rectangle_10x5.png, scale: 0.05}}\nrobots: 25\nseed: 3\npack: {{arrangement: study, headings: north}}"
        ))
        .unwrap();
        let pack = PackSpec { arrangement: Arrangement::Study, headings: Headings::North, spacing: 1.0, ..pack };
        let same = Scene::new(study.scene.shape.clone(), &pack, 3).unwrap();
        assert_eq!((same.poses, same.uids), (study.scene.poses.clone(), study.scene.uids.clone()));
    }

    #[test]
    fn bad_values_name_the_key_or_the_image() {
        let dir = tempfile::tempdir().unwrap();
        let grey = dir.path().join("grey.png");
        image::GrayImage::from_fn(4, 4, |_, _| image::Luma([128])).save(&grey).unwrap();
        let rect = format!("{SHAPES}/rectangle_10x5.png");
        for (yaml, says) in [
            (format!("shape: {{image: {rect}, scale: 0}}"), "shape.scale"),
            (format!("shape: {{image: {rect}, scale: -1}}"), "shape.scale"),
            ("shape: {scale: 1}".to_owned(), "shape.image"),
            (format!("shape: {{image: {}/missing.png}}", dir.path().display()), "missing.png"),
            (format!("shape: {{image: {}, scale: 1}}", grey.display()), "not black or white"),
            (format!("shape: {{image: {rect}}}\nfirmware: {{localisation: ideal}}"), "firmware.localisation"),
            (format!("shape: {{image: {rect}}}\nfirmware: {{desired_distance: -1}}"), "firmware.desired_distance"),
            (format!("shape: {{image: {rect}}}\nfirmware: {{desird: 1}}"), "desird"),
            (format!("shape: {{image: {rect}}}\nrobots: -4"), "robots"),
            (format!("shape: {{image: {rect}}}\nrobots: 70000"), "16 bits"),
            (format!("shape: {{image: {rect}}}\npack: {{spacing: 0.5}}"), "pack.spacing"),
            (format!("shape: {{image: {rect}}}\npack: {{arrangement: heap}}"), "pack.arrangement"),
            (format!("shape: {{image: {rect}}}\npack: {{headings: east}}"), "pack.headings"),
            (format!("shape: {{image: {rect}}}\nrobotz: 4"), "robotz"),
            (format!("shape: {{image: {rect}, scale: 0.001}}"), "not on the shape"),
        ] {
            let err = settings(&yaml).unwrap_err().to_string();
            assert!(err.contains(says), "{yaml}: {err}");
        }
    }
}
