//! Structures: the connected components of the world's latch graph, placed on the lattice.

use flotilla_firmware::lily::shape::{Cell, LatticeShape, STEPS};
use std::collections::{BTreeMap, BTreeSet};
use tank_physics::BodyState;

/// A latch between two faces, smaller id first: (id a, face a, id b, face b).
pub type Bond = (u32, usize, u32, usize);

/// One connected group of latched modules (a single unlatched module is a structure of one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structure {
    /// Module ids, ascending.
    pub members: Vec<u32>,
    /// Its latches.
    pub bonds: Vec<Bond>,
    /// Its cells up to rotation; `None` when the latches do not place the modules on a
    /// square lattice (a module without four faces, or two modules on one cell).
    pub shape: Option<LatticeShape>,
}

/// The structures of every module that has latches, ordered by smallest member id.
pub fn structures(bodies: &[BodyState]) -> Vec<Structure> {
    let by_id: BTreeMap<u32, &BodyState> = bodies.iter().filter(|b| b.faces.iter().any(|f| f.has_latch)).map(|b| (b.id, b)).collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for &start in by_id.keys() {
        if !seen.insert(start) {
            continue;
        }
        // Breadth-first over latch links; each module gets a cell and a turn (quarter turns
        // of its face 0 from the first module's face 0).
        let mut placed: BTreeMap<u32, (Cell, i32)> = BTreeMap::from([(start, ([0, 0], 0))]);
        let mut queue = std::collections::VecDeque::from([start]);
        let mut bonds = BTreeSet::new();
        let mut lattice_ok = true;
        while let Some(id) = queue.pop_front() {
            let Some(body) = by_id.get(&id) else { continue };
            let four_faces = body.faces.len() == STEPS.len();
            lattice_ok &= four_faces;
            let (cell, turn) = placed[&id];
            for (face, state) in body.faces.iter().enumerate() {
                let Some(link) = state.latched else { continue };
                if !by_id.contains_key(&link.other_id) {
                    continue;
                }
                bonds.insert(if id < link.other_id {
                    (id, face, link.other_id, link.other_face)
                } else {
                    (link.other_id, link.other_face, id, face)
                });
                // Direction of this face on the lattice, and the partner's cell and turn
                // (its face points back: turn + other_face = direction + 2).
                let dir = (turn + face as i32).rem_euclid(4);
                let step = STEPS[dir as usize];
                let other = ([cell[0] + step[0], cell[1] + step[1]], (dir + 2 - link.other_face as i32).rem_euclid(4));
                match placed.get(&link.other_id) {
                    Some(&existing) => lattice_ok &= existing == other,
                    None => {
                        placed.insert(link.other_id, other);
                        seen.insert(link.other_id);
                        queue.push_back(link.other_id);
                    }
                }
            }
        }
        let cells: Vec<Cell> = placed.values().map(|(c, _)| *c).collect();
        let distinct = cells.iter().collect::<BTreeSet<_>>().len() == cells.len();
        let shape = (lattice_ok && distinct).then(|| LatticeShape::canonical(cells));
        out.push(Structure { members: placed.keys().copied().collect(), bonds: bonds.into_iter().collect(), shape });
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use flotilla_common::catalogue::ModuleKind;
    use nalgebra::{Isometry3, Vector3};
    use tank_physics::{FaceState, LatchLink};

    /// Lilies with the given latches: (id a, face a, id b, face b).
    pub(crate) fn lilies(n: u32, latches: &[Bond]) -> Vec<BodyState> {
        let mut bodies: Vec<BodyState> = (0..n)
            .map(|id| BodyState {
                id,
                name: format!("lily_{id}"),
                kind: ModuleKind::Lily,
                pose: Isometry3::identity(),
                linvel: Vector3::zeros(),
                angvel: Vector3::zeros(),
                faces: vec![FaceState { has_latch: true, ..FaceState::default() }; 4],
            })
            .collect();
        for &(a, fa, b, fb) in latches {
            bodies[a as usize].faces[fa].latched = Some(LatchLink { other_id: b, other_face: fb });
            bodies[b as usize].faces[fb].latched = Some(LatchLink { other_id: a, other_face: fa });
        }
        bodies
    }

    fn shape(cells: &[Cell]) -> Option<LatticeShape> {
        Some(LatticeShape::from_cells(cells).unwrap())
    }

    #[test]
    fn chain_with_arbitrary_face_pairs_is_straight() {
        // 0's face 0 meets 1's face 2: 1 is unturned at (1, 0); its face 1 (+y) meets 2: a corner.
        let s = structures(&lilies(3, &[(0, 0, 1, 2), (1, 1, 2, 3)]));
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].shape, shape(&[[0, 0], [1, 0], [1, 1]]));
        // Module 1 turned by 90 deg (its face 3 meets 0's face 0): its face 1 now points +x.
        let s = structures(&lilies(3, &[(0, 0, 1, 3), (1, 1, 2, 3)]));
        assert_eq!(s[0].shape, shape(&[[0, 0], [1, 0], [2, 0]]));
        assert_eq!(s[0].bonds, vec![(0, 0, 1, 3), (1, 1, 2, 3)]);
    }

    #[test]
    fn square_cycle_is_consistent_and_singletons_are_listed() {
        // 0 (0,0), 1 (1,0), 2 (1,1), 3 (0,1), all unturned.
        let bonds = [(0, 0, 1, 2), (1, 1, 2, 3), (2, 2, 3, 0), (0, 1, 3, 3)];
        let s = structures(&lilies(5, &bonds));
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].members, vec![0, 1, 2, 3]);
        assert_eq!(s[0].shape, shape(&[[0, 0], [1, 0], [0, 1], [1, 1]]));
        assert_eq!(s[1].members, vec![4]);
        assert_eq!(s[1].shape, shape(&[[0, 0]]));
    }

    #[test]
    fn impossible_cycles_have_no_shape() {
        // A ring of three cannot lie on a square lattice.
        let s = structures(&lilies(3, &[(0, 0, 1, 2), (1, 0, 2, 2), (2, 0, 0, 2)]));
        assert_eq!(s[0].shape, None);
    }
}
