//! The ROS 2 side of `blueswarm_tank`: the swarm world steps on its own thread, paced to
//! the real-time factor, and publishes `/clock`, `/tank/state` (every robot as a `bluebot`
//! module, world frame: the tank's floor centre, z up), `/tf` (`world -> <robot>/base_link`)
//! and `/tank/markers` (bodies, LEDs lit / flashing / off, the red source, the water, and
//! optionally each robot's vision rays) when someone listens; every sensing period (0.5 s
//! of sim time) each robot's reading on `/<robot>/sensors` (`flotilla_msgs/BluebotSensors`:
//! blobs, paired neighbours, flashes, depth); commands come on `/<robot>/cmd`
//! (`BluebotCommand`: fin frequencies, LEDs, flashing). The swarm's metrics
//! ([`SwarmMetrics`]) go out as JSON on `~/metrics` and as rows of the metrics CSV. With
//! `run.lockstep` the world waits after each sensing instant until every robot answered
//! that reading (the readings of robots that have not answered go out again every 200 ms
//! of wall time, so a controller that connects late still gets the first ones).

use std::io::Write as _;
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc, Mutex};

use anyhow::Context as _;
use flotilla_common::catalogue::ModuleKind;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use flotilla_common::ros_contract::RosHardware;
use flotilla_contract::bluebot::{Bluebot, BluebotCommand, BluebotSensors};
use futures::StreamExt;
use nalgebra::{Isometry3, Point3, Translation3, Vector3};
use r2r::flotilla_msgs::msg::{BluebotCommand as CommandMsg, BluebotSensors as SensorsMsg, ModuleState, TankState};
use r2r::visualization_msgs::msg::{Marker, MarkerArray};
use r2r::QosProfile;
use tank_physics::rate::due;
use tank_physics::stepping::{self, LockStep, Message, Refusals, Stepper, Timeline};
use tank_physics::systems::bluebot::metrics::{Sample, SwarmMetrics, CSV_HEADER};
use tank_physics::systems::bluebot::SwarmWorld;
use tracing::{info, warn};

use crate::settings::NodeSettings;

/// A command from a `/<robot>/cmd` to the stepping thread: robot `.0`'s, answering the
/// reading stamped `.2` s.
struct Command(usize, BluebotCommand, f64);

/// Publishers the stepping thread uses.
struct Outputs {
    clock: r2r::Publisher<r2r::rosgraph_msgs::msg::Clock>,
    state: r2r::Publisher<TankState>,
    tf: r2r::Publisher<r2r::tf2_msgs::msg::TFMessage>,
    markers: r2r::Publisher<MarkerArray>,
    metrics: r2r::Publisher<r2r::std_msgs::msg::String>,
    /// One per robot, by index.
    sensors: Vec<r2r::Publisher<SensorsMsg>>,
}

/// Runs the node until SIGINT/SIGTERM or `run.max_sim_time`; returns the summary line.
pub async fn run(startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    let world = settings.world().context("building the tank from the parameters")?;
    let csv = match &settings.metrics_csv {
        Some(path) => {
            let mut file = std::fs::File::create(path).with_context(|| format!("metrics_csv: cannot create {}", path.display()))?;
            writeln!(file, "{CSV_HEADER}").with_context(|| format!("metrics_csv: writing {}", path.display()))?;
            Some(file)
        }
        None => None,
    };
    let mut node = startup.create_node()?;
    let latched = QosProfile::default().transient_local().keep_last(1);
    let (control_tx, control_rx) = mpsc::channel::<Message<Command>>();
    let mut sensors = Vec::new();
    let mut descriptions = Vec::new();
    for (i, (name, _, _)) in settings.robots.iter().enumerate() {
        sensors.push(node.create_publisher::<SensorsMsg>(&format!("/{name}/sensors"), QosProfile::default())?);
        let mut commands = node.subscribe::<CommandMsg>(&format!("/{name}/cmd"), QosProfile::default())?;
        let tx = control_tx.clone();
        let topic = format!("/{name}/cmd");
        tokio::spawn(async move {
            let mut finite = flotilla_common::finite::FiniteGuard::new(topic);
            while let Some(msg) = commands.next().await {
                if !finite.admit(&msg) {
                    continue;
                }
                let (command, stamp) = Bluebot::command_from_msg(msg);
                if tx.send(Message::Node(Command(i, command, stamp))).is_err() {
                    break;
                }
            }
        });
        if settings.publish.robot_descriptions {
            let p = node.create_publisher::<r2r::std_msgs::msg::String>(&format!("/{name}/robot_description"), latched.clone())?;
            p.publish(&r2r::std_msgs::msg::String { data: settings.robot_description.clone() })?;
            descriptions.push(p);
        }
    }
    let outputs = Outputs {
        clock: node.create_publisher("/clock", QosProfile::default())?,
        state: node.create_publisher("/tank/state", QosProfile::default())?,
        tf: node.create_publisher("/tf", QosProfile::default())?,
        markers: node.create_publisher("/tank/markers", latched.clone())?,
        metrics: node.create_publisher("~/metrics", QosProfile::default())?,
        sensors,
    };
    fros::serve_pause(&mut node, control_tx, Message::Pause, "the tank has stopped")?;
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let (robots, real_time_factor, vision) = (settings.robots.len(), settings.run.real_time_factor, world.vision_name());
    let stepping = {
        let stop = stop.clone();
        tokio::task::spawn_blocking(move || {
            let n = world.robots().len();
            let lockstep = LockStep::new(settings.run.lockstep.then_some(settings.lockstep_timeout));
            let (metrics, readings) = (SwarmMetrics::new(n), vec![None; n]);
            let mut sim = Sim { metrics, world, settings, out: outputs, csv, readings, lockstep, refused: Refusals::default(), samples: 0 };
            sim.run(&stop, &control_rx)
        })
    };
    info!(robots, real_time_factor, vision, "blueswarm_tank running");
    let summary = fros::until_done_or_signal(stepping, &stop, "tank thread").await?;
    spinner.stop();
    drop(descriptions);
    fros::release_node(node);
    Ok(summary)
}

/// The stepping thread's state.
struct Sim {
    world: SwarmWorld,
    settings: NodeSettings,
    out: Outputs,
    metrics: SwarmMetrics,
    csv: Option<std::fs::File>,
    /// Each robot's last reading (vision rays).
    readings: Vec<Option<BluebotSensors>>,
    lockstep: LockStep,
    /// Commands refused (out of range), for the summary.
    refused: Refusals,
    /// Metrics samples published, for the summary.
    samples: u64,
}

impl Stepper for Sim {
    type Control = Command;

    fn time(&self) -> f64 {
        self.world.time()
    }

    fn start(&mut self) {
        self.publish_state();
        self.publish_markers();
        self.publish_sensors();
    }

    fn handle(&mut self, Command(i, command, stamp): Command) -> Timeline {
        self.take(i, &command, stamp);
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

    /// The open tick's readings again, to the robots that have not answered it.
    fn resend(&mut self) {
        for (i, reading) in self.readings.iter().enumerate() {
            let (Some(reading), true) = (reading, self.lockstep.missing(i)) else { continue };
            let name = &self.settings.robots[i].0;
            if let Err(e) = self.out.sensors[i].publish(&Bluebot::sensors_msg(reading, &format!("{name}/base_link"))) {
                warn!(robot = %name, "publishing sensors: {e}");
            }
        }
    }

    fn step(&mut self) {
        self.world.step();
        let (t, dt) = (self.world.time(), self.world.config().dt);
        fros::publish_clock(&self.out.clock, t);
        let p = &self.settings.publish;
        let (state, markers, metrics) = (due(p.state_rate, t, dt), due(p.marker_rate, t, dt), due(p.metrics_rate, t, dt));
        if due(1.0 / self.world.config().sensing_period, t, dt) {
            self.publish_sensors();
        }
        if state {
            self.publish_state();
        }
        if markers && fros::listened(&self.out.markers) {
            self.publish_markers();
        }
        if metrics {
            self.publish_metrics();
            self.samples += 1;
        }
    }
}

impl Sim {
    fn run(&mut self, stop: &AtomicBool, control: &mpsc::Receiver<Message<Command>>) -> String {
        let (run, dt) = (self.settings.run.clone(), self.world.config().dt);
        let ended = stepping::run(self, &run, dt, stop, control);
        let t = self.world.time();
        format!(
            "summary: {} after {t:.2} s of sim time in {:.2} s wall ({:.1}x real time), {} robots, {} contacts, \
             {} metrics samples, {} refused commands, {} lock-step timeouts",
            ended.reason,
            ended.wall.as_secs_f64(),
            ended.speed(t),
            self.world.robots().len(),
            self.world.contacts(),
            self.samples,
            self.refused.count(),
            self.lockstep.timeouts()
        )
    }

    /// Applies robot `i`'s command (refused when out of range) and counts it for lock step.
    fn take(&mut self, i: usize, command: &BluebotCommand, stamp: f64) {
        if let Err(e) = self.world.apply(i, command) {
            self.refused.refuse(format_args!("command refused: {e}"));
            return;
        }
        let commands: Vec<&BluebotCommand> = self.world.robots().iter().map(|r| &r.command).collect();
        self.metrics.observe_commands(self.world.time(), &commands);
        self.lockstep.answer(i, stamp);
    }

    /// Every robot's reading on its `/<robot>/sensors`; in lock step, opens the tick.
    fn publish_sensors(&mut self) {
        self.readings = self.world.sense_all();
        let present: Vec<&BluebotSensors> = self.readings.iter().flatten().collect();
        self.metrics.observe_readings(&present);
        for ((reading, publisher), (name, _, _)) in self.readings.iter().zip(&self.out.sensors).zip(&self.settings.robots) {
            let Some(reading) = reading else { continue };
            if let Err(e) = publisher.publish(&Bluebot::sensors_msg(reading, &format!("{name}/base_link"))) {
                warn!(robot = %name, "publishing sensors: {e}");
            }
        }
        let answered = self.readings.iter().map(Option::is_none).collect();
        self.lockstep.open(flotilla_contract::stamp_seconds(self.world.time()), answered);
    }

    /// The world frame's pose of a tank-frame pose (the tank frame's origin is a floor
    /// corner; the world's is the floor centre).
    fn to_world(&self) -> Vector3<f64> {
        let tank = &self.world.config().tank;
        Vector3::new(-0.5 * tank.size_x, -0.5 * tank.size_y, 0.0)
    }

    /// Robot `i`'s pose in the world frame.
    fn pose(&self, i: usize) -> Isometry3<f64> {
        let body = &self.world.robots()[i].body;
        Isometry3::from_parts(Translation3::from(body.position + self.to_world()), body.orientation)
    }

    /// The swarm's metrics now, on `~/metrics` (JSON) and in the CSV (written first).
    fn publish_metrics(&mut self) {
        let present: Vec<usize> = (0..self.world.robots().len()).filter(|&i| self.world.robots()[i].present).collect();
        let robots = self.world.robots();
        let positions: Vec<Vector3<f64>> = present.iter().map(|&i| robots[i].body.position).collect();
        let surface = self.world.config().tank.water_depth;
        let depths: Vec<f64> = positions.iter().map(|p| surface - p.z).collect();
        let commands: Vec<&BluebotCommand> = present.iter().map(|&i| &robots[i].command).collect();
        let sample = self.metrics.sample(self.world.time(), &positions, &depths, &commands);
        if let Some(file) = self.csv.as_mut() {
            if let Err(e) = writeln!(file, "{}", sample.csv_row()).and_then(|()| file.flush()) {
                warn!("metrics CSV stopped: {e}");
                self.csv = None;
            }
        }
        if let Err(e) = self.out.metrics.publish(&r2r::std_msgs::msg::String { data: metrics_json(&sample) }) {
            warn!("publishing ~/metrics: {e}");
        }
    }

    /// `/tank/state` and `/tf`, each only when someone listens.
    fn publish_state(&self) {
        let (state_wanted, tf_wanted) = (fros::listened(&self.out.state), fros::listened(&self.out.tf));
        if !state_wanted && !tf_wanted {
            return;
        }
        let t = self.world.time();
        let header = fros::header(t, &self.settings.publish.frame_id);
        let robots = self.world.robots();
        let present: Vec<usize> = (0..robots.len()).filter(|&i| robots[i].present).collect();
        if state_wanted {
            let modules = present
                .iter()
                .map(|&i| {
                    let body = &robots[i].body;
                    ModuleState {
                        id: i as u32,
                        name: robots[i].name.clone(),
                        kind: ModuleKind::Bluebot.name().to_owned(),
                        pose: fros::pose_msg(&self.pose(i)),
                        twist: r2r::geometry_msgs::msg::Twist {
                            linear: fros::vector_msg(&body.velocity),
                            angular: fros::vector_msg(&(body.orientation * body.angular_velocity)),
                        },
                        ..Default::default()
                    }
                })
                .collect();
            let tank = &self.world.config().tank;
            let msg = TankState {
                header: header.clone(),
                step: (t / self.world.config().dt).round() as u64,
                sim_time: t,
                water_level: tank.water_depth - tank.height,
                pump_power: Vec::new(),
                modules,
            };
            if let Err(e) = self.out.state.publish(&msg) {
                warn!("publishing /tank/state: {e}");
            }
        }
        if tf_wanted {
            let transforms = present
                .iter()
                .map(|&i| r2r::geometry_msgs::msg::TransformStamped {
                    header: header.clone(),
                    child_frame_id: format!("{}/base_link", robots[i].name),
                    transform: fros::transform_msg(&self.pose(i)),
                })
                .collect();
            if let Err(e) = self.out.tf.publish(&r2r::tf2_msgs::msg::TFMessage { transforms }) {
                warn!("publishing /tf: {e}");
            }
        }
    }

    /// `/tank/markers`: every robot's body (a box), its two LEDs (blue when lit, pale cyan
    /// when flashing, dark when off), the red source, the water, and with
    /// `publish.vision_rays` a line from each robot to every neighbour it paired last.
    fn publish_markers(&self) {
        let t = self.world.time();
        let frame = &self.settings.publish.frame_id;
        let config = self.world.config();
        let colour = fros::rgba;
        let point = |p: Vector3<f64>| r2r::geometry_msgs::msg::Point { x: p.x, y: p.y, z: p.z };
        let base = |ns: &str, id: i32, type_: u8| fros::marker(t, frame, ns, id, i32::from(type_));
        let mut markers = Vec::new();
        let size = 2.0 * config.body.half_extents;
        let led_size = 0.02;
        let mut leds = base("leds", 0, Marker::SPHERE_LIST as u8);
        leds.scale = r2r::geometry_msgs::msg::Vector3 { x: led_size, y: led_size, z: led_size };
        leds.color = colour(1.0, 1.0, 1.0, 1.0);
        let mut rays = base("vision", 0, Marker::LINE_LIST as u8);
        rays.scale.x = 0.004;
        rays.color = colour(1.0, 0.9, 0.2, 0.6);
        for (i, robot) in self.world.robots().iter().enumerate() {
            let pose = self.pose(i);
            let mut body = base("bluebots", i as i32, Marker::CUBE as u8);
            if !robot.present {
                body.action = Marker::DELETE as i32;
                markers.push(body);
                continue;
            }
            body.pose = fros::pose_msg(&pose);
            body.scale = r2r::geometry_msgs::msg::Vector3 { x: size.x, y: size.y, z: size.z };
            body.color = colour(0.85, 0.85, 0.9, 1.0);
            markers.push(body);
            let lit = match (robot.command.flashing, robot.command.leds) {
                (true, _) => colour(0.6, 0.95, 1.0, 1.0),
                (false, true) => colour(0.1, 0.3, 1.0, 1.0),
                (false, false) => colour(0.15, 0.15, 0.2, 1.0),
            };
            let layout = &config.layout;
            for sign in [-0.5, 0.5] {
                let led = pose * Point3::from(layout.midpoint + Vector3::new(0.0, 0.0, sign * layout.spacing));
                leds.points.push(point(led.coords));
                leds.colors.push(lit.clone());
            }
            if self.settings.publish.vision_rays {
                if let Some(reading) = &self.readings[i] {
                    let eye = pose * Point3::from(layout.midpoint);
                    for n in &reading.neighbours {
                        let seen = pose * Point3::from(layout.midpoint + Vector3::from(n.position()));
                        rays.points.push(point(eye.coords));
                        rays.points.push(point(seen.coords));
                    }
                }
            }
        }
        markers.push(leds);
        if self.settings.publish.vision_rays {
            markers.push(rays);
        }
        let tank = &config.tank;
        if let Some(source) = &tank.red_source {
            let mut red = base("red_source", 0, Marker::SPHERE as u8);
            red.pose = fros::pose_msg(&Isometry3::translation(0.0, 0.0, 0.0));
            red.pose.position = point(source.position + self.to_world());
            red.scale = r2r::geometry_msgs::msg::Vector3 { x: 0.05, y: 0.05, z: 0.05 };
            red.color = colour(1.0, 0.1, 0.1, 1.0);
            markers.push(red);
        }
        let mut water = base("water", 0, Marker::CUBE as u8);
        water.pose.position = point(Vector3::new(0.0, 0.0, 0.5 * tank.water_depth));
        water.scale = r2r::geometry_msgs::msg::Vector3 { x: tank.size_x, y: tank.size_y, z: tank.water_depth };
        water.color = colour(0.2, 0.45, 0.9, 0.12);
        markers.push(water);
        if let Err(e) = self.out.markers.publish(&MarkerArray { markers }) {
            warn!("publishing /tank/markers: {e}");
        }
    }
}

/// A metrics sample as one JSON object (null where a figure is undefined).
fn metrics_json(s: &Sample) -> String {
    let f = |x: f64| if x.is_finite() { serde_json::json!(x) } else { serde_json::Value::Null };
    serde_json::json!({
        "time_s": s.time,
        "robots": s.robots,
        "hull_volume_m3": f(s.hull_volume),
        "density_per_m3": f(s.density),
        "mean_nnd_m": f(s.mean_nnd),
        "neighbours_seen": f(s.neighbours_seen),
        "circle_radius_m": f(s.circle_radius),
        "circle_cv": f(s.circle_cv),
        "mean_depth_m": f(s.mean_depth),
        "lit": s.lit,
        "flashing": s.flashing,
        "dark": s.dark,
        "rounds": s.rounds,
        "flash_spread_s": f(s.flash_spread),
        "first_alert_s": s.first_alert,
        "all_alerted_s": s.all_alerted,
        "all_alerting_s": s.all_alerting,
    })
    .to_string()
}
