//! Planar model of the pass through a lone block (issue #18, task 3's put down onward right
//! after a lift): block B alone on the floor between two empty cells, block A upside down on
//! it where the lift onto set it, the mole straight where [`super::motion::LEAVE_U_PATH`]
//! ends (the front head clamped in B [`super::motion::LIFT_ONTO_FRONT_GRIP`] from B's centre
//! towards the empty cell behind, the rear half over that cell at the tunnel's height). The
//! pass takes the mole through B's x tunnel to the mirror image of that pose on B's far side
//! (the rear head clamped in B 18 mm from its centre towards the far cell, the front half over
//! the far cell at the tunnel's height), where [`super::motion::Motion::EnterU`] with the
//! rear head leading starts.
//!
//! Why not [`super::step`]'s step: it ends with the front head clamped in the block beyond B,
//! and here there is none. The contracted mole is 112 mm between head centres and B 100 mm
//! long, so the two heads' centres are never inside B together: the hold passes from the
//! front head clamped in B to the rear head clamped in B through holds on the floors of the
//! two empty cells (a head tilted onto the floor grips by friction, as in the step). B's
//! crossing (its vertical tunnel, within 25 mm of its centre) is a hole in the tunnel floor
//! 50 mm long, longer than a cube's 32 mm flat bottom, so whatever lies level in the tunnel
//! rests on B's floor only at its two 25 mm mouths.
//!
//! The phases (the first half; the second is the first mirrored end to end and run
//! backwards, [`super::lift::mirror`]), holds [`PassHold`]:
//!
//! 1. the step's set down (front hold, clamped in B): the rear head tilted onto the floor of
//!    the empty cell behind B;
//! 2. the push (rear hold, by friction on the floor): `prismatic_2` pushes the body onto B's
//!    near mouth and the front head over the crossing, `prismatic_0` and `prismatic_1` the
//!    front head on to B's far mouth (1 mm inside B's far face), where it clamps;
//! 3. the regrip (front hold, clamped in B): the rear head lifted level and drawn in (the body
//!    slides off B's near mouth over the crossing), then set down on the floor again,
//!    now close to B's near face;
//! 4. the push out (rear hold): `prismatic_2` pushes the body over the crossing onto B's far
//!    mouth and the front head out of B while the rear pitch presses [`PRESS`] past the
//!    floor (the rear head rolls on its edge, [`rolled`], and the body lifts off the
//!    crossing's near lip, so the rear head's grip bears the chain), `prismatic_0` the front
//!    head on over the far cell, the front pitch sets it down on the far floor: both heads
//!    on the floors, symmetric about B's centre;
//! 5. the swap (both heads gripping on the floors): `prismatic_1` opens as `prismatic_2`
//!    closes, at the same speed: the heads and the universal joints stand still and the body
//!    slides from B's far mouth to its near one; the mole is then the mirror image of the end
//!    of 4, and the mirrored phases 4 to 1 run backwards take it to the far side.
//!
//! Whatever holds by friction, the held mole is one rigid body resting on its supports (a
//! head on the floor, on its lowest rounded edge; a cube lying level in B's tunnel, on its
//! flat bottom where it lies over B's floor): [`rest`] checks that the mass centre lies
//! between them and that the gripping heads' friction holds what slides however the weight
//! spreads over the supports (the linear programme of [`super::step::floor_hold`]). With a
//! head clamped in B the chain is cantilevered from it ([`super::unfold::static_loads`]).

use super::lift::{
    chain_from, cube, distance_to_block, lowest_corner, mirror, quad_distance, segment_samples, Chain, LiftJoints, Pose, AXIS_BELOW, BLOCK,
    CUBE_ROUNDING, LEVER, TRAVEL, TUNNEL_HALF,
};
use super::step::{mass_centre, FLAT_HALF, GRIP_FRICTION, MOLE_WEIGHT, SLIDE_FRICTION, STEP_IN_PATH};
use super::unfold::{self, UnfoldScene, STRAIGHT};

/// Which head holds in a phase of the pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassHold {
    /// The front head grips (clamped in B, or by friction on the floor); the rear one is
    /// loose.
    Front,
    /// The rear head grips (clamped in B, or by friction on the floor); the front one is
    /// loose.
    Rear,
    /// Both heads grip, each by friction on the floor of an empty cell.
    Both,
}

impl PassHold {
    /// The hold of the mirrored phase (front and rear swapped).
    pub fn mirrored(self) -> Self {
        match self {
            PassHold::Front => PassHold::Rear,
            PassHold::Rear => PassHold::Front,
            PassHold::Both => PassHold::Both,
        }
    }
}

/// The pairs whose clearance is checked, in the order of [`clearances`]: the three main
/// cubes with each other and with A, B and the floor (the joint cubes are immaterial).
pub const PAIRS: [&str; 12] = [
    "front head - body",
    "front head - rear head",
    "body - rear head",
    "front head - block A",
    "body - block A",
    "rear head - block A",
    "front head - block B",
    "body - block B",
    "rear head - block B",
    "front head - floor",
    "body - floor",
    "rear head - floor",
];

/// Index of "front head - block B" in [`PAIRS`].
pub const FRONT_B: usize = 6;
/// Index of "body - block B" in [`PAIRS`].
pub const BODY_B: usize = 7;
/// Index of "rear head - block B" in [`PAIRS`].
pub const REAR_B: usize = 8;
/// Index of "front head - floor" in [`PAIRS`].
pub const FRONT_FLOOR: usize = 9;
/// Index of "rear head - floor" in [`PAIRS`].
pub const REAR_FLOOR: usize = 11;

/// The index in [`PAIRS`] of pair `i` with the front and rear heads swapped.
pub fn mirrored_pair(i: usize) -> usize {
    [2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9][i]
}

/// Clearance of every pair of [`PAIRS`], m (negative = overlap). The third block of
/// [`UnfoldScene`] is not in the row here.
pub fn clearances(scene: &UnfoldScene, c: &Chain) -> [f64; 12] {
    let r = CUBE_ROUNDING;
    let (front, body, rear) = (cube(&c.front), cube(&c.body), cube(&c.rear));
    let to_block = |q: &[(f64, f64); 4], block: &Pose| distance_to_block(q, block) - r;
    let floor = |q: &[(f64, f64); 4]| lowest_corner(q) - r;
    [
        quad_distance(&front, &body) - 2.0 * r,
        quad_distance(&front, &rear) - 2.0 * r,
        quad_distance(&body, &rear) - 2.0 * r,
        to_block(&front, &scene.block_a),
        to_block(&body, &scene.block_a),
        to_block(&rear, &scene.block_a),
        to_block(&front, &scene.block_b),
        to_block(&body, &scene.block_b),
        to_block(&rear, &scene.block_b),
        floor(&front),
        floor(&body),
        floor(&rear),
    ]
}

/// Every link's pose for `q` with the rear head at `rear` (the inverse of
/// [`chain_from`], which starts from the front head).
pub fn chain_from_rear(rear: Pose, q: &LiftJoints) -> Chain {
    let go = |from: (f64, f64), angle: f64, len: f64| (from.0 + len * angle.cos(), from.1 + len * angle.sin());
    let joint_rear = go((rear.x, rear.z), rear.angle, LEVER + q[5]);
    let body_angle = rear.angle + q[4];
    let body = go(joint_rear, body_angle, LEVER + q[3]);
    let joint_front = go(body, body_angle, LEVER + q[2]);
    let front_angle = body_angle - q[1];
    let front = go(joint_front, front_angle, LEVER + q[0]);
    chain_from(Pose { x: front.0, z: front.1, angle: front_angle }, 0.0, q)
}

/// Whether a head at `p` is clamped in B when it grips: its centre inside B (the physics'
/// rule, `Blocks::block_holding`).
pub fn in_block(scene: &UnfoldScene, p: &Pose) -> bool {
    (p.x - scene.block_b.x).abs() < 0.5 * BLOCK && (p.z - scene.block_b.z).abs() < 0.5 * BLOCK
}

/// The static loads with the rear head clamped as the chain's base: the largest torque on a
/// universal joint's pitch axis (N m), the largest force along a prismatic joint (N) and the
/// moment on the rear head's clamp (N m): [`unfold::static_loads`] of the chain mirrored end
/// to end (the rear head read as a front head facing the other way).
pub fn rear_base_loads(scene: &UnfoldScene, c: &Chain, q: &LiftJoints) -> (f64, f64, f64) {
    let mut mirrored = scene.clone();
    mirrored.front = Pose { x: -c.rear.x, z: c.rear.z, angle: -c.rear.angle };
    unfold::static_loads(&mirrored, &mirror(q))
}

/// The stretch of B's solid tunnel floor under a cube level in its x tunnel with its centre
/// at `x` (m): the hull of where its flat bottom lies over B's floor columns (the crossing
/// is a hole), `None` if nowhere.
pub fn b_floor_patch(scene: &UnfoldScene, x: f64) -> Option<(f64, f64)> {
    let (lo, hi) = (x - FLAT_HALF, x + FLAT_HALF);
    let centre = scene.block_b.x;
    let mut hull: Option<(f64, f64)> = None;
    for (a, b) in [(centre - 0.5 * BLOCK, centre - TUNNEL_HALF), (centre + TUNNEL_HALF, centre + 0.5 * BLOCK)] {
        let (a, b) = (a.max(lo), b.min(hi));
        if b > a {
            hull = Some(hull.map_or((a, b), |(p, q)| (p.min(a), q.max(b))));
        }
    }
    hull
}

/// How near the floor a cube's lowest edge must be to bear on it, m: the stored pitches are
/// rounded towards level, so a head set down stops a few um above the floor.
pub const BEARING_GAP: f64 = 2e-5;

/// How near an edge of B's tunnel floor (a lip of the crossing, or a mouth's edge) a cube
/// lying level in the tunnel with no flat bottom over B's floor may come before it is taken
/// to bear on it with its rounded edge, m: the held chain sags a few hundredths of a mm in
/// the physics (measured: 0.02-0.04 mm), and a body 0.035 mm over the lip bore on it (the
/// rear head's grip then slid 23 mm back in a push).
pub const LIP_GAP: f64 = 2e-4;

/// The x of a cube's lowest rounded edge (where it bears on the floor), m.
pub fn lowest_edge(p: &Pose) -> f64 {
    [(-FLAT_HALF, -FLAT_HALF), (FLAT_HALF, -FLAT_HALF), (-FLAT_HALF, FLAT_HALF), (FLAT_HALF, FLAT_HALF)]
        .iter()
        .map(|&v| p.apply(v))
        .fold((p.x, f64::INFINITY), |low, v| if v.1 < low.1 { v } else { low })
        .0
}

/// How the held mole rests when what holds is friction (see [`super::step::FloorHold`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rest {
    /// Least friction to spare over every way the weight can spread over the supports, N
    /// (the gripping heads' [`GRIP_FRICTION`], the still cubes' [`SLIDE_FRICTION`], less the
    /// moving cubes' [`SLIDE_FRICTION`], each on its share of the weight); negative: what
    /// holds may slip; minus infinity: no gripping head bears on anything.
    pub spare: f64,
    /// How far the mass centre lies inside the span of the supports, m; negative: the mole
    /// tips.
    pub inside: f64,
}

/// [`Rest`] of the chain `c`: `holding` (front, rear) the heads that grip by friction,
/// `moving` (front head, body, rear head) the cubes that move in the phase.
pub fn rest(scene: &UnfoldScene, c: &Chain, holding: [bool; 2], moving: [bool; 3]) -> Rest {
    let floor = clearances(scene, c);
    let tunnel_z = scene.block_b.z - AXIS_BELOW;
    let mut points: Vec<(f64, f64)> = Vec::new();
    let mut gripped = false;
    let b = scene.block_b.x;
    let lips = [b - 0.5 * BLOCK, b - TUNNEL_HALF, b + TUNNEL_HALF, b + 0.5 * BLOCK];
    for (k, (pose, floor_gap, block_gap)) in
        [(&c.front, floor[FRONT_FLOOR], floor[FRONT_B]), (&c.body, floor[10], floor[BODY_B]), (&c.rear, floor[REAR_FLOOR], floor[REAR_B])]
            .into_iter()
            .enumerate()
    {
        let grips = (k == 0 && holding[0]) || (k == 2 && holding[1]);
        let spare = if grips {
            GRIP_FRICTION
        } else if moving[k] {
            -SLIDE_FRICTION
        } else {
            SLIDE_FRICTION
        };
        let mut bears = false;
        let level = pose.angle.abs() < 1e-6 && (pose.z - tunnel_z).abs() < 1e-5;
        let patch = if level { b_floor_patch(scene, pose.x) } else { None };
        if floor_gap < BEARING_GAP {
            points.push((lowest_edge(pose), spare));
            bears = true;
        } else if let Some((a, b)) = patch {
            points.extend([(a, spare), (b, spare)]);
            bears = true;
        } else if block_gap < LIP_GAP {
            // Tilted on its lowest edge over B's floor, or on a lip with a rounded edge (the
            // lip nearest its centre).
            let edge = lowest_edge(pose);
            let over_floor = (edge - b).abs() > TUNNEL_HALF && (edge - b).abs() < 0.5 * BLOCK;
            let at = if !level && over_floor && block_gap < BEARING_GAP {
                edge
            } else {
                lips.iter().copied().fold(lips[0], |n, l| if (l - pose.x).abs() < (n - pose.x).abs() { l } else { n })
            };
            points.push((at, spare));
            bears = true;
        }
        gripped |= grips && bears;
    }
    let centre = mass_centre(c);
    let (lo, hi) = points.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), p| (l.min(p.0), h.max(p.0)));
    let mut out = Rest { spare: if gripped { f64::INFINITY } else { f64::NEG_INFINITY }, inside: (centre - lo).min(hi - centre) };
    if !gripped {
        return out;
    }
    for (i, &(p, sp)) in points.iter().enumerate() {
        for &(q, sq) in &points[i + 1..] {
            let (a, b) = (p.min(q), p.max(q));
            if b - a < 1e-12 || centre < a || centre > b {
                continue;
            }
            let (np, nq) = (MOLE_WEIGHT * (q - centre) / (q - p), MOLE_WEIGHT * (centre - p) / (q - p));
            out.spare = out.spare.min(np * sp + nq * sq);
        }
    }
    out
}

/// How far past the floor the push out presses the rear pitch, rad.
pub const PRESS: f64 = 0.0157;

/// The pass's first half as built: the rows from [`STRAIGHT`] (where `LEAVE_U_PATH` ends) to
/// the mole bridging B, both heads on the floors symmetric about B's centre, and the hold of
/// each phase (the phase to row `k + 1`). The pitches are [`STEP_IN_PATH`]'s (the rear head
/// 1.5 mm over the floor, then on it; the front head the same, mirrored).
pub fn first_half(scene: &UnfoldScene) -> (Vec<LiftJoints>, Vec<PassHold>) {
    let (hover, down) = (STEP_IN_PATH[1][4], STEP_IN_PATH[2][4]);
    // The push out's rear pitch, pressed 15.7 mrad past the floor: the rear head rolls on its
    // edge and lifts the body off the crossing's near lip, so the rear head's grip bears the
    // chain's weight (with the pitch at the floor the chain rested on the lip and the front
    // head, the rear head's grip bore nothing and slid 22 mm back: measured).
    let press = down - PRESS;
    // Where the rear universal joint stands in the bridge: the two joints symmetric about B's
    // centre with `prismatic_2` open and `prismatic_1` closed (86 mm apart).
    let joint_rear = scene.block_b.x - 0.5 * (2.0 * LEVER + TRAVEL);
    // The front head's clamp in the regrip: 1 mm inside B's far face (its centre must be in
    // B to clamp); the body 56 mm behind it, over B's crossing, its rounded edge 0.54 mm
    // above the crossing's near lip (so the push out does not start with the body and the
    // front head both resting on B's floor on either side of the mass centre, which leaves
    // the rear head's grip nothing to bear on); the rear universal joint where the bridge
    // needs it.
    let clamp = scene.block_b.x + 0.5 * BLOCK - 0.001;
    let body = clamp - 2.0 * LEVER;
    let (p1_on, p2_regrip) = (clamp - (scene.front.x + 2.0 * TRAVEL), body - LEVER - joint_rear);
    let row = |p0: f64, u0: f64, p1: f64, p2: f64, u1: f64| [p0, u0, p1, p2, u1, TRAVEL];
    let rows = vec![
        STRAIGHT,
        row(0.0, 0.0, 0.0, 0.0, hover),
        row(0.0, 0.0, 0.0, 0.0, down),
        row(0.0, 0.0, 0.0, TRAVEL, down),
        row(TRAVEL, 0.0, p1_on, TRAVEL, down),
        row(TRAVEL, 0.0, p1_on, TRAVEL, 0.0),
        row(0.0, 0.0, 0.0, p2_regrip, 0.0),
        row(0.0, 0.0, 0.0, p2_regrip, hover),
        row(0.0, 0.0, 0.0, p2_regrip, down),
        row(0.0, 0.0, 0.0, TRAVEL, press),
        row(TRAVEL, 0.0, 0.0, TRAVEL, down),
        row(TRAVEL, -hover, 0.0, TRAVEL, down),
        row(TRAVEL, -down, 0.0, TRAVEL, down),
    ];
    use PassHold::{Front, Rear};
    let holds = vec![Front, Front, Rear, Rear, Front, Front, Front, Front, Rear, Rear, Rear, Rear];
    (rows, holds)
}

/// The whole pass from the first half: its rows, the swap (both heads gripping: the first
/// half's last row mirrored), then the first half's rows before its last mirrored and in
/// reverse, with the mirrored holds in reverse.
pub fn whole(first: &[LiftJoints], holds: &[PassHold]) -> (Vec<LiftJoints>, Vec<PassHold>) {
    let mut rows = first.to_vec();
    rows.extend(first.iter().rev().map(mirror));
    let mut all = holds.to_vec();
    all.push(PassHold::Both);
    all.extend(holds.iter().rev().map(|h| h.mirrored()));
    (rows, all)
}

/// The pairs resting on what they lie or slide on in phase `k` of the first half (allowed to
/// touch, not to overlap): the front head on B's tunnel floor until it leaves B, the body on
/// it once in B's mouth, the heads on the floors once set down.
pub fn first_half_resting(k: usize) -> Vec<usize> {
    let mut r = Vec::new();
    if k <= 9 {
        r.push(FRONT_B);
    }
    if k >= 2 {
        r.push(BODY_B);
    }
    if (1..=4).contains(&k) || k >= 7 {
        r.push(REAR_FLOOR);
    }
    if k >= 11 {
        r.push(FRONT_FLOOR);
    }
    r
}

/// [`first_half_resting`] for phase `k` of the whole pass of `n` phases (the first half's
/// `(n - 1) / 2` phases, the swap, the first half mirrored in reverse).
pub fn resting(k: usize, n: usize) -> Vec<usize> {
    let half = (n - 1) / 2;
    if k <= half {
        first_half_resting(k)
    } else {
        first_half_resting(n - 1 - k).into_iter().map(mirrored_pair).collect()
    }
}

/// The pass as the firmware runs it, rounded to 10 um and 0.1 mrad:
/// `cargo run --release -p flotilla_firmware --example molemod_pass_search` prints it. Each
/// row after the first is a phase with the hold of [`PASS_HOLDS`] at the same index less one.
pub const PASS_PATH: [[f64; 6]; 26] = [
    STRAIGHT,
    [0.0, 0.0, 0.0, 0.0, -0.3359, 0.03],
    [0.0, 0.0, 0.0, 0.0, -0.3593, 0.03],
    [0.0, 0.0, 0.0, 0.03, -0.3593, 0.03],
    [0.03, 0.0, 0.007, 0.03, -0.3593, 0.03],
    [0.03, 0.0, 0.007, 0.03, 0.0, 0.03],
    [0.0, 0.0, 0.0, 0.008, 0.0, 0.03],
    [0.0, 0.0, 0.0, 0.008, -0.3359, 0.03],
    [0.0, 0.0, 0.0, 0.008, -0.3593, 0.03],
    [0.0, 0.0, 0.0, 0.03, -0.375, 0.03],
    [0.03, 0.0, 0.0, 0.03, -0.3593, 0.03],
    [0.03, 0.3359, 0.0, 0.03, -0.3593, 0.03],
    [0.03, 0.3593, 0.0, 0.03, -0.3593, 0.03],
    [0.03, 0.3593, 0.03, 0.0, -0.3593, 0.03],
    [0.03, 0.3593, 0.03, 0.0, -0.3359, 0.03],
    [0.03, 0.3593, 0.03, 0.0, 0.0, 0.03],
    [0.03, 0.375, 0.03, 0.0, 0.0, 0.0],
    [0.03, 0.3593, 0.008, 0.0, 0.0, 0.0],
    [0.03, 0.3359, 0.008, 0.0, 0.0, 0.0],
    [0.03, 0.0, 0.008, 0.0, 0.0, 0.0],
    [0.03, 0.0, 0.03, 0.007, 0.0, 0.03],
    [0.03, 0.3593, 0.03, 0.007, 0.0, 0.03],
    [0.03, 0.3593, 0.03, 0.0, 0.0, 0.0],
    [0.03, 0.3593, 0.0, 0.0, 0.0, 0.0],
    [0.03, 0.3359, 0.0, 0.0, 0.0, 0.0],
    STRAIGHT,
];

/// The hold of each phase of [`PASS_PATH`] (the phase to row `k + 1`).
pub const PASS_HOLDS: [PassHold; 25] = [
    PassHold::Front,
    PassHold::Front,
    PassHold::Rear,
    PassHold::Rear,
    PassHold::Front,
    PassHold::Front,
    PassHold::Front,
    PassHold::Front,
    PassHold::Rear,
    PassHold::Rear,
    PassHold::Rear,
    PassHold::Rear,
    PassHold::Both,
    PassHold::Front,
    PassHold::Front,
    PassHold::Front,
    PassHold::Front,
    PassHold::Rear,
    PassHold::Rear,
    PassHold::Rear,
    PassHold::Rear,
    PassHold::Front,
    PassHold::Front,
    PassHold::Rear,
    PassHold::Rear,
];

/// The chain with the joints `q` and the head that holds by friction on the floor (`rear`:
/// the rear head, at `base`; else the front head) rolled about its bearing edge until the
/// rest of the chain bears on B or the floor: a head gripping on the floor holds against
/// sliding, not against rolling on its edge, so where a phase pitches the chain down
/// against its other support (the push out's pressed rear pitch) the head rolls. Bisection
/// over the roll (within 0.05 rad); `None` if nothing bears within it (the chain tips).
pub fn rolled(scene: &UnfoldScene, base: Pose, rear: bool, q: &LiftJoints) -> Option<Chain> {
    let corner = [(-FLAT_HALF, -FLAT_HALF), (FLAT_HALF, -FLAT_HALF), (-FLAT_HALF, FLAT_HALF), (FLAT_HALF, FLAT_HALF)]
        .iter()
        .map(|&v| base.apply(v))
        .fold((base.x, f64::INFINITY), |low, v| if v.1 < low.1 { v } else { low });
    // Positive rolls lift the far end of the chain.
    let sign = if rear { 1.0 } else { -1.0 };
    let chain = |a: f64| {
        let (s, c) = (sign * a).sin_cos();
        let (dx, dz) = (base.x - corner.0, base.z - corner.1);
        let pose = Pose { x: corner.0 + c * dx - s * dz, z: corner.1 + s * dx + c * dz, angle: base.angle + sign * a };
        if rear {
            chain_from_rear(pose, q)
        } else {
            chain_from(pose, 0.0, q)
        }
    };
    let others = if rear { [FRONT_B, BODY_B, FRONT_FLOOR, 10] } else { [REAR_B, BODY_B, REAR_FLOOR, 10] };
    let gap = |a: f64| {
        let d = clearances(scene, &chain(a));
        others.iter().map(|&i| d[i]).fold(f64::INFINITY, f64::min)
    };
    let (mut lo, mut hi) = (-0.05, 0.05);
    if gap(lo) > 0.0 {
        return None;
    }
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if gap(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(chain(hi))
}

/// What the pass meets as the firmware runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct PassWalk {
    /// Least clearance of every pair not resting where it lies, m.
    pub least: f64,
    /// The pair that has it, and the phase.
    pub worst: (&'static str, usize),
    /// Least clearance of the resting pairs, m (0: touching; negative: overlapping).
    pub resting: f64,
    /// Largest static torque on a universal joint's pitch axis with a head clamped in B, N m.
    pub torque: f64,
    /// Largest static force along a prismatic joint with a head clamped in B, N.
    pub force: f64,
    /// Largest moment on the clamp, N m.
    pub grip: f64,
    /// Least [`Rest::spare`] where friction holds, N.
    pub spare: f64,
    /// Least [`Rest::inside`] where friction holds, m.
    pub inside: f64,
    /// Largest distance a head that grips on the floor in a phase where both grip moves, m
    /// (the chain closed between them: 0 if the swap keeps it closed).
    pub loop_error: f64,
    /// The chain at the end.
    pub end: Chain,
    /// Samples checked.
    pub samples: usize,
}

/// Walks `rows` with `holds` from the mole straight with the front head at `scene.front`,
/// every `dt` s as the firmware runs each phase (all its joints at once, each at its own
/// speed): the holding head stays where it is (a clamped head where it clamps, a head
/// gripping on the floor where it was set down) and the chain hangs from it; `resting(k)`
/// the pairs of phase `k` allowed to touch. `Err` names a row out of the joint ranges.
pub fn walk(scene: &UnfoldScene, rows: &[LiftJoints], holds: &[PassHold], resting: impl Fn(usize) -> Vec<usize>, dt: f64) -> PassWalk {
    let mut front = scene.front;
    let mut rear = chain_from(front, 0.0, &rows[0]).rear;
    let mut out = PassWalk {
        least: f64::INFINITY,
        worst: ("", 0),
        resting: f64::INFINITY,
        torque: 0.0,
        force: 0.0,
        grip: 0.0,
        spare: f64::INFINITY,
        inside: f64::INFINITY,
        loop_error: 0.0,
        end: chain_from(front, 0.0, &rows[0]),
        samples: 0,
    };
    for (k, &hold) in holds.iter().enumerate() {
        let (from, to) = (rows[k], rows[k + 1]);
        // A head clamped in B holds the chain fixed; a head gripping on the floor lets it roll
        // onto its other supports; both on the floors close the chain.
        let clamped = match hold {
            PassHold::Front => in_block(scene, &front),
            PassHold::Rear => in_block(scene, &rear),
            PassHold::Both => true,
        };
        let tips = std::cell::Cell::new(false);
        let at = |q: &LiftJoints| match (hold, clamped) {
            (PassHold::Front, true) => chain_from(front, 0.0, q),
            (PassHold::Rear | PassHold::Both, true) => chain_from_rear(rear, q),
            (h, false) => rolled(scene, if h == PassHold::Rear { rear } else { front }, h == PassHold::Rear, q).unwrap_or_else(|| {
                tips.set(true);
                if h == PassHold::Rear {
                    chain_from_rear(rear, q)
                } else {
                    chain_from(front, 0.0, q)
                }
            }),
        };
        let (first, last) = (at(&from), at(&to));
        let moved = |a: &Pose, b: &Pose| (a.x - b.x).hypot(a.z - b.z) > 1e-9 || (a.angle - b.angle).abs() > 1e-9;
        let moving = [moved(&first.front, &last.front), moved(&first.body, &last.body), moved(&first.rear, &last.rear)];
        let holding = [hold != PassHold::Rear, hold != PassHold::Front];
        let resting_here = resting(k);
        for q in segment_samples(&from, &to, dt) {
            let c = at(&q);
            for (i, &d) in clearances(scene, &c).iter().enumerate() {
                if resting_here.contains(&i) {
                    out.resting = out.resting.min(d);
                } else if d < out.least {
                    out.least = d;
                    out.worst = (PAIRS[i], k);
                }
            }
            let clamped_front = hold == PassHold::Front && in_block(scene, &front);
            let clamped_rear = hold == PassHold::Rear && in_block(scene, &rear);
            if clamped_front || clamped_rear {
                let (torque, force, grip) = if clamped_front {
                    let mut here = scene.clone();
                    here.front = front;
                    unfold::static_loads(&here, &q)
                } else {
                    rear_base_loads(scene, &c, &q)
                };
                out.torque = out.torque.max(torque);
                out.force = out.force.max(force);
                out.grip = out.grip.max(grip);
            } else {
                let r = rest(scene, &c, holding, moving);
                out.spare = out.spare.min(r.spare);
                out.inside = out.inside.min(if tips.get() { -1.0 } else { r.inside });
            }
            if hold == PassHold::Both {
                let e = (c.front.x - front.x).hypot(c.front.z - front.z) + (c.front.angle - front.angle).abs() * LEVER;
                out.loop_error = out.loop_error.max(e);
            }
            out.samples += 1;
        }
        front = last.front;
        rear = last.rear;
        out.end = last;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lift::{LiftLimits, CUBE_HALF};
    use super::super::motion::{LEAVE_U_PATH, LIFT_ONTO_FRONT_GRIP};
    use super::*;

    fn rounded(rows: &[LiftJoints]) -> Vec<LiftJoints> {
        rows.iter()
            .map(|q| {
                let mut r = *q;
                for (i, v) in r.iter_mut().enumerate() {
                    let unit = if i == 1 || i == 4 { 1e-4 } else { 1e-5 };
                    *v = (*v / unit).round() * unit;
                }
                r
            })
            .collect()
    }

    #[test]
    fn the_chain_from_the_rear_head_is_the_chain_from_the_front_head() {
        let scene = UnfoldScene::task1();
        for q in [PASS_PATH[4], PASS_PATH[11], [0.01, 0.3, 0.02, 0.005, -0.2, 0.017]] {
            let c = chain_from(scene.front, 0.0, &q);
            let d = chain_from_rear(c.rear, &q);
            for (a, b) in [(c.front, d.front), (c.body, d.body), (c.rear, d.rear)] {
                assert!((a.x - b.x).abs() < 1e-12 && (a.z - b.z).abs() < 1e-12 && (a.angle - b.angle).abs() < 1e-12, "{a:?} {b:?}");
            }
            // The rear head's loads are the mirrored chain's front head's: its links stand
            // where the chain's mirror image puts them.
            let m = chain_from(Pose { x: -c.rear.x, z: c.rear.z, angle: -c.rear.angle }, 0.0, &mirror(&q));
            for (a, b) in [(c.front, m.rear), (c.body, m.body), (c.rear, m.front)] {
                assert!((a.x + b.x).abs() < 1e-12 && (a.z - b.z).abs() < 1e-12, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn the_stored_pass_is_the_built_one_rounded_and_its_own_mirror_image_backwards() {
        let scene = UnfoldScene::task1();
        let (first, holds) = first_half(&scene);
        let (rows, all) = whole(&first, &holds);
        assert_eq!(rows.len(), PASS_PATH.len());
        for (a, b) in rounded(&rows).iter().zip(&PASS_PATH) {
            assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12), "{a:?} {b:?}");
        }
        assert_eq!(all, PASS_HOLDS.to_vec());
        assert_eq!(PASS_PATH[0], LEAVE_U_PATH[LEAVE_U_PATH.len() - 1]);
        // Run backwards, the pass is its mirror image: a mole passing the other way.
        let n = PASS_PATH.len();
        for k in 0..n {
            assert_eq!(PASS_PATH[n - 1 - k], mirror(&PASS_PATH[k]));
        }
        for k in 0..PASS_HOLDS.len() {
            assert_eq!(PASS_HOLDS[PASS_HOLDS.len() - 1 - k], PASS_HOLDS[k].mirrored());
        }
    }

    /// The stored pass as the firmware runs it, every 1 ms: 1 mm between every pair but those
    /// resting where they lie (no overlap), the joints in range, the static loads with a head
    /// clamped in B within the 0.245 N m / 15 N classes and the 1.04 N m clamp, and where
    /// friction holds the mass centre 10 mm inside the supports and the gripping heads'
    /// friction holding what slides however the weight spreads; the swap keeps the chain
    /// closed; it ends with the rear head clamped in B 18 mm from its centre towards the far
    /// cell and the mole straight at the tunnel's height: the mirror image of where it began.
    #[test]
    fn the_stored_pass_clears_everything_holds_and_ends_mirrored_on_the_far_side() {
        let scene = UnfoldScene::task1();
        let limits = LiftLimits { torque: 0.245, ..LiftLimits::actuators() };
        assert!(PASS_PATH.iter().all(|q| limits.in_range(q)));
        let n = PASS_HOLDS.len();
        let w = walk(&scene, &PASS_PATH, &PASS_HOLDS, |k| resting(k, n), 0.001);
        eprintln!("PASS_PATH: {w:?}");
        assert!(w.least >= limits.margin && w.resting > -1e-6, "{w:?}");
        assert!(w.torque <= limits.torque && w.force <= limits.force && w.grip <= 1.04, "{w:?}");
        assert!(w.inside > 0.01 && w.spare > 0.02, "{w:?}");
        assert!(w.loop_error < 1e-9, "{w:?}");
        let b = scene.block_b.x;
        assert!((w.end.rear.x - (b - LIFT_ONTO_FRONT_GRIP)).abs() < 1e-6, "{:?}", w.end);
        assert!((w.end.front.x - (b - LIFT_ONTO_FRONT_GRIP + 4.0 * LEVER)).abs() < 1e-6, "{:?}", w.end);
        for p in [w.end.front, w.end.body, w.end.rear] {
            assert!((p.z - scene.front.z).abs() < 1e-6 && p.angle.abs() < 1e-9, "{p:?}");
        }
        // The front head beyond B's far face at the end, the rear one clamped in B.
        assert!(w.end.front.x - CUBE_HALF > b + 0.5 * BLOCK && in_block(&scene, &w.end.rear));
    }

    /// Hand-made failures the walk catches: the rear head lifted off the floor before the
    /// swap (the bridge resting on the front head and B's far mouth alone tips back); the
    /// regrip 1 mm back, the body's rounded edge on the crossing's near lip (the push out
    /// then starts with the body and the front head both sliding on B's floor on either side
    /// of the mass centre, and the rear head's grip may carry nothing); and the front head pitched down to the far
    /// floor without the regrip (its universal joint still inside B: it runs into B).
    #[test]
    fn a_pass_without_the_swap_or_the_regrip_fails() {
        let scene = UnfoldScene::task1();
        let (first, holds) = first_half(&scene);
        let mut rows = first.clone();
        let mut lifted = first[first.len() - 1];
        lifted[4] = 0.0;
        rows.push(lifted);
        let mut h = holds.clone();
        h.push(PassHold::Front);
        let w = walk(&scene, &rows, &h, first_half_resting, 0.001);
        assert!(w.inside < 0.0, "{w:?}");
        // The regrip 1 mm back (the front head clamped 2 mm inside B's far face, the body's
        // rounded edge 0.035 mm over the crossing's near lip, as first run in the physics,
        // where the rear head's grip slid 23 mm back in the push out).
        let mut early = first.clone();
        early[4][2] -= 0.001;
        early[5][2] -= 0.001;
        for row in &mut early[6..=8] {
            row[3] -= 0.001;
        }
        let w = walk(&scene, &early, &holds, first_half_resting, 0.001);
        assert!(w.spare < 0.0 && w.least >= 0.001 && w.inside > 0.01, "{w:?}");
        // No regrip: after the first push the front head out of B (172 mm) and pitched down.
        let mut out = first[3];
        out[0] = TRAVEL;
        out[2] = TRAVEL;
        out[1] = -first[12][4];
        let rear = walk(&scene, &first[..4], &holds[..3], first_half_resting, 0.001).end.rear;
        let c = chain_from_rear(rear, &out);
        assert!(clearances(&scene, &c)[FRONT_B] < 0.0, "{c:?}");
    }
}
