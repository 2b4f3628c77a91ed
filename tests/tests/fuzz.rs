//! Seeded fuzz harness over every input parser and request type (issue 21): parameter
//! files, launch files, rulesets, task files, trajectory CSV, flow-field files, PNG frames,
//! stamps files, and the planner's service/action request types plus the duration checks.
//!
//! Each case is a seeded mutation of a valid input (byte flips, inserted YAML/CSV tokens
//! such as `1e300`, `.nan`, aliases and brackets, deleted, duplicated or truncated ranges)
//! or a random request. Every case runs on its own thread under a time bound
//! ([`CASE_TIMEOUT`]) and the process under an address-space limit ([`MEMORY_LIMIT`]): a
//! panic, a hang or an allocation abort fails the test and prints the case's seed.
//!
//! `FLOTILLA_FUZZ_CASES` sets the cases per parser (default 500, inside `make test`);
//! `FLOTILLA_FUZZ_SEED` the first seed. Longer runs: docs/hardening.md.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use flotilla_e2e::repo_root;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Longest a single case may take.
const CASE_TIMEOUT: Duration = Duration::from_secs(10);
/// Address space of the whole test process, bytes: an input that makes a parser allocate
/// without bound aborts instead of swapping the machine.
const MEMORY_LIMIT: u64 = 6 << 30;

/// Tokens that break parsers: huge, tiny and non-finite numbers, YAML structure, aliases.
const DICTIONARY: &[&str] = &[
    "1e300",
    "1.0e+300",
    "-1.0e+300",
    "1.0e-300",
    ".nan",
    ".inf",
    "-.inf",
    "nan",
    "inf",
    "0",
    "-1",
    "0.0",
    "4294967295",
    "18446744073709551616",
    "1000000",
    "*a",
    "&a ",
    "[",
    "]",
    "{",
    "}",
    ": ",
    ",",
    "\n",
    "  ",
    "- ",
    "!!binary ",
    "~",
    "\"",
    "'",
    "#",
    "\t",
    "\u{ff}",
    "\0",
    "<<: *a",
    "$(var x)",
    "$(env HOME)",
    "::",
    "ros__parameters:",
    "nx=1000000",
    "%",
];

fn cases() -> u64 {
    std::env::var("FLOTILLA_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(500)
}

fn first_seed() -> u64 {
    std::env::var("FLOTILLA_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn limit_memory() {
    let limit = libc::rlimit { rlim_cur: MEMORY_LIMIT, rlim_max: MEMORY_LIMIT };
    // SAFETY: setrlimit with a valid struct; lowering a limit of this process only.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
}

/// A seeded mutation of `seed`.
fn mutate(rng: &mut ChaCha8Rng, seed: &[u8]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..rng.gen_range(1..=4) {
        let len = out.len().max(1);
        let at = rng.gen_range(0..len).min(out.len());
        match rng.gen_range(0..6) {
            0 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] = rng.gen();
            }
            1 | 5 => {
                let token = DICTIONARY[rng.gen_range(0..DICTIONARY.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
            2 => {
                let end = (at + rng.gen_range(1..=16)).min(out.len());
                out.drain(at..end);
            }
            3 => {
                let end = (at + rng.gen_range(1..=64)).min(out.len());
                let piece = out[at..end].to_vec();
                let to = rng.gen_range(0..=out.len());
                out.splice(to..to, piece);
            }
            _ => out.truncate(at),
        }
    }
    out
}

/// Runs `cases()` seeded cases of `run` (given the case's rng), each on its own thread
/// under [`CASE_TIMEOUT`]; fails on a panic or a hang, naming the seed.
fn fuzz(name: &str, run: impl Fn(&mut ChaCha8Rng) + Send + Sync + Clone + 'static) {
    limit_memory();
    let (first, n) = (first_seed(), cases());
    for seed in first..first + n {
        let (done, finished) = mpsc::channel();
        let run = run.clone();
        let worker = std::thread::Builder::new()
            .name(format!("{name}-{seed}"))
            .spawn(move || {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                run(&mut rng);
                let _ = done.send(());
            })
            .expect("spawning a case thread");
        match finished.recv_timeout(CASE_TIMEOUT) {
            Ok(()) => {
                let _ = worker.join();
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let _ = worker.join();
                panic!("{name}: case seed {seed} panicked (FLOTILLA_FUZZ_SEED={seed} FLOTILLA_FUZZ_CASES=1 reproduces it)");
            }
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("{name}: case seed {seed} took more than {CASE_TIMEOUT:?}"),
        }
    }
    eprintln!("{name}: {n} cases from seed {first}, no panic, no hang");
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(repo_root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn pick<'a>(rng: &mut ChaCha8Rng, seeds: &'a [Vec<u8>]) -> &'a [u8] {
    &seeds[rng.gen_range(0..seeds.len())]
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn fuzz_parameter_files() {
    use flotilla_common::params::{parse_str_for_node, NodeIdentity};
    let seeds: Vec<(Vec<u8>, &str)> = vec![
        (read("config/pingpong_24.yaml"), "tank_physics"),
        (read("config/lily_15.yaml"), "tank_physics"),
        (read("config/tracker.yaml"), "tracker"),
        (read("config/overhead_camera.yaml"), "overhead_camera"),
        (read("config/reconfig_planner.yaml"), "reconfig_planner"),
        (read("config/calibration.yaml"), "calibration"),
    ];
    fuzz("parameter files", move |rng| {
        let (seed, node) = &seeds[rng.gen_range(0..seeds.len())];
        let text = text(&mutate(rng, seed));
        let Ok(tree) = parse_str_for_node(&text, Path::new("fuzz.yaml"), &NodeIdentity::new(*node, "/")) else { return };
        match *node {
            "tank_physics" => {
                let mut world = tree.clone();
                for key in ["run", "publish", "record", "robots", "use_sim_time"] {
                    world.remove(key);
                }
                if let Ok(config) = tank_physics::WorldConfig::from_params(&serde_yaml::Value::Mapping(world)) {
                    // Building the world reads a flow file and places modules.
                    let _ = tank_physics::World::new(config, 0);
                }
            }
            "tracker" => {
                let _ = tracking::config::TrackerNodeConfig::from_tree(&tree);
            }
            "overhead_camera" => {
                let _ = tracking::config::CameraNodeConfig::from_tree(&tree);
            }
            _ => {}
        }
    });
}

#[test]
fn fuzz_launch_files() {
    let seeds: Vec<Vec<u8>> = ["lily_15", "tank", "camera_tracker", "replay_tracker", "planner", "calibration", "demo"]
        .iter()
        .map(|f| read(&format!("launch/{f}.launch.yaml")))
        .collect();
    fuzz("launch files", move |rng| {
        let seed = pick(rng, &seeds);
        let text = text(&mutate(rng, seed));
        let _ = flotilla_launch::parse::parse_launch_text(&text, std::sync::Arc::from(Path::new("fuzz.launch.yaml")));
    });
}

#[test]
fn fuzz_rulesets() {
    let seeds: Vec<Vec<u8>> =
        ["chain4", "chain4_sequential", "square4", "t4"].iter().map(|f| read(&format!("config/rulesets/{f}.yaml"))).collect();
    fuzz("rulesets", move |rng| {
        let seed = pick(rng, &seeds);
        let text = text(&mutate(rng, seed));
        let _ = flotilla_firmware::lily::Ruleset::from_yaml(&text, "fuzz.yaml");
    });
}

#[test]
fn fuzz_task_files() {
    let seeds: Vec<Vec<u8>> = std::fs::read_dir(repo_root().join("config/molemod"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    fuzz("task files", move |rng| {
        let seed = pick(rng, &seeds);
        let text = text(&mutate(rng, seed));
        let Ok(task) = reconfig_planner::Task::from_yaml(&text, "fuzz.yaml") else { return };
        let robots = rng.gen_range(0..=task.robots.len() + 1);
        if let Ok(request) = task.request(robots) {
            // A small budget: the search itself is bounded by it, not by the case timeout.
            let budget = reconfig_planner::Budget::default().with_max_expansions(2_000).with_max_time(Duration::from_millis(500));
            let _ = reconfig_planner::plan(&request.with_budget(budget));
        }
    });
}

fn trajectory_seed() -> Vec<u8> {
    let mut text = String::from("frame,time,id,x,y,heading\n");
    for k in 0..40 {
        for id in 0..3 {
            text.push_str(&format!(
                "{k},{},{id},{},{},{}\n",
                k as f64 * 0.025,
                0.01 * k as f64 - 0.1 * id as f64,
                0.002 * k as f64,
                0.1 * id as f64
            ));
        }
    }
    text.into_bytes()
}

#[test]
fn fuzz_trajectory_csv() {
    let seed = trajectory_seed();
    fuzz("trajectory CSV", move |rng| {
        let bytes = mutate(rng, &seed);
        if let Ok(recording) = flotilla_common::trajectory::TrajectoryRecording::from_reader(bytes.as_slice()) {
            // What the calibration does with a recording: its flow-field estimate.
            let _ = calibration::flow_estimation::estimate_flow_field(&[recording], &Default::default());
        }
    });
}

#[test]
fn fuzz_flow_field_files() {
    use flotilla_common::flow_field::{FlowCell, FlowGrid, GridExtent};
    let mut grid = FlowGrid::new(4, 3, GridExtent::centred_square(0.6)).unwrap();
    *grid.cell_mut(1, 2).unwrap() =
        FlowCell { mean: nalgebra::Vector2::new(0.01, -0.02), std: nalgebra::Vector2::new(0.003, 0.004), count: 9 };
    let seed = grid.to_csv_string().into_bytes();
    fuzz("flow-field files", move |rng| {
        let _ = FlowGrid::from_csv_str(&text(&mutate(rng, &seed)));
    });
}

/// A folder of two PNG frames with camera.yaml and stamps.csv.
fn frames_folder() -> (tempfile::TempDir, PathBuf) {
    use tracking::accuracy::RenderedFrame;
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("frames");
    let mut saver = tracking::replay::FrameSaver::create(frames.clone(), &tracking::camera::CameraModel::lily_tank_default()).unwrap();
    let image = image::GrayImage::from_fn(32, 24, |x, y| image::Luma([((x * 7 + y * 3) % 256) as u8]));
    for k in 0..2 {
        saver.save(k, 0.1 * k as f64, &RenderedFrame::Gray(image.clone())).unwrap();
    }
    (dir, frames)
}

#[test]
fn fuzz_png_frames() {
    let (_dir, frames) = frames_folder();
    let paths = tracking::replay::list_frames(&frames).unwrap();
    let seed = std::fs::read(&paths[0]).unwrap();
    fuzz("PNG frames", move |rng| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("frame.png");
        std::fs::write(&path, mutate(rng, &seed)).unwrap();
        let _ = tracking::replay::load_frame(&path);
    });
}

#[test]
fn fuzz_stamps_files() {
    let (dir, frames) = frames_folder();
    let paths = tracking::replay::list_frames(&frames).unwrap();
    let seed = std::fs::read(frames.join(tracking::replay::STAMPS_FILE)).unwrap();
    let root = dir.path().to_owned();
    fuzz("stamps files", move |rng| {
        // Each case its own copy of the folder's index (cases may run after a timeout).
        let case = tempfile::tempdir_in(&root).unwrap();
        std::fs::write(case.path().join(tracking::replay::STAMPS_FILE), mutate(rng, &seed)).unwrap();
        let _ = tracking::replay::read_stamps(case.path(), &paths);
    });
    drop(dir);
}

/// Random numbers as a request carries them: ordinary, huge, tiny, non-finite.
fn hostile_f64(rng: &mut ChaCha8Rng) -> f64 {
    match rng.gen_range(0..6) {
        0 => f64::NAN,
        1 => [f64::INFINITY, f64::NEG_INFINITY][rng.gen_range(0..2)],
        2 => 10f64.powi(rng.gen_range(-320..=308)) * if rng.gen() { 1.0 } else { -1.0 },
        3 => f64::from_bits(rng.gen()),
        _ => rng.gen_range(-10.0..10.0),
    }
}

#[test]
fn fuzz_request_types() {
    use flotilla_common::duration::{saturating, Span};
    use reconfig_planner::{msgs_to_steps, replay, ActionCosts, ActionMsg, LatticeMsg, PlanRequest};
    fuzz("service and action requests", |rng| {
        // Every time a request or parameter carries.
        let x = hostile_f64(rng);
        let _ = (Span::POSITIVE.seconds(x), Span::new(1e-3, 3600.0).period_of_rate(x), Span::NON_NEGATIVE.check(x, "s"), saturating(x));
        // /reconfig_planner/plan: two lattices, a weight and a budget.
        let dims = [rng.gen_range(0..6u32), rng.gen_range(0..6u32), rng.gen_range(0..4u32)];
        let cells = |rng: &mut ChaCha8Rng| -> Vec<u8> {
            let n = ((dims[0] * dims[1] * dims[2]) as usize + rng.gen_range(0..3)).saturating_sub(1);
            (0..n).map(|_| if rng.gen_bool(0.9) { rng.gen_range(0..3) } else { rng.gen() }).collect()
        };
        let (start, goal) = (LatticeMsg { dims, cells: cells(rng) }.to_lattice(), LatticeMsg { dims, cells: cells(rng) }.to_lattice());
        if let (Ok(start), Ok(goal)) = (start, goal) {
            let budget = reconfig_planner::Budget::default().with_max_expansions(2_000).with_max_time(Duration::from_millis(200));
            let request = PlanRequest::new(start.clone(), goal).with_weight(hostile_f64(rng)).with_budget(budget);
            if request.validate().is_ok() {
                let _ = reconfig_planner::plan(&request);
            }
            // /reconfig_planner/execute: a plan of random actions replayed from the start.
            let actions: Vec<ActionMsg> = (0..rng.gen_range(0..6))
                .map(|_| ActionMsg {
                    step: rng.gen_range(0..4),
                    robot: rng.gen_range(0..3),
                    kind: rng.gen_range(0..6),
                    from: [rng.gen_range(0..6), rng.gen_range(0..6), rng.gen_range(0..4)],
                    to: [rng.gen_range(0..6), rng.gen_range(0..6), rng.gen_range(0..4)],
                    partner: rng.gen_range(0..4),
                })
                .collect();
            if let Ok(steps) = msgs_to_steps(&actions) {
                let _ = replay(&start, &steps, &ActionCosts::default());
            }
        }
        // robot_controller `robots`/`kind` and a spawn request's module kind.
        let word: String = (0..rng.gen_range(0..12)).map(|_| rng.gen_range(b' '..=b'~') as char).collect();
        let _ = robot_controller::firmware::Selection::parse(std::slice::from_ref(&word), &word);
        let _ = word.parse::<flotilla_common::catalogue::ModuleKind>();
    });
}
