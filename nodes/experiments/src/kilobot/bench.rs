//! `flotilla experiment kilobot bench`: the cost of one step of the whole swarm
//! (table, IR channel, every robot's self-assembly firmware) in-process on one thread,
//! for several swarm sizes, against real time (one step = 32.5 ms at 1 cm/s).

use super::layout::{shape_from_image, Arrangement, Headings, LayoutError};
use super::run::{RunError, Scenario, Swarm};
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use crate::report::PlotError;
use flotilla_firmware::kilobot::{SelfAssemblyParams, Shape};
use plotters::prelude::*;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Instant;
use tank_physics::systems::kilobot::{ChannelConfig, TableConfig};

/// The experiment.
pub struct Bench;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "robots", kind: OptionKind::Numbers, default: "64,256,1024,4096,10000", help: "swarm sizes (non-seed robots)" },
    OptionSpec {
        name: "steps",
        kind: OptionKind::Count,
        default: "1500",
        help: "steps timed per size (from power-on: start-up, then departures)",
    },
    OptionSpec {
        name: "shape",
        kind: OptionKind::Path,
        default: concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/shapes/k_shape.png"),
        help: "shape image, scaled so that it holds each swarm",
    },
    OptionSpec { name: "channel", kind: OptionKind::Text, default: "shared", help: "ideal | shared" },
    OptionSpec { name: "seed", kind: OptionKind::Seed, default: "1", help: "run seed" },
];

/// Cost of one swarm size.
struct Point {
    robots: usize,
    steps: u64,
    /// CPU time of the stepping thread, s.
    seconds: f64,
    /// Wall time, s (includes time other processes took the core).
    wall: f64,
}

impl Point {
    fn ms_per_step(&self) -> f64 {
        self.seconds * 1e3 / self.steps as f64
    }
    fn real_time_factor(&self) -> f64 {
        32.5 / self.ms_per_step()
    }
}

impl Experiment for Bench {
    fn system(&self) -> &'static str {
        "kilobot"
    }

    fn name(&self) -> &'static str {
        "bench"
    }

    fn description(&self) -> &'static str {
        "speed of the full swarm (table, IR channel, firmware) per step on one thread (thread CPU time), against real time"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let sizes: Vec<usize> = options
            .numbers("robots")?
            .iter()
            .map(|v| if *v >= 1.0 && v.fract() == 0.0 { Ok(*v as usize) } else { Err(bad("robots", format!("{v} is not a count >= 1"))) })
            .collect::<Result<_, _>>()?;
        let steps = options.count("steps")? as u64;
        let path = options.path("shape")?.ok_or_else(|| bad("shape", "give an image file"))?;
        let unit = shape_from_image(&path, 1.0).map_err(|e| bad("shape", e.to_string()))?;
        let mut channel = ChannelConfig::default();
        match options.text("channel")? {
            "ideal" => {}
            "shared" => channel = channel.shared(),
            other => return Err(bad("channel", format!("`{other}` is not ideal or shared"))),
        }
        let params = SelfAssemblyParams::default();
        progress.expect(sizes.len(), "swarm sizes");
        let mut points = Vec::new();
        for &robots in &sizes {
            // Scale the image so that its area holds the swarm at hexagonal spacing.
            let per_robot = 3f64.sqrt() / 2.0 * params.desired_distance.powi(2);
            let scale = ((robots + 4) as f64 * per_robot / unit.area()).sqrt();
            let shape = rescale(&unit, scale).map_err(|e| bad("shape", e.to_string()))?;
            let scenario = Scenario {
                shape: Arc::new(shape),
                params,
                table: TableConfig { channel, ..TableConfig::default() },
                robots,
                arrangement: Arrangement::Corner,
                headings: Headings::Random,
                pack_spacing: params.desired_distance,
                clearance: 1.5,
                max_steps: steps,
                record_every: 0,
                loop_check_every: 1000,
                seed: options.seed("seed")?,
            };
            // A shape the seeds cannot stand on, or in parts, is the image's fault at any size.
            let (mut swarm, _) = Swarm::new(&scenario).map_err(|e| match e {
                RunError::Layout(l @ (LayoutError::SeedsOffShape { .. } | LayoutError::Disconnected { .. })) => bad("shape", l.to_string()),
                other => bad("robots", other.to_string()),
            })?;
            let (started, cpu) = (Instant::now(), thread_cpu_seconds());
            for _ in 0..steps {
                swarm.step().map_err(|e| bad("robots", e.to_string()))?;
            }
            let point = Point { robots, steps, seconds: thread_cpu_seconds() - cpu, wall: started.elapsed().as_secs_f64() };
            tracing::info!(robots, ms_per_step = point.ms_per_step(), real_time_factor = point.real_time_factor(), "kilobot bench");
            points.push(point);
            progress.finished_one();
        }
        let mut metrics = Map::new();
        for p in &points {
            let mut entry = Map::new();
            entry.insert("ms_per_step".into(), number(p.ms_per_step()));
            entry.insert("us_per_robot_step".into(), number(p.ms_per_step() * 1e3 / p.robots as f64));
            entry.insert("real_time_factor".into(), number(p.real_time_factor()));
            entry.insert("wall_ms_per_step".into(), number(p.wall * 1e3 / p.steps as f64));
            metrics.insert(format!("robots_{}", p.robots), Value::Object(entry));
        }
        let rows = points
            .iter()
            .map(|p| {
                vec![
                    p.robots.to_string(),
                    p.steps.to_string(),
                    format!("{:.4}", p.ms_per_step()),
                    format!("{:.3}", p.ms_per_step() * 1e3 / p.robots as f64),
                    format!("{:.1}", p.real_time_factor()),
                ]
            })
            .collect();
        let header = ["robots", "steps", "ms_per_step", "us_per_robot_step", "real_time_factor"].iter().map(|h| (*h).to_owned()).collect();
        let series: Vec<(f64, f64)> = points.iter().map(|p| (p.robots as f64, p.ms_per_step())).collect();
        let plot = Plot { file: "bench.png".into(), draw: Box::new(move |path| plot_cost(path, &series)) };
        Ok(Outcome { metrics, tables: vec![Table { file: "bench.csv".into(), header, rows }], plots: vec![plot], report: String::new() })
    }
}

/// CPU time this thread has used, s.
fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    if ok {
        t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
    } else {
        0.0
    }
}

fn rescale(unit: &Shape, scale: f64) -> Result<Shape, flotilla_firmware::kilobot::ShapeError> {
    let bits = (0..unit.height()).flat_map(|r| (0..unit.width()).map(move |c| (c, r))).map(|(c, r)| unit.pixel(c, r)).collect();
    Shape::new(unit.width(), unit.height(), scale, bits)
}

fn plot_cost(path: &std::path::Path, series: &[(f64, f64)]) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let x_max = series.iter().map(|p| p.0).fold(10.0, f64::max) * 1.5;
    let y_max = series.iter().map(|p| p.1).fold(32.5, f64::max) * 1.5;
    let y_min = series.iter().map(|p| p.1).fold(f64::INFINITY, f64::min).min(0.1) / 1.5;
    let draw = || -> Result<(), String> {
        let mut chart = ChartBuilder::on(&root)
            .caption("cost of one swarm step (one thread)", ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((10.0..x_max).log_scale(), (y_min..y_max).log_scale())
            .map_err(|e| e.to_string())?;
        chart.configure_mesh().x_desc("robots").y_desc("ms per step").draw().map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(series.iter().copied(), BLUE.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label("measured")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
        chart.draw_series(series.iter().map(|p| Circle::new(*p, 4, BLUE.filled()))).map_err(|e| e.to_string())?;
        for (factor, colour) in [(1.0, BLACK), (20.0, RED), (200.0, GREEN)] {
            chart
                .draw_series(LineSeries::new([(10.0, 32.5 / factor), (x_max, 32.5 / factor)], colour.stroke_width(1)))
                .map_err(|e| e.to_string())?
                .label(format!("{factor}x real time"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(err)
}

/// An error about option `name`.
fn bad(name: &str, message: impl Into<String>) -> ExperimentError {
    Options::invalid(name, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: an image whose shape does not cover its lower-left corner was reported
    /// as a bad `--robots`.
    #[test]
    fn a_shape_off_the_corner_names_the_shape() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("off.png");
        image::GrayImage::from_fn(20, 10, |x, y| image::Luma([if (5..15).contains(&x) && (2..8).contains(&y) { 0 } else { 255 }]))
            .save(&path)
            .unwrap();
        let given = [("robots", "16"), ("steps", "1"), ("shape", path.to_str().unwrap())];
        let options = Options::parse(OPTIONS, &given.map(|(a, b)| (a.to_owned(), b.to_owned()))).unwrap();
        let e = Bench.run(&options, &Progress::hidden()).err().unwrap().to_string();
        assert!(e.starts_with("option --shape: the seeds sit centred on the image's lower-left corner"), "{e}");
    }
}
