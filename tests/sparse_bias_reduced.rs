//! \[GGKKM\] Algorithm 5 (the subsampled bias-reduced gradient estimator): the paper's testable
//! properties B6 (telescoping by exact enumeration, with and without C_M; the identity mechanism;
//! ∇F_B = ½(∇F_O + ∇F_E)), D6 (Lemma 6.4's second moment, explicit form, by Monte Carlo with a
//! broken twin), the cost of 2^{N+1} + 1 gradients per call, the events it records, and typed
//! refusals (proofs/sparse/bias_reduced.md §6).

mod common;

use common::sparse_data::sparse_data;
use dpref::accounting::{Accountant, Conversion, DpEvent, Neighbouring, RdpAccountant};
use dpref::data::sparse::SparseDataset;
use dpref::error::{Error, Result};
use dpref::loss::Loss;
use dpref::model::SparseGlm;
use dpref::optim::PrivateRelease;
use dpref::optim::sparse::{
    BiasReducedConfig, InverseWeight, MeanMechanism, MeanMechanismKind, ProjectionMechanismConfig, truncation_m,
};
use dpref::rng::Seeds;
use dpref::sampling::TruncatedGeometric;

/// The logistic setting the estimator tests share: `sparse_data(n, d, s, L = 1, seed)`.
struct Logistic {
    data: SparseDataset,
    s: usize,
}

impl Logistic {
    fn new(n: usize, d: usize, s: usize, seed: u64) -> Self {
        Logistic { data: sparse_data(n, d, s, 1.0, seed), s }
    }

    fn glm(&self) -> SparseGlm<'_> {
        SparseGlm { loss: Loss::Logistic, data: &self.data }
    }

    /// Algorithm 5 at (ε, δ) with L = 1 and this s.
    fn config(&self, epsilon: f64, delta: f64) -> BiasReducedConfig {
        BiasReducedConfig::new(1.0, self.s, epsilon, delta).unwrap()
    }
}

/// A deterministic, biased "mechanism" φ(v, m) = v·m/(m + 1) + c/m (notes' B6 map): no noise, so
/// the expectation over (N, B, I) is a finite sum.
struct BiasedMap {
    c: Vec<f64>,
}

impl MeanMechanism for BiasedMap {
    fn release_mean(&self, mean: Vec<f64>, m: usize, _release: &mut PrivateRelease) -> Result<Vec<f64>> {
        let m = m as f64;
        Ok(mean.iter().zip(&self.c).map(|(v, c)| v * m / (m + 1.0) + c / m).collect())
    }
}

/// The identity as MeanMech (no noise, no projection).
struct Identity;

impl MeanMechanism for Identity {
    fn release_mean(&self, mean: Vec<f64>, _m: usize, _release: &mut PrivateRelease) -> Result<Vec<f64>> {
        Ok(mean)
    }
}

/// Every ordered k-tuple of distinct indices of 0..n, in lexicographic order.
fn ordered_tuples(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(k);
    fn rec(n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in 0..n {
            if !cur.contains(&i) {
                cur.push(i);
                rec(n, k, cur, out);
                cur.pop();
            }
        }
    }
    rec(n, k, &mut cur, &mut out);
    out
}

/// Neumaier's compensated sum (error ≤ 2·2^−53·|sum| + O(n·2^−106·Σ|xᵢ|), independent of n to
/// first order).
#[derive(Default, Clone, Copy)]
struct Compensated {
    sum: f64,
    carry: f64,
}

impl Compensated {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.carry += if self.sum.abs() >= x.abs() { (self.sum - t) + x } else { (x - t) + self.sum };
        self.sum = t;
    }

    fn value(&self) -> f64 {
        self.sum + self.carry
    }
}

/// E[𝒢] over N ~ TGeom(M), every ordered B and every I, each with its exact probability
/// `p_N · (n − m)!/n! · 1/n`: per level, the uniform average over the (B, I) pairs by compensated
/// summation, then weighted by the exact p_N = 2^{M−N}/(2^{M+1} − 1).
fn exact_expectation(cfg: &BiasReducedConfig, glm: SparseGlm<'_>, x: &[f64], mech: &dyn MeanMechanism) -> Vec<f64> {
    let n = glm.data.n();
    let d = glm.data.d();
    let law = TruncatedGeometric::new(truncation_m(n).unwrap()).unwrap();
    let mut release = PrivateRelease::statistics(0.0, Seeds::new(0)).unwrap();
    let mut mean = vec![Compensated::default(); d];
    for level in 0..=law.truncation() {
        let (num, den) = law.pmf_rational(level);
        let tuples = ordered_tuples(n, 1 << (level + 1));
        let mut level_sum = vec![Compensated::default(); d];
        for b in &tuples {
            for i in 0..n {
                let est = cfg.estimate_on(x, glm, level, b, i, mech, &mut release).unwrap();
                for (m, g) in level_sum.iter_mut().zip(&est.g) {
                    m.add(*g);
                }
            }
        }
        let paths = (tuples.len() * n) as f64;
        for (m, s) in mean.iter_mut().zip(&level_sum) {
            m.add(s.value() / paths * num as f64 / den as f64);
        }
    }
    mean.iter().map(Compensated::value).collect()
}

/// B6, the telescoping identity, exactly by enumeration for n = 8 (M = 2, 2^{M+1} = 8 = n):
/// for the biased map φ as MeanMech, `E[𝒢] = φ(∇F_S, 8)` with p_N = C_M 2^{−N}; with the printed
/// p_N = 2^{−N} it is `C_M·φ(∇F_S, 8) + (1 − C_M)·E_I φ(∇f(x, z_I), 1)` instead (C_2 = 4/7), a
/// visible miss. Tolerance 1e-12: each path's 𝒢 (entries ≤ 2^{M+1}·|φ| ≲ 60) carries a few
/// roundings, ≤ 60·8·2^−53 ≈ 5e-14, and the compensated sums add O(2^−53) relative; so the exact
/// expectation of the computed values is within 1e-13 of the true one (the values are printed).
#[test]
fn exact_b6_bias_reduced_telescoping_identity_n8_and_fails_without_c_m() {
    let n = 8;
    let d = 3;
    // Linear loss: ∇f(x, z_i) = y_i·z_i whatever x (the identity is about the sampling).
    let rows: Vec<Vec<(usize, f64)>> = vec![
        vec![(0, 1.0), (1, -2.0)],
        vec![(1, 3.0)],
        vec![(0, -1.0), (2, 2.0)],
        vec![(2, 1.0)],
        vec![(0, 2.0), (1, 1.0)],
        vec![(1, -1.0), (2, -3.0)],
        vec![(0, 3.0)],
        vec![(0, 0.5), (2, 0.25)],
    ];
    let data = SparseDataset::from_rows(&rows, vec![1.0; n], d).unwrap();
    let glm = SparseGlm { loss: Loss::Linear, data: &data };
    let x = vec![0.0; d];
    let mech = BiasedMap { c: vec![0.5, -1.0, 2.0] };
    let cfg = BiasReducedConfig::new(10.0, 2, 1.0, 0.0).unwrap();
    let full_mean: Vec<f64> =
        (0..d).map(|j| rows.iter().flatten().filter(|e| e.0 == j).map(|e| e.1).sum::<f64>() / n as f64).collect();
    let mut release = PrivateRelease::statistics(0.0, Seeds::new(0)).unwrap();
    let target = mech.release_mean(full_mean.clone(), n, &mut release).unwrap();
    let corrected = exact_expectation(&cfg, glm, &x, &mech);
    let gap: f64 = corrected.iter().zip(&target).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("target phi(grad F_S, 8) = {target:?}\ncorrected E[G] = {corrected:?}, max gap {gap:e}");
    assert!(gap <= 1e-12, "telescoping identity with C_M: gap {gap:e}");

    // The printed p_N = 2^{−N}: the exact expectation is C_M·target + (1 − C_M)·E_I φ(∇f_I, 1).
    let printed_cfg = cfg.clone().with_weight(InverseWeight::AsPrinted);
    let printed = exact_expectation(&printed_cfg, glm, &x, &mech);
    let c_m = 4.0 / 7.0;
    let single: Vec<f64> = (0..d)
        .map(|j| {
            (0..n)
                .map(|i| {
                    let v: f64 = rows[i].iter().filter(|e| e.0 == j).map(|e| e.1).sum();
                    v / 2.0 + mech.c[j]
                })
                .sum::<f64>()
                / n as f64
        })
        .collect();
    let predicted: Vec<f64> = (0..d).map(|j| c_m * target[j] + (1.0 - c_m) * single[j]).collect();
    let miss: f64 = printed.iter().zip(&target).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    let pred_gap: f64 = printed.iter().zip(&predicted).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("printed (no C_M) E[G] = {printed:?}, predicted {predicted:?}, miss of the target {miss}");
    assert!(pred_gap <= 1e-12, "printed reading's expectation is C_M*target + (1 - C_M)*E phi_1: {pred_gap:e}");
    assert!(miss > 0.1, "the printed p_N must miss the telescoping identity: miss {miss}");
}

/// B6, pathwise: with the identity as MeanMech, 𝒢 = ∇f(x, z_I) (the bracket
/// ∇F_B − ½(∇F_O + ∇F_E) is 0 in exact arithmetic; in f64 it is a few ulps, multiplied by
/// 1/p_N ≤ 2^{M+1} − 1 = 63, so 1e-12 absolute on entries of size ≤ 1 is ample), and G⁺ is
/// exactly ½(G⁻_O + G⁻_E) up to the same rounding.
#[test]
fn exact_b6_bias_reduced_identity_mechanism_returns_the_gradient_at_i() {
    let (n, d) = (100, 20);
    let case = Logistic::new(n, d, 3, 5);
    let (data, glm, cfg) = (&case.data, case.glm(), case.config(1.0, 1e-5));
    let x: Vec<f64> = (0..d).map(|j| (j as f64 * 0.37).sin()).collect();
    let law = TruncatedGeometric::new(truncation_m(n).unwrap()).unwrap();
    for seed in 0..50 {
        let mut release = PrivateRelease::statistics(0.0, Seeds::new(seed)).unwrap();
        let level = release.draw_truncated_geometric(&law);
        let est = cfg.estimate_with(&x, glm, level, &Identity, &mut release).unwrap();
        let (idx, val) = data.row(est.index_i);
        let m: f64 = idx.iter().zip(val).map(|(&j, &v)| v * x[j]).sum();
        let slope = Loss::Logistic.derivative_at(m, data.label(est.index_i));
        let mut grad = vec![0.0; d];
        for (&j, &v) in idx.iter().zip(val) {
            grad[j] = slope * v;
        }
        for (j, grad_j) in grad.iter().enumerate() {
            assert!((est.g[j] - grad_j).abs() <= 1e-12, "seed {seed}, j {j}: {} vs {grad_j}", est.g[j]);
            let half = 0.5 * (est.g_minus_o[j] + est.g_minus_e[j]);
            assert!((est.g_plus[j] - half).abs() <= 1e-15, "grad F_B = (grad F_O + grad F_E)/2");
        }
        assert_eq!(est.batch_b.len(), 1 << (level + 1));
        let mut sorted = est.batch_b.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), est.batch_b.len(), "B has distinct indices");
    }
}

/// A broken mean mechanism: Algorithm 1 calibrated as if every batch had one record (the
/// sensitivity 2L√s/m taken at m = 1), so its noise does not shrink with the batch.
struct CalibratedOnOne(ProjectionMechanismConfig);

impl MeanMechanism for CalibratedOnOne {
    fn release_mean(&self, mean: Vec<f64>, _m: usize, release: &mut PrivateRelease) -> Result<Vec<f64>> {
        Ok(self.0.release_mean(mean, 1, release)?.z_hat)
    }
}

/// E‖𝒢‖² by stratified Monte Carlo over N (`Σ_k p_k·mean_k`), and the Hoeffding margin of that
/// estimator at one-sided level 1e-6.
fn second_moment(
    cfg: &BiasReducedConfig,
    glm: SparseGlm<'_>,
    x: &[f64],
    mech: &dyn MeanMechanism,
    runs: usize,
    bound_g: &dyn Fn(u32) -> f64,
) -> (f64, f64) {
    let n = glm.data.n();
    let law = TruncatedGeometric::new(truncation_m(n).unwrap()).unwrap();
    let (mut total, mut hoeffding) = (0.0, 0.0);
    for level in 0..=law.truncation() {
        let mut release = PrivateRelease::statistics(0.0, Seeds::new(1000 + u64::from(level))).unwrap();
        let mut sum = 0.0;
        for _ in 0..runs {
            let est = cfg.estimate_with(x, glm, level, mech, &mut release).unwrap();
            let sq: f64 = est.g.iter().map(|v| v * v).sum();
            assert!(sq <= bound_g(level).powi(2) * (1.0 + 1e-9), "pathwise bound on ||G||");
            sum += sq;
        }
        let p = law.pmf(level);
        total += p * sum / runs as f64;
        // the stratum's term p·mean has summands in [0, p·R_k²/runs]
        hoeffding += (p * bound_g(level).powi(2)).powi(2) / runs as f64;
    }
    // P[estimate − E ≥ t] ≤ exp(−2t²/Σ (range)²) = 1e-6
    let t = ((1e6f64).ln() * hoeffding / 2.0).sqrt();
    (total, t)
}

/// D6 (Lemma 6.4, second moment, explicit): with Algorithm 1 (Laplace) as MeanMech and per-call
/// error bounds E_j ≥ E‖MeanMech_{2^j}(v) − v‖² for batches of 2^j records,
/// ```text
/// E‖𝒢‖² ≤ 2·E‖G_0‖² + Σ_{k=0}^{M} (6/p_k)(E_{k+1} + ½E_k)
/// ```
/// (‖𝒢‖² ≤ 2‖G_0‖² + (2/p_N²)‖e⁺ − ½e_O − ½e_E‖², the bracket ≤ 3(‖e⁺‖² + ¼‖e_O‖² + ¼‖e_E‖²),
/// then average over N), with E‖G_0‖² ≤ (L√s)² (G_0 ∈ K ⊂ B₂(L√s)) and
/// E_j = min(2dσ_{2^j}², (L√s + L)²): projecting onto K ∋ z̄ does not increase the distance to z̄,
/// E‖ξ‖² = 2dσ² for Laplace, and ‖ẑ − z̄‖ ≤ ‖ẑ‖ + ‖z̄‖. The paper's form with E_j = a/2^j is
/// 4L² + 4a + 12(M + 1)a.
///
/// Margin: the estimate is stratified over N (runs per level, exact p_k); given N = k,
/// ‖𝒢‖ ≤ R_k = 2L√s/p_k + L√s pathwise (all four outputs lie in K), so Hoeffding gives the
/// one-sided margin t = √(ln(1e6)·Σ_k (p_k R_k²)²/runs / 2): false failure ≤ 1e-6.
/// Twin: the mechanism calibrated on m = 1 at every call (the wrong batch size) exceeds the
/// bound plus margin on the same seeds.
#[test]
fn stat_d6_bias_reduced_second_moment_within_lemma_6_4_bound() {
    let (n, d, s, l) = (32, 8, 2, 1.0);
    let data = sparse_data(n, d, s, l, 11);
    let glm = SparseGlm { loss: Loss::Logistic, data: &data };
    let x: Vec<f64> = (0..d).map(|j| 0.3 * (j as f64).cos()).collect();
    let eps = 40.0; // per call ε/4 = 10: noise comparable to the data, where the bound is informative
    let cfg = BiasReducedConfig::new(l, s, eps, 0.0).unwrap();
    let per_call = cfg.per_call().unwrap();
    let m_trunc = truncation_m(n).unwrap();
    let law = TruncatedGeometric::new(m_trunc).unwrap();
    let ls = l * (s as f64).sqrt();
    let e_j = |j: u32| -> f64 {
        let sigma = per_call.noise_scale(1 << j).unwrap().sigma();
        (2.0 * d as f64 * sigma * sigma).min((ls + l).powi(2))
    };
    let nu2 = 2.0 * ls * ls + (0..=m_trunc).map(|k| 6.0 / law.pmf(k) * (e_j(k + 1) + 0.5 * e_j(k))).sum::<f64>();
    let r_k = |k: u32| 2.0 * ls / law.pmf(k) + ls;
    let runs = 40_000;
    let (measured, t) = second_moment(&cfg, glm, &x, &per_call, runs, &r_k);
    println!("E||G||^2 = {measured:.4} (margin {t:.4}) vs explicit Lemma 6.4 bound {nu2:.4}");
    assert!(measured <= nu2 + t, "E||G||^2 = {measured} > bound {nu2} + margin {t}");
    let (broken, t_broken) = second_moment(&cfg, glm, &x, &CalibratedOnOne(per_call.clone()), runs, &r_k);
    println!("twin (calibrated on m = 1): E||G||^2 = {broken:.4} (margin {t_broken:.4})");
    assert!(broken > nu2 + t_broken, "the twin must exceed the bound: {broken} <= {nu2} + {t_broken}");
}

/// Cost: every call evaluates exactly 2^{N+1} + 1 per-example gradients (pathwise), and
/// E[2^{N+1}] + 1 = 2C_M(M + 1) + 1 exactly (rationals: Σ_k 2^{M−k}·2^{k+1} = 2^{M+1}(M + 1) over
/// 2^{M+1} − 1), which is ≤ log₂ n + 3 for every n ≥ 2 (2C_M ≤ 2, M + 1 ≤ log₂ n), against n for a
/// full-batch gradient.
#[test]
fn exact_bias_reduced_cost_is_2_pow_n_plus_1_gradients_mean_about_log2_n() {
    for n in [2usize, 3, 8, 100, 1024, 10_000, 1 << 20] {
        let m = truncation_m(n).unwrap();
        let law = TruncatedGeometric::new(m).unwrap();
        let (mut num, mut den) = (0u128, 0u128);
        for k in 0..=m {
            let (pk, q) = law.pmf_rational(k);
            num += u128::from(pk) << (k + 1);
            den = u128::from(q);
        }
        assert_eq!(num, (1u128 << (m + 1)) * u128::from(m + 1), "sum p_k 2^(k+1) numerator");
        let mean = num as f64 / den as f64 + 1.0;
        let formula = law.mean_batch_size() + 1.0;
        assert!((mean - formula).abs() <= 1e-12 * formula, "n {n}: {mean} vs {formula}");
        let log2n = (n as f64).log2();
        println!("n = {n}: expected gradients per call {mean:.4}, log2 n = {log2n:.4}");
        assert!(mean <= log2n + 3.0 && mean <= n as f64 + 1.0);
    }
    let d = 30;
    let case = Logistic::new(1000, d, 2, 3);
    let (glm, cfg) = (case.glm(), case.config(1.0, 1e-5));
    for seed in 0..40 {
        let run = cfg.run(&vec![0.1; d], glm, Seeds::new(seed)).unwrap();
        assert_eq!(run.estimate.gradients_evaluated, (1 << (run.estimate.level_n + 1)) + 1);
    }
}

/// The events recorded through the release. Gaussian (δ > 0): the three calls on B as one
/// `SampledWithoutReplacement(n, 2^{N+1}, Gaussian(z/√3))` and G_0 as
/// `SampledWithoutReplacement(n, 1, Gaussian(z))`, z the per-call multiplier at (ε/4, δ/4); the
/// reported ε ≤ ε and below the unamplified composition of the four Gaussians. Laplace (δ = 0):
/// four `Laplace(4/ε)` events, no amplification, pure ε = ε up to rounding.
#[test]
fn bias_reduced_records_subsampled_events_and_reports_privacy() {
    let (n, d, eps, delta) = (256, 40, 1.0, 1e-5);
    let case = Logistic::new(n, d, 3, 8);
    let (glm, cfg, x) = (case.glm(), case.config(eps, delta), vec![0.05; d]);
    let z = cfg.per_call().unwrap().noise_scale(1).unwrap().sigma() / cfg.per_call().unwrap().l2_sensitivity(1);
    let mut levels = std::collections::BTreeSet::new();
    for seed in 0..12 {
        let run = cfg.run(&x, glm, Seeds::new(seed)).unwrap();
        levels.insert(run.estimate.level_n);
        let b = 1u64 << (run.estimate.level_n + 1);
        let Some(DpEvent::Composed(parts)) = run.accounted.events.as_event() else {
            panic!("{:?}", run.accounted.events)
        };
        assert_eq!(parts.len(), 2);
        match (&parts[0], &parts[1]) {
            (
                DpEvent::SampledWithoutReplacement { source_dataset_size: n0, sample_size: b0, event: e0 },
                DpEvent::SampledWithoutReplacement { source_dataset_size: n1, sample_size: b1, event: e1 },
            ) => {
                assert_eq!((*n0, *b0, *n1, *b1), (n as u64, b, n as u64, 1));
                let DpEvent::Gaussian { noise_multiplier: z0 } = **e0 else { panic!() };
                let DpEvent::Gaussian { noise_multiplier: z1 } = **e1 else { panic!() };
                assert!((z0 - z / 3f64.sqrt()).abs() <= 1e-12 * z && z0 <= z / 3f64.sqrt());
                assert!((z1 - z).abs() <= 1e-12 * z && z1 <= z);
            }
            other => panic!("{other:?}"),
        }
        let reported = run.accounted.privacy.epsilon.unwrap();
        let mut unamplified = RdpAccountant::new(Neighbouring::ReplaceOne);
        unamplified.compose(&DpEvent::self_composed(DpEvent::gaussian(z).unwrap(), 4).unwrap(), 1).unwrap();
        let plain = unamplified.epsilon(delta, Conversion::Improved).unwrap().epsilon;
        println!("N = {}: reported eps {reported:.5} at delta {delta} (unamplified {plain:.4})", run.estimate.level_n);
        assert!(reported <= eps && reported < plain);
    }
    assert!(levels.len() >= 2, "several levels N seen: {levels:?}");
    let laplace = case.config(eps, 0.0);
    let run = laplace.run(&x, glm, Seeds::new(1)).unwrap();
    let Some(DpEvent::SelfComposed { event, count: 4 }) = run.accounted.events.as_event() else {
        panic!("{:?}", run.accounted.events)
    };
    let DpEvent::Laplace { noise_multiplier } = *event else { panic!() };
    assert!((noise_multiplier - 4.0 / eps).abs() <= 1e-9);
    let reported = run.accounted.privacy.epsilon.unwrap();
    assert!((reported - eps).abs() <= 1e-9 && run.accounted.privacy.delta == Some(0.0), "{reported}");
}

/// Typed refusals: n < 2, N > M, a point of the wrong dimension, a per-example gradient with more
/// than s non-zeros or norm above L (never clipped silently), Algorithm 2 with δ = 0 (it needs
/// δ > 0; with δ > 0 it runs).
#[test]
fn bias_reduced_invalid_input_is_a_typed_error() {
    let (n, d, s) = (32, 10, 2);
    let case = Logistic::new(n, d, s, 2);
    let (glm, cfg, x) = (case.glm(), case.config(1.0, 1e-5), vec![0.0; d]);
    let rel = || PrivateRelease::statistics(0.0, Seeds::new(0)).unwrap();
    assert!(matches!(cfg.estimate(&x, glm, 5, &mut rel()), Err(Error::InvalidParameter { .. })), "N > M = 4");
    assert!(cfg.estimate(&x, glm, 4, &mut rel()).is_ok());
    assert!(matches!(cfg.estimate(&x[..5], glm, 0, &mut rel()), Err(Error::InvalidParameter { .. })));
    let tiny = sparse_data(1, d, s, 1.0, 2);
    let tiny_glm = SparseGlm { loss: Loss::Logistic, data: &tiny };
    assert!(matches!(cfg.estimate(&x, tiny_glm, 0, &mut rel()), Err(Error::InvalidParameter { .. })));
    let dense_rows = sparse_data(n, d, s + 1, 1.0, 2);
    let dense_glm = SparseGlm { loss: Loss::Logistic, data: &dense_rows };
    assert!(
        matches!(cfg.estimate(&x, dense_glm, 3, &mut rel()), Err(Error::InvalidParameter { .. })),
        "s + 1 non-zeros"
    );
    let long_rows = sparse_data(n, d, s, 3.0, 2);
    let long_glm = SparseGlm { loss: Loss::Linear, data: &long_rows };
    assert!(matches!(cfg.estimate(&x, long_glm, 3, &mut rel()), Err(Error::InvalidParameter { .. })), "norm 3 > L = 1");
    let alg2 = cfg.clone().with_mechanism(MeanMechanismKind::GaussianL1Recovery);
    assert!(alg2.estimate(&x, glm, 0, &mut rel()).is_ok(), "Algorithm 2 as MeanMech");
    let pure = case.config(1.0, 0.0).with_mechanism(MeanMechanismKind::GaussianL1Recovery);
    assert!(matches!(pure.estimate(&x, glm, 0, &mut rel()), Err(Error::InvalidParameter { .. })), "needs delta > 0");
    assert!(
        matches!(BiasReducedConfig::new(1.0, s, 4.0, 1e-5), Err(Error::InvalidParameter { .. })),
        "eps/4 < 1 for Gaussian"
    );
    assert!(matches!(BiasReducedConfig::new(1.0, 0, 1.0, 0.0), Err(Error::InvalidParameter { .. })));
    assert!(matches!(BiasReducedConfig::new(f64::NAN, s, 1.0, 0.0), Err(Error::InvalidParameter { .. })));
}

/// A sample that would hold both a Gaussian curve and an (ε, δ) claim is refused before the
/// second kind draws its noise (each kind would be amplified by the shared sample separately,
/// under-reporting), in either order; each kind alone is accepted, and nothing was drawn or
/// recorded for the refused release.
#[test]
fn release_subsample_refuses_curves_mixed_with_claims() {
    for curve_first in [true, false] {
        let mut release = PrivateRelease::statistics(0.0, Seeds::new(4)).unwrap();
        let mut batch = Vec::new();
        release.sample_ordered_subset(50, 4, &mut batch).unwrap();
        let mut v = vec![0.0; 3];
        let refused = if curve_first {
            release.release_statistic_given_std(&mut v, 2.0, 1.0).unwrap();
            let before = v.clone();
            let r = release.release_statistic_epsilon_delta(&mut v, 2.0, 1.0, 1.0).map(|_| ());
            assert_eq!(v, before, "no noise drawn for the refused release");
            r
        } else {
            release.release_statistic_epsilon_delta(&mut v, 2.0, 1.0, 1.0).unwrap();
            let before = v.clone();
            let r = release.release_statistic_given_std(&mut v, 2.0, 1.0);
            assert_eq!(v, before, "no noise drawn for the refused release");
            r
        };
        assert!(matches!(refused, Err(Error::Unsupported { .. })), "curve first {curve_first}: {refused:?}");
        assert_eq!(release.finish().unwrap().releases, 1);
    }
}

/// The release's subsample bookkeeping: every release on an open sample draws noise (counted),
/// the Gaussian ones become one `SampledWithoutReplacement(n, m, Gaussian(z))` with
/// 1/z² = Σ 1/zᵢ² at the close, Laplace ones are recorded at once, unamplified; a release after
/// the close is an ordinary `Gaussian` again.
#[test]
fn release_subsample_composes_gaussians_into_one_sampled_event() {
    let mut release = PrivateRelease::statistics(0.0, Seeds::new(3)).unwrap();
    let mut batch = Vec::new();
    release.sample_ordered_subset(50, 4, &mut batch).unwrap();
    assert_eq!(batch.len(), 4);
    let mut v = vec![0.0; 3];
    release.release_statistic_given_std(&mut v, 2.0, 1.0).unwrap(); // z = 2
    release.release_statistic_given_std(&mut v, 4.0, 2.0).unwrap(); // z = 2
    release.release_statistic_laplace(&mut v, 3.0, 1.0).unwrap(); // Laplace(3)
    assert_eq!(release.events().len(), 1, "only the Laplace event before the close");
    release.close_subsample().unwrap();
    release.release_statistic_given_std(&mut v, 5.0, 1.0).unwrap();
    let summary = release.finish().unwrap();
    assert_eq!(summary.releases, 4);
    let Some(DpEvent::Composed(parts)) = summary.events.as_event() else { panic!("{:?}", summary.events) };
    assert_eq!(parts[0], DpEvent::Laplace { noise_multiplier: 3.0 });
    let DpEvent::SampledWithoutReplacement { source_dataset_size: 50, sample_size: 4, event } = &parts[1] else {
        panic!("{:?}", parts[1])
    };
    let DpEvent::Gaussian { noise_multiplier: z } = **event else { panic!() };
    assert!(z <= 2f64.sqrt() && (z - 2f64.sqrt()).abs() <= 1e-14, "z = 2/sqrt(2): {z}");
    assert_eq!(parts[2], DpEvent::Gaussian { noise_multiplier: 5.0 });
}
