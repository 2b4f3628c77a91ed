//! The image fidelity: both cameras' 256 x 192 frames are drawn (blue and red channels: each
//! light a saturated disc of its glow's image radius on a dark background with Gaussian
//! sensor noise) and run through the paper's pipeline: threshold, blob detection by
//! horizontal and vertical pixel continuity, centroids, red/blue sums within Chebyshev
//! distance 2 (red source: a grey-level blob larger than 2 px with red/blue > 1.2), then the
//! shared [`pipeline`](super::pipeline). Flash detection takes 30 frames in 0.5 s: outlier
//! blobs (present in one frame, absent near there in the next), streaks of outliers each
//! near the previous, a flash where a streak is long enough (flashes at one azimuth are one
//! robot). Frames are only rendered for
//! the flash detector when a robot in the tank is flashing (without one it finds nothing
//! but noise, which the threshold keeps out).

use super::analytic::{lights, Light};
use super::camera::{CameraModel, Cameras, CAMERAS};
use super::pipeline::{bearing, process, ImageBlob, PipelineParams};
use super::{Leds, Scene, Vision};
use flotilla_contract::bluebot::{BluebotSensors, Camera, Flash, RED_MIN_PIXELS, RED_RATIO};
use nalgebra::{UnitQuaternion, Vector3};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

/// Rendered vision parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rendered {
    /// The two cameras.
    pub cameras: Cameras,
    /// Pairing tolerances.
    pub pipeline: PipelineParams,
    /// Background level of both channels, 0-255.
    pub background: f64,
    /// Standard deviation of the sensor noise per pixel and channel, levels.
    pub noise: f64,
    /// Threshold of the binary image, levels.
    pub threshold: f64,
    /// Radius of an LED's glow, m.
    pub glow_radius: f64,
    /// Total-reflection angle at the surface, rad.
    pub critical_angle: f64,
    /// Frames of one flash-detection burst (in 0.5 s).
    pub flash_frames: usize,
    /// Duration of the burst, s.
    pub flash_window: f64,
    /// An outlier has no blob within this of it in the next frame, pixels.
    pub outlier_radius: f64,
    /// Successive outliers of a streak lie within this of each other, pixels.
    pub streak_radius: f64,
    /// Outliers a streak needs to be a flash.
    pub streak_length: usize,
}

impl Default for Rendered {
    fn default() -> Self {
        Self {
            cameras: Cameras::default(),
            pipeline: PipelineParams::default(),
            background: 10.0,
            noise: 8.0,
            threshold: 128.0,
            glow_radius: 0.008,
            critical_angle: (1.0f64 / 1.333).asin(),
            flash_frames: 30,
            flash_window: 0.5,
            outlier_radius: 3.0,
            streak_radius: 4.0,
            streak_length: 4,
        }
    }
}

/// One camera frame of the camera model's size (256 x 192): blue and red channels,
/// row-major, levels 0-255. The simulation draws them; `flotilla experiment blueswarm
/// detect` reads them from image files (a real Bluebot's, another renderer's).
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    blue: Vec<f32>,
    red: Vec<f32>,
}

impl Frame {
    /// A frame of `model`'s size from its blue and red channels (levels 0-255, row by
    /// row); refused with the sizes when either channel has another number of pixels.
    pub fn from_channels(model: &CameraModel, blue: Vec<f32>, red: Vec<f32>) -> Result<Self, String> {
        let pixels = model.width as usize * model.height as usize;
        if blue.len() != pixels || red.len() != pixels {
            return Err(format!(
                "a frame of the {} x {} camera needs {pixels} pixels per channel, got {} blue and {} red",
                model.width,
                model.height,
                blue.len(),
                red.len()
            ));
        }
        Ok(Self { blue, red })
    }
}

impl Rendered {
    fn render(&self, camera: Camera, lights: &[Light], eye: &Vector3<f64>, to_body: &UnitQuaternion<f64>, rng: &mut ChaCha8Rng) -> Frame {
        let (w, h) = (self.cameras.model.width as usize, self.cameras.model.height as usize);
        let noise = Normal::new(self.background, self.noise.max(1e-9)).ok();
        let mut sample = || noise.map_or(self.background, |n| n.sample(rng)) as f32;
        let mut frame = Frame { blue: (0..w * h).map(|_| sample()).collect(), red: (0..w * h).map(|_| sample()).collect() };
        for light in lights {
            let offset = light.position - eye;
            let distance = offset.norm();
            let Some((u, v)) = self.cameras.project(camera, &(to_body * (offset / distance.max(1e-9)))) else { continue };
            let radius = (self.cameras.model.focal * (light.glow / distance.max(1e-9)).atan()).max(0.6);
            let (blue, red) = if light.red_ratio > 1.0 { (255.0 / light.red_ratio, 255.0) } else { (255.0, 255.0 * light.red_ratio) };
            let (c0, c1) = ((u - radius).floor().max(0.0) as usize, ((u + radius).ceil() as usize).min(w - 1));
            let (r0, r1) = ((v - radius).floor().max(0.0) as usize, ((v + radius).ceil() as usize).min(h - 1));
            for row in r0..=r1 {
                for col in c0..=c1 {
                    // Pixel centres within the disc light up (at least the nearest one).
                    let (dx, dy) = (col as f64 + 0.5 - u, row as f64 + 0.5 - v);
                    if dx * dx + dy * dy <= radius * radius {
                        let i = row * w + col;
                        frame.blue[i] = frame.blue[i].max(blue as f32);
                        frame.red[i] = frame.red[i].max(red as f32);
                    }
                }
            }
        }
        frame
    }

    /// Blobs of `camera`'s frame (the camera model's size): LEDs on the blue channel, the red
    /// source on grey levels.
    pub fn blobs(&self, camera: Camera, frame: &Frame) -> Vec<ImageBlob> {
        let w = self.cameras.model.width as usize;
        let t = self.threshold as f32;
        let blue: Vec<bool> = frame.blue.iter().map(|&b| b >= t).collect();
        let grey: Vec<bool> = frame.blue.iter().zip(&frame.red).map(|(&b, &r)| 0.5 * (b + r) >= t).collect();
        let ratio = |b: &(f64, f64, u32)| {
            let (cx, cy) = (b.0 as i64, b.1 as i64);
            let (mut red, mut blue) = (0.0f64, 0.0f64);
            for y in (cy - 2).max(0)..=(cy + 2).min(frame.blue.len() as i64 / w as i64 - 1) {
                for x in (cx - 2).max(0)..=(cx + 2).min(w as i64 - 1) {
                    let i = y as usize * w + x as usize;
                    red += f64::from(frame.red[i]);
                    blue += f64::from(frame.blue[i]);
                }
            }
            red / blue.max(1e-9)
        };
        let mut out: Vec<ImageBlob> = continuity_blobs(&blue, w)
            .iter()
            .map(|b| ImageBlob { camera, column: b.0, row: b.1, pixels: b.2, red_ratio: ratio(b) })
            .filter(|b| b.red_ratio <= RED_RATIO)
            .collect();
        out.extend(
            continuity_blobs(&grey, w)
                .iter()
                .map(|b| ImageBlob { camera, column: b.0, row: b.1, pixels: b.2, red_ratio: ratio(b) })
                .filter(|b| b.pixels > RED_MIN_PIXELS && b.red_ratio > RED_RATIO),
        );
        out
    }

    /// Flash detection on a burst of frames of one camera: (column, row) of each flash.
    fn flashes_in(&self, frames: &[Vec<ImageBlob>]) -> Vec<(f64, f64)> {
        let near = |a: &ImageBlob, b: &ImageBlob, r: f64| (a.column - b.column).powi(2) + (a.row - b.row).powi(2) <= r * r;
        // Outliers between each two successive frames, by frame.
        let outliers: Vec<Vec<&ImageBlob>> = frames
            .windows(2)
            .map(|pair| pair[0].iter().filter(|a| !pair[1].iter().any(|b| near(a, b, self.outlier_radius))).collect())
            .collect();
        // Streaks: chains of outliers, each within streak_radius of the previous one.
        let mut streaks: Vec<(usize, &ImageBlob)> = Vec::new();
        let mut found = Vec::new();
        for frame in &outliers {
            let mut next: Vec<(usize, &ImageBlob)> = Vec::new();
            for o in frame {
                let length = streaks.iter().filter(|(_, s)| near(s, o, self.streak_radius)).map(|(n, _)| *n).max().unwrap_or(0) + 1;
                if length == self.streak_length {
                    found.push((o.column, o.row));
                }
                next.push((length, o));
            }
            // A streak survives frames without outliers (the LED is lit for two frames).
            for s in streaks {
                if !next.iter().any(|(_, o)| near(s.1, o, self.streak_radius)) {
                    next.push(s);
                }
            }
            streaks = next;
        }
        found
    }
}

/// Blobs of a binary image by continuity: horizontal runs of white pixels, joined when runs
/// of successive rows overlap (union-find). (centroid column, centroid row, pixels), pixel
/// centres at +0.5.
fn continuity_blobs(white: &[bool], width: usize) -> Vec<(f64, f64, u32)> {
    let mut runs: Vec<(usize, usize, usize)> = Vec::new(); // row, first column, last column
    let mut row_start = Vec::new();
    for (row, line) in white.chunks(width).enumerate() {
        row_start.push(runs.len());
        let mut col = 0;
        while col < width {
            if line[col] {
                let first = col;
                while col + 1 < width && line[col + 1] {
                    col += 1;
                }
                runs.push((row, first, col));
            }
            col += 1;
        }
    }
    row_start.push(runs.len());
    let mut parent: Vec<usize> = (0..runs.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for row in 1..row_start.len() - 1 {
        for a in row_start[row - 1]..row_start[row] {
            for b in row_start[row]..row_start[row + 1] {
                if runs[a].1 <= runs[b].2 && runs[b].1 <= runs[a].2 {
                    let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                    parent[ra] = rb;
                }
            }
        }
    }
    let mut sums: std::collections::BTreeMap<usize, (f64, f64, u32)> = std::collections::BTreeMap::new();
    for (i, &(row, first, last)) in runs.iter().enumerate() {
        let r = root(&mut parent, i);
        let e = sums.entry(r).or_insert((0.0, 0.0, 0));
        for col in first..=last {
            e.0 += col as f64 + 0.5;
            e.1 += row as f64 + 0.5;
            e.2 += 1;
        }
    }
    sums.values().map(|&(x, y, n)| (x / f64::from(n), y / f64::from(n), n)).collect()
}

impl Vision for Rendered {
    fn name(&self) -> &'static str {
        "rendered"
    }

    fn sense(&self, scene: &Scene<'_>, observer: usize, time: f64, rng: &mut ChaCha8Rng) -> BluebotSensors {
        let me = &scene.robots[observer];
        let (eye, to_body) = (me.position, me.orientation.inverse());
        let occluders = scene.occluders(observer);
        let focal = self.cameras.model.focal;
        let now = lights(scene, observer, time, &occluders, self.glow_radius, focal, self.critical_angle);
        let mut image = Vec::new();
        for camera in CAMERAS {
            let frame = self.render(camera, &now, &eye, &to_body, rng);
            image.extend(self.blobs(camera, &frame));
        }
        let mut flashes = Vec::new();
        if scene.robots.iter().any(|r| r.present && r.leds == Leds::Flashing) {
            for camera in CAMERAS {
                let burst: Vec<Vec<ImageBlob>> = (0..self.flash_frames)
                    .map(|k| {
                        let t = time + self.flash_window * k as f64 / self.flash_frames as f64;
                        let lit = lights(scene, observer, t, &occluders, self.glow_radius, focal, self.critical_angle);
                        self.blobs(camera, &self.render(camera, &lit, &eye, &to_body, rng))
                    })
                    .collect();
                for (column, row) in self.flashes_in(&burst) {
                    let (azimuth, elevation) = bearing(&self.cameras.unproject(camera, column, row));
                    // A robot's two LEDs (and both cameras in the overlap) make one flash.
                    match flashes
                        .iter_mut()
                        .find(|f: &&mut Flash| super::pipeline::wrap(f.azimuth - azimuth).abs() < self.pipeline.merge_azimuth)
                    {
                        Some(f) => f.elevation = 0.5 * (f.elevation + elevation),
                        None => flashes.push(Flash { azimuth, elevation }),
                    }
                }
            }
        }
        let depth = scene.tank.water_depth - eye.z;
        let (blobs, neighbours) = process(&self.cameras, &image, depth, &self.pipeline);
        BluebotSensors { stamp: time, depth, blobs, neighbours, flashes, photodiode: 0.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{LedLayout, RobotView};
    use super::*;
    use crate::systems::bluebot::Tank;
    use rand::SeedableRng;

    #[test]
    fn continuity_blobs_by_hand() {
        // 6 x 4: an L of 4 pixels, a lone pixel, a 2-pixel bar.
        let img = "#.....\
                   #...#.\
                   ##....\
                   ...##.";
        let white: Vec<bool> = img.chars().map(|c| c == '#').collect();
        let mut blobs = continuity_blobs(&white, 6);
        blobs.sort_by(|a, b| a.2.cmp(&b.2).then(a.0.total_cmp(&b.0)));
        assert_eq!(blobs.len(), 3, "{blobs:?}");
        assert_eq!(blobs[0], (4.5, 1.5, 1));
        assert_eq!(blobs[1], (4.0, 3.5, 2));
        assert_eq!(blobs[2].2, 4);
        assert!((blobs[2].0 - 0.75).abs() < 1e-12 && (blobs[2].1 - 1.75).abs() < 1e-12);
    }

    fn scene_of(robots: &[RobotView], tank: &Tank, layout: &LedLayout, observer: usize, vision: &Rendered) -> BluebotSensors {
        let scene = Scene { tank, robots, layout };
        vision.sense(&scene, observer, 0.0, &mut ChaCha8Rng::seed_from_u64(3))
    }

    fn bot(x: f64, leds: Leds) -> RobotView {
        RobotView { position: Vector3::new(x, 0.9, 0.5), orientation: UnitQuaternion::identity(), leds, present: true }
    }

    #[test]
    fn a_neighbour_ahead_is_paired_at_its_distance_and_a_flashing_one_is_detected() {
        let (tank, layout, vision) = (Tank::default(), LedLayout::default(), Rendered::default());
        let robots = [bot(0.4, Leds::Off), bot(0.9, Leds::On)];
        let reading = scene_of(&robots, &tank, &layout, 0, &vision);
        assert_eq!(reading.neighbours.len(), 1, "{reading:?}");
        let n = &reading.neighbours[0];
        assert!((n.distance - 0.5).abs() < 0.05 && n.azimuth.abs() < 0.03, "{n:?}");
        assert!(reading.flashes.is_empty());
        let robots =
            [bot(0.4, Leds::Off), bot(0.9, Leds::On), RobotView { position: Vector3::new(0.9, 1.3, 0.5), ..bot(0.0, Leds::Flashing) }];
        let reading = scene_of(&robots, &tank, &layout, 0, &vision);
        assert_eq!(reading.flashes.len(), 1, "{:?}", reading.flashes);
        let expected = 0.4f64.atan2(0.5);
        assert!((reading.flashes[0].azimuth - expected).abs() < 0.05, "{:?}", reading.flashes);
    }

    #[test]
    fn the_red_source_is_found_close_and_not_far() {
        let layout = LedLayout::default();
        let vision = Rendered::default();
        let near = Tank {
            red_source: Some(crate::systems::bluebot::RedSource { position: Vector3::new(0.7, 0.9, 0.5), detection_range: 0.39 }),
            ..Tank::default()
        };
        let far = Tank {
            red_source: Some(crate::systems::bluebot::RedSource { position: Vector3::new(1.2, 0.9, 0.5), detection_range: 0.39 }),
            ..Tank::default()
        };
        let robots = [bot(0.4, Leds::Off)];
        assert!(scene_of(&robots, &near, &layout, 0, &vision).red_source().is_some());
        assert!(scene_of(&robots, &far, &layout, 0, &vision).red_source().is_none());
    }
}
