//! The ROS 2 side of `kilobot_table`: the table steps on its own thread, paced to the real
//! time factor, and publishes `/clock`, `/tank/state` (every robot as a `kilobot` module,
//! so the overhead camera and tracker work on the table as on a tank), `/tf` and
//! `/tank/markers`, and every robot's reading in one `flotilla_msgs/KilobotSensorsBatch` on
//! `/kilobot/sensors`, each when someone listens; commands come in batches on
//! `/kilobot/cmd` (any number per tick, `robots[i]` + `commands[i]`). With `run.lockstep`
//! the table waits after each sensor batch until every robot answered it.
//!
//! With `robots.placement: topic` the node waits for a scenario to put the robots down
//! (`flotilla_msgs/KilobotPlacement` on `/kilobot/placement`, e.g. from `kilobot_swarm`);
//! a placement the table refuses is logged and the node keeps waiting. The overhead
//! controller's broadcasts (`flotilla_msgs/KilobotOverhead` on `/kilobot/overhead`: run,
//! pause, custom) reach every robot with the next sensor batch.
//!
//! `/tank/state` and `/kilobot/sensors` are serialised by the node itself ([`crate::wire`],
//! checked against the middleware's serialiser at start-up) and published raw; when the
//! middleware's bytes differ the node publishes the messages the usual way.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc, Mutex};

use anyhow::Context as _;
use flotilla_common::catalogue::ModuleKind;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use flotilla_common::ros_contract::{overhead_wire, RosBatch};
use flotilla_contract::kilobot::{Kilobot, KilobotCommand, Overhead};
use futures::StreamExt;
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use r2r::flotilla_msgs::msg::{KilobotCommandBatch, KilobotOverhead, KilobotPlacement, KilobotSensorsBatch, ModuleState, TankState};
use r2r::geometry_msgs::msg::{Point, Quaternion};
use r2r::std_msgs::msg::ColorRGBA;
use r2r::visualization_msgs::msg::{Marker, MarkerArray};
use r2r::QosProfile;
use tank_physics::rate::due;
use tank_physics::stepping::{self, LockStep, Message, Refusals, Stepper, Timeline};
use tank_physics::systems::kilobot::{KilobotTable, Pose, WORLD_UNIT_M};
use tracing::{error, info, warn};

use crate::settings::{NodeSettings, Placement};
use crate::wire::{self, Readings, SensorsWire, StateWire};

/// Commands of one batch: (robot, command, stamp of the reading it answers in s).
type Commands = Vec<(String, KilobotCommand, f64)>;

/// Messages from ROS callbacks to the stepping thread.
enum Control {
    /// A command batch.
    Commands(Commands),
    /// An overhead controller broadcast for every robot's next reading.
    Overhead(Overhead),
}

/// Publishers the stepping thread uses.
struct Outputs {
    clock: r2r::Publisher<r2r::rosgraph_msgs::msg::Clock>,
    tf: r2r::Publisher<r2r::tf2_msgs::msg::TFMessage>,
    markers: r2r::Publisher<MarkerArray>,
    batches: Batches,
}

/// How `/tank/state` and `/kilobot/sensors` go out.
enum Batches {
    /// Serialised by [`wire`] and published raw.
    Raw(Box<Raw>),
    /// The messages through the middleware's serialiser: [`wire`] does not match it.
    Typed { state: r2r::Publisher<TankState>, sensors: r2r::Publisher<KilobotSensorsBatch> },
}

/// The raw publishers and what they publish (made at the first publication).
struct Raw {
    state: r2r::PublisherUntyped,
    sensors: r2r::PublisherUntyped,
    state_wire: Option<StateWire>,
    sensors_wire: Option<SensorsWire>,
    /// Each robot's orientation in the state with the bits of the heading it is of.
    orientations: Vec<(u64, Quaternion)>,
}

impl Batches {
    fn new(node: &mut r2r::Node) -> anyhow::Result<Self> {
        let qos = QosProfile::default;
        Ok(match wire::matches_middleware() {
            Ok(()) => Batches::Raw(Box::new(Raw {
                state: node.create_publisher_untyped("/tank/state", "flotilla_msgs/msg/TankState", qos())?,
                sensors: node.create_publisher_untyped("/kilobot/sensors", "flotilla_msgs/msg/KilobotSensorsBatch", qos())?,
                state_wire: None,
                sensors_wire: None,
                orientations: Vec::new(),
            })),
            Err(e) => {
                warn!("publishing /tank/state and /kilobot/sensors through the middleware's serialiser: {e}");
                Batches::Typed {
                    state: node.create_publisher("/tank/state", qos())?,
                    sensors: node.create_publisher("/kilobot/sensors", qos())?,
                }
            }
        })
    }

    /// Whether `/tank/state` has a subscriber in another process (true when unknown).
    fn state_listened(&self) -> bool {
        match self {
            Batches::Raw(raw) => raw.state.get_inter_process_subscription_count().map_or(true, |n| n > 0),
            Batches::Typed { state, .. } => fros::listened(state),
        }
    }

    /// Whether `/kilobot/sensors` has a subscriber in another process (true when unknown).
    fn sensors_listened(&self) -> bool {
        match self {
            Batches::Raw(raw) => raw.sensors.get_inter_process_subscription_count().map_or(true, |n| n > 0),
            Batches::Typed { sensors, .. } => fros::listened(sensors),
        }
    }
}

/// Runs the node until SIGINT/SIGTERM or `run.max_sim_time`; returns the summary line.
pub async fn run(startup: Startup, mut settings: NodeSettings) -> anyhow::Result<String> {
    let mut node = startup.create_node()?;
    if settings.placement == Placement::Topic {
        let mut placements =
            node.subscribe::<KilobotPlacement>("/kilobot/placement", QosProfile::default().transient_local().keep_last(1))?;
        info!(topic = "/kilobot/placement", "waiting for the robots to be placed");
        let shared = Arc::new(Mutex::new(node));
        let spinner = Spinner::start(shared.clone());
        let placed = tokio::select! {
            signal = fros::shutdown_signal() => {
                info!(signal = signal.context("installing signal handlers")?, "shutting down before any robot was placed");
                None
            }
            placed = accept_placement(&mut placements, &settings) => placed,
        };
        spinner.stop();
        let Some((poses, names, anchored)) = placed else {
            return Ok("summary: stopped on request before any robot was placed".into());
        };
        (settings.poses, settings.names, settings.anchored) = (poses, names, anchored);
        drop(placements);
        node = Arc::try_unwrap(shared)
            .map_err(|_| anyhow::anyhow!("the node is still shared"))?
            .into_inner()
            .map_err(|_| anyhow::anyhow!("node lock poisoned"))?;
    }
    let mut table = KilobotTable::new(settings.table, &settings.poses, settings.seed).context("building the table from the parameters")?;
    settings.anchored.iter().enumerate().filter(|(_, a)| **a).for_each(|(i, _)| table.set_anchored(i, true));
    let outputs = Outputs {
        clock: node.create_publisher("/clock", QosProfile::default())?,
        tf: node.create_publisher("/tf", QosProfile::default())?,
        markers: node.create_publisher("/tank/markers", QosProfile::default().transient_local().keep_last(1))?,
        batches: Batches::new(&mut node)?,
    };
    let mut batches = node.subscribe::<KilobotCommandBatch>("/kilobot/cmd", QosProfile::default())?;
    let mut overhead = node.subscribe::<KilobotOverhead>("/kilobot/overhead", QosProfile::default())?;
    let (control_tx, control_rx) = mpsc::channel::<Message<Control>>();
    let overhead_tx = control_tx.clone();
    tokio::spawn(async move {
        while let Some(msg) = overhead.next().await {
            match Overhead::from_wire(msg.command, &msg.payload) {
                Ok(Some(o)) => {
                    info!(topic = "/kilobot/overhead", command = msg.command, "overhead controller broadcast");
                    if overhead_tx.send(Message::Node(Control::Overhead(o))).is_err() {
                        break;
                    }
                }
                Ok(None) => warn!(topic = "/kilobot/overhead", "overhead message with command 0 (none) ignored"),
                Err(e) => warn!(topic = "/kilobot/overhead", "overhead message refused: {e}"),
            }
        }
    });
    fros::serve_pause(&mut node, control_tx.clone(), Message::Pause, "the table has stopped")?;
    tokio::spawn(async move {
        while let Some(batch) = batches.next().await {
            let (stamp, commands) = match Kilobot::commands_from_batch(batch) {
                Ok(batch) => batch,
                Err(e) => {
                    warn!(topic = "/kilobot/cmd", "command batch dropped: {e}");
                    continue;
                }
            };
            let commands = commands.into_iter().map(|(robot, command)| (robot, command, stamp)).collect();
            if control_tx.send(Message::Node(Control::Commands(commands))).is_err() {
                break;
            }
        }
    });
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let (robots, real_time_factor) = (settings.names.len(), settings.run.real_time_factor);
    let stepping = {
        let stop = stop.clone();
        tokio::task::spawn_blocking(move || {
            let index = settings.names.iter().enumerate().map(|(i, n)| (n.clone(), i)).collect();
            let lockstep = LockStep::new(settings.run.lockstep.then_some(settings.lockstep_timeout));
            let (readings, refused) = (Readings::default(), Refusals::default());
            let mut sim = Sim { table, settings, out: outputs, index, readings, lockstep, refused, overhead: None };
            sim.run(&stop, &control_rx)
        })
    };
    info!(robots, real_time_factor, "kilobot_table running");
    let summary = fros::until_done_or_signal(stepping, &stop, "table thread").await?;
    spinner.stop();
    fros::release_node(node);
    Ok(summary)
}

/// The stepping thread's state.
struct Sim {
    table: KilobotTable,
    settings: NodeSettings,
    out: Outputs,
    index: HashMap<String, usize>,
    /// Reused for every sensor batch.
    readings: Readings,
    lockstep: LockStep,
    /// Commands refused (unknown robot, out of range), for the summary.
    refused: Refusals,
    /// The overhead broadcast waiting for the next sensor batch.
    overhead: Option<Overhead>,
}

impl Stepper for Sim {
    type Control = Control;

    fn time(&self) -> f64 {
        self.table.time()
    }

    fn start(&mut self) {
        self.publish_state();
        self.publish_markers();
        self.publish_sensors();
    }

    fn handle(&mut self, msg: Control) -> Timeline {
        match msg {
            Control::Commands(batch) => self.take(batch),
            Control::Overhead(o) => self.overhead = Some(o),
        }
        Timeline::Continues
    }

    /// Markers made only for subscribers: the latched copy is current while paused.
    fn pause(&mut self, paused: bool) {
        if paused {
            self.publish_markers();
        }
    }

    fn lockstep(&mut self) -> &mut LockStep {
        &mut self.lockstep
    }

    fn step(&mut self) {
        self.table.step();
        let (t, dt) = (self.table.time(), self.table.config().step_duration);
        fros::publish_clock(&self.out.clock, t);
        let p = &self.settings.publish;
        let (state, sensors, markers) = (due(p.state_rate, t, dt), due(p.sensor_rate, t, dt), due(p.marker_rate, t, dt));
        if state {
            self.publish_state();
        }
        if sensors {
            self.publish_sensors();
        }
        if markers && fros::listened(&self.out.markers) {
            self.publish_markers();
        }
    }
}

impl Sim {
    fn run(&mut self, stop: &AtomicBool, control: &mpsc::Receiver<Message<Control>>) -> String {
        let (run, dt) = (self.settings.run.clone(), self.table.config().step_duration);
        let ended = stepping::run(self, &run, dt, stop, control);
        let t = self.table.time();
        format!(
            "summary: {} after {t:.2} s of sim time ({} steps) in {:.2} s wall ({:.1}x real time), {} robots, {} failed, \
             {} collisions, {} transmissions, {} refused commands, {} lock-step timeouts",
            ended.reason,
            self.table.steps(),
            ended.wall.as_secs_f64(),
            ended.speed(t),
            self.table.len(),
            self.table.failed_count(),
            self.table.collisions(),
            self.table.transmissions(),
            self.refused.count(),
            self.lockstep.timeouts()
        )
    }

    /// Applies a batch of commands; refusals are logged, the rest applied.
    fn take(&mut self, batch: Commands) {
        for (robot, command, stamp) in batch {
            let Some(&i) = self.index.get(&robot) else {
                self.refused.refuse(format_args!("command for `{robot}`: no such robot on the table"));
                continue;
            };
            if let Err(e) = command.validate(&robot) {
                self.refused.refuse(e);
                continue;
            }
            if let Err(e) = self.table.apply(i, &command) {
                self.refused.refuse(e);
                continue;
            }
            self.lockstep.answer(i, stamp);
        }
    }

    /// Every robot's reading in one batch; in lock step, opens the tick it starts.
    fn publish_sensors(&mut self) {
        // Read whether or not anyone listens: the reading decides the step's transmissions
        // (from the run's random stream on a shared channel) and counts them.
        read_flat(&mut self.table, &mut self.readings);
        // The overhead controller reaches every robot at once, with this reading only.
        let (command, payload) = overhead_wire(self.overhead.take());
        let t = self.table.time();
        let stamp = fros::time_msg(t);
        let published = match &mut self.out.batches {
            // Nobody to hear it: not serialised (a batch is ~0.6 MB at 1024 robots).
            batches if !batches.sensors_listened() => Ok(()),
            Batches::Raw(raw) => {
                let names = &self.settings.names;
                let batch = raw.sensors_wire.get_or_insert_with(|| SensorsWire::new("", names));
                raw.sensors.publish_raw(batch.write(&stamp, &self.readings, command, &payload))
            }
            Batches::Typed { sensors, .. } => sensors.publish(&self.readings.message(stamp, &self.settings.names, command, payload)),
        };
        if let Err(e) = published {
            warn!("publishing /kilobot/sensors: {e}");
        }
        if self.lockstep.enabled() {
            self.lockstep.open(flotilla_contract::stamp_seconds(t), vec![false; self.table.len()]);
        }
    }

    /// Robot `i`'s pose in the world frame, m.
    fn pose(&self, i: usize) -> Isometry3<f64> {
        world_pose(self.table.pose(i))
    }

    /// `/tank/state` and `/tf`, each only when someone listens.
    fn publish_state(&mut self) {
        let (state_wanted, tf_wanted) = (self.out.batches.state_listened(), fros::listened(&self.out.tf));
        if !state_wanted && !tf_wanted {
            return;
        }
        let t = self.table.time();
        if state_wanted {
            let published = match &mut self.out.batches {
                Batches::Raw(raw) => {
                    let (table, settings) = (&self.table, &self.settings);
                    let msg = raw.state_wire.get_or_insert_with(|| StateWire::new(&state_msg(table, settings)));
                    write_poses(msg, &mut raw.orientations, table);
                    raw.state.publish_raw(msg.bytes())
                }
                Batches::Typed { state, .. } => state.publish(&state_msg(&self.table, &self.settings)),
            };
            if let Err(e) = published {
                warn!("publishing /tank/state: {e}");
            }
        }
        if tf_wanted {
            let header = fros::header(t, &self.settings.publish.frame_id);
            let transforms = (0..self.table.len())
                .zip(&self.settings.names)
                .map(|(i, name)| r2r::geometry_msgs::msg::TransformStamped {
                    header: header.clone(),
                    child_frame_id: format!("{name}/base_link"),
                    transform: fros::transform_msg(&self.pose(i)),
                })
                .collect();
            if let Err(e) = self.out.tf.publish(&r2r::tf2_msgs::msg::TFMessage { transforms }) {
                warn!("publishing /tf: {e}");
            }
        }
    }

    /// `/tank/markers`: every robot as one sphere list coloured by its LED (grey when off),
    /// the colour a Kilobot program shows its state with; failed robots dark red.
    fn publish_markers(&self) {
        let t = self.table.time();
        let frame = &self.settings.publish.frame_id;
        let diameter = 2.0 * ModuleKind::Kilobot.spec().shape.horizontal_radius();
        let mut robots = fros::marker(t, frame, "kilobots", 0, Marker::SPHERE_LIST as i32);
        robots.scale = r2r::geometry_msgs::msg::Vector3 { x: diameter, y: diameter, z: 0.3 * diameter };
        robots.color = fros::rgba(1.0, 1.0, 1.0, 1.0);
        for i in 0..self.table.len() {
            let pose = self.pose(i);
            robots.points.push(Point { x: pose.translation.x, y: pose.translation.y, z: pose.translation.z });
            let [r, g, b] = self.table.led(i);
            let colour = if self.table.failed(i) {
                ColorRGBA { r: 0.4, g: 0.0, b: 0.0, a: 1.0 }
            } else if r + g + b <= 0.0 {
                ColorRGBA { r: 0.5, g: 0.5, b: 0.5, a: 1.0 }
            } else {
                ColorRGBA { r: r as f32, g: g as f32, b: b as f32, a: 1.0 }
            };
            robots.colors.push(colour);
        }
        if let Err(e) = self.out.markers.publish(&MarkerArray { markers: vec![robots] }) {
            warn!("publishing /tank/markers: {e}");
        }
    }
}

/// `/tank/state` now: every robot as a `kilobot` module (its index as id) at its pose.
fn state_msg(table: &KilobotTable, settings: &NodeSettings) -> TankState {
    let modules = (0..table.len())
        .zip(&settings.names)
        .map(|(i, name)| ModuleState {
            id: i as u32,
            name: name.clone(),
            kind: ModuleKind::Kilobot.name().to_owned(),
            pose: fros::pose_msg(&world_pose(table.pose(i))),
            ..Default::default()
        })
        .collect();
    // A dry table: no water (level 0 m relative to the rim), no pumps.
    TankState {
        header: fros::header(table.time(), &settings.publish.frame_id),
        step: table.steps(),
        sim_time: table.time(),
        water_level: 0.0,
        pump_power: Vec::new(),
        modules,
    }
}

/// Every robot's reading of the table's current step into `out`, laid out as the batch
/// carries it (the messages written straight into its arrays, not through a
/// [`flotilla_contract::kilobot::KilobotSensors`] per robot).
fn read_flat(table: &mut KilobotTable, out: &mut Readings) {
    out.clear();
    let n = table.len();
    out.ticks.resize(n, table.ticks());
    out.light.resize(n, table.config().ambient_light);
    for i in 0..n {
        let before = out.distances.len();
        let (payloads, distances) = (&mut out.payloads, &mut out.distances);
        table.read_messages(i, |payload, distance| {
            payloads.extend_from_slice(payload);
            distances.push(distance);
        });
        out.counts.push((out.distances.len() - before) as u32);
    }
}

/// A table pose (world units) in the world frame, m, the body's centre half its height up.
fn world_pose(p: Pose) -> Isometry3<f64> {
    let half_height = ModuleKind::Kilobot.spec().shape.half_height();
    Isometry3::from_parts(
        Translation3::new(p.x * WORLD_UNIT_M, p.y * WORLD_UNIT_M, half_height),
        UnitQuaternion::from_axis_angle(&Vector3::z_axis(), p.theta),
    )
}

/// The table's time and every robot's pose into the serialised state: as
/// [`world_pose`], the orientation made again only for a robot whose heading changed
/// (`orientations` keeps them between publications; most robots do not turn).
fn write_poses(msg: &mut StateWire, orientations: &mut Vec<(u64, Quaternion)>, table: &KilobotTable) {
    let t = table.time();
    msg.set_time(&fros::time_msg(t), table.steps(), t);
    let half_height = ModuleKind::Kilobot.spec().shape.half_height();
    // NaN bits: no heading has them, so every orientation is made at the first publication.
    orientations.resize(msg.len(), (u64::MAX, Quaternion::default()));
    for (i, (heading, orientation)) in orientations.iter_mut().enumerate() {
        let p = table.pose(i);
        if *heading != p.theta.to_bits() {
            (*heading, *orientation) = (p.theta.to_bits(), fros::pose_msg(&world_pose(p)).orientation);
        }
        let position = Point { x: p.x * WORLD_UNIT_M, y: p.y * WORLD_UNIT_M, z: half_height };
        msg.set_pose(i, &r2r::geometry_msgs::msg::Pose { position, orientation: orientation.clone() });
    }
}

/// The first placement the table accepts, as (poses in world units, names, anchored);
/// `None` when the subscription ends. A refused placement is logged and the node waits on.
async fn accept_placement(
    placements: &mut (impl futures::Stream<Item = KilobotPlacement> + Unpin),
    settings: &NodeSettings,
) -> Option<(Vec<Pose>, Vec<String>, Vec<bool>)> {
    while let Some(msg) = placements.next().await {
        match check_placement(msg, settings) {
            Ok(placed) => {
                info!(robots = placed.0.len(), anchored = placed.2.iter().filter(|a| **a).count(), "robots placed");
                return Some(placed);
            }
            Err(e) => error!(topic = "/kilobot/placement", "placement refused, still waiting: {e}"),
        }
    }
    None
}

/// A placement message as start poses, or why the table refuses it.
fn check_placement(msg: KilobotPlacement, settings: &NodeSettings) -> anyhow::Result<(Vec<Pose>, Vec<String>, Vec<bool>)> {
    let n = msg.robots.len();
    for (field, len) in [("x", msg.x.len()), ("y", msg.y.len()), ("theta", msg.theta.len()), ("anchored", msg.anchored.len())] {
        anyhow::ensure!(len == n, "`{field}` has {len} entries for {n} robots");
    }
    anyhow::ensure!(n > 0, "no robot");
    anyhow::ensure!(n <= crate::settings::MAX_ROBOTS, "{n} robots: at most {}", crate::settings::MAX_ROBOTS);
    let mut seen = std::collections::HashSet::with_capacity(n);
    for name in &msg.robots {
        let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        anyhow::ensure!(ok, "robot name `{name}`: must be letters, digits or `_`");
        anyhow::ensure!(seen.insert(name.as_str()), "robot `{name}` placed twice");
    }
    let poses: Vec<Pose> = (0..n).map(|i| Pose { x: msg.x[i] / WORLD_UNIT_M, y: msg.y[i] / WORLD_UNIT_M, theta: msg.theta[i] }).collect();
    KilobotTable::new(settings.table, &poses, settings.seed)?;
    Ok((poses, msg.robots, msg.anchored))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_contract::kilobot::KilobotSensors;
    use r2r::WrappedTypesupport as _;

    /// The raw path (serialised once, poses, time and readings rewritten in place) reads
    /// back as the messages the typed path publishes, and the readings as the library's
    /// (`read_all`, through the contract's batch), after the robots moved and talked.
    #[test]
    fn raw_batches_read_back_as_the_typed_messages() {
        let tree = serde_yaml::from_str("{robots: {count: 40, spacing: 1.5}, seed: 3}").unwrap();
        let settings = NodeSettings::from_tree(&tree).unwrap();
        let mut table = KilobotTable::new(settings.table, &settings.poses, settings.seed).unwrap();
        let mut state = StateWire::new(&state_msg(&table, &settings));
        let mut orientations = Vec::new();
        let mut batch = SensorsWire::new("", &settings.names);
        let (mut readings, mut sensors) = (Readings::default(), Vec::new());
        for i in 0..table.len() {
            let talk = KilobotCommand { motor_left: 1.0, motor_right: (i % 2) as f64, led: [0.0; 3], message: vec![i as u8] };
            table.apply(i, &talk).unwrap();
        }
        for round in 0..3 {
            (0..20).for_each(|_| table.step());
            let t = table.time();
            write_poses(&mut state, &mut orientations, &table);
            let typed = state_msg(&table, &settings);
            assert_eq!(TankState::from_serialized_bytes(state.bytes()).unwrap(), typed);
            read_flat(&mut table, &mut readings);
            assert!(!readings.distances.is_empty());
            let (command, payload) = if round == 1 { overhead_wire(Some(Overhead::Run)) } else { (0, Vec::new()) };
            let raw = batch.write(&fros::time_msg(t), &readings, command, &payload);
            let typed = readings.message(fros::time_msg(t), &settings.names, command, payload.clone());
            assert_eq!(KilobotSensorsBatch::from_serialized_bytes(raw).unwrap(), typed);
            table.read_all(&mut sensors);
            let named: Vec<(&str, &KilobotSensors)> = settings.names.iter().map(String::as_str).zip(&sensors).collect();
            let mut library = Kilobot::sensors_batch(t, &named);
            (library.overhead_command, library.overhead_payload) = (command, payload);
            assert_eq!(library, typed);
        }
    }
}
