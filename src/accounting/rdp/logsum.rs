//! A signed sum of terms held in log space, with a bound on its floating-point error, so that
//! the RDP formulas can round their result *up* by a derived margin instead of a guessed one.
//!
//! Error model (proofs/accounting/rdp_float_error.md): a term's logarithm `lᵢ = Σⱼ cᵢⱼ` is a sum of
//! components each computed with relative error ≤ 4u (u = 2⁻⁵³; `ln`, `ln_1p`, libm's `erfc`
//! and `lgamma`, and the `ln k!` table are within a few ulp), so `|lᵢ − l̂ᵢ| ≤ 8u·Mᵢ` with `Mᵢ = Σⱼ|cᵢⱼ|` (which
//! the caller supplies). The total is `m + ln1p(s′)`, `m` the largest positive term's log and
//! `s′ = Σ_{i≠max} ±exp(lᵢ − m)`, summed with Neumaier's compensated summation (error
//! ≤ 2u·Σ|xᵢ| + O(n u²)Σ|xᵢ|, independent of n for n ≪ 1/u). With weights `wᵢ = exp(lᵢ − value)`
//! the absolute error of the result is below
//! `err = 8u·(|m| + |ln1p(s′)| + Σᵢ wᵢMᵢ + 4·Σ_{i≠max} wᵢ) + u·Σᵢ wᵢ|lᵢ − m| + u·|value|`
//! (the first-order terms: each `exp(lᵢ − m)` carries the relative error of `lᵢ`, the rounding of
//! the difference `lᵢ − m` and 2u, the sum 2u·Σ|xᵢ|, and `ln1p` and the final addition one
//! rounding each).

/// Accumulator of `±exp(lᵢ)` terms.
#[derive(Debug, Default, Clone)]
pub struct LogSum {
    terms: Vec<(f64, bool, f64)>, // (log |term|, positive?, magnitude M of its components)
}

/// `ln(Σ ±exp(lᵢ))` and a bound on its absolute floating-point error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogValue {
    /// The computed `ln(Σ ±exp(lᵢ))`.
    pub value: f64,
    /// A bound on the absolute floating-point error of `value`.
    pub error: f64,
}

impl LogValue {
    /// `value + error`, the upper end of the interval that contains the exact sum's log; +∞ if
    /// either is NaN (an overflowed term: the value is unknown, so no finite upper end is known).
    pub fn upper(&self) -> f64 {
        let u = self.value + self.error;
        if u.is_nan() { f64::INFINITY } else { u }
    }
}

const U: f64 = f64::EPSILON / 2.0;

impl LogSum {
    /// An empty sum with room for `n` terms.
    pub fn with_capacity(n: usize) -> Self {
        LogSum { terms: Vec::with_capacity(n) }
    }

    /// Adds `sign · exp(log_abs)`; `magnitude` is `Σ|components|` of `log_abs` (see module doc).
    pub fn push(&mut self, log_abs: f64, positive: bool, magnitude: f64) {
        if log_abs > f64::NEG_INFINITY {
            self.terms.push((log_abs, positive, magnitude));
        }
    }

    /// Evaluates the sum. Requires the total to be positive (true for every RDP moment).
    pub fn finish(&self) -> LogValue {
        let Some(imax) =
            self.terms.iter().enumerate().filter(|(_, t)| t.1).max_by(|a, b| a.1.0.total_cmp(&b.1.0)).map(|(i, _)| i)
        else {
            return LogValue { value: f64::NEG_INFINITY, error: 0.0 };
        };
        let m = self.terms[imax].0;
        // e_i = exp(l_i − m) (0 below the underflow threshold, where exp would return 0 anyway).
        let scaled: Vec<f64> =
            self.terms.iter().map(|t| if t.0 - m < -746.0 { 0.0 } else { (t.0 - m).exp() }).collect();
        // Neumaier (improved Kahan–Babuška) summation of s′.
        let (mut s_rest, mut comp) = (0.0f64, 0.0f64);
        for (i, (&(_, pos, _), &e)) in self.terms.iter().zip(&scaled).enumerate() {
            if i != imax && e != 0.0 {
                let x = if pos { e } else { -e };
                let t = s_rest + x;
                comp += if s_rest.abs() >= x.abs() { (s_rest - t) + x } else { (x - t) + s_rest };
                s_rest = t;
            }
        }
        let s_rest = s_rest + comp;
        let tail = s_rest.ln_1p();
        let value = m + tail;
        // w_i = exp(l_i − value) = e_i · exp(m − value)
        let scale = (-tail).exp();
        let (mut weighted_m, mut weight_rest, mut weighted_diff) = (0.0, 0.0, 0.0);
        for (i, (&(l, _, mag), &e)) in self.terms.iter().zip(&scaled).enumerate() {
            let w = e * scale;
            weighted_m += w * mag;
            weighted_diff += w * (l - m).abs();
            if i != imax {
                weight_rest += w;
            }
        }
        let error =
            8.0 * U * (m.abs() + tail.abs() + weighted_m + 4.0 * weight_rest) + U * weighted_diff + U * value.abs();
        LogValue { value, error }
    }
}
