//! Planar model of the final mole leaving the U that the lift onto a neighbour ends in
//! (`super::motion::LIFT_ONTO_PATH`), and the search for its joint path, on the lift's
//! kinematics, shapes, loads and RRT-connect ([`super::lift`]).
//!
//! The plane is the vertical one through the blocks' x tunnels, task 1's row as the lift
//! leaves it: block B at x = 0.1 m and the third block at 0.2 m on the floor, block A upside
//! down on B where the stored lift sets it (its pose from the lift's chain at the path's
//! end), the cell A left (x = 0) empty. All three blocks stand still. The front head grips
//! in B's x tunnel, [`super::motion::LIFT_ONTO_FRONT_GRIP`] from B's centre, and is the
//! chain's base throughout; the rear head has let go of A and carries nothing. From the
//! lift's end (the body upright outside B's -x face, the rear head in A's -x mouth) the
//! mole lowers the rear head off A's tunnel, draws it out of A's mouth and comes down until
//! it lies straight along B's tunnel, every joint at zero: the rear half then stands out of
//! B's -x mouth over the empty cell at the tunnel's height.
//!
//! A configuration is checked for clearance (signed distance, negative = overlap) between
//! the three main cubes and between the body and the rear head and every block's solid (in
//! this plane its four 25 mm corner columns) and the floor. The front head stands still in
//! B's tunnel, lying on its floor, so its pairs with the blocks and the floor do not change
//! and are not checked; the immaterial joint cubes are not checked (no contact in the
//! physics either). Static loads are the lift's ([`super::lift::loads`]) with no block
//! carried.

use super::lift::{
    chain_from, connect, cube, distance_to_block, loads, lowest_corner, quad_distance, segment_samples, Chain, LiftJoints, LiftLimits,
    LiftScene, Pose, AXIS_BELOW, BLOCK, CHECK_DT, CUBE_ROUNDING,
};

/// The row and the front head's grip.
#[derive(Clone, Debug, PartialEq)]
pub struct UnfoldScene {
    /// Block A's pose, upside down on B where the lift left it.
    pub block_a: Pose,
    /// Block B's pose, on the floor (the block A lies on, the front head grips in).
    pub block_b: Pose,
    /// The third block's pose, on the floor beside B away from the empty cell.
    pub third: Pose,
    /// The front head's pose, gripping in B's x tunnel (its x axis towards +x, away from the
    /// rest of the mole).
    pub front: Pose,
    /// The lift's scene with no block carried (A's mass 0): what [`loads`] reads.
    lift: LiftScene,
}

impl UnfoldScene {
    /// Task 1's row after the stored lift: B at x = 0.1 m and one more block at 0.2 m on the
    /// floor, A where the lift in `lift` (its front grip, rear grip) with the joints
    /// `lift_end` leaves it, the front head at `lift.front_grip` from B's centre.
    pub fn after_lift(lift: &LiftScene, lift_end: &LiftJoints) -> Self {
        let block_a = super::lift::chain(lift, lift_end).block;
        let floored = |x: f64| Pose { x, z: 0.5 * BLOCK, angle: 0.0 };
        let front = Pose { x: lift.neighbour + lift.front_grip, z: 0.5 * BLOCK - AXIS_BELOW, angle: 0.0 };
        Self {
            block_a,
            block_b: floored(lift.neighbour),
            third: floored(lift.neighbour + BLOCK),
            front,
            lift: LiftScene { block_mass: 0.0, ..lift.clone() },
        }
    }

    /// The scene after the stored lift (`super::motion::LIFT_ONTO_PATH`'s last row, its
    /// grips).
    pub fn task1() -> Self {
        use super::motion::{LIFT_ONTO_FRONT_GRIP, LIFT_ONTO_PATH, LIFT_ONTO_REAR_GRIP};
        let lift = LiftScene::task1(LIFT_ONTO_FRONT_GRIP, LIFT_ONTO_REAR_GRIP);
        Self::after_lift(&lift, &LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1])
    }
}

/// Every link's pose for `q` (the chain's `block` is where A would be were the rear head
/// still holding it: not used).
pub fn chain(scene: &UnfoldScene, q: &LiftJoints) -> Chain {
    chain_from(scene.front, 0.0, q)
}

/// The pairs whose clearance is checked, in the order of [`clearances`].
pub const PAIRS: [&str; 11] = [
    "front head - body",
    "front head - rear head",
    "body - rear head",
    "body - block A",
    "rear head - block A",
    "body - block B",
    "rear head - block B",
    "body - third block",
    "rear head - third block",
    "body - floor",
    "rear head - floor",
];

/// Index of "rear head - block A" in [`PAIRS`]: touching where the path starts (the head
/// lies against A's tunnel where it let go).
pub const REAR_HEAD_BLOCK_A: usize = 4;

/// Clearance of every pair of [`PAIRS`], m (negative = overlap).
pub fn clearances(scene: &UnfoldScene, c: &Chain) -> [f64; 11] {
    let r = CUBE_ROUNDING;
    let (front, body, rear) = (cube(&c.front), cube(&c.body), cube(&c.rear));
    let to_columns = |q: &[(f64, f64); 4], block: &Pose| distance_to_block(q, block) - r;
    let lowest = |q: &[(f64, f64); 4]| lowest_corner(q) - r;
    [
        quad_distance(&front, &body) - 2.0 * r,
        quad_distance(&front, &rear) - 2.0 * r,
        quad_distance(&body, &rear) - 2.0 * r,
        to_columns(&body, &scene.block_a),
        to_columns(&rear, &scene.block_a),
        to_columns(&body, &scene.block_b),
        to_columns(&rear, &scene.block_b),
        to_columns(&body, &scene.third),
        to_columns(&rear, &scene.third),
        lowest(&body),
        lowest(&rear),
    ]
}

/// The static loads of `q`: the largest torque on a universal joint's pitch axis (N m), the
/// largest force along a prismatic joint (N), and the moment the front head's grip carries
/// (N m), all magnitudes; the front head is the base and no block is carried.
pub fn static_loads(scene: &UnfoldScene, q: &LiftJoints) -> (f64, f64, f64) {
    let l = loads(&scene.lift, &chain(scene, q));
    let torque = l.universal.iter().fold(0.0_f64, |m, t| m.max(t.abs()));
    let force = l.prismatic.iter().fold(0.0_f64, |m, f| m.max(f.abs()));
    (torque, force, l.front_grip.abs())
}

/// The first constraint `q` breaks under `limits`, if any (`Err` names it): the joint
/// ranges, every pair of [`PAIRS`] at least `limits.margin` apart but those in
/// `limits.touching` (down to -`limits.touch`), the torque and force limits.
pub fn check(scene: &UnfoldScene, limits: &LiftLimits, q: &LiftJoints) -> Result<(), String> {
    if !limits.in_range(q) {
        return Err("joint range".into());
    }
    for (i, &d) in clearances(scene, &chain(scene, q)).iter().enumerate() {
        let least = if limits.touching.contains(&i) { -limits.touch } else { limits.margin };
        if d < least {
            return Err(PAIRS[i].to_string());
        }
    }
    let (torque, force, _) = static_loads(scene, q);
    if torque > limits.torque {
        return Err("universal joint torque".into());
    }
    if force > limits.force {
        return Err("prismatic joint force".into());
    }
    Ok(())
}

/// Whether the firmware's phase from `from` to `to` keeps to `limits` throughout, and so does
/// the phase from `to` back to `from` (a phase run backwards takes another joint-space path:
/// every joint starts at once at its own speed), checked every [`CHECK_DT`]: a path of such
/// phases can be run either way.
pub fn segment_ok(scene: &UnfoldScene, limits: &LiftLimits, from: &LiftJoints, to: &LiftJoints) -> bool {
    let ok = |a: &LiftJoints, b: &LiftJoints| segment_samples(a, b, CHECK_DT).iter().all(|q| check(scene, limits, q).is_ok());
    ok(from, to) && ok(to, from)
}

/// How far the release lowers the rear head off A's tunnel, m: `prismatic_1` and
/// `prismatic_2` each close by half of it (the body stands upright).
pub const RELEASE_DROP: f64 = 0.002;

/// The hand-made start of the way out, from the lift's end `lift_end` (rear head let go):
/// the release (`prismatic_1` and `prismatic_2` closed by half [`RELEASE_DROP`] each, the
/// rear head off A's tunnel) and the withdrawal (`prismatic_3` to zero, `prismatic_0` to its
/// travel's end: the rear head drawn back along A's tunnel, the rest of the mole with it).
pub fn release(lift_end: &LiftJoints) -> [LiftJoints; 2] {
    let mut released = *lift_end;
    released[2] -= 0.5 * RELEASE_DROP;
    released[3] -= 0.5 * RELEASE_DROP;
    let mut withdrawn = released;
    withdrawn[5] = 0.0;
    withdrawn[0] = super::lift::TRAVEL;
    [released, withdrawn]
}

/// Where the way out ends: the mole straight along B's tunnel, every joint at zero.
pub const STRAIGHT: LiftJoints = [0.0; 6];

/// RRT-connect ([`connect`]) from `from` to `to` in `scene` under `limits`, every edge a
/// firmware phase checked both ways by [`segment_ok`]; then shortened. Seeded.
pub fn search(
    scene: &UnfoldScene,
    limits: &LiftLimits,
    from: &LiftJoints,
    to: &LiftJoints,
    iterations: usize,
    seed: u64,
) -> Option<Vec<LiftJoints>> {
    let node_ok = |q: &LiftJoints| check(scene, limits, q).is_ok();
    let edge_ok = |a: &LiftJoints, b: &LiftJoints| segment_ok(scene, limits, a, b);
    connect(limits.pitch, node_ok, edge_ok, from, to, iterations, seed)
}

/// What a path of phases meets as the firmware runs it, sampled every `dt` s.
#[derive(Clone, Debug, PartialEq)]
pub struct PathWalk {
    /// Least clearance of the pairs not exempt, m.
    pub least: f64,
    /// The pair that has it.
    pub worst: &'static str,
    /// Largest static torque on a universal joint's pitch axis, N m.
    pub torque: f64,
    /// Largest static force along a prismatic joint, N.
    pub force: f64,
    /// Largest moment on the front head's grip, N m.
    pub grip: f64,
    /// Samples checked.
    pub samples: usize,
}

/// Walks `path` phase by phase as the firmware runs it (`backwards`: from its last row to its
/// first), every `dt` s: the least clearance over the pairs but those `exempt(phase)` names
/// (phase = index of the phase's first row in `path`), and the peak static loads. `Err`
/// names the first row out of the joint ranges.
pub fn walk(
    scene: &UnfoldScene,
    limits: &LiftLimits,
    path: &[LiftJoints],
    backwards: bool,
    dt: f64,
    exempt: impl Fn(usize) -> Vec<usize>,
) -> Result<PathWalk, String> {
    let mut out = PathWalk { least: f64::INFINITY, worst: "", torque: 0.0, force: 0.0, grip: 0.0, samples: 0 };
    if let Some(k) = path.iter().position(|q| !limits.in_range(q)) {
        return Err(format!("row {k} is out of the joint ranges"));
    }
    for k in 0..path.len().saturating_sub(1) {
        let (from, to) = if backwards { (path[k + 1], path[k]) } else { (path[k], path[k + 1]) };
        let exempt = exempt(k);
        for q in segment_samples(&from, &to, dt) {
            for (i, &d) in clearances(scene, &chain(scene, &q)).iter().enumerate() {
                if !exempt.contains(&i) && d < out.least {
                    out.least = d;
                    out.worst = PAIRS[i];
                }
            }
            let (torque, force, grip) = static_loads(scene, &q);
            out.torque = out.torque.max(torque);
            out.force = out.force.max(force);
            out.grip = out.grip.max(grip);
            out.samples += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::motion::{LEAVE_U_PATH, LIFT_ONTO_PATH};
    use super::*;

    /// The limits the stored path was searched under: 1 mm, the earlier 0.245 N m class of
    /// universal joints (no block is carried), 15 N.
    fn limits() -> LiftLimits {
        LiftLimits { torque: 0.245, ..LiftLimits::actuators() }
    }

    #[test]
    fn at_the_lifts_end_the_rear_head_lies_against_a_and_the_release_takes_it_off() {
        let scene = UnfoldScene::task1();
        // A upside down on B, within the lift's 3 mm of the cell and 5 mrad.
        assert!((scene.block_a.x - 0.1).abs() < 3e-3 && (scene.block_a.z - 0.15).abs() < 1e-3, "{:?}", scene.block_a);
        assert!((scene.block_a.angle + std::f64::consts::PI).abs() < 5e-3);
        let end = LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1];
        let d = clearances(&scene, &chain(&scene, &end));
        assert!(d[REAR_HEAD_BLOCK_A].abs() < 1e-6, "the rear head lies in A's tunnel: {d:?}");
        assert_eq!(check(&scene, &limits(), &end), Err("rear head - block A".into()));
        let [released, withdrawn] = release(&end);
        let d = clearances(&scene, &chain(&scene, &released));
        assert!((d[REAR_HEAD_BLOCK_A] - RELEASE_DROP).abs() < 1e-6, "{d:?}");
        assert_eq!(check(&scene, &limits(), &released), Ok(()));
        assert_eq!(check(&scene, &limits(), &withdrawn), Ok(()));
        // The straight mole along B's tunnel: the rear half over the empty cell, 25 mm above
        // the floor.
        let c = chain(&scene, &STRAIGHT);
        assert!((c.rear.x - (scene.front.x - 0.112)).abs() < 1e-12 && (c.rear.z - 0.045).abs() < 1e-12);
        assert!((clearances(&scene, &c)[9] - 0.025).abs() < 1e-9);
    }

    #[test]
    fn a_hand_made_collision_is_found() {
        let scene = UnfoldScene::task1();
        let end = LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1];
        // Turning the rear head down about its joint while it is still in A's mouth runs it
        // into A.
        let mut q = release(&end)[0];
        q[4] -= 0.3;
        assert!(clearances(&scene, &chain(&scene, &q))[REAR_HEAD_BLOCK_A] < 0.0);
        // Pitched down, the body goes into the floor.
        assert!(clearances(&scene, &chain(&scene, &[0.0, 1.2, 0.03, 0.0, 0.0, 0.0]))[9] < 0.0);
    }

    /// The firmware's [`LEAVE_U_PATH`] as stored (rounded), run as the firmware runs it
    /// (every joint at once at its own speed), sampled every 1 ms, forwards (leaving the U)
    /// and backwards (entering it from the straight mole): every pair keeps 1 mm but the rear
    /// head and A in the phase that lets it off A (touching at the lift's end), the joints
    /// within range, the static torque within 0.245 N m; the path starts where the stored lift
    /// ends and ends with the mole straight.
    #[test]
    fn the_leave_u_path_clears_everything_both_ways() {
        let scene = UnfoldScene::task1();
        let limits = limits();
        assert_eq!(LEAVE_U_PATH[0], LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1]);
        assert_eq!(LEAVE_U_PATH[LEAVE_U_PATH.len() - 1], STRAIGHT);
        let exempt = |k: usize| if k == 0 { vec![REAR_HEAD_BLOCK_A] } else { Vec::new() };
        for backwards in [false, true] {
            let w = walk(&scene, &limits, &LEAVE_U_PATH, backwards, 0.001, exempt).expect("in range");
            eprintln!(
                "LEAVE_U_PATH {}: {} samples, least clearance {:.2} mm ({}), peak static torque {:.3} N m, force {:.2} N, front grip moment {:.3} N m",
                if backwards { "backwards" } else { "forwards" },
                w.samples,
                w.least * 1e3,
                w.worst,
                w.torque,
                w.force,
                w.grip
            );
            assert!(w.least >= limits.margin, "{w:?}");
            assert!(w.torque <= limits.torque && w.force < limits.force, "{w:?}");
        }
        // The first phase lets the rear head off A without running into it.
        let first = walk(&scene, &limits, &LEAVE_U_PATH[..2], false, 0.001, |_| Vec::new()).expect("in range");
        assert!(first.least > -1e-6, "{first:?}");
    }

    /// Entering the U from where the pass through a lone block ends (docs/molemod_execution.md,
    /// "Entering the U after the pass"): the front head's grip in B up to 2 mm nearer B's
    /// centre or 3 mm farther than [`LEAVE_U_PATH`]'s end keeps every pair 1 mm apart but at
    /// the press; with A resting on B, 0.21 mm lower than the lift's chain holds it, the head
    /// still passes 0.9 mm from A and meets its tunnel 0.2 mm before the press's row (the
    /// press bears there); 3 mm nearer B's centre the body comes within 0.4 mm of B.
    #[test]
    fn entering_the_u_clears_from_starts_off_along_the_row_and_meets_a_resting_lower_early() {
        let limits = limits();
        let exempt = |k: usize| if k == 0 { vec![REAR_HEAD_BLOCK_A] } else { Vec::new() };
        let entering = |nearer: f64, a_lower: f64| {
            let mut scene = UnfoldScene::task1();
            // Nearer B's centre: towards +x here (B at 0.1 m, the grip at 0.082 m).
            scene.front.x += nearer;
            scene.block_a.z -= a_lower;
            let w = walk(&scene, &limits, &LEAVE_U_PATH, true, 0.001, exempt).expect("in range");
            let press = clearances(&scene, &chain(&scene, &LEAVE_U_PATH[0]))[REAR_HEAD_BLOCK_A];
            eprintln!(
                "entering the U {:+.2} mm nearer B's centre, A {:.2} mm lower: least {:.3} mm ({}), the head {:.3} mm from A at the press's row",
                nearer * 1e3,
                a_lower * 1e3,
                w.least * 1e3,
                w.worst,
                press * 1e3
            );
            (w, press)
        };
        for nearer in [-3e-3, -1.5e-3, 0.0, 1.28e-3, 2e-3] {
            let (w, press) = entering(nearer, 0.0);
            assert!(w.least >= limits.margin, "{w:?}");
            assert!(press.abs() < 2e-5, "{press}");
            let (w, press) = entering(nearer, 2.1e-4);
            assert!(w.least >= 0.9e-3, "{w:?}");
            assert!((press + 2.1e-4).abs() < 2e-5, "{press}");
        }
        let (w, _) = entering(3e-3, 0.0);
        assert!(w.least < 0.4e-3 && w.worst == "body - block B", "{w:?}");
    }
}
