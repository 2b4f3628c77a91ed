//! PNG plots (plotters, bitmap backend): MSD curves, fitness per iteration, and
//! per-cell heat maps over the tank.

use std::path::Path;

use plotters::prelude::*;

use crate::maps::GridSpec;
use crate::msd::MsdCurve;
use crate::pso::IterationRecord;
use crate::CalibrationError;

fn plot_error(path: &Path) -> impl Fn(String) -> CalibrationError + '_ {
    move |message| CalibrationError::Plot { path: path.to_path_buf(), message }
}

/// MSD curves against lag time, e.g. real vs calibrated simulation.
pub fn plot_msd(path: &Path, title: &str, curves: &[(&str, &MsdCurve)]) -> Result<(), CalibrationError> {
    let err = plot_error(path);
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let t_max = curves.iter().map(|(_, c)| c.values.len() as f64 * c.dt).fold(0.0, f64::max);
    let y_max = curves.iter().flat_map(|(_, c)| c.values.iter().copied()).fold(0.0, f64::max) * 1.05;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..t_max.max(1e-9), 0.0..(y_max * 1e4).max(1e-9))
        .map_err(|e| err(e.to_string()))?;
    chart.configure_mesh().x_desc("lag t (s)").y_desc("MSD (cm^2)").draw().map_err(|e| err(e.to_string()))?;
    for (k, (label, curve)) in curves.iter().enumerate() {
        let colour = Palette99::pick(k).to_rgba();
        let points = curve.lags().zip(curve.values.iter().map(|v| v * 1e4));
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}

/// Best and mean fitness per iteration (log scale).
pub fn plot_fitness(path: &Path, history: &[IterationRecord]) -> Result<(), CalibrationError> {
    let err = plot_error(path);
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let finite = |v: f64| v.is_finite() && v > 0.0;
    let values: Vec<f64> = history.iter().flat_map(|r| [r.best_fitness, r.mean_fitness]).filter(|v| finite(*v)).collect();
    let (lo, hi) = values.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let (lo, hi) = if values.is_empty() { (1e-6, 1.0) } else { (lo * 0.8, hi * 1.25) };
    let last = history.last().map_or(1, |r| r.iteration) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption("PSO fitness per iteration", ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0.5..last + 0.5, (lo..hi).log_scale())
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("iteration")
        .y_desc("fitness sum |MSD_sim - MSD_real| (m^2)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_labels(12)
        .y_label_formatter(&|v| format!("{v:.3}"))
        .draw()
        .map_err(|e| err(e.to_string()))?;
    type Series = (&'static str, RGBColor, fn(&IterationRecord) -> f64);
    let series: [Series; 2] = [("best", BLUE, |r| r.best_fitness), ("mean of the iteration's evaluations", RED, |r| r.mean_fitness)];
    for (label, colour, value) in series {
        let points: Vec<(f64, f64)> = history.iter().map(|r| (r.iteration as f64, value(r))).filter(|p| finite(p.1)).collect();
        chart
            .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        chart.draw_series(points.into_iter().map(|p| Circle::new(p, 3, colour.filled()))).map_err(|e| err(e.to_string()))?;
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}

/// Normalised histograms (probability density) of several samples on shared bins, as
/// lines; the range ends at the 99.5th percentile of the pooled samples so a few
/// outliers do not squash the rest.
pub fn plot_histograms(path: &Path, title: &str, x_label: &str, samples: &[(&str, &[f64])]) -> Result<(), CalibrationError> {
    const BINS: usize = 60;
    let err = plot_error(path);
    let mut pooled: Vec<f64> = samples.iter().flat_map(|(_, s)| s.iter().copied()).filter(|v| v.is_finite()).collect();
    pooled.sort_by(f64::total_cmp);
    let (lo, hi) = match (pooled.first(), pooled.get((pooled.len() as f64 * 0.995) as usize).or(pooled.last())) {
        (Some(&lo), Some(&hi)) if hi > lo => (lo, hi),
        (Some(&lo), _) => (lo, lo + 1.0),
        _ => (0.0, 1.0),
    };
    let width = (hi - lo) / BINS as f64;
    let densities: Vec<Vec<(f64, f64)>> = samples
        .iter()
        .map(|(_, s)| {
            let mut counts = [0u64; BINS];
            for v in s.iter().filter(|v| v.is_finite()) {
                let k = ((v - lo) / width).floor();
                if (0.0..BINS as f64).contains(&k) {
                    counts[k as usize] += 1;
                }
            }
            let n = s.len().max(1) as f64;
            counts.iter().enumerate().map(|(k, &c)| (lo + (k as f64 + 0.5) * width, c as f64 / (n * width))).collect()
        })
        .collect();
    let y_max = densities.iter().flatten().map(|p| p.1).fold(0.0, f64::max) * 1.05;
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(lo..hi, 0.0..y_max.max(1e-9))
        .map_err(|e| err(e.to_string()))?;
    chart.configure_mesh().x_desc(x_label).y_desc("probability density").draw().map_err(|e| err(e.to_string()))?;
    for (k, ((label, _), points)) in samples.iter().zip(densities).enumerate() {
        let colour = Palette99::pick(k).to_rgba();
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}

/// Colour scale of a heat map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColourScale {
    /// Sequential (dark blue - green - yellow) from `min` to `max`.
    Sequential {
        /// Value at the dark end.
        min: f64,
        /// Value at the bright end.
        max: f64,
    },
    /// Diverging blue - white - red, symmetric about zero up to `limit`.
    Diverging {
        /// Magnitude at the saturated ends.
        limit: f64,
    },
}

impl ColourScale {
    fn colour(&self, value: f64) -> RGBColor {
        match *self {
            ColourScale::Sequential { min, max } => {
                // Anchors of matplotlib's viridis.
                const ANCHORS: [(u8, u8, u8); 5] = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)];
                let s = ((value - min) / (max - min)).clamp(0.0, 1.0) * (ANCHORS.len() - 1) as f64;
                let k = (s.floor() as usize).min(ANCHORS.len() - 2);
                blend(ANCHORS[k], ANCHORS[k + 1], s - k as f64)
            }
            ColourScale::Diverging { limit } => {
                let s = (value / limit).clamp(-1.0, 1.0);
                if s < 0.0 {
                    blend((255, 255, 255), (33, 102, 172), -s)
                } else {
                    blend((255, 255, 255), (178, 24, 43), s)
                }
            }
        }
    }

    fn range(&self) -> (f64, f64) {
        match *self {
            ColourScale::Sequential { min, max } => (min, max),
            ColourScale::Diverging { limit } => (-limit, limit),
        }
    }
}

fn blend(a: (u8, u8, u8), b: (u8, u8, u8), s: f64) -> RGBColor {
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * s).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// One heat-map panel: a title and one value per grid cell (`None` = no data, grey).
pub struct HeatPanel<'a> {
    /// Panel title.
    pub title: &'a str,
    /// Row-major values (ix fastest).
    pub values: &'a [Option<f64>],
}

/// Heat maps side by side (`columns` per row) sharing one colour scale, with a colour
/// bar labelled `unit`.
pub fn plot_heat_maps(
    path: &Path,
    title: &str,
    grid: &GridSpec,
    panels: &[HeatPanel],
    columns: usize,
    scale: ColourScale,
    unit: &str,
) -> Result<(), CalibrationError> {
    let err = plot_error(path);
    let columns = columns.clamp(1, panels.len().max(1));
    let rows = panels.len().div_ceil(columns).max(1);
    let (panel_w, panel_h) = (420u32, 440u32);
    let root = BitMapBackend::new(path, (panel_w * columns as u32 + 110, panel_h * rows as u32 + 50)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let root = root.titled(title, ("sans-serif", 26)).map_err(|e| err(e.to_string()))?;
    let (maps_area, bar_area) = root.split_horizontally(panel_w * columns as u32);
    let half = 0.5 * grid.side;
    let (dx, dy) = (grid.side / grid.nx as f64, grid.side / grid.ny as f64);
    for (area, panel) in maps_area.split_evenly((rows, columns)).iter().zip(panels) {
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(-half..half, -half..half)
            .map_err(|e| err(e.to_string()))?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("x (m)")
            .y_desc("y (m)")
            .x_labels(5)
            .y_labels(5)
            .draw()
            .map_err(|e| err(e.to_string()))?;
        let cells = panel.values.iter().enumerate().map(|(i, v)| {
            let (ix, iy) = ((i % grid.nx) as f64, (i / grid.nx) as f64);
            let corner = (-half + ix * dx, -half + iy * dy);
            let colour = v.map_or(RGBColor(200, 200, 200), |v| scale.colour(v));
            Rectangle::new([corner, (corner.0 + dx, corner.1 + dy)], colour.filled())
        });
        chart.draw_series(cells).map_err(|e| err(e.to_string()))?;
    }
    draw_colour_bar(&bar_area, scale, unit).map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}

fn draw_colour_bar(area: &DrawingArea<BitMapBackend, plotters::coord::Shift>, scale: ColourScale, unit: &str) -> Result<(), String> {
    let (lo, hi) = scale.range();
    // Enough decimals to tell the six labels apart.
    let decimals = (2.0 - (hi - lo).abs().log10().floor()).max(0.0) as usize;
    let mut chart = ChartBuilder::on(area)
        .margin_top(40)
        .margin_bottom(40)
        .margin_right(10)
        .y_label_area_size(70)
        .caption(unit, ("sans-serif", 16))
        .build_cartesian_2d(0.0..1.0, lo..hi)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_labels(6)
        .y_label_style(("sans-serif", 14))
        .y_label_formatter(&|v| format!("{v:.decimals$}"))
        .draw()
        .map_err(|e| e.to_string())?;
    let steps = 100;
    chart
        .draw_series((0..steps).map(|k| {
            let a = lo + (hi - lo) * k as f64 / steps as f64;
            let b = lo + (hi - lo) * (k + 1) as f64 / steps as f64;
            Rectangle::new([(0.0, a), (1.0, b)], scale.colour(0.5 * (a + b)).filled())
        }))
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_scales_hit_their_anchors() {
        let seq = ColourScale::Sequential { min: 0.0, max: 1.0 };
        assert_eq!(seq.colour(0.0), RGBColor(68, 1, 84));
        assert_eq!(seq.colour(1.0), RGBColor(253, 231, 37));
        assert_eq!(seq.colour(7.0), RGBColor(253, 231, 37));
        let div = ColourScale::Diverging { limit: 2.0 };
        assert_eq!(div.colour(0.0), RGBColor(255, 255, 255));
        assert_eq!(div.colour(-2.0), RGBColor(33, 102, 172));
        assert_eq!(div.colour(5.0), RGBColor(178, 24, 43));
    }

    #[test]
    fn plots_are_written_as_png() {
        let dir = tempfile::tempdir().unwrap();
        let curve = MsdCurve { dt: 0.025, values: (1..=100).map(|i| 1e-4 * (i as f64).sqrt()).collect(), counts: vec![1; 100] };
        let msd = dir.path().join("msd.png");
        plot_msd(&msd, "MSD", &[("real", &curve), ("simulated", &curve)]).unwrap();
        let history: Vec<IterationRecord> = (1..=5)
            .map(|i| IterationRecord {
                iteration: i,
                best_fitness: 1.0 / i as f64,
                mean_fitness: 2.0,
                best_position: vec![1.0],
                evaluations: 10 * i as u64,
            })
            .collect();
        let fitness = dir.path().join("fitness.png");
        plot_fitness(&fitness, &history).unwrap();
        let grid = GridSpec { nx: 4, ny: 4, side: 0.6 };
        let values: Vec<Option<f64>> = (0..16).map(|i| (i != 3).then_some(i as f64)).collect();
        let heat = dir.path().join("heat.png");
        let panels = [HeatPanel { title: "a", values: &values }, HeatPanel { title: "b", values: &values }];
        plot_heat_maps(&heat, "test", &grid, &panels, 2, ColourScale::Sequential { min: 0.0, max: 15.0 }, "units").unwrap();
        for path in [msd, fitness, heat] {
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(&bytes[1..4], b"PNG", "{}", path.display());
        }
    }
}
