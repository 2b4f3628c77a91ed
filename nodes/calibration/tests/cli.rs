//! The offline CLI end to end: bad input gives a clear error and exit code 2; a short
//! record -> flow-field round trip works.

use std::path::Path;
use std::process::{Command, Output};

fn calibrate(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flotilla-calibrate")).args(args).current_dir(dir).output().expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn unknown_column_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("r.csv"), "frame,time,id,x,y,heading,speed\n0,0,0,0,0,0,1\n").unwrap();
    let out = calibrate(&["run", "--recording", "r.csv", "--out", "o"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("r.csv") && e.contains("unknown column `speed`"), "{e}");
}

#[test]
fn non_finite_value_names_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("r.csv"), "frame,time,id,x,y,heading\n0,0,0,0,0,0\n1,0.025,0,inf,0,0\n").unwrap();
    let out = calibrate(&["flow-field", "--recording", "r.csv", "--out", "f.csv"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("line 3") && e.contains("`x`") && e.contains("non-finite"), "{e}");
}

#[test]
fn too_short_recording_and_empty_bounds_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("frame,time,id,x,y,heading\n");
    for k in 0..100 {
        text.push_str(&format!("{k},{},0,0.01,0,0\n", k as f64 * 0.025));
    }
    std::fs::write(dir.path().join("r.csv"), text).unwrap();
    let out = calibrate(&["run", "--recording", "r.csv", "--out", "o", "--balls", "2"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("too short for the MSD window"), "{e}");
    std::fs::write(dir.path().join("s.yaml"), "calibration:\n  parameters: []\n").unwrap();
    let out = calibrate(&["run", "--recording", "r.csv", "--out", "o", "--settings", "s.yaml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("bounds are empty"), "{e}");
}

#[test]
fn record_then_estimate_the_flow_field() {
    let dir = tempfile::tempdir().unwrap();
    let out = calibrate(
        &[
            "record",
            "--balls",
            "6",
            "--seconds",
            "4",
            "--warmup",
            "0.5",
            "--parameters",
            "1,1,0,0,0.5",
            "--out",
            "r.csv",
            "--flow-out",
            "known.csv",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = calibrate(
        &["flow-field", "--recording", "r.csv", "--out", "f.csv", "--cells", "10", "--compare", "known.csv", "--min-count", "5"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("rms_error"), "{stdout}");
    for file in ["f.csv", "f.png", "f.normality.csv"] {
        assert!(dir.path().join(file).exists(), "{file}");
    }
    assert!(std::fs::read_to_string(dir.path().join("f.csv")).unwrap().starts_with("# flotilla_flow_field v1 nx=10"));
    // The physics loads the estimated field as its measured flow field.
    let world =
        "tank_physics:\n  ros__parameters:\n    flow_field: {file: f.csv}\n    modules:\n      ball: {kind: ping_pong_ball, count: 2}\n";
    std::fs::write(dir.path().join("world.yaml"), world).unwrap();
    let out = calibrate(&["record", "--world", "world.yaml", "--seconds", "1", "--warmup", "0", "--out", "again.csv"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("of 2 objects"));
}

#[test]
fn redirected_runs_print_progress_lines() {
    let dir = tempfile::tempdir().unwrap();
    let out = calibrate(
        &["record", "--balls", "2", "--seconds", "3", "--warmup", "0", "--parameters", "1,1,50,0.3,0.5", "--out", "r.csv"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::write(dir.path().join("s.yaml"), "calibration:\n  msd: {window_frames: 40, start_stride: 20}\n").unwrap();
    let out =
        calibrate(&["noise", "--recording", "r.csv", "--balls", "2", "--warmup", "0", "--settings", "s.yaml", "--runs", "4"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("fitness noise: 4/4 runs"), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("fitness over 4 runs"));
    let out = calibrate(
        &[
            "run",
            "--recording",
            "r.csv",
            "--balls",
            "2",
            "--warmup",
            "0",
            "--settings",
            "s.yaml",
            "--out",
            "o",
            "--iterations",
            "2",
            "--swarm-size",
            "3",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let e = stderr(&out);
    // Two iterations, then the default 3 final re-evaluation passes, each a step.
    for line in [
        "calibrating: 1/5 iterations",
        "calibrating: 2/5 iterations",
        "calibrating: 3/5 re-evaluating the personal bests, pass 1 of 3",
        "calibrating: 5/5 re-evaluating the personal bests, pass 3 of 3",
    ] {
        assert!(e.contains(line), "{line}: {e}");
    }
}

/// Issue 21 item 3: `flow-field --cells 1000000` aborted on a 24 TB allocation; a flow
/// file whose header says 1000000 x 1000000 aborted `--compare`. Both are now the shared
/// grid cap's error, exit 2, no abort.
#[test]
fn item3_huge_grids_are_refused_not_allocated() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("r.csv"), "frame,time,id,x,y,heading\n0,0,0,0,0,0\n1,0.025,0,0.01,0,0\n").unwrap();
    let out = calibrate(&["flow-field", "--recording", "r.csv", "--out", "f.csv", "--cells", "1000000"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("1000000"), "{}", stderr(&out));
    std::fs::write(
        dir.path().join("big.csv"),
        "# flotilla_flow_field v1 nx=1000000 ny=1000000 x_min=-0.3 x_max=0.3 y_min=-0.3 y_max=0.3\nix,iy,mean_x,mean_y,std_x,std_y,count\n",
    )
    .unwrap();
    let out = calibrate(&["flow-field", "--recording", "r.csv", "--out", "f.csv", "--compare", "big.csv"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(e.contains("at most") || e.contains("big.csv"), "{e}");
}

/// Issue 21 item 9: `noise --runs 0` printed a NaN mean and exited 0; `record --seconds
/// 1e12` ran without end; `--balls 1e7` was accepted.
#[test]
fn item9_zero_runs_endless_records_and_huge_ball_counts_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("r.csv"), "frame,time,id,x,y,heading\n0,0,0,0,0,0\n1,0.025,0,0.01,0,0\n").unwrap();
    for (args, want) in [
        (vec!["noise", "--recording", "r.csv", "--runs", "0"], "--runs"),
        (vec!["record", "--seconds", "1e12", "--out", "o.csv"], "--seconds"),
        (vec!["record", "--seconds", "1", "--balls", "10000000", "--out", "o.csv"], "balls"),
    ] {
        let out = calibrate(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
    }
}

/// Issue 21 item 10: a header-only recording's flow-field error did not name the file, and
/// `--node nosuch` said only that the world "has no modules to track".
#[test]
fn item10_errors_name_the_file_and_the_missing_section() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.csv"), "frame,time,id,x,y,heading\n").unwrap();
    let out = calibrate(&["flow-field", "--recording", "empty.csv", "--out", "f.csv"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("empty.csv"), "{}", stderr(&out));
    std::fs::write(dir.path().join("w.yaml"), "tank_physics:\n  ros__parameters:\n    seed: 1\n").unwrap();
    let out = calibrate(&["record", "--seconds", "1", "--world", "w.yaml", "--node", "nosuch", "--out", "o.csv"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("no section for node `nosuch`") && e.contains("tank_physics"), "{e}");
}

/// `validate` on a tank recording: the recording's own parameters pass, a tank without
/// flow coupling and stochastic force fails, each with its verdict line and report.
#[test]
fn validate_tells_the_recorded_model_from_a_wrong_one() {
    let dir = tempfile::tempdir().unwrap();
    let truth = "1.3,1.8,120,0.3,0.25";
    let out =
        calibrate(&["record", "--balls", "24", "--seconds", "240", "--seed", "3", "--parameters", truth, "--out", "r.csv"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    // A 20 x 20 grid: 240 s give enough visits per cell for the occupancy and the tests.
    std::fs::write(dir.path().join("s.yaml"), "maps: {nx: 20, ny: 20, side: 0.6}\n").unwrap();
    let validate = |parameters: &str, out_dir: &str| {
        let out = calibrate(
            &["validate", "--recording", "r.csv", "--settings", "s.yaml", "--parameters", parameters, "--seed", "9", "--out", out_dir],
            dir.path(),
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(dir.path().join(out_dir).join("report.md").exists() && dir.path().join(out_dir).join("speed_ks.png").exists());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let good = validate(truth, "good");
    assert!(good.starts_with("GOOD: "), "{good}");
    let poor = validate("0.5,0.1,0,0.9,0.25", "poor");
    assert!(poor.starts_with("POOR: "), "{poor}");
}

#[test]
fn flow_estimation_overrides_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("r.csv"), "frame,time,id,x,y,heading\n0,0,0,0,0,0\n1,0.025,0,0.01,0,0\n").unwrap();
    let out = calibrate(&["run", "--recording", "r.csv", "--out", "o", "--estimate-flow", "--flow-half-window", "0"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("flow_estimation.half_window"), "{}", stderr(&out));
    assert!(!dir.path().join("o").exists(), "nothing is written for a bad setting");
    let out = calibrate(&["run", "--recording", "r.csv", "--out", "o", "--flow-cells", "20"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--estimate-flow"), "{}", stderr(&out));
}

/// Errors said each cause twice ("f.csv: ... (os error 2): ... (os error 2)"), named a
/// file of several by its position ("recording 1 is too short") and a header-only file
/// not at all.
#[test]
fn errors_say_each_cause_once_and_name_the_file_of_several() {
    let dir = tempfile::tempdir().unwrap();
    let out = calibrate(&["flow-field", "--recording", "missing.csv", "--out", "f.csv"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert_eq!(e.matches("os error 2").count(), 1, "{e}");
    let mut long = String::from("frame,time,id,x,y,heading\n");
    for k in 0..2500 {
        long.push_str(&format!("{k},{},0,{},0,0\n", k as f64 * 0.025, 0.1 * (k as f64 * 0.01).sin()));
    }
    std::fs::write(dir.path().join("long.csv"), long).unwrap();
    std::fs::write(dir.path().join("short.csv"), "frame,time,id,x,y,heading\n0,0,0,0,0,0\n1,0.025,0,0,0,0\n").unwrap();
    std::fs::write(dir.path().join("header.csv"), "frame,time,id,x,y,heading\n").unwrap();
    for (file, reason) in [("short.csv", "too short for the MSD window"), ("header.csv", "no samples")] {
        let out = calibrate(&["validate", "--recording", "long.csv", "--recording", file, "--out", "o", "--balls", "2"], dir.path());
        assert_eq!(out.status.code(), Some(2));
        let e = stderr(&out);
        assert!(e.contains(&format!("recording {file}")) && e.contains(reason), "{e}");
    }
}

/// `record --warmup 1e12` simulated for ever.
#[test]
fn a_huge_warmup_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = calibrate(&["record", "--seconds", "1", "--warmup", "1e12", "--out", "r.csv"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("--warmup") && e.contains("3600"), "{e}");
}

/// Bad input exited 1, like a failed run; it now exits 2 (as clap's argument errors do)
/// and names the file, line or option. Work that fails on good input still exits 1.
#[test]
fn bad_input_exits_2_and_failed_work_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = calibrate(&["record", "--balls", "3", "--seconds", "2", "--warmup", "0", "--out", "r.csv"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let good = std::fs::read_to_string(dir.path().join("r.csv")).unwrap();
    // Another simulator's file whose time runs back at one frame.
    let mut lines: Vec<String> = good.lines().map(str::to_owned).collect();
    lines[10] = lines[10].replacen(",0.", ",-0.", 1);
    std::fs::write(dir.path().join("back.csv"), lines.join("\n")).unwrap();
    std::fs::write(dir.path().join("header.csv"), "frame,time,id,x,y,heading\r\n").unwrap();
    std::fs::write(dir.path().join("s.yaml"), "calibration: {pso: {swarm_size: 0}}\n").unwrap();
    std::fs::write(dir.path().join("w.yaml"), "tank_physics:\n  ros__parameters:\n    modules: 3\n").unwrap();
    for (args, want) in [
        (vec!["flow-field", "--recording", "back.csv", "--out", "f.csv"], "back.csv: trajectory line 11"),
        (vec!["flow-field", "--recording", "header.csv", "--out", "f.csv"], "header.csv"),
        (vec!["run", "--recording", "r.csv", "--out", "o", "--settings", "s.yaml"], "pso.swarm_size"),
        (vec!["record", "--world", "w.yaml", "--seconds", "1", "--out", "o.csv"], "w.yaml"),
        (vec!["record", "--seconds", "1", "--parameters", "1,2", "--out", "o.csv"], "--parameters"),
        (vec!["validate", "--recording", "missing.csv", "--out", "v"], "missing.csv"),
    ] {
        let out = calibrate(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
    }
    // Good input, an output that cannot be written: a failure, not bad input.
    let out = calibrate(&["flow-field", "--recording", "r.csv", "--out", "no/such/dir/f.csv", "--cells", "5"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("no/such/dir"), "{}", stderr(&out));
}
