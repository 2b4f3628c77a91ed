//! The `base_station` node.
//!
//! - Radio: `~/command` (std_msgs/String, a ruleset radio command such as `dissolve`) is
//!   broadcast to every Lily as a `flotilla_msgs/Radio` on `/radio/broadcast` (the physics
//!   delivers it into each robot's `radio_rx` on port 255); the robots' state reports come
//!   back on `/radio/uplink` and are collected per robot.
//! - Stirring: the pump schedule (`stirring.times` / `stirring.power`) is applied through
//!   `/tank/set_pumps` when sim time reaches each step.
//! - Metrics from the latch graph in `/tank/state`: every message is observed (attachments
//!   are counted while they exist); every `sample_period` s of sim time a sample is logged,
//!   published on `~/metrics` (std_msgs/String, one JSON object: snapshot, totals, robots
//!   per reported state) and appended to the CSV (`metrics_csv`, flushed per row).
//! - On shutdown the summary line gives the final yield and totals.

use crate::{settings, world};
use std::io::Write as _;
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use flotilla_common::ros::{self as fros, Spinner, Startup};
use futures::StreamExt;
use r2r::flotilla_msgs::msg::{Radio, TankState};
use r2r::flotilla_msgs::srv::SetPumps;
use r2r::QosProfile;
use robot_controller::report::{metrics_csv_row, METRICS_CSV_HEADER};
use robot_controller::{BaseStation, MetricsTracker, Ruleset};
use tracing::{info, warn};

pub use settings::NodeSettings;

/// What the base station knows.
struct Station {
    rules: Arc<Ruleset>,
    sample_period: f64,
    radio: BaseStation,
    tracker: MetricsTracker,
    /// Sim time of the last observed state, s.
    last_time: Option<f64>,
    /// Robot name -> id, from the last state.
    ids: std::collections::HashMap<String, u32>,
    csv: Option<std::io::BufWriter<std::fs::File>>,
    /// Index of the pump step last applied.
    pump_step: Option<usize>,
}

impl Station {
    /// Observes one world state; returns the pump step to apply now, if one is due.
    fn observe(
        &mut self,
        state: &TankState,
        settings: &NodeSettings,
        metrics: &r2r::Publisher<r2r::std_msgs::msg::String>,
    ) -> Option<usize> {
        let t = state.sim_time;
        match self.last_time {
            Some(last) if t < last - 1e-9 => {
                info!(time = t, "the world was reset; metrics start again");
                self.tracker = MetricsTracker::new(self.rules.target.clone(), self.sample_period).without_series();
                self.pump_step = None;
            }
            Some(last) if t <= last + 1e-9 => return None,
            _ => {}
        }
        self.last_time = Some(t);
        self.ids = state.modules.iter().map(|m| (m.name.clone(), m.id)).collect();
        self.tracker.observe(t, &world::bodies(state));
        if let Some(sample) = self.tracker.new_sample() {
            let totals = self.tracker.summary();
            let states = self.radio.state_counts();
            info!(
                time = sample.time,
                targets = sample.targets,
                yield_percent = format!("{:.1}", sample.yield_fraction * 100.0),
                partial = sample.partial,
                wrong = sample.wrong,
                free = sample.free,
                formed = totals.targets_formed,
                wrong_attachments = totals.wrong_attachments,
                states = ?states,
                "metrics"
            );
            let json = serde_json::json!({ "snapshot": sample, "totals": totals, "reported_states": states });
            if let Err(e) = metrics.publish(&r2r::std_msgs::msg::String { data: json.to_string() }) {
                warn!("publishing ~/metrics: {e}");
            }
            let row = metrics_csv_row(sample, &totals);
            if let Some(csv) = &mut self.csv {
                if let Err(e) = writeln!(csv, "{row}").and_then(|_| csv.flush()) {
                    warn!("metrics CSV stopped: {e}");
                    self.csv = None;
                }
            }
        }
        let due = settings.stirring.step_at(t).filter(|s| Some(*s) != self.pump_step);
        if due.is_some() {
            self.pump_step = due;
        }
        due
    }

    fn summary(&self) -> String {
        let s = self.tracker.summary();
        format!(
            "summary: yield {:.1} % ({} {} targets) after {:.1} s of sim time; first target at {}; {} formed, {} broken, assembly rate {:.3} /min, {} wrong attachments of {}; robots by reported state: {:?}",
            s.final_yield * 100.0,
            s.final_targets,
            self.rules.name,
            s.duration,
            s.first_target_time.map_or_else(|| "none".to_owned(), |t| format!("{t:.1} s")),
            s.targets_formed,
            s.targets_broken,
            s.assembly_rate,
            s.wrong_attachments,
            s.attachments,
            self.radio.state_counts()
        )
    }
}

/// Runs until SIGINT/SIGTERM; returns the summary line.
pub async fn run(startup: Startup, settings: NodeSettings) -> anyhow::Result<String> {
    let (path, rules) = settings.ruleset.clone();
    let csv = match &settings.metrics_csv {
        Some(p) => {
            let mut w =
                std::io::BufWriter::new(std::fs::File::create(p).with_context(|| format!("creating the metrics CSV {}", p.display()))?);
            writeln!(w, "{METRICS_CSV_HEADER}").and_then(|_| w.flush()).with_context(|| format!("writing {}", p.display()))?;
            Some(w)
        }
        None => None,
    };
    let mut node = startup.create_node()?;
    let mut states = node.subscribe::<TankState>("/tank/state", QosProfile::default())?;
    let mut uplink = node.subscribe::<Radio>("/radio/uplink", QosProfile::default())?;
    let mut commands = node.subscribe::<r2r::std_msgs::msg::String>("~/command", QosProfile::default())?;
    let broadcast = node.create_publisher::<Radio>("/radio/broadcast", QosProfile::default())?;
    let metrics = node.create_publisher::<r2r::std_msgs::msg::String>("~/metrics", QosProfile::default())?;
    let pumps = node.create_client::<SetPumps::Service>("/tank/set_pumps", QosProfile::default())?;
    let station = Arc::new(Mutex::new(Station {
        rules: rules.clone(),
        sample_period: settings.sample_period,
        radio: BaseStation::new(&rules),
        tracker: MetricsTracker::new(rules.target.clone(), settings.sample_period).without_series(),
        last_time: None,
        ids: Default::default(),
        csv,
        pump_step: None,
    }));
    let node = Arc::new(Mutex::new(node));
    let spinner = Spinner::start(node.clone());

    let observer = station.clone();
    let schedule = settings.clone();
    tokio::spawn(async move {
        let mut finite = flotilla_common::finite::FiniteGuard::new("/tank/state");
        while let Some(state) = states.next().await {
            if !finite.admit(&state) {
                continue;
            }
            let due = observer.lock().ok().and_then(|mut s| s.observe(&state, &schedule, &metrics));
            if let Some(step) = due {
                let power = schedule.stirring.steps[step].power.clone();
                match pumps.request(&SetPumps::Request { power: power.clone() }) {
                    Ok(reply) => {
                        tokio::spawn(async move {
                            match reply.await {
                                Ok(r) if r.success => info!(?power, time = state.sim_time, "pumps set"),
                                Ok(r) => warn!(?power, "the tank refused the pump power: {}", r.message),
                                Err(e) => warn!(?power, "/tank/set_pumps failed: {e}"),
                            }
                        });
                    }
                    Err(e) => warn!(?power, "/tank/set_pumps request failed: {e}"),
                }
            }
        }
    });
    let collector = station.clone();
    tokio::spawn(async move {
        while let Some(msg) = uplink.next().await {
            let Ok(mut s) = collector.lock() else { break };
            match s.ids.get(&msg.robot).copied() {
                Some(id) => s.radio.receive(vec![(id, msg.data)]),
                None => warn!(robot = %msg.robot, "radio report from a robot not in /tank/state; ignored"),
            }
        }
    });
    let sender = station.clone();
    tokio::spawn(async move {
        while let Some(msg) = commands.next().await {
            let payload = sender
                .lock()
                .map_err(|_| "station poisoned".to_owned())
                .and_then(|s| s.radio.command(msg.data.trim()).map(|d| (d, s.last_time.unwrap_or(0.0))).map_err(|e| e.to_string()));
            match payload {
                Ok((data, t)) => {
                    if let Err(e) = broadcast.publish(&Radio { header: fros::header(t, ""), robot: String::new(), data }) {
                        warn!("publishing /radio/broadcast: {e}");
                    }
                }
                Err(e) => warn!("~/command refused: {e}"),
            }
        }
    });
    info!(ruleset = %rules.name, file = %path.display(), sample_period = settings.sample_period, pump_steps = settings.stirring.steps.len(), "base_station running");
    let signal = fros::shutdown_signal().await.context("installing signal handlers")?;
    info!(signal, "shutting down");
    spinner.stop();
    fros::release_node(node);
    let summary = station.lock().map(|s| s.summary()).map_err(|_| anyhow::anyhow!("station state poisoned"))?;
    Ok(summary)
}
