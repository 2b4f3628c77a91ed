//! Planar model of the mole's body following its head round a block's crossing (issue #18,
//! vertical moves): after [`super::motion::TURN_UP_PATH`] the front head stands upright in
//! the vertical tunnel while the body and the rear head still lie in the x tunnel; a move
//! up needs the whole mole upright in the vertical tunnel. The plane, shapes and chain are
//! [`super::lift`]'s and [`super::vertical`]'s; the crossing's centre is the origin.
//!
//! The follow alternates grips: in each phase one head is clamped (the chain's base, fixed
//! in the world) and the other slides or hangs; between phases both grip and one lets go,
//! so the base changes and keeps its world pose. A configuration is the base (which head,
//! its pose) and the six joints of [`LiftJoints`].

use super::lift::{
    chain_from, columns, cube, quad_distance, LiftJoints, Pose, CUBE_MASS, CUBE_ROUNDING, GRAVITY, JOINT_CUBE_MASS, TUNNEL_HALF,
};
use super::lift::{connect, segment_samples, AXIS_BELOW, CHECK_DT, LEVER, PRISMATIC};
use super::lift::{BLOCK, TRAVEL};
use super::motion::TURN_UP_START;
use super::vertical::{from_rear, Links};

/// Which head is clamped in a phase (the chain's base).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// The front head grips; the rear one slides or hangs.
    Front,
    /// The rear head grips; the front one slides or hangs.
    Rear,
}

/// The clamped head and its world pose (m, rad).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grip {
    /// Which head.
    pub base: Base,
    /// Its pose; its x axis points away from the chain for the front head, towards it for the
    /// rear head ([`chain_from`], [`from_rear`]).
    pub pose: Pose,
}

/// Every link's pose with the base `grip` and joints `q`.
pub fn links(grip: &Grip, q: &LiftJoints) -> Links {
    match grip.base {
        Base::Rear => from_rear(grip.pose, q),
        Base::Front => {
            let c = chain_from(grip.pose, 0.0, q);
            Links { front: c.front, joint_front: c.joint_front, body: c.body, joint_rear: c.joint_rear, rear: c.rear }
        }
    }
}

/// Centres of the blocks round the crossing, m: the crossing's block, the one the mole lies
/// in behind it (-x), the one ahead (+x), the one above (its vertical tunnel goes on up) and
/// the two beside that one (the most solid a column's foot can have round the crossing).
pub const FOLLOW_BLOCKS: [(f64, f64); 6] = [(0.0, 0.0), (-BLOCK, 0.0), (BLOCK, 0.0), (0.0, BLOCK), (-BLOCK, BLOCK), (BLOCK, BLOCK)];

/// The floor under the crossing's block (the vertical tunnel ends there), m.
pub const FLOOR: f64 = -0.5 * BLOCK;

/// Clearance of a main cube at `pose` from the blocks' solid and the floor, m (negative =
/// overlap).
pub fn solid_clearance(pose: &Pose) -> f64 {
    solid_clearance_in(&FOLLOW_BLOCKS, pose)
}

/// [`solid_clearance`] among the blocks centred at `blocks` (m) and the [`FLOOR`], m.
pub fn solid_clearance_in(blocks: &[(f64, f64)], pose: &Pose) -> f64 {
    let square = cube(pose);
    let lowest = square.iter().map(|v| v.1).fold(f64::INFINITY, f64::min) - FLOOR;
    blocks
        .iter()
        .flat_map(|&(x, z)| columns(&Pose { x, z, angle: 0.0 }))
        .map(|column| quad_distance(&square, &column))
        .fold(lowest, f64::min)
        - CUBE_ROUNDING
}

/// How far a clamped head may sit in the wall it bears on, m: the contact's slop, a
/// tenth of a millimetre (the physics' contacts settle within it).
pub const CLAMP_TOLERANCE: f64 = 1e-4;

/// Half the side of a joint cube, m (16 mm cubes, two at each universal joint): the
/// physics gives them no contact, but the mole's joints are solid, so the model keeps a
/// disc of this radius round each universal joint off the blocks.
pub const JOINT_HALF: f64 = 0.008;

/// Radius of the rod a prismatic joint shows when out, m (assumed).
pub const ROD_RADIUS: f64 = 0.002;

/// Clearance of a point (m) from the blocks' solid and the floor, m (negative = inside).
pub fn point_clearance(p: (f64, f64)) -> f64 {
    point_clearance_in(&FOLLOW_BLOCKS, p)
}

/// [`point_clearance`] among the blocks centred at `blocks` (m) and the [`FLOOR`], m.
pub fn point_clearance_in(blocks: &[(f64, f64)], (x, z): (f64, f64)) -> f64 {
    let (o, i) = (0.5 * BLOCK, TUNNEL_HALF);
    let to_box = |x0: f64, x1: f64, z0: f64, z1: f64| {
        let (dx, dz) = ((x0 - x).max(x - x1), (z0 - z).max(z - z1));
        if dx <= 0.0 && dz <= 0.0 {
            dx.max(dz)
        } else {
            dx.max(0.0).hypot(dz.max(0.0))
        }
    };
    blocks
        .iter()
        .flat_map(|&(bx, bz)| {
            [(-o, -i, -o, -i), (i, o, -o, -i), (i, o, i, o), (-o, -i, i, o)].map(|(a, b, c, d)| to_box(bx + a, bx + b, bz + c, bz + d))
        })
        .fold(z - FLOOR, f64::min)
}

/// Least clearance of a prismatic joint's rod from the main cube at `centre` out to the
/// universal joint at `joint`, m: the part outside the cube, sampled every 2 mm.
fn rod_clearance(blocks: &[(f64, f64)], centre: (f64, f64), joint: (f64, f64)) -> f64 {
    let (dx, dz) = (joint.0 - centre.0, joint.1 - centre.1);
    let length = dx.hypot(dz);
    let from = super::lift::CUBE_HALF;
    let n = ((length - from) / 0.002).ceil().max(1.0) as usize;
    (0..=n)
        .map(|k| {
            let s = (from + (length - from) * k as f64 / n as f64) / length;
            point_clearance_in(blocks, (centre.0 + s * dx, centre.1 + s * dz))
        })
        .fold(f64::INFINITY, f64::min)
        - ROD_RADIUS
}

/// Names of the pairs of [`clearances`], in its order.
pub const FOLLOW_PAIRS: [&str; 8] = [
    "front head - blocks",
    "body - blocks",
    "rear head - blocks",
    "front head - body",
    "body - rear head",
    "front head - rear head",
    "front joint - blocks",
    "rear joint - blocks",
];

/// Clearance of each pair of [`FOLLOW_PAIRS`], m (negative = overlap). A universal joint's
/// clearance counts its [`JOINT_HALF`] disc and the rods to the two main cubes beside it.
pub fn clearances(l: &Links) -> [f64; 8] {
    clearances_in(&FOLLOW_BLOCKS, l)
}

/// [`clearances`] among the blocks centred at `blocks` (m) and the [`FLOOR`], m.
pub fn clearances_in(blocks: &[(f64, f64)], l: &Links) -> [f64; 8] {
    let (front, body, rear) = (cube(&l.front), cube(&l.body), cube(&l.rear));
    let between = |a, b| quad_distance(a, b) - 2.0 * CUBE_ROUNDING;
    let at = |p: &Pose| (p.x, p.z);
    let joint = |j: (f64, f64), a: &Pose, b: &Pose| {
        (point_clearance_in(blocks, j) - JOINT_HALF).min(rod_clearance(blocks, at(a), j)).min(rod_clearance(blocks, at(b), j))
    };
    [
        solid_clearance_in(blocks, &l.front),
        solid_clearance_in(blocks, &l.body),
        solid_clearance_in(blocks, &l.rear),
        between(&front, &body),
        between(&body, &rear),
        between(&front, &rear),
        joint(l.joint_front, &l.front, &l.body),
        joint(l.joint_rear, &l.body, &l.rear),
    ]
}

/// Whether a point (m) lies in a tunnel of one of [`FOLLOW_BLOCKS`]: where a clamp holds a
/// head whose centre is there.
pub fn in_tunnel(p: (f64, f64)) -> bool {
    in_tunnel_in(&FOLLOW_BLOCKS, p)
}

/// [`in_tunnel`] among the blocks centred at `blocks`, m.
pub fn in_tunnel_in(blocks: &[(f64, f64)], (x, z): (f64, f64)) -> bool {
    blocks.iter().any(|&(bx, bz)| {
        let (dx, dz) = ((x - bx).abs(), (z - bz).abs());
        dx <= 0.5 * BLOCK && dz <= 0.5 * BLOCK && (dx < TUNNEL_HALF || dz < TUNNEL_HALF)
    })
}

/// Static loads with the base `grip`, gravity pulling along the unit vector `down` of the
/// plane: its torque on the two pitch axes (front, rear universal joint) from the links
/// beyond each joint away from the base, N m, and its pull along the four prismatic joints
/// (`prismatic_0` .. `prismatic_3`), N: the sliding head hanging, carried by the chain.
pub fn loads(grip: &Grip, l: &Links, down: (f64, f64)) -> ([f64; 2], [f64; 4]) {
    let w = |m: f64| m * GRAVITY;
    let (head, joints) = (w(CUBE_MASS), w(2.0 * JOINT_CUBE_MASS));
    let at = |p: &Pose| (p.x, p.z);
    // (weight, place) of the masses beyond a point; the torque is each weight's lever
    // across the pull.
    let moment = |about: (f64, f64), masses: &[(f64, (f64, f64))]| {
        masses.iter().map(|&(m, (x, z))| m * ((x - about.0) * down.1 - (z - about.1) * down.0)).sum::<f64>().abs()
    };
    let total = |masses: &[(f64, (f64, f64))]| masses.iter().map(|m| m.0).sum::<f64>();
    let pull = |angle: f64, weight: f64| (weight * (angle.cos() * down.0 + angle.sin() * down.1)).abs();
    // From the sliding end: its head, the joint cubes beside it, the body, the base's joint cubes.
    let (far, near_joint, far_joint) = match grip.base {
        Base::Rear => (at(&l.front), l.joint_rear, l.joint_front),
        Base::Front => (at(&l.rear), l.joint_front, l.joint_rear),
    };
    let beyond_far_joint = [(head, far)];
    let beyond_body_far = [(head, far), (joints, far_joint)];
    let beyond_body_near = [(head, far), (joints, far_joint), (head, at(&l.body))];
    let all = [(head, far), (joints, far_joint), (head, at(&l.body)), (joints, near_joint)];
    let far_pitch = moment(far_joint, &beyond_far_joint);
    let near_pitch = moment(near_joint, &beyond_body_near);
    // The prismatic joints from the far head in: its lever, the body's far and near
    // levers, the base head's lever.
    let (far_angle, base_angle) = match grip.base {
        Base::Rear => (l.front.angle, l.rear.angle),
        Base::Front => (l.rear.angle, l.front.angle),
    };
    let forces = [
        pull(far_angle, total(&beyond_far_joint)),
        pull(l.body.angle, total(&beyond_body_far)),
        pull(l.body.angle, total(&beyond_body_near)),
        pull(base_angle, total(&all)),
    ];
    match grip.base {
        Base::Rear => ([far_pitch, near_pitch], forces),
        Base::Front => ([near_pitch, far_pitch], [forces[3], forces[2], forces[1], forces[0]]),
    }
}

/// Task 1's blocks after the lift, centred round C's crossing (the origin), m: C, B behind
/// it (-x) and A upside down on B (the same solid either way up). The cell above C (the
/// shift's target) and cell 3 (+x of C) are empty; the floor is [`FLOOR`].
pub static TASK1_BLOCKS: [(f64, f64); 3] = [(0.0, 0.0), (-BLOCK, 0.0), (-BLOCK, BLOCK)];

/// What every sampled configuration of the follow keeps to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FollowLimits {
    /// Least clearance of every pair not touching where the phase starts, m.
    pub margin: f64,
    /// Largest static torque on a universal joint's pitch axis, N m.
    pub torque: f64,
    /// Largest static force along a prismatic joint, N.
    pub force: f64,
    /// How far a universal joint's pitch may go, rad.
    pub pitch: f64,
    /// Gravity's direction in the plane (a unit vector): (0, -1) at the foot of a column;
    /// (-1, 0) for the same table turned a quarter turn round the crossing, at the top of a
    /// climb (`the_follow_turned_a_quarter_turn_is_the_follow_at_the_top`).
    pub down: (f64, f64),
    /// Centres of the blocks round the crossing, m ([`FOLLOW_BLOCKS`] for the follow).
    pub blocks: &'static [(f64, f64)],
}

impl FollowLimits {
    /// The model's actuators (0.52 N m, 15 N), 0.75 mm margin (the rear head turning under
    /// the body keeps no more than ~0.95 mm where the body keeps 1.25 mm: [`FOLLOW_AXIS`]),
    /// pitch within 2 mrad of ±90°.
    pub fn actuators() -> Self {
        let l = super::lift::LiftLimits::actuators();
        Self { margin: 0.75e-3, torque: l.torque, force: l.force, pitch: l.pitch, down: (0.0, -1.0), blocks: &FOLLOW_BLOCKS }
    }

    /// Whether `q` is within the joint ranges.
    pub fn in_range(&self, q: &LiftJoints) -> bool {
        q.iter().zip(super::lift::PRISMATIC).all(|(&v, p)| if p { (0.0..=TRAVEL).contains(&v) } else { v.abs() <= self.pitch })
    }

    /// The first limit `q` breaks with the base `grip`, if any (`Err` names it); the pairs
    /// of [`FOLLOW_PAIRS`] flagged in `touching` may touch (not overlap).
    pub fn check(&self, grip: &Grip, q: &LiftJoints, touching: &[bool; 8]) -> Result<(), &'static str> {
        if !self.in_range(q) {
            return Err("joint range");
        }
        let l = links(grip, q);
        let based = match grip.base {
            Base::Front => 0,
            Base::Rear => 2,
        };
        for (i, d) in clearances_in(self.blocks, &l).iter().enumerate() {
            // The clamped head does not move and bears on its tunnel: it may touch, not
            // reach into, the wall (a grip that does is no grip the physics can take).
            if i == based {
                if *d < -CLAMP_TOLERANCE {
                    return Err("clamped head inside a wall");
                }
                continue;
            }
            let least = if touching[i] { -1e-6 } else { self.margin };
            if *d < least {
                return Err(FOLLOW_PAIRS[i]);
            }
        }
        let (torque, force) = loads(grip, &l, self.down);
        if torque.iter().any(|t| *t > self.torque) {
            return Err("universal joint torque");
        }
        if force.iter().any(|f| *f > self.force) {
            return Err("prismatic joint force");
        }
        Ok(())
    }

    /// The pairs closer than the margin in `q` (those a phase starting there lets touch).
    pub fn touching(&self, grip: &Grip, q: &LiftJoints) -> [bool; 8] {
        let d = clearances_in(self.blocks, &links(grip, q));
        std::array::from_fn(|i| d[i] < self.margin)
    }
}

/// The pitch of a universal joint at upright, rad: the ±90 degree range less the
/// controller's 2 mrad dead band.
const UPRIGHT: f64 = 0.5 * std::f64::consts::PI - 0.002;

/// Where the follow starts: the rear head's pose where [`super::motion::TURN_UP_PATH`] leaves
/// it (lying on the x tunnel's floor, the front joint pushed from
/// [`super::motion::TURN_UP_START`] to the crossing's centre), m and rad.
pub const FOLLOW_REAR_START: Pose = Pose { x: TURN_UP_START - 3.0 * LEVER, z: -AXIS_BELOW, angle: 0.0 };

/// The joints where [`super::motion::TURN_UP_PATH`] ends (the front head upright, the front
/// joint pushed to the crossing's centre), m and rad.
pub const FOLLOW_START: LiftJoints = [0.0, -UPRIGHT, -TURN_UP_START, 0.0, 0.0, 0.0];

/// The follow's phases as the search chooses them: the base, and the pose the sliding head
/// ends at (m, rad). The front head up the vertical tunnel to 55 mm (the body tilts 0.13
/// rad, its front end into the crossing); the rear head drawn in along the x tunnel, tilted
/// 14 degrees; the front head up to 84 mm, tilted 14 degrees the other way in the crossing of
/// the block above: the body passes the crossing at 45 degrees between the two tilted heads,
/// 58 mm out from their joints (a passage found by maximising the least clearance of all the
/// cubes over the body's place, the pitches and the levers, 3.8 mm at 45 degrees); the
/// rear head drawn in to 55 mm before the crossing, level; the front head up to 108 mm,
/// upright [`FOLLOW_AXIS`] off the axis (the body upright above the crossing); the rear head
/// drawn in to under the rear joint, level. [`rear_turn_keys`] then turn it down.
pub const FOLLOW_KEYS: [(Base, Pose); 6] = [
    (Base::Rear, Pose { x: 0.0, z: 0.055, angle: HALF_PI }),
    (Base::Front, Pose { x: -0.0829, z: 0.0023, angle: -0.242 }),
    (Base::Rear, Pose { x: -0.0023, z: 0.0844, angle: 1.8198 }),
    (Base::Front, Pose { x: -0.055, z: 0.0, angle: 0.0 }),
    (Base::Rear, Pose { x: FOLLOW_AXIS, z: 0.108, angle: HALF_PI }),
    (Base::Front, Pose { x: FOLLOW_AXIS - LEVER, z: 0.0, angle: 0.002 }),
];

/// Where [`FOLLOW_KEYS`] leave the mole upright, m: its axis this far to +x of the vertical
/// tunnel's, 1.25 mm from the tunnel's wall: nearer the wall the body has less room, farther
/// from it the rear head turning under the body has less (0.88 mm at 3.5 mm, 1.00 at 4).
pub const FOLLOW_AXIS: f64 = 0.003_75;

/// The last phase's keys (front base): the rear head turned from the x tunnel down under
/// the body, the crossing's symmetric image of [`super::motion::TURN_UP_PATH`] run
/// backwards: the rear universal joint stands on the line [`FOLLOW_AXIS`] to +x of the
/// vertical tunnel's axis; the head, level at the start (the joint at the crossing's
/// centre's height), is pitched down in 3 degree steps to 42 degrees from hanging and then
/// in one step to hanging straight down, each step with the joint first pushed (along that
/// line) to where the head keeps the most room from the blocks over the step (a 0.25 mm
/// grid, as the turn up's table was made). Rear head poses, m and rad.
pub fn rear_turn_keys() -> Vec<(Base, Pose)> {
    // The rear head with its joint at height `u` on the line, pitched `a` from hanging.
    let head = |u: f64, a: f64| {
        // The pitch joint stops inside its range, in its dead band of upright.
        let a = a.min(UPRIGHT);
        Pose { x: FOLLOW_AXIS - LEVER * a.sin(), z: u - LEVER * a.cos(), angle: HALF_PI - a }
    };
    let room = |u: f64, from: f64, to: f64| {
        (0..=20).map(|k| solid_clearance(&head(u, from + (to - from) * f64::from(k) / 20.0))).fold(f64::INFINITY, f64::min)
    };
    let mut steps: Vec<f64> = (14..30).rev().map(|k| f64::from(k) * 3.0 * DEG).collect();
    steps.push(0.0);
    let (mut u, mut a) = (0.0, HALF_PI);
    let mut keys = Vec::new();
    for next in steps {
        let best = (-20..=120).map(|k| 0.00025 * f64::from(k)).map(|v| (v, room(v, a, next))).fold((u, f64::NEG_INFINITY), |b, c| {
            if c.1 > b.1 {
                c
            } else {
                b
            }
        });
        u = best.0;
        keys.push((Base::Front, head(u, a)));
        // The pitch about the standing joint, in keys at most 3 degrees apart (the search
        // moves the head straight from key to key).
        let n = ((a - next) / (3.0 * DEG)).round().max(1.0);
        keys.extend((1..=n as usize).map(|k| (Base::Front, head(u, a + (next - a) * k as f64 / n))));
        a = next;
    }
    keys
}

const DEG: f64 = std::f64::consts::PI / 180.0;

const HALF_PI: f64 = 0.5 * std::f64::consts::PI;

/// The follow: joint targets, one firmware phase per row, in the order of [`LiftJoints`]
/// (`prismatic_0`, `universal_0_axis2`, `prismatic_1`, `prismatic_2`, `universal_1_axis2`,
/// `prismatic_3`; m and rad), each with the head that grips in it (the other slides or
/// hangs); where the base changes, both heads grip first. The first row is where
/// [`super::motion::TURN_UP_PATH`] ends ([`FOLLOW_START`], the rear head at
/// [`FOLLOW_REAR_START`]); the last has the mole upright [`FOLLOW_AXIS`] off the vertical
/// tunnel's axis, the rear head just below the crossing's centre, the front head 108 mm
/// above it. Found by `cargo run --release -p flotilla_firmware --example
/// molemod_follow_search -- 1 2000` ([`FOLLOW_KEYS`], then [`rear_turn_keys`]; seed 1),
/// rounded to 10 um and 0.1 mrad. The unit test `the_follow_path_clears_the_blocks` checks
/// the rounded table.
// The rear head's pitches at 30, 45 and 60 degrees read as pi/6, pi/4 and pi/3 to clippy.
#[allow(clippy::approx_constant)]
pub const FOLLOW_PATH: [(Base, LiftJoints); 90] = [
    (Base::Rear, [0.00000, -UPRIGHT, 0.02400, 0.00000, 0.0000, 0.00000]),
    (Base::Rear, [0.00000, -1.5120, 0.01313, 0.01100, 0.0571, 0.00000]),
    (Base::Rear, [0.00000, -1.4556, 0.01352, 0.01100, 0.1138, 0.00000]),
    (Base::Rear, [0.00300, -1.4365, 0.01471, 0.01000, 0.1331, 0.00000]),
    (Base::Rear, [0.00800, -1.4421, 0.01365, 0.01100, 0.1279, 0.00000]),
    (Base::Rear, [0.01300, -1.4476, 0.01260, 0.01200, 0.1226, 0.00000]),
    (Base::Rear, [0.01700, -1.4409, 0.01367, 0.01100, 0.1296, 0.00000]),
    (Base::Rear, [0.02200, -1.4449, 0.01263, 0.01100, 0.1259, 0.00100]),
    (Base::Front, [0.02200, -1.4417, 0.01107, 0.01000, 0.1637, 0.00000]),
    (Base::Front, [0.02200, -1.4365, 0.00856, 0.00900, 0.2034, 0.00000]),
    (Base::Front, [0.02200, -1.4309, 0.00708, 0.00700, 0.2436, 0.00000]),
    (Base::Front, [0.02200, -1.4249, 0.00463, 0.00600, 0.2842, 0.00000]),
    (Base::Front, [0.02200, -1.4183, 0.00322, 0.00400, 0.3253, 0.00000]),
    (Base::Front, [0.02200, -1.4112, 0.00085, 0.00300, 0.3670, 0.00000]),
    (Base::Front, [0.02100, -1.3861, 0.00068, 0.00000, 0.4267, 0.00000]),
    (Base::Rear, [0.02400, -1.4022, 0.00121, 0.00000, 0.4417, 0.00100]),
    (Base::Rear, [0.02700, -1.4184, 0.00195, 0.00000, 0.4567, 0.00200]),
    (Base::Rear, [0.03000, -1.4345, 0.00290, 0.00000, 0.4716, 0.00300]),
    (Base::Rear, [0.03000, -1.3560, 0.00024, 0.00000, 0.5813, 0.00900]),
    (Base::Rear, [0.03000, -1.3014, 0.00066, 0.00000, 0.6670, 0.01200]),
    (Base::Rear, [0.03000, -1.2234, 0.00006, 0.00000, 0.7761, 0.01700]),
    (Base::Rear, [0.03000, -1.1435, 0.00017, 0.00000, 0.8872, 0.02200]),
    (Base::Rear, [0.03000, -1.0645, 0.00099, 0.00000, 0.9973, 0.02700]),
    (Base::Front, [0.02200, -0.8603, 0.00007, 0.00000, 1.1669, 0.03000]),
    (Base::Front, [0.01600, -0.7331, 0.00059, 0.00000, 1.2596, 0.03000]),
    (Base::Front, [0.01200, -0.6316, 0.00039, 0.00000, 1.3265, 0.03000]),
    (Base::Front, [0.00800, -0.5490, 0.00097, 0.00000, 1.3745, 0.02900]),
    (Base::Front, [0.00400, -0.4866, 0.00216, 0.00000, 1.4024, 0.02700]),
    (Base::Front, [0.00200, -0.4591, 0.00207, 0.00000, 1.3953, 0.02400]),
    (Base::Front, [0.00000, -0.4320, 0.00224, 0.00000, 1.3878, 0.02100]),
    (Base::Rear, [0.00100, -0.3917, 0.00339, 0.00100, 1.3925, 0.02100]),
    (Base::Rear, [0.00200, -0.3504, 0.00454, 0.00200, 1.3983, 0.02100]),
    (Base::Rear, [0.00300, -0.2929, 0.00556, 0.00300, 1.4201, 0.02200]),
    (Base::Rear, [0.00400, -0.2505, 0.00676, 0.00400, 1.4270, 0.02200]),
    (Base::Rear, [0.00500, -0.2074, 0.00798, 0.00500, 1.4346, 0.02200]),
    (Base::Rear, [0.00600, -0.1636, 0.00923, 0.00600, 1.4428, 0.02200]),
    (Base::Rear, [0.00700, -0.1193, 0.01052, 0.00700, 1.4515, 0.02200]),
    (Base::Front, [0.00700, -0.0869, 0.01026, 0.00700, 1.4836, 0.02000]),
    (Base::Front, [0.00700, -0.0815, 0.01022, 0.00700, 1.4887, 0.01600]),
    (Base::Front, [0.00400, -0.0732, 0.01117, 0.00900, 1.4967, 0.01200]),
    (Base::Front, [0.00100, -0.0781, 0.01020, 0.01300, 1.4916, 0.00700]),
    (Base::Front, [0.00100, -0.0857, 0.00925, 0.01400, 1.4836, 0.00200]),
    (Base::Front, [0.00000, -0.0549, 0.01007, 0.01400, 1.5142, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00994, 0.01400, UPRIGHT, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00875, 0.01400, UPRIGHT, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00875, 0.01400, 1.5184, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00800, 0.01300, 1.5184, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00800, 0.01300, 1.4661, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00725, 0.01200, 1.4661, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00725, 0.01200, 1.4137, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00550, 0.01200, 1.4137, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00550, 0.01200, 1.3614, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00475, 0.01100, 1.3614, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00475, 0.01100, 1.3090, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00425, 0.01000, 1.3090, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00425, 0.01000, 1.2566, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00350, 0.00900, 1.2566, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00350, 0.00900, 1.2043, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00300, 0.00800, 1.2043, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00300, 0.00800, 1.1519, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00250, 0.00700, 1.1519, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00250, 0.00700, 1.0996, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00200, 0.00600, 1.0996, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00200, 0.00600, 1.0472, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00175, 0.00500, 1.0472, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00175, 0.00500, 0.9948, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00075, 0.00500, 0.9948, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00075, 0.00500, 0.9425, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00100, 0.00400, 0.9425, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00100, 0.00400, 0.8901, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00050, 0.00400, 0.8901, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00050, 0.00400, 0.8378, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00050, 0.00400, 0.7854, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00025, 0.00400, 0.7854, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00025, 0.00400, 0.7330, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.7330, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.6807, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.6283, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.5760, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.5236, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.4712, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.4189, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.3665, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.3142, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.2618, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.2094, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.1571, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.1047, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.0524, 0.00000]),
    (Base::Front, [0.00000, 0.0000, 0.00000, 0.00100, 0.0000, 0.00000]),
];

/// Whether the firmware's phase from `from` to `to` (every joint at once, each at its own
/// controller's speed, sampled every [`super::lift::CHECK_DT`]) keeps to `limits` with the
/// base `grip`, the pairs `touching` allowed to touch.
pub fn phase_ok(grip: &Grip, limits: &FollowLimits, touching: &[bool; 8], from: &LiftJoints, to: &LiftJoints) -> bool {
    segment_samples(from, to, CHECK_DT).iter().all(|q| limits.check(grip, q, touching).is_ok())
}

/// RRT-connect ([`super::lift::connect`]) for one phase: from `start` to `goal` with the base
/// `grip`, every edge a firmware phase kept to `limits`; the pairs closer than the margin at
/// `start` may touch. Seeded.
pub fn search_phase(
    grip: &Grip,
    limits: &FollowLimits,
    start: &LiftJoints,
    goal: &LiftJoints,
    iterations: usize,
    seed: u64,
) -> Option<Vec<LiftJoints>> {
    let touching = limits.touching(grip, start);
    connect(
        limits.pitch,
        |q| limits.check(grip, q, &touching).is_ok(),
        |a, b| phase_ok(grip, limits, &touching, a, b),
        start,
        goal,
        iterations,
        seed,
    )
}

/// How far a pose is from `target`, m: the distance between the centres plus the angle
/// difference at [`LEVER`] (28 mm per rad).
pub fn pose_error(pose: &Pose, target: &Pose) -> f64 {
    (pose.x - target.x).hypot(pose.z - target.z) + LEVER * (pose.angle - target.angle).abs()
}

/// The sliding head of a phase with the base `grip`.
pub fn sliding(grip: &Grip, l: &Links) -> Pose {
    match grip.base {
        Base::Front => l.rear,
        Base::Rear => l.front,
    }
}

/// Joints that put the sliding head (the one that is not `grip`'s) exactly at `target`,
/// with the most clearance from everything (the least over the pairs but the base head's
/// own), over a grid of the three prismatic joints that do not decide the body's place
/// (`step` m apart; the fourth spans the two universal joints); with `near`, the clearance
/// counts up to 3 mm and each unit of [`joint_distance`] from `near` costs 1 mm (so a
/// search stepping along keeps to one branch). `None` if none keeps to `limits`. Returns the
/// joints and their least clearance, m.
pub fn reach(grip: &Grip, limits: &FollowLimits, target: &Pose, step: f64, near: Option<&LiftJoints>) -> Option<(LiftJoints, f64)> {
    let mut best: Option<(LiftJoints, f64, f64)> = None;
    for (q, least) in reaching(grip, limits, target, step) {
        // Near `near`, the clearance counts up to 3 mm and each 30 mm or 1 rad away costs 1 mm.
        let score = match near {
            Some(p) => least.min(0.003) - 1e-3 * joint_distance(&q, p),
            None => least,
        };
        if best.is_none_or(|b| score > b.2) {
            best = Some((q, least, score));
        }
    }
    best.map(|b| (b.0, b.1))
}

/// Whether any configuration on [`reach`]'s grid puts the sliding head at `target` within
/// `limits` (the first found ends the search).
pub fn reaches(grip: &Grip, limits: &FollowLimits, target: &Pose, step: f64) -> bool {
    reaching(grip, limits, target, step).next().is_some()
}

/// Every configuration on [`reach`]'s grid that puts the sliding head at `target` within
/// `limits`, with its least clearance (every pair but the base head's own), m.
fn reaching<'a>(grip: &'a Grip, limits: &'a FollowLimits, target: &Pose, step: f64) -> impl Iterator<Item = (LiftJoints, f64)> + 'a {
    let (front, rear) = match grip.base {
        Base::Front => (grip.pose, *target),
        Base::Rear => (*target, grip.pose),
    };
    let wrap = |a: f64| (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
    let based = if grip.base == Base::Front { 0 } else { 2 };
    let n = (TRAVEL / step).round() as usize;
    (0..=n).flat_map(move |a| (0..=n).flat_map(move |b| (0..=n).map(move |c| (a, b, c)))).filter_map(move |(a, b, c)| {
        let (q0, q5, q3) = (TRAVEL * a as f64 / n as f64, TRAVEL * b as f64 / n as f64, TRAVEL * c as f64 / n as f64);
        let joint_front = (front.x - (LEVER + q0) * front.angle.cos(), front.z - (LEVER + q0) * front.angle.sin());
        let joint_rear = (rear.x + (LEVER + q5) * rear.angle.cos(), rear.z + (LEVER + q5) * rear.angle.sin());
        let (dx, dz) = (joint_front.0 - joint_rear.0, joint_front.1 - joint_rear.1);
        let q2 = dx.hypot(dz) - 2.0 * LEVER - q3;
        let body = dz.atan2(dx);
        let q = [q0, wrap(body - front.angle), q2, q3, wrap(body - rear.angle), q5];
        // A pitch a rounding error past the range's end is at its end.
        let q = q.map(|v| if (v.abs() - limits.pitch).abs() < 1e-9 { v.clamp(-limits.pitch, limits.pitch) } else { v });
        if !limits.in_range(&q) || limits.check(grip, &q, &[false; 8]).is_err() {
            return None;
        }
        let least = clearances_in(limits.blocks, &links(grip, &q))
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != based)
            .map(|(_, d)| *d)
            .fold(f64::INFINITY, f64::min);
        Some((q, least))
    })
}

/// Distance in joint space, the RRT's: 30 mm of travel counts as 1 rad.
pub fn joint_distance(a: &LiftJoints, b: &LiftJoints) -> f64 {
    (0..6).map(|i| ((a[i] - b[i]) * if PRISMATIC[i] { 1.0 / TRAVEL } else { 1.0 }).powi(2)).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a table meets as the firmware runs it.
    struct Walk {
        /// Least clearance of the pairs not touching where their base's phases start, m.
        least: f64,
        /// The pair that has it and the row it is in.
        worst: (&'static str, usize),
        /// Largest static torque on each pitch axis (front, rear), N m.
        torque: [f64; 2],
        /// Largest static force along a prismatic joint, N.
        force: f64,
        /// How many times the base changes.
        switches: usize,
        /// The links at the end.
        end: Links,
    }

    /// Walks `path` row to row from the rear head at [`FOLLOW_REAR_START`], sampled every 1 ms
    /// as the firmware moves the joints: every sample keeps to `limits` (the pairs closer than
    /// the margin where a base's phases start may touch), and where the base changes, the
    /// head that takes over grips with its centre in a block's tunnel. `Err` says where not.
    fn walk(path: &[(Base, LiftJoints)], limits: &FollowLimits) -> Result<Walk, String> {
        let mut grip = Grip { base: path[0].0, pose: FOLLOW_REAR_START };
        let mut touching = limits.touching(&grip, &path[0].1);
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
                touching = limits.touching(&grip, &from);
                w.switches += 1;
            }
            let based = if grip.base == Base::Front { 0 } else { 2 };
            for q in segment_samples(&from, &to, 0.001) {
                limits.check(&grip, &q, &touching).map_err(|e| format!("row {}: {e} at {q:?}", k + 1))?;
                let l = links(&grip, &q);
                for (i, d) in clearances(&l).iter().enumerate() {
                    if i != based && !touching[i] && *d < w.least {
                        (w.least, w.worst) = (*d, (FOLLOW_PAIRS[i], k + 1));
                    }
                }
                let (torque, force) = loads(&grip, &l, limits.down);
                w.torque = [w.torque[0].max(torque[0]), w.torque[1].max(torque[1])];
                w.force = force.iter().fold(w.force, |m, f| m.max(*f));
            }
            w.end = links(&grip, &to);
        }
        Ok(w)
    }

    #[test]
    fn the_follow_starts_where_the_turn_up_ends() {
        assert_eq!(FOLLOW_PATH[0], (Base::Rear, FOLLOW_START));
        // The turn up's last push puts the front joint at the crossing's centre: the head
        // upright 23 mm above it (28 mm over the joint, which lies 5 mm below the centre).
        let l = links(&Grip { base: Base::Rear, pose: FOLLOW_REAR_START }, &FOLLOW_START);
        assert!(l.joint_front.0.abs() < 1e-12 && (l.joint_front.1 + AXIS_BELOW).abs() < 1e-12, "{:?}", l.joint_front);
        assert!((l.front.angle - HALF_PI).abs() < 3e-3 && l.front.x.abs() < 1e-4 && (l.front.z - 0.023).abs() < 1e-6, "{:?}", l.front);
        // The body lies on the x tunnel's floor; the rear head, clamped, spans the mouth of
        // its own block's vertical tunnel (50 mm wide: it touches no edge of it).
        let d = clearances(&l);
        assert!(d[1].abs() < 1e-9 && d[2] > 0.0 && d[2] < 2e-4, "{d:?}");
    }

    /// The stored table, sampled every 1 ms as the firmware moves the joints (each at its
    /// own controller's speed): every cube and universal joint (with its rods) keeps the
    /// margin from the blocks and the floor and the cubes from each other, but for the body
    /// lying on the floor where the follow starts; the joints stay in range; the static loads
    /// stay within the actuators'; the base changes five times, each time to a head whose
    /// centre is in a tunnel; the mole ends upright on the vertical tunnel's axis within 4 mm,
    /// the rear head at or below the crossing's centre, the body and the front head above it.
    #[test]
    fn the_follow_path_clears_the_blocks() {
        let limits = FollowLimits::actuators();
        let w = walk(&FOLLOW_PATH, &limits).unwrap_or_else(|e| panic!("{e}"));
        let e = &w.end;
        eprintln!(
            "follow: {} phases, {} grip changes; least clearance {:.3} mm ({} in row {}); peak static torque {:.3} N m on the front pitch, \
             {:.3} on the rear; peak prismatic force {:.2} N; ends: front head ({:.2}, {:.2}) mm at {:.4} rad, body ({:.2}, {:.2}) at {:.4}, \
             rear head ({:.2}, {:.2}) at {:.4}",
            FOLLOW_PATH.len() - 1,
            w.switches,
            w.least * 1e3,
            w.worst.0,
            w.worst.1,
            w.torque[0],
            w.torque[1],
            w.force,
            e.front.x * 1e3,
            e.front.z * 1e3,
            e.front.angle,
            e.body.x * 1e3,
            e.body.z * 1e3,
            e.body.angle,
            e.rear.x * 1e3,
            e.rear.z * 1e3,
            e.rear.angle
        );
        assert!(w.least >= limits.margin);
        assert!(w.torque.iter().all(|t| *t <= limits.torque) && w.force <= limits.force);
        assert_eq!(w.switches, 5);
        for pose in [e.front, e.body, e.rear] {
            assert!((pose.angle - HALF_PI).abs() < 3e-3 && pose.x.abs() < 0.004, "{pose:?}");
        }
        assert!(e.rear.z <= 0.0 && e.body.z > TUNNEL_HALF && e.front.z > e.body.z, "{e:?}");
    }

    /// The follow at the top of a climb: after the turn up done standing in the vertical
    /// tunnel (the turn over into the x tunnel above, towards -x, the mole against the
    /// tunnel's +x wall), the crossing seen a quarter turn round is the same (turned back by
    /// (x, z) -> (z, -x): the vertical tunnel below is the x tunnel behind, the x tunnel
    /// towards -x the vertical tunnel above, the +x wall the floor), so the same table runs,
    /// with every block round the top crossing turned back onto one of [`FOLLOW_BLOCKS`] or
    /// under [`FLOOR`]; only gravity pulls another way (along -x turned back). The loads stay
    /// within the actuators'.
    #[test]
    fn the_follow_turned_a_quarter_turn_is_the_follow_at_the_top() {
        for i in -1..=1 {
            for k in -1..=1 {
                let (x, z) = (BLOCK * f64::from(i), BLOCK * f64::from(k));
                let back = (z, -x);
                let known = FOLLOW_BLOCKS.iter().any(|b| (b.0 - back.0).abs() < 1e-12 && (b.1 - back.1).abs() < 1e-12);
                assert!(known || back.1 + 0.5 * BLOCK <= FLOOR + 1e-12, "block ({x}, {z}) turned back to {back:?}");
            }
        }
        let limits = FollowLimits { down: (-1.0, 0.0), ..FollowLimits::actuators() };
        let w = walk(&FOLLOW_PATH, &limits).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "follow at the top: peak static torque {:.3} N m on the front pitch, {:.3} on the rear; peak prismatic force {:.2} N",
            w.torque[0], w.torque[1], w.force
        );
        assert!(w.torque.iter().all(|t| *t <= limits.torque) && w.force <= limits.force);
    }

    /// The passage is what the search found: with the rear head where the follow starts,
    /// one phase from the start straight to where the body passes the crossing at 45 degrees
    /// runs it into the crossing's rims.
    #[test]
    fn the_body_does_not_pass_the_crossing_in_one_phase() {
        let limits = FollowLimits::actuators();
        let grip = Grip { base: Base::Rear, pose: FOLLOW_REAR_START };
        let passage = FOLLOW_PATH.iter().map(|r| r.1).find(|q| (links(&grip, q).body.angle - 0.75).abs() < 0.05);
        let passage = passage.expect("a row with the body near 45 degrees read from the start's base");
        let touching = limits.touching(&grip, &FOLLOW_START);
        assert!(!phase_ok(&grip, &limits, &touching, &FOLLOW_START, &passage));
    }

    #[test]
    fn points_and_tunnels_by_hand() {
        // The crossing's centre: 35.4 mm from the four rims.
        assert!((point_clearance((0.0, 0.0)) - 0.025 * std::f64::consts::SQRT_2).abs() < 1e-12);
        assert!((point_clearance((-0.06, 0.0)) - 0.025).abs() < 1e-12);
        assert!((point_clearance((-0.06, 0.03)) + 0.005).abs() < 1e-12, "5 mm inside a column");
        assert!(in_tunnel((0.0, 0.09)) && in_tunnel((-0.1, 0.0)) && !in_tunnel((-0.04, 0.04)) && !in_tunnel((0.0, 0.2)));
    }
}
