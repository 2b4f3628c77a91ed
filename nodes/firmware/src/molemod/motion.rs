//! The final mole's motions as firmware (SPEC 2, "The final model"). A motion is a
//! sequence of phases; a phase sets joint targets and which heads grip, and ends when every
//! joint it moves is inside its controller's dead band (50 um, 2 mrad). A phase that does
//! not end within [`MoleMotions::phase_timeout`] stops the robot and leaves a report
//! ([`Stuck`]: which motion, which phase, which joint, how far off).
//!
//! The motions use the joints as the paper's final model does: the two outer prismatic
//! joints (`prismatic_0` at the front head, `prismatic_3` at the rear) to crawl, the front
//! universal joint's yaw axis (`universal_0_axis1`) to turn; the turn up inside a block
//! pitches that joint's second axis (`universal_0_axis2`) while `prismatic_1` pushes the
//! joint along the tunnel. [`Motion::Part`], [`Motion::Raise`] and [`Motion::SetDown`]
//! are the first parts of lifting a block (push the robot's block away from its
//! neighbour, turn it up about the front universal joint, set it down);
//! [`Motion::LiftOnto`] carries it over onto the neighbour along a path searched in the
//! planar model of [`super::lift`] ([`LIFT_ONTO_PATH`]).
//! The heads' grips are the contract's `head_grip` (front, rear).
//!
//! The same firmware drives the paper's two simpler models (`flotilla_common`'s
//! `molemod_paper_models`), told apart by their joints: the rotating model (`prismatic_0`
//! at the front head, `prismatic_1` at the rear, `revolute_0` between) crawls with both
//! prismatic joints and turns with the revolute one in the same phases as the final model;
//! the basic model (`prismatic_0` alone) crawls by expanding its one joint by the
//! 2 x `step` the final model's two joints share, and cannot turn.

use std::collections::VecDeque;

use flotilla_contract::molemod::{Molemod, MolemodCommand, MolemodSensors};
use flotilla_contract::Firmware;

use super::down_turn::DOWN_TURN_PATH;
use super::follow::{Base, FOLLOW_PATH};
use super::follow_down::FOLLOW_DOWN_PATH;
use super::pass::{PassHold, PASS_HOLDS, PASS_PATH};
use super::push_over::{PUSH_OVER_PATH, PUSH_OVER_SETTLE};
use super::shift_below::{SHIFT_BELOW_REACH_PATH, SHIFT_BELOW_ROLL_PATH};
use super::step::{Hold, STEP_IN_HOLDS, STEP_IN_PATH};
use super::vertical::{TURN_DOWN_PATH, TURN_DOWN_START};
use super::{FiveIntervalController, JointAxis, JointControl};

/// One driven joint coordinate of the mole, in the order of its readings.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisSpec {
    /// Coordinate name as the model names it (`prismatic_0`, `universal_0_axis1`, ...).
    pub name: String,
    /// Prismatic (m) rather than revolute (rad).
    pub prismatic: bool,
    /// Lowest position, m or rad.
    pub lower: f64,
    /// Highest position, m or rad.
    pub upper: f64,
}

/// What a motion asks of the mole.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// The inchworm gait (SPEC 2): `iterations` expansions and contractions, alternately,
    /// of the two outer prismatic joints by `step`; each moves the robot `step` (m) forward,
    /// or backward when `backward` (the heads grip the other way round).
    Crawl {
        /// Expansion of each outer prismatic joint, m (the basic model's one joint expands
        /// by twice this).
        step: f64,
        /// Expansions plus contractions.
        iterations: u32,
        /// Move backward.
        backward: bool,
    },
    /// Turn on the spot by `angle` (rad, positive = counter-clockwise seen from above): the
    /// front head reaches out by `reach` (m) with the rear head gripping, swings about the
    /// front universal joint (the rotating model's revolute joint), grips, and the body
    /// swings round to it as the joint straightens and the head is drawn back in. With
    /// `reach` 0 this is the paper's one-step turn of the rotating model.
    Turn {
        /// Heading change, rad.
        angle: f64,
        /// How far the front head reaches out first, m (room to swing).
        reach: f64,
    },
    /// Turn inside a block from the horizontal tunnel into the vertical one, upward (SPEC 2,
    /// "turn inside a block"; the paper's Fig. 11): the front head pitches up by 90 degrees
    /// at the crossing ahead while its universal joint is pushed forward (`prismatic_1`) in
    /// steps, the paper's combined rotation and translation, so the head clears the
    /// tunnels' rims (pitching alone sweeps ~56 mm through the 50 mm crossing). Starts with
    /// the mole straight in the horizontal tunnel, joints at zero; ends with the head upright
    /// in the vertical tunnel, both heads gripping. The path is [`TURN_UP_PATH`].
    TurnUp {
        /// Distance from the body cube's centre to the centre of the crossing to turn at,
        /// along the tunnel, m (one block edge, 0.1 m, for the next block's crossing when
        /// the body is at its block's centre).
        ahead: f64,
        /// The head that turns: [`Head::Front`] as above; [`Head::Rear`] the same phases
        /// with the halves swapped ([`Head::row`]'s map: `prismatic_0` with `prismatic_3`,
        /// `prismatic_1` with `prismatic_2`, the pitch axes with their signs turned) and the
        /// grips swapped, so the rear head turns into the crossing behind the body while the
        /// front head anchors, `ahead` then measured along the tunnel behind the body. Task
        /// 1's put down onward after [`Motion::ShiftBelow`] (docs/molemod_execution.md,
        /// "Putting a block down onward after the shift from below"): the mole upright
        /// through C and the rolled A, rear head down, crawled up until its body is `ahead`
        /// above C's crossing, turns its lower head into C's x tunnel towards B, the front
        /// head holding in A (the crossing's symmetry makes it the turn at the bottom of a
        /// descent); it ends with the rear head level in the new tunnel, `prismatic_2` out
        /// 24 mm, the rear joint at the crossing's centre, both heads gripping.
        lead: Head,
    },
    /// Straightens the mole: every joint of [`LIFT_ONTO_JOINTS`] to zero with the `hold` head
    /// gripping and the other loose (it moves with the chain), then both heads grip. After
    /// [`Motion::ShiftBelow`], which ends with both pitches at 89 mrad (the upper head on A's
    /// tunnel axis, the lower one 5 mm off C's against its wall), `hold` the lower head: the
    /// upper head comes 5 mm across A's tunnel to stand straight over the lower one, as
    /// [`Motion::TurnUp`] with the rear head leading starts (docs/molemod_execution.md, "Putting a block down
    /// onward after the shift from below").
    Straighten {
        /// The head that holds (the other one moves with the chain).
        hold: Head,
    },
    /// Turn inside a block from the horizontal tunnel down into the vertical one (the start
    /// of a move down): an approach as [`Motion::TurnUp`]'s, bringing the front universal
    /// joint to `molemod::vertical::TURN_DOWN_START` from the crossing, then the phases of
    /// `molemod::vertical::TURN_DOWN_PATH` (the rear head gripping, the front sliding): the
    /// body tilts up on the rear universal joint so the front joint stands 5 mm above the
    /// crossing's centre, the head pitches down in the turn up's steps mirrored, and the body
    /// lowers again as the head hangs straight down into the vertical tunnel; both heads
    /// grip. Ends with `prismatic_1` out by -`TURN_DOWN_START` (the front joint over the
    /// vertical tunnel's axis).
    TurnDown {
        /// Distance from the body cube's centre to the centre of the crossing to turn at,
        /// along the tunnel, m (as [`Motion::TurnUp`]'s).
        ahead: f64,
    },
    /// The first part of lifting a block (SPEC 2, "lifting": "the model expands and
    /// partially inserts into the blocks beside"): with the front head gripping the
    /// neighbouring block and the rear head gripping the robot's own (unscrewed) block,
    /// `prismatic_1` pushes the two blocks `by` (m) apart, so the robot's block can then turn
    /// up ([`Motion::Raise`]) without its top edge running into the neighbour.
    Part {
        /// How far the two blocks are pushed apart, m.
        by: f64,
    },
    /// The second part of lifting a block: after a [`Motion::Part`], both heads gripping
    /// (the front one in the neighbour, the rear one in the robot's own parted block), the
    /// front universal joint's second axis pitches to `-angle`: the neighbour holds the
    /// front head, so the body, the rear half and the robot's block turn up about that
    /// joint, the block's far end rising. `angle` 0 lowers it again; [`Motion::SetDown`]
    /// also lets it settle.
    Raise {
        /// How far the body turns up about the front universal joint, rad (0 = level).
        angle: f64,
    },
    /// Sets a raised block down: the front universal joint's second axis back to level
    /// (both heads gripping), then both heads let go for [`SETTLE_TIME`] and grip again.
    /// The pitch joint stops anywhere within its 2 mrad dead band of level and then holds
    /// (geared), so with both heads still gripping the rigid chain would press the block
    /// and its neighbour against the floor (in the physics the block then cannot be
    /// pulled back: docs/molemod_execution.md); let go, the mole and the block settle, and
    /// the heads grip where they lie.
    SetDown,
    /// Lifts the robot's block A onto its neighbour B and turns it over on the way (SPEC 2,
    /// "lifting": "lifts one block up and place it on the top of the second one"): both
    /// heads let go for [`SETTLE_TIME`] and grip again at once, then a part of
    /// [`LIFT_ONTO_PART`] with both heads gripping (`prismatic_1` and `prismatic_2` out),
    /// the front head drawn back along B's tunnel by the same (front sliding), then
    /// [`LIFT_ONTO_PATH`] with both heads gripping: the front universal joint turns the
    /// body up to upright while the rear one turns A over the top, until A lies upside
    /// down on B with the mole in a U between the two blocks' tunnels. Starts with the
    /// mole straight and every joint at zero, A unscrewed and against B, the rear head's
    /// centre [`LIFT_ONTO_REAR_GRIP`] from A's centre towards B (so the front head's is
    /// 30 mm past B's centre). Needs universal joints of ~0.34 N m (static, at the lift
    /// off): the model's 0.52 N m class, not the earlier 0.245 N m one
    /// (docs/molemod_execution.md). With `lead` [`Head::Rear`] the same motion mirrored
    /// ([`Head::row`], [`Head::grip`]): the front head holds A, [`LIFT_ONTO_REAR_GRIP`] from
    /// its centre towards B, and the rear head goes into B's tunnel, so a mole heading +x
    /// lifts its block onto the neighbour behind it (towards -x).
    LiftOnto {
        /// The head that goes into B's tunnel (the other one holds A).
        lead: Head,
    },
    /// Shifts the robot's block A from its neighbour B onto the free cell beside it, over
    /// the block C that stands beside B (SPEC 2, "shifting"), rolling A 90 degrees over the
    /// edge shared by B's and C's tops: the reach ([`SHIFT_REACH_PATH`]; rear head gripping,
    /// front sliding) brings the front universal joint out of A's tunnel over C's vertical
    /// tunnel, swings the front head down and lowers it into C; the roll
    /// ([`SHIFT_ROLL_PATH`]; both heads gripping, the front one in C) lifts A off B, turns it
    /// over the edge and sets it on C, its x tunnel now vertical over C's, the mole nearly
    /// straight down through both. Starts with the mole straight and every joint at zero in
    /// A's x tunnel, its front head towards C, the rear head's centre [`SHIFT_REAR_GRIP`]
    /// from A's centre, A unscrewed. Needs universal joints of ~0.40 N m (static), within the
    /// model's 0.52 N m class (not the earlier 0.245 N m): docs/molemod_execution.md. With `lead` [`Head::Rear`] the
    /// same motion mirrored ([`Head::row`]): the rear head reaches down into C and the front
    /// one holds A, so a mole heading +x shifts its block towards -x, and a mole that
    /// entered its block rear first shifts it the way its rear head points.
    Shift {
        /// The head that goes down into C.
        lead: Head,
    },
    /// Puts the robot's block A down from the block C it lies upside down on into the free
    /// floor cell beside C (SPEC 2, "putting down": "similar to lifting"): the lift onto a
    /// neighbour mirrored and run backwards. [`PUT_DOWN_PATH`] with both heads gripping
    /// (the front one in C's tunnel) lifts A off C, turns it over the edge shared by C's top
    /// and the free side and sets it on the floor [`LIFT_ONTO_PART`] from C; then the front
    /// head is pushed that far deeper into C (front sliding, `prismatic_1` and
    /// `prismatic_2` out) and, both gripping, the mole contracts and draws A against C.
    /// Starts where [`Motion::LiftOnto`] ends (A upside down on C, the mole in a U from A's
    /// tunnel to C's, the rear head's centre [`LIFT_ONTO_REAR_GRIP`] from A's centre, the
    /// front head's [`LIFT_ONTO_FRONT_GRIP`] from C's), not where [`Motion::Shift`] ends:
    /// docs/molemod_execution.md. Ends with the mole straight, every joint at zero. With
    /// `lead` [`Head::Rear`] mirrored: it starts where the mirrored lift onto ends.
    PutDown {
        /// The head in C's tunnel (the other one holds A).
        lead: Head,
    },
    /// Leaves the U that [`Motion::LiftOnto`] ends in, A staying where the lift set it: the
    /// rear head lets go of A (both heads gripped at the lift's end) for [`SETTLE_TIME`],
    /// then [`LEAVE_U_PATH`] with the front head gripping in B's tunnel as the base and the
    /// rear one loose: the rear head is lowered off A's tunnel, drawn back out of A's mouth,
    /// and the mole comes down until it lies straight along B's tunnel, every joint at zero,
    /// its rear half standing out of B's mouth over the cell A left at the tunnel's height
    /// (the front head still [`LIFT_ONTO_FRONT_GRIP`] from B's centre). Starts where the lift
    /// onto ends (A screwed to B or not: the path does not touch it). With `lead`
    /// [`Head::Rear`] mirrored ([`Head::row`], [`Head::grip`]): it starts where the mirrored
    /// lift onto ends, the rear head gripping in B and the front one leaving A.
    LeaveU {
        /// The head in B's tunnel, which led the lift (the other one leaves A).
        lead: Head,
    },
    /// [`Motion::LeaveU`] backwards: from the mole straight along B's tunnel, every joint at
    /// zero, the front head gripping [`LIFT_ONTO_FRONT_GRIP`] from B's centre and A upside
    /// down on B where the lift onto sets it, [`LEAVE_U_PATH`] from its last row to its first
    /// (the front head gripping, the rear one loose; every phase of the table was checked in
    /// this direction too) brings the rear head into A's mouth and against its tunnel where
    /// the lift left it; then both heads grip. Ends where [`Motion::LiftOnto`] ends, so
    /// [`Motion::PutDown`] can follow. With `lead` [`Head::Rear`] mirrored.
    EnterU {
        /// The head in B's tunnel (the other one goes into A).
        lead: Head,
    },
    /// Steps from the straight mole [`Motion::LeaveU`] ends in (the front head clamped in B's
    /// x tunnel [`LIFT_ONTO_FRONT_GRIP`] from B's centre, the rear half over the empty cell
    /// beside B at the tunnel's height) down to the floor and into the tunnels
    /// ([`STEP_IN_PATH`], planar model [`super::step`]): the rear head is tilted down onto
    /// the floor of the empty cell (front head holding); then it grips there and the front
    /// one slides while `prismatic_2` pushes the body onto B's tunnel floor and `prismatic_1`
    /// and `prismatic_0` push the front head over B's crossing into the third block C; then
    /// the front head holds (clamped in C) and the rear half is lifted level and drawn up
    /// into B's mouth as every joint closes. Where the holding head changes, both heads grip
    /// for [`SETTLE_TIME`] first. Ends with the mole straight and contracted, the rear head
    /// in B 40 mm, the front head in C 28 mm from their centres towards the empty cell; both
    /// heads let go for [`SETTLE_TIME`] (the mole settles onto the tunnel floors) and grip:
    /// a crawl goes on from there. Each phase may also end standing still within
    /// [`TABLE_SETTLE`] of its row (a head comes to rest on a floor a few mrad from it where
    /// the blocks rest off their cells). With `lead` [`Head::Rear`] mirrored
    /// ([`Head::row`], [`Head::grip`]): from the mirrored `LeaveU`, the rear head in B.
    StepIn {
        /// The head in B's tunnel at the start (it leads into the tunnels).
        lead: Head,
    },
    /// [`Motion::StepIn`] backwards: from the mole straight and contracted along a row, the
    /// trailing head in the row's end block 40 mm from its centre towards its free mouth, the
    /// leading head in the block before, 28 mm from its centre towards the mouth (where
    /// `StepIn` ends), [`STEP_IN_PATH`]'s phases from the last to the first, each with its
    /// hold (both gripping for [`SETTLE_TIME`] where it changes): the trailing half pushed out
    /// of the mouth and tilted down onto the floor beyond, the leading head pulled back over
    /// the end block's crossing into it, the trailing half lifted level: ends with the mole
    /// straight, the leading head in the end block [`LIFT_ONTO_FRONT_GRIP`] from its centre
    /// towards the mouth and holding, the other half over the floor beyond at the tunnel's
    /// height, where [`Motion::EnterU`] starts. With `lead` [`Head::Rear`] mirrored: a mole
    /// heading +x steps out of the row's +x mouth, front half first.
    StepOut {
        /// The head that stays in the end block (it holds at the end).
        lead: Head,
    },
    /// The body following the head round a block's crossing after [`Motion::TurnUp`] (the
    /// front head upright in the vertical tunnel, the rest lying in the x tunnel), to the
    /// whole mole upright in the vertical tunnel, so a climb (the crawl) can follow: the
    /// phases of [`super::follow::FOLLOW_PATH`], found in the planar model of
    /// [`super::follow`], each with one head gripping (the base) and the other sliding or
    /// hanging; where the base changes both heads grip for [`SETTLE_TIME`] first, so the
    /// head that takes over is clamped before the other lets go. Starts where the turn up
    /// ends (`prismatic_1` out 24 mm, the front pitch at upright, both gripping); ends with
    /// the mole upright 3.75 mm off the vertical tunnel's axis, the rear head's centre 5 mm
    /// below the crossing's, every joint at zero but `prismatic_2` (1 mm), both gripping.
    /// With `lead` [`Head::Rear`] mirrored ([`Head::row`], [`Head::grip`]): after a turn up
    /// led by the rear head.
    Follow {
        /// The head that turned up first (and ends on top).
        lead: Head,
    },
    /// Shifts block A from below (docs/molemod_execution.md, "Shifting from below"): the
    /// mole stands upright in the vertical tunnel of the block C beside A's block B, its
    /// rear head on the floor under C and gripping, A upside down on B (as the lift onto
    /// leaves it) and unscrewed. The reach ([`SHIFT_BELOW_REACH_PATH`]; rear head gripping,
    /// front sliding) turns the front head to face A, raises it to A's x tunnel and pushes it
    /// through A's mouth facing C until its centre is 32 mm inside A; the front head grips;
    /// the roll ([`SHIFT_BELOW_ROLL_PATH`]; both gripping) lifts A off B, rolls it a quarter
    /// turn over the edge shared by B's and C's tops and sets it on C, its x tunnel then
    /// vertical over C's, the mole nearly straight upright through both. Starts with every
    /// joint at zero, the mole against C's tunnel wall away from B
    /// ([`super::shift_below::SHIFT_BELOW_ACROSS`]). With `lead` [`Head::Rear`] mirrored
    /// ([`Head::row`], [`Head::grip`]): the front head stands on the floor and the rear one
    /// reaches into A.
    ShiftBelow {
        /// The head that reaches into A (the other one stands on the floor under C).
        lead: Head,
    },
    /// Through a lone block B (the cells on both sides empty, A upside down on B where the
    /// lift onto set it; task 3's put down onward right after a lift) from where
    /// [`Motion::LeaveU`] ends to where [`Motion::EnterU`] with the other head leading
    /// starts ([`PASS_PATH`], planar model [`super::pass`]): the step's set down (the rear
    /// head tilted onto the floor of the empty cell behind B, the front head clamped in B),
    /// the push (the rear head gripping on the floor: the body onto B's near mouth, the front
    /// head over B's crossing to 1 mm inside B's far face), the regrip (the front head
    /// clamped: the rear head lifted, drawn in and set down again close to B's near face),
    /// the push out (the body over the crossing onto B's far mouth, the front head out and
    /// set down on the floor of the far cell), the swap (both heads gripping on the floors,
    /// `prismatic_1` opening as `prismatic_2` closes: the body slides back to B's near mouth),
    /// then the same mirrored and backwards. Where the holding head changes, both grip for
    /// [`SETTLE_TIME`] first. Starts with the mole straight at the tunnel's height, the
    /// leading head clamped in B [`LIFT_ONTO_FRONT_GRIP`] from its centre towards the cell
    /// behind, the rest over that cell; ends with the mole straight at the tunnel's height,
    /// the other head clamped in B the same distance from its centre towards the far cell
    /// and holding, the leading head over the far cell 130 mm from B's centre. With `lead`
    /// [`Head::Front`] a mole heading +x passes towards +x (and [`Motion::EnterU`] and
    /// [`Motion::PutDown`] follow with [`Head::Rear`]); with [`Head::Rear`] mirrored.
    Pass {
        /// The head clamped in B at the start (it leads through B).
        lead: Head,
    },
    /// Shifts block A from under it (docs/molemod_execution.md, "Pushing A over from under
    /// it"): the mole upright in the column of B and A where [`Motion::Follow`] leaves it
    /// (every joint at zero but `prismatic_2`, 1 mm; the lower head 5 mm below B's crossing,
    /// the upper head in A's vertical tunnel; 3.75 mm off the column's axis away from C), A
    /// upside down on B and unscrewed. The settle
    /// ([`super::push_over::PUSH_OVER_SETTLE`]): the upper head holds while `prismatic_1`
    /// lowers the lower head 10 mm, both grip, the lower head holds while the upper one
    /// slides 8 mm down to A's crossing, both grip; then the push over
    /// ([`super::push_over::PUSH_OVER_PATH`], both gripping) lifts A off B, rolls it a
    /// quarter turn over the edge shared by B's and C's tops and sets it on C, the upper head
    /// lying in A's then horizontal tunnel, the body leaning out of B's top mouth. With
    /// `lead` [`Head::Rear`] mirrored ([`Head::row`], [`Head::grip`]): the rear head on top.
    /// `flipped`: the same path seen from the other side of its plane (every pitch target
    /// negated; the pitch joints' range and the cubes are symmetric about the mole's long
    /// axis), for a mole whose pitch axes point the other way. `Follow` leaves the mole so
    /// after a turn up into B's crossing from C's side, the only way it ends away from C
    /// (docs/molemod_execution.md, "Pushing A over from under it").
    PushOver {
        /// The head in A (on top).
        lead: Head,
        /// Every pitch target negated (the path seen from the other side of its plane).
        flipped: bool,
    },
    /// The lower head's turn into B's x tunnel after [`Motion::PushOver`]
    /// (docs/molemod_execution.md, "The lower head's turn into B's x tunnel after the push
    /// over (issue #18, mole-downturn)"): the phases of
    /// [`super::down_turn::DOWN_TURN_PATH`], found in the planar model of
    /// [`super::down_turn`], each with one head gripping (the base) and the other moving;
    /// where the base changes both heads grip for [`SETTLE_TIME`] first. Starts where the push
    /// over ends (A rolled onto C, the upper head level in A's crossing, the lower head
    /// upright in B's vertical tunnel, both gripping): the upper head holds while the lower
    /// one is raised 10 mm; the lower head holds while the upper one moves to 7.3 mm inside
    /// A's -x face ([`super::down_turn::DOWN_TURN_GRIP`]); the upper head holds while the
    /// lower one turns level into B's x tunnel towards C as [`TURN_UP_PATH`] turns a head, to
    /// 3 degrees from level, 23 mm from B's axis; both grip. `lead` and `flipped` as the push
    /// over's that ran before it.
    DownTurn {
        /// The head in A (on top), the push over's `lead`.
        lead: Head,
        /// Every pitch target negated, as the push over's `flipped`.
        flipped: bool,
    },
    /// The body following the lower head down into B's x tunnel after [`Motion::DownTurn`]
    /// (docs/molemod_execution.md, "The body following down into B's x tunnel after the push
    /// over"): the phases of [`super::follow_down::FOLLOW_DOWN_PATH`], one head gripping a
    /// phase, both gripping for [`SETTLE_TIME`] where the base changes. The upper head leaves
    /// A, the body turns about the lower joint down over B's top into B's column while the
    /// lower head works out along B's +x arm into C, the upper head turns into B's crossing;
    /// the mole ends straight along B's and C's x tunnels, the upper head in B and the lower
    /// one in C, where `Follow` leaves it before the put down onward (both gripping).
    FollowDown {
        /// The head that was on top (in A), the down turn's `lead`.
        lead: Head,
        /// Every pitch target negated, as the down turn's `flipped`.
        flipped: bool,
    },
}

/// Which head leads a block motion. The stored paths ([`SHIFT_REACH_PATH`], ...) are
/// written for the front head leading; the mole is symmetric end to end, so the same path
/// with the rear head leading is each row read from the other end
/// ([`super::lift::mirror`]: `prismatic_0` with `prismatic_3`, `prismatic_1` with
/// `prismatic_2`, the two pitch axes with their signs turned) and the grips swapped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Head {
    /// As the paths are stored.
    #[default]
    Front,
    /// Mirrored: the rear head does what the front head does in the stored path.
    Rear,
}

impl Head {
    /// A stored path's row (in the order of [`LIFT_ONTO_JOINTS`]) with this head leading.
    pub fn row(self, row: &[f64; 6]) -> [f64; 6] {
        match self {
            Head::Front => *row,
            Head::Rear => super::lift::mirror(row),
        }
    }

    /// A stored phase's grips (front, rear) with this head leading.
    pub fn grip(self, [front, rear]: [bool; 2]) -> [bool; 2] {
        match self {
            Head::Front => [front, rear],
            Head::Rear => [rear, front],
        }
    }
}

/// How long the heads let go after a block is set down ([`Motion::SetDown`]), s.
pub const SETTLE_TIME: f64 = 0.1;

/// Distance from the body cube's centre to the front universal joint with `prismatic_1`
/// at zero, m: half the final model's 56 mm contracted pitch (`flotilla_common`'s
/// `MolemodRobotGeometry`).
pub const FRONT_JOINT_FROM_BODY: f64 = 0.028;

/// Where the front universal joint stands, ahead of the crossing's centre along the tunnel
/// (negative = before it), when [`Motion::TurnUp`] starts pitching, m.
pub const TURN_UP_START: f64 = -0.024;

/// [`Motion::TurnUp`]'s path: (pitch, front universal joint's place along the tunnel from the
/// crossing's centre) waypoints, rad and m, done one coordinate at a time (a pitch at a
/// standing joint, or a push at a standing pitch). Worked out for the blocks' 50 mm square
/// tunnels, the 40 mm head with 4 mm rounded edges 28 mm from its joint, and the mole's axis
/// 5 mm below the crossing's centre (lying on the tunnel floor): one pitch to 42 degrees,
/// then 3 degree steps, the joint standing, for each step, where the head keeps the most
/// room from the rims (a 0.25 mm grid), and a push to the crossing's centre at the end. The
/// head keeps at least 1.39 mm from every rim along every segment (the unit test
/// `the_turn_up_path_clears_the_rims` checks 1.3 mm); no path keeps more than ~1.7 mm,
/// which the head's 56.6 mm diagonal spanning the crossing near 60 degrees leaves.
pub const TURN_UP_PATH: [(f64, f64); 35] = [
    (0.0 * DEG, -0.02400),
    (-42.0 * DEG, -0.02400),
    (-42.0 * DEG, -0.01975),
    (-45.0 * DEG, -0.01975),
    (-45.0 * DEG, -0.01950),
    (-48.0 * DEG, -0.01950),
    (-48.0 * DEG, -0.01925),
    (-51.0 * DEG, -0.01925),
    (-51.0 * DEG, -0.01900),
    (-54.0 * DEG, -0.01900),
    (-54.0 * DEG, -0.01825),
    (-57.0 * DEG, -0.01825),
    (-57.0 * DEG, -0.01750),
    (-60.0 * DEG, -0.01750),
    (-60.0 * DEG, -0.01625),
    (-63.0 * DEG, -0.01625),
    (-63.0 * DEG, -0.01475),
    (-66.0 * DEG, -0.01475),
    (-66.0 * DEG, -0.01325),
    (-69.0 * DEG, -0.01325),
    (-69.0 * DEG, -0.01175),
    (-72.0 * DEG, -0.01175),
    (-72.0 * DEG, -0.01000),
    (-75.0 * DEG, -0.01000),
    (-75.0 * DEG, -0.00825),
    (-78.0 * DEG, -0.00825),
    (-78.0 * DEG, -0.00675),
    (-81.0 * DEG, -0.00675),
    (-81.0 * DEG, -0.00475),
    (-84.0 * DEG, -0.00475),
    (-84.0 * DEG, -0.00300),
    (-87.0 * DEG, -0.00300),
    (-87.0 * DEG, -0.00125),
    (-90.0 * DEG, -0.00125),
    (-90.0 * DEG, 0.00000),
];

const DEG: f64 = std::f64::consts::PI / 180.0;

/// Where [`Motion::LiftOnto`]'s head holding A grips (the rear head as the path is stored,
/// the front one mirrored): its centre along A's tunnel from A's centre towards B, m.
pub const LIFT_ONTO_REAR_GRIP: f64 = 0.018;

/// How far [`Motion::LiftOnto`] first pushes A away from B, m (half by `prismatic_1`, half
/// by `prismatic_2`); drawing the front head back by as much leaves it
/// [`LIFT_ONTO_FRONT_GRIP`] from B's centre.
pub const LIFT_ONTO_PART: f64 = 0.048;

/// Where [`Motion::LiftOnto`]'s leading head (the front one as the path is stored) grips
/// during the lift: its centre along B's tunnel from B's centre, m (negative = towards A).
pub const LIFT_ONTO_FRONT_GRIP: f64 = -0.018;

/// A universal joint's pitch at upright in [`LIFT_ONTO_PATH`]: the ±90 degree range less
/// the controller's 2 mrad dead band, rad.
const UPRIGHT: f64 = 0.5 * std::f64::consts::PI - 0.002;

/// [`Motion::LiftOnto`]'s path after the part: joint targets, one phase per row, in the
/// order of `molemod::lift::LiftJoints` (`prismatic_0`, `universal_0_axis2`,
/// `prismatic_1`, `prismatic_2`, `universal_1_axis2`, `prismatic_3`; m and rad). The
/// first row is the straight mole after the part; then the lift off (A's whole bottom 3 mm
/// up), two waypoints, A over B 3 mm up, set down on it. Found by
/// `molemod::lift::search` (RRT-connect, seed 1, the grip and part above, torque limit
/// 0.34 N m: `cargo run --release -p flotilla_firmware --example molemod_lift_search --
/// 0.34 3000 1 0.25 0.018 -0.018 0.048`), rounded to 10 um and 0.1 mrad; each phase moves
/// every joint at once at its own controller's speed, as the search's checks did. The
/// unit test `the_lift_onto_path_clears_everything` checks the rounded table.
pub const LIFT_ONTO_PATH: [[f64; 6]; 6] = [
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, -0.0570, 0.0, 0.0, 0.0, 0.0],
    [0.00099, -0.1650, 0.00016, 0.00071, 0.0957, 0.00008],
    [0.00373, -0.3463, 0.00167, 0.00135, 0.1215, 0.00267],
    [0.02729, -UPRIGHT, 0.02845, 0.02845, UPRIGHT, 0.02750],
    [0.02729, -UPRIGHT, 0.02696, 0.02696, UPRIGHT, 0.02750],
];

/// Where [`Motion::Shift`]'s rear head grips: its centre along A's tunnel from A's centre,
/// m (negative = away from C): 1 mm inside A's face, so that the mole, contracted, fits
/// from the front head in C to the rear head in A rolled onto C.
pub const SHIFT_REAR_GRIP: f64 = -0.049;

/// Where [`Motion::Shift`]'s front universal joint stands over C's vertical tunnel in the
/// reach: from the tunnel's axis along the row, m (negative = towards B).
pub const SHIFT_ACROSS: f64 = -0.002;

/// [`Motion::Shift`]'s reach: joint targets, one phase per row, in the order of
/// [`LIFT_ONTO_JOINTS`] (m and rad); the first row is the straight mole. Out (the body's
/// three prismatic joints put the front universal joint [`SHIFT_ACROSS`] from C's
/// vertical tunnel's axis, `prismatic_1` at least 15 mm so the bent head clears the body),
/// swing (the front head down to upright), lower (`prismatic_0` out: the head's centre 13
/// mm below C's top). From `molemod::shift::reach`; checked by the unit test
/// `the_shift_paths_clear_everything`.
pub const SHIFT_REACH_PATH: [[f64; 6]; 4] = [
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.021, 0.021, 0.0, 0.021],
    [0.0, UPRIGHT, 0.021, 0.021, 0.0, 0.021],
    [0.03, UPRIGHT, 0.021, 0.021, 0.0, 0.021],
];

/// [`Motion::Shift`]'s roll after the reach: joint targets, one phase per row, as
/// [`SHIFT_REACH_PATH`]. The first row is the reach's end; then the lift off (the front
/// joint turns the body and A up until A's whole bottom is 3 mm above B), the searched
/// path to A rolled 90 degrees and held 3 mm over C, set down on C by `prismatic_0`. Found
/// by `molemod::shift::search` (RRT-connect, seed 1, torque limit 0.52 N m: `cargo run
/// --release -p flotilla_firmware --example molemod_shift_search -- 0.52 3000 1 -0.002
/// 0.03 -0.049`), rounded to 10 um and 0.1 mrad. The unit test
/// `the_shift_paths_clear_everything` checks the rounded table.
pub const SHIFT_ROLL_PATH: [[f64; 6]; 8] = [
    [0.03, UPRIGHT, 0.021, 0.021, 0.0, 0.021],
    [0.03, 1.5078, 0.021, 0.021, 0.0, 0.021],
    [0.02813, 1.3966, 0.01966, 0.01963, 0.0032, 0.0196],
    [0.0188, 0.8404, 0.01295, 0.01279, 0.0194, 0.01262],
    [0.01507, 0.6179, 0.01026, 0.01006, 0.0259, 0.00982],
    [0.0076, 0.173, 0.0049, 0.00459, 0.0389, 0.00424],
    [0.003, 0.0525, 0.0, 0.00008, 0.0545, 0.0],
    [0.0, 0.0525, 0.0, 0.00008, 0.0545, 0.0],
];

/// [`Motion::PutDown`]'s path: joint targets, one phase per row, as [`LIFT_ONTO_PATH`].
/// The first row is where the lift ends (A upside down on C, the mole in a U); then A lifted
/// 3 mm off C (the lift's set down backwards), two waypoints, A 3 mm over the floor, set
/// down on it (the lift's lift off backwards), the mole straight with A parted
/// [`LIFT_ONTO_PART`] from C. Found by `molemod::lift::search` from the lift's ends taken
/// the other way (RRT-connect, seed 1, the lift's grips and part, torque limit 0.34 N m:
/// `cargo run --release -p flotilla_firmware --example molemod_put_down_search`), rounded to
/// 10 um and 0.1 mrad. Not the lift's table backwards: a phase run backwards takes another
/// joint-space path (each joint starts at once and moves at its own speed), and the lift's
/// rows run backwards come within 0.9965 mm of C. The unit test
/// `the_put_down_path_clears_everything` checks the rounded table.
pub const PUT_DOWN_PATH: [[f64; 6]; 6] = [
    LIFT_ONTO_PATH[5],
    [0.02729, -UPRIGHT, 0.02845, 0.02845, UPRIGHT, 0.02750],
    [0.02193, -1.3003, 0.02467, 0.02399, 1.2921, 0.02555],
    [0.02112, -1.0975, 0.02274, 0.02365, 0.9291, 0.02363],
    [0.0, -0.0570, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
];

/// [`Motion::LeaveU`]'s path: joint targets, one phase per row, as [`LIFT_ONTO_PATH`].
/// The first row is where the lift ends (the mole in the U, the rear head in A's mouth);
/// then the release (`prismatic_1` and `prismatic_2` closed 1 mm each: the rear head 2 mm
/// off A's tunnel), the withdrawal (`prismatic_3` to zero, `prismatic_0` to its travel's
/// end), and the searched way down to the mole straight along B's tunnel, every joint at
/// zero. The first three rows are hand-made (`molemod::unfold::release`), the rest found by
/// `molemod::unfold::search` (RRT-connect, seed 1, torque limit 0.245 N m, every phase
/// checked both ways: `cargo run --release -p flotilla_firmware --example
/// molemod_leave_u_search`), rounded to 10 um and 0.1 mrad. Run backwards it enters the U
/// from the straight mole. The unit test `the_leave_u_path_clears_everything_both_ways`
/// checks the rounded table.
pub const LEAVE_U_PATH: [[f64; 6]; 8] = [
    LIFT_ONTO_PATH[5],
    [0.02729, -UPRIGHT, 0.02596, 0.02596, UPRIGHT, 0.02750],
    [0.03, -UPRIGHT, 0.02596, 0.02596, UPRIGHT, 0.0],
    [0.02438, -1.3959, 0.01859, 0.01958, 1.4298, 0.00771],
    [0.0235, -1.2949, 0.01797, 0.0175, 1.4283, 0.01007],
    [0.0233, -1.1587, 0.01847, 0.0167, 1.3754, 0.00973],
    [0.0012, -0.0944, 0.00227, 0.00184, -0.0045, 0.0015],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
];

/// The joints [`LIFT_ONTO_PATH`]'s columns drive.
pub const LIFT_ONTO_JOINTS: [&str; 6] = super::lift::LIFT_JOINT_NAMES;

/// The slots of [`LIFT_ONTO_JOINTS`] that are pitch axes (their signs turn when mirrored).
const PITCH_SLOTS: [usize; 2] = [1, 4];

/// A stored row seen from the other side of the plane when `flipped`: the pitches turn the
/// other way.
fn seen_from(row: &[f64; 6], flipped: bool) -> [f64; 6] {
    let mut row = *row;
    if flipped {
        for slot in PITCH_SLOTS {
            row[slot] = -row[slot];
        }
    }
    row
}

impl Motion {
    /// Short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            Motion::Crawl { backward: false, .. } => "crawl forward",
            Motion::Crawl { backward: true, .. } => "crawl backward",
            Motion::Turn { .. } => "turn",
            Motion::TurnUp { lead: Head::Front, .. } => "turn up",
            Motion::TurnUp { lead: Head::Rear, .. } => "turn up, rear head leading",
            Motion::Straighten { hold: Head::Front } => "straighten",
            Motion::Straighten { hold: Head::Rear } => "straighten, rear head holding",
            Motion::TurnDown { .. } => "turn down",
            Motion::Part { .. } => "part",
            Motion::Raise { .. } => "raise",
            Motion::SetDown => "set down",
            Motion::LiftOnto { lead: Head::Front } => "lift onto",
            Motion::LiftOnto { lead: Head::Rear } => "lift onto, rear head leading",
            Motion::Shift { lead: Head::Front } => "shift",
            Motion::Shift { lead: Head::Rear } => "shift, rear head leading",
            Motion::PutDown { lead: Head::Front } => "put down",
            Motion::PutDown { lead: Head::Rear } => "put down, rear head leading",
            Motion::LeaveU { lead: Head::Front } => "leave the U",
            Motion::LeaveU { lead: Head::Rear } => "leave the U, rear head leading",
            Motion::EnterU { lead: Head::Front } => "enter the U",
            Motion::EnterU { lead: Head::Rear } => "enter the U, rear head leading",
            Motion::StepIn { lead: Head::Front } => "step in",
            Motion::StepIn { lead: Head::Rear } => "step in, rear head leading",
            Motion::StepOut { lead: Head::Front } => "step out",
            Motion::StepOut { lead: Head::Rear } => "step out, rear head leading",
            Motion::Follow { lead: Head::Front } => "follow",
            Motion::Follow { lead: Head::Rear } => "follow, rear head leading",
            Motion::ShiftBelow { lead: Head::Front } => "shift from below",
            Motion::ShiftBelow { lead: Head::Rear } => "shift from below, rear head leading",
            Motion::Pass { lead: Head::Front } => "pass through",
            Motion::Pass { lead: Head::Rear } => "pass through, rear head leading",
            Motion::PushOver { lead: Head::Front, flipped: false } => "push over",
            Motion::PushOver { lead: Head::Rear, flipped: false } => "push over, rear head leading",
            Motion::PushOver { lead: Head::Front, flipped: true } => "push over, flipped",
            Motion::PushOver { lead: Head::Rear, flipped: true } => "push over, rear head leading, flipped",
            Motion::DownTurn { lead: Head::Front, flipped: false } => "down turn",
            Motion::DownTurn { lead: Head::Rear, flipped: false } => "down turn, rear head leading",
            Motion::DownTurn { lead: Head::Front, flipped: true } => "down turn, flipped",
            Motion::DownTurn { lead: Head::Rear, flipped: true } => "down turn, rear head leading, flipped",
            Motion::FollowDown { lead: Head::Front, flipped: false } => "follow down",
            Motion::FollowDown { lead: Head::Rear, flipped: false } => "follow down, rear head leading",
            Motion::FollowDown { lead: Head::Front, flipped: true } => "follow down, flipped",
            Motion::FollowDown { lead: Head::Rear, flipped: true } => "follow down, rear head leading, flipped",
        }
    }
}

/// A motion the mole cannot do, or a model that lacks a joint the motions use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MotionError {
    /// The model has no coordinate of this name.
    #[error(
        "the mole has no joint `{0}` (the motions know the final model: prismatic_0, prismatic_3, universal_0_axis1; \
         the rotating one: prismatic_0, prismatic_1, revolute_0; the basic one: prismatic_0 alone)"
    )]
    MissingJoint(&'static str),
    /// A motion's parameter is not finite or outside what the joint allows.
    #[error("{motion}: {what} = {value} is outside [{lower}, {upper}]")]
    OutOfRange {
        /// The motion's name.
        motion: &'static str,
        /// The parameter.
        what: &'static str,
        /// The value given.
        value: f64,
        /// Lowest allowed.
        lower: f64,
        /// Highest allowed.
        upper: f64,
    },
    /// A crawl of no iterations.
    #[error("{0}: iterations must be at least 1")]
    NoIterations(&'static str),
    /// A motion needs a joint the model does not have.
    #[error("{motion} needs joint `{joint}`, which the mole does not have")]
    MotionNeedsJoint {
        /// The motion's name.
        motion: &'static str,
        /// The missing joint.
        joint: &'static str,
    },
}

/// A phase that did not end in time: the robot stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    /// Index of the motion among those pushed (0 = first).
    pub motion: usize,
    /// The motion's name.
    pub motion_name: &'static str,
    /// The phase's name.
    pub phase: &'static str,
    /// The joint farthest from its target.
    pub joint: String,
    /// Its target, m or rad.
    pub target: f64,
    /// Its position at the time limit, m or rad.
    pub position: f64,
    /// When the phase started, s.
    pub since: f64,
}

impl std::fmt::Display for Stuck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "motion {} ({}), phase `{}`: joint `{}` at {:.6} of target {:.6} ({:.6} off) since t = {:.3} s",
            self.motion,
            self.motion_name,
            self.phase,
            self.joint,
            self.position,
            self.target,
            self.position - self.target,
            self.since
        )
    }
}

/// A finished phase.
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseRecord {
    /// Index of the motion among those pushed.
    pub motion: usize,
    /// The phase's name.
    pub phase: &'static str,
    /// Start, s.
    pub started: f64,
    /// End (every moved joint at its target), s.
    pub ended: f64,
}

/// One phase: joint targets (by reading index) and grips (front, rear).
#[derive(Clone, Debug, PartialEq)]
struct Phase {
    motion: usize,
    motion_name: &'static str,
    name: &'static str,
    targets: Vec<(usize, f64)>,
    grip: [bool; 2],
    /// Shortest time the phase lasts, s: a phase that only changes the grips must last for
    /// the robot to see it.
    dwell: f64,
    /// Whether the phase presses against a block (a head against a block's tunnel, or a
    /// carried block onto the one below): it also ends once that bears, every joint it moves
    /// standing still short of its target (within [`PRESS_STILL`] over [`PRESS_WINDOW`]);
    /// where the contact comes depends on where the blocks rest to a few tenths of a mm,
    /// which no stored target knows.
    press: bool,
    /// The largest shortfall of a revolute joint (rad) and of a prismatic one (m) at which the
    /// phase also ends once every joint it moves stands still ([`PRESS_STILL`] over
    /// [`PRESS_WINDOW`]): a head moved through a tunnel comes to rest on its floor or a rim a
    /// few mrad from a stored row the planar model keeps 0.75 mm clear of them; a block drawn
    /// against its neighbour bears on it short of the stored close. Zero: never.
    settle: [f64; 2],
}

impl Phase {
    /// Phase `name` of motion `motion_index` (`motion`): `targets` with `grip`, no dwell, no
    /// press, no settle.
    fn new(motion_index: usize, motion: &Motion, name: &'static str, targets: Vec<(usize, f64)>, grip: [bool; 2]) -> Self {
        Self { motion: motion_index, motion_name: motion.name(), name, targets, grip, dwell: 0.0, press: false, settle: [0.0; 2] }
    }

    /// Whether the phase may end where its joints stand still short of the target: it
    /// presses, or it settles.
    fn ends_when_still(&self) -> bool {
        self.press || self.settle != [0.0; 2]
    }
}

/// How far short of its row a phase of a stored table with alternating grips
/// ([`Motion::DownTurn`], [`Motion::FollowDown`], [`Motion::StepIn`], [`Motion::StepOut`])
/// may stand still and end (rad for a revolute joint, m for a prismatic one): 10 mrad
/// (0.28 mm at a head's 28 mm lever) and 0.28 mm. Measured: the follow down's row 236 (the
/// lower head levelled in C's tunnel with the upper one clamped in B's column) stood still
/// 4.65 mrad short after the executor's shift; the step in's rear head lowered onto the
/// tunnel floor stood still 5.0 mrad short (task 2, start displacement seed 2).
pub const TABLE_SETTLE: [f64; 2] = [0.01, 0.01 * super::lift::LEVER];

/// How far short of closed [`Motion::PutDown`]'s close, which draws the block against the
/// one it was lifted from, may stand still and end (rad, m): 1 mm on its prismatic joints.
/// Measured: after task 1's route Z the close stood still 0.28 mm short, the block bearing on
/// C.
pub const CLOSE_SETTLE: [f64; 2] = [0.0, 0.001];

/// How far short of [`Motion::PushOver`]'s hold over C (A rolled, 3 mm up) the roll may
/// stand still and go on to land (rad, m): 60 mrad, 6 mm at A's far top edge. Measured in
/// task 3's last shift, A rolled beside a block already on top: the roll stood still 8.9-11.2
/// mrad short on `universal_1_axis2`, 42.8 mrad with that block 0.8 mm into A's cell
/// (docs/molemod_execution.md, "Landing beside a block").
pub const LAND_SETTLE: [f64; 2] = [0.06, 0.002];

/// How far a pressing joint may move over [`PRESS_WINDOW`] for the press to bear, m (or
/// rad): every reading within it of the window's first, or the window's mean within it of
/// the mean over the window before; 2 % of the 1 mm a prismatic joint moves in that time at
/// its slow speed.
pub const PRESS_STILL: f64 = 20e-6;

/// The time over which a press's joints must stand still, s.
pub const PRESS_WINDOW: f64 = 0.1;

/// How much nearer its target than the farthest it has been since its last headway a press
/// must come within [`MoleMotions::phase_timeout`] to go on past that limit, m at a head (a revolute joint's shortfall counted at the head's
/// [`super::lift::LEVER`], 0.1 mm = 3.6 mrad). A carried block set down against a neighbour
/// slides down it under the press at 0.7 mrad/s, too fast to bear and too slow to land
/// within the limit (task 3's last set down, docs/molemod_execution.md).
pub const PRESS_PROGRESS: f64 = 0.1e-3;

/// A [`PRESS_WINDOW`] over which a pressing or settling phase's joints are watched.
#[derive(Clone, Debug)]
struct StillWindow {
    /// When the window began, s.
    since: f64,
    /// The joint readings then, m or rad.
    was: Vec<f64>,
    /// Whether a reading since strayed more than [`PRESS_STILL`] from `was` on a joint the
    /// phase moves.
    strayed: bool,
    /// The sum of the readings since (not `was`), m or rad.
    sum: Vec<f64>,
    /// How many readings `sum` holds.
    count: u32,
    /// The mean readings over the window before, m or rad; `None` in a phase's first.
    before: Option<Vec<f64>>,
}

/// A [`StillWindow`] that has run its time.
struct ClosedWindow {
    /// Whether every reading of a joint the phase moves stayed within [`PRESS_STILL`] of the
    /// window's first.
    quiet: bool,
    /// The mean readings over the window, m or rad.
    mean: Vec<f64>,
    /// The mean readings over the window before, m or rad; `None` in a phase's first.
    before: Option<Vec<f64>>,
}

impl StillWindow {
    fn starting(time: f64, positions: &[f64]) -> Self {
        Self { since: time, was: positions.to_vec(), strayed: false, sum: vec![0.0; positions.len()], count: 0, before: None }
    }

    /// Adds a reading taken at `time` of a phase moving `targets`; once the window has run
    /// [`PRESS_WINDOW`], returns what it saw and starts the next at this reading.
    fn add(&mut self, time: f64, positions: &[f64], targets: &[(usize, f64)]) -> Option<ClosedWindow> {
        self.strayed |= targets.iter().any(|&(i, _)| (positions[i] - self.was[i]).abs() > PRESS_STILL);
        self.sum.iter_mut().zip(positions).for_each(|(sum, q)| *sum += q);
        self.count += 1;
        if time - self.since < PRESS_WINDOW {
            return None;
        }
        let n = f64::from(self.count);
        let mean: Vec<f64> = self.sum.iter().map(|sum| sum / n).collect();
        let closed = ClosedWindow { quiet: !self.strayed, before: self.before.replace(mean.clone()), mean };
        let before = self.before.take();
        *self = Self { before, ..Self::starting(time, positions) };
        Some(closed)
    }
}

/// Reading indices of the coordinates the motions drive.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Joints {
    front_shift: usize,
    /// The front one in the basic model, whose one joint does both.
    rear_shift: usize,
    /// `None` in the basic model, which cannot turn.
    front_yaw: Option<usize>,
    /// `universal_0_axis2` and `prismatic_1`, which only [`Motion::TurnUp`] needs.
    front_pitch: Option<usize>,
    front_push: Option<usize>,
}

/// The mole's motion firmware: motions pushed are done one after the other.
#[derive(Clone, Debug)]
pub struct MoleMotions {
    control: JointControl,
    axes: Vec<AxisSpec>,
    joints: Joints,
    queue: VecDeque<Phase>,
    active: Option<(Phase, f64)>,
    pushed: usize,
    done: Vec<PhaseRecord>,
    stuck: Option<Stuck>,
    /// While a pressing or settling phase runs: the [`PRESS_WINDOW`] its joints are
    /// watched over for standing still.
    press_mark: Option<StillWindow>,
    /// While a pressing or settling phase runs: when it last made headway
    /// ([`PRESS_PROGRESS`]), and the farthest it has been from its target since (m at a head).
    press_progress: Option<(f64, f64)>,
    /// Longest a phase may take before the robot stops, s.
    pub phase_timeout: f64,
}

impl MoleMotions {
    /// Firmware for a mole whose readings carry `axes` in this order; every joint starts
    /// held at zero, both heads gripping.
    pub fn new(axes: Vec<AxisSpec>) -> Result<Self, MotionError> {
        let find = |name: &'static str| axes.iter().position(|a| a.name == name).ok_or(MotionError::MissingJoint(name));
        let has = |name: &str| axes.iter().any(|a| a.name == name);
        let joints = if has("revolute_0") {
            // The rotating model.
            Joints {
                front_shift: find("prismatic_0")?,
                rear_shift: find("prismatic_1")?,
                front_yaw: Some(find("revolute_0")?),
                front_pitch: None,
                front_push: None,
            }
        } else if axes.len() == 1 {
            // The basic model: its one joint must be prismatic_0.
            let front = find("prismatic_0")?;
            Joints { front_shift: front, rear_shift: front, front_yaw: None, front_pitch: None, front_push: None }
        } else {
            Joints {
                front_shift: find("prismatic_0")?,
                rear_shift: find("prismatic_3")?,
                front_yaw: Some(find("universal_0_axis1")?),
                front_pitch: find("universal_0_axis2").ok(),
                front_push: find("prismatic_1").ok(),
            }
        };
        let control = JointControl {
            axes: axes
                .iter()
                .map(|a| JointAxis {
                    controller: if a.prismatic { FiveIntervalController::prismatic() } else { FiveIntervalController::revolute() },
                    target: 0.0,
                })
                .collect(),
            head_grip: vec![true, true],
        };
        Ok(Self {
            control,
            axes,
            joints,
            queue: VecDeque::new(),
            active: None,
            pushed: 0,
            done: Vec::new(),
            stuck: None,
            press_mark: None,
            press_progress: None,
            phase_timeout: 20.0,
        })
    }

    /// Queues `motion` after those pushed before; returns its index.
    pub fn push(&mut self, motion: Motion) -> Result<usize, MotionError> {
        let index = self.pushed;
        let phases = self.phases(index, motion)?;
        self.queue.extend(phases);
        self.pushed += 1;
        Ok(index)
    }

    /// Whether every pushed motion is done (or the robot stopped).
    pub fn idle(&self) -> bool {
        self.stuck.is_some() || (self.active.is_none() && self.queue.is_empty())
    }

    /// The phases finished so far.
    pub fn finished(&self) -> &[PhaseRecord] {
        &self.done
    }

    /// Why the robot stopped, if it did.
    pub fn stuck(&self) -> Option<&Stuck> {
        self.stuck.as_ref()
    }

    /// Checks `value` of `motion` against `[lower, upper]`.
    fn check(motion: &Motion, what: &'static str, value: f64, lower: f64, upper: f64) -> Result<(), MotionError> {
        if value.is_finite() && (lower..=upper).contains(&value) {
            Ok(())
        } else {
            Err(MotionError::OutOfRange { motion: motion.name(), what, value, lower, upper })
        }
    }

    fn phases(&self, motion_index: usize, motion: Motion) -> Result<Vec<Phase>, MotionError> {
        let Joints { front_shift, rear_shift, front_yaw, front_pitch, front_push } = self.joints;
        let (front, rear) = (&self.axes[front_shift], &self.axes[rear_shift]);
        let phase = |name, targets, grip| Phase::new(motion_index, &motion, name, targets, grip);
        match motion {
            Motion::Crawl { step, iterations, backward } => {
                // The basic model's one joint expands by the 2 step two joints share.
                let (shifts, expansion) =
                    if front_shift == rear_shift { (vec![front_shift], 2.0 * step) } else { (vec![front_shift, rear_shift], step) };
                let longest = front.upper.min(rear.upper) * step / expansion;
                Self::check(&motion, "step", step, f64::MIN_POSITIVE, longest)?;
                if iterations == 0 {
                    return Err(MotionError::NoIterations(motion.name()));
                }
                // Forward: expand with the rear head gripping (the front slides ahead),
                // contract with the front gripping (the rear follows); backward: swapped.
                let (expand_grip, contract_grip) = if backward { ([true, false], [false, true]) } else { ([false, true], [true, false]) };
                Ok((0..iterations)
                    .map(|k| {
                        if k % 2 == 0 {
                            phase("expand", shifts.iter().map(|&j| (j, expansion)).collect(), expand_grip)
                        } else {
                            phase("contract", shifts.iter().map(|&j| (j, 0.0)).collect(), contract_grip)
                        }
                    })
                    .collect())
            }
            Motion::Turn { angle, reach } => {
                let front_yaw =
                    front_yaw.ok_or(MotionError::MotionNeedsJoint { motion: motion.name(), joint: "universal_0_axis1 or revolute_0" })?;
                let yaw = &self.axes[front_yaw];
                Self::check(&motion, "angle", angle, yaw.lower, yaw.upper)?;
                Self::check(&motion, "reach", reach, 0.0, front.upper)?;
                Ok(vec![
                    phase("reach", vec![(front_shift, reach)], [false, true]),
                    phase("swing", vec![(front_yaw, angle)], [false, true]),
                    phase("follow", vec![(front_yaw, 0.0), (front_shift, 0.0)], [true, false]),
                ])
            }
            Motion::TurnUp { ahead, lead: Head::Front } => {
                let needs = |joint, index: Option<usize>| index.ok_or(MotionError::MotionNeedsJoint { motion: motion.name(), joint });
                let (pitch, push) = (needs("universal_0_axis2", front_pitch)?, needs("prismatic_1", front_push)?);
                // The approach (one expansion and contraction, as a crawl) brings the front
                // joint to the path's start; the push along the path is prismatic_1's.
                let approach = ahead - FRONT_JOINT_FROM_BODY + TURN_UP_START;
                let step = 0.5 * approach;
                Self::check(&motion, "approach step", step, f64::MIN_POSITIVE, front.upper.min(rear.upper))?;
                let farthest = TURN_UP_PATH.iter().fold(f64::MIN, |far, &(_, u)| far.max(u));
                Self::check(&motion, "push along the path", farthest - TURN_UP_START, 0.0, self.axes[push].upper)?;
                // Upright is the end of the pitch joint's range (-pi/2): the target is held
                // inside it, which leaves the head within the dead band of upright.
                let (lowest, highest) = (self.axes[pitch].lower, self.axes[pitch].upper);
                let upright = -0.5 * std::f64::consts::PI + FiveIntervalController::revolute().accuracy;
                Self::check(&motion, "upright pitch", upright, lowest, highest)?;
                let mut phases = vec![
                    phase("approach: expand", vec![(front_shift, step), (rear_shift, step)], [false, true]),
                    phase("approach: contract", vec![(front_shift, 0.0), (rear_shift, 0.0)], [true, false]),
                ];
                // The rear head anchors; the front one lets go of its block and turns.
                for pair in TURN_UP_PATH.windows(2) {
                    let (from, to) = (pair[0], pair[1]);
                    if to.0 != from.0 {
                        phases.push(phase("pitch up", vec![(pitch, to.0.clamp(lowest, highest))], [false, true]));
                    } else {
                        phases.push(phase("push", vec![(push, to.1 - TURN_UP_START)], [false, true]));
                    }
                }
                phases.push(phase("grip", vec![], [true, true]));
                Ok(phases)
            }
            Motion::TurnUp { ahead, lead: Head::Rear } => {
                let front_led = self.phases(motion_index, Motion::TurnUp { ahead, lead: Head::Front })?;
                let index = self.path_joints(&motion, &[[0.0; 6]], Head::Front)?;
                // Each joint's target goes to the other half's joint (`Head::row`'s map),
                // the pitches with their signs turned; the grips swap.
                let other = |i: usize| -> Result<(usize, f64), MotionError> {
                    let slot = index.iter().position(|&j| j == i).ok_or(MotionError::MotionNeedsJoint {
                        motion: motion.name(),
                        joint: "a joint of the turn up's in `LIFT_ONTO_JOINTS`",
                    })?;
                    let sign = if PITCH_SLOTS.contains(&slot) { -1.0 } else { 1.0 };
                    Ok((index[5 - slot], sign))
                };
                let mut phases = Vec::with_capacity(front_led.len());
                for p in front_led {
                    let mut targets = Vec::with_capacity(p.targets.len());
                    for (i, target) in p.targets {
                        let (j, sign) = other(i)?;
                        let value = sign * target;
                        Self::check(&motion, "mirrored target", value, self.axes[j].lower, self.axes[j].upper)?;
                        targets.push((j, value));
                    }
                    phases.push(Phase { motion_name: motion.name(), targets, grip: Head::Rear.grip(p.grip), ..p });
                }
                Ok(phases)
            }
            Motion::Straighten { hold } => {
                let index = self.path_joints(&motion, &[[0.0; 6]], Head::Front)?;
                let grip = if hold == Head::Front { [true, false] } else { [false, true] };
                Ok(vec![phase("straighten", index.iter().map(|&i| (i, 0.0)).collect(), grip), phase("grip", vec![], [true, true])])
            }
            Motion::TurnDown { ahead } => {
                let index = self.path_joints(&motion, &TURN_DOWN_PATH, Head::Front)?;
                let approach = ahead - FRONT_JOINT_FROM_BODY + TURN_DOWN_START;
                let step = 0.5 * approach;
                Self::check(&motion, "approach step", step, f64::MIN_POSITIVE, front.upper.min(rear.upper))?;
                let mut phases = vec![
                    phase("approach: expand", vec![(front_shift, step), (rear_shift, step)], [false, true]),
                    phase("approach: contract", vec![(front_shift, 0.0), (rear_shift, 0.0)], [true, false]),
                ];
                // The rear head is the base; each row moves only the joints it changes.
                for pair in TURN_DOWN_PATH.windows(2) {
                    let targets: Vec<(usize, f64)> =
                        index.iter().zip(pair[0].iter().zip(&pair[1])).filter(|(_, (a, b))| a != b).map(|(&i, (_, &b))| (i, b)).collect();
                    phases.push(phase("turn down", targets, [false, true]));
                }
                phases.push(phase("grip", vec![], [true, true]));
                Ok(phases)
            }
            Motion::Part { by } => {
                let push = front_push.ok_or(MotionError::MotionNeedsJoint { motion: motion.name(), joint: "prismatic_1" })?;
                Self::check(&motion, "by", by, 0.0, self.axes[push].upper)?;
                // Both heads grip, each holding its block.
                Ok(vec![phase("part", vec![(push, by)], [true, true])])
            }
            Motion::Raise { angle } => {
                let pitch = front_pitch.ok_or(MotionError::MotionNeedsJoint { motion: motion.name(), joint: "universal_0_axis2" })?;
                // Up is the pitch joint's negative side (as in the turn up).
                Self::check(&motion, "angle", -angle, self.axes[pitch].lower, 0.0)?;
                Ok(vec![phase("raise", vec![(pitch, -angle)], [true, true])])
            }
            Motion::SetDown => {
                let pitch = front_pitch.ok_or(MotionError::MotionNeedsJoint { motion: motion.name(), joint: "universal_0_axis2" })?;
                Ok(vec![
                    phase("lower", vec![(pitch, 0.0)], [true, true]),
                    Phase { dwell: SETTLE_TIME, ..phase("settle", vec![], [false, false]) },
                    phase("grip", vec![], [true, true]),
                ])
            }
            Motion::LiftOnto { lead } => {
                let index = self.path_joints(&motion, &LIFT_ONTO_PATH, lead)?;
                // The part moves both middle joints by as much: the same targets either way
                // round; the grips follow the lead.
                let (push, push_rear) = (index[2], index[3]);
                let half = 0.5 * LIFT_ONTO_PART;
                // Both heads let go and grip again at once, so the held chain clamped at
                // both ends starts the part unstrained; part with both heads gripping, then
                // draw the leading head back (it slides, the other holds A where the part
                // left it).
                let mut phases = vec![
                    Phase { dwell: SETTLE_TIME, ..phase("let go", vec![], [false, false]) },
                    phase("grip", vec![], [true, true]),
                    phase("part", vec![(push, half), (push_rear, half)], [true, true]),
                    phase("draw in", vec![(push, 0.0), (push_rear, 0.0)], lead.grip([false, true])),
                ];
                phases.extend(
                    LIFT_ONTO_PATH[1..].iter().map(|row| phase("lift", index.iter().copied().zip(lead.row(row)).collect(), [true, true])),
                );
                Ok(phases)
            }
            Motion::Shift { lead } => {
                let index = self.path_joints(&motion, &SHIFT_REACH_PATH, lead)?;
                self.path_joints(&motion, &SHIFT_ROLL_PATH, lead)?;
                let row = |name, row: &[f64; 6], grip| phase(name, index.iter().copied().zip(lead.row(row)).collect(), lead.grip(grip));
                // The reach: the rear head holds A, the front one slides (nothing to grip
                // in the free cell); the roll: the front head grips in C too.
                let mut phases: Vec<Phase> = SHIFT_REACH_PATH[1..].iter().map(|r| row("reach", r, [false, true])).collect();
                phases.extend(SHIFT_ROLL_PATH[1..].iter().map(|r| row("roll", r, [true, true])));
                Ok(phases)
            }
            Motion::PutDown { lead } => {
                let index = self.path_joints(&motion, &PUT_DOWN_PATH, lead)?;
                let mut phases: Vec<Phase> = PUT_DOWN_PATH[1..]
                    .iter()
                    .map(|r| phase("put down", index.iter().copied().zip(lead.row(r)).collect(), [true, true]))
                    .collect();
                // The lift's part and draw in backwards: the leading head pushed deeper into
                // C (it slides, the other holds A on the floor), then A drawn against C.
                let (push, push_rear) = (index[2], index[3]);
                let half = 0.5 * LIFT_ONTO_PART;
                phases.push(phase("draw out", vec![(push, half), (push_rear, half)], lead.grip([false, true])));
                phases.push(Phase { settle: CLOSE_SETTLE, ..phase("close", vec![(push, 0.0), (push_rear, 0.0)], [true, true]) });
                Ok(phases)
            }
            Motion::LeaveU { lead } => {
                let index = self.path_joints(&motion, &LEAVE_U_PATH, lead)?;
                // The holding head lets go of A; the leading one in B stays the base.
                let holds = lead.grip([true, false]);
                let mut phases = vec![Phase { dwell: SETTLE_TIME, ..phase("let go", vec![], holds) }];
                phases.extend(
                    LEAVE_U_PATH[1..].iter().map(|r| phase("leave the U", index.iter().copied().zip(lead.row(r)).collect(), holds)),
                );
                Ok(phases)
            }
            Motion::EnterU { lead } => {
                let index = self.path_joints(&motion, &LEAVE_U_PATH, lead)?;
                let holds = lead.grip([true, false]);
                let mut phases: Vec<Phase> = LEAVE_U_PATH[1..LEAVE_U_PATH.len() - 1]
                    .iter()
                    .rev()
                    .map(|r| phase("enter the U", index.iter().copied().zip(lead.row(r)).collect(), holds))
                    .collect();
                // The release backwards presses the head against A's tunnel: it bears where
                // A rests, within the release's drop of the lift's row.
                let press = index.iter().copied().zip(lead.row(&LEAVE_U_PATH[0])).collect();
                phases.push(Phase { press: true, ..phase("press", press, holds) });
                phases.push(phase("grip", vec![], [true, true]));
                Ok(phases)
            }
            Motion::StepIn { lead } | Motion::StepOut { lead } => {
                let index = self.path_joints(&motion, &STEP_IN_PATH, lead)?;
                let holds = |hold| lead.grip(if hold == Hold::Rear { [false, true] } else { [true, false] });
                let step_in = matches!(motion, Motion::StepIn { .. });
                let name = if step_in { "step in" } else { "step out" };
                // (phase k's hold, the row it ends at) in the order run.
                let order: Vec<(Hold, [f64; 6])> = if step_in {
                    (0..STEP_IN_HOLDS.len()).map(|k| (STEP_IN_HOLDS[k], STEP_IN_PATH[k + 1])).collect()
                } else {
                    (0..STEP_IN_HOLDS.len()).rev().map(|k| (STEP_IN_HOLDS[k], STEP_IN_PATH[k])).collect()
                };
                let mut phases = Vec::new();
                for (k, &(hold, row)) in order.iter().enumerate() {
                    if k > 0 && order[k - 1].0 != hold {
                        // The head that takes over is held before the other lets go.
                        phases.push(Phase { dwell: SETTLE_TIME, ..phase("grip", vec![], [true, true]) });
                    }
                    let targets = index.iter().copied().zip(lead.row(&row)).collect();
                    phases.push(Phase { settle: TABLE_SETTLE, ..phase(name, targets, holds(hold)) });
                }
                if step_in {
                    // Both heads let go so the mole settles onto the tunnel floors, then grip.
                    phases.push(Phase { dwell: SETTLE_TIME, ..phase("let go", vec![], [false, false]) });
                    phases.push(phase("grip", vec![], [true, true]));
                }
                Ok(phases)
            }
            Motion::Pass { lead } => {
                let index = self.path_joints(&motion, &PASS_PATH, lead)?;
                let grips = |hold| {
                    lead.grip(match hold {
                        PassHold::Front => [true, false],
                        PassHold::Rear => [false, true],
                        PassHold::Both => [true, true],
                    })
                };
                let mut phases = Vec::new();
                for (k, &hold) in PASS_HOLDS.iter().enumerate() {
                    if k > 0 && PASS_HOLDS[k - 1] != hold && PASS_HOLDS[k - 1] != PassHold::Both {
                        // The head that takes over is held before the other lets go.
                        phases.push(Phase { dwell: SETTLE_TIME, ..phase("grip", vec![], [true, true]) });
                    }
                    phases.push(phase("pass through", index.iter().copied().zip(lead.row(&PASS_PATH[k + 1])).collect(), grips(hold)));
                }
                Ok(phases)
            }
            Motion::Follow { lead } => {
                let rows: Vec<[f64; 6]> = FOLLOW_PATH.iter().map(|r| r.1).collect();
                let index = self.path_joints(&motion, &rows, lead)?;
                let holds = |base| lead.grip(if base == Base::Rear { [false, true] } else { [true, false] });
                let mut phases = Vec::new();
                for pair in FOLLOW_PATH.windows(2) {
                    let ((was, _), (base, row)) = (pair[0], pair[1]);
                    if base != was {
                        // The head that takes over is clamped before the other lets go.
                        phases.push(Phase { dwell: SETTLE_TIME, ..phase("grip", vec![], [true, true]) });
                    }
                    phases.push(phase("follow", index.iter().copied().zip(lead.row(&row)).collect(), holds(base)));
                }
                phases.push(phase("grip", vec![], [true, true]));
                Ok(phases)
            }
            Motion::ShiftBelow { lead } => {
                let index = self.path_joints(&motion, &SHIFT_BELOW_REACH_PATH, lead)?;
                self.path_joints(&motion, &SHIFT_BELOW_ROLL_PATH, lead)?;
                let row = |name, row: &[f64; 6], grip| phase(name, index.iter().copied().zip(lead.row(row)).collect(), lead.grip(grip));
                // The reach: the lower head holds in C, the upper one slides into A; it grips
                // there, and the roll runs with both heads gripping.
                let mut phases: Vec<Phase> = SHIFT_BELOW_REACH_PATH[1..].iter().map(|r| row("reach", r, [false, true])).collect();
                phases.push(phase("grip", vec![], [true, true]));
                phases.extend(SHIFT_BELOW_ROLL_PATH[1..].iter().map(|r| row("roll", r, [true, true])));
                Ok(phases)
            }
            Motion::PushOver { lead, flipped } => {
                let side = |row: &[f64; 6]| seen_from(row, flipped);
                let (settle, path): (Vec<[f64; 6]>, Vec<[f64; 6]>) =
                    (PUSH_OVER_SETTLE.iter().map(side).collect(), PUSH_OVER_PATH.iter().map(side).collect());
                let index = self.path_joints(&motion, &settle, lead)?;
                self.path_joints(&motion, &path, lead)?;
                let row = |name, row: &[f64; 6], grip| phase(name, index.iter().copied().zip(lead.row(row)).collect(), lead.grip(grip));
                // Each head that takes over is clamped before the other lets go.
                let grip = || Phase { dwell: SETTLE_TIME, ..phase("grip", vec![], [true, true]) };
                let mut phases = vec![row("settle", &settle[1], [true, false]), grip()];
                phases.push(row("settle", &settle[2], [false, true]));
                phases.push(grip());
                let (hold, set_down) = (path.len() - 2, path.len() - 1);
                phases.extend(path[1..hold].iter().map(|r| row("push over", r, [true, true])));
                // A held over C meets a block already on top beyond C before the hold's row
                // when it lands face to face with it (the lattice leaves no gap, and a block
                // landed there leans a few mrad): the roll stands still short. Then the upper
                // head slides while the joints go on to the row, so that block pushes A back
                // along the head (the tunnel lies along the row by then). A free roll reaches
                // the row, and the land, reached at once, ends before it sends a grip.
                phases.push(Phase { settle: LAND_SETTLE, ..row("push over", &path[hold], [true, true]) });
                phases.push(Phase { settle: LAND_SETTLE, ..row("land", &path[hold], [false, true]) });
                // The last row sets A down on C: A comes to rest where C's top really is, a
                // few tenths of a mm from the stored row, and the joint then creeps against it
                // (12.4 s in task 1's chain, over the 20 s limit mirrored): it presses.
                phases.push(Phase { press: true, ..row("push over", &path[set_down], [true, true]) });
                Ok(phases)
            }
            Motion::DownTurn { lead, flipped } => self.alternating(motion_index, &motion, "down turn", &DOWN_TURN_PATH, (lead, flipped)),
            Motion::FollowDown { lead, flipped } => {
                self.alternating(motion_index, &motion, "follow down", &FOLLOW_DOWN_PATH, (lead, flipped))
            }
        }
    }

    /// The phases of a stored path whose rows each name the head clamped in the phase that
    /// ends at them ([`Base::Front`] the upper head, `lead`'s; [`Base::Rear`] the other),
    /// seen from the other side of the plane when `flipped`: one phase per row after the
    /// first (where the motion starts), both heads gripping for [`SETTLE_TIME`] where the
    /// base changes (the head that takes over is clamped before the other lets go), and both
    /// gripping at the end.
    fn alternating(
        &self,
        motion_index: usize,
        motion: &Motion,
        name: &'static str,
        path: &[(Base, [f64; 6])],
        (lead, flipped): (Head, bool),
    ) -> Result<Vec<Phase>, MotionError> {
        let phase = |name, targets, grip| Phase::new(motion_index, motion, name, targets, grip);
        let rows: Vec<[f64; 6]> = path.iter().map(|r| seen_from(&r.1, flipped)).collect();
        let index = self.path_joints(motion, &rows, lead)?;
        let holds = |base| lead.grip(if base == Base::Rear { [false, true] } else { [true, false] });
        let mut phases = Vec::new();
        for (k, pair) in path.windows(2).enumerate() {
            if pair[1].0 != pair[0].0 {
                phases.push(Phase { dwell: SETTLE_TIME, ..phase("grip", vec![], [true, true]) });
            }
            let targets = index.iter().copied().zip(lead.row(&rows[k + 1])).collect();
            phases.push(Phase { settle: TABLE_SETTLE, ..phase(name, targets, holds(pair[1].0)) });
        }
        phases.push(phase("grip", vec![], [true, true]));
        Ok(phases)
    }

    /// The readings' indices of [`LIFT_ONTO_JOINTS`], with every row of `path`, as `lead`
    /// runs it, checked against the joints' ranges.
    fn path_joints(&self, motion: &Motion, path: &[[f64; 6]], lead: Head) -> Result<[usize; 6], MotionError> {
        let mut index = [0; 6];
        for (slot, &name) in index.iter_mut().zip(LIFT_ONTO_JOINTS.iter()) {
            *slot = self
                .axes
                .iter()
                .position(|a| a.name == name)
                .ok_or(MotionError::MotionNeedsJoint { motion: motion.name(), joint: name })?;
        }
        for row in path {
            for (&i, value) in index.iter().zip(lead.row(row)) {
                let (lower, upper) = (self.axes[i].lower, self.axes[i].upper);
                if !(lower..=upper).contains(&value) {
                    return Err(MotionError::OutOfRange { motion: motion.name(), what: "path target", value, lower, upper });
                }
            }
        }
        Ok(index)
    }

    /// Whether every joint `phase` moves is at its target in `positions`.
    fn reached(&self, phase: &Phase, positions: &[f64]) -> bool {
        phase.targets.iter().all(|&(i, target)| self.control.axes[i].controller.reached(positions[i], target))
    }

    /// Whether pressing `phase`'s head bears: every joint the phase moves stood still over
    /// the last [`PRESS_WINDOW`] (always false for a phase that neither presses nor
    /// settles), and, for a phase that settles, within [`Phase::settle`] of its target.
    /// Still: every reading within [`PRESS_STILL`] of the window's first, or, for a joint
    /// that chatters, the window's mean within it of the mean over the window before.
    fn bearing(&mut self, phase: &Phase, time: f64, positions: &[f64]) -> bool {
        if !phase.ends_when_still() {
            return false;
        }
        let Some(window) = &mut self.press_mark else {
            self.press_mark = Some(StillWindow::starting(time, positions));
            return false;
        };
        // Every reading counts, not only the window's last: a joint creeping on in
        // stick-slip reads back and forth (task 3's last set down: +64, -3, -19 urad in each
        // 20 ms of 60), so two readings 0.1 s apart can agree while it moves. Its mean moves
        // on by 70 urad a window. One held against a block chatters in place (task 3's last
        // hold: -19, -35, +50 urad), so no window of its readings is quiet; its mean moves
        // a few urad.
        let Some(closed) = window.add(time, positions, &phase.targets) else { return false };
        let within = |q: &[f64]| {
            phase
                .targets
                .iter()
                .all(|&(i, target)| phase.press || (q[i] - target).abs() <= phase.settle[usize::from(self.axes[i].prismatic)])
        };
        let steady = |before: &Vec<f64>| phase.targets.iter().all(|&(i, _)| (closed.mean[i] - before[i]).abs() <= PRESS_STILL);
        (closed.quiet && within(positions)) || (closed.before.as_ref().is_some_and(steady) && within(&closed.mean))
    }

    /// Starts the next phase if the current one ended; stops the robot if it took too long.
    fn advance(&mut self, time: f64, positions: &[f64]) {
        loop {
            match self.active.take() {
                Some((phase, started))
                    if (self.reached(&phase, positions) || self.bearing(&phase, time, positions)) && time - started >= phase.dwell =>
                {
                    self.press_mark = None;
                    self.press_progress = None;
                    self.done.push(PhaseRecord { motion: phase.motion, phase: phase.name, started, ended: time });
                }
                Some((phase, started)) => {
                    if time - self.progressed_since(&phase, started, time, positions) > self.phase_timeout {
                        self.stuck = Some(self.stuck_report(&phase, started, positions));
                    }
                    self.active = Some((phase, started));
                    return;
                }
                None => {
                    let Some(next) = self.queue.pop_front() else { return };
                    for &(i, target) in &next.targets {
                        self.control.axes[i].target = target;
                    }
                    self.control.head_grip = next.grip.to_vec();
                    self.active = Some((next, time));
                }
            }
        }
    }

    /// When `phase`, started at `started`, last made headway: its start, or for a phase that
    /// ends where it stands still (a press, a settle) the last time it came
    /// [`PRESS_PROGRESS`] nearer its target than at its farthest since, so one still creeping
    /// on is not stopped at the phase limit (task 3's last push over: the roll crept on to its
    /// hold at 0.63 mrad/s in stick-slip, 13 mrad short when the limit came).
    fn progressed_since(&mut self, phase: &Phase, started: f64, time: f64, positions: &[f64]) -> f64 {
        if !phase.ends_when_still() {
            return started;
        }
        let at_head = |i: usize| if self.axes[i].prismatic { 1.0 } else { super::lift::LEVER };
        let shortfall = phase.targets.iter().map(|&(i, target)| (positions[i] - target).abs() * at_head(i)).fold(0.0, f64::max);
        // Headway counts from the worst since the last: a set down first turns the joint
        // away as the block comes down onto the one below (task 3's last, 21 to 53 mrad
        // short), then creeps back.
        match &mut self.press_progress {
            Some((_, was)) if shortfall > *was - PRESS_PROGRESS => *was = was.max(shortfall),
            _ => self.press_progress = Some((time, shortfall)),
        }
        self.press_progress.map_or(started, |(since, _)| since)
    }

    fn stuck_report(&self, phase: &Phase, since: f64, positions: &[f64]) -> Stuck {
        // Errors in dead bands, not in m against rad: a prismatic joint 0.5 mm short is
        // stuck, a revolute joint 0.5 mrad off is where it should be.
        let off = |&(i, target): &(usize, f64)| (positions[i] - target).abs() / self.control.axes[i].controller.accuracy;
        let worst = phase.targets.iter().copied().max_by(|a, b| off(a).total_cmp(&off(b))).unwrap_or((0, 0.0));
        Stuck {
            motion: phase.motion,
            motion_name: phase.motion_name,
            phase: phase.name,
            joint: self.axes[worst.0].name.clone(),
            target: worst.1,
            position: positions[worst.0],
            since,
        }
    }
}

impl Firmware<Molemod> for MoleMotions {
    fn step(&mut self, time: f64, sensors: &MolemodSensors) -> MolemodCommand {
        if sensors.joint_positions.len() != self.axes.len() {
            // The joint controller reports the mismatch and stops every joint.
            return self.control.step(time, sensors);
        }
        if self.stuck.is_none() {
            self.advance(time, &sensors.joint_positions);
        }
        if self.stuck.is_some() {
            return MolemodCommand { joint_velocities: vec![0.0; self.axes.len()], head_grip: self.control.head_grip.clone() };
        }
        self.control.step(time, sensors)
    }

    fn status(&self) -> String {
        match (&self.stuck, &self.active) {
            (Some(stuck), _) => format!("stopped: {stuck}"),
            (None, Some((phase, started))) => {
                format!("motion {} phase `{}` since {started:.3} s, {} phases queued", phase.motion, phase.name, self.queue.len())
            }
            (None, None) => format!("idle after {} motions", self.pushed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mole() -> MoleMotions {
        let axis = |name: &str, prismatic, lower, upper| AxisSpec { name: name.into(), prismatic, lower, upper };
        MoleMotions::new(vec![
            axis("prismatic_0", true, 0.0, 0.03),
            axis("universal_0_axis1", false, -1.5, 1.5),
            axis("universal_0_axis2", false, -1.5, 1.5),
            axis("prismatic_3", true, 0.0, 0.03),
        ])
        .expect("the motions' joints exist")
    }

    fn reading(t: f64, p: [f64; 4]) -> MolemodSensors {
        MolemodSensors { stamp: t, joint_positions: p.to_vec() }
    }

    #[test]
    fn a_crawl_alternates_expansion_and_contraction_with_swapped_grips() {
        let mut fw = mole();
        fw.push(Motion::Crawl { step: 0.01, iterations: 2, backward: false }).expect("valid");
        let cmd = fw.step(0.0, &reading(0.0, [0.0; 4]));
        // Expanding: rear grips, both outer joints at full speed.
        assert_eq!(cmd.head_grip, vec![false, true]);
        assert_eq!(cmd.joint_velocities, vec![0.02, 0.0, 0.0, 0.02]);
        // Expanded: the contraction starts with the front gripping.
        let cmd = fw.step(1.0, &reading(1.0, [0.01, 0.0, 0.0, 0.01]));
        assert_eq!(cmd.head_grip, vec![true, false]);
        assert_eq!(cmd.joint_velocities, vec![-0.02, 0.0, 0.0, -0.02]);
        assert!(!fw.idle());
        fw.step(2.0, &reading(2.0, [0.0; 4]));
        assert!(fw.idle());
        let phases: Vec<_> = fw.finished().iter().map(|r| (r.phase, r.started, r.ended)).collect();
        assert_eq!(phases, [("expand", 0.0, 1.0), ("contract", 1.0, 2.0)]);
    }

    #[test]
    fn backward_swaps_the_grips() {
        let mut fw = mole();
        fw.push(Motion::Crawl { step: 0.01, iterations: 1, backward: true }).expect("valid");
        assert_eq!(fw.step(0.0, &reading(0.0, [0.0; 4])).head_grip, vec![true, false]);
    }

    #[test]
    fn a_joint_that_does_not_reach_its_target_stops_the_robot_with_a_report() {
        let mut fw = mole();
        fw.phase_timeout = 5.0;
        fw.push(Motion::Turn { angle: 0.4, reach: 0.015 }).expect("valid");
        fw.step(0.0, &reading(0.0, [0.0; 4]));
        fw.step(1.0, &reading(1.0, [0.015, 0.0, 0.0, 0.0]));
        // The yaw joint stays at 0.1 rad: blocked.
        let cmd = fw.step(7.0, &reading(7.0, [0.015, 0.1, 0.0, 0.0]));
        assert_eq!(cmd.joint_velocities, vec![0.0; 4]);
        let stuck = fw.stuck().expect("stopped");
        assert_eq!((stuck.motion, stuck.phase, stuck.joint.as_str()), (0, "swing", "universal_0_axis1"));
        assert!((stuck.position - stuck.target + 0.3).abs() < 1e-12);
        assert!(fw.status().contains("swing") && fw.status().contains("universal_0_axis1"), "{}", fw.status());
        assert!(fw.idle());
    }

    /// Regression: the report named the joint with the largest error in m or rad alike, so
    /// a revolute joint inside its 2 mrad dead band (1.5 mrad) outranked a blocked
    /// prismatic joint 0.5 mm (ten dead bands) short.
    #[test]
    fn the_report_names_the_joint_farthest_beyond_its_dead_band() {
        let mut fw = mole();
        fw.phase_timeout = 5.0;
        fw.push(Motion::Turn { angle: 0.4, reach: 0.015 }).expect("valid");
        fw.step(0.0, &reading(0.0, [0.0; 4]));
        fw.step(1.0, &reading(1.0, [0.015, 0.0, 0.0, 0.0]));
        fw.step(2.0, &reading(2.0, [0.015, 0.4, 0.0, 0.0]));
        // Following: the yaw is back within its band, the reach is blocked 0.5 mm out.
        fw.step(8.0, &reading(8.0, [0.0005, 0.0015, 0.0, 0.0]));
        let stuck = fw.stuck().expect("stopped");
        assert_eq!((stuck.phase, stuck.joint.as_str()), ("follow", "prismatic_0"), "{stuck}");
        assert!((stuck.position - 0.0005).abs() < 1e-12 && stuck.target == 0.0);
    }

    /// Room between the head and the solid around the crossing, m (negative = they
    /// overlap): the 40 mm head with 4 mm rounded edges, pitched by `pitch` rad (positive =
    /// up) on its 28 mm lever from its joint, which stands `u` m along the tunnel from the
    /// crossing's centre and `axis` m above it; the solid is the blocks' corner columns
    /// above the horizontal tunnel (`above`) or below it, beyond the 50 mm tunnels.
    fn clearance(u: f64, axis: f64, pitch: f64, above: bool) -> f64 {
        let (radius, tunnel, lever) = (0.004, 0.025, FRONT_JOINT_FROM_BODY);
        let inner = 0.020 - radius;
        let centre = (u + lever * pitch.cos(), axis + lever * pitch.sin());
        let (along, across) = ((pitch.cos(), pitch.sin()), (-pitch.sin(), pitch.cos()));
        let side = if above { 1.0 } else { -1.0 };
        // Distance of a point from the solid: |x| >= 25 mm and, on that side, |z| >= 25 mm.
        let to_solid = |x: f64, z: f64| (tunnel - x.abs()).max(0.0).hypot((tunnel - side * z).max(0.0));
        let n = 64;
        let closest = (0..=n)
            .flat_map(|i| {
                let t = -inner + 2.0 * inner * f64::from(i) / f64::from(n);
                [(t, inner), (t, -inner), (inner, t), (-inner, t)]
            })
            .map(|(p, q)| to_solid(centre.0 + p * along.0 + q * across.0, centre.1 + p * along.1 + q * across.1))
            .fold(f64::INFINITY, f64::min);
        closest - radius
    }

    /// The mole's axis lying on the tunnel floor: 5 mm below the crossing's centre.
    const LYING: f64 = -0.005;

    #[test]
    fn the_turn_up_path_clears_the_rims() {
        assert_eq!(TURN_UP_PATH[0], (0.0, TURN_UP_START));
        let mut least = f64::INFINITY;
        for pair in TURN_UP_PATH.windows(2) {
            let ((p0, u0), (p1, u1)) = (pair[0], pair[1]);
            // One coordinate at a time, as the phases move them.
            assert!(p0 == p1 || u0 == u1, "{pair:?}");
            for k in 0..=100 {
                let f = f64::from(k) / 100.0;
                let (pitch, u) = (p0 + f * (p1 - p0), u0 + f * (u1 - u0));
                least = least.min(clearance(u, LYING, -pitch, true));
            }
        }
        assert!(least > 1.3e-3, "the head comes within {least} m of a rim");
        // Pitching alone, with the joint standing where the path starts or ends, hits a rim.
        let blocked = |u: f64| (0..=90).any(|deg| clearance(u, LYING, f64::from(deg) * DEG, true) < 0.0);
        assert!(blocked(TURN_UP_START) && blocked(TURN_UP_PATH[TURN_UP_PATH.len() - 1].1));
    }

    /// Why there is no turn down: wherever its joint stands along the tunnel, the head
    /// (with the model's 4 mm rounded edges, on its shortest 28 mm lever) pitched down by 45
    /// degrees overlaps the solid below the tunnel, because the mole lies 5 mm below the
    /// crossing's centre; 4 mm higher it would not (the control that the check can pass).
    #[test]
    fn pitching_down_into_the_crossing_hits_a_rim_wherever_the_joint_stands() {
        let down = -45.0 * DEG;
        for mm in -80..=40 {
            let u = f64::from(mm) * 1e-3;
            assert!(clearance(u, LYING, down, false) < 0.0, "joint at {u}");
        }
        let centred = -FRONT_JOINT_FROM_BODY * down.cos();
        assert!(clearance(centred, LYING + 0.004, down, false) > 0.0);
    }

    #[test]
    fn a_turn_up_approaches_then_pitches_and_pushes_in_turn() {
        let axis = |name: &str, prismatic, lower, upper| AxisSpec { name: name.into(), prismatic, lower, upper };
        let half_pi = 0.5 * std::f64::consts::PI;
        // The URDF writes the range with 11 decimals: a hair inside pi/2.
        let range = half_pi - 5e-12;
        let axes = vec![
            axis("prismatic_0", true, 0.0, 0.03),
            axis("universal_0_axis1", false, -half_pi, half_pi),
            axis("universal_0_axis2", false, -range, range),
            axis("prismatic_1", true, 0.0, 0.03),
            axis("prismatic_3", true, 0.0, 0.03),
        ];
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }).expect("valid");
        let names: Vec<_> = fw.queue.iter().map(|p| p.name).collect();
        assert_eq!(names.len(), 2 + (TURN_UP_PATH.len() - 1) + 1);
        assert_eq!(&names[..4], ["approach: expand", "approach: contract", "pitch up", "push"]);
        // The approach brings the front joint from 28 mm ahead of the body's centre to 24 mm
        // before the crossing, 100 mm ahead: 48 mm, in one expansion and contraction of 24.
        assert!((fw.queue[0].targets[0].1 - 0.024).abs() < 1e-12);
        // Upright is clamped into the joint's range; the last push centres the joint.
        let last_pitch = fw.queue.iter().rev().find(|p| p.name == "pitch up").expect("pitches");
        assert_eq!(last_pitch.targets[0].1, -range);
        let last = fw.queue.len() - 1;
        assert!((fw.queue[last - 1].targets[0].1 - 0.024).abs() < 1e-12);
        assert_eq!(fw.queue[last].grip, [true, true]);
        // Too far ahead to approach in one expansion; a model without the pitch joint.
        assert!(fw.push(Motion::TurnUp { ahead: 0.2, lead: Head::Front }).is_err());
        let mut no_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_0_axis2").collect()).expect("joints");
        let err = no_pitch.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }).unwrap_err();
        assert_eq!(err, MotionError::MotionNeedsJoint { motion: "turn up", joint: "universal_0_axis2" });
    }

    #[test]
    fn a_part_pushes_prismatic_1_out_with_both_heads_gripping() {
        let axis = |name: &str, prismatic, lower, upper| AxisSpec { name: name.into(), prismatic, lower, upper };
        let axes = vec![
            axis("prismatic_0", true, 0.0, 0.03),
            axis("universal_0_axis1", false, -1.5, 1.5),
            axis("prismatic_1", true, 0.0, 0.03),
            axis("prismatic_3", true, 0.0, 0.03),
        ];
        let mut fw = MoleMotions::new(axes).expect("joints");
        fw.push(Motion::Part { by: 0.015 }).expect("valid");
        let cmd = fw.step(0.0, &MolemodSensors { stamp: 0.0, joint_positions: vec![0.0; 4] });
        assert_eq!(cmd.head_grip, vec![true, true]);
        assert_eq!(cmd.joint_velocities, vec![0.0, 0.0, 0.02, 0.0]);
        fw.step(1.0, &MolemodSensors { stamp: 1.0, joint_positions: vec![0.0, 0.0, 0.015, 0.0] });
        assert!(fw.idle());
        assert!(fw.push(Motion::Part { by: 0.04 }).is_err());
        // The four-joint test mole has no prismatic_1.
        assert_eq!(
            mole().push(Motion::Part { by: 0.01 }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "part", joint: "prismatic_1" }
        );
    }

    #[test]
    fn a_raise_pitches_the_front_universal_joint_up_with_both_heads_gripping() {
        let mut fw = mole();
        fw.push(Motion::Raise { angle: 0.2 }).expect("valid");
        let cmd = fw.step(0.0, &reading(0.0, [0.0; 4]));
        assert_eq!(cmd.head_grip, vec![true, true]);
        // Up is the pitch joint's negative side, at the revolute controller's full speed.
        assert_eq!(cmd.joint_velocities, vec![0.0, 0.0, -0.5, 0.0]);
        fw.step(1.0, &reading(1.0, [0.0, 0.0, -0.2, 0.0]));
        assert!(fw.idle());
        // Set down: back to level.
        fw.push(Motion::Raise { angle: 0.0 }).expect("valid");
        assert_eq!(fw.step(2.0, &reading(2.0, [0.0, 0.0, -0.2, 0.0])).joint_velocities, vec![0.0, 0.0, 0.5, 0.0]);
        // The set-down: level, then both heads let go for the settle time, then grip.
        fw.push(Motion::SetDown).expect("valid");
        assert_eq!(fw.step(3.0, &reading(3.0, [0.0, 0.0, 0.0, 0.0])).head_grip, vec![false, false]);
        assert_eq!(fw.step(3.05, &reading(3.05, [0.0; 4])).head_grip, vec![false, false]);
        assert!(!fw.idle());
        assert_eq!(fw.step(3.0 + SETTLE_TIME, &reading(3.0 + SETTLE_TIME, [0.0; 4])).head_grip, vec![true, true]);
        assert!(fw.idle());
        // Down past level, beyond the joint's range, or without the pitch joint: refused.
        assert!(fw.push(Motion::Raise { angle: -0.1 }).is_err());
        assert!(fw.push(Motion::Raise { angle: 1.6 }).is_err());
        let axis = |name: &str, prismatic, lower, upper| AxisSpec { name: name.into(), prismatic, lower, upper };
        let mut no_pitch = MoleMotions::new(vec![
            axis("prismatic_0", true, 0.0, 0.03),
            axis("universal_0_axis1", false, -1.5, 1.5),
            axis("prismatic_3", true, 0.0, 0.03),
        ])
        .expect("joints");
        assert_eq!(
            no_pitch.push(Motion::Raise { angle: 0.2 }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "raise", joint: "universal_0_axis2" }
        );
        assert!(no_pitch.push(Motion::SetDown).is_err());
    }

    #[test]
    fn a_lift_onto_regrips_parts_draws_in_and_follows_the_path_with_both_heads_gripping() {
        let axes = final_model(FULL_RANGE);
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::LiftOnto { lead: Head::Front }).expect("valid");
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let queued = targets(&fw);
        assert_eq!(queued.len(), 4 + LIFT_ONTO_PATH.len() - 1);
        let half = 0.5 * LIFT_ONTO_PART;
        // Both heads let go and grip again at once before the part: the chain starts it
        // unstrained.
        assert_eq!(queued[0], ("let go", vec![], [false, false]));
        assert_eq!(queued[1], ("grip", vec![], [true, true]));
        assert_eq!(queued[2], ("part", vec![(index("prismatic_1"), half), (index("prismatic_2"), half)], [true, true]));
        assert_eq!(queued[3], ("draw in", vec![(index("prismatic_1"), 0.0), (index("prismatic_2"), 0.0)], [false, true]));
        // Each path phase sets all six joints to its row, both heads gripping.
        for (phase, row) in queued[4..].iter().zip(&LIFT_ONTO_PATH[1..]) {
            let expect: Vec<_> = LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect();
            assert_eq!(phase, &("lift", expect, [true, true]));
        }
        // The path's upright pitch is beyond a ±1.5 rad joint; a model without the rear
        // pitch joint cannot lift.
        assert!(matches!(
            MoleMotions::new(final_model(1.5)).expect("joints").push(Motion::LiftOnto { lead: Head::Front }),
            Err(MotionError::OutOfRange { .. })
        ));
        let mut no_rear_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_1_axis2").collect()).expect("joints");
        assert_eq!(
            no_rear_pitch.push(Motion::LiftOnto { lead: Head::Front }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "lift onto", joint: "universal_1_axis2" }
        );
    }

    #[test]
    fn a_shift_reaches_with_the_rear_head_then_rolls_with_both() {
        let axes = final_model(FULL_RANGE);
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::Shift { lead: Head::Front }).expect("valid");
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let queued = targets(&fw);
        assert_eq!(queued.len(), SHIFT_REACH_PATH.len() - 1 + SHIFT_ROLL_PATH.len() - 1);
        let rows = SHIFT_REACH_PATH[1..].iter().map(|r| ("reach", r, [false, true]));
        for (phase, (name, row, grip)) in queued.iter().zip(rows.chain(SHIFT_ROLL_PATH[1..].iter().map(|r| ("roll", r, [true, true])))) {
            let expect: Vec<_> = LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect();
            assert_eq!(phase, &(name, expect, grip));
        }
        // A model without the rear pitch joint cannot roll its block.
        let mut no_rear_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_1_axis2").collect()).expect("joints");
        assert_eq!(
            no_rear_pitch.push(Motion::Shift { lead: Head::Front }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "shift", joint: "universal_1_axis2" }
        );
    }

    /// The rear head leading `motion`: every phase drives the other half's joints to the
    /// stored targets (pitches with their signs turned) and the grips are swapped; nothing
    /// else. Returns the mirrored phases.
    fn assert_drives_the_other_half(motion: impl Fn(Head) -> Motion) -> Vec<Queued> {
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let queued = |lead| {
            let mut fw = MoleMotions::new(axes.clone()).expect("joints");
            fw.push(motion(lead)).expect("valid");
            targets(&fw)
        };
        let (front, rear) = (queued(Head::Front), queued(Head::Rear));
        assert_eq!(front.len(), rear.len());
        let other = |name: &str| match name {
            "prismatic_0" => "prismatic_3",
            "prismatic_1" => "prismatic_2",
            "universal_0_axis2" => "universal_1_axis2",
            "prismatic_2" => "prismatic_1",
            "universal_1_axis2" => "universal_0_axis2",
            _ => "prismatic_0",
        };
        for (f, r) in front.iter().zip(&rear) {
            assert_eq!(f.0, r.0);
            assert_eq!([f.2[1], f.2[0]], r.2, "grips swapped in `{}`", f.0);
            assert_eq!(f.1.len(), r.1.len(), "the same number of targets in `{}`", f.0);
            for &(i, target) in &f.1 {
                let name = axes[i].name.as_str();
                let sign = if name.starts_with("universal") { -1.0 } else { 1.0 };
                let mirrored = r.1.iter().find(|(j, _)| *j == index(other(name))).expect("the other half's joint").1;
                assert_eq!(mirrored, sign * target, "{name} in `{}`", f.0);
            }
        }
        rear
    }

    #[test]
    fn straightening_zeroes_every_path_joint_with_one_head_holding_then_grips() {
        let axes = final_model(FULL_RANGE);
        for (hold, grip) in [(Head::Front, [true, false]), (Head::Rear, [false, true])] {
            let mut fw = MoleMotions::new(axes.clone()).expect("joints");
            fw.push(Motion::Straighten { hold }).expect("valid");
            let queued = targets(&fw);
            assert_eq!(queued.len(), 2);
            assert_eq!(queued[0].2, grip);
            let names: Vec<&str> = queued[0].1.iter().map(|&(i, v)| if v == 0.0 { axes[i].name.as_str() } else { "" }).collect();
            assert!(LIFT_ONTO_JOINTS.iter().all(|j| names.contains(j)) && names.len() == 6, "{names:?}");
            assert_eq!(queued[1], ("grip", vec![], [true, true]));
        }
        assert_eq!(Motion::Straighten { hold: Head::Rear }.name(), "straighten, rear head holding");
    }

    #[test]
    fn a_turn_up_with_the_rear_head_leading_drives_the_other_half() {
        let rear = assert_drives_the_other_half(|lead| match lead {
            Head::Front => Motion::TurnUp { ahead: 0.1, lead: Head::Front },
            Head::Rear => Motion::TurnUp { ahead: 0.1, lead: Head::Rear },
        });
        // The rear head ends upright the other way round (+y is the other way seen from it),
        // pushed on by prismatic_2; the front head anchors in the pitch phases.
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let last_pitch = rear.iter().rev().find(|q| q.0 == "pitch up").expect("a pitch phase");
        assert!(last_pitch.1.iter().any(|&(j, v)| j == index("universal_1_axis2") && v > 1.56));
        assert!(rear.iter().filter(|q| q.0 == "pitch up" || q.0 == "push").all(|q| q.2 == [true, false]));
        let pushes = rear.iter().filter(|q| q.0 == "push").flat_map(|q| q.1.iter()).all(|&(j, _)| j == index("prismatic_2"));
        assert!(pushes);
        assert_eq!(Motion::TurnUp { ahead: 0.1, lead: Head::Rear }.name(), "turn up, rear head leading");
        // A rear pitch range short of upright is refused as the mirrored turn drives it.
        let short: Vec<AxisSpec> = axes
            .iter()
            .cloned()
            .map(|mut a| {
                if a.name == "universal_1_axis2" {
                    a.upper = 1.0;
                }
                a
            })
            .collect();
        let mut fw = MoleMotions::new(short).expect("joints");
        assert!(matches!(fw.push(Motion::TurnUp { ahead: 0.1, lead: Head::Rear }), Err(MotionError::OutOfRange { .. })));
        assert!(fw.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }).is_ok());
    }

    #[test]
    fn a_shift_with_the_rear_head_leading_drives_the_other_half() {
        let rear = assert_drives_the_other_half(|lead| Motion::Shift { lead });
        // The reach's swing: the front pitch went to +upright (head down), the rear one goes
        // to -upright (the URDF's +y is the other way round seen from the rear head).
        let axes = final_model(FULL_RANGE);
        let pitch = axes.iter().position(|a| a.name == "universal_1_axis2").expect("axis");
        assert_eq!(rear[1].1.iter().find(|(j, _)| *j == pitch).expect("rear pitch").1, -UPRIGHT);
        // A pitch range that is not symmetric is checked as the mirrored path drives it.
        let lopsided: Vec<AxisSpec> = axes
            .iter()
            .cloned()
            .map(|mut a| {
                if a.name == "universal_1_axis2" {
                    a.lower = -1.5;
                }
                a
            })
            .collect();
        assert!(MoleMotions::new(lopsided.clone()).expect("joints").push(Motion::Shift { lead: Head::Front }).is_ok());
        assert!(matches!(
            MoleMotions::new(lopsided).expect("joints").push(Motion::Shift { lead: Head::Rear }),
            Err(MotionError::OutOfRange { .. })
        ));
    }

    #[test]
    fn a_lift_onto_with_the_rear_head_leading_drives_the_other_half() {
        let rear = assert_drives_the_other_half(|lead| Motion::LiftOnto { lead });
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        // The draw in: the front head holds A, the rear one slides back along B's tunnel.
        assert_eq!(rear[3].0, "draw in");
        assert_eq!(rear[3].2, [true, false]);
        // The lift off turns the rear universal joint (+0.057 rad: the front one's -0.057
        // seen from the other side), nothing else moves.
        let lift_off = &rear[4].1;
        assert_eq!(lift_off.iter().find(|(j, _)| *j == index("universal_1_axis2")).expect("rear pitch").1, 0.057);
        assert_eq!(lift_off.iter().find(|(j, _)| *j == index("universal_0_axis2")).expect("front pitch").1, 0.0);
        // The end is the same U either way round (the front pitch at -upright, the rear at
        // +upright: each half mirrored onto the other).
        let end = &rear[rear.len() - 1].1;
        assert_eq!(end.iter().find(|(j, _)| *j == index("universal_1_axis2")).expect("rear pitch").1, UPRIGHT);
        assert_eq!(end.iter().find(|(j, _)| *j == index("universal_0_axis2")).expect("front pitch").1, -UPRIGHT);
        assert_eq!(Motion::LiftOnto { lead: Head::Rear }.name(), "lift onto, rear head leading");
    }

    #[test]
    fn a_follow_alternates_the_grips_with_both_held_between() {
        let axes = final_model(FULL_RANGE);
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::Follow { lead: Head::Front }).expect("valid");
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let queued = targets(&fw);
        let switches = FOLLOW_PATH.windows(2).filter(|p| p[0].0 != p[1].0).count();
        assert_eq!(switches, 5);
        assert_eq!(queued.len(), FOLLOW_PATH.len() - 1 + switches + 1);
        let mut rows = FOLLOW_PATH[1..].iter();
        let mut last = Base::Rear;
        for (k, q) in queued[..queued.len() - 1].iter().enumerate() {
            if q.0 == "grip" {
                // Only where the base changes, and held long enough for the clamp to take.
                assert!(q.1.is_empty() && q.2 == [true, true] && fw.queue[k].dwell == SETTLE_TIME);
                continue;
            }
            let (base, row) = rows.next().expect("a row per follow phase");
            assert!(k == 0 || (queued[k - 1].0 == "grip") == (*base != last), "phase {k}");
            last = *base;
            let expect: Vec<_> = LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect();
            assert_eq!(q, &("follow", expect, if *base == Base::Rear { [false, true] } else { [true, false] }));
        }
        assert!(rows.next().is_none());
        assert_eq!(queued[queued.len() - 1], ("grip", vec![], [true, true]));
        // It starts where the turn up leaves the front joint (pushed 24 mm) and pitch.
        assert_eq!(FOLLOW_PATH[0].1[2], -TURN_UP_START);
        let mut no_rear_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_1_axis2").collect()).expect("joints");
        assert_eq!(
            no_rear_pitch.push(Motion::Follow { lead: Head::Front }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "follow", joint: "universal_1_axis2" }
        );
    }

    #[test]
    fn a_follow_with_the_rear_head_leading_drives_the_other_half() {
        let rear = assert_drives_the_other_half(|lead| Motion::Follow { lead });
        assert_eq!(rear[0].2, [true, false], "the front head holds first, the rear one turned up");
        assert_eq!(Motion::Follow { lead: Head::Rear }.name(), "follow, rear head leading");
    }

    #[test]
    fn a_put_down_with_the_rear_head_leading_drives_the_other_half() {
        let rear = assert_drives_the_other_half(|lead| Motion::PutDown { lead });
        // The draw out: the rear head slides deeper into C, the front one holds A.
        assert_eq!(rear[rear.len() - 2].0, "draw out");
        assert_eq!(rear[rear.len() - 2].2, [true, false]);
    }

    #[test]
    fn leaving_the_u_lets_the_holding_head_go_then_runs_its_table_on_the_leading_head() {
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::LeaveU { lead: Head::Front }).expect("valid");
        let queued = targets(&fw);
        assert_eq!(queued.len(), 1 + LEAVE_U_PATH.len() - 1);
        assert_eq!(queued[0], ("let go", vec![], [true, false]));
        assert_eq!(fw.queue[0].dwell, SETTLE_TIME);
        // The path starts where the lift ends and ends with the mole straight.
        assert_eq!(LEAVE_U_PATH[0], LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1]);
        assert_eq!(LEAVE_U_PATH[LEAVE_U_PATH.len() - 1], [0.0; 6]);
        for (phase, row) in queued[1..].iter().zip(&LEAVE_U_PATH[1..]) {
            let expect: Vec<_> = LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect();
            assert_eq!(phase, &("leave the U", expect, [true, false]));
        }
        // Mirrored: the rear head stays in B, the front one lets go of A.
        let rear = assert_drives_the_other_half(|lead| Motion::LeaveU { lead });
        assert_eq!(rear[0], ("let go", vec![], [false, true]));
        assert!(rear.iter().all(|q| q.2 == [false, true]));
        assert_eq!(Motion::LeaveU { lead: Head::Rear }.name(), "leave the U, rear head leading");
        let mut no_rear_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_1_axis2").collect()).expect("joints");
        assert_eq!(
            no_rear_pitch.push(Motion::LeaveU { lead: Head::Front }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "leave the U", joint: "universal_1_axis2" }
        );
    }

    #[test]
    fn entering_the_u_runs_the_leave_u_table_backwards_then_grips_with_both_heads() {
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::EnterU { lead: Head::Front }).expect("valid");
        let queued = targets(&fw);
        assert_eq!(queued.len(), LEAVE_U_PATH.len() - 1 + 1);
        let n = LEAVE_U_PATH.len();
        for (k, phase) in queued[..n - 1].iter().enumerate() {
            let row = LEAVE_U_PATH[n - 2 - k];
            let expect: Vec<_> = LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect();
            // The last one presses the head against A's tunnel (the release backwards).
            assert_eq!(phase, &(if k == n - 2 { "press" } else { "enter the U" }, expect, [true, false]));
        }
        let presses: Vec<bool> = fw.queue.iter().map(|p| p.press).collect();
        assert_eq!(presses, (0..n).map(|k| k == n - 2).collect::<Vec<_>>());
        // It ends where the lift onto ends, both heads gripping.
        assert_eq!(queued[n - 2].1.iter().map(|t| t.1).collect::<Vec<_>>(), LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1]);
        assert_eq!(queued[n - 1], ("grip", vec![], [true, true]));
        let rear = assert_drives_the_other_half(|lead| Motion::EnterU { lead });
        assert_eq!(rear[0].2, [false, true]);
        assert_eq!(Motion::EnterU { lead: Head::Rear }.name(), "enter the U, rear head leading");
    }

    /// The push over's land runs only after the hold stood still short: a roll that reaches
    /// the hold goes on to the set down in the same step, never sending the upper head's
    /// slide; one that stands still 11 mrad short lands, the upper head sliding.
    #[test]
    fn the_push_over_lands_only_when_the_hold_stands_still_short() {
        let axes = final_model(FULL_RANGE);
        let n = axes.len();
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let hold_row = |fw: &MoleMotions| {
            let mut q = vec![0.0; n];
            for &(i, v) in &fw.queue[0].targets {
                q[i] = v;
            }
            q
        };
        let at = |t: f64, q: &[f64]| MolemodSensors { stamp: t, joint_positions: q.to_vec() };
        let pushed = || {
            let mut fw = MoleMotions::new(axes.clone()).expect("joints");
            fw.push(Motion::PushOver { lead: Head::Front, flipped: false }).expect("valid");
            // Every phase before the hold done.
            let before_hold = fw.queue.len() - 3;
            fw.queue.drain(..before_hold);
            assert_eq!(fw.queue[0].settle, LAND_SETTLE);
            fw
        };
        // Reached: straight on to the set down, both heads gripping all along.
        let mut fw = pushed();
        let q = hold_row(&fw);
        let command = fw.step(0.0, &at(0.0, &q));
        assert_eq!(fw.done.iter().map(|r| r.phase).collect::<Vec<_>>(), vec!["push over", "land"]);
        assert_eq!(fw.active.as_ref().map(|a| a.0.name), Some("push over"));
        assert_eq!(command.head_grip, vec![true, true]);
        // Standing still 11 mrad short on the lower pitch: the hold ends, the land slides.
        let mut fw = pushed();
        let mut q = hold_row(&fw);
        q[index("universal_1_axis2")] += 0.011;
        let mut t = 0.0;
        let mut grips = Vec::new();
        // Still for the press window (0.1 s), not yet for the land's.
        for _ in 0..15 {
            grips.push(fw.step(t, &at(t, &q)).head_grip);
            t += 0.01;
        }
        assert_eq!(fw.done.iter().map(|r| r.phase).collect::<Vec<_>>(), vec!["push over"]);
        assert_eq!(fw.active.as_ref().map(|a| a.0.name), Some("land"));
        assert_eq!(grips.last(), Some(&vec![false, true]), "the upper (front) head slides");
        // Beyond the settle it stays, and stops at the time limit.
        let mut fw = pushed();
        let mut q = hold_row(&fw);
        q[index("universal_1_axis2")] += 0.07;
        for k in 0..2200 {
            fw.step(0.01 * k as f64, &at(0.01 * k as f64, &q));
        }
        assert!(fw.done.is_empty());
        assert!(fw.status().contains("phase `push over`") && fw.status().contains("universal_1_axis2"), "{}", fw.status());
    }

    /// Entering the U's press ends once its joints stand still short of the row (the head
    /// bearing on A's tunnel), not before: while they move, or at the start of the phase;
    /// another phase standing still short of its targets does not end.
    #[test]
    fn the_press_ends_when_the_head_bears_and_not_before() {
        let axes = final_model(FULL_RANGE);
        let n = axes.len();
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::EnterU { lead: Head::Front }).expect("valid");
        let press = fw.queue[LEAVE_U_PATH.len() - 2].clone();
        assert!(press.press);
        // Every phase before the press reached: the joints at its start row.
        let start = {
            let mut q = vec![0.0; n];
            for &(i, _) in &press.targets {
                q[i] = fw.queue[LEAVE_U_PATH.len() - 3].targets.iter().find(|t| t.0 == i).expect("same joints").1;
            }
            q
        };
        let at = |t: f64, q: &[f64]| MolemodSensors { stamp: t, joint_positions: q.to_vec() };
        fw.queue.drain(..LEAVE_U_PATH.len() - 2);
        let mut t = 0.0;
        fw.step(t, &at(t, &start));
        assert_eq!(fw.active.as_ref().map(|a| a.0.name), Some("press"));
        // The head meets A 0.4 mm short on each pressing joint: moving, then still.
        let mut q = start.clone();
        let pressing: Vec<usize> = press.targets.iter().filter(|&&(i, v)| (v - start[i]).abs() > 1e-9).map(|t| t.0).collect();
        assert_eq!(pressing.len(), 2, "prismatic_1 and prismatic_2 press");
        for _ in 0..6 {
            t += 0.01;
            for &i in &pressing {
                q[i] += 1e-4;
            }
            fw.step(t, &at(t, &q));
            assert!(fw.done.is_empty(), "ended while moving");
        }
        for _ in 0..25 {
            t += 0.01;
            fw.step(t, &at(t, &q));
        }
        // The press ended (then the grip, which has no targets): the motion is done.
        assert_eq!(fw.done.iter().map(|r| r.phase).collect::<Vec<_>>(), vec!["press", "grip"]);
        assert!(fw.idle() && fw.stuck().is_none());
        // A phase that does not press, standing still short of its target, stays until the
        // time limit.
        let mut other = MoleMotions::new(axes).expect("joints");
        other.phase_timeout = 1.0;
        other.push(Motion::EnterU { lead: Head::Front }).expect("valid");
        for k in 0..150 {
            let t = 0.01 * k as f64;
            other.step(t, &at(t, &vec![0.0; n]));
        }
        assert!(other.done.is_empty());
        assert!(other.stuck().is_some());
    }

    /// A phase of a stored table with alternating grips ends when its joints stand still
    /// within [`TABLE_SETTLE`] of its row (a head resting on a tunnel's floor a few mrad from
    /// it), not when they stand still farther off: that one stops the robot at the phase limit.
    #[test]
    fn a_table_phase_settles_within_ten_mrad_of_its_row_and_not_farther() {
        let axes = final_model(FULL_RANGE);
        let n = axes.len();
        let at = |t: f64, q: &[f64]| MolemodSensors { stamp: t, joint_positions: q.to_vec() };
        let run = |motion: Motion, short: f64| {
            let mut fw = MoleMotions::new(axes.clone()).expect("joints");
            fw.phase_timeout = 1.0;
            fw.push(motion).expect("valid");
            let first = fw.queue[0].clone();
            assert_eq!(first.settle, TABLE_SETTLE);
            // Every joint at its target but the last one the phase moves, `short` off, still.
            let mut q = vec![0.0; n];
            for &(i, v) in &first.targets {
                q[i] = v;
            }
            let (i, v) = *first.targets.iter().rev().find(|&&(i, _)| !axes[i].prismatic).expect("a pitch");
            q[i] = v - short;
            for k in 0..150 {
                let t = 0.01 * f64::from(k);
                fw.step(t, &at(t, &q));
                if !fw.done.is_empty() || fw.stuck().is_some() {
                    break;
                }
            }
            (fw.done.first().map(|r| r.phase), fw.stuck().is_some())
        };
        let follow_down = Motion::FollowDown { lead: Head::Front, flipped: false };
        assert_eq!(run(follow_down, 0.005), (Some("follow down"), false));
        assert_eq!(run(follow_down, 0.02), (None, true));
        // The step's rear head lowered onto the floor (task 2 with start displacement seed
        // 2 stood still 5.0 mrad short there), either head leading, and the step out.
        for lead in [Head::Front, Head::Rear] {
            assert_eq!(run(Motion::StepIn { lead }, 0.005), (Some("step in"), false));
            assert_eq!(run(Motion::StepIn { lead }, 0.02), (None, true));
            assert_eq!(run(Motion::StepOut { lead }, 0.005), (Some("step out"), false));
        }
    }

    /// A press still creeping towards its target (a block set down against a neighbour
    /// slides down it at 0.7 mrad/s) goes on past the phase limit while it comes
    /// [`PRESS_PROGRESS`] nearer within each limit; one that stops coming nearer, without
    /// standing still (it wavers), is stopped at the limit after its last headway. Headway
    /// counts from the farthest the press has been since: a set down that first turns away
    /// (task 3's last: 21, then 53 mrad short) and creeps back goes on too.
    #[test]
    fn a_press_creeping_on_towards_its_target_is_not_stopped_at_the_phase_limit() {
        let axes = final_model(FULL_RANGE);
        let n = axes.len();
        let at = |t: f64, q: &[f64]| MolemodSensors { stamp: t, joint_positions: q.to_vec() };
        // The push over's set down: its last phase presses.
        let run = |rate: f64, waver_after: f64, away: f64| {
            let mut fw = MoleMotions::new(axes.clone()).expect("joints");
            fw.phase_timeout = 2.0;
            fw.push(Motion::PushOver { lead: Head::Front, flipped: false }).expect("valid");
            let presses = fw.queue.len() - 1;
            let set_down = fw.queue[presses].clone();
            assert!(set_down.press);
            fw.queue.drain(..presses);
            let (i, target) = *set_down.targets.iter().rev().find(|&&(i, _)| !axes[i].prismatic).expect("a pitch");
            let mut q = vec![0.0; n];
            for &(j, v) in &set_down.targets {
                q[j] = v;
            }
            let start = target - 0.04;
            for k in 0..2000 {
                let t = 0.01 * f64::from(k);
                // Turning `away` in the first 0.3 s (if any), then creeping at `rate` until
                // `waver_after`, then wavering 1 mrad about where it got.
                let turn = if away > 0.0 { 0.3 } else { 0.0 };
                let crept = if t < turn { -away * t / turn } else { rate * (t.min(waver_after) - turn) - away };
                let waver = if t > waver_after { 0.001 * (20.0 * t).sin() } else { 0.0 };
                q[i] = start + crept + waver;
                fw.step(t, &at(t, &q));
                if !fw.done.is_empty() || fw.stuck().is_some() {
                    return (t, fw.stuck().is_some());
                }
            }
            (20.0, false)
        };
        // 2.5 mrad/s comes 3.6 mrad nearer every 1.4 s, each time inside the 2 s limit
        // counted from the last headway: it goes on to its target, 40 mrad off at the start.
        let (t, stopped) = run(2.5e-3, f64::INFINITY, 0.0);
        assert!(!stopped && t > 15.0, "creeping at 2.5 mrad/s reaches its target: {t} s, stopped {stopped}");
        let (t, stopped) = run(2.5e-3, 5.0, 0.0);
        assert!(stopped && (6.0..9.5).contains(&t), "wavering from 5 s is stopped 2 s after its last headway: {t} s");
        // 30 mrad away first: 12 s to come back to where it started, far past the 2 s limit.
        let (t, stopped) = run(2.5e-3, f64::INFINITY, 0.03);
        assert!(!stopped && t > 15.0, "turning away, then creeping back, it reaches its target: {t} s, stopped {stopped}");
    }

    /// Regression (task 3's last set down, 2026-12-03): a press creeping on in stick-slip,
    /// its readings going +60, -3, -19 urad in each 20 ms of 60 (0.63 mrad/s; measured +64),
    /// ended 18.2 mrad short when two readings 0.1 s apart came 19 urad apart. It creeps on
    /// to its target now, and a press that does stand still (2 urad of reading noise) still
    /// ends within a few windows. The hold before it (a settle, within 60 mrad) crept on the
    /// same way in the same run, 13 mrad short at its 20 s limit: a settle creeping on goes on
    /// past the limit too. Read every 2 ms, the physics' step.
    ///
    /// Regression (task 3's last hold, 2026-12-03): held against the block beside it, 8.6
    /// mrad short, the roll chattered (-19, -35, +50 urad in each 20 ms of 60) while it sagged
    /// back at 0.07 mrad/s; a test that wanted every reading in the window within 20 urad of
    /// the first never saw it still, and it was stopped at the limit. The windows' means see
    /// it stand.
    #[test]
    fn a_press_creeping_in_stick_slip_does_not_bear_on_two_readings_that_agree() {
        let axes = final_model(FULL_RANGE);
        let n = axes.len();
        // `from_end`: 1 the set down (a press), 3 the hold over the next block (a settle).
        // From `still_after` the joint stands, `chattering` as held against a block or with
        // 2 urad of reading noise.
        let run = |from_end: usize, still_after: f64, chattering: bool| {
            let mut fw = MoleMotions::new(axes.clone()).expect("joints");
            fw.push(Motion::PushOver { lead: Head::Front, flipped: false }).expect("valid");
            let first = fw.queue.len() - from_end;
            let set_down = fw.queue[first].clone();
            assert!(set_down.press || set_down.settle == LAND_SETTLE);
            fw.queue.drain(..first);
            fw.queue.truncate(1);
            let (i, target) = *set_down.targets.iter().rev().find(|&&(i, _)| !axes[i].prismatic).expect("a pitch");
            let sign = if target >= 0.0 { 1.0 } else { -1.0 };
            let mut q = vec![0.0; n];
            for &(j, v) in &set_down.targets {
                q[j] = v;
            }
            q[i] = target - sign * 0.0182;
            let mut stood = None;
            for k in 0..20_000_u32 {
                let t = 0.002 * f64::from(k);
                // Each 20 ms of 60, spread over its ten steps.
                let third = (k as usize / 10) % 3;
                if t < still_after {
                    q[i] += sign * [6.0e-6, -0.3e-6, -1.9e-6][third];
                } else {
                    let at = *stood.get_or_insert(q[i]);
                    q[i] = if chattering {
                        at + sign * ([7.0e-6, -28.0e-6, 22.0e-6][third] - 0.07e-3 * (t - still_after))
                    } else {
                        at + sign * [2e-6, -2e-6][k as usize % 2]
                    };
                }
                fw.step(t, &MolemodSensors { stamp: t, joint_positions: q.clone() });
                if !fw.done.is_empty() || fw.stuck().is_some() {
                    return (t, (target - q[i]).abs(), fw.stuck().is_some());
                }
            }
            (40.0, (target - q[i]).abs(), false)
        };
        for from_end in [1, 3] {
            let (t, short, stopped) = run(from_end, f64::INFINITY, false);
            assert!(!stopped && short < 2.1e-3 && t > 20.0, "{from_end}: creeping on, it reaches its target: {t} s, {short} rad short");
            for chattering in [false, true] {
                let (t, short, stopped) = run(from_end, 5.0, chattering);
                assert!(
                    !stopped && (5.0..5.35).contains(&t),
                    "{from_end}: standing still at 5 s (chattering {chattering}), it ends: {t} s, {short} rad short"
                );
            }
        }
    }

    #[test]
    fn stepping_in_and_out_runs_the_step_table_each_way_with_its_holds() {
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let expect = |row: &[f64; 6]| -> Vec<(usize, f64)> { LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect() };
        let (front, rear) = ([true, false], [false, true]);
        let grip = ("grip", vec![], [true, true]);
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::StepIn { lead: Head::Front }).expect("valid");
        let p = &STEP_IN_PATH;
        let step_in = |row: &[f64; 6], hold| ("step in", expect(row), hold);
        assert_eq!(
            targets(&fw),
            vec![
                step_in(&p[1], front),
                step_in(&p[2], front),
                grip.clone(),
                step_in(&p[3], rear),
                step_in(&p[4], rear),
                grip.clone(),
                step_in(&p[5], front),
                step_in(&p[6], front),
                ("let go", vec![], [false, false]),
                grip.clone(),
            ]
        );
        // Both heads hold for a while where the holding head changes, and let go for a
        // while at the end (the mole settles onto the tunnel floors).
        assert_eq!(fw.queue[2].dwell, SETTLE_TIME);
        assert_eq!(fw.queue[5].dwell, SETTLE_TIME);
        assert_eq!(fw.queue[8].dwell, SETTLE_TIME);
        // It starts where leaving the U ends and ends with every joint at zero.
        assert_eq!(p[0], LEAVE_U_PATH[LEAVE_U_PATH.len() - 1]);
        assert_eq!(p[p.len() - 1], [0.0; 6]);
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::StepOut { lead: Head::Front }).expect("valid");
        let step_out = |row: &[f64; 6], hold| ("step out", expect(row), hold);
        assert_eq!(
            targets(&fw),
            vec![
                step_out(&p[5], front),
                step_out(&p[4], front),
                grip.clone(),
                step_out(&p[3], rear),
                step_out(&p[2], rear),
                grip.clone(),
                step_out(&p[1], front),
                step_out(&p[0], front),
            ]
        );
        // Mirrored: the other half's joints, the grips swapped.
        let mirrored = assert_drives_the_other_half(|lead| Motion::StepIn { lead });
        assert_eq!(mirrored[0].2, [false, true]);
        let mirrored = assert_drives_the_other_half(|lead| Motion::StepOut { lead });
        assert_eq!(mirrored[mirrored.len() - 1].2, [false, true]);
        assert_eq!(Motion::StepIn { lead: Head::Rear }.name(), "step in, rear head leading");
        assert_eq!(Motion::StepOut { lead: Head::Rear }.name(), "step out, rear head leading");
    }

    #[test]
    fn passing_through_a_lone_block_runs_the_pass_table_with_its_holds() {
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let expect = |row: &[f64; 6]| -> Vec<(usize, f64)> { LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect() };
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::Pass { lead: Head::Front }).expect("valid");
        let (front, rear, both) = ([true, false], [false, true], [true, true]);
        let grip = ("grip", vec![], both);
        let pass = |k: usize, hold| ("pass through", expect(&PASS_PATH[k]), hold);
        // The holds as stored: front (set down), rear (push), front (regrip), rear (push out),
        // both (swap), then mirrored backwards; a settle where the holding head changes but
        // after the swap (both heads grip through it).
        let mut want = vec![pass(1, front), pass(2, front), grip.clone(), pass(3, rear), pass(4, rear), grip.clone()];
        want.extend((5..=8).map(|k| pass(k, front)));
        want.push(grip.clone());
        want.extend((9..=12).map(|k| pass(k, rear)));
        want.push(grip.clone());
        want.push(pass(13, both));
        want.extend((14..=17).map(|k| pass(k, front)));
        want.push(grip.clone());
        want.extend((18..=21).map(|k| pass(k, rear)));
        want.push(grip.clone());
        want.extend((22..=23).map(|k| pass(k, front)));
        want.push(grip.clone());
        want.extend((24..=25).map(|k| pass(k, rear)));
        assert_eq!(targets(&fw), want);
        for (k, q) in want.iter().enumerate() {
            if q.0 == "grip" {
                assert_eq!(fw.queue[k].dwell, SETTLE_TIME);
            }
        }
        // It starts where leaving the U ends and ends straight, the rear head holding, where
        // entering the U with the rear head leading starts.
        assert_eq!(PASS_PATH[0], LEAVE_U_PATH[LEAVE_U_PATH.len() - 1]);
        assert_eq!(PASS_PATH[PASS_PATH.len() - 1], Head::Rear.row(&LEAVE_U_PATH[LEAVE_U_PATH.len() - 1]));
        let mirrored = assert_drives_the_other_half(|lead| Motion::Pass { lead });
        assert_eq!(mirrored[0].2, rear);
        assert_eq!(mirrored[mirrored.len() - 1].2, front);
        assert_eq!(Motion::Pass { lead: Head::Front }.name(), "pass through");
        assert_eq!(Motion::Pass { lead: Head::Rear }.name(), "pass through, rear head leading");
    }

    #[test]
    fn a_shift_from_below_reaches_with_the_lower_head_holding_grips_then_rolls_with_both() {
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::ShiftBelow { lead: Head::Front }).expect("valid");
        let queued = targets(&fw);
        let reach = SHIFT_BELOW_REACH_PATH.len() - 1;
        assert_eq!(queued.len(), reach + 1 + SHIFT_BELOW_ROLL_PATH.len() - 1);
        let expect = |row: &[f64; 6]| -> Vec<(usize, f64)> { LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect() };
        for (phase, row) in queued[..reach].iter().zip(&SHIFT_BELOW_REACH_PATH[1..]) {
            assert_eq!(phase, &("reach", expect(row), [false, true]));
        }
        assert_eq!(queued[reach], ("grip", vec![], [true, true]));
        for (phase, row) in queued[reach + 1..].iter().zip(&SHIFT_BELOW_ROLL_PATH[1..]) {
            assert_eq!(phase, &("roll", expect(row), [true, true]));
        }
        // Mirrored: the other half's joints, pitches turned, grips swapped (the front head
        // holds in C through the reach).
        let rear = assert_drives_the_other_half(|lead| Motion::ShiftBelow { lead });
        assert_eq!(rear[0].2, [true, false]);
        assert_eq!(Motion::ShiftBelow { lead: Head::Rear }.name(), "shift from below, rear head leading");
        // A model without the rear pitch joint cannot.
        let mut no_rear_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_1_axis2").collect()).expect("joints");
        assert_eq!(
            no_rear_pitch.push(Motion::ShiftBelow { lead: Head::Front }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "shift from below", joint: "universal_1_axis2" }
        );
    }

    #[test]
    fn a_push_over_settles_with_the_grips_alternating_then_rolls_with_both() {
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::PushOver { lead: Head::Front, flipped: false }).expect("valid");
        let queued = targets(&fw);
        assert_eq!(queued.len(), 4 + PUSH_OVER_PATH.len());
        let expect = |row: &[f64; 6]| -> Vec<(usize, f64)> { LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect() };
        // The upper head holds while the lower one is lowered, then the other way round.
        assert_eq!(queued[0], ("settle", expect(&PUSH_OVER_SETTLE[1]), [true, false]));
        assert_eq!(queued[2], ("settle", expect(&PUSH_OVER_SETTLE[2]), [false, true]));
        for k in [1, 3] {
            assert_eq!(queued[k], ("grip", vec![], [true, true]));
            assert_eq!(fw.queue[k].dwell, SETTLE_TIME);
        }
        // The rows with both heads gripping, the land (the hold's row again, the upper head
        // sliding) between the hold and the set down.
        let (hold, n) = (PUSH_OVER_PATH.len() - 2, queued.len());
        for (phase, row) in queued[4..n - 2].iter().zip(&PUSH_OVER_PATH[1..=hold]) {
            assert_eq!(phase, &("push over", expect(row), [true, true]));
        }
        assert_eq!(queued[n - 2], ("land", expect(&PUSH_OVER_PATH[hold]), [false, true]));
        assert_eq!(queued[n - 1], ("push over", expect(&PUSH_OVER_PATH[hold + 1]), [true, true]));
        // Only the set down (the last row) presses; the hold and the land settle.
        let presses: Vec<bool> = fw.queue.iter().map(|p| p.press).collect();
        assert_eq!(presses, (0..n).map(|k| k == n - 1).collect::<Vec<_>>());
        let settles: Vec<[f64; 2]> = fw.queue.iter().map(|p| p.settle).collect();
        assert_eq!(settles, (0..n).map(|k| if k == n - 3 || k == n - 2 { LAND_SETTLE } else { [0.0; 2] }).collect::<Vec<_>>());
        // It starts where the follow ends and the settle ends where the push over starts.
        assert_eq!(PUSH_OVER_SETTLE[0], FOLLOW_PATH[FOLLOW_PATH.len() - 1].1);
        assert_eq!(PUSH_OVER_SETTLE[PUSH_OVER_SETTLE.len() - 1], PUSH_OVER_PATH[0]);
        let rear = assert_drives_the_other_half(|lead| Motion::PushOver { lead, flipped: false });
        assert_eq!(rear[0].2, [false, true], "the rear head on top holds first");
        assert_eq!(Motion::PushOver { lead: Head::Rear, flipped: false }.name(), "push over, rear head leading");
        // Flipped: the same phases and grips, every pitch target negated.
        for lead in [Head::Front, Head::Rear] {
            let mut plain = MoleMotions::new(axes.clone()).expect("joints");
            plain.push(Motion::PushOver { lead, flipped: false }).expect("valid");
            let mut flipped = MoleMotions::new(axes.clone()).expect("joints");
            flipped.push(Motion::PushOver { lead, flipped: true }).expect("valid");
            let pitches = [index("universal_0_axis2"), index("universal_1_axis2")];
            let negated: Vec<_> = targets(&plain)
                .into_iter()
                .map(|(name, t, grip)| {
                    (name, t.into_iter().map(|(i, v)| (i, if pitches.contains(&i) { -v } else { v })).collect::<Vec<_>>(), grip)
                })
                .collect();
            assert_eq!(targets(&flipped), negated, "{lead:?}");
            assert!(targets(&plain).iter().any(|(_, t, _)| t.iter().any(|&(i, v)| pitches.contains(&i) && v != 0.0)));
        }
        let mut no_rear_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_1_axis2").collect()).expect("joints");
        assert_eq!(
            no_rear_pitch.push(Motion::PushOver { lead: Head::Front, flipped: false }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "push over", joint: "universal_1_axis2" }
        );
    }

    /// `motion(lead, flipped)` queues one phase per row of `path` after the first, led by
    /// the upper head (the table's [`Base::Front`]) with the grips alternating as the rows
    /// say, both heads gripping for [`SETTLE_TIME`] where the base changes and at the end;
    /// flipped, every pitch target negated; the rear head leading, the other half driven.
    fn assert_alternates(path: &[(Base, [f64; 6])], name: &'static str, motion: fn(Head, bool) -> Motion) {
        let axes = final_model(FULL_RANGE);
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(motion(Head::Front, false)).expect("valid");
        let queued = targets(&fw);
        let switches = path.windows(2).filter(|p| p[0].0 != p[1].0).count();
        assert_eq!(queued.len(), path.len() - 1 + switches + 1);
        let expect = |row: &[f64; 6]| -> Vec<(usize, f64)> { LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect() };
        let mut k = 0;
        for pair in path.windows(2) {
            if pair[0].0 != pair[1].0 {
                assert_eq!(queued[k], ("grip", vec![], [true, true]));
                assert_eq!(fw.queue[k].dwell, SETTLE_TIME);
                k += 1;
            }
            let grip = if pair[1].0 == Base::Front { [true, false] } else { [false, true] };
            assert_eq!(queued[k], (name, expect(&pair[1].1), grip));
            k += 1;
        }
        assert_eq!(queued[k], ("grip", vec![], [true, true]));
        let rear = assert_drives_the_other_half(|lead| motion(lead, false));
        let first = if path[1].0 == Base::Front { [false, true] } else { [true, false] };
        assert_eq!(rear[0].2, first, "the rear head leading swaps the grips");
        // Flipped: the same phases and grips, every pitch target negated.
        let mut flipped = MoleMotions::new(axes.clone()).expect("joints");
        flipped.push(motion(Head::Front, true)).expect("valid");
        let pitches = [index("universal_0_axis2"), index("universal_1_axis2")];
        let negated: Vec<_> = queued
            .into_iter()
            .map(|(name, t, grip)| {
                (name, t.into_iter().map(|(i, v)| (i, if pitches.contains(&i) { -v } else { v })).collect::<Vec<_>>(), grip)
            })
            .collect();
        assert_eq!(targets(&flipped), negated);
        let mut no_rear_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_1_axis2").collect()).expect("joints");
        assert_eq!(
            no_rear_pitch.push(motion(Head::Front, false)).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: motion(Head::Front, false).name(), joint: "universal_1_axis2" }
        );
    }

    #[test]
    fn a_down_turn_runs_its_rows_with_the_grips_alternating() {
        assert_alternates(&DOWN_TURN_PATH, "down turn", |lead, flipped| Motion::DownTurn { lead, flipped });
        assert_eq!(DOWN_TURN_PATH.windows(2).filter(|p| p[0].0 != p[1].0).count(), 2);
        // The upper head (the model's front) holds first, as the push over leaves both gripping.
        assert_eq!(DOWN_TURN_PATH[1].0, Base::Front);
        // It starts where the push over ends.
        assert_eq!(DOWN_TURN_PATH[0].1, PUSH_OVER_PATH[PUSH_OVER_PATH.len() - 1]);
        assert_eq!(Motion::DownTurn { lead: Head::Rear, flipped: true }.name(), "down turn, rear head leading, flipped");
    }

    #[test]
    fn a_follow_down_runs_its_rows_with_the_grips_alternating_from_where_the_down_turn_ends() {
        assert_alternates(&FOLLOW_DOWN_PATH, "follow down", |lead, flipped| Motion::FollowDown { lead, flipped });
        // It starts where the down turn ends, the lower head (the model's rear) holding first.
        assert_eq!(FOLLOW_DOWN_PATH[0].1, DOWN_TURN_PATH[DOWN_TURN_PATH.len() - 1].1);
        assert_eq!(FOLLOW_DOWN_PATH[1].0, Base::Rear);
        assert_eq!(Motion::FollowDown { lead: Head::Rear, flipped: true }.name(), "follow down, rear head leading, flipped");
    }

    #[test]
    fn a_put_down_runs_the_lift_path_backwards_then_draws_the_block_in() {
        let axes = final_model(FULL_RANGE);
        let mut fw = MoleMotions::new(axes.clone()).expect("joints");
        fw.push(Motion::PutDown { lead: Head::Front }).expect("valid");
        let index = |name: &str| axes.iter().position(|a| a.name == name).expect("axis");
        let queued = targets(&fw);
        assert_eq!(queued.len(), PUT_DOWN_PATH.len() - 1 + 2);
        // The path starts where the lift ends and ends where it starts.
        assert_eq!(PUT_DOWN_PATH[0], LIFT_ONTO_PATH[LIFT_ONTO_PATH.len() - 1]);
        assert_eq!(PUT_DOWN_PATH[PUT_DOWN_PATH.len() - 1], [0.0; 6]);
        for (phase, row) in queued.iter().zip(&PUT_DOWN_PATH[1..]) {
            let expect: Vec<_> = LIFT_ONTO_JOINTS.iter().map(|n| index(n)).zip(row.iter().copied()).collect();
            assert_eq!(phase, &("put down", expect, [true, true]));
        }
        let half = 0.5 * LIFT_ONTO_PART;
        let n = queued.len();
        assert_eq!(queued[n - 2], ("draw out", vec![(index("prismatic_1"), half), (index("prismatic_2"), half)], [false, true]));
        assert_eq!(queued[n - 1], ("close", vec![(index("prismatic_1"), 0.0), (index("prismatic_2"), 0.0)], [true, true]));
        // The close ends where the block bears on its neighbour, within 1 mm of closed.
        assert_eq!(fw.queue[n - 1].settle, CLOSE_SETTLE);
        let mut no_rear_pitch = MoleMotions::new(axes.into_iter().filter(|a| a.name != "universal_1_axis2").collect()).expect("joints");
        assert_eq!(
            no_rear_pitch.push(Motion::PutDown { lead: Head::Front }).unwrap_err(),
            MotionError::MotionNeedsJoint { motion: "put down", joint: "universal_1_axis2" }
        );
    }

    #[test]
    fn motions_outside_the_joints_are_refused() {
        let mut fw = mole();
        let err = fw.push(Motion::Crawl { step: 0.05, iterations: 2, backward: false }).unwrap_err();
        assert!(err.to_string().contains("step = 0.05"), "{err}");
        assert!(matches!(fw.push(Motion::Crawl { step: 0.01, iterations: 0, backward: false }), Err(MotionError::NoIterations(_))));
        assert!(fw.push(Motion::Turn { angle: f64::NAN, reach: 0.01 }).is_err());
        assert!(fw.push(Motion::Turn { angle: 2.0, reach: 0.01 }).is_err());
        assert!(fw.idle());
        let axis = |name: &str| AxisSpec { name: name.into(), prismatic: true, lower: 0.0, upper: 0.03 };
        let err = MoleMotions::new(vec![axis("prismatic_0"), axis("universal_0_axis1")]).unwrap_err();
        assert_eq!(err, MotionError::MissingJoint("prismatic_3"));
        assert_eq!(MoleMotions::new(vec![axis("prismatic_3")]).unwrap_err(), MotionError::MissingJoint("prismatic_0"));
        assert_eq!(MoleMotions::new(vec![axis("prismatic_0"), axis("revolute_0")]).unwrap_err(), MotionError::MissingJoint("prismatic_1"));
    }

    /// A queued phase: name, (reading index, target) pairs, grips.
    type Queued = (&'static str, Vec<(usize, f64)>, [bool; 2]);

    /// The universal joints' ±90 degree range, a hair inside it as the URDF reads.
    const FULL_RANGE: f64 = 0.5 * std::f64::consts::PI - 5e-12;

    /// The final model's joints in the URDF's order, pitch axes within ±`pitch_range` rad.
    fn final_model(pitch_range: f64) -> Vec<AxisSpec> {
        let axis = |name: &str, prismatic, lower, upper| AxisSpec { name: name.into(), prismatic, lower, upper };
        let mut axes =
            vec![axis("universal_0_axis1", false, -FULL_RANGE, FULL_RANGE), axis("universal_1_axis1", false, -FULL_RANGE, FULL_RANGE)];
        for name in ["prismatic_0", "prismatic_1", "prismatic_2", "prismatic_3"] {
            axes.push(axis(name, true, 0.0, 0.03));
        }
        axes.push(axis("universal_0_axis2", false, -pitch_range, pitch_range));
        axes.push(axis("universal_1_axis2", false, -pitch_range, pitch_range));
        axes
    }

    fn targets(fw: &MoleMotions) -> Vec<Queued> {
        fw.queue.iter().map(|p| (p.name, p.targets.clone(), p.grip)).collect()
    }

    #[test]
    fn the_basic_model_crawls_with_its_one_joint_by_twice_the_step_and_cannot_turn() {
        let mut fw = MoleMotions::new(vec![AxisSpec { name: "prismatic_0".into(), prismatic: true, lower: 0.0, upper: 0.03 }])
            .expect("the basic model");
        fw.push(Motion::Crawl { step: 0.01, iterations: 2, backward: false }).expect("valid");
        assert_eq!(targets(&fw), [("expand", vec![(0, 0.02)], [false, true]), ("contract", vec![(0, 0.0)], [true, false])]);
        // The joint travels 30 mm: a step of at most 15 mm.
        let err = fw.push(Motion::Crawl { step: 0.016, iterations: 2, backward: false }).unwrap_err();
        assert!(matches!(err, MotionError::OutOfRange { upper, .. } if (upper - 0.015).abs() < 1e-12), "{err}");
        let err = fw.push(Motion::Turn { angle: 0.3, reach: 0.0 }).unwrap_err();
        assert_eq!(err.to_string(), "turn needs joint `universal_0_axis1 or revolute_0`, which the mole does not have");
        assert!(matches!(fw.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }), Err(MotionError::MotionNeedsJoint { .. })));
    }

    #[test]
    fn the_rotating_model_crawls_with_both_prismatic_joints_and_turns_with_the_revolute_one() {
        let axis = |name: &str, prismatic, lower, upper| AxisSpec { name: name.into(), prismatic, lower, upper };
        // The order of its readings: rear prismatic, revolute, front prismatic.
        let mut fw = MoleMotions::new(vec![
            axis("prismatic_1", true, 0.0, 0.03),
            axis("revolute_0", false, -1.5, 1.5),
            axis("prismatic_0", true, 0.0, 0.03),
        ])
        .expect("the rotating model");
        fw.push(Motion::Crawl { step: 0.01, iterations: 2, backward: true }).expect("valid");
        fw.push(Motion::Turn { angle: -0.3, reach: 0.0 }).expect("valid");
        assert_eq!(
            targets(&fw),
            [
                ("expand", vec![(2, 0.01), (0, 0.01)], [true, false]),
                ("contract", vec![(2, 0.0), (0, 0.0)], [false, true]),
                ("reach", vec![(2, 0.0)], [false, true]),
                ("swing", vec![(1, -0.3)], [false, true]),
                ("follow", vec![(1, 0.0), (2, 0.0)], [true, false]),
            ]
        );
        // No pitch joint: no turn up.
        assert!(matches!(
            fw.push(Motion::TurnUp { ahead: 0.1, lead: Head::Front }),
            Err(MotionError::MotionNeedsJoint { joint: "universal_0_axis2", .. })
        ));
    }

    #[test]
    fn a_turn_down_approaches_then_runs_its_table_with_the_rear_head_holding() {
        let mut fw = MoleMotions::new(final_model(FULL_RANGE)).expect("joints");
        fw.push(Motion::TurnDown { ahead: 0.1 }).expect("valid");
        let queued = targets(&fw);
        assert_eq!(queued.len(), 2 + (TURN_DOWN_PATH.len() - 1) + 1);
        // The approach: 100 mm ahead, the front joint from 28 mm ahead of the body to 29.19 mm
        // before the crossing: 42.81 mm in one expansion and contraction.
        assert_eq!(queued[0].0, "approach: expand");
        assert!((queued[0].1[0].1 - 0.5 * (0.1 - 0.028 - 0.02919)).abs() < 1e-12);
        // The reach moves only prismatic_1 (reading 3), the tilt both pitches (6 and 7).
        assert_eq!(queued[2], ("turn down", vec![(3, TURN_DOWN_PATH[1][2])], [false, true]));
        assert_eq!(queued[3].1.iter().map(|t| t.0).collect::<Vec<_>>(), [6, 7]);
        assert!(queued[2..queued.len() - 1].iter().all(|q| q.2 == [false, true] && !q.1.is_empty()));
        assert_eq!(queued[queued.len() - 1], ("grip", vec![], [true, true]));
        // Without the rear pitch joint it cannot tilt.
        let mut no_rear_pitch = final_model(FULL_RANGE);
        no_rear_pitch.retain(|a| a.name != "universal_1_axis2");
        let err = MoleMotions::new(no_rear_pitch).expect("joints").push(Motion::TurnDown { ahead: 0.1 }).unwrap_err();
        assert_eq!(err, MotionError::MotionNeedsJoint { motion: "turn down", joint: "universal_1_axis2" });
        // Too near for the approach.
        assert!(MoleMotions::new(final_model(FULL_RANGE)).expect("joints").push(Motion::TurnDown { ahead: 0.05 }).is_err());
    }
}
