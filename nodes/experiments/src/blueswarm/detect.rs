//! `blueswarm detect`: the Bluebot's neighbour pipeline on camera images from outside the
//! simulation (a real Bluebot's, another renderer's). Each image is brought to the camera's
//! 256 x 192 (a larger 4:3 image is scaled down, as the Bluebot scales its camera's), then
//! the rendered fidelity's own steps run on it: threshold of the blue channel, blobs by
//! horizontal and vertical pixel continuity, the red source (grey-level blob > 2 px, red /
//! blue > 1.2 within Chebyshev distance 2), undistortion through the fisheye model, LED
//! pairing, rejection of pairs above the surface for the observer's depth, distance from
//! the 86 mm LED spacing. Writes the blobs and the neighbours as CSV, counts in
//! `summary.json` and the images with what was found drawn on them.

use super::pairing;
use crate::experiment::{number, Experiment, ExperimentError, OptionKind, OptionSpec, Options, Outcome, Plot, Progress, Table};
use crate::report::PlotError;
use flotilla_contract::bluebot::{Camera, Neighbour, RED_RATIO};
use image::imageops::FilterType;
use image::RgbImage;
use nalgebra::Vector3;
use plotters::prelude::*;
use serde_json::{json, Map};
use std::path::Path;
use tank_physics::systems::bluebot::vision::pipeline::{process, ImageBlob, PipelineParams};
use tank_physics::systems::bluebot::vision::{CameraModel, Frame, Rendered};

/// The detection experiment.
pub struct Detect;

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "left",
        kind: OptionKind::Path,
        default: "",
        help: "left camera image (PNG, JPEG, BMP, GIF, TIFF, PNM, TGA, WebP, QOI, ICO; 256 x 192, or 4:3 and scaled down)",
    },
    OptionSpec { name: "right", kind: OptionKind::Path, default: "", help: "right camera image (as --left)" },
    OptionSpec {
        name: "depth",
        kind: OptionKind::Positive,
        default: "0.45",
        help: "the observer's depth below the surface, m (LED pairs above the surface are reflections)",
    },
    OptionSpec { name: "threshold", kind: OptionKind::Positive, default: "128", help: "threshold of the binary image, levels (0-255)" },
    OptionSpec {
        name: "pairing",
        kind: OptionKind::Names,
        default: "nearest-elevation",
        help: "LED pairing: nearest-elevation or azimuth-order (the authors' program)",
    },
];

/// Scale of the drawn images (pixels per camera pixel).
const ZOOM: u32 = 3;

/// One camera's image, read and brought to the camera's size.
struct CameraImage {
    camera: Camera,
    /// At the camera model's size.
    image: RgbImage,
    /// The file's own size, pixels.
    original: (u32, u32),
}

/// Reads `path` for `camera` (option `option`): the camera's size as it is, a larger or
/// smaller 4:3 image scaled to it, anything else refused naming the file and its size.
fn read_image(path: &Path, option: &str, camera: Camera, model: &CameraModel) -> Result<CameraImage, ExperimentError> {
    let refuse = |message: String| ExperimentError::Option { option: option.to_owned(), message };
    let decoded = image::open(path).map_err(|e| refuse(format!("{}: {e}", path.display())))?;
    let (width, height) = (decoded.width(), decoded.height());
    let image = if (width, height) == (model.width, model.height) {
        decoded.to_rgb8()
    } else if u64::from(width) * u64::from(model.height) == u64::from(height) * u64::from(model.width) {
        decoded.resize_exact(model.width, model.height, FilterType::Triangle).to_rgb8()
    } else {
        return Err(refuse(format!(
            "{} is {width} x {height} pixels: the Bluebot's camera gives {} x {} (or a {}:{} image to scale down to it)",
            path.display(),
            model.width,
            model.height,
            model.width / 64,
            model.height / 64
        )));
    };
    Ok(CameraImage { camera, image, original: (width, height) })
}

fn frame(image: &RgbImage, model: &CameraModel) -> Result<Frame, ExperimentError> {
    let blue = image.pixels().map(|p| f32::from(p[2])).collect();
    let red = image.pixels().map(|p| f32::from(p[0])).collect();
    Frame::from_channels(model, blue, red).map_err(|message| ExperimentError::Option { option: "left/right".into(), message })
}

fn camera_name(camera: Camera) -> &'static str {
    match camera {
        Camera::Left => "left",
        Camera::Right => "right",
    }
}

impl Experiment for Detect {
    fn system(&self) -> &'static str {
        "blueswarm"
    }

    fn name(&self) -> &'static str {
        "detect"
    }

    fn description(&self) -> &'static str {
        "the Bluebot's neighbour pipeline on camera images from a file (a real robot's, another renderer's): blobs, neighbours, red source"
    }

    fn options(&self) -> &'static [OptionSpec] {
        OPTIONS
    }

    fn run(&self, options: &Options, progress: &Progress) -> Result<Outcome, ExperimentError> {
        let depth = options.number("depth")?;
        let threshold = options.number("threshold")?;
        if threshold > 255.0 {
            return Err(ExperimentError::Option { option: "threshold".into(), message: format!("levels run 0-255, got {threshold}") });
        }
        let vision = Rendered {
            threshold,
            pipeline: PipelineParams { pairing: pairing(options)?, ..PipelineParams::default() },
            ..Rendered::default()
        };
        let model = vision.cameras.model;
        let mut images = Vec::new();
        for (option, camera) in [("left", Camera::Left), ("right", Camera::Right)] {
            if let Some(path) = options.path(option)? {
                images.push(read_image(&path, option, camera, &model)?);
            }
        }
        if images.is_empty() {
            return Err(ExperimentError::Option {
                option: "left".into(),
                message: "give --left, --right or both: no image to look at".into(),
            });
        }
        progress.expect(images.len(), "blueswarm detect");
        let mut found = Vec::new();
        for image in &images {
            found.extend(vision.blobs(image.camera, &frame(&image.image, &model)?));
            progress.finished_one();
        }
        let (bearings, neighbours) = process(&vision.cameras, &found, depth, &vision.pipeline);

        let count = |camera: Camera| bearings.iter().filter(|b| b.camera == camera).count();
        let leds = bearings.iter().filter(|b| b.red_ratio <= RED_RATIO).count();
        let mut metrics = Map::new();
        metrics.insert("blobs_left".into(), json!(count(Camera::Left)));
        metrics.insert("blobs_right".into(), json!(count(Camera::Right)));
        metrics.insert("led_blobs".into(), json!(leds));
        metrics.insert("red_source_blobs".into(), json!(bearings.len() - leds));
        metrics.insert("neighbours".into(), json!(neighbours.len()));
        metrics.insert("observer_depth_m".into(), number(depth));
        metrics.insert(
            "images".into(),
            json!(images
                .iter()
                .map(|i| json!({ "camera": camera_name(i.camera), "width_px": i.original.0, "height_px": i.original.1,
                                 "scaled": i.original != (model.width, model.height) }))
                .collect::<Vec<_>>()),
        );

        let deg = |x: f64| format!("{:.2}", x.to_degrees());
        let blob_rows = found
            .iter()
            .zip(&bearings)
            .map(|(b, d)| {
                vec![
                    camera_name(b.camera).into(),
                    format!("{:.2}", b.column),
                    format!("{:.2}", b.row),
                    b.pixels.to_string(),
                    format!("{:.3}", b.red_ratio),
                    deg(d.azimuth),
                    deg(d.elevation),
                    if d.red_ratio > RED_RATIO { "red_source".into() } else { "led".into() },
                ]
            })
            .collect();
        let neighbour_rows = neighbours
            .iter()
            .map(|n| {
                let [x, y, z] = n.position();
                vec![
                    deg(n.azimuth),
                    deg(n.elevation),
                    format!("{:.4}", n.distance),
                    format!("{x:.4}"),
                    format!("{y:.4}"),
                    format!("{z:.4}"),
                ]
            })
            .collect();
        let header = |names: &[&str]| names.iter().map(|s| (*s).to_owned()).collect();
        let tables = vec![
            Table {
                file: "blobs.csv".into(),
                header: header(&["camera", "column_px", "row_px", "pixels", "red_ratio", "azimuth_deg", "elevation_deg", "kind"]),
                rows: blob_rows,
            },
            Table {
                file: "neighbours.csv".into(),
                header: header(&["azimuth_deg", "elevation_deg", "distance_m", "x_m", "y_m", "z_m"]),
                rows: neighbour_rows,
            },
        ];
        let drawn: Vec<(Camera, RgbImage)> = images.into_iter().map(|i| (i.camera, i.image)).collect();
        let plot = Plot { file: "detections.png".into(), draw: Box::new(move |path| draw(path, &drawn, &found, &neighbours, &vision)) };
        Ok(Outcome { metrics, tables, plots: vec![plot], report: String::new() })
    }
}

/// The images side by side, enlarged; LED blobs ringed white, the red source magenta, each
/// neighbour's LED midpoint marked with its distance.
fn draw(
    path: &Path,
    images: &[(Camera, RgbImage)],
    blobs: &[ImageBlob],
    neighbours: &[Neighbour],
    vision: &Rendered,
) -> Result<(), PlotError> {
    let err = |e: String| PlotError { path: path.to_path_buf(), message: e };
    let model = vision.cameras.model;
    let (w, h) = (model.width * ZOOM, model.height * ZOOM);
    let root = BitMapBackend::new(path, (w * images.len() as u32, h + 24)).into_drawing_area();
    root.fill(&BLACK).map_err(|e| err(e.to_string()))?;
    for (k, (camera, image)) in images.iter().enumerate() {
        let x0 = (k as u32 * w) as i32;
        for (col, row, p) in image.enumerate_pixels() {
            let (x, y) = (x0 + (col * ZOOM) as i32, (row * ZOOM) as i32);
            root.draw(&Rectangle::new([(x, y), (x + ZOOM as i32, y + ZOOM as i32)], RGBColor(p[0], p[1], p[2]).filled()))
                .map_err(|e| err(e.to_string()))?;
        }
        let at = |column: f64, row: f64| (x0 + (column * f64::from(ZOOM)) as i32, (row * f64::from(ZOOM)) as i32);
        // Blobs where blob detection found them (their pixel centroids).
        for blob in blobs.iter().filter(|b| b.camera == *camera) {
            let colour = if blob.red_ratio > RED_RATIO { MAGENTA } else { WHITE };
            root.draw(&Circle::new(at(blob.column, blob.row), 8, colour.stroke_width(1))).map_err(|e| err(e.to_string()))?;
        }
        for n in neighbours {
            let Some((column, row)) = vision.cameras.project(*camera, &Vector3::from(n.position()).normalize()) else { continue };
            let label = format!("{:.2} m", n.distance);
            root.draw(&Text::new(label, at(column + 4.0, row - 2.0), ("sans-serif", 14).into_font().color(&YELLOW)))
                .map_err(|e| err(e.to_string()))?;
        }
        let title = format!("{} camera: {} neighbour(s) in all", camera_name(*camera), neighbours.len());
        root.draw(&Text::new(title, (x0 + 6, h as i32 + 4), ("sans-serif", 16).into_font().color(&WHITE)))
            .map_err(|e| err(e.to_string()))?;
    }
    root.present().map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A camera image of `scale` x the camera's size with a robot's two LEDs at `position`
    /// (body frame of the observer, m: the LED midpoint) drawn as blue discs, and the
    /// pixels their projections fall on.
    fn picture(camera: Camera, position: Vector3<f64>, scale: u32) -> RgbImage {
        let cameras = Rendered::default().cameras;
        let model = cameras.model;
        let mut image = RgbImage::from_pixel(model.width * scale, model.height * scale, Rgb([12, 14, 10]));
        for dz in [-0.043, 0.043] {
            let led = position + Vector3::new(0.0, 0.0, dz);
            let (u, v) = cameras.project(camera, &led.normalize()).expect("in view");
            let (u, v, r) = (u * f64::from(scale), v * f64::from(scale), 1.6 * f64::from(scale));
            for (x, y, p) in image.enumerate_pixels_mut() {
                if (f64::from(x) + 0.5 - u).powi(2) + (f64::from(y) + 0.5 - v).powi(2) <= r * r {
                    *p = Rgb([40, 60, 255]);
                }
            }
        }
        image
    }

    fn run(given: &[(&str, &str)], out: &Path) -> Result<(), ExperimentError> {
        let given: Vec<(String, String)> = given.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let options = Options::parse(Detect.options(), &given)?;
        Detect.run(&options, &Progress::hidden())?.write(out, &Detect, &options).map(|_| ())
    }

    /// A neighbour drawn into a left-camera image (at the camera's size, and as a 4:3 image
    /// four times larger, as another renderer would give it) is found at its bearing and
    /// distance; its reflection-free pair is the only one.
    #[test]
    fn a_neighbour_drawn_into_an_image_is_found_at_its_distance_and_bearing() {
        let dir = tempfile::tempdir().unwrap();
        let truth = Vector3::new(0.55, 0.35, -0.05);
        for scale in [1, 4] {
            let file = dir.path().join(format!("left_{scale}.png"));
            picture(Camera::Left, truth, scale).save(&file).unwrap();
            let out = dir.path().join(format!("out_{scale}"));
            run(&[("left", file.to_str().unwrap())], &out).unwrap();
            let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
            assert_eq!(summary["metrics"]["neighbours"], 1, "scale {scale}: {summary}");
            assert_eq!(summary["metrics"]["led_blobs"], 2, "scale {scale}: {summary}");
            let csv = std::fs::read_to_string(out.join("neighbours.csv")).unwrap();
            let row: Vec<f64> = csv.lines().nth(1).unwrap().split(',').map(|c| c.parse().unwrap()).collect();
            let (azimuth, distance) = (row[0].to_radians(), row[2]);
            assert!((distance - truth.norm()).abs() < 0.05 * truth.norm(), "scale {scale}: {distance} m vs {}", truth.norm());
            assert!((azimuth - truth.y.atan2(truth.x)).abs() < 1f64.to_radians(), "scale {scale}: azimuth {}", row[0]);
            assert!(out.join("detections.png").is_file() && out.join("blobs.csv").is_file());
        }
    }

    #[test]
    fn bad_images_and_options_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let square = dir.path().join("square.png");
        RgbImage::new(200, 200).save(&square).unwrap();
        let text = dir.path().join("notes.png");
        std::fs::write(&text, "not an image").unwrap();
        let out = dir.path().join("out");
        let cases: [(&[(&str, &str)], &str); 5] = [
            (&[], "--left"),
            (&[("left", square.to_str().unwrap())], "200 x 200"),
            (&[("right", text.to_str().unwrap())], "--right"),
            (&[("left", "/no/such/file.png")], "/no/such/file.png"),
            (&[("left", square.to_str().unwrap()), ("threshold", "300")], "--threshold"),
        ];
        for (given, want) in cases {
            let message = run(given, &out).unwrap_err().to_string();
            assert!(message.contains(want), "{given:?}: `{message}` does not name {want}");
        }
    }
}
