//! Regression test: a node that shut down cleanly but whose exit handlers hang (the DDS
//! middleware's, with a task stuck inside an rcl call) was killed by the launcher after
//! its summary, failing a clean Ctrl-C. `node_main` must still exit, with its own code.
//!
//! The test runs this binary again as the "node" (the ignored test [`node`] in a child
//! process whose exit handler never returns) and times it.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use flotilla_common::param_spec::NodeParams;
use flotilla_common::ros::node_main;

extern "C" fn hang_forever() {
    loop {
        std::thread::sleep(Duration::from_secs(60));
    }
}

/// The "node" (run by [`a_hung_exit_handler_does_not_keep_a_stopped_node_alive`]): a task
/// blocked past the runtime's shutdown, an exit handler that hangs.
#[test]
#[ignore = "the child process of a_hung_exit_handler_does_not_keep_a_stopped_node_alive"]
fn node() {
    // SAFETY: registers a plain `extern "C"` function; it runs during `exit`.
    assert_eq!(unsafe { libc::atexit(hang_forever) }, 0);
    let code = node_main(
        "exit_guard_child",
        NodeParams { groups: &[], extras_live: false },
        |_| Ok(()),
        |_, ()| async {
            tokio::spawn(async { std::thread::sleep(Duration::from_secs(3600)) });
            tokio::task::yield_now().await;
            Ok("summary: stopped".to_owned())
        },
    );
    // As returning from `main` would: exit runs the exit handlers.
    std::process::exit(if code == std::process::ExitCode::SUCCESS { 0 } else { 1 });
}

#[test]
fn a_hung_exit_handler_does_not_keep_a_stopped_node_alive() {
    let exe = std::env::current_exe().expect("own path");
    let started = Instant::now();
    let mut node = Command::new(exe)
        .args(["node", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the child");
    let deadline = Duration::from_secs(20);
    let status = loop {
        if let Some(status) = node.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = node.kill();
            panic!("the node did not exit within {deadline:?} of its summary (exit handlers hung)");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr = std::io::read_to_string(node.stderr.take().expect("piped")).unwrap_or_default();
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "exit after {took:?}; stderr:\n{stderr}");
    assert!(stderr.contains("summary: stopped") && stderr.contains("without them"), "stderr:\n{stderr}");
}
