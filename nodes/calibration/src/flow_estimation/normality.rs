//! One-sample Kolmogorov-Smirnov test against a normal distribution with the sample's
//! own mean and standard deviation (the paper's per-cell check). Estimating the
//! parameters from the sample makes the classical p-value conservative (it rejects less
//! often than the nominal level), as in the paper's use of the plain KS test.

/// Standard normal cumulative distribution.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// Complementary error function, Chebyshev fit with fractional error < 1.2e-7
/// (Numerical Recipes `erfcc`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07 + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// KS statistic `D = sup |F_n(x) - Phi((x - mean) / sd)|` of `values` (sample standard
/// deviation, n - 1); `None` with fewer than 2 values or zero spread.
pub fn ks_statistic_normal(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    if sd.is_nan() || sd <= 0.0 {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let d = sorted
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let f = normal_cdf((v - mean) / sd);
            ((i + 1) as f64 / n as f64 - f).max(f - i as f64 / n as f64)
        })
        .fold(0.0, f64::max);
    Some(d)
}

/// Kolmogorov survival function `Q(lambda) = 2 sum_{j>=1} (-1)^{j-1} e^{-2 j^2 lambda^2}`.
pub fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda < 0.2 {
        return 1.0;
    }
    let mut sum = 0.0;
    for j in 1..=100 {
        let j = f64::from(j);
        let term = (-2.0 * j * j * lambda * lambda).exp();
        sum += if j as u32 % 2 == 1 { term } else { -term };
        if term < 1e-12 {
            break;
        }
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

/// p-value of the KS normality test of `values` (Stephens' small-sample correction of
/// the asymptotic distribution); `None` where the statistic is undefined.
pub fn ks_normality_p_value(values: &[f64]) -> Option<f64> {
    let d = ks_statistic_normal(values)?;
    let sqrt_n = (values.len() as f64).sqrt();
    Some(kolmogorov_q((sqrt_n + 0.12 + 0.11 / sqrt_n) * d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Exp, Normal};

    #[test]
    fn normal_cdf_hand_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(-1.0) - 0.158_655_25).abs() < 1e-7);
        assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-7);
    }

    #[test]
    fn ks_statistic_hand_value() {
        // {-1, 0, 1}: mean 0, sd 1; D = max(1/3 - Phi(-1), Phi(1) - 2/3) = 0.174678.
        let d = ks_statistic_normal(&[-1.0, 0.0, 1.0]).unwrap();
        assert!((d - 0.174_678).abs() < 1e-6, "{d}");
        assert_eq!(ks_statistic_normal(&[2.0, 2.0]), None);
        assert_eq!(ks_statistic_normal(&[2.0]), None);
    }

    #[test]
    fn kolmogorov_q_hand_value() {
        // Q(1) = 2 (e^-2 - e^-8 + e^-18 - ...) = 0.270000.
        assert!((kolmogorov_q(1.0) - 0.270_000).abs() < 1e-6);
        assert_eq!(kolmogorov_q(0.0), 1.0);
    }

    #[test]
    fn accepts_normal_and_rejects_exponential_samples() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let normal = Normal::new(0.1, 0.02).unwrap();
        let exp = Exp::new(10.0).unwrap();
        let mut rejected_normal = 0;
        let mut rejected_exp = 0;
        for _ in 0..200 {
            let a: Vec<f64> = (0..200).map(|_| normal.sample(&mut rng)).collect();
            let b: Vec<f64> = (0..200).map(|_| exp.sample(&mut rng)).collect();
            rejected_normal += usize::from(ks_normality_p_value(&a).unwrap() < 0.05);
            rejected_exp += usize::from(ks_normality_p_value(&b).unwrap() < 0.05);
        }
        // Conservative with estimated parameters: well under 5 % false rejections.
        assert!(rejected_normal <= 10, "{rejected_normal}");
        assert!(rejected_exp >= 190, "{rejected_exp}");
    }
}
