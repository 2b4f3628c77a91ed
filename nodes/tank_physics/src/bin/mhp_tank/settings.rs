//! The node's parameters: the robot (`robot.*`), its modules (`modules.*`), the tank and
//! its marks (`tank.*`), time control (`run.*`) and topic rates (`publish.*`).

use flotilla_common::param_spec::{NodeParams, ParamSpec as P};
use flotilla_common::params::{self, take_section, ParamError};
use nalgebra::Vector3;
use serde::Deserialize;
use serde_yaml::Mapping;
use std::time::Duration;
use tank_physics::run::{check_rate, rate_param, RunSettings, RUN_PARAMS};
use tank_physics::systems::mhp::prototype::{configuration, PrototypeModules, PrototypeTank, PrototypeTrial};
use tank_physics::systems::mhp::MhpError;
use tank_physics::systems::mhp::Morphology;

/// The robot.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RobotSettings {
    /// Its name: namespace of its topics and TF prefix. Default `mhp_0`.
    pub name: String,
    /// One of the nine configurations of one to four modules (1, 2, 3I, 3L, 4I, 4O, 4T, 4S,
    /// 4L). Default `4T`.
    pub configuration: String,
    /// Trial index: the start is drawn from `robot_seed(seed, trial)`, as trial `trial` of
    /// `flotilla experiment mhp prototype --seed <seed>`. Default 0.
    pub trial: u32,
    /// Readings carry navigation (the torch relative to the robot, its velocity, angular
    /// velocity and attitude: what the centralised controller needs; an overhead tracking
    /// system would give it to a real prototype). Default true.
    pub navigation: bool,
}

impl Default for RobotSettings {
    fn default() -> Self {
        Self { name: "mhp_0".into(), configuration: "4T".into(), trial: 0, navigation: true }
    }
}

/// The modules (SPEC 5: 80 x 80 x 90 mm, four pumps of about 11 ml/s).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModuleSettings {
    /// Flow of one pump, ml/s. Default 11.
    pub flow_ml_s: f64,
    /// Inner diameter of a pump's outlet, mm (assumed). Default 4.
    pub outlet_mm: f64,
    /// Water level in and around a module, mm (of its 90 mm). Default 64.
    pub draft_mm: f64,
}

impl Default for ModuleSettings {
    fn default() -> Self {
        let m = PrototypeModules::default();
        Self { flow_ml_s: m.flow_ml_s, outlet_mm: m.outlet_mm, draft_mm: m.draft_mm }
    }
}

/// The tank, its lines and the torch (x along the tank towards the torch, origin at the
/// tank's centre).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TankSettings {
    /// Inner length along x, m. Default 1.26.
    pub size_x: f64,
    /// Inner width along y, m. Default 0.68.
    pub size_y: f64,
    /// Wall height above the floor, m. Default 0.3 (assumed).
    pub height: f64,
    /// Water depth, m (at most the wall height). Default 0.22 (the `mhp_tank` arena model: 8 cm below the rim).
    pub water_depth: f64,
    /// Start line, x in m. Default -0.05.
    pub start_x: f64,
    /// Finish line, x in m. Default 0.45 (50 cm after the start).
    pub finish_x: f64,
    /// Torch, x in m (outside the tank). Default 0.65.
    pub torch_x: f64,
    /// Torch, y in m. Default 0.
    pub torch_y: f64,
}

impl Default for TankSettings {
    fn default() -> Self {
        let t = PrototypeTank::default();
        Self {
            size_x: t.size_x,
            size_y: t.size_y,
            height: 0.3,
            water_depth: 0.22,
            start_x: t.start_x,
            finish_x: t.finish_x,
            torch_x: t.torch.x,
            torch_y: t.torch.y,
        }
    }
}

/// Topic rates, Hz of sim time, and the fixed frame.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PublishSettings {
    /// `/tank/state` and `/tf` (each when someone listens), Hz. Default 30.
    pub state_rate: f64,
    /// `/tank/markers` (when someone listens), Hz. Default 10.
    pub marker_rate: f64,
    /// Fixed frame of every pose (the tank's floor centre). Default `world`.
    pub frame_id: String,
}

impl Default for PublishSettings {
    fn default() -> Self {
        Self { state_rate: 30.0, marker_rate: 10.0, frame_id: "world".into() }
    }
}

/// The node's parameters for ROS 2 tools (`ros2 param describe /mhp_tank <name>`), checked
/// against [`NodeSettings::from_tree`]; all are read at start-up.
pub const PARAMS: NodeParams = NodeParams { groups: &[OWN_PARAMS, RUN_PARAMS], extras_live: false };

const OWN_PARAMS: &[P] = &[
    P::integer("seed", 0, "Run seed: the robot's start (yaw, lateral offset) is drawn from (seed, robot.trial)").int_range(0, i64::MAX),
    P::string("robot.name", "mhp_0", "The robot's name: namespace of /<name>/sensors, /<name>/cmd, /<name>/layout and TF prefix"),
    P::string(
        "robot.configuration",
        "4T",
        "The robot's configuration: one of 1, 2, 3I, 3L, 4I, 4O, 4T, 4S, 4L, or file:PATH (a robot file of square modules, docs/mhp.md)",
    ),
    P::integer("robot.trial", 0, "Trial index: the start as trial <trial> of `flotilla experiment mhp prototype --seed <seed>`")
        .int_range(0, u32::MAX as i64),
    P::boolean(
        "robot.navigation",
        true,
        "Readings carry navigation (torch relative to the robot, velocities, attitude) for a centralised controller",
    ),
    P::double("modules.flow_ml_s", 11.0, "Flow of one pump, ml/s (> 0)"),
    P::double("modules.outlet_mm", 4.0, "Inner diameter of a pump's outlet, mm (> 0; assumed)"),
    P::double("modules.draft_mm", 64.0, "Water level in and around a module, mm (in (0, 90))"),
    P::double("tank.size_x", 1.26, "Tank inner length along x, m (> 0)"),
    P::double("tank.size_y", 0.68, "Tank inner width along y, m (> 0)"),
    P::double("tank.height", 0.3, "Wall height above the floor, m (> 0, at least tank.water_depth)"),
    P::double("tank.water_depth", 0.22, "Water depth, m (> 0, at most tank.height)"),
    P::double("tank.start_x", -0.05, "Start line, x in m from the tank centre (inside the tank)"),
    P::double("tank.finish_x", 0.45, "Finish line, x in m from the tank centre (after the start line, inside the tank)"),
    P::double("tank.torch_x", 0.65, "Torch, x in m from the tank centre (the torch is outside the tank)"),
    P::double("tank.torch_y", 0.0, "Torch, y in m from the tank centre"),
    rate_param("publish.state_rate", 30.0, "Rate of /tank/state and /tf (each when someone listens), Hz of sim time"),
    rate_param("publish.marker_rate", 10.0, "Rate of /tank/markers (when someone listens), Hz of sim time"),
    P::string("publish.frame_id", "world", "Fixed frame of every pose (the tank's floor centre)"),
];

/// Everything the node is configured with.
#[derive(Debug, Clone)]
pub struct NodeSettings {
    /// Run seed.
    pub seed: u64,
    /// The robot.
    pub robot: RobotSettings,
    /// Its shape (from `robot.configuration`).
    pub morphology: Morphology,
    /// Its modules.
    pub modules: PrototypeModules,
    /// The tank as the model knows it.
    pub tank: PrototypeTank,
    /// Wall height, m.
    pub wall_height: f64,
    /// Water depth, m.
    pub water_depth: f64,
    /// Time control.
    pub run: RunSettings,
    /// `run.lockstep_timeout`, checked.
    pub lockstep_timeout: Duration,
    /// Topic rates.
    pub publish: PublishSettings,
}

/// A value that must be positive and finite; the error names `key`.
fn positive(key: &str, value: f64, unit: &str) -> Result<(), ParamError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(ParamError::invalid(key, format!("must be positive and finite, got {value} {unit}")))
    }
}

impl NodeSettings {
    /// Validates a parameter tree (standard ROS keys are ignored); errors name the key.
    pub fn from_tree(tree: &Mapping) -> Result<Self, ParamError> {
        let mut tree = params::without_standard(tree);
        let seed = params::take_seed(&mut tree, 0)?;
        let robot = take_section::<RobotSettings>(&mut tree, "robot")?;
        let modules = take_section::<ModuleSettings>(&mut tree, "modules")?;
        let tank = take_section::<TankSettings>(&mut tree, "tank")?;
        let run = take_section::<RunSettings>(&mut tree, "run")?;
        let publish = take_section::<PublishSettings>(&mut tree, "publish")?;
        params::refuse_unknown(&tree, "seed, robot, modules, tank, run, publish")?;
        let lockstep_timeout = run.check()?;
        check_rate("publish.state_rate", publish.state_rate)?;
        check_rate("publish.marker_rate", publish.marker_rate)?;
        if robot.name.is_empty()
            || !robot.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            || robot.name.starts_with(|c: char| c.is_ascii_digit())
        {
            return Err(ParamError::invalid(
                "robot.name",
                format!("must be letters, digits or `_`, not starting with a digit (a ROS name), got `{}`", robot.name),
            ));
        }
        let morphology = configuration(&robot.configuration).map_err(|e| ParamError::invalid("robot.configuration", e))?;
        // The experiment's checks, one set for both (a flow of 1e308 ml/s passed these
        // keys and gave an infinite thrust).
        let modules = PrototypeModules { flow_ml_s: modules.flow_ml_s, outlet_mm: modules.outlet_mm, draft_mm: modules.draft_mm };
        modules.validate().map_err(|e| ParamError::invalid(format!("modules.{}", e.name), e.message))?;
        positive("tank.height", tank.height, "m")?;
        positive("tank.water_depth", tank.water_depth, "m")?;
        if tank.water_depth > tank.height {
            return Err(ParamError::invalid(
                "tank.water_depth",
                format!("must be at most tank.height ({} m), got {} m", tank.height, tank.water_depth),
            ));
        }
        let model = PrototypeTank {
            size_x: tank.size_x,
            size_y: tank.size_y,
            start_x: tank.start_x,
            finish_x: tank.finish_x,
            torch: Vector3::new(tank.torch_x, tank.torch_y, 0.0),
            ..PrototypeTank::default()
        };
        model.validate().map_err(|e| {
            let key = match e.name {
                "torch" => "tank.torch_x".to_owned(),
                name => format!("tank.{name}"),
            };
            ParamError::invalid(key, e.message)
        })?;
        let settings = Self {
            seed,
            robot,
            morphology,
            modules,
            tank: model,
            wall_height: tank.height,
            water_depth: tank.water_depth,
            run,
            lockstep_timeout,
            publish,
        };
        // The robot must fit the tank at its start.
        settings.trial().map_err(|e| {
            let key = if matches!(e, MhpError::TooLargeForTank { .. }) { "robot.configuration" } else { "robot" };
            ParamError::invalid(key, e)
        })?;
        Ok(settings)
    }

    /// The robot at its start.
    pub fn trial(&self) -> Result<PrototypeTrial, MhpError> {
        PrototypeTrial::new(&self.morphology, self.modules, self.tank, self.seed, self.robot.trial)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(yaml: &str) -> Result<NodeSettings, ParamError> {
        NodeSettings::from_tree(&serde_yaml::from_str(yaml).unwrap())
    }

    /// The table's defaults, names and ranges are those of the node's own validation.
    #[test]
    fn table_matches_the_validation() {
        assert_eq!(PARAMS.check_against(NodeSettings::from_tree), Ok(()));
    }

    #[test]
    fn defaults_and_configurations() {
        let s = settings("{}").unwrap();
        assert_eq!((s.robot.name.as_str(), s.robot.configuration.as_str(), s.seed, s.morphology.len()), ("mhp_0", "4T", 0, 4));
        let s = settings("robot: {configuration: '1', name: solo}\nseed: 4").unwrap();
        assert_eq!((s.morphology.len(), s.seed), (1, 4));
        let dir = tempfile::tempdir().unwrap();
        let (six, rod) = (dir.path().join("six.txt"), dir.path().join("rod.txt"));
        std::fs::write(&six, "0 0\n1 0\n2 0\n0 1\n1 1\n2 1\n").unwrap();
        std::fs::write(&rod, (0..9).map(|x| format!("{x} 0\n")).collect::<String>()).unwrap();
        let s = settings(&format!("robot: {{configuration: 'file:{}'}}", six.display())).unwrap();
        assert_eq!(s.morphology.len(), 6);
        let e = settings(&format!("robot: {{configuration: 'file:{}'}}", rod.display())).unwrap_err().to_string();
        assert!(e.contains("robot.configuration") && e.contains("cannot turn"), "{e}");
    }

    #[test]
    fn bad_values_name_the_key() {
        for (yaml, key) in [
            ("robot: {configuration: 5X}", "robot.configuration"),
            ("robot: {configuration: 5X}", "unknown configuration `5X`"),
            ("robot: {name: '3d'}", "robot.name"),
            ("robot: {colour: red}", "colour"),
            ("modules: {flow_ml_s: 0}", "modules.flow_ml_s"),
            ("modules: {draft_mm: 95}", "modules.draft_mm"),
            ("modules: {flow_ml_s: 1e308}", "modules.flow_ml_s"),
            ("modules: {outlet_mm: .nan}", "modules.outlet_mm"),
            ("tank: {water_depth: 0.5}", "tank.water_depth"),
            ("tank: {torch_x: 0.1}", "tank.torch_x"),
            ("tank: {finish_x: -0.2}", "tank.finish_x"),
            ("run: {real_time_factor: -1}", "run.real_time_factor"),
            ("publish: {marker_rate: 0}", "publish.marker_rate"),
            ("seed: -3", "seed"),
            ("tabel: {}", "tabel"),
        ] {
            let err = settings(yaml).unwrap_err().to_string();
            assert!(err.contains(key), "{yaml}: {err}");
        }
    }
}
