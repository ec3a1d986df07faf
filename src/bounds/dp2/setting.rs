//! The privatisation shared by \[LZLRMS\] Lemma 1, Thm. 2's noise, Cor. 1 and Thm. 3, checked
//! once.

use super::validate::finite_result;
use crate::error::{Result, check};

/// How DP² privatises a step (\[LZLRMS\] Algorithm 1, analysis model of erratum 15): per-example
/// gradients bounded by (clipped at) `C`, averaged over a batch of `b`, plus Gaussian noise of
/// multiplier σ, so each released noise is `N^t ~ N(0, σ²C²/b² I_d)`.
///
/// [`NoiseSetting::new`] checks `C > 0`, `σ ≥ 0` and `b ≥ 1` once; each function takes the setting
/// and the quantities of its own statement (the delay `s`, `g_j`, `d`, `T`, …), named as there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoiseSetting {
    c: f64,
    sigma: f64,
    batch_b: u64,
    /// `σ²C²/b²`, computed once.
    noise_variance: f64,
}

impl NoiseSetting {
    /// Gradient bound (= clip) `C`, noise multiplier σ, batch size b.
    ///
    /// # Errors
    /// `InvalidParameter` for `C ≤ 0`, `σ < 0` or `b = 0` (NaN and ∞ included), checked in this
    /// order; `Numerical` if the noise variance `σ²C²/b²` overflows.
    pub fn new(c: f64, sigma: f64, batch_b: u64) -> Result<Self> {
        let c = check::positive("c", c)?;
        let sigma = check::non_negative("sigma", sigma)?;
        let b = check::count("batch_b", batch_b)? as f64;
        // σ·σ·c·c/(b·b) as it always read where every intermediate is a normal number; else
        // ((σC)/b)² (σ = 1e200, C = 1e-200 read ∞; σ = 1e-200, C = 1e200 read 0 for a variance of
        // 1; a subnormal σ² lost digits)
        let (s2, s2c) = (sigma * sigma, sigma * sigma * c);
        let direct = s2c * c / (b * b);
        let variance = if sigma == 0.0 || [s2, s2c, s2c * c, direct].iter().all(|x| x.is_normal()) {
            direct
        } else {
            (sigma * c / b).powi(2)
        };
        let noise_variance = finite_result("noise_variance", variance)?;
        Ok(NoiseSetting { c, sigma, batch_b, noise_variance })
    }

    /// `C`.
    pub fn c(&self) -> f64 {
        self.c
    }

    /// σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// b.
    pub fn batch_b(&self) -> u64 {
        self.batch_b
    }

    /// `σ²C²/b²`: the per-coordinate variance of one released noise `N^t`.
    pub fn noise_variance(&self) -> f64 {
        self.noise_variance
    }

    /// `σ²C²/(s b²)`: the per-coordinate variance of the average of `s` released noises.
    ///
    /// # Errors
    /// `InvalidParameter` for `s = 0`.
    pub(super) fn averaged_noise_variance(&self, delay_s: u64) -> Result<f64> {
        let s = check::count("delay_s", delay_s)? as f64;
        let (c, sigma, b) = (self.c, self.sigma, self.batch_b as f64);
        finite_result("averaged_noise_variance", sigma * sigma * c * c / (s * b * b))
    }
}
