//! A robot's shape: a connected set of lattice cells (squares in 2-D, cubes in 3-D), the
//! occupancy bitset of its bounding box and its outer (exposed) faces.

use flotilla_contract::mhp::FACE_NORMALS;

/// A lattice cell, in module sides (z = 0 on the square lattice).
pub type Cell = [i32; 3];

/// The module lattice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lattice {
    /// Square modules with 4 faces in the x-y plane (the 2-D prototype).
    Square,
    /// Cubic modules with 6 faces.
    Cube,
}

impl Lattice {
    /// Faces per module (4 or 6), in the order of [`FACE_NORMALS`].
    pub const fn faces(self) -> usize {
        match self {
            Lattice::Square => 4,
            Lattice::Cube => 6,
        }
    }
}

/// Why a set of cells is not a robot. Indices count the cells as given (0-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MorphologyError {
    /// No modules at all.
    #[error("the robot has no modules")]
    Empty,
    /// Two modules in one cell.
    #[error("module {index} at {cell:?} overlaps module {first}")]
    Overlap {
        /// The later module.
        index: usize,
        /// The module already there.
        first: usize,
        /// The cell.
        cell: Cell,
    },
    /// A module not connected (through face neighbours) to module 0.
    #[error("module {index} at {cell:?} is not connected to the rest of the robot")]
    Disconnected {
        /// The module.
        index: usize,
        /// Its cell.
        cell: Cell,
    },
    /// A square module off the z = 0 plane.
    #[error("module {index} at {cell:?} is off the plane of a square-lattice robot (z must be 0)")]
    OffPlane {
        /// The module.
        index: usize,
        /// Its cell.
        cell: Cell,
    },
    /// The bounding box is too large for the occupancy bitset.
    #[error("the robot's bounding box ({cells} cells) is larger than {limit} cells")]
    TooLarge {
        /// Cells in the bounding box.
        cells: u128,
        /// The limit.
        limit: u128,
    },
}

/// Most cells a robot's bounding box may hold (a 128 MiB bitset).
pub const MAX_BOX_CELLS: u128 = 1 << 30;

/// A valid robot shape: cells connected through faces, no two alike.
#[derive(Clone, Debug, PartialEq)]
pub struct Morphology {
    lattice: Lattice,
    cells: Vec<Cell>,
}

/// The cell next to `cell` across the face with normal `n`; none past the lattice's
/// coordinate range (cells from a file may lie at its edge).
fn neighbour(cell: Cell, n: &[i32; 3]) -> Option<Cell> {
    Some([cell[0].checked_add(n[0])?, cell[1].checked_add(n[1])?, cell[2].checked_add(n[2])?])
}

impl Morphology {
    /// Checks `cells`: not empty, in the plane for squares, no overlap, connected.
    pub fn new(lattice: Lattice, cells: Vec<Cell>) -> Result<Self, MorphologyError> {
        if cells.is_empty() {
            return Err(MorphologyError::Empty);
        }
        if lattice == Lattice::Square {
            if let Some((index, &cell)) = cells.iter().enumerate().find(|(_, c)| c[2] != 0) {
                return Err(MorphologyError::OffPlane { index, cell });
            }
        }
        let mut first_at = std::collections::HashMap::with_capacity(cells.len());
        for (index, &cell) in cells.iter().enumerate() {
            if let Some(&first) = first_at.get(&cell) {
                return Err(MorphologyError::Overlap { index, first, cell });
            }
            first_at.insert(cell, index);
        }
        // Flood fill from module 0 through face neighbours.
        let mut reached = vec![false; cells.len()];
        reached[0] = true;
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            for n in &FACE_NORMALS[..lattice.faces()] {
                if let Some(&j) = neighbour(cells[i], n).and_then(|c| first_at.get(&c)) {
                    if !reached[j] {
                        reached[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        if let Some(index) = reached.iter().position(|r| !r) {
            return Err(MorphologyError::Disconnected { index, cell: cells[index] });
        }
        let morphology = Self { lattice, cells };
        Grid::new(&morphology)?;
        Ok(morphology)
    }

    /// The lattice.
    pub fn lattice(&self) -> Lattice {
        self.lattice
    }

    /// The cells, in module order.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Number of modules.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Always false: a morphology has at least one module.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Centre of the cells (the centre of mass of equal modules), in module sides.
    pub fn centroid(&self) -> [f64; 3] {
        let mut sum = [0.0; 3];
        for c in &self.cells {
            for a in 0..3 {
                sum[a] += f64::from(c[a]);
            }
        }
        sum.map(|s| s / self.cells.len() as f64)
    }
}

/// Occupancy of a robot's bounding box, one bit per cell.
#[derive(Clone, Debug)]
pub struct Grid {
    /// Lowest cell of the box.
    min: Cell,
    /// Highest cell of the box.
    max: Cell,
    /// Cells per axis.
    dims: [usize; 3],
    bits: Vec<u64>,
}

impl Grid {
    /// The occupancy of `morphology`.
    pub fn new(morphology: &Morphology) -> Result<Self, MorphologyError> {
        let cells = morphology.cells();
        let mut min = cells[0];
        let mut max = cells[0];
        for c in cells {
            for a in 0..3 {
                min[a] = min[a].min(c[a]);
                max[a] = max[a].max(c[a]);
            }
        }
        let dims: [usize; 3] = std::array::from_fn(|a| (i64::from(max[a]) - i64::from(min[a]) + 1) as usize);
        let volume = dims.iter().map(|&d| d as u128).product::<u128>();
        if volume > MAX_BOX_CELLS {
            return Err(MorphologyError::TooLarge { cells: volume, limit: MAX_BOX_CELLS });
        }
        let mut grid = Self { min, max, dims, bits: vec![0; (volume as usize).div_ceil(64)] };
        for c in cells {
            if let Some(i) = grid.index(*c) {
                grid.bits[i / 64] |= 1 << (i % 64);
            }
        }
        Ok(grid)
    }

    fn index(&self, c: Cell) -> Option<usize> {
        let mut i = 0usize;
        for a in (0..3).rev() {
            let o = i64::from(c[a]) - i64::from(self.min[a]);
            if o < 0 || o >= self.dims[a] as i64 {
                return None;
            }
            i = i * self.dims[a] + o as usize;
        }
        Some(i)
    }

    /// Whether a module occupies `cell`.
    pub fn occupied(&self, cell: Cell) -> bool {
        self.index(cell).is_some_and(|i| self.bits[i / 64] >> (i % 64) & 1 == 1)
    }

    /// Lowest cell of the bounding box.
    pub fn min(&self) -> Cell {
        self.min
    }

    /// Highest cell of the bounding box.
    pub fn max(&self) -> Cell {
        self.max
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bits.capacity() * 8
    }
}

/// An outer face: a module face with no neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExposedFace {
    /// The module's cell.
    pub cell: Cell,
    /// Face index ([`FACE_NORMALS`]).
    pub face: u8,
    /// Index in the robot's per-face arrays (module x faces per module + face).
    pub slot: u32,
}

/// The outer faces of `morphology`, in array order.
pub fn exposed_faces(morphology: &Morphology, grid: &Grid) -> Vec<ExposedFace> {
    let per = morphology.lattice().faces();
    let mut out = Vec::new();
    for (m, c) in morphology.cells().iter().enumerate() {
        for (f, n) in FACE_NORMALS[..per].iter().enumerate() {
            if !neighbour(*c, n).is_some_and(|c| grid.occupied(c)) {
                out.push(ExposedFace { cell: *c, face: f as u8, slot: (m * per + f) as u32 });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_shapes_say_which_module() {
        assert_eq!(Morphology::new(Lattice::Cube, vec![]), Err(MorphologyError::Empty));
        let e = Morphology::new(Lattice::Cube, vec![[0, 0, 0], [1, 0, 0], [0, 0, 0]]).unwrap_err();
        assert_eq!(e, MorphologyError::Overlap { index: 2, first: 0, cell: [0, 0, 0] });
        // Diagonal neighbours do not connect.
        let e = Morphology::new(Lattice::Cube, vec![[0, 0, 0], [1, 0, 0], [2, 1, 0]]).unwrap_err();
        assert_eq!(e, MorphologyError::Disconnected { index: 2, cell: [2, 1, 0] });
        // Cells at the two ends of the coordinate range are not neighbours (the sum
        // overflowed: a panic in debug builds, wrapped round to "connected" in release).
        let e = Morphology::new(Lattice::Cube, vec![[i32::MAX, 0, 0], [i32::MIN, 0, 0]]).unwrap_err();
        assert_eq!(e, MorphologyError::Disconnected { index: 1, cell: [i32::MIN, 0, 0] });
        let e = Morphology::new(Lattice::Square, vec![[0, 0, 0], [0, 0, 1]]).unwrap_err();
        assert!(e.to_string().contains("module 1 at [0, 0, 1] is off the plane"), "{e}");
        // A staircase of 3300 cubes spans 1100^3 cells.
        let mut stair = vec![[0, 0, 0]];
        for k in 0..3299 {
            let mut c: Cell = *stair.last().unwrap();
            c[k % 3] += 1;
            stair.push(c);
        }
        let e = Morphology::new(Lattice::Cube, stair).unwrap_err();
        assert!(matches!(e, MorphologyError::TooLarge { .. }), "{e}");
    }

    #[test]
    fn exposed_faces_of_an_l() {
        // L of three squares: 12 faces, 2 x 2 connected, 8 exposed.
        let m = Morphology::new(Lattice::Square, vec![[0, 0, 0], [1, 0, 0], [0, 1, 0]]).unwrap();
        let g = Grid::new(&m).unwrap();
        let faces = exposed_faces(&m, &g);
        assert_eq!(faces.len(), 8);
        // Module 0: +x (slot 0) and +y (slot 2) are connected.
        assert!(faces.iter().all(|f| f.slot != 0 && f.slot != 2));
        assert!(g.occupied([0, 1, 0]) && !g.occupied([1, 1, 0]) && !g.occupied([5, 0, 0]));
        assert_eq!(m.centroid(), [1.0 / 3.0, 1.0 / 3.0, 0.0]);
    }
}
