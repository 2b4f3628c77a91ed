//! Precomputed lattice geometry for the bit-packed search: neighbour tables and masks.

use super::bits::Bits;
use crate::lattice::Dims;

/// No neighbour in that direction.
pub(crate) const NONE: u16 = u16::MAX;

/// Direction slots in [`Geometry::neighbours`].
pub(crate) const PLUS_X: usize = 0;
pub(crate) const MINUS_X: usize = 1;
pub(crate) const PLUS_Y: usize = 2;
pub(crate) const MINUS_Y: usize = 3;
pub(crate) const UP: usize = 4;
pub(crate) const DOWN: usize = 5;
/// The horizontal direction slots.
pub(crate) const HORIZONTAL: [usize; 4] = [PLUS_X, MINUS_X, PLUS_Y, MINUS_Y];

pub(crate) struct Geometry<const W: usize> {
    pub dims: Dims,
    /// Every cell of the lattice.
    pub all: Bits<W>,
    /// Cells with `z = 0`.
    pub floor: Bits<W>,
    /// Cells not at `x = 0` / `x = X-1` / `y = 0` / `y = Y-1` (to cut wrapped shifts).
    not_x_first: Bits<W>,
    not_x_last: Bits<W>,
    not_y_first: Bits<W>,
    not_y_last: Bits<W>,
    /// `neighbours[cell][slot]`: face neighbour index or [`NONE`].
    pub neighbours: Vec<[u16; 6]>,
    /// `coords[cell] = [x, y, z]`.
    pub coords: Vec<[u16; 3]>,
    /// `slices[axis][c]`: cells whose coordinate on `axis` is `c`.
    pub slices: [Vec<Bits<W>>; 3],
    /// `column_below[cell]`: the cells straight below it (none on the floor).
    column_below: Vec<Bits<W>>,
}

impl<const W: usize> Geometry<W> {
    /// Geometry of `dims` (the caller guarantees `dims.cell_count() <= 64 * W`).
    pub fn new(dims: Dims) -> Self {
        let n = dims.cell_count();
        let (nx, ny, nz) = (dims.x, dims.y, dims.z);
        let index = |x: usize, y: usize, z: usize| x + nx * (y + ny * z);
        let mut geometry = Self {
            dims,
            all: Bits::first(n),
            floor: Bits::EMPTY,
            not_x_first: Bits::EMPTY,
            not_x_last: Bits::EMPTY,
            not_y_first: Bits::EMPTY,
            not_y_last: Bits::EMPTY,
            neighbours: vec![[NONE; 6]; n],
            coords: vec![[0; 3]; n],
            slices: [vec![Bits::EMPTY; nx], vec![Bits::EMPTY; ny], vec![Bits::EMPTY; nz]],
            column_below: vec![Bits::EMPTY; n],
        };
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let i = index(x, y, z);
                    geometry.coords[i] = [x as u16, y as u16, z as u16];
                    geometry.slices[0][x].insert(i);
                    geometry.slices[1][y].insert(i);
                    geometry.slices[2][z].insert(i);
                    if z == 0 {
                        geometry.floor.insert(i);
                    }
                    let mark = |keep: bool, mask: &mut Bits<W>| {
                        if keep {
                            mask.insert(i)
                        }
                    };
                    mark(x > 0, &mut geometry.not_x_first);
                    mark(x + 1 < nx, &mut geometry.not_x_last);
                    mark(y > 0, &mut geometry.not_y_first);
                    mark(y + 1 < ny, &mut geometry.not_y_last);
                    let nb = &mut geometry.neighbours[i];
                    let at = |x, y, z| index(x, y, z) as u16;
                    if x + 1 < nx {
                        nb[PLUS_X] = at(x + 1, y, z);
                    }
                    if x > 0 {
                        nb[MINUS_X] = at(x - 1, y, z);
                    }
                    if y + 1 < ny {
                        nb[PLUS_Y] = at(x, y + 1, z);
                    }
                    if y > 0 {
                        nb[MINUS_Y] = at(x, y - 1, z);
                    }
                    if z + 1 < nz {
                        nb[UP] = at(x, y, z + 1);
                    }
                    if z > 0 {
                        nb[DOWN] = at(x, y, z - 1);
                        let below = geometry.column_below[index(x, y, z - 1)];
                        geometry.column_below[i] = below | Bits::single(index(x, y, z - 1));
                    }
                }
            }
        }
        geometry
    }

    /// `bits` plus the neighbours of its cells along `x`.
    pub fn along_x(&self, bits: Bits<W>) -> Bits<W> {
        (bits | (bits.shifted_up(1) & self.not_x_first) | (bits.shifted_down(1) & self.not_x_last)) & self.all
    }

    /// `bits` plus every face neighbour of its cells.
    pub fn dilate(&self, bits: Bits<W>) -> Bits<W> {
        let (nx, layer) = (self.dims.x, self.dims.x * self.dims.y);
        let grown = bits
            | (bits.shifted_up(1) & self.not_x_first)
            | (bits.shifted_down(1) & self.not_x_last)
            | (bits.shifted_up(nx) & self.not_y_first)
            | (bits.shifted_down(nx) & self.not_y_last)
            | bits.shifted_up(layer)
            | bits.shifted_down(layer);
        grown & self.all
    }

    /// True when every block is connected to the floor through blocks.
    pub fn supported(&self, blocks: Bits<W>) -> bool {
        let mut reached = blocks & self.floor;
        loop {
            let next = self.dilate(reached) & blocks;
            if next == reached {
                return next == blocks;
            }
            reached = next;
        }
    }

    /// True when `after` has no floating block, given that it comes from a supported
    /// layout by emptying the cells `vacated` and filling cells that each touch a block
    /// that did not move (a move's anchor; the partner's block for a co-operative lift).
    /// A block whose support path ran through a vacated cell still reaches the floor if
    /// the block before that cell on the path does, so it suffices that every block
    /// touching a vacated cell stands on a full column of blocks (or on the floor); only
    /// when one does not is the whole layout checked.
    pub fn supported_after(&self, after: Bits<W>, vacated: Bits<W>) -> bool {
        let touching = self.dilate(vacated) & after;
        let columns_full = touching.iter().all(|cell| {
            let column = self.column_below[cell];
            after & column == column
        });
        columns_full || self.supported(after)
    }

    /// Manhattan distance between two cells, cells.
    pub fn manhattan(&self, a: usize, b: usize) -> u32 {
        let (p, q) = (self.coords[a], self.coords[b]);
        (0..3).map(|k| p[k].abs_diff(q[k]) as u32).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lattice::Lattice;

    fn blocks_of<const W: usize>(lattice: &Lattice) -> Bits<W> {
        let mut bits = Bits::EMPTY;
        for cell in lattice.block_cells() {
            bits.insert(lattice.index(&cell).unwrap());
        }
        bits
    }

    #[test]
    fn neighbours_in_2d_and_3d() {
        let g = Geometry::<1>::new(Dims::planar(3, 2));
        // cell 1 = (1, 0, 0): +x 2, -x 0, no y, up 4, no down.
        assert_eq!(g.neighbours[1], [2, 0, NONE, NONE, 4, NONE]);
        let g = Geometry::<1>::new(Dims::new(2, 2, 2));
        // cell 0 = (0,0,0): +x 1, +y 2, up 4.
        assert_eq!(g.neighbours[0], [1, NONE, 2, NONE, 4, NONE]);
        assert_eq!(g.manhattan(0, 7), 3);
    }

    #[test]
    fn support_after_a_move_agrees_with_the_full_check() {
        // The blocks touching the moved block stand on full columns: supported without
        // the full check.
        let g = Geometry::<1>::new(Dims::planar(4, 3));
        let cell = |x: usize, z: usize| x + 4 * z;
        let mut before = Bits::EMPTY;
        for c in [cell(0, 0), cell(1, 0), cell(2, 0), cell(1, 1), cell(2, 1), cell(1, 2)] {
            before.insert(c);
        }
        let moved = |from: usize, to: usize| (before & !Bits::single(from)) | Bits::single(to);
        let after = moved(cell(1, 2), cell(0, 1));
        assert!(g.supported_after(after, Bits::single(cell(1, 2))) && g.supported(after));
        let after = moved(cell(2, 1), cell(3, 0));
        assert!(g.supported_after(after, Bits::single(cell(2, 1))) && g.supported(after));
        let mut hanging = Bits::EMPTY;
        for c in [cell(0, 0), cell(0, 1), cell(1, 1), cell(2, 1), cell(2, 0)] {
            hanging.insert(c);
        }
        // (1,1) held only sideways: taking (0,1) away keeps it through (2,1), taking both
        // sides away floats it.
        let after = (hanging & !Bits::single(cell(0, 1))) | Bits::single(cell(3, 0));
        assert!(g.supported_after(after, Bits::single(cell(0, 1))));
        let vacated = Bits::single(cell(0, 1)) | Bits::single(cell(2, 1));
        let after = (hanging & !vacated) | Bits::single(cell(3, 0)) | Bits::single(cell(1, 0));
        assert!(g.supported_after(after, vacated) && g.supported(after));
        let after = (hanging & !vacated) | Bits::single(cell(3, 0)) | Bits::single(cell(0, 2));
        assert!(!g.supported_after(after, vacated) && !g.supported(after));
    }

    #[test]
    fn bit_support_agrees_with_the_lattice_rule() {
        for picture in ["....\n.##.\n.#..\n", "..#.\n.##.\n.#..\n", "#..#\n#..#\n#...\n", "#...\n....\n.#..\n"] {
            let lattice = Lattice::from_picture(picture).unwrap();
            let g = Geometry::<1>::new(lattice.dims());
            assert_eq!(g.supported(blocks_of(&lattice)), lattice.unsupported_blocks().is_empty(), "{picture}");
        }
        // 3-D: a block held only through a y-neighbour; and across word boundaries (W = 2).
        let lattice = Lattice::from_layers(&["#\n#\n", "#\n.\n"]).unwrap();
        let g = Geometry::<1>::new(lattice.dims());
        assert!(g.supported(blocks_of(&lattice)));
        let wide = Lattice::from_picture(&format!("{}#\n{}\n", ".".repeat(59), "#".repeat(60))).unwrap();
        let g = Geometry::<2>::new(wide.dims());
        assert!(g.supported(blocks_of(&wide)));
        let floating = Lattice::from_picture(&format!("{}#\n{}.\n", ".".repeat(59), "#".repeat(59))).unwrap();
        let g = Geometry::<2>::new(floating.dims());
        assert!(!g.supported(blocks_of(&floating)));
    }
}
