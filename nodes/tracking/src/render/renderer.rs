//! The emulated overhead camera: shades the arena and every object's top through the
//! lens model, then applies illumination, blur and noise.

use super::options::{RenderError, RenderOptions};
use super::post;
use super::scene::{Colour, MarkerDesign, SceneObject};
use crate::camera::CameraModel;
use flotilla_common::arena::ArenaOutline;
use image::{GrayImage, RgbImage};
use nalgebra::Point2;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Colour of the floor around the tank.
const FLOOR: Colour = [20.0, 20.0, 24.0];
/// Colour of the tank rim.
const RIM: Colour = [150.0, 150.0, 160.0];
/// Colour of the water (dark blue).
const WATER: Colour = [30.0, 60.0, 90.0];
/// ITU-R BT.601 luma weights, used for mono8 output.
const LUMA: [f32; 3] = [0.299, 0.587, 0.114];

/// Renders frames of one arena through one camera. Reuses its buffers between frames.
pub struct Renderer {
    arena: ArenaOutline,
    camera: CameraModel,
    options: RenderOptions,
    /// Normalized undistorted image coordinates of every pixel centre (NaN where the
    /// lens model has no inverse), row-major.
    rays: Vec<[f32; 2]>,
    /// Shaded empty arena, one plane per colour channel.
    background: [Vec<f32>; 3],
    /// Working planes of the current frame.
    planes: [Vec<f32>; 3],
    /// Gaussian samples for the pixel noise.
    noise: post::NoiseTable,
    scratch: Vec<f32>,
}

impl Renderer {
    /// Prepares the per-pixel ray table and the empty arena image.
    pub fn new(arena: ArenaOutline, camera: CameraModel, options: RenderOptions) -> Result<Self, RenderError> {
        camera.validate()?;
        options.validate()?;
        let (width, height) = (camera.width as usize, camera.height as usize);
        let mut rays = Vec::with_capacity(width * height);
        for v in 0..height {
            for u in 0..width {
                let ray = camera.pixel_to_normalized(Point2::new(u as f64, v as f64));
                rays.push(ray.map_or([f32::NAN; 2], |n| [n.x as f32, n.y as f32]));
            }
        }
        let planes = [vec![0.0; width * height], vec![0.0; width * height], vec![0.0; width * height]];
        let noise = post::NoiseTable::new(options.seed);
        let mut renderer = Self { arena, camera, options, rays, background: planes.clone(), planes, noise, scratch: Vec::new() };
        renderer.shade_background();
        tracing::debug!(width, height, "overhead camera renderer ready");
        Ok(renderer)
    }

    /// The camera this renderer images through.
    pub fn camera(&self) -> &CameraModel {
        &self.camera
    }

    /// The image-formation options.
    pub fn options(&self) -> &RenderOptions {
        &self.options
    }

    /// Renders an rgb8 frame. `frame_index` selects the noise stream, so a frame can be
    /// reproduced on its own.
    pub fn render_rgb(&mut self, objects: &[SceneObject], frame_index: u64) -> RgbImage {
        self.shade(objects);
        let mut rng = self.noise_rng(frame_index);
        let (width, height) = (self.camera.width, self.camera.height);
        let mut out = RgbImage::new(width, height);
        for channel in 0..3 {
            let mut plane = std::mem::take(&mut self.planes[channel]);
            self.form_image(&mut plane);
            let noise = (self.options.noise_sigma > 0.0).then_some((&self.noise, &mut rng, self.options.noise_sigma as f32));
            post::quantise_into(&plane, width as usize, noise, &mut out, 3, channel);
            self.planes[channel] = plane;
        }
        out
    }

    /// Renders a mono8 frame (luma of the colour scene).
    pub fn render_gray(&mut self, objects: &[SceneObject], frame_index: u64) -> GrayImage {
        self.shade(objects);
        let mut rng = self.noise_rng(frame_index);
        let (width, height) = (self.camera.width, self.camera.height);
        let mut luma = std::mem::take(&mut self.planes[0]);
        for (i, value) in luma.iter_mut().enumerate() {
            *value = LUMA[0] * *value + LUMA[1] * self.planes[1][i] + LUMA[2] * self.planes[2][i];
        }
        self.form_image(&mut luma);
        let mut out = GrayImage::new(width, height);
        let noise = (self.options.noise_sigma > 0.0).then_some((&self.noise, &mut rng, self.options.noise_sigma as f32));
        post::quantise_into(&luma, width as usize, noise, &mut out, 1, 0);
        self.planes[0] = luma;
        out
    }

    fn noise_rng(&self, frame_index: u64) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(self.options.seed);
        rng.set_stream(frame_index);
        rng
    }

    /// Optics applied to one shaded plane: illumination gradient then blur.
    fn form_image(&mut self, plane: &mut [f32]) {
        let o = &self.options;
        post::apply_gain(
            plane,
            self.camera.width as usize,
            self.camera.cx,
            self.camera.cy,
            o.illumination_gradient,
            o.illumination_direction,
        );
        post::gaussian_blur(plane, &mut self.scratch, self.camera.width as usize, o.blur_sigma);
    }

    /// Fills the working planes with the background and every object's top.
    fn shade(&mut self, objects: &[SceneObject]) {
        for (plane, background) in self.planes.iter_mut().zip(&self.background) {
            plane.copy_from_slice(background);
        }
        for object in objects {
            self.shade_object(object);
        }
    }

    /// Ray derivative (normalized units per px) along +u and +v at pixel `index`, by
    /// central differences in the ray table (one-sided on the image border).
    fn ray_derivatives(&self, u: usize, v: usize) -> Option<([f64; 2], [f64; 2])> {
        let width = self.camera.width as usize;
        let height = self.camera.height as usize;
        let at = |u: usize, v: usize| {
            let r = self.rays[v * width + u];
            [f64::from(r[0]), f64::from(r[1])]
        };
        let diff = |a: [f64; 2], b: [f64; 2], span: f64| [(b[0] - a[0]) / span, (b[1] - a[1]) / span];
        let (u0, u1) = (u.saturating_sub(1), (u + 1).min(width - 1));
        let (v0, v1) = (v.saturating_sub(1), (v + 1).min(height - 1));
        let du = diff(at(u0, v), at(u1, v), (u1 - u0).max(1) as f64);
        let dv = diff(at(u, v0), at(u, v1), (v1 - v0).max(1) as f64);
        du.iter().chain(&dv).all(|x| x.is_finite()).then_some((du, dv))
    }

    /// Shades the empty arena on the water plane into `background`.
    fn shade_background(&mut self) {
        let (width, height) = (self.camera.width as usize, self.camera.height as usize);
        let depth = self.camera.mount.height;
        let (arena, rim) = (self.arena, self.options.rim_width);
        let region_colour = |x: f64, y: f64| {
            if arena.boundary_distance(x, y, 0.0) < 0.0 {
                WATER
            } else if arena.boundary_distance(x, y, rim) < 0.0 {
                RIM
            } else {
                FLOOR
            }
        };
        let clearance = |x: f64, y: f64| arena.boundary_distance(x, y, 0.0).abs().min(arena.boundary_distance(x, y, rim).abs());
        let n = self.options.supersampling as usize;
        for v in 0..height {
            for u in 0..width {
                let index = v * width + u;
                let ray = self.rays[index];
                let colour = match self.ray_derivatives(u, v) {
                    Some((du, dv)) if ray[0].is_finite() => {
                        let (x, y) = self.camera_to_world(ray, depth);
                        let (ju, jv) = ([du[0] * depth, -du[1] * depth], [dv[0] * depth, -dv[1] * depth]);
                        let footprint = 0.5 * (norm(ju[0], ju[1]) + norm(jv[0], jv[1]));
                        if clearance(x, y) > footprint {
                            region_colour(x, y)
                        } else {
                            supersample(n, |a, b| region_colour(x + ju[0] * a + jv[0] * b, y + ju[1] * a + jv[1] * b))
                        }
                    }
                    _ => FLOOR,
                };
                for (plane, c) in self.background.iter_mut().zip(colour) {
                    plane[index] = c;
                }
            }
        }
    }

    fn camera_to_world(&self, ray: [f32; 2], depth: f64) -> (f64, f64) {
        let mount = &self.camera.mount;
        (mount.x + f64::from(ray[0]) * depth, mount.y - f64::from(ray[1]) * depth)
    }

    /// Shades one object's top over what is already in the working planes.
    fn shade_object(&mut self, object: &SceneObject) {
        let design = object.kind.design(object.size);
        let depth = self.camera.mount.height - object.top_height;
        let Some((u_range, v_range)) = self.pixel_bounds(object, &design) else { return };
        let width = self.camera.width as usize;
        let (sin, cos) = object.heading.sin_cos();
        // World offset -> object frame.
        let to_local = |dx: f64, dy: f64| (cos * dx + sin * dy, -sin * dx + cos * dy);
        let n = self.options.supersampling as usize;
        // The lens is smooth over one object, so one Jacobian (world m per px, in the
        // object frame) taken at its centre serves every pixel's footprint and sub-samples.
        let Some(centre) = self.camera.world_to_pixel(Point2::new(object.x, object.y), object.top_height) else { return };
        let clamp = |x: f64, size: u32| x.round().clamp(0.0, f64::from(size - 1)) as usize;
        let Some((du, dv)) = self.ray_derivatives(clamp(centre.x, self.camera.width), clamp(centre.y, self.camera.height)) else {
            return;
        };
        let ju = to_local(du[0] * depth, -du[1] * depth);
        let jv = to_local(dv[0] * depth, -dv[1] * depth);
        let footprint = 0.5 * (norm(ju.0, ju.1) + norm(jv.0, jv.1));
        for v in v_range {
            for u in u_range.clone() {
                let index = v * width + u;
                let ray = self.rays[index];
                if !ray[0].is_finite() {
                    continue;
                }
                let (wx, wy) = self.camera_to_world(ray, depth);
                let (lx, ly) = to_local(wx - object.x, wy - object.y);
                let below: Colour = [self.planes[0][index], self.planes[1][index], self.planes[2][index]];
                let shade_at = |x: f64, y: f64| design.colour(design.region(x, y)).unwrap_or(below);
                let colour = if design.clearance(lx, ly) > footprint {
                    shade_at(lx, ly)
                } else {
                    supersample(n, |a, b| shade_at(lx + ju.0 * a + jv.0 * b, ly + ju.1 * a + jv.1 * b))
                };
                for (plane, c) in self.planes.iter_mut().zip(colour) {
                    plane[index] = c;
                }
            }
        }
    }

    /// Pixel rectangle covering the object's bounding circle, clipped to the image;
    /// `None` when it is off-image.
    fn pixel_bounds(&self, object: &SceneObject, design: &MarkerDesign) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
        const SAMPLES: usize = 32;
        let radius = design.bounding_radius();
        let (mut u_min, mut u_max, mut v_min, mut v_max) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for k in 0..SAMPLES {
            let angle = k as f64 * std::f64::consts::TAU / SAMPLES as f64;
            // The polygon through 32 circle points lies within cos(pi/32) of the circle;
            // scaling by 1.01 encloses it.
            let world = Point2::new(object.x + 1.01 * radius * angle.cos(), object.y + 1.01 * radius * angle.sin());
            let px = self.camera.world_to_pixel(world, object.top_height)?;
            u_min = u_min.min(px.x);
            u_max = u_max.max(px.x);
            v_min = v_min.min(px.y);
            v_max = v_max.max(px.y);
        }
        let clip = |lo: f64, hi: f64, size: u32| {
            let lo = (lo.floor() - 1.0).max(0.0);
            let hi = (hi.ceil() + 2.0).min(f64::from(size));
            (lo < hi).then_some(lo as usize..hi as usize)
        };
        Some((clip(u_min, u_max, self.camera.width)?, clip(v_min, v_max, self.camera.height)?))
    }
}

/// Euclidean length; `f64::hypot` guards against overflow we cannot have here and is
/// several times slower.
#[inline]
fn norm(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// Mean colour over an `n` x `n` grid of sub-pixel offsets in (-0.5, 0.5) px.
fn supersample(n: usize, mut colour_at: impl FnMut(f64, f64) -> Colour) -> Colour {
    let mut sum = [0.0f32; 3];
    for i in 0..n {
        let a = (i as f64 + 0.5) / n as f64 - 0.5;
        for j in 0..n {
            let b = (j as f64 + 0.5) / n as f64 - 0.5;
            let c = colour_at(a, b);
            for (s, c) in sum.iter_mut().zip(c) {
                *s += c;
            }
        }
    }
    let scale = 1.0 / (n * n) as f32;
    sum.map(|s| s * scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::scene::MarkerKind;

    fn small_camera() -> CameraModel {
        CameraModel::covering(&ArenaOutline::lily_tank(), 256, 256, 1.0, 0.03)
    }

    #[test]
    fn background_shows_water_rim_and_floor() {
        let mut r = Renderer::new(ArenaOutline::lily_tank(), small_camera(), RenderOptions::default()).unwrap();
        let img = r.render_rgb(&[], 0);
        assert_eq!(img.get_pixel(128, 128).0, [30, 60, 90]);
        assert_eq!(img.get_pixel(0, 0).0, [20, 20, 24]);
        // World x = 0.305 m lies on the 1 cm rim: pixel u = cx + f * 0.305.
        let cam = small_camera();
        let u = (cam.cx + cam.fx * 0.305).round() as u32;
        assert_eq!(img.get_pixel(u, 128).0, [150, 150, 160]);
    }

    #[test]
    fn marker_coverage_equals_disc_area() {
        // The summed marker coverage in pixels must equal the disc area in pixels.
        let cam = small_camera();
        let mut r =
            Renderer::new(ArenaOutline::lily_tank(), cam.clone(), RenderOptions { supersampling: 8, ..Default::default() }).unwrap();
        let ball = SceneObject::new(1, MarkerKind::Ball, 0.0123, -0.0456).with_size(0.06).with_top_height(0.0);
        let img = r.render_gray(&[ball], 0);
        let design = MarkerKind::Ball.design(0.06);
        let outline = f64::from(design.outline_colour[0]) * 0.299
            + f64::from(design.outline_colour[1]) * 0.587
            + f64::from(design.outline_colour[2]) * 0.114;
        let white = 245.0;
        let centre = cam.world_to_pixel(Point2::new(ball.x, ball.y), 0.0).unwrap();
        let (cu, cv) = (centre.x.round() as u32, centre.y.round() as u32);
        let mut covered = 0.0;
        for v in cv - 10..=cv + 10 {
            for u in cu - 10..=cu + 10 {
                covered += ((f64::from(img.get_pixel(u, v).0[0]) - outline) / (white - outline)).clamp(0.0, 1.0);
            }
        }
        let radius_px = design.marker_radius * cam.fx;
        let expected = std::f64::consts::PI * radius_px * radius_px;
        assert!((covered - expected).abs() / expected < 0.01, "{covered} vs {expected}");
    }

    #[test]
    fn same_seed_same_frame() {
        let options = RenderOptions { noise_sigma: 5.0, seed: 9, ..Default::default() };
        let mut a = Renderer::new(ArenaOutline::lily_tank(), small_camera(), options.clone()).unwrap();
        let mut b = Renderer::new(ArenaOutline::lily_tank(), small_camera(), options).unwrap();
        let objects = [SceneObject::new(0, MarkerKind::Lily, 0.05, 0.02).with_heading(1.0)];
        assert_eq!(a.render_rgb(&objects, 3), b.render_rgb(&objects, 3));
        assert_ne!(a.render_rgb(&objects, 3), a.render_rgb(&objects, 4));
    }

    #[test]
    fn bad_options_are_named() {
        let err = Renderer::new(ArenaOutline::lily_tank(), small_camera(), RenderOptions { supersampling: 0, ..Default::default() })
            .err()
            .unwrap();
        assert!(err.to_string().contains("supersampling"), "{err}");
        let mut cam = small_camera();
        cam.fx = f64::NAN;
        let err = Renderer::new(ArenaOutline::lily_tank(), cam, RenderOptions::default()).err().unwrap();
        assert!(err.to_string().contains("fx"), "{err}");
    }
}
