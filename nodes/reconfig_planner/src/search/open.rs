//! The open list: entries in buckets keyed by `(f, g)`, popped lowest `f` first, then
//! highest `g` (deepest), last in, first out within a bucket.
//!
//! Costs are small integers, so few distinct keys are in use at a time: a binary heap
//! over those keys plus a hash map from key to bucket make push and pop O(1) amortised
//! on hot memory, where a binary heap over every entry pays `log n` cache misses a pop.

use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// End of a bucket's chain (and of the free chain).
const NIL: u32 = u32::MAX;

/// Entries live in one array, each bucket a last-in-first-out chain through it, and popped
/// slots are chained for reuse: no per-bucket vector grows and reallocates.
pub(crate) struct OpenList<T> {
    /// Keys whose bucket is not empty, smallest first.
    keys: BinaryHeap<Reverse<u64>>,
    /// First entry of each key's bucket ([`NIL`] when empty; kept for reuse).
    heads: FxHashMap<u64, u32>,
    /// Every entry with the next one of its chain.
    entries: Vec<(T, u32)>,
    /// First slot of `entries` free for reuse.
    free: u32,
    len: usize,
}

impl<T> Default for OpenList<T> {
    fn default() -> Self {
        Self { keys: BinaryHeap::new(), heads: FxHashMap::default(), entries: Vec::new(), free: NIL, len: 0 }
    }
}

/// Orders `f` ascending, then `g` descending.
fn key(f: u32, g: u32) -> u64 {
    (f as u64) << 32 | (u32::MAX - g) as u64
}

impl<T: Copy> OpenList<T> {
    pub fn push(&mut self, f: u32, g: u32, entry: T) {
        let key = key(f, g);
        let head = self.heads.entry(key).or_insert(NIL);
        if *head == NIL {
            self.keys.push(Reverse(key));
        }
        let slot = match self.free {
            NIL => {
                self.entries.push((entry, *head));
                self.entries.len() as u32 - 1
            }
            free => {
                self.free = self.entries[free as usize].1;
                self.entries[free as usize] = (entry, *head);
                free
            }
        };
        *head = slot;
        self.len += 1;
    }

    /// The sort key of the first entry (smaller comes first).
    pub fn first_key(&self) -> Option<u64> {
        self.keys.peek().map(|&Reverse(key)| key)
    }

    /// `(f, g, entry)` of the first entry, removed.
    pub fn pop(&mut self) -> Option<(u32, u32, T)> {
        let &Reverse(key) = self.keys.peek()?;
        let head = self.heads.get_mut(&key)?;
        let slot = *head;
        let (entry, next) = *self.entries.get(slot as usize)?;
        *head = next;
        if next == NIL {
            self.keys.pop();
        }
        self.entries[slot as usize].1 = self.free;
        self.free = slot;
        self.len -= 1;
        Some(((key >> 32) as u32, u32::MAX - key as u32, entry))
    }

    /// Entries held, count.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Heap bytes held (capacities).
    pub fn bytes(&self) -> usize {
        self.keys.capacity() * size_of::<u64>()
            + self.heads.capacity() * (size_of::<(u64, u32)>() + 1)
            + self.entries.capacity() * size_of::<(T, u32)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_f_then_deepest_then_newest() {
        let mut open = OpenList::default();
        for (f, g, node) in [(5, 1, 10), (4, 0, 11), (5, 3, 12), (5, 3, 13), (7, 7, 14), (4, 2, 15)] {
            open.push(f, g, node);
        }
        assert_eq!(open.len(), 6);
        assert!(open.first_key() < Some(key(5, 0)) && open.first_key() > Some(key(4, 3)));
        let order: Vec<_> = std::iter::from_fn(|| open.pop()).collect();
        assert_eq!(order, vec![(4, 2, 15), (4, 0, 11), (5, 3, 13), (5, 3, 12), (5, 1, 10), (7, 7, 14)]);
        assert_eq!((open.len(), open.first_key()), (0, None));
        // An emptied bucket and the popped slots are used again.
        open.push(5, 3, 1);
        open.push(2, 0, 2);
        open.push(5, 3, 3);
        assert_eq!(open.entries.len(), 6);
        assert_eq!(open.pop(), Some((2, 0, 2)));
        open.push(2, 0, 4);
        assert_eq!(open.pop(), Some((2, 0, 4)));
        assert_eq!(open.pop(), Some((5, 3, 3)));
        assert_eq!(open.pop(), Some((5, 3, 1)));
        assert_eq!(open.pop(), None);
        assert_eq!(open.entries.len(), 6);
    }
}
