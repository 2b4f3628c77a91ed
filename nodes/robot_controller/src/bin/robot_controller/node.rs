//! The `robot_controller` node: the firmware of one or many robots in one process, each
//! reading only `/<robot>/sensors` and writing only `/<robot>/cmd`, in the message types
//! of the robot's system (`flotilla_common::ros_contract`).
//!
//! A control step is triggered by a reading: the reading's stamp is sim time (the physics
//! stamps it from its clock), and a robot steps when at least one control period has passed
//! since its last step, so the rate is `control_rate` Hz of sim time whatever the wall
//! speed. Every command carries the stamp of the reading it answers (the physics' lock-step
//! mode waits for exactly that). A reading with the stamp already answered (resent by the
//! physics) gets the same command again; a stamp earlier than the last step (world reset)
//! starts the count afresh.
//!
//! Robots come from the `robots` list (`name`: id and kind from `/tank/state`;
//! `name:kind:id`: given in full) and/or `kind` (every robot of that kind in
//! `/tank/state`). A robot whose controller cannot be built (unknown kind, passive kind,
//! Lily without a ruleset) is reported once and the others run. Per robot, the service
//! `~/<robot>/enable` (std_srvs/SetBool) stops (false) or restarts (true) its controller.
//!
//! With `interface: batched` (the physics' `robots.interface: batched`), a system with
//! batch messages (Lily, Kilobot) is read from `/<system>/sensors` (every robot of a tick
//! in one message): each hosted robot in the batch steps by the same rule, and their
//! commands go out as one `/<system>/cmd` batch per batch received; robots hosted
//! elsewhere are left to their own process. Instead of a service per robot, one
//! `~/enable` (rcl_interfaces/SetParameters: parameter name = robot, bool value = run)
//! stops and restarts any hosted robots (docs/swarm_scale.md).

use crate::settings::{self, Interface};
use flotilla_firmware::bluebot::Behaviour;
use robot_controller::firmware::behaviour::{changes, section_of, SECTION};
use serde_yaml::Mapping;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use flotilla_common::catalogue::ModuleKind;
use flotilla_common::error_chain::describe;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use flotilla_common::ros_contract::mhp_layout_from_msg;
use flotilla_common::ros_contract::{RosBatch, RosHardware};
use flotilla_contract::{bluebot::Bluebot, kilobot::Kilobot, lily::Lily, mhp::Mhp, molemod::Molemod, System};
use futures::{Stream, StreamExt};
use r2r::flotilla_msgs::msg::{MhpLayout as MhpLayoutMsg, TankState};
use r2r::rcl_interfaces::msg::{ParameterType, SetParametersResult};
use r2r::rcl_interfaces::srv::SetParameters;
use r2r::std_srvs::srv::SetBool;
use r2r::QosProfile;
use robot_controller::firmware::{ControllerParams, RobotEntry, Selection};
use robot_controller::ControllerHost;
use tracing::{error, info, warn};

pub use settings::NodeSettings;

/// What every robot's tasks share.
#[derive(Clone)]
struct Shared {
    node: Arc<Mutex<r2r::Node>>,
    host: Arc<Mutex<ControllerHost>>,
    /// Control period, s of sim time.
    period: f64,
    interface: Interface,
    /// Systems whose batched topics are connected.
    batched: Arc<Mutex<BTreeSet<System>>>,
    /// Robots seen so far (hosted or refused), so each is tried once.
    tried: Arc<Mutex<BTreeSet<String>>>,
    /// Robots whose controller could not be built, with the reason.
    refused: Arc<Mutex<BTreeMap<String, String>>>,
    commands: Arc<AtomicU64>,
}

/// Runs until SIGINT/SIGTERM; returns the summary line.
pub async fn run(mut startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    // The Bluebot behaviour is declared in full (every one of its parameters, defaults
    // included), so that `ros2 param` shows each and `ros2 param set` can change it.
    if let Some(behaviour) = &settings.bluebot {
        startup.params.insert(SECTION.into(), section_of(behaviour).into());
    }
    if !startup.use_sim_time() {
        warn!("use_sim_time is false; the controllers step on the readings' stamps (sim time) anyway");
    }
    let mut node = startup.create_node()?;
    let states = node.subscribe::<TankState>("/tank/state", QosProfile::default())?;
    let params = ControllerParams {
        seed: settings.seed,
        lily_ruleset: settings.ruleset.as_ref().map(|(_, r)| r.clone()),
        bluebot: settings.bluebot,
        mhp: settings.mhp,
        ..ControllerParams::default()
    };
    let shared = Shared {
        node: Arc::new(Mutex::new(node)),
        host: Arc::new(Mutex::new(ControllerHost::new(params))),
        period: settings.period,
        interface: settings.interface,
        batched: Arc::default(),
        tried: Arc::default(),
        refused: Arc::default(),
        commands: Arc::default(),
    };
    if settings.interface == Interface::Batched {
        let enable = shared
            .node
            .lock()
            .map_err(|_| anyhow::anyhow!("node lock poisoned"))?
            .create_service::<SetParameters::Service>("~/enable", QosProfile::default())?;
        tokio::spawn(serve_enable_all(enable, shared.host.clone()));
    }
    if let Some(behaviour) = settings.bluebot {
        tokio::spawn(apply_bluebot_parameters(startup.param_updates(), behaviour, shared.host.clone()));
    }
    let spinner = Spinner::start(shared.node.clone());
    for entry in &settings.selection.entries {
        if let RobotEntry::Full { name, kind, id } = entry {
            shared.add(name, *id, kind);
        }
    }
    tokio::spawn(watch_world(states, shared.clone(), settings.selection.clone()));
    info!(
        ruleset = %settings.ruleset.as_ref().map_or_else(|| "none".to_owned(), |(p, r)| format!("{} ({})", r.name, p.display())),
        seed = settings.seed,
        control_rate = 1.0 / settings.period,
        interface = ?settings.interface,
        robots = ?settings.selection.entries.iter().map(RobotEntry::name).collect::<Vec<_>>(),
        kind = settings.selection.kind.as_deref().unwrap_or(""),
        bluebot = settings.bluebot.map_or("none", |b| b.name()),
        mhp_controller = settings.mhp.name(),
        "robot_controller running"
    );
    let signal = fros::shutdown_signal().await.context("installing signal handlers")?;
    info!(signal, "shutting down");
    spinner.stop();
    let hosted: Vec<String> = shared.host.lock().map(|h| h.robots().map(|(n, _)| n.to_owned()).collect()).unwrap_or_default();
    let refused = shared.refused.lock().map(|r| r.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
    Ok(format!(
        "summary: {} robots controlled ({}), {} commands sent; refused: {}",
        hosted.len(),
        hosted.join(", "),
        shared.commands.load(Ordering::Relaxed),
        if refused.is_empty() { "none".to_owned() } else { refused.join(", ") }
    ))
}

/// Adds the selected robots as they appear in `/tank/state`; reports listed robots that
/// the world lacks.
async fn watch_world(mut states: impl Stream<Item = TankState> + Unpin, shared: Shared, selection: Selection) {
    let mut reported_missing = BTreeSet::new();
    while let Some(state) = states.next().await {
        for m in &state.modules {
            if selection.wants(&m.name, &m.kind) {
                shared.add(&m.name, m.id, &m.kind);
            }
        }
        for entry in &selection.entries {
            let RobotEntry::Named(name) = entry else { continue };
            if !state.modules.iter().any(|m| &m.name == name) && reported_missing.insert(name.clone()) {
                let modules: Vec<&str> = state.modules.iter().map(|m| m.name.as_str()).collect();
                error!(robot = %name, modules = %modules.join(", "), "no such robot in /tank/state; its controller waits for it");
            }
        }
    }
}

impl Shared {
    /// Starts robot `name`'s controller and topics, once; a refusal is logged and kept. An
    /// MHP robot whose controller is built from its thruster layout starts when its latched
    /// `/<robot>/layout` arrives.
    fn add(&self, name: &str, id: u32, kind: &str) {
        let Ok(mut tried) = self.tried.lock() else { return };
        if !tried.insert(name.to_owned()) {
            return;
        }
        drop(tried);
        let system = kind.parse::<ModuleKind>().ok().and_then(ModuleKind::system);
        let wants_layout = system == Some(System::Mhp) && self.host.lock().is_ok_and(|h| h.mhp_needs_layout());
        if wants_layout {
            if let Err(e) = self.await_layout(name, id, kind) {
                error!(robot = name, "cannot subscribe to the robot's layout: {}", describe(e.as_ref()));
            }
            return;
        }
        self.start(name, id, kind);
    }

    /// Subscribes to MHP robot `name`'s latched `/<name>/layout` and starts its controller
    /// with the first layout received.
    fn await_layout(&self, name: &str, id: u32, kind: &str) -> anyhow::Result<()> {
        let latched = QosProfile::default().transient_local().keep_last(1);
        let topic = format!("/{name}/layout");
        let mut layouts =
            self.node.lock().map_err(|_| anyhow::anyhow!("node lock poisoned"))?.subscribe::<MhpLayoutMsg>(&topic, latched)?;
        info!(robot = name, topic = %topic, "waiting for the robot's thruster layout");
        let (shared, name, kind) = (self.clone(), name.to_owned(), kind.to_owned());
        tokio::spawn(async move {
            if let Some(msg) = layouts.next().await {
                let layout = mhp_layout_from_msg(&msg);
                info!(robot = %name, faces = layout.faces, thrusters = layout.thrusters.len(), "thruster layout received");
                match shared.host.lock() {
                    Ok(mut host) => host.set_mhp_layout(id, layout),
                    Err(_) => {
                        error!(robot = %name, "controller host poisoned");
                        return;
                    }
                }
                shared.start(&name, id, &kind);
            }
        });
        Ok(())
    }

    /// Builds robot `name`'s controller and creates its topics; a refusal is logged and kept.
    fn start(&self, name: &str, id: u32, kind: &str) {
        let added = self
            .host
            .lock()
            .map_err(|_| "controller host poisoned".to_owned())
            .and_then(|mut h| h.add(name, id, kind).map_err(|e| e.to_string()));
        if let Err(reason) = added {
            error!(robot = name, kind, "{reason}");
            if let Ok(mut refused) = self.refused.lock() {
                refused.insert(name.to_owned(), reason);
            }
            return;
        }
        // The host built the controller, so the kind names a robot system.
        let Some(system) = kind.parse::<ModuleKind>().ok().and_then(ModuleKind::system) else { return };
        if self.interface == Interface::Batched {
            let Ok(mut batched) = self.batched.lock() else { return };
            if batched.contains(&system) {
                return;
            }
            match self.connect_batch(system) {
                Some(Ok(())) => {
                    info!(system = system.name(), "batched topics /{0}/sensors, /{0}/cmd", system.name());
                    batched.insert(system);
                    return;
                }
                Some(Err(e)) => {
                    error!(robot = name, system = system.name(), "cannot create the system's batched topics: {}", describe(e.as_ref()));
                    return;
                }
                None => info!(robot = name, system = system.name(), "no batch messages for this system: the robot stays on its own topics"),
            }
        }
        if let Err(e) = self.connect(name, system) {
            error!(robot = name, "cannot create the robot's topics: {}", describe(e.as_ref()));
        }
    }

    /// A system's batched topics, `None` for a system without batch messages: the one
    /// place this node lists them.
    fn connect_batch(&self, system: System) -> Option<anyhow::Result<()>> {
        match system {
            System::Lily => Some(self.connect_batch_typed::<Lily>()),
            System::Kilobot => Some(self.connect_batch_typed::<Kilobot>()),
            System::Mhp | System::Bluebot | System::Molemod => None,
        }
    }

    fn connect_batch_typed<H: RosBatch>(&self) -> anyhow::Result<()> {
        let system = H::ID.name();
        let mut node = self.node.lock().map_err(|_| anyhow::anyhow!("node lock poisoned"))?;
        let batches = node.subscribe::<H::SensorsBatchMsg>(&format!("/{system}/sensors"), QosProfile::default())?;
        let cmd = node.create_publisher::<H::CommandBatchMsg>(&format!("/{system}/cmd"), QosProfile::default())?;
        drop(node);
        tokio::spawn(drive_batch::<H>(batches, cmd, self.clone()));
        Ok(())
    }

    /// The robot's topics in the message types of its system: the one place this node
    /// lists the systems whose robots it serves.
    fn connect(&self, name: &str, system: System) -> anyhow::Result<()> {
        match system {
            System::Lily => self.connect_typed::<Lily>(name),
            System::Mhp => self.connect_typed::<Mhp>(name),
            System::Bluebot => self.connect_typed::<Bluebot>(name),
            System::Kilobot => self.connect_typed::<Kilobot>(name),
            System::Molemod => self.connect_typed::<Molemod>(name),
        }
    }

    fn connect_typed<H: RosHardware>(&self, name: &str) -> anyhow::Result<()> {
        let mut node = self.node.lock().map_err(|_| anyhow::anyhow!("node lock poisoned"))?;
        let sensors = node.subscribe::<H::SensorsMsg>(&format!("/{name}/sensors"), QosProfile::default())?;
        let cmd = node.create_publisher::<H::CommandMsg>(&format!("/{name}/cmd"), QosProfile::default())?;
        // Batched, one `~/enable` serves every robot.
        if self.interface == Interface::PerRobot {
            let enable = node.create_service::<SetBool::Service>(&format!("~/{name}/enable"), QosProfile::default())?;
            tokio::spawn(serve_enable(name.to_owned(), enable, self.host.clone()));
        }
        drop(node);
        tokio::spawn(drive::<H>(name.to_owned(), sensors, cmd, self.clone()));
        Ok(())
    }
}

/// A robot's last control step: the reading's stamp and the command that answered it.
type Last<C> = Option<(f64, Option<C>)>;

/// Robot `name`'s answer to its reading, given its last step (updated): the command and
/// whether it is new (else the answer again, to a reading the physics resent). A reading
/// within a control period of the last step gets none.
fn answer<H: RosHardware>(
    host: &mut ControllerHost,
    period: f64,
    name: &str,
    last: &mut Last<H::Command>,
    sensors: H::Sensors,
) -> Option<(H::Command, bool)> {
    let stamp = H::stamp(&sensors);
    if let Some((t, answer)) = last {
        if (stamp - *t).abs() < 1e-6 {
            return answer.clone().map(|a| (a, false));
        }
        if stamp > *t && stamp < *t + period - 1e-6 {
            return None;
        }
    }
    let answer = match host.tick(name, stamp, &H::wrap_sensors(sensors)) {
        Ok(Some(actuation)) => H::command_of(&actuation).cloned(),
        Ok(None) => None,
        Err(e) => {
            warn!(robot = %name, "control step failed: {e}");
            None
        }
    };
    *last = Some((stamp, answer.clone()));
    answer.map(|a| (a, true))
}

/// Answers robot `name`'s readings with its firmware's commands.
async fn drive<H: RosHardware>(
    name: String,
    mut readings: impl Stream<Item = H::SensorsMsg> + Unpin,
    cmd: r2r::Publisher<H::CommandMsg>,
    shared: Shared,
) {
    let mut last = None;
    let mut finite = flotilla_common::finite::FiniteGuard::new(format!("/{name}/sensors"));
    while let Some(msg) = readings.next().await {
        if !finite.admit(&msg) {
            continue;
        }
        let Ok(mut host) = shared.host.lock() else {
            error!(robot = %name, "controller host poisoned; the robot's controller ends");
            return;
        };
        let sensors = H::sensors_from_msg(msg);
        let stamp = H::stamp(&sensors);
        let answer = answer::<H>(&mut host, shared.period, &name, &mut last, sensors);
        drop(host);
        if let Some((command, new)) = answer {
            publish(&cmd, &H::command_msg(&command, stamp), &name);
            if new {
                shared.commands.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Answers system `H`'s sensor batches: every robot hosted here steps on its reading, their
/// commands go out in one batch.
async fn drive_batch<H: RosBatch>(
    mut batches: impl Stream<Item = H::SensorsBatchMsg> + Unpin,
    cmd: r2r::Publisher<H::CommandBatchMsg>,
    shared: Shared,
) {
    let system = H::ID.name();
    let mut last: HashMap<String, Last<H::Command>> = HashMap::new();
    let mut finite = flotilla_common::finite::FiniteGuard::new(format!("/{system}/sensors"));
    while let Some(batch) = batches.next().await {
        if !finite.admit(&batch) {
            continue;
        }
        let (stamp, readings) = match H::sensors_from_batch(batch) {
            Ok(batch) => batch,
            Err(e) => {
                warn!(system, "sensor batch dropped: {e}");
                continue;
            }
        };
        let Ok(mut host) = shared.host.lock() else {
            error!(system, "controller host poisoned; the system's controllers end");
            return;
        };
        let mut commands = Vec::new();
        let mut new = 0;
        for (name, sensors) in readings {
            if !host.hosts(&name) {
                continue;
            }
            let robot_last = last.entry(name.clone()).or_default();
            if let Some((command, fresh)) = answer::<H>(&mut host, shared.period, &name, robot_last, sensors) {
                commands.push((name, command));
                new += u64::from(fresh);
            }
        }
        drop(host);
        if commands.is_empty() {
            continue;
        }
        let named: Vec<(&str, &H::Command)> = commands.iter().map(|(n, c)| (n.as_str(), c)).collect();
        publish(&cmd, &H::command_batch(stamp, &named), system);
        shared.commands.fetch_add(new, Ordering::Relaxed);
    }
}

fn publish<T: r2r::WrappedTypesupport + 'static>(cmd: &r2r::Publisher<T>, msg: &T, name: &str) {
    if let Err(e) = cmd.publish(msg) {
        warn!(robot = %name, "publishing cmd: {e}");
    }
}

/// Robot `name`'s controller stopped (`enabled` false) or (re)started; the outcome in words.
fn set_enabled(host: &Mutex<ControllerHost>, name: &str, enabled: bool) -> Result<String, String> {
    let mut h = host.lock().map_err(|_| "controller host poisoned".to_owned())?;
    let running = h.is_running(name).map_err(|e| e.to_string())?;
    match (enabled, running) {
        (false, _) => h.stop(name).map(|_| format!("{name}: controller stopped")),
        (true, true) => Ok(format!("{name}: controller already running")),
        (true, false) => h.restart(name).map(|_| format!("{name}: controller restarted")),
    }
    .map_err(|e| e.to_string())
}

/// `~/<robot>/enable`: false stops the robot's controller, true (re)starts a stopped one.
async fn serve_enable(
    name: String,
    mut requests: impl Stream<Item = r2r::ServiceRequest<SetBool::Service>> + Unpin,
    host: Arc<Mutex<ControllerHost>>,
) {
    while let Some(req) = requests.next().await {
        let response = match set_enabled(&host, &name, req.message.data) {
            Ok(message) => SetBool::Response { success: true, message },
            Err(message) => SetBool::Response { success: false, message },
        };
        if let Err(e) = req.respond(response) {
            warn!(robot = %name, "answering ~/enable: {e}");
        }
    }
}

/// `~/enable` (batched interface): each parameter names a hosted robot, its bool value
/// stops (false) or (re)starts (true) the robot's controller; one result per parameter.
async fn serve_enable_all(
    mut requests: impl Stream<Item = r2r::ServiceRequest<SetParameters::Service>> + Unpin,
    host: Arc<Mutex<ControllerHost>>,
) {
    while let Some(req) = requests.next().await {
        let results = req
            .message
            .parameters
            .iter()
            .map(|p| {
                let outcome = if p.value.type_ == ParameterType::PARAMETER_BOOL as u8 {
                    set_enabled(&host, &p.name, p.value.bool_value)
                } else {
                    Err(format!("{}: the value must be a bool (true = run, false = stop)", p.name))
                };
                let successful = outcome.is_ok();
                SetParametersResult { successful, reason: outcome.unwrap_or_else(|e| e) }
            })
            .collect();
        if let Err(e) = req.respond(SetParameters::Response { results }) {
            warn!("answering ~/enable: {e}");
        }
    }
}

/// Carries accepted `bluebot.*` changes to every hosted Bluebot's running firmware.
async fn apply_bluebot_parameters(
    mut updates: tokio::sync::watch::Receiver<Mapping>,
    mut current: Behaviour,
    host: Arc<Mutex<ControllerHost>>,
) {
    while updates.changed().await.is_ok() {
        let tree = updates.borrow_and_update().clone();
        let next = match NodeSettings::from_tree(&tree).map(|s| s.bluebot) {
            Ok(Some(next)) => next,
            Ok(None) => continue,
            Err(e) => {
                warn!("parameter update ignored: {e}");
                continue;
            }
        };
        let changed = match changes(&current, &next) {
            Ok(changed) => changed,
            Err(e) => {
                warn!("parameter update ignored: {e}");
                continue;
            }
        };
        let Ok(mut host) = host.lock() else {
            error!("controller host poisoned; parameter update lost");
            return;
        };
        for (name, value) in changed {
            if let Err(e) = host.set_bluebot_parameter(name, value) {
                warn!(parameter = name, value, "Bluebot parameter not applied: {e}");
            }
        }
        current = next;
    }
}
