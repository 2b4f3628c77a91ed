//! The ROS 2 side of `kilobot_swarm`: publishes the scene's placement
//! (`/kilobot/placement`, transient local: the `kilobot_table` started with
//! `robots.placement: topic` puts the robots down from it), answers every sensor batch on
//! `/kilobot/sensors` with one command batch on `/kilobot/cmd` (stamped with the reading's
//! stamp, so a table in lock step steps on at once), and draws `/kilobot/markers`: the
//! shape's outline, the robots' believed positions coloured by their LED (the program's
//! state), and their
//! gradient values as labels on their own frames (`<robot>/base_link`, from the table's
//! `/tf`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use flotilla_common::ros_contract::{kilobot_sensors_non_finite, RosBatch};
use flotilla_contract::kilobot::{Kilobot, KilobotCommand};
use flotilla_firmware::kilobot::{OverheadControlled, SelfAssembly, State};
use futures::StreamExt;
use r2r::flotilla_msgs::msg::{KilobotCommandBatch, KilobotPlacement, KilobotSensorsBatch};
use r2r::geometry_msgs::msg::{Point, Vector3};
use r2r::std_msgs::msg::ColorRGBA;
use r2r::visualization_msgs::msg::{Marker, MarkerArray};
use r2r::QosProfile;
use tank_physics::systems::kilobot::WORLD_UNIT_M;
use tracing::{info, warn};

use crate::settings::SwarmSettings;

/// Runs the node until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, settings: SwarmSettings) -> anyhow::Result<String> {
    let scene = &settings.scene;
    let firmware = (0..scene.len())
        .map(|i| scene.firmware(i, settings.firmware).map(|f| OverheadControlled::new(f, settings.overhead.wait_for_run)))
        .collect::<Result<Vec<_>, _>>()
        .context("building the firmware")?;
    let mut node = startup.create_node()?;
    let latched = QosProfile::default().transient_local().keep_last(1);
    let placement = node.create_publisher::<KilobotPlacement>("/kilobot/placement", latched.clone())?;
    let commands = node.create_publisher::<KilobotCommandBatch>("/kilobot/cmd", QosProfile::default())?;
    let markers = node.create_publisher::<MarkerArray>("/kilobot/markers", latched)?;
    let mut sensors = node.subscribe::<KilobotSensorsBatch>("/kilobot/sensors", QosProfile::default())?;
    placement.publish(&placement_msg(&settings)).context("publishing /kilobot/placement")?;
    info!(
        robots = scene.len(),
        seeds = scene.seeds(),
        image = %settings.image.display(),
        scale = scene.shape.scale(),
        wait_for_run = settings.overhead.wait_for_run,
        "kilobot_swarm placed the robots; hosting their firmware"
    );
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());
    let mut host = Host::new(&settings, firmware, commands, markers);
    host.publish_markers(0.0);
    let reason = tokio::select! {
        signal = fros::shutdown_signal() => {
            match signal {
                Ok(signal) => info!(signal, "shutting down"),
                Err(e) => warn!("waiting for a shutdown signal: {e}"),
            }
            "stopped on request"
        }
        () = async {
            while let Some(batch) = sensors.next().await {
                host.answer(batch);
            }
        } => "the sensor topic closed",
    };
    let summary = host.summary(reason);
    spinner.stop();
    fros::release_node(node);
    Ok(summary)
}

/// The scene as a placement message (m, rad; the seeds anchored).
fn placement_msg(settings: &SwarmSettings) -> KilobotPlacement {
    let scene = &settings.scene;
    KilobotPlacement {
        header: fros::header(0.0, &settings.markers.frame_id),
        robots: settings.names.clone(),
        x: scene.poses.iter().map(|p| p.x * WORLD_UNIT_M).collect(),
        y: scene.poses.iter().map(|p| p.y * WORLD_UNIT_M).collect(),
        theta: scene.poses.iter().map(|p| p.theta).collect(),
        anchored: (0..scene.len()).map(|i| i < scene.seeds()).collect(),
    }
}

/// The swarm's firmware and what it answers with.
struct Host<'a> {
    settings: &'a SwarmSettings,
    firmware: Vec<OverheadControlled<SelfAssembly>>,
    index: HashMap<String, usize>,
    /// One command per robot, buffers reused.
    commands: Vec<KilobotCommand>,
    /// Robots answered in the current batch, in its order.
    answered: Vec<usize>,
    out: r2r::Publisher<KilobotCommandBatch>,
    markers: r2r::Publisher<MarkerArray>,
    outline: Vec<Point>,
    batches: u64,
    refused: u64,
    sim_time: f64,
    next_markers: f64,
    next_report: f64,
}

impl<'a> Host<'a> {
    fn new(
        settings: &'a SwarmSettings,
        firmware: Vec<OverheadControlled<SelfAssembly>>,
        out: r2r::Publisher<KilobotCommandBatch>,
        markers: r2r::Publisher<MarkerArray>,
    ) -> Self {
        let index = settings.names.iter().enumerate().map(|(i, n)| (n.clone(), i)).collect();
        let outline = robot_controller::kilobot::outline(&settings.scene.shape)
            .into_iter()
            .flatten()
            .map(|[x, y]| Point { x: x * WORLD_UNIT_M, y: y * WORLD_UNIT_M, z: 0.0 })
            .collect();
        let n = firmware.len();
        Self {
            settings,
            firmware,
            index,
            commands: vec![KilobotCommand::default(); n],
            answered: Vec::with_capacity(n),
            out,
            markers,
            outline,
            batches: 0,
            refused: 0,
            sim_time: 0.0,
            next_markers: 0.0,
            next_report: settings.report_every,
        }
    }

    /// Runs every robot of a sensor batch and publishes their commands in one batch.
    fn answer(&mut self, batch: KilobotSensorsBatch) {
        // A NaN distance reached the firmware as is (every other controller subscription
        // drops non-finite messages).
        if let Some(field) = kilobot_sensors_non_finite(&batch) {
            self.refuse(&format!("sensor batch dropped: {field} is not finite"));
            return;
        }
        let (stamp, readings) = match Kilobot::sensors_from_batch(batch) {
            Ok(b) => b,
            Err(e) => {
                self.refuse(&format!("sensor batch dropped: {e}"));
                return;
            }
        };
        self.answered.clear();
        for (name, reading) in &readings {
            let Some(&i) = self.index.get(name) else {
                self.refuse(&format!("reading for `{name}`: no such robot in this swarm"));
                continue;
            };
            self.firmware[i].step_into(reading, &mut self.commands[i]);
            self.answered.push(i);
        }
        let pairs: Vec<(&str, &KilobotCommand)> =
            self.answered.iter().map(|&i| (self.settings.names[i].as_str(), &self.commands[i])).collect();
        if let Err(e) = self.out.publish(&Kilobot::command_batch(stamp, &pairs)) {
            warn!("publishing /kilobot/cmd: {e}");
        }
        self.batches += 1;
        self.sim_time = stamp;
        let rate = self.settings.markers.rate;
        if rate > 0.0 && stamp + 1e-9 >= self.next_markers {
            self.next_markers = stamp + 1.0 / rate;
            if fros::listened(&self.markers) {
                self.publish_markers(stamp);
            }
        }
        if self.settings.report_every > 0.0 && stamp >= self.next_report {
            self.next_report = stamp + self.settings.report_every;
            let c = self.counts();
            info!(sim_time = stamp, joined = c.joined, moving = c.moving, waiting = c.waiting, idle = c.idle, "swarm");
        }
    }

    fn refuse(&mut self, why: &str) {
        self.refused += 1;
        if self.refused <= 5 || self.refused % 1000 == 0 {
            warn!(refused = self.refused, "{why}");
        }
    }

    /// Robots (seeds excluded) per state.
    fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for fw in &self.firmware[self.settings.scene.seeds()..] {
            if !fw.running() {
                c.idle += 1;
            }
            match fw.program().state() {
                State::JoinedShape => c.joined += 1,
                s if s.is_moving() => c.moving += 1,
                _ => c.waiting += 1,
            }
        }
        c
    }

    fn summary(&self, reason: &str) -> String {
        let c = self.counts();
        format!(
            "summary: {reason} at {:.2} s of sim time: {} robots + {} seeds, {} joined, {} edge-following, {} waiting, {} idle; \
             {} sensor batches answered, {} refused",
            self.sim_time,
            self.firmware.len() - self.settings.scene.seeds(),
            self.settings.scene.seeds(),
            c.joined,
            c.moving,
            c.waiting,
            c.idle,
            self.batches,
            self.refused
        )
    }

    /// `/kilobot/markers`: outline, believed positions by state, gradient labels.
    fn publish_markers(&self, t: f64) {
        let frame = &self.settings.markers.frame_id;
        let d = 2.0 * flotilla_common::catalogue::ModuleKind::Kilobot.spec().shape.horizontal_radius();
        let base = |ns: &str, id: i32, type_: i32, frame: &str| fros::marker(t, frame, ns, id, type_);
        let mut outline = base("shape", 0, Marker::LINE_LIST as i32, frame);
        outline.scale = Vector3 { x: 0.002, y: 0.0, z: 0.0 };
        outline.color = ColorRGBA { r: 0.1, g: 0.1, b: 0.1, a: 1.0 };
        outline.points = self.outline.clone();
        let mut believed = base("believed", 0, Marker::SPHERE_LIST as i32, frame);
        believed.scale = Vector3 { x: 0.4 * d, y: 0.4 * d, z: 0.4 * d };
        believed.color = ColorRGBA { r: 1.0, g: 1.0, b: 1.0, a: 1.0 };
        let mut labels = Vec::new();
        let label = self.firmware.len() <= self.settings.markers.max_labels;
        for (i, fw) in self.firmware.iter().enumerate() {
            let program = fw.program();
            if program.localised() {
                let [x, y] = program.position();
                believed.points.push(Point { x: x * WORLD_UNIT_M, y: y * WORLD_UNIT_M, z: 0.5 * d });
                believed.colors.push(led_colour(self.commands[i].led));
            }
            if label {
                let mut text =
                    base("gradient", i as i32, Marker::TEXT_VIEW_FACING as i32, &format!("{}/base_link", self.settings.names[i]));
                text.pose.position.z = 0.6 * d;
                text.scale.z = 0.5 * d;
                text.color = ColorRGBA { r: 0.0, g: 0.0, b: 0.0, a: 1.0 };
                text.text = program.gradient().map_or_else(|| "-".to_owned(), |g| g.to_string());
                labels.push(text);
            }
        }
        let mut all = vec![outline, believed];
        all.extend(labels);
        if let Err(e) = self.markers.publish(&MarkerArray { markers: all }) {
            warn!("publishing /kilobot/markers: {e}");
        }
    }
}

/// Robots (seeds excluded) per firmware state.
#[derive(Default)]
struct Counts {
    joined: usize,
    moving: usize,
    waiting: usize,
    idle: usize,
}

/// The colour the robot's LED shows (the self-assembly program shows its state with it);
/// grey when off (idle, paused or not yet run).
fn led_colour([r, g, b]: [f64; 3]) -> ColorRGBA {
    if r + g + b <= 0.0 {
        ColorRGBA { r: 0.5, g: 0.5, b: 0.5, a: 1.0 }
    } else {
        ColorRGBA { r: r as f32, g: g as f32, b: b as f32, a: 1.0 }
    }
}
