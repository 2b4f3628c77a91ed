//! Planar model of the final mole shifting its block sideways (SPEC 2, "shifting": "If the
//! place next to the block is free and under it, there is another block, the robot expands
//! to this block. Then it moves the block to the empty position and contracts"), and the
//! search for its joint path, on the lift's kinematics, shapes and search
//! ([`super::lift`]).
//!
//! The plane is the vertical one through the blocks' x tunnels. Block A (the robot's, at
//! x = 0, z = 0.15 m) lies on block B (x = 0 on the floor); block C stands on the floor
//! beside B (x = 0.1 m), the cell on C (the target) is free. The mole lies in A's x tunnel,
//! its rear head clamped in A `rear_grip` from A's centre, its front head towards C.
//! Two stages, each a list of firmware phases:
//!
//! - **reach** (rear head gripping, front sliding): A stands still on B; the front half
//!   leaves A's tunnel mouth, bends down at `universal_0` and goes down into C's vertical
//!   tunnel, whose top mouth is open because the target cell is free. Kinematics: the
//!   lift's chain moved rigidly so that A stays where it rests.
//! - **roll** (both heads gripping, the front one clamped in C): A is lifted off B
//!   ([`LIFT_OFF`]), turned 90 degrees over the edge shared by B's and C's tops and set down
//!   on C: its x tunnel ends vertical, over C's vertical tunnel. Kinematics: the lift's
//!   chain with the front head as the base, pointing down in C.
//!
//! Clearance pairs and static loads as in the lift; block A is carried by the chain all the
//! way (never rolled on the edge), so the static torque is an upper bound.

use super::lift::{
    chain_from, connect, cube, distance_to_block, lowest_corner, outline, quad_distance, segment_samples, Chain, LiftJoints, LiftLimits,
    Pose, AXIS_BELOW, BLOCK, BLOCK_MASS, CHECK_DT, CUBE_MASS, CUBE_ROUNDING, GRAVITY, JOINT_CUBE_MASS, LEVER, TRAVEL,
};

pub use super::lift::LIFT_OFF;

/// Block A's pose where it rests on B.
pub const HOME: Pose = Pose { x: 0.0, z: 1.5 * BLOCK, angle: 0.0 };

/// Block A's pose in the target cell (on C), its x tunnel turned down (rolled 90 degrees
/// clockwise seen with +x to the right: its face that looked at C looks down).
pub const TARGET: Pose = Pose { x: BLOCK, z: 1.5 * BLOCK, angle: -0.5 * std::f64::consts::PI };

/// Where the blocks stand and where the heads grip.
#[derive(Clone, Debug, PartialEq)]
pub struct ShiftScene {
    /// Centres (x, z) of the blocks that stand still, m: B at (0, 0.05), C at (0.1, 0.05)
    /// and any others.
    pub fixed: Vec<(f64, f64)>,
    /// The front head's pose in C's vertical tunnel during the roll (pointing down).
    pub front: Pose,
    /// Rear head's centre along A's tunnel from A's centre, in A's frame, m (positive =
    /// towards C at the start).
    pub rear_grip: f64,
}

impl ShiftScene {
    /// B and C alone (Table 1 task 1's shift, `.0..` over `.##.`), the front head's centre
    /// `across` (m, positive = away from B) from C's vertical tunnel's axis and `height` (m)
    /// above the floor, the rear head `rear_grip` from A's centre.
    pub fn new(across: f64, height: f64, rear_grip: f64) -> Self {
        Self {
            fixed: vec![(0.0, 0.5 * BLOCK), (BLOCK, 0.5 * BLOCK)],
            front: Pose { x: BLOCK + across, z: height, angle: -0.5 * std::f64::consts::PI },
            rear_grip,
        }
    }
}

/// Which stage a configuration belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A rests on B; the rear head is the base.
    Reach,
    /// The front head is the base; A moves with the rear head.
    Roll,
}

/// Every link's pose for `q` in `stage`.
pub fn chain(scene: &ShiftScene, stage: Stage, q: &LiftJoints) -> Chain {
    let c = chain_from(scene.front, scene.rear_grip, q);
    match stage {
        Stage::Roll => c,
        Stage::Reach => moved(&c, &HOME),
    }
}

/// `c` moved rigidly so that its block lies at `to`.
fn moved(c: &Chain, to: &Pose) -> Chain {
    let turn = to.angle - c.block.angle;
    let (s, co) = turn.sin_cos();
    let map = |(x, z): (f64, f64)| {
        let (u, v) = (x - c.block.x, z - c.block.z);
        (to.x + co * u - s * v, to.z + s * u + co * v)
    };
    let pose = |p: &Pose| {
        let (x, z) = map((p.x, p.z));
        Pose { x, z, angle: p.angle + turn }
    };
    Chain {
        front: pose(&c.front),
        joint_front: map(c.joint_front),
        body: pose(&c.body),
        joint_rear: map(c.joint_rear),
        rear: pose(&c.rear),
        block: *to,
    }
}

/// The pairs whose clearance is checked, in the order of [`clearances`].
pub const PAIRS: [&str; 13] = [
    "front head - body",
    "front head - rear head",
    "body - rear head",
    "front head - block A",
    "body - block A",
    "front head - fixed blocks",
    "body - fixed blocks",
    "rear head - fixed blocks",
    "front head - floor",
    "body - floor",
    "rear head - floor",
    "block A - floor",
    "block A - fixed blocks",
];

/// Index of "block A - fixed blocks" in [`PAIRS`].
pub const BLOCK_FIXED: usize = 12;

/// Clearance of every pair of [`PAIRS`], m (negative = overlap).
pub fn clearances(scene: &ShiftScene, c: &Chain) -> [f64; 13] {
    let r = CUBE_ROUNDING;
    let (front, body, rear) = (cube(&c.front), cube(&c.body), cube(&c.rear));
    let fixed: Vec<Pose> = scene.fixed.iter().map(|&(x, z)| Pose { x, z, angle: 0.0 }).collect();
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

/// Static loads from gravity on the links beyond each joint, counted from the stage's base
/// (the rear head and A in the reach, the front head in the roll).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShiftLoads {
    /// Torque about each universal joint's pitch axis (front, rear), N m, magnitude.
    pub universal: [f64; 2],
    /// Force along each prismatic joint (`prismatic_0` .. `prismatic_3`), N, magnitude.
    pub prismatic: [f64; 4],
    /// Moment the base head's grip carries about its centre, N m, magnitude.
    pub grip: f64,
}

/// Static loads of configuration `c` in `stage`.
pub fn loads(stage: Stage, c: &Chain) -> ShiftLoads {
    let w = |m: f64| m * GRAVITY;
    // (weight, x) in the chain's order from the front head; each joint sits between two
    // entries, and the masses on the far side from the base hang on it.
    let masses = [
        (w(CUBE_MASS), c.front.x),
        (w(2.0 * JOINT_CUBE_MASS), c.joint_front.0),
        (w(CUBE_MASS), c.body.x),
        (w(2.0 * JOINT_CUBE_MASS), c.joint_rear.0),
        (w(CUBE_MASS), c.rear.x),
        (w(BLOCK_MASS), c.block.x),
    ];
    let beyond = |after: usize| -> &[(f64, f64)] {
        match stage {
            Stage::Roll => &masses[after..],
            Stage::Reach => &masses[..after],
        }
    };
    let moment = |about: f64, m: &[(f64, f64)]| m.iter().map(|&(f, x)| f * (x - about)).sum::<f64>().abs();
    let total = |m: &[(f64, f64)]| m.iter().map(|e| e.0).sum::<f64>();
    // A prismatic joint's axis lies along the link it moves (angle of its x axis).
    let pull = |angle: f64, m: &[(f64, f64)]| (total(m) * angle.sin()).abs();
    // Joints after the masses' entries: p0 after 1, u0 at 1, p1 after 2, p2 after 3, u1 at
    // 3, p3 after 4 (the reach's base side ends at the same split).
    let (u0, u1) = match stage {
        Stage::Roll => (moment(c.joint_front.0, beyond(2)), moment(c.joint_rear.0, beyond(4))),
        Stage::Reach => (moment(c.joint_front.0, beyond(1)), moment(c.joint_rear.0, beyond(3))),
    };
    let prismatic =
        [pull(c.front.angle, beyond(1)), pull(c.body.angle, beyond(2)), pull(c.body.angle, beyond(3)), pull(c.rear.angle, beyond(4))];
    let grip = match stage {
        Stage::Roll => moment(c.front.x, &masses[1..]),
        Stage::Reach => moment(c.rear.x, &masses[..4]),
    };
    ShiftLoads { universal: [u0, u1], prismatic, grip }
}

/// Whether pair `i` of [`PAIRS`] is checked in `stage`: in the reach A rests on B and stands
/// still, so its own contacts (with the floor and the fixed blocks) are not.
fn counts(stage: Stage, i: usize) -> bool {
    stage == Stage::Roll || i < BLOCK_FIXED - 1
}

/// The first limit `q` breaks in `stage`, if any (`Err` names it); in the reach A rests on
/// B, so its contacts are not checked.
pub fn check(scene: &ShiftScene, limits: &LiftLimits, stage: Stage, q: &LiftJoints) -> Result<(), String> {
    if !limits.in_range(q) {
        return Err("joint range".into());
    }
    let c = chain(scene, stage, q);
    for (i, &d) in clearances(scene, &c).iter().enumerate() {
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
    Ok(())
}

/// Whether the firmware's phase from `from` to `to` keeps to `limits` in `stage`.
pub fn segment_ok(scene: &ShiftScene, limits: &LiftLimits, stage: Stage, from: &LiftJoints, to: &LiftJoints) -> bool {
    segment_samples(from, to, CHECK_DT).iter().all(|q| check(scene, limits, stage, q).is_ok())
}

/// Joints that put block A at `a` with the front head at the scene's base (the roll's
/// kinematics): `extend` = (`prismatic_0`, `prismatic_3`) and `split` (0..1) = the share of
/// the body's extension taken by `prismatic_1`. `None` if the joints cannot.
pub fn reach_block(scene: &ShiftScene, a: &Pose, extend: (f64, f64), split: f64) -> Option<LiftJoints> {
    let dir = |angle: f64| (angle.cos(), angle.sin());
    let f = scene.front;
    let rear = a.apply((scene.rear_grip, -AXIS_BELOW));
    let jf = (f.x - (LEVER + extend.0) * dir(f.angle).0, f.z - (LEVER + extend.0) * dir(f.angle).1);
    let jr = (rear.0 + (LEVER + extend.1) * dir(a.angle).0, rear.1 + (LEVER + extend.1) * dir(a.angle).1);
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
    Some([extend.0, wrap(body_angle - f.angle), p1, p2, wrap(body_angle - a.angle), extend.1])
}

/// The phases of a shift around its searched part.
#[derive(Clone, Debug, PartialEq)]
pub struct ShiftEnds {
    /// The reach ([`reach`]): from the mole straight in A's tunnel to the front head down in
    /// C, A still on B (where the roll starts).
    pub reach: Vec<LiftJoints>,
    /// A lifted [`LIFT_OFF`] off B.
    pub lifted: LiftJoints,
    /// A over the target cell, [`LIFT_OFF`] above C, rolled 90 degrees.
    pub over: LiftJoints,
    /// A set down on C.
    pub down: LiftJoints,
    /// The limits with the pairs touching at the start allowed to touch.
    pub limits: LiftLimits,
}

/// Least clearance of the pairs not exempt, m.
fn least(scene: &ShiftScene, limits: &LiftLimits, stage: Stage, q: &LiftJoints) -> f64 {
    clearances(scene, &chain(scene, stage, q))
        .iter()
        .enumerate()
        .filter(|(i, _)| counts(stage, *i) && !limits.touching.contains(i))
        .map(|(_, d)| *d)
        .fold(f64::INFINITY, f64::min)
}

/// The joints that put A at `a` (roll kinematics) with the most clearance, over a grid of
/// the free extensions with `prismatic_0` out at least `least_p0` (m), keeping to `limits`.
fn best_reach(scene: &ShiftScene, limits: &LiftLimits, a: &Pose, least_p0: f64) -> Option<LiftJoints> {
    let mut best: Option<(f64, LiftJoints)> = None;
    for i in 0..=10 {
        for j in 0..=10 {
            for k in 0..=10 {
                let extend = (least_p0 + (TRAVEL - least_p0) * f64::from(i) / 10.0, TRAVEL * f64::from(j) / 10.0);
                let Some(q) = reach_block(scene, a, extend, f64::from(k) / 10.0) else { continue };
                if check(scene, limits, Stage::Roll, &q).is_err() {
                    continue;
                }
                let clear = least(scene, limits, Stage::Roll, &q);
                if best.as_ref().is_none_or(|b| clear > b.0) {
                    best = Some((clear, q));
                }
            }
        }
    }
    best.map(|b| b.1)
}

/// Least extension of `prismatic_1` in the reach, m: with the front universal joint bent
/// 90 degrees, the head's top and the body's front face overlap unless `prismatic_0` or
/// `prismatic_1` is out 12 mm (two 20 mm half cubes on 28 mm levers), and `prismatic_0` is
/// still in when the head swings down.
pub const REACH_BODY: f64 = 0.015;

/// The reach as firmware phases from the mole straight in A's tunnel (joints at zero, the
/// rear head `rear_grip` from A's centre): `prismatic_1` .. `prismatic_3` bring the front
/// universal joint over C's vertical tunnel, `across` (m) from its axis; the front head
/// swings down to the joint's range end (upright within the dead band); `prismatic_0`
/// lowers it `lower` (m) into C. `pitch` (rad) is the swing's target. Returns the scene
/// with the front head where this puts it, and the phases' targets.
pub fn reach(across: f64, lower: f64, rear_grip: f64, pitch: f64) -> Result<(ShiftScene, Vec<LiftJoints>), String> {
    let extension = BLOCK + across - (rear_grip + 3.0 * LEVER);
    let p1 = REACH_BODY.max(extension / 3.0).min(TRAVEL);
    let rest = 0.5 * (extension - p1);
    if !(0.0..=TRAVEL).contains(&rest) || !(0.0..=TRAVEL).contains(&lower) {
        return Err(format!("the joints cannot reach C ({:.1} mm of extension)", extension * 1e3));
    }
    let out = [0.0, 0.0, p1, rest, 0.0, rest];
    let bent = [0.0, pitch, p1, rest, 0.0, rest];
    let down = [lower, pitch, p1, rest, 0.0, rest];
    let mut scene = ShiftScene::new(across, 0.0, rear_grip);
    scene.front = chain(&scene, Stage::Reach, &down).front;
    Ok((scene, vec![[0.0; 6], out, bent, down]))
}

/// The lift off from `gripped`: the front universal joint turns the body up (A rises with
/// it, as in the lift's raise) and the rear one by a share of that (1: A stays level;
/// more: A tips nose up and the body leaves A's tunnel floor); the first share that
/// puts A's whole bottom [`LIFT_OFF`] above B keeping to `limits` there and to `on_the_way`
/// (A may touch B) on the phase.
fn lift_off(scene: &ShiftScene, limits: &LiftLimits, on_the_way: &LiftLimits, gripped: &LiftJoints) -> Option<LiftJoints> {
    for share in [1.0, 1.25, 0.75, 1.5, 0.5, 2.0, 0.0] {
        for k in 1..=300 {
            let up = 1e-3 * f64::from(k);
            let q = [gripped[0], gripped[1] - up, gripped[2], gripped[3], gripped[4] - share * up, gripped[5]];
            let a = outline(&chain(scene, Stage::Roll, &q).block);
            if a.iter().map(|v| v.1).fold(f64::INFINITY, f64::min) < BLOCK + LIFT_OFF {
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

/// The ends of the roll in `scene` after `reach`'s phases (A lifted off B, held over C, set
/// down), and the reach checked: `Err` says what fails.
pub fn endpoints(scene: &ShiftScene, limits: &LiftLimits, reach: &[LiftJoints]) -> Result<ShiftEnds, String> {
    let start = reach[0];
    let d = clearances(scene, &chain(scene, Stage::Reach, &start));
    let mut limits = limits.clone();
    limits.touching = (0..BLOCK_FIXED - 1).filter(|&i| d[i] < limits.margin).collect();
    for (k, pair) in reach.windows(2).enumerate() {
        if !segment_ok(scene, &limits, Stage::Reach, &pair[0], &pair[1]) {
            let worst = segment_samples(&pair[0], &pair[1], CHECK_DT)
                .iter()
                .find_map(|q| check(scene, &limits, Stage::Reach, q).err())
                .unwrap_or_default();
            return Err(format!("reach phase {k}: {worst}"));
        }
    }
    let gripped = reach[reach.len() - 1];
    // The roll's start lifts A off B, its end sets A on C: those contacts are allowed on
    // those phases only.
    let mut resting = limits.clone();
    resting.touching.push(BLOCK_FIXED);
    check(scene, &resting, Stage::Roll, &gripped).map_err(|e| format!("gripped: {e}"))?;
    let up = |p: Pose| Pose { z: p.z + LIFT_OFF, ..p };
    let lifted = lift_off(scene, &limits, &resting, &gripped).ok_or("no lift off")?;
    // Set down by prismatic_0 alone: the front head stands upright, so A goes straight down.
    let over = best_reach(scene, &limits, &up(TARGET), LIFT_OFF).ok_or("A not held over C")?;
    let mut down = over;
    down[0] -= LIFT_OFF;
    if !segment_ok(scene, &resting, Stage::Roll, &over, &down) {
        return Err("set down".into());
    }
    Ok(ShiftEnds { reach: reach.to_vec(), lifted, over, down, limits })
}

/// The roll's phases: from the front head gripped in C (A on B) through A lifted, the
/// RRT-connect path (`iterations`, `seed`) to A held over C, to A set down. `None` if the
/// search does not connect.
pub fn search(scene: &ShiftScene, ends: &ShiftEnds, iterations: usize, seed: u64) -> Option<Vec<LiftJoints>> {
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
    roll.insert(0, ends.reach[ends.reach.len() - 1]);
    roll.push(ends.down);
    Some(roll)
}

/// Least clearance along a stage's phases sampled every `dt` s, m, and the pair, with the
/// pairs in `exempt` and (in the reach) A's own contacts left out.
pub fn path_clearance(scene: &ShiftScene, stage: Stage, path: &[LiftJoints], dt: f64, exempt: &[usize]) -> (f64, &'static str) {
    let mut worst = (f64::INFINITY, "");
    for pair in path.windows(2) {
        for q in segment_samples(&pair[0], &pair[1], dt) {
            for (i, &d) in clearances(scene, &chain(scene, stage, &q)).iter().enumerate() {
                if exempt.contains(&i) || !counts(stage, i) {
                    continue;
                }
                if d < worst.0 {
                    worst = (d, PAIRS[i]);
                }
            }
        }
    }
    worst
}

/// The largest static loads along a stage's phases sampled every `dt` s.
pub fn path_loads(stage: Stage, scene: &ShiftScene, path: &[LiftJoints], dt: f64) -> ShiftLoads {
    let mut worst = ShiftLoads { universal: [0.0; 2], prismatic: [0.0; 4], grip: 0.0 };
    for pair in path.windows(2) {
        for q in segment_samples(&pair[0], &pair[1], dt) {
            let l = loads(stage, &chain(scene, stage, &q));
            for i in 0..2 {
                worst.universal[i] = worst.universal[i].max(l.universal[i]);
            }
            for i in 0..4 {
                worst.prismatic[i] = worst.prismatic[i].max(l.prismatic[i]);
            }
            worst.grip = worst.grip.max(l.grip);
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::super::lift::{self, LiftScene};
    use super::*;

    #[test]
    fn the_straight_mole_lies_in_a_and_the_two_stages_agree_where_a_rests() {
        let scene = ShiftScene::new(-0.004, 0.04, -0.02);
        let c = chain(&scene, Stage::Reach, &[0.0; 6]);
        assert!((c.rear.x + 0.02).abs() < 1e-12 && (c.rear.z - 0.145).abs() < 1e-12 && c.rear.angle.abs() < 1e-12);
        assert!((c.front.x - 0.092).abs() < 1e-12 && (c.front.z - 0.145).abs() < 1e-12, "{c:?}");
        // Joints that put A on B from the front head in C: the two kinematics agree.
        let q = reach_block(&scene, &HOME, (0.01, 0.01), 0.5).expect("reachable");
        let (reach, roll) = (chain(&scene, Stage::Reach, &q), chain(&scene, Stage::Roll, &q));
        for (a, b) in [(reach.front, roll.front), (reach.body, roll.body), (reach.rear, roll.rear), (reach.block, roll.block)] {
            assert!((a.x - b.x).abs() < 1e-12 && (a.z - b.z).abs() < 1e-12 && (a.angle - b.angle).abs() < 1e-12, "{a:?} {b:?}");
        }
        // Rolled onto C straight: A's tunnel axis over the front head.
        let q = reach_block(&scene, &TARGET, (0.0, 0.0), 0.5).expect("reachable");
        let c = chain(&scene, Stage::Roll, &q);
        assert!((c.block.x - TARGET.x).abs() < 1e-12 && (c.block.z - TARGET.z).abs() < 1e-12);
        assert!((c.rear.x - 0.095).abs() < 1e-12 && (c.rear.z - 0.17).abs() < 1e-12, "{:?}", c.rear);
    }

    #[test]
    fn the_roll_loads_agree_with_the_lift_model_and_hand_figures() {
        // The roll's base is the front head as in the lift: the same chain gives the same
        // torques and forces.
        let lift_scene = LiftScene::task1(-0.034, -0.046);
        for q in [[0.0, -0.2, 0.015, 0.0, 0.1, 0.0], [0.02, -1.0, 0.01, 0.02, 0.5, 0.03]] {
            let c = lift::chain(&lift_scene, &q);
            let (mine, theirs) = (loads(Stage::Roll, &c), lift::loads(&lift_scene, &c));
            for i in 0..2 {
                assert!((mine.universal[i] - theirs.universal[i].abs()).abs() < 1e-12);
            }
            for i in 0..4 {
                assert!((mine.prismatic[i] - theirs.prismatic[i].abs()).abs() < 1e-12);
            }
        }
        // The reach: the rear universal joint carries the body, the front joint's cubes and
        // the front head, straight out along x.
        let scene = ShiftScene::new(0.0, 0.06, -0.02);
        let c = chain(&scene, Stage::Reach, &[0.0; 6]);
        let l = loads(Stage::Reach, &c);
        let expect = GRAVITY * (CUBE_MASS * (0.028 + 0.084) + 2.0 * JOINT_CUBE_MASS * 0.056);
        assert!((l.universal[1] - expect).abs() < 1e-12 && l.prismatic.iter().all(|f| f.abs() < 1e-12), "{l:?}");
    }

    /// The firmware's [`super::super::motion::SHIFT_REACH_PATH`] and `SHIFT_ROLL_PATH` as
    /// stored (rounded), run as the firmware runs them and sampled every 1 ms: the reach
    /// keeps 1 mm from everything but what touches at the start (the body on A's tunnel
    /// floor); the roll keeps 1 mm from everything, but for A leaving B in its first phase
    /// and landing on C in its last; A ends on C in the target cell, turned 90 degrees; the
    /// static torque stays within the model's 0.52 N m class and exceeds the earlier 0.245 N m.
    #[test]
    fn the_shift_paths_clear_everything() {
        use super::super::motion::{SHIFT_ACROSS, SHIFT_REACH_PATH, SHIFT_REAR_GRIP, SHIFT_ROLL_PATH};
        let limits = LiftLimits { torque: 0.52, ..LiftLimits::actuators() };
        let (scene, reach_path) = reach(SHIFT_ACROSS, SHIFT_REACH_PATH[3][0], SHIFT_REAR_GRIP, SHIFT_REACH_PATH[2][1]).expect("reach");
        // The stored reach is the model's (its extension rounded to 10 um).
        for (a, b) in reach_path.iter().zip(&SHIFT_REACH_PATH) {
            assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5), "{a:?} {b:?}");
        }
        assert_eq!(SHIFT_REACH_PATH[3], SHIFT_ROLL_PATH[0]);
        let start = clearances(&scene, &chain(&scene, Stage::Reach, &SHIFT_REACH_PATH[0]));
        let touching: Vec<usize> = (0..BLOCK_FIXED - 1).filter(|&i| start[i] < limits.margin).collect();
        assert_eq!(touching, vec![3, 4], "the front head and the body lie on A's tunnel floor: {start:?}");
        let (mut least, mut torque, mut force) = (f64::INFINITY, 0.0_f64, 0.0_f64);
        let mut visit = |stage: Stage, path: &[LiftJoints], exempt: &dyn Fn(usize) -> Vec<usize>| {
            for (k, pair) in path.windows(2).enumerate() {
                assert!(limits.in_range(&pair[0]) && limits.in_range(&pair[1]), "{stage:?} row {k}");
                for q in segment_samples(&pair[0], &pair[1], 0.001) {
                    let c = chain(&scene, stage, &q);
                    for (i, d) in clearances(&scene, &c).iter().enumerate() {
                        if !counts(stage, i) {
                            continue;
                        }
                        // A set down on C by the rounded table may sink its 10 um rounding.
                        let floor = if touching.contains(&i) {
                            -1e-6
                        } else if exempt(k).contains(&i) {
                            -1e-5
                        } else {
                            limits.margin
                        };
                        assert!(*d >= floor, "{stage:?} phase {k}: {} at {d} m, joints {q:?}", PAIRS[i]);
                        if floor > 0.0 {
                            least = least.min(*d);
                        }
                    }
                    let l = loads(stage, &c);
                    torque = torque.max(l.universal[0]).max(l.universal[1]);
                    force = l.prismatic.iter().fold(force, |m, &f| m.max(f));
                }
            }
        };
        visit(Stage::Reach, &SHIFT_REACH_PATH, &|_| vec![]);
        let last = SHIFT_ROLL_PATH.len() - 2;
        visit(Stage::Roll, &SHIFT_ROLL_PATH, &|k| if k == 0 || k == last { vec![BLOCK_FIXED] } else { vec![] });
        eprintln!("SHIFT paths: least clearance {:.2} mm, peak static torque {torque:.3} N m, force {force:.2} N", least * 1e3);
        assert!(least >= limits.margin);
        assert!(torque <= limits.torque && torque > 0.245 && force < limits.force, "peak static torque {torque} N m");
        let end = chain(&scene, Stage::Roll, &SHIFT_ROLL_PATH[SHIFT_ROLL_PATH.len() - 1]);
        assert!((end.block.x - TARGET.x).abs() < 1e-4 && (end.block.z - TARGET.z).abs() < 1e-4, "{:?}", end.block);
        assert!((end.block.angle - TARGET.angle).abs() < 1e-3, "A turned {} rad", end.block.angle);
        // The front head is clamped in C: its centre inside C, clear of C's walls.
        assert!(scene.front.z < BLOCK - 0.01 && (scene.front.x - BLOCK).abs() < 0.004, "{:?}", scene.front);
    }

    /// The final model's links from its body's pose, read off the URDF's joint tree
    /// (`base_link` is the body), not from [`chain_from`]: `prismatic_1` from 28 mm out
    /// along the body's +x, `universal_0_axis2` about +y, `prismatic_0` from 28 mm out along
    /// `joint_cube_0`'s +x; `prismatic_2` from 28 mm out along the body's -x, on along -x,
    /// `universal_1_axis2` about +y, `prismatic_3` along `joint_cube_3`'s -x. A turn by
    /// `t` about +y takes a frame's x axis to (cos t, -sin t) in (x, z). Each pose's angle is
    /// its link frame's x axis (the rear head's points towards the body). Order: front head,
    /// front universal joint, body, rear universal joint, rear head.
    fn urdf_links(body: Pose, q: &LiftJoints) -> [Pose; 5] {
        let [p0, u0, p1, p2, u1, p3] = *q;
        let at = |frame: &Pose, u: f64, angle: f64| {
            let (x, z) = frame.apply((u, 0.0));
            Pose { x, z, angle }
        };
        let cube0 = at(&body, LEVER + p1, body.angle - u0);
        let cube3 = at(&body, -(LEVER + p2), body.angle - u1);
        [at(&cube0, LEVER + p0, cube0.angle), cube0, body, cube3, at(&cube3, -(LEVER + p3), cube3.angle)]
    }

    /// `p` seen from the other side of the plane (x -> -x) and turned end for end: where
    /// the link that plays `p`'s part stands when the other head leads.
    fn across(p: &Pose) -> Pose {
        Pose { x: -p.x, z: p.z, angle: -p.angle }
    }

    /// The shift's stored tables with the rear head leading (`Head::Rear`: each row
    /// [`lift::mirror`]ed), as the firmware runs them (every joint at its own speed, sampled
    /// every 1 ms), in the shift's scene seen from the other side: the mole's links from the
    /// URDF's joint tree, placed where its holding head holds (the reach: the front head in
    /// A; the roll: the rear head in C), stand where the stored tables put their
    /// counterparts, mirrored, within 1e-12 m; so every clearance and static load equals the
    /// stored tables' (the shapes are squares and the scene is mirrored), and the mirrored
    /// shift clears everything exactly as the stored one does.
    #[test]
    fn the_shift_paths_mirrored_clear_everything_as_the_stored_ones() {
        use super::super::motion::{Head, SHIFT_ACROSS, SHIFT_REACH_PATH, SHIFT_REAR_GRIP, SHIFT_ROLL_PATH};
        let (scene, _) = reach(SHIFT_ACROSS, SHIFT_REACH_PATH[3][0], SHIFT_REAR_GRIP, SHIFT_REACH_PATH[2][1]).expect("reach");
        let (mut least, mut least_mirrored, mut samples) = (f64::INFINITY, f64::INFINITY, 0);
        // Which link holds: in the stored tables (index in urdf_links' order) and mirrored.
        for (stage, path, holding) in [(Stage::Reach, &SHIFT_REACH_PATH[..], 4), (Stage::Roll, &SHIFT_ROLL_PATH[..], 0)] {
            // As the stored tables' test: the front head and the body with A (lying on its
            // tunnel floor at the start), and A leaving B and landing on C in the roll's first
            // and last phases, may touch.
            let last = path.len() - 2;
            for (k, pair) in path.windows(2).enumerate() {
                let exempt = match stage {
                    Stage::Roll if k == 0 || k == last => vec![3, 4, BLOCK_FIXED],
                    _ => vec![3, 4],
                };
                let stored = segment_samples(&pair[0], &pair[1], 0.001);
                let mirrored = segment_samples(&Head::Rear.row(&pair[0]), &Head::Rear.row(&pair[1]), 0.001);
                assert_eq!(stored.len(), mirrored.len());
                for (q, m) in stored.iter().zip(&mirrored) {
                    let c = chain(&scene, stage, q);
                    // The stored chain in urdf_links' order; each joint cube turns with its head.
                    let theirs = [
                        c.front,
                        Pose { x: c.joint_front.0, z: c.joint_front.1, angle: c.front.angle },
                        c.body,
                        Pose { x: c.joint_rear.0, z: c.joint_rear.1, angle: c.rear.angle },
                        c.rear,
                    ];
                    // The mirrored mole, its holding head (the other end's) where the stored
                    // one's holding head stands, mirrored.
                    let links = urdf_links(Pose { x: 0.0, z: 0.0, angle: 0.0 }, m);
                    let (base, want) = (links[4 - holding], across(&theirs[holding]));
                    let turn = want.angle - base.angle;
                    let (s, co) = turn.sin_cos();
                    let place = |p: &Pose| {
                        let (u, v) = (p.x - base.x, p.z - base.z);
                        Pose { x: want.x + co * u - s * v, z: want.z + s * u + co * v, angle: p.angle + turn }
                    };
                    let wrap = |a: f64| (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
                    for (i, link) in links.iter().enumerate() {
                        let (mine, expect) = (place(link), across(&theirs[4 - i]));
                        let off = (mine.x - expect.x).hypot(mine.z - expect.z);
                        assert!(off < 1e-12 && wrap(mine.angle - expect.angle).abs() < 1e-12, "{stage:?} link {i}: {mine:?} vs {expect:?}");
                    }
                    // Back across: the mirrored mole's chain in the stored scene, A held by the
                    // head that holds it there.
                    let back = |i: usize| across(&place(&links[4 - i]));
                    let rear = back(4);
                    let (sa, ca) = rear.angle.sin_cos();
                    let (u, v) = (scene.rear_grip, -AXIS_BELOW);
                    let block = Pose { x: rear.x - (ca * u - sa * v), z: rear.z - (sa * u + ca * v), angle: rear.angle };
                    let seen = Chain {
                        front: back(0),
                        joint_front: (back(1).x, back(1).z),
                        body: back(2),
                        joint_rear: (back(3).x, back(3).z),
                        rear,
                        block,
                    };
                    let (d, e) = (clearances(&scene, &c), clearances(&scene, &seen));
                    for i in (0..PAIRS.len()).filter(|&i| counts(stage, i)) {
                        assert!((d[i] - e[i]).abs() < 1e-9, "{stage:?}: {} {} vs {}", PAIRS[i], d[i], e[i]);
                        if !exempt.contains(&i) {
                            least = least.min(d[i]);
                            least_mirrored = least_mirrored.min(e[i]);
                        }
                    }
                    let (l, k) = (loads(stage, &c), loads(stage, &seen));
                    assert!(l.universal.iter().zip(&k.universal).all(|(a, b)| (a - b).abs() < 1e-9), "{l:?} {k:?}");
                    assert!(l.prismatic.iter().zip(&k.prismatic).all(|(a, b)| (a - b).abs() < 1e-9), "{l:?} {k:?}");
                    samples += 1;
                }
            }
        }
        eprintln!("mirrored shift: {samples} samples, least clearance {:.4} mm (stored {:.4} mm)", least_mirrored * 1e3, least * 1e3);
        assert!(samples > 1000 && (least - least_mirrored).abs() < 1e-9 && least_mirrored >= LiftLimits::actuators().margin);
    }

    #[test]
    fn a_hand_made_collision_is_found() {
        let scene = ShiftScene::new(-0.004, 0.06, -0.02);
        let limits = LiftLimits::actuators();
        // Pitching the straight mole's front head down 86 degrees just past A's mouth puts
        // it into the body and C's top rim.
        assert!(check(&scene, &limits, Stage::Reach, &[0.0, 1.5, 0.0, 0.0, 0.0, 0.0]).is_err());
        // A rolled into the target cell rests on C; 2 mm lower it is 2 mm into C.
        let scene = ShiftScene::new(-0.004, 0.04, -0.02);
        for (dz, expect) in [(0.0, 0.0), (-0.002, -0.002)] {
            let a = Pose { z: TARGET.z + dz, ..TARGET };
            let q = reach_block(&scene, &a, (0.0, 0.0), 0.5).expect("reachable");
            let d = clearances(&scene, &chain(&scene, Stage::Roll, &q))[BLOCK_FIXED];
            assert!((d - expect).abs() < 1e-9, "{d}");
        }
    }
}
