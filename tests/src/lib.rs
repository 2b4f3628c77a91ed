//! End-to-end harness: runs launch files through the `flotilla` launcher in a ROS domain
//! of the test's own, talks to the nodes through r2r, stops them with SIGINT.
//!
//! r2r's context is process-global (created once, a `OnceLock`) and `rcl_init` fixes its
//! ROS domain, so every [`RosProbe`] of a process lives in the domain the first one
//! reserved: tests of one binary run by `cargo test` (threads) take turns in it, while
//! nextest gives each test a process and a domain of its own.
//! `scripts/test.sh` also puts the whole run in a network namespace with only loopback.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use futures::{Stream, StreamExt};

/// Repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// Directory holding the workspace binaries of the profile this test was built with.
pub fn bin_dir() -> PathBuf {
    // <target>/<profile>/deps/<test-exe>
    std::env::current_exe()
        .ok()
        .and_then(|p| p.parent()?.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| repo_root().join("target/release"))
}

/// A workspace binary, e.g. `flotilla` or `tank_physics`.
pub fn bin(name: &str) -> PathBuf {
    bin_dir().join(name)
}

/// A ROS_DOMAIN_ID reserved for this process (exclusive lock file per id). Clones share
/// the reservation, released with the last of them.
#[derive(Clone)]
pub struct Domain {
    /// The domain id (10..=99; scripts/isolated.sh gives the whole run one of 100..=199).
    pub id: u32,
    _lock: Arc<File>,
}

impl Domain {
    /// Reserves a free domain id; stale reservations of dead processes are reused.
    pub fn reserve() -> anyhow::Result<Self> {
        let dir = std::env::temp_dir().join("flotilla-domains");
        std::fs::create_dir_all(&dir)?;
        let start = std::process::id() % 90;
        for k in 0..90 {
            let id = 10 + (start + k) % 90;
            let path = dir.join(id.to_string());
            let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path)?;
            // flock is released when the holder dies, so no stale ids.
            if try_lock(&file) {
                return Ok(Self { id, _lock: Arc::new(file) });
            }
        }
        bail!("no free ROS domain id in 10..=99")
    }
}

fn try_lock(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a valid, owned file descriptor.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// The environment every launched process gets: this domain, localhost discovery.
fn ros_env(cmd: &mut Command, domain: &Domain) {
    cmd.env("ROS_DOMAIN_ID", domain.id.to_string()).env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
}

/// How long [`Launch::wait`] lets the output readers finish once the process has exited.
const READERS_GRACE: Duration = Duration::from_secs(5);

/// The longest a test waits for one service response or action goal answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);

/// A running `flotilla launch`, its output captured.
pub struct Launch {
    child: Child,
    output: Arc<Mutex<Vec<String>>>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

impl Launch {
    /// Starts `flotilla launch <file> <args...>` (file relative to the repo root).
    pub fn start(file: &str, args: &[&str], domain: &Domain) -> anyhow::Result<Self> {
        let mut cmd = Command::new(bin("flotilla"));
        cmd.arg("launch").arg(repo_root().join(file)).args(args);
        Self::spawn(cmd, domain)
    }

    /// Starts any command (e.g. a node binary directly) in the domain, output captured.
    pub fn spawn(mut cmd: Command, domain: &Domain) -> anyhow::Result<Self> {
        ros_env(&mut cmd, domain);
        cmd.current_dir(repo_root()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().with_context(|| format!("starting {cmd:?}"))?;
        let output = Arc::new(Mutex::new(Vec::new()));
        let mut readers = Vec::new();
        let pipes: Vec<Box<dyn std::io::Read + Send>> =
            vec![Box::new(child.stdout.take().context("stdout")?), Box::new(child.stderr.take().context("stderr")?)];
        for pipe in pipes {
            let sink = output.clone();
            readers.push(std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if std::env::var_os("FLOTILLA_TEST_ECHO").is_some() {
                        eprintln!("{line}");
                    }
                    if let Ok(mut v) = sink.lock() {
                        v.push(line);
                    }
                }
            }));
        }
        Ok(Self { child, output, readers })
    }

    /// Process id of the launched command.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Everything printed so far.
    pub fn output(&self) -> String {
        self.output.lock().map(|v| v.join("\n")).unwrap_or_default()
    }

    /// Sends SIGINT and waits (up to `timeout`) for the exit status. A command started as
    /// the leader of its own process group (`CommandExt::process_group(0)`) gets it on the
    /// whole group, as Ctrl-C in a terminal does (`ros2 run` relies on that: it does not
    /// forward the signal to the node).
    pub fn interrupt(self, timeout: Duration) -> anyhow::Result<(ExitStatus, String)> {
        let pid = self.child.id() as i32;
        // SAFETY: signalling our own child, or the process group it leads.
        unsafe {
            let target = if libc::getpgid(pid) == pid { -pid } else { pid };
            libc::kill(target, libc::SIGINT);
        }
        self.wait(timeout)
    }

    /// Waits (up to `timeout`) for the process to exit by itself.
    pub fn wait(mut self, timeout: Duration) -> anyhow::Result<(ExitStatus, String)> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                // A process the child left behind can hold its pipes open: take what the
                // readers got by then rather than wait on them for ever.
                let drained = Instant::now() + READERS_GRACE;
                while self.readers.iter().any(|r| !r.is_finished()) && Instant::now() < drained {
                    std::thread::sleep(Duration::from_millis(10));
                }
                return Ok((status, self.output()));
            }
            if Instant::now() > deadline {
                self.kill_tree();
                bail!("did not exit within {timeout:?}; output:\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Launch {
    /// SIGKILLs the process and everything it started. The launcher puts each node in a
    /// process group of its own, so killing the launcher alone would leave its nodes
    /// running, still publishing in this test's domain when a later test takes it.
    fn kill_tree(&mut self) {
        let pid = self.child.id() as i32;
        for p in std::iter::once(pid).chain(descendants(pid)) {
            // SAFETY: signalling a process we started or one it started.
            unsafe { libc::kill(p, libc::SIGKILL) };
        }
        let _ = self.child.wait();
    }
}

impl Drop for Launch {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: signalling our own child by pid.
            unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
            // Longer than the launcher's own shutdown timeout (5 s), so that it ends its
            // nodes itself when it can.
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            self.kill_tree();
        }
    }
}

/// The executables in `exe_dir` running below `root` (any depth), by file name: a launch's
/// node processes, without the launcher, shells or Python.
pub fn node_processes(root: u32, exe_dir: &Path) -> std::collections::BTreeMap<String, usize> {
    let mut found = std::collections::BTreeMap::new();
    for pid in descendants(root as i32) {
        let Ok(exe) = std::fs::read_link(format!("/proc/{pid}/exe")) else { continue };
        if exe.parent() == Some(exe_dir) {
            let name = exe.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            *found.entry(name).or_default() += 1;
        }
    }
    found
}

/// Starts `cmd`, waits (up to 40 s) until its node processes (executables in `exe_dir`)
/// have stayed the same for `settle`, sends SIGINT and waits for the exit: (processes,
/// exit code, output).
pub fn run_until_interrupted(
    cmd: Command,
    domain: &Domain,
    exe_dir: &Path,
    settle: Duration,
) -> (std::collections::BTreeMap<String, usize>, Option<i32>, String) {
    let launch = Launch::spawn(cmd, domain).expect("starting the launch");
    let deadline = Instant::now() + Duration::from_secs(40);
    let (mut seen, mut since) = (std::collections::BTreeMap::new(), Instant::now());
    while Instant::now() < deadline {
        let now = node_processes(launch.pid(), exe_dir);
        if now != seen {
            (seen, since) = (now, Instant::now());
        } else if !seen.is_empty() && since.elapsed() >= settle {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, output) = launch.interrupt(Duration::from_secs(30)).expect("the launch to exit after SIGINT");
    (seen, status.code(), output)
}

/// Every living descendant of `pid`, read from `/proc` (children before grandchildren).
fn descendants(pid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    // (pid, parent pid) of every process; the command name in /proc/<pid>/stat is in
    // parentheses and may hold spaces, so the fields are read after the last ')'.
    let parents: Vec<(i32, i32)> = entries
        .filter_map(|e| {
            let p: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
            Some((p, ppid))
        })
        .collect();
    let mut found = vec![pid];
    let mut next = 0;
    while next < found.len() {
        let parent = found[next];
        found.extend(parents.iter().filter(|&&(_, pp)| pp == parent).map(|&(p, _)| p));
        next += 1;
    }
    found.split_off(1)
}

/// Starts each `(executable, parameter file text, key)` case on its parameter file and
/// checks that the node exits with code 2 naming the key, as every Flotilla node does on
/// a bad parameter.
pub fn assert_bad_parameters_refused(domain: &Domain, cases: &[(&str, &str, &str)]) {
    for &(exe, text, key) in cases {
        let (_dir, path) = temp_file("bad.yaml", text).expect("writing the parameter file");
        let mut cmd = Command::new(bin(exe));
        cmd.args(["--ros-args", "--params-file"]).arg(&path);
        let (status, output) =
            Launch::spawn(cmd, domain).and_then(|node| node.wait(Duration::from_secs(20))).unwrap_or_else(|e| panic!("{exe}: {e:#}"));
        assert_eq!(status.code(), Some(2), "{exe}: {output}");
        assert!(output.contains(key), "{exe}: the error does not name `{key}`:\n{output}");
    }
}

/// The test's own ROS node in the process's domain, spun on a background thread.
pub struct RosProbe {
    /// The domain every process of this test uses: the process's (see [`process_domain`]).
    pub domain: Domain,
    node: Arc<Mutex<r2r::Node>>,
    spinner: Option<flotilla_common::ros::Spinner>,
    // Last: released after the node and its spinner are gone.
    _turn: ProbeTurn,
}

/// One probe at a time in a process: the probes of a process share its domain (see
/// [`process_domain`]), so two tests of one binary run by `cargo test` (threads, not
/// nextest's processes) would otherwise talk to each other's nodes.
struct ProbeTurn;

/// The domain of the process's rcl context, reserved on first use and held for the
/// process's life.
static PROCESS_DOMAIN: std::sync::OnceLock<Domain> = std::sync::OnceLock::new();

/// The process's ROS domain: `ROS_DOMAIN_ID` is set to it before r2r's context is first
/// created. r2r creates one context per process and `rcl_init` reads the domain then, so a
/// probe that reserved a fresh domain for each test had its node in the first test's
/// domain while the nodes it launched ran in the fresh one, and never heard each other
/// (under `cargo test`, whenever another test held the first domain id at the time).
fn process_domain() -> anyhow::Result<Domain> {
    if let Some(domain) = PROCESS_DOMAIN.get() {
        return Ok(domain.clone());
    }
    let domain = Domain::reserve()?;
    // Before any context exists: only the first probe (under its turn) gets here.
    std::env::set_var("ROS_DOMAIN_ID", domain.id.to_string());
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    Ok(PROCESS_DOMAIN.get_or_init(|| domain).clone())
}

static PROBE_BUSY: Mutex<bool> = Mutex::new(false);
static PROBE_FREED: std::sync::Condvar = std::sync::Condvar::new();

impl ProbeTurn {
    fn wait() -> Self {
        let mut busy = PROBE_BUSY.lock().unwrap_or_else(|p| p.into_inner());
        while *busy {
            busy = PROBE_FREED.wait(busy).unwrap_or_else(|p| p.into_inner());
        }
        *busy = true;
        Self
    }
}

impl Drop for ProbeTurn {
    fn drop(&mut self) {
        *PROBE_BUSY.lock().unwrap_or_else(|p| p.into_inner()) = false;
        PROBE_FREED.notify_one();
    }
}

impl RosProbe {
    /// Creates the probe node in the process's domain (reserved by the first probe);
    /// waits while another probe of this process lives.
    pub fn new(name: &str) -> anyhow::Result<Self> {
        let turn = ProbeTurn::wait();
        let domain = process_domain()?;
        let ctx = r2r::Context::create().context("rcl_init")?;
        let node = r2r::Node::create(ctx, name, "/")?;
        Ok(Self { domain, node: Arc::new(Mutex::new(node)), spinner: None, _turn: turn })
    }

    /// Runs `f` with the node (create subscriptions, clients, publishers before spinning).
    pub fn with_node<T>(&self, f: impl FnOnce(&mut r2r::Node) -> T) -> T {
        let mut node = self.node.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut node)
    }

    /// Subscribes to `topic` (reliable, volatile).
    pub fn subscribe<T: r2r::WrappedTypesupport + 'static>(&self, topic: &str) -> anyhow::Result<impl Stream<Item = T> + Unpin> {
        self.with_node(|n| n.subscribe::<T>(topic, r2r::QosProfile::default())).map_err(Into::into)
    }

    /// Subscribes to a transient-local topic (receives the last message on connection).
    pub fn subscribe_latched<T: r2r::WrappedTypesupport + 'static>(&self, topic: &str) -> anyhow::Result<impl Stream<Item = T> + Unpin> {
        let qos = r2r::QosProfile::default().transient_local().keep_last(1);
        self.with_node(|n| n.subscribe::<T>(topic, qos)).map_err(Into::into)
    }

    /// Starts spinning; after this, subscriptions deliver.
    pub fn spin(&mut self) {
        if self.spinner.is_none() {
            self.spinner = Some(flotilla_common::ros::Spinner::start(self.node.clone()));
        }
    }
}

impl Drop for RosProbe {
    fn drop(&mut self) {
        if let Some(s) = self.spinner.take() {
            s.stop();
        }
    }
}

/// Collects messages from `stream` until `done(&collected)` or `timeout`.
pub async fn collect_until<T>(
    stream: &mut (impl Stream<Item = T> + Unpin),
    timeout: Duration,
    mut done: impl FnMut(&[T]) -> bool,
) -> Vec<T> {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + timeout;
    while !done(&got) {
        match tokio::time::timeout_at(deadline, stream.next()).await {
            Ok(Some(msg)) => got.push(msg),
            _ => break,
        }
    }
    got
}

/// Writes `text` to a file in a fresh temporary directory and returns both.
pub fn temp_file(name: &str, text: &str) -> anyhow::Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join(name);
    std::fs::write(&path, text)?;
    Ok((dir, path))
}

/// Runs `tests/<script> <arg>` with the Python test tools (scripts/py-tools-requirements.txt,
/// installed by scripts/setup.sh; `FLOTILLA_PY_TOOLS` names their folder) and returns the
/// JSON it prints. Panics (failing the test) when the tools are missing or the script fails.
pub fn python_tool(script: &str, arg: &Path) -> serde_json::Value {
    let tools = std::env::var("FLOTILLA_PY_TOOLS")
        .expect("FLOTILLA_PY_TOOLS unset: source build/env.sh (scripts/setup.sh installs the bag readers)");
    let python_path = match std::env::var("PYTHONPATH") {
        Ok(p) if !p.is_empty() => format!("{tools}:{p}"),
        _ => tools,
    };
    let out = Command::new("python3")
        .arg(repo_root().join("tests").join(script))
        .arg(arg)
        .env("PYTHONPATH", python_path)
        .output()
        .expect("running python3");
    assert!(out.status.success(), "{script} {}: {}", arg.display(), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{script} printed no JSON ({e})"))
}

/// A bag directory as the `rosbags` package reads it (tests/read_rosbag2.py): what its
/// metadata.yaml says, what its MCAP file holds, the type hashes rosbags computes from the
/// stored schemas (it refuses a bag whose stored hash differs) and the decoded fields the
/// tests compare.
pub fn read_rosbag2(dir: &Path) -> serde_json::Value {
    python_tool("read_rosbag2.py", dir)
}

/// Awaits a service response (or an action goal's answer) for at most [`ANSWER_TIMEOUT`]
/// and panics naming `what` if none comes: a lost request fails the test, it never hangs
/// it (rcl drops a request sent before the server was matched, and the future then waits
/// for ever).
pub async fn answered<T, E: std::fmt::Debug>(answer: impl std::future::Future<Output = Result<T, E>>, what: &str) -> T {
    match tokio::time::timeout(ANSWER_TIMEOUT, answer).await {
        Ok(Ok(value)) => value,
        Ok(Err(e)) => panic!("{what}: {e:?}"),
        Err(_) => panic!("{what}: no answer within {ANSWER_TIMEOUT:?}"),
    }
}

/// Calls an idempotent service until it answers: waits (up to `per_try`) for the server to
/// be seen, then tries at most `tries` times, each waiting `per_try`, for servers that
/// restart or whose endpoints are still being matched in discovery.
pub async fn call_idempotent<S: r2r::WrappedServiceTypeSupport + 'static>(
    client: &r2r::Client<S>,
    request: &S::Request,
    per_try: Duration,
    tries: u32,
    what: &str,
) -> S::Response {
    let seen = r2r::Node::is_available(client).unwrap_or_else(|e| panic!("{what}: {e}"));
    // Not seen yet is no reason to stop: the tries below wait too.
    let _ = tokio::time::timeout(per_try, seen).await;
    for _ in 0..tries {
        if let Ok(Ok(response)) = tokio::time::timeout(per_try, client.request(request).unwrap_or_else(|e| panic!("{what}: {e}"))).await {
            return response;
        }
    }
    panic!("{what}: no answer in {tries} tries of {per_try:?}")
}

/// Reads and drops messages from `stream` until it stays quiet for `quiet`, for at most
/// `limit` (a stream that never goes quiet must not hold the test).
pub async fn drain<T>(stream: &mut (impl Stream<Item = T> + Unpin), quiet: Duration, limit: Duration) {
    let deadline = tokio::time::Instant::now() + limit;
    while tokio::time::Instant::now() < deadline {
        match tokio::time::timeout(quiet, stream.next()).await {
            Ok(Some(_)) => {}
            _ => return,
        }
    }
}

/// `ros2` (the arguments follow) through the test kit (`FLOTILLA_ROS2_CLI_ENV`) or a
/// sourced ROS 2 whose `ros2 <verb>` exists, if either does.
pub fn ros2_command(verb: &str) -> Option<Command> {
    if let Some(env) = std::env::var_os("FLOTILLA_ROS2_CLI_ENV").filter(|e| Path::new(e).is_file()) {
        let mut cmd = Command::new("bash");
        cmd.args(["-c", "source \"$0\" && exec ros2 \"$@\""]).arg(env);
        return Some(cmd);
    }
    let sourced = Command::new("ros2").args([verb, "--help"]).output().is_ok_and(|o| o.status.success());
    sourced.then(|| Command::new("ros2"))
}

/// Runs `ros2 <args>` in `domain`: (success, stdout + stderr). Each `--no-daemon` call
/// discovers the graph anew, which on a loaded machine can miss the node ("Node not
/// found"): such a call is repeated, up to 10 times.
pub fn ros2(base: &Command, domain: u32, args: &[&str]) -> (bool, String) {
    let mut last = (false, String::new());
    for _ in 0..10 {
        let mut cmd = Command::new(base.get_program());
        cmd.args(base.get_args()).args(args);
        cmd.env("ROS_DOMAIN_ID", domain.to_string()).env("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
        last = match cmd.output() {
            Ok(o) => (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))),
            Err(e) => return (false, format!("cannot run ros2: {e}")),
        };
        if !last.1.contains("Node not found") {
            break;
        }
    }
    last
}

/// The real `ros2` command, or `None` after saying why the calling test stops.
pub fn skip_without_cli() -> Option<Command> {
    let cli = ros2_command("param");
    if cli.is_none() {
        eprintln!(
            "SKIPPED: neither FLOTILLA_ROS2_CLI_ENV (the ../shared/tools/ros2-jazzy-cli kit, installed by scripts/test.sh) nor a sourced ROS 2 with `ros2 param`"
        );
    }
    cli
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Alive: listed in /proc and not a zombie.
    fn alive(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| s.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next().map(|state| state != "Z")))
            .unwrap_or(false)
    }

    /// What the child process of the test below runs (otherwise nothing): publishes on
    /// `/probe_domain_check` in its environment's domain for up to 60 s.
    #[test]
    #[ignore = "a helper: the probe domain test runs it in a child process"]
    fn publisher_in_the_environment_domain() {
        if std::env::var_os("FLOTILLA_DOMAIN_CHECK_CHILD").is_none() {
            return;
        }
        let ctx = r2r::Context::create().unwrap();
        let mut node = r2r::Node::create(ctx, "domain_check", "/").unwrap();
        let publisher = node.create_publisher::<r2r::std_msgs::msg::String>("/probe_domain_check", r2r::QosProfile::default()).unwrap();
        for _ in 0..600 {
            publisher.publish(&r2r::std_msgs::msg::String { data: "here".into() }).unwrap();
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    // Regression: each probe reserved a fresh domain, but r2r's context (one per process)
    // stays in the domain of the first: under `cargo test` (threads) a later probe whose
    // first domain id another test had taken meanwhile never heard the nodes it launched
    // (kilobot.rs's NaN sensor batch test failed so).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_later_probe_of_the_process_hears_a_process_launched_in_its_domain() {
        let first = RosProbe::new("probe_first").unwrap();
        drop(first);
        // Another test of the process reserves a domain meanwhile (the one the first probe
        // reserved, were it freed with it).
        let _other = Domain::reserve().unwrap();
        let mut probe = RosProbe::new("probe_later").unwrap();
        let mut heard = probe.subscribe::<r2r::std_msgs::msg::String>("/probe_domain_check").unwrap();
        probe.spin();
        let mut child = Command::new(std::env::current_exe().unwrap());
        child.args(["--ignored", "--exact", "tests::publisher_in_the_environment_domain"]).env("FLOTILLA_DOMAIN_CHECK_CHILD", "1");
        let child = Launch::spawn(child, &probe.domain).unwrap();
        let got = collect_until(&mut heard, Duration::from_secs(30), |m: &[r2r::std_msgs::msg::String]| !m.is_empty()).await;
        assert!(!got.is_empty(), "the probe (domain {}) did not hear the child launched in it:\n{}", probe.domain.id, child.output());
    }

    // Regression: a launch killed after its timeout left its nodes running (each in its own
    // process group), publishing in the domain the next test reserved.
    #[test]
    fn a_launch_that_does_not_exit_is_killed_with_everything_it_started() {
        let domain = Domain::reserve().unwrap();
        let mut cmd = Command::new("sh");
        // The shell ignores SIGINT and starts a grandchild in a session of its own.
        cmd.args(["-c", "trap '' INT; setsid sleep 300 & echo $!; wait"]);
        let launch = Launch::spawn(cmd, &domain).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let grandchild = loop {
            if let Some(pid) = launch.output().lines().next().and_then(|l| l.trim().parse::<i32>().ok()) {
                break pid;
            }
            assert!(Instant::now() < deadline, "no pid printed: {}", launch.output());
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(alive(grandchild));
        assert!(descendants(launch.pid() as i32).contains(&grandchild));
        assert!(launch.interrupt(Duration::from_millis(300)).is_err(), "the shell ignores SIGINT");
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(grandchild) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!alive(grandchild), "the grandchild {grandchild} outlived the launch");
    }
}
