//! Random sparse rows for the tests of the \[GGKKM\] mechanisms.

use dpref::linalg::norm_l2;
use dpref::rng::DpRng;
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
pub fn labelled_sparse_dataset(seed: u64, n: usize, d: usize, s: usize) -> dpref::data::sparse::SparseDataset {
    let mut r = dpref::rng::Seeds::new(seed).stream(dpref::rng::Stream::Data);
    let (rows, _) = sparse_rows_from(&mut r, n, d, s, 1.0);
    let labels = (0..n).map(|_| if r.random::<bool>() { 1.0 } else { -1.0 }).collect();
    dpref::data::sparse::SparseDataset::from_rows(&rows, labels, d).unwrap()
}
