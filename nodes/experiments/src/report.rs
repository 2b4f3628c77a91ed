//! Yield tables (Markdown) and plots (PNG, plotters) of seed sweeps.

use crate::batch::YieldCurve;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// A plot that could not be drawn or written.
#[derive(Debug, thiserror::Error)]
#[error("plot {path}: {message}")]
pub struct PlotError {
    /// The output file.
    pub path: PathBuf,
    /// The drawing backend's message.
    pub message: String,
}

/// Mean yield over time (line) and the range over seeds (band) of each curve, in percent.
pub fn plot_yield(path: &Path, title: &str, curves: &[YieldCurve]) -> Result<(), PlotError> {
    plot_yield_panels(path, &[(title, curves)])
}

/// Several yield plots side by side in one PNG: (title, curves) per panel.
pub fn plot_yield_panels(path: &Path, panels: &[(&str, &[YieldCurve])]) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let width = 1000 * panels.len().max(1) as u32;
    let root = BitMapBackend::new(path, (width, 620)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let areas = root.split_evenly((1, panels.len().max(1)));
    let mut colour_index = 0;
    for (area, (title, curves)) in areas.iter().zip(panels) {
        draw_panel(area, title, curves, &mut colour_index).map_err(err)?;
    }
    root.present().map_err(|e| err(e.to_string()))
}

fn draw_panel(
    area: &DrawingArea<BitMapBackend, plotters::coord::Shift>,
    title: &str,
    curves: &[YieldCurve],
    colour_index: &mut usize,
) -> Result<(), String> {
    let t_max = curves.iter().filter_map(|c| c.times.last()).copied().fold(1.0, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..t_max, 0.0..100.0)
        .map_err(|e| e.to_string())?;
    chart.configure_mesh().x_desc("sim time (s)").y_desc("yield (% of the most targets possible)").draw().map_err(|e| e.to_string())?;
    for curve in curves {
        let colour = Palette99::pick(*colour_index).to_rgba();
        *colour_index += 1;
        let band: Vec<(f64, f64)> = curve
            .times
            .iter()
            .zip(&curve.max)
            .map(|(t, v)| (*t, v * 100.0))
            .chain(curve.times.iter().zip(&curve.min).rev().map(|(t, v)| (*t, v * 100.0)))
            .collect();
        chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.12).filled()))).map_err(|e| e.to_string())?;
        let label = format!("{} (mean of {} seeds; band: min-max)", curve.label, curve.runs);
        chart
            .draw_series(LineSeries::new(curve.times.iter().zip(&curve.mean).map(|(t, v)| (*t, v * 100.0)), colour.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(|e| e.to_string())
}

/// A Markdown table of mean yield (min-max) at the given times, one row per curve.
pub fn yield_table(curves: &[YieldCurve], times: &[f64]) -> String {
    let mut out = String::from("| experiment | seeds |");
    for t in times {
        out += &format!(" yield at {t:.0} s |");
    }
    out += "\n|---|---|";
    out += &"---|".repeat(times.len());
    out.push('\n');
    for curve in curves {
        out += &format!("| {} | {} |", curve.label, curve.runs);
        for &t in times {
            out += &match curve.at(t) {
                Some((mean, lo, hi)) => format!(" {:.1} % ({:.0}-{:.0}) |", mean * 100.0, lo * 100.0, hi * 100.0),
                None => " - |".to_owned(),
            };
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(label: &str) -> YieldCurve {
        YieldCurve {
            label: label.into(),
            times: vec![0.0, 10.0, 20.0],
            mean: vec![0.0, 1.0 / 3.0, 0.5],
            min: vec![0.0, 0.0, 1.0 / 3.0],
            max: vec![0.0, 2.0 / 3.0, 2.0 / 3.0],
            runs: 3,
        }
    }

    /// Width and height from a PNG's IHDR chunk.
    fn image_size(png: &[u8]) -> (u32, u32) {
        let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
        (be(16), be(20))
    }

    #[test]
    fn table_by_hand() {
        let table = yield_table(&[curve("a")], &[10.0, 15.0, 30.0]);
        let row = table.lines().nth(2).unwrap();
        // 10 s: 33.3 % (0-67); 15 s -> next sample, 20 s: 50.0 % (33-67); 30 s: none.
        assert_eq!(row, "| a | 3 | 33.3 % (0-67) | 50.0 % (33-67) | - |");
    }

    #[test]
    fn plot_writes_a_png() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("yield.png");
        plot_yield(&path, "test", &[curve("a"), curve("b")]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        let two = dir.path().join("two.png");
        plot_yield_panels(&two, &[("left", &[curve("a")][..]), ("right", &[curve("b")][..])]).unwrap();
        let image = image_size(&std::fs::read(&two).unwrap());
        assert_eq!(image, (2000, 620), "two panels side by side");
        let bad = plot_yield(&dir.path().join("missing/dir/x.png"), "t", &[curve("a")]);
        assert!(bad.unwrap_err().to_string().contains("missing/dir"));
    }
}
