//! The open list: entries in buckets keyed by `(f, g)`, popped lowest `f` first, then
//! highest `g` (deepest), last in, first out within a bucket.
//!
//! Costs are small integers, so few distinct keys are in use at a time: a binary heap
//! over those keys plus a hash map from key to bucket make push and pop O(1) amortised
//! on hot memory, where a binary heap over every entry pays `log n` cache misses a pop.

use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(crate) struct OpenList<T> {
    /// Keys whose bucket is not empty, smallest first.
    keys: BinaryHeap<Reverse<u64>>,
    /// Buckets by key; emptied buckets are kept for reuse.
    buckets: FxHashMap<u64, Vec<T>>,
    len: usize,
}

impl<T> Default for OpenList<T> {
    fn default() -> Self {
        Self { keys: BinaryHeap::new(), buckets: FxHashMap::default(), len: 0 }
    }
}

/// Orders `f` ascending, then `g` descending.
fn key(f: u32, g: u32) -> u64 {
    (f as u64) << 32 | (u32::MAX - g) as u64
}

impl<T> OpenList<T> {
    pub fn push(&mut self, f: u32, g: u32, entry: T) {
        let key = key(f, g);
        let bucket = self.buckets.entry(key).or_default();
        if bucket.is_empty() {
            self.keys.push(Reverse(key));
        }
        bucket.push(entry);
        self.len += 1;
    }

    /// The sort key of the first entry (smaller comes first).
    pub fn first_key(&self) -> Option<u64> {
        self.keys.peek().map(|&Reverse(key)| key)
    }

    /// `(f, g, entry)` of the first entry, removed.
    pub fn pop(&mut self) -> Option<(u32, u32, T)> {
        let &Reverse(key) = self.keys.peek()?;
        let bucket = self.buckets.get_mut(&key)?;
        let entry = bucket.pop()?;
        if bucket.is_empty() {
            self.keys.pop();
        }
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
            + self.buckets.capacity() * (size_of::<(u64, Vec<T>)>() + 1)
            + self.buckets.values().map(|b| b.capacity() * size_of::<T>()).sum::<usize>()
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
        // An emptied bucket is used again.
        open.push(5, 3, 1);
        open.push(2, 0, 2);
        assert_eq!(open.pop(), Some((2, 0, 2)));
        assert_eq!(open.pop(), Some((5, 3, 1)));
        assert_eq!(open.pop(), None);
    }
}
