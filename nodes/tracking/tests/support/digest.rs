//! A 64-bit digest of detector output (every field of every detection, f64 bit patterns,
//! and the rejection counts), to show a speed-up leaves the output bit-identical.

use tracking::{Detection, DetectionStats};

/// FNV-1a over 64-bit words.
pub struct Digest(pub u64);

impl Default for Digest {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    fn add(&mut self, word: u64) {
        for byte in word.to_le_bytes() {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Adds every field of a detection.
    pub fn detection(&mut self, d: &Detection) {
        for value in [d.u, d.v, d.x, d.y, d.heading.unwrap_or(f64::NAN), d.diameter, d.contrast, d.coverage, d.edge_width] {
            self.add(value.to_bits());
        }
        self.add(d.kind.map_or(u64::MAX, |k| k as u64));
    }

    /// Adds one frame's rejection counts.
    pub fn stats(&mut self, s: &DetectionStats) {
        for count in stats_fields(s) {
            self.add(count as u64);
        }
    }
}

/// The counts of `s` in declaration order.
pub fn stats_fields(s: &DetectionStats) -> [usize; 7] {
    [s.components, s.rejected_size, s.rejected_border, s.rejected_contrast, s.rejected_shape, s.rejected_region, s.rejected_soft]
}
