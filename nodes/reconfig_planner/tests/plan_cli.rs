//! `molemod_plan` exit codes: bad input (task file, flags, a start and goal that do not
//! fit) exits 2 naming it, as clap does for an unknown flag; a task without a plan exits 1.

use std::process::Command;

fn plan_cli(task_text: &str, extra: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("task.yaml");
    std::fs::write(&path, task_text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_molemod_plan")).arg(&path).args(["--quiet"]).args(extra).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Every bad task file exited 1, the code of a task that has no plan.
#[test]
fn bad_input_exits_2_and_no_plan_exits_1() {
    let task = |start: &str, goal: &str, robots: &str| format!("name: t\nstart: |\n  {start}\ngoal: |\n  {goal}\nrobots: {robots}\n");
    for (text, extra, says) in [
        (task("##X#", "####", "[[0, 0]]"), &[][..], "unknown cell character 'X'"),
        (task("###", "####", "[[0, 0]]"), &[][..], "start lattice is 3x1x1 but goal lattice is 4x1x1"),
        (task("###", "#R#", "[]"), &[][..], "goal places 1 robots but the start has 0"),
        (task("###", "###", "[[0, 0]]"), &["--robots", "2"][..], "2 robots requested but the file lists 1"),
        (task("###", "###", "[[0, 0]]"), &["--max-time=1e300"][..], "--max-time"),
        // The option at fault is named (the request's own wording did not say which).
        (task("##.", ".##", "[[0, 0]]"), &["--weight", "0"][..], "--weight: heuristic weight 0 is outside [1, 100]"),
        (task("##.", ".##", "[[0, 0]]"), &["--weight", "nan"][..], "--weight: heuristic weight NaN"),
        (task("##.", ".##", "[[0, 0]]"), &["--robots", "0"][..], "--robots 0: start has no robot"),
        (task("##.", ".##", "[[0, 0]]"), &["--max-expansions", "0"][..], "--max-expansions: must be at least 1"),
        (task("##.", ".##", "[[0, 0]]"), &["--repertoire", "minimal,fly"][..], "unknown action class `fly`"),
        // Robots side by side where the repertoire keeps them apart: the file, both robots.
        (
            task("###", "###", "[[0, 0], [1, 0]]"),
            &["--repertoire", "minimal"][..],
            "robot 0 in (0, 0, 0) and robot 1 in (1, 0, 0) are side by side along x",
        ),
        (
            "name: t\nstart: 5\ngoal: |\n  #\nrobots: []\n".to_owned(),
            &[][..],
            "`start`: expected a picture (a block string of rows, or a list of such strings, one per layer), got 5",
        ),
    ] {
        let (code, stderr) = plan_cli(&text, extra);
        assert_eq!(code, Some(2), "{text} {extra:?}: {stderr}");
        assert!(stderr.contains(says), "{text} {extra:?}: {stderr}");
    }
    let (code, stderr) = plan_cli(&task("#.#", "##.", "[[0, 0]]"), &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no plan: the goal is unreachable"), "{stderr}");
    // Two robots kept apart cannot meet in the middle of a row; side by side they can.
    let meet = task("####", "#RR#", "[[0, 0], [3, 0]]");
    let (code, stderr) = plan_cli(&meet, &["--repertoire", "minimal,side_by_side"]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stderr) = plan_cli(&meet, &["--repertoire", "minimal"]);
    assert_eq!(code, Some(1), "{stderr}");
}
