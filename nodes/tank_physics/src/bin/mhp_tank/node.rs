//! The ROS 2 side of `mhp_tank`: one 2-D MHP robot ([`PrototypeTrial`]: the whole-robot
//! model of `flotilla experiment mhp prototype`) steps on its own thread, paced to the
//! real-time factor. Every control period (50 ms of sim time) the robot's reading goes out
//! on `/<robot>/sensors` (`flotilla_msgs/MhpSensors`: per-face arrays over all its
//! modules, never a topic per module) and its pumps follow `/<robot>/cmd` (`MhpCommand`);
//! its thruster layout is on the latched `/<robot>/layout` (`MhpLayout`, once). Ground
//! truth: `/clock`, `/tank/state` (every module as an `mhp_square` module named after its
//! robot, so the overhead camera and tracker see the modules' top markers), `/tf`
//! (`world -> <robot>/base_link`, the centre of mass at the water line), `/tank/markers`
//! (modules coloured by how many of their pumps fire, the jets, the torch, the start and
//! finish lines, the tank and water). When the centre of mass crosses the finish line the
//! crossing time goes out once on the latched `~/crossing` (JSON). With `run.lockstep` the
//! world waits after each reading until the robot's command stamped with it arrives (the
//! reading goes out again every 200 ms of wall time meanwhile), so a run through ROS steps
//! exactly as the in-process experiment.

use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc, Mutex};

use anyhow::Context as _;
use flotilla_common::catalogue::ModuleKind;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use flotilla_common::ros_contract::{mhp_layout_msg, RosHardware};
use flotilla_contract::mhp::{Mhp, MhpCommand, MhpSensors, FACE_NORMALS};
use futures::StreamExt;
use nalgebra::{Isometry3, Point3, Translation3, Vector3};
use r2r::flotilla_msgs::msg::{MhpCommand as CommandMsg, MhpLayout as LayoutMsg, MhpSensors as SensorsMsg, ModuleState, TankState};
use r2r::geometry_msgs::msg::{Point, Vector3 as Vector3Msg};
use r2r::visualization_msgs::msg::{Marker, MarkerArray};
use r2r::QosProfile;
use tank_physics::rate::due;
use tank_physics::stepping::{self, LockStep, Message, Refusals, Stepper, Timeline};
use tank_physics::systems::mhp::prototype::{PrototypeTrial, Stage, MODULE_HEIGHT};
use tracing::{info, warn};

use crate::settings::NodeSettings;

/// A command from `/<robot>/cmd` to the stepping thread: the robot's, answering the
/// reading stamped `.1` s.
struct Command(MhpCommand, f64);

/// Publishers the stepping thread uses.
struct Outputs {
    clock: r2r::Publisher<r2r::rosgraph_msgs::msg::Clock>,
    state: r2r::Publisher<TankState>,
    tf: r2r::Publisher<r2r::tf2_msgs::msg::TFMessage>,
    markers: r2r::Publisher<MarkerArray>,
    sensors: r2r::Publisher<SensorsMsg>,
    crossing: r2r::Publisher<r2r::std_msgs::msg::String>,
}

/// Runs the node until SIGINT/SIGTERM or `run.max_sim_time`; returns the summary line.
pub async fn run(startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    let trial = settings.trial().context("building the robot from the parameters")?;
    let mut node = startup.create_node()?;
    let latched = QosProfile::default().transient_local().keep_last(1);
    let name = settings.robot.name.clone();
    let (control_tx, control_rx) = mpsc::channel::<Message<Command>>();
    let mut commands = node.subscribe::<CommandMsg>(&format!("/{name}/cmd"), QosProfile::default())?;
    {
        let tx = control_tx.clone();
        let topic = format!("/{name}/cmd");
        tokio::spawn(async move {
            let mut finite = flotilla_common::finite::FiniteGuard::new(topic);
            while let Some(msg) = commands.next().await {
                if !finite.admit(&msg) {
                    continue;
                }
                let (command, stamp) = Mhp::command_from_msg(msg);
                if tx.send(Message::Node(Command(command, stamp))).is_err() {
                    break;
                }
            }
        });
    }
    // The layout does not change during a run: published once, latched.
    let layout = node.create_publisher::<LayoutMsg>(&format!("/{name}/layout"), latched.clone())?;
    layout.publish(&mhp_layout_msg(&trial.layout(), 0.0, &format!("{name}/base_link")))?;
    let outputs = Outputs {
        clock: node.create_publisher("/clock", QosProfile::default())?,
        state: node.create_publisher("/tank/state", QosProfile::default())?,
        tf: node.create_publisher("/tf", QosProfile::default())?,
        markers: node.create_publisher("/tank/markers", latched.clone())?,
        sensors: node.create_publisher(&format!("/{name}/sensors"), QosProfile::default())?,
        crossing: node.create_publisher("~/crossing", latched)?,
    };
    fros::serve_pause(&mut node, control_tx, Message::Pause, "the tank has stopped")?;
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    let stop = Arc::new(AtomicBool::new(false));
    info!(
        robot = %name,
        configuration = %settings.robot.configuration,
        modules = trial.modules(),
        seed = settings.seed,
        trial = settings.robot.trial,
        pump_force_mN = trial.robot().params().thrust * 1e3,
        real_time_factor = settings.run.real_time_factor,
        lockstep = settings.run.lockstep,
        "mhp_tank running"
    );
    let stepping = {
        let stop = stop.clone();
        tokio::task::spawn_blocking(move || {
            let lockstep = LockStep::new(settings.run.lockstep.then_some(settings.lockstep_timeout));
            let mut sim = Sim { trial, settings, out: outputs, reading: None, lockstep, refused: Refusals::default(), announced: false };
            sim.run(&stop, &control_rx)
        })
    };
    let summary = fros::until_done_or_signal(stepping, &stop, "tank thread").await?;
    spinner.stop();
    drop(layout);
    fros::release_node(node);
    Ok(summary)
}

/// The stepping thread's state.
struct Sim {
    trial: PrototypeTrial,
    settings: NodeSettings,
    out: Outputs,
    /// The last reading, as published.
    reading: Option<SensorsMsg>,
    /// The robot's answer to its last reading (one robot, index 0).
    lockstep: LockStep,
    /// Commands refused (wrong size, out of range), for the summary.
    refused: Refusals,
    /// Whether the crossing was announced.
    announced: bool,
}

impl Stepper for Sim {
    type Control = Command;

    fn time(&self) -> f64 {
        self.trial.time()
    }

    fn start(&mut self) {
        self.publish_state();
        self.publish_markers();
    }

    fn handle(&mut self, Command(command, stamp): Command) -> Timeline {
        self.take(&command, stamp);
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

    /// The reading of a control instant, once (the robot reads on its controller's period).
    fn before_wait(&mut self) {
        if !self.lockstep.waiting()
            && self.trial.control_due()
            && self.reading.as_ref().is_none_or(|r| fros_stamp(r) < self.trial.time() - 1e-9)
        {
            self.publish_sensors();
        }
    }

    /// The open tick's reading again, and `/tank/state` (a controller that learns its
    /// robots from it, started after the tank, finds the robot while the tank waits).
    fn resend(&mut self) {
        self.publish_state();
        if let Some(msg) = &self.reading {
            if let Err(e) = self.out.sensors.publish(msg) {
                warn!("publishing sensors: {e}");
            }
        }
    }

    fn timed_out(&mut self, stamp: f64, _missing: usize) {
        warn!(stamp, "lock step: the robot did not answer in time; stepping on");
    }

    fn step(&mut self) {
        let stage = self.trial.step();
        let (t, dt) = (self.trial.time(), self.trial.robot().params().dt);
        if stage == Stage::Finished && !self.announced {
            self.announce();
        }
        fros::publish_clock(&self.out.clock, t);
        let p = &self.settings.publish;
        if due(p.state_rate, t, dt) {
            self.publish_state();
        }
        if due(p.marker_rate, t, dt) && fros::listened(&self.out.markers) {
            self.publish_markers();
        }
    }
}

impl Sim {
    fn run(&mut self, stop: &AtomicBool, control: &mpsc::Receiver<Message<Command>>) -> String {
        let (run, dt) = (self.settings.run.clone(), self.trial.robot().params().dt);
        let ended = stepping::run(self, &run, dt, stop, control);
        let t = self.trial.time();
        let crossing = self.trial.crossing_time().map_or_else(|| "not crossed".to_owned(), |c| format!("{c:.2} s"));
        format!(
            "summary: {} after {t:.2} s of sim time in {:.2} s wall ({:.1}x real time), robot {} ({}), \
             start to finish line {crossing}, {} wall contact steps, {} refused commands, {} lock-step timeouts",
            ended.reason,
            ended.wall.as_secs_f64(),
            ended.speed(t),
            self.settings.robot.name,
            self.settings.robot.configuration,
            self.trial.wall_contacts(),
            self.refused.count(),
            self.lockstep.timeouts()
        )
    }

    /// Applies the robot's command (refused when malformed) and closes the tick it answers.
    fn take(&mut self, command: &MhpCommand, stamp: f64) {
        if command.thrust.is_empty() {
            // "Keep the last" (the contract): nothing to switch.
        } else if let Err(e) = self.trial.apply(&self.settings.robot.name, command) {
            self.refused.refuse(format_args!("command refused: {e}"));
            return;
        }
        self.lockstep.answer(0, stamp);
    }

    /// The robot's reading on `/<robot>/sensors`; in lock step, opens the tick.
    fn publish_sensors(&mut self) {
        let navigation = self.settings.robot.navigation;
        let frame = format!("{}/base_link", self.settings.robot.name);
        let reading: &MhpSensors = self.trial.read(navigation);
        let msg = Mhp::sensors_msg(reading, &frame);
        if let Err(e) = self.out.sensors.publish(&msg) {
            warn!("publishing sensors: {e}");
        }
        let stamp = flotilla_contract::stamp_seconds(reading.stamp);
        self.reading = Some(msg);
        self.lockstep.open(stamp, vec![false]);
    }

    /// The crossing, once: logged and on the latched `~/crossing`.
    fn announce(&mut self) {
        self.announced = true;
        let (Some(start), Some(finish), Some(crossing)) = (self.trial.started(), self.trial.finished(), self.trial.crossing_time()) else {
            return;
        };
        info!(robot = %self.settings.robot.name, start_s = start, finish_s = finish, crossing_time_s = crossing, "crossed the finish line");
        let data = serde_json::json!({
            "robot": self.settings.robot.name,
            "configuration": self.settings.robot.configuration,
            "seed": self.settings.seed,
            "trial": self.settings.robot.trial,
            "start_s": start,
            "finish_s": finish,
            "crossing_time_s": crossing,
            "distance_m": self.trial.tank().finish_x - self.trial.tank().start_x,
        })
        .to_string();
        if let Err(e) = self.out.crossing.publish(&r2r::std_msgs::msg::String { data }) {
            warn!("publishing ~/crossing: {e}");
        }
    }

    /// The model frame (water surface centre) in the world frame (tank floor centre).
    fn water_line(&self) -> Vector3<f64> {
        Vector3::new(0.0, 0.0, self.settings.water_depth)
    }

    /// Module `i`'s pose in the world frame: its box centre (the draft below the water line,
    /// half its height above that).
    fn module_pose(&self, i: usize) -> Isometry3<f64> {
        let pose = self.trial.module_pose(i);
        let lift = 0.5 * MODULE_HEIGHT - self.settings.modules.draft_mm * 1e-3;
        Isometry3::from_parts(Translation3::from(pose.translation.vector + self.water_line() + Vector3::z() * lift), pose.rotation)
    }

    /// The robot's body frame (centre of mass at the water line) in the world frame.
    fn body_pose(&self) -> Isometry3<f64> {
        let b = self.trial.robot().body();
        Isometry3::from_parts(Translation3::from(b.position + self.water_line()), b.orientation)
    }

    /// `/tank/state` and `/tf`, each only when someone listens.
    fn publish_state(&self) {
        let (state_wanted, tf_wanted) = (fros::listened(&self.out.state), fros::listened(&self.out.tf));
        if !state_wanted && !tf_wanted {
            return;
        }
        let t = self.trial.time();
        let header = fros::header(t, &self.settings.publish.frame_id);
        let name = &self.settings.robot.name;
        if state_wanted {
            let force = self.trial.robot().params().thrust;
            let pumps = self.trial.pumps();
            let b = self.trial.robot().body();
            let modules = (0..self.trial.modules())
                .map(|i| ModuleState {
                    id: i as u32,
                    name: name.clone(),
                    kind: ModuleKind::MhpSquare.name().to_owned(),
                    pose: fros::pose_msg(&self.module_pose(i)),
                    twist: r2r::geometry_msgs::msg::Twist {
                        linear: fros::vector_msg(&self.trial.module_velocity(i)),
                        angular: fros::vector_msg(&(b.orientation * b.angular_velocity)),
                    },
                    thrusters: (0..4).map(|f| if pumps.get(4 * i + f).copied().unwrap_or(false) { force } else { 0.0 }).collect(),
                    ..Default::default()
                })
                .collect();
            let s = &self.settings;
            let msg = TankState {
                header: header.clone(),
                step: (t / self.trial.robot().params().dt).round() as u64,
                sim_time: t,
                water_level: s.water_depth - s.wall_height,
                pump_power: Vec::new(),
                modules,
            };
            if let Err(e) = self.out.state.publish(&msg) {
                warn!("publishing /tank/state: {e}");
            }
        }
        if tf_wanted {
            let transforms = vec![r2r::geometry_msgs::msg::TransformStamped {
                header,
                child_frame_id: format!("{name}/base_link"),
                transform: fros::transform_msg(&self.body_pose()),
            }];
            if let Err(e) = self.out.tf.publish(&r2r::tf2_msgs::msg::TFMessage { transforms }) {
                warn!("publishing /tf: {e}");
            }
        }
    }

    /// `/tank/markers`: each module a box coloured by how many of its pumps fire (grey:
    /// none; yellow to red: one to four), a blue jet from every firing pump, the torch, the
    /// start (green) and finish (red) lines, the tank's rim and its water.
    fn publish_markers(&self) {
        let t = self.trial.time();
        let frame = &self.settings.publish.frame_id;
        let colour = fros::rgba;
        let point = |p: Vector3<f64>| Point { x: p.x, y: p.y, z: p.z };
        let base = |ns: &str, id: i32, type_: u8| fros::marker(t, frame, ns, id, i32::from(type_));
        let side = self.trial.robot().params().module_side;
        let pumps = self.trial.pumps();
        let mut markers = Vec::new();
        let mut jets = base("jets", 0, Marker::LINE_LIST as u8);
        jets.scale.x = 0.008;
        jets.color = colour(0.1, 0.4, 1.0, 0.9);
        for i in 0..self.trial.modules() {
            let pose = self.module_pose(i);
            let firing: Vec<usize> = (0..4).filter(|&f| pumps.get(4 * i + f).copied().unwrap_or(false)).collect();
            let mut module = base("modules", i as i32, Marker::CUBE as u8);
            module.pose = fros::pose_msg(&pose);
            module.scale = Vector3Msg { x: side, y: side, z: MODULE_HEIGHT };
            module.color = match firing.len() {
                0 => colour(0.75, 0.75, 0.78, 1.0),
                n => colour(1.0, 1.0 - 0.25 * n as f32, 0.1, 1.0),
            };
            markers.push(module);
            for f in firing {
                let n = Vector3::from(FACE_NORMALS[f].map(f64::from));
                let from = pose * Point3::from(n * (0.5 * side));
                let to = pose * Point3::from(n * (0.5 * side + 0.05));
                jets.points.push(point(from.coords));
                jets.points.push(point(to.coords));
            }
        }
        markers.push(jets);
        let s = &self.settings;
        let tank = self.trial.tank();
        let water = s.water_depth;
        let mut torch = base("torch", 0, Marker::SPHERE as u8);
        torch.pose.position = point(tank.torch + Vector3::new(0.0, 0.0, water + 0.05));
        torch.scale = Vector3Msg { x: 0.06, y: 0.06, z: 0.06 };
        torch.color = colour(1.0, 0.95, 0.3, 1.0);
        markers.push(torch);
        let (hx, hy) = (0.5 * tank.size_x, 0.5 * tank.size_y);
        for (ns, x, c) in
            [("start_line", tank.start_x, colour(0.1, 0.8, 0.2, 1.0)), ("finish_line", tank.finish_x, colour(0.9, 0.1, 0.1, 1.0))]
        {
            let mut line = base(ns, 0, Marker::LINE_STRIP as u8);
            line.scale.x = 0.006;
            line.color = c;
            line.points = vec![point(Vector3::new(x, -hy, water + 0.001)), point(Vector3::new(x, hy, water + 0.001))];
            markers.push(line);
        }
        let mut rim = base("tank", 0, Marker::LINE_STRIP as u8);
        rim.scale.x = 0.01;
        rim.color = colour(0.3, 0.3, 0.3, 1.0);
        rim.points = [(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy), (-hx, -hy)]
            .iter()
            .map(|&(x, y)| point(Vector3::new(x, y, s.wall_height)))
            .collect();
        markers.push(rim);
        let mut body = base("water", 0, Marker::CUBE as u8);
        body.pose.position = point(Vector3::new(0.0, 0.0, 0.5 * water));
        body.scale = Vector3Msg { x: tank.size_x, y: tank.size_y, z: water };
        body.color = colour(0.2, 0.45, 0.9, 0.12);
        markers.push(body);
        if let Err(e) = self.out.markers.publish(&MarkerArray { markers }) {
            warn!("publishing /tank/markers: {e}");
        }
    }
}

/// The stamp of a published reading, s.
fn fros_stamp(msg: &SensorsMsg) -> f64 {
    f64::from(msg.header.stamp.sec) + f64::from(msg.header.stamp.nanosec) * 1e-9
}
