//! Planar model of the way on from where [`super::motion::Motion::PushOver`] ends (issue #18,
//! task 1's put down and tasks 2/3's shift again): A rolled a quarter turn onto C, the mole
//! bent with its lower head in B's vertical tunnel, the body leaning out of B's top mouth and
//! the upper head lying level in A's crossing.
//!
//! The scene is [`super::follow`]'s model (cubes, joint discs and rods, static loads, the
//! 0.75 mm margin, the 0.52 N m / 15 N limits, gravity down) round C's crossing: C at the
//! origin, B behind it (-x), A on C ([`AFTER_PUSH_BLOCKS`]); the cell above B and cell 3 are
//! empty. The chain is named as the push over's model names it: its base, the lower head in
//! B, is the model's rear head; the upper head, in A, is its front head (with
//! `PushOver { lead: Rear, flipped: true }` the physical front and rear heads respectively).
//!
//! The route checked (the tests): the upper head turning down at A's crossing into A's
//! vertical tunnel and on into C's, the rest of the mole following out of B through A into
//! the column. It needs a hand-over: while the lower head holds upright in B's vertical
//! tunnel the upper one reaches no lower than 39 mm above C's crossing, while a hold for the
//! other head in A exists only with it at 38 mm or lower ([`hand_over`]); with the lower head
//! tilted 0.1 rad in B a few grips at 37.5-39 mm have both holds (the one in A the straight
//! mole's head 0.5 mm inside A's top face), but RRT-connect finds no phase between the two
//! holds ([`hand_over_holds`]). No search can: at those grips the clamped head overlaps the
//! column's wall by 0.27-0.96 mm, and the body, turning from A's -x mouth into A's column
//! about the upper joint, has no room from 129 to 139 degrees at any of them ([`body_room`],
//! [`body_direction`]). At some shared grips clear of the wall (3.75 mm to +x) the body
//! and both joints do have room; no search has found the phase there.
//! Led the other way (the lower head down the column, the upper head standing in A's vertical
//! tunnel above the crossing) the body and its joints have no room either, with the upper
//! head's centre at least 5 mm inside A (docs/molemod_execution.md, "The way into the C/A
//! column, by the body's turn (issue #18, mole-keys)"). The other way down, the lower
//! head turning into B's x tunnel under the upper head anchored in A, does not reach B's x
//! tunnel with the upper head where the push over leaves it (docs/molemod_execution.md,
//! "The way on from the push over's end"); with the upper head moved to A's -x mouth it
//! does ([`super::down_turn`]).
//!
//! Out of B onto its top instead ([`hold_over_b_top`]): with the upper head gripping where
//! the push over leaves it, two phases take the lower head up B's tunnel and out, resting its
//! edge on the far rim of B's top; `StepIn`'s set down mirrored into A rests there with the
//! upper head lying 3-18 mm past A's crossing ("Into A's tunnel over B's top (mole-intoa)").

use super::follow::{clearances_in, links, reach, Base, FollowLimits, Grip};
use super::lift::{LiftJoints, Pose, AXIS_BELOW, BLOCK, CUBE_HALF, CUBE_ROUNDING, LEVER, TRAVEL, TUNNEL_HALF};
use super::push_over::{chain, stored_scene, PUSH_OVER_PATH};
use super::step::lowest_edge;

const HALF_PI: f64 = 0.5 * std::f64::consts::PI;

/// Task 1's blocks after the push over, centred round C's crossing (x from B towards C, z
/// up), m: C, B behind it, A on C (the same solid as before its quarter turn).
pub static AFTER_PUSH_BLOCKS: [(f64, f64); 3] = [(0.0, 0.0), (-BLOCK, 0.0), (0.0, BLOCK)];

/// A head's own clearance from [`AFTER_PUSH_BLOCKS`] and the floor at `pose`, m: for a clamped
/// head, which [`FollowLimits::check`] lets touch its wall (within
/// [`super::follow::CLAMP_TOLERANCE`]), where a scan keeps it clear.
pub fn head_clearance(pose: &Pose) -> f64 {
    super::follow::solid_clearance_in(&AFTER_PUSH_BLOCKS, pose)
}

/// [`FollowLimits::actuators`] among [`AFTER_PUSH_BLOCKS`].
pub fn limits() -> FollowLimits {
    FollowLimits { blocks: &AFTER_PUSH_BLOCKS, ..FollowLimits::actuators() }
}

/// A pose of the push over's frame (B's centre at x = 0, the floor at z = 0, m) in this one.
pub fn from_push_over(p: &Pose) -> Pose {
    Pose { x: p.x - BLOCK, z: p.z - 0.5 * BLOCK, angle: p.angle }
}

/// Where the stored push over leaves the mole: the lower head (the base) gripping in B's
/// vertical tunnel, and the joints of [`PUSH_OVER_PATH`]'s last row.
pub fn start() -> (Grip, LiftJoints) {
    let q = PUSH_OVER_PATH[PUSH_OVER_PATH.len() - 1];
    let c = chain(&stored_scene(), &q);
    (Grip { base: Base::Rear, pose: from_push_over(&c.rear) }, q)
}

/// The upper head hanging in the A/C column as a grip: its centre `across` (m, + = away from
/// B) from the column's axis and `height` above C's crossing, its axis `tilt` (rad) from
/// straight down.
pub fn hanging(across: f64, height: f64, tilt: f64) -> Grip {
    Grip { base: Base::Front, pose: Pose { x: across, z: height, angle: -HALF_PI + tilt } }
}

/// The lower head upright in B's vertical tunnel where the push over leaves it across the
/// tunnel, its centre `height` above C's crossing (m).
pub fn in_b(height: f64) -> Pose {
    Pose { x: start().0.pose.x, z: height, angle: HALF_PI }
}

/// What holds the lower head can take while the upper head grips at `upper`: whether any
/// configuration within [`limits`] (a 2 mm grid of the free prismatic joints) puts it in B's
/// vertical tunnel (centre 40-49 mm above C's crossing, 1 mm steps: below B's top, 50 mm) and
/// how many put it upright in A's vertical tunnel (centre within 4 mm of the axis, 140-149 mm
/// up, within 0.05 rad of upright: the straight mole, the highest hold in A a low grip leaves).
pub fn hand_over(upper: &Grip) -> (bool, usize) {
    let lim = limits();
    let in_b = (0..10).any(|k| reach(upper, &lim, &in_b(0.040 + 0.001 * f64::from(k)), 0.002, None).is_some());
    let in_a = [-0.004, 0.0, 0.004]
        .iter()
        .flat_map(|&x| {
            (0..10).flat_map(move |k| [-0.05, 0.0, 0.05].map(|da| Pose { x, z: 0.140 + 0.001 * f64::from(k), angle: -HALF_PI + da }))
        })
        .filter(|t| reach(upper, &lim, t, 0.002, None).is_some())
        .count();
    (in_b, in_a)
}

/// The two holds of the lower head a grip of the upper head at `upper` hands over between,
/// each the configuration with the most clearance on [`hand_over`]'s 2 mm grid: in B's
/// vertical tunnel 46 mm above C's crossing on its axis, tilted 0.1 rad towards C; and
/// upright in A's vertical tunnel (within 4 mm of the axis and 0.1 rad, 140-149.5 mm up,
/// 0.5 mm steps). `None` if either has no configuration.
pub fn hand_over_holds(upper: &Grip) -> Option<(LiftJoints, LiftJoints, Pose)> {
    let lim = limits();
    let b = Pose { x: in_b(0.046).x + 0.004, z: 0.046, angle: HALF_PI - 0.1 };
    let (in_b, _) = reach(upper, &lim, &b, 0.002, None)?;
    let mut best: Option<(LiftJoints, f64, Pose)> = None;
    for x in [-0.004, 0.0, 0.004] {
        for k in 0..20 {
            for da in [-0.1, -0.05, 0.0, 0.05, 0.1] {
                let t = Pose { x, z: 0.140 + 0.0005 * f64::from(k), angle: -HALF_PI + da };
                if let Some((q, d)) = reach(upper, &lim, &t, 0.002, None) {
                    if best.as_ref().is_none_or(|b| d > b.1) {
                        best = Some((q, d, t));
                    }
                }
            }
        }
    }
    best.map(|(in_a, _, at)| (in_b, in_a, at))
}

/// B's top, m above C's crossing: the floor of the empty cell above B, 25 mm below the floor
/// of A's x tunnel (A's former vertical tunnel), as the row's floor is below a tunnel's floor
/// where `StepIn` sets a head down.
pub const B_TOP: f64 = 0.5 * BLOCK;

/// The solid stretches of [`B_TOP`] (m along x): the rims either side of the mouth of B's
/// vertical tunnel (x = -125 to -75 mm is the hole); beyond -150 mm the top drops to the floor
/// of the empty cell 0, from -50 mm A's -x face rises.
pub const B_TOP_RIMS: [(f64, f64); 2] = [(-1.5 * BLOCK, -BLOCK - TUNNEL_HALF), (-BLOCK + TUNNEL_HALF, -0.5 * BLOCK)];

/// The upper head lying level in A's x tunnel as a grip, its centre `x` (m) from A's crossing
/// and as far below the tunnel's axis as the crawl keeps a head ([`AXIS_BELOW`]: on its floor).
pub fn lying_in_a(x: f64) -> Grip {
    Grip { base: Base::Front, pose: Pose { x, z: BLOCK - AXIS_BELOW, angle: 0.0 } }
}

/// The lower head's pose with its axis at `angle` (rad from level, its end at the chain's side
/// up for positive) whose lowest rounded edge stands `gap` (m) over [`B_TOP`] at `contact` (m
/// along x).
pub fn over_b_top(contact: f64, angle: f64, gap: f64) -> Pose {
    let (ex, ez) = lowest_edge(&Pose { x: 0.0, z: 0.0, angle });
    Pose { x: contact - ex, z: B_TOP + CUBE_ROUNDING + gap - ez, angle }
}

/// Whether a head at `pose` set straight down would rest on B's solid top: its centre over B,
/// its lowest rounded edge over one of [`B_TOP_RIMS`] with its 4 mm rounding, and no more
/// than 2 mm above it.
pub fn rests_on_b_top(pose: &Pose) -> bool {
    let (x, z) = lowest_edge(pose);
    let over_b = (-1.5 * BLOCK..=-0.5 * BLOCK).contains(&pose.x);
    over_b
        && z - CUBE_ROUNDING - B_TOP < 0.002
        && B_TOP_RIMS.iter().any(|&(a, b)| x - CUBE_ROUNDING >= a - 1e-9 && x + CUBE_ROUNDING <= b + 1e-9)
}

/// A hold of the lower head over B's top, 1 mm above it (the 0.75 mm margin kept; a set
/// down as `StepIn`'s second phase then rests it), with the upper head gripping at `upper`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverBTop {
    /// The joints.
    pub q: LiftJoints,
    /// Where its lowest edge stands along x, m.
    pub contact: f64,
    /// The lower head's axis from level, rad ([`over_b_top`]).
    pub angle: f64,
    /// The least clearance of the body, the joints and the heads from each other, m (the
    /// lower head stands 1 mm over B's top).
    pub clearance: f64,
}

/// The hold over B's top with the most clearance (but the lower head's 1 mm from B's top)
/// while the upper head grips at `upper`: the
/// lower head's edge over either rim of [`B_TOP_RIMS`] (2.5 mm steps, 4 mm in from each end),
/// its axis -0.3 to 0.6 rad from level (0.1 rad steps), the reach on a `step` (m) grid.
pub fn hold_over_b_top(upper: &Grip, step: f64) -> Option<OverBTop> {
    let lim = limits();
    let mut best: Option<OverBTop> = None;
    for &(a, b) in &B_TOP_RIMS {
        let n = ((b - a - 2.0 * CUBE_ROUNDING) / 0.0025).round() as i32;
        for k in 0..=n {
            let contact = a + CUBE_ROUNDING + 0.0025 * f64::from(k);
            for j in -3..=6 {
                let angle = 0.1 * f64::from(j);
                let target = over_b_top(contact, angle, 0.001);
                if !rests_on_b_top(&target) {
                    continue;
                }
                if let Some((q, _)) = reach(upper, &lim, &target, step, None) {
                    // The lower head stands 1 mm over B's top in every one: rank by the rest.
                    let d = clearances_in(lim.blocks, &links(upper, &q));
                    let clearance = d[1].min(d[3..].iter().fold(f64::INFINITY, |a, &b| a.min(b)));
                    if best.as_ref().is_none_or(|h| clearance > h.clearance) {
                        best = Some(OverBTop { q, contact, angle, clearance });
                    }
                }
            }
        }
    }
    best
}

/// The direction the body points from the upper (front) head's universal joint with the upper
/// head clamped at `upper` and joints `q`: from the joint to the body's centre, rad in
/// [0, 2 pi) from +x towards +z (pi: out of A's -x mouth towards B; 3 pi / 2: down the column).
pub fn body_direction(upper: &Grip, q: &LiftJoints) -> f64 {
    (links(upper, q).body.angle + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI)
}

/// The most room the part of the mole next to the clamped head `grip` has with the body
/// pointing `direction` (rad, as [`body_direction`]: from that head's universal joint to the
/// body's centre) in [`limits`]' scene: the least of the body's clearance from the blocks,
/// that joint's (its disc and both rods) and that head's from the body, and with
/// `with_far_joint` the other universal joint's disc's from the blocks, maximised over a
/// `step` (m) grid of the clamped half's two prismatic joints (which place the body along
/// that direction) and, with `with_far_joint`, the body's other prismatic joint (which places
/// that joint). The rest of the chain cannot add room. `None` if the clamped half's pitch
/// joint cannot point the body that way. Negative: every placement on the grid overlaps. Off
/// the grid a placement is within half a step of a grid point in each joint, so its room
/// differs by at most one `step` (one and a half with `with_far_joint`).
pub fn body_room(grip: &Grip, direction: f64, step: f64, with_far_joint: bool) -> Option<f64> {
    use super::follow::{point_clearance_in, JOINT_HALF};
    let lim = limits();
    let wrap = |a: f64| (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
    // A front head's axis points away from the chain, a rear head's towards it.
    let pitch = match grip.base {
        Base::Front => wrap(direction - std::f64::consts::PI - grip.pose.angle),
        Base::Rear => wrap(direction - grip.pose.angle),
    };
    if pitch.abs() > lim.pitch {
        return None;
    }
    let n = (TRAVEL / step).round() as i32;
    let mut best = f64::NEG_INFINITY;
    for a in 0..=n {
        for b in 0..=n {
            let (lever, body) = (step * f64::from(a), step * f64::from(b));
            let q = match grip.base {
                Base::Front => [lever, pitch, body, 0.0, 0.0, 0.0],
                Base::Rear => [0.0, 0.0, 0.0, body, pitch, lever],
            };
            let l = links(grip, &q);
            let d = clearances_in(lim.blocks, &l);
            // Body - blocks, the clamped head - body, its joint - blocks (FOLLOW_PAIRS 1, 3, 6
            // for the front head, 1, 4, 7 for the rear one).
            let near = match grip.base {
                Base::Front => d[1].min(d[3]).min(d[6]),
                Base::Rear => d[1].min(d[4]).min(d[7]),
            };
            if !with_far_joint || near <= best {
                best = best.max(near);
                continue;
            }
            let far = match grip.base {
                Base::Front => l.joint_rear,
                Base::Rear => l.joint_front,
            };
            let (dx, dz) = (far.0 - l.body.x, far.1 - l.body.z);
            let length = dx.hypot(dz);
            for c in 0..=n {
                let s = (length + step * f64::from(c)) / length;
                let joint = (l.body.x + s * dx, l.body.z + s * dz);
                best = best.max(near.min(point_clearance_in(lim.blocks, joint) - JOINT_HALF));
            }
        }
    }
    Some(best)
}

/// How far (m) turning the body by up to `half_step` (rad) about the upper joint moves a point
/// of the body cube (its far corner, [`LEVER`] + [`TRAVEL`] + the cube's half diagonal from
/// the joint) or, with `with_lower_joint`, of the lower joint (two levers and two travels).
pub fn turn_bound(half_step: f64, with_lower_joint: bool) -> f64 {
    let reach = if with_lower_joint { 2.0 * (LEVER + TRAVEL) } else { LEVER + TRAVEL + std::f64::consts::SQRT_2 * CUBE_HALF };
    reach * half_step
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::molemod::follow::{in_tunnel_in, FOLLOW_PAIRS};
    use crate::molemod::step::lowest_edge;

    /// The push over's end in this scene: the upper head level at A's crossing, the lower head
    /// upright in B's vertical tunnel, everything at least 1.25 mm off the blocks and the floor
    /// (the lower head's 1.25 mm from B's wall, as the push over keeps it).
    #[test]
    fn the_push_over_end_stands_in_this_scene() {
        let (grip, q) = start();
        let l = links(&grip, &q);
        let d = clearances_in(&AFTER_PUSH_BLOCKS, &l);
        for (i, v) in d.iter().enumerate() {
            assert!(*v >= 1.2e-3, "{}: {v}", FOLLOW_PAIRS[i]);
        }
        assert!(l.front.x.abs() < 1e-3 && (l.front.z - BLOCK).abs() < 5e-3 && l.front.angle.abs() < 1e-3, "{:?}", l.front);
        assert!((l.rear.x + BLOCK).abs() < 5e-3 && (l.rear.angle - HALF_PI).abs() < 1e-9, "{:?}", l.rear);
        assert!(in_tunnel_in(&AFTER_PUSH_BLOCKS, (l.front.x, l.front.z)) && in_tunnel_in(&AFTER_PUSH_BLOCKS, (l.rear.x, l.rear.z)));
    }

    /// With the lower head's holds in B upright where the push over leaves it across the
    /// tunnel, the upper head cannot take the mole down through A: gripping in the A/C column
    /// (3.75 mm either side of the axis or on it, tilted up to 0.1 rad, 34-42 mm above C's
    /// crossing in 1 mm steps) it has the lower head's hold in B's tunnel only from 39 mm up,
    /// and a hold for it in A only up to 37 mm (the straight contracted mole, its upper head's
    /// centre near A's top face; the grips that had one at 38 mm put the clamped head into
    /// the column's wall): no grip height has both, so neither head can let go
    /// to bring the lower one over (tilted in B, the lower head gives a few shared grips:
    /// `hanging_in_the_column_the_upper_head_leaves_the_body_no_turn_from_as_mouth_into_its_column`). Lower grips in the
    /// column are out of the chain's reach
    /// from B (`from_b_the_hanging_head_grips_no_lower_than_40_mm`: 40 mm on its 5 mm grid).
    #[test]
    fn with_the_lower_head_upright_in_b_no_grip_in_the_column_hands_over() {
        let (mut lowest_b, mut highest_a) = (f64::INFINITY, f64::NEG_INFINITY);
        for k in 0..=8 {
            let height = 0.034 + 0.001 * f64::from(k);
            for across in [-0.00375, 0.0, 0.00375] {
                for tilt in [-0.1, 0.0, 0.1] {
                    let (b, a) = hand_over(&hanging(across, height, tilt));
                    assert!(!(b && a > 0), "a hand-over at {across} m across, {height} m up, tilt {tilt}");
                    if b {
                        lowest_b = lowest_b.min(height);
                    }
                    if a > 0 {
                        highest_a = highest_a.max(height);
                    }
                }
            }
        }
        eprintln!(
            "upper head in the column: a hold in B from {:.0} mm above C's crossing, a hold in A up to {:.0} mm",
            lowest_b * 1e3,
            highest_a * 1e3
        );
        assert!((lowest_b - 0.039).abs() < 1e-9 && (highest_a - 0.037).abs() < 1e-9, "{lowest_b} {highest_a}");
    }

    /// From the lower head's holds upright in B's vertical tunnel (its centre from 15 mm below C's
    /// crossing's height, where the push over leaves it, up to 49 mm, 5 mm steps), the upper
    /// head reaches a grip hanging in the column (on the axis, tilted 0.02 or 0.15 rad either
    /// way) no lower than 40 mm above C's crossing (5 mm steps from -30 mm; the 1 mm scan
    /// above finds 39 mm with the head tilted 0.1 rad).
    #[test]
    fn from_b_the_hanging_head_grips_no_lower_than_40_mm() {
        let lim = limits();
        let mut lowest = f64::INFINITY;
        for k in 0..=15 {
            let height = -0.030 + 0.005 * f64::from(k);
            for tilt in [0.02, -0.02, 0.15, -0.15] {
                let upper = hanging(0.0, height, tilt);
                let found = (0..=13).any(|j| reach(&upper, &lim, &in_b((-0.015 + 0.005 * f64::from(j)).min(0.049)), 0.003, None).is_some());
                if found {
                    lowest = lowest.min(height);
                }
            }
        }
        eprintln!("from B the hanging head grips no lower than {:.0} mm above C's crossing", lowest * 1e3);
        assert!((lowest - 0.040).abs() < 1e-9, "{lowest}");
    }

    /// The other way down, through B's crossing: with the upper head anchored level in A's x
    /// tunnel (its centre 45 mm either side of A's crossing, 15 mm steps, at the push over's
    /// height), the lower head has no hold turned into B's x tunnel towards C: lying in it
    /// (within 0.34 rad of level, 4 mm below the axis) its centre at most 13.8 mm from where
    /// it stands in B's column, against the 23 mm out that the turn at the bottom of a descent
    /// leaves it at.
    #[test]
    fn anchored_in_a_the_lower_head_does_not_turn_into_bs_x_tunnel() {
        let lim = limits();
        let (grip, _) = start();
        let mut farthest = f64::NEG_INFINITY;
        for i in 0..=6 {
            let upper = Grip { base: Base::Front, pose: Pose { x: -0.045 + 0.015 * f64::from(i), z: 0.1038, angle: 0.0 } };
            for k in 0..=8 {
                let x = -0.095 + 0.005 * f64::from(k);
                for angle in [std::f64::consts::PI, 2.8, -2.8] {
                    if reach(&upper, &lim, &Pose { x, z: -0.004, angle }, 0.002, None).is_some() {
                        farthest = farthest.max(x - grip.pose.x);
                    }
                }
            }
        }
        eprintln!("anchored in A, the lower head lies at most {:.1} mm into B's x tunnel", farthest * 1e3);
        assert!(farthest < 0.015, "{farthest}");
    }

    /// The pairs of [`FOLLOW_PAIRS`] that rest where `StepIn`'s set down rests them, here: the
    /// body on A's tunnel floor (the upper head lying on it, the body at its height) and, set
    /// down, the lower head on B's top.
    const SET_DOWN_RESTING: [bool; 8] = [false, true, true, false, false, false, false, false];

    /// `StepOut`'s end and `StepIn`'s set down, mirrored into A over B's top (the rows of
    /// [`STEP_IN_PATH`] with the upper head lying in A's x tunnel; B's top is 25 mm below its
    /// floor, as the row's floor below B's tunnel floor). Where `StepOut` leaves the clamped
    /// head (18 mm short of A's crossing) the straight mole keeps its margin, but the set
    /// down puts the lower head's edge 16 mm beyond B's far face, over the drop to cell 0's
    /// floor. With the upper head 3-18 mm past A's crossing (1 mm steps, -45 to 45 mm) the set
    /// down, hovering 1.5 mm and resting, lands the edge on B's far rim (the body resting on
    /// A's tunnel floor).
    #[test]
    fn the_mirrored_step_sets_the_lower_head_on_bs_far_rim_only_past_as_crossing() {
        use crate::molemod::step::STEP_IN_PATH;
        let lim = limits();
        let out_end = lying_in_a(-0.018);
        assert_eq!(lim.check(&out_end, &STEP_IN_PATH[0], &[false; 8]), Ok(()));
        let least = clearances_in(&AFTER_PUSH_BLOCKS, &links(&out_end, &STEP_IN_PATH[0]))[1..].iter().fold(f64::INFINITY, |a, &b| a.min(b));
        let edge = lowest_edge(&links(&out_end, &STEP_IN_PATH[2]).rear).0;
        eprintln!("StepOut's end in A: least clearance {:.1} mm; set down, the edge at {:.1} mm", least * 1e3, edge * 1e3);
        assert!(edge < -1.5 * BLOCK - CUBE_ROUNDING, "{edge}");
        let mut resting = Vec::new();
        for i in 0..=90 {
            let upper = lying_in_a(-0.045 + 0.001 * f64::from(i));
            let ok = [1, 2].iter().all(|&r| {
                let touching = if r == 1 { [false, true, false, false, false, false, false, false] } else { SET_DOWN_RESTING };
                lim.check(&upper, &STEP_IN_PATH[r], &touching).is_ok() && rests_on_b_top(&links(&upper, &STEP_IN_PATH[r]).rear)
            });
            if ok {
                resting.push((upper.pose.x * 1e3).round() as i32);
            }
        }
        eprintln!("the set down rests on B's top with the upper head at {resting:?} mm from A's crossing");
        assert_eq!(resting, (3..=18).collect::<Vec<_>>());
    }

    /// From the push over's end, the upper head gripping where the push over leaves it (level
    /// in A's crossing), the lower head comes out of B onto B's far rim in two firmware phases
    /// found by RRT-connect (`follow::search_phase`, 3000 iterations): up B's tunnel to 60 mm
    /// above C's crossing on its axis (10 mm over B's top), then out and down, tilted 0.5 rad
    /// (its far end down, as `StepIn` sets a head down) with its edge 1 mm over the rim at
    /// -146 mm, its centre over the rim. RRT-connect finds no single phase straight
    /// from the start to that hold (seeds 1-3).
    #[test]
    fn from_the_push_over_end_the_lower_head_comes_out_of_b_onto_its_far_rim() {
        use crate::molemod::follow::{loads, search_phase};
        use crate::molemod::lift::{segment_samples, CHECK_DT};
        let lim = limits();
        let (grip, q0) = start();
        let upper = Grip { base: Base::Front, pose: links(&grip, &q0).front };
        assert!(in_tunnel_in(&AFTER_PUSH_BLOCKS, (upper.pose.x, upper.pose.z)));
        let hold = hold_over_b_top(&upper, 0.003).expect("a hold over B's top");
        let lower = links(&upper, &hold.q).rear;
        eprintln!(
            "hold over B's top: edge at {:.1} mm, tilted {:.1} rad, centre ({:.1}, {:.1}) mm, clearance {:.2} mm",
            hold.contact * 1e3,
            hold.angle,
            lower.x * 1e3,
            lower.z * 1e3,
            hold.clearance * 1e3
        );
        assert!(rests_on_b_top(&lower) && (hold.contact + 0.146).abs() < 1e-9 && (hold.angle - 0.5).abs() < 1e-9, "{hold:?}");
        for seed in 1..=3 {
            assert!(search_phase(&upper, &lim, &q0, &hold.q, 3000, seed).is_none(), "seed {seed}");
        }
        let raised = Pose { x: -BLOCK, z: 0.060, angle: HALF_PI };
        let (mid, _) = reach(&upper, &lim, &raised, 0.002, None).expect("the lower head raised in B");
        let (mut found, mut torque, mut force) = ([0, 0], 0.0_f64, 0.0_f64);
        for seed in 1..=3 {
            for (k, (from, to)) in [(&q0, &mid), (&mid, &hold.q)].into_iter().enumerate() {
                if let Some(path) = search_phase(&upper, &lim, from, to, 3000, seed) {
                    found[k] += 1;
                    for w in path.windows(2) {
                        for q in segment_samples(&w[0], &w[1], CHECK_DT) {
                            let (t, f) = loads(&upper, &links(&upper, &q), lim.down);
                            torque = torque.max(t[0].max(t[1]));
                            force = force.max(f.iter().fold(0.0, |a: f64, &b| a.max(b)));
                        }
                    }
                }
            }
        }
        eprintln!(
            "phases found for seeds 1-3: up B's tunnel {}, out onto the rim {}; peak static torque {torque:.3} N m, force {force:.2} N",
            found[0], found[1]
        );
        assert!(found[0] > 0 && found[1] > 0, "{found:?}");
    }
    /// Regression: the grips at which the pushdown scan found both holds with the lower head
    /// tilted in B (37.5-38.5 mm up, 3.75 mm to -x, tilted 0.1-0.15 rad) put the clamped upper
    /// head into the column's wall: a 40 mm head tilted 0.15 rad needs 44.4 mm of the 50 mm
    /// tunnel, and 3.75 mm off the axis it overlaps the -x wall by 0.96 mm (tilted 0.1 rad,
    /// 0.27 mm). [`FollowLimits::check`] once skipped the base head's own clearance and counted
    /// them; it now refuses them, so neither hold exists there. On the axis the same tilt
    /// clears the wall.
    #[test]
    fn the_pushdown_shared_grips_are_refused_their_clamped_head_is_in_the_wall() {
        use crate::molemod::follow::solid_clearance_in;
        let mut overlaps = Vec::new();
        for (height, tilt) in [(0.038, 0.15), (0.0375, 0.15), (0.0385, 0.1)] {
            let off = solid_clearance_in(&AFTER_PUSH_BLOCKS, &hanging(-0.00375, height, tilt).pose);
            let on = solid_clearance_in(&AFTER_PUSH_BLOCKS, &hanging(0.0, height, tilt).pose);
            eprintln!(
                "upper head {:.1} mm up, tilted {tilt}: clearance {:.2} mm 3.75 mm to -x, {:.2} mm on the axis",
                height * 1e3,
                off * 1e3,
                on * 1e3
            );
            assert!(off < 0.0 && on > 0.0, "{off} {on}");
            overlaps.push((off * 1e5).round() / 1e2);
            let grip = hanging(-0.00375, height, tilt);
            assert_eq!(limits().check(&grip, &[0.0; 6], &[false; 8]), Err("clamped head inside a wall"));
            assert!(hand_over_holds(&grip).is_none(), "{height} {tilt}");
        }
        assert_eq!(overlaps, [-0.96, -0.96, -0.27]);
    }

    /// At most of the shared grips clear of the wall (8 of 17, a scratch scan: 3.75 mm to -x
    /// upright or tilted 0.05 rad, on the axis tilted 0.1-0.15 rad, 37.5-38 mm up; four of
    /// them here) no phase of any search joins the hold in B to the hold in A. A
    /// phase keeps the upper head clamped, so the body's direction from the upper joint
    /// ([`body_direction`]) changes continuously along it: from pointing out of A's -x mouth
    /// (the hold in B, 175-176 degrees) to standing in A's column (a hold in A, 80-82
    /// degrees). On the way it must point up and to -x, where the body, its centre then in
    /// A's -x arm (the upper joint hangs 6.5-12.4 mm to -x of the axis), is turned 39-53 degrees
    /// from level and needs 53 mm of the arm's 50 mm height. [`body_room`] on a 0.5 mm grid
    /// of `prismatic_0` and `prismatic_1`, at whole degrees: below -1.3 mm from 131-135 to
    /// 140-142 degrees, down to -1.48 to -1.65 mm; a placement off the grid within half a degree
    /// has at most 0.5 mm (the grid) + 0.75 mm ([`turn_bound`]) more, so every direction in
    /// those bands is blocked.
    #[test]
    fn hanging_in_the_column_the_upper_head_leaves_the_body_no_turn_from_as_mouth_into_its_column() {
        let half_degree = 0.5_f64.to_radians();
        let bound = 0.0005 + turn_bound(half_degree, false);
        assert!(bound < 1.3e-3, "{bound}");
        for (across, height, tilt) in [(-0.00375, 0.0375, 0.0), (-0.00375, 0.038, 0.05), (0.0, 0.0375, 0.1), (0.0, 0.038, 0.15)] {
            let upper = hanging(across, height, tilt);
            // The hold in B `hand_over_holds` picks, and a hold in A at the height it finds
            // (the straight mole's head 149.5 mm up), without its slower search for the best.
            let lim = limits();
            let b = Pose { x: in_b(0.046).x + 0.004, z: 0.046, angle: HALF_PI - 0.1 };
            let (in_b, _) = reach(&upper, &lim, &b, 0.002, None).expect("the hold in B");
            let in_a = [0.0, -0.004, 0.004]
                .into_iter()
                .flat_map(|x| [0.0, -0.05, 0.05, -0.1, 0.1].map(|da| Pose { x, z: 0.1495, angle: -HALF_PI + da }))
                .find_map(|a| reach(&upper, &lim, &a, 0.002, None))
                .expect("a hold in A")
                .0;
            let (from, to) = (body_direction(&upper, &in_a).to_degrees(), body_direction(&upper, &in_b).to_degrees());
            // The blocked band lies within 120-150 degrees (a scratch scan of every degree).
            let blocked: Vec<i32> = ((from.ceil() as i32).max(120)..=(to.floor() as i32).min(150))
                .filter(|&d| body_room(&upper, f64::from(d).to_radians(), 0.0005, false).is_some_and(|r| r < -bound))
                .collect();
            let deepest = blocked.iter().filter_map(|&d| body_room(&upper, f64::from(d).to_radians(), 0.0005, false)).fold(0.0, f64::min);
            eprintln!(
                "upper head {:.2} mm across, {:.1} mm up, tilted {tilt}: hold in A {from:.1} deg, in B {to:.1} deg; blocked {:?}-{:?} deg, down to {:.2} mm",
                across * 1e3,
                height * 1e3,
                blocked.first(),
                blocked.last(),
                deepest * 1e3
            );
            assert!(from < 90.0 && to > 170.0 && !blocked.is_empty(), "{from} {to} {blocked:?}");
        }
    }

    /// The other order (the lower head, out of B, led down the column, the upper head staying
    /// in A above it) fails the same way. With the upper head standing in A's vertical tunnel
    /// above the crossing (its centre 120, 135 or 145 mm above C's crossing, at least 5 mm
    /// inside A's top face; on the axis or 4 mm either side; tilted 0.1 or 0.3 rad either way;
    /// the 18 of those grips clear of the walls), the body would have to turn from pointing out of A's -x mouth (about
    /// 180 degrees, or the pitch range's end, 180 plus the tilt) to hanging down the column
    /// (270), and the upper pitch joint keeps it within the half turn from there, so it cannot
    /// go round the other way. At each grip some whole degree from 200 to 260 leaves the body
    /// and both universal joints no room: at best -4.45 mm or worse on a 1 mm grid of the
    /// three joints that place them ([`body_room`] with the lower joint), where a placement off
    /// the grid within half a degree has at most 1.5 + 1.0 mm more ([`turn_bound`]). The
    /// body passes a crossing at 45 degrees only with one joint in each tunnel beyond it
    /// (`follow`'s passage); the joint under this head stays below A's top face.
    #[test]
    fn standing_in_a_the_upper_head_leaves_the_body_no_turn_from_as_mouth_down_the_column() {
        use crate::molemod::follow::solid_clearance_in;
        let half_degree = 0.5_f64.to_radians();
        let bound = 0.0015 + turn_bound(half_degree, true);
        assert!(bound < 2.6e-3, "{bound}");
        let (mut grips, mut shallowest) = (0, f64::NEG_INFINITY);
        for z in [0.120, 0.135, 0.145] {
            for x in [-0.004, 0.0, 0.004] {
                for tilt in [-0.3, -0.1, 0.1, 0.3] {
                    let pose = Pose { x, z, angle: HALF_PI + tilt };
                    if solid_clearance_in(&AFTER_PUSH_BLOCKS, &pose) < 0.0 {
                        continue;
                    }
                    grips += 1;
                    let upper = Grip { base: Base::Front, pose };
                    // Coarse first, then the whole degrees round the tightest.
                    let room = |d: i32| body_room(&upper, f64::from(d).to_radians(), 0.001, true).unwrap_or(f64::NEG_INFINITY);
                    let coarse = (200..=260).step_by(5).min_by(|a, b| room(*a).total_cmp(&room(*b))).expect("directions");
                    let tightest = ((coarse - 2).max(200)..=(coarse + 2).min(260)).map(room).fold(f64::INFINITY, f64::min);
                    eprintln!(
                        "upper head standing at ({:.0}, {:.0}) mm, tilted {tilt}: near {coarse} deg the body keeps at best {:.2} mm",
                        x * 1e3,
                        z * 1e3,
                        tightest * 1e3
                    );
                    shallowest = shallowest.max(tightest);
                }
            }
        }
        eprintln!("{grips} standing grips: the tightest direction of each leaves at best {:.2} mm", shallowest * 1e3);
        assert!(grips == 18 && shallowest < -bound, "{grips} {shallowest}");
    }
    /// Not every shared grip blocks the turn. Clear of the wall there are shared grips too (a
    /// scratch scan: 17 of the 84 hanging grips 37.5-40.5 mm up, on the axis or 3.75 mm either
    /// side, tilted -0.1 to 0.15 rad, the hold in A the straight mole's head 149-149.5 mm up).
    /// At the one 3.75 mm to +x, 37.5 mm up, tilted 0.05 rad towards B, both holds exist and
    /// the body and both universal joints keep room at every whole degree between them
    /// ([`body_room`] with the lower joint, 1 mm grid): 1.30 mm at the tightest, 126 degrees.
    /// So there the turn is not ruled out by this check (the docs give what the searches found).
    #[test]
    fn on_the_far_side_of_the_column_the_body_has_room_to_turn_between_the_holds() {
        let lim = limits();
        let upper = hanging(0.00375, 0.0375, -0.05);
        let b = Pose { x: in_b(0.046).x + 0.004, z: 0.046, angle: HALF_PI - 0.1 };
        let (in_b, _) = reach(&upper, &lim, &b, 0.002, None).expect("the hold in B");
        let a = Pose { x: -0.004, z: 0.149, angle: -HALF_PI };
        let (in_a, _) = reach(&upper, &lim, &a, 0.002, None).expect("the hold in A");
        let (from, to) = (body_direction(&upper, &in_a).to_degrees(), body_direction(&upper, &in_b).to_degrees());
        let (tightest, room) = (from.ceil() as i32..=to.floor() as i32)
            .map(|d| (d, body_room(&upper, f64::from(d).to_radians(), 0.001, true).expect("within the pitch's range")))
            .fold((0, f64::INFINITY), |m, x| if x.1 < m.1 { x } else { m });
        eprintln!("3.75 mm to +x, 37.5 mm up: holds at {from:.1} and {to:.1} deg; the tightest {tightest} deg keeps {:.2} mm", room * 1e3);
        assert!(from < 100.0 && to > 175.0 && room > 1e-3, "{from} {to} {tightest} {room}");
    }
}
