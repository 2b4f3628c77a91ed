//! A node-wide budget of stored search states shared by concurrent searches.
//!
//! [`Budget::max_stored_states`](crate::Budget::max_stored_states) bounds one search; a
//! node serving several requests at once needs a bound on their sum (memory grows about
//! linearly with stored states: ~220 B each, 2.2 GB at 10 million). Each search reserves
//! its share before it starts and gives it back when it ends (also on a panic: the
//! [`Reservation`] is dropped).

use std::sync::{Arc, Mutex};

/// Stored states still free for new searches.
#[derive(Debug)]
pub struct StatePool {
    total: usize,
    free: Mutex<usize>,
}

impl StatePool {
    /// A pool of `total` stored states.
    pub fn new(total: usize) -> Arc<Self> {
        Arc::new(Self { total, free: Mutex::new(total) })
    }

    /// The pool's size, stored states.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Stored states not reserved now.
    pub fn free(&self) -> usize {
        self.free.lock().map_or(0, |f| *f)
    }

    /// Reserves up to `wanted` states; `None` when fewer than `min` (or than `wanted`, if
    /// smaller) are free: a search with too small a share would only fail.
    pub fn reserve(self: &Arc<Self>, wanted: usize, min: usize) -> Option<Reservation> {
        let mut free = self.free.lock().ok()?;
        let granted = wanted.min(*free);
        if granted == 0 || granted < min.min(wanted) {
            return None;
        }
        *free -= granted;
        Some(Reservation { pool: self.clone(), granted })
    }
}

/// States reserved for one search; given back on drop.
#[derive(Debug)]
pub struct Reservation {
    pool: Arc<StatePool>,
    granted: usize,
}

impl Reservation {
    /// Stored states this search may use.
    pub fn granted(&self) -> usize {
        self.granted
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Ok(mut free) = self.pool.free.lock() {
            *free += self.granted;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21 item 11: the stored-state cap was per request, so two concurrent searches
    /// peaked at 3.2 GB; reservations from one pool bound their sum.
    #[test]
    fn item11_concurrent_searches_share_one_budget() {
        let pool = StatePool::new(1000);
        let a = pool.reserve(800, 100).unwrap();
        assert_eq!(a.granted(), 800);
        let b = pool.reserve(800, 100).unwrap();
        assert_eq!(b.granted(), 200, "the second gets what is left");
        assert!(pool.reserve(800, 100).is_none(), "nothing left");
        drop(a);
        assert_eq!(pool.free(), 800);
        drop(b);
        assert_eq!(pool.free(), pool.total());
        assert_eq!(pool.reserve(50, 100).unwrap().granted(), 50, "a small request needs only itself");
    }
}
