//! A nuisance scene generator of its own, independent of `tracking::render`: stirred
//! balls and Lilies seen by a camera that is not the default one (fx != fy, off-centre
//! principal point, plumb-bob distortion with tangential terms, mount off the tank axis),
//! under real lighting: vignetting (cos^4), a linear illumination gradient, a dim episode,
//! specular glints on the balls and sparkles on the water, a static lamp reflection,
//! an inlet pipe that partly hides markers, motion blur, optical blur and noise.
//!
//! Rays are traced per sub-sample: ball tops are spheres (the sticker is curved over
//! them, so it sits lower than the top), Lily tops are flat squares. The ground truth is
//! the body centre at mid-exposure and the Lily heading.

#![allow(dead_code)] // Shared by the test and the example; each uses part of it.
#![allow(clippy::needless_range_loop)] // Colour channels index several arrays at once.

use image::{GrayImage, RgbImage};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use std::f64::consts::{PI, TAU};

/// Linear colour on the 8-bit scale.
type Rgb = [f64; 3];

const WATER: Rgb = [28.0, 58.0, 86.0];
const RIM: Rgb = [160.0, 158.0, 150.0];
const FLOOR: Rgb = [18.0, 18.0, 22.0];
const ORANGE: Rgb = [232.0, 118.0, 38.0];
const LILY_GREY: Rgb = [128.0, 126.0, 122.0];
const STICKER: Rgb = [238.0, 240.0, 236.0];
const DOT: Rgb = [20.0, 18.0, 18.0];
const PIPE: Rgb = [55.0, 55.0, 60.0];

/// Ping-pong ball radius, m.
pub const BALL_RADIUS: f64 = 0.015;
/// Ball top above the water, m (floats 25 mm deep).
pub const BALL_TOP: f64 = 0.005;
/// Radius of the (curved) sticker on a ball, horizontal, m.
pub const BALL_STICKER_RADIUS: f64 = 0.008;
/// Lily top half side, m.
pub const LILY_HALF_SIDE: f64 = 0.015;
/// Lily top above the water, m.
pub const LILY_TOP: f64 = 0.010;
/// Lily sticker radius, m.
pub const LILY_STICKER_RADIUS: f64 = 0.0105;
/// Heading dot: offset from the sticker centre and radius, m.
pub const LILY_DOT: (f64, f64) = (0.005, 0.0028);

/// Kind of body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ball,
    Lily,
}

/// One body's ground truth at a frame.
#[derive(Clone, Copy, Debug)]
pub struct Truth {
    pub id: u32,
    pub kind: Kind,
    /// Body centre, m.
    pub x: f64,
    pub y: f64,
    /// Velocity, m/s.
    pub vx: f64,
    pub vy: f64,
    /// Lily heading, rad.
    pub heading: f64,
    /// Fraction of the sticker visible in this frame (occlusion by the pipe), 0..1.
    pub visible: f64,
}

/// The camera as a different renderer would define it (own projection code).
#[derive(Clone, Debug)]
pub struct Camera {
    pub width: u32,
    pub height: u32,
    pub fx: f64,
    pub fy: f64,
    pub cx: f64,
    pub cy: f64,
    /// plumb_bob [k1, k2, p1, p2, k3].
    pub d: [f64; 5],
    /// Optical centre: world x, y, height above the water, m.
    pub mount: [f64; 3],
}

impl Camera {
    /// A camera unlike the default: fx 1.6 % above fy, principal point 2-3 % off centre,
    /// barrel plus tangential distortion, mount 3 cm / -2 cm off the tank axis, covering
    /// a round tank of `tank_radius` (m) at `width` px.
    pub fn odd(width: u32, tank_radius: f64) -> Self {
        let w = f64::from(width);
        let mount = [0.03, -0.02, 1.0];
        let reach = tank_radius + 0.05;
        let fy = 0.5 * w / (reach / mount[2]) * 0.97;
        Self {
            width,
            height: width,
            fx: fy * 1.016,
            fy,
            cx: 0.5 * (w - 1.0) + 0.023 * w,
            cy: 0.5 * (w - 1.0) - 0.017 * w,
            d: [-0.09, 0.012, 0.0006, -0.0004, 0.0],
            mount,
        }
    }

    fn distort(&self, x: f64, y: f64) -> (f64, f64) {
        let [k1, k2, p1, p2, k3] = self.d;
        let r2 = x * x + y * y;
        let radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3));
        (x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x), y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y)
    }

    /// World point -> pixel.
    pub fn project(&self, x: f64, y: f64, z: f64) -> (f64, f64) {
        let depth = self.mount[2] - z;
        let (xd, yd) = self.distort((x - self.mount[0]) / depth, -(y - self.mount[1]) / depth);
        (self.fx * xd + self.cx, self.fy * yd + self.cy)
    }

    /// Pixel -> undistorted normalized coordinates and their derivatives per pixel
    /// (Newton on the distortion, own implementation).
    fn ray(&self, u: f64, v: f64) -> ([f64; 2], [[f64; 2]; 2]) {
        let (xd, yd) = ((u - self.cx) / self.fx, (v - self.cy) / self.fy);
        let (mut x, mut y) = (xd, yd);
        let mut inverse = [[1.0, 0.0], [0.0, 1.0]];
        for _ in 0..8 {
            let (fx, fy) = self.distort(x, y);
            let h = 1e-7;
            let (ax, ay) = self.distort(x + h, y);
            let (bx, by) = self.distort(x, y + h);
            let (j00, j10, j01, j11) = ((ax - fx) / h, (ay - fy) / h, (bx - fx) / h, (by - fy) / h);
            let det = j00 * j11 - j01 * j10;
            inverse = [[j11 / det, -j01 / det], [-j10 / det, j00 / det]];
            let (ex, ey) = (fx - xd, fy - yd);
            x -= inverse[0][0] * ex + inverse[0][1] * ey;
            y -= inverse[1][0] * ex + inverse[1][1] * ey;
        }
        let per_pixel = [[inverse[0][0] / self.fx, inverse[0][1] / self.fy], [inverse[1][0] / self.fx, inverse[1][1] / self.fy]];
        ([x, y], per_pixel)
    }

    /// Pixels per metre at the image centre on the water plane.
    pub fn scale(&self) -> f64 {
        self.fy / self.mount[2]
    }
}

/// What the scene contains besides the bodies.
#[derive(Clone, Debug)]
pub struct Nuisances {
    /// Vignetting: cos^4 of the off-axis angle times (1 - extra r^2) (r normalized).
    pub vignetting_extra: f64,
    /// Illumination gradient amplitude across the tank (+-), fraction.
    pub gradient: f64,
    /// Direction of the gradient, rad.
    pub gradient_direction: f64,
    /// Dim episode: first frame, last frame, light factor at its depth.
    pub dim: Option<(usize, usize, f64)>,
    /// Lamp position (x, y, height above water), m: ball glints and the reflection.
    pub lamp: [f64; 3],
    /// Chance that a ball shows its specular glint in a frame.
    pub glint_probability: f64,
    /// Water sparkles per frame (mean).
    pub sparkles: f64,
    /// Static lamp reflection on the water: radius (m) and peak (8-bit levels).
    pub reflection: Option<(f64, f64)>,
    /// Inlet pipe over the water: from (x, y) to (x, y), height, width, m.
    pub pipe: Option<([f64; 2], [f64; 2], f64, f64)>,
    /// Exposure time, s (motion blur).
    pub exposure: f64,
    /// Optical blur sigma, px.
    pub blur_sigma: f64,
    /// Pixel noise sigma, 8-bit levels.
    pub noise_sigma: f64,
}

impl Nuisances {
    /// Everything of the issue at once.
    pub fn all(tank_radius: f64) -> Self {
        Self {
            vignetting_extra: 0.15,
            gradient: 0.08,
            gradient_direction: 0.6,
            dim: Some((50, 100, 0.55)),
            lamp: [0.3 * tank_radius / 0.3, 0.3 * tank_radius / 0.3, 1.3],
            glint_probability: 0.6,
            sparkles: 4.0,
            reflection: Some((0.009, 210.0)),
            pipe: Some(([-tank_radius - 0.02, -0.35 * tank_radius], [-0.45 * tank_radius, -0.33 * tank_radius], 0.04, 0.012)),
            exposure: 0.008,
            blur_sigma: 0.8,
            noise_sigma: 3.0,
        }
    }
}

/// Scene settings.
#[derive(Clone, Debug)]
pub struct SceneConfig {
    pub camera: Camera,
    pub tank_radius: f64,
    pub balls: usize,
    pub lilies: usize,
    pub rate: f64,
    pub nuisances: Nuisances,
    pub seed: u64,
}

impl SceneConfig {
    /// 1024^2, 24 balls in the 0.6 m tank.
    pub fn balls_1024(seed: u64) -> Self {
        Self { camera: Camera::odd(1024, 0.3), tank_radius: 0.3, balls: 24, lilies: 0, rate: 30.0, nuisances: Nuisances::all(0.3), seed }
    }

    /// 1024^2, 15 Lilies in the 0.6 m tank.
    pub fn lilies_1024(seed: u64) -> Self {
        Self { balls: 0, lilies: 15, ..Self::balls_1024(seed) }
    }

    /// 2048^2, 120 balls and 80 Lilies in a 1.2 m tank.
    pub fn mixed_2048(seed: u64) -> Self {
        Self { camera: Camera::odd(2048, 0.6), tank_radius: 0.6, balls: 120, lilies: 80, rate: 30.0, nuisances: Nuisances::all(0.6), seed }
    }
}

#[derive(Clone, Copy, Debug)]
struct Body {
    kind: Kind,
    x: f64,
    y: f64,
    vx: f64,
    vy: f64,
    heading: f64,
    omega: f64,
}

impl Body {
    fn radius(&self) -> f64 {
        match self.kind {
            Kind::Ball => BALL_RADIUS,
            Kind::Lily => LILY_HALF_SIDE * 1.2,
        }
    }
}

/// Stirred bodies with contacts: Ornstein-Uhlenbeck velocities around a swirl,
/// elastic-ish collisions with each other and the wall.
pub struct Scene {
    pub config: SceneConfig,
    bodies: Vec<Body>,
    rng: ChaCha8Rng,
    frame: usize,
    background: Vec<Rgb>,
    /// Render the empty tank (the bodies not yet put in).
    empty: bool,
}

/// A rendered frame and its truth.
pub struct Frame {
    pub index: usize,
    pub stamp: f64,
    pub truth: Vec<Truth>,
    pub rgb: RgbImage,
}

impl Frame {
    /// Luma of the frame (what a mono8 camera gives).
    pub fn gray(&self) -> GrayImage {
        let mut g = GrayImage::new(self.rgb.width(), self.rgb.height());
        for (o, p) in g.pixels_mut().zip(self.rgb.pixels()) {
            o.0[0] = (0.299 * f64::from(p.0[0]) + 0.587 * f64::from(p.0[1]) + 0.114 * f64::from(p.0[2])).round() as u8;
        }
        g
    }
}

impl Scene {
    pub fn new(config: SceneConfig) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let mut bodies: Vec<Body> = Vec::new();
        let kinds = std::iter::repeat_n(Kind::Ball, config.balls).chain(std::iter::repeat_n(Kind::Lily, config.lilies));
        for kind in kinds {
            for _attempt in 0..10_000 {
                let r = (config.tank_radius - 0.03) * rng.gen::<f64>().sqrt();
                let a = rng.gen::<f64>() * TAU;
                let candidate =
                    Body { kind, x: r * a.cos(), y: r * a.sin(), vx: 0.0, vy: 0.0, heading: rng.gen::<f64>() * TAU - PI, omega: 0.0 };
                if bodies.iter().all(|b| (b.x - candidate.x).hypot(b.y - candidate.y) > b.radius() + candidate.radius() + 0.004) {
                    bodies.push(candidate);
                    break;
                }
            }
        }
        assert_eq!(bodies.len(), config.balls + config.lilies, "bodies do not fit the tank");
        let background = render_background(&config);
        Self { config, bodies, rng, frame: 0, background, empty: false }
    }

    fn advance(&mut self, dt: f64) {
        let substeps = 8;
        let h = dt / f64::from(substeps);
        let noise = Normal::new(0.0, 1.0).expect("unit normal");
        let (tau, sigma, swirl) = (0.8, 0.16, 0.10);
        let rim = self.config.tank_radius;
        for _ in 0..substeps {
            for b in &mut self.bodies {
                let r = b.x.hypot(b.y).max(1e-6);
                let (fx, fy) = (-swirl * b.y / r * (r / rim).min(1.0) * 2.0, swirl * b.x / r * (r / rim).min(1.0) * 2.0);
                let kick = sigma * (2.0 * h / tau).sqrt();
                b.vx += (fx - b.vx) * h / tau + kick * noise.sample(&mut self.rng);
                b.vy += (fy - b.vy) * h / tau + kick * noise.sample(&mut self.rng);
                b.omega += -b.omega * h / tau + 1.5 * (2.0 * h / tau).sqrt() * noise.sample(&mut self.rng);
                b.x += b.vx * h;
                b.y += b.vy * h;
                b.heading = wrap(b.heading + b.omega * h);
                let limit = rim - b.radius();
                let r = b.x.hypot(b.y);
                if r > limit {
                    let (nx, ny) = (b.x / r, b.y / r);
                    b.x = nx * limit;
                    b.y = ny * limit;
                    let vn = b.vx * nx + b.vy * ny;
                    if vn > 0.0 {
                        b.vx -= 1.8 * vn * nx;
                        b.vy -= 1.8 * vn * ny;
                    }
                }
            }
            for i in 0..self.bodies.len() {
                for j in i + 1..self.bodies.len() {
                    let (a, b) = (self.bodies[i], self.bodies[j]);
                    let (dx, dy) = (b.x - a.x, b.y - a.y);
                    let d = dx.hypot(dy);
                    let contact = a.radius() + b.radius();
                    if d >= contact || d < 1e-9 {
                        continue;
                    }
                    let (nx, ny) = (dx / d, dy / d);
                    let push = 0.5 * (contact - d);
                    let vn = (b.vx - a.vx) * nx + (b.vy - a.vy) * ny;
                    let impulse = if vn < 0.0 { 0.9 * vn } else { 0.0 };
                    let (ai, bi) = (&mut self.bodies[i].clone(), &mut self.bodies[j].clone());
                    ai.x -= push * nx;
                    ai.y -= push * ny;
                    bi.x += push * nx;
                    bi.y += push * ny;
                    ai.vx += impulse * nx;
                    ai.vy += impulse * ny;
                    bi.vx -= impulse * nx;
                    bi.vy -= impulse * ny;
                    self.bodies[i] = *ai;
                    self.bodies[j] = *bi;
                }
            }
        }
    }

    /// Light factor of the dim episode at frame `k`.
    fn dimming(&self, k: usize) -> f64 {
        match self.config.nuisances.dim {
            Some((start, end, depth)) if k >= start && k <= end => {
                let ramp = 8.0;
                let into = ((k - start) as f64 / ramp).min(1.0).min((end - k) as f64 / ramp);
                1.0 - (1.0 - depth) * into
            }
            _ => 1.0,
        }
    }

    /// Renders the empty tank under the scene's (undimmed) light: what a lab films before
    /// putting the bodies in. The truth is empty.
    pub fn empty_frame(&mut self) -> Frame {
        self.empty = true;
        let saved = self.frame;
        // Frame indices past the dim episode keep the light steady.
        self.frame = usize::MAX / 2;
        let mut frame = self.next_frame();
        self.frame = saved;
        self.empty = false;
        frame.truth.clear();
        frame
    }

    /// Renders the next frame (advancing the motion by one frame period first, except
    /// for frame 0).
    pub fn next_frame(&mut self) -> Frame {
        if self.frame > 0 && !self.empty {
            self.advance(1.0 / self.config.rate);
        }
        let k = self.frame;
        self.frame += 1;
        let cam = self.config.camera.clone();
        let n = &self.config.nuisances;
        let (w, h) = (cam.width as usize, cam.height as usize);
        let mut radiance = self.background.clone();
        let mut visible = vec![(0u32, 0u32); self.bodies.len()];
        let mut covered = vec![false; w * h];
        // Bodies (and the pipe) by bounding box; every pixel whose box overlaps more than
        // one item is shaded by the nearest hit among all overlapping items.
        let items = self.items(&cam);
        for (i, item) in items.iter().enumerate() {
            let overlapping: Vec<usize> = (0..items.len()).filter(|&j| overlaps(&items[j].bbox, &item.bbox)).collect();
            let (u0, u1, v0, v1) = item.bbox;
            for v in v0..=v1 {
                for u in u0..=u1 {
                    let (centre, jac) = cam.ray(u as f64, v as f64);
                    let mut sum = [0.0; 3];
                    let mut any = false;
                    for s in 0..SUBSAMPLES * SUBSAMPLES {
                        let (a, b) = (
                            ((s % SUBSAMPLES) as f64 + 0.5) / SUBSAMPLES as f64 - 0.5,
                            ((s / SUBSAMPLES) as f64 + 0.5) / SUBSAMPLES as f64 - 0.5,
                        );
                        // Latin-square time offsets give motion blur.
                        let slot = (s % SUBSAMPLES + s / SUBSAMPLES) % SUBSAMPLES;
                        let dt = n.exposure * ((slot as f64 + 0.5) / SUBSAMPLES as f64 - 0.5);
                        let ray = [centre[0] + jac[0][0] * a + jac[0][1] * b, centre[1] + jac[1][0] * a + jac[1][1] * b];
                        let mut best: Option<(f64, Rgb, usize, bool)> = None;
                        for &j in &overlapping {
                            if let Some((t, colour, sticker)) = self.hit(&items[j], &cam, ray, dt) {
                                if best.is_none_or(|(bt, ..)| t < bt) {
                                    best = Some((t, colour, j, sticker));
                                }
                            }
                            if j == i {
                                if let (Item { body: Some(bi), .. }, Some((_, _, true))) = (&items[j], self.hit(&items[j], &cam, ray, dt)) {
                                    visible[*bi].1 += 1;
                                }
                            }
                        }
                        match best {
                            Some((_, colour, j, sticker)) => {
                                any = true;
                                if j == i && sticker {
                                    if let Some(bi) = item.body {
                                        visible[bi].0 += 1;
                                    }
                                }
                                for c in 0..3 {
                                    sum[c] += colour[c];
                                }
                            }
                            None => {
                                let bg = self.background[v * w + u];
                                for c in 0..3 {
                                    sum[c] += bg[c];
                                }
                            }
                        }
                    }
                    if any {
                        let count = (SUBSAMPLES * SUBSAMPLES) as f64;
                        radiance[v * w + u] = [sum[0] / count, sum[1] / count, sum[2] / count];
                        covered[v * w + u] = true;
                    }
                }
            }
        }
        let scale = cam.scale();
        // Static lamp reflection on the water (hidden where a body or the pipe covers it).
        if let Some((radius, peak)) = n.reflection {
            let (lx, ly) = reflection_point(&cam, n.lamp);
            let (pu, pv) = cam.project(lx, ly, 0.0);
            let r_px = radius * scale;
            splat(&mut radiance, &covered, (w, h), (pu, pv, r_px * 1.6), |d| peak / (1.0 + (d / r_px).powi(8)));
        }
        // Specular glints on balls (moving with them, flickering).
        for b in self.bodies.iter().filter(|_| !self.empty) {
            if b.kind != Kind::Ball || self.rng.gen::<f64>() > n.glint_probability {
                continue;
            }
            let centre = [b.x, b.y, BALL_TOP - BALL_RADIUS];
            let to_lamp = unit([n.lamp[0] - centre[0], n.lamp[1] - centre[1], n.lamp[2] - centre[2]]);
            let to_cam = unit([cam.mount[0] - centre[0], cam.mount[1] - centre[1], cam.mount[2] - centre[2]]);
            let normal = unit([to_lamp[0] + to_cam[0], to_lamp[1] + to_cam[1], to_lamp[2] + to_cam[2]]);
            let p = [centre[0] + BALL_RADIUS * normal[0], centre[1] + BALL_RADIUS * normal[1], centre[2] + BALL_RADIUS * normal[2]];
            if p[2] < 0.0 {
                continue;
            }
            let (gu, gv) = cam.project(p[0], p[1], p[2]);
            let sigma = self.rng.gen_range(0.5e-3..1.0e-3) * scale;
            let peak = self.rng.gen_range(120.0..260.0);
            splat(&mut radiance, &[], (w, h), (gu, gv, 3.5 * sigma), |d| peak * (-0.5 * (d / sigma).powi(2)).exp());
        }
        // Sparkles on the water.
        let sparkles = poisson(&mut self.rng, n.sparkles);
        for _ in 0..sparkles {
            let r = self.config.tank_radius * self.rng.gen::<f64>().sqrt();
            let a = self.rng.gen::<f64>() * TAU;
            let (gu, gv) = cam.project(r * a.cos(), r * a.sin(), 0.0);
            let sigma = self.rng.gen_range(0.5e-3..1.0e-3) * scale;
            let peak = self.rng.gen_range(120.0..260.0);
            splat(&mut radiance, &covered, (w, h), (gu, gv, 3.5 * sigma), |d| peak * (-0.5 * (d / sigma).powi(2)).exp());
        }
        // Illumination, blur, noise, quantisation.
        let light = self.dimming(k);
        let (diag_u, diag_v) = (0.5 * w as f64, 0.5 * h as f64);
        let (gc, gs) = (n.gradient_direction.cos(), n.gradient_direction.sin());
        for v in 0..h {
            for u in 0..w {
                let (xn, yn) = ((u as f64 - cam.cx) / cam.fx, (v as f64 - cam.cy) / cam.fy);
                let cos = 1.0 / (1.0 + xn * xn + yn * yn).sqrt();
                let rn2 = ((u as f64 - diag_u) / diag_u).powi(2) + ((v as f64 - diag_v) / diag_v).powi(2);
                let along = ((u as f64 - diag_u) / diag_u * gc - (v as f64 - diag_v) / diag_v * gs) / std::f64::consts::SQRT_2;
                let gain = light * cos.powi(4) * (1.0 - n.vignetting_extra * rn2 / 2.0) * (1.0 + n.gradient * along) * 1.12;
                for c in &mut radiance[v * w + u] {
                    *c *= gain;
                }
            }
        }
        let blurred = gaussian_blur(&radiance, w, h, n.blur_sigma);
        let noise = Normal::new(0.0, n.noise_sigma.max(1e-9)).expect("noise sigma");
        let mut rgb = RgbImage::new(cam.width, cam.height);
        for (px, value) in rgb.pixels_mut().zip(&blurred) {
            for c in 0..3 {
                px.0[c] = (value[c] + noise.sample(&mut self.rng)).round().clamp(0.0, 255.0) as u8;
            }
        }
        let truth = self
            .bodies
            .iter()
            .enumerate()
            .map(|(i, b)| Truth {
                id: i as u32,
                kind: b.kind,
                x: b.x,
                y: b.y,
                vx: b.vx,
                vy: b.vy,
                heading: b.heading,
                visible: if visible[i].1 == 0 { 0.0 } else { f64::from(visible[i].0) / f64::from(visible[i].1) },
            })
            .collect();
        Frame { index: k, stamp: k as f64 / self.config.rate, truth, rgb }
    }

    fn items(&self, cam: &Camera) -> Vec<Item> {
        let mut items: Vec<Item> = self
            .bodies
            .iter()
            .enumerate()
            .filter(|_| !self.empty)
            .map(|(i, b)| {
                let reach = b.radius() * 1.3 + b.vx.hypot(b.vy) * self.config.nuisances.exposure;
                let top = if b.kind == Kind::Ball { BALL_TOP } else { LILY_TOP };
                Item { body: Some(i), bbox: bbox(cam, &[[b.x - reach, b.y - reach], [b.x + reach, b.y + reach]], top) }
            })
            .collect();
        if let Some((a, b, height, _)) = self.config.nuisances.pipe {
            let pad = 0.02;
            let corners = [[a[0].min(b[0]) - pad, a[1].min(b[1]) - pad], [a[0].max(b[0]) + pad, a[1].max(b[1]) + pad]];
            items.push(Item { body: None, bbox: bbox(cam, &corners, height) });
        }
        items.retain(|it| it.bbox.0 <= it.bbox.1 && it.bbox.2 <= it.bbox.3);
        items
    }

    /// Ray parameter (distance along the ray per unit of depth), colour and "sticker"
    /// of the nearest hit of `item` for the normalized ray `n`, `dt` s after mid-exposure.
    fn hit(&self, item: &Item, cam: &Camera, n: [f64; 2], dt: f64) -> Option<(f64, Rgb, bool)> {
        let c = cam.mount;
        // World ray: C + t (n.x, -n.y, -1); t is the depth below the optical centre.
        let dir = [n[0], -n[1], -1.0];
        let Some(bi) = item.body else {
            let (a, b, height, width) = self.config.nuisances.pipe?;
            let t = c[2] - height;
            let p = [c[0] + dir[0] * t, c[1] + dir[1] * t];
            let (ax, ay) = (b[0] - a[0], b[1] - a[1]);
            let len = ax.hypot(ay);
            let along = ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / len;
            let across = ((p[0] - a[0]) * ay - (p[1] - a[1]) * ax) / len;
            return (along >= 0.0 && along <= len && across.abs() <= width / 2.0).then_some((t, PIPE, false));
        };
        let body = &self.bodies[bi];
        let (bx, by) = (body.x + body.vx * dt, body.y + body.vy * dt);
        match body.kind {
            Kind::Ball => {
                let s = [bx, by, BALL_TOP - BALL_RADIUS];
                let oc = [c[0] - s[0], c[1] - s[1], c[2] - s[2]];
                let a = dir[0] * dir[0] + dir[1] * dir[1] + 1.0;
                let bq = 2.0 * (dir[0] * oc[0] + dir[1] * oc[1] + dir[2] * oc[2]);
                let cq = oc[0] * oc[0] + oc[1] * oc[1] + oc[2] * oc[2] - BALL_RADIUS * BALL_RADIUS;
                let disc = bq * bq - 4.0 * a * cq;
                if disc < 0.0 {
                    return None;
                }
                let t = (-bq - disc.sqrt()) / (2.0 * a);
                let p = [c[0] + dir[0] * t, c[1] + dir[1] * t, c[2] + dir[2] * t];
                if p[2] < 0.0 {
                    return None;
                }
                let rho = (p[0] - s[0]).hypot(p[1] - s[1]);
                let sticker = rho <= BALL_STICKER_RADIUS && p[2] > s[2];
                Some((t, if sticker { STICKER } else { ORANGE }, sticker))
            }
            Kind::Lily => {
                let t = c[2] - LILY_TOP;
                let (px, py) = (c[0] + dir[0] * t - bx, c[1] + dir[1] * t - by);
                let heading = body.heading + body.omega * dt;
                let (hc, hs) = (heading.cos(), heading.sin());
                let (lx, ly) = (px * hc + py * hs, -px * hs + py * hc);
                if lx.abs() > LILY_HALF_SIDE || ly.abs() > LILY_HALF_SIDE {
                    return None;
                }
                if (lx - LILY_DOT.0).hypot(ly) <= LILY_DOT.1 {
                    return Some((t, DOT, false));
                }
                let sticker = lx.hypot(ly) <= LILY_STICKER_RADIUS;
                Some((t, if sticker { STICKER } else { LILY_GREY }, sticker))
            }
        }
    }
}

const SUBSAMPLES: usize = 3;

struct Item {
    body: Option<usize>,
    /// u0, u1, v0, v1 inclusive, px.
    bbox: (usize, usize, usize, usize),
}

fn overlaps(a: &(usize, usize, usize, usize), b: &(usize, usize, usize, usize)) -> bool {
    a.0 <= b.1 && b.0 <= a.1 && a.2 <= b.3 && b.2 <= a.3
}

fn bbox(cam: &Camera, corners: &[[f64; 2]; 2], height: f64) -> (usize, usize, usize, usize) {
    let [lo, hi] = *corners;
    let mut us = Vec::new();
    let mut vs = Vec::new();
    for s in 0..=8 {
        let f = f64::from(s) / 8.0;
        for (x, y) in [
            (lo[0] + f * (hi[0] - lo[0]), lo[1]),
            (lo[0] + f * (hi[0] - lo[0]), hi[1]),
            (lo[0], lo[1] + f * (hi[1] - lo[1])),
            (hi[0], lo[1] + f * (hi[1] - lo[1])),
        ] {
            for z in [0.0, height] {
                let (u, v) = cam.project(x, y, z);
                us.push(u);
                vs.push(v);
            }
        }
    }
    let clampu = |x: f64| x.clamp(0.0, f64::from(cam.width) - 1.0) as usize;
    let clampv = |x: f64| x.clamp(0.0, f64::from(cam.height) - 1.0) as usize;
    let (u0, u1) = (us.iter().cloned().fold(f64::INFINITY, f64::min) - 2.0, us.iter().cloned().fold(f64::NEG_INFINITY, f64::max) + 2.0);
    let (v0, v1) = (vs.iter().cloned().fold(f64::INFINITY, f64::min) - 2.0, vs.iter().cloned().fold(f64::NEG_INFINITY, f64::max) + 2.0);
    if u1 < 0.0 || v1 < 0.0 || u0 > f64::from(cam.width) - 1.0 || v0 > f64::from(cam.height) - 1.0 {
        return (1, 0, 1, 0);
    }
    (clampu(u0), clampu(u1), clampv(v0), clampv(v1))
}

/// The empty arena: water inside the tank, a rim ring, the floor beyond (4x4 supersampled).
fn render_background(config: &SceneConfig) -> Vec<Rgb> {
    let cam = &config.camera;
    let (w, h) = (cam.width as usize, cam.height as usize);
    let rim_top = 0.07; // the rim stands above the water
    let mut out = vec![[0.0; 3]; w * h];
    for v in 0..h {
        for u in 0..w {
            let (centre, jac) = cam.ray(u as f64, v as f64);
            let mut sum = [0.0; 3];
            for s in 0..16 {
                let (a, b) = (((s % 4) as f64 + 0.5) / 4.0 - 0.5, ((s / 4) as f64 + 0.5) / 4.0 - 0.5);
                let n = [centre[0] + jac[0][0] * a + jac[0][1] * b, centre[1] + jac[1][0] * a + jac[1][1] * b];
                let at = |z: f64| {
                    let t = cam.mount[2] - z;
                    (cam.mount[0] + n[0] * t, cam.mount[1] - n[1] * t)
                };
                let (rx, ry) = at(rim_top);
                let r_rim = rx.hypot(ry);
                let (wx, wy) = at(0.0);
                let colour = if r_rim >= config.tank_radius && r_rim <= config.tank_radius + 0.012 {
                    RIM
                } else if wx.hypot(wy) < config.tank_radius {
                    WATER
                } else {
                    FLOOR
                };
                for c in 0..3 {
                    sum[c] += colour[c] / 16.0;
                }
            }
            out[v * w + u] = sum;
        }
    }
    out
}

/// Where the lamp's mirror image appears on the water for this camera.
fn reflection_point(cam: &Camera, lamp: [f64; 3]) -> (f64, f64) {
    // Mirror the lamp in the water plane; the reflection is where the line from the camera
    // to the mirrored lamp crosses z = 0.
    let t = cam.mount[2] / (cam.mount[2] + lamp[2]);
    (cam.mount[0] + (lamp[0] - cam.mount[0]) * t, cam.mount[1] + (lamp[1] - cam.mount[1]) * t)
}

/// Adds `profile(distance in px)` around (u, v) within `reach` px, skipping pixels in `mask`.
fn splat(radiance: &mut [Rgb], mask: &[bool], (w, h): (usize, usize), (u, v, reach): (f64, f64, f64), profile: impl Fn(f64) -> f64) {
    let (u0, u1) = ((u - reach).floor().max(0.0) as usize, ((u + reach).ceil().max(0.0) as usize).min(w - 1));
    let (v0, v1) = ((v - reach).floor().max(0.0) as usize, ((v + reach).ceil().max(0.0) as usize).min(h - 1));
    for y in v0..=v1 {
        for x in u0..=u1 {
            if mask.get(y * w + x).copied().unwrap_or(false) {
                continue;
            }
            let d = (x as f64 - u).hypot(y as f64 - v);
            if d <= reach {
                let add = profile(d);
                for c in &mut radiance[y * w + x] {
                    *c += add;
                }
            }
        }
    }
}

fn gaussian_blur(src: &[Rgb], w: usize, h: usize, sigma: f64) -> Vec<Rgb> {
    if sigma <= 0.0 {
        return src.to_vec();
    }
    let r = (3.0 * sigma).ceil() as isize;
    let kernel: Vec<f64> = (-r..=r).map(|i| (-0.5 * (i as f64 / sigma).powi(2)).exp()).collect();
    let norm: f64 = kernel.iter().sum();
    let mut tmp = vec![[0.0; 3]; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut acc = [0.0; 3];
            for (k, wt) in kernel.iter().enumerate() {
                let xx = (x as isize + k as isize - r).clamp(0, w as isize - 1) as usize;
                for c in 0..3 {
                    acc[c] += wt * src[y * w + xx][c];
                }
            }
            tmp[y * w + x] = [acc[0] / norm, acc[1] / norm, acc[2] / norm];
        }
    }
    let mut out = vec![[0.0; 3]; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut acc = [0.0; 3];
            for (k, wt) in kernel.iter().enumerate() {
                let yy = (y as isize + k as isize - r).clamp(0, h as isize - 1) as usize;
                for c in 0..3 {
                    acc[c] += wt * tmp[yy * w + x][c];
                }
            }
            out[y * w + x] = [acc[0] / norm, acc[1] / norm, acc[2] / norm];
        }
    }
    out
}

fn poisson(rng: &mut ChaCha8Rng, mean: f64) -> usize {
    let limit = (-mean).exp();
    let (mut k, mut p) = (0, 1.0);
    loop {
        p *= rng.gen::<f64>();
        if p <= limit {
            return k;
        }
        k += 1;
    }
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    [v[0] / n, v[1] / n, v[2] / n]
}

pub fn wrap(a: f64) -> f64 {
    (a + PI).rem_euclid(TAU) - PI
}
