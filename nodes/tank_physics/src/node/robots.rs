//! The hardware contract per robot: `<name>/cmd` in, `<name>/sensors` out. Only modules
//! with latches or thrusters are robots; passive bodies (balls) have neither topic.
//!
//! What the simulated sensors report: `latched` and `contact` per face (contact = a face
//! of another module within the latch's capture distance and angle), `target_seen` empty
//! (no target in the tank yet). Not modelled yet: the light sensor (always 0) and the
//! inductive channel (`radio_rx` empty).

use std::collections::HashMap;
use std::sync::{mpsc, Arc, Mutex};

use flotilla_common::ros as fros;
use futures::StreamExt;
use nalgebra::Point3;
use r2r::flotilla_msgs::msg::{LatchState, RobotCommand, RobotSensors};
use r2r::QosProfile;
use tank_physics::{BodyState, World};
use tracing::warn;

use super::Control;

/// A module that has actuators of its own (so it gets `cmd` and `sensors`).
fn is_robot(b: &BodyState) -> bool {
    b.faces.iter().any(|f| f.has_latch || f.has_thruster)
}

/// Per-module topics, created and dropped as modules come and go: every module's
/// `<name>/robot_description` (its URDF, transient-local, for robot_state_publisher with
/// `frame_prefix: <name>/`), and each robot's `cmd` and `sensors`.
pub struct RobotIo {
    control: mpsc::Sender<Control>,
    sensors: Arc<Mutex<HashMap<String, r2r::Publisher<RobotSensors>>>>,
    commands: Mutex<HashMap<String, tokio::task::JoinHandle<()>>>,
    descriptions: Mutex<HashMap<String, r2r::Publisher<r2r::std_msgs::msg::String>>>,
}

impl RobotIo {
    pub fn new(control: mpsc::Sender<Control>) -> Self {
        Self { control, sensors: Arc::default(), commands: Mutex::default(), descriptions: Mutex::default() }
    }

    /// The publishers the stepping thread uses.
    pub fn sensor_outputs(&self) -> SensorOutputs {
        SensorOutputs { publishers: self.sensors.clone() }
    }

    /// Makes the per-robot topics match `bodies`. Needs a tokio runtime (command tasks).
    pub fn sync(&self, node: &mut r2r::Node, bodies: &[BodyState]) {
        self.sync_descriptions(node, bodies);
        let wanted: HashMap<&str, &BodyState> = bodies.iter().filter(|b| is_robot(b)).map(|b| (b.name.as_str(), b)).collect();
        let (Ok(mut sensors), Ok(mut commands)) = (self.sensors.lock(), self.commands.lock()) else { return };
        sensors.retain(|name, _| wanted.contains_key(name.as_str()));
        commands.retain(|name, task| {
            let keep = wanted.contains_key(name.as_str());
            if !keep {
                task.abort();
            }
            keep
        });
        for name in wanted.keys() {
            if sensors.contains_key(*name) {
                continue;
            }
            let publisher = node.create_publisher::<RobotSensors>(&format!("/{name}/sensors"), QosProfile::default());
            let subscription = node.subscribe::<RobotCommand>(&format!("/{name}/cmd"), QosProfile::default());
            match (publisher, subscription) {
                (Ok(p), Ok(mut s)) => {
                    sensors.insert((*name).to_owned(), p);
                    let control = self.control.clone();
                    let robot = (*name).to_owned();
                    commands.insert(
                        robot.clone(),
                        tokio::spawn(async move {
                            while let Some(msg) = s.next().await {
                                let command = tank_physics::Command {
                                    latch_on: msg.latch,
                                    thruster_on: msg.thrust.iter().map(|t| *t > 0.0).collect(),
                                };
                                if control.send(Control::Command { name: robot.clone(), command }).is_err() {
                                    break;
                                }
                            }
                        }),
                    );
                }
                (Err(e), _) | (_, Err(e)) => warn!(robot = %name, "cannot create the robot's topics: {e}"),
            }
        }
    }
}

impl RobotIo {
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

/// `<name>/sensors` publishers, used from the stepping thread.
pub struct SensorOutputs {
    publishers: Arc<Mutex<HashMap<String, r2r::Publisher<RobotSensors>>>>,
}

impl SensorOutputs {
    /// Publishes every robot's sensor reading at sim time `t`.
    pub fn publish(&self, world: &World, t: f64) {
        let Ok(publishers) = self.publishers.lock() else { return };
        if publishers.is_empty() {
            return;
        }
        let bodies = world.bodies();
        let faces = latch_faces(&bodies);
        for b in &bodies {
            let Some(publisher) = publishers.get(&b.name) else { continue };
            let msg = RobotSensors {
                header: fros::header(t, &format!("{}/base_link", b.name)),
                latched: b.faces.iter().map(|f| f.latched.is_some()).collect(),
                contact: contact(b, &faces),
                light: 0.0,
                target_seen: Vec::new(),
                radio_rx: Vec::new(),
            };
            if let Err(e) = publisher.publish(&msg) {
                warn!(robot = %b.name, "publishing sensors: {e}");
            }
        }
    }
}

/// A latch face in the world frame.
struct WorldFace {
    body: u32,
    centre: Point3<f64>,
    normal: nalgebra::Vector3<f64>,
}

fn latch_faces(bodies: &[BodyState]) -> Vec<WorldFace> {
    let mut out = Vec::new();
    for b in bodies {
        let spec = b.kind.spec();
        for face in spec.faces.iter().filter(|f| f.latch.is_some()) {
            out.push(WorldFace {
                body: b.id,
                centre: b.pose * Point3::from(face.centre),
                normal: b.pose.rotation * face.normal,
            });
        }
    }
    out
}

/// Per face of `b`: another module's latch face within capture distance, facing it.
fn contact(b: &BodyState, faces: &[WorldFace]) -> Vec<bool> {
    let spec = b.kind.spec();
    spec.faces
        .iter()
        .map(|face| {
            let Some(latch) = face.latch else { return false };
            let centre = b.pose * Point3::from(face.centre);
            let normal = b.pose.rotation * face.normal;
            faces.iter().any(|other| {
                other.body != b.id
                    && (other.centre - centre).norm() <= latch.capture_distance
                    && (-other.normal).angle(&normal) <= latch.capture_angle
            })
        })
        .collect()
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
