//! The bit-packed A* search: states as bit sets over the cells (`W` 64-bit words per
//! set), duplicate detection by hashing, a binary-heap open list.

mod astar;
mod bits;
mod carry;
mod expand;
mod geometry;
mod heuristic;
mod index;
mod open;

pub use heuristic::HeuristicKind;

pub(crate) use astar::{astar, Found, Problem, SearchSettings, Stop};
pub(crate) use bits::Bits;
pub(crate) use expand::{Single, State};
pub(crate) use geometry::{Geometry, NONE};

#[cfg(test)]
mod tests;
