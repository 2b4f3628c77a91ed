//! Raw camera frames as they arrive in a `sensor_msgs/Image`, validated before use.

use image::{GrayImage, RgbImage};
use serde::{Deserialize, Serialize};

/// A frame that cannot be read, with what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// Encoding the tracker neither reads nor converts.
    #[error(
        "unsupported image encoding `{0}` (supported: rgb8, bgr8, mono8, 8UC1, rgba8, bgra8, rgb16, bgr16, rgba16, bgra16, \
         mono16, 16UC1, yuv422, yuv422_yuy2, bayer_rggb8, bayer_bggr8, bayer_gbrg8, bayer_grbg8 and their 16-bit bayer forms)"
    )]
    UnsupportedEncoding(String),
    /// An encoding [`crate::FrameReader`] converts, given where only rgb8, bgr8 and mono8
    /// are read in place.
    #[error("image encoding `{0}` is read through FrameReader (converted to mono8), not in place")]
    NeedsConversion(String),
    /// Width or height is zero.
    #[error("image size {width}x{height} is empty")]
    ZeroSize { width: u32, height: u32 },
    /// Row step shorter than one row of pixels.
    #[error("image step {step} B is shorter than a row of {width} px x {bytes_per_pixel} B")]
    StepTooSmall { step: u32, width: u32, bytes_per_pixel: u32 },
    /// Fewer bytes than width, height and step require.
    #[error("image data truncated: {actual} B, {expected} B needed for {width}x{height} step {step}")]
    Truncated { actual: usize, expected: usize, width: u32, height: u32, step: u32 },
}

/// Pixel encodings the tracker reads (ROS `sensor_msgs/image_encodings` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// 8-bit red, green, blue.
    Rgb8,
    /// 8-bit blue, green, red.
    Bgr8,
    /// 8-bit grey.
    Mono8,
}

impl Encoding {
    /// Parses a ROS encoding name.
    pub fn parse(name: &str) -> Result<Self, FrameError> {
        match name {
            "rgb8" => Ok(Encoding::Rgb8),
            "bgr8" => Ok(Encoding::Bgr8),
            "mono8" | "8UC1" => Ok(Encoding::Mono8),
            other if crate::transcode::Converted::parse(other).is_some() => Err(FrameError::NeedsConversion(other.to_owned())),
            other => Err(FrameError::UnsupportedEncoding(other.to_owned())),
        }
    }

    /// The ROS encoding name.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Rgb8 => "rgb8",
            Encoding::Bgr8 => "bgr8",
            Encoding::Mono8 => "mono8",
        }
    }

    /// Bytes per pixel.
    pub fn bytes_per_pixel(self) -> u32 {
        match self {
            Encoding::Mono8 => 1,
            Encoding::Rgb8 | Encoding::Bgr8 => 3,
        }
    }
}

/// A borrowed, validated image: every `(u, v)` inside `width` x `height` is readable.
#[derive(Clone, Copy, Debug)]
pub struct ImageView<'a> {
    width: u32,
    height: u32,
    step: u32,
    encoding: Encoding,
    data: &'a [u8],
}

impl<'a> ImageView<'a> {
    /// Validates raw `sensor_msgs/Image` fields of an rgb8, bgr8 or mono8 frame (other
    /// encodings: [`crate::FrameReader::view`]).
    pub fn new(width: u32, height: u32, step: u32, encoding: &str, data: &'a [u8]) -> Result<Self, FrameError> {
        let encoding = Encoding::parse(encoding)?;
        Self::with_encoding(width, height, step, encoding, data)
    }

    /// Validates sizes for an already parsed encoding.
    pub fn with_encoding(width: u32, height: u32, step: u32, encoding: Encoding, data: &'a [u8]) -> Result<Self, FrameError> {
        check_size(width, height, step, encoding.bytes_per_pixel(), data.len())?;
        Ok(Self { width, height, step, encoding, data })
    }

    /// Views an rgb8 image.
    pub fn from_rgb(image: &'a RgbImage) -> Self {
        Self { width: image.width(), height: image.height(), step: image.width() * 3, encoding: Encoding::Rgb8, data: image.as_raw() }
    }

    /// Views a mono8 image.
    pub fn from_gray(image: &'a GrayImage) -> Self {
        Self { width: image.width(), height: image.height(), step: image.width(), encoding: Encoding::Mono8, data: image.as_raw() }
    }

    /// Width, px.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height, px.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Pixel encoding.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Bytes of row `v` covering the `width` pixels (no padding).
    pub fn row(&self, v: u32) -> &'a [u8] {
        let start = v as usize * self.step as usize;
        &self.data[start..start + self.width as usize * self.encoding.bytes_per_pixel() as usize]
    }

    /// Row `v` and every byte of the frame after it (the next rows): lets a reader load
    /// whole vectors across the row's end without copying it.
    pub(crate) fn row_onward(&self, v: u32) -> &'a [u8] {
        &self.data[v as usize * self.step as usize..]
    }

    /// Grey level of pixel `(u, v)`: the value for mono8, BT.601 luma for colour.
    #[inline]
    pub fn gray(&self, u: u32, v: u32) -> u8 {
        let row = self.row(v);
        match self.encoding {
            Encoding::Mono8 => row[u as usize],
            Encoding::Rgb8 => luma(row[3 * u as usize], row[3 * u as usize + 1], row[3 * u as usize + 2]),
            Encoding::Bgr8 => luma(row[3 * u as usize + 2], row[3 * u as usize + 1], row[3 * u as usize]),
        }
    }

    /// Appends the grey levels of the `count` pixels from `(u, v)` along row `v`.
    pub fn gray_span(&self, u: u32, v: u32, count: usize, out: &mut Vec<u8>) {
        let start = u as usize;
        let row = self.row(v);
        match self.encoding {
            Encoding::Mono8 => out.extend_from_slice(&row[start..start + count]),
            encoding => {
                let first = out.len();
                out.resize(first + count, 0);
                colour_to_luma(&row[3 * start..3 * (start + count)], encoding == Encoding::Bgr8, &mut out[first..]);
            }
        }
    }
}

/// Checks that `len` bytes hold `height` rows of `width` pixels of `bytes_per_pixel`
/// each, `step` bytes apart.
pub(crate) fn check_size(width: u32, height: u32, step: u32, bytes_per_pixel: u32, len: usize) -> Result<(), FrameError> {
    if width == 0 || height == 0 {
        return Err(FrameError::ZeroSize { width, height });
    }
    let row_bytes = u64::from(width) * u64::from(bytes_per_pixel);
    if u64::from(step) < row_bytes {
        return Err(FrameError::StepTooSmall { step, width, bytes_per_pixel });
    }
    // The last row need not be padded to a full step.
    let expected = u64::from(step) * u64::from(height - 1) + row_bytes;
    if (len as u64) < expected {
        return Err(FrameError::Truncated { actual: len, expected: expected as usize, width, height, step });
    }
    Ok(())
}

/// An owned frame (e.g. decoded from a PNG file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnedFrame {
    /// Width, px.
    pub width: u32,
    /// Height, px.
    pub height: u32,
    /// Pixel encoding.
    pub encoding: Encoding,
    /// Tightly packed rows (step = width x bytes per pixel).
    pub data: Vec<u8>,
}

impl OwnedFrame {
    /// Row step, bytes.
    pub fn step(&self) -> u32 {
        self.width * self.encoding.bytes_per_pixel()
    }

    /// Borrows the frame as a validated view.
    pub fn view(&self) -> Result<ImageView<'_>, FrameError> {
        ImageView::with_encoding(self.width, self.height, self.step(), self.encoding, &self.data)
    }
}

/// BT.601 luma in integer arithmetic: (77 R + 150 G + 29 B + 128) / 256.
#[inline]
pub fn luma(r: u8, g: u8, b: u8) -> u8 {
    ((77 * u32::from(r) + 150 * u32::from(g) + 29 * u32::from(b) + 128) >> 8) as u8
}

/// Writes the luma of each pixel of the colour bytes `px` (rgb8, or bgr8 when `bgr`)
/// into `out` (one per pixel), exactly as [`luma`].
pub(crate) fn colour_to_luma(px: &[u8], bgr: bool, out: &mut [u8]) {
    debug_assert_eq!(px.len(), 3 * out.len());
    let (r, b) = if bgr { (2, 0) } else { (0, 2) };
    let mut done = 0;
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    for (block, gray) in px.chunks_exact(48).zip(out.chunks_exact_mut(16)) {
        let (Ok(block), Ok(gray)) = (<&[u8; 48]>::try_from(block), <&mut [u8; 16]>::try_from(gray)) else { break };
        *gray = luma16(block, bgr);
        done += 16;
    }
    for (p, g) in px[3 * done..].chunks_exact(3).zip(&mut out[done..]) {
        *g = luma(p[r], p[1], p[b]);
    }
}

/// [`colour_to_luma`] of one whole chunk of 32 pixels (fixed sizes: no length checks
/// or remainder loop).
#[inline]
pub(crate) fn colour_chunk_to_luma(px: &[u8; 96], bgr: bool, out: &mut [u8; 32]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
    {
        let (first, second) = px.split_at(48);
        if let (Ok(first), Ok(second)) = (<&[u8; 48]>::try_from(first), <&[u8; 48]>::try_from(second)) {
            let (low, high) = (luma16(first, bgr), luma16(second, bgr));
            out[..16].copy_from_slice(&low);
            out[16..].copy_from_slice(&high);
            return;
        }
    }
    colour_to_luma(px, bgr, out);
}

/// [`luma`] of 16 colour pixels: channels gathered with byte shuffles, weighted in
/// 16-bit lanes (the largest sum, 255 x 256 + 128, fits).
#[cfg(all(target_arch = "x86_64", target_feature = "ssse3"))]
#[inline]
fn luma16(block: &[u8; 48], bgr: bool) -> [u8; 16] {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi16, _mm_loadu_si128, _mm_mullo_epi16, _mm_or_si128, _mm_packus_epi16, _mm_set1_epi16, _mm_setr_epi8,
        _mm_setzero_si128, _mm_shuffle_epi8, _mm_srli_epi16, _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };
    // SAFETY: SSSE3 is enabled at compile time (cfg above); the three unaligned loads read
    // exactly the 48 bytes of `block` and the store writes the 16 of `out`.
    unsafe {
        let load = |offset: usize| _mm_loadu_si128(block.as_ptr().add(offset).cast::<__m128i>());
        let (v0, v1, v2) = (load(0), load(16), load(32));
        // Byte `c` of every pixel: pixels 0-5 lie in v0, 6-10 in v1, 11-15 in v2 for c = 0
        // (the split moves by one pixel per channel); -1 writes 0.
        let gather = |c: i8| {
            let at = |vector_start: i8, i: i8| {
                let byte = 3 * i + c - vector_start;
                if (0..16).contains(&byte) {
                    byte
                } else {
                    -1
                }
            };
            let mask = |start: i8| {
                _mm_setr_epi8(
                    at(start, 0),
                    at(start, 1),
                    at(start, 2),
                    at(start, 3),
                    at(start, 4),
                    at(start, 5),
                    at(start, 6),
                    at(start, 7),
                    at(start, 8),
                    at(start, 9),
                    at(start, 10),
                    at(start, 11),
                    at(start, 12),
                    at(start, 13),
                    at(start, 14),
                    at(start, 15),
                )
            };
            _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(v0, mask(0)), _mm_shuffle_epi8(v1, mask(16))), _mm_shuffle_epi8(v2, mask(32)))
        };
        let (first, second, third) = (gather(0), gather(1), gather(2));
        let (red, blue) = if bgr { (third, first) } else { (first, third) };
        let zero = _mm_setzero_si128();
        let weighted = |r: __m128i, g: __m128i, b: __m128i| {
            let sum = _mm_add_epi16(
                _mm_add_epi16(_mm_mullo_epi16(r, _mm_set1_epi16(77)), _mm_mullo_epi16(g, _mm_set1_epi16(150))),
                _mm_add_epi16(_mm_mullo_epi16(b, _mm_set1_epi16(29)), _mm_set1_epi16(128)),
            );
            _mm_srli_epi16::<8>(sum)
        };
        let low = weighted(_mm_unpacklo_epi8(red, zero), _mm_unpacklo_epi8(second, zero), _mm_unpacklo_epi8(blue, zero));
        let high = weighted(_mm_unpackhi_epi8(red, zero), _mm_unpackhi_epi8(second, zero), _mm_unpackhi_epi8(blue, zero));
        let gray = _mm_packus_epi16(low, high);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), gray);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_rows_convert_exactly() {
        // Every level in every channel, in both byte orders, over rows long enough for
        // whole vector blocks and a remainder.
        let mut noise = 99u32;
        let px: Vec<u8> = (0..3 * 1000)
            .map(|i| {
                noise = noise.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                if i < 768 {
                    (i / 3) as u8
                } else {
                    (noise >> 24) as u8
                }
            })
            .collect();
        for bgr in [false, true] {
            let mut out = vec![0u8; 1000];
            colour_to_luma(&px, bgr, &mut out);
            let expected: Vec<u8> = px.chunks_exact(3).map(|p| if bgr { luma(p[2], p[1], p[0]) } else { luma(p[0], p[1], p[2]) }).collect();
            assert_eq!(out, expected, "bgr {bgr}");
            let mut chunk = [0u8; 32];
            for (px, expected) in px.chunks_exact(96).zip(expected.chunks_exact(32)) {
                colour_chunk_to_luma(px.try_into().unwrap(), bgr, &mut chunk);
                assert_eq!(&chunk[..], expected, "bgr {bgr}");
            }
        }
    }

    #[test]
    fn luma_hand_computed() {
        // (77*200 + 150*100 + 29*50 + 128) / 256 = 31978 / 256 = 124.9 -> 124.
        assert_eq!(luma(200, 100, 50), 124);
        assert_eq!(luma(255, 255, 255), 255);
        assert_eq!(luma(0, 0, 0), 0);
    }

    #[test]
    fn validation_errors() {
        let data = vec![0u8; 100];
        assert_eq!(ImageView::new(4, 4, 4, "rgba8", &data).unwrap_err(), FrameError::NeedsConversion("rgba8".into()));
        assert_eq!(ImageView::new(4, 4, 4, "32FC1", &data).unwrap_err(), FrameError::UnsupportedEncoding("32FC1".into()));
        assert_eq!(ImageView::new(0, 4, 4, "mono8", &data).unwrap_err(), FrameError::ZeroSize { width: 0, height: 4 });
        assert!(matches!(ImageView::new(4, 4, 11, "rgb8", &data), Err(FrameError::StepTooSmall { step: 11, .. })));
        // 10 rows of step 12: 9 * 12 + 12 = 120 > 100.
        let err = ImageView::new(4, 10, 12, "bgr8", &data).unwrap_err();
        assert_eq!(err, FrameError::Truncated { actual: 100, expected: 120, width: 4, height: 10, step: 12 });
        assert!(err.to_string().contains("120 B needed"));
        // Unpadded last row is fine: 3 * 30 + 10 = 100.
        assert!(ImageView::new(10, 4, 30, "mono8", &data).is_ok());
    }

    #[test]
    fn gray_reads_every_encoding() {
        let rgb = [10u8, 20, 30, 200, 100, 50];
        let bgr = [30u8, 20, 10, 50, 100, 200];
        let v = ImageView::new(2, 1, 6, "rgb8", &rgb).unwrap();
        let w = ImageView::new(2, 1, 6, "bgr8", &bgr).unwrap();
        assert_eq!(v.gray(1, 0), 124);
        assert_eq!(w.gray(1, 0), 124);
        assert_eq!(v.gray(0, 0), w.gray(0, 0));
        let mono = [0u8, 0, 7, 9, 0, 0];
        let m = ImageView::new(2, 2, 3, "mono8", &mono[..5]).unwrap();
        assert_eq!(m.gray(1, 1), 0);
        assert_eq!(m.gray(0, 1), 9);
        let mut span = Vec::new();
        for view in [v, w] {
            view.gray_span(0, 0, 2, &mut span);
        }
        m.gray_span(0, 1, 2, &mut span);
        assert_eq!(span, [v.gray(0, 0), 124, w.gray(0, 0), 124, 9, 0]);
    }
}
