//! Experiments of the Blueswarm (SPEC 3): Bluebots in the simulated tank
//! (`tank_physics::systems::bluebot`) running their firmware (`flotilla_firmware::bluebot`)
//! in-process at 2 Hz sensing:
//!
//! - `sync`: Mirollo-Strogatz flash synchrony, rounds to synchrony;
//! - `dispersion`: Lennard-Jones dispersion / aggregation with d_t switched in phases;
//! - `milling`: the wedge-sensor circle, radius vs the model, recovery after removal;
//! - `search`: search / alert / gather for the red source;
//! - `random-walk`: the lone random walker, Markov chain and simulated robot;
//! - `vision`: neighbour-detection accuracy of the emulated vision;
//! - `bench`: real-time factor of the in-process simulation.

mod bench;
mod dispersion;
mod metrics;
mod milling;
mod plot;
mod random_walk;
mod search;
mod sync;
mod vision;

pub use bench::Bench;
pub use dispersion::Dispersion;
pub use milling::Milling;
pub use random_walk::RandomWalk;
pub use search::Search;
pub use sync::Sync;
pub use vision::VisionAccuracy;

use crate::experiment::{Experiment, ExperimentError, Options};
use flotilla_contract::bluebot::{Bluebot, BluebotSensors};
use flotilla_contract::Firmware;
use tank_physics::systems::bluebot::{Fidelity, SwarmWorld};

/// The Blueswarm experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&Sync, &Dispersion, &Milling, &Search, &RandomWalk, &VisionAccuracy, &Bench];

/// One body length, m (SPEC 3: 130 mm).
pub const BODY_LENGTH: f64 = 0.13;

/// A world and one firmware per robot, stepped together: every sensing period each present
/// robot is sensed, its firmware stepped and its command applied.
pub struct Run<F> {
    /// The world.
    pub world: SwarmWorld,
    /// One firmware per robot, by robot index.
    pub firmware: Vec<F>,
    next_sense: f64,
}

impl<F: Firmware<Bluebot>> Run<F> {
    /// A run of `world` with `firmware[i]` on robot i.
    pub fn new(world: SwarmWorld, firmware: Vec<F>) -> Self {
        Self { world, firmware, next_sense: 0.0 }
    }

    /// Runs until `until` s; `observe` sees the world, the readings and the firmware
    /// after each sensing instant.
    pub fn run_until(&mut self, until: f64, mut observe: impl FnMut(&SwarmWorld, &[Option<BluebotSensors>], &[F])) -> Result<(), ExperimentError> {
        let dt = self.world.config().dt;
        let period = self.world.config().sensing_period;
        while self.world.time() < until - 0.5 * dt {
            if self.world.time() >= self.next_sense - 0.5 * dt {
                let readings = self.world.sense_all();
                let time = self.world.time();
                for (i, reading) in readings.iter().enumerate() {
                    if let (Some(reading), Some(fw)) = (reading, self.firmware.get_mut(i)) {
                        let command = fw.step(time, reading);
                        self.world.apply(i, &command)?;
                    }
                }
                observe(&self.world, &readings, &self.firmware);
                self.next_sense += period;
            }
            self.world.step();
        }
        Ok(())
    }
}

/// The single value of a [`crate::OptionKind::Names`] option that must be one of `allowed`.
pub fn choice(options: &Options, name: &str, allowed: &[&str]) -> Result<String, ExperimentError> {
    let values = options.names(name)?;
    match values.as_slice() {
        [one] if allowed.contains(&one.as_str()) => Ok(one.clone()),
        _ => Err(ExperimentError::Option { option: name.to_owned(), message: format!("expected one of {}, got `{}`", allowed.join(", "), values.join(",")) }),
    }
}

/// The `--fidelity` option.
pub fn fidelity(options: &Options) -> Result<Fidelity, ExperimentError> {
    Fidelity::parse(&choice(options, "fidelity", &["analytic", "rendered"])?).map_err(|message| ExperimentError::Option { option: "fidelity".into(), message })
}

/// Mean, min and max of `values` (NaN for none).
pub fn spread(values: &[f64]) -> (f64, f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    (mean, values.iter().copied().fold(f64::INFINITY, f64::min), values.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

/// A JSON object {mean, min, max, values} of per-seed values.
pub fn over_seeds(values: &[f64]) -> serde_json::Value {
    let (mean, min, max) = spread(values);
    let n = crate::experiment::number;
    serde_json::json!({ "mean": n(mean), "min": n(min), "max": n(max), "values": values.iter().map(|v| n(*v)).collect::<Vec<_>>() })
}
