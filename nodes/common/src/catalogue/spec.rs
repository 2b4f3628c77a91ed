//! Physical description of each module kind: shape, mass, inertia, how it sits in the
//! water, drag, faces (latches, thrusters) and sensors.
//!
//! Body frame: origin at the geometric centre, x forward (face 0), y left, z up.
//! Values not given by the source papers are marked "assumed" with the reason.

use super::ModuleKind;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;
use std::sync::LazyLock;

/// Density of fresh water, kg/m^3 (SPEC 1).
pub const WATER_DENSITY: f64 = 1000.0;

/// Collision shape of a module, centred on the body origin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    /// A sphere.
    Sphere {
        /// Radius, m.
        radius: f64,
    },
    /// A box.
    Box {
        /// Half extents along body x, y, z, m.
        half_extents: Vector3<f64>,
    },
    /// An upright cylinder (axis along body z).
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Half of the height, m.
        half_height: f64,
    },
}

impl Shape {
    /// Half of the vertical extent, m.
    pub fn half_height(&self) -> f64 {
        match *self {
            Shape::Sphere { radius } => radius,
            Shape::Box { half_extents } => half_extents.z,
            Shape::Cylinder { half_height, .. } => half_height,
        }
    }

    /// Radius of the smallest upright cylinder around the shape, m (used for overlap checks).
    pub fn horizontal_radius(&self) -> f64 {
        match *self {
            Shape::Sphere { radius } | Shape::Cylinder { radius, .. } => radius,
            Shape::Box { half_extents } => half_extents.x.hypot(half_extents.y),
        }
    }

    /// Volume below a horizontal plane `depth` m above the shape's lowest point, m^3.
    pub fn volume_below(&self, depth: f64) -> f64 {
        let h = depth.clamp(0.0, 2.0 * self.half_height());
        match *self {
            // Spherical cap of height h: pi h^2 (3r - h) / 3.
            Shape::Sphere { radius } => PI * h * h * (3.0 * radius - h) / 3.0,
            Shape::Box { half_extents } => 4.0 * half_extents.x * half_extents.y * h,
            Shape::Cylinder { radius, .. } => PI * radius * radius * h,
        }
    }

    /// Area of the shape's shadow across each body axis (x, y, z), m^2.
    pub fn projected_areas(&self) -> Vector3<f64> {
        match *self {
            Shape::Sphere { radius } => Vector3::repeat(PI * radius * radius),
            Shape::Box { half_extents: e } => Vector3::new(4.0 * e.y * e.z, 4.0 * e.x * e.z, 4.0 * e.x * e.y),
            Shape::Cylinder { radius, half_height } => {
                let side = 4.0 * radius * half_height;
                Vector3::new(side, side, PI * radius * radius)
            }
        }
    }

    /// Principal moments of inertia about the centre for a uniform solid of mass `mass` kg,
    /// kg m^2 (about body x, y, z).
    pub fn principal_inertia(&self, mass: f64) -> Vector3<f64> {
        match *self {
            Shape::Sphere { radius } => Vector3::repeat(0.4 * mass * radius * radius),
            Shape::Box { half_extents: e } => {
                let (x2, y2, z2) = (4.0 * e.x * e.x, 4.0 * e.y * e.y, 4.0 * e.z * e.z);
                Vector3::new(y2 + z2, x2 + z2, x2 + y2) * (mass / 12.0)
            }
            Shape::Cylinder { radius, half_height } => {
                let r2 = radius * radius;
                let h2 = 4.0 * half_height * half_height;
                let side = mass * (3.0 * r2 + h2) / 12.0;
                Vector3::new(side, side, 0.5 * mass * r2)
            }
        }
    }
}

/// Where a module lives vertically; the physics keeps it there (planar model).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Medium {
    /// Floats at the water surface with its lowest point `draft` below it.
    Surface {
        /// Depth of the lowest point below the water surface, m.
        draft: f64,
    },
    /// Fully submerged, (near) neutrally buoyant; held at its spawn depth.
    Submerged,
    /// Stands on the arena floor or table; no fluid forces.
    Ground,
}

/// An electro-permanent-magnet latch on a face.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatchSpec {
    /// Largest face-to-face gap at which two commanded latches grab, m.
    pub capture_distance: f64,
    /// Largest angle between the two faces' anti-parallel normals at which they grab, rad.
    pub capture_angle: f64,
    /// Range of the inductive communication channel through the latch, m.
    pub comm_range: f64,
}

/// A thruster (pump) that pushes fluid out through a face, driving the module along the
/// face's inward normal.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThrusterSpec {
    /// Force when firing, N.
    pub force: f64,
}

/// One side face of a module.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FaceSpec {
    /// Outward unit normal in the body frame.
    pub normal: Vector3<f64>,
    /// Centre of the face in the body frame, m.
    pub centre: Vector3<f64>,
    /// Horizontal width of the face, m.
    pub width: f64,
    /// Height of the face, m.
    pub height: f64,
    /// EPM latch on this face, if any.
    pub latch: Option<LatchSpec>,
    /// Thruster on this face, if any.
    pub thruster: Option<ThrusterSpec>,
}

/// A sensor a module carries (what its `sensors` topic reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SensorKind {
    /// Ambient light sensor on top.
    LightTop,
    /// Which latch faces are joined to a neighbour.
    LatchState,
    /// Radio link to the base station.
    Radio,
    /// Per-face neighbour-present switch.
    ConnectionPerFace,
    /// Per-face binary target detector along the face normal (180 deg field of view).
    TargetPerFace,
    /// Wide-angle cameras (neighbour bearings and distances from LED pairs).
    Cameras,
    /// Infra-red messaging with distance sensing to neighbours.
    InfraRedRange,
    /// Joint position encoders.
    JointPositions,
}

/// An actuator group a module carries (what its `cmd` topic drives).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActuatorKind {
    /// EPM latches on the faces that have one.
    Latches,
    /// Thrusters on the faces that have one.
    Thrusters,
    /// Caudal, pectoral and dorsal fins (frequencies).
    Fins,
    /// Signalling LEDs.
    Leds,
    /// Two vibration motors (differential drive).
    VibrationMotors,
    /// Prismatic/revolute joint position motors.
    JointMotors,
}

/// Everything the simulation and the models need to know about one module kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModuleSpec {
    /// Which kind this describes.
    pub kind: ModuleKind,
    /// Collision shape.
    pub shape: Shape,
    /// Mass, kg.
    pub mass: f64,
    /// Where it lives vertically.
    pub medium: Medium,
    /// Quadratic drag coefficient C (dimensionless).
    pub drag_coefficient: f64,
    /// Submerged frontal area used for the drag of a body without faces (spheres), m^2.
    pub frontal_area: f64,
    /// Added mass when fully submerged, per body axis, as a fraction of the displaced
    /// water's mass (dimensionless; 0 for kinds that never meet water).
    pub added_mass: Vector3<f64>,
    /// Height of the point buoyancy acts at above the centre of mass (metacentric height),
    /// m: tilted by an angle a, the body feels a righting torque rho g V GM sin a.
    pub metacentric_height: f64,
    /// Side faces, in order (face 0 along +x, then counter-clockwise seen from above).
    pub faces: Vec<FaceSpec>,
    /// Sensors carried.
    pub sensors: Vec<SensorKind>,
    /// Actuators carried.
    pub actuators: Vec<ActuatorKind>,
}

impl ModuleSpec {
    /// Principal moments of inertia about the centre, kg m^2.
    pub fn inertia(&self) -> Vector3<f64> {
        self.shape.principal_inertia(self.mass)
    }

    /// Height of the face below the water line that meets the flow, m (0 on the ground).
    pub fn wetted_height(&self, face: &FaceSpec) -> f64 {
        match self.medium {
            Medium::Surface { draft } => draft.min(face.height),
            Medium::Submerged => face.height,
            Medium::Ground => 0.0,
        }
    }

    /// Number of faces that carry a latch.
    pub fn latch_count(&self) -> usize {
        self.faces.iter().filter(|f| f.latch.is_some()).count()
    }
}

/// Mass of a floating body in equilibrium: the water it displaces at `draft`, kg.
pub fn floating_mass(shape: &Shape, draft: f64) -> f64 {
    WATER_DENSITY * shape.volume_below(draft)
}

/// Metacentric height of a floating box, m: centre of buoyancy at half the `draft` plus
/// the metacentric radius `width^2 / (12 draft)`, minus the centre of mass
/// `centre_of_mass_height` above the bottom (all m).
pub fn floating_box_metacentric_height(width: f64, draft: f64, centre_of_mass_height: f64) -> f64 {
    0.5 * draft + width * width / (12.0 * draft) - centre_of_mass_height
}

/// The four side faces of a box, counter-clockwise from +x, with optional latch/thruster.
fn box_side_faces(half: Vector3<f64>, latch: Option<LatchSpec>, thruster: Option<ThrusterSpec>) -> Vec<FaceSpec> {
    let normals: [Vector3<f64>; 4] = [Vector3::x(), Vector3::y(), -Vector3::x(), -Vector3::y()];
    normals
        .iter()
        .map(|&normal| {
            let along_x = normal.x.abs() > 0.5;
            FaceSpec {
                normal,
                centre: Vector3::new(normal.x * half.x, normal.y * half.y, 0.0),
                width: 2.0 * if along_x { half.y } else { half.x },
                height: 2.0 * half.z,
                latch,
                thruster,
            }
        })
        .collect()
}

/// EPM latch of the Lily: grabs when the latch centres are within 4 mm and the faces
/// within 20 deg of facing each other (assumed: the magnets' capture range), talks over
/// 0.5 mm (SPEC 1).
const LILY_LATCH: LatchSpec = LatchSpec { capture_distance: 0.004, capture_angle: 20.0 * PI / 180.0, comm_range: 0.0005 };

/// Added-mass fraction of a sphere in potential flow (exact).
const SPHERE_ADDED_MASS: f64 = 0.5;

/// Added-mass fraction of a cube, taken as the sphere's (assumed: compact bodies of the
/// same volume are close to it).
const COMPACT_ADDED_MASS: f64 = SPHERE_ADDED_MASS;

/// Every kind's entry, built once, by [`ModuleKind::index`].
static CATALOGUE: LazyLock<Vec<ModuleSpec>> = LazyLock::new(|| ModuleKind::ALL.iter().map(|k| k.build_spec()).collect());

impl ModuleKind {
    /// The physical description of this kind (built once, shared).
    pub fn spec(self) -> &'static ModuleSpec {
        &CATALOGUE[self.index()]
    }

    fn build_spec(self) -> ModuleSpec {
        match self {
            ModuleKind::PingPongBall => {
                // 3 cm ball weighted to float 25 mm deep; A and C from SPEC 1.
                let shape = Shape::Sphere { radius: 0.015 };
                let draft = 0.025;
                ModuleSpec {
                    kind: self,
                    shape,
                    mass: floating_mass(&shape, draft),
                    medium: Medium::Surface { draft },
                    drag_coefficient: 0.47,
                    frontal_area: 7.0e-4,
                    added_mass: Vector3::repeat(SPHERE_ADDED_MASS),
                    // The ballast that sinks it to 25 mm (~10.4 g of 13.1 g, assumed) sits ~11 mm below
                    // the centre, the 2.7 g shell around it: the centre of mass is ~9 mm low, and a
                    // sphere's buoyancy always acts through its centre.
                    metacentric_height: 0.009,
                    faces: Vec::new(),
                    sensors: Vec::new(),
                    actuators: Vec::new(),
                }
            }
            ModuleKind::Lily => {
                // Square, "roughly the size of a 3 cm ball", 25 mm draft (SPEC 1); 35 mm tall
                // (assumed). C = 1.05, the drag coefficient of a cube face-on (assumed, the
                // paper does not publish C_Lily).
                let half = Vector3::new(0.015, 0.015, 0.0175);
                let shape = Shape::Box { half_extents: half };
                let draft = 0.025;
                ModuleSpec {
                    kind: self,
                    shape,
                    mass: floating_mass(&shape, draft),
                    medium: Medium::Surface { draft },
                    drag_coefficient: 1.05,
                    frontal_area: 4.0 * half.y * draft,
                    added_mass: Vector3::repeat(COMPACT_ADDED_MASS),
                    // Electronics and EPMs low: centre of mass 10 mm above the bottom (assumed).
                    metacentric_height: floating_box_metacentric_height(2.0 * half.x, draft, 0.010),
                    faces: box_side_faces(half, Some(LILY_LATCH), None),
                    sensors: vec![SensorKind::LatchState, SensorKind::LightTop, SensorKind::Radio],
                    actuators: vec![ActuatorKind::Latches],
                }
            }
            ModuleKind::MhpSquare => {
                // 80 x 80 x 90 mm prototype (SPEC 5); floats 60 mm deep (assumed); per face a
                // thruster of 6.4 mN (the simulated single-module figure) and C = 0.8.
                let half = Vector3::new(0.04, 0.04, 0.045);
                let shape = Shape::Box { half_extents: half };
                let draft = 0.06;
                ModuleSpec {
                    kind: self,
                    shape,
                    mass: floating_mass(&shape, draft),
                    medium: Medium::Surface { draft },
                    drag_coefficient: 0.8,
                    frontal_area: 2.0 * half.y * draft,
                    added_mass: Vector3::repeat(COMPACT_ADDED_MASS),
                    // Pumps and battery low: centre of mass 35 mm above the bottom (assumed).
                    metacentric_height: floating_box_metacentric_height(2.0 * half.x, draft, 0.035),
                    faces: box_side_faces(half, None, Some(ThrusterSpec { force: 6.4e-3 })),
                    sensors: vec![SensorKind::ConnectionPerFace, SensorKind::TargetPerFace],
                    actuators: vec![ActuatorKind::Thrusters],
                }
            }
            ModuleKind::MhpCube => {
                // 8 cm neutrally buoyant cube, 6.4 mN per face, C = 0.8 (SPEC 5). Only the
                // four side faces act in the planar model.
                let half = Vector3::repeat(0.04);
                let shape = Shape::Box { half_extents: half };
                ModuleSpec {
                    kind: self,
                    shape,
                    mass: WATER_DENSITY * 8.0 * half.x * half.y * half.z,
                    medium: Medium::Submerged,
                    drag_coefficient: 0.8,
                    frontal_area: 4.0 * half.y * half.z,
                    added_mass: Vector3::repeat(COMPACT_ADDED_MASS),
                    // Uniform: no preferred orientation (SPEC 5 starts from uniformly random ones).
                    metacentric_height: 0.0,
                    faces: box_side_faces(half, None, Some(ThrusterSpec { force: 6.4e-3 })),
                    sensors: vec![SensorKind::ConnectionPerFace, SensorKind::TargetPerFace],
                    actuators: vec![ActuatorKind::Thrusters],
                }
            }
            ModuleKind::Bluebot => {
                // 130 mm long, 235 cm^3 (SPEC 3): a 130 x 45 x 40 mm box (234 cm^3). Slightly
                // positively buoyant (SPEC 3): 0.2 % lighter than the water it displaces
                // (assumed), so it rises at about 40 mm/s with its fins still.
                let half = Vector3::new(0.065, 0.0225, 0.02);
                let shape = Shape::Box { half_extents: half };
                ModuleSpec {
                    kind: self,
                    shape,
                    mass: 0.998 * WATER_DENSITY * 8.0 * half.x * half.y * half.z,
                    medium: Medium::Submerged,
                    drag_coefficient: 0.8,
                    frontal_area: 4.0 * half.y * half.z,
                    // Prolate spheroid of length/diameter 3 (Lamb): along 0.122, across 0.803.
                    added_mass: Vector3::new(0.122, 0.803, 0.803),
                    // Passively stable in roll and pitch (SPEC 3): 5 mm (assumed).
                    metacentric_height: 0.005,
                    faces: box_side_faces(half, None, None),
                    sensors: vec![SensorKind::Cameras],
                    actuators: vec![ActuatorKind::Fins, ActuatorKind::Leds],
                }
            }
            ModuleKind::Kilobot => {
                // 33 mm diameter (SPEC 4), 30 mm tall and 16.5 g (assumed).
                let shape = Shape::Cylinder { radius: 0.0165, half_height: 0.015 };
                ModuleSpec {
                    kind: self,
                    shape,
                    mass: 0.0165,
                    medium: Medium::Ground,
                    drag_coefficient: 0.0,
                    frontal_area: 0.0,
                    added_mass: Vector3::zeros(),
                    metacentric_height: 0.0,
                    faces: Vec::new(),
                    sensors: vec![SensorKind::InfraRedRange, SensorKind::LightTop],
                    actuators: vec![ActuatorKind::VibrationMotors, ActuatorKind::Leds],
                }
            }
            ModuleKind::MolemodBlock => {
                // Lattice cube; 100 mm pitch and 0.3 kg assumed (SPEC 2 gives no size).
                let half = Vector3::repeat(0.05);
                ModuleSpec {
                    kind: self,
                    shape: Shape::Box { half_extents: half },
                    mass: 0.3,
                    medium: Medium::Ground,
                    drag_coefficient: 0.0,
                    frontal_area: 0.0,
                    added_mass: Vector3::zeros(),
                    metacentric_height: 0.0,
                    faces: box_side_faces(half, None, None),
                    sensors: Vec::new(),
                    actuators: Vec::new(),
                }
            }
            ModuleKind::MolemodRobot => {
                // Bounding box of the final model contracted (models::MolemodRobotGeometry:
                // three 40 mm cubes at a 56 mm pitch = 152 mm long), 40 x 40 mm across so it
                // fits a block's square tunnel; 0.2 kg (assumed).
                let half = Vector3::new(0.076, 0.02, 0.02);
                ModuleSpec {
                    kind: self,
                    shape: Shape::Box { half_extents: half },
                    mass: 0.2,
                    medium: Medium::Ground,
                    drag_coefficient: 0.0,
                    frontal_area: 0.0,
                    added_mass: Vector3::zeros(),
                    metacentric_height: 0.0,
                    faces: Vec::new(),
                    sensors: vec![SensorKind::JointPositions],
                    actuators: vec![ActuatorKind::JointMotors],
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_cap_volume_by_hand() {
        // r = 15 mm, h = 25 mm: pi * 625 * (45 - 25) / 3 mm^3 = 13089.97 mm^3.
        let v = Shape::Sphere { radius: 0.015 }.volume_below(0.025);
        assert!((v - 13089.97e-9).abs() < 1e-12, "{v}");
        // Below the whole height: the full sphere 4/3 pi r^3.
        let full = Shape::Sphere { radius: 0.015 }.volume_below(1.0);
        assert!((full - 4.0 / 3.0 * PI * 0.015f64.powi(3)).abs() < 1e-15);
    }

    #[test]
    fn ball_floats_at_its_draft() {
        // Displaced water 13.09 cm^3 -> 13.09 g.
        let ball = ModuleKind::PingPongBall.spec();
        assert!((ball.mass - 0.01308997).abs() < 1e-7, "{}", ball.mass);
    }

    #[test]
    fn metacentric_height_by_hand() {
        // Lily: 30 mm wide, 25 mm draft, centre of mass 10 mm up:
        // 12.5 mm + 0.9 / 0.3 mm = 3 mm - 10 mm = 5.5 mm.
        assert!((floating_box_metacentric_height(0.03, 0.025, 0.010) - 0.0055).abs() < 1e-15);
        assert!((ModuleKind::Lily.spec().metacentric_height - 0.0055).abs() < 1e-15);
    }

    #[test]
    fn projected_areas_by_hand() {
        // Box 0.2 x 0.4 x 0.6: across x 0.4 * 0.6, across y 0.2 * 0.6, across z 0.2 * 0.4.
        let b = Shape::Box { half_extents: Vector3::new(0.1, 0.2, 0.3) }.projected_areas();
        assert!((b - Vector3::new(0.24, 0.12, 0.08)).norm() < 1e-15, "{b}");
        // Cylinder r = 0.1, h = 0.4: side 0.2 * 0.4 = 0.08, top pi 0.01.
        let c = Shape::Cylinder { radius: 0.1, half_height: 0.2 }.projected_areas();
        assert!((c - Vector3::new(0.08, 0.08, PI * 0.01)).norm() < 1e-15, "{c}");
    }

    #[test]
    fn the_catalogue_is_built_once_in_kind_order() {
        for kind in ModuleKind::ALL {
            assert_eq!(kind.spec().kind, kind);
            assert!(std::ptr::eq(kind.spec(), kind.spec()), "{kind}: one shared entry");
        }
    }

    #[test]
    fn box_and_cylinder_volumes_by_hand() {
        let lily = Shape::Box { half_extents: Vector3::new(0.015, 0.015, 0.0175) };
        // 30 mm x 30 mm x 25 mm = 22.5 cm^3.
        assert!((lily.volume_below(0.025) - 22.5e-6).abs() < 1e-12);
        let kb = Shape::Cylinder { radius: 0.01, half_height: 0.01 };
        // pi * 1 cm^2 * 0.5 cm = 1.5708 cm^3.
        assert!((kb.volume_below(0.005) - 1.5707963e-6).abs() < 1e-12);
    }

    #[test]
    fn inertia_by_hand() {
        // Solid sphere 2/5 m r^2: 0.4 * 2 * 0.01 = 0.008.
        let s = Shape::Sphere { radius: 0.1 }.principal_inertia(2.0);
        assert!((s.x - 0.008).abs() < 1e-15);
        // Box 0.2 x 0.4 x 0.6 of 12 kg: Ixx = 0.16 + 0.36 = 0.52, Iyy = 0.04 + 0.36 = 0.40,
        // Izz = 0.04 + 0.16 = 0.20.
        let b = Shape::Box { half_extents: Vector3::new(0.1, 0.2, 0.3) }.principal_inertia(12.0);
        assert!((b - Vector3::new(0.52, 0.40, 0.20)).norm() < 1e-12, "{b}");
        // Cylinder r = 0.1, h = 0.2, m = 12: Izz = 6 * 0.01 = 0.06, Ixx = (0.03 + 0.04) = 0.07.
        let c = Shape::Cylinder { radius: 0.1, half_height: 0.1 }.principal_inertia(12.0);
        assert!((c - Vector3::new(0.07, 0.07, 0.06)).norm() < 1e-12, "{c}");
    }

    #[test]
    fn lily_has_four_latched_faces_with_outward_normals() {
        let lily = ModuleKind::Lily.spec();
        assert_eq!(lily.faces.len(), 4);
        assert_eq!(lily.latch_count(), 4);
        for face in &lily.faces {
            // The centre of a side face lies along its normal, 15 mm out.
            assert!((face.centre.dot(&face.normal) - 0.015).abs() < 1e-12);
            assert!((face.width - 0.03).abs() < 1e-12);
            assert!((lily.wetted_height(face) - 0.025).abs() < 1e-12);
        }
    }

    #[test]
    fn every_kind_has_positive_mass_and_finite_values() {
        for kind in ModuleKind::ALL {
            let spec = kind.spec();
            assert_eq!(spec.kind, kind);
            assert!(spec.mass > 0.0, "{kind}");
            assert!(spec.inertia().iter().all(|v| v.is_finite() && *v > 0.0), "{kind}");
        }
    }
}
