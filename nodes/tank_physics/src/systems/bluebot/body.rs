//! One Bluebot's rigid-body dynamics in still water, integrated by a dedicated 6-DOF
//! integrator (no rapier: a swarm of 100 must run at 20x real time on one core, and a
//! Bluebot only meets walls, the floor, the surface and other Bluebots, all of which are
//! spheres against planes or spheres).
//!
//! Per step of `dt`: fin thrusts in the body frame; weight and buoyancy of the submerged
//! part (the body is taken as its catalogue box, upright for the waterline); a righting
//! torque from the centre of buoyancy [`BodyParams::metacentric_height`] above the centre
//! of mass; anisotropic quadratic drag per body axis and added mass per body axis. Drag is
//! integrated implicitly per axis (`v' = (v + dt F / M) / (1 + dt k |v| / M)`), so a light
//! body with a large added mass stays stable at any step.

use super::GRAVITY;
use flotilla_common::catalogue::{ModuleKind, Shape, WATER_DENSITY};
use flotilla_contract::bluebot::BluebotCommand;
use nalgebra::{UnitQuaternion, Vector3};

/// How fin frequencies become forces and torques (the calibrated fin-to-force map).
/// Thrust grows with the square of the beat frequency up to a saturation frequency, above
/// which the electromagnetic actuator no longer follows (its amplitude drops).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinMap {
    /// Caudal thrust per squared frequency, along body +x, N/Hz^2.
    pub caudal_gain: f64,
    /// Caudal frequency of the largest thrust, Hz.
    pub caudal_saturation: f64,
    /// Thrust of one pectoral fin per squared frequency, N/Hz^2.
    pub pectoral_gain: f64,
    /// Pectoral frequency of the largest thrust, Hz.
    pub pectoral_saturation: f64,
    /// Angle of a pectoral's thrust from the lateral axis toward -x, rad (the fins are
    /// angled 30 deg forward, so both together push backward: braking).
    pub pectoral_angle: f64,
    /// Effective lever arm of a pectoral's thrust about the vertical axis (the flapping
    /// fin's couple included; calibrated, not its hinge position), m.
    pub pectoral_lever: f64,
    /// Dorsal thrust per squared frequency, along body -z, N/Hz^2.
    pub dorsal_gain: f64,
    /// Dorsal frequency of the largest thrust, Hz.
    pub dorsal_saturation: f64,
}

impl FinMap {
    /// Calibrated so that the simulated Bluebot swims as the paper reports (SPEC 3): cruise
    /// 150 mm/s at full caudal, dive 75 mm/s at full dorsal, a 65 mm turning radius at full
    /// caudal with one full pectoral (the radius depends on the ratio of the two
    /// frequencies only, as the paper notes), a 180 deg turn in under 5 s
    /// ([`super::capabilities`] measures each).
    pub fn calibrated() -> Self {
        Self {
            caudal_gain: 1.04e-3,
            caudal_saturation: 4.0,
            pectoral_gain: 4.0e-4,
            pectoral_saturation: 8.0,
            pectoral_angle: 30f64.to_radians(),
            pectoral_lever: 0.06,
            dorsal_gain: 1.3e-3,
            dorsal_saturation: 4.0,
        }
    }

    fn thrust(gain: f64, saturation: f64, frequency: f64) -> f64 {
        let f = frequency.clamp(0.0, saturation);
        gain * f * f
    }

    /// Force (body frame, N) and yaw torque (N m) of `command`.
    pub fn wrench(&self, command: &BluebotCommand) -> (Vector3<f64>, f64) {
        let caudal = Self::thrust(self.caudal_gain, self.caudal_saturation, command.caudal);
        let left = Self::thrust(self.pectoral_gain, self.pectoral_saturation, command.pectoral_left);
        let right = Self::thrust(self.pectoral_gain, self.pectoral_saturation, command.pectoral_right);
        let dorsal = Self::thrust(self.dorsal_gain, self.dorsal_saturation, command.dorsal);
        let (sin, cos) = self.pectoral_angle.sin_cos();
        // The left fin pushes the body back and to the right and turns it clockwise (seen
        // from above); the right fin mirrors it.
        let force = Vector3::new(caudal - sin * (left + right), cos * (right - left), -dorsal);
        (force, self.pectoral_lever * (right - left))
    }
}

/// The physical description of a Bluebot for the dedicated integrator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyParams {
    /// Mass, kg.
    pub mass: f64,
    /// Half extents of the body box (length, width, height), m.
    pub half_extents: Vector3<f64>,
    /// Water density, kg/m^3.
    pub water_density: f64,
    /// Drag coefficient across each body axis (x forward, y lateral, z vertical), 1.
    pub drag_coefficients: Vector3<f64>,
    /// Added mass per body axis over the displaced mass, 1.
    pub added_mass: Vector3<f64>,
    /// Added moment of inertia per body axis over the box's own, 1.
    pub added_inertia: Vector3<f64>,
    /// Rotational drag coefficient, 1: torque about axis i is `-rho C w_i |w_i| L^4 W / 64`
    /// (a flat plate of the body's length L and the height or width W across the axis).
    pub rotational_drag: f64,
    /// Linear rotational damping, N m s/rad: the fins and the flow along the body resist
    /// slow turns, so the yaw rate follows the fins within a fraction of a second (without
    /// it, a slowly turning robot keeps its yaw rate for ~10 s and cannot answer 2 Hz
    /// sensing).
    pub rotational_damping: f64,
    /// Height of the centre of buoyancy above the centre of mass, m.
    pub metacentric_height: f64,
    /// Radius of the sphere used for contacts with walls, floor and other robots, m.
    pub contact_radius: f64,
    /// The fin-to-force map.
    pub fins: FinMap,
}

impl BodyParams {
    /// The catalogue's Bluebot (`ModuleKind::Bluebot`): its box, mass, added mass and
    /// metacentric height; drag across the flat sides and the contact sphere assumed.
    pub fn bluebot() -> Self {
        let spec = ModuleKind::Bluebot.spec();
        let half_extents = match spec.shape {
            Shape::Box { half_extents } => half_extents,
            // The catalogue's Bluebot is a box; any other shape is taken by its height.
            _ => Vector3::new(0.065, 0.0225, spec.shape.half_height()),
        };
        Self {
            mass: spec.mass,
            half_extents,
            water_density: WATER_DENSITY,
            // Streamlined nose (the catalogue's C = 0.8), flat sides and belly (C = 1.0).
            drag_coefficients: Vector3::new(spec.drag_coefficient, 1.0, 1.0),
            added_mass: spec.added_mass,
            // Roll and pitch move water like the body's own inertia; yaw of a slender body
            // little (assumed).
            added_inertia: Vector3::new(1.0, 1.0, 0.2),
            rotational_drag: 1.0,
            // Yaw time constant (body plus added inertia over this) of 0.3 s (assumed).
            rotational_damping: 1.5e-3,
            metacentric_height: spec.metacentric_height,
            contact_radius: 0.05,
            fins: FinMap::calibrated(),
        }
    }

    /// Volume of the body box, m^3.
    pub fn volume(&self) -> f64 {
        8.0 * self.half_extents.x * self.half_extents.y * self.half_extents.z
    }

    /// Submerged fraction of the body whose centre is `depth` m below the surface (upright).
    pub fn submerged_fraction(&self, depth: f64) -> f64 {
        ((depth + self.half_extents.z) / (2.0 * self.half_extents.z)).clamp(0.0, 1.0)
    }

    /// Quadratic drag constants per body axis, `1/2 rho C A`, kg/m.
    fn drag(&self) -> Vector3<f64> {
        let e = 2.0 * self.half_extents;
        let area = Vector3::new(e.y * e.z, e.x * e.z, e.x * e.y);
        0.5 * self.water_density * self.drag_coefficients.component_mul(&area)
    }

    /// Effective mass per body axis (body plus added mass), kg.
    fn inertial_mass(&self) -> Vector3<f64> {
        Vector3::repeat(self.mass) + self.added_mass * self.water_density * self.volume()
    }

    /// Effective moment of inertia per body axis (box plus added), kg m^2.
    fn inertia(&self) -> Vector3<f64> {
        let e = 2.0 * self.half_extents;
        let own = self.mass / 12.0 * Vector3::new(e.y * e.y + e.z * e.z, e.x * e.x + e.z * e.z, e.x * e.x + e.y * e.y);
        own + own.component_mul(&self.added_inertia)
    }

    /// Quadratic rotational drag constants per body axis, N m s^2.
    fn rotational(&self) -> Vector3<f64> {
        let e = 2.0 * self.half_extents;
        let plate = |length: f64, width: f64| self.water_density * self.rotational_drag * length.powi(4) * width / 64.0;
        // Roll: the body's width turning across its height; pitch and yaw: its length.
        Vector3::new(plate(e.y.max(e.z), e.x), plate(e.x, e.y), plate(e.x, e.z))
    }

    /// The constants one step needs, computed once.
    pub fn constants(&self) -> BodyConstants {
        BodyConstants {
            drag: self.drag(),
            mass: self.inertial_mass(),
            inertia: self.inertia(),
            rotational: self.rotational(),
            buoyancy: self.water_density * GRAVITY * self.volume(),
            weight: self.mass * GRAVITY,
        }
    }
}

/// Per-body constants derived from [`BodyParams`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyConstants {
    /// Quadratic drag per body axis, kg/m.
    pub drag: Vector3<f64>,
    /// Effective mass per body axis, kg.
    pub mass: Vector3<f64>,
    /// Effective moment of inertia per body axis, kg m^2.
    pub inertia: Vector3<f64>,
    /// Quadratic rotational drag per body axis, N m s^2.
    pub rotational: Vector3<f64>,
    /// Buoyancy when fully submerged, N.
    pub buoyancy: f64,
    /// Weight, N.
    pub weight: f64,
}

/// Where a Bluebot is and how it moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Centre of mass in the tank frame (origin at a floor corner, z up), m.
    pub position: Vector3<f64>,
    /// Velocity in the tank frame, m/s.
    pub velocity: Vector3<f64>,
    /// Orientation (body x forward, y left, z up).
    pub orientation: UnitQuaternion<f64>,
    /// Angular velocity in the body frame, rad/s.
    pub angular_velocity: Vector3<f64>,
}

impl BodyState {
    /// At rest at `position`, level, heading `yaw` rad (counter-clockwise from tank x).
    pub fn at_rest(position: Vector3<f64>, yaw: f64) -> Self {
        Self {
            position,
            velocity: Vector3::zeros(),
            orientation: UnitQuaternion::from_axis_angle(&Vector3::z_axis(), yaw),
            angular_velocity: Vector3::zeros(),
        }
    }

    /// Heading in the horizontal plane, counter-clockwise from tank x, rad.
    pub fn yaw(&self) -> f64 {
        let forward = self.orientation * Vector3::x();
        forward.y.atan2(forward.x)
    }

    /// Advances by `dt` s under `command` below a surface at height `surface` m, with an
    /// extra force `contact` (tank frame, N).
    pub fn step(&mut self, params: &BodyParams, k: &BodyConstants, command: &BluebotCommand, surface: f64, dt: f64) {
        let rotation = self.orientation;
        let depth = surface - self.position.z;
        let lift = k.buoyancy * params.submerged_fraction(depth);
        let (thrust, yaw_torque) = params.fins.wrench(command);
        let force = thrust + rotation.inverse() * Vector3::new(0.0, 0.0, lift - k.weight);
        let v = rotation.inverse() * self.velocity;
        let speed = v.norm();
        let v_new = Vector3::from_fn(|i, _| (v[i] + dt * force[i] / k.mass[i]) / (1.0 + dt * k.drag[i] * speed / k.mass[i]));
        self.velocity = rotation * v_new;
        self.position += self.velocity * dt;

        // Buoyancy acts at the centre of buoyancy, above the centre of mass along body z.
        let lever = rotation * Vector3::new(0.0, 0.0, params.metacentric_height);
        let righting = rotation.inverse() * lever.cross(&Vector3::new(0.0, 0.0, lift));
        let torque = righting + Vector3::new(0.0, 0.0, yaw_torque);
        let w = self.angular_velocity;
        self.angular_velocity = Vector3::from_fn(|i, _| {
            let damping = k.rotational[i] * w[i].abs() + params.rotational_damping;
            (w[i] + dt * torque[i] / k.inertia[i]) / (1.0 + dt * damping / k.inertia[i])
        });
        self.orientation = rotation * UnitQuaternion::from_scaled_axis(self.angular_velocity * dt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fin_map_by_hand() {
        let fins = FinMap::calibrated();
        let (f, t) = fins.wrench(&BluebotCommand { caudal: 2.0, ..Default::default() });
        assert!((f.x - 4.0 * fins.caudal_gain).abs() < 1e-15 && f.y == 0.0 && t == 0.0);
        // Above saturation the thrust stays at its largest.
        let (f, _) = fins.wrench(&BluebotCommand { caudal: 19.0, ..Default::default() });
        assert!((f.x - 16.0 * fins.caudal_gain).abs() < 1e-15);
        // Left pectoral: backward, to the right, clockwise.
        let (f, t) = fins.wrench(&BluebotCommand { pectoral_left: 4.0, ..Default::default() });
        let thrust = 16.0 * fins.pectoral_gain;
        assert!((f.x + 0.5 * thrust).abs() < 1e-12 && (f.y + thrust * 3f64.sqrt() / 2.0).abs() < 1e-12, "{f}");
        assert!((t + fins.pectoral_lever * thrust).abs() < 1e-15 && t < 0.0);
        let (f, _) = fins.wrench(&BluebotCommand { dorsal: 1.0, ..Default::default() });
        assert!((f.z + fins.dorsal_gain).abs() < 1e-15);
    }

    #[test]
    fn slightly_buoyant_and_righted_when_tilted() {
        let p = BodyParams::bluebot();
        let k = p.constants();
        assert!(k.buoyancy > k.weight && k.buoyancy < 1.01 * k.weight, "{} {}", k.buoyancy, k.weight);
        let mut s = BodyState::at_rest(Vector3::new(0.5, 0.5, 0.4), 0.0);
        s.orientation = UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.5) * s.orientation;
        for _ in 0..1000 {
            s.step(&p, &k, &BluebotCommand::default(), 0.91, 0.01);
        }
        let up = s.orientation * Vector3::z();
        assert!(up.z > 0.999, "righted: {up}");
        assert!(s.velocity.z > 0.0, "rises: {}", s.velocity);
    }
}
