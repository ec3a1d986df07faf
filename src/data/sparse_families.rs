//! Synthetic sparse data and the constructions of \[GGKKM\]'s analysis, as generators.
//!
//! The paper has no experiments; these are the data it reasons about
//! (proofs/sparse/constructions.md):
//!
//! | what | where in the paper | function |
//! |---|---|---|
//! | uniform support, entries ±L/√s (the l1 worst case) | Thm. 3.2's attaining neighbours | [`sparse_family`] with [`SparseFamily::UniformSupport`] |
//! | random Gaussian entries on a random support, ‖z‖₂ = L·√U | — | [`SparseFamily::GaussianEntries`] |
//! | embedding-table rows: one Zipf-drawn bucket of width s | Sec. 1 (motivation) | [`SparseFamily::EmbeddingTable`] |
//! | sparse packing C_s^d, greedy, pairwise ‖u − v‖₂ ≥ 1/√2 | Lemma A.1 | [`sparse_packing`] |
//! | block-diagonal bootstrapping of a hard dataset | Lemma 4.3 | [`block_diagonal`] |
//! | padding with zero rows | Lemma A.2 | [`pad_with_zero_rows`] |
//! | hard-threshold sparsification x̃_j = x_j·1{\|x_j\| ≥ τ} | Lemma 5.3 | [`hard_threshold`] |
//! | Maurey's empirical sparsification: the mean of K rows drawn iid | Thm. 3.4's proof | [`maurey_average`] |
//!
//! Every generated row lies in `S_s^d = {‖z‖₀ ≤ s, ‖z‖₂ ≤ L}`. Checked by
//! `tests/sparse_generators.rs` (properties E1–E3, B4, D1, D9 of the proof file).

use super::sparse::SparseDataset;
use crate::error::{Error, Result, check};
use crate::rng::DpRng;
use rand::RngExt;
use rand::seq::SliceRandom;

/// The largest number of s-subsets [`sparse_packing`] enumerates.
pub const MAX_PACKING_CANDIDATES: u64 = 2_000_000;

/// A family of random s-sparse rows of l2 norm at most L.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SparseFamily {
    /// A uniformly random support of size s, entries ±L/√s with independent fair signs: ‖z‖₁ =
    /// L√s, the largest l1 norm in `S_s^d`, so neighbours z, −z attain Thm. 3.2's Δ₁ = 2L√s/n.
    UniformSupport,
    /// A uniformly random support of size s, standard Gaussian entries rescaled to
    /// ‖z‖₂ = L·√U, U ~ U(0, 1) (so the squared norm is uniform on [0, L²]).
    GaussianEntries,
    /// Embedding-table gradients: d = V·s coordinates in V buckets of width s; each row activates
    /// one bucket, bucket v with probability ∝ (v + 1)^{−zipf} (Zipf; `dpref reproduce
    /// sparse` uses 1.1), with Gaussian entries rescaled to ‖z‖₂ = L. Needs s to divide d.
    EmbeddingTable {
        /// The Zipf exponent of the bucket frequencies (> 0).
        zipf: f64,
    },
}

/// Cumulative weights `Σ_{j ≤ i} (j + 1)^{−exponent}` for inverse-CDF draws from a Zipf law on
/// {0, …, k − 1}; draw with [`draw_from_cumulative`].
pub fn zipf_cumulative(k: usize, exponent: f64) -> Vec<f64> {
    let mut cdf: Vec<f64> = (0..k).map(|j| (j as f64 + 1.0).powf(-exponent)).collect();
    for j in 1..k {
        cdf[j] += cdf[j - 1];
    }
    cdf
}

/// One draw from the law with (unnormalised, non-empty) cumulative weights `cdf`: the first index
/// whose cumulative weight reaches `u·total`, u ~ U\[0, 1).
pub fn draw_from_cumulative(cdf: &[f64], rng: &mut DpRng) -> usize {
    let total = cdf[cdf.len() - 1];
    let u = rng.random::<f64>() * total;
    cdf.partition_point(|&c| c < u).min(cdf.len() - 1)
}

/// n rows of `family` in dimension d with sparsity s and l2 bound L (labels all 0).
///
/// # Errors
/// `InvalidParameter` for n = 0, s ∉ [1, d], L not finite and positive, a Zipf exponent not
/// finite and positive, or (embedding table) s not dividing d.
pub fn sparse_family(
    family: SparseFamily,
    n: usize,
    d: usize,
    s: usize,
    l: f64,
    rng: &mut DpRng,
) -> Result<SparseDataset> {
    if n == 0 || s == 0 || s > d {
        return Err(Error::invalid("n, d, s", format!("{n}, {d}, {s}"), "n >= 1 and 1 <= s <= d"));
    }
    check::positive("l2 bound L", l)?;
    let bucket_cdf = match family {
        SparseFamily::EmbeddingTable { zipf } => {
            check::positive("Zipf exponent", zipf)?;
            if !d.is_multiple_of(s) {
                return Err(Error::invalid("d, s", format!("{d}, {s}"), "s dividing d (d = V·s buckets)"));
            }
            Some(zipf_cumulative(d / s, zipf))
        }
        _ => None,
    };
    let mut indices: Vec<usize> = (0..d).collect();
    let mut rows = Vec::with_capacity(n);
    for _ in 0..n {
        let support: Vec<usize> = match &bucket_cdf {
            Some(cdf) => {
                let bucket = draw_from_cumulative(cdf, rng);
                (bucket * s..(bucket + 1) * s).collect()
            }
            None => {
                let (chosen, _) = indices.partial_shuffle(rng, s);
                let mut chosen = chosen.to_vec();
                chosen.sort_unstable();
                chosen
            }
        };
        let values: Vec<f64> = match family {
            SparseFamily::UniformSupport => {
                let magnitude = l / (s as f64).sqrt();
                support.iter().map(|_| if rng.random::<bool>() { magnitude } else { -magnitude }).collect()
            }
            SparseFamily::GaussianEntries => {
                let radius = l * rng.random::<f64>().sqrt();
                gaussian_direction(s, radius, rng)
            }
            SparseFamily::EmbeddingTable { .. } => gaussian_direction(s, l, rng),
        };
        rows.push(support.into_iter().zip(values).collect::<Vec<_>>());
    }
    let rows = shrink_to_bound(rows, l);
    SparseDataset::from_rows(&rows, vec![0.0; n], d)
}

/// s standard Gaussian entries rescaled to l2 norm `radius` (a draw of norm 0 is redrawn).
fn gaussian_direction(s: usize, radius: f64, rng: &mut DpRng) -> Vec<f64> {
    loop {
        let g: Vec<f64> = (0..s).map(|_| crate::noise::standard_normal(rng)).collect();
        let norm = crate::linalg::norm_l2(&g);
        if norm > 0.0 {
            return g.into_iter().map(|v| v * radius / norm).collect();
        }
    }
}

/// Rows scaled by (1 − 1e-15) where their evaluated norm exceeds L by rounding, so every row is
/// in `S_s^d` as evaluated (entries ±L/√s can sum to L(1 + ulp)).
fn shrink_to_bound(rows: Vec<Vec<(usize, f64)>>, l: f64) -> Vec<Vec<(usize, f64)>> {
    rows.into_iter()
        .map(|row| {
            let norm = crate::linalg::norm_l2(&row.iter().map(|&(_, v)| v).collect::<Vec<_>>());
            // the clip's factor L/‖row‖, shrunk once more so the rescaled row's norm is ≤ L as evaluated
            let scale = crate::geometry::clip_scale(norm, l);
            if scale == 1.0 { row } else { row.into_iter().map(|(j, v)| (j, v * scale * (1.0 - 1e-15))).collect() }
        })
        .collect()
}

/// Lemma A.1's sparse packing of `C_s^d = {s-sparse vectors in {0, 1/√s}^d}` (L = 1): the
/// s-subsets of {0..d−1} in lexicographic order, each kept when its symmetric difference with
/// every kept subset exceeds s/2, so kept vectors satisfy ‖u − v‖₂² = |S Δ T|/s > 1/2. The lemma
/// promises |P| ≥ C(d, s)/C(d, ⌊s/2⌋) ≥ (d/s − 1/2)^{s/2} for s ≤ d/2. Returns the supports.
///
/// # Errors
/// `InvalidParameter` for s ∉ [1, d/2] or more than [`MAX_PACKING_CANDIDATES`] subsets.
pub fn sparse_packing(d: usize, s: usize) -> Result<Vec<Vec<usize>>> {
    if s == 0 || 2 * s > d {
        return Err(Error::invalid("d, s", format!("{d}, {s}"), "1 <= s <= d/2"));
    }
    let candidates = crate::special::ln_binomial(d as f64, s as f64).exp();
    if candidates.is_nan() || candidates > MAX_PACKING_CANDIDATES as f64 {
        return Err(Error::invalid("C(d, s)", candidates, "<= MAX_PACKING_CANDIDATES subsets"));
    }
    let mut kept: Vec<Vec<usize>> = Vec::new();
    let mut subset: Vec<usize> = (0..s).collect();
    loop {
        let far_from_all = kept.iter().all(|t| 2 * symmetric_difference(&subset, t) > s);
        if far_from_all {
            kept.push(subset.clone());
        }
        // next s-subset in lexicographic order
        let Some(i) = (0..s).rev().find(|&i| subset[i] < d - s + i) else { break };
        subset[i] += 1;
        for j in i + 1..s {
            subset[j] = subset[j - 1] + 1;
        }
    }
    Ok(kept)
}

/// |S Δ T| of two sorted index sets.
fn symmetric_difference(a: &[usize], b: &[usize]) -> usize {
    let common = a.iter().filter(|j| b.binary_search(j).is_ok()).count();
    a.len() + b.len() - 2 * common
}

/// Lemma 4.3's block-diagonal dataset: K blocks D_1..D_K, each n₀ rows of dimension t, placed
/// on the diagonal of an n × d dataset (block k in rows k·n₀.. and columns k·t..), all other rows
/// zero. Then z̄(D) = (n₀/n)·[z̄(D_1) | … | z̄(D_K) | 0]. Labels are 0.
///
/// # Errors
/// `InvalidParameter` for no blocks, blocks of different shapes, or K > min(n/n₀, d/t).
pub fn block_diagonal(blocks: &[SparseDataset], n: usize, d: usize) -> Result<SparseDataset> {
    let Some(first) = blocks.first() else {
        return Err(Error::invalid("blocks", 0, ">= 1"));
    };
    let (n0, t) = (first.n(), first.d());
    if blocks.iter().any(|b| b.n() != n0 || b.d() != t) {
        return Err(Error::invalid("block shapes", "differing", "all n0 x t"));
    }
    let k = blocks.len();
    if k * n0 > n || k * t > d {
        return Err(Error::invalid("blocks K", k, "<= min(n/n0, d/t)"));
    }
    let mut rows = vec![Vec::new(); n];
    for (b, block) in blocks.iter().enumerate() {
        for i in 0..n0 {
            let (idx, vals) = block.row(i);
            rows[b * n0 + i] = idx.iter().zip(vals).map(|(&j, &v)| (b * t + j, v)).collect();
        }
    }
    SparseDataset::from_rows(&rows, vec![0.0; n], d)
}

/// Lemma A.2's padding: the rows of `data` (n* of them) followed by n − n* zero rows (label 0).
/// A mechanism A for size n gives A′(S) = (n/n*)·A(padded S) for size n* with the same privacy
/// (neighbours stay neighbours) and its error multiplied by n/n*, since z̄(S) = (n/n*)·z̄(padded S).
///
/// # Errors
/// `InvalidParameter` for n < n*.
pub fn pad_with_zero_rows(data: &SparseDataset, n: usize) -> Result<SparseDataset> {
    if n < data.n() {
        return Err(Error::invalid("padded size n", n, ">= the rows of the data, n*"));
    }
    let mut rows: Vec<Vec<(usize, f64)>> = (0..data.n())
        .map(|i| {
            let (idx, vals) = data.row(i);
            idx.iter().copied().zip(vals.iter().copied()).collect()
        })
        .collect();
    rows.resize(n, Vec::new());
    let mut labels = data.labels().to_vec();
    labels.resize(n, 0.0);
    SparseDataset::from_rows(&rows, labels, data.d())
}

/// Lemma 5.3's sparsification: x̃_j = x_j if |x_j| ≥ τ, else 0. Then ‖x̃‖₀ ≤ ‖x‖₂²/τ², ‖x̃ − x‖∞ ≤ τ
/// (strictly below τ off the kept set), and x̃ stays in any sparsifiable domain (one closed under
/// zeroing coordinates: l_p balls, symmetric boxes).
///
/// # Errors
/// `InvalidParameter` for τ not finite and positive; `NonFinite` for a non-finite x.
pub fn hard_threshold(x: &[f64], tau: f64) -> Result<Vec<f64>> {
    check::positive("threshold tau", tau)?;
    check::all_finite("point x", x)?;
    Ok(x.iter().map(|&v| if v.abs() >= tau { v } else { 0.0 }).collect())
}

/// Maurey's sparsification of the mean (Thm. 3.4's proof): w = (1/K)·Σ_k z_{i_k} with i_1..i_K iid
/// uniform on \[n\]; w is (sK)-sparse and E‖w − z̄‖₂² = (mean_i ‖z_i‖₂² − ‖z̄‖₂²)/K exactly.
/// Returns w densely.
///
/// # Errors
/// `InvalidParameter` for K = 0 or empty data.
pub fn maurey_average(data: &SparseDataset, k: usize, rng: &mut DpRng) -> Result<Vec<f64>> {
    if k == 0 || data.n() == 0 {
        return Err(Error::invalid("K, n", format!("{k}, {}", data.n()), ">= 1"));
    }
    let mut w = vec![0.0; data.d()];
    for _ in 0..k {
        let (idx, vals) = data.row(rng.random_range(0..data.n()));
        for (&j, &v) in idx.iter().zip(vals) {
            w[j] += v / k as f64;
        }
    }
    Ok(w)
}
