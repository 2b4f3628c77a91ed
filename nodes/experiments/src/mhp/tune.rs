//! `mhp tune`: the paper's tuning of the centralised controller on the 3 x 3 x 3 cube
//! (SPEC 5): with the derivative gains at zero raise the proportional gain until the robot
//! reaches the target, then raise the derivative gain until the overshoot is minimal. Each
//! gain combination runs N trials for the whole time limit (no stop at success) and
//! reports success, time to reach the target and the overshoot after reaching it.
//!
//! `flotilla experiment mhp tune --kp 0.01,0.1,1 --kd 0,1,2,4,8 --out DIR`

use flotilla_firmware::mhp::CentralisedGains;
use serde_json::{json, Value};
use tank_physics::systems::mhp::MhpFaults;

use super::stats::{cell, Stats};
use super::trials::{protocol, PROTOCOL};
use super::{option_error, robots, run_batch, Controller, TrialSetup};
use crate::experiment::{csv_number, number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Progress, Table};

/// The `tune` experiment.
pub struct Tune;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "robot", kind: OptionKind::Names, default: "cube:3", help: "the robot tuned on" },
    OptionSpec { name: "kp", kind: OptionKind::Numbers, default: "0,0.01,0.1,1", help: "translational proportional gains, N/m" },
    OptionSpec { name: "kd", kind: OptionKind::Numbers, default: "0,1,2,4,8", help: "translational derivative gains, N s/m" },
    OptionSpec { name: "kp-rotation", kind: OptionKind::Numbers, default: "0.05", help: "rotational proportional gains, N m/rad" },
    OptionSpec { name: "kd-rotation", kind: OptionKind::Numbers, default: "0.2", help: "rotational derivative gains, N m s/rad" },
    OptionSpec {
        name: "direction-error",
        kind: OptionKind::Numbers,
        default: "0",
        help: "e_max of the thrusters (a perfect cube never turns: rotation gains need a disturbance)",
    },
    OptionSpec { name: "trials", kind: OptionKind::Count, default: "20", help: "trials per gain combination" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "0", help: "run seed" },
    PROTOCOL[0],
    PROTOCOL[1],
    PROTOCOL[2],
    PROTOCOL[3],
    PROTOCOL[4],
    PROTOCOL[5],
    PROTOCOL[6],
];

impl Experiment for Tune {
    fn system(&self) -> &'static str {
        "mhp"
    }

    fn name(&self) -> &'static str {
        "tune"
    }

    fn description(&self) -> &'static str {
        "the paper's PD tuning of the centralised controller: success, time and overshoot per gain combination"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let robot = match robots(options, "robot")?.as_slice() {
            [one] => one.clone(),
            _ => return Err(option_error("robot", "give one robot")),
        };
        let seed = options.seed("seed")?;
        let faults = match super::direction_errors(options, "direction-error")?.as_slice() {
            [e] => MhpFaults { direction_error: *e, ..MhpFaults::default() },
            _ => return Err(option_error("direction-error", "give one value")),
        };
        let mut setups = Vec::new();
        for kp_translation in options.numbers("kp")? {
            for kd_translation in options.numbers("kd")? {
                for kp_rotation in options.numbers("kp-rotation")? {
                    for kd_rotation in options.numbers("kd-rotation")? {
                        let gains = CentralisedGains { kp_translation, kd_translation, kp_rotation, kd_rotation };
                        let mut setup = protocol(options, TrialSetup::paper(robot.clone(), Controller::Centralised(gains), faults, seed))?;
                        setup.stop_at_success = false;
                        setups.push((gains, setup));
                    }
                }
            }
        }
        let only: Vec<TrialSetup> = setups.iter().map(|(_, s)| s.clone()).collect();
        let results = run_batch(&only, options.count("trials")?, progress)?;
        let mut rows = Vec::new();
        let mut settings = Vec::new();
        let mut report = String::from("| kp (N/m) | kd (N s/m) | kp rot (N m/rad) | kd rot (N m s/rad) | success | mean time (s) | mean overshoot (cm) |\n|---|---|---|---|---|---|---|\n");
        for ((gains, _), r) in setups.iter().zip(&results) {
            let stats = Stats::of(r);
            let reached: Vec<f64> = r.iter().filter(|t| t.success).map(|t| t.overshoot_cm).collect();
            let overshoot = reached.iter().sum::<f64>() / reached.len() as f64;
            let g = gains;
            rows.push(vec![
                g.kp_translation.to_string(),
                g.kd_translation.to_string(),
                g.kp_rotation.to_string(),
                g.kd_rotation.to_string(),
                csv_number(stats.success_rate(), 4),
                csv_number(stats.mean_time(), 3),
                csv_number(overshoot, 3),
            ]);
            report += &format!(
                "| {} | {} | {} | {} | {:.0} % | {} | {} |\n",
                g.kp_translation,
                g.kd_translation,
                g.kp_rotation,
                g.kd_rotation,
                stats.success_rate() * 100.0,
                cell(stats.mean_time(), 1),
                cell(overshoot, 1)
            );
            settings.push(json!({
                "kp": g.kp_translation, "kd": g.kd_translation, "kp_rotation": g.kp_rotation, "kd_rotation": g.kd_rotation,
                "success_rate": number(stats.success_rate()), "mean_time_s": number(stats.mean_time()), "mean_overshoot_cm": number(overshoot),
            }));
        }
        let header = ["kp", "kd", "kp_rotation", "kd_rotation", "success_rate", "mean_time_s", "mean_overshoot_cm"];
        let table = Table { file: "tune.csv".into(), header: header.map(String::from).to_vec(), rows };
        let mut metrics = serde_json::Map::new();
        metrics.insert("settings".into(), Value::Array(settings));
        Ok(Outcome { metrics, tables: vec![table], plots: Vec::new(), report })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_gains_never_reach_and_p_does() {
        let given: Vec<(String, String)> =
            [("kp", "0,1"), ("kd", "0"), ("kp-rotation", "0"), ("kd-rotation", "0"), ("trials", "2"), ("robot", "cube:2")]
                .iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect();
        let options = Options::parse(OPTIONS, &given).unwrap();
        let out = Tune.run(&options, &Progress::hidden()).unwrap();
        let s = out.metrics["settings"].as_array().unwrap();
        assert_eq!(s[0]["success_rate"], json!(0.0), "all gains zero: no thruster fires");
        assert_eq!(s[1]["success_rate"], json!(1.0));
        // No success: no mean time or overshoot, an empty cell (was NaN).
        let csv = out.tables[0].to_csv();
        assert!(!csv.contains("NaN") && csv.contains("0,0,0,0,0.0000,,\n"), "{csv}");
    }
}
