//! Line plots of the Blueswarm experiments.

use crate::report::PlotError;
use plotters::prelude::*;
use std::path::Path;

/// One line: a label and its (x, y) points.
pub type Series = (String, Vec<(f64, f64)>);

/// Lines over a shared x axis; `log_y` draws y on a log scale (positive values only).
pub fn lines(path: &Path, title: &str, x_label: &str, y_label: &str, series: &[Series], log_y: bool) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let finite = |v: &&(f64, f64)| v.0.is_finite() && v.1.is_finite() && (!log_y || v.1 > 0.0);
    let all: Vec<(f64, f64)> = series.iter().flat_map(|(_, s)| s.iter().filter(finite).copied()).collect();
    let (x0, x1) = all.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (x0, x1) = if x0.is_finite() && x1 > x0 { (x0, x1) } else { (0.0, 1.0) };
    let (y0, y1) = y_range(&all, log_y);
    let root = BitMapBackend::new(path, (1000, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut builder = ChartBuilder::on(&root);
    builder.caption(title, ("sans-serif", 22)).margin(15).x_label_area_size(45).y_label_area_size(70);
    // The same lines on either y axis (the two chart types differ, so a macro, not a fn).
    macro_rules! draw_lines {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart.configure_mesh().x_desc(x_label).y_desc(y_label).draw().map_err(|e| err(e.to_string()))?;
            for (i, (label, s)) in series.iter().enumerate() {
                let colour = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(s.iter().filter(finite).copied(), colour.stroke_width(2)))
                    .map_err(|e| err(e.to_string()))?
                    .label(label.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
            }
            chart.configure_series_labels().background_style(WHITE.mix(0.85)).border_style(BLACK).draw().map_err(|e| err(e.to_string()))?;
        }};
    }
    if log_y {
        draw_lines!(builder.build_cartesian_2d(x0..x1, (y0 * 0.8..y1 * 1.25).log_scale()).map_err(|e| err(e.to_string()))?);
    } else {
        let pad = 0.05 * (y1 - y0);
        draw_lines!(builder.build_cartesian_2d(x0..x1, y0 - pad..y1 + pad).map_err(|e| err(e.to_string()))?);
    }
    root.present().map_err(|e| err(e.to_string()))
}

/// The y axis's range over the finite points `all` (positive ones when `log_y`): their
/// extent; around the value when they all have one (a constant line at 1e5 was drawn off
/// a 0..1 chart); 0..1 (0.1..1 on a log axis) when there are none.
fn y_range(all: &[(f64, f64)], log_y: bool) -> (f64, f64) {
    let (y0, y1) = all.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1), b.max(p.1)));
    if y0.is_finite() && y1 > y0 {
        (y0, y1)
    } else if y0.is_finite() && log_y {
        (y0 / 2.0, y0 * 2.0)
    } else if y0.is_finite() {
        let half = if y0 == 0.0 { 1.0 } else { 0.5 * y0.abs() };
        (y0 - half, y0 + half)
    } else {
        (if log_y { 0.1 } else { 0.0 }, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::y_range;

    #[test]
    fn a_constant_line_gets_a_range_around_its_value() {
        let at = |y: f64| vec![(0.0, y), (1.0, y), (2.0, y)];
        let (lo, hi) = y_range(&at(1e5), true);
        assert!(lo < 1e5 && 1e5 < hi, "{lo}..{hi}");
        let (lo, hi) = y_range(&at(-3.0), false);
        assert!(lo < -3.0 && -3.0 < hi, "{lo}..{hi}");
        let (lo, hi) = y_range(&at(0.0), false);
        assert!(lo < 0.0 && 0.0 < hi, "{lo}..{hi}");
        assert_eq!(y_range(&[(0.0, 2.0), (1.0, 5.0)], false), (2.0, 5.0));
        assert_eq!(y_range(&[], true), (0.1, 1.0));
    }
}
