//! The launcher's own messages: tracing events rendered as `[launcher] message` on stderr,
//! next to the `[label] line` output of the processes. Structured fields are kept on the
//! events and shown at debug level.

use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::EnvFilter;

/// Installs the subscriber; `FLOTILLA_LOG` (an env-filter directive) overrides `info`.
pub fn init() {
    let filter = EnvFilter::try_from_env("FLOTILLA_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).event_format(LauncherFormat).init();
}

struct LauncherFormat;

impl<S, N> FormatEvent<S, N> for LauncherFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, _ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let level = *event.metadata().level();
        let mut fields = Fields { message: String::new(), rest: String::new() };
        event.record(&mut fields);
        let prefix = match level {
            Level::ERROR => "error: ",
            Level::WARN => "warning: ",
            _ => "",
        };
        write!(writer, "[launcher] {prefix}{}", fields.message)?;
        if level >= Level::DEBUG && !fields.rest.is_empty() {
            write!(writer, " {{{}}}", fields.rest.trim_start())?;
        }
        writeln!(writer)
    }
}

struct Fields {
    message: String,
    rest: String,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.rest, " {}={value:?}", field.name());
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.rest, " {}={value}", field.name());
        }
    }
}
