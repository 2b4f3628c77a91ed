//! `molemod table1`: the planner on the paper's Table 1 tasks (task n with 1..=n robots):
//! plan cost and size, search effort and the median planning time of repeated runs next
//! to the published time. Costs, plans and search counts are deterministic; times are
//! wall-clock medians, so the cells run one after another (in parallel they would measure
//! each other). The benchmark with more columns: `reconfig_planner/benches/table1.rs`.

use std::path::Path;
use std::time::Duration;

use plotters::prelude::*;
use reconfig_planner::{plan, HeuristicKind, Plan, Task};
use serde_json::{json, Map};

use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use crate::report::PlotError;

/// Table 1 of the paper, ms (task row, robots column).
const PUBLISHED_MS: [&[f64]; 6] = [
    &[0.24],
    &[1.87, 2.02],
    &[3.08, 18.23, 5.10],
    &[9.00, 75.60, 117.95, 9.91],
    &[15.50, 224.10, 614.93, 332.15, 18.63],
    &[35.64, 1212.75, 4390.14, 4000.69, 706.35, 22.48],
];

/// The Table 1 experiment.
pub struct Table1;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "tasks",
        kind: OptionKind::Names,
        default: "task1,task2,task3,task4,task5,task6",
        help: "task files <name>.yaml in --tasks_dir",
    },
    OptionSpec {
        name: "max_robots",
        kind: OptionKind::Count,
        default: "6",
        help: "most robots per task (each task is planned with 1..=its robots)",
    },
    OptionSpec { name: "repeats", kind: OptionKind::Count, default: "5", help: "plans per cell; the median time is kept" },
    OptionSpec {
        name: "weight",
        kind: OptionKind::Positive,
        default: "1",
        help: "heuristic weight (1: optimal A*; above 1: cost at most weight x optimal)",
    },
    OptionSpec { name: "tasks_dir", kind: OptionKind::Path, default: super::TASKS_DIR, help: "directory of the task files" },
];

/// One planned cell.
struct Cell {
    task: String,
    robots: usize,
    plan: Plan,
    /// Median planning time, ms.
    median_ms: f64,
    /// The paper's time, ms (task1..task6 only).
    published_ms: Option<f64>,
}

impl Cell {
    fn label(&self) -> String {
        format!("{} / {} robots", self.task, self.robots)
    }
}

/// The robot counts a task is planned with: 1..=its robots (at most `max_robots`); only
/// the goal's count when its goal places robots (`R` cells: `moves3`), as a plan with
/// another count cannot end there (with 1 robot the whole run was refused).
fn robot_counts(task: &Task, max_robots: usize) -> Result<std::ops::RangeInclusive<usize>, String> {
    match task.goal.robots().len() {
        0 => Ok(1..=task.robots.len().min(max_robots)),
        placed if placed > max_robots => Err(format!("the goal places {placed} robots, more than --max_robots {max_robots}")),
        placed => Ok(placed..=placed),
    }
}

fn published(task: &str, robots: usize) -> Option<f64> {
    let row: usize = task.strip_prefix("task")?.parse().ok()?;
    PUBLISHED_MS.get(row.checked_sub(1)?)?.get(robots.checked_sub(1)?).copied()
}

impl Experiment for Table1 {
    fn system(&self) -> &'static str {
        "molemod"
    }

    fn name(&self) -> &'static str {
        "table1"
    }

    fn description(&self) -> &'static str {
        "planner Table 1: cost, search effort and median planning time per task and robot count vs the paper"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let dir = options.path("tasks_dir")?.unwrap_or_default();
        let repeats = options.count("repeats")?;
        let weight = options.number("weight")?;
        let max_robots = options.count("max_robots")?;
        let mut tasks = Vec::new();
        for name in options.names("tasks")? {
            let path = dir.join(format!("{name}.yaml"));
            let task = Task::load(&path).map_err(|e| ExperimentError::Option { option: "tasks".into(), message: e.to_string() })?;
            // A task without robots gave an empty table and exit 0.
            if task.robots.is_empty() {
                return Err(Options::invalid("tasks", format!("{}: `robots` lists no robot", path.display())));
            }
            tasks.push((name, task));
        }
        let mut counts = Vec::new();
        for (name, task) in &tasks {
            counts.push(robot_counts(task, max_robots).map_err(|message| Options::invalid("max_robots", format!("{name}: {message}")))?);
        }
        let cells_asked: usize = counts.iter().map(|c| c.clone().count()).sum();
        progress.expect(cells_asked, "planner Table 1");
        let mut cells = Vec::new();
        for ((name, task), counts) in tasks.iter().zip(counts) {
            let path = dir.join(format!("{name}.yaml"));
            for robots in counts {
                let request = task.request(robots)?.with_heuristic(HeuristicKind::Improved).with_weight(weight);
                // A request the planner refuses names the file (it said only "invalid request: ...").
                request.validate().map_err(|e| super::plan_error(e.into(), &path, robots, "tasks"))?;
                let mut times = Vec::with_capacity(repeats);
                let mut last = None;
                for _ in 0..repeats {
                    let found = plan(&request)?;
                    times.push(found.stats.elapsed);
                    last = Some(found);
                }
                let Some(found) = last else { continue };
                found.verify(&request)?;
                times.sort();
                let median: Duration = times[times.len() / 2];
                cells.push(Cell {
                    task: name.clone(),
                    robots,
                    plan: found,
                    median_ms: median.as_secs_f64() * 1e3,
                    published_ms: published(name, robots),
                });
                progress.finished_one();
            }
        }
        let mut metrics = Map::new();
        for c in &cells {
            let s = &c.plan.stats;
            metrics.insert(
                c.label(),
                json!({
                    "cost": c.plan.cost,
                    "steps": c.plan.steps.len(),
                    "actions": c.plan.action_count(),
                    "expanded": s.expanded,
                    "generated": s.generated,
                    "median_time_ms": number(c.median_ms),
                    "published_time_ms": c.published_ms.map(number),
                    "speedup": c.published_ms.map(|p| number(p / c.median_ms)),
                }),
            );
        }
        let compared: Vec<&Cell> = cells.iter().filter(|c| c.published_ms.is_some()).collect();
        let ten_x = compared.iter().filter(|c| c.published_ms.is_some_and(|p| p / c.median_ms >= 10.0)).count();
        metrics.insert("cells_compared_with_the_paper".into(), json!(compared.len()));
        metrics.insert("cells_at_least_10x_faster".into(), json!(ten_x));
        let points: Vec<(String, f64, Option<f64>)> =
            cells.iter().map(|c| (format!("{}/{}", c.task.trim_start_matches("task"), c.robots), c.median_ms, c.published_ms)).collect();
        let plot = Plot { file: "table1.png".into(), draw: Box::new(move |path| plot_times(path, &points, weight)) };
        Ok(Outcome { metrics, tables: vec![table(&cells)], plots: vec![plot], report: String::new() })
    }
}

/// `table1.csv`: one row per cell.
fn table(cells: &[Cell]) -> Table {
    let header = ["task", "robots", "cost", "steps", "actions", "expanded", "generated", "median_time_ms", "published_time_ms"];
    let rows = cells
        .iter()
        .map(|c| {
            vec![
                c.task.clone(),
                c.robots.to_string(),
                c.plan.cost.to_string(),
                c.plan.steps.len().to_string(),
                c.plan.action_count().to_string(),
                c.plan.stats.expanded.to_string(),
                c.plan.stats.generated.to_string(),
                format!("{:.4}", c.median_ms),
                c.published_ms.map_or_else(String::new, |p| p.to_string()),
            ]
        })
        .collect();
    Table { file: "table1.csv".into(), header: header.map(String::from).to_vec(), rows }
}

/// Log-scale planning time per cell: ours and the paper's, ms.
fn plot_times(path: &Path, points: &[(String, f64, Option<f64>)], weight: f64) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let values = points.iter().flat_map(|(_, ours, theirs)| std::iter::once(*ours).chain(*theirs)).filter(|v| *v > 0.0);
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if lo.is_finite() { (lo / 2.0, hi * 2.0) } else { (1e-3, 1.0) };
    let root = BitMapBackend::new(path, (1200, 620)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("MoleMOD planner, Table 1: planning time per task / robots", ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..points.len() as f64 - 0.5, (lo..hi).log_scale())
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_labels(points.len().max(1))
        .x_label_formatter(&|x| {
            let index = x.round();
            match points.get(index as usize) {
                Some((label, _, _)) if (x - index).abs() < 0.01 && index >= 0.0 => label.clone(),
                _ => String::new(),
            }
        })
        .x_desc("task / robots")
        .y_desc("planning time [ms] (log)")
        .draw()
        .map_err(|e| err(e.to_string()))?;
    let ours_label = if weight == 1.0 { "ours, optimal A* (median)".to_owned() } else { format!("ours, heuristic x {weight} (median)") };
    let series = [
        (
            "published (their machine)".to_owned(),
            BLACK,
            points.iter().enumerate().filter_map(|(x, (_, _, p))| p.map(|p| (x as f64, p))).collect(),
        ),
        (ours_label, BLUE, points.iter().enumerate().map(|(x, (_, t, _))| (x as f64, *t)).collect::<Vec<_>>()),
    ];
    for (label, colour, data) in series {
        chart
            .draw_series(data.iter().map(|&p| Circle::new(p, 4, colour.filled())))
            .map_err(|e| err(e.to_string()))?
            .label(label)
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_times_by_task_and_robots() {
        assert_eq!(published("task1", 1), Some(0.24));
        assert_eq!(published("task6", 3), Some(4390.14));
        assert_eq!(published("task6", 7), None);
        assert_eq!(published("task3d_1", 1), None);
        assert_eq!(published("task0", 1), None);
    }

    /// A goal that places its robots (`moves3`: three `R` cells) is planned with that many
    /// robots only; with 1 and 2 the run was refused ("goal places 3 robots but the start
    /// has 1"). Fewer allowed than the goal places names --max_robots.
    #[test]
    fn a_goal_with_robot_cells_is_planned_with_its_robots() {
        use crate::experiment::{Experiment, Options, Progress};
        let pairs = |max: &str| -> Vec<(String, String)> {
            [("tasks", "moves1,moves3"), ("repeats", "1"), ("max_robots", max)].iter().map(|(a, b)| ((*a).into(), (*b).into())).collect()
        };
        let options = Options::parse(OPTIONS, &pairs("6")).unwrap();
        let out = Table1.run(&options, &Progress::hidden()).unwrap();
        let rows: Vec<(&str, &str)> = out.tables[0].rows.iter().map(|r| (r[0].as_str(), r[1].as_str())).collect();
        assert_eq!(rows, [("moves1", "1"), ("moves3", "3")]);
        let options = Options::parse(OPTIONS, &pairs("2")).unwrap();
        let Err(err) = Table1.run(&options, &Progress::hidden()) else { panic!("3 goal robots planned with at most 2") };
        assert!(err.is_usage() && err.to_string().contains("--max_robots") && err.to_string().contains("moves3"), "{err}");
    }
}
