//! Tests of `dpref::bounds::dp2` ([LZLRMS], notes §3.1, §4, §6 P9, P17, P18, §8 errata 1–5,
//! 13, 15).
//!
//! Expected values are hand computations written out in the test, the notes' prototype numbers,
//! or independent re-computations (a recursion, a brute-force maximum, a Monte Carlo); never
//! values produced by the code under test. Each test names the mutants that make it fail.
//!
//! Tolerances: a value quoted in the notes to k significant digits is compared with an absolute
//! tolerance of half a unit in its last digit; a hand-computed value of a few operations with a
//! relative tolerance of 1e-14 (a few roundings of 2⁻⁵³); identities to 1e-12.

mod common;

use dpref::Error;
use dpref::bounds::dp2::*;
use dpref::noise::standard_normal;
use dpref::rng::{Seeds, Stream};

use common::check::{EXTREME_POSITIVE, assert_rel, finite_or_err, invalid, scalar};

/// The privatisation (C, σ, b) of a test.
fn ns(c: f64, sigma: f64, batch_b: u64) -> NoiseSetting {
    NoiseSetting::new(c, sigma, batch_b).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Lemma 1 (notes §4.1, P9)
// ---------------------------------------------------------------------------------------------

/// Lemma 1 by hand: `C = 2, σ = 1.5, s = 4, b = 3`: `σ²C²/(sb²) = 2.25·4/36 = 0.25`, `M = 4.25`.
/// Constant gradient `g_j = 1`, β = 0.5: `E v_2 = (1 − 0.25)(1 + 0.25) = 0.9375`; AdaGrad
/// `E v_3 = 3·1.25 = 3.75`; `E D ≤ max{√4 + 0.5, 1} = 2.5`, `max{0 + 0.1, 1} = 1`. The RMSProp
/// closed form equals the recursion `E v_k = βE v_{k−1} + (1−β)(g² + σ²C²/(sb²))` iterated from 0
/// for k ≤ 60 and stays ≤ M for `|g_j| ≤ C`; AdaGrad's exceeds M (Lemma 1 is for RMSProp). M is
/// strictly decreasing in s for σ > 0 and constant for σ = 0.
/// Mutants: `σ²C²/(sb)` or `σ²C²/b²` (no averaging) fail 4.25; `β^k` in place of `1 − β^k`, or
/// a recursion started at `g²`, fail 0.9375 and the recursion; `min` for `max` in the D bound
/// fails 2.5 / 1.
#[test]
fn golden_lemma1_closed_forms() {
    assert_rel(lemma1_m(&ns(2.0, 1.5, 3), 4).unwrap(), 4.25, 1e-14, "M");
    assert_rel(lemma1_expected_v_rmsprop(&ns(2.0, 1.5, 3), 4, 1.0, 0.5, 2).unwrap(), 0.9375, 1e-14, "E v_2 RMSProp");
    assert_eq!(lemma1_expected_v_rmsprop(&ns(2.0, 1.5, 3), 4, 1.0, 0.5, 0).unwrap(), 0.0, "E v_0");
    assert_rel(lemma1_expected_v_adagrad(&ns(2.0, 1.5, 3), 4, 1.0, 3).unwrap(), 3.75, 1e-14, "E v_3 AdaGrad");
    assert_rel(expected_d_bound(4.0, 0.5).unwrap(), 2.5, 1e-15, "E D bound");
    assert_eq!(expected_d_bound(0.0, 0.1).unwrap(), 1.0, "E D bound, SGD branch");

    for &(g, c, sigma, s, b, beta) in
        &[(1.0, 2.0, 1.5, 4u64, 3u64, 0.5), (-0.3, 0.5, 1.0, 195, 64, 0.9), (2.0, 2.0, 0.0, 1, 1, 0.99)]
    {
        let m = lemma1_m(&ns(c, sigma, b), s).unwrap();
        let target = g * g + sigma * sigma * c * c / (s as f64 * (b * b) as f64);
        let mut ev = 0.0;
        for k in 1..=60u64 {
            ev = beta * ev + (1.0 - beta) * target;
            let closed = lemma1_expected_v_rmsprop(&ns(c, sigma, b), s, g, beta, k).unwrap();
            assert_rel(closed, ev, 1e-12, "RMSProp closed form vs recursion");
            assert!(closed <= m, "E v_k = {closed} > M = {m} with |g| <= C");
            assert_rel(
                lemma1_expected_v_adagrad(&ns(c, sigma, b), s, g, k).unwrap(),
                k as f64 * target,
                1e-14,
                "AdaGrad",
            );
        }
    }
    assert!(lemma1_expected_v_adagrad(&ns(2.0, 1.5, 3), 4, 1.0, 10).unwrap() > lemma1_m(&ns(2.0, 1.5, 3), 4).unwrap());

    let mut prev = f64::INFINITY;
    for s in 1..=200u64 {
        let m = lemma1_m(&ns(0.5, 1.0, 64), s).unwrap();
        assert!(m < prev, "M not strictly decreasing at s = {s}");
        prev = m;
        assert_eq!(lemma1_m(&ns(0.5, 0.0, 64), s).unwrap(), 0.25, "sigma = 0: M = C^2");
    }
}

// ---------------------------------------------------------------------------------------------
// Theorem 2 schedule (P17, errata 1, 2)
// ---------------------------------------------------------------------------------------------

/// The printed floors with a *float* ν = s/T, as a hurried implementation would write them.
/// Thm. 2's inputs in the order of eq. (51): R, κ, α, s, `Σ_{t∈T_ν} E‖D^t‖₁`, `E‖N^t‖²_{D^t}`.
fn thm2(r: f64, kappa: f64, alpha: f64, delay_s: u64, sum: f64, noise_d_norms: &[f64]) -> Theorem2Inputs<'_> {
    Theorem2Inputs { r, kappa, alpha, delay_s, sum_d_l1_over_t_nu: sum, noise_d_norms }
}

fn float_floor_exponent(t: u64, s: u64, steps_t: u64) -> u64 {
    let nu = s as f64 / steps_t as f64;
    let nt = nu * steps_t as f64;
    let t = t as f64;
    ((t / (2.0 * nt)).floor() + ((t + nt) / (2.0 * nt)).floor()) as u64
}

/// P17 and erratum 1. (a) eq. (18)'s printed floors equal `⌊t/s⌋ + 1` bit for bit for all
/// `t ≤ 10⁴`, `s ∈ 1..=50` (Hermite). (b) Hand value α = 0.5, t = 7, s = 3: `α³/√7`; the
/// "factor" misreading `(α⌊t/2s⌋ + ⌊(t+s)/2s⌋ + 1)/√t = 2.5/√7` differs, and `α^1 = α` at t = 1
/// (s ≥ 2) rules out the exponent without `+1`. (c) What holds exactly, derived from the closed
/// form: for t ≥ 2, `α^t/α^{t−1} = α^{⌊t/s⌋−⌊(t−1)/s⌋}·√((t−1)/t)`, i.e. `α·√((t−1)/t)` at
/// `t ≡ 0 (mod s)` and `√((t−1)/t)` elsewhere. Hence the schedule is non-increasing and, when
/// α ≤ ε, `α^t ≤ ε·√((t−1)/t)·α^{t−1} < ε·α^{t−1}` at every switch (eq. (19); eq. (39)'s
/// equality needs α = ε and drops the root). Checked to 1e-12 on the same grid. (d) Integer vs
/// float floors: with `ν = s/T` in f64, `νT = 7.000000000000001` for s = 7, T = 25, so
/// `⌊7/(2νT)⌋ + ⌊(7+νT)/(2νT)⌋ = 0 + 0` instead of `⌊7/7⌋ = 1`; and the bound's exponent
/// `⌊1/(2ν)⌋ + ⌊(1+ν)/(2ν)⌋` at s = 1, T = 5 gives `2 + ⌊2.9999999999999996⌋ = 4` instead of 5.
/// Mutants: any exponent other than `⌊t/s⌋ + 1` fails (a)/(b); `(t + s)/s` in the printed floors
/// fails (a); a float ν fails (d)'s library checks.
#[test]
fn prop_theorem2_schedule() {
    let alpha = 0.999;
    for s in 1..=50u64 {
        for t in 1..=10_000u64 {
            let a = theorem2_learning_rate(alpha, t, s).unwrap();
            let p = theorem2_learning_rate_printed_floors(alpha, t, s).unwrap();
            assert_eq!(a.to_bits(), p.to_bits(), "Hermite identity fails at t = {t}, s = {s}");
        }
    }
    let seven = 7f64.sqrt();
    assert_rel(theorem2_learning_rate(0.5, 7, 3).unwrap(), 0.125 / seven, 1e-14, "alpha^3/sqrt 7");
    assert!((theorem2_learning_rate(0.5, 7, 3).unwrap() - 2.5 / seven).abs() > 0.5, "factor misreading");
    for s in 2..=50 {
        assert_eq!(theorem2_learning_rate(0.3, 1, s).unwrap(), 0.3, "alpha^1 = alpha");
    }
    assert_rel(theorem2_learning_rate(0.3, 1, 1).unwrap(), 0.09, 1e-15, "s = 1: floor(1/1) + 1 = 2");

    for &(alpha, eps) in &[(0.5, 0.5), (0.05, 0.1), (0.999, 1.0)] {
        for s in 1..=50u64 {
            let mut prev = theorem2_learning_rate(alpha, 1, s).unwrap();
            for t in 2..=2_000u64 {
                let cur = theorem2_learning_rate(alpha, t, s).unwrap();
                let root = ((t - 1) as f64 / t as f64).sqrt();
                assert!(cur <= prev, "increase at t = {t}, s = {s}");
                if cur < 1e-290 {
                    break; // ratios of subnormals carry no relative precision
                }
                if t % s == 0 {
                    assert_rel(cur, alpha * root * prev, 1e-12, "switch ratio");
                    assert!(cur <= eps * root * prev * (1.0 + 1e-12), "case 3 at t = {t}, s = {s}");
                    assert!(cur < eps * prev, "strict at t = {t}");
                } else {
                    assert_rel(cur, root * prev, 1e-12, "non-switch ratio");
                }
                prev = cur;
            }
        }
    }

    assert_eq!(float_floor_exponent(7, 7, 25), 0, "the float boundary this test documents");
    let exact = theorem2_learning_rate(0.5, 7, 7).unwrap();
    assert_rel(exact, 0.5f64.powi(2) / seven, 1e-14, "integer floors at the float boundary");
    assert_ne!(exact, 0.5f64.powi(float_floor_exponent(7, 7, 25) as i32 + 1) / seven);
    let nu = 1.0 / 5.0f64;
    assert_eq!((1.0 / (2.0 * nu)).floor() + ((1.0 + nu) / (2.0 * nu)).floor(), 4.0, "float bound exponent");
    // The library's bound exponent at s = 1, T = 5: printed / corrected first terms with
    // R = 0, κ = 1, ΣE‖D‖₁ = √5, no noise, α = 0.5: 1/0.5⁵ = 32 and 1/0.5⁶ = 64.
    let zeros = [0.0; 5];
    assert_rel(
        theorem2_bound_printed(&thm2(0.0, 1.0, 0.5, 1, 5f64.sqrt(), &zeros)).unwrap(),
        32.0,
        1e-14,
        "printed exp 5",
    );
    assert_rel(theorem2_bound(&thm2(0.0, 1.0, 0.5, 1, 5f64.sqrt(), &zeros)).unwrap(), 64.0, 1e-14, "corrected exp 6");
}

/// α, its conditions and κ by hand (erratum 2). `α(ε = 0.5, M = 4) = min{0.5, 1/2.5, 1} = 0.4`,
/// eq. (18): `min{0.5, 1/√4.5, 1} = 0.47140…`; `α(2, 0) = 0.5`, eq. (18) `1/√2`. The theorem's α
/// meets the proof's conditions (α ≤ ε, α ≤ 1/(√M + ε)) on a grid; eq. (18)'s fails case 4 at
/// `M = 1, ε = 0.9` (`1/√1.9 = 0.7255 > 1/1.9`). `κ_min(0.5, 2, 0.3, 0.1, 0.75) =
/// max{1, 2·0.3/(0.1·0.5)} = 12`, and 1 when h = 0.
/// Mutants: `1/√(M+ε)` in `theorem2_alpha` fails 0.4 and the grid; dropping `√(1−β)` gives 6.
#[test]
fn golden_theorem2_alpha_and_kappa() {
    assert_rel(theorem2_alpha(0.5, 4.0).unwrap(), 0.4, 1e-15, "alpha");
    assert_rel(theorem2_alpha_eq18(0.5, 4.0).unwrap(), 1.0 / 4.5f64.sqrt(), 1e-15, "alpha eq18");
    assert_rel(theorem2_alpha(2.0, 0.0).unwrap(), 0.5, 1e-15, "alpha, eps = 2");
    assert_rel(theorem2_alpha_eq18(2.0, 0.0).unwrap(), 0.5f64.sqrt(), 1e-15, "alpha eq18, eps = 2");
    assert_eq!(theorem2_alpha(10.0, 0.0).unwrap().to_bits(), 0.1f64.to_bits());
    for &eps in &[1e-7, 1e-3, 0.1, 0.5, 0.9, 1.0, 2.0, 10.0] {
        for &m in &[0.0, 0.01, 0.25, 1.0, 4.25, 100.0] {
            let a = theorem2_alpha(eps, m).unwrap();
            theorem2_alpha_conditions(a, eps, m).unwrap();
        }
    }
    let a18 = theorem2_alpha_eq18(0.9, 1.0).unwrap();
    assert_rel(a18, 1.0 / 1.9f64.sqrt(), 1e-15, "eq18 at M = 1, eps = 0.9");
    invalid(theorem2_alpha_conditions(a18, 0.9, 1.0), "alpha");
    invalid(theorem2_alpha_conditions(0.6, 0.5, 0.0), "alpha"); // case 3: alpha > eps

    assert_rel(kappa_min(0.5, 2.0, 0.3, 0.1, 0.75).unwrap(), 12.0, 1e-14, "kappa h-branch");
    assert_rel(kappa_min(0.5, 2.0, 0.0, 0.1, 0.75).unwrap(), 1.0, 1e-15, "kappa alpha^2 C^2 branch");
}

/// `T_ν` (erratum 3) and the Thm. 2 bound (eq. (51)) by hand. s = 2, T = 10: indices
/// {4, 8, 10}, main-text count ⌊10/4⌋ = 2, appendix ⌈10/4⌉ = 3; ν = 1: {T}, counts 0 and 1. For
/// all 1 ≤ s ≤ T ≤ 200 the index list has the appendix's length, and the main text's count is
/// right iff 2s | T. Bound: R = 1, κ = 1, α = 0.5, s = 2, T = 4, ΣE‖D‖₁ = 3, E‖N^t‖²_D = 1:
/// printed first term `2/α²/√4·3 = 12`, corrected (exponent ⌊T/s⌋+1 = 3) 24; noise term
/// `(1 + 0.5/√2 + 0.5/√3 + 0.25/2)/4`. `E‖N‖²_D = (σ²C²/b²)‖D‖₁`: σ = 2, C = 3, b = 6, ‖D‖₁ = 5
/// gives 5. Mutants: `⌊t/s⌋ + 1` in the noise weight (the proof's α^t without `1/2`) gives
/// `(0.5 + …)/4`; a missing `1/√T` doubles the first terms; `t mod 2s == 0` omitted from `T_ν`
/// duplicates T.
#[test]
fn golden_theorem2_bound_and_t_nu() {
    assert_eq!(t_nu_indices(2, 10).unwrap(), vec![4, 8, 10]);
    assert_eq!(t_nu_cardinality_main(2, 10).unwrap(), 2);
    assert_eq!(t_nu_cardinality_appendix(2, 10).unwrap(), 3);
    assert_eq!(t_nu_indices(7, 7).unwrap(), vec![7]);
    assert_eq!(t_nu_cardinality_main(7, 7).unwrap(), 0);
    assert_eq!(t_nu_cardinality_appendix(7, 7).unwrap(), 1);
    for t in 1..=200u64 {
        for s in 1..=t {
            let idx = t_nu_indices(s, t).unwrap();
            assert_eq!(idx.len() as u64, t_nu_cardinality_appendix(s, t).unwrap(), "s = {s}, T = {t}");
            assert_eq!(t_nu_cardinality_main(s, t).unwrap() == idx.len() as u64, t % (2 * s) == 0);
            assert_eq!(*idx.last().unwrap(), t);
            assert!(idx.windows(2).all(|w| w[0] < w[1]));
        }
    }

    let ones = [1.0; 4];
    let noise = (1.0 + 0.5 / 2f64.sqrt() + 0.5 / 3f64.sqrt() + 0.25 / 2.0) / 4.0;
    assert_rel(theorem2_noise_term(0.5, 2, &ones).unwrap(), noise, 1e-14, "noise term");
    assert_rel(theorem2_bound_printed(&thm2(1.0, 1.0, 0.5, 2, 3.0, &ones)).unwrap(), 12.0 + noise, 1e-14, "printed");
    assert_rel(theorem2_bound(&thm2(1.0, 1.0, 0.5, 2, 3.0, &ones)).unwrap(), 24.0 + noise, 1e-14, "corrected");
    assert_rel(expected_noise_d_norm(&ns(3.0, 2.0, 6), 5.0).unwrap(), 5.0, 1e-15, "E||N||_D^2");
    // An overflowing (vacuous) bound is an error, not ∞.
    let long = vec![0.0; 5000];
    assert!(matches!(theorem2_bound(&thm2(1.0, 1.0, 1e-3, 1, 1.0, &long)), Err(Error::Numerical { .. })));
}

// ---------------------------------------------------------------------------------------------
// h(s) and App. A.2 (erratum 4)
// ---------------------------------------------------------------------------------------------

/// h(s) by hand: `h_ratio(3, 1, d = 10, ε = 0.1) = 3/(1 + 1) = 1.5` (the main-text reading
/// `3/1 + dε = 4` fails). Sparse bound, `E‖a‖₁ = 4, E‖b̄‖₁ = 1, d = 10, ε = 0.1, s = 3, M' = 0.01`:
/// `1/(4 + 1 − 1) = 0.25`, staleness corrected `(3·3−1)·0.01/(2·1) = 0.04` → 0.29, printed
/// `3·0.01/1 = 0.03` → 0.28; equal at s = 1. The corrected staleness constant equals the brute-force
/// `max_{k<s} (1/s)Σ_{i=1}^{s}(k+i)` for s ≤ 100. `E‖a‖₁` for d = 50, σ = 1, C = 2, b = 4, s = 4:
/// `50·√(2/π)·0.25 = 9.97356…`. Mutants: `dε` outside the ratio; `sM'` in the corrected bound
/// (fails at s = 3); `√(1/π)`; `√s` dropped.
#[test]
fn golden_h_functions() {
    assert_rel(h_ratio(3.0, 1.0, 10, 0.1).unwrap(), 1.5, 1e-15, "h ratio");
    assert_rel(h_upper_bound_sparse(4.0, 1.0, 10, 0.1, 3, 0.01).unwrap(), 0.29, 1e-14, "corrected");
    assert_rel(h_upper_bound_sparse_printed(4.0, 1.0, 10, 0.1, 3, 0.01).unwrap(), 0.28, 1e-14, "printed");
    assert_eq!(
        h_upper_bound_sparse(4.0, 1.0, 10, 0.1, 1, 0.01).unwrap(),
        h_upper_bound_sparse_printed(4.0, 1.0, 10, 0.1, 1, 0.01).unwrap()
    );
    for s in 1..=100u64 {
        let brute = (0..s).map(|k| (1..=s).map(|i| (k + i) as f64).sum::<f64>() / s as f64).fold(0.0, f64::max);
        // first part is 0 at E‖b̄‖₁ = 0; d ε = 1, M' = 1 leaves the staleness constant.
        assert_rel(h_upper_bound_sparse(1.0, 0.0, 1, 1.0, s, 1.0).unwrap(), brute, 1e-14, "staleness constant");
    }
    assert_rel(
        expected_avg_noise_l1(&ns(2.0, 1.0, 4), 50, 4).unwrap(),
        12.5 * (2.0 / std::f64::consts::PI).sqrt(),
        1e-14,
        "E||a||_1",
    );
    invalid(h_upper_bound_sparse(1.0, 1.0, 10, 0.1, 3, 0.01), "e_b_l1");
}

/// Monte Carlo of `E‖a‖₁`, `a = (1/s)Σ_{i=1}^{s} N^i`, `N^i ~ N(0, (σC/b)² I_d)` (d = 50, σ = 1,
/// C = 2, b = 4, s = 4, K = 20 000 repetitions, N = dK = 10⁶ coordinates, each from s fresh
/// standard normals). Margin (derived, false-failure ≤ 1e-6): the per-coordinate mean
/// `(1/N)Σ|a_j|` is a Lipschitz function of the sN standard normals with constant
/// `(σC/(bs))·√s/√N = sd/√N` (sd = σC/(b√s) = 0.25), so by Gaussian concentration
/// `P(|mean − E| ≥ u) ≤ 2e^{−Nu²/(2 sd²)}`; `u = sd·√(2 ln(2·10⁶)/N) = 1.347e-3` makes it 1e-6.
/// E = `sd·√(2/π)` = 0.19947. Mutants: `√(1/π)` (E = 0.1410), no `1/√s` (0.3989), variance
/// `σ²C²/(b s)` (0.3989) all miss by ≫ u.
#[test]
fn stat_expected_avg_noise_l1_monte_carlo() {
    let (d, sigma, c, b, s, k) = (50u64, 1.0, 2.0, 4u64, 4u64, 20_000u64);
    let mut rng = Seeds::new(221_200_309).stream(Stream::Other(3));
    let scale = sigma * c / b as f64;
    let mut total = 0.0;
    for _ in 0..k {
        for _ in 0..d {
            let sum: f64 = (0..s).map(|_| scale * standard_normal(&mut rng)).sum();
            total += (sum / s as f64).abs();
        }
    }
    let n = (d * k) as f64;
    let mean = total / n;
    let sd = sigma * c / (b as f64 * (s as f64).sqrt());
    let u = sd * (2.0 * (2e6f64).ln() / n).sqrt();
    let expected = expected_avg_noise_l1(&ns(c, sigma, b), d, s).unwrap() / d as f64;
    assert!((mean - expected).abs() <= u, "MC mean {mean} vs {expected} (margin {u})");
}

// ---------------------------------------------------------------------------------------------
// Corollary 1, Theorem 3, Theorem 1
// ---------------------------------------------------------------------------------------------

/// Cor. 1 noise terms by hand: σ = 1, C = 2, b = 2, d = 3, T = 2: DP-SGD `(3 + 3/√2)/2`,
/// DP² with `E‖D‖₁ = (3, 1.5)`: `(3 + 1.5/√2)/2`, smaller; DP² with `D = 1` equals DP-SGD on
/// T = 1000. Mutant: noise weight `1/t` for `1/√t` fails the hand values.
#[test]
fn golden_corollary1_noise_terms() {
    let r2 = 2f64.sqrt();
    assert_rel(corollary1_noise_term_dp_sgd(&ns(2.0, 1.0, 2), 3, 2).unwrap(), (3.0 + 3.0 / r2) / 2.0, 1e-14, "DP-SGD");
    assert_rel(corollary1_noise_term_dp2(&ns(2.0, 1.0, 2), &[3.0, 1.5]).unwrap(), (3.0 + 1.5 / r2) / 2.0, 1e-14, "DP2");
    let ones = vec![50.0; 1000];
    assert_rel(
        corollary1_noise_term_dp2(&ns(0.5, 1.0, 64), &ones).unwrap(),
        corollary1_noise_term_dp_sgd(&ns(0.5, 1.0, 64), 50, 1000).unwrap(),
        1e-12,
        "D = 1",
    );
    // Above 1e6 steps Σ_{t≤T} 1/√t is Euler–Maclaurin's 2√T + ζ(1/2) + 1/(2√T) − 1/(24T^{3/2}):
    // it must continue the exact sum (one more term at T = 1e6 + 1 adds 1/√(1e6 + 1)), against
    // the DP² form summed term by term (D = 1); mpmath: Σ_{t≤10⁶+1} t^{−1/2} = 1998.5411454906…
    let t = 1_000_001u64;
    let sgd = corollary1_noise_term_dp_sgd(&ns(0.5, 1.0, 64), 50, t).unwrap();
    let summed = corollary1_noise_term_dp2(&ns(0.5, 1.0, 64), &vec![50.0; t as usize]).unwrap();
    assert_rel(sgd, summed, 1e-12, "closed form continues the sum");
    let per = corollary1_noise_term_dp_sgd(&ns(0.5, 1.0, 64), 50, 1).unwrap(); // T = 1: the term itself
    assert_rel(sgd / per, 1_998.541_145_490_648_7 / t as f64, 1e-13, "mpmath");
    // Σ_{t≤T} 1/√t ≈ 2√T: at T = u64::MAX the term is per·2/√T, finite and at once
    let huge = corollary1_noise_term_dp_sgd(&ns(0.5, 1.0, 64), 50, u64::MAX).unwrap();
    assert_rel(huge, per * 2.0 / (u64::MAX as f64).sqrt(), 1e-9, "T = u64::MAX");
}

/// The hand example of [`golden_theorem3`]: `C = 1`, `σ = 2`, `b = 2`, `F = 1`, `α = 0.1`, `T = 10`,
/// `L = 2`, `M = 4`, `τ² = 1`, `ε = 0.5`, `d = 3`.
fn theorem3_hand_inputs() -> (NoiseSetting, Theorem3Inputs) {
    let inputs = Theorem3Inputs {
        f_w1_minus_inf: 1.0,
        alpha: 0.1,
        t_steps: 10,
        l_smooth: 2.0,
        m: 4.0,
        tau2: 1.0,
        eps_adapt: 0.5,
        d: 3,
    };
    (ns(1.0, 2.0, 2), inputs)
}

/// Thm. 3 by hand: F = 1, α = 0.1, T = 10, L = 2, M = 4 (C = 1), τ² = 1, ε = 0.5, b = 2, d = 3,
/// σ = 2: `√M + 1 = 3`, first term `2·3·1/(0.1·10) = 6`, second
/// `2·0.1·2·3·(1/(2·0.25·2) + 3·4·1/(2·4)) = 1.2·2.5 = 3`; total 9. Notes' prototype (§4.4):
/// n = 2000, d = 50, b = 20, T = 1000, s = 50, L = C²/4, τ² = C², F = ln 2, α = min(ε,1)/L,
/// binary features with max nnz 8 (C = √8, which reproduces both quoted numbers): σ = 1, ε = 0.5
/// → 5.0; σ = 2, ε = 1 → 16.9 (half a unit in the last digit: ±0.05). Each hypothesis violated
/// → `InvalidParameter` naming it: `Lα/ε > 1` (alpha), `α > 1/L` with ε > 1 (alpha), ε > 1
/// (eps_adapt), F < 0 (f_w1_minus_inf), M < C² (m). Rate: d = 100, n = 1000, ε_p = 1, τ² = 4,
/// b = 4: re-derived `0.01 + 4/(4·10) = 0.11`, printed `0.01 + 4/√400 = 0.21`; the re-derived
/// second term scales as 1/b, the printed as 1/√b. Mutants: `ε` for `ε²` fails 9 and 5.0;
/// `√M + ε` for `√M + 1` fails 9; a dropped hypothesis check fails the `Err` cases.
#[test]
fn golden_theorem3() {
    let (noise, hand) = theorem3_hand_inputs();
    assert_rel(theorem3_bound(&noise, &hand).unwrap(), 9.0, 1e-14, "hand");

    let c2 = 8.0f64;
    let c = c2.sqrt();
    let l = c2 / 4.0;
    for &(sigma, eps, quoted) in &[(1.0, 0.5, 5.0), (2.0, 1.0, 16.9)] {
        let m = lemma1_m(&ns(c, sigma, 20), 50).unwrap();
        let alpha = f64::min(eps, 1.0) / l;
        let rhs = theorem3_bound(
            &ns(c, sigma, 20),
            &Theorem3Inputs {
                f_w1_minus_inf: 2f64.ln(),
                alpha,
                t_steps: 1000,
                l_smooth: l,
                m,
                tau2: c2,
                eps_adapt: eps,
                d: 50,
            },
        )
        .unwrap();
        assert!((rhs - quoted).abs() <= 0.05, "prototype RHS {rhs} vs {quoted}");
    }

    invalid(theorem3_bound(&noise, &Theorem3Inputs { alpha: 0.3, ..hand }), "alpha");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { alpha: 0.6, eps_adapt: 2.0, ..hand }), "alpha");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { eps_adapt: 2.0, ..hand }), "eps_adapt");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { f_w1_minus_inf: -1.0, ..hand }), "f_w1_minus_inf");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { m: 0.5, ..hand }), "m");
    // On the boundary Lα/ε = 1 (computed in floating point) the bound is accepted.
    assert!(theorem3_bound(&noise, &Theorem3Inputs { alpha: 0.25, ..hand }).is_ok());

    assert_rel(theorem3_rate_unit_constant(100, 1000, 1.0, 4.0, 4).unwrap(), 0.11, 1e-14, "re-derived rate");
    assert_rel(theorem3_rate_printed_unit_constant(100, 1000, 1.0, 4.0, 4).unwrap(), 0.21, 1e-14, "printed rate");
    let first = 0.01;
    let r4 = theorem3_rate_unit_constant(100, 1000, 1.0, 4.0, 16).unwrap() - first;
    let p4 = theorem3_rate_printed_unit_constant(100, 1000, 1.0, 4.0, 16).unwrap() - first;
    assert_rel(r4, 0.1 / 4.0, 1e-12, "1/b scaling");
    assert_rel(p4, 0.2 / 2.0, 1e-12, "1/sqrt(b) scaling");
}

/// Thm. 1 with `c2 = 1` by hand: q = 0.01, T = 10⁴, δ = e⁻⁴: `σ = 0.01·√(4·10⁴)/1 = 2`; the
/// asymptotic ε at σ = 2 is `2·0.01·200/2 = 2`. The asymptotic is not a bound: in the MovieLens
/// setting (q = 0.0008, σ = 0.5, T = 62 500, δ = 1e-6) it gives 2.97, far below the notes'
/// accountant value 11.769820 (§3.2). Mutant: `ln δ` in place of `ln(1/δ)` gives NaN/Err.
#[test]
fn golden_theorem1_trend_functions() {
    let d = (-4.0f64).exp();
    assert_rel(theorem1_sigma_unit_constant(0.01, 10_000, d, 1.0).unwrap(), 2.0, 1e-14, "sigma, c2 = 1");
    assert_rel(theorem1_epsilon_asymptotic_not_a_bound(0.01, 10_000, d, 2.0).unwrap(), 2.0, 1e-14, "asymptotic");
    let approx = theorem1_epsilon_asymptotic_not_a_bound(0.0008, 62_500, 1e-6, 0.5).unwrap();
    assert!((approx - 2.9735).abs() < 1e-4 && approx < 11.769820, "asymptotic {approx}");
}

// ---------------------------------------------------------------------------------------------
// Invalid inputs
// ---------------------------------------------------------------------------------------------

/// Every function refuses invalid input with `InvalidParameter` naming it (or `Empty` /
/// `NonFinite` for slices): NaN, ±∞, negatives, zero counts, s = 0, s > T, β ∉ (0, 1),
/// α ∉ (0, 1], δ ∉ (0, 1), q ∉ (0, 1]. Mutant: a missing check returns a number (or NaN).
#[test]
fn invalid_inputs_are_refused() {
    let nan = f64::NAN;
    invalid(NoiseSetting::new(0.0, 1.0, 1), "c");
    invalid(NoiseSetting::new(nan, 1.0, 1), "c");
    invalid(NoiseSetting::new(1.0, -1.0, 1), "sigma");
    invalid(NoiseSetting::new(1.0, f64::INFINITY, 1), "sigma");
    invalid(lemma1_m(&ns(1.0, 1.0, 1), 0), "delay_s");
    invalid(NoiseSetting::new(1.0, 1.0, 0), "batch_b");
    invalid(lemma1_expected_v_rmsprop(&ns(1.0, 1.0, 1), 1, nan, 0.5, 1), "g_j");
    for beta in [0.0, 1.0, -0.1, nan] {
        invalid(lemma1_expected_v_rmsprop(&ns(1.0, 1.0, 1), 1, 1.0, beta, 1), "beta");
        invalid(kappa_min(0.5, 1.0, 1.0, 0.1, beta), "beta");
    }
    invalid(lemma1_expected_v_adagrad(&ns(1.0, 1.0, 1), 1, f64::INFINITY, 1), "g_j");
    invalid(expected_d_bound(-1.0, 0.1), "m");
    invalid(expected_d_bound(1.0, 0.0), "eps_adapt");

    for alpha in [0.0, 1.5, -0.5, nan] {
        invalid(theorem2_learning_rate(alpha, 1, 1), "alpha");
        invalid(theorem2_learning_rate_printed_floors(alpha, 1, 1), "alpha");
        invalid(theorem2_bound(&thm2(1.0, 1.0, alpha, 1, 1.0, &[1.0])), "alpha");
        invalid(kappa_min(alpha, 1.0, 1.0, 0.1, 0.5), "alpha");
    }
    invalid(theorem2_learning_rate(0.5, 0, 1), "t");
    invalid(theorem2_learning_rate(0.5, 1, 0), "delay_s");
    invalid(theorem2_alpha(0.0, 1.0), "eps_adapt");
    invalid(theorem2_alpha(nan, 1.0), "eps_adapt");
    invalid(theorem2_alpha_eq18(0.1, -1.0), "m");
    invalid(kappa_min(0.5, 1.0, -1.0, 0.1, 0.5), "h_s");
    invalid(t_nu_indices(0, 5), "delay_s");
    invalid(t_nu_indices(1, 0), "steps_t");
    invalid(t_nu_cardinality_main(6, 5), "delay_s");
    invalid(t_nu_cardinality_appendix(6, 5), "delay_s");
    invalid(expected_noise_d_norm(&ns(1.0, 1.0, 1), -1.0), "d_l1");
    invalid(NoiseSetting::new(1.0, 1.0, 0), "batch_b");
    assert!(matches!(theorem2_noise_term(0.5, 1, &[]), Err(Error::Empty { .. })));
    assert!(matches!(theorem2_noise_term(0.5, 1, &[1.0, nan]), Err(Error::NonFinite { index: 1, .. })));
    invalid(theorem2_noise_term(0.5, 1, &[1.0, -1.0]), "noise_d_norms");
    invalid(theorem2_noise_term(0.5, 3, &[1.0, 1.0]), "delay_s");
    invalid(theorem2_bound(&thm2(-1.0, 1.0, 0.5, 1, 1.0, &[1.0])), "r");
    invalid(theorem2_bound(&thm2(1.0, nan, 0.5, 1, 1.0, &[1.0])), "kappa");
    // eq. (49): κ ≥ α²C² > 0, so κ = 0 lies outside the theorem (it used to be accepted)
    invalid(theorem2_bound(&thm2(1.0, 0.0, 0.5, 1, 1.0, &[1.0])), "kappa");
    // σ²C²/b² whose factors over- or underflow in σ·σ·C·C: the variance itself is 1
    for (c, sigma) in [(1e-200, 1e200), (1e200, 1e-200), (1e160, 1e-160)] {
        let noise = NoiseSetting::new(c, sigma, 1).unwrap();
        assert_rel(expected_noise_d_norm(&noise, 1.0).unwrap(), 1.0, 1e-15, "variance 1");
    }
    invalid(theorem2_bound_printed(&thm2(1.0, 0.0, 0.5, 1, 1.0, &[1.0])), "kappa");
    invalid(theorem2_bound_printed(&thm2(1.0, 1.0, 0.5, 1, -1.0, &[1.0])), "sum_d_l1_over_t_nu");

    invalid(h_ratio(-1.0, 1.0, 1, 0.1), "mean_g_l1");
    invalid(h_ratio(1.0, nan, 1, 0.1), "mean_avg_acc_l1");
    invalid(h_ratio(1.0, 1.0, 0, 0.1), "d");
    invalid(h_ratio(1.0, 1.0, 1, 0.0), "eps_adapt");
    invalid(h_upper_bound_sparse(4.0, 1.0, 10, 0.1, 0, 0.01), "delay_s");
    invalid(h_upper_bound_sparse_printed(4.0, 1.0, 10, 0.1, 1, -0.01), "m_prime");
    invalid(h_upper_bound_sparse(nan, 1.0, 10, 0.1, 1, 0.01), "e_a_l1");
    invalid(expected_avg_noise_l1(&ns(1.0, 1.0, 1), 0, 1), "d");
    invalid(expected_avg_noise_l1(&ns(1.0, 1.0, 1), 1, 0), "delay_s");

    assert!(matches!(corollary1_noise_term_dp2(&ns(1.0, 1.0, 1), &[]), Err(Error::Empty { .. })));
    assert!(matches!(corollary1_noise_term_dp2(&ns(1.0, 1.0, 1), &[nan]), Err(Error::NonFinite { .. })));
    invalid(corollary1_noise_term_dp2(&ns(1.0, 1.0, 1), &[-1.0]), "d_l1");
    invalid(corollary1_noise_term_dp_sgd(&ns(1.0, 1.0, 1), 1, 0), "steps_t");
    invalid(corollary1_noise_term_dp_sgd(&ns(1.0, 1.0, 1), 0, 1), "d");

    let (noise, hand) = theorem3_hand_inputs();
    invalid(theorem3_bound(&noise, &Theorem3Inputs { f_w1_minus_inf: nan, ..hand }), "f_w1_minus_inf");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { alpha: 0.0, ..hand }), "alpha");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { t_steps: 0, ..hand }), "t_steps");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { l_smooth: 0.0, ..hand }), "l_smooth");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { m: nan, ..hand }), "m");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { tau2: -1.0, ..hand }), "tau2");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { eps_adapt: 0.0, ..hand }), "eps_adapt");
    invalid(theorem3_bound(&noise, &Theorem3Inputs { d: 0, ..hand }), "d");
    invalid(theorem3_rate_unit_constant(0, 1, 1.0, 1.0, 1), "d");
    invalid(theorem3_rate_printed_unit_constant(1, 0, 1.0, 1.0, 1), "n");
    invalid(theorem3_rate_unit_constant(1, 1, 0.0, 1.0, 1), "eps_priv");

    for q in [0.0, 1.5, nan] {
        invalid(theorem1_sigma_unit_constant(q, 1, 1e-5, 1.0), "q");
    }
    for delta in [0.0, 1.0, nan] {
        invalid(theorem1_sigma_unit_constant(0.1, 1, delta, 1.0), "delta");
        invalid(theorem1_epsilon_asymptotic_not_a_bound(0.1, 1, delta, 1.0), "delta");
    }
    invalid(theorem1_sigma_unit_constant(0.1, 0, 1e-5, 1.0), "steps_t");
    invalid(theorem1_sigma_unit_constant(0.1, 1, 1e-5, 0.0), "eps_priv");
    invalid(theorem1_epsilon_asymptotic_not_a_bound(0.1, 1, 1e-5, 0.0), "sigma");
}

/// Every public \[LZLRMS\] bound fed extreme finite inputs (1e-300 … 1e300, counts up to
/// u64::MAX) returns an `Err` or a finite value, never ∞/NaN in `Ok`. A `NoiseSetting` with
/// `σ = C = 1e300` (variance 1e1200) is itself refused (`Numerical`): before, its ∞ variance
/// reached [`expected_noise_d_norm`], which then reported the overflow, but
/// `lemma1_m`/`expected_avg_noise_l1` returned `Ok(∞)`.
#[test]
fn prop_extreme_finite_inputs_never_give_a_non_finite_ok() {
    assert!(matches!(NoiseSetting::new(1e300, 1e300, 1), Err(Error::Numerical { .. })));
    let pos = EXTREME_POSITIVE;
    let counts = [1u64, 7, 1_000_000, u64::MAX];
    for &x in &pos {
        for &y in &pos {
            finite_or_err(theorem2_alpha(x, y), scalar, "theorem2_alpha");
            finite_or_err(theorem2_alpha_eq18(x, y), scalar, "theorem2_alpha_eq18");
            finite_or_err(expected_d_bound(x, y), scalar, "expected_d_bound");
            finite_or_err(kappa_min(1.0, x, y, x, 0.5), scalar, "kappa_min");
            finite_or_err(kappa_min(1e-300, y, x, 1e-300, 1.0 - 1e-16), scalar, "kappa_min small");
            finite_or_err(h_ratio(x, y, 1, x), scalar, "h_ratio");
            finite_or_err(h_upper_bound_sparse(y + x, x, 1, 1e-300, 3, y), scalar, "h sparse");
            finite_or_err(h_upper_bound_sparse_printed(y + x, x, 1, 1e-300, 3, y), scalar, "h sparse printed");
            for &t in &counts {
                finite_or_err(theorem2_learning_rate(x.min(1.0), t, 1), scalar, "theorem2_learning_rate");
                finite_or_err(theorem2_learning_rate_printed_floors(x.min(1.0), t, 1), scalar, "lr printed");
                finite_or_err(theorem3_rate_unit_constant(t, t, x, y, t), scalar, "theorem3 rate");
                finite_or_err(theorem3_rate_printed_unit_constant(t, 1, x, y, 1), scalar, "theorem3 rate printed");
                finite_or_err(theorem1_sigma_unit_constant(x.min(1.0), t, 1e-300, y), scalar, "theorem1 sigma");
                finite_or_err(
                    theorem1_epsilon_asymptotic_not_a_bound(x.min(1.0), t, 1e-300, y),
                    scalar,
                    "theorem1 eps",
                );
                let Ok(noise) = NoiseSetting::new(x, y, 1) else { continue };
                finite_or_err(lemma1_m(&noise, t), scalar, "lemma1_m");
                finite_or_err(lemma1_expected_v_rmsprop(&noise, t, y, 0.5, t), scalar, "E v rmsprop");
                finite_or_err(lemma1_expected_v_adagrad(&noise, 1, y, t), scalar, "E v adagrad");
                finite_or_err(expected_avg_noise_l1(&noise, t, 1), scalar, "expected_avg_noise_l1");
                finite_or_err(expected_noise_d_norm(&noise, y), scalar, "expected_noise_d_norm");
                finite_or_err(corollary1_noise_term_dp2(&noise, &[x, y]), scalar, "corollary1 dp2");
                // Σ 1/√t in closed form above 1e6 steps: T up to u64::MAX answers at once
                finite_or_err(corollary1_noise_term_dp_sgd(&noise, t, t), scalar, "corollary1 dp-sgd");
                let th3 = Theorem3Inputs {
                    f_w1_minus_inf: y,
                    alpha: 1e-300,
                    t_steps: t,
                    l_smooth: 1.0,
                    m: 1e300,
                    tau2: y,
                    eps_adapt: 1e-300,
                    d: t,
                };
                finite_or_err(theorem3_bound(&noise, &th3), scalar, "theorem3_bound");
            }
            let norms = [x, y, x];
            let th2 = Theorem2Inputs {
                r: y,
                kappa: y,
                alpha: x.min(1.0),
                delay_s: 1,
                sum_d_l1_over_t_nu: x,
                noise_d_norms: &norms,
            };
            finite_or_err(theorem2_noise_term(x.min(1.0), 1, &norms), scalar, "theorem2_noise_term");
            finite_or_err(theorem2_bound(&th2), scalar, "theorem2_bound");
            finite_or_err(theorem2_bound_printed(&th2), scalar, "theorem2_bound_printed");
        }
    }
}

/// Counts at the top of u64 are arithmetic, not panics: `t/s + 1` and `t + s` overflowed u64 at
/// `t = u64::MAX` (`theorem2_learning_rate` panicked "attempt to add with overflow"), and `2s`
/// for `s > u64::MAX/2`. At α = 1 the rate is `1/√t`; `T_ν` at `s = T = u64::MAX` is `{T}`.
#[test]
fn schedule_and_t_nu_take_counts_near_u64_max() {
    let t = u64::MAX;
    assert_rel(theorem2_learning_rate(1.0, t, 1).unwrap(), 1.0 / (t as f64).sqrt(), 1e-15, "rate at u64::MAX");
    assert_rel(theorem2_learning_rate_printed_floors(1.0, t, 1).unwrap(), 1.0 / (t as f64).sqrt(), 1e-15, "printed");
    assert_eq!(theorem2_learning_rate(0.5, t, 1).unwrap(), 0.0, "0.5^(2^64) underflows to 0");
    assert_eq!(t_nu_cardinality_main(t, t).unwrap(), 0);
    assert_eq!(t_nu_cardinality_appendix(t, t).unwrap(), 1);
    assert_eq!(t_nu_indices(t, t).unwrap(), vec![t]);
    assert_eq!(t_nu_indices(u64::MAX / 2 + 1, t).unwrap(), vec![t]);
}
