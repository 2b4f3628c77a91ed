//! One line for an error and its causes, each said once.
//!
//! Many error types show their cause in their own message (`"{path}: {source}"`) and
//! also return it as `source()`; `anyhow`'s `{:#}` then prints every such cause twice.
//! [`describe`] walks the chain and leaves out a cause the message already ends with.

use std::error::Error;

/// The error's message followed by each cause not already at the end of the text so far,
/// joined by `": "`.
pub fn describe(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let message = e.to_string();
        if !text.ends_with(&message) {
            text.push_str(": ");
            text.push_str(&message);
        }
        cause = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("file f.csv: {source}")]
    struct Shown {
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("reading failed")]
    struct Hidden {
        source: std::io::Error,
    }

    /// `flotilla calibrate` printed "f.csv: ... (os error 2): ... (os error 2)".
    #[test]
    fn each_cause_is_said_once() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "not found");
        let e = anyhow::Error::new(Shown { source: io() }).context("--recording");
        assert_eq!(format!("{e:#}"), "--recording: file f.csv: not found: not found");
        assert_eq!(describe(e.as_ref()), "--recording: file f.csv: not found");
        assert_eq!(describe(&Hidden { source: io() }), "reading failed: not found");
    }
}
