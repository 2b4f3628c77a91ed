//! The state index of the search: an open-addressing hash table (linear probing) of node
//! ids, keyed by the states the caller keeps in its node list. A slot holds the state's
//! 32-bit hash and its node id (8 bytes, against 28 for a map that also stores the
//! state), and growing moves only slots, using the stored hashes.

use super::expand::State;

/// Marks an empty slot (node ids stay below it: see `MAX_NODES` in the search).
const EMPTY: u32 = u32::MAX;

/// Slots of a new table; a power of two.
const INITIAL_SLOTS: usize = 64;

pub(crate) struct StateIndex {
    /// `(hash, node id)`, `node id` = [`EMPTY`] for a free slot.
    slots: Vec<(u32, u32)>,
    /// Slots - 1 (the slot count is a power of two).
    mask: usize,
    /// Ids stored, count.
    len: usize,
}

/// Where a look-up ended.
pub(crate) enum Lookup {
    /// The state is stored, under this node id.
    Found(u32),
    /// Not stored; [`StateIndex::insert`] takes this slot.
    Vacant(usize),
}

/// 32-bit hash of a state (FxHash-style multiply per word, then the well-mixed high half).
#[inline]
pub(crate) fn state_hash<const W: usize>(state: &State<W>) -> u32 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h: u64 = 0;
    for word in state.blocks.0.iter().chain(state.robots.0.iter()) {
        h = (h.rotate_left(26) ^ word).wrapping_mul(K);
    }
    (h >> 32) as u32
}

impl Default for StateIndex {
    fn default() -> Self {
        Self { slots: vec![(0, EMPTY); INITIAL_SLOTS], mask: INITIAL_SLOTS - 1, len: 0 }
    }
}

impl StateIndex {
    /// Looks up the state with hash `hash`; `is_state(id)` tells whether node `id` holds it.
    #[inline]
    pub fn find(&self, hash: u32, mut is_state: impl FnMut(u32) -> bool) -> Lookup {
        let mut pos = hash as usize & self.mask;
        loop {
            let (stored, id) = self.slots[pos];
            if id == EMPTY {
                return Lookup::Vacant(pos);
            }
            if stored == hash && is_state(id) {
                return Lookup::Found(id);
            }
            pos = (pos + 1) & self.mask;
        }
    }

    /// Stores node `id` (hash `hash`) in the slot `vacant` that [`Self::find`] returned
    /// for it (no insertion in between); grows the table past half full.
    pub fn insert(&mut self, vacant: usize, hash: u32, id: u32) {
        self.slots[vacant] = (hash, id);
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let doubled = vec![(0, EMPTY); self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, doubled);
        self.mask = self.slots.len() - 1;
        for (hash, id) in old.into_iter().filter(|&(_, id)| id != EMPTY) {
            let mut pos = hash as usize & self.mask;
            while self.slots[pos].1 != EMPTY {
                pos = (pos + 1) & self.mask;
            }
            self.slots[pos] = (hash, id);
        }
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.slots.capacity() * size_of::<(u32, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Bits;

    #[test]
    fn finds_what_it_stored_through_collisions_and_growth() {
        let states: Vec<State<2>> = (0..5000u64).map(|i| State { blocks: Bits([i % 97, i / 97]), robots: Bits([i % 3, 0]) }).collect();
        let mut index = StateIndex::default();
        for (id, state) in states.iter().enumerate() {
            // Every third state also under a forced colliding hash: the state decides.
            let hash = if id % 3 == 0 { 7 } else { state_hash(state) };
            match index.find(hash, |other| states[other as usize] == *state) {
                Lookup::Found(other) => panic!("state {id} found as {other} before it was stored"),
                Lookup::Vacant(slot) => index.insert(slot, hash, id as u32),
            }
        }
        assert!(index.bytes() >= 2 * 5000 * 8);
        for (id, state) in states.iter().enumerate() {
            let hash = if id % 3 == 0 { 7 } else { state_hash(state) };
            match index.find(hash, |other| states[other as usize] == *state) {
                Lookup::Found(found) => assert_eq!(found, id as u32),
                Lookup::Vacant(_) => panic!("state {id} lost"),
            }
        }
        let absent = State { blocks: Bits([1000, 1000]), robots: Bits([0, 0]) };
        assert!(matches!(index.find(state_hash(&absent), |other| states[other as usize] == absent), Lookup::Vacant(_)));
    }
}
