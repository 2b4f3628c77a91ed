//! Short seeded runs of every experiment through the library API: the summary has its
//! keys, the figures are finite and plausible, the same options give the same outcome.

use flotilla_experiments::registry::find;
use flotilla_experiments::{Options, Outcome, Progress};
use serde_json::Value;

fn run(system: &str, name: &str, options: &[(&str, &str)]) -> (Outcome, u64) {
    let experiment = find(system, name).unwrap();
    let given: Vec<(String, String)> = options.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    let options = Options::parse(experiment.options(), &given).unwrap();
    let progress = Progress::hidden();
    let outcome = experiment.run(&options, &progress).unwrap();
    (outcome, progress.finished())
}

fn figure(metrics: &Value, key: &str) -> f64 {
    metrics[key].as_f64().unwrap_or_else(|| panic!("{key} missing or not a number in {metrics}"))
}

#[test]
fn lily_yield_short_run() {
    let options = [("seeds", "2"), ("duration", "150"), ("rulesets", "chain4,t4"), ("pumps", "68.6")];
    let (outcome, runs) = run("lily", "yield", &options);
    assert_eq!(runs, 4, "2 rulesets x 1 pump power x 2 seeds");
    assert_eq!(outcome.metrics.len(), 2);
    for label in ["chain4 @ 68.6 %", "t4 @ 68.6 %"] {
        let m = &outcome.metrics[label];
        assert_eq!(m["runs"], 2, "{label}");
        let (mean, lo, hi) = (figure(m, "final_yield_mean_pct"), figure(m, "final_yield_min_pct"), figure(m, "final_yield_max_pct"));
        assert!((0.0..=100.0).contains(&lo) && lo <= mean && mean <= hi && hi <= 100.0, "{label}: {m}");
        assert!(figure(m, "final_yield_sd_pct") >= 0.0);
        assert!(m["mean_yield_pct_at_s"]["60"].is_number() && m["mean_yield_pct_at_s"]["150"].is_number(), "{m}");
        let rate = figure(m, "assembly_rate_per_min");
        assert!((0.0..=3.0 / 2.5).contains(&rate), "at most 3 targets in 2.5 min: {rate}");
        assert!(figure(m, "wrong_attachments_per_run") >= 0.0 && figure(m, "targets_formed_per_run") >= 0.0);
    }
    let files: Vec<&str> = outcome.plots.iter().map(|p| p.file.as_str()).collect();
    assert_eq!(files, ["yield_chain4.png", "yield_t4.png", "yield.png"], "yield.png: the chain4 panel (square4 not run)");
    let tables: Vec<&str> = outcome.tables.iter().map(|t| t.file.as_str()).collect();
    assert_eq!(tables, ["yield_curves.csv", "runs.csv"]);
    assert_eq!(outcome.tables[1].rows.len(), 4, "one row per run");
    assert!(outcome.report.contains("| chain4 @ 68.6 % | 2 |"), "{}", outcome.report);
    let command = "`flotilla experiment lily yield --seeds 2 --duration 150 --rulesets chain4,t4 --pumps 68.6 --out DIR` (4 runs";
    assert!(outcome.report.contains(command), "{}", outcome.report);
    assert_eq!(outcome.report.matches("yield at 150 s").count(), 1, "the duration is one of the fixed times: {}", outcome.report);
    // Seeded: the same options give the same figures; another first seed other runs.
    assert_eq!(run("lily", "yield", &options).0.metrics, outcome.metrics);
    let other = run("lily", "yield", &[("seeds", "2"), ("seed", "3"), ("duration", "150"), ("rulesets", "chain4,t4"), ("pumps", "68.6")]);
    assert_ne!(other.0.tables[1].rows, outcome.tables[1].rows);
}

#[test]
fn lily_msd_short_run_and_written_outcome() {
    let options = [("seeds", "1"), ("duration", "90"), ("pumps", "68.6,90"), ("levels", "-8")];
    let (outcome, runs) = run("lily", "msd", &options);
    assert_eq!(runs, 2, "68.6 % and 90 % at -8 cm; the level setting repeats 68.6 % at -8 cm");
    for label in ["68.6 %, level -8 cm", "90 %, level -8 cm"] {
        let m = &outcome.metrics[label];
        let plateau = figure(m, "plateau_m2");
        // Bounded by the tank: at most its diameter (0.6 m) squared.
        assert!(plateau > 1e-3 && plateau < 0.36, "{label}: {m}");
        let peak = figure(m, "first_peak_s");
        assert!(peak > 0.0 && peak < 60.0, "{label}: {m}");
        assert!(figure(m, "first_peak_m2") >= plateau, "the first peak overshoots the plateau: {m}");
        assert!(figure(m, "mean_speed_m_per_s") > 0.01 && figure(m, "mean_speed_m_per_s") < 1.0, "{m}");
        assert!(figure(m, "mean_radius_m") > 0.0 && figure(m, "mean_radius_m") < 0.3, "{m}");
        assert_eq!(figure(m, "pump_pct"), if label.starts_with("90") { 90.0 } else { 68.6 });
    }
    let table = &outcome.tables[0];
    assert_eq!(table.rows.len(), 2400, "60 s of 25 ms lags");
    assert_eq!(table.header, ["lag_s", "msd_m2_pump_68.6_pct_level_-8_cm", "msd_m2_pump_90_pct_level_-8_cm"]);
    let experiment = find("lily", "msd").unwrap();
    let given: Vec<(String, String)> = options.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    let dir = tempfile::tempdir().unwrap();
    let written = outcome.write(dir.path(), experiment, &Options::parse(experiment.options(), &given).unwrap()).unwrap();
    assert_eq!(written.len(), 3, "msd.csv, msd.png, summary.json: {written:?}");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["system"], "lily");
    assert_eq!(summary["experiment"], "msd");
    assert_eq!(summary["options"]["pumps"], "68.6,90");
    assert_eq!(summary["options"]["balls"], "24", "defaults recorded too");
    assert_eq!(summary["metrics"], Value::Object(outcome.metrics.clone()));
    assert_eq!(summary["plots"], serde_json::json!(["msd.png"]));
    assert_eq!(&std::fs::read(dir.path().join("msd.png")).unwrap()[1..4], b"PNG");
}

#[test]
fn molemod_table1_short_run() {
    let options = [("tasks", "task1,task3"), ("max_robots", "2"), ("repeats", "1")];
    let (outcome, cells) = run("molemod", "table1", &options);
    assert_eq!(cells, 3, "task1 with 1 robot, task3 with 1 and 2");
    for (label, published) in [("task1 / 1 robots", 0.24), ("task3 / 1 robots", 3.08), ("task3 / 2 robots", 18.23)] {
        let m = &outcome.metrics[label];
        assert!(m["cost"].as_u64().unwrap() > 0 && m["actions"].as_u64().unwrap() >= m["steps"].as_u64().unwrap(), "{label}: {m}");
        assert!(m["expanded"].as_u64().unwrap() >= 1 && m["generated"].as_u64() >= m["expanded"].as_u64(), "{label}: {m}");
        let time = figure(m, "median_time_ms");
        assert!(time > 0.0 && time < 10_000.0, "{label}: {m}");
        assert_eq!(figure(m, "published_time_ms"), published);
    }
    assert_eq!(outcome.metrics["cells_compared_with_the_paper"], 3);
    assert_eq!(outcome.tables[0].rows.len(), 3);
    // Costs and search counts do not depend on timing: a second run gives the same plans.
    let again = run("molemod", "table1", &options).0;
    for label in ["task1 / 1 robots", "task3 / 2 robots"] {
        assert_eq!(again.metrics[label]["cost"], outcome.metrics[label]["cost"]);
        assert_eq!(again.metrics[label]["expanded"], outcome.metrics[label]["expanded"]);
    }
}

#[test]
fn molemod_motions_short_run() {
    let options = [("steps", "12"), ("iterations", "2"), ("angles", "0.3"), ("starts", "2"), ("seed", "5")];
    let (outcome, runs) = run("molemod", "motions", &options);
    assert_eq!(runs, 1 + 1 + 2 + 1, "one crawl, one turn, two starts, one traced run");
    let crawl = &outcome.metrics["crawl"]["step 12 mm"];
    assert!((figure(crawl, "mm_per_cycle") - 24.0).abs() < 0.05 * 24.0, "{crawl}");
    let turn = &outcome.metrics["turn"]["angle 0.3 rad"];
    assert!((figure(turn, "turned_rad") - 0.3).abs() < 0.1 * 0.3, "{turn}");
    let metrics = Value::Object(outcome.metrics.clone());
    assert!(figure(&metrics, "max_outer_joint_error_um") <= 50.0, "{metrics}");
    assert!(figure(&metrics, "repeat_end_spread_mm") < 1.0, "{metrics}");
    assert_eq!(outcome.tables.iter().map(|t| t.file.as_str()).collect::<Vec<_>>(), ["motions.csv", "joints.csv"]);
    // Same seed, same run, bit for bit (all but the wall time).
    let without_wall =
        |o: &Outcome| o.metrics.iter().filter(|(k, _)| *k != "wall_time_s").map(|(k, v)| (k.clone(), v.clone())).collect::<Vec<_>>();
    assert_eq!(without_wall(&run("molemod", "motions", &options).0), without_wall(&outcome));
    // A step the joints cannot make is a usage error naming the option.
    let experiment = find("molemod", "motions").unwrap();
    let given = vec![("steps".to_owned(), "45".to_owned())];
    let err = experiment.run(&Options::parse(experiment.options(), &given).unwrap(), &Progress::hidden()).err().expect("refused");
    assert!(err.is_usage() && err.to_string().contains("--steps") && err.to_string().contains("step = 0.045"), "{err}");
}

#[test]
fn molemod_execute_runs_a_plan_of_moves_and_reports_what_it_cannot_do() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/molemod");
    let moves = format!("{dir}/moves1.yaml");
    let moves3 = format!("{dir}/moves3.yaml");
    let options = [("task", moves.as_str()), ("robots", "1"), ("seed", "3")];
    let (outcome, steps) = run("molemod", "execute", &options);
    let m = Value::Object(outcome.metrics.clone());
    assert_eq!((steps, m["steps"].as_u64(), m["steps_succeeded"].as_u64()), (2, Some(2), Some(2)), "{m}");
    assert_eq!(m["goal_reached"], true);
    assert_eq!(m["planned_with_executor_repertoire"], true, "{m}");
    assert!(m["executor_repertoire_refusal"].is_null(), "{m}");
    assert_eq!(m["planned_repertoire"], "minimal", "{m}");
    assert!(m["failure"].is_null(), "{m}");
    assert_eq!(figure(&m, "block_friction"), 1.0, "the blocks' own friction by default: {m}");
    assert!(figure(&m, "max_block_error_mm") < figure(&m, "block_tolerance_mm"), "{m}");
    assert!(figure(&m, "max_robot_error_mm") < figure(&m, "robot_tolerance_mm"), "{m}");
    assert!(figure(&m, "sim_time_s") > 5.0 && figure(&m, "wall_time_s") > 0.0, "{m}");
    let plots: Vec<&str> = outcome.plots.iter().map(|p| p.file.as_str()).collect();
    assert_eq!(plots, ["joints.png", "lattice_before.png", "lattice_after.png"]);
    assert!(outcome.tables[0].rows.len() > 100, "the joint trace");
    // From the second step: the first is not run, the robot starts in the cell it ends in.
    let (outcome, steps) = run("molemod", "execute", &[("task", moves.as_str()), ("from_step", "1")]);
    let m = Value::Object(outcome.metrics.clone());
    assert_eq!((steps, m["from_step"].as_u64(), m["steps_succeeded"].as_u64()), (1, Some(1), Some(1)), "{m}");
    assert_eq!(m["goal_reached"], true, "{m}");
    assert_eq!(outcome.tables[1].rows[0][1], "1", "numbered as in the plan: {:?}", outcome.tables[1].rows[0]);
    // 3-D task 1: its lift (task 2's, onto the neighbour behind the robot) runs in the
    // physics and is checked; the put down across to the other y layer from the lift's U is
    // a report instead of a result, before the physics. Tasks 1 and 2 run their shifts too
    // (5-12 min, too long here; docs/molemod_execution.md).
    let task3d = format!("{dir}/task3d_1.yaml");
    let (outcome, _) = run("molemod", "execute", &[("task", task3d.as_str())]);
    let m = Value::Object(outcome.metrics.clone());
    assert_eq!((m["steps_succeeded"].as_u64(), m["goal_reached"].as_bool()), (Some(1), Some(false)), "{m}");
    // No plan within the executor's repertoire (no tunnel along y): planned with every action.
    assert_eq!(m["planned_with_executor_repertoire"].as_bool(), Some(false), "{m}");
    assert!(m["executor_repertoire_refusal"].as_str().is_some_and(|why| why.starts_with("no plan")), "{m}");
    assert_eq!(m["planned_repertoire"], "every_action", "{m}");
    assert!(figure(&m, "max_block_error_mm") < figure(&m, "block_tolerance_mm"), "{m}");
    assert_eq!(m["failure"]["step"].as_u64(), Some(1), "{m}");
    let report = m["failure"]["report"].as_str().expect("a report");
    assert!(report.contains("robot 0 put_down") && report.contains("from the U its lift ended in"), "{report}");
    let last_event = outcome.tables[1].rows.last().expect("events");
    assert_eq!((last_event[1].as_str(), last_event[2].starts_with("step failed: ")), ("1", true), "{last_event:?}");
    // Bad input: usage errors naming the option.
    let experiment = find("molemod", "execute").unwrap();
    for (given, option, text) in [
        (vec![], "--task", "required"),
        (vec![("task", "/nonexistent/task.yaml")], "--task", "cannot read"),
        (vec![("task", moves.as_str()), ("robots", "2")], "--robots", "2 robots requested"),
        // Fewer robots than the goal places (it named --task: "goal places 3 robots but the
        // start has 1").
        (vec![("task", moves3.as_str()), ("robots", "1")], "--robots", "places 3 robots: give --robots 3"),
        (vec![("task", moves.as_str()), ("from_step", "2")], "--from_step", "the plan has 2 steps (0 to 1)"),
        (vec![("task", task3d.as_str()), ("from_step", "1")], "--from_step", "(step 0: robot 0 lift"),
        (vec![("task", moves.as_str()), ("block_friction", "-0.1")], "--block_friction", "from 0 to 2"),
        (vec![("task", moves.as_str()), ("block_friction", "0.3,0.4")], "--block_friction", "one friction coefficient"),
    ] {
        let given: Vec<(String, String)> = given.iter().map(|(k, v): &(&str, &str)| ((*k).to_owned(), (*v).to_owned())).collect();
        let err = experiment.run(&Options::parse(experiment.options(), &given).unwrap(), &Progress::hidden()).err().expect("refused");
        assert!(err.is_usage() && err.to_string().contains(option) && err.to_string().contains(text), "{err}");
    }
    let zero = vec![("task".to_owned(), moves.clone()), ("robots".to_owned(), "0".to_owned())];
    assert!(Options::parse(experiment.options(), &zero).is_err_and(|e| e.to_string().contains("--robots")));
}
