//! Assembly metrics from the world's latch graph: structures placed on the lattice and
//! recognised up to rotation, yield of target structures over time, assembly rate and
//! wrong attachments.

mod structure;
mod tracker;

pub use flotilla_firmware::lily::shape::{Cell, LatticeShape, ShapeError, MAX_SHAPE_CELLS};
pub use structure::{structures, Bond, Structure};
pub use tracker::{classify, MetricsTracker, RunSummary, Snapshot, StructureClass, DEFAULT_TARGET_HOLD};
