//! Experiments of MoleMOD (SPEC 2): the planner's Table 1 planning times, the mole's
//! motions measured in the physics, and plans executed by the physics.

mod execute;
mod motions;
mod table1;

pub use execute::Execute;
pub use motions::Motions;
pub use table1::Table1;

use std::path::Path;

use plotters::prelude::*;

use crate::experiment::Experiment;
use crate::report::PlotError;

/// The MoleMOD experiments, in the order `flotilla experiment list` shows them.
pub const EXPERIMENTS: &[&dyn Experiment] = &[&Table1, &Motions, &Execute];

/// The task files shipped in the repository (`config/molemod/`).
pub const TASKS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../config/molemod");

/// Joint positions over time, every robot (`trace`: sim time, then per robot its joints in
/// `names` order): prismatic joints (mm) above, universal joint angles (rad) below.
fn plot_joints(path: &Path, caption: &str, names: &[String], trace: &[(f64, Vec<Vec<f64>>)]) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let t_end = trace.last().map_or(1.0, |r| r.0).max(1e-3);
    let robots = trace.first().map_or(0, |s| s.1.len());
    let root = BitMapBackend::new(path, (1100, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (upper, lower) = root.split_vertically(380);
    let panels = [
        (upper, "prismatic joints [mm]", true, 1e3, -1.0f64..32.0f64),
        (lower, "universal joint angles [rad]", false, 1.0, -1.0f64..1.0f64),
    ];
    for (area, label, prismatic, scale, range) in panels {
        let mut chart = ChartBuilder::on(&area)
            .caption(if prismatic { caption } else { "" }, ("sans-serif", 22))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, range)
            .map_err(|e| err(e.to_string()))?;
        chart.configure_mesh().x_desc("sim time [s]").y_desc(label).draw().map_err(|e| err(e.to_string()))?;
        for robot in 0..robots {
            for (i, name) in names.iter().enumerate() {
                if name.starts_with("prismatic") != prismatic {
                    continue;
                }
                let colour = Palette99::pick(robot * names.len() + i).to_rgba();
                chart
                    .draw_series(LineSeries::new(
                        trace.iter().filter_map(|(t, p)| p.get(robot).and_then(|r| r.get(i)).map(|v| (*t, v * scale))),
                        colour.stroke_width(2),
                    ))
                    .map_err(|e| err(e.to_string()))?
                    .label(if robots == 1 { name.clone() } else { format!("robot {robot} {name}") })
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2)));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(e.to_string()))?;
    }
    root.present().map_err(|e| err(e.to_string()))
}
