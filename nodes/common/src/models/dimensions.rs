//! Numbers the models need that the module catalogue does not hold: fin joints, sensor
//! and LED mounts, Kilobot legs, the MoleMOD robot's links and the block's tunnels.
//!
//! Where a source paper gives a number it is cited (SPEC section); every other value is
//! marked "assumed" with the reason. Body frame as in the catalogue: origin at the
//! geometric centre, x forward, y left, z up.

use nalgebra::Vector3;
use std::f64::consts::PI;

/// A fin: a thin plate hinged at its front edge, driven by a revolute joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinSpec {
    /// Plate size along x, y, z with the fin at rest, m.
    pub size: Vector3<f64>,
    /// Mass of the fin, kg.
    pub mass: f64,
    /// Hinge point in the body frame, m.
    pub hinge: Vector3<f64>,
    /// Hinge axis in the body frame (unit).
    pub axis: Vector3<f64>,
    /// Largest deflection either way, rad.
    pub amplitude: f64,
    /// Largest actuator torque, N m.
    pub torque: f64,
    /// Largest angular speed, rad/s.
    pub speed: f64,
}

/// Bluebot parts beyond the catalogue's 130 x 45 x 40 mm body (SPEC 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BluebotParts {
    /// Caudal (tail) fin: forward thrust.
    pub caudal_fin: FinSpec,
    /// Left pectoral fin (the right one is its mirror in y): turning.
    pub pectoral_fin_left: FinSpec,
    /// Dorsal fin: diving.
    pub dorsal_fin: FinSpec,
    /// Left camera position in the body frame (the right one is its mirror in y), m.
    pub camera_left_position: Vector3<f64>,
    /// Yaw of the left camera's optical axis from body x, rad (the right one is mirrored).
    pub camera_yaw: f64,
    /// Horizontal field of view of each camera, rad (SPEC 3: 195 deg).
    pub camera_field_of_view: f64,
    /// Vertical distance between the two blue LEDs, m (SPEC 3: 86 mm).
    pub led_spacing: f64,
    /// Position of the midpoint between the two LEDs in the body frame, m.
    pub led_midpoint: Vector3<f64>,
    /// Radius drawn for each LED, m.
    pub led_radius: f64,
}

impl Default for BluebotParts {
    fn default() -> Self {
        let field_of_view = 195.0_f64.to_radians();
        let front_overlap = 35.0_f64.to_radians();
        Self {
            // Fin sizes and masses assumed from photographs of the robot (a few grams each).
            // Caudal 3 Hz and pectoral 6 Hz flapping at +-0.5 rad need peak speeds of
            // 2 pi f A = 9.4 and 18.8 rad/s (SPEC 3); 20 rad/s covers both.
            caudal_fin: FinSpec {
                size: Vector3::new(0.04, 0.002, 0.03),
                mass: 0.003,
                hinge: Vector3::new(-0.065, 0.0, 0.0),
                axis: Vector3::z(),
                amplitude: 0.5,
                torque: 0.02,
                speed: 20.0,
            },
            pectoral_fin_left: FinSpec {
                size: Vector3::new(0.025, 0.002, 0.015),
                mass: 0.001,
                hinge: Vector3::new(0.015, 0.0235, 0.0),
                axis: Vector3::z(),
                amplitude: 0.5,
                torque: 0.005,
                speed: 20.0,
            },
            // A horizontal plate on the back, flapping about the body y axis for vertical thrust.
            dorsal_fin: FinSpec {
                size: Vector3::new(0.03, 0.02, 0.002),
                mass: 0.001,
                hinge: Vector3::new(0.0, 0.0, 0.021),
                axis: Vector3::y(),
                amplitude: 0.5,
                torque: 0.005,
                speed: 20.0,
            },
            // Two 195 deg cameras overlapping 35 deg at the front (SPEC 3): each axis is
            // turned (195 - 35) / 2 = 80 deg off the body axis, leaving 5 deg blind behind.
            camera_left_position: Vector3::new(0.055, 0.012, 0.01),
            camera_yaw: 0.5 * (field_of_view - front_overlap),
            camera_field_of_view: field_of_view,
            led_spacing: 0.086,
            // On a mast through the body centre (assumed), so the pair is seen from any side.
            led_midpoint: Vector3::zeros(),
            led_radius: 0.003,
        }
    }
}

/// Kilobot parts beyond the catalogue's 33 mm x 30 mm cylinder (SPEC 4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KilobotParts {
    /// Length of each of the three rigid legs, from the table to the board, m (assumed).
    pub leg_length: f64,
    /// Radius of a leg, m (assumed).
    pub leg_radius: f64,
    /// Distance of the legs from the body axis, m (assumed).
    pub leg_circle_radius: f64,
    /// Heading of the first leg from body x, rad; the others follow at 120 deg (assumed:
    /// one leg in front, two behind).
    pub first_leg_heading: f64,
}

impl Default for KilobotParts {
    fn default() -> Self {
        Self { leg_length: 0.012, leg_radius: 0.001, leg_circle_radius: 0.012, first_leg_heading: 0.0 }
    }
}

/// The final MoleMOD robot model (SPEC 2): three main cubes in a row along x, joined front
/// and rear by prismatic joint - universal joint - prismatic joint, with a small immaterial
/// cube on each side of each universal joint. The paper gives no dimensions; the catalogue's
/// 40 x 40 mm cross-section and 0.2 kg fix the cube side and the total mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MolemodRobotGeometry {
    /// Edge of each main cube, m (the catalogue's cross-section).
    pub main_cube_side: f64,
    /// Edge of each immaterial joint cube, m (assumed; with the mass below, a sixth of a
    /// main cube's, it keeps the joint chain's inertia ratios solvable by rapier's
    /// impulse joints).
    pub joint_cube_side: f64,
    /// Mass of each immaterial joint cube, kg (assumed: "immaterial" means no contact; the
    /// joint mechanism it stands for still weighs).
    pub joint_cube_mass: f64,
    /// Distance between neighbouring main cube centres with every joint at zero, m
    /// (assumed: a 16 mm gap that holds the joint cubes).
    pub contracted_pitch: f64,
    /// Extension range of each prismatic joint, m (assumed).
    pub prismatic_travel: f64,
    /// Largest force of a prismatic joint, N. The paper states no actuator; sized from a
    /// micro linear actuator that fits a 40 mm cube, the Actuonix PQ12 class (PQ12-30,
    /// 30:1 gearing: 15 N at its load curve's peak-power point, 15 mm/s; 18 N at most;
    /// 20 mm stroke, where the model keeps its 30 mm travel). Loads it meets: a 0.25 kg
    /// block's 2.45 N of friction at 1.0 (6.1x margin), the mole's own 1.96 N weight
    /// up a vertical tunnel (7.7x).
    pub prismatic_force: f64,
    /// Largest speed of a prismatic joint, m/s (assumed; within the PQ12-30's 28 mm/s
    /// unloaded and 15 mm/s at 15 N).
    pub prismatic_speed: f64,
    /// Range of each universal-joint rotation either way, rad (assumed).
    pub universal_range: f64,
    /// Largest torque about each universal-joint axis, N m. The paper states no actuator;
    /// sized from a smart servo that fits a 40 mm cube, the ROBOTIS Dynamixel XL330-M288-T
    /// class (20 x 34 x 26 mm, 18 g; 0.52 N m stall at 5 V; ~100 rpm unloaded, far above
    /// the model's 1 rad/s). Why this class: lifting the robot's block onto its neighbour
    /// (the planner's `lift`) needs 0.34 N m static on the front joint as the block leaves
    /// the floor, 90-100 mm behind it (docs/molemod_execution.md, "Lifting a block onto its
    /// neighbour": the planar model's path search finds no path below 0.34 N m), a 1.5x
    /// margin. The earlier class, a Pololu 1000:1 micro metal gearmotor capped at its
    /// gearbox's 0.245 N m, cannot lift the block off the floor (measured, same section).
    pub universal_torque: f64,
    /// Largest speed about each universal-joint axis, rad/s (assumed; far below the
    /// XL330-M288-T class's ~10 rad/s unloaded).
    pub universal_speed: f64,
}

impl Default for MolemodRobotGeometry {
    fn default() -> Self {
        Self {
            main_cube_side: 0.04,
            joint_cube_side: 0.016,
            joint_cube_mass: 0.015,
            contracted_pitch: 0.056,
            prismatic_travel: 0.03,
            prismatic_force: 15.0,
            prismatic_speed: 0.02,
            universal_range: 0.5 * PI,
            universal_torque: 0.52,
            universal_speed: 1.0,
        }
    }
}

/// The MoleMOD passive block's tunnels (SPEC 2: two straight square tunnels).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MolemodBlockGeometry {
    /// Side of each square tunnel, m (assumed: 5 mm clearance around the robot's 40 mm
    /// cross-section, "only a little bit smaller than the tunnel").
    pub tunnel_side: f64,
}

impl Default for MolemodBlockGeometry {
    fn default() -> Self {
        Self { tunnel_side: 0.05 }
    }
}
