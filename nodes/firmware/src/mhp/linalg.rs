//! The little linear algebra the central controller needs (the firmware crate has no
//! matrix library): 3-vectors, the Moore-Penrose pseudo-inverse of a symmetric 3 x 3
//! matrix by Jacobi rotations, and unit quaternions.

pub(crate) type V3 = [f64; 3];
pub(crate) type M3 = [[f64; 3]; 3];

pub(crate) fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

pub(crate) fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

pub(crate) fn mat_vec(m: &M3, v: V3) -> V3 {
    [dot(m[0], v), dot(m[1], v), dot(m[2], v)]
}

/// The pseudo-inverse of the symmetric matrix `a`: eigenvalues at or below `rel_tol`
/// times the largest count as zero (a 1-module robot has no torque authority at all, a
/// flat robot none out of its plane).
pub(crate) fn pinv_sym(a: &M3, rel_tol: f64) -> M3 {
    let (values, vectors) = jacobi_eigen(a);
    let largest = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut out = [[0.0; 3]; 3];
    for (k, &lambda) in values.iter().enumerate() {
        if largest == 0.0 || lambda.abs() <= rel_tol * largest {
            continue;
        }
        for (i, row) in out.iter_mut().enumerate() {
            for (j, cell) in row.iter_mut().enumerate() {
                *cell += vectors[i][k] * vectors[j][k] / lambda;
            }
        }
    }
    out
}

/// Eigenvalues and eigenvectors (columns) of a symmetric 3 x 3 matrix, cyclic Jacobi.
fn jacobi_eigen(a: &M3) -> (V3, M3) {
    let mut a = *a;
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _sweep in 0..50 {
        let off = a[0][1].powi(2) + a[0][2].powi(2) + a[1][2].powi(2);
        let diag = a[0][0].powi(2) + a[1][1].powi(2) + a[2][2].powi(2);
        if off <= 1e-30 * diag.max(f64::MIN_POSITIVE) {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // a <- J^T a J with J the rotation in the (p, q) plane.
            for row in a.iter_mut() {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = std::array::from_fn(|k| s * rp[k] + c * rq[k]);
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    ([a[0][0], a[1][1], a[2][2]], v)
}

/// Quaternion (w, x, y, z) product `a b`.
pub(crate) fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

pub(crate) fn quat_conj(q: [f64; 4]) -> [f64; 4] {
    [q[0], -q[1], -q[2], -q[3]]
}

/// The rotation vector (axis times angle in -pi..pi, rad) of unit quaternion `q`.
pub(crate) fn rotation_vector(q: [f64; 4]) -> V3 {
    // q and -q are the same rotation: take the one with w >= 0 (the shorter way).
    let q = if q[0] < 0.0 { scale4(q, -1.0) } else { q };
    let s = (q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
    if s < 1e-12 {
        return scale([q[1], q[2], q[3]], 2.0);
    }
    let angle = 2.0 * s.atan2(q[0]);
    scale([q[1], q[2], q[3]], angle / s)
}

fn scale4(q: [f64; 4], s: f64) -> [f64; 4] {
    [q[0] * s, q[1] * s, q[2] * s, q[3] * s]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat_mul(a: &M3, b: &M3) -> M3 {
        let mut out = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                out[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
            }
        }
        out
    }

    fn close(a: &M3, b: &M3) -> bool {
        (0..3).all(|i| (0..3).all(|j| (a[i][j] - b[i][j]).abs() < 1e-9))
    }

    #[test]
    fn pseudo_inverse_of_full_and_singular_matrices() {
        let a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let p = pinv_sym(&a, 1e-12);
        let id = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        assert!(close(&mat_mul(&a, &p), &id), "{p:?}");
        // Rank 1: v v^T with v = (1, 2, 2): pinv = v v^T / |v|^4 = v v^T / 81.
        let v = [1.0, 2.0, 2.0];
        let r1: M3 = std::array::from_fn(|i| std::array::from_fn(|j| v[i] * v[j]));
        let want: M3 = std::array::from_fn(|i| std::array::from_fn(|j| v[i] * v[j] / 81.0));
        assert!(close(&pinv_sym(&r1, 1e-9), &want));
        // Moore-Penrose: A A+ A = A.
        assert!(close(&mat_mul(&mat_mul(&r1, &pinv_sym(&r1, 1e-9)), &r1), &r1));
        assert_eq!(pinv_sym(&[[0.0; 3]; 3], 1e-9), [[0.0; 3]; 3]);
    }

    #[test]
    fn rotation_vectors_by_hand() {
        let h = std::f64::consts::FRAC_PI_4;
        // 90 deg about z.
        let q = [h.cos(), 0.0, 0.0, h.sin()];
        let r = rotation_vector(q);
        assert!((r[2] - std::f64::consts::FRAC_PI_2).abs() < 1e-12 && r[0].abs() < 1e-12, "{r:?}");
        // The same rotation as -q.
        assert!((rotation_vector(scale4(q, -1.0))[2] - r[2]).abs() < 1e-12);
        // q q* = identity.
        let id = quat_mul(q, quat_conj(q));
        assert!((id[0] - 1.0).abs() < 1e-12 && rotation_vector(id).iter().all(|x| x.abs() < 1e-12));
    }
}
