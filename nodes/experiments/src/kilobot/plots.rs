//! The study's figures: end state (world "o" vs believed "+"), world and believed paths,
//! position along the shared path per step, localisation RMSE per step.

use super::run::Frame;
use crate::report::PlotError;
use flotilla_firmware::kilobot::{Shape, State};
use plotters::prelude::*;
use std::path::Path;

/// A robot at the end of a run.
#[derive(Clone, Debug)]
pub struct EndRobot {
    /// True position, world units.
    pub world: [f64; 2],
    /// Believed position, world units.
    pub believed: [f64; 2],
    /// Its state.
    pub state: State,
    /// Whether it is a seed.
    pub seed: bool,
}

fn colour(r: &EndRobot) -> RGBColor {
    match (r.seed, r.state) {
        (true, _) => RED,
        (_, State::JoinedShape) => RGBColor(0, 120, 0),
        (_, State::MoveWhileOutside | State::MoveWhileInside) => RGBColor(230, 130, 0),
        _ => RGBColor(110, 110, 110),
    }
}

fn extent(points: impl Iterator<Item = [f64; 2]>, shape: &Shape) -> ((f64, f64), (f64, f64)) {
    let (mut lo, mut hi) = ([0.0f64, 0.0f64], [shape.width() as f64 * shape.scale(), shape.height() as f64 * shape.scale()]);
    for p in points {
        if p[0].is_finite() && p[1].is_finite() {
            lo = [lo[0].min(p[0]), lo[1].min(p[1])];
            hi = [hi[0].max(p[0]), hi[1].max(p[1])];
        }
    }
    // Square axes: one world unit is as long on x as on y.
    let side = (hi[0] - lo[0]).max(hi[1] - lo[1]) + 2.0;
    let c = [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0];
    ((c[0] - side / 2.0, c[0] + side / 2.0), (c[1] - side / 2.0, c[1] + side / 2.0))
}

type Chart<'a> =
    ChartContext<'a, BitMapBackend<'a>, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>;

fn draw_shape(chart: &mut Chart, shape: &Shape) -> Result<(), String> {
    // At most ~40,000 cells drawn: coarser blocks for big bitmaps.
    let step = ((shape.width() * shape.height()) as f64 / 40_000.0).sqrt().ceil().max(1.0) as usize;
    let s = shape.scale();
    let mut cells = Vec::new();
    for r in (0..shape.height()).step_by(step) {
        for c in (0..shape.width()).step_by(step) {
            if shape.pixel(c, r) {
                let (x, y) = (c as f64 * s, r as f64 * s);
                cells.push(Rectangle::new([(x, y), (x + s * step as f64, y + s * step as f64)], RGBColor(200, 235, 200).filled()));
            }
        }
    }
    chart.draw_series(cells).map_err(|e| e.to_string())?;
    Ok(())
}

/// End state: the shape, each robot's true position ("o", coloured by state) and believed
/// position ("+").
pub fn end_state(path: &Path, title: &str, shape: &Shape, robots: &[EndRobot]) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let root = BitMapBackend::new(path, (900, 900)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (xr, yr) = extent(robots.iter().map(|r| r.world), shape);
    let many = robots.len() > 300;
    let size = if many { 2 } else { 6 };
    let draw = || -> Result<(), String> {
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)
            .map_err(|e| e.to_string())?;
        chart.configure_mesh().x_desc("x (robot diameters)").y_desc("y (robot diameters)").draw().map_err(|e| e.to_string())?;
        draw_shape(&mut chart, shape)?;
        chart
            .draw_series(robots.iter().map(|r| Circle::new((r.world[0], r.world[1]), size, colour(r).stroke_width(1))))
            .map_err(|e| e.to_string())?
            .label("world position (o); green joined, orange edge-following, grey waiting, red seeds")
            .legend(|(x, y)| Circle::new((x + 10, y), 5, BLACK.stroke_width(1)));
        chart
            .draw_series(
                robots
                    .iter()
                    .filter(|r| r.state != State::Start || r.seed)
                    .map(|r| Cross::new((r.believed[0], r.believed[1]), size, BLUE.stroke_width(1))),
            )
            .map_err(|e| e.to_string())?
            .label("believed position (+)")
            .legend(|(x, y)| Cross::new((x + 10, y), 5, BLUE.stroke_width(1)));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::LowerRight)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(err)
}

/// World paths (left) and believed paths (right) of every robot that moved.
pub fn paths(path: &Path, title: &str, shape: &Shape, frames: &[Frame], seeds: usize) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let root = BitMapBackend::new(path, (1600, 820)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let n = frames.first().map_or(0, |f| f.world.len());
    let movers: Vec<usize> = (seeds..n).filter(|&i| frames.iter().any(|f| f.moving[i])).collect();
    let panels = root.split_evenly((1, 2));
    for (panel, (label, believed)) in panels.iter().zip([("world paths", false), ("believed (local) paths", true)]) {
        let pick = |f: &Frame, i: usize| if believed { f.believed[i] } else { f.world[i] };
        let points = frames.iter().flat_map(|f| movers.iter().map(move |&i| pick(f, i).map(f64::from)));
        let (xr, yr) = extent(points, shape);
        let draw = || -> Result<(), String> {
            let mut chart = ChartBuilder::on(panel)
                .caption(format!("{title}: {label}"), ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(35)
                .y_label_area_size(45)
                .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)
                .map_err(|e| e.to_string())?;
            chart.configure_mesh().x_desc("x (robot diameters)").y_desc("y (robot diameters)").draw().map_err(|e| e.to_string())?;
            draw_shape(&mut chart, shape)?;
            for (k, &i) in movers.iter().enumerate() {
                let c = Palette99::pick(k).to_rgba();
                chart
                    .draw_series(LineSeries::new(
                        frames.iter().map(|f| pick(f, i)).map(|p| (f64::from(p[0]), f64::from(p[1]))),
                        c.stroke_width(1),
                    ))
                    .map_err(|e| e.to_string())?;
            }
            Ok(())
        };
        draw().map_err(err)?;
    }
    root.present().map_err(|e| err(e.to_string()))
}

/// Position of each robot along the shared path per step (crossings are collisions).
pub fn shared_path(path: &Path, title: &str, lines: &[Vec<(u64, f64)>]) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let root = BitMapBackend::new(path, (1100, 650)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let t_max = lines.iter().flatten().map(|p| p.0).max().unwrap_or(1) as f64;
    let s_max = lines.iter().flatten().map(|p| p.1).fold(1.0, f64::max);
    let draw = || -> Result<(), String> {
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_max, 0.0..s_max * 1.02)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("step")
            .y_desc("position along the shared path (robot diameters)")
            .draw()
            .map_err(|e| e.to_string())?;
        for (k, line) in lines.iter().enumerate() {
            let c = Palette99::pick(k).to_rgba();
            // Break the line where the robot left the path.
            let mut segment: Vec<(f64, f64)> = Vec::new();
            let mut last_step = None;
            for &(t, s) in line {
                if last_step.is_some_and(|l: u64| t > l + 50) && !segment.is_empty() {
                    chart.draw_series(LineSeries::new(std::mem::take(&mut segment), c.stroke_width(2))).map_err(|e| e.to_string())?;
                }
                segment.push((t as f64, s));
                last_step = Some(t);
            }
            chart.draw_series(LineSeries::new(segment, c.stroke_width(2))).map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(err)
}

/// The RMSE curve's points (step, value at least `floor` for the log axis), leaving out
/// the steps before any robot had a position (NaN: `f64::max` made them `floor`, a line
/// from the chart's bottom at step 0 that read as an error of 1e-6).
fn rmse_points(rmse: &[f32], floor: f64) -> Vec<(f64, f64)> {
    rmse.iter().enumerate().filter(|(_, v)| v.is_finite()).map(|(i, v)| (i as f64, f64::from(*v).max(floor))).collect()
}

/// Localisation RMSE (world units, log scale) per step.
pub fn rmse(path: &Path, title: &str, rmse: &[f32], startup: u32) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let root = BitMapBackend::new(path, (1000, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let shown = rmse.len().min((startup as usize * 4).max(1000));
    let floor = 1e-6f64;
    let top = rmse[..shown].iter().map(|v| f64::from(*v)).fold(floor * 10.0, f64::max) * 1.5;
    let draw = || -> Result<(), String> {
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..shown as f64, (floor..top).log_scale())
            .map_err(|e| e.to_string())?;
        chart.configure_mesh().x_desc("step").y_desc("localisation RMSE (robot diameters)").draw().map_err(|e| e.to_string())?;
        chart.draw_series(LineSeries::new(rmse_points(&rmse[..shown], floor), BLUE.stroke_width(2))).map_err(|e| e.to_string())?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(f64::from(startup), floor), (f64::from(startup), top)],
                BLACK.stroke_width(1),
            )))
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())
    };
    draw().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::rmse_points;

    #[test]
    fn steps_without_a_position_are_not_drawn_at_the_floor() {
        let points = rmse_points(&[f32::NAN, f32::NAN, 2.0, 0.0], 1e-6);
        assert_eq!(points, [(2.0, 2.0), (3.0, 1e-6)]);
    }
}
