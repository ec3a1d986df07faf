//! Tests of `dpref::bounds::sparse` ([GGKKM]; proofs/sparse/bounds.md).
//!
//! Expected values are hand computations written out in the test (the arithmetic is in the
//! comments and in literal expressions), never values produced by the code under test.
//! Tolerances: a few operations 1e-14 relative; `ln`/`powf` chains 1e-12.

mod common;

use dpref::Error;
use dpref::bounds::sparse::*;
use proptest::prelude::*;

use common::check::{EXTREME_POSITIVE, assert_rel, finite_or_err, invalid, pair, scalar};

/// The pure-DP setting (L, s, d, n, ε).
fn pure(l: f64, s: u64, d: u64, n: u64, epsilon: f64) -> SparseProblem {
    SparseProblem::new(l, s, d, n, epsilon).unwrap()
}

/// The (ε, δ) setting.
fn approx(l: f64, s: u64, d: u64, n: u64, epsilon: f64, delta: f64) -> SparseProblem {
    pure(l, s, d, n, epsilon).with_delta(delta).unwrap()
}

/// Thm. 3.2 at L = 1, s = 4, d = 100, n = 1000, ε = 1, β = 0.01: `ln(d/β) = ln 10⁴`.
/// Dense `2·√400·ln 10⁴/1000 = 0.04·ln 10⁴ ≈ 0.36841`; sparse `2√(4 ln 10⁴/1000) ≈ 0.38388`;
/// the min is the dense one. Laplace scale `2·2/1000 = 0.004`. Lemma 3.1 on the event
/// `‖ξ‖_∞ = 0.004 ln 10⁴` reproduces the sparse term: `√(2·2·0.004 ln 10⁴)`.
/// Mutants: constant 1 instead of 2, `ln d` for `ln(d/β)`, `√d` dropped, max for min fail.
#[test]
fn golden_theorem32_explicit() {
    let lg = 1e4f64.ln();
    assert_rel(theorem32_laplace_scale(&pure(1.0, 4, 4, 1000, 1.0)).unwrap(), 0.004, 1e-14, "sigma");
    assert_rel(theorem32_dense_term(&pure(1.0, 4, 100, 1000, 1.0), 0.01).unwrap(), 0.04 * lg, 1e-13, "dense");
    assert_rel(
        theorem32_sparse_term(&pure(1.0, 4, 100, 1000, 1.0), 0.01).unwrap(),
        2.0 * (4.0 * lg / 1000.0).sqrt(),
        1e-13,
        "sparse",
    );
    assert_rel(theorem32_bound(&pure(1.0, 4, 100, 1000, 1.0), 0.01).unwrap(), 0.04 * lg, 1e-13, "min");
    assert_rel(
        lemma31_projection_error_bound(1.0, 4, 0.004 * lg).unwrap(),
        (4.0 * 0.004 * lg).sqrt(),
        1e-13,
        "Lemma 3.1",
    );
    // L = 3 scales linearly.
    assert_rel(theorem32_bound(&pure(3.0, 4, 100, 1000, 1.0), 0.01).unwrap(), 0.12 * lg, 1e-13, "L = 3");
}

/// The regime change of Thm. 3.2: dense ≤ sparse ⇔ `√(sd) ln(d/β)/(nε) ≤ √(s ln(d/β)/(nε))`
/// ⇔ `nε ≥ d ln(d/β)`. At d = 100, β = 0.01, ε = 1 the crossover is `100 ln 10⁴ ≈ 921.03`:
/// at n = 921 the sparse branch is the min, at n = 922 the dense one; at the crossover both
/// terms are equal. Mutant: a crossover of `d/ε` (ln dropped) fails.
#[test]
fn regime_change_theorem32_sparse_to_dense() {
    let nstar = theorem32_crossover_n(100, 1.0, 0.01).unwrap();
    assert_rel(nstar, 100.0 * 1e4f64.ln(), 1e-14, "n*");
    let below = (
        theorem32_dense_term(&pure(1.0, 4, 100, 921, 1.0), 0.01).unwrap(),
        theorem32_sparse_term(&pure(1.0, 4, 100, 921, 1.0), 0.01).unwrap(),
    );
    let above = (
        theorem32_dense_term(&pure(1.0, 4, 100, 922, 1.0), 0.01).unwrap(),
        theorem32_sparse_term(&pure(1.0, 4, 100, 922, 1.0), 0.01).unwrap(),
    );
    assert!(below.1 < below.0, "n = 921: sparse branch is the min");
    assert!(above.0 < above.1, "n = 922: dense branch is the min");
    assert_eq!(theorem32_bound(&pure(1.0, 4, 100, 921, 1.0), 0.01).unwrap(), below.1);
    assert_eq!(theorem32_bound(&pure(1.0, 4, 100, 922, 1.0), 0.01).unwrap(), above.0);
    // Crossover scales like d ln d: at d = 10⁴, 10⁴·ln 10⁶.
    assert_rel(theorem32_crossover_n(10_000, 1.0, 0.01).unwrap(), 1e4 * 1e6f64.ln(), 1e-14, "n* at d = 1e4");
    // Unit-constant Table 1 rate: min switches at nε = d (√(sd)/(nε) vs √(s ln d/(nε)) at
    // d = 100, s = 4: equal where nε = d/ln d ≈ 21.7); n = 10: sparse... n = 100: dense.
    let t_small = table1_pure_upper_rate_unit_constant(&pure(1.0, 4, 100, 10, 1.0)).unwrap();
    assert_rel(t_small, 1f64.min((4.0 * 100f64.ln() / 10.0).sqrt()).min(20.0 / 10.0), 1e-14, "table1 n=10");
    let t_big = table1_pure_upper_rate_unit_constant(&pure(1.0, 4, 100, 100, 1.0)).unwrap();
    assert_rel(t_big, 0.2, 1e-14, "table1 n=100 dense branch 20/100");
}

/// Thm. 3.3 at L = 1, n = 1000, ε = 1, δ = 1e-5: `σ = 2√2 √ln(125000)/1000`. Dense term at
/// d = 100, β = 0.01: `σ(10 + √(2 ln 100))`. Sparse term at s = 4:
/// `2√2 (4 ln(125000) ln(20000))^{1/4}/√1000`. The combined bound uses β/2 in each.
/// Mutants: Δ₂ = L/n, `ln(1/δ)` for `ln(1.25/δ)`, `ln(d/β)` for `ln(2d/β)` fail.
#[test]
fn golden_theorem33_explicit() {
    let sigma = 2.0 * 2f64.sqrt() * 125_000f64.ln().sqrt() / 1000.0;
    assert_rel(theorem33_gaussian_scale(&approx(1.0, 1, 1, 1000, 1.0, 1e-5)).unwrap(), sigma, 1e-14, "sigma");
    let dense = sigma * (10.0 + (2.0 * 100f64.ln()).sqrt());
    assert_rel(theorem33_dense_term(&approx(1.0, 4, 100, 1000, 1.0, 1e-5), 0.01).unwrap(), dense, 1e-13, "dense");
    let sparse = 2.0 * 2f64.sqrt() * (4.0 * 125_000f64.ln() * 20_000f64.ln()).powf(0.25) / 1000f64.sqrt();
    assert_rel(theorem33_sparse_term(&approx(1.0, 4, 100, 1000, 1.0, 1e-5), 0.01).unwrap(), sparse, 1e-12, "sparse");
    let d2 = sigma * (10.0 + (2.0 * 200f64.ln()).sqrt());
    let s2 = 2.0 * 2f64.sqrt() * (4.0 * 125_000f64.ln() * 40_000f64.ln()).powf(0.25) / 1000f64.sqrt();
    assert_rel(theorem33_bound(&approx(1.0, 4, 100, 1000, 1.0, 1e-5), 0.01).unwrap(), d2.min(s2), 1e-12, "bound");
    invalid(theorem33_gaussian_scale(&approx(1.0, 1, 1, 1000, 1.5, 1e-5)), "epsilon");
}

/// Alg. 1 second moments at L = 1, s = 1, d = 4, n = 10, ε = 1: Laplace σ = 0.2,
/// `min(2·4·0.04, 4·1·H_4/10) = min(0.32, 0.4·25/12) = 0.32`; at d = 1000 the sparse branch
/// `0.4·H_1000` (< 8000·0.04). Gaussian at δ = 1e-5: `min(4σ_G², 8√(ln 125000 · ln 8)/10)`.
#[test]
fn golden_alg1_second_moments() {
    assert_rel(alg1_second_moment_laplace(&pure(1.0, 1, 4, 10, 1.0)).unwrap(), 0.32, 1e-14, "laplace dense");
    let h1000: f64 = (1..=1000).map(|i| 1.0 / i as f64).sum();
    assert_rel(alg1_second_moment_laplace(&pure(1.0, 1, 1000, 10, 1.0)).unwrap(), 0.4 * h1000, 1e-13, "laplace sparse");
    let sg = 2.0 * 2f64.sqrt() * 125_000f64.ln().sqrt() / 10.0;
    let want = (4.0 * sg * sg).min(8.0 * (125_000f64.ln() * 8f64.ln()).sqrt() / 10.0);
    assert_rel(alg1_second_moment_gaussian(&approx(1.0, 1, 4, 10, 1.0, 1e-5)).unwrap(), want, 1e-13, "gaussian");
}

/// Thm. 3.4's measurement count (erratum E1): printed/corrected = `ln(1/δ)^{1/4}`; at δ = e^{-16}
/// that is 2. Corrected at s = 2, d = 20, nε = 100: `100√(2 ln 10/16)` (ln(d/s) = ln 10).
#[test]
fn erratum_theorem34_measurements() {
    let delta = (-16f64).exp();
    let p = theorem34_measurements_printed_unit_constant(&approx(1.0, 2, 20, 100, 1.0, delta)).unwrap();
    let c = theorem34_measurements_corrected_unit_constant(&approx(1.0, 2, 20, 100, 1.0, delta)).unwrap();
    assert_rel(c, 100.0 * (2.0 * 10f64.ln() / 16.0).sqrt(), 1e-12, "corrected m");
    assert_rel(p / c, 2.0, 1e-12, "ratio ln(1/δ)^{1/4}");
    invalid(theorem34_rate_unit_constant(&approx(1.0, 20, 20, 100, 0.5, 1e-5), 0.1), "s");
}

/// Lemma 4.3's confidence (erratum E2) at ρ₀ = 1/2, K = 16: printed `1 − e^{−1/16} ≈ 0.0606`,
/// corrected `1 − e^{−1} ≈ 0.632`. α at α₀ = 1, n₀ = 10, n = 160, K = 16: `(10/160)√8`.
/// Lemma A.3 at α₀ = 1, p = 110 (ln(p/2) = ln 55), n = 100, ε = 1: `0.5·min(1, ln 55/100)`.
/// Thm. 4.4 at s = 2, d = 200, n = 1, ε = 1: `min(1, 2 ln 100) = 1`; n = 100: `2 ln 100/100`.
#[test]
fn erratum_lemma43_confidence_and_lower_values() {
    assert_rel(lemma43_confidence_printed(0.5).unwrap(), 1.0 - (-1.0f64 / 16.0).exp(), 1e-14, "printed");
    assert_rel(lemma43_confidence_corrected(0.5, 16).unwrap(), 1.0 - (-1.0f64).exp(), 1e-14, "corrected");
    assert!(lemma43_confidence_corrected(0.5, 16).unwrap() > 10.0 * lemma43_confidence_printed(0.5).unwrap());
    assert_rel(lemma43_alpha_unit_constant(1.0, 10, 160, 0.5, 16).unwrap(), 8f64.sqrt() / 16.0, 1e-14, "alpha");
    invalid(lemma43_alpha_unit_constant(1.0, 10, 160, 0.5, 17), "k");
    assert_rel(lemma_a3_alpha(1.0, 110, 100, 1.0).unwrap(), 0.5 * 55f64.ln() / 100.0, 1e-14, "A.3");
    assert_eq!(theorem44_lower_bound_unit_constant(&pure(1.0, 2, 200, 1, 1.0)).unwrap(), 1.0);
    assert_rel(
        theorem44_lower_bound_unit_constant(&pure(1.0, 2, 200, 100, 1.0)).unwrap(),
        2.0 * 100f64.ln() / 100.0,
        1e-14,
        "4.4",
    );
    // Thm. 4.1 at s = 4, d = 10⁴, n = 100, ε = 1: min(1, √(4 ln 100/100), √(4·10⁴)/100 = 2).
    assert_rel(
        theorem41_lower_bound_unit_constant(&pure(1.0, 4, 10_000, 100, 1.0)).unwrap(),
        (4.0 * 100f64.ln() / 100.0).sqrt(),
        1e-14,
        "4.1",
    );
    // Thm. 4.5 at s = 4, d = 100, n = 10⁴, ε = 1, δ = e^{-4}: min(1, 16^{1/4}/100, √400/10⁴) = 0.002.
    assert_rel(
        theorem45_lower_bound_unit_constant(&approx(1.0, 4, 100, 10_000, 1.0, (-4f64).exp())).unwrap(),
        0.002,
        1e-12,
        "4.5",
    );
    invalid(theorem41_lower_bound_unit_constant(&pure(1.0, 50, 100, 10, 1.0)), "s");
}

/// Thm. 5.1's pathwise inequality (erratum E3) at L = 1, s = 4, ‖ξ‖_∞ = 0.1, λ = 0.5, D = 2:
/// corrected `2·2·0.1 + 0.5·4/2 = 1.4`, printed `√8·0.1 + 1`. Laplace tail (E4) at σ = 1,
/// d = 100, β = 0.01: `ln 10⁴` vs printed `√ln 10⁴`. Scales: Laplace at s = 2, λ = 1, H = 1,
/// n = 10, ε = 1: `(2·2/10)(3) = 1.2`; Gaussian at λ = 1, n = 10, ε = 1, δ = 1e-5:
/// `2√2 √ln 125000/10`. Explicit pure bound = pathwise at `‖ξ‖_∞ = 1.2 ln(d/β)`.
#[test]
fn erratum_theorem51_pathwise_and_tails() {
    assert_rel(theorem51_pathwise_bound_corrected(1.0, 4, 0.1, 0.5, 2.0).unwrap(), 1.4, 1e-14, "corrected");
    assert_rel(
        theorem51_pathwise_bound_printed(1.0, 4, 0.1, 0.5, 2.0).unwrap(),
        8f64.sqrt() * 0.1 + 1.0,
        1e-14,
        "printed",
    );
    assert_rel(laplace_linf_tail(1.0, 100, 0.01).unwrap(), 1e4f64.ln(), 1e-14, "tail");
    assert_rel(laplace_linf_tail_printed(1.0, 100, 0.01).unwrap(), 1e4f64.ln().sqrt(), 1e-14, "tail printed");
    assert_rel(theorem51_laplace_scale(&pure(1.0, 2, 2, 10, 1.0), 1.0, 1.0).unwrap(), 1.2, 1e-14, "laplace sigma");
    assert_rel(
        theorem51_gaussian_scale(&approx(1.0, 1, 1, 10, 1.0, 1e-5), 1.0).unwrap(),
        2.0 * 2f64.sqrt() * 125_000f64.ln().sqrt() / 10.0,
        1e-14,
        "gauss sigma",
    );
    let want = 2.0 * 2f64.sqrt() * 1.2 * 1e4f64.ln() + 0.5;
    assert_rel(
        theorem51_pure_bound(&pure(1.0, 2, 100, 10, 1.0), 1.0, 1.0, 1.0, 0.01).unwrap(),
        want,
        1e-13,
        "pure explicit",
    );
    let sg = 2.0 * 2f64.sqrt() * 125_000f64.ln().sqrt() / 10.0;
    let want = 2.0 * 2f64.sqrt() * sg * (2.0 * 2e4f64.ln()).sqrt() + 0.5;
    assert_rel(
        theorem51_approx_bound(&approx(1.0, 2, 100, 10, 1.0, 1e-5), 1.0, 1.0, 0.01).unwrap(),
        want,
        1e-12,
        "approx explicit",
    );
}

/// TGeom(2): `C_2 = 1/(2·7/8) = 4/7`, p = (4/7, 2/7, 1/7). By enumeration here:
/// `E[2^{N+1}] = (4/7)2 + (2/7)4 + (1/7)8 = 24/7`, `E[4^{N+1}] = (4/7)4 + (2/7)16 + (1/7)64 = 16`,
/// `E[1/p_N] = 3`. Lemma 6.4 at a = 2, n = 8 (M = 2), L = 1: bias `√(2/8) = 0.5`,
/// `ν² = 4 + 8 + 12·3·2 = 84`. Alg. 1 constants at L = 1, s = 1, d = 4, ε_c = 1: Laplace
/// `4·H_4 = 25/3`; Gaussian at δ_c = 1e-5: `8√(ln 125000 · ln 8)`.
#[test]
fn golden_tgeom_and_lemma64() {
    assert_rel(tgeom_normaliser(2).unwrap(), 4.0 / 7.0, 1e-15, "C_2");
    let p = [4.0 / 7.0, 2.0 / 7.0, 1.0 / 7.0];
    let e1: f64 = p.iter().enumerate().map(|(k, pk)| pk * 2f64.powi(k as i32 + 1)).sum();
    let e2: f64 = p.iter().enumerate().map(|(k, pk)| pk * 4f64.powi(k as i32 + 1)).sum();
    let (m0, m1, m2) = tgeom_moments(2).unwrap();
    assert_rel(m0, 3.0, 1e-15, "E[1/p]");
    assert_rel(m1, e1, 1e-14, "E[2^{N+1}]");
    assert_rel(m1, 24.0 / 7.0, 1e-14, "24/7");
    assert_rel(m2, e2, 1e-14, "E[4^{N+1}]");
    assert_rel(m2, 16.0, 1e-14, "16");
    assert_rel(lemma64_bias_bound(2.0, 8).unwrap(), 0.5, 1e-15, "bias");
    assert_rel(lemma64_second_moment_bound(1.0, 2.0, 8).unwrap(), 84.0, 1e-15, "nu^2");
    assert_rel(lemma64_alg1_constant_laplace(1.0, 1, 4, 1.0).unwrap(), 25.0 / 3.0, 1e-14, "a laplace");
    assert_rel(
        lemma64_alg1_constant_gaussian(1.0, 1, 4, 1.0, 1e-5).unwrap(),
        8.0 * (125_000f64.ln() * 8f64.ln()).sqrt(),
        1e-14,
        "a gauss",
    );
    invalid(lemma64_bias_bound(2.0, 12), "n");
}

/// Lemma 6.5 corrected (E11) at n = 8, δ = 0.01 (< 1/64): per draw the Markov bound is
/// `ln 400·(9·16 + 1)/(4·64) + (3·24/7 + 1)/(4·8) = 145 ln 400/256 + 79/224` (E[4^{N+1}] = 2n = 16,
/// E[2^{N+1}] = n(M + 1)/(n − 1) = 24/7), and `P[T ≤ t]` has t + 1 draws; one draw already exceeds
/// 1/4 there, so no constant exists. At n = 1024, δ = 1e-7: per draw
/// `ln(4e7)·18433/(4·1024²) + (3·10240/1023 + 1)/4096`, `C = (1/(4·per) − 1)·ln(4e7)/1024`.
/// At n = 64, δ = 1e-4 the bound at t = 0 covers `P[T = 0] ≥ P[N₀ = M] = C_M 2^{−M} = (64/126)/32`
/// (N₀ = M alone stops the run: `√(2 ln 4e4)·193/1024 = 0.868 > 1/2`); the printed bound (t
/// draws, 32n²) read 0 there. Printed E[T] bounds: `(64/(9 ln 400) − 1, 512/(9 ln 400))`.
#[test]
fn golden_lemma65_stopping_time() {
    let l4 = 400f64.ln();
    let per = 145.0 * l4 / 256.0 + 79.0 / 224.0;
    assert_rel(lemma65_stopping_probability_bound(0.0, 8, 0.01).unwrap(), per, 1e-14, "one draw");
    assert_rel(lemma65_stopping_probability_bound(2.0, 8, 0.01).unwrap(), 3.0 * per, 1e-14, "t + 1 draws");
    assert!(matches!(lemma65_constant(8, 0.01), Err(dpref::Error::Numerical { .. })), "no t meets 1/4 at n = 8");
    let l = 4e7f64.ln();
    let per = l * 18433.0 / (4.0 * 1024.0 * 1024.0) + (3.0 * 10240.0 / 1023.0 + 1.0) / 4096.0;
    assert_rel(lemma65_constant(1024, 1e-7).unwrap(), (0.25 / per - 1.0) * l / 1024.0, 1e-14, "C");
    assert!(lemma65_stopping_probability_bound(0.0, 64, 1e-4).unwrap() >= (64.0 / 126.0) / 32.0, "P[T = 0]");
    let (lo, hi) = lemma65_expected_stopping_time_printed(8, 0.01).unwrap();
    assert_rel(lo, 64.0 / (9.0 * l4) - 1.0, 1e-14, "lower");
    assert_rel(hi, 512.0 / (9.0 * l4), 1e-14, "upper");
    invalid(lemma65_constant(8, 0.02), "delta");
}

/// Thm. 6.7 (E7) at D = 2, ν = 3, b = 0.1, τ = 100: corrected `(2·3·10 + 0.1·2·100)/100 = 0.8`,
/// printed `(60 + 10)/100 = 0.7`. Thm. 6.8 (E9) at Γ = 1, H = 4, L = 2, ν = 9, b = 0.5, τ = 16:
/// corrected `√(4/16)·9 + 1 = 5.5`, printed `√(4·16·9)/16 + 1 = 2.5`. Rates (E8): at L = D = 1,
/// s = 1, d = 2 (q = ln 2), n = 64, ε = 1, δ = e^{-1}: corrected `√ln 64 · (ln 2)^{1/4}/8`,
/// printed `√ln 64 · ln 2/8`.
#[test]
fn erratum_theorems67_68() {
    assert_rel(theorem67_bound_corrected_unit_constant(2.0, 3.0, 0.1, 100.0).unwrap(), 0.8, 1e-14, "6.7 corrected");
    assert_rel(theorem67_bound_printed_unit_constant(2.0, 3.0, 0.1, 100.0).unwrap(), 0.7, 1e-14, "6.7 printed");
    assert_rel(
        theorem68_bound_corrected_unit_constant(1.0, 4.0, 2.0, 9.0, 0.5, 16.0).unwrap(),
        5.5,
        1e-14,
        "6.8 corrected",
    );
    assert_rel(
        theorem68_bound_printed_unit_constant(1.0, 4.0, 2.0, 9.0, 0.5, 16.0).unwrap(),
        2.5,
        1e-14,
        "6.8 printed",
    );
    let d1 = (-1f64).exp();
    assert_rel(
        theorem67_rate_corrected_unit_constant(&approx(1.0, 1, 2, 64, 1.0, d1), 1.0).unwrap(),
        64f64.ln().sqrt() * 2f64.ln().powf(0.25) / 8.0,
        1e-12,
        "6.7 rate",
    );
    assert_rel(
        theorem67_rate_printed_unit_constant(&approx(1.0, 1, 2, 64, 1.0, d1), 1.0).unwrap(),
        64f64.ln().sqrt() * 2f64.ln() / 8.0,
        1e-12,
        "6.7 rate printed",
    );
    // 6.8 rates at Γ = H = 1, L = 4, same point: corrected (4√ln 64 + 16)(ln 2)^{1/4}/8,
    // printed (2√ln 64 + 16)(ln 2)^{1/4}/8.
    let q = 2f64.ln().powf(0.25) / 8.0;
    assert_rel(
        theorem68_rate_corrected_unit_constant(&approx(4.0, 1, 2, 64, 1.0, d1), 1.0, 1.0).unwrap(),
        (4.0 * 64f64.ln().sqrt() + 16.0) * q,
        1e-12,
        "6.8 rate",
    );
    assert_rel(
        theorem68_rate_printed_unit_constant(&approx(4.0, 1, 2, 64, 1.0, d1), 1.0, 1.0).unwrap(),
        (2.0 * 64f64.ln().sqrt() + 16.0) * q,
        1e-12,
        "6.8 rate printed",
    );
}

/// Thm. 7.1 at β = 0.1: K = ⌈log₂ 20⌉ = 5. Scale (E10) at Δ = 1, n = 100, ε = 1: printed
/// `6/100`, corrected `12/100`. Radius `λ ln(20/0.1) = λ ln 200`; failure at that radius
/// `2^{-5} + 10·(0.1/20) = 0.08125 ≤ β`.
#[test]
fn golden_theorem71_boosting() {
    assert_eq!(theorem71_runs(0.1).unwrap(), 5);
    assert_eq!(theorem71_runs(0.5).unwrap(), 2);
    assert_rel(theorem71_laplace_scale_printed(1.0, 5, 100, 1.0).unwrap(), 0.06, 1e-14, "printed");
    assert_rel(theorem71_laplace_scale_corrected(1.0, 5, 100, 1.0).unwrap(), 0.12, 1e-14, "corrected");
    let g = theorem71_radius(0.12, 5, 0.1).unwrap();
    assert_rel(g, 0.12 * 200f64.ln(), 1e-14, "radius");
    assert_rel(theorem71_failure_probability(5, g, 0.12).unwrap(), 0.08125, 1e-12, "failure");
}

#[test]
fn invalid_sparse_inputs_refused() {
    invalid(SparseProblem::new(1.0, 5, 4, 10, 1.0), "s");
    invalid(SparseProblem::new(1.0, 1, 4, 0, 1.0), "n");
    invalid(SparseProblem::new(1.0, 1, 4, 10, f64::NAN), "epsilon");
    invalid(SparseProblem::new(f64::INFINITY, 1, 4, 10, 1.0), "l");
    invalid(theorem32_bound(&pure(1.0, 1, 4, 10, 1.0), 1.0), "beta");
    invalid(pure(1.0, 1, 4, 10, 1.0).with_delta(0.0), "delta");
    // An (ε, δ) bound on a pure-DP problem, and ε > 1 where the bound needs ε ≤ 1, are refused.
    invalid(theorem33_bound(&pure(1.0, 1, 4, 10, 1.0), 0.1), "delta");
    invalid(theorem45_lower_bound_unit_constant(&approx(1.0, 1, 4, 10, 2.0, 0.01)), "epsilon");
    invalid(theorem51_pathwise_bound_corrected(1.0, 1, -0.1, 1.0, 1.0), "xi_linf");
    invalid(tgeom_normaliser(5000), "m");
    invalid(theorem71_runs(0.0), "beta");
    invalid(theorem71_convex_rate_unit_constant(&approx(1.0, 1, 10, 100, 1.0, 0.01), 1.0, 1.0, 0.9), "beta");
    invalid(theorem67_rate_corrected_unit_constant(&approx(1.0, 3, 3, 100, 1.0, 0.01), 1.0), "s");
    assert!(matches!(lemma31_projection_error_bound(1.0, 1, f64::NAN), Err(Error::InvalidParameter { .. })));
}

/// Every monotone quantity at one point; `s ≤ d/8` keeps `s ln(d/s)` increasing in s after
/// doubling, ε ≤ 1/2 keeps the Gaussian forms valid after doubling.
fn rates(n: u64, d: u64, s: u64, e: f64, delta: f64) -> Vec<(&'static str, f64)> {
    let b = 0.01;
    vec![
        ("thm32", theorem32_bound(&pure(1.0, s, d, n, e), b).unwrap()),
        ("thm33", theorem33_bound(&approx(1.0, s, d, n, e, delta), b).unwrap()),
        ("alg1_lap", alg1_second_moment_laplace(&pure(1.0, s, d, n, e)).unwrap()),
        ("alg1_gauss", alg1_second_moment_gaussian(&approx(1.0, s, d, n, e, delta)).unwrap()),
        ("thm34", theorem34_rate_unit_constant(&approx(1.0, s, d, n, e, delta), b).unwrap()),
        ("thm34_m2", theorem34_second_moment_unit_constant(&approx(1.0, s, d, n, e, delta)).unwrap()),
        ("table1", table1_pure_upper_rate_unit_constant(&pure(1.0, s, d, n, e)).unwrap()),
        ("thm41", theorem41_lower_bound_unit_constant(&pure(1.0, s, d, n, e)).unwrap()),
        ("thm44", theorem44_lower_bound_unit_constant(&pure(1.0, s, d, n, e)).unwrap()),
        ("thm45", theorem45_lower_bound_unit_constant(&approx(1.0, s, d, n, e, delta)).unwrap()),
        ("thm51_pure", theorem51_pure_rate_unit_constant(&pure(1.0, s, d, n, e), 1.0, 1.0, b).unwrap()),
        ("thm51_approx", theorem51_approx_rate_unit_constant(&approx(1.0, s, d, n, e, delta), 1.0, b).unwrap()),
        ("thm55", theorem55_rate_unit_constant(&pure(1.0, s, d, n, e), 1.0, b).unwrap()),
        ("thm56_pure", theorem56_pure_rate_unit_constant(&pure(1.0, s, d, n, e), 1.0, 1.0, 1.0, b).unwrap()),
        ("thm56_approx", theorem56_approx_rate_unit_constant(&approx(1.0, s, d, n, e, delta), 1.0, 1.0, b).unwrap()),
        ("lemma64_b", lemma64_rates_unit_constant(&approx(1.0, s, d, n, e, delta)).unwrap().0),
        ("thm67", theorem67_rate_corrected_unit_constant(&approx(1.0, s, d, n, e, delta), 1.0).unwrap()),
        ("thm68", theorem68_rate_corrected_unit_constant(&approx(1.0, s, d, n, e, delta), 1.0, 1.0).unwrap()),
        ("thm71_c", theorem71_convex_rate_unit_constant(&approx(1.0, s, d, n, e, delta), 1.0, 1.0, 0.1).unwrap()),
        ("thm71_nc", theorem71_nonconvex_rate_unit_constant(&approx(1.0, s, d, n, e, delta), 1.0, 1.0, 0.1).unwrap()),
    ]
}

proptest! {
    /// Non-increasing in n and ε, non-decreasing in d and s (non-strict: `min(1, ·)` caps and
    /// s-free dense branches are flat).
    #[test]
    fn prop_sparse_rates_monotone(n in 16u64..10_000_000, d in 64u64..1_000_000, sfrac in 1u64..=8, e in 0.001f64..0.5, delta in 1e-12f64..0.01) {
        let s = (d / 8 * sfrac / 8).max(1);
        let base = rates(n, d, s, e, delta);
        let tol = |v: f64| v * 1e-12;
        for ((name, v), (_, w)) in base.iter().zip(rates(2 * n, d, s, e, delta)) {
            prop_assert!(w <= *v + tol(*v), "{name}: not decreasing in n ({v} -> {w})");
        }
        for ((name, v), (_, w)) in base.iter().zip(rates(n, d, s, 2.0 * e, delta)) {
            prop_assert!(w <= *v + tol(*v), "{name}: not decreasing in eps ({v} -> {w})");
        }
        for ((name, v), (_, w)) in base.iter().zip(rates(n, 2 * d, s, e, delta)) {
            prop_assert!(w >= *v - tol(*v), "{name}: not increasing in d ({v} -> {w})");
        }
        if 2 * s <= d / 4 {
            for ((name, v), (_, w)) in base.iter().zip(rates(n, d, 2 * s, e, delta)) {
                prop_assert!(w >= *v - tol(*v), "{name}: not increasing in s ({v} -> {w})");
            }
        }
    }

    /// No NaN or infinity for valid input over wide ranges.
    #[test]
    fn prop_sparse_bounds_never_nan(n in 2u64..1_000_000_000, d in 16u64..1_000_000_000, sfrac in 0.0f64..1.0, e in 1e-6f64..1.0, delta in 1e-300f64..0.4, beta in 1e-12f64..0.5) {
        let s = ((d / 4) as f64 * sfrac).max(1.0) as u64;
        for (name, v) in rates(n, d, s, e, delta) {
            prop_assert!(v.is_finite() && v >= 0.0, "{name}: {v}");
        }
        prop_assert!(theorem51_pure_bound(&pure(1.0, s, d, n, e), 0.1, 1.0, 1.0, beta).unwrap().is_finite());
        prop_assert!(theorem51_approx_bound(&approx(1.0, s, d, n, e, delta), 0.1, 1.0, beta).unwrap().is_finite());
        prop_assert!(theorem71_failure_probability(theorem71_runs(beta).unwrap(), 1.0, 0.5).unwrap().is_finite());
        let np = 1u64 << (n.ilog2().max(1));
        if let Ok(c) = lemma65_constant(np, 0.5 / (np as f64 * np as f64)) { prop_assert!(c.is_finite() && c > 0.0); }
    }
}

/// Every public \[GGKKM\] bound fed extreme finite inputs (1e-300 … 1e300, counts up to
/// u64::MAX, δ = 1e-300) returns an `Err` or a finite value, never ∞/NaN in `Ok`.
#[test]
fn prop_extreme_finite_inputs_never_give_a_non_finite_ok() {
    let pos = EXTREME_POSITIVE;
    let counts = [2u64, 1024, u64::MAX];
    for &x in &pos {
        for &y in &pos {
            finite_or_err(theorem71_failure_probability(3, x, y), scalar, "theorem71_failure_probability");
            finite_or_err(theorem71_radius(x, 3, 0.5), scalar, "theorem71_radius");
            finite_or_err(lemma43_confidence_corrected(x, 3), scalar, "lemma43 corrected");
            finite_or_err(lemma43_confidence_printed(x), scalar, "lemma43 printed");
            finite_or_err(lemma64_bias_bound(x, 1024), scalar, "lemma64_bias_bound");
            finite_or_err(lemma64_second_moment_bound(x, y, 1024), scalar, "lemma64 second moment");
            finite_or_err(theorem67_bound_corrected_unit_constant(x, y, x, y), scalar, "theorem67 corrected");
            finite_or_err(theorem68_bound_corrected_unit_constant(x, y, x, y, x, y), scalar, "theorem68 corrected");
            for &n in &counts {
                finite_or_err(theorem71_laplace_scale_corrected(x, 3, n, y), scalar, "theorem71 scale");
                finite_or_err(theorem51_pathwise_bound_corrected(x, 1, y, x, y), scalar, "theorem51 pathwise");
                finite_or_err(laplace_linf_tail(x, n, 1e-300), scalar, "laplace_linf_tail");
                finite_or_err(lemma31_projection_error_bound(x, 1, y), scalar, "lemma31 projection");
                finite_or_err(theorem32_crossover_n(n, x, 1e-300), scalar, "theorem32_crossover_n");
                finite_or_err(lemma_a3_alpha(x, n, n, y), scalar, "lemma_a3_alpha");
                finite_or_err(lemma64_alg1_constant_laplace(x, 1, n, y), scalar, "lemma64 alg1 laplace");
                finite_or_err(lemma64_alg1_constant_gaussian(x, 1, n, y, 1e-300), scalar, "lemma64 alg1 gaussian");
                let Ok(p) = SparseProblem::new(x, 1, n, n, y) else { continue };
                finite_or_err(theorem32_bound(&p, 1e-300), scalar, "theorem32_bound");
                finite_or_err(theorem32_laplace_scale(&p), scalar, "theorem32_laplace_scale");
                finite_or_err(theorem34_rate_unit_constant(&p, 1e-300), scalar, "theorem34 rate");
                finite_or_err(theorem41_lower_bound_unit_constant(&p), scalar, "theorem41 lower");
                finite_or_err(theorem51_pure_bound(&p, x, y, x, 1e-300), scalar, "theorem51 pure");
                finite_or_err(theorem71_convex_rate_unit_constant(&p, x, y, 1e-300), scalar, "theorem71 convex");
                let Ok(pd) = p.with_delta(1e-300) else { continue };
                finite_or_err(theorem33_bound(&pd, 1e-300), scalar, "theorem33_bound");
                finite_or_err(theorem51_approx_bound(&pd, x, y, 1e-300), scalar, "theorem51 approx");
                finite_or_err(lemma64_rates_unit_constant(&pd), pair, "lemma64 rates");
                finite_or_err(theorem67_rate_corrected_unit_constant(&pd, y), scalar, "theorem67 rate");
                finite_or_err(theorem68_rate_corrected_unit_constant(&pd, x, y), scalar, "theorem68 rate");
            }
        }
    }
    for n in [2u64, 1 << 20, 1 << 63] {
        finite_or_err(lemma65_expected_stopping_time_printed(n, 1e-300), pair, "lemma65 E[T] printed");
        finite_or_err(lemma65_stopping_probability_bound(1e300, n, 1e-300), scalar, "lemma65 P[T <= t]");
    }
}
