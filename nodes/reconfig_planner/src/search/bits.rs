//! Fixed-width bit sets: one bit per lattice cell, `W` 64-bit words.

use std::ops::{BitAnd, BitOr, BitXor, Not};

/// A set of cell indices below `64 * W`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Bits<const W: usize>(pub [u64; W]);

impl<const W: usize> Default for Bits<W> {
    fn default() -> Self {
        Self([0; W])
    }
}

impl<const W: usize> Bits<W> {
    pub const EMPTY: Self = Self([0; W]);

    /// The set `{i}`.
    pub fn single(i: usize) -> Self {
        let mut bits = Self::EMPTY;
        bits.insert(i);
        bits
    }

    /// The set `{0, 1, .., n-1}`.
    pub fn first(n: usize) -> Self {
        let mut bits = Self::EMPTY;
        for (w, word) in bits.0.iter_mut().enumerate() {
            let lo = w * 64;
            *word = match n.saturating_sub(lo) {
                0 => 0,
                k if k >= 64 => u64::MAX,
                k => (1u64 << k) - 1,
            };
        }
        bits
    }

    pub fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1u64 << (i % 64);
    }

    pub fn contains(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    pub fn intersects(&self, other: &Self) -> bool {
        self.0.iter().zip(other.0.iter()).any(|(a, b)| a & b != 0)
    }

    #[inline]
    pub fn count(&self) -> u32 {
        let mut total = 0;
        for word in self.0 {
            total += word.count_ones();
        }
        total
    }

    /// Every index moved up by `n` (bits pushed past the top are lost).
    pub fn shifted_up(&self, n: usize) -> Self {
        let (words, bits) = (n / 64, n % 64);
        let mut out = Self::EMPTY;
        for i in (words..W).rev() {
            let src = i - words;
            let mut word = self.0[src] << bits;
            if bits > 0 && src > 0 {
                word |= self.0[src - 1] >> (64 - bits);
            }
            out.0[i] = word;
        }
        out
    }

    /// Every index moved down by `n` (indices below `n` are lost).
    pub fn shifted_down(&self, n: usize) -> Self {
        let (words, bits) = (n / 64, n % 64);
        let mut out = Self::EMPTY;
        for i in 0..W.saturating_sub(words) {
            let src = i + words;
            let mut word = self.0[src] >> bits;
            if bits > 0 && src + 1 < W {
                word |= self.0[src + 1] << (64 - bits);
            }
            out.0[i] = word;
        }
        out
    }

    /// Indices of the set bits, ascending.
    pub fn iter(&self) -> Ones<W> {
        Ones { words: self.0, word: 0 }
    }
}

/// Iterator over the set bits of a [`Bits`], ascending.
pub(crate) struct Ones<const W: usize> {
    words: [u64; W],
    word: usize,
}

impl<const W: usize> Iterator for Ones<W> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word < W {
            let bits = &mut self.words[self.word];
            if *bits != 0 {
                let bit = bits.trailing_zeros() as usize;
                *bits &= *bits - 1;
                return Some(self.word * 64 + bit);
            }
            self.word += 1;
        }
        None
    }
}

macro_rules! bit_op {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const W: usize> $trait for Bits<W> {
            type Output = Self;
            fn $method(self, rhs: Self) -> Self {
                let mut out = self;
                for (a, b) in out.0.iter_mut().zip(rhs.0.iter()) {
                    *a $op *b;
                }
                out
            }
        }
    };
}
bit_op!(BitAnd, bitand, &=);
bit_op!(BitOr, bitor, |=);
bit_op!(BitXor, bitxor, ^=);

impl<const W: usize> Not for Bits<W> {
    type Output = Self;
    fn not(self) -> Self {
        Self(self.0.map(|w| !w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_cross_word_boundaries() {
        let b = Bits::<2>::single(63);
        assert_eq!(b.shifted_up(1), Bits::single(64));
        assert_eq!(b.shifted_up(65), Bits::EMPTY);
        assert_eq!(Bits::<2>::single(64).shifted_down(1), Bits::single(63));
        assert_eq!(Bits::<2>::single(70).shifted_down(70), Bits::single(0));
        assert_eq!(Bits::<2>::single(3).shifted_up(64), Bits::single(67));
        assert_eq!(Bits::<2>::single(3).shifted_down(4), Bits::EMPTY);
    }

    #[test]
    fn first_iter_and_count() {
        let b = Bits::<2>::first(66);
        assert_eq!(b.count(), 66);
        assert_eq!(b.0, [u64::MAX, 0b11]);
        let mut s = Bits::<2>::EMPTY;
        for i in [0, 5, 64, 127] {
            s.insert(i);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 5, 64, 127]);
        assert!(s.contains(127) && !s.contains(126));
        assert_eq!((s & !Bits::single(5)).count(), 3);
        assert_eq!(Bits::<1>::first(64).0, [u64::MAX]);
    }
}
