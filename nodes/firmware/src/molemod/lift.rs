//! Planar model of the final mole lifting its block onto the neighbouring one (SPEC 2,
//! "lifting"), and a search for the joint path that does it.
//!
//! The plane is the vertical one through the blocks' x tunnels. The front head grips the
//! neighbouring block B (fixed on the floor, screwed to the rest of the row) and is the
//! chain's base; the rear head is clamped in the robot's own block A, which moves rigidly
//! with it. Forward kinematics go head_front -prismatic_0- universal_0 -prismatic_1- body
//! -prismatic_2- universal_1 -prismatic_3- head_rear, pitch axes only (yaws at zero).
//! Dimensions are the final model's (`flotilla_common`'s `MolemodRobotGeometry`,
//! `urdf/molemod_robot.urdf`): 40 mm main cubes with 4 mm rounded edges (the physics'
//! `edge_radius`) whose centres are 28 mm from their universal joint, 30 mm prismatic
//! travel, ±90 degree universal joints; 100 mm blocks with 50 mm square tunnels, the mole's
//! axis 5 mm below a tunnel's centre (lying on its floor) where each head grips.
//!
//! A configuration is checked for clearance (signed distance, negative = overlap) between
//! every pair that can meet: the three main cubes with each other and with the floor and
//! the blocks' solid (in this plane, each block's four 25 mm corner columns: the two
//! tunnels cross its whole section), and block A's 100 mm outline with the floor and the
//! other blocks. The immaterial joint cubes (no contact in the physics) are not checked.
//! Static loads: the gravity torque on each universal joint's pitch axis and the force
//! along each prismatic joint from the links and the block beyond it (front head fixed).

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::FiveIntervalController;

/// Half the side of a main cube, m (40 mm cubes).
pub const CUBE_HALF: f64 = 0.02;
/// Rounding radius of the main cubes' edges, m (the physics' `edge_radius`).
pub const CUBE_ROUNDING: f64 = 0.004;
/// Distance from a universal joint to the centre of either main cube next to it with the
/// prismatic joint between at zero, m (half the 56 mm contracted pitch).
pub const LEVER: f64 = 0.028;
/// Travel of each prismatic joint, m.
pub const TRAVEL: f64 = 0.03;
/// Side of a block, m.
pub const BLOCK: f64 = 0.1;
/// Half the side of a block's square tunnels, m.
pub const TUNNEL_HALF: f64 = 0.025;
/// How far the mole's axis lies below a tunnel's centre where a head grips, m (a 40 mm cube
/// on the floor of a 50 mm tunnel).
pub const AXIS_BELOW: f64 = 0.005;
/// Mass of a main cube, kg (URDF: 0.2 kg over three cubes).
pub const CUBE_MASS: f64 = 0.2 / 3.0;
/// Mass of a joint cube, kg (URDF; two stand at each universal joint).
pub const JOINT_CUBE_MASS: f64 = 0.015;
/// Mass of a block, kg (docs/molemod_execution.md: 0.25 kg assumed).
pub const BLOCK_MASS: f64 = 0.25;
/// Standard gravity, m/s^2.
pub const GRAVITY: f64 = 9.81;

/// Joint values in the order of the chain from the front head: `prismatic_0` (m),
/// `universal_0_axis2` (rad), `prismatic_1`, `prismatic_2` (m), `universal_1_axis2` (rad),
/// `prismatic_3` (m). Pitch signs are the URDF's (about +y: positive tips the child's x axis
/// down), so a negative `universal_0_axis2` turns the body up behind the front head.
pub type LiftJoints = [f64; 6];

/// The same configuration read from the other end: the joints of the mole whose rear head
/// does what the front head of `q` does. The final model is symmetric under a half turn
/// about the vertical through its body (`urdf/molemod_robot.urdf`: each half is a
/// prismatic joint out of the body along its x axis, a universal joint with its yaw about
/// z then its pitch about +y, a prismatic joint to a 40 mm head, the same masses, ranges
/// and efforts; only the heads' colours differ), so `prismatic_0` and `prismatic_3`,
/// `prismatic_1` and `prismatic_2` swap, and so do the two pitch axes; the half turn maps
/// +y to -y, so a pitch reads with the other sign. Its own inverse.
pub fn mirror(q: &LiftJoints) -> LiftJoints {
    [q[5], -q[4], q[3], q[2], -q[1], q[0]]
}

/// Names of [`LiftJoints`]' entries as the model names its coordinates.
pub const LIFT_JOINT_NAMES: [&str; 6] =
    ["prismatic_0", "universal_0_axis2", "prismatic_1", "prismatic_2", "universal_1_axis2", "prismatic_3"];

/// Which entries of [`LiftJoints`] are prismatic.
pub const PRISMATIC: [bool; 6] = [true, false, true, true, false, true];

/// A planar pose: position (x along the row, z up), m, and the angle of its x axis from +x
/// towards +z, rad.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Along the row, m.
    pub x: f64,
    /// Up, m.
    pub z: f64,
    /// Angle of the body's x axis from the world's +x towards +z, rad.
    pub angle: f64,
}

impl Pose {
    /// A point given in this pose's frame, in the world.
    pub fn apply(&self, (u, v): (f64, f64)) -> (f64, f64) {
        let (s, c) = self.angle.sin_cos();
        (self.x + c * u - s * v, self.z + s * u + c * v)
    }
}

/// The row and where the heads grip.
#[derive(Clone, Debug, PartialEq)]
pub struct LiftScene {
    /// Centre of the neighbouring block B (the one lifted onto) along the row, m; B stands on
    /// the floor.
    pub neighbour: f64,
    /// Centres of the other blocks standing on the floor in this row, besides B, m.
    pub others: Vec<f64>,
    /// Front head's centre along B's tunnel from B's centre, m (positive = away from A).
    pub front_grip: f64,
    /// Rear head's centre along A's tunnel from A's centre, in A's frame, m (positive =
    /// towards B at the start).
    pub rear_grip: f64,
    /// Mass of block A, kg.
    pub block_mass: f64,
}

impl LiftScene {
    /// Task 1's row "###." with the robot's block A at x = 0: B at 0.1 m, one more block at
    /// 0.2 m, both fixed.
    pub fn task1(front_grip: f64, rear_grip: f64) -> Self {
        Self { neighbour: BLOCK, others: vec![2.0 * BLOCK], front_grip, rear_grip, block_mass: BLOCK_MASS }
    }

    /// The cell on top of B: where A's centre ends, m.
    pub fn target(&self) -> (f64, f64) {
        (self.neighbour, 1.5 * BLOCK)
    }
}

/// Every link's pose for one configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chain {
    /// Front head's centre.
    pub front: Pose,
    /// Front universal joint's centre (its two joint cubes).
    pub joint_front: (f64, f64),
    /// Body cube's centre.
    pub body: Pose,
    /// Rear universal joint's centre.
    pub joint_rear: (f64, f64),
    /// Rear head's centre.
    pub rear: Pose,
    /// Block A's centre.
    pub block: Pose,
}

/// Forward kinematics with the front head held in B's tunnel.
pub fn chain(scene: &LiftScene, q: &LiftJoints) -> Chain {
    let front = Pose { x: scene.neighbour + scene.front_grip, z: 0.5 * BLOCK - AXIS_BELOW, angle: 0.0 };
    chain_from(front, scene.rear_grip, q)
}

/// Forward kinematics from the front head's pose `front` (its x axis pointing away from
/// the chain), the rear head clamped in block A `rear_grip` (m) along A's tunnel from A's
/// centre, lying on the tunnel's floor ([`AXIS_BELOW`]).
pub fn chain_from(front: Pose, rear_grip: f64, q: &LiftJoints) -> Chain {
    let dir = |a: f64| (a.cos(), a.sin());
    let step = |from: (f64, f64), angle: f64, len: f64| (from.0 - len * dir(angle).0, from.1 - len * dir(angle).1);
    let joint_front = step((front.x, front.z), front.angle, LEVER + q[0]);
    // A child's x axis = the parent's turned by -pitch about y (the URDF's +y axis).
    let body_angle = front.angle + q[1];
    let body_at = step(joint_front, body_angle, LEVER + q[2]);
    let body = Pose { x: body_at.0, z: body_at.1, angle: body_angle };
    let joint_rear = step(body_at, body_angle, LEVER + q[3]);
    let rear_angle = body_angle - q[4];
    let rear_at = step(joint_rear, rear_angle, LEVER + q[5]);
    let rear = Pose { x: rear_at.0, z: rear_at.1, angle: rear_angle };
    // The rear head sits at (rear_grip, -AXIS_BELOW) in A's frame.
    let (s, c) = rear_angle.sin_cos();
    let (u, v) = (rear_grip, -AXIS_BELOW);
    let block = Pose { x: rear.x - (c * u - s * v), z: rear.z - (s * u + c * v), angle: rear_angle };
    Chain { front, joint_front, body, joint_rear, rear, block }
}

/// A convex quadrilateral, corners counter-clockwise.
pub(crate) type Quad = [(f64, f64); 4];

pub(crate) fn rectangle(pose: &Pose, half_u: (f64, f64), half_v: (f64, f64)) -> Quad {
    [pose.apply((half_u.0, half_v.0)), pose.apply((half_u.1, half_v.0)), pose.apply((half_u.1, half_v.1)), pose.apply((half_u.0, half_v.1))]
}

fn point_segment((px, pz): (f64, f64), (ax, az): (f64, f64), (bx, bz): (f64, f64)) -> f64 {
    let (dx, dz) = (bx - ax, bz - az);
    let t = (((px - ax) * dx + (pz - az) * dz) / (dx * dx + dz * dz)).clamp(0.0, 1.0);
    (px - ax - t * dx).hypot(pz - az - t * dz)
}

/// Signed distance between two convex quadrilaterals, m: the gap if apart, minus the
/// least separating-axis overlap if they overlap.
pub(crate) fn quad_distance(a: &Quad, b: &Quad) -> f64 {
    let mut separation = f64::NEG_INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        for i in 0..4 {
            let (s, e) = (p[i], p[(i + 1) % 4]);
            let (nx, nz) = (e.1 - s.1, -(e.0 - s.0));
            let len = nx.hypot(nz);
            let along = |v: (f64, f64)| ((v.0 - s.0) * nx + (v.1 - s.1) * nz) / len;
            let least = q.iter().map(|&v| along(v)).fold(f64::INFINITY, f64::min);
            separation = separation.max(least);
        }
    }
    if separation <= 0.0 {
        return separation;
    }
    let mut d = f64::INFINITY;
    for (p, q) in [(a, b), (b, a)] {
        for &v in p.iter() {
            for i in 0..4 {
                d = d.min(point_segment(v, q[i], q[(i + 1) % 4]));
            }
        }
    }
    d
}

/// The inner square of a rounded main cube (the cube is it grown by [`CUBE_ROUNDING`]).
pub(crate) fn cube(pose: &Pose) -> Quad {
    let h = CUBE_HALF - CUBE_ROUNDING;
    rectangle(pose, (-h, h), (-h, h))
}

/// A block's four corner columns in this plane (the solid around its two tunnels).
pub(crate) fn columns(pose: &Pose) -> [Quad; 4] {
    let (o, i) = (0.5 * BLOCK, TUNNEL_HALF);
    [
        rectangle(pose, (-o, -i), (-o, -i)),
        rectangle(pose, (i, o), (-o, -i)),
        rectangle(pose, (i, o), (i, o)),
        rectangle(pose, (-o, -i), (i, o)),
    ]
}

/// Distance from `q` to the solid of the block centred at `block` (its four corner columns
/// in this plane), m (negative = overlap); a cube's rounding is the caller's to subtract.
pub(crate) fn distance_to_block(q: &Quad, block: &Pose) -> f64 {
    columns(block).iter().map(|s| quad_distance(q, s)).fold(f64::INFINITY, f64::min)
}

/// Height of the lowest corner of `q` above the floor (z = 0), m.
pub(crate) fn lowest_corner(q: &Quad) -> f64 {
    q.iter().map(|v| v.1).fold(f64::INFINITY, f64::min)
}

pub(crate) fn outline(pose: &Pose) -> Quad {
    let o = 0.5 * BLOCK;
    rectangle(pose, (-o, o), (-o, o))
}

/// The pairs whose clearance is checked, in the order of [`clearances`].
pub const PAIRS: [&str; 15] = [
    "front head - body",
    "front head - rear head",
    "body - rear head",
    "front head - block A",
    "body - block A",
    "body - floor",
    "body - block B",
    "body - other blocks",
    "rear head - floor",
    "rear head - block B",
    "rear head - other blocks",
    "front head - other blocks",
    "block A - floor",
    "block A - block B",
    "block A - other blocks",
];

/// Index of "block A - floor" in [`PAIRS`].
pub const BLOCK_FLOOR: usize = 12;
/// Index of "block A - block B" in [`PAIRS`].
pub const BLOCK_NEIGHBOUR: usize = 13;

/// Clearance of every pair of [`PAIRS`], m (negative = overlap).
pub fn clearances(scene: &LiftScene, c: &Chain) -> [f64; 15] {
    let r = CUBE_ROUNDING;
    let (front, body, rear) = (cube(&c.front), cube(&c.body), cube(&c.rear));
    let floored = |x: f64| Pose { x, z: 0.5 * BLOCK, angle: 0.0 };
    let b = floored(scene.neighbour);
    let others: Vec<Pose> = scene.others.iter().map(|&x| floored(x)).collect();
    let to_columns = distance_to_block;
    let to_others = |q: &Quad, grown: f64| others.iter().map(|o| to_columns(q, o)).fold(f64::INFINITY, f64::min) - grown;
    let lowest = lowest_corner;
    let a = outline(&c.block);
    [
        quad_distance(&front, &body) - 2.0 * r,
        quad_distance(&front, &rear) - 2.0 * r,
        quad_distance(&body, &rear) - 2.0 * r,
        to_columns(&front, &c.block) - r,
        to_columns(&body, &c.block) - r,
        lowest(&body) - r,
        to_columns(&body, &b) - r,
        to_others(&body, r),
        lowest(&rear) - r,
        to_columns(&rear, &b) - r,
        to_others(&rear, r),
        to_others(&front, r),
        lowest(&a),
        quad_distance(&a, &outline(&b)),
        others.iter().map(|o| quad_distance(&a, &outline(o))).fold(f64::INFINITY, f64::min),
    ]
}

/// Static loads of a configuration from gravity on the links beyond each joint (the front
/// head is the fixed base).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Loads {
    /// Gravity's torque on each universal joint's pitch axis (front, rear) from the links
    /// beyond it, N m, about the world's +y axis (positive = those links beyond the joint
    /// along +x, pulled down).
    pub universal: [f64; 2],
    /// Force along each prismatic joint (`prismatic_0` .. `prismatic_3`), N, positive = the
    /// load pulls the joint open.
    pub prismatic: [f64; 4],
    /// Moment the front head's grip carries about its centre, N m.
    pub front_grip: f64,
    /// Moment of the mole and block A about B's bottom edge on A's side, N m, against which B
    /// and the blocks screwed to it hold: positive tips them towards A.
    pub tipping: f64,
}

/// Static loads of configuration `c`.
pub fn loads(scene: &LiftScene, c: &Chain) -> Loads {
    let weight = |m: f64| m * GRAVITY;
    // (weight, x) of the masses beyond each joint, from the rear end.
    let rear_group = [(weight(CUBE_MASS), c.rear.x), (weight(scene.block_mass), c.block.x)];
    let joint_rear_cubes = (weight(2.0 * JOINT_CUBE_MASS), c.joint_rear.0);
    let body = (weight(CUBE_MASS), c.body.x);
    let joint_front_cubes = (weight(2.0 * JOINT_CUBE_MASS), c.joint_front.0);
    let moment = |about: f64, masses: &[(f64, f64)]| masses.iter().map(|&(w, x)| w * (x - about)).sum::<f64>();
    let total = |masses: &[(f64, f64)]| masses.iter().map(|m| m.0).sum::<f64>();
    let beyond_u1: Vec<_> = rear_group.to_vec();
    let mut beyond_p2 = beyond_u1.clone();
    beyond_p2.push(joint_rear_cubes);
    let mut beyond_p1 = beyond_p2.clone();
    beyond_p1.push(body);
    let mut beyond_p0 = beyond_p1.clone();
    beyond_p0.push(joint_front_cubes);
    // Gravity (0, 0, -w) at lever x about +y gives torque w x; a joint's coordinate resists it.
    let universal = [moment(c.joint_front.0, &beyond_p1), moment(c.joint_rear.0, &beyond_u1)];
    // A prismatic joint opens along the chain away from the front head: its axis is -x of
    // the link beyond; gravity's pull along it is w sin(angle).
    let pull = |angle: f64, w: f64| w * angle.sin();
    let prismatic = [
        pull(c.front.angle, total(&beyond_p0)),
        pull(c.body.angle, total(&beyond_p1)),
        pull(c.body.angle, total(&beyond_p2)),
        pull(c.rear.angle, total(&beyond_u1)),
    ];
    let edge = scene.neighbour - 0.5 * BLOCK;
    let tipping = -moment(edge, &beyond_p0) - weight(CUBE_MASS) * (c.front.x - edge);
    Loads { universal, prismatic, front_grip: moment(c.front.x, &beyond_p0), tipping }
}

/// What a configuration must keep to.
#[derive(Clone, Debug, PartialEq)]
pub struct LiftLimits {
    /// Least clearance of every pair not allowed to touch, m.
    pub margin: f64,
    /// Pairs (indices of [`PAIRS`]) that may touch (clearance down to -`touch`): those in
    /// contact where the path starts (the mole lying in the tunnels).
    pub touching: Vec<usize>,
    /// Overlap tolerated for a touching pair, m.
    pub touch: f64,
    /// Largest static torque on a universal joint's pitch axis, N m.
    pub torque: f64,
    /// Largest static force along a prismatic joint, N.
    pub force: f64,
    /// How far a universal joint's pitch may go, rad (its range less the controller's dead
    /// band).
    pub pitch: f64,
}

impl LiftLimits {
    /// The model's actuators (`MolemodRobotGeometry`: the XL330-M288-T class's 0.52 N m on
    /// each universal-joint axis, the PQ12 class's 15 N), 1 mm margin, pitch within 2 mrad
    /// of ±90°.
    pub fn actuators() -> Self {
        Self {
            margin: 1e-3,
            touching: Vec::new(),
            touch: 1e-6,
            torque: 0.52,
            force: 15.0,
            pitch: 0.5 * std::f64::consts::PI - FiveIntervalController::revolute().accuracy,
        }
    }

    /// Whether `q` is within the joint ranges.
    pub fn in_range(&self, q: &LiftJoints) -> bool {
        q.iter().zip(PRISMATIC).all(|(&v, p)| if p { (0.0..=TRAVEL).contains(&v) } else { v.abs() <= self.pitch })
    }

    /// The first constraint `q` breaks, if any: `Err` names it.
    pub fn check(&self, scene: &LiftScene, q: &LiftJoints) -> Result<(), String> {
        if !self.in_range(q) {
            return Err("joint range".into());
        }
        let c = chain(scene, q);
        for (i, &d) in clearances(scene, &c).iter().enumerate() {
            let least = if self.touching.contains(&i) { -self.touch } else { self.margin };
            if d < least {
                return Err(PAIRS[i].to_string());
            }
        }
        let l = loads(scene, &c);
        if l.universal.iter().any(|t| t.abs() > self.torque) {
            return Err("universal joint torque".into());
        }
        if l.prismatic.iter().any(|f| f.abs() > self.force) {
            return Err("prismatic joint force".into());
        }
        Ok(())
    }
}

/// How long the firmware's controllers take from `from` to `to`, s: each joint moves at its
/// five-interval controller's full speed, and at half speed within its slow zone.
fn travel_time(c: &FiveIntervalController, d: f64) -> f64 {
    let d = d.abs();
    if d <= c.slow_zone {
        d / (0.5 * c.speed)
    } else {
        (d - c.slow_zone) / c.speed + c.slow_zone / (0.5 * c.speed)
    }
}

fn controller(i: usize) -> FiveIntervalController {
    if PRISMATIC[i] {
        FiveIntervalController::prismatic()
    } else {
        FiveIntervalController::revolute()
    }
}

/// How long one phase from `from` to `to` takes, s (its slowest joint).
pub fn segment_time(from: &LiftJoints, to: &LiftJoints) -> f64 {
    (0..6).map(|i| travel_time(&controller(i), to[i] - from[i])).fold(0.0, f64::max)
}

/// Where the joints stand `t` s into a phase from `from` to `to`, as the firmware moves them:
/// every joint at once, each at its own controller's speed (so not along the straight line
/// in joint space), ignoring the dead band.
pub fn along_segment(from: &LiftJoints, to: &LiftJoints, t: f64) -> LiftJoints {
    let mut q = *from;
    for i in 0..6 {
        let c = controller(i);
        let d = to[i] - from[i];
        let total = travel_time(&c, d);
        if t >= total {
            q[i] = to[i];
            continue;
        }
        let fast = (d.abs() - c.slow_zone).max(0.0);
        let fast_time = fast / c.speed;
        let moved = if t <= fast_time { c.speed * t } else { fast + 0.5 * c.speed * (t - fast_time) };
        q[i] = from[i] + d.signum() * moved;
    }
    q
}

/// Samples of a phase from `from` to `to` at most `dt` s apart, both ends included.
pub fn segment_samples(from: &LiftJoints, to: &LiftJoints, dt: f64) -> Vec<LiftJoints> {
    let total = segment_time(from, to);
    let n = (total / dt).ceil().max(1.0) as usize;
    (0..=n).map(|k| along_segment(from, to, total * k as f64 / n as f64)).collect()
}

/// Sample spacing of the search's segment checks, s: 2 ms moves a pitch joint 1 mrad
/// (block A's far corner, ~0.25 m out, 0.25 mm) and a prismatic one 40 um.
pub const CHECK_DT: f64 = 0.002;

/// Whether the firmware's phase from `from` to `to` keeps to `limits` throughout.
pub fn segment_ok(scene: &LiftScene, limits: &LiftLimits, from: &LiftJoints, to: &LiftJoints) -> bool {
    segment_samples(from, to, CHECK_DT).iter().all(|q| limits.check(scene, q).is_ok())
}

/// Least clearance over the pairs not in `exempt` along a path of phases, m, with the pair
/// where it is least.
pub fn path_clearance(scene: &LiftScene, path: &[LiftJoints], dt: f64, exempt: &[usize]) -> (f64, &'static str) {
    let mut least = (f64::INFINITY, "");
    for pair in path.windows(2) {
        for q in segment_samples(&pair[0], &pair[1], dt) {
            for (i, &d) in clearances(scene, &chain(scene, &q)).iter().enumerate() {
                if !exempt.contains(&i) && d < least.0 {
                    least = (d, PAIRS[i]);
                }
            }
        }
    }
    least
}

/// The largest static loads along a path of phases: (universal torque, N m, which joint;
/// prismatic force, N; front grip moment, N m; tipping moment, N m).
pub fn path_loads(scene: &LiftScene, path: &[LiftJoints], dt: f64) -> (f64, usize, f64, f64, f64) {
    let mut worst = (0.0, 0, 0.0, 0.0, f64::NEG_INFINITY);
    for pair in path.windows(2) {
        for q in segment_samples(&pair[0], &pair[1], dt) {
            let l = loads(scene, &chain(scene, &q));
            for (j, t) in l.universal.iter().enumerate() {
                if t.abs() > worst.0 {
                    worst.0 = t.abs();
                    worst.1 = j;
                }
            }
            worst.2 = l.prismatic.iter().fold(worst.2, |m: f64, f| m.max(f.abs()));
            worst.3 = f64::max(worst.3, l.front_grip.abs());
            worst.4 = worst.4.max(l.tipping);
        }
    }
    worst
}

/// How high block A is lifted off what it stands on at either end of the searched path, m.
pub const LIFT_OFF: f64 = 0.003;

/// How far from the centre of the cell on top of B block A may end along the row, m
/// (within the executor's 5 mm block tolerance).
pub const GOAL_SLACK: f64 = 0.003;

/// The ends of a lift: where it starts and ends and what holds along the way.
#[derive(Clone, Debug, PartialEq)]
pub struct LiftEnds {
    /// The mole straight in the tunnels, block A on the floor `gap` from B; then A lifted
    /// [`LIFT_OFF`] straight up (both universal joints pitched alike).
    pub start: [LiftJoints; 2],
    /// A turned over and held [`LIFT_OFF`] above B, centred on it; then set down on it.
    pub goal: [LiftJoints; 2],
    /// The limits with the pairs touching at the start (the mole lying in the tunnels)
    /// allowed to touch.
    pub limits: LiftLimits,
}

/// Block A's lowest point, m.
fn block_bottom(c: &Chain) -> f64 {
    outline(&c.block).iter().map(|v| v.1).fold(f64::INFINITY, f64::min)
}

/// The ends of a lift in `scene` with A first parted `gap` (m) from B: `Err` says which
/// end breaks which limit.
pub fn endpoints(scene: &LiftScene, limits: &LiftLimits, gap: f64) -> Result<LiftEnds, String> {
    // Straight: the heads 112 mm plus the four joints' extensions apart.
    let spread = (scene.neighbour + scene.front_grip) - (scene.rear_grip - gap) - 4.0 * LEVER;
    if !(0.0..=4.0 * TRAVEL).contains(&spread) {
        return Err(format!("the straight mole cannot span the grips ({:.1} mm of extension)", spread * 1e3));
    }
    let s0 = [0.25 * spread, 0.0, 0.25 * spread, 0.25 * spread, 0.0, 0.25 * spread];
    let d = clearances(scene, &chain(scene, &s0));
    let mut limits = limits.clone();
    limits.touching = (0..PAIRS.len()).filter(|&i| i != BLOCK_FLOOR && i != BLOCK_NEIGHBOUR && d[i] < limits.margin).collect();
    // Lift off: the front pitch turns the mole and A up about the front joint (the raise);
    // the rear one, turned by a share of it, tips A back towards level. The first share
    // that lifts all of A's bottom off the floor without a rim in the way is taken.
    let mut lifting = limits.clone();
    lifting.touching.extend([BLOCK_FLOOR, BLOCK_NEIGHBOUR]);
    // Why each share fails, in order (the lift-off alone, the rear pitch's share 0 to 1).
    let mut why: Vec<String> = Vec::new();
    let mut s1 = None;
    'shares: for share in [0.0, 0.25, 0.5, 0.75, 1.0] {
        for k in 1..=300 {
            let up = 1e-3 * f64::from(k);
            let q = [s0[0], -up, s0[2], s0[3], -share * up, s0[5]];
            if block_bottom(&chain(scene, &q)) < LIFT_OFF {
                continue;
            }
            if !segment_ok(scene, &lifting, &s0, &q) {
                why.push(lifting.check(scene, &q).err().unwrap_or_else(|| "on the way".into()));
            } else if let Err(e) = limits.check(scene, &q) {
                why.push(format!("lifted: {e}"));
            } else {
                s1 = Some(q);
                break 'shares;
            }
            break;
        }
    }
    why.dedup();
    let s1 = s1.ok_or_else(|| format!("lift-off: {}", if why.is_empty() { "A stays on the floor".into() } else { why.join(" / ") }))?;
    // The goal: the front pitch at -90 degrees (body up), the rear at +90 (A upside down);
    // prismatic_0 places A over B, prismatic_1 + prismatic_2 set its height; prismatic_3
    // (tried across its travel) keeps the body off B's and A's rims.
    let (tx, tz) = scene.target();
    let mut best: Option<(f64, [LiftJoints; 2])> = None;
    let mut goal_why = String::new();
    for k in 0..=12 {
        let p3 = TRAVEL * f64::from(k) / 12.0;
        let mut q = [0.0, -limits.pitch, 0.02, 0.02, limits.pitch, p3];
        for _ in 0..50 {
            let c = chain(scene, &q);
            // prismatic_0 moves the whole chain back along B's tunnel; where its travel
            // ends, A may stay up to GOAL_SLACK off the cell.
            q[0] = (q[0] + c.block.x - tx).clamp(0.0, TRAVEL);
            let rise = tz - 0.5 * BLOCK + LIFT_OFF - block_bottom(&c);
            q[2] += 0.5 * rise;
            q[3] += 0.5 * rise;
        }
        let c = chain(scene, &q);
        let mut down = q;
        let drop = block_bottom(&c) - (tz - 0.5 * BLOCK);
        down[2] -= 0.5 * drop;
        down[3] -= 0.5 * drop;
        if (c.block.x - tx).abs() > GOAL_SLACK {
            goal_why = format!("A ends {:.1} mm off the cell", (c.block.x - tx) * 1e3);
            continue;
        }
        if let Err(e) = limits.check(scene, &q) {
            goal_why = format!("{e} (prismatic_3 at {:.1} mm)", p3 * 1e3);
            continue;
        }
        let mut setting = limits.clone();
        setting.touching.extend([BLOCK_NEIGHBOUR, BLOCK_NEIGHBOUR + 1]);
        if !segment_ok(scene, &setting, &q, &down) {
            goal_why = "setting down".into();
            continue;
        }
        let least = clearances(scene, &c)
            .iter()
            .enumerate()
            .filter(|(i, _)| !limits.touching.contains(i))
            .map(|(_, d)| *d)
            .fold(f64::INFINITY, f64::min);
        if best.as_ref().is_none_or(|b| least > b.0) {
            best = Some((least, [q, down]));
        }
    }
    let (_, goal) = best.ok_or_else(|| format!("no goal: {goal_why}"))?;
    Ok(LiftEnds { start: [s0, s1], goal, limits })
}

/// RRT-connect between `start` and `goal` in joint space, every edge a firmware phase
/// checked by [`segment_ok`]; then shortened by random shortcuts. Seeded: the same seed
/// gives the same path. `None` if `iterations` do not connect the trees.
pub fn search(
    scene: &LiftScene,
    limits: &LiftLimits,
    start: &LiftJoints,
    goal: &LiftJoints,
    iterations: usize,
    seed: u64,
) -> Option<Vec<LiftJoints>> {
    let node_ok = |q: &LiftJoints| limits.check(scene, q).is_ok();
    let edge_ok = |a: &LiftJoints, b: &LiftJoints| segment_ok(scene, limits, a, b);
    connect(limits.pitch, node_ok, edge_ok, start, goal, iterations, seed)
}

/// The RRT-connect of [`search`] for any model: `node_ok` says whether a configuration keeps
/// to the limits, `edge_ok` whether the firmware's phase between two does; samples take the
/// universal joints' pitch within `pitch` (rad) and the prismatic joints within their travel.
pub fn connect(
    pitch: f64,
    node_ok: impl Fn(&LiftJoints) -> bool,
    edge_ok: impl Fn(&LiftJoints, &LiftJoints) -> bool,
    start: &LiftJoints,
    goal: &LiftJoints,
    iterations: usize,
    seed: u64,
) -> Option<Vec<LiftJoints>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Joint-space distance: 30 mm of travel counts as 1 rad.
    let scale = |i: usize| if PRISMATIC[i] { 1.0 / TRAVEL } else { 1.0 };
    let dist = |a: &LiftJoints, b: &LiftJoints| (0..6).map(|i| ((a[i] - b[i]) * scale(i)).powi(2)).sum::<f64>().sqrt();
    let reach = 0.15;
    let toward = |a: &LiftJoints, b: &LiftJoints| -> LiftJoints {
        let d = dist(a, b);
        if d <= reach {
            return *b;
        }
        let f = reach / d;
        let mut q = *a;
        for i in 0..6 {
            q[i] += f * (b[i] - a[i]);
        }
        q
    };
    // Each tree: nodes and parents.
    let mut trees: [Vec<(LiftJoints, usize)>; 2] = [vec![(*start, 0)], vec![(*goal, 0)]];
    let nearest = |tree: &Vec<(LiftJoints, usize)>, q: &LiftJoints| {
        tree.iter().enumerate().min_by(|a, b| dist(&a.1 .0, q).total_cmp(&dist(&b.1 .0, q))).map(|(i, _)| i).unwrap_or(0)
    };
    let mut found = None;
    for it in 0..iterations {
        let (grow, other) = if it % 2 == 0 { (0, 1) } else { (1, 0) };
        let sample: LiftJoints =
            std::array::from_fn(|i| if PRISMATIC[i] { rng.gen_range(0.0..=TRAVEL) } else { rng.gen_range(-pitch..=pitch) });
        // Extend the growing tree one step towards the sample.
        let near = nearest(&trees[grow], &sample);
        let new = toward(&trees[grow][near].0, &sample);
        let (a, b) = if grow == 0 { (trees[grow][near].0, new) } else { (new, trees[grow][near].0) };
        if !node_ok(&new) || !edge_ok(&a, &b) {
            continue;
        }
        trees[grow].push((new, near));
        let new_index = trees[grow].len() - 1;
        // Connect: the other tree steps towards the new node until it meets it or is blocked.
        let mut at = nearest(&trees[other], &new);
        loop {
            let from = trees[other][at].0;
            let next = toward(&from, &new);
            let (a, b) = if other == 0 { (from, next) } else { (next, from) };
            if !node_ok(&next) || !edge_ok(&a, &b) {
                break;
            }
            trees[other].push((next, at));
            at = trees[other].len() - 1;
            if next == new {
                found = Some(if grow == 0 { (new_index, at) } else { (at, new_index) });
                break;
            }
        }
        if found.is_some() {
            break;
        }
    }
    let (s, g) = found?;
    let walk = |tree: &Vec<(LiftJoints, usize)>, mut i: usize| {
        let mut out = vec![tree[i].0];
        while i != 0 {
            i = tree[i].1;
            out.push(tree[i].0);
        }
        out
    };
    let mut path = walk(&trees[0], s);
    path.reverse();
    path.extend(walk(&trees[1], g).into_iter().skip(1));
    // Shortcuts: replace the stretch between two random waypoints by one phase where it
    // keeps to the limits.
    for _ in 0..400 {
        if path.len() < 3 {
            break;
        }
        let i = rng.gen_range(0..path.len() - 2);
        let j = rng.gen_range(i + 2..path.len());
        if edge_ok(&path[i], &path[j]) {
            path.drain(i + 1..j);
        }
    }
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HALF_PI: f64 = 0.5 * std::f64::consts::PI;

    #[test]
    fn the_straight_mole_lies_along_the_tunnels() {
        let scene = LiftScene::task1(-0.034, -0.046);
        let c = chain(&scene, &[0.0; 6]);
        // 112 mm from head to head, the rear head 46 mm behind A's centre.
        assert!((c.front.x - 0.066).abs() < 1e-12 && (c.rear.x + 0.046).abs() < 1e-12);
        assert!((c.block.x).abs() < 1e-12 && (c.block.z - 0.05).abs() < 1e-12 && c.block.angle == 0.0);
        let d = clearances(&scene, &c);
        // Lying on the tunnel floors and the floor; A against B.
        assert!(d[5] > 0.0 && (d[BLOCK_FLOOR]).abs() < 1e-12 && d[BLOCK_NEIGHBOUR].abs() < 1e-12, "{d:?}");
        assert!(d[6].abs() < 1e-9 || d[4].abs() < 1e-9, "the body lies on a tunnel floor: {d:?}");
    }

    #[test]
    fn a_hand_made_collision_is_found_and_a_clear_configuration_passes() {
        // The physics' lift (docs/molemod_execution.md): the rear head at A's far end, the
        // body lying on A's tunnel floor (allowed to touch it).
        let scene = LiftScene::task1(-0.034, -0.046);
        let limits = LiftLimits { touching: vec![4], ..LiftLimits::actuators() };
        let d = |q: LiftJoints| clearances(&scene, &chain(&scene, &q));
        // Parted 15 mm and raised 0.2 rad: A's whole bottom 1.5 mm up, clear of B.
        let raised = [0.0, -0.2, 0.015, 0.0, 0.0, 0.0];
        assert_eq!(limits.check(&scene, &raised), Ok(()));
        assert!(d(raised)[BLOCK_FLOOR] > 1e-3 && d(raised)[BLOCK_NEIGHBOUR] > 1e-3);
        // Raised 0.35 rad, A's top edge runs into B (the physics stops at 0.277 rad).
        assert!(d([0.0, -0.35, 0.015, 0.0, 0.0, 0.0])[BLOCK_NEIGHBOUR] < -1e-3);
        assert_eq!(limits.check(&scene, &[0.0, -0.35, 0.015, 0.0, 0.0, 0.0]), Err("block A - block B".into()));
        // Not parted, the raise digs A's near bottom edge into the floor and its top into B.
        let unparted = d([0.0, -0.2, 0.0, 0.0, 0.0, 0.0]);
        assert!(unparted[BLOCK_FLOOR] < 0.0 && unparted[BLOCK_NEIGHBOUR] < 0.0);
        // The rear joint bent 0.6 rad the other way swings A's mouth onto the front head.
        assert!(d([0.0, -0.2, 0.015, 0.0, -0.6, 0.0])[3] < 0.0);
        // Pitched down, the mole and A go through the floor.
        assert!(d([0.03, 0.5, 0.03, 0.0, 0.0, 0.0])[BLOCK_FLOOR] < -0.04);
        // Bent 86 degrees with no prismatic travel: the front head and the body overlap.
        assert!(d([0.0, -1.5, 0.0, 0.0, 0.0, 0.0])[0] < 0.0);
        assert!(d([0.0, -1.5, 0.03, 0.0, 0.0, 0.0])[0] > 0.0);
    }

    #[test]
    fn loads_of_a_level_lift_by_hand() {
        // Everything level: A's weight 2.4525 N at its centre, 0.038 + 0.015 + ... behind the
        // front joint; the torque is the sum of weight times lever.
        let scene = LiftScene::task1(-0.034, -0.046);
        let q = [0.0, 0.0, 0.015, 0.0, 0.0, 0.0];
        let c = chain(&scene, &q);
        let l = loads(&scene, &c);
        let j = c.joint_front.0;
        let expect = GRAVITY
            * (CUBE_MASS * (c.body.x - j)
                + 2.0 * JOINT_CUBE_MASS * (c.joint_rear.0 - j)
                + CUBE_MASS * (c.rear.x - j)
                + BLOCK_MASS * (c.block.x - j));
        assert!((l.universal[0] - expect).abs() < 1e-12 && expect < -0.1, "{l:?}");
        // Level: no pull along the prismatic joints.
        assert!(l.prismatic.iter().all(|f| f.abs() < 1e-12));
        // Upright body (q0 = -90 degrees): the body's prismatic joints carry the rear half.
        let c = chain(&scene, &[0.0, -HALF_PI, 0.02, 0.02, HALF_PI, 0.0]);
        let l = loads(&scene, &c);
        let hung = GRAVITY * (CUBE_MASS + BLOCK_MASS);
        assert!(
            (l.prismatic[3].abs()) < 1e-9 && (l.prismatic[1].abs() - hung - GRAVITY * (CUBE_MASS + 2.0 * JOINT_CUBE_MASS)).abs() < 1e-9
        );
    }

    /// The firmware's [`super::super::motion::LIFT_ONTO_PATH`] as stored (rounded), run as
    /// the firmware runs it (every joint at once at its own speed) and sampled every 1 ms:
    /// every pair keeps 1 mm, but for A leaving the floor in the first phase and landing on
    /// B (and touching the next block's corner) in the last; A ends on B, centred within
    /// 3 mm, flat within 5 mrad; the static torque stays within the model's 0.52 N m class
    /// and exceeds the earlier 0.245 N m one.
    #[test]
    fn the_lift_onto_path_clears_everything() {
        use super::super::motion::{LIFT_ONTO_FRONT_GRIP, LIFT_ONTO_PART, LIFT_ONTO_PATH, LIFT_ONTO_REAR_GRIP};
        let scene = LiftScene::task1(LIFT_ONTO_FRONT_GRIP, LIFT_ONTO_REAR_GRIP);
        let start = chain(&scene, &LIFT_ONTO_PATH[0]);
        // The straight mole after the part: A on the floor, parted from B.
        assert!((start.block.x + LIFT_ONTO_PART).abs() < 1e-12 && (start.block.z - 0.05).abs() < 1e-12);
        let limits = LiftLimits::actuators();
        let last = LIFT_ONTO_PATH.len() - 2;
        let walk = walk_path(&scene, &limits, &LIFT_ONTO_PATH, |k| match k {
            0 => &[BLOCK_FLOOR],
            _ if k == last => &[BLOCK_NEIGHBOUR, BLOCK_NEIGHBOUR + 1],
            _ => &[],
        });
        let (least, torque) = (walk.least, walk.torque);
        assert!(least >= limits.margin);
        assert!(torque <= limits.torque && torque > 0.245, "peak static torque {torque} N m");
        let end = chain(&scene, &LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1]);
        let (tx, tz) = scene.target();
        eprintln!(
            "LIFT_ONTO_PATH: least clearance {:.2} mm, peak static torque {torque:.3} N m; A ends {:+.2} mm along the row from the cell, {:+.2} mm up, turned {:.2} mrad from over",
            least * 1e3,
            (end.block.x - tx) * 1e3,
            (end.block.z - tz) * 1e3,
            (end.block.angle + std::f64::consts::PI) * 1e3
        );
        assert!((end.block.x - tx).abs() < GOAL_SLACK && (end.block.z - tz).abs() < 1e-3, "{:?}", end.block);
        assert!((end.block.angle + std::f64::consts::PI).abs() < 5e-3, "A turned {} rad", end.block.angle);
        assert!(block_bottom(&end) - 0.1 > -1e-6 && block_bottom(&end) - 0.1 < 1e-4, "A's bottom at {}", block_bottom(&end));
    }

    /// The firmware's [`super::super::motion::PUT_DOWN_PATH`] (the lift's table backwards)
    /// as the firmware runs it, sampled every 1 ms, in the lift's scene read mirrored: the
    /// lift's B is the block C that A lies on, its free cell the lift's start. Every pair
    /// keeps 1 mm but for A leaving C (and the corner of the block beyond) in the first
    /// phase and landing on the floor in the last; A ends on the floor
    /// [`super::super::motion::LIFT_ONTO_PART`] from C, flat; the static torque stays within
    /// the 0.52 N m class.
    #[test]
    fn the_put_down_path_clears_everything() {
        use super::super::motion::{LIFT_ONTO_FRONT_GRIP, LIFT_ONTO_PART, LIFT_ONTO_REAR_GRIP, PUT_DOWN_PATH};
        let scene = LiftScene::task1(LIFT_ONTO_FRONT_GRIP, LIFT_ONTO_REAR_GRIP);
        let limits = LiftLimits { torque: 0.52, ..LiftLimits::actuators() };
        let last = PUT_DOWN_PATH.len() - 2;
        let walk = walk_path(&scene, &limits, &PUT_DOWN_PATH, |k| match k {
            0 => &[BLOCK_NEIGHBOUR, BLOCK_NEIGHBOUR + 1],
            _ if k == last => &[BLOCK_FLOOR],
            _ => &[],
        });
        let (least, worst, torque, force) = (walk.least, walk.worst, walk.torque, walk.force);
        eprintln!("PUT DOWN path: least clearance {:.2} mm ({worst}), peak static torque {torque:.3} N m, force {force:.2} N", least * 1e3);
        assert!(least >= limits.margin);
        assert!(torque <= limits.torque && force < limits.force, "peak static torque {torque} N m, force {force} N");
        let end = chain(&scene, &PUT_DOWN_PATH[PUT_DOWN_PATH.len() - 1]);
        assert!((end.block.x + LIFT_ONTO_PART).abs() < 1e-12 && (end.block.z - 0.05).abs() < 1e-12 && end.block.angle == 0.0);
    }

    /// What a stored path meets as the firmware runs it, sampled every 1 ms.
    struct PathWalk {
        /// Least clearance of the pairs not exempt, m.
        least: f64,
        /// The pair that has it.
        worst: &'static str,
        /// Largest static torque on a universal joint's pitch axis, N m.
        torque: f64,
        /// Largest static force on a prismatic joint, N.
        force: f64,
    }

    /// Walks `path` row to row: every row within the joint limits, every pair at least
    /// `limits.margin` apart but those `exempt(row)` names (touching allowed: a block
    /// leaving or landing), every prismatic force within `limits.force`.
    fn walk_path(scene: &LiftScene, limits: &LiftLimits, path: &[LiftJoints], exempt: impl Fn(usize) -> &'static [usize]) -> PathWalk {
        let mut walk = PathWalk { least: f64::INFINITY, worst: "", torque: 0.0, force: 0.0 };
        for (k, pair) in path.windows(2).enumerate() {
            assert!(limits.in_range(&pair[0]) && limits.in_range(&pair[1]), "row {k}");
            let exempt = exempt(k);
            for q in segment_samples(&pair[0], &pair[1], 0.001) {
                let c = chain(scene, &q);
                for (i, d) in clearances(scene, &c).iter().enumerate() {
                    let floor = if exempt.contains(&i) { -1e-6 } else { limits.margin };
                    assert!(*d >= floor, "phase {k}: {} at {d} m, joints {q:?}", PAIRS[i]);
                    if !exempt.contains(&i) && *d < walk.least {
                        walk.least = *d;
                        walk.worst = PAIRS[i];
                    }
                }
                let l = loads(scene, &c);
                walk.torque = walk.torque.max(l.universal[0].abs()).max(l.universal[1].abs());
                walk.force = l.prismatic.iter().fold(walk.force, |m, f| m.max(f.abs()));
                assert!(walk.force < limits.force, "phase {k}: prismatic force {} N", walk.force);
            }
        }
        walk
    }

    #[test]
    fn a_firmware_phase_moves_each_joint_at_its_own_speed() {
        let from = [0.0; 6];
        let to = [0.01, -0.5, 0.0, 0.0, 0.0, 0.0];
        // The prismatic joint: 8 mm at 20 mm/s then 2 mm at 10: 0.6 s; the pitch: 0.45 rad
        // at 0.5 rad/s then 0.05 at 0.25: 1.1 s.
        assert!((segment_time(&from, &to) - 1.1).abs() < 1e-12);
        let mid = along_segment(&from, &to, 0.6);
        assert!((mid[0] - 0.01).abs() < 1e-12 && (mid[1] + 0.3).abs() < 1e-12);
        assert_eq!(along_segment(&from, &to, 2.0), to);
    }
}
