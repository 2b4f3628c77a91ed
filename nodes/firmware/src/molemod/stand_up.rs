//! Planar model of task 1's shift start: getting the mole from lying in the x tunnels of
//! B and C (C beside B towards +x, A upside down on B, nothing above C) to upright in C's
//! vertical tunnel, its lower head on C's floor ([`super::motion::Motion::ShiftBelow`]'s
//! start). The plane, shapes, chain, clearances and loads are [`super::follow`]'s, with the
//! blocks of task 1 ([`super::follow::TASK1_BLOCKS`]); C's crossing's centre is the origin.
//!
//! What it answers so far: whether the body can swing up round C's crossing with one head
//! held inside C as the only hold ([`passage_clearance`]). Going from lying (the body on
//! the far side of the front universal joint from C's vertical tunnel, towards B) to
//! upright (the body straight above that joint), the body's direction seen from the
//! joint turns from -x to +z, so it passes 45 degrees (up and towards B), where the
//! crossing's rim between B's side of the x tunnel and the vertical tunnel above stands.

use super::follow::{clearances_in, links, Base, Grip, FLOOR, TASK1_BLOCKS};
use super::lift::{LiftJoints, Pose, BLOCK, CUBE_HALF, CUBE_ROUNDING, PRISMATIC, TRAVEL, TUNNEL_HALF};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The body's pose angle half way between lying (the body towards B from the front
/// universal joint, its x axis towards +x) and upright (straight above the joint, its x
/// axis down), rad: seen from the joint the body is 45 degrees up towards B.
pub const HALF_WAY: f64 = -0.25 * std::f64::consts::PI;

/// [`HALF_WAY`] on the other side: the body 45 degrees up towards +x (the empty cell 3)
/// from the front universal joint, rad.
pub const HALF_WAY_OTHER_SIDE: f64 = -0.75 * std::f64::consts::PI;

/// Pairs of [`super::follow::FOLLOW_PAIRS`] the passage counts: the body and the blocks,
/// the held head and the body, the front universal joint (its disc and rods) and the blocks.
const PASSAGE_PAIRS: [usize; 3] = [1, 3, 6];

/// The most clearance the body can keep at the pose angle `body` ([`HALF_WAY`] or
/// [`HALF_WAY_OTHER_SIDE`]) with the front head held at `head`
/// (its x axis pointing away from the chain), m (negative = every choice overlaps): the
/// least over `PASSAGE_PAIRS`, maximised over `prismatic_0` (the head's lever) and
/// `prismatic_1` (the body's distance from the joint), each on a `step` grid over its
/// travel. The rear half is left out (it only adds overlaps), so a negative value means no
/// stand-up with that hold alone exists.
pub fn passage_clearance(head: &Pose, body: f64, step: f64) -> f64 {
    let n = (TRAVEL / step).round() as usize;
    let grip = Grip { base: Base::Front, pose: *head };
    let mut best = f64::NEG_INFINITY;
    for a in 0..=n {
        for b in 0..=n {
            let q: LiftJoints = [TRAVEL * a as f64 / n as f64, body - head.angle, TRAVEL * b as f64 / n as f64, 0.0, 0.0, 0.0];
            let c = clearances_in(&TASK1_BLOCKS, &links(&grip, &q));
            best = best.max(PASSAGE_PAIRS.iter().map(|&i| c[i]).fold(f64::INFINITY, f64::min));
        }
    }
    best
}

/// Whether a head at `pose` fits where it is (clear of the blocks and the floor, m) with
/// its centre inside C, where a clamp holds it.
pub fn held_in_c(pose: &Pose) -> bool {
    super::follow::solid_clearance_in(&TASK1_BLOCKS, pose) >= 0.0 && pose.x.abs() < 0.5 * BLOCK && pose.z.abs() < 0.5 * BLOCK
}

/// The best [`passage_clearance`] (2 mm grid) over lower heads held in C's vertical tunnel
/// with their centre at height `z` from C's crossing's centre (m): the head's centre every
/// 1 mm across the tunnel, its tilt every 0.01 rad within 0.4 rad of straight down (the most
/// a 40 mm head with 4 mm rounded edges tilts in a 50 mm tunnel), where
/// it fits; with the pose that keeps it. `None` if no head fits there.
pub fn best_lower_head(z: f64, body: f64) -> Option<(f64, Pose)> {
    let half = 0.5 * std::f64::consts::PI;
    let mut best: Option<(f64, Pose)> = None;
    for i in -6..=6 {
        for j in -40..=40 {
            let pose = Pose { x: 0.001 * f64::from(i), z, angle: -half + 0.01 * f64::from(j) };
            if !held_in_c(&pose) {
                continue;
            }
            let d = passage_clearance(&pose, body, 0.002);
            if best.is_none_or(|b| d > b.0) {
                best = Some((d, pose));
            }
        }
    }
    best
}

/// What [`hand_over_scan`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HandOver {
    /// Draws with the rear head's centre inside B or C (where it could hold).
    pub held: u64,
    /// Of those, draws with every pair but the base head's clear (touching allowed).
    pub clear: u64,
    /// The clearest of the held draws: its least clearance (m), joints and front head pose.
    pub clearest: Option<(f64, LiftJoints, Pose)>,
    /// The most [`passage_clearance`] towards B (1 mm grid, m) over the clear draws' front
    /// heads: whether the body, still lying, could then swing up over any of them.
    pub passage: Option<f64>,
}

/// A seeded random scan of the configurations where the rear head could hand over to a
/// front head held in C's vertical tunnel: `samples` draws of the front head (tilted up to
/// 0.4 rad; its centre `raised` (m, drawn between the two) above where it would stand on
/// its lowest corner on C's floor, anywhere across the tunnel where it fits), the body's
/// pose angle in `body` (rad), the other joints anywhere in range.
pub fn hand_over_scan(samples: u64, seed: u64, raised: (f64, f64), body: (f64, f64)) -> HandOver {
    let half = 0.5 * std::f64::consts::PI;
    let pitch = half - 0.002;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = HandOver { held: 0, clear: 0, clearest: None, passage: None };
    let inside = |(x, z): (f64, f64)| z.abs() < 0.5 * BLOCK && x > -1.5 * BLOCK && x < 0.5 * BLOCK;
    for _ in 0..samples {
        let tilt: f64 = rng.gen_range(-0.4..=0.4);
        // Standing on its lowest corner (the 32 mm core square and its 4 mm rounding).
        let reach = (CUBE_HALF - CUBE_ROUNDING) * (tilt.cos() + tilt.abs().sin()) + CUBE_ROUNDING;
        let room = TUNNEL_HALF - reach;
        if room <= 0.0 {
            continue;
        }
        let up = rng.gen_range(raised.0..=raised.1);
        let head = Pose { x: rng.gen_range(-room..=room), z: FLOOR + reach + up, angle: -half + tilt };
        let body_angle: f64 = rng.gen_range(body.0..=body.1);
        let mut q: LiftJoints =
            std::array::from_fn(|i| if PRISMATIC[i] { rng.gen_range(0.0..=TRAVEL) } else { rng.gen_range(-pitch..=pitch) });
        q[1] = body_angle - head.angle;
        if q[1].abs() > pitch {
            continue;
        }
        let l = links(&Grip { base: Base::Front, pose: head }, &q);
        if !inside((l.rear.x, l.rear.z)) {
            continue;
        }
        out.held += 1;
        let c = clearances_in(&TASK1_BLOCKS, &l);
        let least = c[1..].iter().fold(f64::INFINITY, |m, d| m.min(*d));
        if least >= 0.0 {
            out.clear += 1;
            let pass = passage_clearance(&head, HALF_WAY, 0.001);
            out.passage = Some(out.passage.map_or(pass, |p: f64| p.max(pass)));
        }
        if out.clearest.is_none_or(|b| least > b.0) {
            out.clearest = Some((least, q, head));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lower head resting on C's floor (its centre 20 mm up, upright; tilted it stands
    /// higher) or held up to 7 mm above that, anywhere across the tunnel and tilted as far
    /// as it fits: with `prismatic_0` and `prismatic_1` anywhere in their travel, the body
    /// cannot be 45 degrees up towards B, nor towards the empty cell, without overlapping
    /// the blocks, the head or the universal joint's disc and rods. Every stand-up passes
    /// one of the two (the front pitch turns the body from lying to upright within its
    /// ±90 degrees), so none exists with that head as the only hold. Held 12 mm above its
    /// resting height the body passes towards B with the model's 0.75 mm margin, so the
    /// check can pass (towards the empty cell it first clears at 8 mm).
    #[test]
    fn the_body_cannot_pass_45_degrees_over_a_lower_head_on_cs_floor() {
        for k in 0..=7 {
            let z = FLOOR + 0.020 + 0.001 * f64::from(k);
            for body in [HALF_WAY, HALF_WAY_OTHER_SIDE] {
                let (d, at) = best_lower_head(z, body).expect("a head fits");
                eprintln!(
                    "lower head {:.0} mm above the floor, body at {body:.3} rad: best {:.2} mm at {at:?}",
                    (z - FLOOR) * 1e3,
                    d * 1e3
                );
                assert!(d < 0.0, "{d} at {at:?}");
            }
        }
        let (d, at) = best_lower_head(FLOOR + 0.032, HALF_WAY).expect("a head fits");
        assert!(d > 0.75e-3, "{d} at {at:?}");
    }

    /// The check can pass: with the head lying in C's x tunnel towards +x (past the
    /// crossing, its nose at C's +x mouth), the body clears 45 degrees over the crossing's
    /// rim.
    #[test]
    fn with_the_head_far_enough_past_the_crossing_the_body_clears_45_degrees() {
        let d = passage_clearance(&Pose { x: 0.045, z: -0.005, angle: 0.0 }, HALF_WAY, 0.001);
        assert!(d > 0.0, "{d}");
    }

    /// No hand-over onto a head resting on C's floor once the body has passed 45 degrees:
    /// of 3 000 000 seeded draws (the head tilted up to 0.4 rad, anywhere across the
    /// tunnel; the body within 45 degrees of upright; the other joints anywhere), those
    /// that put the rear head's centre in B or C all overlap. With a head lying in C's x
    /// tunnel instead of the floor the same scan is not empty (the check can pass):
    /// `a_hand_over_with_the_body_lying_exists`.
    #[test]
    fn no_hand_over_onto_a_head_on_cs_floor_after_the_body_has_passed() {
        let pi = std::f64::consts::PI;
        let h = hand_over_scan(3_000_000, 1, (0.0, 0.0), (-0.75 * pi, -0.25 * pi));
        eprintln!("hand-over onto a head on C's floor, body past 45 degrees: {h:?}");
        assert!(h.held > 10_000, "{h:?}");
        assert_eq!(h.clear, 0, "{h:?}");
        assert!(h.clearest.is_some_and(|c| c.0 < -0.005), "{h:?}");
    }

    /// The scan finds hand-overs where they exist: onto a head on C's floor with the body
    /// still lying towards B (the rear head in B's tunnel), the landing's hand-over.
    #[test]
    fn a_hand_over_with_the_body_lying_exists() {
        let pi = std::f64::consts::PI;
        let h = hand_over_scan(1_000_000, 1, (0.0, 0.003), (-0.1 * pi, 0.1 * pi));
        eprintln!("hand-over onto a head on C's floor, body lying: {h:?}");
        assert!(h.clear > 0, "{h:?}");
    }

    /// Nor onto a head held higher, where the body could pass: of 3 000 000 seeded draws of
    /// a head held 10-35 mm above its resting height (tilted up to 0.4 rad), the body lying
    /// towards B or less than 45 degrees up, the few clear hand-overs are onto heads tilted
    /// the wrong way, over which the body cannot pass towards B.
    #[test]
    fn no_hand_over_onto_a_raised_head_the_body_can_pass() {
        let pi = std::f64::consts::PI;
        let h = hand_over_scan(3_000_000, 1, (0.010, 0.035), (-0.25 * pi, 0.25 * pi));
        eprintln!("hand-over onto a raised head, body lying or on the way: {h:?}");
        assert!(h.held > 100_000, "{h:?}");
        assert!(h.passage.is_none_or(|p| p < 0.0), "{h:?}");
    }
}
