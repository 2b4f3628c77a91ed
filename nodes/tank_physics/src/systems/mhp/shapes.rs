//! Robot shapes: cubes, random growth (SPEC 5), and the free polyominoes (the 2-D
//! prototype's configurations).

use std::collections::{BTreeSet, HashSet};

use flotilla_contract::mhp::FACE_NORMALS;
use rand::Rng;

use super::lattice::{Cell, Lattice, Morphology};

/// The n x n x n cube (n >= 1), cells in x-fastest order.
pub fn cube(n: u32) -> Morphology {
    let n = n.max(1) as i32;
    let cells = (0..n).flat_map(|z| (0..n).flat_map(move |y| (0..n).map(move |x| [x, y, z]))).collect();
    // A cube is connected and overlap-free by construction.
    Morphology::new(Lattice::Cube, cells).unwrap_or_else(|e| unreachable!("a cube is valid: {e}"))
}

/// SPEC 5's random growth: from one module, pick a module uniformly at random and one of
/// its free faces uniformly at random and attach a module there, until `modules` (>= 1).
pub fn random_growth(lattice: Lattice, modules: usize, rng: &mut impl Rng) -> Morphology {
    let faces = &FACE_NORMALS[..lattice.faces()];
    let mut cells: Vec<Cell> = vec![[0, 0, 0]];
    let mut taken: HashSet<Cell> = cells.iter().copied().collect();
    let mut free = Vec::with_capacity(6);
    while cells.len() < modules.max(1) {
        let c = cells[rng.gen_range(0..cells.len())];
        free.clear();
        free.extend(faces.iter().map(|n| [c[0] + n[0], c[1] + n[1], c[2] + n[2]]).filter(|x| !taken.contains(x)));
        if free.is_empty() {
            continue; // a buried module: pick again
        }
        let new = free[rng.gen_range(0..free.len())];
        taken.insert(new);
        cells.push(new);
    }
    Morphology::new(lattice, cells).unwrap_or_else(|e| unreachable!("growth attaches to faces: {e}"))
}

/// A square-lattice shape moved to the origin and sorted: the key of its fixed form.
fn normalise(cells: &[Cell]) -> Vec<Cell> {
    let min_x = cells.iter().map(|c| c[0]).min().unwrap_or(0);
    let min_y = cells.iter().map(|c| c[1]).min().unwrap_or(0);
    let mut out: Vec<Cell> = cells.iter().map(|c| [c[0] - min_x, c[1] - min_y, 0]).collect();
    out.sort_unstable();
    out
}

/// The key of a free polyomino: the least of its eight rotations and reflections.
fn canonical(cells: &[Cell]) -> Vec<Cell> {
    let maps: [fn(Cell) -> Cell; 8] = [
        |c| [c[0], c[1], 0],
        |c| [-c[1], c[0], 0],
        |c| [-c[0], -c[1], 0],
        |c| [c[1], -c[0], 0],
        |c| [-c[0], c[1], 0],
        |c| [c[1], c[0], 0],
        |c| [c[0], -c[1], 0],
        |c| [-c[1], -c[0], 0],
    ];
    maps.iter().map(|f| normalise(&cells.iter().map(|&c| f(c)).collect::<Vec<_>>())).min().unwrap_or_default()
}

/// Every free polyomino of `size` squares (no two alike under rotation or mirroring), each
/// in its canonical placement, in a fixed order: 1, 1, 2, 5, 12, 35 ... of them.
pub fn free_polyominoes(size: usize) -> Vec<Vec<Cell>> {
    let mut level: BTreeSet<Vec<Cell>> = BTreeSet::from([vec![[0, 0, 0]]]);
    for _ in 1..size.max(1) {
        let mut next = BTreeSet::new();
        for shape in &level {
            for c in shape {
                for n in &FACE_NORMALS[..4] {
                    let new = [c[0] + n[0], c[1] + n[1], 0];
                    if !shape.contains(&new) {
                        let mut grown = shape.clone();
                        grown.push(new);
                        next.insert(canonical(&grown));
                    }
                }
            }
        }
        level = next;
    }
    level.into_iter().collect()
}

/// The 2-D prototype's configurations (SPEC 5: "all 9 four-module configurations"): the
/// free polyominoes of one to four modules, 1 + 1 + 2 + 5 = 9, named by size and a letter
/// (`1`, `2`, `3I`, `3L`, `4I`, `4O`, `4T`, `4S`, `4L`).
pub fn prototype_configurations() -> Vec<(String, Morphology)> {
    let mut out = Vec::new();
    for size in 1..=4 {
        for cells in free_polyominoes(size) {
            let name = format!("{size}{}", polyomino_letter(&cells));
            let m = Morphology::new(Lattice::Square, cells).unwrap_or_else(|e| unreachable!("polyominoes are valid: {e}"));
            out.push((name, m));
        }
    }
    out
}

/// The usual letter of a polyomino of up to four squares (empty for the 1- and 2-omino).
fn polyomino_letter(cells: &[Cell]) -> &'static str {
    let w = cells.iter().map(|c| c[0]).max().unwrap_or(0) + 1;
    let h = cells.iter().map(|c| c[1]).max().unwrap_or(0) + 1;
    let (long, short) = (w.max(h), w.min(h));
    let has_t_junction =
        cells.iter().any(|c| FACE_NORMALS[..4].iter().filter(|n| cells.contains(&[c[0] + n[0], c[1] + n[1], 0])).count() == 3);
    // In its 3 x 2 box the L has a full line of three, the S two lines of two.
    let full_line = (0..short).any(|k| cells.iter().filter(|c| if w >= h { c[1] == k } else { c[0] == k }).count() == 3);
    match (cells.len(), long, short) {
        (1 | 2, _, _) => "",
        (_, _, 1) => "I",
        (3, _, _) => "L",
        (4, 2, 2) => "O",
        _ if has_t_junction => "T",
        _ if full_line => "L",
        _ => "S",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn polyomino_counts_are_the_known_sequence() {
        let counts: Vec<usize> = (1..=6).map(|n| free_polyominoes(n).len()).collect();
        assert_eq!(counts, [1, 1, 2, 5, 12, 35]);
    }

    #[test]
    fn nine_prototype_configurations_with_their_names() {
        let names: Vec<String> = prototype_configurations().into_iter().map(|(n, _)| n).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, ["1", "2", "3I", "3L", "4I", "4L", "4O", "4S", "4T"], "{names:?}");
    }

    #[test]
    fn growth_is_seeded_and_connected() {
        let a = random_growth(Lattice::Cube, 100, &mut ChaCha8Rng::seed_from_u64(3));
        let b = random_growth(Lattice::Cube, 100, &mut ChaCha8Rng::seed_from_u64(3));
        assert_eq!(a, b);
        assert_eq!(a.len(), 100);
        assert_ne!(a, random_growth(Lattice::Cube, 100, &mut ChaCha8Rng::seed_from_u64(4)));
        assert_eq!(cube(4).len(), 64);
    }
}
