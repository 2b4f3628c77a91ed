//! ROS 2 glue every Flotilla node shares (feature `ros`): start-up from `--ros-args`,
//! live parameters validated by the node's own configuration type, a spin thread with an
//! orderly shutdown, and message conversions.
//!
//! Shutdown design: rcl objects must not be used while the process exits, so the node is
//! spun on one dedicated thread that owns the spinning; on SIGINT/SIGTERM the node's tasks
//! are told to stop, the spin thread is joined, and only then does `main` return. A plain
//! `exit()` while the spin thread runs has been seen to abort with heap corruption.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use nalgebra::{Isometry3, Vector3};
use serde_yaml::{Mapping, Value};

use crate::param_spec::NodeParams;
use crate::params::{self, NodeArgs, ParamError};
pub use crate::ros_params::Validator;

/// Logs to stderr and to `/rosout` (once the node exists: [`crate::rosout`]) through
/// `tracing`; `RUST_LOG` selects the level (default `info`) of both.
pub fn init_tracing() {
    use tracing_subscriber::prelude::*;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let terminal = tracing_subscriber::fmt::layer()
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .with_target(false);
    // A second call (tests) keeps the first subscriber.
    let _ = tracing_subscriber::registry().with(filter).with(terminal).with(crate::rosout::RosoutLayer).try_init();
}

/// The command line of this process, the node's identity and its merged parameters.
pub struct Startup {
    /// Parsed `--ros-args`.
    pub args: NodeArgs,
    /// Merged `ros__parameters` of every `--params-file` and `-p` override. A node may
    /// state values it derives from them (a behaviour's parameters in full) before
    /// [`Startup::create_node`], which declares this tree.
    pub params: Mapping,
    /// The node's parameter table (what `ros2 param` shows).
    spec: NodeParams,
    /// The node's own check of a whole tree (a refused `ros2 param set` gets its message).
    validate: Validator,
    /// Accepted parameter trees, once [`Startup::create_node`] serves the parameters.
    updates: std::sync::OnceLock<tokio::sync::watch::Receiver<Mapping>>,
}

impl Startup {
    /// Reads the process arguments for node `default_name` and loads its parameters;
    /// `spec` and `validate` are what [`Startup::create_node`] serves them with.
    pub fn from_env(default_name: &str, spec: NodeParams, validate: Validator) -> Result<Self, ParamError> {
        Self::from_env_loading(default_name, spec, validate, NodeArgs::load)
    }

    /// [`Startup::from_env`] with the parameter tree built by `load` (a composite node's
    /// [`NodeArgs::load_composite`]).
    pub fn from_env_loading(default_name: &str, spec: NodeParams, validate: Validator, load: ParamLoader) -> Result<Self, ParamError> {
        let args = NodeArgs::parse(default_name, std::env::args().skip(1))?;
        let params = load(&args)?;
        Ok(Self { args, params, spec, validate, updates: std::sync::OnceLock::new() })
    }

    /// The accepted parameter trees (without the standard ROS keys), the start-up tree
    /// first: a node whose parameters are live follows this. Before
    /// [`Startup::create_node`] (or if it failed) the start-up tree, never changing.
    pub fn param_updates(&self) -> tokio::sync::watch::Receiver<Mapping> {
        match self.updates.get() {
            Some(rx) => rx.clone(),
            None => tokio::sync::watch::channel(params::without_standard(&self.params)).1,
        }
    }

    /// `use_sim_time` from the parameters (default false).
    pub fn use_sim_time(&self) -> bool {
        params::get_dotted(&self.params, "use_sim_time").and_then(Value::as_bool).unwrap_or(false)
    }

    /// Creates the r2r context and node (name and namespace from `--ros-args`).
    pub fn create_node(&self) -> anyhow::Result<r2r::Node> {
        // r2r panics when rcl cannot parse the arguments or a parameter file (a YAML
        // construct our loader reads differently, e.g. `[a:b]`): report it as the bad
        // configuration it is, with rcl's file and line, instead of a panic.
        let default_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let created = std::panic::catch_unwind(r2r::Context::create);
        std::panic::set_hook(default_hook);
        let ctx = match created {
            Ok(ctx) => ctx.map_err(|e| anyhow::anyhow!("ROS 2 initialisation (rcl_init) failed: {e}"))?,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_else(|| "no reason given".to_owned());
                return Err(RclArgumentsError(message).into());
            }
        };
        let mut node = r2r::Node::create(ctx, &self.args.identity.name, &self.args.identity.namespace)
            .map_err(|e| anyhow::anyhow!("creating node {}: {e}", self.args.identity.fully_qualified()))?;
        crate::rosout::attach(&mut node).map_err(|e| anyhow::anyhow!("creating the /rosout publisher: {e}"))?;
        let updates = crate::ros_params::serve(&mut node, &self.spec, &self.params, self.validate.clone())
            .map_err(|e| anyhow::anyhow!("serving the parameters: {e}"))?;
        let _ = self.updates.set(updates);
        Ok(node)
    }
}

/// rcl refused the command line or a parameter file it names: a bad configuration.
#[derive(Debug, thiserror::Error)]
#[error("ROS 2 could not read the arguments or a parameter file: {0}")]
pub struct RclArgumentsError(String);

/// Exit code for invalid parameters or arguments (what command-line tools use for usage
/// errors).
pub const EXIT_BAD_CONFIG: u8 = 2;

/// Whether the node got as far as spinning ([`Spinner::start`]): an error before that is a
/// start-up failure, which [`node_main`] reports as a bad configuration.
static STARTED: AtomicBool = AtomicBool::new(false);

/// The `main` of every Flotilla node: logging, parameters (`settings` validates the tree;
/// an error exits with [`EXIT_BAD_CONFIG`] naming the key; `spec` describes them to ROS
/// tools and `settings` checks every `ros2 param set`), a tokio runtime, then `run`,
/// whose `Ok(summary)` is logged before exiting 0. An `Err` of `run` before the node spins
/// (an unreadable flow file, a module outside the arena, an unwritable recording path,
/// a topic rcl refuses...) is a start-up failure caused by the configuration and exits
/// [`EXIT_BAD_CONFIG`] too, as does rcl refusing the arguments ([`RclArgumentsError`]);
/// an `Err` once the node runs exits 1.
pub fn node_main<S: 'static, Fut>(
    name: &str,
    spec: NodeParams,
    settings: fn(&Mapping) -> Result<S, ParamError>,
    run: impl FnOnce(Startup, S) -> Fut,
) -> std::process::ExitCode
where
    Fut: std::future::Future<Output = anyhow::Result<String>>,
{
    node_main_loading(name, spec, NodeArgs::load, settings, run)
}

/// How a node builds its parameter tree from its command line.
pub type ParamLoader = fn(&NodeArgs) -> Result<Mapping, ParamError>;

/// [`node_main`] with the parameter tree built by `load` (a composite node reads its
/// components' sections: [`NodeArgs::load_composite`]).
pub fn node_main_loading<S: 'static, Fut>(
    name: &str,
    spec: NodeParams,
    load: ParamLoader,
    settings: fn(&Mapping) -> Result<S, ParamError>,
    run: impl FnOnce(Startup, S) -> Fut,
) -> std::process::ExitCode
where
    Fut: std::future::Future<Output = anyhow::Result<String>>,
{
    use std::process::ExitCode;
    init_tracing();
    let validate: Validator = std::sync::Arc::new(move |tree: &Mapping| settings(tree).map(|_| ()).map_err(|e| e.to_string()));
    let startup = match Startup::from_env_loading(name, spec, validate, load) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!("{e}");
            return ExitCode::from(EXIT_BAD_CONFIG);
        }
    };
    let settings = match settings(&startup.params) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!("{e}");
            return ExitCode::from(EXIT_BAD_CONFIG);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        catch_shutdown_signals().map_err(|e| anyhow::anyhow!("installing signal handlers: {e}"))?;
        run(startup, settings).await
    });
    // Blocking tasks (e.g. a long plan) must not keep the process alive after shutdown.
    let shutting_down = std::time::Instant::now();
    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
    if shutting_down.elapsed() >= RUNTIME_SHUTDOWN {
        tracing::warn!(
            waited_s = RUNTIME_SHUTDOWN.as_secs_f64(),
            "a task was still running when the runtime shut down; its ROS objects stay alive until the process exits"
        );
    }
    crate::rosout::detach();
    let code = match outcome {
        Ok(summary) => {
            tracing::info!("{summary}");
            0
        }
        Err(e) => {
            tracing::error!("{}", crate::error_chain::describe(e.as_ref()));
            if !STARTED.load(Ordering::Acquire) || e.downcast_ref::<RclArgumentsError>().is_some() {
                EXIT_BAD_CONFIG
            } else {
                1
            }
        }
    };
    guard_exit(code);
    ExitCode::from(code)
}

/// How long the runtime's tasks get to finish once `run` has returned.
const RUNTIME_SHUTDOWN: Duration = Duration::from_millis(500);

/// How long the process may take to exit once `main` returns (normally milliseconds).
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Ends the process with `code` if exiting takes longer than [`EXIT_GRACE`]. The DDS
/// middleware's exit handlers tear down what is still alive; with a task stuck inside an
/// rcl call they have been seen to wait forever, so the launcher killed a node that had
/// already logged its summary (a clean shutdown reported as a failure). Rust runs no
/// destructors at exit either, so skipping those handlers loses nothing the node writes.
fn guard_exit(code: u8) {
    let spawned = std::thread::Builder::new().name("exit-guard".into()).spawn(move || {
        std::thread::sleep(EXIT_GRACE);
        // Straight to stderr: by now the tracing subscriber's /rosout layer may be torn down.
        eprintln!("exit handlers still running after {:.1} s; exiting with code {code} without them", EXIT_GRACE.as_secs_f64());
        // SAFETY: `_exit` ends the process at once without running exit handlers or
        // destructors; no other thread's state is touched.
        unsafe { libc::_exit(i32::from(code)) }
    });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the exit guard: {e}");
    }
}

/// Whether a subscriber outside this process listens on `publisher` (an unknown count
/// counts as listening): a topic nobody reads (thousands of markers, a swarm's `/tf`) need
/// not be made.
pub fn listened<T: r2r::WrappedTypesupport + 'static>(publisher: &r2r::Publisher<T>) -> bool {
    publisher.get_inter_process_subscription_count().map_or(true, |n| n > 0)
}

/// Publishes sim time `seconds` on `publisher` (`/clock`) when a subscriber outside this
/// process listens: every step, for nodes on sim time; a swarm run with no such node skips
/// it. A failure is logged.
pub fn publish_clock(publisher: &r2r::Publisher<r2r::rosgraph_msgs::msg::Clock>, seconds: f64) {
    if listened(publisher) {
        if let Err(e) = publisher.publish(&r2r::rosgraph_msgs::msg::Clock { clock: time_msg(seconds) }) {
            tracing::warn!("publishing /clock: {e}");
        }
    }
}

/// The first SIGINT or SIGTERM since [`catch_shutdown_signals`] (`None` until then).
static SHUTDOWN: std::sync::OnceLock<tokio::sync::watch::Receiver<Option<&'static str>>> = std::sync::OnceLock::new();

/// Waits for the first SIGINT or SIGTERM.
async fn first_signal() -> std::io::Result<&'static str> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    Ok(tokio::select! {
        _ = int.recv() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    })
}

/// Installs the SIGINT/SIGTERM handlers now (inside a tokio runtime) and keeps the first
/// signal for [`shutdown_signal`]: [`node_main`] calls it before the node is built, so a
/// signal that arrives while a node starts ends it cleanly instead of killing it.
pub fn catch_shutdown_signals() -> std::io::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    if SHUTDOWN.get().is_some() {
        return Ok(());
    }
    let mut int = signal(SignalKind::interrupt())?;
    let mut term = signal(SignalKind::terminate())?;
    let (caught, watch) = tokio::sync::watch::channel(None);
    tokio::spawn(async move {
        let name = tokio::select! {
            _ = int.recv() => "SIGINT",
            _ = term.recv() => "SIGTERM",
        };
        let _ = caught.send(Some(name));
        // Keep the sender: a later wait must still see the signal.
        std::future::pending::<()>().await;
    });
    let _ = SHUTDOWN.set(watch);
    Ok(())
}

/// Resolves when the process receives SIGINT or SIGTERM (at once when one already came
/// after [`catch_shutdown_signals`]).
pub async fn shutdown_signal() -> std::io::Result<&'static str> {
    let Some(watch) = SHUTDOWN.get() else { return first_signal().await };
    let mut watch = watch.clone();
    let caught = watch.wait_for(Option::is_some).await.map_err(|_| std::io::Error::other("the signal watcher stopped"))?;
    Ok((*caught).unwrap_or("SIGINT"))
}

/// Waits for a simulator's stepping thread: until it ends by itself, or until SIGINT or
/// SIGTERM, which sets `stop` and then waits for the thread to finish its run (so its
/// summary and records are complete). `thread` names it in errors.
pub async fn until_done_or_signal<T: Send + 'static>(
    mut stepping: tokio::task::JoinHandle<T>,
    stop: &AtomicBool,
    thread: &str,
) -> anyhow::Result<T> {
    use anyhow::Context;
    tokio::select! {
        signal = shutdown_signal() => {
            tracing::info!(signal = signal.context("installing signal handlers")?, "shutting down");
            stop.store(true, Ordering::Release);
            stepping.await.with_context(|| thread.to_string())
        }
        done = &mut stepping => done.with_context(|| thread.to_string()),
    }
}

/// A node spun on its own thread until [`Spinner::stop`].
pub struct Spinner {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Starts spinning `node`. Create publishers, subscriptions and services before.
    pub fn start(node: Arc<Mutex<r2r::Node>>) -> Self {
        STARTED.store(true, Ordering::Release);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("ros-spin".into())
            .spawn(move || {
                while !flag.load(Ordering::Acquire) {
                    match node.lock() {
                        Ok(mut n) => n.spin_once(Duration::from_millis(5)),
                        Err(_) => break,
                    }
                    // Let other threads take the node lock between spins.
                    std::thread::yield_now();
                }
            })
            .ok();
        Self { stop, thread }
    }

    /// Stops spinning and waits up to [`SPIN_STOP_WAIT`] for the spin thread. A spin that
    /// does not return (seen once: a node logged its shutdown, then hung here until the
    /// launcher's SIGKILL) is left behind with a warning, so the node still ends with its
    /// summary; the process exit does not wait for it.
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            if !join_within(t, SPIN_STOP_WAIT) {
                tracing::warn!(waited_s = SPIN_STOP_WAIT.as_secs_f64(), "the ROS spin thread did not stop; leaving it");
            }
        }
    }
}

/// How long [`Spinner::stop`] waits for the spin thread (a spin lasts 5 ms).
const SPIN_STOP_WAIT: Duration = Duration::from_secs(1);

/// Drops a node (or anything holding ROS objects) on a thread of its own, waiting at most
/// [`RELEASE_WAIT`]. Dropping an r2r node finalises its subscriptions, publishers and the
/// node itself in rcl, which calls into the middleware; under load a node has been seen
/// to log its shutdown and then never reach its summary until the launcher's SIGKILL. A
/// release that does not return is left behind with a warning, so the node still ends with
/// its summary and exit code ([`node_main`]'s exit guard ends the process).
pub fn release_node<T: Send + 'static>(node: T) {
    match std::thread::Builder::new().name("ros-release".into()).spawn(move || drop(node)) {
        Ok(thread) => {
            if !join_within(thread, RELEASE_WAIT) {
                tracing::warn!(waited_s = RELEASE_WAIT.as_secs_f64(), "releasing the ROS node did not finish; leaving it");
            }
        }
        // The closure, and with it the node, was dropped here.
        Err(e) => tracing::warn!("cannot start the thread releasing the ROS node (released inline): {e}"),
    }
}

/// How long [`release_node`] waits for the node's finalisation (normally milliseconds).
const RELEASE_WAIT: Duration = Duration::from_secs(1);

/// Joins `thread` if it ends within `wait`; false (the thread left running) otherwise.
fn join_within(thread: JoinHandle<()>, wait: Duration) -> bool {
    let deadline = std::time::Instant::now() + wait;
    while !thread.is_finished() {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = thread.join();
    true
}

/// Serves `/tank/pause` (std_srvs/SetBool: true pauses, false resumes) for a simulator
/// whose stepping thread takes requests on `control`: `request(paused, done)` wraps the
/// request, and the answer is sent once the stepping thread has acted on it (called
/// `done`), or says `stopped` when the thread no longer listens (dropped `done`). Runs on
/// the current tokio runtime.
pub fn serve_pause<C: Send + 'static>(
    node: &mut r2r::Node,
    control: std::sync::mpsc::Sender<C>,
    request: fn(bool, Box<dyn FnOnce() + Send>) -> C,
    stopped: &'static str,
) -> Result<(), r2r::Error> {
    use futures::StreamExt;
    let mut pauses = node.create_service::<r2r::std_srvs::srv::SetBool::Service>("/tank/pause", r2r::QosProfile::default())?;
    tokio::spawn(async move {
        while let Some(call) = pauses.next().await {
            let paused = call.message.data;
            let (done, answered) = tokio::sync::oneshot::channel();
            let done = Box::new(move || {
                let _ = done.send(());
            });
            let ok = control.send(request(paused, done)).is_ok() && answered.await.is_ok();
            let message = match (ok, paused) {
                (false, _) => stopped,
                (true, true) => "paused",
                (true, false) => "running",
            };
            if let Err(e) = call.respond(r2r::std_srvs::srv::SetBool::Response { success: ok, message: message.into() }) {
                tracing::warn!("answering /tank/pause: {e}");
            }
        }
    });
    Ok(())
}

/// The wall-clock time now as a `builtin_interfaces/Time` (the stamp of `/rosout` and
/// `/parameter_events` messages, which rcl stamps with the system clock).
pub fn wall_time_msg() -> r2r::builtin_interfaces::msg::Time {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    r2r::builtin_interfaces::msg::Time { sec: t.as_secs().min(i32::MAX as u64) as i32, nanosec: t.subsec_nanos() }
}

/// Seconds as a `builtin_interfaces/Time`.
pub fn time_msg(seconds: f64) -> r2r::builtin_interfaces::msg::Time {
    let s = seconds.max(0.0);
    let mut sec = s.floor() as i32;
    let mut nanosec = ((s - s.floor()) * 1e9).round() as u32;
    if nanosec >= 1_000_000_000 {
        sec += 1;
        nanosec -= 1_000_000_000;
    }
    r2r::builtin_interfaces::msg::Time { sec, nanosec }
}

/// A `std_msgs/Header` at `seconds` in `frame`.
pub fn header(seconds: f64, frame: &str) -> r2r::std_msgs::msg::Header {
    r2r::std_msgs::msg::Header { stamp: time_msg(seconds), frame_id: frame.to_owned() }
}

/// An rviz marker to add: `type_` (`Marker::CUBE`, ...) `id` of namespace `ns` at
/// `seconds` in `frame`, at the frame's origin; the caller sets its pose, scale and colour.
pub fn marker(seconds: f64, frame: &str, ns: &str, id: i32, type_: i32) -> r2r::visualization_msgs::msg::Marker {
    use r2r::visualization_msgs::msg::Marker;
    Marker {
        header: header(seconds, frame),
        ns: ns.into(),
        id,
        type_,
        action: Marker::ADD as i32,
        pose: pose_msg(&Isometry3::identity()),
        ..Default::default()
    }
}

/// A marker colour: red, green, blue and opacity, each 0 to 1.
pub fn rgba(r: f32, g: f32, b: f32, a: f32) -> r2r::std_msgs::msg::ColorRGBA {
    r2r::std_msgs::msg::ColorRGBA { r, g, b, a }
}

/// nalgebra pose as `geometry_msgs/Pose`.
pub fn pose_msg(pose: &Isometry3<f64>) -> r2r::geometry_msgs::msg::Pose {
    let t = pose.translation.vector;
    let q = pose.rotation.into_inner();
    r2r::geometry_msgs::msg::Pose {
        position: r2r::geometry_msgs::msg::Point { x: t.x, y: t.y, z: t.z },
        orientation: r2r::geometry_msgs::msg::Quaternion { x: q.i, y: q.j, z: q.k, w: q.w },
    }
}

/// `geometry_msgs/Pose` as a nalgebra pose (the quaternion is normalised).
pub fn pose_from_msg(p: &r2r::geometry_msgs::msg::Pose) -> Isometry3<f64> {
    let q = nalgebra::Quaternion::new(p.orientation.w, p.orientation.x, p.orientation.y, p.orientation.z);
    let rotation = if q.norm() > 1e-12 { nalgebra::UnitQuaternion::from_quaternion(q) } else { nalgebra::UnitQuaternion::identity() };
    Isometry3::from_parts(nalgebra::Translation3::new(p.position.x, p.position.y, p.position.z), rotation)
}

/// nalgebra pose as `geometry_msgs/Transform`.
pub fn transform_msg(pose: &Isometry3<f64>) -> r2r::geometry_msgs::msg::Transform {
    let p = pose_msg(pose);
    r2r::geometry_msgs::msg::Transform {
        translation: r2r::geometry_msgs::msg::Vector3 { x: p.position.x, y: p.position.y, z: p.position.z },
        rotation: p.orientation,
    }
}

/// The TF transforms of `joints` (a [`crate::models::FrameTree`]'s) for the module named
/// `prefix`: `<prefix>/<parent link>` -> `<prefix>/<child link>`, stamped `seconds`.
pub fn joint_transforms<'a>(
    joints: impl IntoIterator<Item = &'a crate::models::JointFrame> + 'a,
    prefix: &'a str,
    seconds: f64,
) -> impl Iterator<Item = r2r::geometry_msgs::msg::TransformStamped> + 'a {
    use crate::models::prefixed_frame;
    joints.into_iter().map(move |j| r2r::geometry_msgs::msg::TransformStamped {
        header: header(seconds, &prefixed_frame(prefix, &j.parent)),
        child_frame_id: prefixed_frame(prefix, &j.child),
        transform: transform_msg(&j.transform),
    })
}

/// nalgebra vector as `geometry_msgs/Vector3`.
pub fn vector_msg(v: &Vector3<f64>) -> r2r::geometry_msgs::msg::Vector3 {
    r2r::geometry_msgs::msg::Vector3 { x: v.x, y: v.y, z: v.z }
}

/// A flow grid as `flotilla_msgs/FlowField` (per-cell mean, standard deviation and sample
/// count, row-major from `(x_min, y_min)`), stamped `seconds`.
pub fn flow_field_msg(grid: &crate::flow_field::FlowGrid, seconds: f64, frame: &str) -> r2r::flotilla_msgs::msg::FlowField {
    let e = grid.extent();
    let cells = grid.cells();
    r2r::flotilla_msgs::msg::FlowField {
        header: header(seconds, frame),
        nx: grid.nx() as u32,
        ny: grid.ny() as u32,
        x_min: e.x_min,
        y_min: e.y_min,
        cell_size: grid.cell_size().x,
        mean_x: cells.iter().map(|c| c.mean.x).collect(),
        mean_y: cells.iter().map(|c| c.mean.y).collect(),
        std_x: cells.iter().map(|c| c.std.x).collect(),
        std_y: cells.iter().map(|c| c.std.y).collect(),
        samples: cells.iter().map(|c| c.count.min(u64::from(u32::MAX)) as u32).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a spin thread that never returned held its node in shutdown until the
    /// launcher's SIGKILL; stopping now gives up on it after the wait.
    #[test]
    fn a_spin_thread_that_never_returns_is_left_after_the_wait() {
        let (_keep, blocked) = std::sync::mpsc::channel::<()>();
        let stuck = std::thread::spawn(move || {
            let _ = blocked.recv();
        });
        let started = std::time::Instant::now();
        assert!(!join_within(stuck, Duration::from_millis(50)));
        assert!(started.elapsed() < Duration::from_secs(5));
        let quick = std::thread::spawn(|| {});
        assert!(join_within(quick, Duration::from_secs(5)));
    }

    /// Regression (CI, 2026-11-29): the tracker logged its shutdown, then never reached its
    /// summary until the launcher's SIGKILL, past the spin thread's bounded stop: releasing
    /// the node is bounded too.
    #[test]
    fn a_node_whose_release_never_returns_is_left_after_the_wait() {
        struct Stuck(std::sync::mpsc::Receiver<()>);
        impl Drop for Stuck {
            fn drop(&mut self) {
                let _ = self.0.recv();
            }
        }
        let (keep, blocked) = std::sync::mpsc::channel::<()>();
        let started = std::time::Instant::now();
        release_node(Stuck(blocked));
        let waited = started.elapsed();
        assert!(waited >= RELEASE_WAIT && waited < RELEASE_WAIT + Duration::from_secs(4), "waited {waited:?}");
        drop(keep);
        let (dropped, seen) = std::sync::mpsc::channel::<()>();
        struct Quick(std::sync::mpsc::Sender<()>);
        impl Drop for Quick {
            fn drop(&mut self) {
                let _ = self.0.send(());
            }
        }
        release_node(Quick(dropped));
        assert!(seen.try_recv().is_ok(), "a quick release is finished when release_node returns");
    }

    #[test]
    fn time_msg_splits_seconds() {
        let t = time_msg(12.025);
        assert_eq!((t.sec, t.nanosec), (12, 25_000_000));
        let t = time_msg(0.9999999999);
        assert_eq!((t.sec, t.nanosec), (1, 0));
    }

    #[test]
    fn joint_transforms_are_named_below_the_prefix() {
        let tree = crate::models::FrameTree::of_kind(crate::catalogue::ModuleKind::Lily).unwrap();
        let msgs: Vec<_> = joint_transforms(&tree.fixed, "lily_7", 2.5).collect();
        assert_eq!(msgs.len(), 5);
        let latch = msgs.iter().find(|m| m.child_frame_id == "lily_7/latch_1").expect("latch_1");
        assert_eq!(latch.header.frame_id, "lily_7/base_link");
        assert_eq!((latch.header.stamp.sec, latch.header.stamp.nanosec), (2, 500_000_000));
        let (t, q) = (&latch.transform.translation, &latch.transform.rotation);
        // latch_1 is on the +y face, turned 90 degrees about z.
        assert!(t.x.abs() < 1e-12 && (t.y - 0.015).abs() < 1e-12 && t.z.abs() < 1e-12, "{t:?}");
        let half = std::f64::consts::FRAC_PI_4;
        assert!((q.z - half.sin()).abs() < 1e-9 && (q.w - half.cos()).abs() < 1e-9, "{q:?}");
    }

    #[test]
    fn pose_round_trip() {
        let pose = Isometry3::new(Vector3::new(0.1, -0.2, 0.0), Vector3::new(0.0, 0.0, 1.2));
        let back = pose_from_msg(&pose_msg(&pose));
        assert!((back.translation.vector - pose.translation.vector).norm() < 1e-12);
        assert!(back.rotation.angle_to(&pose.rotation) < 1e-12);
    }
}
