//! Planar model of the mole shifting block A from under it (issue #18, task 1's shift after
//! the lift): the mole stands upright in the column of B and A, as [`super::follow`] leaves
//! it at the top of a climb (its lower head in B's vertical tunnel, its upper head in A's),
//! both heads grip, and the mole pushes A over: A rolls a quarter turn clockwise (seen with
//! +x to the right) about the edge shared by B's and C's tops onto C. A's old bottom mouth
//! ends as its -x face's mouth, the upper head lying in A's then horizontal tunnel, the front
//! joint over B's top, the body leaning out of B's top mouth to the lower head in B.
//!
//! The scene is [`super::shift_below`]'s (B centred at x = 0 on the floor, C at x = 0.1 m,
//! A at [`HOME`] upside down, [`TARGET`] on C) with the same clearances, loads (A carried by
//! the chain all the way: an upper bound) and limits; only where the heads stand differs:
//! the lower head (the base, [`super::vertical::from_rear`]) upright in B's vertical tunnel,
//! the upper head along A's vertical tunnel (A's frame turned a quarter turn from the head's).
//!
//! Searched over the side of the axis, the lower head's height and the grip's
//! (`molemod_push_over_search`), paths exist only with the mole on the side of the column
//! away from C: towards C (and centred) the body leaning out of B's top mouth meets its rim
//! or A ([`PUSH_OVER_PATH`], the tests; docs/molemod_execution.md, "Pushing A over from under
//! it").

use super::lift::{connect, outline, segment_samples, Chain, LiftJoints, LiftLimits, Pose, BLOCK, CHECK_DT, LEVER, TRAVEL};
use super::shift_below::{clearances, loads, reach_head, BelowLoads, BelowScene, Stage, BLOCK_FIXED, BLOCK_FLOOR, GRIP_MOMENT, PAIRS};
use super::vertical::from_rear;

pub use super::shift_below::{HOME, LIFT_OFF, TARGET};

const HALF_PI: f64 = 0.5 * std::f64::consts::PI;

/// The shared top edge of B and C that A rolls about, m.
pub const PIVOT: (f64, f64) = (0.5 * BLOCK, BLOCK);

/// Where the heads stand: the lower head upright in B's vertical tunnel, the upper head
/// upright in A's above it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnderScene {
    /// The lower (rear, base) head's pose in B's vertical tunnel, its x axis up.
    pub rear: Pose,
    /// The upper (front) head's centre in A's frame where it grips, m (A's x axis is its x
    /// tunnel's; the head lies along A's vertical tunnel, a quarter turn from A's x axis).
    pub grip: (f64, f64),
}

impl UnderScene {
    /// Both heads upright `across` (m, + = towards C) from the column's axis: the lower head's
    /// centre `rear_z` above the floor, the upper head's `grip` above A's bottom face while A
    /// rests on B (m).
    pub fn new(across: f64, rear_z: f64, grip: f64) -> Self {
        let rear = Pose { x: across, z: rear_z, angle: HALF_PI };
        // A at HOME (angle pi): the world point (x, z) is (-x, 0.15 - z) in A's frame.
        Self { rear, grip: (HOME.x - across, HOME.z - BLOCK - grip) }
    }

    /// The upper head's pose when A stands at `a` and the head grips it.
    pub fn head_in(&self, a: &Pose) -> Pose {
        let (x, z) = a.apply(self.grip);
        Pose { x, z, angle: a.angle - HALF_PI }
    }

    /// [`shift_below`](super::shift_below)'s scene with this lower head (for its
    /// [`reach_head`], which uses only the base).
    fn base(&self) -> BelowScene {
        BelowScene { rear: self.rear, grip: self.grip }
    }
}

/// A's pose rolled `angle` (rad, clockwise) about [`PIVOT`] from [`HOME`] and raised `lift`
/// (m).
pub fn rolled(angle: f64, lift: f64) -> Pose {
    let (s, c) = (-angle).sin_cos();
    let (dx, dz) = (HOME.x - PIVOT.0, HOME.z - PIVOT.1);
    Pose { x: PIVOT.0 + c * dx - s * dz, z: PIVOT.1 + s * dx + c * dz + lift, angle: HOME.angle - angle }
}

/// Every link's pose for `q` with both heads gripping (A moves with the upper head).
pub fn chain(scene: &UnderScene, q: &LiftJoints) -> Chain {
    let l = from_rear(scene.rear, q);
    let angle = l.front.angle + HALF_PI;
    let (s, c) = angle.sin_cos();
    let (u, v) = scene.grip;
    let block = Pose { x: l.front.x - (c * u - s * v), z: l.front.z - (s * u + c * v), angle };
    Chain { front: l.front, joint_front: l.joint_front, body: l.body, joint_rear: l.joint_rear, rear: l.rear, block }
}

/// The first limit `q` breaks, if any (`Err` names it): joint ranges, clearances of
/// [`PAIRS`] (those in `limits.touching` may touch), static torques and forces, the grips'
/// moments.
pub fn check(scene: &UnderScene, limits: &LiftLimits, q: &LiftJoints) -> Result<(), String> {
    if !limits.in_range(q) {
        return Err("joint range".into());
    }
    let c = chain(scene, q);
    for (i, &d) in clearances(&c).iter().enumerate() {
        let least = if limits.touching.contains(&i) { -limits.touch } else { limits.margin };
        if d < least {
            return Err(PAIRS[i].to_string());
        }
    }
    load_check(limits, &loads(Stage::Roll, &c))
}

fn load_check(limits: &LiftLimits, l: &BelowLoads) -> Result<(), String> {
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

/// Whether the firmware's phase from `from` to `to` keeps to `limits`.
pub fn segment_ok(scene: &UnderScene, limits: &LiftLimits, from: &LiftJoints, to: &LiftJoints) -> bool {
    segment_samples(from, to, CHECK_DT).iter().all(|q| check(scene, limits, q).is_ok())
}

/// The least clearance of `q` over the pairs not in `limits.touching`, m, and its pair (an
/// index of [`PAIRS`]).
pub fn least(scene: &UnderScene, limits: &LiftLimits, q: &LiftJoints) -> (f64, usize) {
    clearances(&chain(scene, q))
        .iter()
        .enumerate()
        .filter(|(i, _)| !limits.touching.contains(i))
        .map(|(i, &d)| (d, i))
        .fold((f64::INFINITY, 0), |a, b| if b.0 < a.0 { b } else { a })
}

/// The best configuration that holds A at `a`: over a grid of the free extensions
/// (`prismatic_0` 0..30 mm, `prismatic_3` within `p3`, m, the body's split), the one within
/// the joint ranges and the load limits and `accept`ed with the most clearance; its least
/// clearance (m), pair and joints. `None` if no grid point is within the ranges and the loads.
pub fn best_hold(
    scene: &UnderScene,
    limits: &LiftLimits,
    a: &Pose,
    p3: (f64, f64),
    accept: impl Fn(&LiftJoints) -> bool,
) -> Option<(f64, usize, LiftJoints)> {
    let head = scene.head_in(a);
    let mut best: Option<(f64, usize, LiftJoints)> = None;
    for i in 0..=12 {
        for j in 0..=12 {
            for k in 0..=10 {
                let extend = (TRAVEL * f64::from(i) / 12.0, p3.0 + (p3.1 - p3.0) * f64::from(j) / 12.0);
                let Some(q) = reach_head(&scene.base(), &head, extend, f64::from(k) / 10.0) else { continue };
                if !limits.in_range(&q) || load_check(limits, &loads(Stage::Roll, &chain(scene, &q))).is_err() {
                    continue;
                }
                let (d, pair) = least(scene, limits, &q);
                if best.as_ref().is_none_or(|b| d > b.0) && accept(&q) {
                    best = Some((d, pair, q));
                }
            }
        }
    }
    best
}

/// The straight upright mole of `scene` (both pitches zero): the split of the prismatic
/// joints' extension (the heads' distance less the contracted 112 mm) with the most
/// clearance, A on B (A's own contacts not counted). `None` if the heads are nearer than
/// 112 mm or farther than the joints reach.
pub fn straight(scene: &UnderScene, limits: &LiftLimits) -> Option<LiftJoints> {
    let head = scene.head_in(&HOME);
    let extension = head.z - scene.rear.z - 4.0 * LEVER;
    let mut resting = limits.clone();
    resting.touching.extend([BLOCK_FLOOR, BLOCK_FIXED]);
    let mut best: Option<(f64, LiftJoints)> = None;
    for i in 0..=12 {
        for j in 0..=12 {
            let (p0, p3) = (TRAVEL * f64::from(i) / 12.0, TRAVEL * f64::from(j) / 12.0);
            let body = 0.5 * (extension - p0 - p3);
            let q = [p0, 0.0, body, body, 0.0, p3];
            if !limits.in_range(&q) {
                continue;
            }
            let d = least(scene, &resting, &q).0;
            if best.as_ref().is_none_or(|b| d > b.0) {
                best = Some((d, q));
            }
        }
    }
    best.map(|b| b.1)
}

/// The ends of a push over: the straight mole gripping A on B, A lifted [`LIFT_OFF`] by
/// `prismatic_3` (the lower head upright: A goes straight up), A held [`LIFT_OFF`] over C in
/// [`TARGET`]'s turn, and A set down on C (`prismatic_3` in by [`LIFT_OFF`]).
#[derive(Clone, Debug, PartialEq)]
pub struct UnderEnds {
    /// The straight upright mole, both heads gripping, A on B.
    pub start: LiftJoints,
    /// A lifted off B.
    pub lifted: LiftJoints,
    /// A held over C.
    pub over: LiftJoints,
    /// A set down on C.
    pub down: LiftJoints,
    /// The limits with the pairs touching at the start allowed to touch.
    pub limits: LiftLimits,
}

/// The ends of a push over in `scene` under `limits`: `Err` says which fails and, for the
/// hold over C, the best clearance the grid finds (m) and its pair.
pub fn endpoints(scene: &UnderScene, limits: &LiftLimits) -> Result<UnderEnds, String> {
    let start = straight(scene, limits).ok_or("no straight mole")?;
    let mut limits = limits.clone();
    let d = clearances(&chain(scene, &start));
    limits.touching = (0..BLOCK_FLOOR).filter(|&i| d[i] < limits.margin).collect();
    let mut resting = limits.clone();
    resting.touching.extend([BLOCK_FLOOR, BLOCK_FIXED]);
    check(scene, &resting, &start).map_err(|e| format!("start: {e}"))?;
    let mut lifted = start;
    lifted[5] += LIFT_OFF;
    let bottom = outline(&chain(scene, &lifted).block).iter().map(|v| v.1).fold(f64::INFINITY, f64::min);
    if bottom < BLOCK + LIFT_OFF - 1e-9 || check(scene, &limits, &lifted).is_err() || !segment_ok(scene, &resting, &start, &lifted) {
        return Err("no lift off".into());
    }
    let up = Pose { z: TARGET.z + LIFT_OFF, ..TARGET };
    // The set down: `prismatic_3` in by LIFT_OFF (A straight down: the lower head upright).
    let set_down = |q: &LiftJoints| {
        let mut down = *q;
        down[5] -= LIFT_OFF;
        down
    };
    let (clear, pair, _) =
        best_hold(scene, &limits, &up, (LIFT_OFF, TRAVEL), |_| true).ok_or("A over C: no joints within range and loads")?;
    if clear < limits.margin {
        return Err(format!("A over C: {} at best {:.2} mm", PAIRS[pair], clear * 1e3));
    }
    let (_, _, over) = best_hold(scene, &limits, &up, (LIFT_OFF, TRAVEL), |q| segment_ok(scene, &resting, q, &set_down(q)))
        .filter(|b| b.0 >= limits.margin)
        .ok_or("set down")?;
    let down = set_down(&over);
    Ok(UnderEnds { start, lifted, over, down, limits })
}

/// The roll's phases from the start through A lifted, the RRT-connect path (`iterations`,
/// `seed`) to A held over C, to A set down. `None` if the search does not connect.
pub fn search(scene: &UnderScene, ends: &UnderEnds, iterations: usize, seed: u64) -> Option<Vec<LiftJoints>> {
    let l = &ends.limits;
    let mut path =
        connect(l.pitch, |q| check(scene, l, q).is_ok(), |a, b| segment_ok(scene, l, a, b), &ends.lifted, &ends.over, iterations, seed)?;
    path.insert(0, ends.start);
    path.push(ends.down);
    Some(path)
}

/// Where [`super::follow::FOLLOW_PATH`] leaves a mole upright, from the column's axis, m.
pub const FOLLOW_SIDE: f64 = super::follow::FOLLOW_AXIS;

/// The roll's profile in `scene`: at `steps` + 1 angles from 0 to 90 degrees, A rolled
/// ([`rolled`]) and raised [`LIFT_OFF`], the best hold's least clearance ([`best_hold`],
/// the pairs touching at the straight mole's start allowed to touch) and its pair; angle
/// (rad), clearance (m, `-inf` where no grid point is within the ranges and loads), pair.
pub fn roll_profile(scene: &UnderScene, limits: &LiftLimits, steps: usize) -> Vec<(f64, f64, usize)> {
    let mut limits = limits.clone();
    if let Some(start) = straight(scene, &limits) {
        let d = clearances(&chain(scene, &start));
        limits.touching = (0..BLOCK_FLOOR).filter(|&i| d[i] < limits.margin).collect();
    }
    (0..=steps)
        .map(|k| {
            let angle = HALF_PI * k as f64 / steps as f64;
            match best_hold(scene, &limits, &rolled(angle, LIFT_OFF), (0.0, TRAVEL), |_| true) {
                Some((d, pair, _)) => (angle, d, pair),
                None => (angle, f64::NEG_INFINITY, 0),
            }
        })
        .collect()
}

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

/// The pairs exempt in phase `k` of a push over of `phases` phases with `touching` the
/// pairs in contact at the start: those, and A's own contacts in the first phase (A leaves
/// B) and the last (A lands on C).
pub fn exempt(touching: &[usize], phases: usize, k: usize) -> Vec<usize> {
    let mut e = touching.to_vec();
    if k == 0 || k + 1 == phases {
        e.extend([BLOCK_FLOOR, BLOCK_FIXED]);
    }
    e
}

/// Walks `path` sampled every `dt` s: least clearance over the pairs not in
/// [`exempt`]`(touching, ..)` and the peak static loads.
pub fn walk(scene: &UnderScene, path: &[LiftJoints], dt: f64, touching: &[usize]) -> PathWalk {
    let mut w = PathWalk { least: f64::INFINITY, pair: 0, peak: loads(Stage::Roll, &chain(scene, &path[0])), samples: 0 };
    let phases = path.len() - 1;
    for (k, pair) in path.windows(2).enumerate() {
        let exempt = exempt(touching, phases, k);
        for q in segment_samples(&pair[0], &pair[1], dt) {
            let c = chain(scene, &q);
            for (i, &d) in clearances(&c).iter().enumerate() {
                if !exempt.contains(&i) && d < w.least {
                    w.least = d;
                    w.pair = i;
                }
            }
            let l = loads(Stage::Roll, &c);
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

/// Where the stored push over's mole stands across the B/A column, m: [`FOLLOW_SIDE`] to -x of
/// the axis, away from C (on the side towards C no grid point has a hold of A over C, see
/// the tests).
pub const PUSH_OVER_ACROSS: f64 = -FOLLOW_SIDE;

/// The stored push over's lower head's centre above the floor, m: 15 mm below B's crossing.
pub const PUSH_OVER_REAR: f64 = 0.035;

/// The stored push over's upper head's centre above A's bottom face while A rests on B, m:
/// at A's crossing.
pub const PUSH_OVER_GRIP: f64 = 0.050;

/// The stored push over's scene ([`PUSH_OVER_ACROSS`], [`PUSH_OVER_REAR`], [`PUSH_OVER_GRIP`]).
pub fn stored_scene() -> UnderScene {
    UnderScene::new(PUSH_OVER_ACROSS, PUSH_OVER_REAR, PUSH_OVER_GRIP)
}

/// Where [`super::follow::FOLLOW_PATH`] leaves the mole (every joint at zero but
/// `prismatic_2`, 1 mm): the lower head 5 mm below B's crossing (45 mm above the floor), the
/// upper head 108 mm above the crossing, 58 mm above A's bottom face.
pub const FOLLOW_END: LiftJoints = [0.0, 0.0, 0.0, 0.001, 0.0, 0.0];

/// The lower head's centre above the floor where [`FOLLOW_END`] leaves it, m.
pub const FOLLOW_END_REAR: f64 = 0.045;

/// The settle from [`FOLLOW_END`] to the push over's start, straight upright in the column:
/// the upper head holds and `prismatic_1` lowers the lower head 10 mm to
/// [`PUSH_OVER_REAR`]; then the lower head holds and the upper one slides 8 mm down to
/// [`PUSH_OVER_GRIP`]. Joint targets, one phase a row, first row [`FOLLOW_END`].
pub const PUSH_OVER_SETTLE: [LiftJoints; 3] = [FOLLOW_END, [0.0, 0.0, 0.010, 0.001, 0.0, 0.0], [0.0, 0.0, 0.0015, 0.0015, 0.0, 0.0]];

/// The push over: joint targets, one firmware phase per row, in the order of [`LiftJoints`]
/// (m and rad), both heads gripping, the lower (rear) head the base in B's vertical tunnel.
/// First row: the straight upright mole of [`stored_scene`] (the end of
/// [`PUSH_OVER_SETTLE`]); then A lifted [`LIFT_OFF`] off B by `prismatic_3`, the RRT-connect
/// path (seed 1, 3000 iterations) to A held [`LIFT_OFF`] over C rolled a quarter turn, and
/// the set down (`prismatic_3` in by [`LIFT_OFF`]). Found by `cargo run --release -p
/// flotilla_firmware --example molemod_push_over_search -- 0.52 3000 1 -0.00375 0.035 0.050`,
/// rounded to 10 um and 0.1 mrad.
pub const PUSH_OVER_PATH: [LiftJoints; 5] = [
    [0.00000, 0.0000, 0.00150, 0.00150, 0.0000, 0.00000],
    [0.00000, 0.0000, 0.00150, 0.00150, 0.0000, 0.00300],
    [0.01554, 0.5234, 0.00198, 0.01580, -0.2108, 0.01693],
    [0.02750, 0.9395, 0.00000, 0.02576, -0.6313, 0.02775],
    [0.02750, 0.9395, 0.00000, 0.02576, -0.6313, 0.02475],
];

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(a: f64) -> f64 {
        (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI
    }

    /// The stored table, sampled every 1 ms as the firmware runs it (every joint at its own
    /// speed), keeps 1 mm from everything (but A leaving B in the first phase and landing on C
    /// in the last), within the joints' ranges and the actuators' static loads with A carried
    /// all the way; A ends on C within 0.1 mm and 1 mrad of the target cell's pose.
    #[test]
    fn the_push_over_path_clears_everything_and_lands_a_on_c() {
        let scene = stored_scene();
        let limits = LiftLimits::actuators();
        let start = clearances(&chain(&scene, &PUSH_OVER_PATH[0]));
        let touching: Vec<usize> = (0..BLOCK_FLOOR).filter(|&i| start[i] < limits.margin).collect();
        assert!(touching.is_empty(), "{start:?}");
        let phases = PUSH_OVER_PATH.len() - 1;
        for (k, pair) in PUSH_OVER_PATH.windows(2).enumerate() {
            assert!(limits.in_range(&pair[0]) && limits.in_range(&pair[1]), "row {k}");
            let exempt = exempt(&touching, phases, k);
            for q in segment_samples(&pair[0], &pair[1], 0.001) {
                let c = chain(&scene, &q);
                for (i, &d) in clearances(&c).iter().enumerate() {
                    // A leaving B and landing on C may touch them (the rounded table: 10 um).
                    let floor = if exempt.contains(&i) { -1e-5 } else { limits.margin };
                    assert!(d >= floor, "phase {k}: {} at {d} m, joints {q:?}", PAIRS[i]);
                }
                let l = loads(Stage::Roll, &c);
                assert!(load_check(&limits, &l).is_ok(), "phase {k}: {l:?}");
            }
        }
        let w = walk(&scene, &PUSH_OVER_PATH, 0.001, &touching);
        eprintln!(
            "push over: {} samples; least clearance {:.2} mm ({}); peak static torque {:.3} / {:.3} N m (front / rear); prismatic force {:.2} N; grip moments: base {:.3}, A on the upper head {:.3} N m",
            w.samples,
            w.least * 1e3,
            PAIRS[w.pair],
            w.peak.universal[0],
            w.peak.universal[1],
            w.peak.prismatic.iter().fold(0.0_f64, |m, &f| m.max(f)),
            w.peak.base_grip,
            w.peak.block_grip
        );
        // The least is the lower head standing 1.25 mm off B's tunnel wall.
        assert!(w.least >= 1.2e-3 && w.pair == 8, "{w:?}");
        // A carried 100 mm out from the rear joint, within the 0.52 N m joints.
        assert!(w.peak.universal[1] > 0.3 && w.peak.universal[1] < 0.4, "{:?}", w.peak);
        let a0 = chain(&scene, &PUSH_OVER_PATH[0]).block;
        assert!((a0.x - HOME.x).abs() < 1e-9 && (a0.z - HOME.z).abs() < 1e-9 && wrap(a0.angle - HOME.angle).abs() < 1e-9, "{a0:?}");
        let end = chain(&scene, &PUSH_OVER_PATH[phases]);
        assert!((end.block.x - TARGET.x).abs() < 1e-4 && (end.block.z - TARGET.z).abs() < 1e-4, "{:?}", end.block);
        assert!(wrap(end.block.angle - TARGET.angle).abs() < 1e-3, "A turned to {} rad", end.block.angle);
        // The end as the module's doc draws it: the upper head level in A's then horizontal
        // tunnel, the front joint over B's top (left of A's -x face, above B), the lower head
        // still upright in B.
        assert!(end.front.angle.abs() < 1e-3 && end.front.x > PIVOT.0, "{:?}", end.front);
        assert!(end.joint_front.0 < PIVOT.0 && end.joint_front.1 > BLOCK, "{:?}", end.joint_front);
        assert!((end.rear.z - PUSH_OVER_REAR).abs() < 1e-12);
    }

    /// The search at the stored point (seed 1, 3000 iterations) gives the stored table (to
    /// its rounding): the example regenerates it.
    #[test]
    fn the_search_at_the_stored_point_gives_the_stored_table() {
        let scene = stored_scene();
        let ends = endpoints(&scene, &LiftLimits::actuators()).expect("ends");
        let path = search(&scene, &ends, 3000, 1).expect("path");
        assert_eq!(path.len(), PUSH_OVER_PATH.len());
        for (a, b) in path.iter().zip(&PUSH_OVER_PATH) {
            assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 6e-5), "{a:?} {b:?}");
        }
    }

    /// The settle from where the follow leaves the mole to the push over's start: the mole
    /// straight upright in the column, A resting on B (a head slides while the other holds,
    /// so A stays put), sampled every 1 ms, keeps the 1.25 mm the follow leaves each head
    /// from its tunnel's wall and more from everything else.
    #[test]
    fn the_settle_from_the_follows_end_clears_the_column() {
        let limits = LiftLimits::actuators();
        let follow_end = super::super::follow::FOLLOW_PATH[super::super::follow::FOLLOW_PATH.len() - 1].1;
        assert_eq!(follow_end, FOLLOW_END);
        // The follow's end in this model: the upper head 108 mm above B's crossing.
        let top = FOLLOW_END_REAR + 4.0 * LEVER + FOLLOW_END[2] + FOLLOW_END[3];
        assert!((top - (0.5 * BLOCK + 0.108)).abs() < 1e-12);
        assert_eq!(PUSH_OVER_SETTLE[PUSH_OVER_SETTLE.len() - 1], PUSH_OVER_PATH[0]);
        let mut least = f64::INFINITY;
        // First phase: the upper head holds at `top`; second: the lower one at PUSH_OVER_REAR.
        for (k, holds_top) in [(0, true), (1, false)] {
            for q in segment_samples(&PUSH_OVER_SETTLE[k], &PUSH_OVER_SETTLE[k + 1], 0.001) {
                let extension = q[0] + q[2] + q[3] + q[5];
                let (rear, head) = if holds_top {
                    (top - 4.0 * LEVER - extension, top)
                } else {
                    (PUSH_OVER_REAR, PUSH_OVER_REAR + 4.0 * LEVER + extension)
                };
                // A at HOME: the scene's grip is where the head stands.
                let scene = UnderScene::new(PUSH_OVER_ACROSS, rear, head - BLOCK);
                let d = clearances(&chain(&scene, &q));
                least = d[..BLOCK_FLOOR].iter().fold(least, |m, &x| m.min(x));
            }
        }
        let end = UnderScene::new(PUSH_OVER_ACROSS, PUSH_OVER_REAR, PUSH_OVER_GRIP).head_in(&HOME);
        assert!((end.z - (BLOCK + PUSH_OVER_GRIP)).abs() < 1e-12);
        assert!(least >= limits.margin && least < 1.3e-3, "{least}");
    }

    /// Why the push over stands away from C: with the mole [`FOLLOW_SIDE`] towards C, the
    /// best hold the grid finds with A rolled on its way is into B's top mouth's +x rim or
    /// into A by more than 3 mm somewhere over the roll (at the follow's heights and at the
    /// stored ones), while away from C the same heights keep over 1.25 mm at every angle.
    #[test]
    fn towards_c_the_body_cannot_lean_out_of_bs_mouth() {
        let limits = LiftLimits::actuators();
        let worst = |scene: &UnderScene| {
            roll_profile(scene, &limits, 18).into_iter().fold((f64::INFINITY, 0.0, 0), |w, (a, d, p)| if d < w.0 { (d, a, p) } else { w })
        };
        for (rear, grip) in [(FOLLOW_END_REAR, 0.058), (PUSH_OVER_REAR, PUSH_OVER_GRIP)] {
            let (d, angle, pair) = worst(&UnderScene::new(FOLLOW_SIDE, rear, grip));
            eprintln!(
                "towards C, lower head {rear} m, grip {grip} m: worst best hold {:.2} mm ({}) at {:.0} degrees",
                d * 1e3,
                PAIRS[pair],
                angle.to_degrees()
            );
            assert!(d < -3e-3 && (pair == 4 || pair == 7), "{d} {pair}");
            let (d, ..) = worst(&UnderScene::new(-FOLLOW_SIDE, rear, grip));
            assert!(d >= 1.2e-3, "away from C: {d}");
        }
    }

    /// The universal joints (16 mm joint cubes, which the physics gives no contact, but the
    /// mole's are solid) kept as [`super::super::follow::JOINT_HALF`] discs off B, C and A over
    /// the stored table sampled every 1 ms: the model's pairs are the three main cubes only.
    #[test]
    fn the_universal_joints_keep_off_the_blocks() {
        use crate::molemod::follow::{point_clearance_in, JOINT_HALF};
        let scene = stored_scene();
        // B and C with the floor at point_clearance_in's (their centres 50 mm up).
        let fixed = [(0.0, 0.0), (BLOCK, 0.0)];
        let mut least = f64::INFINITY;
        for pair in PUSH_OVER_PATH.windows(2) {
            for q in segment_samples(&pair[0], &pair[1], 0.001) {
                let c = chain(&scene, &q);
                for p in [c.joint_front, c.joint_rear] {
                    // A in its own frame, put 1 m up so the floor is far.
                    let (s, co) = c.block.angle.sin_cos();
                    let (dx, dz) = (p.0 - c.block.x, p.1 - c.block.z);
                    let in_a = (co * dx + s * dz, -s * dx + co * dz + 1.0);
                    let d = point_clearance_in(&fixed, (p.0, p.1 - 0.5 * BLOCK)).min(point_clearance_in(&[(0.0, 1.0)], in_a)) - JOINT_HALF;
                    least = least.min(d);
                }
            }
        }
        eprintln!("push over: the universal joints keep {:.2} mm off the blocks", least * 1e3);
        assert!(least > 5e-3, "{least}");
    }
}
