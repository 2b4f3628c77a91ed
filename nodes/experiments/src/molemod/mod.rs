//! Experiments of MoleMOD (SPEC 2): the planner's Table 1 planning times, the mole's
//! motions measured in the physics, and plans executed by the physics.

mod execute;
mod motions;
mod table1;

pub use execute::Execute;
pub use motions::Motions;
pub use table1::Table1;

use std::path::Path;

use plotters::prelude::*;

use reconfig_planner::{PlanError, RequestError};

use crate::experiment::{Experiment, ExperimentError, Options};
use crate::report::PlotError;

/// The MoleMOD experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&Table1, &Motions, &Execute];

/// The task files shipped in the repository (`config/molemod/`).
pub const TASKS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/molemod");

/// A planner error on the task file `path` planned with `robots` robots. A request the
/// planner refuses (start and goal of other sizes or block counts, a floating block, no
/// robot, a weight out of range) is the caller's input: an option error (exit 2) naming
/// the file, under `task_option`, or `weight`. Anything else fails the experiment.
fn plan_error(error: PlanError, path: &Path, robots: usize, task_option: &str) -> ExperimentError {
    match error {
        PlanError::Invalid(e @ RequestError::Weight { .. }) => Options::invalid("weight", e.to_string()),
        PlanError::Invalid(e) => Options::invalid(task_option, format!("{} with {robots} robots: {e}", path.display())),
        other => other.into(),
    }
}

/// Joint positions over time, every robot (`trace`: sim time, then per robot its joints in
/// `names` order): prismatic joints (mm) above, universal joint angles (rad) below.
fn plot_joints(path: &Path, caption: &str, names: &[String], trace: &[(f64, Vec<Vec<f64>>)]) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let t_end = trace.last().map_or(1.0, |r| r.0).max(1e-3);
    let robots = trace.first().map_or(0, |s| s.1.len());
    let root = BitMapBackend::new(path, (1100, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (upper, lower) = root.split_vertically(380);
    let panels = [
        (upper, "prismatic joints [mm]", true, 1e3, -1.0f64..32.0f64),
        // The universal joints' whole +-90 degree range: the lift and the follows reach it.
        (lower, "universal joint angles [rad]", false, 1.0, -1.65f64..1.65f64),
    ];
    for (area, label, prismatic, scale, range) in panels {
        let mut chart = ChartBuilder::on(&area)
            .caption(if prismatic { caption } else { "" }, ("sans-serif", 22))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, range)
            .map_err(|e| err(e.to_string()))?;
        chart.configure_mesh().x_desc("sim time [s]").y_desc(label).draw().map_err(|e| err(e.to_string()))?;
        for robot in 0..robots {
            for (i, name) in names.iter().enumerate() {
                if name.starts_with("prismatic") != prismatic {
                    continue;
                }
                let colour = Palette99::pick(robot * names.len() + i).to_rgba();
                chart
                    .draw_series(LineSeries::new(
                        trace.iter().filter_map(|(t, p)| p.get(robot).and_then(|r| r.get(i)).map(|v| (*t, v * scale))),
                        colour.stroke_width(2),
                    ))
                    .map_err(|e| err(e.to_string()))?
                    .label(if robots == 1 { name.clone() } else { format!("robot {robot} {name}") })
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2)));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(e.to_string()))?;
    }
    root.present().map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use crate::experiment::{Experiment, Options, Progress};

    fn run_with(experiment: &dyn Experiment, given: &[(&str, &str)]) -> crate::experiment::ExperimentError {
        let given: Vec<(String, String)> = given.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let options = Options::parse(experiment.options(), &given).expect("options parse");
        experiment.run(&options, &Progress::hidden()).err().expect("refused")
    }

    /// A task file whose goal has another block count (or size, or floating blocks), and a
    /// weight out of the planner's range, failed the experiment (exit 1) with "invalid
    /// request: X: X" and no file name; a task listing no robot gave an empty table, exit 0.
    /// They are now usage errors naming the file or option (exit 2).
    #[test]
    fn tasks_the_planner_refuses_are_usage_errors_naming_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let task = |name: &str, goal: &str, robots: &str| {
            let text = format!("name: {name}\nstart: |\n  ...\n  ##.\ngoal: |\n  ...\n  {goal}\nrobots: {robots}\n");
            std::fs::write(dir.path().join(format!("{name}.yaml")), text).expect("write task");
            dir.path().join(format!("{name}.yaml")).display().to_string()
        };
        let more = task("more", "###", "[[0, 0]]");
        task("none", "#.#", "[]");
        let tasks_dir = dir.path().display().to_string();
        let err = run_with(&super::Execute, &[("task", more.as_str())]);
        let text = err.to_string();
        assert!(err.is_usage() && text.contains("--task") && text.contains("more.yaml") && text.contains("goal has 3"), "{text}");
        assert_eq!(text.matches("goal has 3").count(), 1, "{text}");
        for (given, want) in [
            (vec![("tasks", "more"), ("repeats", "1")], "more.yaml with 1 robots: start has 2 blocks but goal has 3"),
            (vec![("tasks", "none"), ("repeats", "1")], "none.yaml: `robots` lists no robot"),
            (vec![("tasks", "task1"), ("repeats", "1"), ("weight", "500")], "--weight: heuristic weight 500"),
        ] {
            let mut given = given;
            if given[0].1 != "task1" {
                given.push(("tasks_dir", tasks_dir.as_str()));
            }
            let err = run_with(&super::Table1, &given);
            assert!(err.is_usage() && err.to_string().contains(want), "{err}");
        }
    }
}
