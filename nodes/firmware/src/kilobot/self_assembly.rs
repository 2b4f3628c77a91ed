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
use super::message::{Broadcast, GRADIENT_NONE};
use super::shape::Shape;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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
        }
    }
}

/// A parameter out of range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("self-assembly parameter {field} = {value}: {rule}")]
pub struct ParamError {
    /// The parameter.
    pub field: &'static str,
    /// Its value.
    pub value: f64,
    /// What it must be.
    pub rule: &'static str,
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
                return Err(ParamError { field, value, rule: "must be a number > 0" });
            }
        }
        if !(self.divide_localize.is_finite() && self.divide_localize >= 1.0) {
            return Err(ParamError { field: "divide_localize", value: self.divide_localize, rule: "must be >= 1" });
        }
        if self.min_references < 2 {
            return Err(ParamError { field: "min_references", value: self.min_references as f64, rule: "must be >= 2" });
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

/// What the robot knows of one neighbour.
#[derive(Clone, Copy, Debug)]
struct Neighbour {
    uid: u16,
    gradient: u16,
    state: State,
    localised: bool,
    position: [f64; 2],
    /// Last measured distance, world units.
    distance: f64,
    /// Tick it was last heard.
    heard: u32,
}

impl Neighbour {
    fn stationary(&self) -> bool {
        !self.state.is_moving()
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
    /// Sorted by uid.
    neighbours: Vec<Neighbour>,
    /// `neighbours[k].uid`, apart: the lookup of every message reads one cache line.
    neighbour_uids: Vec<u16>,
    previous_distance: f64,
    oracle: Option<[f64; 2]>,
    references: Vec<Reference>,
}

impl SelfAssembly {
    /// A robot (or seed) that assembles `shape`.
    pub fn new(params: SelfAssemblyParams, shape: Arc<Shape>, role: Role) -> Result<Self, ParamError> {
        params.validate()?;
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
            neighbours: Vec::new(),
            neighbour_uids: Vec::new(),
            previous_distance: f64::INFINITY,
            oracle: None,
            references: Vec::new(),
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
        self.params = params;
        Ok(())
    }

    fn update_gradient(&mut self) {
        let g = self.params.gradient_distance;
        let best = self.neighbours.iter().filter(|n| n.distance < g && n.gradient != GRADIENT_NONE).map(|n| n.gradient).min();
        self.gradient = best.map_or(GRADIENT_NONE, |b| (b + 1).min(GRADIENT_NONE - 1));
    }

    fn localise(&mut self) {
        match self.params.localisation {
            Localisation::Ideal => {
                if let Some(p) = self.oracle {
                    self.position = p;
                    self.localised = true;
                }
            }
            Localisation::Greedy | Localisation::LeastSquares => {
                self.references.clear();
                // Only robots of the shape (seeds and joined) are references: robots of the
                // starting group that localised from each other can settle, as a rigid whole,
                // on a mirror image of their true positions and would spread it.
                self.references.extend(
                    self.neighbours.iter().filter(|n| n.localised && n.state == State::JoinedShape).map(|n| (n.position, n.distance)),
                );
                if self.references.len() < self.params.min_references {
                    return;
                }
                if self.params.localisation == Localisation::Greedy {
                    localise::greedy(&mut self.position, &self.references, self.params.divide_localize);
                    self.localised = true;
                } else if let Some(p) = localise::least_squares(self.position, &self.references) {
                    self.position = p;
                    self.localised = true;
                }
            }
        }
    }

    /// Nearest stationary neighbour: (distance, gradient).
    fn nearest_stationary(&self) -> Option<(f64, u16)> {
        self.neighbours.iter().filter(|n| n.stationary()).map(|n| (n.distance, n.gradient)).min_by(|a, b| a.0.total_cmp(&b.0))
    }

    /// No neighbour moves and this robot ranks first by (gradient, id) among the waiting
    /// robots around it (robots of the shape do not compete: the last robots of the group,
    /// next to the seeds, have lower gradients than the shape around them). A robot without
    /// a gradient (cut off from the source) ranks below every robot with one, so a remnant
    /// of the starting group neither blocks the others nor stays behind for ever.
    fn may_start(&self) -> bool {
        let rank = |g: u16, uid: u16| (g != GRADIENT_NONE, if g == GRADIENT_NONE { 0 } else { g }, uid);
        let mine = rank(self.gradient, self.uid);
        self.neighbours.iter().all(|n| match n.state {
            State::MoveWhileOutside | State::MoveWhileInside => false,
            State::JoinedShape => true,
            State::Start | State::WaitToMove => rank(n.gradient, n.uid) < mine,
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
                if self.inside() {
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
        if self.neighbours.iter().any(|n| now.saturating_sub(n.heard) > timeout) {
            self.neighbours.retain(|n| now.saturating_sub(n.heard) <= timeout);
            self.neighbour_uids.clear();
            self.neighbour_uids.extend(self.neighbours.iter().map(|n| n.uid));
        }
        if !self.is_seed() {
            self.update_gradient();
            self.localise();
            self.run_state_machine(kilo);
        }
        self.colour(kilo);
    }

    fn message_rx(&mut self, kilo: &mut Kilo, message: &Message, distance: &DistanceMeasurement) {
        let d = estimate_distance(distance) / self.params.world_unit_mm;
        if d > self.params.neighbor_radius {
            return;
        }
        let Some(b) = Broadcast::decode(&message.data) else { return };
        if b.uid == self.uid {
            return;
        }
        let entry = Neighbour {
            uid: b.uid,
            gradient: b.gradient,
            state: b.state,
            localised: b.localised,
            position: b.position,
            distance: d,
            heard: kilo.kilo_ticks(),
        };
        match self.neighbour_uids.binary_search(&b.uid) {
            Ok(k) => self.neighbours[k] = entry,
            Err(k) => {
                self.neighbours.insert(k, entry);
                self.neighbour_uids.insert(k, b.uid);
            }
        }
    }

    fn message_tx(&mut self, _kilo: &mut Kilo) -> Option<Message> {
        let b = Broadcast { uid: self.uid, gradient: self.gradient, state: self.state, localised: self.localised, position: self.position };
        Some(Message { data: b.encode() })
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
