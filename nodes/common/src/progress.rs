//! Progress of long work whose stderr is not a terminal (logs, CI), where a drawn bar does
//! not show: one line as the work enters each tenth of its length, the last at its end.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Progress lines for one piece of work, safe to update from any thread.
pub struct TenthLines {
    what: String,
    /// Tenths printed so far (the next tenth to print).
    printed: AtomicU64,
    started: Instant,
}

impl TenthLines {
    /// Lines about `what` (e.g. "calibrating"), timed from now.
    pub fn new(what: &str) -> Self {
        Self { what: what.to_owned(), printed: AtomicU64::new(0), started: Instant::now() }
    }

    /// Whether stderr is a terminal, where a bar shows and lines are not needed.
    pub fn stderr_is_terminal() -> bool {
        std::io::IsTerminal::is_terminal(&std::io::stderr())
    }

    /// The line for `position` of `length` (`message` appended) when it enters a tenth
    /// no line was made for yet; `None` otherwise.
    pub fn line(&self, position: u64, length: u64, message: &str) -> Option<String> {
        let tenth = position.min(length) * 10 / length.max(1);
        (self.printed.fetch_max(tenth + 1, Ordering::Relaxed) <= tenth).then(|| {
            let elapsed = self.started.elapsed().as_secs_f64();
            let message = if message.is_empty() { String::new() } else { format!(" {message}") };
            format!("{}: {position}/{length}{message} ({elapsed:.0} s)", self.what)
        })
    }

    /// Prints [`TenthLines::line`] on stderr, if any.
    pub fn update(&self, position: u64, length: u64, message: &str) {
        if let Some(line) = self.line(position, length, message) {
            eprintln!("{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_tenth_and_one_at_the_end() {
        let lines = TenthLines::new("work");
        let made: Vec<String> = (0..=250).filter_map(|p| lines.line(p, 250, "steps")).collect();
        assert_eq!(made.len(), 11, "{made:?}");
        assert!(made[0].starts_with("work: 0/250 steps (") && made[10].starts_with("work: 250/250 steps ("), "{made:?}");
        assert_eq!(lines.line(250, 250, ""), None, "the end is printed once");
        let quiet = TenthLines::new("w");
        assert!(quiet.line(3, 0, "").is_some(), "no length: one line, no division by zero");
        assert!(quiet.line(5, 0, "").is_none());
        assert!(quiet.line(7, 5, "").is_some_and(|l| l.starts_with("w: 7/5 (")), "past the end counts as the end");
    }
}
