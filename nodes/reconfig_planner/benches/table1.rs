//! Table 1 benchmark: plans the six task files with 1..n robots (task n lists n robots,
//! as in the paper's Table 1) and prints our times next to the published ones, plus the
//! 3-D tasks. Run:
//!
//! `cargo bench -p reconfig_planner --no-default-features --bench table1 [-- --quick] [--weight W] [--plot FILE.png]`
//! (a relative `FILE.png` is taken from the workspace root)
//!
//! Times are medians of repeated runs of `plan` (search only, from `SearchStats`). Each
//! cell is planned three ways: optimal A* with the improved heuristic (the headline),
//! optimal A* with the published heuristic, and weighted A* (`w` = `--weight`, default
//! [`DEFAULT_WEIGHT`], improved heuristic; cost at most `w` x optimal, the excess is
//! printed). The most crowded cells are
//! also planned with every step built at once and with every step built one action at a
//! time (operator decomposition), to show what the default threshold buys.

use reconfig_planner::planner::DECOMPOSE_ABOVE;
use reconfig_planner::{plan, HeuristicKind, Plan, Task};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Table 1 of the paper, ms (task row, robots column).
const PUBLISHED_MS: [&[f64]; 6] = [
    &[0.24],
    &[1.87, 2.02],
    &[3.08, 18.23, 5.10],
    &[9.00, 75.60, 117.95, 9.91],
    &[15.50, 224.10, 614.93, 332.15, 18.63],
    &[35.64, 1212.75, 4390.14, 4000.69, 706.35, 22.48],
];

struct Measured {
    plan: Plan,
    median: Duration,
    runs: usize,
}

fn tasks_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config/molemod")
}

fn load(name: &str) -> Task {
    let path = tasks_dir().join(name);
    Task::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Weight of the weighted-A* column unless `--weight` says otherwise.
const DEFAULT_WEIGHT: f64 = 2.0;

/// The value after the command-line option `name`, if given.
fn option_value(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    Some(args.get(i + 1).unwrap_or_else(|| panic!("{name} needs a value")).clone())
}

/// The value after `--weight`, else [`DEFAULT_WEIGHT`].
fn weight_argument() -> f64 {
    option_value("--weight").map_or(DEFAULT_WEIGHT, |value| value.parse().unwrap_or_else(|e| panic!("--weight {value}: {e}")))
}

/// Log-scale plot of every cell: published, the goal (a tenth of it), ours optimal and
/// weighted, ms.
fn plot(path: &Path, optimal: &[Vec<f64>], weighted: &[Vec<f64>], weight: f64) -> Result<(), String> {
    use plotters::prelude::*;
    let cells: Vec<(usize, usize)> = PUBLISHED_MS.iter().enumerate().flat_map(|(i, row)| (0..row.len()).map(move |k| (i, k))).collect();
    let series = |value: &dyn Fn(usize, usize) -> f64| -> Vec<(f64, f64)> {
        cells.iter().enumerate().map(|(x, &(i, k))| (x as f64, value(i, k))).collect()
    };
    let root = BitMapBackend::new(path, (1200, 620)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption("MoleMOD planner, Table 1: planning time per task / robots", ("sans-serif", 24))
        .margin(12)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..cells.len() as f64 - 0.5, (5e-4f64..2e4).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_labels(cells.len())
        .x_label_formatter(&|x| {
            let index = x.round();
            match cells.get(index as usize) {
                Some((i, k)) if (x - index).abs() < 0.01 && index >= 0.0 => format!("{}/{}", i + 1, k + 1),
                _ => String::new(),
            }
        })
        .x_desc("task / robots")
        .y_desc("planning time [ms] (log)")
        .draw()
        .map_err(|e| e.to_string())?;
    let lines = [
        ("published (their machine)".to_string(), BLACK, series(&|i, k| PUBLISHED_MS[i][k])),
        ("goal: a tenth of published".to_string(), RGBColor(150, 150, 150), series(&|i, k| PUBLISHED_MS[i][k] / 10.0)),
        ("ours, optimal A*".to_string(), BLUE, series(&|i, k| optimal[i][k])),
        (format!("ours, heuristic x {weight} (not admissible)"), RGBColor(230, 120, 0), series(&|i, k| weighted[i][k])),
    ];
    for (label, colour, points) in lines {
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, colour.filled())))
            .map_err(|e| e.to_string())?
            .label(label)
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, colour.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// Plans repeatedly (at least 3 runs, up to 0.3 s or 50 runs) and keeps the median time.
fn measure(task: &Task, robots: usize, heuristic: HeuristicKind, weight: f64, quick: bool) -> Measured {
    measure_with(task, robots, heuristic, weight, DECOMPOSE_ABOVE, quick)
}

fn measure_with(task: &Task, robots: usize, heuristic: HeuristicKind, weight: f64, decompose: u64, quick: bool) -> Measured {
    let request = task
        .request(robots)
        .unwrap_or_else(|e| panic!("{e}"))
        .with_heuristic(heuristic)
        .with_weight(weight)
        .with_decompose_above(decompose);
    let mut times = Vec::new();
    let mut total = Duration::ZERO;
    let mut last = None;
    while times.is_empty() || (!quick && times.len() < 50 && (times.len() < 3 || total < Duration::from_millis(300))) {
        let found = plan(&request).unwrap_or_else(|e| panic!("{} with {robots} robots: {e}", task.name));
        times.push(found.stats.elapsed);
        total += found.stats.elapsed;
        last = Some(found);
    }
    let plan = last.unwrap_or_else(|| unreachable!("at least one run"));
    plan.verify(&request).unwrap_or_else(|e| panic!("{} with {robots} robots: replay failed: {e}", task.name));
    times.sort();
    Measured { plan, median: times[times.len() / 2], runs: times.len() }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn speedup(published: f64, ours: f64) -> String {
    let x = published / ours;
    if x < 10.0 {
        format!("{x:.1}x")
    } else {
        format!("{x:.0}x")
    }
}

fn print_grid(title: &str, grid: &[Vec<f64>]) {
    println!("## {title}");
    println!();
    println!("| task | 1 robot | 2 robots | 3 robots | 4 robots | 5 robots | 6 robots |");
    println!("|---|---|---|---|---|---|---|");
    for (i, line) in grid.iter().enumerate() {
        let cells: Vec<String> = (0..6)
            .map(|k| match line.get(k) {
                Some(t) => format!("{t:.3} \\| {:.2}", PUBLISHED_MS[i][k]),
                None => String::new(),
            })
            .collect();
        println!("| {} | {} |", i + 1, cells.join(" | "));
    }
    println!();
}

/// Cells (task, robots) less than 10x faster than published.
fn misses(grid: &[Vec<f64>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, line) in grid.iter().enumerate() {
        for (k, t) in line.iter().enumerate() {
            if PUBLISHED_MS[i][k] / t < 10.0 {
                out.push(format!("task {} with {} robots ({})", i + 1, k + 1, speedup(PUBLISHED_MS[i][k], *t)));
            }
        }
    }
    out
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let weight = weight_argument();
    let mut optimal: Vec<Vec<f64>> = Vec::new();
    let mut weighted: Vec<Vec<f64>> = Vec::new();
    let mut rows = Vec::new();
    let mut worst_excess: f64 = 0.0;
    for (i, published) in PUBLISHED_MS.iter().enumerate() {
        let task = load(&format!("task{}.yaml", i + 1));
        let (mut line, mut wline) = (Vec::new(), Vec::new());
        for robots in 1..=published.len() {
            let ours = measure(&task, robots, HeuristicKind::Improved, 1.0, quick);
            let theirs_h = measure(&task, robots, HeuristicKind::Published, 1.0, true);
            let fast = measure(&task, robots, HeuristicKind::Improved, weight, quick);
            assert_eq!(ours.plan.cost, theirs_h.plan.cost, "both heuristics are admissible");
            let excess = fast.plan.cost as f64 / ours.plan.cost as f64 - 1.0;
            worst_excess = worst_excess.max(excess);
            let t = ms(ours.median);
            line.push(t);
            wline.push(ms(fast.median));
            rows.push(format!(
                "| {} | {} | {} | {} / {} | {} / {} | {} | {} / {} | {:.1} | {:.3} ({} runs) | {:.3} | {} (+{:.0}%) / {:.3} | {:.2} | {} |",
                i + 1,
                robots,
                ours.plan.cost,
                ours.plan.steps.len(),
                ours.plan.action_count(),
                ours.plan.stats.expanded,
                theirs_h.plan.stats.expanded,
                ours.plan.stats.generated,
                ours.plan.stats.partial_expanded,
                ours.plan.stats.partial_generated,
                ours.plan.stats.peak_memory_bytes as f64 / 1024.0,
                t,
                ours.runs,
                ms(theirs_h.median),
                fast.plan.cost,
                excess * 100.0,
                ms(fast.median),
                published[robots - 1],
                speedup(published[robots - 1], t),
            ));
        }
        optimal.push(line);
        weighted.push(wline);
    }

    print_grid("Table 1: planning time [ms], ours (optimal A*, improved heuristic) | published", &optimal);
    print_grid(&format!("Table 1 with weighted A* (w = {weight}): time [ms], ours | published"), &weighted);
    println!("## Details");
    println!();
    println!(
        "| task | robots | optimal cost | steps / actions | expanded imp / pub | generated | partial steps expanded / queued | memory [KiB] | time imp [ms] | time pub-h [ms] | w={weight}: cost / time [ms] | paper [ms] | speed-up (optimal) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for row in &rows {
        println!("{row}");
    }
    println!();
    for (name, grid) in [("optimal A*", &optimal), ("weighted A*", &weighted)] {
        let missed = misses(grid);
        if missed.is_empty() {
            println!("{name}: every cell at least 10x faster than published");
        } else {
            println!("{name}: cells under 10x faster than published: {}", missed.join(", "));
        }
    }
    println!("weighted A* (w = {weight}): worst cost excess over optimal {:.1}%", worst_excess * 100.0);
    if let Some(path) = option_value("--plot") {
        // cargo runs benches in the package directory; a relative path means the workspace's.
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path);
        plot(&path, &optimal, &weighted, weight).unwrap_or_else(|e| panic!("plot {}: {e}", path.display()));
        println!("plot: {}", path.display());
    }
    let t6: Vec<String> = optimal[5][1..4].iter().map(|t| format!("{t:.3}")).collect();
    println!("task 6 with 2-4 robots, optimal [ms]: {}", t6.join(", "));
    println!();
    println!("## Operator decomposition on the crowded cells (optimal A*, improved heuristic)");
    println!();
    println!("Steps of a state with more than N joint steps are built one action at a time.");
    println!();
    println!("| task | robots | N | time [ms] | expanded | generated | partial steps expanded / queued | memory [KiB] |");
    println!("|---|---|---|---|---|---|---|---|");
    for (task, robots) in [(4, 4), (5, 5), (6, 4), (6, 5), (6, 6)] {
        let t = load(&format!("task{task}.yaml"));
        let mut costs = Vec::new();
        for (label, decompose) in [("never", u64::MAX), (&*format!("{DECOMPOSE_ABOVE} (default)"), DECOMPOSE_ABOVE), ("0 (always)", 0)] {
            let m = measure_with(&t, robots, HeuristicKind::Improved, 1.0, decompose, quick);
            let s = m.plan.stats;
            println!(
                "| {task} | {robots} | {label} | {:.3} | {} | {} | {} / {} | {:.1} |",
                ms(m.median),
                s.expanded,
                s.generated,
                s.partial_expanded,
                s.partial_generated,
                s.peak_memory_bytes as f64 / 1024.0
            );
            costs.push(m.plan.cost);
        }
        assert!(costs.iter().all(|&c| c == costs[0]), "task {task}, {robots} robots: costs {costs:?}");
    }
    println!();
    println!("## 3-D tasks (optimal A*, improved heuristic)");
    println!();
    println!("| task | dims | robots | cost | steps / actions | expanded | memory [KiB] | time [ms] | replay |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for name in ["task3d_1.yaml", "task3d_2.yaml", "task3d_3.yaml"] {
        let task = load(name);
        for robots in 1..=task.robots.len() {
            let m = measure(&task, robots, HeuristicKind::Improved, 1.0, quick);
            println!(
                "| {} | {} | {} | {} | {} / {} | {} | {:.1} | {:.3} | valid |",
                task.name,
                task.start.dims(),
                robots,
                m.plan.cost,
                m.plan.steps.len(),
                m.plan.action_count(),
                m.plan.stats.expanded,
                m.plan.stats.peak_memory_bytes as f64 / 1024.0,
                ms(m.median),
            );
        }
    }
}
