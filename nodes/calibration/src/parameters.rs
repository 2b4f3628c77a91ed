//! The calibrated parameters: names, units, bounds and the starting point.

use serde::{Deserialize, Serialize};

use crate::pso::Bounds;
use crate::CalibrationError;

/// One calibrated parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterRange {
    /// Parameter name as the simulator (and the physics node's parameter file) knows it.
    pub name: String,
    /// Unit, for reports and plots (e.g. "1", "N", "1/s").
    pub unit: String,
    /// Smallest value searched (parameter unit).
    pub lower: f64,
    /// Largest value searched (parameter unit).
    pub upper: f64,
    /// Starting value: one particle of the initial swarm sits here (parameter unit).
    pub initial: f64,
}

impl ParameterRange {
    /// A range with its starting value.
    pub fn new(name: &str, unit: &str, lower: f64, upper: f64, initial: f64) -> Self {
        Self { name: name.to_owned(), unit: unit.to_owned(), lower, upper, initial }
    }
}

/// The search space of a calibration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ParameterSpace {
    /// The parameters, in the simulator's order.
    pub parameters: Vec<ParameterRange>,
}

impl ParameterSpace {
    /// Validates and returns the PSO bounds: non-empty, unique names, finite
    /// `lower < upper`, initial value inside.
    pub fn bounds(&self) -> Result<Bounds, CalibrationError> {
        for (k, p) in self.parameters.iter().enumerate() {
            if self.parameters[..k].iter().any(|q| q.name == p.name) {
                return Err(CalibrationError::Setting(format!("parameter `{}` is listed twice", p.name)));
            }
            if !(p.lower.is_finite() && p.upper.is_finite() && p.lower < p.upper) {
                return Err(CalibrationError::Setting(format!(
                    "parameter `{}`: bounds must be finite with lower < upper, got [{}, {}]",
                    p.name, p.lower, p.upper
                )));
            }
            if !(p.lower..=p.upper).contains(&p.initial) {
                return Err(CalibrationError::Setting(format!(
                    "parameter `{}`: initial value {} is outside [{}, {}]",
                    p.name, p.initial, p.lower, p.upper
                )));
            }
        }
        Bounds::new(self.lower(), self.parameters.iter().map(|p| p.upper).collect())
    }

    /// Parameter names in order.
    pub fn names(&self) -> Vec<String> {
        self.parameters.iter().map(|p| p.name.clone()).collect()
    }

    /// Starting values in order (parameter units).
    pub fn initial(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.initial).collect()
    }

    fn lower(&self) -> Vec<f64> {
        self.parameters.iter().map(|p| p.lower).collect()
    }

    /// `(name, value)` pairs for a position.
    pub fn named<'a>(&'a self, position: &'a [f64]) -> impl Iterator<Item = (&'a str, f64)> + 'a {
        self.parameters.iter().zip(position).map(|(p, v)| (p.name.as_str(), *v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_parameter() {
        let mut space = ParameterSpace { parameters: vec![ParameterRange::new("kv", "1", 0.5, 2.0, 1.0)] };
        assert_eq!(space.bounds().unwrap().dimensions(), 1);
        space.parameters[0].initial = 3.0;
        assert!(space.bounds().unwrap_err().to_string().contains("`kv`"));
        space.parameters[0] = ParameterRange::new("kf", "1", 2.0, 1.0, 1.5);
        assert!(space.bounds().unwrap_err().to_string().contains("`kf`"));
        space.parameters = vec![ParameterRange::new("a", "1", 0.0, 1.0, 0.5), ParameterRange::new("a", "1", 0.0, 1.0, 0.5)];
        assert!(space.bounds().unwrap_err().to_string().contains("twice"));
        assert!(ParameterSpace::default().bounds().unwrap_err().to_string().contains("empty"));
    }
}
