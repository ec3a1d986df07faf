//! RDP curves of the mechanisms that need no sampling analysis.
//!
//! * Gaussian with multiplier z (Mironov 2017, arXiv 1702.07476v3, Prop. 7): `ε(α) = α/(2z²)`.
//! * Laplace with multiplier z = b/Δ₁ (Mironov 2017, Prop. 6 / Table II):
//!   `ε(α) = 1/(α−1) · ln[ α/(2α−1) · e^{(α−1)/z} + (α−1)/(2α−1) · e^{−α/z} ]`, α > 1.
//! * Pure ε-DP, via binary randomized response RR_ε (any ε-DP pair is a post-processing of it:
//!   Kairouz, Oh, Viswanath 2015, arXiv 1311.0776v4, Thm. 2.1; RDP is closed under
//!   post-processing): `ε(α) = 1/(α−1) · ln[(e^{αε} + e^{(1−α)ε}) / (1 + e^ε)]`, which is ≤ ε.
//!
//! Each value is rounded up by its floating-point error bound.
//! Proof: proofs/accounting/rdp_basic_mechanisms.md.

const U: f64 = f64::EPSILON / 2.0;

fn up(x: f64, magnitude: f64) -> f64 {
    (x + 8.0 * U * magnitude).next_up()
}

/// `α/(2z²)`, rounded up.
pub fn gaussian_rdp(z: f64, alpha: f64) -> f64 {
    let v = alpha / (2.0 * z * z);
    up(v, v)
}

/// Laplace RDP with multiplier `z`, rounded up. Evaluated as
/// `[(α−1)/z + ln1p((α−1)/(2α−1)·expm1(−(2α−1)/z))]/(α−1)` (no overflow, and no cancellation
/// when z is large: the logarithm's argument is then close to 1).
pub fn laplace_rdp(z: f64, alpha: f64) -> f64 {
    let (am1, t) = (alpha - 1.0, 2.0 * alpha - 1.0);
    let lead = am1 / z;
    // α/t + (α−1)/t·e^{−t/z} = 1 + (α−1)/t·(e^{−t/z} − 1)
    let inner = (am1 / t * (-t / z).exp_m1()).ln_1p();
    let v = (lead + inner) / am1;
    up(v, (lead.abs() + inner.abs()) / am1).min(up(1.0 / z, 1.0 / z))
}

/// RDP of pure ε-DP (binary randomized response), rounded up, never above ε.
pub fn pure_dp_rdp(epsilon: f64, alpha: f64) -> f64 {
    if epsilon == 0.0 {
        return 0.0;
    }
    let am1 = alpha - 1.0;
    // ln(e^{αε} + e^{(1−α)ε}) − ln(1 + e^ε) = αε + ln1p(e^{(1−2α)ε}) − ε − ln1p(e^{−ε})
    let (a, b, c, d) =
        (alpha * epsilon, ((1.0 - 2.0 * alpha) * epsilon).exp().ln_1p(), epsilon, (-epsilon).exp().ln_1p());
    let v = (a + b - c - d) / am1;
    up(v, (a + b + c + d) / am1).min(epsilon)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laplace_rdp_tends_to_pure_epsilon() {
        // As α → ∞ the Laplace RDP tends to 1/z (pure DP); it is increasing in α.
        let z = 0.7;
        let (a, b, c) = (laplace_rdp(z, 2.0), laplace_rdp(z, 20.0), laplace_rdp(z, 2000.0));
        assert!(a < b && b < c && c <= 1.0 / z * (1.0 + 1e-12), "{a} {b} {c}");
        assert!(1.0 / z - c < 1e-2);
    }

    #[test]
    fn pure_rdp_matches_direct_formula_at_alpha_2() {
        let e: f64 = 0.8;
        let direct = ((2.0 * e).exp() + (-e).exp()).ln() - (1.0 + e.exp()).ln();
        let ours = pure_dp_rdp(e, 2.0);
        assert!(ours >= direct && ours - direct < 1e-14, "{ours} vs {direct}");
    }
}
