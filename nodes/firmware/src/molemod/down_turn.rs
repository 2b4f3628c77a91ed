//! Planar model of the lower head's turn into B's x tunnel after the push over (issue #18,
//! task 1's put down, "route Z": the mole down into B's and C's x tunnels heading towards
//! C). Where [`super::motion::Motion::PushOver`] ends (A rolled onto C), the lower head
//! (the model's rear head; the physical front head with `PushOver { lead: Rear, flipped:
//! true }`) stands upright in B's vertical tunnel 15 mm below B's crossing and the upper
//! head (the model's front head) lies level in A's crossing. This turns the lower head
//! level into B's x tunnel towards C, as [`super::motion::TURN_UP_PATH`] turns a head at
//! the bottom of a descent, seen a quarter turn round: the upper head first has to grip
//! near A's -x mouth, because a head lying level in B's x tunnel leaves the body at most
//! 90 degrees from its own axis, so the body must stand (nearly) upright over the lower
//! joint, and the upper joint then stands over B's column.
//!
//! The scene and limits are [`super::after_push`]'s (C's crossing at the origin, x from B
//! towards C, z up; [`super::follow`]'s chain, 0.75 mm margin, 0.52 N m / 15 N, gravity
//! down). [`DOWN_TURN_PATH`] is the stored result of [`search`] (docs/molemod_execution.md,
//! "The lower head's turn into B's x tunnel after the push over (issue #18,
//! mole-downturn)").

use super::after_push::{head_clearance, limits, start};
use super::follow::{links, phase_ok, reach, search_phase, Base, Grip};
use super::lift::{LiftJoints, Pose, BLOCK, LEVER};
use super::motion::TURN_UP_PATH;

const HALF_PI: f64 = 0.5 * std::f64::consts::PI;

/// How far the turning lower head's universal joint stands to -x of B's vertical tunnel's
/// axis, m: the turn up's joint lies this far below the x tunnel's axis ([`super::lift::AXIS_BELOW`]).
pub const TURN_JOINT_OFF_AXIS: f64 = 0.005;

/// The lower head's pose in the turn, m and rad: `theta` (rad) from hanging straight below
/// its universal joint (0) to lying level in B's x tunnel towards C with the joint on the
/// head's -x side (pi/2), the joint [`TURN_JOINT_OFF_AXIS`] to -x of B's axis and `height`
/// (m) above B's crossing's centre, the head [`LEVER`] from it. A row `(pitch, along)` of
/// [`TURN_UP_PATH`] is `turn_pose(-pitch, -along)`: the turn up seen a quarter turn round
/// (the x tunnel behind the crossing there is B's column above the crossing here).
pub fn turn_pose(theta: f64, height: f64) -> Pose {
    let joint = (-BLOCK - TURN_JOINT_OFF_AXIS, height);
    Pose { x: joint.0 + LEVER * theta.sin(), z: joint.1 - LEVER * theta.cos(), angle: theta + HALF_PI }
}

/// Where [`search`] stops.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchStop {
    /// No configuration within the limits puts the moving head at a pose.
    #[error("stage {stage}: no configuration puts the moving head at {target:?}")]
    NoReach {
        /// The stage (0: the lower head raised, 1: the upper head to its grip, 2: the lower
        /// head to the turn's first key, 3 and on: the turn's keys).
        stage: usize,
        /// The moving head's pose, m and rad.
        target: Pose,
    },
    /// Neither the firmware's straight phase nor RRT-connect joins two configurations.
    #[error("stage {stage}: no phase to {target:?}")]
    NoPhase {
        /// As in [`SearchStop::NoReach`].
        stage: usize,
        /// The moving head's pose, m and rad.
        target: Pose,
    },
}

/// One phase with `grip` clamped from `from` to the configuration (2 mm grid, the most
/// clearance near `from`: [`reach`]) that puts the other head at `target`: the firmware's
/// straight phase where it keeps the limits, else RRT-connect ([`search_phase`],
/// `iterations`, `seed`). The rows from `from` on.
pub fn phase_to(
    grip: &Grip,
    from: &LiftJoints,
    target: &Pose,
    stage: usize,
    iterations: usize,
    seed: u64,
) -> Result<Vec<LiftJoints>, SearchStop> {
    let lim = limits();
    let (q, _) = reach(grip, &lim, target, 0.002, Some(from)).ok_or(SearchStop::NoReach { stage, target: *target })?;
    let touching = lim.touching(grip, from);
    if phase_ok(grip, &lim, &touching, from, &q) {
        return Ok(vec![*from, q]);
    }
    search_phase(grip, &lim, from, &q, iterations, seed).ok_or(SearchStop::NoPhase { stage, target: *target })
}

/// The first turn from [`start`]: (the upper head clamped where the push over leaves it)
/// the lower head up B's column, upright, to `raise` (m above C's crossing); (the lower head
/// clamped there) the upper head to `grip` near A's -x mouth; (the upper head clamped at
/// `grip`) the lower head to the turn's first key and through the keys of
/// [`TURN_UP_PATH`] ([`turn_pose`]) up to `last_degrees` of the turn, each key's joints
/// sought near the last one's and joined by [`phase_to`] (3000 iterations, `seed`). Rows
/// (the head clamped in the phase that ends at the row; the model's front head is the
/// upper one), the first [`start`]'s joints.
pub fn search(grip: &Pose, raise: f64, last_degrees: f64, seed: u64) -> Result<Vec<(Base, LiftJoints)>, SearchStop> {
    let (lower, q0) = start();
    let upper_at_start = Grip { base: Base::Front, pose: links(&lower, &q0).front };
    let raised = Pose { x: lower.pose.x, z: raise, angle: HALF_PI };
    let up = phase_to(&upper_at_start, &q0, &raised, 0, 3000, seed)?;
    let q_up = *up.last().unwrap_or(&q0);
    let lower_raised = Grip { base: Base::Rear, pose: links(&upper_at_start, &q_up).rear };
    let over = phase_to(&lower_raised, &q_up, grip, 1, 3000, seed)?;
    let mut rows: Vec<(Base, LiftJoints)> = up.iter().map(|q| (Base::Front, *q)).collect();
    rows.extend(over.iter().skip(1).map(|q| (Base::Rear, *q)));
    let upper = Grip { base: Base::Front, pose: *grip };
    let keys = TURN_UP_PATH.iter().filter(|r| -r.0 <= last_degrees.to_radians() + 1e-9).map(|&(pitch, along)| turn_pose(-pitch, -along));
    let mut q = *over.last().unwrap_or(&q_up);
    for (k, key) in keys.enumerate() {
        let path = phase_to(&upper, &q, &key, 2 + k, 3000, seed)?;
        q = *path.last().unwrap_or(&q);
        rows.extend(path.iter().skip(1).map(|q| (Base::Front, *q)));
    }
    Ok(rows)
}

/// The upper head's grips in A while the lower head is clamped at `lower`: every
/// configuration on a grid (`step` m of the prismatic joints, `pitch_step` rad of the two
/// pitches) whose upper head has its centre in a tunnel of A, keeps `wall` (m) from A's
/// solid itself ([`head_clearance`]) and keeps every limit with the upper head clamped. The
/// joints, the upper head's pose and the least clearance of the rest, m.
pub fn grips_in_a(lower: &Pose, step: f64, pitch_step: f64, wall: f64) -> Vec<(LiftJoints, Pose, f64)> {
    use super::follow::{clearances_in, in_tunnel_in};
    use super::lift::TRAVEL;
    let lim = limits();
    let base = Grip { base: Base::Rear, pose: *lower };
    let n = (TRAVEL / step).round() as i32;
    let m = (lim.pitch / pitch_step).floor() as i32;
    let a_tunnels = (-0.5 * BLOCK..=0.5 * BLOCK, 0.5 * BLOCK..=1.5 * BLOCK);
    let mut out = Vec::new();
    for (lever, pitch, body_to_joint, body) in
        (0..=n).flat_map(|a| (-m..=m).flat_map(move |p| (0..=n).flat_map(move |b| (0..=n).map(move |c| (a, p, b, c)))))
    {
        let lower_half =
            [0.0, 0.0, step * f64::from(body_to_joint), step * f64::from(body), pitch_step * f64::from(pitch), step * f64::from(lever)];
        // The body, the lower head and the lower joint first: the upper head cannot change them.
        let d = clearances_in(lim.blocks, &links(&base, &lower_half));
        if d[1] < lim.margin || d[4] < lim.margin || d[7] < lim.margin {
            continue;
        }
        for (upper_pitch, upper_lever) in (-m..=m).flat_map(|r| (0..=n).map(move |e| (r, e))) {
            let q = [
                step * f64::from(upper_lever),
                pitch_step * f64::from(upper_pitch),
                lower_half[2],
                lower_half[3],
                lower_half[4],
                lower_half[5],
            ];
            let l = links(&base, &q);
            let centre = (l.front.x, l.front.z);
            if !a_tunnels.0.contains(&centre.0) || !a_tunnels.1.contains(&centre.1) || !in_tunnel_in(lim.blocks, centre) {
                continue;
            }
            let upper = Grip { base: Base::Front, pose: l.front };
            if head_clearance(&l.front) >= wall && lim.check(&upper, &q, &[false; 8]).is_ok() {
                let least = clearances_in(lim.blocks, &l).iter().skip(1).fold(f64::INFINITY, |x, y| x.min(*y));
                out.push((q, l.front, least));
            }
        }
    }
    out
}

/// Where [`DOWN_TURN_PATH`] clamps the upper head (the model's front head) for the turn, m
/// and rad from C's crossing: in A's x tunnel (A's former vertical tunnel), its centre 7.3
/// mm inside A's -x face, 3.4 mm above the tunnel's axis, tilted 31 mrad (its +x end down);
/// the deepest grip in A that [`grips_in_a`] finds with the lower head at the turn's last
/// key (87 degrees), rounded to 0.1 mm and 1 mrad. It keeps 1.36 mm from A's solid.
pub const DOWN_TURN_GRIP: Pose = Pose { x: -0.0427, z: 0.1034, angle: -0.031 };

/// How far up B's column the lower head is raised before the upper head moves to
/// [`DOWN_TURN_GRIP`], m above C's (and B's) crossing's centre: 10 mm up from where the push
/// over leaves it, 5 mm below the crossing.
pub const DOWN_TURN_RAISE: f64 = -0.005;

/// The first turn after the push over, one firmware phase per row: joint targets in the
/// order of [`LiftJoints`] (the push over's model: `prismatic_0` and `universal_0_axis2` on
/// the upper head's side), each with the head clamped in the phase that ends at it (the
/// model's [`Base::Front`] is the upper head, [`Base::Rear`] the lower); where the base
/// changes both heads grip first. The first row is [`super::push_over::PUSH_OVER_PATH`]'s
/// last ([`start`]). Rows 1-2: the upper head clamped in A's crossing, the lower head raised
/// upright to [`DOWN_TURN_RAISE`]; row 3: the lower head clamped, the upper head to
/// [`DOWN_TURN_GRIP`]; rows 4 on: the upper head clamped there, the lower head to the turn's
/// first key (hanging below its joint, which stands 24 mm above B's crossing) and through
/// [`TURN_UP_PATH`]'s keys ([`turn_pose`]) to 87 degrees: the lower head 23 mm from B's axis
/// towards C, 3 degrees from level. Found by `cargo run --release -p flotilla_firmware
/// --example molemod_down_turn_search -- 1 87 -5` ([`search`], seed 1), rounded to 10 um and
/// 0.1 mrad; the unit test `the_down_turn_path_keeps_the_limits` checks the rounded table.
pub const DOWN_TURN_PATH: [(Base, LiftJoints); 37] = [
    (Base::Front, [0.02750, 0.9395, 0.00000, 0.02576, -0.6313, 0.02475]),
    (Base::Front, [0.02820, 0.9530, 0.00231, 0.02258, -0.6234, 0.02204]),
    (Base::Front, [0.03000, 0.9253, 0.00005, 0.02000, -0.6455, 0.02000]),
    (Base::Rear, [0.01600, 1.3402, 0.00001, 0.01000, -0.2616, 0.01800]),
    (Base::Front, [0.01600, 1.3261, 0.00131, 0.01000, -0.2757, 0.01600]),
    (Base::Front, [0.02400, 1.3525, 0.00439, 0.01400, -0.9823, 0.01200]),
    (Base::Front, [0.02400, 1.3659, 0.00652, 0.01600, -0.9690, 0.01200]),
    (Base::Front, [0.02400, 1.3615, 0.00705, 0.01600, -1.0257, 0.01200]),
    (Base::Front, [0.02400, 1.3623, 0.00729, 0.01600, -1.0249, 0.01200]),
    (Base::Front, [0.02400, 1.3584, 0.00784, 0.01600, -1.0812, 0.01200]),
    (Base::Front, [0.02400, 1.3591, 0.00808, 0.01600, -1.0804, 0.01200]),
    (Base::Front, [0.02400, 1.3779, 0.00950, 0.01600, -1.1140, 0.01000]),
    (Base::Front, [0.02200, 1.3547, 0.01015, 0.01600, -1.1372, 0.01000]),
    (Base::Front, [0.02200, 1.3522, 0.01063, 0.01600, -1.1921, 0.01000]),
    (Base::Front, [0.02200, 1.3544, 0.01136, 0.01600, -1.1899, 0.01000]),
    (Base::Front, [0.02200, 1.3522, 0.00985, 0.01800, -1.2444, 0.01000]),
    (Base::Front, [0.02200, 1.3544, 0.01058, 0.01800, -1.2422, 0.01000]),
    (Base::Front, [0.02200, 1.3526, 0.01108, 0.01800, -1.2964, 0.01000]),
    (Base::Front, [0.02200, 1.3562, 0.01029, 0.02000, -1.2928, 0.01000]),
    (Base::Front, [0.02200, 1.3546, 0.01080, 0.02000, -1.3467, 0.01000]),
    (Base::Front, [0.02200, 1.3588, 0.01025, 0.02200, -1.3425, 0.01000]),
    (Base::Front, [0.02200, 1.3576, 0.01077, 0.02200, -1.3961, 0.01000]),
    (Base::Front, [0.02200, 1.3616, 0.01022, 0.02400, -1.3921, 0.01000]),
    (Base::Front, [0.02200, 1.3608, 0.01074, 0.02400, -1.4453, 0.01000]),
    (Base::Front, [0.02200, 1.3646, 0.01020, 0.02600, -1.4414, 0.01000]),
    (Base::Front, [0.02200, 1.3641, 0.01072, 0.02600, -1.4944, 0.01000]),
    (Base::Front, [0.02200, 1.3684, 0.01042, 0.02800, -1.4900, 0.01000]),
    (Base::Front, [0.02200, 1.3681, 0.01094, 0.02800, -1.5427, 0.01000]),
    (Base::Front, [0.02200, 1.3723, 0.01064, 0.03000, -1.5385, 0.01000]),
    (Base::Front, [0.02200, 1.4135, 0.01117, 0.03000, -1.5497, 0.00600]),
    (Base::Front, [0.02200, 1.4366, 0.01271, 0.03000, -1.5266, 0.00400]),
    (Base::Front, [0.02200, 1.4567, 0.01293, 0.03000, -1.5588, 0.00200]),
    (Base::Front, [0.02200, 1.4596, 0.01491, 0.03000, -1.5559, 0.00200]),
    (Base::Front, [0.02400, 1.4992, 0.01479, 0.03000, -1.5687, 0.00000]),
    (Base::Front, [0.02400, 1.5009, 0.01653, 0.03000, -1.5669, 0.00000]),
    (Base::Front, [0.03000, 1.5595, 0.01629, 0.03000, -1.5608, 0.00000]),
    (Base::Front, [0.03000, 1.5602, 0.01804, 0.03000, -1.5600, 0.00000]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::molemod::after_push::AFTER_PUSH_BLOCKS;
    use crate::molemod::follow::{clearances_in, in_tunnel_in, loads, FOLLOW_PAIRS};
    use crate::molemod::lift::{segment_samples, TRAVEL};
    use crate::molemod::push_over::PUSH_OVER_PATH;
    use crate::molemod::vertical::Links;

    /// What the table meets as the firmware runs it.
    struct Walk {
        /// Least clearance of the pairs not touching where their base's phases start, m, the
        /// pair and the row.
        least: (f64, &'static str, usize),
        /// Least clearance of a clamped head from the blocks, m.
        clamped: f64,
        /// Largest static torque on each pitch axis (upper, lower), N m.
        torque: [f64; 2],
        /// Largest static force along a prismatic joint, N.
        force: f64,
        /// The clamped head's pose at each base change.
        grips: Vec<Grip>,
        /// The links at the end of each row.
        ends: Vec<Links>,
    }

    /// Walks `path` from [`start`], sampled every 1 ms as the firmware moves the joints:
    /// every sample keeps to the limits (the pairs closer than the margin where a base's
    /// phases start may touch); each clamped head has its centre in a tunnel and keeps the
    /// margin from the blocks itself. `Err` says where not.
    fn walk(path: &[(Base, LiftJoints)]) -> Result<Walk, String> {
        let lim = limits();
        let (lower, q0) = start();
        let first = links(&lower, &path[0].1);
        let mut grip = lower;
        let mut w = Walk {
            least: (f64::INFINITY, "", 0),
            clamped: f64::INFINITY,
            torque: [0.0; 2],
            force: 0.0,
            grips: Vec::new(),
            ends: vec![first],
        };
        assert_eq!(path[0].1, q0);
        let mut touching = [false; 8];
        for (k, pair) in path.windows(2).enumerate() {
            let ((_, from), (base, to)) = (pair[0], pair[1]);
            if k == 0 || base != grip.base {
                let l = links(&grip, &from);
                let pose = if base == Base::Front { l.front } else { l.rear };
                if !in_tunnel_in(&AFTER_PUSH_BLOCKS, (pose.x, pose.z)) {
                    return Err(format!("row {}: the {base:?} head grips outside a tunnel at {pose:?}", k + 1));
                }
                let own = head_clearance(&pose);
                if own < lim.margin {
                    return Err(format!("row {}: the {base:?} head grips {:.2} mm from the blocks", k + 1, own * 1e3));
                }
                w.clamped = w.clamped.min(own);
                grip = Grip { base, pose };
                w.grips.push(grip);
                touching = lim.touching(&grip, &from);
            }
            let based = if grip.base == Base::Front { 0 } else { 2 };
            for q in segment_samples(&from, &to, 0.001) {
                lim.check(&grip, &q, &touching).map_err(|e| format!("row {}: {e} at {q:?}", k + 1))?;
                let l = links(&grip, &q);
                for (i, d) in clearances_in(&AFTER_PUSH_BLOCKS, &l).iter().enumerate() {
                    if i != based && !touching[i] && *d < w.least.0 {
                        w.least = (*d, FOLLOW_PAIRS[i], k + 1);
                    }
                }
                let (torque, force) = loads(&grip, &l, lim.down);
                w.torque = [w.torque[0].max(torque[0]), w.torque[1].max(torque[1])];
                w.force = force.iter().fold(w.force, |m, f| m.max(*f));
            }
            w.ends.push(links(&grip, &to));
        }
        Ok(w)
    }

    #[test]
    fn the_down_turn_starts_where_the_push_over_ends() {
        assert_eq!(DOWN_TURN_PATH[0].1, PUSH_OVER_PATH[PUSH_OVER_PATH.len() - 1]);
        assert_eq!(DOWN_TURN_PATH[1].0, Base::Front);
    }

    /// The stored table, sampled every 1 ms as the firmware moves the joints: every cube and
    /// universal joint keeps the margin (but the pairs already closer where a base's phases
    /// start), the loads stay within the actuators', each clamped head lies in a tunnel clear
    /// of the blocks. The stages: the lower head raised upright in B's column to
    /// [`DOWN_TURN_RAISE`], the upper head moved to [`DOWN_TURN_GRIP`], then the turn: the
    /// lower head ends 23 mm from B's axis towards C (the turn up's 23 mm), within 2 mm of the
    /// x tunnel's axis, 3 degrees from level.
    #[test]
    fn the_down_turn_path_keeps_the_limits() {
        let lim = limits();
        let w = walk(&DOWN_TURN_PATH).unwrap_or_else(|e| panic!("{e}"));
        let switch = DOWN_TURN_PATH.iter().position(|r| r.0 == Base::Rear).expect("a phase with the lower head clamped");
        let raised = w.ends[switch - 1].rear;
        let moved = w.ends[switch].front;
        let end = w.ends[w.ends.len() - 1];
        eprintln!(
            "down turn: {} phases; grips {:?}; raised lower head ({:.2}, {:.2}) mm; upper head moved to ({:.2}, {:.2}) mm, {:.4} rad; \
             least clearance {:.3} mm ({} in row {}), clamped heads {:.2} mm; peak static torque {:.3} N m (upper pitch), {:.3} (lower); \
             peak prismatic force {:.2} N; end: lower head ({:.2}, {:.2}) mm, {:.4} rad, joint ({:.2}, {:.2}); body ({:.2}, {:.2}), {:.4} rad; \
             upper joint ({:.2}, {:.2})",
            DOWN_TURN_PATH.len() - 1,
            w.grips.iter().map(|g| (g.base, (g.pose.x * 1e4).round() / 10.0, (g.pose.z * 1e4).round() / 10.0)).collect::<Vec<_>>(),
            raised.x * 1e3,
            raised.z * 1e3,
            moved.x * 1e3,
            moved.z * 1e3,
            moved.angle,
            w.least.0 * 1e3,
            w.least.1,
            w.least.2,
            w.clamped * 1e3,
            w.torque[0],
            w.torque[1],
            w.force,
            end.rear.x * 1e3,
            end.rear.z * 1e3,
            end.rear.angle,
            end.joint_rear.0 * 1e3,
            end.joint_rear.1 * 1e3,
            end.body.x * 1e3,
            end.body.z * 1e3,
            end.body.angle,
            end.joint_front.0 * 1e3,
            end.joint_front.1 * 1e3,
        );
        assert_eq!(w.grips.iter().map(|g| g.base).collect::<Vec<_>>(), [Base::Front, Base::Rear, Base::Front]);
        assert!(w.least.0 >= lim.margin && w.clamped >= lim.margin);
        assert!(w.torque.iter().all(|t| *t <= lim.torque) && w.force <= lim.force);
        assert!((raised.z - DOWN_TURN_RAISE).abs() < 1e-4 && (raised.angle - HALF_PI).abs() < 1e-3, "{raised:?}");
        assert!(super::super::follow::pose_error(&moved, &DOWN_TURN_GRIP) < 1e-4, "{moved:?}");
        let out = end.rear.x + BLOCK;
        assert!((out - 0.023).abs() < 1e-3 && end.rear.z.abs() < 2e-3, "{:?}", end.rear);
        assert!((end.rear.angle - std::f64::consts::PI).abs() < 0.06, "{:?}", end.rear);
    }

    /// The grid point of [`reach`]'s grid that comes nearest to keeping every limit with the
    /// base `grip` and the other head at `target`: its least slack (m; a pitch's at [`LEVER`]
    /// per rad) and what binds.
    fn nearest(grip: &Grip, target: &Pose) -> (f64, &'static str) {
        let lim = limits();
        let mut best = (f64::NEG_INFINITY, "");
        let n = 15;
        for (a, b, c) in (0..=n).flat_map(|a| (0..=n).flat_map(move |b| (0..=n).map(move |c| (a, b, c)))) {
            let step = TRAVEL / f64::from(n);
            let (q0, q5, q3) = (step * f64::from(a), step * f64::from(b), step * f64::from(c));
            let (front, rear) = (grip.pose, *target);
            let jf = (front.x - (LEVER + q0) * front.angle.cos(), front.z - (LEVER + q0) * front.angle.sin());
            let jr = (rear.x + (LEVER + q5) * rear.angle.cos(), rear.z + (LEVER + q5) * rear.angle.sin());
            let body = (jf.1 - jr.1).atan2(jf.0 - jr.0);
            let wrap = |v: f64| (v + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
            let q2 = (jf.0 - jr.0).hypot(jf.1 - jr.1) - 2.0 * LEVER - q3;
            let q = [q0, wrap(body - front.angle), q2, q3, wrap(body - rear.angle), q5];
            let mut terms = vec![
                ((lim.pitch - q[1].abs()) * LEVER, "upper pitch (universal_0) range"),
                ((lim.pitch - q[4].abs()) * LEVER, "lower pitch (universal_1) range"),
                (q2.min(TRAVEL - q2), "prismatic_1 range"),
            ];
            let d = clearances_in(&AFTER_PUSH_BLOCKS, &links(grip, &q));
            terms.extend(d.iter().zip(FOLLOW_PAIRS).skip(1).map(|(v, name)| (v - lim.margin, name)));
            let worst = terms.into_iter().fold((f64::INFINITY, ""), |m, t| if t.0 < m.0 { t } else { m });
            if worst.0 > best.0 {
                best = worst;
            }
        }
        best
    }

    /// Why, with the upper head where the push over leaves it (level in A's crossing), the
    /// lower head does not lie in B's x tunnel (`after_push`'s
    /// `anchored_in_a_the_lower_head_does_not_turn_into_bs_x_tunnel`: at most 13.8 mm from its
    /// place in the column, i.e. 10 mm from B's axis): the lower pitch. A head lying level
    /// towards C has its joint on its -x side, and the body may turn at most 90 degrees from
    /// the head's axis, so it must point up or to -x from the lower joint; but the upper
    /// joint stands at least 28 mm (the lever) to -x of the upper head, at least 47 mm to +x
    /// of the lower joint. With the lower head 10-23 mm from B's axis towards C (4 mm below the
    /// axis, level or tilted 0.34 rad, its far end down), the configuration nearest to
    /// every limit on `reach`'s 2 mm grid breaks the lower pitch's range or the body's
    /// clearance by 6.4-14.3 mm (a pitch at 28 mm per rad: 0.23-0.51 rad past the range).
    #[test]
    fn where_the_push_over_leaves_the_upper_head_the_lower_pitch_keeps_the_lower_head_out_of_bs_x_tunnel() {
        let (lower, q0) = start();
        let upper = Grip { base: Base::Front, pose: links(&lower, &q0).front };
        let mut slack = (f64::NEG_INFINITY, f64::INFINITY);
        for out in [0.010, 0.014, 0.018, 0.023] {
            for tilt in [0.0, 0.2, 0.34] {
                let target = Pose { x: -BLOCK + out, z: -0.004, angle: std::f64::consts::PI - tilt };
                let (s, what) = nearest(&upper, &target);
                eprintln!(
                    "lower head {:.0} mm from B's axis, tilted {tilt} rad: the nearest configuration misses by {:.2} mm ({what})",
                    out * 1e3,
                    -s * 1e3
                );
                assert!(what == "lower pitch (universal_1) range" || what == "body - blocks", "{what}");
                slack = (slack.0.max(s), slack.1.min(s));
            }
        }
        assert!(slack.0 < -6e-3 && slack.1 > -15e-3, "{slack:?}");
    }

    /// With the lower head level in B's x tunnel 23 mm from B's axis (the turn up's last key),
    /// the upper head has no grip in A on a 3 mm / 0.03 rad grid (the body would have to
    /// stand exactly upright against B's -x wall); 3 degrees from level (the key at 87
    /// degrees) it has 382, the deepest [`DOWN_TURN_GRIP`] before rounding: 7.3 mm inside
    /// A's -x face.
    #[test]
    fn the_turned_head_leaves_the_upper_head_grips_only_near_as_mouth() {
        let level = grips_in_a(&turn_pose(HALF_PI, 0.0), 0.003, 0.03, 0.001);
        let (last_pitch, last_along) = TURN_UP_PATH[TURN_UP_PATH.len() - 3];
        let tilted = grips_in_a(&turn_pose(-last_pitch, -last_along), 0.003, 0.03, 0.001);
        let deepest = tilted.iter().map(|g| g.1).max_by(|a, b| a.x.total_cmp(&b.x)).expect("grips 3 degrees from level");
        eprintln!(
            "level: {} grips; at {:.0} degrees: {} grips, the deepest ({:.2}, {:.2}) mm, {:.4} rad",
            level.len(),
            -last_pitch.to_degrees(),
            tilted.len(),
            deepest.x * 1e3,
            deepest.z * 1e3,
            deepest.angle
        );
        assert!(level.is_empty() && tilted.len() == 382);
        assert!((deepest.x - DOWN_TURN_GRIP.x).abs() < 1e-4 && (deepest.z - DOWN_TURN_GRIP.z).abs() < 1e-4, "{deepest:?}");
        assert!((deepest.angle - DOWN_TURN_GRIP.angle).abs() < 1e-3);
    }
}
