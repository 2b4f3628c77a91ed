//! Centralised stirring control: pump power as a function of sim time.

use super::StationError;
use serde::{Deserialize, Serialize};

/// From time `at` on, the pumps run at `power`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PumpStep {
    /// Start of the step, s of sim time.
    pub at: f64,
    /// Pump power, % of the maximum flow: one value for all pumps or one per inlet.
    pub power: Vec<f64>,
}

/// Piecewise-constant pump power. Before the first step the world keeps its configured power.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PumpSchedule {
    /// Steps in increasing time.
    pub steps: Vec<PumpStep>,
}

impl PumpSchedule {
    /// All pumps at `power` % from time 0.
    pub fn constant(power: f64) -> Self {
        Self { steps: vec![PumpStep { at: 0.0, power: vec![power] }] }
    }

    /// Appends a step: from `at` s on, all pumps at `power` %.
    pub fn then(mut self, at: f64, power: f64) -> Self {
        self.steps.push(PumpStep { at, power: vec![power] });
        self
    }

    /// Times finite, non-negative and increasing; powers in [0, 100] %. (The world checks
    /// the number of values against its inlets when the step is applied.)
    pub fn validate(&self) -> Result<(), StationError> {
        let mut last = f64::NEG_INFINITY;
        for (index, step) in self.steps.iter().enumerate() {
            let bad = |message: String| StationError::BadSchedule { index, message };
            if !(step.at.is_finite() && step.at >= 0.0 && step.at > last) {
                return Err(bad(format!("time {} s must be finite, >= 0 and after the previous step", step.at)));
            }
            if step.power.is_empty() || step.power.iter().any(|p| !(0.0..=100.0).contains(p)) {
                return Err(bad(format!("power {:?} % must be one or more values in [0, 100]", step.power)));
            }
            last = step.at;
        }
        Ok(())
    }

    /// Index of the step in force at time `t` (s), if any.
    pub fn step_at(&self, t: f64) -> Option<usize> {
        self.steps.iter().rposition(|s| s.at <= t + 1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_in_force_by_hand() {
        let schedule = PumpSchedule::constant(68.6).then(300.0, 40.0);
        assert!(schedule.validate().is_ok());
        assert_eq!(schedule.step_at(0.0), Some(0));
        assert_eq!(schedule.step_at(299.9), Some(0));
        assert_eq!(schedule.step_at(300.0), Some(1));
        assert_eq!(PumpSchedule { steps: vec![PumpStep { at: 10.0, power: vec![50.0] }] }.step_at(5.0), None);
    }

    #[test]
    fn bad_schedules_name_the_step() {
        let err = PumpSchedule::constant(68.6).then(0.0, 40.0).validate().unwrap_err().to_string();
        assert!(err.contains("step 1") && err.contains("after the previous"), "{err}");
        let err = PumpSchedule::constant(120.0).validate().unwrap_err().to_string();
        assert!(err.contains("step 0") && err.contains("[0, 100]"), "{err}");
    }
}
