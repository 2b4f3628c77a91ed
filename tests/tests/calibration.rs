//! The calibration node through ROS: a small calibration goal (feedback every iteration,
//! result files, a parameter file the physics node runs from), bad goals refused with the field
//! named while the node keeps serving, one goal at a time, cancel with the checkpoint
//! kept, and the flow-field service. The recording is made with `flotilla calibrate
//! record`, so the CLI dispatch is exercised too.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use flotilla_common::flow_field::FlowGrid;
use flotilla_common::params::{get_dotted, load_file, NodeIdentity};
use flotilla_e2e::{answered, bin, Launch, RosProbe};
use futures::{Stream, StreamExt};
use r2r::flotilla_msgs::action::Calibrate;
use r2r::flotilla_msgs::srv::EstimateFlowField;
use r2r::GoalStatus;

/// Four balls in the default tank.
const SCENARIO: &str = "tank_physics:\n  ros__parameters:\n    modules:\n      ball: {kind: ping_pong_ball, count: 4}\n";

/// Writes the scenario, records 6 s of it and the node's parameter file; returns the
/// recording's path.
fn set_up(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("scenario.yaml"), SCENARIO).unwrap();
    let recording = dir.join("real.csv");
    let out = Command::new(bin("flotilla"))
        .args(["calibrate", "record", "--world"])
        .arg(dir.join("scenario.yaml"))
        .args(["--seconds", "6", "--warmup", "0.5", "--seed", "3", "--parameters", "1.2,1.5,50,0.3,0.3", "--out"])
        .arg(&recording)
        .output()
        .unwrap();
    assert!(out.status.success(), "flotilla calibrate record: {}", String::from_utf8_lossy(&out.stderr));
    // Half-second windows start every 0.5 s; warm-up 0.5 s: each simulation is tiny.
    std::fs::write(dir.join("job.yaml"), "calibration:\n  msd: {window_frames: 80, start_stride: 20}\n").unwrap();
    let params = format!(
        "calibration:\n  ros__parameters:\n    warmup: 0.5\n    balls: 4\n    threads: 2\n    output_root: {}\n    job_settings_file: {}\n",
        dir.join("runs").display(),
        dir.join("job.yaml").display()
    );
    std::fs::write(dir.join("calibration.yaml"), params).unwrap();
    recording
}

fn start(dir: &Path, probe: &RosProbe) -> Launch {
    let params = format!("params_file:={}", dir.join("calibration.yaml").display());
    let root = format!("output_root:={}", dir.join("runs").display());
    Launch::start("launch/calibration.launch.yaml", &[&params, &root], &probe.domain).unwrap()
}

fn goal(recording: &Path, dir: &Path, out: &str) -> Calibrate::Goal {
    Calibrate::Goal {
        recording: recording.display().to_string(),
        scenario_file: dir.join("scenario.yaml").display().to_string(),
        output_dir: dir.join(out).display().to_string(),
        iterations: 3,
        swarm_size: 4,
        seed: 7,
        window: 2.0,
        ..Default::default()
    }
}

type Outcome = (GoalStatus, Calibrate::Result, Vec<Calibrate::Feedback>);

/// Sends a goal and waits for its result and the feedback that came with it.
async fn send(client: &r2r::ActionClient<Calibrate::Action>, goal: Calibrate::Goal) -> Outcome {
    let (_handle, result, feedback) = answered(client.send_goal_request(goal).unwrap(), "goal not answered").await;
    let (status, result) = tokio::time::timeout(Duration::from_secs(40), result).await.expect("no result in 40 s").unwrap();
    (status, result, drain(feedback).await)
}

/// Feedback can trail the result (topic vs service): collect until it stops.
async fn drain(mut feedback: impl Stream<Item = Calibrate::Feedback> + Unpin) -> Vec<Calibrate::Feedback> {
    let mut got = Vec::new();
    while let Ok(Some(f)) = tokio::time::timeout(Duration::from_millis(500), feedback.next()).await {
        got.push(f);
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calibrate_action_runs_goals_refuses_bad_ones_and_cancels() {
    let dir = tempfile::tempdir().unwrap();
    let recording = set_up(dir.path());
    let mut probe = RosProbe::new("probe_calibration").unwrap();
    let client = probe.with_node(|n| n.create_action_client::<Calibrate::Action>("/calibration/calibrate")).unwrap();
    let ready = probe.with_node(|_| r2r::Node::is_available(&client)).unwrap();
    probe.spin();
    let launch = start(dir.path(), &probe);
    tokio::time::timeout(Duration::from_secs(30), ready).await.expect("the action did not appear").unwrap();

    // A small goal: one feedback message per iteration, files, a loadable parameter file.
    let (status, result, feedback) = send(&client, goal(&recording, dir.path(), "good")).await;
    assert_eq!(status, GoalStatus::Succeeded, "{}", result.message);
    assert!(result.success);
    assert_eq!(feedback.iter().map(|f| f.iteration).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert!(feedback.iter().all(|f| f.iterations == 3 && f.best_parameters.len() == 5));
    assert!(feedback.windows(2).all(|w| w[1].best_fitness <= w[0].best_fitness), "best fitness rose");
    // The result's fitness is the chosen parameters' on fresh seeds (final re-evaluation,
    // on by default): not the luckiest draw the feedback saw, so it may lie above it.
    assert!(result.fitness.is_finite() && result.fitness > 0.0, "fitness {}", result.fitness);
    assert_eq!(result.parameters.len(), 5);
    // Fitness history, MSD table and plot, fitness, occupancy, velocity, the three speed
    // plots, the validation report, summary, checkpoint.
    assert_eq!(result.files.len(), 12);
    for file in result.files.iter().chain([&result.parameter_file]) {
        assert!(Path::new(file).is_file(), "{file} missing");
    }
    // The validation report's verdict line is in the result message and opens report.md.
    assert!(["GOOD: ", "MARGINAL: ", "POOR: "].iter().any(|v| result.message.contains(v)), "{}", result.message);
    let report = result.files.iter().find(|f| f.ends_with("report.md")).unwrap();
    assert!(std::fs::read_to_string(report).unwrap().contains("# Validation of the calibrated model"));
    let tree = load_file(Path::new(&result.parameter_file), &NodeIdentity::new("tank_physics", "/")).unwrap();
    for (k, name) in ["hydro.kv", "hydro.kf", "hydro.sigma_stoch", "hydro.d_linear", "hydro.d_angular"].iter().enumerate() {
        assert_eq!(get_dotted(&tree, name).and_then(|v| v.as_f64()), Some(result.parameters[k]), "{name}");
    }
    assert!(get_dotted(&tree, "modules.ball.count").is_some(), "the scenario is not the base of the parameter file");
    // The physics node itself starts from it and runs.
    let mut physics = Command::new(bin("tank_physics"));
    physics.args(["--ros-args", "--params-file", &result.parameter_file, "-p", "run.max_sim_time:=0.5", "-p", "run.real_time_factor:=0.0"]);
    let (status, output) = Launch::spawn(physics, &probe.domain).unwrap().wait(Duration::from_secs(20)).unwrap();
    assert!(status.success(), "tank_physics on the calibrated file: {status:?}\n{output}");

    // A goal's own job settings file replaces the node's: two iterations of three particles.
    let own = dir.path().join("own_job.yaml");
    std::fs::write(&own, "calibration:\n  msd: {window_frames: 80, start_stride: 20}\n  pso: {iterations: 2, swarm_size: 3}\n").unwrap();
    let with_file = Calibrate::Goal {
        iterations: 0,
        swarm_size: 0,
        job_settings_file: own.display().to_string(),
        ..goal(&recording, dir.path(), "own_settings")
    };
    let (status, result, feedback) = send(&client, with_file).await;
    assert_eq!(status, GoalStatus::Succeeded, "{}", result.message);
    assert_eq!(feedback.iter().map(|f| (f.iteration, f.iterations)).collect::<Vec<_>>(), vec![(1, 2), (2, 2)]);

    // Bad goals: aborted at once with the field named; the node keeps serving.
    let bad = [
        (
            Calibrate::Goal { recording: dir.path().join("missing.csv").display().to_string(), ..goal(&recording, dir.path(), "bad") },
            "`recording`",
        ),
        (
            Calibrate::Goal { lower_bounds: vec![1.0; 5], upper_bounds: vec![1.0; 5], ..goal(&recording, dir.path(), "bad") },
            "`lower_bounds/upper_bounds`",
        ),
        (Calibrate::Goal { window: 20.0, ..goal(&recording, dir.path(), "bad") }, "`window`"),
        (Calibrate::Goal { flow_field: "estimated".into(), ..goal(&recording, dir.path(), "bad") }, "`flow_field`"),
        (
            Calibrate::Goal {
                job_settings_file: dir.path().join("gone.yaml").display().to_string(),
                ..goal(&recording, dir.path(), "bad")
            },
            "`job_settings_file`",
        ),
    ];
    for (g, want) in bad {
        let (status, result, feedback) = send(&client, g).await;
        assert_eq!(status, GoalStatus::Aborted, "{}", result.message);
        assert!(!result.success && result.message.contains(want), "`{}` does not name {want}", result.message);
        assert!(feedback.is_empty());
    }

    // One goal at a time; a cancel stops the long one at an iteration boundary and keeps
    // its checkpoint.
    // Tiny iterations take milliseconds: this one would run for minutes.
    let long = Calibrate::Goal { iterations: 40_000, ..goal(&recording, dir.path(), "long") };
    let (handle, long_result, mut long_feedback) = answered(client.send_goal_request(long).unwrap(), "client.send_goal_request").await;
    let first = tokio::time::timeout(Duration::from_secs(20), long_feedback.next()).await.expect("no feedback from the long goal");
    assert_eq!(first.map(|f| f.iteration), Some(1));
    let (status, result, _) = send(&client, goal(&recording, dir.path(), "second")).await;
    assert_eq!(status, GoalStatus::Aborted);
    assert!(result.message.contains("busy"), "{}", result.message);
    tokio::time::timeout(Duration::from_secs(10), handle.cancel().unwrap()).await.expect("cancel not answered").unwrap();
    let (status, result) =
        tokio::time::timeout(Duration::from_secs(30), long_result).await.expect("the cancelled goal did not end").unwrap();
    assert_eq!(status, GoalStatus::Canceled, "{}", result.message);
    assert!(!result.success && result.message.contains("checkpoint"), "{}", result.message);
    assert!(dir.path().join("long/checkpoint.json").is_file());
    let history = result.files.iter().find(|f| f.ends_with("fitness_history.csv")).unwrap();
    let done = std::fs::read_to_string(history).unwrap().lines().count() as u32 - 1;
    assert!((1..40_000).contains(&done), "{done} iterations before the cancel");

    // Still serving: `resume` continues the checkpoint where the cancel left it.
    let resumed = Calibrate::Goal { iterations: done + 2, resume: true, ..goal(&recording, dir.path(), "long") };
    let (status, result, feedback) = send(&client, resumed).await;
    assert_eq!(status, GoalStatus::Succeeded, "{}", result.message);
    assert_eq!(feedback.iter().map(|f| f.iteration).collect::<Vec<_>>(), vec![done + 1, done + 2]);

    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flow_field_service_writes_a_field_the_physics_loads() {
    let dir = tempfile::tempdir().unwrap();
    let recording = set_up(dir.path());
    let mut probe = RosProbe::new("probe_flow_field").unwrap();
    let client = probe
        .with_node(|n| n.create_client::<EstimateFlowField::Service>("/calibration/estimate_flow_field", r2r::QosProfile::default()))
        .unwrap();
    let ready = probe.with_node(|_| r2r::Node::is_available(&client)).unwrap();
    probe.spin();
    let launch = start(dir.path(), &probe);
    tokio::time::timeout(Duration::from_secs(30), ready).await.expect("the service did not appear").unwrap();

    let out = dir.path().join("flow.csv");
    let request = EstimateFlowField::Request {
        recordings: vec![recording.display().to_string()],
        output_file: out.display().to_string(),
        cells: 12,
        ..Default::default()
    };
    let response = tokio::time::timeout(Duration::from_secs(20), client.request(&request).unwrap()).await.unwrap().unwrap();
    assert!(response.success, "{}", response.message);
    let grid = FlowGrid::read_csv(&out).unwrap();
    assert_eq!((grid.nx(), grid.ny(), response.field.nx, response.field.ny), (12, 12, 12, 12));
    let field = &response.field;
    assert_eq!(field.mean_x, grid.cells().iter().map(|c| c.mean.x).collect::<Vec<_>>());
    assert!(field.samples.iter().any(|&n| n > 0), "no cell has a sample");
    // The physics node runs on the estimated field.
    let world = format!(
        "tank_physics:\n  ros__parameters:\n    flow_field: {{file: {}}}\n    run: {{max_sim_time: 0.5, real_time_factor: 0.0}}\n",
        out.display()
    );
    std::fs::write(dir.path().join("measured_flow.yaml"), world).unwrap();
    let mut physics = Command::new(bin("tank_physics"));
    physics.args(["--ros-args", "--params-file"]).arg(dir.path().join("measured_flow.yaml"));
    let (status, output) = Launch::spawn(physics, &probe.domain).unwrap().wait(Duration::from_secs(20)).unwrap();
    assert!(status.success(), "tank_physics on the estimated field: {status:?}\n{output}");

    // Bad requests: clear reasons, and the service keeps answering.
    for (bad, want) in [
        (EstimateFlowField::Request { recordings: vec![], ..request.clone() }, "`recordings`"),
        (EstimateFlowField::Request { recordings: vec![dir.path().join("gone.csv").display().to_string()], ..request.clone() }, "gone.csv"),
        (EstimateFlowField::Request { cells: 100_000, ..request.clone() }, "`cells`"),
        (EstimateFlowField::Request { inversion: "both".into(), ..request.clone() }, "`inversion`"),
    ] {
        let response = tokio::time::timeout(Duration::from_secs(20), client.request(&bad).unwrap()).await.unwrap().unwrap();
        assert!(!response.success && response.message.contains(want), "`{}` does not name {want}", response.message);
    }
    let response = tokio::time::timeout(Duration::from_secs(20), client.request(&request).unwrap()).await.unwrap().unwrap();
    assert!(response.success, "{}", response.message);

    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
}
