//! The hardware contract per robot: `<name>/cmd` in, `<name>/sensors` out, typed by the
//! robot's system (`flotilla_msgs/LilySensors` + `LilyCommand`, `MhpSensors` +
//! `MhpCommand`, ...; conversions in `flotilla_common::ros_contract`), and the radio
//! between the base station and the robots. Only modules of a robot system are robots;
//! passive bodies (balls) have neither topic.
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

use std::collections::{BTreeMap, HashMap};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use flotilla_common::ros as fros;
use flotilla_common::ros_contract::RosHardware;
use flotilla_contract::{bluebot::Bluebot, kilobot::Kilobot, lily::Lily, mhp::Mhp, molemod::Molemod};
use flotilla_contract::{Actuation, Reading, System};
use futures::StreamExt;
use r2r::flotilla_msgs::msg::{LatchState, Radio};
use r2r::QosProfile;
use tank_physics::robots::{is_robot, RobotBus};
use tank_physics::{BodyState, World};
use tracing::{info, warn};

use crate::node::Control;

/// Per-module topics, created and dropped as modules come and go: every module's
/// `<name>/robot_description` (its URDF, transient-local, for robot_state_publisher with
/// `frame_prefix: <name>/`), and each robot's `cmd` and `sensors`.
pub struct RobotIo {
    control: mpsc::Sender<Control>,
    sensors: Arc<Mutex<HashMap<String, Box<dyn SensorTopic>>>>,
    commands: Mutex<HashMap<String, tokio::task::JoinHandle<()>>>,
    descriptions: Mutex<HashMap<String, r2r::Publisher<r2r::std_msgs::msg::String>>>,
}

impl RobotIo {
    /// Creates the radio topics and returns the topic manager and the stepping thread's
    /// side. `lockstep`: wait up to this long (wall) for every robot's command of a tick.
    /// Needs a tokio runtime (subscription tasks).
    pub fn new(node: &mut r2r::Node, control: mpsc::Sender<Control>, lockstep: Option<Duration>) -> anyhow::Result<(Self, RobotOutputs)> {
        let sensors: Arc<Mutex<HashMap<String, Box<dyn SensorTopic>>>> = Arc::default();
        let uplink = node.create_publisher::<Radio>("/radio/uplink", QosProfile::default())?;
        let mut broadcasts = node.subscribe::<Radio>("/radio/broadcast", QosProfile::default())?;
        let radio_control = control.clone();
        tokio::spawn(async move {
            while let Some(msg) = broadcasts.next().await {
                if radio_control.send(Control::Radio { robot: msg.robot, payload: msg.data }).is_err() {
                    break;
                }
            }
        });
        if let Some(timeout) = lockstep {
            info!(timeout = timeout.as_secs_f64(), "lock step: every sensor tick waits for all robots' commands");
        }
        let outputs = RobotOutputs { publishers: sensors.clone(), uplink, bus: RobotBus::default(), lockstep, tick: None };
        Ok((Self { control, sensors, commands: Mutex::default(), descriptions: Mutex::default() }, outputs))
    }

    /// Makes the per-robot topics match `bodies`. Needs a tokio runtime (command tasks).
    pub fn sync(&self, node: &mut r2r::Node, bodies: &[BodyState]) {
        self.sync_descriptions(node, bodies);
        let wanted: HashMap<&str, System> = bodies.iter().filter_map(|b| Some((b.name.as_str(), b.kind.system()?))).collect();
        let (Ok(mut sensors), Ok(mut commands)) = (self.sensors.lock(), self.commands.lock()) else { return };
        sensors.retain(|name, _| wanted.contains_key(name.as_str()));
        commands.retain(|name, task| {
            let keep = wanted.contains_key(name.as_str());
            if !keep {
                task.abort();
            }
            keep
        });
        for (name, system) in wanted {
            if sensors.contains_key(name) {
                continue;
            }
            match robot_topics(system, node, name, self.control.clone()) {
                Ok((topic, task)) => {
                    sensors.insert(name.to_owned(), topic);
                    commands.insert(name.to_owned(), task);
                }
                Err(e) => warn!(robot = %name, "cannot create the robot's topics: {e}"),
            }
        }
    }

    fn sync_descriptions(&self, node: &mut r2r::Node, bodies: &[BodyState]) {
        let Ok(mut descriptions) = self.descriptions.lock() else { return };
        descriptions.retain(|name, _| bodies.iter().any(|b| &b.name == name));
        let latched = QosProfile::default().transient_local().keep_last(1);
        for b in bodies {
            if descriptions.contains_key(&b.name) {
                continue;
            }
            let topic = format!("/{}/robot_description", b.name);
            match node.create_publisher::<r2r::std_msgs::msg::String>(&topic, latched.clone()) {
                Ok(p) => {
                    let urdf = flotilla_common::models::robot_description(b.kind);
                    if let Err(e) = p.publish(&r2r::std_msgs::msg::String { data: urdf }) {
                        warn!(%topic, "publishing the robot description: {e}");
                    }
                    descriptions.insert(b.name.clone(), p);
                }
                Err(e) => warn!(%topic, "cannot create the robot description topic: {e}"),
            }
        }
    }
}

/// One control tick in lock step: the snapshot the readings came from and the commands
/// received for it so far.
struct OpenTick {
    /// Sim time of the readings, s.
    time: f64,
    /// The world when the readings were made.
    bodies: Vec<BodyState>,
    /// Robots read (names) -> index in `bodies`.
    read: BTreeMap<String, usize>,
    /// Commands received, by robot id (applied in this order).
    answers: BTreeMap<u32, Actuation>,
    /// The readings sent, by robot name (sent again to robots that have not answered).
    sent: BTreeMap<String, Reading>,
    opened: Instant,
    last_sent: Instant,
}

/// What the world does about an open lock-step tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Nothing to wait for: step.
    No,
    /// Some robots have not answered yet.
    Yes,
    /// Still waiting, and the readings were just sent again to the silent robots (a
    /// controller that started late, or lost the message): the caller should republish the
    /// world state too, which controllers need to know their robots.
    Resent,
}

/// Wall time between resending a tick's readings to robots that have not answered.
const RESEND: Duration = Duration::from_millis(250);

/// The stepping thread's side: readings out, commands and radio in.
pub struct RobotOutputs {
    publishers: Arc<Mutex<HashMap<String, Box<dyn SensorTopic>>>>,
    uplink: r2r::Publisher<Radio>,
    bus: RobotBus,
    lockstep: Option<Duration>,
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
        self.flush_uplink(world, t);
        let Ok(publishers) = self.publishers.lock() else { return };
        if publishers.is_empty() {
            return;
        }
        let bodies = world.bodies();
        let mut read = BTreeMap::new();
        let mut sent = BTreeMap::new();
        let robots: Vec<usize> = (0..bodies.len()).filter(|&i| publishers.contains_key(&bodies[i].name)).collect();
        for (index, reading) in self.bus.read_tick(&bodies, robots, t) {
            let b = &bodies[index];
            let Some(publisher) = publishers.get(&b.name) else { continue };
            if let Err(e) = publisher.publish(&b.name, &reading) {
                warn!(robot = %b.name, "publishing sensors: {e}");
            }
            read.insert(b.name.clone(), index);
            sent.insert(b.name.clone(), reading);
        }
        drop(publishers);
        if self.lockstep.is_some() && !read.is_empty() {
            let now = Instant::now();
            self.tick = Some(OpenTick { time: t, bodies, read, answers: BTreeMap::new(), sent, opened: now, last_sent: now });
        }
    }

    /// A robot's command stamped `stamp` (sim s). In lock step, a command for the open tick
    /// waits for the others; any other command is applied at once.
    pub fn command(&mut self, world: &mut World, name: &str, stamp: f64, command: Actuation) {
        if let Some(tick) = &mut self.tick {
            if (stamp - tick.time).abs() < SAME_STAMP {
                if let Some(&index) = tick.read.get(name) {
                    tick.answers.insert(tick.bodies[index].id, command);
                    if tick.answers.len() == tick.read.len() {
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

    /// Whether the world must wait for robots' commands (lock step). Resends the readings
    /// of silent robots every [`RESEND`]; gives up on them after the lock-step timeout.
    pub fn waiting(&mut self, world: &mut World) -> Wait {
        let (Some(tick), Some(timeout)) = (&mut self.tick, self.lockstep) else { return Wait::No };
        let missing: Vec<String> =
            tick.read.iter().filter(|(_, i)| !tick.answers.contains_key(&tick.bodies[**i].id)).map(|(n, _)| n.clone()).collect();
        if tick.opened.elapsed() >= timeout {
            warn!(time = tick.time, missing = %missing.join(", "), timeout = timeout.as_secs_f64(), "lock step: no command from these robots; stepping on without them");
            if let Some(tick) = self.tick.take() {
                self.apply_tick(world, tick);
            }
            return Wait::No;
        }
        if tick.last_sent.elapsed() < RESEND {
            return Wait::Yes;
        }
        tick.last_sent = Instant::now();
        let Ok(publishers) = self.publishers.lock() else { return Wait::Yes };
        for name in &missing {
            if let (Some(publisher), Some(reading)) = (publishers.get(name), tick.sent.get(name)) {
                if let Err(e) = publisher.publish(name, reading) {
                    warn!(robot = %name, "publishing sensors: {e}");
                }
            }
        }
        Wait::Resent
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
    control: mpsc::Sender<Control>,
) -> anyhow::Result<(Box<dyn SensorTopic>, tokio::task::JoinHandle<()>)> {
    let publisher = node.create_publisher::<H::SensorsMsg>(&format!("/{name}/sensors"), QosProfile::default())?;
    let mut commands = node.subscribe::<H::CommandMsg>(&format!("/{name}/cmd"), QosProfile::default())?;
    let robot = name.to_owned();
    let task = tokio::spawn(async move {
        while let Some(msg) = commands.next().await {
            let (command, stamp) = H::command_from_msg(msg);
            if control.send(Control::Command { name: robot.clone(), stamp, command: H::wrap_command(command) }).is_err() {
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
    control: mpsc::Sender<Control>,
) -> anyhow::Result<(Box<dyn SensorTopic>, tokio::task::JoinHandle<()>)> {
    match system {
        System::Lily => typed_topics::<Lily>(node, name, control),
        System::Mhp => typed_topics::<Mhp>(node, name, control),
        System::Bluebot => typed_topics::<Bluebot>(node, name, control),
        System::Kilobot => typed_topics::<Kilobot>(node, name, control),
        System::Molemod => typed_topics::<Molemod>(node, name, control),
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
