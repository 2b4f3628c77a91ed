//! Seeded batch experiments of the Flotilla robot systems (SPEC 1 Lily tank today; the
//! other systems add a module each): runs in parallel, seed sweeps, metrics, CSV tables
//! and PNG plots, and the `flotilla experiment` command line.
//!
//! - [`experiment`]: the generic layer: the [`Experiment`] trait, its [`Options`],
//!   [`Progress`] and [`Outcome`] (metrics, tables, plots, written as `summary.json` ...).
//! - [`registry`]: every system's experiments, one line per system.
//! - [`batch`]: in-process tank runs (world + firmwares, seeded) and seed sweeps.
//! - [`report`]: yield tables and plots.
//! - [`lily`]: the Lily-tank experiments (`yield`, `msd`).
//! - [`kilobot`]: the Kilobot self-assembly (`self-assembly`) and its swarm benchmark (`bench`).
//! - [`molemod`]: the MoleMOD planner's Table 1 (`table1`).
//! - [`mhp`]: Modular Hydraulic Propulsion (`trials`, `sweep`, `bench`).
//! - [`blueswarm`]: the Blueswarm behaviours (`sync`, `dispersion`, `milling`, `search`,
//!   `random-walk`, `vision`, `bench`).
//! - [`cli`]: `flotilla-experiment` (also `flotilla experiment`).

pub mod batch;
pub mod blueswarm;
pub mod cli;
pub mod experiment;
pub mod kilobot;
pub mod lily;
pub mod mhp;
pub mod molemod;
pub mod registry;
pub mod report;

pub use experiment::{Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
