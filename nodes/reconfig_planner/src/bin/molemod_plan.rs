//! Plans a MoleMOD task file and prints the plan step by step.
//!
//! `molemod_plan config/molemod/task3.yaml --robots 2 --heuristic published`
//! `molemod_plan config/molemod/task2.yaml --repertoire minimal` (what the physics executes)

use clap::{Parser, ValueEnum};
use reconfig_planner::{plan, Budget, HeuristicKind, Lattice, Plan, PlanError, Repertoire, RequestError, Task};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum HeuristicArg {
    Improved,
    Published,
    Zero,
}

impl From<HeuristicArg> for HeuristicKind {
    fn from(arg: HeuristicArg) -> Self {
        match arg {
            HeuristicArg::Improved => HeuristicKind::Improved,
            HeuristicArg::Published => HeuristicKind::Published,
            HeuristicArg::Zero => HeuristicKind::Zero,
        }
    }
}

/// Plan a MoleMOD reconfiguration task with A*.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Task file (YAML: start, goal, robots).
    task: PathBuf,
    /// Robots to use (the first N of the file's list); default all.
    #[arg(long)]
    robots: Option<usize>,
    /// A* heuristic.
    #[arg(long, value_enum, default_value = "improved")]
    heuristic: HeuristicArg,
    /// Heuristic weight w in f = g + w h (1 = optimal A*; more = faster, cost <= w x optimal).
    #[arg(long, default_value_t = 1.0)]
    weight: f64,
    /// Most states to expand.
    #[arg(long, default_value_t = Budget::default().max_expansions)]
    max_expansions: u64,
    /// Most planning time, seconds.
    #[arg(long, default_value_t = Budget::default().max_time.as_secs_f64())]
    max_time: f64,
    /// The actions plans may use: `every_action` (the paper's planner), or `minimal` and a
    /// comma-separated list of along_y, move_up, move_above_floor, lift_above_floor,
    /// put_down_above_floor, shift_on_floor, coop_lift, side_by_side (`minimal` alone is
    /// what the MoleMOD physics executes).
    #[arg(long, default_value_t = Repertoire::EVERY_ACTION)]
    repertoire: Repertoire,
    /// Print only the summary, not the pictures.
    #[arg(long)]
    quiet: bool,
}

fn pictures_side_by_side(pictures: &[(String, &Lattice)]) -> String {
    let blocks: Vec<(String, Vec<String>)> =
        pictures.iter().map(|(title, l)| (title.clone(), l.picture().lines().map(str::to_string).collect())).collect();
    let width = |b: &(String, Vec<String>)| b.1.iter().map(String::len).chain([b.0.len()]).max().unwrap_or(0);
    let rows = blocks.iter().map(|b| b.1.len()).max().unwrap_or(0);
    let mut text = String::new();
    for line in 0..=rows {
        for block in &blocks {
            let cell = if line == 0 { block.0.as_str() } else { block.1.get(line - 1).map_or("", String::as_str) };
            text.push_str(&format!("{cell:<w$}    ", w = width(block)));
        }
        text.push('\n');
    }
    text
}

fn print_plan(plan: &Plan, states: &[Lattice]) {
    for (i, (actions, state)) in plan.steps.iter().zip(&states[1..]).enumerate() {
        println!("step {}:", i + 1);
        for action in actions {
            println!("  {action}");
        }
        println!("{}", state.picture());
    }
}

/// Exit code of bad input (the task file, a flag, a start and goal that do not fit), as
/// clap's own for an unknown flag; 1 is left for a task that has no plan.
const EXIT_USAGE: u8 = 2;

/// Why a run failed, and its exit code.
struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn usage(message: impl ToString) -> Self {
        Self { code: EXIT_USAGE, message: message.to_string() }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self { code: 1, message }
    }
}

fn run(args: &Args) -> Result<(), Failure> {
    let task = Task::load(&args.task).map_err(Failure::usage)?;
    let robots = args.robots.unwrap_or(task.robots.len());
    let max_time =
        flotilla_common::duration::Span::POSITIVE.seconds(args.max_time).map_err(|e| Failure::usage(format!("--max-time: {e}")))?;
    if args.max_expansions == 0 {
        return Err(Failure::usage("--max-expansions: must be at least 1, got 0"));
    }
    let request = task
        .request(robots)
        .map_err(Failure::usage)?
        .with_heuristic(args.heuristic.into())
        .with_weight(args.weight)
        .with_repertoire(args.repertoire)
        .with_budget(Budget::default().with_max_expansions(args.max_expansions).with_max_time(max_time));
    // Before anything is printed, and naming the option or file at fault.
    request.validate().map_err(|e| match e {
        RequestError::Weight { .. } => Failure::usage(format!("--weight: {e}")),
        RequestError::NoRobots if args.robots == Some(0) => Failure::usage(format!("--robots 0: {e}")),
        other => Failure::usage(format!("{}: {other}", args.task.display())),
    })?;
    println!("{}: {}", task.name, task.description);
    println!("{}", pictures_side_by_side(&[("start".into(), &request.start), ("goal".into(), &request.goal)]));
    let plan = plan(&request).map_err(|e| match e {
        PlanError::Invalid(_) => Failure::usage(e),
        other => Failure::from(other.to_string()),
    })?;
    let replay = plan.verify(&request).map_err(|e| format!("plan failed its replay check: {e}"))?;
    if !args.quiet {
        print_plan(&plan, &replay.states);
    }
    let stats = &plan.stats;
    println!(
        "robots {robots}, heuristic {:?} x {}: cost {} (start estimate {}), {} steps, {} actions; expanded {}, \
         generated {}, stored {}, time {:.3} ms, memory ~{:.1} KiB (replay check passed)",
        request.heuristic,
        request.weight,
        plan.cost,
        stats.start_heuristic,
        plan.steps.len(),
        plan.action_count(),
        stats.expanded,
        stats.generated,
        stats.stored_states,
        stats.elapsed.as_secs_f64() * 1e3,
        stats.peak_memory_bytes as f64 / 1024.0
    );
    Ok(())
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { code, message }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}
