//! The tank physics as the calibration's simulator.

use crate::parameters::{ParameterRange, ParameterSpace};

/// The five free parameters of the hydrodynamic model (SPEC 1) with search bounds that
/// contain both published calibrations, starting from neutral scales and the simulator
/// default damping of 0.5.
pub fn hydro_parameter_space() -> ParameterSpace {
    ParameterSpace {
        parameters: vec![
            ParameterRange::new("hydro.kv", "1", 0.5, 2.0, 1.0),
            ParameterRange::new("hydro.kf", "1", 0.1, 4.0, 1.0),
            ParameterRange::new("hydro.sigma_stoch", "mN", 0.0, 400.0, 100.0),
            ParameterRange::new("hydro.d_linear", "1/s", 0.0, 0.9, 0.5),
            ParameterRange::new("hydro.d_angular", "1/s", 0.0, 0.9, 0.5),
        ],
    }
}
