//! The primitives of \[GGKKM\] (Sec. 2, Def. 6.1, Algorithm 5's subsets), properties A1–A4 of the
//! paper's testable-property list (proofs/sparse/primitives.md §6): soft thresholding and the
//! l1-ball projection's optimality certificate (A1), the l∞ projection onto a solid domain (A2),
//! the truncated geometric law TGeom(M) (A3), uniform ordered subsets and the (O, E) split (A4).

mod common;

use common::stat::pearson_statistic;
use dpref::error::Error;
use dpref::geometry::{Domain, project_l1_ball, soft_threshold};
use dpref::linalg::{norm_l1, norm_l2};
use dpref::rng::{DpRng, Seeds, Stream};
use dpref::sampling::{BatchSampler, TruncatedGeometric, split_ordered, uniform_ordered_subset};
use rand::RngExt;

fn rng(seed: u64) -> DpRng {
    Seeds::new(seed).stream(Stream::Data)
}

fn linf_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
}

fn random_vec(r: &mut DpRng, d: usize, scale: f64) -> Vec<f64> {
    (0..d).map(|_| scale * (2.0 * r.random::<f64>() - 1.0)).collect()
}

/// A1 (soft thresholding): `soft(v, t)` is the prox of `t‖·‖₁`: per coordinate it minimises
/// `½(y − vⱼ)² + t|y|`, checked against 200 perturbed candidates y on 500 random (v, t); t = 0 is
/// the identity, t ≥ ‖v‖_∞ gives 0; invalid t and NaN entries are typed errors.
#[test]
fn a1_soft_threshold_is_the_prox_of_the_l1_norm() {
    let mut r = rng(1);
    for _ in 0..500 {
        let v = random_vec(&mut r, 5, 3.0);
        let t = 2.0 * r.random::<f64>();
        let mut w = v.clone();
        soft_threshold(&mut w, t).unwrap();
        for (vj, wj) in v.iter().zip(&w) {
            let obj = |y: f64| 0.5 * (y - vj).powi(2) + t * y.abs();
            for k in 0..200 {
                let y = wj + (k as f64 - 100.0) * 0.013;
                assert!(obj(*wj) <= obj(y) + 1e-12, "soft({vj}, {t}) = {wj} is not the minimiser (y = {y})");
            }
        }
        let mut same = v.clone();
        soft_threshold(&mut same, 0.0).unwrap();
        assert_eq!(same, v);
        let mut zero = v.clone();
        soft_threshold(&mut zero, 3.0).unwrap();
        assert!(zero.iter().all(|x| *x == 0.0));
    }
    let mut v = vec![1.0, 2.0];
    assert!(matches!(soft_threshold(&mut v, -1.0), Err(Error::InvalidParameter { .. })));
    assert!(matches!(soft_threshold(&mut v, f64::NAN), Err(Error::InvalidParameter { .. })));
    let mut bad = vec![1.0, f64::NAN];
    assert!(matches!(soft_threshold(&mut bad, 1.0), Err(Error::NonFinite { index: 1, .. })));
}

/// A1 (l1-ball projection, exact certificate): w = Π_{K_r}(v) is optimal iff
/// `⟨v − w, u − w⟩ ≤ 0` for all u ∈ K_r, a finite check over the vertices ±r eⱼ:
/// `r‖v − w‖_∞ ≤ ⟨v − w, w⟩ + tol`, with equality when v ∉ K_r. Also ‖w‖₁ ≤ r, idempotence,
/// supp(w) ⊆ supp(v) with signs kept. Tolerance: 1e-12·(‖v‖₁² + r²), rounding of d-term sums
/// of products of magnitude ≤ ‖v‖₁ (d ≤ 20). A broken projection (the radial rescaling
/// `v·r/‖v‖₁`, feasible but not Euclidean) violates the certificate on the first case.
#[test]
fn a1_l1_projection_meets_its_optimality_certificate() {
    let mut r = rng(2);
    let certificate_gap = |v: &[f64], w: &[f64], radius: f64| {
        let g: Vec<f64> = v.iter().zip(w).map(|(a, b)| a - b).collect();
        let inner: f64 = g.iter().zip(w).map(|(a, b)| a * b).sum();
        radius * g.iter().fold(0.0f64, |m, x| m.max(x.abs())) - inner
    };
    for case in 0..2000 {
        let d = 1 + case % 20;
        let v = random_vec(&mut r, d, 10.0);
        let radius = 0.01 + 5.0 * r.random::<f64>();
        let mut w = v.clone();
        project_l1_ball(&mut w, radius);
        let tol = 1e-12 * (norm_l1(&v).powi(2) + radius * radius);
        assert!(norm_l1(&w) <= radius, "infeasible");
        let gap = certificate_gap(&v, &w, radius);
        assert!(gap <= tol, "certificate violated by {gap}");
        if norm_l1(&v) > radius {
            assert!(gap >= -tol, "not tight: {gap}");
        } else {
            assert_eq!(w, v);
        }
        let mut again = w.clone();
        project_l1_ball(&mut again, radius);
        assert_eq!(again, w, "not idempotent");
        for (a, b) in v.iter().zip(&w) {
            assert!(*b == 0.0 || (a.signum() == b.signum() && b.abs() <= a.abs()));
        }
        if case == 0 {
            let l1 = norm_l1(&v);
            let radial: Vec<f64> = v.iter().map(|x| x * radius / l1).collect();
            assert!(certificate_gap(&v, &radial, radius) > tol, "the radial twin passes the certificate");
        }
    }
}

fn solid_domains() -> Vec<Domain> {
    vec![Domain::Box { radius: 0.7 }, Domain::L2Ball { radius: 1.3 }, Domain::L1Ball { radius: 1.1 }]
}

/// A2: the l∞ projection onto a solid X: x̂ ∈ X; x ∈ X ⇒ x̂ = x and t* = 0; the returned t* is
/// ‖x̂ − x‖_∞; no point of X is closer in l∞ (2000 random y ∈ X per case, Exact up to 1e-12);
/// t* is minimal: soft(x, t* − η) ∉ X for η = 1e-9. The simplex (not solid) is refused. A broken
/// projection (the Euclidean one onto the l2 ball, a radial rescaling) is beaten by the l∞ one.
#[test]
fn a2_linf_projection_onto_solid_domains_is_feasible_optimal_and_minimal() {
    let mut r = rng(3);
    for domain in solid_domains() {
        for _ in 0..200 {
            let d = 1 + r.random_range(0..6usize);
            let x = random_vec(&mut r, d, 3.0);
            let mut x_hat = x.clone();
            let t = domain.project_linf(&mut x_hat).unwrap();
            assert!(domain.contains(&x_hat), "{domain:?}: infeasible");
            assert!((linf_dist(&x_hat, &x) - t).abs() <= 1e-12 * (1.0 + t), "{domain:?}: t* is not the distance");
            for _ in 0..2000 {
                let mut y = random_vec(&mut r, d, 3.0);
                domain.project(&mut y);
                assert!(t <= linf_dist(&y, &x) + 1e-12, "{domain:?}: a closer point exists");
            }
            if t > 1e-6 {
                let mut inner = x.clone();
                soft_threshold(&mut inner, t - 1e-9).unwrap();
                assert!(!domain.contains(&inner), "{domain:?}: t* not minimal");
            }
            let mut inside = x_hat.clone();
            assert_eq!(domain.project_linf(&mut inside).unwrap(), 0.0);
            assert_eq!(inside, x_hat);
        }
    }
    let x = vec![3.0, 0.1, -0.2];
    let mut radial = x.clone();
    let n = norm_l2(&x);
    radial.iter_mut().for_each(|v| *v *= 1.3 / n);
    let mut linf = x.clone();
    let t = Domain::L2Ball { radius: 1.3 }.project_linf(&mut linf).unwrap();
    assert!(t < linf_dist(&radial, &x) - 1e-3, "the radial twin is as close in l-infinity");
    let mut s = vec![0.5, 0.5];
    assert!(matches!(Domain::Simplex.project_linf(&mut s), Err(Error::Unsupported { .. })));
    let mut nan = vec![f64::NAN];
    assert!(matches!(Domain::Box { radius: 1.0 }.project_linf(&mut nan), Err(Error::NonFinite { .. })));
}

/// A3 (exact): for every M ≤ 62, Σ_k p_k = 1 in exact integers (Σ 2^{M−k} = 2^{M+1} − 1, the
/// denominator), C_M ∈ [1/2, 1], support {0..M}; the CDF equals the running pmf sum (4 ulps per
/// term); E[1/p_N] = M + 1, E[2^{N+1}] = 2C_M(M + 1) and E[2^{2(N+1)}] = 4C_M(2^{M+1} − 1)
/// equal their defining sums (relative 1e-14: ≤ 64 terms). M = 63 is refused. Dropping C_M
/// (p_k = 2^{−k}) breaks the first identity: Σ_k 2^{−k} = 2 − 2^{−M} ≠ 1.
#[test]
fn a3_tgeom_normaliser_cdf_and_moments_are_exact() {
    for m in 0..=TruncatedGeometric::MAX_M {
        let g = TruncatedGeometric::new(m).unwrap();
        let (mut total, mut den) = (0u128, 0u64);
        for k in 0..=m {
            let (num, d) = g.pmf_rational(k);
            total += u128::from(num);
            den = d;
        }
        assert_eq!(total, u128::from(den), "M = {m}: probabilities do not sum to 1");
        assert_eq!(g.pmf_rational(m + 1).0, 0, "support beyond M");
        let c = g.normaliser_c();
        assert!((0.5..=1.0).contains(&c), "C_M = {c}");
        let printed_c = 1.0 / (2.0 * (1.0 - 0.5f64.powi(m as i32 + 1)));
        assert!((c - printed_c).abs() <= 4.0 * f64::EPSILON, "C_M formula");
        let (mut cum, mut inv, mut first, mut second) = (0.0, 0.0, 0.0, 0.0);
        for k in 0..=m {
            let p = g.pmf(k);
            assert!((p - c * 0.5f64.powi(k as i32)).abs() <= 4.0 * f64::EPSILON * p, "p_k = C_M 2^-k");
            cum += p;
            assert!((g.cdf(k) - cum).abs() <= 4.0 * f64::EPSILON * f64::from(k + 1), "cdf({k})");
            inv += p * (1.0 / p);
            first += p * 2f64.powi(k as i32 + 1);
            second += p * 4f64.powi(k as i32 + 1);
        }
        let rel = |a: f64, b: f64| (a - b).abs() <= 1e-14 * b.abs();
        assert!(rel(inv, g.mean_inverse_pmf()), "E[1/p_N], M = {m}");
        assert!(rel(first, g.mean_batch_size()), "E[2^(N+1)], M = {m}");
        assert!(rel(second, g.second_moment_batch_size()), "E[4^(N+1)], M = {m}");
        let uncorrected: f64 = (0..=m).map(|k| 0.5f64.powi(k as i32)).sum();
        assert!(m == 0 || (uncorrected - 1.0).abs() > 0.4, "p_k without C_M sums to {uncorrected}");
    }
    assert!(matches!(TruncatedGeometric::new(63), Err(Error::InvalidParameter { .. })));
}

/// A3 (Stat): 10⁵ draws of TGeom(3) against p = (8, 4, 2, 1)/15. Pearson's statistic with 3
/// degrees of freedom, rejected above the χ²₃ quantile at 1 − 1e-6 (30.7; smallest expected count
/// 6667, where the χ² approximation of the multinomial statistic is accurate far into the tail),
/// so a correct sampler fails with probability ≈ 1e-6. Power twin: the sampler that drops C_M
/// (a geometric capped at M: p′ = (1/2, 1/4, 1/8, 1/8)) has a non-centrality
/// 10⁵·Σ(p′ − p)²/p ≈ 5470 and fails on the same seed.
#[test]
fn stat_a3_tgeom_sampler_matches_its_pmf() {
    let g = TruncatedGeometric::new(3).unwrap();
    let probs: Vec<f64> = (0..=3).map(|k| g.pmf(k)).collect();
    let draws = 100_000;
    let mut r = rng(4);
    let mut counts = [0u64; 4];
    for _ in 0..draws {
        counts[g.sample(&mut r) as usize] += 1;
    }
    let (stat, limit) = pearson_statistic(&counts, &probs);
    assert!(stat <= limit, "TGeom(3) chi-square {stat} > {limit}");
    // the twin: a geometric(1/2) capped at M (C_M dropped)
    let mut r = rng(4);
    let mut twin = [0u64; 4];
    for _ in 0..draws {
        let mut k = 0;
        while k < 3 && r.random::<f64>() < 0.5 {
            k += 1;
        }
        twin[k] += 1;
    }
    let (twin_stat, _) = pearson_statistic(&twin, &probs);
    assert!(twin_stat > limit, "the twin without C_M passes: {twin_stat} <= {limit}");
    eprintln!("TGeom(3): chi-square {stat:.2} (limit {limit:.2}); twin without C_M {twin_stat:.0}");
}

/// A4 (Stat): ordered samples of m = 4 from n = 5 (partial Fisher–Yates) are uniform over the
/// 120 ordered 4-tuples: 240 000 draws (2000 expected per cell), Pearson's statistic against the
/// χ²₁₁₉ quantile at 1 − 1e-6. Uniformity of ordered tuples implies that the set is a uniform
/// subset and O, E are each uniform 2-subsets (inclusion probability m/n = 4/5). Power twin: the
/// naive shuffle `swap(j, U{0..n})` is not uniform and fails on the same seed.
#[test]
fn stat_a4_ordered_subsets_are_uniform() {
    let (n, m, draws) = (5usize, 4usize, 240_000usize);
    let code = |t: &[usize]| t.iter().fold(0usize, |acc, &i| acc * n + i);
    let mut cells: Vec<usize> = Vec::new();
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                for e in 0..n {
                    let t = [a, b, c, e];
                    let mut s = t.to_vec();
                    s.sort_unstable();
                    s.dedup();
                    if s.len() == m {
                        cells.push(code(&t));
                    }
                }
            }
        }
    }
    assert_eq!(cells.len(), 120);
    let index_of = |t: &[usize]| cells.binary_search(&code(t)).expect("a tuple of distinct indices");
    let probs = vec![1.0 / 120.0; 120];
    let mut r = rng(5);
    let mut counts = vec![0u64; 120];
    let mut out = Vec::new();
    let mut included = 0u64;
    for _ in 0..draws {
        uniform_ordered_subset(&mut r, n, m, &mut out).unwrap();
        counts[index_of(&out)] += 1;
        included += u64::from(out.contains(&0));
    }
    let (stat, limit) = pearson_statistic(&counts, &probs);
    assert!(stat <= limit, "ordered subsets chi-square {stat} > {limit}");
    // inclusion of index 0: Binomial(draws, 4/5), 6-sigma margin (sd = 196)
    let expected = draws as f64 * 0.8;
    assert!((included as f64 - expected).abs() <= 6.0 * (draws as f64 * 0.8 * 0.2).sqrt());
    let mut r = rng(5);
    let mut twin = vec![0u64; 120];
    for _ in 0..draws {
        let mut idx: Vec<usize> = (0..n).collect();
        for j in 0..m {
            let k = r.random_range(0..n);
            idx.swap(j, k);
        }
        twin[index_of(&idx[..m])] += 1;
    }
    let (twin_stat, _) = pearson_statistic(&twin, &probs);
    assert!(twin_stat > limit, "the naive shuffle passes: {twin_stat} <= {limit}");
    eprintln!("ordered subsets: chi-square {stat:.1} (limit {limit:.1}); naive shuffle {twin_stat:.0}");
}

/// A4 (structure): O and E have equal size, are disjoint and their union is B; the fixed-size
/// sampler of `BatchSampler` is the same partial Fisher–Yates (same seed, same indices); invalid
/// sizes are typed errors.
#[test]
fn a4_ordered_split_partitions_the_sample() {
    let mut r = rng(6);
    let mut out = Vec::new();
    for m in [2usize, 4, 8, 16] {
        uniform_ordered_subset(&mut r, 40, m, &mut out).unwrap();
        let (o, e) = split_ordered(&out).unwrap();
        assert_eq!(o.len(), e.len());
        assert!(o.iter().all(|i| !e.contains(i)));
        let mut union: Vec<usize> = o.iter().chain(e).copied().collect();
        union.sort_unstable();
        let mut b = out.clone();
        b.sort_unstable();
        assert_eq!(union, b);
        b.dedup();
        assert_eq!(b.len(), m, "repeated index");
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    uniform_ordered_subset(&mut rng(7), 30, 6, &mut a).unwrap();
    BatchSampler::WithoutReplacement { batch_size: 6 }.sample(&mut rng(7), 30, &mut b);
    assert_eq!(a, b);
    assert!(matches!(uniform_ordered_subset(&mut r, 3, 4, &mut out), Err(Error::InvalidParameter { .. })));
    assert!(matches!(uniform_ordered_subset(&mut r, 3, 0, &mut out), Err(Error::InvalidParameter { .. })));
    assert!(matches!(split_ordered(&[1, 2, 3]), Err(Error::InvalidParameter { .. })));
    assert!(matches!(split_ordered(&[]), Err(Error::InvalidParameter { .. })));
}
