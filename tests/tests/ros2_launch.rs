//! Every launch file under three launchers: Flotilla's own (`flotilla launch`), the real
//! ROS 2 Jazzy `ros2 launch` by path, and `ros2 launch flotilla <file>` by package. Each
//! must start the same node processes and exit 0 after Ctrl-C (SIGINT).
//!
//! The real tools come from the test kit beside the project
//! (`../shared/tools/ros2-jazzy-cli`, installed by `scripts/test.sh`, which exports
//! `FLOTILLA_ROS2_CLI_ENV`) or from a sourced ROS 2 that has `ros2 launch`; without
//! either the test says so and checks Flotilla's launcher alone.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use flotilla_e2e::{bin, bin_dir, repo_root, ros2_command, run_until_interrupted, Domain};

/// `ros2 launch` (the arguments follow), if the real one is reachable.
fn ros2_launch() -> Option<Command> {
    ros2_command("launch").map(|mut cmd| {
        cmd.arg("launch");
        cmd
    })
}

/// A folder of three rendered frames with its camera model, for the replay launch.
fn replay_folder() -> tempfile::TempDir {
    use tracking::{ArenaOutline, CameraModel, MarkerKind, RenderOptions, Renderer, SceneObject};
    let dir = tempfile::tempdir().unwrap();
    let camera = CameraModel::covering(&ArenaOutline::lily_tank(), 256, 256, 1.0, 0.03);
    tracking::replay::write_camera(dir.path(), &camera).unwrap();
    let mut renderer = Renderer::new(ArenaOutline::lily_tank(), camera, RenderOptions::default()).unwrap();
    for k in 0..3 {
        let balls = [SceneObject::new(0, MarkerKind::Ball, 0.01 * k as f64, 0.0)];
        tracking::replay::save_rgb_frame(dir.path(), k, &renderer.render_rgb(&balls, k)).unwrap();
    }
    dir
}

#[test]
fn every_launch_file_runs_the_same_under_flotilla_and_ros2_launch() {
    let domain = Domain::reserve().unwrap();
    let root = repo_root();
    let replay = replay_folder();
    let scratch = tempfile::tempdir().unwrap();
    let share = |rel: &str| root.join(rel).display().to_string();
    // Arguments a file needs to run (required ones, and outputs kept out of the tree).
    let args = |file: &str| -> Vec<String> {
        match file {
            "tank.launch.yaml" => vec![format!("scenario_file:={}", share("config/pingpong_24.yaml"))],
            "replay_tracker.launch.yaml" => vec![format!("replay_dir:={}", replay.path().display()), "loop:=true".into()],
            "calibration.launch.yaml" => vec![format!("output_root:={}", scratch.path().join("calibration").display())],
            "lily_15.launch.yaml" => vec![format!("metrics_csv:={}", scratch.path().join("metrics.csv").display())],
            _ => Vec::new(),
        }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("launch"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".launch.yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "launch files: {files:?}");
    let real = ros2_launch();
    if real.is_none() {
        eprintln!("SKIPPED the real `ros2 launch` half: neither FLOTILLA_ROS2_CLI_ENV (the ../shared/tools kit, installed by scripts/test.sh) nor a sourced ROS 2 with `ros2 launch`");
    }
    let settle = Duration::from_secs(3);
    let mut table = vec!["| launch file | launcher | node processes | exit after SIGINT |".to_owned(), "|---|---|---|---|".to_owned()];
    let mut failures = Vec::new();
    // Each file with the arguments it needs, and the variants that start other processes.
    let mut cases: Vec<(&PathBuf, Vec<String>)> = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        cases.push((file, args(&name)));
        if name == "camera_tracker.launch.yaml" {
            cases.push((file, vec!["in_process:=true".into()]));
        }
    }
    for (file, file_args) in &cases {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let name = if file_args.is_empty() || file_args == &args(&name) { name } else { format!("{name} {}", file_args.join(" ")) };
        let mut runs = Vec::new();
        let mut own = Command::new(bin("flotilla"));
        own.arg("launch").arg(file).args(file_args);
        runs.push(("flotilla launch", run_until_interrupted(own, &domain, &bin_dir(), settle)));
        if let Some(base) = &real {
            let mut by_path = Command::new(base.get_program());
            by_path.args(base.get_args()).arg(file).args(file_args);
            runs.push(("ros2 launch PATH", run_until_interrupted(by_path, &domain, &bin_dir(), settle)));
            let mut by_package = Command::new(base.get_program());
            by_package.args(base.get_args()).arg("flotilla").arg(file.file_name().unwrap()).args(file_args);
            runs.push(("ros2 launch flotilla FILE", run_until_interrupted(by_package, &domain, &bin_dir(), settle)));
        }
        let reference = runs[0].1 .0.clone();
        for (launcher, (processes, code, output)) in &runs {
            let listed: Vec<String> = processes.iter().map(|(exe, n)| if *n == 1 { exe.clone() } else { format!("{exe} x{n}") }).collect();
            table.push(format!("| {name} | {launcher} | {} | {code:?} |", listed.join(", ")));
            if processes.is_empty() || *processes != reference || *code != Some(0) {
                failures.push(format!("{name} under {launcher}: {processes:?} (flotilla launch: {reference:?}), exit {code:?}\n{output}"));
            }
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
