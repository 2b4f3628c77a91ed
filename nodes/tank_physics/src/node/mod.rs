//! The ROS 2 side of `tank_physics`: parameters, topics, the stepping thread, shutdown.
//!
//! Threads: the physics steps on its own thread (CPU bound, paced to the requested real
//! time factor) and publishes directly; the node is spun on the [`Spinner`] thread; tokio
//! runs the parameter service and waits for SIGINT/SIGTERM. Shutdown stops the physics
//! thread, then the spinner, then drops the node, then `main` returns.

mod markers;
mod settings;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use flotilla_common::ros::{self as fros, LiveParams, Spinner, Startup};
use r2r::QosProfile;
use tank_physics::{BodyState, World, WorldConfig};
use tracing::{info, warn};

pub use settings::NodeSettings;

/// Publishers the stepping thread uses.
struct Outputs {
    clock: r2r::Publisher<r2r::rosgraph_msgs::msg::Clock>,
    state: r2r::Publisher<r2r::flotilla_msgs::msg::TankState>,
    tf: r2r::Publisher<r2r::tf2_msgs::msg::TFMessage>,
    markers: r2r::Publisher<r2r::visualization_msgs::msg::MarkerArray>,
}

/// What the node reports when it ends.
struct Summary {
    sim_time: f64,
    wall: Duration,
    steps: u64,
    modules: usize,
    outside: usize,
    reason: &'static str,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let wall = self.wall.as_secs_f64();
        write!(
            f,
            "summary: {} after {:.2} s of sim time in {:.2} s wall ({:.1}x real time), {} steps, {} modules, {} outside the arena",
            self.reason,
            self.sim_time,
            wall,
            if wall > 0.0 { self.sim_time / wall } else { 0.0 },
            self.steps,
            self.modules,
            self.outside
        )
    }
}

/// Messages from ROS callbacks to the stepping thread.
enum Control {
    /// Validated new parameter tree.
    Params(Box<WorldConfig>),
}

/// Runs the node until SIGINT/SIGTERM or `run.max_sim_time`; returns the summary line.
pub async fn run(startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    let world = World::new(settings.world.clone(), settings.world.seed)
        .context("building the world from the parameters")?;
    let mut node = startup.create_node()?;
    let latched = QosProfile::default().transient_local().keep_last(1);
    let outputs = Outputs {
        clock: node.create_publisher("/clock", QosProfile::default())?,
        state: node.create_publisher("/tank/state", QosProfile::default())?,
        tf: node.create_publisher("/tf", QosProfile::default())?,
        markers: node.create_publisher("/tank/markers", latched)?,
    };
    let (live, mut updates) = LiveParams::new(
        flotilla_common::params::without_standard(&startup.params),
        |tree| NodeSettings::from_tree(tree).map(|_| ()).map_err(|e| e.to_string()),
    );
    let (param_handler, _param_events) =
        node.make_derived_parameter_handler(Arc::new(Mutex::new(live)))?;
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    tokio::spawn(param_handler);

    let (control_tx, control_rx) = mpsc::channel();
    tokio::spawn(async move {
        while updates.changed().await.is_ok() {
            let tree = updates.borrow_and_update().clone();
            match NodeSettings::from_tree(&tree) {
                Ok(s) => {
                    if control_tx.send(Control::Params(Box::new(s.world))).is_err() {
                        break;
                    }
                }
                Err(e) => warn!("parameter update ignored: {e}"),
            }
        }
    });

    let stop = Arc::new(AtomicBool::new(false));
    let stepping = {
        let stop = stop.clone();
        let settings = settings.clone();
        tokio::task::spawn_blocking(move || step_loop(world, &settings, &outputs, &stop, &control_rx))
    };
    info!(
        modules = settings.world_module_count(),
        real_time_factor = settings.run.real_time_factor,
        max_sim_time = settings.run.max_sim_time,
        "tank_physics running"
    );
    let mut stepping = stepping;
    let summary = tokio::select! {
        signal = fros::shutdown_signal() => {
            let signal = signal.context("installing signal handlers")?;
            info!(signal, "shutting down");
            stop.store(true, Ordering::Release);
            stepping.await.context("physics thread")?
        }
        done = &mut stepping => done.context("physics thread")?,
    };
    spinner.stop();
    drop(node);
    Ok(summary.to_string())
}

/// Steps the world, paced to the real time factor, publishing at the configured rates,
/// until `stop` or `max_sim_time`.
fn step_loop(
    mut world: World,
    settings: &NodeSettings,
    out: &Outputs,
    stop: &AtomicBool,
    control: &mpsc::Receiver<Control>,
) -> Summary {
    let start = Instant::now();
    let dt = world.config().dt;
    let state_every = steps_per_publish(settings.publish.state_rate, dt);
    let marker_every = steps_per_publish(settings.publish.marker_rate, dt);
    let rtf = settings.run.real_time_factor;
    let mut reason = "stopped on request";
    publish_markers(&world, out, &settings.publish.frame_id);
    while !stop.load(Ordering::Acquire) {
        while let Ok(msg) = control.try_recv() {
            match msg {
                Control::Params(cfg) => match world.set_hydro(cfg.hydro.clone()) {
                    Ok(()) => info!("hydrodynamic parameters updated"),
                    Err(e) => warn!("parameter update refused: {e}"),
                },
            }
        }
        world.step();
        let t = world.time();
        let n = world.step_count();
        if let Err(e) = out.clock.publish(&r2r::rosgraph_msgs::msg::Clock { clock: fros::time_msg(t) }) {
            warn!("publishing /clock: {e}");
        }
        if n % state_every == 0 {
            publish_state(&world, out, &settings.publish.frame_id);
        }
        if n % marker_every == 0 {
            publish_markers(&world, out, &settings.publish.frame_id);
        }
        if settings.run.max_sim_time > 0.0 && t + 0.5 * dt >= settings.run.max_sim_time {
            reason = "reached max_sim_time";
            break;
        }
        if rtf > 0.0 {
            let due = start + Duration::from_secs_f64(t / rtf);
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
    }
    let bodies = world.bodies();
    let outside = bodies.iter().filter(|b| !world.contains(b)).count();
    Summary {
        sim_time: world.time(),
        wall: start.elapsed(),
        steps: world.step_count(),
        modules: bodies.len(),
        outside,
        reason,
    }
}

fn steps_per_publish(rate_hz: f64, dt: f64) -> u64 {
    ((1.0 / (rate_hz * dt)).round() as u64).max(1)
}

fn publish_state(world: &World, out: &Outputs, frame: &str) {
    let t = world.time();
    let bodies = world.bodies();
    let header = fros::header(t, frame);
    let state = r2r::flotilla_msgs::msg::TankState {
        header: header.clone(),
        step: world.step_count(),
        sim_time: t,
        water_level: world.config().arena.water_level,
        pump_power: world.pump_power().to_vec(),
        modules: bodies.iter().map(module_state).collect(),
    };
    if let Err(e) = out.state.publish(&state) {
        warn!("publishing /tank/state: {e}");
    }
    let tf = r2r::tf2_msgs::msg::TFMessage {
        transforms: bodies
            .iter()
            .map(|b| r2r::geometry_msgs::msg::TransformStamped {
                header: header.clone(),
                child_frame_id: format!("{}/base_link", b.name),
                transform: fros::transform_msg(&b.pose),
            })
            .collect(),
    };
    if let Err(e) = out.tf.publish(&tf) {
        warn!("publishing /tf: {e}");
    }
}

fn module_state(b: &BodyState) -> r2r::flotilla_msgs::msg::ModuleState {
    r2r::flotilla_msgs::msg::ModuleState {
        id: b.id,
        name: b.name.clone(),
        kind: b.kind.name().to_owned(),
        pose: fros::pose_msg(&b.pose),
        twist: r2r::geometry_msgs::msg::Twist {
            linear: fros::vector_msg(&b.linvel),
            angular: fros::vector_msg(&b.angvel),
        },
        latches: Vec::new(),
        thrusters: Vec::new(),
    }
}

fn publish_markers(world: &World, out: &Outputs, frame: &str) {
    let msg = markers::world_markers(world, frame);
    if let Err(e) = out.markers.publish(&msg) {
        warn!("publishing /tank/markers: {e}");
    }
}
