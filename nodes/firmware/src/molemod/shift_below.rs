//! Planar model of the mole shifting block A from below (issue #18, task 1's shift "###." ->
//! ".###" after the lift): the mole stands upright in the vertical tunnel of the block C
//! beside A's block B, its upper head rises out of C's top, turns towards A, goes into A's
//! x tunnel through the mouth that faces C and grips there; then the mole rolls A a quarter
//! turn over the edge shared by B's and C's tops onto C, and ends straight upright through
//! C's vertical tunnel and A's x tunnel, which now stands vertical over it.
//!
//! The plane is the vertical one through the x tunnels, on the lift's dimensions, shapes
//! and search ([`super::lift`]); the chain's base is the lower head (the rear head, upright
//! in C's vertical tunnel, on the floor under C), walked up with [`super::vertical::from_rear`].
//! B is centred at x = 0 on the floor, C at x = 0.1 m, A at (0, 0.15) m upside down (its
//! x axis towards -x: a block with two crossed tunnels looks the same either way up) where
//! the lift onto puts it. Two stages, each a list of firmware phases:
//!
//! - **reach** (rear head gripping in C, front sliding): A rests on B; the front head turns
//!   towards -x and is pushed into A's tunnel through its +x mouth.
//! - **roll** (both heads gripping): A, carried by the front head, is lifted off B
//!   ([`LIFT_OFF`]), turned a quarter turn over the B-C edge and set down on C.
//!
//! Clearances as in the lift: the three main cubes with each other, with the floor and
//! with the blocks' corner columns; A's outline with the floor, B and C. Static loads:
//! gravity on the links beyond each joint from the base; in the roll A is carried by the
//! chain all the way (never rolled on the edge), so the static torque is an upper bound.

use super::lift::{
    connect, cube, distance_to_block, lowest_corner, outline, quad_distance, segment_samples, Chain, LiftJoints, LiftLimits, Pose, BLOCK,
    BLOCK_MASS, CHECK_DT, CUBE_HALF, CUBE_MASS, CUBE_ROUNDING, GRAVITY, JOINT_CUBE_MASS, LEVER, TRAVEL,
};
use super::vertical::from_rear;

pub use super::lift::LIFT_OFF;

const HALF_PI: f64 = 0.5 * std::f64::consts::PI;

/// Block A's pose where it rests on B, upside down as the lift onto leaves it (its x axis
/// towards -x).
pub const HOME: Pose = Pose { x: 0.0, z: 1.5 * BLOCK, angle: std::f64::consts::PI };

/// Block A's pose in the target cell on C: [`HOME`] turned a quarter turn clockwise (seen
/// with +x to the right) about the edge shared by B's and C's tops, (0.05, 0.1) m; its x
/// axis up.
pub const TARGET: Pose = Pose { x: BLOCK, z: 1.5 * BLOCK, angle: HALF_PI };

/// Centres (x, z) of the blocks that stand still, m: B and C.
pub const FIXED: [(f64, f64); 2] = [(0.0, 0.5 * BLOCK), (BLOCK, 0.5 * BLOCK)];

/// The largest moment a gripping head's clamp holds, N m (the physics' clamp with the
/// 0.52 N m joints).
pub const GRIP_MOMENT: f64 = 1.04;

/// Where the lower (base) head stands and where the upper head holds A.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BelowScene {
    /// The rear (lower) head's pose in C's vertical tunnel, its x axis up (towards the
    /// chain).
    pub rear: Pose,
    /// The front head's centre in A's frame where it grips, m (A's x axis is the tunnel's).
    pub grip: (f64, f64),
}

impl BelowScene {
    /// The rear head upright in C's vertical tunnel `across` (m, + = away from B) from the
    /// tunnel's axis, resting on the floor; the front head gripping A with its centre at
    /// `head` = (x, z) in the world, m, while A rests on B.
    pub fn new(across: f64, head: (f64, f64)) -> Self {
        let rear = Pose { x: BLOCK + across, z: CUBE_HALF, angle: HALF_PI };
        // A at HOME (angle pi): the world point (x, z) is (-x, 0.15 - z) in A's frame.
        Self { rear, grip: (HOME.x - head.0, HOME.z - head.1) }
    }

    /// The front head's pose when A stands at `a` and the head grips it.
    pub fn head_in(&self, a: &Pose) -> Pose {
        let (x, z) = a.apply(self.grip);
        Pose { x, z, angle: a.angle }
    }
}

/// Which stage a configuration belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A rests on B; the front head moves free.
    Reach,
    /// A moves with the front head, which grips it.
    Roll,
}

/// Every link's pose for `q` in `stage` (the rear head is the base).
pub fn chain(scene: &BelowScene, stage: Stage, q: &LiftJoints) -> Chain {
    let l = from_rear(scene.rear, q);
    let block = match stage {
        Stage::Reach => HOME,
        Stage::Roll => {
            // A's frame has the head's angle; the head stands at `grip` in it.
            let (s, c) = l.front.angle.sin_cos();
            let (u, v) = scene.grip;
            Pose { x: l.front.x - (c * u - s * v), z: l.front.z - (s * u + c * v), angle: l.front.angle }
        }
    };
    Chain { front: l.front, joint_front: l.joint_front, body: l.body, joint_rear: l.joint_rear, rear: l.rear, block }
}

/// The pairs whose clearance is checked, in the order of [`clearances`].
pub const PAIRS: [&str; 14] = [
    "front head - body",
    "front head - rear head",
    "body - rear head",
    "front head - block A",
    "body - block A",
    "rear head - block A",
    "front head - B and C",
    "body - B and C",
    "rear head - B and C",
    "front head - floor",
    "body - floor",
    "rear head - floor",
    "block A - floor",
    "block A - B and C",
];

/// Index of "block A - floor" in [`PAIRS`]: this pair and the next are A's own contacts.
pub const BLOCK_FLOOR: usize = 12;
/// Index of "block A - B and C" in [`PAIRS`].
pub const BLOCK_FIXED: usize = 13;

/// Clearance of every pair of [`PAIRS`], m (negative = overlap).
pub fn clearances(c: &Chain) -> [f64; 14] {
    let r = CUBE_ROUNDING;
    let (front, body, rear) = (cube(&c.front), cube(&c.body), cube(&c.rear));
    let fixed = FIXED.map(|(x, z)| Pose { x, z, angle: 0.0 });
    let to_columns = |q: &[(f64, f64); 4], block: &Pose| distance_to_block(q, block) - r;
    let to_fixed = |q: &[(f64, f64); 4]| fixed.iter().map(|b| to_columns(q, b)).fold(f64::INFINITY, f64::min);
    let lowest = lowest_corner;
    let a = outline(&c.block);
    [
        quad_distance(&front, &body) - 2.0 * r,
        quad_distance(&front, &rear) - 2.0 * r,
        quad_distance(&body, &rear) - 2.0 * r,
        to_columns(&front, &c.block),
        to_columns(&body, &c.block),
        to_columns(&rear, &c.block),
        to_fixed(&front),
        to_fixed(&body),
        to_fixed(&rear),
        lowest(&front) - r,
        lowest(&body) - r,
        lowest(&rear) - r,
        lowest(&a),
        fixed.iter().map(|b| quad_distance(&a, &outline(b))).fold(f64::INFINITY, f64::min),
    ]
}

/// Static loads from gravity on the links beyond each joint, counted from the rear head
/// (the base); in the roll A hangs on the front head.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BelowLoads {
    /// Torque about each universal joint's pitch axis (front, rear), N m, magnitude.
    pub universal: [f64; 2],
    /// Force along each prismatic joint (`prismatic_0` .. `prismatic_3`), N, magnitude.
    pub prismatic: [f64; 4],
    /// Moment the rear head's grip carries about its centre, N m, magnitude.
    pub base_grip: f64,
    /// Moment the front head's grip carries from A about its centre, N m, magnitude (0 in
    /// the reach).
    pub block_grip: f64,
}

/// Static loads of configuration `c` in `stage`.
pub fn loads(stage: Stage, c: &Chain) -> BelowLoads {
    let w = |m: f64| m * GRAVITY;
    let block = if stage == Stage::Roll { w(BLOCK_MASS) } else { 0.0 };
    // (weight, x) from the rear end; the rear head is the base.
    let masses = [
        (w(2.0 * JOINT_CUBE_MASS), c.joint_rear.0),
        (w(CUBE_MASS), c.body.x),
        (w(2.0 * JOINT_CUBE_MASS), c.joint_front.0),
        (w(CUBE_MASS), c.front.x),
        (block, c.block.x),
    ];
    let moment = |about: f64, m: &[(f64, f64)]| m.iter().map(|&(f, x)| f * (x - about)).sum::<f64>().abs();
    let total = |m: &[(f64, f64)]| m.iter().map(|e| e.0).sum::<f64>();
    // A prismatic joint's axis lies along the link it moves; gravity's pull along it.
    let pull = |angle: f64, m: &[(f64, f64)]| (total(m) * angle.sin()).abs();
    BelowLoads {
        universal: [moment(c.joint_front.0, &masses[3..]), moment(c.joint_rear.0, &masses[1..])],
        prismatic: [
            pull(c.front.angle, &masses[3..]),
            pull(c.body.angle, &masses[2..]),
            pull(c.body.angle, &masses[1..]),
            pull(c.rear.angle, &masses[..]),
        ],
        base_grip: moment(c.rear.x, &masses),
        block_grip: moment(c.front.x, &masses[4..]),
    }
}

/// Whether pair `i` of [`PAIRS`] is checked in `stage`: in the reach A rests on B and stands
/// still, so its own contacts are not.
fn counts(stage: Stage, i: usize) -> bool {
    stage == Stage::Roll || i < BLOCK_FLOOR
}

/// The first limit `q` breaks in `stage`, if any (`Err` names it).
pub fn check(scene: &BelowScene, limits: &LiftLimits, stage: Stage, q: &LiftJoints) -> Result<(), String> {
    if !limits.in_range(q) {
        return Err("joint range".into());
    }
    let c = chain(scene, stage, q);
    for (i, &d) in clearances(&c).iter().enumerate() {
        if !counts(stage, i) {
            continue;
        }
        let least = if limits.touching.contains(&i) { -limits.touch } else { limits.margin };
        if d < least {
            return Err(PAIRS[i].to_string());
        }
    }
    let l = loads(stage, &c);
    if l.universal.iter().any(|&t| t > limits.torque) {
        return Err("universal joint torque".into());
    }
    if l.prismatic.iter().any(|&f| f > limits.force) {
        return Err("prismatic joint force".into());
    }
    if l.base_grip > GRIP_MOMENT || l.block_grip > GRIP_MOMENT {
        return Err("grip moment".into());
    }
    Ok(())
}

/// Whether the firmware's phase from `from` to `to` keeps to `limits` in `stage`.
pub fn segment_ok(scene: &BelowScene, limits: &LiftLimits, stage: Stage, from: &LiftJoints, to: &LiftJoints) -> bool {
    segment_samples(from, to, CHECK_DT).iter().all(|q| check(scene, limits, stage, q).is_ok())
}

/// Joints that put the front head at `head` with the rear head at the scene's base:
/// `extend` = (`prismatic_0`, `prismatic_3`) and `split` (0..1) = the share of the body's
/// extension taken by `prismatic_1`. `None` if the joints cannot.
pub fn reach_head(scene: &BelowScene, head: &Pose, extend: (f64, f64), split: f64) -> Option<LiftJoints> {
    let dir = |angle: f64| (angle.cos(), angle.sin());
    let r = scene.rear;
    let jf = (head.x - (LEVER + extend.0) * dir(head.angle).0, head.z - (LEVER + extend.0) * dir(head.angle).1);
    let jr = (r.x + (LEVER + extend.1) * dir(r.angle).0, r.z + (LEVER + extend.1) * dir(r.angle).1);
    let (dx, dz) = (jf.0 - jr.0, jf.1 - jr.1);
    let body = dx.hypot(dz) - 2.0 * LEVER;
    if !(0.0..=2.0 * TRAVEL).contains(&body) {
        return None;
    }
    let body_angle = dz.atan2(dx);
    let wrap = |x: f64| (x + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
    let (p1, p2) = (split * body, (1.0 - split) * body);
    if p1 > TRAVEL || p2 > TRAVEL {
        return None;
    }
    Some([extend.0, wrap(body_angle - head.angle), p1, p2, wrap(body_angle - r.angle), extend.1])
}

/// Least clearance of the pairs checked in `stage` and not exempt by `limits`, m.
fn least(scene: &BelowScene, limits: &LiftLimits, stage: Stage, q: &LiftJoints) -> f64 {
    clearances(&chain(scene, stage, q))
        .iter()
        .enumerate()
        .filter(|(i, _)| counts(stage, *i) && !limits.touching.contains(i))
        .map(|(_, d)| *d)
        .fold(f64::INFINITY, f64::min)
}

/// The joints that put the front head at `head` with the most clearance keeping to
/// `limits` in `stage`, over a grid of the free extensions (`prismatic_3` within `p3`, m),
/// with the clearance.
fn best_reach(scene: &BelowScene, limits: &LiftLimits, stage: Stage, head: &Pose, p3: (f64, f64)) -> Option<(f64, LiftJoints)> {
    let mut best: Option<(f64, LiftJoints)> = None;
    for i in 0..=12 {
        for j in 0..=6 {
            for k in 0..=10 {
                let extend = (TRAVEL * f64::from(i) / 12.0, p3.0 + (p3.1 - p3.0) * f64::from(j) / 6.0);
                let Some(q) = reach_head(scene, head, extend, f64::from(k) / 10.0) else { continue };
                if check(scene, limits, stage, &q).is_err() {
                    continue;
                }
                let clear = least(scene, limits, stage, &q);
                if best.as_ref().is_none_or(|b| clear > b.0) {
                    best = Some((clear, q));
                }
            }
        }
    }
    best
}

/// How far in front of A's +x face the front head's centre stands before it is pushed in,
/// m: its face 5 mm from A's.
pub const MOUTH_OUT: f64 = 0.025;

/// Step of the push into A's tunnel, m.
pub const PUSH_STEP: f64 = 0.005;

/// The phases of a shift from below around its searched parts.
#[derive(Clone, Debug, PartialEq)]
pub struct BelowEnds {
    /// The push into A's tunnel: the front head level at its gripping height, from
    /// [`MOUTH_OUT`] in front of A's mouth to its grip, [`PUSH_STEP`] a phase.
    pub push: Vec<LiftJoints>,
    /// A lifted [`LIFT_OFF`] off B (by `lift_off`).
    pub lifted: LiftJoints,
    /// A rolled over C, [`LIFT_OFF`] above it.
    pub over: LiftJoints,
    /// A set down on C.
    pub down: LiftJoints,
    /// The limits with the pairs touching at the start (the rear head on the floor, or a
    /// cube against a tunnel wall) allowed to touch.
    pub limits: LiftLimits,
}

/// The lift off from `gripped`: A raised [`LIFT_OFF`] by one prismatic joint, the first of
/// `prismatic_3` (straight up: the lower head stands upright), `prismatic_2`, `prismatic_1`
/// (along the body) that keeps to `limits` there and to `on_the_way` (A may touch B) on
/// the phase.
fn lift_off(scene: &BelowScene, limits: &LiftLimits, on_the_way: &LiftLimits, gripped: &LiftJoints) -> Option<LiftJoints> {
    let bottom = |q: &LiftJoints| outline(&chain(scene, Stage::Roll, q).block).iter().map(|v| v.1).fold(f64::INFINITY, f64::min);
    for joint in [5, 3, 2] {
        for k in 1..=60 {
            let mut q = *gripped;
            q[joint] += 1e-4 * f64::from(k);
            if bottom(&q) < BLOCK + LIFT_OFF {
                continue;
            }
            if check(scene, limits, Stage::Roll, &q).is_ok() && segment_ok(scene, on_the_way, Stage::Roll, gripped, &q) {
                return Some(q);
            }
            break;
        }
    }
    None
}

/// The ends of a shift from below in `scene`, the push checked: `Err` says what fails.
pub fn endpoints(scene: &BelowScene, limits: &LiftLimits) -> Result<BelowEnds, String> {
    let d = clearances(&chain(scene, Stage::Reach, &[0.0; 6]));
    let mut limits = limits.clone();
    limits.touching = (0..BLOCK_FLOOR).filter(|&i| d[i] < limits.margin).collect();
    // The grip: the head where it holds A, the configuration with the most clearance.
    let gripped_head = scene.head_in(&HOME);
    let (_, gripped) = best_reach(scene, &limits, Stage::Reach, &gripped_head, (0.0, TRAVEL)).ok_or("no grip configuration")?;
    // The push, backwards from the grip: the head drawn out along the tunnel, each row the
    // configuration with the most clearance (same prismatic_3).
    let p3 = (gripped[5], gripped[5]);
    let mut push = vec![gripped];
    let depth = HOME.x + 0.5 * BLOCK + MOUTH_OUT - gripped_head.x;
    let steps = (depth / PUSH_STEP).ceil().max(1.0) as usize;
    for k in 1..=steps {
        let head = Pose { x: gripped_head.x + depth * k as f64 / steps as f64, ..gripped_head };
        let (_, q) = best_reach(scene, &limits, Stage::Reach, &head, p3).ok_or_else(|| format!("no push row {k} of {steps}"))?;
        if !segment_ok(scene, &limits, Stage::Reach, &q, &push[push.len() - 1]) {
            return Err(format!("push phase {k} of {steps}"));
        }
        push.push(q);
    }
    push.reverse();
    let mut resting = limits.clone();
    resting.touching.extend([BLOCK_FLOOR, BLOCK_FIXED]);
    check(scene, &resting, Stage::Roll, &gripped).map_err(|e| format!("gripped: {e}"))?;
    let lifted = lift_off(scene, &limits, &resting, &gripped).ok_or("no lift off")?;
    let up = Pose { z: TARGET.z + LIFT_OFF, ..TARGET };
    let (_, over) = best_reach(scene, &limits, Stage::Roll, &scene.head_in(&up), (LIFT_OFF, TRAVEL)).ok_or("A not held over C")?;
    let mut down = over;
    down[5] -= LIFT_OFF;
    if !segment_ok(scene, &resting, Stage::Roll, &over, &down) {
        return Err("set down".into());
    }
    Ok(BelowEnds { push, lifted, over, down, limits })
}

/// The reach's phases from the straight upright mole (every joint at zero) to the front
/// head level in front of A's mouth: RRT-connect (`iterations`, `seed`) in the reach's
/// stage, then the push. `None` if the search does not connect.
pub fn search_reach(scene: &BelowScene, ends: &BelowEnds, iterations: usize, seed: u64) -> Option<Vec<LiftJoints>> {
    let l = &ends.limits;
    let mut reach = connect(
        l.pitch,
        |q| check(scene, l, Stage::Reach, q).is_ok(),
        |a, b| segment_ok(scene, l, Stage::Reach, a, b),
        &[0.0; 6],
        &ends.push[0],
        iterations,
        seed,
    )?;
    reach.extend_from_slice(&ends.push[1..]);
    Some(reach)
}

/// The roll's phases: from the grip (A on B) through A lifted, the RRT-connect path
/// (`iterations`, `seed`) to A held over C, to A set down. `None` if it does not connect.
pub fn search_roll(scene: &BelowScene, ends: &BelowEnds, iterations: usize, seed: u64) -> Option<Vec<LiftJoints>> {
    let l = &ends.limits;
    let mut roll = connect(
        l.pitch,
        |q| check(scene, l, Stage::Roll, q).is_ok(),
        |a, b| segment_ok(scene, l, Stage::Roll, a, b),
        &ends.lifted,
        &ends.over,
        iterations,
        seed,
    )?;
    roll.insert(0, ends.push[ends.push.len() - 1]);
    roll.push(ends.down);
    Some(roll)
}

/// Where the stored shift from below's lower head stands across C's vertical tunnel, m: 5 mm
/// towards +x from its axis, against the tunnel's +x wall (where a mole stood up in C lies).
pub const SHIFT_BELOW_ACROSS: f64 = 0.005;

/// Where the stored shift from below's upper head grips A, its centre (x, z) in the world
/// while A rests on B, m: 32 mm inside A's +x face (at x = 0.05 m), on A's tunnel axis.
pub const SHIFT_BELOW_HEAD: (f64, f64) = (0.018, 0.150);

/// The stored shift from below's scene ([`SHIFT_BELOW_ACROSS`], [`SHIFT_BELOW_HEAD`]).
pub fn stored_scene() -> BelowScene {
    BelowScene::new(SHIFT_BELOW_ACROSS, SHIFT_BELOW_HEAD)
}

/// The shift from below's reach: joint targets, one firmware phase per row, in the order of
/// [`LiftJoints`] (m and rad), the rear (lower) head gripping in C, the front one sliding.
/// First row: the mole straight upright, every joint at zero, the rear head on the floor
/// under C's vertical tunnel. The RRT-connect part (seed 1, 3000 iterations: one phase, the
/// front head turned to face -x while the joints raise it to A's tunnel) and the push into
/// A's mouth ([`MOUTH_OUT`] out, [`PUSH_STEP`] a phase, each row the grid's configuration
/// with the most clearance), found by `cargo run --release -p flotilla_firmware --example
/// molemod_shift_below_search -- 0.52 3000 1 0.005 0.018 0.150`, rounded to 10 um and 0.1
/// mrad. Ends with the front head level in A's tunnel, [`SHIFT_BELOW_HEAD`].
pub const SHIFT_BELOW_REACH_PATH: [LiftJoints; 14] = [
    [0.00000, 0.0000, 0.00000, 0.00000, 0.0000, 0.00000],
    [0.00000, -1.5430, 0.01603, 0.00000, 0.0278, 0.03000],
    [0.00000, -1.4773, 0.01632, 0.00000, 0.0935, 0.03000],
    [0.00000, -1.4124, 0.01522, 0.00169, 0.1584, 0.03000],
    [0.00000, -1.3488, 0.01425, 0.00356, 0.2220, 0.03000],
    [0.00000, -1.2870, 0.01330, 0.00570, 0.2838, 0.03000],
    [0.00000, -1.2273, 0.01228, 0.00819, 0.3435, 0.03000],
    [0.00500, -1.2304, 0.01019, 0.01019, 0.3404, 0.03000],
    [0.00750, -1.2029, 0.00635, 0.01481, 0.3679, 0.03000],
    [0.01250, -1.2060, 0.00000, 0.02107, 0.3648, 0.03000],
    [0.01750, -1.2090, 0.00000, 0.02098, 0.3618, 0.03000],
    [0.02000, -1.1819, 0.00000, 0.02181, 0.3889, 0.03000],
    [0.02500, -1.1849, 0.00000, 0.02171, 0.3859, 0.03000],
    [0.03000, -1.1879, 0.00000, 0.02162, 0.3829, 0.03000],
];

/// The shift from below's roll: joint targets as [`SHIFT_BELOW_REACH_PATH`], both heads
/// gripping. First row: the reach's end; then the lift off ([`LIFT_OFF`] by `prismatic_2`),
/// the RRT-connect path (seed 1) to A held [`LIFT_OFF`] over C rolled a quarter turn, and
/// the set down (`prismatic_3` in by [`LIFT_OFF`]: the lower head stands upright, so A goes
/// straight down). Same search and rounding as the reach.
pub const SHIFT_BELOW_ROLL_PATH: [LiftJoints; 10] = [
    [0.03000, -1.1879, 0.00000, 0.02162, 0.3829, 0.03000],
    [0.03000, -1.1879, 0.00000, 0.02492, 0.3829, 0.03000],
    [0.02348, -0.9834, 0.00149, 0.01923, 0.2464, 0.02474],
    [0.01707, -0.6909, 0.00113, 0.01400, 0.2035, 0.01881],
    [0.01494, -0.5934, 0.00101, 0.01226, 0.1892, 0.01683],
    [0.01067, -0.3984, 0.00076, 0.00878, 0.1606, 0.01288],
    [0.00640, -0.2034, 0.00052, 0.00529, 0.1320, 0.00893],
    [0.00213, -0.0084, 0.00028, 0.00181, 0.1034, 0.00498],
    [0.00000, 0.0890, 0.00016, 0.00007, 0.0890, 0.00300],
    [0.00000, 0.0890, 0.00016, 0.00007, 0.0890, 0.00000],
];

/// What a list of phases meets as the firmware runs it, sampled every `dt` s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathWalk {
    /// Least clearance of the pairs not exempt, m.
    pub least: f64,
    /// The pair that has it (index of [`PAIRS`]).
    pub pair: usize,
    /// The largest static loads.
    pub peak: BelowLoads,
    /// How many configurations were sampled.
    pub samples: usize,
}

/// Walks `path` in `stage` sampled every `dt` s: least clearance over the pairs checked in
/// `stage` and not `exempt(phase)` and the peak static loads.
pub fn walk(scene: &BelowScene, stage: Stage, path: &[LiftJoints], dt: f64, exempt: impl Fn(usize) -> Vec<usize>) -> PathWalk {
    let mut w = PathWalk { least: f64::INFINITY, pair: 0, peak: loads(stage, &chain(scene, stage, &path[0])), samples: 0 };
    for (k, pair) in path.windows(2).enumerate() {
        let exempt = exempt(k);
        for q in segment_samples(&pair[0], &pair[1], dt) {
            let c = chain(scene, stage, &q);
            for (i, &d) in clearances(&c).iter().enumerate() {
                if counts(stage, i) && !exempt.contains(&i) && d < w.least {
                    w.least = d;
                    w.pair = i;
                }
            }
            let l = loads(stage, &c);
            for i in 0..2 {
                w.peak.universal[i] = w.peak.universal[i].max(l.universal[i]);
            }
            for i in 0..4 {
                w.peak.prismatic[i] = w.peak.prismatic[i].max(l.prismatic[i]);
            }
            w.peak.base_grip = w.peak.base_grip.max(l.base_grip);
            w.peak.block_grip = w.peak.block_grip.max(l.block_grip);
            w.samples += 1;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Least clearance, peak loads and where A ends for the stored tables run as the
    /// firmware runs them (every joint at its own speed), sampled every 1 ms; asserts every
    /// limit on the way.
    fn walk_stored() -> (PathWalk, PathWalk, Chain) {
        let scene = stored_scene();
        let limits = LiftLimits::actuators();
        let start = clearances(&chain(&scene, Stage::Reach, &SHIFT_BELOW_REACH_PATH[0]));
        let touching: Vec<usize> = (0..BLOCK_FLOOR).filter(|&i| start[i] < limits.margin).collect();
        // The lower head on the floor and against C's +x wall, the body against that wall.
        assert_eq!(touching, vec![7, 8, 11], "{start:?}");
        let last = SHIFT_BELOW_ROLL_PATH.len() - 2;
        for (stage, path) in [(Stage::Reach, &SHIFT_BELOW_REACH_PATH[..]), (Stage::Roll, &SHIFT_BELOW_ROLL_PATH[..])] {
            for (k, pair) in path.windows(2).enumerate() {
                assert!(limits.in_range(&pair[0]) && limits.in_range(&pair[1]), "{stage:?} row {k}");
                for q in segment_samples(&pair[0], &pair[1], 0.001) {
                    let c = chain(&scene, stage, &q);
                    for (i, &d) in clearances(&c).iter().enumerate().filter(|(i, _)| counts(stage, *i)) {
                        // A leaves B in the roll's first phase and lands on C in its last (its
                        // rounded table may sink 10 um); touching pairs may not sink in.
                        let floor = if touching.contains(&i) {
                            -1e-6
                        } else if stage == Stage::Roll && (k == 0 || k == last) && i >= BLOCK_FLOOR {
                            -1e-5
                        } else {
                            limits.margin
                        };
                        assert!(d >= floor, "{stage:?} phase {k}: {} at {d} m, joints {q:?}", PAIRS[i]);
                    }
                    let l = loads(stage, &c);
                    assert!(l.universal.iter().all(|&t| t <= limits.torque), "{stage:?} phase {k}: {l:?}");
                    assert!(l.prismatic.iter().all(|&f| f <= limits.force), "{stage:?} phase {k}: {l:?}");
                    assert!(l.base_grip <= GRIP_MOMENT && l.block_grip <= GRIP_MOMENT, "{stage:?} phase {k}: {l:?}");
                }
            }
        }
        let reach = walk(&scene, Stage::Reach, &SHIFT_BELOW_REACH_PATH, 0.001, |_| touching.clone());
        let roll = walk(&scene, Stage::Roll, &SHIFT_BELOW_ROLL_PATH, 0.001, |k| {
            let mut e = touching.clone();
            if k == 0 || k == last {
                e.extend([BLOCK_FLOOR, BLOCK_FIXED]);
            }
            e
        });
        (reach, roll, chain(&scene, Stage::Roll, &SHIFT_BELOW_ROLL_PATH[SHIFT_BELOW_ROLL_PATH.len() - 1]))
    }

    /// The stored tables, sampled every 1 ms as the firmware runs them, keep 1 mm from
    /// everything but what touches at the start (and A leaving B and landing on C in the
    /// roll's first and last phases), within the joints' ranges and the actuators' static
    /// loads; the reach ends with the front head level and its centre inside A, and A ends
    /// in the target cell turned a quarter turn.
    #[test]
    fn the_shift_below_paths_clear_everything() {
        let (reach, roll, end) = walk_stored();
        eprintln!(
            "shift below: {} + {} samples; least clearance reach {:.2} mm ({}), roll {:.2} mm ({}); peak static torque reach {:.3} / {:.3}, \
             roll {:.3} / {:.3} N m (front / rear); prismatic force reach {:.2}, roll {:.2} N; grip moments: base {:.3}, A on the front head {:.3} N m",
            reach.samples,
            roll.samples,
            reach.least * 1e3,
            PAIRS[reach.pair],
            roll.least * 1e3,
            PAIRS[roll.pair],
            reach.peak.universal[0],
            reach.peak.universal[1],
            roll.peak.universal[0],
            roll.peak.universal[1],
            reach.peak.prismatic.iter().fold(0.0_f64, |m, &f| m.max(f)),
            roll.peak.prismatic.iter().fold(0.0_f64, |m, &f| m.max(f)),
            roll.peak.base_grip,
            roll.peak.block_grip,
        );
        assert!(reach.least >= 1e-3 && roll.least >= 1e-3);
        // A carried 100 mm out from the rear joint needs more than the earlier 0.245 N m
        // joints, within the model's 0.52 N m.
        assert!(roll.peak.universal[1] > 0.3 && roll.peak.universal[1] < 0.36, "{:?}", roll.peak);
        let scene = stored_scene();
        let gripped = chain(&scene, Stage::Reach, &SHIFT_BELOW_REACH_PATH[SHIFT_BELOW_REACH_PATH.len() - 1]);
        let wrap = |a: f64| (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
        assert!(wrap(gripped.front.angle - std::f64::consts::PI).abs() < 1e-3, "{:?}", gripped.front);
        assert!((gripped.front.x - SHIFT_BELOW_HEAD.0).abs() < 1e-4 && (gripped.front.z - SHIFT_BELOW_HEAD.1).abs() < 1e-4);
        assert!(gripped.front.x < HOME.x + 0.5 * BLOCK - 0.03, "the head's centre 30 mm inside A");
        assert!((end.block.x - TARGET.x).abs() < 1e-4 && (end.block.z - TARGET.z).abs() < 1e-4, "{:?}", end.block);
        assert!(wrap(end.block.angle - TARGET.angle).abs() < 1e-3, "A turned to {} rad", end.block.angle);
        assert_eq!(SHIFT_BELOW_REACH_PATH[SHIFT_BELOW_REACH_PATH.len() - 1], SHIFT_BELOW_ROLL_PATH[0]);
    }

    /// The search at the stored grid point (seed 1, 3000 iterations) gives the stored tables
    /// (to their rounding): the example regenerates them.
    #[test]
    fn the_search_at_the_stored_point_gives_the_stored_tables() {
        let scene = stored_scene();
        let ends = endpoints(&scene, &LiftLimits::actuators()).expect("ends");
        let reach = search_reach(&scene, &ends, 3000, 1).expect("reach");
        let roll = search_roll(&scene, &ends, 3000, 1).expect("roll");
        for (found, stored) in [(&reach[..], &SHIFT_BELOW_REACH_PATH[..]), (&roll[..], &SHIFT_BELOW_ROLL_PATH[..])] {
            assert_eq!(found.len(), stored.len());
            for (a, b) in found.iter().zip(stored) {
                assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 6e-5), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn the_straight_upright_mole_stands_in_c_and_its_loads_by_hand() {
        let scene = stored_scene();
        let c = chain(&scene, Stage::Reach, &[0.0; 6]);
        // Rear head on the floor, front head 112 mm above it, everything on x = 0.105 m.
        assert!((c.rear.z - 0.02).abs() < 1e-12 && (c.front.z - 0.132).abs() < 1e-12 && (c.front.x - 0.105).abs() < 1e-12);
        let l = loads(Stage::Reach, &c);
        let carried = GRAVITY * (2.0 * CUBE_MASS + 4.0 * JOINT_CUBE_MASS);
        assert!(l.universal.iter().all(|t| t.abs() < 1e-12) && (l.prismatic[3] - carried).abs() < 1e-12, "{l:?}");
        // The grip's frame: the head gripping A on B where the stored grip is.
        let head = scene.head_in(&HOME);
        assert!((head.x - SHIFT_BELOW_HEAD.0).abs() < 1e-12 && (head.z - SHIFT_BELOW_HEAD.1).abs() < 1e-12);
        // The same grip with A in the target cell: upright over C's tunnel, 132 mm up.
        let there = scene.head_in(&TARGET);
        assert!((there.x - 0.1).abs() < 1e-12 && (there.z - 0.132).abs() < 1e-12 && (there.angle - HALF_PI).abs() < 1e-12);
        // Carried level 100 mm out: A's weight on the rear joint's lever.
        let q = reach_head(&scene, &head, (0.03, 0.03), 0.0).expect("reachable");
        let c = chain(&scene, Stage::Roll, &q);
        let l = loads(Stage::Roll, &c);
        let expect = GRAVITY
            * (BLOCK_MASS * (c.block.x - c.joint_rear.0)
                + CUBE_MASS * (c.front.x - c.joint_rear.0)
                + 2.0 * JOINT_CUBE_MASS * (c.joint_front.0 - c.joint_rear.0)
                + CUBE_MASS * (c.body.x - c.joint_rear.0));
        assert!((l.universal[1] - expect.abs()).abs() < 1e-12 && expect.abs() > 0.3, "{l:?}");
    }

    #[test]
    fn hand_made_collisions_are_found() {
        let scene = stored_scene();
        let limits = LiftLimits { touching: vec![7, 8, 11], ..LiftLimits::actuators() };
        // The straight mole turning its head to face A without rising first: bent 86 degrees
        // with no prismatic travel the head and the body overlap; with the front half out,
        // the head runs into A's lower +x column (the head's centre 104-134 mm up).
        assert_eq!(check(&scene, &limits, Stage::Reach, &[0.0, -1.5, 0.0, 0.0, 0.0, 0.0]), Err("front head - body".into()));
        let low = clearances(&chain(&scene, Stage::Reach, &[0.03, -1.5, 0.015, 0.0, 0.0, 0.0]));
        assert!(low[3] < 0.0, "{low:?}");
        // A held over C is 3 mm above it, set down it rests on it (within the tables'
        // rounding); the mole is then 0.23 mm from fully contracted, so A cannot be put lower.
        let n = SHIFT_BELOW_ROLL_PATH.len();
        let gap = |q: &LiftJoints| clearances(&chain(&scene, Stage::Roll, q))[BLOCK_FIXED];
        assert!((gap(&SHIFT_BELOW_ROLL_PATH[n - 2]) - LIFT_OFF).abs() < 2e-5 && gap(&SHIFT_BELOW_ROLL_PATH[n - 1]).abs() < 2e-5);
        assert!(reach_head(&scene, &scene.head_in(&Pose { z: TARGET.z - 0.001, ..TARGET }), (0.0, 0.0), 0.5).is_none());
    }

    /// The stored tables run from a lower head standing `towards_b` (m) nearer B than
    /// [`SHIFT_BELOW_ACROSS`] (every link moves with it, the grip in A that much deeper),
    /// sampled every 1 ms: the least clearance of the reach and of the roll with its pair
    /// (but A leaving B and landing on C in the roll's first and last phases, and the pairs
    /// touching at the stored start), and how far A's outline is from C at the end (m,
    /// negative = into it: the physics lands A that much early, the mole short of its last
    /// row).
    fn off_the_wall(towards_b: f64) -> (PathWalk, PathWalk, f64) {
        let scene = BelowScene::new(SHIFT_BELOW_ACROSS - towards_b, (SHIFT_BELOW_HEAD.0 - towards_b, SHIFT_BELOW_HEAD.1));
        let touching = vec![7, 8, 11];
        let last = SHIFT_BELOW_ROLL_PATH.len() - 2;
        let reach = walk(&scene, Stage::Reach, &SHIFT_BELOW_REACH_PATH, 0.001, |_| touching.clone());
        let roll = walk(&scene, Stage::Roll, &SHIFT_BELOW_ROLL_PATH, 0.001, |k| {
            let mut e = touching.clone();
            if k == 0 || k == last {
                e.extend([BLOCK_FLOOR, BLOCK_FIXED]);
            }
            e
        });
        let end = clearances(&chain(&scene, Stage::Roll, &SHIFT_BELOW_ROLL_PATH[last + 1]))[BLOCK_FIXED];
        (reach, roll, end)
    }

    /// How far the stored tables tolerate the lower head standing nearer B than the wall:
    /// the reach keeps its 4.37 mm (the whole mole moves along A's tunnel), the roll loses
    /// what the start is off (A gripped that much deeper passes the B-C edge that much
    /// lower) and A lands on C that much early. Up to 1 mm the roll still clears 0.1 mm;
    /// from where [`super::super::follow::FOLLOW_PATH`] leaves a mole upright
    /// ([`super::super::follow::FOLLOW_AXIS`] from the axis, 1.25 mm from the wall) A's
    /// outline cuts into B and C.
    #[test]
    fn the_shift_below_tables_from_a_start_off_the_wall() {
        let follow_off = SHIFT_BELOW_ACROSS - super::super::follow::FOLLOW_AXIS;
        for towards_b in [0.0, 0.0005, 0.001, follow_off, 0.0015, 0.002, 0.0025, 0.003] {
            let (reach, roll, end) = off_the_wall(towards_b);
            eprintln!(
                "shift below from {:.2} mm nearer B: least clearance reach {:.3} mm ({}), roll {:.3} mm ({}); A's outline {:+.3} mm from C at the end",
                towards_b * 1e3,
                reach.least * 1e3,
                PAIRS[reach.pair],
                roll.least * 1e3,
                PAIRS[roll.pair],
                end * 1e3
            );
            assert!(reach.least > 4e-3, "{towards_b} m: reach {} m", reach.least);
            assert!((end + towards_b).abs() < 2e-5, "{towards_b} m: A ends {end} m from C");
        }
        let (_, roll, _) = off_the_wall(0.001);
        assert!(roll.least > 1e-4, "1 mm off: roll {} m", roll.least);
        let (_, roll, _) = off_the_wall(follow_off);
        assert!(roll.least < 0.0 && roll.pair == BLOCK_FIXED, "from the follow's end: roll {} m ({})", roll.least, PAIRS[roll.pair]);
    }
}
