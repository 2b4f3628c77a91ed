//! Planar model of the step between block B's x tunnel and the floor of the empty cell
//! beside it (issue #18): from where [`super::motion::LEAVE_U_PATH`] ends (the mole straight
//! along B's tunnel at the tunnel's height, the front head clamped in B
//! [`super::motion::LIFT_ONTO_FRONT_GRIP`] from B's centre, the rear half over the empty
//! cell, 25 mm above its floor) into the tunnels of B and the third block C, both heads
//! lying on the tunnel floor, from where the crawl goes on; and the same phases backwards.
//!
//! The scene, chain, shapes, clearances and static loads are [`super::unfold`]'s (task 1's
//! row after the lift, every block fixed). The phases alternate holds ([`Hold`]):
//!
//! - the set down (front hold: the front head clamped in B is the chain's base, the
//!   physics clamping a gripping head whose centre is inside a block): the rear link
//!   pitches down until the rear head, tilted, rests on its back edge on the floor of the
//!   empty cell; the body stays level at the tunnel's height;
//! - the push (rear hold: the rear head grips on the floor by friction from the weight it
//!   carries; the front head slides): `prismatic_2`, then `prismatic_1` and `prismatic_0`
//!   open, each along the level body and front link, pushing the body onto the floor of
//!   B's tunnel mouth and the front head along B's tunnel, over B's crossing (the vertical
//!   tunnel, x = 75-125 mm, a hole in the tunnel floor) and into C. The held mole is one
//!   rigid body resting on the rear head's edge and on the flat bottoms of the body and the
//!   front head where they lie over solid tunnel floor; [`floor_hold`] checks that its mass
//!   centre lies between those supports and that the rear head's friction holds the pushes
//!   (the body and the front head sliding);
//! - the draw in (front hold, the front head now clamped in C): the rear head rises level
//!   and every prismatic joint closes, drawing the rear half up the step into B's mouth
//!   and along its tunnel floor: the mole lies straight and contracted in B and C.
//!
//! A phase with the rear hold moves only prismatic joints along level links, so the front
//! head's world position follows from how far they opened ([`front_at`]). The front head
//! only ever lies level on the tunnels' floor at their height (held, or pushed along it),
//! so, as in [`super::unfold`], its pairs with the blocks are not checked; the pairs
//! resting where they slide ([`StepPhase::resting`]) may touch, not overlap.

use super::lift::{chain_from, segment_samples, Chain, LiftJoints, Pose, BLOCK, CUBE_HALF, CUBE_MASS, CUBE_ROUNDING};
use super::lift::{GRAVITY, JOINT_CUBE_MASS, TRAVEL, TUNNEL_HALF};
use super::unfold::{self, UnfoldScene, STRAIGHT};

/// Friction coefficient of a gripping head (the physics' `head_grip` on).
pub const GRIP_FRICTION: f64 = 1.0;
/// Friction coefficient of a sliding head and of the body (the physics' `head_grip` off).
pub const SLIDE_FRICTION: f64 = 0.02;
/// Weight of the whole mole, N: three 40 mm cubes and two joint cubes at each universal
/// joint.
pub const MOLE_WEIGHT: f64 = (3.0 * CUBE_MASS + 4.0 * JOINT_CUBE_MASS) * GRAVITY;
/// Half the length of a main cube's flat bottom, m (its side less the rounded edges).
pub const FLAT_HALF: f64 = CUBE_HALF - CUBE_ROUNDING;
/// How far above the floor the set down brings the rear head before it touches, m.
pub const HOVER_GAP: f64 = 0.0015;
/// Index of "body - block B" in [`unfold::PAIRS`]: the body slides on B's tunnel floor.
pub const BODY_BLOCK_B: usize = 5;
/// Index of "rear head - block B" in [`unfold::PAIRS`]: the rear head is drawn in along
/// B's tunnel floor.
pub const REAR_HEAD_BLOCK_B: usize = 6;
/// Index of "rear head - floor" in [`unfold::PAIRS`].
pub const REAR_HEAD_FLOOR: usize = 10;

/// Which head holds in a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    /// The front head grips, clamped in a block: the chain's base; the rear one is loose.
    Front,
    /// The rear head grips on the floor; the front one slides.
    Rear,
}

/// The pitch of `universal_1_axis2` (rad) that, with the body level at the tunnel's height
/// and `prismatic_3` at `rear_shift` (m), leaves the rear head's lowest point `gap` (m) above
/// the floor (bisection; the rear head tilts down away from the body).
pub fn rear_pitch_to_floor(scene: &UnfoldScene, rear_shift: f64, gap: f64) -> f64 {
    let floor_gap =
        |pitch: f64| unfold::clearances(scene, &unfold::chain(scene, &[0.0, 0.0, 0.0, 0.0, pitch, rear_shift]))[REAR_HEAD_FLOOR];
    // Level (gap 25 mm) at 0, below the floor at -1.2 rad.
    let (mut level, mut down) = (0.0, -1.2);
    for _ in 0..60 {
        let mid = 0.5 * (level + down);
        if floor_gap(mid) > gap {
            level = mid;
        } else {
            down = mid;
        }
    }
    0.5 * (level + down)
}

/// One phase of the step: the joints it ends at, which head holds, and the pairs of
/// [`unfold::PAIRS`] that rest on what they slide on in it (allowed to touch, not to
/// overlap).
#[derive(Clone, Debug, PartialEq)]
pub struct StepPhase {
    /// Joint targets, in the order of [`LiftJoints`].
    pub to: LiftJoints,
    /// The head that holds.
    pub hold: Hold,
    /// Indices of [`unfold::PAIRS`] resting on each other.
    pub resting: Vec<usize>,
}

/// The step from the straight mole ([`STRAIGHT`], where [`super::motion::LEAVE_U_PATH`]
/// ends) to the mole lying straight and contracted in the tunnels of B and C: the set down
/// (the rear head tilted to [`HOVER_GAP`] over the floor with `prismatic_3` open, then onto
/// it), the push (`prismatic_2`: the body onto B's tunnel floor; `prismatic_1` and
/// `prismatic_0`: the front head over B's crossing into C), the draw in (the rear head
/// lifted level; every joint to zero). Run backwards (each phase from its end to its start,
/// same hold) it steps out.
pub fn step_in_phases(scene: &UnfoldScene) -> Vec<StepPhase> {
    let hover = [0.0, 0.0, 0.0, 0.0, rear_pitch_to_floor(scene, TRAVEL, HOVER_GAP), TRAVEL];
    let mut down = hover;
    down[4] = rear_pitch_to_floor(scene, TRAVEL, 0.0);
    let mut body_in = down;
    body_in[3] = TRAVEL;
    let mut front_in = body_in;
    front_in[0] = TRAVEL;
    front_in[2] = TRAVEL;
    let mut lifted = front_in;
    lifted[4] = 0.0;
    let phase = |to, hold, resting: &[usize]| StepPhase { to, hold, resting: resting.to_vec() };
    vec![
        phase(hover, Hold::Front, &[]),
        phase(down, Hold::Front, &[REAR_HEAD_FLOOR]),
        phase(body_in, Hold::Rear, &[REAR_HEAD_FLOOR, BODY_BLOCK_B]),
        phase(front_in, Hold::Rear, &[REAR_HEAD_FLOOR, BODY_BLOCK_B]),
        phase(lifted, Hold::Front, &[REAR_HEAD_FLOOR, BODY_BLOCK_B]),
        phase(STRAIGHT, Hold::Front, &[BODY_BLOCK_B, REAR_HEAD_BLOCK_B]),
    ]
}

/// The step as the firmware runs it: [`step_in_phases`]' rows from [`STRAIGHT`], rounded to
/// 10 um and 0.1 mrad (the rear head's pitch towards level, so it stops within 6 um above
/// the floor rather than in it): `cargo run --release -p flotilla_firmware --example
/// molemod_step_search` prints them. Each row after the first is a phase with the hold of
/// [`STEP_IN_HOLDS`] at the same index less one.
pub const STEP_IN_PATH: [[f64; 6]; 7] = [
    STRAIGHT,
    [0.0, 0.0, 0.0, 0.0, -0.3359, 0.03],
    [0.0, 0.0, 0.0, 0.0, -0.3593, 0.03],
    [0.0, 0.0, 0.0, 0.03, -0.3593, 0.03],
    [0.03, 0.0, 0.03, 0.03, -0.3593, 0.03],
    [0.03, 0.0, 0.03, 0.03, 0.0, 0.03],
    STRAIGHT,
];

/// The hold of each phase of [`STEP_IN_PATH`] (the phase to row `k + 1`).
pub const STEP_IN_HOLDS: [Hold; 6] = [Hold::Front, Hold::Front, Hold::Rear, Hold::Rear, Hold::Front, Hold::Front];

/// [`STEP_IN_PATH`] and [`STEP_IN_HOLDS`] as phases, with [`step_in_phases`]' resting pairs.
pub fn stored_phases(scene: &UnfoldScene) -> Vec<StepPhase> {
    step_in_phases(scene)
        .into_iter()
        .zip(STEP_IN_PATH[1..].iter().zip(STEP_IN_HOLDS))
        .map(|(p, (&to, hold))| StepPhase { to, hold, resting: p.resting })
        .collect()
}

/// How far along the row the front head stands with the joints `q` (m), the rear head held
/// and the front head at `from_x` (m) with the joints `from`: the prismatic joints between
/// the front head and the rear universal joint lie along the level body and front link, so
/// each pushes the front head as far as it opens.
pub fn front_at(from_x: f64, from: &LiftJoints, q: &LiftJoints) -> f64 {
    from_x + (q[0] - from[0]) + (q[2] - from[2]) + (q[3] - from[3])
}

/// The stretch of solid tunnel floor under a cube level in the row's x tunnels with its
/// centre at `x` (m): the hull of where its flat bottom lies over B's or the third block's
/// floor columns (the crossings are holes), `None` if nowhere.
pub fn tunnel_floor_patch(scene: &UnfoldScene, x: f64) -> Option<(f64, f64)> {
    let (lo, hi) = (x - FLAT_HALF, x + FLAT_HALF);
    let mut hull: Option<(f64, f64)> = None;
    for centre in [scene.block_b.x, scene.third.x] {
        for (a, b) in [(centre - 0.5 * BLOCK, centre - TUNNEL_HALF), (centre + TUNNEL_HALF, centre + 0.5 * BLOCK)] {
            let (a, b) = (a.max(lo), b.min(hi));
            if b > a {
                hull = Some(hull.map_or((a, b), |(p, q)| (p.min(a), q.max(b))));
            }
        }
    }
    hull
}

/// The x of the held mole's mass centre, m.
pub fn mass_centre(c: &Chain) -> f64 {
    let masses = [
        (CUBE_MASS, c.front.x),
        (2.0 * JOINT_CUBE_MASS, c.joint_front.0),
        (CUBE_MASS, c.body.x),
        (2.0 * JOINT_CUBE_MASS, c.joint_rear.0),
        (CUBE_MASS, c.rear.x),
    ];
    masses.iter().map(|(m, x)| m * x).sum::<f64>() / masses.iter().map(|(m, _)| m).sum::<f64>()
}

/// Where the rear head touches the floor along the row, m: its lowest rounded edge.
pub fn rear_contact(c: &Chain) -> f64 {
    lowest_edge(&c.rear).0
}

/// The centre of the lowest rounded edge of a main cube at `pose` (m; the first of two
/// level ones): where it rests on what is under it.
pub fn lowest_edge(pose: &Pose) -> (f64, f64) {
    [(-FLAT_HALF, -FLAT_HALF), (FLAT_HALF, -FLAT_HALF), (-FLAT_HALF, FLAT_HALF), (FLAT_HALF, FLAT_HALF)]
        .iter()
        .map(|&p| pose.apply(p))
        .fold((pose.x, f64::INFINITY), |low, p| if p.1 < low.1 { p } else { low })
}

/// How the held mole rests with the rear head gripping on the floor and the body and the
/// front head on the tunnel floor (joints held: one rigid body), at its worst: over every
/// way its weight can spread over the supports (the rear head's contact, anywhere on the
/// body's and the front head's flat bottoms over solid floor), the one that leaves the
/// least friction to spare. Such a spread is a linear programme whose corners carry the
/// weight on two support points bracketing the mass centre, so the corners are checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloorHold {
    /// Least friction to spare, N: what holds (the rear head's grip, [`GRIP_FRICTION`] on
    /// its weight, and the sliding friction of the body where it does not move) less what
    /// the push needs ([`SLIDE_FRICTION`] on the weight of what moves); negative: the rear
    /// head may slip.
    pub spare: f64,
    /// The rear head's weight at that corner, N.
    pub rear_normal: f64,
    /// How far the mass centre lies inside the span from the rear head's contact to the
    /// farthest support ahead, m; negative: the mole tips.
    pub inside: f64,
    /// Whether the front head rests on solid tunnel floor.
    pub front_rests: bool,
}

/// [`FloorHold`] of the chain `c` (the rear head on the floor, the body and the front head
/// level at the tunnel's height); `body_moves`: the push slides the body too (`prismatic_2`
/// opens), not only the front head.
pub fn floor_hold(scene: &UnfoldScene, c: &Chain, body_moves: bool) -> FloorHold {
    let centre = mass_centre(c);
    let contact = rear_contact(c);
    let body = tunnel_floor_patch(scene, c.body.x);
    let front = tunnel_floor_patch(scene, c.front.x);
    // Support points: where, and what a unit of weight there adds to what is spare.
    let mut points = vec![(contact, GRIP_FRICTION)];
    let body_spare = if body_moves { -SLIDE_FRICTION } else { SLIDE_FRICTION };
    for (patch, spare) in [(body, body_spare), (front, -SLIDE_FRICTION)] {
        if let Some((a, b)) = patch {
            points.extend([(a, spare), (b, spare)]);
        }
    }
    let farthest = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let mut worst = FloorHold {
        spare: f64::INFINITY,
        rear_normal: 0.0,
        inside: (centre - contact).min(farthest - centre),
        front_rests: front.is_some(),
    };
    for (i, &(p, sp)) in points.iter().enumerate() {
        for &(q, sq) in &points[i + 1..] {
            let (lo, hi) = (p.min(q), p.max(q));
            if hi - lo < 1e-12 || centre < lo || centre > hi {
                continue;
            }
            let (np, nq) = (MOLE_WEIGHT * (q - centre) / (q - p), MOLE_WEIGHT * (centre - p) / (q - p));
            let spare = np * sp + nq * sq;
            if spare < worst.spare {
                worst.spare = spare;
                worst.rear_normal = if i == 0 { np } else { 0.0 };
            }
        }
    }
    worst
}

/// What the step meets as the firmware runs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepWalk {
    /// Least clearance of every pair of [`unfold::PAIRS`] not resting on what it slides on
    /// (the rear head on the floor once set down, the body on B's tunnel floor in the
    /// push, the rear head on it in the draw in), m.
    pub least: f64,
    /// The pair that has it.
    pub worst: &'static str,
    /// Least clearance of the resting pairs, m (0: touching; negative: overlapping).
    pub resting: f64,
    /// Largest static torque on a universal joint's pitch axis with the front hold (the
    /// front head the base, nothing else carrying), N m.
    pub torque: f64,
    /// Largest static force along a prismatic joint with the front hold, N.
    pub force: f64,
    /// Largest moment on the front head's clamp, N m.
    pub grip: f64,
    /// Least [`FloorHold::spare`] in the pushes, N.
    pub spare: f64,
    /// [`FloorHold::rear_normal`] where it is least, N.
    pub rear_normal: f64,
    /// Least [`FloorHold::inside`] in the pushes, m.
    pub inside: f64,
    /// Samples checked.
    pub samples: usize,
}

/// Walks `phases` from [`STRAIGHT`] (as [`step_in_phases`] gives them) as the firmware runs
/// them, every `dt` s, forwards or `backwards` (from the last phase's end to the start, each
/// phase with its own hold). The front head's world position: where the scene grips it,
/// moved by the pushes before.
pub fn walk(scene: &UnfoldScene, phases: &[StepPhase], backwards: bool, dt: f64) -> StepWalk {
    let mut out = StepWalk {
        least: f64::INFINITY,
        worst: "",
        resting: f64::INFINITY,
        torque: 0.0,
        force: 0.0,
        grip: 0.0,
        spare: f64::INFINITY,
        rear_normal: 0.0,
        inside: f64::INFINITY,
        samples: 0,
    };
    // The joints and the front head's position before each phase and after the last.
    let mut rows = vec![(STRAIGHT, scene.front.x)];
    for p in phases {
        let (q, x) = rows[rows.len() - 1];
        let x = if p.hold == Hold::Rear { x + (p.to[0] - q[0]) + (p.to[2] - q[2]) + (p.to[3] - q[3]) } else { x };
        rows.push((p.to, x));
    }
    let order: Vec<usize> = if backwards { (0..phases.len()).rev().collect() } else { (0..phases.len()).collect() };
    for k in order {
        let p = &phases[k];
        let ((from, from_x), (to, _)) = if backwards { (rows[k + 1], rows[k]) } else { (rows[k], rows[k + 1]) };
        for q in segment_samples(&from, &to, dt) {
            let x = match p.hold {
                Hold::Front => from_x,
                Hold::Rear => front_at(from_x, &from, &q),
            };
            let mut here = scene.clone();
            here.front.x = x;
            let c = chain_from(here.front, 0.0, &q);
            for (i, &d) in unfold::clearances(&here, &c).iter().enumerate() {
                if p.resting.contains(&i) {
                    out.resting = out.resting.min(d);
                } else if d < out.least {
                    out.least = d;
                    out.worst = unfold::PAIRS[i];
                }
            }
            match p.hold {
                Hold::Front => {
                    let (torque, force, grip) = unfold::static_loads(&here, &q);
                    out.torque = out.torque.max(torque);
                    out.force = out.force.max(force);
                    out.grip = out.grip.max(grip);
                }
                Hold::Rear => {
                    let h = floor_hold(&here, &c, from[3] != to[3]);
                    if h.spare < out.spare {
                        out.spare = h.spare;
                        out.rear_normal = h.rear_normal;
                    }
                    out.inside = out.inside.min(h.inside);
                }
            }
            out.samples += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lift::{LiftLimits, Pose};
    use super::super::motion::LEAVE_U_PATH;
    use super::*;

    #[test]
    fn the_front_head_rests_on_the_tunnel_floor_only_off_the_crossing() {
        let scene = UnfoldScene::task1();
        // At the straight pose's 82 mm: 9 mm of its flat bottom over B's floor (x 50-75 mm).
        let (a, b) = tunnel_floor_patch(&scene, scene.front.x).expect("rests");
        assert!((a - 0.066).abs() < 1e-9 && (b - 0.075).abs() < 1e-9, "{a} {b}");
        // Over the crossing's middle, or its flat bottom 1 mm past the crossing's edge:
        // nothing under it.
        assert_eq!(tunnel_floor_patch(&scene, 0.1), None);
        assert_eq!(tunnel_floor_patch(&scene, 0.092), None);
        // Across B's and the third block's faces: one stretch.
        let (a, b) = tunnel_floor_patch(&scene, 0.15).expect("rests");
        assert!((a - 0.134).abs() < 1e-9 && (b - 0.166).abs() < 1e-9, "{a} {b}");
    }

    #[test]
    fn the_step_starts_where_leaving_the_u_ends_and_sets_the_rear_head_on_the_floor() {
        let scene = UnfoldScene::task1();
        assert_eq!(LEAVE_U_PATH[LEAVE_U_PATH.len() - 1], STEP_IN_PATH[0]);
        let phases = step_in_phases(&scene);
        let down = unfold::chain(&scene, &phases[1].to);
        assert!(unfold::clearances(&scene, &down)[REAR_HEAD_FLOOR].abs() < 1e-9);
        // The rear head over the empty cell, tilted down away from the body, the body level.
        assert!(down.rear.x + CUBE_HALF < scene.block_b.x - 0.5 * BLOCK && down.rear.angle > 0.0 && down.body.angle == 0.0, "{down:?}");
        // The stored table is the built one, rounded.
        for (p, (row, hold)) in phases.iter().zip(STEP_IN_PATH[1..].iter().zip(STEP_IN_HOLDS)) {
            assert_eq!(p.hold, hold);
            assert!(p.to.iter().zip(row).all(|(a, b)| (a - b).abs() < 1e-4), "{:?} {row:?}", p.to);
        }
        // Where the push leaves the front head (in the third block) and the draw in the rear
        // one (in B, on its tunnel floor): both heads' centres inside a block, so both clamp.
        let front = STEP_IN_PATH
            .windows(2)
            .zip(STEP_IN_HOLDS)
            .filter(|(_, h)| *h == Hold::Rear)
            .fold(scene.front.x, |x, (w, _)| front_at(x, &w[0], &w[1]));
        assert!((front - 0.172).abs() < 1e-9, "{front}");
        let end = chain_from(Pose { x: front, ..scene.front }, 0.0, &STRAIGHT);
        assert!((end.rear.x - 0.060).abs() < 1e-9 && (end.rear.x - scene.block_b.x).abs() < 0.5 * BLOCK);
        assert!((end.front.x - scene.third.x).abs() < 0.5 * BLOCK);
    }

    /// The stored step run as the firmware runs it (each phase all its joints at once at
    /// their speeds), sampled every 1 ms, forwards (stepping in) and backwards (stepping out
    /// to the straight mole): every pair keeps 1 mm but those resting where they slide (no
    /// overlap), the joints within range, the static loads with the front head holding
    /// within the 0.245 N m / 15 N classes and the 1.04 N m clamp, and with the rear head
    /// holding on the floor the mole rests on its supports (its mass centre 10 mm inside
    /// them) and the rear head's grip holds the pushes however the weight spreads.
    #[test]
    fn the_stored_step_clears_everything_and_the_floor_holds_both_ways() {
        let scene = UnfoldScene::task1();
        let limits = LiftLimits { torque: 0.245, ..LiftLimits::actuators() };
        assert!(STEP_IN_PATH.iter().all(|q| limits.in_range(q)));
        let phases = stored_phases(&scene);
        for backwards in [false, true] {
            let w = walk(&scene, &phases, backwards, 0.001);
            eprintln!("STEP_IN_PATH {}: {w:?}", if backwards { "backwards" } else { "forwards" });
            assert!(w.least >= limits.margin && w.resting > -1e-6, "{w:?}");
            assert!(w.torque <= limits.torque && w.force <= limits.force && w.grip <= 1.04, "{w:?}");
            assert!(w.inside > 0.01 && w.spare > 0.02, "{w:?}");
        }
        // A hand-made failure: the front head pushed first (`prismatic_0` and `prismatic_1`
        // before `prismatic_2`) crosses B's crossing before the body rests on B's tunnel
        // floor, and the mole tips about the rear head.
        let mut wrong = phases.clone();
        wrong.swap(2, 3);
        wrong[2].to[3] = 0.0;
        let w = walk(&scene, &wrong, false, 0.001);
        assert!(w.inside < 0.0, "{w:?}");
    }
}
