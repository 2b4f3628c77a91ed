//! Planar model of the mole at a crossing of a block's x tunnel and its vertical tunnel,
//! for moving up and down a column of blocks (SPEC 2, "turn inside a block"; issue #18,
//! vertical moves). The plane is the vertical one through the x tunnels, as in
//! [`super::lift`], whose dimensions, cube and column shapes this model shares; the chain's
//! base here is the rear head, gripping in the x tunnel (the turns move the front half).
//!
//! The crossing is symmetric: a mole lying against one wall of either tunnel and turning its
//! head away from that wall into the other tunnel meets the same rims whichever tunnel it
//! lies in. So [`super::motion::TURN_UP_PATH`] is also the turn out of a vertical tunnel
//! into an x tunnel at the top of a climb and at the bottom of a descent (the mole's "floor"
//! then being a wall of the vertical tunnel); the climb itself is the crawl. What the
//! symmetry does not give is the turn from an x tunnel down into the vertical tunnel below:
//! lying on the x tunnel's floor the front universal joint stands 5 mm below the crossing's
//! centre, on the side the head turns to, where pitching hits a rim wherever the joint
//! stands. [`TURN_DOWN_PATH`] first tilts the body up on the rear universal joint until the
//! front joint is 5 mm above the centre, which makes the turn the turn up's mirror image.

use super::lift::{
    cube, distance_to_block, LiftJoints, Pose, AXIS_BELOW, BLOCK, CUBE_MASS, CUBE_ROUNDING, GRAVITY, JOINT_CUBE_MASS, LEVER,
};
use super::motion::TURN_UP_PATH;

/// The links' poses of one configuration, with the rear head as the base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Links {
    /// Front head's centre.
    pub front: Pose,
    /// Front universal joint.
    pub joint_front: (f64, f64),
    /// Body cube's centre.
    pub body: Pose,
    /// Rear universal joint.
    pub joint_rear: (f64, f64),
    /// Rear head's centre.
    pub rear: Pose,
}

/// Forward kinematics from the rear head's pose `rear` (its x axis towards the front),
/// the same chain as [`super::lift::chain_from`] walked the other way.
pub fn from_rear(rear: Pose, q: &LiftJoints) -> Links {
    let dir = |a: f64| (a.cos(), a.sin());
    let step = |from: (f64, f64), angle: f64, len: f64| (from.0 + len * dir(angle).0, from.1 + len * dir(angle).1);
    let joint_rear = step((rear.x, rear.z), rear.angle, LEVER + q[5]);
    let body_angle = rear.angle + q[4];
    let body_at = step(joint_rear, body_angle, LEVER + q[3]);
    let joint_front = step(body_at, body_angle, LEVER + q[2]);
    let front_angle = body_angle - q[1];
    let front_at = step(joint_front, front_angle, LEVER + q[0]);
    Links {
        front: Pose { x: front_at.0, z: front_at.1, angle: front_angle },
        joint_front,
        body: Pose { x: body_at.0, z: body_at.1, angle: body_angle },
        joint_rear,
        rear,
    }
}

/// Clearance of a main cube at `pose` from the solid of blocks centred at `blocks` (their
/// corner columns in this plane), m (negative = overlap).
pub fn cube_to_blocks(pose: &Pose, blocks: &[(f64, f64)]) -> f64 {
    let square = cube(pose);
    blocks.iter().map(|&(x, z)| distance_to_block(&square, &Pose { x, z, angle: 0.0 })).fold(f64::INFINITY, f64::min) - CUBE_ROUNDING
}

/// Gravity's torque on the two pitch axes (front, rear universal joint) from the links
/// beyond each joint towards the front head (the rear head is the base), N m: the front
/// head, the front joint's two joint cubes and the body, each weight times its lever.
pub fn pitch_loads(l: &Links) -> [f64; 2] {
    let w = |m: f64| m * GRAVITY;
    let front = w(CUBE_MASS) * (l.front.x - l.joint_front.0);
    let rear = w(CUBE_MASS) * (l.front.x - l.joint_rear.0)
        + w(2.0 * JOINT_CUBE_MASS) * (l.joint_front.0 - l.joint_rear.0)
        + w(CUBE_MASS) * (l.body.x - l.joint_rear.0);
    [front.abs(), rear.abs()]
}

/// How far [`TURN_DOWN_PATH`] first pushes the front joint ahead with `prismatic_1`, m: with
/// the body tilted, the first pitch bends the head 9 degrees more against the body than the
/// turn up's does, and with the joint at the body's 28 mm the two cubes would overlap 0.55 mm.
pub const TURN_DOWN_REACH: f64 = 0.006;

/// How far [`TURN_DOWN_PATH`]'s tilt turns the body up on the rear universal joint, rad:
/// the front joint, 62 mm ahead of the rear one (56 mm and the reach), rises twice
/// [`AXIS_BELOW`] (10 mm), from 5 mm below the crossing's centre to 5 mm above it:
/// asin(10 / 62).
pub const TURN_DOWN_TILT: f64 = 0.162_0;

/// Where the front universal joint stands along the x tunnel from the crossing's centre,
/// with the mole lying straight and every joint at zero, when [`TURN_DOWN_PATH`] starts, m:
/// reached and tilted, it is then 24 mm before the centre (the turn up's start) and 5 mm
/// above it: -24 - 6 + 62 (1 - cos [`TURN_DOWN_TILT`]) mm.
pub const TURN_DOWN_START: f64 = -0.029_19;

/// A universal joint's pitch at its end of range: ±90 degrees less the controller's 2 mrad
/// dead band, rad.
const RIGHT: f64 = 0.5 * std::f64::consts::PI - 0.002;

/// The turn from the x tunnel down into the vertical tunnel of the same block (the start of
/// a move down): joint targets, one firmware phase per row, in the order of
/// [`LiftJoints`] (`prismatic_0`, `universal_0_axis2`, `prismatic_1`, `prismatic_2`,
/// `universal_1_axis2`, `prismatic_3`; m and rad), the rear head gripping in the x tunnel
/// behind the crossing and the front head sliding. First row: the mole lying straight, the
/// front joint [`TURN_DOWN_START`] from the crossing; reach: `prismatic_1` out by
/// [`TURN_DOWN_REACH`]. Tilt: the body up by
/// [`TURN_DOWN_TILT`] on the rear joint while the front joint pitches the head as much the
/// other way (both revolute, same speed: the head stays level and rises 10 mm under the
/// open vertical tunnel). Then [`TURN_UP_PATH`] mirrored top to bottom: the head pitched
/// down in the turn up's steps, each after `prismatic_1` pushes the front joint (along the
/// tilted body) to the turn up's place along the tunnel; past 80.6 degrees below level the
/// front joint would pass the end of its range (the tilt plus the pitch), so from there the
/// tilt gives way by what the head pitches more, and the body is level again when the head
/// hangs straight down; the last push puts the front joint over the vertical tunnel's axis.
/// 36 phases. The unit test `the_turn_down_path_clears_the_blocks` checks the table.
pub const TURN_DOWN_PATH: [[f64; 6]; 37] = turn_down_path();

/// cos(a) for |a| <= 0.2 rad (no const cos): 1 - a^2/2 + a^4/24 - a^6/720, within 1e-10.
const fn cos_small(a: f64) -> f64 {
    let a2 = a * a;
    1.0 - 0.5 * a2 + a2 * a2 / 24.0 - a2 * a2 * a2 / 720.0
}

/// Builds [`TURN_DOWN_PATH`] from [`TURN_UP_PATH`]'s (pitch, joint place) rows. A pitch
/// row becomes the front joint at the tilt plus the turn up's pitch, mirrored; past 80.6
/// degrees that would run the joint past its end, so from there the tilt gives way (the
/// body lowers by what the head pitches more). A push row becomes the `prismatic_1`
/// target that puts the front joint at the turn up's place along the tunnel, through the
/// tilted body.
const fn turn_down_path() -> [[f64; 6]; 37] {
    // The rear joint stands where the mole lay, 56 mm behind the front joint's start.
    let rear_joint = TURN_DOWN_START - 2.0 * LEVER;
    let mut rows = [[0.0; 6]; 37];
    rows[1] = [0.0, 0.0, TURN_DOWN_REACH, 0.0, 0.0, 0.0];
    rows[2] = [0.0, TURN_DOWN_TILT, TURN_DOWN_REACH, 0.0, TURN_DOWN_TILT, 0.0];
    let (mut tilt, mut push) = (TURN_DOWN_TILT, TURN_DOWN_REACH);
    let mut k = 1;
    while k < TURN_UP_PATH.len() {
        let (pitch, place) = TURN_UP_PATH[k];
        if pitch != TURN_UP_PATH[k - 1].0 {
            let room = RIGHT + pitch;
            if room < tilt {
                tilt = if room > 0.0 { room } else { 0.0 };
            }
        } else {
            push = (place - rear_joint) / cos_small(tilt) - 2.0 * LEVER;
        }
        let front = if tilt - pitch < RIGHT { tilt - pitch } else { RIGHT };
        rows[k + 2] = [0.0, front, push, 0.0, tilt, 0.0];
        k += 1;
    }
    rows
}

/// The crossing's block at the origin, the block the mole lies in behind it (-x), and the
/// block below the crossing's (the vertical tunnel goes on down into it), centres, m.
pub const TURN_DOWN_BLOCKS: [(f64, f64); 3] = [(0.0, 0.0), (-BLOCK, 0.0), (0.0, -BLOCK)];

/// The rear head's pose for [`TURN_DOWN_PATH`]: lying on the x tunnel's floor, the front
/// joint [`TURN_DOWN_START`] from the crossing's centre with the mole straight.
pub fn turn_down_rear() -> Pose {
    Pose { x: TURN_DOWN_START - 2.0 * LEVER - LEVER, z: -AXIS_BELOW, angle: 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::molemod::lift::{quad_distance, segment_samples, CUBE_HALF, TUNNEL_HALF};

    #[test]
    fn the_rear_based_chain_is_the_lift_models_chain_walked_back() {
        let q = [0.01, 0.3, 0.005, 0.02, -0.4, 0.015];
        let links = from_rear(Pose { x: 0.1, z: 0.02, angle: 0.2 }, &q);
        let back = crate::molemod::lift::chain_from(links.front, 0.0, &q);
        for (a, b) in [(back.rear, links.rear), (back.body, links.body)] {
            assert!((a.x - b.x).abs() < 1e-12 && (a.z - b.z).abs() < 1e-12 && (a.angle - b.angle).abs() < 1e-12);
        }
    }

    #[test]
    fn the_tilt_raises_the_front_joint_from_below_the_crossings_centre_to_above() {
        let straight = from_rear(turn_down_rear(), &TURN_DOWN_PATH[0]);
        assert!((straight.joint_front.0 - TURN_DOWN_START).abs() < 1e-12 && (straight.joint_front.1 + AXIS_BELOW).abs() < 1e-12);
        let tilted = from_rear(turn_down_rear(), &TURN_DOWN_PATH[2]);
        assert!((tilted.joint_front.1 - AXIS_BELOW).abs() < 1e-4, "{:?}", tilted.joint_front);
        assert!((tilted.joint_front.0 + 0.024).abs() < 1e-4, "{:?}", tilted.joint_front);
        assert!(tilted.front.angle.abs() < 1e-12);
    }

    /// Every phase of [`TURN_DOWN_PATH`], sampled as the firmware moves its joints (each at
    /// its own controller's speed), keeps the front head and the body off the blocks (but
    /// where they lie level on the floor) and off each other, within the joints' ranges; the head ends hanging straight down in the
    /// vertical tunnel, below the x tunnel's floor.
    #[test]
    fn the_turn_down_path_clears_the_blocks() {
        let rear = turn_down_rear();
        // Least clearance of each pair and the phase (row) it is least in.
        let mut least = [(f64::INFINITY, 0); 3];
        let mut torque: [f64; 2] = [0.0; 2];
        for (k, pair) in TURN_DOWN_PATH.windows(2).enumerate() {
            for q in segment_samples(&pair[0], &pair[1], 0.001) {
                assert!(
                    q[1].abs() <= RIGHT + 1e-12 && q[4].abs() <= RIGHT && (0..6).all(|i| i == 1 || i == 4 || (0.0..=0.03).contains(&q[i]))
                );
                let l = from_rear(rear, &q);
                let loads = pitch_loads(&l);
                torque = [torque[0].max(loads[0]), torque[1].max(loads[1])];
                // A cube lying level on the x tunnel's floor rests there (as in a crawl).
                let to_blocks = |pose: &Pose| {
                    let lying = pose.angle.abs() < 1e-9 && (pose.z + AXIS_BELOW).abs() < 1e-9;
                    if lying {
                        f64::INFINITY
                    } else {
                        cube_to_blocks(pose, &TURN_DOWN_BLOCKS)
                    }
                };
                let pairs = [to_blocks(&l.front), to_blocks(&l.body), quad_distance(&cube(&l.front), &cube(&l.body)) - 2.0 * CUBE_ROUNDING];
                for (slot, d) in least.iter_mut().zip(pairs) {
                    if d < slot.0 {
                        *slot = (d, k + 1);
                    }
                }
            }
        }
        eprintln!(
            "turn down: least clearance (mm, row): front head - blocks {:.3} ({}), body - blocks {:.3} ({}), front head - body {:.3} ({}); static torque at most {:.4} N m on the front pitch, {:.4} on the rear",
            least[0].0 * 1e3,
            least[0].1,
            least[1].0 * 1e3,
            least[1].1,
            least[2].0 * 1e3,
            least[2].1,
            torque[0],
            torque[1]
        );
        // Within even the earlier 0.245 N m gearmotor class (the model's is 0.52 N m).
        assert!(torque[0] < 0.245 && torque[1] < 0.245, "{torque:?}");
        // The head keeps 1 mm from every rim and from the body; the body only comes down on
        // the floor again where the last rows lower it (it lands, level, at the very end).
        assert!(least[0].0 > 1.0e-3 && least[2].0 > 1.0e-3, "{least:?}");
        assert!(least[1].0 >= 0.0, "{least:?}");
        let end = from_rear(rear, &TURN_DOWN_PATH[TURN_DOWN_PATH.len() - 1]);
        assert!((end.front.angle + 0.5 * std::f64::consts::PI).abs() < 3e-3, "head at {:?}", end.front);
        // Centred in the vertical tunnel (5 mm to spare each side), below the x tunnel's floor.
        assert!(end.front.x.abs() + CUBE_HALF < TUNNEL_HALF - 0.004 && end.front.z < -TUNNEL_HALF, "{:?}", end.front);
        assert!(end.body.angle.abs() < 1e-12 && (end.body.z + AXIS_BELOW).abs() < 1e-12);
    }

    /// Without the tilt (the front joint left 5 mm below the crossing's centre), the same
    /// pitches and pushes run the head into a rim: the tilt is what makes the path.
    #[test]
    fn the_turn_down_without_the_tilt_hits_a_rim() {
        let rear = turn_down_rear();
        let untilted: Vec<LiftJoints> = TURN_DOWN_PATH.iter().map(|r| [r[0], r[1] - r[4], r[2], r[3], 0.0, r[5]]).collect();
        let least = untilted
            .windows(2)
            .flat_map(|p| segment_samples(&p[0], &p[1], 0.001))
            .map(|q| cube_to_blocks(&from_rear(rear, &q).front, &TURN_DOWN_BLOCKS))
            .fold(f64::INFINITY, f64::min);
        assert!(least < 0.0, "{least}");
    }

    /// Why the body does not follow a turned-up head by swinging about its rear joint: with
    /// the front joint kept on the vertical tunnel's axis (where the upright head above it
    /// fits) and the rear joint on the x tunnel's (pulled along the floor as the body turns
    /// up), the body cube runs into the crossing's upper rim on the way.
    #[test]
    fn the_body_swung_up_with_the_front_joint_on_the_vertical_axis_hits_the_rim() {
        let crossing = [(0.0, 0.0)];
        let worst = (0..=90)
            .map(|deg| {
                let a = f64::from(deg).to_radians();
                // Rear joint at (-56 cos a, -5), front joint at (0, -5 + 56 sin a).
                let body = Pose { x: -LEVER * a.cos(), z: -AXIS_BELOW + LEVER * a.sin(), angle: a };
                (cube_to_blocks(&body, &crossing), deg)
            })
            .fold((f64::INFINITY, 0), |w, c| if c.0 < w.0 { c } else { w });
        eprintln!("body swung about the rear joint: deepest overlap {:.2} mm at {} degrees", -worst.0 * 1e3, worst.1);
        assert!(worst.0 < -5e-3, "{worst:?}");
    }
}
