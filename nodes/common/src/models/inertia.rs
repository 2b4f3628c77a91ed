//! Mass properties of primitive solids, composition of parts, and the physical-consistency
//! check every link's inertia must pass.

use super::description::{Geometry, Inertial};
use nalgebra::{Isometry3, Matrix3, SymmetricEigen, Vector3};

/// Inertia tensor of a uniform solid of `mass` kg about its centre, in its own axes, kg m^2.
pub fn solid_inertia(geometry: &Geometry, mass: f64) -> Matrix3<f64> {
    match *geometry {
        Geometry::Box { size } => {
            let s2 = size.component_mul(&size);
            Matrix3::from_diagonal(&Vector3::new(s2.y + s2.z, s2.x + s2.z, s2.x + s2.y)) * (mass / 12.0)
        }
        Geometry::Cylinder { radius, length } => {
            let side = mass * (3.0 * radius * radius + length * length) / 12.0;
            Matrix3::from_diagonal(&Vector3::new(side, side, 0.5 * mass * radius * radius))
        }
        Geometry::Sphere { radius } => Matrix3::from_diagonal_element(0.4 * mass * radius * radius),
    }
}

/// Volume of a primitive, m^3.
pub fn volume(geometry: &Geometry) -> f64 {
    match *geometry {
        Geometry::Box { size } => size.x * size.y * size.z,
        Geometry::Cylinder { radius, length } => std::f64::consts::PI * radius * radius * length,
        Geometry::Sphere { radius } => 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3),
    }
}

/// A uniform solid of `mass` kg centred on the link origin.
pub fn solid(geometry: &Geometry, mass: f64) -> Inertial {
    Inertial { mass, centre_of_mass: Vector3::zeros(), inertia: solid_inertia(geometry, mass) }
}

/// One body made of several parts, each given in its own frame placed at `pose` in the
/// result's frame. Inertias are rotated into the result's axes and moved to the common
/// centre of mass (parallel-axis theorem).
pub fn combine(parts: &[(Inertial, Isometry3<f64>)]) -> Inertial {
    let mass: f64 = parts.iter().map(|(p, _)| p.mass).sum();
    if mass <= 0.0 {
        return Inertial { mass: 0.0, centre_of_mass: Vector3::zeros(), inertia: Matrix3::zeros() };
    }
    let com = parts.iter().map(|(p, pose)| pose.transform_point(&p.centre_of_mass.into()).coords * p.mass).sum::<Vector3<f64>>() / mass;
    let inertia = parts
        .iter()
        .map(|(p, pose)| {
            let r = pose.rotation.to_rotation_matrix();
            let rotated = r.matrix() * p.inertia * r.matrix().transpose();
            let d = pose.transform_point(&p.centre_of_mass.into()).coords - com;
            rotated + (Matrix3::identity() * d.dot(&d) - d * d.transpose()) * p.mass
        })
        .sum::<Matrix3<f64>>();
    // Rounding in R I R^T leaves a last-bit asymmetry; files store one triangle.
    Inertial { mass, centre_of_mass: com, inertia: 0.5 * (inertia + inertia.transpose()) }
}

/// Why a link's mass properties are not those of a physical body.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InertiaProblem {
    /// Mass zero, negative or not finite.
    #[error("mass {0} kg is not positive and finite")]
    Mass(f64),
    /// The tensor is not symmetric.
    #[error("inertia tensor is not symmetric (largest asymmetry {0:e} kg m^2)")]
    NotSymmetric(f64),
    /// A principal moment is not positive.
    #[error("inertia tensor is not positive definite (principal moments {0:?} kg m^2)")]
    NotPositiveDefinite([f64; 3]),
    /// One principal moment exceeds the sum of the other two.
    #[error("principal moments {0:?} kg m^2 break the triangle inequality")]
    Triangle([f64; 3]),
}

/// Checks a link's mass properties: positive mass, symmetric positive-definite tensor whose
/// principal moments satisfy the triangle inequality (each at most the sum of the others).
pub fn check(inertial: &Inertial) -> Result<(), InertiaProblem> {
    let m = inertial.mass;
    if !(m.is_finite() && m > 0.0) {
        return Err(InertiaProblem::Mass(m));
    }
    let i = &inertial.inertia;
    let asym = (i - i.transpose()).abs().max();
    let scale = i.abs().max();
    if !asym.is_finite() || asym > 1e-9 * scale {
        return Err(InertiaProblem::NotSymmetric(asym));
    }
    let ev = SymmetricEigen::new(*i).eigenvalues;
    let moments = [ev[0], ev[1], ev[2]];
    if moments.iter().any(|&v| !(v.is_finite() && v > 0.0)) {
        return Err(InertiaProblem::NotPositiveDefinite(moments));
    }
    // Relative slack: a thin plate sits exactly on the bound (Izz = Ixx + Iyy).
    let tolerance = 1e-9 * scale;
    for k in 0..3 {
        let others = moments[(k + 1) % 3] + moments[(k + 2) % 3];
        if moments[k] > others + tolerance {
            return Err(InertiaProblem::Triangle(moments));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{Translation3, UnitQuaternion};

    #[test]
    fn box_cylinder_sphere_by_hand() {
        // 0.2 x 0.4 x 0.6 m box of 12 kg: Ixx = (0.16 + 0.36) = 0.52, Iyy = 0.40, Izz = 0.20.
        let b = solid_inertia(&Geometry::Box { size: Vector3::new(0.2, 0.4, 0.6) }, 12.0);
        assert!((b.diagonal() - Vector3::new(0.52, 0.40, 0.20)).norm() < 1e-12, "{b}");
        // Cylinder r = 0.1, L = 0.2, 12 kg: side = (0.03 + 0.04) = 0.07, axial = 0.06.
        let c = solid_inertia(&Geometry::Cylinder { radius: 0.1, length: 0.2 }, 12.0);
        assert!((c.diagonal() - Vector3::new(0.07, 0.07, 0.06)).norm() < 1e-12, "{c}");
        // Sphere r = 0.1 of 2 kg: 0.4 * 2 * 0.01 = 0.008.
        let s = solid_inertia(&Geometry::Sphere { radius: 0.1 }, 2.0);
        assert!((s.diagonal() - Vector3::repeat(0.008)).norm() < 1e-15);
        assert!((volume(&Geometry::Box { size: Vector3::new(0.2, 0.4, 0.6) }) - 0.048).abs() < 1e-15);
    }

    #[test]
    fn two_point_like_parts_by_parallel_axis() {
        // Two 1 kg spheres of radius 0.01 m at x = +-0.5 m: Iyy = Izz = 2 * (0.4e-4 + 0.25)
        // = 0.50008, Ixx = 2 * 0.4e-4 = 8e-5; centre of mass at the origin.
        let ball = solid(&Geometry::Sphere { radius: 0.01 }, 1.0);
        let combined = combine(&[(ball, Isometry3::translation(0.5, 0.0, 0.0)), (ball, Isometry3::translation(-0.5, 0.0, 0.0))]);
        assert!((combined.mass - 2.0).abs() < 1e-15);
        assert!(combined.centre_of_mass.norm() < 1e-15);
        let d = combined.inertia.diagonal();
        assert!((d - Vector3::new(8e-5, 0.50008, 0.50008)).norm() < 1e-12, "{d}");
    }

    #[test]
    fn rotating_a_part_rotates_its_tensor() {
        // A 1 x 2 x 3 m box of 12 kg turned 90 deg about z swaps Ixx and Iyy: (13, 10, 5) -> (10, 13, 5).
        let b = solid(&Geometry::Box { size: Vector3::new(1.0, 2.0, 3.0) }, 12.0);
        let turned =
            Isometry3::from_parts(Translation3::identity(), UnitQuaternion::from_euler_angles(0.0, 0.0, std::f64::consts::FRAC_PI_2));
        let c = combine(&[(b, turned)]);
        assert!((c.inertia.diagonal() - Vector3::new(10.0, 13.0, 5.0)).norm() < 1e-9, "{}", c.inertia);
    }

    #[test]
    fn check_rejects_unphysical_tensors() {
        let good = solid(&Geometry::Box { size: Vector3::new(0.1, 0.1, 0.1) }, 1.0);
        assert_eq!(check(&good), Ok(()));
        let mut bad = good;
        bad.mass = 0.0;
        assert!(matches!(check(&bad), Err(InertiaProblem::Mass(_))));
        let mut bad = good;
        bad.inertia = Matrix3::from_diagonal(&Vector3::new(1.0, 1.0, 3.0));
        assert!(matches!(check(&bad), Err(InertiaProblem::Triangle(_))));
        let mut bad = good;
        bad.inertia = Matrix3::from_diagonal(&Vector3::new(1.0, -1.0, 1.0));
        assert!(matches!(check(&bad), Err(InertiaProblem::NotPositiveDefinite(_))));
        let mut bad = good;
        bad.inertia[(0, 1)] = 1e-3;
        assert!(matches!(check(&bad), Err(InertiaProblem::NotSymmetric(_))));
    }
}
