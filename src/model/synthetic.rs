//! Synthetic classification data standing in for MNIST in the shrunk \[ZCHWB\] experiment
//! (MNIST is not available offline).

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::noise::standard_normal;
use crate::rng::DpRng;
use rand::RngExt;

/// A Gaussian mixture and the class means that generated it.
#[derive(Debug, Clone)]
pub struct GaussianClasses {
    /// Records `x = μ_y + N(0, I_d)` with labels y ∈ {0, …, K−1} (as f64).
    pub data: Dataset,
    /// `μ_0, …, μ_{K−1}`, each of norm `separation`.
    pub means: Vec<Vec<f64>>,
}

/// n records of a K-class Gaussian mixture in `R^d`: the class means are independent uniform
/// directions scaled to norm `separation`, labels are uniform on {0, …, K−1} and
/// `x = μ_y + N(0, I_d)`. Larger separations make the problem easier; the Bayes accuracy is
/// below 1 for every finite separation.
///
/// # Errors
/// `InvalidParameter` for n, d = 0, fewer than two classes, or a separation that is not finite
/// and ≥ 0.
pub fn gaussian_classes(
    n: usize,
    d: usize,
    classes: usize,
    separation: f64,
    rng: &mut DpRng,
) -> Result<GaussianClasses> {
    if n == 0 || d == 0 {
        return Err(Error::invalid("n, d", format!("{n}, {d}"), ">= 1"));
    }
    if classes < 2 {
        return Err(Error::invalid("classes", classes, ">= 2"));
    }
    if !(separation.is_finite() && separation >= 0.0) {
        return Err(Error::invalid("separation", separation, "finite and >= 0"));
    }
    let means: Vec<Vec<f64>> = (0..classes)
        .map(|_| {
            let mut m: Vec<f64> = (0..d).map(|_| standard_normal(rng)).collect();
            let norm = crate::linalg::norm_l2(&m).max(f64::MIN_POSITIVE);
            m.iter_mut().for_each(|v| *v *= separation / norm);
            m
        })
        .collect();
    let mut features = Vec::with_capacity(n * d);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let y = rng.random_range(0..classes);
        features.extend(means[y].iter().map(|m| m + standard_normal(rng)));
        labels.push(y as f64);
    }
    Ok(GaussianClasses { data: Dataset::new(features, labels, d)?, means })
}
