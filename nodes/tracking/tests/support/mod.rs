//! Test support shared by the integration tests and the `nuisance` example.

pub mod nuisance;
pub mod score;
pub mod setup;
