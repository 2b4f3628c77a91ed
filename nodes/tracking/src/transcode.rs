//! Image encodings that other renderers and real cameras publish (alpha channels, 16-bit
//! samples, YUV 4:2:2, raw Bayer mosaics), converted to grey levels before detection.
//!
//! The detector reads grey levels only, so a frame in one of these encodings is turned
//! into a mono8 frame once, in a buffer kept between frames; rgb8, bgr8 and mono8 frames
//! are read in place as before. Sixteen-bit samples keep their high byte (`cv_bridge`'s
//! scaling to 8 bits).

use crate::frame::{check_size, luma, Encoding, FrameError, ImageView};

/// The colour of each pixel of a 2 x 2 Bayer tile, row by row (`bayer_rggb8`: red, green,
/// green, blue).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BayerPattern {
    /// Red, green / green, blue.
    Rggb,
    /// Blue, green / green, red.
    Bggr,
    /// Green, blue / red, green.
    Gbrg,
    /// Green, red / blue, green.
    Grbg,
}

impl BayerPattern {
    /// Channel (0 red, 1 green, 2 blue) of pixel `(u, v)`.
    fn channel(self, u: usize, v: usize) -> usize {
        let tile = match self {
            BayerPattern::Rggb => [0, 1, 1, 2],
            BayerPattern::Bggr => [2, 1, 1, 0],
            BayerPattern::Gbrg => [1, 2, 0, 1],
            BayerPattern::Grbg => [1, 0, 2, 1],
        };
        tile[2 * (v & 1) + (u & 1)]
    }
}

/// An encoding read by conversion to grey levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Converted {
    /// Colour with alpha (alpha ignored); `bgr` for blue first; `wide` for 16-bit samples.
    Colour {
        /// Samples per pixel: 3 (rgb, bgr) or 4 (with alpha).
        channels: usize,
        /// Blue, green, red order.
        bgr: bool,
        /// 16-bit samples.
        wide: bool,
    },
    /// 16-bit grey (`mono16`, `16UC1`).
    Mono16,
    /// YUV 4:2:2 with the luma in byte 1 of each pixel's two (`yuv422`, UYVY) or byte 0
    /// (`yuv422_yuy2`, YUYV).
    Yuv422 {
        /// Byte of the luma within the pixel's two bytes.
        luma_byte: usize,
    },
    /// A raw Bayer mosaic of 8- or 16-bit samples.
    Bayer {
        /// The tile's colours.
        pattern: BayerPattern,
        /// 16-bit samples.
        wide: bool,
    },
}

impl Converted {
    /// Parses a ROS `sensor_msgs/image_encodings` name the tracker converts.
    pub fn parse(name: &str) -> Option<Self> {
        let colour = |channels, bgr, wide| Some(Converted::Colour { channels, bgr, wide });
        let bayer = |pattern, wide| Some(Converted::Bayer { pattern, wide });
        match name {
            "rgba8" => colour(4, false, false),
            "bgra8" => colour(4, true, false),
            "rgb16" => colour(3, false, true),
            "bgr16" => colour(3, true, true),
            "rgba16" => colour(4, false, true),
            "bgra16" => colour(4, true, true),
            "mono16" | "16UC1" => Some(Converted::Mono16),
            "yuv422" | "uyvy" => Some(Converted::Yuv422 { luma_byte: 1 }),
            "yuv422_yuy2" | "yuyv" => Some(Converted::Yuv422 { luma_byte: 0 }),
            "bayer_rggb8" => bayer(BayerPattern::Rggb, false),
            "bayer_bggr8" => bayer(BayerPattern::Bggr, false),
            "bayer_gbrg8" => bayer(BayerPattern::Gbrg, false),
            "bayer_grbg8" => bayer(BayerPattern::Grbg, false),
            "bayer_rggb16" => bayer(BayerPattern::Rggb, true),
            "bayer_bggr16" => bayer(BayerPattern::Bggr, true),
            "bayer_gbrg16" => bayer(BayerPattern::Gbrg, true),
            "bayer_grbg16" => bayer(BayerPattern::Grbg, true),
            _ => None,
        }
    }

    /// Bytes per pixel.
    pub fn bytes_per_pixel(self) -> u32 {
        match self {
            Converted::Colour { channels, wide, .. } => channels as u32 * if wide { 2 } else { 1 },
            Converted::Mono16 | Converted::Yuv422 { .. } => 2,
            Converted::Bayer { wide, .. } => 1 + u32::from(wide),
        }
    }

    /// Writes the grey level of every pixel of the validated frame into `out` (tightly
    /// packed rows).
    fn to_gray(self, frame: &Raw, out: &mut Vec<u8>) {
        out.clear();
        out.reserve(frame.width * frame.height);
        match self {
            Converted::Colour { channels, bgr, wide } => {
                let (r, b) = if bgr { (2, 0) } else { (0, 2) };
                for v in 0..frame.height {
                    for u in 0..frame.width {
                        let sample = |c: usize| frame.sample(u * channels + c, v, wide);
                        out.push(luma(sample(r), sample(1), sample(b)));
                    }
                }
            }
            Converted::Mono16 => {
                for v in 0..frame.height {
                    out.extend((0..frame.width).map(|u| frame.sample(u, v, true)));
                }
            }
            Converted::Yuv422 { luma_byte } => {
                for v in 0..frame.height {
                    let row = frame.row(v);
                    out.extend((0..frame.width).map(|u| row[2 * u + luma_byte]));
                }
            }
            Converted::Bayer { pattern, wide } => bayer_to_gray(frame, pattern, wide, out),
        }
    }
}

/// Grey level of each pixel of a Bayer mosaic: (R + 2 G + B) / 4 of the mean red, green
/// and blue samples of its 3 x 3 neighbourhood (edges repeated). The neighbourhood is
/// centred, and red and blue, whose samples lie half a pixel either side of green's,
/// weigh the same: a blob's centroid stays where it is (a 2 x 2 tile moves it half a
/// pixel; BT.601's luma weights about a tenth of one).
fn bayer_to_gray(frame: &Raw, pattern: BayerPattern, wide: bool, out: &mut Vec<u8>) {
    let (w, h) = (frame.width, frame.height);
    for v in 0..h {
        for u in 0..w {
            let mut sums = [0u32; 3];
            let mut counts = [0u32; 3];
            for nv in [v.saturating_sub(1), v, (v + 1).min(h - 1)] {
                for nu in [u.saturating_sub(1), u, (u + 1).min(w - 1)] {
                    let channel = pattern.channel(nu, nv);
                    sums[channel] += u32::from(frame.sample(nu, nv, wide));
                    counts[channel] += 1;
                }
            }
            // A channel absent from a one-pixel-wide or -high mosaic reads as black.
            let mean = |c: usize| (sums[c] + counts[c] / 2).checked_div(counts[c]).unwrap_or(0) as u8;
            out.push(((u32::from(mean(0)) + 2 * u32::from(mean(1)) + u32::from(mean(2)) + 2) / 4) as u8);
        }
    }
}

/// A frame in a converted encoding, its sizes checked.
struct Raw<'a> {
    width: usize,
    height: usize,
    step: usize,
    big_endian: bool,
    data: &'a [u8],
}

impl Raw<'_> {
    fn row(&self, v: usize) -> &[u8] {
        &self.data[v * self.step..]
    }

    /// Sample `i` of row `v`, reduced to 8 bits when `wide`.
    fn sample(&self, i: usize, v: usize, wide: bool) -> u8 {
        let row = self.row(v);
        if !wide {
            row[i]
        } else if self.big_endian {
            row[2 * i]
        } else {
            row[2 * i + 1]
        }
    }
}

/// The fields of a `sensor_msgs/Image`, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct RawImage<'a> {
    /// Width, px.
    pub width: u32,
    /// Height, px.
    pub height: u32,
    /// Row length, bytes.
    pub step: u32,
    /// ROS encoding name.
    pub encoding: &'a str,
    /// Byte order of multi-byte samples (the message's `is_bigendian`).
    pub big_endian: bool,
    /// Pixel bytes, rows `step` apart.
    pub data: &'a [u8],
}

impl<'a> RawImage<'a> {
    /// A frame with little-endian samples (the order of every encoding of one byte).
    pub fn new(width: u32, height: u32, step: u32, encoding: &'a str, data: &'a [u8]) -> Self {
        Self { width, height, step, encoding, big_endian: false, data }
    }

    /// The same frame with samples in the given byte order.
    pub fn big_endian(self, big_endian: bool) -> Self {
        Self { big_endian, ..self }
    }
}

/// Reads `sensor_msgs/Image` frames of any supported encoding as [`ImageView`]s, keeping
/// the conversion buffer between frames.
#[derive(Debug, Default)]
pub struct FrameReader {
    gray: Vec<u8>,
}

impl FrameReader {
    /// A reader with an empty conversion buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Validates a raw frame and views it: in place for rgb8, bgr8 and mono8, converted
    /// to mono8 for the encodings of [`Converted`].
    pub fn view<'a>(&'a mut self, image: &RawImage<'a>) -> Result<ImageView<'a>, FrameError> {
        let RawImage { width, height, step, encoding, big_endian, data } = *image;
        let converted = match Encoding::parse(encoding) {
            Ok(native) => return ImageView::with_encoding(width, height, step, native, data),
            Err(FrameError::NeedsConversion(_)) => Converted::parse(encoding),
            Err(e) => return Err(e),
        };
        let converted = converted.ok_or_else(|| FrameError::UnsupportedEncoding(encoding.to_owned()))?;
        check_size(width, height, step, converted.bytes_per_pixel(), data.len())?;
        let raw = Raw { width: width as usize, height: height as usize, step: step as usize, big_endian, data };
        converted.to_gray(&raw, &mut self.gray);
        ImageView::with_encoding(width, height, width, Encoding::Mono8, &self.gray)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grays(view: &ImageView) -> Vec<u8> {
        (0..view.height()).flat_map(|v| (0..view.width()).map(move |u| (u, v))).map(|(u, v)| view.gray(u, v)).collect()
    }

    /// Two rows of three pixels, distinct colours, as rgb8: the reference grey levels.
    const RGB: [[u8; 3]; 6] = [[200, 100, 50], [10, 20, 30], [255, 0, 128], [0, 255, 0], [90, 90, 90], [1, 2, 254]];

    fn reference() -> Vec<u8> {
        RGB.iter().map(|p| luma(p[0], p[1], p[2])).collect()
    }

    #[test]
    fn colour_with_alpha_and_wide_samples_read_as_their_eight_bit_rgb() {
        for (name, channels, bgr, wide) in [
            ("rgba8", 4, false, false),
            ("bgra8", 4, true, false),
            ("rgb16", 3, false, true),
            ("bgr16", 3, true, true),
            ("rgba16", 4, false, true),
            ("bgra16", 4, true, true),
        ] {
            for big_endian in [false, true] {
                let mut data = Vec::new();
                for (i, p) in RGB.iter().enumerate() {
                    let ordered = if bgr { [p[2], p[1], p[0], 17] } else { [p[0], p[1], p[2], 17] };
                    for &s in &ordered[..channels] {
                        // The low byte must not matter.
                        let low = (i * 37 % 251) as u8;
                        match (wide, big_endian) {
                            (false, _) => data.push(s),
                            (true, true) => data.extend([s, low]),
                            (true, false) => data.extend([low, s]),
                        }
                    }
                    if i == 2 {
                        // Row padding of 5 bytes.
                        data.extend([9; 5]);
                    }
                }
                let bytes = channels * if wide { 2 } else { 1 };
                let step = (3 * bytes + 5) as u32;
                let mut reader = FrameReader::new();
                let view = reader.view(&RawImage::new(3, 2, step, name, &data).big_endian(big_endian)).unwrap();
                assert_eq!(view.encoding(), Encoding::Mono8);
                assert_eq!(grays(&view), reference(), "{name} big endian {big_endian}");
            }
        }
    }

    #[test]
    fn mono16_keeps_the_high_byte_in_either_byte_order() {
        let levels: [u16; 4] = [0, 0x01ff, 0x8000, 0xffff];
        let little: Vec<u8> = levels.iter().flat_map(|l| l.to_le_bytes()).collect();
        let big: Vec<u8> = levels.iter().flat_map(|l| l.to_be_bytes()).collect();
        let mut reader = FrameReader::new();
        assert_eq!(grays(&reader.view(&RawImage::new(2, 2, 4, "mono16", &little)).unwrap()), [0, 1, 128, 255]);
        assert_eq!(grays(&reader.view(&RawImage::new(2, 2, 4, "16UC1", &big).big_endian(true)).unwrap()), [0, 1, 128, 255]);
    }

    #[test]
    fn yuv422_reads_the_luma_bytes() {
        // Two pixels per four bytes; Y0 = 10, Y1 = 200 (an odd width ends with one pixel).
        let uyvy = [128, 10, 64, 200, 128, 77];
        let yuyv = [10, 128, 200, 64, 77, 128];
        let mut reader = FrameReader::new();
        assert_eq!(grays(&reader.view(&RawImage::new(3, 1, 6, "yuv422", &uyvy)).unwrap()), [10, 200, 77]);
        assert_eq!(grays(&reader.view(&RawImage::new(3, 1, 6, "yuv422_yuy2", &yuyv)).unwrap()), [10, 200, 77]);
    }

    #[test]
    fn a_bayer_mosaic_of_a_flat_colour_reads_as_that_colour_in_every_pattern() {
        let (r, g, b) = (180u8, 60u8, 20u8);
        // (180 + 120 + 20 + 2) / 4 = 80.
        let level = 80;
        for (name, pattern) in [
            ("bayer_rggb8", BayerPattern::Rggb),
            ("bayer_bggr8", BayerPattern::Bggr),
            ("bayer_gbrg8", BayerPattern::Gbrg),
            ("bayer_grbg8", BayerPattern::Grbg),
        ] {
            let (w, h) = (7usize, 5usize);
            let data: Vec<u8> = (0..h).flat_map(|v| (0..w).map(move |u| [r, g, b][pattern.channel(u, v)])).collect();
            let mut reader = FrameReader::new();
            let view = reader.view(&RawImage::new(w as u32, h as u32, w as u32, name, &data)).unwrap();
            assert!(grays(&view).iter().all(|&l| l == level), "{name}");
            // A 16-bit mosaic of the same colour reads the same.
            let wide: Vec<u8> = data.iter().flat_map(|&s| [3, s]).collect();
            let name16 = name.replace('8', "16");
            let view = reader.view(&RawImage::new(w as u32, h as u32, 2 * w as u32, &name16, &wide)).unwrap();
            assert!(grays(&view).iter().all(|&l| l == level), "{name16}");
        }
    }

    #[test]
    fn a_bright_square_in_a_bayer_mosaic_keeps_its_centre() {
        // A 4 x 4 white square at columns and rows 6-9 of a dark 16 x 16 mosaic: the grey
        // levels' centroid stays at 7.5 in every pattern (a 2 x 2 tile would move it half
        // a pixel, BT.601 weights 0.09 px).
        let n = 16usize;
        let data: Vec<u8> =
            (0..n).flat_map(|v| (0..n).map(move |u| if (6..10).contains(&u) && (6..10).contains(&v) { 250 } else { 5 })).collect();
        let mut reader = FrameReader::new();
        for pattern in ["bayer_rggb8", "bayer_bggr8", "bayer_gbrg8", "bayer_grbg8"] {
            let view = reader.view(&RawImage::new(n as u32, n as u32, n as u32, pattern, &data)).unwrap();
            let (mut sum, mut su, mut sv) = (0.0, 0.0, 0.0);
            for v in 0..n as u32 {
                for u in 0..n as u32 {
                    let l = f64::from(view.gray(u, v)) - 5.0;
                    sum += l;
                    su += l * f64::from(u);
                    sv += l * f64::from(v);
                }
            }
            assert!((su / sum - 7.5).abs() < 1e-9 && (sv / sum - 7.5).abs() < 1e-9, "{pattern}: centroid ({}, {})", su / sum, sv / sum);
        }
    }

    #[test]
    fn converted_frames_are_checked_like_native_ones() {
        let mut reader = FrameReader::new();
        let data = [0u8; 30];
        assert!(matches!(
            reader.view(&RawImage::new(4, 2, 15, "rgba8", &data)),
            Err(FrameError::StepTooSmall { step: 15, bytes_per_pixel: 4, .. })
        ));
        assert!(matches!(reader.view(&RawImage::new(4, 2, 16, "bgra8", &data)), Err(FrameError::Truncated { expected: 32, .. })));
        assert_eq!(reader.view(&RawImage::new(0, 2, 16, "mono16", &data)).unwrap_err(), FrameError::ZeroSize { width: 0, height: 2 });
        let err = reader.view(&RawImage::new(2, 2, 4, "32FC1", &data)).unwrap_err();
        assert_eq!(err, FrameError::UnsupportedEncoding("32FC1".into()));
        assert!(err.to_string().contains("bayer_rggb8"), "{err}");
    }
}
