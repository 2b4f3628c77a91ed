//! The ROS 2 side of `tank_physics`: parameters, topics, services, the stepping thread,
//! shutdown.
//!
//! Threads: the physics steps on its own thread (CPU bound, paced to the requested real
//! time factor) and publishes directly; the node is spun on the [`Spinner`] thread; tokio
//! serves the services and the robots' `cmd` subscriptions and turns them into messages
//! for the stepping thread ([`Message`]: pause and step, which the shared loop
//! [`stepping::run`] handles, or the node's own [`Control`]), which answers through
//! oneshot channels. Shutdown stops the physics thread, then the spinner, then drops the
//! node.

use crate::{flow, frames, markers, recording, robots, services, settings};
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use flotilla_common::models::prefixed_frame;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use r2r::QosProfile;
use tank_physics::rate::due;
use tank_physics::stepping::{self, LockStep, Message, Stepper, Timeline};
use tank_physics::{BodyState, World, WorldConfig};
use tokio::sync::oneshot;
use tracing::{info, warn};

pub use settings::NodeSettings;

/// Publishers the stepping thread uses.
struct Outputs {
    clock: r2r::Publisher<r2r::rosgraph_msgs::msg::Clock>,
    state: r2r::Publisher<r2r::flotilla_msgs::msg::TankState>,
    tf: r2r::Publisher<r2r::tf2_msgs::msg::TFMessage>,
    markers: r2r::Publisher<r2r::visualization_msgs::msg::MarkerArray>,
    flow: r2r::Publisher<r2r::flotilla_msgs::msg::FlowField>,
    flow_markers: r2r::Publisher<r2r::visualization_msgs::msg::MarkerArray>,
    robots: robots::RobotOutputs,
}

/// What the node reports when it ends.
struct Summary {
    sim_time: f64,
    wall: Duration,
    steps: u64,
    modules: usize,
    outside: usize,
    reason: &'static str,
    /// Lock-step ticks whose commands did not all arrive in time.
    lockstep_timeouts: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let wall = self.wall.as_secs_f64();
        write!(
            f,
            "summary: {} after {:.2} s of sim time in {:.2} s wall ({:.1}x real time), {} steps, {} modules, {} outside the arena, \
             {} lock-step timeouts",
            self.reason,
            self.sim_time,
            wall,
            if wall > 0.0 { self.sim_time / wall } else { 0.0 },
            self.steps,
            self.modules,
            self.outside,
            self.lockstep_timeouts
        )
    }
}

/// Answer to a world operation: a confirmation or the reason it was refused.
type Reply = oneshot::Sender<Result<String, String>>;

/// The node's own messages from ROS callbacks to the stepping thread (pause and step are
/// [`Message::Pause`] and [`Message::Step`]).
pub(crate) enum Control {
    /// Validated new parameter tree.
    Params(Box<WorldConfig>),
    /// Add a module.
    Spawn { kind: String, name: String, pose: tank_physics::PlanarPose, reply: oneshot::Sender<Result<(u32, String), String>> },
    /// Remove a module by name.
    Remove { name: String, reply: Reply },
    /// Back to the scenario's start (optionally with a new seed).
    Reset { seed: Option<u64>, reply: Reply },
    /// New pump powers, %.
    SetPumps { power: Vec<f64>, reply: Reply },
    /// A robot's command, stamped with the sim time of the reading it answers (s).
    Command { name: String, stamp: f64, command: flotilla_contract::Actuation },
    /// A base-station radio payload for one robot ("" = every robot).
    Radio { robot: String, payload: Vec<u8> },
}

/// Runs the node until SIGINT/SIGTERM or `run.max_sim_time`; returns the summary line.
pub async fn run(startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    let world = World::new(settings.world.clone(), settings.world.seed).context("building the world from the parameters")?;
    let recording = recording::Recording::open(&settings.record)?;
    let mut node = startup.create_node()?;
    let latched = QosProfile::default().transient_local().keep_last(1);
    let (control_tx, control_rx) = mpsc::channel();
    let lockstep = settings.run.lockstep.then_some(settings.lockstep_timeout);
    // The modules' link frames go with their descriptions: both are for rviz's RobotModel.
    let frames = if settings.publish.robot_descriptions { Some(Arc::new(frames::ModuleFrames::new()?)) } else { None };
    let (robot_io, robot_outputs) =
        robots::RobotIo::new(&mut node, control_tx.clone(), lockstep, settings.robots.interface, frames.clone())?;
    let outputs = Outputs {
        clock: node.create_publisher("/clock", QosProfile::default())?,
        state: node.create_publisher("/tank/state", QosProfile::default())?,
        tf: node.create_publisher("/tf", QosProfile::default())?,
        markers: node.create_publisher("/tank/markers", latched.clone())?,
        flow: node.create_publisher("/tank/flow_field", latched.clone())?,
        flow_markers: node.create_publisher("/tank/flow_markers", latched)?,
        robots: robot_outputs,
    };
    // /tank/pause before the other services, as before the shared stepping loop: a client
    // that waited for /tank/step then calls /tank/pause.
    fros::serve_pause(&mut node, control_tx.clone(), Message::Pause, services::GONE)?;
    services::serve(&mut node, control_tx.clone())?;
    robot_io.sync(&mut node, &world.bodies(), world.time());
    let mut updates = startup.param_updates();
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    let params_tx = control_tx.clone();
    tokio::spawn(async move {
        while updates.changed().await.is_ok() {
            let tree = updates.borrow_and_update().clone();
            match NodeSettings::from_tree(&tree) {
                Ok(s) => {
                    if params_tx.send(Message::Node(Control::Params(Box::new(s.world)))).is_err() {
                        break;
                    }
                }
                Err(e) => warn!("parameter update ignored: {e}"),
            }
        }
    });
    // The stepping thread reports module set changes (the modules, sim time) so per-robot
    // topics and the static link frames follow them.
    let (bodies_tx, mut bodies_rx) = tokio::sync::mpsc::unbounded_channel::<(Vec<BodyState>, f64)>();
    {
        let node = node.clone();
        tokio::spawn(async move {
            while let Some((bodies, seconds)) = bodies_rx.recv().await {
                if let Ok(mut n) = node.lock() {
                    robot_io.sync(&mut n, &bodies, seconds);
                }
            }
        });
    }

    let stop = Arc::new(AtomicBool::new(false));
    let stepping = {
        let stop = stop.clone();
        let settings = settings.clone();
        tokio::task::spawn_blocking(move || {
            let mut sim = Sim { world, settings, recording, out: outputs, bodies_tx, frames };
            sim.run(&stop, &control_rx)
        })
    };
    info!(
        modules = settings.world_module_count(),
        real_time_factor = settings.run.real_time_factor,
        max_sim_time = settings.run.max_sim_time,
        "tank_physics running"
    );
    let summary = fros::until_done_or_signal(stepping, &stop, "physics thread").await?;
    spinner.stop();
    fros::release_node(node);
    Ok(summary.to_string())
}

/// The stepping thread's state.
struct Sim {
    world: World,
    settings: NodeSettings,
    recording: recording::Recording,
    out: Outputs,
    bodies_tx: tokio::sync::mpsc::UnboundedSender<(Vec<BodyState>, f64)>,
    /// The modules' link frames (movable joints go on `/tf`); `None` when
    /// `publish.robot_descriptions` is false.
    frames: Option<Arc<frames::ModuleFrames>>,
}

impl Stepper for Sim {
    type Control = Control;

    fn time(&self) -> f64 {
        self.world.time()
    }

    fn start(&mut self) {
        self.publish_world_description();
        self.publish_state();
        let start = self.world.time();
        self.out.robots.publish(&mut self.world, start);
    }

    fn handle(&mut self, msg: Control) -> Timeline {
        let mut bodies_changed = false;
        let mut timeline = Timeline::Continues;
        match msg {
            Control::Params(cfg) => match self.world.set_hydro(cfg.hydro.clone()) {
                Ok(()) => info!("hydrodynamic parameters updated"),
                Err(e) => warn!("parameter update refused: {e}"),
            },
            Control::Spawn { kind, name, pose, reply } => {
                let result = kind.parse::<flotilla_common::catalogue::ModuleKind>().map_err(|e| e.to_string()).and_then(|kind| {
                    let name = if name.is_empty() { format!("{}_{}", kind.name(), self.world.body_count()) } else { name };
                    self.world.spawn(kind, pose, &name).map(|id| (id, name)).map_err(|e| e.to_string())
                });
                bodies_changed = result.is_ok();
                let _ = reply.send(result);
            }
            Control::Remove { name, reply } => {
                let result = match self.world.id_of(&name) {
                    None => Err(format!("no module named `{name}`")),
                    Some(id) => {
                        self.out.robots.forget(id);
                        self.world.remove(id).map(|_| format!("removed {name}")).map_err(|e| e.to_string())
                    }
                };
                bodies_changed = result.is_ok();
                let _ = reply.send(result);
            }
            Control::Reset { seed, reply } => {
                let seed = seed.unwrap_or(self.world.seed());
                let result = self.world.reset(seed).map(|_| format!("reset with seed {seed}")).map_err(|e| e.to_string());
                if result.is_ok() {
                    self.out.robots.reset();
                    self.recording.restart();
                    timeline = Timeline::Restarted;
                    self.publish_world_description();
                }
                bodies_changed = result.is_ok();
                let _ = reply.send(result);
            }
            Control::SetPumps { power, reply } => {
                let result = self.world.set_pumps(&power).map(|_| "pumps set".to_owned()).map_err(|e| e.to_string());
                if result.is_ok() {
                    self.publish_world_description();
                }
                let _ = reply.send(result);
            }
            Control::Command { name, stamp, command } => self.out.robots.command(&mut self.world, &name, stamp, command),
            Control::Radio { robot, payload } => self.out.robots.radio(&self.world, &robot, &payload),
        }
        if bodies_changed {
            let _ = self.bodies_tx.send((self.world.bodies(), self.world.time()));
            self.publish_state();
            self.publish_markers();
        }
        timeline
    }

    /// Markers made only for subscribers: the latched copy is current while paused.
    fn pause(&mut self, paused: bool) {
        if paused {
            self.publish_markers();
        }
    }

    fn lockstep(&mut self) -> &mut LockStep {
        self.out.robots.lockstep()
    }

    /// The open tick's readings again to the silent robots, then the world state, which
    /// controllers need to know their robots (a controller that started late).
    fn resend(&mut self) {
        self.out.robots.resend();
        self.publish_state();
    }

    /// The commands that did arrive are applied; the silent robots are named.
    fn timed_out(&mut self, _stamp: f64, _missing: usize) {
        self.out.robots.give_up(&mut self.world);
    }

    /// One physics step and whatever is due on the topics and in the recording.
    fn step(&mut self) {
        self.world.step();
        // The trajectory frame is on disk before this step's state is published.
        self.recording.step(&self.world);
        let dt = self.world.config().dt;
        let t = self.world.time();
        let p = self.settings.publish.clone();
        if let Err(e) = self.out.clock.publish(&r2r::rosgraph_msgs::msg::Clock { clock: fros::time_msg(t) }) {
            warn!("publishing /clock: {e}");
        }
        if due(p.state_rate, t, dt) {
            self.publish_state();
        }
        if due(p.sensor_rate, t, dt) {
            self.out.robots.publish(&mut self.world, t);
        }
        // Markers are for a viewer: with no subscriber (a swarm run without rviz) the
        // thousands of markers are not made (docs/swarm_scale.md).
        if due(p.marker_rate, t, dt) && fros::listened(&self.out.markers) {
            self.publish_markers();
        }
    }
}

impl Sim {
    /// Steps the world ([`stepping::run`]) until `stop` or `max_sim_time`; the summary.
    fn run(&mut self, stop: &AtomicBool, control: &mpsc::Receiver<Message<Control>>) -> Summary {
        let (run, dt) = (self.settings.run.clone(), self.world.config().dt);
        let ended = stepping::run(self, &run, dt, stop, control);
        self.recording.finish();
        let bodies = self.world.bodies();
        Summary {
            sim_time: self.world.time(),
            wall: ended.wall,
            steps: self.world.step_count(),
            modules: bodies.len(),
            outside: bodies.iter().filter(|b| !self.world.contains(b)).count(),
            reason: ended.reason,
            lockstep_timeouts: self.out.robots.lockstep().timeouts(),
        }
    }

    /// The latched descriptions: markers and the flow field.
    fn publish_world_description(&mut self) {
        self.publish_markers();
        let msg = fros::flow_field_msg(self.world.flow_field(), self.world.time(), &self.settings.publish.frame_id);
        // Written (and flushed) before it is published: a kill between the two loses
        // nothing a subscriber saw.
        self.recording.flow(&msg, self.world.time());
        if let Err(e) = self.out.flow.publish(&msg) {
            warn!("publishing /tank/flow_field: {e}");
        }
        // The arrows change only with the field: their own latched topic, not re-sent with
        // the bodies' markers (hundreds of arrows at the marker rate cost more than physics).
        let frame = &self.settings.publish.frame_id;
        let z = self.world.arena().surface_z.unwrap_or(0.0);
        let arrows =
            r2r::visualization_msgs::msg::MarkerArray { markers: flow::flow_arrows(self.world.flow_field(), self.world.time(), frame, z) };
        if let Err(e) = self.out.flow_markers.publish(&arrows) {
            warn!("publishing /tank/flow_markers: {e}");
        }
    }

    /// `/tank/state` and `/tf`, each made only when someone listens or the bag records it
    /// (every module at 30 Hz costs more than the physics of a swarm: docs/swarm_scale.md).
    fn publish_state(&mut self) {
        let recording = self.recording.records_states();
        let (state_wanted, tf_wanted) = (recording || fros::listened(&self.out.state), recording || fros::listened(&self.out.tf));
        if !state_wanted && !tf_wanted {
            return;
        }
        let world = &self.world;
        let frame = &self.settings.publish.frame_id;
        let t = world.time();
        let bodies = world.bodies();
        let header = fros::header(t, frame);
        let state = state_wanted.then(|| tank_state(world, &bodies, header.clone()));
        let tf = tf_wanted.then(|| tf_message(&bodies, &header, t, self.frames.as_deref()));
        // Write before publish: whatever a subscriber received is already in the bag.
        if let (true, Some(state), Some(tf)) = (recording, &state, &tf) {
            self.recording.state(state, tf, t);
        }
        if let Some(Err(e)) = state.as_ref().map(|m| self.out.state.publish(m)) {
            warn!("publishing /tank/state: {e}");
        }
        if let Some(Err(e)) = tf.as_ref().map(|m| self.out.tf.publish(m)) {
            warn!("publishing /tf: {e}");
        }
    }

    fn publish_markers(&self) {
        let msg = markers::world_markers(&self.world, &self.settings.publish.frame_id);
        if let Err(e) = self.out.markers.publish(&msg) {
            warn!("publishing /tank/markers: {e}");
        }
    }
}

/// `/tank/state`: every module of `world` (`bodies`).
fn tank_state(world: &World, bodies: &[BodyState], header: r2r::std_msgs::msg::Header) -> r2r::flotilla_msgs::msg::TankState {
    let t = world.time();
    r2r::flotilla_msgs::msg::TankState {
        header,
        step: world.step_count(),
        sim_time: t,
        water_level: world.config().arena.water_level,
        pump_power: world.pump_power().to_vec(),
        modules: {
            let names: std::collections::HashMap<u32, &str> = bodies.iter().map(|b| (b.id, b.name.as_str())).collect();
            bodies.iter().map(|b| module_state(b, &names)).collect()
        },
    }
}

/// `/tf` at `t` (s of sim time): `world` -> `<name>/base_link` of every module, then (with
/// `frames`) every module's movable joints at position zero.
fn tf_message(
    bodies: &[BodyState],
    header: &r2r::std_msgs::msg::Header,
    t: f64,
    frames: Option<&frames::ModuleFrames>,
) -> r2r::tf2_msgs::msg::TFMessage {
    let poses = bodies.iter().map(|b| r2r::geometry_msgs::msg::TransformStamped {
        header: header.clone(),
        child_frame_id: prefixed_frame(&b.name, "base_link"),
        transform: fros::transform_msg(&b.pose),
    });
    let joints = frames.into_iter().flat_map(|f| f.moving(bodies, t));
    r2r::tf2_msgs::msg::TFMessage { transforms: poses.chain(joints).collect() }
}

fn module_state(b: &BodyState, names: &std::collections::HashMap<u32, &str>) -> r2r::flotilla_msgs::msg::ModuleState {
    let max_thrust = b.kind.spec().faces.iter().filter_map(|f| f.thruster.map(|t| t.force)).fold(0.0, f64::max);
    r2r::flotilla_msgs::msg::ModuleState {
        id: b.id,
        name: b.name.clone(),
        kind: b.kind.name().to_owned(),
        pose: fros::pose_msg(&b.pose),
        twist: r2r::geometry_msgs::msg::Twist { linear: fros::vector_msg(&b.linvel), angular: fros::vector_msg(&b.angvel) },
        latches: robots::latch_states(b, names),
        thrusters: b
            .faces
            .iter()
            .filter(|f| f.has_thruster)
            .map(|f| if f.thruster_on && !f.thruster_failed { max_thrust } else { 0.0 })
            .collect(),
    }
}
