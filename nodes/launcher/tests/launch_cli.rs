//! The `flotilla` binary on small launch files whose nodes are shell scripts in a fake
//! ament prefix. Every wait is bounded, and every script ends by itself within ~10 s even
//! if a test fails half-way.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

const TIMEOUT: Duration = Duration::from_secs(20);

/// Records the signal it gets in `<marks>/<name>.signal`, says ready, runs ~10 s at most.
const TALKER: &str = r#"#!/bin/sh
marks="$1"; name="$2"
trap 'echo INT > "$marks/$name.signal"; exit 0' INT
trap 'echo TERM > "$marks/$name.signal"; exit 0' TERM
echo "$name ready"
echo "$name to stderr" >&2
touch "$marks/$name.ready"
i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"#;

/// Exits with code `$2` shortly after `<marks>/$3` exists (if `$3` is given, not `--ros-args`).
const QUITTER: &str = r#"#!/bin/sh
marks="$1"; code="$2"; after="$3"
case "$after" in --*) after="" ;; esac
i=0
while [ -n "$after" ] && [ ! -e "$marks/$after" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
sleep 0.2
echo "quitting with $code" >&2
exit "$code"
"#;

/// Ignores SIGINT and SIGTERM.
const STUBBORN: &str = r#"#!/bin/sh
trap '' INT TERM
touch "$1/stubborn.ready"
i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
"#;

/// Cannot be executed: its interpreter does not exist.
const BROKEN: &str = "#!/nonexistent/interpreter\n";

/// Appends a line per run to `<marks>/runs`, then exits 0.
const COUNTER: &str = "#!/bin/sh\necho run >> \"$1/runs\"\nsleep 0.05\n";

struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("install");
        let index = prefix.join("share/ament_index/resource_index/packages");
        std::fs::create_dir_all(&index).unwrap();
        std::fs::write(index.join("fake"), "").unwrap();
        let lib = prefix.join("lib/fake");
        std::fs::create_dir_all(&lib).unwrap();
        for (name, script) in [("talker", TALKER), ("quitter", QUITTER), ("stubborn", STUBBORN), ("counter", COUNTER), ("broken", BROKEN)] {
            std::fs::write(lib.join(name), script).unwrap();
            std::fs::set_permissions(lib.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::create_dir_all(dir.path().join("marks")).unwrap();
        Self { dir }
    }

    fn marks(&self) -> PathBuf {
        self.dir.path().join("marks")
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_flotilla"));
        command
            .arg("launch")
            .args(args)
            .current_dir(self.dir.path())
            .env("AMENT_PREFIX_PATH", self.dir.path().join("install"))
            .env("ROS_LOG_DIR", self.dir.path().join("logs"))
            .env_remove("FLOTILLA_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn start(&self, args: &[&str]) -> Running {
        Running::new(self.command(args).spawn().unwrap())
    }

    fn wait_for(&self, file: &str) {
        let path = self.marks().join(file);
        let deadline = Instant::now() + TIMEOUT;
        while !path.exists() {
            assert!(Instant::now() < deadline, "{} never appeared", path.display());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn mark(&self, file: &str) -> String {
        std::fs::read_to_string(self.marks().join(file)).unwrap_or_default().trim().to_owned()
    }
}

struct Running {
    child: Child,
    stdout: JoinHandle<String>,
    stderr: JoinHandle<String>,
}

fn read_all(mut pipe: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    })
}

impl Running {
    fn new(mut child: Child) -> Self {
        let stdout = read_all(child.stdout.take().unwrap());
        let stderr = read_all(child.stderr.take().unwrap());
        Self { child, stdout, stderr }
    }

    fn signal(&self, signal: Signal) {
        kill(Pid::from_raw(self.child.id() as i32), signal).unwrap();
    }

    /// Waits (bounded) for the launcher to end; returns its status, stdout and stderr.
    fn finish(mut self) -> (ExitStatus, String, String) {
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("launcher still running after {TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (status, self.stdout.join().unwrap(), self.stderr.join().unwrap())
    }
}

fn talker(name: &str, extra: &str) -> String {
    format!("- node: {{pkg: fake, exec: talker, name: {name}, output: screen, args: \"$(var marks) {name}\"{extra}}}\n")
}

fn header() -> &'static str {
    "launch:\n- arg: {name: marks, default: marks}\n"
}

#[test]
fn sigint_reaches_every_child_and_the_launcher_exits_zero() {
    let setup = Setup::new();
    let text = format!("{}{}{}", header(), talker("alpha", ""), talker("beta", ", namespace: swarm"));
    setup.write("two.launch.yaml", &text);
    let run = setup.start(&["two.launch.yaml"]);
    setup.wait_for("alpha.ready");
    setup.wait_for("beta.ready");
    run.signal(Signal::SIGINT);
    let (status, stdout, stderr) = run.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(setup.mark("alpha.signal"), "INT");
    assert_eq!(setup.mark("beta.signal"), "INT");
    assert!(stdout.contains("[talker-1] alpha ready"), "{stdout}");
    assert!(stdout.contains("[talker-2] beta ready"), "{stdout}");
    assert!(stderr.contains("[talker-2] beta to stderr"), "{stderr}");
    assert!(stderr.contains("[launcher] shutting down (SIGINT received)"), "{stderr}");
    assert!(stderr.contains("[launcher] process 'talker-1' exited with code 0"), "{stderr}");
    assert!(stderr.contains("[launcher]   talker-2: exited with code 0, ran"), "{stderr}");
}

#[test]
fn sigterm_is_forwarded_as_sigterm() {
    let setup = Setup::new();
    setup.write("one.launch.yaml", &format!("{}{}", header(), talker("alpha", "")));
    let run = setup.start(&["one.launch.yaml"]);
    setup.wait_for("alpha.ready");
    run.signal(Signal::SIGTERM);
    let (status, _, stderr) = run.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(setup.mark("alpha.signal"), "TERM");
}

#[test]
fn a_failing_required_node_stops_the_others_and_fails_the_launch() {
    let setup = Setup::new();
    let text = format!(
        "{}{}- node: {{pkg: fake, exec: quitter, args: 'marks 3 alpha.ready', on_exit: shutdown}}\n",
        header(),
        talker("alpha", "")
    );
    setup.write("required.launch.yaml", &text);
    let (status, _, stderr) = setup.start(&["required.launch.yaml"]).finish();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(setup.mark("alpha.signal"), "INT");
    assert!(stderr.contains("[launcher] process 'quitter-2' exited with code 3"), "{stderr}");
    assert!(stderr.contains("shutting down (required process 'quitter-2' ended)"), "{stderr}");
    assert!(stderr.contains("quitter-2: exited with code 3"), "{stderr}");
    // Default output `log`: stderr still reaches the screen.
    assert!(stderr.contains("[quitter-2] quitting with 3"), "{stderr}");
}

#[test]
fn a_required_node_ending_cleanly_ends_the_launch_cleanly() {
    let setup = Setup::new();
    let text = format!(
        "{}{}- node: {{pkg: fake, exec: quitter, args: 'marks 0 alpha.ready', on_exit: shutdown}}\n",
        header(),
        talker("alpha", "")
    );
    setup.write("clean.launch.yaml", &text);
    let (status, _, stderr) = setup.start(&["clean.launch.yaml"]).finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(setup.mark("alpha.signal"), "INT");
}

#[test]
fn a_node_failing_during_the_run_fails_the_launch() {
    let setup = Setup::new();
    setup.write("fail.launch.yaml", "launch:\n- node: {pkg: fake, exec: quitter, args: 'marks 4'}\n");
    let (status, _, stderr) = setup.start(&["fail.launch.yaml"]).finish();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("process 'quitter-1' exited with code 4"), "{stderr}");
}

#[test]
fn a_process_that_cannot_start_stops_the_launch() {
    let setup = Setup::new();
    let text = format!("{}{}- node: {{pkg: fake, exec: broken}}\n", header(), talker("alpha", ""));
    setup.write("broken.launch.yaml", &text);
    let run = setup.start(&["broken.launch.yaml"]);
    let (status, _, stderr) = run.finish();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("process 'broken-2' could not start"), "{stderr}");
    assert!(stderr.contains("shutting down (a process could not start)"), "{stderr}");
    assert!(stderr.contains("broken-2: failed to start"), "{stderr}");
}

#[test]
fn stragglers_are_killed_after_the_shutdown_timeout() {
    let setup = Setup::new();
    setup.write("stubborn.launch.yaml", "launch:\n- node: {pkg: fake, exec: stubborn, args: marks, output: screen}\n");
    let run = setup.start(&["--shutdown-timeout", "0.5", "stubborn.launch.yaml"]);
    setup.wait_for("stubborn.ready");
    let sent = Instant::now();
    run.signal(Signal::SIGINT);
    let (status, _, stderr) = run.finish();
    assert!(sent.elapsed() < Duration::from_secs(5), "took {:?}", sent.elapsed());
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("shutdown timeout of 0.5 s passed: sending SIGKILL to 'stubborn-1'"), "{stderr}");
    assert!(stderr.contains("killed by signal SIGKILL (after the shutdown timeout)"), "{stderr}");
}

#[test]
fn respawn_restarts_until_shutdown() {
    let setup = Setup::new();
    setup.write("respawn.launch.yaml", "launch:\n- node: {pkg: fake, exec: counter, args: marks, respawn: 'true', respawn_delay: 0.1}\n");
    let run = setup.start(&["respawn.launch.yaml"]);
    let deadline = Instant::now() + TIMEOUT;
    while setup.mark("runs").lines().count() < 3 {
        assert!(Instant::now() < deadline, "respawned fewer than 3 times");
        std::thread::sleep(Duration::from_millis(20));
    }
    run.signal(Signal::SIGINT);
    let (status, _, stderr) = run.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("respawning 'counter-1' in 0.1 s"), "{stderr}");
    assert!(stderr.contains("starts"), "{stderr}");
}

#[test]
fn malformed_file_fails_with_file_and_line() {
    let setup = Setup::new();
    setup.write("bad.launch.yaml", "launch:\n- arg: {name: a, default: x}\n- node:\n    pkg: fake\n    name: n\n");
    let (status, stdout, stderr) = setup.start(&["bad.launch.yaml"]).finish();
    assert_eq!(status.code(), Some(2));
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.trim(), "[launcher] error: bad.launch.yaml:4:5: `node` is missing required attribute `exec`");

    setup.write("syntax.launch.yaml", "launch:\n- node: {pkg: fake, exec: talker\n");
    let (status, _, stderr) = setup.start(&["syntax.launch.yaml"]).finish();
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("syntax.launch.yaml:3:"), "{stderr}");

    setup.write("args.launch.yaml", "launch:\n- arg: {name: a, default: x}\n");
    let (status, _, stderr) = setup.start(&["args.launch.yaml", "b:=1"]).finish();
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("unknown launch argument(s) b: args.launch.yaml declares a"), "{stderr}");
}

#[test]
fn print_and_show_args() {
    let setup = Setup::new();
    let text = "launch:\n- arg: {name: rate, default: '30', description: frames per second}\n- arg: {name: robots}\n\
                - node: {pkg: fake, exec: talker, name: cam, param: [{name: rate, value: $(var rate)}]}\n";
    setup.write("cam.launch.yaml", text);
    let (status, stdout, _) = setup.start(&["--show-args", "cam.launch.yaml"]).finish();
    assert_eq!(status.code(), Some(0));
    assert!(stdout.contains("    'rate':\n        frames per second\n        (default: '30')\n"), "{stdout}");
    assert!(stdout.contains("    'robots':\n        no description given\n        (required)\n"), "{stdout}");

    let (status, stdout, stderr) = setup.start(&["--print", "cam.launch.yaml", "robots:=2", "rate:=15"]).finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let exe = setup.dir.path().join("install/lib/fake/talker");
    let command = stdout.lines().nth(1).unwrap();
    let expected_start = format!("{} --ros-args -r '__node:=cam' --params-file ", exe.display());
    assert!(command.starts_with(&expected_start), "{stdout}");
    let params_file = command.rsplit(' ').next().unwrap();
    let params = std::fs::read_to_string(params_file).unwrap();
    assert!(params.contains("\"/**\":\n  ros__parameters:\n    \"rate\": 15\n"), "{params}");
    std::fs::remove_dir_all(Path::new(params_file).parent().unwrap()).unwrap();

    let (status, _, stderr) = setup.start(&["--print", "cam.launch.yaml"]).finish();
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("cam.launch.yaml:3:3: required launch argument 'robots' was not provided"), "{stderr}");
}

#[test]
fn output_log_goes_to_the_launch_log() {
    let setup = Setup::new();
    setup.write("log.launch.yaml", &format!("{}{}", header(), talker("alpha", "").replace(", output: screen", "")));
    let run = setup.start(&["log.launch.yaml"]);
    setup.wait_for("alpha.ready");
    run.signal(Signal::SIGINT);
    let (status, stdout, stderr) = run.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stdout.contains("alpha ready"), "{stdout}");
    assert!(stderr.contains("[talker-1] alpha to stderr"), "{stderr}");
    let logs: Vec<PathBuf> = std::fs::read_dir(setup.dir.path().join("logs")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(logs.len(), 1);
    let log = std::fs::read_to_string(logs[0].join("launch.log")).unwrap();
    assert!(log.contains("[talker-1] alpha ready") && log.contains("[talker-1] alpha to stderr"), "{log}");
}

#[test]
fn calibrate_runs_the_tool_next_to_flotilla_with_the_arguments_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let flotilla = dir.path().join("flotilla");
    std::fs::copy(env!("CARGO_BIN_EXE_flotilla"), &flotilla).unwrap();
    // Without the tool: a clear error naming it.
    let out = Command::new(&flotilla).args(["calibrate", "run"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("flotilla-calibrate") && stderr.contains("cargo build"), "{stderr}");
    // With it: flags (even --help) reach it, and its exit code is flotilla's.
    let tool = dir.path().join("flotilla-calibrate");
    std::fs::write(&tool, "#!/bin/sh\necho \"args: $*\"\nexit 3\n").unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(&flotilla).args(["calibrate", "run", "--recording", "a b.csv", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "args: run --recording a b.csv --help");
}

#[test]
fn experiment_runs_the_tool_next_to_flotilla_with_the_arguments_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let flotilla = dir.path().join("flotilla");
    std::fs::copy(env!("CARGO_BIN_EXE_flotilla"), &flotilla).unwrap();
    let out = Command::new(&flotilla).args(["experiment", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("flotilla-experiment") && stderr.contains("cargo build --release -p flotilla_experiments"), "{stderr}");
    let tool = dir.path().join("flotilla-experiment");
    std::fs::write(&tool, "#!/bin/sh\necho \"args: $*\"\nexit 2\n").unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(&flotilla).args(["experiment", "lily", "yield", "--seeds", "2", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "args: lily yield --seeds 2 --help");
}
