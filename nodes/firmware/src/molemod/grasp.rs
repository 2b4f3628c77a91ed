//! Task 1's shift start with block A as the hold above C (issue #18): can the mole, lying
//! in B's and C's x tunnels after [`super::motion::Motion::TurnUp`] at C's crossing, get its
//! front head into A's x tunnel (through A's +x mouth, A upside down on B and screwed to it)
//! and use A as the hold above that [`super::follow`]'s keys need? The plane and frame are
//! the follow's (C's crossing at the origin, B behind at -x, A above B); the blocks are
//! task 1's ([`TASK1_BLOCKS`]), not [`super::follow::FOLLOW_BLOCKS`].
//!
//! A hand-over needs one configuration with both heads where they clamp. The front head
//! gets into A only from a rear hold that already leans up out of the x tunnel near C
//! ([`grips_in_a`]); the rear head gets drawn in only while the front head holds in C's
//! vertical tunnel ([`held_from_c`]). [`rear_holds`] scans the rear head's place along the
//! x tunnel for both: the two sets do not meet (docs "Anchoring the front head in A"). With
//! the front head held in C's x tunnel ahead of the crossing instead ([`held_ahead_in_c`]:
//! the mole crawled past the crossing) they do, 60-75 mm behind it; a reach from there
//! (example `molemod_grasp_reach_keys`) is found but for one phase.

use super::follow::{reach, Base, FollowLimits, Grip, TASK1_BLOCKS};
use super::lift::{LiftJoints, Pose, BLOCK, CUBE_HALF, TUNNEL_HALF};

const HALF_PI: f64 = 0.5 * std::f64::consts::PI;

/// A's +x face (the mouth facing C), m.
pub const A_MOUTH: f64 = -0.5 * BLOCK;

/// The grids a scan tries, each as (first, step, count).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GraspGrid {
    /// The rear head's height in the x tunnel, m.
    pub rear_z: (f64, f64, usize),
    /// The rear head's angle (+ = tilted up towards C), rad.
    pub rear_angle: (f64, f64, usize),
    /// The front head's centre across C's vertical tunnel, m.
    pub c_x: (f64, f64, usize),
    /// The front head's height in C's vertical tunnel, m (its centre inside C: below 50 mm).
    pub c_z: (f64, f64, usize),
    /// The front head's tilt from upright in C's vertical tunnel, rad.
    pub c_tilt: (f64, f64, usize),
    /// How far the front head's centre is inside A's +x face, m.
    pub a_depth: (f64, f64, usize),
    /// The front head's height in A's x tunnel, m.
    pub a_z: (f64, f64, usize),
    /// The front head's tilt from facing -x in A's x tunnel, rad.
    pub a_tilt: (f64, f64, usize),
    /// The grid step of [`super::follow::reach`]'s three free prismatic joints, m.
    pub step: f64,
}

impl GraspGrid {
    /// The grids of the stored scan: the rear head 5 mm either side of the x tunnel's axis
    /// in 2.5 mm steps, tilted -0.4 .. 0.5 rad in 0.1 rad steps; the front head in C's
    /// vertical tunnel 5 mm either side of its axis in 2.5 mm steps, 3 to 48 mm up in 4.5 mm
    /// steps (the turn up leaves it 23 mm up), tilted -0.8 .. 0.8 rad in 0.1 rad steps; in
    /// A 1 to 21 mm inside the mouth in 5 mm steps, 2.5 mm either side of the tunnel's axis,
    /// tilted -0.1 .. 0.1 rad in 0.05 rad steps; the joints in 10 mm steps.
    pub fn stored() -> Self {
        Self {
            rear_z: (-0.005, 0.0025, 5),
            rear_angle: (-0.4, 0.1, 10),
            c_x: (-0.005, 0.0025, 5),
            c_z: (0.003, 0.0045, 11),
            c_tilt: (-0.8, 0.1, 17),
            a_depth: (0.001, 0.005, 5),
            a_z: (BLOCK - 0.0025, 0.0025, 3),
            a_tilt: (-0.1, 0.05, 5),
            step: 0.01,
        }
    }
}

/// The values of a grid axis.
fn values((first, step, count): (f64, f64, usize)) -> impl Iterator<Item = f64> {
    (0..count).map(move |k| first + step * k as f64)
}

/// A configuration found for a hand-over: the other head's pose, the joints, their least
/// clearance (m).
pub type Hold = (Pose, LiftJoints, f64);

/// `limits` checked among [`TASK1_BLOCKS`].
fn among_task1(limits: &FollowLimits) -> FollowLimits {
    FollowLimits { blocks: &TASK1_BLOCKS, ..*limits }
}

/// A configuration with the rear head clamped at `rear` and the front head's centre in A's x
/// tunnel (inside A's +x face, facing -x within the grid's tilt) keeping to `limits`, the
/// first found over `grid`; `None` if none.
pub fn grips_in_a(rear: &Pose, limits: &FollowLimits, grid: &GraspGrid) -> Option<Hold> {
    let grip = Grip { base: Base::Rear, pose: *rear };
    for depth in values(grid.a_depth) {
        for z in values(grid.a_z) {
            for tilt in values(grid.a_tilt) {
                let front = Pose { x: A_MOUTH - depth, z, angle: std::f64::consts::PI + tilt };
                if let Some((q, d)) = reach(&grip, &among_task1(limits), &front, grid.step, None) {
                    return Some((front, q, d));
                }
            }
        }
    }
    None
}

/// A configuration with the front head clamped in C's vertical tunnel (its centre inside C)
/// and the rear head at `rear` keeping to `limits`, the first found over `grid`; `None` if
/// none.
pub fn held_from_c(rear: &Pose, limits: &FollowLimits, grid: &GraspGrid) -> Option<Hold> {
    for x in values(grid.c_x) {
        for z in values(grid.c_z) {
            for tilt in values(grid.c_tilt) {
                let front = Pose { x, z, angle: HALF_PI + tilt };
                if z + 1e-9 >= 0.5 * BLOCK || x.abs() + CUBE_HALF > TUNNEL_HALF + 1e-9 {
                    continue;
                }
                let grip = Grip { base: Base::Front, pose: front };
                if let Some((q, d)) = reach(&grip, &among_task1(limits), rear, grid.step, None) {
                    return Some((front, q, d));
                }
            }
        }
    }
    None
}

/// A configuration with the front head clamped in C's x tunnel ahead of the crossing (its
/// centre 0 to 45 mm to +x of it, 5 mm either side of the tunnel's axis in 2.5 mm steps,
/// tilted up to 0.4 rad either way in 0.1 rad steps: the mole crawled past the crossing
/// instead of turning up) and the rear head at `rear` keeping to `limits`, the first found
/// (`grid`'s joint step); `None` if none.
pub fn held_ahead_in_c(rear: &Pose, limits: &FollowLimits, grid: &GraspGrid) -> Option<Hold> {
    for x in values((0.0, 0.005, 10)) {
        for z in values((-0.005, 0.0025, 5)) {
            for tilt in values((-0.4, 0.1, 9)) {
                let grip = Grip { base: Base::Front, pose: Pose { x, z, angle: tilt } };
                if let Some((q, d)) = reach(&grip, &among_task1(limits), rear, grid.step, None) {
                    return Some((grip.pose, q, d));
                }
            }
        }
    }
    None
}

/// One rear head place along the x tunnel: which hand-overs it allows.
#[derive(Clone, Debug, PartialEq)]
pub struct RearHold {
    /// The rear head's centre along the x tunnel, m (from C's crossing).
    pub x: f64,
    /// The first rear pose (over the grid's heights and tilts) from which the front head
    /// grips in A, and that grip.
    pub to_a: Option<(Pose, Hold)>,
    /// The first rear pose the front head holding in C's vertical tunnel can draw the rear
    /// head to, and that hold.
    pub from_c: Option<(Pose, Hold)>,
    /// A rear pose that allows both, if any.
    pub both: Option<Pose>,
    /// A rear pose the front head holding in C's x tunnel ahead of the crossing
    /// ([`held_ahead_in_c`]) draws the rear head to and from which the front head grips in
    /// A, if any.
    pub ahead_and_a: Option<Pose>,
}

/// Scans the rear head's centre along the x tunnel at each of `xs` (m) over `grid`'s heights
/// and tilts: from which places the front head grips in A, and to which the front head
/// holding in C draws the rear head.
pub fn rear_holds(xs: &[f64], limits: &FollowLimits, grid: &GraspGrid) -> Vec<RearHold> {
    xs.iter()
        .map(|&x| {
            let mut h = RearHold { x, to_a: None, from_c: None, both: None, ahead_and_a: None };
            for z in values(grid.rear_z) {
                for angle in values(grid.rear_angle) {
                    let rear = Pose { x, z, angle };
                    let a = grips_in_a(&rear, limits, grid);
                    let c = held_from_c(&rear, limits, grid);
                    if a.is_some() && c.is_some() && h.both.is_none() {
                        h.both = Some(rear);
                    }
                    if a.is_some() && h.ahead_and_a.is_none() && held_ahead_in_c(&rear, limits, grid).is_some() {
                        h.ahead_and_a = Some(rear);
                    }
                    if h.to_a.is_none() {
                        h.to_a = a.map(|a| (rear, a));
                    }
                    if h.from_c.is_none() {
                        h.from_c = c.map(|c| (rear, c));
                    }
                }
            }
            h
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::molemod::follow::{clearances_in, in_tunnel_in, links, FOLLOW_REAR_START, FOLLOW_START};

    /// The rear head's places along the x tunnel the test tries, m: 90 to 60 mm behind C's
    /// crossing in 5 mm steps, round where the two kinds of hold meet (the example scans
    /// 100 to 40 mm: farther from C only the hold from C, nearer only the grip in A).
    fn xs() -> Vec<f64> {
        (0..=6).map(|k| -0.09 + 0.005 * f64::from(k)).collect()
    }

    /// The stored grid's scan (docs): the front head holding in C draws the rear head no nearer C
    /// than 75 mm behind the crossing, lying level or tilted down; the front head grips in A
    /// only from a rear head 75 mm or nearer, tilted up; no rear pose allows both, so no
    /// hand-over through B's, C's and A's tunnels puts the front head in A.
    #[test]
    fn the_holds_in_c_and_in_a_do_not_meet() {
        let limits = FollowLimits::actuators();
        let holds = rear_holds(&xs(), &limits, &GraspGrid::stored());
        for h in &holds {
            eprintln!(
                "rear head at {:6.1} mm: front in C holds it {:5} {}; front grips in A {:5} {}",
                h.x * 1e3,
                h.from_c.is_some(),
                h.from_c.as_ref().map_or(String::new(), |(r, (f, _, d))| format!(
                    "(rear z {:.1} mm, {:.2} rad; front ({:.1}, {:.1}) mm, {:.2} rad; {:.2} mm)",
                    r.z * 1e3,
                    r.angle,
                    f.x * 1e3,
                    f.z * 1e3,
                    f.angle,
                    d * 1e3
                )),
                h.to_a.is_some(),
                h.to_a.as_ref().map_or(String::new(), |(r, (f, _, d))| format!(
                    "(rear z {:.1} mm, {:.2} rad; front ({:.1}, {:.1}) mm, {:.2} rad; {:.2} mm)",
                    r.z * 1e3,
                    r.angle,
                    f.x * 1e3,
                    f.z * 1e3,
                    f.angle,
                    d * 1e3
                )),
            );
        }
        assert!(holds.iter().all(|h| h.both.is_none()));
        // Held ahead of the crossing instead, the front head draws the rear head where it
        // reaches A from: 75 to 65 mm behind the crossing (at 60 mm only with the clamped
        // front head 0.1 mm or more into C's wall, which the limits refuse).
        let ahead: Vec<f64> = holds.iter().filter(|h| h.ahead_and_a.is_some()).map(|h| h.x).collect();
        eprintln!("held ahead and gripping A: {ahead:?}");
        assert!(ahead.len() == 3 && (ahead[0] + 0.075).abs() < 1e-9 && (ahead[2] + 0.065).abs() < 1e-9, "{ahead:?}");
        let nearest_c = holds.iter().filter(|h| h.from_c.is_some()).map(|h| h.x).fold(f64::NEG_INFINITY, f64::max);
        let farthest_a = holds.iter().filter(|h| h.to_a.is_some()).map(|h| h.x).fold(f64::INFINITY, f64::min);
        assert!((nearest_c + 0.075).abs() < 1e-9 && (farthest_a + 0.075).abs() < 1e-9, "{nearest_c} {farthest_a}");
        let overlap = holds.iter().find(|h| h.from_c.is_some() && h.to_a.is_some()).expect("a place both ways");
        let (from_c, to_a) = (overlap.from_c.as_ref().map(|h| h.0.angle), overlap.to_a.as_ref().map(|h| h.0.angle));
        assert!(from_c.is_some_and(|a| a <= 0.0) && to_a.is_some_and(|a| a >= 0.2), "{from_c:?} {to_a:?}");
    }

    /// Where the turn up leaves the mole (the follow's start) is a hold the scan finds: the
    /// rear head lying in B, the front head upright in C.
    #[test]
    fn the_turn_ups_end_is_a_hold_in_task_1() {
        let l = links(&Grip { base: Base::Rear, pose: FOLLOW_REAR_START }, &FOLLOW_START);
        assert!(in_tunnel_in(&TASK1_BLOCKS, (l.front.x, l.front.z)) && in_tunnel_in(&TASK1_BLOCKS, (l.rear.x, l.rear.z)));
        let d = clearances_in(&TASK1_BLOCKS, &l);
        assert!(d[1].abs() < 1e-9 && d.iter().all(|v| *v > -1e-9), "{d:?}");
        // Nothing above C: a head 55 mm above the crossing (the follow's first hold) is in no
        // block.
        assert!(!in_tunnel_in(&TASK1_BLOCKS, (0.0, 0.055)) && in_tunnel_in(&TASK1_BLOCKS, (A_MOUTH - 0.001, BLOCK)));
    }
}
