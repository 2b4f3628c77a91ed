//! The hardware contract per robot: `<name>/cmd` in, `<name>/sensors` out, typed by the
//! robot's system (`flotilla_msgs/LilySensors` + `LilyCommand`, `MhpSensors` +
//! `MhpCommand`, ...; conversions in `flotilla_common::ros_contract`), and the radio
//! between the base station and the robots. Only modules of a robot system are robots;
//! passive bodies (balls) have neither topic.
//!
//! With `robots.interface: batched`, a system with batch messages (Lily, Kilobot) has one
//! `/<system>/sensors` (every robot of the system read in the tick, `robots[i]` +
//! `readings[i]`) and one `/<system>/cmd` subscription (`robots[i]` + `commands[i]`, any
//! number of batches per tick) instead of two topics per robot; the other systems stay
//! per robot. Lock step works the same on both: it counts robots' commands, not messages.
//!
//! Readings and deliveries come from [`tank_physics::robots::RobotBus`], the code the
//! in-process batch runs use: latched and contact faces, light, target sensors, and in
//! `radio_rx` the latch-channel frames of latched neighbours plus base-station radio
//! frames (port 255). Radio: a `flotilla_msgs/Radio` on `/radio/broadcast` (robot "" =
//! every robot, else the named one) reaches the robots' next `radio_rx`; frames a robot
//! sends on port 255 come out on `/radio/uplink` with `robot` = the sender.
//!
//! Lock step (`run.lockstep`): after each sensor publication the stepping thread waits for
//! every robot's `cmd` stamped with that reading's time, then applies them in ascending id
//! order against the snapshot the readings came from, like `flotilla_experiments::batch::Run`;
//! the run is then as deterministic as the in-process one. A robot that does not answer
//! within `run.lockstep_timeout` (wall s) is reported and the world steps on without it.
//! Who has answered, the resends and the timeout are the shared [`LockStep`]'s, which
//! [`tank_physics::stepping::run`] waits on; the commands and the snapshot are kept here.

use std::collections::{BTreeMap, HashMap};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::ros as fros;
use flotilla_common::ros_contract::{RosBatch, RosHardware};
use flotilla_contract::{bluebot::Bluebot, kilobot::Kilobot, lily::Lily, mhp::Mhp, molemod::Molemod};
use flotilla_contract::{Actuation, Reading, System};
use futures::StreamExt;
use r2r::flotilla_msgs::msg::{LatchState, Radio};
use r2r::QosProfile;
use tank_physics::robots::{is_robot, RobotBus};
use tank_physics::stepping::{LockStep, Message};
use tank_physics::{BodyState, World};
use tracing::{info, warn};

use crate::frames::ModuleFrames;
use crate::node::Control;
use crate::settings::Interface;

/// Per-module topics, created and dropped as modules come and go: every module's
/// `<name>/robot_description` (its URDF, transient-local, for rviz's RobotModel with
/// `TF Prefix: <name>`) and the fixed link frames of all modules on `/tf_static` (unless
/// `publish.robot_descriptions` is false), and each robot's `cmd` and `sensors`, or its
/// system's batched pair.
pub struct RobotIo {
    control: mpsc::Sender<Message<Control>>,
    interface: Interface,
    sinks: Arc<Mutex<Sinks>>,
    /// Per-robot command subscription tasks, by robot name (a batched system's task runs
    /// for the node's life).
    commands: Mutex<HashMap<String, tokio::task::JoinHandle<()>>>,
    /// `None` when `publish.robot_descriptions` is false.
    descriptions: Option<Mutex<Descriptions>>,
}

/// What rviz's RobotModel needs of each module besides `/tf`.
struct Descriptions {
    /// Each module's latched `/<name>/robot_description` publisher, by module name, with
    /// the kind whose URDF it sent.
    topics: HashMap<String, (ModuleKind, r2r::Publisher<r2r::std_msgs::msg::String>)>,
    /// `/tf_static` (transient local): one message with every module's fixed link frames.
    tf_static: r2r::Publisher<r2r::tf2_msgs::msg::TFMessage>,
    /// Every kind's link frames.
    frames: Arc<ModuleFrames>,
}

impl RobotIo {
    /// Creates the radio topics and returns the topic manager and the stepping thread's
    /// side. `lockstep`: wait up to this long (wall) for every robot's command of a tick.
    /// `frames`: publish every module's robot_description and fixed link frames (`None`:
    /// neither). Needs a tokio runtime (subscription tasks).
    pub fn new(
        node: &mut r2r::Node,
        control: mpsc::Sender<Message<Control>>,
        lockstep: Option<Duration>,
        interface: Interface,
        frames: Option<Arc<ModuleFrames>>,
    ) -> anyhow::Result<(Self, RobotOutputs)> {
        let sinks: Arc<Mutex<Sinks>> = Arc::default();
        let uplink = node.create_publisher::<Radio>("/radio/uplink", QosProfile::default())?;
        let mut broadcasts = node.subscribe::<Radio>("/radio/broadcast", QosProfile::default())?;
        let radio_control = control.clone();
        tokio::spawn(async move {
            while let Some(msg) = broadcasts.next().await {
                if radio_control.send(Message::Node(Control::Radio { robot: msg.robot, payload: msg.data })).is_err() {
                    break;
                }
            }
        });
        if let Some(timeout) = lockstep {
            info!(timeout = timeout.as_secs_f64(), "lock step: every sensor tick waits for all robots' commands");
        }
        if interface == Interface::Batched {
            let (batched, single): (Vec<System>, Vec<System>) = System::ALL.iter().partition(|s| batch_topics(**s).is_some());
            let names = |systems: Vec<System>| systems.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ");
            info!(batched = %names(batched), per_robot = %names(single), "batched robot interface: /<system>/sensors and /<system>/cmd; systems without batch messages stay per robot");
        }
        let lock = LockStep::new(lockstep).resend_every(RESEND);
        let outputs = RobotOutputs { sinks: sinks.clone(), uplink, bus: RobotBus::default(), lock, tick: None };
        let descriptions = match frames {
            Some(frames) => {
                let latched = QosProfile::default().transient_local().keep_last(1);
                let tf_static = node.create_publisher("/tf_static", latched)?;
                Some(Mutex::new(Descriptions { topics: HashMap::new(), tf_static, frames }))
            }
            None => None,
        };
        Ok((Self { control, interface, sinks, commands: Mutex::default(), descriptions }, outputs))
    }

    /// Makes the robot topics match `bodies` (the world at `seconds` of sim time). Needs a
    /// tokio runtime (command tasks).
    pub fn sync(&self, node: &mut r2r::Node, bodies: &[BodyState], seconds: f64) {
        self.sync_descriptions(node, bodies, seconds);
        let wanted: HashMap<&str, System> = bodies.iter().filter_map(|b| Some((b.name.as_str(), b.kind.system()?))).collect();
        let (Ok(mut sinks), Ok(mut commands)) = (self.sinks.lock(), self.commands.lock()) else { return };
        // Batched topics stay once created (their system's robots may come back); per-robot
        // ones follow the robots.
        sinks.per_robot.retain(|name, _| wanted.contains_key(name.as_str()));
        commands.retain(|name, task| {
            let keep = wanted.contains_key(name.as_str());
            if !keep {
                task.abort();
            }
            keep
        });
        for (name, system) in wanted {
            let batch = if self.interface == Interface::Batched { batch_topics(system) } else { None };
            let created = match batch {
                Some(_) if sinks.batched.contains_key(&system) => continue,
                Some(make) => make(node, self.control.clone()).map(|topic| {
                    sinks.batched.insert(system, topic);
                }),
                None if sinks.per_robot.contains_key(name) => continue,
                None => robot_topics(system, node, name, self.control.clone()).map(|(topic, task)| {
                    sinks.per_robot.insert(name.to_owned(), topic);
                    commands.insert(name.to_owned(), task);
                }),
            };
            if let Err(e) = created {
                warn!(robot = %name, system = system.name(), "cannot create the robot's topics: {e}");
            }
        }
    }

    /// Every module's robot_description, and `/tf_static` sent again with the fixed link
    /// frames of the modules now in the world (called at start and after every spawn,
    /// removal and reset).
    fn sync_descriptions(&self, node: &mut r2r::Node, bodies: &[BodyState], seconds: f64) {
        let Some(Ok(mut descriptions)) = self.descriptions.as_ref().map(Mutex::lock) else { return };
        let present: HashMap<&str, ModuleKind> = bodies.iter().map(|b| (b.name.as_str(), b.kind)).collect();
        descriptions.topics.retain(|name, (kind, _)| present.get(name.as_str()) == Some(&*kind));
        let latched = QosProfile::default().transient_local().keep_last(1);
        for b in bodies {
            if descriptions.topics.contains_key(&b.name) {
                continue;
            }
            let topic = format!("/{}/robot_description", b.name);
            match node.create_publisher::<r2r::std_msgs::msg::String>(&topic, latched.clone()) {
                Ok(p) => {
                    let urdf = flotilla_common::models::robot_description(b.kind);
                    if let Err(e) = p.publish(&r2r::std_msgs::msg::String { data: urdf }) {
                        warn!(%topic, "publishing the robot description: {e}");
                    }
                    descriptions.topics.insert(b.name.clone(), (b.kind, p));
                }
                Err(e) => warn!(%topic, "cannot create the robot description topic: {e}"),
            }
        }
        let frames = descriptions.frames.static_message(bodies, seconds);
        if let Err(e) = descriptions.tf_static.publish(&frames) {
            warn!(transforms = frames.transforms.len(), "publishing /tf_static: {e}");
        }
    }
}

/// Where readings go: robots on their own topics, and systems on batched ones.
#[derive(Default)]
struct Sinks {
    /// Each robot's `sensors` publisher, by robot name.
    per_robot: HashMap<String, Box<dyn SensorTopic>>,
    /// Each batched system's `/<system>/sensors` publisher.
    batched: HashMap<System, Box<dyn BatchTopic>>,
}

impl Sinks {
    fn is_empty(&self) -> bool {
        self.per_robot.is_empty() && self.batched.is_empty()
    }

    /// Whether robot `b` has a topic for its readings.
    fn serves(&self, b: &BodyState) -> bool {
        self.per_robot.contains_key(&b.name) || b.kind.system().is_some_and(|s| self.batched.contains_key(&s))
    }

    /// Publishes the readings of the tick at `t`, (robot name, reading): on each robot's
    /// own topic, or in one batch per system.
    fn publish<'a>(&self, t: f64, readings: impl Iterator<Item = (&'a str, &'a Reading)>) {
        let mut batches: BTreeMap<System, Vec<(&str, &Reading)>> = BTreeMap::new();
        for (name, reading) in readings {
            match self.per_robot.get(name) {
                Some(publisher) => {
                    if let Err(e) = publisher.publish(name, reading) {
                        warn!(robot = %name, "publishing sensors: {e}");
                    }
                }
                None => batches.entry(reading.system()).or_default().push((name, reading)),
            }
        }
        for (system, readings) in batches {
            let Some(topic) = self.batched.get(&system) else { continue };
            if let Err(e) = topic.publish(t, &readings) {
                warn!(system = system.name(), robots = readings.len(), "publishing the sensor batch: {e}");
            }
        }
    }
}

/// One control tick in lock step: the snapshot the readings came from and the commands
/// received for it so far (who answered, and since when it waits: the [`LockStep`]).
struct OpenTick {
    /// Sim time of the readings, s.
    time: f64,
    /// The world when the readings were made.
    bodies: Vec<BodyState>,
    /// Robots read (names) -> index in `bodies` (and the robot's index in the [`LockStep`]).
    read: BTreeMap<String, usize>,
    /// Commands received, by robot id (applied in this order).
    answers: BTreeMap<u32, Actuation>,
    /// The readings sent, by robot name (sent again to robots that have not answered).
    sent: BTreeMap<String, Reading>,
}

/// Wall time between resending a tick's readings to robots that have not answered.
const RESEND: Duration = Duration::from_millis(250);

/// The stepping thread's side: readings out, commands and radio in.
pub struct RobotOutputs {
    sinks: Arc<Mutex<Sinks>>,
    uplink: r2r::Publisher<Radio>,
    bus: RobotBus,
    /// Who has answered the open tick, its resends and timeout.
    lock: LockStep,
    tick: Option<OpenTick>,
}

/// Two stamps of the same tick (the message carries nanoseconds).
const SAME_STAMP: f64 = 1e-6;

impl RobotOutputs {
    /// Publishes the robots' radio uplink and every robot's reading at sim time `t`; in
    /// lock step, opens the tick that waits for their commands.
    pub fn publish(&mut self, world: &mut World, t: f64) {
        if let Some(tick) = self.tick.take() {
            warn!(time = tick.time, "stepped on before every robot answered (a /tank/step while waiting)");
            self.apply_tick(world, tick);
        }
        self.lock.close();
        self.flush_uplink(world, t);
        let Ok(sinks) = self.sinks.lock() else { return };
        if sinks.is_empty() {
            return;
        }
        let bodies = world.bodies();
        let mut read = BTreeMap::new();
        let mut sent = BTreeMap::new();
        let robots: Vec<usize> = (0..bodies.len()).filter(|&i| sinks.serves(&bodies[i])).collect();
        for (index, reading) in self.bus.read_tick(&bodies, robots, t) {
            let b = &bodies[index];
            read.insert(b.name.clone(), index);
            sent.insert(b.name.clone(), reading);
        }
        sinks.publish(t, sent.iter().map(|(name, reading)| (name.as_str(), reading)));
        drop(sinks);
        if self.lock.enabled() && !read.is_empty() {
            let mut answered = vec![true; bodies.len()];
            read.values().for_each(|&i| answered[i] = false);
            self.lock.open(t, answered);
            self.tick = Some(OpenTick { time: t, bodies, read, answers: BTreeMap::new(), sent });
        }
    }

    /// A robot's command stamped `stamp` (sim s). In lock step, a command for the open tick
    /// waits for the others; any other command is applied at once.
    pub fn command(&mut self, world: &mut World, name: &str, stamp: f64, command: Actuation) {
        if let Some(tick) = &mut self.tick {
            if (stamp - tick.time).abs() < SAME_STAMP {
                if let Some(&index) = tick.read.get(name) {
                    tick.answers.insert(tick.bodies[index].id, command);
                    self.lock.answer(index, stamp);
                    if !self.lock.waiting() {
                        if let Some(tick) = self.tick.take() {
                            self.apply_tick(world, tick);
                        }
                    }
                    return;
                }
            }
            warn!(robot = name, stamp, tick = tick.time, "command not stamped for the open tick; applied now");
        }
        if let Err(e) = self.bus.apply_named(world, name, &command) {
            warn!(robot = name, "command refused: {e}");
        }
    }

    /// The lock step of the robots' commands.
    pub fn lockstep(&mut self) -> &mut LockStep {
        &mut self.lock
    }

    /// Robots read in the open tick that have not answered it, by name.
    fn silent(&self) -> Vec<&str> {
        // Made only when used (a resend, the timeout), not after every command: a scan of
        // every robot per command is quadratic in a swarm.
        let Some(tick) = &self.tick else { return Vec::new() };
        tick.read.iter().filter(|(_, i)| self.lock.missing(**i)).map(|(n, _)| n.as_str()).collect()
    }

    /// The open tick's readings again, to the robots that have not answered it (a
    /// controller that started late, or lost the message).
    pub fn resend(&self) {
        let Some(tick) = &self.tick else { return };
        let missing = self.silent();
        let Ok(sinks) = self.sinks.lock() else { return };
        sinks.publish(tick.time, missing.iter().filter_map(|name| Some((*name, tick.sent.get(*name)?))));
    }

    /// The lock-step timeout passed: names the robots that did not answer and applies the
    /// commands of those that did; the world steps on.
    pub fn give_up(&mut self, world: &mut World) {
        let Some(time) = self.tick.as_ref().map(|t| t.time) else { return };
        let timeout = self.lock.timeout().unwrap_or_default().as_secs_f64();
        warn!(time, missing = %self.silent().join(", "), timeout, "lock step: no command from these robots; stepping on without them");
        if let Some(tick) = self.tick.take() {
            self.apply_tick(world, tick);
        }
    }

    /// A base-station radio payload for robot `robot` ("" = every robot).
    pub fn radio(&mut self, world: &World, robot: &str, payload: &[u8]) {
        let bodies = world.bodies();
        let receivers: Vec<u32> = bodies.iter().filter(|b| is_robot(b) && (robot.is_empty() || b.name == robot)).map(|b| b.id).collect();
        if receivers.is_empty() {
            let robots: Vec<&str> = bodies.iter().filter(|b| is_robot(b)).map(|b| b.name.as_str()).collect();
            warn!(robot, robots = %robots.join(", "), "radio message for a robot that does not exist; dropped");
            return;
        }
        if let Err(e) = self.bus.broadcast(receivers, payload) {
            warn!(robot, "radio message refused: {e}");
        }
    }

    /// The world was reset: pending messages and an open tick are void.
    pub fn reset(&mut self) {
        self.bus.clear();
        self.tick = None;
        self.lock.close();
    }

    /// Robot `id` left the world.
    pub fn forget(&mut self, id: u32) {
        self.bus.forget(id);
    }

    fn apply_tick(&mut self, world: &mut World, tick: OpenTick) {
        for (id, command) in &tick.answers {
            let Some(body) = tick.bodies.iter().find(|b| b.id == *id) else { continue };
            if let Err(e) = self.bus.apply(world, body, command) {
                warn!(robot = %body.name, "command refused: {e}");
            }
        }
    }

    fn flush_uplink(&mut self, world: &World, t: f64) {
        let uplink = self.bus.take_uplink();
        if uplink.is_empty() {
            return;
        }
        let names: HashMap<u32, String> = world.bodies().into_iter().map(|b| (b.id, b.name)).collect();
        for (id, data) in uplink {
            let Some(robot) = names.get(&id) else { continue };
            let msg = Radio { header: fros::header(t, ""), robot: robot.clone(), data };
            if let Err(e) = self.uplink.publish(&msg) {
                warn!(robot = %robot, "publishing /radio/uplink: {e}");
            }
        }
    }
}

/// A robot's `sensors` publisher, typed by its system.
pub trait SensorTopic: Send {
    /// Publishes `reading` of robot `name`; an error for a reading of another system.
    fn publish(&self, name: &str, reading: &Reading) -> anyhow::Result<()>;
}

struct TypedSensorTopic<H: RosHardware>(r2r::Publisher<H::SensorsMsg>);

impl<H: RosHardware> SensorTopic for TypedSensorTopic<H> {
    fn publish(&self, name: &str, reading: &Reading) -> anyhow::Result<()> {
        let sensors = H::sensors_of(reading).ok_or_else(|| anyhow::anyhow!("a {} reading on a {} topic", reading.system(), H::ID))?;
        self.0.publish(&H::sensors_msg(sensors, &format!("{name}/base_link")))?;
        Ok(())
    }
}

/// Robot `name`'s `sensors` publisher and the task forwarding its `cmd` to the stepping
/// thread, in the message types of system `H`.
fn typed_topics<H: RosHardware>(
    node: &mut r2r::Node,
    name: &str,
    control: mpsc::Sender<Message<Control>>,
) -> anyhow::Result<(Box<dyn SensorTopic>, tokio::task::JoinHandle<()>)> {
    let publisher = node.create_publisher::<H::SensorsMsg>(&format!("/{name}/sensors"), QosProfile::default())?;
    let mut commands = node.subscribe::<H::CommandMsg>(&format!("/{name}/cmd"), QosProfile::default())?;
    let robot = name.to_owned();
    let mut finite = flotilla_common::finite::FiniteGuard::new(format!("/{name}/cmd"));
    let task = tokio::spawn(async move {
        while let Some(msg) = commands.next().await {
            if !finite.admit(&msg) {
                continue;
            }
            let (command, stamp) = H::command_from_msg(msg);
            let command = Control::Command { name: robot.clone(), stamp, command: H::wrap_command(command) };
            if control.send(Message::Node(command)).is_err() {
                break;
            }
        }
    });
    Ok((Box::new(TypedSensorTopic::<H>(publisher)), task))
}

/// The per-robot topics of a robot of `system`: the one place this node lists the
/// systems whose robots it serves.
fn robot_topics(
    system: System,
    node: &mut r2r::Node,
    name: &str,
    control: mpsc::Sender<Message<Control>>,
) -> anyhow::Result<(Box<dyn SensorTopic>, tokio::task::JoinHandle<()>)> {
    match system {
        System::Lily => typed_topics::<Lily>(node, name, control),
        System::Mhp => typed_topics::<Mhp>(node, name, control),
        System::Bluebot => typed_topics::<Bluebot>(node, name, control),
        System::Kilobot => typed_topics::<Kilobot>(node, name, control),
        System::Molemod => typed_topics::<Molemod>(node, name, control),
    }
}

/// A batched system's `/<system>/sensors` publisher.
pub trait BatchTopic: Send {
    /// Publishes the readings of the tick at `stamp` (s), (robot name, reading), as one
    /// message; an error for a reading of another system.
    fn publish(&self, stamp: f64, readings: &[(&str, &Reading)]) -> anyhow::Result<()>;
}

struct TypedBatchTopic<H: RosBatch>(r2r::Publisher<H::SensorsBatchMsg>);

impl<H: RosBatch> BatchTopic for TypedBatchTopic<H> {
    fn publish(&self, stamp: f64, readings: &[(&str, &Reading)]) -> anyhow::Result<()> {
        let mut items = Vec::with_capacity(readings.len());
        for (name, reading) in readings {
            let sensors = H::sensors_of(reading).ok_or_else(|| anyhow::anyhow!("a {} reading in a {} batch", reading.system(), H::ID))?;
            items.push((*name, sensors));
        }
        self.0.publish(&H::sensors_batch(stamp, &items))?;
        Ok(())
    }
}

/// System `H`'s `/<system>/sensors` publisher; a task (for the node's life) forwards every
/// command of its `/<system>/cmd` batches to the stepping thread.
fn typed_batch<H: RosBatch>(node: &mut r2r::Node, control: mpsc::Sender<Message<Control>>) -> anyhow::Result<Box<dyn BatchTopic>> {
    let system = H::ID.name();
    let publisher = node.create_publisher::<H::SensorsBatchMsg>(&format!("/{system}/sensors"), QosProfile::default())?;
    let mut batches = node.subscribe::<H::CommandBatchMsg>(&format!("/{system}/cmd"), QosProfile::default())?;
    let mut finite = flotilla_common::finite::FiniteGuard::new(format!("/{system}/cmd"));
    tokio::spawn(async move {
        while let Some(msg) = batches.next().await {
            if !finite.admit(&msg) {
                continue;
            }
            let (stamp, commands) = match H::commands_from_batch(msg) {
                Ok(batch) => batch,
                Err(e) => {
                    warn!(topic = %format!("/{system}/cmd"), "command batch dropped: {e}");
                    continue;
                }
            };
            for (name, command) in commands {
                if control.send(Message::Node(Control::Command { name, stamp, command: H::wrap_command(command) })).is_err() {
                    return;
                }
            }
        }
    });
    Ok(Box::new(TypedBatchTopic::<H>(publisher)))
}

/// Creates a batched system's topics.
type BatchMaker = fn(&mut r2r::Node, mpsc::Sender<Message<Control>>) -> anyhow::Result<Box<dyn BatchTopic>>;

/// The batched topics of `system`, `None` for a system without batch messages: the one
/// place this node lists them.
fn batch_topics(system: System) -> Option<BatchMaker> {
    match system {
        System::Lily => Some(typed_batch::<Lily>),
        System::Kilobot => Some(typed_batch::<Kilobot>),
        System::Mhp | System::Bluebot | System::Molemod => None,
    }
}

/// The latch faces of `b` as messages (partner names looked up in `names`).
pub fn latch_states(b: &BodyState, names: &HashMap<u32, &str>) -> Vec<LatchState> {
    b.faces
        .iter()
        .enumerate()
        .filter(|(_, f)| f.has_latch)
        .map(|(i, f)| LatchState {
            face: i as u8,
            commanded_on: f.latch_on,
            latched: f.latched.is_some(),
            partner: f.latched.and_then(|l| names.get(&l.other_id).map(|n| (*n).to_owned())).unwrap_or_default(),
            partner_face: f.latched.map_or(0, |l| l.other_face as u8),
        })
        .collect()
}
