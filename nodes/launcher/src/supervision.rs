//! The supervision policy, free of processes and signals: what an exit means, what to do
//! after it, and the launcher's exit code.

use std::fmt;
use std::time::Duration;

/// Exit code: every process ended cleanly.
pub const EXIT_OK: i32 = 0;
/// Exit code: a process failed (non-zero exit, unexpected signal, could not start, or had
/// to be killed after the shutdown timeout).
pub const EXIT_PROCESS_FAILED: i32 = 1;
/// Exit code: the launch file or its arguments are invalid (nothing was started), or a
/// node refused the configuration they gave it (it exited with this code, the nodes'
/// convention for a bad configuration).
pub const EXIT_LAUNCH_ERROR: i32 = 2;

/// How a process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// It exited with this code.
    Exited(i32),
    /// It was killed by this signal number.
    Signaled(i32),
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exited(code) => write!(f, "exited with code {code}"),
            Self::Signaled(signal) => write!(f, "killed by signal {}", signal_name(*signal)),
        }
    }
}

/// `SIGINT` for 2, and so on; `signal N` for the uncommon ones.
pub fn signal_name(signal: i32) -> String {
    let name = match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return format!("signal {signal}"),
    };
    name.to_owned()
}

/// A clean end: exit code 0, or death by the signal the launcher itself sent.
pub fn is_clean(termination: Termination, sent_signal: Option<i32>) -> bool {
    match termination {
        Termination::Exited(code) => code == 0,
        Termination::Signaled(signal) => sent_signal == Some(signal),
    }
}

/// What the launcher does once a process has ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AfterExit {
    /// The process was required (`on_exit: shutdown`): stop everything.
    Shutdown,
    /// Start it again after this delay.
    Respawn(Duration),
    /// Nothing; the others go on.
    Continue,
}

/// The decision for a process that ended while the launch was `shutting_down` or not.
/// `respawn_delay` is in seconds.
pub fn after_exit(required: bool, respawn: bool, respawn_delay: f64, shutting_down: bool) -> AfterExit {
    if shutting_down {
        AfterExit::Continue
    } else if required {
        AfterExit::Shutdown
    } else if respawn {
        AfterExit::Respawn(flotilla_common::duration::saturating(respawn_delay))
    } else {
        AfterExit::Continue
    }
}

/// What happened to one process over the whole launch.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessRecord {
    /// Its label.
    pub label: String,
    /// `on_exit: shutdown`.
    pub required: bool,
    /// Times it was started (respawns included).
    pub starts: u32,
    /// Total time it ran, over all starts (s).
    pub run_time: Duration,
    /// How its last run ended (`None` if it never ran or is still running).
    pub last: Option<Termination>,
    /// Whether the last run ended after the launcher started shutting down.
    pub ended_in_shutdown: bool,
    /// The first signal the launcher sent to its current run.
    pub sent_signal: Option<i32>,
    /// The launcher had to SIGKILL it after the shutdown timeout.
    pub killed_after_timeout: bool,
    /// Runs that ended uncleanly while the launch was running normally.
    pub failures: u32,
    /// Why it could not be started, if so.
    pub spawn_error: Option<String>,
    /// A run exited with [`EXIT_LAUNCH_ERROR`] while the launch was running normally: the
    /// node refused its configuration.
    pub refused_configuration: bool,
}

impl ProcessRecord {
    /// A process not started yet.
    pub fn new(label: impl Into<String>, required: bool) -> Self {
        Self {
            label: label.into(),
            required,
            starts: 0,
            run_time: Duration::ZERO,
            last: None,
            ended_in_shutdown: false,
            sent_signal: None,
            killed_after_timeout: false,
            failures: 0,
            spawn_error: None,
            refused_configuration: false,
        }
    }

    /// Notes a start.
    pub fn started(&mut self) {
        self.starts += 1;
        self.last = None;
        self.sent_signal = None;
        self.killed_after_timeout = false;
    }

    /// Notes a signal sent by the launcher to the current run (the first one counts).
    pub fn signal_sent(&mut self, signal: i32) {
        self.sent_signal.get_or_insert(signal);
    }

    /// Notes the end of the current run, which lasted `ran`.
    pub fn ended(&mut self, termination: Termination, ran: Duration, shutting_down: bool) {
        self.last = Some(termination);
        self.run_time += ran;
        self.ended_in_shutdown = shutting_down;
        if !shutting_down && !is_clean(termination, None) {
            self.failures += 1;
            self.refused_configuration |= termination == Termination::Exited(EXIT_LAUNCH_ERROR);
        }
    }

    /// True if nothing about this process makes the launch fail.
    pub fn ok(&self) -> bool {
        let last_ok = match self.last {
            Some(t) if self.ended_in_shutdown => !self.killed_after_timeout && is_clean(t, self.sent_signal),
            _ => true,
        };
        self.failures == 0 && self.spawn_error.is_none() && last_ok
    }

    /// One line for the end-of-launch summary.
    pub fn summary(&self) -> String {
        let status = match (&self.spawn_error, self.last) {
            (Some(e), _) => format!("failed to start: {e}"),
            (None, None) if self.starts == 0 => "not started".to_owned(),
            (None, None) => "never ended".to_owned(),
            (None, Some(t)) if self.killed_after_timeout => {
                format!("{t} (after the shutdown timeout)")
            }
            (None, Some(t @ Termination::Signaled(s))) if self.sent_signal == Some(s) => {
                format!("{t} (sent by the launcher)")
            }
            (None, Some(t)) => t.to_string(),
        };
        let mut line = format!("{}: {status}, ran {:.1} s", self.label, self.run_time.as_secs_f64());
        if self.starts > 1 {
            line.push_str(&format!(" over {} starts", self.starts));
        }
        if self.failures > 0 {
            line.push_str(&format!(", {} failed run(s)", self.failures));
        }
        if self.required {
            line.push_str(" [required]");
        }
        if !self.ok() {
            line.push_str(" FAILED");
        }
        line
    }
}

/// The launcher's exit code for these records.
pub fn launch_exit_code(records: &[ProcessRecord]) -> i32 {
    if records.iter().all(ProcessRecord::ok) {
        EXIT_OK
    } else if records.iter().any(|r| r.refused_configuration) {
        EXIT_LAUNCH_ERROR
    } else {
        EXIT_PROCESS_FAILED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIGINT: i32 = 2;
    const SIGTERM: i32 = 15;
    const SIGKILL: i32 = 9;
    const SIGSEGV: i32 = 11;

    fn record(required: bool) -> ProcessRecord {
        let mut r = ProcessRecord::new("n-1", required);
        r.started();
        r
    }

    #[test]
    fn cleanliness() {
        assert!(is_clean(Termination::Exited(0), None));
        assert!(!is_clean(Termination::Exited(3), Some(SIGINT)));
        assert!(is_clean(Termination::Signaled(SIGINT), Some(SIGINT)));
        assert!(!is_clean(Termination::Signaled(SIGINT), None));
        assert!(!is_clean(Termination::Signaled(SIGTERM), Some(SIGINT)));
    }

    #[test]
    fn decisions() {
        assert_eq!(after_exit(true, true, 1.0, false), AfterExit::Shutdown);
        assert_eq!(after_exit(false, true, 0.5, false), AfterExit::Respawn(Duration::from_millis(500)));
        assert_eq!(after_exit(false, true, 0.5, true), AfterExit::Continue);
        assert_eq!(after_exit(true, false, 0.0, true), AfterExit::Continue);
        assert_eq!(after_exit(false, false, 0.0, false), AfterExit::Continue);
    }

    #[test]
    fn requested_shutdown_is_clean() {
        let mut a = record(false);
        a.signal_sent(SIGINT);
        a.ended(Termination::Signaled(SIGINT), Duration::from_secs(2), true);
        let mut b = record(true);
        b.signal_sent(SIGINT);
        b.ended(Termination::Exited(0), Duration::from_secs(2), true);
        assert_eq!(launch_exit_code(&[a.clone(), b]), EXIT_OK);
        assert_eq!(a.summary(), "n-1: killed by signal SIGINT (sent by the launcher), ran 2.0 s");
    }

    #[test]
    fn required_clean_exit_then_clean_shutdown_is_ok() {
        let mut required = record(true);
        required.ended(Termination::Exited(0), Duration::from_secs(1), false);
        let mut other = record(false);
        other.signal_sent(SIGINT);
        other.ended(Termination::Exited(0), Duration::from_secs(1), true);
        assert_eq!(launch_exit_code(&[required, other]), EXIT_OK);
    }

    #[test]
    fn failures() {
        let mut crashed = record(true);
        crashed.ended(Termination::Signaled(SIGSEGV), Duration::from_secs(1), false);
        assert_eq!(launch_exit_code(&[crashed]), EXIT_PROCESS_FAILED);

        let mut nonzero = record(false);
        nonzero.ended(Termination::Exited(3), Duration::from_secs(1), false);
        assert_eq!(launch_exit_code(&[nonzero.clone()]), EXIT_PROCESS_FAILED);
        assert_eq!(nonzero.summary(), "n-1: exited with code 3, ran 1.0 s, 1 failed run(s) FAILED");

        let mut straggler = record(false);
        straggler.signal_sent(SIGINT);
        straggler.killed_after_timeout = true;
        straggler.ended(Termination::Signaled(SIGKILL), Duration::from_secs(6), true);
        assert_eq!(launch_exit_code(&[straggler]), EXIT_PROCESS_FAILED);

        let mut bad_exit_in_shutdown = record(false);
        bad_exit_in_shutdown.signal_sent(SIGINT);
        bad_exit_in_shutdown.ended(Termination::Exited(1), Duration::from_secs(1), true);
        assert_eq!(launch_exit_code(&[bad_exit_in_shutdown]), EXIT_PROCESS_FAILED);

        let mut unstartable = ProcessRecord::new("x-1", false);
        unstartable.spawn_error = Some("permission denied".into());
        let never = ProcessRecord::new("y-2", false);
        assert_eq!(never.summary(), "y-2: not started, ran 0.0 s");
        assert_eq!(launch_exit_code(&[unstartable.clone(), never]), EXIT_PROCESS_FAILED);
        assert_eq!(unstartable.summary(), "x-1: failed to start: permission denied, ran 0.0 s FAILED");
    }

    #[test]
    fn a_node_refusing_its_configuration_makes_the_launch_exit_2() {
        let mut refused = record(false);
        refused.ended(Termination::Exited(EXIT_LAUNCH_ERROR), Duration::from_millis(300), false);
        let mut crashed = record(true);
        crashed.ended(Termination::Signaled(SIGSEGV), Duration::from_secs(1), false);
        assert_eq!(launch_exit_code(&[crashed.clone(), refused.clone()]), EXIT_LAUNCH_ERROR);
        assert_eq!(launch_exit_code(&[crashed]), EXIT_PROCESS_FAILED);
        // Exit 2 while the launcher shuts down is a failed shutdown, not a refusal.
        let mut late = record(false);
        late.signal_sent(SIGINT);
        late.ended(Termination::Exited(EXIT_LAUNCH_ERROR), Duration::from_secs(1), true);
        assert_eq!(launch_exit_code(&[late]), EXIT_PROCESS_FAILED);
    }

    #[test]
    fn respawned_runs_add_up() {
        let mut r = record(false);
        r.ended(Termination::Exited(0), Duration::from_millis(1500), false);
        r.started();
        r.signal_sent(SIGTERM);
        r.ended(Termination::Signaled(SIGTERM), Duration::from_millis(500), true);
        assert!(r.ok());
        assert_eq!(r.summary(), "n-1: killed by signal SIGTERM (sent by the launcher), ran 2.0 s over 2 starts");
    }
}
