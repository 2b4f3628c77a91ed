//! `/tank/state` and `/kilobot/sensors` written straight into their serialised form (CDR,
//! little endian, the encoding the ROS 2 middlewares use for plain messages) and published
//! with `publish_raw`. Handing the middleware the C message made it walk 1024 modules
//! field by field at every publication (Fast CDR's per-field calls and the copies were
//! ~30 % of the node at 1024 robots, docs/swarm_scale.md); here the per-publication work is
//! writing the poses in place and appending the sensor arrays.
//!
//! The bytes are the middleware's own: [`matches_middleware`] compares both writers with
//! `rmw_serialize` on messages of every shape at start-up, and the node publishes the typed
//! messages (the middleware serialising them) when they differ.

use flotilla_common::ros_contract::RosBatch;
use flotilla_contract::kilobot::{Kilobot, KilobotSensors, MESSAGE_BYTES};
use r2r::builtin_interfaces::msg::Time;
use r2r::flotilla_msgs::msg::{KilobotSensorsBatch, ModuleState, TankState};
use r2r::geometry_msgs::msg::Pose;
use r2r::WrappedTypesupport;

/// Encapsulation header: plain CDR, little endian, no options.
const CDR_LE: [u8; 4] = [0x00, 0x01, 0x00, 0x00];
/// Bytes of the encapsulation header (alignment counts from its end).
const HEADER: usize = CDR_LE.len();

/// A CDR writer into a reused buffer.
#[derive(Clone, Debug)]
struct Cdr {
    buf: Vec<u8>,
    /// Padding written, as (start, end) byte ranges: bytes a middleware may fill with
    /// anything (the check compares the rest).
    pads: Vec<(usize, usize)>,
}

impl Cdr {
    fn new() -> Self {
        Self { buf: CDR_LE.to_vec(), pads: Vec::new() }
    }

    fn align(&mut self, n: usize) {
        let pad = (n - (self.buf.len() - HEADER) % n) % n;
        if pad > 0 {
            self.pads.push((self.buf.len(), self.buf.len() + pad));
            self.buf.resize(self.buf.len() + pad, 0);
        }
    }

    /// Drops everything from byte `end` on.
    fn truncate(&mut self, end: usize) {
        self.buf.truncate(end);
        self.pads.retain(|&(start, _)| start < end);
    }

    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    fn u32(&mut self, v: u32) {
        self.align(4);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    fn i32(&mut self, v: i32) {
        self.align(4);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.align(8);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    fn f64(&mut self, v: f64) {
        self.align(8);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    /// A sequence length (the lengths of every array here fit: the node caps robots and a
    /// batch's messages are fewer than robots squared).
    fn len(&mut self, n: usize) {
        self.u32(n as u32);
    }

    /// A string: its length with the terminating NUL, its bytes, the NUL.
    fn string(&mut self, s: &str) {
        self.len(s.len() + 1);
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
    }

    fn time(&mut self, t: &Time) {
        self.i32(t.sec);
        self.u32(t.nanosec);
    }

    fn bytes(&mut self, v: &[u8]) {
        self.len(v.len());
        self.buf.extend_from_slice(v);
    }

    fn u32s(&mut self, v: &[u32]) {
        self.len(v.len());
        let start = self.buf.len();
        self.buf.resize(start + 4 * v.len(), 0);
        self.buf[start..].chunks_exact_mut(4).zip(v).for_each(|(out, x)| out.copy_from_slice(&x.to_le_bytes()));
    }

    fn f64s(&mut self, v: &[f64]) {
        self.len(v.len());
        // No padding before an empty array (the serialiser writes none; its size estimate
        // counts it, see `matches_middleware`).
        if !v.is_empty() {
            self.align(8);
        }
        let start = self.buf.len();
        self.buf.resize(start + 8 * v.len(), 0);
        self.buf[start..].chunks_exact_mut(8).zip(v).for_each(|(out, x)| out.copy_from_slice(&x.to_le_bytes()));
    }

    /// Writes `v` over the 8 bytes at `at`.
    fn put_f64(&mut self, at: usize, v: f64) {
        self.buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
    }
}

/// Offset of `Header.stamp` in either message: the first field after the encapsulation.
const STAMP_AT: usize = HEADER;

/// `/tank/state` serialised once, its stamp, step, time and poses overwritten in place for
/// each publication (names, kinds and everything else a publication leaves alone).
#[derive(Clone, Debug)]
pub struct StateWire {
    cdr: Cdr,
    /// Offset of `step` (`sim_time` follows it).
    step_at: usize,
    /// Offset of each module's pose (7 doubles: position, orientation).
    poses_at: Vec<usize>,
}

impl StateWire {
    /// The serialised `msg`; its modules' poses are then set by index.
    pub fn new(msg: &TankState) -> Self {
        let mut cdr = Cdr::new();
        cdr.time(&msg.header.stamp);
        cdr.string(&msg.header.frame_id);
        cdr.align(8);
        let step_at = cdr.buf.len();
        cdr.u64(msg.step);
        cdr.f64(msg.sim_time);
        cdr.f64(msg.water_level);
        cdr.f64s(&msg.pump_power);
        cdr.len(msg.modules.len());
        let poses_at = msg.modules.iter().map(|m| module(&mut cdr, m)).collect();
        Self { cdr, step_at, poses_at }
    }

    /// Sets the header stamp, step and sim time (s).
    pub fn set_time(&mut self, stamp: &Time, step: u64, sim_time: f64) {
        let b = &mut self.cdr.buf;
        b[STAMP_AT..STAMP_AT + 4].copy_from_slice(&stamp.sec.to_le_bytes());
        b[STAMP_AT + 4..STAMP_AT + 8].copy_from_slice(&stamp.nanosec.to_le_bytes());
        b[self.step_at..self.step_at + 8].copy_from_slice(&step.to_le_bytes());
        self.cdr.put_f64(self.step_at + 8, sim_time);
    }

    /// Modules in the message.
    pub fn len(&self) -> usize {
        self.poses_at.len()
    }

    /// Sets module `i`'s pose (m, world frame).
    pub fn set_pose(&mut self, i: usize, pose: &Pose) {
        let at = self.poses_at[i];
        let (p, q) = (&pose.position, &pose.orientation);
        for (k, v) in [p.x, p.y, p.z, q.x, q.y, q.z, q.w].into_iter().enumerate() {
            self.cdr.put_f64(at + 8 * k, v);
        }
    }

    /// The serialised message.
    pub fn bytes(&self) -> &[u8] {
        &self.cdr.buf
    }
}

/// What [`compare`] needs of a writer's output.
trait Written {
    fn bytes(&self) -> &[u8];
    fn pads(&self) -> &[(usize, usize)];
}

impl Written for StateWire {
    fn bytes(&self) -> &[u8] {
        &self.cdr.buf
    }

    fn pads(&self) -> &[(usize, usize)] {
        &self.cdr.pads
    }
}

impl Written for SensorsWire {
    fn bytes(&self) -> &[u8] {
        &self.cdr.buf
    }

    fn pads(&self) -> &[(usize, usize)] {
        &self.cdr.pads
    }
}

/// Writes one `ModuleState`; returns the offset of its pose.
fn module(cdr: &mut Cdr, m: &ModuleState) -> usize {
    cdr.u32(m.id);
    cdr.string(&m.name);
    cdr.string(&m.kind);
    cdr.align(8);
    let pose_at = cdr.buf.len();
    let (p, q) = (&m.pose.position, &m.pose.orientation);
    let (l, a) = (&m.twist.linear, &m.twist.angular);
    for v in [p.x, p.y, p.z, q.x, q.y, q.z, q.w, l.x, l.y, l.z, a.x, a.y, a.z] {
        cdr.f64(v);
    }
    cdr.len(m.latches.len());
    for latch in &m.latches {
        cdr.u8(latch.face);
        cdr.u8(u8::from(latch.commanded_on));
        cdr.u8(u8::from(latch.latched));
        cdr.string(&latch.partner);
        cdr.u8(latch.partner_face);
    }
    cdr.f64s(&m.thrusters);
    pose_at
}

/// `/kilobot/sensors`: the header's frame and the robots' names serialised once, the rest
/// of the batch appended for each tick.
#[derive(Clone, Debug)]
pub struct SensorsWire {
    cdr: Cdr,
    /// End of the robots' names: where a tick's arrays start.
    names_end: usize,
    robots: usize,
}

impl SensorsWire {
    /// A batch for `robots` with header frame `frame_id`.
    pub fn new(frame_id: &str, robots: &[String]) -> Self {
        let mut cdr = Cdr::new();
        cdr.time(&Time::default());
        cdr.string(frame_id);
        cdr.len(robots.len());
        robots.iter().for_each(|r| cdr.string(r));
        Self { names_end: cdr.buf.len(), cdr, robots: robots.len() }
    }

    /// Writes one tick's readings (robots as the names were given) and the overhead
    /// broadcast (command 0 and no payload when none); returns the batch.
    pub fn write(&mut self, stamp: &Time, readings: &Readings, overhead_command: u8, overhead_payload: &[u8]) -> &[u8] {
        debug_assert_eq!(readings.counts.len(), self.robots);
        let cdr = &mut self.cdr;
        cdr.truncate(self.names_end);
        cdr.buf[STAMP_AT..STAMP_AT + 4].copy_from_slice(&stamp.sec.to_le_bytes());
        cdr.buf[STAMP_AT + 4..STAMP_AT + 8].copy_from_slice(&stamp.nanosec.to_le_bytes());
        cdr.u32s(&readings.ticks);
        cdr.f64s(&readings.light);
        cdr.u32s(&readings.counts);
        cdr.bytes(&readings.payloads);
        cdr.f64s(&readings.distances);
        cdr.u8(overhead_command);
        cdr.bytes(overhead_payload);
        &cdr.buf
    }
}

/// One tick's readings as `KilobotSensorsBatch` lays them out: robot `i` read `ticks[i]`
/// and `light[i]` and heard `counts[i]` messages, which follow those of robots `0..i` in
/// `payloads` (9 bytes each) and `distances` (m).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Readings {
    /// Robot clocks, ticks.
    pub ticks: Vec<u32>,
    /// Ambient light, 0..1 of full scale.
    pub light: Vec<f64>,
    /// Messages heard per robot.
    pub counts: Vec<u32>,
    /// Message payloads, concatenated.
    pub payloads: Vec<u8>,
    /// Distance to each message's sender, m.
    pub distances: Vec<f64>,
}

impl Readings {
    /// Empties every array (keeping their memory).
    pub fn clear(&mut self) {
        self.ticks.clear();
        self.light.clear();
        self.counts.clear();
        self.payloads.clear();
        self.distances.clear();
    }

    /// The arrays of a batch built by the contract's own flattening
    /// (`RosBatch::sensors_batch`), so the check compares the writer with it.
    fn of_batch(batch: &KilobotSensorsBatch) -> Self {
        Self {
            ticks: batch.ticks.clone(),
            light: batch.light.clone(),
            counts: batch.message_counts.clone(),
            payloads: batch.payloads.clone(),
            distances: batch.distances.clone(),
        }
    }

    /// The batch message of these readings at `stamp` for the robots `names`, frame "".
    pub fn message(&self, stamp: Time, names: &[String], overhead_command: u8, overhead_payload: Vec<u8>) -> KilobotSensorsBatch {
        KilobotSensorsBatch {
            header: r2r::std_msgs::msg::Header { stamp, frame_id: String::new() },
            robots: names.to_vec(),
            ticks: self.ticks.clone(),
            light: self.light.clone(),
            message_counts: self.counts.clone(),
            payloads: self.payloads.clone(),
            distances: self.distances.clone(),
            overhead_command,
            overhead_payload,
        }
    }
}

/// Why the writers cannot stand in for the middleware's serialisation.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The middleware refused to serialise or deserialise a sample.
    #[error("the middleware's (de)serialisation of a {0} sample failed: {1}")]
    Middleware(&'static str, r2r::Error),
    /// The bytes differ from the middleware's.
    #[error("the {0} writer differs from rmw_serialize at byte {1} of {2}")]
    Differs(&'static str, usize, usize),
    /// The middleware reads the bytes back as another message.
    #[error("the middleware reads the {0} writer's bytes back as another message")]
    ReadsBack(&'static str),
}

/// Checks both writers against the middleware's own serialisation on samples of every
/// shape (empty and odd-length arrays, so each alignment case is met): the same bytes as
/// `rmw_serialize` but for padding (whose content is not defined) and the end (its length
/// is the middleware's size estimate, which counts padding for empty arrays of doubles that
/// the serialiser does not write), and read back by
/// `rmw_deserialize` as the sample.
pub fn matches_middleware() -> Result<(), WireError> {
    for sample in state_samples() {
        compare("TankState", &StateWire::new(&sample), &sample)?;
    }
    for (frame, robots, readings, overhead) in sensor_samples() {
        let names: Vec<String> = robots.iter().map(|r| (*r).to_owned()).collect();
        let mut wire = SensorsWire::new(frame, &names);
        let stamp = Time { sec: 12, nanosec: 345_000_000 };
        let (command, payload) = overhead;
        let msg = library_batch(frame, &robots, &readings, stamp.clone(), (command, payload.clone()));
        wire.write(&stamp, &Readings::of_batch(&msg), command, &payload);
        compare("KilobotSensorsBatch", &wire, &msg)?;
    }
    Ok(())
}

fn compare<T: WrappedTypesupport + PartialEq>(name: &'static str, ours: &impl Written, msg: &T) -> Result<(), WireError> {
    let theirs = msg.to_serialized_bytes().map_err(|e| WireError::Middleware(name, e))?;
    let (bytes, pads) = (ours.bytes(), ours.pads());
    let padding = |k: usize| pads.iter().any(|&(a, b)| (a..b).contains(&k));
    let differs = bytes.iter().enumerate().find(|&(k, b)| theirs.get(k) != Some(b) && !padding(k));
    if let Some((at, _)) = differs {
        return Err(WireError::Differs(name, at, theirs.len()));
    }
    // Longer by the alignment its estimate counts for empty arrays of doubles, never shorter.
    if theirs.len() < bytes.len() {
        return Err(WireError::Differs(name, bytes.len().min(theirs.len()), theirs.len()));
    }
    let back = T::from_serialized_bytes(bytes).map_err(|e| WireError::Middleware(name, e))?;
    if back != *msg {
        return Err(WireError::ReadsBack(name));
    }
    Ok(())
}

/// `TankState`s with every field set, of lengths that leave each field at another
/// alignment: no module, modules with names of 1..4 bytes, latches and thrusters.
fn state_samples() -> Vec<TankState> {
    use r2r::flotilla_msgs::msg::LatchState;
    use r2r::geometry_msgs::msg::{Point, Quaternion, Twist, Vector3};
    let module = |i: u32, name: &str, latches: usize, thrusters: usize| ModuleState {
        id: i,
        name: name.to_owned(),
        kind: if i % 2 == 0 { "kilobot".into() } else { "lily".into() },
        pose: Pose {
            position: Point { x: 0.5 + f64::from(i), y: -1.25, z: 0.0125 },
            orientation: Quaternion { x: 0.0, y: 0.1, z: -0.2, w: 0.97 },
        },
        twist: Twist { linear: Vector3 { x: 1.0, y: 2.0, z: 3.0 }, angular: Vector3 { x: -1.0, y: -2.0, z: -3.0 } },
        latches: (0..latches)
            .map(|k| LatchState { face: k as u8, commanded_on: k % 2 == 0, latched: k % 3 == 0, partner: "ab".repeat(k), partner_face: 7 })
            .collect(),
        thrusters: (0..thrusters).map(|k| k as f64 * 0.25).collect(),
    };
    let state = |frame: &str, pumps: usize, modules: Vec<ModuleState>| TankState {
        header: r2r::std_msgs::msg::Header { stamp: Time { sec: 3, nanosec: 250_000_000 }, frame_id: frame.to_owned() },
        step: 92,
        sim_time: 2.99,
        water_level: -0.01,
        pump_power: (0..pumps).map(|k| k as f64).collect(),
        modules,
    };
    vec![
        state("", 0, Vec::new()),
        state("world", 0, vec![module(0, "kb_0", 0, 0), module(1, "k", 0, 0), module(2, "kb_10", 0, 0)]),
        state("w", 3, vec![module(0, "ab", 2, 1), module(1, "abc", 1, 0), module(2, "", 3, 3)]),
    ]
}

/// One sensor sample: frame, robots, readings, overhead (command, payload).
type SensorSample = (&'static str, Vec<&'static str>, Vec<KilobotSensors>, (u8, Vec<u8>));

/// Sensor batches with none, one and an odd number of messages, names of several lengths,
/// with and without an overhead broadcast.
/// A sample's batch as the typed path builds it: the contract's flattening of the readings.
fn library_batch(frame: &str, robots: &[&str], readings: &[KilobotSensors], stamp: Time, overhead: (u8, Vec<u8>)) -> KilobotSensorsBatch {
    let named: Vec<(&str, &KilobotSensors)> = robots.iter().copied().zip(readings).collect();
    let mut batch = Kilobot::sensors_batch(0.0, &named);
    batch.header.stamp = stamp;
    batch.header.frame_id = frame.to_owned();
    (batch.overhead_command, batch.overhead_payload) = overhead;
    batch
}

fn sensor_samples() -> Vec<SensorSample> {
    use flotilla_contract::kilobot::IrMessage;
    let reading = |ticks: u32, heard: usize| KilobotSensors {
        stamp: 0.0,
        ticks,
        light: 0.5 + f64::from(ticks),
        messages: (0..heard).map(|k| IrMessage { payload: [k as u8; MESSAGE_BYTES], distance: 0.01 * k as f64 }).collect(),
        overhead: None,
    };
    vec![
        ("", Vec::new(), Vec::new(), (0, Vec::new())),
        ("", vec!["kb_0"], vec![reading(1, 0)], (0, Vec::new())),
        ("", vec!["kb_0", "kb_1", "k"], vec![reading(1, 1), reading(2, 0), reading(3, 2)], (3, vec![1, 2, 3])),
        ("frame", vec!["a", "bb", "ccc", "dddd"], vec![reading(7, 3), reading(8, 1), reading(9, 0), reading(10, 5)], (1, Vec::new())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_writers_match_the_middleware() {
        matches_middleware().unwrap();
    }

    #[test]
    fn state_poses_and_time_land_where_the_middleware_puts_them() {
        let mut sample = state_samples().remove(2);
        let mut wire = StateWire::new(&sample);
        let pose = Pose {
            position: r2r::geometry_msgs::msg::Point { x: 9.0, y: 8.0, z: 7.0 },
            orientation: r2r::geometry_msgs::msg::Quaternion { x: 0.5, y: 0.5, z: 0.5, w: 0.5 },
        };
        let stamp = Time { sec: 100, nanosec: 7 };
        wire.set_pose(1, &pose);
        wire.set_time(&stamp, 3077, 100.0000001);
        sample.modules[1].pose = pose;
        (sample.header.stamp, sample.step, sample.sim_time) = (stamp, 3077, 100.0000001);
        compare("TankState", &wire, &sample).unwrap();
        assert_eq!(TankState::from_serialized_bytes(wire.bytes()).unwrap().modules[1].pose.position.x, 9.0);
    }

    #[test]
    fn the_check_finds_a_pose_the_message_does_not_have() {
        let sample = state_samples().remove(1);
        let mut wire = StateWire::new(&sample);
        wire.set_pose(2, &Pose::default());
        assert!(matches!(compare("TankState", &wire, &sample), Err(WireError::Differs("TankState", _, _))));
    }

    #[test]
    fn a_sensor_batch_rewritten_for_a_smaller_tick_matches_the_middleware() {
        let (_, robots, mut readings, _) = sensor_samples().remove(3);
        let names: Vec<String> = robots.iter().map(|r| (*r).to_owned()).collect();
        let mut wire = SensorsWire::new("frame", &names);
        let first = library_batch("frame", &robots, &readings, Time { sec: 1, nanosec: 0 }, (1, Vec::new()));
        wire.write(&first.header.stamp, &Readings::of_batch(&first), 1, &[]);
        readings.iter_mut().for_each(|r| r.messages.truncate(1));
        let stamp = Time { sec: 2, nanosec: 5 };
        let smaller = library_batch("frame", &robots, &readings, stamp.clone(), (0, Vec::new()));
        let back = KilobotSensorsBatch::from_serialized_bytes(wire.write(&stamp, &Readings::of_batch(&smaller), 0, &[])).unwrap();
        assert_eq!(back.header.stamp, stamp);
        assert_eq!(back.robots, names);
        assert_eq!(back.message_counts, vec![1, 1, 0, 1]);
        assert_eq!(back.distances.len(), 3);
        compare("KilobotSensorsBatch", &wire, &back).unwrap();
    }
}
