//! `mhp sweep`: every combination of robots, controllers, direction errors, thruster and
//! sensor failure probabilities, N trials each: the paper's Fig. 4 (success bars and
//! velocity boxes per robot and controller, one panel per condition) and Fig. 5 (colour
//! maps of success rate and median velocity over failure probability and robot).
//!
//! Fig. 4: `flotilla experiment mhp sweep --robots cube:1,cube:2,cube:4,cube:8,cube:16
//! --direction-errors 0,0.5,1 --out DIR`; Fig. 5: `... --controllers decentralised
//! --thruster-failures 0,0.1,...,0.9 --out DIR`.

use serde_json::{json, Value};
use tank_physics::systems::mhp::MhpFaults;

use super::plots::{plot_failure_maps, plot_success_boxes, BoxCell, BoxPanel};
use super::stats::{cell, Stats};
use super::trials::{protocol, PROTOCOL};
use super::{controllers, direction_errors, probabilities, robots, run_batch, trials_table, TrialSetup};
use crate::experiment::{csv_number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};

/// The `sweep` experiment.
pub struct Sweep;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "robots",
        kind: OptionKind::Names,
        default: "cube:1,cube:2,cube:4,cube:8,cube:16",
        help: "robots (cube:N, random:N, file:PATH, poly:NAME)",
    },
    OptionSpec { name: "controllers", kind: OptionKind::Names, default: "decentralised,centralised", help: "controllers" },
    OptionSpec { name: "direction-errors", kind: OptionKind::Numbers, default: "0", help: "e_max values (1 = 45 deg)" },
    OptionSpec { name: "thruster-failures", kind: OptionKind::Numbers, default: "0", help: "pump failure probabilities" },
    OptionSpec { name: "sensor-failures", kind: OptionKind::Numbers, default: "0", help: "target sensor failure probabilities" },
    OptionSpec { name: "trials", kind: OptionKind::Count, default: "100", help: "trials per setting" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "0", help: "run seed (trial i of every setting draws from (seed, i))" },
    PROTOCOL[0],
    PROTOCOL[1],
    PROTOCOL[2],
    PROTOCOL[3],
    PROTOCOL[4],
    PROTOCOL[5],
    PROTOCOL[6],
];

/// Most panels the Fig. 4 plot draws.
const MAX_PANELS: usize = 12;

impl Experiment for Sweep {
    fn system(&self) -> &'static str {
        "mhp"
    }

    fn name(&self) -> &'static str {
        "sweep"
    }

    fn description(&self) -> &'static str {
        "grids of the paper's Fig. 4-5: robots x controllers x direction errors x failure probabilities"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let robots = robots(options, "robots")?;
        let controllers = controllers(options, "controllers")?;
        let errors = direction_errors(options, "direction-errors")?;
        let thruster = probabilities(options, "thruster-failures")?;
        let sensor = probabilities(options, "sensor-failures")?;
        let trials = options.count("trials")?;
        let seed = options.seed("seed")?;
        // Settings in the order (condition, robot, controller); index = ((e, pt, ps), r, c).
        let mut setups = Vec::new();
        let mut keys = Vec::new();
        for (ei, &e) in errors.iter().enumerate() {
            for (ti, &pt) in thruster.iter().enumerate() {
                for (si, &ps) in sensor.iter().enumerate() {
                    for (ri, robot) in robots.iter().enumerate() {
                        for (ci, &controller) in controllers.iter().enumerate() {
                            let faults = MhpFaults { direction_error: e, thruster_failure: pt, sensor_failure: ps };
                            setups.push(protocol(options, TrialSetup::paper(robot.clone(), controller, faults, seed))?);
                            keys.push((ei, ti, si, ri, ci));
                        }
                    }
                }
            }
        }
        let results = run_batch(&setups, trials, progress)?;
        let stats: Vec<Stats> = results.iter().map(|r| Stats::of(r)).collect();
        let label = |i: usize| {
            let s = &setups[i];
            format!(
                "{} {} e={} pt={} ps={}",
                s.robot.label(),
                s.controller.name(),
                s.faults.direction_error,
                s.faults.thruster_failure,
                s.faults.sensor_failure
            )
        };
        let mut settings = Vec::new();
        let mut rows = Vec::new();
        let mut report = String::from(
            "| robot | controller | e_max | p thruster | p sensor | trials | success | median v (cm/s) | v quartiles (cm/s) | mean time (s) | time range (s) |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        for (i, s) in stats.iter().enumerate() {
            let setup = &setups[i];
            let mut j = s.to_json();
            if let Value::Object(m) = &mut j {
                m.insert("robot".into(), json!(setup.robot.label()));
                m.insert("controller".into(), json!(setup.controller.name()));
                m.insert("direction_error".into(), json!(setup.faults.direction_error));
                m.insert("thruster_failure".into(), json!(setup.faults.thruster_failure));
                m.insert("sensor_failure".into(), json!(setup.faults.sensor_failure));
            }
            let q = |p: f64| super::stats::quantile(&s.velocities, p);
            let min = s.times.iter().copied().fold(f64::INFINITY, f64::min);
            let max = s.times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            rows.push(vec![
                setup.robot.label(),
                setup.controller.name().to_owned(),
                setup.faults.direction_error.to_string(),
                setup.faults.thruster_failure.to_string(),
                setup.faults.sensor_failure.to_string(),
                s.trials.to_string(),
                csv_number(s.success_rate(), 4),
                csv_number(q(0.5), 4),
                csv_number(q(0.25), 4),
                csv_number(q(0.75), 4),
                csv_number(s.mean_time(), 3),
                csv_number(min, 3),
                csv_number(max, 3),
            ]);
            report += &format!(
                "| {} | {} | {} | {} | {} | {} | {:.0} % | {} | {}-{} | {} | {}-{} |\n",
                setup.robot.label(),
                setup.controller.name(),
                setup.faults.direction_error,
                setup.faults.thruster_failure,
                setup.faults.sensor_failure,
                s.trials,
                s.success_rate() * 100.0,
                cell(q(0.5), 2),
                cell(q(0.25), 2),
                cell(q(0.75), 2),
                cell(s.mean_time(), 1),
                cell(min, 1),
                cell(max, 1)
            );
            settings.push(j);
        }
        let header = [
            "robot",
            "controller",
            "direction_error",
            "thruster_failure",
            "sensor_failure",
            "trials",
            "success_rate",
            "velocity_median_cm_s",
            "velocity_q1_cm_s",
            "velocity_q3_cm_s",
            "mean_time_s",
            "min_time_s",
            "max_time_s",
        ];
        let sweep_table = Table { file: "sweep.csv".into(), header: header.map(String::from).to_vec(), rows };
        let labelled: Vec<(String, &[_])> = results.iter().enumerate().map(|(i, r)| (label(i), r.as_slice())).collect();
        let tables = vec![sweep_table, trials_table(&labelled)];
        let mut metrics = serde_json::Map::new();
        metrics.insert("settings".into(), Value::Array(settings));
        let mut plots = Vec::new();
        let categories: Vec<String> = robots.iter().map(|r| r.label()).collect();
        let series: Vec<String> = controllers.iter().map(|c| c.name().to_owned()).collect();
        let conditions = errors.len() * thruster.len() * sensor.len();
        if conditions <= MAX_PANELS {
            let mut panels: Vec<BoxPanel> = Vec::new();
            for (i, &(ei, ti, si, ri, ci)) in keys.iter().enumerate() {
                let p = (ei * thruster.len() + ti) * sensor.len() + si;
                if panels.len() <= p {
                    let title = format!("e_max {} / p_thr {} / p_sen {}", errors[ei], thruster[ti], sensor[si]);
                    panels.push(BoxPanel { title, cells: Vec::new() });
                }
                panels[p].cells.push(BoxCell { category: ri, series: ci, stats: stats[i].clone() });
            }
            let (c, s) = (categories.clone(), series.clone());
            plots.push(Plot { file: "success_velocity.png".into(), draw: Box::new(move |path| plot_success_boxes(path, &c, &s, &panels)) });
        }
        // Fig. 5: one map per controller and direction error for each failure kind that varies.
        for (ci, controller) in controllers.iter().enumerate() {
            for (ei, &e) in errors.iter().enumerate() {
                for (kind, values) in [("thruster", &thruster), ("sensor", &sensor)] {
                    if values.len() < 2 {
                        continue;
                    }
                    let grid: Vec<Vec<Stats>> = (0..robots.len())
                        .map(|ri| {
                            (0..values.len())
                                .map(|vi| {
                                    let want = if kind == "thruster" { (ei, vi, 0, ri, ci) } else { (ei, 0, vi, ri, ci) };
                                    keys.iter().position(|k| *k == want).map(|i| stats[i].clone()).unwrap_or_else(|| Stats::of(&[]))
                                })
                                .collect()
                        })
                        .collect();
                    let title = format!("{kind} failure, {} (e_max {e})", controller.name());
                    let (r, v) = (categories.clone(), values.clone());
                    plots.push(Plot {
                        file: format!("failure_{kind}_{}_e{e}.png", controller.name()),
                        draw: Box::new(move |path| plot_failure_maps(path, &title, &r, &v, &grid)),
                    });
                }
            }
        }
        Ok(Outcome { metrics, tables, plots, report })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_grid_draws_both_figures() {
        let given: Vec<(String, String)> = [
            ("robots", "cube:1,cube:2"),
            ("controllers", "decentralised"),
            ("thruster-failures", "0,0.9"),
            ("trials", "2"),
            ("time-limit", "5"),
        ]
        .iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect();
        let options = Options::parse(OPTIONS, &given).unwrap();
        let out = Sweep.run(&options, &Progress::hidden()).unwrap();
        assert_eq!(out.metrics["settings"].as_array().unwrap().len(), 4);
        assert_eq!(out.tables[1].rows.len(), 8);
        let files: Vec<&str> = out.plots.iter().map(|p| p.file.as_str()).collect();
        assert_eq!(files, ["success_velocity.png", "failure_thruster_decentralised_e0.png"]);
        let dir = tempfile::tempdir().unwrap();
        out.write(dir.path(), &Sweep, &options).unwrap();
        assert!(dir.path().join("failure_thruster_decentralised_e0.png").exists());
        assert!(out.report.contains("| 2^3 | decentralised | 0 | 0.9 |"), "{}", out.report);
        // Nothing reaches the target in 5 s: the figures of no success are empty cells, not
        // NaN, inf and -inf.
        assert_eq!(out.metrics["settings"][0]["successes"], json!(0));
        let csv = out.tables[0].to_csv();
        assert!(!csv.contains("NaN") && !csv.contains("inf"), "{csv}");
    }
}
