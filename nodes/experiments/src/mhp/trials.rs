//! `mhp trials`: one setting under the paper's protocol (SPEC 5), N seeded trials in
//! parallel: success rate, velocity of the successful trials, times.
//!
//! `flotilla experiment mhp trials --robot cube:16 --controller decentralised
//! --direction-error 0.5 --trials 100 --seed 1 --out DIR`

use serde_json::{json, Map, Value};
use tank_physics::systems::mhp::{DragModel, MhpFaults, MhpParams};

use super::plots::{plot_success_boxes, BoxCell, BoxPanel};
use super::stats::Stats;
use super::{controllers, direction_errors, probabilities, robots, run_batch, trials_table, TrialSetup};
use crate::experiment::{Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress};

/// The `trials` experiment.
pub struct Trials;

pub(super) const PROTOCOL: [OptionSpec; 7] = [
    OptionSpec { name: "time-limit", kind: OptionKind::Positive, default: "50", help: "time a trial may take, s" },
    OptionSpec { name: "distance-cm", kind: OptionKind::Positive, default: "100", help: "target distance from the start, cm" },
    OptionSpec { name: "radius-cm", kind: OptionKind::Positive, default: "6", help: "success when the centre of mass is this close, cm" },
    OptionSpec { name: "control-period", kind: OptionKind::Positive, default: "0.05", help: "sensing and control period, s" },
    OptionSpec {
        name: "module-density",
        kind: OptionKind::Positive,
        default: "1000",
        help: "module density, kg/m^3 (1000: neutrally buoyant in water; sets the inertia)",
    },
    OptionSpec {
        name: "drag-coefficient",
        kind: OptionKind::Positive,
        default: "0.8",
        help: "drag coefficient of a module face (the paper's 0.8)",
    },
    OptionSpec {
        name: "drag",
        kind: OptionKind::Names,
        default: "faces",
        help: "faces (drag on the outer faces) or modules (every module's full cross-section)",
    },
];

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "robot",
        kind: OptionKind::Names,
        default: "cube:4",
        help: "cube:N, random:N (a new robot per trial), file:PATH or poly:NAME",
    },
    OptionSpec { name: "controller", kind: OptionKind::Names, default: "decentralised", help: "decentralised, centralised or prototype" },
    OptionSpec {
        name: "direction-error",
        kind: OptionKind::Numbers,
        default: "0",
        help: "e_max of the thruster direction offset (1 = 45 deg)",
    },
    OptionSpec { name: "thruster-failure", kind: OptionKind::Numbers, default: "0", help: "probability that a pump never fires" },
    OptionSpec { name: "sensor-failure", kind: OptionKind::Numbers, default: "0", help: "probability that a target sensor is stuck" },
    OptionSpec { name: "trials", kind: OptionKind::Count, default: "100", help: "trials (run in parallel)" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "0", help: "run seed (trial i draws from (seed, i))" },
    PROTOCOL[0],
    PROTOCOL[1],
    PROTOCOL[2],
    PROTOCOL[3],
    PROTOCOL[4],
    PROTOCOL[5],
    PROTOCOL[6],
];

/// The longest trial (s of simulated time): a robot that never arrives runs to it, and a
/// limit of 1e300 s ran for ever.
const MAX_TIME_LIMIT_S: f64 = 3600.0;
/// Module densities (kg/m^3) outside real materials make the motion diverge or the inertia
/// singular.
const MIN_MODULE_DENSITY: f64 = 1.0;
const MAX_MODULE_DENSITY: f64 = 1e5;
/// The largest drag coefficient taken (dimensionless).
const MAX_DRAG_COEFFICIENT: f64 = 10.0;

/// The single value of a list option.
fn single<T: Clone>(values: Vec<T>, name: &str) -> Result<T, ExperimentError> {
    match values.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(super::option_error(name, "give one value (`mhp sweep` takes lists)")),
    }
}

/// Applies the protocol options to `setup`.
pub(super) fn protocol(options: &Options, mut setup: TrialSetup) -> Result<TrialSetup, ExperimentError> {
    setup.time_limit = options.number("time-limit")?;
    setup.distance = options.number("distance-cm")? / 100.0;
    setup.success_radius = options.number("radius-cm")? / 100.0;
    setup.control_period = options.number("control-period")?;
    setup.drag_coefficient = options.number("drag-coefficient")?;
    setup.module_density = options.number("module-density")?;
    for (name, value, most, why) in [
        ("time-limit", setup.time_limit, MAX_TIME_LIMIT_S, "s of simulated time per trial (the paper's 50)"),
        ("module-density", setup.module_density, MAX_MODULE_DENSITY, "kg/m^3 (water 1000, osmium 22,600)"),
        ("drag-coefficient", setup.drag_coefficient, MAX_DRAG_COEFFICIENT, "(a flat plate's is about 1.2, the paper's 0.8)"),
    ] {
        if value > most {
            return Err(super::option_error(
                name,
                format!("{} is above the most this takes, {} {why}", super::shown(value), super::shown(most)),
            ));
        }
    }
    if setup.module_density < MIN_MODULE_DENSITY {
        return Err(super::option_error(
            "module-density",
            format!("{} kg/m^3 is below {MIN_MODULE_DENSITY} kg/m^3 (air is 1.2)", super::shown(setup.module_density)),
        ));
    }
    setup.drag = match options.names("drag")?.as_slice() {
        [d] if d == "faces" => DragModel::OuterFaces,
        [d] if d == "modules" => DragModel::WholeModules,
        _ => return Err(super::option_error("drag", "expected faces or modules")),
    };
    if setup.success_radius >= setup.distance {
        return Err(super::option_error(
            "radius-cm",
            format!(
                "{} cm is not less than --distance-cm {} cm: every trial would start inside the target's radius",
                super::shown(setup.success_radius * 100.0),
                super::shown(setup.distance * 100.0)
            ),
        ));
    }
    // The controller runs on whole integration steps; a shorter period was silently one step.
    let dt = MhpParams::equal_volume(1).dt;
    if setup.control_period < dt {
        return Err(super::option_error(
            "control-period",
            format!("{} s is shorter than the integration step {dt} s", super::shown(setup.control_period)),
        ));
    }
    Ok(setup)
}

impl Experiment for Trials {
    fn system(&self) -> &'static str {
        "mhp"
    }

    fn name(&self) -> &'static str {
        "trials"
    }

    fn description(&self) -> &'static str {
        "one robot and controller under the paper's protocol: success rate and velocity over N seeded trials"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let robot = single(robots(options, "robot")?, "robot")?;
        let controller = single(controllers(options, "controller")?, "controller")?;
        let faults = MhpFaults {
            direction_error: single(direction_errors(options, "direction-error")?, "direction-error")?,
            thruster_failure: single(probabilities(options, "thruster-failure")?, "thruster-failure")?,
            sensor_failure: single(probabilities(options, "sensor-failure")?, "sensor-failure")?,
        };
        let trials = options.count("trials")?;
        let setup = protocol(options, TrialSetup::paper(robot.clone(), controller, faults, options.seed("seed")?))?;
        let results = run_batch(std::slice::from_ref(&setup), trials, progress)?.remove(0);
        let stats = Stats::of(&results);
        let mut metrics: Map<String, Value> = match stats.to_json() {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        metrics.insert("robot".into(), json!(robot.label()));
        metrics.insert("modules".into(), json!(robot.modules()));
        metrics.insert("controller".into(), json!(controller.name()));
        let label = format!("{} {}", robot.label(), controller.name());
        let table = trials_table(&[(label.clone(), &results)]);
        let series = vec![controller.name().to_owned()];
        let categories = vec![robot.label()];
        let title = format!("e_max {} p_thruster {} p_sensor {}", faults.direction_error, faults.thruster_failure, faults.sensor_failure);
        let panel = BoxPanel { title, cells: vec![BoxCell { category: 0, series: 0, stats }] };
        let plot = Plot {
            file: "trials.png".into(),
            draw: Box::new(move |path| plot_success_boxes(path, &categories, &series, std::slice::from_ref(&panel))),
        };
        Ok(Outcome { metrics, tables: vec![table], plots: vec![plot], report: String::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    }

    #[test]
    fn a_short_seeded_run_writes_the_named_keys() {
        let options = Options::parse(OPTIONS, &pairs(&[("robot", "cube:2"), ("trials", "3"), ("seed", "4")])).unwrap();
        let a = Trials.run(&options, &Progress::hidden()).unwrap();
        for key in ["success_rate", "velocity_median_cm_s", "velocity_quartiles", "mean_time_s", "min_time_s", "max_time_s", "trials"] {
            assert!(a.metrics.contains_key(key), "{key}");
        }
        assert_eq!(a.metrics["success_rate"], json!(1.0));
        let b = Trials.run(&options, &Progress::hidden()).unwrap();
        assert_eq!(a.metrics, b.metrics, "same seed, same figures");
        let dir = tempfile::tempdir().unwrap();
        a.write(dir.path(), &Trials, &options).unwrap();
        assert!(dir.path().join("trials.png").exists() && dir.path().join("trials.csv").exists());
    }

    /// `--name value` alone is refused as a usage error naming `name` and saying `says`.
    fn assert_usage_error(name: &str, value: &str, says: &str) {
        let options = Options::parse(OPTIONS, &pairs(&[(name, value)])).unwrap();
        let e = Trials.run(&options, &Progress::hidden()).err().unwrap();
        assert!(e.is_usage() && e.to_string().contains(name) && e.to_string().contains(says), "{e}");
    }

    #[test]
    fn bad_options_are_usage_errors() {
        for (name, value, says) in [
            ("thruster-failure", "1.5", "not a probability"),
            ("sensor-failure", "-0.1", "not a probability"),
            ("direction-error", "-1", "must be >= 0"),
            ("robot", "cube:2,cube:3", "give one value"),
            ("controller", "pid", "expected decentralised"),
        ] {
            assert_usage_error(name, value, says);
        }
    }

    /// Regression: `--radius-cm 1e308` was refused with the 309 digits of 1e308.
    #[test]
    fn numbers_in_protocol_errors_are_compact() {
        for (name, value, says) in [
            ("radius-cm", "1e308", "option --radius-cm: 1e308 cm is not less than --distance-cm 100 cm"),
            ("distance-cm", "1e-9", "option --radius-cm: 6 cm is not less than --distance-cm 1e-9 cm"),
            ("control-period", "1e-9", "option --control-period: 1e-9 s is shorter than the integration step"),
        ] {
            assert_usage_error(name, value, says);
        }
    }

    /// Regressions: `--time-limit 1e300` ran for ever on a robot that never arrives;
    /// `--module-density 1e308` and `--drag-coefficient 1e300` made the motion diverge
    /// and the error blamed `--robot`.
    #[test]
    fn protocol_numbers_beyond_physics_are_refused_naming_the_option() {
        for (name, value, says) in [
            ("time-limit", "1e300", "option --time-limit: 1e300 is above the most this takes, 3600 s"),
            ("module-density", "1e308", "option --module-density: 1e308 is above the most this takes, 100000 kg/m^3"),
            ("module-density", "1e-300", "option --module-density: 1e-300 kg/m^3 is below 1 kg/m^3"),
            ("drag-coefficient", "1e300", "option --drag-coefficient: 1e300 is above the most this takes, 10"),
        ] {
            assert_usage_error(name, value, says);
        }
    }
}
