//! URDF and SDF models of every module kind and arena, generated from the module catalogue
//! (one source of truth), plus a URDF reader with clear errors.
//!
//! - [`description`]: the format-neutral model (links, inertia, shapes, joints).
//! - [`module_model`] / [`ArenaModel::model`]: the models, from [`crate::catalogue`] and
//!   [`dimensions`] (the numbers the catalogue does not hold); [`molemod_paper_models`]: the
//!   MoleMOD paper's basic and rotating models, from the MoleMOD robot's.
//! - [`render_urdf`] / [`render_sdf`]: file text; universal joints are native in SDF and two
//!   revolute joints around a 0.1 g cross link in URDF ([`UNIVERSAL_CROSS_MASS`]); static
//!   models carry the `<gazebo><static>true</static></gazebo>` extension in URDF.
//! - [`generated_files`] / [`write_files`]: what `gen_models` writes to `urdf/`.
//! - [`read_urdf`]: a URDF file back into a model, errors naming file, line and element.
//! - [`FrameTree`]: the TF transforms a URDF's joints give (fixed ones for `/tf_static`,
//!   movable ones at position zero for `/tf`).
//!
//! Link names are TF frame names below the module's prefix ([`prefixed_frame`]):
//! `tank_physics` publishes `world -> lily_7/base_link` and, from the module's URDF,
//! `lily_7/base_link -> lily_7/latch_0`, ... (REP 105), which rviz's RobotModel with
//! `TF Prefix: lily_7` draws.

/// Appends one formatted line to a `String` (writing to a `String` cannot fail).
macro_rules! emit {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

mod arenas;
pub mod description;
pub mod dimensions;
mod frames;
pub mod inertia;
mod modules;
mod molemod;
mod reader;
mod sdf;
mod urdf;

pub use arenas::{inlet_layout, ArenaGeometry, ArenaModel, ArenaOutline, InletGeometry};
pub use description::{
    universal_cross_inertial, Collision, Colour, Geometry, Inertial, Joint, JointKind, JointLimits, Link, Model, Pose, Visual,
    UNIVERSAL_CROSS_MASS, UNIVERSAL_CROSS_MOMENT, UNIVERSAL_CROSS_SUFFIX,
};
pub use frames::{prefixed_frame, FrameTree, FrameTreeError, JointFrame};
pub use modules::{module_model, shape_geometry};
pub use molemod::{molemod_paper_models, BASIC_MODEL, ROTATING_MODEL};
pub use reader::{parse_urdf, read_urdf, ModelFileError};
pub use sdf::render_sdf;
pub use urdf::{render_urdf, GENERATED_NOTE};

use crate::catalogue::ModuleKind;
use std::path::{Path, PathBuf};

/// Every model: the module kinds in catalogue order, the arenas, then the MoleMOD paper's
/// basic and rotating models (variants of the MoleMOD robot, not kinds of their own).
pub fn all_models() -> Vec<Model> {
    ModuleKind::ALL
        .iter()
        .map(|&k| module_model(k))
        .chain(ArenaModel::ALL.iter().map(|a| a.model()))
        .chain(molemod_paper_models())
        .collect()
}

/// The URDF of a module kind: the `robot_description` every module publishes (what rviz's
/// RobotModel and robot_state_publisher take).
pub fn robot_description(kind: ModuleKind) -> String {
    render_urdf(&module_model(kind))
}

/// Every generated file: (file name, contents), `<model>.urdf` and `<model>.sdf`.
pub fn generated_files() -> Vec<(String, String)> {
    all_models().iter().flat_map(|m| [(format!("{}.urdf", m.name), render_urdf(m)), (format!("{}.sdf", m.name), render_sdf(m))]).collect()
}

/// Writes every generated file into `dir` (created if missing); returns the paths written.
pub fn write_files(dir: &Path) -> Result<Vec<PathBuf>, ModelFileError> {
    std::fs::create_dir_all(dir).map_err(|source| ModelFileError::Read { path: dir.to_owned(), source })?;
    generated_files()
        .into_iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|source| ModelFileError::Read { path: path.clone(), source })?;
            Ok(path)
        })
        .collect()
}
