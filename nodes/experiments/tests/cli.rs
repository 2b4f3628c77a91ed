//! The `flotilla-experiment` binary: a tiny run into a directory, the listing, and usage
//! errors (exit code 2, the option named).

use std::process::Command;

fn experiment(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_flotilla-experiment")).args(args).output().unwrap()
}

#[test]
fn a_tiny_yield_run_writes_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("yield");
    let args = ["lily", "yield", "--seeds", "1", "--duration=30", "--rulesets", "square4", "--pumps", "40", "--out", out.to_str().unwrap()];
    let run = experiment(&args);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    for file in ["summary.json", "yield_curves.csv", "runs.csv", "yield_square4.png", "yield.png", "report.md"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["metrics"]["square4 @ 40 %"]["runs"], 1);
    assert_eq!(summary["options"]["duration"], "30");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("lily yield: 1 runs") && stdout.contains("summary.json"), "{stdout}");
    // stderr is a pipe here, not a terminal: the progress goes out as lines.
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.lines().any(|l| l.starts_with("progress: 1/1 ")), "{stderr}");
}

#[test]
fn bad_options_are_usage_errors_naming_the_option() {
    for (args, named) in [
        (&["lily", "yield", "--seeds", "many", "--out", "x"][..], "--seeds"),
        (&["lily", "msd", "--pumps", "40,fast", "--out", "x"][..], "--pumps"),
        (&["lily", "msd", "--speed", "3", "--out", "x"][..], "--speed"),
        (&["lily", "yield", "--seeds", "1"][..], "--out"),
        (&["lily", "yield", "--rulesets", "no_such_ruleset", "--out", "x"][..], "--rulesets"),
        (&["kilobot", "yield", "--out", "x"][..], "kilobot yield"),
    ] {
        let run = experiment(args);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named) && stderr.contains("usage:"), "{args:?}: {stderr}");
    }
}

#[test]
fn list_shows_systems_experiments_and_options() {
    let run = experiment(&["list"]);
    assert_eq!(run.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.starts_with("lily\n"), "{stdout}");
    assert!(stdout.contains("  yield - ") && stdout.contains("  msd - ") && stdout.contains("--pumps (default `40,68.6`)"), "{stdout}");
    assert!(stdout.contains("\nmolemod\n  table1 - "), "{stdout}");
}

#[test]
fn mhp_robot_files_with_errors_exit_2_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    for (text, says) in [
        ("0 0 0\n1 0 0\n3 0 0\n", ":3: module at [3, 0, 0] is not connected"),
        ("0 0 0\n1 0 0\n1 0 0\n", ":3: module at [1, 0, 0] overlaps the module of line 2"),
        ("# nothing here\n", ": the robot has no modules"),
        ("0 0 0\nthruster_failure 1.5\n", ":2: thruster_failure = 1.5: a probability must be in [0, 1]"),
    ] {
        let path = dir.path().join("robot.txt");
        std::fs::write(&path, text).unwrap();
        let robot = format!("file:{}", path.display());
        let out = dir.path().join("out");
        let run = experiment(&["mhp", "trials", "--robot", &robot, "--trials", "1", "--out", out.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{text:?}: {stderr}");
        assert!(stderr.contains(&format!("{}{says}", path.display())), "{text:?}: {stderr}");
        assert!(stderr.contains("--robot"), "{stderr}");
    }
    let run = experiment(&["mhp", "trials", "--robot", "cube:2", "--sensor-failure", "2", "--out", "x"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--sensor-failure: 2 is not a probability"));
}

/// Ctrl-C ends a long Kilobot run at its next loop check, with every result written.
#[test]
fn ctrl_c_ends_a_long_self_assembly_with_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("k");
    let shape = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/shapes/k_shape.png");
    let args = ["kilobot", "self-assembly", "--shape", shape, "--scale", "0.6045", "--robots", "1024", "--max-steps", "100000000"];
    let run = interrupted_after_3_s(&args, &out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // 128 + SIGINT, as a shell reports it, after the results are written.
    assert_eq!(run.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted by signal 2: the run stopped early; what it ran is written to"), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["metrics"]["ending"], "interrupted");
    assert!(summary["metrics"]["steps"].as_u64().is_some_and(|s| s > 0 && s % 1000 == 0), "{summary}");
    assert!(out.join("end_state.csv").is_file() && out.join("end_state.png").is_file());
}

/// Ctrl-C stops a MoleMOD execution within a physics step, with what it ran written.
#[test]
fn ctrl_c_stops_a_molemod_execution_with_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    let task = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/molemod/task1.yaml");
    // Task 1's lift alone takes a minute of wall.
    let run = interrupted_after_3_s(&["molemod", "execute", "--task", task], &out);
    let stderr = String::from_utf8_lossy(&run.stderr);
    // 128 + SIGINT, as a shell reports it, after the results are written.
    assert_eq!(run.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted by signal 2: the run stopped early; what it ran is written to"), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let m = &summary["metrics"];
    assert_eq!((m["steps_succeeded"].as_u64(), m["goal_reached"].as_bool()), (Some(0), Some(false)), "{summary}");
    assert!(m["failure"]["report"].as_str().is_some_and(|r| r.ends_with("cancelled")), "{summary}");
    for file in ["joints.csv", "events.csv", "joints.png", "lattice_before.png", "lattice_after.png"] {
        assert!(out.join(file).is_file(), "{file}");
    }
}

/// Runs the experiment CLI with `args` and `--out out`, and Ctrl-C (SIGINT) 3 s in.
fn interrupted_after_3_s(args: &[&str], out: &std::path::Path) -> std::process::Output {
    let child = Command::new(env!("CARGO_BIN_EXE_flotilla-experiment"))
        .args(args)
        .args(["--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    child.wait_with_output().unwrap()
}
