//! A self-assembly scene from a black-and-white image: the shape (dark pixels, origin at
//! the image's lower-left corner, `scale` world units per pixel), four seeds centred on that corner
//! and the other robots packed on a hexagonal lattice to the lower left, all farther than
//! `clearance` (3r) from the shape.

use flotilla_firmware::kilobot::{Shape, ShapeError};
use std::path::Path;
use tank_physics::systems::kilobot::Bounds;

/// Seeds' positions, world units: the study's four touching robots in a rhombus centred on
/// the shape's lower-left corner (its code's `(-0.5, 0)`, `(0.5, 0)`, `(0, -0.866)`,
/// `(0, 0.866)`), the first the gradient source: two sit on the shape's bottom and left
/// edges, two outside it, so the seeds take no place the other robots would fill.
pub const SEEDS: [[f64; 2]; 4] = [[-0.5, 0.0], [0.5, 0.0], [0.0, -0.866_025_403_784_438_6], [0.0, 0.866_025_403_784_438_6]];

/// A robot's diameter, world units: no two robots start closer.
const BODY: f64 = 1.0;

/// Most robots a run may have (robot ids are 16 bits).
pub const MAX_ROBOTS: usize = u16::MAX as usize;

/// Why a scene cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// The image cannot be read.
    #[error("shape image {path}: {message}")]
    Image {
        /// The file.
        path: String,
        /// The decoder's message.
        message: String,
    },
    /// A pixel is neither black nor white.
    #[error("shape image {path}: pixel ({x}, {y}) (from the top-left) is {what}, not black or white; give a black-and-white image")]
    NotBlackAndWhite {
        /// The file.
        path: String,
        /// Column.
        x: u32,
        /// Row from the top.
        y: u32,
        /// Its colour.
        what: String,
    },
    /// The bitmap is not a shape.
    #[error("shape image {path}: {source}")]
    Shape {
        /// The file.
        path: String,
        /// Why.
        source: ShapeError,
    },
    /// A seed meant to sit on the shape's edge is not on a dark pixel.
    #[error("the seeds sit centred on the image's lower-left corner, but seed {index} at ({x:.3}, {y:.3}) world units is not on the shape; the shape must cover its lower-left corner at least {need:.2} x {need_y:.2} world units")]
    SeedsOffShape {
        /// Seed index.
        index: usize,
        /// x, world units.
        x: f64,
        /// y, world units.
        y: f64,
        /// Width the corner must cover, world units.
        need: f64,
        /// Height the corner must cover, world units.
        need_y: f64,
    },
    /// Filling the shape takes more robots than there are robot ids.
    #[error("filling the shape ({area:.4e} world units^2 at desired distance {desired_distance}) takes about {robots:.4e} robots, more than the {limit} robot ids allow: give a robot count, a smaller scale or a smaller image")]
    FillTooMany {
        /// The shape's area, world units^2.
        area: f64,
        /// DESIRED_DISTANCE, world units.
        desired_distance: f64,
        /// Robots it would take.
        robots: f64,
        /// Most non-seed robots.
        limit: usize,
    },
    /// A part of the shape is not joined to the seeds' corner.
    #[error("pixel ({x}, {y}) (from the top-left) is dark but not joined to the seeds' corner through dark pixels sharing an edge: the robots grow the shape from the seeds by following its edge and cannot reach a separate part")]
    Disconnected {
        /// Column.
        x: usize,
        /// Row from the top.
        y: usize,
    },
    /// More robots than the table holds.
    #[error("{robots} robots do not fit: {reason}")]
    TooMany {
        /// Robots asked for.
        robots: usize,
        /// Why.
        reason: String,
    },
}

/// A mid-grey pixel is part of an edge when a black and a white pixel lie within this
/// many pixels of it (Chebyshev distance): the width of anti-aliasing and of JPEG ringing.
const EDGE_REACH: u32 = 2;

/// Reads a black-and-white image as a shape: dark pixels (luma < 128) are the shape. A
/// pixel with colour (channels differing by more than 48) is an error naming it; so is a
/// mid-grey one (luma 64..192) unless it lies on an edge between black and white (a black
/// and a white pixel within [`EDGE_REACH`]), as anti-aliased drawings and JPEG files have
/// them: those are taken by their luma. Transparent pixels count as white.
pub fn shape_from_image(path: &Path, scale: f64) -> Result<Shape, LayoutError> {
    let name = path.display().to_string();
    let image_error = |message: String| LayoutError::Image { path: name.clone(), message };
    // The format from the file's first bytes, not its name: a PNG saved as `shape.jpg` or
    // without an extension was refused.
    let image = image::ImageReader::open(path)
        .map_err(|e| image_error(e.to_string()))?
        .with_guessed_format()
        .map_err(|e| image_error(e.to_string()))?
        .decode()
        .map_err(|e| image_error(e.to_string()))?
        .to_rgba8();
    let (w, h) = image.dimensions();
    // Luma per pixel, row by row from the top (transparent: white).
    let mut luma = vec![255i32; (w as usize) * (h as usize)];
    for (x, y, p) in image.enumerate_pixels() {
        let [r, g, b, a] = p.0.map(i32::from);
        if a < 128 {
            continue;
        }
        if r.max(g).max(b) - r.min(g).min(b) > 48 {
            return Err(LayoutError::NotBlackAndWhite { path: name, x, y, what: format!("colour ({r}, {g}, {b})") });
        }
        luma[(y * w + x) as usize] = (299 * r + 587 * g + 114 * b) / 1000;
    }
    let grey = |l: i32| (64..192).contains(&l);
    let on_edge = |x: u32, y: u32| {
        let (mut dark, mut light) = (false, false);
        for v in y.saturating_sub(EDGE_REACH)..(y + EDGE_REACH + 1).min(h) {
            for u in x.saturating_sub(EDGE_REACH)..(x + EDGE_REACH + 1).min(w) {
                let l = luma[(v * w + u) as usize];
                dark |= l < 64;
                light |= l >= 192;
            }
        }
        dark && light
    };
    let mut inside = vec![false; (w as usize) * (h as usize)];
    for y in 0..h {
        for x in 0..w {
            let l = luma[(y * w + x) as usize];
            if grey(l) && !on_edge(x, y) {
                return Err(LayoutError::NotBlackAndWhite { path: name, x, y, what: format!("grey {l} away from any black-white edge") });
            }
            inside[((h - 1 - y) * w + x) as usize] = l < 128;
        }
    }
    Shape::new(w as usize, h as usize, scale, inside).map_err(|source| LayoutError::Shape { path: name, source })
}

/// Where everything starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Seeds (index 0 is the source), world units.
    pub seeds: Vec<[f64; 2]>,
    /// The other robots, world units.
    pub robots: Vec<[f64; 2]>,
}

/// Where the pack stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arrangement {
    /// On a lattice of `spacing` in the quadrant to the lower left of the seeds, the corner
    /// robot between the clearance and G from the source.
    #[default]
    Corner,
    /// As the study's code lays out its rectangle runs (its `get_agents_coordinates` with
    /// `get_hexa_coord`): the seeds' own lattice continued below them, robots touching
    /// (lattice `spacing`, 1 in the study) in rows that widen downwards, filled ring by ring
    /// around the source seed; the first robots touch the lowest seed.
    Study,
}

impl std::str::FromStr for Arrangement {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "corner" => Ok(Arrangement::Corner),
            "study" => Ok(Arrangement::Study),
            other => Err(format!("`{other}` is not a pack arrangement (corner, study)")),
        }
    }
}

/// Which way the robots face at the start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Headings {
    /// Drawn uniformly from the run's seed (robots put down by hand).
    #[default]
    Random,
    /// All along +y, as the study's robots start (its `Orientation.N`; with 45-degree
    /// turns they keep to its eight compass headings).
    North,
}

impl std::str::FromStr for Headings {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "random" => Ok(Headings::Random),
            "north" => Ok(Headings::North),
            other => Err(format!("`{other}` is not a start heading rule (random, north)")),
        }
    }
}

/// How the pack is laid out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PackSpec {
    /// Non-seed robots.
    pub robots: usize,
    /// Where the pack stands.
    pub arrangement: Arrangement,
    /// Which way the robots face at the start.
    pub headings: Headings,
    /// Lattice spacing, world units (1: touching).
    pub spacing: f64,
    /// Least distance from any pack robot to the shape, world units (3r = 1.5).
    pub clearance: f64,
    /// Gradient distance G of the firmware: the pack's corner robot must be closer than it
    /// to the source seed to receive the gradient, world units.
    pub gradient_distance: f64,
    /// The table's walls, if any.
    pub bounds: Option<Bounds>,
}

/// Non-seed robots that fill `shape` at hexagonal spacing `desired_distance`, less the seeds
/// (at least one); an error when that is more than the robot ids allow (a large scale once
/// gave 18446744073709551611, the saturated cast of the count).
pub fn robots_for_area(shape: &Shape, desired_distance: f64) -> Result<usize, LayoutError> {
    let per_robot = 3f64.sqrt() / 2.0 * desired_distance * desired_distance;
    let robots = (shape.area() / per_robot).round() - SEEDS.len() as f64;
    let limit = MAX_ROBOTS - SEEDS.len();
    if robots.is_nan() || robots > limit as f64 {
        return Err(LayoutError::FillTooMany { area: shape.area(), desired_distance, robots, limit });
    }
    Ok((robots.max(1.0)) as usize)
}

/// The first dark pixel (column, row from the bottom) not joined to pixel (0, 0) through
/// dark pixels sharing an edge, if any.
fn separate_part(shape: &Shape) -> Option<(usize, usize)> {
    let (w, h) = (shape.width(), shape.height());
    let mut reached = vec![false; w * h];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    if shape.pixel(0, 0) {
        reached[0] = true;
        stack.push((0, 0));
    }
    while let Some((c, r)) = stack.pop() {
        let next = [(c.wrapping_sub(1), r), (c + 1, r), (c, r.wrapping_sub(1)), (c, r + 1)];
        for (nc, nr) in next {
            if shape.pixel(nc, nr) && !reached[nr * w + nc] {
                reached[nr * w + nc] = true;
                stack.push((nc, nr));
            }
        }
    }
    (0..h).flat_map(|r| (0..w).map(move |c| (c, r))).find(|&(c, r)| shape.pixel(c, r) && !reached[r * w + c])
}

/// The seeds at the corner (checked against the shape) and the pack: the `robots` lattice
/// points nearest the pack's corner in the quadrant to the lower left of it. The corner sits
/// on the diagonal below-left of the source seed, between the clearance and G (when G is not
/// above 3r the clearance is lowered to 97 % of G, so the gradient can reach the pack).
pub fn layout(shape: &Shape, pack: &PackSpec) -> Result<Layout, LayoutError> {
    let seed_w = SEEDS.iter().map(|s| s[0]).fold(0.0, f64::max);
    let seed_h = SEEDS.iter().map(|s| s[1]).fold(0.0, f64::max);
    // The seeds at negative coordinates lie outside the image by design.
    for (index, s) in SEEDS.iter().enumerate() {
        if s[0] >= 0.0 && s[1] >= 0.0 && !shape.contains(s[0], s[1]) {
            return Err(LayoutError::SeedsOffShape { index, x: s[0], y: s[1], need: seed_w + 0.01, need_y: seed_h + 0.01 });
        }
    }
    if let Some((column, row)) = separate_part(shape) {
        return Err(LayoutError::Disconnected { x: column, y: shape.height() - 1 - row });
    }
    if pack.robots > MAX_ROBOTS - SEEDS.len() {
        return Err(LayoutError::TooMany {
            robots: pack.robots,
            reason: format!("robot ids are 16 bits: at most {}", MAX_ROBOTS - SEEDS.len()),
        });
    }
    if pack.arrangement == Arrangement::Study {
        return study_pack(pack).map(|robots| Layout { seeds: SEEDS.to_vec(), robots });
    }
    let clearance = pack.clearance.min(0.97 * pack.gradient_distance);
    let corner = (clearance + pack.gradient_distance.min(clearance + 0.25)) / 2.0;
    let diagonal = [-corner / 2f64.sqrt(), -corner / 2f64.sqrt()];
    let clear_of_seeds = |p: [f64; 2]| SEEDS.iter().all(|s| (p[0] - s[0]).hypot(p[1] - s[1]) >= BODY);
    // With a small G the corner on the diagonal comes within a body of the seeds below and
    // left of the corner; then the pack's corner stands beside the source instead, between
    // a body and G from it, down and to the left (clear of the shape and the other seeds).
    let anchor = if clear_of_seeds(diagonal) {
        diagonal
    } else {
        let r = (BODY + pack.gradient_distance) / 2.0;
        let (c, s) = (210f64.to_radians().cos(), 210f64.to_radians().sin());
        [SEEDS[0][0] + r * c, SEEDS[0][1] + r * s]
    };
    let (e1, e2) = ([pack.spacing, 0.0], [pack.spacing / 2.0, pack.spacing * 3f64.sqrt() / 2.0]);
    let reach = (2.0 * (pack.robots as f64).sqrt() + 4.0).ceil() as i64;
    let mut candidates = Vec::new();
    for j in -2 * reach..=0 {
        for i in -2 * reach..=2 * reach {
            let p = [anchor[0] + i as f64 * e1[0] + j as f64 * e2[0], anchor[1] + j as f64 * e2[1]];
            if p[0] > anchor[0] + 1e-9 || !clear_of_seeds(p) {
                continue;
            }
            let inside_walls = pack
                .bounds
                .is_none_or(|b| p[0] >= b.min[0] + 0.5 && p[0] <= b.max[0] - 0.5 && p[1] >= b.min[1] + 0.5 && p[1] <= b.max[1] - 0.5);
            if inside_walls {
                candidates.push(p);
            }
        }
    }
    if candidates.len() < pack.robots {
        return Err(LayoutError::TooMany {
            robots: pack.robots,
            reason: format!(
                "the table holds {} robots in the pack (lower left of the seeds, farther than {clearance:.2} from the shape)",
                candidates.len()
            ),
        });
    }
    let d2 = |p: &[f64; 2]| (p[0] - anchor[0]).powi(2) + (p[1] - anchor[1]).powi(2);
    candidates.sort_by(|a, b| d2(a).total_cmp(&d2(b)).then(a[1].total_cmp(&b[1])).then(a[0].total_cmp(&b[0])));
    candidates.truncate(pack.robots);
    Ok(Layout { seeds: SEEDS.to_vec(), robots: candidates })
}

/// The pack of [`Arrangement::Study`]. On the seeds' lattice (cube coordinates (j, k, l),
/// j + k + l = 0, the source seed at the origin, a step of `spacing` along j to the right
/// and along l down and to the right), the lattice points of rows l >= 2 below the seeds
/// with k <= -1 (rows widen to the left by half a step per row), the second row only left
/// of the source's column (j < 1), taken ring by ring around the source (then by j, then
/// by k): the study's order. Every point is at least 2 x 0.866 x `spacing` below the
/// shape's bottom edge.
fn study_pack(pack: &PackSpec) -> Result<Vec<[f64; 2]>, LayoutError> {
    let source = SEEDS[0];
    let down = 3f64.sqrt() / 2.0;
    let at = |j: i64, l: i64| [source[0] + pack.spacing * (j as f64 + 0.5 * l as f64), source[1] - pack.spacing * down * l as f64];
    let inside_walls = |p: [f64; 2]| {
        pack.bounds.is_none_or(|b| p[0] >= b.min[0] + 0.5 && p[0] <= b.max[0] - 0.5 && p[1] >= b.min[1] + 0.5 && p[1] <= b.max[1] - 0.5)
    };
    // The first robot must hear the gradient: it stands `spacing` from the lowest seed, or
    // farther when the spacing is wider than the seeds' own.
    let first = at(-1, 2);
    let nearest_seed = SEEDS.iter().map(|s| (first[0] - s[0]).hypot(first[1] - s[1])).fold(f64::INFINITY, f64::min);
    if nearest_seed >= pack.gradient_distance {
        return Err(LayoutError::TooMany {
            robots: pack.robots,
            reason: format!(
                "in the study's arrangement at spacing {} the first robot stands {nearest_seed:.3} from the nearest seed, not closer than G = {}: the gradient would not reach the pack (give a spacing near 1)",
                pack.spacing, pack.gradient_distance
            ),
        });
    }
    let mut robots = Vec::with_capacity(pack.robots);
    // Ring i holds at most 6 i points; a ring that adds nothing inside the walls after the
    // pack's rows have started means the table is full.
    let mut ring = 2_i64;
    let mut empty_rings = 0;
    while robots.len() < pack.robots {
        let before = robots.len();
        for j in -ring..=ring {
            for k in -ring..=-1 {
                let l = -j - k;
                let counts = l >= 3 || (l >= 2 && j < 1);
                if counts && l.abs() <= ring && j.abs() + k.abs() + l.abs() == 2 * ring {
                    let p = at(j, l);
                    if inside_walls(p) && robots.len() < pack.robots {
                        robots.push(p);
                    }
                }
            }
        }
        empty_rings = if robots.len() == before { empty_rings + 1 } else { 0 };
        if empty_rings > 2 {
            return Err(LayoutError::TooMany {
                robots: pack.robots,
                reason: format!("the table holds {} robots in the study's arrangement (below the seeds)", robots.len()),
            });
        }
        ring += 1;
    }
    Ok(robots)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(robots: usize) -> PackSpec {
        PackSpec {
            robots,
            arrangement: Arrangement::Corner,
            headings: Headings::Random,
            spacing: 1.0,
            clearance: 1.5,
            gradient_distance: 1.715,
            bounds: None,
        }
    }

    fn write_png(dir: &Path, name: &str, w: u32, h: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) -> std::path::PathBuf {
        let image = image::RgbImage::from_fn(w, h, |x, y| image::Rgb(pixel(x, y)));
        let path = dir.join(name);
        image.save(&path).unwrap();
        path
    }

    #[test]
    fn images_become_shapes_with_the_origin_at_the_lower_left() {
        let dir = tempfile::tempdir().unwrap();
        // Dark bottom half.
        let path = write_png(dir.path(), "half.png", 4, 4, |_, y| if y >= 2 { [0; 3] } else { [255; 3] });
        let shape = shape_from_image(&path, 0.5).unwrap();
        assert!(shape.contains(0.1, 0.1) && shape.contains(1.9, 0.9) && !shape.contains(0.1, 1.1));
        assert_eq!(shape.area(), 2.0);
    }

    /// An anti-aliased drawing (grey pixels along the edge between black and white) and a
    /// JPEG file (compression ringing) give the shape the crisp image gives, within the
    /// edge's pixels.
    #[test]
    fn anti_aliased_and_jpeg_shapes_are_read_by_their_edge_pixels_luma() {
        let dir = tempfile::tempdir().unwrap();
        // A dark disc of radius 10 px in 32 x 32, crisp and with its edge pixels' coverage as grey.
        let coverage = |x: u32, y: u32| {
            let d = ((f64::from(x) + 0.5 - 16.0).powi(2) + (f64::from(y) + 0.5 - 16.0).powi(2)).sqrt();
            (10.5 - d).clamp(0.0, 1.0)
        };
        let crisp = write_png(dir.path(), "crisp.png", 32, 32, |x, y| if coverage(x, y) >= 0.5 { [0; 3] } else { [255; 3] });
        let smooth = write_png(dir.path(), "smooth.png", 32, 32, |x, y| [(255.0 * (1.0 - coverage(x, y))).round() as u8; 3]);
        let jpeg = dir.path().join("disc.jpg");
        image::open(&crisp).unwrap().to_rgb8().save(&jpeg).unwrap();
        let reference = shape_from_image(&crisp, 1.0).unwrap().area();
        for path in [&smooth, &jpeg] {
            let area = shape_from_image(path, 1.0).unwrap_or_else(|e| panic!("{e}")).area();
            assert!((area - reference).abs() <= 0.1 * reference, "{}: area {area} vs {reference}", path.display());
        }
    }

    /// Regression: the format was taken from the file name, so a PNG named `.jpg` or without
    /// an extension was refused.
    #[test]
    fn the_format_comes_from_the_contents_not_the_name() {
        let dir = tempfile::tempdir().unwrap();
        let png = write_png(dir.path(), "half.png", 4, 4, |_, y| if y >= 2 { [0; 3] } else { [255; 3] });
        for other in ["half.jpg", "half"] {
            let renamed = dir.path().join(other);
            std::fs::copy(&png, &renamed).unwrap();
            let shape = shape_from_image(&renamed, 0.5).unwrap_or_else(|e| panic!("{other}: {e}"));
            assert_eq!(shape.area(), 2.0, "{other}");
        }
        let text = dir.path().join("notes.png");
        std::fs::write(&text, "not an image").unwrap();
        let e = shape_from_image(&text, 1.0).unwrap_err().to_string();
        assert!(e.contains("notes.png"), "{e}");
    }

    #[test]
    fn bad_images_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let grey = write_png(dir.path(), "grey.png", 3, 3, |x, _| if x == 2 { [128; 3] } else { [0; 3] });
        let e = shape_from_image(&grey, 1.0).unwrap_err().to_string();
        assert!(e.contains("grey.png") && e.contains("pixel (2, 0)") && e.contains("grey 128") && e.contains("black-and-white"), "{e}");
        // A grey band between black and white wider than an anti-aliased edge is refused.
        let band = write_png(dir.path(), "band.png", 9, 3, |x, _| match x {
            0 => [0; 3],
            8 => [255; 3],
            _ => [128; 3],
        });
        let e = shape_from_image(&band, 1.0).unwrap_err().to_string();
        assert!(e.contains("pixel (1, 0)") && e.contains("grey 128 away from any black-white edge"), "{e}");
        let red = write_png(dir.path(), "red.png", 2, 2, |_, _| [255, 0, 0]);
        assert!(shape_from_image(&red, 1.0).unwrap_err().to_string().contains("colour (255, 0, 0)"));
        let white = write_png(dir.path(), "white.png", 2, 2, |_, _| [255; 3]);
        assert!(shape_from_image(&white, 1.0).unwrap_err().to_string().contains("no dark pixel"));
        let black = write_png(dir.path(), "black.png", 2, 2, |_, _| [0; 3]);
        assert!(shape_from_image(&black, 0.0).unwrap_err().to_string().contains("scale 0"));
        let e = shape_from_image(&dir.path().join("missing.png"), 1.0).unwrap_err().to_string();
        assert!(e.contains("missing.png"), "{e}");
    }

    #[test]
    fn seeds_must_be_on_the_shape_and_robots_must_fit() {
        // Dark only at the top right: the seeds' corner is white.
        let shape = Shape::new(4, 4, 1.0, (0..16).map(|i| i % 4 >= 2 && i / 4 >= 2).collect()).unwrap();
        let e = layout(&shape, &spec(10)).unwrap_err().to_string();
        assert!(e.contains("seed 1") && e.contains("not on the shape"), "{e}");
        let rect = Shape::rectangle(10.0, 5.0, 0.05).unwrap();
        let walls = Bounds { min: [-6.0, -6.0], max: [12.0, 12.0] };
        let e = layout(&rect, &PackSpec { bounds: Some(walls), ..spec(200) }).unwrap_err().to_string();
        assert!(e.contains("200 robots do not fit") && e.contains("the table holds"), "{e}");
        assert!(layout(&rect, &spec(70_000)).unwrap_err().to_string().contains("16 bits"));
    }

    /// A shape in two parts ran to --max-steps with the far part never reachable; a
    /// scale that made the fill count overflow was reported as 18446744073709551611
    /// robots. A hole is fine: it is part of the shape's edge.
    #[test]
    fn separate_parts_and_fills_beyond_the_robot_ids_are_refused() {
        // Two 4 x 4 squares side by side with a column of white between them.
        let two = Shape::new(9, 4, 1.0, (0..36).map(|i| i % 9 != 4).collect()).unwrap();
        let e = layout(&two, &spec(5)).unwrap_err().to_string();
        assert!(e.starts_with("pixel (5, 3) (from the top-left) is dark but not joined to the seeds' corner"), "{e}");
        // Joined only at a corner: still two parts.
        let diagonal = Shape::new(4, 4, 1.0, (0..16).map(|i| (i % 4 < 2) == (i / 4 < 2)).collect()).unwrap();
        assert!(layout(&diagonal, &spec(5)).unwrap_err().to_string().contains("pixel (2, 1)"));
        let ring = Shape::new(9, 9, 1.0, (0..81).map(|i| !((3..6).contains(&(i % 9)) && (3..6).contains(&(i / 9)))).collect()).unwrap();
        assert!(layout(&ring, &spec(5)).is_ok(), "a shape with a hole");
        let huge = Shape::new(200, 100, 1e9, vec![true; 200 * 100]).unwrap();
        let e = robots_for_area(&huge, 1.615).unwrap_err().to_string();
        assert!(e.contains("takes about") && e.contains("more than the 65531 robot ids allow"), "{e}");
        assert!(robots_for_area(&Shape::rectangle(10.0, 5.0, 0.05).unwrap(), 1e-9).unwrap_err().to_string().contains("robot ids"));
    }

    #[test]
    fn the_pack_is_a_touching_hexagonal_lattice_clear_of_the_shape_and_reached_by_the_gradient() {
        let rect = Shape::rectangle(10.0, 5.0, 0.05).unwrap();
        let scene = layout(&rect, &spec(25)).unwrap();
        assert_eq!(scene.robots.len(), 25);
        let from_source = |p: &[f64; 2]| (p[0] - SEEDS[0][0]).hypot(p[1] - SEEDS[0][1]);
        let nearest = scene.robots.iter().map(from_source).fold(f64::INFINITY, f64::min);
        assert!((1.0..1.715).contains(&nearest), "{nearest}");
        for (i, p) in scene.robots.iter().enumerate() {
            assert!(p[0] < 0.0 && p[1] < 0.0 && p[0].hypot(p[1]) > 1.5, "robot {i} at {p:?} is within 3r of the shape");
            let closest = scene
                .robots
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, q)| (p[0] - q[0]).hypot(p[1] - q[1]))
                .fold(f64::INFINITY, f64::min);
            assert!((closest - 1.0).abs() < 1e-9, "robot {i}: nearest neighbour at {closest}");
        }
        assert_eq!(robots_for_area(&rect, 1.615).unwrap(), 18);
    }

    /// Regression (2026-11-30): with the seeds' rhombus and G = 1.1 the pack's corner robot
    /// stood 0.83 from a seed, overlapping it; no robot ever started.
    #[test]
    fn with_a_small_g_the_pack_clears_the_seeds_and_still_hears_the_gradient() {
        let rect = Shape::rectangle(10.0, 5.0, 0.05).unwrap();
        for g in [1.05, 1.1, 1.2, 1.5, 1.715] {
            let scene = layout(&rect, &PackSpec { spacing: 1.0, gradient_distance: g, ..spec(25) }).unwrap();
            let closest = |p: &[f64; 2]| SEEDS.iter().map(|s| (p[0] - s[0]).hypot(p[1] - s[1])).fold(f64::INFINITY, f64::min);
            for p in &scene.robots {
                assert!(closest(p) >= 1.0 - 1e-9, "G {g}: robot at {p:?} overlaps a seed");
                assert!(p[0] < 0.0 && p[1] < 0.0, "G {g}: robot at {p:?} on the shape's side");
            }
            let source = scene.robots.iter().map(|p| (p[0] - SEEDS[0][0]).hypot(p[1] - SEEDS[0][1])).fold(f64::INFINITY, f64::min);
            assert!(source < g, "G {g}: the nearest robot is {source} from the source");
        }
    }

    /// The study's arrangement continues the seeds' unit lattice below them in its code's
    /// order (its first rectangle robots, computed from its `get_hexa_coord`), robots
    /// touching, the first touching the lowest seed, all clear of the shape.
    #[test]
    fn the_study_arrangement_continues_the_seeds_lattice_below_them_in_its_order() {
        let rect = Shape::rectangle(10.0, 5.0, 0.05).unwrap();
        let study = PackSpec { arrangement: Arrangement::Study, ..spec(25) };
        let scene = layout(&rect, &study).unwrap();
        let h = 3f64.sqrt() / 2.0;
        let first: [[f64; 2]; 10] = [
            [-0.5, -2.0 * h],
            [0.5, -2.0 * h],
            [-1.0, -3.0 * h],
            [0.0, -3.0 * h],
            [1.0, -3.0 * h],
            [-1.5, -4.0 * h],
            [-0.5, -4.0 * h],
            [0.5, -4.0 * h],
            [1.5, -4.0 * h],
            [2.0, -3.0 * h],
        ];
        for (i, want) in first.iter().enumerate() {
            let got = scene.robots[i];
            assert!((got[0] - want[0]).abs() < 1e-9 && (got[1] - want[1]).abs() < 1e-9, "robot {i}: {got:?}, not {want:?}");
        }
        assert!(((scene.robots[0][0] - SEEDS[2][0]).hypot(scene.robots[0][1] - SEEDS[2][1]) - 1.0).abs() < 1e-9);
        let all: Vec<[f64; 2]> = SEEDS.iter().chain(&scene.robots).copied().collect();
        for (i, p) in all.iter().enumerate() {
            let closest = all
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, q)| (p[0] - q[0]).hypot(p[1] - q[1]))
                .fold(f64::INFINITY, f64::min);
            assert!(closest >= 1.0 - 1e-9, "{i} at {p:?} overlaps");
            if i >= SEEDS.len() {
                assert!(p[1] <= -2.0 * h + 1e-9, "robot {i} at {p:?} is within 3r of the shape");
            }
        }
        // 1024 robots: distinct points, still below the seeds.
        let big = layout(&rect, &PackSpec { robots: 1024, ..study }).unwrap();
        let mut keys: Vec<(i64, i64)> = big.robots.iter().map(|p| ((p[0] * 1e6).round() as i64, (p[1] * 1e6).round() as i64)).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 1024);
    }

    #[test]
    fn a_study_pack_the_gradient_cannot_reach_or_the_table_cannot_hold_is_refused() {
        let rect = Shape::rectangle(10.0, 5.0, 0.05).unwrap();
        let study = PackSpec { arrangement: Arrangement::Study, ..spec(25) };
        let e = layout(&rect, &PackSpec { spacing: 1.615, ..study }).unwrap_err().to_string();
        assert!(e.contains("study's arrangement at spacing 1.615") && e.contains("G = 1.715"), "{e}");
        let walls = Bounds { min: [-4.0, -5.0], max: [3.0, 12.0] };
        let e = layout(&rect, &PackSpec { bounds: Some(walls), ..study }).unwrap_err().to_string();
        assert!(e.contains("25 robots do not fit") && e.contains("the table holds"), "{e}");
    }
}
