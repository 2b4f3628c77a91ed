//! What surrounds the bodies: one [`Medium`] per world decides how a body is held (locked
//! axes, gravity, spawn height) and what the fluid, or the lack of it, does to it each step.
//!
//! - [`StirredTank`]: the Lily tank of SPEC 1, planar at the draft (per-cell flow sampling,
//!   quadratic drag per face section, stochastic force, Webots damping).
//! - [`WaterVolume`]: 3-D still water (Blueswarm, SPEC 3): weight and buoyancy of the
//!   submerged volume, a righting torque, anisotropic quadratic drag, added mass.
//! - [`UnboundedFluid`]: 3-D fluid without walls, neutral buoyancy, per-module quadratic
//!   drag (MHP, SPEC 5).
//! - [`DryTable`]: no water (Kilobots, SPEC 4): gravity onto the table, planar.
//!
//! The step calls [`Medium::act`] for every body, then the actuators' force models
//! ([`crate::actuation::ForceModel`]), then [`Medium::finish`], which may treat terms that
//! depend on the total force (drag, added mass) implicitly.

mod drag3d;
mod dry_table;
mod stirred_tank;
mod unbounded_fluid;
mod water_volume;

pub use drag3d::{implicit_quadratic, rotational_drag_moments, Hull};
pub use dry_table::DryTable;
pub use stirred_tank::StirredTank;
pub use unbounded_fluid::UnboundedFluid;
pub use water_volume::WaterVolume;

use crate::arena::Arena;
use crate::config::{ArenaKind, HydroParams};
use crate::world::PhysicsError;
use flotilla_common::catalogue::ModuleSpec;
use flotilla_common::flow_field::FlowGrid;
use nalgebra::{Isometry3, Vector2, Vector3};
use rand_chacha::ChaCha8Rng;
use rapier3d_f64::prelude::LockedAxes;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Standard gravity, m/s^2.
pub const GRAVITY: f64 = 9.81;

/// The media a world can be configured with (key `medium`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediumKind {
    /// The stirred Lily tank (SPEC 1), planar.
    StirredTank,
    /// 3-D still water with buoyancy and added mass.
    WaterVolume,
    /// 3-D unbounded fluid, neutral buoyancy.
    UnboundedFluid,
    /// A dry table under gravity, planar.
    DryTable,
}

impl MediumKind {
    /// Configuration names.
    pub const NAMES: [(&'static str, MediumKind); 4] = [
        ("stirred_tank", MediumKind::StirredTank),
        ("water_volume", MediumKind::WaterVolume),
        ("unbounded_fluid", MediumKind::UnboundedFluid),
        ("dry_table", MediumKind::DryTable),
    ];

    /// The configuration name.
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, k)| *k == self).map(|(n, _)| *n).unwrap_or("?")
    }

    /// The medium of an arena when the configuration names none: tanks are stirred tanks
    /// (as before media existed), open water is unbounded fluid, a table is dry.
    pub fn default_for(arena: ArenaKind) -> Self {
        match arena {
            ArenaKind::RoundTank | ArenaKind::RectTank => MediumKind::StirredTank,
            ArenaKind::OpenWater => MediumKind::UnboundedFluid,
            ArenaKind::Table => MediumKind::DryTable,
        }
    }

    /// Whether bodies in this medium need water in the arena.
    pub fn needs_water(self) -> bool {
        matches!(self, MediumKind::StirredTank | MediumKind::WaterVolume)
    }

    /// The medium, built for a world stepping at `dt` s with `hydro`.
    pub fn build(self, hydro: &HydroParams, dt: f64) -> Box<dyn Medium> {
        match self {
            MediumKind::StirredTank => Box::new(StirredTank::new(hydro, dt)),
            MediumKind::WaterVolume => Box::new(WaterVolume::new(hydro.water_density, dt)),
            MediumKind::UnboundedFluid => Box::new(UnboundedFluid::new(hydro.water_density, dt)),
            MediumKind::DryTable => Box::new(DryTable),
        }
    }
}

impl fmt::Display for MediumKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a medium holds a body of one kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hold {
    /// Degrees of freedom the solver keeps fixed.
    pub locked_axes: LockedAxes,
    /// Multiplier of the world's gravity ([`Medium::gravity`]) for this body (dimensionless).
    pub gravity_scale: f64,
    /// Height of the body centre when spawned, m (world frame: floor or table top at 0).
    pub spawn_z: f64,
}

impl Hold {
    /// Whether the body moves in the horizontal plane only (z, roll and pitch fixed).
    pub fn is_planar(&self) -> bool {
        self.locked_axes.contains(LockedAxes::ROTATION_LOCKED_X | LockedAxes::ROTATION_LOCKED_Y)
    }
}

/// Force (N) and torque about the centre of mass (N m), world frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Wrench {
    /// Force, N.
    pub force: Vector3<f64>,
    /// Torque, N m.
    pub torque: Vector3<f64>,
}

/// One body as the medium sees it during a step.
#[derive(Clone, Copy, Debug)]
pub struct BodyMotion {
    /// Catalogue entry of its kind.
    pub spec: &'static ModuleSpec,
    /// Pose, world frame (m, unit quaternion).
    pub pose: Isometry3<f64>,
    /// Linear velocity, m/s; a medium may change it (damping) before forces apply.
    pub linvel: Vector3<f64>,
    /// Angular velocity, rad/s; a medium may change it (damping) before forces apply.
    pub angvel: Vector3<f64>,
    /// The body's standard-normal flow fluctuation of the last step (dimensionless); a
    /// medium with time-correlated flow updates it, the world keeps it per body.
    pub flow_noise: Vector2<f64>,
}

/// The world around the bodies that a medium may read.
#[derive(Clone, Copy, Debug)]
pub struct Surroundings<'a> {
    /// The arena (walls, water surface).
    pub arena: &'a Arena,
    /// The flow field in effect (per-cell mean and deviation).
    pub flow: &'a FlowGrid,
}

/// A medium: how bodies are held and what the fluid does to them. Implementations are
/// plain data built once per world (rebuilt when their parameters change).
pub trait Medium: Send + Sync + fmt::Debug {
    /// Which medium this is.
    fn kind(&self) -> MediumKind;

    /// Gravity acting on bodies through the solver, m/s^2 (scaled per body by
    /// [`Hold::gravity_scale`]).
    fn gravity(&self) -> Vector3<f64> {
        Vector3::zeros()
    }

    /// Whether bodies can rest on a solid floor at z = 0 (the world adds one).
    fn has_floor(&self) -> bool {
        false
    }

    /// How a body of `spec` is held in `arena`; an error when it cannot live there.
    fn hold(&self, spec: &ModuleSpec, arena: &Arena) -> Result<Hold, PhysicsError>;

    /// Before the actuators: may change the body's velocities (damping) and adds the
    /// fluid's forces to `wrench`. Random draws come from `rng`, in body order.
    fn act(&self, surroundings: &Surroundings<'_>, body: &mut BodyMotion, rng: &mut ChaCha8Rng, wrench: &mut Wrench);

    /// After the actuators, with `wrench` holding every force so far: terms that depend on
    /// the total force (implicit drag, added mass). Nothing by default.
    fn finish(&self, _surroundings: &Surroundings<'_>, _body: &BodyMotion, _wrench: &mut Wrench) {}
}

/// Height of a body's centre at spawn for the planar water media: a floater at its draft,
/// a submerged kind at mid-depth, a ground kind on the floor. Errors without water.
pub(crate) fn planar_spawn_z(spec: &ModuleSpec, arena: &Arena) -> Result<f64, PhysicsError> {
    use flotilla_common::catalogue::Medium as Habitat;
    let half = spec.shape.half_height();
    match (spec.medium, arena.surface_z) {
        (Habitat::Surface { draft }, Some(surface)) => Ok(surface - draft + half),
        (Habitat::Submerged, Some(surface)) => Ok(0.5 * surface),
        (Habitat::Ground, _) => Ok(half),
        (_, None) => Err(PhysicsError::NeedsWater { kind: spec.kind, arena: arena.kind.name() }),
    }
}

/// Locks of a body that moves in the horizontal plane only.
pub(crate) const PLANAR: LockedAxes =
    LockedAxes::TRANSLATION_LOCKED_Z.union(LockedAxes::ROTATION_LOCKED_X).union(LockedAxes::ROTATION_LOCKED_Y);
