//! The flow field a world uses: a measured grid from a file, or the parametric model of
//! the inlets' jets, both as per-cell mean and standard deviation.

mod parametric;

pub use parametric::{jet_velocity, parametric_field, surface_coupling, swirl_velocity};

use crate::arena::Arena;
use crate::config::{ConfigError, FlowConfig};
use flotilla_common::flow_field::FlowGrid;

/// Loads the measured field named by `config.file`, if any.
pub fn load_measured(config: &FlowConfig) -> Result<Option<FlowGrid>, ConfigError> {
    match &config.file {
        None => Ok(None),
        Some(path) => Ok(Some(FlowGrid::read_csv(path)?)),
    }
}

/// The field in effect for the given pump powers (%): the measured one scaled by
/// mean power / `measured_at_power`, or the parametric model.
pub fn effective_field(arena: &Arena, pumps: &[f64], config: &FlowConfig, measured: Option<&FlowGrid>) -> Result<FlowGrid, ConfigError> {
    match measured {
        Some(grid) => {
            let mean_power = if pumps.is_empty() { 0.0 } else { pumps.iter().sum::<f64>() / pumps.len() as f64 };
            let mut scaled = grid.clone();
            scaled.scale(mean_power / config.measured_at_power);
            Ok(scaled)
        }
        None => parametric_field(arena, pumps, config),
    }
}
