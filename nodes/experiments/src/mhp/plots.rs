//! The paper's figures: success bars over velocity boxes per robot and controller (Fig.
//! 4), colour maps over failure probability and robot (Fig. 5), and cost vs modules.

use std::path::Path;

use plotters::prelude::*;

use super::stats::{quantile, Stats};
use crate::report::PlotError;

/// One box of Fig. 4: a robot (x category), a controller (colour) and its trials.
pub struct BoxCell {
    /// Category index on the x axis.
    pub category: usize,
    /// Controller index (colour and offset).
    pub series: usize,
    /// The trials' figures.
    pub stats: Stats,
}

/// One panel of Fig. 4: a condition (e.g. direction error 0.5) and its cells.
pub struct BoxPanel {
    /// Panel title.
    pub title: String,
    /// The cells.
    pub cells: Vec<BoxCell>,
}

const SERIES_COLOURS: [RGBColor; 3] = [RGBColor(230, 120, 20), RGBColor(40, 90, 200), RGBColor(60, 160, 60)];

fn to_err(path: &Path) -> impl Fn(String) -> PlotError + '_ {
    move |message| PlotError { path: path.to_path_buf(), message }
}

/// Fig. 4: per panel, success rate (bars, top) and velocities of successful trials
/// (boxes: quartiles, median, whiskers at 1.5 IQR, outliers; bottom).
pub fn plot_success_boxes(path: &Path, categories: &[String], series: &[String], panels: &[BoxPanel]) -> Result<(), PlotError> {
    let err = to_err(path);
    let width = (420 * panels.len().max(1)) as u32;
    let root = BitMapBackend::new(path, (width.max(700), 760)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let v_max = panels.iter().flat_map(|p| p.cells.iter().flat_map(|c| c.stats.velocities.iter().copied())).fold(1.0f64, f64::max) * 1.1;
    let columns = root.split_evenly((2, panels.len().max(1)));
    let n = categories.len() as f64;
    let offset = |s: usize| (s as f64 - (series.len() as f64 - 1.0) / 2.0) * 0.8 / series.len().max(1) as f64;
    let half = 0.35 / series.len().max(1) as f64;
    for (i, panel) in panels.iter().enumerate() {
        let label_of = |x: &f64| {
            let k = x.round();
            if (x - k).abs() < 1e-6 && k >= 0.0 {
                categories.get(k as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        let mut top = ChartBuilder::on(&columns[i])
            .caption(&panel.title, ("sans-serif", 18))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(45)
            .build_cartesian_2d(-0.5..n - 0.5, 0.0..105.0)
            .map_err(|e| err(e.to_string()))?;
        top.configure_mesh()
            .x_labels(categories.len().max(1))
            .x_label_formatter(&label_of)
            .y_desc("success (%)")
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for cell in &panel.cells {
            let x = cell.category as f64 + offset(cell.series);
            let colour = SERIES_COLOURS[cell.series % SERIES_COLOURS.len()];
            let rect = Rectangle::new([(x - half, 0.0), (x + half, cell.stats.success_rate() * 100.0)], colour.mix(0.7).filled());
            top.draw_series(std::iter::once(rect)).map_err(|e| err(e.to_string()))?;
        }
        let mut bottom = ChartBuilder::on(&columns[panels.len().max(1) + i])
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(45)
            .build_cartesian_2d(-0.5..n - 0.5, 0.0..v_max)
            .map_err(|e| err(e.to_string()))?;
        bottom
            .configure_mesh()
            .x_labels(categories.len().max(1))
            .x_label_formatter(&label_of)
            .y_desc("velocity of successful trials (cm/s)")
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for cell in &panel.cells {
            let v = &cell.stats.velocities;
            if v.is_empty() {
                continue;
            }
            let x = cell.category as f64 + offset(cell.series);
            let colour = SERIES_COLOURS[cell.series % SERIES_COLOURS.len()];
            let (q1, med, q3) = (quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75));
            let iqr = q3 - q1;
            let lo = v.iter().copied().find(|&x| x >= q1 - 1.5 * iqr).unwrap_or(q1);
            let hi = v.iter().rev().copied().find(|&x| x <= q3 + 1.5 * iqr).unwrap_or(q3);
            let style = colour.stroke_width(2);
            let shapes: Vec<PathElement<(f64, f64)>> = vec![
                PathElement::new(vec![(x - half, q1), (x + half, q1), (x + half, q3), (x - half, q3), (x - half, q1)], style),
                PathElement::new(vec![(x - half, med), (x + half, med)], BLACK.stroke_width(2)),
                PathElement::new(vec![(x, q3), (x, hi)], style),
                PathElement::new(vec![(x, q1), (x, lo)], style),
                PathElement::new(vec![(x - half / 2.0, hi), (x + half / 2.0, hi)], style),
                PathElement::new(vec![(x - half / 2.0, lo), (x + half / 2.0, lo)], style),
            ];
            bottom.draw_series(shapes).map_err(|e| err(e.to_string()))?;
            let outliers = v.iter().filter(|&&y| y < lo || y > hi).map(|&y| Circle::new((x, y), 2, colour.filled()));
            bottom.draw_series(outliers).map_err(|e| err(e.to_string()))?;
        }
    }
    // Legend: the series names in their colours, top left.
    for (s, name) in series.iter().enumerate() {
        let colour = SERIES_COLOURS[s % SERIES_COLOURS.len()];
        root.draw(&Text::new(format!("■ {name}"), (10, 4 + 16 * s as i32), ("sans-serif", 15).into_font().color(&colour)))
            .map_err(|e| err(e.to_string()))?;
    }
    root.present().map_err(|e| err(e.to_string()))
}

/// One colour map: what it shows, its full-scale value and how a cell's value is read.
type MapPanel = (&'static str, f64, fn(&Stats) -> f64);

/// A colour from dark blue (0) through teal to yellow (1).
fn colour_map(t: f64) -> RGBColor {
    let stops = [(68.0, 1.0, 84.0), (33.0, 145.0, 140.0), (253.0, 231.0, 37.0)];
    let t = t.clamp(0.0, 1.0) * 2.0;
    let (a, b, f) = if t < 1.0 { (stops[0], stops[1], t) } else { (stops[1], stops[2], t - 1.0) };
    let mix = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Fig. 5: colour maps of success rate and median velocity (0 where no trial succeeded)
/// over failure probability (x) and robot (y); `grid[row][column]`.
pub fn plot_failure_maps(path: &Path, title: &str, robots: &[String], probabilities: &[f64], grid: &[Vec<Stats>]) -> Result<(), PlotError> {
    let err = to_err(path);
    let root = BitMapBackend::new(path, (1000, 760)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let halves = root.split_evenly((2, 1));
    let v_max = grid.iter().flatten().map(Stats::median_velocity).fold(1e-9, f64::max);
    let maps: [MapPanel; 2] =
        [("success rate", 1.0, Stats::success_rate), ("median velocity of successful trials (cm/s)", v_max, Stats::median_velocity)];
    for (area, (what, scale, value)) in halves.iter().zip(maps) {
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{title}: {what} (colour 0 .. {scale:.2})"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5..probabilities.len() as f64 - 0.5, -0.5..robots.len() as f64 - 0.5)
            .map_err(|e| err(e.to_string()))?;
        let px = |x: &f64| probabilities.get(x.round().max(0.0) as usize).map_or_else(String::new, |p| format!("{p}"));
        let py = |y: &f64| robots.get(y.round().max(0.0) as usize).cloned().unwrap_or_default();
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(probabilities.len().max(1))
            .y_labels(robots.len().max(1))
            .x_label_formatter(&px)
            .y_label_formatter(&py)
            .x_desc("failure probability")
            .draw()
            .map_err(|e| err(e.to_string()))?;
        for (r, row) in grid.iter().enumerate() {
            for (c, stats) in row.iter().enumerate() {
                let v = value(stats);
                let (x, y) = (c as f64, r as f64);
                chart
                    .draw_series(std::iter::once(Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], colour_map(v / scale).filled())))
                    .map_err(|e| err(e.to_string()))?;
                let ink = if v / scale > 0.6 { BLACK } else { WHITE };
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!("{v:.2}"),
                        (x - 0.2, y + 0.1),
                        ("sans-serif", 13).into_font().color(&ink),
                    )))
                    .map_err(|e| err(e.to_string()))?;
            }
        }
    }
    root.present().map_err(|e| err(e.to_string()))
}

/// Cost vs modules (log-log): wall seconds per simulated second, and the real-time line.
pub fn plot_cost(path: &Path, points: &[(usize, f64)]) -> Result<(), PlotError> {
    let err = to_err(path);
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let x_max = points.iter().map(|p| p.0 as f64).fold(10.0, f64::max) * 2.0;
    let y_min = points.iter().map(|p| p.1).fold(1.0, f64::min) / 2.0;
    let y_max = points.iter().map(|p| p.1).fold(1.0, f64::max) * 2.0;
    let mut chart = ChartBuilder::on(&root)
        .caption("MHP model: cost of one simulated second (one core)", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((0.5..x_max).log_scale(), (y_min..y_max).log_scale())
        .map_err(|e| err(e.to_string()))?;
    chart.configure_mesh().x_desc("modules (log)").y_desc("CPU s per simulated s (log)").draw().map_err(|e| err(e.to_string()))?;
    chart
        .draw_series(LineSeries::new(points.iter().map(|&(m, c)| (m as f64, c)), BLUE.stroke_width(2)))
        .map_err(|e| err(e.to_string()))?
        .label("one 50 s trial, decentralised")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
    chart.draw_series(points.iter().map(|&(m, c)| Circle::new((m as f64, c), 4, BLUE.filled()))).map_err(|e| err(e.to_string()))?;
    chart
        .draw_series(LineSeries::new([(0.5, 1.0), (x_max, 1.0)], RED.stroke_width(1)))
        .map_err(|e| err(e.to_string()))?
        .label("real time")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    chart
        .draw_series(LineSeries::new([(0.5, 0.01), (x_max, 0.01)], RED.mix(0.4).stroke_width(1)))
        .map_err(|e| err(e.to_string()))?
        .label("100x real time")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.mix(0.4)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}
