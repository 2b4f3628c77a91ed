//! The hydrodynamic plugin of SPEC 1, term by term, as pure functions:
//! flow sampling, quadratic drag (whole body or per face section), stochastic force,
//! Webots-style damping. [`crate::medium::StirredTank`] applies them; buoyancy is its planar hold.

use flotilla_common::catalogue::{ModuleSpec, Shape};
use flotilla_common::flow_field::FlowCell;
use flotilla_common::fluid::QuadraticDrag;
use nalgebra::{Isometry3, Vector2, Vector3};

/// Unit of `sigma_stoch`, N. The source does not state it; with the published 195.25 on
/// a 13 g ball, 1e-4 N gives speeds of the measured order (0.1-0.3 m/s) while 1 N or
/// 1 mN would throw the balls around at metres per second.
pub const STOCH_FORCE_UNIT: f64 = 1e-4;

/// `v_flow = Kv * N(mu_j, sigma_j)` given two standard-normal draws `z`, m/s (horizontal).
pub fn sample_flow(cell: &FlowCell, kv: f64, z: Vector2<f64>) -> Vector3<f64> {
    let v = kv * (cell.mean + cell.std.component_mul(&z));
    Vector3::new(v.x, v.y, 0.0)
}

/// One step of a unit-variance AR(1) (discretised Ornstein-Uhlenbeck) process:
/// `keep * previous + sqrt(1 - keep^2) * fresh`, `fresh` standard-normal draws, `keep` =
/// `exp(-dt / correlation time)` in [0, 1). With `keep` 0 it is exactly `fresh`.
pub fn correlated_noise(keep: f64, previous: Vector2<f64>, fresh: Vector2<f64>) -> Vector2<f64> {
    keep * previous + (1.0 - keep * keep).sqrt() * fresh
}

/// `KF * 1/2 rho A C |v_rel|^2` against the relative velocity `v_rel` (m/s), N: the one
/// drag law of the project ([`QuadraticDrag`], which calibration inverts).
pub fn quadratic_drag(v_rel: Vector3<f64>, area: f64, c: f64, kf: f64, rho: f64) -> Vector3<f64> {
    QuadraticDrag { area, coefficient: c, density: rho }.force(v_rel, kf)
}

/// [`quadratic_drag`] with `speed` = |v_rel| already at hand (the same value, one root less).
fn quadratic_drag_at_speed(v_rel: Vector3<f64>, speed: f64, area: f64, c: f64, kf: f64, rho: f64) -> Vector3<f64> {
    QuadraticDrag { area, coefficient: c, density: rho }.force_at_speed(v_rel, speed, kf)
}

/// Stochastic force at the centre of mass: `sigma_stoch * z` per horizontal axis,
/// `sigma_stoch` in units of [`STOCH_FORCE_UNIT`], `z` standard-normal draws, N.
pub fn stochastic_force(sigma_stoch: f64, z: Vector2<f64>) -> Vector3<f64> {
    let f = sigma_stoch * STOCH_FORCE_UNIT * z;
    Vector3::new(f.x, f.y, 0.0)
}

/// Velocity factor for one step of Webots damping: a fraction `d` of the velocity is
/// removed per second, so a step of `dt` s keeps `(1 - d)^dt`.
pub fn damping_factor(d: f64, dt: f64) -> f64 {
    (1.0 - d).powf(dt)
}

/// Scales a drag force `f` (N) so that one explicit step of `dt` s on mass `m` kg cannot
/// more than cancel the relative speed `speed` m/s: `f / (1 + |f| dt / (m speed))`.
/// For `f = k speed^2` this is the exact one-step solution of `m dv/dt = -k v^2`, so the
/// drag stays the SPEC's for small steps and never reverses the motion for large ones.
pub fn limit_drag(f: Vector3<f64>, speed: f64, mass: f64, dt: f64) -> Vector3<f64> {
    if speed <= 0.0 {
        return Vector3::zeros();
    }
    f / (1.0 + f.norm() * dt / (mass * speed))
}

/// One piece of a face for the drag integral, in the body frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceSection {
    /// Centre of the piece, m.
    pub offset: Vector3<f64>,
    /// Outward unit normal of its face.
    pub normal: Vector3<f64>,
    /// Wetted area of the piece, m^2.
    pub area: f64,
}

/// How drag acts on one module kind.
#[derive(Clone, Debug, PartialEq)]
pub enum DragModel {
    /// Isotropic (sphere): one force at the centre from the frontal area, no torque.
    Isotropic {
        /// Frontal area, m^2.
        area: f64,
        /// Drag coefficient.
        c: f64,
    },
    /// Integrated over the wetted side faces split into sections (gives torque).
    Faces {
        /// All sections of all wetted faces, face after face.
        sections: Vec<FaceSection>,
        /// Sections per face.
        per_face: usize,
        /// Largest distance of a section centre from the body centre, m.
        reach: f64,
        /// Drag coefficient.
        c: f64,
    },
    /// Out of the water: no fluid forces.
    None,
}

impl DragModel {
    /// The drag model of `spec` with each face split into `n` sections along its width.
    pub fn new(spec: &ModuleSpec, n: usize) -> Self {
        let c = spec.drag_coefficient;
        if spec.frontal_area <= 0.0 || c <= 0.0 {
            return DragModel::None;
        }
        if matches!(spec.shape, Shape::Sphere { .. }) || spec.faces.is_empty() {
            return DragModel::Isotropic { area: spec.frontal_area, c };
        }
        let n = n.max(1);
        let sections: Vec<FaceSection> = spec
            .faces
            .iter()
            .filter(|f| f.normal.z.abs() < 0.5)
            .flat_map(|face| {
                let along = Vector3::z().cross(&face.normal);
                let piece = face.width / n as f64;
                let area = piece * spec.wetted_height(face);
                (0..n).map(move |k| FaceSection {
                    offset: face.centre + along * (-0.5 * face.width + (k as f64 + 0.5) * piece),
                    normal: face.normal,
                    area,
                })
            })
            .collect();
        let reach = sections.iter().map(|s| s.offset.norm()).fold(0.0, f64::max);
        DragModel::Faces { sections, per_face: n, reach, c }
    }
}

/// Drag force (N) and torque about the centre (N m) on a body at `pose` moving with
/// `linvel` (m/s) and `angvel` (rad/s) in flow `v_flow` (m/s). Per section: relative
/// velocity of the section's centre, area projected on it (faces turned away from the
/// relative motion get none), `KF 1/2 rho A C |v_rel|^2` against it.
pub fn drag(
    model: &DragModel,
    pose: &Isometry3<f64>,
    linvel: Vector3<f64>,
    angvel: Vector3<f64>,
    v_flow: Vector3<f64>,
    kf: f64,
    rho: f64,
) -> (Vector3<f64>, Vector3<f64>) {
    let horizontal = |v: Vector3<f64>| Vector3::new(v.x, v.y, 0.0);
    match model {
        DragModel::None => (Vector3::zeros(), Vector3::zeros()),
        DragModel::Isotropic { area, c } => (quadratic_drag(horizontal(linvel - v_flow), *area, *c, kf, rho), Vector3::zeros()),
        DragModel::Faces { sections, per_face, reach, c } => {
            let mut force = Vector3::zeros();
            let mut torque = Vector3::zeros();
            // A face turned away from the motion by more than the spin can make up gets no
            // drag on any section: skip it without the per-section arithmetic. The margin
            // keeps the skip to faces that the exact test would skip too.
            let sliding = horizontal(linvel - v_flow);
            let spin = angvel.norm() * reach;
            let margin = spin + 1e-6 * (sliding.norm() + spin);
            for face in sections.chunks(*per_face) {
                let normal = pose.rotation * face[0].normal;
                if normal.dot(&sliding) < -margin {
                    continue;
                }
                for s in face {
                    let r = pose.rotation * s.offset;
                    let v_rel = horizontal(linvel + angvel.cross(&r) - v_flow);
                    let speed = v_rel.norm();
                    if speed == 0.0 {
                        continue;
                    }
                    let facing = normal.dot(&v_rel) / speed;
                    if facing <= 0.0 {
                        continue;
                    }
                    let f = quadratic_drag_at_speed(v_rel, speed, s.area * facing, *c, kf, rho);
                    force += f;
                    torque += r.cross(&f);
                }
            }
            (force, torque)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flotilla_common::catalogue::ModuleKind;

    #[test]
    fn correlated_noise_is_white_at_zero_and_keeps_unit_variance() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, StandardNormal};
        let fresh = Vector2::new(0.3, -1.7);
        // keep 0: bit for bit the fresh draw (the SPEC's white flow, seeds unchanged).
        assert_eq!(correlated_noise(0.0, Vector2::new(5.0, 5.0), fresh), fresh);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let keep = (-0.025f64 / 0.5).exp();
        let mut z = Vector2::zeros();
        let (mut var, mut lag1, n) = (0.0, 0.0, 200_000);
        for _ in 0..n {
            let fresh = Vector2::new(StandardNormal.sample(&mut rng), StandardNormal.sample(&mut rng));
            let next = correlated_noise(keep, z, fresh);
            var += next.x * next.x;
            lag1 += next.x * z.x;
            z = next;
        }
        let (var, rho) = (var / n as f64, lag1 / var);
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
        assert!((rho - keep).abs() < 0.01, "lag-1 correlation {rho} vs {keep}");
    }

    #[test]
    fn flow_sample_by_hand() {
        let cell = FlowCell { mean: Vector2::new(0.1, -0.2), std: Vector2::new(0.05, 0.02), count: 1 };
        // 1.24 * (0.1 + 0.05 * 2, -0.2 + 0.02 * -1) = (0.248, -0.2728).
        let v = sample_flow(&cell, 1.24, Vector2::new(2.0, -1.0));
        assert!((v - Vector3::new(0.248, -0.2728, 0.0)).norm() < 1e-15, "{v}");
    }

    #[test]
    fn ball_drag_by_hand() {
        // 2.266 * 0.5 * 1000 * 7e-4 * 0.47 * 0.2^2 = 0.01491028 N against +x.
        let f = quadratic_drag(Vector3::new(0.2, 0.0, 0.0), 7e-4, 0.47, 2.266, 1000.0);
        assert!((f - Vector3::new(-0.01491028, 0.0, 0.0)).norm() < 1e-9, "{f}");
        // Through the isotropic model: body at rest in a 0.2 m/s flow is pushed along it.
        let ball = DragModel::new(ModuleKind::PingPongBall.spec(), 10);
        let (f, t) = drag(&ball, &Isometry3::identity(), Vector3::zeros(), Vector3::zeros(), Vector3::new(0.2, 0.0, 0.0), 2.266, 1000.0);
        assert!((f - Vector3::new(0.01491028, 0.0, 0.0)).norm() < 1e-9);
        assert_eq!(t, Vector3::zeros());
    }

    #[test]
    fn lily_face_drag_translation_by_hand() {
        // Lily moving +x at 0.1 m/s: only the +x face (30 mm x 25 mm wet) faces the flow:
        // 1 * 0.5 * 1000 * 7.5e-4 * 1.05 * 0.01 = 0.0039375 N, no torque by symmetry.
        let lily = DragModel::new(ModuleKind::Lily.spec(), 10);
        let (f, t) = drag(&lily, &Isometry3::identity(), Vector3::new(0.1, 0.0, 0.0), Vector3::zeros(), Vector3::zeros(), 1.0, 1000.0);
        assert!((f - Vector3::new(-0.0039375, 0.0, 0.0)).norm() < 1e-12, "{f}");
        assert!(t.norm() < 1e-15, "{t}");
        // Turned 45 deg: two faces each see cos 45 of their area, |v|^2 the same:
        // 2 * 0.5 * 1000 * (7.5e-4 * 0.70711) * 1.05 * 0.01 = 0.0055685 N.
        let pose = Isometry3::rotation(Vector3::z() * std::f64::consts::FRAC_PI_4);
        let (f, _) = drag(&lily, &pose, Vector3::new(0.1, 0.0, 0.0), Vector3::zeros(), Vector3::zeros(), 1.0, 1000.0);
        assert!((f.x + 0.00556846).abs() < 1e-8 && f.y.abs() < 1e-15, "{f}");
    }

    #[test]
    fn lily_rotation_drag_by_hand() {
        // Spinning at 1 rad/s with 2 sections per face. On face +x the sections sit at
        // (0.015, +-0.0075); velocity w x r = (-y, x): (-0.0075, 0.015) faces away,
        // (0.0075, 0.015) faces the motion with cos = 0.0075 / 0.0167705 = 0.4472136.
        // Force: 0.5 * 1000 * 1.05 * (0.015 * 0.025) * 0.4472136 * 2.8125e-4 = 2.476271e-5 N
        // along -u; torque z = -(0.015 * 0.8944272 + 0.0075 * 0.4472136) * 2.476271e-5
        // = -4.152832e-7 N m per face, four faces: -1.661133e-6 N m.
        let lily = DragModel::new(ModuleKind::Lily.spec(), 2);
        let (f, t) = drag(&lily, &Isometry3::identity(), Vector3::zeros(), Vector3::z(), Vector3::zeros(), 1.0, 1000.0);
        assert!(f.norm() < 1e-15, "{f}");
        assert!((t.z + 1.661133e-6).abs() < 1e-11, "{t}");
    }

    #[test]
    fn stochastic_force_by_hand() {
        // 195.25 units of 1e-4 N times (1, -2): (0.019525, -0.03905) N.
        let f = stochastic_force(195.25, Vector2::new(1.0, -2.0));
        assert!((f - Vector3::new(0.019525, -0.03905, 0.0)).norm() < 1e-15, "{f}");
    }

    #[test]
    fn damping_by_hand() {
        // Half the velocity removed per second, 25 ms step: 0.5^0.025 = 0.98282059.
        assert!((damping_factor(0.5, 0.025) - 0.98282059).abs() < 1e-8);
        // After 40 such steps exactly half is left.
        assert!((damping_factor(0.5, 0.025).powi(40) - 0.5).abs() < 1e-12);
        assert_eq!(damping_factor(1.0, 0.025), 0.0);
        assert_eq!(damping_factor(0.0, 0.025), 1.0);
    }

    #[test]
    fn drag_limiter_by_hand() {
        // f = 0.4 N on 0.01 kg at 0.5 m/s, dt = 0.025: 0.4 / (1 + 0.4 * 0.025 / 0.005) = 0.1333 N.
        let f = limit_drag(Vector3::new(-0.4, 0.0, 0.0), 0.5, 0.01, 0.025);
        assert!((f.x + 0.4 / 3.0).abs() < 1e-15);
        // Small forces are left (nearly) alone.
        let f = limit_drag(Vector3::new(-1e-6, 0.0, 0.0), 0.5, 0.01, 0.025);
        assert!((f.x + 1e-6).abs() < 1e-11);
    }

    #[test]
    fn skipping_turned_away_faces_changes_nothing() {
        // The per-section sum without the skip, for random motions of a turned Lily.
        use rand::{Rng, SeedableRng};
        let lily = DragModel::new(ModuleKind::Lily.spec(), 10);
        let DragModel::Faces { sections, c, .. } = &lily else { panic!("faces") };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut v = || Vector3::new(rng.gen_range(-0.3..0.3), rng.gen_range(-0.3..0.3), 0.0);
        for _ in 0..2000 {
            let (linvel, flow, w) = (v(), v(), v().x * 20.0);
            let angvel = Vector3::new(0.0, 0.0, w);
            let pose = Isometry3::rotation(Vector3::z() * (linvel.y * 10.0));
            let (mut force, mut torque) = (Vector3::zeros(), Vector3::zeros());
            for s in sections {
                let r = pose.rotation * s.offset;
                let v_rel = linvel + angvel.cross(&r) - flow;
                let v_rel = Vector3::new(v_rel.x, v_rel.y, 0.0);
                let speed = v_rel.norm();
                let facing = if speed == 0.0 { 0.0 } else { (pose.rotation * s.normal).dot(&v_rel) / speed };
                if facing > 0.0 {
                    let f = quadratic_drag(v_rel, s.area * facing, *c, 1.0, 1000.0);
                    force += f;
                    torque += r.cross(&f);
                }
            }
            assert_eq!(drag(&lily, &pose, linvel, angvel, flow, 1.0, 1000.0), (force, torque), "bit for bit");
        }
    }

    #[test]
    fn sections_cover_the_wetted_faces() {
        let spec = ModuleKind::Lily.spec();
        let DragModel::Faces { sections, .. } = DragModel::new(spec, 10) else { panic!("faces") };
        assert_eq!(sections.len(), 40);
        let area: f64 = sections.iter().map(|s| s.area).sum();
        assert!((area - 4.0 * 0.03 * 0.025).abs() < 1e-15);
    }
}
