//! Running the processes of a launch plan: start, watch, respawn, forward SIGINT/SIGTERM,
//! shut down with a timeout, then report.
//!
//! Each child runs in its own process group, so a Ctrl-C in the terminal reaches only the
//! launcher, which forwards exactly one signal to every child's whole group (shell scripts
//! and their children included). Children are polled with `try_wait`, so a pid is only ever
//! signalled while it is still ours (not yet reaped).

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use flotilla_launch::supervision::{after_exit, launch_exit_code, signal_name, AfterExit, ProcessRecord, Termination};
use flotilla_launch::ProcessSpec;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;
use tracing::{info, warn};

use crate::output::{pump, routes, LogDir};

/// How often children are polled.
const POLL: Duration = Duration::from_millis(20);
/// How long to wait for a finished child's last output lines before reporting its exit.
const OUTPUT_DRAIN: Duration = Duration::from_millis(200);

/// Settings of a run.
pub struct Settings {
    /// After a shutdown signal, how long children get before SIGKILL.
    pub shutdown_timeout: Duration,
}

/// A process to run, with its final argument list.
pub struct Prepared {
    /// What to run.
    pub spec: ProcessSpec,
    /// Its arguments, parameter files written.
    pub args: Vec<String>,
}

enum State {
    Running { child: Child, started: Instant, readers: Vec<JoinHandle<()>> },
    WaitingRespawn { at: Instant },
    Done,
}

struct Slot {
    prepared: Prepared,
    record: ProcessRecord,
    state: State,
}

/// Starts signal reception. Call before starting children, so that an early Ctrl-C is
/// forwarded rather than killing the launcher alone.
pub fn listen_for_signals() -> std::io::Result<Receiver<i32>> {
    let mut signals = Signals::new([SIGINT, SIGTERM])?;
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        for signal in signals.forever() {
            if tx.send(signal).is_err() {
                break;
            }
        }
    })?;
    Ok(rx)
}

/// Runs `processes` until they have all ended; returns the launcher's exit code.
pub fn run(processes: Vec<Prepared>, signals: Receiver<i32>, logs: Option<&LogDir>, settings: &Settings) -> i32 {
    let mut slots: Vec<Slot> = processes
        .into_iter()
        .map(|prepared| Slot {
            record: ProcessRecord::new(prepared.spec.label.clone(), prepared.spec.required),
            prepared,
            state: State::Done,
        })
        .collect();
    let mut shutdown: Option<Shutdown> = None;
    for i in 0..slots.len() {
        if !start(&mut slots[i], logs) {
            shutdown = Some(Shutdown::begin(&mut slots, Signal::SIGINT, settings, "a process could not start"));
            break;
        }
    }

    loop {
        match signals.recv_timeout(POLL) {
            Ok(raw) => {
                let signal = Signal::try_from(raw).unwrap_or(Signal::SIGTERM);
                match &mut shutdown {
                    None => {
                        let reason = format!("{} received", signal_name(raw));
                        shutdown = Some(Shutdown::begin(&mut slots, signal, settings, &reason));
                    }
                    Some(s) => s.kill_all(&mut slots, "second signal received"),
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            // The signal thread is gone: keep supervising without it.
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(POLL),
        }

        let mut required_ended: Option<String> = None;
        for slot in &mut slots {
            if let Some(next) = reap(slot, shutdown.is_some()) {
                match next {
                    AfterExit::Shutdown => required_ended = Some(slot.record.label.clone()),
                    AfterExit::Respawn(delay) => {
                        info!(process = %slot.record.label, delay_s = delay.as_secs_f64(), "respawning '{}' in {:.1} s", slot.record.label, delay.as_secs_f64());
                        slot.state = State::WaitingRespawn { at: Instant::now() + delay };
                    }
                    AfterExit::Continue => {}
                }
            }
        }
        if let (Some(label), None) = (&required_ended, &shutdown) {
            let reason = format!("required process '{label}' ended");
            shutdown = Some(Shutdown::begin(&mut slots, Signal::SIGINT, settings, &reason));
        }

        let now = Instant::now();
        for i in 0..slots.len() {
            if let State::WaitingRespawn { at } = slots[i].state {
                if shutdown.is_some() {
                    slots[i].state = State::Done;
                } else if at <= now && !start(&mut slots[i], logs) {
                    shutdown = Some(Shutdown::begin(&mut slots, Signal::SIGINT, settings, "a process could not restart"));
                }
            }
        }

        if let Some(s) = &mut shutdown {
            if now >= s.deadline && !s.killed {
                s.kill_all(&mut slots, &format!("shutdown timeout of {:.1} s passed", settings.shutdown_timeout.as_secs_f64()));
            }
        }

        if slots.iter().all(|s| matches!(s.state, State::Done)) {
            break;
        }
    }

    let records: Vec<ProcessRecord> = slots.into_iter().map(|s| s.record).collect();
    info!("summary:");
    for record in &records {
        info!(process = %record.label, ok = record.ok(), "  {}", record.summary());
    }
    launch_exit_code(&records)
}

struct Shutdown {
    deadline: Instant,
    killed: bool,
}

impl Shutdown {
    /// Sends `signal` to every running process; the shutdown timeout starts now.
    fn begin(slots: &mut [Slot], signal: Signal, settings: &Settings, reason: &str) -> Self {
        info!(reason, signal = signal.as_str(), "shutting down ({reason}): sending {} to all processes", signal.as_str());
        for slot in slots {
            if let State::Running { child, .. } = &slot.state {
                send(child, signal);
                slot.record.signal_sent(signal as i32);
            }
        }
        Self { deadline: Instant::now() + settings.shutdown_timeout, killed: false }
    }

    fn kill_all(&mut self, slots: &mut [Slot], reason: &str) {
        self.killed = true;
        for slot in slots {
            if let State::Running { child, .. } = &slot.state {
                warn!(process = %slot.record.label, reason, "{reason}: sending SIGKILL to '{}'", slot.record.label);
                send(child, Signal::SIGKILL);
                slot.record.signal_sent(Signal::SIGKILL as i32);
                slot.record.killed_after_timeout = true;
            }
        }
    }
}

/// Signals the child's whole process group (the child leads it).
fn send(child: &Child, signal: Signal) {
    let Ok(pid) = i32::try_from(child.id()) else {
        return;
    };
    // ESRCH: the group is already gone, which is what we want anyway.
    let _ = killpg(Pid::from_raw(pid), signal);
}

/// Starts `slot`'s process; false (with the error recorded) if it could not be started.
fn start(slot: &mut Slot, logs: Option<&LogDir>) -> bool {
    let spec = &slot.prepared.spec;
    let mut command = Command::new(&spec.executable);
    command
        .args(&slot.prepared.args)
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    let spawned = command.spawn().and_then(|mut child| {
        let (out_route, err_route) = routes(spec.output, &spec.label, logs)?;
        let mut readers = Vec::with_capacity(2);
        if let Some(out) = child.stdout.take() {
            readers.push(pump(out, spec.label.clone(), out_route)?);
        }
        if let Some(err) = child.stderr.take() {
            readers.push(pump(err, spec.label.clone(), err_route)?);
        }
        Ok((child, readers))
    });
    match spawned {
        Ok((child, readers)) => {
            info!(process = %spec.label, pid = child.id(), "process '{}' started with pid {}", spec.label, child.id());
            slot.record.started();
            slot.state = State::Running { child, started: Instant::now(), readers };
            true
        }
        Err(e) => {
            warn!(process = %spec.label, error = %e, "process '{}' could not start: {e}", spec.label);
            slot.record.spawn_error = Some(e.to_string());
            slot.state = State::Done;
            false
        }
    }
}

/// Checks whether `slot`'s process has ended; if so records it and says what to do next.
fn reap(slot: &mut Slot, shutting_down: bool) -> Option<AfterExit> {
    let State::Running { child, started, readers } = &mut slot.state else {
        return None;
    };
    let status = match child.try_wait() {
        Ok(Some(status)) => status,
        Ok(None) => return None,
        Err(e) => {
            warn!(process = %slot.record.label, error = %e, "cannot wait for '{}': {e}", slot.record.label);
            return None;
        }
    };
    let ran = started.elapsed();
    let drain_until = Instant::now() + OUTPUT_DRAIN;
    while readers.iter().any(|r| !r.is_finished()) && Instant::now() < drain_until {
        std::thread::sleep(Duration::from_millis(5));
    }
    let termination = termination(status);
    slot.record.ended(termination, ran, shutting_down);
    info!(process = %slot.record.label, status = %termination, "process '{}' {termination}", slot.record.label);
    slot.state = State::Done;
    let spec = &slot.prepared.spec;
    Some(after_exit(spec.required, spec.respawn, spec.respawn_delay, shutting_down))
}

fn termination(status: ExitStatus) -> Termination {
    match (status.code(), status.signal()) {
        (Some(code), _) => Termination::Exited(code),
        (None, Some(signal)) => Termination::Signaled(signal),
        // Neither code nor signal does not happen for a reaped child on Unix.
        (None, None) => Termination::Exited(-1),
    }
}
