//! `mhp prototype`: the 2-D prototype in its tank (SPEC 5): square modules 80 x 80 mm
//! floating 64 mm deep in a 126 x 68 cm tank, four pumps of about 11 ml/s each, a torch
//! outside the tank on the right, start and finish lines 50 cm apart (the finish 20 cm
//! from the torch). Each trial puts the robot just behind the start line in a random
//! attitude; the time runs from its centre of mass crossing the start line to crossing the
//! finish line. A pump's force is the momentum flux of its jet, `rho Q^2 / A` for flow Q
//! through an outlet of area A (the outlet diameter is not published: an assumption,
//! `--outlet-mm`). Every configuration of one to four modules (the paper's nine) by default.
//!
//! `flotilla experiment mhp prototype --configuration all --trials 3 --out DIR`

use serde_json::{json, Value};

use flotilla_contract::mhp::MhpCommand;
use plotters::prelude::*;
use rayon::prelude::*;
use tank_physics::systems::mhp::prototype::{configuration, PrototypeModules, PrototypeTank, PrototypeTrial, Stage};
use tank_physics::systems::mhp::shapes::prototype_configurations;
use tank_physics::systems::mhp::Morphology;

use super::{controllers, option_error, Controller};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use crate::report::PlotError;

/// The `prototype` experiment.
pub struct Prototype;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "configuration",
        kind: OptionKind::Names,
        default: "all",
        help: "all, or names among 1, 2, 3I, 3L, 4I, 4O, 4T, 4S, 4L, and file:PATH (a robot file of square modules)",
    },
    OptionSpec {
        name: "controller",
        kind: OptionKind::Names,
        default: "prototype",
        help: "prototype (opposite pairs off) or decentralised",
    },
    OptionSpec { name: "trials", kind: OptionKind::Count, default: "3", help: "trials per configuration (the paper: 3)" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "0", help: "run seed" },
    OptionSpec { name: "flow-ml-s", kind: OptionKind::Positive, default: "11", help: "pump flow, ml/s" },
    OptionSpec { name: "outlet-mm", kind: OptionKind::Positive, default: "4", help: "pump outlet inner diameter, mm (assumed)" },
    OptionSpec { name: "draft-mm", kind: OptionKind::Positive, default: "64", help: "water level in and around a module, mm" },
    OptionSpec { name: "time-limit", kind: OptionKind::Positive, default: "60", help: "time a trial may take, s" },
];

struct Run {
    configuration: String,
    trial: usize,
    /// Start to finish, s (None: did not finish in time or came near a side or back wall).
    time_s: Option<f64>,
}

/// One trial in the tank model the `mhp_tank` node runs too
/// (`tank_physics::systems::mhp::prototype`).
fn run(
    name: &str,
    morphology: &Morphology,
    modules: PrototypeModules,
    controller: Controller,
    seed: u64,
    trial: usize,
    limit: f64,
) -> Result<Run, String> {
    let mut t = PrototypeTrial::new(morphology, modules, PrototypeTank::default(), seed, trial as u32).map_err(|e| e.to_string())?;
    let mut firmware = controller.firmware(t.robot());
    let mut command = MhpCommand::default();
    let steps = (limit / t.robot().params().dt).round() as usize;
    let mut time_s = None;
    for _ in 0..steps {
        if t.control_due() {
            let now = t.time();
            firmware.step_into(now, t.read(false), &mut command);
            t.apply(name, &command).map_err(|e| e.to_string())?;
        }
        let progress = t.step();
        if t.near_side_or_back_wall() {
            break; // against a wall: the run is lost
        }
        if progress == Stage::Finished {
            time_s = t.crossing_time();
            break;
        }
    }
    Ok(Run { configuration: name.to_owned(), trial, time_s })
}

impl Experiment for Prototype {
    fn system(&self) -> &'static str {
        "mhp"
    }

    fn name(&self) -> &'static str {
        "prototype"
    }

    fn description(&self) -> &'static str {
        "the 2-D prototype in its tank: times over 50 cm towards the torch for the configurations of 1-4 modules"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let all = prototype_configurations();
        let names = options.names("configuration")?;
        let chosen: Vec<(String, Morphology)> = if names == ["all"] {
            all
        } else {
            names
                .iter()
                .map(|n| configuration(n).map(|m| (n.clone(), m)).map_err(|e| option_error("configuration", format!("{e} (or all)"))))
                .collect::<Result<_, _>>()?
        };
        let controller = match controllers(options, "controller")?.as_slice() {
            [c @ (Controller::Prototype | Controller::Decentralised)] => *c,
            _ => return Err(option_error("controller", "give one of prototype, decentralised")),
        };
        let modules = PrototypeModules {
            flow_ml_s: options.number("flow-ml-s")?,
            outlet_mm: options.number("outlet-mm")?,
            draft_mm: options.number("draft-mm")?,
        };
        modules.validate().map_err(|e| {
            let option = match e.name {
                "flow_ml_s" => "flow-ml-s",
                "outlet_mm" => "outlet-mm",
                _ => "draft-mm",
            };
            option_error(option, e.message)
        })?;
        let params = modules.params();
        let (trials, seed, limit) = (options.count("trials")?, options.seed("seed")?, options.number("time-limit")?);
        progress.expect(chosen.len() * trials, "MHP prototype trials");
        let jobs: Vec<(usize, usize)> = (0..chosen.len()).flat_map(|c| (0..trials).map(move |t| (c, t))).collect();
        let runs: Vec<Run> = jobs
            .par_iter()
            .map(|&(c, t)| {
                let r = run(&chosen[c].0, &chosen[c].1, modules, controller, seed, t, limit);
                progress.finished_one();
                r
            })
            .collect::<Result<_, _>>()
            .map_err(|m| option_error("configuration", m))?;
        let times: Vec<f64> = runs.iter().filter_map(|r| r.time_s).collect();
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        let min = times.iter().copied().fold(f64::INFINITY, f64::min);
        let max = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut metrics = serde_json::Map::new();
        metrics.insert("pump_force_mN".into(), number(params.thrust * 1e3));
        metrics.insert("trials".into(), json!(runs.len()));
        metrics.insert("finished".into(), json!(times.len()));
        metrics.insert("mean_time_s".into(), number(mean));
        metrics.insert("min_time_s".into(), number(min));
        metrics.insert("max_time_s".into(), number(max));
        metrics.insert("mean_velocity_cm_s".into(), number(50.0 / mean));
        let mut per = serde_json::Map::new();
        for (name, _) in &chosen {
            let t: Vec<Value> = runs.iter().filter(|r| &r.configuration == name).map(|r| r.time_s.map_or(Value::Null, number)).collect();
            per.insert(name.clone(), Value::Array(t));
        }
        metrics.insert("times_s".into(), Value::Object(per));
        let rows = runs
            .iter()
            .map(|r| vec![r.configuration.clone(), r.trial.to_string(), r.time_s.map_or_else(String::new, |t| format!("{t:.2}"))])
            .collect();
        let table = Table { file: "prototype.csv".into(), header: vec!["configuration".into(), "trial".into(), "time_s".into()], rows };
        let points: Vec<(usize, Option<f64>)> =
            runs.iter().map(|r| (chosen.iter().position(|(n, _)| *n == r.configuration).unwrap_or(0), r.time_s)).collect();
        let labels: Vec<String> = chosen.iter().map(|(n, _)| n.clone()).collect();
        let plot = Plot { file: "prototype.png".into(), draw: Box::new(move |path| plot_times(path, &labels, &points)) };
        Ok(Outcome { metrics, tables: vec![table], plots: vec![plot], report: String::new() })
    }
}

/// Times over 50 cm per configuration, with the paper's range (6.5-13.0 s) shaded.
fn plot_times(path: &std::path::Path, labels: &[String], points: &[(usize, Option<f64>)]) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let y_max = points.iter().filter_map(|p| p.1).fold(15.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption("MHP 2-D prototype: time over 50 cm (grey: the paper's 6.5-13.0 s)", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(-0.5..labels.len() as f64 - 0.5, 0.0..y_max)
        .map_err(|e| err(e.to_string()))?;
    let fmt = |x: &f64| labels.get(x.round().max(0.0) as usize).cloned().unwrap_or_default();
    chart
        .configure_mesh()
        .x_labels(labels.len().max(1))
        .x_label_formatter(&fmt)
        .x_desc("configuration")
        .y_desc("time (s)")
        .draw()
        .map_err(|e| err(e.to_string()))?;
    let band = Rectangle::new([(-0.5, 6.5), (labels.len() as f64 - 0.5, 13.0)], RGBColor(200, 200, 200).mix(0.5).filled());
    chart.draw_series(std::iter::once(band)).map_err(|e| err(e.to_string()))?;
    chart
        .draw_series(points.iter().filter_map(|&(c, t)| t.map(|t| Circle::new((c as f64, t), 5, BLUE.filled()))))
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_i_tetromino_crosses_and_names_are_checked() {
        let given = vec![("configuration".to_owned(), "4I,1".to_owned()), ("trials".to_owned(), "1".to_owned())];
        let options = Options::parse(OPTIONS, &given).unwrap();
        let out = Prototype.run(&options, &Progress::hidden()).unwrap();
        assert_eq!(out.metrics["finished"], json!(2));
        let bad = Options::parse(OPTIONS, &[("configuration".to_owned(), "5X".to_owned())]).unwrap();
        assert!(Prototype.run(&bad, &Progress::hidden()).err().unwrap().to_string().contains("`5X`"));
    }

    /// Other morphologies than the nine (the paper also ran six modules) came only from
    /// the names; a robot file is read, and one too large to turn in the tank refused.
    #[test]
    fn a_robot_file_of_six_modules_crosses_and_a_too_long_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let six = dir.path().join("six.yaml");
        std::fs::write(&six, "lattice: square\nmodules: [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]\n").unwrap();
        let run = |name: String| {
            let given = vec![("configuration".to_owned(), name), ("trials".to_owned(), "1".to_owned())];
            Prototype.run(&Options::parse(OPTIONS, &given).unwrap(), &Progress::hidden())
        };
        let out = run(format!("file:{}", six.display())).unwrap();
        assert_eq!(out.metrics["finished"], json!(1), "{:?}", out.metrics);
        let rod = dir.path().join("rod.txt");
        std::fs::write(&rod, (0..9).map(|x| format!("{x} 0\n")).collect::<String>()).unwrap();
        let e = run(format!("file:{}", rod.display())).err().unwrap().to_string();
        assert!(e.contains("cannot turn") && e.contains("0.68"), "{e}");
        let cube = dir.path().join("cube.txt");
        std::fs::write(&cube, "0 0 0\n0 0 1\n").unwrap();
        let e = run(format!("file:{}", cube.display())).err().unwrap().to_string();
        assert!(e.contains("z = 0"), "{e}");
    }
}
