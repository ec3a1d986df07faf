//! anchors C4 (float sensitivity underestimation, Casacuberta et al. 2022, arXiv 2207.10635):
//! the sum of clipped per-example vectors, computed in floating point through the crate's one
//! clip (`geometry::clip_l2`, used by `Model::clipped_gradient_sum`) and its `linalg::axpy`,
//! must move by at most C (up to a derived rounding allowance) when one record is added at any
//! position, for adversarial float inputs: coordinates that overflow the sum of squares (up to
//! `f64::MAX`), that underflow it (1e-170, subnormals), ±∞ and NaN, and clip norms C from 1e-300
//! to 1e300.
//!
//! Allowance (Higham, *Accuracy and Stability*, §4.2, recursive summation from 0): each clipped
//! vector has norm ≤ C(1 + η), η = (d + 4)u (the norm, the factor C/‖x‖ and the product, u =
//! 2⁻⁵³); a float sum of m such vectors is within γ_{m−1}·Σ‖aᵢ‖₂ ≤ γ_{m−1}·m·C(1 + η) of the exact
//! sum (coordinate-wise bound, then the triangle inequality); products that underflow add at most
//! 2⁻¹⁰⁷⁵ per coordinate and record. So with n records and one added,
//! `‖fl(S′) − fl(S)‖₂ ≤ C(1 + η)(1 + 2γ_n(n + 1)) + 2(n + 1)d·2⁻¹⁰⁷⁴`, and our measuring norm
//! (scaled by the largest entry) adds (d + 2)u relative. For n ≤ 40 this is C·(1 + 2e-13): a
//! clip that is off by more than that anywhere fails.
//!
//! What fails: a clip factor that is allowed to be subnormal (`C/‖x‖` with ‖x‖ = 1e307, C =
//! 3.46e-17 rounds to 4.94e-324, clipping to 1.43·C — the case `clip_scale` maps to 0;
//! `subnormal_clip_factor_is_not_applied` checks it deterministically); a norm computed as
//! `√Σx²` without scaling (1e-170 coordinates: Σx² = 0, the vector passes unclipped when C is
//! 1e-175); a NaN or ∞ record let through (the difference is NaN or ∞). Checked by mutation
//! (2026-11): the textbook clip `x·C/√Σx²` fails at once (NaN); the same with non-finite norms
//! zeroed and subnormal factors refused still fails on the underflow (a d = 1 record of norm
//! 8.7e-182 moved the sum by 1.000001·C).

use dpref::geometry::clip_l2;
use dpref::linalg::axpy;
use proptest::collection::vec;
use proptest::prelude::*;

mod common;

const U: f64 = f64::EPSILON / 2.0;

fn config() -> ProptestConfig {
    common::strategies::fixed_seed_config(256, 0x6334_636c_6970)
}

/// An adversarial coordinate: magnitudes across the whole f64 range, specials included.
fn coordinate() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => (-300.0..300.0f64, any::<bool>()).prop_map(|(e, s)| if s { 10f64.powf(e) } else { -10f64.powf(e) }),
        1 => Just(f64::MAX),
        1 => Just(-f64::MAX / 3.0),
        1 => Just(1e-170),
        1 => Just(5e-324),
        1 => Just(-2.2e-308),
        1 => Just(0.0),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NAN),
    ]
}

/// The clipped sum of `records` in order, as the crate computes it.
fn clipped_sum(records: &[Vec<f64>], c: f64, d: usize) -> Vec<f64> {
    let mut out = vec![0.0; d];
    for r in records {
        let mut g = r.clone();
        clip_l2(&mut g, c);
        axpy(1.0, &g, &mut out);
    }
    out
}

/// ‖x‖₂ scaled by the largest entry (no overflow or underflow of the squares).
fn norm(x: &[f64]) -> f64 {
    let m = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * x.iter().map(|v| (v / m) * (v / m)).sum::<f64>().sqrt()
}

/// The allowance of the module doc.
fn allowance(c: f64, n: usize, d: usize) -> f64 {
    let gamma = |k: f64| k * U / (1.0 - k * U);
    let (n, d) = (n as f64, d as f64);
    (c * (1.0 + (d + 4.0) * U) * (1.0 + 2.0 * gamma(n) * (n + 1.0)) + 2.0 * (n + 1.0) * d * 2f64.powi(-1074))
        * (1.0 + (d + 2.0) * U)
}

proptest! {
    #![proptest_config(config())]

    /// Adding one record at any position moves the float clipped sum by at most C(1 + tiny).
    #[test]
    fn prop_clipped_sum_sensitivity_is_c_for_adversarial_floats(
        d in 1usize..6,
        records in vec(vec(coordinate(), 6), 0..40),
        extra in vec(coordinate(), 6),
        at in 0usize..=40,
        c_exp in -300.0..300.0f64,
    ) {
        let c = 10f64.powf(c_exp);
        let records: Vec<Vec<f64>> = records.into_iter().map(|r| r[..d].to_vec()).collect();
        let mut neighbour = records.clone();
        neighbour.insert(at.min(records.len()), extra[..d].to_vec());
        let (s, s2) = (clipped_sum(&records, c, d), clipped_sum(&neighbour, c, d));
        let diff: Vec<f64> = s.iter().zip(&s2).map(|(a, b)| b - a).collect();
        let moved = norm(&diff);
        let bound = allowance(c, records.len(), d);
        prop_assert!(moved <= bound, "moved {moved:e} > allowance {bound:e} (C = {c:e}, n = {}, d = {d})", records.len());
    }
}

/// The deterministic case of the module doc: ‖x‖ = 1e307 and C = 3.46e-17 give a subnormal
/// factor C/‖x‖ ≈ 3.46e-324 that rounds to 4.94e-324 (a clipped norm of 1.43·C); the crate's
/// clip must not apply it (it zeroes the vector), so the sensitivity stays C.
#[test]
fn subnormal_clip_factor_is_not_applied() {
    let c = 3.46e-17;
    let x = vec![1e307, 0.0];
    let naive: f64 = x.iter().map(|v| v * (c / 1e307)).map(|v| v * v).sum::<f64>().sqrt();
    assert!(naive > 1.4 * c, "the broken factor clips to {naive:e}, C = {c:e}");
    let moved = norm(&clipped_sum(&[x], c, 2));
    assert!(moved <= allowance(c, 0, 2), "{moved:e}");
}
