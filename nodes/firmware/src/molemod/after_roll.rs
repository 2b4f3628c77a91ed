//! Planar model of task 1's way out after the shift from below (issue #18): from where
//! [`super::motion::Motion::ShiftBelow`] ends (the mole straight upright through C's
//! vertical tunnel and the rolled A's, the lower head on C's floor against the wall away
//! from B, A resting on C) to the mole lying along C's and B's x tunnels, from where the
//! step out of C's far mouth, the U and the put down follow.
//!
//! The turn of the lower head into C's x tunnel (towards B) and the body following it round
//! C's crossing are the stored [`super::motion::TURN_UP_PATH`] and
//! [`super::follow::FOLLOW_PATH`] seen in a mirror: the map [`to_follow`], (x, z) -> (-z, -x)
//! about C's crossing centre (world x from B towards C), takes the column above the crossing
//! to the x tunnel behind it in the follow's frame, the x tunnel towards B to the vertical
//! tunnel above, the wall away from B to the tunnel floor and the floor under C to a wall
//! across the tunnel ahead. A mirror image of the mole is the mole with its halves swapped
//! ([`super::motion::Head::row`]), so the physical motions are the stored ones with the rear
//! head leading ([`super::motion::Motion::TurnUp`] with `lead: Head::Rear`,
//! `Motion::Follow { lead: Head::Rear }`). What differs from the scenes the tables were
//! checked in is the solid round the crossing (A, B and the ground here, [`BLOCKS`] and
//! [`GROUND`]) and gravity, which pulls along +x in the follow's frame ([`DOWN`]): the
//! tests below walk both tables in this scene.

use super::follow::{links, loads, Base, FollowLimits, Grip, FOLLOW_PAIRS};
use super::lift::{columns, cube, quad_distance, LiftJoints, Pose, BLOCK, CUBE_HALF, CUBE_ROUNDING, TUNNEL_HALF};
use super::vertical::Links;

/// Task 1's blocks round C's crossing after the shift from below, in the follow's frame
/// ([`to_follow`]), m: C, A (standing on C: the x tunnel behind), B (beside C: the block
/// above). The cell above B and the free cell beyond C are empty.
pub const BLOCKS: [(f64, f64); 3] = [(0.0, 0.0), (-BLOCK, 0.0), (0.0, BLOCK)];

/// The floor under C in the follow's frame: all is solid at x beyond this, m.
pub const GROUND: f64 = 0.5 * BLOCK;

/// Gravity's direction in the follow's frame (world -z).
pub const DOWN: (f64, f64) = (1.0, 0.0);

/// A point of task 1's world, relative to C's crossing centre (x from B towards C, z up), in
/// the follow's frame, m; the map is its own inverse, so it also takes the follow's frame
/// back to the world.
pub fn to_follow((x, z): (f64, f64)) -> (f64, f64) {
    (-z, -x)
}

/// A pose in the follow's frame read in the world (or back): its centre by [`to_follow`],
/// its x axis mirrored (angles from +x towards +z), rad in (-pi, pi].
pub fn pose_to_world(p: &Pose) -> Pose {
    let (x, z) = to_follow((p.x, p.z));
    let (dx, dz) = to_follow((p.angle.cos(), p.angle.sin()));
    Pose { x, z, angle: dz.atan2(dx) }
}

/// Clearance of a main cube at `pose` from [`BLOCKS`]' solid and the ground, m (negative =
/// overlap).
pub fn solid_clearance(pose: &Pose) -> f64 {
    let square = cube(pose);
    let farthest = GROUND - square.iter().map(|v| v.0).fold(f64::NEG_INFINITY, f64::max);
    BLOCKS
        .iter()
        .flat_map(|&(x, z)| columns(&Pose { x, z, angle: 0.0 }))
        .map(|column| quad_distance(&square, &column))
        .fold(farthest, f64::min)
        - CUBE_ROUNDING
}

/// Clearance of a point (m) from [`BLOCKS`]' solid and the ground, m (negative = inside).
pub fn point_clearance((x, z): (f64, f64)) -> f64 {
    let (o, i) = (0.5 * BLOCK, TUNNEL_HALF);
    let to_box = |x0: f64, x1: f64, z0: f64, z1: f64| {
        let (dx, dz) = ((x0 - x).max(x - x1), (z0 - z).max(z - z1));
        if dx <= 0.0 && dz <= 0.0 {
            dx.max(dz)
        } else {
            dx.max(0.0).hypot(dz.max(0.0))
        }
    };
    BLOCKS
        .iter()
        .flat_map(|&(bx, bz)| {
            [(-o, -i, -o, -i), (i, o, -o, -i), (i, o, i, o), (-o, -i, i, o)].map(|(a, b, c, d)| to_box(bx + a, bx + b, bz + c, bz + d))
        })
        .fold(GROUND - x, f64::min)
}

/// Least clearance of a prismatic joint's rod from the main cube at `centre` out to the
/// universal joint at `joint`, m (as [`super::follow`]'s: sampled every 2 mm, 2 mm radius).
fn rod_clearance(centre: (f64, f64), joint: (f64, f64)) -> f64 {
    let (dx, dz) = (joint.0 - centre.0, joint.1 - centre.1);
    let length = dx.hypot(dz);
    let n = ((length - CUBE_HALF) / 0.002).ceil().max(1.0) as usize;
    (0..=n)
        .map(|k| {
            let s = (CUBE_HALF + (length - CUBE_HALF) * k as f64 / n as f64) / length;
            point_clearance((centre.0 + s * dx, centre.1 + s * dz))
        })
        .fold(f64::INFINITY, f64::min)
        - super::follow::ROD_RADIUS
}

/// Clearance of each pair of [`FOLLOW_PAIRS`] in this scene, m (negative = overlap).
pub fn clearances(l: &Links) -> [f64; 8] {
    let (front, body, rear) = (cube(&l.front), cube(&l.body), cube(&l.rear));
    let between = |a, b| quad_distance(a, b) - 2.0 * CUBE_ROUNDING;
    let at = |p: &Pose| (p.x, p.z);
    let joint = |j: (f64, f64), a: &Pose, b: &Pose| {
        (point_clearance(j) - super::follow::JOINT_HALF).min(rod_clearance(at(a), j)).min(rod_clearance(at(b), j))
    };
    [
        solid_clearance(&l.front),
        solid_clearance(&l.body),
        solid_clearance(&l.rear),
        between(&front, &body),
        between(&body, &rear),
        between(&front, &rear),
        joint(l.joint_front, &l.front, &l.body),
        joint(l.joint_rear, &l.body, &l.rear),
    ]
}

/// Whether a point (m, follow's frame) lies in a tunnel of one of [`BLOCKS`]: where a clamp
/// holds a head whose centre is there.
pub fn in_tunnel((x, z): (f64, f64)) -> bool {
    BLOCKS.iter().any(|&(bx, bz)| {
        let (dx, dz) = ((x - bx).abs(), (z - bz).abs());
        dx <= 0.5 * BLOCK && dz <= 0.5 * BLOCK && (dx < TUNNEL_HALF || dz < TUNNEL_HALF)
    })
}

/// The first limit `q` breaks in this scene with the base `grip` (`Err` names it): the
/// joint ranges, the clearances but the clamped head's (the pairs flagged in `touching` may
/// touch, not overlap), the static loads with gravity along [`DOWN`].
pub fn check(limits: &FollowLimits, grip: &Grip, q: &LiftJoints, touching: &[bool; 8]) -> Result<(), &'static str> {
    if !limits.in_range(q) {
        return Err("joint range");
    }
    let l = links(grip, q);
    let based = if grip.base == Base::Front { 0 } else { 2 };
    for (i, d) in clearances(&l).iter().enumerate() {
        if i == based {
            continue;
        }
        let least = if touching[i] { -1e-6 } else { limits.margin };
        if *d < least {
            return Err(FOLLOW_PAIRS[i]);
        }
    }
    let (torque, force) = loads(grip, &l, DOWN);
    if torque.iter().any(|t| *t > limits.torque) {
        return Err("universal joint torque");
    }
    if force.iter().any(|f| *f > limits.force) {
        return Err("prismatic joint force");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::molemod::follow::{FOLLOW_PATH, FOLLOW_REAR_START, FOLLOW_START};
    use crate::molemod::lift;
    use crate::molemod::lift::segment_samples;
    use crate::molemod::motion::{TURN_UP_PATH, TURN_UP_START};
    use crate::molemod::shift_below::{SHIFT_BELOW_ACROSS, SHIFT_BELOW_ROLL_PATH};

    /// What a table meets as the firmware runs it in this scene.
    struct Walk {
        least: f64,
        worst: (&'static str, usize),
        torque: [f64; 2],
        force: f64,
        switches: usize,
        end: Links,
    }

    /// Walks `path` from the rear head at `start`, sampled every 1 ms as the firmware moves
    /// the joints (each at its own speed), in this scene: every sample keeps to `limits`
    /// (the pairs closer than the margin where a base's phases start may touch), and where
    /// the base changes the head that takes over has its centre in a tunnel of [`BLOCKS`].
    fn walk(path: &[(Base, LiftJoints)], start: Pose, limits: &FollowLimits) -> Result<Walk, String> {
        let touching_at = |grip: &Grip, q: &LiftJoints| -> [bool; 8] {
            let d = clearances(&links(grip, q));
            std::array::from_fn(|i| d[i] < limits.margin)
        };
        let mut grip = Grip { base: path[0].0, pose: start };
        let mut touching = touching_at(&grip, &path[0].1);
        let mut w = Walk { least: f64::INFINITY, worst: ("", 0), torque: [0.0; 2], force: 0.0, switches: 0, end: links(&grip, &path[0].1) };
        for (k, pair) in path.windows(2).enumerate() {
            let ((_, from), (base, to)) = (pair[0], pair[1]);
            if base != grip.base {
                let l = links(&grip, &from);
                let pose = if base == Base::Front { l.front } else { l.rear };
                if !in_tunnel((pose.x, pose.z)) {
                    return Err(format!("row {}: the {base:?} head grips outside a tunnel at {pose:?}", k + 1));
                }
                grip = Grip { base, pose };
                touching = touching_at(&grip, &from);
                w.switches += 1;
            }
            let based = if grip.base == Base::Front { 0 } else { 2 };
            for q in segment_samples(&from, &to, 0.001) {
                check(limits, &grip, &q, &touching).map_err(|e| format!("row {}: {e} at {q:?}", k + 1))?;
                let l = links(&grip, &q);
                for (i, d) in clearances(&l).iter().enumerate() {
                    if i != based && !touching[i] && *d < w.least {
                        (w.least, w.worst) = (*d, (FOLLOW_PAIRS[i], k + 1));
                    }
                }
                let (torque, force) = loads(&grip, &l, DOWN);
                w.torque = [w.torque[0].max(torque[0]), w.torque[1].max(torque[1])];
                w.force = force.iter().fold(w.force, |m, f| m.max(*f));
            }
            w.end = links(&grip, &to);
        }
        Ok(w)
    }

    fn world_mm(p: &Pose) -> (f64, f64, f64) {
        let w = pose_to_world(p);
        (w.x * 1e3, w.z * 1e3, w.angle)
    }

    /// The map: its own inverse; task 1's C, A (on C) and B (beside C, towards -x) land on
    /// [`BLOCKS`]; the floor under C (50 mm below its crossing) is [`GROUND`]; gravity is
    /// [`DOWN`]. The follow's start is where the shift from below leaves the mole once
    /// raised and turned: its upper (here rear) head 108 mm above C's crossing on the line
    /// [`SHIFT_BELOW_ACROSS`] from the axis away from B, where it stands.
    #[test]
    fn task_1_after_the_roll_in_the_follow_frame() {
        for p in [(0.013, -0.021), (-0.1, 0.05), (0.0, 0.0)] {
            let back = to_follow(to_follow(p));
            assert!((back.0 - p.0).abs() < 1e-15 && (back.1 - p.1).abs() < 1e-15);
        }
        for (world, follow) in [((0.0, 0.0), BLOCKS[0]), ((0.0, BLOCK), BLOCKS[1]), ((-BLOCK, 0.0), BLOCKS[2])] {
            assert_eq!(to_follow(world), follow);
        }
        assert_eq!(to_follow((0.0, -0.5 * BLOCK)).0, GROUND);
        assert_eq!(to_follow((0.0, -1.0)), DOWN);
        let start = pose_to_world(&FOLLOW_REAR_START);
        assert!((start.x - SHIFT_BELOW_ACROSS).abs() < 1e-12 && (start.z - 0.108).abs() < 1e-12, "{start:?}");
        // The rear head's x axis points along the chain: down the column in the world.
        assert!((start.angle + 0.5 * std::f64::consts::PI).abs() < 1e-12, "{start:?}");
        // By hand: the centre of C's x tunnel towards B is 25 mm from its rims; 60 mm below
        // the crossing (10 mm into the ground) is 10 mm inside.
        assert!((point_clearance(to_follow((-0.06, 0.0))) - 0.025).abs() < 1e-12);
        assert!((point_clearance(to_follow((0.0, -0.06))) + 0.01).abs() < 1e-12);
        assert!(in_tunnel(to_follow((-0.092, -0.004))) && in_tunnel(to_follow((0.004, 0.105))) && !in_tunnel(to_follow((0.0, 0.205))));
    }

    /// The straightening after the shift from below ([`super::super::motion::Motion::Straighten`]
    /// with the lower head holding): from [`SHIFT_BELOW_ROLL_PATH`]'s last row (both pitches
    /// 89 mrad: the upper head on A's tunnel axis, the lower one on C's floor against its
    /// wall away from B) to every joint at zero, read in the follow's frame (the physical
    /// rows mirrored, the lower head the stored front head), sampled every 1 ms: every cube
    /// and joint keeps 1 mm from the blocks and the ground but those touching where it
    /// starts (the lower head on the floor and the wall, the body on the wall), the loads
    /// are within the actuators', and the mole ends straight where the turn starts it from.
    #[test]
    fn straightening_after_the_shift_from_below_clears_the_blocks() {
        let limits = FollowLimits { margin: 1e-3, down: DOWN, ..FollowLimits::actuators() };
        let lower = Pose { x: 0.030, z: -crate::molemod::lift::AXIS_BELOW, angle: 0.0 };
        let rows = [(Base::Front, lift::mirror(&SHIFT_BELOW_ROLL_PATH[SHIFT_BELOW_ROLL_PATH.len() - 1])), (Base::Front, [0.0; 6])];
        let start = links(&Grip { base: Base::Front, pose: lower }, &rows[0].1);
        let upper = pose_to_world(&start.rear);
        assert!(upper.x.abs() < 5e-4 && (upper.z - 0.082).abs() < 5e-4, "the upper head on A's axis, 132 mm up: {upper:?}");
        // One phase, the lower head the base; the pairs touching where it starts or ends (the
        // body comes to lie against C's wall, as the turn starts it) may touch, not overlap.
        let grip = Grip { base: Base::Front, pose: lower };
        let touch = |q: &LiftJoints| clearances(&links(&grip, q)).map(|d| d < limits.margin);
        let (a, b) = (touch(&rows[0].1), touch(&rows[1].1));
        let touching: [bool; 8] = std::array::from_fn(|i| a[i] || b[i]);
        let (mut least, mut worst, mut torque, mut force) = (f64::INFINITY, "", [0.0f64; 2], 0.0f64);
        for q in segment_samples(&rows[0].1, &rows[1].1, 0.001) {
            check(&limits, &grip, &q, &touching).unwrap_or_else(|e| panic!("{e} at {q:?}"));
            let l = links(&grip, &q);
            for (i, d) in clearances(&l).iter().enumerate() {
                if i != 0 && !touching[i] && *d < least {
                    (least, worst) = (*d, FOLLOW_PAIRS[i]);
                }
            }
            let (t, f) = loads(&grip, &l, DOWN);
            torque = [torque[0].max(t[0]), torque[1].max(t[1])];
            force = f.iter().fold(force, |m, v| m.max(*v));
        }
        let end = links(&grip, &rows[1].1);
        let (h, r) = (world_mm(&end.front), world_mm(&end.rear));
        eprintln!(
            "straighten: least clearance {:.3} mm ({worst}), touching allowed {touching:?}; peak static torque {:.3} / {:.3} N m, force {:.2} N; \
             upper head from ({:.2}, {:.2}) to ({:.2}, {:.2}) mm, lower head at ({:.2}, {:.2})",
            least * 1e3,
            torque[0],
            torque[1],
            force,
            upper.x * 1e3,
            upper.z * 1e3,
            r.0,
            r.1,
            h.0,
            h.1
        );
        assert!(least >= limits.margin && torque.iter().all(|t| *t <= limits.torque) && force <= limits.force);
        assert!((r.0 - SHIFT_BELOW_ACROSS * 1e3).abs() < 1e-6 && (r.1 - 82.0).abs() < 1e-6, "{r:?}");
    }

    /// The turn of the lower head into C's x tunnel towards B ([`TURN_UP_PATH`] in this
    /// scene, the upper head anchoring in A at [`FOLLOW_REAR_START`]), sampled every 1 ms:
    /// every cube and universal joint keeps 1 mm from the blocks and the ground but the body
    /// lying against the wall away from B (touching where it starts), and the loads are
    /// within the actuators'.
    #[test]
    fn the_turn_at_the_bottom_clears_the_blocks_and_the_ground() {
        let limits = FollowLimits { margin: 1e-3, down: DOWN, ..FollowLimits::actuators() };
        let rows: Vec<(Base, LiftJoints)> = TURN_UP_PATH
            .iter()
            .map(|&(pitch, u)| (Base::Rear, [0.0, pitch.max(-limits.pitch), u - TURN_UP_START, 0.0, 0.0, 0.0]))
            .collect();
        let w = walk(&rows, FOLLOW_REAR_START, &limits).unwrap_or_else(|e| panic!("{e}"));
        let (h, b, r) = (world_mm(&w.end.front), world_mm(&w.end.body), world_mm(&w.end.rear));
        eprintln!(
            "turn at the bottom: least clearance {:.3} mm ({} in row {}); peak static torque {:.3} / {:.3} N m, force {:.2} N; \
             world from C's crossing (across, up): turned head ({:.2}, {:.2}) at {:.4} rad, body ({:.2}, {:.2}), anchoring head ({:.2}, {:.2})",
            w.least * 1e3,
            w.worst.0,
            w.worst.1,
            w.torque[0],
            w.torque[1],
            w.force,
            h.0,
            h.1,
            h.2,
            b.0,
            b.1,
            r.0,
            r.1
        );
        assert!(w.least >= limits.margin && w.torque.iter().all(|t| *t <= limits.torque) && w.force <= limits.force);
        // It ends where the follow starts: the head level in C's x tunnel towards B, 23 mm
        // out, its joint at the crossing's centre.
        assert_eq!(rows[rows.len() - 1].1, FOLLOW_START);
        assert!((h.0 + 23.0).abs() < 0.1 && (h.1 + 0.0).abs() < 0.1 && (h.2.abs() - std::f64::consts::PI).abs() < 3e-3, "{h:?}");
    }

    /// The body following the turned head round C's crossing into the x tunnels of C and B
    /// ([`FOLLOW_PATH`] in this scene), sampled every 1 ms: every cube and universal joint
    /// keeps the follow's 0.75 mm margin from A, B, C and the ground and the cubes from each
    /// other (but for the body against the wall where it starts), the loads stay within the
    /// actuators' with gravity along [`DOWN`], the base changes five times to a head inside
    /// a block each time, and the mole ends lying along the x tunnels: the turned head in
    /// B, the other one in C's crossing facing its mouth away from B.
    #[test]
    fn the_follow_after_the_roll_clears_the_blocks_and_the_ground() {
        let limits = FollowLimits { down: DOWN, ..FollowLimits::actuators() };
        let w = walk(&FOLLOW_PATH, FOLLOW_REAR_START, &limits).unwrap_or_else(|e| panic!("{e}"));
        let (h, b, r) = (world_mm(&w.end.front), world_mm(&w.end.body), world_mm(&w.end.rear));
        eprintln!(
            "follow after the roll: least clearance {:.3} mm ({} in row {}); peak static torque {:.3} N m (turned head's pitch), {:.3} \
             (the other); peak prismatic force {:.2} N; {} base changes; ends, world from C's crossing (across, up): turned head \
             ({:.2}, {:.2}) at {:.4} rad, body ({:.2}, {:.2}) at {:.4}, other head ({:.2}, {:.2}) at {:.4}",
            w.least * 1e3,
            w.worst.0,
            w.worst.1,
            w.torque[0],
            w.torque[1],
            w.force,
            w.switches,
            h.0,
            h.1,
            h.2,
            b.0,
            b.1,
            b.2,
            r.0,
            r.1,
            r.2
        );
        assert!(w.least >= limits.margin);
        assert!(w.torque.iter().all(|t| *t <= limits.torque) && w.force <= limits.force);
        assert_eq!(w.switches, 5);
        // Lying level 3.75 mm below the x tunnel's axis (1.25 mm over its floor): the turned
        // head 108 mm towards B (in B), the other head 5 mm beyond the crossing's centre.
        for p in [h, b, r] {
            assert!((p.1 + 3.75).abs() < 0.01 && (p.2.abs() - std::f64::consts::PI).abs() < 3e-3, "{p:?}");
        }
        assert!((h.0 + 107.99).abs() < 0.01 && (b.0 + 51.99).abs() < 0.01 && (r.0 - 5.01).abs() < 0.01, "{h:?} {b:?} {r:?}");
        // The turned head's centre inside B (beyond C's face, 50 mm), the other's in C.
        assert!(-h.0 > 0.5e3 * BLOCK && r.0.abs() < 0.5e3 * BLOCK, "the heads in B and in C");
    }
}
