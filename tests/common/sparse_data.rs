//! Random sparse rows for the tests of the \[GGKKM\] mechanisms.

use dpref::data::sparse::SparseDataset;
use dpref::geometry::Domain;
use dpref::linalg::norm_l2;
use dpref::rng::{DpRng, Seeds, Stream};
use rand::RngExt;

/// s distinct coordinates of `0..d`, drawn uniformly one at a time from `r` (repeats redrawn),
/// sorted.
pub fn random_support(r: &mut DpRng, d: usize, s: usize) -> Vec<usize> {
    let mut support: Vec<usize> = Vec::new();
    while support.len() < s {
        let j = r.random_range(0..d);
        if !support.contains(&j) {
            support.push(j);
        }
    }
    support.sort_unstable();
    support
}

/// n random s-sparse rows of ℓ2 norm exactly L·(1 − 1e-15) (a hair inside, so that rounding of
/// the norm never refuses them), as (CSR rows, dense features), drawn from `r`.
pub fn sparse_rows_from(r: &mut DpRng, n: usize, d: usize, s: usize, l: f64) -> (Vec<Vec<(usize, f64)>>, Vec<f64>) {
    let mut rows = Vec::with_capacity(n);
    let mut dense = vec![0.0; n * d];
    for i in 0..n {
        let support = random_support(r, d, s);
        let vals: Vec<f64> = support.iter().map(|_| r.random::<f64>() + 0.1).collect();
        let norm = norm_l2(&vals);
        let row: Vec<(usize, f64)> = support
            .iter()
            .zip(&vals)
            .map(|(&j, &v)| {
                let sign = if r.random::<bool>() { 1.0 } else { -1.0 };
                (j, sign * v * l * (1.0 - 1e-15) / norm)
            })
            .collect();
        for &(j, v) in &row {
            dense[i * d + j] = v;
        }
        rows.push(row);
    }
    (rows, dense)
}

/// n random s-sparse rows of dimension d and ℓ2 norm 1 (through [`sparse_rows_from`]), then n
/// labels ±1 (fair coins), all drawn from the data stream of `Seeds::new(seed)`.
pub fn labelled_sparse_dataset(seed: u64, n: usize, d: usize, s: usize) -> SparseDataset {
    sparse_data(n, d, s, 1.0, seed)
}

/// n random s-sparse rows of dimension d and ℓ2 norm `l·(1 − 1e-15)` (through
/// [`sparse_rows_from`]), then n labels ±1 (fair coins), all drawn from the data stream of
/// `Seeds::new(seed)`.
pub fn sparse_data(n: usize, d: usize, s: usize, l: f64, seed: u64) -> SparseDataset {
    let mut r = Seeds::new(seed).stream(Stream::Data);
    let (rows, _) = sparse_rows_from(&mut r, n, d, s, l);
    let labels = (0..n).map(|_| if r.random::<bool>() { 1.0 } else { -1.0 }).collect();
    SparseDataset::from_rows(&rows, labels, d).unwrap()
}

/// F_S and ∇F_S of the logistic loss on CSR rows (test oracle, written independently of the crate).
pub fn logistic_risk(data: &SparseDataset, x: &[f64]) -> (f64, Vec<f64>) {
    let n = data.n();
    let mut g = vec![0.0; x.len()];
    let mut f = 0.0;
    for i in 0..n {
        let (idx, val) = data.row(i);
        let m: f64 = idx.iter().zip(val).map(|(&j, &v)| v * x[j]).sum();
        let y = data.label(i);
        f += (1.0 + (-y * m).exp()).ln();
        let slope = -y / (1.0 + (y * m).exp());
        for (&j, &v) in idx.iter().zip(val) {
            g[j] += slope * v / n as f64;
        }
    }
    (f / n as f64, g)
}

/// A certified lower bound on `min_{‖x‖≤r} F_S(x)` (logistic, convex): projected gradient descent
/// (step 1 ≤ 1/H, H ≤ 1/4) to x_p, then the Frank–Wolfe bound
/// `F* ≥ min_{‖x‖≤r} [F(x_p) + ⟨∇F(x_p), x − x_p⟩] = F(x_p) − ⟨∇F(x_p), x_p⟩ − r‖∇F(x_p)‖`.
pub fn logistic_risk_lower_bound_on_ball(data: &SparseDataset, r: f64) -> f64 {
    let domain = Domain::L2Ball { radius: r };
    let mut x = vec![0.0; data.d()];
    for _ in 0..2000 {
        let g = logistic_risk(data, &x).1;
        x.iter_mut().zip(&g).for_each(|(xj, gj)| *xj -= gj);
        domain.project(&mut x);
    }
    let (f, g) = logistic_risk(data, &x);
    f - g.iter().zip(&x).map(|(a, b)| a * b).sum::<f64>() - r * norm_l2(&g)
}
