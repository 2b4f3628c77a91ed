//! The Kilobot table: kinematic robots (no rapier), their motion model, overlap
//! resolution, collision avoidance, motor failures and the infrared channel, stepped in
//! lock step with the firmware: [`KilobotTable::read_all`] -> firmware ->
//! [`KilobotTable::apply_all`] -> [`KilobotTable::step`].

use super::config::{DistanceError, TableConfig, TableError, WORLD_UNIT_M};
use super::grid::Grid;
use flotilla_contract::kilobot::{IrMessage, KilobotCommand, KilobotSensors, MESSAGE_BYTES};
use flotilla_contract::wrap_angle as wrap;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

/// Centre-to-centre distance at which two bodies touch, world units.
const DIAMETER: f64 = 1.0;
/// Overlap below which two robots count as touching, world units (rounding slack).
const CONTACT_SLACK: f64 = 1e-9;
/// Margin of the channel's neighbour lists beyond its range, world units: a list holds
/// every robot within range + skin, and stays complete until some robot has moved
/// `LIST_SLACK` of it (robots move 0.01 per step: lists last tens of steps).
const SKIN: f64 = 1.0;
/// Share of [`SKIN`] a robot may move before the lists are rebuilt (below 1/2, the bound
/// that keeps them complete, for rounding).
const LIST_SLACK: f64 = 0.45;

/// A robot's pose on the table.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pose {
    /// x, world units.
    pub x: f64,
    /// y, world units.
    pub y: f64,
    /// Heading from +x, counter-clockwise, rad.
    pub theta: f64,
}

/// What a robot's motors do in one step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Motion {
    /// Motors off.
    #[default]
    Stop,
    /// Both motors: straight ahead.
    Forward,
    /// Left motor alone: clockwise turn (drifting forward).
    Clockwise,
    /// Right motor alone: counter-clockwise turn (drifting forward).
    CounterClockwise,
}

impl Motion {
    /// The motion a command's motor duties ask for (a duty above 0 runs its motor).
    pub fn of(command: &KilobotCommand) -> Self {
        match (command.motor_left > 0.0, command.motor_right > 0.0) {
            (true, true) => Motion::Forward,
            (true, false) => Motion::Clockwise,
            (false, true) => Motion::CounterClockwise,
            (false, false) => Motion::Stop,
        }
    }
}

/// A command the table cannot carry out.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// Not one command per robot.
    #[error("kilobot table: {given} commands for {robots} robots")]
    Count {
        /// Commands given.
        given: usize,
        /// Robots on the table.
        robots: usize,
    },
    /// A message longer than a kilolib packet.
    #[error("kilobot table: robot {index} sends {len} bytes, a message holds {MESSAGE_BYTES}")]
    Message {
        /// Robot index.
        index: usize,
        /// Bytes given.
        len: usize,
    },
}

/// The table and every robot on it (structure of arrays, indexed by robot).
pub struct KilobotTable {
    config: TableConfig,
    rng: ChaCha8Rng,
    step: u64,
    x: Vec<f64>,
    y: Vec<f64>,
    theta: Vec<f64>,
    /// Per-robot speed factor (0 once the motors failed).
    factor: Vec<f64>,
    failed: Vec<bool>,
    anchored: Vec<bool>,
    motion: Vec<Motion>,
    /// Queue order of the moving robots: `(step it started moving << 32) | index`, so a
    /// smaller key has been moving longer (ahead in the edge-followers' queue).
    moving_since: Vec<u64>,
    moved: Vec<bool>,
    /// The robots that move this step, in increasing index (most of a swarm stands
    /// still: the step's passes walk these instead of every robot).
    movers: Vec<u32>,
    message: Vec<Option<[u8; MESSAGE_BYTES]>>,
    led: Vec<[f64; 3]>,
    odometer: Vec<f64>,
    /// `theta`'s sine and cosine, valid while `trig_of` holds `theta`'s bits (a heading
    /// changes only when its robot turns: most steps reuse them).
    sin: Vec<f64>,
    cos: Vec<f64>,
    trig_of: Vec<u64>,
    grid: Grid,
    /// The robots moving this step, in cells of the yield distance (avoidance queries).
    moving_grid: Grid,
    attempting: Vec<bool>,
    /// Scratch of [`Self::transmit`]: the robots whose message gets through this step.
    on_air: Vec<u32>,
    /// The message each robot on the air sends this step, as it was when the step's
    /// transmissions were decided (a host may apply a robot's next message before a later
    /// robot reads this step's).
    on_air_payload: Vec<[u8; MESSAGE_BYTES]>,
    /// The channel's neighbour lists (see [`Neighbours`]).
    neighbours: Neighbours,
    /// This step's deliveries by receiver (see [`Deliveries`]).
    inbox: Deliveries,
    /// The step whose transmissions `inbox` holds (None: not decided yet).
    prepared: Option<u64>,
    /// Some robot moved (or was pushed) since the channel last looked at the positions.
    displaced: bool,
    /// The robots that may have moved (or been pushed) since the channel last looked at
    /// the positions, repeats allowed (at most about two swarms' worth: beyond one, it is
    /// made every robot).
    shifted: Vec<u32>,
    /// Key of the distance-error and loss draws (from the run's seed).
    channel_key: u64,
    contacts: Vec<(u32, u32)>,
    previous_contacts: Vec<(u32, u32)>,
    /// Scratch of the overlap pass: (robot, dx, dy) corrections of moved partners.
    pushes: Vec<(usize, f64, f64)>,
    collisions: u64,
    transmissions: u64,
    deliveries: u64,
}

impl KilobotTable {
    /// A table with robots at `poses` (index = robot), each drawing its speed factor from
    /// the run's seed.
    pub fn new(config: TableConfig, poses: &[Pose], seed: u64) -> Result<Self, TableError> {
        config.validate()?;
        for (index, p) in poses.iter().enumerate() {
            let bad = |reason| TableError::Pose { index, x: p.x, y: p.y, reason };
            if !(p.x.is_finite() && p.y.is_finite() && p.theta.is_finite()) {
                return Err(bad("not finite"));
            }
            if let Some(b) = config.bounds {
                if p.x < b.min[0] || p.x > b.max[0] || p.y < b.min[1] || p.y > b.max[1] {
                    return Err(bad("outside the table"));
                }
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Its own key: the channel's draws leave the table's stream alone.
        let channel_key = mix(seed ^ 0x6B69_6C6F_6368_616E);
        let factor = match Normal::new(config.speed_factor_mean, config.speed_factor_std) {
            Ok(normal) if config.speed_factor_std > 0.0 => poses.iter().map(|_| normal.sample(&mut rng).max(0.0)).collect(),
            _ => vec![config.speed_factor_mean; poses.len()],
        };
        let n = poses.len();
        let mut table = Self {
            config,
            rng,
            step: 0,
            x: poses.iter().map(|p| p.x).collect(),
            y: poses.iter().map(|p| p.y).collect(),
            theta: poses.iter().map(|p| p.theta).collect(),
            factor,
            failed: vec![false; n],
            anchored: vec![false; n],
            motion: vec![Motion::Stop; n],
            moving_since: (0..n as u64).collect(),
            moved: vec![false; n],
            movers: Vec::new(),
            message: vec![None; n],
            led: vec![[0.0; 3]; n],
            odometer: vec![0.0; n],
            sin: vec![0.0; n],
            cos: vec![1.0; n],
            // 0.0's bits: the (0, 1) above.
            trig_of: vec![0; n],
            grid: Grid::default(),
            moving_grid: Grid::default(),
            attempting: vec![false; n],
            on_air: Vec::new(),
            on_air_payload: vec![[0; MESSAGE_BYTES]; n],
            neighbours: Neighbours::default(),
            inbox: Deliveries::default(),
            prepared: None,
            displaced: true,
            shifted: Vec::new(),
            channel_key,
            contacts: Vec::new(),
            previous_contacts: Vec::new(),
            pushes: Vec::new(),
            collisions: 0,
            transmissions: 0,
            deliveries: 0,
        };
        table.rebuild_grid();
        // The channel's lists and the room for a step's deliveries (at most one per list
        // entry) are made now rather than at the first reading, so that a host finds the
        // table's memory in place once it is built (e.g. to ask for huge pages).
        table.neighbours.refresh(&table.grid, &table.x, &table.y, &[], table.config.channel.range);
        table.inbox.reserve(table.neighbours.list.len());
        Ok(table)
    }

    /// The configuration.
    pub fn config(&self) -> &TableConfig {
        &self.config
    }

    /// Robots on the table.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether the table has no robot.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.step as f64 * self.config.step_duration
    }

    /// Robot `i`'s pose.
    pub fn pose(&self, i: usize) -> Pose {
        Pose { x: self.x[i], y: self.y[i], theta: self.theta[i] }
    }

    /// Every robot's x, world units.
    pub fn xs(&self) -> &[f64] {
        &self.x
    }

    /// Every robot's y, world units.
    pub fn ys(&self) -> &[f64] {
        &self.y
    }

    /// Whether robot `i` moved in the last step.
    pub fn moved(&self, i: usize) -> bool {
        self.moved[i]
    }

    /// The robots that moved in the last step, in increasing index (those for which
    /// [`Self::moved`] holds).
    pub fn movers(&self) -> &[u32] {
        &self.movers
    }

    /// Whether robot `i`'s motors have failed for good.
    pub fn failed(&self, i: usize) -> bool {
        self.failed[i]
    }

    /// Robots whose motors have failed.
    pub fn failed_count(&self) -> usize {
        self.failed.iter().filter(|f| **f).count()
    }

    /// Anchors robot `i` (it is never pushed: e.g. seeds, whose positions define the
    /// swarm's coordinates) or frees it.
    pub fn set_anchored(&mut self, i: usize, anchored: bool) {
        self.anchored[i] = anchored;
    }

    /// Robot `i`'s speed factor (0 after a failure).
    pub fn speed_factor(&self, i: usize) -> f64 {
        self.factor[i]
    }

    /// Distance robot `i` has travelled, world units.
    pub fn odometer(&self, i: usize) -> f64 {
        self.odometer[i]
    }

    /// Robot `i`'s LED colour (red, green, blue, 0..1).
    pub fn led(&self, i: usize) -> [f64; 3] {
        self.led[i]
    }

    /// Collisions so far: pairs of robots that came to overlap (counted once per contact).
    pub fn collisions(&self) -> u64 {
        self.collisions
    }

    /// Successful transmissions so far (each heard by every robot in range but the lost).
    pub fn transmissions(&self) -> u64 {
        self.transmissions
    }

    /// Messages delivered so far (one per transmission and receiver).
    pub fn deliveries(&self) -> u64 {
        self.deliveries
    }

    /// Times the channel's neighbour lists were rebuilt (they are rebuilt when robots have
    /// moved far enough to leave them incomplete).
    pub fn channel_list_rebuilds(&self) -> u64 {
        self.neighbours.rebuilds
    }

    /// Takes every robot's command (index = robot): motions for the next step, messages
    /// and LEDs.
    pub fn apply_all(&mut self, commands: &[KilobotCommand]) -> Result<(), CommandError> {
        if commands.len() != self.len() {
            return Err(CommandError::Count { given: commands.len(), robots: self.len() });
        }
        for (i, c) in commands.iter().enumerate() {
            self.apply(i, c)?;
        }
        Ok(())
    }

    /// Takes robot `i`'s command.
    pub fn apply(&mut self, i: usize, command: &KilobotCommand) -> Result<(), CommandError> {
        if command.message.len() > MESSAGE_BYTES {
            return Err(CommandError::Message { index: i, len: command.message.len() });
        }
        let motion = if self.failed[i] { Motion::Stop } else { Motion::of(command) };
        if self.motion[i] == Motion::Stop && motion != Motion::Stop {
            self.moving_since[i] = (self.step << 32) | i as u64;
        }
        self.motion[i] = motion;
        self.led[i] = command.led;
        // A whole packet (what kilolib programs send) is copied without a call to memcpy.
        self.message[i] = match <&[u8; MESSAGE_BYTES]>::try_from(command.message.as_slice()) {
            Ok(&whole) => Some(whole),
            Err(_) => (!command.message.is_empty()).then(|| {
                let mut payload = [0; MESSAGE_BYTES];
                payload[..command.message.len()].copy_from_slice(&command.message);
                payload
            }),
        };
        Ok(())
    }

    /// Every robot's reading of the current step into `out` (resized to one per robot;
    /// its message buffers are reused, so a steady swarm reads without allocating). The
    /// same as [`Self::read`] for every robot.
    pub fn read_all(&mut self, out: &mut Vec<KilobotSensors>) {
        out.resize_with(self.len(), KilobotSensors::default);
        for (i, s) in out.iter_mut().enumerate() {
            self.read(i, s);
        }
    }

    /// Robot `i`'s reading of the current step into `out` (its message buffer is reused).
    /// The step's transmissions are decided at the first reading of the step, so robots
    /// may be read in any order, any number of times, and a host may run each robot's
    /// firmware (and [`Self::apply`] its command) right after reading it: the messages
    /// heard are the ones sent before this step's commands.
    ///
    /// Messages arrive in no particular order. Each one's distance error and loss are
    /// drawn from the run's seed, the step, the sender and the receiver, so they do not
    /// depend on the order of reading.
    pub fn read(&mut self, i: usize, out: &mut KilobotSensors) {
        out.stamp = self.time();
        out.ticks = self.ticks();
        out.light = self.config.ambient_light;
        out.messages.clear();
        self.read_messages(i, |payload, distance| out.messages.push(IrMessage { payload: *payload, distance }));
    }

    /// Every robot's clock in this step's readings, ticks (one per step).
    pub fn ticks(&self) -> u32 {
        self.step.min(u64::from(u32::MAX)) as u32
    }

    /// The messages of robot `i`'s reading of the current step, each handed to
    /// `heard(payload, distance in m)`: [`Self::read`] without a [`KilobotSensors`], for a
    /// host that lays readings out its own way (the same messages, in the same order).
    pub fn read_messages(&mut self, i: usize, mut heard: impl FnMut(&[u8; MESSAGE_BYTES], f64)) {
        self.prepare_read();
        let inbox = &self.inbox;
        let (a, b) = (inbox.start[i] as usize, inbox.start[i + 1] as usize);
        for (&j, &distance) in inbox.sender[a..b].iter().zip(&inbox.distance[a..b]) {
            heard(&self.on_air_payload[j as usize], distance);
        }
        self.deliveries += (b - a) as u64;
    }

    /// Decides and delivers this step's transmissions (once per step).
    fn prepare_read(&mut self) {
        if self.prepared == Some(self.step) {
            return;
        }
        self.prepared = Some(self.step);
        if std::mem::take(&mut self.displaced) {
            self.neighbours.refresh(&self.grid, &self.x, &self.y, &self.shifted, self.config.channel.range);
        }
        self.shifted.clear();
        self.transmit();
    }

    /// Which robots get a message through this step (see [`super::ChannelConfig`]), and
    /// every delivery of theirs, filed by receiver. Sender by sender: a sender's robots in
    /// range are found once, for its contention and for its deliveries (a quarter of the
    /// robots send on the shared channel: receivers scanning their lists for senders would
    /// walk four times as many entries).
    fn transmit(&mut self) {
        let n = self.len();
        let channel = self.config.channel;
        let range2 = channel.range * channel.range;
        let key = mix(self.channel_key ^ self.step.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        // (probability of a try, packets per step and neighbourhood) of the shared channel.
        let shared = channel.capacity.map(|c| ((channel.tx_rate * self.config.step_duration).min(1.0), c * self.config.step_duration));
        if let Some((p_try, _)) = shared {
            for j in 0..n {
                self.attempting[j] = self.message[j].is_some() && self.rng.gen::<f64>() < p_try;
            }
        }
        let inbox = &mut self.inbox;
        inbox.begin(n);
        let (x, y, attempting) = (&self.x[..], &self.y[..], &self.attempting[..]);
        let lost = |draw: &Draw| channel.loss > 0.0 && draw.unit(0) < channel.loss;
        let mut on_air = std::mem::take(&mut self.on_air);
        on_air.clear();
        // First the senders that get through and how many deliveries each receiver gets,
        // then the deliveries, each written straight to its receiver's place.
        for j in 0..n {
            let Some(payload) = self.message[j] else { continue };
            if shared.is_some() && !attempting[j] {
                continue;
            }
            let (hits, _) = self.neighbours.in_range(j, x, y, range2);
            if let Some((_, per_step)) = shared {
                // The robots trying within range, itself included.
                let contenders = 1 + hits.iter().map(|&k| usize::from(attempting[k as usize])).sum::<usize>();
                let p = (per_step / contenders as f64).min(1.0);
                if !(p >= 1.0 || self.rng.gen::<f64>() < p) {
                    continue;
                }
            }
            on_air.push(j as u32);
            self.on_air_payload[j] = payload;
            for &k in hits {
                if !lost(&Draw::new(key, j as u32, k)) {
                    inbox.count(k);
                }
            }
        }
        inbox.open();
        for (m, &j) in on_air.iter().enumerate() {
            // A few senders ahead, their distances (which the contention did not read; at
            // 10,000 robots they are not in cache) are asked for.
            if let Some(&ahead) = on_air.get(m + PREFETCH_AHEAD) {
                self.neighbours.prefetch_kept(ahead as usize);
            }
            let (hits, distances) = self.neighbours.kept(j as usize);
            for (&k, &d) in hits.iter().zip(distances) {
                let draw = Draw::new(key, j, k);
                if lost(&draw) {
                    continue;
                }
                let measured = (d + noise(channel.distance_error, &draw)).max(0.0);
                inbox.post(k, j, measured * WORLD_UNIT_M);
            }
        }
        self.transmissions += on_air.len() as u64;
        self.on_air = on_air;
    }

    /// One step: collision avoidance, motion, overlap resolution, motor failures.
    pub fn step(&mut self) {
        let n = self.len();
        let cfg = self.config;
        // This step's moved and pushed robots are `shifted[first_shifted..]`.
        let first_shifted = self.shifted.len();
        // Yield first, from the poses every robot saw (order-independent).
        self.movers.clear();
        for i in 0..n {
            self.moved[i] = self.motion[i] != Motion::Stop && self.factor[i] > 0.0;
            if self.moved[i] {
                self.movers.push(i as u32);
            }
        }
        if let Some(avoid) = cfg.avoidance {
            let cos_cone = avoid.cone.cos();
            // Only moving robots make others yield: the grid holds just them, in cells of
            // the yield distance (a query scans ~10 candidates, not the ~30 of `grid`).
            self.moving_grid.rebuild_of(&self.x, &self.y, &self.movers, avoid.yield_distance);
            // Every mover's heading, read below for the robots it meets.
            for m in 0..self.movers.len() {
                self.trig(self.movers[m] as usize);
            }
            for m in 0..self.movers.len() {
                let i = self.movers[m] as usize;
                let (s, c) = (self.sin[i], self.cos[i]);
                let (xi, yi, x, y, sin, cos) = (self.x[i], self.y[i], &self.x, &self.y, &self.sin, &self.cos);
                let (since, since_i) = (&self.moving_since, self.moving_since[i]);
                let mut blocked = false;
                // Every candidate tested, without branches (whether one blocks is a coin
                // toss a branch predictor loses); the robot itself is at d = 0. Two robots
                // each ahead of the other would wait for each other for ever (a blocked
                // robot neither drives nor turns): of such a pair the one moving longer
                // goes, the one ahead in the queue. (By index, a robot that had followed
                // the queue into a notch too narrow to pass went first and drove for ever
                // into the queue's head turning back out of it.)
                self.moving_grid.for_each_near(xi, yi, avoid.yield_distance, |j| {
                    let (dx, dy) = (x[j] - xi, y[j] - yi);
                    let d = (dx * dx + dy * dy).sqrt();
                    let j_ahead = (dx * c + dy * s) >= cos_cone * d;
                    let i_ahead_of_j = -(dx * cos[j] + dy * sin[j]) >= cos_cone * d;
                    blocked |= (d < avoid.yield_distance) & (d > 0.0) & j_ahead & !(i_ahead_of_j & (since_i < since[j]));
                });
                // `moved` of later robots is read above (through the grid), so mark blocked
                // ones after the scan.
                self.attempting[i] = blocked;
            }
            let (moved, attempting) = (&mut self.moved, &mut self.attempting);
            self.movers.retain(|&i| {
                let blocked = std::mem::take(&mut attempting[i as usize]);
                moved[i as usize] = !blocked;
                !blocked
            });
        }
        for m in 0..self.movers.len() {
            let i = self.movers[m] as usize;
            let step = cfg.speed * self.factor[i];
            let distance = match self.motion[i] {
                Motion::Forward => step,
                Motion::Clockwise => {
                    self.theta[i] -= cfg.turn_angle;
                    step * cfg.turn_drift
                }
                Motion::CounterClockwise => {
                    self.theta[i] += cfg.turn_angle;
                    step * cfg.turn_drift
                }
                Motion::Stop => 0.0,
            };
            self.theta[i] = wrap(self.theta[i]);
            let (s, c) = self.trig(i);
            self.x[i] += distance * c;
            self.y[i] += distance * s;
            self.odometer[i] += distance;
        }
        self.shifted.extend_from_slice(&self.movers);
        self.resolve_overlaps();
        // Only moving robots move others (the overlap pass), or the walls.
        let mut displaced = !self.movers.is_empty();
        if let Some(b) = cfg.bounds {
            let r = DIAMETER / 2.0;
            for i in 0..n {
                let (x, y) = (self.x[i].clamp(b.min[0] + r, b.max[0] - r), self.y[i].clamp(b.min[1] + r, b.max[1] - r));
                if (x != self.x[i]) | (y != self.y[i]) {
                    displaced = true;
                    self.shifted.push(i as u32);
                }
                (self.x[i], self.y[i]) = (x, y);
            }
        }
        self.step += 1;
        if let Some(f) = cfg.failures {
            if self.step % f.interval == 0 {
                for i in 0..n {
                    if !self.failed[i] && self.rng.gen::<f64>() > f.threshold {
                        self.failed[i] = true;
                        self.factor[i] = 0.0;
                        self.motion[i] = Motion::Stop;
                    }
                }
            }
        }
        // The same positions file into the same grid: a swarm at rest skips it, and so
        // does one whose moved robots all stayed in their cells and inside the grid.
        if displaced {
            if !self.grid.unchanged_by(&self.x, &self.y, &self.shifted[first_shifted..], self.grid_cell()) {
                self.rebuild_grid();
            }
            self.displaced = true;
        }
        // A host that never reads would let the list grow: every robot says as much.
        if self.shifted.len() > n {
            self.shifted.clear();
            self.shifted.extend(0..n as u32);
        }
    }

    /// Robot `i`'s (sin, cos) of its heading, computed again only when the heading changed.
    #[inline]
    fn trig(&mut self, i: usize) -> (f64, f64) {
        let bits = self.theta[i].to_bits();
        if self.trig_of[i] != bits {
            (self.sin[i], self.cos[i]) = self.theta[i].sin_cos();
            self.trig_of[i] = bits;
        }
        (self.sin[i], self.cos[i])
    }

    /// Pushes overlapping robots apart: two moved robots share the correction, a robot at
    /// rest takes `push_share` of it (none when anchored). New contacts count as collisions.
    fn resolve_overlaps(&mut self) {
        std::mem::swap(&mut self.contacts, &mut self.previous_contacts);
        self.contacts.clear();
        for pass in 0..self.config.overlap_passes.max(1) {
            for &i in &self.movers {
                let i = i as usize;
                let (x, y, moved, contacts, pushes) = (&mut self.x, &mut self.y, &self.moved, &mut self.contacts, &mut self.pushes);
                let shifted = &mut self.shifted;
                let (anchored, rest_share) = (&self.anchored, self.config.push_share);
                let (xi, yi) = (x[i], y[i]);
                let mut push = [0.0f64; 2];
                pushes.clear();
                self.grid.for_each_near(xi, yi, DIAMETER + 0.1, |j| {
                    if j == i || (moved[j] && j < i) {
                        return;
                    }
                    let (dx, dy) = (xi - x[j], yi - y[j]);
                    let d2 = dx * dx + dy * dy;
                    if d2 >= (DIAMETER - CONTACT_SLACK) * (DIAMETER - CONTACT_SLACK) {
                        return;
                    }
                    let d = d2.sqrt();
                    if pass == 0 {
                        contacts.push((i.min(j) as u32, i.max(j) as u32));
                    }
                    let (ux, uy) = if d > 1e-12 { (dx / d, dy / d) } else { (1.0, 0.0) };
                    let depth = DIAMETER - d;
                    let other = match (moved[j], anchored[j]) {
                        (true, _) => 0.5,
                        (false, true) => 0.0,
                        (false, false) => rest_share,
                    };
                    push[0] += ux * depth * (1.0 - other);
                    push[1] += uy * depth * (1.0 - other);
                    if other > 0.0 {
                        pushes.push((j, -ux * depth * other, -uy * depth * other));
                    }
                });
                x[i] += push[0];
                y[i] += push[1];
                for &(j, px, py) in pushes.iter() {
                    x[j] += px;
                    y[j] += py;
                    shifted.push(j as u32);
                }
            }
        }
        self.contacts.sort_unstable();
        self.contacts.dedup();
        let (now, before) = (&self.contacts, &self.previous_contacts);
        self.collisions += now.iter().filter(|p| before.binary_search(p).is_err()).count() as u64;
    }

    /// Side of the cells of `grid`, world units.
    fn grid_cell(&self) -> f64 {
        self.config.channel.range.max(DIAMETER + 0.5)
    }

    fn rebuild_grid(&mut self) {
        let cell = self.grid_cell();
        self.grid.rebuild_all(&self.x, &self.y, cell);
    }
}

/// Verlet lists of the channel: every robot's neighbours within range + [`SKIN`] of the
/// positions at the last rebuild. Complete while no robot has moved more than half the
/// skin since (two robots out of a list were farther apart than range + skin: each moved
/// less than skin / 2, so they are still out of range), so a reading or a sender's
/// contention walks a list of ~40 robots instead of querying a grid rebuilt every step.
#[derive(Default)]
struct Neighbours {
    /// `start[i]..start[i + 1]` are robot `i`'s neighbours in `list`.
    start: Vec<u32>,
    /// Robot indices.
    list: Vec<u32>,
    /// Positions at the last rebuild, world units.
    x: Vec<f64>,
    y: Vec<f64>,
    /// Each robot's neighbours in range and their distances (world units), the first
    /// `near_len[i]` slots of its list's span: kept while `near_fresh[i]`, i.e. while
    /// neither the robot nor any robot of its list has moved (most of a swarm stands
    /// still: a sender's list is walked again only when something near it moved).
    near: Vec<u32>,
    near_distance: Vec<f64>,
    near_len: Vec<u32>,
    near_fresh: Vec<bool>,
    /// Positions when the in-range lists were last checked, world units.
    seen_x: Vec<f64>,
    seen_y: Vec<f64>,
    /// Rebuilds so far.
    rebuilds: u64,
}

impl Neighbours {
    /// Rebuilds the lists from `grid` (current with `x`, `y`) when some robot has moved
    /// too far since the last rebuild (or the robots changed), else forgets the in-range
    /// lists that a robot's move since the last call can have changed: its own and those
    /// of the robots in its list (lists are symmetric). Called after robots moved; only
    /// the robots in `shifted` (repeats allowed) may have moved since the last call.
    fn refresh(&mut self, grid: &Grid, x: &[f64], y: &[f64], shifted: &[u32], range: f64) {
        let limit = (SKIN * LIST_SLACK) * (SKIN * LIST_SLACK);
        // A robot that did not move since the last call is where it was then, when it was
        // not too far from its place at the rebuild (or the lists were rebuilt).
        let stale = self.x.len() != x.len()
            || shifted.iter().any(|&m| {
                let (a, b, c, d) = (x[m as usize], y[m as usize], self.x[m as usize], self.y[m as usize]);
                (a - c) * (a - c) + (b - d) * (b - d) >= limit
            });
        if !stale && self.start.len() == x.len() + 1 {
            for &m in shifted {
                let m = m as usize;
                if x[m] != self.seen_x[m] || y[m] != self.seen_y[m] {
                    (self.seen_x[m], self.seen_y[m]) = (x[m], y[m]);
                    self.near_fresh[m] = false;
                    for &k in &self.list[self.start[m] as usize..self.start[m + 1] as usize] {
                        self.near_fresh[k as usize] = false;
                    }
                }
            }
            return;
        }
        let reach = range + SKIN;
        let (start, list) = (&mut self.start, &mut self.list);
        start.clear();
        list.clear();
        start.push(0);
        for i in 0..x.len() {
            let (xi, yi) = (x[i], y[i]);
            grid.for_each_near(xi, yi, reach, |j| {
                let (dx, dy) = (x[j] - xi, y[j] - yi);
                if j != i && dx * dx + dy * dy < reach * reach {
                    list.push(j as u32);
                }
            });
            start.push(list.len() as u32);
        }
        for (mine, now) in [(&mut self.x, x), (&mut self.y, y), (&mut self.seen_x, x), (&mut self.seen_y, y)] {
            mine.clear();
            mine.extend_from_slice(now);
        }
        self.near.resize(self.list.len(), 0);
        self.near_distance.resize(self.list.len(), 0.0);
        self.near_len.resize(x.len(), 0);
        self.near_fresh.clear();
        self.near_fresh.resize(x.len(), false);
        self.rebuilds += 1;
    }

    /// Robot `i`'s neighbours within `range2` (squared range, world units^2), in list
    /// order, and their distances (world units), walked from its list only when it is
    /// not kept from before.
    #[inline]
    fn in_range(&mut self, i: usize, x: &[f64], y: &[f64], range2: f64) -> (&[u32], &[f64]) {
        if !self.near_fresh[i] {
            self.walk(i, x, y, range2);
        }
        self.kept(i)
    }

    /// Keeps robot `i`'s neighbours within `range2` and their distances, walked from its
    /// list (apart from [`Self::in_range`], whose kept case is the common one).
    #[inline(never)]
    fn walk(&mut self, i: usize, x: &[f64], y: &[f64], range2: f64) {
        let (a, b) = (self.start[i] as usize, self.start[i + 1] as usize);
        // Kept without a branch per candidate (a third of a list is out of range:
        // branches would often be mispredicted).
        let (xi, yi) = (x[i], y[i]);
        let (near, distance) = (&mut self.near[a..b], &mut self.near_distance[a..b]);
        let mut kept = 0;
        for &k in &self.list[a..b] {
            let (dx, dy) = (x[k as usize] - xi, y[k as usize] - yi);
            let d2 = dx * dx + dy * dy;
            (near[kept], distance[kept]) = (k, d2);
            kept += usize::from(d2 < range2);
        }
        for d in &mut distance[..kept] {
            *d = d.sqrt();
        }
        self.near_len[i] = kept as u32;
        self.near_fresh[i] = true;
    }

    /// Asks the processor to load robot `i`'s kept neighbours in range and distances
    /// (a hint: changes nothing).
    #[inline]
    fn prefetch_kept(&self, i: usize) {
        let (a, end) = (self.start[i] as usize, self.start[i] as usize + self.near_len[i] as usize);
        prefetch(&self.near[a..end]);
        prefetch(&self.near_distance[a..end]);
    }

    /// Robot `i`'s neighbours in range and their distances as kept by its last
    /// [`Self::in_range`] (which must be current: no robot moved since).
    #[inline]
    fn kept(&self, i: usize) -> (&[u32], &[f64]) {
        let (a, end) = (self.start[i] as usize, self.start[i] as usize + self.near_len[i] as usize);
        (&self.near[a..end], &self.near_distance[a..end])
    }
}

/// One step's deliveries, filed by receiver: counted first, then each written to its
/// receiver's place (posted sender by sender, so a receiver hears its senders in
/// increasing index).
#[derive(Default)]
struct Deliveries {
    /// `start[i]..start[i + 1]` are robot `i`'s deliveries in `sender` and `distance`.
    start: Vec<u32>,
    /// While posting: where robot `i`'s next delivery goes.
    fill: Vec<u32>,
    /// Sender index.
    sender: Vec<u32>,
    /// Measured distance, m.
    distance: Vec<f64>,
}

impl Deliveries {
    /// Empties it for a step of `n` robots.
    fn begin(&mut self, n: usize) {
        self.start.clear();
        self.start.resize(n + 1, 0);
    }

    /// Room for `deliveries` in a step.
    fn reserve(&mut self, deliveries: usize) {
        self.sender.reserve(deliveries);
        self.distance.reserve(deliveries);
    }

    /// One delivery to come for `receiver` (before [`Self::open`]).
    #[inline]
    fn count(&mut self, receiver: u32) {
        self.start[receiver as usize + 1] += 1;
    }

    /// Makes room for the counted deliveries.
    fn open(&mut self) {
        for i in 1..self.start.len() {
            self.start[i] += self.start[i - 1];
        }
        let total = self.start.last().map_or(0, |&t| t as usize);
        self.sender.resize(total, 0);
        self.distance.resize(total, 0.0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.start);
    }

    /// A delivery to `receiver` from `sender`, `distance` m measured (one of those
    /// counted).
    #[inline]
    fn post(&mut self, receiver: u32, sender: u32, distance: f64) {
        let slot = &mut self.fill[receiver as usize];
        (self.sender[*slot as usize], self.distance[*slot as usize]) = (sender, distance);
        *slot += 1;
    }
}

/// The random numbers of one delivery (sender, receiver, step): a counter-based
/// generator (SplitMix64's finaliser over the key), so a delivery's draws do not depend on
/// the order in which receivers are read.
struct Draw {
    key: u64,
}

impl Draw {
    /// The draws of a delivery in the step keyed `step_key` (itself mixed from the run's
    /// key and the step).
    fn new(step_key: u64, sender: u32, receiver: u32) -> Self {
        Self { key: step_key ^ ((u64::from(sender) << 32) | u64::from(receiver)) }
    }

    /// The `k`-th uniform number in [0, 1) of this delivery.
    #[inline]
    fn unit(&self, k: u64) -> f64 {
        (mix(self.key.wrapping_add(k.wrapping_mul(0x9E37_79B9_7F4A_7C15))) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Senders ahead of the one posting whose kept distances are asked for.
const PREFETCH_AHEAD: usize = 4;

/// Asks the processor to load the cache lines of `items` (a hint: reads nothing the
/// program sees).
#[inline]
fn prefetch<T>(items: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let bytes = items.as_ptr().cast::<i8>();
        // SAFETY: SSE is part of every x86_64 target, and a prefetch reads no memory the
        // program can see (it only hints the cache; any address is allowed).
        unsafe {
            for offset in (0..std::mem::size_of_val(items)).step_by(64) {
                _mm_prefetch::<_MM_HINT_T0>(bytes.wrapping_add(offset));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = items;
}

/// SplitMix64's output function: a bijective mix of 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn noise(error: DistanceError, draw: &Draw) -> f64 {
    match error {
        DistanceError::None => 0.0,
        DistanceError::Uniform { half_width } if half_width > 0.0 => (2.0 * draw.unit(1) - 1.0) * half_width,
        DistanceError::Gaussian { sigma } if sigma > 0.0 => {
            // Box-Muller.
            let (u, v) = (1.0 - draw.unit(1), draw.unit(2));
            (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos() * sigma
        }
        _ => 0.0,
    }
}
