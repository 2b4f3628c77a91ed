//! The one validated conversion from a number of seconds (or a rate, or a speed factor)
//! to a [`Duration`].
//!
//! `Duration::from_secs_f64` panics on a negative, non-finite or huge value
//! (`1e300`), and a rate of `1e-300` Hz is a period of `1e300` s. Every parameter and
//! every service/action request that carries a time goes through [`Span`] instead: the
//! number is checked once (finite, inside the stated bounds) and converted once; the
//! error names the key and the allowed range. Times computed at run time from checked
//! inputs (a wall-clock deadline from a simulated time divided by a speed factor) go
//! through [`saturating`], which never panics.

use std::fmt;
use std::time::Duration;

/// Longest span any Flotilla parameter or request may name, s (about 115 days): far
/// above every real use, far below what `Duration` can hold.
pub const MAX_SECONDS: f64 = 1.0e7;

/// A number of seconds, a rate or a factor outside what the key allows.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct SpanError {
    /// What is wrong and what is allowed (the key is named by the caller's error type).
    pub message: String,
}

impl SpanError {
    /// This error as the [`ParamError`](crate::params::ParamError) of parameter `key`.
    pub fn at(self, key: &str) -> crate::params::ParamError {
        crate::params::ParamError::invalid(key, self.message)
    }
}

/// The allowed range of one time-like quantity, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Smallest allowed value, s (inclusive).
    pub min: f64,
    /// Largest allowed value, s (inclusive, at most [`MAX_SECONDS`]).
    pub max: f64,
    /// Whether exactly 0 is allowed even when `min > 0` (0 often means "use the default"
    /// or "as fast as possible").
    pub zero: bool,
}

impl Span {
    /// `[min, max]` seconds, 0 not allowed unless `min` is 0.
    pub const fn new(min: f64, max: f64) -> Self {
        Self { min, max, zero: false }
    }

    /// Any positive number of seconds up to [`MAX_SECONDS`] (1 µs at least).
    pub const POSITIVE: Span = Span::new(1e-6, MAX_SECONDS);

    /// Any number of seconds in `[0, MAX_SECONDS]`.
    pub const NON_NEGATIVE: Span = Span::new(0.0, MAX_SECONDS);

    /// The same span with exactly 0 also allowed.
    pub const fn or_zero(mut self) -> Self {
        self.zero = true;
        self
    }

    /// Checks `seconds` and converts it once.
    pub fn seconds(&self, seconds: f64) -> Result<Duration, SpanError> {
        self.check(seconds, "s")?;
        // In range and finite: the conversion cannot fail, but never panic on it.
        Duration::try_from_secs_f64(seconds).map_err(|e| SpanError { message: format!("{} s: {e}", Number(seconds)) })
    }

    /// The period of a rate in Hz; the period (1/rate) must lie in this span.
    pub fn period_of_rate(&self, hz: f64) -> Result<Duration, SpanError> {
        if !(hz.is_finite() && hz > 0.0) {
            return Err(SpanError { message: format!("must be a finite rate > 0 Hz, got {}", Number(hz)) });
        }
        let period = 1.0 / hz;
        if !(self.min..=self.max).contains(&period) {
            return Err(SpanError {
                message: format!("must be a rate in [{}, {}] Hz, got {}", fmt_hz(self.max), fmt_hz(self.min), Number(hz)),
            });
        }
        self.seconds(period)
    }

    /// Checks a value without converting it (a speed factor, a real-time factor), as a
    /// number in `[min, max]` with unit `unit` in the message.
    pub fn check(&self, value: f64, unit: &str) -> Result<f64, SpanError> {
        let ok = value.is_finite() && ((self.min..=self.max).contains(&value) || (self.zero && value == 0.0));
        if ok {
            Ok(value)
        } else {
            let zero = if self.zero && self.min > 0.0 { " (or 0)" } else { "" };
            Err(SpanError {
                message: format!(
                    "must be a finite number in [{}, {}] {unit}{zero}, got {}",
                    Number(self.min),
                    Number(self.max),
                    Number(value)
                ),
            })
        }
    }
}

fn fmt_hz(period: f64) -> Number {
    Number(if period > 0.0 { 1.0 / period } else { f64::INFINITY })
}

/// A number as people write it: `1e300`, not 301 digits.
#[derive(Debug, Clone, Copy)]
pub struct Number(pub f64);

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.0.abs();
        if a.is_finite() && a != 0.0 && !(1e-4..1e7).contains(&a) {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// A computed number of seconds as a `Duration`: negative and NaN give 0, anything above
/// [`MAX_SECONDS`] (or +inf) gives [`MAX_SECONDS`]. For values derived at run time from
/// inputs that were already checked, where a panic would be the only other outcome.
pub fn saturating(seconds: f64) -> Duration {
    if seconds.is_nan() || seconds <= 0.0 {
        Duration::ZERO
    } else {
        Duration::try_from_secs_f64(seconds.min(MAX_SECONDS)).unwrap_or(Duration::ZERO)
    }
}

/// Serde helper for a `Duration` field written as seconds in `[0, MAX_SECONDS]`:
/// `#[serde(with = "flotilla_common::duration::serde_seconds")]`.
pub mod serde_seconds {
    use super::Span;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    /// Writes the seconds as a float.
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }

    /// Reads a float number of seconds in `[0, MAX_SECONDS]`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let secs = f64::deserialize(d)?;
        Span::NON_NEGATIVE.seconds(secs).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_tiny_and_non_finite_are_errors_not_panics() {
        for bad in [1e300, 1e20, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e-300] {
            assert!(Span::POSITIVE.seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(Span::POSITIVE.seconds(0.5).unwrap(), Duration::from_millis(500));
        assert_eq!(Span::NON_NEGATIVE.seconds(0.0).unwrap(), Duration::ZERO);
        assert!(Span::POSITIVE.seconds(0.0).is_err());
        assert_eq!(Span::POSITIVE.or_zero().seconds(0.0).unwrap(), Duration::ZERO);
    }

    #[test]
    fn rates_are_checked_as_periods() {
        let span = Span::new(1e-4, 3600.0);
        assert_eq!(span.period_of_rate(10.0).unwrap(), Duration::from_millis(100));
        for bad in [1e-300, 0.0, -3.0, f64::NAN, f64::INFINITY, 1e300] {
            let msg = span.period_of_rate(bad).unwrap_err().to_string();
            assert!(msg.contains("Hz"), "{bad}: {msg}");
        }
    }

    #[test]
    fn message_states_the_range() {
        let msg = Span::new(0.0, 60.0).seconds(1e300).unwrap_err().to_string();
        assert!(msg.contains("[0, 60]") && msg.contains("1e300"), "{msg}");
    }

    #[test]
    fn saturating_never_panics() {
        assert_eq!(saturating(f64::NAN), Duration::ZERO);
        assert_eq!(saturating(-5.0), Duration::ZERO);
        assert_eq!(saturating(1e300), Duration::from_secs_f64(MAX_SECONDS));
        assert_eq!(saturating(f64::INFINITY), Duration::from_secs_f64(MAX_SECONDS));
        assert_eq!(saturating(1.5), Duration::from_millis(1500));
    }
}
