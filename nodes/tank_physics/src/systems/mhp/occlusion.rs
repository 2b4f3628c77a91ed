//! The target sensor of one outer face (SPEC 5): it sees the target iff the target is in
//! front of the face (180 deg field of view) and the segment from the face centre to the
//! target passes through no module. Exact for any shape, concave included, by stepping
//! the segment through the lattice cells it crosses (Amanatides-Woo) until it reaches the
//! target or leaves the robot's bounding box: a face of a convex robot that faces the
//! target leaves the box in its first step, so the cost is one or a few cells per face.
//!
//! Coordinates are in module sides with cell `c` spanning `c - 1/2 .. c + 1/2`. A module
//! blocks the segment when the segment meets its open interior; a segment running exactly
//! along cell boundaries (measure zero for a rotating robot) is decided by the stepping
//! order.

use super::lattice::{Cell, Grid};
use flotilla_contract::mhp::FACE_NORMALS;

/// Whether face `face` of the module at `cell` sees `target` (lattice coordinates).
pub fn face_sees(grid: &Grid, cell: Cell, face: usize, target: [f64; 3]) -> bool {
    let n = FACE_NORMALS[face];
    let axis = face / 2;
    let mut p = cell.map(f64::from);
    p[axis] += 0.5 * f64::from(n[axis]);
    let d = [target[0] - p[0], target[1] - p[1], target[2] - p[2]];
    if d[axis] * f64::from(n[axis]) <= 0.0 {
        return false; // behind the face
    }
    let (min, max) = (grid.min(), grid.max());
    let mut c = [cell[0] + n[0], cell[1] + n[1], cell[2] + n[2]];
    let mut step = [0i32; 3];
    let mut t_max = [f64::INFINITY; 3];
    let mut t_delta = [f64::INFINITY; 3];
    for a in 0..3 {
        if d[a] != 0.0 {
            step[a] = if d[a] > 0.0 { 1 } else { -1 };
            t_delta[a] = 1.0 / d[a].abs();
            // From the face plane the next boundary along the normal is one side away; across
            // it the face centre is mid-cell, half a side from the next boundary.
            t_max[a] = if a == axis { t_delta[a] } else { 0.5 * t_delta[a] };
        }
    }
    loop {
        // Out of the box and not heading back in: nothing left to block.
        if (0..3).any(|a| (c[a] < min[a] && step[a] <= 0) || (c[a] > max[a] && step[a] >= 0)) {
            return true;
        }
        if grid.occupied(c) {
            return false;
        }
        let a = if t_max[0] <= t_max[1] && t_max[0] <= t_max[2] {
            0
        } else if t_max[1] <= t_max[2] {
            1
        } else {
            2
        };
        if t_max[a] >= 1.0 {
            return true; // the target lies in this (empty) cell
        }
        c[a] += step[a];
        t_max[a] += t_delta[a];
    }
}

#[cfg(test)]
mod tests {
    use super::super::lattice::{exposed_faces, Lattice, Morphology};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Brute force: the segment against every module's open box.
    fn brute_force(cells: &[Cell], cell: Cell, face: usize, target: [f64; 3]) -> bool {
        let n = FACE_NORMALS[face];
        let axis = face / 2;
        let mut p = cell.map(f64::from);
        p[axis] += 0.5 * f64::from(n[axis]);
        let d: [f64; 3] = std::array::from_fn(|a| target[a] - p[a]);
        if d[axis] * f64::from(n[axis]) <= 0.0 {
            return false;
        }
        !cells.iter().any(|b| {
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            for a in 0..3 {
                let (l, h) = (f64::from(b[a]) - 0.5, f64::from(b[a]) + 0.5);
                if d[a] == 0.0 {
                    if p[a] <= l || p[a] >= h {
                        return false;
                    }
                } else {
                    let (t0, t1) = ((l - p[a]) / d[a], (h - p[a]) / d[a]);
                    lo = lo.max(t0.min(t1));
                    hi = hi.min(t0.max(t1));
                }
            }
            lo < hi
        })
    }

    fn check_all(m: &Morphology, target: [f64; 3]) -> usize {
        let g = Grid::new(m).unwrap();
        let mut seen = 0;
        for f in exposed_faces(m, &g) {
            let fast = face_sees(&g, f.cell, f.face as usize, target);
            assert_eq!(fast, brute_force(m.cells(), f.cell, f.face as usize, target), "{f:?} target {target:?} cells {:?}", m.cells());
            seen += usize::from(fast);
        }
        seen
    }

    #[test]
    fn a_u_shape_hides_its_inner_floor() {
        // U open towards +y: bottom row y = 0 (x = 0..2), arms at x = 0 and x = 2 up to y = 2.
        let cells = vec![[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0], [2, 1, 0], [0, 2, 0], [2, 2, 0]];
        let m = Morphology::new(Lattice::Square, cells).unwrap();
        let g = Grid::new(&m).unwrap();
        // The floor of the notch (+y face of [1, 0]) sees a target straight up the notch ...
        assert!(face_sees(&g, [1, 0, 0], 2, [1.2, 30.0, 0.0]));
        // ... but not one far off to the side: the arm at x = 2 is in the way.
        assert!(!face_sees(&g, [1, 0, 0], 2, [30.0, 5.0, 0.0]));
        // The inner wall of the left arm (+x face of [0, 2]) sees across to the right only
        // above the right arm.
        assert!(!face_sees(&g, [0, 2, 0], 0, [30.0, 2.2, 0.0]));
        assert!(face_sees(&g, [0, 2, 0], 0, [30.0, 40.0, 0.0]));
        // Behind a face: never.
        assert!(!face_sees(&g, [0, 0, 0], 1, [30.0, 0.0, 0.0]));
        check_all(&m, [1.2, 30.0, 0.0]);
        check_all(&m, [30.0, 5.0, 0.0]);
    }

    #[test]
    fn a_cup_in_3d_and_a_target_inside_its_cavity() {
        // A 3 x 3 x 3 cube with the centre and the top centre removed: a cup open to +z.
        let cells: Vec<Cell> = (0..27).map(|i| [i % 3, (i / 3) % 3, i / 9]).filter(|c| !(c[0] == 1 && c[1] == 1 && c[2] >= 1)).collect();
        let m = Morphology::new(Lattice::Cube, cells).unwrap();
        let g = Grid::new(&m).unwrap();
        // The cavity floor sees straight up, not sideways through the walls.
        assert!(face_sees(&g, [1, 1, 0], 4, [1.1, 0.9, 20.0]));
        assert!(!face_sees(&g, [1, 1, 0], 4, [20.0, 1.0, 1.5]));
        // A target inside the cavity: seen by the walls around it, hidden from the outside.
        let inside = [1.05, 0.95, 1.2];
        assert!(face_sees(&g, [0, 1, 1], 0, inside));
        assert!(!face_sees(&g, [2, 1, 1], 0, inside));
        assert_eq!(check_all(&m, inside), 9, "the eight cavity walls and the floor");
    }

    #[test]
    fn lattice_stepping_equals_brute_force_on_random_concave_robots() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let mut faces = 0;
        for trial in 0..60 {
            let lattice = if trial % 4 == 0 { Lattice::Square } else { Lattice::Cube };
            let m = super::super::shapes::random_growth(lattice, rng.gen_range(2..80), &mut rng);
            let g = Grid::new(&m).unwrap();
            for _ in 0..8 {
                // Targets near (inside concavities) and far, in every direction.
                let r = if rng.gen_bool(0.5) { 4.0 } else { 100.0 };
                let mut t: [f64; 3] = std::array::from_fn(|_| rng.gen_range(-r..r));
                if lattice == Lattice::Square {
                    t[2] = rng.gen_range(-0.4..0.4);
                }
                if m.cells().iter().any(|c| (0..3).all(|a| (f64::from(c[a]) - t[a]).abs() < 0.5)) {
                    continue; // inside a module
                }
                check_all(&m, t);
                faces += exposed_faces(&m, &g).len();
            }
        }
        assert!(faces > 10_000, "{faces}");
    }
}
