//! Per-plane image formation after shading: illumination, blur, noise, quantisation.

use rand::{Rng, RngCore, SeedableRng};
use rand_distr::StandardNormal;

/// Multiplies a plane by a linear illumination gain `1 + g * t`, where `t` is the
/// pixel's offset from `(cx, cy)` along `direction`, divided by half the larger image side.
pub fn apply_gain(plane: &mut [f32], width: usize, cx: f64, cy: f64, gradient: f64, direction: f64) {
    if gradient == 0.0 || width == 0 {
        return;
    }
    let height = plane.len() / width;
    let half = width.max(height) as f64 / 2.0;
    let (gu, gv) = (gradient * direction.cos() / half, gradient * direction.sin() / half);
    for (v, row) in plane.chunks_exact_mut(width).enumerate() {
        let row_gain = 1.0 + gv * (v as f64 - cy) - gu * cx;
        for (u, value) in row.iter_mut().enumerate() {
            *value *= (row_gain + gu * u as f64) as f32;
        }
    }
}

/// Normalised Gaussian kernel of standard deviation `sigma` (px), radius ceil(3 sigma).
pub fn gaussian_kernel(sigma: f64) -> Vec<f32> {
    let radius = (3.0 * sigma).ceil() as i64;
    let weights: Vec<f64> = (-radius..=radius).map(|i| (-(i * i) as f64 / (2.0 * sigma * sigma)).exp()).collect();
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| (w / total) as f32).collect()
}

/// Separable Gaussian blur with edge clamping; `scratch` is resized as needed.
pub fn gaussian_blur(plane: &mut [f32], scratch: &mut Vec<f32>, width: usize, sigma: f64) {
    if sigma <= 0.0 || width == 0 {
        return;
    }
    let height = plane.len() / width;
    let kernel = gaussian_kernel(sigma);
    let radius = kernel.len() / 2;
    scratch.resize(plane.len(), 0.0);
    // Horizontal pass into scratch through an edge-clamped copy of each row; taps in the
    // outer loop so the inner loop is a vectorisable multiply-add along the row.
    let mut padded = vec![0.0f32; width + 2 * radius];
    for (row_in, row_out) in plane.chunks_exact(width).zip(scratch.chunks_exact_mut(width)) {
        padded[..radius].fill(row_in[0]);
        padded[radius..radius + width].copy_from_slice(row_in);
        padded[radius + width..].fill(row_in[width - 1]);
        row_out.fill(0.0);
        for (k, w) in kernel.iter().enumerate() {
            for (out, s) in row_out.iter_mut().zip(&padded[k..k + width]) {
                *out += w * s;
            }
        }
    }
    // Vertical pass back, one output row at a time so the inner loop runs along rows.
    for v in 0..height {
        let row_out = &mut plane[v * width..(v + 1) * width];
        row_out.fill(0.0);
        for (k, w) in kernel.iter().enumerate() {
            let src_row = (v + k).saturating_sub(radius).min(height - 1);
            let src = &scratch[src_row * width..(src_row + 1) * width];
            for (out, s) in row_out.iter_mut().zip(src) {
                *out += w * s;
            }
        }
    }
}

/// Standard normal samples drawn once from a seed; a frame's noise picks entries with a
/// fast uniform index stream (one 64-bit draw gives four samples), which is four times
/// cheaper than drawing each normal and indistinguishable for pixel noise.
pub struct NoiseTable {
    samples: Vec<f32>,
}

impl NoiseTable {
    /// 65536 standard normal samples from stream `u64::MAX` of `seed` (frames use
    /// streams from 0 up, so table and frames never share random numbers).
    pub fn new(seed: u64) -> Self {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(u64::MAX);
        Self { samples: (0..1 << 16).map(|_| rng.sample::<f32, _>(StandardNormal)).collect() }
    }

    /// Fills `out` with standard normal samples chosen by `rng`.
    pub fn fill<R: RngCore>(&self, rng: &mut R, out: &mut [f32]) {
        for chunk in out.chunks_mut(4) {
            let bits = rng.next_u64();
            for (k, value) in chunk.iter_mut().enumerate() {
                *value = self.samples[((bits >> (16 * k)) & 0xffff) as usize];
            }
        }
    }
}

/// Adds `sigma` times the standard normal `noise` (if any), rounds and clamps to 8 bits,
/// and writes the plane into every `stride`-th byte of `out` starting at `offset`.
/// Works row by row of `width` pixels so `noise` only needs one row.
pub fn quantise_into<R: RngCore>(
    plane: &[f32],
    width: usize,
    noise: Option<(&NoiseTable, &mut R, f32)>,
    out: &mut [u8],
    stride: usize,
    offset: usize,
) {
    let mut noisy = vec![0.0f32; width];
    let mut noise = noise;
    for (v, row) in plane.chunks_exact(width).enumerate() {
        match noise.as_mut() {
            Some((table, rng, sigma)) => {
                table.fill(*rng, &mut noisy);
                for (n, value) in noisy.iter_mut().zip(row) {
                    *n = value + *sigma * *n;
                }
            }
            None => noisy.copy_from_slice(row),
        }
        let out_row = &mut out[v * width * stride..(v + 1) * width * stride];
        for (u, value) in noisy.iter().enumerate() {
            // Truncating a non-negative value + 0.5 rounds it; `f32::round` is a libm call.
            out_row[u * stride + offset] = (value.clamp(0.0, 255.0) + 0.5) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gain_hand_computed() {
        // 4x2 image, centre (1.5, 0.5), gradient 0.2 along +u, half side 2:
        // gain = 1 + 0.2 * (u - 1.5) / 2 -> 0.85, 0.95, 1.05, 1.15.
        let mut plane = vec![100.0f32; 8];
        apply_gain(&mut plane, 4, 1.5, 0.5, 0.2, 0.0);
        let expected = [85.0, 95.0, 105.0, 115.0];
        for (got, want) in plane.iter().zip(expected.iter().cycle()) {
            assert!((got - want).abs() < 1e-4, "{got} vs {want}");
        }
    }

    #[test]
    fn kernel_hand_computed() {
        // sigma = 1/3: radius 1, weights e^-4.5, 1, e^-4.5 normalised.
        let k = gaussian_kernel(1.0 / 3.0);
        let e = (-4.5f64).exp();
        assert_eq!(k.len(), 3);
        assert!((f64::from(k[1]) - 1.0 / (1.0 + 2.0 * e)).abs() < 1e-7);
    }

    #[test]
    fn blur_preserves_mass_and_spreads_an_impulse() {
        // 9x9 image, impulse at the centre (index 40); kernel radius 3 stays inside.
        let mut plane = vec![0.0f32; 81];
        plane[40] = 1.0;
        let mut scratch = Vec::new();
        gaussian_blur(&mut plane, &mut scratch, 9, 0.8);
        let total: f32 = plane.iter().sum();
        assert!((total - 1.0).abs() < 1e-5);
        let k = gaussian_kernel(0.8);
        // Separable: the centre keeps the square of the central weight.
        assert!((plane[40] - k[3] * k[3]).abs() < 1e-7);
        assert!((plane[39] - plane[41]).abs() < 1e-7 && (plane[31] - plane[49]).abs() < 1e-7);
    }

    #[test]
    fn quantise_rounds_clamps_and_interleaves() {
        let plane = [-3.0f32, 12.4, 12.6, 300.0];
        let mut out = [0u8; 8];
        quantise_into::<rand_chacha::ChaCha8Rng>(&plane, 2, None, &mut out, 2, 1);
        assert_eq!(out, [0, 0, 0, 12, 0, 13, 0, 255]);
    }

    #[test]
    fn table_noise_has_unit_variance_and_follows_the_seed() {
        let table = NoiseTable::new(5);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut samples = vec![0.0f32; 100_000];
        table.fill(&mut rng, &mut samples);
        let n = samples.len() as f64;
        let mean = samples.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
        let var = samples.iter().map(|&x| (f64::from(x) - mean).powi(2)).sum::<f64>() / n;
        assert!(mean.abs() < 0.02 && (var - 1.0).abs() < 0.03, "mean {mean} var {var}");
        let mut again = vec![0.0f32; 8];
        table.fill(&mut rand_chacha::ChaCha8Rng::seed_from_u64(1), &mut again);
        assert_eq!(again, samples[..8]);
    }
}
