//! Lattice shapes up to rotation and translation (Lilies are square and cannot flip, so
//! mirror images are different shapes).

use std::collections::BTreeSet;

/// A lattice cell (column, row).
pub type Cell = [i32; 2];

/// A set of lattice cells in canonical form: of its four rotations, translated to start
/// at (0, 0), the lexicographically smallest sorted cell list.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LatticeShape {
    cells: Vec<Cell>,
}

/// A cell list that is not a shape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// No cells.
    #[error("a shape needs at least one cell")]
    Empty,
    /// Too many cells.
    #[error("a shape has at most {max} cells, got {len}")]
    TooLarge {
        /// Cells given.
        len: usize,
        /// Largest allowed.
        max: usize,
    },
    /// The same cell twice.
    #[error("cell [{}, {}] is listed twice", .cell[0], .cell[1])]
    Duplicate {
        /// The repeated cell.
        cell: Cell,
    },
    /// Cells not joined edge to edge.
    #[error("the cells are not connected edge to edge (cell [{}, {}] is cut off)", .cell[0], .cell[1])]
    Disconnected {
        /// A cell not reachable from the first.
        cell: Cell,
    },
}

/// Largest shape the metrics handle (a target is a small structure).
pub const MAX_SHAPE_CELLS: usize = 256;

/// Unit steps along the four lattice directions, counter-clockwise from +x.
pub const STEPS: [Cell; 4] = [[1, 0], [0, 1], [-1, 0], [0, -1]];

fn rotate(cells: &[Cell]) -> Vec<Cell> {
    // 90 deg counter-clockwise: (x, y) -> (-y, x).
    cells.iter().map(|&[x, y]| [-y, x]).collect()
}

fn normalise(mut cells: Vec<Cell>) -> Vec<Cell> {
    let min_x = cells.iter().map(|c| c[0]).min().unwrap_or(0);
    let min_y = cells.iter().map(|c| c[1]).min().unwrap_or(0);
    for c in &mut cells {
        *c = [c[0] - min_x, c[1] - min_y];
    }
    cells.sort_unstable();
    cells
}

impl LatticeShape {
    /// A shape from cells: non-empty, distinct, connected edge to edge.
    pub fn from_cells(cells: &[Cell]) -> Result<Self, ShapeError> {
        if cells.is_empty() {
            return Err(ShapeError::Empty);
        }
        if cells.len() > MAX_SHAPE_CELLS {
            return Err(ShapeError::TooLarge { len: cells.len(), max: MAX_SHAPE_CELLS });
        }
        let set: BTreeSet<Cell> = cells.iter().copied().collect();
        if set.len() != cells.len() {
            let mut seen = BTreeSet::new();
            let cell = cells.iter().copied().find(|c| !seen.insert(*c)).unwrap_or(cells[0]);
            return Err(ShapeError::Duplicate { cell });
        }
        let mut reached = BTreeSet::from([cells[0]]);
        let mut frontier = vec![cells[0]];
        while let Some([x, y]) = frontier.pop() {
            for [dx, dy] in STEPS {
                let next = [x + dx, y + dy];
                if set.contains(&next) && reached.insert(next) {
                    frontier.push(next);
                }
            }
        }
        if let Some(&cell) = cells.iter().find(|c| !reached.contains(*c)) {
            return Err(ShapeError::Disconnected { cell });
        }
        Ok(Self::canonical(cells.to_vec()))
    }

    /// Canonical form of cells known to be distinct (connectivity not checked).
    pub fn canonical(cells: Vec<Cell>) -> Self {
        let mut best = normalise(cells.clone());
        let mut turned = cells;
        for _ in 0..3 {
            turned = rotate(&turned);
            let candidate = normalise(turned.clone());
            if candidate < best {
                best = candidate;
            }
        }
        Self { cells: best }
    }

    /// The canonical cells.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Always false: a shape has at least one cell.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Whether this shape fits inside `whole` by some rotation and translation.
    pub fn is_part_of(&self, whole: &LatticeShape) -> bool {
        if self.len() > whole.len() {
            return false;
        }
        let target: BTreeSet<Cell> = whole.cells.iter().copied().collect();
        let mut turned = self.cells.clone();
        for _ in 0..4 {
            let anchor = turned[0];
            // Try placing the first cell on every target cell.
            let fits =
                whole.cells.iter().any(|&[tx, ty]| turned.iter().all(|&[x, y]| target.contains(&[x - anchor[0] + tx, y - anchor[1] + ty])));
            if fits {
                return true;
            }
            turned = rotate(&turned);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(cells: &[Cell]) -> LatticeShape {
        LatticeShape::from_cells(cells).unwrap()
    }

    #[test]
    fn rotations_and_translations_are_one_shape() {
        let chain_x = shape(&[[0, 0], [1, 0], [2, 0], [3, 0]]);
        let chain_y = shape(&[[5, 2], [5, 3], [5, 4], [5, 5]]);
        assert_eq!(chain_x, chain_y);
        // Canonical form: the smallest sorted cell list of the four turns, here the column.
        assert_eq!(chain_x.cells(), &[[0, 0], [0, 1], [0, 2], [0, 3]]);
        let t_up = shape(&[[0, 0], [1, 0], [2, 0], [1, 1]]);
        let t_left = shape(&[[1, 0], [1, 1], [1, 2], [0, 1]]);
        assert_eq!(t_up, t_left);
        assert_ne!(t_up, chain_x);
    }

    #[test]
    fn mirror_images_differ() {
        // L and J tetrominoes: no rotation maps one onto the other.
        let l = shape(&[[0, 0], [0, 1], [0, 2], [1, 0]]);
        let j = shape(&[[1, 0], [1, 1], [1, 2], [0, 0]]);
        assert_ne!(l, j);
    }

    #[test]
    fn parts_of_targets_by_hand() {
        let square = shape(&[[0, 0], [1, 0], [0, 1], [1, 1]]);
        let chain = shape(&[[0, 0], [1, 0], [2, 0], [3, 0]]);
        let t = shape(&[[0, 0], [1, 0], [2, 0], [1, 1]]);
        let domino = shape(&[[0, 0], [0, 1]]);
        let corner = shape(&[[0, 0], [1, 0], [1, 1]]);
        let line3 = shape(&[[0, 0], [1, 0], [2, 0]]);
        assert!(domino.is_part_of(&square) && domino.is_part_of(&chain) && domino.is_part_of(&t));
        assert!(corner.is_part_of(&square) && corner.is_part_of(&t) && !corner.is_part_of(&chain));
        assert!(line3.is_part_of(&chain) && line3.is_part_of(&t) && !line3.is_part_of(&square));
        assert!(square.is_part_of(&square) && !chain.is_part_of(&t));
        let five = shape(&[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]);
        assert!(!five.is_part_of(&chain));
    }

    #[test]
    fn bad_cell_lists_are_refused() {
        assert_eq!(LatticeShape::from_cells(&[]), Err(ShapeError::Empty));
        assert_eq!(LatticeShape::from_cells(&[[0, 0], [1, 0], [0, 0]]), Err(ShapeError::Duplicate { cell: [0, 0] }));
        assert_eq!(LatticeShape::from_cells(&[[0, 0], [2, 0]]), Err(ShapeError::Disconnected { cell: [2, 0] }));
    }
}
