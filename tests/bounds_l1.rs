//! Tests of `dpref::bounds::l1` ([AFKT]; proofs/l1/bounds.md).
//!
//! Expected values are hand computations written out in the test, brute-force enumerations or
//! direct simulations written here; never values produced by the code under test. Each test
//! names the mutants that make it fail.
//!
//! Tolerances: a hand-computed value of a few operations is compared with relative tolerance
//! 1e-14 (a few roundings of 2⁻⁵³); a value involving `ln`/`powf` chains with 1e-12; a value
//! quoted to k digits with half a unit in its last digit.

mod common;

use dpref::Error;
use dpref::bounds::l1::*;

/// The (ε, δ) setting (n, d, ε, δ) of the rates.
fn sample(n: u64, d: u64, epsilon: f64, delta: f64) -> L1Setting {
    L1Setting::new(n, d, epsilon, delta).unwrap()
}
use proptest::prelude::*;

use common::check::{EXTREME_POSITIVE, assert_rel, finite_or_err, invalid, pair, scalar};

// ---------------------------------------------------------------------------------------------
// Building blocks: the p-norm map, Lemmas 3.1–3.2, E‖ζ‖²_∞
// ---------------------------------------------------------------------------------------------

/// d = 1024. Base 2: `p = 1 + 1/10 = 1.1`, `c_d = 1024^{1 − 1/1.1} = 2^{10/11} ≈ 1.878 < 2`.
/// Natural: `p = 1 + 1/(10 ln 2) ≈ 1.1443`, `c_d = d^{(p−1)/p} = e^{ln d/(p ln d)} = e^{1/p}
/// ≈ 2.396 > 2` — the paper's "`d^{1−1/p} ≤ 2`" holds only in base 2 (erratum E1).
/// κ = c_d²; Bregman radius `κR²/(2(p−1))` at R = 3, base 2: `2^{20/11}·9·10/2 = 45·2^{20/11}`.
/// d = 2, natural: `1 + 1/ln 2 ≈ 2.44` is clamped to 2.
/// Mutants: `1/p` for `1 − 1/p`, no clamp, log base swapped, κ = c_d fail.
#[test]
fn golden_pnorm_constants_and_log_base() {
    let p2 = pnorm_exponent(1024, LogBase::Two).unwrap();
    assert_rel(p2, 1.1, 1e-14, "p base 2");
    assert_rel(norm_ratio_cd(1024, p2).unwrap(), 2f64.powf(10.0 / 11.0), 1e-13, "c_d base 2");
    assert!(norm_ratio_cd(1024, p2).unwrap() < norm_ratio_cd_printed());
    let pe = pnorm_exponent(1024, LogBase::Natural).unwrap();
    assert_rel(pe, 1.0 + 1.0 / (10.0 * std::f64::consts::LN_2), 1e-14, "p natural");
    let cd = norm_ratio_cd(1024, pe).unwrap();
    assert_rel(cd, (1.0 / pe).exp(), 1e-13, "c_d natural = e^{1/p}");
    assert!(cd > 2.39 && cd < 2.40, "c_d = {cd}");
    assert!(cd > norm_ratio_cd_printed(), "erratum E1: c_d > 2 with ln");
    assert_rel(mirror_map_kappa(1024, pe).unwrap(), cd * cd, 1e-14, "kappa");
    assert_rel(pnorm_bregman_radius_sq(1024, LogBase::Two, 3.0).unwrap(), 45.0 * 2f64.powf(20.0 / 11.0), 1e-12, "D^2");
    assert_eq!(pnorm_exponent(2, LogBase::Natural).unwrap(), 2.0);
    assert_eq!(pnorm_exponent(2, LogBase::Two).unwrap(), 2.0);
    invalid(pnorm_exponent(1, LogBase::Natural), "d");
    invalid(norm_ratio_cd(4, 2.5), "p");
    invalid(norm_ratio_cd(4, f64::NAN), "p");
}

/// Lemma 3.1 at `D² = 2, T = 8, η = 0.5, L = 2`: `2/(8·0.5) + 0.5·4/2 = 0.5 + 1 = 1.5`.
/// Optimal step `η* = √(2D²)/(L√T) = 2/(2√8) = 1/√8`, bound `L√(2D²/T) = 2√(1/2) = √2`, and the
/// bound evaluated at η* equals it. Lemma 3.2 at `L = 3, λ = 2, T = 8`: printed `9/18 = 0.5`,
/// corrected twice that (erratum E2). Mutants: `ηL²` without ½, `D²/η`, the optimum without
/// the √2, corrected = printed fail.
#[test]
fn golden_lemma31_lemma32() {
    assert_rel(lemma31_smd_bound(2.0, 8, 0.5, 2.0).unwrap(), 1.5, 1e-15, "Lemma 3.1");
    let (eta, best) = lemma31_optimal_step(2.0, 8, 2.0).unwrap();
    assert_rel(eta, 1.0 / 8f64.sqrt(), 1e-15, "eta*");
    assert_rel(best, 2f64.sqrt(), 1e-15, "bound at eta*");
    assert_rel(lemma31_smd_bound(2.0, 8, eta, 2.0).unwrap(), best, 1e-14, "bound at eta*");
    assert_rel(lemma32_smd_strongly_convex_printed(3.0, 2.0, 8).unwrap(), 0.5, 1e-15, "Lemma 3.2 printed");
    assert_rel(lemma32_smd_strongly_convex_corrected(3.0, 2.0, 8).unwrap(), 1.0, 1e-15, "Lemma 3.2 corrected");
    invalid(lemma31_smd_bound(2.0, 0, 0.5, 2.0), "t_steps");
    invalid(lemma31_smd_bound(2.0, 8, f64::NAN, 2.0), "eta");
    invalid(lemma32_smd_strongly_convex_corrected(3.0, 0.0, 8), "lambda");
}

/// Erratum E3: at d = 1, `E‖ζ‖²_∞ = E ζ² = σ²` exactly. With σ = 2: the printed `2σ² ln 1 = 0`
/// is below the truth 4; the safe `σ²(4 ln 1 + 2 ln 2) = 8 ln 2 ≈ 5.545 ≥ 4`. Thm. 3 at
/// `D = L = σ = 1, T = 4, d = 1`: `g² = 1 + 2 ln 2`, bound `2√(g²/4) = √g²`, step `1/√(4g²)`; the
/// printed reading drops the noise (`g² = 1`, bound 1). The proof's identity: Lemma 3.1 with
/// `E‖ĝ‖²_∞ ≤ 2g²` at that step gives exactly the bound. Mutants: `2σ²ln d` in the safe form,
/// `4 ln 2`, missing factor 2 in the bound fail.
#[test]
fn golden_theorem3_noise_moment_erratum() {
    assert_eq!(gaussian_linf_sq_bound_printed(2.0, 1).unwrap(), 0.0);
    assert!(gaussian_linf_sq_bound_printed(2.0, 1).unwrap() < 4.0, "printed below the exact E zeta^2 = 4");
    assert_rel(gaussian_linf_sq_bound(2.0, 1).unwrap(), 8.0 * std::f64::consts::LN_2, 1e-15, "safe d = 1");
    assert!(gaussian_linf_sq_bound(2.0, 1).unwrap() >= 4.0);
    let g2 = 1.0 + 2.0 * std::f64::consts::LN_2;
    let (eta, bound) = theorem3_erm_bound_corrected(1.0, 1.0, 1.0, 4, 1).unwrap();
    assert_rel(bound, g2.sqrt(), 1e-15, "Thm 3 corrected");
    assert_rel(eta, 1.0 / (4.0 * g2).sqrt(), 1e-15, "Thm 3 step");
    assert_rel(lemma31_smd_bound(1.0, 4, eta, (2.0 * g2).sqrt()).unwrap(), bound, 1e-14, "via Lemma 3.1");
    let (_, printed) = theorem3_erm_bound_printed(1.0, 1.0, 1.0, 4, 1).unwrap();
    assert_rel(printed, 1.0, 1e-15, "Thm 3 printed at d = 1");
    // σ printed: L = 1, d = 100, ln(1/δ) = 4, b = 10, ε = 2: 100·√400/20 = 100.
    assert_rel(theorem3_sigma_printed(1.0, 100, (-4f64).exp(), 10, 2.0).unwrap(), 100.0, 1e-14, "sigma");
    invalid(theorem3_sigma_printed(1.0, 100, 1.0, 10, 2.0), "delta");
    invalid(theorem3_sigma_printed(1.0, 100, 0.1, 10, f64::NAN), "epsilon");
}

/// Monte Carlo check of the safe `E‖ζ‖²_∞` at d = 64, σ = 1 (the printed value is `2 ln 64 ≈
/// 8.32`, the safe one `4 ln 64 + 2 ln 2 ≈ 18.02`). The sample mean on this seed is 6.92 (E max
/// of 64 squared normals; `√(2 ln 64)² ≈ 8.3` is its first-order size). The max of 64 χ²₁ has
/// std below 3, so with 20 000 draws the sample mean's std is below 0.022; the bound 18.02 is
/// more than 500 std above the mean. Power twin: the safe bound with `ln d` replaced by `ln d/4`
/// (`ln 64 + 2 ln 2 ≈ 5.55`) is more than 60 std below the mean, and the test asserts that it fails.
#[test]
fn stat_gaussian_linf_sq_below_safe_bound() {
    use dpref::noise::standard_normal;
    use dpref::rng::{Seeds, Stream};
    let mut rng = Seeds::new(7).stream(Stream::Noise);
    let (d, draws) = (64usize, 20_000usize);
    let mut sum = 0.0;
    for _ in 0..draws {
        let m = (0..d).map(|_| standard_normal(&mut rng).powi(2)).fold(0.0f64, f64::max);
        sum += m;
    }
    let mean = sum / draws as f64;
    assert!(mean <= gaussian_linf_sq_bound(1.0, d as u64).unwrap());
    assert!(mean > 64f64.ln() + 2.0 * std::f64::consts::LN_2, "power twin: the ln d / 4 mutant must fail");
}

// ---------------------------------------------------------------------------------------------
// Noisy selection (Lemma 4.1, second part)
// ---------------------------------------------------------------------------------------------

/// `E max|Lap(2)|` over m = 3: `2·H_3 = 2·11/6`; exponential mechanism at Δ = 1, ε′ = 2, m = 4:
/// `(2/2) ln 4`. Mutants: `1 + ln m` for `H_m`, missing factor 2 in `2Δ/ε′` fail.
#[test]
fn golden_selection_errors() {
    assert_rel(laplace_expected_max_abs(2.0, 3).unwrap(), 11.0 / 3.0, 1e-15, "2 H_3");
    assert_rel(report_noisy_min_error_bound(2.0, 1).unwrap(), 2.0, 1e-15, "H_1 = 1");
    assert_rel(exponential_mechanism_error_bound(1.0, 2.0, 4).unwrap(), 4f64.ln(), 1e-15, "tau ln m");
    // H_m above 10^6 (asymptotic branch) continues the exact sum: H_{10^6} + Σ_{10^6 < i ≤ 2·10^6} 1/i.
    let h1 = laplace_expected_max_abs(1.0, 1_000_000).unwrap();
    let tail: f64 = (1_000_001..=2_000_000u64).rev().map(|i| 1.0 / i as f64).sum();
    assert_rel(laplace_expected_max_abs(1.0, 2_000_000).unwrap(), h1 + tail, 1e-12, "H_m branches agree");
    invalid(laplace_expected_max_abs(1.0, 0), "m");
    invalid(exponential_mechanism_error_bound(1.0, 0.0, 4), "epsilon_step");
}

proptest! {
    /// The exponential mechanism's exact expected excess `Σ P(i)(s_i − min s)` never exceeds
    /// `τ ln m` (computed here in closed form from random scores).
    #[test]
    fn prop_exponential_mechanism_error_holds(scores in prop::collection::vec(-5.0f64..5.0, 1..40), tau in 0.01f64..10.0) {
        let min = scores.iter().cloned().fold(f64::INFINITY, f64::min);
        let w: Vec<f64> = scores.iter().map(|s| (-(s - min) / tau).exp()).collect();
        let z: f64 = w.iter().sum();
        let excess: f64 = scores.iter().zip(&w).map(|(s, wi)| wi / z * (s - min)).sum();
        let bound = exponential_mechanism_error_bound(tau / 2.0, 1.0, scores.len() as u64).unwrap();
        prop_assert!(excess <= bound * (1.0 + 1e-12) + 1e-15, "{excess} > {bound}");
    }
}

// ---------------------------------------------------------------------------------------------
// Algorithm 2 (Thm. 4)
// ---------------------------------------------------------------------------------------------

/// Phase count `⌈log₂ n⌉`: 1 → 0, 2 → 1, 1024 → 10, 1025 → 11. Radius: corrected/printed =
/// `c_d/2`, > 1 with ln at d = 1024 (the printed radius can exclude the regularised minimiser,
/// erratum E4), < 1 in base 2. Printed radius at `L = 1, η = 0.5, n = 8, p = 1.5`: `2·0.5·8·0.5 = 4`.
#[test]
fn golden_alg2_phases_and_radius() {
    for (n, k) in [(1u64, 0u32), (2, 1), (3, 2), (1024, 10), (1025, 11)] {
        assert_eq!(alg2_phase_count(n).unwrap(), k, "n = {n}");
    }
    assert_rel(alg2_phase_radius_printed(1.0, 0.5, 8.0, 1.5).unwrap(), 4.0, 1e-15, "printed radius");
    let pe = pnorm_exponent(1024, LogBase::Natural).unwrap();
    let p2 = pnorm_exponent(1024, LogBase::Two).unwrap();
    let ratio = |p: f64| {
        alg2_phase_radius(1.0, 0.5, 8.0, 1024, p).unwrap() / alg2_phase_radius_printed(1.0, 0.5, 8.0, p).unwrap()
    };
    assert_rel(ratio(pe), (1.0 / pe).exp() / 2.0, 1e-13, "ratio ln");
    assert!(ratio(pe) > 1.0 && ratio(p2) < 1.0);
}

/// Erratum E5. d = 1000 (`d ln d ≈ 6908`), n = 10⁵, ε ∈ {0.1, 0.025}. Printed batch
/// `√(d/ε_i)` is the max in every phase (`d ln d ≥ ε n 4^{−i}`, 2500 at most), so the count
/// `Σ n_i²√(ε_i/d)` scales like `√ε`: count(ε/4)/count(ε) = 1/2. Corrected `√d/ε_i` is the max
/// (`d ln d ≥ ε²n 8^{−i}`, 125 at most): count ∝ ε, ratio 1/4, the ε-scaling of Thm. 4's claim
/// `n²ε/√d` (the min's ε branch: `n²ε/√d ≈ 3.2e7 < n^{3/2}√(ln d) ≈ 8.3e7`). At ε = 0.1 the
/// printed rule uses `1/√ε ≈ 3.2` times more gradients in the first phase.
#[test]
fn erratum_alg2_batch_rule_gradient_count() {
    let (n, d) = (100_000u64, 1000u64);
    let c = |e: f64, r| alg2_gradient_count(n, d, e, r).unwrap();
    assert_rel(c(0.025, Alg2BatchRule::Printed) / c(0.1, Alg2BatchRule::Printed), 0.5, 1e-12, "printed ~ sqrt(eps)");
    assert_rel(c(0.025, Alg2BatchRule::Corrected) / c(0.1, Alg2BatchRule::Corrected), 0.25, 1e-12, "corrected ~ eps");
    let claim = |e: f64| theorem4_gradient_count_claim_unit_constant(n, d, e).unwrap();
    assert_rel(claim(0.025) / claim(0.1), 0.25, 1e-12, "claim ~ eps");
    // phase 1 by hand: n_1 = 5e4, ε_1 = 0.05; printed b = √(1000/0.05) = √20000, corrected √1000/0.05.
    assert_rel(alg2_phase_batch(5e4, d, 0.05, Alg2BatchRule::Printed).unwrap(), 20000f64.sqrt(), 1e-14, "b_1 printed");
    assert_rel(
        alg2_phase_batch(5e4, d, 0.05, Alg2BatchRule::Corrected).unwrap(),
        1000f64.sqrt() / 0.05,
        1e-14,
        "b_1 corr",
    );
    assert!(c(0.1, Alg2BatchRule::Printed) > 3.0 * c(0.1, Alg2BatchRule::Corrected));
    invalid(alg2_gradient_count(1, d, 0.1, Alg2BatchRule::Printed), "n");
    invalid(alg2_phase_batch(5e4, 1, 0.05, Alg2BatchRule::Printed), "d");
}

/// Thm. 4's step: which branch of the min is active. D = 2, L = 1, n = 10⁴, d = 1000,
/// δ = e^{−4}: `√(ln d/n) ≈ 0.0263`; `ε/√(4000 ln d) = ε/166.2`: ε = 1 → privacy branch
/// (0.00602), ε = 10 → statistical branch. Hand values from those expressions.
#[test]
fn golden_theorem4_step_branches() {
    let ln_d = 1000f64.ln();
    let delta = (-4f64).exp();
    assert_rel(
        theorem4_base_step(2.0, 1.0, &sample(10_000, 1000, 1.0, delta)).unwrap(),
        2.0 / (4000.0 * ln_d).sqrt(),
        1e-14,
        "privacy",
    );
    assert_rel(
        theorem4_base_step(2.0, 1.0, &sample(10_000, 1000, 10.0, delta)).unwrap(),
        2.0 * (ln_d / 1e4).sqrt(),
        1e-14,
        "stat",
    );
    invalid(L1Setting::new(10_000, 1, 1.0, delta), "d");
}

// ---------------------------------------------------------------------------------------------
// Algorithm 3 (Thms. 6–7)
// ---------------------------------------------------------------------------------------------

/// Samples, gradients and steps by brute-force enumeration of the trees: phase t has a root of
/// b samples and, at each depth j ≤ t, the right children (strings ending in 1) with `b/2^j`
/// samples each, two gradients per sample; leaves are the strings of length t. Compared for
/// T = 1..6 and b = 2^T·{1, 3}. Erratum E6: T = 1 uses 1.5b > T²b = b; T ≥ 2 stays ≤ T²b.
#[test]
fn golden_alg3_counts_by_enumeration() {
    for t_max in 1u32..=6 {
        for mult in [1u64, 3] {
            let b = mult << t_max;
            let (mut samples, mut grads, mut leaves) = (0u64, 0u64, 0u64);
            for t in 1..=t_max {
                samples += b;
                grads += b;
                for j in 1..=t {
                    for s in 0..(1u64 << j) {
                        if s & 1 == 1 {
                            samples += b >> j;
                            grads += 2 * (b >> j);
                        }
                    }
                }
                leaves += 1 << t;
            }
            assert_eq!(alg3_samples_used(b, t_max).unwrap(), samples, "samples T = {t_max}, b = {b}");
            assert_eq!(alg3_gradient_evaluations(b, t_max).unwrap(), grads, "gradients");
            assert_eq!(alg3_fw_steps(t_max).unwrap(), leaves, "leaves");
            let printed = alg3_samples_printed_bound(b, t_max).unwrap();
            if t_max == 1 {
                assert_eq!(2 * samples, 3 * printed, "T = 1: 1.5 b vs T^2 b = b");
            } else {
                assert!(samples <= printed);
            }
        }
    }
    // T = 1 regime corrected: the largest even b with 1.5 b <= n.
    for (n, b) in [(10u64, 6u64), (9, 6), (8, 4), (3, 2), (1_000_000, 666_666)] {
        assert_eq!(theorem6_t1_batch_corrected(n).unwrap(), b, "n = {n}");
        assert!(alg3_samples_used(b, 1).unwrap() <= n);
    }
    invalid(theorem6_t1_batch_corrected(2), "n");
    invalid(alg3_samples_used(6, 2), "batch_b");
    invalid(alg3_samples_used(8, 0), "phases_t");
}

/// Tree variance proxy at `L = 1, β = 2, D = 0.5, b = 16`: global counter `(1 + 4·4·0.25)/16 =
/// 0.3125`; printed indexing `(1 + 16·1)/16 = 1.0625`; error bound at d = 4:
/// `√(2·0.3125·ln 8)`. Laplace scales at `L = 1, D = 2, b = 64, t = 3, ε = 0.5`: printed
/// `2·2·8/32 = 1`, corrected 2 (erratum E7); approximate, T = 4, n = 1000, δ = 1e-6:
/// `2·4·ln(1e9)/32`. Mutants: constant 4 ↔ 16, `ln d` for `ln 2d`, `2^{T}` for `2^{T/2}` fail.
#[test]
fn golden_alg3_tree_and_noise_scales() {
    assert_rel(
        lemma43_variance_proxy(1.0, 2.0, 0.5, 16, FwStepIndexing::GlobalCounter).unwrap(),
        0.3125,
        1e-15,
        "proxy",
    );
    assert_rel(lemma43_variance_proxy(1.0, 2.0, 0.5, 16, FwStepIndexing::Printed).unwrap(), 1.0625, 1e-15, "printed");
    assert_rel(
        lemma42_tree_error_bound(1.0, 2.0, 0.5, 16, 4, FwStepIndexing::GlobalCounter).unwrap(),
        (0.625 * 8f64.ln()).sqrt(),
        1e-14,
        "tree error",
    );
    assert_rel(
        alg3_laplace_scale(1.0, 2.0, 64, 3, 4, FwNoise::PurePrinted { epsilon: 0.5 }).unwrap(),
        1.0,
        1e-15,
        "pure",
    );
    assert_rel(
        alg3_laplace_scale(1.0, 2.0, 64, 3, 4, FwNoise::PureCorrected { epsilon: 0.5 }).unwrap(),
        2.0,
        1e-15,
        "corr",
    );
    let approx = FwNoise::ApproxPrinted { epsilon: 0.5, delta: 1e-6, n: 1000 };
    assert_rel(alg3_laplace_scale(1.0, 2.0, 64, 3, 4, approx).unwrap(), 8.0 * 1e9f64.ln() / 32.0, 1e-14, "approx");
    invalid(alg3_laplace_scale(1.0, 2.0, 64, 5, 4, approx), "phase_t");
    invalid(
        alg3_laplace_scale(1.0, 2.0, 64, 3, 4, FwNoise::ApproxPrinted { epsilon: 0.5, delta: 1.0, n: 1000 }),
        "delta",
    );
}

/// The explicit FW bound. (a) By hand at T = 1 (K = 2), `β = D = 1`, exact gradients, no
/// noise: `α₁ = ½`, `α₂ = (2/3)²/2 = 2/9`; `Σ α_k k(k+1)/(K(K+1)) = ½·2/6 + (2/9)·6/6 = 7/18`,
/// below `2βD²/(K+1) = 2/3`. (b) Deterministic Frank–Wolfe on `F(x) = (β/2)‖x − c‖₂²` over the
/// l1 ball of radius r (D = 2r; `‖∇F(x) − ∇F(y)‖_∞ ≤ β‖x − y‖₁`), c inside the ball so F* = 0,
/// `η_k = 2/(k+1)`, K = 2^{T+1} − 2 steps: `F(x_K)` is below the bound for T = 1..8. Mutant:
/// the `η²βD²/2` term without D² (D = 4 here) fails (b).
#[test]
fn golden_alg3_explicit_bound_non_private() {
    let setting = |t: u32, beta: f64, dd: f64| FwSetting {
        lipschitz_l: 1.0,
        smoothness_beta: beta,
        diameter_d: dd,
        dim_d: 5,
        vertices_m: 10,
        root_batch_b: 1 << t,
        phases_t: t,
    };
    assert_rel(alg3_explicit_bound(&setting(1, 1.0, 1.0), FwNoise::None, true).unwrap(), 7.0 / 18.0, 1e-15, "T = 1");
    let (beta, r) = (3.0, 2.0);
    let c = [0.9, -0.4, 0.3, 0.0, -0.2];
    for t in 1..=8u32 {
        let k_total = (1u64 << (t + 1)) - 2;
        let mut x = [0.0f64; 5];
        for k in 1..=k_total {
            let g: Vec<f64> = x.iter().zip(&c).map(|(xi, ci)| beta * (xi - ci)).collect();
            let j = (0..5).max_by(|&a, &b| g[a].abs().total_cmp(&g[b].abs())).unwrap();
            let mut w = [0.0f64; 5];
            w[j] = -r * g[j].signum();
            let eta = 2.0 / (k as f64 + 1.0);
            for i in 0..5 {
                x[i] = (1.0 - eta) * x[i] + eta * w[i];
            }
        }
        let f: f64 = x.iter().zip(&c).map(|(xi, ci)| 0.5 * beta * (xi - ci).powi(2)).sum();
        let bound = alg3_explicit_bound(&setting(t, beta, 2.0 * r), FwNoise::None, true).unwrap();
        assert!(f <= bound, "T = {t}: F(x_K) = {f} > {bound}");
        assert!(bound <= 2.0 * beta * (2.0 * r).powi(2) / (k_total as f64 + 1.0) * (1.0 + 1e-12));
    }
}

/// Thm. 6 / 7 parameters satisfy their defining equations: `2^{2T} = bεβD/(L ln m)` and
/// `2^{3T/2} = bεβD/(L ln(n/δ) ln m)`, `b = n/ln²n`; the β range's ends give T = 0 and
/// `2^T = b` (the assumption `1 ≤ 2^T ≤ b`).
#[test]
fn golden_theorem6_7_parameters() {
    let (n, e, beta, l, dd, m, delta) = (1_000_000u64, 0.5, 2.0, 1.0, 2.0, 200u64, 1e-7);
    let (b, t) = theorem6_parameters(n, e, beta, l, dd, m).unwrap();
    assert_rel(b, 1e6 / 1e6f64.ln().powi(2), 1e-14, "b");
    assert_rel(2f64.powf(2.0 * t), b * e * beta * dd / (l * 200f64.ln()), 1e-12, "T pure");
    let (_, t7) = theorem7_parameters(n, e, delta, beta, l, dd, m).unwrap();
    assert_rel(2f64.powf(1.5 * t7), b * e * beta * dd / (l * (1e6f64 / delta).ln() * 200f64.ln()), 1e-12, "T approx");
    let (lo, hi) = theorem6_beta_range(n, e, l, dd, m).unwrap();
    let (_, t_lo) = theorem6_parameters(n, e, lo, l, dd, m).unwrap();
    let (_, t_hi) = theorem6_parameters(n, e, hi, l, dd, m).unwrap();
    assert!(t_lo.abs() < 1e-9, "T at beta_lo = {t_lo}");
    assert_rel(2f64.powf(t_hi), b, 1e-9, "2^T at beta_hi");
    // Outside the theorems' hypotheses the parameters are refused, not returned: β beyond Thm. 6's
    // range (T < 0 or 2^T > b there), δ > 1/n for Thm. 7, or a Thm. 7 T outside [0, log₂ b].
    invalid(theorem6_parameters(n, e, lo * 0.5, l, dd, m), "beta");
    invalid(theorem6_parameters(n, e, hi * 2.0, l, dd, m), "beta");
    invalid(theorem7_parameters(n, e, 2e-6, beta, l, dd, m), "delta");
    invalid(theorem7_parameters(n, e, delta, lo, l, dd, m), "beta");
    // Lemma 4.4's ε ≤ 2^{−T/2}√ln(1/δ): at ε = 0.5 the cap is 2^{−t7/2}·√ln(1e7) ≈ 0.99 (met);
    // at ε = 2, 2^{3T/2} = 4·66 gives T = 5.36 and a cap of 0.63 < 2 (refused, with T ≤ log₂ b).
    assert!(e <= (-t7 / 2.0).exp2() * (1.0 / delta).ln().sqrt());
    invalid(theorem7_parameters(n, 2.0, delta, beta, l, dd, m), "epsilon");
}

// ---------------------------------------------------------------------------------------------
// Mirror descent vs Frank–Wolfe
// ---------------------------------------------------------------------------------------------

/// From d = 2⁴ to 2¹², FW's private term grows by `(12/4)^{2/3} ≈ 2.08`, MD's by
/// `√256·(12/4)^{3/2} ≈ 83.1`. Crossover: log-free `(nε)^{2/3}` = 10⁴ at nε = 10⁶; with logs
/// the crossover solves `√d (ln d)^{5/6} = (nε)^{1/3} = 100` (checked here directly), and
/// integer d on either side order the terms. Mutant: exponent 5/6 → 1/2 (ignoring MD's
/// `ln^{3/2}`) moves the root and fails the equation.
#[test]
fn golden_md_fw_crossover() {
    let (n, e) = (1_000_000u64, 1.0);
    let fw = |d| fw_private_term_unit_constant(n, d, e).unwrap();
    let md = |d| md_private_term_unit_constant(n, d, e).unwrap();
    assert_rel(fw(1 << 12) / fw(1 << 4), 3f64.powf(2.0 / 3.0), 1e-13, "FW growth");
    assert_rel(md(1 << 12) / md(1 << 4), 16.0 * 3f64.powf(1.5), 1e-13, "MD growth");
    assert_rel(md_fw_crossover_dimension_log_free(n, e).unwrap(), 1e4, 1e-12, "log-free");
    let dstar = md_fw_crossover_dimension(n, e).unwrap();
    assert_rel(dstar.sqrt() * dstar.ln().powf(5.0 / 6.0), 100.0, 1e-9, "crossover equation");
    let below = dstar.floor() as u64;
    assert!(md(below) < fw(below) && md(below + 1) > fw(below + 1), "d* = {dstar}");
    assert_eq!(md_fw_crossover_dimension(1, 0.1).unwrap(), 2.0);
    invalid(md_fw_crossover_dimension(0, 1.0), "n");
}

// ---------------------------------------------------------------------------------------------
// Lower bounds (Thms. 10–11)
// ---------------------------------------------------------------------------------------------

/// d = 2, D = 2 (a = 1), φ = (0.75, 0.25): z̄ = (0.5, −0.5); `min F̂ = L Σ(1 − 0.5) = L`;
/// at x = 0: `F̂ = 2L`, excess L = sign error `L(0.5 + 0.5)`. Erratum E9: with the printed
/// L-free `F̂` the excess at x = 0 is 1, below the printed right side `3·1` at L = 3.
#[test]
fn erratum_theorem10_instance() {
    let phi = [0.75, 0.25];
    let l = 3.0;
    assert_rel(theorem10_empirical_minimum(l, 2.0, &phi).unwrap(), l, 1e-15, "min");
    assert_rel(theorem10_empirical_loss(l, 2.0, &phi, &[0.0, 0.0]).unwrap(), 2.0 * l, 1e-15, "loss at 0");
    assert_rel(theorem10_empirical_loss(l, 2.0, &phi, &[1.0, -1.0]).unwrap(), l, 1e-15, "loss at x*");
    assert_rel(theorem10_sign_error(l, 2.0, &phi, &[0.0, 0.0]).unwrap(), l, 1e-15, "sign error");
    let printed = theorem10_empirical_excess_printed(2.0, &phi, &[0.0, 0.0]).unwrap();
    assert_rel(printed, 1.0, 1e-15, "printed excess");
    assert!(printed < theorem10_sign_error(l, 2.0, &phi, &[0.0, 0.0]).unwrap(), "printed inequality fails at L = 3");
    assert!(matches!(theorem10_empirical_loss(1.0, 2.0, &[], &[]), Err(Error::Empty { .. })));
    invalid(theorem10_empirical_loss(1.0, 2.0, &[1.5], &[0.0]), "plus_fraction");
    assert!(matches!(theorem10_empirical_loss(1.0, 2.0, &[0.5], &[f64::NAN]), Err(Error::NonFinite { .. })));
}

proptest! {
    /// Thm. 10's key inequality on random instances and random points of the l1 ball:
    /// `F̂(x) − min F̂ ≥ L Σ|z̄_j| 1{sign x_j ≠ sign z̄_j} ≥ 0`, and no point beats the minimum.
    #[test]
    fn prop_theorem10_key_inequality(
        phi in prop::collection::vec(0.0f64..=1.0, 1..12),
        raw in prop::collection::vec(-1.0f64..1.0, 12),
        l in 0.01f64..10.0,
        dd in 0.1f64..10.0,
        scale in 0.0f64..=1.0,
    ) {
        let d = phi.len();
        let raw = &raw[..d];
        let norm: f64 = raw.iter().map(|v| v.abs()).sum::<f64>().max(1e-300);
        let x: Vec<f64> = raw.iter().map(|v| v / norm * dd * scale).collect();
        let excess = theorem10_empirical_loss(l, dd, &phi, &x).unwrap() - theorem10_empirical_minimum(l, dd, &phi).unwrap();
        let rhs = theorem10_sign_error(l, dd, &phi, &x).unwrap();
        let tol = 1e-12 * l * dd;
        prop_assert!(excess >= rhs - tol, "{excess} < {rhs}");
        prop_assert!(rhs >= 0.0);
    }
}

/// Thm. 11 switches branch at `d = (nε)^{2/3}`: nε = 10⁶, d = 100 → `√d/(nε) = 1e-5`; d = 10⁶ →
/// `(nε)^{−2/3} = 1e-4`. Thm. 10 at L = D = 1, n = 100, d = 100, ε = 1: `10/(100 ln 100)`.
#[test]
fn golden_lower_bounds() {
    assert_rel(
        theorem11_lower_bound_unit_constant(1.0, 1.0, 1_000_000, 100, 1.0).unwrap(),
        1e-5,
        1e-12,
        "sqrt d branch",
    );
    assert_rel(
        theorem11_lower_bound_unit_constant(1.0, 1.0, 1_000_000, 1_000_000, 1.0).unwrap(),
        1e-4,
        1e-12,
        "2/3 branch",
    );
    assert_rel(
        theorem10_lower_bound_unit_constant(1.0, 1.0, 100, 100, 1.0).unwrap(),
        0.1 / 100f64.ln(),
        1e-14,
        "Thm 10",
    );
    invalid(theorem10_lower_bound_unit_constant(1.0, 1.0, 100, 1, 1.0), "d");
}

// ---------------------------------------------------------------------------------------------
// l_p (App. B) and the strongly convex reduction (Sec. 5)
// ---------------------------------------------------------------------------------------------

/// Thm. 12's identity `d^{2/q}σ² ln d = 10⁴L² d ln d ln(1/δ)/(bε)²` for every p; at p = 2 Thm. 5
/// keeps a `√ln d` factor in the private term that Thm. 13 drops. Sec. 5 at n = 2¹⁶:
/// `k = ⌈log₂ 16⌉ = 4`, `n_i = 2^{i−2}·4096` = 2048, 4096, 8192, 16384 (sum 30720 ≤ n/2).
/// The transform of Thm. 4's rate `(a + b)²` lies between Thm. 8's corrected `a² + b²` and
/// twice it (E10), and Thm. 8 printed/corrected = `Dλ/L`.
#[test]
fn golden_lp_and_strongly_convex() {
    let (l, d, delta, b, e) = (1.5, 300u64, 1e-5, 20u64, 0.7);
    for p in [1.1, 1.5, 2.0] {
        let q = p / (p - 1.0);
        let s = theorem12_sigma_printed(l, d, p, delta, b, e).unwrap();
        let lhs = (d as f64).powf(2.0 / q) * s * s * (d as f64).ln();
        let rhs = 1e4 * l * l * d as f64 * (d as f64).ln() * (1e5f64).ln() / (b as f64 * e).powi(2);
        assert_rel(lhs, rhs, 1e-12, "Thm 12 identity");
        assert!(theorem12_grad_sq_bound(l, s, 1, p).unwrap() > theorem12_grad_sq_bound_printed(l, s, 1, p).unwrap());
    }
    let n = 1_000_000u64;
    let t13 = theorem13_rate_unit_constant(1.0, 1.0, 2.0, &sample(n, d, e, delta)).unwrap() - 1.0 / (n as f64).sqrt();
    let t5 =
        theorem5_rate_printed_unit_constant(1.0, 1.0, 2.0, &sample(n, d, e, delta)).unwrap() - 1.0 / (n as f64).sqrt();
    assert_rel(t5 / t13, (d as f64).ln().sqrt(), 1e-9, "Thm 5 vs 13 at p = 2");
    assert_eq!(section5_round_sizes(1 << 16).unwrap(), vec![2048.0, 4096.0, 8192.0, 16384.0]);
    invalid(section5_round_sizes(3), "n");
    let (lam, dd) = (0.3, 2.0);
    let r4 = theorem4_rate_unit_constant(l, dd, &sample(n, d, e, delta)).unwrap();
    let tr = section5_rate_transform(l, lam, dd, r4).unwrap();
    let t8 = theorem8_rate_corrected_unit_constant(l, lam, &sample(n, d, e, delta)).unwrap();
    assert!(tr >= t8 && tr <= 2.0 * t8, "{tr} vs {t8}");
    let t8p = theorem8_rate_printed_unit_constant(l, dd, &sample(n, d, e, delta)).unwrap();
    assert_rel(t8p / t8, dd * lam / l, 1e-13, "Thm 8 prefactor");
    let t9p = theorem9_rate_printed_unit_constant(l, dd, 2 * d, &sample(n, d, e, delta)).unwrap();
    let t9 = theorem9_rate_corrected_unit_constant(l, lam, 2 * d, &sample(n, d, e, delta)).unwrap();
    assert_rel(t9p / t9, dd * lam / l, 1e-13, "Thm 9 prefactor");
}

// ---------------------------------------------------------------------------------------------
// Monotonicity and no-NaN properties
// ---------------------------------------------------------------------------------------------

fn rates(n: u64, d: u64, e: f64, delta: f64) -> Vec<(&'static str, f64)> {
    let s = FwSetting {
        lipschitz_l: 1.0,
        smoothness_beta: 1.0,
        diameter_d: 2.0,
        dim_d: d,
        vertices_m: 2 * d,
        root_batch_b: 64,
        phases_t: 3,
    };
    vec![
        ("thm3", theorem3_rate_unit_constant(1.0, 2.0, 8, &sample(n, d, e, delta)).unwrap()),
        ("thm4", theorem4_rate_unit_constant(1.0, 2.0, &sample(n, d, e, delta)).unwrap()),
        ("thm6", theorem6_rate_unit_constant(1.0, 1.0, 2.0, n, d, e).unwrap()),
        ("thm7", theorem7_rate_unit_constant(1.0, 1.0, 2.0, 2 * d, &sample(n, d, e, delta)).unwrap()),
        ("thm13", theorem13_rate_unit_constant(1.0, 2.0, 1.5, &sample(n, d, e, delta)).unwrap()),
        ("thm8", theorem8_rate_corrected_unit_constant(1.0, 0.5, &sample(n, d, e, delta)).unwrap()),
        ("thm9", theorem9_rate_corrected_unit_constant(1.0, 0.5, 2 * d, &sample(n, d, e, delta)).unwrap()),
        ("thm10", theorem10_lower_bound_unit_constant(1.0, 2.0, n, d, e).unwrap()),
        ("md", md_private_term_unit_constant(n, d, e).unwrap()),
        ("fw", fw_private_term_unit_constant(n, d, e).unwrap()),
        ("opt", smooth_optimal_rate_unit_constant(n, d, e).unwrap()),
        ("alg3", alg3_explicit_bound(&s, FwNoise::PureCorrected { epsilon: e }, false).unwrap()),
    ]
}

proptest! {
    /// Every rate (and Alg. 3's explicit bound) decreases in n and ε and increases in d
    /// (Thm. 10's `√d/ln d` for d ≥ 8 only; Alg. 3's bound does not depend on n).
    #[test]
    fn prop_l1_rates_monotone(n in 16u64..1_000_000, d in 8u64..100_000, e in 0.01f64..10.0, delta in 1e-12f64..0.5) {
        let base = rates(n, d, e, delta);
        for ((name, v), (_, w)) in base.iter().zip(rates(2 * n, d, e, delta)) {
            if *name != "alg3" { prop_assert!(w < *v, "{name}: not decreasing in n"); }
        }
        for ((name, v), (_, w)) in base.iter().zip(rates(n, d, 2.0 * e, delta)) {
            prop_assert!(w < *v, "{name}: not decreasing in eps");
        }
        for ((name, v), (_, w)) in base.iter().zip(rates(n, 2 * d, e, delta)) {
            prop_assert!(w > *v, "{name}: not increasing in d");
        }
    }

    /// No NaN or infinity for valid input: every function returns Ok and a finite value.
    #[test]
    fn prop_l1_bounds_never_nan(n in 2u64..u32::MAX as u64, d in 2u64..10_000_000, e in 1e-6f64..100.0, delta in 1e-300f64..0.999, t in 1u32..=12) {
        for (name, v) in rates(n, d, e, delta) {
            prop_assert!(v.is_finite() && v >= 0.0, "{name} = {v}");
        }
        let s = FwSetting { lipschitz_l: 2.0, smoothness_beta: 0.5, diameter_d: 1.0, dim_d: d, vertices_m: 2 * d, root_batch_b: 1 << t, phases_t: t };
        for noise in [FwNoise::None, FwNoise::PurePrinted { epsilon: e }, FwNoise::ApproxPrinted { epsilon: e, delta, n }] {
            let v = alg3_explicit_bound(&s, noise, false).unwrap();
            prop_assert!(v.is_finite());
        }
        let p = pnorm_exponent(d, LogBase::Natural).unwrap();
        prop_assert!(p > 1.0 && p <= 2.0);
        prop_assert!(norm_ratio_cd(d, p).unwrap() < std::f64::consts::E);
        prop_assert!(md_fw_crossover_dimension(n, e).unwrap() >= 2.0);
        for r in [Alg2BatchRule::Printed, Alg2BatchRule::Corrected] {
            prop_assert!(alg2_gradient_count(n, d, e, r).unwrap().is_finite());
        }
        let (eta, b) = theorem3_erm_bound_corrected(1.0, 1.0, e, t as u64, d).unwrap();
        prop_assert!(eta.is_finite() && b.is_finite());
    }

    /// NaN and out-of-range inputs are refused with `InvalidParameter`, never a panic or NaN.
    #[test]
    fn prop_l1_invalid_inputs_refused(bad in prop::sample::select(vec![f64::NAN, 0.0, -1.0, f64::INFINITY])) {
        prop_assert!(matches!(L1Setting::new(100, 10, bad, 0.1), Err(Error::InvalidParameter { name: "epsilon", .. })), "wrong error");
        prop_assert!(matches!(L1Setting::new(100, 10, 1.0, bad), Err(Error::InvalidParameter { name: "delta", .. })), "wrong error");
        prop_assert!(matches!(theorem7_rate_unit_constant(bad, 1.0, 1.0, 20, &sample(100, 10, 1.0, 0.1)), Err(Error::InvalidParameter { name: "l", .. })), "wrong error");
        prop_assert!(matches!(theorem13_rate_unit_constant(1.0, 1.0, bad, &sample(100, 10, 1.0, 0.1)), Err(Error::InvalidParameter { name: "p", .. })), "wrong error");
        prop_assert!(matches!(lemma42_tree_error_bound(1.0, 1.0, bad, 16, 4, FwStepIndexing::GlobalCounter), Err(Error::InvalidParameter { name: "diam_d", .. })), "wrong error");
        prop_assert!(matches!(md_fw_crossover_dimension(100, bad), Err(Error::InvalidParameter { name: "epsilon", .. })), "wrong error");
    }
}

/// n = 0, d < 2 and δ ∈ {0, 1} where the bound needs them.
#[test]
fn invalid_l1_counts_and_delta() {
    invalid(L1Setting::new(0, 10, 1.0, 0.1), "n");
    invalid(L1Setting::new(10, 1, 1.0, 0.1), "d");
    invalid(L1Setting::new(10, 10, 1.0, 1.0), "delta");
    invalid(L1Setting::new(10, 10, 1.0, 0.0), "delta");
    invalid(theorem6_rate_unit_constant(1.0, 1.0, 1.0, 1, 10, 1.0), "n");
    invalid(theorem7_rate_unit_constant(1.0, 1.0, 1.0, 1, &sample(100, 10, 1.0, 0.1)), "m");
}

/// Every public \[AFKT\] bound fed extreme finite inputs (1e-300 … 1e300, counts 2 … u64::MAX)
/// returns an `Err` or a finite value, never ∞/NaN in `Ok`. `lemma31_optimal_step` returned
/// `Ok((∞, …))` for `η* = √(2D_h)/(L√T)` at `D_h = 1e300`, `L = 1e-300` before its step went
/// through `finite_result`.
#[test]
fn prop_extreme_finite_inputs_never_give_a_non_finite_ok() {
    assert!(matches!(lemma31_optimal_step(1e300, 1, 1e-300), Err(Error::Numerical { .. })));
    let pos = EXTREME_POSITIVE;
    let counts = [2u64, 1000, u64::MAX];
    for &x in &pos {
        for &y in &pos {
            finite_or_err(lemma31_optimal_step(x, 1, y), pair, "lemma31_optimal_step");
            finite_or_err(section5_rate_transform(x, y, x, y), scalar, "section5_rate_transform");
            finite_or_err(theorem10_empirical_loss(x, y, &[0.0, 1.0], &[y, -y]), scalar, "theorem10 loss");
            finite_or_err(theorem10_empirical_minimum(x, y, &[0.25, 1.0]), scalar, "theorem10 minimum");
            finite_or_err(theorem10_sign_error(x, y, &[0.0, 1.0], &[y, -y]), scalar, "theorem10 sign error");
            finite_or_err(theorem10_empirical_excess_printed(y, &[0.0, 1.0], &[y, -y]), scalar, "theorem10 excess");
            for &n in &counts {
                finite_or_err(lemma31_smd_bound(x, n, y, x), scalar, "lemma31_smd_bound");
                finite_or_err(lemma32_smd_strongly_convex_corrected(x, y, n), scalar, "lemma32 corrected");
                finite_or_err(gaussian_linf_sq_bound(x, n), scalar, "gaussian_linf_sq_bound");
                finite_or_err(laplace_expected_max_abs(x, n.min(1000)), scalar, "laplace_expected_max_abs");
                finite_or_err(exponential_mechanism_error_bound(x, y, n), scalar, "exponential mechanism");
                finite_or_err(md_private_term_unit_constant(n, n, x), scalar, "md private term");
                finite_or_err(fw_private_term_unit_constant(n, n, x), scalar, "fw private term");
                finite_or_err(md_fw_crossover_dimension_log_free(n, x), scalar, "crossover log free");
                finite_or_err(theorem10_lower_bound_unit_constant(x, y, n, n, x), scalar, "theorem10 lower");
                finite_or_err(theorem11_lower_bound_unit_constant(x, y, n, n, x), scalar, "theorem11 lower");
                finite_or_err(smooth_optimal_rate_unit_constant(n, n, x), scalar, "smooth optimal rate");
                finite_or_err(norm_ratio_cd(n, 1.0 + 1.0 / (2.0 + y.min(1e10))), scalar, "norm_ratio_cd");
                finite_or_err(mirror_map_kappa(n, 1.5), scalar, "mirror_map_kappa");
                finite_or_err(alg2_phase_radius(x, y, x, n, 1.5), scalar, "alg2_phase_radius");
                finite_or_err(theorem12_grad_sq_bound(x, y, n, 1.5), scalar, "theorem12_grad_sq_bound");
                finite_or_err(theorem12_grad_sq_bound_printed(x, y, n, 1.5), scalar, "theorem12 printed");
                finite_or_err(theorem12_sigma_printed(x, n, 1.5, 1e-300, n, y), scalar, "theorem12 sigma");
                finite_or_err(theorem3_sigma_printed(x, n, 1e-300, n, y), scalar, "theorem3 sigma");
                finite_or_err(theorem3_erm_bound_corrected(x, y, x, n, n), pair, "theorem3 erm corrected");
                finite_or_err(theorem3_erm_bound_printed(x, y, x, n, n), pair, "theorem3 erm printed");
                let Ok(s) = L1Setting::new(n, n, x, 1e-300) else { continue };
                finite_or_err(theorem4_base_step(y, x, &s), scalar, "theorem4_base_step");
                finite_or_err(theorem4_rate_unit_constant(x, y, &s), scalar, "theorem4 rate");
                finite_or_err(theorem8_rate_corrected_unit_constant(x, y, &s), scalar, "theorem8 corrected");
                finite_or_err(theorem9_rate_corrected_unit_constant(x, y, 2, &s), scalar, "theorem9 corrected");
                finite_or_err(theorem13_rate_unit_constant(x, y, 1.5, &s), scalar, "theorem13 rate");
                finite_or_err(theorem5_rate_printed_unit_constant(x, y, 1.5, &s), scalar, "theorem5 printed");
                finite_or_err(theorem3_rate_unit_constant(x, y, n, &s), scalar, "theorem3 rate");
            }
        }
    }
}
