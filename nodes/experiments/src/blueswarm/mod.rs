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
//! - `detect`: the vision pipeline on camera images from files (a real robot's, another
//!   renderer's);
//! - `bench`: real-time factor of the in-process simulation.

mod bench;
mod detect;
mod dispersion;
mod milling;
mod plot;
mod random_walk;
mod search;
mod sync;
mod vision;

pub use bench::Bench;
pub use detect::Detect;
pub use dispersion::Dispersion;
pub use milling::Milling;
pub use random_walk::RandomWalk;
pub use search::Search;
pub use sync::Sync;
pub use vision::VisionAccuracy;

use crate::experiment::{Experiment, ExperimentError, Options};
use flotilla_contract::bluebot::{Bluebot, BluebotSensors};
use flotilla_contract::Firmware;
use tank_physics::systems::bluebot::vision::pipeline::Pairing;
use tank_physics::systems::bluebot::{Fidelity, SwarmWorld};

/// The Blueswarm experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&Sync, &Dispersion, &Milling, &Search, &RandomWalk, &VisionAccuracy, &Detect, &Bench];

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
    pub fn run_until(
        &mut self,
        until: f64,
        mut observe: impl FnMut(&SwarmWorld, &[Option<BluebotSensors>], &[F]),
    ) -> Result<(), ExperimentError> {
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
        _ => Err(ExperimentError::Option {
            option: name.to_owned(),
            message: format!("expected one of {}, got `{}`", allowed.join(", "), values.join(",")),
        }),
    }
}

/// The `--pairing` option: `nearest-elevation` or `azimuth-order` (the authors' program:
/// the next blob within 5 deg).
pub fn pairing(options: &Options) -> Result<Pairing, ExperimentError> {
    Ok(match choice(options, "pairing", &["nearest-elevation", "azimuth-order"])?.as_str() {
        "azimuth-order" => Pairing::AzimuthOrder { window: 5f64.to_radians() },
        _ => Pairing::NearestElevation,
    })
}

/// The `--fidelity` option.
pub fn fidelity(options: &Options) -> Result<Fidelity, ExperimentError> {
    Fidelity::parse(&choice(options, "fidelity", &["analytic", "rendered"])?)
        .map_err(|message| ExperimentError::Option { option: "fidelity".into(), message })
}

/// Mean, min and max of `values` (NaN for none).
pub fn spread(values: &[f64]) -> (f64, f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    (mean, values.iter().copied().fold(f64::INFINITY, f64::min), values.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

/// Mean of the finite `values`; NaN when there is none (a figure nobody measured, e.g. the
/// nearest-neighbour distance of a lone robot, is not 0).
pub fn finite_mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, n) = values.into_iter().filter(|x| x.is_finite()).fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

/// A JSON object {mean, min, max, values} of per-seed values.
pub fn over_seeds(values: &[f64]) -> serde_json::Value {
    let (mean, min, max) = spread(values);
    let n = crate::experiment::number;
    serde_json::json!({ "mean": n(mean), "min": n(min), "max": n(max), "values": values.iter().map(|v| n(*v)).collect::<Vec<_>>() })
}

#[cfg(test)]
mod tests {
    use crate::experiment::{Options, Progress};
    use crate::registry::find;
    use serde_json::Value;

    fn run(name: &str, given: &[(&str, &str)]) -> serde_json::Map<String, Value> {
        let e = find("blueswarm", name).unwrap_or_else(|| panic!("{name} registered"));
        let given: Vec<(String, String)> = given.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect();
        let options = Options::parse(e.options(), &given).unwrap();
        let outcome = e.run(&options, &Progress::hidden()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let written = outcome.write(dir.path(), e, &options).unwrap();
        assert!(written.iter().any(|p| p.ends_with("summary.json")));
        outcome.metrics
    }

    #[test]
    fn short_sync_synchronises_and_repeats_bit_for_bit() {
        let given = [("robots", "4"), ("duration", "70"), ("seeds", "1"), ("start", "random")];
        let m = run("sync", &given);
        assert_eq!(m["runs_synchronised"], 1, "{m:?}");
        assert!(m["rounds_to_sync"]["mean"].as_f64().unwrap() <= 3.0);
        assert_eq!(m, run("sync", &given), "same seed, same run");
    }

    #[test]
    fn short_dispersion_aggregates_tighter_at_the_smaller_target() {
        let m = run("dispersion", &[("robots", "5"), ("target-distances", "3,0.75"), ("switch-every", "25"), ("seeds", "1")]);
        let phases = m["phases"].as_array().unwrap();
        let nnd = |i: usize| phases[i]["mean_nnd_m"]["mean"].as_f64().unwrap();
        assert!(nnd(1) < nnd(0), "{} vs {}", nnd(1), nnd(0));
        assert!(phases[0]["mean_neighbours_seen"]["mean"].as_f64().unwrap() > 2.0);
    }

    /// Two robots have a nearest neighbour but no hull volume: the density is null in the
    /// JSON and empty in the CSV (was `inf`, and the density plot a line off its chart), and
    /// so is the settling time (was the phase's length, as if it never settled).
    #[test]
    fn two_robots_have_no_density_or_settling_time() {
        let e = find("blueswarm", "dispersion").unwrap();
        let given: Vec<(String, String)> = [("robots", "2"), ("target-distances", "2"), ("switch-every", "2"), ("seeds", "1")]
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect();
        let options = Options::parse(e.options(), &given).unwrap();
        let outcome = e.run(&options, &Progress::hidden()).unwrap();
        let phase = &outcome.metrics["phases"][0];
        assert!(phase["mean_nnd_m"]["mean"].as_f64().is_some(), "{phase}");
        for figure in ["density_per_m3", "settling_s"] {
            assert_eq!(phase[figure]["mean"], Value::Null, "{figure}: {phase}");
        }
        let dir = tempfile::tempdir().unwrap();
        outcome.write(dir.path(), e, &options).unwrap();
        let csv = std::fs::read_to_string(dir.path().join("dispersion.csv")).unwrap();
        assert!(!csv.contains("inf") && !csv.contains("NaN"), "{csv}");
    }

    /// A lone robot has no nearest neighbour and no hull: those figures are null, not the
    /// -0.0 an empty sum gave; --seed near the largest seed no longer wraps round to no run.
    #[test]
    fn a_lone_robot_has_no_nnd_or_density_and_the_last_seeds_are_refused() {
        let m = run("dispersion", &[("robots", "1"), ("target-distances", "2"), ("switch-every", "2"), ("seeds", "1")]);
        let phase = &m["phases"][0];
        for figure in ["mean_nnd_m", "density_per_m3"] {
            assert_eq!(phase[figure]["mean"], Value::Null, "{figure}: {phase}");
        }
        let e = find("blueswarm", "dispersion").unwrap();
        let wrap: Vec<(String, String)> = vec![("seed".into(), u64::MAX.to_string()), ("seeds".into(), "2".into())];
        let options = Options::parse(e.options(), &wrap).unwrap();
        let Err(err) = e.run(&options, &Progress::hidden()) else { panic!("seeds past the largest accepted") };
        assert!(err.is_usage() && err.to_string().contains("--seed"), "{err}");
        // A phase shorter than two readings had no reading in its second half: all nulls.
        let short = Options::parse(e.options(), &[("switch-every".into(), "0.001".into())]).unwrap();
        let Err(err) = e.run(&short, &Progress::hidden()) else { panic!("a phase without readings accepted") };
        assert!(err.is_usage() && err.to_string().contains("--switch-every"), "{err}");
        // A period too short for the flash names --period, not --exponent.
        let sync = find("blueswarm", "sync").unwrap();
        let short = Options::parse(sync.options(), &[("period".into(), "1e-3".into())]).unwrap();
        let Err(err) = sync.run(&short, &Progress::hidden()) else { panic!("a period shorter than the flash accepted") };
        assert!(err.to_string().starts_with("option --period: sync flash must be in (0, period = 0.001 s)"), "{err}");
    }

    #[test]
    fn dispersion_runs_the_program_gait_and_refuses_bad_gait_and_noise() {
        let given = [("robots", "5"), ("target-distances", "3,0.75"), ("switch-every", "25"), ("seeds", "1"), ("gait", "program")];
        let m = run("dispersion", &given);
        let phases = m["phases"].as_array().unwrap();
        let nnd = |i: usize| phases[i]["mean_nnd_m"]["mean"].as_f64().unwrap();
        assert!(nnd(1) < nnd(0), "{} vs {}", nnd(1), nnd(0));
        assert_ne!(m, run("dispersion", &given[..4]), "the program's gait is not the graded one");
        let e = find("blueswarm", "dispersion").unwrap();
        for (option, value) in [("gait", "fast"), ("pixel-noise", "-1"), ("pixel-noise", "1,2")] {
            let bad = Options::parse(e.options(), &[(option.into(), value.into())]).unwrap();
            let Err(err) = e.run(&bad, &Progress::hidden()) else { panic!("--{option} {value} accepted") };
            assert!(err.is_usage() && err.to_string().contains(option), "{err}");
        }
    }

    #[test]
    fn short_milling_forms_a_circle_and_bad_flags_are_usage_errors() {
        let m = run("milling", &[("robots", "5"), ("duration", "60"), ("seeds", "1")]);
        let radius = m["radius_mm"]["mean"].as_f64().unwrap();
        assert!(radius > 100.0 && radius < 400.0, "{radius} mm");
        assert!(m["depth_error"]["mean"].as_f64().unwrap() < 0.05);
        let e = find("blueswarm", "milling").unwrap();
        let bad = Options::parse(e.options(), &[("alpha".into(), "2".into())]).unwrap();
        assert!(e.run(&bad, &Progress::hidden()).err().is_some_and(|e| e.is_usage()));
        // No model circle for 12 robots at the default alpha: refused while the pectoral is
        // chosen from it, run (with no prediction) when it is given.
        let twelve = Options::parse(e.options(), &[("robots".into(), "12".into()), ("duration".into(), "20".into())]).unwrap();
        let Err(err) = e.run(&twelve, &Progress::hidden()) else { panic!("a pectoral from no circle") };
        assert!(err.is_usage() && err.to_string().contains("--pectoral"), "{err}");
        let m = run("milling", &[("robots", "12"), ("duration", "20"), ("seeds", "1"), ("pectoral", "1.5")]);
        assert_eq!((&m["predicted_mm"], &m["radius_error"]), (&Value::Null, &Value::Null), "{m:?}");
        assert!(m["radius_mm"]["mean"].as_f64().is_some_and(|r| r > 0.0), "{m:?}");
        // A removal after the run's end never happens: refused, not run without it.
        let late = Options::parse(e.options(), &[("remove-at".into(), "500".into()), ("duration".into(), "60".into())]).unwrap();
        let Err(err) = e.run(&late, &Progress::hidden()) else { panic!("a removal after the end accepted") };
        assert!(err.is_usage() && err.to_string().contains("--remove-at") && err.to_string().contains("60 s"), "{err}");
        let bad = Options::parse(e.options(), &[("fidelity".into(), "photo".into())]).unwrap();
        let Err(err) = e.run(&bad, &Progress::hidden()) else { panic!("unknown fidelity") };
        assert!(err.is_usage() && err.to_string().contains("--fidelity"), "{err}");
        // One robot names --robots (it was refused under --alpha, with the default alpha
        // said to be above 3.142 rad).
        let one = Options::parse(e.options(), &[("robots".into(), "1".into())]).unwrap();
        let Err(err) = e.run(&one, &Progress::hidden()) else { panic!("milling with one robot") };
        assert!(err.is_usage() && err.to_string().contains("--robots"), "{err}");
    }

    #[test]
    fn short_search_finds_the_source_and_the_chain_matches_its_expectation() {
        let m = run("search", &[("duration", "90"), ("seeds", "1")]);
        assert_eq!(m["first_detection_s"]["runs_reached"], 1, "{m:?}");
        let m = run("random-walk", &[("trials", "4000"), ("tank-trials", "1"), ("max-time", "50")]);
        let mean = m["markov_mean_s"].as_f64().unwrap();
        assert!((mean - 1024.0).abs() < 5.0 * m["markov_standard_error_s"].as_f64().unwrap(), "{mean}");
    }

    #[test]
    fn short_vision_and_bench() {
        let m = run("vision", &[("placements", "5")]);
        assert!(m["distance_error_median_abs"].as_f64().unwrap() < 0.3);
        assert!(m["bearing_error_mean_deg"].as_f64().unwrap() < 2.0);
        let m = run("vision", &[("placements", "2"), ("fidelity", "rendered")]);
        assert!(m["distance_error_median_abs"].as_f64().unwrap() < 0.3);
        assert_eq!(m["fidelity"], "rendered");
        let m = run("bench", &[("robots", "3"), ("seconds", "2")]);
        assert!(m["3_robots"]["real_time_factor"].as_f64().unwrap() > 1.0);
    }
}
