//! MoleMOD plans executed by the physics through ROS (`launch/molemod.launch.yaml`, the
//! `molemod_physics` node): the 3-D task 1, whose lift the physics runs and whose put down
//! after it the model cannot do yet, ends aborted after its first step with the executor's
//! report; the node then executes its own task
//! (moves1: one robot crawls two blocks) to success with feedback per step and motion,
//! the lattice reached equal to the goal, the joint states moving, every link and block on
//! `/tf`, and what rviz needs (`config/molemod.rviz`): the robot's latched URDF, whose
//! every link is a frame on `/tf` under the robot's prefix, and the blocks as cube markers
//! where `/tf` has them; Ctrl-C exits 0, and during a goal aborts it with a result the
//! client receives and the summary counts. A goal on the full 8 x 8 x 8 lattice cancelled
//! while its world is built ends cancelled at once and the node serves on. A missing task
//! file and `robots: 0` exit 2 with the reason.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use flotilla_e2e::{answered, repo_root, Domain, Launch, RosProbe};
use futures::{Stream, StreamExt};
use r2r::flotilla_msgs::action::ExecutePlan;
use r2r::sensor_msgs::msg::JointState;
use r2r::tf2_msgs::msg::TFMessage;
use r2r::visualization_msgs::msg::{Marker, MarkerArray};
use reconfig_planner::ros::{action_msgs, lattice_msg};
use tank_physics::systems::molemod::blocks::BlockOptions;
use tank_physics::systems::molemod::executor::plan_task;

/// Everything `stream` delivers from now on, collected in the background (the streams
/// must be read while the goal runs, not after).
fn gather<T: Send + 'static>(mut stream: impl Stream<Item = T> + Unpin + Send + 'static) -> Arc<Mutex<Vec<T>>> {
    let sink = Arc::new(Mutex::new(Vec::new()));
    let into = sink.clone();
    tokio::spawn(async move {
        while let Some(msg) = stream.next().await {
            into.lock().unwrap().push(msg);
        }
    });
    sink
}

/// x of `frame` in every `/tf` message that has it, m.
fn xs(tf: &[TFMessage], frame: &str) -> Vec<f64> {
    tf.iter().flat_map(|m| m.transforms.iter()).filter(|t| t.child_frame_id == frame).map(|t| t.transform.translation.x).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_run_on_the_physics_through_the_action_and_a_missing_motion_fails_with_a_report() {
    let mut probe = RosProbe::new("probe_molemod").unwrap();
    let goals = probe.with_node(|n| n.create_action_client::<ExecutePlan::Action>("/molemod_physics/execute")).unwrap();
    let ready = probe.with_node(|_| r2r::Node::is_available(&goals)).unwrap();
    let joints = gather(probe.subscribe::<JointState>("/molemod/robot_0/joint_states").unwrap());
    let tf = gather(probe.subscribe::<TFMessage>("/tf").unwrap());
    let events = gather(probe.subscribe::<r2r::std_msgs::msg::String>("/molemod_physics/events").unwrap());
    let markers = gather(probe.subscribe::<MarkerArray>("/molemod_physics/markers").unwrap());
    let description = gather(probe.subscribe_latched::<r2r::std_msgs::msg::String>("/molemod/robot_0/robot_description").unwrap());
    probe.spin();
    let moves1 = repo_root().join("config/molemod/moves1.yaml");
    let task = format!("task:={}", moves1.display());
    let launch =
        Launch::start("launch/molemod.launch.yaml", &[&task, "robots:=1", "seed:=1", "real_time_factor:=0"], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(60), ready).await.unwrap_or_else(|_| panic!("no action:\n{}", launch.output())).unwrap();

    // 3-D task 1: the lift (task 2's, onto the neighbour behind the robot) runs, the put down
    // across to the other y layer from the lift's U fails with a report before the physics.
    // Tasks 1 and 2 run their shifts too (5-12 min, too long here).
    let lift_then_put_down = plan_task(&repo_root().join("config/molemod/task3d_1.yaml"), 1).unwrap();
    let actions = action_msgs(&lift_then_put_down.plan.steps);
    let goal = ExecutePlan::Goal { start: lattice_msg(&lift_then_put_down.request.start), actions, step_period: 0.0 };
    let (_handle, result, _feedback) = answered(goals.send_goal_request(goal).unwrap(), "the 3-D task 1 goal").await;
    let (status, result) = tokio::time::timeout(Duration::from_secs(300), result)
        .await
        .unwrap_or_else(|_| panic!("the 3-D task 1 goal did not end:\n{}", launch.output()))
        .unwrap();
    eprintln!("3-D task 1: {status:?}: {}", result.message);
    assert_eq!(status, r2r::GoalStatus::Aborted, "{}", result.message);
    assert!(!result.success);
    assert!(
        result.message.contains("the model cannot do this yet") && result.message.contains("from the U its lift ended in"),
        "{}",
        result.message
    );
    assert!(result.message.contains("robot 0 put_down"), "the report names the robot and its action: {}", result.message);
    assert_eq!(result.steps_done, 1, "the lift was executed and checked");

    // The node keeps serving: its own task (no actions in the goal) executes. What the
    // 3-D task 1 world published is dropped first.
    tokio::time::sleep(Duration::from_millis(500)).await;
    joints.lock().unwrap().clear();
    tf.lock().unwrap().clear();
    events.lock().unwrap().clear();
    markers.lock().unwrap().clear();
    let planned = plan_task(&moves1, 1).unwrap();
    let steps = planned.plan.steps.len();
    let goal = ExecutePlan::Goal::default();
    let (_handle, result, feedback) = answered(goals.send_goal_request(goal).unwrap(), "the moves1 goal").await;
    let feedback = gather(feedback);
    let (status, result) = tokio::time::timeout(Duration::from_secs(600), result)
        .await
        .unwrap_or_else(|_| panic!("moves1 did not end:\n{}", launch.output()))
        .unwrap();
    eprintln!("moves1: {status:?}: {}", result.message);
    assert_eq!(status, r2r::GoalStatus::Succeeded, "{}\n{}", result.message, launch.output());
    assert!(result.success);
    assert_eq!(result.steps_done as usize, steps);
    assert_eq!(result.final_, lattice_msg(&planned.request.goal), "the lattice reached is the goal");
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Feedback per step (start and check) and per motion (start and end).
    let feedback = feedback.lock().unwrap().clone();
    assert!(feedback.len() >= 4 * steps, "{} feedback messages for {steps} steps", feedback.len());
    assert_eq!(feedback.last().map(|f| (f.step, f.total)), Some((steps as u32, steps as u32)));
    // Typed per-motion feedback: robot 0's first crawl starts and ends in step 0.
    for event in ["motion_started", "motion_finished"] {
        let f = feedback.iter().find(|f| f.event == event).unwrap_or_else(|| panic!("no {event} feedback"));
        assert_eq!((f.step_index, f.robot, f.motion, f.motion_name.as_str()), (0, 0, 0, "crawl forward"), "{event}");
        assert!(f.action.starts_with("robot 0 move") && f.sim_time > 0.0, "{event}: {:?} at {} s", f.action, f.sim_time);
    }
    let checks: Vec<_> = feedback.iter().filter(|f| f.event == "step_checked").collect();
    assert_eq!(checks.len(), steps, "one check per step");
    assert!(checks.iter().all(|f| f.robot == -1 && f.block_error < 0.005 && f.robot_error < 0.005), "{checks:?}");
    assert_eq!(feedback.iter().filter(|f| f.event == "step_started").count(), steps);
    let lines: Vec<String> = events.lock().unwrap().iter().map(|m| m.data.clone()).collect();
    assert!(lines.iter().any(|l| l.contains("motion 0 (crawl forward) started")), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains("motion 0 (crawl forward) finished")), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains(&format!("step {} checked", steps - 1))), "{lines:#?}");

    // The joints move: a prismatic joint expands by at least 10 mm and contracts again.
    let joints = joints.lock().unwrap().clone();
    assert!(joints.len() > 20, "{} joint states", joints.len());
    let names = &joints[joints.len() - 1].name;
    assert!(!names.is_empty() && names.len() == joints[joints.len() - 1].position.len());
    let moved = (0..names.len())
        .filter(|&j| names[j].starts_with("prismatic"))
        .map(|j| {
            let p: Vec<f64> = joints.iter().filter_map(|m| m.position.get(j).copied()).collect();
            p.iter().copied().fold(f64::NEG_INFINITY, f64::max) - p.iter().copied().fold(f64::INFINITY, f64::min)
        })
        .fold(0.0, f64::max);
    assert!(moved > 0.010, "the prismatic joints moved by at most {moved} m");

    // /tf: the robot's body crawled two cells along x; every block is there.
    let tf = tf.lock().unwrap().clone();
    let body = xs(&tf, "molemod/robot_0/base_link");
    let (first, last) = (body.first().copied().unwrap_or(0.0), body.last().copied().unwrap_or(0.0));
    let two_cells = 2.0 * BlockOptions::default().size;
    assert!((last - first - two_cells).abs() < 0.01, "the body moved {} m along x, not {two_cells} m", last - first);
    for x in 0..5 {
        assert!(!xs(&tf, &format!("molemod/block_{x}_0_0")).is_empty(), "block {x} not on /tf");
    }
    // rviz's RobotModel: the latched URDF's every link is a frame under the robot's prefix.
    let urdf = description.lock().unwrap().last().map(|m| m.data.clone()).expect("no /molemod/robot_0/robot_description");
    let model = flotilla_common::models::parse_urdf(&urdf, std::path::Path::new("robot_description")).unwrap();
    assert!(model.links.len() >= 7, "{} links in the URDF", model.links.len());
    for link in &model.links {
        assert!(!xs(&tf, &format!("molemod/robot_0/{}", link.name)).is_empty(), "URDF link {} not on /tf", link.name);
    }
    // The blocks as cubes, where /tf puts them.
    let last = markers.lock().unwrap().last().cloned().expect("no /molemod_physics/markers");
    assert_eq!(last.markers.first().map(|m| m.action), Some(Marker::DELETEALL as i32));
    let cubes: Vec<&Marker> = last.markers.iter().filter(|m| m.type_ == Marker::CUBE as i32).collect();
    assert_eq!(cubes.len(), 5, "one cube per block");
    let block_xs: Vec<f64> = (0..5).filter_map(|x| xs(&tf, &format!("molemod/block_{x}_0_0")).last().copied()).collect();
    for cube in cubes {
        assert!((cube.scale.x - BlockOptions::default().size).abs() < 1e-9);
        assert!(block_xs.iter().any(|x| (x - cube.pose.position.x).abs() < 1e-6), "cube at x = {} is no block", cube.pose.position.x);
    }

    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
    assert!(output.contains("summary: 1 goals succeeded, 1 failed"), "{output}");
}

#[test]
fn bad_parameters_exit_2_with_the_reason() {
    let domain = Domain::reserve().unwrap();
    let moves1 = repo_root().join("config/molemod/moves1.yaml");
    let node = |body: String| format!("molemod_physics:\n  ros__parameters:\n{body}");
    let cases = [
        (node("    task: /nonexistent/task.yaml\n".into()), "task"),
        (node("    task: ''\n".into()), "a task file is required"),
        (node(format!("    task: {}\n    robots: 0\n", moves1.display())), "robots"),
    ];
    let cases: Vec<(&str, &str, &str)> = cases.iter().map(|(text, key)| ("molemod_physics", text.as_str(), *key)).collect();
    flotilla_e2e::assert_bad_parameters_refused(&domain, &cases);
}

/// Regression: Ctrl-C while a goal ran dropped it: the client never got a result, the
/// summary said `0 goals succeeded, 0 failed or cancelled, 0.00 s of sim time` and the
/// execution thread kept publishing on the released node (RCL_RET_PUBLISHER_INVALID
/// warnings after the summary). Now the goal stops at its next step, is aborted with the
/// reason and counted with its sim time before the node exits 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_during_a_goal_aborts_it_with_a_result_and_counts_it() {
    let mut probe = RosProbe::new("probe_molemod_sigint").unwrap();
    let goals = probe.with_node(|n| n.create_action_client::<ExecutePlan::Action>("/molemod_physics/execute")).unwrap();
    let ready = probe.with_node(|_| r2r::Node::is_available(&goals)).unwrap();
    probe.spin();
    // Real time: moves1's two crawls take about 11 s, so the goal is still running below.
    let launch = Launch::start("launch/molemod.launch.yaml", &["real_time_factor:=1"], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(60), ready).await.unwrap_or_else(|_| panic!("no action:\n{}", launch.output())).unwrap();
    let (_handle, result, feedback) = answered(goals.send_goal_request(ExecutePlan::Goal::default()).unwrap(), "the goal").await;
    let mut feedback = Box::pin(feedback);
    // Running: its first motion has started.
    let started = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(f) = feedback.next().await {
            if f.event == "motion_started" {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(started, Ok(true), "the goal did not start a motion:\n{}", launch.output());
    let (status, output) = tokio::task::block_in_place(|| launch.interrupt(Duration::from_secs(20))).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
    let (goal_status, result) = tokio::time::timeout(Duration::from_secs(10), result)
        .await
        .unwrap_or_else(|_| panic!("the client got no result for the goal the shutdown stopped:\n{output}"))
        .unwrap();
    assert_eq!(goal_status, r2r::GoalStatus::Aborted, "{}", result.message);
    assert!(!result.success && result.message.contains("shutting down"), "{}", result.message);
    assert!(output.contains("summary: 0 goals succeeded, 1 failed or cancelled"), "{output}");
    assert!(!output.contains("0.00 s of sim time executed"), "the stopped goal's sim time is not counted:\n{output}");
    let summary_at = output.find("summary:").unwrap();
    assert!(!output[summary_at..].contains("PUBLISHER_INVALID"), "published after the node was released:\n{output}");
}

/// The full 8 x 8 x 8 lattice (512 blocks, the planner's largest) with one robot in the
/// corner block, and one step moving it along x: a world that takes seconds to build.
fn full_lattice_goal() -> ExecutePlan::Goal {
    use reconfig_planner::{Action, ActionKind, Cell, Dims, Lattice};
    let dims = Dims::new(8, 8, 8);
    let cells: Vec<Cell> = (0..dims.cell_count()).map(|i| Cell::new(i % 8, (i / 8) % 8, i / 64)).collect();
    let start = Lattice::new(dims).unwrap().with_blocks(cells).unwrap().with_robot(Cell::new(0, 0, 0)).unwrap();
    let step = vec![Action { robot: 0, kind: ActionKind::Move, from: Cell::new(0, 0, 0), to: Cell::new(1, 0, 0), partner: None }];
    ExecutePlan::Goal { start: lattice_msg(&start), actions: action_msgs(&[step]), step_period: 0.0 }
}

/// Regression: a goal cancelled while its world was being built (the 8 x 8 x 8 lattice:
/// 11-25 s on the 2-core machine) was answered only once the build and settle were done
/// (20.6-22.7 s after the cancel), as cancellation was checked per physics step of the
/// plan only. Now the build checks it
/// between blocks, robots and settle steps: the goal ends cancelled from the build, with
/// a result, and the node serves the next goal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_goal_cancelled_while_its_world_is_built_ends_cancelled_and_the_node_serves_on() {
    let mut probe = RosProbe::new("probe_molemod_cancel_build").unwrap();
    let goals = probe.with_node(|n| n.create_action_client::<ExecutePlan::Action>("/molemod_physics/execute")).unwrap();
    let ready = probe.with_node(|_| r2r::Node::is_available(&goals)).unwrap();
    probe.spin();
    let launch = Launch::start("launch/molemod.launch.yaml", &["real_time_factor:=0"], &probe.domain).unwrap();
    tokio::time::timeout(Duration::from_secs(60), ready).await.unwrap_or_else(|_| panic!("no action:\n{}", launch.output())).unwrap();
    let (handle, result, _feedback) = answered(goals.send_goal_request(full_lattice_goal()).unwrap(), "the 8 x 8 x 8 goal").await;
    // Well inside the build (no feedback comes before the world stands).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let asked = std::time::Instant::now();
    answered(handle.cancel().unwrap(), "the cancel request").await;
    let (status, result) = tokio::time::timeout(Duration::from_secs(120), result)
        .await
        .unwrap_or_else(|_| panic!("the cancelled goal did not end:\n{}", launch.output()))
        .unwrap();
    eprintln!("cancel latency (request to result) {:.3} s: {status:?}: {}", asked.elapsed().as_secs_f64(), result.message);
    assert_eq!(status, r2r::GoalStatus::Canceled, "{}", result.message);
    assert!(!result.success && result.steps_done == 0);
    assert!(result.message.contains("while its world was being built"), "not cancelled in the build: {}", result.message);

    // Still serving: its own plan (moves1) succeeds.
    let (_handle, result, _feedback) = answered(goals.send_goal_request(ExecutePlan::Goal::default()).unwrap(), "the moves1 goal").await;
    let (status, result) = tokio::time::timeout(Duration::from_secs(300), result)
        .await
        .unwrap_or_else(|_| panic!("moves1 did not end:\n{}", launch.output()))
        .unwrap();
    assert_eq!(status, r2r::GoalStatus::Succeeded, "{}", result.message);
    let (status, output) = launch.interrupt(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "exit {status:?}:\n{output}");
    assert!(output.contains("summary: 1 goals succeeded, 1 failed or cancelled"), "{output}");
}
