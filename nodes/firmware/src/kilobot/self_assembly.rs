//! The self-assembly program of Rubenstein, Cornejo and Nagpal (Science 2014) as the
//! simulation study describes it (SPEC 4): edge-following, gradient formation and
//! localisation driving a finite state machine,
//! start -> wait to move -> move while outside -> move while inside -> joined shape.
//!
//! Seeds are stationary robots told their position and gradient (0 for the source, 1 for
//! the others). Every other robot, every tick: drops neighbours not heard for
//! `neighbour_timeout` ticks, takes gradient = 1 + the smallest gradient among neighbours
//! closer than G, localises, then
//! - start: waits STARTUP_TIME ticks (gradient and localisation settle);
//! - wait to move: starts edge-following when no neighbour is moving and its gradient is
//!   the highest among its neighbours (equal gradient: the higher id goes);
//! - localisation (greedy or least squares) uses the localised robots of the shape (seeds
//!   and joined robots) as references;
//! - move while outside: edge-follows until its believed position is in the shape;
//! - move while inside: edge-follows; stops for good (joined) when it is about to leave
//!   the shape or the stationary robot next to it has the same gradient.
//!
//! Distances are world units (one robot diameter, `world_unit_mm` mm).

use super::kilolib::{estimate_distance, DistanceMeasurement, Kilo, KiloProgram, Message, MOTOR_ON, RGB};
use super::localise::{self, Reference};
use super::message::{Broadcast, GRADIENT_NONE, POSITION_LIMIT};
use super::shape::Shape;
use flotilla_contract::kilobot::MESSAGE_BYTES;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Slots of the neighbour table's index by uid (see [`SelfAssembly::index`]).
const INDEX_SLOTS: usize = 128;

/// Most neighbours the index holds (at most half its slots full, so a lookup mostly reads
/// one slot); a larger table is searched by bisection.
const INDEX_MAX: usize = INDEX_SLOTS / 2;

/// An empty slot of the index.
const EMPTY: u8 = u8::MAX;

/// Neighbour entries a table is given room for when the program is made: the ~32
/// robots within NEIGHBOR_RADIUS of a packed group, with margin. A host that makes its
/// robots' programs one after the other so gets their tables laid out in robot order
/// (a table grown by inserts would be reallocated to scattered places), which the
/// processor streams through instead of fetching line by line.
const TABLE_RESERVE: usize = 40;

/// A robot's place in the assembly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[repr(u8)]
pub enum State {
    /// Waiting STARTUP_TIME after power-on.
    #[default]
    Start = 0,
    /// Stationary, waiting for its turn to move.
    WaitToMove = 1,
    /// Edge-following, not yet in the shape.
    MoveWhileOutside = 2,
    /// Edge-following inside the shape.
    MoveWhileInside = 3,
    /// Stopped for good in the shape (seeds are here from the start).
    JoinedShape = 4,
}

impl State {
    /// The state of a message's three bits.
    pub fn from_bits(bits: u8) -> Option<Self> {
        Some(match bits {
            0 => State::Start,
            1 => State::WaitToMove,
            2 => State::MoveWhileOutside,
            3 => State::MoveWhileInside,
            4 => State::JoinedShape,
            _ => return None,
        })
    }

    /// Whether a robot in this state is edge-following.
    pub fn is_moving(self) -> bool {
        matches!(self, State::MoveWhileOutside | State::MoveWhileInside)
    }
}

/// How a robot computes its position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Localisation {
    /// Told its true position by the simulator (simulation only: see
    /// [`SelfAssembly::set_oracle`]).
    Ideal,
    /// The Kilobots' greedy trilateration (1/DIVIDE_LOCALIZE per reference and tick).
    #[default]
    Greedy,
    /// Least squares on all references each tick (the study's "opt").
    LeastSquares,
}

/// Which neighbours a robot localises from, and whether a joined robot keeps localising.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum References {
    /// The localised robots of the shape (seeds and joined robots); joined robots keep
    /// localising. Robots of the starting group that localised from each other can settle,
    /// as a rigid whole, on a mirror image of their true positions: this rule keeps them
    /// from spreading it.
    #[default]
    Shape,
    /// The study's code (its `localize` and `_check_if_localized`): every stationary
    /// neighbour that says it is localised, the starting group included; a stationary
    /// robot says so only while its estimate, rounded to a thousandth of a diameter, stayed
    /// the same over its last [`STABLE_LOCALISATIONS`] localisations; a robot stops
    /// localising when it joins (its estimate is frozen).
    Study,
}

/// Localisations over which a stationary robot's rounded estimate must stay the same for
/// it to call itself localised under [`References::Study`] (the study keeps four).
pub const STABLE_LOCALISATIONS: u8 = 4;

impl std::str::FromStr for References {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "shape" => Ok(References::Shape),
            "study" => Ok(References::Study),
            other => Err(format!("`{other}` is not a reference rule (shape, study)")),
        }
    }
}

impl std::str::FromStr for Localisation {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ideal" => Ok(Localisation::Ideal),
            "greedy" => Ok(Localisation::Greedy),
            "least-squares" => Ok(Localisation::LeastSquares),
            other => Err(format!("`{other}` is not a localisation (ideal, greedy, least-squares)")),
        }
    }
}

/// The algorithm's parameters (defaults: the study's Table 1, SPEC 4).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfAssemblyParams {
    /// DESIRED_DISTANCE: edge-following distance to the nearest stationary neighbour,
    /// world units ((2 x 16.25 + 20) / 32.5 = 1.615).
    pub desired_distance: f64,
    /// NEIGHBOR_RADIUS: messages from farther are ignored, world units (3 x desired).
    pub neighbor_radius: f64,
    /// G: neighbours closer than this count for the gradient, world units (1.715).
    pub gradient_distance: f64,
    /// DIVIDE_LOCALIZE: the greedy step's divisor (2; the original's 4).
    pub divide_localize: f64,
    /// STARTUP_TIME, ticks (500).
    pub startup_time: u32,
    /// TRILATERATION_TYPE.
    pub localisation: Localisation,
    /// Length of a world unit (the robot's diameter), mm (32.5).
    pub world_unit_mm: f64,
    /// A neighbour not heard for this many ticks is forgotten, ticks.
    pub neighbour_timeout: u32,
    /// Localised stationary neighbours needed to localise (3: trilateration).
    pub min_references: usize,
    /// A reference's distance is used to localise only if heard at most this many ticks
    /// ago, ticks (2). The study measures every distance afresh each step; a table entry
    /// lives `neighbour_timeout` ticks, and a moving robot's distance to a reference that
    /// went out of range (no longer heard) drifts 0.01 per tick from the truth. 2 ticks
    /// bound that to 0.02 diameters (0.65 mm, below the +-2 mm ranging accuracy).
    pub reference_max_age: u32,
    /// Which neighbours are localisation references ([`References`]).
    pub references: References,
}

impl Default for SelfAssemblyParams {
    fn default() -> Self {
        Self {
            desired_distance: 1.615,
            neighbor_radius: 4.845,
            gradient_distance: 1.715,
            divide_localize: 2.0,
            startup_time: 500,
            localisation: Localisation::Greedy,
            world_unit_mm: 32.5,
            neighbour_timeout: 32,
            min_references: 3,
            reference_max_age: 2,
            references: References::Shape,
        }
    }
}

/// `value` as a message shows it: plain between 1e-4 and 1e6, in exponent form beyond
/// (1e308 is not 309 digits).
fn compact(value: f64) -> String {
    if (1e-4..1e6).contains(&value.abs()) || value == 0.0 || !value.is_finite() {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// A parameter out of range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("self-assembly parameter {field} = {}: {rule}", compact(*value))]
pub struct ParamError {
    /// The parameter.
    pub field: &'static str,
    /// Its value.
    pub value: f64,
    /// What it must be.
    pub rule: String,
}

impl SelfAssemblyParams {
    /// Checks the ranges.
    pub fn validate(&self) -> Result<(), ParamError> {
        let positive = [
            ("desired_distance", self.desired_distance),
            ("neighbor_radius", self.neighbor_radius),
            ("gradient_distance", self.gradient_distance),
            ("world_unit_mm", self.world_unit_mm),
        ];
        for (field, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(ParamError { field, value, rule: "must be a number > 0".into() });
            }
        }
        if !(self.divide_localize.is_finite() && self.divide_localize >= 1.0) {
            return Err(ParamError { field: "divide_localize", value: self.divide_localize, rule: "must be >= 1".into() });
        }
        if self.min_references < 2 {
            return Err(ParamError { field: "min_references", value: self.min_references as f64, rule: "must be >= 2".into() });
        }
        // Robots are one world unit across and never closer than that: a smaller distance
        // (1 included: 0 of 25 joined in 100,000 steps, the follower grinding along the
        // group) left every robot edge-following or colliding, and a radius below the
        // distance left every robot deaf to the neighbour it follows (nothing ever joined).
        if self.desired_distance <= 1.0 {
            return Err(ParamError {
                field: "desired_distance",
                value: self.desired_distance,
                rule: "must be more than 1 (a robot's diameter): a robot cannot follow an edge while touching it".into(),
            });
        }
        if self.gradient_distance <= 1.0 {
            return Err(ParamError {
                field: "gradient_distance",
                value: self.gradient_distance,
                rule: "must be more than 1 (a robot's diameter): no two robots are closer, so no neighbour would count and the gradient would not leave the source".into(),
            });
        }
        // Robots stop about DESIRED_DISTANCE from each other, and the gradient passes only
        // between robots closer than G (G = 1.2 with DESIRED_DISTANCE 1.2: 0 of 25 joined).
        if self.gradient_distance <= self.desired_distance {
            return Err(ParamError {
                field: "gradient_distance",
                value: self.gradient_distance,
                rule: format!(
                    "must be more than desired_distance ({}): robots stop about that far apart and the gradient passes only between robots closer than G",
                    compact(self.desired_distance)
                ),
            });
        }
        if self.neighbor_radius <= self.desired_distance {
            return Err(ParamError {
                field: "neighbor_radius",
                value: self.neighbor_radius,
                rule: format!(
                    "must be more than desired_distance ({}): a robot must hear the neighbour it follows",
                    compact(self.desired_distance)
                ),
            });
        }
        if self.gradient_distance > self.neighbor_radius {
            return Err(ParamError {
                field: "gradient_distance",
                value: self.gradient_distance,
                rule: format!("must be at most neighbor_radius ({}): a neighbour within G must be heard", compact(self.neighbor_radius)),
            });
        }
        Ok(())
    }
}

/// What a robot is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Role {
    /// A robot that joins the shape.
    Robot,
    /// A stationary seed at `position` (world units, the shape's frame); `source` starts
    /// the gradient.
    Seed {
        /// Its position, world units.
        position: [f64; 2],
        /// Whether it is the gradient's source.
        source: bool,
    },
}

/// What the robot knows of one neighbour: its last message, kept as heard (24 bytes: a
/// robot's table of tens of neighbours stays in a few cache lines; fields are read from
/// the bytes when needed).
#[derive(Clone, Copy, Debug)]
struct Neighbour {
    /// Last measured distance, world units.
    distance: f64,
    /// Tick it was last heard.
    heard: u32,
    /// Its last message (a valid [`Broadcast`]).
    raw: [u8; MESSAGE_BYTES],
}

impl Neighbour {
    fn uid(&self) -> u16 {
        Broadcast::uid_of(&self.raw)
    }

    fn gradient(&self) -> u16 {
        Broadcast::gradient_of(&self.raw)
    }

    fn state(&self) -> State {
        // Only messages with a valid state are kept.
        Broadcast::state_of(&self.raw).unwrap_or_default()
    }

    fn localised(&self) -> bool {
        Broadcast::localised_of(&self.raw)
    }

    fn position(&self) -> [f64; 2] {
        Broadcast::position_of(&self.raw)
    }

    fn stationary(&self) -> bool {
        !self.state().is_moving()
    }

    /// Whether it is a localisation reference under `rule`.
    fn reference(&self, rule: References) -> bool {
        self.localised()
            && match rule {
                References::Shape => self.state() == State::JoinedShape,
                References::Study => self.stationary(),
            }
    }
}

/// The self-assembly program of one robot.
pub struct SelfAssembly {
    params: SelfAssemblyParams,
    shape: Arc<Shape>,
    role: Role,
    uid: u16,
    state: State,
    gradient: u16,
    position: [f64; 2],
    localised: bool,
    /// The estimate agrees with the references' measured distances (residual at most
    /// [`localise::LOCAL_MINIMUM_RMS`]) and they tell it from its mirror image across their
    /// principal line ([`localise::mirror_ambiguous`]): a robot does not take itself for
    /// inside the shape from an estimate caught on a mirror image of its position.
    consistent: bool,
    /// The last estimate rounded to a thousandth of a diameter, and for how many
    /// localisations in a row it has been that ([`References::Study`]).
    rounded: ([i64; 2], u8),
    /// Sorted by uid.
    neighbours: Vec<Neighbour>,
    /// The table's index by uid while it has at most [`INDEX_MAX`] entries (all [`EMPTY`]
    /// beyond): the entry of a uid is named by a slot from `uid % INDEX_SLOTS` on (the
    /// next slot after a full one, round), before an empty slot. Remade when entries come
    /// or go (rare: a robot hears the same neighbours tick after tick), so most messages
    /// find their entry in one slot, without a search of the table. A lookup takes an
    /// entry only when it has the uid: an index out of date would cost a search, never
    /// a wrong entry.
    index: [u8; INDEX_SLOTS],
    previous_distance: f64,
    oracle: Option<[f64; 2]>,
    references: Vec<Reference>,
    // Event-driven work: what the neighbour table's last changes call for. Each flag or
    // count only spares recomputing a result that is known not to have changed, so the
    // program behaves exactly as if it recomputed everything every tick.
    /// No neighbour was heard before this tick (a lower bound of their `heard`): expiry
    /// scans the table only when this one could have timed out.
    oldest_heard: u32,
    /// The gradient's inputs (neighbours within G and their gradients) changed.
    gradient_stale: bool,
    /// The start rule's inputs (neighbours' states and gradients, own gradient) changed.
    start_stale: bool,
    /// The start rule's result when its inputs last changed.
    start_ok: bool,
    /// Neighbours that are localisation references.
    reference_count: usize,
    /// The last broadcast and its bytes.
    sent: Option<(Broadcast, [u8; MESSAGE_BYTES])>,
}

impl SelfAssembly {
    /// A robot (or seed) that assembles `shape`.
    ///
    /// Refused (besides parameters out of range) when the shape and the robots following its
    /// edge, `desired_distance` beyond it, reach farther from the seeds' corner than the
    /// positions a message carries ([`POSITION_LIMIT`]): their positions would be clamped.
    pub fn new(params: SelfAssemblyParams, shape: Arc<Shape>, role: Role) -> Result<Self, ParamError> {
        params.validate()?;
        let (width, height) = (shape.width() as f64 * shape.scale(), shape.height() as f64 * shape.scale());
        let reach = width.max(height) + params.desired_distance;
        if reach.is_nan() || reach > POSITION_LIMIT {
            return Err(ParamError {
                field: "shape extent",
                value: width.max(height),
                rule: format!(
                    "the shape spans {} x {} world units ({} x {} pixels at scale {}); with the robots following its edge {} beyond it that must stay within the +-{POSITION_LIMIT:.4} world units a message's position carries: give a smaller scale or image",
                    compact(width),
                    compact(height),
                    shape.width(),
                    shape.height(),
                    compact(shape.scale()),
                    compact(params.desired_distance)
                ),
            });
        }
        let (state, gradient, position, localised) = match role {
            Role::Robot => (State::Start, GRADIENT_NONE, [0.0, 0.0], false),
            Role::Seed { position, source } => (State::JoinedShape, u16::from(!source), position, true),
        };
        Ok(Self {
            params,
            shape,
            role,
            uid: 0,
            state,
            gradient,
            position,
            localised,
            consistent: localised,
            rounded: ([i64::MIN; 2], 0),
            neighbours: Vec::with_capacity(TABLE_RESERVE),
            index: [EMPTY; INDEX_SLOTS],
            previous_distance: f64::INFINITY,
            oracle: None,
            references: Vec::new(),
            oldest_heard: u32::MAX,
            gradient_stale: true,
            start_stale: true,
            start_ok: false,
            reference_count: 0,
            sent: None,
        })
    }

    /// SIMULATION ONLY: the robot's true position (world units, the shape's frame), which
    /// [`Localisation::Ideal`] copies. A real Kilobot has no way to know it; a host sets it
    /// before each tick from the simulator's state, and nothing else reads it.
    pub fn set_oracle(&mut self, position: Option<[f64; 2]>) {
        self.oracle = position;
    }

    /// The state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Puts the robot in `state` believing it is at `position` (tests of a later state).
    #[cfg(test)]
    pub(crate) fn force_state_for_test(&mut self, state: State, position: [f64; 2]) {
        self.state = state;
        self.position = position;
        self.localised = true;
    }

    /// Hop count from the source seed (None before the first gradient arrived).
    pub fn gradient(&self) -> Option<u16> {
        (self.gradient != GRADIENT_NONE).then_some(self.gradient)
    }

    /// The believed position (x, y), world units in the shape's frame.
    pub fn position(&self) -> [f64; 2] {
        self.position
    }

    /// Whether the robot has a position.
    pub fn localised(&self) -> bool {
        self.localised
    }

    /// Whether it is a seed.
    pub fn is_seed(&self) -> bool {
        matches!(self.role, Role::Seed { .. })
    }

    /// The parameters.
    pub fn params(&self) -> &SelfAssemblyParams {
        &self.params
    }

    /// Replaces the parameters while running (an overhead controller's parameter
    /// broadcast); refused, the old ones kept, when out of range.
    pub fn set_params(&mut self, params: SelfAssemblyParams) -> Result<(), ParamError> {
        params.validate()?;
        let rule_changed = params.references != self.params.references;
        self.params = params;
        if rule_changed {
            self.reference_count = self.neighbours.iter().filter(|n| n.reference(params.references)).count();
        }
        Ok(())
    }

    fn update_gradient(&mut self) {
        let g = self.params.gradient_distance;
        let best = self.neighbours.iter().filter(|n| n.distance < g && n.gradient() != GRADIENT_NONE).map(|n| n.gradient()).min();
        let gradient = best.map_or(GRADIENT_NONE, |b| (b + 1).min(GRADIENT_NONE - 1));
        if gradient != self.gradient {
            self.gradient = gradient;
            self.start_stale = true;
        }
    }

    fn localise(&mut self, now: u32) {
        match self.params.localisation {
            Localisation::Ideal => {
                if let Some(p) = self.oracle {
                    self.position = p;
                    self.localised = true;
                    self.consistent = true;
                }
            }
            Localisation::Greedy | Localisation::LeastSquares => {
                let study = self.params.references == References::Study;
                if study && self.state == State::JoinedShape {
                    return;
                }
                if study && !self.state.is_moving() {
                    // Stationary: localised only while the estimate holds still (below).
                    self.localised = false;
                }
                if self.reference_count < self.params.min_references {
                    return;
                }
                self.references.clear();
                // Only robots of the shape (seeds and joined) are references: robots of the
                // starting group that localised from each other can settle, as a rigid whole,
                // on a mirror image of their true positions and would spread it.
                let max_age = self.params.reference_max_age;
                self.references.extend(
                    self.neighbours
                        .iter()
                        .filter(|n| n.reference(self.params.references) && now.saturating_sub(n.heard) <= max_age)
                        .map(|n| (n.position(), n.distance)),
                );
                if self.references.len() < self.params.min_references {
                    return;
                }
                if self.params.localisation == Localisation::Greedy {
                    localise::greedy(&mut self.position, &self.references, self.params.divide_localize);
                    self.localised = true;
                } else if let Some(p) = localise::least_squares_global(self.position, &self.references) {
                    self.position = p;
                    self.localised = true;
                }
                self.consistent = localise::rms_residual(self.position, &self.references) <= localise::LOCAL_MINIMUM_RMS
                    && !localise::mirror_ambiguous(self.position, &self.references);
                if study {
                    let rounded = self.position.map(|v| (v * 1000.0).round() as i64);
                    let same = if rounded == self.rounded.0 { self.rounded.1.saturating_add(1) } else { 1 };
                    self.rounded = (rounded, same);
                    if !self.state.is_moving() {
                        self.localised = same >= STABLE_LOCALISATIONS;
                    }
                }
            }
        }
    }

    /// Nearest stationary neighbour: (distance, gradient).
    fn nearest_stationary(&self) -> Option<(f64, u16)> {
        self.neighbours.iter().filter(|n| n.stationary()).map(|n| (n.distance, n.gradient())).min_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// No neighbour moves and this robot ranks first by (gradient, id) among the waiting
    /// robots around it (robots of the shape do not compete: the last robots of the group,
    /// next to the seeds, have lower gradients than the shape around them). A robot without
    /// a gradient (cut off from the source) ranks below every robot with one, so a remnant
    /// of the starting group neither blocks the others nor stays behind for ever.
    fn may_start(&mut self) -> bool {
        if self.start_stale {
            self.start_stale = false;
            self.start_ok = self.start_rule();
        }
        self.start_ok
    }

    /// [`Self::may_start`] evaluated on the neighbour table.
    fn start_rule(&self) -> bool {
        let rank = |g: u16, uid: u16| (g != GRADIENT_NONE, if g == GRADIENT_NONE { 0 } else { g }, uid);
        let mine = rank(self.gradient, self.uid);
        self.neighbours.iter().all(|n| match n.state() {
            State::MoveWhileOutside | State::MoveWhileInside => false,
            State::JoinedShape => true,
            State::Start | State::WaitToMove => rank(n.gradient(), n.uid()) < mine,
        })
    }

    /// Orbit the stationary group, keeping it on the right at DESIRED_DISTANCE.
    fn edge_follow(&mut self, kilo: &mut Kilo) {
        let current = self.nearest_stationary().map_or(f64::INFINITY, |(d, _)| d);
        let previous = self.previous_distance;
        self.previous_distance = current;
        if current < self.params.desired_distance {
            if previous < current {
                kilo.set_motors(MOTOR_ON, MOTOR_ON);
            } else {
                kilo.set_motors(0, MOTOR_ON); // counter-clockwise: away
            }
        } else if previous > current {
            kilo.set_motors(MOTOR_ON, MOTOR_ON);
        } else {
            kilo.set_motors(MOTOR_ON, 0); // clockwise: toward
        }
    }

    fn inside(&self) -> bool {
        self.localised && self.shape.contains(self.position[0], self.position[1])
    }

    fn run_state_machine(&mut self, kilo: &mut Kilo) {
        kilo.set_motors(0, 0);
        match self.state {
            State::Start => {
                if kilo.kilo_ticks() >= self.params.startup_time {
                    self.state = State::WaitToMove;
                }
            }
            State::WaitToMove => {
                if self.may_start() {
                    self.state = State::MoveWhileOutside;
                    self.previous_distance = f64::INFINITY;
                    self.edge_follow(kilo);
                }
            }
            State::MoveWhileOutside => {
                // Enters only on an estimate that agrees with its measurements; once inside,
                // only the shape's edge (about to leave it) stops the robot.
                if self.inside() && self.consistent {
                    self.state = State::MoveWhileInside;
                }
                self.edge_follow(kilo);
            }
            State::MoveWhileInside => {
                let same_gradient_ahead = self.nearest_stationary().is_some_and(|(_, g)| self.gradient <= g);
                if !self.inside() || same_gradient_ahead {
                    self.state = State::JoinedShape;
                } else {
                    self.edge_follow(kilo);
                }
            }
            State::JoinedShape => {}
        }
    }

    /// Forgets the neighbours not heard for `neighbour_timeout` ticks.
    fn expire(&mut self, now: u32) {
        let timeout = self.params.neighbour_timeout;
        let rule = self.params.references;
        let before = self.neighbours.len();
        self.neighbours.retain(|n| now.saturating_sub(n.heard) <= timeout);
        self.oldest_heard = self.neighbours.iter().map(|n| n.heard).min().unwrap_or(u32::MAX);
        if self.neighbours.len() != before {
            self.index_uids();
            self.reference_count = self.neighbours.iter().filter(|n| n.reference(rule)).count();
            self.gradient_stale = true;
            self.start_stale = true;
        }
    }

    /// Remakes `index` from the table.
    fn index_uids(&mut self) {
        self.index = [EMPTY; INDEX_SLOTS];
        if self.neighbours.len() > INDEX_MAX {
            return;
        }
        for k in 0..self.neighbours.len() {
            self.index_entry(k);
        }
    }

    /// Updates `index` for an entry inserted at `k` (the entries from `k` on moved up one).
    fn index_inserted(&mut self, k: usize) {
        if self.neighbours.len() > INDEX_MAX {
            self.index = [EMPTY; INDEX_SLOTS];
            return;
        }
        // k < INDEX_MAX < EMPTY; a pass over the slots without branches.
        let k = k as u8;
        for slot in &mut self.index {
            *slot += u8::from(*slot != EMPTY && *slot >= k);
        }
        self.index_entry(usize::from(k));
    }

    /// Names entry `k` in a free slot of `index`.
    fn index_entry(&mut self, k: usize) {
        let mut h = usize::from(self.neighbours[k].uid()) % INDEX_SLOTS;
        while self.index[h] != EMPTY {
            h = (h + 1) % INDEX_SLOTS;
        }
        // k < INDEX_MAX < EMPTY.
        self.index[h] = k as u8;
    }

    /// Where `uid` is or goes in the table (sorted by uid), and whether it is there.
    #[inline]
    fn find(&self, uid: u16) -> (usize, bool) {
        if self.neighbours.len() <= INDEX_MAX {
            let mut h = usize::from(uid) % INDEX_SLOTS;
            loop {
                match self.index[h] {
                    EMPTY => break,
                    k if self.neighbours[usize::from(k)].uid() == uid => return (usize::from(k), true),
                    _ => h = (h + 1) % INDEX_SLOTS,
                }
            }
        }
        // Not in the index (a new neighbour), or a table too large for it.
        let k = self.neighbours.partition_point(|n| n.uid() < uid);
        (k, self.neighbours.get(k).is_some_and(|n| n.uid() == uid))
    }

    fn colour(&self, kilo: &mut Kilo) {
        let c = match (self.role, self.state) {
            (Role::Seed { .. }, _) => RGB(3, 3, 3),
            (_, State::Start) => RGB(0, 0, 1),
            (_, State::WaitToMove) => RGB(3, 0, 0),
            (_, State::MoveWhileOutside) => RGB(3, 3, 0),
            (_, State::MoveWhileInside) => RGB(0, 3, 3),
            (_, State::JoinedShape) => RGB(0, 3, 0),
        };
        kilo.set_color(c);
    }
}

impl KiloProgram for SelfAssembly {
    fn setup(&mut self, kilo: &mut Kilo) {
        self.uid = kilo.kilo_uid();
        self.colour(kilo);
    }

    fn main_loop(&mut self, kilo: &mut Kilo) {
        let now = kilo.kilo_ticks();
        let timeout = self.params.neighbour_timeout;
        if now.saturating_sub(self.oldest_heard) > timeout {
            self.expire(now);
        }
        if !self.is_seed() {
            if self.gradient_stale {
                self.gradient_stale = false;
                self.update_gradient();
            }
            self.localise(now);
            self.run_state_machine(kilo);
        }
        self.colour(kilo);
    }

    #[inline]
    fn message_rx(&mut self, kilo: &mut Kilo, message: &Message, distance: &DistanceMeasurement) {
        let d = estimate_distance(distance) / self.params.world_unit_mm;
        if d > self.params.neighbor_radius {
            return;
        }
        let uid = Broadcast::uid_of(&message.data);
        if uid == self.uid {
            return;
        }
        let now = kilo.kilo_ticks();
        let g = self.params.gradient_distance;
        let rule = self.params.references;
        let (k, known) = self.find(uid);
        if known && self.neighbours[k].raw == message.data {
            // The same message again (most are: a robot repeats itself until its state
            // changes): only the distance and the time are new.
            let n = &mut self.neighbours[k];
            if (n.distance < g) != (d < g) && n.gradient() != GRADIENT_NONE {
                self.gradient_stale = true;
            }
            n.distance = d;
            n.heard = now;
            return;
        }
        if Broadcast::state_of(&message.data).is_none() {
            return;
        }
        let entry = Neighbour { distance: d, heard: now, raw: message.data };
        if known {
            let old = std::mem::replace(&mut self.neighbours[k], entry);
            let near = |n: &Neighbour| n.distance < g && n.gradient() != GRADIENT_NONE;
            if near(&old) != near(&entry) || (near(&entry) && old.gradient() != entry.gradient()) {
                self.gradient_stale = true;
            }
            if old.state() != entry.state() || old.gradient() != entry.gradient() {
                self.start_stale = true;
            }
            self.reference_count = self.reference_count + usize::from(entry.reference(rule)) - usize::from(old.reference(rule));
        } else {
            self.neighbours.insert(k, entry);
            self.index_inserted(k);
            self.oldest_heard = self.oldest_heard.min(now);
            self.gradient_stale = true;
            self.start_stale = true;
            self.reference_count += usize::from(entry.reference(rule));
        }
    }

    fn message_tx(&mut self, _kilo: &mut Kilo) -> Option<Message> {
        let b = Broadcast { uid: self.uid, gradient: self.gradient, state: self.state, localised: self.localised, position: self.position };
        // A robot repeats itself until its state changes: encode only a new broadcast
        // (equal fields give equal bytes; a NaN position never compares equal).
        match self.sent {
            Some((last, data)) if last == b => Some(Message { data }),
            _ => {
                let data = b.encode();
                self.sent = Some((b, data));
                Some(Message { data })
            }
        }
    }

    fn prefetch(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let table = self.neighbours.as_ptr().cast::<i8>();
            // SAFETY: SSE is part of every x86_64 target, and a prefetch reads no memory
            // the program can see (it only hints the cache; any address is allowed).
            unsafe {
                for offset in (0..std::mem::size_of_val(self.neighbours.as_slice())).step_by(64) {
                    _mm_prefetch::<_MM_HINT_T0>(table.wrapping_add(offset));
                }
            }
        }
    }

    fn status(&self) -> String {
        let g = self.gradient().map_or_else(|| "none".to_owned(), |g| g.to_string());
        format!(
            "{:?}, gradient {g}, at ({:.3}, {:.3}), {} neighbours",
            self.state,
            self.position[0],
            self.position[1],
            self.neighbours.len()
        )
    }
}
