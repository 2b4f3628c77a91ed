//! Accuracy harness: synthetic ground truth, render -> track, and CLEAR-MOT style
//! scoring (position and heading RMSE, misses, false positives, identity switches).

mod evaluate;
mod harness;
mod synthetic;

pub use evaluate::{wrap_angle, AccuracyReport, Evaluator};
pub use harness::{Harness, HarnessConfig, HarnessError, RenderedFrame};
pub use synthetic::{DoesNotFit, StirringConfig, SyntheticStirring};
