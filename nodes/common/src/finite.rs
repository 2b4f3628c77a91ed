//! Non-finite numbers in received messages: one check for every subscription.
//!
//! A NaN pose sent to the camera, a NaN light reading sent to a controller or an infinite
//! thrust sent to the physics would otherwise flow into renderers, firmware and the
//! integrator. [`FiniteGuard::admit`] finds the first NaN or infinite field of any
//! serialisable message (r2r messages and the contract types all are) and drops the
//! message with a rate-limited warning naming the topic and the field.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_yaml::Value;

/// The path of the first NaN or infinite number in `msg` (`modules[3].pose.position.x`),
/// `None` when every number is finite (or the message cannot be represented).
pub fn non_finite_field<T: Serialize + ?Sized>(msg: &T) -> Option<String> {
    // serde_yaml keeps NaN and infinities as numbers (JSON would make them null).
    let value = serde_yaml::to_value(msg).ok()?;
    let mut path = String::new();
    find(&value, &mut path).then_some(path)
}

fn find(value: &Value, path: &mut String) -> bool {
    match value {
        Value::Number(n) => n.as_f64().is_some_and(|x| !x.is_finite()),
        Value::Sequence(items) => items.iter().enumerate().any(|(i, item)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let found = find(item, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        Value::Mapping(map) => map.iter().any(|(k, v)| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(k.as_str().unwrap_or("?"));
            let found = find(v, path);
            if !found {
                path.truncate(len);
            }
            found
        }),
        Value::Tagged(t) => find(&t.value, path),
        Value::Null | Value::Bool(_) | Value::String(_) => false,
    }
}

/// Drops messages of one topic that hold a non-finite number, warning at most once per
/// interval (with the number dropped since the last warning).
#[derive(Debug)]
pub struct FiniteGuard {
    topic: String,
    interval: Duration,
    last_warning: Option<Instant>,
    dropped: u64,
}

impl FiniteGuard {
    /// A guard for `topic`, warning at most every 5 s.
    pub fn new(topic: impl Into<String>) -> Self {
        Self { topic: topic.into(), interval: Duration::from_secs(5), last_warning: None, dropped: 0 }
    }

    /// Whether `msg` may be used: false (and perhaps a warning) when a field is not finite.
    pub fn admit<T: Serialize + ?Sized>(&mut self, msg: &T) -> bool {
        let Some(field) = non_finite_field(msg) else { return true };
        self.dropped += 1;
        let now = Instant::now();
        if self.last_warning.is_none_or(|t| now.duration_since(t) >= self.interval) {
            tracing::warn!(topic = %self.topic, field = %field, dropped = self.dropped, "message with a non-finite value dropped");
            self.last_warning = Some(now);
            self.dropped = 0;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Pose {
        x: f64,
        y: f64,
    }
    #[derive(Serialize)]
    struct State {
        water_level: f64,
        modules: Vec<Pose>,
    }

    /// Issue 21 item 9: NaN poses and water levels (camera) and NaN light readings
    /// (controllers) were used; the field is now found and the message dropped.
    #[test]
    fn item9_non_finite_fields_are_named_and_dropped() {
        let ok = State { water_level: -0.08, modules: vec![Pose { x: 0.0, y: 1.0 }] };
        assert_eq!(non_finite_field(&ok), None);
        let bad = State { water_level: -0.08, modules: vec![Pose { x: 0.0, y: 1.0 }, Pose { x: 0.0, y: f64::NAN }] };
        assert_eq!(non_finite_field(&bad).as_deref(), Some("modules[1].y"));
        let bad = State { water_level: f64::INFINITY, modules: vec![] };
        assert_eq!(non_finite_field(&bad).as_deref(), Some("water_level"));
        let mut guard = FiniteGuard::new("/tank/state");
        assert!(guard.admit(&ok));
        assert!(!guard.admit(&bad) && !guard.admit(&bad));
        assert!(non_finite_field(&[1.0f32, f32::NAN]).is_some());
    }
}
