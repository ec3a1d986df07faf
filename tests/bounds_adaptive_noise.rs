//! Tests of `dpref::bounds::adaptive_noise` ([ADFJT], notes §4 and §6: O8, N3): the diameters
//! and traces, the gradient moments and the radial clipping bias with Lemma B.1, the noise energy
//! of eq. (17), and the typed errors of every public function. The other theorem groups are in
//! `tests/bounds_adaptive_noise_{regret,rates,lower,second_moment}.rs`.
//!
//! Every formula in the module's docs is evaluated in one of these files, against a hand
//! computation, a brute force, or another formula it must agree with (STYLE b.15); every test
//! names the mutant that makes it fail (STYLE c.4).

mod common;

use common::box_adagrad::{log_uniform, vertices};
use common::check::{EXTREME_POSITIVE, assert_rel, finite_or_err, scalar};
use common::stat::{ALPHA, chi_square_interval};
use dpref::Error;
use dpref::bounds::adaptive_noise::*;
use dpref::noise;
use dpref::rng::{Seeds, Stream};
use proptest::prelude::*;
use rand_distr::{Distribution, Pareto, StudentT};

// ---------------------------------------------------------------------------------------------
// Diameters, traces, moments
// ---------------------------------------------------------------------------------------------

/// The box diameters equal the brute-force maximum over all pairs of vertices (a convex norm of
/// `x − y` is maximised at vertices), and on `[−1, 1]^d` they are `2√d`, `2`, `2√tr(C⁻¹)`. The
/// l2-ball diameters dominate every antipodal pair `±Rv` and are attained at `±R e_{argmin C}`.
/// Mutant: `D_{C⁻¹}` with `Cⱼⱼ` in place of `1/Cⱼⱼ` fails both brute forces.
#[test]
fn diameters_match_brute_force_and_closed_forms() {
    let (lower, upper, c) = ([-1.0, 0.5, -2.0], [2.0, 0.75, 3.0], [0.5, 4.0, 9.0]);
    let dia = box_diameters(&lower, &upper, &c).unwrap();
    let vs = vertices(&lower, &upper);
    let (mut b2, mut binf, mut bc) = (0.0f64, 0.0f64, 0.0f64);
    for x in &vs {
        for y in &vs {
            let diff: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
            b2 = b2.max(diff.iter().map(|v| v * v).sum::<f64>().sqrt());
            binf = binf.max(diff.iter().fold(0.0, |m, v| m.max(v.abs())));
            bc = bc.max(diff.iter().zip(&c).map(|(v, c)| v * v / c).sum::<f64>().sqrt());
        }
    }
    assert_rel(dia.diam_2, b2, 1e-14, "D2");
    assert_eq!(dia.diam_inf, binf);
    assert_rel(dia.diam_c_inv, bc, 1e-14, "DCi");
    let mutant = lower.iter().zip(&upper).zip(&c).map(|((l, u), c)| (u - l) * (u - l) * c).sum::<f64>().sqrt();
    assert!((mutant - bc).abs() > 1.0);

    let c4 = [1.0, 2.0, 4.0, 0.25];
    let unit = box_diameters(&[-1.0; 4], &[1.0; 4], &c4).unwrap();
    assert_rel(unit.diam_2, 4.0, 1e-15, "2 sqrt d");
    assert_eq!(unit.diam_inf, 2.0);
    assert_rel(unit.diam_c_inv, 2.0 * trace_c_inv(&c4).unwrap().sqrt(), 1e-15, "2 sqrt tr C^-1");
    assert_eq!(trace_c_inv(&c4).unwrap(), 1.0 + 0.5 + 0.25 + 4.0);
    assert_rel(trace_c_inv_sqrt(&c4).unwrap(), 1.0 + 0.5f64.sqrt() + 0.5 + 2.0, 1e-15, "tr C^-1/2");

    let (r, cb) = (1.5, [2.0, 0.5, 8.0]);
    let ball = l2_ball_diameters(r, &cb).unwrap();
    assert_eq!((ball.diam_2, ball.diam_inf), (3.0, 3.0));
    assert_rel(ball.diam_c_inv, 2.0 * r / 0.5f64.sqrt(), 1e-15, "ball DCi attained at e_2");
    let mut rng = Seeds::new(1).stream(Stream::Data);
    for _ in 0..2000 {
        let mut v = vec![0.0; 3];
        noise::add_gaussian(&mut rng, &mut v, 1.0).unwrap();
        let nv = v.iter().map(|a| a * a).sum::<f64>().sqrt();
        let dist = v.iter().zip(&cb).map(|(a, c)| (2.0 * r * a / nv).powi(2) / c).sum::<f64>().sqrt();
        assert!(dist <= ball.diam_c_inv * (1.0 + 1e-14));
    }
}

/// `G(z; C) = ‖z‖_C`, `Ĝ_p` (eq. 4) and the radial clipping bias on two rows, by hand:
/// `‖(3, 4)‖_I = 5`, `‖(0, 1)‖_{diag(1,4)} = 2`; `Ĝ₁ = 3.5`, `Ĝ₂ = √14.5`, `Ĝ∞ = 5`;
/// bias at B = 3 is `((5 − 3) + 0)/2 = 1`; Lemma B.1's bound at p = 2 is `Ĝ₂²/(1·3) = 14.5/3`.
/// `Ĝ_p` is scale-equivariant even where `Gᵢ^p` overflows (the scaled evaluation).
/// Mutant: the bias as `(1/n) Σ Gᵢ 1{Gᵢ > B}` (dropping instead of clipping) gives 2.5, not 1.
#[test]
fn moments_and_clipping_bias_match_hand_values() {
    assert_eq!(glm_gradient_bound_g(&[3.0, 4.0], &[1.0, 1.0]).unwrap(), 5.0);
    assert_eq!(glm_gradient_bound_g(&[0.0, 1.0], &[1.0, 4.0]).unwrap(), 2.0);
    let g = [5.0, 2.0];
    assert_rel(empirical_moment_g_hat(&g, 1.0).unwrap(), 3.5, 1e-15, "G_1");
    assert_rel(empirical_moment_g_hat(&g, 2.0).unwrap(), 14.5f64.sqrt(), 1e-15, "G_2");
    assert_eq!(empirical_moment_g_hat(&g, f64::INFINITY).unwrap(), 5.0);
    assert_eq!(radial_clipping_bias(&g, 3.0).unwrap(), 1.0);
    assert_rel(radial_clipping_bias_bound(14.5f64.sqrt(), 2.0, 3.0).unwrap(), 14.5 / 3.0, 1e-15, "B.1 bound");
    let dropped: f64 = g.iter().filter(|v| **v > 3.0).sum::<f64>() / 2.0;
    assert_eq!(dropped, 2.5);

    // rows through the GLM norms, with a C that is not the identity
    let rows = [vec![3.0, 2.0], vec![0.0, 1.0]];
    let c = [1.0, 4.0];
    // ‖(3,2)‖_C = √(9+16) = 5, ‖(0,1)‖_C = 2
    assert_eq!(glm_gradient_bounds(&rows, &c).unwrap(), [5.0, 2.0]);
    assert_eq!(radial_clipping_bias(&glm_gradient_bounds(&rows, &c).unwrap(), 3.0).unwrap(), 1.0);

    let big = [1e200, 3e200];
    let p = 7.0;
    let scaled = empirical_moment_g_hat(&[1.0, 3.0], p).unwrap() * 1e200;
    assert_rel(empirical_moment_g_hat(&big, p).unwrap(), scaled, 1e-14, "no overflow");
}

// ---------------------------------------------------------------------------------------------
// O8: Lemma B.1
// ---------------------------------------------------------------------------------------------

/// The sharp constant for the radial clipping bias: pointwise, `(y − B)₊ ≤ κ_p·y^p/B^{p−1}` with
/// `κ_p = (p − 1)^{p−1}/p^p` (equality at `y = Bp/(p − 1)`), so on every empirical measure
/// `bias ≤ κ_p Ĝ_p^p/B^{p−1} ≤ Ĝ_p^p/((p − 1)B^{p−1})` (Lemma B.1; its constant is loose by
/// `(p/(p−1))^p ≥ e`).
fn sharp_bias_bound(g_hat_p: f64, p: f64, b: f64) -> f64 {
    (p - 1.0).powf(p - 1.0) / p.powf(p) * b * (g_hat_p / b).powf(p)
}

/// Lemma B.1 for the radial projection on heavy-tailed samples (O8). Why this is deterministic:
/// the lemma holds for *every* law of `X` with `(E‖X‖_C^p)^{1/p} ≤ G`, because
/// `E(‖X‖_C − B)₊ = ∫_B^∞ P(‖X‖_C > t) dt ≤ ∫_B^∞ G^p t^{−p} dt` (Markov). The empirical measure
/// of a sample is such a law with `G = Ĝ_p(S; C)` exactly, so once the sample is drawn both sides
/// are numbers and the inequality must hold for that sample, whatever the seed; no tail
/// probability is involved. Samples: Pareto norms (tail index 1.5 and 2.5, so `p` above and
/// below the tail index) and Student-t(3) feature rows through the GLM functions, for
/// p ∈ {1.2, 1.5, 2, 3, 4} and several B; the radial projection is applied explicitly and its
/// exact bias `(1/n) Σ ‖gᵢ − π(gᵢ)‖_C` equals [`radial_clipping_bias`] (identity P5).
/// Mutant: see `lemma_b1_two_point_sample_attains_the_sharp_ratio`.
#[test]
fn lemma_b1_radial_bias_within_bound_on_heavy_tailed_samples() {
    let ps = [1.2, 1.5, 2.0, 3.0, 4.0];
    let mut rng = Seeds::new(2).stream(Stream::Data);
    for shape in [1.5, 2.5] {
        let pareto = Pareto::new(1.0, shape).unwrap();
        let g: Vec<f64> = (0..20_000).map(|_| pareto.sample(&mut rng)).collect();
        for b in [1.0, 2.0, 5.0, 20.0] {
            let bias = radial_clipping_bias(&g, b).unwrap();
            assert!(bias > 0.0);
            for p in ps {
                let gp = empirical_moment_g_hat(&g, p).unwrap();
                let bound = radial_clipping_bias_bound(gp, p, b).unwrap();
                let sharp = sharp_bias_bound(gp, p, b);
                assert!(bias <= sharp * (1.0 + 1e-12), "pareto {shape} B {b} p {p}: {bias} > sharp {sharp}");
                assert!(sharp <= bound * (1.0 + 1e-12), "sharp {sharp} > lemma {bound}");
            }
        }
    }
    // Student-t(3) feature rows with coordinate scales, and a non-identity C.
    let t3 = StudentT::new(3.0).unwrap();
    let scales = [1.0, 0.5, 0.25, 2.0, 0.1];
    let c = [1.0, 4.0, 16.0, 0.25, 100.0];
    let rows: Vec<Vec<f64>> = (0..10_000).map(|_| scales.iter().map(|s| s * t3.sample(&mut rng)).collect()).collect();
    for b in [1.0, 3.0, 10.0] {
        let mut exact = 0.0;
        for z in &rows {
            let norm = z.iter().zip(&c).map(|(v, c)| c * v * v).sum::<f64>().sqrt();
            let projected: Vec<f64> = z.iter().map(|v| v * (b / norm).min(1.0)).collect();
            exact += z.iter().zip(&projected).zip(&c).map(|((v, w), c)| c * (v - w) * (v - w)).sum::<f64>().sqrt();
        }
        exact /= rows.len() as f64;
        let norms = glm_gradient_bounds(&rows, &c).unwrap();
        let bias = radial_clipping_bias(&norms, b).unwrap();
        assert_rel(bias, exact, 1e-12, "radial projection bias = (||z||_C - B)_+");
        assert!(bias > 0.0);
        for p in ps {
            let gp = empirical_moment_g_hat(&norms, p).unwrap();
            let bound = radial_clipping_bias_bound(gp, p, b).unwrap();
            assert!(bias <= sharp_bias_bound(gp, p, b) * (1.0 + 1e-12), "t3 B {b} p {p}");
            assert!(bias <= bound, "t3 B {b} p {p}: {bias} > {bound}");
        }
    }
}

/// A two-point empirical measure (nine zeros and one `y = Bp/(p − 1)`) attains the sharp ratio:
/// `bias/bound = ((p − 1)/p)^p` exactly, which pins the value of [`radial_clipping_bias_bound`]
/// (any change of its formula moves the ratio). Mutant: `B^p` in place of `B^{p−1}` (bound
/// divided by B) fails Lemma B.1 on this sample at B = 10, p = 1.5 (ratio 1.92).
#[test]
fn lemma_b1_two_point_sample_attains_the_sharp_ratio() {
    for (p, b) in [(1.5, 10.0), (2.0, 1.0), (3.0, 0.3), (6.0, 2.0)] {
        let mut g = vec![0.0; 9];
        g.push(b * p / (p - 1.0));
        let bias = radial_clipping_bias(&g, b).unwrap();
        let bound = radial_clipping_bias_bound(empirical_moment_g_hat(&g, p).unwrap(), p, b).unwrap();
        assert_rel(bias / bound, ((p - 1.0) / p).powf(p), 1e-12, "sharp ratio");
    }
    let (p, b) = (1.5, 10.0);
    let mut g = vec![0.0; 9];
    g.push(b * p / (p - 1.0));
    let bias = radial_clipping_bias(&g, b).unwrap();
    let mutant = radial_clipping_bias_bound(empirical_moment_g_hat(&g, p).unwrap(), p, b).unwrap() / b;
    assert!(bias > mutant, "mutant B^p passes: {bias} <= {mutant}");
}

// ---------------------------------------------------------------------------------------------
// N3: noise energy
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// `s² tr(A⁻¹) = s² B² tr(C⁻¹)` for `A = C/B²` (eq. 17): the two functions agree.
    #[test]
    fn prop_noise_energy_gap_in_a_equals_gap_in_c(
        c in prop::collection::vec(log_uniform(1e-3, 1e3), 1..20), s in 0.0f64..10.0, b in log_uniform(1e-3, 1e3),
    ) {
        let a: Vec<f64> = c.iter().map(|c| c / (b * b)).collect();
        let in_c = noise_energy_gap(s, b, &c).unwrap();
        let in_a = noise_energy_gap_from_a(s, &a).unwrap();
        prop_assert!((in_c - in_a).abs() <= 1e-13 * in_c.max(1e-300), "{} vs {}", in_c, in_a);
    }
}

/// N3 by Monte Carlo, exactly: with `g̃ = 0` and an isotropic `C = cI` (d = 4), the noise
/// `s·ξ`, `ξⱼ = B·c^{−1/2}·wⱼ`, drawn with the crate's diagonal Gaussian (PASAN's noise), gives
/// `‖ĝ‖₂² − ‖g̃‖₂² = s²‖ξ‖²`, and over N = 50 000 draws `Σᵢ s²‖ξᵢ‖²·d/gap ~ χ²_{Nd}` exactly when
/// `gap = s²B² tr(C⁻¹)` is right (isotropic, so that the statistic is an exact χ²; the
/// non-isotropic identity is the property test above). Region: two-sided exact χ² quantiles at
/// α = 1e-6 (≈ Nd ± 4.9·√(2Nd), i.e. ±1.6 %). Power twin: the gap without B² (a whitening bug,
/// `tr(C⁻¹)` for `tr(A⁻¹)`) puts the same draws at 2.25× the mean, far outside.
#[test]
fn stat_noise_energy_gap_matches_monte_carlo() {
    let (s, b, c0, d, n) = (0.7, 1.5, 2.5, 4usize, 50_000usize);
    let c = vec![c0; d];
    let gap = noise_energy_gap(s, b, &c).unwrap();
    let stds: Vec<f64> = c.iter().map(|c| s * b / c.sqrt()).collect();
    let mut rng = Seeds::new(3).stream(Stream::Noise);
    let mut energy = 0.0;
    for _ in 0..n {
        let mut g_hat = vec![0.0; d];
        noise::add_gaussian_diagonal(&mut rng, &mut g_hat, &stds).unwrap();
        energy += g_hat.iter().map(|v| v * v).sum::<f64>();
    }
    let (lo, hi) = chi_square_interval((n * d) as u64, ALPHA);
    let stat = energy * d as f64 / gap;
    assert!(lo <= stat && stat <= hi, "{lo} <= {stat} <= {hi}");
    let mutant_gap = s * s * trace_c_inv(&c).unwrap();
    let mutant = energy * d as f64 / mutant_gap;
    assert!(!(lo <= mutant && mutant <= hi), "gap without B^2 passes: {mutant}");
}

// ---------------------------------------------------------------------------------------------
// Bad parameters
// ---------------------------------------------------------------------------------------------

/// Every public function refuses bad parameters with a typed error: `InvalidParameter` for values
/// outside their domain (NaN, ±∞, negative, p ≤ 1, mismatched lengths, violated hypotheses),
/// `NonFinite` for non-finite data, `Empty` for empty data.
#[test]
fn bad_parameters_return_typed_errors() {
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    macro_rules! invalid {
        ($e:expr) => {
            assert!(matches!($e, Err(Error::InvalidParameter { .. })), "{}: {:?}", stringify!($e), $e)
        };
    }
    macro_rules! non_finite {
        ($e:expr) => {
            assert!(matches!($e, Err(Error::NonFinite { .. })), "{}: {:?}", stringify!($e), $e)
        };
    }
    macro_rules! empty {
        ($e:expr) => {
            assert!(matches!($e, Err(Error::Empty { .. })), "{}: {:?}", stringify!($e), $e)
        };
    }
    let c = [1.0, 2.0];
    // diameters and traces
    invalid!(box_diameters(&[0.0, 1.0], &[1.0, 0.0], &c));
    invalid!(box_diameters(&[0.0], &[1.0, 2.0], &c));
    invalid!(box_diameters(&[0.0, 0.0], &[1.0, 1.0], &[1.0, 0.0]));
    invalid!(box_diameters(&[0.0, 0.0], &[1.0, 1.0], &[1.0, nan]));
    invalid!(box_diameters(&[0.0, 0.0], &[1.0, 1.0], &[1.0]));
    non_finite!(box_diameters(&[0.0, -inf], &[1.0, 1.0], &c));
    empty!(box_diameters(&[], &[], &[]));
    for r in [0.0, -1.0, nan, inf] {
        invalid!(l2_ball_diameters(r, &c));
    }
    invalid!(trace_c_inv(&[1.0, -2.0]));
    invalid!(trace_c_inv_sqrt(&[inf]));
    empty!(trace_c_inv(&[]));
    // moments and bias
    invalid!(glm_gradient_bound_g(&[1.0], &c));
    non_finite!(glm_gradient_bound_g(&[1.0, nan], &c));
    for p in [0.5, nan, -inf] {
        invalid!(empirical_moment_g_hat(&[1.0], p));
    }
    invalid!(empirical_moment_g_hat(&[-1.0], 2.0));
    empty!(empirical_moment_g_hat(&[], 2.0));
    invalid!(glm_gradient_bounds(&[vec![1.0, 2.0], vec![1.0]], &c));
    invalid!(glm_gradient_bounds(&[vec![1.0, 2.0, 3.0]], &c));
    non_finite!(glm_gradient_bounds(&[vec![1.0, inf]], &c));
    empty!(glm_gradient_bounds::<Vec<f64>>(&[], &c));
    for b in [0.0, -1.0, nan, inf] {
        invalid!(radial_clipping_bias(&[1.0], b));
        invalid!(radial_clipping_bias_bound(1.0, 2.0, b));
    }
    for p in [1.0, 0.5, nan, inf] {
        invalid!(radial_clipping_bias_bound(1.0, p, 1.0));
    }
    invalid!(radial_clipping_bias_bound(-1.0, 2.0, 1.0));
    // Lemma B.2
    empty!(lemma_b2_sides(&[]));
    non_finite!(lemma_b2_sides(&[1.0, nan]));
    // pathwise
    let gs = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
    let xs = vec![vec![0.0, 0.0], vec![0.5, 0.0]];
    let u = [1.0, 1.0];
    invalid!(adagrad_norm_sgd_pathwise_regret(&gs, &xs[..1], &u, 3.0, 1.0));
    invalid!(adagrad_norm_sgd_pathwise_regret(&gs, &xs, &[1.0], 3.0, 1.0));
    invalid!(adagrad_norm_sgd_pathwise_regret(&gs, &xs, &u, 1.0, 1.0)); // ‖x⁰ − u‖₂ = √2 > 1
    invalid!(diagonal_adagrad_pathwise_regret(&gs, &xs, &u, 0.9, 1.0)); // ‖x⁰ − u‖∞ = 1 > 0.9
    for a in [0.0, -1.0, nan, inf] {
        invalid!(adagrad_norm_sgd_pathwise_regret(&gs, &xs, &u, 3.0, a));
        invalid!(diagonal_adagrad_pathwise_regret(&gs, &xs, &u, 3.0, a));
    }
    invalid!(diagonal_adagrad_pathwise_regret(&gs, &xs, &u, nan, 1.0));
    invalid!(diagonal_adagrad_pathwise_regret(&gs, &xs, &u, -1.0, 1.0));
    non_finite!(diagonal_adagrad_pathwise_regret(&[vec![nan, 0.0], vec![0.0, 1.0]], &xs, &u, 3.0, 1.0));
    empty!(diagonal_adagrad_pathwise_regret::<Vec<f64>, Vec<f64>>(&[], &[], &u, 3.0, 1.0));
    // explicit forms: `explicit_bounds_refuse_bad_inputs` in bounds_adaptive_noise_rates.rs
    // printed rates and tuned B
    let s = RateSetting {
        ellipsoid_c: &c,
        dataset_size_n: 100,
        epsilon: 1.0,
        delta: 1e-5,
        moment_g_2p: 1.0,
        moment_order_p: 2.0,
        diam_c_inv: 1.0,
    };
    let run = RateRun { diam: 1.0, steps_t: 10, gradient_statistic: 1.0 };
    assert!(pasan_rate_printed_unit_constant(&s, &run, 1.0).is_ok());
    for bad in [
        RateSetting { dataset_size_n: 0, ..s },
        RateSetting { epsilon: 0.0, ..s },
        RateSetting { delta: 1.0, ..s },
        RateSetting { delta: nan, ..s },
        RateSetting { moment_g_2p: -1.0, ..s },
        RateSetting { moment_order_p: 1.0, ..s },
        RateSetting { moment_order_p: inf, ..s },
        RateSetting { diam_c_inv: 0.0, ..s },
        RateSetting { ellipsoid_c: &[1.0, 0.0], ..s },
    ] {
        invalid!(pasan_rate_printed_unit_constant(&bad, &run, 1.0));
        invalid!(pagan_rate_printed_unit_constant(&bad, &run, 1.0));
        invalid!(pasan_tuned_clip_radius(&bad, 1.0));
        invalid!(pagan_tuned_clip_radius(&bad, 1.0));
        invalid!(pasan_tuned_rate_printed_unit_constant(&bad, &run));
        invalid!(pagan_tuned_rate_printed_unit_constant(&bad, &run));
    }
    invalid!(pasan_rate_printed_unit_constant(&s, &RateRun { diam: 0.0, ..run }, 1.0));
    invalid!(pasan_rate_printed_unit_constant(&s, &RateRun { steps_t: 0, ..run }, 1.0));
    invalid!(pasan_rate_printed_unit_constant(&s, &RateRun { gradient_statistic: -1.0, ..run }, 1.0));
    invalid!(pagan_rate_printed_unit_constant(&s, &run, nan));
    invalid!(pagan_tuned_clip_radius(&s, -1.0));
    invalid!(pasan_tuned_rate_printed_unit_constant(&s, &RateRun { gradient_statistic: nan, ..run }));
    // noise energy, Hölder, Thm. 3, lower bounds
    invalid!(noise_energy_gap(-1.0, 1.0, &c));
    invalid!(noise_energy_gap(1.0, 0.0, &c));
    invalid!(noise_energy_gap_from_a(1.0, &[0.0]));
    empty!(noise_energy_gap_from_a(1.0, &[]));
    invalid!(holder_chain(&[1.0, -1.0]));
    non_finite!(holder_chain(&[nan]));
    invalid!(second_moment_rounds(0));
    invalid!(second_moment_band(1.5, 4));
    invalid!(second_moment_band(nan, 4));
    invalid!(second_moment_band(0.5, 0));
    invalid!(second_moment_band_printed(-0.1, 4));
    invalid!(second_moment_estimates_in_band(&[0.5, 0.5], &[0.5, 0.25])); // max σ ≠ 1
    invalid!(second_moment_estimates_in_band(&[0.5], &[1.0, 0.5]));
    invalid!(second_moment_estimates_in_band(&[0.0, 0.5], &[1.0, 0.5]));
    invalid!(c_hat_from_sigma_hat(&[0.5, 0.0], 1.0));
    invalid!(c_hat_from_sigma_hat(&[0.5], 0.0));
    invalid!(c_hat_from_sigma_hat(&[0.5], nan));
    invalid!(linf_box_lower_bound(&[1.0], 100, 1.0, 1.0)); // d = 1
    invalid!(linf_box_lower_bound(&[1.0, 1.0], 100, 1.0, 0.0));
    invalid!(l2_ball_lower_bound(&[1.0, 1.0], 0, 1.0, 1.0));
    invalid!(l2_ball_lower_bound(&[1.0, 1.0], 100, nan, 1.0));
    invalid!(linear_box_excess(&[0.5], &[1.0, 2.0]));
    non_finite!(sign_error(&[0.5], &[nan]));
}

/// Every public \[ADFJT\] bound fed extreme finite inputs (entries and parameters 1e-300 …
/// 1e300 of either sign where allowed) returns an `Err` or finite values, never ∞/NaN in `Ok`
/// (structs: every field). E.g. `trace_c_inv(&[1e-308, 1e-308])` (2e308) was `Ok(∞)`.
#[test]
fn prop_extreme_finite_inputs_never_give_a_non_finite_ok() {
    assert!(matches!(trace_c_inv(&[1e-308, 1e-308]), Err(Error::Numerical { .. })));
    let pos = EXTREME_POSITIVE;
    for &x in &pos {
        for &y in &pos {
            let c = [x, y];
            let v = [y, -x];
            finite_or_err(glm_gradient_bound_g(&v, &c), scalar, "glm_gradient_bound_g");
            finite_or_err(empirical_moment_g_hat(&[x, y], 1.0 + x.min(1e10)), scalar, "empirical_moment_g_hat");
            finite_or_err(radial_clipping_bias(&[x, y], x), scalar, "radial_clipping_bias");
            finite_or_err(radial_clipping_bias_bound(y, 1.0 + x.min(1e10), x), scalar, "clipping bias bound");
            finite_or_err(box_diameters(&[-y, -x], &[y, x], &c), |d| vec![d.diam_2, d.diam_inf, d.diam_c_inv], "box");
            finite_or_err(l2_ball_diameters(y, &c), |d| vec![d.diam_2, d.diam_inf, d.diam_c_inv], "l2 ball");
            finite_or_err(trace_c_inv(&c), scalar, "trace_c_inv");
            finite_or_err(trace_c_inv_sqrt(&c), scalar, "trace_c_inv_sqrt");
            let h = |h: &HolderChain| vec![h.sqrt_d_times_sum, h.two_thirds_power_sum, h.sum];
            finite_or_err(holder_chain(&[y, y, x]), h, "holder_chain");
            finite_or_err(lemma_b2_sides(&[y, -y, x]), |s| vec![s.lhs, s.rhs], "lemma_b2_sides");
            finite_or_err(linf_box_lower_bound(&[y, x], u64::MAX, x, y), scalar, "linf_box_lower_bound");
            finite_or_err(l2_ball_lower_bound(&[y, x], 2, x, y), scalar, "l2_ball_lower_bound");
            finite_or_err(linear_box_excess(&[1.0, -1.0], &[y, -y]), scalar, "linear_box_excess");
            finite_or_err(sign_error(&[1.0, -1.0], &[-y, y]), scalar, "sign_error");
            finite_or_err(noise_energy_gap(y, y, &c), scalar, "noise_energy_gap");
            finite_or_err(noise_energy_gap_from_a(y, &c), scalar, "noise_energy_gap_from_a");
            finite_or_err(c_hat_from_sigma_hat(&[x, y], x), |v| v.clone(), "c_hat_from_sigma_hat");
            let g = [vec![y, -y], vec![x, y]];
            let it = [vec![0.0, 0.0], vec![0.5, -0.5]];
            let r = |r: &PathwiseRegret| vec![r.regret, r.energy, r.bound_corrected, r.bound_printed];
            finite_or_err(adagrad_norm_sgd_pathwise_regret(&g, &it, &[0.0, 0.0], 1.0, x), r, "adagrad-norm regret");
            finite_or_err(diagonal_adagrad_pathwise_regret(&g, &it, &[0.0, 0.0], 1.0, x), r, "diagonal regret");
        }
    }
}
