//! A planner's plan executed by the physics (SPEC 2): each action of a step becomes a
//! sequence of the mole's motions (firmware `flotilla_firmware::molemod::motion`), the
//! robots of a step act in parallel in one [`MoleWorld`], and after each step the blocks
//! and robots are checked against the lattice the step should produce: every block within
//! [`ExecutorOptions::block_tolerance`] of its cell's centre, every robot's body cube
//! within [`ExecutorOptions::robot_tolerance`] of where it rests in its cell. The first
//! step that fails stops the plan with a [`Failure`]: which step, robot, action, motion
//! and phase, and how far off.
//!
//! **Which actions the model performs.** [`motions_for`] maps an action to [`Stage`]s
//! (motions computed up front, motions measured from the bodies when reached, and the
//! executor's own parts between them) with one match arm per kind of action and direction:
//!
//! | action | stages |
//! | --- | --- |
//! | move along the `x` tunnel | one crawl, forward or backward, of the distance from the body's position now to its resting place in the target cell (`2 n` iterations of at most 1.05 [`ExecutorOptions::max_step`], ending contracted) |
//! | move down into the block under a shifted one, from where the shift's push over ends | `Motion::DownTurn` and `Motion::FollowDown` led by the upper head (route Z, flipped as the push over), a crawl putting the body at the target cell's centre (measured when reached) |
//! | move up, or down from a tunnel | none yet: needs turning inside a block into the vertical tunnel and climbing it |
//! | move along `y` | none: the blocks have no tunnel along `y` |
//! | lift onto the neighbour along `x` | a crawl bringing the head that stays in the block (the rear one if the robot faces the neighbour, else the front one: a backward crawl) to [`LIFT_ONTO_REAR_GRIP`] from the block's centre towards the neighbour, then `Motion::LiftOnto` with the other head leading into the neighbour; the executor unscrews the block from every neighbour as the lift starts, runs the world at [`LIFT_SOLVER_ITERATIONS`] passes while it runs, and screws the block to the one it lands on after |
//! | shift the block just lifted onward along x, from the U the lift ends in (either lead: the mirror image swaps every lead) | `Motion::LeaveU` and `Motion::StepIn` led by the lift's lead, a crawl putting the body [`SHIFT_TURN_AHEAD`] past the crossing of the block under the lifted one (measured when reached), `Motion::TurnUp` led by the other head into that crossing (`ahead` measured when reached), `Motion::Follow`, [`SHIFT_SETTLE_BEFORE_PUSH_OVER`] held, the lifted block unscrewed, `Motion::PushOver` (flipped): each at the solver passes it was measured at (`LeaveU`, `StepIn` and `Follow` at [`LIFT_SOLVER_ITERATIONS`], `TurnUp` at [`TURN_SOLVER_ITERATIONS`], `PushOver` at [`PUSH_SOLVER_ITERATIONS`]); the executor screws the block to the one it lands on after |
//! | shift again onward along x, from where a shift's push over ends (either lead) | `Motion::DownTurn` and `Motion::FollowDown` led by the upper head (route Z, flipped as the push over) into the x tunnels, then the shift's stages from the crawl on, one cell on: the crawl [`SHIFT_TURN_AHEAD`] past the crossing of the block under the shifted one, `Motion::TurnUp` and `Motion::Follow` led by the upper head (trailing after route Z), held, unscrewed, `Motion::PushOver` (flipped) |
//! | put down onward along x, from where a shift's push over ends (either lead) | `Motion::DownTurn` and `Motion::FollowDown` led by the upper head (flipped as the push over), a crawl putting the body [`PUT_DOWN_AHEAD`] past the crossing of the block the shifted one stood on (measured when reached), `Motion::SetDown`, `Motion::StepOut` and `Motion::EnterU` led by the upper head, the carried block unscrewed, `Motion::PutDown` led by the upper head (all at [`LIFT_SOLVER_ITERATIONS`] but the crawl and the set down, at the crawls'); the executor screws the block to the one it lands beside after |
//! | put down from the U a lift ends in, cooperative lift | none yet |
//!
//! An action without motions fails before the step runs ([`FailureKind::MissingMotion`]),
//! as does an action the robot cannot start from where the last one left it (a move from
//! the U a lift ends in, a lift from where a shift's push over ends).
//!
//! **Robots kept apart.** The physics lets robots pass through each other (their links
//! share one collision group), and a contracted mole, 152 mm long, lying centred in its 100
//! mm cell reaches 26 mm into each neighbour. Before a step runs, every two robots are
//! checked against each other where they lie, then each acting robot's reach (`reach_of`:
//! its links swept by the crawls it starts with, the contracted mole where a crawl past a
//! crossing ends, the whole cells a block-carrying action works in) against where every
//! robot that does not act lies; an overlap fails the step before the physics
//! ([`FailureKind::Crowded`]: both robots, the cell, how deep).
//!
//! **Where a robot should be after a step.** A robot lying in a tunnel (after a move): its
//! body cube within [`ExecutorOptions::robot_tolerance`] of its resting place in its cell.
//! A robot that lifted a block ends in a U, one head in the block below, the other gripping
//! in the lifted block: its place is where that head gripped the block
//! (measured in the block's frame as the lift starts), with the block where the plan puts
//! it (centred in its cell, turned over about `y`); the distance folds the block's error at
//! the head with any slip of the head in its grip. A robot that shifted a block ends with
//! its upper head gripping in it: measured the same way from where that head gripped the
//! block as the push over started, the block rolled a quarter turn about `y` onto its cell.
//! A robot that put a block down onward lies straight in the tunnels of that block and the
//! one beside it, the head that entered the U gripping in the block: measured the same way,
//! the block turned over once more (half a turn about `y`).

use std::collections::VecDeque;
use std::f64::consts::{FRAC_PI_2, PI};

use flotilla_common::models::{JointKind, Model};
use flotilla_contract::molemod::MolemodCommand;
use flotilla_contract::Firmware;
use flotilla_firmware::molemod::lift::{CUBE_HALF, LEVER, TUNNEL_HALF};
use flotilla_firmware::molemod::motion::{AxisSpec, Head, MoleMotions, Motion, MotionError, Stuck, LIFT_ONTO_REAR_GRIP};
use nalgebra::{Isometry3, Unit, UnitQuaternion, Vector3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reconfig_planner::lattice::{Cell, Lattice};
use reconfig_planner::{
    plan, Action, ActionCosts, ActionKind, Plan, PlanError, PlanRequest, Repertoire, Replay, RequestError, StepError, Task, TaskError,
    VerifyError,
};

use super::blocks::BlockOptions;
use super::world::{MoleWorld, MoleWorldOptions, Span, WorldError, LIFT_SOLVER_ITERATIONS, PUSH_SOLVER_ITERATIONS, TURN_SOLVER_ITERATIONS};
use super::{ArticulatedError, ArticulatedOptions};

/// The world plans run in: the mole with rounded cube edges (4 mm), which slide over the
/// tunnels' rims instead of catching on them.
pub fn tunnel_world_options() -> MoleWorldOptions {
    MoleWorldOptions { robot: ArticulatedOptions { edge_radius: 0.004, ..ArticulatedOptions::default() }, ..MoleWorldOptions::default() }
}

/// A task file planned for its first `robots` robots, the plan checked by replaying it.
#[derive(Clone, Debug)]
pub struct PlannedTask {
    /// The task as loaded.
    pub task: Task,
    /// Its start and goal for the robots asked for.
    pub request: PlanRequest,
    /// The plan.
    pub plan: Plan,
    /// The lattice after each step of the plan (the planner's rules).
    pub replay: Replay,
    /// Why the plan is not within the executor's repertoire ([`EXECUTED`]): the planner's
    /// answer within it (no plan, or robots that start side by side). `None` when it is.
    pub outside_repertoire: Option<String>,
}

/// Why a task could not be planned.
#[derive(Debug, thiserror::Error)]
pub enum TaskPlanError {
    /// The task file cannot be read or is malformed.
    #[error("task file: {0}")]
    Task(TaskError),
    /// The task has not that many robots (or none asked for).
    #[error("robots: {0}")]
    Robots(TaskError),
    /// The planner found no plan.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The plan does not replay into the goal (a planner bug).
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

/// The actions [`motions_for`] has arms for, whatever the robot's posture: horizontal moves
/// along the `x` tunnels of the bottom layer and moves down, lifts off the bottom layer,
/// shifts above it and put downs onto it. Which of them a robot can start also depends on
/// how its last action left it (a put down or a move down only from where a shift's push
/// over ends, a shift only from a lift's U or a push over's end); the planner does not
/// follow postures, so the executor still refuses those with a report. Robots are kept a
/// cell apart (no `side_by_side`): the contracted mole reaches 26 mm into each neighbour
/// along its tunnel, and the executor (`Executor::keep_apart`) refuses a step in which one would reach
/// into another.
pub const EXECUTED: Repertoire = Repertoire::MINIMAL;

/// Loads the task at `path`, plans it for its first `robots` robots with the executor's
/// repertoire ([`EXECUTED`]) and replays the plan. A task with no plan within that
/// repertoire (one that starts robots side by side, or needs a move along `y`, say) is
/// planned with the same actions and robots side by side, and failing that with every
/// action (`request.repertoire` tells which), so that the executor runs it as far as its
/// arms go and reports the first action it has none for (or the robots it finds in each
/// other).
pub fn plan_task(path: &std::path::Path, robots: usize) -> Result<PlannedTask, TaskPlanError> {
    let task = Task::load(path).map_err(TaskPlanError::Task)?;
    let mut request = task.request(robots).map_err(TaskPlanError::Robots)?.with_repertoire(EXECUTED);
    let mut outside_repertoire = None;
    // Within it; else its actions with robots side by side; else every action.
    let wider = [Repertoire { side_by_side: true, ..EXECUTED }, Repertoire::EVERY_ACTION];
    let mut planned = plan(&request);
    for repertoire in wider {
        match planned {
            Err(ref refused @ (PlanError::NoPlan { .. } | PlanError::Invalid(RequestError::SideBySide(..)))) => {
                outside_repertoire.get_or_insert_with(|| refused.to_string());
                request.repertoire = repertoire;
                planned = plan(&request);
            }
            _ => break,
        }
    }
    let plan = planned?;
    let replay = plan.verify(&request)?;
    Ok(PlannedTask { task, request, plan, replay, outside_repertoire })
}

/// How a plan is executed and checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExecutorOptions {
    /// Largest distance of a block's centre from its cell's centre after a step, m. 5 mm:
    /// the clearance each side of the mole's 40 mm cubes in a 50 mm tunnel; a block off by
    /// more narrows the tunnel the next move goes through.
    pub block_tolerance: f64,
    /// Largest distance of a robot's body cube after a step from its place in the cell
    /// the plan puts it in (the cell's centre, at the height the cube rested at in its
    /// start cell), m.
    pub robot_tolerance: f64,
    /// Longest crawl step (each outer prismatic joint's expansion), m. 25 mm: the longest
    /// measured to cross the tunnels' holes (docs/molemod_execution.md).
    pub max_step: f64,
    /// Longest a step's motions may take, s of sim time (300 s: the put down onward after
    /// a shift, the longest step, runs over 100 s: its follow down alone 73 s).
    pub step_limit: f64,
    /// Longest one phase of a motion may take before the robot is stopped with a report
    /// naming the joint and how far off it is, s of sim time (capped at `step_limit`). 20 s,
    /// the firmware's default: a shorter one stops a stalled robot sooner.
    pub phase_timeout: f64,
    /// Time every robot holds still before the plan starts, s.
    pub settle: f64,
    /// Check each step against the planner's rules before it runs. Off only to see what
    /// the physics does with a step the rules reject (a plan edited by hand).
    pub check_rules: bool,
    /// Interval of the joint trace, s of sim time (0 = no trace).
    pub trace_interval: f64,
    /// Each robot starts displaced along its tunnel by a uniform random distance within
    /// +-this, m (0 = at its cell's centre): the moves start from where the robot is.
    pub start_jitter: f64,
    /// Seed of the start displacements.
    pub seed: u64,
    /// Interval of [`Event::Sampled`] (every link's and block's pose, every joint's
    /// reading: what a ROS node shows), s of sim time (0 = none).
    pub sample_interval: f64,
    /// The plan step execution starts at (its index): the executor is built from the
    /// lattice the plan reaches before it and runs the steps from it on, numbered as in the
    /// plan. Only where every robot lies in a tunnel ([`first_step_in_tunnels`]).
    pub first_step: usize,
}

impl Default for ExecutorOptions {
    fn default() -> Self {
        Self {
            block_tolerance: 0.005,
            robot_tolerance: 0.005,
            max_step: 0.025,
            step_limit: 300.0,
            phase_timeout: 20.0,
            settle: 0.3,
            check_rules: true,
            trace_interval: 0.0,
            start_jitter: 0.0,
            seed: 1,
            sample_interval: 0.0,
            first_step: 0,
        }
    }
}

/// One robot at a sample instant.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotSample {
    /// Every joint coordinate's name and reading, m or rad, in reading order.
    pub joints: Vec<(String, f64)>,
    /// Every link's name and world pose (its URDF frame), m.
    pub links: Vec<(String, Isometry3<f64>)>,
}

/// The world at one instant: what a viewer needs to draw it.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSample {
    /// Sim time, s.
    pub time: f64,
    /// Every robot, by index.
    pub robots: Vec<RobotSample>,
    /// Every block: the cell it started in (its name) and its world pose, m.
    pub blocks: Vec<(Cell, Isometry3<f64>)>,
}

/// One block after a step: where the plan has it and how far it is from there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockCheck {
    /// The cell the block started in (its name).
    pub home: Cell,
    /// The cell the plan has it in now.
    pub cell: Cell,
    /// Its centre less the cell's centre, world frame, m.
    pub offset: Vector3<f64>,
    /// How far it is turned from lying square in the lattice: the largest angle between
    /// one of its edges and the nearest world axis, rad.
    pub tilt: f64,
}

/// The largest angle between an axis of `rotation` and the world axis nearest it, rad: 0 for
/// a block lying square in the lattice, whichever quarter turns it has made.
fn tilt_from_square(rotation: &UnitQuaternion<f64>) -> f64 {
    let matrix = rotation.to_rotation_matrix();
    matrix.matrix().column_iter().map(|axis| axis.iter().fold(0.0_f64, |m, c| m.max(c.abs())).min(1.0).acos()).fold(0.0, f64::max)
}

/// What is going on, for progress reports (ROS feedback).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A step begins.
    StepStarted {
        /// Index of the step.
        step: usize,
        /// Its actions.
        actions: Vec<Action>,
    },
    /// A robot begins a motion of its action.
    MotionStarted {
        /// Index of the step.
        step: usize,
        /// The robot's action.
        action: Action,
        /// Index of the motion within the action.
        motion: usize,
        /// What the motion is.
        name: &'static str,
        /// Sim time, s.
        time: f64,
    },
    /// A robot finished a motion.
    MotionFinished {
        /// Index of the step.
        step: usize,
        /// The robot's action.
        action: Action,
        /// Index of the motion within the action.
        motion: usize,
        /// What the motion was.
        name: &'static str,
        /// Sim time, s.
        time: f64,
    },
    /// A step ended and was checked against its lattice.
    StepChecked {
        /// Index of the step.
        step: usize,
        /// Largest distance of a block from its cell, m.
        block_error: f64,
        /// Largest distance of a robot from its place, m.
        robot_error: f64,
        /// Every block, where the plan has it and how far it is from there.
        blocks: Vec<BlockCheck>,
        /// Sim time, s.
        time: f64,
    },
    /// The world now, every [`ExecutorOptions::sample_interval`] while a step runs.
    Sampled(WorldSample),
}

/// Why a step failed.
#[derive(Clone, Debug, PartialEq)]
pub enum FailureKind {
    /// The step breaks the planner's rules.
    Rules(StepError),
    /// The action needs a motion the model does not have.
    MissingMotion {
        /// The motion (or the part of the robot or block) that is missing.
        needs: &'static str,
    },
    /// The firmware refused a motion.
    Refused(MotionError),
    /// A phase of a motion did not end in time: the robot stopped.
    Stuck(Stuck),
    /// The step's motions were not done within [`ExecutorOptions::step_limit`].
    Timeout {
        /// The firmware's status.
        status: String,
    },
    /// After the step the robot is not where the plan puts it.
    RobotOff {
        /// The cell it should be in.
        cell: Cell,
        /// What was measured: its body cube lying in the cell's tunnel, or the head
        /// gripping in the block it lifted into the cell.
        what: &'static str,
        /// Distance of what was measured from its place, m.
        off: f64,
    },
    /// After the step a block is not in its cell.
    BlockOff {
        /// The cell the block started in (its name).
        home: Cell,
        /// The cell it should be in.
        cell: Cell,
        /// Distance of its centre from the cell's centre, m.
        off: f64,
    },
    /// The step would bring the robot into another one (or the two lie in each other
    /// already): the physics lets robots pass through each other (`MoleWorld`: their links
    /// share one collision group), so the step is refused before it runs.
    Crowded {
        /// The other robot.
        other: usize,
        /// What of the robot reaches there: a link where it lies or swept by a crawl, or a
        /// stage of its action (`reach_of`).
        reach: String,
        /// The other robot's link it reaches into.
        link: String,
        /// The cell the two share the most of (`None`: outside the lattice's cells).
        cell: Option<Cell>,
        /// How deep the one reaches into the other: the shared box's smallest extent, m.
        overlap: f64,
    },
    /// The physics could not take a command or has no such robot (a bug).
    Physics(String),
    /// Stopped from outside (a cancelled goal, a node shutting down).
    Cancelled,
}

/// A step that failed: where and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// Index of the step.
    pub step: usize,
    /// The robot, if one is to blame.
    pub robot: Option<usize>,
    /// Its action in the step.
    pub action: Option<Action>,
    /// The motion it was doing: index within the action and name.
    pub motion: Option<(usize, &'static str)>,
    /// Why.
    pub kind: FailureKind,
    /// Sim time, s.
    pub time: f64,
}

impl Failure {
    /// How far off the robot, block or joint is: mm (prismatic joints, positions) or mrad
    /// (revolute joints); `None` where there is no distance.
    pub fn off(&self) -> Option<(f64, &'static str)> {
        match &self.kind {
            FailureKind::RobotOff { off, .. } | FailureKind::BlockOff { off, .. } | FailureKind::Crowded { overlap: off, .. } => {
                Some((off * 1e3, "mm"))
            }
            FailureKind::Stuck(stuck) => {
                let unit = if stuck.joint.starts_with("prismatic") { "mm" } else { "mrad" };
                Some(((stuck.position - stuck.target).abs() * 1e3, unit))
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "step {}", self.step)?;
        if let Some(action) = &self.action {
            write!(f, ", {action}")?;
        } else if let Some(robot) = self.robot {
            write!(f, ", robot {robot}")?;
        }
        if let Some((index, name)) = self.motion {
            write!(f, ", motion {index} ({name})")?;
        }
        write!(f, " at t = {:.3} s: ", self.time)?;
        match &self.kind {
            FailureKind::Rules(e) => write!(f, "the planner's rules reject the step: {e}"),
            FailureKind::MissingMotion { needs } => write!(f, "the model cannot do this yet: {needs}"),
            FailureKind::Refused(e) => write!(f, "the firmware refused the motion: {e}"),
            FailureKind::Stuck(stuck) => {
                let (off, unit) = self.off().unwrap_or((f64::NAN, ""));
                write!(
                    f,
                    "the robot stopped in phase `{}`: joint `{}` at {:.2} of target {:.2} {unit}, {off:.2} {unit} off, since t = {:.3} s",
                    stuck.phase,
                    stuck.joint,
                    stuck.position * 1e3,
                    stuck.target * 1e3,
                    stuck.since
                )
            }
            FailureKind::Timeout { status } => write!(f, "not done within the step limit ({status})"),
            FailureKind::RobotOff { cell, what, off } => {
                write!(f, "the robot's {what} ends {:.2} mm from its place in {cell}", off * 1e3)
            }
            FailureKind::BlockOff { home, cell, off } => {
                write!(f, "the block from {home} ends {:.2} mm from the centre of {cell}", off * 1e3)
            }
            FailureKind::Crowded { other, reach, link, cell, overlap } => {
                let robot = self.robot.map_or_else(|| "a robot".to_owned(), |r| format!("robot {r}"));
                let cell = cell.map_or_else(|| "outside the lattice".to_owned(), |c| format!("in {c}"));
                write!(
                    f,
                    "{robot}'s {reach} reaches {:.1} mm into robot {other}'s {link} {cell}: robots pass through each other in \
                     the physics, so the step is not run",
                    overlap * 1e3
                )
            }
            FailureKind::Physics(e) => write!(f, "physics error: {e}"),
            FailureKind::Cancelled => write!(f, "cancelled"),
        }
    }
}

/// What an execution did.
#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    /// Steps of the plan, count.
    pub steps: usize,
    /// The step execution started at ([`ExecutorOptions::first_step`]).
    pub first_step: usize,
    /// Steps done and checked, count (from `first_step` on).
    pub steps_succeeded: usize,
    /// Largest distance of a block from its cell over the checked steps, m.
    pub max_block_error: f64,
    /// Largest distance of a robot from its place over the checked steps, m.
    pub max_robot_error: f64,
    /// Sim time at the end, s.
    pub sim_time: f64,
    /// The failed step, if one failed.
    pub failure: Option<Failure>,
}

/// A world that cannot be set up for execution.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExecutorError {
    /// The world cannot be built.
    #[error(transparent)]
    World(#[from] WorldError),
    /// The robot cannot be built or commanded.
    #[error(transparent)]
    Robot(#[from] ArticulatedError),
    /// The model lacks a joint the motions use.
    #[error(transparent)]
    Motion(#[from] MotionError),
    /// The start lattice has no robot.
    #[error("the start lattice has no robot to execute the plan")]
    NoRobot,
    /// Stopped from outside while the world was being built or settled
    /// ([`Executor::new_until`]).
    #[error("cancelled while the world was being built")]
    Cancelled,
    /// The start displacement is not a length from 0 to [`MAX_START_JITTER`].
    #[error("start jitter {0} m: must be 0 to {MAX_START_JITTER} m (half a crawl step: the first move takes the displacement up)")]
    StartJitter(f64),
}

/// A plan step execution cannot start at.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FirstStepError {
    /// Past the plan's last step.
    #[error("step {first}: the plan has {steps} steps (0 to {last})", last = steps.saturating_sub(1))]
    Beyond {
        /// The step asked for.
        first: usize,
        /// The plan's steps, count.
        steps: usize,
    },
    /// A robot's last action before the step leaves it out of a tunnel (a lift, a shift, a
    /// put down): the executor starts every robot lying in its tunnel.
    #[error(
        "step {first}: robot {robot}'s last action before it (step {step}: {action}) leaves it out of a tunnel; start at a \
         step before which every robot's last action is a move"
    )]
    NotInTunnel {
        /// The step asked for.
        first: usize,
        /// The robot.
        robot: usize,
        /// The step of its last action.
        step: usize,
        /// That action.
        action: Action,
    },
}

/// Whether execution can start at plan step `first` ([`ExecutorOptions::first_step`]): every
/// robot's last action before it is a move (or it has none), so it lies in a tunnel as
/// the executor starts it.
pub fn first_step_in_tunnels(steps: &[Vec<Action>], first: usize) -> Result<(), FirstStepError> {
    if first > 0 && first >= steps.len() {
        return Err(FirstStepError::Beyond { first, steps: steps.len() });
    }
    let mut last: Vec<Option<(usize, Action)>> = Vec::new();
    for (step, actions) in steps.iter().enumerate().take(first) {
        for action in actions {
            if last.len() <= action.robot {
                last.resize(action.robot + 1, None);
            }
            last[action.robot] = Some((step, *action));
        }
    }
    match last.into_iter().flatten().find(|(_, a)| a.kind != ActionKind::Move) {
        Some((step, action)) => Err(FirstStepError::NotInTunnel { first, robot: action.robot, step, action }),
        None => Ok(()),
    }
}

/// Largest start displacement along a robot's tunnel, m: half a crawl step (25 mm). The
/// first move takes the displacement up; the executor has been measured with 1-1.5 mm
/// (docs/molemod_execution.md). Farther, a robot would start outside its block.
pub const MAX_START_JITTER: f64 = 0.0125;

/// One joint trace sample: sim time and each robot's joint readings.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSample {
    /// Sim time, s.
    pub time: f64,
    /// Per robot, every joint coordinate in reading order, m or rad.
    pub positions: Vec<Vec<f64>>,
}

/// A robot's motions in the running step.
struct Doing {
    action: Action,
    queue: VecDeque<Stage>,
    /// Index within the action of the next motion to start.
    next: usize,
    /// Index of the running motion within the action and its name.
    current: Option<(usize, &'static str)>,
    /// The last motion started.
    last: Option<(usize, &'static str)>,
    /// The running motion.
    running: Option<Motion>,
    /// The block the action carries (its home cell) and the one it lands on, if it moves
    /// one.
    carry: Option<(Cell, Cell)>,
    /// The head holding the carried block and where it gripped it as the block was
    /// freed ([`Stage::Release`]): its centre in the block's frame, m.
    grip: Option<(Holder, Vector3<f64>)>,
    /// Sim time until which the robot holds still ([`Stage::Hold`]), s.
    holding_until: Option<f64>,
}

impl Doing {
    fn new(action: Action) -> Self {
        Self {
            action,
            queue: VecDeque::new(),
            next: 0,
            current: None,
            last: None,
            running: None,
            carry: None,
            grip: None,
            holding_until: None,
        }
    }
}

/// What a [`Stage`] came to when it was reached.
enum Resolved {
    /// The motion to run.
    Motion(Motion),
    /// The carried block was freed: the head holding it and its centre in the block's
    /// frame, m.
    Released((Holder, Vector3<f64>)),
    /// Hold still this long, s.
    Hold(f64),
}

/// How a robot lies after its last action, which decides where its place is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Posture {
    /// Straight in a tunnel: its body cube at its resting place in its cell.
    InTunnel,
    /// In the U a lift onto a neighbour ends in, one head gripping in the lifted block.
    Lifted {
        /// The lift's lead and direction.
        lift: LiftU,
        /// The head gripping in the lifted block.
        grip: Grip,
    },
    /// Where the push over of a shift ends: the lower head in the vertical tunnel of the
    /// block the carried one stood on, the upper head gripping in the carried block, rolled
    /// a quarter turn onto its new cell.
    PushedOver {
        /// The head gripping in the carried block.
        grip: Grip,
        /// The shift's direction along x, cells (+1 or -1).
        towards: isize,
    },
    /// Where a put down onward ends: straight in the x tunnels of the carried block (now on
    /// the floor) and the block beside it, the head that entered the U gripping in the
    /// carried block, turned over once more.
    PutDown {
        /// The head gripping in the carried block.
        grip: Grip,
    },
}

/// How a robot lies when an action starts, as far as the action's motions depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lying {
    /// Straight in a tunnel.
    InTunnel,
    /// In the U a lift onto a neighbour ended in.
    Lifted(LiftU),
    /// Where a shift's push over ended: the lower head in the vertical tunnel of the block
    /// the shifted one stood on, the upper head gripping in the shifted block.
    PushedOver {
        /// The head on top, gripping in the shifted block (the push over's lead).
        upper: Head,
        /// The shift's direction along x, cells (+1 or -1).
        towards: isize,
    },
}

/// A head gripping in the block the robot carried: where the robot check looks for it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Grip {
    /// The head.
    holder: Holder,
    /// Its centre in the carried block's frame as the block was freed, m.
    at: Vector3<f64>,
    /// The carried block's orientation in its cell as the plan puts it (from upright).
    turn: UnitQuaternion<f64>,
}

/// The U a lift ends in: the head that led into the neighbour (now in the block under the
/// lifted one) and the lift's direction along x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiftU {
    /// The head that led the lift.
    pub lead: Head,
    /// The lift's direction along x, cells (+1 or -1).
    pub towards: isize,
}

/// The head that holds the block a lift carries: the one not leading into the neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Holder(Head);

impl Holder {
    /// The head holding the block when `lead` leads.
    fn of(lead: Head) -> Self {
        Holder(other_head(lead))
    }

    /// The other head (the one that led the lift).
    fn lead(self) -> Head {
        other_head(self.0)
    }

    /// The head's link in the model.
    fn link(self) -> &'static str {
        match self.0 {
            Head::Front => "head_front",
            Head::Rear => "head_rear",
        }
    }

    /// What a robot check measures after a push over.
    fn what_in_tunnel(self) -> &'static str {
        match self.0 {
            Head::Front => "front head (from the room in the carried block's tunnel it grips in)",
            Head::Rear => "rear head (from the room in the carried block's tunnel it grips in)",
        }
    }

    /// What a robot check measures.
    fn what(self) -> &'static str {
        match self.0 {
            Head::Front => "front head (gripping the block it carried)",
            Head::Rear => "rear head (gripping the block it carried)",
        }
    }
}

/// The head at the other end of the mole.
fn other_head(head: Head) -> Head {
    match head {
        Head::Front => Head::Rear,
        Head::Rear => Head::Front,
    }
}

/// Which head leads a lift along x by `dx` cells with the robot heading `heading` (unit
/// vector of its body's x axis): the front head if it faces the neighbour, the rear one if
/// it faces away; `None` across the tunnel.
fn lift_lead(heading: &Vector3<f64>, dx: isize) -> Option<Head> {
    let facing = heading.x * dx as f64;
    if facing > 0.9 {
        Some(Head::Front)
    } else if facing < -0.9 {
        Some(Head::Rear)
    } else {
        None
    }
}

/// How far a head whose centre is `centre` and whose long axis is `length` (both in a
/// block's frame, centre from the block's centre, m) is from lying in the block's tunnel
/// along that axis (x or z, whichever `length` is nearer), m: how far its centre is past
/// the play the tunnel leaves it across (`blocks.tunnel` less the head's width, `2 x
/// head_half`, shared between the two sides) and past the block's faces along it.
fn off_tunnel(centre: &Vector3<f64>, length: &Vector3<f64>, blocks: &BlockOptions, head_half: f64) -> f64 {
    let along = if length.x.abs() >= length.z.abs() { 0 } else { 2 };
    let play = 0.5 * blocks.tunnel - head_half;
    (0..3)
        .map(|i| {
            let free = if i == along { 0.5 * blocks.size } else { play };
            (centre[i].abs() - free).max(0.0)
        })
        .map(|past| past * past)
        .sum::<f64>()
        .sqrt()
}

/// The solver passes `motion` needs if they are not a crawl's: the passes it was measured
/// at ([`LIFT_SOLVER_ITERATIONS`] for the lift's and the put down's motions, for leaving and
/// entering the U, stepping in and out, and following round a crossing or down after a push
/// over; the settle before a step out, `SetDown`, at the crawls' passes, as the afterroll
/// chain measured it: at the lift's its pitch stalls 7 mrad short with the mole lying on the
/// tunnel floors; [`TURN_SOLVER_ITERATIONS`] for the turn up;
/// [`PUSH_SOLVER_ITERATIONS`] for rolling a block over).
fn solver_passes(motion: &Motion) -> Option<usize> {
    match motion {
        Motion::LiftOnto { .. }
        | Motion::Part { .. }
        | Motion::Raise { .. }
        | Motion::LeaveU { .. }
        | Motion::StepIn { .. }
        | Motion::StepOut { .. }
        | Motion::EnterU { .. }
        | Motion::PutDown { .. }
        | Motion::Follow { .. }
        | Motion::DownTurn { .. }
        | Motion::FollowDown { .. } => Some(LIFT_SOLVER_ITERATIONS),
        Motion::TurnUp { .. } => Some(TURN_SOLVER_ITERATIONS),
        Motion::PushOver { .. } | Motion::ShiftBelow { .. } | Motion::Shift { .. } => Some(PUSH_SOLVER_ITERATIONS),
        _ => None,
    }
}

/// Where the shift after a lift turns up: the body cube this far past the crossing of the
/// block under the lifted one, towards the shift's target, when `TurnUp` starts, m. The
/// turn's approach needs more than 52 mm (the universal joint 24 mm short of the crossing
/// after it, the body 28 mm behind that) and at most 112 mm (30 mm joints); 60 mm keeps
/// the leading head's centre inside the next block with its 20 mm half-length to spare
/// (docs/molemod_execution.md, "The shift after the lift in one run").
pub const SHIFT_TURN_AHEAD: f64 = 0.060;

/// Whether the shift's push over runs flipped (every pitch target negated): coming into the
/// crossing from the target's side, the turn up and the follow leave the mole's pitch axes
/// pointing the other way from the stored push over's, and unflipped the push over rolls the
/// block over the far edge, away from the target (docs/molemod_execution.md, "Pushing A over
/// from under it").
pub const SHIFT_PUSH_OVER_FLIPPED: bool = true;

/// How long the mole holds still after the follow before the push over starts, s: the
/// push over's start was measured after it (docs/molemod_execution.md, "The shift after the
/// lift in one run").
pub const SHIFT_SETTLE_BEFORE_PUSH_OVER: f64 = 0.3;

/// One stage of an action, run when the robot's firmware is idle: a motion computed up
/// front, a motion whose figure is measured from the bodies when the stage is reached, or
/// the executor's own part between motions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stage {
    /// The motion as computed.
    Run(Motion),
    /// A crawl along the tunnel that puts the body cube `ahead` (m) past the centre of
    /// `cell` towards `towards` (+1 or -1 along x), measured from the body when reached
    /// (the fewest whole cycles of at most 5 % over [`ExecutorOptions::max_step`]).
    CrawlPast {
        /// The cell whose crossing the body passes.
        cell: Cell,
        /// How far past it, m.
        ahead: f64,
        /// Direction along x, cells (+1 or -1).
        towards: isize,
    },
    /// `Motion::TurnUp` led by `lead` into the crossing at `cell`'s centre, its `ahead`
    /// the body cube's distance from that centre along the body's heading when reached
    /// (ahead of the body for the front head, behind it for the rear one), m.
    TurnUpAt {
        /// The cell whose crossing the head turns up in.
        cell: Cell,
        /// The head that turns up.
        lead: Head,
    },
    /// Hold still for this long (s), at the last motion's solver passes.
    Hold(f64),
    /// Free the carried block (unscrew it from every block screwed to it) and note where
    /// `holder` grips it, for the robot check after the step.
    Release {
        /// The head gripping in the carried block.
        holder: Head,
    },
}

impl Stage {
    /// The motion of a [`Stage::Run`].
    pub fn motion(&self) -> Option<Motion> {
        match self {
            Stage::Run(motion) => Some(*motion),
            _ => None,
        }
    }
}

/// The shift after a lift, from the U the lift (led by `lift.lead` towards `lift.towards`)
/// ends in, onward onto the block beside `under` (the cell under the lifted block): the
/// lead leaves the U and steps into `under`'s x tunnel, then [`shift_from_the_x_tunnel`]
/// led by the other head. Run through the executor both ways (`molemod_execute`): led by
/// the front head (task 1) and, every lead swapped, by the rear head (task 2, onto the
/// neighbour behind the robot; task 3's lifts are the same).
fn shift_after_lift(lift: LiftU, under: Cell) -> Vec<Stage> {
    let up = lift.lead;
    let mut stages = vec![Stage::Run(Motion::LeaveU { lead: up }), Stage::Run(Motion::StepIn { lead: up })];
    stages.extend(shift_from_the_x_tunnel(other_head(up), under, lift.towards));
    stages
}

/// The shift again from where a shift's push over ends (`upper` gripping in the shifted
/// block on top, the other head in the vertical tunnel of the block it stood on): route Z
/// down into the x tunnels ([`down_after_push_over`]), which leaves `upper` trailing, then
/// [`shift_from_the_x_tunnel`] one cell on, under the shifted block's place now (`under`).
fn shift_after_push_over(upper: Head, under: Cell, towards: isize) -> Vec<Stage> {
    let mut stages = down_after_push_over(upper).to_vec();
    stages.extend(shift_from_the_x_tunnel(upper, under, towards));
    stages
}

/// A shift's motions from the mole lying straight in the x tunnel of `under` (the block
/// under the one to shift) and its neighbour away from the target, towards `towards` (+1
/// or -1 along x): a crawl puts the body [`SHIFT_TURN_AHEAD`] past `under`'s crossing, the
/// trailing head `up` turns up into that crossing and the body follows it up into the block
/// above, which the executor then frees; after [`SHIFT_SETTLE_BEFORE_PUSH_OVER`] `up`
/// pushes that block over onto the top of `under`'s neighbour ([`SHIFT_PUSH_OVER_FLIPPED`]).
fn shift_from_the_x_tunnel(up: Head, under: Cell, towards: isize) -> [Stage; 6] {
    [
        Stage::CrawlPast { cell: under, ahead: SHIFT_TURN_AHEAD, towards },
        Stage::TurnUpAt { cell: under, lead: up },
        Stage::Run(Motion::Follow { lead: up }),
        Stage::Hold(SHIFT_SETTLE_BEFORE_PUSH_OVER),
        Stage::Release { holder: up },
        Stage::Run(Motion::PushOver { lead: up, flipped: SHIFT_PUSH_OVER_FLIPPED }),
    ]
}

/// Route Z from where a shift's push over ends (`upper` gripping in the shifted block on
/// top): the lower head turns into the x tunnel of the block the shifted one stood on,
/// towards the shift's target, and the body follows it down ("The body following down into
/// B's x tunnel after the push over"); the mole ends straight in that block's and the
/// next one's x tunnels, `upper` trailing.
fn down_after_push_over(upper: Head) -> [Stage; 2] {
    [
        Stage::Run(Motion::DownTurn { lead: upper, flipped: SHIFT_PUSH_OVER_FLIPPED }),
        Stage::Run(Motion::FollowDown { lead: upper, flipped: SHIFT_PUSH_OVER_FLIPPED }),
    ]
}

/// The move down from where a shift's push over ends (`upper` gripping in the shifted block,
/// the shift towards `towards` along x) into `to`, the block under the shifted one: route Z
/// ([`down_after_push_over`]) into the x tunnels of the block the shifted one stood on and
/// of `to`, then a crawl that puts the body at `to`'s centre.
fn move_down_after_push_over(upper: Head, to: Cell, towards: isize) -> Vec<Stage> {
    let mut stages = down_after_push_over(upper).to_vec();
    stages.push(Stage::CrawlPast { cell: to, ahead: 0.0, towards });
    stages
}

/// Where the put down onward crawls the mole after the follow down: the body cube this far
/// past the crossing of the block the shifted one stood on, towards the put down's target,
/// m. The contracted mole's upper head then lies 29 mm past that crossing, where the
/// afterroll chain's crawl leaves it before its step out (92 + 37 mm with that block's
/// centre at 100 mm; docs/molemod_execution.md, "Putting a block down onward after the shift
/// from below"): the step out, the U and the put down stand where that head is.
pub const PUT_DOWN_AHEAD: f64 = 0.029 + 2.0 * LEVER;

/// The put down onward from where a shift's push over ends (`upper` gripping in the shifted
/// block on top, the other head in the vertical tunnel of `under`, the block it stood on),
/// towards `towards` (+1 or -1 along x, the shift's direction): the lower head turns into
/// `under`'s x tunnel towards the target and the body follows it down (route Z: "The body
/// following down into B's x tunnel after the push over"), a crawl puts the body
/// [`PUT_DOWN_AHEAD`] past `under`'s crossing, the mole settles on the tunnel floors, steps
/// out of the far mouth onto the target cell's floor, enters the U (the other head into the
/// shifted block's mouth), the shifted block is unscrewed and the put down turns it over
/// onto the target cell.
fn put_down_after_push_over(upper: Head, under: Cell, towards: isize) -> Vec<Stage> {
    let mut stages = down_after_push_over(upper).to_vec();
    stages.extend([
        Stage::CrawlPast { cell: under, ahead: PUT_DOWN_AHEAD, towards },
        Stage::Run(Motion::SetDown),
        Stage::Run(Motion::StepOut { lead: upper }),
        Stage::Run(Motion::EnterU { lead: upper }),
        Stage::Release { holder: other_head(upper) },
        Stage::Run(Motion::PutDown { lead: upper }),
    ]);
    stages
}

/// The stages one action needs, from the robot's heading (unit vector of its body's x
/// axis, world frame), how far along it the robot must crawl first (m, signed) and how it
/// lies after its last action (`lying`): for a move, the crawl to its
/// resting place in the target cell; for a lift, the crawl until the head that stays in
/// the lifted block (the rear one facing the neighbour, the front one facing away) is at
/// [`LIFT_ONTO_REAR_GRIP`] from the block's centre towards the neighbour, the block freed,
/// the lift; for a shift of the block just lifted onward, [`shift_after_lift`]; for a put
/// down onward after that shift, [`put_down_after_push_over`]; for a shift again after
/// it, [`shift_after_push_over`]. One match
/// arm per action (and direction) the model performs; the rest name what is missing.
pub fn motions_for(action: &Action, heading: &Vector3<f64>, along: f64, lying: Lying, max_step: f64) -> Result<Vec<Stage>, &'static str> {
    let d = |a: usize, b: usize| b as isize - a as isize;
    let (dx, dy, dz) = (d(action.from.x, action.to.x), d(action.from.y, action.to.y), d(action.from.z, action.to.z));
    match (action.kind, dx, dy, dz) {
        (ActionKind::Move, _, 0, 0) if lying != Lying::InTunnel => {
            Err("a move along x from a lift's U or a push over's end (leaving either for the x tunnel): not built")
        }
        (ActionKind::Move, _, 0, 0) if heading.x.abs() > 0.9 => Ok(vec![Stage::Run(crawl(along, max_step))]),
        (ActionKind::Move, _, 0, 0) => Err("a move along x with the robot not lying along the x tunnel (turning back into it)"),
        // Down from where a shift's push over ends: route Z into the x tunnels, then the crawl
        // to the block under the shifted one.
        (ActionKind::Move, 0, 0, -1) => match lying {
            Lying::PushedOver { upper, towards } => Ok(move_down_after_push_over(upper, action.to, towards)),
            _ => Err("a move down other than from where a shift's push over ends: turning inside a block into the vertical \
                 tunnel and climbing down it"),
        },
        (ActionKind::Move, 0, 0, _) => Err("a move up: turning inside a block into the vertical tunnel and climbing it"),
        (ActionKind::Move, ..) => Err("a move along y: the blocks have no tunnel along y"),
        // Onto the neighbour along the tunnel: the set-up crawl, then the lift led by the
        // head towards the neighbour (the rear one for the neighbour behind the robot).
        (ActionKind::Lift, -1 | 1, 0, 1) => match lift_lead(heading, dx) {
            Some(lead) => Ok(vec![
                Stage::Run(crawl(along, max_step)),
                Stage::Release { holder: other_head(lead) },
                Stage::Run(Motion::LiftOnto { lead }),
            ]),
            None => Err("a lift onto the neighbour along x with the robot not lying along the x tunnel (turning back into it)"),
        },
        (ActionKind::Lift, ..) => Err("a lift other than onto the top of a neighbour along the x tunnel"),
        // Onward along x after a shift: route Z from the push over's end.
        (ActionKind::PutDown, -1 | 1, 0, -1) => match lying {
            Lying::PushedOver { upper, towards } if towards == dx => action
                .from
                .offset(-dx, 0, -1)
                .ok_or("a put down with no cell under the shifted block's last place")
                .map(|under| put_down_after_push_over(upper, under, dx)),
            Lying::PushedOver { .. } => Err("putting a shifted block down back towards where the shift came from: not built"),
            Lying::Lifted(_) => Err("putting a block down from the U a lift ends in: `put down` runs from there back where the \
                 block came from, onward `leave U` and the pass through the block below run, but entering the U on the far side \
                 after the pass stalls; no executor arm (docs/molemod_execution.md, \"Passing through a lone block\")"),
            Lying::InTunnel => Err("putting a block down from a tunnel: the executor puts a block down onward only right after \
                 shifting it (route Z from the push over's end)"),
        },
        (ActionKind::PutDown, ..) => Err("a put down other than onto the floor beside the block it lies on, along x: not built"),
        // Onward along x: the chain from the lift's U, or route Z down from the last push over
        // and the shift's chain one cell on.
        (ActionKind::Shift, -1 | 1, 0, 0) => match lying {
            Lying::Lifted(lift) if lift.towards == dx => {
                action.from.offset(0, 0, -1).ok_or("a shift with no cell under the block").map(|under| shift_after_lift(lift, under))
            }
            Lying::Lifted(_) => Err("a shift from a lift's U back over the lift's own cell: not built"),
            Lying::PushedOver { upper, towards } if towards == dx => action
                .from
                .offset(0, 0, -1)
                .ok_or("a shift with no cell under the block")
                .map(|under| shift_after_push_over(upper, under, dx)),
            Lying::PushedOver { .. } => Err("shifting a block back against the last shift's direction: not built"),
            Lying::InTunnel => Err("shifting a block along the top of the row other than right after lifting it: the executor runs the \
                 shift only from the U a lift ends in (leave the U, step in, turn up, follow, push over); from a tunnel its \
                 set-up is not built"),
        },
        (ActionKind::Shift, ..) => Err("a shift other than along the x tunnel: not built"),
        (ActionKind::CoopLift, ..) => Err("the two-robot lift: not built"),
    }
}

/// The action a rule violation names (the second of two that overlap).
fn blamed_action(error: &StepError) -> Option<usize> {
    match error {
        StepError::UnknownRobot { action, .. }
        | StepError::RobotBusy { action, .. }
        | StepError::NotAtFrom { action, .. }
        | StepError::BadDisplacement { action, .. }
        | StepError::Partner { action, .. }
        | StepError::OutsideLattice { action, .. }
        | StepError::Precondition { action, .. }
        | StepError::UnsupportedAlone { action, .. }
        | StepError::Overlap { second: action, .. } => Some(*action),
        StepError::Empty | StepError::Unsupported { .. } | StepError::SideBySide { .. } => None,
    }
}

/// A crawl of `along` m (backward when negative) in the fewest whole expand + contract
/// cycles (so it ends contracted) with steps at most 5 % over `max_step`: a one-cell move
/// that also takes up a few mm of the last move's shortfall keeps its two cycles.
fn crawl(along: f64, max_step: f64) -> Motion {
    let cycles = (along.abs() / (2.0 * 1.05 * max_step)).ceil().max(1.0);
    Motion::Crawl { step: along.abs() / (2.0 * cycles), iterations: 2 * cycles as u32, backward: along < 0.0 }
}

/// Half the length of the contracted mole along its axis, m: the body to either head's
/// centre (two levers, 56 mm) and half a head (the mole is 152 mm end to end, half a block
/// longer than its 100 mm cell: lying centred it reaches 26 mm into each neighbour).
const CONTRACTED_HALF_LENGTH: f64 = 2.0 * LEVER + CUBE_HALF;

/// Centre of `cell` for blocks of side `size`, m (as `MoleWorld::cell_centre`).
fn cell_centre(cell: &Cell, size: f64) -> Vector3<f64> {
    Vector3::new(cell.x as f64 * size, cell.y as f64 * size, (cell.z as f64 + 0.5) * size)
}

/// The cell holding `point` for blocks of side `size` (`None` below or behind cell 0).
fn cell_at(point: &Vector3<f64>, size: f64) -> Option<Cell> {
    let (x, y, z) = ((point.x / size).round(), (point.y / size).round(), (point.z / size).floor());
    (x >= 0.0 && y >= 0.0 && z >= 0.0).then(|| Cell::new(x as usize, y as usize, z as usize))
}

/// Where `action`'s robot reaches while it runs `stages`, beyond where it lies (`lying`:
/// its links' boxes now, m), heading `heading` (its body's x axis), in blocks of side
/// `size`: each crawl it starts with sweeps every link along the heading
/// (a crawl's leading head goes no farther than where it ends); a crawl past a crossing
/// ([`Stage::CrawlPast`]) ends with the contracted mole lying in that cell's x tunnel, on its
/// floor, after sliding there from the crossing; and an action that carries a block works
/// in whole cells whose motions are not modelled here (the lift's and shift's U, turn up,
/// follow, push over): the carried block's cell, its target and the cell the robot works
/// below it in (under the target for a lift, under the block for a shift). Each with what
/// reaches there.
fn reach_of(action: &Action, stages: &[Stage], lying: &[(String, Span)], heading: &Vector3<f64>, size: f64) -> Vec<(String, Span)> {
    let mut reach = Vec::new();
    let mut moved = false;
    for stage in stages {
        match stage {
            Stage::Run(crawl @ Motion::Crawl { step, iterations, backward }) if !moved => {
                let by = heading * (step * f64::from(*iterations) * if *backward { -1.0 } else { 1.0 });
                let name = crawl.name();
                reach.extend(lying.iter().map(|(link, span)| (format!("{link} swept by the {name}"), span.swept(&by))));
                moved = true;
            }
            Stage::CrawlPast { cell, ahead, towards } => {
                let centre = cell_centre(cell, size);
                let body = centre.x + *towards as f64 * ahead;
                let floor = centre.z - TUNNEL_HALF;
                let min = Vector3::new((body - CONTRACTED_HALF_LENGTH).min(centre.x), centre.y - CUBE_HALF, floor);
                let max = Vector3::new((body + CONTRACTED_HALF_LENGTH).max(centre.x), centre.y + CUBE_HALF, floor + 2.0 * CUBE_HALF);
                let what = format!("contracted length crawled to {:.0} mm past the crossing of {cell}", ahead * 1e3);
                reach.push((what, Span::new(min, max)));
                moved = true;
            }
            Stage::Run(_) => moved = true,
            _ => {}
        }
    }
    let worked = match action.kind {
        ActionKind::Lift => [Some(action.from), Some(action.to), action.to.offset(0, 0, -1)],
        ActionKind::Shift => [Some(action.from), Some(action.to), action.from.offset(0, 0, -1)],
        // Down the column under the block's last place (its crossing's other side too) and out
        // through the block beside the target.
        ActionKind::PutDown => [Some(action.from), Some(action.to), action.to.offset(0, 0, 1)],
        _ => [None; 3],
    };
    for cell in worked.into_iter().flatten() {
        let half = Vector3::repeat(0.5 * size);
        let centre = cell_centre(&cell, size);
        reach.push((format!("{} working in {cell}", action.kind), Span::new(centre - half, centre + half)));
    }
    reach
}

/// Two robots in each other: who, where and how deep.
#[derive(Clone, Debug, PartialEq)]
struct Crowding {
    /// The robot whose reach (or link where it lies) overlaps the other.
    robot: usize,
    /// What of it reaches there.
    reach: String,
    /// The other robot.
    other: usize,
    /// The other robot's link.
    link: String,
    /// The box the two share, m.
    shared: Span,
}

/// Two robots in each other in a step, if any: first two lying in each other already
/// (`lying`, per robot its links' boxes), then a robot that acts reaching, by its `reaches`
/// ([`reach_of`]), into where a robot that does not act lies; the deepest of the first kind
/// found, else of the second. Two robots that both act are compared only where they lie (two
/// crawling one behind the other each reach into where the other lies now, but it moves on).
fn crowding(reaches: &[Option<Vec<(String, Span)>>], lying: &[Vec<(String, Span)>]) -> Option<Crowding> {
    let deepest = |found: Option<Crowding>, robot: usize, mine: &[(String, Span)], other: usize| {
        let mut found = found;
        for (what, span) in mine {
            for (link, their) in lying.get(other).map_or(&[][..], Vec::as_slice) {
                let Some(shared) = span.overlap(their) else { continue };
                if found.as_ref().is_none_or(|d| shared.depth() > d.shared.depth()) {
                    found = Some(Crowding { robot, reach: what.clone(), other, link: link.clone(), shared });
                }
            }
        }
        found
    };
    let mut found = None;
    for (robot, links) in lying.iter().enumerate() {
        let here: Vec<(String, Span)> = links.iter().map(|(link, span)| (format!("{link} where it lies"), *span)).collect();
        for other in robot + 1..lying.len() {
            found = deepest(found, robot, &here, other);
        }
    }
    if found.is_some() {
        return found;
    }
    let acts = |i: usize| reaches.get(i).is_some_and(Option::is_some);
    for (robot, reach) in reaches.iter().enumerate() {
        let Some(reach) = reach else { continue };
        for other in (0..lying.len()).filter(|&other| other != robot && !acts(other)) {
            found = deepest(found, robot, reach, other);
        }
    }
    found
}

/// What the physics should show: each robot's cell and each block's cell.
struct Expected {
    robots: Vec<Cell>,
    /// Per block: the cell it started in (its name) and the cell it should be in.
    blocks: Vec<(Cell, Cell)>,
}

impl Expected {
    /// The cells after `action`: the robot to its cell; a block moved from `from` to `to`.
    fn apply(&mut self, action: &Action) {
        let robot_to = match action.kind {
            ActionKind::Move | ActionKind::Lift | ActionKind::PutDown | ActionKind::Shift => Some(action.to),
            // The lifting robot contracts into the block below its partner.
            ActionKind::CoopLift => action.partner.and_then(|p| self.robots.get(p)).and_then(|c| c.offset(0, 0, -1)),
        };
        if action.kind.moves_block() {
            for block in &mut self.blocks {
                if block.1 == action.from {
                    block.1 = action.to;
                }
            }
        }
        if let (Some(cell), Some(robot)) = (robot_to, self.robots.get_mut(action.robot)) {
            *robot = cell;
        }
    }
}

/// A link of the model's URDF form the physics has no body for (a universal joint's
/// cross link): placed on its simulated parent by its revolute joint's reading, so that
/// a sample holds every frame robot_state_publisher would make from the URDF.
#[derive(Clone, Debug)]
struct DerivedLink {
    link: String,
    parent: String,
    /// The revolute joint placing it (its reading is the angle).
    joint: String,
    /// The joint frame in the parent's frame.
    origin: Isometry3<f64>,
    axis: Unit<Vector3<f64>>,
}

/// The cross links of `model`'s URDF form, placed by the revolute joint from their parent.
fn derived_links(model: &Model, simulated: &[&str]) -> Vec<DerivedLink> {
    model
        .split_universal_joints()
        .joints
        .iter()
        .filter(|j| !simulated.contains(&j.child.as_str()))
        .filter_map(|j| match j.kind {
            JointKind::Revolute { axis, .. } => Some(DerivedLink {
                link: j.child.clone(),
                parent: j.parent.clone(),
                joint: j.name.clone(),
                origin: j.origin.to_isometry(),
                axis: Unit::new_normalize(axis),
            }),
            _ => None,
        })
        .collect()
}

/// A plan executed by the physics, step by step.
pub struct Executor {
    world: MoleWorld,
    firmware: Vec<MoleMotions>,
    /// The URDF links without a body, per robot model (all robots share it).
    derived: Vec<DerivedLink>,
    names: Vec<String>,
    state: Lattice,
    expected: Expected,
    /// Per robot: its body cube's height above its start cell's centre at rest, m.
    rest: Vec<f64>,
    options: ExecutorOptions,
    costs: ActionCosts,
    trace: Vec<TraceSample>,
    next_sample: f64,
    /// Sim time of the next [`Event::Sampled`], s.
    next_world_sample: f64,
    max_block_error: f64,
    max_robot_error: f64,
    /// Per robot: how it lies after its last action.
    postures: Vec<Posture>,
    /// The world's solver passes for crawls (its options'), restored after a block moved.
    crawl_passes: usize,
}

impl Executor {
    /// The blocks and robots of `start` in the physics (one `model` per robot, see
    /// [`MoleWorld::in_lattice`]), each robot run by its motion firmware, after holding
    /// still for [`ExecutorOptions::settle`].
    pub fn new(
        model: &Model,
        start: &Lattice,
        world_options: MoleWorldOptions,
        blocks: BlockOptions,
        options: ExecutorOptions,
    ) -> Result<Self, ExecutorError> {
        Self::new_until(model, start, world_options, blocks, options, &|| false)
    }

    /// [`Executor::new`] that stops with [`ExecutorError::Cancelled`] as soon as
    /// `cancelled` says so: checked before each block and robot is added and before each
    /// physics step of the settle. On a full 8 x 8 x 8 lattice the blocks are added in
    /// ~4 ms but the settle's 150 steps take 19-25 s on the 2-core machine (0.1-0.3 s
    /// each: the cancel latency; docs/molemod_execution.md), which a cancelled goal need
    /// not wait for.
    pub fn new_until(
        model: &Model,
        start: &Lattice,
        world_options: MoleWorldOptions,
        blocks: BlockOptions,
        options: ExecutorOptions,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Self, ExecutorError> {
        if start.robots().is_empty() {
            return Err(ExecutorError::NoRobot);
        }
        if !(0.0..=MAX_START_JITTER).contains(&options.start_jitter) {
            return Err(ExecutorError::StartJitter(options.start_jitter));
        }
        let mut world = match MoleWorld::in_lattice_until(model, start, world_options, blocks, cancelled) {
            Err(WorldError::Cancelled) => return Err(ExecutorError::Cancelled),
            built => built?,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        for index in 0..world.robot_count() {
            let by = if options.start_jitter > 0.0 { rng.gen_range(-options.start_jitter..options.start_jitter) } else { 0.0 };
            world.shift_robot(index, &Vector3::new(by, 0.0, 0.0))?;
        }
        let mut firmware = Vec::new();
        for index in 0..world.robot_count() {
            let robot = world.robot_at(index)?;
            let mut axes = Vec::new();
            for name in robot.joint_names() {
                let limits = robot.limits(name)?;
                axes.push(AxisSpec {
                    name: name.to_owned(),
                    prismatic: robot.is_prismatic(name)?,
                    lower: limits.lower,
                    upper: limits.upper,
                });
            }
            let mut motions = MoleMotions::new(axes)?;
            motions.phase_timeout = options.phase_timeout.min(options.step_limit);
            firmware.push(motions);
        }
        let simulated: Vec<&str> = world.robot_at(0)?.bodies_iter().map(|(name, _)| name).collect();
        let derived = derived_links(model, &simulated);
        let names = (0..world.robot_count()).map(|i| format!("mole{i}")).collect();
        let expected = Expected { robots: start.robots().to_vec(), blocks: start.block_cells().map(|c| (c, c)).collect() };
        let mut executor = Self {
            world,
            firmware,
            derived,
            names,
            state: start.clone(),
            expected,
            rest: Vec::new(),
            options,
            costs: ActionCosts::default(),
            trace: Vec::new(),
            next_sample: 0.0,
            next_world_sample: 0.0,
            max_block_error: 0.0,
            max_robot_error: 0.0,
            postures: vec![Posture::InTunnel; start.robots().len()],
            crawl_passes: world_options.solver_iterations,
        };
        let end = executor.world.time() + options.settle;
        while executor.world.time() < end {
            if cancelled() {
                return Err(ExecutorError::Cancelled);
            }
            executor.tick().map_err(ExecutorError::Robot)?;
        }
        for (index, cell) in start.robots().iter().enumerate() {
            let body = executor.body(index)?;
            executor.rest.push(body.z - executor.world.cell_centre(cell).z);
        }
        Ok(executor)
    }

    /// The world (blocks and robots where they are now).
    pub fn world(&self) -> &MoleWorld {
        &self.world
    }

    /// The joint trace so far (empty unless [`ExecutorOptions::trace_interval`] > 0).
    pub fn trace(&self) -> &[TraceSample] {
        &self.trace
    }

    /// Each block's cell as the plan has it now: (the cell it started in, the cell it
    /// should be in).
    pub fn expected_blocks(&self) -> &[(Cell, Cell)] {
        &self.expected.blocks
    }

    /// Each robot's cell as the plan has it now.
    pub fn expected_robots(&self) -> &[Cell] {
        &self.expected.robots
    }

    /// Robot `index`'s body cube position, m.
    fn body(&self, index: usize) -> Result<Vector3<f64>, WorldError> {
        Ok(self.world.robot_link_pose(index, "base_link")?.translation.vector)
    }

    /// How far robot `index` is from its place in `cell` (m), and what was measured: lying
    /// in a tunnel, its body cube from its resting place; after a lift, the head holding the
    /// lifted block from where it gripped it, with the block centred in `cell` and turned over
    /// about `y` (the lift's half turn over the shared edge); after a push over, the head in
    /// the carried block from the room its tunnel leaves it ([`off_tunnel`], the block
    /// centred in `cell` and turned as the plan has it).
    fn robot_off(&self, index: usize, cell: &Cell) -> Result<(&'static str, f64), WorldError> {
        match self.postures.get(index).copied().unwrap_or(Posture::InTunnel) {
            Posture::InTunnel => Ok(("body", (self.body(index)? - self.place(index, cell)).norm())),
            Posture::Lifted { grip, .. } | Posture::PutDown { grip } => {
                let place = self.world.cell_centre(cell) + grip.turn * grip.at;
                let head = self.world.robot_link_pose(index, grip.holder.link())?.translation.vector;
                Ok((grip.holder.what(), (head - place).norm()))
            }
            Posture::PushedOver { grip, .. } => {
                // The push over slides the gripping head along the carried block's tunnel
                // (7.4 mm in task 1's run) and leaves it against the tunnel's walls (3.6 mm up,
                // 4 mm aside: docs/molemod_execution.md "The shift in the executor"), so its
                // place is anywhere in that tunnel inside the block.
                let head = self.world.robot_link_pose(index, grip.holder.link())?;
                let inverse = grip.turn.inverse();
                let centre = inverse * (head.translation.vector - self.world.cell_centre(cell));
                let length = inverse * (head.rotation * Vector3::x());
                let blocks = self.world.blocks().map_or_else(BlockOptions::default, |b| *b.options());
                Ok((grip.holder.what_in_tunnel(), off_tunnel(&centre, &length, &blocks, CUBE_HALF)))
            }
        }
    }

    /// Where robot `index` should rest in `cell`, m.
    fn place(&self, index: usize, cell: &Cell) -> Vector3<f64> {
        self.world.cell_centre(cell) + Vector3::z() * self.rest.get(index).copied().unwrap_or(0.0)
    }

    /// One physics step with every robot's firmware.
    fn tick(&mut self) -> Result<(), ArticulatedError> {
        let mut readings = Vec::with_capacity(self.firmware.len());
        for index in 0..self.firmware.len() {
            readings.push(self.world.robot_sensors(index).map_err(|e| ArticulatedError::UnknownBody(e.to_string()))?);
        }
        let time = self.world.time();
        if self.options.trace_interval > 0.0 && time >= self.next_sample {
            self.trace.push(TraceSample { time, positions: readings.iter().map(|r| r.joint_positions.clone()).collect() });
            self.next_sample = time + self.options.trace_interval;
        }
        let commands: Vec<MolemodCommand> =
            self.firmware.iter_mut().zip(&readings).map(|(firmware, reading)| firmware.step(reading.stamp, reading)).collect();
        let pairs: Vec<(&str, &MolemodCommand)> = self.names.iter().map(String::as_str).zip(commands.iter()).collect();
        self.world.step_all(&pairs)
    }

    /// Every robot's joints and links and every block now.
    pub fn sample(&self) -> Result<WorldSample, WorldError> {
        let mut robots = Vec::with_capacity(self.world.robot_count());
        for index in 0..self.world.robot_count() {
            let robot = self.world.robot_at(index)?;
            let reading = self.world.robot_sensors(index)?;
            let joints: Vec<(String, f64)> = robot.joint_names().map(str::to_owned).zip(reading.joint_positions.iter().copied()).collect();
            let names: Vec<String> = robot.bodies_iter().map(|(name, _)| name.to_owned()).collect();
            let mut links = Vec::with_capacity(names.len());
            for name in names {
                let pose = self.world.robot_link_pose(index, &name)?;
                links.push((name, pose));
            }
            for derived in &self.derived {
                let parent = links.iter().find(|(name, _)| *name == derived.parent).map(|(_, pose)| *pose);
                let angle = joints.iter().find(|(name, _)| *name == derived.joint).map_or(0.0, |(_, q)| *q);
                if let Some(parent) = parent {
                    let turn = Isometry3::from_parts(Default::default(), UnitQuaternion::from_axis_angle(&derived.axis, angle));
                    links.push((derived.link.clone(), parent * derived.origin * turn));
                }
            }
            robots.push(RobotSample { joints, links });
        }
        let homes: Vec<Cell> = self.world.blocks().map(|b| b.blocks().iter().map(|block| block.home).collect()).unwrap_or_default();
        let mut blocks = Vec::with_capacity(homes.len());
        for home in homes {
            blocks.push((home, self.world.block_pose(&home)?));
        }
        Ok(WorldSample { time: self.world.time(), robots, blocks })
    }

    /// Runs `steps` from the start lattice, stopping at the first step that fails;
    /// `progress` sees every [`Event`].
    pub fn execute(&mut self, steps: &[Vec<Action>], progress: &mut dyn FnMut(&Event)) -> Execution {
        self.execute_until(steps, progress, &|| false)
    }

    /// [`Executor::execute`] that also stops, with [`FailureKind::Cancelled`], as soon as
    /// `cancelled` says so (checked every physics step).
    pub fn execute_until(&mut self, steps: &[Vec<Action>], progress: &mut dyn FnMut(&Event), cancelled: &dyn Fn() -> bool) -> Execution {
        let mut succeeded = 0;
        let mut failure = None;
        for (index, actions) in steps.iter().enumerate().skip(self.options.first_step) {
            progress(&Event::StepStarted { step: index, actions: actions.clone() });
            match self.step(index, actions, progress, cancelled) {
                Ok(()) => succeeded += 1,
                Err(f) => {
                    failure = Some(*f);
                    break;
                }
            }
        }
        Execution {
            steps: steps.len(),
            first_step: self.options.first_step,
            steps_succeeded: succeeded,
            max_block_error: self.max_block_error,
            max_robot_error: self.max_robot_error,
            sim_time: self.world.time(),
            failure,
        }
    }

    fn fail(&self, step: usize, doing: Option<&Doing>, kind: FailureKind) -> Box<Failure> {
        Box::new(Failure {
            step,
            robot: doing.map(|d| d.action.robot),
            action: doing.map(|d| d.action),
            motion: doing.and_then(|d| d.current.or(d.last)),
            kind,
            time: self.world.time(),
        })
    }

    /// One step: its actions' motions in parallel, then the check; the world is back at
    /// its crawl solver passes after it, whatever happened.
    fn step(
        &mut self,
        step: usize,
        actions: &[Action],
        progress: &mut dyn FnMut(&Event),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(), Box<Failure>> {
        let result = self.run_step(step, actions, progress, cancelled);
        self.world.set_solver_iterations(self.crawl_passes);
        result
    }

    /// The home cell of the block the plan has in `cell` now.
    fn block_in(&self, cell: &Cell) -> Option<Cell> {
        self.expected.blocks.iter().find(|(_, at)| at == cell).map(|(home, _)| *home)
    }

    /// Why robot `index` cannot start `action` from how it lies, if it cannot.
    fn cannot_start(&self, index: usize, action: &Action) -> Option<&'static str> {
        let posture = self.postures.get(index).copied().unwrap_or(Posture::InTunnel);
        match (posture, action.kind) {
            (Posture::InTunnel, _) | (Posture::Lifted { .. }, ActionKind::Shift) => None,
            (Posture::Lifted { .. }, ActionKind::PutDown) => Some(
                "putting the lifted block down from the U its lift ended in: back where it came from, `put down` runs from \
                 there but has no executor arm yet; onward, `leave U` and the pass through the block below (`pass through`) run, \
                 but entering the U on the far side after the pass stalls (the mole 1.3 mm short and 4-6 mm aside in the tunnel; \
                 docs/molemod_execution.md, \"Passing through a lone block\")",
            ),
            (Posture::Lifted { .. }, _) => Some(
                "a move or a lift from the U a lift ends in (one head in the block below, the other in the lifted block): leaving \
                 the U (`leave U`, `step in`) is built, the executor's arm for it is not",
            ),
            (Posture::PushedOver { .. }, ActionKind::PutDown | ActionKind::Shift) => None,
            (Posture::PushedOver { .. }, ActionKind::Move) if action.to.offset(0, 0, 1) == Some(action.from) => None,
            (Posture::PushedOver { .. }, _) => Some(
                "a lift, or a move other than down into the block under the shifted one, from where the shift's push over ends \
                 (the lower head in the vertical tunnel of the block the shifted one stood on, the upper head gripping in the \
                 shifted block): only the put down onward, a shift again and the move down start there",
            ),
            (Posture::PutDown { .. }, _) => Some(
                "an action from where a put down onward ends (the mole straight in the tunnels of the block it put down and \
                 the one beside it, one head gripping that block's far end): not built",
            ),
        }
    }

    /// What `stage` comes to for robot `index` now, with `carry` the block its action
    /// carries (home cell) and the one it lands on: the motion, measured from the bodies
    /// where the stage says so, or the carried block freed and the grip on it noted.
    fn resolve(&mut self, index: usize, carry: Option<(Cell, Cell)>, stage: Stage) -> Result<Resolved, FailureKind> {
        let physics = |e: WorldError| FailureKind::Physics(e.to_string());
        let body = self.world.robot_link_pose(index, "base_link").map_err(physics)?;
        let (at, heading) = (body.translation.vector, body.rotation * Vector3::x());
        match stage {
            Stage::Run(motion) => Ok(Resolved::Motion(motion)),
            Stage::CrawlPast { cell, ahead, towards } => {
                let to = self.world.cell_centre(&cell).x + towards as f64 * ahead;
                Ok(Resolved::Motion(crawl((to - at.x) * heading.x, self.options.max_step)))
            }
            Stage::TurnUpAt { cell, lead } => {
                // Ahead of the body for the front head, behind it for the rear one.
                let from_body = (self.world.cell_centre(&cell) - at).dot(&heading);
                let ahead = match lead {
                    Head::Front => from_body,
                    Head::Rear => -from_body,
                };
                Ok(Resolved::Motion(Motion::TurnUp { ahead, lead }))
            }
            Stage::Release { holder } => {
                let Some((block, _)) = carry else {
                    return Err(FailureKind::Physics("a block to free, but the action carries none".into()));
                };
                let holder = Holder(holder);
                self.unscrew_all(&block).map_err(physics)?;
                let block_pose = self.world.block_pose(&block).map_err(physics)?;
                let head = self.world.robot_link_pose(index, holder.link()).map_err(physics)?.translation.vector;
                Ok(Resolved::Released((holder, block_pose.inverse_transform_vector(&(head - block_pose.translation.vector)))))
            }
            Stage::Hold(seconds) => Ok(Resolved::Hold(seconds)),
        }
    }

    /// Refuses the step if a robot would reach into another one ([`reach_of`], [`crowding`]):
    /// the physics lets their links pass through each other.
    fn keep_apart(&self, step: usize, doing: &[Doing]) -> Result<(), Box<Failure>> {
        let physics = |e: WorldError| self.fail(step, None, FailureKind::Physics(e.to_string()));
        let size = self.world.blocks().map_or(BlockOptions::default().size, |b| b.options().size);
        let lying =
            (0..self.world.robot_count()).map(|i| self.world.robot_link_spans(i)).collect::<Result<Vec<_>, _>>().map_err(physics)?;
        let mut reaches = vec![None; lying.len()];
        for d in doing {
            let robot = d.action.robot;
            let heading = self.world.robot_link_pose(robot, "base_link").map_err(physics)?.rotation * Vector3::x();
            let stages: Vec<Stage> = d.queue.iter().copied().collect();
            let lies = lying.get(robot).map_or(&[][..], Vec::as_slice);
            if let Some(reach) = reaches.get_mut(robot) {
                *reach = Some(reach_of(&d.action, &stages, lies, &heading, size));
            }
        }
        let Some(crowded) = crowding(&reaches, &lying) else { return Ok(()) };
        let mine = doing.iter().find(|d| d.action.robot == crowded.robot);
        let kind = FailureKind::Crowded {
            other: crowded.other,
            reach: crowded.reach,
            link: crowded.link,
            cell: cell_at(&crowded.shared.centre(), size),
            overlap: crowded.shared.depth(),
        };
        let mut failure = self.fail(step, mine, kind);
        failure.robot = Some(crowded.robot);
        Err(failure)
    }

    /// Unscrews `block` (a home cell) from every block screwed to it, as the robot inside
    /// it does before carrying it. A block on top (which the planner's rules forbid) is
    /// then carried along, unscrewed.
    fn unscrew_all(&mut self, block: &Cell) -> Result<(), WorldError> {
        for other in self.world.screwed_to(block) {
            self.world.unscrew(block, &other)?;
        }
        Ok(())
    }

    /// The solver passes the running motions need: a block-moving motion's, or the
    /// crawls'.
    fn passes_for(&self, doing: &[Doing]) -> usize {
        doing.iter().filter_map(|d| d.running.as_ref().and_then(solver_passes)).fold(self.crawl_passes, usize::max)
    }

    fn run_step(
        &mut self,
        step: usize,
        actions: &[Action],
        progress: &mut dyn FnMut(&Event),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(), Box<Failure>> {
        match self.state.apply_step(actions, &self.costs) {
            Ok((next, _)) => self.state = next,
            Err(e) if self.options.check_rules => {
                let blamed = blamed_action(&e).and_then(|i| actions.get(i)).map(|a| Doing::new(*a));
                return Err(self.fail(step, blamed.as_ref(), FailureKind::Rules(e)));
            }
            // Unchecked: the physics decides; the rules' state is not followed any more.
            Err(_) => {}
        }
        let mut doing: Vec<Doing> = Vec::with_capacity(actions.len());
        for action in actions {
            let here = Doing::new(*action);
            let heading = match self.world.robot_link_pose(action.robot, "base_link") {
                Ok(pose) => pose.rotation * Vector3::x(),
                Err(e) => return Err(self.fail(step, Some(&here), FailureKind::Physics(e.to_string()))),
            };
            if let Some(needs) = self.cannot_start(action.robot, action) {
                return Err(self.fail(step, Some(&here), FailureKind::MissingMotion { needs }));
            }
            let physics = |e: WorldError| FailureKind::Physics(e.to_string());
            let lying = match self.postures.get(action.robot) {
                Some(Posture::Lifted { lift, .. }) => Lying::Lifted(*lift),
                Some(Posture::PushedOver { grip, towards }) => Lying::PushedOver { upper: grip.holder.0, towards: *towards },
                _ => Lying::InTunnel,
            };
            let (along, carry) = match action.kind {
                ActionKind::Lift | ActionKind::Shift => {
                    // The carried block and the one it lands on, as the plan has them now.
                    let under = action.to.offset(0, 0, -1);
                    let (Some(block), Some(onto)) = (self.block_in(&action.from), under.and_then(|c| self.block_in(&c))) else {
                        let needs = "a block in the action's cell and one under its target";
                        return Err(self.fail(step, Some(&here), FailureKind::MissingMotion { needs }));
                    };
                    let dx = action.to.x as isize - action.from.x as isize;
                    // A lift first crawls the holding head to its grip; across the tunnel
                    // there is no holding head and no crawl (`motions_for` names what is
                    // missing), and a shift measures its crawl when it reaches it.
                    let along = match lift_lead(&heading, dx).map(Holder::of) {
                        Some(holder) if action.kind == ActionKind::Lift => {
                            let centre =
                                self.world.block_pose(&block).map_err(|e| self.fail(step, Some(&here), physics(e)))?.translation.vector;
                            let grip = centre + Vector3::x() * (dx.signum() as f64 * LIFT_ONTO_REAR_GRIP);
                            let head = self
                                .world
                                .robot_link_pose(action.robot, holder.link())
                                .map_err(|e| self.fail(step, Some(&here), physics(e)))?;
                            (grip - head.translation.vector).dot(&heading)
                        }
                        _ => 0.0,
                    };
                    (along, Some((block, onto)))
                }
                ActionKind::PutDown => {
                    // The carried block and the one it lands beside (under its last place).
                    let beside = action.from.offset(0, 0, action.to.z as isize - action.from.z as isize);
                    let (Some(block), Some(onto)) = (self.block_in(&action.from), beside.and_then(|c| self.block_in(&c))) else {
                        let needs = "a block in the action's cell and one beside its target";
                        return Err(self.fail(step, Some(&here), FailureKind::MissingMotion { needs }));
                    };
                    (0.0, Some((block, onto)))
                }
                _ => {
                    let body = self.body(action.robot).map_err(|e| self.fail(step, Some(&here), physics(e)))?;
                    ((self.place(action.robot, &action.to) - body).dot(&heading), None)
                }
            };
            match motions_for(action, &heading, along, lying, self.options.max_step) {
                Ok(stages) => doing.push(Doing { queue: stages.into(), carry, ..here }),
                Err(needs) => return Err(self.fail(step, Some(&here), FailureKind::MissingMotion { needs })),
            }
        }
        self.keep_apart(step, &doing)?;
        let end = self.world.time() + self.options.step_limit;
        loop {
            if let Some(d) = doing.iter().find(|d| self.firmware[d.action.robot].stuck().is_some()) {
                let stuck = self.firmware[d.action.robot].stuck().cloned();
                return Err(self.fail(step, Some(d), stuck.map_or(FailureKind::Physics("stopped".into()), FailureKind::Stuck)));
            }
            let time = self.world.time();
            for d in &mut doing {
                let robot = d.action.robot;
                if !self.firmware[robot].idle() || d.holding_until.is_some_and(|until| time < until) {
                    continue;
                }
                d.holding_until = None;
                let last = d.running.take();
                if let Some((motion, name)) = d.current.take() {
                    progress(&Event::MotionFinished { step, action: d.action, motion, name, time });
                }
                // The next motion, after the executor's own stages before it.
                let next = loop {
                    let Some(stage) = d.queue.pop_front() else { break None };
                    match self.resolve(robot, d.carry, stage) {
                        Ok(Resolved::Motion(motion)) => break Some(motion),
                        Ok(Resolved::Released(grip)) => d.grip = Some(grip),
                        Ok(Resolved::Hold(seconds)) => {
                            // Held at the last motion's solver passes.
                            d.holding_until = Some(time + seconds);
                            d.running = last;
                            break None;
                        }
                        Err(kind) => return Err(self.fail(step, Some(&*d), kind)),
                    }
                };
                let Some(next) = next else { continue };
                d.current = Some((d.next, next.name()));
                d.last = d.current;
                d.next += 1;
                if let Err(e) = self.firmware[robot].push(next) {
                    return Err(self.fail(step, Some(&*d), FailureKind::Refused(e)));
                }
                d.running = Some(next);
                progress(&Event::MotionStarted { step, action: d.action, motion: d.next - 1, name: next.name(), time });
            }
            if doing.iter().all(|d| d.current.is_none() && d.holding_until.is_none()) {
                break;
            }
            let passes = self.passes_for(&doing);
            if passes != self.world.solver_iterations() {
                self.world.set_solver_iterations(passes);
            }
            if self.world.time() >= end {
                let d = doing.iter().find(|d| d.current.is_some());
                let status = d.map_or_else(String::new, |d| self.firmware[d.action.robot].status());
                return Err(self.fail(step, d, FailureKind::Timeout { status }));
            }
            if cancelled() {
                let d = doing.iter().find(|d| d.current.is_some());
                return Err(self.fail(step, d, FailureKind::Cancelled));
            }
            if let Err(e) = self.tick() {
                return Err(self.fail(step, None, FailureKind::Physics(e.to_string())));
            }
            if self.options.sample_interval > 0.0 && self.world.time() >= self.next_world_sample {
                let sample = self.sample().map_err(|e| self.fail(step, None, FailureKind::Physics(e.to_string())))?;
                self.next_world_sample = sample.time + self.options.sample_interval;
                progress(&Event::Sampled(sample));
            }
        }
        for action in actions {
            self.expected.apply(action);
        }
        // Every motion done: a robot that carried a block lies where its carrying motion
        // ends, a head gripping in the block; one that moved lies in a tunnel.
        for d in &doing {
            let robot = d.action.robot;
            if d.action.kind == ActionKind::Move {
                self.postures[robot] = Posture::InTunnel;
            }
            if let Some((holder, at)) = d.grip {
                let towards = (d.action.to.x as isize - d.action.from.x as isize).signum();
                self.postures[robot] = match (d.action.kind, self.postures[robot]) {
                    (ActionKind::Shift, Posture::Lifted { grip, .. } | Posture::PushedOver { grip, .. }) => {
                        // Rolled a quarter turn about y towards the target.
                        let roll = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), towards as f64 * FRAC_PI_2);
                        Posture::PushedOver { grip: Grip { holder, at, turn: roll * grip.turn }, towards }
                    }
                    (ActionKind::PutDown, Posture::PushedOver { grip, .. }) => {
                        // Turned over the edge onto the floor: a half turn about y.
                        let over = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), PI);
                        Posture::PutDown { grip: Grip { holder, at, turn: over * grip.turn } }
                    }
                    // Turned over the shared edge: a half turn about y.
                    _ => Posture::Lifted {
                        lift: LiftU { lead: holder.lead(), towards },
                        grip: Grip { holder, at, turn: UnitQuaternion::from_axis_angle(&Vector3::y_axis(), PI) },
                    },
                };
            }
        }
        self.check(step, &doing, progress)?;
        // Checked: each carried block is screwed to the one it landed on.
        for d in &doing {
            if let Some((block, onto)) = d.carry {
                self.world.screw(&block, &onto).map_err(|e| self.fail(step, Some(d), FailureKind::Physics(e.to_string())))?;
            }
        }
        Ok(())
    }

    /// Every robot in its place and every block in its cell, within the tolerances.
    fn check(&mut self, step: usize, doing: &[Doing], progress: &mut dyn FnMut(&Event)) -> Result<(), Box<Failure>> {
        let mut robot_error: f64 = 0.0;
        for (index, cell) in self.expected.robots.iter().enumerate() {
            let (what, off) = self.robot_off(index, cell).map_err(|e| self.fail(step, None, FailureKind::Physics(e.to_string())))?;
            robot_error = robot_error.max(off);
            if off > self.options.robot_tolerance {
                let mine = doing.iter().find(|d| d.action.robot == index);
                let mut failure = self.fail(step, mine, FailureKind::RobotOff { cell: *cell, what, off });
                failure.robot = Some(index);
                return Err(failure);
            }
        }
        let mut block_error: f64 = 0.0;
        let mut blocks = Vec::with_capacity(self.expected.blocks.len());
        for &(home, cell) in &self.expected.blocks {
            let at = self.world.block_pose(&home).map_err(|e| self.fail(step, None, FailureKind::Physics(e.to_string())))?;
            let offset = at.translation.vector - self.world.cell_centre(&cell);
            blocks.push(BlockCheck { home, cell, offset, tilt: tilt_from_square(&at.rotation) });
            let off = offset.norm();
            block_error = block_error.max(off);
            if off > self.options.block_tolerance {
                return Err(self.fail(step, None, FailureKind::BlockOff { home, cell, off }));
            }
        }
        self.max_robot_error = self.max_robot_error.max(robot_error);
        self.max_block_error = self.max_block_error.max(block_error);
        progress(&Event::StepChecked { step, block_error, robot_error, blocks, time: self.world.time() });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_planned_with_the_actions_the_executor_has_arms_for() {
        let task = |name: &str| std::path::PathBuf::from(format!("{}/../../config/molemod/{name}", env!("CARGO_MANIFEST_DIR")));
        for name in ["task1.yaml", "task2.yaml", "task3.yaml"] {
            let planned = plan_task(&task(name), 1).expect("plans");
            assert_eq!(planned.request.repertoire, EXECUTED, "{name}");
            let actions: Vec<Action> = planned.plan.steps.iter().flatten().copied().collect();
            for a in &actions {
                let cell = |c: Cell| [c.x, c.y, c.z];
                assert!(EXECUTED.allows(a.kind, cell(a.from), cell(a.to)), "{name}: {a}");
                assert!(a.kind != ActionKind::Lift || a.from.z == 0, "{name}: {a}");
            }
            // Tasks 1 and 2 keep their plans of every action; task 3's shifts its two blocks
            // along the top instead of lifting one onto the other and putting it down.
            let unrestricted = plan(&planned.request.clone().with_repertoire(Repertoire::EVERY_ACTION)).expect("plans");
            eprintln!("{name}: {} steps ({} with every action)", planned.plan.steps.len(), unrestricted.steps.len());
            for a in &actions {
                eprintln!("  {a}");
            }
            if name != "task3.yaml" {
                assert_eq!(planned.plan.steps, unrestricted.steps, "{name}");
            }
        }
        // A block to the other y layer has no plan without moves along y: planned with every
        // action, the executor reports the first it cannot run.
        let across = plan_task(&task("task3d_1.yaml"), 1).expect("plans");
        assert_eq!(across.request.repertoire, Repertoire::EVERY_ACTION);
        assert!(across.outside_repertoire.is_some_and(|why| why.starts_with("no plan")));
        assert!(across.plan.steps.iter().flatten().any(|a| a.from.y != a.to.y));
        // Robots are kept a cell apart: the row with a robot at each end plans within the
        // repertoire; task 2's two robots have no such plan and task 3's start side by side,
        // so both are planned with its actions, robots side by side (and the executor
        // refuses where they meet).
        assert_eq!(plan_task(&task("pair.yaml"), 2).expect("plans").request.repertoire, EXECUTED);
        let why = |name: &str| {
            let planned = plan_task(&task(name), 2).expect("plans");
            assert_eq!(planned.request.repertoire, Repertoire { side_by_side: true, ..EXECUTED }, "{name}");
            planned.outside_repertoire.expect("says why")
        };
        assert!(why("task2.yaml").starts_with("no plan: the goal is unreachable"));
        assert!(why("task3.yaml").contains("robot 0 in (5, 0, 0) and robot 1 in (4, 0, 0) are side by side along x"));
        assert_eq!(plan_task(&task("pair.yaml"), 2).expect("plans").outside_repertoire, None);
    }

    #[test]
    fn a_block_is_square_after_quarter_turns_and_tilted_by_the_angle_off_them() {
        let quarter = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), FRAC_PI_2);
        assert!(tilt_from_square(&UnitQuaternion::identity()) < 1e-9);
        assert!(tilt_from_square(&(quarter * quarter * UnitQuaternion::from_axis_angle(&Vector3::x_axis(), -FRAC_PI_2))) < 1e-7);
        let off = quarter * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), 0.009);
        assert!((tilt_from_square(&off) - 0.009).abs() < 1e-9, "{}", tilt_from_square(&off));
    }

    #[test]
    fn execution_starts_only_at_steps_before_which_every_robot_lies_in_a_tunnel() {
        let path = std::path::PathBuf::from(format!("{}/../../config/molemod/task3.yaml", env!("CARGO_MANIFEST_DIR")));
        let steps = plan_task(&path, 1).expect("plans").plan.steps;
        assert_eq!(first_step_in_tunnels(&steps, 0), Ok(()));
        // Task 3's second lift comes after the moves back along the bottom row.
        let lift = steps.iter().position(|s| s.iter().any(|a| a.kind == ActionKind::Lift) && s != &steps[0]).expect("a second lift");
        assert!(steps[lift - 1].iter().all(|a| a.kind == ActionKind::Move));
        assert_eq!(first_step_in_tunnels(&steps, lift), Ok(()));
        // After it the robot stands in the U of its lift.
        match first_step_in_tunnels(&steps, lift + 1) {
            Err(e @ FirstStepError::NotInTunnel { robot: 0, step, .. }) => {
                assert_eq!(step, lift);
                assert!(e.to_string().contains(&format!("step {lift}: robot 0 lift")), "{e}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(first_step_in_tunnels(&steps, steps.len()), Err(FirstStepError::Beyond { first: steps.len(), steps: steps.len() }));
    }

    fn crawl_of(along: f64) -> (f64, u32, bool) {
        match crawl(along, 0.025) {
            Motion::Crawl { step, iterations, backward } => (step, iterations, backward),
            other => panic!("{other:?}"),
        }
    }

    /// A head in a block's tunnel is off only by how far it is past the tunnel's room: 5 mm
    /// each way across (a 50 mm tunnel, a 40 mm head) and the block's faces along it.
    #[test]
    fn a_head_in_a_tunnel_is_off_only_past_the_room_the_tunnel_leaves_it() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let blocks = BlockOptions::default();
        let off = |c: [f64; 3], length: &Vector3<f64>| off_tunnel(&Vector3::from(c), length, &blocks, 0.02);
        let along_x = Vector3::new(0.99, 0.0, 0.1);
        let along_z = Vector3::new(0.1, 0.0, -0.99);
        // Task 1's push over end: 7 mm along the x tunnel, 3.6 mm up and 4.4 mm aside.
        assert!(close(off([0.007, 0.0044, 0.0036], &along_x), 0.0));
        // The same centre lying along z is 2 mm past the room across (7 mm of 5).
        assert!(close(off([0.007, 0.0044, 0.0036], &along_z), 0.002));
        // 8 mm past the block's face along the tunnel and 1 mm past the room across.
        assert!(close(off([0.058, 0.006, 0.0], &along_x), 0.008_f64.hypot(0.001)));
        assert!(close(off([0.0, 0.0, -0.05], &along_z), 0.0));
    }

    #[test]
    fn a_move_is_whole_cycles_of_at_most_five_percent_over_the_longest_step() {
        let close = |a: (f64, u32, bool), b: (f64, u32, bool)| (a.0 - b.0).abs() < 1e-12 && a.1 == b.1 && a.2 == b.2;
        assert!(close(crawl_of(0.1), (0.025, 4, false)));
        assert!(close(crawl_of(0.103), (0.02575, 4, false)), "a few mm of shortfall keep two cycles");
        assert!(close(crawl_of(0.106), (0.106 / 6.0, 6, false)));
        assert!(close(crawl_of(-0.1), (0.025, 4, true)));
        assert!(close(crawl_of(0.001), (0.0005, 2, false)), "one cycle at least");
    }

    #[test]
    fn actions_without_motions_name_what_is_missing() {
        let action = |kind, to| Action { robot: 0, kind, from: Cell::new(1, 1, 1), to, partner: None };
        let x = Vector3::x();
        let missing = |kind, to, heading: &Vector3<f64>| motions_for(&action(kind, to), heading, 0.1, Lying::InTunnel, 0.025).unwrap_err();
        assert!(motions_for(&action(ActionKind::Move, Cell::new(2, 1, 1)), &x, 0.1, Lying::InTunnel, 0.025).is_ok());
        assert!(missing(ActionKind::Move, Cell::new(2, 1, 1), &Vector3::y()).contains("not lying along"));
        assert!(missing(ActionKind::Move, Cell::new(1, 1, 2), &x).contains("vertical tunnel"));
        assert!(missing(ActionKind::Move, Cell::new(1, 1, 0), &x).contains("other than from where a shift's push over ends"));
        assert!(missing(ActionKind::Move, Cell::new(1, 2, 1), &x).contains("no tunnel along y"));
        for (kind, named) in [(ActionKind::PutDown, "a put down other than onto the floor"), (ActionKind::CoopLift, "two-robot lift")] {
            assert!(missing(kind, Cell::new(2, 1, 2), &x).contains(named), "{kind}");
        }
        // A shift from a tunnel (not right after a lift) and one not along x.
        assert!(missing(ActionKind::Shift, Cell::new(2, 1, 1), &x).contains("only from the U a lift ends in"));
        assert!(missing(ActionKind::Shift, Cell::new(1, 2, 1), &x).contains("other than along the x tunnel"));
    }

    #[test]
    fn the_put_down_after_a_shift_is_route_z_led_by_the_upper_head_and_from_elsewhere_names_what_is_missing() {
        // Task 1: A shifted onto C at (2, 0, 1), put down onto (3, 0, 0); B is at (1, 0, 0),
        // the rear head on top after the push over.
        let put_down = Action { robot: 0, kind: ActionKind::PutDown, from: Cell::new(2, 0, 1), to: Cell::new(3, 0, 0), partner: None };
        let pushed = Lying::PushedOver { upper: Head::Rear, towards: 1 };
        let stages = motions_for(&put_down, &Vector3::x(), 0.0, pushed, 0.025).expect("task 1's put down");
        let chain = |upper: Head, under: Cell, towards: isize| {
            vec![
                Stage::Run(Motion::DownTurn { lead: upper, flipped: true }),
                Stage::Run(Motion::FollowDown { lead: upper, flipped: true }),
                Stage::CrawlPast { cell: under, ahead: PUT_DOWN_AHEAD, towards },
                Stage::Run(Motion::SetDown),
                Stage::Run(Motion::StepOut { lead: upper }),
                Stage::Run(Motion::EnterU { lead: upper }),
                Stage::Release { holder: other_head(upper) },
                Stage::Run(Motion::PutDown { lead: upper }),
            ]
        };
        assert_eq!(stages, chain(Head::Rear, Cell::new(1, 0, 0), 1));
        // The contracted mole's upper head 29 mm past B's crossing after the crawl.
        assert!((PUT_DOWN_AHEAD - 2.0 * LEVER - 0.029).abs() < 1e-12);
        // Every motion at the lift's passes but the crawl (measured when reached) and the set
        // down, at the crawls'.
        let passes: Vec<Option<usize>> = stages.iter().filter_map(Stage::motion).map(|m| solver_passes(&m)).collect();
        let lift = Some(LIFT_SOLVER_ITERATIONS);
        assert_eq!(passes, [lift, lift, None, lift, lift, lift]);
        // The mirror image (tasks 2 and 3, towards -x): the front head on top.
        let west = Action { from: Cell::new(1, 0, 1), to: Cell::new(0, 0, 0), ..put_down };
        let pushed_west = Lying::PushedOver { upper: Head::Front, towards: -1 };
        let mirrored = motions_for(&west, &Vector3::x(), 0.0, pushed_west, 0.025).expect("mirrored");
        assert_eq!(mirrored, chain(Head::Front, Cell::new(2, 0, 0), -1));
        // From a tunnel or from a lift's U it is not built, and says so.
        let refused = |lying| motions_for(&put_down, &Vector3::x(), 0.0, lying, 0.025).unwrap_err();
        assert!(refused(Lying::InTunnel).contains("only right after"));
        assert!(refused(Lying::Lifted(LiftU { lead: Head::Front, towards: 1 })).contains("from the U a lift ends in"));
        // Nor back towards where the shift came from.
        let back = motions_for(&west, &Vector3::x(), 0.0, pushed, 0.025).unwrap_err();
        assert!(back.contains("back towards where the shift came from"), "{back}");
    }

    #[test]
    fn a_shift_again_after_a_push_over_is_route_z_down_then_the_shifts_chain_one_cell_on() {
        // Task 2: A shifted from (2, 0, 1) onto C to (1, 0, 1) by the front head (the mirrored
        // chain), then on to (0, 0, 1): route Z down into C's and B's x tunnels, then the crawl
        // to 60 mm past C's crossing towards -x, the front head (trailing after route Z) turning
        // up into it and following up into A, A freed, the flipped push over.
        let again = Action { robot: 0, kind: ActionKind::Shift, from: Cell::new(1, 0, 1), to: Cell::new(0, 0, 1), partner: None };
        let pushed = Lying::PushedOver { upper: Head::Front, towards: -1 };
        let stages = motions_for(&again, &Vector3::x(), 0.0, pushed, 0.025).expect("task 2's second shift");
        let chain = |up: Head, under: Cell, towards: isize| {
            vec![
                Stage::Run(Motion::DownTurn { lead: up, flipped: true }),
                Stage::Run(Motion::FollowDown { lead: up, flipped: true }),
                Stage::CrawlPast { cell: under, ahead: SHIFT_TURN_AHEAD, towards },
                Stage::TurnUpAt { cell: under, lead: up },
                Stage::Run(Motion::Follow { lead: up }),
                Stage::Hold(SHIFT_SETTLE_BEFORE_PUSH_OVER),
                Stage::Release { holder: up },
                Stage::Run(Motion::PushOver { lead: up, flipped: true }),
            ]
        };
        assert_eq!(stages, chain(Head::Front, Cell::new(1, 0, 0), -1));
        // Route Z and the follow at the lift's passes, the push over at its own.
        let passes: Vec<Option<usize>> = stages.iter().filter_map(Stage::motion).map(|m| solver_passes(&m)).collect();
        let lift = Some(LIFT_SOLVER_ITERATIONS);
        assert_eq!(passes, [lift, lift, lift, Some(PUSH_SOLVER_ITERATIONS)]);
        // Task 1's direction: the rear head on top after its push over.
        let east = Action { from: Cell::new(2, 0, 1), to: Cell::new(3, 0, 1), ..again };
        let stages = motions_for(&east, &Vector3::x(), 0.0, Lying::PushedOver { upper: Head::Rear, towards: 1 }, 0.025).expect("east");
        assert_eq!(stages, chain(Head::Rear, Cell::new(2, 0, 0), 1));
        // Back against the last shift's direction: not built, and says so.
        let back = motions_for(&east, &Vector3::x(), 0.0, pushed, 0.025).unwrap_err();
        assert!(back.contains("against the last shift's direction"), "{back}");
    }

    #[test]
    fn the_move_down_after_a_push_over_is_route_z_then_a_crawl_to_the_cell_under_the_shifted_block() {
        // Task 3 with one robot: A pushed over onto (1, 0, 1) towards -x, the front head on
        // top; the robot moves down into (1, 0, 0).
        let down = Action { robot: 0, kind: ActionKind::Move, from: Cell::new(1, 0, 1), to: Cell::new(1, 0, 0), partner: None };
        let pushed = Lying::PushedOver { upper: Head::Front, towards: -1 };
        let stages = motions_for(&down, &Vector3::x(), 0.0, pushed, 0.025).expect("the move down");
        assert_eq!(
            stages,
            [
                Stage::Run(Motion::DownTurn { lead: Head::Front, flipped: true }),
                Stage::Run(Motion::FollowDown { lead: Head::Front, flipped: true }),
                Stage::CrawlPast { cell: Cell::new(1, 0, 0), ahead: 0.0, towards: -1 },
            ]
        );
        // Along the top or up from there: not built.
        let along = motions_for(&Action { to: Cell::new(0, 0, 1), ..down }, &Vector3::x(), 0.0, pushed, 0.025).unwrap_err();
        assert!(along.contains("a move along x from a lift's U or a push over's end"), "{along}");
        let up = motions_for(&Action { to: Cell::new(1, 0, 2), ..down }, &Vector3::x(), 0.0, pushed, 0.025).unwrap_err();
        assert!(up.contains("a move up"), "{up}");
    }

    #[test]
    fn the_shift_after_a_lift_is_task_1s_measured_chain_or_its_mirror_image_with_every_lead_swapped() {
        // Task 1: A lifted onto B at (1, 0, 1), shifted onto C to (2, 0, 1); B is at (1, 0, 0).
        let shift = Action { robot: 0, kind: ActionKind::Shift, from: Cell::new(1, 0, 1), to: Cell::new(2, 0, 1), partner: None };
        let lift = LiftU { lead: Head::Front, towards: 1 };
        let stages = motions_for(&shift, &Vector3::x(), 0.0, Lying::Lifted(lift), 0.025).expect("the shift after task 1's lift");
        let under = Cell::new(1, 0, 0);
        assert_eq!(
            stages,
            vec![
                Stage::Run(Motion::LeaveU { lead: Head::Front }),
                Stage::Run(Motion::StepIn { lead: Head::Front }),
                Stage::CrawlPast { cell: under, ahead: SHIFT_TURN_AHEAD, towards: 1 },
                Stage::TurnUpAt { cell: under, lead: Head::Rear },
                Stage::Run(Motion::Follow { lead: Head::Rear }),
                Stage::Hold(SHIFT_SETTLE_BEFORE_PUSH_OVER),
                Stage::Release { holder: Head::Rear },
                Stage::Run(Motion::PushOver { lead: Head::Rear, flipped: true }),
            ]
        );
        // Each motion at the passes the chain was measured at (molemod_shift_chain).
        let passes: Vec<Option<usize>> = stages.iter().filter_map(Stage::motion).map(|m| solver_passes(&m)).collect();
        assert_eq!(passes, [Some(512), Some(512), Some(512), Some(1024)]);
        assert_eq!(solver_passes(&Motion::TurnUp { ahead: 0.06, lead: Head::Rear }), Some(64));
        // The mirror image (task 2: A lifted from (3, 0, 0) onto B at (2, 0, 1) by the rear
        // head, the robot heading +x, shifted onto C to (1, 0, 1)): every lead swapped, the
        // crawl towards -x.
        let west = Action { from: Cell::new(2, 0, 1), to: Cell::new(1, 0, 1), ..shift };
        let behind = LiftU { lead: Head::Rear, towards: -1 };
        let mirrored = motions_for(&west, &Vector3::x(), 0.0, Lying::Lifted(behind), 0.025).expect("the shift after task 2's lift");
        let under = Cell::new(2, 0, 0);
        assert_eq!(
            mirrored,
            vec![
                Stage::Run(Motion::LeaveU { lead: Head::Rear }),
                Stage::Run(Motion::StepIn { lead: Head::Rear }),
                Stage::CrawlPast { cell: under, ahead: SHIFT_TURN_AHEAD, towards: -1 },
                Stage::TurnUpAt { cell: under, lead: Head::Front },
                Stage::Run(Motion::Follow { lead: Head::Front }),
                Stage::Hold(SHIFT_SETTLE_BEFORE_PUSH_OVER),
                Stage::Release { holder: Head::Front },
                Stage::Run(Motion::PushOver { lead: Head::Front, flipped: true }),
            ]
        );
        // Still refused: a shift back over the lift's own cell, and one from a tunnel.
        let back = motions_for(&west, &Vector3::x(), 0.0, Lying::Lifted(lift), 0.025).unwrap_err();
        assert!(back.contains("back over the lift's own cell"), "{back}");
        let east = Action { from: Cell::new(2, 0, 1), to: Cell::new(3, 0, 1), ..shift };
        let back = motions_for(&east, &Vector3::x(), 0.0, Lying::Lifted(behind), 0.025).unwrap_err();
        assert!(back.contains("back over the lift's own cell"), "{back}");
        let from_a_tunnel = motions_for(&west, &Vector3::x(), 0.0, Lying::InTunnel, 0.025).unwrap_err();
        assert!(from_a_tunnel.contains("only from the U a lift ends in"), "{from_a_tunnel}");
    }

    /// A contracted mole lying along x with its body at (`x`, 0, `z`) (m): its three main
    /// cubes' boxes, 56 mm apart.
    fn lying_along_x(x: f64, z: f64) -> Vec<(String, Span)> {
        let cube = |name: &str, at: f64| {
            (name.to_owned(), Span::new(Vector3::new(at - 0.02, -0.02, z - 0.02), Vector3::new(at + 0.02, 0.02, z + 0.02)))
        };
        vec![cube("head_rear", x - 0.056), cube("base_link", x), cube("head_front", x + 0.056)]
    }

    /// Task 2 with two robots (`molemod_plan config/molemod/task2.yaml`): robot 1 rests in
    /// the block at (0, 0, 0), its front head 26 mm into C = (1, 0, 0) (x 36..76 mm: the
    /// cubes' centres at rest 45.1 mm up, measured); robot 0's shift from A's cell (2, 0, 1)
    /// onto C crawls its rear head to x = 64 mm (the body 60 mm past B's crossing): 12 mm
    /// into robot 1's head, and 4 mm at the turn up's least approach (52 mm past).
    #[test]
    fn a_step_reaching_into_another_robot_is_refused_naming_both_the_cell_and_the_overlap() {
        let size = BlockOptions::default().size;
        let robot_1 = lying_along_x(0.0, 0.0451);
        // Robot 0 where leaving the U puts it (measured: the body at x = 274 mm, the rear head
        // in B's tunnel at 218 mm).
        let robot_0 = lying_along_x(0.2741, 0.045);
        assert_eq!(crowding(&[None, None], &[robot_0.clone(), robot_1.clone()]), None, "apart as they lie");
        let shift = Action { robot: 0, kind: ActionKind::Shift, from: Cell::new(2, 0, 1), to: Cell::new(1, 0, 1), partner: None };
        let stages =
            motions_for(&shift, &Vector3::x(), 0.0, Lying::Lifted(LiftU { lead: Head::Rear, towards: -1 }), 0.025).expect("the shift");
        let reach = reach_of(&shift, &stages, &robot_0, &Vector3::x(), size);
        let crowded = crowding(&[Some(reach), None], &[robot_0.clone(), robot_1.clone()]).expect("robot 0 reaches into robot 1");
        assert_eq!((crowded.robot, crowded.other, crowded.link.as_str()), (0, 1, "head_front"));
        assert!(crowded.reach.contains("60 mm past the crossing of (2, 0, 0)"), "{}", crowded.reach);
        assert!((crowded.shared.depth() - 0.012).abs() < 1e-9, "{:?}", crowded.shared);
        assert_eq!(cell_at(&crowded.shared.centre(), size), Some(Cell::new(1, 0, 0)));
        // The least approach the turn up takes (52 mm) still reaches 4 mm into it.
        let least = [Stage::CrawlPast { cell: Cell::new(2, 0, 0), ahead: 0.052, towards: -1 }];
        let crowded = crowding(&[Some(reach_of(&shift, &least, &robot_0, &Vector3::x(), size)), None], &[robot_0.clone(), robot_1.clone()]);
        assert!(crowded.is_some_and(|c| (c.shared.depth() - 0.004).abs() < 1e-9));
        // The report names both robots, the cell and the overlap.
        let failure = Failure {
            step: 1,
            robot: Some(0),
            action: Some(shift),
            motion: None,
            kind: FailureKind::Crowded {
                other: 1,
                reach: "contracted length crawled to 60 mm past the crossing of (2, 0, 0)".into(),
                link: "head_front".into(),
                cell: Some(Cell::new(1, 0, 0)),
                overlap: 0.012,
            },
            time: 17.0,
        };
        let report = failure.to_string();
        assert!(
            report.contains("robot 0's contracted length") && report.contains("12.0 mm into robot 1's head_front in (1, 0, 0)"),
            "{report}"
        );
        assert_eq!(failure.off(), Some((12.0, "mm")));
    }

    /// Task 2's third step, robot 1's move from (0, 0, 0) into C = (1, 0, 0) under A, beside
    /// robot 0 after its shift: robot 1's front head reaches x = 176 mm, 26 mm into B = (2, 0,
    /// 0). Robot 0's lower (rear) head stands in B's vertical tunnel; where the mirrored
    /// chain's push over left it (`molemod_shift_chain`, docs/molemod_execution.md "The
    /// mirrored lift and shift in one run": 3.7 mm from B's centre away from C, 15.8 mm below
    /// it) its box starts at x = 183.7 mm, 7.7 mm clear. Robots crawling one behind the other, and two lying in
    /// neighbouring cells (each 26 mm into the other's cell: the front head of the one 28 mm
    /// into the rear head of the other).
    #[test]
    fn a_move_is_checked_by_its_sweep_and_robots_moving_together_by_where_they_lie() {
        let size = BlockOptions::default().size;
        let lower_head = ("head_rear".to_owned(), Span::new(Vector3::new(0.1837, -0.02, 0.0142), Vector3::new(0.2237, 0.02, 0.0542)));
        let robot_0 = vec![lower_head];
        let robot_1 = lying_along_x(0.0, 0.0451);
        let moved = Action { robot: 1, kind: ActionKind::Move, from: Cell::new(0, 0, 0), to: Cell::new(1, 0, 0), partner: None };
        let stages = motions_for(&moved, &Vector3::x(), 0.1, Lying::InTunnel, 0.025).expect("a move");
        let reach = reach_of(&moved, &stages, &robot_1, &Vector3::x(), size);
        let front = reach.iter().filter(|(what, _)| what.starts_with("head_front swept")).map(|(_, s)| s.max.x).fold(0.0, f64::max);
        assert!((front - 0.176).abs() < 1e-9, "{front}");
        assert_eq!(crowding(&[None, Some(reach.clone())], &[robot_0.clone(), robot_1.clone()]), None);
        // 8 mm farther, the front head would reach 0.3 mm into it.
        let farther = motions_for(&moved, &Vector3::x(), 0.108, Lying::InTunnel, 0.025).expect("a move");
        let crowded = crowding(&[None, Some(reach_of(&moved, &farther, &robot_1, &Vector3::x(), size))], &[robot_0, robot_1.clone()]);
        assert!(crowded.is_some_and(|c| c.robot == 1 && c.other == 0 && (c.shared.depth() - 0.0003).abs() < 1e-9));
        // Two robots three cells apart crawling on together: apart where they lie.
        let ahead = lying_along_x(0.3, 0.0451);
        let next = Action { robot: 1, from: Cell::new(3, 0, 0), to: Cell::new(4, 0, 0), ..moved };
        let reach_ahead =
            reach_of(&next, &motions_for(&next, &Vector3::x(), 0.1, Lying::InTunnel, 0.025).expect("a move"), &ahead, &Vector3::x(), size);
        assert_eq!(crowding(&[Some(reach), Some(reach_ahead)], &[robot_1.clone(), ahead]), None);
        // Lying centred in neighbouring cells (task 3's robots 0 and 1 at the start), whether
        // they act or not.
        let beside = lying_along_x(0.1, 0.0451);
        let back = Action { robot: 0, to: Cell::new(0, 0, 0), from: Cell::new(1, 0, 0), ..moved };
        let away = reach_of(
            &back,
            &motions_for(&back, &Vector3::x(), -0.1, Lying::InTunnel, 0.025).expect("a move"),
            &robot_1,
            &Vector3::x(),
            size,
        );
        let moving = crowding(&[Some(away), None], &[robot_1.clone(), beside.clone()]).expect("in each other");
        assert_eq!(moving.reach, "head_front where it lies", "not the sweep, deeper but moving away");
        let crowded = crowding(&[None, None], &[robot_1, beside]).expect("in each other");
        assert_eq!(
            (crowded.robot, crowded.other, crowded.reach.as_str(), crowded.link.as_str()),
            (0, 1, "head_front where it lies", "head_rear")
        );
        assert!((crowded.shared.depth() - 0.028).abs() < 1e-9, "{:?}", crowded.shared);
    }

    #[test]
    fn a_lift_is_a_crawl_to_the_holding_heads_grip_then_the_lift_onto_led_by_the_head_towards_the_neighbour() {
        let lift = |from, to| Action { robot: 0, kind: ActionKind::Lift, from, to, partner: None };
        // Task 1's lift: the rear head 74 mm short of its grip, two crawl cycles of 18.5 mm.
        let stages =
            motions_for(&lift(Cell::new(0, 0, 0), Cell::new(1, 0, 1)), &Vector3::x(), 0.074, Lying::InTunnel, 0.025).expect("a lift");
        assert_eq!(stages.len(), 3, "{stages:?}");
        assert!(matches!(stages[0], Stage::Run(Motion::Crawl { step, iterations: 4, backward: false }) if (step - 0.0185).abs() < 1e-12));
        // The rear head holds A: the executor frees A and notes the grip before the lift.
        assert_eq!(stages[1], Stage::Release { holder: Head::Rear });
        assert_eq!(stages[2], Stage::Run(Motion::LiftOnto { lead: Head::Front }));
        // Towards -x, the robot heading -x.
        let west =
            motions_for(&lift(Cell::new(2, 0, 0), Cell::new(1, 0, 1)), &-Vector3::x(), 0.074, Lying::InTunnel, 0.025).expect("a lift");
        assert_eq!(west[2], Stage::Run(Motion::LiftOnto { lead: Head::Front }));
        // Task 2's lift, onto the neighbour behind the robot: the front head crawls back 74
        // mm to its grip in A (a backward crawl), then the lift with the rear head leading.
        let behind =
            motions_for(&lift(Cell::new(3, 0, 0), Cell::new(2, 0, 1)), &Vector3::x(), -0.074, Lying::InTunnel, 0.025).expect("a lift");
        assert!(matches!(behind[0], Stage::Run(Motion::Crawl { step, iterations: 4, backward: true }) if (step - 0.0185).abs() < 1e-12));
        assert_eq!(behind[1], Stage::Release { holder: Head::Front });
        assert_eq!(behind[2], Stage::Run(Motion::LiftOnto { lead: Head::Rear }));
        assert_eq!(lift_lead(&-Vector3::x(), 1), Some(Head::Rear));
        assert_eq!(Holder::of(Head::Rear).link(), "head_front");
        assert_eq!(Holder::of(Head::Front).link(), "head_rear");
        // Across the tunnel: no head leads along x.
        let refused = motions_for(&lift(Cell::new(0, 0, 0), Cell::new(1, 0, 1)), &Vector3::y(), 0.074, Lying::InTunnel, 0.025).unwrap_err();
        assert!(refused.contains("not lying along the x tunnel"), "{refused}");
        // Only onto the top of a neighbour along x.
        for to in [Cell::new(2, 0, 1), Cell::new(0, 1, 1), Cell::new(1, 0, 0)] {
            let refused = motions_for(&lift(Cell::new(0, 0, 0), to), &Vector3::x(), 0.074, Lying::InTunnel, 0.025).unwrap_err();
            assert!(refused.contains("other than onto the top"), "{to}: {refused}");
        }
        // The lift runs at the block-moving solver passes, the crawl at the world's.
        let motions: Vec<Motion> = stages.iter().filter_map(Stage::motion).collect();
        assert_eq!(solver_passes(&motions[1]), Some(LIFT_SOLVER_ITERATIONS));
        assert_eq!(solver_passes(&motions[0]), None);
    }
}
