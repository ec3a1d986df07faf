//! Tests of `dpref::bounds::adaptive_noise` ([ADFJT], notes §4.8 and §6: O10, O11): the Hölder
//! chain that orders the privacy factors, and the lower bounds of Thms. 4 and 5 with the
//! reduction of Thm. 4.

mod common;

use common::box_adagrad::log_uniform;
use common::check::assert_rel;
use dpref::Error;
use dpref::bounds::adaptive_noise::*;
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------------
// O10: Hölder chain
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// `√d Σσ ≥ (Σσ^{2/3})^{3/2} ≥ Σσ` for random `σ ∈ ℝ₊^d` (zeros and six orders of magnitude
    /// included), each member matching its formula.
    #[test]
    fn prop_holder_chain_holds_for_random_sigma(
        sigma in prop::collection::vec(prop_oneof![1 => Just(0.0), 9 => log_uniform(1e-3, 1e3)], 1..60),
    ) {
        let h = holder_chain(&sigma).unwrap();
        let sum: f64 = sigma.iter().sum();
        prop_assert!((h.sum - sum).abs() <= 1e-13 * sum.max(1e-300));
        prop_assert!((h.sqrt_d_times_sum - (sigma.len() as f64).sqrt() * sum).abs() <= 1e-13 * h.sqrt_d_times_sum.max(1e-300));
        prop_assert!(h.sqrt_d_times_sum >= h.two_thirds_power_sum * (1.0 - 1e-12), "{:?}", h);
        prop_assert!(h.two_thirds_power_sum >= h.sum * (1.0 - 1e-12), "{:?}", h);
    }
}

/// The paper's example (Sec. 3.2, notes §4.8): d = 100, `σⱼ = j^{−3/2}` gives
/// `24.13 ≥ 11.81 ≥ 2.41` with `Σ σⱼ^{2/3} = H₁₀₀ = 5.187`; equality at the ends of the chain for
/// constant σ (first) and a single non-zero σ (second). Mutant: the exponents swapped,
/// `(Σσ^{3/2})^{2/3}`, falls below `Σσ` on the example.
#[test]
fn holder_chain_matches_the_paper_example_and_equality_cases() {
    let sigma: Vec<f64> = (1..=100).map(|j| (j as f64).powf(-1.5)).collect();
    let h = holder_chain(&sigma).unwrap();
    let h100: f64 = (1..=100).map(|j| 1.0 / j as f64).sum();
    assert!((h100 - 5.187).abs() < 5e-4);
    assert_rel(h.two_thirds_power_sum, h100.powf(1.5), 1e-13, "H_100^(3/2)");
    for (x, printed) in [(h.sqrt_d_times_sum, 24.13), (h.two_thirds_power_sum, 11.81), (h.sum, 2.41)] {
        assert!((x - printed).abs() < 0.005, "{x} vs {printed}");
    }
    let swapped = sigma.iter().map(|s| s.powf(1.5)).sum::<f64>().powf(2.0 / 3.0);
    assert!(swapped < h.sum);
    let flat = holder_chain(&[0.3; 9]).unwrap();
    assert_rel(flat.sqrt_d_times_sum, flat.two_thirds_power_sum, 1e-14, "equality, constant sigma");
    let single = holder_chain(&[0.0, 2.0, 0.0]).unwrap();
    assert_rel(single.two_thirds_power_sum, single.sum, 1e-15, "equality, one non-zero");
}

// ---------------------------------------------------------------------------------------------
// O11 and Theorems 4, 5
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The reduction of Thm. 4's proof: for `x ∈ [−1, 1]^d`,
    /// `f(x) − f(x*) = ‖z̄‖₁ − xᵀz̄ ≥ Σⱼ |z̄ⱼ| 1{sign xⱼ ≠ sign z̄ⱼ}` (zeros in x and z̄ included,
    /// `sign 0 = 0`), and the excess equals `f(x) − f(x*)` with `f = −xᵀz̄`, `x* = sign(z̄)`.
    /// Mutant: x outside the box (`linf_reduction_needs_the_box`).
    #[test]
    fn prop_linf_reduction_excess_dominates_sign_error(
        xz in prop::collection::vec((prop_oneof![1 => Just(0.0), 4 => -1.0f64..=1.0], prop_oneof![1 => Just(0.0), 4 => -5.0f64..5.0]), 1..30),
    ) {
        let (x, z): (Vec<f64>, Vec<f64>) = xz.into_iter().unzip();
        let excess = linear_box_excess(&x, &z).unwrap();
        let err = sign_error(&x, &z).unwrap();
        let scale: f64 = z.iter().map(|v| v.abs()).sum();
        prop_assert!(excess >= err - 1e-12 * scale, "{} < {}", excess, err);
        let f = |x: &[f64]| -x.iter().zip(&z).map(|(a, b)| a * b).sum::<f64>();
        let x_star: Vec<f64> = z.iter().map(|v| if *v > 0.0 { 1.0 } else if *v < 0.0 { -1.0 } else { 0.0 }).collect();
        prop_assert!((excess - (f(&x) - f(&x_star))).abs() <= 1e-12 * scale.max(1e-300));
    }
}

/// The box is needed: with `x = 1.5` and `z̄ = 1` (same sign) the excess `1 − 1.5 < 0` is below
/// the sign error 0, and the functions refuse such an `x`. Hand values: `x = (0, −0.5, 1)`,
/// `z̄ = (2, 1, −3)`: excess `2 + 1.5 + 6 = 9.5`, sign error `2 + 1 + 3 = 6`.
#[test]
fn linf_reduction_needs_the_box() {
    let (x, z) = ([1.5], [1.0]);
    let excess = z[0] - x[0] * z[0];
    assert!(excess < 0.0);
    assert!(matches!(linear_box_excess(&x, &z), Err(Error::InvalidParameter { .. })));
    assert!(matches!(sign_error(&x, &z), Err(Error::InvalidParameter { .. })));
    assert_eq!(linear_box_excess(&[0.0, -0.5, 1.0], &[2.0, 1.0, -3.0]).unwrap(), 9.5);
    assert_eq!(sign_error(&[0.0, -0.5, 1.0], &[2.0, 1.0, -3.0]).unwrap(), 6.0);
}

/// Thms. 4 and 5 by hand: `σ = (1, 1/8, 1/27)` (`Σσ^{2/3} = 1 + 1/4 + 1/9`), n = 100, ε = 1,
/// c = 0.5; both are 1-homogeneous in σ, refuse inputs where their hypotheses
/// (`√d log d ≤ nε`, `√d ≤ nε`) fail, and Thm. 4's numerator dominates Thm. 5's (Hölder).
#[test]
fn lower_bounds_match_their_formulas_and_hypotheses() {
    let sigma = [1.0, 1.0 / 8.0, 1.0 / 27.0];
    let l3 = 3f64.ln();
    let four = linf_box_lower_bound(&sigma, 100, 1.0, 0.5).unwrap();
    assert_rel(four, 0.5 * (1.0f64 + 0.25 + 1.0 / 9.0).powf(1.5) / (100.0 * l3.powf(2.5)), 1e-14, "Thm 4");
    let five = l2_ball_lower_bound(&sigma, 100, 1.0, 0.5).unwrap();
    assert_rel(five, 0.5 * (1.0 + 1.0 / 8.0 + 1.0 / 27.0) / (100.0 * l3), 1e-14, "Thm 5");
    let scaled: Vec<f64> = sigma.iter().map(|s| 3.0 * s).collect();
    assert_rel(linf_box_lower_bound(&scaled, 100, 1.0, 0.5).unwrap(), 3.0 * four, 1e-14, "homogeneous 4");
    assert_rel(l2_ball_lower_bound(&scaled, 100, 1.0, 0.5).unwrap(), 3.0 * five, 1e-14, "homogeneous 5");
    assert!(four * l3.powf(2.5) >= five * l3);
    // d = 3: √3·ln 3 = 1.90 and √3 = 1.73, so at nε = 1.5 both hypotheses fail
    assert!(matches!(linf_box_lower_bound(&sigma, 1, 1.5, 1.0), Err(Error::InvalidParameter { .. })));
    assert!(matches!(l2_ball_lower_bound(&sigma, 1, 1.5, 1.0), Err(Error::InvalidParameter { .. })));
    // nε = 1.8: Thm. 5's hypothesis holds, Thm. 4's does not
    assert!(matches!(linf_box_lower_bound(&sigma, 1, 1.8, 1.0), Err(Error::InvalidParameter { .. })));
    assert!(l2_ball_lower_bound(&sigma, 1, 1.8, 1.0).is_ok());
}
