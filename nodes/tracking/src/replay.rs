//! A folder of PNG frames as a camera: list and decode frames in order (a bad file is
//! reported and skipped, not fatal), and save rendered frames plus the camera model to
//! such a folder.

use crate::camera::{CameraModel, CameraMount};
use crate::frame::{Encoding, OwnedFrame};
use image::{DynamicImage, GrayImage, RgbImage};
use std::path::{Path, PathBuf};

/// Name of the camera model file written beside saved frames.
pub const CAMERA_FILE: &str = "camera.yaml";

/// A folder or file problem, naming the path.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The folder cannot be listed.
    #[error("cannot list frame folder {path}: {source}")]
    ListFolder { path: PathBuf, source: std::io::Error },
    /// The folder holds no image file ([`FRAME_EXTENSIONS`]).
    #[error("frame folder {path} holds no image files (.png, .jpg, .jpeg, .bmp, .tif, .tiff, .webp, .ppm, .pgm, .pnm, .tga, .qoi)")]
    NoFrames { path: PathBuf },
    /// A frame cannot be read or decoded.
    #[error("cannot decode frame {path}: {source}")]
    Decode { path: PathBuf, source: image::ImageError },
    /// A frame file holds no bytes (e.g. a renderer that crashed before writing it).
    #[error("cannot decode frame {path}: the file is empty (0 bytes)")]
    EmptyFile { path: PathBuf },
    /// A frame cannot be written.
    #[error("cannot write frame {path}: {source}")]
    Encode { path: PathBuf, source: image::ImageError },
    /// The camera file cannot be read or written.
    #[error("camera file {path}: {source}")]
    CameraFileIo { path: PathBuf, source: std::io::Error },
    /// The camera file is not a valid camera model.
    #[error("camera file {path}: {message}")]
    CameraFileFormat { path: PathBuf, message: String },
    /// The stamps file cannot be read.
    #[error("stamps file {path}: {source}")]
    StampsFileIo { path: PathBuf, source: std::io::Error },
    /// The stamps file is malformed or its stamps go backwards.
    #[error("stamps file {path}: {message}")]
    StampsFileFormat { path: PathBuf, message: String },
}

/// File extensions (any case) of the frames a folder is replayed from: what the camera
/// writes (PNG) and what other renderers and cameras commonly write.
pub const FRAME_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "bmp", "tif", "tiff", "webp", "ppm", "pgm", "pnm", "tga", "qoi"];

/// The image files of `dir` ([`FRAME_EXTENSIONS`]) in natural order (`frame_2.png` before
/// `frame_10.png`).
pub fn list_frames(dir: impl AsRef<Path>) -> Result<Vec<PathBuf>, ReplayError> {
    let dir = dir.as_ref();
    let list_error = |source| ReplayError::ListFolder { path: dir.to_path_buf(), source };
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list_error)? {
        let path = entry.map_err(list_error)?.path();
        let is_image =
            path.extension().and_then(|e| e.to_str()).is_some_and(|e| FRAME_EXTENSIONS.iter().any(|x| e.eq_ignore_ascii_case(x)));
        if is_image && path.is_file() {
            paths.push(path);
        }
    }
    if paths.is_empty() {
        return Err(ReplayError::NoFrames { path: dir.to_path_buf() });
    }
    paths.sort_by_cached_key(|p| natural_key(&p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()));
    Ok(paths)
}

/// Decodes one frame (any of [`FRAME_EXTENSIONS`]) into mono8 (grey images) or rgb8 (everything else; alpha dropped,
/// 16-bit scaled to 8).
pub fn load_frame(path: impl AsRef<Path>) -> Result<OwnedFrame, ReplayError> {
    let path = path.as_ref();
    // The decoder would say only "unexpected end of file" for an empty file.
    if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
        return Err(ReplayError::EmptyFile { path: path.to_path_buf() });
    }
    let image = image::open(path).map_err(|source| ReplayError::Decode { path: path.to_path_buf(), source })?;
    Ok(match image {
        DynamicImage::ImageLuma8(gray) => {
            OwnedFrame { width: gray.width(), height: gray.height(), encoding: Encoding::Mono8, data: gray.into_raw() }
        }
        DynamicImage::ImageLuma16(_) | DynamicImage::ImageLumaA8(_) | DynamicImage::ImageLumaA16(_) => {
            let gray = image.to_luma8();
            OwnedFrame { width: gray.width(), height: gray.height(), encoding: Encoding::Mono8, data: gray.into_raw() }
        }
        other => {
            let rgb = other.into_rgb8();
            OwnedFrame { width: rgb.width(), height: rgb.height(), encoding: Encoding::Rgb8, data: rgb.into_raw() }
        }
    })
}

/// Iterates the frames of a folder in order, decoding each on demand.
pub struct FrameFolder {
    paths: Vec<PathBuf>,
    next: usize,
}

impl FrameFolder {
    /// Lists the folder's frames.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, ReplayError> {
        Ok(Self { paths: list_frames(dir)?, next: 0 })
    }

    /// The frame files, in replay order.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }
}

impl Iterator for FrameFolder {
    /// The file and its decoded frame, or why it could not be decoded (skip it).
    type Item = (PathBuf, Result<OwnedFrame, ReplayError>);

    fn next(&mut self) -> Option<Self::Item> {
        let path = self.paths.get(self.next)?.clone();
        self.next += 1;
        let frame = load_frame(&path);
        Some((path, frame))
    }
}

/// Path of frame `index` in `dir`: `frame_000042.png`.
pub fn frame_path(dir: impl AsRef<Path>, index: u64) -> PathBuf {
    dir.as_ref().join(format!("frame_{index:06}.png"))
}

/// Saves an rgb8 frame as `dir/frame_<index>.png`.
pub fn save_rgb_frame(dir: impl AsRef<Path>, index: u64, image: &RgbImage) -> Result<PathBuf, ReplayError> {
    let path = frame_path(dir, index);
    image.save(&path).map_err(|source| ReplayError::Encode { path: path.clone(), source })?;
    Ok(path)
}

/// Saves a mono8 frame as `dir/frame_<index>.png`.
pub fn save_gray_frame(dir: impl AsRef<Path>, index: u64, image: &GrayImage) -> Result<PathBuf, ReplayError> {
    let path = frame_path(dir, index);
    image.save(&path).map_err(|source| ReplayError::Encode { path: path.clone(), source })?;
    Ok(path)
}

/// Writes `dir/camera.yaml` so a replay uses the same camera model as the recording.
pub fn write_camera(dir: impl AsRef<Path>, camera: &CameraModel) -> Result<(), ReplayError> {
    let path = dir.as_ref().join(CAMERA_FILE);
    let text = serde_yaml::to_string(camera).map_err(|e| ReplayError::CameraFileFormat { path: path.clone(), message: e.to_string() })?;
    std::fs::write(&path, text).map_err(|source| ReplayError::CameraFileIo { path, source })
}

/// Reads the folder's camera: `camera.yaml` (Flotilla's camera model, as the emulated
/// camera saves it), else `camera_info.yaml` or `ost.yaml`; each may also be a ROS camera
/// calibration file (`image_width`, `camera_matrix`, `distortion_model`, ...: what
/// `cameracalibrator` writes for a real camera or another renderer's), whose camera has
/// the default mount (the file has no pose; the tracker's `mount` parameter gives it).
/// `Ok(None)` when the folder has none of them.
pub fn read_camera(dir: impl AsRef<Path>) -> Result<Option<CameraModel>, ReplayError> {
    for name in [CAMERA_FILE, ROS_CALIBRATION_FILES[0], ROS_CALIBRATION_FILES[1]] {
        let path = dir.as_ref().join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(ReplayError::CameraFileIo { path, source }),
        };
        let format = |message: String| ReplayError::CameraFileFormat { path: path.clone(), message };
        let is_ros = serde_yaml::from_str::<serde_yaml::Value>(&text).is_ok_and(|v| v.get("camera_matrix").is_some());
        let camera = if is_ros {
            let ros: RosCalibration = serde_yaml::from_str(&text).map_err(|e| format(format!("a ROS camera calibration file: {e}")))?;
            CameraModel::from_camera_info(
                ros.image_width,
                ros.image_height,
                &ros.distortion_model,
                &ros.camera_matrix.data,
                &ros.distortion_coefficients.data,
                CameraMount::default(),
            )
            .map_err(|e| format(e.to_string()))?
        } else {
            let camera: CameraModel = serde_yaml::from_str(&text).map_err(|e| format(e.to_string()))?;
            camera.validate().map_err(|e| format(e.to_string()))?;
            camera
        };
        return Ok(Some(camera));
    }
    Ok(None)
}

/// Files of the ROS camera calibration format read when a folder has no [`CAMERA_FILE`]
/// (`cameracalibrator` writes `ost.yaml`; `camera_info_manager` reads such files).
pub const ROS_CALIBRATION_FILES: [&str; 2] = ["camera_info.yaml", "ost.yaml"];

/// The ROS camera calibration YAML (`camera_calibration_parsers`): the fields a
/// CameraInfo needs; `camera_name`, rectification and projection are not used.
#[derive(serde::Deserialize)]
struct RosCalibration {
    image_width: u32,
    image_height: u32,
    camera_matrix: RosMatrix,
    distortion_model: String,
    distortion_coefficients: RosMatrix,
}

/// A matrix of the calibration format (`rows`, `cols`, row-major `data`).
#[derive(serde::Deserialize)]
struct RosMatrix {
    data: Vec<f64>,
}

/// Name of the frame stamp index written beside saved frames (`file,stamp` lines).
pub const STAMPS_FILE: &str = "stamps.csv";

/// Saves a camera's frames to a folder a replay can play back: `camera.yaml` first,
/// then each frame as PNG followed by its line in `stamps.csv` (flushed, so a crash
/// loses at most the frame being written).
pub struct FrameSaver {
    dir: PathBuf,
    stamps: std::fs::File,
}

impl FrameSaver {
    /// Creates `dir` if needed, writes `camera.yaml` and starts `stamps.csv`.
    pub fn create(dir: impl AsRef<Path>, camera: &CameraModel) -> Result<Self, ReplayError> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|source| ReplayError::CameraFileIo { path: dir.clone(), source })?;
        write_camera(&dir, camera)?;
        let path = dir.join(STAMPS_FILE);
        let mut stamps = std::fs::File::create(&path).map_err(|source| ReplayError::StampsFileIo { path: path.clone(), source })?;
        use std::io::Write;
        writeln!(stamps, "file,stamp").map_err(|source| ReplayError::StampsFileIo { path, source })?;
        Ok(Self { dir, stamps })
    }

    /// Writes frame `index` taken at `stamp` (s).
    pub fn save(&mut self, index: u64, stamp: f64, frame: &crate::accuracy::RenderedFrame) -> Result<PathBuf, ReplayError> {
        use crate::accuracy::RenderedFrame;
        use std::io::Write;
        let path = match frame {
            RenderedFrame::Rgb(image) => save_rgb_frame(&self.dir, index, image)?,
            RenderedFrame::Gray(image) => save_gray_frame(&self.dir, index, image)?,
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let stamps_path = self.dir.join(STAMPS_FILE);
        writeln!(self.stamps, "{name},{stamp:?}")
            .and_then(|_| self.stamps.flush())
            .map_err(|source| ReplayError::StampsFileIo { path: stamps_path, source })?;
        Ok(path)
    }
}

/// The stamps of `paths` from `dir/stamps.csv`; `Ok(None)` when the folder has no such
/// file or it does not list every one of `paths`.
pub fn read_stamps(dir: impl AsRef<Path>, paths: &[PathBuf]) -> Result<Option<Vec<f64>>, ReplayError> {
    let path = dir.as_ref().join(STAMPS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(ReplayError::StampsFileIo { path, source }),
    };
    let mut stamps = std::collections::HashMap::new();
    let mut line_of = std::collections::HashMap::new();
    for (n, line) in text.lines().enumerate().skip(1).filter(|(_, l)| !l.trim().is_empty()) {
        let parsed = line.rsplit_once(',').and_then(|(file, stamp)| Some((file.to_owned(), stamp.trim().parse::<f64>().ok()?)));
        let Some((file, stamp)) = parsed.filter(|(_, s)| s.is_finite()) else {
            return Err(ReplayError::StampsFileFormat { path, message: format!("line {}: expected `file,stamp`, got `{line}`", n + 1) });
        };
        line_of.insert(file.clone(), n + 1);
        stamps.insert(file, stamp);
    }
    let ordered: Option<Vec<(String, f64)>> = paths
        .iter()
        .map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()).and_then(|n| stamps.get(&n).map(|s| (n, *s))))
        .collect();
    // Frames play in file-name order: their stamps must not go backwards (a tracker would
    // see time run back).
    if let Some(ordered) = &ordered {
        if let Some(w) = ordered.windows(2).find(|w| w[1].1 < w[0].1) {
            return Err(ReplayError::StampsFileFormat {
                path,
                message: format!(
                    "line {}: stamp {} of {} is before stamp {} of the previous frame {}",
                    line_of.get(&w[1].0).copied().unwrap_or(0),
                    w[1].1,
                    w[1].0,
                    w[0].1,
                    w[0].0
                ),
            });
        }
    }
    Ok(ordered.map(|o| o.into_iter().map(|(_, s)| s).collect()))
}

/// Sort key that orders digit runs by value: "f2" < "f10".
fn natural_key(name: &str) -> Vec<(String, u128)> {
    let mut key = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for ch in name.chars() {
        if ch.is_ascii_digit() {
            digits.push(ch);
        } else {
            if !digits.is_empty() {
                key.push((std::mem::take(&mut text), digits.parse().unwrap_or(u128::MAX)));
                digits.clear();
            }
            text.push(ch);
        }
    }
    key.push((text, digits.parse().unwrap_or(0)));
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut names = vec!["f10.png", "f2.png", "f1.png", "g0.png", "f02b.png"];
        names.sort_by_key(|n| natural_key(n));
        assert_eq!(names, vec!["f1.png", "f2.png", "f02b.png", "f10.png", "g0.png"]);
    }

    #[test]
    fn save_list_load_and_skip_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut rgb = RgbImage::new(4, 3);
        rgb.put_pixel(1, 2, image::Rgb([10, 20, 30]));
        save_rgb_frame(dir.path(), 10, &rgb).unwrap();
        save_gray_frame(dir.path(), 2, &GrayImage::from_pixel(4, 3, image::Luma([7]))).unwrap();
        std::fs::write(dir.path().join("frame_000005.png"), b"not a png").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"ignored").unwrap();
        // Another renderer's JPEG frame between them is replayed too (grey stays mono8).
        image::DynamicImage::ImageLuma8(GrayImage::from_pixel(4, 3, image::Luma([200]))).save(dir.path().join("frame_000007.JPG")).unwrap();
        let frames: Vec<_> = FrameFolder::open(dir.path()).unwrap().collect();
        assert_eq!(frames.len(), 4);
        let jpeg = frames.iter().find(|f| f.0.ends_with("frame_000007.JPG")).unwrap().1.as_ref().unwrap();
        assert_eq!(jpeg.encoding, Encoding::Mono8);
        assert!(jpeg.data.iter().all(|&v| v.abs_diff(200) <= 2), "{:?}", jpeg.data);
        let (first, gray) = (&frames[0].0, frames[0].1.as_ref().unwrap());
        assert!(first.ends_with("frame_000002.png"));
        assert_eq!((gray.encoding, gray.data[0]), (Encoding::Mono8, 7));
        let err = frames[1].1.as_ref().unwrap_err();
        assert!(err.to_string().contains("frame_000005.png"), "{err}");
        // A zero-byte file says so (the decoder said only "unexpected end of file").
        std::fs::write(dir.path().join("frame_000006.png"), b"").unwrap();
        let err = load_frame(dir.path().join("frame_000006.png")).unwrap_err().to_string();
        assert!(err.contains("frame_000006.png") && err.contains("empty (0 bytes)"), "{err}");
        std::fs::remove_file(dir.path().join("frame_000006.png")).unwrap();
        let colour = frames[3].1.as_ref().unwrap();
        assert_eq!(colour.encoding, Encoding::Rgb8);
        let view = colour.view().unwrap();
        assert_eq!(view.row(2)[3..6], [10, 20, 30]);
    }

    #[test]
    fn empty_or_missing_folders_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(list_frames(dir.path()), Err(ReplayError::NoFrames { .. })));
        let missing = dir.path().join("nope");
        let err = list_frames(&missing).unwrap_err();
        assert!(err.to_string().contains("nope"));
    }

    #[test]
    fn saver_writes_frames_camera_and_stamps() {
        use crate::accuracy::RenderedFrame;
        let dir = tempfile::tempdir().unwrap();
        let camera = CameraModel::lily_tank_default();
        let mut saver = FrameSaver::create(dir.path().join("run"), &camera).unwrap();
        let frame = RenderedFrame::Gray(GrayImage::from_pixel(4, 3, image::Luma([9])));
        saver.save(0, 0.05, &frame).unwrap();
        saver.save(1, 0.075, &frame).unwrap();
        let run = dir.path().join("run");
        assert_eq!(read_camera(&run).unwrap(), Some(camera));
        let paths = list_frames(&run).unwrap();
        assert_eq!(read_stamps(&run, &paths).unwrap(), Some(vec![0.05, 0.075]));
        // A frame the index does not list: no stamps at all.
        save_gray_frame(&run, 2, &GrayImage::new(4, 3)).unwrap();
        assert_eq!(read_stamps(&run, &list_frames(&run).unwrap()).unwrap(), None);
        std::fs::write(run.join(STAMPS_FILE), "file,stamp\nframe_000000.png,soon\n").unwrap();
        let err = read_stamps(&run, &paths).unwrap_err().to_string();
        assert!(err.contains("line 2") && err.contains("soon"), "{err}");
    }

    /// Issue 21 items 9 and 10: stamps going backwards were replayed as they came, and a
    /// stamps.csv error was labelled "camera file".
    #[test]
    fn item9_item10_backward_stamps_are_refused_and_the_stamps_file_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut saver = FrameSaver::create(dir.path().join("run"), &CameraModel::lily_tank_default()).unwrap();
        let frame = crate::accuracy::RenderedFrame::Gray(GrayImage::from_pixel(4, 3, image::Luma([9])));
        saver.save(0, 0.05, &frame).unwrap();
        saver.save(1, 0.075, &frame).unwrap();
        let run = dir.path().join("run");
        let paths = list_frames(&run).unwrap();
        std::fs::write(run.join(STAMPS_FILE), "file,stamp\nframe_000000.png,0.5\nframe_000001.png,0.25\n").unwrap();
        let err = read_stamps(&run, &paths).unwrap_err().to_string();
        assert!(err.starts_with("stamps file") && err.contains("line 3") && err.contains("before"), "{err}");
    }

    #[test]
    fn camera_file_round_trip_and_validation() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_camera(dir.path()).unwrap().is_none());
        let camera = CameraModel::lily_tank_default();
        write_camera(dir.path(), &camera).unwrap();
        assert_eq!(read_camera(dir.path()).unwrap(), Some(camera));
        std::fs::write(dir.path().join(CAMERA_FILE), "width: 3\n").unwrap();
        let err = read_camera(dir.path()).unwrap_err();
        assert!(err.to_string().contains("camera.yaml"), "{err}");
    }

    /// A folder from another renderer or a real camera brings its intrinsics in the ROS
    /// calibration format; it was refused ("has no camera.yaml").
    #[test]
    fn a_ros_calibration_file_gives_the_camera() {
        let dir = tempfile::tempdir().unwrap();
        let ost = "image_width: 640\nimage_height: 480\ncamera_name: other_renderer\ncamera_matrix:\n  rows: 3\n  cols: 3\n  data: [500.0, 0.0, 320.5, 0.0, 505.0, 240.5, 0.0, 0.0, 1.0]\ndistortion_model: plumb_bob\ndistortion_coefficients:\n  rows: 1\n  cols: 5\n  data: [-0.1, 0.01, 0.0, 0.0, 0.0]\nrectification_matrix:\n  rows: 3\n  cols: 3\n  data: [1, 0, 0, 0, 1, 0, 0, 0, 1]\n";
        std::fs::write(dir.path().join("ost.yaml"), ost).unwrap();
        let camera = read_camera(dir.path()).unwrap().unwrap();
        assert_eq!((camera.width, camera.height, camera.fx, camera.fy, camera.cx, camera.cy), (640, 480, 500.0, 505.0, 320.5, 240.5));
        assert_eq!((camera.distortion.k1, camera.distortion.k2), (-0.1, 0.01));
        // Skew is not modelled: refused with the field, naming the file.
        std::fs::write(dir.path().join("camera_info.yaml"), ost.replace("500.0, 0.0, 320.5", "500.0, 2.0, 320.5")).unwrap();
        let err = read_camera(dir.path()).unwrap_err().to_string();
        assert!(err.contains("camera_info.yaml") && err.contains("skew"), "{err}");
    }
}
