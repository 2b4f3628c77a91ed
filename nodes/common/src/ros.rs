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
use r2r::{Parameter, ParameterValue};
use serde_yaml::{Mapping, Number, Value};

use crate::params::{self, NodeArgs, ParamError};

/// Logs to stderr through `tracing`; `RUST_LOG` selects the level (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // A second call (tests) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// The command line of this process, the node's identity and its merged parameters.
pub struct Startup {
    /// Parsed `--ros-args`.
    pub args: NodeArgs,
    /// Merged `ros__parameters` of every `--params-file` and `-p` override.
    pub params: Mapping,
}

impl Startup {
    /// Reads the process arguments for node `default_name` and loads its parameters.
    pub fn from_env(default_name: &str) -> Result<Self, ParamError> {
        let args = NodeArgs::parse(default_name, std::env::args().skip(1))?;
        let params = args.load()?;
        Ok(Self { args, params })
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
        let node = r2r::Node::create(ctx, &self.args.identity.name, &self.args.identity.namespace)
            .map_err(|e| anyhow::anyhow!("creating node {}: {e}", self.args.identity.fully_qualified()))?;
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
/// an error exits with [`EXIT_BAD_CONFIG`] naming the key), a tokio runtime, then `run`,
/// whose `Ok(summary)` is logged before exiting 0. An `Err` of `run` before the node spins
/// (an unreadable flow file, a module outside the arena, an unwritable recording path,
/// a topic rcl refuses...) is a start-up failure caused by the configuration and exits
/// [`EXIT_BAD_CONFIG`] too, as does rcl refusing the arguments ([`RclArgumentsError`]);
/// an `Err` once the node runs exits 1.
pub fn node_main<S, Fut>(
    name: &str,
    settings: impl FnOnce(&Mapping) -> Result<S, ParamError>,
    run: impl FnOnce(Startup, S) -> Fut,
) -> std::process::ExitCode
where
    Fut: std::future::Future<Output = anyhow::Result<String>>,
{
    use std::process::ExitCode;
    init_tracing();
    let startup = match Startup::from_env(name) {
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
    runtime.shutdown_timeout(Duration::from_millis(500));
    match outcome {
        Ok(summary) => {
            tracing::info!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!("{e:#}");
            if !STARTED.load(Ordering::Acquire) || e.downcast_ref::<RclArgumentsError>().is_some() {
                ExitCode::from(EXIT_BAD_CONFIG)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Whether a subscriber outside this process listens on `publisher` (an unknown count
/// counts as listening): a topic nobody reads (thousands of markers, a swarm's `/tf`) need
/// not be made.
pub fn listened<T: r2r::WrappedTypesupport + 'static>(publisher: &r2r::Publisher<T>) -> bool {
    publisher.get_inter_process_subscription_count().map_or(true, |n| n > 0)
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

    /// Stops spinning and waits for the spin thread.
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Checks a whole parameter tree; the error is the reason a change is refused.
type Validator = Box<dyn Fn(&Mapping) -> Result<(), String> + Send>;

/// A node's parameters as ROS 2 parameters, checked by the node's own validator on every
/// change: an invalid `ros2 param set` is refused with the validator's message and the
/// running configuration is kept. Accepted trees are sent on a watch channel.
pub struct LiveParams {
    tree: Mapping,
    validate: Validator,
    updates: tokio::sync::watch::Sender<Mapping>,
}

impl LiveParams {
    /// Wraps the validated start-up `tree`; `validate` sees the tree without the standard
    /// ROS keys (`use_sim_time`).
    pub fn new(
        tree: Mapping,
        validate: impl Fn(&Mapping) -> Result<(), String> + Send + 'static,
    ) -> (Self, tokio::sync::watch::Receiver<Mapping>) {
        let (updates, rx) = tokio::sync::watch::channel(tree.clone());
        (Self { tree, validate: Box::new(validate), updates }, rx)
    }

    /// Serves `node`'s ROS parameters, starting from its start-up parameters, on a tokio
    /// task; returns the accepted trees. (r2r's parameter events are not used: the watch
    /// channel carries whole validated trees.)
    pub fn serve(
        node: &mut r2r::Node,
        startup_params: &Mapping,
        validate: impl Fn(&Mapping) -> Result<(), String> + Send + 'static,
    ) -> anyhow::Result<tokio::sync::watch::Receiver<Mapping>> {
        let (live, updates) = Self::new(params::without_standard(startup_params), validate);
        let (handler, _events) = node.make_derived_parameter_handler(Arc::new(Mutex::new(live)))?;
        tokio::spawn(handler);
        Ok(updates)
    }

    fn candidate(&self, name: &str, value: &ParameterValue) -> r2r::Result<Mapping> {
        let conv = |msg: String| r2r::Error::ParameterValueConv { name: name.to_owned(), msg };
        let yaml = param_to_yaml(value).ok_or_else(|| conv("unsupported parameter type".into()))?;
        let mut tree = self.tree.clone();
        params::set_dotted(&mut tree, name, yaml);
        if !params::STANDARD_ROS_PARAMETERS.contains(&name) {
            (self.validate)(&params::without_standard(&tree)).map_err(conv)?;
        }
        Ok(tree)
    }
}

impl r2r::RosParams for LiveParams {
    fn register_parameters(
        &mut self,
        prefix: &str,
        _param: Option<Parameter>,
        params: &mut indexmap::IndexMap<String, Parameter>,
    ) -> r2r::Result<()> {
        for (name, value) in params::flatten(&self.tree) {
            let name = if prefix.is_empty() { name } else { format!("{prefix}.{name}") };
            if let Some(pv) = yaml_to_param(&value) {
                params.insert(name, Parameter::new(pv));
            }
        }
        Ok(())
    }

    fn get_parameter(&mut self, name: &str) -> r2r::Result<ParameterValue> {
        params::get_dotted(&self.tree, name)
            .and_then(yaml_to_param)
            .ok_or_else(|| r2r::Error::InvalidParameterName { name: name.to_owned() })
    }

    fn set_parameter(&mut self, name: &str, value: &ParameterValue) -> r2r::Result<()> {
        let tree = self.candidate(name, value)?;
        self.tree = tree;
        let _ = self.updates.send(self.tree.clone());
        Ok(())
    }

    fn check_parameter(&self, name: &str, value: &ParameterValue) -> r2r::Result<()> {
        self.candidate(name, value).map(|_| ())
    }
}

/// A YAML scalar or scalar array as a ROS parameter value.
pub fn yaml_to_param(v: &Value) -> Option<ParameterValue> {
    Some(match v {
        Value::Bool(b) => ParameterValue::Bool(*b),
        Value::Number(n) if n.is_i64() => ParameterValue::Integer(n.as_i64()?),
        Value::Number(n) => ParameterValue::Double(n.as_f64()?),
        Value::String(s) => ParameterValue::String(s.clone()),
        Value::Sequence(items) => match items.first()? {
            Value::Bool(_) => ParameterValue::BoolArray(items.iter().filter_map(Value::as_bool).collect()),
            Value::Number(n) if n.is_i64() => ParameterValue::IntegerArray(items.iter().filter_map(Value::as_i64).collect()),
            Value::Number(_) => ParameterValue::DoubleArray(items.iter().filter_map(Value::as_f64).collect()),
            Value::String(_) => ParameterValue::StringArray(items.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()),
            _ => return None,
        },
        _ => return None,
    })
}

/// A ROS parameter value as YAML.
pub fn param_to_yaml(v: &ParameterValue) -> Option<Value> {
    let num_f = |x: f64| Value::Number(Number::from(x));
    Some(match v {
        ParameterValue::Bool(b) => Value::Bool(*b),
        ParameterValue::Integer(i) => Value::Number(Number::from(*i)),
        ParameterValue::Double(d) => num_f(*d),
        ParameterValue::String(s) => Value::String(s.clone()),
        ParameterValue::BoolArray(a) => Value::Sequence(a.iter().map(|b| Value::Bool(*b)).collect()),
        ParameterValue::IntegerArray(a) => Value::Sequence(a.iter().map(|i| Value::Number(Number::from(*i))).collect()),
        ParameterValue::DoubleArray(a) => Value::Sequence(a.iter().map(|d| num_f(*d)).collect()),
        ParameterValue::StringArray(a) => Value::Sequence(a.iter().map(|s| Value::String(s.clone())).collect()),
        ParameterValue::NotSet | ParameterValue::ByteArray(_) => return None,
    })
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

    #[test]
    fn time_msg_splits_seconds() {
        let t = time_msg(12.025);
        assert_eq!((t.sec, t.nanosec), (12, 25_000_000));
        let t = time_msg(0.9999999999);
        assert_eq!((t.sec, t.nanosec), (1, 0));
    }

    #[test]
    fn pose_round_trip() {
        let pose = Isometry3::new(Vector3::new(0.1, -0.2, 0.0), Vector3::new(0.0, 0.0, 1.2));
        let back = pose_from_msg(&pose_msg(&pose));
        assert!((back.translation.vector - pose.translation.vector).norm() < 1e-12);
        assert!(back.rotation.angle_to(&pose.rotation) < 1e-12);
    }

    #[test]
    fn live_params_refuse_invalid_values_and_keep_the_old_tree() {
        use r2r::RosParams;
        let tree: Mapping = serde_yaml::from_str("hydro: {kv: 1.0}").unwrap();
        let (mut live, rx) = LiveParams::new(tree, |t| {
            let kv = params::get_dotted(t, "hydro.kv").and_then(Value::as_f64).unwrap_or(0.0);
            if (0.1..=5.0).contains(&kv) {
                Ok(())
            } else {
                Err(format!("must be in [0.1, 5], got {kv}"))
            }
        });
        let err = live.set_parameter("hydro.kv", &ParameterValue::Double(7.0)).unwrap_err();
        assert!(err.to_string().contains("must be in [0.1, 5], got 7"), "{err}");
        assert_eq!(live.get_parameter("hydro.kv").unwrap(), ParameterValue::Double(1.0));
        live.set_parameter("hydro.kv", &ParameterValue::Double(2.0)).unwrap();
        assert_eq!(params::get_dotted(&rx.borrow(), "hydro.kv").and_then(Value::as_f64), Some(2.0));
    }
}
