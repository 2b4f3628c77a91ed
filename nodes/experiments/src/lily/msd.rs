//! `lily msd`: MSD of the ball tank (24 balls) for a few pump powers and water levels
//! (SPEC 1: the oscillation then the plateau; more power or a lower level gives a lower
//! plateau and an earlier first peak): plateau and first peak per setting, the curves as
//! CSV and a plot. The defaults give the README's figures and `docs/tank_msd.png`:
//! `flotilla experiment lily msd --out DIR` (2 seeds x 600 s per setting).

use flotilla_common::catalogue::ModuleKind;
use flotilla_common::msd::{pooled_mean_squared_displacement, MsdCurve, MsdSettings, TrackSet};
use nalgebra::Vector2;
use rayon::prelude::*;
use serde_json::{json, Map};
use tank_physics::{World, WorldConfig};

use calibration::output::plots::plot_msd;

use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use crate::report::PlotError;

/// 60 s windows of 25 ms steps, started every second.
const WINDOW: usize = 2400;
const STRIDE: usize = 40;
/// Smallest MSD a first peak must reach, m^2 (below: numerical wiggles at short lags).
const PEAK_MIN_HEIGHT: f64 = 1e-4;
/// Share of the window's last lags the plateau averages.
const PLATEAU_FRACTION: f64 = 0.5;

/// The MSD study.
pub struct MsdStudy;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "seeds", kind: OptionKind::Count, default: "2", help: "simulations per setting (their MSDs are pooled)" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "0", help: "first seed (seeds seed..seed+seeds)" },
    OptionSpec {
        name: "duration",
        kind: OptionKind::Positive,
        default: "600",
        help: "sim time per simulation, s (more than the 60 s window)",
    },
    OptionSpec { name: "pumps", kind: OptionKind::Numbers, default: "40,68.6,90", help: "pump powers at the reference level, %" },
    OptionSpec {
        name: "levels",
        kind: OptionKind::Numbers,
        default: "-7,-9",
        help: "water levels at the reference pump power, cm below the rim",
    },
    OptionSpec { name: "reference_pump", kind: OptionKind::Positive, default: "68.6", help: "pump power of the level settings, %" },
    OptionSpec {
        name: "reference_level",
        kind: OptionKind::Numbers,
        default: "-8",
        help: "water level of the pump settings, cm below the rim",
    },
    OptionSpec { name: "balls", kind: OptionKind::Count, default: "24", help: "ping-pong balls in the tank" },
];

/// One pump power and water level.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Setting {
    /// Pump power, %.
    power: f64,
    /// Water level, m (negative: below the rim).
    level: f64,
}

impl Setting {
    fn label(&self) -> String {
        format!("{} %, level {:.0} cm", self.power, self.level * 100.0)
    }

    /// A CSV column name (no commas).
    fn column(&self) -> String {
        format!("msd_m2_pump_{}_pct_level_{:.0}_cm", self.power, self.level * 100.0)
    }
}

/// What one simulation gives: the tracks and the mean speed and distance from the centre.
struct Simulated {
    tracks: Vec<Vec<Option<Vector2<f64>>>>,
    /// Mean ball speed over the run, m/s.
    mean_speed: f64,
    /// Mean ball distance from the tank's centre, m.
    mean_radius: f64,
}

fn simulate(setting: Setting, balls: usize, seconds: f64, seed: u64) -> Result<(f64, Simulated), ExperimentError> {
    let mut config = WorldConfig::default().with_modules(ModuleKind::PingPongBall, balls, "ball").with_pump_power(setting.power);
    config.arena.water_level = setting.level;
    let steps = (seconds / config.dt) as usize;
    let mut world = World::new(config.clone(), seed)?;
    let mut tracks = (0..balls).map(|_| Vec::with_capacity(steps)).collect::<Vec<_>>();
    let mut speed = 0.0;
    let mut radius = 0.0;
    for _ in 0..steps {
        world.step();
        let bodies = world.bodies();
        speed += bodies.iter().map(|b| b.linvel.norm()).sum::<f64>() / bodies.len() as f64;
        radius += bodies.iter().map(|b| b.pose.translation.vector.xy().norm()).sum::<f64>() / bodies.len() as f64;
        for (track, body) in tracks.iter_mut().zip(&bodies) {
            track.push(Some(body.pose.translation.vector.xy()));
        }
    }
    let n = steps.max(1) as f64;
    Ok((config.dt, Simulated { tracks, mean_speed: speed / n, mean_radius: radius / n }))
}

impl Experiment for MsdStudy {
    fn system(&self) -> &'static str {
        "lily"
    }

    fn name(&self) -> &'static str {
        "msd"
    }

    fn description(&self) -> &'static str {
        "MSD of the stirred ball tank per pump power and water level: plateau and first peak"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let seeds = options.count("seeds")?;
        let seconds = options.number("duration")?;
        let balls = options.count("balls")?;
        let reference_pump = options.number("reference_pump")?;
        let [reference_level] = options.numbers("reference_level")?[..] else {
            return Err(ExperimentError::Option { option: "reference_level".into(), message: "expected one level".into() });
        };
        let mut settings: Vec<Setting> =
            options.numbers("pumps")?.into_iter().map(|power| Setting { power, level: reference_level / 100.0 }).collect();
        for level in options.numbers("levels")? {
            let setting = Setting { power: reference_pump, level: level / 100.0 };
            if !settings.contains(&setting) {
                settings.push(setting);
            }
        }
        let window_seconds = WINDOW as f64 * 0.025;
        if seconds <= window_seconds {
            return Err(ExperimentError::Option {
                option: "duration".into(),
                message: format!("must be more than the {window_seconds} s MSD window, got {seconds} s"),
            });
        }
        let seed_list = options.seed_range("seed", "seeds")?;
        let jobs: Vec<(usize, u64)> = (0..settings.len()).flat_map(|k| seed_list.clone().map(move |s| (k, s))).collect();
        progress.expect(jobs.len(), "ball-tank MSD");
        let runs: Vec<(f64, Simulated)> = jobs
            .par_iter()
            .map(|&(k, seed)| {
                let run = simulate(settings[k], balls, seconds, seed);
                progress.finished_one();
                run
            })
            .collect::<Result<_, _>>()?;
        let msd_settings = MsdSettings { window_frames: WINDOW, start_stride: STRIDE };
        let mut metrics = Map::new();
        let mut curves = Vec::new();
        for (k, setting) in settings.iter().enumerate() {
            let mine: Vec<&(f64, Simulated)> = jobs.iter().zip(&runs).filter(|((j, _), _)| *j == k).map(|(_, r)| r).collect();
            let sets: Vec<TrackSet<'_>> = mine.iter().map(|(dt, s)| TrackSet { dt: *dt, tracks: &s.tracks }).collect();
            let curve = pooled_mean_squared_displacement(&sets, &msd_settings)?;
            let peak = curve.first_peak(PEAK_MIN_HEIGHT);
            let at =
                |seconds: f64| number(curve.values[((seconds / curve.dt).round() as usize).saturating_sub(1).min(curve.values.len() - 1)]);
            let mean = |f: &dyn Fn(&Simulated) -> f64| mine.iter().map(|(_, s)| f(s)).sum::<f64>() / mine.len() as f64;
            metrics.insert(
                setting.label(),
                json!({
                    "pump_pct": number(setting.power),
                    "level_cm": number(setting.level * 100.0),
                    "plateau_m2": number(curve.plateau(PLATEAU_FRACTION)),
                    "first_peak_s": peak.map(|i| number(curve.lag(i))),
                    "first_peak_m2": peak.map(|i| number(curve.values[i])),
                    "msd_m2_at_s": { "1": at(1.0), "2": at(2.0), "5": at(5.0), "10": at(10.0), "30": at(30.0), "60": at(60.0) },
                    "mean_speed_m_per_s": number(mean(&|s| s.mean_speed)),
                    "mean_radius_m": number(mean(&|s| s.mean_radius)),
                }),
            );
            curves.push((*setting, curve));
        }
        let table = msd_table(&curves);
        let title = format!("MSD of {balls} balls, 60 s windows ({seeds} seed(s) x {seconds} s)");
        let draw = move |path: &std::path::Path| {
            let labels: Vec<String> = curves.iter().map(|(s, _)| s.label()).collect();
            let borrowed: Vec<(&str, &MsdCurve)> = labels.iter().zip(&curves).map(|(l, (_, c))| (l.as_str(), c)).collect();
            plot_msd(path, &title, &borrowed).map_err(|e| PlotError { path: path.to_path_buf(), message: e.to_string() })
        };
        Ok(Outcome {
            metrics,
            tables: vec![table],
            plots: vec![Plot { file: "msd.png".into(), draw: Box::new(draw) }],
            report: String::new(),
        })
    }
}

/// `msd.csv`: one row per lag, one column per setting (m^2).
fn msd_table(curves: &[(Setting, MsdCurve)]) -> Table {
    let mut header = vec!["lag_s".to_owned()];
    header.extend(curves.iter().map(|(setting, _)| setting.column()));
    let lags = curves.first().map_or(0, |(_, c)| c.values.len());
    let rows = (0..lags)
        .map(|i| {
            let mut row = vec![format!("{:.3}", curves[0].1.lag(i))];
            row.extend(curves.iter().map(|(_, c)| format!("{:.6e}", c.values[i])));
            row
        })
        .collect();
    Table { file: "msd.csv".into(), header, rows }
}
