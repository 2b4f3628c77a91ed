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
//! crossing's rims at 140-150 degrees, with less than 1 mm of room at best ([`super::after_push::body_room`]),
//! and no phase to it was found. Through B's column, with those face holds, [`search`] finds
//! the whole follow down from the down turn's end: the body's turn about the lower joint,
//! which must slide the body down B's column nearly upright, by
//! [`super::follow_keys::passage_phase`] (RRT-connect and greedy keys do not find it), then
//! the upper head down B's column and turned into B's crossing as the turn up mirrored, to
//! where `Follow { lead: Rear }` leaves the mole in the afterroll chain ([`FOLLOW_END`]);
//! stored as [`FOLLOW_DOWN_PATH`].

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
/// blocks (its own clearance, which [`super::follow::FollowLimits::check`] leaves out for a clamped head).
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

/// Where the hand-over clamps the upper head at A's -x face, m and rad from C's crossing:
/// its centre on the face, (50.0, 97.5) mm from B's centre, tilted 0.25 rad; 1.80 mm clear of
/// A's solid.
pub const HOLD_A: Pose = Pose { x: 0.05005 - BLOCK, z: 0.0975, angle: 0.25 };

/// Where the hand-over clamps the upper head at B's top face, m and rad: its centre on the
/// face over B's column axis, (0.0, 50.0) mm from B's centre, pointing up 1.3 rad.
pub const HOLD_B: Pose = Pose { x: -BLOCK, z: 0.04995, angle: 1.3 };

/// The lower head's poses in the follow down ([`lower_in_arm`]: m out from B's axis, m above
/// the x tunnel's axis, tilt rad): 71 mm out, where both face holds exist (the hand-over);
/// 120 mm out, tilted as at 71 (the upper head at B's top face lets it out no other way); and
/// 120 mm out level on the tunnel's floor side, for the upper head's turn into B's crossing.
pub const LOWER_POSES: [(f64, f64, f64); 3] = [(0.071, -0.0025, -0.1), (0.120, -0.00375, -0.1), (0.120, -0.00375, 0.0)];

/// How deep the upper head goes down B's column before the lower head levels, m: its centre
/// 30 mm above B's crossing (20 mm inside B's top face).
pub const COLUMN_HOLD: f64 = 0.030;

/// The upper universal joint's height in its turn into B's crossing ([`turn_keys`]), m above
/// the crossing's centre: 3 mm below it while the head stands, 4 mm below from half a radian
/// of the turn on (the turn up's 5 mm would put the body on the floor; 3.5 mm all the way
/// leaves the head 0.74 mm from the rims at 63 degrees).
pub const TURN_JOINT: (f64, f64, f64) = (-0.003, -0.004, 0.5);

/// Where `Follow { lead: Rear }` leaves the mole in the afterroll chain (step 3 of "Putting a
/// block down onward after the shift from below", the model's figures), in this scene: the
/// head in B's crossing 7.99 mm to -x of B's axis and the head in C 5.01 mm past C's
/// crossing, both level 3.75 mm below the tunnel's axis; as this model's upper head (the
/// model's front head, pointing -x) and lower head, m and rad.
pub const FOLLOW_END: (Pose, Pose) =
    (Pose { x: -BLOCK - 0.00799, z: -0.00375, angle: std::f64::consts::PI }, Pose { x: 0.00501, z: -0.00375, angle: std::f64::consts::PI });

/// The upper head's keys down B's column from `from` to its centre `to_z` (m above B's
/// crossing), `n` of them: on the column's axis, the angle turning to upright (the turn up's
/// last key, 2 mrad short of the pitch's range).
pub fn column_keys(from: &Pose, to_z: f64, n: i32) -> Vec<Pose> {
    use super::motion::TURN_UP_PATH;
    let upright = std::f64::consts::PI + TURN_UP_PATH[TURN_UP_PATH.len() - 1].0;
    (1..=n)
        .map(|k| {
            let f = f64::from(k) / f64::from(n);
            Pose { x: -BLOCK, z: from.z + (to_z - from.z) * f, angle: from.angle + (upright - from.angle) * f }
        })
        .collect()
}

/// The upper head's turn from upright in B's column to lying in B's x tunnel pointing -x (its
/// chain along B's +x arm): [`super::motion::TURN_UP_PATH`] mirrored (x -> -x about B's axis)
/// and reversed, its universal joint at [`TURN_JOINT`]'s height, m and rad.
pub fn turn_keys() -> Vec<Pose> {
    use super::lift::LEVER;
    use super::motion::TURN_UP_PATH;
    let (standing, late, from) = TURN_JOINT;
    TURN_UP_PATH
        .iter()
        .rev()
        .map(|&(pitch, along)| {
            let f = ((pitch + 0.5 * std::f64::consts::PI) / from).min(1.0);
            let joint = (-BLOCK - along, standing + (late - standing) * f);
            let angle = std::f64::consts::PI + pitch;
            Pose { x: joint.0 + LEVER * angle.cos(), z: joint.1 + LEVER * angle.sin(), angle }
        })
        .collect()
}

/// The other head through `keys` with `grip` clamped, from `from`: each key's joints sought
/// near the last one's ([`reach`], 2 mm grid), joined by the firmware's straight phase or
/// RRT-connect (3000 iterations, seed 1). The rows from `from` on; `Err` names the key.
pub fn through_keys(grip: &Grip, from: &LiftJoints, keys: &[Pose]) -> Result<Vec<LiftJoints>, String> {
    use super::follow_keys::join;
    let lim = limits();
    let mut rows = vec![*from];
    let mut q = *from;
    for (k, key) in keys.iter().enumerate() {
        let (next, _) = reach(grip, &lim, key, 0.002, Some(&q)).ok_or(format!("key {k} not reached: {key:?}"))?;
        let p = join(grip, &lim, &q, &next, 3000, 1).ok_or(format!("no phase to key {k}: {key:?}"))?;
        rows.extend(p.iter().skip(1));
        q = next;
    }
    Ok(rows)
}

/// The follow down from [`super::down_turn::DOWN_TURN_PATH`]'s end, one head clamped a phase:
/// (1) the lower head clamped where the turn leaves it, the upper head to [`HOLD_A`]; (2) the
/// lower head out to [`LOWER_POSES`]' first; (3) the body's turn about the lower joint taking
/// the upper head to [`HOLD_B`] ([`super::follow_keys::passage_phase`], cut at -0.6 rad of the
/// lower pitch); (4) the lower head out to 120 mm; (5) the upper head down B's column to
/// [`COLUMN_HOLD`] ([`column_keys`]); (6) the lower head level; (7) the upper head on down and
/// turned into B's crossing ([`turn_keys`]). Rows as [`super::down_turn::DOWN_TURN_PATH`]'s
/// (the head clamped in the phase that ends at each; [`Base::Front`] is the upper head), the
/// first the down turn's last. `Err` names the phase that failed.
pub fn search() -> Result<Vec<(Base, LiftJoints)>, String> {
    use super::follow_keys::{passage_phase, PassageGrid};
    let lim = limits();
    let (_, lower, q) = down_turn_end();
    let mut rows = vec![(Base::Rear, q)];
    let lower_at = |i: usize| lower_in_arm(LOWER_POSES[i].0, LOWER_POSES[i].1, LOWER_POSES[i].2).pose;
    let push = |rows: &mut Vec<(Base, LiftJoints)>, base: Base, p: &[LiftJoints]| {
        rows.extend(p.iter().skip(1).map(|q| (base, *q)));
        p[p.len() - 1]
    };
    let other = |grip: &Grip, q: &LiftJoints| {
        let l = links(grip, q);
        match grip.base {
            Base::Front => Grip { base: Base::Rear, pose: l.rear },
            Base::Rear => Grip { base: Base::Front, pose: l.front },
        }
    };
    let q1 = push(&mut rows, Base::Rear, &phase(&lower, &q, &HOLD_A, 20_000).map_err(|e| format!("phase 1: {e}"))?);
    let upper = other(&lower, &q1);
    let q2 = push(&mut rows, Base::Front, &phase(&upper, &q1, &lower_at(0), 20_000).map_err(|e| format!("phase 2: {e}"))?);
    let lower = other(&upper, &q2);
    let (at_b, _) = reach(&lower, &lim, &HOLD_B, 0.0025, None).ok_or("phase 3: the hold at B's top face not reached")?;
    let p3 = passage_phase(&lower, &lim, &q2, &at_b, &PassageGrid::found(), -0.6, (2000, 1)).map_err(|e| format!("phase 3: {e}"))?;
    let q3 = push(&mut rows, Base::Rear, &p3);
    let upper = other(&lower, &q3);
    let q4 = push(&mut rows, Base::Front, &phase(&upper, &q3, &lower_at(1), 20_000).map_err(|e| format!("phase 4: {e}"))?);
    let lower = other(&upper, &q4);
    let q5 = push(
        &mut rows,
        Base::Rear,
        &through_keys(&lower, &q4, &column_keys(&HOLD_B, COLUMN_HOLD, 10)).map_err(|e| format!("phase 5: {e}"))?,
    );
    let upper = other(&lower, &q5);
    let q6 = push(&mut rows, Base::Front, &phase(&upper, &q5, &lower_at(2), 20_000).map_err(|e| format!("phase 6: {e}"))?);
    let lower = other(&upper, &q6);
    let mut keys = column_keys(&upper.pose, TURN_JOINT.0 + super::lift::LEVER, 4);
    keys.extend(turn_keys());
    let p7 = through_keys(&lower, &q6, &keys).map_err(|e| format!("phase 7: {e}"))?;
    let (in_b, in_c) = FOLLOW_END;
    let mut p8 = phase(&lower, &p7[p7.len() - 1], &in_b, 20_000).map_err(|e| format!("phase 8: {e}"))?;
    p8.remove(0);
    let q8 = push(&mut rows, Base::Rear, &[p7, p8].concat());
    let upper = other(&lower, &q8);
    push(&mut rows, Base::Front, &phase(&upper, &q8, &in_c, 20_000).map_err(|e| format!("phase 9: {e}"))?);
    Ok(rows)
}

/// The follow down after the down turn, one firmware phase per row: joint targets in the order
/// of [`LiftJoints`] (the push over's model: `prismatic_0` and `universal_0_axis2` on the upper
/// head's side), each with the head clamped in the phase that ends at it ([`Base::Front`] is
/// the upper head, [`Base::Rear`] the lower); where the base changes both heads grip first.
/// The first row is [`super::down_turn::DOWN_TURN_PATH`]'s last. Row 1: the lower head
/// clamped where the turn leaves it (23 mm out in B's +x arm), the upper head to [`HOLD_A`];
/// rows 2-3: the upper head clamped there, the lower head out to 71 mm (2.5 mm below the
/// axis, tilted -0.1 rad); rows 4-217: the lower head clamped, the body turning about the
/// lower joint from 102 to 163 degrees and sliding down B's column (the passage), the upper
/// head over B's top and into [`HOLD_B`]; rows 218-221: the upper head clamped at B's top
/// face, the lower head out to 120 mm; rows 222-235: the lower head clamped, the upper head
/// down B's column to 30 mm above the crossing; row 236: the upper head clamped there, the
/// lower head level; rows 237-275: the lower head clamped, the upper head on down and turned
/// into B's crossing ([`turn_keys`]), lying there pointing -x (its centre 4 mm to -x of B's
/// axis and 4 mm below it, the mole straight along B's +x arm into C, the lower head 120 mm
/// from B's axis, 20 mm past C's), then (row 275) drawn to [`FOLLOW_END`]'s; row 276: the
/// upper head clamped, the lower head drawn in to [`FOLLOW_END`]'s: the mole ends straight
/// where `Follow { lead: Rear }` leaves it in the afterroll chain, `q[2]` (the body's
/// prismatic joint on the upper side) out 1 mm, as there. Found by `cargo run --release -p flotilla_firmware
/// --no-default-features --example molemod_follow_down_search` ([`search`]), rounded to 1 um
/// and 0.01 mrad; the unit test `the_follow_down_path_keeps_every_limit` walks the rounded
/// table.
pub const FOLLOW_DOWN_PATH: [(Base, LiftJoints); 277] = [
    (Base::Rear, [0.030000, 1.56020, 0.018040, 0.030000, -1.56000, 0.000000]),
    (Base::Rear, [0.025000, 1.27640, 0.002218, 0.025000, -1.56279, 0.000000]),
    (Base::Front, [0.028764, 1.46286, 0.006171, 0.024663, -1.45777, 0.024460]),
    (Base::Front, [0.030000, 1.53024, 0.007484, 0.030000, -1.46135, 0.030000]),
    (Base::Rear, [0.027000, 1.48120, 0.007500, 0.030000, -1.45880, 0.030000]),
    (Base::Rear, [0.024000, 1.49120, 0.009000, 0.030000, -1.44880, 0.030000]),
    (Base::Rear, [0.022808, 1.49443, 0.010697, 0.027431, -1.36591, 0.028224]),
    (Base::Rear, [0.021000, 1.50120, 0.010500, 0.030000, -1.43880, 0.030000]),
    (Base::Rear, [0.018000, 1.45120, 0.012000, 0.030000, -1.42880, 0.030000]),
    (Base::Rear, [0.015000, 1.40120, 0.013500, 0.030000, -1.41880, 0.030000]),
    (Base::Rear, [0.012000, 1.35120, 0.015000, 0.030000, -1.40880, 0.030000]),
    (Base::Rear, [0.009000, 1.30120, 0.016500, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.006000, 1.25120, 0.018000, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.003000, 1.20120, 0.019500, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 1.15120, 0.021000, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 1.10120, 0.022500, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 1.05120, 0.024000, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 1.00120, 0.025500, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.95120, 0.027000, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.90120, 0.028500, 0.030000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.85120, 0.030000, 0.028500, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.80120, 0.030000, 0.027000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.75120, 0.030000, 0.025500, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.70120, 0.030000, 0.024000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.65120, 0.030000, 0.022500, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.60120, 0.030000, 0.021000, -1.39880, 0.030000]),
    (Base::Rear, [0.000000, 0.55120, 0.030000, 0.019500, -1.38880, 0.030000]),
    (Base::Rear, [0.000000, 0.50120, 0.030000, 0.018000, -1.37880, 0.030000]),
    (Base::Rear, [0.001686, 0.39997, 0.027526, 0.016762, -1.36110, 0.029498]),
    (Base::Rear, [0.000000, 0.45120, 0.030000, 0.016500, -1.36880, 0.030000]),
    (Base::Rear, [0.001136, 0.33311, 0.028213, 0.014950, -1.35137, 0.029268]),
    (Base::Rear, [0.000000, 0.40120, 0.030000, 0.015000, -1.35880, 0.030000]),
    (Base::Rear, [0.001173, 0.28352, 0.028156, 0.013526, -1.34166, 0.029245]),
    (Base::Rear, [0.000000, 0.35120, 0.030000, 0.013500, -1.34880, 0.030000]),
    (Base::Rear, [0.001211, 0.23402, 0.028096, 0.012107, -1.33196, 0.029221]),
    (Base::Rear, [0.000000, 0.30120, 0.030000, 0.012000, -1.33880, 0.030000]),
    (Base::Rear, [0.003051, 0.23788, 0.029815, 0.010206, -1.26641, 0.027325]),
    (Base::Rear, [0.000000, 0.25120, 0.030000, 0.010500, -1.32880, 0.030000]),
    (Base::Rear, [0.003073, 0.19300, 0.029814, 0.008860, -1.25701, 0.027306]),
    (Base::Rear, [0.000000, 0.20120, 0.030000, 0.009000, -1.31880, 0.030000]),
    (Base::Rear, [0.003087, 0.14819, 0.029813, 0.007516, -1.24777, 0.027293]),
    (Base::Rear, [0.000000, 0.15120, 0.030000, 0.007500, -1.30880, 0.030000]),
    (Base::Rear, [0.000000, 0.10120, 0.030000, 0.006000, -1.29880, 0.030000]),
    (Base::Rear, [0.000000, 0.05120, 0.030000, 0.004500, -1.28880, 0.030000]),
    (Base::Rear, [0.000000, 0.00120, 0.030000, 0.004500, -1.27880, 0.030000]),
    (Base::Rear, [0.000155, -0.10295, 0.028501, 0.004873, -1.28012, 0.027158]),
    (Base::Rear, [0.000000, -0.04880, 0.030000, 0.003000, -1.26880, 0.030000]),
    (Base::Rear, [0.000000, -0.09880, 0.030000, 0.001500, -1.25880, 0.030000]),
    (Base::Rear, [0.000000, -0.14880, 0.030000, 0.001500, -1.24880, 0.030000]),
    (Base::Rear, [0.000000, -0.19880, 0.030000, 0.000000, -1.23880, 0.030000]),
    (Base::Rear, [0.000000, -0.24880, 0.030000, 0.000000, -1.22880, 0.030000]),
    (Base::Rear, [0.000000, -0.25880, 0.030000, 0.001500, -1.21880, 0.028500]),
    (Base::Rear, [0.000000, -0.20880, 0.028500, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, -0.15880, 0.027000, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, -0.10880, 0.025500, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, -0.05880, 0.024000, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, -0.00880, 0.022500, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, 0.04120, 0.021000, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, 0.09120, 0.019500, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, 0.14120, 0.018000, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, 0.19120, 0.016500, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, 0.24120, 0.015000, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, 0.29120, 0.013500, 0.001500, -1.20880, 0.028500]),
    (Base::Rear, [0.000000, 0.34120, 0.012000, 0.000000, -1.19880, 0.028500]),
    (Base::Rear, [0.000137, 0.21725, 0.012351, 0.000750, -1.20743, 0.026123]),
    (Base::Rear, [0.000000, 0.39120, 0.010500, 0.000000, -1.18880, 0.028500]),
    (Base::Rear, [0.000133, 0.26621, 0.010977, 0.000729, -1.19809, 0.026190]),
    (Base::Rear, [0.000000, 0.44120, 0.009000, 0.000000, -1.17880, 0.028500]),
    (Base::Rear, [0.000129, 0.31536, 0.009596, 0.000708, -1.18871, 0.026256]),
    (Base::Rear, [0.000000, 0.49120, 0.007500, 0.000000, -1.16880, 0.028500]),
    (Base::Rear, [0.000000, 0.54120, 0.006000, 0.000000, -1.15880, 0.028500]),
    (Base::Rear, [0.000000, 0.59120, 0.004500, 0.000000, -1.14880, 0.028500]),
    (Base::Rear, [0.000000, 0.64120, 0.004500, 0.000000, -1.13880, 0.028500]),
    (Base::Rear, [0.000000, 0.69120, 0.003000, 0.000000, -1.12880, 0.028500]),
    (Base::Rear, [0.001386, 0.69561, 0.004062, 0.001977, -1.14732, 0.026208]),
    (Base::Rear, [0.000000, 0.74120, 0.001500, 0.000000, -1.11880, 0.028500]),
    (Base::Rear, [0.001371, 0.74156, 0.004035, 0.001956, -1.13792, 0.026233]),
    (Base::Rear, [0.000000, 0.79120, 0.001500, 0.000000, -1.10880, 0.028500]),
    (Base::Rear, [0.002251, 0.78824, 0.002611, 0.001912, -1.12816, 0.026283]),
    (Base::Rear, [0.001000, 0.84120, 0.000000, 0.000000, -1.09880, 0.028500]),
    (Base::Rear, [0.002801, 0.62997, 0.002984, 0.002363, -1.13809, 0.024709]),
    (Base::Rear, [0.003521, 0.71924, 0.001475, 0.001828, -1.07566, 0.026006]),
    (Base::Rear, [0.002000, 0.80120, 0.000000, 0.000000, -1.08880, 0.028500]),
    (Base::Rear, [0.001962, 0.67197, 0.001139, 0.000581, -1.10343, 0.026659]),
    (Base::Rear, [0.001030, 0.73246, 0.001694, 0.003191, -1.06159, 0.023940]),
    (Base::Rear, [0.001000, 0.80120, 0.000000, 0.001500, -1.07880, 0.027000]),
    (Base::Rear, [0.002744, 0.66358, 0.000050, 0.001661, -1.08696, 0.026728]),
    (Base::Rear, [0.004826, 0.58376, 0.002046, 0.001829, -1.05730, 0.024409]),
    (Base::Rear, [0.003179, 0.79660, 0.002647, 0.001938, -1.10126, 0.024887]),
    (Base::Rear, [0.002000, 0.85120, 0.000000, 0.000000, -1.06880, 0.027000]),
    (Base::Rear, [0.004102, 0.75957, 0.002680, 0.001962, -1.09258, 0.024861]),
    (Base::Rear, [0.003000, 0.81120, 0.000000, 0.000000, -1.05880, 0.027000]),
    (Base::Rear, [0.003218, 0.75849, 0.002736, 0.003364, -1.08421, 0.023456]),
    (Base::Rear, [0.002000, 0.81120, 0.000000, 0.001500, -1.04880, 0.025500]),
    (Base::Rear, [0.004103, 0.80500, 0.002681, 0.001963, -1.07441, 0.023497]),
    (Base::Rear, [0.003000, 0.86120, 0.000000, 0.000000, -1.03880, 0.025500]),
    (Base::Rear, [0.004091, 0.84200, 0.002652, 0.001942, -1.06493, 0.023519]),
    (Base::Rear, [0.003000, 0.90120, 0.000000, 0.000000, -1.02880, 0.025500]),
    (Base::Rear, [0.003201, 0.85009, 0.002697, 0.003337, -1.05645, 0.022123]),
    (Base::Rear, [0.002000, 0.91120, 0.000000, 0.001500, -1.01880, 0.024000]),
    (Base::Rear, [0.001962, 0.77683, 0.001115, 0.001963, -1.03808, 0.022515]),
    (Base::Rear, [0.002740, 0.80181, 0.001759, 0.003317, -0.99906, 0.021166]),
    (Base::Rear, [0.003000, 0.88120, 0.000000, 0.001500, -1.00880, 0.024000]),
    (Base::Rear, [0.005009, 0.85969, 0.002674, 0.001958, -1.03795, 0.022139]),
    (Base::Rear, [0.004000, 0.92120, 0.000000, 0.000000, -0.99880, 0.024000]),
    (Base::Rear, [0.005384, 0.95265, 0.000467, 0.002392, -1.10346, 0.023296]),
    (Base::Rear, [0.004000, 0.96120, 0.000000, 0.000000, -0.98880, 0.024000]),
    (Base::Rear, [0.004537, 0.96705, 0.000405, 0.003070, -1.08165, 0.022394]),
    (Base::Rear, [0.003000, 0.98120, 0.000000, 0.001500, -0.97880, 0.022500]),
    (Base::Rear, [0.004992, 0.94265, 0.002630, 0.001926, -1.00999, 0.020803]),
    (Base::Rear, [0.004000, 1.01120, 0.000000, 0.000000, -0.96880, 0.022500]),
    (Base::Rear, [0.006016, 0.97105, 0.000432, 0.002215, -1.07167, 0.022154]),
    (Base::Rear, [0.005000, 0.98120, 0.000000, 0.000000, -0.95880, 0.022500]),
    (Base::Rear, [0.005016, 0.93197, 0.002691, 0.003334, -0.99278, 0.019401]),
    (Base::Rear, [0.004000, 1.00120, 0.000000, 0.001500, -0.94880, 0.021000]),
    (Base::Rear, [0.005907, 0.96055, 0.002642, 0.001935, -0.98287, 0.019430]),
    (Base::Rear, [0.005000, 1.03120, 0.000000, 0.000000, -0.93880, 0.021000]),
    (Base::Rear, [0.006826, 0.93253, 0.002670, 0.001955, -0.97424, 0.019414]),
    (Base::Rear, [0.006000, 1.00120, 0.000000, 0.000000, -0.92880, 0.021000]),
    (Base::Rear, [0.006889, 1.02446, 0.000440, 0.002255, -1.04142, 0.020959]),
    (Base::Rear, [0.006000, 1.05120, 0.000000, 0.000000, -0.91880, 0.021000]),
    (Base::Rear, [0.005065, 1.11702, 0.002784, 0.001264, -0.97400, 0.019160]),
    (Base::Rear, [0.005000, 1.07120, 0.000000, 0.001500, -0.90880, 0.019500]),
    (Base::Rear, [0.006806, 1.02534, 0.002605, 0.001908, -0.94580, 0.018085]),
    (Base::Rear, [0.006000, 1.10120, 0.000000, 0.000000, -0.89880, 0.019500]),
    (Base::Rear, [0.007725, 0.99723, 0.002633, 0.001928, -0.93718, 0.018070]),
    (Base::Rear, [0.007000, 1.07120, 0.000000, 0.000000, -0.88880, 0.019500]),
    (Base::Rear, [0.008461, 1.08243, 0.003325, 0.001706, -0.93404, 0.017828]),
    (Base::Rear, [0.006000, 1.10120, 0.000000, 0.001500, -0.87880, 0.018000]),
    (Base::Rear, [0.009357, 1.09989, 0.003347, 0.000388, -0.92561, 0.017827]),
    (Base::Rear, [0.007000, 1.12120, 0.000000, 0.000000, -0.86880, 0.018000]),
    (Base::Rear, [0.009338, 1.13527, 0.003320, 0.000385, -0.91635, 0.017829]),
    (Base::Rear, [0.007000, 1.16120, 0.000000, 0.000000, -0.85880, 0.018000]),
    (Base::Rear, [0.008625, 1.06233, 0.002588, 0.001895, -0.89988, 0.016726]),
    (Base::Rear, [0.008000, 1.14120, 0.000000, 0.000000, -0.84880, 0.018000]),
    (Base::Rear, [0.009328, 1.14419, 0.003305, 0.001704, -0.89849, 0.016508]),
    (Base::Rear, [0.007000, 1.17120, 0.000000, 0.001500, -0.83880, 0.016500]),
    (Base::Rear, [0.010219, 1.16167, 0.003321, 0.000385, -0.88996, 0.016508]),
    (Base::Rear, [0.008000, 1.19120, 0.000000, 0.000000, -0.82880, 0.016500]),
    (Base::Rear, [0.010196, 1.19721, 0.003288, 0.000381, -0.88054, 0.016508]),
    (Base::Rear, [0.008000, 1.23120, 0.000000, 0.000000, -0.81880, 0.016500]),
    (Base::Rear, [0.009225, 1.16060, 0.000372, 0.001904, -0.93157, 0.017253]),
    (Base::Rear, [0.009000, 1.21120, 0.000000, 0.000000, -0.80880, 0.016500]),
    (Base::Rear, [0.011105, 1.17038, 0.003330, 0.001706, -0.86375, 0.015189]),
    (Base::Rear, [0.009000, 1.20120, 0.000000, 0.001500, -0.79880, 0.015000]),
    (Base::Rear, [0.011073, 1.21492, 0.003281, 0.000381, -0.85397, 0.015186]),
    (Base::Rear, [0.009000, 1.25120, 0.000000, 0.000000, -0.78880, 0.015000]),
    (Base::Rear, [0.011050, 1.25065, 0.003243, 0.000376, -0.84439, 0.015184]),
    (Base::Rear, [0.009000, 1.29120, 0.000000, 0.000000, -0.77880, 0.015000]),
    (Base::Rear, [0.010046, 1.21425, 0.000346, 0.001774, -0.88974, 0.015947]),
    (Base::Rear, [0.010000, 1.27120, 0.000000, 0.000000, -0.76880, 0.015000]),
    (Base::Rear, [0.010045, 1.24933, 0.000337, 0.001729, -0.87827, 0.015923]),
    (Base::Rear, [0.010000, 1.31120, 0.000000, 0.000000, -0.75880, 0.015000]),
    (Base::Rear, [0.011926, 1.25962, 0.003232, 0.000375, -0.81766, 0.013858]),
    (Base::Rear, [0.010000, 1.30120, 0.000000, 0.000000, -0.74880, 0.013500]),
    (Base::Rear, [0.011906, 1.28658, 0.003199, 0.000371, -0.80812, 0.013854]),
    (Base::Rear, [0.010000, 1.33120, 0.000000, 0.000000, -0.73880, 0.013500]),
    (Base::Rear, [0.010891, 1.26903, 0.000323, 0.001653, -0.84754, 0.014610]),
    (Base::Rear, [0.011000, 1.33120, 0.000000, 0.000000, -0.72880, 0.013500]),
    (Base::Rear, [0.010893, 1.29583, 0.000316, 0.001619, -0.83660, 0.014588]),
    (Base::Rear, [0.011000, 1.36120, 0.000000, 0.000000, -0.71880, 0.013500]),
    (Base::Rear, [0.013072, 1.37596, 0.000062, 0.003363, -0.77992, 0.012459]),
    (Base::Rear, [0.011000, 1.36120, 0.000000, 0.001500, -0.70880, 0.012000]),
    (Base::Rear, [0.010434, 1.22161, 0.000937, 0.001889, -0.74341, 0.011466]),
    (Base::Rear, [0.012760, 1.32281, 0.003144, 0.000365, -0.77147, 0.012519]),
    (Base::Rear, [0.011000, 1.37120, 0.000000, 0.000000, -0.69880, 0.012000]),
    (Base::Rear, [0.010899, 1.33351, 0.000300, 0.001536, -0.80483, 0.013244]),
    (Base::Rear, [0.011000, 1.40120, 0.000000, 0.000000, -0.68880, 0.012000]),
    (Base::Rear, [0.010901, 1.36070, 0.000294, 0.001506, -0.79391, 0.013219]),
    (Base::Rear, [0.011000, 1.43120, 0.000000, 0.000000, -0.67880, 0.012000]),
    (Base::Rear, [0.011764, 1.36128, 0.000291, 0.001493, -0.78434, 0.013209]),
    (Base::Rear, [0.012000, 1.43120, 0.000000, 0.000000, -0.66880, 0.012000]),
    (Base::Rear, [0.014180, 1.41732, 0.000220, 0.001313, -0.77642, 0.012170]),
    (Base::Rear, [0.012000, 1.43120, 0.000000, 0.001500, -0.65880, 0.010500]),
    (Base::Rear, [0.011771, 1.36313, 0.000284, 0.001454, -0.76395, 0.011878]),
    (Base::Rear, [0.012000, 1.43120, 0.000000, 0.000000, -0.64880, 0.010500]),
    (Base::Rear, [0.011774, 1.38151, 0.000280, 0.001432, -0.75357, 0.011858]),
    (Base::Rear, [0.012000, 1.45120, 0.000000, 0.000000, -0.63880, 0.010500]),
    (Base::Rear, [0.011777, 1.39994, 0.000275, 0.001411, -0.74317, 0.011838]),
    (Base::Rear, [0.012000, 1.47120, 0.000000, 0.000000, -0.62880, 0.010500]),
    (Base::Rear, [0.011759, 1.34039, 0.000306, 0.000068, -0.70090, 0.010379]),
    (Base::Rear, [0.011781, 1.42745, 0.000270, 0.001385, -0.73230, 0.011812]),
    (Base::Rear, [0.012000, 1.50120, 0.000000, 0.000000, -0.61880, 0.010500]),
    (Base::Rear, [0.011763, 1.37014, 0.000300, 0.000067, -0.69048, 0.010381]),
    (Base::Rear, [0.012657, 1.42805, 0.000268, 0.001373, -0.72264, 0.011802]),
    (Base::Rear, [0.013000, 1.50120, 0.000000, 0.000000, -0.60880, 0.010500]),
    (Base::Rear, [0.012680, 1.37064, 0.000299, 0.000067, -0.68105, 0.010382]),
    (Base::Rear, [0.012662, 1.44662, 0.000264, 0.001353, -0.71224, 0.011783]),
    (Base::Rear, [0.013000, 1.52120, 0.000000, 0.000000, -0.59880, 0.010500]),
    (Base::Rear, [0.013000, 1.52120, 0.000017, 0.000000, -0.58895, 0.010000]),
    (Base::Rear, [0.014466, 1.46154, 0.002344, 0.000207, -0.68308, 0.008790]),
    (Base::Rear, [0.013000, 1.52120, 0.000034, 0.000000, -0.57910, 0.009500]),
    (Base::Rear, [0.013000, 1.53120, 0.000051, 0.000000, -0.56925, 0.009000]),
    (Base::Rear, [0.013000, 1.53120, 0.000068, 0.000000, -0.55940, 0.008500]),
    (Base::Rear, [0.013000, 1.53120, 0.000085, 0.000000, -0.54955, 0.008000]),
    (Base::Rear, [0.013000, 1.53120, 0.000102, 0.000000, -0.53970, 0.007500]),
    (Base::Rear, [0.013000, 1.53120, 0.000119, 0.000000, -0.52985, 0.007000]),
    (Base::Rear, [0.014810, 1.49040, 0.000894, 0.000235, -0.64036, 0.008956]),
    (Base::Rear, [0.013000, 1.53120, 0.000137, 0.000000, -0.52000, 0.006500]),
    (Base::Rear, [0.014253, 1.49870, 0.002518, 0.002050, -0.61311, 0.006266]),
    (Base::Rear, [0.013000, 1.53120, 0.000154, 0.000000, -0.51015, 0.006000]),
    (Base::Rear, [0.013000, 1.54120, 0.000171, 0.000000, -0.50030, 0.005500]),
    (Base::Rear, [0.013000, 1.54120, 0.000188, 0.000000, -0.49045, 0.005000]),
    (Base::Rear, [0.013000, 1.54120, 0.000205, 0.000000, -0.48060, 0.004500]),
    (Base::Rear, [0.013000, 1.54120, 0.000222, 0.000000, -0.47075, 0.004000]),
    (Base::Rear, [0.013000, 1.54120, 0.000239, 0.000000, -0.46090, 0.003500]),
    (Base::Rear, [0.013000, 1.54120, 0.000256, 0.000000, -0.45105, 0.003000]),
    (Base::Rear, [0.014646, 1.50299, 0.000945, 0.000214, -0.56034, 0.005227]),
    (Base::Rear, [0.015000, 1.52120, 0.000273, 0.000000, -0.44120, 0.002500]),
    (Base::Rear, [0.016595, 1.51334, 0.001379, 0.001059, -0.55367, 0.004480]),
    (Base::Rear, [0.018000, 1.49120, 0.000290, 0.000000, -0.43135, 0.002000]),
    (Base::Rear, [0.017961, 1.49682, 0.002267, 0.002076, -0.54176, 0.003014]),
    (Base::Rear, [0.021000, 1.47120, 0.000307, 0.000000, -0.42150, 0.001500]),
    (Base::Rear, [0.020638, 1.47891, 0.002260, 0.002052, -0.53168, 0.002556]),
    (Base::Rear, [0.024000, 1.46120, 0.000324, 0.000000, -0.41165, 0.001000]),
    (Base::Rear, [0.027000, 1.51120, 0.000341, 0.000000, -0.40180, 0.000500]),
    (Base::Rear, [0.030000, 1.56120, 0.000358, 0.000000, -0.39195, 0.000000]),
    (Base::Rear, [0.012500, 1.54964, 0.000358, 0.000000, -0.39195, 0.000000]),
    (Base::Front, [0.012541, 1.55121, 0.003856, 0.001115, -0.47848, 0.000186]),
    (Base::Front, [0.012944, 1.55010, 0.003885, 0.001621, -0.53864, 0.004256]),
    (Base::Front, [0.011783, 1.50341, 0.005019, 0.001606, -0.65124, 0.006316]),
    (Base::Front, [0.012500, 1.56869, 0.009934, 0.010000, -0.37290, 0.030000]),
    (Base::Rear, [0.010000, 1.53361, 0.010375, 0.008000, -0.38090, 0.030000]),
    (Base::Rear, [0.011397, 1.38726, 0.011484, 0.007665, -0.35775, 0.023975]),
    (Base::Rear, [0.008000, 1.53327, 0.012520, 0.010000, -0.35416, 0.024000]),
    (Base::Rear, [0.009973, 1.37511, 0.013300, 0.008851, -0.33325, 0.018860]),
    (Base::Rear, [0.008000, 1.56120, 0.014677, 0.014000, -0.29915, 0.016000]),
    (Base::Rear, [0.006000, 1.53333, 0.013381, 0.014000, -0.29994, 0.016000]),
    (Base::Rear, [0.008347, 1.41430, 0.012600, 0.014524, -0.31472, 0.015048]),
    (Base::Rear, [0.006862, 1.50607, 0.014592, 0.017990, -0.27180, 0.009321]),
    (Base::Rear, [0.006000, 1.55928, 0.015748, 0.020000, -0.24691, 0.006000]),
    (Base::Rear, [0.004000, 1.54691, 0.018441, 0.022000, -0.23221, 0.000000]),
    (Base::Rear, [0.002000, 1.51928, 0.017414, 0.022000, -0.23275, 0.000000]),
    (Base::Rear, [0.000000, 1.49147, 0.016496, 0.022000, -0.23348, 0.000000]),
    (Base::Rear, [0.000000, 1.48479, 0.013495, 0.024000, -0.21309, 0.000000]),
    (Base::Rear, [0.000000, 1.47832, 0.012535, 0.024000, -0.19248, 0.000000]),
    (Base::Front, [0.000000, 1.50838, 0.013680, 0.022500, -0.06242, 0.000000]),
    (Base::Rear, [0.000000, 1.52192, 0.016110, 0.020000, -0.04887, 0.000000]),
    (Base::Rear, [0.000000, 1.53548, 0.016057, 0.020000, -0.03531, 0.000000]),
    (Base::Rear, [0.000000, 1.54906, 0.016022, 0.020000, -0.02174, 0.000000]),
    (Base::Rear, [0.000000, 1.56264, 0.016003, 0.020000, -0.00815, 0.000000]),
    (Base::Rear, [0.000000, 1.56253, 0.014753, 0.020000, -0.00826, 0.000000]),
    (Base::Rear, [0.000000, 1.51133, 0.014752, 0.020000, -0.00711, 0.000000]),
    (Base::Rear, [0.000000, 1.51119, 0.013002, 0.020000, -0.00725, 0.000000]),
    (Base::Rear, [0.000000, 1.46000, 0.013002, 0.020000, -0.00607, 0.000000]),
    (Base::Rear, [0.000000, 1.45988, 0.013252, 0.018000, -0.00620, 0.000000]),
    (Base::Rear, [0.000000, 1.40872, 0.013251, 0.018000, -0.00500, 0.000000]),
    (Base::Rear, [0.000000, 1.40860, 0.011251, 0.018000, -0.00511, 0.000000]),
    (Base::Rear, [0.000000, 1.35747, 0.011251, 0.018000, -0.00388, 0.000000]),
    (Base::Rear, [0.000000, 1.35740, 0.011751, 0.016000, -0.00395, 0.000000]),
    (Base::Rear, [0.000000, 1.30629, 0.011750, 0.016000, -0.00270, 0.000000]),
    (Base::Rear, [0.000000, 1.30624, 0.010000, 0.016000, -0.00276, 0.000000]),
    (Base::Rear, [0.000000, 1.25515, 0.010000, 0.016000, -0.00148, 0.000000]),
    (Base::Rear, [0.000000, 1.25512, 0.010250, 0.014000, -0.00152, 0.000000]),
    (Base::Rear, [0.000000, 1.20407, 0.010250, 0.014000, -0.00021, 0.000000]),
    (Base::Rear, [0.000000, 1.20406, 0.008750, 0.014000, -0.00022, 0.000000]),
    (Base::Rear, [0.000000, 1.15303, 0.008750, 0.014000, 0.00111, 0.000000]),
    (Base::Rear, [0.000000, 1.15305, 0.007250, 0.014000, 0.00114, 0.000000]),
    (Base::Rear, [0.000000, 1.10205, 0.007250, 0.014000, 0.00249, 0.000000]),
    (Base::Rear, [0.000000, 1.10210, 0.005750, 0.014000, 0.00254, 0.000000]),
    (Base::Rear, [0.000000, 1.05050, 0.005750, 0.014000, 0.00330, 0.000000]),
    (Base::Rear, [0.000000, 1.05055, 0.006500, 0.012000, 0.00336, 0.000000]),
    (Base::Rear, [0.000000, 0.99819, 0.006500, 0.012000, 0.00336, 0.000000]),
    (Base::Rear, [0.000000, 0.99823, 0.005750, 0.012000, 0.00339, 0.000000]),
    (Base::Rear, [0.000000, 0.94587, 0.005750, 0.012000, 0.00339, 0.000000]),
    (Base::Rear, [0.000000, 0.94590, 0.005000, 0.012000, 0.00342, 0.000000]),
    (Base::Rear, [0.000000, 0.89354, 0.005000, 0.012000, 0.00342, 0.000000]),
    (Base::Rear, [0.000000, 0.89355, 0.004750, 0.012000, 0.00344, 0.000000]),
    (Base::Rear, [0.000000, 0.84119, 0.004750, 0.012000, 0.00344, 0.000000]),
    (Base::Rear, [0.000000, 0.84121, 0.004500, 0.012000, 0.00345, 0.000000]),
    (Base::Rear, [0.000000, 0.78885, 0.004500, 0.012000, 0.00345, 0.000000]),
    (Base::Rear, [0.000000, 0.78886, 0.004250, 0.012000, 0.00346, 0.000000]),
    (Base::Rear, [0.000000, 0.73650, 0.004250, 0.012000, 0.00346, 0.000000]),
    (Base::Rear, [0.000000, 0.73671, 0.002000, 0.010000, 0.00368, 0.000000]),
    (Base::Rear, [0.000000, 0.00368, 0.004000, 0.008000, 0.00368, 0.000000]),
    (Base::Rear, [0.000000, 0.00000, 0.005990, 0.010000, 0.00000, 0.000000]),
    (Base::Front, [0.000000, 0.00000, 0.001000, 0.000000, 0.00000, 0.000000]),
];

/// `rows` as they are stored: the pitches rounded to 0.01 mrad, the rest to 1 um, a row that
/// rounds to the one before it (same base) dropped.
pub fn stored(rows: &[(Base, LiftJoints)]) -> Vec<(Base, LiftJoints)> {
    let round = |r: &LiftJoints| -> LiftJoints {
        std::array::from_fn(|i| if i == 1 || i == 4 { (r[i] * 1e5).round() / 1e5 } else { (r[i] * 1e6).round() / 1e6 })
    };
    let mut table: Vec<(Base, LiftJoints)> = Vec::new();
    for (base, r) in rows {
        let q = round(r);
        if table.last().is_none_or(|l| l.1 != q || l.0 != *base) {
            table.push((*base, q));
        }
    }
    table
}

/// What a table of phases meets as the firmware runs it ([`walk`]).
#[derive(Clone, Debug, PartialEq)]
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
    /// Each hold: the row whose phase it starts and the clamped head (the first the start's).
    pub holds: Vec<(usize, Grip)>,
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
    let mut w =
        Walked { least: f64::INFINITY, clamped: head_clearance(&grip.pose), torque: 0.0, force: 0.0, switches: 0, holds: vec![(1, grip)] };
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
            w.holds.push((k + 1, grip));
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
    /// head clear of the solid, and (1) and (2) are found, but (3) is not, by these two: the
    /// firmware's straight phase breaks the limits and RRT-connect (20 000 iterations, seeds 1
    /// and 2) finds no phase. The passage finds it
    /// (`the_greedy_keys_stop_where_the_body_must_slide_down_bs_column`, [`FOLLOW_DOWN_PATH`]).
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

    /// The stored follow down, walked every 1 ms from [`down_turn_end`] as the firmware runs
    /// it ([`walk`]): it starts at the down turn's last row; every sample keeps every limit
    /// (the 0.75 mm margin, 0.52 N m, 15 N, the ranges, each clamped head clear of the blocks);
    /// the base changes seven times, each hold with the head's centre in a tunnel: the upper
    /// head at [`HOLD_A`] and at [`HOLD_B`] (0.05 mm inside A's -x face and B's top face), then
    /// 20 mm inside B's column, then at [`FOLLOW_END`]'s place in B's crossing; the lower head
    /// at [`LOWER_POSES`]. At the end both heads are at [`FOLLOW_END`] (within 10 um and 0.1
    /// mrad), the mole straight, `q[2]` out 1 mm.
    #[test]
    fn the_follow_down_path_keeps_every_limit() {
        let lim = limits();
        let (_, lower, q) = down_turn_end();
        assert_eq!(FOLLOW_DOWN_PATH[0], (Base::Rear, q));
        let w = walk(&lower, &FOLLOW_DOWN_PATH).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "follow down: {} rows; least clearance {:.3} mm, clamped heads {:.3} mm from the blocks; peak static torque {:.3} N m, force {:.2} N",
            FOLLOW_DOWN_PATH.len(),
            w.least * 1e3,
            w.clamped * 1e3,
            w.torque,
            w.force
        );
        for (row, h) in &w.holds {
            let (x, z) = from_b(&h.pose);
            eprintln!("row {row}: the {:?} head holds at ({x:.2}, {z:.2}) mm from B's centre, {:.3} rad", h.base, h.pose.angle);
        }
        assert!(w.least >= lim.margin && w.clamped >= 0.0 && w.torque <= lim.torque && w.force <= lim.force);
        let rows: Vec<usize> = w.holds.iter().map(|h| h.0).collect();
        assert_eq!(rows, [1, 2, 4, 218, 222, 236, 237, 276]);
        let near = |a: &Pose, b: &Pose| (a.x - b.x).hypot(a.z - b.z) < 1e-5 && (a.angle - b.angle).abs() < 1e-4;
        assert!(near(&w.holds[1].1.pose, &HOLD_A) && near(&w.holds[3].1.pose, &HOLD_B), "{:?}", w.holds);
        assert!((depth_in_block((HOLD_A.x, HOLD_A.z), (0.0, BLOCK)) - 5e-5).abs() < 1e-9);
        assert!((depth_in_block((HOLD_B.x, HOLD_B.z), (-BLOCK, 0.0)) - 5e-5).abs() < 1e-9);
        for (i, k) in [(0, 2), (1, 4), (2, 6)] {
            let (out, z, tilt) = LOWER_POSES[i];
            let p = w.holds[k].1.pose;
            assert!(near(&p, &lower_in_arm(out, z, tilt).pose), "{p:?}");
        }
        let column = w.holds[5].1.pose;
        assert!((column.z - COLUMN_HOLD).abs() < 1e-4 && depth_in_block((column.x, column.z), (-BLOCK, 0.0)) > 0.0199, "{column:?}");
        let last = FOLLOW_DOWN_PATH[FOLLOW_DOWN_PATH.len() - 1].1;
        let l = links(&w.holds[7].1, &last);
        let ((x, z), (lx, lz)) = (from_b(&l.front), from_b(&l.rear));
        eprintln!("end: the upper head ({x:.3}, {z:.3}) mm from B's centre, the lower head ({lx:.3}, {lz:.3}) mm; joints {last:?}");
        let (in_b, in_c) = FOLLOW_END;
        assert!(near(&l.front, &in_b) && near(&l.rear, &in_c), "{l:?}");
        assert!(last == [0.0, 0.0, 0.001, 0.0, 0.0, 0.0], "{last:?}");
    }

    /// The search ([`search`]) finds the stored table again (rounded as stored).
    /// Run with `cargo test --release -p flotilla_firmware --no-default-features --lib
    /// molemod::follow_down -- --ignored --nocapture --test-threads 1`.
    #[test]
    #[ignore = "the search takes ~40 s alone, over 60 s on the shared 2-core machine"]
    fn the_search_finds_the_stored_follow_down() {
        let rows = search().unwrap_or_else(|e| panic!("{e}"));
        let table = stored(&rows);
        assert_eq!(table.len(), FOLLOW_DOWN_PATH.len());
        for (a, b) in table.iter().zip(FOLLOW_DOWN_PATH.iter()) {
            assert!(a.0 == b.0 && a.1.iter().zip(b.1.iter()).all(|(x, y)| (x - y).abs() < 2e-5), "{a:?} {b:?}");
        }
    }

    /// Why the windowed keys of mole-keys stop and the passage does not: with the lower head
    /// 71 mm out ([`LOWER_POSES`]' first) and the upper head at A's face, keys stepping the
    /// lower pitch 0.0175 rad at a time, each the most room in a window of the other joints
    /// (3 mm in 1 mm steps, 0.08 rad in 0.02 steps) and joined by the straight phase or
    /// RRT-connect (2000 iterations), reach -1.306 rad in 9 keys and find none at -1.289, the
    /// body still at the top of its slide (the body's prismatic joint on the lower side,
    /// `q[3]`, 30 mm out: the body in B's column's mouth, 12 degrees from upright). To reach the hold at B's top face it must
    /// slide down the column, which only a body within a few degrees of upright fits:
    /// [`widest_passage`] (1.5 mm, 0.01 rad) finds a way for the lower half, the body and the
    /// upper joint keeping 0.906 mm at least, the tightest at the start.
    #[test]
    fn the_greedy_keys_stop_where_the_body_must_slide_down_bs_column() {
        use crate::molemod::follow_keys::{keyed, ramp, widest_passage, Window};
        let lim = limits();
        let (out, z, tilt) = LOWER_POSES[0];
        let lower = lower_in_arm(out, z, tilt);
        let hold_a = Pose { x: 0.050 - BLOCK, ..HOLD_A };
        let hold_b = Pose { z: 0.050, ..HOLD_B };
        let (at_a, _) = reach(&lower, &lim, &hold_a, 0.0025, None).expect("the hold at A's face");
        let (at_b, _) = reach(&lower, &lim, &hold_b, 0.0025, None).expect("the hold at B's top face");
        let window = Window { travel: 0.003, travel_step: 0.001, pitch: 0.08, pitch_step: 0.02 };
        let run = keyed(&lower, &lim, &at_a, &ramp(4, at_a[4], at_b[4], 0.0175), &window, (2000, 1), |_| false);
        let (last, room) = run.keys[run.keys.len() - 1];
        let (passage, _, narrowest) = widest_passage(&lower, &lim, &at_a, &at_b, 0.0015, 0.01);
        eprintln!(
            "keys: {} to {:.3} rad ({:.2} mm), stop {:?}, q[3] {:.1} mm; passage {:.3} mm, narrowest at {narrowest:.4?}",
            run.keys.len(),
            last[4],
            room * 1e3,
            run.stop,
            last[3] * 1e3,
            passage * 1e3
        );
        assert_eq!(run.keys.len(), 9);
        assert!(run.stop == Some((9, "no key in the window")) && (last[3] - 0.030).abs() < 1e-9);
        assert!((passage - 0.906e-3).abs() < 5e-6 && (narrowest[4] - at_a[4]).abs() < 0.01, "{passage}");
    }
}
