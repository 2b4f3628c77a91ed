//! Every `tracing` event of a node on `/rosout` (feature `ros`), as rclcpp nodes log:
//! `rcl_interfaces/msg/Log` with the level, the message and its structured fields rendered
//! (`message key=value ...`), the target (module path) as `function`, file and line, and
//! the node's logger name (`tracking.tracker` for `/tracking/tracker`) as `name`, so that
//! `ros2 topic echo /rosout` and rqt_console show them by node.
//!
//! [`RosoutLayer`] is installed with the terminal output by
//! [`crate::ros::init_tracing`]; events logged before the node exists are kept (up to
//! [`ROSOUT_DEPTH`]) and published when [`attach`] creates the publisher. QoS as rcl's
//! `rcl_qos_profile_rosout_default` in Jazzy: reliable, transient local, keep last 1000,
//! lifespan 10 s.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::Duration;

use r2r::rcl_interfaces::msg::Log;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// History depth of `/rosout` (rcl's), messages; also the most kept before [`attach`].
pub const ROSOUT_DEPTH: usize = 1000;

/// Where events go: the publisher once the node exists, a bounded queue before.
struct Sink {
    publisher: Option<r2r::Publisher<Log>>,
    logger: String,
    pending: VecDeque<Log>,
}

static SINK: Mutex<Sink> = Mutex::new(Sink { publisher: None, logger: String::new(), pending: VecDeque::new() });

/// `tracing` layer sending every event to `/rosout`.
pub struct RosoutLayer;

impl<S: Subscriber> Layer<S> for RosoutLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        let mut fields = Fields::default();
        event.record(&mut fields);
        let Ok(mut sink) = SINK.lock() else { return };
        let log = Log {
            stamp: crate::ros::wall_time_msg(),
            level: level_of(*meta.level()),
            name: sink.logger.clone(),
            msg: fields.rendered(),
            file: meta.file().unwrap_or_default().to_owned(),
            function: meta.target().to_owned(),
            line: meta.line().unwrap_or_default(),
        };
        match &sink.publisher {
            // A failed publish is not logged: that would come back here.
            Some(p) => {
                let _ = p.publish(&log);
            }
            None => {
                if sink.pending.len() == ROSOUT_DEPTH {
                    sink.pending.pop_front();
                }
                sink.pending.push_back(log);
            }
        }
    }
}

/// `rcl_interfaces/msg/Log` level of a tracing level (TRACE is DEBUG: ROS has no lower).
pub fn level_of(level: Level) -> u8 {
    match level {
        Level::TRACE | Level::DEBUG => Log::DEBUG as u8,
        Level::INFO => Log::INFO as u8,
        Level::WARN => Log::WARN as u8,
        Level::ERROR => Log::ERROR as u8,
    }
}

/// The logger name rclcpp gives node `fully_qualified` (`/tracking/tracker` ->
/// `tracking.tracker`).
pub fn logger_name(fully_qualified: &str) -> String {
    fully_qualified.trim_start_matches('/').replace('/', ".")
}

/// Creates `node`'s `/rosout` publisher and publishes the events logged so far.
pub fn attach(node: &mut r2r::Node) -> anyhow::Result<()> {
    let qos = r2r::QosProfile { lifespan: Duration::from_secs(10), ..r2r::QosProfile::default().transient_local().keep_last(ROSOUT_DEPTH) }
        .reliable();
    let publisher = node.create_publisher::<Log>("/rosout", qos)?;
    let logger = logger_name(&node.fully_qualified_name()?);
    let mut sink = SINK.lock().map_err(|_| anyhow::anyhow!("the /rosout sink is poisoned"))?;
    for mut log in sink.pending.drain(..).collect::<Vec<_>>() {
        log.name = logger.clone();
        let _ = publisher.publish(&log);
    }
    sink.logger = logger;
    sink.publisher = Some(publisher);
    Ok(())
}

/// Stops publishing (before the node is dropped); later events are kept as before
/// [`attach`].
pub fn detach() {
    if let Ok(mut sink) = SINK.lock() {
        sink.publisher = None;
    }
}

/// The message and the other fields of an event.
#[derive(Default)]
struct Fields {
    message: String,
    rest: String,
}

impl Fields {
    fn rendered(self) -> String {
        match (self.message.is_empty(), self.rest.is_empty()) {
            (_, true) => self.message,
            (true, false) => self.rest,
            (false, false) => format!("{} {}", self.message, self.rest),
        }
    }
    fn push(&mut self, field: &Field, value: std::fmt::Arguments<'_>) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value}");
        } else {
            if !self.rest.is_empty() {
                self.rest.push(' ');
            }
            let _ = write!(self.rest, "{}={value}", field.name());
        }
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.push(field, format_args!("{value}"));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.push(field, format_args!("{value:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::prelude::*;

    /// Captures what the layer would publish (no node: the events stay pending).
    #[test]
    fn events_are_rendered_with_fields_level_and_target() {
        let subscriber = tracing_subscriber::registry().with(RosoutLayer);
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(topic = "/tank/cmd", count = 3, "dropped a message");
            tracing::info!("plain");
        });
        let sink = SINK.lock().unwrap();
        let logs: Vec<_> = sink.pending.iter().rev().take(2).collect();
        assert_eq!(logs[1].msg, "dropped a message topic=/tank/cmd count=3");
        assert_eq!(logs[1].level, Log::WARN as u8);
        assert_eq!(logs[1].function, module_path!());
        assert!(logs[1].file.ends_with("rosout.rs") && logs[1].line > 0);
        assert_eq!((logs[0].msg.as_str(), logs[0].level), ("plain", Log::INFO as u8));
    }

    #[test]
    fn logger_names_follow_rclcpp() {
        assert_eq!(logger_name("/tank_physics"), "tank_physics");
        assert_eq!(logger_name("/tracking/tracker"), "tracking.tracker");
    }
}
