//! The lattice: a box of cells, `x` and `y` horizontal, `z` vertical (up). Each cell is
//! empty, a passive block, or a block with a robot inside it. A 2-D task (the paper's
//! vertical plane) is a lattice with `y = 1`.
//!
//! **Support.** A block is *supported* when it lies on the floor (`z = 0`) or is
//! face-connected, through a chain of blocks, to a block on the floor. Blocks are screwed
//! together, so side-by-side connection carries load; a block with no such chain is
//! floating, which no valid state may contain.

mod picture;

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt;
use thiserror::Error;

/// Largest lattice accepted, in cells (`x * y * z`). The planner packs a state into at
/// most 2 x 8 machine words; larger lattices are rejected when they are built.
pub const MAX_CELLS: usize = 512;

/// Size of a lattice, in cells along each axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Dims {
    /// Cells along `x` (horizontal), count.
    pub x: usize,
    /// Cells along `y` (horizontal; 1 for a 2-D task), count.
    pub y: usize,
    /// Cells along `z` (vertical, up), count.
    pub z: usize,
}

impl Dims {
    /// A 2-D (vertical plane) lattice: `width` cells along `x`, `height` along `z`.
    pub fn planar(width: usize, height: usize) -> Self {
        Self { x: width, y: 1, z: height }
    }

    /// A 3-D lattice.
    pub fn new(x: usize, y: usize, z: usize) -> Self {
        Self { x, y, z }
    }

    /// Number of cells, saturating (so a huge request cannot overflow).
    pub fn cell_count(&self) -> usize {
        self.x.saturating_mul(self.y).saturating_mul(self.z)
    }

    /// True when the lattice is a vertical plane (`y = 1`).
    pub fn is_planar(&self) -> bool {
        self.y == 1
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}x{}", self.x, self.y, self.z)
    }
}

/// One cell of the lattice, by coordinates (cells, counted from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    /// Column along `x`, cells.
    pub x: usize,
    /// Row along `y`, cells (0 in 2-D).
    pub y: usize,
    /// Height along `z`, cells (0 = on the floor).
    pub z: usize,
}

impl Cell {
    /// A cell of a 3-D lattice.
    pub fn new(x: usize, y: usize, z: usize) -> Self {
        Self { x, y, z }
    }

    /// A cell of a 2-D lattice (`y = 0`).
    pub fn planar(x: usize, z: usize) -> Self {
        Self { x, y: 0, z }
    }

    /// Offset by `(dx, dy, dz)` cells; `None` below zero.
    pub fn offset(&self, dx: isize, dy: isize, dz: isize) -> Option<Cell> {
        Some(Cell { x: self.x.checked_add_signed(dx)?, y: self.y.checked_add_signed(dy)?, z: self.z.checked_add_signed(dz)? })
    }

    /// Manhattan distance to `other`, cells.
    pub fn manhattan(&self, other: &Cell) -> usize {
        self.x.abs_diff(other.x) + self.y.abs_diff(other.y) + self.z.abs_diff(other.z)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

/// Code of one cell in the flat wire form ([`Lattice::codes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CellCode {
    /// No block.
    Empty = 0,
    /// A block without a robot.
    Block = 1,
    /// A block with a robot inside.
    BlockWithRobot = 2,
}

/// What is wrong with a lattice description.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LatticeError {
    /// An axis has no cells.
    #[error("lattice {dims} has an axis with no cells")]
    ZeroDimension {
        /// The offending size.
        dims: Dims,
    },
    /// More cells than [`MAX_CELLS`].
    #[error("lattice {dims} has {cells} cells, above the limit of {limit}")]
    TooLarge {
        /// The offending size.
        dims: Dims,
        /// Its cell count (saturated).
        cells: usize,
        /// [`MAX_CELLS`].
        limit: usize,
    },
    /// The flat cell array does not match the size.
    #[error("lattice {dims} needs {expected} cell codes, got {found}")]
    CellCountMismatch {
        /// The declared size.
        dims: Dims,
        /// `x * y * z`.
        expected: usize,
        /// Length of the given array.
        found: usize,
    },
    /// A cell code other than 0, 1, 2.
    #[error("cell {cell} (index {index}) has code {code}; expected 0 (empty), 1 (block) or 2 (block with robot)")]
    InvalidCode {
        /// Index in the flat array.
        index: usize,
        /// The cell.
        cell: Cell,
        /// The bad code.
        code: u8,
    },
    /// A cell outside the lattice.
    #[error("cell {cell} is outside the lattice {dims}")]
    OutOfBounds {
        /// The cell.
        cell: Cell,
        /// The lattice size.
        dims: Dims,
    },
    /// A robot placed where there is no block.
    #[error("robot {robot} at {cell} is not inside a block")]
    RobotOutsideBlock {
        /// Index the robot would get.
        robot: usize,
        /// Its cell.
        cell: Cell,
    },
    /// Two robots in one cell.
    #[error("robot {robot} at {cell} shares the cell with robot {other}")]
    RobotsShareCell {
        /// The robot being placed.
        robot: usize,
        /// The robot already there.
        other: usize,
        /// The cell.
        cell: Cell,
    },
    /// Removing a block that holds a robot.
    #[error("cannot remove the block at {cell}: robot {robot} is inside it")]
    BlockHoldsRobot {
        /// The cell.
        cell: Cell,
        /// The robot in it.
        robot: usize,
    },
    /// A block not connected to the floor.
    #[error("block at {cell} is floating: it is not connected to the floor through other blocks")]
    Unsupported {
        /// The first floating block (lowest cell index).
        cell: Cell,
    },
    /// A text picture that cannot be read.
    #[error("picture line {line}, column {column}: {reason}")]
    Picture {
        /// Line (1-based) within the picture (or layer).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What is wrong.
        reason: String,
    },
}

/// A lattice state: which cells hold blocks and where the robots are. Robots are
/// numbered by their order of placement; every robot is inside a block.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Lattice {
    dims: Dims,
    blocks: Vec<bool>,
    robots: Vec<Cell>,
}

impl Lattice {
    /// An empty lattice.
    pub fn new(dims: Dims) -> Result<Self, LatticeError> {
        let cells = dims.cell_count();
        if cells == 0 {
            return Err(LatticeError::ZeroDimension { dims });
        }
        if cells > MAX_CELLS {
            return Err(LatticeError::TooLarge { dims, cells, limit: MAX_CELLS });
        }
        Ok(Self { dims, blocks: vec![false; cells], robots: Vec::new() })
    }

    /// From the flat wire form: one code per cell ([`CellCode`]), `x` fastest, then `y`,
    /// then `z` (so index = `x + X * (y + Y * z)`). Robots are numbered in index order.
    pub fn from_codes(dims: Dims, codes: &[u8]) -> Result<Self, LatticeError> {
        let mut lattice = Self::new(dims)?;
        if codes.len() != lattice.blocks.len() {
            return Err(LatticeError::CellCountMismatch { dims, expected: lattice.blocks.len(), found: codes.len() });
        }
        for (index, &code) in codes.iter().enumerate() {
            let cell = lattice.cell_at(index);
            match code {
                0 => {}
                1 => lattice.blocks[index] = true,
                2 => {
                    lattice.blocks[index] = true;
                    lattice.robots.push(cell);
                }
                _ => return Err(LatticeError::InvalidCode { index, cell, code }),
            }
        }
        Ok(lattice)
    }

    /// The flat wire form (see [`Lattice::from_codes`]).
    pub fn codes(&self) -> Vec<u8> {
        let mut codes: Vec<u8> = self.blocks.iter().map(|&b| b as u8).collect();
        for robot in &self.robots {
            codes[self.index_unchecked(robot)] = CellCode::BlockWithRobot as u8;
        }
        codes
    }

    /// Size.
    pub fn dims(&self) -> Dims {
        self.dims
    }

    /// Flat index of `cell`, or `None` outside.
    pub fn index(&self, cell: &Cell) -> Option<usize> {
        self.contains(cell).then(|| self.index_unchecked(cell))
    }

    fn index_unchecked(&self, cell: &Cell) -> usize {
        cell.x + self.dims.x * (cell.y + self.dims.y * cell.z)
    }

    /// Cell of a flat index (`index < cell count`).
    pub fn cell_at(&self, index: usize) -> Cell {
        let layer = self.dims.x * self.dims.y;
        Cell { x: index % self.dims.x, y: (index % layer) / self.dims.x, z: index / layer }
    }

    /// True when `cell` lies inside the lattice.
    pub fn contains(&self, cell: &Cell) -> bool {
        cell.x < self.dims.x && cell.y < self.dims.y && cell.z < self.dims.z
    }

    fn checked_index(&self, cell: &Cell) -> Result<usize, LatticeError> {
        self.index(cell).ok_or(LatticeError::OutOfBounds { cell: *cell, dims: self.dims })
    }

    /// True when `cell` is inside and holds a block.
    pub fn has_block(&self, cell: &Cell) -> bool {
        self.index(cell).is_some_and(|i| self.blocks[i])
    }

    /// Index of the robot in `cell`, if any.
    pub fn robot_at(&self, cell: &Cell) -> Option<usize> {
        self.robots.iter().position(|r| r == cell)
    }

    /// Robot positions, by robot index.
    pub fn robots(&self) -> &[Cell] {
        &self.robots
    }

    /// Number of blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.iter().filter(|&&b| b).count()
    }

    /// Cells holding blocks, in index order.
    pub fn block_cells(&self) -> impl Iterator<Item = Cell> + '_ {
        self.blocks.iter().enumerate().filter(|(_, &b)| b).map(|(i, _)| self.cell_at(i))
    }

    /// Puts a block into (or removes it from) `cell`.
    pub fn set_block(&mut self, cell: Cell, present: bool) -> Result<(), LatticeError> {
        let index = self.checked_index(&cell)?;
        if !present {
            if let Some(robot) = self.robot_at(&cell) {
                return Err(LatticeError::BlockHoldsRobot { cell, robot });
            }
        }
        self.blocks[index] = present;
        Ok(())
    }

    /// Builder form of [`Lattice::set_block`] for a list of cells.
    pub fn with_blocks(mut self, cells: impl IntoIterator<Item = Cell>) -> Result<Self, LatticeError> {
        for cell in cells {
            self.set_block(cell, true)?;
        }
        Ok(self)
    }

    /// Places the next robot into the block at `cell`; returns its index.
    pub fn add_robot(&mut self, cell: Cell) -> Result<usize, LatticeError> {
        let robot = self.robots.len();
        let index = self.checked_index(&cell)?;
        if !self.blocks[index] {
            return Err(LatticeError::RobotOutsideBlock { robot, cell });
        }
        if let Some(other) = self.robot_at(&cell) {
            return Err(LatticeError::RobotsShareCell { robot, other, cell });
        }
        self.robots.push(cell);
        Ok(robot)
    }

    /// Builder form of [`Lattice::add_robot`].
    pub fn with_robot(mut self, cell: Cell) -> Result<Self, LatticeError> {
        self.add_robot(cell)?;
        Ok(self)
    }

    /// Moves robot `robot` to `cell` without any rule check (for rule engines that have
    /// already validated the move).
    pub(crate) fn place_robot_unchecked(&mut self, robot: usize, cell: Cell) {
        self.robots[robot] = cell;
    }

    /// Sets a block without checks (rule engines only; `cell` must be inside).
    pub(crate) fn set_block_unchecked(&mut self, cell: &Cell, present: bool) {
        let index = self.index_unchecked(cell);
        self.blocks[index] = present;
    }

    /// Face neighbours of `cell` that lie inside the lattice.
    pub fn neighbours(&self, cell: &Cell) -> impl Iterator<Item = Cell> + '_ {
        const STEPS: [(isize, isize, isize); 6] = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)];
        let cell = *cell;
        STEPS.iter().filter_map(move |&(dx, dy, dz)| cell.offset(dx, dy, dz)).filter(|c| self.contains(c))
    }

    /// Blocks not connected to the floor (see the module docs), in index order.
    pub fn unsupported_blocks(&self) -> Vec<Cell> {
        let mut reached = vec![false; self.blocks.len()];
        let mut queue = VecDeque::new();
        for (i, &b) in self.blocks.iter().enumerate() {
            if b && self.cell_at(i).z == 0 {
                reached[i] = true;
                queue.push_back(self.cell_at(i));
            }
        }
        while let Some(cell) = queue.pop_front() {
            for next in self.neighbours(&cell) {
                let i = self.index_unchecked(&next);
                if self.blocks[i] && !reached[i] {
                    reached[i] = true;
                    queue.push_back(next);
                }
            }
        }
        (0..self.blocks.len()).filter(|&i| self.blocks[i] && !reached[i]).map(|i| self.cell_at(i)).collect()
    }

    /// `Ok` when every block is supported, else the first floating block.
    pub fn check_supported(&self) -> Result<(), LatticeError> {
        match self.unsupported_blocks().first() {
            Some(&cell) => Err(LatticeError::Unsupported { cell }),
            None => Ok(()),
        }
    }

    /// True when both lattices have the same size and the same block cells (robots are
    /// not compared).
    pub fn same_blocks(&self, other: &Lattice) -> bool {
        self.dims == other.dims && self.blocks == other.blocks
    }

    /// True when both lattices have the same size, blocks, and set of robot cells
    /// (robot numbering is not compared).
    pub fn same_layout(&self, other: &Lattice) -> bool {
        let mut mine = self.robots.clone();
        let mut theirs = other.robots.clone();
        mine.sort();
        theirs.sort();
        self.same_blocks(other) && mine == theirs
    }
}

impl fmt::Display for Lattice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.picture())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_index_order() {
        // 3 wide, 2 high: bottom row "#R#"... index = x + 3 z.
        let codes = [1, 2, 1, 0, 1, 0];
        let lattice = Lattice::from_codes(Dims::planar(3, 2), &codes).unwrap();
        assert_eq!(lattice.robots(), &[Cell::planar(1, 0)]);
        assert!(lattice.has_block(&Cell::planar(1, 1)));
        assert!(!lattice.has_block(&Cell::planar(0, 1)));
        assert_eq!(lattice.codes(), codes);
        assert_eq!(lattice.cell_at(4), Cell::planar(1, 1));
        assert_eq!(lattice.index(&Cell::planar(2, 1)), Some(5));
    }

    #[test]
    fn three_d_index_is_x_fastest_then_y_then_z() {
        let lattice = Lattice::new(Dims::new(2, 3, 4)).unwrap();
        // (1, 2, 3) -> 1 + 2 * (2 + 3 * 3) = 23.
        assert_eq!(lattice.index(&Cell::new(1, 2, 3)), Some(23));
        assert_eq!(lattice.cell_at(23), Cell::new(1, 2, 3));
    }

    #[test]
    fn rejects_bad_sizes_and_codes() {
        assert!(matches!(Lattice::new(Dims::planar(0, 3)), Err(LatticeError::ZeroDimension { .. })));
        assert!(matches!(Lattice::new(Dims::new(100, 100, 100)), Err(LatticeError::TooLarge { cells: 1_000_000, .. })));
        // Saturating count: no overflow panic on absurd sizes.
        assert!(matches!(Lattice::new(Dims::new(usize::MAX, 2, 2)), Err(LatticeError::TooLarge { .. })));
        assert!(matches!(
            Lattice::from_codes(Dims::planar(2, 2), &[0, 1, 0]),
            Err(LatticeError::CellCountMismatch { expected: 4, found: 3, .. })
        ));
        let err = Lattice::from_codes(Dims::planar(2, 2), &[0, 1, 7, 0]).unwrap_err();
        assert_eq!(err, LatticeError::InvalidCode { index: 2, cell: Cell::planar(0, 1), code: 7 });
    }

    #[test]
    fn robots_must_sit_in_blocks_alone() {
        let mut lattice = Lattice::new(Dims::planar(3, 2)).unwrap().with_blocks([Cell::planar(0, 0)]).unwrap();
        let err = lattice.add_robot(Cell::planar(1, 0)).unwrap_err();
        assert_eq!(err, LatticeError::RobotOutsideBlock { robot: 0, cell: Cell::planar(1, 0) });
        assert_eq!(lattice.add_robot(Cell::planar(0, 0)), Ok(0));
        assert!(matches!(lattice.add_robot(Cell::planar(0, 0)), Err(LatticeError::RobotsShareCell { robot: 1, other: 0, .. })));
        assert!(matches!(lattice.add_robot(Cell::planar(5, 0)), Err(LatticeError::OutOfBounds { .. })));
        assert!(matches!(lattice.set_block(Cell::planar(0, 0), false), Err(LatticeError::BlockHoldsRobot { robot: 0, .. })));
    }

    #[test]
    fn support_is_connection_to_the_floor() {
        // x=0 column of two, a cantilever at (1, 1), and a floating block at (3, 2).
        let lattice = Lattice::new(Dims::planar(4, 3))
            .unwrap()
            .with_blocks([Cell::planar(0, 0), Cell::planar(0, 1), Cell::planar(1, 1), Cell::planar(3, 2)])
            .unwrap();
        assert_eq!(lattice.unsupported_blocks(), vec![Cell::planar(3, 2)]);
        assert_eq!(lattice.check_supported(), Err(LatticeError::Unsupported { cell: Cell::planar(3, 2) }));
        let mut fixed = lattice.clone();
        fixed.set_block(Cell::planar(3, 2), false).unwrap();
        assert_eq!(fixed.check_supported(), Ok(()));
    }

    #[test]
    fn manhattan_distance() {
        assert_eq!(Cell::new(1, 2, 3).manhattan(&Cell::new(4, 0, 3)), 5);
    }
}
