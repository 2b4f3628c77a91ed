//! World configuration: plain data with defaults, and strict parsing from the node's
//! `ros__parameters` tree (every key typed and range-checked, unknown keys rejected).

mod error;
mod reader;

pub use error::ConfigError;
pub(crate) use reader::check_range;

use crate::medium::MediumKind;
use flotilla_common::arena::{ArenaGeometry, ArenaOutline, InletGeometry};
use flotilla_common::catalogue::ModuleKind;
use reader::Section;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The arena kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArenaKind {
    /// The round Lily tank with peripheral inlets (SPEC 1).
    RoundTank,
    /// A rectangular tank of still water (e.g. the MHP 126 x 68 cm tank).
    RectTank,
    /// Unbounded still water, no walls.
    OpenWater,
    /// A flat table (Kilobots, MoleMOD) with a rim wall, no water.
    Table,
}

impl ArenaKind {
    const NAMES: [(&'static str, ArenaKind); 4] = [
        ("round_tank", ArenaKind::RoundTank),
        ("rect_tank", ArenaKind::RectTank),
        ("open_water", ArenaKind::OpenWater),
        ("table", ArenaKind::Table),
    ];

    /// The configuration name.
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, k)| *k == self).map(|(n, _)| *n).unwrap_or("?")
    }
}

/// Inlets of the round tank: evenly spaced on the wall, pointing inward, deflected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InletConfig {
    /// Number of inlets (= pumps), evenly spaced starting on +x.
    pub count: usize,
    /// Deflection of each jet from the inward radial direction, counter-clockwise, deg.
    pub deflection_deg: f64,
    /// Depth of the nozzles below the tank rim, m.
    pub nozzle_below_rim: f64,
    /// Inner diameter of a nozzle, m.
    pub nozzle_diameter: f64,
    /// Flow of one pump at 100 % power, L/min.
    pub max_flow_lpm: f64,
}

impl Default for InletConfig {
    fn default() -> Self {
        Self { count: 7, deflection_deg: 15.0, nozzle_below_rim: 0.11, nozzle_diameter: 0.008, max_flow_lpm: 9.0 }
    }
}

/// Arena geometry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArenaConfig {
    /// Which arena.
    pub kind: ArenaKind,
    /// Inner diameter of the round tank, m.
    pub diameter: f64,
    /// Inner size along x of a rectangular tank or table; spawn area of open water, m.
    pub size_x: f64,
    /// Inner size along y of a rectangular tank or table; spawn area of open water, m.
    pub size_y: f64,
    /// Depth of the tank from floor to rim, m.
    pub depth: f64,
    /// Water surface relative to the rim (negative: below it), m.
    pub water_level: f64,
    /// Thickness of the wall colliders, m.
    pub wall_thickness: f64,
    /// Number of straight segments approximating the round wall.
    pub wall_segments: usize,
    /// Inlets of the round tank.
    pub inlets: InletConfig,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        Self {
            kind: ArenaKind::RoundTank,
            diameter: 0.6,
            size_x: 1.26,
            size_y: 0.68,
            depth: 0.3,
            water_level: -0.08,
            wall_thickness: 0.1,
            wall_segments: 48,
            inlets: InletConfig::default(),
        }
    }
}

impl ArenaConfig {
    /// The geometry this configuration describes: a round outline for the round tank, a
    /// rectangle otherwise; walls except in open water; water except on a table; inlets
    /// on the round tank.
    pub fn geometry(&self) -> ArenaGeometry {
        let outline = match self.kind {
            ArenaKind::RoundTank => ArenaOutline::Round { diameter: self.diameter, wall_segments: self.wall_segments },
            _ => ArenaOutline::Rectangle { size_x: self.size_x, size_y: self.size_y },
        };
        let inlets = InletGeometry {
            count: self.inlets.count,
            deflection: self.inlets.deflection_deg.to_radians(),
            nozzle_below_rim: self.inlets.nozzle_below_rim,
            nozzle_diameter: self.inlets.nozzle_diameter,
        };
        ArenaGeometry {
            outline,
            walled: self.kind != ArenaKind::OpenWater,
            depth: self.depth,
            water_level: (self.kind != ArenaKind::Table).then_some(self.water_level),
            wall_thickness: self.wall_thickness,
            inlets: (self.kind == ArenaKind::RoundTank).then_some(inlets),
        }
    }
}

/// The hydrodynamic model's parameters (SPEC 1); the first five are the calibrated ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HydroParams {
    /// Kv: scale of the sampled flow velocity (dimensionless).
    pub kv: f64,
    /// KF: scale of the quadratic drag force (dimensionless).
    pub kf: f64,
    /// sigma_stoch: standard deviation of the stochastic force per axis, mN.
    pub sigma_stoch: f64,
    /// D_linear: fraction of the linear velocity removed per second (0..1).
    pub d_linear: f64,
    /// D_angular: fraction of the angular velocity removed per second (0..1).
    pub d_angular: f64,
    /// Sections each face is split into for the drag integral.
    pub face_sections: usize,
    /// Water density rho, kg/m^3.
    pub water_density: f64,
    /// Correlation time of the flow's per-cell fluctuation along each body's path, s.
    /// 0 (default, SPEC 1): a fresh `N(mu, sigma)` draw every step. > 0: the standard-normal
    /// draw is an Ornstein-Uhlenbeck process per body with this correlation time, so an
    /// eddy pushes a body for about this long, as the per-cell deviation measured from
    /// tracked balls (whose velocity samples are correlated over ~0.5-1 s) implies; the
    /// marginal `N(mu, sigma)` of each cell is unchanged.
    #[serde(default)]
    pub flow_correlation_time: f64,
}

impl Default for HydroParams {
    /// The published ping-pong-ball calibration (SPEC 1, Table 1).
    fn default() -> Self {
        Self {
            kv: 1.24,
            kf: 2.266,
            sigma_stoch: 195.25,
            d_linear: 0.3483,
            d_angular: 0.2476,
            face_sections: 10,
            water_density: 1000.0,
            flow_correlation_time: 0.0,
        }
    }
}

impl HydroParams {
    /// Allowed range of each parameter: (key, min, max).
    pub const RANGES: [(&'static str, f64, f64); 8] = [
        ("kv", 0.1, 5.0),
        ("kf", 0.01, 10.0),
        ("sigma_stoch", 0.0, 1000.0),
        ("d_linear", 0.0, 1.0),
        ("d_angular", 0.0, 1.0),
        ("face_sections", 1.0, 100.0),
        ("water_density", 500.0, 1500.0),
        ("flow_correlation_time", 0.0, 10.0),
    ];

    /// The published Lily-module calibration (SPEC 1, Table 1).
    pub fn lily_published() -> Self {
        Self { kv: 1.365, kf: 0.442, sigma_stoch: 126.82, d_linear: 0.332, d_angular: 0.12, ..Self::default() }
    }

    /// Checks every value against [`Self::RANGES`]; the error names `hydro.<key>`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let values = [
            self.kv,
            self.kf,
            self.sigma_stoch,
            self.d_linear,
            self.d_angular,
            self.face_sections as f64,
            self.water_density,
            self.flow_correlation_time,
        ];
        for ((key, min, max), v) in Self::RANGES.iter().zip(values) {
            check_range(&format!("hydro.{key}"), v, *min, *max)?;
        }
        Ok(())
    }

    fn read(s: &mut Section) -> Result<Self, ConfigError> {
        let d = Self::default();
        let r = |k: &str| Self::RANGES.iter().find(|(n, _, _)| *n == k).map(|(_, a, b)| (*a, *b)).unwrap_or((0.0, 0.0));
        let f = |s: &mut Section, k: &str, def: f64| {
            let (lo, hi) = r(k);
            s.f64_in(k, def, lo, hi)
        };
        Ok(Self {
            kv: f(s, "kv", d.kv)?,
            kf: f(s, "kf", d.kf)?,
            sigma_stoch: f(s, "sigma_stoch", d.sigma_stoch)?,
            d_linear: f(s, "d_linear", d.d_linear)?,
            d_angular: f(s, "d_angular", d.d_angular)?,
            face_sections: s.u64_in("face_sections", d.face_sections as u64, 1, 100)? as usize,
            water_density: f(s, "water_density", d.water_density)?,
            flow_correlation_time: f(s, "flow_correlation_time", d.flow_correlation_time)?,
        })
    }
}

/// Where the flow field comes from and the parametric model's constants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowConfig {
    /// Measured field file (flotilla flow-field CSV); None: use the parametric model.
    pub file: Option<PathBuf>,
    /// Mean pump power the measured field was recorded at, %; the field is scaled by
    /// (mean power now) / (this).
    pub measured_at_power: f64,
    /// Cells per side of the parametric model's grid.
    pub cells: usize,
    /// Centre-line decay constant K of a round turbulent jet, u_c = u0 K d / s (dimensionless).
    pub jet_decay: f64,
    /// Growth of the jet's 1/e half-width with distance along it (dimensionless).
    pub jet_spread: f64,
    /// Distance along a jet over which it leaves the surface (it dives toward the bottom
    /// outlets): surface share exp(-(s / reach)^2), m.
    pub jet_reach: f64,
    /// Depth scale of the coupling between the nozzles and the surface, m:
    /// coupling = exp(-(nozzle depth below the surface) / this).
    pub surface_coupling_depth: f64,
    /// Strength of the tank-wide rotation relative to the jets' tangential speed (dimensionless).
    pub swirl_gain: f64,
    /// Standard deviation per unit of mean speed in each cell (dimensionless).
    pub turbulence: f64,
    /// Background standard deviation at 100 % power and full coupling, m/s.
    pub noise_floor: f64,
}

impl Default for FlowConfig {
    fn default() -> Self {
        Self {
            file: None,
            measured_at_power: 68.6,
            cells: 50,
            jet_decay: 6.0,
            jet_spread: 0.15,
            jet_reach: 0.15,
            surface_coupling_depth: 0.03,
            swirl_gain: 1.0,
            turbulence: 0.4,
            noise_floor: 0.05,
        }
    }
}

/// A group of modules of one kind to spawn at start-up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModuleGroup {
    /// Name prefix (and namespace prefix): bodies are `<prefix>_<i>`.
    pub prefix: String,
    /// The kind.
    pub kind: ModuleKind,
    /// How many.
    pub count: usize,
    /// Explicit planar poses (x m, y m, heading rad), one per module; None: random.
    pub poses: Option<Vec<[f64; 3]>>,
}

impl ModuleGroup {
    /// The name of the group's `i`-th module: `<prefix>_<i>`.
    pub fn name(&self, i: usize) -> String {
        format!("{}_{i}", self.prefix)
    }

    /// Every module of the group: (name, kind), in spawn order.
    pub fn modules(&self) -> impl Iterator<Item = (String, ModuleKind)> + '_ {
        (0..self.count).map(|i| (self.name(i), self.kind))
    }

    /// Only the `modules` section of a node parameter tree (the `ros__parameters` mapping),
    /// checked as [`WorldConfig::from_params`] checks it; the other keys are not looked at
    /// (for tools that need the module names of a scenario, such as `gen_rviz`).
    pub fn from_params(params: &serde_yaml::Value) -> Result<Vec<Self>, ConfigError> {
        let mut root = Section::root(params)?;
        let mut s = root.section("modules")?;
        let modules = read_modules(&mut s)?;
        s.finish()?;
        Ok(modules)
    }
}

/// Random placement of modules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpawnConfig {
    /// Smallest gap between the bounding circles of two modules, m.
    pub min_separation: f64,
    /// Smallest gap between a module's bounding circle and a wall, m.
    pub wall_margin: f64,
    /// Placement tries per module before giving up.
    pub max_attempts: usize,
}

impl Default for SpawnConfig {
    fn default() -> Self {
        Self { min_separation: 0.002, wall_margin: 0.005, max_attempts: 10_000 }
    }
}

/// Contact material shared by all colliders.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContactConfig {
    /// Coulomb friction coefficient (dimensionless).
    pub friction: f64,
    /// Restitution coefficient (dimensionless).
    pub restitution: f64,
}

impl Default for ContactConfig {
    fn default() -> Self {
        Self { friction: 0.2, restitution: 0.3 }
    }
}

/// Thruster imperfections (SPEC 5), drawn per thruster when a module is spawned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThrusterConfig {
    /// Largest direction error: a random offset parallel to the face, of length
    /// U(0, this), added to the unit thrust direction (dimensionless).
    pub direction_error: f64,
    /// Probability that a thruster is broken for good (never fires).
    pub failure_probability: f64,
}

impl Default for ThrusterConfig {
    fn default() -> Self {
        Self { direction_error: 0.0, failure_probability: 0.0 }
    }
}

/// Everything a [`crate::World`] is built from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorldConfig {
    /// Time step, s.
    pub dt: f64,
    /// Seed the node uses for [`crate::World::new`] and resets without an explicit seed.
    pub seed: u64,
    /// Arena geometry.
    pub arena: ArenaConfig,
    /// What the bodies live in (key `medium`); `None`: the arena's usual medium
    /// ([`MediumKind::default_for`]).
    pub medium: Option<MediumKind>,
    /// Power of each pump, % of the maximum flow (one per inlet).
    pub pumps: Vec<f64>,
    /// Hydrodynamic model parameters.
    pub hydro: HydroParams,
    /// Flow-field source and parametric model.
    pub flow: FlowConfig,
    /// Modules spawned at start-up and on reset.
    pub modules: Vec<ModuleGroup>,
    /// Random placement.
    pub spawn: SpawnConfig,
    /// Contact material.
    pub contact: ContactConfig,
    /// Thruster imperfections.
    pub thrusters: ThrusterConfig,
    /// Constraint-solver iterations per step.
    pub solver_iterations: usize,
}

impl Default for WorldConfig {
    /// The Lily tank at level -8 cm, every pump at 68.6 %, ball calibration, no modules.
    fn default() -> Self {
        let arena = ArenaConfig::default();
        Self {
            dt: 0.025,
            seed: 0,
            pumps: vec![68.6; arena.inlets.count],
            arena,
            medium: None,
            hydro: HydroParams::default(),
            flow: FlowConfig::default(),
            modules: Vec::new(),
            spawn: SpawnConfig::default(),
            contact: ContactConfig::default(),
            thrusters: ThrusterConfig::default(),
            solver_iterations: 2,
        }
    }
}

impl WorldConfig {
    /// Adds a group of `count` randomly placed modules named `<prefix>_<i>`.
    pub fn with_modules(mut self, kind: ModuleKind, count: usize, prefix: &str) -> Self {
        self.modules.push(ModuleGroup { prefix: prefix.to_owned(), kind, count, poses: None });
        self
    }

    /// The medium in effect: the configured one or the arena's usual one.
    pub fn medium_kind(&self) -> MediumKind {
        self.medium.unwrap_or_else(|| MediumKind::default_for(self.arena.kind))
    }

    /// Number of modules spawned at start-up and on reset.
    pub fn initial_module_count(&self) -> usize {
        self.modules.iter().map(|g| g.count).sum()
    }

    /// Sets every pump to `power` %.
    pub fn with_pump_power(mut self, power: f64) -> Self {
        self.pumps = vec![power; self.arena.inlets.count];
        self
    }

    /// Build from the node's parameter tree: the `ros__parameters` mapping of a YAML file
    /// (serde_yaml::Value), validating every key (unknown key, wrong type, out-of-range ->
    /// error naming the key path, e.g. `hydro.kv: must be in [0.1, 5], got 7`).
    pub fn from_params(params: &serde_yaml::Value) -> Result<Self, ConfigError> {
        let d = WorldConfig::default();
        let mut root = Section::root(params)?;
        let dt = root.f64_in("dt", d.dt, 1e-4, 0.1)?;
        let seed = root.u64_in("seed", d.seed, 0, u64::MAX)?;
        let solver_iterations = root.u64_in("solver_iterations", d.solver_iterations as u64, 1, 32)? as usize;

        let mut s = root.section("arena")?;
        let arena = read_arena(&mut s)?;
        s.finish()?;

        let medium = match root.opt_string("medium")? {
            None => None,
            Some(name) => {
                Some(MediumKind::NAMES.iter().find(|(n, _)| *n == name).map(|(_, k)| *k).ok_or_else(|| ConfigError::Invalid {
                    path: root.key_path("medium"),
                    message: format!(
                        "unknown medium `{name}`; known: {}",
                        MediumKind::NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                    ),
                })?)
            }
        };
        check_medium(medium.unwrap_or_else(|| MediumKind::default_for(arena.kind)), &arena)?;

        let mut s = root.section("pumps")?;
        let pumps = match s.opt_f64_list("power", 0.0, 100.0)? {
            None => vec![68.6; arena.inlets.count],
            Some(p) if p.len() == 1 => vec![p[0]; arena.inlets.count],
            Some(p) if p.len() == arena.inlets.count => p,
            Some(p) => {
                return Err(ConfigError::Invalid {
                    path: s.key_path("power"),
                    message: format!("give one value or one per inlet ({}), got {}", arena.inlets.count, p.len()),
                })
            }
        };
        s.finish()?;

        let mut s = root.section("hydro")?;
        let hydro = HydroParams::read(&mut s)?;
        s.finish()?;

        let mut s = root.section("flow_field")?;
        let flow = read_flow(&mut s)?;
        s.finish()?;

        let mut s = root.section("modules")?;
        let modules = read_modules(&mut s)?;
        s.finish()?;

        let mut s = root.section("spawn")?;
        let ds = SpawnConfig::default();
        let spawn = SpawnConfig {
            min_separation: s.f64_in("min_separation", ds.min_separation, 0.0, 1.0)?,
            wall_margin: s.f64_in("wall_margin", ds.wall_margin, 0.0, 1.0)?,
            max_attempts: s.u64_in("max_attempts", ds.max_attempts as u64, 1, 10_000_000)? as usize,
        };
        s.finish()?;

        let mut s = root.section("contact")?;
        let dc = ContactConfig::default();
        let contact = ContactConfig {
            friction: s.f64_in("friction", dc.friction, 0.0, 2.0)?,
            restitution: s.f64_in("restitution", dc.restitution, 0.0, 1.0)?,
        };
        s.finish()?;

        let mut s = root.section("thrusters")?;
        let dth = ThrusterConfig::default();
        let thrusters = ThrusterConfig {
            direction_error: s.f64_in("direction_error", dth.direction_error, 0.0, 1.0)?,
            failure_probability: s.f64_in("failure_probability", dth.failure_probability, 0.0, 1.0)?,
        };
        s.finish()?;
        root.finish()?;

        Ok(Self { dt, seed, arena, medium, pumps, hydro, flow, modules, spawn, contact, thrusters, solver_iterations })
    }
}

/// Whether `medium` can exist in `arena`: a water medium needs water.
pub(crate) fn check_medium(medium: MediumKind, arena: &ArenaConfig) -> Result<(), ConfigError> {
    if medium.needs_water() && arena.kind == ArenaKind::Table {
        return Err(ConfigError::Invalid {
            path: "medium".into(),
            message: format!("{medium} needs water; the {} arena has none", arena.kind.name()),
        });
    }
    Ok(())
}

fn read_arena(s: &mut Section) -> Result<ArenaConfig, ConfigError> {
    let d = ArenaConfig::default();
    let kind = match s.opt_string("kind")? {
        None => d.kind,
        Some(name) => ArenaKind::NAMES.iter().find(|(n, _)| *n == name).map(|(_, k)| *k).ok_or_else(|| ConfigError::Invalid {
            path: s.key_path("kind"),
            message: format!("unknown arena `{name}`; known: {}", ArenaKind::NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")),
        })?,
    };
    let (def_x, def_y) = match kind {
        ArenaKind::Table => (1.0, 1.0),
        ArenaKind::OpenWater => (2.0, 2.0),
        _ => (d.size_x, d.size_y),
    };
    let diameter = s.f64_in("diameter", d.diameter, 0.1, 10.0)?;
    let size_x = s.f64_in("size_x", def_x, 0.1, 50.0)?;
    let size_y = s.f64_in("size_y", def_y, 0.1, 50.0)?;
    let depth = s.f64_in("depth", d.depth, 0.05, 10.0)?;
    let water_level = s.f64_in("water_level", d.water_level, -depth + 0.03, 0.0)?;
    let wall_thickness = s.f64_in("wall_thickness", d.wall_thickness, 0.001, 0.5)?;
    let wall_segments = s.u64_in("wall_segments", d.wall_segments as u64, 8, 1024)? as usize;

    let mut si = s.section("inlets")?;
    let di = InletConfig::default();
    let default_count = if kind == ArenaKind::RoundTank { di.count } else { 0 };
    let count = si.u64_in("count", default_count as u64, 0, 64)? as usize;
    if count > 0 && kind != ArenaKind::RoundTank {
        return Err(ConfigError::Invalid {
            path: si.key_path("count"),
            message: format!("inlets exist only in the round_tank arena, got {count} for {}", kind.name()),
        });
    }
    let inlets = InletConfig {
        count,
        deflection_deg: si.f64_in("deflection_deg", di.deflection_deg, -89.0, 89.0)?,
        nozzle_below_rim: si.f64_in("nozzle_below_rim", di.nozzle_below_rim, 0.0, depth)?,
        nozzle_diameter: si.f64_in("nozzle_diameter", di.nozzle_diameter, 0.001, 0.1)?,
        max_flow_lpm: si.f64_in("max_flow_lpm", di.max_flow_lpm, 0.0, 200.0)?,
    };
    si.finish()?;
    Ok(ArenaConfig { kind, diameter, size_x, size_y, depth, water_level, wall_thickness, wall_segments, inlets })
}

fn read_flow(s: &mut Section) -> Result<FlowConfig, ConfigError> {
    let d = FlowConfig::default();
    let file = s.opt_string("file")?.filter(|f| !f.is_empty()).map(PathBuf::from);
    Ok(FlowConfig {
        file,
        measured_at_power: s.f64_in("measured_at_power", d.measured_at_power, 1.0, 100.0)?,
        cells: s.u64_in("cells", d.cells as u64, 2, 1000)? as usize,
        jet_decay: s.f64_in("jet_decay", d.jet_decay, 0.5, 20.0)?,
        jet_spread: s.f64_in("jet_spread", d.jet_spread, 0.01, 1.0)?,
        jet_reach: s.f64_in("jet_reach", d.jet_reach, 0.01, 10.0)?,
        surface_coupling_depth: s.f64_in("surface_coupling_depth", d.surface_coupling_depth, 0.001, 1.0)?,
        swirl_gain: s.f64_in("swirl_gain", d.swirl_gain, 0.0, 5.0)?,
        turbulence: s.f64_in("turbulence", d.turbulence, 0.0, 5.0)?,
        noise_floor: s.f64_in("noise_floor", d.noise_floor, 0.0, 2.0)?,
    })
}

fn read_modules(s: &mut Section) -> Result<Vec<ModuleGroup>, ConfigError> {
    let mut groups = Vec::new();
    for prefix in s.keys() {
        let mut g = s.section(&prefix)?;
        let kind_path = g.key_path("kind");
        let kind: ModuleKind = g
            .opt_string("kind")?
            .ok_or_else(|| ConfigError::Invalid { path: kind_path.clone(), message: "missing".into() })?
            .parse()
            .map_err(|e: flotilla_common::catalogue::UnknownKind| ConfigError::Invalid { path: kind_path, message: e.to_string() })?;
        let poses = g.opt_f64_list("poses", -1e3, 1e3)?;
        let count = match (g.u64_in("count", 0, 0, 100_000)?, &poses) {
            (0, Some(p)) => p.len() / 3,
            (n, _) => n as usize,
        };
        let poses = match poses {
            None => None,
            Some(p) if p.len() == 3 * count => Some(p.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()),
            Some(p) => {
                return Err(ConfigError::Invalid {
                    path: g.key_path("poses"),
                    message: format!("need 3 numbers (x m, y m, heading rad) per module: {} for count {count}, got {}", 3 * count, p.len()),
                })
            }
        };
        g.finish()?;
        if !prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || prefix.is_empty() {
            return Err(ConfigError::Invalid {
                path: s.key_path(&prefix),
                message: "group names are ROS namespace prefixes: letters, digits and `_` only".into(),
            });
        }
        groups.push(ModuleGroup { prefix, kind, count, poses });
    }
    Ok(groups)
}
