//! The hardware contract on ROS: each robot system's sensor and command types
//! (`flotilla_contract`) as their `flotilla_msgs` messages, field for field. A real
//! robot's driver publishes the sensor message and obeys the command message; the physics
//! node and the controller host convert with [`RosHardware`] and nothing else. Systems
//! of swarms of small robots also have batched messages ([`RosBatch`]): every robot's
//! reading of a tick in one message, commands of many robots in one message.

use crate::ros::header;
use flotilla_contract::bluebot::{Blob, Bluebot, BluebotCommand, BluebotSensors, Camera, Flash, Neighbour};
use flotilla_contract::kilobot::{IrMessage, Kilobot, KilobotCommand, KilobotSensors, Overhead, MESSAGE_BYTES};
use flotilla_contract::lily::{Lily, LilyCommand, LilySensors};
use flotilla_contract::mhp::{Mhp, MhpCommand, MhpLayout, MhpNavigation, MhpSensors, MhpThruster};
use flotilla_contract::molemod::{Molemod, MolemodCommand, MolemodSensors};
use flotilla_contract::SystemHardware;
use r2r::flotilla_msgs::msg as m;
use r2r::geometry_msgs::msg::{Point, Quaternion, Vector3};
use r2r::std_msgs::msg::Header;

/// A system's contract types as ROS messages.
pub trait RosHardware: SystemHardware {
    /// The `<robot>/sensors` message.
    type SensorsMsg: r2r::WrappedTypesupport + Clone + Send + 'static;
    /// The `<robot>/cmd` message.
    type CommandMsg: r2r::WrappedTypesupport + Clone + Send + 'static;

    /// A reading as its message; `frame` names the robot's body frame.
    fn sensors_msg(sensors: &Self::Sensors, frame: &str) -> Self::SensorsMsg;
    /// A sensor message as the reading (a real robot's driver on the other side).
    fn sensors_from_msg(msg: Self::SensorsMsg) -> Self::Sensors;
    /// A command as its message, stamped with the time of the reading it answers.
    fn command_msg(command: &Self::Command, stamp: f64) -> Self::CommandMsg;
    /// A command message as the command and the stamp of the reading it answers, s.
    fn command_from_msg(msg: Self::CommandMsg) -> (Self::Command, f64);
}

/// A system whose readings and commands also travel batched: one `/<system>/sensors`
/// message per tick for every robot, one `/<system>/cmd` message for many robots' commands
/// answering one tick (the batch's stamp names the reading they answer). Conversions go
/// between the contract's types and the batch message directly, so a system may lay its
/// batch out flat (Kilobot: one array per field) and a swarm travels without a message
/// per robot.
pub trait RosBatch: RosHardware {
    /// The `/<system>/sensors` message.
    type SensorsBatchMsg: r2r::WrappedTypesupport + Clone + Send + 'static;
    /// The `/<system>/cmd` message.
    type CommandBatchMsg: r2r::WrappedTypesupport + Clone + Send + 'static;

    /// Readings of the tick at `stamp` (s), by robot name.
    fn sensors_batch(stamp: f64, readings: &[(&str, &Self::Sensors)]) -> Self::SensorsBatchMsg;
    /// A sensor batch as its tick's stamp (s) and (robot, reading) pairs; an error names
    /// what does not add up.
    fn sensors_from_batch(msg: Self::SensorsBatchMsg) -> Result<Batch<Self::Sensors>, BatchError>;
    /// Commands answering the readings of the tick at `stamp` (s), by robot name.
    fn command_batch(stamp: f64, commands: &[(&str, &Self::Command)]) -> Self::CommandBatchMsg;
    /// A command batch as the stamp (s) of the tick it answers and (robot, command) pairs.
    fn commands_from_batch(msg: Self::CommandBatchMsg) -> Result<Batch<Self::Command>, BatchError>;
}

/// A batch read back: the stamp of its tick (s) and (robot, item) pairs in order.
pub type Batch<T> = (f64, Vec<(String, T)>);

/// A batch message whose arrays do not fit together.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}: `{field}` has {len} entries, expected {expected}")]
pub struct BatchError {
    /// The message type.
    pub message: &'static str,
    /// The array that does not fit.
    pub field: &'static str,
    /// Its length.
    pub len: usize,
    /// The length the other arrays imply.
    pub expected: usize,
}

/// Checks that `field` of `message` has `expected` entries.
fn check_len(message: &'static str, field: &'static str, len: usize, expected: usize) -> Result<(), BatchError> {
    if len == expected {
        Ok(())
    } else {
        Err(BatchError { message, field, len, expected })
    }
}

/// [`RosBatch`] for a system whose batch messages are `{ header, robots, <items> }`, an
/// item per robot in its own message type.
macro_rules! batch {
    ($hardware:ty, $sensors:ident, $commands:ident) => {
        impl RosBatch for $hardware {
            type SensorsBatchMsg = m::$sensors;
            type CommandBatchMsg = m::$commands;

            fn sensors_batch(stamp: f64, readings: &[(&str, &Self::Sensors)]) -> m::$sensors {
                let (robots, readings) = readings
                    .iter()
                    .map(|(name, sensors)| ((*name).to_owned(), Self::sensors_msg(sensors, &format!("{name}/base_link"))))
                    .unzip();
                m::$sensors { header: header(stamp, ""), robots, readings }
            }

            fn sensors_from_batch(msg: m::$sensors) -> Result<Batch<Self::Sensors>, BatchError> {
                check_len(stringify!($sensors), "readings", msg.readings.len(), msg.robots.len())?;
                let readings = msg.robots.into_iter().zip(msg.readings.into_iter().map(Self::sensors_from_msg)).collect();
                Ok((stamp_of(&msg.header), readings))
            }

            fn command_batch(stamp: f64, commands: &[(&str, &Self::Command)]) -> m::$commands {
                let (robots, commands) = commands.iter().map(|(name, c)| ((*name).to_owned(), Self::command_msg(c, stamp))).unzip();
                m::$commands { header: header(stamp, ""), robots, commands }
            }

            fn commands_from_batch(msg: m::$commands) -> Result<Batch<Self::Command>, BatchError> {
                check_len(stringify!($commands), "commands", msg.commands.len(), msg.robots.len())?;
                let commands = msg.robots.into_iter().zip(msg.commands.into_iter().map(|c| Self::command_from_msg(c).0)).collect();
                Ok((stamp_of(&msg.header), commands))
            }
        }
    };
}

batch!(Lily, LilySensorsBatch, LilyCommandBatch);

/// Kilobot batches are flat (one array per field, messages concatenated): a 1024-robot
/// tick with ~30 messages heard per robot is a few arrays, not 30,000 messages.
impl RosBatch for Kilobot {
    type SensorsBatchMsg = m::KilobotSensorsBatch;
    type CommandBatchMsg = m::KilobotCommandBatch;

    fn sensors_batch(stamp: f64, readings: &[(&str, &KilobotSensors)]) -> m::KilobotSensorsBatch {
        let heard: usize = readings.iter().map(|(_, s)| s.messages.len()).sum();
        let mut batch = m::KilobotSensorsBatch {
            header: header(stamp, ""),
            robots: Vec::with_capacity(readings.len()),
            ticks: Vec::with_capacity(readings.len()),
            light: Vec::with_capacity(readings.len()),
            message_counts: Vec::with_capacity(readings.len()),
            payloads: Vec::with_capacity(heard * MESSAGE_BYTES),
            distances: Vec::with_capacity(heard),
            overhead_command: 0,
            overhead_payload: Vec::new(),
        };
        // The overhead controller broadcasts to the whole table: the batch carries it once.
        if let Some(o) = readings.iter().find_map(|(_, s)| s.overhead) {
            (batch.overhead_command, batch.overhead_payload) = overhead_wire(Some(o));
        }
        for (name, s) in readings {
            batch.robots.push((*name).to_owned());
            batch.ticks.push(s.ticks);
            batch.light.push(s.light);
            batch.message_counts.push(s.messages.len() as u32);
            for ir in &s.messages {
                batch.payloads.extend_from_slice(&ir.payload);
                batch.distances.push(ir.distance);
            }
        }
        batch
    }

    fn sensors_from_batch(msg: m::KilobotSensorsBatch) -> Result<Batch<KilobotSensors>, BatchError> {
        const NAME: &str = "KilobotSensorsBatch";
        let n = msg.robots.len();
        check_len(NAME, "ticks", msg.ticks.len(), n)?;
        check_len(NAME, "light", msg.light.len(), n)?;
        check_len(NAME, "message_counts", msg.message_counts.len(), n)?;
        let heard: usize = msg.message_counts.iter().map(|&c| c as usize).sum();
        check_len(NAME, "distances", msg.distances.len(), heard)?;
        check_len(NAME, "payloads", msg.payloads.len(), heard * MESSAGE_BYTES)?;
        let stamp = stamp_of(&msg.header);
        let overhead = overhead_of(msg.overhead_command, &msg.overhead_payload);
        let mut payloads = msg.payloads.chunks_exact(MESSAGE_BYTES).zip(&msg.distances);
        let readings = msg
            .robots
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let messages = payloads
                    .by_ref()
                    .take(msg.message_counts[i] as usize)
                    .map(|(bytes, &distance)| {
                        let mut payload = [0; MESSAGE_BYTES];
                        payload.copy_from_slice(bytes);
                        IrMessage { payload, distance }
                    })
                    .collect();
                (name, KilobotSensors { stamp, ticks: msg.ticks[i], light: msg.light[i], messages, overhead })
            })
            .collect();
        Ok((stamp, readings))
    }

    fn command_batch(stamp: f64, commands: &[(&str, &KilobotCommand)]) -> m::KilobotCommandBatch {
        let mut batch = m::KilobotCommandBatch { header: header(stamp, ""), ..Default::default() };
        for (name, c) in commands {
            batch.robots.push((*name).to_owned());
            batch.motor_left.push(c.motor_left);
            batch.motor_right.push(c.motor_right);
            batch.led.extend_from_slice(&c.led);
            // Longer messages are refused by the receiver's validation: kept whole, with
            // the length saturated so the layout still adds up.
            let len = c.message.len().min(usize::from(u8::MAX));
            batch.message_lengths.push(len as u8);
            batch.messages.extend_from_slice(&c.message[..len]);
        }
        batch
    }

    fn commands_from_batch(msg: m::KilobotCommandBatch) -> Result<Batch<KilobotCommand>, BatchError> {
        const NAME: &str = "KilobotCommandBatch";
        let n = msg.robots.len();
        check_len(NAME, "motor_left", msg.motor_left.len(), n)?;
        check_len(NAME, "motor_right", msg.motor_right.len(), n)?;
        check_len(NAME, "led", msg.led.len(), 3 * n)?;
        check_len(NAME, "message_lengths", msg.message_lengths.len(), n)?;
        let bytes: usize = msg.message_lengths.iter().map(|&l| usize::from(l)).sum();
        check_len(NAME, "messages", msg.messages.len(), bytes)?;
        let mut offset = 0;
        let commands = msg
            .robots
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let len = usize::from(msg.message_lengths[i]);
                let message = msg.messages[offset..offset + len].to_vec();
                offset += len;
                let led = [msg.led[3 * i], msg.led[3 * i + 1], msg.led[3 * i + 2]];
                (name, KilobotCommand { motor_left: msg.motor_left[i], motor_right: msg.motor_right[i], led, message })
            })
            .collect();
        Ok((stamp_of(&msg.header), commands))
    }
}

/// The first NaN or infinite number of a Kilobot sensor batch as `light[2] = NaN` or
/// `distances[17] = inf`, if any: such a batch is no reading (the table never sends one). A
/// direct check of the two float arrays, cheap for a swarm's batch of thousands of
/// messages.
pub fn kilobot_sensors_non_finite(msg: &m::KilobotSensorsBatch) -> Option<String> {
    let first = |name: &str, values: &[f64]| values.iter().position(|x| !x.is_finite()).map(|i| format!("{name}[{i}] = {}", values[i]));
    first("light", &msg.light).or_else(|| first("distances", &msg.distances))
}

/// An overhead broadcast as the `overhead_command` / `overhead_payload` fields (0 and
/// empty: none).
pub fn overhead_wire(o: Option<Overhead>) -> (u8, Vec<u8>) {
    match o {
        None => (0, Vec::new()),
        Some(o @ Overhead::Custom(_)) => (o.command(), o.payload().to_vec()),
        Some(o) => (o.command(), Vec::new()),
    }
}

/// The overhead broadcast of a reading's fields. Only the table fills them, from a checked
/// [`Overhead`]; fields that are not a broadcast read as none.
fn overhead_of(command: u8, payload: &[u8]) -> Option<Overhead> {
    Overhead::from_wire(command, payload).ok().flatten()
}

/// A header's stamp in seconds, read the way every receiver reads it.
pub fn stamp_of(h: &Header) -> f64 {
    f64::from(h.stamp.sec) + f64::from(h.stamp.nanosec) * 1e-9
}

impl RosHardware for Lily {
    type SensorsMsg = m::LilySensors;
    type CommandMsg = m::LilyCommand;

    fn sensors_msg(s: &LilySensors, frame: &str) -> m::LilySensors {
        m::LilySensors { header: header(s.stamp, frame), latched: s.latched.clone(), light: s.light, radio_rx: s.radio_rx.clone() }
    }

    fn sensors_from_msg(msg: m::LilySensors) -> LilySensors {
        LilySensors { stamp: stamp_of(&msg.header), latched: msg.latched, light: msg.light, radio_rx: msg.radio_rx }
    }

    fn command_msg(c: &LilyCommand, stamp: f64) -> m::LilyCommand {
        m::LilyCommand { header: header(stamp, ""), latch: c.latch.clone(), radio_tx: c.radio_tx.clone() }
    }

    fn command_from_msg(msg: m::LilyCommand) -> (LilyCommand, f64) {
        (LilyCommand { latch: msg.latch, radio_tx: msg.radio_tx }, stamp_of(&msg.header))
    }
}

impl RosHardware for Mhp {
    type SensorsMsg = m::MhpSensors;
    type CommandMsg = m::MhpCommand;

    fn sensors_msg(s: &MhpSensors, frame: &str) -> m::MhpSensors {
        let nav = s.navigation.unwrap_or_default();
        let v = |a: [f64; 3]| Vector3 { x: a[0], y: a[1], z: a[2] };
        let [w, x, y, z] = nav.orientation;
        m::MhpSensors {
            header: header(s.stamp, frame),
            connected: s.connected.clone(),
            target_seen: s.target_seen.clone(),
            has_navigation: s.navigation.is_some(),
            target: v(nav.target),
            velocity: v(nav.velocity),
            angular_velocity: v(nav.angular_velocity),
            orientation: Quaternion { x, y, z, w },
        }
    }

    fn sensors_from_msg(msg: m::MhpSensors) -> MhpSensors {
        let a = |v: &Vector3| [v.x, v.y, v.z];
        let q = &msg.orientation;
        let navigation = msg.has_navigation.then(|| MhpNavigation {
            target: a(&msg.target),
            velocity: a(&msg.velocity),
            angular_velocity: a(&msg.angular_velocity),
            orientation: [q.w, q.x, q.y, q.z],
        });
        MhpSensors { stamp: stamp_of(&msg.header), connected: msg.connected, target_seen: msg.target_seen, navigation }
    }

    fn command_msg(c: &MhpCommand, stamp: f64) -> m::MhpCommand {
        m::MhpCommand { header: header(stamp, ""), thrust: c.thrust.clone() }
    }

    fn command_from_msg(msg: m::MhpCommand) -> (MhpCommand, f64) {
        (MhpCommand { thrust: msg.thrust }, stamp_of(&msg.header))
    }
}

/// An MHP robot's thruster layout as its latched `<robot>/layout` message (`frame` names
/// the robot's body frame, `stamp` s).
pub fn mhp_layout_msg(layout: &MhpLayout, stamp: f64, frame: &str) -> m::MhpLayout {
    let thrusters = layout
        .thrusters
        .iter()
        .map(|t| m::MhpThruster {
            face: t.face as u32,
            position: Point { x: t.position[0], y: t.position[1], z: t.position[2] },
            direction: Vector3 { x: t.direction[0], y: t.direction[1], z: t.direction[2] },
            force: t.force,
        })
        .collect();
    m::MhpLayout { header: header(stamp, frame), faces_per_module: layout.faces_per_module as u32, faces: layout.faces as u32, thrusters }
}

/// A `<robot>/layout` message as the contract's layout.
pub fn mhp_layout_from_msg(msg: &m::MhpLayout) -> MhpLayout {
    let thrusters = msg
        .thrusters
        .iter()
        .map(|t| MhpThruster {
            face: t.face as usize,
            position: [t.position.x, t.position.y, t.position.z],
            direction: [t.direction.x, t.direction.y, t.direction.z],
            force: t.force,
        })
        .collect();
    MhpLayout { faces_per_module: msg.faces_per_module as usize, faces: msg.faces as usize, thrusters }
}

impl RosHardware for Bluebot {
    type SensorsMsg = m::BluebotSensors;
    type CommandMsg = m::BluebotCommand;

    fn sensors_msg(s: &BluebotSensors, frame: &str) -> m::BluebotSensors {
        let blob = |b: &Blob| m::BluebotBlob {
            camera: match b.camera {
                Camera::Left => m::BluebotBlob::LEFT as u8,
                Camera::Right => m::BluebotBlob::RIGHT as u8,
            },
            azimuth: b.azimuth,
            elevation: b.elevation,
            pixels: b.pixels,
            red_ratio: b.red_ratio,
        };
        m::BluebotSensors {
            header: header(s.stamp, frame),
            depth: s.depth,
            blobs: s.blobs.iter().map(blob).collect(),
            neighbours: s
                .neighbours
                .iter()
                .map(|n| m::BluebotNeighbour { azimuth: n.azimuth, elevation: n.elevation, distance: n.distance })
                .collect(),
            flashes: s.flashes.iter().map(|f| m::BluebotFlash { azimuth: f.azimuth, elevation: f.elevation }).collect(),
            photodiode: s.photodiode,
        }
    }

    fn sensors_from_msg(msg: m::BluebotSensors) -> BluebotSensors {
        let blob = |b: m::BluebotBlob| Blob {
            camera: if b.camera == m::BluebotBlob::RIGHT as u8 { Camera::Right } else { Camera::Left },
            azimuth: b.azimuth,
            elevation: b.elevation,
            pixels: b.pixels,
            red_ratio: b.red_ratio,
        };
        BluebotSensors {
            stamp: stamp_of(&msg.header),
            depth: msg.depth,
            blobs: msg.blobs.into_iter().map(blob).collect(),
            neighbours: msg
                .neighbours
                .into_iter()
                .map(|n| Neighbour { azimuth: n.azimuth, elevation: n.elevation, distance: n.distance })
                .collect(),
            flashes: msg.flashes.into_iter().map(|f| Flash { azimuth: f.azimuth, elevation: f.elevation }).collect(),
            photodiode: msg.photodiode,
        }
    }

    fn command_msg(c: &BluebotCommand, stamp: f64) -> m::BluebotCommand {
        m::BluebotCommand {
            header: header(stamp, ""),
            caudal: c.caudal,
            pectoral_left: c.pectoral_left,
            pectoral_right: c.pectoral_right,
            dorsal: c.dorsal,
            leds: c.leds,
            flashing: c.flashing,
        }
    }

    fn command_from_msg(msg: m::BluebotCommand) -> (BluebotCommand, f64) {
        let command = BluebotCommand {
            caudal: msg.caudal,
            pectoral_left: msg.pectoral_left,
            pectoral_right: msg.pectoral_right,
            dorsal: msg.dorsal,
            leds: msg.leds,
            flashing: msg.flashing,
        };
        (command, stamp_of(&msg.header))
    }
}

impl RosHardware for Kilobot {
    type SensorsMsg = m::KilobotSensors;
    type CommandMsg = m::KilobotCommand;

    fn sensors_msg(s: &KilobotSensors, frame: &str) -> m::KilobotSensors {
        let message = |ir: &IrMessage| m::KilobotMessage { payload: ir.payload.to_vec(), distance: ir.distance };
        let messages = s.messages.iter().map(message).collect();
        let (overhead_command, overhead_payload) = overhead_wire(s.overhead);
        m::KilobotSensors { header: header(s.stamp, frame), ticks: s.ticks, light: s.light, messages, overhead_command, overhead_payload }
    }

    fn sensors_from_msg(msg: m::KilobotSensors) -> KilobotSensors {
        let message = |ir: m::KilobotMessage| {
            // Shorter payloads are zero-padded, longer ones cut to the kilolib size.
            let mut payload = [0; flotilla_contract::kilobot::MESSAGE_BYTES];
            payload.iter_mut().zip(&ir.payload).for_each(|(b, v)| *b = *v);
            IrMessage { payload, distance: ir.distance }
        };
        let messages = msg.messages.into_iter().map(message).collect();
        let overhead = overhead_of(msg.overhead_command, &msg.overhead_payload);
        KilobotSensors { stamp: stamp_of(&msg.header), ticks: msg.ticks, light: msg.light, messages, overhead }
    }

    fn command_msg(c: &KilobotCommand, stamp: f64) -> m::KilobotCommand {
        m::KilobotCommand {
            header: header(stamp, ""),
            motor_left: c.motor_left,
            motor_right: c.motor_right,
            led: c.led.to_vec(),
            message: c.message.clone(),
        }
    }

    fn command_from_msg(msg: m::KilobotCommand) -> (KilobotCommand, f64) {
        // A fixed-size array on the wire: r2r checks its length on publish.
        let led = [0, 1, 2].map(|i| msg.led.get(i).copied().unwrap_or(0.0));
        (KilobotCommand { motor_left: msg.motor_left, motor_right: msg.motor_right, led, message: msg.message }, stamp_of(&msg.header))
    }
}

impl RosHardware for Molemod {
    type SensorsMsg = m::MolemodSensors;
    type CommandMsg = m::MolemodCommand;

    fn sensors_msg(s: &MolemodSensors, frame: &str) -> m::MolemodSensors {
        // Joint names come from the model; the contract carries positions in its order.
        m::MolemodSensors { header: header(s.stamp, frame), joints: Vec::new(), positions: s.joint_positions.clone() }
    }

    fn sensors_from_msg(msg: m::MolemodSensors) -> MolemodSensors {
        MolemodSensors { stamp: stamp_of(&msg.header), joint_positions: msg.positions }
    }

    fn command_msg(c: &MolemodCommand, stamp: f64) -> m::MolemodCommand {
        m::MolemodCommand { header: header(stamp, ""), joint_velocities: c.joint_velocities.clone(), head_grip: c.head_grip.clone() }
    }

    fn command_from_msg(msg: m::MolemodCommand) -> (MolemodCommand, f64) {
        (MolemodCommand { joint_velocities: msg.joint_velocities, head_grip: msg.head_grip }, stamp_of(&msg.header))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<H: RosHardware>(sensors: H::Sensors, command: H::Command) {
        let back = H::sensors_from_msg(H::sensors_msg(&sensors, "r/base_link"));
        assert_eq!(back, sensors);
        let (c, stamp) = H::command_from_msg(H::command_msg(&command, 2.5));
        assert_eq!(c, command);
        assert_eq!(stamp, 2.5);
    }

    #[test]
    fn batches_keep_robots_and_their_items_paired() {
        let reading = |light| LilySensors { stamp: 0.5, light, ..LilySensors::default() };
        let (a, b) = (reading(0.1), reading(0.2));
        let (stamp, back) = Lily::sensors_from_batch(Lily::sensors_batch(0.5, &[("a", &a), ("b", &b)])).unwrap();
        assert_eq!(stamp, 0.5);
        assert_eq!(back.iter().map(|(n, r)| (n.as_str(), r.light)).collect::<Vec<_>>(), vec![("a", 0.1), ("b", 0.2)]);
        let command = LilyCommand { latch: vec![true; 4], radio_tx: vec![1] };
        let (stamp, back) = Lily::commands_from_batch(Lily::command_batch(0.75, &[("a", &command)])).unwrap();
        assert_eq!((stamp, back), (0.75, vec![("a".to_owned(), command)]));
    }

    #[test]
    fn kilobot_batches_are_flat_and_round_trip() {
        let ir = |b: u8, d| IrMessage { payload: [b; MESSAGE_BYTES], distance: d };
        let run = Some(Overhead::Custom([4, 0, 0, 0, 0, 0, 0, 0, 1]));
        let readings = [
            KilobotSensors { stamp: 0.5, ticks: 15, light: 0.5, messages: vec![ir(1, 0.04), ir(2, 0.05)], overhead: run },
            KilobotSensors { stamp: 0.5, ticks: 15, light: 0.25, messages: Vec::new(), overhead: run },
            KilobotSensors { stamp: 0.5, ticks: 15, light: 0.5, messages: vec![ir(3, 0.1)], overhead: run },
        ];
        let named: Vec<(&str, &KilobotSensors)> = ["k0", "k1", "k2"].into_iter().zip(&readings).collect();
        let msg = Kilobot::sensors_batch(0.5, &named);
        assert_eq!((msg.message_counts.clone(), msg.payloads.len(), msg.distances.len()), (vec![2, 0, 1], 27, 3));
        let (stamp, back) = Kilobot::sensors_from_batch(msg.clone()).unwrap();
        assert_eq!(stamp, 0.5);
        assert_eq!(back.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>(), readings.to_vec());
        assert_eq!(kilobot_sensors_non_finite(&msg), None);
        let mut nan = msg.clone();
        nan.distances[2] = f64::NAN;
        assert_eq!(kilobot_sensors_non_finite(&nan).as_deref(), Some("distances[2] = NaN"));
        nan.light[1] = f64::INFINITY;
        assert_eq!(kilobot_sensors_non_finite(&nan).as_deref(), Some("light[1] = inf"));
        let mut broken = msg;
        broken.distances.pop();
        let err = Kilobot::sensors_from_batch(broken).unwrap_err().to_string();
        assert_eq!(err, "KilobotSensorsBatch: `distances` has 2 entries, expected 3");

        let commands = [
            KilobotCommand { motor_left: 1.0, motor_right: 0.0, led: [1.0, 0.0, 0.5], message: vec![7, 8] },
            KilobotCommand { motor_left: 0.0, motor_right: 1.0, led: [0.0; 3], message: Vec::new() },
        ];
        let msg = Kilobot::command_batch(0.5, &[("k0", &commands[0]), ("k1", &commands[1])]);
        let (stamp, back) = Kilobot::commands_from_batch(msg.clone()).unwrap();
        assert_eq!((stamp, back), (0.5, vec![("k0".to_owned(), commands[0].clone()), ("k1".to_owned(), commands[1].clone())]));
        let mut broken = msg;
        broken.message_lengths[1] = 4;
        assert!(Kilobot::commands_from_batch(broken).unwrap_err().to_string().contains("`messages` has 2 entries, expected 6"));
    }

    #[test]
    fn every_system_round_trips_through_its_messages() {
        round_trip::<Lily>(
            LilySensors { stamp: 1.25, latched: vec![true, false, false, true], light: 0.5, radio_rx: vec![255, 1, 0, 7] },
            LilyCommand { latch: vec![true; 4], radio_tx: vec![0, 0, 0] },
        );
        round_trip::<Mhp>(
            MhpSensors { stamp: 0.5, connected: vec![true, false], target_seen: vec![false, true], navigation: None },
            MhpCommand { thrust: vec![1.0, 0.0] },
        );
        let navigation = MhpNavigation {
            target: [0.5, -0.25, 0.0],
            velocity: [0.01, 0.02, 0.0],
            angular_velocity: [0.0, 0.0, -0.3],
            orientation: [0.5f64.sqrt(), 0.0, 0.0, 0.5f64.sqrt()],
        };
        round_trip::<Mhp>(
            MhpSensors {
                stamp: 0.75,
                connected: vec![false; 4],
                target_seen: vec![true, false, false, true],
                navigation: Some(navigation),
            },
            MhpCommand { thrust: vec![0.0, 1.0, 1.0, 0.0] },
        );
        let layout = MhpLayout {
            faces_per_module: 4,
            faces: 8,
            thrusters: vec![MhpThruster { face: 1, position: [-0.08, 0.0, 0.0], direction: [1.0, 0.0, 0.0], force: 9.6e-3 }],
        };
        assert_eq!(mhp_layout_from_msg(&mhp_layout_msg(&layout, 0.0, "mhp_0/base_link")), layout);
        let blob = Blob { camera: Camera::Right, azimuth: 0.3, elevation: -0.1, pixels: 12, red_ratio: 0.4 };
        round_trip::<Bluebot>(
            BluebotSensors {
                stamp: 3.0,
                depth: 0.4,
                blobs: vec![blob, Blob::default()],
                neighbours: vec![Neighbour { azimuth: 0.2, elevation: 0.1, distance: 0.7 }],
                flashes: vec![Flash { azimuth: -1.0, elevation: 0.3 }],
                photodiode: 803.0,
            },
            BluebotCommand { caudal: 3.0, pectoral_left: 6.0, pectoral_right: 0.0, dorsal: 1.0, leds: true, flashing: true },
        );
        round_trip::<Kilobot>(
            KilobotSensors {
                stamp: 0.125,
                ticks: 4,
                light: 0.7,
                messages: vec![IrMessage { payload: [1, 2, 3, 0, 0, 0, 0, 0, 0], distance: 0.05 }],
                overhead: Some(Overhead::Pause),
            },
            KilobotCommand { motor_left: 1.0, motor_right: 0.0, led: [0.0, 1.0, 0.0], message: vec![9; 9] },
        );
        round_trip::<Molemod>(
            MolemodSensors { stamp: 0.002, joint_positions: vec![0.01, -0.2] },
            MolemodCommand { joint_velocities: vec![0.02, 0.0], head_grip: vec![true, false] },
        );
    }
}
