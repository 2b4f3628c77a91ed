//! Firmware of Flotilla's robot systems, one module per system, each written against the
//! hardware contract ([`flotilla_contract`]) alone: it reads one robot's own sensors and
//! answers with that robot's command, and cannot tell the simulator from a real robot.
//!
//! - [`kilobot`]: a kilolib-shaped API and the Kilobot self-assembly program (SPEC 4);
//! - [`lily`]: YAML rulesets of self-assembly, the Lily firmware that runs them and the
//!   messages it exchanges over the latch channel and radio (SPEC 1);
//! - [`mhp`]: the MHP controllers, decentralised and centralised (SPEC 5);
//! - [`molemod`]: the MoleMOD five-interval joint position controller (SPEC 2);
//! - [`bluebot`]: the Blueswarm behaviours: synchrony, dispersion, milling, search (SPEC 3).
//!
//! [`registry`] names the firmware each system offers, for hosts that build controllers
//! from configuration.

pub mod bluebot;
pub mod kilobot;
pub mod lily;
pub mod mhp;
pub mod molemod;
pub mod registry;

pub use flotilla_contract::{robot_seed, Firmware, Hardware};
