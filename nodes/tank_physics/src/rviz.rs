//! rviz2 views of the scenarios: the general view `config/flotilla.rviz` (grid, TF, the
//! tank's markers, flow arrows, MoleMOD's blocks and plan, camera image, tracks) plus one
//! RobotModel display per module the scenario starts with, grouped, each reading
//! `/<module>/robot_description` (Description Source: Topic, transient local) with `TF
//! Prefix: <module>`, so that it finds the link frames the physics node publishes
//! (`<module>/base_link`, `<module>/latch_0`, ...). The fixed frame is the scenario's
//! `publish.frame_id` (default `world`).
//!
//! The `gen_rviz` binary writes them as `config/<scenario>.rviz` for [`SCENARIOS`] and
//! `config/molemod.rviz` for MoleMOD's `molemod_physics` ([`molemod_modules`]); the
//! `rviz_views` test checks that the committed files are its output. The launch file of
//! each starts rviz2 on its view with `rviz:=true`.

use std::path::{Path, PathBuf};

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::params::{self, NodeIdentity, ParamError};
use serde_yaml::Value;

use crate::config::{ConfigError, ModuleGroup};

/// The scenarios with a view of their own: `config/<name>.yaml` -> `config/<name>.rviz`.
pub const SCENARIOS: [&str; 2] = ["lily_15", "pingpong_24"];

/// The view of MoleMOD's `molemod_physics` node and its launch file.
pub const MOLEMOD_VIEW: &str = "molemod";

/// Robots the MoleMOD view draws: Table 1's largest fleet. A task with fewer robots
/// leaves the others' RobotModels without a description, which rviz shows as a status.
pub const MOLEMOD_VIEW_ROBOTS: usize = 6;

/// The general view the scenario views add their modules to, in the config directory.
pub const BASE_VIEW: &str = "flotilla.rviz";

/// Fixed frame of a scenario that does not set `publish.frame_id` (the node's default).
const DEFAULT_FRAME: &str = "world";

/// The display class of one module's model.
pub const ROBOT_MODEL_CLASS: &str = "rviz_default_plugins/RobotModel";

/// Name of the group display holding the modules' RobotModels.
pub const MODULES_GROUP: &str = "Modules (RobotModel)";

/// A view that cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The base view is not YAML, or not laid out as an rviz2 configuration.
    #[error("{path}: {message}")]
    BaseView {
        /// The base view file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The scenario file is not a usable parameter file for `tank_physics`.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// A key of the scenario's `tank_physics` parameters is wrong.
    #[error("{path}: {source}")]
    Scenario {
        /// The scenario file.
        path: PathBuf,
        /// The key and what is wrong with it.
        source: ConfigError,
    },
}

/// What a view needs of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct ScenarioModules {
    /// The frame every pose is published in (`publish.frame_id`).
    pub frame_id: String,
    /// The modules it starts with: (name, kind), in spawn order, named as the world names
    /// them.
    pub modules: Vec<(String, ModuleKind)>,
}

impl ScenarioModules {
    /// Reads the `tank_physics` section of the scenario parameter file at `path`.
    pub fn read(path: &Path) -> Result<Self, ViewError> {
        let tree = params::load_file(path, &NodeIdentity::new("tank_physics", "/"))?;
        let groups = ModuleGroup::from_params(&Value::Mapping(tree.clone()))
            .map_err(|source| ViewError::Scenario { path: path.to_owned(), source })?;
        let frame_id = match tree.get("publish").and_then(|p| p.get("frame_id")) {
            None => DEFAULT_FRAME.to_owned(),
            Some(Value::String(frame)) if !frame.is_empty() => frame.clone(),
            Some(other) => {
                let source =
                    ConfigError::Invalid { path: "publish.frame_id".into(), message: format!("must be a frame name, got {other:?}") };
                return Err(ViewError::Scenario { path: path.to_owned(), source });
            }
        };
        Ok(Self { frame_id, modules: groups.iter().flat_map(ModuleGroup::modules).collect() })
    }
}

/// The robots `molemod_physics` publishes (`molemod/robot_<i>`, in its default frame).
pub fn molemod_modules() -> ScenarioModules {
    ScenarioModules {
        frame_id: DEFAULT_FRAME.to_owned(),
        modules: (0..MOLEMOD_VIEW_ROBOTS).map(|i| (format!("molemod/robot_{i}"), ModuleKind::MolemodRobot)).collect(),
    }
}

/// A YAML mapping of `entries`, in order.
fn map<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Mapping(entries.into_iter().map(|(k, v)| (key(k), v)).collect())
}

fn key(k: &str) -> Value {
    Value::String(k.to_owned())
}

/// The RobotModel display of module `name` (the keys rviz2 saves for one).
fn robot_model(name: &str, kind: ModuleKind) -> Value {
    let (yes, no) = (Value::Bool(true), Value::Bool(false));
    map([
        ("Alpha", Value::from(1)),
        ("Class", key(ROBOT_MODEL_CLASS)),
        ("Collision Enabled", no.clone()),
        ("Description File", key("")),
        ("Description Source", key("Topic")),
        (
            "Description Topic",
            map([
                ("Depth", Value::from(1)),
                // The descriptions are latched.
                ("Durability Policy", key("Transient Local")),
                ("History Policy", key("Keep Last")),
                ("Reliability Policy", key("Reliable")),
                ("Value", Value::String(format!("/{name}/robot_description"))),
            ]),
        ),
        ("Enabled", yes.clone()),
        (
            "Links",
            map([
                ("All Links Enabled", yes.clone()),
                ("Expand Joint Details", no.clone()),
                ("Expand Link Details", no.clone()),
                ("Expand Tree", no.clone()),
                ("Link Tree Style", key("Links in Alphabetic Order")),
            ]),
        ),
        ("Mass Properties", map([("Inertia", no.clone()), ("Mass", no)])),
        ("Name", Value::String(format!("{name} ({})", kind.name()))),
        ("TF Prefix", key(name)),
        ("Update Interval", Value::from(0)),
        ("Value", yes.clone()),
        ("Visual Enabled", yes),
    ])
}

/// The view `name` (`config/<name>.rviz`, started by `launch/<name>.launch.yaml`) of
/// `origin` (what the modules come from, for its header): the base view's text (`base`,
/// read from `base_path`) with `modules`' RobotModels in a group after the TF display
/// (last without one) and the fixed frame set to theirs.
pub fn scenario_view(base: &str, base_path: &Path, name: &str, origin: &str, modules: &ScenarioModules) -> Result<String, ViewError> {
    let bad = |message: String| ViewError::BaseView { path: base_path.to_owned(), message };
    let mut view: Value = serde_yaml::from_str(base).map_err(|e| bad(format!("not YAML: {e}")))?;
    let manager = view
        .get_mut("Visualization Manager")
        .and_then(Value::as_mapping_mut)
        .ok_or_else(|| bad("no `Visualization Manager` mapping".into()))?;
    manager
        .get_mut("Global Options")
        .and_then(Value::as_mapping_mut)
        .ok_or_else(|| bad("no `Visualization Manager: Global Options` mapping".into()))?
        .insert(key("Fixed Frame"), Value::String(modules.frame_id.clone()));
    let displays = manager
        .get_mut("Displays")
        .and_then(Value::as_sequence_mut)
        .ok_or_else(|| bad("no `Visualization Manager: Displays` list".into()))?;
    if displays.iter().any(|d| d.get("Class").and_then(Value::as_str) == Some(ROBOT_MODEL_CLASS)) {
        return Err(bad("already has a RobotModel display: the scenario views add their own".into()));
    }
    let group = map([
        ("Class", key("rviz_common/Group")),
        ("Displays", Value::Sequence(modules.modules.iter().map(|(name, kind)| robot_model(name, *kind)).collect())),
        ("Enabled", Value::Bool(true)),
        ("Name", key(MODULES_GROUP)),
        ("Value", Value::Bool(true)),
    ]);
    let after_tf = displays
        .iter()
        .position(|d| d.get("Class").and_then(Value::as_str) == Some("rviz_default_plugins/TF"))
        .map_or(displays.len(), |i| i + 1);
    displays.insert(after_tf, group);
    let body = serde_yaml::to_string(&view).map_err(|e| bad(format!("cannot write the view: {e}")))?;
    Ok(format!(
        "# rviz2 view of {origin}: `rviz2 -d config/{name}.rviz`, or\n\
         # `flotilla launch launch/{name}.launch.yaml rviz:=true`. Fixed frame `{frame}`.\n\
         # config/{BASE_VIEW} plus a RobotModel per module ({count}), each reading\n\
         # /<module>/robot_description with TF Prefix <module>; the physics node publishes the\n\
         # link frames (/tf_static, /tf). Generated by gen_rviz\n\
         # (`cargo run -p tank_physics --no-default-features --bin gen_rviz`); do not edit.\n{body}",
        frame = modules.frame_id,
        count = modules.modules.len(),
    ))
}

/// Every scenario's view from the files in `config_dir`: (file name, text).
pub fn generate(config_dir: &Path) -> Result<Vec<(String, String)>, ViewError> {
    let base_path = config_dir.join(BASE_VIEW);
    let base = std::fs::read_to_string(&base_path).map_err(|source| ViewError::Io { path: base_path.clone(), source })?;
    let mut views = SCENARIOS
        .iter()
        .map(|scenario| {
            let modules = ScenarioModules::read(&config_dir.join(format!("{scenario}.yaml")))?;
            let origin = format!("scenario {scenario} (config/{scenario}.yaml)");
            Ok((format!("{scenario}.rviz"), scenario_view(&base, &base_path, scenario, &origin, &modules)?))
        })
        .collect::<Result<Vec<_>, ViewError>>()?;
    let origin = format!("MoleMOD's molemod_physics (robots 0-{})", MOLEMOD_VIEW_ROBOTS - 1);
    views.push((format!("{MOLEMOD_VIEW}.rviz"), scenario_view(&base, &base_path, MOLEMOD_VIEW, &origin, &molemod_modules())?));
    Ok(views)
}

/// Writes every scenario's view from the files in `config_dir` into `out_dir` (created if
/// missing); returns the paths written.
pub fn write_views(config_dir: &Path, out_dir: &Path) -> Result<Vec<PathBuf>, ViewError> {
    let views = generate(config_dir)?;
    std::fs::create_dir_all(out_dir).map_err(|source| ViewError::Io { path: out_dir.to_owned(), source })?;
    views
        .into_iter()
        .map(|(name, text)| {
            let path = out_dir.join(name);
            std::fs::write(&path, text).map_err(|source| ViewError::Io { path: path.clone(), source })?;
            Ok(path)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "\
Panels: []
Visualization Manager:
  Class: \"\"
  Displays:
    - Class: rviz_default_plugins/Grid
      Name: Grid
    - Class: rviz_default_plugins/TF
      Name: TF
    - Class: rviz_default_plugins/MarkerArray
      Name: Tank
  Global Options:
    Fixed Frame: world
";

    fn modules(frame: &str) -> ScenarioModules {
        ScenarioModules {
            frame_id: frame.into(),
            modules: vec![("lily_0".into(), ModuleKind::Lily), ("ball_0".into(), ModuleKind::PingPongBall)],
        }
    }

    #[test]
    fn each_module_gets_a_robot_model_after_the_tf_display() {
        let text = scenario_view(BASE, Path::new("base.rviz"), "demo", "scenario demo", &modules("arena")).unwrap();
        assert!(text.starts_with("# rviz2 view of scenario demo: `rviz2 -d config/demo.rviz`"), "{text}");
        let view: Value = serde_yaml::from_str(&text).unwrap();
        let manager = &view["Visualization Manager"];
        assert_eq!(manager["Global Options"]["Fixed Frame"].as_str(), Some("arena"));
        let displays = manager["Displays"].as_sequence().unwrap();
        let names: Vec<&str> = displays.iter().filter_map(|d| d["Name"].as_str()).collect();
        assert_eq!(names, ["Grid", "TF", MODULES_GROUP, "Tank"]);
        let models = displays[2]["Displays"].as_sequence().unwrap();
        assert_eq!(models.len(), 2);
        let lily = &models[0];
        assert_eq!(lily["Class"].as_str(), Some(ROBOT_MODEL_CLASS));
        assert_eq!(lily["Description Source"].as_str(), Some("Topic"));
        assert_eq!(lily["Description Topic"]["Value"].as_str(), Some("/lily_0/robot_description"));
        assert_eq!(lily["Description Topic"]["Durability Policy"].as_str(), Some("Transient Local"));
        assert_eq!(lily["TF Prefix"].as_str(), Some("lily_0"));
        assert_eq!(lily["Name"].as_str(), Some("lily_0 (lily)"));
        assert_eq!(models[1]["TF Prefix"].as_str(), Some("ball_0"));
    }

    #[test]
    fn a_base_view_without_displays_or_with_robot_models_is_refused() {
        let err =
            scenario_view("Visualization Manager:\n  Global Options: {}\n", Path::new("base.rviz"), "demo", "demo", &modules("world"))
                .unwrap_err();
        assert!(err.to_string().contains("base.rviz") && err.to_string().contains("Displays"), "{err}");
        let with_model = BASE.replace("rviz_default_plugins/Grid", ROBOT_MODEL_CLASS);
        let err = scenario_view(&with_model, Path::new("base.rviz"), "demo", "demo", &modules("world")).unwrap_err();
        assert!(err.to_string().contains("already has a RobotModel"), "{err}");
        let err = scenario_view("[", Path::new("base.rviz"), "demo", "demo", &modules("world")).unwrap_err();
        assert!(err.to_string().contains("not YAML"), "{err}");
    }

    #[test]
    fn scenario_modules_are_named_as_the_world_names_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.yaml");
        std::fs::write(
            &path,
            "tank_physics:\n  ros__parameters:\n    publish: {frame_id: tank}\n    modules:\n      a: {kind: lily, count: 2}\n      b: {kind: ping_pong_ball, count: 1}\n",
        )
        .unwrap();
        let read = ScenarioModules::read(&path).unwrap();
        assert_eq!(read.frame_id, "tank");
        let names: Vec<&str> = read.modules.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a_0", "a_1", "b_0"]);
        std::fs::write(&path, "tank_physics:\n  ros__parameters:\n    modules:\n      a: {kind: frog, count: 2}\n").unwrap();
        let err = ScenarioModules::read(&path).unwrap_err().to_string();
        assert!(err.contains("s.yaml") && err.contains("modules.a.kind") && err.contains("frog"), "{err}");
    }
}
