//! Trilateration from localised neighbours: the greedy heuristic of the Kilobot
//! self-assembly (each reference pulls the estimate a fraction 1/DIVIDE_LOCALIZE toward
//! the point at its measured distance) and least squares (Levenberg-Marquardt on the
//! range residuals, the study's "opt").

/// A localised neighbour: its position (world units) and the measured distance to it.
pub type Reference = ([f64; 2], f64);

/// One greedy pass over `references`, moving `position` (world units).
pub fn greedy(position: &mut [f64; 2], references: &[Reference], divide: f64) {
    for &(p, d) in references {
        let (dx, dy) = (position[0] - p[0], position[1] - p[1]);
        let c = dx.hypot(dy);
        if c < 1e-12 {
            continue;
        }
        let target = [p[0] + d * dx / c, p[1] + d * dy / c];
        position[0] -= (position[0] - target[0]) / divide;
        position[1] -= (position[1] - target[1]) / divide;
    }
}

/// Root-mean-square range residual, world units, above which a least-squares fix is taken
/// for a local minimum rather than for measurement error (the distance error is at most
/// 0.0615 k world units).
pub const LOCAL_MINIMUM_RMS: f64 = 0.2;

/// Root-mean-square range residual of `p` against `references`, world units.
pub fn rms_residual(p: [f64; 2], references: &[Reference]) -> f64 {
    let sum: f64 = references.iter().map(|&(q, d)| ((p[0] - q[0]).hypot(p[1] - q[1]) - d).powi(2)).sum();
    (sum / references.len() as f64).sqrt()
}

/// [`least_squares`] from `start`, and when that lands on a local minimum (residual above
/// [`LOCAL_MINIMUM_RMS`]: the seeds sit symmetrically about the shape's corner, and a robot
/// starting from it can settle on a mirror image of its position) from the eight points at
/// each reference's measured distance around it, keeping the least residual.
pub fn least_squares_global(start: [f64; 2], references: &[Reference]) -> Option<[f64; 2]> {
    let mut best = least_squares(start, references).map(|p| (rms_residual(p, references), p));
    if let Some((rms, p)) = best {
        if rms <= LOCAL_MINIMUM_RMS {
            return Some(p);
        }
    }
    for &(q, d) in references {
        for k in 0..8 {
            let angle = f64::from(k) * std::f64::consts::FRAC_PI_4;
            let from = [q[0] + d * angle.cos(), q[1] + d * angle.sin()];
            if let Some(p) = least_squares(from, references) {
                let rms = rms_residual(p, references);
                if best.is_none_or(|(b, _)| rms < b) {
                    best = Some((rms, p));
                }
            }
        }
    }
    best.map(|(_, p)| p)
}

/// The position minimising the squared range residuals, from `start` (a local search);
/// `None` when the references do not pin a point (fewer than two, or degenerate).
pub fn least_squares(start: [f64; 2], references: &[Reference]) -> Option<[f64; 2]> {
    if references.len() < 2 {
        return None;
    }
    let cost = |p: [f64; 2]| references.iter().map(|&(q, d)| ((p[0] - q[0]).hypot(p[1] - q[1]) - d).powi(2)).sum::<f64>();
    let mut p = start;
    // A start on top of a reference has no gradient direction: nudge it.
    if references.iter().any(|&(q, _)| (p[0] - q[0]).hypot(p[1] - q[1]) < 1e-9) {
        p[0] += 1e-3;
        p[1] += 7e-4;
    }
    let mut current = cost(p);
    let mut lambda = 1e-6;
    for _ in 0..60 {
        let (mut a, mut b, mut c, mut gx, mut gy) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for &(q, d) in references {
            let (dx, dy) = (p[0] - q[0], p[1] - q[1]);
            let r = dx.hypot(dy).max(1e-12);
            let (jx, jy) = (dx / r, dy / r);
            let res = r - d;
            a += jx * jx;
            b += jx * jy;
            c += jy * jy;
            gx += jx * res;
            gy += jy * res;
        }
        let (a, c) = (a + lambda * (1.0 + a), c + lambda * (1.0 + c));
        let det = a * c - b * b;
        if det.abs() < 1e-18 {
            return None;
        }
        let step = [-(c * gx - b * gy) / det, -(a * gy - b * gx) / det];
        let next = [p[0] + step[0], p[1] + step[1]];
        let trial = cost(next);
        if trial <= current {
            p = next;
            current = trial;
            lambda = (lambda / 10.0).max(1e-12);
            if step[0].hypot(step[1]) < 1e-12 {
                break;
            }
        } else {
            lambda *= 10.0;
            if lambda > 1e8 {
                break;
            }
        }
    }
    p.iter().all(|v| v.is_finite()).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(truth: [f64; 2]) -> Vec<Reference> {
        [[0.0, 0.0], [1.0, 0.0], [0.5, 0.866], [1.5, 0.866]].iter().map(|&q| (q, (truth[0] - q[0]).hypot(truth[1] - q[1]))).collect()
    }

    #[test]
    fn greedy_passes_converge_to_the_true_position() {
        let truth = [-1.2, 2.3];
        let r = refs(truth);
        let mut p = [0.0, 0.0];
        let mut errors = Vec::new();
        for _ in 0..200 {
            greedy(&mut p, &r, 2.0);
            errors.push((p[0] - truth[0]).hypot(p[1] - truth[1]));
        }
        assert!(errors[199] < 1e-9, "{:?}", &errors[190..]);
        assert!(errors[5] > errors[50], "shrinks");
    }

    #[test]
    fn least_squares_lands_on_the_true_position_at_once() {
        let truth = [3.1, -0.4];
        let p = least_squares([2.0, 0.5], &refs(truth)).unwrap();
        assert!((p[0] - truth[0]).abs() < 1e-9 && (p[1] - truth[1]).abs() < 1e-9, "{p:?}");
        assert!(least_squares([0.0, 0.0], &refs(truth)[..1]).is_none());
    }

    #[test]
    fn a_start_between_symmetric_seeds_finds_the_true_position_not_its_mirror() {
        // Three of the study's seeds (a rhombus centred on the shape's corner; the fourth is
        // out of range) and the first robot to reach them, from the left: from the corner
        // the local search settles on the mirror image across the seeds' axis (regression:
        // 2026-11-30, least-squares runs ended with MSE ~1).
        let seeds = [[-0.5, 0.0], [0.0, 0.866], [0.0, -0.866]];
        let truth: [f64; 2] = [-2.7605, -0.0671];
        let r: Vec<Reference> = seeds.iter().map(|&q| (q, (truth[0] - q[0]).hypot(truth[1] - q[1]))).collect();
        let local = least_squares([0.0, 0.0], &r).unwrap();
        assert!(rms_residual(local, &r) > LOCAL_MINIMUM_RMS, "the local search alone finds it: {local:?}");
        let p = least_squares_global([0.0, 0.0], &r).unwrap();
        assert!((p[0] - truth[0]).abs() < 1e-9 && (p[1] - truth[1]).abs() < 1e-9, "{p:?}");
    }
}
