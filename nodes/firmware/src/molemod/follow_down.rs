//! Planar model of the body following the lower head down into B's x tunnel after the push
//! over (issue #18, mole-followdown, "route Z"): the lower head (the push over's base, the
//! model's rear head) turned level into B's +x arm towards C, the upper head (the model's
//! front head) clamped in A on C; the rest of the mole to come out of A's -x mouth, over B's
//! top, down B's vertical tunnel and round B's crossing, to lie along B's and C's x tunnels.
//!
//! The scene and limits are [`super::after_push`]'s ([`limits`]: C at the origin, x from B
//! towards C, z up; A on C, B behind C, the cell above B empty). A hold is a head clamped with
//! its centre inside a block's tunnel; the lower head can hold in B's +x arm or in C, the
//! upper head in A or B. The tests show where the follow stops: [`super::follow::FOLLOW_PATH`]
//! turned round B's crossing ([`from_follow`]) keeps every limit but needs the upper head to
//! hold three times in the empty cell above B; with the upper head in A the lower head gets
//! no farther than 72 mm from B's column axis, and the upper head holds in B's column only
//! with the lower head 71 mm out or more ([`super::follow::reach`]), both holds at a block's face there; the
//! other hold in B, in its -x arm with the mole straight, needs the body to swing past the
//! crossing's rims at 140-150 degrees, with less than 1 mm of room at best ([`body_room`]),
//! and no phase to it was found. Searched phase by phase from the down turn's end with face
//! holds, the upper head reaches A's face and the lower head 71 mm out, but no phase takes
//! the upper head from A's face to B's top face there (the tests).

use super::after_push::{head_clearance, limits, start, AFTER_PUSH_BLOCKS};
use super::follow::{in_tunnel_in, links, phase_ok, reach, reaches, search_phase, Base, Grip};
use super::lift::{LiftJoints, Pose, BLOCK};

/// The lower head (the push over's base: the model's rear head) lying in B's +x arm, its
/// centre `out` (m) from B's column axis towards C and `z` (m) above the crossing's centre,
/// tilted `tilt` (rad, + turns its axis, which points towards the chain (-x), up).
pub fn lower_in_arm(out: f64, z: f64, tilt: f64) -> Grip {
    Grip { base: Base::Rear, pose: Pose { x: -BLOCK + out, z, angle: std::f64::consts::PI - tilt } }
}

/// A pose of [`super::follow`]'s frame (its crossing at the origin, the x tunnel behind
/// along -x, the column above along +z) seen round B's crossing in this scene's (C's
/// crossing at the origin, x from B towards C, z up), m and rad: a quarter turn, (x, z) ->
/// (z, -x) about B's crossing, takes the column above the follow's crossing to B's +x arm
/// towards C (where the lower head turns) and the x tunnel behind it to B's column above
/// (where the body comes down from); gravity, world -z, pulls along +x in the follow's frame.
pub fn from_follow(p: &Pose) -> Pose {
    Pose { x: p.z - BLOCK, z: -p.x, angle: p.angle - 0.5 * std::f64::consts::PI }
}

/// How deep a point (m) lies inside the block centred at `centre` (m): its least distance to
/// the block's faces, m (negative outside).
pub fn depth_in_block(p: (f64, f64), centre: (f64, f64)) -> f64 {
    0.5 * BLOCK - (p.0 - centre.0).abs().max((p.1 - centre.1).abs())
}

/// Head poses with centres on a `step` (m) grid over the box `x` by `z` (m, this scene's
/// frame) inside a block's tunnel, axes every `da` rad over `angles`, each head clear of the
/// blocks (its own clearance, which [`FollowLimits::check`] leaves out for a clamped head).
pub fn head_targets(x: (f64, f64), z: (f64, f64), step: f64, angles: (f64, f64), da: f64) -> Vec<Pose> {
    let count = |r: (f64, f64), s: f64| ((r.1 - r.0) / s).round() as i32;
    let mut v = Vec::new();
    for i in 0..=count(x, step) {
        for j in 0..=count(z, step) {
            let (px, pz) = (x.0 + step * f64::from(i), z.0 + step * f64::from(j));
            if !in_tunnel_in(&AFTER_PUSH_BLOCKS, (px, pz)) {
                continue;
            }
            for k in 0..=count(angles, da) {
                let t = Pose { x: px, z: pz, angle: angles.0 + da * f64::from(k) };
                if head_clearance(&t) >= 0.0 {
                    v.push(t);
                }
            }
        }
    }
    v
}

/// The deepest hold (m inside the block centred at `centre`) the upper head takes among
/// `targets` while the lower head lies `out` (m) along B's +x arm, level or tilted 0.05 or
/// 0.1 rad either way, 0, 2.5 or 5 mm above or below the crossing's centre (the tunnel's
/// play), the reach on a 2.5 mm grid; with the target. `None` if there is none.
pub fn deepest_hold(out: f64, targets: &[Pose], centre: (f64, f64)) -> Option<(f64, Pose)> {
    let lim = limits();
    let mut sorted: Vec<Pose> = targets.to_vec();
    sorted.sort_by(|a, b| depth_in_block((b.x, b.z), centre).total_cmp(&depth_in_block((a.x, a.z), centre)));
    let mut found: Option<(f64, Pose)> = None;
    for z in [-0.005, -0.0025, 0.0, 0.0025, 0.005] {
        for tilt in [-0.1, -0.05, 0.0, 0.05, 0.1] {
            let lower = lower_in_arm(out, z, tilt);
            if head_clearance(&lower.pose) < 0.0 {
                continue;
            }
            for t in &sorted {
                let d = depth_in_block((t.x, t.z), centre);
                if found.is_some_and(|f| d <= f.0) {
                    break;
                }
                if reaches(&lower, &lim, t, 0.0025) {
                    found = Some((d, *t));
                    break;
                }
            }
        }
    }
    found
}

/// The clamped heads and joints where [`super::down_turn::DOWN_TURN_PATH`] ends: the upper
/// head (the model's front) at its grip near A's -x mouth, the lower head 23 mm out in B's +x
/// arm, and the last row's joints.
pub fn down_turn_end() -> (Grip, Grip, LiftJoints) {
    use super::down_turn::DOWN_TURN_PATH;
    let (mut grip, _) = start();
    for pair in DOWN_TURN_PATH.windows(2) {
        let ((_, from), (base, _)) = (pair[0], pair[1]);
        if base != grip.base {
            let l = links(&grip, &from);
            grip = Grip { base, pose: if base == Base::Front { l.front } else { l.rear } };
        }
    }
    let q = DOWN_TURN_PATH[DOWN_TURN_PATH.len() - 1].1;
    (grip, Grip { base: Base::Rear, pose: links(&grip, &q).rear }, q)
}

/// One phase with `grip` clamped from `from` to the configuration [`reach`] finds (2.5 mm
/// grid, near `from`) with the other head at `target`: the firmware's straight phase if it
/// keeps the limits, else RRT-connect (`iterations`) for seeds 1 and 2. The rows from `from`
/// on; `Err` says which step failed.
pub fn phase(grip: &Grip, from: &LiftJoints, target: &Pose, iterations: usize) -> Result<Vec<LiftJoints>, &'static str> {
    let lim = limits();
    let (q, _) = reach(grip, &lim, target, 0.0025, Some(from)).ok_or("no configuration reaches the target")?;
    if phase_ok(grip, &lim, &lim.touching(grip, from), from, &q) {
        return Ok(vec![*from, q]);
    }
    (1..=2).find_map(|seed| search_phase(grip, &lim, from, &q, iterations, seed)).ok_or("no phase")
}

/// What a table of phases meets as the firmware runs it ([`walk`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Walked {
    /// Least clearance of the pairs (but the clamped head's own) not touching where their
    /// base's phases start, m.
    pub least: f64,
    /// Least clearance of a clamped head from the blocks, m.
    pub clamped: f64,
    /// Largest static torque on a pitch axis, N m.
    pub torque: f64,
    /// Largest static force along a prismatic joint, N.
    pub force: f64,
    /// How many times the base changes.
    pub switches: usize,
}

/// Walks `rows` (each with the head clamped in the phase that ends at it) from `grip` (the
/// first row's base) every 1 ms as the firmware moves the joints: every sample keeps
/// [`limits`] (the pairs closer than the margin where a base's phases start may touch), and
/// where the base changes the head that takes over has its centre in a tunnel of
/// [`AFTER_PUSH_BLOCKS`] and is itself clear of the blocks. `Err` says where not.
pub fn walk(grip: &Grip, rows: &[(Base, LiftJoints)]) -> Result<Walked, String> {
    use super::follow::{clearances_in, loads};
    use super::lift::segment_samples;
    let lim = limits();
    let mut grip = *grip;
    let mut touching = lim.touching(&grip, &rows[0].1);
    let mut w = Walked { least: f64::INFINITY, clamped: head_clearance(&grip.pose), torque: 0.0, force: 0.0, switches: 0 };
    for (k, pair) in rows.windows(2).enumerate() {
        let ((_, from), (base, to)) = (pair[0], pair[1]);
        if base != grip.base {
            let l = links(&grip, &from);
            let pose = if base == Base::Front { l.front } else { l.rear };
            if !in_tunnel_in(&AFTER_PUSH_BLOCKS, (pose.x, pose.z)) || head_clearance(&pose) < 0.0 {
                return Err(format!("row {}: the {base:?} head holds outside a tunnel or in a wall at {pose:?}", k + 1));
            }
            grip = Grip { base, pose };
            touching = lim.touching(&grip, &from);
            w.switches += 1;
            w.clamped = w.clamped.min(head_clearance(&pose));
        }
        let based = if grip.base == Base::Front { 0 } else { 2 };
        for q in segment_samples(&from, &to, 0.001) {
            lim.check(&grip, &q, &touching).map_err(|e| format!("row {}: {e} at {q:?}", k + 1))?;
            let l = links(&grip, &q);
            for (i, d) in clearances_in(lim.blocks, &l).iter().enumerate() {
                if i != based && !touching[i] {
                    w.least = w.least.min(*d);
                }
            }
            let (t, f) = loads(&grip, &l, lim.down);
            w.torque = w.torque.max(t[0]).max(t[1]);
            w.force = f.iter().fold(w.force, |m, v| m.max(*v));
        }
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::molemod::after_push::body_room;
    use crate::molemod::follow::{clearances_in, loads, FOLLOW_PAIRS, FOLLOW_PATH, FOLLOW_REAR_START};
    use crate::molemod::lift::segment_samples;

    const DEG: f64 = std::f64::consts::PI / 180.0;

    /// Millimetres from B's centre (x towards C, z up) of a point in this scene's frame.
    fn from_b(p: &Pose) -> (f64, f64) {
        ((p.x + BLOCK) * 1e3, p.z * 1e3)
    }

    /// [`FOLLOW_PATH`] turned round B's crossing: its front head leads along B's +x arm into C,
    /// its rear head holds in B's column above. Walked from its start as the firmware runs it
    /// (every 1 ms; the base changing where the table says, keeping its pose), every sample
    /// keeps this scene's limits (the 0.75 mm margin but for the pairs touching where a base's
    /// phases start, the 0.52 N m / 15 N with gravity down), and each of the lower head's three
    /// holds is in C's x tunnel; but the upper head's three holds (the start's and two more)
    /// are in the empty cell above B, out of every block: the last one 5 mm over B's top.
    #[test]
    fn the_follow_turned_round_b_keeps_every_limit_but_holds_the_upper_head_over_b() {
        let lim = limits();
        let mut grip = Grip { base: FOLLOW_PATH[0].0, pose: from_follow(&FOLLOW_REAR_START) };
        let mut holds = vec![(0, grip)];
        let mut touching = lim.touching(&grip, &FOLLOW_PATH[0].1);
        let (mut least, mut worst, mut torque, mut force) = (f64::INFINITY, ("", 0), [0.0f64; 2], 0.0f64);
        for (k, pair) in FOLLOW_PATH.windows(2).enumerate() {
            let ((_, from), (base, to)) = (pair[0], pair[1]);
            if base != grip.base {
                let l = links(&grip, &from);
                grip = Grip { base, pose: if base == Base::Front { l.front } else { l.rear } };
                holds.push((k + 1, grip));
                touching = lim.touching(&grip, &from);
            }
            let based = if grip.base == Base::Front { 0 } else { 2 };
            for q in segment_samples(&from, &to, 0.001) {
                lim.check(&grip, &q, &touching).unwrap_or_else(|e| panic!("row {}: {e} at {q:?}", k + 1));
                let l = links(&grip, &q);
                for (i, d) in clearances_in(lim.blocks, &l).iter().enumerate() {
                    if i != based && !touching[i] && *d < least {
                        (least, worst) = (*d, (FOLLOW_PAIRS[i], k + 1));
                    }
                }
                let (t, f) = loads(&grip, &l, lim.down);
                torque = [torque[0].max(t[0]), torque[1].max(t[1])];
                force = f.iter().fold(force, |m, v| m.max(*v));
            }
        }
        eprintln!(
            "follow turned round B: least clearance {:.3} mm ({} in row {}); peak static torque {:.3} / {:.3} N m (front / rear pitch), \
             force {:.2} N",
            least * 1e3,
            worst.0,
            worst.1,
            torque[0],
            torque[1],
            force
        );
        assert!(least >= lim.margin && torque.iter().all(|t| *t <= lim.torque) && force <= lim.force);
        let mut upper = Vec::new();
        for (row, h) in &holds {
            let (x, z) = from_b(&h.pose);
            let inside = in_tunnel_in(&AFTER_PUSH_BLOCKS, (h.pose.x, h.pose.z)) && head_clearance(&h.pose) >= 0.0;
            eprintln!("row {row}: the {:?} head holds at ({x:.2}, {z:.2}) mm from B's centre, inside a block: {inside}", h.base);
            match h.base {
                // The lower head: in C's x tunnel, level.
                Base::Front => assert!(inside && h.pose.x > -0.5 * BLOCK && h.pose.z.abs() < 0.005, "{h:?}"),
                Base::Rear => {
                    assert!(!inside && h.pose.z > 0.5 * BLOCK && (h.pose.x + BLOCK).abs() <= 0.005 + 1e-9, "{h:?}");
                    upper.push(z);
                }
            }
        }
        assert_eq!(upper.len(), 3);
        assert!((upper[0] - 108.0).abs() < 0.01 && (upper[1] - 82.9).abs() < 0.01 && (upper[2] - 55.0).abs() < 0.01, "{upper:?}");
    }

    /// Held in A (centre within 14.5 mm of A's -x face, A's tunnel there, every 2.5 mm and 0.05
    /// rad from -0.6 to 0.8 rad, clear of A), the upper head lets the lower one lie 72 mm out
    /// along B's +x arm (22 mm into C) only with its own centre 0.5 mm inside A's face, and no
    /// farther: at 73 mm no hold in A keeps the limits.
    /// Run with `cargo test --release -p flotilla_firmware --no-default-features --lib
    /// molemod::follow_down -- --ignored --nocapture --test-threads 1` (or `make
    /// measure-molemod FILTER='test(/follow_down/)'`).
    #[test]
    #[ignore = "a planar scan of ~70 s wall on the shared 2-core machine"]
    fn held_in_a_the_upper_head_lets_the_lower_one_no_farther_than_72_mm() {
        let targets = head_targets((-0.0495, -0.035), (0.076, 0.124), 0.0025, (-0.6, 0.8), 0.05);
        let at_72 = deepest_hold(0.072, &targets, (0.0, BLOCK)).expect("a hold in A with the lower head 72 mm out");
        let at_73 = deepest_hold(0.073, &targets, (0.0, BLOCK));
        eprintln!(
            "{} targets in A; lower head 72 mm out: the deepest hold {:.2} mm inside A at {:?} mm from B's centre, {:.2} rad; 73 mm: {at_73:?}",
            targets.len(),
            at_72.0 * 1e3,
            from_b(&at_72.1),
            at_72.1.angle
        );
        assert!(at_72.0 <= 0.5e-3 + 1e-9 && at_73.is_none());
    }

    /// Held in B's column (centre 0-20 mm below B's top, across the column, every 2.5 mm and
    /// 0.05 rad from 0.8 to 2.4 rad: pointing up with the chain below), the upper head needs the
    /// lower one at least 71 mm out along B's +x arm: at 70 mm no such hold keeps the limits;
    /// at 76 mm the deepest is 2.5 mm inside B.
    /// Run with `cargo test --release -p flotilla_firmware --no-default-features --lib
    /// molemod::follow_down -- --ignored --nocapture --test-threads 1` (or `make
    /// measure-molemod FILTER='test(/follow_down/)'`).
    #[test]
    #[ignore = "a planar scan of ~70 s wall on the shared 2-core machine"]
    fn held_in_bs_column_the_upper_head_needs_the_lower_one_71_mm_out() {
        let targets = head_targets((-0.125, -0.075), (0.030, 0.050), 0.0025, (0.8, 2.4), 0.05);
        let at_70 = deepest_hold(0.070, &targets, (-BLOCK, 0.0));
        let at_76 = deepest_hold(0.076, &targets, (-BLOCK, 0.0)).expect("a hold in B's column with the lower head 76 mm out");
        eprintln!(
            "{} targets in B's column; lower head 70 mm out: {at_70:?}; 76 mm: the deepest hold {:.2} mm inside B at {:?} mm, {:.2} rad",
            targets.len(),
            at_76.0 * 1e3,
            from_b(&at_76.1),
            at_76.1.angle
        );
        assert!(at_70.is_none() && (at_76.0 - 2.5e-3).abs() < 1e-6);
    }

    /// The other hold in B: the mole straight along B's x tunnel, the upper head in its -x arm
    /// (from where a crawl would take the mole on towards C). With the lower head 65 mm out,
    /// level on the tunnel's axis, the upper head holds in A and in B's -x arm; between the
    /// two the body turns about the lower universal joint from 96 to 180 degrees from +x, and
    /// on a 2 mm grid the body with both universal joints has no room at 148 degrees (its
    /// corner against the crossing's rims: -0.83 mm); RRT-connect (5000 iterations) finds no
    /// phase between the two holds for seeds 1-3.
    #[test]
    fn into_bs_far_arm_the_level_lower_head_leaves_the_body_no_room_to_swing() {
        let lim = limits();
        let lower = lower_in_arm(0.065, 0.0, 0.0);
        assert!(head_clearance(&lower.pose) >= 0.0);
        let best = |targets: Vec<Pose>| {
            targets.iter().filter_map(|t| reach(&lower, &lim, t, 0.0025, None).map(|h| (h, *t))).max_by(|a, b| a.0 .1.total_cmp(&b.0 .1))
        };
        let ((in_a, room_a), at_a) = best(head_targets((-0.047, -0.030), (0.080, 0.120), 0.0025, (-0.4, 0.6), 0.05)).expect("a hold in A");
        let ((in_b, room_b), at_b) = best(head_targets((-0.147, -0.110), (-0.010, 0.010), 0.0025, (2.6, 3.6), 0.05)).expect("a hold in B");
        let (mut tightest, mut at) = (f64::INFINITY, 0);
        for d in (96..=180).step_by(2) {
            let r = body_room(&lower, f64::from(d) * DEG, 0.002, true).expect("the lower pitch points the body there");
            if r < tightest {
                (tightest, at) = (r, d);
            }
        }
        let found: Vec<bool> = (1..=3).map(|seed| search_phase(&lower, &lim, &in_a, &in_b, 5000, seed).is_some()).collect();
        eprintln!(
            "lower head 65 mm out: hold in A at {:?} mm, {:.2} rad ({:.2} mm); in B's -x arm at {:?} mm, {:.2} rad ({:.2} mm); the swing's \
             tightest direction {at} degrees, {:.2} mm; RRT-connect (5000 iterations) seeds 1-3: {found:?}",
            from_b(&at_a),
            at_a.angle,
            room_a * 1e3,
            from_b(&at_b),
            at_b.angle,
            room_b * 1e3,
            tightest * 1e3
        );
        assert!(tightest < 0.0 && at == 148 && found.iter().all(|f| !f));
    }

    /// The hand-over through B's column with holds at a block's face, phase by phase from the
    /// down turn's end, one head clamped in each: (1) the lower head clamped where the turn
    /// leaves it (23 mm out), the upper head to a hold at A's -x face, (50.0, 97.5) mm from
    /// B's centre, 0.25 rad; (2) that held, the lower head out to 71 mm, 2.5 mm below the
    /// axis, tilt -0.1 rad ([`lower_in_arm`]; 0.98 mm from the tunnel's wall; of 7 poses scanned round it,
    /// 70.5-71.5 mm out, 2.0-2.8 mm below the axis, tilts -0.09 to -0.11 rad, it and the one at
    /// -0.11 rad let the upper head hold both in A, within the margin, and at B's top face);
    /// (3) the lower head clamped there, the upper head to the hold at B's top face, (0.0, 50.0)
    /// mm, 1.3 rad. Both holds are 0 mm inside their block (centre on the face) and keep the
    /// head clear of the solid, and (1) and (2) are found, but (3) is not: the firmware's
    /// straight phase breaks the limits and RRT-connect (20 000 iterations, seeds 1 and 2)
    /// finds no phase.
    #[test]
    fn the_face_hold_hand_over_finds_no_phase_from_a_to_bs_top_face() {
        let lim = limits();
        let (_, lower, q) = down_turn_end();
        assert!((from_b(&lower.pose).0 - 22.97).abs() < 0.01, "{:?}", lower.pose);
        let hold_a = Pose { x: 0.050 - BLOCK, z: 0.0975, angle: 0.25 };
        let out = lower_in_arm(0.071, -0.0025, -0.1);
        let hold_b = Pose { x: -BLOCK, z: 0.050, angle: 1.3 };
        for (pose, centre) in [(hold_a, (0.0, BLOCK)), (hold_b, (-BLOCK, 0.0))] {
            assert!(depth_in_block((pose.x, pose.z), centre).abs() < 1e-9 && in_tunnel_in(&AFTER_PUSH_BLOCKS, (pose.x, pose.z)));
            assert!(head_clearance(&pose) >= 0.0);
        }
        assert!(head_clearance(&out.pose) >= lim.margin);
        let p1 = phase(&lower, &q, &hold_a, 20_000).expect("phase 1: the upper head to A's face");
        let q1 = p1[p1.len() - 1];
        let upper = Grip { base: Base::Front, pose: links(&lower, &q1).front };
        let p2 = phase(&upper, &q1, &out.pose, 20_000).expect("phase 2: the lower head 71 mm out");
        let q2 = p2[p2.len() - 1];
        let lower_out = Grip { base: Base::Rear, pose: links(&upper, &q2).rear };
        let p3 = phase(&lower_out, &q2, &hold_b, 20_000);
        eprintln!(
            "phase 1: {} rows; phase 2: {} rows, the lower head at {:?} mm, {:.2} mm from the wall; phase 3: {:?}",
            p1.len(),
            p2.len(),
            from_b(&lower_out.pose),
            head_clearance(&lower_out.pose) * 1e3,
            p3.as_ref().map(Vec::len)
        );
        assert_eq!(p3, Err("no phase"));
    }
}
