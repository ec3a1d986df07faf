//! Tests of `dpref::bounds::dpagd` ([ZCHWB], notes §2.3, §3, §4, §6.1 item 11, §6.2 items
//! 12–14, §6.3 item 20).
//!
//! Expected values are the notes' independently computed test vectors, or hand computations
//! written out in the test (never values produced by the code under test). Each test names the
//! mutant that makes it fail (STYLE c.4).
//!
//! Tolerances: a value quoted in the notes to k significant digits is compared with a relative
//! tolerance of half a unit in its last digit; a hand-computed value of a few operations with a
//! relative tolerance of 1e-14 (a few roundings of 2⁻⁵³); identities to 1e-12 (the task's bound;
//! a handful of roundings).

mod common;

use dpref::Error;
use dpref::accounting::{Neighbouring, zcdp};
use dpref::bounds::dpagd::*;
use dpref::rng::{DpRng, Seeds, Stream};
use rand::RngExt;

use common::check::{EXTREME_POSITIVE, assert_rel, finite_or_err, invalid, scalar};

// ---------------------------------------------------------------------------------------------
// Privacy calibration (notes §3, §6.2 items 12–14)
// ---------------------------------------------------------------------------------------------

/// Sensitivity `G/n` (add/remove) and `2G/n` (replace-one); the notes' GDP vectors
/// `δ(μ=1, ε=1) = 0.126937`, `δ(0.5, 1) = 0.0068296`, `μ_max(ε, δ)` for five (ε, δ); the RDP
/// vectors `s = 10, T = 100, δ = 1e-5`: ε = 5.2985 (continuous α), 5.3026 (integer α = 6); and
/// the constant `c2` of eq. (6): 16 (replace-one) / 4 (add/remove) at `ε = ln(1/δ)`, smaller below.
/// Mutants: a replace-one factor 1 fails the sensitivity; the RDP formula without the factor 2 on
/// the root (ε = r + √(r ln(1/δ)) = 2.8993) fails 5.2985; `c2 = 2f²` (dropping `(ln(1/δ)+ε)/ln(1/δ)`)
/// gives 8, not 16, at `ε = ln(1/δ)`.
#[test]
fn golden_privacy_calibration_vectors() {
    assert_rel(full_batch_sensitivity(3.0, 100, Neighbouring::ReplaceOne).unwrap(), 0.06, 1e-15, "2G/n");
    assert_rel(full_batch_sensitivity(3.0, 100, Neighbouring::AddRemove).unwrap(), 0.03, 1e-15, "G/n");

    assert_rel(gdp_delta(1.0, 1.0).unwrap(), 0.126937, 0.5e-6 / 0.126937, "delta(mu=1, eps=1)");
    assert_rel(gdp_delta(0.5, 1.0).unwrap(), 0.0068296, 0.5e-7 / 0.0068296, "delta(mu=0.5, eps=1)");
    for (eps, delta, mu) in
        [(1.0, 1e-5, 0.26805), (0.5, 1e-5, 0.14221), (2.0, 1e-5, 0.50155), (8.0, 1e-5, 1.66603), (1.0, 1e-6, 0.23670)]
    {
        assert_rel(gdp_mu_max(eps, delta).unwrap(), mu, 0.5e-5 / mu, "mu_max");
    }
    // μ = √T Δ/σ: T = 100, Δ = 0.02, σ = 0.5 → 0.4.
    assert_rel(gdp_mu_full_batch(100, 0.02, 0.5).unwrap(), 0.4, 1e-15, "gdp mu");

    assert_rel(rdp_epsilon_full_batch_continuous(10.0, 100, 1e-5).unwrap(), 5.2985, 0.5e-4 / 5.2985, "RDP continuous");
    assert_rel(rdp_epsilon_full_batch_integer(10.0, 100, 1e-5).unwrap(), 5.3026, 0.5e-4 / 5.3026, "RDP integer");
    // The integer minimum is at ⌊α*⌋ or ⌈α*⌉, α* = 1 + √(ln(1/δ)·2s²/T): against a scan of every
    // order up to 10⁵ at s = 1e3 (α* ≈ 4800, where the old scan ran that many steps), and finite
    // and tiny at s = 1e300, where T/(2s²) rounds up to the least subnormal (the old scan stopped
    // at α = 1e9: ε = 1.2e-8; now α* = 1.5e162, ε ≈ 1.5e-161).
    let (s, t, d) = (1e3, 1u64, 1e-5f64);
    let r = t as f64 / (2.0 * s * s);
    let scan = (2..100_000).map(|a| r * a as f64 + (1.0 / d).ln() / (a as f64 - 1.0)).fold(f64::INFINITY, f64::min);
    assert_rel(rdp_epsilon_full_batch_integer(s, t, d).unwrap(), scan, 1e-15, "integer minimum");
    let tiny = rdp_epsilon_full_batch_integer(1e300, 1, d).unwrap();
    assert!(tiny > 0.0 && tiny < 1e-150, "{tiny}");
    // q = 1 identity: the continuous RDP value equals the zCDP classic value at ρ = T/(2s²).
    assert_rel(
        rdp_epsilon_full_batch_continuous(10.0, 100, 1e-5).unwrap(),
        zcdp_epsilon_classic(0.5, 1e-5).unwrap(),
        1e-15,
        "RDP = zCDP at rho = T/(2 s^2)",
    );

    // c2 = 2 f² (ln(1/δ) + ε)/ln(1/δ): at ε = ln(1/δ) = 2: 16 and 4; at ε = 1, δ = 1e-5:
    // 8·(1 + 1/ln(1e5)) = 8.694868…
    let d = (-2.0f64).exp();
    assert_rel(c2_sufficient_zcdp(2.0, d, Neighbouring::ReplaceOne).unwrap(), 16.0, 1e-14, "c2 replace-one");
    assert_rel(c2_sufficient_zcdp(2.0, d, Neighbouring::AddRemove).unwrap(), 4.0, 1e-14, "c2 add/remove");
    assert_rel(
        c2_sufficient_zcdp(1.0, 1e-5, Neighbouring::ReplaceOne).unwrap(),
        8.0 * (1.0 + 1.0 / 1e5f64.ln()),
        1e-14,
        "c2 at eps=1",
    );
    for eps in [0.01, 0.5, 1.0, 5.0, 11.5] {
        assert!(c2_sufficient_zcdp(eps, 1e-5, Neighbouring::ReplaceOne).unwrap() <= 16.0);
        assert!(c2_sufficient_zcdp(eps, 1e-5, Neighbouring::AddRemove).unwrap() <= 4.0);
    }
    // eq. (6) by hand: c2 = 16, G = 1, T = 100, n = 1000, ε = 1, δ = e^{-4}: √(16·100·4)/1000 = 0.08.
    assert_rel(
        sigma_eq6(&DpSetting::new(1.0, (-4.0f64).exp(), 1000).unwrap(), 16.0, 1.0, 100).unwrap(),
        0.08,
        1e-14,
        "eq. (6)",
    );
}

/// Notes §6.2 item 12, the calibration round trip: for several (ε, δ, T, n, G) and both
/// relations, (a) the zCDP σ gives `ρ = TΔ²/(2σ²)` whose classic conversion is ≤ ε (and the
/// optimal CKS conversion of the crate below that), eq. (6) with `c2_sufficient_zcdp` gives exactly
/// that σ, and the RDP value at `s = σ/Δ` is the same ε; (b) the GDP σ gives `μ = √TΔ/σ` equal to
/// `μ_max` to 1e-9 and `δ(ε; μ) ≤ δ`. Mutant: `σ² = TΔ²(ln(1/δ)+ε)/ε²` (missing 2) gives a classic
/// ε above the target.
#[test]
fn prop_privacy_calibration_round_trip() {
    for &(eps, delta, t, n, g) in
        &[(1.0, 1e-5, 100u64, 1000u64, 1.0), (0.1, 1e-6, 1000, 100_000, 0.65), (8.0, 1e-3, 10, 50, 3.0)]
    {
        for nb in [Neighbouring::ReplaceOne, Neighbouring::AddRemove] {
            let dlt = full_batch_sensitivity(g, n, nb).unwrap();
            let s_z = zcdp_sufficient_sigma(t, dlt, eps, delta).unwrap();
            let rho = zcdp_rho_full_batch(t, dlt, s_z).unwrap();
            let e_classic = zcdp_epsilon_classic(rho, delta).unwrap();
            assert!(e_classic <= eps * (1.0 + 1e-12), "zCDP classic {e_classic} > {eps}");
            assert!(zcdp::epsilon_for_delta(rho, delta).unwrap() <= e_classic * (1.0 + 1e-12));
            let setting = DpSetting::new(eps, delta, n).unwrap();
            let s6 = sigma_eq6(&setting, c2_sufficient_zcdp(eps, delta, nb).unwrap(), g, t).unwrap();
            assert_rel(s6, s_z, 1e-12, "eq. (6) with c2_sufficient = zCDP sigma");
            assert_rel(rdp_epsilon_full_batch_continuous(s_z / dlt, t, delta).unwrap(), e_classic, 1e-12, "RDP");
            // the mutant without the 2
            let s_bad = s_z / 2f64.sqrt();
            assert!(zcdp_epsilon_classic(zcdp_rho_full_batch(t, dlt, s_bad).unwrap(), delta).unwrap() > eps);

            let s_g = gdp_sigma_full_batch(t, dlt, eps, delta).unwrap();
            let mu = gdp_mu_full_batch(t, dlt, s_g).unwrap();
            let mu_max = gdp_mu_max(eps, delta).unwrap();
            assert!(mu <= mu_max);
            assert_rel(mu, mu_max, 1e-9, "GDP round trip");
            assert!(gdp_delta(mu, eps).unwrap() <= delta * (1.0 + 1e-9));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Lemma 1, Theorem 2, Lemma 3 (notes §4.2–4.4)
// ---------------------------------------------------------------------------------------------

/// Radii and probabilities by hand (p = 4, σ = 0.5, μ = 3): Thm. 2 radius `2·0.5·4 = 4`,
/// probability `16e^{−4.5}`; Lemma 3 radius `2·3·0.5 = 3`, probability `8e^{−4.5}`. The choice
/// `μ = √(2 ln(4pT/β))` makes `T·4pe^{−μ²/2} = β` (identity to 1e-12), and Thm. 6's
/// `μ = √(2 ln(2pT/β))` makes `T·2pe^{−μ²/2} = β`. Theorem 2's conditions: a passing point
/// (σ = 1, ε = 0.05, μ = 2, δ = 1e-3, n = 7190; the δ limit is `e^{−2}/(13 ln 26) = 0.0031952`,
/// the n limit `2 ln 8000/0.0025 = 7189.6`) and one failing point per condition, each named by
/// `check()`. Lemma 1's `[0,1]` rescale: τ_grad with G equals τ = τ_grad/(2G). Mutants: a
/// probability `2p` in Thm. 2, `(1 + μ)` in Lemma 3, `ln(pT/β)` in μ, or `n ≥ ln(8/δ)/ε²` fail.
#[test]
fn golden_concentration_and_conditions() {
    let e45 = (-4.5f64).exp();
    assert_rel(noisy_gradient_deviation_radius(4, 0.5, 3.0).unwrap(), 4.0, 1e-15, "Thm 2 radius");
    assert_rel(noisy_gradient_deviation_probability(4, 3.0).unwrap(), 16.0 * e45, 1e-15, "Thm 2 prob");
    assert_rel(noise_norm_radius_lemma3(4, 0.5, 3.0).unwrap(), 3.0, 1e-15, "Lemma 3 radius");
    assert_rel(noise_norm_probability_lemma3(4, 3.0).unwrap(), 8.0 * e45, 1e-15, "Lemma 3 prob");
    // μ = √(2 ln 3200) = 4.017690…, by hand: ln 3200 = 8.070906…
    let mu = mu_for_failure_probability(4, 10, 0.05).unwrap();
    assert_rel(mu, (2.0 * 3200f64.ln()).sqrt(), 1e-15, "mu");
    for &(p, t, beta) in &[(4u64, 10u64, 0.05), (1, 1, 0.5), (100, 10_000, 1e-6)] {
        let mu = mu_for_failure_probability(p, t, beta).unwrap();
        assert_rel(t as f64 * noisy_gradient_deviation_probability(p, mu).unwrap(), beta, 1e-12, "T xi = beta");
        let mu6 = mu_for_failure_probability_empirical(p, t, beta).unwrap();
        assert_rel(t as f64 * noise_norm_probability_lemma3(p, mu6).unwrap(), beta, 1e-12, "Thm 6 mu");
    }

    let at = |eps: f64, delta: f64, n: u64| DpSetting::new(eps, delta, n).unwrap();
    let ok = theorem2_conditions(&at(0.05, 1e-3, 7190), 1.0, 2.0).unwrap();
    assert!(ok.all(), "{ok:?}");
    assert!(ok.check().is_ok());
    let cases: [(Lemma1Conditions, &str); 4] = [
        (theorem2_conditions(&at(0.05, 1e-3, 7190), 26.0, 2.0).unwrap(), "sigma"),
        (theorem2_conditions(&at(0.08, 1e-3, 7190), 1.0, 2.0).unwrap(), "epsilon"),
        (theorem2_conditions(&at(0.05, 0.0032, 7190), 1.0, 2.0).unwrap(), "delta"),
        (theorem2_conditions(&at(0.05, 1e-3, 7189), 1.0, 2.0).unwrap(), "dataset_size_n"),
    ];
    for (c, name) in cases {
        assert!(!c.all());
        invalid(c.check(), name);
    }
    // δ just below and above the limit e^{-2}/(13 ln 26)
    let lim = (-2.0f64).exp() / (13.0 * 26f64.ln());
    assert_rel(lim, 0.0031952, 0.5e-7 / 0.0031952, "delta limit");
    assert!(theorem2_conditions(&at(0.05, lim * 0.999, 7190), 1.0, 2.0).unwrap().delta_ok);
    assert!(!theorem2_conditions(&at(0.05, lim * 1.001, 7190), 1.0, 2.0).unwrap().delta_ok);

    // Z10 for Thm. 2: corrected, its conditions are Lemma 1 for gradients at (σ, ρ = 2e^{−μ²/2}, G).
    // With G = 1 they hold at σ/(2G) = 1/2, so ε ≤ 1/26, while the printed ε ≤ σ/13 accepts ε = 1/13;
    // at G = 1/2 the two agree.
    let rho = 2.0 * (-2.0f64).exp();
    let at_g = |eps: f64, g: f64| lemma1_conditions_gradient(&at(eps, 1e-5, 1_000_000), 1.0, rho, g).unwrap();
    assert!(theorem2_conditions(&at(1.0 / 13.0, 1e-5, 1_000_000), 1.0, 2.0).unwrap().epsilon_ok);
    assert!(!at_g(1.0 / 13.0, 1.0).epsilon_ok && at_g(1.0 / 26.0, 1.0).epsilon_ok && !at_g(0.0385, 1.0).epsilon_ok);
    let half = lemma1_conditions_gradient(&at(0.05, 1e-3, 7190), 1.0, rho, 0.5).unwrap();
    assert_eq!(
        (half.tau_ok, half.epsilon_ok, half.delta_ok, half.n_ok),
        (ok.tau_ok, ok.epsilon_ok, ok.delta_ok, ok.n_ok)
    );

    // Lemma 1 = Thm. 2's data part at τ = σ, ρ = 2e^{−μ²/2}
    let l1 = lemma1_conditions(&at(0.05, 1e-3, 7190), 1.0, 2.0 * (-2.0f64).exp()).unwrap();
    assert_eq!((l1.tau_ok, l1.epsilon_ok, l1.delta_ok, l1.n_ok), (ok.tau_ok, ok.epsilon_ok, ok.delta_ok, ok.n_ok));
    for g in [0.5, 2.0, 10.0] {
        let a = lemma1_conditions_gradient(&at(0.01, 1e-9, 1_000_000), 0.5, 0.1, g).unwrap();
        let b = lemma1_conditions(&at(0.01, 1e-9, 1_000_000), 0.5 / (2.0 * g), 0.1).unwrap();
        assert_eq!(a, b);
    }
    // With G = 10 the rescaled τ = 0.025 makes ε = 0.01 > τ/13 fail; the paper's reading (τ = 0.5) passes.
    assert!(!lemma1_conditions_gradient(&at(0.01, 1e-9, 1_000_000), 0.5, 0.1, 10.0).unwrap().epsilon_ok);
    assert!(lemma1_conditions(&at(0.01, 1e-9, 1_000_000), 0.5, 0.1).unwrap().epsilon_ok);
}

// ---------------------------------------------------------------------------------------------
// Adam step-size cap (notes §2.3, §6.1 item 11)
// ---------------------------------------------------------------------------------------------

/// The corrected cap: x*(0.9) = 0.0513340, x*(0.5) = 0.2965352, x*(0.1) = 0.7339697 (notes
/// §6.1 item 11); it is a root of `(2β1/(1−β1)²)x² + x/2 − 1/2` to 1e-12 (residual computed here
/// independently) on a grid of β1; x*(0) = 1 exactly and x*(β1) = 1 − 4β1 + O(β1²) for tiny β1
/// (no cancellation); the printed cap is 1.0062 at β1 = 0.1 with residual +0.253 > 0 (violates
/// the proof), 0.30193 at 0.5, 0.051352 at 0.9, 0.0050126 at 0.99, and never below the corrected
/// one. Mutants: `1/2` under the root (the printed cap) fails the three values; the unrationalised
/// `(√(1/4+a) − 1/2)(1−β1)²/(4β1)` loses digits at β1 = 1e-12 (shown below) and is undefined at 0.
#[test]
fn golden_adam_step_cap() {
    for (b, x) in [(0.9, 0.0513340), (0.5, 0.2965352), (0.1, 0.7339697)] {
        assert_rel(adam_step_cap_x(b).unwrap(), x, 0.5e-7 / x, "x*");
    }
    for (b, x) in [(0.1, 1.0062), (0.5, 0.30193), (0.9, 0.051352), (0.99, 0.0050126)] {
        let digits = if x > 1.0 {
            0.5e-4
        } else if x > 0.1 {
            0.5e-5
        } else if x > 0.01 {
            0.5e-6
        } else {
            0.5e-7
        };
        assert_rel(adam_step_cap_x_printed(b).unwrap(), x, digits / x, "printed cap");
    }
    let q = |b: f64, x: f64| 2.0 * b / ((1.0 - b) * (1.0 - b)) * x * x + 0.5 * x - 0.5;
    let printed_01 = adam_step_cap_x_printed(0.1).unwrap();
    assert_rel(q(0.1, printed_01), 0.253, 0.5e-3 / 0.253, "printed residual");
    assert!(adam_cap_quadratic(0.1, printed_01).unwrap() > 0.25);
    for i in 0..=200 {
        let b = if i == 0 { 0.0 } else { 0.995 * i as f64 / 200.0 };
        let x = adam_step_cap_x(b).unwrap();
        // terms of q are ≤ 1/2 in magnitude at the root, so 1e-12 absolute is a few roundings
        assert!(q(b, x).abs() <= 1e-12, "root identity at beta1 = {b}: {}", q(b, x));
        assert!(adam_cap_quadratic(b, x).unwrap().abs() <= 1e-12);
        if b > 0.0 {
            assert!(adam_step_cap_x_printed(b).unwrap() >= x * (1.0 - 1e-15));
        }
    }
    assert_eq!(adam_step_cap_x(0.0).unwrap(), 1.0);
    for b in [1e-6, 1e-9, 1e-12, 1e-15] {
        let x = adam_step_cap_x(b).unwrap();
        assert!(x < 1.0 || b < 1e-16);
        // x* = 1/(1/2 + √(1/4 + 4β1/(1−β1)²)) = 1 − 4β1 + O(β1²)
        assert!((x - (1.0 - 4.0 * b)).abs() <= 40.0 * b * b + 4e-16, "small beta1 {b}: {x}");
    }
    // the naive form at β1 = 1e-12 is off by far more than rounding
    let b = 1e-12f64;
    let a = 4.0 * b / ((1.0 - b) * (1.0 - b));
    let naive = ((0.25 + a).sqrt() - 0.5) * (1.0 - b) * (1.0 - b) / (4.0 * b);
    assert!((naive - (1.0 - 4.0 * b)).abs() > 1e-6, "naive form unexpectedly accurate: {naive}");
    // η caps: x*·ν/L, ν/(4L), 1/(4L)
    assert_rel(adam_step_size_cap(0.5, 0.3, 2.0).unwrap(), 0.2965352 * 0.15, 1e-6, "Adam eta cap");
    assert_rel(rmsprop_step_size_cap(0.3, 2.0).unwrap(), 0.0375, 1e-15, "RMSProp eta cap");
    assert_rel(dp_gd_step_size(2.0).unwrap(), 0.125, 1e-15, "DP-GD eta");
    assert_rel(adam_step_size_cap_printed(0.1, 1.0, 1.0).unwrap(), 1.0062, 0.5e-4, "printed eta cap");
}

// ---------------------------------------------------------------------------------------------
// Descent, empirical, rate and lower-bound formulas by hand (notes §4.5, §4.7, §4.8)
// ---------------------------------------------------------------------------------------------

/// Eq. (26) holds only at `η = 1/(4L)`. The reviewer's case (L = 1, T = 100, gap 1, noise 0.01)
/// at `η = 1/(8L)`: eq. (22) summed gives `(1/12.5 + 0.625·0.01)/0.375 = 0.23`, while eq. (26)'s
/// formula would give `0.16 + 0.03 = 0.19`, an under-statement; so that step is refused (naming
/// `step_size_eta`), as is a step 1e-9 away from 1/(4L). A step `0.25/L` rounded in floating point
/// (L = 3, 7, 0.1) is accepted. Mutant: dropping the check returns 0.19 and fails here.
#[test]
fn dp_gd_descent_bound_refuses_a_step_other_than_quarter_over_l() {
    let inp = DescentInputs { steps_t: 100, loss_decrease: 1.0, noise_sq: 0.01 };
    let eighth = GdStep::new(0.125, 1.0).unwrap();
    assert_rel(dp_gd_descent_bound_general_eta(&eighth, &inp).unwrap(), 0.23, 1e-14, "eq. (22) at 1/(8L)");
    invalid(dp_gd_descent_bound(&eighth, &inp), "step_size_eta");
    invalid(dp_gd_descent_bound(&GdStep::new(0.25 * (1.0 + 1e-9), 1.0).unwrap(), &inp), "step_size_eta");
    invalid(dp_gd_descent_bound(&GdStep::new(0.5, 1.0).unwrap(), &inp), "step_size_eta");
    for l in [3.0, 7.0, 0.1] {
        let at = GdStep::new(0.25 / l, l).unwrap();
        let want = 16.0 * l / 100.0 + 0.03;
        assert_rel(dp_gd_descent_bound(&at, &inp).unwrap(), want, 1e-14, "eq. (26) at 1/(4L)");
    }
}

/// Each formula at one point by hand:
/// DP-GD step (η = 1/8, L = 2, f = 1, ‖g‖² = 4, ‖Δ‖² = 1): `1 − 0.03125·4 + 0.09375 = 0.96875`;
/// summed (L = 2, T = 10, gap 0.5, noise 0.1): `1.6 + 0.3 = 1.9`; general η = 0.1:
/// `(0.5 + 0.07)/0.3 = 1.9`, and at η = 1/(4L) equal to the summed form.
/// RMSProp (ν = 0.5, λ = 0.25, η = 1/16, L = 2): `(0.5+0.5)(0.8 + 0.15) = 0.95`, corrected ×4.
/// Adam (β1 = 0.5, ν = 0.5, λ = 0.25, η = 0.05, α² = 0.1): `2(2 + 0.8) = 5.6`, printed `2(2 + 0.4)`.
/// Thm. 4 (L = 2, T = 10, gap 0.5, p = 4, σ = 0.1): `0.2 + 0.04`, printed `0.1 + 0.04`.
/// Thm. 5 (ν = 1, η = 1/4, λ = 4, β2 = 0.96, G = 1): `4(√3.84 + 1)(0.2 + 0.02)`, printed `(0.2 + 0.08)`.
/// Thm. 3 unit-constant rates (G = 1, p = 4, n = 1000, ε = 1, δ = e^{−4}, β = 0.1, L = 4):
/// `8 ln(40000)/1000` and `4 ln(20000)/1000`. Thm. 12: `√(2/9)/(2√20) = 0.0527`, `0.5/(2√20) = 0.0559`.
/// Mutants: every printed/corrected pair differs here, so swapping any constant fails.
#[test]
fn golden_descent_and_rate_formulas() {
    let t = 1e-14;
    assert_rel(dp_gd_descent_step(&GdStep::new(0.125, 2.0).unwrap(), 1.0, 4.0, 1.0).unwrap(), 0.96875, t, "GD step");
    let inp = DescentInputs { steps_t: 10, loss_decrease: 0.5, noise_sq: 0.1 };
    let g_quarter = GdStep::new(0.125, 2.0).unwrap();
    assert_rel(dp_gd_descent_bound(&g_quarter, &inp).unwrap(), 1.9, t, "GD summed");
    assert_rel(
        dp_gd_descent_bound_general_eta(&GdStep::new(0.1, 2.0).unwrap(), &inp).unwrap(),
        1.9,
        t,
        "GD general eta",
    );
    assert_rel(
        dp_gd_descent_bound_general_eta(&GdStep::new(0.125, 2.0).unwrap(), &inp).unwrap(),
        1.9,
        t,
        "GD general at 1/(4L)",
    );
    let inp2 = DescentInputs { steps_t: 7, loss_decrease: -0.3, noise_sq: 2.5 };
    assert_rel(
        dp_gd_descent_bound_general_eta(&GdStep::new(0.125, 2.0).unwrap(), &inp2).unwrap(),
        dp_gd_descent_bound(&g_quarter, &inp2).unwrap(),
        1e-14,
        "general = summed at 1/(4L)",
    );

    let rs = AdaptiveStep { step_size_eta: 0.0625, nu: 0.5, lambda: 0.25, smoothness_l: 2.0 };
    assert_rel(rmsprop_descent_bound(&rs, &inp).unwrap(), 3.8, t, "RMSProp corrected");
    assert_rel(rmsprop_descent_bound_printed(&rs, &inp).unwrap(), 0.95, t, "RMSProp printed");

    let ad = AdaptiveStep { step_size_eta: 0.05, nu: 0.5, lambda: 0.25, smoothness_l: 2.0 };
    assert_rel(adam_descent_bound(&ad, 0.5, &inp).unwrap(), 5.6, t, "Adam corrected");
    assert_rel(adam_descent_bound_printed(&ad, 0.5, &inp).unwrap(), 4.8, t, "Adam printed");

    let emp = EmpiricalInputs { steps_t: 10, loss_gap: 0.5, dim_p: 4, sigma: 0.1 };
    assert_rel(dp_gd_empirical_bound(2.0, &emp).unwrap(), 0.24, t, "Thm 4");
    assert_rel(dp_gd_empirical_bound_printed(2.0, &emp).unwrap(), 0.14, t, "Thm 4 printed");
    let st5 = AdaptiveStep { step_size_eta: 0.25, nu: 1.0, lambda: 4.0, smoothness_l: 2.0 };
    let c5 = 4.0 * (3.84f64.sqrt() + 1.0);
    assert_rel(rmsprop_empirical_bound(&st5, 0.96, 1.0, &emp).unwrap(), c5 * 0.22, t, "Thm 5");
    assert_rel(rmsprop_empirical_bound_printed(&st5, 0.96, 1.0, &emp).unwrap(), c5 * 0.28, t, "Thm 5 printed");

    let rate = RateInputs {
        gradient_bound_g: 1.0,
        dim_p: 4,
        dataset_size_n: 1000,
        epsilon: 1.0,
        delta: (-4.0f64).exp(),
        beta: 0.1,
    };
    assert_rel(dp_gd_rate_unit_constant(4.0, &rate).unwrap(), 8.0 * 40000f64.ln() / 1000.0, 1e-13, "Thm 3.1 rate");
    assert_rel(adaptive_rate_unit_constant(&rate).unwrap(), 4.0 * 20000f64.ln() / 1000.0, 1e-13, "Thm 3.2 rate");

    let c = uniform_convergence_lower_bound_constant((2.0f64 / 9.0).sqrt()).unwrap();
    assert_rel(c, 0.0527, 0.5e-4 / 0.0527, "Thm 12 constant");
    assert_rel(uniform_convergence_lower_bound_constant(0.5).unwrap(), 0.0559, 0.5e-4 / 0.0559, "Thm 12 mu=1/2");
    assert_rel(uniform_convergence_lower_bound(100, 400, (2.0f64 / 9.0).sqrt()).unwrap(), 0.5 * c, 1e-15, "Thm 12");
}

// ---------------------------------------------------------------------------------------------
// Lemma 2 (notes §4.6, §6.3 item 20)
// ---------------------------------------------------------------------------------------------

/// `Σ_{t=1}^T Σ_{k=0}^{t−1} β1^k ‖Σ_{l=t−k}^{t−1} b_l‖²` by the definition (triple loop).
fn lemma2_lhs_brute(b: &[Vec<f64>], beta1: f64) -> f64 {
    let tt = b.len() + 1;
    let p = b.first().map_or(0, Vec::len);
    let mut lhs = 0.0;
    for t in 1..=tt {
        for k in 0..t {
            let mut s = vec![0.0; p];
            for l in (t - k)..t {
                for i in 0..p {
                    s[i] += b[l - 1][i];
                }
            }
            lhs += beta1.powi(k as i32) * s.iter().map(|x| x * x).sum::<f64>();
        }
    }
    lhs
}

/// One random or adversarial instance of Lemma 2.
fn lemma2_instance(rng: &mut DpRng, kind: usize) -> (Vec<Vec<f64>>, f64) {
    let beta1 = match rng.random_range(0..5) {
        0 => 0.1,
        1 => 0.5,
        2 => 0.9,
        3 => 0.99,
        _ => rng.random_range(0.001..0.999),
    };
    let t1 = rng.random_range(0..40usize); // T − 1
    let p = rng.random_range(1..=5usize);
    let base: Vec<f64> = (0..p).map(|_| rng.random_range(-2.0..2.0)).collect();
    let b = (0..t1)
        .map(|l| match kind {
            0 => (0..p).map(|_| rng.random_range(-1.0..1.0)).collect(),
            // constant vectors: the sums grow like k, the worst case of ‖Σ b‖² ≤ kΣ‖b‖²
            1 => base.clone(),
            // alternating signs
            2 => base.iter().map(|x| if l % 2 == 0 { *x } else { -*x }).collect(),
            // a single spike
            3 => base.iter().map(|x| if l == t1 / 2 { *x * 100.0 } else { 0.0 }).collect(),
            // geometric growth
            _ => base.iter().map(|x| x * 1.3f64.powi(l as i32)).collect(),
        })
        .collect();
    (b, beta1)
}

/// Lemma 2 on 2500 seeded instances (random, constant, alternating, spike, geometric; T ≤ 40,
/// p ≤ 5, β1 ∈ {0.1, 0.5, 0.9, 0.99} or uniform): `lhs ≤ rhs(1 + 1e-12)`, and the function's
/// lhs equals a brute-force triple loop to 1e-12. Closed forms: `T = 2, b_1 = 1`: lhs = β1,
/// rhs = 2β1/(1−β1)³; `T = 1` (no vectors): 0 ≤ 0. Mutant: `(1 − β1)²` in the denominator of rhs
/// is violated by the constant-vector instances (checked below: some instance exceeds it).
#[test]
fn prop_lemma2_holds_on_random_and_adversarial_vectors() {
    let mut rng = Seeds::new(200_613_501).stream(Stream::Other(20));
    let (mut worst, mut mutant_violated) = (0.0f64, false);
    for i in 0..2500 {
        let (b, beta1) = lemma2_instance(&mut rng, i % 5);
        let s = lemma2_sides(&b, beta1).unwrap();
        assert!(s.lhs <= s.rhs * (1.0 + 1e-12), "Lemma 2 fails: {s:?}, beta1 {beta1}, T-1 = {}", b.len());
        let brute = lemma2_lhs_brute(&b, beta1);
        assert!((s.lhs - brute).abs() <= 1e-12 * brute.abs().max(f64::MIN_POSITIVE), "lhs {} vs {brute}", s.lhs);
        if s.rhs > 0.0 {
            worst = worst.max(s.lhs / s.rhs);
            if s.lhs > s.rhs * (1.0 - beta1) {
                mutant_violated = true;
            }
        }
    }
    eprintln!("Lemma 2: max lhs/rhs = {worst:.4}");
    assert!(worst < 1.0 && worst > 0.3);
    assert!(mutant_violated, "the (1 - beta1)^2 mutant was never violated");
    for beta1 in [0.1, 0.5, 0.9] {
        let s = lemma2_sides(&[vec![1.0]], beta1).unwrap();
        assert_rel(s.lhs, beta1, 1e-15, "T=2 lhs");
        assert_rel(s.rhs, 2.0 * beta1 / (1.0 - beta1).powi(3), 1e-14, "T=2 rhs");
    }
    let empty: [Vec<f64>; 0] = [];
    assert_eq!(lemma2_sides(&empty, 0.5).unwrap(), Sides { lhs: 0.0, rhs: 0.0 });
}

// ---------------------------------------------------------------------------------------------
// Invalid input
// ---------------------------------------------------------------------------------------------

/// Every function refuses invalid input with a typed error naming the parameter (never a panic,
/// never NaN): non-positive, NaN and infinite scales; δ, β outside (0, 1); β1 outside [0, 1)
/// (printed cap: (0, 1)); zero counts; step sizes above the theorem's cap; Thm. 5's β2
/// condition; ragged or non-finite Lemma 2 vectors; a rate whose logarithm is ≤ 0. Mutant: a
/// function that computes with NaN (e.g. `ln(1/δ)` at δ = 1.5) returns `Ok(NaN)` and fails here.
#[test]
fn invalid_inputs_are_refused() {
    let nb = Neighbouring::ReplaceOne;
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        invalid(full_batch_sensitivity(bad, 10, nb), "gradient_bound_g");
        invalid(zcdp_rho_full_batch(10, bad, 1.0), "sensitivity");
        invalid(zcdp_sufficient_sigma(10, 0.1, bad, 1e-5), "epsilon");
        invalid(gdp_mu_full_batch(10, 0.1, bad), "sigma");
        invalid(rdp_epsilon_full_batch_continuous(bad, 10, 1e-5), "noise_multiplier_s");
        invalid(sigma_eq6(&DpSetting::new(1.0, 1e-5, 10).unwrap(), bad, 1.0, 10), "c2");
        invalid(c2_sufficient_zcdp(bad, 1e-5, nb), "epsilon");
        invalid(noisy_gradient_deviation_radius(4, 1.0, bad), "mu");
        invalid(theorem2_conditions(&DpSetting::new(0.1, 1e-5, 10).unwrap(), bad, 1.0), "sigma");
        invalid(lemma1_conditions(&DpSetting::new(0.1, 1e-5, 10).unwrap(), bad, 0.1), "tau");
        invalid(lemma1_conditions_gradient(&DpSetting::new(0.1, 1e-5, 10).unwrap(), 0.5, 0.1, bad), "gradient_bound_g");
        invalid(DpSetting::new(bad, 1e-5, 10), "epsilon");
        invalid(rmsprop_step_size_cap(bad, 2.0), "nu");
        invalid(adam_step_size_cap(0.5, 1.0, bad), "smoothness_l");
        invalid(dp_gd_step_size(bad), "smoothness_l");
        invalid(GdStep::new(bad, 2.0), "step_size_eta");
        invalid(GdStep::new(0.1, bad), "smoothness_l");
        invalid(uniform_convergence_lower_bound_constant(bad), "sigma_min");
    }
    for bad_delta in [0.0, 1.0, 1.5, -0.1, f64::NAN] {
        invalid(zcdp_epsilon_classic(0.1, bad_delta), "delta");
        invalid(gdp_mu_max(1.0, bad_delta), "delta");
        invalid(rdp_epsilon_full_batch_integer(10.0, 10, bad_delta), "delta");
        invalid(c2_sufficient_zcdp(1.0, bad_delta, nb), "delta");
        invalid(DpSetting::new(0.1, bad_delta, 10), "delta");
        invalid(mu_for_failure_probability(4, 10, bad_delta), "beta");
    }
    invalid(full_batch_sensitivity(1.0, 0, nb), "dataset_size_n");
    invalid(zcdp_rho_full_batch(0, 0.1, 1.0), "steps_t");
    invalid(noisy_gradient_deviation_probability(0, 1.0), "dim_p");
    invalid(zcdp_epsilon_classic(-1.0, 1e-5), "rho");
    invalid(lemma1_conditions(&DpSetting::new(0.1, 1e-5, 10).unwrap(), 0.5, 0.0), "rho");
    invalid(DpSetting::new(0.1, 1e-5, 0), "dataset_size_n");
    invalid(uniform_convergence_lower_bound_constant(0.6), "sigma_min");

    for bad in [-0.1, 1.0, 1.5, f64::NAN] {
        invalid(adam_step_cap_x(bad), "beta1");
        invalid(adam_cap_quadratic(bad, 0.5), "beta1");
        invalid(lemma2_sides(&[vec![1.0]], bad), "beta1");
    }
    invalid(adam_step_cap_x_printed(0.0), "beta1");
    invalid(adam_cap_quadratic(0.5, f64::NAN), "x");

    let inp = DescentInputs { steps_t: 10, loss_decrease: 0.5, noise_sq: 0.1 };
    let g_quarter = GdStep::new(0.125, 2.0).unwrap();
    invalid(dp_gd_descent_bound(&g_quarter, &DescentInputs { steps_t: 0, ..inp }), "steps_t");
    invalid(dp_gd_descent_bound(&g_quarter, &DescentInputs { loss_decrease: f64::NAN, ..inp }), "loss_decrease");
    invalid(dp_gd_descent_bound(&g_quarter, &DescentInputs { noise_sq: -1.0, ..inp }), "noise_sq");
    invalid(dp_gd_descent_bound_general_eta(&GdStep::new(0.25, 2.0).unwrap(), &inp), "step_size_eta");
    let rs = AdaptiveStep { step_size_eta: 0.0625, nu: 0.5, lambda: 0.25, smoothness_l: 2.0 };
    invalid(rmsprop_descent_bound(&AdaptiveStep { step_size_eta: 0.07, ..rs }, &inp), "step_size_eta");
    invalid(rmsprop_descent_bound(&AdaptiveStep { lambda: f64::INFINITY, ..rs }, &inp), "lambda");
    invalid(rmsprop_descent_bound_printed(&AdaptiveStep { nu: 0.0, ..rs }, &inp), "nu");
    // Adam at β1 = 0.5: cap x* = 0.2965 → η ≤ 0.0741; 0.075 is refused, and β1 = 1 too
    invalid(adam_descent_bound(&AdaptiveStep { step_size_eta: 0.075, ..rs }, 0.5, &inp), "step_size_eta");
    invalid(adam_descent_bound(&rs, 1.0, &inp), "beta1");
    invalid(adam_descent_bound_printed(&rs, 0.0, &inp), "beta1");
    let emp = EmpiricalInputs { steps_t: 10, loss_gap: 0.5, dim_p: 4, sigma: 0.1 };
    invalid(dp_gd_empirical_bound(2.0, &EmpiricalInputs { loss_gap: -0.1, ..emp }), "loss_gap");
    let st5 = AdaptiveStep { step_size_eta: 0.25, nu: 1.0, lambda: 4.0, smoothness_l: 2.0 };
    invalid(rmsprop_empirical_bound(&st5, 0.9, 1.0, &emp), "beta2");
    invalid(rmsprop_empirical_bound(&AdaptiveStep { step_size_eta: 0.3, ..st5 }, 0.96, 1.0, &emp), "step_size_eta");
    let rate = RateInputs { gradient_bound_g: 1.0, dim_p: 1, dataset_size_n: 1, epsilon: 0.5, delta: 0.1, beta: 0.9 };
    invalid(adaptive_rate_unit_constant(&rate), "log argument");

    // Lemma 2: ragged, empty, non-finite vectors
    invalid(lemma2_sides(&[vec![1.0, 2.0], vec![1.0]], 0.5), "b");
    assert!(matches!(lemma2_sides(&[Vec::<f64>::new()], 0.5), Err(Error::Empty { what: "b" })));
    assert!(matches!(lemma2_sides(&[vec![1.0], vec![f64::NAN]], 0.5), Err(Error::NonFinite { what: "b", index: 1 })));
}

/// Every public \[ZCHWB\] bound fed extreme finite inputs (1e-300, 1e300, gaps ±1e300, ±1e10,
/// T = u64::MAX) returns an `Err` or a finite value, never ∞/NaN in `Ok`. The reviewer's case
/// (η = 1e-301, ν = 1e-300, L = 1, λ = 1, gap = −1e10, noise 1e10) gave `Ok(NaN)` from the
/// DP-RMSProp and DP-Adam bounds (−∞ + ∞) before they went through `finite_result`: it must now
/// be a `Numerical` error (a mutant that drops the check fails both assertions).
#[test]
fn prop_extreme_finite_inputs_never_give_a_non_finite_ok() {
    let reviewer = AdaptiveStep { step_size_eta: 1e-301, nu: 1e-300, lambda: 1.0, smoothness_l: 1.0 };
    let inp = DescentInputs { steps_t: 1, loss_decrease: -1e10, noise_sq: 1e10 };
    for r in [
        rmsprop_descent_bound(&reviewer, &inp),
        rmsprop_descent_bound_printed(&reviewer, &inp),
        adam_descent_bound(&reviewer, 0.5, &DescentInputs { steps_t: 1, ..inp }),
    ] {
        assert!(matches!(r, Err(Error::Numerical { .. })), "reviewer's case: {r:?}");
    }

    let pos = EXTREME_POSITIVE;
    let gaps = [-1e300, -1e10, 0.0, 1e10, 1e300];
    let counts = [1u64, 1000, u64::MAX];
    for &eta in &pos {
        for &l in &pos {
            let gd = GdStep::new(eta, l).unwrap();
            let quarter = GdStep::new(0.25 / l, l).unwrap();
            for &nu in &pos {
                let step = AdaptiveStep { step_size_eta: eta, nu, lambda: nu, smoothness_l: l };
                for &gap in &gaps {
                    for &noise in &pos {
                        for &t in &counts {
                            let inp = DescentInputs { steps_t: t, loss_decrease: gap, noise_sq: noise };
                            finite_or_err(dp_gd_descent_bound(&quarter, &inp), scalar, "dp_gd_descent_bound");
                            finite_or_err(dp_gd_descent_bound_general_eta(&gd, &inp), scalar, "general_eta");
                            finite_or_err(dp_gd_descent_step(&gd, gap, noise, noise), scalar, "dp_gd_descent_step");
                            finite_or_err(rmsprop_descent_bound(&step, &inp), scalar, "rmsprop");
                            finite_or_err(rmsprop_descent_bound_printed(&step, &inp), scalar, "rmsprop printed");
                            finite_or_err(adam_descent_bound(&step, 0.5, &inp), scalar, "adam");
                            finite_or_err(adam_descent_bound_printed(&step, 0.5, &inp), scalar, "adam printed");
                            let emp = EmpiricalInputs { steps_t: t, loss_gap: gap.abs(), dim_p: t, sigma: noise };
                            finite_or_err(dp_gd_empirical_bound(l, &emp), scalar, "dp_gd_empirical");
                            finite_or_err(dp_gd_empirical_bound_printed(l, &emp), scalar, "dp_gd_empirical printed");
                            finite_or_err(rmsprop_empirical_bound(&step, 0.999, nu, &emp), scalar, "rmsprop emp");
                            finite_or_err(
                                rmsprop_empirical_bound_printed(&step, 0.999, nu, &emp),
                                scalar,
                                "rmsprop emp p",
                            );
                        }
                    }
                }
            }
            finite_or_err(dp_gd_step_size(l), scalar, "dp_gd_step_size");
            finite_or_err(rmsprop_step_size_cap(eta, l), scalar, "rmsprop_step_size_cap");
            finite_or_err(adam_step_size_cap(0.5, eta, l), scalar, "adam_step_size_cap");
            finite_or_err(adam_step_size_cap_printed(0.5, eta, l), scalar, "adam_step_size_cap_printed");
            finite_or_err(adam_cap_quadratic(1.0 - 1e-16, l), scalar, "adam_cap_quadratic");
            finite_or_err(lemma2_sides(&[vec![eta, -l], vec![l, eta]], 0.999), |s| vec![s.lhs, s.rhs], "lemma2");
            for &t in &counts {
                let nb = Neighbouring::ReplaceOne;
                finite_or_err(full_batch_sensitivity(eta, t, nb), scalar, "full_batch_sensitivity");
                finite_or_err(zcdp_rho_full_batch(t, eta, l), scalar, "zcdp_rho_full_batch");
                finite_or_err(zcdp_epsilon_classic(eta, 1e-300), scalar, "zcdp_epsilon_classic");
                finite_or_err(zcdp_sufficient_sigma(t, eta, l, 1e-300), scalar, "zcdp_sufficient_sigma");
                finite_or_err(gdp_mu_full_batch(t, eta, l), scalar, "gdp_mu_full_batch");
                finite_or_err(rdp_epsilon_full_batch_continuous(eta, t, 1e-300), scalar, "rdp continuous");
                if eta <= 1.0 {
                    // the integer-order scan runs ~√(ln(1/δ)/r) orders; r = T/(2s²) is tiny for s > 1
                    finite_or_err(rdp_epsilon_full_batch_integer(eta, t, 1e-300), scalar, "rdp integer");
                }
                finite_or_err(sigma_eq6(&DpSetting::new(eta, 1e-300, t).unwrap(), l, l, t), scalar, "sigma_eq6");
                finite_or_err(c2_sufficient_zcdp(eta, 1e-300, nb), scalar, "c2_sufficient_zcdp");
                finite_or_err(noisy_gradient_deviation_radius(t, eta, l), scalar, "deviation radius");
                finite_or_err(noisy_gradient_deviation_probability(t, l), scalar, "deviation probability");
                finite_or_err(noise_norm_radius_lemma3(t, eta, l), scalar, "lemma3 radius");
                finite_or_err(noise_norm_probability_lemma3(t, l), scalar, "lemma3 probability");
                finite_or_err(mu_for_failure_probability(t, t, 1e-300), scalar, "mu_for_failure_probability");
                finite_or_err(uniform_convergence_lower_bound(t, 1, 0.5), scalar, "uniform convergence");
                let r = RateInputs {
                    gradient_bound_g: eta,
                    dim_p: t,
                    dataset_size_n: t,
                    epsilon: l,
                    delta: 1e-300,
                    beta: 1e-300,
                };
                finite_or_err(dp_gd_rate_unit_constant(l, &r), scalar, "dp_gd_rate");
                finite_or_err(adaptive_rate_unit_constant(&r), scalar, "adaptive_rate");
            }
        }
    }
}
