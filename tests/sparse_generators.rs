//! \[GGKKM\] synthetic data and the constructions of the analysis (`dpref::data::sparse_families`):
//! properties E1–E3 (packing, block-diagonal dataset, padding), B4 (Lemma 5.3's hard
//! threshold), D9 (Maurey's identity), D1 and D2 (Thms. 3.2 and 3.3's explicit bounds as failure
//! frequencies)
//! of proofs/sparse/README.md.

mod common;

use common::stat::{ALPHA, binomial_interval};
use dpref::bounds::sparse::{SparseProblem, theorem32_dense_term, theorem32_sparse_term, theorem33_bound};
use dpref::data::sparse::SparseDataset;
use dpref::data::sparse_families::{
    SparseFamily, block_diagonal, hard_threshold, maurey_average, pad_with_zero_rows, sparse_family, sparse_packing,
};
use dpref::linalg::norm_l2;
use dpref::loss::Loss;
use dpref::model::{GradientOracle, SparseGlm};
use dpref::optim::sparse::{ProjectionMechanismConfig, SparseVectors};
use dpref::rng::{DpRng, Seeds, Stream};
use dpref::special::ln_binomial;
use rand::RngExt;

fn data_rng(seed: u64) -> DpRng {
    Seeds::new(seed).stream(Stream::Data)
}

/// z̄ = (1/n) Σ z_i, computed here from the rows (not by the code under test).
fn mean_of(data: &SparseDataset) -> Vec<f64> {
    let mut mean = vec![0.0; data.d()];
    for i in 0..data.n() {
        let (idx, vals) = data.row(i);
        for (&j, &v) in idx.iter().zip(vals) {
            mean[j] += v;
        }
    }
    mean.iter().map(|v| v / data.n() as f64).collect()
}

fn row_norm(data: &SparseDataset, i: usize) -> f64 {
    norm_l2(data.row(i).1)
}

/// Every family's rows lie in `S_s^d` as evaluated, with the family's shape: ±L/√s entries for
/// the uniform support (‖z‖₁ = L√s up to rounding), one whole bucket for the embedding table.
#[test]
fn families_rows_lie_in_the_sparse_ball() {
    let (n, d, s, l) = (300, 60, 4, 1.5);
    for family in
        [SparseFamily::UniformSupport, SparseFamily::GaussianEntries, SparseFamily::EmbeddingTable { zipf: 1.1 }]
    {
        let data = sparse_family(family, n, d, s, l, &mut data_rng(7)).unwrap();
        for i in 0..n {
            let (idx, vals) = data.row(i);
            assert!(idx.len() <= s && row_norm(&data, i) <= l, "{family:?} row {i}");
            match family {
                SparseFamily::UniformSupport => {
                    assert_eq!(idx.len(), s);
                    let l1: f64 = vals.iter().map(|v| v.abs()).sum();
                    assert!((l1 - l * (s as f64).sqrt()).abs() <= 1e-12, "{l1}");
                }
                SparseFamily::EmbeddingTable { .. } => {
                    assert_eq!(idx[0] % s, 0, "a bucket starts at a multiple of s");
                    assert_eq!(idx, (idx[0]..idx[0] + s).collect::<Vec<_>>().as_slice());
                }
                SparseFamily::GaussianEntries => assert_eq!(idx.len(), s),
            }
        }
    }
    // Zipf buckets: bucket 0 (weight 1) is drawn more often than bucket 5 (weight 6^−1.1 ≈ 0.14):
    // expected counts 300·p₀ ≈ 78 and 300·p₅ ≈ 11 (V = 15 buckets, Σ w = 3.82), so the ordering
    // fails only if Binomial(300, 0.26) ≤ Binomial(300, 0.037), probability < 1e-12.
    let data = sparse_family(SparseFamily::EmbeddingTable { zipf: 1.1 }, n, d, s, l, &mut data_rng(8)).unwrap();
    let count = |b: usize| (0..n).filter(|&i| data.row(i).0[0] == b * s).count();
    assert!(count(0) > count(5), "{} vs {}", count(0), count(5));
    // bad input
    assert!(sparse_family(SparseFamily::UniformSupport, 0, d, s, l, &mut data_rng(1)).is_err());
    assert!(sparse_family(SparseFamily::UniformSupport, n, d, d + 1, l, &mut data_rng(1)).is_err());
    assert!(sparse_family(SparseFamily::GaussianEntries, n, d, s, f64::NAN, &mut data_rng(1)).is_err());
    assert!(sparse_family(SparseFamily::EmbeddingTable { zipf: 1.1 }, n, 62, s, l, &mut data_rng(1)).is_err());
}

/// E1 (Lemma A.1, Exact): the greedy packing of `C_s^d` has pairwise ‖u − v‖₂ ≥ 1/√2, its
/// vectors are in `C_s^d`, it is maximal (every other s-subset is within s/2 of a kept one), and
/// |P| ≥ C(d, s)/C(d, ⌊s/2⌋) ≥ (d/s − 1/2)^{s/2}. A keep rule too loose (e.g. |S Δ T| ≥ s/4)
/// fails the separation, one too strict (|S Δ T| > s) fails maximality and, at (12, 4), the size.
#[test]
fn e1_sparse_packing_is_separated_maximal_and_large() {
    for (d, s) in [(12, 4), (10, 2), (14, 6), (16, 4), (9, 3)] {
        let packing = sparse_packing(d, s).unwrap();
        let vector = |support: &[usize]| {
            let mut v = vec![0.0; d];
            support.iter().for_each(|&j| v[j] = 1.0 / (s as f64).sqrt());
            v
        };
        let vectors: Vec<Vec<f64>> = packing.iter().map(|t| vector(t)).collect();
        for v in &vectors {
            assert_eq!(v.iter().filter(|x| **x != 0.0).count(), s);
            assert!((norm_l2(v) - 1.0).abs() < 1e-15);
        }
        for a in 0..vectors.len() {
            for b in a + 1..vectors.len() {
                let diff: Vec<f64> = vectors[a].iter().zip(&vectors[b]).map(|(x, y)| x - y).collect();
                assert!(norm_l2(&diff) >= 1.0 / 2f64.sqrt(), "({d}, {s}): {a}, {b}");
            }
        }
        // maximality over all s-subsets (the greedy stops adding only when nothing fits)
        let all = sparse_packing_candidates(d, s);
        for t in &all {
            // |S Δ T| = 2(s − |S ∩ T|); T is excluded when 2|S Δ T| ≤ s
            let close = packing.iter().any(|p| 4 * (s - p.iter().filter(|j| t.contains(j)).count()) <= s);
            assert!(close, "({d}, {s}): {t:?} could still be added");
        }
        let lemma = (ln_binomial(d as f64, s as f64) - ln_binomial(d as f64, (s / 2) as f64)).exp();
        let closed_form = (d as f64 / s as f64 - 0.5).powf(s as f64 / 2.0);
        assert!(packing.len() as f64 >= lemma - 1e-9, "({d}, {s}): {} < {lemma}", packing.len());
        assert!(lemma >= closed_form - 1e-9, "({d}, {s}): {lemma} < {closed_form}");
    }
    assert!(sparse_packing(10, 6).is_err(), "s > d/2 refused");
    assert!(sparse_packing(200, 60).is_err(), "too many candidates refused");
}

/// All s-subsets of {0..d−1}, by brute force over bit masks (d ≤ 16).
fn sparse_packing_candidates(d: usize, s: usize) -> Vec<Vec<usize>> {
    (0u32..1 << d)
        .filter(|m| m.count_ones() as usize == s)
        .map(|m| (0..d).filter(|j| m >> j & 1 == 1).collect())
        .collect()
}

/// E2 (Lemma 4.3, Exact): the block-diagonal dataset's rows are s-sparse with norm ≤ 1, and
/// z̄(D) = (n₀/n)[z̄₁ | … | z̄_K | 0] coordinate by coordinate (to rounding of a sum of n₀ terms).
#[test]
fn e2_block_diagonal_dataset_mean_is_the_scaled_block_means() {
    let (n0, t, s, k, n, d) = (20, 8, 3, 4, 100, 40);
    let blocks: Vec<SparseDataset> = (0..k)
        .map(|b| sparse_family(SparseFamily::GaussianEntries, n0, t, s, 1.0, &mut data_rng(100 + b as u64)).unwrap())
        .collect();
    let data = block_diagonal(&blocks, n, d).unwrap();
    assert_eq!((data.n(), data.d()), (n, d));
    for i in 0..n {
        assert!(data.row(i).0.len() <= s && row_norm(&data, i) <= 1.0);
    }
    let mean = mean_of(&data);
    for (b, block) in blocks.iter().enumerate() {
        let block_mean = mean_of(block);
        for j in 0..t {
            let expected = n0 as f64 / n as f64 * block_mean[j];
            assert!((mean[b * t + j] - expected).abs() <= 1e-15, "block {b}, coordinate {j}");
        }
    }
    assert!(mean[k * t..].iter().all(|&v| v == 0.0), "padding columns are zero");
    assert!(block_diagonal(&blocks, n, 4 * t - 1).is_err(), "K > d/t refused");
    assert!(block_diagonal(&blocks, 4 * n0 - 1, d).is_err(), "K > n/n0 refused");
    assert!(block_diagonal(&[], n, d).is_err());
}

/// E3 (Lemma A.2, Exact): padding n* rows to n with zeros gives z̄(S) = (n/n*)·z̄(padded S); the
/// padded mechanism A′(S) = (n/n*)·A(padded S) built from Algorithm 1 at size n has error exactly
/// (n/n*) times A's error on the padded data (same noise draws), and Algorithm 1's reported ε is
/// unchanged by padding (neighbours of S pad to neighbours).
#[test]
fn e3_padding_scales_the_mean_and_the_error() {
    let (n_star, n, d, s) = (30, 120, 50, 3);
    let data = sparse_family(SparseFamily::UniformSupport, n_star, d, s, 1.0, &mut data_rng(3)).unwrap();
    let padded = pad_with_zero_rows(&data, n).unwrap();
    let (mean, padded_mean) = (mean_of(&data), mean_of(&padded));
    let ratio = n as f64 / n_star as f64;
    for j in 0..d {
        assert!((mean[j] - ratio * padded_mean[j]).abs() <= 1e-15, "{j}");
    }
    let mechanism = ProjectionMechanismConfig::new(1.0, s, 1.0, 0.0).unwrap();
    let run = mechanism.run(SparseVectors::Csr(&padded), Seeds::new(9)).unwrap();
    let a_prime: Vec<f64> = run.z_hat.iter().map(|v| ratio * v).collect();
    let error = |x: &[f64], m: &[f64]| norm_l2(&x.iter().zip(m).map(|(a, b)| a - b).collect::<Vec<_>>());
    let (e_prime, e) = (error(&a_prime, &mean), error(&run.z_hat, &padded_mean));
    assert!((e_prime - ratio * e).abs() <= 1e-12 * e_prime, "{e_prime} vs {ratio}·{e}");
    let unpadded = mechanism.run(SparseVectors::Csr(&data), Seeds::new(9)).unwrap();
    assert_eq!(run.accounted.privacy.epsilon, unpadded.accounted.privacy.epsilon);
    assert!(pad_with_zero_rows(&data, n_star - 1).is_err());
}

/// B4 (Lemma 5.3, Exact, pathwise): for the logistic loss on rows of `S_s^d` (L = 1: |ℓ′| ≤ 1),
/// x̃ = hard_threshold(x*, τ) has ‖x̃‖₀ ≤ ‖x*‖²/τ², stays in the l2 ball of x*, and
/// F_S(x̃) − F_S(x*) ≤ L√s·τ — by convexity F(x̃) − F(x*) ≤ ⟨∇F(x̃), x̃ − x*⟩ ≤ ‖∇F(x̃)‖₁‖x̃ − x*‖∞,
/// an inequality about any x*, checked at 50 random points with a spread of magnitudes. A
/// threshold that zeroes coordinates ≥ τ (inverted comparison) leaves ‖x̃ − x*‖∞ > τ and fails
/// the support count at once.
#[test]
fn b4_hard_threshold_sparsifies_within_the_lemma_5_3_excess() {
    let (n, d, s) = (200, 40, 3);
    let base = sparse_family(SparseFamily::UniformSupport, n, d, s, 1.0, &mut data_rng(11)).unwrap();
    let rows: Vec<Vec<(usize, f64)>> =
        (0..n).map(|i| base.row(i).0.iter().copied().zip(base.row(i).1.iter().copied()).collect()).collect();
    let mut labels_rng = data_rng(12);
    let labels: Vec<f64> = (0..n).map(|_| if labels_rng.random::<bool>() { 1.0 } else { 0.0 }).collect();
    let data = SparseDataset::from_rows(&rows, labels, d).unwrap();
    let glm = SparseGlm { loss: Loss::Logistic, data: &data };
    let mut rng = data_rng(13);
    let mut worst_ratio = 0.0f64;
    for trial in 0..50 {
        let mut x: Vec<f64> =
            (0..d).map(|j| rng.random::<f64>().powi(3) * if j % 2 == 0 { 1.0 } else { -1.0 }).collect();
        let norm = norm_l2(&x);
        x.iter_mut().for_each(|v| *v /= norm.max(1.0));
        let tau = 0.05 + 0.3 * rng.random::<f64>();
        let x_tilde = hard_threshold(&x, tau).unwrap();
        let kept = x_tilde.iter().filter(|v| **v != 0.0).count() as f64;
        assert!(kept <= norm_l2(&x).powi(2) / (tau * tau), "trial {trial}");
        assert!(norm_l2(&x_tilde) <= norm_l2(&x), "trial {trial}");
        assert!(x.iter().zip(&x_tilde).all(|(a, b)| (a - b).abs() < tau), "trial {trial}");
        let excess = glm.evaluate(&x_tilde).unwrap().mean_loss - glm.evaluate(&x).unwrap().mean_loss;
        let bound = (s as f64).sqrt() * tau;
        assert!(excess <= bound + 1e-12, "trial {trial}: {excess} > {bound}");
        worst_ratio = worst_ratio.max(excess / bound);
    }
    assert!(worst_ratio > 0.0, "the check compared something");
    assert!(hard_threshold(&[1.0], 0.0).is_err() && hard_threshold(&[f64::NAN], 0.1).is_err());
}

/// D9 (Maurey's identity, Stat): E‖w − z̄‖² = (mean ‖z_i‖² − ‖z̄‖²)/K for w the mean of K rows
/// drawn iid. Margin: X = ‖w − z̄‖² ∈ [0, 4L²] (L = 1), so Hoeffding over R = 200 000 draws gives
/// |mean − E X| ≤ 4·sqrt(ln(2/α)/(2R)) = 0.0241 with probability ≥ 1 − α, α = 1e-6. Measured:
/// 0.14392 against the predicted 0.14386; the broken reading /K² (0.036) is outside the margin.
#[test]
fn stat_d9_maurey_average_meets_its_variance_identity() {
    let (n, d, s, k, reps) = (40, 30, 3, 4, 200_000);
    let data = sparse_family(SparseFamily::GaussianEntries, n, d, s, 1.0, &mut data_rng(21)).unwrap();
    let mean = mean_of(&data);
    let mean_sq_norm = (0..n).map(|i| row_norm(&data, i).powi(2)).sum::<f64>() / n as f64;
    let predicted = (mean_sq_norm - norm_l2(&mean).powi(2)) / k as f64;
    let mut rng = data_rng(22);
    let mut total = 0.0;
    for _ in 0..reps {
        let w = maurey_average(&data, k, &mut rng).unwrap();
        assert!(w.iter().filter(|v| **v != 0.0).count() <= s * k);
        total += w.iter().zip(&mean).map(|(a, b)| (a - b).powi(2)).sum::<f64>();
    }
    let observed = total / reps as f64;
    let margin = 4.0 * ((2.0 / ALPHA).ln() / (2.0 * reps as f64)).sqrt();
    assert!((observed - predicted).abs() <= margin, "{observed} vs {predicted} ± {margin}");
    assert!((observed - predicted / k as f64).abs() > margin, "the /K² reading is distinguishable");
    assert!(maurey_average(&data, 0, &mut rng).is_err());
}

/// D1 (Thm. 3.2 explicit, Stat): Algorithm 1 with Laplace noise misses the sparse term
/// 2L√(s ln(d/β)/(nε)) and the dense term 2L√(sd)·ln(d/β)/(nε) in at most a fraction β of
/// R = 1500 runs on the worst-case data (uniform support, entries ±L/√s). Acceptance: the count
/// of misses is at most the upper end of the two-sided Binomial(R, β) interval at α = 1e-6. Power
/// twin: the same runs with the Laplace scale 16× too large (ε/16, e.g. a sensitivity taken as
/// 2Ls instead of 2L√s at s = 256) miss the sparse term in 1167 of 1500 runs (allowed: 210).
/// Measured at the true scale: 0 misses of either term (the union bound over d coordinates is
/// loose by the projection's slack; at ε/4 there are 2 misses).
#[test]
fn stat_d1_theorem_3_2_explicit_bound_fails_at_most_beta() {
    let (n, d, s, l, epsilon, beta, reps) = (200u64, 1000u64, 4usize, 1.0, 1.0, 0.1, 1500u64);
    let data = sparse_family(SparseFamily::UniformSupport, n as usize, d as usize, s, l, &mut data_rng(31)).unwrap();
    let mean = mean_of(&data);
    let problem = SparseProblem::new(l, s as u64, d, n, epsilon).unwrap();
    let sparse_term = theorem32_sparse_term(&problem, beta).unwrap();
    let dense_term = theorem32_dense_term(&problem, beta).unwrap();
    let misses = |eps: f64| {
        let cfg = ProjectionMechanismConfig::new(l, s, eps, 0.0).unwrap();
        let (mut sparse_misses, mut dense_misses) = (0u64, 0u64);
        for r in 0..reps {
            let run = cfg.run(SparseVectors::Csr(&data), Seeds::new(32).child(r)).unwrap();
            let err = norm_l2(&run.z_hat.iter().zip(&mean).map(|(a, b)| a - b).collect::<Vec<_>>());
            sparse_misses += u64::from(err > sparse_term);
            dense_misses += u64::from(err > dense_term);
        }
        (sparse_misses, dense_misses)
    };
    let (_, allowed) = binomial_interval(reps, beta, ALPHA);
    let (sparse_misses, dense_misses) = misses(epsilon);
    assert!(sparse_misses <= allowed && dense_misses <= allowed, "{sparse_misses}, {dense_misses} > {allowed}");
    let (twin_sparse, _) = misses(epsilon / 16.0);
    assert!(twin_sparse > allowed, "power twin: {twin_sparse} <= {allowed}");
}

/// D2 (Thm. 3.3 explicit, Stat): Algorithm 1 with Gaussian noise (ε = 0.5, δ = 1e-6) misses
/// min(dense, sparse) of Thm. 3.3 (each at β/2) in at most a fraction β = 0.1 of R = 1500 runs on
/// the worst-case data; acceptance as in D1. Power twin: noise 16× too large (ε/16) misses in 283
/// of 1500 runs (allowed 210; at the true scale 0): the explicit bound is loose (a union bound over
/// d coordinates and the sparse/dense minimum), so only gross miscalibration is caught.
#[test]
fn stat_d2_theorem_3_3_explicit_bound_fails_at_most_beta() {
    let (n, d, s, l, epsilon, delta, beta, reps) = (200u64, 1000u64, 4usize, 1.0, 0.5, 1e-6, 0.1, 1500u64);
    let data = sparse_family(SparseFamily::UniformSupport, n as usize, d as usize, s, l, &mut data_rng(41)).unwrap();
    let mean = mean_of(&data);
    let problem = SparseProblem::new(l, s as u64, d, n, epsilon).unwrap().with_delta(delta).unwrap();
    let bound = theorem33_bound(&problem, beta).unwrap();
    let misses = |eps: f64| {
        let cfg = ProjectionMechanismConfig::new(l, s, eps, delta).unwrap();
        (0..reps)
            .filter(|&r| {
                let run = cfg.run(SparseVectors::Csr(&data), Seeds::new(42).child(r)).unwrap();
                norm_l2(&run.z_hat.iter().zip(&mean).map(|(a, b)| a - b).collect::<Vec<_>>()) > bound
            })
            .count() as u64
    };
    let (_, allowed) = binomial_interval(reps, beta, ALPHA);
    let (true_misses, twin_misses) = (misses(epsilon), misses(epsilon / 16.0));
    assert!(true_misses <= allowed, "{true_misses} > {allowed}");
    eprintln!("D2: {true_misses} and twin {twin_misses} of {reps} (allowed {allowed})");
    assert!(twin_misses > allowed, "power twin: {twin_misses} <= {allowed}");
}
