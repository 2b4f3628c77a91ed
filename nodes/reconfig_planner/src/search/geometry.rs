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
                    }
                }
            }
        }
        geometry
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
    fn bit_support_agrees_with_the_lattice_rule() {
        for picture in ["....\n.##.\n.#..\n", "..#.\n.##.\n.#..\n", "#..#\n#..#\n#...\n", "#...\n....\n.#..\n"] {
            let lattice = Lattice::from_picture(picture).unwrap();
            let g = Geometry::<1>::new(lattice.dims());
            assert_eq!(
                g.supported(blocks_of(&lattice)),
                lattice.unsupported_blocks().is_empty(),
                "{picture}"
            );
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
